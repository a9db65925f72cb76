"""Physical links: each edge's bandwidth (bytes a second, each direction) and latency.

The machines (:mod:`gossipcert.graphs.machines`, :mod:`gossipcert.graphs.machines_forestcoll`,
:mod:`gossipcert.graphs.machines_vendors`) give every edge three attributes besides the
round model's ``capacity``:

- ``bandwidth``: bytes a second in each direction (a float);
- ``alpha``: seconds a transfer pays on the link whatever its size (the latency of the
  alpha-beta model, a float >= 0);
- ``link``: the name of the kind of link (a key of :data:`LINKS`), whose numbers and
  sources the table below gives.

A transfer of ``b`` bytes over a link takes ``alpha + b / bandwidth`` and occupies the link
for ``b / bandwidth`` (the standard alpha-beta model; docs/time.md, "The cost model"). The
round model is its discretisation: a round is one chunk over the slowest link, and an edge's
integer ``capacity`` is the number of whole chunks it carries in that time,
``floor(bandwidth / slowest bandwidth)`` (:func:`derived_capacity`), which is every
machine's capacity as it was before the units were added.

Where a path crosses a switch (a router: NVSwitch, an InfiniBand switch) the latency is
paid once, half on the link into the switch and half on the link out of it; the link
between a GPU and its NIC carries no latency of its own (the network latency counts it).

A graph whose edges carry no ``bandwidth`` (``ring:8``, ``fully-connected:8``, a graph
file) has no physical units: it is timed in stated units by
:func:`gossipcert.timed.machine.machine_of` (each link moves ``capacity`` data units per time
unit, no latency, unless options give them).

Link kinds (bandwidth a direction, latency; a link of ``k`` lanes has ``k`` times the
bandwidth):

=================  ==========  =======  ===================================================
kind               GB/s        alpha    sources
=================  ==========  =======  ===================================================
``nvlink2``        25          0.7 us   V100 NVLink 2.0 lane [1]; TE-CCL [2] ``dgx1.py``,
                                        ``ndv2.py`` (25 and 50 GB/s, 0.7 us)
``nvswitch-v100``  125         0.35 us  a DGX-2 GPU into NVSwitch: TE-CCL ``dgx2.py``
                                        (125 GB/s, 0.35 us); TACCL's profile 8 us/MB [3]
``ib-edr``         12.5        1.3 us   NDv2 100 Gb/s InfiniBand NIC: TE-CCL ``ndv2.py``
``nvswitch-a100``  300         0.6 us   A100 twelve NVLink 3.0 lanes into NVSwitch:
                                        ForestColl [4] ``NVLINK_BW``; A100 datasheet [5]
                                        (600 GB/s both ways); latency: NCCL's tuner [6]
``ib-hdr``         25          2.7 us   A100 200 Gb/s HDR NIC, one per GPU: ForestColl
                                        ``A100_IB_BW``; latency: NCCL's tuner [6]
``nvswitch-h100``  450         0.6 us   H100 SXM eighteen NVLink 4.0 lanes: H100
                                        datasheet [7] (900 GB/s both ways); NCCL's tuner
``ib-ndr``         50          2.7 us   H100 400 Gb/s NDR NIC, one per GPU: Azure ND H100
                                        v5 [8]; NCCL's tuner
``xgmi-mi250``     50          0.8 us   MI250 Infinity Fabric lane: TE-CCL ``amd.py``,
                                        ForestColl ``xGMI_BW``; MI250 datasheet [9] (100
                                        GB/s both ways); latency: RCCL's tuner [10]
``nic-mi250``      25          2.7 us   the NIC two MI250 GCDs share, as TE-CCL's
                                        ``amd.py`` has it (25 GB/s)
``ib-mi250``       16          2.7 us   an MI250 GCD's InfiniBand, as ForestColl's
                                        ``MI250_IB_BW`` has it (16 GB/s)
``xgmi-mi300x``    64          0.8 us   MI300X Infinity Fabric link: MI300X datasheet [11]
                                        (seven links, 896 GB/s both ways in all)
=================  ==========  =======  ===================================================

The latencies are the synthesizers' own where they give one (TE-CCL's profiles of NVLink,
NVSwitch and InfiniBand, measured by TACCL); elsewhere the per-hop latencies the collective
libraries' tuners assume for the LL protocol: NCCL's ``hwLatencies`` (NVLink 0.6 us,
network 2.7 us) and RCCL's tuning model 0 (xGMI 0.8 us). They are estimates, not
measurements of one machine: ``--alpha`` replaces them.

References
----------
.. [1] NVIDIA, "NVIDIA Tesla V100 GPU architecture" whitepaper, 2017 (six NVLink 2.0
   lanes of 25 GB/s a direction, 300 GB/s in all).
.. [2] X. Liu et al., "Rethinking machine learning collective communication as a
   multi-commodity flow problem" (TE-CCL), SIGCOMM 2024; github.com/microsoft/TE-CCL,
   ``teccl/topologies/{dgx1,dgx2,ndv2,amd}.py``.
.. [3] A. Shah et al., "TACCL", NSDI 2023; github.com/microsoft/taccl,
   ``taccl/examples/topo/topo-{dgx2,ndv2}-1MB.json`` (alpha in us, beta in us/MB).
.. [4] L. Zhao et al., "ForestColl", arXiv:2402.06787, 2024;
   github.com/liangyuRain/ForestColl, ``topologies.py``.
.. [5] NVIDIA A100 Tensor Core GPU datasheet (NVLink 600 GB/s).
.. [6] github.com/NVIDIA/nccl, ``src/graph/tuning.cc`` (``hwLatencies``: NVLink 0.6 us,
   network 2.7 us for the ring's LL protocol).
.. [7] NVIDIA H100 Tensor Core GPU datasheet (SXM: NVLink 900 GB/s).
.. [8] Microsoft Azure, "ND H100 v5 series" (eight 400 Gb/s NDR InfiniBand, one a GPU).
.. [9] AMD Instinct MI250 accelerator datasheet (Infinity Fabric links of 100 GB/s).
.. [10] github.com/ROCm/rccl, ``src/graph/tuning.cc`` (``tuning_model_0``: NVLINK-class
   (xGMI) ring LL hop 0.8 us).
.. [11] AMD Instinct MI300X accelerator datasheet (seven Infinity Fabric links, 896 GB/s
   peer-to-peer).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import networkx as nx

from gossipcert.errors import GraphError

__all__ = [
    "LINKS",
    "LinkKind",
    "derived_capacity",
    "has_units",
    "link_summary",
    "set_link",
]

#: bytes in a gigabyte as the vendors count (10^9)
GB = 1e9
#: seconds in a microsecond
US = 1e-6


@dataclass(frozen=True)
class LinkKind:
    """A kind of link: its bandwidth (bytes a second, a direction, one lane), its latency
    (seconds), what it is and where the numbers come from."""

    name: str
    bandwidth: float
    alpha: float
    what: str
    source: str


def _kind(name: str, gbs: float, us: float, what: str, source: str) -> LinkKind:
    return LinkKind(name, gbs * GB, us * US, what, source)


#: every kind of link a machine description uses (see the module docstring)
LINKS: dict[str, LinkKind] = {
    k.name: k
    for k in (
        _kind("nvlink2", 25, 0.7, "one NVLink 2.0 lane of a V100",
              "V100 whitepaper; TE-CCL teccl/topologies/ndv2.py"),
        _kind("nvswitch-v100", 125, 0.35, "a DGX-2 GPU's six NVLinks into the NVSwitch fabric",
              "TE-CCL teccl/topologies/dgx2.py; TACCL topo-dgx2-1MB.json (8 us/MB)"),
        _kind("ib-edr", 12.5, 1.3, "an NDv2 chassis' 100 Gb/s EDR InfiniBand NIC",
              "TE-CCL teccl/topologies/ndv2.py"),
        _kind("nvswitch-a100", 300, 0.6, "an A100's twelve NVLink 3.0 lanes into NVSwitch",
              "ForestColl topologies.py NVLINK_BW; A100 datasheet; NCCL tuning.cc"),
        _kind("ib-hdr", 25, 2.7, "an A100's 200 Gb/s HDR InfiniBand NIC",
              "ForestColl topologies.py A100_IB_BW; NCCL tuning.cc"),
        _kind("nvswitch-h100", 450, 0.6, "an H100's eighteen NVLink 4.0 lanes into NVSwitch",
              "H100 datasheet (900 GB/s both ways); NCCL tuning.cc"),
        _kind("ib-ndr", 50, 2.7, "an H100's 400 Gb/s NDR InfiniBand NIC",
              "Azure ND H100 v5 series; NCCL tuning.cc"),
        _kind("xgmi-mi250", 50, 0.8, "one Infinity Fabric lane between MI250 GCDs",
              "TE-CCL teccl/topologies/amd.py; ForestColl xGMI_BW; RCCL tuning.cc"),
        _kind("nic-mi250", 25, 2.7, "the NIC two MI250 GCDs share (TE-CCL's model)",
              "TE-CCL teccl/topologies/amd.py; NCCL tuning.cc"),
        _kind("ib-mi250", 16, 2.7, "an MI250 GCD's InfiniBand (ForestColl's model)",
              "ForestColl topologies.py MI250_IB_BW; NCCL tuning.cc"),
        _kind("xgmi-mi300x", 64, 0.8, "one Infinity Fabric link between MI300X GPUs",
              "MI300X datasheet (7 links, 896 GB/s both ways); RCCL tuning.cc"),
    )
}  # fmt: skip


def set_link(
    graph: nx.Graph, u: int, v: int, kind: str, *, lanes: int = 1, alpha: float | None = None
) -> None:
    """Give the existing edge ``u -- v`` the bandwidth of ``lanes`` links of ``kind`` and a
    latency (``alpha``, default the kind's).

    Examples
    --------
    >>> g = nx.Graph([(0, 1)])
    >>> set_link(g, 0, 1, "nvlink2", lanes=2)
    >>> g[0][1]["bandwidth"], g[0][1]["alpha"], g[0][1]["link"]
    (50000000000.0, 7e-07, 'nvlink2')
    """
    spec = LINKS[kind]
    data = graph[u][v]
    data["bandwidth"] = spec.bandwidth * lanes
    data["alpha"] = spec.alpha if alpha is None else alpha
    data["link"] = kind


def has_units(graph: nx.Graph) -> bool:
    """Whether every edge of ``graph`` carries a ``bandwidth`` (and so physical units).

    Examples
    --------
    >>> has_units(nx.path_graph(3))
    False
    """
    if graph.number_of_edges() == 0:
        return False
    return all("bandwidth" in data for _, _, data in graph.edges(data=True))


def derived_capacity(bandwidth: float, slowest: float) -> int:
    """The round model's capacity of a link: whole chunks it carries while the slowest link
    carries one (at least 1).

    Examples
    --------
    >>> derived_capacity(50e9, 12.5e9), derived_capacity(50e9, 16e9)
    (4, 3)
    """
    if not (bandwidth > 0 and slowest > 0):
        raise GraphError(f"bandwidths must be positive, got {bandwidth!r} and {slowest!r}")
    return max(1, math.floor(bandwidth / slowest * (1 + 1e-12)))


def set_capacities(graph: nx.Graph) -> None:
    """Set every edge's ``capacity`` to :func:`derived_capacity` of its bandwidth."""
    slowest = min(bw for _, _, bw in graph.edges(data="bandwidth"))
    for _, _, data in graph.edges(data=True):
        data["capacity"] = derived_capacity(data["bandwidth"], slowest)


def link_summary(graph: nx.Graph) -> list[dict[str, Any]]:
    """One row per kind of link (and lane count) of a graph with units: its name, the
    number of edges, bandwidth (bytes a second, a direction), latency (s) and capacity.

    Examples
    --------
    >>> from gossipcert.graphs import from_spec
    >>> [(r["link"], r["edges"], r["bandwidth"]) for r in link_summary(from_spec("dgx1"))]
    [('nvlink2', 8, 25000000000.0), ('nvlink2', 8, 50000000000.0)]
    """
    rows: dict[tuple[str, float, float, int], int] = {}
    for _, _, data in graph.edges(data=True):
        if "bandwidth" not in data:
            continue
        key = (
            str(data.get("link", "?")),
            float(data["bandwidth"]),
            float(data.get("alpha", 0.0)),
            int(data.get("capacity", 1)),
        )
        rows[key] = rows.get(key, 0) + 1
    return [
        {"link": k, "edges": count, "bandwidth": bw, "alpha": a, "capacity": c}
        for (k, bw, a, c), count in sorted(rows.items())
    ]
