"""Hard time limits: work in a child process, killed at the deadline."""

from __future__ import annotations

import time

import pytest

from gossipcert import command_start as clock
from gossipcert.certificates import certificate
from gossipcert.closed_forms import best_lower_bound
from gossipcert.errors import SolverError
from gossipcert.instance import parse_instance
from gossipcert.search.entry import solve
from gossipcert.simulate import simulate
from gossipcert.watchdog import call_in_child, check_within, child_budget, solve_within


def _messages(send, k: int) -> int:
    for i in range(k):
        send(("message", i))
    return k * k


def _sleeper(send, seconds: float) -> str:
    send(("message", "started"))
    time.sleep(seconds)
    return "woke"


def _fails(send) -> None:
    raise SolverError("from the child")


def test_child_result_and_messages_arrive_in_order() -> None:
    got: list[int] = []
    assert call_in_child(_messages, (50,), None, got.append) == ("result", 2500)
    assert got == list(range(50))


def test_child_is_killed_at_the_deadline() -> None:
    got: list[str] = []
    kind, value = call_in_child(_sleeper, (60.0,), time.monotonic() + 0.5, got.append)
    assert (kind, value) == ("timeout", None)
    assert got == ["started"]  # what it reported before the kill is kept


def test_child_exception_is_raised_in_the_parent() -> None:
    with pytest.raises(SolverError, match="from the child"):
        call_in_child(_fails, (), None)


def test_child_budget_keeps_a_margin() -> None:
    assert child_budget(10.0) == pytest.approx(9.7)
    assert child_budget(1000.0) == pytest.approx(998.0)
    assert child_budget(0.0) == 0.0


def test_killed_search_answers_from_its_last_state(monkeypatch: pytest.MonkeyPatch) -> None:
    # the child ignores its own deadline (an unstoppable step): the parent must kill it
    monkeypatch.setattr("gossipcert.watchdog.child_budget", lambda t: 10_000.0)
    inst = parse_instance("debruijn:6", "telephone", "gossip")
    events: list[dict] = []
    t0 = time.monotonic()
    # 8 s: the bounds and the heuristic's schedule must arrive first, also on a loaded machine
    res = solve_within(inst, time_limit=8.0, proof=False, progress=events.append)
    assert time.monotonic() - t0 < 30  # killed, not run to the end (which takes hours)
    assert res.timed_out and not res.interrupted
    assert res.status == "feasible"
    # the closed-form bound, or a higher one that the search's quick pass refuted in time
    closed = best_lower_bound(inst).value
    assert res.lower_bound >= closed
    assert res.evidence["kind"] == ("closed-form" if res.lower_bound == closed else "solver-claim")
    rep = simulate(inst, res.schedule)
    assert rep.ok and rep.rounds == res.upper_bound
    assert any(e["event"] == "upper-bound" for e in events)


def test_solve_within_finishing_early_is_solve() -> None:
    inst = parse_instance("petersen", "telephone", "gossip")
    a = solve_within(inst, time_limit=120.0, proof=False)
    b = solve(inst, proof=False)
    assert (
        (a.status, a.optimum, a.lower_bound)
        == (b.status, b.optimum, b.lower_bound)
        == (
            "optimal",
            4,
            4,
        )
    )
    assert not a.timed_out


def test_time_limit_counts_from_the_command_start(monkeypatch: pytest.MonkeyPatch) -> None:
    # a command that already used its whole limit (imports) gets no search at all
    monkeypatch.setattr(clock, "COMMAND_START", time.monotonic() - 100.0)
    inst = parse_instance("debruijn:6", "telephone", "gossip")
    res = solve_within(inst, time_limit=50.0, proof=False)
    assert res.timed_out and res.status in ("feasible", "unknown")
    assert res.optimum is None


def test_check_killed_at_the_limit_is_no_verdict(monkeypatch: pytest.MonkeyPatch) -> None:
    def slow(cert, time_limit=None, full=False, on_step=None):
        time.sleep(60)

    monkeypatch.setattr(certificate, "check_certificate", slow)
    rep = check_within({"format": "x"}, 0.5)
    assert rep.status == "timeout" and not rep.ok


def test_check_killed_at_the_limit_keeps_the_steps_already_decided(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A check stopped at its limit printed only "no verdict" and dropped the steps that had
    held; they now come out of the worker as they are decided."""

    def part(cert, time_limit, out, full=False):
        out.add(True, "schedule verified")
        out.add(True, "CNF regenerated")
        time.sleep(60)

    monkeypatch.setattr(certificate, "_check", part)
    seen: list[str] = []
    rep = check_within({"format": "x"}, 1.0, on_step=lambda ok, text, claim: seen.append(text))
    assert seen == ["schedule verified", "CNF regenerated"]
    assert [t for _, t in rep.steps][:2] == seen and rep.status == "timeout"


def test_check_within_in_time_is_the_check() -> None:
    res = solve(parse_instance("ring:6", "telephone", "gossip"))
    cert = certificate.build_certificate(res)
    assert check_within(cert, 60.0).status == "holds"
    cert["optimum"] = 2
    assert check_within(cert, 60.0).status == "fails"


def test_evidence_without_a_source_is_printed_not_a_traceback() -> None:
    """A killed search's default evidence once lacked "source" and the console line raised."""
    from gossipcert.cli_text import evidence_text

    assert evidence_text({"kind": "closed-form", "name": "trivial", "value": 3}) == (
        "3 from the closed-form bound 'trivial'"
    )
