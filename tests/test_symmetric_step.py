"""The symmetric-schedule step of the search and the portfolio's ``symmetric`` entrant:
invariant schedules under nauty's small groups beat the constructions and heuristics on
de Bruijn 5 (8 -> 7, its optimum) and shuffle-exchange 5 (10 -> 9, its optimum)."""

from __future__ import annotations

import pytest

from gossipcert.encodings import EncodingOptions
from gossipcert.finders import invariant_step as symmetric_step
from gossipcert.finders.portfolio import PortfolioSettings, entrant_names, race
from gossipcert.instance import parse_instance
from gossipcert.search.entry import solve
from gossipcert.search.rounds import _Search
from gossipcert.simulate import simulate


def _upper_after_the_upper_bound_step(graph: str, symmetric: bool) -> tuple[int | None, str]:
    inst = parse_instance(graph, "telephone", "gossip")
    s = _Search(
        inst, "sat", 60.0, EncodingOptions.for_search(), True, False, None, symmetric=symmetric
    )
    s.lower_bound()
    s.upper_bound()
    assert s.best is not None and simulate(inst, s.best[0]).rounds == s.upper
    return s.upper, s.upper_source


def test_the_step_beats_the_heuristics_on_debruijn5() -> None:
    assert _upper_after_the_upper_bound_step("debruijn:5", False)[0] == 8
    upper, source = _upper_after_the_upper_bound_step("debruijn:5", True)
    assert upper == 7  # the optimum (Beier-Sibeyn's heuristic: 8)
    assert source.startswith("symmetric H=<")


def test_the_step_alone_certifies_shuffle_exchange5() -> None:
    # the closed-form lower bound is 9, the heuristics give 10, an invariant schedule 9
    inst = parse_instance("shuffle-exchange:5", "telephone", "gossip")
    res = solve(inst, time_limit=60.0, proof=False)
    assert res.status == "optimal" and res.optimum == 9
    assert res.upper_source.startswith("symmetric")
    assert res.evidence["kind"] == "closed-form"
    assert simulate(inst, res.schedule).rounds == 9
    steps = [e for e in res.log if e["event"] == "symmetric"]
    assert steps and steps[-1]["status"] == "sat" and steps[-1]["rounds"] == 9
    uppers = [(e["value"], e["source"]) for e in res.log if e["event"] == "upper-bound"]
    # every improvement among the candidates is reported as it is found, the best of them
    # (10) last before the invariant schedule's 9
    assert uppers[-2][0] == 10 and uppers[-1][0] == 9
    assert len(uppers) == len(set(uppers))  # each bound is reported once


def test_unsat_groups_are_dropped_and_never_lower_the_bound() -> None:
    # ring:8: the rotation by 1 makes every edge orbit touch itself (no invariant schedule
    # at all), the rotation by 2 has invariant schedules of 4 rounds but none of 3
    inst = parse_instance("ring:8", "telephone", "gossip")
    groups = {
        "rot1": [[(v + 1) % 8 for v in range(8)]],
        "rot2": [[(v + 2) % 8 for v in range(8)]],
    }
    events: list[dict[str, object]] = []
    found = list(symmetric_step.symmetric_candidates(inst, 6, 3, 10.0, events.append, groups))
    assert [len(s.rounds) for _, s in found] == [5, 4]
    assert all(simulate(inst, s).ok for _, s in found)
    assert [(e["group"], e["rounds"], e["status"]) for e in events] == [
        ("rot1", 5, "unsat"),  # dropped for good: never asked again
        ("rot2", 5, "sat"),
        ("rot2", 4, "sat"),
        ("rot2", 3, "unsat"),
    ]


def test_the_step_applies_to_large_telephone_gossip_only() -> None:
    def applies(graph: str, model: str = "telephone", problem: str = "gossip") -> bool:
        return symmetric_step.symmetric_step_applies(parse_instance(graph, model, problem))

    assert applies("debruijn:5")
    assert not applies("debruijn:4")  # 16 nodes: below MIN_NODES
    assert not applies("debruijn:5", "half-duplex")
    assert not applies("debruijn:5", problem="broadcast:0")


def test_the_budget_shares_the_time_left() -> None:
    assert symmetric_step.step_budget(None) == symmetric_step.STEP_SECONDS
    assert symmetric_step.step_budget(1000.0, now=0.0) == symmetric_step.STEP_SECONDS
    assert symmetric_step.step_budget(20.0, now=0.0) == pytest.approx(
        20.0 * symmetric_step.STEP_FRACTION
    )


def test_the_portfolio_entrant_wins_on_debruijn5() -> None:
    inst = parse_instance("debruijn:5", "telephone", "gossip")
    names = entrant_names(inst, PortfolioSettings(1.0))
    assert "symmetric" in names
    others = tuple(n for n in names if n != "symmetric")
    res = race(inst, PortfolioSettings(60.0, jobs=1), target=7, skip=others)
    assert res.won and res.rounds == 7 and res.entrant.startswith("symmetric")
    assert simulate(inst, res.schedule).rounds == 7


def test_the_portfolio_skips_its_symmetric_entrant_after_the_step(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from gossipcert.finders import portfolio

    skipped: list[tuple[str, ...]] = []

    def fake_race(*args: object, skip: tuple[str, ...] = (), **kwargs: object) -> object:
        skipped.append(skip)
        return portfolio.PortfolioResult(None, None, "none", False)

    monkeypatch.setattr(portfolio, "race", fake_race)
    for graph in ("debruijn:5", "debruijn:4"):  # 32 nodes: the step runs; 16: it does not
        inst = parse_instance(graph, "telephone", "gossip")
        s = _Search(
            inst,
            "sat",
            60.0,
            EncodingOptions.for_search(),
            True,
            False,
            None,
            portfolio=PortfolioSettings(1.0),
        )
        s.lower_bound()
        s.upper_bound()
    assert skipped == [("candidates", "symmetric"), ("candidates",)]


def test_the_step_is_shown_in_the_progress_lines() -> None:
    from typer.testing import CliRunner

    from gossipcert.cli import app

    out = CliRunner().invoke(app, ["solve", "shuffle-exchange:5", "-t", "60", "--no-proof"])
    assert out.exit_code == 0, out.output
    assert "schedules invariant under H=<" in out.output
    assert "9 rounds: sat" in out.output
