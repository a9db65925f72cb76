"""Decide, prove and check: the evidence of every DRAT certificate in results/, before and after.

For every certificate under ``results/`` whose lower bound is a stored DRAT refutation
(kinds ``drat``, ``drat-packet``, ``drat-relaxed`` and the points of a steps certificate) the
refuted CNF is rebuilt as ``check`` rebuilds it, and timed four ways on it:

- **decide**: CaDiCaL alone, no proof (the search's question);
- **before**: CaDiCaL writing a DRAT proof (PySAT's ``with_proof``, the former path), and
  that proof judged by :func:`gossipcert.proofs.checkers.check_proof` (dratify with
  deletions ignored, then gossipcert-drat within its budget), capped at ``--cap`` seconds;
- **after**: CaDiCaL writing LRAT (binary), read and trimmed by the compiled kernels (one
  solve that decides and proves, :func:`gossipcert.proofs.refutation.prove_unsat` with
  ``lrat=True``), and the trimmed proof judged by
  :func:`gossipcert.proofs.lrat_checks.check_lrat_proof` (the compiled gossipcert-lrat and
  hint-fixpoint; the Python gossipcert-lrat and minisat-hints on a refusal).

The compiled kernels cost a fixed time the first time a process uses them (numba loading
their cached code); it is printed below the table, measured in fresh processes, and is not in
the rows (each the fastest of repeated runs in one process, as in a search that proves many
horizons).

``certify / decide`` (ratio (a)) is (after's proof-logging solve and trim + both checks,
wall) / decide, the price of the evidence against the bare answer on the same query. Rows
whose decide takes less than :data:`RESOLUTION` seconds are flagged: there the ratio
measures fixed costs of milliseconds, not the proof. ``--no-before`` skips the former DRAT
path. ``--solve`` also times ``gossipcert solve`` and ``gossipcert check`` end to end on
Petersen half-duplex gossip and butterfly:5 broadcast from node 0 (300 s limit), and the
same solve with ``--no-proof`` (the lower bound then is the solver's word): ratio (b) is
the first wall over the second.

Each of decide, prove and check is run up to ``--repeat`` times (3) and its fastest run
counts: the ratio of two times of milliseconds is otherwise the machine's noise.

Run with the project's Python, one measurement at a time, e.g. ``.venv/bin/python
benchmarks/certification.py --solve --cap 120 --out results/certification-2026-11-26.md``.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pysat.solvers import Solver

from gossipcert.certificates.certificate import check_certificate
from gossipcert.encodings.cnf import StandaloneCNF
from gossipcert.proofs import refutation
from gossipcert.proofs.checkers import check_proof
from gossipcert.proofs.lrat_checks import check_lrat_proof
from gossipcert.proofs.lrat_solver import add_clauses
from gossipcert.proofs.refutation import prove_unsat
from gossipcert.solvers.backends import solve_sliced

#: decide times below this (seconds) are flagged: fixed costs dominate the ratio there
RESOLUTION = 0.01

#: ``gossipcert solve`` runs timed end to end with --solve
SOLVES = [
    ["petersen", "--model", "half-duplex", "--problem", "gossip"],
    ["butterfly:5", "--problem", "broadcast:0", "--time-limit", "300"],
]


def refuted_cnfs(path: Path) -> list[tuple[str, StandaloneCNF]]:
    """The CNFs whose refutations a certificate stores, as ``check`` rebuilds them (its
    re-check of each stored proof is replaced by recording the CNF)."""
    found: list[tuple[str, StandaloneCNF]] = []

    def record(cnf: StandaloneCNF, *args: Any, **kwargs: Any) -> list[tuple[bool, str]]:
        found.append((path.name, cnf))
        return [(True, "recorded")]

    original = refutation.recheck_stored_proof
    refutation.recheck_stored_proof = record  # type: ignore[assignment]
    try:
        check_certificate(json.loads(path.read_text()))
    finally:
        refutation.recheck_stored_proof = original  # type: ignore[assignment]
    return found


def drat_certificates(root: Path) -> list[Path]:
    """Certificates under ``root`` with a stored DRAT proof."""
    out = []
    for path in sorted(root.rglob("*.json")):
        text = path.read_text()
        if '"proof_xz_base64"' in text and '"drat-cubes"' not in text:
            out.append(path)
    return out


def decide_seconds(cnf: StandaloneCNF, cap: float) -> tuple[str, float]:
    """CaDiCaL alone on ``cnf``: its answer and the seconds it took (the clauses reach it
    as they reach the proof-writing solver, :func:`add_clauses`)."""
    start = time.monotonic()
    with Solver(name="cadical195") as solver:
        add_clauses(solver, cnf.clauses)
        found = solve_sliced(solver, [], start + cap)
    status = {None: "unknown", True: "sat", False: "unsat"}[found]
    return status, time.monotonic() - start


def best_of(repeat: int, run: Callable[[], Any], seconds: Callable[[Any], float]) -> Any:
    """The run of least ``seconds`` among up to ``repeat`` (fewer once they add up to 5 s):
    the ratio of two tiny times is otherwise the machine's noise."""
    best, spent = None, 0.0
    for _ in range(repeat):
        got = run()
        spent += seconds(got)
        if best is None or seconds(got) < seconds(best):
            best = got
        if spent > 5.0:
            break
    return best


