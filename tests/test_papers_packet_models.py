"""The packet-limited results of the papers, certified by the exact search.

Dimakopoulos (single-port and half-duplex links, ``p = 1``), Gonzalez (multicast), Bermond,
Gargano and Perennes (sequential calls on complete graphs) and Beier and Sibeyn (linear cost
on the 3x3 mesh). Every optimum below comes with its evidence from :func:`solve`.
"""

from __future__ import annotations

import time

import pytest

from gossipcert.encodings import EncodingOptions
from gossipcert.errors import SpecError
from gossipcert.instance import parse_instance
from gossipcert.schedule import MAX_ROUNDS
from gossipcert.search import cost
from gossipcert.search.cost import min_steps, pareto_front
from gossipcert.search.entry import solve
from gossipcert.simulate import simulate


def certified(graph: str, model: str) -> int:
    inst = parse_instance(graph, model, "gossip")
    res = solve(inst)
    assert res.status == "optimal", (graph, model, res.status)
    assert res.evidence["kind"] in ("closed-form", "drat")
    assert simulate(inst, res.schedule).rounds == res.optimum
    return res.optimum  # type: ignore[return-value]


@pytest.mark.parametrize("n", range(3, 13))
def test_dimakopoulos_single_port_rings(n: int) -> None:
    assert certified(f"ring:{n}", "single-port:p=1") == n - 1


@pytest.mark.parametrize("n", range(3, 10))
def test_dimakopoulos_half_duplex_rings(n: int) -> None:
    assert certified(f"ring:{n}", "half-duplex:p=1") == (2 * (n - 1) if n % 2 == 0 else 2 * n)


@pytest.mark.parametrize(
    ("graph", "single", "half"),
    [("hypercube:3", 7, 14), ("torus:3x3", 8, 18), ("mesh:2x4", 7, 14), ("ring:3*path:2", 5, 10)],
)
def test_dimakopoulos_hamiltonian_and_products(graph: str, single: int, half: int) -> None:
    assert certified(graph, "single-port:p=1") == single
    assert certified(graph, "half-duplex:p=1") == half


@pytest.mark.parametrize(("n", "optimum"), [(3, 3), (4, 4), (5, 6), (6, 7), (7, 9), (8, 10)])
def test_gonzalez_multicast_paths(n: int, optimum: int) -> None:
    # below Gonzalez's n + r: n + r - 1 for odd n, n + r - 2 for even n
    r = n // 2
    assert optimum == n + r - (1 if n % 2 else 2)
    assert certified(f"path:{n}", "multicast") == optimum


@pytest.mark.parametrize("n", range(4, 8))
def test_bermond_unbounded_sequential(n: int) -> None:
    assert certified(f"complete:{n}", "sequential") == 2 * n - 4


@pytest.mark.parametrize("n", range(3, 7))
def test_bermond_one_packet_sequential(n: int) -> None:
    assert certified(f"complete:{n}", "sequential:p=1") == n * (n - 1) // 2


@pytest.mark.parametrize(("n", "p", "optimum"), [(4, 2, 4), (5, 2, 7), (5, 3, 6), (6, 2, 9)])
def test_bermond_capped_sequential(n: int, p: int, optimum: int) -> None:
    assert certified(f"complete:{n}", f"sequential:p={p}") == optimum


@pytest.mark.slow
def test_bermond_c_6_3_between_the_theorems() -> None:
    # Theorem 2.1 gives 8, Theorem 3.1 gives 10; the optimum is 9 (DRAT proof of 8)
    assert certified("complete:6", "sequential:p=3") == 9


@pytest.mark.slow
def test_beier_sibeyn_mesh_3x3_five_rounds_eleven_steps() -> None:
    inst = parse_instance("mesh:3x3", "telephone", "gossip")
    assert certified("mesh:3x3", "telephone") == 5
    point = min_steps(inst, 5, EncodingOptions.for_search())
    assert point.proved and point.steps == 11
    assert simulate(inst, point.schedule).steps == 11


@pytest.mark.parametrize("max_rounds", [-1, 0, MAX_ROUNDS + 1])
def test_a_front_needs_a_round_count(max_rounds: int, monkeypatch: pytest.MonkeyPatch) -> None:
    # -1 printed an empty front "all proved"; 10**11 ran on past the time limit
    def no_point(*args: object, **kwargs: object) -> None:
        raise AssertionError("a point of the front was computed")

    monkeypatch.setattr(cost, "min_steps", no_point)
    with pytest.raises(SpecError, match="--max-rounds"):
        pareto_front(parse_instance("ring:5", "telephone", "gossip"), max_rounds, 5)


