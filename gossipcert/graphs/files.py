"""Graph files: edge lists, GraphML, graph6 and JSON, read and written.

See :mod:`gossipcert.graphs` for the conventions every graph follows.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

import networkx as nx

from gossipcert.errors import FormatError, GossipcertError, GraphError
from gossipcert.graphs.base import (
    _FALSE_WORDS,
    _INT_LABEL,
    _SUFFIX_LIST,
    _TRUE_WORDS,
    _UNSIGNED,
    GRAPH_FILE_SUFFIXES,
    _check_convention,
    _new_graph,
)
from gossipcert.graphs.links import set_capacities
from gossipcert.graphs.queries import _is_plain_int, routers
from gossipcert.graphs.topologies import TopologyData, is_topology_json, topology_from_json
from gossipcert.limits import decode_json

# --------------------------------------------------------------------------------------------
# Files
# --------------------------------------------------------------------------------------------

#: ``(u, v, capacity, where, latency)``
_RawEdge = tuple[str, str, int, str, int]


def _label_of(value: Any, where: str) -> str:
    """A node label from a file value (str or int)."""
    if isinstance(value, bool) or not isinstance(value, (int, str)):
        raise GraphError(f"{where}: bad node label {value!r}; expected a string or an integer")
    text = str(value)
    if not text:
        raise GraphError(f"{where}: empty node label")
    return text


def _parse_capacity(value: Any, where: str, what: str = "capacity") -> int:
    number: int | None = None
    if isinstance(value, bool):
        number = None
    elif isinstance(value, int):
        number = value
    elif isinstance(value, float) and value.is_integer():
        number = int(value)
    elif isinstance(value, str) and _UNSIGNED.fullmatch(value.strip()):
        number = int(value.strip())
    if number is None or number < 1:
        raise GraphError(f"{where}: bad {what} {value!r}; expected an integer >= 1")
    return number


def _parse_latency(value: Any, where: str) -> int:
    """An edge's latency (rounds a packet spends on it): an integer >= 1."""
    return _parse_capacity(value, where, "latency")


def _parse_router(value: Any, where: str) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, int) and value in (0, 1):
        return bool(value)
    if isinstance(value, str):
        word = value.strip().lower()
        if word in _TRUE_WORDS:
            return True
        if word in _FALSE_WORDS:
            return False
    raise GraphError(f"{where}: bad router flag {value!r}; expected true or false")


def _assemble(
    name: str,
    declared: Sequence[str],
    edges: Sequence[_RawEdge],
    router_labels: Iterable[tuple[str, str]],
) -> nx.Graph:
    """Build a conventional graph from labels, edges ``(u, v, capacity, where, latency)`` and
    routers (a latency of 1 is not stored: it is every edge's default)."""
    order: dict[str, None] = {}
    for label in declared:
        if label in order:
            raise GraphError(f"{name}: node {label!r} is declared twice")
        order[label] = None
    for u, v, *_ in edges:
        order.setdefault(u)
        order.setdefault(v)
    if not order:
        raise GraphError(f"{name}: the graph is empty (no nodes)")
    labels = list(order)
    if all(_INT_LABEL.fullmatch(label) for label in labels):
        labels.sort(key=lambda label: (int(label), label))
    index = {label: v for v, label in enumerate(labels)}
    graph = _new_graph(len(labels), name)
    for node, label in enumerate(labels):
        graph.nodes[node]["label"] = label
    for u, v, cap, where, lat in edges:
        if u == v:
            raise GraphError(f"{where}: self-loop at node {u!r}; the graph must be simple")
        a, b = index[u], index[v]
        if graph.has_edge(a, b):
            raise GraphError(f"{where}: duplicate edge {u!r} -- {v!r}; the graph must be simple")
        graph.add_edge(a, b, capacity=cap)
        if lat != 1:
            graph[a][b]["latency"] = lat
    for label, where in router_labels:
        if label not in index:
            raise GraphError(f"{where}: router {label!r} is not a node of the graph")
        graph.nodes[index[label]]["router"] = True
    return graph


