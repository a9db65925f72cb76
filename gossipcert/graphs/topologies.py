"""Topologies of the collective-synthesis tools, read as gossipcert graphs.

:func:`topology_from_json` recognises three JSON forms and gives the nodes, edges with
capacities and routers that :func:`gossipcert.graphs.read_graph_file` assembles into a graph
(a ``.json`` graph file in gossipcert's own forms is read as before):

* **SCCL, MSCCL and TACCL's topology object** (``{"msccl_type": "topology"}``, or
  ``"sccl_type"`` in the older tools; also the ``"topology"`` inside their algorithm files):
  ``links[dst][src]`` is the bandwidth from ``src`` to ``dst`` in chunks per round (0: no
  link), ``switches`` a list of ``[srcs, dsts, bandwidth, name]``. GPU ``i`` is node ``i``;
  a link in either direction is an edge, of capacity the smaller positive bandwidth of its
  two directions (gossipcert's links carry the same both ways). Each switch becomes a
  router node ``switch:NAME`` linked to every GPU of ``srcs`` and ``dsts`` with the switch's
  bandwidth: chunks through it then take two rounds, one in and one out (a switch in SCCL
  only caps the bandwidth its GPUs' direct links share, which gossipcert's per-link models
  do not express).
* **TE-CCL's topology** as its ``Topology`` classes build it (``teccl/topologies``):
  ``{"capacity": [[...]], "switch_indices": [...]}`` with ``capacity[i][j]`` the capacity from
  ``i`` to ``j`` in chunks per unit of time. Capacities are divided by the smallest positive
  one and rounded (the fastest links of a DGX-1 carry 2, the others 1); switch indices are
  routers.
* **TE-CCL's input file** (``{"TopologyParams": {"name": ..., "chassis": ...}}``): ``DGX1``
  with one chassis is the DGX-1 (the same links and capacities as ``dgx1``, 25 GB/s a
  lane), ``Mesh`` with ``side_length s`` TE-CCL's mesh of ``s^2`` GPUs (``i`` linked to
  ``i +- 1`` and ``i +- s``, 100 GB/s, as ``teccl/topologies/mesh.py`` builds it), both
  with the file's link latency (``alpha``, seconds; 0 by default as in TE-CCL); ``NDv2``
  and ``AMD`` with ``K`` chassis are gossipcert's ``ndv2:K`` and ``mi250:K`` (TE-CCL's
  models, :mod:`gossipcert.graphs.machines`), ``AMD`` with the file's latencies (link,
  switch). ``DGX2`` (two chassis whose NICs send one way) is refused with the reason, so
  are other names and several chassis of DGX1 or Mesh.
* **TACCL's profile** (``gpus_per_node``, ``alpha``, ``node_betas_list``...): the links
  with their measured speeds and latency (:mod:`gossipcert.graphs.taccl_profiles`).

References
----------
.. [1] github.com/microsoft/sccl, ``msccl/topologies/topology.py`` and
   ``msccl/serialization.py``; github.com/microsoft/taccl, ``taccl/serialization.py``.
.. [2] github.com/microsoft/TE-CCL, ``teccl/topologies/``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from gossipcert.errors import FormatError
from gossipcert.graphs.taccl_profiles import is_taccl_profile, read_taccl_profile
from gossipcert.limits import MAX_RANKS, check_limit, shorten

#: the DGX-1's links with two NVLinks (the same as gossipcert.graphs.collectives.dgx1's)
_DGX1 = {
    (0, 1): 2, (0, 4): 2, (1, 3): 2, (2, 3): 2, (2, 6): 2, (4, 5): 2, (5, 7): 2, (6, 7): 2,
    (0, 2): 1, (0, 3): 1, (1, 2): 1, (1, 5): 1, (3, 7): 1, (4, 6): 1, (4, 7): 1, (5, 6): 1,
}  # fmt: skip


@dataclass
class TopologyData:
    """Nodes (labels), edges ``(u, v, capacity)`` and routers of a topology file; the
    physical units of its links when the file gives them (``units[(u, v)]`` is the edge's
    bandwidth in bytes a second and latency in seconds); or, for a file that names one of
    gossipcert's machines, that machine's spec and the latencies the file sets
    (``machine_alpha``: the link and the switch latency, seconds)."""

    name: str
    nodes: list[str]
    edges: list[tuple[str, str, int]] = field(default_factory=list)
    routers: list[str] = field(default_factory=list)
    units: dict[tuple[str, str], tuple[float, float]] = field(default_factory=dict)
    machine: str | None = None
    machine_alpha: tuple[float, float] | None = None


def is_topology_json(data: Any) -> bool:
    """Whether decoded JSON is one of the topology forms of the module docstring.

    Examples
    --------
    >>> is_topology_json({"capacity": [[0, 1], [1, 0]]}), is_topology_json({"nodes": [1]})
    (True, False)
    """
    if not isinstance(data, dict):
        return False
    kind = data.get("msccl_type", data.get("sccl_type"))
    return (
        kind == "topology"
        or "capacity" in data
        or "TopologyParams" in data
        or is_taccl_profile(data)
    )


#: the largest link bandwidth or capacity read (a finite number; larger ones are refused)
MAX_BANDWIDTH = 1e12


def _number(x: Any) -> bool:
    """A JSON number ``0 <= x <= MAX_BANDWIDTH`` (not a bool, NaN or infinity)."""
    return not isinstance(x, bool) and isinstance(x, (int, float)) and 0 <= x <= MAX_BANDWIDTH


def _matrix(value: Any, name: str, key: str) -> list[list[float]]:
    if not isinstance(value, list) or not value or not all(isinstance(r, list) for r in value):
        raise FormatError(f"{name}: {key!r} must be a square matrix (a list of lists)")
    n = len(value)
    check_limit(n, MAX_RANKS, f"nodes ({key!r} rows)", name)
    for i, row in enumerate(value):
        if len(row) != n:
            raise FormatError(f"{name}: {key!r} row {i} has {len(row)} entries, not {n}")
        for x in row:
            if not _number(x):
                raise FormatError(
                    f"{name}: {key!r} row {i} holds {shorten(x)}; expected numbers >= 0 (and "
                    f"at most {MAX_BANDWIDTH:g})"
                )
    return value


def _edges(n: int, forward: Any, scale: float, name: str) -> list[tuple[str, str, int]]:
    """Undirected edges from a directed bandwidth ``forward(i, j)``: the smaller positive
    direction, divided by ``scale`` and rounded (at least 1)."""
    edges = []
    for i in range(n):
        for j in range(i + 1, n):
            both = [b for b in (forward(i, j), forward(j, i)) if b > 0]
            if both:
                edges.append((str(i), str(j), max(1, round(min(both) / scale))))
    if not edges:
        raise FormatError(f"{name}: the topology has no link")
    return edges


def _sccl(data: dict[str, Any], name: str) -> TopologyData:
    if "node_links" in data:
        raise FormatError(
            f"{name}: a TACCL multi-node topology object (node_links, internode_conn): give "
            "its links as an SCCL topology ('links', 'switches') instead"
        )
    links = _matrix(data.get("links"), name, "links")
    n = len(links)
    out = TopologyData(
        str(data.get("name", name)), [str(i) for i in range(n)],
        _edges(n, lambda i, j: links[j][i], 1.0, name),
    )  # fmt: skip
    switches = data.get("switches", [])
    if not isinstance(switches, list):
        raise FormatError(f"{name}: 'switches' must be a list of [srcs, dsts, bandwidth, name]")
    for k, switch in enumerate(switches):
        if not isinstance(switch, list) or len(switch) != 4:
            raise FormatError(f"{name}: switches[{k}] is not [srcs, dsts, bandwidth, name]")
        srcs, dsts, bw, label = switch
        members = list({*srcs, *dsts}) if isinstance(srcs, list) and isinstance(dsts, list) else []
        if not all(isinstance(v, int) for v in members):
            members = []
        members.sort()
        if not members or not all(
            isinstance(v, int) and not isinstance(v, bool) and 0 <= v < n for v in members
        ):
            raise FormatError(f"{name}: switches[{k}] names GPUs outside 0..{n - 1}")
        if not _number(bw) or bw <= 0:
            raise FormatError(f"{name}: switches[{k}] has bandwidth {shorten(bw)}; it must be > 0")
        if isinstance(label, bool) or not isinstance(label, (str, int)):
            raise FormatError(f"{name}: switches[{k}] has name {shorten(label)}; expected a string")
        router = f"switch:{label}"
        out.nodes.append(router)
        out.routers.append(router)
        out.edges.extend((str(v), router, max(1, round(bw))) for v in members)
    return out


def _teccl(data: dict[str, Any], name: str) -> TopologyData:
    capacity = _matrix(data.get("capacity"), name, "capacity")
    n = len(capacity)
    positive = [c for row in capacity for c in row if c > 0]
    scale = min(positive) if positive else 1.0
    switches = data.get("switch_indices", [])
    if not isinstance(switches, list) or not all(
        isinstance(s, int) and not isinstance(s, bool) and 0 <= s < n for s in switches
    ):
        raise FormatError(f"{name}: 'switch_indices' must list node numbers 0..{n - 1}")
    edges = _edges(n, lambda i, j: capacity[i][j], scale, name)
    return TopologyData(name, [str(i) for i in range(n)], edges, [str(s) for s in switches])


def _teccl_alpha(params: dict[str, Any], name: str) -> tuple[float, float]:
    """TE-CCL's ``alpha``: (link latency, switch latency) in seconds, (0, 0) by default."""
    alpha = params.get("alpha", [0.0, 0.0])
    if (
        not isinstance(alpha, list | tuple)
        or len(alpha) != 2
        or not all(isinstance(a, int | float) and not isinstance(a, bool) and a >= 0 for a in alpha)
    ):
        raise FormatError(f"{name}: TE-CCL's 'alpha' must be two latencies >= 0 (seconds)")
    return float(alpha[0]), float(alpha[1])


