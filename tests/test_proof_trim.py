"""One solve, one trimmed LRAT proof, two checkers: valid proofs pass, broken ones fail.

CaDiCaL writes LRAT as it solves (gossipcert.proofs.lrat_solver); the proof is trimmed to
the empty clause's dependencies (gossipcert.proofs.trim) and judged by gossipcert-lrat and
minisat-hints (gossipcert.proofs.propagated), which share no code; dratify-hints
(gossipcert.proofs.hinted) is held to the same tests. Every proof expected to fail
below is a genuine trimmed proof with one thing broken, or a refutation of a satisfiable
formula; each checker must reject it on its own.
"""

from __future__ import annotations

import copy
import json
import random
import time

import pysolvers
import pytest

from gossipcert.certificates.certificate import build_certificate, check_certificate
from gossipcert.errors import SolverError
from gossipcert.instance import parse_instance
from gossipcert.proofs import hinted, lrat_checks, trim
from gossipcert.proofs.fixpoint import check_fixpoint
from gossipcert.proofs.hinted import check_hinted
from gossipcert.proofs.lrat import LratVerdict, check_lrat
from gossipcert.proofs.lrat_checks import check_lrat_proof
from gossipcert.proofs.lrat_compiled import check_compiled
from gossipcert.proofs.lrat_solver import LratSolver
from gossipcert.proofs.propagated import check_propagated
from gossipcert.proofs.refutation import pack_proof, unpack_proof
from gossipcert.proofs.trim import trim_lrat
from gossipcert.search.entry import solve

#: the four clauses over two variables: unsatisfiable
XOR = [[1, 2], [-1, 2], [1, -2], [-1, -2]]


def dimacs(clauses: list[list[int]]) -> str:
    n = max((abs(x) for c in clauses for x in c), default=1)
    return f"p cnf {n} {len(clauses)}\n" + "".join(
        " ".join(map(str, [*c, 0])) + "\n" for c in clauses
    )


def satisfiable(clauses: list[list[int]]) -> bool:
    n = max((abs(x) for c in clauses for x in c), default=0)
    return any(
        all(any((x > 0) == bool(bits >> (abs(x) - 1) & 1) for x in c) for c in clauses)
        for bits in range(1 << n)
    )


def trimmed(clauses: list[list[int]]) -> str | None:
    """The trimmed LRAT proof of ``clauses``, or None when they are satisfiable."""
    solver = LratSolver(clauses)
    try:
        return None if solver.solver.solve() else solver.trimmed().text
    finally:
        solver.close()


def verdicts(clauses: list[list[int]], proof: str) -> tuple[str, str, str]:
    """Each checker's status on its own: gossipcert-lrat, dratify-hints, minisat-hints. The
    compiled engines, which only ever accept, must follow gossipcert-lrat and minisat-hints
    (a rejection is their refusal)."""
    lines = proof.splitlines()
    got = (
        check_lrat(clauses, lines).status,
        check_hinted(clauses, lines).status,
        check_propagated(clauses, lines).status,
    )
    nvars = max((abs(x) for c in clauses for x in c), default=0)
    data = (proof.rstrip("\n") + "\n").encode()
    compiled = (check_compiled(clauses, data, nvars), check_fixpoint(clauses, data, nvars))
    for python, fast in zip((got[0], got[2]), compiled, strict=True):
        assert (fast.status if fast is not None else "rejected") == python, (proof, got)
    return got


def random_cnf(rng: random.Random) -> list[list[int]]:
    n = rng.randint(3, 7)
    return [
        [rng.choice((-1, 1)) * rng.randint(1, n) for _ in range(rng.randint(1, 3))]
        for _ in range(rng.randint(4, 30))
    ]


@pytest.mark.usefixtures("dratify")
def test_solver_answer_agrees_with_brute_force_and_both_checkers_verify() -> None:
    rng = random.Random(7)
    refuted = 0
    for _ in range(150):
        clauses = random_cnf(rng)
        proof = trimmed(clauses)
        assert (proof is None) == satisfiable(clauses), clauses
        if proof is not None:
            refuted += 1
            assert verdicts(clauses, proof) == ("verified",) * 3, (clauses, proof)
    assert refuted > 20  # the sample holds refutations, not only models


