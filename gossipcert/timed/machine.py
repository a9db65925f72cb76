"""A machine to time transfers on: links with bandwidth and latency, routes between ranks.

The cost model (docs/time.md, "The cost model"): a link has a latency ``alpha`` (seconds)
and a bandwidth ``B`` (bytes a second in each direction); a transfer of ``b`` bytes over it
takes ``alpha + b / B`` and occupies it for ``b / B``. A :class:`Machine` is a graph with these
numbers on every arc (:mod:`gossipcert.graphs.links`) and the ranks of an algorithm placed
on its processors (rank ``r`` on the ``r``-th processor; routers, such as switches and
NICs, are not ranks).

**Routes.** A transfer between two ranks takes the link between them when there is one;
otherwise a route over the machine's real links (:meth:`Machine.route`): a path of least
``sum(alpha + b / B)`` for the transfer's ``b`` bytes. Where several are equally cheap
(GPU 0 of one A100 box to GPU 9 of the other: through any odd GPU's NIC, or any even
one's), the ``k``-th channel a pair of ranks uses takes the ``k``-th of them (in a fixed
order, cyclically), as the collective libraries give each channel its own NIC. A path is
cut into *segments* at the processors it passes (a processor stores a chunk before it
forwards it); within a segment the routers forward **cut-through** (NVSwitch and
InfiniBand switches stream a transfer on to the next link as soon as it has started on the
one before, and the segment's latencies are paid once at its end,
:mod:`gossipcert.timed.simulate`), or, with ``switch="store-and-forward"`` (TE-CCL's and
the round model's switches), every link is a segment of its own.

**Units.** A graph whose edges carry no ``bandwidth`` (a spec such as ``ring:8``) has no
physical units: each link moves its ``capacity`` times ``bandwidth`` data units per time
unit (``bandwidth`` 1 unless given) with latency ``alpha`` time units (0 unless given);
:attr:`Machine.units` then says so in words and the reports print sizes and times in those
units. On a graph with units ``alpha`` replaces every link's latency (a path through a switch
crosses two links, so pays it twice) and ``bandwidth`` is refused (the machine has its own).
``hub:N`` (the single-port model on ``K_N``) is timed as ``N`` processors behind one
cut-through switch, one link of ``bandwidth`` each.
"""

from __future__ import annotations

import heapq
import itertools
import math
from dataclasses import dataclass, field
from typing import Any

import networkx as nx

from gossipcert import graphs
from gossipcert.errors import FormatError, SpecError
from gossipcert.graphs.links import has_units

__all__ = ["SWITCHES", "Machine", "Route", "check_positive", "machine_of"]

#: how routers forward a transfer (see the module docstring)
SWITCHES = ("cut-through", "store-and-forward")
#: equally cheap routes between two ranks, at most (a transfer takes the one of its channel)
MAX_ROUTES = 64


def check_positive(value: Any, what: str) -> float:
    """``value`` as a positive finite float, or SpecError naming ``what``.

    Examples
    --------
    >>> check_positive("2.5e-6", "--alpha")
    2.5e-06
    >>> check_positive(0, "--bandwidth")
    Traceback (most recent call last):
    ...
    gossipcert.errors.SpecError: --bandwidth must be a positive number, got 0
    """
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise SpecError(f"{what} must be a positive number, got {value!r}") from None
    if isinstance(value, bool) or not (math.isfinite(number) and number > 0):
        raise SpecError(f"{what} must be a positive number, got {value!r}")
    return number


@dataclass(frozen=True)
class Route:
    """The links a transfer between two ranks takes.

    Attributes
    ----------
    nodes : tuple of int
        The nodes of the path, sender first.
    segments : tuple of (arcs, bandwidths, alpha)
        Each segment's arc indices (into :attr:`Machine.arcs`), their bandwidths and the
        segment's latency (the sum of its links').
    """

    nodes: tuple[int, ...]
    segments: tuple[tuple[tuple[int, ...], tuple[float, ...], float], ...]

    @property
    def direct(self) -> bool:
        return len(self.nodes) == 2

    def seconds(self, nbytes: float) -> float:
        """Time of ``nbytes`` over the route with every link free."""
        return sum(alpha + nbytes / min(bws) for _, bws, alpha in self.segments)


