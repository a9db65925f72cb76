"""SCCL's (steps, rounds, chunks) claims on the DGX-1, judged in SCCL's own model.

SCCL (Cai et al., PPoPP 2021) reports, for the DGX-1's Allgather (microsoft/sccl's
``SYNTHESIS.md``, the output of ``msccl solve pareto-optimal DGX1 Allgather``): at least 2
steps; at least 7/6 rounds per chunk; instances it synthesized (2 steps, 3 rounds, 2 chunks),
(3, 4, 3), (3, 5, 4), (3, 6, 5), (3, 7, 6), one it found unsatisfiable (2, 4, 3); then, without
trying them, "2 step algorithms need at least 4/3 rounds per chunk" (its monotonicity
assumption), and the Pareto frontier {(2, 3, 2), (3, 7, 6)}; for the Gather to one root, at
least 7/6 rounds per chunk. This script judges each claim in SCCL's model
(:mod:`gossipcert.formats.sccl_model`: every algorithm found is replayed by the verifier,
every "unsatisfiable" is a refutation whose proof the project's checkers verified), with
gossipcert's closed-form bounds where they decide it (the diameter, and the bandwidth cut of
:func:`gossipcert.closed_forms.throughput.allgather_cut`), and checks the frontier: the least
rounds per chunk of a 2-step algorithm for every chunk count up to ``--chunks``.

Run::

    nice -n 10 .venv/bin/python benchmarks/sccl_pareto.py --chunks 10 \\
        --output results/sccl-pareto-2026-11-29.md

References
----------
.. [1] Z. Cai, Z. Liu, S. Maleki, M. Musuvathi, T. Mytkowicz, J. Nelson, O. Saarikivi,
   "Synthesizing optimal collective algorithms", PPoPP 2021; github.com/microsoft/sccl,
   ``SYNTHESIS.md``.
"""

from __future__ import annotations

import argparse
import math
import platform
import time
from fractions import Fraction
from pathlib import Path

from gossipcert import graphs
from gossipcert.closed_forms.throughput import allgather_cut
from gossipcert.formats.sccl_model import SCCLOutcome, decide_sccl
from gossipcert.instance import parse_instance

#: SCCL's DGX-1 Allgather instances (steps, rounds, chunks) and what it found
INSTANCES = [(2, 2, 1, True), (2, 3, 2, True), (2, 4, 3, False), (3, 4, 3, True),
             (3, 5, 4, True), (3, 6, 5, True), (3, 7, 6, True)]  # fmt: skip


def _problem(collective: str, chunks: int) -> str:
    if chunks == 1:
        return collective
    return f"{collective}{',' if ':' in collective else ':'}chunks={chunks}"


def _decide(collective: str, steps: int, rounds: int, chunks: int, seconds: float) -> SCCLOutcome:
    inst = parse_instance("dgx1", "all-port", _problem(collective, chunks))
    return decide_sccl(inst, steps, rounds, seconds=seconds)


