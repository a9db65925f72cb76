"""SCCL's (steps, rounds, chunks) model: against gossipcert's all-port optimum when every step
takes one round, on a case checked by hand, and on SCCL's own DGX-1 claims."""

from __future__ import annotations

import pytest

import gossipcert
from gossipcert.errors import UnsupportedModelError
from gossipcert.formats.sccl_model import decide_sccl
from gossipcert.instance import parse_instance


@pytest.mark.parametrize(
    ("graph", "problem"),
    [
        ("ring:5", "gossip"),
        ("path:4", "gossip:chunks=2"),
        ("star:4", "total-exchange"),
        ("dgx1", "total-exchange"),
        ("ring:4", "broadcast:0"),
    ],
)
def test_one_round_steps_are_the_all_port_model(graph: str, problem: str) -> None:
    """With R = S every step is one round: the least S is gossipcert's certified all-port
    optimum (link capacities as SCCL's bandwidths)."""
    res = gossipcert.solve(graph, "all-port", problem)
    assert res.optimum is not None
    inst = parse_instance(graph, "all-port", problem)
    opt = res.optimum
    if opt > 1:
        assert decide_sccl(inst, opt - 1, opt - 1, seconds=300).status == "unsat"
    found = decide_sccl(inst, opt, opt, seconds=300)
    assert found.status == "sat" and found.report is not None
    assert found.report.valid and found.report.complete and found.report.rounds <= opt


def test_a_step_of_two_rounds_carries_twice() -> None:
    """Two GPUs on one link of bandwidth 1, two chunks each: one step needs two rounds, and a
    chunk received in a step is not sent on in it."""
    inst = parse_instance("path:2", "all-port", "gossip:chunks=2")
    assert decide_sccl(inst, 1, 1).status == "unsat"
    two = decide_sccl(inst, 1, 2)
    assert two.status == "sat" and two.step_rounds == (2,)
    three = parse_instance("path:3", "all-port", "gossip")
    # the end GPUs' chunks must cross the middle: one step cannot do it, whatever its rounds
    assert decide_sccl(three, 1, 4).status == "unsat"
    assert decide_sccl(three, 2, 2).status == "sat"


def test_sccls_dgx1_allgather_claims() -> None:
    """SCCL's SYNTHESIS.md: (2 steps, 3 rounds, 2 chunks) synthesized, (2, 4, 3) not."""
    two = decide_sccl(parse_instance("dgx1", "all-port", "gossip:chunks=2"), 2, 3)
    assert two.status == "sat" and sum(two.step_rounds) <= 3
    assert two.report is not None and two.report.valid and two.report.complete
    three = decide_sccl(parse_instance("dgx1", "all-port", "gossip:chunks=3"), 2, 4)
    assert three.status == "unsat" and "verified" in three.proof


def test_refused() -> None:
    with pytest.raises(UnsupportedModelError, match="copy collectives"):
        decide_sccl(parse_instance("ring:4", "all-port", "allreduce"), 2, 2)
    with pytest.raises(UnsupportedModelError, match="steps <= rounds"):
        decide_sccl(parse_instance("ring:4", "all-port", "gossip"), 3, 2)
    with pytest.raises(UnsupportedModelError, match="copy collectives"):
        decide_sccl(parse_instance("ring:4", "telephone", "gossip"), 3, 3)
