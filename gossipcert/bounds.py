"""Closed-form lower and upper bounds on the number of rounds, each with its citation.

Every bound is one function that takes an :class:`~gossipcert.instance.Instance` and returns
a :class:`Bound`, or None where its hypothesis does not hold (wrong model, problem, graph
family or size). :func:`all_bounds` evaluates them all; :func:`best_lower_bound` picks the
largest lower bound and :func:`best_upper_bound` the smallest upper bound.

A bound's ``name`` is stable: certificates refer to it, and ``gossipcert check`` recomputes
it by name. Names are unique; the names of upper bounds end in ``-upper``.

Kinds
-----
``"lower"``
    Every schedule that solves the instance has at least ``value`` rounds. The exact search
    uses these directly, so each one is stated only under hypotheses that make it sound.
``"upper"``
    Some schedule with ``value`` rounds exists (a theorem of the cited paper: "the algorithm
    takes ``X`` steps"). Informative only; constructions elsewhere build and verify schedules.
``"lower-cost"``
    A lower bound on the *linear cost* ``T = R + tau*h*S`` of the design (section 2), for
    models with ``tau`` set. ``value`` is the lower bound on the rounds ``R`` that the cost
    bound is built from, and ``cost`` the lower bound on ``T``. :func:`best_lower_bound`
    ignores this kind.

In the sequential model (``calls_per_round == 1``) a round is one call, so bounds on the
number of calls are bounds on rounds.

Conventions used in the hypotheses
----------------------------------
* Lower bounds stay sound when the model is *more* restricted than the paper's (a smaller
  packet cap, a limit on calls per round): a schedule of the restricted model is one of the
  paper's model. So lower bounds ignore ``calls_per_round``. Rounds of the half-duplex model
  are telephone rounds (a directed matching is part of a matching), so telephone lower
  bounds on rounds hold for half-duplex too.
* Upper bounds need the paper's model or a less restricted one: no limit on calls per round
  (except the sequential bounds, which are about that model), and a packet cap at least the
  paper's. With unbounded packets a gossip schedule that always sends everything solves every
  problem on the same graph (each node's knowledge contains the holdings of every node whose
  gossip packet it knows), so gossip upper bounds are reported for every problem then.
* Family bounds recognise a graph by ``G.graph["spec"]`` and are reported only when the graph
  equals the one the spec builds (same edges, capacities, routers), so that a graph read
  from a file or edited after construction never inherits a family's bound. Paths, cycles and
  complete graphs are recognised by their structure.
* Bounds on graphs with routers are only those of the fat-tree paper.

Bounds (name: hypothesis -- value)
----------------------------------
General: ``distance``, ``doubling``, ``telephone-gossip``, ``receive``, ``pendant-leaves``
(telephone and half-duplex: the calls of one node with its degree-1 neighbours; ``2(n-1)``
and ``2n-3`` for gossip on the star ``K_{1,n-1}``).

Dimakopoulos [2]: ``dimakopoulos-1`` (single-port or half-duplex, ``p = 1``, gossip:
``n - 1``); ``dimakopoulos-2-3`` (half-duplex, ``p = 1``, gossip: ``2(n - 1)`` for even
``n``, ``2n`` for odd ``n``); ``dimakopoulos-hamiltonian-upper`` (a Hamiltonian cycle is
found: the same values are achieved, section 3); ``dimakopoulos-product-upper`` (products of
factors with a known optimum, Theorems 2-5).

Beier-Sibeyn [1]: ``beier-sibeyn-path`` (telephone gossip on a path: ``n - 1`` even,
``n`` odd), ``beier-sibeyn-cycle`` (on a cycle: ``n/2`` even, ``floor(n/2) + 2`` odd),
``beier-sibeyn-mesh``, ``beier-sibeyn-torus``, ``beier-sibeyn-hypercube``,
``beier-sibeyn-knodel``, ``beier-sibeyn-ccc``, ``beier-sibeyn-se`` (section 2 lower bounds);
``beier-sibeyn-linear-cost`` (kind ``lower-cost``, bound (1)); upper bounds
``beier-sibeyn-path-upper``, ``beier-sibeyn-cycle-upper`` (Lemma 1),
``beier-sibeyn-mesh-upper``, ``beier-sibeyn-torus-upper`` (Lemma 2),
``beier-sibeyn-mesh-lemma3-upper`` (Lemma 3), ``beier-sibeyn-mesh-lemma4-upper``
(Lemma 4), ``beier-sibeyn-lemma5-upper`` (Lemma 5),
``beier-sibeyn-hypercube-upper``, ``beier-sibeyn-knodel-upper``, ``beier-sibeyn-ccc-upper``,
``beier-sibeyn-se-upper``, ``beier-sibeyn-butterfly-upper``, ``beier-sibeyn-debruijn-upper``,
``beier-sibeyn-star-pancake-upper`` (section 2).

Gonzalez [3] (multicast): ``gonzalez-receive`` (``p = 1`` gossip: ``n - 1``),
``gonzalez-odd-path`` (``p = 1`` gossip on a path with odd ``n``: ``n + r - 1``);
``gonzalez-n-plus-r-upper`` (Theorem 1), ``gonzalez-simple-upper`` (Lemma 1,
``2n + r - 3``), ``gonzalez-updown-upper`` (procedure UpDown, ``n + 3r - 2``),
``gonzalez-hamiltonian-upper`` (``n - 1``), ``gonzalez-broadcast-upper`` (eccentricity).

Dimakopoulos-Dimopoulos [4] (all-port binary fat trees, ``n`` leaves, ``L = log2 n``):
``dd-broadcast`` (``2L``), ``dd-scatter-gather``, ``dd-gossip`` (``n + 1``),
``dd-total-exchange`` (``max(n + 1, n^2/(4 c_L))``), ``dd-lemma3`` (hole counting);
``dd-broadcast-upper``, ``dd-scatter-gather-upper``, ``dd-gossip-upper``,
``dd-gossip-no-queue-upper``, ``dd-total-exchange-serial-upper`` (formula (1)),
``dd-total-exchange-pipelined-upper`` (formulas (2) and (3)).

Bermond-Gargano-Perennes [5] (sequential telephone gossip, packet cap ``p``):
``bermond-1`` (bound (1)), ``bermond-2.1`` (Theorem 2.1), ``bermond-p1``
(``c(n, 1) = n(n-1)/2``), ``bermond-2n-4``; ``bermond-3.1-upper`` (Theorem 3.1),
``bermond-p1-upper``, ``bermond-2n-4-upper`` (complete graphs).

References
----------
.. [1] R. Beier and J. F. Sibeyn, "A powerful heuristic for telephone gossiping", SIROCCO
   2000. Section 2 (graph classes, bound (1)) and section 3 (Lemmas 1-5).
.. [2] V. V. Dimakopoulos, "Single-port multinode broadcasting", Tech. Report 1-99,
   University of Ioannina, 1999. Section 2 (bounds (1)-(3)), section 3 (Hamiltonian
   networks), section 4 (Theorems 2-5, products).
.. [3] T. F. Gonzalez, "An efficient algorithm for gossiping in the multicasting
   communication environment", IEEE TPDS 14(7), 2003. Sections 1-4.
.. [4] V. V. Dimakopoulos and N. J. Dimopoulos, "Communications in binary fat trees",
   Proc. ICCI 1995. Table 1, Theorems 1-2, formulas (1)-(3), Lemma 3.
.. [5] J.-C. Bermond, L. Gargano, S. Perennes, "Optimal sequential gossiping by short
   messages", Discrete Applied Mathematics 86 (1998) 145-155. Bound (1), Theorem 2.1,
   Theorem 3.1.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass
from fractions import Fraction
from typing import Any

import networkx as nx

from gossipcert import graphs
from gossipcert.errors import GossipcertError
from gossipcert.instance import Instance, ModelKind, ProblemKind, bits

#: Largest graph on which a Hamiltonian cycle is searched for (larger ones: known families).
HAMILTONIAN_SEARCH_MAX_NODES: int = 2048
#: Rotation-extension steps per node (plus a constant) before that search gives up.
HAMILTONIAN_STEPS_PER_NODE: int = 40
#: Graphs up to this size are also searched exhaustively (within the budget below).
HAMILTONIAN_EXHAUSTIVE_MAX_NODES: int = 64
#: Number of depth-first steps after which the exhaustive search gives up.
HAMILTONIAN_SEARCH_BUDGET: int = 100_000


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

#: models in which every node sends to at most one neighbour per round
_ONE_RECEIVER = {ModelKind.TELEPHONE, ModelKind.HALF_DUPLEX, ModelKind.SINGLE_PORT}
#: models whose rounds are telephone rounds (telephone lower bounds hold for them)
_SUBSET_OF_TELEPHONE = {ModelKind.TELEPHONE, ModelKind.HALF_DUPLEX}

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
# Hamiltonian cycles (for the bounds that route everything around one)
# --------------------------------------------------------------------------------------------


def _is_cycle_in(g: nx.Graph, order: list[int]) -> bool:
    n = g.number_of_nodes()
    if len(order) != n or len(set(order)) != n or n < 3:
        return False
    return all(g.has_edge(order[i], order[(i + 1) % n]) for i in range(n))


def _search_hamiltonian(g: nx.Graph, budget: int) -> list[int] | None:
    """Depth-first search with Warnsdorff's ordering and a degree prune; gives up after
    ``budget`` steps (so the answer None means "not found", not "none exists")."""
    n = g.number_of_nodes()
    adj = [sorted(g[v]) for v in range(n)]
    start = min(range(n), key=lambda v: (len(adj[v]), v))
    on_path = [False] * n
    on_path[start] = True
    path = [start]
    free = [len(adj[v]) for v in range(n)]  # neighbours not on the path
    for w in adj[start]:
        free[w] -= 1

    def candidates(end: int) -> Iterator[int]:
        return iter(sorted((w for w in adj[end] if not on_path[w]), key=lambda w: (free[w], w)))

    def dead(end: int, previous: int) -> bool:
        """An unvisited neighbour of the old or new end with fewer than two ways left."""
        for x in adj[previous] + adj[end]:
            if on_path[x]:
                continue
            ways = free[x] + (end in g[x]) + (start in g[x])
            if ways < 2:
                return True
        return not any(not on_path[w] for w in adj[start]) and len(path) < n

    stack = [candidates(start)]
    steps = 0
    while stack:
        if len(path) == n:
            if g.has_edge(path[-1], start):
                return path
            nxt = None
        else:
            nxt = next(stack[-1], None)
        if nxt is None:
            stack.pop()
            last = path.pop()
            if not path:
                return None
            on_path[last] = False
            for w in adj[last]:
                free[w] += 1
            continue
        steps += 1
        if steps > budget:
            return None
        previous = path[-1]
        path.append(nxt)
        on_path[nxt] = True
        for w in adj[nxt]:
            free[w] -= 1
        if len(path) < n and dead(nxt, previous):
            stack.append(iter(()))
        else:
            stack.append(candidates(nxt))
    return None


def _rotation_extension(g: nx.Graph, budget: int) -> list[int] | None:
    """Pósa's rotation-extension heuristic with a fixed seed: extend the path at its end
    while possible, otherwise rotate it at a neighbour of the end; close it when the two ends
    are adjacent. Deterministic; None after ``budget`` steps."""
    n = g.number_of_nodes()
    adj = [sorted(g[v]) for v in range(n)]
    rng = random.Random(n)
    path = [0]
    position = {0: 0}
    for _ in range(budget):
        end = path[-1]
        fresh = [w for w in adj[end] if w not in position]
        if fresh:
            w = rng.choice(fresh)
            position[w] = len(path)
            path.append(w)
            continue
        if len(path) == n and g.has_edge(end, path[0]):
            return path
        i = position[rng.choice(adj[end])]
        if i == len(path) - 2:
            if rng.random() < 0.5:
                path.reverse()
                position = {v: k for k, v in enumerate(path)}
            continue
        path[i + 1 :] = path[:i:-1]
        for k in range(i + 1, len(path)):
            position[path[k]] = k
    return None


def _hamiltonian_cycle_of(g: nx.Graph, spec: str | None) -> list[int] | None:
    """A Hamiltonian cycle of ``g`` (verified), or None if none was found.

    Cycles, complete graphs and hypercubes (Gray code) are handled directly; other graphs
    with at most :data:`HAMILTONIAN_SEARCH_MAX_NODES` nodes by a bounded rotation-extension
    search, and small ones also by a bounded depth-first search. Bipartite graphs with
    unequal sides have none. Whatever is found is checked edge by edge.
    """
    n = g.number_of_nodes()
    if n < 3 or not nx.is_connected(g) or min(d for _, d in g.degree()) < 2:
        return None
    order: list[int] | None = None
    if g.number_of_edges() == n * (n - 1) // 2:
        order = list(range(n))
    elif all(d == 2 for _, d in g.degree()):
        order = [0]
        previous = -1
        while len(order) < n:
            here = order[-1]
            step = next(w for w in sorted(g[here]) if w != previous)
            previous = here
            order.append(step)
    elif spec is not None and spec.startswith("hypercube:") and "*" not in spec:
        order = [i ^ (i >> 1) for i in range(n)]
    else:
        if nx.is_bipartite(g):
            left, right = nx.bipartite.sets(g)
            if len(left) != len(right):
                return None
        if n <= HAMILTONIAN_SEARCH_MAX_NODES:
            order = _rotation_extension(g, HAMILTONIAN_STEPS_PER_NODE * n + 10_000)
        if order is None and n <= HAMILTONIAN_EXHAUSTIVE_MAX_NODES:
            order = _search_hamiltonian(g, HAMILTONIAN_SEARCH_BUDGET)
    return order if order is not None and _is_cycle_in(g, order) else None


def _hamiltonian(instance: Instance) -> bool:
    """Whether a Hamiltonian cycle of the instance's graph was found (``n >= 3``)."""
    return bool(
        _memo(
            instance,
            "hamiltonian",
            lambda: _hamiltonian_cycle_of(instance.graph, _verified_spec(instance)) is not None,
        )
    )


