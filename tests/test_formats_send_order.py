"""MSCCL XML of schedules whose GPUs send several chunks a round in the point-to-point
models (telephone calls carrying several chunks, single-port with two ports, multicast):
read back in as many rounds as the schedule; chunks received twice; and the loader's rules
the writers must keep (a chain of nops ends in a step with a dependency, fewer than 72
chunks a step)."""

from __future__ import annotations

import pytest

from gossipcert import graphs
from gossipcert.errors import FormatError
from gossipcert.formats.msccl_xml import parse_msccl_xml
from gossipcert.formats.replay import replay
from gossipcert.formats.verdict import schedule_from_transfers
from gossipcert.formats.writers import msccl_xml_from_schedule
from gossipcert.instance import parse_instance
from gossipcert.schedule import Schedule, Transmission
from gossipcert.simulate import simulate
from gossipcert.watchdog import solve_within

CASES = [
    ("ring:6", "telephone", "gossip:chunks=2", 3),
    ("ring:6", "telephone", "allreduce", 3),
    ("complete:6", "single-port:p=2", "gossip", 3),
    ("complete:4", "single-port:p=2", "allreduce:chunks=2", 6),
    ("complete:6", "single-port:p=2", "reduce:4,chunks=2", 3),
    ("ring:6", "telephone", "reduce:0,chunks=2", 3),
    ("ring:8", "telephone", "broadcast:3", 4),
    ("ring:8", "multicast", "broadcast:3,chunks=2", 5),
]


@pytest.mark.parametrize(("graph", "model", "problem", "optimum"), CASES)
def test_several_sends_a_round_keep_their_rounds(graph, model, problem, optimum):
    instance = parse_instance(graph, model, problem)
    res = solve_within(instance, time_limit=20, proof=False)
    assert res.status == "optimal" and res.optimum == optimum
    algo = parse_msccl_xml(msccl_xml_from_schedule(res.schedule, instance))
    result = replay(algo)
    assert result.valid and result.semantics, [f.message for f in result.findings[:3]]
    assert result.rounds == optimum
    # the copies again as a schedule (a multicast reads back as several unicast sends, and
    # a call's two directions of partial results are the replay's to check: it did)
    if model != "multicast" and not instance.problem.reduction:
        back = schedule_from_transfers(
            instance, result.transfers, graphs.processors(instance.graph)
        )
        rep = simulate(instance, back)
        assert rep.ok and rep.rounds == optimum, [e.message for e in rep.errors[:3]]


def test_gate_waits_for_every_send_of_the_round():
    # two chunks a rank, one transmission of both a round: 0 -> 1 -> 2 -> 0, then back
    instance = parse_instance("complete:3", "single-port:p=2", "gossip:chunks=2")
    schedule = Schedule(
        (
            (Transmission(0, (1,), 0b11), Transmission(1, (2,), 0b1100),
             Transmission(2, (0,), 0b110000)),
            (Transmission(0, (2,), 0b11), Transmission(1, (0,), 0b1100),
             Transmission(2, (1,), 0b110000)),
        )
    )  # fmt: skip
    algo = parse_msccl_xml(msccl_xml_from_schedule(schedule, instance))
    gpu = algo.gpus[0]
    gate = next(tb for tb in gpu.tbs if tb.send == tb.recv == -1)
    assert [(st.kind, st.cnt, st.hasdep) for st in gate.steps] == [("nop", 0, 0), ("cpy", 0, 1)]
    first = {(tb.id, st.index) for tb in gpu.tbs if tb.send == 1 for st in tb.steps}
    assert {(st.depid, st.deps) for st in gate.steps} == first  # both sends of round 1
    second = [st for tb in gpu.tbs if tb.send == 2 for st in tb.steps]
    assert len(second) == 2 and all((st.depid, st.deps) == (gate.id, 1) for st in second)
    result = replay(algo)
    assert result.valid and result.rounds == 2
    assert [(t.round, t.receiver) for t in result.transfers if t.sender == 0] == [
        (1, 1), (1, 1), (2, 2), (2, 2)
    ]  # fmt: skip


