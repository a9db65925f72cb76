"""Pipelined collectives with 1 to 64 chunks: certified optima or brackets, and how fast.

For every graph of :data:`CONFIGS` (complete graphs of 8, 16 and 32 nodes in single-port and
all-port, rings and tori of 16 and 64 nodes, hypercubes of dimension 3 to 6, and the
machines ``dgx1``, ``dgx2``, ``mi250``, ``mi250:2`` and ``ndv2:4``, all-port), every
collective of :data:`COLLECTIVES` and every chunk count of :data:`CHUNKS`, the script runs
:func:`gossipcert.solve` with a time limit and records the answer: the certified optimum, or
the bracket ``[L, U]``, with what gives each end (the lower bound's evidence, the
schedule's source) and the wall time.

What ``chunks=K`` means (the problem specs' ``chunks=K``, the command line's ``--chunks``,
which split every packet of the problem into ``K``):

- ``broadcast:0,chunks=K``: the source's message in ``K`` chunks;
- ``gossip:chunks=K`` (allgather) and ``reduce-scatter:chunks=K``: every node's share (its
  input for allgather, its output for reduce-scatter) in ``K`` chunks, ``n K`` in all;
- ``allreduce:chunks=K``: the vector in ``n`` shares of ``K`` chunks, ``n K`` chunks, each
  combined over every node and needed by every node.

So a message of ``M`` bytes moves ``M / K`` bytes a chunk for broadcast and ``M / (n K)``
for the others, and a round is the time one chunk takes over the slowest link.

The answers are kept in a file of JSON lines (one finished cell a line, ``--cells``); a rerun
skips the cells already there, so a stopped run resumes; ``--rerun-over SECONDS`` solves again
the cells whose stored wall time is above ``SECONDS`` (those that overran the limit), and
``--again`` the selected cells once more (after a new bound or construction), appending their
new records (the reader keeps the last record of a cell). ``--schedules DIR`` starts each cell
that has a stored schedule in ``DIR`` (``GRAPH-MODEL-COLLECTIVE-K.json``, written by
``benchmarks/pipelined_invariant.py``) from it: ``solve`` replays it as its first upper
bound, and a cell solved without it is solved again. ``--table`` prints the Markdown
tables from the file without solving; ``--plots DIR`` draws, for each graph, the optimum
divided by ``K`` against ``K`` beside the bandwidth bound (the certified optimum at ``K``
chunks, divided by ``K``, is at least the continuous bound and approaches it):

- all-port: :mod:`gossipcert.closed_forms.throughput` (ForestColl's allgather and
  reduce-scatter ratio, the broadcast min-cut), in rounds per chunk;
- single-port: a node receives one chunk a round: ``n - 1`` a chunk for allgather and
  reduce-scatter, ``1`` for broadcast;
- allreduce: the largest of the reduce-scatter and allgather rates, the receipts rate
  (every chunk received ``2 n - 2`` times, at most the total capacity a round) and the
  bridge rate (every chunk crosses a bridge with processors on both sides, at most its
  capacity a round): a valid lower bound, since an allreduce need not be a reduce-scatter
  followed by an allgather.

Run (the full table; say the load beside the times, the script prints it)::

    nice -n 10 .venv/bin/python benchmarks/pipelined.py --time-limit 60 \\
        --cells results/pipelined-cells.jsonl --schedules results/schedules/pipelined \\
        --plots results/figures

References
----------
.. [1] L. Zhao et al., "ForestColl: Throughput-optimal collective communications on
   heterogeneous network fabrics", arXiv:2402.06787, 2024.
.. [2] P. Patarasuk and X. Yuan, "Bandwidth optimal all-reduce algorithms for clusters of
   workstations", JPDC 69, 2009.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time
from fractions import Fraction
from pathlib import Path
from typing import Any

import networkx as nx

from gossipcert.api import solve
from gossipcert.closed_forms.throughput import allgather_cut, broadcast_cut, reduce_scatter_cut
from gossipcert.graphs import from_spec, processors
from gossipcert.search.allreduce_bridge import bridge_sides

#: (graph, model) pairs of the table
CONFIGS: tuple[tuple[str, str], ...] = (
    *((f"complete:{n}", "single-port") for n in (8, 16, 32)),
    *((f"complete:{n}", "all-port") for n in (8, 16, 32)),
    ("ring:16", "all-port"),
    ("ring:64", "all-port"),
    ("torus:4x4", "all-port"),
    ("torus:8x8", "all-port"),
    *((f"hypercube:{k}", "all-port") for k in (3, 4, 5, 6)),
    *((m, "all-port") for m in ("dgx1", "dgx2", "mi250", "mi250:2", "ndv2:4")),
)
#: (name in the table, problem spec without chunks)
COLLECTIVES: tuple[tuple[str, str], ...] = (
    ("broadcast", "broadcast:0"),
    ("allgather", "gossip"),
    ("reduce-scatter", "reduce-scatter"),
    ("allreduce", "allreduce"),
)
CHUNKS: tuple[int, ...] = (1, 2, 4, 8, 16, 32, 64)


def _spec(problem: str, chunks: int) -> str:
    if chunks == 1:
        return problem
    return f"{problem}{',' if ':' in problem else ':'}chunks={chunks}"


def cell_key(graph: str, model: str, collective: str, chunks: int) -> str:
    """The key of one cell in the cells file."""
    return f"{graph}|{model}|{collective}|{chunks}"


def _lower_text(ev: dict[str, Any]) -> str:
    """What gives the lower bound, in a few words (nested evidence followed)."""
    kind = ev.get("kind", "?")
    if kind == "closed-form":
        return f"closed form {ev.get('name')}"
    if kind == "reversal":
        return f"reversal of {ev.get('dual_problem')}: {_lower_text(ev.get('dual') or {})}"
    if kind == "allreduce-bracket":
        inner = ev.get("sub")
        text = f"allreduce bound {ev.get('source')}"
        return f"{text} ({_lower_text(inner)})" if isinstance(inner, dict) else text
    if kind in ("drat", "drat-cubes", "allreduce-drat"):
        return f"{kind} (checked proof)"
    if kind == "solver-claim":
        return "solver's word (proof not checked)"
    return str(kind)


def schedule_file(folder: Path, graph: str, model: str, collective: str, chunks: int) -> Path:
    """Where ``--schedules`` keeps a stored schedule for a cell."""
    return folder / f"{graph.replace(':', '')}-{model}-{collective}-{chunks}.json"


def run_cell(
    graph: str,
    model: str,
    collective: str,
    problem: str,
    chunks: int,
    limit: float,
    seed: Path | None = None,
) -> dict[str, Any]:
    """Solve one cell (starting from the schedule file ``seed``, replayed by ``solve``)
    and return its record."""
    start = time.perf_counter()
    res = solve(graph, model, _spec(problem, chunks), time_limit=limit, resume=seed)
    wall = time.perf_counter() - start
    certified = bool(res.status.value == "optimal" and res.certified)
    return {
        "key": cell_key(graph, model, collective, chunks),
        "graph": graph,
        "model": model,
        "collective": collective,
        "chunks": chunks,
        "status": res.status.value,
        "certified": certified,
        "lower": res.lower,
        "upper": res.upper,
        "lower_by": _lower_text(res.lower_evidence or {}),
        "upper_by": res.upper_source,
        "seconds": round(wall, 2),
        "limit": limit,
        "skipped": res.skipped,
        "seed": None if seed is None else str(seed),
    }


def read_cells(path: Path) -> dict[str, dict[str, Any]]:
    """The finished cells of the file (a torn last line is ignored)."""
    cells: dict[str, dict[str, Any]] = {}
    if not path.exists():
        return cells
    for line in path.read_text().splitlines():
        try:
            rec = json.loads(line)
        except json.JSONDecodeError:
            continue
        cells[rec["key"]] = rec
    return cells


def _load() -> str:
    one, five, fifteen = os.getloadavg()
    return f"{one:.2f}, {five:.2f}, {fifteen:.2f}"


def run(args: argparse.Namespace) -> None:
    path = Path(args.cells)
    done = read_cells(path)
    print(f"load average at the start {_load()} (1, 5, 15 min); {len(done)} cells done", flush=True)
    for graph, model in CONFIGS:
        if args.graphs and graph not in args.graphs:
            continue
        for collective, problem in COLLECTIVES:
            if args.collectives and collective not in args.collectives:
                continue
            for chunks in CHUNKS:
                if args.chunks and chunks not in args.chunks:
                    continue
                key = cell_key(graph, model, collective, chunks)
                seed = None
                if args.schedules:
                    found = schedule_file(Path(args.schedules), graph, model, collective, chunks)
                    seed = found if found.exists() else None
                over = args.rerun_over is not None and key in done
                over = over and done[key]["seconds"] > args.rerun_over
                held = key in done and (seed is None or done[key].get("seed") == str(seed))
                if held and not over and not args.again:
                    continue
                rec = run_cell(graph, model, collective, problem, chunks, args.time_limit, seed)
                with path.open("a") as out:
                    out.write(json.dumps(rec) + "\n")
                done[key] = rec
                print(_progress(rec), flush=True)
    print(f"load average at the end {_load()}", flush=True)


def _progress(rec: dict[str, Any]) -> str:
    value = _value(rec)
    return (
        f"{rec['graph']} {rec['model']} {rec['collective']} K={rec['chunks']}: {value} "
        f"({rec['seconds']} s; lower: {rec['lower_by']}; schedule: {rec['upper_by']})"
    )


def _value(rec: dict[str, Any]) -> str:
    if rec["certified"]:
        return str(rec["upper"])
    upper = "?" if rec["upper"] is None else rec["upper"]
    return f"[{rec['lower']}, {upper}]"


def _short(source: str) -> str:
    """A schedule's source without the sub-problems' details."""
    return source.split(" (")[0] if source.startswith("the ") else source


def tables(cells: dict[str, dict[str, Any]]) -> list[str]:
    """The Markdown lines of the tables: values, what gives them, the brackets, the times."""
    lines = [
        "| graph | model | collective | " + " | ".join(f"K={k}" for k in CHUNKS) + " |",
        "|---|---|---|" + "---|" * len(CHUNKS),
    ]
    how = ["| graph | model | collective | lower bounds | schedules |", "|---|---|---|---|---|"]
    open_cells = []
    times = []
    for graph, model in CONFIGS:
        for collective, _ in COLLECTIVES:
            row = []
            lows: dict[str, list[int]] = {}
            ups: dict[str, list[int]] = {}
            for k in CHUNKS:
                rec = cells.get(cell_key(graph, model, collective, k))
                if rec is None:
                    row.append("-")
                    continue
                times.append(rec["seconds"])
                row.append(f"**{rec['upper']}**" if rec["certified"] else _value(rec))
                lows.setdefault(rec["lower_by"], []).append(k)
                ups.setdefault(_short(rec["upper_by"]), []).append(k)
                if not rec["certified"]:
                    open_cells.append(rec)
            lines.append(f"| {graph} | {model} | {collective} | " + " | ".join(row) + " |")
            how.append(f"| {graph} | {model} | {collective} | {_grouped(lows)} | {_grouped(ups)} |")
    brackets = [
        "| graph | model | collective | K | bracket | lower end from | upper end from | s |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for rec in open_cells:
        brackets.append(
            f"| {rec['graph']} | {rec['model']} | {rec['collective']} | {rec['chunks']} | "
            f"{_value(rec)} | {rec['lower_by']} | {rec['upper_by']} | {rec['seconds']} |"
        )
    total = sum(1 for _ in cells)
    certified = sum(1 for r in cells.values() if r["certified"])
    summary = [
        f"{certified} of {total} cells certified ({100 * certified / max(total, 1):.1f} %); "
        f"wall time per cell: median {statistics.median(times) if times else 0:.1f} s, "
        f"largest {max(times, default=0):.1f} s; "
        f"{sum(1 for t in times if t > 60)} cells over 60 s.",
    ]
    return [*summary, "", *lines, "", *how, "", *brackets]


def _grouped(found: dict[str, list[int]]) -> str:
    return "; ".join(f"{name} (K={','.join(map(str, ks))})" for name, ks in found.items())


def bandwidth_rate(graph: str, model: str, collective: str) -> Fraction:
    """Rounds per chunk of the continuous bandwidth bound (module docstring)."""
    g = from_spec(graph)
    n = len(processors(g))
    if model.startswith("single-port"):
        return {
            "broadcast": Fraction(1),
            "allgather": Fraction(n - 1),
            "reduce-scatter": Fraction(n - 1),
            "allreduce": Fraction(2 * (n - 1)),
        }[collective]
    if collective == "broadcast":
        return broadcast_cut(g, 0).ratio
    if collective == "allgather":
        return allgather_cut(g).ratio
    if collective == "reduce-scatter":
        return reduce_scatter_cut(g).ratio
    capacity = 2 * sum(c for _, _, c in g.edges(data="capacity", default=1))
    receipts = Fraction(n * (2 * n - 2), capacity)
    return max(allgather_cut(g).ratio, reduce_scatter_cut(g).ratio, receipts, _bridge_rate(g))


def _bridge_rate(g: nx.Graph) -> Fraction:
    """Rounds per chunk of the bridge bound of allreduce: every one of the ``n`` chunks a
    ``K`` crosses a bridge with processors on both sides, ``capacity`` a round."""
    found = Fraction(0)
    mine = set(processors(g))
    for u, v, side in bridge_sides(g):
        if mine & side and mine - side:
            found = max(found, Fraction(len(mine), g[u][v].get("capacity", 1)))
    return found


def plots(cells: dict[str, dict[str, Any]], folder: Path) -> list[Path]:
    """One PNG per graph: optimum (or bracket) over K against K, and the bandwidth bound."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for graph, model in CONFIGS:
        fig, axes = plt.subplots(1, len(COLLECTIVES), figsize=(4 * len(COLLECTIVES), 3.4))
        any_cell = False
        for ax, (collective, _) in zip(axes, COLLECTIVES, strict=True):
            ks, lo, hi, cert = [], [], [], []
            for k in CHUNKS:
                rec = cells.get(cell_key(graph, model, collective, k))
                if rec is None or rec["upper"] is None:
                    continue
                ks.append(k)
                lo.append(rec["lower"] / k)
                hi.append(rec["upper"] / k)
                cert.append(rec["certified"])
            if not ks:
                ax.set_visible(False)
                continue
            any_cell = True
            rate = float(bandwidth_rate(graph, model, collective))
            ax.axhline(rate, color="grey", linestyle="--", label=f"bandwidth bound {rate:.3g}")
            ax.plot(ks, hi, "-", color="tab:blue", alpha=0.5)
            for k, a, b, c in zip(ks, lo, hi, cert, strict=True):
                if c:
                    ax.plot(k, b, "o", color="tab:blue")
                else:
                    ax.plot([k, k], [a, b], "-", color="tab:red")
                    ax.plot(k, b, "v", color="tab:red")
                    ax.plot(k, a, "^", color="tab:red")
            ax.set_xscale("log", base=2)
            ax.set_xticks(list(CHUNKS))
            ax.set_xticklabels([str(k) for k in CHUNKS])
            ax.set_xlabel("chunks K")
            ax.set_ylabel("rounds / K")
            ax.set_title(collective)
            ax.legend(fontsize=7)
        fig.suptitle(f"{graph} ({model}): certified optimum / K (dots), brackets (red)")
        fig.tight_layout()
        if any_cell:
            name = "pipelined-" + graph.replace(":", "") + f"-{model}.png"
            out = folder / name
            fig.savefig(out, dpi=90)
            written.append(out)
        plt.close(fig)
    return written


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--time-limit", type=float, default=60.0, help="seconds per cell")
    parser.add_argument("--cells", default="results/pipelined-cells.jsonl", help="JSON lines")
    parser.add_argument("--graphs", nargs="*", help="only these graphs (specs)")
    parser.add_argument("--collectives", nargs="*", help="only these collectives")
    parser.add_argument("--chunks", nargs="*", type=int, help="only these chunk counts")
    parser.add_argument(
        "--schedules",
        help="a folder of stored schedules (GRAPH-MODEL-COLLECTIVE-K.json, e.g. from "
        "benchmarks/pipelined_invariant.py): a cell with one starts from it (replayed), "
        "and is solved again if its record did not",
    )
    parser.add_argument(
        "--rerun-over",
        type=float,
        metavar="SECONDS",
        help="solve again the cells whose stored wall time is above SECONDS (e.g. the limit); "
        "the new record is appended and the reader keeps the last record of a cell",
    )
    parser.add_argument(
        "--again",
        action="store_true",
        help="solve the selected cells again even if the cells file holds them (after a new "
        "bound or construction); the new record is appended and replaces the old",
    )
    parser.add_argument("--table", action="store_true", help="print the tables only")
    parser.add_argument("--plots", help="write one PNG per graph into this folder")
    args = parser.parse_args()
    if not args.table:
        run(args)
    cells = read_cells(Path(args.cells))
    print("\n".join(tables(cells)))
    if args.plots:
        for out in plots(cells, Path(args.plots)):
            print(f"wrote {out}")


if __name__ == "__main__":
    main()
