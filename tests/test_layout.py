"""The package's layout: layers that import only downwards, no import cycle (deferred and
``TYPE_CHECKING`` imports included), and modules and functions of a size a reader can hold.

:data:`LAYERS` is the one place the layer order is written; ``docs/layout.md`` shows the same
list (a test checks they agree) and ``benchmarks/layers.py`` draws the graph from it.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import networkx as nx

import gossipcert

ROOT = Path(gossipcert.__file__).parent

#: The layers of the package, bottom to top: each names the units (a top-level module or
#: package of ``gossipcert``; ``gossipcert`` itself is the package's face) it holds. A unit
#: imports units of its own layer or of the layers below it, never of a layer above.
LAYERS: list[tuple[str, list[str]]] = [
    (
        "base",
        [
            "errors",
            "_version",
            "interrupts",
            "gc_pause",
            "command_start",
            "children",
            "parallel",
            "limits",
            "statuses",
        ],
    ),
    (
        "data",
        [
            "graphs",
            "models",
            "problems",
            "instance",
            "schedule",
            "distances",
            "names",
            "partials",
            "store",
        ],
    ),
    ("verifier", ["simulate", "verifier"]),
    ("bounds", ["closed_forms"]),
    ("encodings", ["encodings"]),
    ("symmetry", ["symmetry"]),
    ("solvers", ["solvers"]),
    ("constructions", ["constructions", "heuristics"]),
    ("proofs", ["proofs"]),
    ("finders", ["finders"]),
    ("search", ["search"]),
    ("evidence", ["certificates", "claims"]),
    ("watchdog", ["watchdog"]),
    ("time", ["timed"]),
    ("formats", ["formats"]),
    ("tables", ["tables", "plot", "plot_time", "research"]),
    ("face", ["result", "api", "cli", "cli_text", "__main__", "gossipcert"]),
]

#: the most lines in a module, and in a function (its ``def`` to its last line)
MAX_MODULE_LINES = 600
MAX_FUNCTION_LINES = 100


def _module_names(root: Path = ROOT) -> dict[str, Path]:
    mods = {}
    for path in root.rglob("*.py"):
        parts = path.relative_to(root.parent).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        mods[name] = path
    return mods


def import_graph(root: Path = ROOT) -> nx.DiGraph:
    """Every import of every module (at the top, in a function, under ``TYPE_CHECKING``),
    to the module it names; importing ``a.b.c`` also runs the packages ``a.b``'s face.
    ``root`` is the package's folder (another tree's, to draw it)."""
    mods = _module_names(root)
    top = root.name
    g = nx.DiGraph()
    for name, path in mods.items():
        g.add_node(name)
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        for node in ast.walk(ast.parse(path.read_text())):
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    base = package.split(".")[: len(package.split(".")) - node.level + 1]
                    module = ".".join(base + ([node.module] if node.module else []))
                else:
                    module = node.module or ""
                targets = [
                    f"{module}.{a.name}" if f"{module}.{a.name}" in mods else module
                    for a in node.names
                ]
            for target in targets:
                parts = target.split(".")
                # the target and every package face on the way to it (but the root's)
                for k in range(2, len(parts) + 1):
                    t = ".".join(parts[:k])
                    if t in mods and t != name and not name.startswith(t + "."):
                        g.add_edge(name, t)
                if target == top and name != top:
                    g.add_edge(name, target)
    return g


def unit_of(module: str) -> str:
    """The unit a module belongs to: ``gossipcert.search.rounds`` -> ``search``; the
    package's own ``__init__`` is ``gossipcert``."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else parts[0]


def layer_rank(layers: list[tuple[str, list[str]]] = LAYERS) -> dict[str, int]:
    """Each unit's layer, counted from the bottom (0)."""
    return {u: i for i, (_, units) in enumerate(layers) for u in units}


