"""The Table 5 page of ``benchmarks/heuristics.py``: rows and ``--merge`` (a page in parts)."""

from __future__ import annotations

import importlib.util
import sys
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

import pytest

BENCH = Path(__file__).resolve().parent.parent / "benchmarks" / "heuristics_table5.py"


@pytest.fixture(scope="module")
def t5() -> ModuleType:
    spec = importlib.util.spec_from_file_location("heuristics_table5", BENCH)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("heuristics_table5", module)
    spec.loader.exec_module(module)
    return module


@dataclass(frozen=True)
class FakeRow:
    spec: str
    name: str
    lower: int | None
    upper: int | None
    heuristic: int | None


ORDER = ["ccc 3", "ccc 4", "butterfly 3"]


def _row(t5: ModuleType, name: str, ours: str) -> str:
    cells = [name, "24", "36", "7", "10", "7", ours, ours, ours, "yes", "x", "1 / 1 (1)", "1 / 1"]
    assert len(cells) == t5.HEAD.count("|") - 1
    return "| " + " | ".join(cells) + " |"


def _old_page(t5: ModuleType, path: Path) -> None:
    """A page with one run, rows for ccc 4 and butterfly 3, and a history table."""
    lines = t5.page(
        ["- `benchmarks/heuristics.py table5 --rows ccc:4,butterfly:3` at abc: 2 rows"],
        {"butterfly 3": _row(t5, "butterfly 3", "6"), "ccc 4": _row(t5, "ccc 4", "9")},
        ORDER,
        [
            "## Notes",
            "note",
            "## History",
            "",
            "| graph | n |",
            "|---|---|",
            "| ccc 3 | 24 |",
            "old",
        ],
    )
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def test_read_page_splits_runs_rows_history(t5: ModuleType, tmp_path: Path) -> None:
    page = tmp_path / "t5.md"
    _old_page(t5, page)
    runs, rows, history = t5.read_page(page)
    assert runs == ["- `benchmarks/heuristics.py table5 --rows ccc:4,butterfly:3` at abc: 2 rows"]
    # the history's table row for ccc 3 is not a row of the current table
    assert sorted(rows) == ["butterfly 3", "ccc 4"]
    assert history[:3] == ["## Notes", "note", "## History"]
    assert history[3:] == ["", "| graph | n |", "|---|---|", "| ccc 3 | 24 |", "old"]


@pytest.mark.parametrize("merge", [True, False])
def test_build_merges_rows_runs_and_keeps_history(
    t5: ModuleType, tmp_path: Path, merge: bool
) -> None:
    page = tmp_path / "t5.md"
    _old_page(t5, page)
    rows = [FakeRow("ccc:3", "ccc 3", 7, 10, 7), FakeRow("ccc:4", "ccc 4", 9, 10, 9)]
    lines = t5.build(
        rows, ORDER, "table5 --rows ccc:3,ccc:4", page, merge, lambda r: _row(t5, r.name, "5")
    )
    assert page.read_text(encoding="utf-8").splitlines() == lines
    runs, got, history = t5.read_page(page)
    assert got["ccc 3"] == _row(t5, "ccc 3", "5")
    assert got["ccc 4"] == _row(t5, "ccc 4", "5")  # the new row replaced the old one
    table = [line for line in lines if line.startswith("| ") and line.split("|")[1].strip()]
    if merge:
        assert got["butterfly 3"] == _row(t5, "butterfly 3", "6")  # not run now: kept
        assert len(runs) == 2 and runs[0].endswith("at abc: 2 rows")
        assert history[:2] == ["## Notes", "note"] and history[-1] == "old"
        # rows in the family order, then the history's own table
        names = [line.split("|")[1].strip() for line in table]
        assert names[:4] == ["graph", "ccc 3", "ccc 4", "butterfly 3"]
    else:
        assert sorted(got) == ["ccc 3", "ccc 4"]
        assert len(runs) == 1 and history == []
    assert "table5 --rows ccc:3,ccc:4" in runs[-1] and runs[-1].endswith("s CPU")
    assert ": 2 rows," in runs[-1]


def test_row_marks_beats_and_takes_the_better(t5: ModuleType) -> None:
    row = FakeRow("ccc:3", "ccc 3", 5, 10, 8)
    line = t5.table5_row(
        row,
        1.0,
        1.0,
        1000,
        run_matching=lambda spec, budget, lower: (9, "flow", "0.1 / 0.1 (1)"),
        run_coloring=lambda spec, budget, lower: (7, "coloring pruning 1,0,0", "0.2 / 0.2"),
    )
    cells = [c.strip() for c in line.split("|")[1:-1]]
    assert cells[6:11] == ["9", "**7**", "**7**", "yes", "coloring pruning 1,0,0"]
    # over the matching limit: the coloring heuristic alone, its number counted
    line = t5.table5_row(
        row,
        1.0,
        1.0,
        10,
        run_matching=lambda spec, budget, lower: pytest.fail("the sweep must not run"),
        run_coloring=lambda spec, budget, lower: (9, "coloring dive", "0.2 / 0.2"),
    )
    cells = [c.strip() for c in line.split("|")[1:-1]]
    assert cells[6:10] == ["not run (n > 10)", "9", "9", "no"]


def test_real_row_ccc3_reaches_the_optimum(t5: ModuleType) -> None:
    # CCC 3 gossips in 7 rounds (the paper's lower bound); the coloring heuristic finds
    # such a sequence, the matching sweep does not (9 rounds), and both are verified
    line = t5.table5_row(FakeRow("ccc:3", "ccc 3", 7, 10, 7), 2.0, 5.0, 1000)
    cells = [c.strip() for c in line.split("|")[1:-1]]
    assert cells[:6] == ["ccc 3", "24", "36", "7", "10", "7"]
    assert int(cells[6]) >= 7 and cells[7:10] == ["7", "7", "yes"]