@dataclass
class Machine:
    """A graph with bandwidths and latencies, and the ranks placed on its processors.

    Attributes
    ----------
    graph : networkx.Graph
    name : str
        The machine's spec.
    ranks : list of int
        The node of each rank.
    units : str or None
        None for a machine in bytes and seconds; else the sentence that says in which units
        a graph without physical units is timed.
    switch : str
        ``cut-through`` or ``store-and-forward`` (see the module docstring).
    arcs : list of (u, v)
        Every arc; :attr:`bandwidth` and :attr:`alpha` are indexed like it.
    """

    graph: nx.Graph
    name: str
    ranks: list[int]
    units: str | None
    switch: str
    arcs: list[tuple[int, int]]
    bandwidth: list[float]
    alpha: list[float]
    alpha_note: str | None = None
    _index: dict[tuple[int, int], int] = field(default_factory=dict, repr=False)
    _routes: dict[tuple[int, int, float], list[Route]] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        self._index = {arc: i for i, arc in enumerate(self.arcs)}

    @property
    def fastest(self) -> float:
        """The largest bandwidth of a link."""
        return max(self.bandwidth)

    @property
    def slowest(self) -> float:
        """The smallest bandwidth of a link."""
        return min(self.bandwidth)

    def arc(self, u: int, v: int) -> int | None:
        """The index of arc ``u -> v`` (None: not a link)."""
        return self._index.get((u, v))

    def describe(self) -> str:
        """One line: the machine and its units."""
        if self.units is not None:
            return f"{self.name} ({self.units})"
        text = f"{self.name} (bandwidth and latency of every link: gossipcert graph {self.name})"
        if self.alpha_note:
            text += f"; {self.alpha_note}"
        return text

    def route(self, src: int, dst: int, nbytes: float, channel: int = 0) -> Route:
        """The route of a transfer of ``nbytes`` from rank ``src`` to rank ``dst``: the
        ``channel``-th of the equally cheap ones, cyclically (see the module docstring)."""
        u, v = self.ranks[src], self.ranks[dst]
        key = (u, v, nbytes)
        found = self._routes.get(key)
        if found is None:
            found = self._routes[key] = self._routes_between(u, v, nbytes)
        return found[channel % len(found)]

    def _routes_between(self, u: int, v: int, nbytes: float) -> list[Route]:
        direct = self.arc(u, v)
        if direct is not None:
            return [Route((u, v), (((direct,), (self.bandwidth[direct],), self.alpha[direct]),))]
        return [self._as_route(path) for path in self._cheapest_paths(u, v, nbytes)]

    def _as_route(self, path: list[int]) -> Route:
        routers = self.graph.nodes
        segments = []
        current: list[int] = []
        for a, b in itertools.pairwise(path):
            current.append(self._index[(a, b)])
            if self.switch == "store-and-forward" or not routers[b].get("router", False):
                segments.append(current)
                current = []
        return Route(
            tuple(path),
            tuple(
                (
                    tuple(seg),
                    tuple(self.bandwidth[i] for i in seg),
                    sum(self.alpha[i] for i in seg),
                )
                for seg in segments
            ),
        )

    def _costs(self, start: int, nbytes: float, reverse: bool) -> dict[int, float]:
        """Least ``sum(alpha + nbytes / bandwidth)`` from ``start`` (to it, ``reverse``)."""
        dist = {start: 0.0}
        heap = [(0.0, start)]
        while heap:
            cost, a = heapq.heappop(heap)
            if cost > dist[a]:
                continue
            for b in self.graph[a]:
                i = self._index[(b, a) if reverse else (a, b)]
                step = cost + self.alpha[i] + nbytes / self.bandwidth[i]
                if step < dist.get(b, math.inf):
                    dist[b] = step
                    heapq.heappush(heap, (step, b))
        return dist

    def _cheapest_paths(self, u: int, v: int, nbytes: float) -> list[list[int]]:
        """The paths of least ``sum(alpha + nbytes / bandwidth)`` from ``u`` to ``v``
        (within a relative 1e-9), at most :data:`MAX_ROUTES`, in lexicographic order."""
        ahead, behind = self._costs(u, nbytes, False), self._costs(v, nbytes, True)
        best = ahead[v] * (1 + 1e-9) + 1e-300
        paths: list[list[int]] = []
        stack = [(u, [u], 0.0)]
        while stack and len(paths) < MAX_ROUTES:
            a, path, cost = stack.pop()
            if a == v:
                paths.append(path)
                continue
            for b in sorted(self.graph[a], reverse=True):
                i = self._index[(a, b)]
                step = cost + self.alpha[i] + nbytes / self.bandwidth[i]
                if b not in path and step + behind.get(b, math.inf) <= best:
                    stack.append((b, [*path, b], step))
        return paths


