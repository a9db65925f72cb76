"""Instances: a graph, a model and a problem bound together, the packets spelled out
(model specs: :mod:`gossipcert.models.spec`; problem specs: :mod:`gossipcert.problems`).

A :class:`Model` says who may talk to whom in one round and how much may be carried; a
:class:`Problem` says which packets exist, who holds them before round 1 and who must know
them at the end; an :class:`Instance` binds both to a graph and spells the packets out.

Model specs are read by :mod:`gossipcert.models.spec`, problem specs by
:mod:`gossipcert.problems`; their names are importable from here too.

References
----------
.. [1] R. Beier and J. F. Sibeyn, "A powerful heuristic for telephone gossiping".
.. [2] V. V. Dimakopoulos, "Single-port multinode broadcasting", Tech. Report 1-99,
   University of Ioannina, 1999 (single-port full- and half-duplex links).
.. [3] T. F. Gonzalez, "An efficient algorithm for gossiping in the multicasting
   communication environment", IEEE TPDS, 2003.
.. [4] V. V. Dimakopoulos and N. J. Dimopoulos, "Communications in binary fat trees".
.. [5] J.-C. Bermond, L. Gargano, S. Perennes, "Optimal sequential gossiping by short
   messages", Discrete Applied Mathematics 86, 1998.
"""

from __future__ import annotations

import ast
import numbers
from collections.abc import Hashable
from dataclasses import dataclass
from typing import Any

import networkx as nx

from gossipcert import graphs
from gossipcert.errors import InstanceError, SpecError, UnsupportedModelError
from gossipcert.models import MODELS
from gossipcert.models.base import ModelKind
from gossipcert.models.spec import Model, parse_model
from gossipcert.problems import (
    _ROOTED,
    REDOPS,
    REDUCTIONS,
    Problem,
    ProblemKind,
    _canonical_int,
    _hashable,
    names_problem_file,
    parse_chunks,
    parse_problem,
    parse_redop,
    problem_from_dict,
    stored_problem,
    with_chunks,
    with_redop,
)

# the model and problem specs live in gossipcert.models.spec and gossipcert.problems; their
# names are re-exported here, where an instance is built from them
__all__ = [
    "REDOPS",
    "REDUCTIONS",
    "Instance",
    "Model",
    "ModelKind",
    "Problem",
    "ProblemKind",
    "bits",
    "check_capacities",
    "check_latencies",
    "make_instance",
    "names_problem_file",
    "parse_chunks",
    "parse_instance",
    "parse_model",
    "parse_problem",
    "parse_redop",
    "problem_from_dict",
    "require_unit_latencies",
    "resolve_roots",
    "stored_problem",
    "with_chunks",
    "with_redop",
]


