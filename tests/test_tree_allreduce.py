"""The tree-packing allreduce finder: optima on small graphs, the shape of what it returns,
shapes that cannot fit, and ``solve`` closing a bracket with it."""

from __future__ import annotations

import networkx as nx
import pytest

from gossipcert.errors import NotApplicableError
from gossipcert.finders import tree_intervals
from gossipcert.finders.tree_allreduce import check_applies, pack, shortest_packing
from gossipcert.instance import (
    Instance,
    bits,
    make_instance,
    parse_instance,
    parse_model,
    parse_problem,
)
from gossipcert.search.allreduce_bounds import receipt_bound
from gossipcert.search.allreduce_cut import cut_bound
from gossipcert.search.entry import solve
from gossipcert.simulate import simulate
from tests.reductions_bfs import BruteForce, replay
from tests.test_reductions_bfs import MODELS, chunk_of, labelled


def atlas(index: int, model: str, k: int) -> Instance:
    return make_instance(
        labelled(index), parse_model(MODELS[model]), parse_problem(f"allreduce:chunks={k}")
    )


def brute_force(index: int, model: str, k: int, limit: int) -> int | None:
    g = nx.graph_atlas(index)
    return BruteForce(g.number_of_nodes(), g.edges, model, "allreduce", k, "sum").optimum(limit)


@pytest.mark.parametrize(
    ("index", "model", "k", "optimum", "bound"),
    [
        (6, "all-port", 1, 4, "bfs"),  # the path P_3
        (6, "single-port", 1, 7, "cut"),
        (7, "all-port", 1, 2, "bfs"),  # the triangle
        (7, "single-port", 1, 4, "bfs"),
        (13, "single-port", 1, 14, "cut"),  # the star K_{1,3}
    ],
)
def test_tree_packing_meets_the_optimum(
    index: int, model: str, k: int, optimum: int, bound: str
) -> None:
    """On these the optimum is tree-shaped: the finder packs it, and the breadth-first
    search of every schedule or the cut bound (``N L + L - 1`` at the center) shows that no
    schedule is shorter; in single-port the scheduling model also shows that no tree packing
    is."""
    inst = atlas(index, model, k)
    found = pack(inst, optimum)
    assert found.status == "feasible" and found.rounds == optimum
    if bound == "cut":
        assert cut_bound(inst) == optimum
    else:
        assert brute_force(index, model, k, optimum) == optimum
    if tree_intervals.handles(inst):
        assert pack(inst, optimum - 1).status == "infeasible"


def test_star_with_two_chunks_meets_the_cut_bound() -> None:
    """On the star ``K_{1,3}`` with two chunks in single-port the cut bound ``N L + L - 1 =
    26`` packs (the hub allreduce's rounds, found without being told the hub)."""
    inst = atlas(13, "single-port", 2)
    assert cut_bound(inst) == 26
    found = pack(inst, 26)
    assert found.rounds == 26 and found.schedule is not None
    assert simulate(inst, found.schedule).rounds == 26


def test_a_packing_is_tree_shaped_and_replayed() -> None:
    """Every chunk of a packed schedule: each node sends one reduce or is a root, each
    non-root receives one copy; the verifier accepts the schedule in the rounds asked."""
    inst = parse_instance("ring:5", "all-port", "allreduce:chunks=2")
    bound = receipt_bound(inst)
    assert bound == 8
    found = pack(inst, bound + 1)
    assert found.status == "feasible" and found.schedule is not None
    report = simulate(inst, found.schedule)
    assert report.ok and bound <= report.rounds == found.rounds <= bound + 1
    for c in range(inst.n_packets):
        reduces: dict[int, list[int]] = {v: [] for v in range(inst.n)}
        copies: dict[int, int] = {v: 0 for v in range(inst.n)}
        for rnd in found.schedule.rounds:
            for tr in rnd:
                if tr.packets is not None and tr.packets >> c & 1:
                    if tr.op == "reduce":
                        reduces[tr.sender].append(tr.receivers[0])
                    else:
                        copies[tr.receivers[0]] += 1
        roots = [v for v in range(inst.n) if not reduces[v] or copies[v] == 0]
        assert all(len(r) <= 1 for r in reduces.values())
        assert 1 <= len(roots) <= 2 and all(copies[v] == 0 for v in roots)
        assert all(copies[v] == 1 for v in range(inst.n) if v not in roots)


