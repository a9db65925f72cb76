"""Dimakopoulos-Dimopoulos on binary fat trees: Table 1 and total exchange, certified.

Prints (and with ``--output`` writes) two Markdown tables:

1. Table 1 of the paper on constant-capacity binary fat trees (CBFT) with ``n`` leaves:
   broadcast (``2 log n``), scatter, gather and multinode broadcast (``n + 1``), each with
   the certified optimum, its evidence and the solver's time;
2. total exchange on constant- and exponential-capacity trees (CBFT, EBFT): the certified
   optimum (or the bounds reached within the time limit) beside the paper's lower bound
   ``max{n + 1, n^2 / (4c)}``, its algorithm's ``(n^2 - 1)/3 + 2 log n - 1`` (CBFT) and
   ``n + 2 log n - 2`` (EBFT), Lemma 3 (EBFT: ``n + 2 log n - 2 log log n - 2``), and the
   verdict on the conjecture that no EBFT total exchange takes fewer than
   ``n + 2 log n - 2`` steps; with ``--encodings tree,knowledge`` each total exchange is
   solved once with the time-indexed tree encoding and once with the generic one, to
   compare them (the ``encoding`` column says which one the search used, ``-`` when the
   bounds met without a solver).

Run (timings are from whatever machine runs it; on a shared 2-core machine they vary)::

    nice -n 10 .venv/bin/python benchmarks/fat_trees.py --leaves 4,8,16 --te-leaves 4,8,16 \\
        --time-limit 600 --encodings tree,knowledge --output results/fat-trees-all-port.md

References
----------
.. [1] V. V. Dimakopoulos and N. J. Dimopoulos, "Communications in binary fat trees",
   Proc. ICCI 1995. Table 1, formulas (1)-(3), Lemma 3 and the conjecture of section 5.
"""

from __future__ import annotations

import argparse
import math
import platform
import time
from pathlib import Path

from gossipcert.closed_forms import cut_bound
from gossipcert.instance import parse_instance
from gossipcert.search.entry import solve
from gossipcert.search.outcome import SolveResult


def certify(
    graph: str, problem: str, time_limit: float, encoding: str = "auto"
) -> tuple[SolveResult, float]:
    t0 = time.monotonic()
    res = solve(
        parse_instance(graph, "all-port", problem), time_limit=time_limit, encoding=encoding
    )
    return res, time.monotonic() - t0


def answer(res: SolveResult) -> str:
    """The optimum, or the bounds reached."""
    if res.status == "optimal":
        return str(res.optimum)
    upper = "?" if res.upper_bound is None else str(res.upper_bound)
    return f"[{res.lower_bound}, {upper}]"


def evidence(res: SolveResult) -> str:
    ev = res.evidence
    if ev.get("kind") == "closed-form":
        return f"bound `{ev['name']}`"
    if ev.get("kind") == "drat":
        return f"DRAT ({ev['rounds']} rounds refuted)"
    return str(ev.get("kind", "-"))


def table1(leaves: list[int], time_limit: float) -> list[str]:
    rows = [
        "| problem | leaves n | paper (Table 1) | certified | evidence | differs | seconds |",
        "|---|---|---|---|---|---|---|",
    ]
    for n in leaves:
        log = n.bit_length() - 1
        for name, problem, formula in (
            ("broadcast", "broadcast:0", 2 * log),
            ("scatter", "scatter:0", n + 1),
            ("gather", "gather:0", n + 1),
            ("multinode broadcast", "gossip", n + 1),
        ):
            res, dt = certify(f"fattree:{n}", problem, time_limit)
            differs = "" if res.optimum == formula else "**yes**"
            rows.append(
                f"| {name} | {n} | {formula} | {answer(res)} | {evidence(res)} | {differs} "
                f"| {dt:.1f} |"
            )
    return rows


