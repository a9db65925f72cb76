"""A graph's JSON record: how certificates, partial results and the store keep a graph.

A record holds the spec the graph was built from (if any), the number of nodes, the
original labels, the routers and every edge as ``[u, v, capacity]`` with ``u < v``, sorted;
an edge whose latency is not 1 is ``[u, v, capacity, latency]`` (so that the records of
graphs without latencies are those written before latencies existed).
:func:`graph_from_record` reads back exactly what :func:`graph_record` writes and refuses
anything else, so that what ``check`` certifies is the record it read.
"""

from __future__ import annotations

from typing import Any

import networkx as nx

from gossipcert.errors import CertificateError
from gossipcert.graphs.base import MAX_NODES
from gossipcert.graphs.queries import capacity, latency, routers


def graph_record(g: nx.Graph) -> dict[str, Any]:
    """The graph as stored in a certificate: spec, labels, routers, capacities, edges."""
    return {
        "spec": g.graph.get("spec"),
        "n": g.number_of_nodes(),
        "labels": [g.nodes[v].get("label", str(v)) for v in range(g.number_of_nodes())],
        "routers": routers(g),
        "edges": sorted(_edge_entry(g, u, v) for u, v in g.edges),
    }


def _edge_entry(g: nx.Graph, u: int, v: int) -> list[int]:
    """``[u, v, capacity]``, with the latency appended when it is not 1."""
    lat = latency(g, u, v)
    entry = [min(u, v), max(u, v), capacity(g, u, v)]
    return [*entry, lat] if lat != 1 else entry


def _whole(x: Any) -> bool:
    """``x`` is an int and not a bool (JSON ``1``, not ``1.0`` or ``true``)."""
    return isinstance(x, int) and not isinstance(x, bool)


def graph_from_record(rec: dict[str, Any]) -> nx.Graph:
    """Rebuild a graph stored by :func:`graph_record`.

    The record must be exactly what :func:`graph_record` writes: whole numbers (not floats
    or booleans), each edge ``[u, v, capacity]`` or ``[u, v, capacity, latency]`` once with
    ``u < v`` in ``0..n-1``, a capacity of at least 1, a latency of at least 2 when written,
    sorted. Nothing is normalised: a record that another graph
    would store differently is refused, so what ``check`` certifies is the record read.

    Raises
    ------
    CertificateError
        Anything else, e.g. a capacity of 0 or below (which no model can use, and which
        would make an encoding's capacity constraint an empty clause).

    Examples
    --------
    >>> from gossipcert.graphs import ring
    >>> rec = graph_record(ring(4))
    >>> graph_from_record(rec).number_of_edges()
    4
    >>> rec["edges"][0][2] = -1
    >>> try:
    ...     graph_from_record(rec)
    ... except CertificateError as exc:
    ...     print(exc)
    malformed graph record: edge [0, 1, -1]: a capacity must be a whole number >= 1
    """
    try:
        g = nx.Graph(spec=rec.get("spec"))
        n = rec["n"]
        if not _whole(n) or not 0 < n <= MAX_NODES:
            raise CertificateError(f"n must be a whole number in 1..{MAX_NODES}, got {n!r}")
        stored = rec.get("routers", [])
        if not isinstance(stored, list) or not all(_whole(r) and 0 <= r < n for r in stored):
            raise CertificateError(f"'routers' must list node numbers in 0..{n - 1}")
        routers = set(stored)
        labels = rec.get("labels") or [str(v) for v in range(n)]
        if not isinstance(labels, list) or len(labels) != n:
            raise CertificateError(f"'labels' must list the labels of the {n} nodes")
        for v in range(n):
            g.add_node(v, label=str(labels[v]), router=v in routers)
        edges = rec["edges"]
        if not isinstance(edges, list):
            raise CertificateError("'edges' must be a list of [u, v, capacity]")
        for edge in edges:
            if not (isinstance(edge, list) and len(edge) in (3, 4) and all(map(_whole, edge))):
                raise CertificateError(
                    f"edge {edge!r}: expected [u, v, capacity] or [u, v, capacity, latency], "
                    "whole numbers"
                )
            u, v, c = edge[:3]
            lat = edge[3] if len(edge) == 4 else 1
            if not 0 <= u < v < n:
                raise CertificateError(
                    f"edge {edge!r}: expected u < v, both nodes in 0..{n - 1} (no self-loops)"
                )
            if c < 1:
                raise CertificateError(f"edge {edge!r}: a capacity must be a whole number >= 1")
            if len(edge) == 4 and lat < 2:
                raise CertificateError(
                    f"edge {edge!r}: a latency is written only when it is a whole number >= 2"
                )
            if g.has_edge(u, v):
                raise CertificateError(f"edge {edge!r}: the edge {u} -- {v} is stored twice")
            g.add_edge(u, v, capacity=c)
            if lat != 1:
                g[u][v]["latency"] = lat
        if edges != sorted(edges) or stored != sorted(routers):
            raise CertificateError("'edges' and 'routers' must be sorted, as solve writes them")
    except (KeyError, TypeError, ValueError) as exc:
        raise CertificateError(f"malformed graph record: {exc}") from None
    return g
