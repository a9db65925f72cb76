"""Hamiltonian cycles, for the bounds that route everything around one and for the ring
algorithms that gossip through one: the one finder of the package.

Families with structure give one at once: rings, complete graphs, hypercubes (the reflected
Gray code, section 3), and Cartesian products, tori and meshes, whose factors' Hamiltonian
paths or cycles are woven into one (a product of Hamiltonian graphs is Hamiltonian, section
3; a mesh ``a x b`` has a cycle when ``ab`` is even). Otherwise cheap necessary conditions
(minimum degree 2, biconnected, equal sides if bipartite) come first, then a SAT model
decides: a successor variable per arc with exactly one successor and one predecessor per
node, and one-hot position variables with node 0 at position 0 and ``succ(u, v) and
pos(u, k) -> pos(v, k + 1)`` for ``v != 0``, which rules out every subtour that avoids node
0 (its positions would have to grow without end). Graphs too large for the model (or whose
model ran out of its budget) may be given to Pósa's rotation-extension heuristic, which
finds a cycle or gives up. Whatever is found is checked edge by edge.

See :mod:`gossipcert.closed_forms` for the conventions every bound follows.

References
----------
.. [1] V. V. Dimakopoulos, "Single-port multinode broadcasting", Tech. Report 1-99,
   University of Ioannina, 1999: section 3 (Hamiltonian networks, Gray codes, products of
   Hamiltonian graphs).
.. [2] L. Pósa, "Hamiltonian circuits in random graphs", Discrete Mathematics 14, 1976
   (rotation-extension).
"""

from __future__ import annotations

import random
from collections.abc import Sequence

import networkx as nx
from pysat.card import CardEnc, EncType
from pysat.formula import IDPool
from pysat.solvers import Solver

from gossipcert import graphs
from gossipcert.closed_forms.base import _memo
from gossipcert.errors import GossipcertError, NotApplicableError
from gossipcert.graphs.specs import factor_specs
from gossipcert.instance import Instance
from gossipcert.interrupts import pysat_handler_off

__all__ = [
    "SAT_CONFLICT_BUDGET",
    "SAT_MAX_NODES",
    "hamiltonian_cycle",
    "is_hamiltonian_cycle",
]

#: Largest graph handed to the SAT model when no structure gives a cycle.
SAT_MAX_NODES: int = 512
#: Conflicts the SAT solver may spend before the search is given up as undecided.
SAT_CONFLICT_BUDGET: int = 200_000
#: The bounds: largest graph on which a Hamiltonian cycle is searched for by
#: rotation-extension (larger ones: known families).
HAMILTONIAN_SEARCH_MAX_NODES: int = 2048
#: Rotation-extension steps per node (plus a constant) before that search gives up.
HAMILTONIAN_STEPS_PER_NODE: int = 40
#: The bounds: graphs up to this size are decided by the SAT model (within the budget below).
HAMILTONIAN_EXHAUSTIVE_MAX_NODES: int = 64
#: The bounds: conflicts the SAT model may spend before it gives up.
HAMILTONIAN_SEARCH_BUDGET: int = 100_000


def is_hamiltonian_cycle(graph: nx.Graph, order: Sequence[int]) -> bool:
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
    parts = factor_specs(spec)
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


@pysat_handler_off()  # PySAT takes no SIGINT itself
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
        status = solver.solve_limited()  # Ctrl-C: raised when it returns
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


def hamiltonian_cycle(
    graph: nx.Graph,
    *,
    max_sat_nodes: int = SAT_MAX_NODES,
    conflict_budget: int = SAT_CONFLICT_BUDGET,
    max_search_nodes: int = 0,
) -> list[int]:
    """A Hamiltonian cycle of ``graph`` as a node order.

    Rings, complete graphs, hypercubes (Gray code) and products, tori and meshes of such
    factors get a cycle from their structure; any other graph goes to a SAT model after
    cheap necessary conditions (minimum degree 2, biconnected, equal sides if bipartite);
    a cycle graph is walked around.
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
    max_search_nodes : int
        Give graphs of up to this many nodes that the SAT model does not decide (too large,
        or out of its budget) to rotation-extension (0: none).

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
    if found is not None and found[1] and is_hamiltonian_cycle(graph, found[0]):
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
    if graph.number_of_edges() == n * (n - 1) // 2:  # complete
        return list(range(n))
    if all(d == 2 for _, d in graph.degree()):  # connected: a cycle, walked around
        return _walk_around(graph)
    undecided = None
    if n <= max_sat_nodes:
        try:
            cycle = _sat_cycle(graph, conflict_budget)
        except NotApplicableError as exc:
            undecided = exc
        else:
            if cycle is None:
                raise NotApplicableError(
                    f"{spec} has no Hamiltonian cycle (SAT model unsatisfiable)"
                )
            return cycle
    if n <= max_search_nodes:
        order = _rotation_extension(graph, HAMILTONIAN_STEPS_PER_NODE * n + 10_000)
        if order is not None and is_hamiltonian_cycle(graph, order):
            return order
    if undecided is not None:
        raise undecided
    raise NotApplicableError(
        f"no Hamiltonian cycle is known for {spec} from its structure, and with {n} nodes "
        f"it is larger than the SAT search limit of {max_sat_nodes}"
    )


def _walk_around(graph: nx.Graph) -> list[int]:
    """The nodes of a connected graph whose every node has degree 2, in cycle order."""
    order, previous = [0], -1
    while len(order) < graph.number_of_nodes():
        here = order[-1]
        step = next(w for w in sorted(graph[here]) if w != previous)
        previous = here
        order.append(step)
    return order


def _hamiltonian_cycle_of(g: nx.Graph) -> list[int] | None:
    """A Hamiltonian cycle of ``g`` for the bounds (verified), or None if none was found:
    :func:`hamiltonian_cycle` with the SAT model on graphs of up to
    :data:`HAMILTONIAN_EXHAUSTIVE_MAX_NODES` nodes and rotation-extension on graphs of up to
    :data:`HAMILTONIAN_SEARCH_MAX_NODES`."""
    if g.number_of_nodes() < 3:
        return None
    try:
        return hamiltonian_cycle(
            g,
            max_sat_nodes=HAMILTONIAN_EXHAUSTIVE_MAX_NODES,
            conflict_budget=HAMILTONIAN_SEARCH_BUDGET,
            max_search_nodes=HAMILTONIAN_SEARCH_MAX_NODES,
        )
    except NotApplicableError:
        return None


def _hamiltonian(instance: Instance) -> bool:
    """Whether a Hamiltonian cycle of the instance's graph was found (``n >= 3``)."""
    return bool(
        _memo(
            instance,
            "hamiltonian",
            lambda: _hamiltonian_cycle_of(instance.graph) is not None,
        )
    )
