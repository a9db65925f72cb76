"""The package's layout: no import cycle, deferred imports included."""

from __future__ import annotations

import ast
from pathlib import Path

import networkx as nx

import gossipcert

ROOT = Path(gossipcert.__file__).parent


def _module_names() -> dict[str, Path]:
    mods = {}
    for path in ROOT.rglob("*.py"):
        parts = path.relative_to(ROOT.parent).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        mods[name] = path
    return mods


def import_graph() -> nx.DiGraph:
    """Every import of every module (at the top, in a function, under ``TYPE_CHECKING``),
    to the module it names; importing ``a.b.c`` also runs the packages ``a.b``'s face."""
    mods = _module_names()
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
                if target == "gossipcert" and name != "gossipcert":
                    g.add_edge(name, target)
    return g


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