@dataclass(frozen=True, eq=False)
class Instance:
    """A graph, a model and a problem, with the packets spelled out.

    Packets are numbered ``0..P-1``; ``holdings[v]`` and ``demands[v]`` are bitmasks
    (Python ints) over packet numbers, so bit ``i`` stands for packet ``packet_names[i]``.

    Attributes
    ----------
    graph : networkx.Graph
        Nodes ``0..n-1`` with the attributes of :mod:`gossipcert.graphs`.
    model, problem : Model, Problem
    packet_names : tuple
        The external name of each packet: for gossip, broadcast and gather the origin node's
        reference, for scatter the destination's, for total exchange ``(origin, destination)``.
    holdings, demands : tuple of int
        Per node, the bitmask of packets held before round 1 / needed at the end.

    Notes
    -----
    In a reduction (``reduce``, ``reduce-scatter``, ``allreduce``) a packet is a *chunk*:
    bit ``c`` of ``holdings[v]`` says that ``v`` contributes to chunk ``c`` (its partial
    result of ``c`` before round 1 is its own contribution), bit ``c`` of ``demands[v]``
    that ``v`` must end with chunk ``c`` combined over every contributor. Chunk names: the
    root's reference (``reduce``), the owner's (``reduce-scatter``, ``allreduce``), paired
    with ``k`` under ``chunks=K``, as the packets of ``broadcast`` and ``gossip``.
    """

    graph: nx.Graph
    model: Model
    problem: Problem
    packet_names: tuple[Hashable, ...]
    holdings: tuple[int, ...]
    demands: tuple[int, ...]

    @property
    def n(self) -> int:
        """Number of nodes."""
        return self.graph.number_of_nodes()

    @property
    def n_packets(self) -> int:
        """Number of packets."""
        return len(self.packet_names)

    def packet_index(self, name: Any) -> int:
        """The number of the packet called ``name`` (JSON lists are taken as tuples)."""
        index = self.__dict__.get("_packet_index")
        if index is None:
            index = {p: i for i, p in enumerate(self.packet_names)}
            object.__setattr__(self, "_packet_index", index)
        key = _hashable(name)
        if key in index:
            return index[key]
        alt = (
            tuple(_canonical_int(x) for x in key)
            if isinstance(key, tuple)
            else (_canonical_int(key))
        )
        if alt in index:
            return index[alt]
        raise SpecError(f"no packet named {name!r} in this instance")

    def describe(self) -> dict[str, Any]:
        """A JSON-ready summary of the instance."""
        return {
            "graph": self.graph.graph.get("spec", "graph"),
            "model": self.model.spec(),
            "problem": self.problem.spec(),
            "n": self.n,
            "m": self.graph.number_of_edges(),
            "packets": self.n_packets,
            **({"redop": self.problem.redop} if self.problem.reduction else {}),
        }


#: most packets a problem split by ``chunks=K`` may have (K times its own packets)
MAX_CHUNKED_PACKETS: int = 1 << 22


def check_capacities(graph: nx.Graph) -> None:
    """Every edge's capacity is a whole number of at least 1 (1 when not given).

    Raises
    ------
    InstanceError
        Another capacity: no model could use such an edge, and the capacity constraints of
        the encodings and the cut bounds assume at least 1.
    """
    bad = next(
        (
            (u, v, c)
            for u, v, c in graph.edges(data="capacity", default=1)
            if isinstance(c, bool) or not isinstance(c, numbers.Integral) or c < 1
        ),
        None,
    )
    if bad is not None:
        u, v, c = bad
        raise InstanceError(
            f"edge {u} -- {v} has capacity {c!r}; a capacity must be a whole number >= 1"
        )


def check_latencies(graph: nx.Graph, model: Model, problem: Problem) -> None:
    """Every edge's latency is a whole number of at least 1, and a latency other than 1
    comes with a model and problem that state what it means.

    A latency ``L`` (edge attribute ``latency``, 1 when absent) is stated for the all-port
    model only (:mod:`gossipcert.models.all_port`: a packet entering the link in round ``t``
    is known at its far end from the end of round ``t + L - 1``), and for the problems that
    copy packets (not the reductions, whose partial results the rule does not cover).

    Raises
    ------
    InstanceError
        A latency that is not a whole number >= 1.
    UnsupportedModelError
        Some latency is not 1 and the model is not all-port, or the problem is a reduction.
    """
    slow: tuple[Any, Any, Any] | None = None
    for u, v, lat in graph.edges(data="latency", default=1):
        if isinstance(lat, bool) or not isinstance(lat, numbers.Integral) or lat < 1:
            raise InstanceError(
                f"edge {u} -- {v} has latency {lat!r}; a latency must be a whole number >= 1"
            )
        if lat != 1 and slow is None:
            slow = (u, v, lat)
    if slow is None:
        return
    u, v, lat = slow
    spec = graph.graph.get("spec") or "the graph"
    if not model.rules.latencies:
        takers = ", ".join(kind.value for kind, rules in MODELS.items() if rules.latencies)
        raise UnsupportedModelError(
            f"{spec} has links slower than one round (edge {graphs.node_ref(graph, u)} -- "
            f"{graphs.node_ref(graph, v)} has latency {lat}); latencies are defined for "
            f"the {takers} model only, got {model.spec()}"
        )
    if problem.reduction:
        raise UnsupportedModelError(
            f"{spec} has links slower than one round (edge {graphs.node_ref(graph, u)} -- "
            f"{graphs.node_ref(graph, v)} has latency {lat}); {problem.spec()} is a reduction, "
            "and latencies are defined for the problems that copy packets only"
        )


