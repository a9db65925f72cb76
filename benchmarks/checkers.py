"""Time every DRAT proof checker on genuine proofs, and on a forged one.

For each instance (or certificate file given on the command line) the CNF for one round
fewer than the optimum is regenerated, proved unsatisfiable by CaDiCaL (or the stored proof
is used), and judged by:

- ``gossipcert-drat`` (the project's own checker),
- ``dratify`` as the project runs it (deletions ignored),
- ``dratify`` applying deletions (its default, which accepts forged proofs: for comparison),
- ``drat-trim`` when a binary is found ($GOSSIPCERT_DRAT_TRIM or on the PATH), and then
  ``gossipcert-lrat`` on the LRAT file drat-trim writes (``-L``): the path
  :func:`gossipcert.proofs.checkers.check_proof` takes when drat-trim is present (the time
  of that path is the sum of the two columns).

``--lrat-only`` runs only drat-trim and gossipcert-lrat (the other checkers take minutes on
proofs of a million lines). Run with the project's Python, e.g.
``.venv/bin/python benchmarks/checkers.py``, ``.venv/bin/python benchmarks/checkers.py
pancake5-cert.json`` or ``.venv/bin/python benchmarks/checkers.py --lrat-only``.
"""

from __future__ import annotations

import argparse
import json
import time

import dratify

from gossipcert.certificates.certificate import instance_from_certificate
from gossipcert.encodings.knowledge import EncodingOptions
from gossipcert.instance import parse_instance
from gossipcert.proofs.checkers import (
    drat_trim_binary,
    run_drat_trim_lrat,
    run_dratify,
    run_gossipcert,
)
from gossipcert.proofs.refutation import prove_unsat, unpack_proof
from gossipcert.solvers.standalone import standalone_cnf

# (graph, model, problem, rounds refuted)
SUITE = [
    ("ccc:3", "telephone", "gossip", 6),
    ("ccc:4", "telephone", "gossip", 8),
    ("butterfly:4", "telephone", "gossip", 6),
    ("shuffle-exchange:4", "telephone", "gossip", 6),
    ("debruijn:4", "telephone", "gossip", 5),
    ("petersen", "half-duplex", "gossip", 6),
]


def _dratify_with_deletions(cnf: str, proof: str) -> tuple[str, float]:
    start = time.monotonic()
    ok = dratify.check_proof(dratify.parse_dimacs(cnf), proof, engine="auto").ok
    return ("verified" if ok else "rejected"), time.monotonic() - start


def _row(name: str, cnf: str, proof: str, lrat_only: bool = False) -> list[str]:
    cells = [name, f"{proof.count(chr(10)):,}"]
    if lrat_only:
        cells += ["-", "-", "-"]
    else:
        for run in (run_gossipcert, run_dratify):
            o = run(cnf, proof)
            cells.append(f"{o.status} {o.seconds:.1f}s")
        status, secs = _dratify_with_deletions(cnf, proof)
        cells.append(f"{status} {secs:.1f}s")
    binary = drat_trim_binary()
    if binary is None:
        cells += ["(not found)", "(needs drat-trim)"]
    else:
        o, lrat = run_drat_trim_lrat(cnf, proof, binary)
        cells.append(f"{o.status} {o.seconds:.1f}s")
        cells.append("-" if lrat is None else f"{lrat.status} {lrat.seconds:.1f}s")
    return cells


def main() -> None:
    """Print the table."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("certificates", nargs="*", help="certificate files with DRAT evidence")
    ap.add_argument("--lrat-only", action="store_true", help="only drat-trim and gossipcert-lrat")
    args = ap.parse_args()
    head = ["instance", "proof lines", "gossipcert-drat", "dratify (no deletions)"]
    head += ["dratify (deletions)", "drat-trim -L", "gossipcert-lrat"]
    rows = []
    if args.certificates:
        for path in args.certificates:
            with open(path) as fh:
                cert = json.load(fh)
            ev = cert["evidence"]
            inst = instance_from_certificate(cert)
            cnf = standalone_cnf(inst, ev["rounds"], EncodingOptions(**ev["encoding"]))
            proof = unpack_proof(ev["proof_xz_base64"])
            rows.append(_row(path, cnf.dimacs(), proof, args.lrat_only))
            print(" | ".join(rows[-1]), flush=True)
    else:
        for graph, model, problem, rounds in SUITE:
            inst = parse_instance(graph, model, problem)
            cnf = standalone_cnf(inst, rounds, EncodingOptions())
            pr = prove_unsat(cnf)
            assert pr.status == "unsat" and pr.proof is not None
            rows.append(_row(f"{graph} {model} {rounds}", cnf.dimacs(), pr.proof, args.lrat_only))
            print(" | ".join(rows[-1]), flush=True)
    # the forgery of the reason-clause deletion
    forged = _row(
        "forged (minimal)", "p cnf 2 2\n1 0\n-1 -2 0\n", "d -1 -2 0\n2 0\n0\n", args.lrat_only
    )
    rows.append(forged)
    print()
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    for r in rows:
        print("| " + " | ".join(r) + " |")


if __name__ == "__main__":
    main()
