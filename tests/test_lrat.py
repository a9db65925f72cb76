"""The project's LRAT checker: valid proofs pass, tampered and forged ones fail.

Every "proof" expected to fail below is either a refutation of a *satisfiable* formula (so
accepting it would be unsound) or a genuine proof with one thing broken (a hint, a line, the
empty clause). Where a drat-trim binary is present, its real LRAT output is checked too.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from gossipcert.encodings.knowledge import EncodingOptions
from gossipcert.instance import parse_instance
from gossipcert.proofs.checkers import drat_trim_binary, run_drat_trim_lrat
from gossipcert.proofs.drat import parse_dimacs
from gossipcert.proofs.lrat import check_lrat, check_lrat_file, check_lrat_text
from gossipcert.proofs.propagated import check_propagated
from gossipcert.proofs.refutation import prove_unsat
from gossipcert.solvers.standalone import standalone_cnf

#: the four clauses over two variables: unsatisfiable
XOR = "p cnf 2 4\n1 2 0\n-1 2 0\n1 -2 0\n-1 -2 0\n"
#: (2) from 1 and 2, (-2) from 3 and 4, then the empty clause
XOR_PROOF = "5 2 0 1 2 0\n6 -2 0 3 4 0\n7 0 5 6 0\n"


def _satisfiable(cnf: str) -> bool:
    nvars, clauses = parse_dimacs(cnf)
    return any(
        all(any((x > 0) == bool(bits >> (abs(x) - 1) & 1) for x in c) for c in clauses)
        for bits in range(1 << nvars)
    )


def test_a_valid_proof_is_verified() -> None:
    v = check_lrat_text(XOR, XOR_PROOF)
    assert v.status == "verified" and v.additions == 3 and v.rat_steps == 0
    # deletions of clauses no longer needed, a comment, an empty deletion line
    proof = "c a comment\n5 2 0 1 2 0\n5 d 1 2 0\n6 -2 0 3 4 0\n6 d 0\n7 0 5 6 0\n"
    v = check_lrat_text(XOR, proof)
    assert v.status == "verified" and v.deletions == 2


# name -> (formula, LRAT proof, part of the expected message)
TAMPERED = {
    # clause 3 (1 -2) has two literals that are not false under -2
    "hint-not-unit": (XOR, "5 2 0 3 1 2 0\n6 -2 0 3 4 0\n7 0 5 6 0\n", "hint 3 is not unit"),
    # without hint 2 nothing conflicts; then (2) is not RAT either (clause 3 has -2)
    "missing-hint": (XOR, "5 2 0 1 0\n6 -2 0 3 4 0\n7 0 5 6 0\n", "RAT on 2"),
    "hint-not-a-clause": (XOR, "5 2 0 1 9 0\n6 -2 0 3 4 0\n7 0 5 6 0\n", "hint 9 is not"),
    # clause 2 is deleted before it is used
    "hint-deleted": (XOR, "5 d 2 0\n5 2 0 1 2 0\n6 -2 0 3 4 0\n7 0 5 6 0\n", "hint 2 is not"),
    "no-empty-clause": (XOR, "5 2 0 1 2 0\n6 -2 0 3 4 0\n", "without deriving the empty"),
    "empty-clause-hints-short": (XOR, "5 2 0 1 2 0\n6 -2 0 3 4 0\n7 0 5 0\n", "no conflict"),
    "id-not-increasing": (XOR, "5 2 0 1 2 0\n5 -2 0 3 4 0\n7 0 5 6 0\n", "does not increase"),
    "id-of-a-formula-clause": (XOR, "4 2 0 1 2 0\n", "does not increase"),
    "no-hint-terminator": (XOR, "5 2 0 1 2\n", "is not 'i l1"),
    "garbage-token": (XOR, "5 2 0 1 x 0\n", "not an integer"),
    "bad-deletion": (XOR, "5 d 1 -2 0\n", "a deletion is not"),
    # satisfiable formulas: no proof may pass
    "clause-not-implied": ("p cnf 2 2\n1 2 0\n-1 2 0\n", "3 -2 0 0\n4 0 3 1 2 0\n", "RAT on -2"),
    "empty-clause-of-satisfiable": ("p cnf 2 1\n1 2 0\n", "2 0 1 0\n", "hint 1 is not unit"),
}


@pytest.mark.parametrize("name", sorted(TAMPERED))
def test_tampered_proofs_are_rejected(name: str) -> None:
    cnf, proof, why = TAMPERED[name]
    v = check_lrat_text(cnf, proof)
    assert v.status == "rejected" and why in v.message, v.message


#: hints out of propagation order still form a refutation: minisat-hints (which does not use
#: the order) accepts them, as it should
ORDER_ONLY = {"hint-not-unit"}


@pytest.mark.parametrize("name", sorted(set(TAMPERED) - ORDER_ONLY))
def test_tampered_proofs_are_rejected_by_minisat_hints(name: str) -> None:
    cnf, proof, _ = TAMPERED[name]
    _, clauses = parse_dimacs(cnf)
    assert check_propagated(clauses, proof.splitlines()).status == "rejected"


def test_minisat_hints_verifies_and_names_what_is_wrong() -> None:
    _, clauses = parse_dimacs(XOR)
    v = check_propagated(clauses, XOR_PROOF.splitlines())
    assert (v.status, v.additions, v.deletions) == ("verified", 3, 0)
    # the order of the hints is not used; deleted and unknown clauses are not live
    assert check_propagated(clauses, ["5 2 0 2 1 0", "6 -2 0 4 3 0", "7 0 6 5 0"]).status == (
        "verified"
    )
    v = check_propagated(clauses, ["5 2 0 1 2 0", "5 d 1 0", "6 -2 0 1 3 0"])
    assert v.message == "line 3: hint 1 is not a live clause"
    # a variable above the formula's would meet the activation variables: refused
    v = check_propagated(clauses, ["5 3 2 0 1 2 0"])
    assert v.message == "line 1: a variable that is not the formula's"
    # a formula with the empty clause is refuted by naming it
    assert check_propagated([[1], []], ["3 0 2 0"]).status == "verified"
    assert check_propagated([[1], [-1, 2]], ["3 0 1 2 0"]).status == "rejected"


def test_the_satisfiable_cases_are_satisfiable() -> None:
    for name in ("clause-not-implied", "empty-clause-of-satisfiable"):
        assert _satisfiable(TAMPERED[name][0])


# ------------------------------------------------------------------ RAT steps

#: x3 <-> (x1 and x2) by extension, then a refutation of XOR that uses it
EXTENSION = "5 -3 1 0 0\n6 -3 2 0 0\n7 3 -1 -2 0 -5 -6 0\n8 2 0 1 2 0\n9 -2 0 3 4 0\n10 0 8 9 0\n"


def test_rat_steps_are_verified() -> None:
    # 5 and 6: no clause has 3 (RAT, nothing to check); 7 is RAT on 3: its resolvents with
    # 5 and 6 are tautologies (-1 and 1, -2 and 2), so the groups -5 and -6 need no hints
    v = check_lrat_text(XOR, EXTENSION)
    assert v.status == "verified" and v.rat_steps == 3, v.message
    # the groups may be left out where the resolvent is satisfied by the assignment
    v = check_lrat_text(XOR, EXTENSION.replace(" -5 -6 0", " 0"))
    assert v.status == "verified" and v.rat_steps == 3, v.message


def test_a_rat_step_with_a_bad_witness_is_rejected() -> None:
    cnf = "p cnf 3 2\n1 2 0\n-1 3 0\n"  # satisfiable
    assert _satisfiable(cnf)
    # (1) is RAT on 1 only if its resolvent (3) with clause 2 is RUP: group -2 has no hints
    v = check_lrat_text(cnf, "3 1 0 -2 0\n")
    assert v.status == "rejected" and "resolvent with clause 2 is not RUP" in v.message
    # a group that names a clause without the complement of the pivot
    v = check_lrat_text(cnf, "3 1 0 -1 0\n")
    assert v.status == "rejected" and "RAT group for clause 1" in v.message
    # no group at all for clause 2
    v = check_lrat_text(cnf, "3 1 0 0\n")
    assert v.status == "rejected" and "no hints for the resolvent with clause 2" in v.message
    # the pivot is the first literal as written: (-3 1) is RAT on -3 (no clause has 3),
    # not on 1; written as (1 -3) it must fail (neither proof derives the empty clause)
    assert check_lrat_text("p cnf 3 1\n-1 2 0\n", "2 -3 1 0 0\n").rat_steps == 1
    v = check_lrat_text("p cnf 3 1\n-1 2 0\n", "2 1 -3 0 0\n")
    assert v.additions == 0 and "RAT on 1" in v.message
    # two groups for one clause
    v = check_lrat_text(cnf, "3 1 0 -2 -2 0\n")
    assert v.status == "rejected" and "two RAT groups" in v.message


def test_a_rat_step_sees_clauses_added_and_deleted_after_the_first_one() -> None:
    # the occurrence lists are built at the first RAT part and kept up to date after it
    cnf = "p cnf 3 1\n1 2 0\n"
    # (-3) is RAT (no clause has 3); (-2) is not: clause 1 has 2 and no group
    v = check_lrat_text(cnf, "2 -3 0 0\n3 -2 0 0\n")
    assert v.status == "rejected" and "clause 1" in v.message
    # after deleting clause 1, (-2) is RAT on -2
    v = check_lrat_text(cnf, "2 -3 0 0\n2 d 1 0\n3 -2 0 0\n")
    assert v.rat_steps == 2 and "without deriving the empty clause" in v.message
    # a clause added after the first RAT part is seen by the next: (4), then (-4 1)
    v = check_lrat_text("p cnf 4 1\n1 2 0\n", "2 4 0 0\n3 -4 1 0 0\n")
    assert v.status == "rejected" and "clause 2" in v.message


# ------------------------------------------------------------------ random forgeries


@st.composite
def _satisfiable_formula_and_lrat(draw: st.DrawFn) -> tuple[list[list[int]], list[str]]:
    nvars = draw(st.integers(1, 3))
    lit = st.integers(1, nvars).flatmap(lambda v: st.sampled_from([v, -v]))
    clauses = draw(st.lists(st.lists(lit, min_size=1, max_size=3), min_size=1, max_size=5))
    text = f"p cnf {nvars} {len(clauses)}\n" + "".join(
        " ".join(map(str, c)) + " 0\n" for c in clauses
    )
    assume(_satisfiable(text))
    lines, top = [], len(clauses)
    fresh = st.integers(1, nvars + 1).flatmap(lambda v: st.sampled_from([v, -v]))
    for _ in range(draw(st.integers(0, 5))):
        if draw(st.booleans()):
            ids = draw(st.lists(st.integers(1, top), max_size=2))
            lines.append(f"{top} d " + " ".join(map(str, ids)) + " 0")
            continue
        top += 1
        body = draw(st.lists(fresh, max_size=3))
        hints = draw(st.lists(st.integers(-(top - 1), top - 1).filter(bool), max_size=5))
        lines.append(f"{top} " + " ".join(map(str, [*body, 0, *hints, 0])))
    hints = draw(st.lists(st.integers(1, top), max_size=6))
    lines.append(f"{top + 1} 0 " + " ".join(map(str, [*hints, 0])))
    return clauses, lines


@settings(max_examples=300, deadline=None)
@given(_satisfiable_formula_and_lrat())
def test_no_lrat_proof_of_a_satisfiable_formula_is_accepted(
    case: tuple[list[list[int]], list[str]],
) -> None:
    clauses, lines = case
    assert check_lrat(clauses, lines).status == "rejected", (clauses, lines)
    assert check_propagated(clauses, lines).status == "rejected", (clauses, lines)


# ------------------------------------------------------------------ drat-trim's LRAT output

needs_drat_trim = pytest.mark.skipif(
    drat_trim_binary() is None, reason="no drat-trim binary on this machine"
)


def _drat_trim_lrat(cnf: str, proof: str, tmp_path: Path) -> str:
    """drat-trim's LRAT file for ``proof``."""
    import subprocess

    binary = drat_trim_binary()
    assert binary is not None
    (tmp_path / "f.cnf").write_text(cnf)
    (tmp_path / "p.drat").write_text(proof)
    out = tmp_path / "p.lrat"
    subprocess.run(
        [binary, str(tmp_path / "f.cnf"), str(tmp_path / "p.drat"), "-L", str(out)],
        capture_output=True,
        check=False,
    )
    return out.read_text()


