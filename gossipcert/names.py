"""The graph's own node names: from gossipcert's node numbers to the user's names and back.

gossipcert numbers a graph's nodes ``0..n-1``. A networkx graph given from Python keeps its
node objects, whatever they are (``"a"``, ``(0, 1)`` as networkx's grid, torus and product
generators make, ``3``), in ``graph.graph["nodes"]``
(:func:`gossipcert.graphs.convert.from_networkx`); any other graph names its nodes by
their references (:func:`gossipcert.graphs.node_ref`: the label, as an int when it is the
decimal form of one). These functions translate both ways:

- :func:`node_name` and :func:`packet_name`: a node's and a packet's name as the user's
  graph has it (a packet of a built-in problem is named by its node, its pair of nodes, or
  with ``chunks=K`` by ``(that, k)``; a custom problem's packets keep their own names);
- :func:`node_index`: the number of the node a name (or a reference, or an index) names;
- :func:`root_text`: the root text of a problem (``broadcast:TEXT``) for one or several
  named nodes;
- :func:`schedule_in_references`: a schedule's JSON written with the graph's own names
  (tuples, or lists as JSON gives them back) rewritten with the references the schedule
  reader takes.

Examples
--------
>>> import networkx as nx
>>> from gossipcert.graphs.convert import from_networkx
>>> g = from_networkx(nx.grid_2d_graph(2, 2))
>>> node_index(g, (1, 0)), node_name(g, 2), root_text(g, [(0, 0), (1, 1)])
(2, (1, 0), '(0, 0),(1, 1)')
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any

import networkx as nx

from gossipcert import graphs
from gossipcert.errors import SpecError
from gossipcert.instance import Instance, ProblemKind

__all__ = [
    "node_index",
    "node_name",
    "packet_name",
    "root_text",
    "schedule_in_references",
]


def _hashable(value: Any) -> Any:
    """JSON lists as tuples (a tuple name comes back from JSON as a list)."""
    if isinstance(value, list):
        return tuple(_hashable(x) for x in value)
    return value


def _name_index(graph: nx.Graph) -> dict[Any, int] | None:
    """The graph's own names to node numbers (None: the graph has no names of its own)."""
    names = graph.graph.get("nodes")
    if names is None:
        return None
    index = graph.graph.get("_name_index")
    if index is None or len(index) != len(names):
        index = {name: v for v, name in enumerate(names)}
        graph.graph["_name_index"] = index
    return index


def node_name(graph: nx.Graph, v: int) -> Hashable:
    """The name of node ``v`` as the user's graph has it.

    Parameters
    ----------
    graph : networkx.Graph
        A gossipcert graph (nodes ``0..n-1``).
    v : int
        A node number.

    Returns
    -------
    hashable
        The networkx graph's own node object, or the node's reference for a graph built
        from a spec or a file.

    Examples
    --------
    >>> from gossipcert.graphs import from_spec
    >>> node_name(from_spec("ring:4"), 3)
    3
    """
    names = graph.graph.get("nodes")
    return names[v] if names is not None else graphs.node_ref(graph, v)


def node_index(graph: nx.Graph, name: Any) -> int:
    """The number of the node that ``name`` names.

    A node of the user's own graph is looked up as an object (a JSON list is taken as the
    tuple it was written from); anything else as a node's reference or number
    (:func:`gossipcert.graphs.resolve_node`).

    Parameters
    ----------
    graph : networkx.Graph
    name : hashable
        A node's own name, label or number.

    Returns
    -------
    int

    Raises
    ------
    SpecError
        ``name`` names no node.

    Examples
    --------
    >>> import networkx as nx
    >>> from gossipcert.graphs.convert import from_networkx
    >>> g = from_networkx(nx.cycle_graph(["x", "y", "z"]))
    >>> node_index(g, "z"), node_index(g, 1)
    (2, 1)
    """
    index = _name_index(graph)
    key = _hashable(name)
    if index is not None:
        try:
            hit = index.get(key)
        except TypeError:  # not hashable
            hit = None
        if hit is not None:
            return hit
    if isinstance(key, int | str) and not isinstance(key, bool):
        return graphs.resolve_node(graph, key)
    spec = graph.graph.get("spec") or "the graph"
    raise SpecError(f"unknown node {name!r} in {spec}")


def root_text(graph: nx.Graph, root: Any) -> str:
    """The root text of a rooted problem (``broadcast:TEXT``) for a node's name, or for a
    list of names (the sources of a broadcast from several nodes).

    The text is made of the nodes' references, which the problem reads back
    (:func:`gossipcert.instance.resolve_roots`), so any name will do: ``(1, 2)`` of a torus,
    a name with commas.

    Parameters
    ----------
    graph : networkx.Graph
    root : hashable or list
        A node's own name, label or number; a list is several nodes (a tuple is one node,
        as networkx's grids name them).

    Returns
    -------
    str

    Raises
    ------
    SpecError
        Some name names no node, or the list is empty.

    Examples
    --------
    >>> from gossipcert.graphs import from_spec
    >>> root_text(from_spec("ring:6"), [0, 3])
    '0,3'
    """
    names = root if isinstance(root, list) else [root]
    if not names:
        raise SpecError("root=[] names no node; give one node or a list of nodes")
    return ",".join(str(graphs.node_ref(graph, node_index(graph, x))) for x in names)


