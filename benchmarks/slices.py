"""What do conflict-budget slices cost CaDiCaL? One query, three ways of running it.

The query "do ``R`` rounds suffice?" of ``gossipcert solve`` (the same encoding options,
symmetry breaking included) is built once per way and answered by CaDiCaL 1.9.5 (PySAT):

- ``one call``: a single ``solve`` without a budget;
- ``1 s slices``: :func:`gossipcert.solvers.backends.solve_sliced` as outside a watchdog
  (slices of about :data:`~gossipcert.solvers.backends.SLICE_SECONDS`);
- ``doubling``: the same with :func:`~gossipcert.solvers.backends.allow_long_slices`, as in
  the child process of ``gossipcert solve --time-limit``.

Every new ``solve`` call backtracks CaDiCaL to the root, reruns its "lucky" phases, resets
its restart and rephase schedules and leaves the stable mode, so short slices can keep a
satisfiable query from its answer. The table gives the answer, the wall and CPU seconds and
the number of ``solve`` calls of each way (each sliced way with ``--time-limit`` seconds at
most); a model's schedule is decoded and verified.

Run, e.g.::

    nice -n 10 .venv/bin/python benchmarks/slices.py random:500,1500,seed=2 -p broadcast:0 \
        --rounds 9 --time-limit 300

Timings on a busy machine vary; rerun to compare.
"""

from __future__ import annotations

import argparse
import time

from pysat.solvers import Solver

from gossipcert.encodings import encoding_for
from gossipcert.instance import parse_instance
from gossipcert.search.outcome import search_options
from gossipcert.search.rounds import _verified
from gossipcert.solvers import backends
from gossipcert.symmetry.automorphisms import add_lex_leader, automorphism_generators

WAYS = ("one call", "1 s slices", "doubling")


def run(graph: str, model: str, problem: str, rounds: int, way: str, limit: float) -> str:
    """One table row: the answer of ``way`` and its cost."""
    inst = parse_instance(graph, model, problem)
    options = search_options(inst, "auto", strict=False, counting=False)
    enc = encoding_for(inst, options)
    enc.extend_to(rounds)
    if enc.options.symmetry:
        add_lex_leader(enc, automorphism_generators(inst))
    selector = enc.selector(rounds)  # adds the query's clauses to the formula
    solver = Solver(name="cadical195", bootstrap_with=enc.formula.cnf_since(0))
    calls = 0

    def tick() -> None:
        nonlocal calls
        calls += 1

    w0, c0 = time.monotonic(), time.process_time()
    if way == "one call":
        calls = 1
        result: bool | None = solver.solve(assumptions=[selector])
    else:
        backends.allow_long_slices(way == "doubling")
        result = backends.solve_sliced(solver, [selector], w0 + limit, tick)
        calls += 1 if result is not None else 0
    wall, cpu = time.monotonic() - w0, time.process_time() - c0
    if result:  # the model's schedule goes through the verifier
        model = {lit for lit in solver.get_model() or [] if lit > 0}
        _verified(inst, enc.decode(rounds, lambda v: v in model), f"{way} solver's")
    solver.delete()
    answer = {True: "sat", False: "unsat", None: "unknown"}[result]
    return f"| {graph} | {rounds} | {way} | {answer} | {wall:.1f} | {cpu:.1f} | {calls} |"


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("graph")
    ap.add_argument("-m", "--model", default="telephone")
    ap.add_argument("-p", "--problem", default="broadcast:0")
    ap.add_argument("--rounds", type=int, required=True)
    ap.add_argument("--ways", nargs="+", default=list(WAYS), choices=WAYS)
    ap.add_argument("--time-limit", type=float, default=300.0, help="seconds per sliced way")
    args = ap.parse_args(argv)
    print("| graph | R | way | answer | wall (s) | CPU (s) | solve calls |")
    print("|---|---|---|---|---|---|---|", flush=True)
    for way in args.ways:
        print(run(args.graph, args.model, args.problem, args.rounds, way, args.time_limit))


if __name__ == "__main__":
    main()