@needs_drat_trim
def test_drat_trims_lrat_of_a_real_proof_holds_and_every_tampering_fails(tmp_path) -> None:
    inst = parse_instance("butterfly:3", "telephone", "gossip")
    cnf = standalone_cnf(inst, 5, EncodingOptions())
    proof = prove_unsat(cnf).proof
    assert proof is not None
    trim, own = run_drat_trim_lrat(cnf.dimacs(), proof, drat_trim_binary() or "")
    assert trim.ok and own is not None and own.ok, (trim, own)
    lines = _drat_trim_lrat(cnf.dimacs(), proof, tmp_path).splitlines()
    clauses = cnf.clauses
    assert check_lrat(clauses, lines).status == "verified"
    additions = [k for k, s in enumerate(lines) if s.split()[1] != "d" and len(s.split()) > 4]
    rng = random.Random(12)
    for k in sorted(rng.sample(additions, 4)):
        parts = lines[k].split()
        cut = parts.index("0")
        # drop the last hint: the propagation no longer reaches its conflict
        dropped = [*parts[: cut + 1], *parts[cut + 1 : -2], "0"]
        tampered = [*lines[:k], " ".join(dropped), *lines[k + 1 :]]
        v = check_lrat(clauses, tampered)
        assert v.status == "rejected" and f"line {k + 1} " in v.message, v.message
    # the final empty clause removed; the formula's clause 1 deleted before anything
    assert check_lrat(clauses, lines[:-1]).status == "rejected"
    first_hint = next(int(s.split()[s.split().index("0") + 1]) for s in lines if " d " not in s)
    head = f"{len(clauses)} d {first_hint} 0"
    assert check_lrat(clauses, [head, *lines]).status == "rejected"


@needs_drat_trim
def test_drat_trims_lrat_of_a_rat_proof_holds(tmp_path) -> None:
    # an extension variable that the refutation needs: (3 -1) rests on (3 -1 -2)
    drat = "-3 1 0\n-3 2 0\n3 -1 -2 0\n3 -1 0\n-3 0\n-1 0\n0\n"
    lrat = _drat_trim_lrat(XOR, drat, tmp_path)
    assert check_lrat_text(XOR, lrat).status == "verified"


def test_check_lrat_file_reads_a_file(tmp_path) -> None:
    path = tmp_path / "p.lrat"
    path.write_text(XOR_PROOF)
    assert check_lrat_file(XOR, path).status == "verified"
    assert check_lrat_file("p cnf 1 1\n2 0\n", path).status == "rejected"  # bad formula
