"""Measures of the code base that anyone can rerun, for one tree or several side by side.

Usage: .venv/bin/python benchmarks/codebase_measures.py [--runs 5] [TREE_OR_REV ...]

(Run it with the Python of the project's ``.venv``: the trees are run with that
environment's libraries.)

Each argument is a checkout's root (a folder holding ``gossipcert/``) or a git revision of
this repository (``main``, ``HEAD~3``, a commit), which is extracted with ``git archive``
into a temporary folder; the default is this checkout. For each it prints:

- the largest module and the largest function (lines, from :mod:`ast`: a function counts
  from its ``def`` to its last line, docstring included), and how many modules are over
  600 lines and functions over 100;
- the lines of process handling: ``children.py``, ``parallel.py``, ``watchdog.py``
  (``search/watchdog.py`` in trees before it moved) and every other module that forks or
  starts processes (``os.fork``, ``multiprocessing``, ``concurrent.futures``' process pools,
  ``loky``, ``pebble``), each named;
- the kind comparisons outside ``gossipcert/models/`` (``benchmarks/model_kinds.py``, the
  same counter for every tree: generic ones and those that state a paper's result);
- ``gossipcert solve path:4 --problem broadcast:0``: the median wall and CPU (user + system)
  seconds over ``--runs`` fresh processes, each tree run as ``python -m gossipcert`` with the
  tree first on ``PYTHONPATH`` and its bytecode compiled first (a fresh process otherwise
  compiles every module it imports, which an installed package does not);
- ``python -X importtime`` of that command: the total, and the ten packages whose modules
  take the most time of their own (``self``), summed.

Times depend on the machine and its load: compare trees measured in one run.
"""

from __future__ import annotations

import argparse
import ast
import compileall
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from model_kinds import count as count_kind_tests

REPO = Path(__file__).resolve().parents[1]
COMMAND = ["solve", "path:4", "--problem", "broadcast:0"]
#: modules named by the issue as the process handling, and the calls that start processes
PROCESS_MODULES = ("children.py", "parallel.py", "watchdog.py", "search/watchdog.py")
PROCESS_MARKERS = (
    "os.fork",
    "import multiprocessing",
    "from multiprocessing",
    "ProcessPoolExecutor",
    "import loky",
    "from loky",
    "import pebble",
    "from pebble",
)
MODULE_LIMIT, FUNCTION_LIMIT = 600, 100


@dataclass
class Measures:
    """What :func:`measure` found in one tree."""

    label: str
    modules: dict[str, int] = field(default_factory=dict)
    functions: dict[str, int] = field(default_factory=dict)
    process: dict[str, int] = field(default_factory=dict)
    kinds: tuple[int, int] = (0, 0)
    wall: float = 0.0
    cpu: float = 0.0
    import_total: float = 0.0
    import_top: list[tuple[str, float]] = field(default_factory=list)


def _functions(path: str, tree: ast.Module) -> dict[str, int]:
    """Lines of every function and method of a module, by ``path:qualified name``."""
    found: dict[str, int] = {}

    def visit(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef):
                name = f"{prefix}{child.name}"
                end = child.end_lineno or child.lineno
                found[f"{path}:{name}"] = end - child.lineno + 1
                visit(child, f"{name}.")
            elif isinstance(child, ast.ClassDef):
                visit(child, f"{prefix}{child.name}.")
            else:
                visit(child, prefix)

    visit(tree, "")
    return found


def _sources(root: Path) -> dict[str, str]:
    package = root / "gossipcert"
    return {
        str(p.relative_to(package)): p.read_text()
        for p in sorted(package.rglob("*.py"))
        if "__pycache__" not in p.parts
    }


def _process_lines(sources: dict[str, str]) -> dict[str, int]:
    """Lines of each module that handles processes (see the module docstring)."""
    return {
        path: len(text.splitlines())
        for path, text in sources.items()
        if path in PROCESS_MODULES or any(m in text for m in PROCESS_MARKERS)
    }


def _run(root: Path, args: list[str]) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPATH"] = str(root)
    # run in the tree: ``-m`` puts the working folder first on the path, before PYTHONPATH
    return subprocess.run(
        [sys.executable, *args], capture_output=True, text=True, env=env, check=True, cwd=root
    )