def _teccl_input(data: dict[str, Any], name: str) -> TopologyData:
    params = data["TopologyParams"]
    if not isinstance(params, dict):
        raise FormatError(f"{name}: 'TopologyParams' must be an object")
    kind, chassis = str(params.get("name", ""))[:40], params.get("chassis", 1)
    if kind in ("NDv2", "AMD"):
        if isinstance(chassis, bool) or not isinstance(chassis, int) or chassis < 1:
            raise FormatError(f"{name}: 'chassis' must be a whole number >= 1, got {chassis!r}")
        if kind == "NDv2":  # TE-CCL's NDv2 latencies are its own, whatever the file says
            return TopologyData(name, [], machine=f"ndv2:{chassis}")
        return TopologyData(
            name, [], machine=f"mi250:{chassis}", machine_alpha=_teccl_alpha(params, name)
        )
    if kind == "DGX2":
        raise FormatError(
            f"{name}: TE-CCL's DGX2 is two chassis whose NICs send one way only (GPU 2i+1 to "
            "GPU 2i of the other chassis), which gossipcert's links (the same both ways) do "
            "not describe; use --topology dgx2 for one chassis"
        )
    if chassis != 1:
        raise FormatError(
            f"{name}: TE-CCL's {kind} with {shorten(chassis)} chassis is built in TE-CCL's "
            "code, not described here; only one chassis of DGX1 or Mesh is read"
        )
    link_alpha = _teccl_alpha(params, name)[0]
    if kind == "DGX1":  # 25 GB/s a lane (teccl/topologies/dgx1.py)
        edges = [(str(u), str(v), c) for (u, v), c in sorted(_DGX1.items())]
        units = {(u, v): (25e9 * c, link_alpha) for u, v, c in edges}
        return TopologyData(name, [str(i) for i in range(8)], edges, units=units)
    if kind == "Mesh":  # 100 GB/s a link (teccl/topologies/mesh.py)
        side = params.get("side_length")
        if isinstance(side, bool) or not isinstance(side, int) or side < 2:
            raise FormatError(
                f"{name}: Mesh needs an integer side_length >= 2, got {shorten(side)}"
            )
        n = side * side
        check_limit(n, MAX_RANKS, f"GPUs (a Mesh of side_length {side})", name)
        edges = [(str(i), str(j), 1) for i in range(n) for j in range(i + 1, n)
                 if j in (i + 1, i + side)]  # fmt: skip
        units = {(u, v): (100e9, link_alpha) for u, v, _ in edges}
        return TopologyData(name, [str(i) for i in range(n)], edges, units=units)
    raise FormatError(f"{name}: TE-CCL topology {kind!r} is built in TE-CCL's code; DGX1, Mesh, "
                      "NDv2 and AMD are read (or give its capacity matrix)")  # fmt: skip


