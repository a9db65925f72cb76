"""The :class:`Bound` record, its kinds, and the facts about an instance that several bounds share.

See :mod:`gossipcert.closed_forms` for the conventions every bound follows.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from typing import Any

import networkx as nx
import numpy as np

from gossipcert import graphs
from gossipcert.errors import GossipcertError
from gossipcert.instance import Instance, ModelKind, ProblemKind, bits


@dataclass(frozen=True)
class Bound:
    """One bound on the number of rounds (or on the linear cost).

    Attributes
    ----------
    name : str
        Stable identifier (e.g. ``"distance"``).
    kind : str
        ``"lower"``, ``"upper"`` or ``"lower-cost"``.
    value : int
        Rounds (calls in the sequential model). For ``"lower-cost"``: the lower bound on
        the rounds that the cost bound is built from.
    source : str
        Citation and a one-line argument.
    cost : float or None
        ``"lower-cost"`` only: the lower bound on ``T = R + tau*h*S``.

    Examples
    --------
    >>> Bound("distance", "lower", 3, "every model").to_json()
    {'name': 'distance', 'kind': 'lower', 'value': 3, 'source': 'every model'}
    """

    name: str
    kind: str
    value: int
    source: str
    cost: float | None = None

    def to_json(self) -> dict[str, object]:
        """JSON-ready form (``cost`` only when it is set)."""
        out: dict[str, object] = asdict(self)
        if self.cost is None:
            del out["cost"]
        return out


_LOWER = "lower"
_UPPER = "upper"
_LOWER_COST = "lower-cost"


_BS = "Beier-Sibeyn"
_DIM = "Dimakopoulos 1999"
_GON = "Gonzalez 2003"
_DD = "Dimakopoulos-Dimopoulos"
_BGP = "Bermond-Gargano-Perennes 1998"


# --------------------------------------------------------------------------------------------
# Facts about an instance (cached on the instance)
# --------------------------------------------------------------------------------------------


def _cache(instance: Instance) -> dict[str, Any]:
    """A per-instance dictionary for facts that are costly to recompute."""
    store = instance.__dict__.get("_bounds_cache")
    if store is None:
        store = {}
        object.__setattr__(instance, "_bounds_cache", store)
    return store


def _memo(instance: Instance, key: str, compute: Callable[[], Any]) -> Any:
    store = _cache(instance)
    if key not in store:
        store[key] = compute()
    return store[key]


def _holders(instance: Instance) -> list[list[int]]:
    out: list[list[int]] = [[] for _ in range(instance.n_packets)]
    for v, mask in enumerate(instance.holdings):
        for p in bits(mask):
            out[p].append(v)
    return out


def _packet_counts(masks: Sequence[int], n_packets: int) -> np.ndarray:
    """For each packet ``p``, how many of the bit masks ``masks`` (one per node) have bit
    ``p`` set (a column count, without a Python step per bit).

    Examples
    --------
    >>> _packet_counts([0b011, 0b110, 0b010], 3).tolist()
    [1, 3, 1]
    """
    counts = np.zeros(n_packets, dtype=np.int64)
    width = (n_packets + 7) // 8
    for mask in masks:
        if mask:
            row = np.frombuffer(mask.to_bytes(width, "little"), dtype=np.uint8)
            counts += np.unpackbits(row, bitorder="little")[:n_packets]
    return counts


def _has_routers(instance: Instance) -> bool:
    return bool(_memo(instance, "routers", lambda: graphs.routers(instance.graph)))


def _is_gossip(instance: Instance) -> bool:
    """Gossip among all nodes (no routers)."""
    return instance.problem.kind is ProblemKind.GOSSIP and not _has_routers(instance)


def _ceil_log2(x: int) -> int:
    """``ceil(log2 x)`` for ``x >= 1``, exactly."""
    return (x - 1).bit_length()


def _radius(instance: Instance) -> int:
    return int(_memo(instance, "radius", lambda: graphs.describe(instance.graph)["radius"]))


def _structure(instance: Instance) -> str:
    """``"path"`` (K1 and K2 included), ``"cycle"`` or ``"other"``, from the edges alone."""

    def compute() -> str:
        g = instance.graph
        n, m = g.number_of_nodes(), g.number_of_edges()
        if n == 0 or not nx.is_connected(g):
            return "other"
        degrees = [d for _, d in g.degree()]
        if m == n - 1 and max(degrees, default=0) <= 2:
            return "path"
        if n >= 3 and m == n and all(d == 2 for d in degrees):
            return "cycle"
        return "other"

    return str(_memo(instance, "structure", compute))


def _complete(instance: Instance) -> bool:
    """Whether the graph is complete (K1, K2 and K3 included)."""
    g = instance.graph
    n = g.number_of_nodes()
    return n >= 1 and g.number_of_edges() == n * (n - 1) // 2


def _looks_like_file(spec: str) -> bool:
    return "/" in spec or spec.lower().endswith(graphs.GRAPH_FILE_SUFFIXES)


def _same_graph(a: nx.Graph, b: nx.Graph) -> bool:
    """Same nodes, edges, capacities and router flags (node numbering included)."""
    if a.number_of_nodes() != b.number_of_nodes() or a.number_of_edges() != b.number_of_edges():
        return False
    for v in b.nodes:
        if v not in a or bool(a.nodes[v].get("router", False)) != bool(
            b.nodes[v].get("router", False)
        ):
            return False
    for u, v, data in b.edges(data=True):
        if not a.has_edge(u, v) or int(a[u][v].get("capacity", 1)) != int(data.get("capacity", 1)):
            return False
    return True


def _verified_spec(instance: Instance) -> str | None:
    """The graph's spec string if the graph is exactly what the spec builds, else None."""

    def compute() -> str | None:
        spec = instance.graph.graph.get("spec")
        if not isinstance(spec, str) or not spec or _looks_like_file(spec):
            return None
        try:
            rebuilt = graphs.from_spec(spec)
        except GossipcertError:
            return None
        if not _same_graph(instance.graph, rebuilt):
            return None
        _cache(instance)["rebuilt"] = rebuilt
        return spec

    return _memo(instance, "verified_spec", compute)