@pytest.mark.parametrize(
    ("model", "fits", "bound"), [("single-port:p=1", 9, 9), ("half-duplex:p=1", 16, 12)]
)
def test_scheduling_model_agrees_with_time_indexed(model: str, fits: int, bound: int) -> None:
    """Both CP-SAT models of the packing give the same verdicts on the path ``P_4`` with one
    chunk: single-port packs in the cut bound 9; half-duplex (no swaps) in 16 and not 15,
    above the receipts bound 12 (an infeasible packing is no lower bound)."""
    inst = parse_instance("path:4", model, "allreduce")
    assert tree_intervals.handles(inst)
    assert max(cut_bound(inst) or 0, receipt_bound(inst) or 0) == bound
    for scheduling in (False, True):
        assert pack(inst, fits, scheduling=scheduling).rounds == fits
        assert pack(inst, fits - 1, scheduling=scheduling).status == "infeasible"


def test_a_shape_that_cannot_fit_is_infeasible_not_a_bound() -> None:
    """``K_4`` under telephone with unbounded packets takes 2 rounds (recursive doubling,
    not tree-shaped: every node combines twice); no tree packing fits in 2."""
    inst = parse_instance("complete:4", "telephone", "allreduce")
    assert solve(inst).optimum == 2
    assert pack(inst, 2).status == "infeasible"
    assert pack(inst, 3).status == "feasible"


@pytest.mark.slow
def test_solve_closes_a_bracket_with_a_packing() -> None:
    """Atlas 30 (a tree on 5 nodes) in single-port with two chunks: the cut bound is 32 and
    the cheap constructions give 44; the tree packing meets the bound (about 40 s: the
    reduce-scatter and allgather sub-problems take their thirds of the time)."""
    inst = atlas(30, "single-port", 2)
    res = solve(inst, time_limit=60)
    assert (res.status, res.optimum) == ("optimal", 32)
    assert res.evidence["source"] == "cut" and "tree-packing" in res.upper_source
    assert res.report is not None and res.report.ok and res.report.rounds == 32


def test_dgx1_two_chunks_is_five_rounds() -> None:
    """The DGX-1 under all-port with two chunks: the receipts bound 5 (16 chunks, 14
    receipts each, 48 arc slots a round) is met by a tree packing; the composition gives 6."""
    inst = parse_instance("dgx1", "all-port", "allreduce:chunks=2")
    assert receipt_bound(inst) == 5
    res = solve(inst, time_limit=120)
    assert (res.status, res.optimum, res.evidence["source"]) == ("optimal", 5, "receipts")
    assert res.report is not None and res.report.ok


def test_shortest_packing_descends_to_the_cut_bound() -> None:
    """From the receipts bound 6 and a known 12 on the path ``P_4`` in single-port, the
    search ends at the cut bound 9, shown shortest (8 rounds do not pack)."""
    inst = parse_instance("path:4", "single-port:p=1", "allreduce")
    found = shortest_packing(inst, 6, 12, seconds=30, deterministic=True)
    assert (found.status, found.rounds) == ("shortest", 9)
    assert found.schedule is not None and simulate(inst, found.schedule).rounds == 9
    assert shortest_packing(inst, 6, 9, seconds=30, deterministic=True).status == "infeasible"


