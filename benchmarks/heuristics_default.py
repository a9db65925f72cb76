"""``gossipcert heuristic GRAPH`` without options, per graph, beside the paper's HR.

Usage::

    python benchmarks/heuristics_default.py --hr            # CCC 8, SE 8, Butterfly 8, Mesh 20x20
    python benchmarks/heuristics_default.py debruijn:10 knodel:1024 ccc:7
    python benchmarks/heuristics_default.py --table5 --max-nodes 512
    python benchmarks/heuristics_default.py --one-setting --table5 --max-nodes 4608

Each graph (telephone gossip) gets what ``gossipcert heuristic GRAPH`` runs: the default
portfolio (:func:`gossipcert.heuristics.portfolio.run_portfolio`, ``--budget`` seconds,
default 60 as on the command line, stopped at the closed-form lower bound); with
``--one-setting`` one run of :func:`gossipcert.heuristics.matching.run_matching` with
``MatchingParams()`` instead (what ``--method matching`` runs). Every schedule is replayed
by the verifier before it is counted. Printed: a Markdown table with the paper's lower
bound, former upper bound and HR where the graph is one of its Table 1 or Table 5 rows (or
Table 3's at tau = 0), the rounds of the matching heuristic's default setting (its run in
the portfolio, else a run apart) and of the portfolio, the setting that found them, the
wall-clock seconds from the start of the row to the end of the entry that first held a
schedule within the paper's HR (the coloring heuristic ends at its share of the budget,
whenever it found its sequence), the whole run's wall-clock and process CPU seconds (on a
shared machine the CPU seconds are the better measure), the entries tried and the load
average (1 minute) before and after the row. ``**`` marks fewer rounds than the paper's
heuristic.

References
----------
R. Beier and J. F. Sibeyn, "A powerful heuristic for telephone gossiping", Tables 1, 3 and 5.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from heuristics import TABLE1, TABLE3, TABLE5, PaperRow

from gossipcert.closed_forms import best_lower_bound
from gossipcert.heuristics.matching import MatchingParams, run_matching
from gossipcert.heuristics.portfolio import DEFAULT_SECONDS, run_portfolio
from gossipcert.instance import Instance, parse_instance
from gossipcert.simulate import simulate

#: the paper's HR that the default portfolio reaches (Table 5; Table 3 at tau = 0)
HR_ROWS = ["ccc:8", "shuffle-exchange:8", "butterfly:8", "mesh:20x20"]


def _paper(spec: str) -> PaperRow | None:
    for row in TABLE1 + TABLE5:
        if row.spec == spec or row.spec.split(",")[0] == spec:
            return row
    for table_spec, name, taus in TABLE3:
        if table_spec == spec and 0.0 in taus:
            inst = parse_instance(spec, "telephone", "gossip")
            return PaperRow(spec, name, best_lower_bound(inst).value, None, taus[0.0][0])
    return None


def _load() -> str:
    return f"{os.getloadavg()[0]:.1f}"


def _one_setting(spec: str, row: PaperRow | None) -> list[str]:
    inst = parse_instance(spec, "telephone", "gossip")
    cpu, wall = time.process_time(), time.monotonic()
    res = run_matching(inst, MatchingParams())
    cpu, wall = time.process_time() - cpu, time.monotonic() - wall
    ours = len(res.schedule)
    hr = row.heuristic if row else None
    within = "-" if hr is None else ("yes" if ours <= hr else "no")
    mark = "**" if hr is not None and ours < hr else ""
    return [f"{mark}{ours}{mark}", within, res.params.describe(), f"{cpu:.1f}", f"{wall:.1f}"]


def _default_setting(inst: Instance, tried: list[tuple[str, int | None, float]]) -> str:
    """The rounds of the matching heuristic's default setting: its run in the portfolio, or
    (when the portfolio stopped before it) a run of its own, outside the timed figures."""
    for name, rounds, _ in tried:
        if not name.startswith("coloring"):
            return f"{rounds} ({name})"
    res = run_matching(inst, MatchingParams())
    return f"{len(res.schedule)} ({res.params.describe()}; run apart)"


def _portfolio(spec: str, row: PaperRow | None, budget: float) -> list[str]:
    inst = parse_instance(spec, "telephone", "gossip")
    before = _load()
    cpu, wall = time.process_time(), time.monotonic()
    lower = best_lower_bound(inst).value
    setup = time.monotonic() - wall
    res = run_portfolio(inst, budget, lower_bound=lower)
    cpu, wall = time.process_time() - cpu, time.monotonic() - wall
    rep = simulate(inst, res.schedule)
    if not rep.ok or rep.rounds != len(res.schedule):
        raise AssertionError(f"{spec}: the portfolio's schedule failed the verifier")
    ours = rep.rounds
    hr = row.heuristic if row else None
    within = "-" if hr is None else ("yes" if ours <= hr else "no")
    mark = "**" if hr is not None and ours < hr else ""
    reached = "-"
    if hr is not None:
        clock = setup
        for _, rounds, seconds in res.tried:
            clock += seconds
            if rounds is not None and rounds <= hr:
                reached = f"{clock:.1f}"
                break
    cells = [_default_setting(inst, res.tried), f"{mark}{ours}{mark}", within, res.setting]
    cells.append(reached)
    cells += [f"{wall:.1f}", f"{cpu:.1f}", str(len(res.tried)), f"{before} / {_load()}"]
    return cells


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("graphs", nargs="*", help="graph specs")
    ap.add_argument("--hr", action="store_true", help="CCC 8, SE 8, Butterfly 8, Mesh 20x20")
    ap.add_argument("--table5", action="store_true", help="every Table 5 graph")
    ap.add_argument("--max-nodes", type=int, default=10240, help="skip larger graphs")
    ap.add_argument("--budget", type=float, default=DEFAULT_SECONDS, help="portfolio seconds")
    ap.add_argument(
        "--one-setting", action="store_true", help="one run of the default setting instead"
    )
    args = ap.parse_args(argv)
    specs = list(args.graphs) + (HR_ROWS if args.hr else [])
    specs += [r.spec for r in TABLE5] if args.table5 else []
    head = ["graph", "n", "LB", "former UB", "paper HR"]
    if args.one_setting:
        head += ["ours", "within HR", "setting", "CPU s", "wall s"]
    else:
        head += ["default setting", "portfolio", "within HR", "setting of the portfolio's best"]
        head += ["HR reached after s", "wall s", "CPU s", "entries", "load before / after"]
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    for spec in specs:
        inst = parse_instance(spec, "telephone", "gossip")
        if inst.n > args.max_nodes:
            continue
        row = _paper(spec)
        cells = [spec, str(inst.n)]
        cells += ["-" if row is None or x is None else str(x) for x in (
            row and row.lower, row and row.upper, row and row.heuristic)]  # fmt: skip
        if args.one_setting:
            cells += _one_setting(spec, row)
        else:
            cells += _portfolio(spec, row, args.budget)
        print("| " + " | ".join(cells) + " |", flush=True)


if __name__ == "__main__":
    main()
