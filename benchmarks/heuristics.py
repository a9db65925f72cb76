"""The heuristics of Beier and Sibeyn against the paper's Tables 1, 3, 5 and 6.

Usage::

    python benchmarks/heuristics.py table1 --budget 300            # Table 1, gossip at scale
    python benchmarks/heuristics.py table3 --budget 30             # Table 3, linear cost
    python benchmarks/heuristics.py table5 --budget 30 --max-nodes 2048 --out PAGE --merge
    python benchmarks/heuristics.py table5 --rows ccc:12 --matching-max-nodes 0 \
        --coloring-budget 300 --max-nodes 60000 --out PAGE --merge   # coloring alone
    python benchmarks/heuristics.py table1 --rows hypercube:13,debruijn:13
    python benchmarks/heuristics.py table6 --budget 30 --max-nodes 5040   # Table 6, coloring
    python benchmarks/heuristics.py table6 --rows ccc:10 --at-paper --setting 1,0,0
    python benchmarks/heuristics.py table6 --rows ccc:11 --below   # below the paper's rounds

Every row runs the matching heuristic's parameter sweep (:func:`gossipcert.heuristics.settings_grid.
sweep`, default grid, the first setting always to the end) within ``--budget`` seconds and
stops early at the paper's lower bound; Table 5 also runs the coloring heuristic (see
``heuristics_table5.py``; ``--merge`` builds its page in parts). Table 3 sweeps by cost ``T = R
+ tau*S`` (``h = 1``) for the paper's ``tau`` values and prints our ``(R, S, T)`` beside the
paper's; ``**`` marks a lower ``T``. Table 6 runs the coloring heuristic alone, down to the
paper's rounds (with ``--below``, on until a horizon where no setting finds a sequence; the
column ``shorter`` then says whether the unfiltered setting, which the search's bounds leave
exhaustive, proved that no sequence of the matchings is one round shorter), and prints its
sequence. Every schedule counted was replayed by the verifier. The output is a Markdown table
(printed, and written with ``--out``): our rounds beside the paper's lower bound, former upper
bound and heuristic result (HR), the setting that found ours, the wall-clock seconds of that
one run and of the whole sweep, the sweep's CPU seconds (this process: on a loaded machine the
better measure), and the paper's time. ``within HR`` is ``yes`` when we need at most the
paper's rounds; ``**`` marks rows where we need fewer.

Times are wall-clock seconds on whatever machine runs the script; the paper's are from a
2002 workstation.

References
----------
R. Beier and J. F. Sibeyn, "A powerful heuristic for telephone gossiping", Tables 1, 3, 5
and 6.
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from gossipcert.errors import NotApplicableError
from gossipcert.heuristics.coloring import PRUNING, coloring_heuristic
from gossipcert.heuristics.settings_grid import best_of_grid
from gossipcert.instance import parse_instance
from gossipcert.simulate import simulate

sys.path.insert(0, str(Path(__file__).resolve().parent))

from heuristics_table5 import build, table5_row


@dataclass(frozen=True)
class PaperRow:
    """One row of the paper: graph spec, its name there, LB, former UB, HR, seconds."""

    spec: str
    name: str
    lower: int | None
    upper: int | None
    heuristic: int | None
    seconds: float | None = None


#: Table 1 (unit cost, telephone gossip); the random graph's former upper bound is illegible
TABLE1 = [
    PaperRow("hypercube:13", "Hypercube 13", 13, 13, 13, 8839),
    PaperRow("knodel:8192", "Knödel 8192", 13, 13, 15, 10571),
    PaperRow("butterfly:10", "Butterfly 10", 16, 25, 24, 11021),
    PaperRow("debruijn:13", "DeBruijn 13", 18, 41, 25, 9144),
    PaperRow("pancake:7", "Pancake 7", 13, 17, 16, 2688),
    PaperRow("random:10000,80000,seed=1", "Random 10000/80000", 14, None, 17, 35393),
    PaperRow("mesh:80x80", "Mesh 80x80", 158, 158, 158, 22800),
]

#: Table 5: k -> (LB, former UB, HR) per family; None where the scan is blank
_T5: dict[str, dict[int, tuple[int | None, int | None, int | None]]] = {
    "ccc": {
        3: (7, 10, 7), 4: (9, 10, 9), 5: (11, 15, 13), 6: (13, 15, 14), 7: (16, 20, 19),
        8: (18, 20, 18), 9: (21, 25, 23), 10: (23, 25, 23), 11: (26, 30, 29), 12: (28, 30, 28),
    },
    "shuffle-exchange": {
        3: (5, 9, 5), 4: (7, 13, 7), 5: (9, 17, 10), 6: (11, 21, 12), 7: (13, 25, 15),
        8: (15, 29, 17), 9: (17, 33, 20), 10: (19, 37, 23), 11: (21, 41, 26), 12: (23, 45, 28),
    },
    "butterfly": {
        3: (6, 10, 6), 4: (7, 10, 7), 5: (8, 15, 11), 6: (10, 15, 12), 7: (11, 20, 16),
        8: (13, 20, 17), 9: (15, 25, 21), 10: (16, 25, 22), 11: (18, 30, 26), 12: (19, 30, 27),
    },
    "debruijn": {
        3: (4, 11, 4), 4: (6, 14, 6), 5: (7, 17, 8), 6: (8, 20, 10), 7: (10, 23, 12),
        8: (11, 26, 14), 9: (12, 29, 16), 10: (13, 32, 18), 11: (15, 35, 20), 12: (16, 38, 23),
    },
}  # fmt: skip

TABLE5 = [
    PaperRow(f"{family}:{k}", f"{family} {k}", *values)
    for family, rows in _T5.items()
    for k, values in rows.items()
]


#: Table 3 (linear cost): graph, name, {tau: (R, S)} of the paper
TABLE3: list[tuple[str, str, dict[float, tuple[int, int]]]] = [
    ("mesh:20x20", "Mesh 20x20",
     {2.0: (62, 497), 0.5: (49, 517), 0.1: (40, 612), 0.0: (38, 2713)}),
    ("torus:21x21", "Torus 21x21",
     {2.0: (34, 488), 0.5: (30, 486), 0.1: (28, 528), 0.0: (23, 1023)}),
    ("ccc:7", "CCC 7",
     {2.0: (24, 902), 0.5: (22, 904), 0.1: (23, 943), 0.0: (20, 1139)}),
    ("shuffle-exchange:10", "SE 10",
     {2.0: (63, 2047), 0.5: (50, 2051), 0.1: (37, 2073), 0.0: (23, 3933)}),
    ("butterfly:7", "Butterfly 7",
     {2.0: (39, 1044), 0.5: (33, 1107), 0.1: (22, 1110), 0.0: (17, 1229)}),
    ("debruijn:10", "DeBruijn 10",
     {2.0: (46, 1221), 0.5: (39, 1270), 0.1: (31, 1513), 0.0: (18, 2733)}),
    ("random:1000,8000,seed=1", "Random 1000/8000",
     {2.0: (19, 1009), 0.5: (18, 1014), 0.1: (16, 1028), 0.0: (13, 1281)}),
]  # fmt: skip


#: Table 6 (coloring heuristic): graph, name, rounds R of the paper's sequence
TABLE6: list[tuple[str, str, int]] = [
    *((f"ccc:{k}", f"CCC {k}", r) for k, r in
      zip(range(3, 13), (7, 9, 13, 14, 19, 18, 23, 23, 29, 28), strict=True)),
    *((f"butterfly:{k}", f"Butterfly {k}", r) for k, r in
      zip(range(3, 13), (6, 7, 11, 12, 16, 17, 21, 22, 26, 27), strict=True)),
    *((f"star-graph:{k}", f"Star {k}", r) for k, r in
      zip(range(3, 9), (3, 6, 9, 13, 18, 22), strict=True)),
    *((f"pancake:{k}", f"Pancake {k}", r) for k, r in
      zip(range(3, 9), (3, 5, 8, 11, 15, 20), strict=True)),
]  # fmt: skip


def run_table6(
    budget: float,
    max_nodes: int,
    wanted: set[str],
    at_paper: bool = False,
    pruning: tuple[tuple[int, bool, float], ...] = PRUNING,
    below: bool = False,
) -> list[str]:
    """Markdown lines: per graph, the paper's rounds beside the coloring heuristic's sequence.

    The search stops at the paper's rounds (``min_rounds``): the question is whether it
    finds a sequence at least as short, within ``budget`` seconds. With ``at_paper`` it
    searches only at the paper's rounds (``max_rounds`` too, no first dive), with the
    pruning settings ``pruning``. With ``below`` it searches on below the paper's rounds
    and adds the column ``shorter``: ``none`` when the unfiltered setting ``(1, 0, 0)``
    exhausted the next shorter horizon (no sequence of these matchings is shorter: the
    search's cuts are bounds, and immediate repeats or rounds that move nothing never
    shorten a sequence), ``?`` when the time ran out first.
    """
    head = "| graph | n | paper R | ours R | at most the paper's | sequence | setting | s |"
    if below:
        head += " shorter |"
    lines = [head, "|" + "|".join("---" for _ in range(head.count("|") - 1)) + "|"]
    for spec, name, rounds in TABLE6:
        if wanted and spec not in wanted:
            continue
        inst = parse_instance(spec, "telephone", "gossip")
        if inst.n > max_nodes:
            cells = [name, str(inst.n), str(rounds), f"not run (n > {max_nodes})", "-", "-"]
            cells += ["-", "-"] + (["-"] if below else [])
        else:
            print(name, file=sys.stderr, flush=True)
            try:
                res = coloring_heuristic(
                    inst,
                    min_rounds=1 if below else rounds,
                    max_rounds=rounds if at_paper else None,
                    pruning=pruning,
                    time_limit=budget,
                )
            except NotApplicableError as exc:  # only at_paper: no sequence at that horizon
                cells = [name, str(inst.n), str(rounds), "none", "no", str(exc), "-", "-"]
                cells += ["-"] if below else []
                lines.append("| " + " | ".join(cells) + " |")
                print(lines[-1], flush=True)
                continue
            rep = simulate(inst, res.schedule)
            assert rep.ok and rep.rounds == len(res.sequence)
            ok = "yes" if rep.rounds <= rounds else "no"
            mark = "**" if rep.rounds < rounds else ""
            cells = [name, str(inst.n), str(rounds), f"{mark}{rep.rounds}{mark}", ok]
            # the pruning setting (no_repeat, window, f) that found the sequence
            k = [k for r, k, _, outcome in res.trace if outcome == "found"][-1]
            no_repeat, window, f = pruning[k]
            cells += [f"`{res.sequence}`", f"{no_repeat},{int(window)},{f:g}", f"{res.seconds:.1f}"]
            if below:
                unfiltered = pruning.index((1, False, 0.0)) if (1, False, 0.0) in pruning else -1
                proof = (len(res.sequence) - 1, unfiltered, "exhausted")
                cells.append("none" if any(t[:2] + t[3:] == proof for t in res.trace) else "?")
        lines.append("| " + " | ".join(cells) + " |")
        print(lines[-1], flush=True)
    return lines


def run_table3(budget: float) -> list[str]:
    """Markdown lines: per graph and tau, the paper's (R, S, T) beside ours."""
    head = "| graph | tau | paper R | paper S | paper T | ours R | ours S | ours T | setting | s |"
    lines = [head, "|" + "|".join("---" for _ in range(head.count("|") - 1)) + "|"]
    for spec, name, taus in TABLE3:
        for tau, (r, st) in taus.items():
            inst = parse_instance(spec, f"telephone:tau={tau:g}", "gossip")
            print(f"{name} tau={tau:g}", file=sys.stderr, flush=True)
            res = best_of_grid(inst, budget, log=sys.stderr)
            rep = simulate(inst, res.best.schedule)
            assert rep.ok and rep.cost is not None
            paper_t = r + tau * st
            mark = "**" if rep.cost < paper_t else ""
            cells = [name, f"{tau:g}", str(r), str(st), f"{paper_t:g}", str(rep.rounds)]
            cells += [str(rep.steps), f"{mark}{rep.cost:g}{mark}", res.best.params.describe()]
            cells.append(f"{res.best.seconds:.1f}")
            lines.append("| " + " | ".join(cells) + " |")
            print(lines[-1], flush=True)
    return lines