def require_unit_latencies(instance: Instance, what: str) -> None:
    """Refuse a graph with latencies in an algorithm that moves a packet one edge a round.

    Raises
    ------
    UnsupportedModelError
        Some edge's latency is not 1 ("the matching heuristic assumes ...").
    """
    slow = graphs.latencies(instance.graph)
    if slow:
        (u, v), lat = next(iter(slow.items()))
        raise UnsupportedModelError(
            f"{what} assumes every link delivers in the round it is used; edge "
            f"{graphs.node_ref(instance.graph, u)} -- {graphs.node_ref(instance.graph, v)} "
            f"has latency {lat}"
        )


def make_instance(graph: nx.Graph, model: Model, problem: Problem) -> Instance:
    """Bind a graph, a model and a problem into an :class:`Instance`.

    Only processors (non-router nodes) hold or demand packets in the built-in problems.

    Raises
    ------
    SpecError
        The problem names a node that does not exist or a router as its root.
    InstanceError
        Some demand can never be met: no holder of the packet lies in the demanding node's
        connected component (for instance, gossip on a disconnected graph); or an edge's
        capacity is not a whole number of at least 1 (:func:`check_capacities`), or a latency
        not a whole number of at least 1.
    UnsupportedModelError
        Some edge's latency is not 1 and the model is not all-port or the problem is a
        reduction (:func:`check_latencies`).
    """
    check_capacities(graph)
    check_latencies(graph, model, problem)
    _check_switch_ports(graph, model)
    names, hold, need = _packets(graph, problem)
    if problem.chunks > 1:
        _check_chunk_count(graph, problem, len(names))
        names, hold, need = _split(names, hold, need, problem.chunks)
    instance = Instance(graph, model, problem, tuple(names), tuple(hold), tuple(need))
    _check_satisfiable(instance)
    return instance


def _check_switch_ports(graph: nx.Graph, model: Model) -> None:
    """Refuse a model other than the one a graph of nodes behind one switch is made for."""
    ports = graph.graph.get("ports")
    if ports is not None and (model.kind.value != ports or (model.packet_cap or 1) != 1):
        spec = graph.graph.get("spec", "this graph")
        raise SpecError(
            f"{spec} is nodes behind one switch: one packet out of and one into each node a "
            f"round, the {ports} model with p=1 on a complete graph; use --model {ports} "
            f"(or fully-connected:N for other models), got {model.spec()}"
        )


def _roots(graph: nx.Graph, problem: Problem) -> tuple[int | None, list[int]]:
    """The root of a rooted problem and its sources (several for a broadcast from a set of
    nodes); ``(None, [])`` for the others."""
    kind = problem.kind
    root: int | None = None
    sources: list[int] = []
    if kind in _ROOTED:
        assert problem.root is not None
        sources = resolve_roots(graph, problem.root)
        if len(sources) > 1 and kind is not ProblemKind.BROADCAST:
            raise SpecError(
                f"{kind.value} has one root, e.g. {kind.value}:0 (got {problem.root!r}, which "
                f"names {len(sources)} nodes)"
            )
        root = sources[0]
        for v in sources:
            if graphs.is_router(graph, v):
                raise SpecError(f"{kind.value}:{problem.root} names a router; use a processor")
    return root, sources