@pytest.mark.usefixtures("dratify")
def test_units_before_the_other_clauses_keep_the_formula_ids() -> None:
    """CaDiCaL derives a clause of its own while adding one that a unit already shortens,
    from the same id counter: the formula's ids must still be 1..n in the proof."""
    clauses = [[1], [2], [-1, -2, 3], [-3, 4], [-4, -1]]
    solver = LratSolver(clauses)
    assert not solver.solver.solve()
    assert solver.ids  # clauses were derived while adding
    proof = solver.trimmed().text
    solver.close()
    assert verdicts(clauses, proof) == ("verified",) * 3


@pytest.mark.usefixtures("dratify")
def test_a_formula_with_the_empty_clause_is_refuted_by_it() -> None:
    clauses = [[1, 2], [], [3]]
    proof = trimmed(clauses)
    assert proof == "4 0 2 0\n"
    assert verdicts(clauses, proof) == ("verified",) * 3


def test_trimming_keeps_only_the_dependencies_and_deletes_after_last_use() -> None:
    # clause 5 is learnt but unused; 4 and the formula clause 3 lead to the empty clause
    raw = b"4 2 0 1 2 0\n5 1 0 1 3 0\n5 d 1 0\n6 0 4 3 0\n7 1 0 2 0\n"
    got = trim_lrat(raw)
    assert got.text == "4 2 0 1 2 0\n4 d 1 2 0\n6 0 4 3 0\n6 d 3 4 0\n"
    assert (got.additions, got.lines, got.original_additions) == (2, 4, 3)
    with pytest.raises(SolverError, match="no empty clause"):
        trim_lrat(b"4 2 0 1 2 0\n")
    with pytest.raises(SolverError, match="malformed"):
        trim_lrat(b"4 2 0 1 x 0\n6 0 4 3 0\n")


def genuine() -> tuple[list[list[int]], list[str]]:
    """A formula with a trimmed proof of a dozen steps (pigeonhole, 4 pigeons in 3 holes)."""
    var = {(p, h): 3 * p + h + 1 for p in range(4) for h in range(3)}
    clauses = [[var[p, h] for h in range(3)] for p in range(4)]
    clauses += [
        [-var[p, h], -var[q, h]] for h in range(3) for p in range(4) for q in range(p + 1, 4)
    ]
    proof = trimmed(clauses)
    assert proof is not None
    lines = proof.splitlines()
    assert sum(" d " not in ln for ln in lines) >= 5
    return clauses, lines


@pytest.mark.usefixtures("dratify")
def test_a_trimmed_proof_with_one_hint_changed_is_rejected_by_each_checker() -> None:
    clauses, lines = genuine()
    assert verdicts(clauses, "\n".join(lines)) == ("verified",) * 3
    changed = 0
    for k, line in enumerate(lines):
        tokens = line.split()
        if tokens[1] == "d":
            continue
        zero = tokens.index("0", 1)
        for j in range(zero + 1, len(tokens) - 1):
            for other in {1, int(tokens[j]) - 1, int(tokens[0]) - 1} - {int(tokens[j])}:
                if other <= 0 or str(other) in tokens[zero + 1 : -1]:
                    continue
                bad = [*tokens[:j], str(other), *tokens[j + 1 :]]
                forged = [*lines[:k], " ".join(bad), *lines[k + 1 :]]
                got = verdicts(clauses, "\n".join(forged))
                # a changed hint may still justify the clause (then it is a valid proof);
                # whenever it does not, every checker must say so
                if "rejected" in got:
                    changed += 1
                    assert got == ("rejected",) * 3, (k, bad)
    assert changed > 10