def _timed(root: Path) -> tuple[float, float]:
    """Wall and CPU seconds of one run of the command in a fresh process."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPATH"] = str(root)
    start = time.perf_counter()
    child = subprocess.Popen(
        [sys.executable, "-m", "gossipcert", *COMMAND],
        env=env,
        cwd=root,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    _, status, usage = os.wait4(child.pid, 0)
    wall = time.perf_counter() - start
    child.returncode = os.waitstatus_to_exitcode(status)
    if child.returncode != 0:
        raise SystemExit(f"{root}: the command failed ({child.returncode})")
    return wall, usage.ru_utime + usage.ru_stime


def _import_times(root: Path) -> tuple[float, list[tuple[str, float]]]:
    """Total import seconds of the command, and the ten packages of most self time."""
    out = _run(root, ["-X", "importtime", "-m", "gossipcert", *COMMAND])
    own: Counter[str] = Counter()
    for line in out.stderr.splitlines():
        if not line.startswith("import time:") or "self [us]" in line:
            continue
        self_us, _, name = line.split(":", 1)[1].split("|")
        own[name.strip().split(".")[0]] += int(self_us)
    return sum(own.values()) / 1e6, [(k, v / 1e6) for k, v in own.most_common(10)]


def measure(root: Path, label: str, runs: int) -> Measures:
    """Every measure of the module docstring for the checkout at ``root``."""
    found = Measures(label)
    sources = _sources(root)
    for path, text in sources.items():
        found.modules[path] = len(text.splitlines())
        found.functions.update(_functions(path, ast.parse(text)))
    found.process = _process_lines(sources)
    tests = count_kind_tests(iter(sources.items()))
    generic = sum(t.group == "generic" for t in tests)
    found.kinds = (generic, len(tests) - generic)
    compileall.compile_dir(root / "gossipcert", quiet=1)
    ran = _run(root, ["-c", "import gossipcert; print(gossipcert.__file__)"]).stdout.strip()
    if not Path(ran).is_relative_to(root):  # another copy would be measured
        raise SystemExit(f"{label}: python imports {ran}, not the tree's own gossipcert")
    _run(root, ["-m", "gossipcert", *COMMAND])  # a first run: numba's and the OS's caches
    times = [_timed(root) for _ in range(runs)]
    found.wall = statistics.median(t[0] for t in times)
    found.cpu = statistics.median(t[1] for t in times)
    found.import_total, found.import_top = _import_times(root)
    return found


def _largest(sizes: dict[str, int]) -> str:
    name = max(sizes, key=lambda k: sizes[k])
    return f"{sizes[name]} ({name})"


def table(results: list[Measures]) -> str:
    """The measures of every tree, one column each."""
    rows: list[tuple[str, list[str]]] = [
        ("modules", [str(len(m.modules)) for m in results]),
        ("largest module (lines)", [_largest(m.modules) for m in results]),
        ("largest function (lines)", [_largest(m.functions) for m in results]),
        (
            f"modules > {MODULE_LIMIT} lines",
            [str(sum(v > MODULE_LIMIT for v in m.modules.values())) for m in results],
        ),
        (
            f"functions > {FUNCTION_LIMIT} lines",
            [str(sum(v > FUNCTION_LIMIT for v in m.functions.values())) for m in results],
        ),
        ("process handling (lines)", [str(sum(m.process.values())) for m in results]),
        ("kind comparisons generic/paper", [f"{m.kinds[0]}/{m.kinds[1]}" for m in results]),
        ("solve path:4 wall (s, median)", [f"{m.wall:.2f}" for m in results]),
        ("solve path:4 CPU (s, median)", [f"{m.cpu:.2f}" for m in results]),
        ("imports (s, -X importtime)", [f"{m.import_total:.2f}" for m in results]),
    ]
    first = max(len(r[0]) for r in rows)
    widths = [max(len(m.label), *(len(r[1][i]) for r in rows)) for i, m in enumerate(results)]

    def line(name: str, cells: list[str]) -> str:
        padded = (c.ljust(w) for c, w in zip(cells, widths, strict=True))
        return " | ".join([name.ljust(first), *padded])

    lines = [line("", [m.label for m in results])]
    lines.extend(line(name, cells) for name, cells in rows)
    for m in results:
        lines.append(f"\n{m.label}: process handling, lines by module")
        lines.extend(f"  {n:5d}  gossipcert/{p}" for p, n in sorted(m.process.items()))
        lines.append(f"{m.label}: -X importtime of the command, top 10 packages by own time")
        lines.extend(f"  {s:6.3f} s  {name}" for name, s in m.import_top)
    return "\n".join(lines)


def _checkout(spec: str, scratch: Path) -> tuple[Path, str]:
    """The root of a tree: a folder as it is, or a git revision extracted into ``scratch``."""
    folder = Path(spec)
    if (folder / "gossipcert").is_dir():
        return folder.resolve(), spec
    rev = subprocess.run(
        ["git", "-C", str(REPO), "rev-parse", "--short", spec],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    root = scratch / rev
    root.mkdir()
    archive = subprocess.run(
        ["git", "-C", str(REPO), "archive", rev, "gossipcert"], capture_output=True, check=True
    ).stdout
    subprocess.run(["tar", "-x", "-C", str(root)], input=archive, check=True)
    return root, f"{spec} ({rev})"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("trees", nargs="*", default=[str(REPO)], metavar="TREE_OR_REV")
    parser.add_argument("--runs", type=int, default=5, help="runs of the command (median)")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="gossipcert-measures-") as scratch:
        results = []
        for spec in args.trees:
            root, label = _checkout(spec, Path(scratch))
            results.append(measure(root, label, args.runs))
        print(table(results))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
