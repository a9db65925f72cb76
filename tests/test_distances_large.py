"""Diameter and radius of large graphs (above the exact all-sources threshold): the values
must be exact and fast on long paths and trees, whose diameter makes a level-by-level search
quadratic, and agree with networkx on random graphs and trees."""

from __future__ import annotations

import random
import time

import networkx as nx
import pytest

from gossipcert import graphs
from gossipcert.distances import bfs_distances, csr_arrays, diameter_radius
from gossipcert.graphs.queries import describe


@pytest.mark.parametrize(
    ("spec", "diameter", "radius"),
    [("path:200000", 199999, 100000), ("ring:100000", 50000, 50000)],
)
def test_describe_long_graphs_exactly_and_fast(spec: str, diameter: int, radius: int) -> None:
    graph = graphs.from_spec(spec)
    start = time.monotonic()
    info = describe(graph)
    assert time.monotonic() - start < 3
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
