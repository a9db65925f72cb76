"""The broadcast greedy: verified schedules, optimal where the optimum is known."""

from __future__ import annotations

import pytest

from gossipcert.closed_forms import best_lower_bound
from gossipcert.errors import UnsupportedModelError
from gossipcert.heuristics.broadcast import broadcast_greedy
from gossipcert.instance import parse_instance
from gossipcert.simulate import simulate


@pytest.mark.parametrize(
    "graph,model,problem,optimum",
    [
        ("hypercube:4", "telephone", "broadcast:0", 4),  # binomial tree
        ("star:5", "half-duplex", "broadcast:0", 4),  # one leaf per round
        ("path:6", "telephone", "broadcast:0", 5),
        ("path:7", "telephone", "broadcast:3", 4),  # one side first, then the other
        ("ring:10", "single-port:p=1", "broadcast:0,5", 3),
        ("complete:9", "telephone", "broadcast:0", 4),
    ],
)
def test_optimal_on_simple_graphs(graph: str, model: str, problem: str, optimum: int) -> None:
    inst = parse_instance(graph, model, problem)
    rep = simulate(inst, broadcast_greedy(inst))
    assert rep.ok and rep.rounds == optimum


def test_verified_and_above_the_lower_bound_on_larger_graphs() -> None:
    for graph in ("random:300,900,seed=3", "butterfly:4", "debruijn:6", "ccc:4"):
        inst = parse_instance(graph, "telephone", "broadcast:0")
        rep = simulate(inst, broadcast_greedy(inst, trials=5))
        assert rep.ok and rep.rounds is not None
        assert rep.rounds >= best_lower_bound(inst).value


def test_restarts_never_worse_than_the_first_trial() -> None:
    inst = parse_instance("random:400,1200,seed=5", "telephone", "broadcast:0")
    one = simulate(inst, broadcast_greedy(inst, trials=1)).rounds
    many = simulate(inst, broadcast_greedy(inst, trials=20, seconds=30)).rounds
    assert one is not None and many is not None and many <= one


def test_unsupported() -> None:
    with pytest.raises(UnsupportedModelError):
        broadcast_greedy(parse_instance("ring:5", "telephone", "gossip"))
    with pytest.raises(UnsupportedModelError):
        broadcast_greedy(parse_instance("ring:5", "multicast", "broadcast:0"))
