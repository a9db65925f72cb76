"""The matching heuristic of Beier and Sibeyn: verified schedules, never below the optimum,
deterministic, and at the paper's values on the cases its Table 5 lists.

Values: Beier and Sibeyn, Table 5 (gossip, telephone): CCC6 14, DeBruijn6 10, DeBruijn8 14,
SE6 12 rounds found by their heuristic; hypercubes gossip in ``k`` rounds with the natural
edge order (section 5.2); stars in ``2n - 3`` (telephone) and ``2(n - 1)`` (half-duplex).
"""

from __future__ import annotations

import json
import random
from dataclasses import replace

import networkx as nx
import numpy as np
import pytest
from typer.testing import CliRunner

from gossipcert.cli import app
from gossipcert.errors import SpecError
from gossipcert.heuristics.matching import MatchingParams, round_bound, run_matching
from gossipcert.heuristics.pairing import exact_matching, greedy_matching, improve_matching
from gossipcert.heuristics.settings_grid import best_of_grid, default_grid
from gossipcert.instance import Instance, make_instance, parse_instance, parse_model, parse_problem
from gossipcert.search.entry import solve
from gossipcert.simulate import simulate

SETTINGS = [
    MatchingParams(),
    MatchingParams(approach="flow", dist_exp=2.0, num_exp=0.0),
    MatchingParams(approach="bfs", dist_exp=8.0, band=1),
    MatchingParams(approach="bfs", dist_exp=4.0, dist_exp_decay=0.8),
    MatchingParams(approach="potential"),
    MatchingParams(approx=True),
    MatchingParams(approach="bfs", approx=True),
    MatchingParams(look_ahead=2, candidates=3, seed=7),
]


def rounds_of(instance: Instance, params: MatchingParams) -> int:
    res = run_matching(instance, params)
    rep = simulate(instance, res.schedule)
    assert rep.ok, (params, rep.errors[:2], rep.unmet[:2])
    assert rep.rounds == len(res.schedule) <= round_bound(instance)
    return len(res.schedule)


def small_graphs(max_nodes: int) -> list[nx.Graph]:
    return [
        g
        for g in nx.graph_atlas_g()[1:]
        if 2 <= g.number_of_nodes() <= max_nodes and nx.is_connected(g)
    ]


#: (model, problem) -> graphs (of 30) where the default setting, and the best setting, is
#: optimal; half-duplex is an extension of the paper's telephone heuristic and does worse
AT_OPTIMUM = {
    ("telephone", "gossip"): (27, 30),
    ("telephone", "broadcast:0"): (29, 30),
    ("half-duplex", "gossip"): (17, 24),
    ("half-duplex", "broadcast:0"): (29, 30),
}


@pytest.mark.parametrize(("model", "problem"), sorted(AT_OPTIMUM))
def test_never_below_the_certified_optimum_up_to_5_nodes(model: str, problem: str) -> None:
    graphs = small_graphs(5)
    assert len(graphs) == 1 + 2 + 6 + 21  # connected graphs on 2, 3, 4, 5 nodes
    default = best = 0
    for g in graphs:
        inst = make_instance(g, parse_model(model), parse_problem(problem))
        res = solve(inst, backend="sat")
        assert res.status == "optimal"
        found = [rounds_of(inst, p) for p in SETTINGS]
        assert min(found) >= res.optimum, (nx.to_graph6_bytes(g), found, res.optimum)
        default += found[0] == res.optimum
        best += min(found) == res.optimum
    assert (default, best) >= AT_OPTIMUM[model, problem]
    assert best >= AT_OPTIMUM[model, problem][1]


@pytest.mark.parametrize(
    "spec", ["ring:7", "path:6", "petersen", "mesh:3x4", "star:6", "complete:5", "ccc:3"]
)
@pytest.mark.parametrize("problem", ["gossip", "broadcast:2", "gather:1", "scatter:0"])
def test_every_setting_gives_a_verified_schedule(spec: str, problem: str) -> None:
    for model in ("telephone", "half-duplex"):
        inst = parse_instance(spec, model, problem)
        for params in SETTINGS:
            rounds_of(inst, params)


def test_custom_dispersion(tmp_path) -> None:
    # two packets at the ends of a path, each wanted by the other end and the middle
    problem = {
        "packets": ["a", "b"],
        "holdings": {"0": ["a"], "6": ["b"]},
        "demands": {"0": ["b"], "3": ["a", "b"], "6": ["a"]},
    }
    path = tmp_path / "p.json"
    path.write_text(json.dumps(problem))
    inst = parse_instance("path:7", "telephone", str(path))
    # distance 6 each way, but both packets would need node 3 in round 3: 7 rounds
    assert solve(inst, backend="sat").optimum == 7
    assert {rounds_of(inst, p) for p in SETTINGS} == {7}


@pytest.mark.parametrize("k", [2, 3, 4, 5, 6])
def test_hypercubes_at_the_optimum(k: int) -> None:
    inst = parse_instance(f"hypercube:{k}", "telephone", "gossip")
    assert rounds_of(inst, MatchingParams()) == k
    assert rounds_of(inst, MatchingParams(approach="bfs", approx=True)) == k


