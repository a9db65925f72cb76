"""The time limit reaches every stage: a stage with no time left is skipped and said so,
the answer keeps a valid bracket and is never a false optimum.

No test here times the machine: each gives a stage a deadline already past (or none) and
checks what the code guarantees."""

from __future__ import annotations

import multiprocessing
import os
import signal
import time

import pytest

from gossipcert import children
from gossipcert.command_start import limits_from
from gossipcert.constructions.tree_allreduce_list import tree_list_allreduce
from gossipcert.instance import parse_instance
from gossipcert.search import allreduce
from gossipcert.search.allreduce_upper import Best, Made, upper_bounds
from gossipcert.search.entry import _solve_reduction
from gossipcert.search.entry import solve as search_solve
from gossipcert.search.reversal import reversal_reserve
from gossipcert.simulate import simulate
from gossipcert.statuses import SolveStatus
from gossipcert.watchdog import child_budget, kill_after


def _never(*args: object) -> None:
    raise AssertionError("a sub-problem was solved with no time left")


def test_allreduce_with_its_deadline_past_skips_every_step_and_stays_a_bracket() -> None:
    inst = parse_instance("ring:4", "single-port", "allreduce")
    optimum = search_solve(inst).optimum  # 6, the receipts bound met by the ring allreduce
    with limits_from(time.monotonic() - 100.0):  # the limit of 10 s ran out long ago
        res = allreduce.solve_allreduce(inst, _never, time_limit=10.0)
    assert res.status is SolveStatus.UNKNOWN and res.optimum is None
    assert res.schedule is None and res.upper_bound is None
    assert res.lower_bound <= optimum  # the closed bounds, cheap, still hold
    assert res.timed_out and not res.certified
    said = " ".join(res.skipped)
    assert "reduce-scatter sub-problem" in said and "gossip (allgather) sub-problem" in said
    assert "building the ring allreduce" in said


def test_allreduce_without_a_limit_skips_nothing() -> None:
    res = search_solve(parse_instance("ring:4", "single-port", "allreduce"))
    assert res.status is SolveStatus.OPTIMAL and res.skipped == []


def test_a_construction_is_built_once_and_replayed_once() -> None:
    inst = parse_instance("hypercube:3", "all-port", "allreduce:chunks=2")
    calls: list[int] = []

    def build(instance):  # type: ignore[no-untyped-def]
        calls.append(1)
        return tree_list_allreduce(instance)

    made = Made(inst, None, [])
    first = made.verified("tree", build, None)
    again = made.verified("tree", build, None)
    assert first is not None and again is first and calls == [1]
    assert simulate(inst, first[0]).ok


def test_a_construction_with_no_time_left_is_not_built() -> None:
    inst = parse_instance("hypercube:3", "all-port", "allreduce:chunks=2")
    skipped: list[str] = []
    made = Made(inst, time.monotonic() - 1.0, skipped)
    assert made.verified("tree", _never, None) is None  # type: ignore[arg-type]
    assert skipped == ["building the tree allreduce (no time left)"]


def test_upper_bounds_with_no_time_left_offer_nothing_unverified() -> None:
    inst = parse_instance("ring:4", "single-port", "allreduce")
    skipped: list[str] = []
    best = Best()
    upper_bounds(Made(inst, time.monotonic() - 1.0, skipped), None, None, None, best)
    assert best.made is None and best.source == "none"
    assert len(skipped) == len(allreduce.CONSTRUCTIONS)


def test_sub_problems_get_a_third_or_what_is_left_less_the_reserve() -> None:
    now = time.monotonic()
    assert allreduce.sub_seconds(None, None) is None
    assert allreduce.sub_seconds(60.0, now + 1000.0) == pytest.approx(20.0)
    # 10 s left of a 60 s limit: 6 s kept for the steps after the sub-problems
    assert allreduce.sub_seconds(60.0, now + 10.0) == pytest.approx(4.0, abs=0.5)
    assert allreduce.sub_seconds(60.0, now + 3.0) <= 0  # none: the sub-problem is skipped
    # the reserve is at most AFTER_SECONDS
    assert allreduce.sub_seconds(600.0, now + 50.0) == pytest.approx(40.0, abs=0.5)


def test_the_dual_of_a_reversal_is_given_the_limit_less_the_reserve() -> None:
    inst = parse_instance("ring:6", "telephone", "reduce-scatter")
    limits: list[float | None] = []

    def other(sub, limit=None):  # type: ignore[no-untyped-def]
        limits.append(limit)
        return search_solve(sub)

    res = _solve_reduction(inst, other, 60.0)
    assert limits == [pytest.approx(60.0 - reversal_reserve(60.0))]
    assert res.optimum == 3 and simulate(inst, res.schedule).ok
    _solve_reduction(inst, other, None)
    assert limits[-1] is None  # no limit: none made up
    assert 0 < reversal_reserve(10.0) < reversal_reserve(60.0) <= 2.0


def test_the_child_is_killed_before_the_limit_and_after_its_own_budget() -> None:
    for limit in (0.5, 10.0, 60.0, 1000.0):
        assert child_budget(limit) < kill_after(limit) < limit
        assert limit - kill_after(limit) <= 0.5


def test_a_killed_child_not_waited_for_is_reaped_later() -> None:
    child = children.Child(lambda send: time.sleep(60), ())
    child.reap(wait=False)
    # killed, and left to multiprocessing, which waits for it (as at the next child
    # started, at active_children() and at exit)
    child.process.join()
    assert child.process.exitcode == -signal.SIGKILL
    assert child.process not in multiprocessing.active_children()
    with pytest.raises(ChildProcessError):  # waited for: no zombie left
        os.waitpid(child.pid, os.WNOHANG)
