"""Symmetric schedule search on the open instances: one row per group tried.

For a graph and a horizon ``R``, each group ``H`` gets :func:`symmetric_search` with a
time limit. A row says ``sat`` (an ``H``-invariant schedule of ``R`` rounds, expanded and
verified: an upper bound), ``unsat`` (no ``H``-invariant schedule of ``R`` rounds — this
says nothing about the instance) or ``unknown`` (time limit). Star5's groups are the named
subgroups of :func:`gossipcert.symmetry.groups.star_subgroups`; other graphs use
:func:`~gossipcert.symmetry.groups.nauty_subgroups`.

Run with the project's Python, e.g.
``nice -n 10 .venv/bin/python benchmarks/symmetric_search.py star-graph:5 8 --limit 90``;
``--store DIR`` writes each found schedule to ``DIR`` as schedule JSON. Times on a busy
machine vary. ``--mirror-right TAU`` (star graphs; e.g. ``02134``) asks only for schedules
whose round ``R + 1 - t`` is the right map ``pi -> pi o tau`` of round ``t``
(palindromes, :mod:`gossipcert.research.palindrome`); right maps commute with the left groups.
``--mirror NAME`` does the same with one of nauty's maps (``g0``, ``g0*g1``, ...), which
must map the group's edge orbits onto orbits (always so when the map is in the group);
groups it does not fit are listed as skipped.

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

from gossipcert.errors import SpecError
from gossipcert.finders.invariant import symmetric_search
from gossipcert.instance import parse_instance
from gossipcert.schedule import write_schedule
from gossipcert.symmetry.groups import nauty_subgroups, right_map, star_subgroups


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("graph")
    parser.add_argument("rounds", type=int)
    parser.add_argument("--limit", type=float, default=60.0, help="seconds per group")
    parser.add_argument("--groups", nargs="*", help="names of the groups to try (default all)")
    parser.add_argument("--counting", action="store_true", help="add the counting constraints")
    parser.add_argument("--store", help="directory for found schedules")
    parser.add_argument("--stop-at-first", action="store_true", help="stop at the first sat")
    parser.add_argument("--mirror-right", help="star graphs: palindromes up to the right map TAU")
    parser.add_argument("--mirror", help="palindromes up to nauty's map NAME (g0, g0*g1, ...)")
    args = parser.parse_args()
    inst = parse_instance(args.graph, "telephone", "gossip")
    mirror = None
    if args.mirror_right:
        mirror = right_map(inst.graph, [int(c) for c in args.mirror_right])
    elif args.mirror:
        mirror = nauty_subgroups(inst)[args.mirror][0]
    if args.graph.startswith("star-graph:5"):
        groups = star_subgroups(inst.graph)
    else:
        groups = nauty_subgroups(inst)
    names = args.groups or list(groups)
    label = args.mirror_right or args.mirror
    what = f", palindromes up to the map {label}" if mirror else ""
    print(f"{args.graph}, telephone gossip, {args.rounds} rounds{what}, {args.limit:g} s per group")
    print()
    print("| group H | order | edge orbits (usable) | pair orbits | clauses | verdict | seconds |")
    print("|---|---|---|---|---|---|---|")
    for name in names:
        t0 = time.monotonic()
        try:
            res = symmetric_search(
                inst,
                groups[name],
                args.rounds,
                time_limit=args.limit,
                counting=args.counting,
                mirror=mirror,
            )
        except SpecError as err:  # e.g. the mirror does not map this group's orbits onto orbits
            print(f"| `{name}` | | | | | skipped: {err} | |", flush=True)
            continue
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
            name_tag = f"{name}-mirror-{label}" if mirror else name
            tag = re.sub(r"[^A-Za-z0-9]+", "-", f"{args.graph}-{args.rounds}-{name_tag}").strip("-")
            write_schedule(res.schedule, inst, out / f"{tag}.json")
        if res.schedule is not None and args.stop_at_first:
            break


if __name__ == "__main__":
    main()
