"""The idle budget of the broadcast encoding, switched on and off: one SAT query each.

For each instance ``random:N,M,seed=S`` (broadcast from node 0, telephone model) and horizon
``R``, three encodings (dominance on, no symmetry breaking) are built: the broadcast encoding
with and without the idle budget of :mod:`gossipcert.encodings.waste`, and the generic
knowledge encoding. CaDiCaL is asked once whether ``R`` rounds suffice, within
``--time-limit`` seconds. A schedule found is decoded and verified. The table gives the
number of constraints (before cardinality constraints are compiled to clauses), the answer
and the time of each, encoding included.

Run with the project's Python, e.g.::

    nice -n 10 .venv/bin/python benchmarks/broadcast_budget.py \
        random:500,1500,seed=2:9 random:1000,3000,seed=1:10 --time-limit 300
"""

from __future__ import annotations

import argparse
import time

from gossipcert.encodings import EncodingOptions, encoding_for
from gossipcert.instance import parse_instance
from gossipcert.simulate import simulate
from gossipcert.solvers.backends import SatBackend, Status

#: the encodings compared: name -> (broadcast encoding, idle budget)
VARIANTS = {
    "broadcast + budget": (True, True),
    "broadcast": (True, False),
    "knowledge": (False, False),
}


def one_query(graph: str, rounds: int, variant: str, time_limit: float) -> dict[str, object]:
    """Build the encoding, ask once whether ``rounds`` suffice; the row's fields."""
    inst = parse_instance(graph, "telephone", "broadcast:0")
    t0 = time.monotonic()
    broadcast, waste = VARIANTS[variant]
    options = EncodingOptions(symmetry=False, counting=False, broadcast=broadcast, waste=waste)
    enc = encoding_for(inst, options)
    enc.extend_to(rounds)
    selector = enc.selector(rounds)
    solver = SatBackend(enc.formula)
    try:
        status = solver.solve([selector], time.monotonic() + time_limit)
        if status is Status.SAT:
            rep = simulate(inst, enc.decode(rounds, solver.value))
            if not rep.ok:
                raise SystemExit(f"{graph}: the decoded schedule does not verify")
    finally:
        solver.close()
    return {
        "clauses": len(enc.formula.items),
        "status": status.value,
        "seconds": time.monotonic() - t0,
    }


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("cases", nargs="+", help="GRAPH:R, e.g. random:500,1500,seed=2:9")
    ap.add_argument("--time-limit", type=float, default=300.0, help="seconds per query")
    args = ap.parse_args(argv)
    print("| graph | R | encoding | constraints | answer | time (s) |")
    print("|---|---|---|---|---|---|")
    for case in args.cases:
        graph, _, r = case.rpartition(":")
        for variant in VARIANTS:
            row = one_query(graph, int(r), variant, args.time_limit)
            print(
                f"| {graph} | {r} | {variant} | {row['clauses']} | "
                f"{row['status']} | {row['seconds']:.1f} |",
                flush=True,
            )


if __name__ == "__main__":
    main()
