"""Tests of the half-duplex golden-ratio bound: exact arithmetic and soundness against the
brute force of ``test_bounds`` (which shares no code with the package)."""

from __future__ import annotations

import math

import networkx as nx
import pytest
from test_bounds import gossip_optimum, half_duplex_step, instance_optimum, make, plain_graph

from gossipcert.closed_forms import best_lower_bound, bound_by_name
from gossipcert.closed_forms.half_duplex import golden_rounds, half_duplex_golden_bound, reach_block
from gossipcert.instance import parse_instance

PHI = (1 + math.sqrt(5)) / 2


def test_golden_rounds_is_the_least_power() -> None:
    for m in range(1, 5000):
        r = golden_rounds(m)
        assert PHI ** (2 * r) >= m * (1 - 1e-12), m
        assert r == 0 or PHI ** (2 * (r - 1)) < m, m


def test_golden_rounds_of_gossip_on_larger_graphs() -> None:
    # log_phi n: 1.44 log2 n, e.g. 1000 nodes need 15 rounds (telephone: 10)
    assert golden_rounds(1000 * 1000) == math.ceil(math.log(1000) / math.log(PHI))
    assert golden_rounds(1000 * 1000) == 15


# optimum of half-duplex gossip on K_n by breadth-first search over knowledge states
COMPLETE_OPTIMA = {2: 2, 3: 4, 4: 4, 5: 5, 6: 5}


@pytest.mark.parametrize("n", sorted(COMPLETE_OPTIMA))
def test_sound_and_above_doubling_on_complete_graphs(n: int) -> None:
    g = plain_graph(nx.complete_graph(n))
    optimum = gossip_optimum(g, half_duplex_step(g, None)) if n <= 5 else COMPLETE_OPTIMA[n]
    assert optimum == COMPLETE_OPTIMA[n]
    b = half_duplex_golden_bound(make(g, "half-duplex", "gossip"))
    assert b is not None
    assert b.value <= optimum
    assert b.value == math.ceil(math.log(n) / math.log(PHI) - 1e-12)


def test_complete_six_brute_force() -> None:
    g = plain_graph(nx.complete_graph(6))
    assert gossip_optimum(g, half_duplex_step(g, None)) == COMPLETE_OPTIMA[6]


def test_stronger_than_the_telephone_bounds_where_it_should_be() -> None:
    # K_6: telephone needs 3 rounds; half-duplex at least 4 by the golden bound (optimum 5)
    i = parse_instance("complete:6", "half-duplex", "gossip")
    assert best_lower_bound(i).value == 4
    assert best_lower_bound(i).name == "half-duplex-golden"
    assert best_lower_bound(parse_instance("petersen", "half-duplex", "gossip")).value == 5
    assert bound_by_name(i, "half-duplex-golden") is not None


@pytest.mark.parametrize(
    ("spec", "problem", "block"),
    [
        ("path:4", "gather:0", (1, 3)),
        ("ring:5", "broadcast:0", (5, 1)),
        ("complete:5", "gossip", (5, 5)),
        ("star:5", "scatter:0", (5, 1)),  # everyone needs something only the source holds
    ],
)
def test_reach_block(spec: str, problem: str, block: tuple[int, int]) -> None:
    assert reach_block(parse_instance(spec, "half-duplex", problem)) == block


@pytest.mark.parametrize(
    ("spec", "problem"),
    [
        ("path:4", "gather:0"),
        ("complete:5", "gather:0"),
        ("complete:5", "broadcast:0"),
        ("ring:5", "gossip"),
        ("star:5", "gossip"),
        ("complete:4", "total-exchange"),
    ],
)
@pytest.mark.parametrize("model", ["half-duplex", "half-duplex:p=1"])
def test_sound_on_other_problems(spec: str, problem: str, model: str) -> None:
    i = parse_instance(spec, model, problem)
    b = half_duplex_golden_bound(i)
    if b is None:
        return
    cap = None if model == "half-duplex" else 1
    if cap == 1 and problem == "total-exchange":
        return  # the brute force of one-packet arcs is for one packet per node
    assert b.value <= instance_optimum(i, half_duplex_step(i.graph, cap))


def test_not_for_other_models() -> None:
    for model in ("telephone", "single-port:p=1", "multicast", "all-port"):
        assert half_duplex_golden_bound(parse_instance("complete:6", model, "gossip")) is None