# --------------------------------------------------------------------------------------------
# Hypotheses shared by several bounds
# --------------------------------------------------------------------------------------------


def _telephone_lower_gossip(instance: Instance) -> bool:
    """Gossip (no routers) in a model whose rounds are telephone rounds."""
    return instance.model.kind in _SUBSET_OF_TELEPHONE and _is_gossip(instance)


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


# --------------------------------------------------------------------------------------------
# General lower bounds
# --------------------------------------------------------------------------------------------


def distance_bound(instance: Instance) -> Bound | None:
    """A packet crosses at most one edge per round.

    ``R >= max dist(holders(p), v)`` over the demands ``(v, p)``: the eccentricity of the
    source for broadcast, the diameter for gossip. Holds in every model.

    Parameters
    ----------
    instance : Instance

    Returns
    -------
    Bound
        Always (a lower bound).

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> distance_bound(parse_instance("path:5", "telephone", "broadcast:0")).value
    4

    References
    ----------
    Folklore; Beier and Sibeyn, section 2 (``LW = a + b - 2`` for meshes).
    """
    g = instance.graph
    best = 0
    for p, hs in enumerate(_holders(instance)):
        dist = nx.multi_source_dijkstra_path_length(g, hs, weight=None) if hs else {}
        for v in range(instance.n):
            if instance.demands[v] >> p & 1 and v in dist:
                best = max(best, dist[v])
    return Bound("distance", _LOWER, best, "every model: a packet crosses one edge per round")


def doubling_bound(instance: Instance) -> Bound | None:
    """The nodes knowing a packet at most double per round in one-port models.

    In telephone, half-duplex and single-port rounds every node that knows a packet passes
    it to at most one node, so after ``t`` rounds at most ``2^t h`` nodes know a packet held
    by ``h`` nodes: ``R >= ceil(log2(k / h))`` for a packet that ``k`` nodes must know or hold.

    Parameters
    ----------
    instance : Instance

    Returns
    -------
    Bound or None
        None outside the one-port models.

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> doubling_bound(parse_instance("complete:9", "telephone", "broadcast:0")).value
    4

    References
    ----------
    Beier and Sibeyn, section 2: ``R >= ceil(log n)``.
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
        _LOWER,
        best,
        "one-port models: the nodes knowing a packet at most double per round "
        "(Beier-Sibeyn sec. 2)",
    )


def telephone_gossip_odd_bound(instance: Instance) -> Bound | None:
    """Telephone gossip among ``n`` nodes needs ``ceil(log2 n) + odd(n)`` rounds.

    For odd ``n`` some node is idle in every round; the node idle in the last round must
    already know all ``n`` packets after round ``R - 1``, which takes ``ceil(log2 n)`` rounds
    because knowledge at most doubles per round. Rounds of the half-duplex model are
    telephone rounds, so the bound holds there too.

    Parameters
    ----------
    instance : Instance

    Returns
    -------
    Bound or None
        None unless telephone or half-duplex gossip without routers, ``n >= 2``.

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> telephone_gossip_odd_bound(parse_instance("complete:7", "telephone", "gossip")).value
    4

    References
    ----------
    Beier and Sibeyn, section 2 (citing their [13]): ``R >= ceil(log n) + odd(n)``.
    """
    if not _telephone_lower_gossip(instance) or instance.n < 2:
        return None
    n = instance.n
    return Bound(
        "telephone-gossip",
        _LOWER,
        _ceil_log2(n) + n % 2,
        "Beier-Sibeyn sec. 2: telephone gossip needs ceil(log2 n) + odd(n) rounds",
    )


def receive_bound(instance: Instance) -> Bound | None:
    """A node receives at most ``p`` packets per round in the one-port and multicast models.

    A node that lacks ``k`` demanded packets needs ``ceil(k / p)`` rounds.

    Parameters
    ----------
    instance : Instance

    Returns
    -------
    Bound or None
        None with unbounded packets or in the all-port model.

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> receive_bound(parse_instance("ring:6", "telephone:p=2", "gossip")).value
    3

    References
    ----------
    Dimakopoulos 1999, section 2, bound (1): ``n - 1`` steps for full duplex.
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
        _LOWER,
        math.ceil(lacking / m.packet_cap),
        f"a node receives at most p={m.packet_cap} packets per round "
        "(Dimakopoulos 1999, bound (1))",
    )


def pendant_leaves_bound(instance: Instance) -> Bound | None:
    """The transmissions between one node and its degree-1 neighbours cannot overlap.

    Let ``v`` have the pendant neighbours (leaves) ``l_1 .. l_k``. A leaf talks to ``v``
    only. It must *send* at least once if it alone holds a packet that another node demands,
    and *receive* at least once if it demands a packet it does not hold. Under half-duplex
    ``v`` takes part in at most one transmission per round, as sender or receiver, so
    ``R >= sum over the leaves of (must send) + (must receive)``. Under telephone ``v`` is in
    at most one call per round, so ``R`` is at least the number of leaves that must send or
    receive; for gossip with ``k >= 2`` leaves, ``R >= 2k - 1``: let round ``T`` hold the last
    of the leaves' first calls, with leaf ``l``; the ``k`` first calls take ``k`` distinct
    rounds, so ``T >= k``; before round ``T`` the packet of ``l`` is known to ``l`` alone, so
    each of the ``k - 1`` other leaves needs a further call after round ``T``.

    On the star ``K_{1,n-1}`` under half-duplex gossip the centre receives ``n - 1`` times
    and sends ``n - 1`` times, never both in one round: ``2(n - 1)``, met by gathering
    ``n - 2`` leaves, sending everything to the last leaf, receiving it back and sending to
    the ``n - 2`` others. Under telephone ``2n - 3``, met by calling every leaf in turn and
    then every leaf but the last again. Both bounds hold with packet caps and limits on the
    calls per round (the arguments count transmissions only).

    Parameters
    ----------
    instance : Instance

    Returns
    -------
    Bound or None
        None outside telephone and half-duplex, or when no leaf must send or receive.

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> pendant_leaves_bound(parse_instance("star:8", "half-duplex", "gossip")).value
    14
    >>> pendant_leaves_bound(parse_instance("star:8", "telephone", "gossip")).value
    13
    >>> pendant_leaves_bound(parse_instance("star:8", "half-duplex", "broadcast:0")).value
    7

    References
    ----------
    The counting of Dimakopoulos 1999, section 2, eqs. (2)-(3) (every reception takes a
    step of a half-duplex port), applied to the edges of one node; the telephone case follows
    the "first call" argument of Beier-Sibeyn sec. 2 for the odd case.
    """
    kind = instance.model.kind
    if kind not in (ModelKind.TELEPHONE, ModelKind.HALF_DUPLEX):
        return None
    g = instance.graph
    holders = _holders(instance)
    wanted_by: dict[int, set[int]] = {}
    for u, mask in enumerate(instance.demands):
        for p in bits(mask & ~instance.holdings[u]):
            wanted_by.setdefault(p, set()).add(u)
    best = 0
    for v in g.nodes:
        count = leaves = 0
        for leaf in g.adj[v]:
            if g.degree(leaf) != 1:
                continue
            sends = any(
                holders[p] == [leaf] and wanted_by.get(p, set()) - {leaf}
                for p in bits(instance.holdings[leaf])
            )
            receives = bool(instance.demands[leaf] & ~instance.holdings[leaf])
            if kind is ModelKind.HALF_DUPLEX:
                count += sends + receives
            else:
                count += sends or receives
            leaves += 1
        if kind is ModelKind.TELEPHONE and _is_gossip(instance) and leaves >= 2:
            count = max(count, 2 * leaves - 1)
        best = max(best, count)
    if best == 0:
        return None
    what = (
        "a node sends or receives once per round, and each leaf that must send or receive "
        "uses its only edge"
        if kind is ModelKind.HALF_DUPLEX
        else "a node makes one call per round, and each leaf talks to its neighbour only "
        "(gossip: 2k-1 for k leaves, the last leaf's packet needs k-1 more calls)"
    )
    return Bound("pendant-leaves", _LOWER, best, f"{kind.value}: {what}")


# --------------------------------------------------------------------------------------------
# Dimakopoulos 1999: single-port full and half duplex, p = 1
# --------------------------------------------------------------------------------------------


def dimakopoulos_receive_bound(instance: Instance) -> Bound | None:
    """Bound (1): single-port gossip with one packet per step takes ``n - 1`` steps.

    Every node receives the ``n - 1`` other packets one by one (full or half duplex).

    Parameters
    ----------
    instance : Instance

    Returns
    -------
    Bound or None
        None unless single-port or half-duplex with ``p = 1``, gossip, no routers.

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> dimakopoulos_receive_bound(parse_instance("ring:7", "single-port:p=1", "gossip")).value
    6
    >>> print(dimakopoulos_receive_bound(parse_instance("ring:7", "telephone", "gossip")))
    None

    References
    ----------
    Dimakopoulos 1999, section 2, eq. (1): ``T_HD, T_FD >= n - 1``.
    """
    m = instance.model
    kinds = {ModelKind.SINGLE_PORT, ModelKind.HALF_DUPLEX}
    if m.kind not in kinds or m.packet_cap != 1 or not _is_gossip(instance):
        return None
    return Bound(
        "dimakopoulos-1",
        _LOWER,
        instance.n - 1,
        f"{_DIM}, eq. (1): every node receives the n-1 other packets one per step",
    )


def dimakopoulos_half_duplex_bound(instance: Instance) -> Bound | None:
    """Bounds (2) and (3): half-duplex gossip with ``p = 1`` takes ``2(n - 1)`` steps for
    even ``n`` and ``2n`` for odd ``n``.

    Gossip needs ``n(n - 1)`` receptions; a step has at most ``floor(n/2)`` of them (each
    reception pairs a receiving node with a distinct sending node), so
    ``T >= n(n - 1) / floor(n/2)``, which is ``2(n - 1)`` for even and ``2n`` for odd ``n``.

    Parameters
    ----------
    instance : Instance

    Returns
    -------
    Bound or None
        None unless half-duplex with ``p = 1``, gossip, no routers, ``n >= 2``.

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> [dimakopoulos_half_duplex_bound(parse_instance(f"ring:{n}", "half-duplex:p=1",
    ...     "gossip")).value for n in (4, 5)]
    [6, 10]

    References
    ----------
    Dimakopoulos 1999, section 2, eqs. (2) and (3).
    """
    m = instance.model
    if m.kind is not ModelKind.HALF_DUPLEX or m.packet_cap != 1 or not _is_gossip(instance):
        return None
    n = instance.n
    if n < 2:
        return None
    value = 2 * (n - 1) if n % 2 == 0 else 2 * n
    return Bound(
        "dimakopoulos-2-3",
        _LOWER,
        value,
        f"{_DIM}, eqs. (2)-(3): n(n-1) receptions, at most floor(n/2) per half-duplex step",
    )


