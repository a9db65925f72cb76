"""The cut lower bound: sound against the independent references, and its values by hand.

The all-port references are those of ``test_exact_bruteforce_allport`` (capacities 1 and 2,
with and without routers, every problem); the packet-capped models are checked against the
reference of ``test_exact_bruteforce_packets`` (gossip and broadcast).
"""

from __future__ import annotations

import pytest
from test_exact_bruteforce_allport import (
    PATTERNS,
    PROBLEMS,
    atlas,
    capacitated,
    max_nodes,
    project_instance,
    reference_optimum,
    root_of,
    router_sets,
)
from test_exact_bruteforce_packets import brute_force as packets_brute_force
from test_exact_bruteforce_packets import cases
from test_exact_bruteforce_packets import project_instance as packets_instance

from gossipcert.closed_forms import best_lower_bound, cut_bound
from gossipcert.closed_forms.cuts import cut_capacity
from gossipcert.instance import parse_instance


@pytest.mark.parametrize("problem", PROBLEMS)
def test_cut_bound_is_sound_all_port(problem: str) -> None:
    tight = 0
    for _, n, plain in atlas(max_nodes(problem)):
        for routers in router_sets(n, plain):
            spec = problem if problem in ("gossip", "total-exchange") else f"{problem}:"
            if spec.endswith(":"):
                spec += str(root_of(routers, n))
            for pattern in PATTERNS:
                edges = capacitated(plain, pattern)
                expected = reference_optimum(n, edges, routers, spec)
                b = cut_bound(project_instance(n, edges, routers, spec))
                if b is not None:
                    assert b.value <= expected, (plain, routers, spec, pattern, b)
                    tight += b.value == expected
    assert tight > 0  # the bound is reached somewhere


@pytest.mark.parametrize("problem", ["gossip", "broadcast:0"])
@pytest.mark.parametrize(
    "model", ["single-port", "single-port:p=2", "telephone:p=1", "half-duplex:p=1", "multicast"]
)
def test_cut_bound_is_sound_packet_models(model: str, problem: str) -> None:
    for _, n, edges in cases(4):
        b = cut_bound(packets_instance(n, edges, model, problem))
        if b is not None:
            assert b.value <= packets_brute_force(n, edges, model, problem), (edges, b)


@pytest.mark.parametrize(
    ("graph", "model", "problem", "expected"),
    [
        # the root cut of a fat tree: n^2/4 packets over one arc, 1 + log n hops before, log n after
        ("fattree:4", "all-port", "total-exchange", 2 - 1 + 4 + 2),
        ("fattree:8", "all-port", "total-exchange", 3 - 1 + 16 + 3),
        ("fattree:8:exp", "all-port", "total-exchange", 9),
        # scatter on a path: n - 1 packets through the first arc, the last one goes 1 hop
        ("path:5", "all-port", "scatter:0", 4),
        ("path:5", "all-port:c=2", "scatter:0", 4),
        # single-port gossip on a ring: n - 1 packets enter a node, one a round
        ("ring:6", "single-port", "gossip", 5),
        # a leaf of a star: the centre's packet can cross in round 1, the other three
        # leaves' packets from round 2 on, two a round (the threshold on heads; the
        # optimum is 3, `gather-spread`)
        ("star:5", "all-port:c=2", "gossip", 3),
        ("debruijn:5", "all-port:c=2", "gossip", 9),
    ],
)
def test_cut_bound_values(graph: str, model: str, problem: str, expected: int) -> None:
    inst = parse_instance(graph, model, problem)
    b = cut_bound(inst)
    assert b is not None and b.value == expected
    assert best_lower_bound(inst).value >= expected


def test_cut_capacity_per_model() -> None:
    side = frozenset({0})
    assert cut_capacity(parse_instance("star:5", "all-port:c=3", "gossip"), side) == 12
    assert cut_capacity(parse_instance("star:5", "single-port:p=2", "gossip"), side) == 2
    assert cut_capacity(parse_instance("star:5", "multicast", "gossip"), side) == 1
    assert cut_capacity(parse_instance("star:5", "telephone", "gossip"), side) is None
    assert cut_bound(parse_instance("star:5", "telephone", "gossip")) is None


@pytest.mark.parametrize("model", ["telephone:p={}", "single-port:p={}", "all-port:c={}"])
def test_cut_bound_capacity_beyond_int64(model: str) -> None:
    # a cap above every packet that crosses bounds like one equal to the number of packets,
    # also when it does not fit a 64-bit integer
    huge = cut_bound(parse_instance("ring:6", model.format(10**23), "gossip"))
    enough = cut_bound(parse_instance("ring:6", model.format(6), "gossip"))
    assert huge is not None and enough is not None
    assert huge.value == enough.value == 3
