"""Conflict-budget slices of the CaDiCaL back-end: fixed one-second slices by default,
doubling slices where a watchdog enforces the time limit."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from gossipcert.exact import backends


class FakeSolver:
    """A solver that never answers and spends one (fake) second per 10,000 conflicts."""

    def __init__(self, clock: list[float], answer_after: float | None = None) -> None:
        self.clock = clock
        self.answer_after = answer_after
        self.budgets: list[int] = []
        self.slices: list[float] = []

    def conf_budget(self, budget: int) -> None:
        self.budgets.append(budget)

    def solve_limited(self, assumptions: list[int]) -> bool | None:
        del assumptions
        spent = self.budgets[-1] / 10_000
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
    assert backends.solve_sliced(solver, [], None) is True  # type: ignore[arg-type]
    assert len(solver.budgets) <= 10


def _long_slices_on(send: object) -> bool:
    del send
    return backends._long_slices


def test_the_watchdog_child_allows_long_slices() -> None:
    import time

    from gossipcert.exact.watchdog import call_in_child

    assert call_in_child(_long_slices_on, (), time.monotonic() + 30) == ("result", True)
    assert call_in_child(_long_slices_on, (), None) == ("result", False)
    assert backends._long_slices is False  # the parent keeps its one-second slices
