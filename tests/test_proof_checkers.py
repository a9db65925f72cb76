"""Proof checkers against forged and adversarial proofs, and forged certificates.

Every adversarial proof here is a "refutation" of a *satisfiable* formula, so a checker that
accepts one is unsound — whatever the reason. Each checker the project uses is run on each:
the project's own checker, dratify as the project runs it (deletions ignored), and drat-trim
where a binary is available. If a dependency is upgraded to a version that accepts one of
them, these tests fail.
"""

from __future__ import annotations

import copy
import json
import time

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from gossipcert.certificates.certificate import build_certificate, check_certificate
from gossipcert.cli import app
from gossipcert.encodings.knowledge import EncodingOptions
from gossipcert.instance import parse_instance
from gossipcert.proofs.checkers import (
    check_proof,
    drat_trim_binary,
    run_drat_trim,
    run_dratify,
    run_gossipcert,
)
from gossipcert.proofs.drat import check_drat_text, parse_dimacs
from gossipcert.proofs.refutation import pack_proof, prove_unsat
from gossipcert.schedule import Schedule, to_json
from gossipcert.search.entry import solve
from gossipcert.solvers.standalone import standalone_cnf

# name -> (satisfiable formula, invalid proof)
ADVERSARIAL = {
    # the forgery: delete the reason for the root literal -2, then use the stale assignment
    "reason-clause-deletion": ("p cnf 2 2\n1 0\n-1 -2 0\n", "d -1 -2 0\n2 0\n0\n"),
    # -1 is RAT only if the clauses with the *pivot* (not its complement) were checked
    "rat-on-wrong-pivot-polarity": ("p cnf 2 2\n1 2 0\n1 -2 0\n", "-1 0\n0\n"),
    # (-2 3) is RAT on 3 (no clause has -3) but not on -2, the pivot it is written with
    "rat-on-wrong-pivot": ("p cnf 2 2\n1 2 0\n-1 2 0\n", "-2 3 0\n-2 0\n0\n"),
    "lemma-not-implied": ("p cnf 2 2\n1 2 0\n-1 2 0\n", "-2 0\n0\n"),
    # 1 and 2 are each RAT once (-1 -2) is gone; a checker that still propagates over the
    # deleted clause finds a conflict
    "deleted-clause-used-later": ("p cnf 2 1\n-1 -2 0\n", "d -1 -2 0\n1 0\n2 0\n0\n"),
    "duplicate-literals": ("p cnf 2 2\n1 2 0\n-1 2 0\n", "-2 -2 0\n0\n"),
    "duplicate-literals-in-deletion": (
        "p cnf 3 3\n1 2 0\n-1 2 0\n1 -2 3 0\n",
        "d 2 1 1 0\n-2 0\n0\n",
    ),
    "complementary-literals": ("p cnf 2 1\n1 2 0\n", "2 -2 0\n-2 0\n0\n"),
    "empty-clause-without-refutation": ("p cnf 2 1\n1 2 0\n", "0\n"),
    "truncated-clause": ("p cnf 2 2\n1 2 0\n-1 2 0\n", "-2"),
    "garbage-token": ("p cnf 2 1\n1 2 0\n", "x 0\n0\n"),
}


def _satisfiable(cnf: str) -> bool:
    nvars, clauses = parse_dimacs(cnf)
    for bits in range(1 << nvars):
        if all(any((x > 0) == bool(bits >> (abs(x) - 1) & 1) for x in c) for c in clauses):
            return True
    return False


@pytest.mark.parametrize("name", sorted(ADVERSARIAL))
def test_adversarial_formulas_are_satisfiable(name: str) -> None:
    # so that no proof of them can be valid: acceptance would be unsound
    assert _satisfiable(ADVERSARIAL[name][0])


@pytest.mark.parametrize("name", sorted(ADVERSARIAL))
def test_the_projects_checker_rejects(name: str) -> None:
    cnf, proof = ADVERSARIAL[name]
    assert run_gossipcert(cnf, proof).status == "rejected"


