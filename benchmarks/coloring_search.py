"""Search nodes per second of the coloring heuristic's search, on every node and on orbits.

Usage::

    python benchmarks/coloring_search.py --seconds 10
    python benchmarks/coloring_search.py --rows pancake:7:15,ccc:9:23 --seconds 20

Each row runs one depth-first search (:class:`gossipcert.heuristics.coloring_search._Search`
on packed rows of every node, and
:class:`~gossipcert.heuristics.coloring_orbit_search._SymmetricSearch` on
one row per orbit of the matchings' symmetry) at a fixed number of rounds with the setting
``(no_repeat 1, no window, f = 0.35)``, for ``--seconds`` each, and prints the search nodes
visited, the seconds, the nodes per second (wall clock and this process's CPU) and the
sequence if one was found. Times depend on the machine and its load.

References
----------
R. Beier and J. F. Sibeyn, "A powerful heuristic for telephone gossiping", section 6.
"""

from __future__ import annotations

import argparse
import time

from gossipcert.heuristics.coloring_classes import _default_matchings
from gossipcert.heuristics.coloring_orbit_search import _SymmetricSearch
from gossipcert.heuristics.coloring_search import _Search
from gossipcert.heuristics.coloring_symmetry import matching_symmetry
from gossipcert.instance import parse_instance

#: graph spec and rounds (the paper's Table 6)
ROWS = [("ccc:8", 18), ("butterfly:8", 17), ("ccc:9", 23), ("pancake:7", 15)]


def measure(spec: str, rounds: int, seconds: float) -> list[str]:
    """Markdown lines: the two searches on one graph."""
    inst = parse_instance(spec, "telephone", "gossip")
    ms = [sorted(m) for m in _default_matchings(inst)]
    sym = matching_symmetry(inst, ms)
    lines = []
    for kind in ("every node", "orbits"):
        deadline = time.monotonic() + seconds
        if kind == "every node":
            search: _Search = _Search(inst, ms, rounds, 0.35, 1, False, deadline)
        elif sym is None:
            continue
        else:
            search = _SymmetricSearch(inst, ms, rounds, 0.35, 1, False, deadline, symmetry=sym)
        wall, cpu = time.monotonic(), time.process_time()
        found = search.run()
        wall, cpu = time.monotonic() - wall, time.process_time() - cpu
        rows = len(sym.reps) if kind == "orbits" and sym is not None else inst.n
        cells = [spec, str(inst.n), str(rounds), kind, str(rows), str(search.nodes)]
        cells += [f"{wall:.1f}", f"{search.nodes / wall:.0f}", f"{search.nodes / cpu:.0f}"]
        cells.append(f"`{found}`" if found else "-")
        lines.append("| " + " | ".join(cells) + " |")
        print(lines[-1], flush=True)
    return lines


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seconds", type=float, default=10.0, help="per search")
    ap.add_argument("--rows", default="", help="SPEC:ROUNDS,... (default: four Table 6 rows)")
    args = ap.parse_args(argv)
    rows = ROWS
    if args.rows:
        rows = [(r.rsplit(":", 1)[0], int(r.rsplit(":", 1)[1])) for r in args.rows.split(",")]
    head = "| graph | n | rounds | search | rows | nodes | s | nodes/s | nodes/CPU s | found |"
    print(head)
    print("|" + "|".join("---" for _ in range(head.count("|") - 1)) + "|")
    for spec, rounds in rows:
        measure(spec, rounds, args.seconds)


if __name__ == "__main__":
    main()
