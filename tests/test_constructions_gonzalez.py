"""Gonzalez's multicast gossip: the minimum-depth tree, Simple and ConcurrentUpDown.

Measured on every graph below: ConcurrentUpDown takes exactly ``n + r`` rounds (Theorem 1),
never fewer, since the deepest node receives message 0 in the last round. Simple takes
``2n + r - 3`` rounds (Lemma 1), or one fewer when the only deepest node of the tree is the
origin of message ``n - 1`` (10 of the 80 random trees below; never on the random graphs).
"""

from __future__ import annotations

import networkx as nx
import pytest

from gossipcert import graphs
from gossipcert.constructions.gonzalez import (
    concurrent_up_down,
    minimum_depth_spanning_tree,
    simple,
)
from gossipcert.errors import NotApplicableError
from gossipcert.instance import bits, make_instance, parse_instance, parse_model, parse_problem
from gossipcert.simulate import simulate

MULTICAST = parse_model("multicast")
GOSSIP = parse_problem("gossip")

FAMILIES = [
    "path:3",
    "path:5",
    "path:8",
    "ring:7",
    "star:6",
    "complete:5",
    "hypercube:3",
    "mesh:3x4",
    "torus:3x5",
    "petersen",
    "ccc:3",
    "butterfly:3",
    "knodel:12",
]


def _tree_graph(n: int, seed: int) -> nx.Graph:
    tree = nx.random_labeled_tree(n, seed=seed)
    g = nx.Graph()
    g.add_nodes_from(range(n))
    g.add_edges_from(tree.edges())
    return g


def _check(g: nx.Graph) -> tuple[int, int, int, int]:
    """(n, r, rounds of Simple, rounds of ConcurrentUpDown), both verified."""
    inst = make_instance(g, MULTICAST, GOSSIP)
    r = minimum_depth_spanning_tree(g).height
    a = simulate(inst, simple(inst))
    b = simulate(inst, concurrent_up_down(inst))
    assert a.ok, a.errors[:3]
    assert b.ok, b.errors[:3]
    return inst.n, r, a.rounds or 0, b.rounds or 0


# ----------------------------------------------------------------------------- the tree


@pytest.mark.parametrize("spec", FAMILIES)
def test_minimum_depth_tree_has_the_radius_as_height(spec: str) -> None:
    g = graphs.from_spec(spec)
    t = minimum_depth_spanning_tree(g)
    assert t.height == nx.radius(g)
    # a spanning tree of the graph, the levels are BFS distances from the root
    dist = nx.single_source_shortest_path_length(g, t.root)
    for v in range(g.number_of_nodes()):
        assert t.level[v] == dist[v]
        if v != t.root:
            assert g.has_edge(v, t.parent[v])


@pytest.mark.parametrize("seed", range(5))
def test_labels_are_depth_first_with_contiguous_subtrees(seed: int) -> None:
    g = _tree_graph(30, seed)
    t = minimum_depth_spanning_tree(g)
    assert t.label[t.root] == 0
    assert sorted(t.label) == list(range(30))
    for v in range(30):
        # the subtree of v holds exactly the messages label[v]..last[v]
        sub = {v} | nx.descendants(nx.bfs_tree(g, t.root), v)
        assert {t.label[u] for u in sub} == set(range(t.label[v], t.last[v] + 1))
        # i >= k, which the paper's proof of Lemma 2 uses
        assert t.label[v] >= t.level[v]


def test_explicit_root_gives_a_taller_tree_and_longer_schedules() -> None:
    inst = parse_instance("path:7", "multicast", "gossip")
    rep = simulate(inst, concurrent_up_down(inst, root=0))
    assert rep.ok and rep.rounds == 7 + 6
    rep = simulate(inst, simple(inst, root=0))
    # the only deepest node, 6, starts message n - 1: Simple ends one round early
    assert rep.ok and rep.length == 2 * 7 + 6 - 3 and rep.rounds == 2 * 7 + 6 - 4


