"""The bandwidth bounds of closed_forms.throughput against brute force over every cut."""

from __future__ import annotations

import itertools
import random
from fractions import Fraction

import networkx as nx
import pytest

from gossipcert.closed_forms.throughput import (
    allgather_cut,
    broadcast_cut,
    cut_ratio,
    reduce_scatter_cut,
)
from gossipcert.errors import GraphError


def _arcs(g: nx.Graph) -> dict[tuple[int, int], Fraction]:
    arcs: dict[tuple[int, int], Fraction] = {}
    for u, v, w in g.edges(data="capacity", default=1):
        arcs[(u, v)] = Fraction(w)
        if not g.is_directed():
            arcs[(v, u)] = Fraction(w)
    return arcs


def _brute_allgather(g: nx.Graph, compute: list[int], reverse: bool = False) -> Fraction:
    arcs = _arcs(g)
    if reverse:
        arcs = {(v, u): b for (u, v), b in arcs.items()}
    nodes = list(g.nodes)
    best = Fraction(0)
    for r in range(1, len(nodes) + 1):
        for side in itertools.combinations(nodes, r):
            s = set(side)
            if all(v in s for v in compute):
                continue
            inside = sum(1 for v in compute if v in s)
            out = sum((b for (u, v), b in arcs.items() if u in s and v not in s), Fraction(0))
            if inside:
                best = max(best, Fraction(inside) / out)
    return best


def _brute_broadcast(g: nx.Graph, root: int, compute: list[int]) -> Fraction:
    arcs = _arcs(g)
    others = [v for v in g.nodes if v != root]
    least = None
    for r in range(0, len(others) + 1):
        for rest in itertools.combinations(others, r):
            s = {root, *rest}
            if all(v in s for v in compute):
                continue
            out = sum((b for (u, v), b in arcs.items() if u in s and v not in s), Fraction(0))
            least = out if least is None else min(least, out)
    assert least is not None
    return Fraction(1) / least


def _random_fabric(seed: int) -> tuple[nx.Graph, list[int]]:
    rng = random.Random(seed)
    n = rng.randint(2, 7)
    directed = rng.random() < 0.4
    while True:
        g: nx.Graph = nx.gnp_random_graph(
            n, rng.uniform(0.3, 0.9), seed=rng.randrange(2**31), directed=directed
        )
        if g.number_of_nodes() and (
            nx.is_strongly_connected(g) if directed else nx.is_connected(g)
        ):
            break
    for u, v in g.edges:
        g[u][v]["capacity"] = rng.choice([1, 2, 3, Fraction(1, 2), 2.5])
    routers = rng.sample(range(n), rng.randint(0, max(0, n - 2)))
    for v in routers:
        g.nodes[v]["router"] = True
    return g, [v for v in range(n) if v not in routers]


@pytest.mark.parametrize("seed", range(60))
def test_the_max_ratio_cut_is_the_brute_force_maximum(seed: int) -> None:
    g, compute = _random_fabric(seed)
    cut = allgather_cut(g)
    assert cut.ratio == _brute_allgather(g, compute)
    if len(compute) >= 2:
        assert cut_ratio(g, cut.side) == cut.ratio
    assert reduce_scatter_cut(g).ratio == _brute_allgather(g, compute, reverse=True)
    root = compute[0]
    if len(compute) >= 2:
        assert broadcast_cut(g, root).ratio == _brute_broadcast(g, root, compute)


@pytest.mark.parametrize("n", range(3, 13))
def test_rings_and_complete_graphs_meet_their_closed_forms(n: int) -> None:
    # the bidirectional ring: n - 1 shares into one node over two arcs
    assert allgather_cut(nx.cycle_graph(n)).ratio == Fraction(n - 1, 2)
    # a complete graph: one node receives n - 1 shares over n - 1 arcs
    assert allgather_cut(nx.complete_graph(n)).ratio == 1
    assert broadcast_cut(nx.complete_graph(n), 0).ratio == Fraction(1, n - 1)


def test_bad_fabrics_are_refused() -> None:
    g = nx.Graph([(0, 1), (2, 3)])
    with pytest.raises(GraphError, match="do not reach"):
        allgather_cut(g)
    h = nx.path_graph(3)
    h[0][1]["capacity"] = 0
    with pytest.raises(GraphError, match="positive"):
        allgather_cut(h)
    h[0][1]["capacity"] = "fast"
    with pytest.raises(GraphError, match="number"):
        allgather_cut(h)
    with pytest.raises(GraphError, match="leave some compute node out"):
        cut_ratio(nx.path_graph(3), {0, 1, 2})
