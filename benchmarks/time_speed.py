"""How fast an MSCCL algorithm is timed: reading and replaying it, building its ops, the
bound's parts, and the simulation at each size.

Usage: .venv/bin/python benchmarks/time_speed.py FILE.xml --topology MACHINE
       [--sizes S,S,...] [--repeat N]

(Run it with the project's ``.venv`` Python.) Without ``--sizes``: the file's own sizes
(across its ``minBytes..maxBytes``) and, to show the executor's passes, 1 MiB, 64 MiB and
1 GiB. Each stage is run ``--repeat`` times (default 3) and the best time printed; the
discrete part of the bound (a solver search) is not timed here. One row per stage, then one
per size: the passes the executor makes (``*``: more than the 8 simulated, extrapolated),
the ops simulated (ops x simulated passes) and the seconds.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from gossipcert.formats import readers
from gossipcert.formats.msccl_ops import msccl_ops
from gossipcert.formats.verdict import topology_graph
from gossipcert.timed.bound import bandwidth_bound, latency_bound, required_pairs
from gossipcert.timed.machine import machine_of
from gossipcert.timed.simulate import ITERATION_CAP, simulate
from gossipcert.timed.sizes import default_sizes, format_size, parse_sizes


def best_of(repeat: int, fn: Callable[[], Any]) -> tuple[float, Any]:
    best, value = float("inf"), None
    for _ in range(repeat):
        start = time.perf_counter()
        value = fn()
        best = min(best, time.perf_counter() - start)
    return best, value


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("file")
    parser.add_argument("--topology", required=True)
    parser.add_argument("--sizes", default=None)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    path = Path(args.file)
    rep = args.repeat
    t_load, loaded = best_of(rep, lambda: readers.load(str(path), "msccl-xml"))
    algo = loaded.algo
    graph = topology_graph(args.topology, loaded.ranks)
    machine = machine_of(graph, loaded.ranks)
    t_ops, program = best_of(rep, lambda: msccl_ops(algo))
    pairs = required_pairs(loaded.collective, loaded.ranks, loaded.root)
    t_bounds, _ = best_of(
        rep,
        lambda: (latency_bound(machine, pairs), bandwidth_bound(machine, loaded.collective)),
    )
    if args.sizes:
        sizes = parse_sizes(args.sizes)
    else:
        own = default_sizes(algo.min_bytes, algo.max_bytes, algo.nchunksperloop)
        sizes = sorted({*own, float(1 << 20), float(1 << 26), float(1 << 30)})
    print(
        f"{path.name}: {path.stat().st_size:,} bytes, {loaded.collective} on {loaded.ranks} "
        f"ranks, {loaded.steps:,} steps, {sum(op.transfer for op in program.ops):,} transfers "
        f"and {len(program.ops):,} ops; machine {machine.name}; best of {rep}\n"
    )
    print("| stage | seconds |")
    print("|---|---|")
    print(f"| read and replay (verdict) | {t_load:.3f} |")
    print(f"| ops (timing graph) | {t_ops:.3f} |")
    print(f"| latency and bandwidth parts | {t_bounds:.3f} |")
    print("\n| size | passes | ops simulated | time found | seconds |")
    print("|---|---|---|---|---|")
    total = 0.0
    for size in sizes:
        passes = program.passes(size)
        seconds, run = best_of(
            rep,
            lambda s=size, p=passes: simulate(
                machine, program.ops, unit=program.unit(s), iterations=p, carry=program.carry
            ),
        )
        total += seconds
        mark = "*" if passes > ITERATION_CAP else ""
        simulated = len(program.ops) * min(passes, ITERATION_CAP)
        print(
            f"| {format_size(size)} | {passes}{mark} | {simulated:,} | {run.time:.4g} s | "
            f"{seconds:.3f} |"
        )
    print(f"\nall {len(sizes)} sizes: {total:.2f} s of simulation")


if __name__ == "__main__":
    main()
