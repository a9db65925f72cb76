"""Every instance gets a verified upper bound, so ``solve`` always runs to an answer.

The full sweep: every connected graph with up to 7 nodes (the graph atlas) and 200
random connected graphs with 8-12 nodes, telephone and half-duplex, gossip and broadcast:
``solve`` ends ``optimal`` (``feasible`` only on a time-out, never ``unknown``), and the
matching heuristic ends with every demand met. The default suite runs a sample of it; the
full sweep is marked slow.
"""

from __future__ import annotations

import networkx as nx
import pytest
from networkx.generators.atlas import graph_atlas_g
from typer.testing import CliRunner

from gossipcert import graphs
from gossipcert.cli import app
from gossipcert.heuristics.matching import matching_heuristic
from gossipcert.instance import Instance, make_instance, parse_instance, parse_model, parse_problem
from gossipcert.search import rounds as search
from gossipcert.search.entry import solve
from gossipcert.simulate import simulate

COMBOS = [(m, p) for m in ("telephone", "half-duplex") for p in ("gossip", "broadcast:0")]
#: seconds per solve in the sweep; a time-out may end "feasible", never "unknown"
SWEEP_LIMIT = 20.0


def atlas(max_nodes: int) -> list[nx.Graph]:
    """The connected graphs of the atlas with 1..max_nodes nodes, relabelled 0..n-1."""
    out = []
    for g in graph_atlas_g():
        if 0 < g.number_of_nodes() <= max_nodes and nx.is_connected(g):
            out.append(nx.convert_node_labels_to_integers(g))
    return out


