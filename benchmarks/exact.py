"""Certify a fixed suite of telephone-gossip instances and print tables.

Usage::

    python benchmarks/exact.py                 # the whole suite, both back-ends
    python benchmarks/exact.py --quick         # the small instances only
    python benchmarks/exact.py --only ccc:4 butterfly:4 --backends sat
    python benchmarks/exact.py --ablation      # also: time with each technique switched off

Table 1 runs the full pipeline (``gossipcert solve``: bounds, heuristics and constructions,
solver search, DRAT proof and independent check) and reports the optimum, the lower-bound
evidence, the time to find the optimal schedule, the time to prove one round fewer
impossible, and the proof's size.

Table 2 (``--ablation``) isolates the two solver questions -- "is there a schedule of ``R*``
rounds?" (find) and "of ``R* - 1``?" (prove) -- and times each with all encoding techniques on,
and with distance pruning, counting constraints, matching dominance or symmetry breaking
switched off one at a time, and all off (the plain knowledge encoding), each under a
per-query time limit.
"""

from __future__ import annotations

import argparse
import time
from dataclasses import replace

from gossipcert.encodings import EncodingOptions, encoding_for
from gossipcert.instance import Instance, parse_instance
from gossipcert.search.entry import solve
from gossipcert.solvers.backends import Status, make_backend
from gossipcert.symmetry.automorphisms import add_lex_leader, automorphism_generators

SUITE = [
    "complete:8",
    "complete:9",
    "complete:12",
    "complete:15",
    "complete:16",
    "ring:9",
    "ring:10",
    "path:7",
    "path:8",
    "hypercube:3",
    "hypercube:4",
    "hypercube:5",
    "hypercube:6",
    "petersen",
    "torus:3x3",
    "torus:4x4",
    "torus:3x5",
    "ccc:3",
    "butterfly:3",
    "shuffle-exchange:3",
    "shuffle-exchange:4",
    "debruijn:3",
    "debruijn:4",
    "star-graph:4",
    "pancake:4",
    "ccc:4",
    "butterfly:4",
]
QUICK = [g for g in SUITE if g not in ("ccc:4", "butterfly:4", "hypercube:6", "complete:16")]

VARIANTS = {
    "all": EncodingOptions(),
    "-prune": EncodingOptions(prune=False),
    "-counting": EncodingOptions(counting=False),
    "-dominance": EncodingOptions(dominance=False),
    "-symmetry": EncodingOptions(symmetry=False),
    "plain": EncodingOptions(prune=False, counting=False, dominance=False, symmetry=False),
}


def full_pipeline(graph: str, backend: str, limit: float) -> tuple[str, int | None]:
    inst = parse_instance(graph, "telephone", "gossip")
    t0 = time.monotonic()
    res = solve(inst, backend=backend, time_limit=limit)
    total = time.monotonic() - t0
    ev = res.evidence
    kind = ev.get("kind", "?")
    what = {
        "closed-form": f"bound:{ev.get('name')}",
        "drat": "DRAT checked",
        "solver-claim": "solver claim",
    }.get(kind, kind)
    proof = f"{ev['proof_lines']} lines" if kind == "drat" else "-"
    value = (
        str(res.optimum) if res.status == "optimal" else f"[{res.lower_bound},{res.upper_bound}]"
    )
    row = (
        f"{graph:<20}{inst.n:>5}{inst.graph.number_of_edges():>6}{value:>9}  {what:<22}"
        f"{res.times.get('find', 0.0):>8.2f}{res.times.get('prove', 0.0):>8.2f}"
        f"{res.times.get('proof', 0.0):>8.2f}{total:>8.2f}  {proof:<14}{res.upper_source}"
    )
    return row, res.optimum


def one_query(
    inst: Instance, rounds: int, opts: EncodingOptions, backend: str, limit: float
) -> tuple[Status, float]:
    enc = encoding_for(inst, opts)
    enc.extend_to(rounds)
    if opts.symmetry:
        add_lex_leader(enc, automorphism_generators(inst))
    solver = make_backend(backend, enc.formula)
    t0 = time.monotonic()
    try:
        status = solver.solve([enc.selector(rounds)], t0 + limit)
    finally:
        solver.close()
    return status, time.monotonic() - t0


def ablation_row(graph: str, optimum: int, backend: str, limit: float) -> str:
    inst = parse_instance(graph, "telephone", "gossip")
    cells = []
    for opts in VARIANTS.values():
        parts = []
        for rounds, expect in ((optimum, Status.SAT), (optimum - 1, Status.UNSAT)):
            if rounds < 1:
                parts.append("-")
                continue
            status, secs = one_query(inst, rounds, replace(opts), backend, limit)
            if status is Status.UNKNOWN:
                parts.append(">" + f"{limit:g}")
            else:
                assert status is expect, (graph, rounds, status)
                parts.append(f"{secs:.1f}")
        cells.append("/".join(parts))
    return f"{graph:<20}{optimum:>4}  " + "".join(f"{c:>15}" for c in cells)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small instances only")
    parser.add_argument("--only", nargs="*", help="graph specs to run instead of the suite")
    parser.add_argument("--backends", nargs="*", default=["sat", "cpsat"])
    parser.add_argument("--time-limit", type=float, default=600.0, help="seconds per instance")
    parser.add_argument("--ablation", action="store_true", help="also print table 2")
    parser.add_argument(
        "--query-limit", type=float, default=120.0, help="seconds per query in table 2"
    )
    args = parser.parse_args()
    graphs = args.only or (QUICK if args.quick else SUITE)
    optima: dict[str, int] = {}
    for backend in args.backends:
        print(f"\nTable 1 -- telephone gossip, back-end {backend}, limit {args.time_limit:g} s")
        head = (
            f"{'instance':<20}{'n':>5}{'m':>6}{'optimum':>9}  {'lower-bound evidence':<22}"
            f"{'find s':>8}{'prove s':>8}{'proof s':>8}{'total s':>8}  {'proof size':<14}"
            "schedule from"
        )
        print(head)
        print("-" * len(head))
        for g in graphs:
            row, opt = full_pipeline(g, backend, args.time_limit)
            print(row, flush=True)
            if opt is not None:
                optima[g] = opt
    if args.ablation:
        for backend in args.backends:
            print(
                f"\nTable 2 -- seconds to find R* / prove R*-1 infeasible, back-end {backend}, "
                f"limit {args.query_limit:g} s per query"
            )
            head = f"{'instance':<20}{'R*':>4}  " + "".join(f"{k:>15}" for k in VARIANTS)
            print(head)
            print("-" * len(head))
            for g in graphs:
                if g in optima:
                    print(ablation_row(g, optima[g], backend, args.query_limit), flush=True)


if __name__ == "__main__":
    main()