def test_a_chunk_received_again_goes_to_scratch():
    instance = parse_instance("complete:3", "all-port", "gossip")
    schedule = Schedule(
        (
            (Transmission(0, (1, 2), 1), Transmission(1, (0, 2), 2), Transmission(2, (0, 1), 4)),
            (Transmission(0, (1,), 2),),  # 1's own chunk, back to it
        )
    )
    algo = parse_msccl_xml(msccl_xml_from_schedule(schedule, instance))
    recvs = [(st.dstbuf, st.dstoff) for tb in algo.gpus[1].tbs for st in tb.steps
             if st.kind == "r"]  # fmt: skip
    assert sorted(recvs) == [("o", 0), ("o", 2), ("s", 0)] and algo.gpus[1].s_chunks == 1
    result = replay(algo)
    assert result.valid and result.rounds == 2


def test_broadcast_of_many_chunks_copies_in_steps_the_loader_takes():
    instance = parse_instance("path:2", "all-port", "broadcast:0,chunks=150")
    schedule = Schedule(tuple((Transmission(0, (1,), 1 << i),) for i in range(150)))
    algo = parse_msccl_xml(msccl_xml_from_schedule(schedule, instance))
    copies = [st.cnt for tb in algo.gpus[0].tbs for st in tb.steps if st.kind == "cpy"]
    assert copies == [71, 71, 8]
    result = replay(algo)
    assert result.valid and result.rounds == 150


HEAD = (
    '<algo name="t" proto="Simple" nchannels="1" nchunksperloop="2" ngpus="2" coll="allreduce" '
    'inplace="1" outofplace="0" minBytes="0" maxBytes="0">'
)


def _two_ranks(local: str, cnt: int = 1) -> str:
    """Rank 0 sends i[0] to 1; rank 1 receives it into s[0] and runs ``local`` steps."""
    step = ('<step s="{}" type="{}" srcbuf="{}" srcoff="{}" dstbuf="{}" dstoff="{}" cnt="{}" '
            'depid="{}" deps="{}" hasdep="{}"/>')  # fmt: skip
    return (
        HEAD + '<gpu id="0" i_chunks="2" o_chunks="2" s_chunks="0"><tb id="0" send="1" recv="-1" '
        'chan="0">' + step.format(0, "s", "i", 0, "i", 0, cnt, -1, -1, 0) + "</tb></gpu>"
        '<gpu id="1" i_chunks="2" o_chunks="2" s_chunks="1"><tb id="0" send="-1" recv="0" '
        'chan="0">' + step.format(0, "r", "s", 0, "s", 0, cnt, -1, -1, 1) + "</tb>"
        '<tb id="1" send="-1" recv="-1" chan="0">' + local.format(step=step) + "</tb></gpu></algo>"
    )


def test_loader_rule_nops_end_in_a_step_with_a_dependency():
    nop = '<step s="0" type="nop" srcbuf="i" srcoff="-1" dstbuf="o" dstoff="-1" cnt="0" ' \
          'depid="0" deps="0" hasdep="0"/>'  # fmt: skip
    bad = nop + '<step s="1" type="re" srcbuf="s" srcoff="0" dstbuf="i" dstoff="0" cnt="1" ' \
                'depid="-1" deps="-1" hasdep="0"/>'  # fmt: skip
    with pytest.raises(FormatError, match="chain of nops"):
        parse_msccl_xml(_two_ranks(bad))
    good = nop + '<step s="1" type="re" srcbuf="s" srcoff="0" dstbuf="i" dstoff="0" cnt="1" ' \
                 'depid="0" deps="0" hasdep="0"/>'  # fmt: skip
    assert replay(parse_msccl_xml(_two_ranks(good))).rounds == 1
    # a re fused into the reduction before it would run before the nop's dependency (the
    # fused transmission runs where its first step stands): refused
    fused = (
        '<step s="0" type="re" srcbuf="s" srcoff="0" dstbuf="i" dstoff="0" cnt="1" depid="0" '
        'deps="0" hasdep="0"/>' + nop.replace('s="0"', 's="1"', 1)
        + '<step s="2" type="re" srcbuf="s" srcoff="0" dstbuf="i" dstoff="0" cnt="1" '
        'depid="-1" deps="-1" hasdep="0"/>'
    )  # fmt: skip
    with pytest.raises(FormatError, match="runs before the dependency of the nop"):
        parse_msccl_xml(_two_ranks(fused))


def test_loader_rule_fewer_than_72_chunks_a_step():
    with pytest.raises(FormatError, match="MSCCL_MAX_COUNT"):
        parse_msccl_xml(_two_ranks("", cnt=72).replace('i_chunks="2"', 'i_chunks="80"'))
