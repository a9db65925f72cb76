"""One horizon of the allreduce search decided by the union relaxation and the exact model:
raced in two children on two cores, one after the other on one, with the same answers; the
children gone at the deadline."""

from __future__ import annotations

import os
import time
from typing import Any

import pytest

from gossipcert.children import Child, may_fan_out
from gossipcert.instance import parse_instance
from gossipcert.parallel import local_map
from gossipcert.search import allreduce_exact as allreduce
from gossipcert.simulate import simulate
from tests.test_allreduce_cut import atlas_instance


@pytest.mark.parametrize("race", [True, False])
@pytest.mark.parametrize(
    ("graph", "model", "problem", "rounds", "expected"),
    [
        # 12 rounds: the relaxation is refuted (its proof checked); 13: a schedule
        ("path:3", "single-port", "allreduce:chunks=2", 12, "refuted"),
        ("path:3", "single-port", "allreduce:chunks=2", 13, "found"),
        ("path:4", "all-port", "allreduce", 5, "refuted"),
        ("path:4", "all-port", "allreduce", 6, "found"),
        ("ring:4", "telephone:p=1", "reduce-scatter", 3, "found"),
    ],
)
def test_decide(
    monkeypatch: pytest.MonkeyPatch,
    race: bool,
    graph: str,
    model: str,
    problem: str,
    rounds: int,
    expected: str,
) -> None:
    monkeypatch.setattr(allreduce, "may_fan_out", lambda: race)
    inst = parse_instance(graph, model, problem)
    relaxed, record, status, schedule = allreduce.decide(inst, rounds, time.monotonic() + 120)
    if expected == "refuted":
        assert relaxed == "unsat" and record is not None and schedule is None
        assert record["formula"] == "union" and record["checkers"]
    else:
        assert status == "sat" and schedule is not None
        report = simulate(inst, schedule)
        assert report.ok and report.rounds is not None and report.rounds <= rounds
        if not race:
            assert relaxed == "sat"  # the relaxation first, on one core


def test_race_stops_at_the_deadline_and_leaves_no_child(monkeypatch: pytest.MonkeyPatch) -> None:
    # atlas 40, single-port, two chunks a node, 21 rounds: minutes for either model
    monkeypatch.setattr(allreduce, "may_fan_out", lambda: True)
    started: list[Child] = []

    def child(*args: Any) -> Child:
        started.append(Child(*args))
        return started[-1]

    monkeypatch.setattr(allreduce, "Child", child)
    inst = atlas_instance(40, "single-port:p=1", 2)
    start = time.monotonic()
    out = allreduce.decide(inst, 21, time.monotonic() + 1.0)
    assert out == ("unknown", None, "unknown", None)
    assert time.monotonic() - start < 10
    assert len(started) == 2
    for c in started:  # killed and reaped: no such process any more
        with pytest.raises(ProcessLookupError):
            os.kill(c.pid, 0)


def test_pool_workers_do_not_race() -> None:
    # a sweep's workers share the cores: each decides a horizon on its own one
    assert dict(local_map(lambda _: may_fan_out(), [0, 1], workers=2)) == {
        0: False,
        1: False,
    }


@pytest.mark.parametrize("threads", [1, 2])
def test_dask_workers_of_several_threads_do_not_race(threads: int) -> None:
    distributed = pytest.importorskip("dask.distributed")
    with (
        distributed.LocalCluster(
            n_workers=1, threads_per_worker=threads, processes=False, dashboard_address=None
        ) as cluster,
        distributed.Client(cluster) as client,
    ):
        answer = client.submit(may_fan_out, pure=False).result()
    # a worker of one thread races when the machine has two cores; of two, its tasks share
    assert answer == (threads == 1 and len(os.sched_getaffinity(0)) >= 2)
    assert may_fan_out() == (len(os.sched_getaffinity(0)) >= 2)  # outside the task: as before


def test_a_child_that_dies_does_not_lose_the_horizon(monkeypatch: pytest.MonkeyPatch) -> None:
    # the exact model's child ends without an answer: the horizon is decided in turn here
    monkeypatch.setattr(allreduce, "may_fan_out", lambda: True)
    monkeypatch.setattr(allreduce, "_find_in_child", lambda *args: os._exit(1))
    inst = parse_instance("path:3", "single-port", "allreduce:chunks=2")
    relaxed, _, status, schedule = allreduce.decide(inst, 13, time.monotonic() + 120)
    assert (relaxed, status) == ("sat", "sat") and schedule is not None
    assert simulate(inst, schedule).ok


