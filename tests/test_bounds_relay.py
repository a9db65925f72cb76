"""The relay lower bound: sound against the independent references, and its values by hand.

The packet-capped models are checked against the reference of ``test_exact_bruteforce_packets``
(gossip and broadcast, every connected graph of up to 4 nodes), all-port against the
reference of ``test_exact_bruteforce_allport`` (capacities 1 and 2, every problem).
"""

from __future__ import annotations

import networkx as nx
import pytest
from test_exact_bruteforce_allport import (
    PATTERNS,
    PROBLEMS,
    atlas,
    capacitated,
    max_nodes,
    project_instance,
    reference_optimum,
    root_of,
)
from test_exact_bruteforce_packets import brute_force as packets_brute_force
from test_exact_bruteforce_packets import cases
from test_exact_bruteforce_packets import project_instance as packets_instance

from gossipcert.closed_forms import best_lower_bound, bound_by_name, relay_bound
from gossipcert.closed_forms.relay import relay_counts, send_rounds, tail_applies
from gossipcert.instance import make_instance, parse_instance, parse_model, parse_problem
from gossipcert.search.entry import solve


@pytest.mark.parametrize("problem", ["gossip", "broadcast:0"])
@pytest.mark.parametrize(
    "model", ["single-port", "single-port:p=2", "telephone:p=1", "half-duplex:p=1"]
)
def test_relay_bound_is_sound_packet_models(model: str, problem: str) -> None:
    tight = 0
    for _, n, edges in cases(4):
        b = relay_bound(packets_instance(n, edges, model, problem))
        if b is not None:
            expected = packets_brute_force(n, edges, model, problem)
            assert b.value <= expected, (edges, b)
            tight += b.value == expected
    if problem == "gossip":
        assert tight > 0  # reached somewhere: the paths of 3 and 4 nodes


@pytest.mark.parametrize("problem", PROBLEMS)
def test_relay_bound_is_sound_all_port(problem: str) -> None:
    for _, n, plain in atlas(max_nodes(problem)):
        spec = problem if problem in ("gossip", "total-exchange") else f"{problem}:"
        if spec.endswith(":"):
            spec += str(root_of(frozenset(), n))
        for pattern in PATTERNS:
            edges = capacitated(plain, pattern)
            b = relay_bound(project_instance(n, edges, frozenset(), spec))
            if b is not None:
                assert b.value <= reference_optimum(n, edges, frozenset(), spec), (edges, b)


def spider() -> nx.Graph:
    """Legs of 1, 1 and 2 edges around node 3 (graph atlas 30)."""
    g = nx.Graph([(0, 4), (1, 3), (2, 3), (3, 4)])
    nx.set_edge_attributes(g, 1, "capacity")
    return g


def test_relay_bound_values() -> None:
    # the centre of the spider sends 8 + 8 + 6 packets, one a round
    inst = make_instance(spider(), parse_model("single-port"), parse_problem("gossip:chunks=2"))
    assert relay_counts(inst, 3) == (22, 6, 8, 8)
    assert best_lower_bound(inst).value == 22
    # star K_{1,4}: 4 x 8 sends, the centre's own packets first
    assert relay_bound(parse_instance("star:5", "single-port", "gossip:chunks=2")).value == 32
    # half-duplex: the middle of a path sends 4 and receives 2, never both in one round
    assert relay_bound(parse_instance("path:3", "half-duplex:p=1", "gossip")).value == 6
    # all-port: the centre of a star sends 3 x 3 packets over 3 arcs, its own in round 1
    assert relay_bound(parse_instance("star:4", "all-port", "gossip")).value == 3
    # the last receipt of a leaf's packet is forwarded a round later
    assert relay_bound(parse_instance("star:4", "single-port:p=3", "gossip")).value == 3


def bowtie() -> nx.Graph:
    """Two triangles sharing node 4 (graph atlas 42)."""
    g = nx.Graph([(0, 1), (0, 4), (1, 4), (2, 3), (2, 4), (3, 4)])
    nx.set_edge_attributes(g, 1, "capacity")
    return g


def test_relay_tail_values() -> None:
    # the centre of the bowtie sends 6 + 6 packets into sides of two nodes: the last one
    # still has to cross its side, so 12 + 1
    inst = make_instance(bowtie(), parse_model("single-port"), parse_problem("gossip:chunks=2"))
    assert relay_counts(inst, 4) == (12, 4, 8, 8)
    assert send_rounds(12, 4, 1) == 12
    assert tail_applies(inst, 4)
    assert relay_bound(inst).value == 13
    assert "still has to cross it" in relay_bound(inst).source  # the tail made it
    # a side of one node needs nothing after its last packet: the star keeps 32
    star = parse_instance("star:5", "single-port", "gossip:chunks=2")
    assert not tail_applies(star, 0) and "cross" not in relay_bound(star).source
    # the middle of a path of 5: sides of 2 nodes lacking 3 packets each, 6 + 1
    assert relay_bound(parse_instance("path:5", "single-port", "gossip")).value == 7
    # scatter: a packet is demanded by its destination alone, so no tail
    assert not tail_applies(parse_instance("path:5", "single-port", "scatter:0"), 2)
    # two packets a round: 6 sends fill 3 rounds and a seventh needs a fourth; with 5
    # sends (a sixth fits the third round) the tail adds nothing
    inst2 = make_instance(bowtie(), parse_model("single-port:p=2"), parse_problem("gossip"))
    assert send_rounds(6, 2, 2) == 3 and relay_bound(inst2).value == 4
    assert send_rounds(5, 2, 2) == send_rounds(6, 3, 2) == 3


def test_relay_bound_declines() -> None:
    assert relay_bound(parse_instance("star:5", "multicast", "gossip")) is None
    assert relay_bound(parse_instance("star:5", "telephone", "gossip")) is None
    assert relay_bound(parse_instance("star:5", "single-port", "allreduce")) is None
    assert relay_bound(parse_instance("complete:4", "single-port", "gossip")) is None
    assert bound_by_name(parse_instance("ring:5", "single-port", "gossip"), "relay") is None


def test_reduce_scatter_on_the_spider_is_certified_by_the_relay_bound() -> None:
    # reduce-scatter runs as gossip backwards; the relay bound of gossip meets the schedule
    inst = make_instance(
        spider(), parse_model("single-port"), parse_problem("reduce-scatter:chunks=2")
    )
    res = solve(inst, proof=False)
    assert res.status == "optimal" and res.optimum == 22


def test_reduce_scatter_on_the_bowtie_is_certified_by_the_tail() -> None:
    # 12 rounds is what the SAT reference refutes in minutes; the tail of the relay bound
    # gives 13 at once, and the time-reversed gossip schedule meets it
    inst = make_instance(
        bowtie(), parse_model("single-port"), parse_problem("reduce-scatter:chunks=2")
    )
    res = solve(inst, proof=False)
    assert res.status == "optimal" and res.optimum == 13
