"""The multi-GPU machines of TACCL and TE-CCL: ``dgx2``, ``ndv2:K`` and ``mi250:K``.

Conventions (the all-port model with capacities and routers, see
:func:`gossipcert.instance.make_instance`):

- **a round is the time one chunk takes over the machine's slowest link**, and a link's
  capacity is its bandwidth over the slowest link's: the number of chunks it carries a round
  and direction. This is TE-CCL's coarse epoch (``EpochType.SLOWEST_LINK``, its "Slow"
  runs) and what gossipcert's reader makes of TE-CCL's capacity matrices (it divides by the
  smallest capacity), so every capacity is an integer for TE-CCL's link speeds: NVLink
  25 GB/s a link and direction, the NDv2's InfiniBand NIC 12.5 GB/s (100 Gb/s), a DGX-2
  GPU's port into the NVSwitch fabric 125 GB/s (TACCL profiles 8 us/MB), an MI250 Infinity
  Fabric link 50 GB/s and its NIC 25 GB/s;
- a chunk crosses one link a round, slow or fast (latency, the ``alpha`` of TACCL and
  TE-CCL, is not modelled: it is the regime of large buffers). ``ndv2:K:lat=L`` gives the
  inter-chassis links the edge attribute ``latency = L`` (rounds a chunk spends on the link)
  for the models that read it; without the option no edge carries the attribute;
- a **switch is a router**: it holds and demands nothing, stores a chunk it receives and may
  forward it in a later round, to several ports at once (TE-CCL's ``switch_copy``, its
  default; a chunk through a switch takes two rounds, where TE-CCL makes the switch's
  outgoing link instantaneous);
- links carry the same capacity both ways (gossipcert's graphs are undirected). Where
  TE-CCL attaches a NIC's sending side to one GPU and its receiving side to another
  (``0 -> 9`` and ``8 -> 1`` on two NDv2 chassis), the NIC is one link at GPU 0 of its
  chassis carrying one chunk each way a round: the same capacity across every cut between
  chassis.

Physical units (:mod:`gossipcert.graphs.links`): every edge also carries its
``bandwidth`` (bytes a second, a direction), ``alpha`` (latency, seconds) and ``link`` (the
kind), TE-CCL's numbers: NVLink 25 GB/s a lane and 0.7 us, a DGX-2 GPU's NVSwitch port
125 GB/s and 0.35 us, the NDv2's NIC 12.5 GB/s and 1.3 us, an MI250 Infinity Fabric lane
50 GB/s, its NIC 25 GB/s. The capacities above are ``floor(bandwidth / slowest)``
(:func:`gossipcert.graphs.links.derived_capacity`). A switch's latency is paid once: half
on the link into it, half on the link out.

Machines:

- ``dgx2``: 16 V100 GPUs (nodes 0..15) each linked to the NVSwitch fabric (router 16) by a
  link of capacity 1: its six NVLinks, 125 GB/s, are the only links of the single chassis;
- ``ndv2:K``: ``K`` chassis; GPU ``i`` of chassis ``c`` is node ``8c + i``, linked as the
  DGX-1 (:func:`gossipcert.graphs.dgx1`) with TACCL's numbering (``taccl/topologies/
  generic.py``, the same links as SCCL's). One chassis has no NIC: its links carry 2
  (double NVLink) and 1 (single), the DGX-1. With ``K >= 2`` the NIC is the slowest link:
  NVLinks carry 4 and 2, the NIC 1. Two chassis are joined by a link between their GPUs 0
  (TE-CCL joins two NDv2 chassis directly); ``K >= 3`` by an InfiniBand switch (router
  ``8K``) linked to GPU 0 of every chassis, as TE-CCL's ``teccl/topologies/ndv2.py``;
- ``mi250:K``: ``K`` chassis of 16 MI250 GCDs, node ``16c + i``, linked as TE-CCL's
  ``teccl/topologies/amd.py`` (1, 2 or 4 Infinity Fabric links of 50 GB/s between GCDs).
  One chassis: capacities 1, 2 and 4. With ``K >= 2``: every pair of GCDs ``2j, 2j + 1``
  shares a NIC (a router, 25 GB/s, capacity 1 to each GCD) and every NIC is linked to one
  switch (the last node, capacity 1), as TE-CCL builds it; GCD links then carry 2, 4 and 8.

References
----------
.. [1] A. Shah, V. Chidambaram, M. Cowan, S. Maleki, M. Musuvathi, T. Mytkowicz, J. Nelson,
   O. Saarikivi, R. Singh, "TACCL: Guiding collective algorithm synthesis using
   communication sketches", NSDI 2023; github.com/microsoft/taccl,
   ``taccl/topologies/generic.py`` and ``taccl/examples/topo/*.json`` (DGX-2 and NDv2).
.. [2] X. Liu, B. Arzani, S. K. R. Kakarla, L. Zhao, V. Liu, M. Castro, S. Kandula,
   L. Marshall, "Rethinking machine learning collective communication as a multi-commodity
   flow problem", SIGCOMM 2024 (TE-CCL); github.com/microsoft/TE-CCL,
   ``teccl/topologies/{dgx2,ndv2,amd}.py``.
"""

