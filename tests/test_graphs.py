"""Tests of gossipcert.graphs: families, specs, files and queries."""

from __future__ import annotations

import doctest
import importlib
import itertools
import json
import math
from collections.abc import Callable
from pathlib import Path

import networkx as nx
import pytest

import gossipcert.graphs.queries as graphs_queries
from gossipcert import graphs
from gossipcert.distances import diameter_radius
from gossipcert.errors import GossipcertError, GraphError, SpecError
from gossipcert.graphs import (
    capacity,
    cartesian_product,
    complete,
    cube_connected_cycles,
    de_bruijn,
    describe,
    fat_tree,
    from_spec,
    hypercube,
    is_router,
    knodel,
    mesh,
    node_ref,
    pancake,
    path,
    petersen,
    processors,
    random_connected,
    read_graph_file,
    resolve_node,
    ring,
    routers,
    shuffle_exchange,
    star,
    star_graph,
    torus,
    wrapped_butterfly,
    write_graph_file,
)

# --------------------------------------------------------------------------------------------
# Helpers
# --------------------------------------------------------------------------------------------


def assert_conventions(g: nx.Graph) -> None:
    """The invariants every graph of the module must satisfy."""
    n = g.number_of_nodes()
    assert isinstance(g, nx.Graph)
    assert not g.is_directed()
    assert not g.is_multigraph()
    assert sorted(g.nodes) == list(range(n))
    assert nx.number_of_selfloops(g) == 0
    assert isinstance(g.graph["spec"], str)
    assert g.graph["spec"]
    for _, data in g.nodes(data=True):
        assert isinstance(data["label"], str)
        assert isinstance(data["router"], bool)
    for _, _, data in g.edges(data=True):
        assert isinstance(data["capacity"], int)
        assert data["capacity"] >= 1
    labels = [g.nodes[v]["label"] for v in g]
    assert len(set(labels)) == n


def degrees(g: nx.Graph) -> set[int]:
    return {d for _, d in g.degree()}


def edge_set(g: nx.Graph) -> set[tuple[int, int]]:
    return {(min(u, v), max(u, v)) for u, v in g.edges()}


def capacities(g: nx.Graph) -> dict[tuple[int, int], int]:
    return {(min(u, v), max(u, v)): d["capacity"] for u, v, d in g.edges(data=True)}


# --------------------------------------------------------------------------------------------
# Families: counts, degrees, diameters
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("n", range(3, 21))
def test_ring(n: int) -> None:
    g = ring(n)
    assert_conventions(g)
    assert (g.number_of_nodes(), g.number_of_edges()) == (n, n)
    assert degrees(g) == {2}
    info = describe(g)
    assert info["diameter"] == n // 2
    assert info["radius"] == n // 2
    assert g.graph["spec"] == f"ring:{n}"
    assert all(g.nodes[v]["label"] == str(v) for v in g)


@pytest.mark.parametrize("n", range(1, 11))
def test_path(n: int) -> None:
    g = path(n)
    assert_conventions(g)
    assert (g.number_of_nodes(), g.number_of_edges()) == (n, n - 1)
    info = describe(g)
    assert info["connected"]
    assert info["diameter"] == n - 1
    assert info["radius"] == n // 2


