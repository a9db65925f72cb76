"""Time the verifier on large graphs and print a table.

Usage: .venv/bin/python benchmarks/verifier.py [--quick]

(Run it with the Python of the environment gossipcert is installed in, the project's
``.venv``; another Python stops with ``ModuleNotFoundError: gossipcert``.)

Each row replays a known-good gossip schedule (built by gossipcert's constructions) and
reports the rounds after which all demands are met, the seconds the verifier took, the
seconds to convert the schedule to JSON and back in memory, and the seconds ``gossipcert
verify`` spends on the file: reading the JSON file (``read s``) plus the verifier, the
``read+verify`` column (target: under 5 s for the million transmissions of ring:1024).
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path

from gossipcert.constructions.rings import hypercube_dimension_order, ring_full_duplex
from gossipcert.instance import parse_instance
from gossipcert.schedule import Schedule, from_json, read_schedule, to_json
from gossipcert.simulate import simulate


def cases(quick: bool) -> list[tuple[str, str, object]]:
    dims = [8, 10] if quick else [8, 10, 12]
    rings = [256] if quick else [256, 1024]
    out: list[tuple[str, str, object]] = []
    for k in dims:
        out.append((f"hypercube:{k}", "telephone", lambda i, k=k: hypercube_dimension_order(i, k)))
    for n in rings:
        out.append((f"ring:{n}", "single-port:p=1", ring_full_duplex))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="smaller graphs only")
    args = parser.parse_args()
    header = (
        f"{'graph':<16}{'model':<18}{'n':>6}{'packets':>9}{'rounds':>8}{'transm.':>10}"
        f"{'verify s':>10}{'json s':>9}{'read s':>9}{'read+verify':>13}"
    )
    print(header)
    print("-" * len(header))
    for graph, model, build in cases(args.quick):
        inst = parse_instance(graph, model, "gossip")
        sched: Schedule = build(inst)  # type: ignore[operator]
        t0 = time.perf_counter()
        rep = simulate(inst, sched)
        t1 = time.perf_counter()
        again = from_json(to_json(sched, inst), inst)
        t2 = time.perf_counter()
        assert rep.ok and again == sched
        with tempfile.TemporaryDirectory() as folder:
            path = Path(folder) / "schedule.json"
            path.write_text(json.dumps(to_json(sched, inst)))
            t3 = time.perf_counter()
            read = read_schedule(path, inst)
            t4 = time.perf_counter()
        assert read == sched
        n_tr = sum(len(r) for r in sched.rounds)
        print(
            f"{graph:<16}{model:<18}{inst.n:>6}{inst.n_packets:>9}{rep.rounds:>8}{n_tr:>10}"
            f"{t1 - t0:>10.2f}{t2 - t1:>9.2f}{t4 - t3:>9.2f}{t4 - t3 + t1 - t0:>13.2f}"
        )


if __name__ == "__main__":
    main()
