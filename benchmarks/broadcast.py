"""Broadcast at scale: certified minimum broadcast times, or brackets, and the time taken.

Two suites:

- ``random``: ``random:N,M,seed=S`` from node 0 in the telephone model, for the sizes given
  (default 100/300, 200/600, 500/1500, 1000/3000 and 1000/5000) and seeds;
- ``table4``: broadcast from node 0 on CCC, shuffle-exchange, butterfly and de Bruijn
  graphs, k = 3..14, beside Beier and Sibeyn's Table 4 (optimum / lower bound, upper bound
  and their heuristic's result, HR); a gap of the table that the certified optimum closes is
  marked.

Each instance is solved by :func:`gossipcert.watchdog.solve_within` (as ``gossipcert solve
--time-limit`` does: the search in a child killed at the limit; SAT back-end, broadcast
encoding, DRAT proof checked) within ``--time-limit`` seconds; the table gives the closed-form
lower bound, the heuristic upper bound, the final status and bracket, the evidence and the
time. The Markdown table is printed and, with ``--output``, written to a file.

Run with the project's Python, e.g.::

    nice -n 10 .venv/bin/python benchmarks/broadcast.py random --seeds 1-10 --time-limit 600 \
        --output results/broadcast-random.md
    nice -n 10 .venv/bin/python benchmarks/broadcast.py table4 --k 3-10 --time-limit 300 \
        --output results/broadcast-table4.md

References
----------
.. [1] R. Beier and J. F. Sibeyn, "A powerful heuristic for telephone gossiping", SIROCCO
   2000, Table 4 (broadcasting in four graph classes).
"""

from __future__ import annotations

import argparse
import os
import platform
import resource
import sys
import time
from collections.abc import Callable
from datetime import UTC, datetime

from gossipcert.instance import parse_instance
from gossipcert.watchdog import solve_within

SIZES = ["100,300", "200,600", "500,1500", "1000,3000", "1000,5000"]

#: Beier-Sibeyn Table 4 by k: CCC (opt, HR), SE (opt, HR), butterfly (LB, UB, HR),
#: de Bruijn (LB, UB, HR). For k <= 6 the de Bruijn columns of the table's text have only
#: two numbers (one column is missing); they are shown as printed and compared with
#: nothing. The "lower bounds" of the butterfly and de Bruijn columns only hold
#: asymptotically (the table's caption).
TABLE4: dict[int, dict[str, tuple[int | None, ...]]] = {
    3: {"ccc": (6, 6), "se": (5, 5), "bf": (5, 5, 5), "db": (4, 6)},
    4: {"ccc": (9, 9), "se": (7, 7), "bf": (7, 7, 7), "db": (6, 8)},
    5: {"ccc": (11, 11), "se": (9, 9), "bf": (8, 9, 9), "db": (7, 9)},
    6: {"ccc": (13, 13), "se": (11, 11), "bf": (10, 11, 10), "db": (8, 11)},
    7: {"ccc": (16, 16), "se": (13, 13), "bf": (11, 13, 12), "db": (10, 12, 9)},
    8: {"ccc": (18, 18), "se": (15, 15), "bf": (13, 15, 14), "db": (11, 14, 11)},
    9: {"ccc": (21, 21), "se": (17, 17), "bf": (15, 17, 16), "db": (12, 15, 12)},
    10: {"ccc": (23, 23), "se": (19, 19), "bf": (16, 19, 17), "db": (13, 17, 14)},
    11: {"ccc": (26, 26), "se": (21, 21), "bf": (18, 21, 19), "db": (15, 18, 15)},
    12: {"ccc": (28, 28), "se": (23, 24), "bf": (19, 23, 22), "db": (16, 20, 17)},
    13: {"ccc": (31, 31), "se": (25, 26), "bf": (21, 25, 23), "db": (18, 21, 18)},
    14: {"ccc": (33, 33), "se": (27, 28), "bf": (23, 27, 24), "db": (19, 23, 20)},
}
FAMILIES = {"ccc": "ccc", "se": "shuffle-exchange", "bf": "butterfly", "db": "debruijn"}


def _range(text: str) -> list[int]:
    out: list[int] = []
    for part in text.split(","):
        a, _, b = part.partition("-")
        out += list(range(int(a), int(b or a) + 1))
    return out


def run_one(graph: str, time_limit: float) -> dict[str, object]:
    """Solve broadcast from node 0 in the telephone model; the row's fields."""
    t0 = time.monotonic()
    c0 = _cpu_seconds()
    inst = parse_instance(graph, "telephone", "broadcast:0")
    res = solve_within(inst, time_limit=time_limit)  # as `gossipcert solve --time-limit`
    seconds = time.monotonic() - t0
    cpu = _cpu_seconds() - c0
    first_lower = next(e for e in res.log if e["event"] == "lower-bound")
    first_upper = next((e for e in res.log if e["event"] == "upper-bound"), None)
    return {
        "graph": graph,
        "n": inst.n,
        "m": inst.graph.number_of_edges(),
        "lb0": f"{first_lower['value']} ({first_lower['source']})",
        "ub0": "-" if first_upper is None else f"{first_upper['value']} ({first_upper['source']})",
        "status": res.status,
        "lower": res.lower_bound,
        "upper": res.upper_bound,
        "evidence": res.evidence.get("kind", "-")
        + (f" {res.evidence['name']}" if res.evidence.get("kind") == "closed-form" else ""),
        "seconds": seconds,
        "cpu": cpu,
        "ran": _what_ran(res.log),
        "bounds_s": res.times.get("bounds", 0.0),
        "solver_s": res.times.get("find", 0.0) + res.times.get("prove", 0.0),
        "proof_s": res.times.get("proof", 0.0),
    }


