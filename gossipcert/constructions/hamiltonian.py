"""Multinode broadcasting (gossip, one packet per step) through a Hamiltonian cycle, and
Dimakopoulos's composition for Cartesian products.

- **Hamiltonian graphs** (section 3): the lower bounds ``n - 1`` (full duplex, Eq. 1),
  ``2(n - 1)`` (half duplex, even ``n``, Eq. 2) and ``2n`` (half duplex, odd ``n``, Eq. 3)
  depend only on ``n`` and are met by the ring algorithms, so any graph with a Hamiltonian
  cycle gossips optimally through the links of its cycle. The ring schedules are those of
  :mod:`gossipcert.constructions.rings`; this module finds the cycle.
- **Products** ``G = A x B`` (section 4, Fig. 6): Phase 1 performs multinode broadcasting
  in every copy ``B_i = (v_i, *)`` of ``B`` at once; Phase 2 performs ``n2`` multinode
  broadcastings, one after the other, in every copy ``A_j = (*, u_j)`` of ``A``, the ``r``-th
  of them with node ``(v_i, u_j)`` broadcasting ``m(v_i, u_r)``. It takes exactly
  ``T = T_B + n2 T_A`` steps (Theorem 2), ``n - 1`` when both factors are optimal under
  full duplex (Theorem 3), ``2(n - 1)`` under half duplex with both ``n1``, ``n2`` even
  (Theorem 4) and ``2n`` with ``n1`` even, ``n2`` odd (Theorem 5).

Finding the cycle. Families with structure give one at once: rings, complete graphs,
hypercubes (the reflected Gray code, section 3), and Cartesian products, tori and meshes,
whose factors' Hamiltonian paths or cycles are woven into one (a product of Hamiltonian
graphs is Hamiltonian, section 3; a mesh ``a x b`` has a cycle when ``ab`` is even).
Otherwise a SAT model decides: a successor variable per arc with exactly one successor and
one predecessor per node, and one-hot position variables with node 0 at position 0 and
``succ(u, v) and pos(u, k) -> pos(v, k + 1)`` for ``v != 0``, which rules out every subtour
that avoids node 0 (its positions would have to grow without end).

A path has no Hamiltonian cycle, and Dimakopoulos gives no path algorithm; so that meshes
(products of paths) can be composed, :func:`path_pipeline` supplies a plain baseline for
paths, not taken from the paper: odd steps move packets rightwards, even steps leftwards,
``2(n - 1)`` steps with full-duplex links and twice that with half-duplex links.

References
----------
.. [1] V. V. Dimakopoulos, "Single-port multinode broadcasting", Tech. Report 1-99,
   University of Ioannina, 1999: section 2 (Eqs. 1-3), section 3 (Hamiltonian networks),
   section 4 (Fig. 6, Theorems 2-5).
.. [2] T. F. Gonzalez, "An efficient algorithm for gossiping in the multicasting
   communication environment", IEEE TPDS, 2003, Fig. 1 (a Hamiltonian circuit under
   multicast).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

import networkx as nx
from pysat.card import CardEnc, EncType
from pysat.formula import IDPool
from pysat.solvers import Solver

from gossipcert import graphs
from gossipcert.constructions.rings import (
    origin_packet,
    ring_full_duplex,
    ring_half_duplex,
    ring_multicast_clockwise,
)
from gossipcert.errors import GossipcertError, NotApplicableError
from gossipcert.instance import Instance, ModelKind, Problem, ProblemKind, make_instance
from gossipcert.schedule import Round, Schedule, Transmission

__all__ = [
    "SAT_CONFLICT_BUDGET",
    "SAT_MAX_NODES",
    "hamiltonian_cycle",
    "hamiltonian_gossip",
    "path_pipeline",
    "product",
    "product_factors",
]

#: Largest graph handed to the SAT model when no structure gives a cycle.
SAT_MAX_NODES: int = 512
#: Conflicts the SAT solver may spend before the search is given up as undecided.
SAT_CONFLICT_BUDGET: int = 200_000

_ONE_PACKET_MODELS = (ModelKind.SINGLE_PORT, ModelKind.HALF_DUPLEX, ModelKind.MULTICAST)


# --------------------------------------------------------------------------- the cycle


def _is_cycle(graph: nx.Graph, order: Sequence[int]) -> bool:
    """Whether ``order`` visits every node once along edges, closing back to the start."""
    n = graph.number_of_nodes()
    if sorted(order) != list(range(n)):
        return False
    if n <= 2:
        return n < 2 or graph.has_edge(order[0], order[1])
    return all(graph.has_edge(order[i], order[(i + 1) % n]) for i in range(n))


def _weave(a: tuple[list[int], bool], b: tuple[list[int], bool], n2: int) -> tuple[list[int], bool]:
    """A Hamiltonian cycle (or path) of ``A x B`` from those of ``A`` and ``B``.

    Rows follow ``A``'s order, columns ``B``'s; node ``(x, y)`` is ``pa[x] * n2 + pb[y]``.
    Row 0 is walked along ``B``; rows ``1..n1-1`` snake through columns ``1..n2-1``; the
    last row ends in column 1 (``n1`` even) or ``n2 - 1`` (``n1`` odd, which needs the
    closing edge of ``B``'s cycle) next to column 0, which leads back up to the start.
    """
    (pa, ca), (pb, cb) = a, b
    n1 = len(pa)

    def node(x: int, y: int) -> int:
        return pa[x] * n2 + pb[y]

    if n1 == 1:
        return [node(0, y) for y in range(n2)], cb
    if n2 == 1:
        return [node(x, 0) for x in range(n1)], ca
    if n1 % 2 == 0 or cb:
        order = [node(0, y) for y in range(n2)]
        for x in range(1, n1):
            cols = range(n2 - 1, 0, -1) if x % 2 else range(1, n2)
            order.extend(node(x, y) for y in cols)
        order.extend(node(x, 0) for x in range(n1 - 1, 0, -1))
        return order, True
    if n2 % 2 == 0 or ca:
        order = [node(x, 0) for x in range(n1)]
        for y in range(1, n2):
            rows = range(n1 - 1, 0, -1) if y % 2 else range(1, n1)
            order.extend(node(x, y) for x in rows)
        order.extend(node(0, y) for y in range(n2 - 1, 0, -1))
        return order, True
    # both odd and neither closed: a boustrophedon Hamiltonian path
    order = []
    for x in range(n1):
        cols = range(n2) if x % 2 == 0 else range(n2 - 1, -1, -1)
        order.extend(node(x, y) for y in cols)
    return order, False


_GRID = re.compile(r"(mesh|torus):(\d+)x(\d+)")


def _factor_specs(spec: str) -> tuple[str, str] | None:
    """The specs of ``A`` and ``B`` when ``spec`` names a product ``A x B`` (else None).

    ``f1*f2*...*fk`` is left-associative, so ``B = fk``; ``torus:AxB`` is ``ring:A*ring:B``,
    ``mesh:AxB`` is ``path:A*path:B`` and ``hypercube:K`` is ``hypercube:K-1*path:2``, all
    with the node numbering ``a * n2 + b`` of :func:`gossipcert.graphs.cartesian_product`.
    """
    if "*" in spec and "/" not in spec:
        left, _, right = spec.rpartition("*")
        return left, right
    grid = _GRID.fullmatch(spec)
    if grid:
        kind = "ring" if grid.group(1) == "torus" else "path"
        return f"{kind}:{grid.group(2)}", f"{kind}:{grid.group(3)}"
    if spec.startswith("hypercube:"):
        k = int(spec.partition(":")[2])
        if k >= 2:
            inner = "path:2" if k == 2 else f"hypercube:{k - 1}"
            return inner, "path:2"
    return None


def _structured(graph: nx.Graph) -> tuple[list[int], bool] | None:
    """A Hamiltonian cycle (closed) or path (open) that the graph's family gives directly."""
    spec = str(graph.graph.get("spec", ""))
    n = graph.number_of_nodes()
    family = spec.partition(":")[0] if "*" not in spec else "product"
    if family in ("ring", "complete"):
        return list(range(n)), True
    if family == "path":
        return list(range(n)), n <= 2
    if family == "hypercube":
        # the reflected Gray code: consecutive words differ in one bit, and so do the
        # last and the first
        return [i ^ (i >> 1) for i in range(n)], True
    parts = _factor_specs(spec)
    if parts is None:
        return None
    try:
        fa, fb = graphs.from_spec(parts[0]), graphs.from_spec(parts[1])
    except GossipcertError:
        return None
    if fa.number_of_nodes() * fb.number_of_nodes() != n:
        return None
    sa, sb = _structured(fa), _structured(fb)
    if sa is None or sb is None:
        return None
    return _weave(sa, sb, fb.number_of_nodes())


def _sat_cycle(graph: nx.Graph, conflict_budget: int) -> list[int] | None:
    """Decide Hamiltonicity with SAT; the cycle, or None if there is none.

    Raises
    ------
    NotApplicableError
        If the solver runs out of its conflict budget.
    """
    n = graph.number_of_nodes()
    adj = [sorted(graph[v]) for v in range(n)]
    dist = nx.single_source_shortest_path_length(graph, 0)
    pool = IDPool()

    def succ(u: int, v: int) -> int:
        return pool.id(("succ", u, v))

    def pos(v: int, k: int) -> int:
        return pool.id(("pos", v, k))

    # node v can stand at position k only if it is k steps from node 0 along the cycle
    # and n - k steps back: dist(0, v) <= k <= n - dist(0, v)
    allowed = [[0] if v == 0 else list(range(dist[v], n - dist[v] + 1)) for v in range(n)]
    clauses: list[list[int]] = []

    def exactly_one(lits: list[int]) -> None:
        clauses.extend(CardEnc.equals(lits=lits, bound=1, vpool=pool, encoding=EncType.seqcounter))

    for v in range(n):
        # one successor and one predecessor on the cycle
        exactly_one([succ(v, w) for w in adj[v]])
        exactly_one([succ(w, v) for w in adj[v]])
        # one position
        exactly_one([pos(v, k) for k in allowed[v]])
        # a 2-cycle u -> v -> u is a subtour when n >= 3
        clauses.extend([-succ(v, w), -succ(w, v)] for w in adj[v] if v < w)
    by_position: dict[int, list[int]] = {}
    for v in range(n):
        for k in allowed[v]:
            by_position.setdefault(k, []).append(pos(v, k))
    for lits in by_position.values():
        if len(lits) > 1:
            clauses.extend(
                CardEnc.atmost(lits=lits, bound=1, vpool=pool, encoding=EncType.seqcounter)
            )
    # subtour elimination: the successor of the node at position k is at position k + 1
    for u in range(n):
        for v in adj[u]:
            if v == 0:
                clauses.append(
                    [-succ(u, v), pos(u, n - 1)] if n - 1 in allowed[u] else [-succ(u, v)]
                )
                continue
            for k in allowed[u]:
                if k + 1 in allowed[v]:
                    clauses.append([-succ(u, v), -pos(u, k), pos(v, k + 1)])
                else:
                    clauses.append([-succ(u, v), -pos(u, k)])
    with Solver(name="glucose4", bootstrap_with=clauses) as solver:
        solver.conf_budget(conflict_budget)
        status = solver.solve_limited()
        if status is None:
            raise NotApplicableError(
                f"the Hamiltonian-cycle search on {graph.graph.get('spec', 'the graph')} "
                f"ran out of its budget of {conflict_budget} conflicts; undecided"
            )
        if not status:
            return None
        model = {lit for lit in solver.get_model() or [] if lit > 0}
    nxt = {u: v for u in range(n) for v in adj[u] if succ(u, v) in model}
    order = [0]
    while len(order) < n:
        order.append(nxt[order[-1]])
    return order


def hamiltonian_cycle(
    graph: nx.Graph,
    *,
    max_sat_nodes: int = SAT_MAX_NODES,
    conflict_budget: int = SAT_CONFLICT_BUDGET,
) -> list[int]:
    """A Hamiltonian cycle of ``graph`` as a node order.

    Rings, complete graphs, hypercubes (Gray code) and products, tori and meshes of such
    factors get a cycle from their structure; any other graph goes to a SAT model after
    cheap necessary conditions (minimum degree 2, biconnected, equal sides if bipartite).
    A graph with one or two nodes counts as its own cycle (the ring algorithms then use its
    only edge in both directions).

    Parameters
    ----------
    graph : networkx.Graph
        A connected graph on the nodes ``0..n-1``.
    max_sat_nodes : int
        Do not hand larger graphs to the SAT model.
    conflict_budget : int
        Conflicts the SAT solver may spend.

    Returns
    -------
    list of int
        The nodes in cycle order; consecutive nodes, and the last and the first, are adjacent.

    Raises
    ------
    NotApplicableError
        The graph has no Hamiltonian cycle, or the search was not attempted or not finished.

    Examples
    --------
    >>> hamiltonian_cycle(graphs.hypercube(3))
    [0, 1, 3, 2, 6, 7, 5, 4]
    >>> hamiltonian_cycle(graphs.mesh(2, 3))
    [0, 1, 2, 5, 4, 3]

    References
    ----------
    Dimakopoulos 1999, section 3 ("a hamiltonian cycle can be constructed through the use
    of Gray codes ... the same is true for graphs that are cartesian products of
    hamiltonian graphs").
    """
    n = graph.number_of_nodes()
    spec = graph.graph.get("spec", "the graph")
    if n == 0:
        raise NotApplicableError("the graph has no nodes")
    if n <= 2:
        if n == 2 and not graph.has_edge(0, 1):
            raise NotApplicableError(f"{spec} is disconnected")
        return list(range(n))
    found = _structured(graph)
    if found is not None and found[1] and _is_cycle(graph, found[0]):
        return found[0]
    # necessary conditions, cheap to test
    if min(d for _, d in graph.degree()) < 2:
        raise NotApplicableError(f"{spec} has no Hamiltonian cycle: a node has degree < 2")
    if not nx.is_biconnected(graph):
        raise NotApplicableError(f"{spec} has no Hamiltonian cycle: it has a cut vertex")
    if nx.is_bipartite(graph):
        side = nx.bipartite.color(graph)
        ones = sum(side.values())
        if 2 * ones != n:
            raise NotApplicableError(
                f"{spec} has no Hamiltonian cycle: it is bipartite with sides {n - ones} and {ones}"
            )
    if n > max_sat_nodes:
        raise NotApplicableError(
            f"no Hamiltonian cycle is known for {spec} from its structure, and with {n} nodes "
            f"it is larger than the SAT search limit of {max_sat_nodes}"
        )
    cycle = _sat_cycle(graph, conflict_budget)
    if cycle is None:
        raise NotApplicableError(f"{spec} has no Hamiltonian cycle (SAT model unsatisfiable)")
    return cycle


# --------------------------------------------------------------------------- gossip


def _check_gossip(instance: Instance, algorithm: str) -> None:
    model = instance.model
    if model.kind not in _ONE_PACKET_MODELS:
        raise NotApplicableError(
            f"{algorithm} is defined for single-port, half-duplex and multicast; got {model.spec()}"
        )
    if model.calls_per_round is not None:
        raise NotApplicableError(f"{algorithm} needs every node active at once; got {model.spec()}")
    if instance.problem.kind is not ProblemKind.GOSSIP:
        raise NotApplicableError(f"{algorithm} solves gossip; got {instance.problem.spec()}")
    if graphs.routers(instance.graph):
        raise NotApplicableError(f"{algorithm} needs every node to hold a packet (no routers)")


def hamiltonian_gossip(instance: Instance, cycle: Sequence[int] | None = None) -> Schedule:
    """Gossip through the links of a Hamiltonian cycle with the ring algorithms.

    Parameters
    ----------
    instance : Instance
        Gossip under ``single-port`` (full duplex), ``half-duplex`` or ``multicast``, no
        routers; optimal for one packet per step (``p = 1``), valid for any ``p``.
    cycle : sequence of int, optional
        The cycle to use (default :func:`hamiltonian_cycle`).

    Returns
    -------
    Schedule
        ``n - 1`` rounds under single-port and multicast, ``2(n - 1)`` under half-duplex
        for even ``n`` and ``2n`` for odd ``n`` (the lower bounds of Eqs. 1-3).

    Raises
    ------
    NotApplicableError
        Wrong model or problem, or no Hamiltonian cycle.

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> from gossipcert.simulate import simulate
    >>> inst = parse_instance("torus:3x5", "half-duplex:p=1", "gossip")
    >>> simulate(inst, hamiltonian_gossip(inst)).rounds
    30

    References
    ----------
    Dimakopoulos 1999, section 3: "multinode broadcasting can be performed optimally in any
    hamiltonian graph through the links of its hamiltonian cycle" (sections 3.1-3.2,
    Theorem 1); Gonzalez 2003, Fig. 1, for multicast.
    """
    _check_gossip(instance, "Hamiltonian-cycle gossip")
    g = instance.graph
    if cycle is None:
        cycle = hamiltonian_cycle(g)
    elif not _is_cycle(g, list(cycle)):
        raise NotApplicableError("the given node order is not a Hamiltonian cycle of the graph")
    kind = instance.model.kind
    if kind is ModelKind.SINGLE_PORT:
        return ring_full_duplex(instance, cycle)
    if kind is ModelKind.HALF_DUPLEX:
        return ring_half_duplex(instance, cycle)
    return ring_multicast_clockwise(instance, cycle)


def path_pipeline(instance: Instance, order: Sequence[int] | None = None) -> Schedule:
    """A baseline gossip for a path (not from the paper): two pipelines taking turns.

    In odd full-duplex steps every node sends rightwards the packet it received from the
    left in the previous odd step (first its own); in even steps the same leftwards.
    Under half duplex each full-duplex step becomes two, nodes at even positions sending
    first, as in Dimakopoulos's emulation for even rings (section 3.2.1).

    Parameters
    ----------
    instance : Instance
        Gossip under single-port, half-duplex or multicast, no routers.
    order : sequence of int, optional
        The path as a node order (default ``0..n-1`` on a ``path:N`` graph).

    Returns
    -------
    Schedule
        ``2(n - 1)`` steps (single-port, multicast) or ``4(n - 1)`` (half-duplex).

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> from gossipcert.simulate import simulate
    >>> inst = parse_instance("path:4", "single-port:p=1", "gossip")
    >>> simulate(inst, path_pipeline(inst)).rounds
    6

    References
    ----------
    Dimakopoulos 1999, sections 3.1 (clockwise rotation) and 3.2.1 (half-duplex emulation);
    the path itself is not treated there.
    """
    _check_gossip(instance, "The path pipeline")
    g = instance.graph
    if order is None:
        if not str(g.graph.get("spec", "")).startswith("path:"):
            raise NotApplicableError("the path pipeline needs a path (give its node order)")
        order = list(range(instance.n))
    c = list(order)
    n = len(c)
    if sorted(c) != list(range(instance.n)) or not all(
        g.has_edge(c[i], c[i + 1]) for i in range(n - 1)
    ):
        raise NotApplicableError("the given node order is not a Hamiltonian path of the graph")
    pk = [origin_packet(instance, v) for v in c]
    steps: list[list[tuple[int, int, int]]] = []  # (from position, to position, origin)
    for s in range(1, 2 * (n - 1) + 1):
        q = (s + 1) // 2
        if s % 2:
            # rightwards: position i forwards the packet of position i - (q - 1)
            steps.append([(i, i + 1, i - q + 1) for i in range(n - 1) if i - q + 1 >= 0])
        else:
            # leftwards: position i forwards the packet of position i + (q - 1)
            steps.append([(i, i - 1, i + q - 1) for i in range(1, n) if i + q - 1 <= n - 1])
    if instance.model.kind is ModelKind.HALF_DUPLEX:
        steps = [[x for x in step if x[0] % 2 == parity] for step in steps for parity in (0, 1)]
    return Schedule(
        tuple(tuple(Transmission(c[i], (c[j],), 1 << pk[o]) for i, j, o in step) for step in steps)
    )


# --------------------------------------------------------------------------- products


def product_factors(graph: nx.Graph) -> tuple[nx.Graph, nx.Graph]:
    """The factors ``A`` and ``B`` of a product graph ``G = A x B``.

    Node ``(a, b)`` of ``G`` must be number ``a * n2 + b``, as built by
    :func:`gossipcert.graphs.cartesian_product`, ``torus``, ``mesh`` and ``hypercube``.

    Parameters
    ----------
    graph : networkx.Graph
        A graph whose spec is a product ``S1*...*Sk`` (``A = S1*...*S(k-1)``, ``B = Sk``),
        a torus (rings), a mesh (paths) or a hypercube (``Q_{k-1} x P_2``).

    Returns
    -------
    tuple of networkx.Graph
        ``(A, B)``.

    Raises
    ------
    NotApplicableError
        The graph is not recognised as such a product.

    Examples
    --------
    >>> a, b = product_factors(graphs.from_spec("torus:3x4"))
    >>> a.graph["spec"], b.graph["spec"]
    ('ring:3', 'ring:4')
    """
    spec = str(graph.graph.get("spec", ""))
    parts = _factor_specs(spec)
    if parts is None:
        raise NotApplicableError(f"{spec or 'the graph'} is not a recognised Cartesian product")
    try:
        a, b = graphs.from_spec(parts[0]), graphs.from_spec(parts[1])
    except GossipcertError as exc:
        raise NotApplicableError(f"cannot rebuild the factors of {spec}: {exc}") from None
    n1, n2 = a.number_of_nodes(), b.number_of_nodes()
    expected = {(x * n2 + y, x2 * n2 + y) for x, x2 in a.edges() for y in range(n2)}
    expected |= {(x * n2 + y, x * n2 + y2) for y, y2 in b.edges() for x in range(n1)}
    got = {tuple(sorted(e)) for e in graph.edges()}
    if n1 * n2 != graph.number_of_nodes() or {tuple(sorted(e)) for e in expected} != got:
        raise NotApplicableError(f"{spec} does not match the product of its factors")
    return a, b


def _default_factor(instance: Instance) -> Schedule:
    """The factor algorithm: the composition again for a product (hypercubes included),
    the path baseline for a path of three or more nodes, the Hamiltonian cycle otherwise."""
    spec = str(instance.graph.graph.get("spec", ""))
    if _factor_specs(spec) is not None:
        return product(instance)
    if spec.startswith("path:") and instance.n >= 3:
        return path_pipeline(instance)
    return hamiltonian_gossip(instance)


def product(
    instance: Instance,
    factor: Callable[[Instance], Schedule] | None = None,
    *,
    swap: bool = False,
) -> Schedule:
    """Dimakopoulos's multinode broadcasting for ``G = A x B`` (Fig. 6).

    Phase 1 (lines 1-2): in every copy ``B_i`` of ``B`` in parallel, multinode
    broadcasting. Phase 2 (lines 3-5): for ``r = 1..n2``, in every copy ``A_j`` of ``A`` in
    parallel, multinode broadcasting with node ``(v_i, u_j)`` broadcasting ``m(v_i, u_r)``.
    The broadcastings run one after the other, so the schedule obeys the factors' link
    model.

    Parameters
    ----------
    instance : Instance
        Gossip on a product graph (see :func:`product_factors`), no routers.
    factor : callable, optional
        The multinode broadcasting algorithm for a factor: takes the factor's gossip
        instance (same model) and returns a schedule that names its packets. Default: this
        composition again for a factor that is a product (recursively, section 4.1),
        :func:`path_pipeline` for a path, :func:`hamiltonian_gossip` otherwise.
    swap : bool
        Compose as ``B x A`` instead (Phase 1 in the copies of ``A``): the renaming of the
        dimensions in the proof of Theorem 5.

    Returns
    -------
    Schedule
        Exactly ``T_B + n2 T_A`` steps (Theorem 2), ``T_A + n1 T_B`` with ``swap``.

    Raises
    ------
    NotApplicableError
        Not a product, wrong model or problem, or a factor without an algorithm.

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> from gossipcert.simulate import simulate
    >>> inst = parse_instance("ring:4*ring:3", "half-duplex:p=1", "gossip")
    >>> rep = simulate(inst, product(inst))
    >>> rep.ok, rep.rounds  # T_B + n2 T_A = 2*3 + 3 * 2*(4-1) = 2n
    (True, 24)

    References
    ----------
    Dimakopoulos 1999, section 4.1 (Fig. 5 and Fig. 6) and section 4.2 (Theorems 2-5).
    """
    _check_gossip(instance, "The product composition")
    algorithm = _default_factor if factor is None else factor
    a, b = product_factors(instance.graph)
    n1, n2 = a.number_of_nodes(), b.number_of_nodes()
    problem = Problem(ProblemKind.GOSSIP)
    inst_a = make_instance(a, instance.model, problem)
    inst_b = make_instance(b, instance.model, problem)
    sched_a, sched_b = algorithm(inst_a), algorithm(inst_b)

    def node(x: int, y: int) -> int:
        return x * n2 + y

    # the packet of product node (x, y), and the origin node of each factor packet
    packet = [origin_packet(instance, v) for v in range(instance.n)]
    origin_a = [graphs.resolve_node(a, name) for name in inst_a.packet_names]
    origin_b = [graphs.resolve_node(b, name) for name in inst_b.packet_names]

    def copy_round(
        rnd: Round, place: Callable[[int], int], message: Callable[[int], int]
    ) -> list[Transmission]:
        """One factor round, placed in one copy: ``place`` maps factor nodes to product
        nodes, ``message`` maps a factor packet to the product packet it stands for."""
        out = []
        for tr in rnd:
            if tr.packets is None:
                raise NotApplicableError(
                    "a factor schedule must name its packets to be composed (not 'all')"
                )
            mask = 0
            for q in range(tr.packets.bit_length()):
                if tr.packets >> q & 1:
                    mask |= 1 << message(q)
            out.append(Transmission(place(tr.sender), tuple(place(r) for r in tr.receivers), mask))
        return out

    rounds: list[Round] = []
    if not swap:
        # Phase 1: multinode broadcasting in every copy B_i = (v_i, *) at once
        for rnd in sched_b.rounds[: len(sched_b)]:
            merged: list[Transmission] = []
            for x in range(n1):
                merged += copy_round(
                    rnd, lambda y, x=x: node(x, y), lambda q, x=x: packet[node(x, origin_b[q])]
                )
            rounds.append(tuple(merged))
        # Phase 2: for r = 1..n2, in every copy A_j = (*, u_j), (v_i, u_j) broadcasts m(v_i, u_r)
        for r in range(n2):
            for rnd in sched_a.rounds[: len(sched_a)]:
                merged = []
                for y in range(n2):
                    merged += copy_round(
                        rnd, lambda x, y=y: node(x, y), lambda q, r=r: packet[node(origin_a[q], r)]
                    )
                rounds.append(tuple(merged))
    else:
        # the same with the dimensions renamed: Phase 1 in the copies of A
        for rnd in sched_a.rounds[: len(sched_a)]:
            merged = []
            for y in range(n2):
                merged += copy_round(
                    rnd, lambda x, y=y: node(x, y), lambda q, y=y: packet[node(origin_a[q], y)]
                )
            rounds.append(tuple(merged))
        for r in range(n1):
            for rnd in sched_b.rounds[: len(sched_b)]:
                merged = []
                for x in range(n1):
                    merged += copy_round(
                        rnd, lambda y, x=x: node(x, y), lambda q, r=r: packet[node(r, origin_b[q])]
                    )
                rounds.append(tuple(merged))
    return Schedule(tuple(rounds))
