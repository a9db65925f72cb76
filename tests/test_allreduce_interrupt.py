"""Ctrl-C during an allreduce search: the answer keeps the bracket known at that moment
(the bounds, the best verified schedule, a refutation already proved), marked
``interrupted``, instead of losing it."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from gossipcert.instance import parse_instance
from gossipcert.search import allreduce, allreduce_exact
from gossipcert.search.entry import solve
from gossipcert.simulate import simulate
from tests.test_allreduce_cut import atlas_instance

#: the bowtie (two triangles sharing node 4), all-port, one chunk per node
BOWTIE = atlas_instance(42, "all-port", 1)


@pytest.fixture(autouse=True)
def _exact_search_only(monkeypatch: pytest.MonkeyPatch) -> None:
    """These tests exercise the exact search and its DRAT proofs, which the chunk-packing
    bound would pre-empt on the bowtie (tests/test_allreduce_packing.py covers that bound)."""
    monkeypatch.setattr(allreduce, "PACKING_NODES", 0)


def _interrupt(*args: Any) -> Any:
    raise KeyboardInterrupt


def test_interrupt_in_the_exact_search_keeps_the_bracket(monkeypatch: pytest.MonkeyPatch) -> None:
    inst = BOWTIE  # the receipts bound says 4, the exact search 5
    whole = solve(inst)
    assert whole.optimum == 5 and whole.evidence["kind"] == "allreduce-drat"
    monkeypatch.setattr(allreduce_exact, "decide", _interrupt)
    res = solve(inst)
    assert res.interrupted and res.status == "feasible" and res.optimum is None
    assert res.lower_bound == whole.evidence["bracket"]["value"] == 4
    assert res.upper_bound is not None and res.upper_bound >= 5
    assert res.schedule is not None and simulate(inst, res.schedule).rounds == res.upper_bound
    assert res.evidence["kind"] == "allreduce-bracket"


def test_interrupt_after_a_refutation_keeps_the_proof(monkeypatch: pytest.MonkeyPatch) -> None:
    # the union relaxation is refuted at 4 rounds (a checked proof), then Ctrl-C at 5
    inst = BOWTIE
    real = allreduce_exact.decide

    def decide(instance: Any, rounds: int, *args: Any) -> Any:
        if rounds >= 5:
            raise KeyboardInterrupt
        return real(instance, rounds, *args)

    monkeypatch.setattr(allreduce_exact, "decide", decide)
    found, refuted, record, stopped = allreduce_exact.exact_search(inst, 4, 7, None)
    assert (found, refuted, stopped) == (None, 4, True)
    assert record is not None and record["formula"] == "union" and record["checkers"]


def test_interrupt_in_a_sub_problem_stops_there() -> None:
    # Q_3, one chunk a node: no construction meets the closed bounds (receipts: 5), so the
    # sub-problems are asked
    inst = parse_instance("hypercube:3", "all-port", "allreduce")
    asked = []

    def solve_other(sub: Any, *limit: float) -> Any:
        asked.append(sub.problem.kind.value)
        return replace(solve(sub), interrupted=True, schedule=None, upper_bound=None)

    res = allreduce.solve_allreduce(inst, solve_other)
    assert asked == ["reduce-scatter"]  # the gossip sub-problem is not started
    # the constructions, built in an instant, are kept: the translated allreduce, 6 rounds
    assert res.interrupted and res.status == "feasible" and res.schedule is not None
    assert simulate(inst, res.schedule).rounds == res.upper_bound == 6
    assert res.upper_source.startswith("the translated allreduce")
    assert res.lower_bound >= res.evidence["bounds"]["reduce-scatter"]
    assert res.evidence["bounds"]["gossip"] is None


def test_progress_names_the_stages_and_each_horizon() -> None:
    events: list[dict[str, Any]] = []
    res = solve(BOWTIE, progress=events.append)
    assert res.optimum == 5
    stages = [e["what"] for e in events if e["event"] == "stage"]
    assert len(stages) == 2 and "reduce-scatter" in stages[0] and "gossip" in stages[1]
    tried = [e["rounds"] for e in events if e["event"] == "trying"]
    queries = [(e["rounds"], e["status"]) for e in events if e["event"] == "query"]
    assert tried == [4] and (4, "unsat") in queries
    # the last bounds told are the allreduce's own: 5 and 5
    last = {e["event"]: e["value"] for e in events if e["event"] in ("lower-bound", "upper-bound")}
    assert last == {"lower-bound": 5, "upper-bound": 5}


def test_solve_within_passes_strict_on(monkeypatch: pytest.MonkeyPatch) -> None:
    from gossipcert.watchdog import solve_within

    seen: list[bool] = []
    real = allreduce_exact.decide

    def decide(instance: Any, rounds: int, deadline: Any, strict: bool = False) -> Any:
        seen.append(strict)
        return real(instance, rounds, deadline, strict)

    monkeypatch.setattr(allreduce_exact, "decide", decide)
    res = solve_within(BOWTIE, strict=True)
    assert res.optimum == 5 and seen == [True]


def test_a_seed_schedule_is_an_upper_bound(monkeypatch: pytest.MonkeyPatch) -> None:
    # solve --resume: a schedule from elsewhere, replayed, bounds the search from above
    tried: list[int] = []
    real = allreduce_exact.decide

    def decide(instance: Any, rounds: int, *args: Any) -> Any:
        tried.append(rounds)
        return real(instance, rounds, *args)

    monkeypatch.setattr(allreduce_exact, "decide", decide)
    inst = parse_instance("ring:5", "telephone", "allreduce")
    first = solve(inst)  # 4 rounds is the closed bound; the exact model finds a schedule
    assert first.optimum == 4 and first.schedule is not None and tried == [4]
    assert first.upper_source == "the allreduce model (gossipcert.encodings.allreduce)"
    tried.clear()
    bad = first.schedule.rounds[:2]  # not a schedule of the instance: ignored
    seeds = [("cut short", type(first.schedule)(bad)), ("elsewhere", first.schedule)]
    res = solve(inst, seeds=seeds)
    assert res.optimum == 4 and res.upper_source == "elsewhere"
    assert res.status == "optimal" and tried == []  # nothing left to decide
