"""The matching heuristic's default setting, one run per graph, beside the paper's HR.

Usage::

    python benchmarks/heuristics_default.py debruijn:10 knodel:1024 ccc:7
    python benchmarks/heuristics_default.py --table5 --max-nodes 4608

Each graph gets one run of :func:`gossipcert.heuristics.matching.run_matching` with
``MatchingParams()`` (telephone gossip), no sweep: what ``gossipcert heuristic GRAPH`` does.
The schedule is replayed by the verifier (inside ``run_matching``). Printed: a Markdown
table with the rounds, the paper's lower bound, former upper bound and HR where the graph
is one of its Table 1 or Table 5 rows, the setting used, the process CPU seconds and the
wall-clock seconds (on a shared machine the CPU seconds are the better measure).
``**`` marks fewer rounds than the paper's heuristic.

References
----------
R. Beier and J. F. Sibeyn, "A powerful heuristic for telephone gossiping", Tables 1 and 5.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from heuristics import TABLE1, TABLE5, PaperRow

from gossipcert.heuristics.matching import MatchingParams, run_matching
from gossipcert.instance import parse_instance


def _paper(spec: str) -> PaperRow | None:
    for row in TABLE1 + TABLE5:
        if row.spec == spec or row.spec.split(",")[0] == spec:
            return row
    return None


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("graphs", nargs="*", help="graph specs")
    ap.add_argument("--table5", action="store_true", help="every Table 5 graph")
    ap.add_argument("--max-nodes", type=int, default=10240, help="skip larger graphs")
    args = ap.parse_args(argv)
    specs = list(args.graphs) + ([r.spec for r in TABLE5] if args.table5 else [])
    print("| graph | n | LB | former UB | paper HR | ours | within HR | setting | CPU s | wall s |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for spec in specs:
        inst = parse_instance(spec, "telephone", "gossip")
        row = _paper(spec)
        if inst.n > args.max_nodes:
            continue
        cpu, wall = time.process_time(), time.monotonic()
        res = run_matching(inst, MatchingParams())
        cpu, wall = time.process_time() - cpu, time.monotonic() - wall
        ours = len(res.schedule)
        hr = row.heuristic if row else None
        within = "-" if hr is None else ("yes" if ours <= hr else "no")
        mark = "**" if hr is not None and ours < hr else ""
        cells = [spec, str(inst.n)]
        cells += ["-" if row is None or x is None else str(x) for x in (
            row and row.lower, row and row.upper, hr)]  # fmt: skip
        cells += [f"{mark}{ours}{mark}", within, res.params.describe(), f"{cpu:.1f}"]
        cells.append(f"{wall:.1f}")
        print("| " + " | ".join(cells) + " |", flush=True)


if __name__ == "__main__":
    main()
