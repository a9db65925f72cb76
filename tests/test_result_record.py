"""One record of a result: ``solve --json`` prints what ``Result.to_json()`` returns, and
every status is an enum member (``gossipcert.statuses``), written to JSON as its word."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

import gossipcert
import gossipcert.watchdog as watchdog
from gossipcert.certificates.certificate import CheckReport
from gossipcert.cli import app
from gossipcert.encodings import EncodingOptions
from gossipcert.instance import parse_instance
from gossipcert.proofs.checkers import check_proof
from gossipcert.proofs.refutation import prove_unsat
from gossipcert.proofs.relaxation import refute_by_relaxation
from gossipcert.result import Result
from gossipcert.search.entry import solve
from gossipcert.solvers.standalone import standalone_cnf
from gossipcert.statuses import CheckStatus, QueryStatus, SolveStatus, Verdict

runner = CliRunner()

#: every field of the record, in order (docs/statuses.md)
FIELDS = [
    "graph", "model", "problem", "n", "m", "packets",
    "status", "certified", "decided_by_solver", "optimum", "lower_bound", "upper_bound",
    "schedule", "schedule_source", "evidence", "backend", "times", "timed_out",
    "interrupted", "certificate", "partial_result",
]  # fmt: skip


def _cli_record(monkeypatch: pytest.MonkeyPatch, res: Any, *args: str) -> dict[str, Any]:
    """``solve --json`` printing the search result ``res`` (the search itself not run)."""
    monkeypatch.setattr(watchdog, "solve_within", lambda *a, **k: res)
    inst = res.instance
    got = runner.invoke(
        app, ["solve", "path:4", "-m", inst.model.spec(), "-p", "gossip", "-q", "--json", *args]
    )
    assert got.exit_code in (0, 1), got.output
    return json.loads(got.stdout)


def test_the_command_line_prints_the_apis_record_of_the_same_search(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    # a refutation with a checked DRAT proof: evidence with stored proofs, times, a backend
    res = solve(parse_instance("path:4", "half-duplex", "gossip"))
    assert res.evidence["kind"] == "drat" and "lrat_xz_base64" in res.evidence
    api = Result.from_search(res).to_json()
    assert list(api) == FIELDS
    assert "lrat_xz_base64" not in api["evidence"] and api["evidence"]["kind"] == "drat"
    assert _cli_record(monkeypatch, res) == json.loads(json.dumps(api))
    out = tmp_path / "cert.json"
    written = _cli_record(monkeypatch, res, "-o", str(out))
    assert written["certificate"] == str(out) and written["partial_result"] is None
    assert written == json.loads(json.dumps(Result.from_search(res).to_json(str(out))))
    assert "lrat_xz_base64" in out.read_text()  # the certificate keeps the proofs


def test_the_solver_word_alone_is_the_same_record_too(monkeypatch: pytest.MonkeyPatch) -> None:
    res = solve(parse_instance("ring:5", "half-duplex", "gossip"), proof=False)
    api = Result.from_search(res).to_json()
    assert (api["status"], api["decided_by_solver"], api["certified"]) == (
        "feasible",
        True,
        False,
    )
    assert _cli_record(monkeypatch, res) == json.loads(json.dumps(api))


def test_two_runs_of_one_instance_give_one_record() -> None:
    """The API and the command (a process of its own) on an instance settled by a closed
    form and a construction: equal but for the times."""
    from subprocess import run
    from sys import executable

    api = gossipcert.solve("ring:6", "telephone", "gossip").to_json()
    out = run(
        [executable, "-m", "gossipcert", "solve", "ring:6", "--json", "-q"],
        capture_output=True,
        text=True,
        check=False,
    )
    cli = json.loads(out.stdout)
    assert out.returncode == 0 and api["status"] == "optimal"
    assert list(cli) == FIELDS
    assert {k: v for k, v in cli.items() if k != "times"} == {
        k: v for k, v in json.loads(json.dumps(api)).items() if k != "times"
    }


def test_statuses_are_enum_members() -> None:
    res = gossipcert.solve("path:4", "half-duplex", "gossip")
    assert type(res.status) is SolveStatus and type(res.raw.status) is SolveStatus
    assert type(res.raw.proved_status) is SolveStatus
    assert type(res.raw.status_fields()["status"]) is SolveStatus
    assert res.to_json()["status"] == "optimal"  # a member equals its word
    assert json.dumps({"s": res.status}) == '{"s": "optimal"}'
    # a search result given the word keeps a member
    assert type(solve(parse_instance("path:3", "telephone", "gossip")).status) is SolveStatus
    # a proof checker's verdict, and each checker's outcome
    verdict = check_proof("p cnf 1 2\n1 0\n-1 0\n", "0\n")
    assert verdict.status is Verdict.VERIFIED
    assert all(type(o.status) is Verdict for o in verdict.outcomes)
    assert check_proof("p cnf 2 2\n1 0\n-1 -2 0\n", "d -1 -2 0\n2 0\n0\n").status is (
        Verdict.REJECTED
    )
    # a query's answer
    inst = parse_instance("path:4", "telephone", "gossip")
    assert refute_by_relaxation(inst, 2, proof=False).status is QueryStatus.UNSAT
    assert refute_by_relaxation(inst, 3, proof=False).status is QueryStatus.SAT
    cnf = standalone_cnf(inst, 2, EncodingOptions())
    assert prove_unsat(cnf).status is QueryStatus.UNSAT
    # a certificate's check and its steps
    rep = CheckReport()
    rep.add(True, "schedule verified")
    rep.add(None, "a proof not checked in time")
    assert rep.step_status(0) is CheckStatus.HOLDS and rep.status is CheckStatus.TIMEOUT
    assert type(gossipcert.check(res.certificate()).status) is CheckStatus
