"""Pictures of a networkx graph of one's own: titled by what it is, and grids, tori and
products drawn on the coordinates networkx names their nodes by."""

from __future__ import annotations

import networkx as nx
import pytest

import gossipcert
from gossipcert.plot import draw_knowledge, draw_rounds, layout


def test_a_networkx_graph_is_not_titled_none() -> None:
    """``draw_knowledge`` was titled "None · telephone · gossip"."""
    res = gossipcert.solve(nx.cycle_graph(["a", "b", "c", "d"]), "telephone", "gossip")
    knowledge = draw_knowledge(res.instance, res.schedule).get_suptitle()
    assert knowledge == "knowledge growth: a graph of 4 nodes · telephone · gossip"
    rounds = draw_rounds(res.instance, res.schedule).get_suptitle()
    assert rounds.startswith("a graph of 4 nodes · telephone · gossip")


@pytest.mark.parametrize(
    "graph",
    [
        nx.grid_2d_graph(3, 4),
        nx.grid_2d_graph(3, 4, periodic=True),
        nx.cartesian_product(nx.path_graph(3), nx.cycle_graph(4)),
    ],
)
def test_grids_tori_and_products_are_drawn_on_their_coordinates(graph: nx.Graph) -> None:
    """They got a generic (Kamada-Kawai) layout."""
    instance = gossipcert.as_instance(graph, "telephone", "gossip")
    pos = layout(instance.graph)
    names = instance.graph.graph["nodes"]
    assert {pos[v] for v in pos} == {(float(c), -float(r)) for r, c in names}
    assert all(pos[v] == (float(names[v][1]), -float(names[v][0])) for v in pos)


def test_other_names_keep_the_generic_layout() -> None:
    instance = gossipcert.as_instance(nx.path_graph(["a", "b", "c"]), "telephone", "gossip")
    assert len(set(layout(instance.graph).values())) == 3