@pytest.mark.usefixtures("dratify")
def test_a_deleted_then_used_clause_is_rejected_by_each_checker() -> None:
    clauses, lines = genuine()
    # delete every hint of the last addition just before it
    last = lines[-1] if " d " not in lines[-1] else lines[-2]
    tokens = last.split()
    zero = tokens.index("0", 1)
    hint = tokens[zero + 1]
    k = lines.index(last)
    forged = [*lines[:k], f"{int(tokens[0]) - 1} d {hint} 0", *lines[k:]]
    assert verdicts(clauses, "\n".join(forged)) == ("rejected",) * 3
    # a formula clause deleted at the start and used afterwards
    used = next(
        h
        for ln in lines
        if " d " not in ln
        for h in map(int, ln.split()[ln.split().index("0", 1) + 1 : -1])
        if h <= len(clauses)
    )
    forged = [f"{len(clauses)} d {used} 0", *lines]
    assert verdicts(clauses, "\n".join(forged)) == ("rejected",) * 3


@pytest.mark.usefixtures("dratify")
def test_refutations_of_satisfiable_formulas_are_rejected() -> None:
    sat = [[1, 2], [-1, 2], [1, -2]]
    assert satisfiable(sat)
    for proof in (
        "4 0 1 2 3 0",  # the hints reach no conflict
        "4 2 0 1 2 0\n5 0 4 0",  # clause 4 alone is not a conflict
        "4 -2 0 1 2 0\n5 0 4 2 0",  # clause 4 is not implied
        "4 2 0 1 2 0\n4 0 4 3 0",  # an id that does not increase
        "4 2 0 1 2 0",  # no empty clause
        "4 2 0 9 0\n5 0 4 3 0",  # a hint that names no clause
    ):
        assert "verified" not in verdicts(sat, proof), proof
        assert check_lrat_proof(dimacs(sat), proof).status == "rejected", proof


@pytest.mark.usefixtures("dratify")
def test_a_rat_step_is_rejected_by_dratify_hints_and_so_by_the_verdict() -> None:
    # (1) is RAT on 1 in {(-1 2), (-1 -2)}? no: a RAT group is needed; this one is refused
    # by dratify-hints on principle (negative hints), whatever gossipcert-lrat says
    clauses = [[-1, 2], [-1, -2], [1, 3], [1, -3]]
    proof = "5 -1 0 1 2 0\n6 0 5 3 4 0\n"
    assert verdicts(clauses, proof) == ("verified",) * 3
    rat = "5 4 0 -1 -2 0\n"
    assert check_hinted(clauses, rat.splitlines()).status == "rejected"
    assert check_propagated(clauses, rat.splitlines()).status == "rejected"
    assert check_lrat_proof(dimacs(clauses), rat).status == "rejected"


def test_an_out_of_time_check_gives_no_verdict() -> None:
    clauses, lines = genuine()
    verdict = check_lrat_proof(dimacs(clauses), "\n".join(lines), deadline=0.0)
    assert verdict.status == "timeout"
    assert all(o.status == "timeout" for o in verdict.outcomes)


@pytest.mark.usefixtures("dratify")
def test_renamed_variables_give_the_same_verdicts(monkeypatch: pytest.MonkeyPatch) -> None:
    """Large formulas have each step's variables renamed before dratify sees them."""
    clauses, lines = genuine()
    monkeypatch.setattr(hinted, "COMPACT_ABOVE", 0)
    assert check_hinted(clauses, lines).status == "verified"
    bad = lines[-1].split()
    bad[-2] = "1"
    forged = [*lines[:-1], " ".join(bad)] if " d " not in lines[-1] else None
    if forged is not None:
        assert check_hinted(clauses, forged).status == "rejected"


@pytest.fixture(scope="module")
def certificate() -> dict:
    res = solve(parse_instance("ring:7", "telephone", "gossip"), use_bounds=False)
    assert res.evidence["kind"] == "drat" and res.evidence["proof_format"] == "lrat"
    return json.loads(json.dumps(build_certificate(res)))


