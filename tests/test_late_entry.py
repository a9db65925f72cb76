"""The late-entry bound: its count on ``mi250:2``, soundness against the exact model on every
small machine of two chassis joined through NIC routers and a switch, and the small machines
on which it alone reaches the optimum."""

from __future__ import annotations

import networkx as nx
import numpy as np
import pytest

from gossipcert.closed_forms import all_bounds, best_lower_bound
from gossipcert.closed_forms.cut_cover import cut_cover_bound
from gossipcert.closed_forms.late_entry import late_entry_bound, late_entry_rounds
from gossipcert.graphs.convert import from_networkx
from gossipcert.instance import Instance, make_instance, parse_instance, parse_model, parse_problem
from gossipcert.search.entry import solve


def two_chassis(edges: list[tuple[int, int, int]], per_nic: int) -> nx.Graph:
    """Two copies of the chassis ``edges`` (processor, processor, capacity), a NIC router for
    every ``per_nic`` processors of a chassis (links of capacity 1) and one switch router
    joining the NICs (capacity 1): ``mi250:2`` in small."""
    g = nx.Graph()
    size = 1 + max(max(a, b) for a, b, _ in edges)
    for c in range(2):
        g.add_nodes_from((("gpu", c, i) for i in range(size)), router=False)
        g.add_edges_from((("gpu", c, a), ("gpu", c, b), {"capacity": k}) for a, b, k in edges)
        for j in range(size // per_nic):
            g.add_node(("nic", c, j), router=True)
            for i in range(per_nic * j, per_nic * (j + 1)):
                g.add_edge(("gpu", c, i), ("nic", c, j), capacity=1)
            g.add_edge(("nic", c, j), "switch", capacity=1)
    g.nodes["switch"]["router"] = True
    return from_networkx(g)


def gossip(edges: list[tuple[int, int, int]], per_nic: int, chunks: int) -> Instance:
    spec = "gossip" if chunks == 1 else f"gossip:chunks={chunks}"
    return make_instance(two_chassis(edges, per_nic), parse_model("all-port"), parse_problem(spec))


def exact(inst: Instance) -> int:
    res = solve(inst, use_bounds=False, proof=False)
    assert res.optimum is not None
    return res.optimum


def test_mi250x2_allgather() -> None:
    """GCD 5 of a chassis and its xGMI neighbours 4, 6, 7 know at most 12 of the other
    chassis's packets after round 6 and GCD 5 receives 3 in round 7: ``16 > 15``."""
    inst = parse_instance("mi250:2", "all-port", "gossip")
    bound = late_entry_bound(inst)
    assert bound is not None and bound.value == 8
    assert cut_cover_bound(inst).value == 7  # type: ignore[union-attr]
    two = parse_instance("mi250:2", "all-port", "gossip:chunks=2")
    assert late_entry_bound(two).value == 10  # type: ignore[union-attr]
    assert best_lower_bound(two).name == "late-entry"


def test_the_count_of_the_docstring() -> None:
    """The eight down-links (capacity 1, first used in round 3) at distances 2, 2, 1, 1, 3,
    3, 4, 4 from ``Q``: 12 slots by round 6, 20 by round 7; 28 by round 8, 36 by round 9."""
    one = np.ones(8, dtype=np.int64)
    near = np.array([2, 2, 1, 1, 3, 3, 4, 4])
    assert late_entry_rounds(16, one, 3 * one, near, 3, 1) == 8
    assert late_entry_rounds(15, one, 3 * one, near, 3, 1) == 7
    assert late_entry_rounds(32, one, 3 * one, near, 3, 1) == 10
    assert late_entry_rounds(31, one, 3 * one, near, 3, 1) == 9


#: small chassis (processor, processor, capacity) and NIC sharing on which the bound alone
#: reaches the exact optimum: every other lower bound is one round short
DECISIVE = [
    ([(0, 1, 1), (0, 3, 4), (1, 3, 3), (2, 3, 2)], 1, 1, 6),
    ([(0, 1, 1), (1, 2, 2), (1, 3, 4), (2, 3, 2)], 1, 1, 6),
    ([(0, 1, 4), (1, 2, 1), (1, 3, 2), (2, 3, 4)], 1, 1, 6),
    ([(0, 3, 3), (1, 2, 1), (1, 3, 4), (2, 3, 3)], 1, 2, 7),
    ([(0, 1, 2), (1, 3, 2), (1, 5, 2), (2, 3, 2), (2, 4, 4), (2, 5, 2), (3, 5, 3)], 2, 1, 7),
]


@pytest.mark.parametrize(("edges", "per_nic", "chunks", "optimum"), DECISIVE)
def test_decisive_on_small_machines(
    edges: list[tuple[int, int, int]], per_nic: int, chunks: int, optimum: int
) -> None:
    inst = gossip(edges, per_nic, chunks)
    assert late_entry_bound(inst).value == optimum  # type: ignore[union-attr]
    others = [b.value for b in all_bounds(inst) if b.kind == "lower" and b.name != "late-entry"]
    assert max(others) == optimum - 1
    assert exact(inst) == optimum


def chassis_shapes() -> list[list[tuple[int, int, int]]]:
    """Every connected graph of 2 to 4 nodes, its edges of capacity 1, 2 or 3 in turn."""
    shapes = []
    for h in nx.graph_atlas_g()[3:19]:
        if not nx.is_connected(h):
            continue
        edges = sorted(h.edges)
        for offset in range(3):
            shapes.append([(a, b, 1 + (i + offset) % 3) for i, (a, b) in enumerate(edges)])
    return shapes


@pytest.mark.parametrize("per_nic", [1, 2])
def test_never_above_the_exact_optimum(per_nic: int) -> None:
    """Every chassis of :func:`chassis_shapes` (an even number of processors when two share
    a NIC), one chunk a processor."""
    for edges in chassis_shapes():
        size = 1 + max(max(a, b) for a, b, _ in edges)
        if size % per_nic:
            continue
        inst = gossip(edges, per_nic, 1)
        bound = late_entry_bound(inst)
        if bound is not None:
            assert bound.value <= exact(inst), (edges, per_nic, bound)


def test_never_above_the_exact_optimum_two_chunks() -> None:
    """The 4-node chassis of :func:`chassis_shapes` with two processors a NIC, two chunks."""
    for edges in chassis_shapes():
        if 1 + max(max(a, b) for a, b, _ in edges) != 4 or len(edges) > 4:
            continue
        inst = gossip(edges, 2, 2)
        bound = late_entry_bound(inst)
        assert bound is not None and bound.value <= exact(inst), (edges, bound)


def test_not_applicable() -> None:
    assert late_entry_bound(parse_instance("ring:6", "single-port", "gossip")) is None
    assert late_entry_bound(parse_instance("ring:6", "all-port", "allreduce")) is None
