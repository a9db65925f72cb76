"""The first proof after an install compiles the numba kernels (tens of seconds): a search
says so on its progress stream first, once, and not when their compiled code is cached."""

from __future__ import annotations

import types

import numba
import pytest

from gossipcert.instance import parse_instance
from gossipcert.proofs import fixpoint, kernel_notice, lrat_compiled, lrat_kernels
from gossipcert.proofs.lrat_solver import compiled_available
from gossipcert.search.entry import solve

KERNELS = [lrat_kernels, lrat_compiled, fixpoint]


def _stages(monkeypatch: pytest.MonkeyPatch, cached: bool) -> list[dict[str, object]]:
    monkeypatch.setattr(kernel_notice, "kernels_cached", lambda modules: cached)
    compiled_available.cache_clear()  # as in a new process
    events: list[dict[str, object]] = []
    try:
        res = solve(parse_instance("ring:5", "half-duplex", "gossip"), progress=events.append)
    finally:
        compiled_available.cache_clear()
    assert res.status == "optimal" and res.evidence["kind"] == "drat"  # a proof was made
    return events


def test_a_search_says_it_compiles_the_kernels_before_its_proof(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    events = _stages(monkeypatch, cached=False)
    said = [i for i, e in enumerate(events) if e.get("what") == kernel_notice.NOTICE]
    proof = [i for i, e in enumerate(events) if e["event"] == "proof"]
    assert len(said) == 1 and events[said[0]]["event"] == "stage"
    assert said[0] < proof[0]


def test_nothing_is_said_when_they_are_cached(monkeypatch: pytest.MonkeyPatch) -> None:
    events = _stages(monkeypatch, cached=True)
    assert all(e.get("what") != kernel_notice.NOTICE for e in events)


def test_the_cache_probe() -> None:
    assert compiled_available()  # numba is a dependency: the kernels load
    solve(parse_instance("ring:5", "half-duplex", "gossip"))  # their code is on disk now
    assert kernel_notice.kernels_cached(KERNELS)

    @numba.njit(cache=False)
    def never_cached(x: int) -> int:  # pragma: no cover - compiled, not traced
        return x + 1

    assert never_cached(1) == 2
    module = types.ModuleType("uncached")
    module.kernel = never_cached  # type: ignore[attr-defined]
    assert not kernel_notice.kernels_cached([module])
