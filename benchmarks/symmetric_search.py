"""Symmetric schedule search on the open instances: one row per group tried.

For a graph and a horizon ``R``, each group ``H`` gets :func:`symmetric_search` with a
time limit. A row says ``sat`` (an ``H``-invariant schedule of ``R`` rounds, expanded and
verified: an upper bound), ``unsat`` (no ``H``-invariant schedule of ``R`` rounds — this
says nothing about the instance) or ``unknown`` (time limit). Star5's groups are the named
subgroups of :func:`gossipcert.exact.symmetric_groups.star_subgroups`; other graphs use
:func:`~gossipcert.exact.symmetric_groups.nauty_subgroups`.

Run with the project's Python, e.g.
``nice -n 10 .venv/bin/python benchmarks/symmetric_search.py star-graph:5 8 --limit 90``;
``--store DIR`` writes each found schedule to ``DIR`` as schedule JSON. Times on a busy
machine vary.

References
----------
.. [1] R. Beier and J. F. Sibeyn, "A powerful heuristic for telephone gossiping", Tables 5
   and 6 (Star5: LB 7, HR 9; DeBruijn6: LB 8, HR 10).
"""

from __future__ import annotations

import argparse
import re
import time
from pathlib import Path

from gossipcert.exact.symmetric import symmetric_search
from gossipcert.exact.symmetric_groups import nauty_subgroups, star_subgroups
from gossipcert.instance import parse_instance
from gossipcert.schedule import write_schedule


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("graph")
    parser.add_argument("rounds", type=int)
    parser.add_argument("--limit", type=float, default=60.0, help="seconds per group")
    parser.add_argument("--groups", nargs="*", help="names of the groups to try (default all)")
    parser.add_argument("--counting", action="store_true", help="add the counting constraints")
    parser.add_argument("--store", help="directory for found schedules")
    parser.add_argument("--stop-at-first", action="store_true", help="stop at the first sat")
    args = parser.parse_args()
    inst = parse_instance(args.graph, "telephone", "gossip")
    if args.graph.startswith("star-graph:5"):
        groups = star_subgroups(inst.graph)
    else:
        groups = nauty_subgroups(inst)
    names = args.groups or list(groups)
    print(f"{args.graph}, telephone gossip, {args.rounds} rounds, {args.limit:g} s per group")
    print()
    print("| group H | order | edge orbits (usable) | pair orbits | clauses | verdict | seconds |")
    print("|---|---|---|---|---|---|---|")
    for name in names:
        t0 = time.monotonic()
        res = symmetric_search(
            inst, groups[name], args.rounds, time_limit=args.limit, counting=args.counting
        )
        s = res.stats
        print(
            f"| `{name}` | {res.order} | {s['edge_orbits']} ({s['usable_edge_orbits']}) "
            f"| {s['pair_orbits']} | {s['clauses']} | {res.status.value} "
            f"| {time.monotonic() - t0:.1f} |",
            flush=True,
        )
        if res.schedule is not None and args.store:
            out = Path(args.store)
            out.mkdir(parents=True, exist_ok=True)
            tag = re.sub(r"[^A-Za-z0-9]+", "-", f"{args.graph}-{args.rounds}-{name}").strip("-")
            write_schedule(res.schedule, inst, out / f"{tag}.json")
        if res.schedule is not None and args.stop_at_first:
            break


if __name__ == "__main__":
    main()
