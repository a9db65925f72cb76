"""Rooted collectives (reduce:r, broadcast:r) written as MSCCL XML and read back: the same
rounds, the root found again from the data flow, the buffers NCCL's calls allow; the CLI's
solve, export, verify; what stays refused."""

from __future__ import annotations

import json

import pytest

from gossipcert import graphs
from gossipcert.cli import main
from gossipcert.errors import FormatError
from gossipcert.formats.msccl_xml import parse_msccl_xml
from gossipcert.formats.replay import replay, root_candidates
from gossipcert.formats.timing import Timing
from gossipcert.formats.verdict import (
    reduction_schedule_from_transfers,
    schedule_from_transfers,
)
from gossipcert.formats.writers import msccl_xml_from_schedule, sccl_json_from_schedule
from gossipcert.instance import parse_instance
from gossipcert.schedule import Schedule, Transmission
from gossipcert.simulate import simulate
from gossipcert.watchdog import solve_within

TOPOLOGIES = [("ring:5", "all-port"), ("hub:4", "single-port"), ("fully-connected:4", "all-port"),
              ("dgx1", "all-port")]  # fmt: skip


def _cases():
    for graph, model in TOPOLOGIES:
        for problem in ("reduce:1", "broadcast:2", "reduce:0"):
            for chunks in (1, 2):
                spec = problem + (",chunks=2" if chunks == 2 else "")
                yield pytest.param(graph, model, spec, id=f"{graph}-{spec}")


def _steps(algo):
    return [(gpu.id, st) for gpu in algo.gpus for tb in gpu.tbs for st in tb.steps]


@pytest.mark.parametrize(("graph", "model", "problem"), list(_cases()))
def test_round_trip(graph, model, problem):
    instance = parse_instance(graph, model, problem)
    res = solve_within(instance, time_limit=10, proof=False)
    assert res.status == "optimal" and res.schedule is not None
    algo = parse_msccl_xml(msccl_xml_from_schedule(res.schedule, instance))
    root = int(problem.split(":")[1].split(",")[0])
    k = instance.problem.chunks
    assert algo.coll == problem.split(":")[0] and algo.nchunksperloop == k
    assert algo.inplace and algo.outofplace  # right however the ranks pass their buffers
    result = replay(algo)  # replays both modes and checks the root's (or every) output
    assert result.valid and result.semantics, [f.message for f in result.findings[:3]]
    assert result.root == root == graphs.processors(instance.graph).index(root)
    assert result.rounds == len(res.schedule) == res.optimum
    steps = _steps(algo)
    if algo.coll == "reduce":  # sendbuff is const; recvbuff is the root's only
        assert not any(st.dstbuf == "i" for _, st in steps if st.kind in ("r", "cpy", "re"))
        assert {r for r, st in steps if st.kind in ("cpy", "re") and st.dstbuf == "o"} == {root}
        assert {"s", "r", "re"} <= {st.kind for _, st in steps}
        convert = reduction_schedule_from_transfers
    else:  # sendbuff is the root's only
        assert {r for r, st in steps if st.kind in ("s", "cpy") and st.srcbuf == "i"} == {root}
        convert = schedule_from_transfers
    back = convert(instance, result.transfers, graphs.processors(instance.graph))
    rep = simulate(instance, back)
    assert rep.ok and rep.rounds == res.optimum, [e.message for e in rep.errors[:3]]


def _reduce_xml(problem: str = "reduce:2") -> str:
    # path 0 - 1 - 2 - 3 towards root 2: 0 -> 1 and 3 -> 2, then 1 -> 2
    instance = parse_instance("path:4", "all-port", problem)
    schedule = Schedule(
        (
            (Transmission(0, (1,), 1, "reduce"), Transmission(3, (2,), 1, "reduce")),
            (Transmission(1, (2,), 1, "reduce"),),
        )
    )
    return msccl_xml_from_schedule(schedule, instance)


def test_reduce_file_by_hand():
    algo = parse_msccl_xml(_reduce_xml())
    assert root_candidates(algo) == [2, 0, 1, 3]
    kinds = {r: [st.kind for tb in algo.gpus[r].tbs for st in tb.steps] for r in range(4)}
    # 1 starts an accumulator in scratch from its input, folds 0's partial, sends it on;
    # the root starts its output from its input and folds 3's, then 1's partial
    assert sorted(kinds[1]) == ["cpy", "r", "re", "s"]
    assert sorted(kinds[2]) == ["cpy", "r", "r", "re", "re"]
    assert kinds[0] == kinds[3] == ["s"]
    send = next(st for tb in algo.gpus[1].tbs for st in tb.steps if st.kind == "s")
    assert send.srcbuf == "s"  # the accumulator, not the input
    result = replay(algo)
    assert result.valid and result.rounds == 2 and result.root == 2


@pytest.mark.parametrize(
    ("old", "new", "rule"),
    [
        # the root does not start its output from its own input: out of place, its first
        # fold reads an output slot nothing wrote
        ('type="cpy" srcbuf="i" srcoff="0" dstbuf="o"',
         'type="nop" srcbuf="i" srcoff="0" dstbuf="o"', "unwritten-read"),
        # rank 1 receives 0's partial into its accumulator's slot, then folds an empty one
        ('type="r" srcbuf="s" srcoff="0" dstbuf="s" dstoff="0"',
         'type="r" srcbuf="s" srcoff="1" dstbuf="s" dstoff="1"', "unwritten-read"),
        # the root never folds 1's partial in: its output lacks 0's and 1's contributions
        ('type="re" srcbuf="s" srcoff="1" dstbuf="o"',
         'type="nop" srcbuf="s" srcoff="1" dstbuf="o"', "wrong-result"),
    ],
)  # fmt: skip
def test_broken_reduce_is_reported(old, new, rule):
    text = _reduce_xml()
    assert old in text
    result = replay(parse_msccl_xml(text.replace(old, new, 1)))
    assert not result.valid and result.root == 2
    assert rule in {f.rule for f in result.findings}, [f.message for f in result.findings]


