"""ForestColl's optimal allgather bandwidth on its own fabrics, reproduced by gossipcert's
bandwidth bound as the same rational numbers.

The fabrics are built here from ForestColl's conventions (github.com/liangyuRain/ForestColl,
``topologies.py``; ``benchmarks/forestcoll.py`` runs its own code beside this bound): directed
links in both directions with a capacity in GB/s, switches and NICs as nodes that are not
GPUs.

- ``a100`` boxes of 8 A100 GPUs, each linked to its box's NVSwitch at 300 GB/s; with more
  than one box each GPU also has its own NIC at 25 GB/s, and NICs of even and of odd GPUs
  join two InfiniBand switches at 25 GB/s;
- ``mi250`` boxes of 16 MI250 GCDs with ``w`` Infinity Fabric links of 50 GB/s between two
  GCDs (the chassis of ``gossipcert.graphs.machines.MI250_LINKS``); with more than one box
  every GCD is linked to one InfiniBand switch at 16 GB/s.

ForestColl's optimum (its ``binary_search``, checked once against its code) is
``2400/7``, ``1040/3``, ``2400/7`` and ``5312/15`` GB/s for ``a100`` and ``mi250`` with one
and two boxes: ``N / ratio`` of :func:`gossipcert.closed_forms.throughput.allgather_cut`
gives the same fractions, and the binding cut's ratio is re-derived from the graph alone.
"""

from __future__ import annotations

from fractions import Fraction

import networkx as nx
import pytest

from gossipcert.closed_forms.throughput import allgather_cut, cut_ratio
from gossipcert.graphs.machines import MI250_LINKS


def _both_ways(graph: nx.DiGraph, u: object, v: object, gbps: int) -> None:
    graph.add_edge(u, v, capacity=gbps)
    graph.add_edge(v, u, capacity=gbps)


def a100(boxes: int) -> tuple[nx.DiGraph, list[object]]:
    graph, gpus = nx.DiGraph(), []
    for box in range(boxes):
        for g in range(8):
            gpu = ("gpu", box, g)
            gpus.append(gpu)
            _both_ways(graph, gpu, ("nvswitch", box), 300)
            if boxes > 1:
                _both_ways(graph, gpu, ("nic", box, g), 25)
                _both_ways(graph, ("nic", box, g), ("ib", g % 2), 25)
    return graph, gpus


def mi250(boxes: int) -> tuple[nx.DiGraph, list[object]]:
    graph, gpus = nx.DiGraph(), []
    for box in range(boxes):
        gpus += [("gcd", box, g) for g in range(16)]
        for a, b, links in MI250_LINKS:
            _both_ways(graph, ("gcd", box, a), ("gcd", box, b), 50 * links)
        if boxes > 1:
            for g in range(16):
                _both_ways(graph, ("gcd", box, g), ("ib",), 16)
    return graph, gpus


@pytest.mark.parametrize(
    ("fabric", "boxes", "algbw"),
    [
        (a100, 1, Fraction(2400, 7)),
        (a100, 2, Fraction(1040, 3)),
        (mi250, 1, Fraction(2400, 7)),
        (mi250, 2, Fraction(5312, 15)),
    ],
)
def test_forestcoll_optimum_is_the_bound(fabric, boxes, algbw) -> None:
    graph, gpus = fabric(boxes)
    cut = allgather_cut(graph, gpus)
    assert len(gpus) / cut.ratio == algbw
    # the cut alone gives the ratio (the bound needs nothing else)
    assert cut_ratio(graph, cut.side, compute=gpus) == cut.ratio
    assert cut.ratio == Fraction(cut.inside) / cut.bandwidth


def test_the_fabrics_are_forestcolls() -> None:
    """Their sizes: 8 GPUs and a switch; 16 GPUs, 2 switches, 16 NICs, 2 IB switches; the
    MI250 box has 7 links' worth of Infinity Fabric (350 GB/s) out of every GCD."""
    assert a100(1)[0].number_of_nodes() == 9
    assert a100(2)[0].number_of_nodes() == 36
    g, gpus = mi250(1)
    assert all(g.out_degree(v, weight="capacity") == 350 for v in gpus)
    assert mi250(2)[0].number_of_nodes() == 33


def test_a_slower_link_lowers_the_bound() -> None:
    """Halving one box's NVSwitch port of one GPU makes that port bind: 7 GPUs' shares of
    the 8-GPU box must enter it through 150 GB/s."""
    graph, gpus = a100(1)
    graph[("nvswitch", 0)][gpus[0]]["capacity"] = 150
    cut = allgather_cut(graph, gpus)
    assert len(gpus) / cut.ratio == Fraction(8 * 150, 7)
    assert gpus[0] not in cut.side
