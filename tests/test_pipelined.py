"""Pipelined collectives: the bounds that grow with the chunk count, against their closed
forms over ranges, against the exact model on every small graph, and the constructions that
meet them (every schedule replayed by the verifier)."""

from __future__ import annotations

import math

import networkx as nx
import pytest

from gossipcert.closed_forms import best_lower_bound
from gossipcert.closed_forms.pipelined import (
    flow_over_time_bound,
    flow_rounds,
    pipelined_broadcast_bound,
)
from gossipcert.constructions.circulant_broadcast import circulant_broadcast, circulant_pattern
from gossipcert.constructions.pipelined_rings import (
    bidirectional_ring_allreduce,
    ring_pipeline_allgather,
    torus_cycles,
    two_stream_broadcast,
)
from gossipcert.constructions.scatter_allgather import (
    scatter_allgather_broadcast,
    scatter_allgather_rounds,
)
from gossipcert.constructions.switch_allreduce import switch_allreduce
from gossipcert.constructions.translated import translated_allgather, translations
from gossipcert.errors import NotApplicableError
from gossipcert.graphs import from_spec
from gossipcert.graphs.convert import from_networkx
from gossipcert.instance import make_instance, parse_instance, parse_model, parse_problem
from gossipcert.search.allreduce_bounds import receipt_bound
from gossipcert.search.entry import solve
from gossipcert.simulate import simulate


def rounds_of(inst, schedule) -> int:  # type: ignore[no-untyped-def]
    report = simulate(inst, schedule)
    assert report.ok, report.errors[:3]
    assert report.rounds is not None
    return report.rounds


# ------------------------------------------------------------------ closed forms over ranges


