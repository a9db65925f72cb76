"""The call-order and call-rank broadcast bounds against the plain search of
``test_broadcast_encoding`` (every connected graph, one and two sources)."""

from __future__ import annotations

import networkx as nx
import pytest
from test_broadcast_encoding import cases, project_instance, reference_case, reference_time

from gossipcert.closed_forms import all_bounds
from gossipcert.closed_forms.broadcast import broadcast_cut_bound, broadcast_layers_bound
from gossipcert.closed_forms.broadcast_order import broadcast_order_bound, order_value
from gossipcert.closed_forms.broadcast_ranks import broadcast_ranks_bound, rank_sequences
from gossipcert.instance import parse_instance


def _check(max_n: int) -> tuple[list[str], int, int]:
    """Cases where a bound exceeds the optimum, and how often each bound is strictly above
    both ``broadcast-layers`` and ``broadcast-cut``."""
    bad: list[str] = []
    order_wins = ranks_wins = 0
    for g, src in cases(max_n):
        name, inst, want = reference_case(g, src, "telephone")
        order = broadcast_order_bound(inst)
        ranks = broadcast_ranks_bound(inst)
        assert order is not None and ranks is not None
        if max(order.value, ranks.value) > want:
            bad.append(f"{name}: optimum {want}, {order.value}, {ranks.value}")
        old = max(broadcast_layers_bound(inst).value, broadcast_cut_bound(inst).value)  # type: ignore[union-attr]
        order_wins += order.value > old
        ranks_wins += ranks.value > old
    return bad, order_wins, ranks_wins


def test_sound_on_small_graphs() -> None:
    bad, _, _ = _check(5)
    assert bad == []


@pytest.mark.slow
def test_sound_on_six_node_graphs() -> None:
    # up to 6 nodes neither bound is above both older ones (checked: 0 and 0 cases); the
    # cases below, on 7 and 8 nodes, are
    bad, _, _ = _check(6)
    assert bad == []


# graphs (from node 0) where one of the new bounds is strictly above broadcast-layers and
# broadcast-cut (both 3 there) and meets the optimum of the plain search (4)
_ORDER_WINS = (
    ((0, 5), (0, 6), (1, 2), (1, 4), (2, 5), (2, 6), (3, 4), (3, 5), (3, 6), (5, 6)),
    ((0, 1), (0, 2), (0, 4), (1, 2), (1, 7), (2, 5), (3, 4), (6, 7)),
)
_RANKS_WINS = (
    ((0, 1), (0, 6), (0, 7), (1, 6), (2, 3), (2, 6), (3, 4), (4, 5), (4, 6), (4, 7)),
    ((0, 1), (0, 2), (1, 4), (2, 3), (2, 4), (3, 4), (3, 5), (3, 6), (4, 5), (4, 6)),
)


@pytest.mark.parametrize(
    ("edges", "which"),
    [(e, "order") for e in _ORDER_WINS] + [(e, "ranks") for e in _RANKS_WINS],
)
def test_strictly_above_the_older_bounds(edges: tuple[tuple[int, int], ...], which: str) -> None:
    g = nx.Graph(edges)
    g = nx.convert_node_labels_to_integers(g, ordering="sorted")
    n = g.number_of_nodes()
    inst = project_instance(g, "telephone", (0,))
    want = reference_time(n, edges, (0,), False)
    old = max(broadcast_layers_bound(inst).value, broadcast_cut_bound(inst).value)  # type: ignore[union-attr]
    bound = broadcast_order_bound(inst) if which == "order" else broadcast_ranks_bound(inst)
    assert bound is not None
    assert (old, bound.value, want) == (3, 4, 4)


def test_rank_sequences() -> None:
    # all compositions: C(R, L) of each length L
    assert rank_sequences(9, 9, 5) == [0, 5, 10, 10, 5, 1]
    # ranks 1 only below the first call: one sequence per first rank and length
    assert rank_sequences(3, 1, 4) == [0, 3, 3, 2, 1]


def test_order_values() -> None:
    # star K_{1,3} from its centre: 3; the spider with three legs of two nodes: the leg
    # called third ends at 3 + 1 (the distance is 2, and layers count 7 nodes in 3 rounds)
    assert order_value([[1, 2, 3], [0], [0], [0]], [0], [True] * 4) == 3
    spider = [[1, 2, 3], [0, 4], [0, 5], [0, 6], [1], [2], [3]]
    assert order_value(spider, [0], [True] * 7) == 4
    # two sources at the ends of a path of 5: the middle node is 2 away from both
    assert order_value([[1], [0, 2], [1, 3], [2, 4], [3]], [0, 4], [True] * 5) == 2


def test_ranks_values_on_table4_graphs() -> None:
    # odd CCC: the table's ceil(5k/2) - 2 = diameter + 1 (two antipodal nodes, one chain of
    # first calls); the layer bound stops at the diameter
    for spec, value in (("ccc:5", 11), ("ccc:7", 16)):
        inst = parse_instance(spec, "telephone", "broadcast:0")
        assert broadcast_ranks_bound(inst).value == value  # type: ignore[union-attr]
        assert broadcast_layers_bound(inst).value == value - 1  # type: ignore[union-attr]
    inst = parse_instance("debruijn:8", "telephone", "broadcast:0")
    assert broadcast_ranks_bound(inst).value == 10  # type: ignore[union-attr]
    names = [b.name for b in all_bounds(parse_instance("ring:6", "half-duplex", "broadcast:0"))]
    assert "broadcast-ranks" in names and "broadcast-order" in names
    assert broadcast_ranks_bound(parse_instance("ring:6", "multicast", "broadcast:0")) is None
    assert broadcast_order_bound(parse_instance("ring:6", "telephone", "gossip")) is None
