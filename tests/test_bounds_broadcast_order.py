"""The call-order broadcast bound against the plain search of ``test_broadcast_encoding``."""

from __future__ import annotations

import itertools

import pytest
from test_broadcast_encoding import connected_graphs, project_instance, reference_time

from gossipcert.bounds import distance_bound
from gossipcert.bounds.broadcast_order import broadcast_order_bound, order_value
from gossipcert.instance import parse_instance


def _check(max_n: int) -> list[str]:
    bad = []
    for g in connected_graphs(max_n):
        n = g.number_of_nodes()
        edges = tuple(sorted((min(e), max(e)) for e in g.edges))
        for src in [(s,) for s in range(n)] + list(itertools.combinations(range(n), 2)):
            inst = project_instance(g, "telephone", src)
            want = reference_time(n, edges, src, False)
            order = broadcast_order_bound(inst)
            assert order is not None
            assert order.value >= distance_bound(inst).value  # type: ignore[union-attr]
            if order.value > want:
                bad.append(f"{edges} from {src}: optimum {want}, order {order.value}")
    return bad


def test_sound_on_small_graphs() -> None:
    assert _check(5) == []


@pytest.mark.slow
def test_sound_on_six_node_graphs() -> None:
    assert _check(6) == []


def test_opposite_sides_wait_a_round() -> None:
    # path 0-1-2-3-4-5-6 from 2: node 0 (2 away) and node 6 (4 away) lie behind different
    # first calls; calling 3 first reaches 6 at round 4 and 0 at round 3: optimum 4
    path = [[1], [0, 2], [1, 3], [2, 4], [3, 5], [4, 6], [5]]
    assert order_value(path, [2], [True] * 7) == 4
    # from 3 (the middle) both ends are 3 away, one waits: 4, one above the distance bound
    assert order_value(path, [3], [True] * 7) == 4
    # a star with 4 leaves: the centre calls them one per round
    star = [[1, 2, 3, 4], [0], [0], [0], [0]]
    assert order_value(star, [0], [True] * 5) == 4


def test_two_sources_and_models() -> None:
    inst = parse_instance("path:9", "telephone", "broadcast:0,8")
    # both ends hold the packet: each covers its half, the middle node 4 is 4 away
    assert broadcast_order_bound(inst).value == 4  # type: ignore[union-attr]
    assert broadcast_order_bound(parse_instance("path:5", "half-duplex", "broadcast:2")) is not None
