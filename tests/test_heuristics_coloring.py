"""The coloring heuristic: Table 6 of Beier and Sibeyn, verification, and never below optima."""

from __future__ import annotations

import networkx as nx
import pytest

from gossipcert import graphs
from gossipcert.constructions.beier_sibeyn import matching_sequence
from gossipcert.errors import UnsupportedModelError
from gossipcert.exact.search import solve
from gossipcert.heuristics.coloring import coloring_heuristic, greedy_coloring_matchings
from gossipcert.instance import make_instance, parse_instance, parse_model, parse_problem
from gossipcert.simulate import simulate

# Table 6 (rounds of the paper's sequences) for the cases the search settles in a second
TABLE6 = [
    ("ccc:3", 7),
    ("ccc:4", 9),
    ("butterfly:3", 6),
    ("butterfly:4", 7),
    pytest.param("butterfly:5", 11, marks=pytest.mark.slow),
    ("star-graph:3", 3),
    ("star-graph:4", 6),
    ("star-graph:5", 9),
    ("pancake:3", 3),
    ("pancake:4", 5),
    ("pancake:5", 8),
]


@pytest.mark.parametrize(("graph", "rounds"), TABLE6)
def test_table6_rounds_are_reached(graph: str, rounds: int) -> None:
    inst = parse_instance(graph, "telephone", "gossip")
    res = coloring_heuristic(inst, time_limit=30)
    assert len(res.sequence) <= rounds
    rep = simulate(inst, res.schedule)
    assert rep.ok and rep.rounds == len(res.sequence)
    # the sequence alone reproduces the schedule (construct --algorithm matching-sequence)
    again = simulate(inst, matching_sequence(inst, res.sequence))
    assert again.ok and again.rounds == len(res.sequence)


def test_the_search_is_deterministic() -> None:
    inst = parse_instance("butterfly:4", "telephone", "gossip")
    assert coloring_heuristic(inst).sequence == coloring_heuristic(inst).sequence


@pytest.mark.parametrize("spec", ["petersen", "ring:7", "mesh:3x4", "hypercube:3", "knodel:8"])
def test_greedy_colouring_gives_maximal_matchings_covering_every_edge(spec: str) -> None:
    g = graphs.from_spec(spec)
    ms = greedy_coloring_matchings(g)
    covered = set()
    for m in ms:
        ends = [x for e in m for x in e]
        assert len(ends) == len(set(ends))  # a matching
        assert all(g.has_edge(u, v) for u, v in m)
        free = set(g) - set(ends)
        assert not any(g.has_edge(u, v) for u in free for v in free)  # maximal
        covered |= {frozenset(e) for e in m}
    assert covered == {frozenset(e) for e in g.edges}


# every seventh connected graph of the atlas with 3 to 6 nodes
CONNECTED = [i for i in range(4, 209) if nx.is_connected(nx.graph_atlas(i))][::7]


@pytest.mark.parametrize("index", CONNECTED)
def test_never_below_the_certified_optimum(index: int) -> None:
    g = nx.convert_node_labels_to_integers(nx.graph_atlas(index))
    for v in g:
        g.nodes[v]["label"] = str(v)
    g.graph["spec"] = f"atlas-{index}"
    inst = make_instance(g, parse_model("telephone"), parse_problem("gossip"))
    res = coloring_heuristic(inst, time_limit=5)
    assert simulate(inst, res.schedule).ok
    assert len(res.sequence) >= solve(inst, proof=False).optimum


def test_only_unbounded_telephone() -> None:
    with pytest.raises(UnsupportedModelError):
        coloring_heuristic(parse_instance("ring:6", "half-duplex", "gossip"))
    with pytest.raises(UnsupportedModelError):
        coloring_heuristic(parse_instance("ring:6", "telephone:p=1", "gossip"))