@pytest.mark.usefixtures("dratify")
@pytest.mark.parametrize("name", sorted(ADVERSARIAL))
def test_dratify_as_run_by_the_project_rejects(name: str) -> None:
    cnf, proof = ADVERSARIAL[name]
    assert run_dratify(cnf, proof).status == "rejected"
    assert run_dratify(cnf, proof, deadline=time.monotonic() + 60).status == "rejected"  # child


@pytest.mark.skipif(drat_trim_binary() is None, reason="no drat-trim binary on this machine")
@pytest.mark.parametrize("name", sorted(ADVERSARIAL))
def test_drat_trim_rejects(name: str) -> None:
    cnf, proof = ADVERSARIAL[name]
    binary = drat_trim_binary()
    assert binary is not None
    assert run_drat_trim(cnf, proof, binary).status == "rejected"


@pytest.mark.usefixtures("dratify")
@pytest.mark.parametrize("name", sorted(ADVERSARIAL))
def test_the_combined_verdict_rejects(name: str) -> None:
    cnf, proof = ADVERSARIAL[name]
    assert check_proof(cnf, proof).status == "rejected"


def test_the_rejection_names_the_step() -> None:
    cnf, proof = ADVERSARIAL["reason-clause-deletion"]
    v = check_drat_text(cnf, proof)
    assert v.status == "rejected" and "proof step 2" in v.message
    assert v.ignored_deletions == 1  # the reason clause was kept


@pytest.mark.usefixtures("dratify")
def test_valid_proofs_with_rat_are_verified() -> None:
    cnf = "p cnf 2 4\n1 2 0\n-1 2 0\n1 -2 0\n-1 -2 0\n"  # unsatisfiable
    assert check_proof(cnf, "1 0\n0\n").status == "verified"
    # a RAT step on a fresh variable (no clause contains -3), then a refutation
    v = check_drat_text(cnf, "3 0\n1 0\n0\n")
    assert v.status == "verified" and v.rat_steps == 1
    assert check_proof(cnf, "3 0\n1 0\n0\n").status == "verified"
    # (-2 -1) is RAT on -2 for the formula (1); (2 -1) is then neither RUP nor RAT
    v = check_drat_text("p cnf 1 1\n1 0\n", "-2 -1 0\n2 -1 0\n0\n")
    assert v.status == "rejected" and "proof step 2" in v.message


def test_the_wrong_pivot_is_caught_at_its_step() -> None:
    v = check_drat_text(*ADVERSARIAL["rat-on-wrong-pivot"])
    assert v.status == "rejected" and "proof step 1" in v.message


def test_huge_variable_numbers_cost_no_memory() -> None:
    # a proof naming variable 10^12 must not make the checker allocate per variable
    v = check_drat_text("p cnf 1 2\n1 0\n-1 0\n", "d 1000000000000 0\n0\n")
    assert v.status == "verified"
    cnf = "p cnf 2 4\n1 2 0\n-1 2 0\n1 -2 0\n-1 -2 0\n"
    v = check_drat_text(cnf, "1000000000000 0\n-1000000000000 1 0\n1 0\n0\n")
    assert v.status == "verified" and v.rat_steps == 1


@pytest.mark.usefixtures("dratify")
def test_a_formula_refuted_by_unit_propagation_needs_no_empty_clause() -> None:
    # the convention of drat-trim and dratify, which the project's checker shares
    assert check_proof("p cnf 1 2\n1 0\n-1 0\n", "").status == "verified"


@pytest.mark.usefixtures("dratify")
def test_deadline_gives_no_verdict() -> None:
    inst = parse_instance("butterfly:3", "telephone", "gossip")
    cnf = standalone_cnf(inst, 5, EncodingOptions())
    proof = prove_unsat(cnf).proof
    assert proof is not None
    v = check_proof(cnf.dimacs(), proof, deadline=0.0)
    assert v.status == "timeout" and not v.ok
    assert {o.status for o in v.outcomes} <= {"timeout", "verified"}


