"""The command line as a new user meets it: interrupts, partial results, plain text, refusals,
conventions (version, JSON errors, help, singular "round"), and viewing schedules."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from typer.testing import CliRunner

from gossipcert.cli import app, main

runner = CliRunner()


def run(*args: str) -> tuple[int, str, str]:
    res = runner.invoke(app, list(args))
    return res.exit_code, res.stdout, res.stderr


# ----------------------------------------------------------------------------- Ctrl-C


def _interrupt_after_heartbeat(args: list[str]) -> tuple[int, str, str]:
    """Run the CLI, wait for its first heartbeat line, send SIGINT, collect the outcome."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "gossipcert.cli", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "COLUMNS": "200"},
    )
    assert proc.stderr is not None and proc.stdout is not None
    seen = threading.Event()
    err_lines: list[str] = []

    def read_err() -> None:
        assert proc.stderr is not None
        for line in proc.stderr:
            err_lines.append(line)
            if "deciding" in line:
                seen.set()

    reader = threading.Thread(target=read_err, daemon=True)
    reader.start()
    assert seen.wait(120), "no heartbeat line within 120 s: " + "".join(err_lines)
    proc.send_signal(signal.SIGINT)
    out = proc.stdout.read()
    code = proc.wait(timeout=60)
    reader.join(timeout=10)
    return code, out, "".join(err_lines)


@pytest.mark.parametrize("backend", ["sat", "cpsat"])
def test_ctrl_c_stops_with_best_bounds_and_exit_130(backend: str) -> None:
    """Defect 1: SIGINT during a solver query: exit 130, no traceback, the bounds printed.

    Before: exit 1 with a pysolvers traceback (sat), or the interrupt swallowed (cpsat).
    The heartbeat line waited for is the progress report of the friction list.
    """
    code, out, err = _interrupt_after_heartbeat(
        ["solve", "torus:4x4", "--model", "half-duplex", "--time-limit", "300", "-b", backend]
    )
    assert code == 130, (out, err)
    assert "Traceback" not in err and "error" not in err.lower()
    assert "between 6 and" in out and "interrupted" in out  # 6: the half-duplex golden bound


# ----------------------------------------------------------------------------- defects


@pytest.mark.parametrize(
    ("graph", "model"),
    [
        ("ring:8", "telephone:p=3"),
        ("complete:2", "all-port"),
        ("ring:8", "all-port:c=2"),
        ("ring:8", "telephone:calls=2"),
    ],
)
def test_no_schedule_known_is_said_plainly(graph: str, model: str) -> None:
    """Defect 2: no "schedule of None rounds from none"."""
    code, out, _ = run("solve", graph, "--model", model, "-q")
    assert "None" not in out and "from none" not in out
    # every connected instance now has the gather-spread schedule; without one the line says so
    assert "upper bound: schedule of" in out or "no schedule is known" in out
    assert code in (0, 1)


def test_user_text_is_never_emoji_or_markup(tmp_path: Path) -> None:
    """Defect 3: ``broadcast:100:`` stayed ``broadcast💯``; labels a, b, smile became emoji."""
    code, out, _ = run("solve", "ring:120", "--problem", "broadcast:100", "-q")
    assert code == 0 and "broadcast:100:" in out and "💯" not in out
    edges = tmp_path / "tri.edgelist"
    edges.write_text("a b\nb smile\nsmile a\n")
    for label in ("a", "b", "smile"):
        code, out, _ = run("solve", str(edges), "--problem", f"broadcast:{label}", "-q")
        assert code == 0 and f"broadcast:{label}:" in out, out
        assert not any(ord(ch) > 0x2500 and ch not in "·—" for ch in out), out


@pytest.mark.parametrize(
    ("algorithm", "model"),
    [
        ("ring-fd", "telephone"),
        ("ring-fd", "half-duplex"),
        ("ring-multicast", "telephone"),
        ("ring-multicast", "half-duplex"),
        ("ring-hd", "telephone:calls=2"),
        ("ring-hd", "sequential:p=2"),
    ],
)
def test_construction_outside_its_hypothesis_is_refused(algorithm: str, model: str) -> None:
    """Defect 4: before, an invalid schedule with dozens of violations and exit 1."""
    code, out, err = run("construct", "ring:8", "--algorithm", algorithm, "--model", model)
    assert code == 2 and "violation" not in out
    assert algorithm in err and ("needs" in err or "limits" in err)


