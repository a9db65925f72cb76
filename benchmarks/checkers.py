"""Time every DRAT proof checker on genuine proofs, and on a forged one.

For each instance (or certificate file given on the command line) the CNF for one round
fewer than the optimum is regenerated, proved unsatisfiable by CaDiCaL (or the stored proof
is used), and judged by:

- ``gossipcert-drat`` (the project's own checker),
- ``dratify`` as the project runs it (deletions ignored),
- ``dratify`` applying deletions (its default, which accepts forged proofs: for comparison),
- ``drat-trim`` when a binary is found ($GOSSIPCERT_DRAT_TRIM or on the PATH).

Run with the project's Python, e.g. ``.venv/bin/python benchmarks/checkers.py`` or
``.venv/bin/python benchmarks/checkers.py pancake5-cert.json``.
"""

from __future__ import annotations

import argparse
import json
import time

import dratify

from gossipcert.encodings.knowledge import EncodingOptions
from gossipcert.exact.certificate import instance_from_certificate
from gossipcert.exact.checkers import drat_trim_binary, run_drat_trim, run_dratify, run_gossipcert
from gossipcert.exact.proof import prove_unsat, standalone_cnf, unpack_proof
from gossipcert.instance import parse_instance

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


def _row(name: str, cnf: str, proof: str) -> list[str]:
    cells = [name, f"{proof.count(chr(10)):,}"]
    for run in (run_gossipcert, run_dratify):
        o = run(cnf, proof)
        cells.append(f"{o.status} {o.seconds:.1f}s")
    status, secs = _dratify_with_deletions(cnf, proof)
    cells.append(f"{status} {secs:.1f}s")
    binary = drat_trim_binary()
    if binary is None:
        cells.append("(not found)")
    else:
        o = run_drat_trim(cnf, proof, binary)
        cells.append(f"{o.status} {o.seconds:.1f}s")
    return cells


def main() -> None:
    """Print the table."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("certificates", nargs="*", help="certificate files with DRAT evidence")
    args = ap.parse_args()
    head = ["instance", "proof lines", "gossipcert-drat", "dratify (no deletions)"]
    head += ["dratify (deletions)", "drat-trim"]
    rows = []
    if args.certificates:
        for path in args.certificates:
            with open(path) as fh:
                cert = json.load(fh)
            ev = cert["evidence"]
            inst = instance_from_certificate(cert)
            cnf = standalone_cnf(inst, ev["rounds"], EncodingOptions(**ev["encoding"]))
            rows.append(_row(path, cnf.dimacs(), unpack_proof(ev["proof_xz_base64"])))
            print(" | ".join(rows[-1]), flush=True)
    else:
        for graph, model, problem, rounds in SUITE:
            inst = parse_instance(graph, model, problem)
            cnf = standalone_cnf(inst, rounds, EncodingOptions())
            pr = prove_unsat(cnf)
            assert pr.status == "unsat" and pr.proof is not None
            rows.append(_row(f"{graph} {model} {rounds}", cnf.dimacs(), pr.proof))
            print(" | ".join(rows[-1]), flush=True)
    # the forgery of the reason-clause deletion
    forged = _row("forged (minimal)", "p cnf 2 2\n1 0\n-1 -2 0\n", "d -1 -2 0\n2 0\n0\n")
    rows.append(forged)
    print()
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    for r in rows:
        print("| " + " | ".join(r) + " |")


if __name__ == "__main__":
    main()
