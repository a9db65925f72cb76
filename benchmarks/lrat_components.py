"""Where the evidence's time goes: each step of a refutation's certification, in CPU seconds
and in units of the bare decide, on the refutations stored in given certificates.

For each refuted CNF (rebuilt as ``check`` rebuilds it) the fastest of ``--repeat`` runs
(``time.process_time``) of:

- **decide**: CaDiCaL 1.9.5 alone (the clauses added as the proof-writing solver adds them);
- **LRAT text** / **LRAT binary**: the same solve writing its LRAT proof to a temporary file
  as text (what the project stores) or in CaDiCaL's binary form (for comparison only);
- **trim**: :func:`gossipcert.proofs.trim.trim_lrat` on the text proof;
- **gossipcert-lrat** and **minisat-hints**: the two checkers on the trimmed proof, in this
  process.

Run, e.g., ``.venv/bin/python benchmarks/lrat_components.py
results/store/half-duplex_gossip_n9_d240b484317a3014.cert.json``.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pysolvers
from pysat.solvers import Solver

from gossipcert.proofs.lrat import check_lrat
from gossipcert.proofs.lrat_solver import LratSolver, add_clauses
from gossipcert.proofs.propagated import check_propagated
from gossipcert.proofs.trim import trim_lrat

sys.path.insert(0, str(Path(__file__).resolve().parent))
from certification import refuted_cnfs


def fastest(repeat: int, run: Callable[[], Any]) -> tuple[float, Any]:
    """The least CPU time of ``repeat`` runs, and the last run's value."""
    best, value = float("inf"), None
    for _ in range(repeat):
        start = time.process_time()
        value = run()
        best = min(best, time.process_time() - start)
    return best, value


def solve_writing(clauses: list[list[int]], binary: bool | None) -> Any:
    """CaDiCaL on ``clauses``; with ``binary`` False, the text LRAT proof it writes and the
    renaming of its ids (:class:`gossipcert.proofs.lrat_solver.LratSolver`, the project's
    path); with ``binary`` True, the same solve writing binary LRAT (its size)."""
    if binary is False:
        prover = LratSolver(clauses)
        try:
            prover.solver.solve()
            pysolvers.flushpr(prover.solver.solver.prfp)
            prover.file.seek(0)
            return prover.file.read(), prover.ids
        finally:
            prover.close()
    solver = Solver(name="cadical195")
    try:
        if binary is None:
            add_clauses(solver, clauses)
            solver.solve()
            return None
        solver.configure({"lrat": 1, "binary": 1})
        inner = solver.solver
        with tempfile.TemporaryFile() as proof:
            inner.prfile = proof
            inner.prfp = pysolvers.cadical195_tracepr(inner.cadical, proof)
            add_clauses(solver, clauses)
            solver.solve()
            pysolvers.flushpr(inner.prfp)
            return proof.tell()
    finally:
        solver.delete()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("certificates", nargs="+", type=Path)
    parser.add_argument("--repeat", type=int, default=5, help="runs per step (default 5)")
    args = parser.parse_args()
    print(
        "| refutation | decide s | LRAT text | LRAT binary | trim | gossipcert-lrat | "
        "minisat-hints | trimmed lines |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for path in args.certificates:
        for name, cnf in refuted_cnfs(path):
            print(row(name, cnf.clauses, cnf.nvars, args.repeat), flush=True)


def row(name: str, clauses: list[list[int]], nvars: int, repeat: int) -> str:
    """One refutation's line of the table."""
    decide, _ = fastest(repeat, lambda: solve_writing(clauses, None))
    text_s, (data, ids) = fastest(repeat, lambda: solve_writing(clauses, False))
    binary_s, _ = fastest(repeat, lambda: solve_writing(clauses, True))
    trim_s, trimmed = fastest(repeat, lambda: trim_lrat(data, ids))
    lines = trimmed.text.splitlines()
    own_s, own = fastest(repeat, lambda: check_lrat(clauses, lines))
    other_s, other = fastest(repeat, lambda: check_propagated(clauses, lines, None, nvars))
    assert own.status == other.status == "verified", (own, other)
    unit = max(decide, 1e-6)
    return (
        f"| {name} | {decide:.4f} | {text_s / unit:.2f} | {binary_s / unit:.2f} | "
        f"{trim_s / unit:.2f} | {own_s / unit:.2f} | {other_s / unit:.2f} | {len(lines):,} |"
    )


if __name__ == "__main__":
    main()
