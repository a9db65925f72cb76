"""Certified AllGather and AlltoAll on the machines of TACCL and TE-CCL, beside their figures.

For each instance (``dgx2``, ``ndv2:2``, ``ndv2:4`` by default; AllGather = ``gossip`` and
AlltoAll = ``total-exchange``, 1 and 2 chunks; all-port model) the script runs
:func:`gossipcert.solve` with a time limit and prints gossipcert's certified minimum number
of rounds (or the bracket it reached, with what gave each side), the lower bound's evidence,
the construction that gave the schedule and the wall time; then the figures the published
synthesizers report for the same machine, where they exist.

Units (:mod:`gossipcert.graphs.machines`): a round is the time a chunk takes over the
machine's slowest link, every link carries its bandwidth over the slowest one's chunks a
round, a switch is a router (two rounds through it). TE-CCL's coarse epochs
(``EpochType.SLOWEST_LINK``, its "Slow" runs) are the same unit, so its epoch counts at the
largest buffer (1 GB, where its ``alpha`` is negligible) are set beside gossipcert's rounds.
Its model differs: TE-CCL's switch-to-GPU links are instantaneous (one epoch through a
switch), its two-chassis NDv2 takes node 0 for a switch (``set_switch_indicies`` returns
``[0]`` for more than one chassis, so 15 GPUs hold data: its AlltoAll output moves 56 chunks
across each way, not 64), its NICs are one-way links (``0 -> 9``, ``8 -> 1``), its AlltoAll
may split a chunk, and Gurobi's answer is optimal for its epoch discretisation with no
certificate. TACCL minimises an alpha-beta time with a sketch (hierarchical by design, not
optimal); its solver times are those TE-CCL's repository tabulates for NDv2 x 2.

Sources of the published figures (read from the repositories, not run here):

- TE-CCL: github.com/microsoft/TE-CCL, ``teccl/examples/experiments/output_provided/
  <Machine>_output/<K>_chassis/<Collective>/{Slow,Fast}/<size>.json`` (``3-Epochs_Required``,
  ``Solver_Time``; 11 buffer sizes 1 KB .. 1 GB); the paper: X. Liu et al., "Rethinking
  machine learning collective communication as a multi-commodity flow problem", SIGCOMM 2024;
- TACCL: ``teccl/examples/experiments_output/tables/individual_tables/
  TACCL_NDv2_2_chassis_{AllGather,AlltoAll}.csv`` in the same repository (TACCL Solver Time);
  the paper: A. Shah et al., "TACCL: Guiding collective algorithm synthesis using
  communication sketches", NSDI 2023.

Run with the project's Python, e.g.
``nice -n 10 .venv/bin/python benchmarks/synthesis_scale.py --time-limit 600 --out r.md``.
Say the load average beside the times (the script prints it).
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

from gossipcert.api import solve

#: the default machines and collectives
MACHINES = ("dgx2", "ndv2:2", "ndv2:4")
COLLECTIVES = (
    ("AllGather", "gossip"),
    ("AllGather", "gossip:chunks=2"),
    ("AlltoAll", "total-exchange"),
    ("AlltoAll", "total-exchange:chunks=2"),
)

#: (machine, collective, chunks) -> the published figure, as one cell of text
PUBLISHED: dict[tuple[str, str, int], str] = {
    ("ndv2:2", "AllGather", 1): (
        "TE-CCL: 10 slow epochs (1 GB), solver 4.5-624 s (slow), 34-773 s (fast epochs, "
        "35 at 1 GB); 15 GPUs hold data. TACCL: solver 3.0-62.7 s"
    ),
    ("ndv2:2", "AlltoAll", 1): (
        "TE-CCL: 59 slow epochs (1 GB; 56 chunks cross each way), solver 462-498 s (slow), "
        "653-1538 s (fast). TACCL: solver 27.7-1222 s"
    ),
    ("ndv2:4", "AllGather", 1): (
        "TE-CCL: 26 slow epochs (1 GB; switch to GPU instantaneous), solver 142-7563 s "
        "(slow), 2273-30872 s (fast)"
    ),
    ("dgx2", "AllGather", 1): (
        "TE-CCL ran two DGX-2 chassis only (32 GPUs: 4 slow epochs, solver 12-1504 s)"
    ),
    ("dgx2", "AlltoAll", 1): (
        "TE-CCL ran two DGX-2 chassis only (32 GPUs: 34 slow epochs, solver 505-1333 s)"
    ),
}


def _load() -> str:
    one, five, fifteen = os.getloadavg()
    return f"{one:.2f}, {five:.2f}, {fifteen:.2f}"


def _result_cell(res: object) -> tuple[str, str, str]:
    """(rounds or bracket, lower-bound evidence, upper-bound source) of a solve result."""
    status = getattr(res, "status", "?")
    optimum = getattr(res, "optimum", None)
    lower, upper = getattr(res, "lower", None), getattr(res, "upper", None)
    evidence = getattr(res, "lower_evidence", {}) or {}
    kind = str(evidence.get("kind", "?"))
    why = f"{kind}: {evidence['name']}" if "name" in evidence else kind
    source = str(getattr(res, "upper_source", "") or "-")
    if status == "optimal" and getattr(res, "certified", False):
        return f"**{optimum}** (certified)", why, source
    return f"[{lower}, {upper}] ({status})", why, source


def run(machines: tuple[str, ...], time_limit: float) -> list[str]:
    """The markdown lines of the table."""
    lines = [
        "| machine | GPUs | collective | chunks | gossipcert rounds | lower bound | "
        "schedule | wall s | published (other models, see notes) |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for machine in machines:
        for name, problem in COLLECTIVES:
            chunks = int(problem.partition("chunks=")[2] or 1)
            start = time.perf_counter()
            res = solve(machine, "all-port", problem, time_limit=time_limit)
            wall = time.perf_counter() - start
            rounds, why, source = _result_cell(res)
            gpus = len([v for v in range(res.instance.n) if res.instance.holdings[v]])
            published = PUBLISHED.get((machine, name, chunks), "-")
            line = (
                f"| {machine} | {gpus} | {name} | {chunks} | {rounds} | {why} | {source} | "
                f"{wall:.1f} | {published} |"
            )
            print(line, flush=True)
            lines.append(line)
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--time-limit", type=float, default=600.0, help="seconds per solve")
    parser.add_argument("--machines", nargs="*", default=list(MACHINES))
    parser.add_argument("--out", help="write the table (markdown) to this file too")
    args = parser.parse_args()
    head = [
        f"time limit {args.time_limit:g} s per instance; load average at the start "
        f"{_load()} (1, 5, 15 min)",
        "",
    ]
    print(head[0], flush=True)
    print(flush=True)
    lines = run(tuple(args.machines), args.time_limit)
    tail = ["", f"load average at the end {_load()}"]
    print(tail[1])
    if args.out:
        Path(args.out).write_text("\n".join(head + lines + tail) + "\n")


if __name__ == "__main__":
    main()
