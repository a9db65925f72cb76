"""The coloring search's reach bound: all matchings at once, against exhaustive search."""

from __future__ import annotations

import math
from functools import cache

import networkx as nx
import pytest

from gossipcert.heuristics import bitsets
from gossipcert.heuristics.coloring import coloring_heuristic
from gossipcert.heuristics.coloring_classes import _default_matchings
from gossipcert.heuristics.coloring_orbit_search import _SymmetricSearch
from gossipcert.heuristics.coloring_reach import orbit_reach_rounds, packed_reach_rounds
from gossipcert.heuristics.coloring_search import _Search
from gossipcert.heuristics.coloring_symmetry import matching_symmetry
from gossipcert.instance import Instance, parse_instance
from gossipcert.simulate import simulate

Matching = list[tuple[int, int]]


def _union(inst: Instance, ms: list[Matching]) -> nx.Graph:
    g = nx.Graph()
    g.add_nodes_from(range(inst.n))
    g.add_edges_from(e for m in ms for e in m)
    return g


def _packed(inst: Instance, state: tuple[int, ...], ms: list[Matching], limit: int) -> int:
    know = bitsets.pack(list(state), inst.n_packets)[:-1]
    need = bitsets.pack(inst.demands, inst.n_packets)[:-1]
    return packed_reach_rounds(know, need, bitsets.neighbour_table(_union(inst, ms)), limit)


def _step(state: tuple[int, ...], m: Matching) -> tuple[int, ...]:
    new = list(state)
    for u, v in m:
        new[u] = new[v] = state[u] | state[v]
    return tuple(new)


@pytest.mark.parametrize(
    ("spec", "problem"),
    [
        ("ccc:4", "gossip"),
        ("butterfly:4", "gossip"),
        ("star-graph:4", "gossip"),
        ("pancake:5", "gossip"),
        ("mesh:3x5", "gossip"),
        ("petersen", "gossip"),
        ("ring:9", "broadcast:2"),
        ("mesh:4x4", "broadcast:5"),
    ],
)
def test_at_the_start_the_bound_is_the_distance_bound(spec: str, problem: str) -> None:
    # gossip: the union graph's diameter; broadcast: the source's eccentricity
    inst = parse_instance(spec, "telephone", problem)
    ms = [sorted(m) for m in _default_matchings(inst)]
    union = _union(inst, ms)
    if problem == "gossip":
        want = nx.diameter(union)
    else:
        want = nx.eccentricity(union, int(problem.split(":")[1]))
    assert _packed(inst, tuple(inst.holdings), ms, 100) == want
    assert _packed(inst, tuple(inst.holdings), ms, want - 1) == want  # capped: "more"
    sym = matching_symmetry(inst, ms)
    if sym is not None:
        orbits = _SymmetricSearch(inst, ms, 9, 0.0, 1, False, math.inf, symmetry=sym)
        assert orbit_reach_rounds(orbits.know, orbits.take, 100) == want


@pytest.mark.parametrize(
    ("spec", "problem", "depth"),
    [
        ("ccc:3", "gossip", 5),
        ("star-graph:4", "gossip", 4),
        ("pancake:4", "gossip", 3),
        ("butterfly:3", "gossip", 4),
        ("mesh:3x3", "gossip", 4),
        ("ccc:4", "broadcast:0", 6),
    ],
)
def test_a_state_the_bound_cuts_cannot_finish(spec: str, problem: str, depth: int) -> None:
    # every state after every sequence of up to `depth` matchings: the bound never exceeds
    # the exact rounds the matchings still need (exhaustive search over all sequences),
    # and on gossip it is exact at some state where the search's two older bounds are not
    # (on broadcast the node bound already holds the packet back from far nodes)
    inst = parse_instance(spec, "telephone", problem)
    ms = [sorted(m) for m in _default_matchings(inst)]

    def done(state: tuple[int, ...]) -> bool:
        return all(d & ~k == 0 for d, k in zip(inst.demands, state, strict=True))

    @cache
    def finishes(state: tuple[int, ...], left: int) -> bool:
        if done(state):
            return True
        return left > 0 and any(finishes(_step(state, m), left - 1) for m in ms)

    def exact(state: tuple[int, ...]) -> int:
        return next(r for r in range(64) if finishes(state, r))

    probe = _Search(inst, ms, 64, 0.0, 1, False, math.inf)
    states = {tuple(inst.holdings)}
    frontier = set(states)
    for _ in range(depth):
        frontier = {_step(s, m) for s in frontier for m in ms} - states
        states |= frontier
    sharper = 0
    for state in states:
        bound, rounds = _packed(inst, state, ms, 64), exact(state)
        assert bound <= rounds
        if bound == rounds and rounds > 0:
            # the older bounds alone would let this state try one round fewer
            probe.know = bitsets.pack(list(state), inst.n_packets)[:-1]
            probe.count = bitsets.popcount(probe.know)
            older = probe._packet_bound(rounds - 1) or probe._node_bound(rounds - 1)
            sharper += not older
    assert sharper > 0 or problem != "gossip"


