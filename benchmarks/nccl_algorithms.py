"""NCCL's ring, PAT and tree algorithms beside the certified optimum.

Usage::

    .venv/bin/python benchmarks/nccl_algorithms.py [--sizes 8 16 32] [--time-limit S]
        [--only allgather|allreduce]

For each machine (``ring:N`` and ``complete:N`` under all-port, ``complete:N`` under
single-port with ``p = 1``, i.e. one chunk into and one out of each GPU a round, and ``dgx2``
under all-port) and each size, the allgather of :mod:`gossipcert.constructions.nccl` and the
reduce-scatter that is its time reversal (NCCL's own reduce-scatters are the reversals:
:func:`gossipcert.search.reversal.reduction_from_dual`) are replayed by the verifier; their
rounds are set beside the optimum of ``gossip`` and ``reduce-scatter`` that ``solve`` certifies
within the time limit (or the bracket it reaches), with the evidence of the lower bound and
the gap. Prints a Markdown table.

Then the allreduce on the same machines: NCCL's ring allreduce (its reduce-scatter, then its
allgather: :func:`gossipcert.search.allreduce.compose`) and its tree
(:func:`gossipcert.constructions.nccl_tree.nccl_tree_allreduce`: the double binary tree with
one GPU a node, where every pair of tree neighbours is linked directly or through a switch,
and the chain NCCL builds inside one machine), each replayed by the verifier, beside the
``allreduce`` optimum ``solve`` certifies (or its bracket, with what gives each end). PAT runs
allgather and reduce-scatter only.
"""

from __future__ import annotations

import argparse
import time

from gossipcert import graphs
from gossipcert.constructions.nccl import ALGORITHMS, nccl_allgather
from gossipcert.constructions.nccl_tree import nccl_tree_allreduce
from gossipcert.errors import NotApplicableError
from gossipcert.instance import Instance, parse_instance
from gossipcert.schedule import Schedule, Transmission
from gossipcert.search.allreduce import compose
from gossipcert.search.reversal import reduction_from_dual
from gossipcert.simulate import simulate
from gossipcert.watchdog import solve_within


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


def ring_allreduce(graph: str, model: str) -> Schedule:
    """NCCL's ring allreduce: the ring reduce-scatter (the ring allgather reversed), then the
    ring allgather."""
    gossip = parse_instance(graph, model, "gossip")
    ring = nccl_allgather(gossip, "ring")
    rs = reduction_from_dual(gossip, ring, parse_instance(graph, model, "reduce-scatter"))
    return compose(rs, gossip, ring)


def _rounds(inst: Instance, build: object) -> tuple[str, int | None]:
    try:
        sched = build() if callable(build) else None
    except NotApplicableError as exc:
        return f"- ({str(exc).split(';')[-1].strip()})", None
    if sched is None:
        return "-", None
    rep = simulate(inst, sched)
    return f"{rep.rounds} ({'valid' if rep.ok else 'INVALID'})", rep.rounds


def _bracket(
    graph: str, model: str, problem: str, limit: float, witness: Schedule | None = None
) -> tuple[str, int | None, int | None]:
    """The optimum with its evidence, or the bracket with what gives each end; ``witness``
    (replayed here) may lower the upper end."""
    inst = parse_instance(graph, model, problem)
    res = solve_within(inst, time_limit=limit, proof=False)
    ev = res.evidence or {}
    lower = f"{ev.get('kind', 'none')}" + (f": {ev['source']}" if ev.get("source") else "")
    low, high, upper = res.lower_bound, res.upper_bound, str(res.upper_source)
    if res.status != "optimal" and witness is not None:
        rep = simulate(inst, witness)
        if rep.ok and (high is None or rep.rounds < high):
            high, upper = rep.rounds, "the switch reduces every chunk (replayed)"
    if low is not None and low == high:
        return f"{low} ({lower}; met by {upper})", low, high
    return f"[{low}, {high}] (lower: {lower}; upper: {upper})", low, high


def switch_reduction(inst: Instance) -> Schedule | None:
    """On a machine whose GPUs all hang off one switch (``dgx2``): in round ``t`` every GPU
    sends its own partial of chunk ``t`` into the switch, which combines them and sends the
    whole chunk back in round ``t + 1`` (``P + 1`` rounds for ``P`` chunks). A switch that
    reduces (NVLS, SHARP) runs it; the round model allows it; None on other machines."""
    procs = graphs.processors(inst.graph)
    hubs = [r for r in graphs.routers(inst.graph) if set(inst.graph.adj[r]) >= set(procs)]
    if len(hubs) != 1 or inst.graph.number_of_edges() != len(procs):
        return None
    hub, chunks = hubs[0], inst.n_packets
    rounds = []
    for t in range(chunks + 1):
        up = [Transmission(v, (hub,), 1 << t, "reduce") for v in procs] if t < chunks else []
        down = [Transmission(hub, (v,), 1 << (t - 1)) for v in procs] if t else []
        rounds.append(tuple(up + down))
    return Schedule(tuple(rounds))


def _gap(rounds: int | None, low: int | None, high: int | None) -> str:
    if rounds is None:
        return "-"
    if low is not None and low == high:
        return str(rounds - low)
    return f"{rounds - (high or rounds)}..{rounds - (low or 0)}"


def allreduce_table(sizes: list[int], limit: float) -> None:
    """The allreduce rows (module docstring)."""
    print(
        "| machine | model | optimum (evidence) | ring (RS + AG) | tree: double binary, "
        "1 GPU a node | tree: chain, one machine | gap ring | gap tree | gap chain | seconds |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|")
    for graph, model in machines(sizes):
        start = time.monotonic()
        inst = parse_instance(graph, model, "allreduce")
        n = len(graphs.processors(inst.graph))
        ring = _rounds(inst, lambda g=graph, m=model: ring_allreduce(g, m))
        tree = _rounds(inst, lambda i=inst: nccl_tree_allreduce(i, 1))
        chain = _rounds(inst, lambda i=inst, k=n: nccl_tree_allreduce(i, k))
        text, low, high = _bracket(graph, model, "allreduce", limit, switch_reduction(inst))
        print(
            f"| {graph} | {model} | {text} | {ring[0]} | {tree[0]} | {chain[0]} | "
            f"{_gap(ring[1], low, high)} | {_gap(tree[1], low, high)} | "
            f"{_gap(chain[1], low, high)} | {time.monotonic() - start:.0f} |",
            flush=True,
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[8, 16, 32])
    parser.add_argument("--time-limit", type=float, default=120.0)
    parser.add_argument("--only", choices=("allgather", "allreduce"))
    args = parser.parse_args()
    if args.only != "allreduce":
        allgather_table(args.sizes, args.time_limit)
    if args.only != "allgather":
        print()
        allreduce_table(args.sizes, args.time_limit)


def allgather_table(sizes: list[int], limit: float) -> None:
    """The allgather and reduce-scatter rows (module docstring)."""
    print(
        "| machine | model | collective | optimum (evidence) | ring | PAT | gap ring | gap PAT "
        "| seconds |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    for graph, model in machines(sizes):
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
            text, low, high = _optimum(graph, model, problem, limit)

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
