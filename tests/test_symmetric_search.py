"""The symmetric schedule search: verified schedules, brute-force optima, refused groups."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from test_exact_bruteforce import brute_force
from typer.testing import CliRunner

from gossipcert.errors import NotApplicableError, SpecError
from gossipcert.finders.invariant import group_order, symmetric_search
from gossipcert.graphs.networks import star_graph
from gossipcert.instance import Instance, parse_instance
from gossipcert.schedule import write_schedule
from gossipcert.simulate import simulate
from gossipcert.solvers.backends import Status
from gossipcert.symmetry.groups import cycle_perm, left_map, right_map, star_subgroups


def _edges(inst: Instance) -> tuple[tuple[int, int], ...]:
    return tuple(sorted((min(u, v), max(u, v)) for u, v in inst.graph.edges))


def _rotation(n: int, k: int) -> list[int]:
    return [(v + k) % n for v in range(n)]


def _hypercube_flip(bit: int) -> list[int]:
    return [v ^ (1 << bit) for v in range(8)]


CASES = [
    # graph, generators of a group under which some optimal schedule is invariant
    ("ring:8", [_rotation(8, 2)]),
    ("ring:6", [_rotation(6, 2)]),
    ("mesh:2x4", [[4 * (v // 4) + 3 - v % 4 for v in range(8)]]),
    ("path:6", [[5 - v for v in range(6)]]),
    ("hypercube:3", [_hypercube_flip(0)]),
    ("hypercube:3", [_hypercube_flip(0), _hypercube_flip(1), _hypercube_flip(2)]),
    ("complete:6", [_rotation(6, 2)]),
    ("complete:5", []),
]


@pytest.mark.parametrize(("graph", "gens"), CASES)
def test_finds_the_brute_force_optimum(graph: str, gens: list[list[int]]) -> None:
    inst = parse_instance(graph, "telephone", "gossip")
    best = brute_force(inst.n, _edges(inst), "telephone", "gossip")
    found = symmetric_search(inst, gens, best)
    assert found.status is Status.SAT
    assert found.schedule is not None
    report = simulate(inst, found.schedule)
    assert report.ok and report.rounds == best
    # one round less is impossible for any schedule, invariant ones included
    assert symmetric_search(inst, gens, best - 1).status is Status.UNSAT


@pytest.mark.parametrize(("graph", "gens"), CASES[:4])
def test_counting_constraints_keep_the_verdicts(graph: str, gens: list[list[int]]) -> None:
    inst = parse_instance(graph, "telephone", "gossip")
    best = brute_force(inst.n, _edges(inst), "telephone", "gossip")
    for r, want in ((best, Status.SAT), (best - 1, Status.UNSAT)):
        plain = symmetric_search(inst, gens, r, equal=False, counting=False)
        full = symmetric_search(inst, gens, r, equal=True, counting=True)
        assert plain.status is want and full.status is want


def test_found_schedule_is_invariant() -> None:
    inst = parse_instance("ring:12", "telephone", "gossip")
    rot = _rotation(12, 4)
    found = symmetric_search(inst, [rot], 6)
    assert found.status is Status.SAT and found.order == 3
    assert found.schedule is not None
    for rnd in found.schedule:
        calls = {frozenset((t.sender, *t.receivers)) for t in rnd}
        assert {frozenset(rot[x] for x in c) for c in calls} == calls


def test_unsat_for_a_group_says_nothing_about_the_instance() -> None:
    # every rotation-invariant round of ring:8 calls all edges or none: not a matching
    inst = parse_instance("ring:8", "telephone", "gossip")
    res = symmetric_search(inst, [_rotation(8, 1)], 6)
    assert res.status is Status.UNSAT and res.order == 8
    assert brute_force(inst.n, _edges(inst), "telephone", "gossip") == 4


def test_non_automorphism_is_refused() -> None:
    inst = parse_instance("ring:8", "telephone", "gossip")
    swap = list(range(8))
    swap[0], swap[2] = 2, 0
    with pytest.raises(SpecError, match="not an automorphism"):
        symmetric_search(inst, [swap], 4)
    with pytest.raises(SpecError, match="not a permutation"):
        symmetric_search(inst, [[0] * 8], 4)


def test_other_models_are_refused() -> None:
    inst = parse_instance("ring:8", "half-duplex", "gossip")
    with pytest.raises(NotApplicableError, match="telephone"):
        symmetric_search(inst, [], 4)
    inst = parse_instance("ring:8", "telephone", "broadcast:0")
    with pytest.raises(NotApplicableError, match="gossip"):
        symmetric_search(inst, [], 4)


def test_star_graph_maps_are_automorphisms_of_the_orders_named() -> None:
    g = star_graph(5)
    inst = parse_instance("star-graph:5", "telephone", "gossip")
    subs = star_subgroups(g)
    orders = {name: group_order([tuple(x) for x in gens], 120) for name, gens in subs.items()}
    assert orders["L<(01234),(1243)> F20"] == 20
    assert orders["L<A4 on 0123> A4"] == 12
    assert orders["L<S4 on 0123> S4"] == 24
    assert orders["R<S4> S4"] == 24
    assert orders["L<A5> A5 (order 60)"] == 60
    # the whole left group acts regularly: the Cayley-uniform schedules, 4 edge orbits
    res = symmetric_search(inst, subs["L<A5> A5 (order 60)"], 6)
    assert res.stats["edge_orbits"] == 4
    # a right map that moves position 0 is not an automorphism
    with pytest.raises(SpecError, match="not an automorphism"):
        symmetric_search(inst, [right_map(g, cycle_perm(5, (0, 1)))], 8)


def test_star_graph_4_left_group_finds_a_verified_schedule() -> None:
    inst = parse_instance("star-graph:4", "telephone", "gossip")
    gens = [left_map(inst.graph, cycle_perm(4, (0, 1, 2, 3)))]
    # an upper bound only: the schedule is expanded and verified
    res = symmetric_search(inst, gens, 6)
    assert res.status is Status.SAT and res.schedule is not None
    assert simulate(inst, res.schedule).ok


def test_solve_resumes_from_a_stored_symmetric_schedule(tmp_path: Path) -> None:
    from gossipcert.cli import app

    inst = parse_instance("ring:8", "telephone", "gossip")
    found = symmetric_search(inst, [_rotation(8, 2)], 4)
    assert found.schedule is not None
    path = tmp_path / "ring8.json"
    write_schedule(found.schedule, inst, path)
    res = CliRunner().invoke(app, ["solve", "ring:8", "--resume", str(path), "--json", "-q"])
    assert res.exit_code == 0, res.output
    data = json.loads(res.stdout)
    assert data["status"] == "optimal" and data["optimum"] == 4
