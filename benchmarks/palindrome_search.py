"""Palindromic schedule search on the open instances: one row per map tried.

For a graph and a horizon ``R``, each map ``phi`` gets :func:`palindrome_search` (rounds
``R + 1 - t`` are ``phi`` of rounds ``t``) with a time limit. A row says ``sat`` (such a
schedule of ``R`` rounds, expanded and verified: an upper bound), ``unsat`` (no palindrome
up to ``phi`` of ``R`` rounds; this says nothing about the instance) or ``unknown`` (time
limit). The maps are those of :func:`gossipcert.research.palindrome.palindrome_maps` (nauty's
generators, their products, and the identity at odd ``R``); on ``star-graph:5`` also the
maps ``pi -> sigma o pi o tau`` named by ``--star`` (``sigma`` on values, ``tau`` on
positions 1..4), e.g. ``--star 01234:02134`` (then only those, unless ``--maps``).

Run with the project's Python, e.g.
``nice -n 10 .venv/bin/python benchmarks/palindrome_search.py debruijn:6 8 --limit 600``;
``--store DIR`` writes each found schedule to ``DIR`` as schedule JSON. ``--cnf DIR``
solves nothing: it writes each map's formula to ``DIR`` as DIMACS
(``GRAPH-R-pal-MAP.cnf``, an existing file is kept), for an outside solver; its
unsatisfiability says the same as an ``unsat`` row. Times on a busy machine vary.

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

from gossipcert.encodings import EncodingOptions
from gossipcert.encodings.cnf import StandaloneCNF
from gossipcert.instance import parse_instance
from gossipcert.research.palindrome import PalindromeEncoding, palindrome_maps, palindrome_search
from gossipcert.schedule import write_schedule
from gossipcert.symmetry.groups import left_map, right_map


def _star_map(graph: object, spec: str) -> list[int]:
    """``SIGMA:TAU`` as digit strings, e.g. ``01234:02134``: ``pi -> sigma o pi o tau``."""
    sigma, tau = ([int(c) for c in part] for part in spec.split(":"))
    left = left_map(graph, sigma)  # type: ignore[arg-type]
    right = right_map(graph, tau)  # type: ignore[arg-type]
    return [right[left[v]] for v in range(len(left))]


def _write_cnf(enc: PalindromeEncoding, path: Path) -> str:
    """The formula as DIMACS (an empty clause when it lost one); the row's verdict."""
    if path.exists():
        return f"kept: {path} exists"
    clauses = [*enc.clauses, *([[]] if enc.out_of_reach else [])]
    cnf = StandaloneCNF(enc.rounds, EncodingOptions(), enc.vpool.top, clauses, 0)
    path.write_text(cnf.dimacs())
    return f"written: {path}"


def _tag(graph: str, rounds: int, name: str) -> str:
    return re.sub(r"[^A-Za-z0-9]+", "-", f"{graph}-{rounds}-pal-{name}").strip("-")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("graph")
    parser.add_argument("rounds", type=int)
    parser.add_argument("--limit", type=float, default=60.0, help="seconds per map")
    parser.add_argument("--maps", nargs="*", help="names of the maps to try (default all)")
    parser.add_argument(
        "--star", nargs="*", default=[], help="star-graph maps SIGMA:TAU (only these)"
    )
    parser.add_argument("--store", help="directory for found schedules")
    parser.add_argument("--stop-at-first", action="store_true", help="stop at the first sat")
    parser.add_argument("--cnf", help="write each map's DIMACS formula here instead of solving")
    args = parser.parse_args()
    inst = parse_instance(args.graph, "telephone", "gossip")
    maps = palindrome_maps(inst, args.rounds)
    for spec in args.star:
        maps[f"star {spec}"] = _star_map(inst.graph, spec)
    star_names = [f"star {spec}" for spec in args.star]
    names = args.maps or star_names or list(maps)
    budget = "formulas written, nothing solved" if args.cnf else f"{args.limit:g} s per map"
    print(f"{args.graph}, telephone gossip, {args.rounds} rounds, {budget}")
    print()
    print("| map phi | nodes fixed | variables | clauses | verdict | seconds |")
    print("|---|---|---|---|---|---|")
    for name in names:
        phi = maps[name]
        t0 = time.monotonic()
        fixed = sum(phi[v] == v for v in range(inst.n))
        if args.cnf:
            enc = PalindromeEncoding(inst, phi, args.rounds)
            Path(args.cnf).mkdir(parents=True, exist_ok=True)
            verdict = _write_cnf(enc, Path(args.cnf) / f"{_tag(args.graph, args.rounds, name)}.cnf")
            print(
                f"| `{name}` | {fixed} | {enc.vpool.top} | {len(enc.clauses)} | {verdict} "
                f"| {time.monotonic() - t0:.1f} |",
                flush=True,
            )
            continue
        res = palindrome_search(inst, phi, args.rounds, time_limit=args.limit)
        s = res.stats
        print(
            f"| `{name}` | {fixed} | {s['variables']} | {s['clauses']} | {res.status.value} "
            f"| {time.monotonic() - t0:.1f} |",
            flush=True,
        )
        if res.schedule is not None and args.store:
            out = Path(args.store)
            out.mkdir(parents=True, exist_ok=True)
            write_schedule(res.schedule, inst, out / f"{_tag(args.graph, args.rounds, name)}.json")
        if res.schedule is not None and args.stop_at_first:
            break


if __name__ == "__main__":
    main()
