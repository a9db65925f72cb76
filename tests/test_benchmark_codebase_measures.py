"""``benchmarks/codebase_measures.py``: the sizes it reports are those of the source it reads
(functions from ``def`` to their last line, nested ones and methods each counted), process
handling is found by what a module does, and a git revision is measured from its own tree."""

from __future__ import annotations

import ast
import importlib.util
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

BENCH = Path(__file__).resolve().parent.parent / "benchmarks" / "codebase_measures.py"

SOURCE = '''"""A module."""


def outer(x: int) -> int:
    def inner(y: int) -> int:
        return y

    return inner(x)


class Thing:
    def method(self) -> None:
        pass
'''


@pytest.fixture(scope="module")
def measures() -> ModuleType:
    spec = importlib.util.spec_from_file_location("codebase_measures", BENCH)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["codebase_measures"] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def test_function_lengths(measures: ModuleType) -> None:
    found = measures._functions("m.py", ast.parse(SOURCE))
    assert found == {"m.py:outer": 5, "m.py:outer.inner": 2, "m.py:Thing.method": 2}


def test_process_handling_is_found_by_what_a_module_does(measures: ModuleType) -> None:
    sources = {
        "children.py": "x = 1\n",  # named by the issue: counted whatever it holds
        "pool.py": "import os\n\n\ndef f() -> int:\n    return os.fork()\n",
        "futures.py": "from concurrent.futures import ProcessPoolExecutor\n",
        "plain.py": "import os\n",
    }
    assert measures._process_lines(sources) == {"children.py": 1, "pool.py": 5, "futures.py": 1}


def test_a_revision_is_read_from_its_own_tree(measures: ModuleType, tmp_path: Path) -> None:
    root, label = measures._checkout("HEAD", tmp_path)
    assert label.startswith("HEAD (") and root.parent == tmp_path
    listed = subprocess.run(
        ["git", "-C", str(BENCH.parents[1]), "ls-tree", "-r", "--name-only", "HEAD", "gossipcert/"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    expected = sorted(n.removeprefix("gossipcert/") for n in listed if n.endswith(".py"))
    assert sorted(measures._sources(root)) == expected