def _packets(graph: nx.Graph, problem: Problem) -> tuple[list[Hashable], list[int], list[int]]:
    """The packets' names, and each node's holding and demand (bit masks over the packets)."""
    procs = graphs.processors(graph)
    ref = lambda v: graphs.node_ref(graph, v)  # noqa: E731
    kind = problem.kind
    names: list[Hashable] = []
    n = graph.number_of_nodes()
    hold = [0] * n
    need = [0] * n
    root, sources = _roots(graph, problem)
    if kind is ProblemKind.GOSSIP:
        for i, v in enumerate(procs):
            names.append(ref(v))
            hold[v] |= 1 << i
        everything = (1 << len(procs)) - 1
        for v in procs:
            need[v] = everything
    elif kind is ProblemKind.BROADCAST:
        names.append(ref(root) if len(sources) == 1 else tuple(ref(v) for v in sources))
        for v in sources:
            hold[v] = 1
        for v in procs:
            need[v] = 1
    elif kind is ProblemKind.SCATTER:
        for v in procs:
            if v != root:
                bit = 1 << len(names)
                names.append(ref(v))
                hold[root] |= bit  # type: ignore[index]
                need[v] |= bit
    elif kind is ProblemKind.GATHER:
        for v in procs:
            if v != root:
                bit = 1 << len(names)
                names.append(ref(v))
                hold[v] |= bit
                need[root] |= bit  # type: ignore[index]
    elif kind is ProblemKind.REDUCE:
        # one chunk: every processor contributes to it, the root needs it combined
        names.append(ref(root))
        for v in procs:
            hold[v] = 1
        need[root] = 1  # type: ignore[index]
    elif kind in (ProblemKind.REDUCE_SCATTER, ProblemKind.ALLREDUCE):
        # chunk i belongs to the i-th processor; every processor contributes to every chunk
        for v in procs:
            names.append(ref(v))
        everything = (1 << len(procs)) - 1
        for i, v in enumerate(procs):
            hold[v] = everything
            need[v] = everything if kind is ProblemKind.ALLREDUCE else 1 << i
    elif kind is ProblemKind.TOTAL_EXCHANGE:
        for u in procs:
            for v in procs:
                if u != v:
                    bit = 1 << len(names)
                    names.append((ref(u), ref(v)))
                    hold[u] |= bit
                    need[v] |= bit
    else:
        names = _custom_packets(graph, problem, hold, need)
    return names, hold, need


def _custom_packets(
    graph: nx.Graph, problem: Problem, hold: list[int], need: list[int]
) -> list[Hashable]:
    """The packets of a problem file, their holders and demanders marked in ``hold`` and
    ``need``."""
    assert problem.custom is not None
    packets, holdings, demands = problem.custom
    if len(set(packets)) != len(packets):
        raise SpecError(f"problem file {problem.spec()!r} lists a packet twice")
    names = list(packets)
    index = {p: i for i, p in enumerate(names)}
    for table, target, what in ((holdings, hold, "holdings"), (demands, need, "demands")):
        for node, plist in table:
            v = graphs.resolve_node(graph, node)
            for p in plist:
                if p not in index:
                    raise SpecError(
                        f"problem file {problem.spec()!r}: {what} of {node!r} names "
                        f"packet {p!r}, which is not in 'packets'"
                    )
                if graphs.is_router(graph, v):
                    raise SpecError(
                        f"problem file {problem.spec()!r}: node {node!r} is a router; "
                        f"routers store and forward but hold and demand nothing "
                        f"(it has {what} {p!r})"
                    )
                target[v] |= 1 << index[p]
    return names


def _check_chunk_count(graph: nx.Graph, problem: Problem, packets: int) -> None:
    """Refuse a chunk count that makes more packets than :data:`MAX_CHUNKED_PACKETS`."""
    if packets * problem.chunks > MAX_CHUNKED_PACKETS:
        raise SpecError(
            f"chunks={problem.chunks} splits the {packets} packets of "
            f"{problem.spec()} on {graph.graph.get('spec', 'this graph')} into "
            f"{packets * problem.chunks} packets, more than the limit of "
            f"{MAX_CHUNKED_PACKETS}; use fewer chunks"
        )


def _split(
    names: list[Hashable], hold: list[int], need: list[int], k: int
) -> tuple[list[Hashable], list[int], list[int]]:
    """Every packet ``p`` becomes ``k`` packets ``(p, 0) .. (p, k-1)`` (bit ``p k + j``)."""

    def spread(mask: int) -> int:
        out = 0
        for p in bits(mask):
            out |= ((1 << k) - 1) << (p * k)
        return out

    new_names: list[Hashable] = [(name, j) for name in names for j in range(k)]
    return new_names, [spread(m) for m in hold], [spread(m) for m in need]


