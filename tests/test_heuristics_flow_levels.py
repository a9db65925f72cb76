"""The level-list form of the flow weights gives the dense form's numbers, bit for bit.

References: Beier and Sibeyn, section 4.1 (formula (9), the BFS approach).
"""

from __future__ import annotations

import random

import networkx as nx
import numpy as np
import pytest

from gossipcert.heuristics import flow, flow_levels, matching
from gossipcert.heuristics.bitsets import edge_arrays, neighbour_table, pack
from gossipcert.heuristics.flow import border_mass_dense, flow_weights, packet_classes
from gossipcert.heuristics.flow_levels import border_mass, levels_bfs
from gossipcert.heuristics.matching import MatchingParams, _Engine
from gossipcert.heuristics.settings_grid import best_of_grid, default_grid
from gossipcert.heuristics.weights import reach_sets
from gossipcert.instance import parse_instance
from gossipcert.simulate import simulate


def _both(
    kb: np.ndarray, lack: np.ndarray, nbr: np.ndarray, top: int, de: float, ne: float
) -> tuple[np.ndarray, np.ndarray]:
    """The dense and the level-list border masses."""
    return (
        border_mass_dense(kb, lack, nbr, top, de, ne),
        border_mass(kb, lack, nbr, top, de, ne),
    )


@pytest.mark.parametrize("seed", range(8))
def test_random_knowledge_on_small_world_graphs(seed: int) -> None:
    rng = random.Random(seed)
    g = nx.connected_watts_strogatz_graph(rng.randint(6, 30), 4, 0.4, seed=seed)
    g = nx.convert_node_labels_to_integers(g)
    n = g.number_of_nodes()
    know = [
        1 << x | (rng.getrandbits(n) & rng.getrandbits(n) & rng.getrandbits(n)) for x in range(n)
    ]
    demand = [rng.getrandbits(n) | (1 << (n - 1 - x)) for x in range(n)]
    kw, dw = pack(know, n), pack(demand, n)
    nbr = neighbour_table(g)
    top = len(reach_sets(kw, dw, nbr)) - 1
    kb, lack, _ = packet_classes(kw, dw, n)
    de, ne = rng.choice([1.0, 3.5, 60.0]), rng.choice([0.0, 0.5, 1.0])
    dense, levels = _both(kb, lack, nbr, top, de, ne)
    assert np.array_equal(dense, levels)
    assert dense.any()


@pytest.mark.parametrize(
    ("spec", "dist_exp", "decay"),
    [("mesh:9x11", 60.0, 0.99), ("debruijn:7", 8.0, 1.0), ("star:7", 8.0, 1.0)],
)
def test_rounds_of_the_heuristic(spec: str, dist_exp: float, decay: float) -> None:
    """Both forms along the heuristic's own rounds (ties abound on the mesh)."""
    inst = parse_instance(spec, "telephone", "gossip")
    engine = _Engine(inst, MatchingParams(approach="flow", dist_exp=dist_exp, dist_exp_decay=decay))
    know = engine.start
    for t in range(12):
        if not engine.missing(know):
            break
        top = len(reach_sets(know, engine.demand, engine.nbr)) - 1
        kb, lack, _ = packet_classes(know, engine.demand, engine.n_packets)
        dense, levels = _both(kb, lack, engine.nbr, top, engine.dist_exp(t), 1.0)
        assert np.array_equal(dense, levels), t
        know = engine.apply(know, *engine.plain_round(know, t))
    assert t >= 5


def test_unreachable_cells_and_levels() -> None:
    """Two components: a packet demanded where none of its holders can reach."""
    g = nx.disjoint_union(nx.path_graph(5), nx.cycle_graph(4))
    nbr = neighbour_table(g)
    kb = np.zeros((9, 2), dtype=bool)
    kb[0, 0] = kb[6, 1] = True
    lack = ~kb
    dense, levels = _both(kb, lack, nbr, 6, 2.0, 1.0)
    assert np.array_equal(dense, levels)
    dist, found, left = levels_bfs(kb, lack, nbr, 6)
    # class 0 on the path: node d at distance d; class 1 on the cycle 5-6-7-8-5
    assert [sorted(map(int, lv.cell)) for lv in found] == [[1, 15, 17], [2, 18], [3], [4]]
    assert int(dist[16]) == 0 and int(dist[5]) == np.iinfo(np.int16).max
    assert left == 9  # class 0 on the cycle, class 1 on the path