@pytest.mark.usefixtures("dratify")
def test_truncated_genuine_proof_is_rejected_by_every_checker() -> None:
    inst = parse_instance("ccc:3", "telephone", "gossip")
    cnf = standalone_cnf(inst, 6, EncodingOptions())
    proof = prove_unsat(cnf).proof
    assert proof is not None and check_proof(cnf.dimacs(), proof).ok
    lines = proof.splitlines()
    cut = "\n".join(lines[: len(lines) // 2]) + "\n"  # the first half
    verdict = check_proof(cnf.dimacs(), cut)
    assert verdict.status == "rejected"
    assert all(o.status == "rejected" for o in verdict.outcomes), verdict.summary()


# ------------------------------------------------------------------ forged certificates


def _root_literal_and_reason(clauses: list[list[int]]) -> tuple[int, list[int]]:
    """A literal fixed by unit propagation at the root and a non-unit clause implying it
    (a plain fixpoint loop, independent of every checker)."""
    value: dict[int, bool] = {}
    changed = True
    while changed:
        changed = False
        for c in clauses:
            if any(value.get(abs(x)) == (x > 0) for x in c):
                continue
            free = [x for x in c if abs(x) not in value]
            if len(free) == 1:
                value[abs(free[0])] = free[0] > 0
                changed = True
                if len(c) > 1:
                    return free[0], c
    raise AssertionError("no literal implied by a non-unit clause")


def forge(graph: str, model: str, problem: str, fake: int, strict: bool) -> dict:
    """The classic forgery: a genuine certificate raised to ``fake`` rounds, the schedule
    padded with empty rounds, the CNF for ``fake - 1`` rounds, and a three-line "proof"."""
    inst = parse_instance(graph, model, problem)
    res = solve(inst, strict=strict, proof=False)
    assert res.status == "optimal" and res.schedule is not None and res.optimum < fake
    cert = copy.deepcopy(build_certificate(res))
    pad = Schedule(((),) * (fake - res.optimum) + tuple(res.schedule.rounds))
    options = EncodingOptions(dominance=not strict, symmetry=not strict)
    cnf = standalone_cnf(inst, fake - 1, options)
    lit, reason = _root_literal_and_reason(cnf.clauses)
    proof = f"d {' '.join(map(str, reason))} 0\n{-lit} 0\n0\n"
    cert.update(
        optimum=fake,
        lower_bound=fake,
        upper_bound=fake,
        schedule=to_json(pad, inst),
        symmetry_breaking=not strict,
        evidence={
            "kind": "drat",
            "rounds": fake - 1,
            "encoding": options.to_json(),
            "cnf_sha256": cnf.sha256(),
            "variables": cnf.nvars,
            "clauses": len(cnf.clauses),
            "proof_xz_base64": pack_proof(proof),
        },
    )
    return cert


FORGERIES = [
    ("ccc:3", "telephone", "gossip", 8, False),
    ("ccc:3", "telephone", "gossip", 8, True),
    ("ring:6", "telephone", "gossip", 7, False),
    ("hypercube:3", "half-duplex", "broadcast:0", 6, False),
    ("hypercube:3", "half-duplex", "broadcast:0", 6, True),
]


@pytest.mark.usefixtures("dratify")
@pytest.mark.parametrize(("graph", "model", "problem", "fake", "strict"), FORGERIES)
def test_forged_certificates_fail(
    graph: str, model: str, problem: str, fake: int, strict: bool
) -> None:
    cert = forge(graph, model, problem, fake, strict)
    rep = check_certificate(cert)
    assert rep.status == "fails", rep.steps
    # everything but the proof holds: the forgery is caught by the proof checkers alone
    failing = [text for ok, text in rep.steps if ok is not True]
    assert failing and all("DRAT proof" in t for t in failing), failing


@pytest.mark.usefixtures("dratify")
def test_the_forgery_fooled_dratify_with_deletions_applied() -> None:
    # documents the defect the checkers guard against: if this starts failing, dratify was
    # fixed, and the project may (but need not) apply deletions again
    import dratify

    f = dratify.parse_dimacs(ADVERSARIAL["reason-clause-deletion"][0])
    assert dratify.check_proof(f, ADVERSARIAL["reason-clause-deletion"][1], engine="python").ok


@pytest.mark.usefixtures("dratify")
def test_check_command_rejects_the_forged_ccc3_certificate(tmp_path) -> None:
    path = tmp_path / "forged.json"
    path.write_text(json.dumps(forge("ccc:3", "telephone", "gossip", 8, False)))
    res = CliRunner().invoke(app, ["check", str(path)])
    assert res.exit_code == 1, res.stdout
    assert "certificate FAILS" in res.stdout and "certificate holds" not in res.stdout
    assert "problem checked: gossip" in res.stdout
    res = CliRunner().invoke(app, ["check", str(path), "--json"])
    assert res.exit_code == 1 and json.loads(res.stdout)["status"] == "fails"


def test_check_command_exit_3_when_out_of_time(tmp_path) -> None:
    res = solve(parse_instance("ring:7", "telephone", "gossip"), use_bounds=False)
    assert res.evidence["kind"] == "drat"
    path = tmp_path / "ring7.json"
    path.write_text(json.dumps(build_certificate(res)))
    out = CliRunner().invoke(app, ["check", str(path), "--time-limit", "0.001"])
    assert out.exit_code == 3, out.stdout
    assert "could not re-check in time" in out.stdout and "FAILS" not in out.stdout
    assert CliRunner().invoke(app, ["check", str(path)]).exit_code == 0


# ------------------------------------------------------------------ random proofs


@st.composite
def _satisfiable_formula_and_proof(draw: st.DrawFn) -> tuple[str, str]:
    nvars = draw(st.integers(2, 5))
    var = st.integers(1, nvars)
    lit = st.tuples(var, st.booleans()).map(lambda t: t[0] if t[1] else -t[0])
    clauses = draw(st.lists(st.lists(lit, min_size=1, max_size=3), min_size=1, max_size=9))
    cnf = f"p cnf {nvars} {len(clauses)}\n" + "".join(
        " ".join(map(str, c)) + " 0\n" for c in clauses
    )
    assume(_satisfiable(cnf))
    # lemmas may use one fresh variable (RAT on it is legitimate); deletions pick any clause
    fresh = st.tuples(st.integers(1, nvars + 1), st.booleans()).map(
        lambda t: t[0] if t[1] else -t[0]
    )
    lemma = st.lists(fresh, min_size=0, max_size=3)
    steps = draw(
        st.lists(
            st.one_of(
                lemma.map(lambda c: " ".join(map(str, c)) + " 0"),
                st.sampled_from(clauses).map(lambda c: "d " + " ".join(map(str, c)) + " 0"),
            ),
            max_size=8,
        )
    )
    return cnf, "\n".join([*steps, "0"]) + "\n"


@pytest.mark.usefixtures("dratify")
@settings(max_examples=200, deadline=None)
@given(_satisfiable_formula_and_proof())
def test_no_proof_of_a_satisfiable_formula_is_accepted(case: tuple[str, str]) -> None:
    cnf, proof = case
    assert check_drat_text(cnf, proof).status == "rejected", (cnf, proof)
    assert run_dratify(cnf, proof).status == "rejected", (cnf, proof)


@pytest.mark.usefixtures("dratify")
def test_the_projects_checker_stops_at_its_budget_without_a_verdict(monkeypatch) -> None:
    from gossipcert.proofs import checkers

    inst = parse_instance("butterfly:3", "telephone", "gossip")
    cnf = standalone_cnf(inst, 5, EncodingOptions())
    proof = prove_unsat(cnf).proof
    assert proof is not None
    monkeypatch.setattr(checkers, "OWN_BUDGET_SECONDS", 0.0)
    monkeypatch.setattr(checkers, "OWN_BUDGET_FACTOR", 0.0)
    v = check_proof(cnf.dimacs(), proof, drat_trim=False)  # the path with dratify
    own = [o for o in v.outcomes if o.checker == "gossipcert-drat"]
    assert own[0].status == "over-budget" and v.status == "verified"
    assert "stopped at its budget" in v.summary()
    # a rejection stays a rejection whatever the budget
    forged = ADVERSARIAL["reason-clause-deletion"]
    assert check_proof(*forged).status == "rejected"
    # --full: the project's checker runs to the end
    full = check_proof(cnf.dimacs(), proof, drat_trim=False, full=True)
    assert {o.status for o in full.outcomes} == {"verified"}


# ------------------------------------------------------------------ drat-trim's LRAT path


def _fake_drat_trim(tmp_path, lrat: str) -> str:
    """A stand-in for drat-trim that says ``s VERIFIED`` to anything and writes ``lrat`` as
    its LRAT proof (a lying checker)."""
    import sys

    script = tmp_path / "fake-drat-trim"
    script.write_text(
        f"#!{sys.executable}\n"
        "import sys\n"
        "args = sys.argv\n"
        "if '-L' in args:\n"
        f"    open(args[args.index('-L') + 1], 'w').write({lrat!r})\n"
        "print('s VERIFIED')\n"
    )
    script.chmod(0o755)
    return str(script)


#: bogus LRAT proofs a lying drat-trim might hand over: the empty clause from the first
#: clauses, the empty clause alone, nothing at all
BOGUS_LRAT = ["1000 0 1 2 0\n", "1000 0 0\n", ""]


@pytest.mark.usefixtures("dratify")
@pytest.mark.parametrize("lrat", BOGUS_LRAT)
@pytest.mark.parametrize("name", sorted(ADVERSARIAL))
def test_a_lying_drat_trim_cannot_make_a_forgery_pass(
    name: str, lrat: str, tmp_path, monkeypatch
) -> None:
    # its LRAT file goes to gossipcert-lrat, which judges it on its own; when that rejects,
    # dratify and the project's DRAT checker judge the proof as handed in
    from gossipcert.proofs import checkers

    monkeypatch.setenv(checkers.DRAT_TRIM_ENV, _fake_drat_trim(tmp_path, lrat))
    cnf, proof = ADVERSARIAL[name]
    v = check_proof(cnf, proof)
    assert v.status == "rejected", v.summary()
    assert [o.status for o in v.outcomes][-1] == "verified"  # the liar said yes
    assert "LRAT file was rejected" in v.outcomes[-1].message


@pytest.mark.usefixtures("dratify")
def test_a_bad_lrat_file_falls_back_to_the_proof_handed_in(tmp_path, monkeypatch) -> None:
    from gossipcert.proofs import checkers

    # a genuine DRAT refutation of the four clauses over two variables, and an LRAT file
    # whose only step (the empty clause, no hints) does not hold
    monkeypatch.setenv(checkers.DRAT_TRIM_ENV, _fake_drat_trim(tmp_path, "5 0 0\n"))
    cnf = "p cnf 2 4\n1 2 0\n-1 2 0\n1 -2 0\n-1 -2 0\n"
    v = check_proof(cnf, "2 0\n0\n")
    # the genuine proof is then checked by dratify and the project's DRAT checker
    assert v.status == "verified", v.summary()
    assert [o.checker.split()[0] for o in v.outcomes][:2] == ["dratify", "gossipcert-drat"]


def test_a_valid_lrat_file_is_the_whole_check(tmp_path, monkeypatch) -> None:
    # an LRAT refutation that holds: gossipcert-lrat and drat-trim decide, dratify is not run
    from gossipcert.proofs import checkers

    cnf = "p cnf 2 4\n1 2 0\n-1 2 0\n1 -2 0\n-1 -2 0\n"
    lrat = "5 2 0 1 2 0\n6 -2 0 3 4 0\n7 0 5 6 0\n"
    monkeypatch.setenv(checkers.DRAT_TRIM_ENV, _fake_drat_trim(tmp_path, lrat))
    v = check_proof(cnf, "2 0\n0\n")
    assert v.status == "verified", v.summary()
    assert [o.checker.split()[0] for o in v.outcomes] == ["gossipcert-lrat", "drat-trim"]


@pytest.mark.skipif(drat_trim_binary() is None, reason="no drat-trim binary on this machine")
def test_drat_trim_and_the_lrat_checker_judge_a_real_proof() -> None:
    inst = parse_instance("butterfly:3", "telephone", "gossip")
    cnf = standalone_cnf(inst, 5, EncodingOptions())
    proof = prove_unsat(cnf).proof
    assert proof is not None
    v = check_proof(cnf.dimacs(), proof)
    assert v.status == "verified" and len(v.outcomes) == 2, v.summary()
    lrat, trim = v.outcomes
    assert trim.checker.startswith("drat-trim") and trim.ok
    assert lrat.checker == "gossipcert-lrat" and "empty clause derived" in lrat.message