def unit_graph(g: nx.DiGraph) -> nx.DiGraph:
    """The package-level graph: an edge between two units when a module of one imports a
    module of the other (``count``: how many module-level edges)."""
    units = nx.DiGraph()
    units.add_nodes_from(unit_of(m) for m in g)
    for u, v in g.edges:
        a, b = unit_of(u), unit_of(v)
        if a != b:
            count = units.edges[a, b]["count"] + 1 if units.has_edge(a, b) else 1
            units.add_edge(a, b, count=count)
    return units


def upward_imports(g: nx.DiGraph, layers: list[tuple[str, list[str]]] = LAYERS) -> list[str]:
    """Every import from a lower layer to a higher one, as ``importer -> imported``
    with both layers named (empty when the package is layered)."""
    rank = layer_rank(layers)
    names = [name for name, _ in layers]
    found = []
    for u, v in sorted(g.edges):
        a, b = unit_of(u), unit_of(v)
        if a in rank and b in rank and rank[a] < rank[b]:
            found.append(f"{u} ({names[rank[a]]}) -> {v} ({names[rank[b]]})")
    return found


def docs_layers(text: str) -> list[tuple[str, list[str]]]:
    """The layer list of ``docs/layout.md``: lines ``- **name**: `unit`, `unit` — what it
    owns``, written top to bottom as the picture reads, returned bottom to top."""
    found = []
    for line in text.splitlines():
        m = re.match(r"^- \*\*([\w-]+)\*\*: (.*)$", line)
        if m:
            found.append((m.group(1), re.findall(r"`(\w+)`", m.group(2).split(" — ")[0])))
    return found[::-1]


def sizes(root: Path = ROOT) -> tuple[dict[str, int], dict[str, int]]:
    """Lines of every module (``search/rounds.py``) and of every function
    (``search/rounds.py:_Search.solve``, from its ``def`` to its last line)."""
    modules: dict[str, int] = {}
    functions: dict[str, int] = {}
    for path in sorted(root.rglob("*.py")):
        rel = str(path.relative_to(root))
        text = path.read_text()
        modules[rel] = len(text.splitlines())
        stack: list[tuple[ast.AST, str]] = [(ast.parse(text), "")]
        while stack:
            node, prefix = stack.pop()
            for child in ast.iter_child_nodes(node):
                name = prefix
                if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                    name = f"{prefix}{child.name}."
                    if not isinstance(child, ast.ClassDef):
                        assert child.end_lineno is not None
                        functions[f"{rel}:{name[:-1]}"] = child.end_lineno - child.lineno + 1
                stack.append((child, name))
    return modules, functions


def too_large(root: Path = ROOT, packages: tuple[str, ...] = ()) -> list[str]:
    """Modules over :data:`MAX_MODULE_LINES` lines and functions over
    :data:`MAX_FUNCTION_LINES` (in ``packages`` only, when given), with their lengths."""
    modules, functions = sizes(root)
    found = [f"{m} ({n} lines)" for m, n in modules.items() if n > MAX_MODULE_LINES]
    found += [f"{f} ({n} lines)" for f, n in functions.items() if n > MAX_FUNCTION_LINES]
    return sorted(x for x in found if not packages or x.split("/")[0] in packages)


def test_the_graph_sees_deferred_imports() -> None:
    g = import_graph()
    # a deferred import inside a function (the CLI loads the search only when it solves)
    assert g.number_of_edges() > 500
    assert g.has_edge("gossipcert.search.rounds", "gossipcert.finders.portfolio")


def test_no_import_cycle() -> None:
    cycles = [sorted(c) for c in nx.strongly_connected_components(import_graph()) if len(c) > 1]
    assert cycles == []


def test_exact_is_gone_and_research_is_not_used_by_the_package() -> None:
    g = import_graph()
    assert not any(n.startswith("gossipcert.exact") for n in g)
    users = {
        u
        for u, v in g.edges
        if v.startswith("gossipcert.research") and not u.startswith("gossipcert.research")
    }
    assert users == set()