def _run_row(row: PaperRow, budget: float) -> dict[str, object]:
    instance = parse_instance(row.spec, "telephone", "gossip")
    began = time.monotonic()
    cpu = time.process_time()
    res = best_of_grid(instance, budget, lower_bound=row.lower or 0, log=sys.stderr)
    total = time.monotonic() - began
    cpu = time.process_time() - cpu
    best = res.best
    return {
        "rounds": len(best.schedule),
        "setting": best.params.describe(),
        "run_s": best.seconds,
        "total_s": total,
        "cpu_s": cpu,
        "tried": len(res.tried),
    }


def _cell(value: object) -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:.1f}"
    return str(value)


def run_table(rows: list[PaperRow], budget: float, max_nodes: int) -> list[str]:
    """Markdown lines of the table, one row per graph (rows over ``max_nodes`` skipped)."""
    head = (
        "| graph | n | m | LB | former UB | paper HR | ours | within HR | setting | "
        "run s | sweep s (settings) | sweep CPU s | paper s |"
    )
    lines = [head, "|" + "|".join("---" for _ in range(head.count("|") - 1)) + "|"]
    for row in rows:
        inst = parse_instance(row.spec, "telephone", "gossip")
        n, m = inst.n, inst.graph.number_of_edges()
        if n > max_nodes:
            cells = [row.name, str(n), str(m), _cell(row.lower), _cell(row.upper)]
            cells += [_cell(row.heuristic), f"not run (n > {max_nodes})"]
            cells += ["-"] * (head.count("|") - 1 - len(cells))
            lines.append("| " + " | ".join(cells) + " |")
            print(lines[-1], flush=True)
            continue
        print(f"{row.name}: n={n}, m={m}", file=sys.stderr, flush=True)
        got = _run_row(row, budget)
        ours = int(got["rounds"])  # type: ignore[call-overload]
        within = "-" if row.heuristic is None else ("yes" if ours <= row.heuristic else "no")
        mark = "**" if row.heuristic is not None and ours < row.heuristic else ""
        cells = [row.name, str(n), str(m), _cell(row.lower), _cell(row.upper)]
        cells += [_cell(row.heuristic), f"{mark}{ours}{mark}"]
        cells += [within, str(got["setting"]), _cell(got["run_s"])]
        cells += [f"{_cell(got['total_s'])} ({got['tried']})", _cell(got["cpu_s"])]
        cells.append(_cell(row.seconds))
        lines.append("| " + " | ".join(cells) + " |")
        print(lines[-1], flush=True)
    return lines


