"""The collective schedules (ring allgather and alltoall, farthest-first routes, shift
exchange, hypercube doubling): verified, with the step counts of their closed forms, and
used by the search as its upper bound."""

from __future__ import annotations

import pytest

from gossipcert.closed_forms import cut_bound
from gossipcert.constructions.catalog import construct
from gossipcert.constructions.collectives import (
    farthest_first_routes,
    hypercube_doubling,
    ring_allgather,
    ring_alltoall,
    shift_exchange,
)
from gossipcert.errors import NotApplicableError
from gossipcert.instance import parse_instance
from gossipcert.search.entry import solve
from gossipcert.simulate import simulate


def rounds(inst, schedule) -> int:  # type: ignore[no-untyped-def]
    rep = simulate(inst, schedule)
    assert rep.ok, rep.errors[:1]
    assert rep.rounds is not None
    return rep.rounds


@pytest.mark.parametrize("n", range(3, 17))
def test_ring_allgather_takes_half_the_ring(n: int) -> None:
    inst = parse_instance(f"ring:{n}", "all-port", "allgather")
    assert rounds(inst, ring_allgather(inst)) == n // 2  # the diameter


def test_ring_allgather_on_a_hamiltonian_graph() -> None:
    inst = parse_instance("hypercube:3", "all-port", "gossip")
    assert rounds(inst, ring_allgather(inst)) == 4
    with pytest.raises(NotApplicableError):
        ring_allgather(parse_instance("ring:6", "single-port", "gossip"))
    with pytest.raises(NotApplicableError):
        ring_allgather(parse_instance("ring:6", "all-port", "gossip:chunks=2"))
    with pytest.raises(NotApplicableError):
        ring_allgather(parse_instance("fattree:4", "all-port", "gossip"))  # routers


