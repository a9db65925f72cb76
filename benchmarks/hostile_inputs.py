"""How long every reader of other tools' files takes to answer hostile input.

Usage: .venv/bin/python benchmarks/hostile_inputs.py [--cases N] [--seed S]

(Run it with the Python of the environment gossipcert is installed in, from the repository:
it takes its files from ``tests/hostile_files.py``.)

For each reader (MSCCL XML, SCCL JSON, TE-CCL JSON, topology files) it answers ``N``
random mutations of the valid files of ``tests/hostile_files.py`` (the mutations of the
hostile-input tests: attributes and values pushed to 0, negative, huge, non-ASCII or
malformed, entries deleted, repeated or renamed, steps swapped), then the hand-written files
of the red team's report (an empty gather, numbers the executor reads otherwise, a race,
sizes of 10^7 to 10^12, JSON nested 100,000 deep, a list as an SCCL address, integers as
TE-CCL demands, a TE-CCL mesh of side 10^9). An answer is the verdict without the optimum's
search (``verify_algorithm(..., optimum=False)``), or the graph of a topology file, or the
one-line refusal; the time is wall-clock, in process (the command's start-up, about a second,
is not in it). It prints per reader the counts of each answer, the slowest and the median
time, and exits 1 when an answer took a second or more or was an exception other than a
refusal.
"""

from __future__ import annotations

import argparse
import json
import platform
import random
import statistics
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from gossipcert import graphs
from gossipcert.errors import GossipcertError
from gossipcert.formats.verdict import verify_algorithm
from tests.hostile_files import (
    BASES,
    gpu,
    head,
    issue_race,
    mutate_json,
    mutate_msccl,
    pair_allgather,
    sccl,
    sccl_allreduce_defined,
    sccl_reduce_scatter_defined,
    sccl_ring_allgather,
    sccl_ring_allreduce,
    teccl_ring,
    to_xml,
)

SUFFIX = {"msccl-xml": ".xml", "sccl-json": ".json", "teccl-json": ".json", "topology": ".json"}


def answer(data: bytes, fmt: str, folder: Path) -> tuple[str, float]:
    """(valid | invalid | not judged | refused | graph | EXCEPTION, seconds)."""
    path = folder / f"case{SUFFIX[fmt]}"
    path.write_bytes(data)
    start = time.perf_counter()
    try:
        if fmt == "topology":
            graphs.read_graph_file(path)
            kind = "graph"
        else:
            verdict = verify_algorithm(str(path), fmt, optimum=False)
            kind = "valid" if verdict.valid else "invalid" if verdict.judged else "not judged"
    except GossipcertError as exc:
        kind = "refused" if "\n" not in str(exc) else "EXCEPTION (a refusal of several lines)"
    except Exception as exc:
        kind = f"EXCEPTION {type(exc).__name__}"
    return kind, time.perf_counter() - start


def handwritten() -> list[tuple[str, bytes]]:
    """The red team's files: (format, bytes)."""
    out: list[tuple[str, bytes]] = []
    empty_gather = (head(2, "gather", 2, 0, 1), [gpu(0, (1, 2, 0), []), gpu(1, (1, 2, 0), [])])
    out.append(("msccl-xml", to_xml(empty_gather)))
    for text in ("0o1", "\u0661"):
        algo = pair_allgather()
        algo[1][0][1][0][1][1]["dstoff"] = text
        out.append(("msccl-xml", to_xml(algo)))
    out.append(("msccl-xml", issue_race()))
    for key, value in (("nchunksperloop", "10000000"), ("ngpus", "1000000000000")):
        algo = (head(1, "allgather", 1), [gpu(0, (1, 1, 0), [])])
        algo[0][key] = value
        out.append(("msccl-xml", to_xml(algo)))
    out.append(("sccl-json", sccl("allreduce", 4, sccl_allreduce_defined(4), []).encode()))
    for n in (4, 10):
        text = sccl("reduce_scatter", n, sccl_reduce_scatter_defined(n), [])
        out.append(("sccl-json", text.encode()))
    big = json.loads(sccl_ring_allgather(3))
    big["collective"]["nodes"] = 10**9
    out.append(("sccl-json", json.dumps(big).encode()))
    big = json.loads(sccl_ring_allgather(3))
    big["instance"]["chunks"] = 10**9
    out.append(("sccl-json", json.dumps(big).encode()))
    addr = json.loads(sccl_ring_allgather(3))
    addr["collective"]["chunks"][0]["addr"] = [0]
    out.append(("sccl-json", json.dumps(addr).encode()))
    deep = '{"msccl_type": "algorithm", "x": ' + "[" * 100_000 + "]" * 100_000 + "}"
    out.append(("sccl-json", deep.encode()))
    demand = json.loads(teccl_ring(3))
    demand["6-Demand_Met"]["GPU 0"]["GPU 1"] = 3
    out.append(("teccl-json", json.dumps(demand).encode()))
    demand = json.loads(teccl_ring(3))
    demand["6-Demand_Met"]["GPU 0"]["GPU 1"]["Chunk 100000000"] = 0.0
    out.append(("teccl-json", json.dumps(demand).encode()))
    mesh = {"TopologyParams": {"name": "Mesh", "side_length": 10**9}}
    out.append(("topology", json.dumps(mesh).encode()))
    return out


