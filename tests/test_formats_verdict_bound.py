"""The verdict's bracket: a valid algorithm that fits the model is an upper bound."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from gossipcert.formats import verdict as verdict_module
from gossipcert.formats.verdict import verify_algorithm
from gossipcert.formats.writers import msccl_xml_from_schedule
from gossipcert.instance import parse_instance
from gossipcert.schedule import Schedule, Transmission

N = 5


@pytest.fixture
def one_way(tmp_path):
    """A one-way ring allgather on ring:5: valid, N - 1 = 4 rounds."""
    instance = parse_instance(f"ring:{N}", "all-port", "gossip")
    schedule = Schedule(
        tuple(
            tuple(Transmission(r, ((r + 1) % N,), 1 << ((r - t) % N)) for r in range(N))
            for t in range(N - 1)
        )
    )
    path = tmp_path / "one-way.xml"
    path.write_text(msccl_xml_from_schedule(schedule, instance))
    return str(path)


def _stub(monkeypatch, lower, upper):
    """The search stopped at the bracket [lower, upper] (upper None: no schedule found)."""

    def fake(instance, time_limit=None):
        status = "feasible" if upper is not None else "unknown"
        fields = {"status": status, "certified": False, "decided_by_solver": False}
        fields.update(optimum=None, lower_bound=lower, upper_bound=upper)
        return SimpleNamespace(
            status=status,
            status_fields=lambda: fields,
            optimum=None,
            certified=False,
            lower_bound=lower,
            upper_bound=upper,
            evidence={"kind": "closed-form", "name": "diameter"},
            upper_source="composition",
            timed_out=True,
        )

    monkeypatch.setattr(verdict_module, "solve_within", fake)


@pytest.mark.parametrize("upper", [60, None])
def test_algorithm_is_the_upper_end(monkeypatch, one_way, upper):
    _stub(monkeypatch, 2, upper)
    verdict = verify_algorithm(one_way, topology=f"ring:{N}", time_limit=1)
    opt = verdict.optimum
    assert verdict.valid and verdict.fits and verdict.rounds == N - 1
    assert (opt["lower_bound"], opt["upper_bound"]) == (2, N - 1)
    assert opt["upper_source"] == "this algorithm (valid, fits all-port)"
    assert opt["lower_source"] == "closed-form: diameter"
    assert opt["optimum"] is None
    assert verdict.gap() == {"at_most": N - 1 - 2, "at_least": 0}


def test_search_upper_end_kept_when_lower(monkeypatch, one_way):
    _stub(monkeypatch, 2, 3)
    opt = verify_algorithm(one_way, topology=f"ring:{N}", time_limit=1).optimum
    assert opt["upper_bound"] == 3
    assert opt["upper_source"] == "gossipcert's search (composition)"


def test_algorithm_closes_the_bracket(monkeypatch, one_way):
    _stub(monkeypatch, N - 1, 60)
    verdict = verify_algorithm(one_way, topology=f"ring:{N}", time_limit=1)
    assert verdict.optimum["status"] == "optimal" and verdict.optimum["optimum"] == N - 1
    assert verdict.optimum["certified"] is False
    assert verdict.gap() == {"exact": 0}


def test_no_bound_from_an_algorithm_that_does_not_fit(monkeypatch, one_way):
    # on a path the links N-1 -> 0 are missing: the algorithm is no schedule there
    _stub(monkeypatch, 2, 60)
    verdict = verify_algorithm(one_way, topology=f"path:{N}", time_limit=1)
    assert not verdict.fits
    assert verdict.optimum["upper_bound"] == 60
    assert verdict.optimum["upper_source"] == "gossipcert's search (composition)"