def resolve_roots(graph: nx.Graph, ref: int | str) -> list[int]:
    """The nodes a problem's root text names: one node, or a comma-separated list of them
    (the sources of a multi-source broadcast, ``broadcast:0,5,9``).

    The whole text is first matched as one node reference (a label may contain commas, as
    ``(1, 2)``, the name networkx gives a node of a grid or torus, does); otherwise the text
    is read from the left, each node being the longest run of comma-separated parts that
    names one. A part written as a Python tuple without its spaces (``(1,2)``) names the
    node labelled as Python prints that tuple (``(1, 2)``). Repeats count once; the order is
    the order written.

    Raises
    ------
    SpecError
        If some part names no node.

    Examples
    --------
    >>> from gossipcert.graphs import from_spec
    >>> resolve_roots(from_spec("ring:10"), "0, 5,9")
    [0, 5, 9]
    """
    try:
        return [_resolve_text(graph, ref)]
    except SpecError as first:
        parts = str(ref).split(",")
        if len(parts) < 2 or not all(x.strip() for x in parts):
            raise first from None
    found: list[int] = []
    i = 0
    while i < len(parts):
        for j in range(len(parts), i, -1):
            try:
                found.append(_resolve_text(graph, ",".join(parts[i:j]).strip()))
            except SpecError:
                if j == i + 1:  # not even one part names a node
                    raise
                continue
            i = j
            break
    return list(dict.fromkeys(found))


def _resolve_text(graph: nx.Graph, ref: int | str) -> int:
    """:func:`graphs.resolve_node`, and a tuple written without its spaces (``(1,2)``) as
    the label Python prints for it (``(1, 2)``)."""
    try:
        return graphs.resolve_node(graph, ref)
    except SpecError:
        text = str(ref).strip()
        if not text.startswith("("):
            raise
        try:
            value = ast.literal_eval(text)
        except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
            raise SpecError(
                f"unknown node {ref!r} in {graph.graph.get('spec') or 'the graph'}"
            ) from None
        if not isinstance(value, tuple) or str(value) == text:
            raise
        return graphs.resolve_node(graph, str(value))


def _check_satisfiable(instance: Instance) -> None:
    """Raise InstanceError if a demand has no holder in the demanding node's component."""
    g = instance.graph
    held = 0
    for h in instance.holdings:
        held |= h
    for v in range(instance.n):
        orphan = instance.demands[v] & ~held
        if orphan:
            p = (orphan & -orphan).bit_length() - 1
            raise InstanceError(
                f"no node holds packet {instance.packet_names[p]!r}, but node "
                f"{graphs.node_ref(g, v)} needs it"
            )
    for comp in nx.connected_components(g):
        known = 0
        outside = 0  # reductions: chunks some node of another component contributes to
        for v in range(instance.n):
            if v in comp:
                known |= instance.holdings[v]
            else:
                outside |= instance.holdings[v]
        for v in sorted(comp):
            apart = instance.demands[v] & outside if instance.problem.reduction else 0
            if apart:
                p = (apart & -apart).bit_length() - 1
                raise InstanceError(
                    f"the graph is disconnected: node {graphs.node_ref(g, v)} needs chunk "
                    f"{instance.packet_names[p]!r} combined over every contributor, but some "
                    "lie in another component"
                )
            missing = instance.demands[v] & ~known
            if missing:
                p = (missing & -missing).bit_length() - 1
                raise InstanceError(
                    f"the graph is disconnected: node {graphs.node_ref(g, v)} needs packet "
                    f"{instance.packet_names[p]!r}, but no node in its component holds it"
                )


def parse_instance(graph_spec: str, model_spec: str, problem_spec: str) -> Instance:
    """Build an instance from three spec strings (graph, model, problem)."""
    return make_instance(
        graphs.from_spec(graph_spec), parse_model(model_spec), parse_problem(problem_spec)
    )


def bits(mask: int) -> list[int]:
    """The positions of the set bits of ``mask``, in increasing order."""
    out: list[int] = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out
