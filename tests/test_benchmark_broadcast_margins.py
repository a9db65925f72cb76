"""``benchmarks/broadcast_margins.py``: the margins it prints refute exactly the horizons
under the optimum (de Bruijn 5, broadcast from node 0, optimum 6)."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

import pytest

BENCH = Path(__file__).resolve().parent.parent / "benchmarks" / "broadcast_margins.py"


@pytest.fixture(scope="module")
def margins() -> ModuleType:
    spec = importlib.util.spec_from_file_location("broadcast_margins", BENCH)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _rows(text: str) -> list[list[str]]:
    lines = [ln for ln in text.splitlines() if ln.startswith("| ") and ln[2].isdigit()]
    return [[c.strip() for c in ln.strip("|").split("|")] for ln in lines]


def _refuted(rows: list[list[str]]) -> bool:
    """Some threshold's walk or sibling side is below its need."""
    return any(
        int(walks) < int(need) or (sib != "-" and int(sib) < int(need))
        for _, need, walks, _, sib, *_ in rows
    )


def test_margins_refute_below_the_optimum_only(
    margins: ModuleType, capsys: pytest.CaptureFixture[str]
) -> None:
    margins.main(["debruijn:5", "5", "--ratio", "10"])
    below = _rows(capsys.readouterr().out)
    margins.main(["debruijn:5", "6", "--ratio", "10"])
    at = _rows(capsys.readouterr().out)
    assert _refuted(below) and not _refuted(at)
    # the needs are the nodes at distance >= d from node 0: 31 non-sources at d = 1
    assert [r[1] for r in at if r[0] == "1"] == ["31"]
    # the sibling side never exceeds the walk side
    assert all(int(r[4]) <= int(r[2]) for r in below + at if r[4] != "-")