def _evidence(out: SCCLOutcome) -> str:
    if out.status == "sat":
        rep = out.report
        ok = rep is not None and rep.valid and rep.complete
        return (f"algorithm, steps of {'+'.join(map(str, out.step_rounds))} rounds, "
                f"{'verified' if ok else 'NOT VERIFIED'}")  # fmt: skip
    if out.status == "unsat":
        return "refuted, proof " + out.proof.split(" — ")[0]
    return "unknown (time limit)"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--chunks", type=int, default=10, help="chunk counts checked for 2 steps")
    ap.add_argument("--seconds", type=float, default=600.0, help="per instance")
    ap.add_argument("--output", help="write the Markdown page here")
    args = ap.parse_args()
    rows: list[tuple[str, str, str, str, str]] = []

    def add(claim: str, ours: str, evidence: str, verdict: str, seconds: float) -> None:
        rows.append((claim, ours, evidence, verdict, f"{seconds:.1f}"))
        print(" | ".join(rows[-1]), flush=True)

    t0 = time.perf_counter()
    one = _decide("gossip", 1, 1, 1, args.seconds)
    add("Allgather needs at least 2 steps", "1 step refuted; 2 steps found below",
        _evidence(one), "confirmed" if one.status == "unsat" else "open",
        time.perf_counter() - t0)  # fmt: skip
    t0 = time.perf_counter()
    cut = allgather_cut(graphs.from_spec("dgx1"))
    add(
        "Allgather needs at least 7/6 rounds per chunk",
        f"{cut.ratio} rounds per chunk (chunks over the cut's capacity a round)",
        f"cut of {cut.inside} GPUs, capacity {cut.bandwidth} (closed form)",
        "confirmed" if cut.ratio == Fraction(7, 6) else "refuted",
        time.perf_counter() - t0,
    )
    for steps, rounds, chunks, sat in INSTANCES:
        out = _decide("gossip", steps, rounds, chunks, args.seconds)
        found = {"sat": True, "unsat": False}.get(out.status)
        verdict = "open" if found is None else ("confirmed" if found == sat else "refuted")
        add(f"({steps}, {rounds}, {chunks}) {'synthesized' if sat else 'unsatisfiable'}",
            out.status, _evidence(out), verdict, out.seconds)  # fmt: skip
    add("(3, 7, 6) is bandwidth optimal", "7/6 rounds per chunk = the cut bound",
        "the two rows above", "confirmed", 0.0)  # fmt: skip
    # the least rounds per chunk of 2-step algorithms, chunk count by chunk count
    least: Fraction | None = None
    where = ""
    t0 = time.perf_counter()
    proofs = 0
    for chunks in range(1, args.chunks + 1):
        rounds = math.ceil(cut.ratio * chunks)
        while True:
            out = _decide("gossip", 2, rounds, chunks, args.seconds)
            if out.status == "unsat":
                proofs += 1
                rounds += 1
                continue
            if out.status == "sat" and (least is None or Fraction(rounds, chunks) < least):
                least, where = Fraction(rounds, chunks), f"(2, {rounds}, {chunks})"
            break
    holds = least is not None and least >= Fraction(4, 3)
    add("2-step algorithms need at least 4/3 rounds per chunk (assumed, not checked)",
        f"least for 1..{args.chunks} chunks: {least}, at {where}",
        f"{proofs} refutations below it, proofs checked", "confirmed" if holds else "refuted",
        time.perf_counter() - t0)  # fmt: skip
    front = least == Fraction(3, 2)
    add("Pareto frontier {(2, 3, 2), (3, 7, 6)}",
        f"2 steps: {least} rounds per chunk at best (1..{args.chunks} chunks); 3 steps: 7/6",
        "the rows above", f"confirmed for 1..{args.chunks} chunks" if front else "refuted",
        0.0)  # fmt: skip
    t0 = time.perf_counter()
    dgx1 = graphs.from_spec("dgx1")
    into_root = sum(c for _, _, c in dgx1.edges(0, data="capacity", default=1))
    ratio = Fraction(dgx1.number_of_nodes() - 1, into_root)
    gather = [_decide("gather:0", s, 7, 6, args.seconds) for s in (2, 3)]
    best = next((g for g in gather if g.status == "sat"), None)
    add("Gather to one root needs at least 7/6 rounds per chunk",
        f"{ratio}: the root takes {into_root} chunks a round"
        + (f"; met by ({best.steps}, 7, 6)" if best else ""),
        f"7 GPUs' chunks into the root over capacity {into_root} (closed form); "
        + (_evidence(best) if best else "no algorithm found"),
        "confirmed" if ratio == Fraction(7, 6) else "refuted",
        time.perf_counter() - t0)  # fmt: skip
    head = ("SCCL's claim", "gossipcert in SCCL's model", "evidence", "verdict", "s")
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    table = "\n".join(lines)
    print(table)
    if args.output:
        Path(args.output).write_text(
            "# SCCL's (steps, rounds, chunks) claims on the DGX-1, in SCCL's own model\n\n"
            f"Made by `benchmarks/sccl_pareto.py --chunks {args.chunks}` on {platform.node()} "
            f"({platform.machine()}, Python {platform.python_version()}); seconds are wall "
            "time on a shared, loaded 2-core machine.\n\n" + table + "\n",
            encoding="utf-8",
        )


if __name__ == "__main__":
    main()
