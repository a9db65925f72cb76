"""NCCL's ring and PAT allgathers and reduce-scatters beside the certified optimum.

Usage::

    .venv/bin/python benchmarks/nccl_algorithms.py [--sizes 8 16 32] [--time-limit S]

For each machine (``ring:N`` and ``complete:N`` under all-port, ``complete:N`` under
single-port with ``p = 1``, i.e. one chunk into and one out of each GPU a round, and ``dgx2``
under all-port) and each size, the allgather of :mod:`gossipcert.constructions.nccl` and the
reduce-scatter that is its time reversal (NCCL's own reduce-scatters are the reversals:
:func:`gossipcert.search.reversal.reduction_from_dual`) are replayed by the verifier; their
rounds are set beside the optimum of ``gossip`` and ``reduce-scatter`` that ``solve`` certifies
within the time limit (or the bracket it reaches), with the evidence of the lower bound and
the gap. Prints a Markdown table.
"""

from __future__ import annotations

import argparse
import time

from gossipcert.constructions.nccl import ALGORITHMS, nccl_allgather
from gossipcert.instance import parse_instance
from gossipcert.search.reversal import reduction_from_dual
from gossipcert.search.watchdog import solve_within
from gossipcert.simulate import simulate


def machines(sizes: list[int]) -> list[tuple[str, str]]:
    out = []
    for n in sizes:
        out += [
            (f"ring:{n}", "all-port"),
            (f"complete:{n}", "all-port"),
            (f"complete:{n}", "single-port:p=1"),
        ]
    if 16 in sizes:
        out.append(("dgx2", "all-port"))
    return out


def _optimum(
    graph: str, model: str, problem: str, limit: float
) -> tuple[str, int | None, int | None]:
    res = solve_within(parse_instance(graph, model, problem), time_limit=limit, proof=False)
    kind = (res.evidence or {}).get("kind", "none")
    if res.status == "optimal":
        return f"{res.optimum} ({kind})", res.optimum, res.optimum
    return f"[{res.lower_bound}, {res.upper_bound}] ({kind})", res.lower_bound, res.upper_bound


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[8, 16, 32])
    parser.add_argument("--time-limit", type=float, default=120.0)
    args = parser.parse_args()
    print(
        "| machine | model | collective | optimum (evidence) | ring | PAT | gap ring | gap PAT "
        "| seconds |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    for graph, model in machines(args.sizes):
        start = time.monotonic()
        gossip = parse_instance(graph, model, "gossip")
        rs = parse_instance(graph, model, "reduce-scatter")
        rounds: dict[str, dict[str, str]] = {"allgather": {}, "reduce-scatter": {}}
        numbers: dict[str, dict[str, int]] = {"allgather": {}, "reduce-scatter": {}}
        for algorithm in ALGORITHMS:
            sched = nccl_allgather(gossip, algorithm)
            rep = simulate(gossip, sched)
            back = simulate(rs, reduction_from_dual(gossip, sched, rs))
            for coll, r in (("allgather", rep), ("reduce-scatter", back)):
                rounds[coll][algorithm] = f"{r.rounds} ({'valid' if r.ok else 'INVALID'})"
                numbers[coll][algorithm] = r.rounds
        for coll, problem in (("allgather", "gossip"), ("reduce-scatter", "reduce-scatter")):
            text, low, high = _optimum(graph, model, problem, args.time_limit)

            def gap(
                a: str,
                c: str = coll,
                lo: int | None = low,
                hi: int | None = high,
                got: dict[str, dict[str, int]] = numbers,
            ) -> str:
                r = got[c][a]
                if lo is not None and lo == hi:
                    return str(r - lo)
                return f"{r - (hi or r)}..{r - (lo or 0)}"

            print(
                f"| {graph} | {model} | {coll} | {text} | {rounds[coll]['ring']} | "
                f"{rounds[coll]['pat']} | {gap('ring')} | {gap('pat')} | "
                f"{time.monotonic() - start:.0f} |",
                flush=True,
            )


if __name__ == "__main__":
    main()
