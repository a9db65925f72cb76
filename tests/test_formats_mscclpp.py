"""MSCCL++ execution plans: the reader, the replay's judgement of small plans written here and
of their mutants, hostile input, and the writer's plans read back."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from gossipcert.cli import app
from gossipcert.errors import FormatError
from gossipcert.formats.mscclpp_plan import MAX_CHUNKS, parse_mscclpp_plan
from gossipcert.formats.mscclpp_replay import replay_plan
from gossipcert.formats.mscclpp_writer import mscclpp_plan_from_schedule
from gossipcert.formats.verdict import verify_algorithm
from gossipcert.instance import parse_instance
from gossipcert.watchdog import solve_within

Json = dict[str, Any]


def _op(name: str, **kw: Any) -> Json:
    return {"name": name, **kw}


def _loc(buf: str, index: int, size: int = 1) -> Json:
    return {"type": buf, "index": index, "size": size}


def _rem(ref: int, index: int, size: int = 1) -> Json:
    return {"buffer_id": ref, "index": index, "size": size}


def _sync(name: str) -> Json:
    return _op(name, channel_ids=[0], channel_type="memory")


def _plan(collective: str, inplace: bool, gpus: list[Json], protocol: str = "Simple") -> Json:
    return {
        "name": "t",
        "collective": collective,
        "protocol": protocol,
        "inplace": inplace,
        "gpus": gpus,
    }


def _gpu(
    rank: int,
    sizes: tuple[int, int, int],
    peers: list[int],
    remotes: list[tuple[int, str]],
    ops: list[Json],
) -> Json:
    return {
        "id": rank,
        "input_chunks": sizes[0],
        "output_chunks": sizes[1],
        "scratch_chunks": sizes[2],
        "channels": [{"channel_type": "memory", "connected_to": peers}],
        "remote_buffers": [
            {"rank": q, "type": b, "access_channel_types": ["memory"]} for q, b in remotes
        ],
        "threadblocks": [
            {
                "id": 0,
                "ops": ops,
                "channels": [{"channel_type": "memory", "channel_ids": list(range(len(peers)))}],
                "remote_buffer_refs": [
                    {
                        "access_channel_type": "memory",
                        "remote_buffer_ids": list(range(len(remotes))),
                    }
                ],
            }
        ],
    }


def allreduce2() -> Json:
    """Two ranks, in place: rank r reads the peer's chunk r, sums it into its own and puts the
    sum back into the peer (the shape of MSCCL++'s ``rres`` plans, written out)."""
    gpus = []
    for r in range(2):
        ops = [
            _sync("rlxsignal"),
            _sync("rlxwait"),
            _op("nop"),
            _op(
                "rre",
                src_buff=[_loc("i", r), _rem(0, r)],
                dst_buff=[_loc("i", r)],
                channel_type="memory",
            ),
            _op("nop"),
            _op("put", src_buff=[_loc("i", r)], dst_buff=[_rem(0, r)], channel_type="memory"),
            _op("nop"),
            _sync("signal"),
            _sync("wait"),
        ]
        gpus.append(_gpu(r, (2, 2, 0), [1 - r], [(1 - r, "i")], ops))
    return _plan("allreduce", True, gpus)


def allgather2() -> Json:
    """Two ranks, out of place: rank r puts its chunk into the peer's scratch, signals; the
    peer waits and copies it into its output."""
    gpus = []
    for r in range(2):
        ops = [
            _sync("rlxsignal"),
            _sync("rlxwait"),
            _op("nop"),
            _op("put", src_buff=[_loc("i", 0)], dst_buff=[_rem(0, r)], channel_type="memory"),
            _op("copy", src_buff=[_loc("i", 0)], dst_buff=[_loc("o", r)]),
            _op("nop"),
            _sync("signal"),
            _sync("wait"),
            _op("nop"),
            _op("copy", src_buff=[_loc("s", 1 - r)], dst_buff=[_loc("o", 1 - r)]),
        ]
        gpus.append(_gpu(r, (1, 2, 2), [1 - r], [(1 - r, "s")], ops))
    return _plan("allgather", False, gpus)


def _judge(plan: Json) -> tuple[bool, set[str], list[str]]:
    rep = replay_plan(parse_mscclpp_plan(json.dumps(plan)))
    return rep.valid, {f.rule for f in rep.findings}, [f.message for f in rep.findings]


def _ops(plan: Json, rank: int) -> list[Json]:
    return plan["gpus"][rank]["threadblocks"][0]["ops"]


def test_small_plans_are_valid_with_their_rounds() -> None:
    for plan, rounds in ((allreduce2(), 2), (allgather2(), 1)):
        rep = replay_plan(parse_mscclpp_plan(json.dumps(plan)))
        assert rep.valid, [f.message for f in rep.findings]
        assert rep.rounds == rounds


def test_signal_removed_is_a_deadlock() -> None:
    plan = allreduce2()
    del _ops(plan, 0)[7]  # rank 0's last signal
    valid, rules, messages = _judge(plan)
    assert not valid and {"unmatched-wait", "deadlock"} <= rules
    assert any("GPU 1 waits 2 time(s) on the memory connection 0 from GPU 0" in m for m in messages)


def test_signal_before_the_write_it_publishes_is_a_race_naming_both() -> None:
    plan = allgather2()
    ops = _ops(plan, 0)
    ops.insert(3, ops.pop(6))  # rank 0 signals before its put
    valid, rules, messages = _judge(plan)
    assert not valid and "race" in rules
    race = next(m for m in messages if "race" not in m and "reads GPU 1 s[0]" in m)
    assert "GPU 1 thread block 0 copy" in race and "GPU 0 thread block 0 put" in race


def test_wait_without_a_fence_after_it_is_a_race() -> None:
    plan = allgather2()
    del _ops(plan, 1)[8]  # the nop between rank 1's wait and its copy out of scratch
    valid, rules, messages = _judge(plan)
    assert not valid and "race" in rules
    assert any("GPU 1 thread block 0 copy" in m and "written by GPU 0" in m for m in messages)


def test_relaxed_signal_publishes_no_data() -> None:
    plan = allgather2()
    _ops(plan, 0)[6]["name"] = "rlxsignal"
    _ops(plan, 1)[7]["name"] = "rlxwait"
    valid, rules, _ = _judge(plan)
    assert not valid and "race" in rules


def test_put_to_the_wrong_offset_or_rank() -> None:
    plan = allgather2()
    _ops(plan, 0)[3]["dst_buff"][0]["index"] = 1  # into rank 1's s[1], not s[0]
    valid, rules, messages = _judge(plan)
    assert not valid and "unwritten-read" in rules
    assert any("copy" in m and "reads GPU 1 s[0], which nothing has written" in m for m in messages)
    plan = allreduce2()
    plan["gpus"][1]["remote_buffers"][0]["rank"] = 1  # rank 1 reduces with itself
    valid, rules, messages = _judge(plan)
    assert not valid and "double-count" in rules


def test_reduce_applied_twice_is_a_double_count() -> None:
    plan = allreduce2()
    ops = _ops(plan, 0)
    ops[4:4] = [_op("nop"), copy.deepcopy(ops[3])]
    valid, rules, messages = _judge(plan)
    assert not valid and "double-count" in rules
    assert any("both hold {(1, 0)} at GPU 0 i[0]" in m for m in messages)


def test_read_of_a_peer_before_it_started_and_late_write() -> None:
    plan = allreduce2()
    for r in range(2):
        del _ops(plan, r)[0:3]  # no handshake
        del _ops(plan, r)[-2:]  # no final signal and wait
    valid, rules, messages = _judge(plan)
    assert not valid and {"race", "late-write"} <= rules
    assert any("before GPU 1's kernel is known to have started" in m for m in messages)


def test_barrier_semaphore_and_packet_deadlocks() -> None:
    plan = allgather2()
    _ops(plan, 0).insert(0, _op("barrier", barrier_id=0, num_threadblocks=2))
    assert "barrier" in _judge(plan)[1]
    plan = allgather2()
    plan["gpus"][0]["semaphores"] = [{"init_value": 0}]
    _ops(plan, 0).insert(0, _op("sem_acquire", semaphore_ids=[0]))
    valid, rules, _ = _judge(plan)
    assert not valid and {"unmatched-wait", "deadlock"} <= rules
    plan = allgather2()
    _ops(plan, 1)[-1]["name"] = "upkt"  # packets nobody writes
    valid, rules, _ = _judge(plan)
    assert not valid and "packet-never-written" in rules


def test_collective_without_postcondition_is_not_judged() -> None:
    plan = allgather2()
    plan["collective"] = "sendrecv"
    rep = replay_plan(parse_mscclpp_plan(json.dumps(plan)))
    assert not rep.valid and rep.not_judged and not rep.findings


@pytest.mark.parametrize(
    ("text", "needle"),
    [
        ("{", "invalid JSON"),
        ("[" * 100000 + "]" * 100000, "nested too deeply"),
        ('{"name": "x"}', "no 'collective'"),
        (json.dumps({**allgather2(), "inplace": "yes"}), "expected true or false"),
        (json.dumps({**allgather2(), "gpus": []}), "no GPU"),
    ],
)
def test_malformed_plans_are_refused(text: str, needle: str) -> None:
    with pytest.raises(FormatError, match=needle):
        parse_mscclpp_plan(text)


def test_wrong_types_and_huge_counts_are_refused_with_the_limit() -> None:
    plan = allgather2()
    plan["gpus"][0]["scratch_chunks"] = 10**12
    with pytest.raises(FormatError, match=f"outside 0..{MAX_CHUNKS:,}"):
        parse_mscclpp_plan(json.dumps(plan))
    plan = allgather2()
    _ops(plan, 0)[3]["src_buff"][0]["index"] = "0"
    with pytest.raises(FormatError, match=r"ops\[3\]\.src_buff\[0\]\.index: expected an integer"):
        parse_mscclpp_plan(json.dumps(plan))
    plan = allgather2()
    _ops(plan, 0)[0]["name"] = "teleport"
    with pytest.raises(FormatError, match="not one the executor knows"):
        parse_mscclpp_plan(json.dumps(plan))
    plan = allgather2()
    _ops(plan, 0)[6]["channel_ids"] = [3]
    with pytest.raises(FormatError, match="memory channel 3, but the thread block has 1"):
        parse_mscclpp_plan(json.dumps(plan))


@pytest.mark.parametrize(
    ("graph", "model", "problem"),
    [
        ("ring:6", "all-port", "gossip"),
        ("hypercube:3", "telephone", "gossip"),
        ("path:4", "all-port", "gossip:chunks=2"),
        ("complete:4", "all-port", "total-exchange"),
        ("ring:5", "all-port", "total-exchange"),
        ("complete:12", "all-port", "gossip"),
    ],
)
def test_writer_round_trip_keeps_the_rounds(graph: str, model: str, problem: str) -> None:
    inst = parse_instance(graph, model, problem)
    res = solve_within(inst, time_limit=60)
    assert res.status == "optimal"
    rep = replay_plan(parse_mscclpp_plan(mscclpp_plan_from_schedule(res.schedule, inst)))
    assert rep.valid, [f.message for f in rep.findings[:3]]
    assert rep.rounds == res.optimum


def test_verify_and_export_commands(tmp_path: Path) -> None:
    runner = CliRunner()
    good = tmp_path / "good.json"
    good.write_text(json.dumps(allgather2()))
    out = runner.invoke(
        app,
        ["verify", "--from", "mscclpp-plan", str(good), "--topology", "fully-connected:2",
         "--time-limit", "20"],
    )  # fmt: skip
    assert out.exit_code == 0, out.output
    assert "verdict: valid" in out.output and "rounds: 1" in out.output
    bad = allreduce2()
    del _ops(bad, 0)[7]
    (tmp_path / "bad.json").write_text(json.dumps(bad))
    out = runner.invoke(
        app,
        ["verify", "--from", "mscclpp-plan", str(tmp_path / "bad.json"), "--topology",
         "fully-connected:2"],
    )  # fmt: skip
    assert out.exit_code == 1
    (tmp_path / "broken.json").write_text("{")
    out = runner.invoke(app, ["verify", "--from", "mscclpp-plan", str(tmp_path / "broken.json")])
    assert out.exit_code == 2 and len(out.output.strip().splitlines()) == 1
    verdict = verify_algorithm(str(good), "mscclpp-plan", "fully-connected:2", time_limit=20)
    assert verdict.valid and verdict.optimum["optimum"] == 1 and verdict.gap() == {"exact": 0}


def test_export_command_writes_a_plan_that_reads_back(tmp_path: Path) -> None:
    runner = CliRunner()
    cert = tmp_path / "ring-cert.json"
    out = runner.invoke(
        app, ["solve", "ring:6", "--model", "all-port", "--problem", "gossip", "-o", str(cert)]
    )
    assert out.exit_code == 0, out.output
    plan = tmp_path / "ring.json"
    out = runner.invoke(app, ["export", str(cert), "--format", "mscclpp-plan", "-o", str(plan)])
    assert out.exit_code == 0, out.output
    verdict = verify_algorithm(str(plan), "mscclpp-plan", topology="ring:6", time_limit=30)
    assert verdict.valid and verdict.fits and verdict.rounds == 3 and verdict.gap() == {"exact": 0}
    out = runner.invoke(app, ["export", str(cert), "--format", "mscclpp-plan", "-o", str(plan)])
    assert out.exit_code == 2  # an existing file is not overwritten