@pytest.mark.parametrize("spec", ["mesh:7x9", "debruijn:6", "petersen"])
def test_a_guessed_top_changes_no_weight(spec: str) -> None:
    """Right, too small and too large guesses of ``top`` give the same weights."""
    inst = parse_instance(spec, "telephone", "gossip")
    engine = _Engine(inst, MatchingParams(approach="flow"))
    know = engine.start
    u, v = edge_arrays(nx.relabel_nodes(inst.graph, {x: i for i, x in enumerate(engine.label)}))
    for t in range(4):
        args = (know, engine.demand, engine.nbr, u, v, engine.n_packets, 8.0)
        plain = flow_weights(*args, chunk_cells=50)
        for guess in (plain.eccentricity - 1, plain.eccentricity, plain.eccentricity + 1):
            got = flow_weights(*args, chunk_cells=50, top_guess=guess)
            assert got.eccentricity == plain.eccentricity
            assert np.array_equal(got.forward, plain.forward)
            assert np.array_equal(got.backward, plain.backward)
        know = engine.apply(know, *engine.plain_round(know, t))


def test_the_sweep_tries_the_flow_weights_first_on_long_graphs(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Where `auto` takes the bitset weights, large diameters get the flow weights first.

    ``FLOW_WORK`` is lowered so that small graphs stand in for Mesh 80x80 (where `auto`
    takes the bitset weights, and the flow weights with Dist_Exp 60 decreasing by 0.99
    reach the diameter, 158).
    """
    monkeypatch.setattr(matching, "FLOW_WORK", 1e3)
    mesh = parse_instance("mesh:20x20", "telephone", "gossip")
    assert matching.resolved_approach(mesh, MatchingParams()) == "bfs"
    grid = default_grid(mesh)
    assert [p.describe() for p in grid[:3]] == [
        "flow dist-exp=60 decay=0.99",
        "flow dist-exp=60 decay=0.98",
        "auto dist-exp=8 band=0",
    ]
    res = best_of_grid(mesh, 60.0, lower_bound=38)
    assert len(res.best.schedule) == 38  # the diameter, with the first setting
    assert len(res.tried) == 1 and simulate(mesh, res.best.schedule).ok
    # small diameters keep the default first, and so does a lower FLOW_LEVELS_WORK
    cube = parse_instance("hypercube:6", "telephone", "gossip")
    assert default_grid(cube)[0] == MatchingParams()
    monkeypatch.setattr(matching, "FLOW_LEVELS_WORK", 1e6)
    assert default_grid(mesh)[0] == MatchingParams()


def test_groups_of_classes_give_the_same_numbers(monkeypatch: pytest.MonkeyPatch) -> None:
    rng = random.Random(3)
    g = nx.gnm_random_graph(40, 160, seed=3)
    n = g.number_of_nodes()
    know = [1 << x | (rng.getrandbits(n) & rng.getrandbits(n)) for x in range(n)]
    kw, dw = pack(know, n), pack([(1 << n) - 1] * n, n)
    nbr = neighbour_table(g)
    top = len(reach_sets(kw, dw, nbr)) - 1
    kb, lack, _ = packet_classes(kw, dw, n)
    whole = border_mass(kb, lack, nbr, top, 8.0, 1.0)
    monkeypatch.setattr(flow_levels, "AROUND_CELLS", 3 * (n + 1) * nbr.shape[1])
    assert np.array_equal(border_mass(kb, lack, nbr, top, 8.0, 1.0), whole)
    assert np.array_equal(border_mass_dense(kb, lack, nbr, top, 8.0, 1.0), whole)


@pytest.mark.parametrize("spec", ["mesh:6x8", "pancake:4"])
def test_either_form_inside_the_flow_weights(spec: str, monkeypatch: pytest.MonkeyPatch) -> None:
    inst = parse_instance(spec, "telephone", "gossip")
    engine = _Engine(inst, MatchingParams(approach="flow"))
    know = engine.start
    u, v = edge_arrays(nx.relabel_nodes(inst.graph, {x: i for i, x in enumerate(engine.label)}))
    for t in range(3):
        args = (know, engine.demand, engine.nbr, u, v, engine.n_packets, 8.0)
        found = []
        for ratio in (0, 10**9):  # always the level lists, always dense
            monkeypatch.setattr(flow, "LEVELS_RATIO", ratio)
            found.append(flow_weights(*args, chunk_cells=60))
        assert np.array_equal(found[0].forward, found[1].forward)
        assert np.array_equal(found[0].backward, found[1].backward)
        assert found[0].forward.any()
        know = engine.apply(know, *engine.plain_round(know, t))
