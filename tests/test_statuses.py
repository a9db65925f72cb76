"""Statuses that say what is proved: ``optimal`` only with a lower bound beyond a solver's
word, in every record a user reads (``solve --json``, the API's ``Result``, partial files,
``verify --from``); bounds that met on the solver's word alone are ``feasible`` with
``decided_by_solver``.

Before, a Ctrl-C during the proof check left a partial file whose status was ``optimal``
while its lower bound was the solver's word, and ``verify --from`` printed ``"status":
"optimal", "optimum": 0`` (``certified: false`` beside it) for an SCCL reduce-scatter that
moves nothing, on a search stopped by its time limit.
"""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from typer.testing import CliRunner

import gossipcert
import gossipcert.search.rounds as rounds
from gossipcert.certificates.kinds import proves
from gossipcert.certificates.partial import partial_record
from gossipcert.cli import app
from gossipcert.formats import verdict as verdict_module
from gossipcert.formats.verdict import verify_algorithm
from gossipcert.instance import parse_instance
from gossipcert.result import Result, SolveStatus
from gossipcert.search.entry import solve

runner = CliRunner()

#: half-duplex gossip on a path of 4: the bounds meet at 4, 3 rounds refuted with a proof
PATH4 = ("path:4", "half-duplex", "gossip")


def _interrupt_the_proof_check(monkeypatch: pytest.MonkeyPatch) -> None:
    """Ctrl-C arrives while the proof of ``R* - 1`` rounds is being checked."""

    def interrupted(*args: Any, **kwargs: Any) -> Any:
        raise KeyboardInterrupt

    monkeypatch.setattr(rounds, "check_refutation", interrupted)


def _said_honestly(record: dict[str, Any]) -> None:
    """A record of bounds that met on the solver's word: feasible, the bracket closed."""
    assert record["status"] == "feasible"
    assert record["decided_by_solver"] is True
    assert record["lower_bound"] == record["upper_bound"] == 4


def test_an_interrupted_proof_check_leaves_a_result_that_is_not_optimal(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    _interrupt_the_proof_check(monkeypatch)
    res = solve(parse_instance(*PATH4))
    assert res.interrupted and res.evidence["kind"] == "solver-claim"
    assert res.status == "optimal"  # the search's own word: the bounds met
    _said_honestly(partial_record(res))
    assert "not proved" in partial_record(res)["note"]
    api = Result.from_search(res)
    assert api.status is SolveStatus.FEASIBLE and api.optimum is None and api.decided_by_solver
    _said_honestly(api.to_json())


def test_the_command_line_writes_a_partial_file_that_is_not_optimal(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """The search runs in a child (forked: the interrupted check is the child's too)."""
    _interrupt_the_proof_check(monkeypatch)
    out = tmp_path / "p.json"
    graph, model, problem = PATH4
    got = runner.invoke(
        app, ["solve", graph, "-m", model, "-p", problem, "-q", "--json", "-o", str(out)]
    )
    assert got.exit_code == 130, got.output
    printed = json.loads(got.stdout)
    _said_honestly(printed)
    assert printed["optimum"] is None and printed["certified"] is False
    assert printed["partial_result"] == str(out) and printed["certificate"] is None
    written = json.loads(out.read_text())
    assert written["format"] == "gossipcert-partial/1"
    _said_honestly(written)


def test_no_proof_is_feasible_decided_by_the_solver() -> None:
    res = gossipcert.solve("ring:5", "half-duplex", "gossip", proof=False)
    assert res.status is SolveStatus.FEASIBLE and res.decided_by_solver
    assert (res.lower, res.upper, res.optimum) == (6, 6, None)
    assert res.to_json()["status"] == "feasible" and not res.certified


def test_a_proved_optimum_is_optimal_everywhere(tmp_path: Path) -> None:
    res = gossipcert.solve(*PATH4)
    assert res.status is SolveStatus.OPTIMAL and res.optimum == 4 and not res.decided_by_solver
    assert res.lower_evidence["kind"] == "drat" and proves(res.lower_evidence)
    for record in (res.to_json(), partial_record(res.raw)):
        assert (record["status"], record["decided_by_solver"]) == ("optimal", False)
    got = runner.invoke(app, ["solve", PATH4[0], "-m", PATH4[1], "-q", "--json"])
    assert got.exit_code == 0
    printed = json.loads(got.stdout)
    assert (printed["status"], printed["optimum"], printed["certified"]) == ("optimal", 4, True)


# ------------------------------------------------------------------------- verify --from


def _empty_reduce_scatter(path: Path, n: int = 4) -> str:
    """An SCCL JSON reduce-scatter on ``n`` fully connected ranks that moves nothing."""
    links = [[int(s != d) for s in range(n)] for d in range(n)]
    chunks = [{"msccl_type": "chunk", "pre": list(range(n)), "post": [c], "addr": c}
              for c in range(n)]  # fmt: skip
    data = {
        "msccl_type": "algorithm", "name": "nothing", "steps": [],
        "instance": {"msccl_type": "instance", "steps": 0, "chunks": 1},
        "collective": {"msccl_type": "collective", "name": f"ReduceScatter(n={n})",
                       "nodes": n, "chunks": chunks, "runtime_name": "reduce_scatter"},
        "topology": {"msccl_type": "topology", "name": "full", "links": links, "switches": []},
    }  # fmt: skip
    path.write_text(json.dumps(data))
    return str(path)


def _search_stopped(monkeypatch: pytest.MonkeyPatch, **kw: Any) -> None:
    """The optimum's search answers with a stub result: the time limit ran out at lower
    bound 0 (the trivial bound through the dual), unless ``kw`` says otherwise."""
    res: dict[str, Any] = {
        "status": "unknown",
        "certified": False,
        "decided_by_solver": False,
        "optimum": None,
        "lower_bound": 0,
        "upper_bound": None,
        "evidence": {
            "kind": "reversal",
            "dual": {"kind": "closed-form", "name": "trivial", "value": 0},
        },
        "upper_source": "none",
        "timed_out": True,
    }
    res.update(kw)
    fields = {k: res[k] for k in ("status", "certified", "decided_by_solver", "optimum")}
    fields.update(lower_bound=res["lower_bound"], upper_bound=res["upper_bound"])

    def fake(instance: Any, time_limit: float | None = None) -> Any:
        return SimpleNamespace(**res, status_fields=lambda: fields)

    monkeypatch.setattr(verdict_module, "solve_within", fake)


def test_an_empty_reduce_scatter_is_not_labelled_optimal(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    _search_stopped(monkeypatch)
    path = _empty_reduce_scatter(tmp_path / "rs.json")
    opt = verify_algorithm(path, "sccl-json", time_limit=1).optimum
    assert opt["status"] != "optimal" and opt["optimum"] is None
    assert opt["certified"] is False


def test_verify_from_says_feasible_when_the_solver_decided(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    claim = {"kind": "solver-claim", "rounds": 0}
    _search_stopped(
        monkeypatch,
        status="feasible",
        decided_by_solver=True,
        lower_bound=1,
        upper_bound=1,
        evidence=claim,
    )
    path = _empty_reduce_scatter(tmp_path / "rs.json")
    got = runner.invoke(app, ["verify", "--from", "sccl-json", path, "-t", "1", "--json"])
    opt = json.loads(got.stdout)["optimum"]
    assert (opt["status"], opt["optimum"], opt["decided_by_solver"]) == ("feasible", None, True)
    assert opt["lower_proved"] is False
    text = runner.invoke(app, ["verify", "--from", "sccl-json", path, "-t", "1"]).stdout
    assert "by the solver's word only, not proved" in " ".join(text.split())
