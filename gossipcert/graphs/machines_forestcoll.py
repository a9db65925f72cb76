"""The machines of ForestColl: ``a100:K`` and ``mi250:K:forestcoll``.

ForestColl describes its fabrics as directed graphs with a bandwidth on every arc (GB/s,
the same both ways) and switches as nodes that only forward (``topologies.py``); these are
gossipcert graphs of the same nodes, links and bandwidths (:mod:`gossipcert.graphs.links`),
so that :func:`gossipcert.closed_forms.throughput.allgather_cut` on them (``weight=
"bandwidth"``) is ForestColl's optimal allgather throughput (2400/7 GB/s of algorithmic
bandwidth on one A100 box, 1040/3 on two; 2400/7 on one MI250 box, 5312/15 on two).

- ``a100:K``: ``K`` boxes of 8 A100 GPUs (GPU ``b`` of box ``a`` is node ``8a + b``, the
  rank ForestColl's MSCCL writer gives it), each GPU linked to its box's NVSwitch (a router,
  node ``8K + a``) at 300 GB/s. With ``K >= 2`` every GPU also has its own NIC (a router,
  node ``9K + 8a + b``, 25 GB/s between them) and every NIC is linked to one of two
  InfiniBand switches (routers ``17K`` and ``17K + 1``): the even GPUs' NICs to the first,
  the odd GPUs' to the second ("separate IBs for odd/even channel mlx5"), 25 GB/s;
- ``mi250:K:forestcoll``: ``K`` boxes of 16 MI250 GCDs linked as in TE-CCL's model
  (:data:`gossipcert.graphs.machines.MI250_LINKS`, the same matrix as ForestColl's
  ``MI250_ADJ_MAT``, 50 GB/s a lane); with ``K >= 2`` every GCD is linked straight to one
  InfiniBand switch (a router, the last node) at 16 GB/s. TE-CCL's ``mi250:K`` has a NIC
  for every two GCDs at 25 GB/s instead: the two papers model the same box differently, so
  the convention is part of the spec.

Capacities (the round model) are ``floor(bandwidth / slowest)``: ``a100:K`` carries 12 on
its NVSwitch links and 1 on its network links (1 everywhere for one box);
``mi250:K:forestcoll`` 3, 6 and 12 on its 1, 2 and 4 lane links and 1 on the network
(1, 2 and 4 for one box). A switch's latency is paid once, half on each side; a GPU's link
to its NIC carries none.

References
----------
.. [1] L. Zhao, S. Maleki, Z. Yang, H. Pourreza, A. Krishnamurthy, "ForestColl:
   Throughput-optimal collective communications on heterogeneous network fabrics",
   arXiv:2402.06787, 2024; github.com/liangyuRain/ForestColl, ``topologies.py``
   (``a100_topology``, ``mi250_topology``, ``NVLINK_BW = 300``, ``A100_IB_BW = 25``,
   ``xGMI_BW = 50``, ``MI250_IB_BW = 16``).
"""

from __future__ import annotations

import networkx as nx

from gossipcert.graphs.base import _add_edges, _check_int, _check_size, _new_graph
from gossipcert.graphs.links import LINKS, set_capacities, set_link
from gossipcert.graphs.machines import MI250_LINKS


def _router(graph: nx.Graph, v: int, coords: tuple[int, int]) -> None:
    graph.nodes[v]["router"] = True
    graph.nodes[v]["coords"] = coords


def a100(boxes: int = 1) -> nx.Graph:
    """``boxes`` boxes of 8 A100 GPUs as ForestColl models them (module docstring).

    Parameters
    ----------
    boxes : int
        Number of boxes, at least 1.

    Returns
    -------
    networkx.Graph
        ``8K`` GPUs, ``K`` NVSwitches and, for ``K >= 2``, ``8K`` NICs and two InfiniBand
        switches (routers).

    Examples
    --------
    >>> g = a100(2)
    >>> g.graph["spec"], g.number_of_nodes(), g[0][16]["bandwidth"], g[0][16]["capacity"]
    ('a100:2', 36, 300000000000.0, 12)
    >>> g[0][18]["bandwidth"], g[0][18]["capacity"]  # GPU 0's NIC
    (25000000000.0, 1)
    >>> g.nodes[34]["router"], sorted(g[34])[:2]
    (True, [18, 20])

    References
    ----------
    ForestColl, ``topologies.py`` (``a100_topology``).
    """
    k = _check_int(boxes, "boxes", "a100", 1)
    _check_size(18 * k + 2, "a100", 18 * k)
    net = k >= 2
    n = 9 * k + (8 * k + 2 if net else 0)
    graph = _new_graph(n, f"a100:{k}")
    nvs_alpha = LINKS["nvswitch-a100"].alpha / 2
    ib_alpha = LINKS["ib-hdr"].alpha / 2
    for a in range(k):
        switch = 8 * k + a
        _router(graph, switch, (a, -1))
        for b in range(8):
            gpu = 8 * a + b
            graph.nodes[gpu]["coords"] = (a, b)
            _add_edges(graph, [(gpu, switch)])
            set_link(graph, gpu, switch, "nvswitch-a100", alpha=nvs_alpha)
            if not net:
                continue
            nic, ib = 9 * k + 8 * a + b, 17 * k + b % 2
            _router(graph, nic, (a, -2 - b))
            _add_edges(graph, [(gpu, nic), (nic, ib)])
            set_link(graph, gpu, nic, "ib-hdr", alpha=0.0)
            set_link(graph, nic, ib, "ib-hdr", alpha=ib_alpha)
    if net:
        for j in range(2):
            _router(graph, 17 * k + j, (-1, -1 - j))
    set_capacities(graph)
    return graph


def mi250_forestcoll(boxes: int = 1) -> nx.Graph:
    """``boxes`` boxes of 16 MI250 GCDs as ForestColl models them (module docstring).

    Parameters
    ----------
    boxes : int
        Number of boxes, at least 1.

    Returns
    -------
    networkx.Graph
        ``16K`` GCDs and, for ``K >= 2``, one InfiniBand switch (the last node).

    Examples
    --------
    >>> g = mi250_forestcoll(2)
    >>> g.graph["spec"], g.number_of_nodes(), g[0][1]["capacity"], g[0][32]["bandwidth"]
    ('mi250:2:forestcoll', 33, 12, 16000000000.0)

    References
    ----------
    ForestColl, ``topologies.py`` (``mi250_topology``).
    """
    k = _check_int(boxes, "boxes", "mi250", 1)
    _check_size(16 * k + 1, "mi250", 44 * k)
    n = 16 * k + (1 if k >= 2 else 0)
    graph = _new_graph(n, f"mi250:{k}:forestcoll")
    for a in range(k):
        base = 16 * a
        for i in range(16):
            graph.nodes[base + i]["coords"] = (a, i)
        for u, v, lanes in MI250_LINKS:
            _add_edges(graph, [(base + u, base + v)])
            set_link(graph, base + u, base + v, "xgmi-mi250", lanes=lanes)
    if k >= 2:
        switch = n - 1
        _router(graph, switch, (-1, -1))
        for gcd in range(16 * k):
            _add_edges(graph, [(gcd, switch)])
            set_link(graph, gcd, switch, "ib-mi250", alpha=LINKS["ib-mi250"].alpha / 2)
    set_capacities(graph)
    return graph
