"""The exact optima of every small pipelined case: the reference data of
``tests/test_pipelined_agreement.py``.

Every connected graph of the networkx atlas with 2 to 4 nodes (2 to 5 for the rooted
problems, broadcast and scatter from node 0), every model the bounds for pipelined
collectives are stated for (telephone, half-duplex, single-port and multicast with one
packet a call, all-port with the edges' capacity 1 and with ``c=2``; half-duplex not for
gather and total exchange) and the problems they cover (broadcast, scatter, gather, gossip,
total exchange, reduce-scatter; allreduce under single-port and all-port), with 1, 2 and 3
chunks as :func:`_taken` says: 1 and 2 chunks everywhere but for the total exchange, the
scatter on 5 nodes and the allreduce on 4 in the one-port models (1 chunk there), and 3
chunks under all-port (allreduce: on 3 nodes at most) and for broadcast in every model.

Each optimum is the exact search's alone: :func:`gossipcert.search.entry.solve` with
``use_bounds=False`` (no closed form at all; the rounds from 1 up, each decided by the SAT
model) and, for allreduce, the exact CNF of :mod:`gossipcert.encodings.allreduce` decided
for 1, 2, ... rounds (no bound, no construction).

Run it to rebuild the data file (about a minute on one core; it keeps what it has
solved in ``FILE.partial.jsonl`` and resumes from it)::

    .venv/bin/python -m tests.pipelined_optima tests/data/pipelined-optima.json

The slow test ``test_the_cached_optima_are_reproduced`` recomputes every entry.
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import networkx as nx

from gossipcert.graphs.convert import from_networkx
from gossipcert.instance import Instance, make_instance, parse_model, parse_problem
from gossipcert.search import allreduce_exact
from gossipcert.search.entry import solve

#: the models of the cases (the packet cap explicit where a bound needs one)
MODELS = (
    "telephone:p=1",
    "half-duplex:p=1",
    "single-port",
    "multicast:p=1",
    "all-port",
    "all-port:c=2",
)
#: the models of the personalized problems with many packets (half-duplex, whose exact
#: search takes a minute on ``K_4`` with three chunks a pair, left out)
ONE_WAY = tuple(m for m in MODELS if not m.startswith("half-duplex"))
#: problem -> the largest graph it is tried on, and the models
PROBLEMS: dict[str, tuple[int, tuple[str, ...]]] = {
    "broadcast:0": (5, MODELS),
    "scatter:0": (5, MODELS),
    "gather:0": (4, ONE_WAY),
    "gossip": (4, MODELS),
    "total-exchange": (4, ONE_WAY),
    "reduce-scatter": (4, ("telephone:p=1", "single-port", "all-port", "all-port:c=2")),
    "allreduce": (4, ("single-port", "all-port", "all-port:c=2")),
}
CHUNKS = (1, 2, 3)


def atlas_graphs(most: int) -> list[tuple[int, nx.Graph]]:
    """``(atlas index, graph)`` of every connected atlas graph with 2 to ``most`` nodes."""
    return [
        (i, g)
        for i, g in enumerate(nx.graph_atlas_g())
        if 2 <= g.number_of_nodes() <= most and nx.is_connected(g)
    ]


def problem_spec(problem: str, chunks: int) -> str:
    if chunks == 1:
        return problem
    return f"{problem}{',' if ':' in problem else ':'}chunks={chunks}"


def instance(atlas: int, model: str, problem: str, chunks: int) -> Instance:
    g = nx.graph_atlas(atlas)
    return make_instance(
        from_networkx(g), parse_model(model), parse_problem(problem_spec(problem, chunks))
    )


def cases() -> Iterator[tuple[int, str, str, int]]:
    """Every ``(atlas index, model, problem, chunks)`` of the data."""
    for problem, (most, models) in PROBLEMS.items():
        for atlas, g in atlas_graphs(most):
            for model in models:
                for chunks in CHUNKS:
                    if _taken(model, problem, g.number_of_nodes(), chunks):
                        yield atlas, model, problem, chunks


def _taken(model: str, problem: str, n: int, chunks: int) -> bool:
    """Whether the data has this case (module docstring). Without bounds the exact search
    refutes slowly where one edge or node carries many packets one at a time, a pigeonhole:
    8 rounds of a scatter of 8 packets through one edge of a star take minutes, an
    allreduce on the star ``K_{1,3}`` under single-port 44 s with one chunk; and under
    all-port the exact allreduce CNF does not refute 5 rounds on ``K_4`` with 3 chunks in
    minutes."""
    if chunks == 1 or (problem == "broadcast:0"):
        return True
    if model.startswith("all-port"):
        return chunks == 2 or problem != "allreduce" or n <= 3
    if problem == "total-exchange":
        return False
    if problem == "allreduce":
        return chunks == 2 and n <= 3
    return chunks == 2 and (problem != "scatter:0" or n <= 4)


def key(atlas: int, model: str, problem: str, chunks: int) -> str:
    return f"{atlas}|{model}|{problem}|{chunks}"


def exact_optimum(inst: Instance) -> int:
    """The optimum of the exact search alone (module docstring)."""
    if inst.problem.kind.value == "allreduce":
        rounds = 1
        while True:
            verdict, _ = allreduce_exact.find(inst, rounds, None)
            if verdict == "sat":
                return rounds
            assert verdict == "unsat"
            rounds += 1
    res = solve(inst, use_bounds=False, proof=False)
    assert res.optimum is not None
    return res.optimum


def compute(progress: bool = False, partial: Path | None = None) -> dict[str, int]:
    """Every case's exact optimum (``progress``: a line a case on stderr; ``partial``: a
    file of JSON lines ``[key, optimum]`` kept as the cases are solved and read back, so a
    stopped run resumes)."""
    data: dict[str, int] = {}
    if partial is not None and partial.exists():
        for line in partial.read_text().splitlines():
            k, v = json.loads(line)
            data[k] = v
    wanted = {key(*c) for c in cases()}
    data = {k: v for k, v in data.items() if k in wanted}
    for c in cases():
        if key(*c) in data:
            continue
        start = time.perf_counter()
        data[key(*c)] = exact_optimum(instance(*c))
        if partial is not None:
            with partial.open("a") as out:
                out.write(json.dumps([key(*c), data[key(*c)]]) + "\n")
        if progress:
            print(key(*c), data[key(*c)], f"{time.perf_counter() - start:.2f} s", file=sys.stderr)
    return data


def main(argv: list[str]) -> int:
    out = Path(argv[1] if len(argv) > 1 else "tests/data/pipelined-optima.json")
    data = compute(progress=True, partial=out.with_suffix(".partial.jsonl"))
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(data, indent=0, sort_keys=True) + "\n")
    print(f"{len(data)} optima written to {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
