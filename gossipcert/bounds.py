"""Closed-form lower and upper bounds on the number of rounds, each with its citation.

Every bound is one function that takes an :class:`~gossipcert.instance.Instance` and returns
a :class:`Bound`, or None where its hypothesis does not hold. :func:`all_bounds` evaluates
them all; :func:`best_lower_bound` picks the largest lower bound.

A bound's ``name`` is stable: certificates refer to it, and ``gossipcert check`` recomputes
it by name.

References
----------
.. [1] R. Beier and J. F. Sibeyn, "A powerful heuristic for telephone gossiping", section 2.
.. [2] V. V. Dimakopoulos, "Single-port multinode broadcasting", Tech. Report 1-99, 1999, section 2.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import asdict, dataclass

import networkx as nx

from gossipcert import graphs
from gossipcert.instance import Instance, ModelKind, ProblemKind, bits


@dataclass(frozen=True)
class Bound:
    """One bound on the number of rounds.

    Attributes
    ----------
    name : str
        Stable identifier (e.g. ``"distance"``).
    kind : str
        ``"lower"`` or ``"upper"``.
    value : int
    source : str
        Citation and a one-line argument.
    """

    name: str
    kind: str
    value: int
    source: str

    def to_json(self) -> dict[str, object]:
        """JSON-ready form."""
        return asdict(self)


#: models in which every node sends to at most one neighbour per round
_ONE_RECEIVER = {ModelKind.TELEPHONE, ModelKind.HALF_DUPLEX, ModelKind.SINGLE_PORT}
#: models whose rounds are telephone rounds (telephone lower bounds hold for them)
_SUBSET_OF_TELEPHONE = {ModelKind.TELEPHONE, ModelKind.HALF_DUPLEX}


def _holders(instance: Instance) -> list[list[int]]:
    out: list[list[int]] = [[] for _ in range(instance.n_packets)]
    for v, mask in enumerate(instance.holdings):
        for p in bits(mask):
            out[p].append(v)
    return out


def distance_bound(instance: Instance) -> Bound | None:
    """A packet crosses at most one edge per round: ``R >= max dist(holders(p), v)`` over the
    demands ``(v, p)``; the eccentricity of the source for broadcast, the diameter (among
    processors) for gossip. Holds in every model.

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> distance_bound(parse_instance("path:5", "telephone", "broadcast:0")).value
    4
    """
    g = instance.graph
    best = 0
    for p, hs in enumerate(_holders(instance)):
        dist = nx.multi_source_dijkstra_path_length(g, hs, weight=None) if hs else {}
        for v in range(instance.n):
            if instance.demands[v] >> p & 1 and v in dist:
                best = max(best, dist[v])
    return Bound("distance", "lower", best, "every model: a packet crosses one edge per round")


def doubling_bound(instance: Instance) -> Bound | None:
    """In one-port models (telephone, half-duplex, single-port) every node that knows a packet
    passes it to at most one node per round, so after ``t`` rounds at most ``2^t·h`` nodes
    know a packet held by ``h`` nodes: ``R >= ceil(log2(k / h))`` for a packet demanded by
    ``k`` nodes besides its holders.

    References
    ----------
    .. [1] Beier and Sibeyn, section 2: ``R >= ceil(log n)``.
    """
    if instance.model.kind not in _ONE_RECEIVER:
        return None
    best = 0
    for p, hs in enumerate(_holders(instance)):
        reach = sum(1 for v in range(instance.n) if instance.demands[v] >> p & 1 or v in hs)
        if hs:
            best = max(best, math.ceil(math.log2(reach / len(hs))) if reach > len(hs) else 0)
    return Bound(
        "doubling",
        "lower",
        best,
        "one-port models: the nodes knowing a packet at most double per round "
        "(Beier-Sibeyn sec. 2)",
    )


def telephone_gossip_odd_bound(instance: Instance) -> Bound | None:
    """Telephone gossip among ``n`` nodes needs ``ceil(log2 n) + odd(n)`` rounds; rounds of the
    half-duplex model are telephone rounds, so the bound holds there too.

    For odd ``n`` some node is idle in every round; the last round cannot complete
    everyone's knowledge, because an idle node must already know all packets after round
    ``R - 1``, which takes ``ceil(log2 n)`` rounds on its own.

    References
    ----------
    .. [1] Beier and Sibeyn, section 2 (citing their [13]): ``R >= ceil(log n) + odd(n)``.
    """
    if instance.model.kind not in _SUBSET_OF_TELEPHONE or instance.problem.kind is not (
        ProblemKind.GOSSIP
    ):
        return None
    if graphs.routers(instance.graph) or instance.n < 2:
        return None
    n = instance.n
    return Bound(
        "telephone-gossip",
        "lower",
        math.ceil(math.log2(n)) + n % 2,
        "Beier-Sibeyn sec. 2: telephone gossip needs ceil(log2 n) + odd(n) rounds",
    )


def receive_bound(instance: Instance) -> Bound | None:
    """With at most ``p`` packets received per node per round (one-port models with a packet
    cap), a node that lacks ``k`` demanded packets needs ``ceil(k / p)`` rounds.

    References
    ----------
    .. [1] Dimakopoulos 1999, section 2, bound (1): ``n - 1`` steps for full duplex.
    """
    m = instance.model
    if m.packet_cap is None or m.kind is ModelKind.ALL_PORT:
        return None
    lacking = max(
        ((d & ~h).bit_count() for d, h in zip(instance.demands, instance.holdings, strict=False)),
        default=0,
    )
    return Bound(
        "receive",
        "lower",
        math.ceil(lacking / m.packet_cap),
        f"a node receives at most p={m.packet_cap} packets per round "
        "(Dimakopoulos 1999, bound (1))",
    )


LOWER_BOUNDS: tuple[Callable[[Instance], Bound | None], ...] = (
    distance_bound,
    doubling_bound,
    telephone_gossip_odd_bound,
    receive_bound,
)
UPPER_BOUNDS: tuple[Callable[[Instance], Bound | None], ...] = ()


def all_bounds(instance: Instance) -> list[Bound]:
    """Every bound that applies to ``instance``, lower bounds first."""
    out = []
    for fn in LOWER_BOUNDS + UPPER_BOUNDS:
        b = fn(instance)
        if b is not None:
            out.append(b)
    return out


def bound_by_name(instance: Instance, name: str) -> Bound | None:
    """Recompute the bound called ``name`` (None if it does not apply or does not exist)."""
    for b in all_bounds(instance):
        if b.name == name:
            return b
    return None


def best_lower_bound(instance: Instance) -> Bound:
    """The largest lower bound that applies (the distance bound always does)."""
    lows = [b for b in all_bounds(instance) if b.kind == "lower"]
    return max(lows, key=lambda b: b.value)