def test_the_command_line_loads_no_solver_until_a_command_runs() -> None:
    """``gossipcert --help`` and ``--version`` build the command line without the solvers,
    networkx, numpy or pandas (each command imports what it uses when it runs)."""
    import subprocess
    import sys

    code = (
        "import sys, gossipcert.cli, gossipcert.__main__;"
        "heavy = ('ortools', 'pysat', 'pandas', 'networkx', 'numpy', 'gossipcert.search',"
        " 'gossipcert.instance', 'gossipcert.graphs');"
        "print(sorted({m.split('.')[0] if not m.startswith('gossipcert') else m"
        " for m in sys.modules if m.startswith(heavy)}))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


# ------------------------------------------------------------------------------- layers


def test_no_import_goes_up_a_layer() -> None:
    upward = upward_imports(import_graph())
    assert upward == [], "imports from a lower layer to a higher one:\n" + "\n".join(upward)


def test_every_unit_is_in_exactly_one_layer() -> None:
    units = {unit_of(m) for m in _module_names()}
    listed = [u for _, layer in LAYERS for u in layer]
    assert len(listed) == len(set(listed)), "a unit in two layers"
    assert sorted(units - set(listed)) == [], "units in no layer"
    assert sorted(set(listed) - units) == [], "layers name units that do not exist"


def test_no_package_imports_another_in_a_circle() -> None:
    units = unit_graph(import_graph())
    cycles = [sorted(c) for c in nx.strongly_connected_components(units) if len(c) > 1]
    assert cycles == []


def test_the_docs_list_the_same_layers() -> None:
    text = (ROOT.parent / "docs" / "layout.md").read_text()
    assert docs_layers(text) == LAYERS


def test_the_layer_check_names_an_upward_import(tmp_path: Path) -> None:
    """A deferred import, and one under ``TYPE_CHECKING``, from a low layer to a high one
    are both found and named."""
    pkg = tmp_path / "gossipcert"
    for sub in ("graphs", "search"):
        (pkg / sub).mkdir(parents=True)
        (pkg / sub / "__init__.py").write_text("")
    (pkg / "__init__.py").write_text("")
    (pkg / "errors.py").write_text("")
    (pkg / "search" / "rounds.py").write_text("from gossipcert.errors import *\n")
    (pkg / "graphs" / "base.py").write_text(
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n    from gossipcert.search.rounds import x\n"
        "def f():\n    from ..search import rounds\n"
    )
    g = import_graph(pkg)
    assert upward_imports(g) == [
        "gossipcert.graphs.base (data) -> gossipcert.search (search)",
        "gossipcert.graphs.base (data) -> gossipcert.search.rounds (search)",
    ]
    assert g.has_edge("gossipcert.search.rounds", "gossipcert.errors")
    assert upward_imports(g.subgraph(["gossipcert.search.rounds", "gossipcert.errors"])) == []


def test_the_docs_parser_reads_the_list_top_down() -> None:
    text = "intro\n\n- **top**: `api`, `cli` — the `face`\n- **bottom**: `errors`\n\n- more"
    assert docs_layers(text) == [("bottom", ["errors"]), ("top", ["api", "cli"])]


# --------------------------------------------------------------------------------- sizes

#: the packages whose sizes are held to the limits now (the others: see the next test)
SIZED = ("search", "proofs", "finders", "symmetry", "solvers")


def test_the_search_and_proof_packages_keep_modules_and_functions_small() -> None:
    assert too_large(packages=SIZED) == []


def test_no_module_over_600_lines_and_no_function_over_100() -> None:
    assert too_large() == []


def test_the_size_check_counts_from_def_to_last_line(tmp_path: Path) -> None:
    pkg = tmp_path / "gossipcert"
    pkg.mkdir()
    body = "\n".join(f"        x{i} = {i}" for i in range(MAX_FUNCTION_LINES))
    (pkg / "big.py").write_text(f"class C:\n    def f(self):\n{body}\n")
    (pkg / "small.py").write_text("def g():\n    pass\n")
    modules, functions = sizes(pkg)
    assert functions == {"big.py:C.f": MAX_FUNCTION_LINES + 1, "small.py:g": 2}
    assert modules["big.py"] == MAX_FUNCTION_LINES + 2
    assert too_large(pkg) == [f"big.py:C.f ({MAX_FUNCTION_LINES + 1} lines)"]
