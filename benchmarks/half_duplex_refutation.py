"""Half-duplex refutations: seconds to prove "R* - 1 rounds are impossible", by encoding.

For each instance the standalone CNF of :func:`gossipcert.solvers.standalone.standalone_cnf` (the
search's options, with lex-leader symmetry breaking) for ``R* - 1`` rounds is solved by
CaDiCaL without a proof, once per variant:

- ``plain``: the search's default options;
- ``last-round``: plus the half-duplex last-round count (``EncodingOptions.last_round``);
- ``counting``: ``--counting`` (the per-node and per-packet caps, and the last-round count).

It also prints the closed-form lower bound with and without the half-duplex golden-ratio
bound. Run with the project's Python, e.g.
``nice -n 10 .venv/bin/python benchmarks/half_duplex_refutation.py --repeat 2``.
Timings on a busy machine vary; the table gives every run.
"""

from __future__ import annotations

import argparse
import time
from dataclasses import replace

from pysat.solvers import Solver

from gossipcert.closed_forms import LOWER_BOUNDS, best_lower_bound
from gossipcert.encodings import EncodingOptions
from gossipcert.instance import parse_instance
from gossipcert.solvers.standalone import standalone_cnf

# (graph, optimum of half-duplex gossip)
SUITE = [("petersen", 7), ("ring:7", 7), ("complete:6", 5), ("hypercube:3", 6), ("mesh:3x3", 7)]

VARIANTS = {
    "plain": EncodingOptions.for_search(),
    "last-round": replace(EncodingOptions.for_search(), last_round=True),
    "counting": EncodingOptions.for_search(counting=True),
}


def refute_seconds(graph: str, rounds: int, options: EncodingOptions) -> tuple[float, bool]:
    """Seconds for CaDiCaL to decide the CNF, and whether it is unsatisfiable."""
    cnf = standalone_cnf(parse_instance(graph, "half-duplex", "gossip"), rounds, options)
    t0 = time.monotonic()
    with Solver(name="cadical195", bootstrap_with=cnf.clauses) as s:
        sat = s.solve()
    return time.monotonic() - t0, not sat


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--only", nargs="*", help="graph specs to run")
    args = ap.parse_args()
    print("| graph | R*-1 | lower bound (without golden) | variant | seconds per run |")
    print("|---|---|---|---|---|")
    for graph, optimum in SUITE:
        if args.only and graph not in args.only:
            continue
        inst = parse_instance(graph, "half-duplex", "gossip")
        lb = best_lower_bound(inst).value
        others = [
            b.value
            for fn in LOWER_BOUNDS
            if fn.__name__ != "half_duplex_golden_bound" and (b := fn(inst)) is not None
        ]
        for name, options in VARIANTS.items():
            runs = []
            for _ in range(args.repeat):
                sec, unsat = refute_seconds(graph, optimum - 1, options)
                assert unsat, f"{graph}: {optimum - 1} rounds should be impossible"
                runs.append(f"{sec:.1f}")
            print(
                f"| {graph} | {optimum - 1} | {lb} ({max(others)}) | {name} | {', '.join(runs)} |",
                flush=True,
            )


if __name__ == "__main__":
    main()
