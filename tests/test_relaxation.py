"""The row-and-column relaxation: sound on every small graph, exact with all rows or all
columns, and its refutations certified, checked, and rejected when forged."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from pysat.solvers import Solver
from test_exact_bruteforce import atlas, brute_force, project_graph

from gossipcert.certificates.certificate import build_certificate, check_certificate
from gossipcert.cli_text import evidence_text
from gossipcert.encodings.relaxed import RelaxedTelephone, relaxation_applies
from gossipcert.errors import NotApplicableError
from gossipcert.instance import Instance, make_instance, parse_instance, parse_model, parse_problem
from gossipcert.proofs import relaxation
from gossipcert.proofs.refutation import pack_proof, unpack_proof
from gossipcert.proofs.relaxation import (
    column_order,
    refute_by_relaxation,
    relaxed_cnf,
    row_order,
)
from gossipcert.search.entry import solve
from gossipcert.search.outcome import search_options
from gossipcert.simulate import simulate

PROBLEMS = ("gossip", "broadcast:0")


def satisfiable(inst: Instance, rounds: int, rows: list[int], columns: list[int]) -> bool:
    cnf = relaxed_cnf(inst, rounds, rows, columns)
    with Solver(name="cadical195", bootstrap_with=cnf.clauses) as s:
        return bool(s.solve())


def wanting(inst: Instance) -> list[int]:
    return [q for q in range(inst.n) if inst.demands[q] & ~inst.holdings[q]]


@pytest.mark.parametrize("problem", PROBLEMS)
def test_never_refutes_a_feasible_horizon_and_exact_with_all_rows_or_columns(
    problem: str,
) -> None:
    """On every connected graph with 2 to 6 nodes: at the brute-force optimum ``R*`` the
    relaxation with every row and every column is satisfiable (so is every smaller one: the
    formula only loses clauses), while at ``R* - 1`` all rows alone, and all columns alone,
    are refuted; the lazy search finds a verified schedule at ``R*`` and refutes ``R* - 1``."""
    wrong: list[str] = []
    for case in atlas():
        inst = make_instance(project_graph(case), parse_model("telephone"), parse_problem(problem))
        best = brute_force(case.n, case.edges, "telephone", problem)
        rows, cols = list(range(inst.n_packets)), wanting(inst)
        if not satisfiable(inst, best, rows, cols):
            wrong.append(f"{case}: all rows and columns refuted at the optimum {best}")
        if best > 0 and satisfiable(inst, best - 1, rows, []):
            wrong.append(f"{case}: all rows satisfiable at {best - 1}")
        if best > 0 and satisfiable(inst, best - 1, [], cols):
            wrong.append(f"{case}: all columns satisfiable at {best - 1}")
        found = refute_by_relaxation(inst, best, proof=False)
        if found.status != "sat" or found.schedule is None:
            wrong.append(f"{case}: lazy search at the optimum {best}: {found.status}")
        elif not simulate(inst, found.schedule).ok or len(found.schedule) > best:
            wrong.append(f"{case}: lazy search's schedule is not one of {best} rounds")
        if best > 0 and refute_by_relaxation(inst, best - 1, proof=False).status != "unsat":
            wrong.append(f"{case}: lazy search does not refute {best - 1}")
    assert not wrong, "\n".join(wrong[:10])


def test_tight_rows_and_columns_first() -> None:
    inst = parse_instance("debruijn:4", "telephone", "gossip")
    # 0 and 15 carry self-loops: the fewest edges among the farthest
    assert row_order(inst)[:2] == [0, 15]
    assert column_order(inst)[:2] == [0, 15]
    assert column_order(parse_instance("star:5", "telephone", "broadcast:0")) == [1, 2, 3, 4]


def test_one_row_and_one_column_refute_debruijn_6_at_7_rounds() -> None:
    """The whole formula needs a split of 36 cubes; rows {0} and columns {0} suffice (row
    {0} alone does: broadcast from node 0, a self-looped node of degree 2, needs 8 rounds)."""
    inst = parse_instance("debruijn:6", "telephone", "gossip")
    out = refute_by_relaxation(inst, 7)
    assert (out.status, out.rows, out.columns) == ("unsat", [0], [0])
    assert out.evidence is not None and out.evidence["kind"] == "drat-relaxed"
    assert not satisfiable(inst, 7, [0], [])
    assert satisfiable(inst, 8, [0], [0])


def test_refused_models() -> None:
    inst = parse_instance("ring:5", "half-duplex", "gossip")
    assert not relaxation_applies(inst)
    with pytest.raises(NotApplicableError):
        RelaxedTelephone(inst, 3)
    assert not relaxation_applies(parse_instance("ring:5", "sequential", "gossip"))


def test_same_sets_same_cnf() -> None:
    inst = parse_instance("ring:6", "telephone", "gossip")
    a = relaxed_cnf(inst, 3, [4, 1], [2, 0])
    assert a.sha256() == relaxed_cnf(inst, 3, [1, 4, 4], [0, 2]).sha256()
    assert a.sha256() != relaxed_cnf(inst, 3, [1, 4], [0, 3]).sha256()


@pytest.fixture(scope="module")
def certified(request: pytest.FixtureRequest) -> dict[str, Any]:
    """ring:7 telephone gossip (optimum 5, Bavelas / Knödel) certified from the trivial
    lower bound with the relaxation step forced on."""
    mp = pytest.MonkeyPatch()
    mp.setattr(relaxation, "STEP_MIN_NODES", 0)
    mp.setattr(relaxation, "STEP_ROW_SHARE", 1.0)
    try:
        res = solve(parse_instance("ring:7", "telephone", "gossip"), use_bounds=False)
    finally:
        mp.undo()
    assert res.status == "optimal" and res.optimum == 5
    assert res.evidence["kind"] == "drat-relaxed" and res.evidence["rounds"] == 4
    assert res.evidence["method"] == "row-column relaxation"
    return build_certificate(res)


def test_certificate_holds(certified: dict[str, Any]) -> None:
    rep = check_certificate(certified)
    assert rep.status == "holds", rep.steps
    assert any("relaxed CNF for 4 rounds" in text for _, text in rep.steps)


def forged_rows(cert: dict[str, Any]) -> None:
    ev = cert["evidence"]
    ev["rows"] = sorted(set(range(7)) - set(ev["rows"]))[:1]


def forged_columns(cert: dict[str, Any]) -> None:
    ev = cert["evidence"]
    ev["columns"] = [*ev["columns"], max(set(range(7)) - set(ev["columns"]))]
    ev["columns"].sort()


def truncated_proof(cert: dict[str, Any]) -> None:
    ev = cert["evidence"]
    lines = unpack_proof(ev["lrat_xz_base64"]).splitlines()
    ev["lrat_xz_base64"] = pack_proof("\n".join(lines[: len(lines) // 2]) + "\n")


def unsorted_rows(cert: dict[str, Any]) -> None:
    cert["evidence"]["rows"] = [*cert["evidence"]["rows"][::-1], 99]


def other_rounds(cert: dict[str, Any]) -> None:
    cert["evidence"]["rounds"] = 3


def other_model(cert: dict[str, Any]) -> None:
    cert["instance"]["model"] = "half-duplex"


@pytest.mark.parametrize(
    "forge",
    [forged_rows, forged_columns, truncated_proof, unsorted_rows, other_rounds, other_model],
)
def test_forged_certificate_fails(certified: dict[str, Any], forge: Any) -> None:
    cert = copy.deepcopy(certified)
    forge(cert)
    assert check_certificate(cert).status == "fails"


def test_solve_certifies_ccc3_by_the_relaxation_step() -> None:
    """CCC 3 (24 nodes, Table 5: 7 rounds): the closed-form bound is 6; the step refutes 6
    rounds by the relaxation, and the certificate names the method and holds."""
    res = solve(parse_instance("ccc:3", "telephone", "gossip"))
    assert res.status == "optimal" and res.optimum == 7
    ev = res.evidence
    assert (ev["kind"], ev["method"], ev["rounds"]) == ("drat-relaxed", "row-column relaxation", 6)
    assert any(e.get("method") == "row-column relaxation" for e in res.log)
    assert "6 rounds infeasible: the row-column relaxation keeping packets" in evidence_text(ev)
    assert check_certificate(build_certificate(res)).status == "holds"


def test_split_search_runs_the_relaxation_step_too() -> None:
    from gossipcert.search.split import SplitSearch, SplitSettings

    inst = parse_instance("ccc:3", "telephone", "gossip")
    options = search_options(inst, "auto", False, False)
    args = (inst, "sat", None, options, True, True, None, None)
    res = SplitSearch(*args, split=SplitSettings()).run()
    assert (res.status, res.optimum, res.evidence["kind"]) == ("optimal", 7, "drat-relaxed")
    assert check_certificate(build_certificate(res)).status == "holds"


def test_no_step_for_a_single_packet() -> None:
    assert not relaxation.step_applies(parse_instance("ccc:3", "telephone", "broadcast:0"))
    assert relaxation.step_applies(parse_instance("ccc:3", "telephone", "gossip"))
    assert not relaxation.step_applies(parse_instance("ring:8", "telephone", "gossip"))


def test_step_keeps_a_small_share_of_the_rows() -> None:
    """Butterfly 3 at 5 rounds needs 3 of its 24 packets as rows, and then a proof longer
    than the full formula's: the step (2 rows at most) leaves it to the full formula."""
    inst = parse_instance("butterfly:3", "telephone", "gossip")
    assert relaxation.step_rows(inst) == 2
    assert relaxation.step_rows(parse_instance("ring:7", "telephone", "gossip")) == 1
    capped = relaxation.refute_by_relaxation(inst, 5, proof=False, max_rows=2)
    assert capped.status == "unknown" and len(capped.rows) == 2
    assert relaxation.refute_by_relaxation(inst, 5, proof=False).status == "unsat"