@pytest.mark.parametrize("n", range(1, 9))
def test_complete(n: int) -> None:
    g = complete(n)
    assert_conventions(g)
    assert (g.number_of_nodes(), g.number_of_edges()) == (n, n * (n - 1) // 2)
    assert describe(g)["diameter"] == (1 if n > 1 else 0)


@pytest.mark.parametrize("n", range(2, 11))
def test_star(n: int) -> None:
    g = star(n)
    assert_conventions(g)
    assert (g.number_of_nodes(), g.number_of_edges()) == (n, n - 1)
    assert g.degree(0) == n - 1
    assert all(g.degree(v) == 1 for v in range(1, n))
    info = describe(g)
    assert info["diameter"] == (1 if n == 2 else 2)
    assert info["radius"] == 1


@pytest.mark.parametrize("k", range(1, 9))
def test_hypercube(k: int) -> None:
    g = hypercube(k)
    assert_conventions(g)
    assert g.number_of_nodes() == 2**k
    assert g.number_of_edges() == k * 2 ** (k - 1)
    assert degrees(g) == {k}
    assert all(bin(u ^ v).count("1") == 1 for u, v in g.edges())
    assert describe(g)["diameter"] == k
    if k <= 5:
        assert nx.diameter(g) == k


@pytest.mark.parametrize(("a", "b"), list(itertools.product(range(1, 6), repeat=2)))
def test_mesh(a: int, b: int) -> None:
    g = mesh(a, b)
    assert_conventions(g)
    assert g.number_of_nodes() == a * b
    assert g.number_of_edges() == 2 * a * b - a - b
    for r in range(a):
        for c in range(b):
            assert g.nodes[r * b + c]["coords"] == (r, c)
    info = describe(g)
    assert info["diameter"] == a + b - 2
    assert g.graph["spec"] == f"mesh:{a}x{b}"


@pytest.mark.parametrize(("a", "b"), list(itertools.product(range(3, 7), repeat=2)))
def test_torus(a: int, b: int) -> None:
    g = torus(a, b)
    assert_conventions(g)
    assert (g.number_of_nodes(), g.number_of_edges()) == (a * b, 2 * a * b)
    assert degrees(g) == {4}
    assert g.nodes[b + 2]["coords"] == (1, 2)
    assert describe(g)["diameter"] == a // 2 + b // 2


def test_petersen() -> None:
    g = petersen()
    assert_conventions(g)
    assert (g.number_of_nodes(), g.number_of_edges()) == (10, 15)
    assert degrees(g) == {3}
    assert describe(g)["diameter"] == 2
    assert nx.girth(g) == 5
    assert nx.is_isomorphic(g, nx.petersen_graph())
    assert edge_set(g) == edge_set(nx.petersen_graph())


CCC_DIAMETER = {3: 6, 4: 8, 5: 10, 6: 13}  # 2k - 2 + floor(k/2) for k >= 4


@pytest.mark.parametrize("k", range(3, 7))
def test_cube_connected_cycles(k: int) -> None:
    g = cube_connected_cycles(k)
    assert_conventions(g)
    assert g.number_of_nodes() == k * 2**k
    assert 2 * g.number_of_edges() == 3 * k * 2**k
    assert degrees(g) == {3}
    assert nx.is_connected(g)
    for i in range(2**k):
        for j in range(k):
            v = i * k + j
            assert g.nodes[v]["coords"] == (i, j)
            assert g.has_edge(v, i * k + (j + 1) % k)
            assert g.has_edge(v, (i ^ 2**j) * k + j)
    assert describe(g)["diameter"] == CCC_DIAMETER[k]
    if k <= 4:
        assert nx.diameter(g) == CCC_DIAMETER[k]


@pytest.mark.parametrize("k", range(3, 7))
def test_wrapped_butterfly(k: int) -> None:
    g = wrapped_butterfly(k)
    assert_conventions(g)
    assert g.number_of_nodes() == k * 2**k
    assert g.number_of_edges() == 2 * k * 2**k
    assert degrees(g) == {4}
    assert nx.is_connected(g)
    for i in range(2**k):
        for j in range(k):
            v = i * k + j
            assert g.nodes[v]["coords"] == (i, j)
            assert g.has_edge(v, i * k + (j + 1) % k)
            assert g.has_edge(v, (i ^ 2**j) * k + (j + 1) % k)
    assert describe(g)["diameter"] == 3 * k // 2


def test_butterfly3_matches_beier_sibeyn_figure5() -> None:
    # "Gossiping on Butterfly3 with n = 24 and m = 48"
    g = from_spec("butterfly:3")
    assert (g.number_of_nodes(), g.number_of_edges()) == (24, 48)


@pytest.mark.parametrize("k", range(2, 10))
def test_shuffle_exchange(k: int) -> None:
    g = shuffle_exchange(k)
    assert_conventions(g)
    n = 2**k
    assert g.number_of_nodes() == n
    assert g.number_of_edges() == 3 * n // 2 - (3 if k % 2 == 0 else 2)
    assert max(degrees(g)) == (3 if k >= 3 else 2)
    assert nx.is_connected(g)
    for i in range(n):
        assert g.has_edge(i, i ^ 1)
        rotated = ((i << 1) | (i >> (k - 1))) % n
        assert rotated == i or g.has_edge(i, rotated)
    assert describe(g)["diameter"] == 2 * k - 1


@pytest.mark.parametrize("k", range(2, 10))
def test_de_bruijn(k: int) -> None:
    g = de_bruijn(k)
    assert_conventions(g)
    n = 2**k
    assert g.number_of_nodes() == n
    assert g.number_of_edges() == 2 * n - 3
    assert max(degrees(g)) == (4 if k >= 3 else 3)
    assert nx.is_connected(g)
    assert describe(g)["diameter"] == k


@pytest.mark.parametrize("n", range(2, 65, 2))
def test_knodel(n: int) -> None:
    delta = n.bit_length() - 1
    g = knodel(n)
    assert_conventions(g)
    assert g.number_of_nodes() == n
    assert g.number_of_edges() == n * delta // 2
    assert degrees(g) == {delta}
    assert nx.is_connected(g)
    assert nx.is_bipartite(g)
    assert g.graph["spec"] == f"knodel:{n}"
    half = n // 2
    for j in range(half):
        assert g.nodes[j]["coords"] == (1, j)
        assert g.nodes[half + j]["coords"] == (2, j)
        for i in range(delta):
            assert g.has_edge(j, half + (j + 2**i - 1) % half)
    for d in range(1, delta + 1):
        h = knodel(n, d)
        assert h.number_of_edges() == n * d // 2
        assert degrees(h) == {d}


@pytest.mark.parametrize("k", range(2, 7))
def test_knodel_power_of_two_diameter(k: int) -> None:
    # W_{k, 2^k} has diameter ceil((k + 2) / 2)
    assert describe(knodel(2**k))["diameter"] == math.ceil((k + 2) / 2)


STAR_GRAPH_DIAMETER = {3: 3, 4: 4, 5: 6, 6: 7}  # floor(3(k-1)/2)
PANCAKE_DIAMETER = {3: 3, 4: 4, 5: 5, 6: 7}


@pytest.mark.parametrize("k", range(3, 7))
def test_star_graph(k: int) -> None:
    g = star_graph(k)
    assert_conventions(g)
    assert g.number_of_nodes() == math.factorial(k)
    assert g.number_of_edges() == (k - 1) * math.factorial(k) // 2
    assert degrees(g) == {k - 1}
    assert nx.is_bipartite(g)
    perms = list(itertools.permutations(range(k)))
    assert [g.nodes[v]["coords"] for v in g] == perms
    index = {p: v for v, p in enumerate(perms)}
    for v, p in enumerate(perms):
        for c in range(k - 1):
            q = list(p)
            q[0], q[c + 1] = q[c + 1], q[0]
            assert g.has_edge(v, index[tuple(q)])
    assert describe(g)["diameter"] == STAR_GRAPH_DIAMETER[k]


@pytest.mark.parametrize("k", range(3, 7))
def test_pancake(k: int) -> None:
    g = pancake(k)
    assert_conventions(g)
    assert g.number_of_nodes() == math.factorial(k)
    assert g.number_of_edges() == (k - 1) * math.factorial(k) // 2
    assert degrees(g) == {k - 1}
    perms = list(itertools.permutations(range(k)))
    index = {p: v for v, p in enumerate(perms)}
    for v, p in enumerate(perms):
        assert g.nodes[v]["coords"] == p
        for c in range(k - 1):
            flipped = tuple(reversed(p[: c + 2])) + p[c + 2 :]
            assert g.has_edge(v, index[flipped])
    assert describe(g)["diameter"] == PANCAKE_DIAMETER[k]


def test_pancake4_matches_beier_sibeyn_figure6() -> None:
    # "Gossiping on Pancake4 with n = 24 and m = 36"
    g = from_spec("pancake:4")
    assert (g.number_of_nodes(), g.number_of_edges()) == (24, 36)


def test_star_graph_and_pancake_differ() -> None:
    assert not nx.is_isomorphic(star_graph(4), pancake(4))  # the pancake is not bipartite
    assert not nx.is_bipartite(pancake(4))


@pytest.mark.parametrize("pattern", ["constant", "exponential"])
@pytest.mark.parametrize("levels", range(1, 7))
def test_fat_tree(levels: int, pattern: str) -> None:
    n = 2**levels
    g = fat_tree(n, pattern)
    assert_conventions(g)
    assert g.number_of_nodes() == 2 * n - 1
    assert g.number_of_edges() == 2 * n - 2
    assert nx.is_tree(g)
    assert processors(g) == list(range(n))
    assert routers(g) == list(range(n, 2 * n - 1))
    assert [g.nodes[v]["coords"] for v in range(n)] == [(0, x) for x in range(n)]
    assert g.nodes[2 * n - 2]["coords"] == (levels, 0)
    position = {g.nodes[v]["coords"]: v for v in g}
    per_level = dict.fromkeys(range(1, levels + 1), 0)
    for level in range(1, levels + 1):
        expected = 1 if pattern == "constant" else 2 ** (level - 1)
        for x in range(n >> level):
            parent = position[(level, x)]
            assert g.nodes[parent]["router"]
            for child in (2 * x, 2 * x + 1):
                child_node = position[(level - 1, child)]
                assert capacity(g, child_node, parent) == expected
                per_level[level] += expected
            assert g.degree(parent) == (2 if level == levels else 3)
    if pattern == "exponential":
        # "the total number of physical links at each level is equal to n"
        assert set(per_level.values()) == {n}
    # leaves are numbered left to right: leaf x hangs below router (1, x // 2)
    for x in range(n):
        assert g.has_edge(x, position[(1, x // 2)])
    info = describe(g)
    assert info["diameter"] == 2 * levels
    assert (info["processors"], info["routers"]) == (n, n - 1)
    suffix = "" if pattern == "constant" else ":exp"
    assert g.graph["spec"] == f"fattree:{n}{suffix}"


def test_fat_tree_custom_capacities() -> None:
    g = fat_tree(8, [1, 2, 2])
    assert g.graph["spec"] == "fattree:8:1,2,2"
    assert capacity(g, 0, 8) == 1
    assert capacity(g, 8, 12) == 2
    assert capacity(g, 12, 14) == 2
    assert fat_tree(8, [1, 1, 1]).graph["spec"] == "fattree:8"
    assert fat_tree(8, [1, 2, 4]).graph["spec"] == "fattree:8:exp"
    with pytest.raises(SpecError, match="decrease"):
        fat_tree(8, [2, 1, 1])
    with pytest.raises(SpecError, match="one per level"):
        fat_tree(8, [1, 2])


@pytest.mark.parametrize(("n", "m"), [(1, 0), (2, 1), (5, 4), (6, 10), (10, 15), (12, 66)])
def test_random_connected(n: int, m: int) -> None:
    g = random_connected(n, m, seed=7)
    assert_conventions(g)
    assert (g.number_of_nodes(), g.number_of_edges()) == (n, m)
    assert nx.is_connected(g)
    assert g.graph["spec"] == f"random:{n},{m},seed=7"
    assert edge_set(g) == edge_set(random_connected(n, m, seed=7))


def test_random_connected_seeds_differ_and_cover() -> None:
    seen = {frozenset(edge_set(random_connected(5, 5, seed=s))) for s in range(200)}
    assert len(seen) > 20
    # connected graphs on 4 labelled nodes with 3 edges are the 16 labelled trees
    trees = {frozenset(edge_set(random_connected(4, 3, seed=s))) for s in range(400)}
    assert len(trees) == 16


@pytest.mark.parametrize(
    ("n", "m", "tries"),
    [(40, 39, 5), (200, 300, 10_000), (5000, 10_000, 10_000)],
)
def test_sparse_random_graphs_are_connected(n: int, m: int, tries: int) -> None:
    """Sparse G(n, m) is rarely connected: a random spanning tree plus edges is used instead."""
    g = random_connected(n, m, seed=1, max_tries=tries)
    assert (g.number_of_nodes(), g.number_of_edges()) == (n, m)
    assert nx.is_connected(g)
    assert edge_set(g) == edge_set(random_connected(n, m, seed=1, max_tries=tries))
    assert edge_set(g) != edge_set(random_connected(n, m, seed=2, max_tries=tries))


@pytest.mark.parametrize("seed", range(6))
def test_eccentricity_bounds_against_networkx(seed: int) -> None:
    """Extrema bounding: exact without a budget, true bounds with one."""
    g = random_connected(300, 360 + 40 * seed, seed=seed)
    diameter, radius = nx.diameter(g), nx.radius(g)
    exact = diameter_radius(g)
    assert exact.exact and (exact.diameter_low, exact.radius_low) == (diameter, radius)
    rough = diameter_radius(g, max_searches=2)
    assert rough.diameter_low <= diameter <= rough.diameter_high
    assert rough.radius_low <= radius <= rough.radius_high


def test_large_graph_distances_by_eccentricity_bounds(monkeypatch: pytest.MonkeyPatch) -> None:
    """Above EXACT_DISTANCE_NODES nodes describe() uses eccentricity bounds: a mesh settles."""
    monkeypatch.setattr(graphs_queries, "EXACT_DISTANCE_NODES", 100)
    info = describe(from_spec("mesh:30x40"))
    assert (info["diameter"], info["radius"]) == (29 + 39, 15 + 20)
    monkeypatch.setattr(graphs_queries, "DISTANCE_WORK", 1)
    g = random_connected(400, 500, seed=3)
    info = describe(g)
    if info["diameter"] is None:
        low, high = info["diameter_bounds"]
        assert low <= nx.diameter(g) <= high and "bounds only" in info["distance_note"]
    else:
        assert info["diameter"] == nx.diameter(g)


def test_random_connected_errors() -> None:
    with pytest.raises(SpecError, match="m must satisfy"):
        random_connected(5, 3, seed=0)
    with pytest.raises(SpecError, match="m must satisfy"):
        random_connected(5, 11, seed=0)


# --------------------------------------------------------------------------------------------
# Products
# --------------------------------------------------------------------------------------------


def test_products_are_the_classical_graphs() -> None:
    cube = from_spec("path:2*path:2*path:2")
    assert nx.is_isomorphic(cube, hypercube(3))
    assert cube.graph["spec"] == "path:2*path:2*path:2"
    assert nx.is_isomorphic(from_spec("ring:3*ring:4"), torus(3, 4))
    # same numbering: (r, c) -> r*b + c both ways
    assert edge_set(from_spec("ring:3*ring:4")) == edge_set(torus(3, 4))
    assert edge_set(from_spec("path:3*path:4")) == edge_set(mesh(3, 4))
    assert edge_set(from_spec("path:2*path:2*path:2")) == edge_set(hypercube(3))


def test_product_structure() -> None:
    g = cartesian_product(ring(3), path(2))
    assert_conventions(g)
    assert (g.number_of_nodes(), g.number_of_edges()) == (6, 3 * 1 + 2 * 3)
    assert g.nodes[5]["coords"] == (2, 1)
    assert g.nodes[5]["label"] == "5"
    assert g.graph["spec"] == "ring:3*path:2"
    assert describe(g)["diameter"] == 2


def test_product_carries_capacities_and_routers() -> None:
    g = from_spec("fattree:4:exp*path:2")
    assert_conventions(g)
    assert g.graph["spec"] == "fattree:4:exp*path:2"
    assert g.number_of_nodes() == 14
    assert g.number_of_edges() == 6 * 2 + 7
    # factor node 4 (router at level 1) -- 6 (root) has capacity 2
    assert capacity(g, 4 * 2 + 0, 6 * 2 + 0) == 2
    assert capacity(g, 4 * 2 + 1, 6 * 2 + 1) == 2
    assert capacity(g, 0 * 2, 0 * 2 + 1) == 1
    assert routers(g) == list(range(8, 14))
    assert processors(g) == list(range(8))


def test_product_with_labelled_factor(tmp_path: Path) -> None:
    file = tmp_path / "g.edgelist"
    file.write_text("a b\nb c\n")
    g = from_spec(f"{file}*path:2")
    assert_conventions(g)
    assert g.nodes[0]["label"] == "(a,0)"
    assert resolve_node(g, "(c,1)") == 5
    assert g.graph["spec"] == f"{file}*path:2"


# --------------------------------------------------------------------------------------------
# Specs
# --------------------------------------------------------------------------------------------

SPECS = [
    ("ring:8", "ring:8", 8, 8),
    ("path:5", "path:5", 5, 4),
    ("complete:6", "complete:6", 6, 15),
    ("star:5", "star:5", 5, 4),
    ("hypercube:4", "hypercube:4", 16, 32),
    ("mesh:3x4", "mesh:3x4", 12, 17),
    ("torus:3x4", "torus:3x4", 12, 24),
    ("petersen", "petersen", 10, 15),
    ("ccc:3", "ccc:3", 24, 36),
    ("butterfly:3", "butterfly:3", 24, 48),
    ("shuffle-exchange:4", "shuffle-exchange:4", 16, 21),
    ("debruijn:4", "debruijn:4", 16, 29),
    ("knodel:8", "knodel:8", 8, 12),
    ("knodel:8,2", "knodel:8,2", 8, 8),
    ("knodel:8,3", "knodel:8", 8, 12),
    ("star-graph:4", "star-graph:4", 24, 36),
    ("pancake:4", "pancake:4", 24, 36),
    ("fattree:8", "fattree:8", 15, 14),
    ("fattree:8:exp", "fattree:8:exp", 15, 14),
    ("fattree:8:exponential", "fattree:8:exp", 15, 14),
    ("fattree:8:constant", "fattree:8", 15, 14),
    ("fattree:8:1,2,2", "fattree:8:1,2,2", 15, 14),
    ("random:10,15,seed=3", "random:10,15,seed=3", 10, 15),
    ("random:10,15", "random:10,15,seed=0", 10, 15),
    ("ring:3*path:2", "ring:3*path:2", 6, 9),
    ("ring:3*path:2*path:2", "ring:3*path:2*path:2", 12, 24),
    ("  Mesh:3X4 ", "mesh:3x4", 12, 17),
    ("HYPERCUBE:3", "hypercube:3", 8, 12),
]


@pytest.mark.parametrize(("spec", "canonical", "n", "m"), SPECS)
def test_from_spec(spec: str, canonical: str, n: int, m: int) -> None:
    g = from_spec(spec)
    assert_conventions(g)
    assert g.graph["spec"] == canonical
    assert (g.number_of_nodes(), g.number_of_edges()) == (n, m)
    again = from_spec(canonical)
    assert again.graph["spec"] == canonical
    assert edge_set(again) == edge_set(g)


def test_from_spec_matches_constructors() -> None:
    assert edge_set(from_spec("ccc:4")) == edge_set(cube_connected_cycles(4))
    assert edge_set(from_spec("butterfly:4")) == edge_set(wrapped_butterfly(4))
    assert edge_set(from_spec("knodel:12,2")) == edge_set(knodel(12, 2))
    assert capacities(from_spec("fattree:16:exp")) == capacities(fat_tree(16, "exponential"))
    assert edge_set(from_spec("random:9,12,seed=5")) == edge_set(random_connected(9, 12, 5))


@pytest.mark.parametrize(
    ("spec", "pieces"),
    [
        ("hypercub:3", ["'hypercub'", "hypercube", "ring"]),
        ("ring:x", ["'x'", "ring:N"]),
        ("ring:2", ["ring:2", ">= 3"]),
        ("ring:", ["ring:", "ring:N"]),
        ("ring", ["ring", "ring:N"]),
        ("ring:3,4", ["ring:3,4", "ring:N"]),
        ("ring:-3", ["'-3'"]),
        ("mesh:3", ["mesh:3", "AxB"]),
        ("mesh:3x", ["''", "mesh:3x"]),
        ("torus:2x5", ["torus:2x5", ">= 3"]),
        ("petersen:3", ["petersen"]),
        ("hypercube:0", ["hypercube:0", ">= 1"]),
        ("hypercube:60", ["hypercube:60", "limit"]),
        ("ccc:2", ["ccc:2", ">= 3"]),
        ("butterfly:2", ["butterfly:2", ">= 3"]),
        ("shuffle-exchange:1", ["shuffle-exchange:1"]),
        ("debruijn:1", ["debruijn:1"]),
        ("knodel:7", ["knodel:7", "even"]),
        ("knodel:8,4", ["knodel:8,4", "delta"]),
        ("knodel:8,0", ["knodel:8,0", "delta"]),
        ("star-graph:1", ["star-graph:1"]),
        ("pancake:x", ["'x'"]),
        ("fattree:6", ["fattree:6", "power of 2"]),
        ("fattree:1", ["fattree:1"]),
        ("fattree:8:wide", ["'wide'", "exp"]),
        ("random:10", ["random:10", "seed"]),
        ("random:10,5,seed=1", ["random:10,5,seed=1", "m must"]),
        ("random:10,15,sead=1", ["'sead'"]),
        ("random:10,15,seed=x", ["'x'"]),
        ("", ["empty", "ring"]),
        ("ring:3*", ["empty factor", "ring:3*"]),
        ("ring:3*foo:2", ["'foo'", "ring:3*foo:2"]),
        ("ring:3*ring:1", ["ring:1", "ring:3*ring:1"]),
    ],
)
def test_bad_specs(spec: str, pieces: list[str]) -> None:
    with pytest.raises(SpecError) as info:
        from_spec(spec)
    message = str(info.value)
    for piece in pieces:
        assert piece in message


def test_bad_spec_type() -> None:
    with pytest.raises(SpecError):
        from_spec(8)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "call",
    [
        lambda: ring(2),
        lambda: ring(3.0),  # type: ignore[arg-type]
        lambda: ring(True),  # type: ignore[arg-type]
        lambda: path(0),
        lambda: complete(0),
        lambda: star(1),
        lambda: hypercube(0),
        lambda: mesh(0, 3),
        lambda: torus(3, 2),
        lambda: knodel(10, 4),
        lambda: fat_tree(12),
        lambda: fat_tree(8, "huge"),
        lambda: star_graph(1),
        lambda: random_connected(3, 1, 0),
    ],
)
def test_bad_constructor_arguments(call: Callable[[], nx.Graph]) -> None:
    with pytest.raises(SpecError):
        call()


def test_errors_are_gossipcert_errors() -> None:
    assert issubclass(SpecError, GossipcertError)
    assert issubclass(GraphError, GossipcertError)


# --------------------------------------------------------------------------------------------
# Files
# --------------------------------------------------------------------------------------------

FORMATS = [".edgelist", ".graphml", ".g6", ".json"]


def same_graph(a: nx.Graph, b: nx.Graph, *, labels: bool, routers_too: bool, caps: bool) -> None:
    assert a.number_of_nodes() == b.number_of_nodes()
    assert edge_set(a) == edge_set(b)
    if labels:
        assert [a.nodes[v]["label"] for v in a] == [b.nodes[v]["label"] for v in b]
    if routers_too:
        assert routers(a) == routers(b)
    if caps:
        assert capacities(a) == capacities(b)


@pytest.mark.parametrize("suffix", FORMATS)
@pytest.mark.parametrize("spec", ["fattree:8:exp", "petersen", "random:12,20,seed=4", "ccc:3"])
def test_round_trip(tmp_path: Path, suffix: str, spec: str) -> None:
    g = from_spec(spec)
    file = tmp_path / f"graph{suffix}"
    write_graph_file(g, file)
    back = read_graph_file(file)
    assert_conventions(back)
    assert back.graph["spec"] == str(file)
    same_graph(
        g,
        back,
        labels=True,
        routers_too=suffix in (".graphml", ".json"),
        caps=suffix != ".g6",
    )
    if suffix in (".edgelist", ".g6"):
        assert routers(back) == []
    # also through from_spec, with a string path
    assert edge_set(from_spec(str(file))) == edge_set(g)


@pytest.mark.parametrize("suffix", [".edgelist", ".graphml", ".json"])
def test_round_trip_text_labels(tmp_path: Path, suffix: str) -> None:
    file = tmp_path / "words.json"
    file.write_text(
        json.dumps(
            {
                "nodes": ["hub", "x", "y", "z"],
                "edges": [["hub", "x", 3], ["hub", "y"], ["y", "z"]],
                "routers": ["hub"],
            }
        )
    )
    g = read_graph_file(file)
    assert_conventions(g)
    assert [g.nodes[v]["label"] for v in g] == ["hub", "x", "y", "z"]
    assert routers(g) == [0]
    assert capacity(g, 0, 1) == 3
    target = tmp_path / f"copy{suffix}"
    write_graph_file(g, target)
    back = read_graph_file(target)
    assert [back.nodes[v]["label"] for v in back] == ["hub", "x", "y", "z"]
    assert capacity(back, resolve_node(back, "hub"), resolve_node(back, "x")) == 3
    assert routers(back) == ([] if suffix == ".edgelist" else [0])


def test_edgelist_reading(tmp_path: Path) -> None:
    file = tmp_path / "g.edgelist"
    file.write_text("# header\n\n10 2   # trailing comment\n2 3 4\n  3 10\n")
    g = read_graph_file(file)
    assert_conventions(g)
    # integer labels sort numerically: 2, 3, 10
    assert [g.nodes[v]["label"] for v in g] == ["2", "3", "10"]
    assert capacity(g, 0, 1) == 4
    assert capacity(g, 1, 2) == 1
    assert node_ref(g, 2) == 10
    assert resolve_node(g, 10) == 2
    assert resolve_node(g, "10") == 2


def test_a_zero_padded_number_is_a_label_never_an_index(tmp_path: Path) -> None:
    file = tmp_path / "g.edgelist"
    file.write_text("007 1\n1 2\n")
    g = read_graph_file(file)
    assert g.nodes[resolve_node(g, "007")]["label"] == "007"
    assert g.nodes[resolve_node(g, "2")]["label"] == "2"  # a label wins over an index
    plain = from_spec("path:3")
    assert resolve_node(plain, "1") == resolve_node(plain, " 1") == 1
    for ref in ("01", "00", "-0", "+1"):
        with pytest.raises(SpecError, match="unknown node"):
            resolve_node(plain, ref)


def test_text_labels_keep_first_appearance(tmp_path: Path) -> None:
    file = tmp_path / "g.edgelist"
    file.write_text("b a\na c\n3 b\n")
    g = read_graph_file(file)
    assert [g.nodes[v]["label"] for v in g] == ["b", "a", "c", "3"]
    assert node_ref(g, 0) == "b"
    assert node_ref(g, 3) == 3
    assert resolve_node(g, 3) == 3  # the label "3" wins over the id 3 (same node here)
    assert resolve_node(g, "c") == 2


def test_json_node_link(tmp_path: Path) -> None:
    g = from_spec("fattree:4:exp")
    data = nx.node_link_data(nx.relabel_nodes(g, {v: f"n{v}" for v in g}))
    file = tmp_path / "nl.json"
    file.write_text(json.dumps(data, default=list))
    back = read_graph_file(file)
    assert_conventions(back)
    assert [back.nodes[v]["label"] for v in back] == [f"n{v}" for v in range(7)]
    assert routers(back) == [4, 5, 6]
    assert capacities(back) == capacities(g)
    legacy = dict(data)
    legacy["links"] = legacy.pop("edges")
    file.write_text(json.dumps(legacy, default=list))
    assert capacities(read_graph_file(file)) == capacities(g)


def test_json_edges_only(tmp_path: Path) -> None:
    file = tmp_path / "e.json"
    file.write_text('{"edges": [[0, 1], [1, 2, 5]]}')
    g = read_graph_file(file)
    assert capacities(g) == {(0, 1): 1, (1, 2): 5}


def test_graphml_attributes(tmp_path: Path) -> None:
    h = nx.Graph()
    h.add_node("p", router="false")
    h.add_node("r", router="true")
    h.add_node("q")
    h.add_edge("p", "r", capacity=2)
    h.add_edge("r", "q")
    file = tmp_path / "g.graphml"
    nx.write_graphml(h, file)
    g = read_graph_file(file)
    assert [g.nodes[v]["label"] for v in g] == ["p", "r", "q"]
    assert routers(g) == [1]
    assert capacities(g) == {(0, 1): 2, (1, 2): 1}


def test_g6_with_header(tmp_path: Path) -> None:
    file = tmp_path / "k2.g6"
    file.write_bytes(b">>graph6<<A_\n")
    g = read_graph_file(file)
    assert edge_set(g) == {(0, 1)}
    assert [g.nodes[v]["label"] for v in g] == ["0", "1"]


@pytest.mark.parametrize(
    ("name", "content", "pieces"),
    [
        ("bad.edgelist", "1 2\n2 3 4 5 6\n", ["bad.edgelist:2", "'2 3 4 5 6'"]),
        ("one.edgelist", "1 2\n3\n", ["one.edgelist:2"]),
        ("cap.edgelist", "1 2 x\n", ["cap.edgelist:1", "capacity"]),
        ("zero.edgelist", "1 2 0\n", ["zero.edgelist:1", "capacity"]),
        ("loop.edgelist", "1 2\n2 2\n", ["loop.edgelist:2", "self-loop"]),
        ("dup.edgelist", "1 2\n2 1\n", ["dup.edgelist:2", "duplicate"]),
        ("empty.edgelist", "# nothing here\n", ["empty.edgelist", "empty"]),
        ("garbage.g6", "hello world\n", ["garbage.g6"]),
        ("bytes.g6", "\x01\x02\x03\n", ["bytes.g6"]),
        ("two.g6", "A_\nA_\n", ["two.g6", "2 graphs"]),
        ("none.g6", "\n", ["none.g6"]),
        # a cut-off size field was "list index out of range"
        ("cut.g6", "~~~\n", ["cut.g6", "not a valid graph6 line (it ends too early)"]),
        ("bad.graphml", "<graphml><graph>", ["bad.graphml"]),
        ("loop.graphml", None, ["loop.graphml", "self-loop"]),
        ("bad.json", '{"nodes": [1, 2], ', ["bad.json"]),
        ("list.json", "[1, 2]", ["list.json"]),
        ("unknown.json", '{"nodes": [1, 2], "edges": [[1, 3]]}', ["unknown.json", "'3'"]),
        ("loop.json", '{"edges": [[1, 1]]}', ["loop.json", "self-loop"]),
        ("dup.json", '{"edges": [[1, 2], [2, 1]]}', ["dup.json", "duplicate"]),
        ("short.json", '{"edges": [[1]]}', ["short.json", "edges[0]"]),
        ("router.json", '{"edges": [[1, 2]], "routers": [7]}', ["router.json", "'7'"]),
        ("label.json", '{"edges": [[1.5, 2]]}', ["label.json", "1.5"]),
        ("empty.json", '{"nodes": [], "edges": []}', ["empty.json", "empty"]),
        ("nothing.json", "{}", ["nothing.json"]),
        ("nl.json", '{"nodes": [{"name": 1}], "links": []}', ["nl.json", "'id'"]),
        ("flag.json", '{"nodes": [{"id": 1, "router": "maybe"}], "edges": []}', ["maybe"]),
    ],
)
def test_malformed_files(tmp_path: Path, name: str, content: str | None, pieces: list[str]) -> None:
    file = tmp_path / name
    if content is None:
        h = nx.Graph()
        h.add_edge("a", "a")
        nx.write_graphml(h, file)
    else:
        file.write_text(content)
    with pytest.raises(GraphError) as info:
        read_graph_file(file)
    message = str(info.value)
    for piece in pieces:
        assert piece in message
    with pytest.raises(GraphError):
        from_spec(str(file))


def test_missing_file(tmp_path: Path) -> None:
    missing = tmp_path / "nowhere.edgelist"
    with pytest.raises(GraphError, match=r"nowhere\.edgelist"):
        from_spec(str(missing))
    with pytest.raises(GraphError, match=r"nowhere\.edgelist"):
        read_graph_file(missing)
    with pytest.raises(GraphError, match=r"missing\.g6"):
        from_spec("missing.g6")
    with pytest.raises(GraphError, match="accepted"):
        from_spec("some/dir/graph.txt")


def test_directory_is_not_a_graph_file(tmp_path: Path) -> None:
    folder = tmp_path / "folder.json"
    folder.mkdir()
    with pytest.raises(GraphError, match=r"folder\.json"):
        read_graph_file(folder)


def test_write_errors(tmp_path: Path) -> None:
    with pytest.raises(GraphError, match="accepted"):
        write_graph_file(ring(4), tmp_path / "g.txt")
    with pytest.raises(GraphError, match="isolated"):
        write_graph_file(path(1), tmp_path / "g.edgelist")
    g = ring(3)
    g.nodes[0]["label"] = "a b"
    with pytest.raises(GraphError, match="white space"):
        write_graph_file(g, tmp_path / "g.edgelist")
    g.nodes[0]["label"] = "1"
    with pytest.raises(GraphError, match="unique"):
        write_graph_file(g, tmp_path / "g.json")
    with pytest.raises(GraphError):
        write_graph_file(ring(3), tmp_path / "no" / "such" / "dir.json")


def test_single_node_files(tmp_path: Path) -> None:
    for suffix in (".json", ".graphml", ".g6"):
        file = tmp_path / f"one{suffix}"
        write_graph_file(path(1), file)
        g = read_graph_file(file)
        assert (g.number_of_nodes(), g.number_of_edges()) == (1, 0)


# --------------------------------------------------------------------------------------------
# Queries
# --------------------------------------------------------------------------------------------


def test_describe() -> None:
    info = describe(from_spec("mesh:3x4"))
    assert info == {
        "n": 12,
        "m": 17,
        "min_degree": 2,
        "max_degree": 4,
        "mean_degree": pytest.approx(34 / 12),
        "connected": True,
        "diameter": 5,
        "radius": 3,
        "processors": 12,
        "routers": 0,
        "capacities": {"1": 17},
        "spec": "mesh:3x4",
    }
    assert isinstance(info["mean_degree"], float)
    fat = describe(from_spec("fattree:16"))
    assert (fat["processors"], fat["routers"], fat["diameter"], fat["radius"]) == (16, 15, 8, 4)


def test_describe_disconnected(tmp_path: Path) -> None:
    file = tmp_path / "two.edgelist"
    file.write_text("a b\nc d\n")
    info = describe(read_graph_file(file))
    assert info["connected"] is False
    assert info["diameter"] is None
    assert info["radius"] is None
    assert describe(knodel(8, 1))["connected"] is False


@pytest.mark.parametrize(
    "spec",
    [
        "mesh:4x6",
        "shuffle-exchange:6",
        "debruijn:6",
        "fattree:16:exp",
        "random:40,60,seed=1",
        "star:6",
        "path:7",
        "ring:3*path:3",
        "knodel:14,2",
        "ccc:4",
        "pancake:5",
        "torus:3x5",
    ],
)
def test_describe_agrees_with_networkx(spec: str) -> None:
    g = from_spec(spec)
    info = describe(g)
    assert info["diameter"] == nx.diameter(g)
    assert info["radius"] == nx.radius(g)


def test_describe_many_blocks() -> None:
    # more nodes than one block of simultaneous searches
    g = from_spec("path:130")
    g.graph.pop("vertex_transitive", None)
    info = describe(g)
    assert (info["diameter"], info["radius"]) == (129, 65)


def test_router_queries() -> None:
    g = fat_tree(4)
    assert is_router(g, 6)
    assert not is_router(g, 0)
    assert processors(g) == [0, 1, 2, 3]
    assert routers(g) == [4, 5, 6]
    assert capacity(g, 0, 4) == 1
    with pytest.raises(GraphError):
        capacity(g, 0, 1)
    with pytest.raises(GraphError):
        is_router(g, 99)


def test_resolve_node_and_node_ref() -> None:
    g = ring(5)
    assert resolve_node(g, 3) == 3
    assert resolve_node(g, "3") == 3
    assert "_label_index" in g.graph
    assert node_ref(g, 4) == 4
    for bad in (5, "5", -1, "x", None):
        with pytest.raises(SpecError, match="unknown node"):
            resolve_node(g, bad)  # type: ignore[arg-type]


def test_labels_win_over_ids(tmp_path: Path) -> None:
    file = tmp_path / "g.json"
    file.write_text('{"nodes": ["1", "0", "x"], "edges": [["1", "x"], ["0", "x"]]}')
    g = read_graph_file(file)
    # all labels are not integers ("x"), so order of appearance: "1" -> 0, "0" -> 1, "x" -> 2
    assert [g.nodes[v]["label"] for v in g] == ["1", "0", "x"]
    assert resolve_node(g, 1) == 0
    assert resolve_node(g, "0") == 1
    assert resolve_node(g, 2) == 2  # no label "2": the id
    assert node_ref(g, 0) == 1
    assert node_ref(g, 2) == "x"


def test_node_ref_keeps_non_canonical_integers(tmp_path: Path) -> None:
    file = tmp_path / "g.edgelist"
    file.write_text("007 8\n")
    g = read_graph_file(file)
    assert [g.nodes[v]["label"] for v in g] == ["007", "8"]
    assert node_ref(g, 0) == "007"
    assert node_ref(g, 1) == 8
    assert resolve_node(g, "007") == 0


def test_stale_label_index_is_rebuilt() -> None:
    g = path(3)
    assert resolve_node(g, "2") == 2
    g.nodes[2]["label"] = "end"
    g.nodes[0]["label"] = "2"
    assert resolve_node(g, "2") == 0
    assert resolve_node(g, "end") == 2
    g.add_node(3, label="new", router=False)
    assert resolve_node(g, "new") == 3


# --------------------------------------------------------------------------------------------
# Documentation
# --------------------------------------------------------------------------------------------


def test_docstring_examples() -> None:
    attempted = 0
    for name in ("families", "networks", "random_graphs", "specs", "files", "queries"):
        module = importlib.import_module(f"gossipcert.graphs.{name}")
        result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
        assert result.failed == 0, name
        attempted += result.attempted
    assert attempted > 20


def test_public_functions_are_documented() -> None:
    for name in graphs.__all__:
        item = getattr(graphs, name)
        if callable(item):
            assert item.__doc__, name
    assert "Beier" in graphs.__doc__
    assert "Dimakopoulos" in graphs.__doc__


@pytest.mark.parametrize(
    "spec",
    [
        "complete:100000",
        "fully-connected:6000",
        "hub:6000",
        "random:1000000,400000000000",
        "complete:1000*path:1000",
    ],
)
def test_more_edges_than_the_limit_is_refused_before_any_is_built(spec: str) -> None:
    """``complete:100000`` filled 5 GB before it would have finished, and a random graph of
    4 * 10^11 edges ended in a MemoryError: both are refused at once."""
    from gossipcert.graphs import MAX_EDGES

    with pytest.raises(SpecError, match=f"edges is more than the limit of {MAX_EDGES}"):
        from_spec(spec)


def test_a_directed_graphml_file_is_refused(tmp_path: Path) -> None:
    """A directed GraphML file was read as undirected without a word."""
    text = (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        '<graphml xmlns="http://graphml.graphdrawing.org/xmlns">\n'
        '  <graph edgedefault="{}"><node id="a"/><node id="b"/>'
        '<edge source="a" target="b"/></graph>\n</graphml>\n'
    )
    (tmp_path / "d.graphml").write_text(text.format("directed"))
    (tmp_path / "u.graphml").write_text(text.format("undirected"))
    with pytest.raises(GraphError, match="a directed graph"):
        graphs.from_spec(str(tmp_path / "d.graphml"))
    assert graphs.from_spec(str(tmp_path / "u.graphml")).number_of_edges() == 1


def test_bfs_distances_agree_with_networkx_from_one_and_several_sources() -> None:
    import random

    import numpy as np

    from gossipcert.distances import bfs_distances, csr_arrays

    rng = random.Random(7)
    for trial in range(30):
        n = rng.randint(1, 40)
        g = nx.gnm_random_graph(n, rng.randint(0, 2 * n), seed=trial)  # may be disconnected
        indptr, indices = csr_arrays(g)
        sources = rng.sample(range(n), rng.randint(1, min(3, n)))
        want = np.full(n, -1)
        for v, d in nx.multi_source_dijkstra_path_length(g, set(sources)).items():
            want[v] = d
        got = bfs_distances(indptr, indices, sources if len(sources) > 1 else sources[0])
        assert got.tolist() == want.tolist()
