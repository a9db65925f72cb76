"""Graphs of one's own from Python, named as networkx names them: strings, and the tuples
of its grid, torus and product generators (or names with commas). Every problem kind is
solved, its schedule read back in the graph's own names, verified as written in those names,
and what a shortened schedule leaves unmet is named in them too."""

from __future__ import annotations

from typing import Any

import networkx as nx
import pytest

import gossipcert
from gossipcert.errors import SpecError
from gossipcert.instance import problem_from_dict

GRAPHS = {
    "path-strings": lambda: nx.path_graph(["a", "b", "c"]),
    "grid-tuples": lambda: nx.grid_2d_graph(2, 3),
    "torus-tuples": lambda: nx.grid_2d_graph(3, 3, periodic=True),
    "product-tuples": lambda: nx.cartesian_product(nx.path_graph(2), nx.cycle_graph(3)),
    "grid-commas": lambda: nx.relabel_nodes(nx.grid_2d_graph(2, 2), lambda rc: f"{rc[0]},{rc[1]}"),
}

#: (problem spec, which root: None, "one" (the last node) or "two" (the first and the last))
PROBLEMS = [
    ("gossip", None),
    ("gossip:chunks=2", None),
    ("broadcast", "one"),
    ("broadcast", "two"),
    ("scatter", "one"),
    ("gather", "one"),
    ("total-exchange", None),
    ("total-exchange:chunks=2", None),
    ("reduce", "one"),
    ("reduce-scatter", None),
    ("allreduce", None),
]


def _root(graph: nx.Graph, which: str | None) -> Any:
    nodes = list(graph.nodes)
    if which == "one":
        return nodes[-1]
    if which == "two":
        return [nodes[0], nodes[-1]]
    return None


def _packet_nodes(name: Any, spec: str, which: str | None) -> list[Any]:
    """The nodes a packet's name names: its node, its pair (total exchange), its sources (a
    broadcast from two nodes); under ``chunks=K`` the name is ``(that, k)``."""
    if "chunks=" in spec:
        name = name[0]
    if spec.startswith("total-exchange") or which == "two":
        return list(name)
    return [name]


@pytest.mark.parametrize("graph", list(GRAPHS))
@pytest.mark.parametrize(("problem", "which"), PROBLEMS)
def test_every_problem_in_the_graphs_own_names(graph: str, problem: str, which: str) -> None:
    G = GRAPHS[graph]()
    if graph == "torus-tuples" and problem == "allreduce":
        G = nx.grid_2d_graph(2, 2, periodic=False)  # the 3x3 torus takes half a minute
    nodes = set(G.nodes)
    root = _root(G, which)
    res = gossipcert.solve(G, "telephone", problem, root=root)
    assert res.status.value == "optimal"
    named = res.named_rounds()
    assert len(named) == res.optimum
    for rnd in named:
        for sender, receivers, packets in rnd:
            assert sender in nodes and set(receivers) <= nodes
            assert G.has_edge(sender, receivers[0])
            if packets != ("all",):
                for packet in packets:
                    assert set(_packet_nodes(packet, problem, which)) <= nodes, packet
    # the schedule written in the graph's own names is the schedule
    sched = res.named_schedule()
    assert sched is not None
    rep = gossipcert.verify(G, sched, "telephone", problem, root=root)
    assert rep.ok and rep.rounds == res.optimum
    # a shortened schedule leaves demands, named as the graph names its nodes
    short = {"rounds": sched["rounds"][:-1]}
    rep = gossipcert.verify(G, short, "telephone", problem, root=root)
    assert rep.valid and not rep.complete
    reduction = problem.startswith(("reduce", "allreduce"))
    unmet = rep.named_missing() if reduction else rep.named_unmet()
    assert unmet
    for node, packet, *contributor in unmet:
        assert node in nodes and set(contributor) <= nodes
        assert set(_packet_nodes(packet, problem, which)) <= nodes, (node, packet)


@pytest.mark.parametrize("model", ["all-port", "single-port:p=1"])
def test_named_rounds_of_an_alltoall_on_a_path_of_strings(model: str) -> None:
    """It raised TypeError (list indices must be integers or slices, not str)."""
    res = gossipcert.solve(nx.path_graph(["a", "b", "c"]), model, "alltoall")
    moved = sorted(p for rnd in res.named_rounds() for _, _, packets in rnd for p in packets)
    assert set(moved) == {(u, v) for u in "abc" for v in "abc" if u != v}


def test_nodes_named_by_numbers_in_another_order_keep_their_names() -> None:
    """Packets were named through the node's text taken as an index."""
    G = nx.Graph([(5, 3), (3, 1)])
    res = gossipcert.solve(G, "telephone", "gossip")
    packets = {p for rnd in res.named_rounds() for _, _, ps in rnd for p in ps}
    assert packets == {5, 3, 1} or packets == {"all"}
    rep = gossipcert.verify(G, [[{"from": 5, "to": [3], "packets": [5]}]], "telephone", "gossip")
    assert rep.valid and (3, 5) not in rep.named_unmet() and (1, 5) in rep.named_unmet()


