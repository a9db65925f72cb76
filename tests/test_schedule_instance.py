"""Schedule files written by construct, heuristic and decode carry their instance (graph
record, model, problem) as certificates do; verify and draw replay them under it, refuse
options that disagree, and still read the rounds-only files of before."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from gossipcert.cli import app

runner = CliRunner()


def written(tmp_path: Path, *args: str) -> Path:
    out = tmp_path / "s.json"
    res = runner.invoke(app, [*args, "-o", str(out)])
    assert res.exit_code == 0, res.output
    return out


def test_heuristic_schedule_carries_and_replays_its_instance(tmp_path: Path) -> None:
    out = written(tmp_path, "heuristic", "ring:8", "--model", "single-port", "-p", "broadcast:0")
    data = json.loads(out.read_text())
    assert data["instance"]["model"] == "single-port"
    assert data["instance"]["problem"]["spec"] == "broadcast:0"
    assert data["instance"]["graph"]["spec"] == "ring:8"
    res = runner.invoke(app, ["verify", "ring:8", str(out)])
    assert res.exit_code == 0, res.output
    assert "single-port · broadcast:0" in res.output
    res = runner.invoke(app, ["verify", "ring:8", str(out), "--model", "telephone"])
    assert res.exit_code == 2 and "is for the model single-port" in res.output
    res = runner.invoke(app, ["verify", "ring:8", str(out), "--problem", "gossip"])
    assert res.exit_code == 2 and "is for the problem broadcast:0" in res.output


def test_draw_uses_the_stored_instance(tmp_path: Path) -> None:
    # ring:8 under single-port with p=1: the telephone replay would be another schedule
    out = written(tmp_path, "construct", "ring:8", "--model", "single-port", "-a", "gather-spread")
    for extra in ([], ["--graph", "ring:8"]):
        pic = tmp_path / f"d{len(extra)}.png"
        res = runner.invoke(app, ["draw", str(out), "-o", str(pic), *extra])
        assert res.exit_code == 0, res.output
        assert pic.stat().st_size > 0
    res = runner.invoke(app, ["draw", str(out), "-o", str(tmp_path / "t.png"), "-m", "telephone"])
    assert res.exit_code == 2 and "is for the model single-port" in res.output


def test_rounds_only_files_stay_readable(tmp_path: Path) -> None:
    out = written(tmp_path, "heuristic", "ring:8")
    data = json.loads(out.read_text())
    del data["instance"]
    old = tmp_path / "old.json"
    old.write_text(json.dumps(data))
    res = runner.invoke(app, ["verify", "ring:8", str(old)])
    assert res.exit_code == 0, res.output
    assert "telephone · gossip" in res.output
    res = runner.invoke(app, ["draw", str(old), "-o", str(tmp_path / "o.png")])
    assert res.exit_code == 2 and "draw FILE --graph GRAPH" in res.output
    res = runner.invoke(app, ["draw", str(old), "-o", str(tmp_path / "o.png"), "-g", "ring:8"])
    assert res.exit_code == 0, res.output


def test_verify_takes_a_file_that_carries_its_instance_alone(tmp_path: Path) -> None:
    out = written(tmp_path, "heuristic", "ring:8", "--model", "single-port", "-p", "broadcast:0")
    res = runner.invoke(app, ["verify", str(out)])
    assert res.exit_code == 0, res.output
    assert "ring:8 · single-port · broadcast:0: valid" in res.output
    data = json.loads(out.read_text())
    data["rounds"] = data["rounds"][:-1]  # one round short: incomplete, exit 1
    short = tmp_path / "short.json"
    short.write_text(json.dumps(data))
    assert runner.invoke(app, ["verify", str(short)]).exit_code == 1
    del data["instance"]
    bare = tmp_path / "bare.json"
    bare.write_text(json.dumps(data))
    res = runner.invoke(app, ["verify", str(bare)])
    assert res.exit_code == 2 and "does not carry its graph" in res.output
    res = runner.invoke(app, ["verify", str(tmp_path / "missing.json")])
    assert res.exit_code == 2 and "does not exist" in res.output


def test_check_points_a_schedule_or_partial_file_to_verify(tmp_path: Path) -> None:
    out = written(tmp_path, "heuristic", "ring:8")
    res = runner.invoke(app, ["check", str(out)])
    assert res.exit_code == 2
    assert "is a gossipcert-schedule/1 file, not a certificate" in res.output
    assert "gossipcert verify" in res.output
    from gossipcert.certificates.partial import partial_text
    from gossipcert.instance import parse_instance
    from gossipcert.search.entry import solve

    partial = tmp_path / "p.json"
    partial.write_text(partial_text(solve(parse_instance("ring:6", "telephone", "gossip"))))
    res = runner.invoke(app, ["check", str(partial)])
    assert res.exit_code == 2 and "is a gossipcert-partial/1 file" in res.output