def _family(instance: Instance) -> tuple[str, str] | None:
    """``(family, arguments)`` of a verified single (non-product) spec such as
    ``("knodel", "8")``; None for products, files and graphs that differ from their spec."""
    spec = _verified_spec(instance)
    if spec is None or "*" in spec:
        return None
    name, _, args = spec.partition(":")
    return name.strip().lower(), args.strip()


def _family_k(instance: Instance, family: str) -> int | None:
    """The single integer parameter of a verified ``family:K`` spec, or None."""
    fam = _family(instance)
    if fam is None or fam[0] != family:
        return None
    try:
        return int(fam[1])
    except ValueError:
        return None


#: a factor of a product of paths and cycles: (number of nodes, wraps around).
#: K2 (2 nodes) counts as both a path and a cycle of length 2.
_Factor = tuple[int, bool]


def _grid_factors_of(spec: str) -> list[_Factor] | None:
    """Factors of a spec built from rings, paths, meshes, tori and hypercubes only."""
    out: list[_Factor] = []
    for part in spec.split("*"):
        name, _, args = part.strip().partition(":")
        name = name.strip().lower()
        try:
            if name in ("ring", "path"):
                sizes = [(int(args), name == "ring")]
            elif name in ("mesh", "torus"):
                a, b = (int(x) for x in args.lower().split("x"))
                sizes = [(a, name == "torus"), (b, name == "torus")]
            elif name == "hypercube":
                sizes = [(2, True)] * int(args)
            elif name == "complete" and int(args) <= 2:
                sizes = [(int(args), True)]
            else:
                return None
        except ValueError:
            return None
        for size, wraps in sizes:
            if size >= 2:
                out.append((size, wraps or size == 2))
    return out


def _grid_factors(instance: Instance) -> list[_Factor] | None:
    """The path and cycle factors of a verified product of paths and rings (meshes, tori and
    hypercubes included), one-node factors dropped; None for other graphs."""
    spec = _verified_spec(instance)
    if spec is None:
        return None
    return _grid_factors_of(spec)


# --------------------------------------------------------------------------------------------
# Hypotheses shared by several bounds
# --------------------------------------------------------------------------------------------


def _telephone_lower_gossip(instance: Instance) -> bool:
    """Gossip (no routers) in a model whose rounds are telephone rounds."""
    return instance.model.rules.calls_form_matching and _is_gossip(instance)


def _gossip_upper_applies(instance: Instance, kinds: set[ModelKind], unbounded: bool) -> bool:
    """A gossip schedule of the paper's model is a schedule of ``instance``: right model,
    no limit on calls per round, no routers, and (``unbounded``) unbounded packets when the
    paper needs them. It solves gossip, and with unbounded packets every problem."""
    m = instance.model
    if m.kind not in kinds or m.calls_per_round is not None or _has_routers(instance):
        return False
    if unbounded and m.packet_cap is not None:
        return False
    return instance.problem.kind is ProblemKind.GOSSIP or m.packet_cap is None


def _telephone_upper(instance: Instance) -> bool:
    """Beier-Sibeyn's upper bounds: telephone model, unbounded packets, unit cost rounds."""
    return _gossip_upper_applies(instance, {ModelKind.TELEPHONE}, unbounded=True)