@pytest.mark.parametrize("n", [4, 7, 12])
def test_stars(n: int) -> None:
    # the bitset BFS weights count packets, not nodes: a leaf's one packet of eccentricity
    # 2 outweighs the centre's k packets of eccentricity 1 only while k < 2 ** Dist_Exp
    for params in (*SETTINGS[:3], MatchingParams(approach="bfs", dist_exp=4.0)):
        assert rounds_of(parse_instance(f"star:{n}", "telephone", "gossip"), params) == 2 * n - 3
        hd = parse_instance(f"star:{n}", "half-duplex", "gossip")
        assert rounds_of(hd, params) == 2 * (n - 1)


@pytest.mark.parametrize(
    ("spec", "paper"), [("ccc:6", 14), ("debruijn:6", 10), ("shuffle-exchange:6", 12)]
)
def test_paper_table5_values(spec: str, paper: int) -> None:
    inst = parse_instance(spec, "telephone", "gossip")
    best = best_of_grid(inst, 5.0, lower_bound=paper).best
    assert simulate(inst, best.schedule).ok
    assert len(best.schedule) <= paper


def test_ccc6_default_setting() -> None:
    # the plain per-round maximum-weight matching took 16 rounds here
    assert rounds_of(parse_instance("ccc:6", "telephone", "gossip"), MatchingParams()) == 14


@pytest.mark.slow
def test_debruijn8_default_setting() -> None:
    assert rounds_of(parse_instance("debruijn:8", "telephone", "gossip"), MatchingParams()) == 14


def test_deterministic_for_a_fixed_seed() -> None:
    inst = parse_instance("random:30,60,seed=3", "telephone", "gossip")
    for params in (MatchingParams(look_ahead=2, candidates=4, seed=5), MatchingParams()):
        a = run_matching(inst, params).schedule
        b = run_matching(inst, params).schedule
        assert a == b


def test_look_ahead_on_the_5x5_mesh() -> None:
    # section 5.3: the 5x5 mesh is where look-ahead was needed for the optimum 8
    inst = parse_instance("mesh:5x5", "telephone", "gossip")
    found = min(rounds_of(inst, p) for p in default_grid(inst))
    assert 8 <= found <= 9


def test_sweep_keeps_the_shortest_and_stops_at_the_lower_bound() -> None:
    inst = parse_instance("shuffle-exchange:5", "telephone", "gossip")
    res = best_of_grid(inst, 30.0)
    rounds = [r for _, r, _ in res.tried if r is not None]
    assert len(res.best.schedule) == min(rounds)
    early = best_of_grid(inst, 30.0, lower_bound=100)
    assert len(early.tried) == 1


def test_bad_parameters_are_refused() -> None:
    inst = parse_instance("ring:4", "telephone", "gossip")
    for bad in (
        MatchingParams(approach="magic"),
        MatchingParams(dist_exp=0.0),
        MatchingParams(look_ahead=-1),
    ):
        with pytest.raises(SpecError):
            run_matching(inst, bad)


def test_matchings_on_random_weights() -> None:
    rng = random.Random(1)
    for trial in range(30):
        g = nx.gnm_random_graph(14, 30, seed=trial)
        edges = sorted((min(a, b), max(a, b)) for a, b in g.edges)
        u = np.array([a for a, _ in edges])
        v = np.array([b for _, b in edges])
        w = np.array([rng.choice([0.0, 1.0, 2.0, 3.5, 7.0]) for _ in edges])
        greedy = greedy_matching(u, v, w, 14)
        better = improve_matching(u, v, w, 14, greedy)
        best = exact_matching(u, v, w)
        for chosen in (greedy, better, best):
            ends = [x for k in chosen for x in (u[k], v[k])]
            assert len(ends) == len(set(ends))
            assert all(w[k] > 0 for k in chosen)
        assert w[greedy].sum() <= w[better].sum() + 1e-9 <= w[best].sum() + 2e-9
        assert 2 * w[greedy].sum() >= w[best].sum() - 1e-9


def test_cli_options_and_json() -> None:
    runner = CliRunner()
    out = runner.invoke(
        app,
        ["heuristic", "debruijn:5", "--dist-exp", "2", "--look-ahead", "1", "--approx", "--json"],
    )
    assert out.exit_code == 0, out.output
    data = json.loads(out.stdout)
    assert data["valid"] and data["complete"]
    assert data["params"] == "flow dist-exp=2 approx look-ahead=1x4"
    out = runner.invoke(app, ["heuristic", "ccc:4", "--sweep", "-t", "3", "--json"])
    assert out.exit_code == 0, out.output
    data = json.loads(out.stdout)
    assert data["rounds"] == min(r["rounds"] for r in data["sweep"] if r["rounds"])
    for bad in (["--weights", "magic"], ["--dist-exp", "0"], ["--look-ahead", "-2"]):
        res = runner.invoke(app, ["heuristic", "ring:5", *bad])
        assert res.exit_code == 2, (bad, res.output)
        assert "Traceback" not in res.output


