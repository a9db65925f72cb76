"""Reductions (reduce, reduce-scatter, allreduce): problem specs, the ``op`` of a
transmission in schedule files, and the verifier's rules for partial results."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from gossipcert.cli import app
from gossipcert.errors import ScheduleFormatError, SpecError
from gossipcert.instance import parse_instance, parse_problem, with_redop
from gossipcert.schedule import (
    Schedule,
    Transmission,
    from_csv,
    from_json,
    to_csv,
    to_json,
    write_schedule,
)
from gossipcert.simulate import simulate

runner = CliRunner()


def tr(u: int, to: int | list[int], chunks: list[int] | None, op: str = "reduce") -> Transmission:
    receivers = (to,) if isinstance(to, int) else tuple(to)
    return Transmission(u, receivers, None if chunks is None else sum(1 << c for c in chunks), op)


def sched(*rounds: list[Transmission]) -> Schedule:
    return Schedule(tuple(tuple(r) for r in rounds))


def messages(rep: object) -> list[str]:
    return [e.message for e in rep.errors]  # type: ignore[attr-defined]


# ----------------------------------------------------------------------------- specs


@pytest.mark.parametrize(
    "spec",
    [
        "reduce:0",
        "reduce:0,chunks=2",
        "reduce-scatter:chunks=2",
        "allreduce:chunks=2",
        "allreduce:redop=max",
        "reduce:3,chunks=2,redop=max",
    ],
)
def test_reduction_specs_round_trip(spec: str) -> None:
    assert parse_problem(spec).spec() == spec


def test_library_names_and_default_redop() -> None:
    assert parse_problem("reduce_scatter").spec() == "reduce-scatter"
    assert parse_problem("reducescatter:chunks=3").spec() == "reduce-scatter:chunks=3"
    assert parse_problem("allreduce:redop=sum").spec() == "allreduce"
    assert parse_problem("allreduce").redop == "sum"


@pytest.mark.parametrize(
    "spec", ["gossip:redop=max", "allreduce:redop=min", "reduce", "reduce:0,1", "allreduce:0"]
)
def test_bad_reduction_specs(spec: str) -> None:
    with pytest.raises(SpecError):
        parse_problem(spec)


def test_with_redop() -> None:
    assert with_redop(parse_problem("allreduce"), "max").spec() == "allreduce:redop=max"
    with pytest.raises(SpecError):
        with_redop(parse_problem("gossip"), "max")
    with pytest.raises(SpecError):
        with_redop(parse_problem("allreduce:redop=max"), "sum")


def test_reduction_instances() -> None:
    red = parse_instance("ring:4", "telephone", "reduce:2,chunks=2")
    assert red.packet_names == ((2, 0), (2, 1))
    assert red.holdings == (3, 3, 3, 3) and red.demands == (0, 0, 3, 0)
    rs = parse_instance("ring:3", "telephone", "reduce-scatter")
    assert rs.holdings == (7, 7, 7) and rs.demands == (1, 2, 4)
    ar = parse_instance("ring:3", "telephone", "allreduce:chunks=2")
    assert ar.n_packets == 6 and ar.demands == (63, 63, 63)
    assert ar.describe()["redop"] == "sum"


# ----------------------------------------------------------------------------- verifier


def test_reduce_along_a_path() -> None:
    inst = parse_instance("path:3", "telephone", "reduce:0")
    rep = simulate(inst, sched([tr(2, 1, [0])], [tr(1, 0, [0])]))
    assert rep.ok and rep.rounds == 2 and not rep.missing


def test_double_count_is_named() -> None:
    inst = parse_instance("path:3", "telephone", "reduce:0")
    bad = sched([tr(2, 1, [0])], [tr(1, 2, [0])])
    rep = simulate(inst, bad)
    assert not rep.valid
    assert messages(rep) == [
        "round 2: node 2 combines chunk 0 holding rank 2's contribution twice (from 1)"
    ]
    assert rep.errors[0].rule == "double-count" and rep.errors[0].nodes == (2, 1, 2)
    # max is idempotent: the same combination is no violation
    assert simulate(parse_instance("path:3", "telephone", "reduce:0,redop=max"), bad).valid


def test_every_shared_contribution_is_a_violation() -> None:
    inst = parse_instance("path:3", "telephone", "allreduce")
    # 0 and 2 fold everything into 1, which then sends its sum back to 2 to be combined
    rounds = [[tr(0, 1, [0, 1, 2])], [tr(2, 1, [0, 1, 2])], [tr(1, 2, [1])]]
    rep = simulate(inst, sched(*rounds))
    assert sorted(messages(rep)) == [
        "round 3: node 2 combines chunk 1 holding rank 2's contribution twice (from 1)"
    ]
    rounds[2] = [tr(1, 2, [1], "copy")]
    rep = simulate(inst, sched(*rounds))
    assert rep.valid and not rep.complete
    assert rep.incomplete(inst)[0] == (
        "after round 3 node 0 holds chunk 0 without rank 1's contribution"
    )


def test_incomplete_result_names_node_chunk_and_rank() -> None:
    inst = parse_instance("path:3", "telephone", "reduce:0")
    # the copy replaces node 0's own contribution
    rep = simulate(inst, sched([tr(2, 1, [0])], [tr(1, 0, [0], "copy")]))
    assert rep.valid and not rep.complete and rep.rounds is None
    assert rep.missing == [(0, 0, 0)] and rep.unmet == [(0, 0)]
    assert rep.incomplete(inst) == [
        "after round 2 node 0 holds chunk 0 without rank 0's contribution"
    ]
    data = rep.to_json(inst)
    assert data["missing"] == [{"node": 0, "chunk": 0, "contribution": 0}]


def test_chunk_names_in_messages() -> None:
    inst = parse_instance("path:2", "telephone", "reduce-scatter:chunks=2")
    # chunk (0, 1) is bit 1; only chunk (0, 0) arrives
    rep = simulate(inst, sched([tr(1, 0, [0])]))
    assert rep.incomplete(inst) == [
        "after round 1 node 0 holds chunk (0, 1) without rank 1's contribution",
        "after round 1 node 1 holds chunk (1, 0) without rank 0's contribution",
        "after round 1 node 1 holds chunk (1, 1) without rank 0's contribution",
    ]


def test_two_copies_at_once() -> None:
    inst = parse_instance("path:3", "all-port", "reduce:1")
    rep = simulate(inst, sched([tr(0, 1, [0], "copy"), tr(2, 1, [0], "copy")]))
    assert [e.rule for e in rep.errors] == ["copied-twice"]


def test_all_port_combines_several_receipts() -> None:
    inst = parse_instance("star:4", "all-port", "reduce:0")
    rep = simulate(inst, sched([tr(v, 0, [0]) for v in (1, 2, 3)]))
    assert rep.ok and rep.rounds == 1
    # under telephone the same round breaks the port rule, as for any transmission
    inst = parse_instance("star:4", "telephone", "reduce:0")
    rep = simulate(inst, sched([tr(v, 0, [0]) for v in (1, 2, 3)]))
    assert [e.rule for e in rep.errors] == ["two-calls"]


def test_partials_are_read_before_the_round() -> None:
    # an exchange: each side combines the other's partial as it was before the round
    inst = parse_instance("path:2", "telephone", "allreduce")
    rep = simulate(inst, sched([tr(0, 1, None), tr(1, 0, None)]))
    assert rep.ok and rep.rounds == 1


def test_sending_a_chunk_held_by_nobody() -> None:
    inst = parse_instance("fattree:4", "all-port", "reduce:0")
    router = next(v for v in inst.graph if inst.holdings[v] == 0)
    nbr = next(iter(inst.graph.adj[router]))
    rep = simulate(inst, sched([tr(router, nbr, [0])]))
    assert rep.errors[0].rule == "unknown-packet"
    assert "holds no partial result yet" in rep.errors[0].message


def test_reduce_op_outside_a_reduction() -> None:
    inst = parse_instance("path:2", "telephone", "gossip")
    rep = simulate(inst, sched([tr(0, 1, None), tr(1, 0, None)]))
    assert [e.rule for e in rep.errors] == ["reduce-op", "reduce-op"]
    assert rep.complete
    assert simulate(inst, sched([tr(0, 1, None, "copy"), tr(1, 0, None, "copy")])).ok


# ----------------------------------------------------------------------------- files


def test_json_and_csv_keep_the_op(tmp_path: Path) -> None:
    inst = parse_instance("path:3", "telephone", "reduce:0,chunks=2")
    s = sched([tr(2, 1, [0, 1])], [tr(1, 0, [0], "copy"), tr(0, 1, [1])])
    data = to_json(s, inst)
    assert data["rounds"][0][0] == {
        "from": 2,
        "to": [1],
        "packets": [[0, 0], [0, 1]],
        "op": "reduce",
    }
    assert "op" not in data["rounds"][1][0]
    assert from_json(json.loads(json.dumps(data)), inst) == s
    text = to_csv(s, inst)
    assert text.splitlines()[0] == "round,from,to,packets,op"
    assert from_csv(text, inst) == s
    with pytest.raises(ScheduleFormatError):
        from_json({"rounds": [[{"from": 2, "to": [1], "packets": "all", "op": "sum"}]]}, inst)


def test_files_without_op_read_unchanged() -> None:
    inst = parse_instance("path:2", "telephone", "gossip")
    data = {
        "rounds": [[{"from": 0, "to": [1], "packets": [0]}, {"from": 1, "to": [0], "packets": [1]}]]
    }
    s = from_json(data, inst)
    assert all(t.op == "copy" for t in s.rounds[0])
    assert to_json(s, inst)["rounds"] == data["rounds"]
    assert to_csv(s, inst).splitlines()[0] == "round,from,to,packets"


def test_cli_verify_names_the_double_count(tmp_path: Path) -> None:
    inst = parse_instance("path:3", "telephone", "reduce:0")
    path = tmp_path / "s.json"
    write_schedule(sched([tr(2, 1, [0])], [tr(1, 2, [0])]), inst, path)
    res = runner.invoke(app, ["verify", "path:3", str(path), "-p", "reduce:0"])
    assert res.exit_code == 1
    assert "node 2 combines chunk 0 holding rank 2's contribution twice" in res.stdout
    res = runner.invoke(app, ["verify", "path:3", str(path), "-p", "reduce:0", "--redop", "max"])
    assert res.exit_code == 1 and "twice" not in res.stdout
    assert "without rank 1's contribution" in res.stdout
    res = runner.invoke(app, ["verify", "path:3", str(path), "-p", "gossip", "--redop", "max"])
    assert res.exit_code == 2


@pytest.mark.parametrize(
    "args",
    [
        ["bounds", "ring:6", "-p", "reduce:0"],
        ["export", "ring:6", "-p", "allreduce", "--rounds", "3", "--format", "dimacs"],
        ["heuristic", "ring:6", "-p", "allreduce"],
        ["solve", "ring:4", "-p", "reduce:0", "--objective", "steps"],
    ],
)
def test_commands_for_copy_problems_refuse_reductions(args: list[str]) -> None:
    res = runner.invoke(app, args)
    assert res.exit_code == 2 and "covers the copy problems only" in res.stderr


def test_cli_solve_and_check_a_reduction(tmp_path: Path) -> None:
    cert = tmp_path / "c.json"
    args = ["solve", "ring:6", "-p", "reduce-scatter", "--redop", "max", "-o", str(cert)]
    res = runner.invoke(app, [*args, "--json", "-q"])
    assert res.exit_code == 0
    data = json.loads(res.stdout)
    assert (data["problem"], data["optimum"], data["certified"]) == (
        "reduce-scatter:redop=max",
        3,
        True,
    )
    assert data["evidence"]["kind"] == "reversal" and data["evidence"]["dual_problem"] == "gossip"
    assert {t.get("op") for r in data["schedule"]["rounds"] for t in r} == {"reduce"}
    res = runner.invoke(app, ["check", str(cert)])
    assert res.exit_code == 0 and "run backwards solves reduce-scatter:redop=max" in res.stdout
    res = runner.invoke(app, ["verify", "ring:6", str(cert)])
    assert res.exit_code == 0
