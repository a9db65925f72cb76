"""Models of exported formulas, found by a solver outside gossipcert, read back as schedules."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from pysat.formula import CNF
from pysat.solvers import Solver
from typer.testing import CliRunner

from gossipcert.cli import app
from gossipcert.encodings import EncodingOptions
from gossipcert.errors import SolverOutputError, SpecError
from gossipcert.instance import parse_instance
from gossipcert.schedule import read_schedule
from gossipcert.search.entry import solve
from gossipcert.simulate import simulate
from gossipcert.solvers.export import decode_model, export, parse_solver_output

runner = CliRunner()


def outside_solver(dimacs: str) -> str:
    """What a SAT-competition solver prints for a DIMACS text: the status, and the model in
    ``v`` lines of ten literals."""
    with Solver(name="minisat22", bootstrap_with=CNF(from_string=dimacs).clauses) as s:
        if not s.solve():
            return "c outside solver\ns UNSATISFIABLE\n"
        model = s.get_model()
    lines = ["c outside solver", "s SATISFIABLE"]
    lines += ["v " + " ".join(map(str, model[i : i + 10])) for i in range(0, len(model), 10)]
    return "\n".join(lines) + "\nv 0\n"


def first_satisfiable(graph: str, model: str, problem: str, options: EncodingOptions):
    """The least horizon whose exported formula the outside solver satisfies, and its
    output."""
    inst = parse_instance(graph, model, problem)
    for rounds in range(1, 13):
        out = outside_solver(export(inst, rounds, "dimacs", options))
        if "s SATISFIABLE" in out:
            return inst, rounds, out
    raise AssertionError(f"{graph} {model} {problem}: no horizon up to 12 satisfiable")


# one case per encoding: knowledge (telephone, half-duplex), broadcast, per-packet transfer
# (packet cap, multicast, sequential), all-port with capacities, tree
CASES = [
    ("ring:5", "telephone", "gossip"),
    ("petersen", "telephone", "gossip"),
    ("path:4", "half-duplex", "gossip"),
    ("path:4", "half-duplex:p=1", "gossip"),
    ("ring:4", "single-port:p=1", "gossip"),
    ("hypercube:3", "telephone", "broadcast:0"),
    ("ring:4", "telephone:p=1", "gossip"),
    ("path:3", "multicast", "gossip"),
    ("ring:4", "sequential:p=2", "gossip"),
    ("ring:5", "all-port", "gossip"),
    ("path:4", "all-port", "gossip"),
]


@pytest.mark.parametrize("strict", [False, True])
@pytest.mark.parametrize(("graph", "model", "problem"), CASES)
def test_a_model_of_the_export_decodes_to_a_verified_schedule(
    graph: str, model: str, problem: str, strict: bool
) -> None:
    options = EncodingOptions.for_search(strict=strict)
    inst, rounds, out = first_satisfiable(graph, model, problem, options)
    # the outside solver's least horizon is the certified optimum
    assert rounds == solve(inst, strict=strict, proof=False).optimum
    sched = decode_model(inst, rounds, options, parse_solver_output(out))
    rep = simulate(inst, sched)
    assert rep.ok, rep.errors[:3]
    assert rep.rounds == rounds


def test_values_that_are_no_model_are_caught_by_the_verifier() -> None:
    options = EncodingOptions.for_search()
    inst = parse_instance("petersen", "telephone", "gossip")
    rng = random.Random(5)
    for _ in range(5):
        values = {v: rng.random() < 0.5 for v in range(1, 140)}
        assert not simulate(inst, decode_model(inst, 4, options, values)).ok
    with pytest.raises(SolverOutputError, match="was it exported for another"):
        decode_model(parse_instance("ring:4", "telephone", "gossip"), 2, options, {500: True})


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("s SATISFIABLE\nv 1 -2 3\nv -4 0\n", {1: True, 2: False, 3: True, 4: False}),
        ("SAT\n1 -2 3 0\n", {1: True, 2: False, 3: True}),  # MiniSat's result file
        ("c comment\nc\no 3\ns OPTIMUM FOUND\nv x1 -x2 ~x3\n", {1: True, 2: False, 3: False}),
        ("\n  v 5 0  \nv\n", {5: True}),
        ("\ufeffs\tSATISFIABLE\r\nv\t1 -2 \r\nc\tdone\r\n", {1: True, 2: False}),
    ],
)
def test_solver_output_formats(text: str, expected: dict[int, bool]) -> None:
    assert parse_solver_output(text) == expected


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("s UNSATISFIABLE\n", "no model to decode"),
        ("UNSAT\n", "no model to decode"),
        ("s UNKNOWN\n", "no model to decode"),
        ("c nothing\n", "no literals"),
        ("s SATISFIABLE\nv 1 -1 0\n", "both values"),
        ("s SATISFIABLE\nv 1 two 0\n", "line 2: 'two' is not a literal"),
        ("schedule,0,1\n", "not a literal"),
        ("s UNSUPPORTED\n", "the solver answered 'UNSUPPORTED'"),
        ("v " + "9" * 5000 + " 0\n", "is not a literal"),
        ("v \u0661 0\n", "is not a literal"),  # an Arabic-Indic digit one
    ],
)
def test_solver_output_without_a_model_is_refused(text: str, message: str) -> None:
    with pytest.raises(SolverOutputError, match=message):
        parse_solver_output(text)


def test_cli_export_then_decode(tmp_path: Path) -> None:
    cnf, out, sched = tmp_path / "p.cnf", tmp_path / "p.out", tmp_path / "p.json"
    res = runner.invoke(app, ["export", "petersen", "-r", "4", "-o", str(cnf)])
    assert res.exit_code == 0, res.stderr
    out.write_text(outside_solver(cnf.read_text()))
    res = runner.invoke(app, ["decode", "petersen", str(out), "-r", "4", "-o", str(sched)])
    assert res.exit_code == 0, res.stderr
    assert "valid; 4 rounds" in res.stdout
    inst = parse_instance("petersen", "telephone", "gossip")
    assert simulate(inst, read_schedule(sched, inst)).ok
    # the written schedule is kept unless --force
    before = sched.read_text()
    res = runner.invoke(app, ["decode", "petersen", str(out), "-r", "4", "-o", str(sched)])
    assert res.exit_code == 2 and sched.read_text() == before
    # values that are no model: the verifier rejects the schedule, nothing is written
    rng = random.Random(1)
    out.write_text("v " + " ".join(str(v if rng.random() < 0.5 else -v) for v in range(1, 99)))
    other = tmp_path / "q.json"
    res = runner.invoke(
        app, ["decode", "petersen", str(out), "-r", "4", "-o", str(other), "--json"]
    )
    assert res.exit_code == 1 and not other.exists()
    assert json.loads(res.stdout)["valid"] is False


def test_cli_decode_refuses_an_unsat_answer(tmp_path: Path) -> None:
    cnf, out = tmp_path / "p.cnf", tmp_path / "p.out"
    runner.invoke(app, ["export", "petersen", "-r", "3", "-o", str(cnf)])
    out.write_text(outside_solver(cnf.read_text()))
    res = runner.invoke(app, ["decode", "petersen", str(out), "-r", "3"])
    assert res.exit_code == 2
    assert "no model to decode" in res.stderr
    res = runner.invoke(app, ["decode", "petersen", str(tmp_path / "missing.out"), "-r", "3"])
    assert res.exit_code == 2 and "cannot read" in res.stderr


@pytest.mark.parametrize(
    ("graph", "instance", "options"),
    [
        ("ring:5", [], ["--strict"]),
        ("path:4", ["-m", "half-duplex"], ["--counting"]),
        ("ring:4", ["-m", "telephone:p=1"], ["--chunks", "2"]),
        ("hypercube:3", ["-p", "broadcast:0,5"], ["--strict", "--counting"]),
    ],
)
def test_cli_decode_takes_the_options_of_the_export(
    tmp_path: Path, graph: str, instance: list[str], options: list[str]
) -> None:
    cnf, out = tmp_path / "f.cnf", tmp_path / "f.out"
    for rounds in range(1, 9):
        res = runner.invoke(
            app,
            ["export", graph, "-r", str(rounds), "-o", str(cnf), "--force", *instance, *options],
        )
        assert res.exit_code == 0, res.stderr
        text = outside_solver(cnf.read_text())
        if "s SATISFIABLE" in text:
            break
    out.write_text(text)
    args = ["decode", graph, str(out), "-r", str(rounds), "--json", *instance]
    res = runner.invoke(app, args + options)
    assert res.exit_code == 0, res.stdout
    assert json.loads(res.stdout)["rounds"] == rounds
    if options != ["--strict"]:
        # decoded without the export's options, the model describes another formula
        # (``--strict`` alone keeps the numbering of ring:5's call variables)
        res = runner.invoke(app, args)
        assert res.exit_code in (1, 2), res.stdout
    # with --formula the file itself is compared: it passes with the export's options and
    # is refused without them, even where the call variables keep their numbering
    res = runner.invoke(app, [*args, *options, "--formula", str(cnf)])
    assert res.exit_code == 0, res.stderr
    res = runner.invoke(app, [*args, "--formula", str(cnf)])
    assert res.exit_code == 2
    assert "is not the one export writes" in res.stderr


def test_a_pseudo_boolean_model_decodes_like_the_cnf_one() -> None:
    """The OPB file numbers the encoding's variables as DIMACS does; a model given only on
    them (``v x1 -x2 ...``, as a pseudo-Boolean solver prints it) decodes alike."""
    options = EncodingOptions.for_search()
    inst, rounds, out = first_satisfiable("petersen", "telephone", "gossip", options)
    opb = export(inst, rounds, "opb", options)
    in_opb = {int(t.lstrip("~")[1:]) for t in opb.split() if t.lstrip("~").startswith("x")}
    values = parse_solver_output(out)
    text = "s OPTIMUM FOUND\nv " + " ".join(
        f"{'' if values.get(v, False) else '-'}x{v}" for v in sorted(in_opb)
    )
    sched = decode_model(inst, rounds, options, parse_solver_output(text))
    assert sched == decode_model(inst, rounds, options, values)
    assert simulate(inst, sched).ok


def test_cli_decode_checks_the_formula_file(tmp_path: Path) -> None:
    """--formula compares the exported file with the formula of the arguments given: the
    same export passes (CNF and OPB, CRLF line ends too); another horizon, a changed clause
    or another instance is refused with exit 2 and the sizes of both; nothing is written."""
    cnf, opb, out = tmp_path / "f.cnf", tmp_path / "f.opb", tmp_path / "f.out"
    sched = tmp_path / "s.json"
    for path, fmt in ((cnf, "dimacs"), (opb, "opb")):
        res = runner.invoke(app, ["export", "petersen", "-r", "4", "-f", fmt, "-o", str(path)])
        assert res.exit_code == 0, res.stderr
    out.write_text(outside_solver(cnf.read_text()))
    base = ["decode", "petersen", str(out), "-r", "4"]
    for path in (cnf, opb):
        res = runner.invoke(app, [*base, "--formula", str(path)])
        assert res.exit_code == 0, res.stderr
    crlf = tmp_path / "crlf.cnf"
    crlf.write_bytes(cnf.read_text().replace("\n", "\r\n").encode())
    assert runner.invoke(app, [*base, "--formula", str(crlf)]).exit_code == 0
    res = runner.invoke(app, [*base[:-1], "5", "--formula", str(cnf), "-o", str(sched)])
    assert res.exit_code == 2 and not sched.exists()
    assert "is not the one export writes" in res.stderr and "p cnf" in res.stderr
    changed = tmp_path / "changed.cnf"
    lines = cnf.read_text().splitlines()
    k = max(i for i, line in enumerate(lines) if len(line.split()) > 2 and line[0] not in "cp")
    lines[k] = " ".join(reversed(lines[k].split()[:-1])) + " 0"  # the same clause, reordered
    changed.write_text("\n".join(lines) + "\n")
    res = runner.invoke(app, [*base, "--formula", str(changed)])
    assert res.exit_code == 2 and "is not the one export writes" in res.stderr
    res = runner.invoke(app, ["decode", "ring:10", str(out), "-r", "4", "--formula", str(cnf)])
    assert res.exit_code == 2 and "ring:10" in res.stderr
    res = runner.invoke(app, [*base, "--formula", str(tmp_path / "missing.cnf")])
    assert res.exit_code == 2 and "cannot read" in res.stderr
    # comments (the header names the graph as it was written) and spacing are not compared
    spaced = tmp_path / "spaced.cnf"
    fresh = cnf.read_text().splitlines()
    spaced.write_text("\n".join(line.replace(" ", "\t") + "  " for line in fresh) + "\n\n")
    assert runner.invoke(app, [*base, "--formula", str(spaced)]).exit_code == 0


def test_cli_decode_formula_written_under_another_name(tmp_path: Path) -> None:
    """The same formula, exported under another name of the same graph or model, passes."""
    cnf, out = tmp_path / "r.cnf", tmp_path / "r.out"
    args = ["ring:6", "-r", "3", "-p", "broadcast:0"]
    res = runner.invoke(app, ["export", *args, "-m", "telephone", "-o", str(cnf)])
    assert res.exit_code == 0
    out.write_text(outside_solver(cnf.read_text()))
    res = runner.invoke(
        app, ["decode", "ring:6", str(out), *args[1:], "-m", "telephone:p=1", "--formula", str(cnf)]
    )
    assert res.exit_code == 0, res.stderr
    edges = tmp_path / "ring6.edgelist"
    edges.write_text("".join(f"{i} {(i + 1) % 6}\n" for i in range(6)))
    res = runner.invoke(app, ["export", str(edges), *args[1:], "-o", str(cnf), "--force"])
    assert res.exit_code == 0
    res = runner.invoke(
        app, ["decode", str(edges.resolve()), str(out), *args[1:], "--formula", str(cnf)]
    )
    assert res.exit_code == 0, res.stderr


def test_decode_refuses_a_horizon_too_large_to_export() -> None:
    inst = parse_instance("petersen", "telephone", "gossip")
    with pytest.raises(SpecError, match="ask for fewer rounds"):
        decode_model(inst, 100000, EncodingOptions.for_search(), {1: True})
