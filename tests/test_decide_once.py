"""The deciding horizon is solved once: its refutation carries the proof the certificate uses."""

from __future__ import annotations

import time

import pytest

from gossipcert.certificates.certificate import build_certificate, check_certificate
from gossipcert.encodings.knowledge import EncodingOptions
from gossipcert.instance import parse_instance
from gossipcert.proofs import relaxation
from gossipcert.proofs.lrat_checks import check_lrat_proof
from gossipcert.proofs.refutation import HorizonProver, decide_with_proof
from gossipcert.schedule import Schedule
from gossipcert.search import entry
from gossipcert.search import rounds as search
from gossipcert.simulate import simulate
from gossipcert.solvers.standalone import standalone_cnf


def test_decide_with_proof_refutes_with_a_checked_proof_of_the_standalone_cnf() -> None:
    inst = parse_instance("butterfly:3", "telephone", "gossip")
    got = decide_with_proof(inst, 5, EncodingOptions())
    assert got.result.status == "unsat" and got.schedule is None
    assert got.cnf.sha256() == standalone_cnf(inst, 5, EncodingOptions()).sha256()
    assert got.result.proof is not None
    assert got.result.proof_format == "lrat"
    assert check_lrat_proof(got.cnf.dimacs(), got.result.proof).ok


def test_decide_with_proof_decodes_a_model_into_a_schedule() -> None:
    inst = parse_instance("butterfly:3", "telephone", "gossip")
    got = decide_with_proof(inst, 6, EncodingOptions())
    assert got.result.status == "sat" and got.result.proof is None
    assert got.schedule is not None
    rep = simulate(inst, got.schedule)
    assert rep.ok and rep.rounds == 6  # 6 is the optimum (Beier-Sibeyn, Table 5)


def test_a_prover_out_of_time_resumes_and_its_proof_still_holds() -> None:
    inst = parse_instance("ccc:3", "telephone", "gossip")
    prover = HorizonProver(inst, 6, EncodingOptions())
    try:
        first = prover.solve(time.monotonic())  # no time at all: no verdict
        assert first.result.status == "unknown"
        got = prover.solve(time.monotonic() + 0.05)  # a few slices, then on to the end
        while got.result.status == "unknown":
            got = prover.solve()
        assert got.result.status == "unsat" and got.result.proof is not None
        assert got.result.seconds >= first.result.seconds
        assert got.result.proof_format == "lrat"
        assert check_lrat_proof(got.cnf.dimacs(), got.result.proof).ok
    finally:
        prover.close()
    with pytest.raises(RuntimeError):
        prover.solve()


@pytest.mark.parametrize(
    ("graph", "model", "optimum"),
    # the closed-form bound is one below the best schedule: the first query decides
    [
        ("ccc:3", "telephone", 7),
        ("hypercube:3", "half-duplex", 6),
        ("complete:6", "half-duplex", 5),
    ],
)
def test_solve_proves_the_deciding_horizon_without_a_second_solve(
    graph: str, model: str, optimum: int, monkeypatch
) -> None:
    def no_second_solve(*args: object, **kwargs: object) -> None:
        raise AssertionError("the deciding horizon was solved a second time for its proof")

    monkeypatch.setattr(search, "prove_unsat", no_second_solve)
    # the full formula's path: the relaxation step would refute ccc:3 at 6 rounds first
    monkeypatch.setattr(relaxation, "STEP_MIN_NODES", 10**6)
    inst = parse_instance(graph, model, "gossip")
    res = entry.solve(inst)
    assert res.status == "optimal" and res.optimum == optimum
    assert res.evidence["kind"] == "drat"
    # the proof is of the standalone CNF that `check` regenerates, and it holds there
    assert check_certificate(build_certificate(res)).status == "holds"
    deciding = [
        e
        for e in res.log
        if e["event"] == "query" and e["rounds"] == optimum - 1 and "method" not in e
    ]  # the full formula's queries (a packet's broadcast alone is a query of its own)
    assert [e["status"] for e in deciding] == ["unsat"]


def test_a_deciding_query_that_finds_a_model_lowers_the_upper_bound() -> None:
    # Petersen telephone gossip: the closed-form bound 4 is the optimum; start the search
    # from a 5-round schedule (the optimum after an empty round), so 4 is the deciding query
    inst = parse_instance("petersen", "telephone", "gossip")
    best = entry.solve(inst).schedule
    assert best is not None and len(best.rounds) == 4
    s = search._Search(inst, "sat", None, EncodingOptions.for_search(), True, True, None)
    s.lower_bound()
    assert s.lower == 4
    s.best = search._verified(inst, Schedule(((), *best.rounds)), "padded")
    assert s.upper == 5
    enc = s.encode()
    assert enc is not None and s.search(enc)
    assert s.upper == 4 and s.upper_source == "sat-solver" and s.decided is None
    assert simulate(inst, s.best[0]).rounds == 4
    assert [e["rounds"] for e in s.log if e["event"] == "query"] == [4]


def test_a_cheap_refutation_below_a_loose_upper_bound_is_proved_again() -> None:
    # ring:7 half-duplex: the heuristic gives 8 rounds; the quick ascending pass refutes 5
    # and 6 on the incremental solver, the deciding query at 7 finds a model, so the proof
    # of 6 is a second (short) solve
    inst = parse_instance("ring:7", "half-duplex", "gossip")
    res = entry.solve(inst)
    assert res.status == "optimal" and res.optimum == 7 and res.evidence["kind"] == "drat"
    queries = [(e["rounds"], e["status"]) for e in res.log if e["event"] == "query"]
    assert queries == [(5, "unsat"), (6, "unsat"), (7, "sat")]
    assert check_certificate(build_certificate(res)).status == "holds"