def _read_edgelist(file: Path, name: str) -> nx.Graph:
    edges: list[_RawEdge] = []
    text = file.read_text(encoding="utf-8")
    for lineno, raw in enumerate(text.splitlines(), start=1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        where = f"{name}:{lineno}"
        tokens = line.split()
        if len(tokens) not in (2, 3, 4):
            raise GraphError(
                f"{where}: malformed line {raw.strip()!r}; expected 'u v', 'u v capacity' or "
                "'u v capacity latency'"
            )
        cap = _parse_capacity(tokens[2], where) if len(tokens) >= 3 else 1
        lat = _parse_latency(tokens[3], where) if len(tokens) == 4 else 1
        edges.append((tokens[0], tokens[1], cap, where, lat))
    return _assemble(name, [], edges, [])


def _read_graphml(file: Path, name: str) -> nx.Graph:
    raw = nx.read_graphml(file)
    if raw.is_directed():
        raise GraphError(
            f'{name}: a directed graph (edgedefault="directed"); the models run on '
            'undirected links: declare edgedefault="undirected"'
        )
    declared = [_label_of(v, name) for v in raw.nodes]
    router_labels = [
        (label, f"{name}: node {label!r}")
        for v, label in zip(raw.nodes, declared, strict=True)
        if _parse_router(raw.nodes[v].get("router", False), f"{name}: node {label!r}")
    ]
    edges: list[_RawEdge] = []
    for u, v, data in raw.edges(data=True):
        lu, lv = _label_of(u, name), _label_of(v, name)
        where = f"{name}: edge {lu!r} -- {lv!r}"
        cap = _parse_capacity(data.get("capacity", 1), where)
        edges.append((lu, lv, cap, where, _parse_latency(data.get("latency", 1), where)))
    return _assemble(name, declared, edges, router_labels)


def _read_g6(file: Path, name: str) -> nx.Graph:
    try:
        raw = nx.read_graph6(file)
    except (IndexError, ValueError, nx.NetworkXError) as exc:  # e.g. a cut-off size field
        detail = str(exc) if not isinstance(exc, IndexError) else "it ends too early"
        raise GraphError(f"{name}: not a valid graph6 line ({detail})") from None
    if isinstance(raw, list):
        if len(raw) != 1:
            what = "no graph" if not raw else f"{len(raw)} graphs"
            raise GraphError(f"{name}: contains {what}; expected exactly one graph6 line")
        raw = raw[0]
    declared = [str(v) for v in sorted(raw.nodes)]
    edges = [(str(u), str(v), 1, f"{name}: edge {u} -- {v}", 1) for u, v in raw.edges()]
    return _assemble(name, declared, edges, [])


def _json_node_link(data: dict[str, Any], name: str) -> nx.Graph:
    nodes = data.get("nodes", [])
    links = data.get("edges", data.get("links", []))
    if not isinstance(nodes, list) or not isinstance(links, list):
        raise GraphError(f"{name}: 'nodes' and 'edges' (or 'links') must be lists")
    declared: list[str] = []
    router_labels: list[tuple[str, str]] = []
    for position, node in enumerate(nodes):
        where = f"{name}: nodes[{position}]"
        if not isinstance(node, dict) or "id" not in node:
            raise GraphError(f"{where}: expected an object with an 'id'")
        label = _label_of(node["id"], where)
        declared.append(label)
        if _parse_router(node.get("router", False), where):
            router_labels.append((label, where))
    known = set(declared)
    edges: list[_RawEdge] = []
    for position, link in enumerate(links):
        where = f"{name}: edges[{position}]"
        if not isinstance(link, dict) or "source" not in link or "target" not in link:
            raise GraphError(f"{where}: expected an object with 'source' and 'target'")
        u, v = _label_of(link["source"], where), _label_of(link["target"], where)
        for label in (u, v):
            if label not in known:
                raise GraphError(f"{where}: node {label!r} is not in 'nodes'")
        cap = _parse_capacity(link.get("capacity", 1), where)
        edges.append((u, v, cap, where, _parse_latency(link.get("latency", 1), where)))
    return _assemble(name, declared, edges, router_labels)


def _json_simple(data: dict[str, Any], name: str) -> nx.Graph:
    nodes = data.get("nodes")
    links = data.get("edges", [])
    routers_list = data.get("routers", [])
    for key, value in (("nodes", nodes), ("edges", links), ("routers", routers_list)):
        if value is not None and not isinstance(value, list):
            raise GraphError(f"{name}: {key!r} must be a list")
    declared = [_label_of(v, f"{name}: nodes[{i}]") for i, v in enumerate(nodes or [])]
    known = set(declared)
    edges: list[_RawEdge] = []
    for position, link in enumerate(links):
        where = f"{name}: edges[{position}]"
        if not isinstance(link, list) or len(link) not in (2, 3, 4):
            raise GraphError(
                f"{where}: expected [u, v], [u, v, capacity] or [u, v, capacity, latency], "
                f"got {link!r}"
            )
        u, v = _label_of(link[0], where), _label_of(link[1], where)
        if nodes is not None:
            for label in (u, v):
                if label not in known:
                    raise GraphError(f"{where}: node {label!r} is not in 'nodes'")
        cap = _parse_capacity(link[2], where) if len(link) >= 3 else 1
        lat = _parse_latency(link[3], where) if len(link) == 4 else 1
        edges.append((u, v, cap, where, lat))
    router_labels = [
        (_label_of(r, f"{name}: routers[{i}]"), f"{name}: routers[{i}]")
        for i, r in enumerate(routers_list)
    ]
    return _assemble(name, declared, edges, router_labels)


def graph_from_topology_json(data: Any, name: str) -> nx.Graph:
    """The graph of an SCCL, TACCL or TE-CCL topology (decoded JSON; the forms of
    :mod:`gossipcert.graphs.topologies`), its switches as routers.

    Raises
    ------
    FormatError
        Not one of those forms, or malformed.
    """
    topo = topology_from_json(data, name)
    if topo.machine is not None:
        return _machine_of_file(topo)
    edges = [(u, v, cap, f"{name}: link {u} -- {v}", 1) for u, v, cap in topo.edges]
    graph = _assemble(name, topo.nodes, edges, [(r, name) for r in topo.routers])
    if topo.units:
        index = {label: v for v, label in graph.nodes(data="label")}
        for (u, v), (bandwidth, alpha) in topo.units.items():
            data = graph[index[u]][index[v]]
            data.update(bandwidth=bandwidth, alpha=alpha, link="file")
        set_capacities(graph)  # the round model's: bandwidth over the slowest link's
    return graph


def _machine_of_file(topo: TopologyData) -> nx.Graph:
    """A TE-CCL input that names one of gossipcert's machines (its spec in
    ``topo.machine``), with the file's latencies: the link's on the GPU links, the
    switch's on the others (as TE-CCL's ``amd.py`` sets them)."""
    from gossipcert.graphs.machines import mi250, ndv2

    kind, _, count = str(topo.machine).partition(":")
    graph = (ndv2 if kind == "ndv2" else mi250)(int(count))
    graph.graph["spec"] = f"{topo.machine} ({topo.name})"
    if topo.machine_alpha is not None:
        link, switch = topo.machine_alpha
        routers = graph.nodes
        for u, v, data in graph.edges(data=True):
            near_switch = routers[u].get("router") or routers[v].get("router")
            data["alpha"] = switch if near_switch else link
    return graph


def _read_json(file: Path, name: str) -> nx.Graph:
    try:  # invalid, nested too deep, or with a number of too many digits: one line
        data = decode_json(file.read_text(encoding="utf-8"), name)
    except FormatError as exc:
        raise GraphError(str(exc)) from None
    if is_topology_json(data):
        return graph_from_topology_json(data, name)
    if not isinstance(data, dict):
        raise GraphError(
            f"{name}: expected a JSON object with 'nodes' and 'edges' (or networkx node-link data)"
        )
    nodes = data.get("nodes")
    links = data.get("edges", data.get("links"))
    node_link = "links" in data or any(
        isinstance(item, dict) for seq in (nodes, links) if isinstance(seq, list) for item in seq
    )
    if node_link:
        return _json_node_link(data, name)
    if nodes is None and links is None:
        raise GraphError(f"{name}: no 'nodes' or 'edges' in the JSON object")
    return _json_simple(data, name)


_READERS: dict[str, Callable[[Path, str], nx.Graph]] = {
    ".edgelist": _read_edgelist,
    ".graphml": _read_graphml,
    ".g6": _read_g6,
    ".json": _read_json,
}


def _suffix_of(name: str, action: str) -> str:
    lowered = name.lower()
    for suffix in GRAPH_FILE_SUFFIXES:
        if lowered.endswith(suffix):
            return suffix
    raise GraphError(
        f"cannot {action} graph file {name!r}: unknown file type; accepted: {_SUFFIX_LIST}"
    )


def read_graph_file(path: str | os.PathLike[str]) -> nx.Graph:
    """Read a graph file into a graph following the module conventions.

    Formats, chosen by the file name ending:

    * ``.edgelist``: one edge per line, ``u v``, ``u v capacity`` or ``u v capacity latency``;
      ``#`` starts a comment,
      blank lines are ignored. Routers cannot be expressed.
    * ``.graphml``: read with networkx; the node ids are the labels, a node attribute
      ``router`` and edge attributes ``capacity`` and ``latency`` are honoured when present.
    * ``.g6``: one graph in graph6 (with or without the ``>>graph6<<`` header); labels
      ``"0".."n-1"``.
    * ``.json``: networkx node-link data (``{"nodes": [{"id": ...}], "edges": [{"source": ...,
      "target": ...}]}``, ``"links"`` also accepted; node attribute ``router``, edge attributes
      ``capacity`` and ``latency``), or ``{"nodes": [...], "edges": [[u, v], [u, v, capacity],
      [u, v, capacity, latency], ...],
      "routers": [...]}`` where ``"nodes"`` and ``"routers"`` are optional; or the topology
      of SCCL, TACCL or TE-CCL (``{"msccl_type": "topology", "links": ..., "switches":
      ...}``, ``{"capacity": ..., "switch_indices": ...}``, TE-CCL's input file): see
      :mod:`gossipcert.graphs.topologies`, switches become routers.

    Node numbering: if every label is an integer, the nodes are numbered in increasing
    numerical order of their labels, otherwise in the order of first appearance (declared
    nodes first, then edge endpoints). ``G.graph["spec"]`` is the path as given.

    Parameters
    ----------
    path : str or os.PathLike
        Path of the file.

    Returns
    -------
    networkx.Graph
        The graph.

    Raises
    ------
    GraphError
        Unknown suffix, missing or unreadable file, malformed content, self-loops, duplicate
        edges, bad capacities or router flags, or no nodes at all. The message names the file
        (and the line for edge lists).

    Examples
    --------
    >>> from gossipcert.graphs import routers, fat_tree, from_spec
    >>> import pathlib, tempfile
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     target = pathlib.Path(folder) / "g.edgelist"
    ...     _ = target.write_text("# a triangle\\na b\\nb c 2\\nc a\\n")
    ...     g = read_graph_file(target)
    >>> [g.nodes[v]["label"] for v in g], g[1][2]["capacity"]
    (['a', 'b', 'c'], 2)

    References
    ----------
    B. McKay, graph6 and sparse6 formats, https://users.cecs.anu.edu.au/~bdm/data/formats.html
    """
    name = os.fspath(path)
    suffix = _suffix_of(name, "read")
    target = Path(name)
    if not target.exists():
        raise GraphError(f"graph file not found: {name}")
    if not target.is_file():
        raise GraphError(f"graph file {name} is not a regular file")
    try:
        return _READERS[suffix](target, name)
    except GossipcertError:
        raise
    except Exception as exc:  # anything networkx, the XML parser or the OS raises
        detail = str(exc) or type(exc).__name__
        raise GraphError(f"cannot read graph file {name}: {detail}") from exc


def _file_labels(graph: nx.Graph) -> list[str]:
    return [str(graph.nodes[v].get("label", v)) for v in range(graph.number_of_nodes())]


def _json_value(label: str) -> int | str:
    return int(label) if _is_plain_int(label) else label


def _write_edgelist(graph: nx.Graph, target: Path, labels: list[str]) -> None:
    for label in labels:
        if not label or any(ch.isspace() for ch in label) or "#" in label:
            raise GraphError(
                f"cannot write {target}: node label {label!r} contains white space or '#', "
                "which an edge list cannot hold; use .json or .graphml"
            )
    isolated = [labels[v] for v in range(len(labels)) if graph.degree(v) == 0]
    if isolated:
        raise GraphError(
            f"cannot write {target}: isolated node(s) {isolated[:5]} cannot be written to an "
            "edge list; use .json or .graphml"
        )
    lines = [f"# {graph.graph.get('spec', 'graph')}: n={len(labels)} m={graph.number_of_edges()}"]
    for u, v in sorted(tuple(sorted(edge)) for edge in graph.edges()):
        cap = int(graph[u][v].get("capacity", 1))
        lat = int(graph[u][v].get("latency", 1))
        suffix = f" {cap} {lat}" if lat != 1 else "" if cap == 1 else f" {cap}"
        lines.append(f"{labels[u]} {labels[v]}{suffix}")
    target.write_text("\n".join(lines) + "\n", encoding="utf-8")


def _write_graphml(graph: nx.Graph, target: Path, labels: list[str]) -> None:
    out = nx.Graph()
    for v, label in enumerate(labels):
        out.add_node(label, router=bool(graph.nodes[v].get("router", False)))
    for u, v in sorted(tuple(sorted(edge)) for edge in graph.edges()):
        out.add_edge(labels[u], labels[v], capacity=int(graph[u][v].get("capacity", 1)))
        lat = int(graph[u][v].get("latency", 1))
        if lat != 1:
            out[labels[u]][labels[v]]["latency"] = lat
    nx.write_graphml(out, target)


def _write_g6(graph: nx.Graph, target: Path, labels: list[str]) -> None:
    out = nx.Graph()
    out.add_nodes_from(range(len(labels)))
    out.add_edges_from(graph.edges())
    nx.write_graph6(out, target, header=False)


def _write_json(graph: nx.Graph, target: Path, labels: list[str]) -> None:
    edges = []
    for u, v in sorted(tuple(sorted(edge)) for edge in graph.edges()):
        cap = int(graph[u][v].get("capacity", 1))
        lat = int(graph[u][v].get("latency", 1))
        entry: list[int | str] = [_json_value(labels[u]), _json_value(labels[v])]
        if cap != 1 or lat != 1:
            entry.append(cap)
        if lat != 1:
            entry.append(lat)
        edges.append(entry)
    data: dict[str, Any] = {
        "spec": graph.graph.get("spec", "graph"),
        "nodes": [_json_value(label) for label in labels],
        "edges": edges,
    }
    router_nodes = routers(graph)
    if router_nodes:
        data["routers"] = [_json_value(labels[v]) for v in router_nodes]
    target.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")


_WRITERS: dict[str, Callable[[nx.Graph, Path, list[str]], None]] = {
    ".edgelist": _write_edgelist,
    ".graphml": _write_graphml,
    ".g6": _write_g6,
    ".json": _write_json,
}


def write_graph_file(graph: nx.Graph, path: str | os.PathLike[str]) -> None:
    """Write ``graph`` to a file whose format is chosen by the name ending.

    ``.json`` and ``.graphml`` keep labels, routers, capacities and latencies; ``.edgelist``
    keeps labels, capacities and latencies (not routers, nor isolated nodes); ``.g6`` keeps
    only the structure in node order. Reading the file back with :func:`read_graph_file`
    gives the same graph (same node numbering when the labels are the default ``str(v)``).

    Parameters
    ----------
    graph : networkx.Graph
        A graph following the module conventions.
    path : str or os.PathLike
        Destination path, ending in ``.edgelist``, ``.graphml``, ``.g6`` or ``.json``.

    Raises
    ------
    GraphError
        Unknown suffix, labels the format cannot hold, or an OS error while writing.

    Examples
    --------
    >>> from gossipcert.graphs import routers, fat_tree, from_spec
    >>> import pathlib, tempfile
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     target = pathlib.Path(folder) / "ft.json"
    ...     write_graph_file(fat_tree(4, "exponential"), target)
    ...     back = read_graph_file(target)
    >>> routers(back), back[4][6]["capacity"]
    ([4, 5, 6], 2)

    References
    ----------
    B. McKay, graph6 and sparse6 formats, https://users.cecs.anu.edu.au/~bdm/data/formats.html
    """
    name = os.fspath(path)
    suffix = _suffix_of(name, "write")
    _check_convention(graph, f"cannot write {name}")
    labels = _file_labels(graph)
    if len(set(labels)) != len(labels):
        raise GraphError(f"cannot write {name}: node labels are not unique")
    try:
        _WRITERS[suffix](graph, Path(name), labels)
    except GossipcertError:
        raise
    except Exception as exc:
        raise GraphError(f"cannot write graph file {name}: {exc}") from exc