# ----------------------------------------------------------------------------- Fig. 5 tables


def _fig5() -> tuple[nx.Graph, dict[int, int]]:
    """A 16-node tree consistent with Fig. 5 and Tables 1-4 (nodes numbered by label):
    the root 0 has children 1, 4, 11; 1 has children 2, 3; 4 has 5 and 8; 5 has 6, 7;
    8 has 9, 10; 11 has 12..15 (this last part is not visible in the tables)."""
    edges = [(0, 1), (1, 2), (1, 3), (0, 4), (4, 5), (5, 6), (5, 7), (4, 8), (8, 9), (8, 10)]
    edges += [(0, 11)] + [(11, c) for c in range(12, 16)]
    g = nx.Graph()
    g.add_nodes_from(range(16))
    g.add_edges_from(edges)
    return g, {child: parent for parent, child in edges}


def _rows(node: int) -> dict[str, dict[int, int]]:
    """Node's four table rows: time -> message (receive at t+1 for a send in round t+1)."""
    g, parent = _fig5()
    inst = make_instance(g, MULTICAST, GOSSIP)
    sched = concurrent_up_down(inst, root=0)
    assert simulate(inst, sched).ok
    rows: dict[str, dict[int, int]] = {"rp": {}, "rc": {}, "sp": {}, "sc": {}}
    for t, rnd in enumerate(sched.rounds):
        for tr in rnd:
            assert tr.packets is not None
            (m,) = bits(tr.packets)
            if tr.sender == node:
                for r in tr.receivers:
                    rows["sp" if parent.get(node) == r else "sc"][t] = m
            if node in tr.receivers:
                rows["rp" if parent.get(node) == tr.sender else "rc"][t + 1] = m
    return rows


def test_table_1_root() -> None:
    rows = _rows(0)
    assert rows["rc"] == {t: t for t in range(1, 16)}
    assert rows["sc"] == {**{t: t for t in range(1, 16)}, 16: 0}


def test_table_2_vertex_with_message_1() -> None:
    rows = _rows(1)
    assert rows["rp"] == {**{t: t - 1 for t in range(5, 17)}, 17: 0}
    assert rows["rc"] == {1: 2, 2: 3}
    assert rows["sp"] == {0: 1, 1: 2, 2: 3}
    assert rows["sc"] == {1: 2, 2: 3, 3: 1, **{t: t - 1 for t in range(5, 17)}, 17: 0}


def test_table_3_vertex_with_message_4() -> None:
    rows = _rows(4)
    assert rows["rp"] == {2: 1, 3: 2, 4: 3, **{t: t - 1 for t in range(12, 17)}, 17: 0}
    assert rows["rc"] == {1: 5, 5: 6, 6: 7, 7: 8, 8: 9, 9: 10}
    assert rows["sp"] == {t: t + 1 for t in range(3, 10)}
    # messages 2 and 3, received at times i-k and i-k+1, wait until j-k+1 and j-k+2
    assert rows["sc"] == {
        2: 1,
        **{t: t + 1 for t in range(3, 10)},
        10: 2,
        11: 3,
        **{t: t - 1 for t in range(12, 17)},
        17: 0,
    }


def test_table_4_vertex_with_message_8() -> None:
    # the scanned table is partly illegible; its rows list these messages in this order
    rows = _rows(8)
    assert list(rows["rp"].values()) == [1, 4, 5, 6, 7, 2, 3, 11, 12, 13, 14, 15, 0]
    assert rows["rc"] == {1: 9, 8: 10}
    assert rows["sp"] == {6: 8, 7: 9, 8: 10}
    # messages 6 and 7 are the delayed ones (sent at j-k+1 = 9 and j-k+2 = 10)
    assert list(rows["sc"].values()) == [1, 4, 5, 8, 9, 10, 6, 7, 2, 3, 11, 12, 13, 14, 15, 0]
    assert rows["sc"][9] == 6 and rows["sc"][10] == 7 and max(rows["rp"]) == 18