def _cpu_seconds() -> float:
    """User and system CPU seconds of this process and its finished children (the watchdog
    runs each search in a child)."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def _what_ran(log: list[dict[str, object]]) -> str:
    """The solver queries and proofs of a search, from its event log, e.g. ``11: unknown
    30.9 s``."""
    parts: list[str] = []
    for e in log:
        if e["event"] == "query":
            parts.append(f"{e['rounds']} rounds: {e['status']} {float(e['seconds']):.1f} s")  # type: ignore[arg-type]
        elif e["event"] == "proof":
            parts.append(f"DRAT proof of {e['rounds']}: {e['status']} {float(e['seconds']):.1f} s")  # type: ignore[arg-type]
        elif e["event"] == "proof-check":
            parts.append(f"check: {e['status']}")
    return "; ".join(parts)


def _answer(row: dict[str, object]) -> str:
    if row["status"] == "optimal" and row["evidence"] == "solver-claim":
        return f"{row['upper']} (uncertified)"
    if row["status"] == "optimal":
        return f"**{row['upper']}**"
    upper = "-" if row["upper"] is None else row["upper"]  # no schedule within the limit
    return f"[{row['lower']}, {upper}]"


def random_suite(args: argparse.Namespace, emit: Callable[[list[str]], None]) -> list[str]:
    lines = [
        "| graph | n | m | closed-form LB | heuristic UB | answer | status | evidence | "
        "time (s) | bounds+heuristics / solver / proof (s) |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    print("\n".join(lines), flush=True)
    for size in args.sizes:
        for seed in _range(args.seeds):
            row = run_one(f"random:{size},seed={seed}", args.time_limit)
            line = (
                f"| {row['graph']} | {row['n']} | {row['m']} | {row['lb0']} | {row['ub0']} | "
                f"{_answer(row)} | {row['status']} | {row['evidence']} | "
                f"{row['seconds']:.1f} | {row['bounds_s']:.1f} / {row['solver_s']:.1f} / "
                f"{row['proof_s']:.1f} |"
            )
            print(line, flush=True)
            lines.append(line)
            emit(lines)
    return lines


def _paper(fam: str, k: int) -> tuple[str, int | None, int | None]:
    vals = TABLE4.get(k, {}).get(fam)
    if vals is None:
        return "-", None, None
    if len(vals) == 2 and fam == "db":
        return f"{vals[0]}, {vals[1]} (a column missing)", None, None
    if len(vals) == 2:
        return f"opt {vals[0]}, HR {vals[1]}", vals[0], vals[0]
    lb, ub, hr = vals
    upper = min(x for x in (ub, hr) if x is not None)
    text = f"LB {lb}, UB {'-' if ub is None else ub}, HR {hr}"
    return text, lb, upper


def _note(fam: str, row: dict[str, object], lb: int | None, upper: int | None) -> str:
    """What the certified optimum (or, in a bracket, the schedule) says about the table's
    entry."""
    if row["status"] != "optimal":
        best = row["upper"]
        if isinstance(best, int) and upper is not None and best < upper:
            return f"schedule of {best} rounds, shorter than the table's best ({upper})"
        return ""
    opt = int(row["upper"])  # type: ignore[call-overload]
    if row["evidence"] == "solver-claim":
        return f"not certified: {opt - 1} rounds refuted by the solver, its DRAT proof not checked"
    if fam in ("ccc", "se"):
        return "" if opt == lb else f"differs from the table's optimum {lb}"
    parts = ["closed (the table's LB holds only asymptotically)"]
    if lb is not None and opt < lb:
        parts.append(f"below its LB {lb}")
    if upper is not None and opt < upper:
        parts.append(f"shorter than its best schedule ({upper})")
    if lb is not None and upper is not None and lb < upper:
        parts.append(f"its gap {lb}..{upper} closed at {opt}")
    return "; ".join(parts)


def table4_suite(args: argparse.Namespace, emit: Callable[[list[str]], None]) -> list[str]:
    lines = [
        "| graph | n | table 4 (Beier-Sibeyn) | answer | status | evidence | time (s) | "
        "CPU (s) | note | solver queries |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    print("\n".join(lines), flush=True)
    for k in _range(args.k):
        for fam in args.families:
            graph = f"{FAMILIES[fam]}:{k}"
            row = run_one(graph, args.time_limit)
            text, lb, upper = _paper(fam, k)
            note = _note(fam, row, lb, upper)
            line = (
                f"| {graph} | {row['n']} | {text} | {_answer(row)} | {row['status']} | "
                f"{row['evidence']} | {row['seconds']:.1f} | {row['cpu']:.1f} | {note} | "
                f"{row['ran'] or '-'} |"
            )
            print(line, flush=True)
            lines.append(line)
            emit(lines)
    return lines


RUN_PREFIX = "- `benchmarks/broadcast.py "


def read_page(path: str) -> tuple[list[str], dict[str, str]]:
    """The run lines and the table rows (by graph) of a page written with ``--merge``."""
    runs: list[str] = []
    rows: dict[str, str] = {}
    with open(path) as fh:
        for line in fh.read().splitlines():
            if line.startswith(RUN_PREFIX):
                runs.append(line)
            elif line.startswith("| ") and not line.startswith("| graph |"):
                rows[line.split("|")[1].strip()] = line
    return runs, rows


def _row_order(graph: str) -> tuple[int, int, str]:
    """Rows by size parameter, then family in Table 4's order, then name."""
    name, _, k = graph.partition(":")
    fams = list(FAMILIES.values())
    fam = fams.index(name) if name in fams else len(fams)
    return (int(k) if k.isdigit() else 0, fam, graph)


