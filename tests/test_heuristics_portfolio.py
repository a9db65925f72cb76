"""The default of ``gossipcert heuristic``: a portfolio of Beier and Sibeyn's settings.

Values: telephone gossip takes ``n/2`` rounds on even cycles, ``floor(n/2) + 2`` on odd ones
from 7 nodes, ``n - 1`` on even paths, ``n`` on odd ones, ``k`` on the hypercube of dimension
``k`` (Beier and Sibeyn, section 2 and Lemma 1); CCC 3 takes 7 and Butterfly 3 takes 6
(certified optima of ``results/beier-sibeyn.md``, Table 5's HR); Pancake 4 takes 5 (the
closed-form bound; Table 6's sequence 02102). Table 5's HR: CCC 8 18, SE 8 17, Butterfly 8 17;
Table 3 (tau = 0): Mesh 20x20 38, its diameter.
"""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from gossipcert.cli import app
from gossipcert.closed_forms import best_lower_bound
from gossipcert.errors import SpecError
from gossipcert.heuristics.matching import MatchingParams, run_matching
from gossipcert.heuristics.portfolio import (
    COLORING,
    _estimate,
    coloring_fits,
    default_portfolio,
    run_portfolio,
)
from gossipcert.instance import parse_instance
from gossipcert.simulate import simulate


def _verified_rounds(spec: str, model: str = "telephone") -> tuple[int, list[int | None]]:
    """The portfolio's rounds (its schedule replayed by the verifier) and each entry's."""
    inst = parse_instance(spec, model, "gossip")
    res = run_portfolio(inst, 60.0)
    rep = simulate(inst, res.schedule)
    assert rep.ok and rep.rounds == len(res.schedule)
    return rep.rounds, [rounds for _, rounds, _ in res.tried]


@pytest.mark.parametrize(
    ("spec", "optimum"),
    [
        ("ring:8", 4),
        ("ring:10", 5),
        ("ring:9", 6),
        ("path:6", 5),
        ("path:7", 7),
        ("hypercube:4", 4),
        ("ccc:3", 7),
        ("butterfly:3", 6),
        ("pancake:4", 5),
    ],
)
def test_small_graphs_reach_their_known_optimum(spec: str, optimum: int) -> None:
    rounds, tried = _verified_rounds(spec)
    assert rounds == optimum
    if optimum == best_lower_bound(parse_instance(spec, "telephone", "gossip")).value:
        # the closed-form bound is met: nothing ran after the entry that met it
        assert tried.index(optimum) == len(tried) - 1


def test_the_coloring_heuristic_is_in_the_portfolio_on_regular_telephone_graphs() -> None:
    ccc = parse_instance("ccc:3", "telephone", "gossip")
    assert coloring_fits(ccc) and default_portfolio(ccc)[0] == COLORING
    # CCC 3: the default setting takes 9 rounds, the coloring heuristic 7 (0120120)
    assert len(run_matching(ccc, MatchingParams()).schedule) == 9
    res = run_portfolio(ccc, 60.0)
    assert res.method == "coloring" and res.sequence == "0120120"
    for spec, model in (("mesh:4x4", "telephone"), ("ccc:3", "half-duplex")):
        inst = parse_instance(spec, model, "gossip")
        assert not coloring_fits(inst) and COLORING not in default_portfolio(inst)
    hd = parse_instance("star:8", "half-duplex", "gossip")
    assert _verified_rounds("star:8", "half-duplex")[0] == 14 == 2 * (hd.n - 1)


def test_the_portfolio_stops_at_the_lower_bound() -> None:
    inst = parse_instance("mesh:20x20", "telephone", "gossip")
    entries = default_portfolio(inst)
    assert len(entries) > 5
    # the default setting takes 39 rounds, the greedy matching second reaches the diameter
    res = run_portfolio(inst, 600.0)
    assert [rounds for _, rounds, _ in res.tried] == [39, 38]
    assert len(res.schedule) == 38 == res.lower_bound
    # with a bound no schedule meets, every entry runs (the list is finite) ...
    small = parse_instance("shuffle-exchange:4", "telephone", "gossip")
    every = run_portfolio(small, 600.0, lower_bound=0)
    assert len(every.tried) == len(default_portfolio(small))
    # ... and a bound the first schedule meets stops after it
    assert len(run_portfolio(small, 600.0, lower_bound=100).tried) == 1