def test_a_torus_root_named_in_the_spec_with_its_comma() -> None:
    """``broadcast:(1, 2)`` gave "unknown node '(1'"."""
    torus = nx.grid_2d_graph(4, 4, periodic=True)
    spec = gossipcert.solve(torus, "half-duplex", "broadcast:(1, 2)", time_limit=60)
    tight = gossipcert.solve(torus, "half-duplex", "broadcast:(1,2)", time_limit=60)
    keyword = gossipcert.solve(torus, "half-duplex", "broadcast", root=(1, 2), time_limit=60)
    assert spec.optimum == tight.optimum == keyword.optimum == 4  # the torus's eccentricity
    assert spec.named_rounds()[0][0][0] == (1, 2)
    two = gossipcert.as_instance(torus, "telephone", "broadcast:(1, 2),(3, 3)")
    assert sorted(v for v in range(16) if two.holdings[v]) == [6, 15]


def test_a_name_with_commas_is_one_node_and_a_list_is_several() -> None:
    G = nx.relabel_nodes(nx.grid_2d_graph(2, 2), lambda rc: f"{rc[0]},{rc[1]}")
    one = gossipcert.as_instance(G, "telephone", "broadcast", root="0,1")
    assert sum(1 for h in one.holdings if h) == 1
    assert gossipcert.as_instance(G, "telephone", "scatter", root="1,1").problem.root == "1,1"
    # in a spec, plain numbers separated by commas are several nodes (reduce:0,1 is refused
    # before any graph is read); root= takes any name
    with pytest.raises(SpecError, match="has one root"):
        gossipcert.as_instance(G, "telephone", "scatter:1,1")
    two = gossipcert.as_instance(G, "telephone", "broadcast", root=["0,0", "1,1"])
    assert sum(1 for h in two.holdings if h) == 2
    with pytest.raises(SpecError, match="has one root"):
        gossipcert.as_instance(G, "telephone", "scatter", root=["0,0", "1,1"])


def test_a_root_given_twice_or_to_a_problem_without_one_is_refused() -> None:
    G = nx.path_graph(["a", "b"])
    with pytest.raises(SpecError, match="names its root"):
        gossipcert.as_instance(G, "telephone", "broadcast:a", root="b")
    with pytest.raises(SpecError, match="has no root"):
        gossipcert.as_instance(G, "telephone", "gossip", root="a")
    with pytest.raises(SpecError, match="unknown node"):
        gossipcert.as_instance(G, "telephone", "broadcast", root="z")


def test_verify_takes_a_torus_schedule_in_the_torus_names() -> None:
    """It refused ``(0, 0)`` (ScheduleFormatError: a node must be a number or a label)."""
    torus = nx.grid_2d_graph(3, 3, periodic=True)
    first = [{"from": (0, 0), "to": [(0, 1)], "packets": "all"}]
    rep = gossipcert.verify(torus, {"rounds": [first]}, "telephone", "broadcast", root=(0, 0))
    assert rep.valid and len(rep.unmet) == 7
    assert (0, 1) not in {node for node, _ in rep.named_unmet()}
    assert {packet for _, packet in rep.named_unmet()} == {(0, 0)}
    # as JSON gives tuples back: lists
    as_json = [[{"from": [0, 0], "to": [[0, 1]], "packets": [[0, 0]]}]]
    again = gossipcert.verify(torus, as_json, "telephone", "gossip")
    assert again.valid and ((0, 1), (0, 0)) not in again.named_unmet()


def test_a_custom_problem_keyed_by_the_graphs_names() -> None:
    G = nx.grid_2d_graph(2, 2)
    problem = problem_from_dict(
        {"holdings": {(0, 0): ["x"]}, "demands": {(1, 1): ["x"], (0, 1): ["x"]}}, "mine"
    )
    res = gossipcert.solve(G, "telephone", problem)
    assert res.optimum == 2
    rep = gossipcert.verify(G, res.named_schedule(), "telephone", problem)
    assert rep.ok
    assert gossipcert.verify(G, [], "telephone", problem).named_unmet() == [
        ((0, 1), "x"),
        ((1, 1), "x"),
    ]


def test_a_schedule_file_in_the_graphs_names_reads_back(tmp_path) -> None:
    """JSON writes the torus's tuples as lists: the file verifies as the schedule did."""
    import json

    torus = nx.grid_2d_graph(3, 3, periodic=True)
    res = gossipcert.solve(torus, "telephone", "gossip")
    path = tmp_path / "torus.json"
    path.write_text(json.dumps(res.named_schedule()))
    rep = gossipcert.verify(torus, path, "telephone", "gossip")
    assert rep.ok and rep.rounds == res.optimum
    part = res.write_partial(tmp_path / "part.json")  # labels, as every file gossipcert writes
    assert gossipcert.verify(torus, part, "telephone", "gossip").ok
