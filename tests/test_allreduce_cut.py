"""The cut-vertex bound of allreduce and the hub allreduce: values on stars and paths, the
bound against exact searches on every connected graph of up to 4 nodes, the schedule
against the verifier, and the solver's answers that use them."""

from __future__ import annotations

import copy

import networkx as nx
import pytest

from gossipcert.certificates.certificate import build_certificate, check_certificate
from gossipcert.constructions.hub_allreduce import hub_allreduce, hub_allreduce_rounds
from gossipcert.errors import NotApplicableError
from gossipcert.instance import Instance, make_instance, parse_instance, parse_model, parse_problem
from gossipcert.schedule import Schedule, Transmission
from gossipcert.search.allreduce_cut import cut_bound, node_cut_bound, pipeline
from gossipcert.search.allreduce_exact import find
from gossipcert.search.entry import solve
from gossipcert.simulate import simulate
from tests.reductions_bfs import BruteForce
from tests.reductions_sat import feasible


def atlas_instance(index: int, model: str, k: int, redop: str = "sum") -> Instance:
    g = nx.Graph(nx.graph_atlas(index))
    nx.set_node_attributes(g, {v: str(v) for v in g}, "label")
    nx.set_node_attributes(g, False, "router")
    nx.set_edge_attributes(g, 1, "capacity")
    g.graph["spec"] = f"atlas:{index}"
    args = ([f"chunks={k}"] if k > 1 else []) + ([f"redop={redop}"] if redop != "sum" else [])
    problem = "allreduce" + (":" + ",".join(args) if args else "")
    return make_instance(g, parse_model(model), parse_problem(problem))


@pytest.mark.parametrize(("leaves", "k"), [(1, 1), (2, 1), (3, 1), (3, 2), (4, 1), (4, 2), (5, 3)])
def test_star_bound_is_met_by_the_hub_allreduce(leaves: int, k: int) -> None:
    """K_{1,L} single-port p = 1: N L + L - 1 with N = (L + 1) K chunks, both ways."""
    inst = parse_instance(f"star:{leaves + 1}", "single-port", f"allreduce:chunks={k}")
    n_chunks = (leaves + 1) * k
    assert cut_bound(inst) == n_chunks * leaves + leaves - 1
    rep = simulate(inst, hub_allreduce(inst))
    assert rep.ok and rep.rounds == n_chunks * leaves + leaves - 1
    assert hub_allreduce_rounds(leaves + 1, n_chunks) == rep.rounds


@pytest.mark.parametrize(
    ("graph", "model", "problem", "bound"),
    [
        ("path:3", "single-port", "allreduce", 7),  # 3 chunks x 2 sides + 1
        ("path:4", "single-port", "allreduce:chunks=2", 17),
        ("star:4", "all-port", "allreduce", 5),  # the hub takes 3 chunks a round
        ("star:4", "single-port:p=2", "allreduce:chunks=2", 13),  # 12 + 1
        ("star:4", "telephone:p=1", "allreduce", 14),
        ("hub:4", "single-port", "allreduce", 5),  # no cut vertex: 1 + N / p (start 2)
        ("ring:5", "single-port", "allreduce", 6),  # no side completed before round 2
    ],
)
def test_cut_bound_values(graph: str, model: str, problem: str, bound: int) -> None:
    assert cut_bound(parse_instance(graph, model, problem)) == bound


def test_cut_bound_refusals() -> None:
    assert cut_bound(parse_instance("star:4", "multicast", "allreduce")) is None
    assert cut_bound(parse_instance("star:4", "telephone", "allreduce")) is None  # any p
    leaf = node_cut_bound(parse_instance("star:4", "single-port", "allreduce"), 1)
    assert leaf == 5  # a leaf splits nothing: it completes the 4 chunks from round 2 on


@pytest.mark.parametrize(
    ("index", "k", "tail", "bound"),
    [
        (31, 1, 12, 13),
        (31, 2, 22, 23),
        (36, 1, 12, 13),
        (36, 2, 22, 23),
        (42, 1, 12, 13),
        (42, 2, 22, 23),
    ],
)
def test_cut_bound_start_and_tail(index: int, k: int, tail: int, bound: int) -> None:
    """Single-port, a cut vertex with two sides of two nodes each (on the bowtie, atlas 42,
    the centre; on atlas 31 and 36 a node of the triangle): no side is completed in round 1,
    and the last send still has to cross its side."""
    inst = atlas_instance(index, "single-port:p=1", k)
    assert cut_bound(inst) == bound
    g = inst.graph
    v = next(v for v in nx.articulation_points(g) if node_cut_bound(inst, v) == bound)
    sides = list(nx.connected_components(g.subgraph(u for u in g if u != v)))
    assert sorted(len(c) for c in sides) == [2, 2]
    n_chunks = 5 * k
    assert pipeline(n_chunks, 2, 1, 1, 1) == tail - 1
    assert pipeline(n_chunks, 2, 1, 1, 1, tail=True) == tail
    assert pipeline(n_chunks, 2, 1, 1, 1, start=2, tail=True) == bound


