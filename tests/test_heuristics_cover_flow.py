"""The double-cover matching and the chunked flow weights of the matching heuristic.

References: Beier and Sibeyn, section 4.1 (formula (9), step 2's maximum weighted matching);
the 2-matching relaxation (its optimum is at least twice a maximum matching's weight, and
on bipartite graphs exactly twice).
"""

from __future__ import annotations

import random
from collections import deque

import networkx as nx
import numpy as np
import pytest

from gossipcert.heuristics.bitsets import edge_arrays, neighbour_table, pack
from gossipcert.heuristics.cover_matching import cover_matching, is_bipartite, two_matching
from gossipcert.heuristics.flow import flow_weights, packet_classes
from gossipcert.heuristics.matching import MatchingParams, run_matching
from gossipcert.heuristics.pairing import exact_matching
from gossipcert.instance import parse_instance
from gossipcert.simulate import simulate


def _edges(g: nx.Graph) -> tuple[np.ndarray, np.ndarray]:
    e = sorted((min(a, b), max(a, b)) for a, b in g.edges())
    return np.array([a for a, _ in e], dtype=np.int64), np.array([b for _, b in e], dtype=np.int64)


def _random_graphs(count: int, bipartite: bool) -> list[nx.Graph]:
    rng = random.Random(5)
    out = []
    for seed in range(count):
        if bipartite:
            a, b = rng.randint(1, 7), rng.randint(1, 7)
            g = nx.bipartite.random_graph(a, b, rng.uniform(0.2, 0.9), seed=seed)
        else:
            n = rng.randint(3, 13)
            g = nx.gnm_random_graph(n, rng.randint(n, n * (n - 1) // 2), seed=seed)
        if g.number_of_edges():
            out.append(nx.convert_node_labels_to_integers(g))
    return out


def _is_matching(chosen: list[int], u: np.ndarray, v: np.ndarray) -> bool:
    ends = [int(x) for k in chosen for x in (u[k], v[k])]
    return len(ends) == len(set(ends))


@pytest.mark.parametrize("bipartite", [True, False])
def test_cover_matching_against_edmonds(bipartite: bool) -> None:
    rng = np.random.default_rng(3)
    below = 0
    for g in _random_graphs(150, bipartite):
        n = g.number_of_nodes()
        u, v = _edges(g)
        assert is_bipartite(u, v, n) == nx.is_bipartite(g)
        w = rng.integers(0, 6, len(u)).astype(float)
        chosen, odd = cover_matching(u, v, w, n)
        best = exact_matching(u, v, w)
        assert _is_matching(chosen, u, v)
        assert all(w[k] > 0 for k in chosen)
        # the 2-matching relaxation is at least twice the best matching
        sigma = two_matching(u, v, w, n)
        weight_of = {(int(a), int(b)): w[k] for k, (a, b) in enumerate(zip(u, v, strict=True))}
        relaxed = sum(weight_of[min(x, y), max(x, y)] for x, y in enumerate(sigma) if x != y)
        assert relaxed >= 2 * w[best].sum() - 1e-9
        assert w[chosen].sum() <= w[best].sum() + 1e-9
        if bipartite:
            assert not odd
            assert w[chosen].sum() == pytest.approx(w[best].sum())
        else:
            below += w[chosen].sum() < w[best].sum() - 1e-9
    if not bipartite:
        assert below < 30  # odd cycles lose a little on a few graphs


def _flow_reference(
    g: nx.Graph, know: list[int], demand: list[int], n_packets: int, de: float, ne: float
) -> tuple[dict[tuple[int, int], float], int]:
    """Formula (9) in its flow form, packet by packet with plain BFS (no bitsets)."""
    n = g.number_of_nodes()
    dists = {}
    top = 0
    for p in range(n_packets):
        region = [x for x in range(n) if know[x] >> p & 1]
        if not region:
            continue
        dist = dict.fromkeys(region, 0)
        queue = deque(region)
        while queue:
            x = queue.popleft()
            for y in g.adj[x]:
                if y not in dist:
                    dist[y] = dist[x] + 1
                    queue.append(y)
        dists[p] = dist
        for x in range(n):
            if demand[x] >> p & 1 and not know[x] >> p & 1:
                top = max(top, dist[x])
    out: dict[tuple[int, int], float] = {}
    for p, dist in dists.items():
        mass = {
            x: (dist[x] / top) ** de if demand[x] >> p & 1 and not know[x] >> p & 1 else 0.0
            for x in range(n)
        }
        for level in range(max(dist.values()), 0, -1):
            for x in (y for y in range(n) if dist[y] == level):
                parents = [y for y in g.adj[x] if dist[y] == level - 1]
                part = mass[x] / len(parents) ** ne
                for y in parents:
                    if level == 1:
                        out[y, x] = out.get((y, x), 0.0) + part
                    else:
                        mass[y] += part
    return out, top


@pytest.mark.parametrize("seed", range(6))
def test_flow_weights_against_a_plain_reference(seed: int) -> None:
    rng = random.Random(seed)
    g = nx.connected_watts_strogatz_graph(rng.randint(6, 16), 4, 0.4, seed=seed)
    n = g.number_of_nodes()
    n_packets = n
    know = [1 << x | (rng.getrandbits(n) & rng.getrandbits(n)) for x in range(n)]
    demand = [rng.getrandbits(n) | (1 << (n - 1 - x)) for x in range(n)]
    de, ne = rng.choice([1.0, 3.0]), rng.choice([0.0, 0.5, 1.0])
    ref, top = _flow_reference(g, know, demand, n_packets, de, ne)
    u, v = edge_arrays(g)
    kw, dw = pack(know, n_packets), pack(demand, n_packets)
    for chunk in (1, 7, 1 << 20):  # one class per chunk, a few, all at once
        w = flow_weights(kw, dw, neighbour_table(g), u, v, n_packets, de, ne, chunk_cells=chunk)
        assert w.eccentricity == top
        for k, (a, b) in enumerate(zip(u.tolist(), v.tolist(), strict=True)):
            assert w.forward[k] == pytest.approx(ref.get((a, b), 0.0), rel=1e-5, abs=1e-6)
            assert w.backward[k] == pytest.approx(ref.get((b, a), 0.0), rel=1e-5, abs=1e-6)


def test_packet_classes_group_equal_columns() -> None:
    rng = random.Random(2)
    n, n_packets = 12, 40
    know = [rng.getrandbits(n_packets) & rng.getrandbits(n_packets) for _ in range(n)]
    know[0] |= (1 << n_packets) - 1
    demand = [rng.getrandbits(n_packets) for _ in range(n)]
    kb, lack, size = packet_classes(pack(know, n_packets), pack(demand, n_packets), n_packets)
    groups: dict[tuple[tuple[int, ...], tuple[int, ...]], int] = {}
    for p in range(n_packets):
        has = tuple(x for x in range(n) if know[x] >> p & 1)
        lacks = tuple(x for x in range(n) if demand[x] >> p & 1 and not know[x] >> p & 1)
        if lacks:
            groups[has, lacks] = groups.get((has, lacks), 0) + 1
    found = {
        (
            tuple(np.flatnonzero(kb[:, c]).tolist()),
            tuple(np.flatnonzero(lack[:, c]).tolist()),
        ): int(size[c])
        for c in range(kb.shape[1])
    }
    assert found == groups


@pytest.mark.parametrize(
    ("spec", "rounds"),
    [
        ("knodel:512", 10),  # log2 n + 1 (the optimum is 9)
        ("hypercube:9", 9),  # the optimum, with the natural edge order on ties
        ("debruijn:9", 16),  # the paper's Table 5 HR
    ],
)
def test_large_graphs_with_the_cover_matching(spec: str, rounds: int) -> None:
    inst = parse_instance(spec, "telephone", "gossip")
    res = run_matching(inst, MatchingParams())
    assert simulate(inst, res.schedule).ok
    assert len(res.schedule) == rounds
