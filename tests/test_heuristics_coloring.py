"""The coloring heuristic: Table 6 of Beier and Sibeyn, verification, and never below optima."""

from __future__ import annotations

import networkx as nx
import pytest

from gossipcert import graphs
from gossipcert.constructions.beier_sibeyn import matching_sequence
from gossipcert.errors import NotApplicableError, UnsupportedModelError
from gossipcert.exact.search import solve
from gossipcert.heuristics.coloring import (
    PRUNING,
    _default_matchings,
    _Search,
    coloring_heuristic,
    greedy_coloring_matchings,
)
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


def test_a_filtered_search_without_the_window_rule_finds_what_the_windows_prune() -> None:
    # CCC 5 (paper: 13 rounds): every windowed setting exhausts its search at 13 rounds
    # without a sequence; the filtered setting without the window rule finds one
    inst = parse_instance("ccc:5", "telephone", "gossip")
    for setting in (s for s in PRUNING if s[1]):
        with pytest.raises(NotApplicableError):
            coloring_heuristic(inst, pruning=(setting,), min_rounds=13, max_rounds=13)
    filtered = tuple(s for s in PRUNING if not s[1] and s[2] > 0)
    assert filtered
    res = coloring_heuristic(inst, pruning=filtered, min_rounds=13, max_rounds=13)
    assert len(res.sequence) == 13 and simulate(inst, res.schedule).ok


@pytest.mark.parametrize("spec", ["ccc:4", "butterfly:3", "pancake:4", "mesh:3x4"])
def test_packed_knowledge_matches_plain_bitsets(spec: str) -> None:
    # the search's gain and step on packed rows against Python-integer bitsets, 6 rounds
    inst = parse_instance(spec, "telephone", "gossip")
    ms = [sorted(m) for m in _default_matchings(inst)]
    search = _Search(inst, ms, 6, 0.0, 1, False, float("inf"))
    packed, plain = search.holdings, list(inst.holdings)
    for r in range(6):
        i = r % len(ms)
        gain = 0
        nxt = list(plain)
        for u, v in ms[i]:
            both = plain[u] | plain[v]
            gain += (both & ~plain[u]).bit_count() + (both & ~plain[v]).bit_count()
            nxt[u] = nxt[v] = both
        assert search._gain(packed, i) == gain
        packed, plain = search._apply(packed, i), nxt
        assert [int.from_bytes(row.tobytes(), "little") for row in packed] == plain