@pytest.mark.parametrize(
    ("spec", "why"),
    [
        (("ring:4", "multicast", "allreduce"), "multicast"),
        (("ring:4", "single-port", "reduce-scatter"), "solves allreduce"),
        (("ring:4", "telephone:calls=1", "allreduce"), "calls"),
    ],
)
def test_not_applicable(spec: tuple[str, str, str], why: str) -> None:
    with pytest.raises(NotApplicableError, match=why):
        check_applies(parse_instance(*spec))


def test_one_shape_and_a_free_chunk_pack_atlas_35_in_22_rounds() -> None:
    """Atlas 35 (the triangle 0-1-2 with pendants 4 at 0 and 3 at 2), single-port, two
    chunks: ten chunks whose union relaxation refutes 21 rounds. Nine chunks of one shape and
    one free chunk pack into 22 (the shape found: the path 3-2-1-0-4 swapping on 0-1), which
    the verifier and the replay written from the rules accept; ten chunks of one shape do not
    (CP-SAT proves it), so the free chunk is needed.

    Every CP-SAT call here has no limit or a deterministic one (one worker): the verdicts do
    not depend on the machine's speed (with 8 wall-clock seconds, the finder answered
    ``unknown`` on a busy machine)."""
    inst = atlas(35, "single-port", 2)
    assert inst.n_packets == 10
    found = pack(inst, 22, uniform=1)
    assert found.status == "feasible" and found.rounds == 22
    assert found.schedule is not None and simulate(inst, found.schedule).rounds == 22
    # and the replay written from the rules alone, beside the verifier
    names = inst.packet_names
    rounds = [
        [
            (
                t.sender,
                t.receivers,
                [chunk_of(names[c], "allreduce", 2) for c in bits(t.packets)],
                t.op,
            )
            for t in rnd
        ]
        for rnd in found.schedule.rounds
    ]
    g = nx.graph_atlas(35)
    assert replay(5, g.edges, "single-port", "allreduce", 2, "sum", rounds) == 22
    assert pack(inst, 22, uniform=0).status == "infeasible"
    # the finder gets there by itself, from the one-shape packings: ten chunks of one shape
    # (infeasible, about 0.2 units of work), then nine and a free one (about 0.16); a try
    # gets a twelfth of the budget. (From the lower bound 21 it would first spend a quarter
    # of its budget, and at the end the rest, on 21 rounds: a minute of a busy machine.)
    found = shortest_packing(inst, 22, 23, seconds=4, deterministic=True)
    assert (found.status, found.rounds) == ("shortest", 22)
    assert found.schedule is not None and simulate(inst, found.schedule).ok


def test_a_deterministic_budget_gives_the_same_answer_twice() -> None:
    """One worker and a deterministic time limit: the same status and the same work."""
    inst = atlas(35, "single-port", 2)
    runs = [pack(inst, 21, 0.05, deterministic=True) for _ in range(2)]
    assert runs[0].status == runs[1].status == "unknown"
    assert runs[0].work == runs[1].work


@pytest.mark.parametrize(("spec", "model", "fits"), [("path:4", "single-port:p=1", 9)])
@pytest.mark.parametrize("uniform", [0, 1])
def test_both_models_state_the_one_shape_restriction_alike(
    spec: str, model: str, fits: int, uniform: int
) -> None:
    """The time-indexed and the scheduling model of the one-shape packing agree: it fits in
    ``fits`` rounds, not in one fewer."""
    inst = parse_instance(spec, model, "allreduce")
    for scheduling in (False, True):
        found = pack(inst, fits, scheduling=scheduling, uniform=uniform)
        assert found.rounds == fits
        assert pack(inst, fits - 1, scheduling=scheduling, uniform=uniform).status == ("infeasible")


@pytest.mark.parametrize("uniform", [-1, 4])
def test_one_shape_needs_a_chunk_in_the_shape(uniform: int) -> None:
    inst = parse_instance("path:4", "single-port:p=1", "allreduce")
    with pytest.raises(ValueError, match="uniform must be 0 to 3"):
        pack(inst, 9, uniform=uniform)
