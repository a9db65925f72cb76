"""Models, problems and instances, and the parsing of their specification strings.

A :class:`Model` says who may talk to whom in one round and how much may be carried; a
:class:`Problem` says which packets exist, who holds them before round 1 and who must know
them at the end; an :class:`Instance` binds both to a graph and spells the packets out.

Model specs (design section 5)::

    telephone            telephone:p=2        sequential:p=2 (telephone with one call a round)
    half-duplex          half-duplex:p=1      single-port:p=1 (default p=1)
    multicast (p=1)      all-port (an arc carries its edge's capacity, 1 by default)

Options after the colon, comma separated: ``p=N`` (packets per transmission), ``calls=N``
(calls or transmissions in the whole network per round), ``c=N`` (capacity of every arc,
all-port; without it each edge's ``capacity`` attribute counts), ``tau=X`` and ``h=N``
(linear cost ``1 + tau*h*s`` per round).

Problem specs: ``gossip``, ``broadcast:S`` (or ``broadcast:S1,S2,...``, one packet held by
several sources), ``scatter:S``, ``gather:R``, ``total-exchange``, the reductions
``reduce:R``, ``reduce-scatter`` and ``allreduce`` (with ``redop=sum|max``, ``sum`` by
default), or a JSON file
``{"packets": [...], "holdings": {node: [packet, ...]}, "demands": {...}}``.

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

import json
import math
import numbers
from collections.abc import Hashable
from dataclasses import dataclass, field, replace
from enum import StrEnum
from pathlib import Path
from typing import Any

import networkx as nx

from gossipcert import graphs
from gossipcert.errors import InstanceError, SpecError
from gossipcert.models import MODELS, rules_of
from gossipcert.models.base import ModelKind

#: spec name -> (kind, default packet cap, default calls per round)
_MODEL_NAMES: dict[str, tuple[ModelKind, int | None, int | None]] = {
    kind.value: (kind, rules.default_packet_cap, None) for kind, rules in MODELS.items()
}
_MODEL_NAMES["sequential"] = (ModelKind.TELEPHONE, None, 1)  # telephone, one call a round
_MODEL_OPTIONS = ("p", "calls", "c", "tau", "h")


@dataclass(frozen=True)
class Model:
    """A communication model: the rules of one round.

    Parameters
    ----------
    kind : ModelKind
        Who may talk in one round (see the table in the module docstring).
    packet_cap : int or None
        ``p``: most packets in one transmission (telephone: each way); None is unbounded.
        Not used by ``all-port``, which is limited by arc capacities instead.
    calls_per_round : int or None
        Most calls (telephone) or transmissions (other models) in the whole network per
        round; 1 is the sequential model of Bermond et al. None is unlimited.
    capacity : int or None
        ``all-port``: packets per arc per round on every arc; None (default) takes each
        edge's ``capacity`` attribute from the graph (1 unless the graph says otherwise).
    tau, h : float or None, int
        Linear cost: a round in which some node sends ``s`` packets costs ``1 + tau*h*s``.
    """

    kind: ModelKind
    packet_cap: int | None = None
    calls_per_round: int | None = None
    capacity: int | None = None
    tau: float | None = None
    h: int = 1

    @property
    def unbounded(self) -> bool:
        """True when a transmission may carry any number of packets (``"all"`` allowed)."""
        return not rules_of(self.kind).arc_capacities and self.packet_cap is None

    def spec(self) -> str:
        """The canonical spec string of this model."""
        name = self.kind.value
        calls = self.calls_per_round
        if self.kind is ModelKind.TELEPHONE and calls == 1:
            name, calls = "sequential", None
        default_p = _MODEL_NAMES[self.kind.value][1]
        opts: list[str] = []
        if self.packet_cap is not None and (self.packet_cap != default_p or name == "half-duplex"):
            opts.append(f"p={self.packet_cap}")
        if calls is not None:
            opts.append(f"calls={calls}")
        if self.capacity is not None:
            opts.append(f"c={self.capacity}")
        if self.tau is not None:
            opts.append(f"tau={self.tau:g}")
        if self.h != 1:
            opts.append(f"h={self.h}")
        return name + (":" + ",".join(opts) if opts else "")


def _positive_int(text: str, what: str, spec: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise SpecError(f"{what} must be a whole number, got {text!r} in {spec!r}") from None
    if value < 1:
        raise SpecError(f"{what} must be at least 1, got {value} in {spec!r}")
    return value


def parse_model(spec: str) -> Model:
    """Parse a model spec such as ``telephone``, ``sequential:p=2`` or ``single-port:p=1``.

    Parameters
    ----------
    spec : str
        ``NAME`` or ``NAME:key=value,...`` (see the module docstring).

    Returns
    -------
    Model

    Raises
    ------
    SpecError
        Naming the bad part and listing what is accepted.

    Examples
    --------
    >>> m = parse_model("sequential:p=2")
    >>> m.kind.value, m.packet_cap, m.calls_per_round
    ('telephone', 2, 1)
    """
    name, _, rest = spec.strip().partition(":")
    name = name.strip().lower()
    if name not in _MODEL_NAMES:
        raise SpecError(
            f"unknown model {name!r} in {spec!r}; known models: {', '.join(_MODEL_NAMES)}"
        )
    kind, packet_cap, calls = _MODEL_NAMES[name]
    capacity: int | None = None
    tau: float | None = None
    h = 1
    seen: set[str] = set()
    for part in filter(None, (x.strip() for x in rest.split(","))):
        key, eq, value = part.partition("=")
        key = key.strip().lower()
        if not eq or key not in _MODEL_OPTIONS:
            raise SpecError(
                f"bad model option {part!r} in {spec!r}; options are p=N, calls=N, c=N, tau=X, h=N"
            )
        if key in seen:
            raise SpecError(f"model option {key!r} is given twice in {spec!r}")
        seen.add(key)
        if key == "p":
            if rules_of(kind).arc_capacities:
                raise SpecError(
                    f"{kind.value} has no packet cap (use c=N for arc capacity): {spec!r}"
                )
            packet_cap = _positive_int(value, "p", spec)
        elif key == "calls":
            calls = _positive_int(value, "calls", spec)
        elif key == "c":
            if not rules_of(kind).arc_capacities:
                raise SpecError(f"arc capacity c=N applies to all-port only: {spec!r}")
            capacity = _positive_int(value, "c", spec)
        elif key == "tau":
            try:
                tau = float(value)
            except ValueError:
                raise SpecError(f"tau must be a number, got {value!r} in {spec!r}") from None
            if not math.isfinite(tau) or tau < 0:
                raise SpecError(f"tau must be a finite non-negative number in {spec!r}")
        else:
            h = _positive_int(value, "h", spec)
    return Model(kind, packet_cap, calls, capacity, tau, h)


class ProblemKind(StrEnum):
    """The problems of the design (section 3)."""

    GOSSIP = "gossip"
    BROADCAST = "broadcast"
    SCATTER = "scatter"
    GATHER = "gather"
    TOTAL_EXCHANGE = "total-exchange"
    CUSTOM = "custom"
    REDUCE = "reduce"
    REDUCE_SCATTER = "reduce-scatter"
    ALLREDUCE = "allreduce"


_ROOTED = {ProblemKind.BROADCAST, ProblemKind.SCATTER, ProblemKind.GATHER, ProblemKind.REDUCE}

#: the reductions: a packet is a chunk whose partial results are combined (design section 3)
REDUCTIONS = frozenset({ProblemKind.REDUCE, ProblemKind.REDUCE_SCATTER, ProblemKind.ALLREDUCE})

#: the reduction operators: ``sum`` counts a contribution once only, ``max`` is idempotent
REDOPS = ("sum", "max")


@dataclass(frozen=True)
class Problem:
    """A problem: which packets exist, who holds them, who must know them.

    Parameters
    ----------
    kind : ProblemKind
    root : int, str or None
        The source (broadcast, scatter) or root (gather), as written by the user: a node
        label or index, resolved against the graph by :func:`make_instance`.
    custom : tuple or None
        For ``custom``: ``(packets, holdings, demands)`` as read from the JSON file.
    chunks : int
        Each node's data is split into this many packets (the ``--chunks K`` of collective
        libraries): every packet of the problem becomes ``K`` packets ``(name, k)`` with the
        same holders and demanders. 1 by default; built-in problems only.
    redop : {"sum", "max"}
        The operator of a reduction: under ``sum`` two partial results that share a
        contribution must never be combined (a double count); ``max`` is idempotent and
        allows it. Reductions only (``sum`` elsewhere).
    """

    kind: ProblemKind
    root: int | str | None = None
    custom: (
        tuple[
            tuple[Any, ...],
            tuple[tuple[Any, tuple[Any, ...]], ...],
            tuple[tuple[Any, tuple[Any, ...]], ...],
        ]
        | None
    ) = None
    source_file: str | None = field(default=None, compare=False)
    chunks: int = 1
    redop: str = "sum"

    @property
    def reduction(self) -> bool:
        """Whether this is ``reduce``, ``reduce-scatter`` or ``allreduce``."""
        return self.kind in REDUCTIONS

    def spec(self) -> str:
        """The canonical spec string (a custom problem gives its file name)."""
        if self.kind is ProblemKind.CUSTOM:
            return self.source_file or "custom"
        chunks = [f"chunks={self.chunks}"] if self.chunks != 1 else []
        if self.redop != "sum":
            chunks.append(f"redop={self.redop}")
        if self.kind in _ROOTED:
            return f"{self.kind.value}:" + ",".join([str(self.root), *chunks])
        return self.kind.value + (":" + ",".join(chunks) if chunks else "")


def _node_text(text: str) -> int | str:
    """A node reference as the user wrote it; :func:`graphs.resolve_node` matches it against
    labels first, then against indices ("007" stays a label, never the index 7)."""
    return text.strip()


def names_problem_file(spec: str) -> bool:
    """Whether a problem spec is the path of a custom problem's JSON file.

    Examples
    --------
    >>> names_problem_file("runs/p.JSON "), names_problem_file("broadcast:0")
    (True, False)
    """
    return spec.strip().lower().endswith(".json")


def parse_problem(spec: str) -> Problem:
    """Parse a problem spec: ``gossip``, ``broadcast:S`` (``broadcast:S1,S2,...``: several
    sources), ``scatter:S``, ``gather:R``, ``total-exchange``, ``reduce:R``,
    ``reduce-scatter``, ``allreduce`` or the path of a JSON file, each with an optional
    ``chunks=K``; a reduction also takes ``redop=sum|max`` (default ``sum``).

    Examples
    --------
    >>> parse_problem("broadcast:0,5,chunks=2").root
    '0,5'
    >>> parse_problem("reduce:0,chunks=2,redop=max").spec()
    'reduce:0,chunks=2,redop=max'
    >>> parse_problem("broadcast:0,chunks=2")  # doctest: +NORMALIZE_WHITESPACE
    Problem(kind=<ProblemKind.BROADCAST: 'broadcast'>, root='0', custom=None,
            source_file=None, chunks=2, redop='sum')
    """
    text = spec.strip()
    if names_problem_file(text):
        return _read_custom_problem(Path(text))
    name, colon, rest = text.partition(":")
    name = name.strip().lower()
    name = _PROBLEM_ALIASES.get(name, name)
    accepted = (
        "gossip (allgather), broadcast:S[,S2,...], scatter:S, gather:R, "
        "total-exchange (alltoall), reduce:R, reduce-scatter, allreduce, "
        "each with an optional chunks=K (reductions also redop=sum|max), or a .json file"
    )
    try:
        kind = ProblemKind(name)
    except ValueError:
        raise SpecError(f"unknown problem {name!r} in {spec!r}; accepted: {accepted}") from None
    if kind is ProblemKind.CUSTOM:
        raise SpecError(f"a custom problem is given as a .json file; accepted: {accepted}")
    args = [a.strip() for a in rest.split(",")] if colon else []
    chunks = 1
    redop = "sum"
    seen: set[str] = set()
    plain: list[str] = []
    for a in args:
        key, eq, value = a.partition("=")
        key = key.strip().lower()
        if eq and key in ("chunks", "redop"):
            if key in seen:
                raise SpecError(f"{key} is given twice in {spec!r}")
            seen.add(key)
            if key == "chunks":
                chunks = parse_chunks(value)
            elif kind not in REDUCTIONS:
                raise SpecError(f"redop applies to reductions only, not {name} (got {spec!r})")
            else:
                redop = parse_redop(value)
        else:
            plain.append(a)
    if kind in _ROOTED:
        if not plain or not all(plain):
            raise SpecError(f"{name} needs a node, e.g. {name}:0 (got {spec!r})")
        if len(plain) > 1 and kind is not ProblemKind.BROADCAST:
            raise SpecError(f"{name} has one root, e.g. {name}:0 (got {spec!r})")
        # several sources of a broadcast stay one text: resolve_roots splits it
        return Problem(kind, _node_text(",".join(plain)), chunks=chunks, redop=redop)
    if plain:
        raise SpecError(f"{name} takes no argument but chunks=K (got {spec!r})")
    return Problem(kind, chunks=chunks, redop=redop)


#: the names collective-communication libraries use
_PROBLEM_ALIASES = {
    "allgather": "gossip",
    "alltoall": "total-exchange",
    "reducescatter": "reduce-scatter",
    "reduce_scatter": "reduce-scatter",
}


def parse_redop(text: str) -> str:
    """A reduction operator: ``sum`` or ``max``.

    Examples
    --------
    >>> parse_redop(" MAX ")
    'max'
    """
    value = str(text).strip().lower()
    if value not in REDOPS:
        raise SpecError(f"redop must be one of {', '.join(REDOPS)}, got {text!r}")
    return value


def with_redop(problem: Problem, redop: str | None) -> Problem:
    """``problem`` with the reduction operator ``redop`` (None: unchanged).

    Raises
    ------
    SpecError
        An unknown operator, a problem that is no reduction, or a spec that says another.
    """
    if redop is None:
        return problem
    op = parse_redop(redop)
    if problem.kind not in REDUCTIONS:
        raise SpecError(f"--redop applies to reductions only, not {problem.kind.value}")
    if problem.redop not in ("sum", op):
        raise SpecError(f"--redop {op} contradicts redop={problem.redop} in the problem")
    return replace(problem, redop=op)


def parse_chunks(text: str | int) -> int:
    """The number of packets each node's data is split into: a whole number >= 1.

    Examples
    --------
    >>> parse_chunks("3")
    3
    """
    try:
        value = int(text)
    except ValueError:
        raise SpecError(f"chunks must be a whole number, got {text!r}") from None
    if value < 1:
        raise SpecError(
            f"chunks must be at least 1 (each node's data in K >= 1 packets), got {value}"
        )
    return value


def with_chunks(problem: Problem, chunks: int | None) -> Problem:
    """``problem`` with its data split into ``chunks`` packets (None: unchanged).

    Raises
    ------
    SpecError
        ``chunks < 1``, a custom problem, or a spec that already says another chunks=K.
    """
    if chunks is None:
        return problem
    k = parse_chunks(chunks)
    if problem.kind is ProblemKind.CUSTOM:
        raise SpecError("--chunks applies to the built-in problems, not to a .json problem")
    if problem.chunks not in (1, k):
        raise SpecError(f"--chunks {k} contradicts chunks={problem.chunks} in the problem")
    return replace(problem, chunks=k)


def _read_custom_problem(path: Path) -> Problem:
    try:
        data = json.loads(path.read_text())
    except FileNotFoundError:
        raise SpecError(f"problem file {str(path)!r} does not exist") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise SpecError(f"problem file {str(path)!r} is not valid JSON: {exc}") from None
    return problem_from_dict(data, str(path))


def problem_from_dict(data: Any, source: str) -> Problem:
    """A custom problem from its JSON object ``{"packets", "holdings", "demands"}``.

    Parameters
    ----------
    data : object
        The decoded JSON.
    source : str
        Where it came from (a file name), for messages and as the problem's spec.
    """
    if not isinstance(data, dict) or not {"holdings", "demands"} <= data.keys():
        raise SpecError(
            f"problem file {source!r} must be an object with 'holdings' and 'demands' "
            "(and optionally 'packets')"
        )

    def table(key: str) -> tuple[tuple[Any, tuple[Any, ...]], ...]:
        value = data[key]
        if not isinstance(value, dict) or not all(isinstance(v, list) for v in value.values()):
            raise SpecError(f"problem file {source!r}: {key!r} must map nodes to lists")
        written: dict[int | str, str] = {}
        for k in value:
            node = _node_text(k)
            if node in written:
                raise SpecError(
                    f"problem file {source!r}: {key!r} names node {node!r} twice "
                    f"({written[node]!r} and {k!r}); give each node one list"
                )
            written[node] = k
        return tuple((_node_text(k), tuple(_hashable(p) for p in v)) for k, v in value.items())

    holdings, demands = table("holdings"), table("demands")
    if "packets" in data:
        if not isinstance(data["packets"], list):
            raise SpecError(f"problem file {source!r}: 'packets' must be a list")
        packets = tuple(_hashable(p) for p in data["packets"])
    else:
        seen: dict[Any, None] = {}
        for _, names in holdings + demands:
            seen.update(dict.fromkeys(names))
        packets = tuple(seen)
    return Problem(ProblemKind.CUSTOM, None, (packets, holdings, demands), source)


def _canonical_int(value: Any) -> Any:
    """``"7"`` becomes 7 (text files carry numbers as text); ``"007"`` stays text."""
    if isinstance(value, str):
        try:
            if str(int(value)) == value:
                return int(value)
        except ValueError:
            pass
    return value


def _hashable(value: Any) -> Hashable:
    """JSON lists become tuples so that packet names can be dictionary keys."""
    if isinstance(value, list):
        return tuple(_hashable(x) for x in value)
    if isinstance(value, dict):
        raise SpecError(f"a packet name cannot be an object: {value!r}")
    return value


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
        capacity is not a whole number of at least 1 (:func:`check_capacities`).
    """
    check_capacities(graph)
    ports = graph.graph.get("ports")
    if ports is not None and (model.kind.value != ports or (model.packet_cap or 1) != 1):
        spec = graph.graph.get("spec", "this graph")
        raise SpecError(
            f"{spec} is nodes behind one switch: one packet out of and one into each node a "
            f"round, the {ports} model with p=1 on a complete graph; use --model {ports} "
            f"(or fully-connected:N for other models), got {model.spec()}"
        )
    procs = graphs.processors(graph)
    ref = lambda v: graphs.node_ref(graph, v)  # noqa: E731
    kind = problem.kind
    names: list[Hashable] = []
    n = graph.number_of_nodes()
    hold = [0] * n
    need = [0] * n

    root: int | None = None
    sources: list[int] = []
    if kind in _ROOTED:
        assert problem.root is not None
        sources = resolve_roots(graph, problem.root)
        if len(sources) > 1 and kind is not ProblemKind.BROADCAST:
            raise SpecError(f"{kind.value} takes one node (got {problem.root!r})")
        root = sources[0]
        for v in sources:
            if graphs.is_router(graph, v):
                raise SpecError(f"{kind.value}:{problem.root} names a router; use a processor")

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

    if problem.chunks > 1:
        if len(names) * problem.chunks > MAX_CHUNKED_PACKETS:
            raise SpecError(
                f"chunks={problem.chunks} splits the {len(names)} packets of "
                f"{problem.spec()} on {graph.graph.get('spec', 'this graph')} into "
                f"{len(names) * problem.chunks} packets, more than the limit of "
                f"{MAX_CHUNKED_PACKETS}; use fewer chunks"
            )
        names, hold, need = _split(names, hold, need, problem.chunks)
    instance = Instance(graph, model, problem, tuple(names), tuple(hold), tuple(need))
    _check_satisfiable(instance)
    return instance


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

    The whole text is first matched as one node reference (a label may contain commas);
    otherwise each comma-separated part must name a node. Repeats count once; the order is
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
        return [graphs.resolve_node(graph, ref)]
    except SpecError:
        parts = [x.strip() for x in str(ref).split(",")]
        if len(parts) < 2 or not all(parts):
            raise
    return list(dict.fromkeys(graphs.resolve_node(graph, x) for x in parts))


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
        for v in comp:
            known |= instance.holdings[v]
        for v in sorted(comp):
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


def stored_problem(record: Any) -> Problem:
    """The problem of a certificate's or partial result's instance record: a spec string,
    or ``{"spec": ..., "custom": ...}`` (a custom problem's content travels with it).

    Examples
    --------
    >>> stored_problem("gossip:chunks=2").spec(), stored_problem({"spec": "broadcast:0"}).spec()
    ('gossip:chunks=2', 'broadcast:0')
    """
    if isinstance(record, dict):
        if "custom" in record:
            return problem_from_dict(record["custom"], str(record.get("spec")))
        return parse_problem(str(record.get("spec")))
    return parse_problem(str(record))


def bits(mask: int) -> list[int]:
    """The positions of the set bits of ``mask``, in increasing order."""
    out: list[int] = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out
