"""Count the places outside ``gossipcert/models/`` that test which model they run under.

Usage: .venv/bin/python benchmarks/model_kinds.py [--before REV] [--list] [TREE]

(Run it with the Python of the project's ``.venv``.)

A model is meant to be one object (:class:`gossipcert.models.base.PortRules`): code that
holds for every model of a shape reads the rules' flags, and only what states a paper's
result (a bound or a construction stated for the telephone model) names its model. This
script reads every module of ``gossipcert/`` outside ``gossipcert/models/`` with :mod:`ast`
and lists each *kind test*:

- ``compare``: ``kind is ModelKind.X``, ``kind == "telephone"``, ``kind.value != ...``;
- ``membership``: ``kind in (ModelKind.X, ...)``, or a container of kinds or model names
  that a module keeps for such tests (``_ONE_PACKET = (ModelKind.X, ...)``);
- ``dict key``: a dict literal keyed by a kind or a model name;
- ``prefix``: ``spec.startswith("all-port")``.

A reference that is none of these (a default argument ``model="telephone"``, an encoding's
``kinds = (ModelKind.X,)`` declaration, a kind passed to a function) is not a test and is
not counted. Docstrings and comments are not code and are not read.

Each test is put in one of two groups by its module: *paper* (``closed_forms/``,
``constructions/``, ``heuristics/``, ``research/``, ``formats/sccl_model.py``: a bound,
construction, heuristic or tool's model that a paper states for its model) and *generic*
(everything else: encodings, the verifier, the search, the formats, the command line). The
generic group is what should be empty.

``TREE`` (default: this checkout) is a checkout's root; ``--before REV`` also counts the
``gossipcert/`` of git revision ``REV`` of this repository (read with ``git show``) and
prints both; ``--list`` prints every test as ``file:line  kind  group  code``.
"""

from __future__ import annotations

import argparse
import ast
import subprocess
import sys
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

#: the model names of specs (``sequential`` is telephone with one call a round)
MODEL_NAMES = frozenset(
    {"telephone", "half-duplex", "single-port", "multicast", "all-port", "sequential", "k-port"}
)
#: the folders whose modules state a paper's result for its model (and SCCL's model as SCCL
#: states it, for all-port)
PAPER_FOLDERS = (
    "closed_forms/",
    "constructions/",
    "heuristics/",
    "research/",
    "formats/sccl_model.py",
)


@dataclass(frozen=True)
class KindTest:
    """One place that tests a model's kind."""

    path: str
    line: int
    kind: str
    code: str

    @property
    def group(self) -> str:
        return "paper" if self.path.startswith(PAPER_FOLDERS) else "generic"


def _is_kind_member(node: ast.AST) -> bool:
    return (
        isinstance(node, ast.Attribute)
        and isinstance(node.value, ast.Name)
        and node.value.id == "ModelKind"
        and node.attr.isupper()
    )


def _is_model_name(node: ast.AST) -> bool:
    return isinstance(node, ast.Constant) and node.value in MODEL_NAMES


def _names_model(node: ast.AST) -> bool:
    """A kind member, a model name, or a literal container holding one."""
    if _is_kind_member(node) or _is_model_name(node):
        return True
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return any(_names_model(e) for e in node.elts)
    return False


def _kind_sets(tree: ast.Module) -> dict[str, int]:
    """Module-level names bound to a literal container of kinds or model names."""
    out: dict[str, int] = {}
    for stmt in tree.body:
        targets: list[ast.expr] = []
        if isinstance(stmt, ast.Assign):
            targets, value = stmt.targets, stmt.value
        elif isinstance(stmt, ast.AnnAssign) and stmt.value is not None:
            targets, value = [stmt.target], stmt.value
        else:
            continue
        if isinstance(value, (ast.Tuple, ast.List, ast.Set)) and _names_model(value):
            for target in targets:
                if isinstance(target, ast.Name):
                    out[target.id] = stmt.lineno
    return out


def kind_tests(path: str, source: str) -> Iterator[KindTest]:
    """The kind tests of one module (``path`` relative to ``gossipcert/``)."""
    tree = ast.parse(source)
    lines = source.splitlines()
    sets = _kind_sets(tree)

    def hit(node: ast.AST, kind: str) -> KindTest:
        line = getattr(node, "lineno", 1)
        return KindTest(path, line, kind, lines[line - 1].strip())

    for line in sets.values():
        yield KindTest(path, line, "membership", lines[line - 1].strip())
    for node in ast.walk(tree):
        if isinstance(node, ast.Compare):
            operands = [node.left, *node.comparators]
            member = any(isinstance(op, (ast.In, ast.NotIn)) for op in node.ops)
            # a test through a module's container of kinds is counted once, where the
            # container is defined
            if any(_names_model(op) for op in operands):
                yield hit(node, "membership" if member else "compare")
        elif isinstance(node, ast.Dict):
            if any(k is not None and _names_model(k) for k in node.keys):
                yield hit(node, "dict key")
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in ("startswith", "endswith")
            and any(_names_model(a) for a in node.args)
        ):
            yield hit(node, "prefix")


def _tree_sources(root: Path) -> Iterator[tuple[str, str]]:
    package = root / "gossipcert"
    for file in sorted(package.rglob("*.py")):
        rel = file.relative_to(package).as_posix()
        yield rel, file.read_text(encoding="utf-8")


def _git_sources(rev: str) -> Iterator[tuple[str, str]]:
    names = subprocess.run(
        ["git", "ls-tree", "-r", "--name-only", rev, "gossipcert/"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.split()
    for name in sorted(names):
        if name.endswith(".py"):
            text = subprocess.run(
                ["git", "show", f"{rev}:{name}"], check=True, capture_output=True, text=True
            ).stdout
            yield name.removeprefix("gossipcert/"), text


def count(sources: Iterator[tuple[str, str]]) -> list[KindTest]:
    """Every kind test outside ``models/``, in file and line order."""
    out: list[KindTest] = []
    for rel, text in sources:
        if rel.startswith("models/"):
            continue
        out.extend(kind_tests(rel, text))
    return sorted(out, key=lambda k: (k.path, k.line))


def _summary(label: str, tests: list[KindTest]) -> str:
    groups = Counter(t.group for t in tests)
    kinds = Counter(t.kind for t in tests)
    parts = ", ".join(f"{k} {kinds[k]}" for k in ("compare", "membership", "dict key", "prefix"))
    return f"{label:<12}{len(tests):>6}{groups['generic']:>9}{groups['paper']:>7}   {parts}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("tree", nargs="?", default=str(Path(__file__).resolve().parents[1]))
    parser.add_argument("--before", metavar="REV", help="also count git revision REV")
    parser.add_argument("--list", action="store_true", help="print every kind test")
    args = parser.parse_args(argv)
    rows: list[tuple[str, list[KindTest]]] = []
    if args.before:
        rows.append((args.before, count(_git_sources(args.before))))
    rows.append(("this tree", count(_tree_sources(Path(args.tree)))))
    print(f"{'':<12}{'tests':>6}{'generic':>9}{'paper':>7}   by kind")
    for label, tests in rows:
        print(_summary(label, tests))
    if args.list:
        for label, tests in rows:
            print(f"\n{label}:")
            for t in tests:
                print(f"  gossipcert/{t.path}:{t.line}  {t.kind:<10} {t.group:<8} {t.code}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