def _hub_star(n: int, spec: str) -> nx.Graph:
    """``n`` processors behind one router (``hub:N`` as a machine)."""
    star = nx.Graph()
    star.graph["spec"] = spec
    for v in range(n):
        star.add_node(v, label=str(v), router=False)
    star.add_node(n, label="switch", router=True)
    star.add_edges_from(((v, n) for v in range(n)), capacity=1)
    return star


def machine_of(
    graph: nx.Graph,
    ranks: int,
    *,
    alpha: float | None = None,
    bandwidth: float | None = None,
    switch: str = "cut-through",
) -> Machine:
    """The machine of ``graph`` with ``ranks`` ranks (see the module docstring).

    Parameters
    ----------
    graph : networkx.Graph
        A machine (edges with ``bandwidth`` and ``alpha``) or a graph without units.
    ranks : int
        The algorithm's ranks: the graph must have as many processors.
    alpha : float, optional
        Latency of every link (seconds, or time units without physical units).
    bandwidth : float, optional
        Data units per time unit of a capacity-1 link (graphs without units only).
    switch : {"cut-through", "store-and-forward"}

    Raises
    ------
    SpecError
        A latency or bandwidth that is not a positive number, ``bandwidth`` on a machine
        with its own, or an unknown switch semantics.
    FormatError
        The graph's processors are not as many as the ranks.

    Examples
    --------
    >>> from gossipcert.graphs import from_spec
    >>> m = machine_of(from_spec("ring:4"), 4)
    >>> m.units
    'no physical units: a link of capacity c moves c data units per time unit each way, no latency'
    >>> m.route(0, 2, 1.0).nodes
    (0, 1, 2)
    >>> round(machine_of(from_spec("dgx1"), 8).route(0, 1, 1e6).seconds(1e6), 9)  # 50 GB/s
    2.07e-05
    """
    if switch not in SWITCHES:
        raise SpecError(f"unknown switch semantics {switch!r}; choose one of {', '.join(SWITCHES)}")
    spec = str(graph.graph.get("spec", "the graph"))
    lat = None if alpha is None else check_positive(alpha, "a latency (--alpha)")
    bw = None if bandwidth is None else check_positive(bandwidth, "a bandwidth (--bandwidth)")
    procs = graphs.processors(graph)
    if len(procs) != ranks:
        raise FormatError(
            f"the algorithm has {ranks} ranks but {spec} has {len(procs)} GPUs (processors); "
            "name a machine with as many"
        )
    units: str | None = None
    note: str | None = None
    if has_units(graph):
        if bw is not None:
            raise SpecError(
                f"{spec} has its own link bandwidths (gossipcert graph {spec} lists them); "
                "--bandwidth is for graphs without physical units"
            )
        if lat is not None:
            note = f"every link's latency set to {lat:g} s"
    else:
        if graph.graph.get("ports"):  # nodes behind one switch (hub:N), one port each
            graph = _hub_star(len(procs), spec)
            procs = list(range(len(procs)))
        per = 1.0 if bw is None else bw
        units = (
            "no physical units: a link of capacity c moves "
            + ("c" if bw is None else f"{per:g} c")
            + " data units per time unit each way, "
            + ("no latency" if lat is None else f"latency {lat:g} time units")
        )
    arcs: list[tuple[int, int]] = []
    bws: list[float] = []
    alphas: list[float] = []
    for u, v, data in graph.edges(data=True):
        if units is None:
            b, a = float(data["bandwidth"]), float(data.get("alpha", 0.0))
        else:
            b, a = float(data.get("capacity", 1)) * (1.0 if bw is None else bw), 0.0
        if lat is not None:
            a = lat
        for arc in ((u, v), (v, u)):
            arcs.append(arc)
            bws.append(b)
            alphas.append(a)
    return Machine(graph, spec, procs, units, switch, arcs, bws, alphas, note)
