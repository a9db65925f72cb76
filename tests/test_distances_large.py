"""Diameter and radius of large graphs (above the exact all-sources threshold): the values
must be exact on long paths and trees, whose diameter makes a level-by-level search
quadratic, and agree with networkx on random graphs and trees."""

from __future__ import annotations

import random

import networkx as nx
import pytest

from gossipcert import graphs
from gossipcert.distances import bfs_distances, csr_arrays, diameter_radius
from gossipcert.graphs.queries import describe


@pytest.mark.parametrize(
    ("spec", "diameter", "radius"),
    [("path:200000", 199999, 100000), ("ring:100000", 50000, 50000)],
)
def test_describe_long_graphs_exactly(spec: str, diameter: int, radius: int) -> None:
    # exact values only: a test's verdict never depends on the machine's speed
    graph = graphs.from_spec(spec)
    info = describe(graph)
    assert (info["diameter"], info["radius"]) == (diameter, radius)
    assert "distance_note" not in info


@pytest.mark.parametrize("seed", range(6))
def test_exact_against_networkx(seed: int) -> None:
    rng = random.Random(seed)
    n = rng.randint(2, 300)
    if seed % 2:
        graph = (
            nx.random_labeled_tree(n, seed=seed)
            if hasattr(nx, "random_labeled_tree")
            else (nx.random_tree(n, seed=seed))
        )
    else:
        graph = (
            nx.connected_watts_strogatz_graph(n, 4, 0.1, seed=seed) if n > 4 else (nx.path_graph(n))
        )
    graph = nx.convert_node_labels_to_integers(graph)
    found = diameter_radius(graph)
    assert found.exact
    assert (found.diameter_low, found.radius_low) == (nx.diameter(graph), nx.radius(graph))
    indptr, indices = csr_arrays(graph)
    lengths = nx.single_source_shortest_path_length(graph, 0)
    assert bfs_distances(indptr, indices, 0).tolist() == [lengths[v] for v in range(n)]


def test_unreached_nodes_and_several_sources() -> None:
    graph = nx.Graph([(0, 1), (1, 2), (3, 4)])
    indptr, indices = csr_arrays(graph)
    assert bfs_distances(indptr, indices, 0).tolist() == [0, 1, 2, -1, -1]
    assert bfs_distances(indptr, indices, [2, 3]).tolist() == [2, 1, 0, 0, 1]


@pytest.mark.parametrize("seed", range(8))
def test_the_python_search_and_scipys_agree(seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    # small graphs are searched in Python (no scipy import), large ones by scipy's search
    from gossipcert import distances

    rng = random.Random(seed)
    n = rng.randint(1, 60)
    graph = nx.gnp_random_graph(n, rng.choice([0.03, 0.1, 0.3]), seed=seed)  # often split
    indptr, indices = csr_arrays(graph)
    sources = rng.sample(range(n), rng.randint(1, min(n, 4)))
    found = {}
    for arcs in (0, 10**9):  # every graph by scipy, then every graph in Python
        monkeypatch.setattr(distances, "SMALL_GRAPH_ARCS", arcs)
        found[arcs] = [bfs_distances(indptr, indices, s).tolist() for s in (sources[0], sources)]
    lengths = nx.multi_source_dijkstra_path_length(graph, set(sources))
    assert found[0] == found[10**9]
    assert found[0][1] == [lengths.get(v, -1) for v in range(n)]