def test_the_free_core_runs_a_second_search(monkeypatch: pytest.MonkeyPatch) -> None:
    # the relaxation is satisfiable at 13 rounds; the search with family 7 is held back, so
    # the schedule comes from the second search, started on the relaxation's core
    monkeypatch.setattr(allreduce, "may_fan_out", lambda: True)
    real = allreduce._find_in_child

    def find(send: Any, instance: Any, rounds: int, symmetry: bool) -> Any:
        if symmetry:
            time.sleep(120)
        return real(send, instance, rounds, symmetry)

    started: list[tuple[Any, ...]] = []

    def child(fn: Any, args: tuple[Any, ...], *rest: Any) -> Child:
        started.append(args)
        return Child(fn, args, *rest)

    monkeypatch.setattr(allreduce, "_find_in_child", find)
    monkeypatch.setattr(allreduce, "Child", child)
    inst = parse_instance("path:3", "single-port", "allreduce:chunks=2")
    relaxed, _, status, schedule = allreduce.decide(inst, 13, time.monotonic() + 60)
    assert (relaxed, status) == ("skipped", "sat") and schedule is not None
    assert simulate(inst, schedule).ok
    assert [a[-1] for a in started] == [False, True, False]  # strict, then the two searches


def _relaxation_satisfiable(send: Any, instance: Any, rounds: int, strict: bool) -> Any:
    return ("sat", None)


def _slow_with_family_7(send: Any, instance: Any, rounds: int, symmetry: bool) -> Any:
    time.sleep(30 if symmetry else 0.5)
    return ("unsat", None)


def test_the_first_search_to_answer_ends_the_other(monkeypatch: pytest.MonkeyPatch) -> None:
    # stubbed children: the second search says "unsat" at once, the first would take 30 s
    monkeypatch.setattr(allreduce, "may_fan_out", lambda: True)
    monkeypatch.setattr(allreduce, "_union_in_child", _relaxation_satisfiable)
    monkeypatch.setattr(allreduce, "_find_in_child", _slow_with_family_7)
    inst = parse_instance("path:3", "single-port", "allreduce:chunks=2")
    start = time.monotonic()
    assert allreduce.decide(inst, 13, time.monotonic() + 60) == ("sat", None, "unsat", None)
    assert time.monotonic() - start < 10


def test_a_dead_relaxation_after_an_unsat_search_is_not_solved_again(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # the exact model answered "unsat"; the relaxation's child died: the caller proves the
    # exact model's refutation, nothing is decided twice
    monkeypatch.setattr(allreduce, "may_fan_out", lambda: True)
    monkeypatch.setattr(allreduce, "_union_in_child", lambda *args: os._exit(1))
    monkeypatch.setattr(allreduce, "_find_in_child", lambda *args: ("unsat", None))
    monkeypatch.setattr(allreduce, "_in_turn", lambda *args: pytest.fail("decided again"))
    inst = parse_instance("path:3", "single-port", "allreduce:chunks=2")
    assert allreduce.decide(inst, 13, time.monotonic() + 60) == ("unknown", None, "unsat", None)


def _both_searches_at_once(send: Any, instance: Any, rounds: int, symmetry: bool) -> Any:
    time.sleep(1.0)  # the relaxation answers first; then both searches answer together
    return ("unsat", None)


def test_two_searches_answering_together(monkeypatch: pytest.MonkeyPatch) -> None:
    # the second search is reaped while its answer is ready too: it is not read again
    monkeypatch.setattr(allreduce, "may_fan_out", lambda: True)
    monkeypatch.setattr(allreduce, "_union_in_child", _relaxation_satisfiable)
    real = allreduce.ready

    def ready(children: Any, until: Any) -> Any:
        found = real(children, until)
        if len(found) == 1 and len(children) == 3 and not found[0].done:
            time.sleep(1.5)  # let the other search answer too, then report both
            found = real(children, until)
        return found

    monkeypatch.setattr(allreduce, "_find_in_child", _both_searches_at_once)
    monkeypatch.setattr(allreduce, "ready", ready)
    inst = parse_instance("path:3", "single-port", "allreduce:chunks=2")
    for _ in range(3):
        assert allreduce.decide(inst, 13, time.monotonic() + 60) == ("sat", None, "unsat", None)
