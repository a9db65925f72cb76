"""Interrupts and limits from Python: Ctrl-C returns the bracket found so far, which a
partial result keeps and a later run resumes from; time limits that are no positive number
of seconds are refused; the first call of a process counts the loading of the solvers in
its limit."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
from pathlib import Path

import pytest

import gossipcert
from gossipcert.certificates.partial import resume_seed
from gossipcert.errors import CertificateError, GossipcertError, SpecError
from gossipcert.instance import parse_instance


@pytest.mark.parametrize("limit", [-1, 0, 0.0, float("nan"), float("inf"), True, "10", 1e12])
def test_a_time_limit_that_is_no_positive_number_of_seconds_is_refused(limit: object) -> None:
    """``time_limit=-1`` was accepted (status unknown)."""
    with pytest.raises(SpecError, match="time_limit must be"):
        gossipcert.solve("ring:4", time_limit=limit)  # type: ignore[arg-type]
    with pytest.raises(SpecError, match="time_limit must be"):
        gossipcert.check({}, time_limit=limit)  # type: ignore[arg-type]


_CTRL_C = """
import json, sys, gossipcert
seen = []
def progress(event):
    if not seen and event["event"] == "upper-bound":
        seen.append(event)
        print("ready", flush=True)
res = gossipcert.solve("debruijn:6", "half-duplex", sys.argv[1], progress=progress)
res.write(sys.argv[2])
print(json.dumps([res.status.value, res.interrupted, res.timed_out, res.lower, res.upper]))
"""


@pytest.mark.parametrize("problem", ["gossip", "reduce-scatter"])
def test_ctrl_c_returns_the_bracket_and_a_partial_result_keeps_it(
    tmp_path: Path, problem: str
) -> None:
    """Ctrl-C raised KeyboardInterrupt out of ``gossipcert.solve`` and the bracket was lost.
    Sent once the search has announced an upper bound, it now returns that bracket (the
    search of de Bruijn 6 runs for hours)."""
    part = tmp_path / "part.json"
    proc = subprocess.Popen(
        [sys.executable, "-c", _CTRL_C, problem, str(part)], stdout=subprocess.PIPE, text=True
    )
    try:
        assert proc.stdout is not None
        assert proc.stdout.readline().strip() == "ready"
        proc.send_signal(signal.SIGINT)
        out, _ = proc.communicate(timeout=120)
    finally:
        proc.kill()
    assert proc.returncode == 0
    status, interrupted, timed_out, lower, upper = json.loads(out.splitlines()[-1])
    assert (status, interrupted, timed_out) == ("feasible", True, False)
    assert 9 <= lower < upper  # 9: the closed-form bound the search starts from
    data = json.loads(part.read_text())
    assert data["format"] == "gossipcert-partial/1" and data["interrupted"] is True
    assert (data["lower_bound"], data["upper_bound"]) == (lower, upper)
    # a later run starts from the partial result's schedule, verified again
    instance = parse_instance("debruijn:6", "half-duplex", problem)
    ((name, schedule),) = resume_seed(part, instance)
    assert name == f"{part} (resumed)" and len(schedule) == upper
    other = parse_instance("ring:64", "half-duplex", problem)  # other edges
    with pytest.raises(GossipcertError, match="does not solve this instance"):
        resume_seed(part, other)


def test_a_result_cut_short_is_written_as_a_partial_result(tmp_path: Path) -> None:
    """``write_certificate`` refused anything not optimal, and nothing else wrote it."""
    res = gossipcert.solve("debruijn:6", "half-duplex", "gossip", time_limit=2)
    assert res.status.value in ("feasible", "unknown") and res.timed_out
    with pytest.raises(CertificateError, match="write_partial"):
        res.certificate()
    written = res.write(tmp_path / "part.json")
    assert json.loads(written.read_text())["format"] == "gossipcert-partial/1"
    with pytest.raises(CertificateError, match="exists"):
        res.write_partial(written)  # never replaced without overwrite=True


_FIRST_CALL = """
import json, time
import gossipcert
from gossipcert import command_start
import gossipcert.watchdog as watchdog

origins = []
def stop(*args, **kwargs):
    origins.append(command_start.limit_origin())
    raise SystemExit

t0 = time.monotonic()
solve = gossipcert.solve  # the first use of gossipcert's API: loads the solvers
t1 = time.monotonic()
watchdog.solve_within = stop
for _ in range(2):
    try:
        solve("ring:4", time_limit=10)
    except SystemExit:
        pass
t2 = time.monotonic()
print(json.dumps([t0, t1, t2, *origins]))
"""


def test_the_first_call_counts_the_loading_of_the_solvers_in_its_limit() -> None:
    """``gossipcert.solve(..., time_limit=10)``, the first in a process, returned after 13
    to 14 s: the loading (3 to 4 s) was outside the limit. Its limit now counts from when the
    loading began; the next call's from the call."""
    out = subprocess.run(
        [sys.executable, "-c", _FIRST_CALL], capture_output=True, text=True, check=True
    )
    t0, t1, t2, first, second = json.loads(out.stdout)
    assert t0 <= first < t1  # the loading, inside the lookup, counts
    assert t1 <= second <= t2  # later calls count from the call


def test_the_command_line_names_the_file_it_resumed_from(tmp_path: Path) -> None:
    """It printed "schedule of 3 rounds from resumed from part.json"."""
    from typer.testing import CliRunner

    from gossipcert.cli import app

    part = gossipcert.solve("ring:6").write_partial(tmp_path / "part.json")
    out = CliRunner().invoke(app, ["solve", "ring:6", "--resume", str(part), "-q"])
    assert out.exit_code == 0, out.output
    text = " ".join(out.output.split())
    assert f"schedule of 3 rounds from {part} (resumed)" in text
    assert "from resumed from" not in text