def _dimakopoulos_value(n: int, kind: ModelKind) -> int:
    """The optimum of section 3 on a Hamiltonian graph (or K1, K2) with ``n`` nodes."""
    if n <= 1:
        return 0
    if kind is ModelKind.SINGLE_PORT:
        return n - 1
    return 2 * (n - 1) if n % 2 == 0 else 2 * n


def _dimakopoulos_upper_applies(instance: Instance) -> bool:
    kinds = {ModelKind.SINGLE_PORT, ModelKind.HALF_DUPLEX}
    return _gossip_upper_applies(instance, kinds, unbounded=False)


def dimakopoulos_hamiltonian_upper_bound(instance: Instance) -> Bound | None:
    """Section 3: on a graph with a Hamiltonian cycle, gossip is done within the bounds
    (1)-(3) by running the ring algorithms on the cycle.

    Single-port: ``n - 1`` steps (every packet rotates one way). Half-duplex: ``2(n - 1)``
    for even ``n``, ``2n`` for odd ``n`` (Theorem 1). The schedules send one packet per
    transmission, so they are valid for every packet cap.

    Parameters
    ----------
    instance : Instance

    Returns
    -------
    Bound or None
        None unless single-port or half-duplex gossip (any problem with unbounded packets),
        no limit on calls per round, no routers, and a Hamiltonian cycle was found (graphs
        with 1 or 2 nodes count as rings).

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> dimakopoulos_hamiltonian_upper_bound(
    ...     parse_instance("hypercube:3", "half-duplex:p=1", "gossip")).value
    14
    >>> print(dimakopoulos_hamiltonian_upper_bound(
    ...     parse_instance("petersen", "single-port:p=1", "gossip")))
    None

    References
    ----------
    Dimakopoulos 1999, sections 3.1, 3.2 and Theorem 1.
    """
    if not _dimakopoulos_upper_applies(instance):
        return None
    n = instance.n
    if n >= 3 and not _hamiltonian(instance):
        return None
    return Bound(
        "dimakopoulos-hamiltonian-upper",
        _UPPER,
        _dimakopoulos_value(n, instance.model.kind),
        f"{_DIM}, sec. 3: the ring algorithm on a Hamiltonian cycle meets bounds (1)-(3)",
    )


def _dimakopoulos_factor(spec: str, kind: ModelKind) -> tuple[int, int] | None:
    """``(n_i, T_i)`` for one factor of a product: its section-3 value if it is K1, K2 or
    Hamiltonian."""
    try:
        g = graphs.from_spec(spec)
    except GossipcertError:
        return None
    n = g.number_of_nodes()
    if graphs.routers(g) or not nx.is_connected(g):
        return None
    if n >= 3 and _hamiltonian_cycle_of(g, spec) is None:
        return None
    return n, _dimakopoulos_value(n, kind)


def _expand_factors(spec: str) -> list[str]:
    """The factor specs of a product; tori, meshes and hypercubes split into their rings,
    paths and K2s (Dimakopoulos sec. 4)."""
    out: list[str] = []
    for part in spec.split("*"):
        name, _, args = part.strip().partition(":")
        name = name.strip().lower()
        if name in ("mesh", "torus") and "x" in args.lower():
            a, b = args.lower().split("x")
            kind = "ring" if name == "torus" else "path"
            out.extend([f"{kind}:{a.strip()}", f"{kind}:{b.strip()}"])
        elif name == "hypercube" and args.strip().isdigit():
            out.extend(["path:2"] * int(args))
        else:
            out.append(part.strip())
    return out


def _fold_product(factors: list[tuple[int, int]]) -> int:
    """Theorem 2 applied repeatedly: ``T(A x B) = T_B + n_B T_A`` (either order)."""
    best: int | None = None
    for order in (factors, factors[::-1]):
        n_acc, t_acc = order[0]
        for n_f, t_f in order[1:]:
            t_acc = min(t_f + n_f * t_acc, t_acc + n_acc * t_f)
            n_acc *= n_f
        best = t_acc if best is None else min(best, t_acc)
    assert best is not None
    return best


def dimakopoulos_product_upper_bound(instance: Instance) -> Bound | None:
    """Theorems 2-5: gossip on ``G = A x B`` in ``T_B + n_B T_A`` steps (gossip in every copy
    of ``B``, then ``n_B`` gossips in the copies of ``A``), applied factor by factor.

    Factor times are those of section 3 (Hamiltonian factors, K1, K2). Under single-port this
    gives ``n - 1`` (Theorem 3); under half-duplex ``2(n - 1)`` when all factors are even
    (Theorem 4) and ``2n`` with one odd factor (Theorem 5).

    Parameters
    ----------
    instance : Instance

    Returns
    -------
    Bound or None
        None unless the graph is a verified product spec (``*``, or a mesh, torus or
        hypercube) of at least two factors with more than one node, each with a known time,
        in the setting of :func:`dimakopoulos_hamiltonian_upper_bound`.

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> dimakopoulos_product_upper_bound(
    ...     parse_instance("ring:4*ring:3", "half-duplex:p=1", "gossip")).value
    24
    >>> dimakopoulos_product_upper_bound(
    ...     parse_instance("torus:3x5", "single-port:p=1", "gossip")).value
    14

    References
    ----------
    Dimakopoulos 1999, section 4, Theorems 2-5.
    """
    if not _dimakopoulos_upper_applies(instance):
        return None
    spec = _verified_spec(instance)
    if spec is None:
        return None
    factor_specs = _expand_factors(spec)
    kind = instance.model.kind
    factors: list[tuple[int, int]] = []
    for fs in factor_specs:
        value = _dimakopoulos_factor(fs, kind)
        if value is None:
            return None
        if value[0] > 1:
            factors.append(value)
    if len(factors) < 2:
        return None
    # factors that meet the even-n formula first: T(A x B) grows with n_B T_A
    factors.sort(key=lambda f: (f[1] - (f[0] - 1) * (1 if kind is ModelKind.SINGLE_PORT else 2), f))
    return Bound(
        "dimakopoulos-product-upper",
        _UPPER,
        _fold_product(factors),
        f"{_DIM}, Theorems 2-5: gossip along B, then n_B gossips along A: T = T_B + n_B T_A",
    )


# --------------------------------------------------------------------------------------------
# Beier-Sibeyn: telephone model, unbounded packets (unit cost), linear cost
# --------------------------------------------------------------------------------------------


def beier_sibeyn_linear_cost_bound(instance: Instance) -> Bound | None:
    """Bound (1), on the linear cost: ``T >= ceil(log n) + odd(n) + tau*h*(n - 1)``.

    Kind ``"lower-cost"``: ``value`` is the rounds part ``ceil(log2 n) + odd(n)`` and
    ``cost`` the bound on ``T = R + tau*h*S``. Every node receives ``n - 1`` packets from one
    partner per round, at most ``max_u s_{u,t}`` in round ``t``, so ``S >= n - 1``.

    Parameters
    ----------
    instance : Instance

    Returns
    -------
    Bound or None
        None unless telephone or half-duplex gossip (no routers, ``n >= 2``) with ``tau`` set.

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> b = beier_sibeyn_linear_cost_bound(parse_instance("ring:5", "telephone:tau=0.5",
    ...     "gossip"))
    >>> b.kind, b.value, b.cost
    ('lower-cost', 4, 6.0)

    References
    ----------
    Beier and Sibeyn, section 2, bound (1).
    """
    m = instance.model
    if m.tau is None or not _telephone_lower_gossip(instance) or instance.n < 2:
        return None
    n = instance.n
    rounds = _ceil_log2(n) + n % 2
    return Bound(
        "beier-sibeyn-linear-cost",
        _LOWER_COST,
        rounds,
        f"{_BS} sec. 2, (1): R >= ceil(log n) + odd(n), and S >= n - 1 since every node "
        "receives n - 1 packets from one partner per round",
        cost=rounds + m.tau * m.h * (n - 1),
    )


def beier_sibeyn_path_bound(instance: Instance) -> Bound | None:
    """Lemma 1 (rounds): telephone gossip on a path ``P_n`` takes ``n - 1`` rounds for even
    ``n`` and ``n`` for odd ``n >= 3``.

    The lemma states equality. The lower bound for odd ``n``: in ``n - 1`` rounds the packets
    of both ends must move every round, so edge ``i`` (between nodes ``i`` and ``i + 1``) is
    used in round ``i + 1`` and in round ``n - 1 - i``; in round ``t = (n + 1)/2`` this asks
    for edges ``t - 1`` and ``t - 2`` at once, which share node ``t - 1``. For even ``n`` the
    value is the diameter.

    Parameters
    ----------
    instance : Instance

    Returns
    -------
    Bound or None
        None unless telephone or half-duplex gossip on a graph that is a path.

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> [beier_sibeyn_path_bound(parse_instance(f"path:{n}", "telephone", "gossip")).value
    ...  for n in (4, 5)]
    [3, 5]

    References
    ----------
    Beier and Sibeyn, section 3, Lemma 1 (paths).
    """
    if not _telephone_lower_gossip(instance) or _structure(instance) != "path":
        return None
    n = instance.n
    value = n - 1 if n % 2 == 0 or n == 1 else n
    return Bound(
        "beier-sibeyn-path",
        _LOWER,
        value,
        f"{_BS} Lemma 1: gossip on P_n takes n-1 rounds (n even), n (n odd): "
        "the end packets cannot both move every round",
    )


def beier_sibeyn_cycle_bound(instance: Instance) -> Bound | None:
    """Lemma 1 (rounds): telephone gossip on the cycle ``C_n`` takes ``n/2`` rounds for even
    ``n`` and ``floor(n/2) + 2`` for odd ``n``.

    The lemma gives schedules of these lengths. Lower bound for odd ``n = 2k + 1``: some node
    ``w`` is idle in round 1 (an odd cycle has no perfect matching); in ``k + 1`` rounds its
    packet would have to reach both nodes at distance ``k`` by moving every round from round 2
    on, clockwise and counterclockwise, but ``w`` calls only one neighbour in round 2. For
    even ``n`` the value is the diameter.

    Parameters
    ----------
    instance : Instance

    Returns
    -------
    Bound or None
        None unless telephone or half-duplex gossip on a graph that is a cycle.

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> [beier_sibeyn_cycle_bound(parse_instance(f"ring:{n}", "telephone", "gossip")).value
    ...  for n in (8, 9)]
    [4, 6]

    References
    ----------
    Beier and Sibeyn, section 3, Lemma 1, (2) and (3).
    """
    if not _telephone_lower_gossip(instance) or _structure(instance) != "cycle":
        return None
    n = instance.n
    value = n // 2 if n % 2 == 0 else n // 2 + 2
    return Bound(
        "beier-sibeyn-cycle",
        _LOWER,
        value,
        f"{_BS} Lemma 1: gossip on C_n takes n/2 (even) or floor(n/2)+2 (odd) rounds: "
        "a node idle in round 1 cannot send both ways in round 2",
    )


def _two_grid_factors(instance: Instance) -> tuple[_Factor, _Factor] | None:
    factors = _grid_factors(instance)
    if factors is None or len(factors) != 2:
        return None
    return factors[0], factors[1]


