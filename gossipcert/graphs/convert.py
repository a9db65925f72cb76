"""A networkx graph of the user's own, with any hashable node names, as a gossipcert graph.

gossipcert's graphs number their nodes ``0..n-1`` and keep each node's name as the string
``"label"`` (which every JSON output shows). A graph given from Python keeps its original
node objects too, in ``graph.graph["nodes"]`` (in the order of ``G.nodes``), so that results
can name nodes as the user did.
"""

from __future__ import annotations

from collections.abc import Hashable

import networkx as nx

from gossipcert.errors import GraphError


def from_networkx(G: nx.Graph) -> nx.Graph:  # noqa: N803  (networkx's name for a graph)
    """The gossipcert graph of a networkx graph with any hashable node names.

    Nodes are numbered in the order of ``G.nodes``; an edge's ``capacity`` and ``latency``
    attributes (whole numbers of at least 1, default 1; a latency is the rounds a packet
    spends on the edge, all-port only) and a node's ``router`` attribute (default False)
    are kept.

    Parameters
    ----------
    G : networkx.Graph
        Undirected, simple (no self-loops, no parallel edges), connected, not empty.

    Returns
    -------
    networkx.Graph
        Nodes ``0..n-1`` with ``label`` (``str`` of the original name) and ``router``;
        ``graph["nodes"]`` lists the original names.

    Raises
    ------
    GraphError
        A directed graph or a multigraph, a self-loop, an empty or disconnected graph, a
        capacity or latency that is not a whole number of at least 1, or two node names
        with the same text (``1`` and ``"1"``), which no output could tell apart.

    Examples
    --------
    >>> g = from_networkx(nx.Graph([("a", "b"), ("b", "c")]))
    >>> sorted(g.edges), [g.nodes[v]["label"] for v in g], g.graph["nodes"]
    ([(0, 1), (1, 2)], ['a', 'b', 'c'], ['a', 'b', 'c'])
    >>> from_networkx(nx.Graph([(1, 1), (1, 2)]))
    Traceback (most recent call last):
    ...
    gossipcert.errors.GraphError: self-loop at node 1: the graph must be simple
    """
    if not isinstance(G, nx.Graph):
        raise GraphError(f"expected a networkx graph, got {type(G).__name__}")
    if G.is_directed():
        raise GraphError("the graph is directed: gossipcert's graphs are undirected")
    if G.is_multigraph():
        raise GraphError("the graph is a multigraph: give capacities instead of parallel edges")
    if G.number_of_nodes() == 0:
        raise GraphError("the graph is empty (no nodes)")
    loops = list(nx.selfloop_edges(G))
    if loops:
        raise GraphError(f"self-loop at node {loops[0][0]!r}: the graph must be simple")
    if not nx.is_connected(G):
        parts = nx.number_connected_components(G)
        raise GraphError(f"the graph is disconnected ({parts} components)")
    names: list[Hashable] = list(G.nodes)
    index = {name: v for v, name in enumerate(names)}
    texts: dict[str, Hashable] = {}
    for name in names:
        other = texts.setdefault(str(name), name)
        if other is not name and other != name:
            raise GraphError(f"nodes {other!r} and {name!r} have the same text {str(name)!r}")
    g = nx.Graph(spec=None, nodes=names)
    for name in names:
        g.add_node(index[name], label=str(name), router=bool(G.nodes[name].get("router", False)))
    for u, v, data in G.edges(data=True):
        cap, lat = data.get("capacity", 1), data.get("latency", 1)
        for what, value in (("capacity", cap), ("latency", lat)):
            if not isinstance(value, int) or isinstance(value, bool) or value < 1:
                raise GraphError(
                    f"edge {u!r} -- {v!r}: {what} {value!r} is not a whole number >= 1"
                )
        g.add_edge(index[u], index[v], capacity=cap)
        if lat != 1:  # a latency of 1 is every edge's default, not stored (as in graph files)
            g[index[u]][index[v]]["latency"] = lat
    return g
