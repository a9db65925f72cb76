"""Conflict-budget slices of the CaDiCaL back-end: fixed one-second slices by default,
doubling slices where a watchdog enforces the time limit."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from gossipcert.solvers import backends


class FakeSolver:
    """A solver that never answers and spends one (fake) second per ``rate`` conflicts."""

    def __init__(
        self, clock: list[float], answer_after: float | None = None, rate: float = 10_000
    ) -> None:
        self.clock = clock
        self.answer_after = answer_after
        self.rate = rate
        self.budgets: list[int] = []
        self.slices: list[float] = []

    def conf_budget(self, budget: int) -> None:
        self.budgets.append(budget)

    def solve_limited(self, assumptions: list[int]) -> bool | None:
        del assumptions
        spent = self.budgets[-1] / self.rate
        if self.answer_after is not None and self.clock[0] + spent >= self.answer_after:
            self.clock[0] = self.answer_after
            return True
        self.clock[0] += spent
        self.slices.append(spent)
        return None


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[float]]:
    now = [0.0]
    monkeypatch.setattr(backends.time, "monotonic", lambda: now[0])
    yield now
    backends.allow_long_slices(False)


def test_default_slices_stay_near_one_second(clock: list[float]) -> None:
    solver = FakeSolver(clock)
    assert backends.solve_sliced(solver, [], 100.0) is None  # type: ignore[arg-type]
    assert clock[0] >= 100.0
    assert max(solver.slices) <= 2 * backends.SLICE_SECONDS
    assert len(solver.slices) >= 50


def test_long_slices_double_up_to_the_time_left(clock: list[float]) -> None:
    backends.allow_long_slices()
    solver = FakeSolver(clock)
    ticks: list[float] = []
    assert backends.solve_sliced(solver, [], 100.0, lambda: ticks.append(clock[0])) is None  # type: ignore[arg-type]
    # the first slice (20,000 conflicts), then 2, 4, 8, 16, 32 seconds, then the time left
    assert solver.slices == pytest.approx([2.0, 2.0, 4.0, 8.0, 16.0, 32.0, 36.0])
    assert clock[0] == pytest.approx(100.0, abs=1.0)
    assert len(ticks) == len(solver.slices)


def test_long_slices_return_the_answer(clock: list[float]) -> None:
    backends.allow_long_slices()
    solver = FakeSolver(clock, answer_after=50.0)
    assert backends.solve_sliced(solver, [], 100.0) is True  # type: ignore[arg-type]
    assert clock[0] == 50.0
    assert len(solver.budgets) <= 6


def test_without_deadline_slices_keep_doubling(clock: list[float]) -> None:
    backends.allow_long_slices()
    solver = FakeSolver(clock, answer_after=1000.0)
    ticks: list[float] = []
    assert backends.solve_sliced(solver, [], None, lambda: ticks.append(clock[0])) is True  # type: ignore[arg-type]
    assert len(solver.budgets) <= 10 and len(ticks) == len(solver.budgets) - 1


class WholeSolver(FakeSolver):
    """Answers in one call to ``solve``, after ``answer_after`` (fake) seconds."""

    def solve(self, assumptions: list[int]) -> bool:
        del assumptions
        self.clock[0] = self.answer_after or 0.0
        return True


def test_killed_from_outside_with_nothing_to_report_one_call(clock: list[float]) -> None:
    # a forked child its parent kills at the parent's deadline: no deadline, no ticks, so
    # nothing to slice for (CaDiCaL keeps its search whole)
    backends.allow_long_slices()
    solver = WholeSolver(clock, answer_after=1000.0)
    assert backends.solve_sliced(solver, [], None) is True  # type: ignore[arg-type]
    assert solver.budgets == [] and clock[0] == 1000.0
    # by default, or with a deadline, it slices
    backends.allow_long_slices(False)
    solver = WholeSolver(clock, answer_after=2000.0)
    assert backends.solve_sliced(solver, [], None) is True  # type: ignore[arg-type]
    assert solver.budgets


class LargeFakeSolver(FakeSolver):
    """A 2.18-million-clause formula (butterfly:10 broadcast at 16 rounds) at 67 conflicts a
    second: a first slice of 20,000 conflicts would last 300 s."""

    def __init__(self, clock: list[float]) -> None:
        super().__init__(clock, rate=67.0)

    def nof_clauses(self) -> int:
        return 2_180_000


@pytest.mark.parametrize("long_slices", [False, True])
def test_a_probe_on_a_large_formula_stops_in_time(clock: list[float], long_slices: bool) -> None:
    backends.allow_long_slices(long_slices)
    solver = LargeFakeSolver(clock)
    assert backends.FIRST_BUDGET / solver.rate > 35.0  # the old fixed first slice overshoots
    assert backends.solve_sliced(solver, [], 30.0) is None  # type: ignore[arg-type]
    assert 30.0 <= clock[0] <= 30.0 + max(5.0, 0.05 * 30.0)
    assert solver.budgets[0] == backends.first_budget(2_180_000)
    assert solver.slices[0] <= 2 * backends.SLICE_SECONDS


def test_the_next_call_starts_from_the_measured_rate(clock: list[float]) -> None:
    solver = LargeFakeSolver(clock)
    assert backends.solve_sliced(solver, [], 10.0) is None  # type: ignore[arg-type]
    first = len(solver.budgets)
    assert backends.solve_sliced(solver, [], 20.0) is None  # type: ignore[arg-type]
    # 67 conflicts a second, one-second slices: the second call starts at 67, not at 22
    assert solver.budgets[first] == 67
    assert clock[0] <= 21.0


def test_first_budget_shrinks_with_the_formula() -> None:
    assert backends.first_budget(None) == backends.FIRST_BUDGET
    assert backends.first_budget(10) == backends.FIRST_BUDGET
    sizes = [10_000, 100_000, 1_000_000, 5_000_000, 10**9]
    budgets = [backends.first_budget(c) for c in sizes]
    assert budgets == sorted(budgets, reverse=True)
    assert budgets[-1] == backends.MIN_BUDGET
    # at the estimated speed, every first slice lasts at most about a second
    for c, b in zip(sizes[:-1], budgets[:-1], strict=True):
        assert b * c / backends.FIRST_SLICE_WORK <= backends.SLICE_SECONDS * 1.01


def _long_slices_on(send: object) -> bool:
    del send
    return backends._long_slices


def test_the_watchdog_child_allows_long_slices() -> None:
    import time

    from gossipcert.children import call_in_child

    # what the watchdog's children (a search or a check killed at the limit) are started with
    on = backends.allow_long_slices
    assert call_in_child(_long_slices_on, (), time.monotonic() + 30, in_child=on) == (
        "result",
        True,
    )
    assert call_in_child(_long_slices_on, (), None) == ("result", False)
    assert backends._long_slices is False  # the parent keeps its one-second slices
