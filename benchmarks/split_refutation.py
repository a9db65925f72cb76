"""Where the time of a split refutation goes: per cube, solving, proof size and each checker.

Runs :func:`gossipcert.search.split_refutation.refute_by_cubes` (the orbit cubes of
``solve --split``) on one instance and horizon and prints, per cube, CaDiCaL's seconds with
the proof, the proof's lines and every checker's verdict and seconds, then the wall and CPU
seconds of the whole split. A ``drat-trim`` binary is used when ``GOSSIPCERT_DRAT_TRIM``
names one (see :mod:`gossipcert.proofs.checkers`). Example (Petersen half-duplex, 6 rounds
impossible)::

    GOSSIPCERT_DRAT_TRIM=/path/to/drat-trim nice -n 10 .venv/bin/python \\
        benchmarks/split_refutation.py petersen -m half-duplex -r 6 --depth 2 --jobs 2

Timings on a shared machine vary from run to run; quote the command with the figures.
"""

from __future__ import annotations

import argparse
import resource
import time

from gossipcert.instance import parse_instance
from gossipcert.search.split_refutation import refute_by_cubes


def cpu_seconds() -> float:
    """CPU seconds (user + system) of this process and its finished children."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("graph")
    ap.add_argument("-m", "--model", default="half-duplex")
    ap.add_argument("-r", "--rounds", type=int, required=True, help="horizon to refute")
    ap.add_argument("--depth", type=int, default=1, choices=(1, 2))
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--time-limit", type=float, default=600.0)
    args = ap.parse_args()
    inst = parse_instance(args.graph, args.model, "gossip")
    t0, c0 = time.monotonic(), cpu_seconds()
    out = refute_by_cubes(
        inst,
        args.rounds,
        depth=args.depth,
        jobs=args.jobs,
        deadline=t0 + args.time_limit,
    )
    wall, cpu = time.monotonic() - t0, cpu_seconds() - c0
    print(f"{args.graph} {args.model}, {args.rounds} rounds, depth {args.depth}: {out.status}")
    print(f"cubes refuted {out.refuted} of {out.cubes}; wall {wall:.1f} s, CPU {cpu:.1f} s")
    if out.evidence is None:
        return
    print("| cube | solve s | proof lines | checkers (s) | cube total s |")
    print("|---|---|---|---|---|")
    for i, cube in enumerate(out.evidence["cubes"]):
        checks = "; ".join(
            f"{c['checker'].split(' (')[0]} {c['status']} {c['seconds']:.1f}"
            for c in cube.get("checkers", [])
        )
        print(
            f"| {i} | {cube.get('solve_seconds', 0):.1f} | {cube.get('proof_lines', 0)} "
            f"| {checks} | {cube.get('seconds', 0):.1f} |"
        )


if __name__ == "__main__":
    main()