def random_graphs(count: int) -> list[nx.Graph]:
    """``count`` random connected graphs with 8-12 nodes (fixed seeds)."""
    out = []
    for seed in range(count):
        n = 8 + seed % 5
        m = n - 1 + (seed * 7) % (n * (n - 1) // 2 - n + 2)
        out.append(graphs.random_connected(n, m, seed))
    return out


def check_instance(instance: Instance) -> str:
    """Solve and run the heuristic; both must end, with verified schedules.

    The solver's infeasibility claims are not re-proved with DRAT here (``proof=False``):
    the sweep is about every search starting and ending; proofs are tested elsewhere.
    """
    rep = simulate(instance, matching_heuristic(instance))
    assert rep.ok, (instance.describe(), rep.errors[:2], rep.unmet[:2])
    res = solve(instance, time_limit=SWEEP_LIMIT, proof=False)
    assert res.status in ("optimal", "feasible"), (instance.describe(), res.status)
    assert res.schedule is not None and res.upper_bound is not None
    assert simulate(instance, res.schedule).rounds == res.upper_bound
    assert res.upper_bound <= rep.rounds  # type: ignore[operator]
    if res.status == "feasible":  # only on a time-out
        assert res.times["total"] >= SWEEP_LIMIT * 0.9
    return res.status


def check_graph(g: nx.Graph) -> None:
    for model, problem in COMBOS:
        check_instance(make_instance(g, parse_model(model), parse_problem(problem)))


ATLAS5 = atlas(5)


@pytest.mark.parametrize("index", range(len(ATLAS5)))
def test_atlas_up_to_5_nodes(index: int) -> None:
    check_graph(ATLAS5[index])


@pytest.mark.parametrize("seed", [0, 1, 9, 10])
def test_random_graphs_sample(seed: int) -> None:
    check_graph(random_graphs(seed + 1)[seed])


@pytest.mark.parametrize("tree_seed", range(4))
def test_random_trees_with_a_centre(tree_seed: int) -> None:
    # the instances of the report: trees with a high-degree centre
    g = nx.Graph(nx.random_labeled_tree(5, seed=tree_seed))
    g.add_edges_from((0, v) for v in range(5, 9))  # four more leaves on node 0
    assert nx.is_tree(g) and g.degree(0) >= 4
    check_graph(g)


def test_labelled_star_from_a_file(tmp_path) -> None:
    path = tmp_path / "star.edgelist"
    path.write_text("".join(f"v0 v{i}\n" for i in range(1, 8)))
    out = CliRunner().invoke(app, ["solve", str(path), "--model", "half-duplex"])
    assert out.exit_code == 0, out.output
    assert "optimum 14 rounds" in out.output


def test_search_runs_without_any_schedule(monkeypatch) -> None:
    # no heuristic or construction: the search doubles its horizon until it finds one
    expected = {}
    cases = [("star:6", "half-duplex"), ("path:5", "half-duplex"), ("petersen", "telephone")]
    for spec, model in cases:
        expected[spec] = solve(parse_instance(spec, model, "gossip"), proof=False).optimum
    monkeypatch.setattr(search, "upper_bound_schedules", lambda instance: [])
    for spec, model in cases:
        res = solve(parse_instance(spec, model, "gossip"), proof=False)
        assert res.status == "optimal" and res.optimum == expected[spec]
        assert any(e["event"] == "horizon" for e in res.log)
    assert expected == {"star:6": 10, "path:5": 6, "petersen": 4}


# --------------------------------------------------------------------------------------------
# The star K_{1,n-1} under half-duplex gossip: 2(n-1) rounds
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("n", range(3, 13))
def test_star_half_duplex_gossip_certified(n: int) -> None:
    """The centre receives n-1 times and sends n-1 times, never both in one round."""
    res = solve(parse_instance(f"star:{n}", "half-duplex", "gossip"))
    assert res.status == "optimal" and res.optimum == 2 * (n - 1)
    assert res.evidence["kind"] == "closed-form" and res.evidence["name"] == "pendant-leaves"
    tel = solve(parse_instance(f"star:{n}", "telephone", "gossip"))
    assert tel.status == "optimal" and tel.optimum == 2 * n - 3


@pytest.mark.parametrize(
    "n", [*range(3, 7), *(pytest.param(n, marks=pytest.mark.slow) for n in (7, 8))]
)
def test_star_half_duplex_gossip_by_the_solver_alone(n: int) -> None:
    """Without closed-form bounds the solver proves 2n-3 rounds impossible (DRAT, checked)."""
    res = solve(parse_instance(f"star:{n}", "half-duplex", "gossip"), use_bounds=False)
    assert res.status == "optimal" and res.optimum == 2 * (n - 1)
    assert res.evidence["kind"] == "drat" and res.evidence["rounds"] == 2 * n - 3


# --------------------------------------------------------------------------------------------
# The full sweep
# --------------------------------------------------------------------------------------------

ATLAS7 = atlas(7)
RANDOM = random_graphs(200)
CHUNK = 50


@pytest.mark.slow
@pytest.mark.parametrize("start", range(0, len(ATLAS7), CHUNK))
def test_atlas_up_to_7_nodes(start: int) -> None:
    for g in ATLAS7[start : start + CHUNK]:
        check_graph(g)


@pytest.mark.slow
@pytest.mark.parametrize("start", range(0, len(RANDOM), CHUNK // 2))
def test_200_random_graphs_with_8_to_12_nodes(start: int) -> None:
    for g in RANDOM[start : start + CHUNK // 2]:
        check_graph(g)


@pytest.mark.parametrize("seed", range(3))
def test_pendant_leaves_bound_below_the_solver_on_trees(seed: int) -> None:
    """The bound never exceeds the optimum the solver finds without any closed-form bound."""
    from gossipcert.closed_forms import pendant_leaves_bound

    g = nx.Graph(nx.random_labeled_tree(4, seed=seed))
    g.add_edges_from([(0, 4), (0, 5), (1, 6)])
    for model in ("telephone", "half-duplex"):
        for problem in ("gossip", "broadcast:0", "broadcast:6", "gather:2"):
            inst = make_instance(g, parse_model(model), parse_problem(problem))
            bound = pendant_leaves_bound(inst)
            assert bound is not None
            res = solve(inst, use_bounds=False, proof=False)
            assert res.status == "optimal"
            assert bound.value <= res.optimum, (model, problem, bound, res.optimum)