from __future__ import annotations

import networkx as nx

from gossipcert.graphs.base import _add_edges, _check_int, _check_size, _new_graph
from gossipcert.graphs.links import LINKS, set_link

#: the DGX-1 (and NDv2 chassis) links with two NVLinks and with one
CUBE_MESH_DOUBLE = ((0, 1), (0, 4), (1, 3), (2, 3), (2, 6), (4, 5), (5, 7), (6, 7))
CUBE_MESH_SINGLE = ((0, 2), (0, 3), (1, 2), (1, 5), (3, 7), (4, 6), (4, 7), (5, 6))

#: TE-CCL's MI250 chassis: (GCD, GCD, Infinity Fabric links), ``teccl/topologies/amd.py``
MI250_LINKS = (
    (0, 1, 4), (0, 4, 2), (0, 8, 1), (1, 5, 1), (1, 9, 1), (1, 10, 1), (2, 3, 4),
    (2, 6, 1), (2, 9, 1), (2, 10, 1), (3, 7, 2), (3, 11, 1), (4, 5, 4), (4, 6, 1),
    (5, 6, 1), (5, 7, 1), (6, 7, 4), (8, 9, 4), (8, 12, 2), (9, 13, 1), (10, 11, 4),
    (10, 14, 1), (11, 15, 2), (12, 13, 4), (12, 14, 1), (13, 14, 1), (13, 15, 1),
    (14, 15, 4),
)  # fmt: skip

#: GPUs a chassis of each machine has
GPUS_PER_CHASSIS = {"dgx2": 16, "ndv2": 8, "mi250": 16}


def _mark_routers(graph: nx.Graph, routers: range, chassis: int) -> None:
    for j, v in enumerate(routers):
        graph.nodes[v]["router"] = True
        graph.nodes[v]["coords"] = (chassis, -1 - j)


def dgx2() -> nx.Graph:
    """The DGX-2: 16 GPUs behind the NVSwitch fabric (see the module docstring).

    Returns
    -------
    networkx.Graph
        17 nodes (router 16) and 16 edges of capacity 1.

    Examples
    --------
    >>> g = dgx2()
    >>> g.number_of_nodes(), g.nodes[16]["router"], sorted({c for _, _, c in
    ...     g.edges(data="capacity")})
    (17, True, [1])

    References
    ----------
    TACCL, ``taccl/topologies/generic.py`` (``dgx2``: every GPU reaches every other through
    the switch at one bandwidth); TE-CCL, ``teccl/topologies/dgx2.py`` (one switch node a
    chassis, 125 GB/s to each GPU).
    """
    graph = _new_graph(17, "dgx2")
    for v in range(16):
        graph.nodes[v]["coords"] = (0, v)
    _mark_routers(graph, range(16, 17), 0)
    _add_edges(graph, ((v, 16) for v in range(16)), cap=1)
    half = LINKS["nvswitch-v100"].alpha / 2  # paid once through the switch
    for v in range(16):
        set_link(graph, v, 16, "nvswitch-v100", alpha=half)
    return graph