@pytest.mark.usefixtures("dratify")
def test_an_lrat_certificate_checks_and_fails_when_a_hint_changes(certificate: dict) -> None:
    ev = certificate["evidence"]
    assert ev["proof_lines"] <= ev["untrimmed_lines"]
    assert {c["checker"].split()[0] for c in ev["checkers"]} == {
        "gossipcert-lrat",
        "hint-fixpoint",
    }
    rep = check_certificate(certificate)
    assert rep.ok, rep.steps
    assert sum("re-checked by" in t and ok for ok, t in rep.steps) == 2
    lines = unpack_proof(ev["lrat_xz_base64"]).splitlines()
    k = next(i for i in range(len(lines) - 1, -1, -1) if " d " not in lines[i])
    tokens = lines[k].split()
    zero = tokens.index("0", 1)
    tokens[zero + 1] = str(int(tokens[0]) - 1 if tokens[zero + 1] != "1" else 2)
    bad = copy.deepcopy(certificate)
    bad["evidence"]["lrat_xz_base64"] = pack_proof(
        "\n".join([*lines[:k], " ".join(tokens), *lines[k + 1 :]]) + "\n"
    )
    assert check_certificate(bad).status == "fails"
    # the same proof stored as DRAT text: the DRAT checkers reject LRAT lines
    swapped = copy.deepcopy(certificate)
    swapped["evidence"]["proof_xz_base64"] = swapped["evidence"].pop("lrat_xz_base64")
    swapped["evidence"].pop("proof_format")
    assert check_certificate(swapped).status == "fails"


def test_the_two_processes_give_the_verdicts_of_one(monkeypatch: pytest.MonkeyPatch) -> None:
    """Past PARALLEL_ABOVE lines minisat-hints runs in a child process."""
    clauses, lines = genuine()
    monkeypatch.setattr(lrat_checks, "PARALLEL_ABOVE", 0)
    monkeypatch.setattr(lrat_checks, "USE_COMPILED", False)
    good = check_lrat_proof(dimacs(clauses), "\n".join(lines))
    assert good.status == "verified" and len(good.outcomes) == 2
    k = next(i for i, ln in enumerate(lines) if " d " not in ln)
    tokens = lines[k].split()
    tokens[tokens.index("0", 1) + 1] = "999999"  # a hint that names no clause
    bad = check_lrat_proof(dimacs(clauses), "\n".join([*lines[:k], " ".join(tokens)]))
    assert bad.status == "rejected"


def test_a_verdict_sent_before_the_time_limit_is_read_after_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """gossipcert-lrat runs out of time while minisat-hints, in its child, has finished: its
    verdict is read (it used to be reported as a time-out)."""
    clauses, lines = genuine()
    monkeypatch.setattr(lrat_checks, "PARALLEL_ABOVE", 0)
    monkeypatch.setattr(lrat_checks, "USE_COMPILED", False)

    def out_of_time(clauses: list[list[int]], lines: list[str], deadline: float) -> LratVerdict:
        time.sleep(max(0.0, deadline - time.monotonic()) + 0.3)
        return LratVerdict("timeout", "deadline passed at line 1", 0, 0, 0, 0, 0.8)

    monkeypatch.setattr(lrat_checks, "check_lrat", out_of_time)
    verdict = check_lrat_proof(dimacs(clauses), "\n".join(lines), time.monotonic() + 0.5)
    own, other = verdict.outcomes
    assert own.status == "timeout"
    assert other.status == "verified"
    assert other.seconds < 0.5  # the check's own time, not the wait for it


@pytest.mark.parametrize(
    ("parallel_above", "compiled"), [(0, False), (10**9, False), (10**9, True)]
)
def test_meanwhile_runs_once_after_a_verified_first_check(
    monkeypatch: pytest.MonkeyPatch, parallel_above: int, compiled: bool
) -> None:
    """The caller's work (compressing the proof) runs while the second checker works, and
    only when the first one verified the proof."""
    clauses, lines = genuine()
    monkeypatch.setattr(lrat_checks, "PARALLEL_ABOVE", parallel_above)
    monkeypatch.setattr(lrat_checks, "USE_COMPILED", compiled)
    calls: list[int] = []
    good = check_lrat_proof(dimacs(clauses), "\n".join(lines), None, lambda: calls.append(1))
    assert good.status == "verified" and calls == [1]
    bad = check_lrat_proof(
        dimacs(clauses), "\n".join(lines[:1]) + "\n4 0 1 0", None, lambda: calls.append(2)
    )
    assert bad.status == "rejected" and calls == [1]


