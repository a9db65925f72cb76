"""The compiled LRAT path: CaDiCaL's binary proof read and trimmed by
:mod:`gossipcert.proofs.lrat_kernels`, and the two compiled checkers
(:mod:`gossipcert.proofs.lrat_compiled`, :mod:`gossipcert.proofs.fixpoint`).

The compiled checkers only ever accept: every adversarial proof of the suite must be refused
by each (``None``), and :func:`gossipcert.proofs.lrat_checks.check_lrat_proof` then reports the
Python checkers' rejection (``tests/test_proof_trim.py``'s ``verdicts`` holds them to the
Python checkers on each proof it judges, forged ones included).
"""

from __future__ import annotations

import random

import numpy as np
import pytest
from hypothesis import given, settings

from gossipcert.errors import SolverError
from gossipcert.proofs import lrat_checks, lrat_solver
from gossipcert.proofs.drat import parse_dimacs
from gossipcert.proofs.fixpoint import check_fixpoint
from gossipcert.proofs.lrat import check_lrat
from gossipcert.proofs.lrat_checks import check_lrat_proof
from gossipcert.proofs.lrat_compiled import check_compiled
from gossipcert.proofs.lrat_kernels import COMMENT, MALFORMED, OK, read_proof, trim_arrays
from gossipcert.proofs.lrat_solver import LratSolver
from gossipcert.proofs.propagated import check_propagated
from gossipcert.proofs.trim import _trim_lines, binary_to_text
from tests.test_lrat import ORDER_ONLY, TAMPERED, _satisfiable_formula_and_lrat
from tests.test_proof_trim import dimacs, genuine, pigeons, random_cnf, raw_proof, satisfiable


def compiled(clauses: list[list[int]], proof: str) -> tuple[str, str]:
    """Each compiled checker's status: ``verified``, ``timeout`` or ``refused``."""
    nvars = max((abs(x) for c in clauses for x in c), default=0)
    data = proof.encode() if proof.endswith("\n") else (proof + "\n").encode()
    a = check_compiled(clauses, data, nvars)
    b = check_fixpoint(clauses, data, nvars)
    return (a.status if a else "refused", b.status if b else "refused")


@pytest.mark.parametrize("name", sorted(TAMPERED))
def test_tampered_proofs_are_refused(name: str) -> None:
    cnf, proof, _ = TAMPERED[name]
    _, clauses = parse_dimacs(cnf)
    a, b = compiled(clauses, proof)
    assert a == "refused"
    # hints out of propagation order still form a refutation, which the fixpoint accepts
    assert b == ("verified" if name in ORDER_ONLY else "refused")


def test_a_valid_proof_is_verified_by_both() -> None:
    _, clauses = parse_dimacs("p cnf 2 4\n1 2 0\n-1 2 0\n1 -2 0\n-1 -2 0\n")
    proof = "5 2 0 1 2 0\n5 d 1 2 0\n6 -2 0 3 4 0\n6 d 0\n7 0 5 6 0\n"
    assert compiled(clauses, proof) == ("verified", "verified")
    # a tautology is accepted as it stands
    assert compiled(clauses, "5 1 -1 0 0\n" + proof.replace("5 ", "6 ", 1)) == ("refused",) * 2
    taut = "5 1 -1 0 0\n6 2 0 1 2 0\n7 -2 0 3 4 0\n8 0 6 7 0\n"
    assert compiled(clauses, taut) == ("verified", "verified")


@settings(max_examples=300, deadline=None)
@given(_satisfiable_formula_and_lrat())
def test_no_proof_of_a_satisfiable_formula_is_accepted(
    case: tuple[list[list[int]], list[str]],
) -> None:
    clauses, lines = case
    assert compiled(clauses, "\n".join(lines)) == ("refused", "refused"), (clauses, lines)


def test_one_hint_changed_the_compiled_checkers_follow_the_python_ones() -> None:
    clauses, lines = genuine()
    assert compiled(clauses, "\n".join(lines)) == ("verified", "verified")
    seen = 0
    for k, line in enumerate(lines):
        tokens = line.split()
        if tokens[1] == "d":
            continue
        zero = tokens.index("0", 1)
        for j in range(zero + 1, len(tokens) - 1):
            for other in {1, 2, int(tokens[j]) - 1, int(tokens[j]) + 1, int(tokens[0]) - 1}:
                if other <= 0 or str(other) in tokens[zero + 1 : -1]:
                    continue
                forged = [*lines[:k], " ".join([*tokens[:j], str(other), *tokens[j + 1 :]])]
                forged += lines[k + 1 :]
                python = (
                    check_lrat(clauses, forged).status,
                    check_propagated(clauses, forged).status,
                )
                got = compiled(clauses, "\n".join(forged))
                # the same rules: a verdict of the compiled engine is the Python one's
                assert got == tuple("refused" if p == "rejected" else p for p in python)
                seen += python[0] == "rejected"
    assert seen > 10