@pytest.mark.parametrize("value", ["0", "-1", "nan", "-inf"])
def test_time_limit_must_be_positive(value: str, tmp_path: Path) -> None:
    """Defect 5: ``--time-limit 0`` and negative values were accepted silently."""
    code, _, err = run("solve", "ring:5", f"--time-limit={value}")
    assert code == 2 and "positive number of seconds" in err
    code, _, err = run("check", str(tmp_path / "none.json"), f"--time-limit={value}")
    assert code == 2 and "positive number of seconds" in err
    # table took nan (every comparison with it is false) and went on to run the sweep
    code, _, err = run("table", str(tmp_path / "none.toml"), f"--time-limit={value}")
    assert code == 2 and "positive number of seconds" in err


@pytest.mark.parametrize("command", ["solve", "check", "table", "heuristic"])
def test_a_time_limit_past_the_timers_is_refused(command: str, tmp_path: Path) -> None:
    """``-t 1e12`` ended in an OverflowError traceback from select() (the pipe watchdog)."""
    first = {"solve": "ring:6", "heuristic": "ring:6"}.get(command, str(tmp_path / "x.json"))
    code, _, err = run(command, first, "--time-limit=1e12")
    assert code == 2 and "at most 10,000,000 seconds" in err and "Traceback" not in err


@pytest.mark.parametrize(
    ("option", "needle"),
    [
        ("--portfolio=-5", "number of seconds in 0..10,000,000"),
        ("--portfolio=nan", "number of seconds in 0..10,000,000"),
        ("--portfolio=inf", "number of seconds in 0..10,000,000"),
        ("--portfolio=1e12", "number of seconds in 0..10,000,000"),
        ("--jobs=0", "greater than or equal to 1"),
        ("--jobs=-1", "greater than or equal to 1"),
    ],
)
def test_portfolio_seconds_and_jobs_must_make_sense(option: str, needle: str) -> None:
    """A negative or NaN --portfolio turned the portfolio off, --jobs -1 ran one job: both
    silently."""
    code, _, err = run("solve", "ring:5", "-q", option)
    assert code == 2 and needle in err


def test_timed_out_solve_writes_a_partial_result_and_resumes(tmp_path: Path) -> None:
    """Defect 6: a timed-out ``solve -o`` wrote nothing and said nothing."""
    part = tmp_path / "part.json"
    code, out, _ = run(
        "solve", "torus:4x4", "--model", "half-duplex", "-t", "3", "-o", str(part), "-q"
    )
    assert code == 1
    assert "time limit reached" in out and "partial result" in out and str(part) in out
    data = json.loads(part.read_text())
    assert data["format"] == "gossipcert-partial/1"
    assert data["status"] in ("feasible", "unknown") and data["lower_bound"] >= 4
    assert data["timed_out"] is True and data["schedule"] is not None
    # the stored schedule is a verified one: verify accepts the partial-results file
    code, out, _ = run("verify", "torus:4x4", str(part), "--model", "half-duplex")
    assert code == 0, out
    # a later run starts from it
    code, out, _ = run(
        "solve",
        "torus:4x4",
        "--model",
        "half-duplex",
        "-t",
        "3",
        "--resume",
        str(part),
        "-q",
        "--json",
    )
    res = json.loads(out)
    assert res["upper_bound"] <= data["upper_bound"]
    # re-written only with --force
    code, _, err = run("solve", "torus:4x4", "-m", "half-duplex", "-t", "1", "-o", str(part))
    assert code == 2 and "exists" in err