def measure(
    name: str,
    cnf: StandaloneCNF,
    cap: float,
    solve_cap: float,
    before_too: bool = True,
    repeat: int = 1,
) -> dict[str, Any]:
    """One row of the table (module docstring)."""
    row: dict[str, Any] = {"certificate": name, "variables": cnf.nvars}
    row["decide_status"], row["decide"] = best_of(
        repeat, lambda: decide_seconds(cnf, solve_cap), lambda got: got[1]
    )
    text = cnf.dimacs()
    row["drat_proof"], row["drat_lines"] = 0.0, 0
    if before_too:
        before = prove_unsat(cnf, time.monotonic() + solve_cap)
        row["drat_proof"] = before.seconds
        row["drat_lines"] = (before.proof or "").count("\n")
        if before.proof is not None:
            start = time.monotonic()
            verdict = check_proof(text, before.proof, start + cap)
            row["drat_check"] = time.monotonic() - start
            row["drat_verdict"] = verdict.status
        del before
    after = best_of(
        repeat,
        lambda: prove_unsat(cnf, time.monotonic() + solve_cap, lrat=True),
        lambda got: got.seconds,
    )
    row["lrat_proof"] = after.seconds
    row["lrat_lines"] = (after.proof or "").count("\n")
    row["untrimmed_lines"] = after.untrimmed_lines
    if after.proof is not None:

        def check() -> tuple[float, Any]:
            start = time.monotonic()
            verdict = check_lrat_proof(text, after.proof, formula=(cnf.nvars, cnf.clauses))
            return time.monotonic() - start, verdict

        row["lrat_check"], verdict = best_of(repeat, check, lambda got: got[0])
        row["lrat_verdict"] = verdict.status
        row["lrat_checkers"] = "; ".join(f"{o.checker} {o.seconds:.1f}s" for o in verdict.outcomes)
    row["ratio"] = (row["lrat_proof"] + row.get("lrat_check", 0.0)) / max(row["decide"], 1e-3)
    return row


def timed(cmd: list[str]) -> tuple[float, str]:
    """Wall seconds of a command and its last lines of output."""
    start = time.monotonic()
    run = subprocess.run(cmd, capture_output=True, text=True, check=False)
    tail = "\n".join((run.stdout + run.stderr).strip().splitlines()[-4:])
    return time.monotonic() - start, tail


def end_to_end(out_dir: Path) -> list[str]:
    """``gossipcert solve`` then ``gossipcert check`` on :data:`SOLVES`, and the same solve
    with ``--no-proof``, as table rows."""
    exe = str(Path(sys.executable).with_name("gossipcert"))
    rows = []
    for args in SOLVES:
        cert = out_dir / (args[0].replace(":", "") + "-" + args[args.index("--problem") + 1])
        cert = cert.with_suffix(".json")
        solve_s, solve_tail = timed([exe, "solve", *args, "-q", "-o", str(cert), "--force"])
        check_s, check_tail = timed([exe, "check", str(cert)]) if cert.exists() else (0.0, "")
        bare_s, _ = timed([exe, "solve", *args, "-q", "--no-proof"])
        lower = next((ln for ln in solve_tail.splitlines() if "lower bound" in ln), solve_tail)
        said = [ln for ln in check_tail.splitlines() if "still checking" not in ln]
        verdict = said[-1] if said else "no certificate"
        rows.append(
            f"| `gossipcert solve {' '.join(args)}` | {solve_s:.0f} | {bare_s:.0f} | "
            f"{solve_s / bare_s:.2f} | {check_s:.0f} | "
            f"{lower.strip()[:160]} | {verdict.strip()[:80]} |"
        )
    return rows


#: a fresh process: load the compiled LRAT kernels and prove and check one tiny refutation
_FIRST_USE = """
import time
start = time.perf_counter()
from gossipcert.proofs.checkers import check_lrat_proof
from gossipcert.proofs.lrat_solver import LratSolver
imported = time.perf_counter()
prover = LratSolver([[1, 2], [-1, 2], [1, -2], [-1, -2]])
prover.solver.solve()
proof = prover.trimmed().text
prover.close()
verdict = check_lrat_proof("p cnf 2 4\\n1 2 0\\n-1 2 0\\n1 -2 0\\n-1 -2 0\\n", proof)
print(imported - start, time.perf_counter() - imported, verdict.status)
"""