#: proofs of the formula ``FORMULA`` that break the LRAT format: each compiled checker alone
#: must refuse them (the last case of each group is one the hint-fixpoint reader once
#: accepted, reading a ``d`` or a line break as the zero that ends the literals)
MALFORMED_PROOFS = [
    "c a comment\n5 2 0 1 2 0\n6 -2 0 3 4 0\n7 0 5 6 0\n",  # refused, not misread
    "5 2 0 1 2 0\n6 -2 0 3 4 0\n7 0 5 6\n",  # no terminator
    "5 2 0 1 2 0\n6 -2 0 3 4 0\n7 0 5 6 0 9\n",  # a token after the end
    "5 2 0 1 2 0\n6 -2 0 3 4 0\n7 0 5 x 0\n",
    "5 2 0 1 2 0\n6 -2 0 3 4 0\n7 0 5 --6 0\n",
    "5 2 0 1 2 0\n6 -2 0 3 4 0\n7 0 5 6 0 0\n",
    "5 2 0 1 2 0\n6 d -3 0\n6 -2 0 3 4 0\n7 0 5 6 0\n",
    "5 2 0 1 2 0\n6 -2 0 3 4 0\n99999999999999999 0 5 6 0\n",
    "5 2 0 1 2 0\n6 -2 0 3 4 0\n7 0 5 6 -0 0\n",
    "5 2 0 1 2 0\nd 6 -2 0 3 4 0\n7 0 5 6 0\n",
    "5 2 0 1 2 0\n6 -2 0 3 4 0\n7 0 5 6 0 d\n",
    "5 9 0 1 2 0\n6 -2 0 3 4 0\n7 0 5 6 0\n",  # a variable beyond the formula's
    # a stray d
    "5 2 0 1 2 0\n6 -2 0 3 d 4 0\n7 0 5 6 0\n",
    "5 2 0 1 2 0 d\n6 -2 0 3 4 0\n7 0 5 6 0\n",
    "5 2 d 0 1 2 0\n6 -2 0 3 4 0\n7 0 5 6 0\n",
    "5 d 2 0 1 2 0\n6 -2 0 3 4 0\n7 0 5 6 0\n",
    "5 2 0 1 2 0\n5 d 1 d 2 0\n6 -2 0 3 4 0\n7 0 5 6 0\n",
    "5 2 d 1 2 0\n6 -2 0 3 4 0\n7 0 5 6 0\n",  # d for the literals' zero
    # a missing zero
    "5 2 0 1 2 0\n6 -2 0 3 4\n7 0 5 6 0\n",
    "5 2 0 1 2 0\n6 -2 3 4 0\n7 0 5 6 0\n",
    "5 2 0 1 2 0\n5 d 1 2\n6 -2 0 3 4 0\n7 0 5 6 0\n",
    "5 2 0 1 2 0\n6 -2 0 3 4 0\n7 0 5 6 0\n8 d 5\n",
    "5 2\n1 2 0\n6 -2 0 3 4 0\n7 0 5 6 0\n",  # a line break for the literals' zero
    "5\n2 0 1 2 0\n6 -2 0 3 4 0\n7 0 5 6 0\n",
    # "-0" for a zero
    "5 2 -0 1 2 0\n6 -2 0 3 4 0\n7 0 5 6 0\n",
]
#: the well-formed refutation of ``FORMULA`` the malformed proofs are made from
WELL_FORMED = "5 2 0 1 2 0\n6 -2 0 3 4 0\n7 0 5 6 0\n"
#: the formula of :data:`MALFORMED_PROOFS`
FORMULA = "p cnf 2 4\n1 2 0\n-1 2 0\n1 -2 0\n-1 -2 0\n"
#: each compiled checker alone: its status on a proof (``refused`` when it returns None)
CHECKERS = {
    "gossipcert-lrat (compiled)": lambda clauses, data, n=2: check_compiled(clauses, data, n),
    "hint-fixpoint (compiled)": lambda clauses, data, n=2: check_fixpoint(clauses, data, n),
}


@pytest.mark.parametrize("checker", sorted(CHECKERS))
@pytest.mark.parametrize("proof", MALFORMED_PROOFS)
def test_malformed_proofs_are_refused(proof: str, checker: str) -> None:
    _, clauses = parse_dimacs(FORMULA)
    assert CHECKERS[checker](clauses, proof.encode()) is None
    # the well-formed proof the cases are made from is verified by the same checker
    assert CHECKERS[checker](clauses, WELL_FORMED.encode()).status == "verified"


