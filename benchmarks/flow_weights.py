"""The flow weights' two forms, round by round: CPU seconds and whether the numbers agree.

Usage::

    python benchmarks/flow_weights.py mesh:80x80 --rounds 4 --dist-exp 60 --decay 0.99
    python benchmarks/flow_weights.py pancake:7 --rounds 6

The matching heuristic runs (telephone gossip, flow weights, the given ``Dist_Exp`` and
decay) for ``--rounds`` rounds. In each round the border masses of every packet class are
computed by the dense form (:func:`gossipcert.heuristics.flow.border_mass_dense`, one pass
over all cells per level) and by the level lists
(:func:`gossipcert.heuristics.flow_levels.border_mass`, one pass over the cells outside the
dispersion regions), in the same chunks as :func:`~gossipcert.heuristics.flow.flow_weights`,
and compared bit for bit. Printed per round: the largest distance, the classes, the share
of cells outside the dispersion regions, the process CPU seconds of each form and of the
packed reach sets (which give ``top``), and whether the two forms agree. CPU seconds are
process time, so a loaded machine inflates them less than the wall clock.

References
----------
R. Beier and J. F. Sibeyn, "A powerful heuristic for telephone gossiping", section 4.1.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from gossipcert.heuristics.flow import CHUNK_CELLS, border_mass_dense, packet_classes
from gossipcert.heuristics.flow_levels import border_mass
from gossipcert.heuristics.matching import MatchingParams, _Engine
from gossipcert.heuristics.weights import reach_sets
from gossipcert.instance import parse_instance


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("graph")
    ap.add_argument("--rounds", type=int, default=4)
    ap.add_argument("--dist-exp", type=float, default=8.0)
    ap.add_argument("--decay", type=float, default=1.0)
    args = ap.parse_args(argv)
    inst = parse_instance(args.graph, "telephone", "gossip")
    params = MatchingParams(approach="flow", dist_exp=args.dist_exp, dist_exp_decay=args.decay)
    engine = _Engine(inst, params)
    know = engine.start
    n = inst.n
    print(f"{args.graph}: n={n}, {params.describe()}")
    print("| round | top | classes | outside | reach sets s | dense s | level lists s | same |")
    print("|---|---|---|---|---|---|---|---|")
    for t in range(args.rounds):
        if not engine.missing(know):
            break
        c0 = time.process_time()
        top = len(reach_sets(know, engine.demand, engine.nbr)) - 1
        c1 = time.process_time()
        kb, lack, _ = packet_classes(know, engine.demand, engine.n_packets)
        q = kb.shape[1]
        width = max(1, CHUNK_CELLS // n)
        dense_s = levels_s = 0.0
        same = True
        for lo in range(0, q, width):
            part = np.ascontiguousarray(kb[:, lo : lo + width])
            lk = np.ascontiguousarray(lack[:, lo : lo + width])
            a = time.process_time()
            dense = border_mass_dense(part, lk, engine.nbr, top, engine.dist_exp(t), 1.0)
            b = time.process_time()
            levels = border_mass(part, lk, engine.nbr, top, engine.dist_exp(t), 1.0)
            dense_s += b - a
            levels_s += time.process_time() - b
            same = same and bool(np.array_equal(dense, levels))
        outside = 1.0 - float(np.count_nonzero(kb)) / max(1, kb.size)
        print(
            f"| {t + 1} | {top} | {q} | {outside:.3f} | {c1 - c0:.2f} | {dense_s:.2f} "
            f"| {levels_s:.2f} | {'yes' if same else 'NO'} |",
            flush=True,
        )
        know = engine.apply(know, *engine.plain_round(know, t))


if __name__ == "__main__":
    main()
