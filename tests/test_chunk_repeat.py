"""A schedule for K' chunks run K / K' times serves K chunks: verified, a R' rounds."""

from __future__ import annotations

import pytest

from gossipcert.constructions import machines
from gossipcert.constructions.catalog import (
    construct,
    specific_candidates,
    upper_bound_candidates,
)
from gossipcert.constructions.chunk_repeat import (
    chunk_instance,
    repeat_chunks,
    repeated_schedule,
)
from gossipcert.errors import NotApplicableError
from gossipcert.instance import parse_instance
from gossipcert.search.entry import solve
from gossipcert.search.reversal import dual_instance, reduction_from_dual
from gossipcert.simulate import simulate

GRAPHS = ("path:4", "ring:5", "star:4", "complete:4", "petersen")
PROBLEMS = ("broadcast:0", "gossip", "scatter:0", "gather:0", "total-exchange")
MODELS = ("telephone", "half-duplex", "single-port", "all-port", "multicast")


@pytest.mark.parametrize("graph", GRAPHS)
@pytest.mark.parametrize("problem", PROBLEMS)
@pytest.mark.parametrize("model", MODELS)
def test_gather_spread_repeated_verifies_in_a_times_its_rounds(
    graph: str, problem: str, model: str
) -> None:
    for small, big in ((1, 2), (1, 3), (2, 4), (2, 6)):
        inst = parse_instance(
            graph, model, f"{problem}{',' if ':' in problem else ':'}chunks={big}"
        )
        sub = chunk_instance(inst, small)
        sched = construct(sub, "gather-spread")
        rep = simulate(sub, sched)
        assert rep.ok
        rounds = rep.rounds
        assert rounds is not None
        cut = type(sched)(sched.rounds[:rounds])
        out = repeat_chunks(inst, sub, cut)
        got = simulate(inst, out)
        assert got.ok, (graph, problem, model, small, big, got.errors[:1])
        assert len(out) == (big // small) * rounds
        # every copy is needed: the last round of the last copy still delivers
        assert got.rounds == len(out)


@pytest.mark.parametrize("graph", ("ring:4", "path:3", "star:3"))
@pytest.mark.parametrize("model", ("telephone", "single-port", "all-port"))
def test_optimal_sub_schedules_with_all_packets_repeated(graph: str, model: str) -> None:
    # the exact search's schedules send "all" the sender knows: spelled out per copy
    for problem in ("gossip", "broadcast:0"):
        sep = "," if ":" in problem else ":"
        inst = parse_instance(graph, model, f"{problem}{sep}chunks=3")
        sub = chunk_instance(inst, 1)
        res = solve(sub)
        assert res.schedule is not None and res.optimum is not None
        out = repeat_chunks(inst, sub, res.schedule)
        assert simulate(inst, out).ok and len(out) == 3 * res.optimum


def test_reduce_scatter_gets_the_repetition_by_reversal() -> None:
    red = parse_instance("ring:5", "all-port", "reduce-scatter:chunks=4")
    dual = dual_instance(red)
    sub = chunk_instance(dual, 2)
    sched = construct(sub, "gather-spread")
    rounds = simulate(sub, sched).rounds
    gossip = repeat_chunks(dual, sub, sched)
    out = reduction_from_dual(dual, gossip, red)
    assert simulate(red, out).ok and len(out) == 2 * rounds


def test_refused_for_a_reduction_another_problem_or_a_non_divisor() -> None:
    inst = parse_instance("ring:4", "all-port", "gossip:chunks=4")
    sched = construct(chunk_instance(inst, 3), "gather-spread")
    with pytest.raises(NotApplicableError):
        repeat_chunks(inst, chunk_instance(inst, 3), sched)
    other = parse_instance("ring:4", "all-port", "broadcast:0,chunks=2")
    with pytest.raises(NotApplicableError):
        repeat_chunks(inst, other, construct(other, "gather-spread"))
    red = parse_instance("ring:4", "all-port", "reduce-scatter:chunks=2")
    with pytest.raises(NotApplicableError):
        repeat_chunks(
            red, chunk_instance(red, 1), construct(chunk_instance(red, 1), "gather-spread")
        )
    with pytest.raises(NotApplicableError):
        repeated_schedule(parse_instance("ring:4", "all-port", "gossip"), specific_candidates)


def test_repeated_schedule_takes_the_largest_divisor_a_construction_serves() -> None:
    inst = parse_instance("ring:6", "all-port", "gossip:chunks=6")
    name, sched = repeated_schedule(inst, specific_candidates)
    sub = chunk_instance(inst, 3)
    best = min(simulate(sub, s).rounds for _, s in specific_candidates(sub))
    assert name.startswith("chunk-repeat (2 x 3 chunks: ")
    assert simulate(inst, sched).ok and len(sched) == 2 * best


def test_solve_offers_it_where_no_construction_for_many_chunks_applies(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # the machine pipeline made to serve dgx1 with 2 chunks a GPU, not with 4
    inst = parse_instance("dgx1", "all-port", "gossip:chunks=4")
    two_chunks = sum(bin(d).count("1") for d in chunk_instance(inst, 2).demands)
    monkeypatch.setattr(machines, "MAX_DEMANDS", two_chunks)
    names = [name for name, _ in upper_bound_candidates(inst)]
    assert names[-1] == "gather-spread" and "machine-pipeline" not in names
    repeats = [n for n in names if n.startswith("chunk-repeat")]
    assert repeats and repeats[0].startswith("chunk-repeat (2 x 2 chunks: machine-pipeline")
    two = simulate(chunk_instance(inst, 2), construct(chunk_instance(inst, 2), "machine-pipeline"))
    sched = dict(upper_bound_candidates(inst))[repeats[0]]
    assert simulate(inst, sched).ok and len(sched) == 2 * two.rounds
