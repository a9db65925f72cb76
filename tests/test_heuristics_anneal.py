"""Tests of the simulated annealing search over telephone schedules."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from gossipcert.cli import app
from gossipcert.errors import SpecError, UnsupportedModelError
from gossipcert.finders.portfolio import PortfolioSettings, entrant_names, race
from gossipcert.heuristics.annealing import AnnealParams, anneal_schedule
from gossipcert.instance import parse_instance
from gossipcert.schedule import Schedule
from gossipcert.simulate import simulate


@pytest.mark.parametrize(
    ("graph", "optimum", "seed"),
    [
        ("petersen", 4, 0),  # results/telephone-half-duplex.md
        ("ccc:3", 7, 0),  # results/beier-sibeyn.md (refutation of 6 checked)
        ("pancake:5", 8, 0),  # results/open-instances.md (packet-layers bound 8)
        ("shuffle-exchange:6", 11, 3),  # results/beier-sibeyn.md (distance bound 11)
    ],
)
def test_reaches_the_optimum_within_a_step_budget(graph: str, optimum: int, seed: int) -> None:
    inst = parse_instance(graph, "telephone", "gossip")
    res = anneal_schedule(inst, optimum, AnnealParams(seed=seed, steps=50_000))
    assert res.found and res.schedule is not None
    assert res.best_cost == 0 and res.steps < 50_000
    assert simulate(inst, res.schedule).ok
    assert simulate(inst, res.schedule).rounds == optimum  # nothing shorter exists


def test_below_the_optimum_nothing_is_found_and_the_count_is_the_verifiers() -> None:
    inst = parse_instance("ccc:3", "telephone", "gossip")  # optimum 7
    res = anneal_schedule(inst, 6, AnnealParams(seed=0, steps=3_000))
    assert not res.found and res.schedule is None and res.steps == 3_000
    report = simulate(inst, res.best)
    assert report.valid and not report.complete
    assert len(report.unmet) == res.best_cost > 0
    assert len(res.best.rounds) == 6
    for rnd in res.best.rounds:  # every round a maximal matching
        busy = {tr.sender for tr in rnd}
        assert all(u in busy or v in busy for u, v in inst.graph.edges if u != v)


def test_a_restart_starts_every_move_from_the_best_state(monkeypatch) -> None:
    # each replay from round r takes the rounds before r from the current state; a restart
    # resets the state to the best one found, and the working copy of the rounds with it
    from gossipcert.heuristics import annealing

    original = annealing._State.replay
    seen = {"replays": 0}

    def replay(self, first: int, rows: object, know: object, unmet: object) -> None:
        if rows is not self.partner:
            assert (rows[:first] == self.partner[:first]).all()
            seen["replays"] += 1
        return original(self, first, rows, know, unmet)

    monkeypatch.setattr(annealing._State, "replay", replay)
    inst = parse_instance("shuffle-exchange:6", "telephone", "gossip")  # optimum 11
    res = anneal_schedule(inst, 10, AnnealParams(seed=1, steps=6_000, cycle=500))
    assert res.restarts >= 10 and seen["replays"] > 1_000 and not res.found


def test_brute_force_on_the_four_cycle() -> None:
    # C4 gossips in 2 rounds (the two perfect matchings) and not in 1
    inst = parse_instance("ring:4", "telephone", "gossip")
    assert anneal_schedule(inst, 2, AnnealParams(seed=5, steps=1_000)).found
    one = anneal_schedule(inst, 1, AnnealParams(seed=5, steps=1_000))
    assert not one.found and one.best_cost == 16 - 8  # each node knows 2 of the 4 packets


def test_deterministic_for_a_seed() -> None:
    inst = parse_instance("debruijn:5", "telephone", "gossip")
    runs = [anneal_schedule(inst, 7, AnnealParams(seed=4, steps=4_000)) for _ in range(2)]
    assert runs[0].best == runs[1].best
    assert (runs[0].best_cost, runs[0].steps) == (runs[1].best_cost, runs[1].steps)
    other = anneal_schedule(inst, 7, AnnealParams(seed=5, steps=4_000))
    assert other.best != runs[0].best


def test_a_solving_start_is_returned_at_once() -> None:
    inst = parse_instance("hypercube:3", "telephone", "gossip")
    start = Schedule.from_calls(
        [[(v, v ^ bit) for v in range(8) if v < v ^ bit] for bit in (1, 2, 4)]
    )
    res = anneal_schedule(inst, 3, AnnealParams(steps=10), initial=start)
    assert res.found and res.steps == 0 and res.schedule == start


def test_broadcast_and_the_tie_breaking_energy() -> None:
    inst = parse_instance("hypercube:4", "telephone", "broadcast:0")
    params = AnnealParams(seed=2, steps=20_000, tie_weight=0.1, start="random")
    res = anneal_schedule(inst, 4, params)  # a broadcast doubles: log2(16) rounds
    assert res.found and res.schedule is not None
    assert simulate(inst, res.schedule).rounds == 4
    assert not anneal_schedule(inst, 3, params).found


@pytest.mark.parametrize("model", ["half-duplex", "sequential", "telephone:p=1", "single-port"])
def test_refuses_other_models(model: str) -> None:
    inst = parse_instance("ring:4", model, "gossip")
    with pytest.raises(UnsupportedModelError, match="telephone model"):
        anneal_schedule(inst, 3, AnnealParams(steps=10))


@pytest.mark.parametrize(
    ("rounds", "params"),
    [
        (0, AnnealParams()),
        (2, AnnealParams(steps=None, time_limit=None)),
        (2, AnnealParams(hot=0.01, cold=1.0)),
        (2, AnnealParams(start="greedy")),
    ],
)
def test_bad_parameters(rounds: int, params: AnnealParams) -> None:
    with pytest.raises(SpecError):
        anneal_schedule(parse_instance("ring:4", "telephone", "gossip"), rounds, params)


def test_cli_method_anneal() -> None:
    base = ["heuristic", "ccc:3", "--method", "anneal", "--steps", "50000", "--json"]
    out = CliRunner().invoke(app, [*base, "--rounds", "7"])
    assert out.exit_code == 0, out.output
    data = json.loads(out.stdout)
    assert (data["rounds"], data["valid"], data["complete"], data["best_unmet"]) == (
        7,
        True,
        True,
        0,
    )
    short = CliRunner().invoke(app, [*base, "--rounds", "6", "--steps", "2000"])
    assert short.exit_code == 1
    assert json.loads(short.stdout)["found"] is False


def test_cli_refuses_half_duplex_without_a_traceback() -> None:
    args = ["heuristic", "ring:4", "-m", "half-duplex", "--method", "anneal", "--steps", "9"]
    out = CliRunner().invoke(app, args)
    assert out.exit_code == 2
    assert "telephone model" in out.output and "Traceback" not in out.output


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["petersen", "--method", "anneal", "--rounds", "99999999999"], "GiB of knowledge"),
        (["petersen", "--rounds", "2"], "belong to --method anneal"),
        (["petersen", "--start", "bogus"], "belong to --method anneal"),
        (["petersen", "--method", "coloring", "--steps", "5"], "belong to --method anneal"),
    ],
)
def test_cli_rejects_huge_horizons_and_anneal_options_elsewhere(
    args: list[str], message: str
) -> None:
    out = CliRunner().invoke(app, ["heuristic", *args])
    assert out.exit_code == 2, out.output
    assert message in out.output and "Traceback" not in out.output


def test_the_portfolio_entrant_wins_on_pancake5() -> None:
    inst = parse_instance("pancake:5", "telephone", "gossip")  # matching heuristic: 9
    names = entrant_names(inst, PortfolioSettings(1.0))
    others = tuple(n for n in names if n != "anneal")
    res = race(inst, PortfolioSettings(60.0, jobs=1), target=8, skip=others)
    assert res.won and res.rounds == 8 and res.entrant.startswith("anneal")
    assert simulate(inst, res.schedule).rounds == 8


def test_repair_calls_are_exactly_the_single_calls_that_meet_the_demand() -> None:
    import random

    from gossipcert.heuristics.annealing import _start_rows, _State

    inst = parse_instance("ccc:3", "telephone", "gossip")
    state = _State(inst, 5)
    rng = random.Random(7)
    _start_rows(state, Schedule(()), rng)  # random maximal matchings
    state.full_replay()
    base = simulate(inst, state.schedule(state.partner))
    assert len(base.unmet) == state.unmet[5] > 0
    helped = 0
    for v, p in rng.sample(base.unmet, 8):
        want = set()
        for r in range(5):
            for x, y in state.edges:
                if state.partner[r, x] == y:
                    continue
                rows = state.partner.copy()
                a, b = int(rows[r, x]), int(rows[r, y])
                rows[r, a], rows[r, b] = a, b
                rows[r, x], rows[r, y] = y, x
                if (v, p) not in simulate(inst, state.schedule(rows)).unmet:
                    want.add((r, x, y))
        assert set(state.repair_calls(v, p)) == want
        helped += bool(want)
    assert helped  # not only demands that no single call meets