def test_the_text_and_binary_readers_agree_and_name_what_they_cannot_read() -> None:
    for clauses in (pigeons(5), [[1], [-1, 2], *pigeons(4)]):
        text, _ = raw_proof(clauses)
        binary, _ = raw_proof(clauses, binary=True)
        s1, _, a = read_proof(text)
        s2, _, b = read_proof(binary, binary=True)
        assert s1 == s2 == OK and a is not None and b is not None
        for x, y in zip(a[:-1], b[:-1], strict=True):
            if x is a.head:  # a binary deletion has no id of its own
                x, y = x[a.kind == 0], y[b.kind == 0]
            assert np.array_equal(x, y)
    assert read_proof(b"c hello\n4 0 1 0\n")[:2] == (COMMENT, 1)
    assert read_proof(b"4 0 1 0\n5 0 x 0\n")[:2] == (MALFORMED, 2)
    assert read_proof(b"a\x0a\x00", binary=True)[0] == MALFORMED  # truncated
    assert read_proof(b"q", binary=True)[0] == MALFORMED
    for bad in (b"q", b"a\x0a\x00"):
        with pytest.raises(SolverError):
            binary_to_text(bad)


@pytest.mark.parametrize("kernels", [True, False])
def test_the_trim_of_the_binary_proof_is_the_line_trim_of_the_text(
    monkeypatch, kernels: bool
) -> None:
    # the compiled kernels, and the path without them (binary turned into text)
    monkeypatch.setattr(lrat_solver, "compiled_available", lambda: kernels)
    renamed = [[1], [-1, 2], *[[x + 2 if x > 0 else x - 2 for x in c] for c in pigeons(5)]]
    cases = [pigeons(5), pigeons(6), renamed]
    rng = random.Random(11)
    while len(cases) < 33:
        clauses = random_cnf(rng)
        if not satisfiable(clauses):
            cases.append(clauses)
    for clauses in cases:
        text, ids = raw_proof(clauses)
        reference = _trim_lines(text, ids.table() if ids else {})
        solver = LratSolver(clauses)  # binary
        try:
            assert solver.solver.solve() is False
            got = solver.trimmed()
        finally:
            solver.close()
        assert got == reference, clauses
        assert compiled(clauses, got.text) == ("verified", "verified")


def test_the_verdict_goes_through_the_compiled_checkers_and_back() -> None:
    assert lrat_checks.USE_COMPILED
    clauses, lines = genuine()
    proof = "\n".join(lines) + "\n"
    v = check_lrat_proof(dimacs(clauses), proof)
    assert v.status == "verified"
    assert [o.checker for o in v.outcomes] == [
        "gossipcert-lrat (compiled)",
        "hint-fixpoint (compiled)",
    ]
    # a rejection is the Python checkers', naming the line
    empty = next(ln for ln in lines if ln.split()[1] == "0")
    forged = proof.replace(empty, empty.rsplit(" ", 2)[0] + " 0")  # its last hint dropped
    v = check_lrat_proof(dimacs(clauses), forged)
    assert v.status == "rejected"
    assert v.outcomes[0].checker == "gossipcert-lrat" and "line" in v.outcomes[0].message


def test_a_trimmed_proof_out_of_ids_returns_the_status() -> None:
    status, _, proof = read_proof(b"5 2 0 1 2 0\n5 0 5 3 0\n")
    assert status == OK and proof is not None
    assert trim_arrays(proof)[0] != OK


@pytest.mark.parametrize(
    "proof",
    [
        "4 0 1 2 3 0",  # the hints reach no conflict
        "4 2 0 1 2 0\n5 0 4 0",  # clause 4 alone is not a conflict
        "4 -2 0 1 2 0\n5 0 4 2 0",  # clause 4 is not implied
        "4 2 0 1 2 0\n4 0 4 3 0",  # an id that does not increase
        "4 2 0 1 2 0",  # no empty clause
        "4 2 0 9 0\n5 0 4 3 0",  # a hint that names no clause
        "4 2 0 1 2 0\n4 d 4 0\n5 0 4 3 0",  # a clause used after its deletion
        "4 2 0 -1 2 0\n5 0 4 3 0",  # a RAT group
    ],
)
def test_refutations_of_a_satisfiable_formula_are_refused_by_each(proof: str) -> None:
    sat = [[1, 2], [-1, 2], [1, -2]]
    assert satisfiable(sat)
    assert compiled(sat, proof) == ("refused", "refused")
    assert check_lrat_proof(dimacs(sat), proof + "\n").status == "rejected"