def merged_page(
    suite: str, time_limit: float, runs: list[str], old_rows: dict[str, str], lines: list[str]
) -> list[str]:
    """A page built in parts: every run's command, and one row per graph, the newest."""
    rows = dict(old_rows)
    for line in lines[2:]:  # after the header and its separator
        rows[line.split("|")[1].strip()] = line
    return [
        f"# Broadcast benchmark: {suite}, built in parts",
        "",
        "Telephone model, broadcast from node 0, SAT back-end; each row is the newest run of "
        "its graph by one of the commands below (with `--merge`, which keeps the rows of the "
        "graphs a command did not run). The machine has 2 cores shared with other jobs: "
        "times are indicative only, CPU seconds are given beside wall seconds. The last "
        f"command's limit was {time_limit:g} s per instance.",
        "",
        "An answer in bold is a certified optimum; `[L, U]` a bracket (the time limit ran "
        "out; `-`: no schedule yet). Evidence: `drat` (checked DRAT proof that one round "
        "fewer is impossible), `closed-form NAME` (the lower bound met the schedule), "
        "`solver-claim` (the solver's refutation, proof not finished in time).",
        "",
        "Runs:",
        "",
        *runs,
        "",
        *lines[:2],
        *(rows[g] for g in sorted(rows, key=_row_order)),
    ]


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("suite", choices=["random", "table4"])
    ap.add_argument("--sizes", nargs="+", default=SIZES, help="N,M pairs (random)")
    ap.add_argument("--seeds", default="1-10", help="e.g. 1-10 or 1,3,5 (random)")
    ap.add_argument("--k", default="3-10", help="e.g. 3-10 (table4)")
    ap.add_argument("--families", nargs="+", default=list(FAMILIES), choices=list(FAMILIES))
    ap.add_argument("--time-limit", type=float, default=600.0, help="seconds per instance")
    ap.add_argument("--output", help="write the Markdown page here")
    ap.add_argument(
        "--merge",
        action="store_true",
        help="keep the rows of --output for the graphs not run now (a page built in parts)",
    )
    args = ap.parse_args(argv)
    start = datetime.now(UTC)
    command = " ".join(sys.argv[1:] if argv is None else argv)
    head = [
        f"# Broadcast benchmark: {args.suite}",
        "",
        f"Made by `benchmarks/broadcast.py {command}` on {start:%Y-%m-%d %H:%M} UTC "
        f"({platform.python_version()}, {platform.machine()}); telephone model, broadcast from "
        f"node 0, SAT back-end, time limit {args.time_limit:g} s per instance. The machine has "
        "2 cores shared with other jobs (load average up to 10 during the run): times are "
        "indicative only.",
        "",
        "An answer in bold is a certified optimum; `[L, U]` a bracket (the time limit ran "
        "out). Evidence: `drat` (checked DRAT proof that one round fewer is impossible), "
        "`closed-form NAME` (the lower bound met the schedule), `solver-claim` (the "
        "solver's refutation, proof not finished in time).",
        "",
    ]

    old_runs: list[str] = []
    old_rows: dict[str, str] = {}
    if args.merge and args.output and os.path.exists(args.output):
        old_runs, old_rows = read_page(args.output)
    run_line = (
        f"- `benchmarks/broadcast.py {command}` on {start:%Y-%m-%d %H:%M} UTC "
        f"({platform.python_version()}, {platform.machine()})"
    )

    def emit(lines: list[str]) -> None:  # the page so far, rewritten after every row
        if not args.output:
            return
        if args.merge:
            page = merged_page(args.suite, args.time_limit, [*old_runs, run_line], old_rows, lines)
        else:
            page = head + lines
        with open(args.output, "w") as fh:
            fh.write("\n".join(page) + "\n")

    if args.suite == "random":
        random_suite(args, emit)
    else:
        table4_suite(args, emit)


if __name__ == "__main__":
    main()