def ndv2(chassis: int, latency: int | None = None) -> nx.Graph:
    """``chassis`` Azure NDv2 chassis joined by InfiniBand (see the module docstring).

    Parameters
    ----------
    chassis : int
        Number of chassis, at least 1.
    latency : int, optional
        Rounds a chunk spends on an InfiniBand link, stored as the edge attribute
        ``latency`` of those links (and ``:lat=L`` in the spec); None: no attribute.

    Returns
    -------
    networkx.Graph
        ``8K`` GPUs and, for ``K >= 3``, the switch (node ``8K``).

    Examples
    --------
    >>> g = ndv2(2)
    >>> g.number_of_nodes(), g[0][1]["capacity"], g[0][2]["capacity"], g[0][8]["capacity"]
    (16, 4, 2, 1)
    >>> h = ndv2(4, latency=3)
    >>> h.graph["spec"], h.nodes[32]["router"], h[8][32]["latency"]
    ('ndv2:4:lat=3', True, 3)

    References
    ----------
    TACCL, ``taccl/topologies/generic.py`` (``ndv2``: the links and their two speeds);
    TE-CCL, ``teccl/topologies/ndv2.py`` (NVLink 50 and 25 GB/s, the NIC 12.5 GB/s, two
    chassis joined directly, more through one switch).
    """
    k = _check_int(chassis, "chassis", "ndv2", 1)
    _check_size(8 * k + 1, "ndv2", 17 * k)
    lat = None if latency is None else _check_int(latency, "latency", "ndv2", 1)
    spec = f"ndv2:{k}" + ("" if lat is None else f":lat={lat}")
    n = 8 * k + (1 if k >= 3 else 0)
    graph = _new_graph(n, spec)
    scale = 1 if k == 1 else 2
    for c in range(k):
        base = 8 * c
        for i in range(8):
            graph.nodes[base + i]["coords"] = (c, i)
        _add_edges(graph, ((base + a, base + b) for a, b in CUBE_MESH_DOUBLE), cap=2 * scale)
        _add_edges(graph, ((base + a, base + b) for a, b in CUBE_MESH_SINGLE), cap=scale)
        for lanes, pairs in ((2, CUBE_MESH_DOUBLE), (1, CUBE_MESH_SINGLE)):
            for a, b in pairs:
                set_link(graph, base + a, base + b, "nvlink2", lanes=lanes)
    nic_edges: list[tuple[int, int]] = []
    if k == 2:
        nic_edges = [(0, 8)]
    elif k >= 3:
        _mark_routers(graph, range(8 * k, 8 * k + 1), -1)
        nic_edges = [(8 * c, 8 * k) for c in range(k)]
    _add_edges(graph, nic_edges, cap=1)
    nic_alpha = LINKS["ib-edr"].alpha / (1 if k == 2 else 2)  # once through the switch
    for a, b in nic_edges:
        set_link(graph, a, b, "ib-edr", alpha=nic_alpha)
    if lat is not None:
        for a, b in nic_edges:
            graph[a][b]["latency"] = lat
    return graph


def mi250(chassis: int = 1) -> nx.Graph:
    """``chassis`` chassis of 16 AMD MI250 GCDs as TE-CCL models them (module docstring).

    Parameters
    ----------
    chassis : int
        Number of chassis, at least 1.

    Returns
    -------
    networkx.Graph
        ``16K`` GCDs; with ``K >= 2`` also ``8K`` NIC routers and one switch (the last node).

    Examples
    --------
    >>> g = mi250()
    >>> g.number_of_nodes(), g.number_of_edges(), g[0][1]["capacity"]
    (16, 28, 4)
    >>> h = mi250(2)
    >>> h.number_of_nodes(), h[0][1]["capacity"], h[0][32]["capacity"], h.nodes[48]["router"]
    (49, 8, 1, True)

    References
    ----------
    TE-CCL, ``teccl/topologies/amd.py`` (the GCD links, a NIC router for every two GCDs
    and one switch joining the NICs; 50 GB/s a GCD link, 25 GB/s a NIC link).
    """
    k = _check_int(chassis, "chassis", "mi250", 1)
    _check_size(24 * k + 1, "mi250", 48 * k)
    n = 16 * k + (8 * k + 1 if k >= 2 else 0)
    graph = _new_graph(n, f"mi250:{k}")
    scale = 1 if k == 1 else 2
    for c in range(k):
        base = 16 * c
        for i in range(16):
            graph.nodes[base + i]["coords"] = (c, i)
        for a, b, links in MI250_LINKS:
            _add_edges(graph, [(base + a, base + b)], cap=links * scale)
            set_link(graph, base + a, base + b, "xgmi-mi250", lanes=links)
    if k >= 2:
        switch = n - 1
        _mark_routers(graph, range(switch, switch + 1), -1)
        for c in range(k):
            nics = range(16 * k + 8 * c, 16 * k + 8 * c + 8)
            _mark_routers(graph, nics, c)
            for j, nic in enumerate(nics):
                _add_edges(graph, [(16 * c + 2 * j, nic), (16 * c + 2 * j + 1, nic)], cap=1)
                _add_edges(graph, [(nic, switch)], cap=1)
                set_link(graph, 16 * c + 2 * j, nic, "nic-mi250", alpha=0.0)
                set_link(graph, 16 * c + 2 * j + 1, nic, "nic-mi250", alpha=0.0)
                set_link(graph, nic, switch, "nic-mi250", alpha=LINKS["nic-mi250"].alpha / 2)
    return graph