def run(cases: int, seed: int) -> int:
    rng = random.Random(seed)
    choose: Callable[[Sequence[Any]], Any] = lambda seq: rng.choice(list(seq))  # noqa: E731
    sccl_bases = [sccl_ring_allgather(3), sccl_ring_allreduce(3),
                  sccl("reduce_scatter", 2, sccl_reduce_scatter_defined(2),
                       [[[0, 1, 0], [1, 0, 1]]])]  # fmt: skip
    topo_bases = [
        json.dumps({"msccl_type": "topology", "links": [[0, 1, 0], [1, 0, 2], [0, 2, 0]],
                    "switches": [[[0, 1], [1, 2], 1, "sw"]]}),
        json.dumps({"capacity": [[0, 0.5, 0], [0.5, 0, 1.0], [0, 1.0, 0]],
                    "switch_indices": [2]}),
        json.dumps({"TopologyParams": {"name": "Mesh", "side_length": 3, "chassis": 1}}),
        json.dumps({"nodes": [0, 1, 2], "edges": [[0, 1, 2], [1, 2]], "routers": [2]}),
    ]  # fmt: skip
    makers: dict[str, Callable[[], bytes]] = {
        "msccl-xml": lambda: mutate_msccl(BASES[choose(sorted(BASES))], choose),
        "sccl-json": lambda: mutate_json(choose(sccl_bases), choose).encode(),
        "teccl-json": lambda: mutate_json(teccl_ring(3), choose).encode(),
        "topology": lambda: mutate_json(choose(topo_bases), choose).encode(),
    }
    rows = []
    worst = 0.0
    failures = 0
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        answer(to_xml(BASES["ring-allgather-3"]), "msccl-xml", folder)  # load the modules
        groups = [(f"{fmt} (mutations)", [(fmt, make()) for _ in range(cases)])
                  for fmt, make in makers.items()]  # fmt: skip
        groups.append(("the report's files (all formats)", handwritten()))
        for label, items in groups:
            counts: Counter[str] = Counter()
            times = []
            for fmt, data in items:
                kind, seconds = answer(data, fmt, folder)
                counts[kind] += 1
                times.append(seconds)
                failures += kind.startswith("EXCEPTION")
            worst = max(worst, max(times))
            text = ", ".join(f"{k} {v}" for k, v in sorted(counts.items()))
            rows.append(f"| {label} | {len(items)} | {text} | {max(times):.3f} | "
                        f"{statistics.median(times):.4f} |")  # fmt: skip
    print(f"Python {platform.python_version()}, {platform.machine()}; seed {seed}\n")
    print("| reader | cases | answers | slowest s | median s |")
    print("|---|---|---|---|---|")
    print("\n".join(rows))
    print(f"\nslowest answer: {worst:.3f} s; exceptions other than refusals: {failures}")
    return 1 if worst >= 1.0 or failures else 0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cases", type=int, default=1000, help="mutations per reader")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    sys.exit(run(args.cases, args.seed))


if __name__ == "__main__":
    main()
