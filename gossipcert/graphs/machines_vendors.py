"""Machines from the vendors' data sheets: ``ndv5:K`` (H100) and ``mi300x:N``.

The machines the executors' own MSCCL algorithm files are written for (the RCCL files of
``tools/msccl-algorithms`` target the MI300X; msccl-executor-nccl's ``ndv5`` folder the
Azure ND H100 v5), described as :mod:`gossipcert.graphs.machines_forestcoll` describes the
A100 boxes, with the vendors' link speeds (:mod:`gossipcert.graphs.links`):

- ``ndv5:K``: ``K`` Azure ND H100 v5 boxes of 8 H100 SXM GPUs (node ``8a + b``), each GPU
  linked to its box's NVSwitch (a router, node ``8K + a``) at 450 GB/s a direction (NVLink
  4.0, 900 GB/s both ways); with ``K >= 2`` each GPU has its own 400 Gb/s NDR InfiniBand
  NIC (a router, node ``9K + 8a + b``, 50 GB/s), all linked to one InfiniBand switch (the
  last node). Capacities: 1 on one box; 9 and 1 on several;
- ``mi300x:N``: ``N`` GPUs (2 to 8) of one AMD MI300X platform, in which the 8 GPUs are
  fully connected by Infinity Fabric (seven links per GPU, 64 GB/s a direction each: 896
  GB/s of peer bandwidth in all). Any ``N`` of the 8 are fully connected by the same
  links (the others idle); ``mi300x`` is all 8. Capacity 1.

References
----------
.. [1] NVIDIA H100 Tensor Core GPU datasheet (SXM5: NVLink 900 GB/s); Microsoft Azure,
   "ND H100 v5 series" (8 H100 GPUs, NVLink 4.0, 8 x 400 Gb/s NDR InfiniBand).
.. [2] AMD Instinct MI300X accelerator datasheet and "AMD Instinct MI300X platform"
   (eight GPUs fully connected by seven Infinity Fabric links each, 896 GB/s).
"""

from __future__ import annotations

import itertools

import networkx as nx

from gossipcert.errors import SpecError
from gossipcert.graphs.base import _add_edges, _check_int, _check_size, _new_graph
from gossipcert.graphs.links import LINKS, set_capacities, set_link

#: GPUs of one MI300X platform
MI300X_GPUS = 8


def ndv5(boxes: int = 1) -> nx.Graph:
    """``boxes`` Azure ND H100 v5 boxes (module docstring).

    Examples
    --------
    >>> g = ndv5(2)
    >>> g.number_of_nodes(), g[0][16]["bandwidth"], g[0][16]["capacity"], g.nodes[34]["router"]
    (35, 450000000000.0, 9, True)
    """
    k = _check_int(boxes, "boxes", "ndv5", 1)
    _check_size(17 * k + 1, "ndv5", 17 * k)
    net = k >= 2
    n = 9 * k + (8 * k + 1 if net else 0)
    graph = _new_graph(n, f"ndv5:{k}")
    ib = n - 1
    for a in range(k):
        switch = 8 * k + a
        graph.nodes[switch].update(router=True, coords=(a, -1))
        for b in range(8):
            gpu = 8 * a + b
            graph.nodes[gpu]["coords"] = (a, b)
            _add_edges(graph, [(gpu, switch)])
            set_link(graph, gpu, switch, "nvswitch-h100", alpha=LINKS["nvswitch-h100"].alpha / 2)
            if net:
                nic = 9 * k + 8 * a + b
                graph.nodes[nic].update(router=True, coords=(a, -2 - b))
                _add_edges(graph, [(gpu, nic), (nic, ib)])
                set_link(graph, gpu, nic, "ib-ndr", alpha=0.0)
                set_link(graph, nic, ib, "ib-ndr", alpha=LINKS["ib-ndr"].alpha / 2)
    if net:
        graph.nodes[ib].update(router=True, coords=(-1, -1))
    set_capacities(graph)
    return graph


def mi300x(gpus: int = MI300X_GPUS) -> nx.Graph:
    """``gpus`` GPUs of one MI300X platform, fully connected by Infinity Fabric.

    Examples
    --------
    >>> g = mi300x(4)
    >>> g.graph["spec"], g.number_of_edges(), g[0][3]["bandwidth"], g[0][3]["capacity"]
    ('mi300x:4', 6, 64000000000.0, 1)
    """
    n = _check_int(gpus, "gpus", "mi300x", 2)
    if n > MI300X_GPUS:
        raise SpecError(f"mi300x: a platform has {MI300X_GPUS} GPUs, not {n}")
    graph = _new_graph(n, "mi300x" if n == MI300X_GPUS else f"mi300x:{n}", vertex_transitive=True)
    _add_edges(graph, itertools.combinations(range(n), 2))
    for u, v in itertools.combinations(range(n), 2):
        set_link(graph, u, v, "xgmi-mi300x")
    return graph
