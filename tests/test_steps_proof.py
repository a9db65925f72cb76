"""DRAT evidence for linear-cost points and the steps certificate.

The steps CNF must be satisfiable exactly from the least ``S`` that CP-SAT's optimisation
finds (two back-ends, two encodings of the objective), and a certificate must hold as
written and fail when its claim, its schedule or its proof is changed.
"""

from __future__ import annotations

import copy

import pytest
from typer.testing import CliRunner

from gossipcert.certificates.certificate import build_steps_certificate, check_certificate
from gossipcert.cli import app
from gossipcert.encodings import EncodingOptions
from gossipcert.instance import parse_instance
from gossipcert.proofs.refutation import pack_proof, unpack_proof
from gossipcert.proofs.steps import certify_points, prove_steps, steps_formula
from gossipcert.search.cost import min_steps
from gossipcert.solvers.backends import SatBackend, Status


def sat(inst, rounds: int, steps: int, options: EncodingOptions) -> bool:
    formula, _ = steps_formula(inst, rounds, steps, options)
    backend = SatBackend(formula)
    try:
        return backend.solve([]) is Status.SAT
    finally:
        backend.close()


@pytest.mark.parametrize(
    ("graph", "model", "rounds"),
    [
        ("path:4", "telephone", 3),
        ("path:4", "telephone", 4),
        ("star:4", "telephone", 5),
        ("ring:4", "half-duplex:p=1", 6),
        ("path:4", "multicast", 4),
        ("ring:4", "single-port:p=2", 3),
        ("complete:4", "sequential", 4),
    ],
)
@pytest.mark.parametrize("strict", [False, True])
def test_steps_cnf_agrees_with_cpsat(graph: str, model: str, rounds: int, strict: bool) -> None:
    inst = parse_instance(graph, model, "gossip")
    options = EncodingOptions.for_search(strict=strict)
    point = min_steps(inst, rounds, options)
    assert point.proved and point.steps is not None
    assert sat(inst, rounds, point.steps, options)
    assert not sat(inst, rounds, point.steps - 1, options)


def certificate(graph: str, model: str, rounds: int) -> dict:
    inst = parse_instance(graph, model, "gossip")
    options = EncodingOptions.for_search()
    point = min_steps(inst, rounds, options)
    certified, missed = certify_points(inst, [point], options, None)
    assert not missed
    return build_steps_certificate(inst, certified)


def test_steps_certificate_holds_and_fails_when_changed() -> None:
    cert = certificate("path:4", "telephone", 3)
    assert cert["points"][0]["steps"] == 5
    rep = check_certificate(cert)
    assert rep.ok, rep.steps
    # a smaller claim: the proof refutes 4 steps, not 3
    low = copy.deepcopy(cert)
    low["points"][0]["steps"] = 4
    assert check_certificate(low).status == "fails"
    # a larger claim: the schedule has 5 steps, and the proof is of another CNF
    high = copy.deepcopy(cert)
    high["points"][0]["steps"] = 6
    high["points"][0]["evidence"]["steps"] = 5
    assert check_certificate(high).status == "fails"
    # a proof cut short
    cut = copy.deepcopy(cert)
    ev = cut["points"][0]["evidence"]
    lines = unpack_proof(ev["lrat_xz_base64"]).splitlines()
    ev["lrat_xz_base64"] = pack_proof("\n".join(lines[: len(lines) // 2]) + "\n")
    assert check_certificate(cut).status == "fails"
    # another model: the schedule breaks it or the CNF differs
    other = copy.deepcopy(cert)
    other["instance"]["model"] = "half-duplex"
    assert check_certificate(other).status == "fails"
    # a claim that the points do not show (what `check` prints beside its verdict)
    forged = copy.deepcopy(cert)
    forged["claim"] = "S_min(3) = 4"
    assert check_certificate(forged).status == "fails"


def test_prove_steps_refuses_a_count_that_is_not_least() -> None:
    inst = parse_instance("path:4", "telephone", "gossip")
    from gossipcert.errors import SolverError

    with pytest.raises(SolverError, match="not least"):
        prove_steps(inst, 3, 6, EncodingOptions.for_search())


def test_cli_writes_and_checks_a_steps_certificate(tmp_path) -> None:
    out = tmp_path / "front.cert.json"
    runner = CliRunner()
    args = ["solve", "path:4", "-m", "telephone", "--objective", "steps", "--max-rounds", "4"]
    res = runner.invoke(app, [*args, "-o", str(out)])
    assert res.exit_code == 0, res.output
    res = runner.invoke(app, ["check", str(out)])
    assert res.exit_code == 0, res.output
    assert "S_min(3) = 5, S_min(4) = 5" in res.output
    # a steps certificate holds one schedule per point: verify and draw say so and point
    # to check, instead of "unknown schedule format" or a demand for --graph
    for cmd in (["verify", "path:4", str(out)], ["draw", str(out), "-o", str(tmp_path / "d.png")]):
        res = runner.invoke(app, cmd)
        assert res.exit_code == 2, res.output
        assert "is a steps certificate" in res.stderr and "(rounds 3, 4)" in res.stderr
        assert not (tmp_path / "d.png").exists()
    # --force onto something that is not a file: a clear error (a named pipe used to block
    # the open for ever, a folder gave an IsADirectoryError traceback)
    folder = tmp_path / "folder.cert.json"
    folder.mkdir()
    res = runner.invoke(app, [*args, "--force", "-o", str(folder)])
    assert res.exit_code == 2 and "not a regular file" in res.stderr, res.output
    assert folder.is_dir()


@pytest.mark.slow
def test_beier_sibeyn_mesh_3x3_point_certified_by_drat() -> None:
    """Beier and Sibeyn: the 3x3 mesh gossips in R = 5 rounds with S = 11 steps, and no
    5-round schedule has fewer steps (about a minute on a loaded machine)."""
    cert = certificate("mesh:3x3", "telephone", 5)
    assert [(p["rounds"], p["steps"]) for p in cert["points"]] == [(5, 11)]
    rep = check_certificate(cert)
    assert rep.ok, rep.steps
