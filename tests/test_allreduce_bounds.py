"""The allreduce receipts bound and the ring allreduce: values, their certificates, and the
bound against the exhaustive search of :mod:`tests.reductions_bfs` on tiny graphs."""

from __future__ import annotations

import copy

import pytest

from gossipcert.certificates.certificate import build_certificate, check_certificate
from gossipcert.constructions.ring_allreduce import ring_allreduce, ring_allreduce_rounds
from gossipcert.errors import NotApplicableError
from gossipcert.instance import parse_instance
from gossipcert.search.allreduce_bounds import receipt_bound, receipts_per_round
from gossipcert.search.entry import solve
from gossipcert.simulate import simulate
from tests.reductions_bfs import BruteForce


@pytest.mark.parametrize("n", [2, 3, 4, 5, 6, 8])
@pytest.mark.parametrize("k", [1, 2, 3])
def test_receipts_bound_on_hubs_is_the_ring_allreduce(n: int, k: int) -> None:
    """On K_n in single-port with p = 1: n K chunks, each received 2 n - 2 times, n receipts
    a round: 2 K (n - 1), the rounds of the ring allreduce, which the verifier accepts."""
    inst = parse_instance(f"hub:{n}", "single-port", f"allreduce:chunks={k}")
    assert receipt_bound(inst) == 2 * k * (n - 1) == ring_allreduce_rounds(n, k)
    rep = simulate(inst, ring_allreduce(inst))
    assert rep.ok and rep.rounds == 2 * k * (n - 1)


@pytest.mark.parametrize(
    ("graph", "model", "problem", "per_round", "bound"),
    [
        ("ring:6", "all-port", "allreduce:chunks=2", 12, 10),  # K (n - 1)
        ("ring:5", "all-port", "allreduce", 10, 4),
        ("path:3", "single-port", "allreduce", 2, 6),  # 0->1 and 1->2, or 2->1 and 1->0
        ("ring:5", "telephone:p=1", "allreduce", 4, 10),  # 4 receivers a round, n odd
        ("ring:6", "half-duplex:p=1", "allreduce", 3, 20),  # senders and receivers apart
        ("ring:6", "sequential:p=1", "allreduce", 2, 30),  # one call a round
        ("path:3", "single-port", "reduce:0", 2, 1),
        ("star:5", "single-port", "allreduce", 2, 20),  # the hub sends one, hears one
        (
            "star:5",
            "telephone:p=1",
            "allreduce",
            2,
            20,
        ),  # one call at a time  # one chunk: 3 contributors, 1 demander
    ],
)
def test_receipts_bound_values(
    graph: str, model: str, problem: str, per_round: int, bound: int
) -> None:
    inst = parse_instance(graph, model, problem)
    assert receipts_per_round(inst) == per_round
    assert receipt_bound(inst) == bound


def test_no_receipts_bound_with_unbounded_packets() -> None:
    inst = parse_instance("ring:5", "telephone", "allreduce")
    assert receipts_per_round(inst) is None and receipt_bound(inst) is None


@pytest.mark.parametrize(
    ("n", "edges", "model", "k", "redop"),
    [
        pytest.param(
            3, [(0, 1), (1, 2), (0, 2)], "single-port", 1, "sum", marks=pytest.mark.slow
        ),  # tight: 4, in 12 s
        (3, [(0, 1), (1, 2), (0, 2)], "single-port", 1, "max"),
        (3, [(0, 1), (1, 2)], "single-port", 1, "max"),  # 4 < 7
        (3, [(0, 1), (1, 2)], "all-port", 1, "max"),  # 3 chunks x 4 / 4 arcs: 3, tight
        (3, [(0, 1), (1, 2), (0, 2)], "all-port", 1, "sum"),  # 3 x 4 / 6: 2, tight
        (2, [(0, 1)], "single-port", 2, "sum"),  # tight: 4
    ],
)
def test_receipts_bound_is_below_the_exhaustive_optimum(
    n: int, edges: list[tuple[int, int]], model: str, k: int, redop: str
) -> None:
    import networkx as nx

    from gossipcert.instance import make_instance, parse_model, parse_problem

    g = nx.Graph()
    g.add_nodes_from(range(n))
    g.add_edges_from(edges)
    nx.set_node_attributes(g, {v: str(v) for v in g}, "label")
    nx.set_node_attributes(g, False, "router")
    nx.set_edge_attributes(g, 1, "capacity")
    g.graph["spec"] = "test"
    spec = "allreduce" + (f":chunks={k}" if k > 1 else "")
    if redop != "sum":
        spec += ("," if k > 1 else ":") + f"redop={redop}"
    inst = make_instance(g, parse_model(model), parse_problem(spec))
    bound = receipt_bound(inst)
    assert bound is not None
    best = BruteForce(n, edges, model, "allreduce", k, redop).optimum(12)
    assert best is not None and bound <= best
    res = solve(inst, proof=False)
    assert res.status == "optimal" and res.optimum == best


def test_certificate_of_the_receipts_bound() -> None:
    res = solve(parse_instance("hub:4", "single-port", "allreduce"))
    assert (res.status, res.optimum, res.evidence["source"]) == ("optimal", 6, "receipts")
    assert res.report is not None and res.report.ok
    cert = build_certificate(res)
    rep = check_certificate(copy.deepcopy(cert))
    assert rep.status == "holds", rep.steps
    assert any("receipts bound recomputed: 6" in text for _, text in rep.steps)
    forged = copy.deepcopy(cert)
    forged["evidence"]["source"] = "receive"  # each node receives 4 chunks: 4, not 6
    assert check_certificate(forged).status == "fails"
    forged = copy.deepcopy(cert)
    forged["optimum"] = 7
    assert check_certificate(forged).status == "fails"


@pytest.mark.slow
def test_ring_allreduce_is_the_upper_bound_where_the_composition_is_longer() -> None:
    res = solve(parse_instance("hub:7", "single-port", "allreduce:chunks=2"))
    assert (res.status, res.optimum) == ("optimal", 24)
    assert res.report is not None and res.report.ok and res.report.rounds == 24


@pytest.mark.parametrize(
    ("graph", "model", "problem"),
    [
        ("ring:5", "telephone", "allreduce"),  # no one-way ring in telephone
        ("ring:5", "half-duplex", "allreduce"),
        ("ring:5", "all-port", "reduce-scatter"),
        ("path:4", "single-port", "allreduce"),  # no Hamiltonian cycle
        ("fattree:2", "all-port", "allreduce"),  # routers
    ],
)
def test_ring_allreduce_refusals(graph: str, model: str, problem: str) -> None:
    with pytest.raises(NotApplicableError):
        ring_allreduce(parse_instance(graph, model, problem))


def test_ring_allreduce_packet_caps_and_capacities() -> None:
    inst = parse_instance("complete:4", "single-port:p=2", "allreduce:chunks=3,redop=max")
    rep = simulate(inst, ring_allreduce(inst))
    assert rep.ok and rep.rounds == ring_allreduce_rounds(4, 3, 2) == 12
    inst = parse_instance("ring:5", "all-port:c=2", "allreduce:chunks=2")
    rep = simulate(inst, ring_allreduce(inst))
    assert rep.ok and rep.rounds == 8
