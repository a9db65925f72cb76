"""The cone encoding (inform a target set in ``R`` rounds) against a brute force, and the
far-first finder on butterflies with certified broadcast times."""

from __future__ import annotations

import itertools
from pathlib import Path

import networkx as nx
import pytest
from test_broadcast_encoding import project_instance, reference_time

from gossipcert.closed_forms.broadcast_ranks import broadcast_ranks_bound
from gossipcert.encodings.broadcast_cone import ConeBroadcastEncoding
from gossipcert.errors import InstanceError, UnsupportedModelError
from gossipcert.instance import Instance, parse_instance
from gossipcert.research.broadcast_far_first import far_first, far_order
from gossipcert.schedule import read_schedule
from gossipcert.simulate import simulate
from gossipcert.solvers.backends import SatBackend, Status


def cone_rounds(inst: Instance, targets: frozenset[int]) -> int:
    """Fewest rounds by the cone encoding (one formula per horizon, cut for it); every
    satisfiable horizon's schedule must inform the targets in time."""
    for r in range(inst.n + 1):
        enc = ConeBroadcastEncoding(inst, r, targets)
        backend = SatBackend(enc.formula)
        status = backend.solve([enc.selector(r)])
        if status is Status.SAT:
            rep = simulate(inst, enc.decode(r, backend.value))
            assert rep.valid
            assert all(rep.knowledge[v] & 1 for v in targets)
            return r
        assert status is Status.UNSAT
    raise AssertionError("no horizon")


def small_graphs() -> list[nx.Graph]:
    return [
        nx.convert_node_labels_to_integers(g)
        for g in nx.graph_atlas_g()
        if 2 <= g.number_of_nodes() <= 5 and nx.is_connected(g)
    ]


def test_cone_with_every_node_is_the_broadcast_time() -> None:
    for g in small_graphs():
        inst = project_instance(g, "telephone", (0,))
        edges = tuple(sorted(tuple(sorted(e)) for e in g.edges))
        everyone = frozenset(range(1, g.number_of_nodes()))
        assert cone_rounds(inst, everyone) == reference_time(
            g.number_of_nodes(), edges, (0,), False, everyone
        ), edges


def test_cone_with_target_subsets_matches_brute_force() -> None:
    checked = 0
    for g in small_graphs():
        n = g.number_of_nodes()
        if n < 4:
            continue
        inst = project_instance(g, "telephone", (0,))
        edges = tuple(sorted(tuple(sorted(e)) for e in g.edges))
        for size in (1, 2):
            for targets in itertools.combinations(range(1, n), size):
                want = frozenset(targets)
                assert cone_rounds(inst, want) == reference_time(n, edges, (0,), False, want), (
                    edges,
                    want,
                )
                checked += 1
    assert checked > 100


def test_cone_drops_calls_that_cannot_reach_a_target() -> None:
    inst = parse_instance("path:6", "telephone", "broadcast:2")
    enc = ConeBroadcastEncoding(inst, 3, [0])
    # 2 -> 3 leads away from node 0; 2 -> 1 in round 3 is too late to reach node 0
    assert enc.sends(2, 3, 1) is False
    assert enc.sends(2, 1, 3) is False
    assert enc.sends(2, 1, 1) is not False
    assert all(v in (0, 1) for _, v in enc.arcs(2))


def test_cone_rejects_bad_targets_and_horizons() -> None:
    inst = parse_instance("path:4", "telephone", "broadcast:0")
    with pytest.raises(InstanceError):
        ConeBroadcastEncoding(inst, 3, [7])
    enc = ConeBroadcastEncoding(inst, 3, [3])
    with pytest.raises(InstanceError):
        enc.extend_to(4)


def test_far_order_puts_the_farthest_first() -> None:
    inst = parse_instance("butterfly:6", "telephone", "broadcast:0")
    order = far_order(inst)
    assert len(order) == inst.n - 1
    # one node at distance 9 (3k/2) from node 0 on the even butterfly
    assert order[0] == (2**6 - 1) * 6 + 3


@pytest.mark.parametrize("dominance", [True, False])
@pytest.mark.parametrize(("graph", "optimum"), [("butterfly:4", 7), ("butterfly:6", 10)])
def test_far_first_finds_the_certified_optimum(graph: str, optimum: int, dominance: bool) -> None:
    inst = parse_instance(graph, "telephone", "broadcast:0")
    res = far_first(inst, optimum, 60, dominance=dominance)
    assert res.schedule is not None
    rep = simulate(inst, res.schedule)
    assert rep.ok and rep.rounds == optimum
    assert res.covered == res.total == inst.n - 1


def test_far_first_below_the_optimum_finds_nothing() -> None:
    # butterfly:4 needs 7 rounds (certified); its farthest node is at distance 6
    inst = parse_instance("butterfly:4", "telephone", "broadcast:0")
    res = far_first(inst, 6, 20)
    assert res.schedule is None
    assert res.covered < res.total


def test_far_first_needs_one_packet() -> None:
    with pytest.raises(UnsupportedModelError):
        far_first(parse_instance("ring:5", "telephone", "gossip"), 3, 5)


def test_stored_butterfly8_schedule_meets_the_ranks_bound() -> None:
    """The 13-round schedule of butterfly:8 stored in results/ (found by the far-first
    finder) is valid and meets the closed-form ``broadcast-ranks`` bound: optimum 13."""
    inst = parse_instance("butterfly:8", "telephone", "broadcast:0")
    path = Path(__file__).parent.parent / "results/schedules/butterfly8-broadcast0-13.json"
    rep = simulate(inst, read_schedule(path, inst))
    assert rep.ok and rep.rounds == 13
    bound = broadcast_ranks_bound(inst)
    assert bound is not None and bound.value == 13