@pytest.mark.parametrize("index", [31, 36])
def test_cut_bound_start_is_sound_by_the_reference(index: int) -> None:
    """The independent SAT reference, its plain model (no counts), has no max schedule (so
    no sum one) a round shorter than the bound with the start of round 2."""
    g = nx.graph_atlas(index)
    bound = cut_bound(atlas_instance(index, "single-port:p=1", 1))
    assert bound == 13
    edges = list(g.edges)
    assert not feasible(
        5, edges, "single-port", "allreduce", 1, bound - 1, 0, 120.0, redundant=False
    )


def test_cut_bound_met_on_atlas_34_by_one_chunk_at_a_time() -> None:
    """Atlas 34 (node 4 joined to leaves 0, 1 and to the edge {2, 3}), single-port, two
    chunks per node: the cut bound at node 4 is 32 (30 completions in rounds 1..30, two sends
    after the last). A schedule that takes the chunks through node 4 one at a time meets it:
    chunk j enters 4 from 0, 1 and {2, 3} in rounds 3j+1..3j+3 (3 having sent to 2 in 3j+2)
    and leaves to 2, 0, 1 in rounds 3j+3..3j+5 (2 passing it to 3 in 3j+4)."""
    inst = atlas_instance(34, "single-port:p=1", 2)
    assert cut_bound(inst) == 32
    moves = [(1, 0, 4, "reduce"), (2, 1, 4, "reduce"), (2, 3, 2, "reduce"), (3, 2, 4, "reduce")]
    moves += [(3, 4, 2, "reduce"), (4, 2, 3, "copy"), (4, 4, 0, "copy"), (5, 4, 1, "copy")]
    rounds: list[list[Transmission]] = [[] for _ in range(32)]
    for j in range(10):
        for dt, u, v, op in moves:
            rounds[3 * j + dt - 1].append(Transmission(u, (v,), 1 << j, op))
    rep = simulate(inst, Schedule(tuple(tuple(r) for r in rounds)))
    assert rep.ok and rep.rounds == 32, rep.errors[:3]


def test_pipeline_takes_the_worst_split() -> None:
    # j = 1: 1 + 3 * 2 = 7; j = 3: 3 + 1 * 2 = 5
    assert pipeline(3, 1, 2, 1, 1) == 7
    assert pipeline(3, 2, 1, 1, 1) == 7  # j = 3: 6 + 1
    assert pipeline(4, 3, 2, 2, 2) == 7  # j = 4: ceil(12 / 2) + ceil(2 / 2)


#: connected atlas graphs of 2 and 3 nodes: K_2, P_3, K_3
SMALL = [3, 6, 7]


@pytest.mark.parametrize("index", SMALL)
@pytest.mark.parametrize("model", ["single-port", "all-port"])
def test_cut_bound_below_the_breadth_first_optimum(index: int, model: str) -> None:
    """Under max (whose optimum is at most sum's), one chunk per node."""
    g = nx.graph_atlas(index)
    spec = "single-port:p=1" if model == "single-port" else "all-port"
    bound = cut_bound(atlas_instance(index, spec, 1, "max"))
    best = BruteForce(g.number_of_nodes(), list(g.edges()), model, "allreduce", 1, "max")
    optimum = best.optimum(12)
    assert bound is not None and optimum is not None and bound <= optimum


def test_cut_bound_tight_on_the_path_of_three_by_breadth_first_search() -> None:
    best = BruteForce(3, [(0, 1), (1, 2)], "single-port", "allreduce", 1, "max").optimum(12)
    assert best == 7 == cut_bound(atlas_instance(6, "single-port:p=1", 1, "max"))


#: (atlas index, model, chunks) whose exact search at the bound minus one takes seconds
SLOW = {
    (6, "single-port:p=1", 2),
    (6, "telephone:p=1", 2),
    (6, "half-duplex:p=1", 2),
    (13, "single-port:p=1", 1),
    (13, "telephone:p=1", 1),
}
#: ... or more than a minute (the star and the path of 4 nodes with two chunks per node)
BEYOND = {(13, "half-duplex:p=1", 1)} | {
    (i, m, 2) for i in (13, 14, 15) for m in ("single-port:p=1", "telephone:p=1", "half-duplex:p=1")
}