def test_broadcast_root_sends_after_its_copy():
    instance = parse_instance("path:3", "all-port", "broadcast:0")
    schedule = Schedule(((Transmission(0, (1,), 1),), (Transmission(1, (2,), 1),)))
    algo = parse_msccl_xml(msccl_xml_from_schedule(schedule, instance))
    root = algo.gpus[0]
    copy = next(tb for tb in root.tbs if tb.send == tb.recv == -1)
    assert [(st.kind, st.srcbuf, st.dstbuf, st.hasdep) for st in copy.steps] == [
        ("cpy", "i", "o", 1)
    ]
    send = next(st for tb in root.tbs for st in tb.steps if st.kind == "s")
    assert (send.srcbuf, send.depid) == ("i", copy.id)  # in place, the copy is i -> i
    assert all(st.srcbuf != "i" for r in (1, 2) for tb in algo.gpus[r].tbs for st in tb.steps)
    result = replay(algo)
    assert result.valid and result.rounds == 2 and result.root == 0
    # without that dependency the in-place replay sees the copy race with the send
    text = msccl_xml_from_schedule(schedule, instance)
    racy = replay(parse_msccl_xml(text.replace('depid="0" deps="0"', 'depid="-1" deps="-1"', 1)))
    assert "race" in {f.rule for f in racy.findings}


def test_allreduce_fold_waits_for_earlier_sends():
    # a rank sends its partial of a chunk, and later receives the total into the same slot:
    # the write must wait for that send (it reads the slot), not only for sends of its round
    instance = parse_instance("ring:4", "all-port", "allreduce")
    res = solve_within(instance, time_limit=10, proof=False)
    algo = parse_msccl_xml(msccl_xml_from_schedule(res.schedule, instance))
    timing = Timing(algo, [])
    value, _ = timing.rounds([])
    checked = 0
    for gpu in algo.gpus:
        sends = [(tb.id, st) for tb in gpu.tbs for st in tb.steps if st.kind == "s"]
        for tb in gpu.tbs:
            if tb.send != -1 or tb.recv != -1:
                continue
            waited = {(st.depid, st.deps) for st in tb.steps if st.kind == "nop"}
            for st in tb.steps:
                if st.kind not in ("cpy", "re"):
                    continue
                write = value[timing.first[(gpu.id, tb.id, st.index)]]
                for bid, send in sends:
                    sent = value[timing.first[(gpu.id, bid, send.index)]]
                    if send.srcoff == st.dstoff and sent is not None and sent < write:
                        assert (bid, send.index) in waited
                        checked += 1
    assert checked > 0


def test_refusals():
    two = parse_instance("ring:4", "all-port", "broadcast:0,2")
    res = solve_within(two, time_limit=10, proof=False)
    with pytest.raises(FormatError, match="one root"):
        msccl_xml_from_schedule(res.schedule, two)
    scatter = parse_instance("ring:4", "all-port", "scatter:0")
    res = solve_within(scatter, time_limit=10, proof=False)
    with pytest.raises(FormatError, match="written: gossip as allgather"):
        msccl_xml_from_schedule(res.schedule, scatter)
    for problem, reason in (("reduce:0", "no combining step"), ("broadcast:0", "not broadcast")):
        instance = parse_instance("ring:4", "all-port", problem)
        res = solve_within(instance, time_limit=10, proof=False)
        with pytest.raises(FormatError, match=reason):
            sccl_json_from_schedule(res.schedule, instance)


def _run(capsys, args):
    with pytest.raises(SystemExit) as info:
        main(args)
    out = capsys.readouterr()
    return info.value.code, out.out, out.err


def _cli_cases():
    for graph, model in TOPOLOGIES:
        for problem in ("reduce:1", "broadcast:2"):
            for chunks in (1, 2):
                spec = problem + (",chunks=2" if chunks == 2 else "")
                yield pytest.param(graph, model, spec, id=f"{graph}-{spec}")


@pytest.mark.parametrize(("graph", "model", "problem"), list(_cli_cases()))
def test_cli_solve_export_verify(tmp_path, capsys, graph, model, problem):
    cert = tmp_path / "cert.json"
    code, _, _ = _run(capsys, ["solve", graph, "-m", model, "-p", problem, "-q", "-o",
                               str(cert)])  # fmt: skip
    assert code == 0
    rounds = json.loads(cert.read_text())["optimum"]
    xml = tmp_path / "algo.xml"
    code, _, _ = _run(capsys, ["export", str(cert), "--format", "msccl-xml", "-o", str(xml)])
    assert code == 0
    code, out, _ = _run(
        capsys, ["verify", "--from", "msccl-xml", str(xml), "--topology", graph, "--json"]
    )
    data = json.loads(out)
    assert code == 0 and data["valid"] and data["fits_model"] and data["result_checked"]
    assert data["problem"] == problem and data["model"].split(":")[0] == model
    assert data["rounds"] == rounds and data["optimum"]["optimum"] == rounds
    assert data["gap"] == {"exact": 0}
    if problem.startswith("broadcast"):
        assert data["verifier"]["valid"] and data["verifier"]["rounds"] == rounds