def _taccl_profile(data: dict[str, Any], name: str) -> TopologyData:
    nodes, links, routers = read_taccl_profile(data, name)
    edges = [(u, v, 1) for u, v, _, _ in links]  # capacities: from the bandwidths, later
    units = {(u, v): (bw, alpha) for u, v, bw, alpha in links}
    return TopologyData(str(data.get("name", name)), nodes, edges, routers, units)


def topology_from_json(data: Any, name: str) -> TopologyData:
    """The topology in decoded JSON (see the module docstring).

    Raises
    ------
    FormatError
        Not one of the forms, or malformed.

    Examples
    --------
    >>> t = topology_from_json({"msccl_type": "topology", "name": "line",
    ...                         "links": [[0, 1, 0], [1, 0, 2], [0, 2, 0]], "switches": []}, "f")
    >>> t.edges
    [('0', '1', 1), ('1', '2', 2)]
    """
    if not isinstance(data, dict):
        raise FormatError(f"{name}: not a topology object")
    if "TopologyParams" in data:
        return _teccl_input(data, name)
    if is_taccl_profile(data):
        return _taccl_profile(data, name)
    if "capacity" in data:
        return _teccl(data, name)
    if data.get("msccl_type", data.get("sccl_type")) == "topology":
        return _sccl(data, name)
    raise FormatError(f"{name}: not an SCCL, TACCL or TE-CCL topology")
