"""How far the counting bounds are from refuting ``R`` rounds of broadcast: the margins of
``broadcast-walks`` and ``broadcast-siblings`` threshold by threshold.

For a graph, broadcast from node 0 under the telephone model, and a number of rounds ``R``,
prints one row per threshold ``d`` (the nodes at distance ``>= d`` from the source): how many
such nodes there are (the *need*), how many an ``R``-round schedule could inform at most by
the walk count (``broadcast-walks``) and by the walk count with shared neighbours
(``broadcast-siblings``), and the ratio of each to the need. A side below the need refutes
``R`` rounds; a ratio near 1 is a near miss. The sibling side is computed for the thresholds
whose walk ratio is at most ``--ratio`` (all of them with a large value), with up to
``--budget`` states each (the bound itself uses a budget of
``gossipcert.closed_forms.broadcast_siblings.STATE_BUDGET`` states per ``R``, shared by its
thresholds, and only the thresholds within ``TIGHT`` of the need); ``-`` where it was not
computed or ran past the budget.

Run with the project's Python, e.g.::

    nice -n 10 .venv/bin/python benchmarks/broadcast_margins.py butterfly:10 16
    nice -n 10 .venv/bin/python benchmarks/broadcast_margins.py butterfly:12 19 --budget 1500000

References
----------
.. [1] R. Klasing, B. Monien, R. Peine and E. A. Stöhr, "Broadcasting in butterfly and
   de Bruijn networks", Discrete Applied Mathematics 53 (1994), 183-197 (counting arguments
   of this kind, asymptotically).
.. [2] R. Beier and J. F. Sibeyn, "A powerful heuristic for telephone gossiping", SIROCCO
   2000, Table 4.
"""

from __future__ import annotations

import argparse
import sys
import time

from gossipcert.closed_forms.broadcast_siblings import MAX_DEGREE, sibling_side
from gossipcert.closed_forms.broadcast_walks import WalkCount
from gossipcert.instance import parse_instance


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("graph", help="a graph spec, e.g. butterfly:10")
    ap.add_argument("rounds", type=int, help="the number of rounds R to test")
    ap.add_argument("--budget", type=int, default=2_000_000, help="states per threshold")
    ap.add_argument(
        "--ratio", type=float, default=1.5, help="sibling side only where walks/need <= this"
    )
    args = ap.parse_args(argv)
    inst = parse_instance(args.graph, "telephone", "broadcast:0")
    nbrs = [sorted(u for u in inst.graph.adj[v] if u != v) for v in range(inst.n)]
    walks = WalkCount(nbrs, [0], [True] * inst.n)
    degree_ok = max(len(row) for row in nbrs) <= MAX_DEGREE
    print(f"{args.graph}, broadcast from node 0 in {args.rounds} rounds\n")
    print("| d | need | walks | walks / need | siblings | siblings / need | states | s |")
    print("|---|---|---|---|---|---|---|---|")
    depth = sys.getrecursionlimit()
    sys.setrecursionlimit(max(depth, 4 * args.rounds + 1000))
    for d in walks.thresholds(args.rounds):
        start = time.perf_counter()
        need, walk_side = walks.sides(args.rounds, d)
        sib, states = None, 0
        if degree_ok and walk_side <= args.ratio * need:
            sib, states = sibling_side(walks, args.rounds, d, args.budget)
        seconds = time.perf_counter() - start
        cells = [
            str(d),
            str(need),
            str(walk_side),
            f"{walk_side / need:.3f}",
            "-" if sib is None else str(sib),
            "-" if sib is None else f"{sib / need:.3f}",
            str(states) if states else "-",
            f"{seconds:.1f}",
        ]
        print("| " + " | ".join(cells) + " |", flush=True)


if __name__ == "__main__":
    main()
