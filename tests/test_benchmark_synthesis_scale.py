"""``benchmarks/synthesis_scale.py``: its rows on the DGX-2 are the certified optima (one GPU
receives ``15 C`` chunks through its NVSwitch port, none in the first round)."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

import pytest

BENCH = Path(__file__).resolve().parent.parent / "benchmarks" / "synthesis_scale.py"


@pytest.fixture(scope="module")
def scale() -> ModuleType:
    spec = importlib.util.spec_from_file_location("synthesis_scale", BENCH)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_dgx2_rows(scale: ModuleType) -> None:
    lines = scale.run(("dgx2",), 120.0)
    rows = [[c.strip() for c in ln.strip("|").split("|")] for ln in lines[2:]]
    assert [(r[2], r[3], r[4]) for r in rows] == [
        ("AllGather", "1", "**16** (certified)"),
        ("AllGather", "2", "**31** (certified)"),
        ("AlltoAll", "1", "**16** (certified)"),
        ("AlltoAll", "2", "**31** (certified)"),
    ]
    assert all(r[5] == "closed-form: cut" and r[1] == "16" for r in rows)