@pytest.mark.parametrize("p", [1, 2, 3])
def test_pipelined_broadcast_on_complete_graphs(p: int) -> None:
    """``ceil(K/p) - 1 + ceil(log2 n)``, Bar-Noy and Kipnis's bound, for every n and K."""
    for n in [*range(2, 18), 31, 32, 33, 64]:
        for k in range(1, 10):
            inst = parse_instance(f"complete:{n}", f"single-port:p={p}", f"broadcast:0,chunks={k}")
            bound = pipelined_broadcast_bound(inst)
            if k == 1:
                assert bound is None
            else:
                assert bound is not None
                assert bound.value == -(-k // p) - 1 + math.ceil(math.log2(n))


def test_pipelined_broadcast_declines() -> None:
    assert (
        pipelined_broadcast_bound(parse_instance("ring:6", "all-port", "broadcast:0,chunks=4"))
        is None
    )
    assert (
        pipelined_broadcast_bound(parse_instance("ring:6", "telephone", "broadcast:0,chunks=4"))
        is None
    )
    assert (
        pipelined_broadcast_bound(parse_instance("ring:6", "single-port", "gossip:chunks=4"))
        is None
    )
    # multicast: the source sends one set of p chunks a round, then the eccentricity
    inst = parse_instance("ring:6", "multicast:p=1", "broadcast:0,chunks=4")
    assert pipelined_broadcast_bound(inst).value == 4 - 1 + 3  # type: ignore[union-attr]


@pytest.mark.parametrize("c", [1, 2, 3])
def test_flow_bound_on_complete_graphs_is_the_scatter_allgather(c: int) -> None:
    """All-port on ``K_n``: ``1 + ceil((K - c) / (c (n - 1)))``, met by the construction."""
    for n in range(2, 13):
        for k in range(1, 41):
            inst = parse_instance(f"complete:{n}", f"all-port:c={c}", f"broadcast:0,chunks={k}")
            want = 1 if k <= c else 1 + -(-(k - c) // (c * (n - 1)))
            assert flow_over_time_bound(inst).value == want  # type: ignore[union-attr]
            assert scatter_allgather_rounds(n, k, c) == want
            if k <= 12:
                assert rounds_of(inst, scatter_allgather_broadcast(inst)) == want


def test_flow_rounds_formula() -> None:
    # one direct arc and six paths of two (K_8): F(R) = R + 6 (R - 1)
    for k in range(1, 60):
        want = next(r for r in range(1, 100) if r + 6 * (r - 1) >= k)
        assert flow_rounds([(1, 1), (2, 6)], k) == want
    assert flow_rounds([], 3) is None
    assert flow_rounds([(3, 2)], 5) == 5  # 2 (R - 2) >= 5


def test_flow_bound_on_rings_is_met_by_two_streams() -> None:
    """On a ring the flow bound at every node is the two-stream broadcast's length."""
    for n in range(3, 17):
        for k in (1, 2, 3, 5, 8, 13, 21, 40, 64):
            for c in (1, 2):
                inst = parse_instance(f"ring:{n}", f"all-port:c={c}", f"broadcast:1,chunks={k}")
                want = next(
                    r
                    for r in range(1, 200)
                    if all(
                        min(k, max(0, c * (r - d + 1))) + min(k, max(0, c * (r - n + d + 1))) >= k
                        for d in range(1, n)
                    )
                )
                assert flow_over_time_bound(inst).value == want  # type: ignore[union-attr]
                assert rounds_of(inst, two_stream_broadcast(inst)) == want
    inst = parse_instance("ring:16", "all-port", "broadcast:0,chunks=64")
    assert best_lower_bound(inst).value == 39


# ------------------------------------------------------------- the exact model, small graphs


def small_graphs() -> list[nx.Graph]:
    """Every connected graph of the networkx atlas with 2 to 5 nodes."""
    return [g for g in nx.graph_atlas_g()[2:53] if nx.is_connected(g)]


@pytest.mark.parametrize("model", ["single-port", "all-port", "telephone", "multicast:p=1"])
def test_bounds_never_exceed_the_exact_optimum(model: str) -> None:
    """Soundness on every connected graph of up to 5 nodes: both bounds, 2 and 3 chunks from
    node 0, against the exact search started from the trivial bound; on the complete graphs
    the bound is the optimum (single-port: pipelined-broadcast, all-port: flow-over-time)."""
    for g in small_graphs():
        n = g.number_of_nodes()
        complete = g.number_of_edges() == n * (n - 1) // 2
        for k in (2, 3):
            inst = make_instance(
                from_networkx(g), parse_model(model), parse_problem(f"broadcast:0,chunks={k}")
            )
            optimum = solve(inst, use_bounds=False, proof=False).optimum
            assert optimum is not None
            values = [
                b.value for b in (pipelined_broadcast_bound(inst), flow_over_time_bound(inst)) if b
            ]
            assert all(v <= optimum for v in values), (list(g.edges), k, values, optimum)
            if complete and model in ("single-port", "all-port"):
                assert max(values) == optimum


def test_circulant_broadcast_is_the_exact_optimum_on_small_complete_graphs() -> None:
    for n in range(2, 6):
        for k in (1, 2, 3, 4):
            inst = parse_instance(f"complete:{n}", "single-port", f"broadcast:{n - 1},chunks={k}")
            optimum = solve(inst, use_bounds=False, proof=False).optimum
            assert (
                rounds_of(inst, circulant_broadcast(inst))
                == optimum
                == k - 1 + (n - 1).bit_length()
            )


# ------------------------------------------------------------- constructions over ranges


def test_circulant_broadcast_meets_the_bound() -> None:
    """Every n up to 12, every K up to 2 q + 2 and a few more (every residue of K mod q)."""
    for n in range(2, 13):
        q = (n - 1).bit_length()
        for k in [*range(1, 2 * q + 3), 17, 32]:
            inst = parse_instance(f"complete:{n}", "single-port", f"broadcast:{n // 2},chunks={k}")
            assert rounds_of(inst, circulant_broadcast(inst)) == k - 1 + q


@pytest.mark.slow
def test_circulant_broadcast_meets_the_bound_up_to_64_nodes() -> None:
    for n in [*range(13, 34), 48, 64]:
        q = (n - 1).bit_length()
        for k in [*range(1, 2 * q + 3), 64]:
            inst = parse_instance(f"complete:{n}", "single-port", f"broadcast:0,chunks={k}")
            assert rounds_of(inst, circulant_broadcast(inst)) == k - 1 + q


def test_circulant_pattern_delays_grow_away_from_the_source() -> None:
    pat = circulant_pattern(12, 1)
    q = len(pat.skips)
    for r in range(1, 12):
        assert sorted((j - d) % q for j, d in enumerate(pat.delay[r])) == list(range(q))


@pytest.mark.parametrize(
    "spec",
    ["ring:8", "ring:9", "torus:3x4", "torus:4x4", "hypercube:3", "hypercube:4", "complete:6"],
)
def test_translated_allgather_meets_the_cut_bound(spec: str) -> None:
    for k in (1, 2, 3, 4, 8):
        inst = parse_instance(spec, "all-port", f"gossip:chunks={k}")
        assert rounds_of(inst, translated_allgather(inst)) == best_lower_bound(inst).value


def test_translated_allgather_with_capacities() -> None:
    inst = parse_instance("ring:8", "all-port:c=2", "gossip:chunks=4")
    assert rounds_of(inst, translated_allgather(inst)) == best_lower_bound(inst).value == 7


def test_translations_refuse_an_edited_graph() -> None:
    g = from_spec("torus:4x4")
    assert translations(g) is not None
    g.remove_edge(0, 1)
    assert translations(g) is None
    h = from_spec("hypercube:3")
    h[0][1]["capacity"] = 2
    assert translations(h) is None
    inst = parse_instance("petersen", "all-port", "gossip:chunks=2")
    with pytest.raises(NotApplicableError):
        translated_allgather(inst)


def test_ring_pipeline_allgather_is_the_receive_bound() -> None:
    for n in range(3, 13):
        for k in (1, 2, 3, 5):
            inst = parse_instance(f"complete:{n}", "single-port", f"gossip:chunks={k}")
            assert rounds_of(inst, ring_pipeline_allgather(inst)) == (n - 1) * k
            assert best_lower_bound(inst).value == (n - 1) * k
        inst = parse_instance(f"ring:{n}", "single-port:p=2", "gossip:chunks=4")
        assert rounds_of(inst, ring_pipeline_allgather(inst)) == 2 * (n - 1)


def test_bidirectional_ring_allreduce_meets_the_receipts_bound() -> None:
    for n in range(3, 15):
        for k in (1, 2, 3):
            for redop in ("sum", "max"):
                inst = parse_instance(
                    f"ring:{n}", "all-port", f"allreduce:chunks={k},redop={redop}"
                )
                got = rounds_of(inst, bidirectional_ring_allreduce(inst))
                assert got == ((n - 1) * k if n % 2 == 0 else n * k)
                if n % 2 == 0:
                    assert got == receipt_bound(inst)


@pytest.mark.parametrize("k", [3, 4, 5, 8])
def test_torus_cycles_decompose_the_torus(k: int) -> None:
    g = from_spec(f"torus:{k}x{k}")
    cycles = torus_cycles(k)
    edges = [frozenset((c[i], c[(i + 1) % len(c)])) for c in cycles for i in range(len(c))]
    assert all(sorted(c) == list(range(k * k)) for c in cycles)
    assert len(set(edges)) == len(edges) == g.number_of_edges()
    assert all(g.has_edge(*e) for e in edges)


@pytest.mark.parametrize("spec", ["torus:4x4", "hypercube:4", "torus:6x6"])
def test_bidirectional_ring_allreduce_on_the_two_cycles(spec: str) -> None:
    """Two edge-disjoint Hamiltonian cycles carry a wave each: the receipts bound for even K."""
    for k in (2, 4):
        inst = parse_instance(spec, "all-port", f"allreduce:chunks={k}")
        got = rounds_of(inst, bidirectional_ring_allreduce(inst))
        assert got == (inst.n - 1) * k // 2 == receipt_bound(inst)


def test_bidirectional_ring_allreduce_agrees_with_the_exact_model() -> None:
    inst = parse_instance("ring:4", "all-port", "allreduce")
    assert rounds_of(inst, bidirectional_ring_allreduce(inst)) == solve(inst).optimum == 3


def test_switch_allreduce_meets_the_bounds() -> None:
    for k in (1, 2, 3):
        inst = parse_instance("dgx2", "all-port", f"allreduce:chunks={k}")
        res = solve(inst)
        assert res.status == "optimal" and res.optimum == 16 * k + 1
        assert rounds_of(inst, switch_allreduce(inst)) == 16 * k + 1
    with pytest.raises(NotApplicableError):
        switch_allreduce(parse_instance("ring:5", "all-port", "allreduce"))


def test_translated_allreduce_meets_the_receipts_bound() -> None:
    """Reduce and broadcast trees a wave, list-scheduled and translated: the receipts bound
    on Q_3 to Q_5 for 2 to 16 chunks (the composition of reduce-scatter and allgather pays
    a partly idle round twice on Q_3 with 4 chunks: 20) and on odd rings."""
    from gossipcert.constructions.translated_allreduce import translated_allreduce

    for spec in ("hypercube:3", "hypercube:4", "hypercube:5"):
        for k in (2, 4, 16):
            inst = parse_instance(spec, "all-port", f"allreduce:chunks={k}")
            assert rounds_of(inst, translated_allreduce(inst)) == receipt_bound(inst)
    for n in (5, 7, 9):
        for k in (1, 2, 3):
            for redop in ("sum", "max"):
                spec = f"allreduce:chunks={k},redop={redop}"
                inst = parse_instance(f"ring:{n}", "all-port", spec)
                assert rounds_of(inst, translated_allreduce(inst)) == receipt_bound(inst)
    with pytest.raises(NotApplicableError):
        translated_allreduce(parse_instance("petersen", "all-port", "allreduce"))


def test_tree_list_allreduce_is_valid_through_a_switch_and_without_one() -> None:
    from gossipcert.constructions.tree_allreduce_list import tree_list_allreduce

    for spec, k in (("dgx2", 2), ("ndv2:4", 1), ("dgx1", 2), ("fattree:8", 1), ("petersen", 1)):
        for redop in ("sum", "max"):
            inst = parse_instance(spec, "all-port", f"allreduce:chunks={k},redop={redop}")
            assert rounds_of(inst, tree_list_allreduce(inst)) >= receipt_bound(inst)
    inst = parse_instance("dgx2", "all-port", "allreduce:chunks=2")
    assert rounds_of(inst, tree_list_allreduce(inst)) == 33
