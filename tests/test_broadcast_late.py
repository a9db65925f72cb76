"""The fewest-late finder (:mod:`gossipcert.research.broadcast_late`) against a brute force.

The reference is independent of :mod:`gossipcert`: a search over informed sets, where one
round adds the receivers of any directed matching from informed to uninformed nodes, gives
the most nodes that ``R`` rounds can inform. On small graphs CP-SAT proves its minimum, which
must be ``n`` minus that number.
"""

from __future__ import annotations

import itertools

import networkx as nx
import pytest
from test_broadcast_encoding import project_instance

from gossipcert.errors import UnsupportedModelError
from gossipcert.heuristics.broadcast import broadcast_greedy
from gossipcert.instance import (
    parse_instance,
)
from gossipcert.research.broadcast_late import fewest_late
from gossipcert.simulate import simulate


def most_informed(g: nx.Graph, source: int, rounds: int) -> int:
    """Most nodes informed after ``rounds`` rounds (brute force over informed sets)."""
    edges = list(g.edges())
    states = {frozenset([source])}
    for _ in range(rounds):
        nxt: set[frozenset[int]] = set()
        for state in states:
            arcs = [(a, b) for u, v in edges for a, b in ((u, v), (v, u)) if a in state]
            arcs = [(a, b) for a, b in arcs if b not in state]
            for k in range(len(arcs) + 1):
                for combo in itertools.combinations(arcs, k):
                    ends = [x for arc in combo for x in arc]
                    if len(ends) == len(set(ends)):
                        nxt.add(state | {b for _, b in combo})
        states = nxt
    return max(len(s) for s in states)


def five_node_graphs() -> list[nx.Graph]:
    return [
        nx.convert_node_labels_to_integers(g)
        for g in nx.graph_atlas_g()
        if g.number_of_nodes() == 5 and nx.is_connected(g)
    ]


def test_minimum_left_uninformed_matches_brute_force() -> None:
    checked = 0
    for g in five_node_graphs():
        inst = project_instance(g, "telephone", (0,))
        for rounds in (1, 2, 3):
            res = fewest_late(inst, rounds, None, 10.0)
            assert res.late == 5 - most_informed(g, 0, rounds), (sorted(g.edges()), rounds)
            assert res.schedule is not None
            rep = simulate(inst, res.schedule)
            assert not rep.errors and len(rep.unmet) == res.late
            checked += 1
    assert checked == 63


@pytest.mark.parametrize(
    ("graph", "optimum"),
    [("ccc:3", 6), ("hypercube:4", 4), ("butterfly:3", 5), ("mesh:3x4", 5)],
)
def test_schedule_of_the_optimum_from_a_longer_start(graph: str, optimum: int) -> None:
    inst = parse_instance(graph, "telephone", "broadcast:0")
    start = broadcast_greedy(inst, trials=1, seed=1)
    seen: list[int] = []
    res = fewest_late(inst, optimum, start, 30.0, report=lambda _s, late: seen.append(late))
    assert res.late == 0
    assert simulate(inst, res.schedule).rounds == optimum
    assert seen[-1] == 0 and seen == sorted(seen, reverse=True)
    assert fewest_late(inst, optimum - 1, start, 30.0).late > 0


def test_needs_one_packet() -> None:
    with pytest.raises(UnsupportedModelError):
        fewest_late(parse_instance("ring:4", "telephone", "gossip"), 3, None, 1.0)