def first_use() -> str:
    """The one-time cost, per process, of the compiled kernels (numba loading their cached
    code): not in the per-refutation times above, which are the fastest of repeated runs."""
    runs = []
    for _ in range(3):
        out = subprocess.run(
            [sys.executable, "-c", _FIRST_USE], capture_output=True, text=True, check=True
        ).stdout.split()
        runs.append((float(out[0]), float(out[1]), out[2]))
    imported, first, status = min(runs, key=lambda r: r[1])
    return (
        f"Once per process (not in the rows above): importing the checkers takes {imported:.2f} s "
        f"and the first proof trimmed and checked {first:.2f} s ({status}; the compiled "
        "kernels' cached code loaded), fastest of 3 fresh processes."
    )


def table(rows: list[dict[str, Any]]) -> list[str]:
    """The measurements as a Markdown table, and the ratios' summary."""
    lines = [
        "| certificate | vars | decide s | before: DRAT proof s | before: check s (verdict) "
        "| DRAT lines | after: LRAT solve+trim s | after: check s (verdict) | LRAT lines "
        "(untrimmed) | certify / decide (a) | decide < 10 ms |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        lines.append(
            f"| {r['certificate']} | {r['variables']} | {r['decide']:.3f} | "
            f"{r['drat_proof']:.3f} | {r.get('drat_check', 0):.3f} ({r.get('drat_verdict')}) | "
            f"{r['drat_lines']:,} | {r['lrat_proof']:.3f} | {r.get('lrat_check', 0):.3f} "
            f"({r.get('lrat_verdict')}) | {r['lrat_lines']:,} ({r['untrimmed_lines'] or 0:,}) | "
            f"{r['ratio']:.2f} | {'yes' if r['decide'] < RESOLUTION else ''} |"
        )
    ratios = [r["ratio"] for r in rows]
    if ratios:
        lines += [
            "",
            f"certify / decide over {len(ratios)} refutations: median "
            f"{statistics.median(ratios):.2f}, largest {max(ratios):.2f}",
        ]
    for floor in (RESOLUTION, 0.1, 1.0):
        slow = [r["ratio"] for r in rows if r["decide"] >= floor]
        if slow:
            lines.append(
                f"over the {len(slow)} whose decide takes {floor:g} s or more: median "
                f"{statistics.median(slow):.2f}, largest {max(slow):.2f}"
            )
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("certificates", nargs="*", help="certificate files (default: results/)")
    parser.add_argument("--cap", type=float, default=120.0, help="seconds for a DRAT check")
    parser.add_argument("--solve-cap", type=float, default=600.0, help="seconds per solve")
    parser.add_argument("--skip-lines", type=int, default=10**9, help="skip proofs over N lines")
    parser.add_argument("--solve", action="store_true", help="also time solve and check")
    parser.add_argument("--no-before", action="store_true", help="skip the former DRAT path")
    parser.add_argument(
        "--repeat",
        type=int,
        default=3,
        help="decide, prove and check up to N times each; the fastest run counts (default 3)",
    )
    parser.add_argument("--out", type=Path, help="write the tables here (Markdown)")
    args = parser.parse_args()
    paths = [Path(p) for p in args.certificates] or drat_certificates(Path("results"))
    rows = []
    for path in paths:
        if max(_stated_lines(json.loads(path.read_text())), default=0) > args.skip_lines:
            print(f"skipped {path.name}: a proof of over {args.skip_lines} lines", flush=True)
            continue
        for name, cnf in refuted_cnfs(path):
            row = measure(name, cnf, args.cap, args.solve_cap, not args.no_before, args.repeat)
            rows.append(row)
            print(table([row])[2], flush=True)
            if args.out is not None:
                args.out.with_suffix(".json").write_text(json.dumps(rows, indent=1))
    lines = table(rows)
    lines += ["", first_use()]
    if args.solve:
        lines += [
            "",
            "| command | solve s (certified) | solve --no-proof s | ratio (b) | check s "
            "| lower bound | check verdict |",
            "|---|---|---|---|---|---|---|",
            *end_to_end(Path("/tmp")),
        ]
    print("\n".join(lines))
    if args.out is not None:
        command = "`.venv/bin/python benchmarks/certification.py " + " ".join(sys.argv[1:]) + "`"
        args.out.write_text("\n".join([f"Command: {command}", "", *lines]) + "\n")


def _stated_lines(cert: Any) -> list[int]:
    """Every ``proof_lines`` a certificate states."""
    if isinstance(cert, dict):
        own = [cert["proof_lines"]] if isinstance(cert.get("proof_lines"), int) else []
        return own + [n for v in cert.values() for n in _stated_lines(v)]
    if isinstance(cert, list):
        return [n for v in cert for n in _stated_lines(v)]
    return []


if __name__ == "__main__":
    main()