# ----------------------------------------------------------------------------- lengths


@pytest.mark.parametrize("spec", FAMILIES)
def test_lengths_on_families(spec: str) -> None:
    n, r, t_simple, t_cud = _check(graphs.from_spec(spec))
    assert t_cud == n + r  # Theorem 1, exactly
    assert 2 * n + r - 4 <= t_simple <= 2 * n + r - 3  # Lemma 1


@pytest.mark.parametrize("n", [3, 4, 5, 8, 13, 21, 34, 60])
def test_lengths_on_random_trees(n: int) -> None:
    for seed in range(10):
        g = _tree_graph(n, seed)
        n_, r, t_simple, t_cud = _check(g)
        assert t_cud == n_ + r
        # Simple saves a round exactly when the only deepest node starts message n - 1
        t = minimum_depth_spanning_tree(g)
        deepest = {v for v in range(n) if t.level[v] == r}
        early = deepest == {t.node_of_label()[n - 1]}
        assert t_simple == 2 * n_ + r - 3 - early


@pytest.mark.parametrize("n", [3, 5, 8, 13, 21, 34, 60])
def test_lengths_on_random_connected_graphs(n: int) -> None:
    for seed in range(10):
        m = min(n * (n - 1) // 2, n - 1 + n // 2 + seed)
        n_, r, t_simple, t_cud = _check(graphs.random_connected(n, m, seed))
        assert t_cud == n_ + r
        assert t_simple == 2 * n_ + r - 3


@pytest.mark.parametrize("m", range(1, 8))
def test_odd_path_is_one_round_above_the_lower_bound(m: int) -> None:
    # section 1: a path with 2m + 1 nodes needs at least n + r - 1 rounds; section 4: the
    # algorithm gives n + r
    n = 2 * m + 1
    _, r, _, t_cud = _check(graphs.path(n))
    assert r == m and t_cud == n + r


def test_packet_cap_above_one_and_single_node() -> None:
    inst = parse_instance("ring:6", "multicast:p=2", "gossip")
    assert simulate(inst, concurrent_up_down(inst)).ok
    one = parse_instance("complete:1", "multicast", "gossip")
    assert len(simple(one)) == 0 and len(concurrent_up_down(one)) == 0


@pytest.mark.parametrize(
    ("spec", "model", "problem"),
    [
        ("ring:5", "telephone", "gossip"),
        ("ring:5", "single-port:p=1", "gossip"),
        ("ring:5", "multicast:calls=1", "gossip"),
        ("ring:5", "multicast", "broadcast:0"),
        ("fattree:4", "multicast", "gossip"),
    ],
)
def test_not_applicable(spec: str, model: str, problem: str) -> None:
    inst = parse_instance(spec, model, problem)
    for algorithm in (simple, concurrent_up_down):
        with pytest.raises(NotApplicableError):
            algorithm(inst)


def test_the_multicast_broadcast_upper_bound_needs_the_chunks_to_travel_together() -> None:
    """Flooding takes the eccentricity only when one transmission can carry every chunk:
    ``broadcast:0,chunks=3`` on path:3 under multicast (p=1) needs 4 rounds, and the bound
    said 2."""
    from gossipcert.closed_forms.gonzalez import gonzalez_broadcast_upper_bound
    from gossipcert.instance import parse_instance

    chunked = parse_instance("path:3", "multicast", "broadcast:0,chunks=3")
    assert gonzalez_broadcast_upper_bound(chunked) is None
    assert (
        gonzalez_broadcast_upper_bound(
            parse_instance("path:3", "multicast:p=3", "broadcast:0,chunks=3")
        ).value
        == 2
    )
    two = parse_instance("path:5", "multicast", "broadcast:0,4")
    assert gonzalez_broadcast_upper_bound(two).value == 2