def four_node_cases() -> list[object]:
    """(atlas index, model, chunks) for the connected graphs of 3 and 4 nodes, but those of
    :data:`BEYOND`; those of :data:`SLOW` are marked slow."""
    cases: list[object] = []
    for index in range(6, 19):
        if not nx.is_connected(nx.graph_atlas(index)):
            continue
        for model in ("single-port:p=1", "all-port", "telephone:p=1", "half-duplex:p=1"):
            for k in (1, 2):
                if (index, model, k) in BEYOND:
                    continue
                marks = [pytest.mark.slow] if (index, model, k) in SLOW else []
                cases.append(pytest.param(index, model, k, marks=marks, id=f"{index}-{model}-{k}"))
    return cases


@pytest.mark.parametrize(("index", "model", "k"), four_node_cases())
def test_cut_bound_minus_one_is_infeasible_in_the_exact_model(
    index: int, model: str, k: int
) -> None:
    """The allreduce model (interchangeable chunks ordered), under max (a relaxation of sum), has
    no schedule one round shorter than the bound: the bound is at most the optimum."""
    inst = atlas_instance(index, model, k, "max")
    bound = cut_bound(inst)
    assert bound is not None
    if bound <= 1:
        return
    status, _ = find(inst, bound - 1, None)
    assert status == "unsat"


def test_hub_allreduce_in_telephone_and_with_packet_caps() -> None:
    for model, problem, rounds in [
        ("telephone:p=1", "allreduce", 14),
        ("telephone", "allreduce:chunks=3", 7),  # one batch: 3 + 3 - 1 ... + 1
        ("single-port:p=3", "allreduce:chunks=2,redop=max", 19),  # 5 batches of 3 and 1
    ]:
        inst = parse_instance("star:5" if model != "telephone:p=1" else "star:4", model, problem)
        rep = simulate(inst, hub_allreduce(inst))
        assert rep.ok and rep.rounds == rounds, (model, problem, rep.errors[:2])


@pytest.mark.parametrize(
    ("graph", "model", "problem"),
    [
        ("ring:5", "single-port", "allreduce"),  # no node adjacent to all
        ("star:4", "half-duplex", "allreduce"),  # the hub sends and hears in one round
        ("star:4", "all-port", "allreduce"),
        ("star:4", "sequential:p=1", "allreduce"),
        ("star:4", "single-port", "reduce-scatter"),
        ("fattree:2", "single-port", "allreduce"),  # routers
    ],
)
def test_hub_allreduce_refusals(graph: str, model: str, problem: str) -> None:
    with pytest.raises(NotApplicableError):
        hub_allreduce(parse_instance(graph, model, problem))


def test_solve_certifies_the_star_with_the_cut_bound() -> None:
    res = solve(parse_instance("star:4", "single-port", "allreduce:chunks=2"))
    assert (res.status, res.optimum, res.evidence["source"]) == ("optimal", 26, "cut")
    assert res.report is not None and res.report.ok and res.report.rounds == 26
    cert = build_certificate(res)
    rep = check_certificate(copy.deepcopy(cert))
    assert rep.status == "holds", rep.steps
    assert any("cut bound recomputed: 26" in text for _, text in rep.steps)
    forged = copy.deepcopy(cert)
    forged["evidence"]["source"] = "receipts"  # 48 receipts, 2 a round: 24, not 26
    assert check_certificate(forged).status == "fails"


def test_solve_finds_a_schedule_at_the_cut_bound() -> None:
    """The triangle with a pendant node (atlas 15): 9 rounds, the cut bound at the node of
    degree 3, met by the allreduce model's schedule."""
    res = solve(atlas_instance(15, "single-port:p=1", 1))
    assert (res.status, res.optimum, res.evidence["source"]) == ("optimal", 9, "cut")
    assert res.report is not None and res.report.ok


def test_msccl_sixteen_rank_allreduce_is_certified_by_the_receipts_bound() -> None:
    """The 16-rank ring allreduce of the MSCCL test files (fully connected, capacity 12,
    384 chunks): each chunk is received 30 times, 2880 receipts a round: 4 rounds, met by
    the reduce-scatter + allgather composition."""
    inst = parse_instance("fully-connected:16", "all-port:c=12", "allreduce:chunks=24")
    res = solve(inst)
    assert (res.status, res.optimum, res.evidence["source"]) == ("optimal", 4, "receipts")
    assert res.evidence["bounds"]["receive"] == 3
    assert res.report is not None and res.report.ok
