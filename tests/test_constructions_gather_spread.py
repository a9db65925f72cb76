"""The universal fallback construction, checked by the verifier in every model and problem.

Every schedule is replayed by :func:`gossipcert.simulate.simulate`; the lengths on stars are
compared with the optima derived in :mod:`gossipcert.closed_forms` (half-duplex ``2(n-1)``,
telephone ``2n-3``), which the construction reaches there.
"""

from __future__ import annotations

import networkx as nx
import pytest

from gossipcert import graphs
from gossipcert.constructions.catalog import construct, upper_bound_candidates
from gossipcert.constructions.gather_spread import gather_spread
from gossipcert.instance import (
    Instance,
    make_instance,
    parse_instance,
    parse_model,
    parse_problem,
    problem_from_dict,
)
from gossipcert.simulate import simulate

MODELS = [
    "telephone",
    "telephone:p=1",
    "telephone:p=2,calls=2",
    "sequential",
    "sequential:p=1",
    "half-duplex",
    "half-duplex:p=1",
    "half-duplex:calls=1",
    "single-port",
    "single-port:p=3",
    "multicast",
    "multicast:p=2,calls=2",
    "all-port",
    "all-port:c=2",
    "all-port:calls=1",
]
PROBLEMS = ["gossip", "broadcast:0", "broadcast:3", "scatter:2", "gather:1", "total-exchange"]
GRAPHS = ["path:5", "star:6", "ring:7", "petersen", "mesh:2x3", "fattree:4", "complete:4"]


def solved_in(instance: Instance) -> int:
    sched = gather_spread(instance)
    rep = simulate(instance, sched)
    assert rep.valid, rep.errors[:3]
    assert rep.complete, rep.unmet[:3]
    assert rep.rounds == len(sched)
    # the termination argument: every round teaches some node a packet it lacked
    assert len(sched) <= instance.n * instance.n_packets
    return len(sched)


@pytest.mark.parametrize("model", MODELS)
@pytest.mark.parametrize("graph", GRAPHS)
def test_every_model_and_problem(graph: str, model: str) -> None:
    for problem in PROBLEMS:
        if graph.startswith("fattree"):  # routers hold nothing: roots among the leaves
            problem = problem.replace(":3", ":0").replace(":2", ":1")
        solved_in(parse_instance(graph, model, problem))


def test_custom_problem_on_a_disconnected_graph() -> None:
    # two components; each demand has a holder in its own component
    g = graphs.from_spec("path:6")
    g.remove_edge(2, 3)
    data = {
        "packets": ["a", "b", "c"],
        "holdings": {"0": ["a"], "5": ["b", "c"]},
        "demands": {"2": ["a"], "1": ["a"], "3": ["b", "c"], "4": ["c"]},
    }
    for model in MODELS:
        inst = make_instance(g, parse_model(model), problem_from_dict(data, "custom"))
        solved_in(inst)


def test_nothing_to_do_is_an_empty_schedule() -> None:
    data = {"holdings": {"0": ["a"]}, "demands": {"0": ["a"]}}
    inst = make_instance(
        graphs.from_spec("path:3"), parse_model("half-duplex"), problem_from_dict(data, "x")
    )
    assert len(gather_spread(inst)) == 0


@pytest.mark.parametrize("n", range(3, 13))
def test_stars_reach_the_optima(n: int) -> None:
    # half-duplex: the centre receives n-1 times and sends n-1 times, one each round
    assert solved_in(parse_instance(f"star:{n}", "half-duplex", "gossip")) == 2 * (n - 1)
    assert solved_in(parse_instance(f"star:{n}", "telephone", "gossip")) == 2 * n - 3
    # broadcast from the centre: one leaf a round
    assert solved_in(parse_instance(f"star:{n}", "half-duplex", "broadcast:0")) == n - 1


def test_random_graphs_every_model() -> None:
    for seed in range(12):
        g = nx.gnm_random_graph(9, 14, seed=seed)
        if not nx.is_connected(g):
            continue
        for model in MODELS:
            for problem in ("gossip", "broadcast:4", "total-exchange"):
                solved_in(make_instance(g, parse_model(model), parse_problem(problem)))


def test_given_roots_and_catalogue() -> None:
    inst = parse_instance("path:5", "half-duplex", "gossip")
    # rooted at an end, gathering takes longer than from the centre
    assert len(gather_spread(inst, roots=[0])) > len(gather_spread(inst, roots=[2]))
    assert len(construct(inst, "gather-spread")) == len(gather_spread(inst))
    for model in MODELS:
        inst = parse_instance("star:5", model, "gossip")
        names = [name for name, _ in upper_bound_candidates(inst)]
        assert "gather-spread" in names


def test_capped_transmissions_carry_at_most_p() -> None:
    inst = parse_instance("complete:5", "half-duplex:p=2", "gossip")
    for rnd in gather_spread(inst):
        for tr in rnd:
            assert tr.packets is not None and 1 <= tr.packets.bit_count() <= 2
    inst = parse_instance("complete:5", "half-duplex", "gossip")
    assert all(tr.packets is None for rnd in gather_spread(inst) for tr in rnd)