def test_resume_refuses_a_file_without_schedule(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text('{"rounds": []}')
    code, _, err = run("solve", "ring:6", "--resume", str(bad))
    assert code == 2 and "neither a partial-results file nor a certificate" in err


def test_resume_refuses_a_schedule_for_another_instance(tmp_path: Path) -> None:
    cert = tmp_path / "ring6-cert.json"
    assert run("solve", "ring:6", "-o", str(cert), "-q")[0] == 0
    code, _, err = run("solve", "ring:8", "--resume", str(cert))
    assert code == 2 and "does not solve this instance" in err


def test_unheld_packet_is_named_not_a_disconnected_graph(tmp_path: Path) -> None:
    """Defect 8: the error blamed a disconnected graph; nobody holds packet ``a``."""
    problem = tmp_path / "p.json"
    problem.write_text('{"packets":["a"],"holdings":{},"demands":{"3":["a"]}}')
    code, _, err = run("solve", "ring:8", "--problem", str(problem))
    assert code == 2
    assert "no node holds packet 'a'" in err and "disconnected" not in err


@pytest.mark.parametrize(
    "model", ["telephone:p=2,p=3", "all-port:c=1,c=2", "telephone:calls=2,calls=1"]
)
def test_repeated_model_option_is_refused(model: str) -> None:
    """Defect 10: ``telephone:p=2,p=3`` ran as ``p=3``."""
    code, _, err = run("bounds", "ring:5", "--model", model)
    assert code == 2 and "given twice" in err


def test_sparse_random_graph_from_the_command_line() -> None:
    """Defect 11: ``random:200,300,seed=1`` failed with "no connected graph found"."""
    code, out, _ = run("graph", "random:200,300,seed=1", "--json")
    info = json.loads(out)
    assert code == 0 and info["connected"] and (info["n"], info["m"]) == (200, 300)


# ----------------------------------------------------------------------------- friction


def test_version() -> None:
    code, out, _ = run("--version")
    assert code == 0 and out.startswith("gossipcert ")


def test_json_mode_errors_are_json_on_stdout(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run("solve", "ring:5", "--model", "nonsense", "--json")
    assert code == 2 and "unknown model" in err
    assert json.loads(out) == {"error": json.loads(out)["error"], "exit": 2}
    # usage errors (handled by main, before any command runs) too
    with pytest.raises(SystemExit) as stop:
        main(["solve", "ring:5", "--time-limit", "0", "--json"])
    assert stop.value.code == 2
    captured = capsys.readouterr()
    assert json.loads(captured.out)["exit"] == 2
    assert captured.err.count("\n") == 1 and "error:" in captured.err


def test_usage_error_is_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stop:
        main(["solve", "ring:5", "--bogus"])
    assert stop.value.code == 2
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err.count("\n") == 1 and "--bogus" in captured.err


def test_one_round_is_singular() -> None:
    code, out, _ = run("solve", "path:2", "--problem", "broadcast:0", "-q")
    assert code == 0 and "optimum 1 round" in out and "1 rounds" not in out


def test_help_shows_defaults_no_bool_tags_and_every_exit_code() -> None:
    code, out, _ = run("solve", "--help")
    assert code == 0
    assert "<bool>" not in out and "[default: telephone]" in out
    for phrase in ("0 the optimum is certified", "2 bad input", "130 interrupted"):
        assert phrase in " ".join(out.split())
    assert "no solver encoding" in " ".join(out.split())


def test_exit_1_without_time_out_is_explained() -> None:
    """A model without an encoding exits 1 without a time-out: it says why."""
    code, out, _ = run(
        "solve", "ring:8", "--model", "all-port:calls=2", "--problem", "total-exchange", "-q"
    )
    assert code == 1 and "time limit reached" not in out
    assert "not certified: no solver encoding covers this model" in out


def test_an_optimum_on_the_solvers_word_alone_exits_1_and_says_so() -> None:
    """Exit 0 means certified: with --no-proof the lower bound of ring:5 half-duplex (6, above
    every closed-form bound) is the solver's word, so the optimum is printed, labelled, with
    exit 1; with the proof it is certified, exit 0."""
    code, out, _ = run("solve", "ring:5", "-m", "half-duplex", "--no-proof", "-q")
    assert code == 1, out
    assert "optimum 6 rounds, not certified" in " ".join(out.split())
    assert "by the word of" in out
    code, out, _ = run("solve", "ring:5", "-m", "half-duplex", "--no-proof", "-q", "--json")
    assert code == 1 and json.loads(out)["certified"] is False
    code, out, _ = run("solve", "ring:5", "-m", "half-duplex", "-q")
    assert code == 0 and "optimum 6 rounds" in out and "not certified" not in out
    code, out, _ = run("solve", "ring:5", "-m", "half-duplex", "-q", "--json")
    assert code == 0 and json.loads(out)["certified"] is True


def test_check_of_a_solver_claim_is_unproved_with_exit_4(tmp_path: Path) -> None:
    """A certificate whose lower bound is the solver's word (solve --no-proof) is not proved
    by re-solving it: check agrees step by step but says "unproved", exit 4, in text, JSON
    and --all; the same instance with its proof holds, exit 0, and --all over both exits 4."""
    claim = tmp_path / "claim.cert.json"
    proved = tmp_path / "proved.cert.json"
    code, _, _ = run("solve", "ring:5", "-m", "half-duplex", "--no-proof", "-q", "-o", str(claim))
    assert code == 1
    code, out, _ = run("check", str(claim))
    assert code == 4 and "certificate NOT proved" in out and "certificate holds" not in out
    code, out, _ = run("check", str(claim), "--json")
    assert code == 4
    assert json.loads(out)["status"] == "unproved" and json.loads(out)["ok"] is False
    # the re-solve step itself is the solver's word, not a check that holds; the others hold
    steps = json.loads(out)["steps"]
    (claim_step,) = [s for s in steps if s["status"] == "unproved"]
    assert "re-solved" in claim_step["check"] and claim_step["ok"] is False
    assert {s["status"] for s in steps} == {"holds", "unproved"}
    code, _, _ = run("solve", "ring:5", "-m", "half-duplex", "-q", "-o", str(proved))
    assert code == 0
    code, out, _ = run("check", str(proved), "--json")
    assert code == 0 and json.loads(out)["status"] == "holds"
    code, out, _ = run("check", "--all", str(tmp_path), "--json")
    assert code == 4
    assert json.loads(out)["counts"] == {"holds": 1, "fails": 0, "timeout": 0, "unproved": 1}
    (entry,) = [c for c in json.loads(out)["certificates"] if c["status"] == "unproved"]
    assert "solver's word" in entry["first_problem"]
    proved.unlink()
    doc = json.loads(claim.read_text())
    doc["optimum"] = 7  # a claim that fails is a failure, not "unproved"
    (tmp_path / "bad.cert.json").write_text(json.dumps(doc))
    code, out, _ = run("check", "--all", str(tmp_path))
    assert code == 1 and "1 fail" in out and "1 on a solver's word" in out


def test_check_report_verdicts_in_order() -> None:
    """A failing step outranks an undecided one, which outranks a solver's word."""
    from gossipcert.certificates.certificate import CheckReport

    rep = CheckReport()
    rep.add(True, "a")
    assert rep.status == "holds" and rep.ok
    rep.add(True, "a solver's word", claim=True)
    assert rep.status == "unproved" and not rep.ok
    assert [rep.step_status(i) for i in range(2)] == ["holds", "unproved"]
    rep.add(None, "b")
    assert rep.status == "timeout"
    rep.add(False, "c")
    assert rep.status == "fails"
    held = CheckReport()
    held.add(True, "a")
    assert held.status == "holds" and held.ok


def test_graph_shows_capacities() -> None:
    code, out, _ = run("graph", "fattree:8:exp", "--json")
    caps = json.loads(out)["capacities"]
    assert code == 0 and len(caps) > 1 and sum(caps.values()) == json.loads(out)["m"]
    code, out, _ = run("graph", "fattree:8:exp")
    assert "capacities" in out and "edges" in out


def test_construct_defaults_to_the_construction_model() -> None:
    code, out, _ = run("construct", "ring:8", "--algorithm", "ring-fd")
    assert code == 0 and "single-port" in out
    code, out, _ = run("construct", "fattree:8", "--algorithm", "fattree-flood")
    assert code == 0 and "all-port" in out


def test_show_prints_the_schedule_per_round(tmp_path: Path) -> None:
    code, out, _ = run("construct", "ring:4", "--algorithm", "ring-fd", "--show")
    assert code == 0 and "round" in out and "0->1" in out
    code, out, _ = run("heuristic", "ring:4", "--show")
    assert code == 0 and "->" in out
    code, out, _ = run("solve", "ring:4", "--show", "-q")
    assert code == 0 and "->" in out


def test_verify_accepts_a_certificate(tmp_path: Path) -> None:
    cert = tmp_path / "cert.json"
    code, _, _ = run("solve", "ring:6", "-o", str(cert), "-q")
    assert code == 0
    code, out, _ = run("verify", "ring:6", str(cert), "--show")
    assert code == 0 and "valid; 3 rounds" in out


def test_quiet_solve_prints_nothing_on_stderr() -> None:
    code, _, err = run("solve", "ring:6", "-q")
    assert code == 0 and err == ""


def test_writes_are_atomic_and_leave_no_temporary_files(tmp_path: Path) -> None:
    cert = tmp_path / "c.json"
    run("solve", "ring:5", "-o", str(cert), "-q")
    run("solve", "ring:5", "-o", str(cert), "-q", "--force")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["c.json"]
    # a certificate is for others to re-check: not private like a temporary file
    assert cert.stat().st_mode & 0o044 == 0o044


def test_console_entry_point_runs_as_module() -> None:
    """``python -m gossipcert.cli`` (used by the Ctrl-C test) behaves like the script."""
    proc = subprocess.run(
        [sys.executable, "-m", "gossipcert.cli", "--version"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0 and proc.stdout.startswith("gossipcert ")


def test_an_unknown_command_points_to_the_main_help(capsys: pytest.CaptureFixture[str]) -> None:
    """The hint was 'see: gossipcert bogus --help', a command that does not exist."""
    for args, hint in [
        (["bogus"], "(see: gossipcert --help)"),
        (["graph", "ring:5", "--bogus"], "(see: gossipcert graph --help)"),
    ]:
        with pytest.raises(SystemExit) as stop:
            main(args)
        assert stop.value.code == 2
        assert hint in capsys.readouterr().err


def test_verify_replays_a_certificate_under_its_own_model_and_problem(tmp_path: Path) -> None:
    """``verify ring:5 CERT`` replayed a multicast certificate under the default telephone
    rules and called it INVALID; a chunked one as plain gossip. Now the stored model and
    problem are used, and options that say otherwise are refused."""
    mc = tmp_path / "mc.cert.json"
    assert run("solve", "ring:5", "-m", "multicast", "-q", "-o", str(mc))[0] == 0
    code, out, _ = run("verify", "ring:5", str(mc))
    assert code == 0 and "multicast" in out and "valid" in out
    code, _, err = run("verify", "ring:5", str(mc), "-m", "telephone")
    assert code == 2 and "is for the model multicast, not telephone" in err
    assert run("verify", "ring:5", str(mc), "-m", "multicast", "-p", "gossip")[0] == 0
    ch = tmp_path / "ch.cert.json"
    assert run("solve", "ring:5", "-p", "gossip:chunks=2", "-q", "-o", str(ch))[0] == 0
    code, out, _ = run("verify", "ring:5", str(ch), "--json")
    assert code == 0 and json.loads(out)["problem"] == "gossip:chunks=2"
    code, _, err = run("verify", "ring:5", str(ch), "-p", "gossip")
    assert code == 2 and "is for the problem gossip:chunks=2" in err
    # a plain schedule still takes the defaults
    sched = tmp_path / "s.json"
    assert run("construct", "ring:5", "-a", "rows-columns", "-o", str(sched))[0] == 0
    code, out, _ = run("verify", "ring:5", str(sched))
    assert code == 0 and "telephone · gossip" in out


def test_check_all_finds_certificates_named_as_in_the_readme(tmp_path: Path) -> None:
    """The quick start writes ``ccc3-cert.json``; ``check --all`` looked for ``*.cert.json``
    only and said there were no certificates."""
    assert run("solve", "ring:5", "-q", "-o", str(tmp_path / "ring5-cert.json"))[0] == 0
    code, out, _ = run("check", "--all", str(tmp_path), "--json")
    assert code == 0 and json.loads(out)["counts"]["holds"] == 1


def test_verify_json_reports_a_missing_edge_as_an_error_object(tmp_path: Path) -> None:
    """With --json every exit 2 carries ``{"error": ..., "exit": 2}`` on standard output; a
    schedule over a non-edge printed the report alone and the error on standard error."""
    sched = tmp_path / "ne.json"
    sched.write_text('{"rounds": [[{"from": 0, "to": 2}]]}')
    code, out, _ = run("verify", "ring:6", str(sched), "--json")
    doc = json.loads(out)
    assert code == 2 and doc["exit"] == 2 and "not its neighbour" in doc["error"]


def test_tau_and_h_given_twice_must_agree() -> None:
    """``-m telephone:tau=0.5 --tau 2`` printed the model with tau=0.5 and computed with 2."""
    code, _, err = run(
        "solve",
        "ring:6",
        "-m",
        "telephone:tau=0.5",
        "--objective",
        "cost",
        "--tau",
        "2",
        "--max-rounds",
        "4",
    )
    assert code == 2 and "--tau 2 disagrees with tau=0.5" in err
    code, _, err = run(
        "solve",
        "ring:6",
        "-m",
        "telephone:tau=0.5,h=2",
        "--objective",
        "cost",
        "--h",
        "3",
        "--max-rounds",
        "4",
    )
    assert code == 2 and "--h 3 disagrees with h=2" in err


def test_construct_help_names_every_construction() -> None:
    """The help listed 13 of the 19 constructions."""
    from gossipcert.constructions.catalog import CONSTRUCTIONS

    code, out, _ = run("construct", "--help")
    flat = re.sub(r"-\s+", "-", " ".join(out.replace("│", " ").split()))  # undo wrapping
    missing = [name for name in CONSTRUCTIONS if name not in flat]
    assert code == 0 and not missing, missing


def test_verify_takes_a_custom_problem_file_from_the_user(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A partial result names its custom problem's file without its content: verify reads
    the file the user gives with -p (from any folder), and a certificate's stored content is
    compared by content, not by the file's name."""
    problem = tmp_path / "cg.json"
    problem.write_text('{"packets":["a"],"holdings":{"0":["a"]},"demands":{"2":["a"]}}')
    cert = tmp_path / "c.cert.json"
    monkeypatch.chdir(tmp_path)
    assert run("solve", "ring:4", "-p", "cg.json", "-q", "-o", str(cert))[0] == 0
    doc = json.loads(cert.read_text())
    partial = {
        "format": "gossipcert-partial/1",
        "instance": {"graph": "ring:4", "model": "telephone", "problem": "cg.json"},
        "schedule": doc["schedule"],
    }
    (tmp_path / "part.json").write_text(json.dumps(partial))
    sub = tmp_path / "sub"
    sub.mkdir()
    monkeypatch.chdir(sub)
    assert run("verify", "ring:4", "../part.json", "-p", "../cg.json")[0] == 0
    assert run("verify", "ring:4", "../c.cert.json")[0] == 0
    assert run("verify", "ring:4", "../c.cert.json", "-p", "../cg.json")[0] == 0
    other = sub / "other.json"
    other.write_text('{"packets":["a"],"holdings":{"1":["a"]},"demands":{"3":["a"]}}')
    code, _, err = run("verify", "ring:4", "../c.cert.json", "-p", "other.json")
    assert code == 2 and "is for the problem" in err


def test_check_all_names_no_problem_for_a_certificate_that_holds(tmp_path: Path) -> None:
    assert run("solve", "ring:5", "-q", "-o", str(tmp_path / "r.cert.json"))[0] == 0
    code, out, _ = run("check", "--all", str(tmp_path), "--json")
    (entry,) = json.loads(out)["certificates"]
    assert code == 0 and entry["status"] == "holds" and entry["first_problem"] == ""


def test_check_never_reads_a_graph_file_named_inside_a_product(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``g.edgelist*path:2`` was rebuilt from the checking machine's files (failing from
    another folder); a spec with a file factor is checked from its stored record, as a file
    spec alone always was."""
    (tmp_path / "g.edgelist").write_text("0 1\n1 2\n")
    monkeypatch.chdir(tmp_path)
    cert = tmp_path / "p.cert.json"
    assert run("solve", "g.edgelist*path:2", "-q", "-o", str(cert))[0] == 0
    sub = tmp_path / "sub"
    sub.mkdir()
    monkeypatch.chdir(sub)
    (sub / "g.edgelist").write_text("0 1\n")  # another graph of the same name: not read
    code, out, _ = run("check", "../p.cert.json")
    assert code == 0 and "certificate holds" in out
