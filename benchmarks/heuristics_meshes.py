"""Telephone gossip on square meshes: the matching heuristic's rounds against the diameter.

The diameter ``2 (k - 1)`` of the ``k x k`` mesh is its gossip optimum (a lower bound for
any graph, reached on meshes); Beier and Sibeyn's heuristic reaches it on Mesh 80x80
(Table 1, HR 158). This prints, per mesh and per setting, the rounds above the diameter
(``0``: the diameter), the best of them, and the CPU seconds of all its runs.

Usage::

    python benchmarks/heuristics_meshes.py --sizes 8-40
    python benchmarks/heuristics_meshes.py --sizes 17,19 --settings "approx=True;dist_exp=16"

A setting is ``MatchingParams`` fields, ``name=value`` separated by commas (the values are
Python literals); settings are separated by ``;``. The default settings are the two that
the sweep tries after the greedy ones with the flow weights (Dist_Exp 60 decreasing by 0.98
and by 0.99 a round). Every schedule passes the verifier (``run_matching`` replays it).

References
----------
R. Beier and J. F. Sibeyn, "A powerful heuristic for telephone gossiping", Table 1 and
section 5.2.
"""

from __future__ import annotations

import argparse
import ast
import time

from gossipcert.heuristics.matching import MatchingParams, run_matching
from gossipcert.instance import parse_instance

DEFAULT = "dist_exp=60.0,dist_exp_decay=0.98;dist_exp=60.0,dist_exp_decay=0.99"


def parse_sizes(text: str) -> list[int]:
    """``"8-40"`` or ``"17,19"`` as a list of side lengths."""
    if "-" in text:
        lo, hi = text.split("-")
        return list(range(int(lo), int(hi) + 1))
    return [int(x) for x in text.split(",")]


def parse_setting(text: str) -> MatchingParams:
    """``"dist_exp=60,approx=True"`` as MatchingParams."""
    fields = {}
    for item in filter(None, text.split(",")):
        name, value = item.split("=")
        fields[name.strip()] = ast.literal_eval(value.strip())
    return MatchingParams(**fields)


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="8-40")
    ap.add_argument("--settings", default=DEFAULT)
    args = ap.parse_args(argv)
    settings = [parse_setting(s) for s in args.settings.split(";")]
    names = " | ".join(p.describe() for p in settings)
    head = f"| mesh | diameter | {names} | best | CPU s |"
    print(head)
    print("|" + "|".join("---" for _ in range(head.count("|") - 1)) + "|")
    misses = [0] * len(settings)  # meshes where each setting is above the diameter
    for k in parse_sizes(args.sizes):
        inst = parse_instance(f"mesh:{k}x{k}", "telephone", "gossip")
        cpu = time.process_time()
        extras = []
        for j, params in enumerate(settings):
            extras.append(len(run_matching(inst, params).schedule) - 2 * (k - 1))
            misses[j] += extras[-1] > 0
        over = [f"+{e}" if e else "0" for e in [*extras, min(extras)]]
        cpu = time.process_time() - cpu
        print(f"| {k}x{k} | {2 * (k - 1)} | " + " | ".join(over) + f" | {cpu:.1f} |", flush=True)
    print(f"\nmeshes above the diameter, per setting: {misses}")


if __name__ == "__main__":
    main()