def raw_proof(
    clauses: list[list[int]], binary: bool = False
) -> tuple[bytes, trim.Mapping[int, int]]:
    """The untrimmed LRAT proof CaDiCaL writes for ``clauses`` (unsatisfiable), as text or
    binary, and the renaming of its ids."""
    solver = LratSolver(clauses, binary=binary)
    try:
        assert solver.solver.solve() is False
        pysolvers.flushpr(solver.solver.solver.prfp)
        solver.file.seek(0)
        return solver.file.read(), solver.ids
    finally:
        solver.close()


def pigeons(p: int) -> list[list[int]]:
    """``p`` pigeons in ``p - 1`` holes."""
    var = {(i, h): i * (p - 1) + h + 1 for i in range(p) for h in range(p - 1)}
    clauses = [[var[i, h] for h in range(p - 1)] for i in range(p)]
    return clauses + [
        [-var[i, h], -var[j, h]] for h in range(p - 1) for i in range(p) for j in range(i + 1, p)
    ]


@pytest.mark.usefixtures("dratify")
def test_the_array_trim_gives_the_line_trims_proof() -> None:
    # units first: CaDiCaL derives clauses while the formula is added (a renaming)
    renamed = [[1], [-1, 2], *[[x + 2 if x > 0 else x - 2 for x in c] for c in pigeons(5)]]
    for clauses in (pigeons(5), pigeons(6), renamed):
        data, ids = raw_proof(clauses)
        if clauses is renamed:
            assert ids
        fast = trim._trim_arrays(data, ids)
        assert fast is not None
        assert fast == trim._trim_lines(data, ids)
        assert verdicts(clauses, fast.text) == ("verified",) * 3
    rng = random.Random(7)
    done = 0
    while done < 30:
        clauses = random_cnf(rng)
        if satisfiable(clauses):
            continue
        data, ids = raw_proof(clauses)
        fast = trim._trim_arrays(data, ids)
        assert fast is not None and fast == trim._trim_lines(data, ids), clauses
        done += 1


def test_the_array_trim_leaves_what_it_cannot_read_to_the_line_trim() -> None:
    data, _ = raw_proof(pigeons(5))
    for odd in (b"c a comment\n" + data, data.replace(b" ", b"\t", 1), b"4 2 0 1 x 0\n" + data):
        assert trim._trim_arrays(odd, {}) is None
    assert trim.trim_lrat(b"c a comment\n" + data).text == trim._trim_lines(data, {}).text
    with pytest.raises(SolverError, match="no empty clause"):
        trim._trim_arrays(b"4 2 0 1 2 0\n", {})


@pytest.mark.usefixtures("dratify")
def test_checkers_read_only_the_formula_clauses_a_proof_names() -> None:
    # a large formula (pigeons plus many unused clauses) and a short proof: both checkers
    # verify it, and reject it once a clause it names is deleted before its use
    clauses = [*pigeons(4), *[[100 + k, -(200 + k)] for k in range(5000)]]
    proof = trimmed(clauses)
    assert proof is not None
    assert verdicts(clauses, proof)[::2] == ("verified", "verified")
    first = proof.splitlines()[0].split()
    used = first[first.index("0", 1) + 1]
    forged = f"{len(clauses)} d {used} 0\n{proof}"
    assert verdicts(clauses, forged)[::2] == ("rejected", "rejected")
    # deleting a clause no step names changes nothing
    assert verdicts(clauses, f"{len(clauses)} d {len(clauses)} 0\n{proof}")[::2] == (
        "verified",
        "verified",
    )


def test_the_renaming_table_is_the_renaming() -> None:
    rng = random.Random(3)
    for _ in range(300):
        n, k = rng.randint(1, 40), rng.randint(1, 6)
        derived = sorted(rng.sample(range(1, n + k + 1), k))
        ids = trim.Renaming(n, derived)
        table = ids.table()
        assert [table.get(x, x) for x in range(1, n + k + 3)] == [
            ids.get(x, x) for x in range(1, n + k + 3)
        ]
        # the formula's clauses get 1..n in order, the derived ones n+1..n+k
        assert sorted(ids[x] for x in range(1, n + k + 1)) == list(range(1, n + k + 1))