@pytest.mark.parametrize("n", range(3, 17))
def test_ring_alltoall_meets_the_cut_bound(n: int) -> None:
    inst = parse_instance(f"ring:{n}", "all-port", "alltoall")
    k = n // 2
    closed = -(-n * n // 8) if n % 2 == 0 else k * (k + 1) // 2
    got = rounds(inst, ring_alltoall(inst))
    assert got == closed
    bound = cut_bound(inst)
    assert bound is not None and bound.value == closed


@pytest.mark.slow
@pytest.mark.parametrize("n", range(17, 25))
def test_ring_alltoall_meets_the_cut_bound_up_to_24(n: int) -> None:
    inst = parse_instance(f"ring:{n}", "all-port", "alltoall")
    bound = cut_bound(inst)
    assert bound is not None and rounds(inst, ring_alltoall(inst)) == bound.value


def test_ring_alltoall_with_chunks_and_capacity() -> None:
    # two chunks a pair over capacity 2: the same steps as one chunk over capacity 1
    inst = parse_instance("ring:6", "all-port:c=2", "alltoall:chunks=2")
    assert rounds(inst, ring_alltoall(inst)) == 5
    inst = parse_instance("ring:5", "all-port", "scatter:0")
    assert rounds(inst, ring_alltoall(inst)) == 2  # two packets each way, farthest first


@pytest.mark.parametrize(
    ("graph", "problem", "steps"),
    [
        # scatter and gather: n + 1 (Dimakopoulos-Dimopoulos Theorem 1)
        ("fattree:4", "scatter:0", 5),
        ("fattree:8", "gather:3", 9),
        ("fattree:16", "scatter:0", 17),
        # total exchange on constant capacities: the cut bound, below the paper's
        # pipelined (n^2-1)/3 + 2 log n - 1 = 8, 26, 92
        ("fattree:4", "total-exchange", 7),
        ("fattree:8", "total-exchange", 21),
        ("fattree:16", "total-exchange", 71),
        # exponential capacities: above the paper's n + 2 log n - 2 = 6, 12
        ("fattree:4:exp", "total-exchange", 6),
        ("fattree:8:exp", "total-exchange", 14),
    ],
)
def test_farthest_first_routes_on_fat_trees(graph: str, problem: str, steps: int) -> None:
    inst = parse_instance(graph, "all-port", problem)
    assert rounds(inst, farthest_first_routes(inst)) == steps


def test_farthest_first_routes_meets_the_cut_bound_on_constant_fat_trees() -> None:
    for n in (4, 8, 16):
        inst = parse_instance(f"fattree:{n}", "all-port", "total-exchange")
        bound = cut_bound(inst)
        assert bound is not None
        assert rounds(inst, farthest_first_routes(inst)) == bound.value


def test_farthest_first_routes_needs_personalized_all_port() -> None:
    with pytest.raises(NotApplicableError):
        farthest_first_routes(parse_instance("fattree:4", "all-port", "gossip"))
    with pytest.raises(NotApplicableError):
        farthest_first_routes(parse_instance("ring:4", "single-port", "alltoall"))


@pytest.mark.parametrize("n", range(2, 9))
def test_shift_exchange_takes_n_minus_one_rounds(n: int) -> None:
    inst = parse_instance(f"hub:{n}", "single-port", "alltoall")
    assert rounds(inst, shift_exchange(inst)) == n - 1
    chunked = parse_instance(f"hub:{n}", "single-port", "alltoall:chunks=2")
    assert rounds(chunked, shift_exchange(chunked)) == 2 * (n - 1)
    wide = parse_instance(f"complete:{n}", "single-port:p=2", "alltoall:chunks=2")
    assert rounds(wide, shift_exchange(wide)) == n - 1


def test_shift_exchange_hypotheses() -> None:
    for graph, model, problem in (
        ("ring:5", "single-port", "alltoall"),
        ("complete:5", "telephone", "alltoall"),
        ("complete:5", "single-port:calls=2", "alltoall"),
        ("hub:5", "single-port", "allgather"),
    ):
        with pytest.raises(NotApplicableError):
            shift_exchange(parse_instance(graph, model, problem))


@pytest.mark.parametrize("d", range(1, 6))
def test_hypercube_doubling(d: int) -> None:
    wide = parse_instance(f"hypercube:{d}", f"all-port:c={1 << (d - 1)}", "allgather")
    assert rounds(wide, hypercube_doubling(wide)) == d
    narrow = parse_instance(f"hypercube:{d}", "all-port", "allgather")
    assert rounds(narrow, hypercube_doubling(narrow)) == (1 << d) - 1
    with pytest.raises(NotApplicableError):
        hypercube_doubling(parse_instance("ring:8", "all-port", "gossip"))


def test_catalog_names() -> None:
    inst = parse_instance("ring:7", "all-port", "alltoall")
    assert rounds(inst, construct(inst, "ring-alltoall")) == 6
    assert rounds(inst, construct(inst, "farthest-first-routes")) == 6


@pytest.mark.parametrize(
    ("graph", "model", "problem", "optimum", "source"),
    [
        ("ring:8", "all-port", "allgather", 4, "ring-allgather"),
        ("ring:24", "all-port", "allgather", 12, "ring-allgather"),
        ("ring:6", "all-port", "alltoall", 5, "ring-alltoall"),
        ("ring:8", "all-port", "alltoall", 8, "ring-alltoall"),
        ("hub:6", "single-port", "alltoall", 5, "shift-exchange"),
        ("dgx1", "all-port", "alltoall", 3, "farthest-first-routes"),
        ("fattree:16", "all-port", "total-exchange", 71, "farthest-first-routes"),
    ],
)
def test_search_takes_the_construction_as_its_upper_bound(
    graph: str, model: str, problem: str, optimum: int, source: str
) -> None:
    res = solve(parse_instance(graph, model, problem))
    assert res.status == "optimal" and res.optimum == optimum
    assert res.upper_source == source
    assert res.evidence["kind"] == "closed-form"  # the bound met the schedule: no solver
    assert res.report is not None and res.report.ok