def table5(args: argparse.Namespace, argv: list[str] | None) -> None:
    """Table 5's page (:mod:`heuristics_table5`): the rows asked for, up to ``--max-nodes``."""
    wanted = set(args.rows.split(",")) if args.rows else set()
    rows = [r for r in TABLE5 if (not wanted or r.spec in wanted)]
    rows = [r for r in rows if parse_instance(r.spec, "telephone", "gossip").n <= args.max_nodes]
    coloring_budget = (
        min(args.budget, 60.0) if args.coloring_budget is None else args.coloring_budget
    )
    matching_max = args.max_nodes if args.matching_max_nodes is None else args.matching_max_nodes
    build(
        rows,
        [r.name for r in TABLE5],
        " ".join(sys.argv[1:] if argv is None else argv),
        Path(args.out) if args.out else None,
        args.merge,
        lambda row: table5_row(row, args.budget, coloring_budget, matching_max),
    )


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("table", choices=["table1", "table3", "table5", "table6"])
    ap.add_argument("--budget", type=float, default=300.0, help="sweep seconds per row")
    ap.add_argument("--max-nodes", type=int, default=10240, help="skip larger graphs")
    ap.add_argument("--rows", default="", help="comma-separated graph specs (default: all)")
    ap.add_argument("--out", default="", help="write the Markdown table here")
    ap.add_argument(
        "--at-paper", action="store_true", help="table6: search only at the paper's rounds"
    )
    ap.add_argument(
        "--setting",
        default="",
        help="table6: one pruning setting NO_REPEAT,WINDOW(0/1),F instead of all, e.g. 1,0,0",
    )
    ap.add_argument(
        "--below",
        action="store_true",
        help="table6: search on below the paper's rounds (column `shorter`)",
    )
    ap.add_argument(
        "--coloring-budget",
        type=float,
        default=None,
        help="table5: coloring seconds per row (default: the budget, at most 60)",
    )
    ap.add_argument(
        "--matching-max-nodes",
        type=int,
        default=None,
        help="table5: run the sweep only on graphs up to this size (default: --max-nodes)",
    )
    ap.add_argument(
        "--merge",
        action="store_true",
        help="table5: keep the rows of --out for the graphs not run now (a page built in parts)",
    )
    args = ap.parse_args(argv)
    if args.table == "table5":
        table5(args, argv)
        return
    rows = TABLE1 if args.table == "table1" else TABLE5
    wanted: set[str] = set()
    if args.rows:
        wanted = set(args.rows.split(";" if ";" in args.rows else ","))
        rows = [r for r in rows if r.spec in wanted or r.spec.split(",")[0] in wanted]
    began = time.monotonic()
    if args.table == "table3":
        lines = run_table3(args.budget)
    elif args.table == "table6":
        pruning = PRUNING
        if args.setting:
            no_repeat, window, f = args.setting.split(",")
            pruning = ((int(no_repeat), window.strip() == "1", float(f)),)
        lines = run_table6(
            args.budget, args.max_nodes, wanted, args.at_paper, pruning, below=args.below
        )
    else:
        lines = run_table(rows, args.budget, args.max_nodes)
    title = {
        "table1": "Table 1",
        "table3": "Table 3 (linear cost)",
        "table6": "Table 6 (coloring heuristic)",
    }
    text = [
        f"# Matching heuristic vs Beier-Sibeyn {title[args.table]} (telephone gossip)",
        "",
        f"Command: `python benchmarks/heuristics.py {' '.join(argv or sys.argv[1:])}`; "
        f"sweep budget {args.budget:g} s per row; total {time.monotonic() - began:.0f} s "
        "wall clock on a shared 2-core machine. Every schedule passed the verifier.",
        (
            "`**` marks a lower cost T = R + tau*S than the paper's."
            if args.table == "table3"
            else "`**` marks rows where we need fewer rounds than the paper's heuristic."
            if args.table != "table6"
            else "`**` marks rows where our sequence is shorter than the paper's."
        ),
        "",
        *lines,
    ]
    if args.out:
        Path(args.out).write_text("\n".join(text) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
