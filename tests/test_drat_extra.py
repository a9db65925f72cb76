"""The DRAT path's checker, dratify, is the optional extra ``drat``: without it a DRAT check
stops with one line and exit 2 (never a verdict from fewer checkers), and an LRAT proof,
what gossipcert writes, is made and checked as before."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from gossipcert.errors import MissingDependencyError
from gossipcert.proofs import drat_extra
from gossipcert.proofs.checkers import check_proof

#: a certificate of the project's store whose lower bound is a DRAT proof
DRAT_CERT = (
    Path(__file__).resolve().parents[1]
    / "results"
    / "store"
    / "half-duplex_gossip_n5_18ae0b23b971d93c.cert.json"
)


def _without_dratify(tmp_path: Path) -> dict[str, str]:
    """An environment in which ``import dratify`` and ``import cdclkit`` fail."""
    for name in ("dratify", "cdclkit"):
        (tmp_path / name).mkdir(parents=True)
        missing = f'raise ModuleNotFoundError("No module named {name!r}")\n'
        (tmp_path / name / "__init__.py").write_text(missing)
    return {"PYTHONPATH": str(tmp_path), "PATH": "/usr/bin:/bin"}


def test_a_drat_check_without_dratify_is_refused_by_name(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(sys.modules, "dratify", None)  # import dratify raises ImportError
    drat_extra.load_dratify.cache_clear()
    try:
        with pytest.raises(MissingDependencyError, match=r"pip install 'gossipcert\[drat\]'"):
            check_proof("p cnf 1 2\n1 0\n-1 0\n", "0\n", drat_trim=False)
    finally:
        drat_extra.load_dratify.cache_clear()


def test_the_command_line_says_one_line_and_exits_2(tmp_path: Path) -> None:
    env = _without_dratify(tmp_path)
    for json_flag in ([], ["--json"]):
        out = subprocess.run(
            [sys.executable, "-m", "gossipcert", "check", str(DRAT_CERT), *json_flag],
            capture_output=True,
            text=True,
            env=env,
        )
        assert out.returncode == 2, out.stderr
        errors = [line for line in out.stderr.splitlines() if line.startswith("error:")]
        assert errors == [f"error: {drat_extra.MISSING}"]
        assert "Traceback" not in out.stderr
        if json_flag:
            assert json.loads(out.stdout) == {"error": drat_extra.MISSING, "exit": 2}


def test_an_lrat_solve_and_check_need_no_dratify(tmp_path: Path) -> None:
    env = _without_dratify(tmp_path / "blocked")
    cert = tmp_path / "cert.json"
    solve = [sys.executable, "-m", "gossipcert", "solve", "ring:5", "--model", "half-duplex"]
    made = subprocess.run([*solve, "-o", str(cert), "-q"], capture_output=True, text=True, env=env)
    assert made.returncode == 0, made.stderr
    assert json.loads(cert.read_text())["evidence"]["proof_format"] == "lrat"
    check = [sys.executable, "-m", "gossipcert", "check", str(cert)]
    checked = subprocess.run(check, capture_output=True, text=True, env=env)
    assert checked.returncode == 0, checked.stderr


def test_the_drat_path_runs_where_dratify_is_installed() -> None:
    pytest.importorskip("dratify")
    assert check_proof("p cnf 1 2\n1 0\n-1 0\n", "0\n", drat_trim=False).status == "verified"
