"""Certificates with DRAT proofs upgraded to trimmed LRAT proofs (``check --upgrade``,
``gossipcert.upgrade``): the same claims, proofs both LRAT checkers verify, the input
untouched, and nothing written for a certificate that does not hold."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

import gossipcert
from gossipcert.cli import app

#: certificates of the project's store that hold DRAT proofs (half-duplex gossip on 5 nodes,
#: and the four points of a steps certificate on the 3 x 3 mesh)
STORE = Path(__file__).resolve().parents[1] / "results" / "store"
SMALL = STORE / "half-duplex_gossip_n5_18ae0b23b971d93c.cert.json"

runner = CliRunner()


def evidences(cert: Any) -> list[dict[str, Any]]:
    """Every record of a certificate that stores a refutation's proof."""
    if isinstance(cert, dict):
        own = [cert] if "proof_xz_base64" in cert or "lrat_xz_base64" in cert else []
        return own + [e for v in cert.values() for e in evidences(v)]
    if isinstance(cert, list):
        return [e for v in cert for e in evidences(v)]
    return []


def test_a_drat_certificate_becomes_an_lrat_one_with_the_same_claims() -> None:
    old = json.loads(SMALL.read_text())
    before = copy.deepcopy(old)
    assert [("proof_xz_base64" in e) for e in evidences(old)] == [True]
    report, new = gossipcert.upgrade(old)
    assert report.ok and new is not None
    assert old == before  # the input is not changed
    (ev,) = evidences(new)
    assert ev["proof_format"] == "lrat" and "proof_xz_base64" not in ev
    assert {c["status"] for c in ev["checkers"]} == {"verified"}
    assert ev["cnf_sha256"] == evidences(old)[0]["cnf_sha256"]
    strip = {"evidence"}
    assert {k: v for k, v in new.items() if k not in strip} == {
        k: v for k, v in old.items() if k not in strip
    }
    assert gossipcert.check(new).ok


def test_a_certificate_that_does_not_hold_is_not_upgraded() -> None:
    old = json.loads(SMALL.read_text())
    evidences(old)[0]["cnf_sha256"] = "0" * 64
    report, new = gossipcert.upgrade(old)
    assert report.ok is False and new is None


def test_the_command_writes_a_new_file_and_keeps_the_old(tmp_path: Path) -> None:
    old = tmp_path / "old.cert.json"
    old.write_text(SMALL.read_text())
    new = tmp_path / "new.cert.json"
    res = runner.invoke(app, ["check", str(old), "--upgrade", str(new), "-q"])
    assert res.exit_code == 0, res.stdout
    assert "written in place of the stored DRAT proof" in res.stdout
    assert "1 DRAT proof(s) replaced by LRAT proofs" in res.stdout
    assert old.read_text() == SMALL.read_text()
    assert evidences(json.loads(new.read_text()))[0]["proof_format"] == "lrat"
    assert runner.invoke(app, ["check", str(new), "-q"]).exit_code == 0
    # an existing file is kept unless --force; the input is never the output
    res = runner.invoke(app, ["check", str(old), "--upgrade", str(new), "-q"])
    assert res.exit_code == 2 and "exists" in res.stderr
    res = runner.invoke(app, ["check", str(old), "--upgrade", str(old), "--force", "-q"])
    assert res.exit_code == 2 and "other than the input" in res.stderr
    # a certificate that fails is not written
    bad = json.loads(SMALL.read_text())
    evidences(bad)[0]["cnf_sha256"] = "0" * 64
    old.write_text(json.dumps(bad))
    out = tmp_path / "never.json"
    res = runner.invoke(app, ["check", str(old), "--upgrade", str(out), "-q"])
    assert res.exit_code == 1 and not out.exists()


@pytest.mark.parametrize(
    "name", ["mesh3x3-telephone-gossip-steps-R5.cert.json"], ids=["steps certificate"]
)
def test_every_point_of_a_steps_certificate_is_upgraded(name: str) -> None:
    path = next(Path(__file__).resolve().parents[1].joinpath("results").rglob(name))
    old = json.loads(path.read_text())
    assert evidences(old) and all("proof_xz_base64" in e for e in evidences(old))
    report, new = gossipcert.upgrade(old)
    assert report.ok and new is not None
    assert all(e.get("proof_format") == "lrat" for e in evidences(new))
    assert gossipcert.check(new).ok
