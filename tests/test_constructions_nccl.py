"""NCCL's ring and PAT allgathers (and their reversals, the reduce-scatters) replayed by the
verifier over ranges of sizes, against their closed forms and the certified optima."""

from __future__ import annotations

import pytest

from gossipcert.constructions.nccl import nccl_allgather, pat_messages, ring_messages
from gossipcert.errors import NotApplicableError
from gossipcert.instance import parse_instance
from gossipcert.search.reversal import reduction_from_dual
from gossipcert.simulate import simulate
from gossipcert.watchdog import solve_within


@pytest.mark.parametrize("n", range(2, 18))
def test_every_rank_receives_every_chunk_once(n: int) -> None:
    for messages in (ring_messages(n), pat_messages(n)):
        got = sorted((to, source) for source, _, to in messages)
        assert got == sorted((r, s) for r in range(n) for s in range(n) if r != s)


@pytest.mark.parametrize("n", range(3, 18))
def test_ring_and_pat_closed_forms(n: int) -> None:
    ring = parse_instance(f"ring:{n}", "all-port", "gossip")
    assert simulate(ring, nccl_allgather(ring, "ring")).rounds == n - 1
    hub = parse_instance(f"complete:{n}", "single-port:p=1", "gossip")
    for algorithm in ("ring", "pat"):  # one chunk in a round per GPU: n - 1 receipts
        assert simulate(hub, nccl_allgather(hub, algorithm)).rounds == n - 1
    full = parse_instance(f"complete:{n}", "all-port", "gossip")
    report = simulate(full, nccl_allgather(full, "pat"))
    assert report.ok
    if n & (n - 1) == 0:  # the last dimension carries n / 2 chunks over one link
        assert report.rounds == max(1, n // 2)


@pytest.mark.parametrize("graph", ["ring:6", "complete:6", "complete:5", "dgx2"])
def test_valid_and_never_below_the_optimum(graph: str) -> None:
    for algorithm in ("ring", "pat"):
        inst = parse_instance(graph, "all-port", "gossip")
        sched = nccl_allgather(inst, algorithm)
        report = simulate(inst, sched)
        assert report.ok
        rs = parse_instance(graph, "all-port", "reduce-scatter")
        back = simulate(rs, reduction_from_dual(inst, sched, rs))
        assert back.ok and back.rounds == report.rounds
    if graph != "dgx2":
        best = solve_within(parse_instance(graph, "all-port", "gossip"), time_limit=60)
        assert best.status == "optimal" and best.optimum <= report.rounds


def test_refusals() -> None:
    with pytest.raises(NotApplicableError):
        nccl_allgather(parse_instance("ring:4", "telephone", "gossip"), "ring")
    with pytest.raises(NotApplicableError):
        nccl_allgather(parse_instance("ring:4", "all-port", "gossip"), "tree")
