"""The command line: outputs, exit codes, and one clear line for bad input."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from gossipcert.cli import app
from gossipcert.constructions.rings import ring_full_duplex
from gossipcert.instance import parse_instance
from gossipcert.schedule import Schedule, write_schedule

runner = CliRunner()


def run(*args: str) -> tuple[int, str, str]:
    res = runner.invoke(app, list(args))
    return res.exit_code, res.stdout, res.stderr


def test_graph_json() -> None:
    code, out, _ = run("graph", "petersen", "--json")
    assert code == 0
    info = json.loads(out)
    assert (info["n"], info["m"], info["diameter"], info["radius"]) == (10, 15, 2, 2)
    assert (info["processors"], info["routers"]) == (10, 0)


def test_graph_fat_tree_counts_routers() -> None:
    info = json.loads(run("graph", "fattree:8", "--json")[1])
    assert (info["n"], info["processors"], info["routers"]) == (15, 8, 7)


def test_graph_table() -> None:
    code, out, _ = run("graph", "ccc:3")
    assert code == 0 and "diameter" in out and "24" in out


@pytest.fixture
def ring_schedule(tmp_path: Path) -> Path:
    inst = parse_instance("ring:6", "single-port:p=1", "gossip")
    path = tmp_path / "ring6.json"
    write_schedule(ring_full_duplex(inst), inst, path)
    return path


def test_verify_valid_and_complete(ring_schedule: Path) -> None:
    code, out, _ = run("verify", "ring:6", str(ring_schedule), "-m", "single-port:p=1")
    assert code == 0
    assert "valid; 5 rounds; all demands met after round 5" in out


def test_verify_json(ring_schedule: Path) -> None:
    code, out, _ = run("verify", "ring:6", str(ring_schedule), "-m", "single-port:p=1", "--json")
    data = json.loads(out)
    assert code == 0
    assert (data["valid"], data["complete"], data["rounds"], data["errors"]) == (
        True,
        True,
        5,
        [],
    )


def test_verify_invalid_exits_1(ring_schedule: Path) -> None:
    # the rotation is not a telephone schedule on an even ring either: node i is in two calls
    code, out, _ = run("verify", "ring:6", str(ring_schedule), "-m", "telephone:p=1", "--json")
    data = json.loads(out)
    assert code == 1 and not data["valid"]
    assert data["errors"][0]["rule"] == "two-calls"
    assert data["errors"][0]["message"].startswith("round 1: node 0 is in calls with")


def test_verify_incomplete_exits_1(tmp_path: Path) -> None:
    inst = parse_instance("ring:6", "single-port:p=1", "gossip")
    path = tmp_path / "short.csv"
    write_schedule(Schedule(ring_full_duplex(inst).rounds[:3]), inst, path)
    code, out, _ = run("verify", "ring:6", str(path), "-m", "single-port:p=1", "--json")
    data = json.loads(out)
    assert code == 1 and data["valid"] and not data["complete"] and data["rounds"] is None
    assert data["unmet_count"] == 6 * 2


def test_verify_with_original_labels(tmp_path: Path) -> None:
    g = tmp_path / "tri.edgelist"
    g.write_text("alice bob\nbob carol\ncarol alice\n")
    s = tmp_path / "s.json"
    s.write_text(
        json.dumps(
            {
                "format": "gossipcert-schedule/1",
                "rounds": [
                    [
                        {"from": "alice", "to": ["bob"], "packets": "all"},
                        {"from": "bob", "to": ["alice"], "packets": "all"},
                    ],
                    [
                        {"from": "carol", "to": ["alice"], "packets": "all"},
                        {"from": "alice", "to": ["carol"], "packets": "all"},
                    ],
                    [{"from": "carol", "to": ["bob"], "packets": ["carol"]}],
                ],
            }
        )
    )
    code, out, err = run("verify", str(g), str(s), "--json")
    assert code == 0, (out, err)
    assert json.loads(out)["rounds"] == 3


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["graph", "hypercub:3"], "unknown graph family"),
        (["graph", "ring:x"], "ring"),
        (["graph", "missing.edgelist"], "missing.edgelist"),
        (["verify", "ring:4", "nope.json"], "nope.json"),
        (["solve", "ring:4", "-m", "telefone"], "unknown model 'telefone'"),
        (["solve", "ring:4", "-p", "gosip"], "unknown problem 'gosip'"),
        (["solve", "ring:4", "-p", "broadcast:9"], "9"),
        (["solve", "ring:4", "-q", "-b", "foo"], "unknown back-end 'foo'"),
        (["solve", "ring:4", "-q", "-o", "/nonexistent/dir/c.json"], "does not exist"),
        (["solve", "ring:4", "-m", "telephone:tau=nan"], "finite"),
        (["export", "ring:4", "-r", "2", "-f", "xml"], "unknown format 'xml'"),
        (["export", "ring:5", "-r", "99999999"], "ask for fewer rounds"),
        (["solve", "ring:4", "-q", "-o", ""], "output file name is empty"),
        (["solve", "ring:4", "--tau", "2"], "--tau only applies with --objective steps or cost"),
        (["solve", "ring:4", "--max-rounds", "5", "--h", "2"], "--max-rounds and --h only apply"),
        (["solve", "ring:4", "--cube-store", "d"], "--cube-store only applies with --split"),
        (["solve", "ring:4", "--scheduler", "tcp://x:1"], "--scheduler only applies with --split"),
        (["solve", "ring:4", "--split-depth", "2"], "--split-depth only applies with --split"),
        (["solve", "ring:4", "-j", "2"], "--jobs only applies with --split or --portfolio"),
        (
            ["solve", "ring:4", "--objective", "steps", "--split", "--counting"],
            "--split and --counting only apply with --objective rounds",
        ),
        (
            ["solve", "ring:4", "--objective", "cost", "--portfolio", "5", "--resume", "r.json"],
            "--portfolio and --resume only apply with --objective rounds",
        ),
        (["check", "nothing.json"], "nothing.json"),
    ],
)
def test_bad_input_exits_2_with_one_line(args: list[str], needle: str) -> None:
    code, out, err = run(*args)
    assert code == 2, (out, err)
    assert needle in err
    assert "Traceback" not in err + out
    assert len(err.strip().splitlines()) == 1


def test_disconnected_graph_exits_2(tmp_path: Path) -> None:
    g = tmp_path / "two.edgelist"
    g.write_text("0 1\n2 3\n")
    code, _, err = run("solve", str(g))
    assert code == 2 and "disconnected" in err


@pytest.mark.parametrize("problem", ["allreduce", "reduce:0", "reduce-scatter"])
def test_disconnected_graph_exits_2_for_a_reduction(tmp_path: Path, problem: str) -> None:
    # every component holds a contribution to every chunk, but not all of them
    g = tmp_path / "two.edgelist"
    g.write_text("0 1\n2 3\n")
    code, out, err = run("solve", str(g), "--model", "single-port", "--problem", problem)
    assert code == 2 and "disconnected" in err and "another component" in err, err
    assert "Traceback" not in err + out


def test_schedule_naming_a_missing_node_or_edge_exits_2(tmp_path: Path) -> None:
    s = tmp_path / "s.json"
    s.write_text(json.dumps({"rounds": [[{"from": 0, "to": [9], "packets": "all"}]]}))
    code, _, err = run("verify", "ring:4", str(s))
    assert code == 2 and "node 9 does not exist" in err
    s.write_text(json.dumps({"rounds": [[{"from": 0, "to": [2], "packets": "all"}]]}))
    code, _, err = run("verify", "ring:4", str(s))
    assert code == 2 and "not its neighbour" in err


def test_malformed_schedule_exits_2(tmp_path: Path) -> None:
    s = tmp_path / "s.json"
    s.write_text("{not json")
    code, _, err = run("verify", "ring:4", str(s))
    assert code == 2 and "not valid JSON" in err


def test_solve_json_and_certificate_roundtrip(tmp_path: Path) -> None:
    cert = tmp_path / "cert.json"
    code, out, err = run("solve", "ring:7", "--json", "-q", "-o", str(cert))
    assert code == 0, err
    data = json.loads(out)
    assert data["status"] == "optimal" and data["optimum"] == 5
    assert data["lower_bound"] == data["upper_bound"] == 5
    assert data["evidence"]["kind"] in ("drat", "closed-form")
    assert len(data["schedule"]["rounds"]) == 5
    code, out, _ = run("check", str(cert))
    assert code == 0 and "certificate holds" in out
    # nothing the user gave is overwritten
    code, _, err = run("solve", "ring:7", "-q", "-o", str(cert))
    assert code == 2 and "exists" in err


def test_check_fails_on_a_tampered_certificate(tmp_path: Path) -> None:
    cert = tmp_path / "cert.json"
    assert run("solve", "ring:9", "-q", "-o", str(cert))[0] == 0
    data = json.loads(cert.read_text())
    data["optimum"] -= 1
    cert.write_text(json.dumps(data))
    code, out, _ = run("check", str(cert))
    assert code == 1 and "FAILS" in out


def test_export_writes_dimacs(tmp_path: Path) -> None:
    out = tmp_path / "f.cnf"
    code, _, err = run("export", "ring:5", "-r", "3", "-o", str(out))
    assert code == 0, err
    assert "p cnf" in out.read_text()


def test_help_teaches() -> None:
    code, out, _ = run("solve", "--help")
    assert code == 0
    for word in ["--backend", "--time-limit", "--strict", "telephone", "gossip"]:
        assert word in out


def test_console_script_no_traceback() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "gossipcert.cli", "graph", "pancake:x"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr and "pancake" in proc.stderr


def test_bounds_json_marks_the_best() -> None:
    code, out, _ = run("bounds", "ring:9", "--json")
    data = json.loads(out)
    assert code == 0 and data["lower_bound"] >= 5
    best = [b for b in data["bounds"] if b["best"] and b["kind"] == "lower"]
    assert best and best[0]["value"] == data["lower_bound"]
    assert all({"kind", "value", "source", "name"} <= b.keys() for b in data["bounds"])


@pytest.mark.parametrize(
    ("args", "rounds"),
    [
        (["pancake:4", "-a", "matching-sequence"], 5),
        (["butterfly:3", "-a", "matching-sequence", "--sequence", "012320"], 6),
        (["ring:7", "-a", "ring-hd", "-m", "half-duplex:p=1"], 14),
        (["ring:6", "-a", "ring-fd", "-m", "single-port:p=1"], 5),
        (["ring:6", "-a", "ring-multicast", "-m", "multicast"], 5),
        (["torus:4x4", "-a", "rows-columns"], 4),
    ],
)
def test_construct_json(args: list[str], rounds: int) -> None:
    code, out, err = run("construct", *args, "--json")
    assert code == 0, err
    data = json.loads(out)
    assert data["valid"] and data["complete"] and data["rounds"] == rounds
    assert data["algorithm"] == args[2]
    assert len(data["schedule"]["rounds"]) == rounds


def test_construct_not_applicable_exits_2() -> None:
    code, _, err = run("construct", "ring:5", "-a", "bermond", "-m", "telephone")
    assert code == 2 and "sequential" in err
    code, _, err = run("construct", "ring:5", "-a", "quicksort")
    assert code == 2 and "unknown construction 'quicksort'" in err and "bermond" in err


def test_heuristic_writes_a_schedule_that_verify_accepts(tmp_path: Path) -> None:
    out = tmp_path / "h.json"
    code, _, err = run("heuristic", "ccc:3", "-o", str(out))
    assert code == 0, err
    code, text, _ = run("verify", "ccc:3", str(out), "--json")
    assert code == 0 and json.loads(text)["rounds"] >= 7


def test_solve_other_models_by_bounds_and_constructions() -> None:
    code, out, _ = run("solve", "ring:8", "-m", "single-port:p=1", "-q", "--json")
    data = json.loads(out)
    assert code == 0 and data["status"] == "optimal" and data["optimum"] == 7
    assert data["evidence"]["kind"] == "closed-form"
    # all-port: a node of the Petersen graph receives at most 3 packets a round (the cut
    # around it), and 3 rounds suffice
    code, out, _ = run("solve", "petersen", "-m", "all-port", "-q", "--json")
    data = json.loads(out)
    assert code == 0 and data["status"] == "optimal" and data["optimum"] == 3
    assert data["lower_bound"] == 3
    # all-port with a call limit has no encoding: bounds only, the upper one from the
    # universal construction
    code, out, _ = run("solve", "petersen", "-m", "all-port:calls=2", "-q", "--json")
    data = json.loads(out)
    assert code == 1 and data["status"] == "feasible" and data["optimum"] is None
    assert data["lower_bound"] == 3 and data["upper_bound"] > 3
    assert data["schedule_source"] == "gather-spread"


def test_solve_multicast_petersen_in_n_minus_one_steps() -> None:
    # Gonzalez: the Petersen graph gossips in n - 1 = 9 steps, one message per step
    code, out, _ = run("solve", "petersen", "-m", "multicast", "-q", "--json")
    data = json.loads(out)
    assert code == 0 and data["status"] == "optimal" and data["optimum"] == 9


def test_text_that_looks_like_markup_is_printed_verbatim(tmp_path: Path) -> None:
    s = tmp_path / "s.json"
    s.write_text(json.dumps({"rounds": [[{"from": "[/x]", "to": [1], "packets": "all"}]]}))
    code, _, err = run("verify", "ring:4", str(s))
    assert code == 2 and "[/x]" in err


def test_labels_that_look_like_numbers_stay_labels(tmp_path: Path) -> None:
    g = tmp_path / "g.edgelist"
    g.write_text("007 a\na b\nb 7\n")
    s = tmp_path / "s.csv"
    s.write_text("round,from,to,packets\n1,007,a,all\n2,a,b,all\n3,b,7,all\n")
    code, out, err = run("verify", str(g), str(s), "-p", "broadcast:007", "--json")
    assert code == 0, (out, err)
    assert json.loads(out)["rounds"] == 3
    # from the node labelled 7 the same schedule is not a broadcast at all
    code, out, _ = run("verify", str(g), str(s), "-p", "broadcast:7", "--json")
    assert code == 1


def test_construct_writes_only_verified_schedules(tmp_path: Path) -> None:
    out = tmp_path / "seq.json"
    code, _, _ = run(
        "construct", "pancake:4", "-a", "matching-sequence", "--sequence", "0", "-o", str(out)
    )
    assert code == 1 and not out.exists()  # one matching does not gossip
    code, _, _ = run("construct", "pancake:4", "-a", "matching-sequence", "-o", str(out))
    assert code == 0 and out.exists()


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (("solve", "ring:4", "-m", "multicast:calls=0"), "calls must be at least 1"),
        (("solve", "ring:4", "-m", "telephone:p=0"), "p must be at least 1"),
        (("solve", "ring:4", "--objective", "cost", "--max-rounds", "4"), "needs --tau"),
        (("solve", "ring:4", "--objective", "steps"), "needs --max-rounds"),
        (("solve", "ring:4", "--objective", "speed", "--max-rounds", "4"), "unknown objective"),
    ],
)
def test_bad_packet_model_input(args: tuple[str, ...], words: str) -> None:
    code, _, err = run(*args)
    assert code == 2 and words in err and "Traceback" not in err


@pytest.mark.parametrize(
    ("graph", "model", "optimum"),
    [("path:4", "single-port", 5), ("complete:4", "sequential:p=1", 6), ("path:4", "multicast", 4)],
)
def test_packet_model_certificate_round_trip(
    tmp_path: Path, graph: str, model: str, optimum: int
) -> None:
    cert = tmp_path / "c.json"
    code, out, err = run("solve", graph, "-m", model, "-q", "--json", "-o", str(cert))
    assert code == 0, err
    assert json.loads(out)["optimum"] == optimum
    code, out, _ = run("check", str(cert), "--json")
    assert code == 0 and json.loads(out)["ok"]


def test_export_packet_model() -> None:
    code, out, _ = run("export", "path:3", "-m", "telephone:p=1", "--rounds", "3")
    assert code == 0 and "p cnf" in out
    code, out, _ = run("export", "path:3", "-m", "multicast", "--rounds", "2", "-f", "opb")
    assert code == 0 and "#variable=" in out


def test_solve_steps_front() -> None:
    code, out, err = run(
        "solve", "path:3", "--objective", "cost", "--tau", "1", "--max-rounds", "4", "--json"
    )
    assert code == 0, err
    data = json.loads(out)
    assert data["round_optimum"] == 3 and data["proved"]
    assert [(p["rounds"], p["steps"]) for p in data["points"]] == [(3, 4), (4, 4)]
    assert data["min_cost"] == 7 and data["min_cost_rounds"] == 3


def test_solve_steps_front_stops_where_it_becomes_constant() -> None:
    # each R up to --max-rounds was solved (40 rounds took 80 s); from R = 4 on, S = 4
    code, out, err = run("solve", "path:3", "--objective", "steps", "--max-rounds", "12")
    assert code == 0, err
    assert "S = 4 for every R from 4 to 12: proved at R = 4" in out
    assert out.count("│ 4 │") == 2  # the rows R = 3 and R = 4 only