def beier_sibeyn_mesh_bound(instance: Instance) -> Bound | None:
    """Section 2: ``LW = a + b - 2`` for gossip on the ``a x b`` mesh (its diameter).

    Parameters
    ----------
    instance : Instance

    Returns
    -------
    Bound or None
        None unless telephone or half-duplex gossip on a verified two-dimensional product of
        paths (``mesh:AxB``, ``path:A*path:B``), both sides at least 2.

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> beier_sibeyn_mesh_bound(parse_instance("mesh:3x4", "telephone", "gossip")).value
    5

    References
    ----------
    Beier and Sibeyn, section 2 ("Mesh_{a x b}: ... LW = a + b - 2").
    """
    pair = _two_grid_factors(instance)
    if not _telephone_lower_gossip(instance) or pair is None:
        return None
    (a, wa), (b, wb) = pair
    if (wa and a > 2) or (wb and b > 2):
        return None  # a cycle factor: a torus, whose diameter is smaller
    return Bound(
        "beier-sibeyn-mesh",
        _LOWER,
        a + b - 2,
        f"{_BS} sec. 2: LW = a + b - 2 on the a x b mesh (the diameter)",
    )


def beier_sibeyn_torus_bound(instance: Instance) -> Bound | None:
    """Section 2: ``LW = (a + b)/2`` for gossip on the ``a x b`` torus, read as the diameter
    ``floor(a/2) + floor(b/2)``.

    The OCR'd statement ``(a + b)/2`` exceeds the diameter when a side is odd, and no
    argument for that is given; the conservative reading (equal to ``(a + b)/2`` for even
    sides) is used.

    Parameters
    ----------
    instance : Instance

    Returns
    -------
    Bound or None
        None unless telephone or half-duplex gossip on a verified product of two rings
        (``torus:AxB``, ``ring:A*ring:B``; a 2-node factor counts as a ring).

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> beier_sibeyn_torus_bound(parse_instance("torus:4x6", "telephone", "gossip")).value
    5

    References
    ----------
    Beier and Sibeyn, section 2 ("Torus_{a x b}: ... LW = (a + b)/2").
    """
    pair = _two_grid_factors(instance)
    if not _telephone_lower_gossip(instance) or pair is None:
        return None
    (a, wa), (b, wb) = pair
    if not (wa and wb):
        return None
    return Bound(
        "beier-sibeyn-torus",
        _LOWER,
        a // 2 + b // 2,
        f"{_BS} sec. 2: LW = (a + b)/2 on the a x b torus, read as the diameter "
        "floor(a/2) + floor(b/2)",
    )


def beier_sibeyn_hypercube_bound(instance: Instance) -> Bound | None:
    """Section 2: ``LW = k`` for gossip on the ``k``-dimensional hypercube (``2^k`` nodes).

    Parameters
    ----------
    instance : Instance

    Returns
    -------
    Bound or None
        None unless telephone or half-duplex gossip on a verified ``hypercube:K``.

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> beier_sibeyn_hypercube_bound(parse_instance("hypercube:4", "telephone",
    ...     "gossip")).value
    4

    References
    ----------
    Beier and Sibeyn, section 2 ("Hypercube_k: ... LW = k, UP = k").
    """
    k = _family_k(instance, "hypercube")
    if k is None or not _telephone_lower_gossip(instance):
        return None
    return Bound(
        "beier-sibeyn-hypercube",
        _LOWER,
        k,
        f"{_BS} sec. 2: LW = k on Hypercube_k (knowledge at most doubles per round)",
    )


def _knodel_params(instance: Instance) -> tuple[int, int] | None:
    fam = _family(instance)
    if fam is None or fam[0] != "knodel":
        return None
    try:
        values = [int(x) for x in fam[1].split(",")]
    except ValueError:
        return None
    n = values[0]
    delta = values[1] if len(values) > 1 else n.bit_length() - 1
    return n, delta


def beier_sibeyn_knodel_bound(instance: Instance) -> Bound | None:
    """Section 2: ``LW = ceil(log n)`` for gossip on the Knödel graph ``W_{Delta, n}``.

    Parameters
    ----------
    instance : Instance

    Returns
    -------
    Bound or None
        None unless telephone or half-duplex gossip on a verified ``knodel:N[,D]``.

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> beier_sibeyn_knodel_bound(parse_instance("knodel:12", "telephone", "gossip")).value
    4

    References
    ----------
    Beier and Sibeyn, section 2 ("Knödel_{Delta,k}: ... LW = ceil(log k)").
    """
    params = _knodel_params(instance)
    if params is None or not _telephone_lower_gossip(instance):
        return None
    return Bound(
        "beier-sibeyn-knodel",
        _LOWER,
        _ceil_log2(params[0]),
        f"{_BS} sec. 2: LW = ceil(log n) on Knodel graphs (knowledge at most doubles)",
    )


def beier_sibeyn_ccc_bound(instance: Instance) -> Bound | None:
    """Section 2: ``LW = ceil(5k/2) - 2`` for gossip on ``CCC_k``, ``k >= 5``.

    The value is the broadcast time of ``CCC_k`` from the literature the paper cites; for
    odd ``k`` it is one more than the diameter. It agrees with the LB column of the paper's
    Table 5 for ``k = 5..12``.

    Parameters
    ----------
    instance : Instance

    Returns
    -------
    Bound or None
        None unless telephone or half-duplex gossip on a verified ``ccc:K`` with ``K >= 5``.

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> beier_sibeyn_ccc_bound(parse_instance("ccc:5", "telephone", "gossip")).value
    11

    References
    ----------
    Beier and Sibeyn, section 2 ("CCC_k: ... LW = ceil(5k/2) - 2, for k >= 5") and Table 5.
    """
    k = _family_k(instance, "ccc")
    if k is None or k < 5 or not _telephone_lower_gossip(instance):
        return None
    return Bound(
        "beier-sibeyn-ccc",
        _LOWER,
        (5 * k + 1) // 2 - 2,
        f"{_BS} sec. 2: LW = ceil(5k/2) - 2 on CCC_k for k >= 5 (its broadcast time)",
    )


def beier_sibeyn_se_bound(instance: Instance) -> Bound | None:
    """Section 2: ``LW = 2k - 1`` for gossip on the shuffle-exchange graph ``SE_k`` (its
    diameter).

    Parameters
    ----------
    instance : Instance

    Returns
    -------
    Bound or None
        None unless telephone or half-duplex gossip on a verified ``shuffle-exchange:K``.

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> beier_sibeyn_se_bound(parse_instance("shuffle-exchange:4", "telephone",
    ...     "gossip")).value
    7

    References
    ----------
    Beier and Sibeyn, section 2 ("SE_k: ... LW = 2k - 1, UP = 4k - 3") and Table 5.
    """
    k = _family_k(instance, "shuffle-exchange")
    if k is None or not _telephone_lower_gossip(instance):
        return None
    return Bound(
        "beier-sibeyn-se",
        _LOWER,
        2 * k - 1,
        f"{_BS} sec. 2: LW = 2k - 1 on SE_k (the diameter)",
    )


def beier_sibeyn_path_upper_bound(instance: Instance) -> Bound | None:
    """Lemma 1 (rounds): telephone gossip on ``P_n`` in ``n - 1`` rounds (``n`` even) and
    ``n`` rounds (``n`` odd), alternating the matchings ``(2i, 2i+1)`` and ``(2i+1, 2i+2)``.

    Parameters
    ----------
    instance : Instance

    Returns
    -------
    Bound or None
        None unless the telephone model with unbounded packets and no limit on calls per
        round, no routers, and the graph is a path.

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> beier_sibeyn_path_upper_bound(parse_instance("path:7", "telephone", "gossip")).value
    7

    References
    ----------
    Beier and Sibeyn, section 3, Lemma 1.
    """
    if not _telephone_upper(instance) or _structure(instance) != "path":
        return None
    n = instance.n
    value = n - 1 if n % 2 == 0 or n == 1 else n
    return Bound(
        "beier-sibeyn-path-upper",
        _UPPER,
        value,
        f"{_BS} Lemma 1: alternating matchings gossip on P_n in n-1 (even) or n (odd) rounds",
    )


def beier_sibeyn_cycle_upper_bound(instance: Instance) -> Bound | None:
    """Lemma 1 (rounds): telephone gossip on the cycle ``C_n`` in ``n/2`` rounds (``n``
    even) and ``floor(n/2) + 2`` rounds (``n`` odd).

    Parameters
    ----------
    instance : Instance

    Returns
    -------
    Bound or None
        None unless the telephone model with unbounded packets and no limit on calls per
        round, no routers, and the graph is a cycle.

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> [beier_sibeyn_cycle_upper_bound(parse_instance(f"ring:{n}", "telephone",
    ...     "gossip")).value for n in (8, 9)]
    [4, 6]

    References
    ----------
    Beier and Sibeyn, section 3, Lemma 1, (2) and (3).
    """
    if not _telephone_upper(instance) or _structure(instance) != "cycle":
        return None
    n = instance.n
    value = n // 2 if n % 2 == 0 else n // 2 + 2
    return Bound(
        "beier-sibeyn-cycle-upper",
        _UPPER,
        value,
        f"{_BS} Lemma 1: gossip on C_n in n/2 (even) or floor(n/2)+2 (odd) rounds",
    )


def beier_sibeyn_mesh_upper_bound(instance: Instance) -> Bound | None:
    """Lemma 2 (rounds), meshes: gossip in the rows, then in the columns (pairs of lines
    form cycles of even length): ``a + b - 1`` if ``a`` or ``b`` is even, ``a + b`` if both
    are odd.

    A product of a path and a cycle contains the mesh as a spanning subgraph, so the bound
    holds for it too.

    Parameters
    ----------
    instance : Instance

    Returns
    -------
    Bound or None
        None unless the telephone model with unbounded packets and no limit on calls per
        round, and a verified product of two paths or cycles, each with at least 2 nodes.

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> [beier_sibeyn_mesh_upper_bound(parse_instance(f"mesh:{s}", "telephone",
    ...     "gossip")).value for s in ("4x6", "4x5", "3x5")]
    [9, 8, 8]

    References
    ----------
    Beier and Sibeyn, section 3, Lemma 2, (4)-(5) and the case ``a, b`` odd.
    """
    pair = _two_grid_factors(instance)
    if not _telephone_upper(instance) or pair is None:
        return None
    (a, _), (b, _) = pair
    value = a + b if a % 2 == 1 and b % 2 == 1 else a + b - 1
    return Bound(
        "beier-sibeyn-mesh-upper",
        _UPPER,
        value,
        f"{_BS} Lemma 2: rows then columns: a + b - 1 (a or b even), a + b (both odd)",
    )


