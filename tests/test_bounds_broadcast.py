"""The broadcast lower bounds against the plain search of ``test_broadcast_encoding``."""

from __future__ import annotations

import pytest
from test_broadcast_encoding import cases, reference_case

from gossipcert.closed_forms import all_bounds, distance_bound, doubling_bound
from gossipcert.closed_forms.broadcast import (
    broadcast_cut_bound,
    broadcast_layers_bound,
    layers_value,
    tree_broadcast_time,
)
from gossipcert.instance import parse_instance


def _check(max_n: int) -> tuple[list[str], int]:
    bad, stronger = [], 0
    for g, src in cases(max_n):
        name, inst, want = reference_case(g, src, "telephone")
        layers = broadcast_layers_bound(inst)
        cut = broadcast_cut_bound(inst)
        assert layers is not None and cut is not None
        if max(layers.value, cut.value) > want:
            bad.append(f"{name}: optimum {want}, {layers.value}, {cut.value}")
        old = max(distance_bound(inst).value, doubling_bound(inst).value)  # type: ignore[union-attr]
        assert layers.value >= old  # generalizes both
        stronger += max(layers.value, cut.value) > old
    return bad, stronger


def test_sound_on_small_graphs_and_sometimes_stronger() -> None:
    bad, stronger = _check(5)
    assert bad == []
    assert stronger > 10


@pytest.mark.slow
def test_sound_on_six_node_graphs() -> None:
    bad, stronger = _check(6)
    assert bad == []
    assert stronger > 100


def test_tree_broadcast_time() -> None:
    # binomial tree of order 3 (8 nodes) from its root: 3 rounds
    nbrs = [[1, 2, 4], [0, 3, 5], [0, 6], [1, 7], [0], [1], [2], [3]]
    assert tree_broadcast_time(nbrs, 0, set(range(8))) == 3
    # a path of 5 from one end: 4; from the middle: 3 (one side first, then the other)
    path = [[1], [0, 2], [1, 3], [2, 4], [3]]
    assert tree_broadcast_time(path, 0, set(range(5))) == 4
    assert tree_broadcast_time(path, 2, set(range(5))) == 3


def test_values() -> None:
    # star K_{1,5} from its centre: 5 (five leaves, one per round)
    star = parse_instance("star:6", "telephone", "broadcast:0")
    assert broadcast_cut_bound(star).value == 5  # type: ignore[union-attr]
    assert broadcast_layers_bound(star).value == 5  # type: ignore[union-attr]
    # node 0 of this graph has degree 5: its subtrees hold at most 2^10 - 2^5 < 999 other
    # nodes in 10 rounds, so 11 rounds (doubling alone gives 10)
    big = parse_instance("random:1000,5000,seed=1", "telephone", "broadcast:0")
    assert big.graph.degree(0) == 5
    assert doubling_bound(big).value == 10  # type: ignore[union-attr]
    assert broadcast_layers_bound(big).value == 11  # type: ignore[union-attr]
    # a path of 4 from its two middle nodes: one round
    assert layers_value([[1], [0, 2], [1, 3], [2]], [1, 2], [True] * 4) == 1
    names = [b.name for b in all_bounds(parse_instance("ring:6", "half-duplex", "broadcast:0"))]
    assert "broadcast-layers" in names and "broadcast-cut" in names
    assert broadcast_layers_bound(parse_instance("ring:6", "multicast", "broadcast:0")) is None
    assert broadcast_cut_bound(parse_instance("ring:6", "telephone", "gossip")) is None