def total_exchange(leaves: list[int], time_limit: float, encodings: list[str]) -> list[str]:
    rows = [
        "| tree | leaves n | paper lower max{n+1, n²/4c} | cut bound | Lemma 3 | certified "
        "| paper's algorithm | conjecture n+2log n-2 | evidence | schedule | encoding "
        "| seconds |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for kind, suffix in (("CBFT", ""), ("EBFT", ":exp")):
        for n in leaves:
            log = n.bit_length() - 1
            c = 1 if kind == "CBFT" else n // 2
            paper_lower = max(n + 1, math.ceil(n * n / (4 * c)))
            algorithm = (n * n - 1) // 3 + 2 * log - 1 if kind == "CBFT" else n + 2 * log - 2
            lemma3 = "-"
            if kind == "EBFT":
                loglog = math.log2(log) if log > 0 else 0.0
                lemma3 = str(math.ceil(n + 2 * log - 2 * loglog - 2))
            inst = parse_instance(f"fattree:{n}{suffix}", "all-port", "total-exchange")
            cut = cut_bound(inst)
            for encoding in encodings:
                res, dt = certify(f"fattree:{n}{suffix}", "total-exchange", time_limit, encoding)
                conjecture = verdict(res, n + 2 * log - 2) if kind == "EBFT" else "-"
                rows.append(
                    f"| {kind} | {n} | {paper_lower} | {cut.value if cut else '-'} | {lemma3} "
                    f"| {answer(res)} | {algorithm} | {conjecture} | {evidence(res)} "
                    f"| {res.upper_source} | {encoding_name(res)} | {dt:.1f} |"
                )
                print(rows[-1], flush=True)
    return rows


def encoding_name(res: SolveResult) -> str:
    """The encoding the search used (``-`` when the bounds met without one)."""
    if not any(e.get("event") == "query" for e in res.log):
        return "-"
    return "tree" if res.options.tree else "generic"


def verdict(res: SolveResult, target: int) -> str:
    """The conjecture "no EBFT total exchange in fewer than ``target`` steps", judged."""
    if res.status == "optimal":
        assert res.optimum is not None
        if res.optimum >= target:
            return f"holds ({res.optimum} >= {target})"
        return f"**refuted** ({res.optimum} < {target})"
    if res.upper_bound is not None and res.upper_bound < target:
        return f"**refuted** (schedule of {res.upper_bound} < {target})"
    if res.lower_bound >= target:
        return f"holds (lower bound {res.lower_bound})"
    return "open"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--leaves", default="4,8,16", help="Table 1 tree sizes")
    ap.add_argument("--te-leaves", default="4,8", help="total-exchange tree sizes")
    ap.add_argument("--time-limit", type=float, default=600.0, help="seconds per instance")
    ap.add_argument(
        "--encodings",
        default="auto",
        help="comma-separated --encoding choices for the total-exchange rows (auto, tree, "
        "knowledge); one row per choice",
    )
    ap.add_argument("--output", help="write the Markdown page here")
    args = ap.parse_args()
    leaves = [int(x) for x in args.leaves.split(",") if x]
    te = [int(x) for x in args.te_leaves.split(",") if x]
    head = [
        "# Binary fat trees (Dimakopoulos and Dimopoulos), all-port, certified",
        "",
        f"Made by `benchmarks/fat_trees.py --leaves {args.leaves} --te-leaves "
        f"{args.te_leaves} --time-limit {args.time_limit:g} --encodings {args.encodings}` on "
        f"{platform.node() or 'a'} "
        f"({platform.machine()}, Python {platform.python_version()}); seconds are wall "
        "time on a shared machine and vary from run to run. A certified optimum comes with "
        "a verified schedule and its lower-bound evidence; `[L, U]` is what was reached "
        "within the time limit.",
        "",
        "## Table 1 (constant capacities)",
        "",
    ]
    out = head + table1(leaves, args.time_limit)
    out += ["", "## Total exchange (CBFT: c = 1; EBFT: capacity doubling per level)", ""]
    out += total_exchange(te, args.time_limit, args.encodings.split(","))
    text = "\n".join(out) + "\n"
    print(text)
    if args.output:
        Path(args.output).write_text(text)


if __name__ == "__main__":
    main()
