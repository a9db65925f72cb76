"""The broadcast lower bounds side by side: value and time of each on Table 4 graphs and
random graphs (broadcast from node 0, telephone model).

Prints a Markdown table with one row per graph: the distance, ``broadcast-layers``,
``broadcast-cut``, ``broadcast-order``, ``broadcast-ranks``, ``broadcast-walks`` and
``broadcast-siblings`` values (0 where a bound does not apply),
the seconds each took (wall clock, so contended machines inflate them), and the best of them.

Run with the project's Python, e.g.::

    nice -n 10 .venv/bin/python benchmarks/broadcast_bounds.py
    nice -n 10 .venv/bin/python benchmarks/broadcast_bounds.py --graphs ccc:9 debruijn:10

References
----------
.. [1] R. Beier and J. F. Sibeyn, "A powerful heuristic for telephone gossiping", SIROCCO
   2000, Table 4 (broadcasting in four graph classes).
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable

from gossipcert.closed_forms import distance_bound
from gossipcert.closed_forms.base import Bound
from gossipcert.closed_forms.broadcast import broadcast_cut_bound, broadcast_layers_bound
from gossipcert.closed_forms.broadcast_order import broadcast_order_bound
from gossipcert.closed_forms.broadcast_ranks import broadcast_ranks_bound
from gossipcert.closed_forms.broadcast_siblings import broadcast_siblings_bound
from gossipcert.closed_forms.broadcast_walks import broadcast_walks_bound
from gossipcert.instance import Instance, parse_instance

BOUNDS: tuple[tuple[str, Callable[[Instance], Bound | None]], ...] = (
    ("distance", distance_bound),
    ("layers", broadcast_layers_bound),
    ("cut", broadcast_cut_bound),
    ("order", broadcast_order_bound),
    ("ranks", broadcast_ranks_bound),
    ("walks", broadcast_walks_bound),
    ("siblings", broadcast_siblings_bound),
)
DEFAULT = [
    f"{fam}:{k}"
    for k in range(3, 11)
    for fam in ("ccc", "shuffle-exchange", "butterfly", "debruijn")
] + ["random:1000,3000,seed=1", "random:1000,5000,seed=1"]


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--graphs", nargs="+", default=DEFAULT)
    args = ap.parse_args(argv)
    names = [name for name, _ in BOUNDS]
    print("| graph | n | " + " | ".join(names) + " | best | seconds (" + ", ".join(names) + ") |")
    print("|---|---|" + "---|" * len(names) + "---|---|")
    for graph in args.graphs:
        inst = parse_instance(graph, "telephone", "broadcast:0")
        values, seconds = [], []
        for _, fn in BOUNDS:
            start = time.perf_counter()
            bound = fn(inst)
            seconds.append(time.perf_counter() - start)
            values.append(bound.value if bound is not None else 0)
        cells = " | ".join(str(v) for v in values)
        times = ", ".join(f"{s:.2f}" for s in seconds)
        print(f"| {graph} | {inst.n} | {cells} | {max(values)} | {times} |", flush=True)


if __name__ == "__main__":
    main()
