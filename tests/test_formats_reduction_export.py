"""Reduction schedules written as MSCCL XML and read back; the CLI's solve, export, verify."""

from __future__ import annotations

import json

import pytest

from gossipcert import graphs
from gossipcert.cli import main
from gossipcert.errors import FormatError
from gossipcert.formats.msccl_xml import parse_msccl_xml
from gossipcert.formats.replay import replay
from gossipcert.formats.verdict import (
    reduction_schedule_from_transfers,
    schedule_from_transfers,
)
from gossipcert.formats.writers import msccl_xml_from_schedule, sccl_json_from_schedule
from gossipcert.instance import parse_instance
from gossipcert.simulate import simulate
from gossipcert.watchdog import solve_within

TOPOLOGIES = [("ring:5", "all-port"), ("hub:4", "single-port"), ("fully-connected:4", "all-port"),
              ("dgx1", "all-port")]  # fmt: skip
PROBLEMS = ["gossip", "total-exchange", "reduce-scatter", "allreduce"]
#: solved to optimality in seconds: others get a shorter search (a schedule with slack)
QUICK = {"allreduce:chunks=2": {"fully-connected:4"}}


def _cases():
    for graph, model in TOPOLOGIES:
        for problem in PROBLEMS:
            for chunks in (1, 2):
                spec = problem + (":chunks=2" if chunks == 2 else "")
                slow = graph not in QUICK.get(spec, {graph})
                marks = [pytest.mark.slow] if slow else []
                yield pytest.param(graph, model, spec, marks=marks, id=f"{graph}-{spec}")


@pytest.mark.parametrize(("graph", "model", "problem"), list(_cases()))
def test_round_trip(graph, model, problem):
    instance = parse_instance(graph, model, problem)
    res = solve_within(instance, time_limit=10, proof=False)
    assert res.schedule is not None
    text = msccl_xml_from_schedule(res.schedule, instance)
    algo = parse_msccl_xml(text)
    result = replay(algo)
    assert result.valid and result.semantics, [f.message for f in result.findings[:3]]
    if res.status == "optimal":
        assert result.rounds == len(res.schedule) == res.optimum
    else:  # as soon as possible: never later than the schedule
        assert result.rounds <= len(res.schedule)
    if instance.problem.reduction:
        assert algo.coll in ("allreduce", "reducescatter") and algo.inplace
        kinds = {st.kind for gpu in algo.gpus for tb in gpu.tbs for st in tb.steps}
        assert {"s", "r", "re"} <= kinds
        convert = reduction_schedule_from_transfers
    else:
        convert = schedule_from_transfers
    # and back to a gossipcert schedule the verifier accepts, in as many rounds
    back = convert(instance, result.transfers, graphs.processors(instance.graph))
    rep = simulate(instance, back)
    assert rep.ok, [e.message for e in rep.errors[:3]]
    assert rep.rounds == result.rounds


def test_sccl_json_refuses_reductions():
    instance = parse_instance("ring:4", "all-port", "allreduce")
    res = solve_within(instance, time_limit=10, proof=False)
    with pytest.raises(FormatError, match="no combining step"):
        sccl_json_from_schedule(res.schedule, instance)


def test_a_double_count_is_not_written():
    # two ranks fold each other's partial in, then 0 sends its total back to 1 to combine
    from gossipcert.schedule import Schedule, Transmission

    instance = parse_instance("complete:2", "all-port", "allreduce")
    bad = Schedule(
        (
            (Transmission(0, (1,), 0b11, "reduce"), Transmission(1, (0,), 0b11, "reduce")),
            (Transmission(0, (1,), 0b11, "reduce"),),
        )
    )
    with pytest.raises(FormatError, match="fails the verifier"):
        msccl_xml_from_schedule(bad, instance)


def _run(capsys, args):
    with pytest.raises(SystemExit) as info:
        main(args)
    out = capsys.readouterr()
    return info.value.code, out.out, out.err


@pytest.mark.parametrize(("graph", "problem", "rounds"),
                         [("ring:6", "reduce-scatter", 3), ("dgx1", "allreduce", 4)])  # fmt: skip
def test_cli_solve_export_verify(tmp_path, capsys, graph, problem, rounds):
    cert = tmp_path / "cert.json"
    code, _, _ = _run(capsys, ["solve", graph, "-m", "all-port", "-p", problem, "-q", "-o",
                               str(cert)])  # fmt: skip
    assert code == 0
    xml = tmp_path / "algo.xml"
    code, _, _ = _run(capsys, ["export", str(cert), "--format", "msccl-xml", "-o", str(xml)])
    assert code == 0
    code, out, _ = _run(
        capsys, ["verify", "--from", "msccl-xml", str(xml), "--topology", graph, "--json"]
    )
    data = json.loads(out)
    assert code == 0 and data["valid"] and data["fits_model"]
    assert data["rounds"] == rounds and data["optimum"]["optimum"] == rounds
    assert data["gap"] == {"exact": 0}


@pytest.mark.parametrize(("problem", "fmt"), [("reduce:0", "sccl-json"),
                                           ("broadcast:0,2", "msccl-xml")])  # fmt: skip
def test_cli_export_refusals_are_one_line(tmp_path, capsys, problem, fmt):
    cert = tmp_path / "cert.json"
    code, _, _ = _run(capsys, ["solve", "ring:4", "-p", problem, "-q", "-o", str(cert)])
    assert code == 0
    code, _, err = _run(capsys, ["export", str(cert), "--format", fmt])
    assert code == 2 and "Traceback" not in err
    assert len(err.strip().splitlines()) == 1