def packet_name(instance: Instance, p: int) -> Any:
    """Packet ``p`` named with the graph's own node names.

    A packet of a built-in problem is named by its node (gossip, broadcast, scatter, gather,
    the reductions' chunks), by its pair of nodes (total exchange) or its tuple of sources (a
    broadcast from several nodes), and under ``chunks=K`` by ``(that, k)``; a custom
    problem's packets keep the names its file gives them.

    Parameters
    ----------
    instance : Instance
    p : int
        A packet number.

    Returns
    -------
    object

    Examples
    --------
    >>> import networkx as nx
    >>> from gossipcert.graphs.convert import from_networkx
    >>> from gossipcert.instance import make_instance, parse_model, parse_problem
    >>> g = from_networkx(nx.path_graph(["a", "b"]))
    >>> inst = make_instance(g, parse_model("telephone"), parse_problem("alltoall:chunks=2"))
    >>> [packet_name(inst, p) for p in range(inst.n_packets)]
    [(('a', 'b'), 0), (('a', 'b'), 1), (('b', 'a'), 0), (('b', 'a'), 1)]
    """
    name: Any = instance.packet_names[p]
    if instance.problem.kind is ProblemKind.CUSTOM:
        return name
    chunked = instance.problem.chunks > 1
    base: Any = name[0] if chunked else name
    g = instance.graph
    if isinstance(base, tuple):  # a pair (total exchange) or the sources of a broadcast
        base = tuple(node_name(g, graphs.resolve_node(g, ref)) for ref in base)
    else:
        base = node_name(g, graphs.resolve_node(g, base))
    return (base, name[1]) if chunked else base


def _packet_table(instance: Instance) -> dict[Any, Any]:
    """Packet names with the graph's own names, to the names the schedule reader takes."""
    table = instance.__dict__.get("_named_packets")
    if table is None:
        table = {}
        for p, ref_name in enumerate(instance.packet_names):
            try:
                table[packet_name(instance, p)] = ref_name
            except TypeError:  # a name that is no dictionary key: not translated
                continue
        object.__setattr__(instance, "_named_packets", table)
    return table


def _json(name: Any) -> Any:
    return [_json(x) for x in name] if isinstance(name, tuple) else name


def schedule_in_references(instance: Instance, data: Any) -> Any:
    """A schedule's JSON (``{"rounds": [...]}`` or the list of rounds) that names nodes and
    packets as the user's graph does, rewritten with the node references and packet names
    that :func:`gossipcert.schedule.from_json` reads.

    Only the names of the user's own networkx graph are rewritten; any other value (a
    reference, a node number, something malformed) is left for the reader to judge. A graph
    built from a spec or a file has no names of its own: ``data`` is returned as it is.

    Parameters
    ----------
    instance : Instance
    data : dict or list
        The schedule's JSON content (or a certificate's or partial result's, whose
        ``schedule`` is rewritten).

    Returns
    -------
    dict or list
        A copy with the names rewritten (``data`` itself is not changed).

    Examples
    --------
    >>> import networkx as nx
    >>> from gossipcert.graphs.convert import from_networkx
    >>> from gossipcert.instance import make_instance, parse_model, parse_problem
    >>> g = from_networkx(nx.grid_2d_graph(1, 2))
    >>> inst = make_instance(g, parse_model("telephone"), parse_problem("gossip"))
    >>> schedule_in_references(inst, [[{"from": (0, 0), "to": [(0, 1)], "packets": [(0, 0)]}]])
    [[{'from': '(0, 0)', 'to': ['(0, 1)'], 'packets': ['(0, 0)']}]]
    """
    index = _name_index(instance.graph)
    if index is None:
        return data
    packets = _packet_table(instance)

    def node(value: Any) -> Any:
        try:
            v = index.get(_hashable(value))
        except TypeError:
            return value
        return value if v is None else graphs.node_ref(instance.graph, v)

    def packet(value: Any) -> Any:
        try:
            found = packets.get(_hashable(value), _MISSING)
        except TypeError:
            return value
        return value if found is _MISSING else _json(found)

    def transmission(item: Any) -> Any:
        if not isinstance(item, dict):
            return item
        out = dict(item)
        if "from" in out:
            out["from"] = node(out["from"])
        if "to" in out:
            to = out["to"]
            out["to"] = [node(x) for x in to] if isinstance(to, list) else node(to)
        if isinstance(out.get("packets"), list):
            out["packets"] = [packet(x) for x in out["packets"]]
        return out

    def rounds(value: Any) -> Any:
        if not isinstance(value, list):
            return value
        return [[transmission(x) for x in r] if isinstance(r, list) else r for r in value]

    if isinstance(data, dict):
        if "rounds" in data:
            return {**data, "rounds": rounds(data["rounds"])}
        if isinstance(data.get("schedule"), dict):  # a certificate or a partial result
            return {**data, "schedule": schedule_in_references(instance, data["schedule"])}
        return data
    return rounds(data)


_MISSING = object()
