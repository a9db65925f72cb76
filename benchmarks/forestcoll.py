"""ForestColl's optimal allgather bandwidth, from its own code, beside gossipcert's bound.

ForestColl (Zhao et al. 2024) computes the optimal allgather (and reduce-scatter) algorithmic
bandwidth of a fabric: ``OptimalBranchingsAlgo(G, capacitated=True, compute_nodes=gpus)``,
whose ``binary_search()`` returns ``(U, k)`` with the optimum ``N k / U`` (``N`` GPUs, GB/s;
``U`` is an integer over a gcd of the capacities, a float in its code, read back as the
fraction of least denominator within the largest capacity).
This script imports ForestColl's ``pipeline_allgather.py`` and ``topologies.py`` from a
folder given as an argument (a snapshot of github.com/liangyuRain/ForestColl; nothing of it
is kept in this repository), builds its ``a100`` and ``mi250`` fabrics of 1 and 2 boxes with
its own ``a100_topology`` and ``mi250_topology``, runs its search, and sets beside it
:func:`gossipcert.closed_forms.throughput.allgather_cut` on the same graph: ``N / ratio``, an
exact fraction, with the cut that binds. The table says whether the two rational numbers are
equal.

Run::

    git --git-dir=/path/to/ForestColl.git archive HEAD | tar -x -C /tmp/forestcoll
    nice -n 10 .venv/bin/python benchmarks/forestcoll.py /tmp/forestcoll \\
        --output results/forestcoll-2026-11-29.md

References
----------
.. [1] L. Zhao, S. Maleki, Z. Yang, H. Pourreza, A. Krishnamurthy, "ForestColl:
   Throughput-optimal collective communications on heterogeneous network fabrics",
   arXiv:2402.06787, 2024; github.com/liangyuRain/ForestColl.
"""

from __future__ import annotations

import argparse
import importlib
import platform
import sys
import time
from fractions import Fraction
from pathlib import Path

from gossipcert.closed_forms.throughput import allgather_cut, cut_ratio

CASES = [("a100", 1), ("a100", 2), ("mi250", 1), ("mi250", 2)]


def _cut_words(side: frozenset, gpus: list) -> str:  # type: ignore[type-arg]
    inside = [v for v in gpus if v in side]
    others = sorted(v for v in side if v not in gpus)
    kinds = sorted({str(v[1]) for v in others})
    return f"{len(inside)} GPUs and {len(others)} other nodes ({', '.join(kinds) or 'none'})"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("folder", help="ForestColl snapshot (pipeline_allgather.py, topologies.py)")
    ap.add_argument("--output", help="write the Markdown page here")
    args = ap.parse_args()
    folder = Path(args.folder)
    if not (folder / "pipeline_allgather.py").is_file() or not (folder / "topologies.py").is_file():
        sys.exit(f"error: {folder} has no pipeline_allgather.py and topologies.py (ForestColl)")
    sys.path.insert(0, str(folder))
    pipeline = importlib.import_module("pipeline_allgather")
    topologies = importlib.import_module("topologies")
    rows = []
    for name, boxes in CASES:
        graph, gpus = getattr(topologies, f"{name}_topology")(boxes)
        t0 = time.perf_counter()
        algo = pipeline.OptimalBranchingsAlgo(graph, capacitated=True, compute_nodes=gpus)
        u, k = algo.binary_search()
        theirs_s = time.perf_counter() - t0
        # ForestColl's U is an integer divided by a gcd of the capacities (a float there)
        most = max(c for *_, c in graph.edges(data="capacity"))
        u_exact = Fraction(u).limit_denominator(most)
        if abs(float(u_exact) - u) > 1e-9 * max(1.0, u):
            sys.exit(f"error: ForestColl's U = {u!r} is no fraction of denominator <= {most}")
        theirs = Fraction(len(gpus) * k) / u_exact
        t0 = time.perf_counter()
        cut = allgather_cut(graph, gpus)
        ours_s = time.perf_counter() - t0
        ours = len(gpus) / cut.ratio
        check = len(gpus) / cut_ratio(graph, cut.side, compute=gpus)
        rows.append((
            f"{name} x {boxes}", len(gpus), graph.number_of_nodes(), f"U={u_exact}, k={k}",
            str(theirs), f"{float(theirs):.2f}", str(ours), "yes" if ours == theirs == check
            else "NO", f"{cut.inside} / {cut.bandwidth}: {_cut_words(cut.side, gpus)}",
            f"{theirs_s:.2f}", f"{ours_s:.2f}",
        ))  # fmt: skip
    head = ("fabric", "GPUs", "nodes", "ForestColl (U, k)", "ForestColl N k / U", "GB/s",
            "gossipcert N / ratio", "same number", "binding cut: |S ∩ V_c| / B+(S)",
            "ForestColl s", "gossipcert s")  # fmt: skip
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    lines += ["| " + " | ".join(str(x) for x in row) + " |" for row in rows]
    table = "\n".join(lines)
    print(table)
    if args.output:
        page = (
            "# ForestColl's optimal allgather bandwidth and gossipcert's certified bound\n\n"
            f"Made by `benchmarks/forestcoll.py FOLDER` on {platform.node()} "
            f"({platform.machine()}, Python {platform.python_version()}), FOLDER a snapshot "
            "of github.com/liangyuRain/ForestColl (its `pipeline_allgather.py` and "
            "`topologies.py`, run as they are). Seconds are wall time on a shared 2-core "
            "machine under load.\n\n" + table + "\n"
        )
        Path(args.output).write_text(page, encoding="utf-8")


if __name__ == "__main__":
    main()
