"""Heartbeats during the steps that have no progress of their own: writing and checking a
DRAT proof in ``solve``, and a long step of ``check``; ``--quiet`` silences them."""

from __future__ import annotations

import os
import time
from typing import Any

import pytest
from typer.testing import CliRunner

import gossipcert.cli.checking as checking
import gossipcert.cli_text as cli_text
import gossipcert.search.entry as entry
import gossipcert.search.heartbeat as heartbeat
import gossipcert.search.rounds as rounds
import gossipcert.watchdog as watchdog
from gossipcert.cli import app
from gossipcert.instance import parse_instance
from gossipcert.search.reports import idle_heartbeat

runner = CliRunner()


def slow_check(monkeypatch: pytest.MonkeyPatch, seconds: float) -> None:
    """The proof checkers take ``seconds`` longer; heartbeats every 0.05 s."""
    original = rounds.check_refutation

    def slow(*args: Any, **kwargs: Any) -> Any:
        time.sleep(seconds)
        return original(*args, **kwargs)

    monkeypatch.setattr(rounds, "check_refutation", slow)
    monkeypatch.setattr(heartbeat, "EVERY_SECONDS", 0.05)


def test_solve_sends_heartbeats_while_the_proof_is_checked(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    slow_check(monkeypatch, 0.5)
    events: list[dict[str, Any]] = []
    res = entry.solve(parse_instance("path:4", "half-duplex", "gossip"), progress=events.append)
    assert res.evidence["kind"] == "drat"
    names = [e["event"] for e in events]
    start, end = names.index("proof"), names.index("proof-check")
    beats = [e for e in events[start:end] if e["event"] == "heartbeat"]
    assert len(beats) >= 3
    assert all(e["what"] == "checking the proof for 3 rounds" for e in beats)
    assert all(e["lower"] == 4 and e["upper"] == 4 for e in beats)
    assert "heartbeat" not in names[end:]  # the thread stops with the step


@pytest.mark.parametrize("quiet", [False, True])
def test_cli_prints_the_proof_heartbeat_unless_quiet(
    monkeypatch: pytest.MonkeyPatch, quiet: bool
) -> None:
    slow_check(monkeypatch, 0.5)
    monkeypatch.setattr(cli_text, "HEARTBEAT_SECONDS", 0.0)
    args = ["solve", "path:4", "--model", "half-duplex"] + (["--quiet"] if quiet else [])
    res = runner.invoke(app, args)
    assert res.exit_code == 0, res.output
    assert ("checking the proof for 3 rounds; bounds so far [4, 4]" in res.stderr) != quiet


@pytest.mark.parametrize("quiet", [False, True])
def test_check_prints_a_heartbeat_during_a_long_step(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Any, quiet: bool
) -> None:
    cert = tmp_path / "c.json"
    assert (
        runner.invoke(app, ["solve", "path:4", "-m", "half-duplex", "-o", str(cert)]).exit_code == 0
    )
    original = watchdog.check_within

    def slow(*args: Any, **kwargs: Any) -> Any:
        time.sleep(0.5)
        return original(*args, **kwargs)

    monkeypatch.setattr(watchdog, "check_within", slow)
    monkeypatch.setattr(heartbeat, "EVERY_SECONDS", 0.05)
    monkeypatch.setattr(checking, "CHECK_HEARTBEAT_SECONDS", 0.1)
    res = runner.invoke(app, ["check", str(cert)] + (["--quiet"] if quiet else []))
    assert res.exit_code == 0, res.output
    assert ("still checking step 1" in res.stderr) != quiet


def test_the_parent_beats_while_the_child_is_silent(monkeypatch: pytest.MonkeyPatch) -> None:
    """A child inside a native call sends nothing; the parent's own heartbeat still comes,
    after every ``IDLE_SECONDS`` of silence. The child stays silent until the parent has
    beaten five times (it waits on a pipe the heartbeat writes to), so that the count does
    not depend on how fast the machine is."""
    import select

    import gossipcert.children as children

    monkeypatch.setattr(children, "IDLE_SECONDS", 0.05)
    beats: list[float] = []
    read_end, write_end = os.pipe()

    def on_idle() -> None:
        beats.append(time.monotonic())
        if len(beats) == 5:
            os.write(write_end, b"x")

    def silent(send: Any) -> int:
        send(("message", "started"))
        ready, _, _ = select.select([read_end], [], [], 300)  # no message meanwhile
        return 7 if ready else -1

    try:
        got = children.call_in_child(silent, (), None, None, None, on_idle)
    finally:
        os.close(read_end)
        os.close(write_end)
    assert got == ("result", 7)
    assert len(beats) >= 5

    def quick(send: Any) -> int:
        return 1

    # a child that answers at once, long before IDLE_SECONDS of silence: no beat
    monkeypatch.setattr(children, "IDLE_SECONDS", 60.0)
    beats.clear()
    assert children.call_in_child(quick, (), None, None, None, lambda: beats.append(0.0))[1] == 1
    assert beats == []


def test_idle_heartbeat_names_the_last_step() -> None:
    doing = {"what": "checking the proof for 6 rounds", "rounds": 6, "lower": 7, "upper": 7}
    doing["origin"] = time.monotonic() - 3.0
    event = idle_heartbeat(doing)
    assert event["event"] == "heartbeat" and event["what"] == doing["what"]
    assert (event["lower"], event["upper"]) == (7, 7) and event["time"] >= 3.0
    progress = cli_text.Progress(enabled=False)
    progress.last_line -= 10  # a line is due: the event must print without error
    progress(event)
    assert progress.last_line > time.monotonic() - 1


def test_child_messages_of_every_size_arrive_whole_and_in_order() -> None:
    """Small messages around one of several megabytes (a proof) arrive whole, in order."""
    import gossipcert.children as children

    big = bytes(range(256)) * 40_000  # 10 MB, many pipe reads

    def talk(send: Any) -> bytes:
        send(("message", 1))
        send(("message", big))
        send(("message", 2))
        return big[::-1]

    got: list[Any] = []
    kind, value = children.call_in_child(talk, (), None, got.append)
    assert kind == "result" and value == big[::-1]
    assert got[0] == 1 and got[1] == big and got[2] == 2 and len(got) == 3
