"""The model another tool's algorithm is judged under: stated in the verdict, the topology's
by default, chosen with ``model=`` (``--model``); and the sample files the docs use."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

import gossipcert
from gossipcert.cli import app

EXAMPLES = Path(__file__).parent.parent / "docs" / "examples"
TELEPHONE = EXAMPLES / "allgather-ring4-telephone.xml"


@pytest.mark.parametrize(
    ("name", "fmt"),
    [
        ("allgather-ring4.xml", "msccl-xml"),
        ("allgather-ring4.sccl.json", "sccl-json"),
        ("allgather-ring4.teccl.json", "teccl-json"),
    ],
)
def test_the_sample_files_are_the_certified_ring_allgather(name: str, fmt: str) -> None:
    """A 4-ring's allgather both ways round: 2 rounds, the certified optimum."""
    verdict = gossipcert.verify_algorithm(str(EXAMPLES / name), fmt, topology="ring:4")
    assert verdict.valid and verdict.fits and verdict.model_default
    assert (verdict.rounds, verdict.optimum["optimum"], verdict.gap()) == (2, 2, {"exact": 0})


def test_a_telephone_schedule_is_judged_under_the_model_chosen() -> None:
    """A certified telephone schedule exported as MSCCL XML was always judged under
    all-port, where its calls of two chunks overload the links."""
    default = gossipcert.verify_algorithm(str(TELEPHONE), topology="ring:4")
    assert default.valid and not default.fits
    assert (default.model, default.model_default) == ("all-port", True)
    chosen = gossipcert.verify_algorithm(str(TELEPHONE), topology="ring:4", model="telephone")
    assert chosen.valid and chosen.fits and not chosen.model_default
    assert (chosen.model, chosen.optimum_model, chosen.gap()) == (
        "telephone",
        "telephone",
        {"exact": 0},
    )
    assert chosen.to_json()["model_default"] is False
    # half-duplex: the calls carry both ways, which it forbids
    half = gossipcert.verify_algorithm(str(TELEPHONE), topology="ring:4", model="half-duplex")
    assert not half.fits and {f.rule for f in half.model_findings} == {"sends-and-receives"}
    assert half.gap() is None  # not comparable


def test_one_send_to_several_neighbours_fits_multicast(tmp_path: Path) -> None:
    """The middle of a 3-path broadcasts to both ends in one round: one multicast
    transmission, two single-port ones."""
    best = gossipcert.solve("path:3", "multicast", "broadcast:1")
    assert best.optimum == 1 and best.named_rounds()[0][0][1] == (0, 2)
    path = tmp_path / "multicast.xml"
    path.write_text(gossipcert.msccl_xml_from_schedule(best.schedule, best.instance))
    verdict = gossipcert.verify_algorithm(str(path), topology="path:3", model="multicast")
    assert verdict.valid and verdict.fits and verdict.rounds == 1
    single = gossipcert.verify_algorithm(str(path), topology="path:3", model="single-port")
    assert not single.fits and {f.rule for f in single.model_findings} == {"sends-twice"}


def test_the_command_line_states_and_takes_the_model() -> None:
    runner = CliRunner()
    args = ["verify", "--from", "msccl-xml", str(TELEPHONE), "--topology", "ring:4"]
    out = runner.invoke(app, args)
    assert out.exit_code == 1
    assert "model: all-port (the topology's default; --model chooses another) on ring:4" in (
        out.output
    )
    out = runner.invoke(app, [*args, "--model", "telephone"])
    assert out.exit_code == 0 and "model: telephone on ring:4: fits" in out.output
    data = json.loads(runner.invoke(app, [*args, "--model", "telephone", "--json"]).output)
    assert (data["model"], data["model_default"], data["fits_model"]) == ("telephone", False, True)
    # a model the topology cannot have: one line, exit 2
    hub = ["verify", "--from", "msccl-xml", str(TELEPHONE), "--topology", "hub:4"]
    out = runner.invoke(app, [*hub, "--model", "telephone"])
    assert out.exit_code == 2 and "hub:4" in out.output


def test_the_count_of_violations_is_in_good_english(tmp_path: Path) -> None:
    """It printed "invalid (1 violations)"."""
    text = (EXAMPLES / "allgather-ring4.xml").read_text()
    first = re.search(r'type="r"[^>]*dstoff="1"', text)
    assert first is not None
    broken = text[: first.start()] + first.group(0).replace('dstoff="1"', 'dstoff="2"')
    path = tmp_path / "broken.xml"
    path.write_text(broken + text[first.end() :])
    verdict = gossipcert.verify_algorithm(str(path), topology="ring:4", optimum=False)
    n = len(verdict.replay.findings)
    assert n >= 1
    args = ["verify", "--from", "msccl-xml", str(path), "--topology", "ring:4", "-t", "5"]
    out = CliRunner().invoke(app, args)
    assert f"invalid ({n} violation{'' if n == 1 else 's'})" in out.output