@pytest.mark.parametrize("spec", ["ccc:5", "butterfly:5", "star-graph:5", "pancake:5"])
def test_the_orbit_form_is_the_packed_form(spec: str) -> None:
    inst = parse_instance(spec, "telephone", "gossip")
    ms = [sorted(m) for m in _default_matchings(inst)]
    sym = matching_symmetry(inst, ms)
    assert sym is not None
    full = _Search(inst, ms, 12, 0.0, 1, False, math.inf)
    orbits = _SymmetricSearch(inst, ms, 12, 0.0, 1, False, math.inf, symmetry=sym)
    seen = []
    for r in range(12):
        i = (r * 5 + r // 2) % len(ms)
        full._apply(i)
        orbits._apply(i)
        for limit in (3, 30):
            packed = packed_reach_rounds(full.know, full.demands, full.partners, limit)
            assert orbit_reach_rounds(orbits.know, orbits.take, limit) == packed
        seen.append(packed)
    assert seen[-1] == 0 or seen == sorted(seen, reverse=True)  # never grows along a path


@pytest.mark.parametrize(
    ("spec", "rounds"), [("ccc:5", 13), ("ccc:6", 14), ("star-graph:5", 9), ("pancake:5", 8)]
)
def test_the_bound_keeps_the_shortest_sequence_and_shrinks_the_search(
    spec: str, rounds: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the unfiltered setting is exhaustive: with and without the bound it finds a sequence
    # at the shortest length of the matchings and proves one round fewer impossible
    inst = parse_instance(spec, "telephone", "gossip")
    ms = [sorted(m) for m in _default_matchings(inst)]
    sym = matching_symmetry(inst, ms)
    assert sym is not None
    nodes = {}
    for cut in (True, False):
        if not cut:
            monkeypatch.setattr(_Search, "_reach_bound", lambda self, left: False)
        for r in (rounds, rounds - 1):
            search = _SymmetricSearch(inst, ms, r, 0.0, 1, False, math.inf, symmetry=sym)
            found = search.run()
            assert (found is not None) == (r == rounds) and not search.timed_out
            if found is not None:
                sched = coloring_heuristic(inst, ms, min_rounds=r, max_rounds=r).schedule
                assert simulate(inst, sched).ok
            nodes[cut, r] = search.nodes
    assert nodes[True, rounds - 1] < nodes[False, rounds - 1]


def test_ccc10_at_its_diameter_in_a_few_search_nodes() -> None:
    # Table 6's 23 rounds for CCC 10 equal its diameter, so the bound leaves no slack:
    # the unfiltered setting finds a sequence in under 100 search nodes (it visited
    # 143,336 without one before the bound) and proves 22 rounds impossible at the root
    inst = parse_instance("ccc:10", "telephone", "gossip")
    ms = [sorted(m) for m in _default_matchings(inst)]
    sym = matching_symmetry(inst, ms)
    assert sym is not None
    search = _SymmetricSearch(inst, ms, 23, 0.0, 1, False, math.inf, symmetry=sym)
    seq = search.run()
    assert seq is not None and len(seq) == 23 and search.nodes < 100
    short = _SymmetricSearch(inst, ms, 22, 0.0, 1, False, math.inf, symmetry=sym)
    assert short.run() is None and short.nodes == 1


@pytest.mark.slow
def test_ccc10_the_heuristic_finds_23_rounds_deterministically() -> None:
    inst = parse_instance("ccc:10", "telephone", "gossip")
    ms = [sorted(m) for m in _default_matchings(inst)]
    res = coloring_heuristic(inst, ms, min_rounds=23, time_limit=120)
    assert len(res.sequence) == 23 and simulate(inst, res.schedule).ok
    again = coloring_heuristic(inst, ms, min_rounds=23, time_limit=120)
    assert (again.sequence, again.nodes, again.trace) == (res.sequence, res.nodes, res.trace)


@pytest.mark.slow
def test_ccc12_reaches_the_paper_s_28_rounds() -> None:
    # Table 6's last CCC row: 28 rounds, the diameter of CCC 12 (about a minute, 1.2 GB)
    inst = parse_instance("ccc:12", "telephone", "gossip")
    res = coloring_heuristic(inst, min_rounds=28, time_limit=600)
    assert len(res.sequence) == 28
    rep = simulate(inst, res.schedule)
    assert rep.ok and rep.rounds == 28
