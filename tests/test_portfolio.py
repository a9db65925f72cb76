"""The schedule portfolio: every schedule it returns is verified, and where the target is
reached the round count is deterministic."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from gossipcert.cli import app
from gossipcert.finders.portfolio import PortfolioSettings, entrant_names, race
from gossipcert.instance import parse_instance
from gossipcert.schedule import Schedule, Transmission
from gossipcert.search.entry import solve
from gossipcert.simulate import simulate


@pytest.mark.parametrize(
    ("graph", "model", "target"),
    [
        ("hypercube:3", "telephone", 3),
        ("ring:6", "half-duplex", 6),
        ("petersen", "half-duplex", 7),  # the optimum; the closed-form bound says 5
    ],
)
def test_race_reaches_the_target_with_a_verified_schedule(
    graph: str, model: str, target: int
) -> None:
    inst = parse_instance(graph, model, "gossip")
    res = race(inst, PortfolioSettings(60.0), target=target)
    assert res.won and res.rounds == target
    assert res.schedule is not None
    rep = simulate(inst, res.schedule)
    assert rep.ok and rep.rounds == target
    assert all(row["valid"] for row in res.log if "valid" in row)


def test_a_stored_schedule_at_the_target_wins_without_a_race() -> None:
    inst = parse_instance("hypercube:3", "telephone", "gossip")
    stored = race(inst, PortfolioSettings(30.0)).schedule
    assert stored is not None
    res = race(inst, PortfolioSettings(30.0), seeds=[("earlier run", stored)])
    assert (res.won, res.rounds, res.entrant) == (True, 3, "stored: earlier run")
    assert [row["entrant"] for row in res.log] == ["stored"]


def test_a_wrong_stored_schedule_is_not_taken() -> None:
    inst = parse_instance("path:3", "telephone", "gossip")
    bad = Schedule(((Transmission(0, (2,), None),),))  # 0 and 2 are not neighbours
    res = race(inst, PortfolioSettings(30.0), seeds=[("bad", bad)])
    assert res.log[0]["valid"] is False
    assert res.rounds == 3 and simulate(inst, res.schedule).ok  # Lemma 1: n for odd paths


def test_entrants_fit_the_model() -> None:
    tel = entrant_names(parse_instance("ring:6", "telephone", "gossip"), PortfolioSettings(1))
    hd = entrant_names(parse_instance("ring:6", "half-duplex", "gossip"), PortfolioSettings(1))
    assert tel == [
        "candidates",
        "cpsat-seed-0",
        "sat-phases",
        "symmetric",
        "anneal",
        "matching-sweep",
        "coloring",
        "cpsat-seed-1",
    ]
    assert "coloring" not in hd and "sat-phases" in hd
    assert "symmetric" not in hd  # the symmetric finder covers the telephone model only
    assert "anneal" not in hd  # and so does the annealing search


def test_solve_with_the_portfolio_gives_the_same_optimum() -> None:
    inst = parse_instance("ring:5", "half-duplex", "gossip")  # bounds [4, 6] before the race
    plain = solve(inst, proof=False)
    raced = solve(inst, proof=False, portfolio=PortfolioSettings(20.0))
    assert plain.optimum == raced.optimum == 6
    assert any(e["event"] == "portfolio" for e in raced.log)
    assert simulate(inst, raced.schedule).ok


def test_solve_portfolio_on_the_command_line() -> None:
    args = ["solve", "ring:6", "-m", "half-duplex", "--portfolio", "20", "-j", "2"]
    out = CliRunner().invoke(app, [*args, "--json", "-q", "--no-proof", "-t", "120"])
    # with --no-proof the lower bound is the solver's word: the bounds meet at 6, but that
    # is no proved optimum (status feasible, decided by the solver; exit 1)
    assert out.exit_code == 1, out.output
    data = json.loads(out.stdout)
    assert (data["lower_bound"], data["upper_bound"]) == (6, 6)
    assert data["evidence"]["kind"] == "solver-claim" and data["decided_by_solver"] is True
    assert (data["status"], data["optimum"], data["certified"]) == ("feasible", None, False)
