"""Parsers no more lenient than their formats: a packet listed twice in one transmission of a
schedule (JSON or CSV), and a TE-CCL flow line with anything after its last field, are
refused with the place named. Before, the packet was silently counted once and the flow's
trailing text ignored."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from gossipcert.cli import app
from gossipcert.errors import FormatError, ScheduleFormatError
from gossipcert.formats.json_algorithms import read_teccl
from gossipcert.instance import parse_instance
from gossipcert.schedule import from_csv, from_json
from tests.test_formats_json import teccl_flows

runner = CliRunner()
PATH3 = parse_instance("path:3", "telephone", "gossip")


def test_a_packet_twice_in_a_json_transmission_is_refused() -> None:
    once = [[{"from": 0, "to": [1], "packets": [0]}], [{"from": 1, "to": [2], "packets": [0, 1]}]]
    assert len(from_json({"rounds": once}, PATH3)) == 2
    twice = [once[0], [{"from": 1, "to": [2], "packets": [0, 1, 0]}]]
    with pytest.raises(ScheduleFormatError, match=r"^round 2, transmission 1: packet 0 is listed"):
        from_json({"rounds": twice}, PATH3)
    # the same packet by its label and by its index is the same packet
    labelled = [[{"from": 0, "to": [1], "packets": ["0", 0]}]]
    with pytest.raises(ScheduleFormatError, match=r"round 1, transmission 1: .* listed twice"):
        from_json({"rounds": labelled}, PATH3)


def test_a_packet_twice_in_a_csv_line_is_refused() -> None:
    text = "round,from,to,packets\n1,0,1,0\n2,1,2,0;1;1\n"
    with pytest.raises(ScheduleFormatError, match=r"^line 3 \(round 2\): packet '1' is listed"):
        from_csv(text, PATH3)


def test_verify_refuses_it_with_exit_2_and_one_line(tmp_path: Path) -> None:
    path = tmp_path / "s.json"
    rounds = [[{"from": 0, "to": [1], "packets": [0, 0]}]]
    path.write_text(json.dumps({"format": "gossipcert-schedule/1", "rounds": rounds}))
    got = runner.invoke(app, ["verify", "path:3", str(path), "-m", "telephone"])
    assert got.exit_code == 2
    assert "round 1, transmission 1: packet 0 is listed twice" in " ".join(got.stderr.split())
    assert "Traceback" not in got.output


@pytest.mark.parametrize(
    "extra",
    [
        " garbage",  # trailing text
        " ",  # a trailing space
        " via switches",  # no switch named
        " via switches 3 junk",
        " via switches 3 ->",
        "\n",
        " in epoch 2",  # a second epoch
    ],
)
def test_a_flow_line_with_anything_after_its_fields_is_refused(tmp_path: Path, extra: str) -> None:
    data = teccl_flows(3)
    line = data["7-Flows"][4]
    data["7-Flows"][4] = line + extra
    path = tmp_path / "t.json"
    path.write_text(json.dumps(data))
    with pytest.raises(FormatError, match=r"7-Flows\[4\] is not 'Chunk c from s"):
        read_teccl(str(path))
    got = runner.invoke(app, ["verify", "--from", "teccl-json", str(path), "-t", "1"])
    assert got.exit_code == 2 and "7-Flows[4]" in got.stderr and "Traceback" not in got.output


def test_flow_lines_as_te_ccl_writes_them_are_read(tmp_path: Path) -> None:
    """TE-CCL's allgather writer names the switches a flow crossed (``via switches 3`` or
    ``via switches 3 -> 4``) and, in its alltoall output, a volume."""
    data = teccl_flows(3)
    data["7-Flows"] = [
        line + tail
        for line, tail in zip(
            data["7-Flows"],
            ["", " via switches 3", " via switches 3 -> 4", "", "", ""],
            strict=True,
        )
    ]
    data["7-Flows"][3] = data["7-Flows"][3].replace(" in epoch", " with volume 0.5 in epoch")
    path = tmp_path / "t.json"
    path.write_text(json.dumps(data))
    replay, collective, ranks, flows = read_teccl(str(path))
    assert replay.valid and (collective, ranks, flows) == ("allgather", 3, 6)
