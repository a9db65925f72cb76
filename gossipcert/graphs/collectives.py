"""The topologies of the collective-synthesis literature: ``fully-connected:N``, ``hub:N``,
``dgx1`` and the machines of TACCL and TE-CCL: ``dgx2``, ``ndv2:K`` and ``mi250:K``.

- ``fully-connected:N``: ``K_N`` meant for the all-port model (every GPU linked to every
  other, one packet per link and direction per round by default);
- ``hub:N``: ``N`` nodes behind one switch, so that each node sends at most one packet and
  receives at most one packet per round, to and from any other node: that is the
  single-port model (``p = 1``) on ``K_N``. The graph is ``K_N`` marked with
  ``G.graph["ports"] = "single-port"``, and :func:`gossipcert.instance.make_instance`
  refuses it under any other model (use ``fully-connected:N`` for those);
- ``dgx1``: the 8-GPU hybrid cube-mesh of the NVIDIA DGX-1, capacity 2 (two NVLinks) on
  0-1, 0-4, 1-3, 2-3, 2-6, 4-5, 5-7, 6-7 and 1 on 0-2, 0-3, 1-2, 1-5, 3-7, 4-6, 4-7, 5-6;
  its edges also carry their bandwidth (50 and 25 GB/s a direction) and latency (0.7 us),
  :mod:`gossipcert.graphs.links`. ``fully-connected:N`` and ``hub:N`` have no physical
  units.

The multi-chassis machines (see :mod:`gossipcert.graphs.machines` for their conventions):

- ``dgx2``: the NVIDIA DGX-2, 16 GPUs behind the NVSwitch fabric (one router);
- ``ndv2:K``: ``K`` Azure NDv2 chassis of 8 GPUs in the DGX-1's hybrid cube-mesh, one
  InfiniBand NIC per chassis (``ndv2:K:lat=L`` marks the NIC links with ``latency = L``);
- ``mi250:K``: ``K`` chassis of 16 AMD MI250 GCDs as TE-CCL models them.

See :mod:`gossipcert.graphs` for the conventions every graph follows.

References
----------
.. [1] Cai, Liu, Maleki, Musuvathi, Mytkowicz, Nelson, Saarikivi, "Synthesizing optimal
   collective algorithms", PPoPP 2021 (SCCL: the hub, ring, hypercube and DGX-1
   topologies).
"""

from __future__ import annotations

import itertools

import networkx as nx

from gossipcert.graphs.base import _add_edges, _check_int, _check_size, _new_graph
from gossipcert.graphs.links import set_link

#: the DGX-1's links with two NVLinks (capacity 2) and with one (capacity 1)
DGX1_DOUBLE = ((0, 1), (0, 4), (1, 3), (2, 3), (2, 6), (4, 5), (5, 7), (6, 7))
DGX1_SINGLE = ((0, 2), (0, 3), (1, 2), (1, 5), (3, 7), (4, 6), (4, 7), (5, 6))


def fully_connected(n: int) -> nx.Graph:
    """``K_n`` under its collective-synthesis name.

    Examples
    --------
    >>> g = fully_connected(4)
    >>> g.graph["spec"], g.number_of_edges()
    ('fully-connected:4', 6)
    """
    n = _check_int(n, "n", "fully-connected", 2)
    _check_size(n, "fully-connected", n * (n - 1) // 2)
    graph = _new_graph(n, f"fully-connected:{n}", vertex_transitive=True)
    _add_edges(graph, itertools.combinations(range(n), 2))
    return graph


def hub(n: int) -> nx.Graph:
    """``n`` nodes behind one switch: ``K_n`` under the single-port model (see the module
    docstring).

    Examples
    --------
    >>> g = hub(8)
    >>> g.graph["spec"], g.graph["ports"], g.number_of_edges()
    ('hub:8', 'single-port', 28)
    """
    n = _check_int(n, "n", "hub", 2)
    _check_size(n, "hub", n * (n - 1) // 2)
    graph = _new_graph(n, f"hub:{n}", vertex_transitive=True)
    graph.graph["ports"] = "single-port"
    _add_edges(graph, itertools.combinations(range(n), 2))
    return graph


def dgx1() -> nx.Graph:
    """The DGX-1 hybrid cube-mesh with its link capacities.

    Examples
    --------
    >>> g = dgx1()
    >>> g.number_of_edges(), g[0][1]["capacity"], g[0][2]["capacity"]
    (16, 2, 1)
    >>> sorted(sum(g[v][w]["capacity"] for w in g[v]) for v in g) == [6] * 8
    True
    """
    graph = _new_graph(8, "dgx1")
    _add_edges(graph, DGX1_DOUBLE, cap=2)
    _add_edges(graph, DGX1_SINGLE, cap=1)
    for lanes, pairs in ((2, DGX1_DOUBLE), (1, DGX1_SINGLE)):
        for u, v in pairs:  # NVLink 2.0: 25 GB/s a lane (gossipcert.graphs.links)
            set_link(graph, u, v, "nvlink2", lanes=lanes)
    return graph