def test_the_budget_bounds_the_portfolio_after_its_first_entry() -> None:
    inst = parse_instance("shuffle-exchange:4", "telephone", "gossip")
    res = run_portfolio(inst, 1e-6, lower_bound=0)
    assert len(res.tried) == 1 and simulate(inst, res.schedule).ok


def test_linear_cost_keeps_the_cheapest_and_tries_small_dist_exps() -> None:
    inst = parse_instance("ring:6", "telephone:tau=0.5", "gossip")
    entries = default_portfolio(inst)
    assert MatchingParams(dist_exp=0.5) in entries and COLORING not in entries
    res = run_portfolio(inst, 600.0)
    rep = simulate(inst, res.schedule)
    # a schedule costs R + tau*h*S > R, so the bound on rounds never stops the portfolio
    assert len(res.tried) == len(entries) and rep.cost == res.cost > rep.rounds
    assert res.cost == min(run_matching(inst, e).cost for e in entries if e != COLORING)


def test_a_look_ahead_run_is_estimated_by_the_rounds_it_plays() -> None:
    plain, ahead = MatchingParams(), MatchingParams(look_ahead=1, candidates=4)
    # before any look-ahead run: a plain run's time per matching weighed and round played
    assert _estimate(ahead, {False: 2.0, True: 0.0}) == 2.0 * (1 + 4 * 2)
    assert _estimate(ahead, {False: 2.0, True: 5.0}) == 5.0  # then the slowest such run
    assert _estimate(plain, {False: 2.0, True: 5.0}) == 2.0


def test_an_unknown_entry_is_refused() -> None:
    inst = parse_instance("ring:4", "telephone", "gossip")
    with pytest.raises(SpecError, match="unknown portfolio entry 'colouring'"):
        run_portfolio(inst, entries=[MatchingParams(), "colouring"])


def test_cli_without_options_runs_the_portfolio_and_an_option_one_setting() -> None:
    runner = CliRunner()
    # Mesh 9x9: the default setting takes 17 rounds, the greedy matching 16, the diameter
    out = runner.invoke(app, ["heuristic", "mesh:9x9", "--json"])
    assert out.exit_code == 0, out.output
    data = json.loads(out.stdout)
    assert data["rounds"] == 16 and data["valid"] and data["complete"]
    assert data["lower_bound"] == 16 and len(data["portfolio"]) == 2
    assert data["params"] == "flow dist-exp=8 approx"
    # an explicit option, or --method matching, runs exactly one setting
    for option in (["--method", "matching"], ["--dist-exp", "8"], ["--exact"], ["--seed", "0"]):
        out = runner.invoke(app, ["heuristic", "mesh:9x9", "--json", *option])
        assert out.exit_code == 0, (option, out.output)
        data = json.loads(out.stdout)
        assert data["rounds"] == 17 and "portfolio" not in data, option
    out = runner.invoke(app, ["heuristic", "mesh:9x9", "--json", "--approx"])
    assert json.loads(out.stdout)["rounds"] == 16
    # the text output names the coloring heuristic's sequence when it wins
    out = runner.invoke(app, ["heuristic", "ccc:3"])
    assert out.exit_code == 0, out.output
    assert "matching sequence: 0120120" in out.stdout and "7 rounds" in out.stdout
    assert "coloring sequence 0120120: 7 rounds" in out.stderr
    out = runner.invoke(app, ["heuristic", "ccc:3", "--quiet"])
    assert out.exit_code == 0 and out.stderr == ""


@pytest.mark.slow
@pytest.mark.parametrize(
    ("spec", "paper"),
    [("ccc:8", 18), ("shuffle-exchange:8", 17), ("butterfly:8", 17), ("mesh:20x20", 38)],
)
def test_the_default_portfolio_reaches_the_papers_heuristic_results(spec: str, paper: int) -> None:
    # Table 5's HR (Table 3 at tau = 0 for the mesh); times: benchmarks/heuristics_default.py
    rounds, _ = _verified_rounds(spec)
    assert rounds <= paper
