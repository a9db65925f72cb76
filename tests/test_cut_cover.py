"""The cover bound (``cut-cover``) and the added cut families: closed forms, soundness
against the exact model on every small graph, and the machines' cuts."""

from __future__ import annotations

from fractions import Fraction

import networkx as nx
import pytest

from gossipcert.closed_forms.cut_cover import cover_rounds, cut_cover_bound
from gossipcert.closed_forms.cut_sides import capacity_clusters, throughput_sides
from gossipcert.closed_forms.cuts import cut_bound
from gossipcert.constructions.tree_broadcast import chunk_split, tree_broadcast
from gossipcert.graphs import from_spec
from gossipcert.graphs.convert import from_networkx
from gossipcert.instance import make_instance, parse_instance, parse_model, parse_problem
from gossipcert.search.entry import solve
from gossipcert.simulate import simulate


def test_an_mi250_pair_gets_three_new_chunks_in_the_last_round() -> None:
    """GPUs 0 and 1 of mi250 (a link of 4 between them, 3 links of 1 or 2 out of each):
    ``14 K <= 6 (R - 1) + 3``, so ``R >= 1 + ceil((14 K - 3) / 6)``."""
    for k in (1, 2, 3, 4, 5, 8, 16, 64):
        inst = parse_instance("mi250", "all-port", f"gossip:chunks={k}")
        value = cut_cover_bound(inst).value  # type: ignore[union-attr]
        assert value >= 1 + -(-(14 * k - 3) // 6)
    # two chunks a GPU: 6, the optimum the exact search proved (the cut bound says 5)
    inst = parse_instance("mi250", "all-port", "gossip:chunks=2")
    assert cut_cover_bound(inst).value == 6  # type: ignore[union-attr]
    assert cut_bound(inst).value == 5  # type: ignore[union-attr]


def test_cover_rounds() -> None:
    half = [Fraction(0), Fraction(1, 2)]
    for k in range(1, 40):
        assert cover_rounds([(3, 1, half), (3, 1, half)], 14 * k) == 1 + -(-(14 * k - 3) // 6)
    assert cover_rounds([(1, 3, [Fraction(0)])], 2) == 4  # slots from round 3 on
    assert cover_rounds([], 0) == 0


def small_graphs() -> list[nx.Graph]:
    return [g for g in nx.graph_atlas_g()[2:53] if nx.is_connected(g)]


@pytest.mark.parametrize(
    ("model", "problem"),
    [
        ("all-port", "gossip:chunks=2"),
        ("all-port", "broadcast:0,chunks=3"),
        ("all-port", "total-exchange"),
        ("single-port", "gossip"),
        ("single-port", "broadcast:0,chunks=2"),
    ],
)
def test_cover_bound_never_exceeds_the_exact_optimum(model: str, problem: str) -> None:
    """Every connected graph of up to 5 nodes (4 for all-port gossip with two chunks)."""
    for g in small_graphs():
        if problem.startswith("gossip:") and g.number_of_nodes() > 4:
            continue
        inst = make_instance(from_networkx(g), parse_model(model), parse_problem(problem))
        bound = cut_cover_bound(inst)
        if bound is None:
            continue
        optimum = solve(inst, use_bounds=False, proof=False).optimum
        assert optimum is not None and bound.value <= optimum, (list(g.edges), bound, optimum)


def test_capacity_clusters_find_the_halves_and_pairs_of_mi250() -> None:
    sides = [sorted(s) for s in capacity_clusters(from_spec("mi250"))]
    assert [0, 1] in sides and [0, 1, 4, 5] in sides and list(range(8)) in sides
    assert list(throughput_sides(from_spec("torus:4x4"))) == []  # equal capacities


def test_mi250_alltoall_cut() -> None:
    """The half cut of mi250: 64 packets each way through 6 links (the families of n <= 8
    nodes and Gomory-Hu trees missed it: the bound was the distance, 6)."""
    inst = parse_instance("mi250", "all-port", "total-exchange")
    assert cut_bound(inst).value == 11  # type: ignore[union-attr]


def test_tree_broadcast_is_valid_and_splits_the_chunks() -> None:
    assert chunk_split([4, 4, 5], 10) == [4, 4, 2]
    assert chunk_split([3], 5) == [5]
    for spec, k in (("torus:4x4", 16), ("hypercube:3", 9), ("dgx1", 20), ("fattree:8", 6)):
        inst = parse_instance(spec, "all-port", f"broadcast:0,chunks={k}")
        report = simulate(inst, tree_broadcast(inst))
        assert report.ok and report.rounds is not None


def test_switch_alltoall_meets_the_chassis_cut_of_two_mi250() -> None:
    """``32 K + 3``: two rounds to the switch, one packet a NIC link and round, one round to
    leave the last NIC (the brackets [35, 38] and [67, 70] closed)."""
    from gossipcert.constructions.switch_alltoall import switch_alltoall

    for k in (1, 2):
        inst = parse_instance("mi250:2", "all-port", f"total-exchange:chunks={k}")
        report = simulate(inst, switch_alltoall(inst))
        assert report.ok and report.rounds == 32 * k + 3 == cut_bound(inst).value  # type: ignore[union-attr]


def test_tree_mix_meets_the_flow_bound_on_the_dgx1() -> None:
    """Six disjoint trees of depth 4 carry the first chunks, shallower trees the last: the
    flow bound for 16, 32 and 64 chunks (the trees alone take a round more)."""
    from gossipcert.closed_forms.pipelined import flow_over_time_bound
    from gossipcert.constructions.tree_mix import tree_mix_broadcast

    for k in (16, 32, 64):
        inst = parse_instance("dgx1", "all-port", f"broadcast:0,chunks={k}")
        report = simulate(inst, tree_mix_broadcast(inst))
        assert report.ok and report.rounds == flow_over_time_bound(inst).value  # type: ignore[union-attr]
