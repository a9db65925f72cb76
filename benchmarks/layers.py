"""The package-level import graph of gossipcert, layer by layer, and a picture of it.

Reads every import of every module of a tree (at the top of a module, inside a function and
under ``TYPE_CHECKING``: ``import_graph`` of ``tests/test_layout.py``), folds the modules into
their units (a top-level module or package of ``gossipcert``) and places each unit in its
layer (``LAYERS`` of the same test, the one place the order is written). It prints the counts
(units, imports between units, imports that go up a layer, the groups of units that import
each other in a circle) and each upward import; ``--svg`` draws the graph, layers bottom to
top, upward imports in red.

The tree is the working tree by default, or a folder holding ``gossipcert/``, or a git
revision of this repository (read with ``git archive``, never checked out):

    .venv/bin/python benchmarks/layers.py                     # this tree
    .venv/bin/python benchmarks/layers.py eac0fbf --svg docs/layers_before.svg --title before
    .venv/bin/python benchmarks/layers.py --svg docs/layers_after.svg --title after

A unit the layer list does not name (a tree older or newer than the list) is drawn in a row
of its own at the top and counted apart.
"""

from __future__ import annotations

import argparse
import io
import subprocess
import sys
import tarfile
import tempfile
from dataclasses import dataclass
from pathlib import Path

import networkx as nx

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from tests.test_layout import LAYERS, import_graph, layer_rank, unit_graph  # noqa: E402