def beier_sibeyn_mesh_lemma3_upper_bound(instance: Instance) -> Bound | None:
    """Lemma 3 (rounds): on the ``a x b`` mesh with ``a, b`` odd, ``a + (3b + 3)/2`` rounds
    (gossip in the rows, then in strips of two columns and one of three).

    Never better in rounds than :func:`beier_sibeyn_mesh_upper_bound`; it trades rounds for
    steps in the linear-cost model. Both orientations are valid; the smaller is reported.

    Parameters
    ----------
    instance : Instance

    Returns
    -------
    Bound or None
        None unless the telephone model with unbounded packets and no limit on calls per
        round, and a verified product of two paths or cycles of odd lengths ``>= 3``.

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> beier_sibeyn_mesh_lemma3_upper_bound(parse_instance("mesh:3x7", "telephone",
    ...     "gossip")).value
    13

    References
    ----------
    Beier and Sibeyn, section 3, Lemma 3.
    """
    pair = _two_grid_factors(instance)
    if not _telephone_upper(instance) or pair is None:
        return None
    (a, _), (b, _) = pair
    if a % 2 == 0 or b % 2 == 0 or a < 3 or b < 3:
        return None
    value = min(a + (3 * b + 3) // 2, b + (3 * a + 3) // 2)
    return Bound(
        "beier-sibeyn-mesh-lemma3-upper",
        _UPPER,
        value,
        f"{_BS} Lemma 3: odd a x b mesh in a + (3b+3)/2 rounds",
    )


def beier_sibeyn_mesh_lemma4_upper_bound(instance: Instance) -> Bound | None:
    """Lemma 4 (rounds): on the ``a x b`` mesh with ``a, b`` odd, for odd ``3 <= k < b``,
    ``a + b + ceil(k/2)`` rounds; ``k = 3`` gives the fewest, ``a + b + 2``.

    The rounds term is OCR-damaged; this reading follows the proof (``a`` rounds in the rows,
    ``(2b + k - 1)/2`` rounds in the strips and one more round). Any reading at least
    ``a + b`` is a true upper bound, since :func:`beier_sibeyn_mesh_upper_bound` gives
    ``a + b`` for odd meshes; the lemma trades rounds for steps.

    Parameters
    ----------
    instance : Instance

    Returns
    -------
    Bound or None
        None unless the telephone model with unbounded packets and no limit on calls per
        round, and a verified product of two paths or cycles of odd lengths, one ``>= 3``
        and the other ``>= 5``.

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> beier_sibeyn_mesh_lemma4_upper_bound(parse_instance("mesh:3x5", "telephone",
    ...     "gossip")).value
    10

    References
    ----------
    Beier and Sibeyn, section 3, Lemma 4.
    """
    pair = _two_grid_factors(instance)
    if not _telephone_upper(instance) or pair is None:
        return None
    (a, _), (b, _) = pair
    if a % 2 == 0 or b % 2 == 0 or min(a, b) < 3 or max(a, b) < 5:
        return None
    return Bound(
        "beier-sibeyn-mesh-lemma4-upper",
        _UPPER,
        a + b + 2,
        f"{_BS} Lemma 4 with k = 3: odd a x b mesh in a + b + ceil(k/2) rounds",
    )


def beier_sibeyn_torus_upper_bound(instance: Instance) -> Bound | None:
    """Lemma 2 (rounds), tori: gossip in the row cycles, then in the column cycles.

    ``a/2 + b/2`` for ``a, b`` even (6); ``ceil(a/2) + b/2 + 2`` for ``a`` odd, ``b`` even
    (7); ``ceil(a/2) + floor(b/2) + 4`` for ``a, b`` odd (8). The OCR leaves floor and
    ceiling of ``a/2`` unreadable in (7) and (8); the larger (conservative) reading is used.

    Parameters
    ----------
    instance : Instance

    Returns
    -------
    Bound or None
        None unless the telephone model with unbounded packets and no limit on calls per
        round, and a verified product of two cycles (a 2-node factor counts as a cycle).

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> [beier_sibeyn_torus_upper_bound(parse_instance(f"torus:{s}", "telephone",
    ...     "gossip")).value for s in ("4x6", "3x4", "3x5")]
    [5, 6, 8]

    References
    ----------
    Beier and Sibeyn, section 3, Lemma 2, (6)-(8).
    """
    pair = _two_grid_factors(instance)
    if not _telephone_upper(instance) or pair is None:
        return None
    (a, wa), (b, wb) = pair
    if not (wa and wb):
        return None
    if a % 2 == 0 and b % 2 == 0:
        value = a // 2 + b // 2
    elif a % 2 == 1 and b % 2 == 1:
        value = (a + 1) // 2 + b // 2 + 4
    else:
        odd, even = (a, b) if a % 2 == 1 else (b, a)
        value = (odd + 1) // 2 + even // 2 + 2
    return Bound(
        "beier-sibeyn-torus-upper",
        _UPPER,
        value,
        f"{_BS} Lemma 2, (6)-(8): row cycles then column cycles (Lemma 1 for each)",
    )


def beier_sibeyn_lemma5_upper_bound(instance: Instance) -> Bound | None:
    """Lemma 5 (rounds): gossip on ``d``-dimensional meshes and tori with all sides even.

    Meshes: ``sum(a_i) - d + 1`` (phase ``j`` on cycles of length ``2 a_j``, first round of
    each later phase omitted). Tori: ``sum(a_i / 2)``. Products mixing paths and cycles
    contain the mesh as a spanning subgraph and get the mesh value.

    Parameters
    ----------
    instance : Instance

    Returns
    -------
    Bound or None
        None unless the telephone model with unbounded packets and no limit on calls per
        round, and a verified product of ``d >= 2`` paths or cycles, all of even length
        (hypercubes are products of K2, which counts as a cycle).

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> beier_sibeyn_lemma5_upper_bound(parse_instance("ring:4*ring:4*ring:6",
    ...     "telephone", "gossip")).value
    7
    >>> beier_sibeyn_lemma5_upper_bound(parse_instance("path:4*path:2*path:6",
    ...     "telephone", "gossip")).value
    10

    References
    ----------
    Beier and Sibeyn, section 3, Lemma 5.
    """
    factors = _grid_factors(instance)
    if not _telephone_upper(instance) or factors is None or len(factors) < 2:
        return None
    if any(a % 2 for a, _ in factors):
        return None
    if all(w for _, w in factors):
        value = sum(a // 2 for a, _ in factors)
    else:
        value = sum(a for a, _ in factors) - len(factors) + 1
    return Bound(
        "beier-sibeyn-lemma5-upper",
        _UPPER,
        value,
        f"{_BS} Lemma 5: d-dimensional even meshes sum(a_i) - d + 1, tori sum(a_i/2)",
    )


def beier_sibeyn_hypercube_upper_bound(instance: Instance) -> Bound | None:
    """Section 2: ``UP = k`` for gossip on ``Hypercube_k`` (exchange along dimension
    ``0, 1, ..., k-1``).

    Parameters
    ----------
    instance : Instance

    Returns
    -------
    Bound or None
        None unless the telephone model with unbounded packets and no limit on calls per
        round on a verified ``hypercube:K``.

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> beier_sibeyn_hypercube_upper_bound(parse_instance("hypercube:5", "telephone",
    ...     "gossip")).value
    5

    References
    ----------
    Beier and Sibeyn, section 2 ("Hypercube_k: ... UP = k").
    """
    k = _family_k(instance, "hypercube")
    if k is None or not _telephone_upper(instance):
        return None
    return Bound(
        "beier-sibeyn-hypercube-upper",
        _UPPER,
        k,
        f"{_BS} sec. 2: UP = k on Hypercube_k (one dimension per round)",
    )


def beier_sibeyn_knodel_upper_bound(instance: Instance) -> Bound | None:
    """Section 2: ``UP = ceil(log n)`` for gossip on the Knödel graph of degree
    ``Delta = floor(log2 n)`` (one dimension per round).

    The OCR does not show whether the degree is ``floor`` or ``ceil(log n)``; graphs of
    this package have ``Delta <= floor(log2 n)``, so the bound is given for the largest one,
    the family's default.

    Parameters
    ----------
    instance : Instance

    Returns
    -------
    Bound or None
        None unless the telephone model with unbounded packets and no limit on calls per
        round on a verified ``knodel:N`` with degree ``floor(log2 N)``.

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> beier_sibeyn_knodel_upper_bound(parse_instance("knodel:12", "telephone",
    ...     "gossip")).value
    4

    References
    ----------
    Beier and Sibeyn, section 2 ("Knödel_{Delta,k}: ... UP = ceil(log k), for
    Delta = log k"); W. Knödel, Discrete Math. 13 (1975) 95.
    """
    params = _knodel_params(instance)
    if params is None or not _telephone_upper(instance):
        return None
    n, delta = params
    if delta != n.bit_length() - 1:
        return None
    return Bound(
        "beier-sibeyn-knodel-upper",
        _UPPER,
        _ceil_log2(n),
        f"{_BS} sec. 2: UP = ceil(log n) on the Knodel graph of degree floor(log n)",
    )


def _family_upper(
    instance: Instance,
    family: str,
    minimum: int,
    name: str,
    formula: Callable[[int], int],
    text: str,
) -> Bound | None:
    k = _family_k(instance, family)
    if k is None or k < minimum or not _telephone_upper(instance):
        return None
    return Bound(name, _UPPER, formula(k), f"{_BS} sec. 2 and Table 5: {text} (from their [12])")


def beier_sibeyn_ccc_upper_bound(instance: Instance) -> Bound | None:
    """Section 2: ``UP = 5 ceil(k/2)`` for gossip on ``CCC_k`` (Table 5: 10, 10, 15, ...).

    Parameters
    ----------
    instance : Instance

    Returns
    -------
    Bound or None
        None unless the telephone model with unbounded packets and no limit on calls per
        round on a verified ``ccc:K``.

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> beier_sibeyn_ccc_upper_bound(parse_instance("ccc:3", "telephone", "gossip")).value
    10

    References
    ----------
    Beier and Sibeyn, section 2 and Table 5 (former upper bound of their [12]).
    """
    return _family_upper(
        instance, "ccc", 3, "beier-sibeyn-ccc-upper", lambda k: 5 * ((k + 1) // 2), "5 ceil(k/2)"
    )


def beier_sibeyn_se_upper_bound(instance: Instance) -> Bound | None:
    """Section 2: ``UP = 4k - 3`` for gossip on ``SE_k``, ``k >= 3`` (Table 5: 9, 13, 17).

    Parameters
    ----------
    instance : Instance

    Returns
    -------
    Bound or None
        None unless the telephone model with unbounded packets and no limit on calls per
        round on a verified ``shuffle-exchange:K``, ``K >= 3``.

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> beier_sibeyn_se_upper_bound(parse_instance("shuffle-exchange:3", "telephone",
    ...     "gossip")).value
    9

    References
    ----------
    Beier and Sibeyn, section 2, section 7 and Table 5.
    """
    return _family_upper(
        instance, "shuffle-exchange", 3, "beier-sibeyn-se-upper", lambda k: 4 * k - 3, "4k - 3"
    )


def beier_sibeyn_butterfly_upper_bound(instance: Instance) -> Bound | None:
    """Section 2: ``UP = 5 ceil(k/2)`` for gossip on the wrapped butterfly ``Butterfly_k``
    (Table 1: 25 for ``k = 10``).

    The section-2 lower bound ``1.741 k`` holds only for ``k >> 1`` and is not used.

    Parameters
    ----------
    instance : Instance

    Returns
    -------
    Bound or None
        None unless the telephone model with unbounded packets and no limit on calls per
        round on a verified ``butterfly:K``.

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> beier_sibeyn_butterfly_upper_bound(parse_instance("butterfly:3", "telephone",
    ...     "gossip")).value
    10

    References
    ----------
    Beier and Sibeyn, section 2, section 7, Tables 1 and 5.
    """
    return _family_upper(
        instance,
        "butterfly",
        3,
        "beier-sibeyn-butterfly-upper",
        lambda k: 5 * ((k + 1) // 2),
        "5 ceil(k/2)",
    )


def beier_sibeyn_debruijn_upper_bound(instance: Instance) -> Bound | None:
    """Section 2: ``UP = 3k + 2`` for gossip on ``DeBruijn_k``, ``k >= 3`` (Table 1: 41 for
    ``k = 13``).

    The section-2 lower bound ``1.317 k`` holds only for ``k >> 1`` and is not used.

    Parameters
    ----------
    instance : Instance

    Returns
    -------
    Bound or None
        None unless the telephone model with unbounded packets and no limit on calls per
        round on a verified ``debruijn:K``, ``K >= 3``.

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> beier_sibeyn_debruijn_upper_bound(parse_instance("debruijn:4", "telephone",
    ...     "gossip")).value
    14

    References
    ----------
    Beier and Sibeyn, section 2, section 7, Tables 1 and 5.
    """
    return _family_upper(
        instance, "debruijn", 3, "beier-sibeyn-debruijn-upper", lambda k: 3 * k + 2, "3k + 2"
    )


def _star_pancake_value(k: int) -> int:
    return k + sum(_ceil_log2(i) for i in range(3, k))


def beier_sibeyn_star_pancake_upper_bound(instance: Instance) -> Bound | None:
    """Section 2: ``UP = k + sum_{i=3}^{k-1} ceil(log i)`` for gossip on ``Star_k`` and
    ``Pancake_k``, ``k >= 3``.

    The summation limits are OCR-damaged; this reading reproduces the values the paper
    quotes for the construction of its [3] (3, 6, 9, 13, 17, 21 for ``k = 3..8``, section 7)
    and ``UP = 17`` for ``Pancake_7`` in Table 1.

    Parameters
    ----------
    instance : Instance

    Returns
    -------
    Bound or None
        None unless the telephone model with unbounded packets and no limit on calls per
        round on a verified ``star-graph:K`` or ``pancake:K``, ``K >= 3``.

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> beier_sibeyn_star_pancake_upper_bound(parse_instance("pancake:4", "telephone",
    ...     "gossip")).value
    6

    References
    ----------
    Beier and Sibeyn, section 2, section 7 and Table 1.
    """
    for family in ("star-graph", "pancake"):
        bound = _family_upper(
            instance,
            family,
            3,
            "beier-sibeyn-star-pancake-upper",
            _star_pancake_value,
            "k + sum_{i=3}^{k-1} ceil(log i)",
        )
        if bound is not None:
            return bound
    return None


# --------------------------------------------------------------------------------------------
# Gonzalez 2003: multicast, one packet per transmission
# --------------------------------------------------------------------------------------------


def _multicast_p1_gossip(instance: Instance) -> bool:
    m = instance.model
    return m.kind is ModelKind.MULTICAST and m.packet_cap == 1 and _is_gossip(instance)


def gonzalez_receive_bound(instance: Instance) -> Bound | None:
    """Section 1: every processor receives ``n - 1`` messages, at most one per time unit.

    Parameters
    ----------
    instance : Instance

    Returns
    -------
    Bound or None
        None unless multicast gossip with ``p = 1`` and no routers.

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> gonzalez_receive_bound(parse_instance("petersen", "multicast", "gossip")).value
    9

    References
    ----------
    Gonzalez 2003, section 1 ("n - 1 is a trivial lower bound").
    """
    if not _multicast_p1_gossip(instance):
        return None
    return Bound(
        "gonzalez-receive",
        _LOWER,
        instance.n - 1,
        f"{_GON}, sec. 1: each processor receives n-1 messages, one per time unit",
    )


def gonzalez_odd_path_bound(instance: Instance) -> Bound | None:
    """Section 1: multicast gossip on a path with ``n = 2m + 1`` nodes needs ``n + r - 1``
    rounds (``r = m`` the radius).

    The centre receives its ``n - 1`` messages one per round, the last one no earlier than
    round ``n - 1``; it came from one side and still has to reach the end of the other side,
    ``m`` rounds away.

    Parameters
    ----------
    instance : Instance

    Returns
    -------
    Bound or None
        None unless multicast gossip with ``p = 1`` on a path with an odd number ``n >= 3``
        of nodes.

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> gonzalez_odd_path_bound(parse_instance("path:7", "multicast", "gossip")).value
    9

    References
    ----------
    Gonzalez 2003, section 1 (straight line with ``2m + 1`` processors) and section 4.
    """
    if not _multicast_p1_gossip(instance) or _structure(instance) != "path":
        return None
    n = instance.n
    if n < 3 or n % 2 == 0:
        return None
    return Bound(
        "gonzalez-odd-path",
        _LOWER,
        n + (n - 1) // 2 - 1,
        f"{_GON}, sec. 1: the centre's last message arrives at n-1 and needs r more rounds",
    )


def _gonzalez_upper(instance: Instance) -> bool:
    return (
        _gossip_upper_applies(instance, {ModelKind.MULTICAST}, unbounded=False) and instance.n >= 3
    )


def gonzalez_n_plus_r_upper_bound(instance: Instance) -> Bound | None:
    """Theorem 1: procedure ConcurrentUpDown gossips in ``n + r`` rounds on any network with
    ``n`` processors and radius ``r`` (on a minimum-depth spanning tree).

    Parameters
    ----------
    instance : Instance

    Returns
    -------
    Bound or None
        None unless the multicast model (any packet cap) with no limit on transmissions per
        round, gossip (any problem with unbounded packets), no routers, ``n >= 3``.

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> gonzalez_n_plus_r_upper_bound(parse_instance("path:7", "multicast", "gossip")).value
    10

    References
    ----------
    Gonzalez 2003, section 3.2, Theorem 1.
    """
    if not _gonzalez_upper(instance):
        return None
    return Bound(
        "gonzalez-n-plus-r-upper",
        _UPPER,
        instance.n + _radius(instance),
        f"{_GON}, Theorem 1: ConcurrentUpDown takes n + r rounds",
    )


def gonzalez_simple_upper_bound(instance: Instance) -> Bound | None:
    """Lemma 1: procedure Simple (everything up to the root, then down) gossips in
    ``2n + r - 3`` rounds on a spanning tree of height ``r`` (the radius).

    Parameters
    ----------
    instance : Instance

    Returns
    -------
    Bound or None
        As for :func:`gonzalez_n_plus_r_upper_bound`.

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> gonzalez_simple_upper_bound(parse_instance("path:7", "multicast", "gossip")).value
    14

    References
    ----------
    Gonzalez 2003, section 3.2, Lemma 1.
    """
    if not _gonzalez_upper(instance):
        return None
    return Bound(
        "gonzalez-simple-upper",
        _UPPER,
        2 * instance.n + _radius(instance) - 3,
        f"{_GON}, Lemma 1: procedure Simple takes 2n + r - 3 rounds",
    )


def gonzalez_updown_upper_bound(instance: Instance) -> Bound | None:
    """Procedure UpDown (Gonzalez's [15]): phases of ``n - 1 + r`` and ``2(r - 1) + 1``
    steps, ``n + 3r - 2`` in total.

    Parameters
    ----------
    instance : Instance

    Returns
    -------
    Bound or None
        As for :func:`gonzalez_n_plus_r_upper_bound`.

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> gonzalez_updown_upper_bound(parse_instance("path:7", "multicast", "gossip")).value
    14

    References
    ----------
    Gonzalez 2003, section 3.2 (procedure UpDown).
    """
    if not _gonzalez_upper(instance):
        return None
    r = _radius(instance)
    return Bound(
        "gonzalez-updown-upper",
        _UPPER,
        instance.n - 1 + r + 2 * (r - 1) + 1,
        f"{_GON}, sec. 3.2: UpDown takes (n - 1 + r) + (2(r - 1) + 1) rounds",
    )


def gonzalez_hamiltonian_upper_bound(instance: Instance) -> Bound | None:
    """Section 1: with a Hamiltonian circuit, every processor forwards clockwise the message
    it just received: gossip in ``n - 1`` rounds.

    Parameters
    ----------
    instance : Instance

    Returns
    -------
    Bound or None
        None unless the multicast model with no limit on transmissions per round, gossip
        (any problem with unbounded packets), no routers, and a Hamiltonian cycle was found
        (graphs with 1 or 2 nodes count as rings).

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> gonzalez_hamiltonian_upper_bound(parse_instance("ring:6", "multicast",
    ...     "gossip")).value
    5

    References
    ----------
    Gonzalez 2003, section 1 (network N_1, Fig. 1).
    """
    if not _gossip_upper_applies(instance, {ModelKind.MULTICAST}, unbounded=False):
        return None
    n = instance.n
    if n >= 3 and not _hamiltonian(instance):
        return None
    return Bound(
        "gonzalez-hamiltonian-upper",
        _UPPER,
        max(n - 1, 0),
        f"{_GON}, sec. 1: messages rotate along a Hamiltonian circuit in n - 1 rounds",
    )


def gonzalez_broadcast_upper_bound(instance: Instance) -> Bound | None:
    """Section 2: broadcasting under multicast takes the eccentricity of the source (every
    node forwards to all uninformed neighbours, one sender per receiver).

    Parameters
    ----------
    instance : Instance

    Returns
    -------
    Bound or None
        None unless multicast broadcast, no limit on transmissions per round, no routers.

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> gonzalez_broadcast_upper_bound(parse_instance("mesh:3x4", "multicast",
    ...     "broadcast:0")).value
    5

    References
    ----------
    Gonzalez 2003, section 2 ("Broadcasting under our communication model is trivial").
    """
    m = instance.model
    if m.kind is not ModelKind.MULTICAST or m.calls_per_round is not None:
        return None
    if instance.problem.kind is not ProblemKind.BROADCAST or _has_routers(instance):
        return None
    (source,) = _holders(instance)[0]
    ecc = max(nx.single_source_shortest_path_length(instance.graph, source).values())
    return Bound(
        "gonzalez-broadcast-upper",
        _UPPER,
        ecc,
        f"{_GON}, sec. 2: multicast broadcast along shortest paths takes the eccentricity",
    )


# --------------------------------------------------------------------------------------------
# Dimakopoulos-Dimopoulos: all-port binary fat trees
# --------------------------------------------------------------------------------------------


def _fat_tree(instance: Instance) -> tuple[int, list[int]] | None:
    """``(n_leaves, [c_1, ..., c_L])`` with the effective capacities (the model's ``c=N``
    if set, else the tree's) for the all-port model on a verified ``fattree:`` spec."""
    if instance.model.kind is not ModelKind.ALL_PORT:
        return None
    fam = _family(instance)
    if fam is None or fam[0] != "fattree":
        return None
    g = _cache(instance)["rebuilt"]
    leaves = graphs.processors(g)
    n = len(leaves)
    levels = n.bit_length() - 1
    if n < 2 or n != 1 << levels:
        return None
    caps = [0] * levels
    for u, v, data in g.edges(data=True):
        level = max(g.nodes[u]["coords"][0], g.nodes[v]["coords"][0])
        caps[level - 1] = int(data.get("capacity", 1))
    if instance.model.capacity is not None:
        caps = [instance.model.capacity] * levels
    return n, caps


def _fat_tree_upper(instance: Instance, kind: ProblemKind) -> tuple[int, list[int]] | None:
    tree = _fat_tree(instance)
    if tree is None or instance.model.calls_per_round is not None:
        return None
    return tree if instance.problem.kind is kind else None


def dd_broadcast_bound(instance: Instance) -> Bound | None:
    """Table 1: broadcasting in a binary fat tree with ``n`` leaves takes ``2 log n`` steps
    (the distance between leaves in different halves).

    Parameters
    ----------
    instance : Instance

    Returns
    -------
    Bound or None
        None unless all-port broadcast on a verified ``fattree:N``.

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> dd_broadcast_bound(parse_instance("fattree:8", "all-port", "broadcast:0")).value
    6

    References
    ----------
    Dimakopoulos and Dimopoulos, section 2.1 and Table 1.
    """
    tree = _fat_tree(instance)
    if tree is None or instance.problem.kind is not ProblemKind.BROADCAST:
        return None
    return Bound(
        "dd-broadcast",
        _LOWER,
        2 * len(tree[1]),
        f"{_DD}, Table 1: broadcasting needs the diameter 2 log n",
    )


def dd_broadcast_upper_bound(instance: Instance) -> Bound | None:
    """Section 2.1: routers replicate the message in all directions: ``2 log n`` steps.

    Parameters
    ----------
    instance : Instance

    Returns
    -------
    Bound or None
        None unless all-port broadcast, no limit on transmissions per round, verified
        ``fattree:N``.

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> dd_broadcast_upper_bound(parse_instance("fattree:8:exp", "all-port",
    ...     "broadcast:3")).value
    6

    References
    ----------
    Dimakopoulos and Dimopoulos, section 2.1.
    """
    tree = _fat_tree_upper(instance, ProblemKind.BROADCAST)
    if tree is None:
        return None
    return Bound(
        "dd-broadcast-upper",
        _UPPER,
        2 * len(tree[1]),
        f"{_DD}, sec. 2.1: routers in broadcast mode take 2 log n steps",
    )


def _hole_argument_applies(n: int, caps: list[int]) -> bool:
    """The ``n + 1`` argument: one link of capacity 1 per leaf, ``n >= 4`` leaves."""
    return n >= 4 and caps[0] == 1


def dd_scatter_gather_bound(instance: Instance) -> Bound | None:
    """Table 1: scattering and gathering take ``n + 1`` steps.

    The root sends or receives ``n - 1`` messages over its single link (capacity 1); its
    sibling is 2 links away and all other leaves at least 4, so at most one message can
    arrive (gather) in the first three steps, and dually for scatter.

    Parameters
    ----------
    instance : Instance

    Returns
    -------
    Bound or None
        None unless all-port scatter or gather on a verified ``fattree`` with ``n >= 4``
        leaves whose links have (effective) capacity ``c_1 = 1``.

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> dd_scatter_gather_bound(parse_instance("fattree:8", "all-port", "gather:5")).value
    9

    References
    ----------
    Dimakopoulos and Dimopoulos, section 2.1 and Table 1.
    """
    tree = _fat_tree(instance)
    if tree is None or instance.problem.kind not in (ProblemKind.SCATTER, ProblemKind.GATHER):
        return None
    n, caps = tree
    if not _hole_argument_applies(n, caps):
        return None
    return Bound(
        "dd-scatter-gather",
        _LOWER,
        n + 1,
        f"{_DD}, Table 1: n-1 messages over one link, none in step 1, one in steps 2-3",
    )


def dd_scatter_gather_upper_bound(instance: Instance) -> Bound | None:
    """Theorem 1: the farthest-first discipline scatters (and, reversed, gathers) in
    ``n + 1`` steps in the constant-capacity tree, hence in every binary fat tree.

    Parameters
    ----------
    instance : Instance

    Returns
    -------
    Bound or None
        None unless all-port scatter or gather, no limit on transmissions per round,
        verified ``fattree`` with ``n >= 4`` leaves.

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> dd_scatter_gather_upper_bound(parse_instance("fattree:16", "all-port",
    ...     "scatter:0")).value
    17

    References
    ----------
    Dimakopoulos and Dimopoulos, section 3, Theorem 1.
    """
    tree = _fat_tree_upper(instance, ProblemKind.SCATTER) or _fat_tree_upper(
        instance, ProblemKind.GATHER
    )
    if tree is None or tree[0] < 4:
        return None
    return Bound(
        "dd-scatter-gather-upper",
        _UPPER,
        tree[0] + 1,
        f"{_DD}, Theorem 1: farthest-first scattering takes n + 1 steps",
    )


def dd_gossip_bound(instance: Instance) -> Bound | None:
    """Table 1: multinode broadcasting (gossip) takes ``n + 1`` steps: every leaf receives
    ``n - 1`` messages over one link of capacity 1, with two holes in the first steps.

    Parameters
    ----------
    instance : Instance

    Returns
    -------
    Bound or None
        None unless all-port gossip on a verified ``fattree`` with ``n >= 4`` leaves and
        ``c_1 = 1``.

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> dd_gossip_bound(parse_instance("fattree:4:exp", "all-port", "gossip")).value
    5

    References
    ----------
    Dimakopoulos and Dimopoulos, section 2.1 and Table 1.
    """
    tree = _fat_tree(instance)
    if tree is None or instance.problem.kind is not ProblemKind.GOSSIP:
        return None
    n, caps = tree
    if not _hole_argument_applies(n, caps):
        return None
    return Bound(
        "dd-gossip",
        _LOWER,
        n + 1,
        f"{_DD}, Table 1: each leaf receives n-1 messages over one link, two steps idle",
    )


def dd_gossip_upper_bound(instance: Instance) -> Bound | None:
    """Theorem 2: flooding gossips in ``n + 1`` steps in the constant-capacity tree (so in
    every binary fat tree), ``n >= 4``.

    Parameters
    ----------
    instance : Instance

    Returns
    -------
    Bound or None
        None unless all-port gossip, no limit on transmissions per round, verified
        ``fattree`` with ``n >= 4`` leaves.

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> dd_gossip_upper_bound(parse_instance("fattree:8", "all-port", "gossip")).value
    9

    References
    ----------
    Dimakopoulos and Dimopoulos, section 4, Theorem 2.
    """
    tree = _fat_tree_upper(instance, ProblemKind.GOSSIP)
    if tree is None or tree[0] < 4:
        return None
    return Bound(
        "dd-gossip-upper",
        _UPPER,
        tree[0] + 1,
        f"{_DD}, Theorem 2: flooding gossips in n + 1 steps",
    )


def dd_gossip_no_queue_upper_bound(instance: Instance) -> Bound | None:
    """Section 4.1: an algorithm without queues gossips in ``n + 2 log n - 2`` steps in any
    binary fat tree (their [3]).

    Parameters
    ----------
    instance : Instance

    Returns
    -------
    Bound or None
        None unless all-port gossip, no limit on transmissions per round, verified
        ``fattree``.

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> dd_gossip_no_queue_upper_bound(parse_instance("fattree:8", "all-port",
    ...     "gossip")).value
    12

    References
    ----------
    Dimakopoulos and Dimopoulos, section 4.1.
    """
    tree = _fat_tree_upper(instance, ProblemKind.GOSSIP)
    if tree is None:
        return None
    n, caps = tree
    return Bound(
        "dd-gossip-no-queue-upper",
        _UPPER,
        n + 2 * len(caps) - 2,
        f"{_DD}, sec. 4.1: a queue-free algorithm takes n + 2 log n - 2 steps",
    )


def dd_total_exchange_bound(instance: Instance) -> Bound | None:
    """Table 1: total exchange takes ``max(n + 1, n^2 / (4 c_L))`` steps.

    ``(n/2)^2`` messages cross from the left half to the right over the root branch of
    capacity ``c_L``; and (with ``c_1 = 1``, ``n >= 4``) each leaf receives ``n - 1``
    messages over one link, with two holes, as for gossip.

    Parameters
    ----------
    instance : Instance

    Returns
    -------
    Bound or None
        None unless all-port total exchange on a verified ``fattree``.

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> dd_total_exchange_bound(parse_instance("fattree:8", "all-port",
    ...     "total-exchange")).value
    16
    >>> dd_total_exchange_bound(parse_instance("fattree:8:exp", "all-port",
    ...     "total-exchange")).value
    9

    References
    ----------
    Dimakopoulos and Dimopoulos, section 2.1 and Table 1.
    """
    tree = _fat_tree(instance)
    if tree is None or instance.problem.kind is not ProblemKind.TOTAL_EXCHANGE:
        return None
    n, caps = tree
    value = -(-(n * n) // (4 * caps[-1]))
    if _hole_argument_applies(n, caps):
        value = max(value, n + 1)
    return Bound(
        "dd-total-exchange",
        _LOWER,
        value,
        f"{_DD}, Table 1: (n/2)^2 messages cross each root branch of capacity c_L; "
        "n + 1 as for gossip when c_1 = 1",
    )


def _lemma3_value(n: int, levels: int) -> int:
    """Smallest ``T`` with ``ceil(T / D') (T - n + 1) >= n - n/2^i`` for every ``i``."""
    best = n - 1
    for i in range(1, levels + 1):
        period = 2 * (levels - i) + 1
        external = n - (n >> i)
        t = n - 1
        while -(-t // period) * (t - n + 1) < external:
            t += 1
        best = max(best, t)
    return best


def dd_lemma3_bound(instance: Instance) -> Bound | None:
    """Lemma 3 (hole counting), evaluated exactly.

    Collapse the top ``i`` levels: ``2^i`` subtrees, leaves of different subtrees at least
    ``D = 2(log n - i + 1)`` links apart. Split time into periods of ``D - 1`` rounds, so
    that a message sent to another subtree in one period arrives in a later one; then the
    messages a subtree sends out in period ``s`` are at most the holes (rounds in which a
    leaf receives nothing useful) of periods ``1..s``. With ``p = ceil(T/(D-1))`` periods,
    ``p H >= n(n - n/2^i)`` external messages and ``H <= n T - n(n - 1)`` holes give
    ``ceil(T/(D-1)) (T - n + 1) >= n - n/2^i``. The value is the smallest ``T`` meeting this
    for every ``i = 1..log n``.

    The paper states the closed form ``n + 2 log n - 2 log log n - 2`` for EBFTs. Its
    derivation uses periods of ``D`` steps and an integrality step that only hold up to an
    off-by-one, and the closed form is not an integer unless ``log n`` is a power of 2; the
    exact evaluation above, with the shorter (conservative) periods, is used instead. The
    argument needs only that each leaf sends and receives one message per round, so it is
    applied to every fat tree with ``c_1 = 1``.

    Parameters
    ----------
    instance : Instance

    Returns
    -------
    Bound or None
        None unless all-port total exchange on a verified ``fattree`` with ``c_1 = 1``.

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> dd_lemma3_bound(parse_instance("fattree:16:exp", "all-port",
    ...     "total-exchange")).value
    18

    References
    ----------
    Dimakopoulos and Dimopoulos, section 5.1, Lemma 3 and (4)-(6).
    """
    tree = _fat_tree(instance)
    if tree is None or instance.problem.kind is not ProblemKind.TOTAL_EXCHANGE:
        return None
    n, caps = tree
    if caps[0] != 1:
        return None
    return Bound(
        "dd-lemma3",
        _LOWER,
        _lemma3_value(n, len(caps)),
        f"{_DD}, Lemma 3: holes in leaf receptions while messages cross between subtrees "
        "(evaluated exactly, periods of D-1 rounds)",
    )


def _dd_phase_sum(caps: list[int]) -> int:
    return sum(-(-(4 ** (i - 1)) // c) for i, c in enumerate(caps, start=1))


def dd_total_exchange_serial_upper_bound(instance: Instance) -> Bound | None:
    """Formula (1): the phase-by-phase total exchange takes
    ``sum_i ceil(4^(i-1) / c_i) + (log n)^2`` steps.

    Parameters
    ----------
    instance : Instance

    Returns
    -------
    Bound or None
        None unless all-port total exchange, no limit on transmissions per round, verified
        ``fattree``.

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> dd_total_exchange_serial_upper_bound(parse_instance("fattree:8", "all-port",
    ...     "total-exchange")).value
    30

    References
    ----------
    Dimakopoulos and Dimopoulos, section 5, formula (1).
    """
    tree = _fat_tree_upper(instance, ProblemKind.TOTAL_EXCHANGE)
    if tree is None:
        return None
    caps = tree[1]
    return Bound(
        "dd-total-exchange-serial-upper",
        _UPPER,
        _dd_phase_sum(caps) + len(caps) ** 2,
        f"{_DD}, (1): phase i crosses 4^(i-1) messages over capacity c_i, plus 2h_i - 1",
    )


def dd_total_exchange_pipelined_upper_bound(instance: Instance) -> Bound | None:
    """Formulas (2)-(3): with pipelined phases, total exchange takes
    ``sum_i ceil(4^(i-1) / c_i) + 2 log n - 1`` steps; ``(n^2 - 1)/3 + 2 log n - 1`` for
    constant and ``n + 2 log n - 2`` for exponential capacities.

    Parameters
    ----------
    instance : Instance

    Returns
    -------
    Bound or None
        None unless all-port total exchange, no limit on transmissions per round, verified
        ``fattree``.

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> dd_total_exchange_pipelined_upper_bound(parse_instance("fattree:8:exp", "all-port",
    ...     "total-exchange")).value
    12

    References
    ----------
    Dimakopoulos and Dimopoulos, section 5, formulas (2) and (3).
    """
    tree = _fat_tree_upper(instance, ProblemKind.TOTAL_EXCHANGE)
    if tree is None:
        return None
    caps = tree[1]
    return Bound(
        "dd-total-exchange-pipelined-upper",
        _UPPER,
        _dd_phase_sum(caps) + 2 * len(caps) - 1,
        f"{_DD}, (2)-(3): pipelined phases save (log n)^2 - 2 log n + 1 steps",
    )


# --------------------------------------------------------------------------------------------
# Bermond-Gargano-Perennes 1998: sequential telephone gossip with packets of p blocks
# --------------------------------------------------------------------------------------------


def _sequential_gossip(instance: Instance) -> bool:
    m = instance.model
    return m.kind is ModelKind.TELEPHONE and m.calls_per_round == 1 and _is_gossip(instance)


def _classical_calls(n: int) -> int:
    """Minimum number of calls of gossip among ``n`` nodes with unbounded packets."""
    return {1: 0, 2: 1, 3: 3}.get(n, 2 * n - 4)


def bermond_1_bound(instance: Instance) -> Bound | None:
    """Bound (1): ``c(n, p) >= n^2/(2p) + (p - 2) n / (2p)``.

    ``n(n - 1)`` blocks must be received; a call carries at most ``2p``, and the first call
    of each node carries at most one block from it, so ``2p c - (p - 1) n >= n(n - 1)``.
    Calls on any graph are calls of the complete graph, so the bound holds on every graph.

    Parameters
    ----------
    instance : Instance

    Returns
    -------
    Bound or None
        None unless sequential telephone gossip (``calls_per_round == 1``) with a packet cap,
        no routers, ``n >= 2``.

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> bermond_1_bound(parse_instance("complete:16", "sequential:p=4", "gossip")).value
    36

    References
    ----------
    Bermond, Gargano and Perennes 1998, section 2, (1).
    """
    p = instance.model.packet_cap
    if not _sequential_gossip(instance) or p is None or instance.n < 2:
        return None
    n = instance.n
    value = -(-(n * n + (p - 2) * n) // (2 * p))
    return Bound(
        "bermond-1",
        _LOWER,
        value,
        f"{_BGP}, (1): 2p c - (p-1) n >= n(n-1) blocks (first calls carry one block)",
    )


def bermond_theorem21_bound(instance: Instance) -> Bound | None:
    """Theorem 2.1: for ``p >= 2``, ``n = hp + k >= p + 2`` (``h >= 1``,
    ``2 <= k <= p + 1``), ``c(n, p) >= n^2/(2p) + (1 - k/(2p) - 1/(2(k - 1))) n``.

    Evaluated in the integer form of the proof's last step:
    ``2c >= nh + 2n - floor(n/(k - 1))``.

    Parameters
    ----------
    instance : Instance

    Returns
    -------
    Bound or None
        None unless sequential telephone gossip with a packet cap ``p >= 2``,
        ``n >= p + 2``, no routers.

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> bermond_theorem21_bound(parse_instance("complete:16", "sequential:p=4",
    ...     "gossip")).value
    38

    References
    ----------
    Bermond, Gargano and Perennes 1998, section 2, Theorem 2.1.
    """
    p = instance.model.packet_cap
    n = instance.n
    if not _sequential_gossip(instance) or p is None or p < 2 or n < p + 2:
        return None
    k = (n - 2) % p + 2
    h = (n - k) // p
    twice = n * h + 2 * n - n // (k - 1)
    return Bound(
        "bermond-2.1",
        _LOWER,
        -(-twice // 2),
        f"{_BGP}, Theorem 2.1: counting calls with one received block, n = hp + k",
    )


def bermond_p1_bound(instance: Instance) -> Bound | None:
    """``c(n, 1) = n(n - 1)/2``: with one block per message every node receives each block
    in a different call, two blocks per call.

    Parameters
    ----------
    instance : Instance

    Returns
    -------
    Bound or None
        None unless sequential telephone gossip with ``p = 1``, no routers, ``n >= 2``.

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> bermond_p1_bound(parse_instance("ring:6", "sequential:p=1", "gossip")).value
    15

    References
    ----------
    Bermond, Gargano and Perennes 1998, section 1.1.
    """
    if not _sequential_gossip(instance) or instance.model.packet_cap != 1 or instance.n < 2:
        return None
    n = instance.n
    return Bound(
        "bermond-p1",
        _LOWER,
        n * (n - 1) // 2,
        f"{_BGP}, sec. 1.1: c(n,1) = n(n-1)/2, each call carries two blocks",
    )


def bermond_2n4_bound(instance: Instance) -> Bound | None:
    """``c(n, p) = 2n - 4`` for ``n >= 4`` when packets do not restrict (``n <= p + 1``); as
    a lower bound it holds for every packet cap and every graph (1 call for ``n = 2``, 3 for
    ``n = 3``).

    Parameters
    ----------
    instance : Instance

    Returns
    -------
    Bound or None
        None unless sequential telephone gossip, no routers, ``n >= 2``.

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> bermond_2n4_bound(parse_instance("complete:9", "sequential", "gossip")).value
    14

    References
    ----------
    Bermond, Gargano and Perennes 1998, section 1.1 (citing their [13]).
    """
    if not _sequential_gossip(instance) or instance.n < 2:
        return None
    return Bound(
        "bermond-2n-4",
        _LOWER,
        _classical_calls(instance.n),
        f"{_BGP}, sec. 1.1: gossip among n >= 4 nodes needs 2n - 4 calls (any packet size)",
    )


def _sequential_complete(instance: Instance) -> bool:
    return _sequential_gossip(instance) and _complete(instance)


def bermond_theorem31_upper_bound(instance: Instance) -> Bound | None:
    """Theorem 3.1: a protocol gossips among ``n = hp + k`` nodes of the complete graph with
    at most ``n^2/(2p) + (1 - k/(2p) - 1/(2(k - 1))) n + p`` calls of ``p`` blocks.

    Parameters
    ----------
    instance : Instance

    Returns
    -------
    Bound or None
        None unless sequential telephone gossip on a complete graph with ``p >= 2`` and
        ``n >= p + 2``.

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> bermond_theorem31_upper_bound(parse_instance("complete:16", "sequential:p=4",
    ...     "gossip")).value
    41

    References
    ----------
    Bermond, Gargano and Perennes 1998, section 3, Theorem 3.1.
    """
    p = instance.model.packet_cap
    n = instance.n
    if not _sequential_complete(instance) or p is None or p < 2 or n < p + 2:
        return None
    k = (n - 2) % p + 2
    value = Fraction(n * n, 2 * p) + (1 - Fraction(k, 2 * p) - Fraction(1, 2 * (k - 1))) * n + p
    return Bound(
        "bermond-3.1-upper",
        _UPPER,
        math.floor(value),
        f"{_BGP}, Theorem 3.1: four-phase protocol within p calls of the lower bound (2)",
    )


def bermond_p1_upper_bound(instance: Instance) -> Bound | None:
    """``c(n, 1) = n(n - 1)/2`` on the complete graph: every pair calls once and exchanges
    its own blocks.

    Parameters
    ----------
    instance : Instance

    Returns
    -------
    Bound or None
        None unless sequential telephone gossip on a complete graph with ``p = 1``.

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> bermond_p1_upper_bound(parse_instance("complete:6", "sequential:p=1",
    ...     "gossip")).value
    15

    References
    ----------
    Bermond, Gargano and Perennes 1998, section 1.1.
    """
    if not _sequential_complete(instance) or instance.model.packet_cap != 1:
        return None
    n = instance.n
    return Bound(
        "bermond-p1-upper",
        _UPPER,
        n * (n - 1) // 2,
        f"{_BGP}, sec. 1.1: every pair calls once, exchanging their own blocks",
    )


def bermond_2n4_upper_bound(instance: Instance) -> Bound | None:
    """``c(n, p) = 2n - 4`` (``n >= 4``) on the complete graph when ``n <= p + 1`` or packets
    are unbounded.

    Parameters
    ----------
    instance : Instance

    Returns
    -------
    Bound or None
        None unless sequential telephone gossip on a complete graph with unbounded packets
        or ``p >= n - 1``.

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> bermond_2n4_upper_bound(parse_instance("complete:9", "sequential", "gossip")).value
    14

    References
    ----------
    Bermond, Gargano and Perennes 1998, section 1.1 (citing their [13]).
    """
    p = instance.model.packet_cap
    if not _sequential_complete(instance) or instance.n < 2:
        return None
    if p is not None and p < instance.n - 1:
        return None
    return Bound(
        "bermond-2n-4-upper",
        _UPPER,
        _classical_calls(instance.n),
        f"{_BGP}, sec. 1.1: 2n - 4 calls suffice when a call may carry every block",
    )


# --------------------------------------------------------------------------------------------
# Registries and queries
# --------------------------------------------------------------------------------------------

LOWER_BOUNDS: tuple[Callable[[Instance], Bound | None], ...] = (
    distance_bound,
    doubling_bound,
    telephone_gossip_odd_bound,
    receive_bound,
    pendant_leaves_bound,
    dimakopoulos_receive_bound,
    dimakopoulos_half_duplex_bound,
    beier_sibeyn_path_bound,
    beier_sibeyn_cycle_bound,
    beier_sibeyn_mesh_bound,
    beier_sibeyn_torus_bound,
    beier_sibeyn_hypercube_bound,
    beier_sibeyn_knodel_bound,
    beier_sibeyn_ccc_bound,
    beier_sibeyn_se_bound,
    gonzalez_receive_bound,
    gonzalez_odd_path_bound,
    dd_broadcast_bound,
    dd_scatter_gather_bound,
    dd_gossip_bound,
    dd_total_exchange_bound,
    dd_lemma3_bound,
    bermond_1_bound,
    bermond_theorem21_bound,
    bermond_p1_bound,
    bermond_2n4_bound,
)
LOWER_COST_BOUNDS: tuple[Callable[[Instance], Bound | None], ...] = (
    beier_sibeyn_linear_cost_bound,
)
UPPER_BOUNDS: tuple[Callable[[Instance], Bound | None], ...] = (
    dimakopoulos_hamiltonian_upper_bound,
    dimakopoulos_product_upper_bound,
    beier_sibeyn_path_upper_bound,
    beier_sibeyn_cycle_upper_bound,
    beier_sibeyn_mesh_upper_bound,
    beier_sibeyn_mesh_lemma3_upper_bound,
    beier_sibeyn_mesh_lemma4_upper_bound,
    beier_sibeyn_torus_upper_bound,
    beier_sibeyn_lemma5_upper_bound,
    beier_sibeyn_hypercube_upper_bound,
    beier_sibeyn_knodel_upper_bound,
    beier_sibeyn_ccc_upper_bound,
    beier_sibeyn_se_upper_bound,
    beier_sibeyn_butterfly_upper_bound,
    beier_sibeyn_debruijn_upper_bound,
    beier_sibeyn_star_pancake_upper_bound,
    gonzalez_n_plus_r_upper_bound,
    gonzalez_simple_upper_bound,
    gonzalez_updown_upper_bound,
    gonzalez_hamiltonian_upper_bound,
    gonzalez_broadcast_upper_bound,
    dd_broadcast_upper_bound,
    dd_scatter_gather_upper_bound,
    dd_gossip_upper_bound,
    dd_gossip_no_queue_upper_bound,
    dd_total_exchange_serial_upper_bound,
    dd_total_exchange_pipelined_upper_bound,
    bermond_theorem31_upper_bound,
    bermond_p1_upper_bound,
    bermond_2n4_upper_bound,
)


def all_bounds(instance: Instance) -> list[Bound]:
    """Every bound that applies to ``instance``: lower bounds, then cost bounds, then upper.

    Parameters
    ----------
    instance : Instance

    Returns
    -------
    list of Bound

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> [b.name for b in all_bounds(parse_instance("ring:6", "telephone", "gossip"))][2:]
    ['telephone-gossip', 'beier-sibeyn-cycle', 'beier-sibeyn-cycle-upper']
    """
    out = []
    for fn in LOWER_BOUNDS + LOWER_COST_BOUNDS + UPPER_BOUNDS:
        b = fn(instance)
        if b is not None:
            out.append(b)
    return out


def bound_by_name(instance: Instance, name: str) -> Bound | None:
    """Recompute the bound called ``name`` (None if it does not apply or does not exist).

    Parameters
    ----------
    instance : Instance
    name : str

    Returns
    -------
    Bound or None

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> bound_by_name(parse_instance("ring:5", "half-duplex:p=1", "gossip"),
    ...     "dimakopoulos-2-3").value
    10
    """
    for b in all_bounds(instance):
        if b.name == name:
            return b
    return None


def best_lower_bound(instance: Instance) -> Bound:
    """The largest lower bound on rounds that applies (the distance bound always does).

    Parameters
    ----------
    instance : Instance

    Returns
    -------
    Bound
        Of kind ``"lower"``; the first in registry order among equal values.

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> best_lower_bound(parse_instance("ring:5", "half-duplex:p=1", "gossip")).name
    'dimakopoulos-2-3'
    """
    lows = [b for b in all_bounds(instance) if b.kind == _LOWER]
    return max(lows, key=lambda b: b.value)


def best_upper_bound(instance: Instance) -> Bound | None:
    """The smallest closed-form upper bound on rounds that applies, or None.

    Parameters
    ----------
    instance : Instance

    Returns
    -------
    Bound or None
        Of kind ``"upper"``; the first in registry order among equal values.

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> best_upper_bound(parse_instance("torus:4x6", "telephone", "gossip")).value
    5
    >>> print(best_upper_bound(parse_instance("petersen", "telephone", "gossip")))
    None
    """
    ups = [b for b in all_bounds(instance) if b.kind == _UPPER]
    return min(ups, key=lambda b: b.value) if ups else None