def test_least_steps_after_the_deadline_builds_no_model(monkeypatch: pytest.MonkeyPatch) -> None:
    # each R after the time limit built its R-round model before looking at the clock
    def no_model(*args: object, **kwargs: object) -> None:
        raise AssertionError("a model was built after the deadline")

    monkeypatch.setattr(cost, "encoding_for", no_model)
    inst = parse_instance("ring:5", "telephone", "gossip")
    point = min_steps(inst, 50, EncodingOptions.for_search(), deadline=time.monotonic() - 1)
    assert (point.rounds, point.steps, point.proved) == (50, None, False)


@pytest.mark.parametrize(
    "graph, model, points",
    [
        ("path:4", "telephone", [(3, 5), (4, 5), (5, 5)]),
        ("ring:4", "telephone", [(2, 3), (3, 3)]),
        ("ring:4", "multicast", [(3, 3)]),
        ("path:4", "telephone:p=1", [(5, 5)]),
    ],
)
def test_a_front_stops_where_the_steps_fit_in_the_rounds(
    graph: str, model: str, points: list[tuple[int, int]]
) -> None:
    # S_min(R) <= R, proved: S_min is constant from there (a round without sends is dropped);
    # before, each R up to --max-rounds was solved (path:3 to 40 rounds: 80 s)
    inst = parse_instance(graph, model, "gossip")
    r0, s0 = points[-1]
    res = pareto_front(inst, r0 + 4)
    assert [(p.rounds, p.steps) for p in res.points] == points and res.proved
    assert res.constant_from == r0 and res.max_rounds == r0 + 4
    data = res.to_json()
    assert (data["constant_from"], data["max_rounds"]) == (r0, r0 + 4)
    for r in (r0 + 1, r0 + 2):  # the points it leaves out, solved
        point = min_steps(inst, r, EncodingOptions.for_search())
        assert (point.steps, point.proved) == (s0, True)


def test_a_front_goes_on_past_unproved_points(monkeypatch: pytest.MonkeyPatch) -> None:
    # S <= R found but not proved minimal says nothing about longer horizons
    def unproved(instance: object, rounds: int, *args: object) -> cost.FrontPoint:
        return cost.FrontPoint(rounds, 1, False, None, 0.0)

    monkeypatch.setattr(cost, "min_steps", unproved)
    res = pareto_front(parse_instance("ring:4", "telephone", "gossip"), 9)
    assert [p.rounds for p in res.points] == list(range(2, 10)) and res.constant_from is None


def test_a_front_below_the_round_optimum_is_refused() -> None:
    # the empty front was printed as "all proved" with exit status 0
    with pytest.raises(SpecError, match="the round optimum is 4; give --max-rounds 4 or more"):
        pareto_front(parse_instance("ring:5", "telephone", "gossip"), 3)


def test_pareto_points_and_least_cost_skip_horizons_without_steps() -> None:
    # (R, S): no schedule found for R = 2 and 6; R = 4 does not beat R = 3's 5 steps (the
    # round result is not read here)
    points = [(2, None), (3, 5), (4, 5), (5, 3), (6, None), (7, 3)]
    inst = parse_instance("path:3", "telephone", "gossip")
    res = cost.FrontResult(inst, None, [cost.FrontPoint(r, s, True, None, 0.0) for r, s in points])
    assert [(p.rounds, p.steps) for p in res.pareto()] == [(3, 5), (5, 3)]
    # T = R + tau * h * S: 8, 9, 8, 10 at tau = h = 1 (the first of the two 8s), then
    # 13, 14, 11, 13 with tau * h = 2
    best = {(tau, h): res.best_cost(tau, h) for tau, h in [(1.0, 1), (2.0, 1), (1.0, 2), (0.0, 1)]}
    assert {key: p.rounds for key, p in best.items() if p is not None} == {
        (1.0, 1): 3,
        (2.0, 1): 5,
        (1.0, 2): 5,
        (0.0, 1): 3,
    }
    empty = cost.FrontResult(inst, None, [cost.FrontPoint(2, None, True, None, 0.0)])
    assert empty.pareto() == [] and empty.best_cost(1.0, 1) is None
