"""The one-round bound of the reductions: its closed form on fully connected machines, a
one-round schedule whenever it declines in all-port, and never above the certified optimum."""

from __future__ import annotations

import pytest

from gossipcert.closed_forms.allreduce_one_round import (
    first_round_receipts,
    one_round_bound,
    one_round_value,
)
from gossipcert.instance import Instance, parse_instance
from gossipcert.schedule import Schedule, Transmission
from gossipcert.simulate import simulate
from gossipcert.watchdog import solve_within


def direct(instance: Instance) -> Schedule:
    """Every missing contributor sends its own partial of each chunk straight to each
    demander, in one round (``reduce`` into the demander's own)."""
    needs = first_round_receipts(instance) or {}
    out = []
    for v, loads in needs.items():
        for u in loads:
            mask = 0
            for c in range(instance.n_packets):
                if instance.demands[v] >> c & 1 and instance.holdings[u] >> c & 1:
                    mask |= 1 << c
            out.append(Transmission(u, (v,), mask, "reduce"))
    return Schedule((tuple(out),))


@pytest.mark.parametrize("n", range(2, 9))
@pytest.mark.parametrize("chunks", [1, 2, 3])
def test_fully_connected_closed_form(n: int, chunks: int) -> None:
    """Each arc must carry all ``n K`` chunks in round 1: 2 rounds exactly when ``c < n K``."""
    for c in range(1, 3 * n * chunks + 1):
        spec = "allreduce" if chunks == 1 else f"allreduce:chunks={chunks}"
        inst = parse_instance(f"fully-connected:{n}", f"all-port:c={c}", spec)
        assert one_round_value(inst) == (2 if c < n * chunks else None)


GRAPHS = ["path:2", "path:3", "star:4", "complete:3", "complete:4", "ring:4", "dgx1"]
PROBLEMS = ["allreduce", "allreduce:chunks=2", "reduce-scatter", "reduce:0", "allreduce:redop=max"]


@pytest.mark.parametrize("graph", GRAPHS)
@pytest.mark.parametrize("problem", PROBLEMS)
@pytest.mark.parametrize("capacity", [1, 2, 4, 8, 16])
def test_all_port_exact(graph: str, problem: str, capacity: int) -> None:
    """In all-port the bound is exact about one round: when it declines, the direct schedule
    solves the instance in one round; when it says 2, the direct schedule breaks a rule."""
    inst = parse_instance(graph, f"all-port:c={capacity}", problem)
    report = simulate(inst, direct(inst))
    if one_round_bound(inst) is None:
        assert report.ok and report.rounds == 1, report.errors[:3]
    else:
        assert not report.ok


@pytest.mark.parametrize("graph", ["path:3", "star:4", "complete:3", "ring:4", "complete:4"])
@pytest.mark.parametrize(
    "model", ["all-port", "all-port:c=3", "single-port", "single-port:p=2", "telephone:p=4"]
)
@pytest.mark.parametrize("problem", ["allreduce", "reduce-scatter", "reduce:0"])
def test_never_above_the_optimum(graph: str, model: str, problem: str) -> None:
    inst = parse_instance(graph, model, problem)
    value = one_round_value(inst)
    if value is None:
        return
    best = solve_within(inst, time_limit=None)
    assert best.status == "optimal" and best.optimum is not None
    assert value <= best.optimum


def test_declines() -> None:
    assert one_round_bound(parse_instance("complete:4", "all-port", "gossip")) is None
    one = parse_instance("path:2", "all-port:c=2", "allreduce")  # each node hears the other
    assert one_round_bound(one) is None
    assert simulate(one, direct(one)).rounds == 1
    through = parse_instance("dgx2", "all-port:c=16", "allreduce")  # only through the switch
    assert one_round_value(through) == 2