@pytest.mark.parametrize(
    ("spec", "rounds", "steps"),
    [
        ("ring:8", 4, 7),  # Lemma 1, even cycles: n/2 rounds, n - 1 steps (optimal)
        ("ring:10", 5, 9),
        ("ring:7", 5, 8),  # Lemma 1, odd cycles: floor(n/2) + 2 rounds, n + 1 steps
        ("path:6", 5, 9),  # Lemma 1, even paths: n - 1 rounds, 2n - 3 steps
        ("hypercube:4", 4, 15),  # n - 1 steps, the minimum
    ],
)
@pytest.mark.parametrize("tau", [0.5, 2.0])
def test_linear_cost_at_lemma_1(spec: str, rounds: int, steps: int, tau: float) -> None:
    inst = parse_instance(spec, f"telephone:tau={tau:g}", "gossip")
    res = run_matching(inst)
    rep = simulate(inst, res.schedule)
    assert rep.ok
    assert (rep.rounds, rep.steps) == (rounds, steps)
    assert res.cost == pytest.approx(rounds + tau * steps)


def test_linear_cost_adapts_to_tau() -> None:
    # Lemma 2 (4): the 4x4 mesh in a + b - 1 = 7 rounds and ab + a - 1 = 19 steps
    found = {}
    for tau in (0.0, 0.5, 2.0):
        inst = parse_instance("mesh:4x4", f"telephone:tau={tau:g}", "gossip")
        rep = simulate(inst, run_matching(inst).schedule)
        assert rep.ok
        found[tau] = (rep.rounds, rep.steps)
    assert found[2.0][0] <= 7 and found[2.0][1] <= 19
    assert found[0.0][1] > found[2.0][1]  # with free transfers it sends everything
    for model in ("telephone:tau=1", "half-duplex:tau=1"):
        for problem in ("gossip", "broadcast:3", "gather:0"):
            inst = parse_instance("petersen", model, problem)
            assert simulate(inst, run_matching(inst).schedule).ok


def test_the_sweep_tries_the_greedy_matching_second_on_meshes() -> None:
    # the 20x20 mesh is bipartite: the default takes the double-cover matching, 39 rounds;
    # the greedy matching's ties in edge order reach the diameter, 38 (optimal)
    inst = parse_instance("mesh:20x20", "telephone", "gossip")
    grid = default_grid(inst)
    assert grid[1] == MatchingParams(approx=True)
    assert rounds_of(inst, grid[0]) == 39
    res = best_of_grid(inst, 600.0, grid=grid[:2], lower_bound=38)
    assert len(res.best.schedule) == 38
    assert res.best.params.approx is True
    # graphs that take Edmonds' matching get no such entry
    ring = parse_instance("ring:9", "telephone", "gossip")
    assert all(p.approx is None for p in default_grid(ring))


def test_the_sweep_tries_a_decreasing_dist_exp_with_the_greedy_matching_on_meshes() -> None:
    # the 16x16 mesh: the greedy matching at the default Dist_Exp takes 31 rounds; starting
    # at 16 and decreasing it reaches the diameter, 30 (optimal)
    inst = parse_instance("mesh:16x16", "telephone", "gossip")
    grid = default_grid(inst)
    decreasing = MatchingParams(approx=True, dist_exp=16.0, dist_exp_decay=0.98)
    assert grid[1:3] == [MatchingParams(approx=True), decreasing]
    assert rounds_of(inst, grid[1]) == 31
    res = best_of_grid(inst, 600.0, grid=grid[:3], lower_bound=30)
    assert len(res.best.schedule) == 30
    best = res.best.params
    assert (best.approx, best.dist_exp, best.dist_exp_decay) == (True, 16.0, 0.98)
    assert simulate(inst, res.best.schedule).ok


@pytest.mark.parametrize(
    ("k", "decay"), [(17, 0.98), (19, 0.98), pytest.param(31, 0.99, marks=pytest.mark.slow)]
)
def test_a_large_decreasing_dist_exp_reaches_the_meshs_diameter(k: int, decay: float) -> None:
    # flow weights, the heavy (double-cover) matching, Dist_Exp 60 decreasing a little each
    # round (section 5.2): the mesh's diameter 2(k - 1), its gossip optimum, where the
    # sweep's first three settings do not all reach it (17x17, 19x19: one of them at least
    # takes one round more; which ones depends on the last bits of the float weights, so on
    # the numpy build)
    inst = parse_instance(f"mesh:{k}x{k}", "telephone", "gossip")
    grid = default_grid(inst)
    large = MatchingParams(dist_exp=60.0, dist_exp_decay=decay)
    assert grid[3:5] == [replace(large, dist_exp_decay=0.98), replace(large, dist_exp_decay=0.99)]
    if k < 30:  # the first three settings miss it (31x31: seconds each, not rerun here)
        assert max(rounds_of(inst, p) for p in grid[:3]) == 2 * k - 1
    res = run_matching(inst, large)
    assert len(res.schedule) == 2 * (k - 1)
    assert simulate(inst, res.schedule).ok