def tree_of(where: str, scratch: Path) -> tuple[Path, str]:
    """The ``gossipcert/`` folder of ``where`` (a folder, or a git revision unpacked into
    ``scratch``) and a name for it."""
    folder = Path(where)
    if (folder / "gossipcert" / "__init__.py").is_file():
        return folder / "gossipcert", "the working tree" if folder == REPO else str(folder)
    try:
        rev = subprocess.run(
            ["git", "-C", str(REPO), "rev-parse", "--short", where],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        archive = subprocess.run(
            ["git", "-C", str(REPO), "archive", "--format=tar", rev, "gossipcert"],
            capture_output=True,
            check=True,
        ).stdout
    except subprocess.CalledProcessError:
        sys.exit(f"layers.py: {where!r} is neither a folder holding gossipcert/ nor a revision")
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(scratch, filter="data")
    return scratch / "gossipcert", f"revision {rev}"


@dataclass(frozen=True)
class Summary:
    """The counts of a package-level graph against :data:`LAYERS`."""

    units: int
    unlisted: list[str]  # units in no layer
    edges: int  # imports between units
    module_edges: int  # the module-level imports behind them
    upward: list[tuple[str, str]]  # from a lower layer to a higher one
    upward_module_edges: int
    circles: list[list[str]]  # units that import each other in a circle


def summary(units: nx.DiGraph) -> Summary:
    """The counts of a package-level graph (of :func:`unit_graph`)."""
    rank = layer_rank()
    upward = [(a, b) for a, b in units.edges if a in rank and b in rank and rank[a] < rank[b]]
    return Summary(
        units=units.number_of_nodes(),
        unlisted=sorted(u for u in units if u not in rank),
        edges=units.number_of_edges(),
        module_edges=sum(d["count"] for _, _, d in units.edges(data=True)),
        upward=sorted(upward),
        upward_module_edges=sum(units.edges[e]["count"] for e in upward),
        circles=[sorted(c) for c in nx.strongly_connected_components(units) if len(c) > 1],
    )


def positions(units: nx.DiGraph) -> dict[str, tuple[float, float]]:
    """Each unit's place: its layer's row (bottom to top), spread along the row; a row of
    one unit steps left and right of the middle in turn, so that imports crossing several
    layers pass beside the units between."""
    rows = [list(names) for _, names in LAYERS]
    unlisted = sorted(u for u in units if u not in layer_rank())
    if unlisted:
        rows.append(unlisted)
    pos = {}
    for y, row in enumerate(rows):
        present = [u for u in row if u in units]
        shift = (1.5 if y % 2 else -1.5) if len(present) == 1 else 0.0
        for i, u in enumerate(present):
            pos[u] = (i - (len(present) - 1) / 2 + shift, float(y))
    return pos


def draw(units: nx.DiGraph, title: str, path: Path) -> None:
    """The picture: one row per layer (its name on the left), imports as grey arrows
    (fainter into the two bottom layers, which nearly every unit imports), upward ones red."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    plt.rcParams["svg.hashsalt"] = "gossipcert-layers"
    plt.rcParams["svg.fonttype"] = "none"
    rank = layer_rank()
    pos = positions(units)
    upward = {(a, b) for a, b in units.edges if a in rank and b in rank and rank[a] < rank[b]}
    xs = [x for x, _ in pos.values()]
    fig, ax = plt.subplots(figsize=(1.3 * (max(xs) - min(xs)) + 5, 0.7 * len(LAYERS) + 2))
    arrows = {"ax": ax, "connectionstyle": "arc3,rad=0.1", "node_size": 1400}
    low = [e for e in units.edges if e not in upward and rank.get(e[1], 99) < 2]
    down = [e for e in units.edges if e not in upward and rank.get(e[1], 99) >= 2]
    nx.draw_networkx_edges(
        units, pos, edgelist=low, edge_color="#b0b0b0", alpha=0.25, width=0.5, arrowsize=5,
        **arrows,
    )  # fmt: skip
    nx.draw_networkx_edges(
        units, pos, edgelist=down, edge_color="#6b6b6b", alpha=0.5, width=0.7, arrowsize=7,
        **arrows,
    )  # fmt: skip
    nx.draw_networkx_edges(
        units, pos, edgelist=sorted(upward), edge_color="#d62728", width=1.8, arrowsize=12,
        **arrows,
    )  # fmt: skip
    for u, (x, y) in pos.items():
        red = any(u in e for e in upward)
        ax.text(
            x, y, u, ha="center", va="center", fontsize=8, zorder=3,
            bbox={"boxstyle": "round,pad=0.35", "fc": "#fde0dd" if red else "#deebf7",
                  "ec": "#d62728" if red else "#555555", "lw": 0.7},
        )  # fmt: skip
    left = min(xs) - 1.0
    for y, (name, _) in enumerate(LAYERS):
        ax.text(left, y, name, ha="right", va="center", fontsize=9, style="italic")
    if any(u not in rank for u in units):
        ax.text(left, len(LAYERS), "(in no layer)", ha="right", va="center", fontsize=9)
    s = summary(units)
    ax.set_title(
        f"{title}: {s.units} units, {s.edges} package-level imports, {len(s.upward)} "
        f"upward (red), {sum(map(len, s.circles))} units in {len(s.circles)} circle(s)",
        fontsize=11,
    )
    ax.set_xlim(left - 1.4, max(xs) + 0.8)
    ax.set_ylim(-0.6, max(y for _, y in pos.values()) + 0.6)
    ax.axis("off")
    fig.tight_layout()
    fig.savefig(path, metadata={"Date": None} if path.suffix == ".svg" else None)
    plt.close(fig)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "tree", nargs="?", default=str(REPO), help="a folder holding gossipcert/ or a revision"
    )
    parser.add_argument("--svg", type=Path, help="draw the graph into this file (SVG or PNG)")
    parser.add_argument("--title", help="the picture's title (default: the tree's name)")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as scratch:
        root, name = tree_of(args.tree, Path(scratch))
        units = unit_graph(import_graph(root))
    s = summary(units)
    print(f"tree: {name}")
    print("| units | package-level imports | (module-level) | upward | (module-level) | circles |")
    print("|---|---|---|---|---|---|")
    circles = "; ".join(f"{len(c)} units" for c in s.circles) or "none"
    print(
        f"| {s.units} | {s.edges} | {s.module_edges} | {len(s.upward)} | "
        f"{s.upward_module_edges} | {circles} |"
    )
    if s.unlisted:
        print(f"in no layer: {', '.join(s.unlisted)}")
    for a, b in s.upward:
        print(f"upward: {a} -> {b} ({units.edges[a, b]['count']} module imports)")
    for c in s.circles:
        print(f"circle: {' '.join(c)}")
    if args.svg:
        draw(units, args.title or name, args.svg)
        print(f"drawn: {args.svg}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
