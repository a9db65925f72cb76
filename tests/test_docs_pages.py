"""The Markdown pages' examples run: their Python examples are doctests (pytest collects
``*.md`` in ``docs/`` and the README), their ``gossipcert`` commands are run here, their JSON
and TOML examples read; and the API page's examples run as pasted into a fresh session."""

from __future__ import annotations

import doctest
import json
import re
import shlex
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

import gossipcert

ROOT = Path(__file__).parent.parent
PAGES = [*sorted((ROOT / "docs").glob("*.md")), ROOT / "README.md"]
_FENCE = re.compile(r"^```(\w*)\n(.*?)^```", re.S | re.M)

#: commands of the pages that are not run here, and why
NOT_RUN = {
    "gossipcert decode": "reads the output of an outside SAT solver (kissat) of the line before",
    "--scheduler tcp://": "needs a running Dask cluster",
}


def _blocks(page: Path, language: str) -> list[str]:
    return [m.group(2) for m in _FENCE.finditer(page.read_text()) if m.group(1) == language]


def _commands() -> list[tuple[str, str]]:
    out = []
    for page in PAGES:
        for block in _blocks(page, "bash"):
            for line in block.splitlines():
                for part in line.split("#", 1)[0].split("&&"):
                    words = part.strip()
                    if words.startswith(".venv/bin/gossipcert "):
                        words = words.removeprefix(".venv/bin/")
                    if words.startswith("gossipcert "):
                        out.append((page.name, words))
    return out


def test_every_python_example_is_a_doctest() -> None:
    """A Python example of a page is run only when written as a doctest (``>>>``)."""
    blocks = [(p.name, b) for p in PAGES for b in _blocks(p, "python")]
    assert len(blocks) >= 4  # the README's two, the other tools' page, citing
    for name, block in blocks:
        assert block.lstrip().startswith(">>>"), name
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["pytest"]
    assert "--doctest-glob='*.md'" in config["ini_options"]["addopts"]
    assert "README.md" in config["ini_options"]["testpaths"]


@pytest.mark.parametrize(("page", "command"), _commands())
def test_the_pages_commands_run(page: str, command: str, tmp_path: Path) -> None:
    skip = next((why for key, why in NOT_RUN.items() if key in command), None)
    if skip is not None:
        pytest.skip(skip)
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "examples").symlink_to(ROOT / "docs" / "examples")
    args = shlex.split(command)[1:]
    done = subprocess.run(
        [sys.executable, "-m", "gossipcert", *args],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, (page, command, done.stdout[-2000:], done.stderr[-2000:])


def test_the_json_and_toml_examples_read(tmp_path: Path) -> None:
    schedules = [json.loads(b) for p in PAGES for b in _blocks(p, "json")]
    assert schedules
    rep = gossipcert.verify("path:2", schedules[0], "telephone", "gossip")
    assert rep.ok
    sweeps = [tomllib.loads(b) for p in PAGES for b in _blocks(p, "toml")]
    assert sweeps and sweeps[0]["name"] == "telephone-half-duplex"


#: the objects of the API page (docs/api.rst), whose examples a reader pastes
API = [
    "solve",
    "verify",
    "bounds",
    "check",
    "upgrade",
    "table",
    "as_instance",
    "verify_algorithm",
    "msccl_xml_from_schedule",
    "mscclpp_plan_from_schedule",
    "sccl_json_from_schedule",
    "Result.named_rounds",
    "Result.named_schedule",
    "Result.to_json",
    "Result.certificate",
    "Result.write_partial",
    "Result.write",
    "Report.named_unmet",
    "Report.named_missing",
]


@pytest.mark.parametrize("name", API)
def test_the_api_pages_examples_run_as_pasted(name: str, tmp_path: Path, monkeypatch) -> None:
    """Each example imports what it uses: pasted into a fresh session it runs (the
    ``sccl_json_from_schedule`` example raised ``NameError: json``)."""
    obj = gossipcert
    for part in name.split("."):
        obj = getattr(obj, part)
    monkeypatch.chdir(tmp_path)
    finder = doctest.DocTestFinder(recurse=False)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    tests = finder.find(obj, name, globs={})
    assert tests and any(t.examples for t in tests), f"{name} has no example"
    for test in tests:
        runner.run(test)
    assert runner.failures == 0


@pytest.mark.parametrize("name", [n for n in API if "." not in n])
def test_the_api_pages_references_are_not_read_as_lists(name: str) -> None:
    """``.. [1] R. Beier and ...`` rendered as a list starting at 18 (R.)."""
    doc = getattr(gossipcert, name).__doc__ or ""
    assert not re.search(r"^\s*\.\. \[\w+\] ([A-Z]|[IVXLCDM]+)\. ", doc, re.M), name
