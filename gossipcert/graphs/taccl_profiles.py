"""TACCL's topology profiles: link latencies and speeds measured on a machine.

A profile (``taccl/examples/topo/*.json``) gives ``gpus_per_node``, ``alpha`` (the
latency of a send, microseconds) and, per kind of link, ``beta`` (microseconds a megabyte,
10^6 bytes): a link's bandwidth is ``10^6 / beta`` bytes a microsecond, ``10^12 / beta`` bytes
a second. TACCL builds the links themselves from the topology's name on its command line
(``taccl/topologies/generic.py``); gossipcert reads the three shapes TACCL knows:

- ``"links"`` and ``"betas"`` (``custom``: ``links[dst][src]`` non-zero where a link is, each
  direction's ``beta``): one edge per linked pair, of the slower direction's bandwidth;
- 16 GPUs and one beta (``dgx2``): every GPU linked to one NVSwitch (a router) at
  ``10^12 / beta``, the latency ``alpha`` half on each side of the switch;
- 8 GPUs and two betas (``ndv2``): the DGX-1's hybrid cube-mesh, the first beta on the
  double NVLinks (0-1, 0-4, 1-3, 2-3, 2-6, 4-5, 5-7, 6-7), the second on the single ones.

One chassis: the ``remote_*`` numbers (the NIC between chassis, which TACCL multiplies by
the chassis count it is given) are not used. The round model's capacities are the links'
bandwidths over the slowest one, rounded down (:func:`gossipcert.graphs.links.
derived_capacity`).

References
----------
.. [1] A. Shah et al., "TACCL: Guiding collective algorithm synthesis using communication
   sketches", NSDI 2023; github.com/microsoft/taccl, ``taccl/topologies/generic.py``
   (``custom``, ``dgx2``, ``ndv2``) and ``taccl/examples/topo/topo-{dgx2,ndv2}-*.json``.
"""

from __future__ import annotations

import math
from typing import Any

from gossipcert.errors import FormatError

__all__ = ["is_taccl_profile", "read_taccl_profile"]

#: the DGX-1's links with two NVLinks (the first beta of an NDv2 profile)
_DOUBLE = ((0, 1), (0, 4), (1, 3), (2, 3), (2, 6), (4, 5), (5, 7), (6, 7))
_SINGLE = ((0, 2), (0, 3), (1, 2), (1, 5), (3, 7), (4, 6), (4, 7), (5, 6))


def is_taccl_profile(data: Any) -> bool:
    """Whether decoded JSON is a TACCL profile (``gpus_per_node`` and ``alpha``)."""
    return isinstance(data, dict) and "gpus_per_node" in data and "alpha" in data


def _positive(value: Any, where: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise FormatError(f"{where} must be a positive number, got {value!r}")
    if not (math.isfinite(value) and value > 0):
        raise FormatError(f"{where} must be a positive number, got {value!r}")
    return float(value)


def read_taccl_profile(
    data: dict[str, Any], name: str
) -> tuple[list[str], list[tuple[str, str, float, float]], list[str]]:
    """Nodes, edges ``(u, v, bandwidth in bytes/s, latency in s)`` and routers of a
    TACCL profile (see the module docstring).

    Raises
    ------
    FormatError
        A shape TACCL's profile does not say, or numbers that are not positive.

    Examples
    --------
    >>> nodes, edges, routers = read_taccl_profile({"name": "DGX2_1MB", "gpus_per_node": 16,
    ...     "alpha": 0.3, "node_betas_list": [8], "node_invbws_list": [8]}, "p")
    >>> len(nodes), routers, edges[0]
    (17, ['switch'], ('0', 'switch', 125000000000.0, 1.5e-07))
    """
    n = data.get("gpus_per_node")
    if isinstance(n, bool) or not isinstance(n, int) or n < 2:
        raise FormatError(f"{name}: 'gpus_per_node' must be a whole number >= 2, got {n!r}")
    alpha = data.get("alpha")
    seconds = 0.0 if alpha == 0 else _positive(alpha, f"{name}: 'alpha'") * 1e-6
    nodes = [str(i) for i in range(n)]
    if "links" in data:
        return nodes, _custom(data, n, seconds, name), []
    betas = data.get("node_betas_list")
    if not isinstance(betas, list) or not betas:
        raise FormatError(f"{name}: a TACCL profile needs 'node_betas_list' (us/MB per link)")
    speeds = [1e12 / _positive(b, f"{name}: node_betas_list") for b in betas]
    if n == 16 and len(speeds) == 1:
        edges = [(str(i), "switch", speeds[0], seconds / 2) for i in range(n)]
        return [*nodes, "switch"], edges, ["switch"]
    if n == 8 and len(speeds) == 2:
        edges = [(str(a), str(b), speeds[0], seconds) for a, b in _DOUBLE]
        edges += [(str(a), str(b), speeds[1], seconds) for a, b in _SINGLE]
        return nodes, edges, []
    raise FormatError(
        f"{name}: a TACCL profile of {n} GPUs and {len(speeds)} link speed(s): TACCL takes "
        "the links from the topology it is named with (DGX-2: 16 GPUs and one speed; NDv2: "
        "8 and two); give 'links' and 'betas' for another machine"
    )


def _custom(
    data: dict[str, Any], n: int, seconds: float, name: str
) -> list[tuple[str, str, float, float]]:
    links, betas = data.get("links"), data.get("betas")
    for key, table in (("links", links), ("betas", betas)):
        if (
            not isinstance(table, list)
            or len(table) != n
            or not all(isinstance(row, list) and len(row) == n for row in table)
        ):
            raise FormatError(f"{name}: {key!r} must be a {n} x {n} matrix")
    assert isinstance(links, list) and isinstance(betas, list)
    edges = []
    for i in range(n):
        for j in range(i + 1, n):
            ways = [(d, s) for d, s in ((i, j), (j, i)) if links[d][s]]
            if ways:
                slowest = max(_positive(betas[d][s], f"{name}: betas[{d}][{s}]") for d, s in ways)
                edges.append((str(i), str(j), 1e12 / slowest, seconds))
    if not edges:
        raise FormatError(f"{name}: the profile's 'links' join no GPUs")
    return edges
