"""Allgather on a Cayley graph: one pipelined broadcast, translated to every source.

A ring, a torus, a hypercube and a complete graph are Cayley graphs of an abelian group
``G`` on their nodes (``Z_n``, ``Z_a x Z_b``, ``Z_2^k``, ``Z_n``): node ``v`` is joined to
``v + s`` for every *generator* ``s`` of a set ``S = -S``, and the translations ``x -> x + g``
are automorphisms that keep every arc's generator. An allgather of ``K`` chunks a node is
then ``n`` copies of one broadcast: take a schedule that broadcasts the chunks ``(0, k)`` of
node ``0``, and let every node ``g`` run it translated by ``g`` (node ``u + g`` sends chunk
``(g, k)`` to ``u + s + g`` in the round in which ``u`` sent ``(0, k)`` to ``u + s``). In one
round the arc ``x -> x + s`` then carries one chunk for every transmission of the base
broadcast along generator ``s`` in that round, whatever ``x``; so the translated schedule
is valid under all-port exactly when the base broadcast uses every generator ``s`` at most
``c(s)`` times a round *in total* (``c(s)`` the capacity of the arcs of ``s``), and it takes
as many rounds as the base broadcast.

The base broadcast has ``(n - 1) K`` receipts and at most ``sum_s c(s)`` a round, which is
the cut bound of one node, ``ceil((n - 1) K / in(v))`` (:mod:`gossipcert.closed_forms.cuts`).
It is found here by the greedy routing of :mod:`gossipcert.constructions.machines` on this
smaller problem: the demands ``(v, k)`` are taken in a priority order (farthest first, then
chunk by chunk, and a few others; the shortest result is kept) and each gets the
earliest-arrival route from every node that holds ``(0, k)`` already, in which a generator is
usable in a round while it has fewer than ``c(s)`` transmissions then. The search handles
``(n - 1) K`` demands where routing the allgather itself would handle ``n (n - 1) K``, so it
reaches 64 chunks on 64 nodes (the symmetry: the ``n`` sources' broadcasts are one orbit,
and every chunk is handled alike). This is the translation argument of the
bandwidth-optimal ring allgather (the bidirectional ring: ``ceil((n - 1) K / 2)`` rounds,
each node's chunks split between the two directions [1]_) and of the edge-disjoint spanning
trees of Johnsson and Ho on hypercubes [2]_, made into a schedule by the search; whether it
meets the cut bound is checked by the verifier and the bound, never assumed.

The group is recognised from the graph's spec (``ring:N``, ``torus:AxB``, ``hypercube:K``,
``complete:N``) and every translation is checked to be an automorphism of the graph as it is
(edges and capacities), so an edited graph is refused.

References
----------
.. [1] P. Patarasuk and X. Yuan, "Bandwidth optimal all-reduce algorithms for clusters of
   workstations", J. Parallel Distrib. Comput. 69 (2009) (the ring allgather, both ways).
.. [2] S. L. Johnsson and C.-T. Ho, "Optimum broadcasting and personalized communication in
   hypercubes", IEEE Transactions on Computers 38(9) (1989) 1249-1268.
.. [3] N. Biggs, *Algebraic Graph Theory*, 2nd ed., 1993 (Cayley graphs, translations).
"""

from __future__ import annotations

import heapq
from collections.abc import Callable
from dataclasses import dataclass

import networkx as nx

from gossipcert import graphs
from gossipcert.constructions.collectives import _arc_capacity, _require_all_port
from gossipcert.errors import NotApplicableError
from gossipcert.instance import Instance, ProblemKind
from gossipcert.schedule import Round, Schedule, Transmission

__all__ = ["OrbitPlan", "Translations", "orbit_allgather", "translated_allgather", "translations"]

#: most base demands ``(n - 1) K`` the greedy routes (a search a demand)
MAX_BASE_DEMANDS = 50_000


@dataclass(frozen=True)
class Translations:
    """An abelian group on the nodes whose translations are automorphisms.

    Attributes
    ----------
    add : callable
        ``add(x, g)``: node ``x`` translated by ``g`` (``add(0, g) == g``).
    sub : callable
        ``sub(y, x)``: the ``g`` with ``add(x, g) == y``.
    """

    add: Callable[[int, int], int]
    sub: Callable[[int, int], int]


def _group(spec: str, n: int) -> Translations | None:
    """The group a family spec names, or None."""
    name, _, args = spec.strip().lower().partition(":")
    try:
        if name in ("ring", "complete"):
            size = int(args)
            return Translations(lambda x, g: (x + g) % size, lambda y, x: (y - x) % size)
        if name == "hypercube":
            return Translations(lambda x, g: x ^ g, lambda y, x: y ^ x)
        if name == "torus":
            a, b = (int(v) for v in args.split("x"))

            def add(x: int, g: int) -> int:
                return ((x // b + g // b) % a) * b + (x + g) % b

            def sub(y: int, x: int) -> int:
                return ((y // b - x // b) % a) * b + (y - x) % b

            return Translations(add, sub)
    except ValueError:
        return None
    return None


def translations(graph: nx.Graph) -> Translations | None:
    """The translations of a ring, torus, hypercube or complete graph built from its spec,
    checked to be automorphisms (edges and capacities); None otherwise.

    Examples
    --------
    >>> from gossipcert.graphs import from_spec
    >>> t = translations(from_spec("torus:3x4"))
    >>> t.add(5, 7), t.sub(0, 5)
    (8, 11)
    >>> translations(from_spec("petersen")) is None
    True
    """
    spec = graph.graph.get("spec")
    n = graph.number_of_nodes()
    if not isinstance(spec, str) or "*" in spec or graphs.routers(graph):
        return None
    group = _group(spec, n)
    if group is None or sorted(graph.nodes) != list(range(n)):
        return None
    try:
        for g in range(n):
            for u, v, cap in graph.edges(data="capacity", default=1):
                x, y = group.add(u, g), group.add(v, g)
                if not graph.has_edge(x, y) or graph[x][y].get("capacity", 1) != cap:
                    return None
    except (IndexError, ZeroDivisionError):
        return None
    return group


class _Slots:
    """Per generator and round, the transmissions the committed routes make; the first
    round with a free slot from a given round on, by path-compressed jumps over full rounds.
    """

    def __init__(self, cap: dict[int, int]) -> None:
        self.cap = cap
        self.used: dict[tuple[int, int], int] = {}
        #: (generator, round) -> a later round to look at (the round is full)
        self.jump: dict[tuple[int, int], int] = {}

    def earliest(self, s: int, r: int) -> int:
        """The first round ``>= r`` in which generator ``s`` has a free slot."""
        path = []
        while (s, r) in self.jump:
            path.append(r)
            r = self.jump[s, r]
        for q in path:
            self.jump[s, q] = r
        return r

    def take(self, s: int, r: int) -> None:
        count = self.used.get((s, r), 0) + 1
        self.used[s, r] = count
        if count >= self.cap[s]:
            self.jump[s, r] = r + 1


def _earliest_route(
    nbrs: list[list[tuple[int, int]]],
    slots: _Slots,
    known: dict[int, int],
    target: int,
) -> list[tuple[int, int, int, int]]:
    """The earliest-arrival route to ``target`` from the nodes of ``known`` (node -> round
    it holds the chunk), a generator usable in a round while it has fewer than its capacity
    of transmissions then: its hops ``(sender, receiver, generator, round)``."""
    arrival = dict(known)
    came: dict[int, tuple[int, int, int]] = {}
    heap = [(t, v) for v, t in known.items()]
    heapq.heapify(heap)
    done: set[int] = set()
    while heap:
        t, v = heapq.heappop(heap)
        if v in done:
            continue
        done.add(v)
        if v == target:
            break
        for w, s in nbrs[v]:
            if w in done:
                continue
            r = slots.earliest(s, t + 1)
            if r < arrival.get(w, r + 1):
                arrival[w] = r
                came[w] = (v, s, r)
                heapq.heappush(heap, (r, w))
    hops = []
    v = target
    while v in came:
        u, s, r = came[v]
        hops.append((u, v, s, r))
        v = u
    return hops[::-1]


#: priority orders of the base demands, on (hops, chunk, node): farthest first, chunk by
#: chunk, and the reverse of each
ORDERS: tuple[Callable[[tuple[int, int, int]], tuple[int, ...]], ...] = (
    lambda f: (-f[0], f[1], f[2]),
    lambda f: (f[1], -f[0], f[2]),
    lambda f: (f[1], f[0], f[2]),
    lambda f: (-f[0], -f[1], f[2]),
)


class OrbitPlan:
    """What a group of automorphisms acting freely on the processors makes of an allgather:
    the base sources (one processor an orbit), each processor as the image of its source
    (``place[v] = (source, element)``), and the arcs' orbits with the capacity each base
    transmission in an orbit may use (an arc's capacity over its stabiliser's order: every
    translate of a base transmission lands on each arc of its orbit that many times).

    Parameters
    ----------
    instance : Instance
    group : list of list of int
        Every element of the group, as node permutations (the identity among them).

    Raises
    ------
    NotApplicableError
        An element fixes a processor without being the identity, or moves an arc to one of
        another capacity.
    """

    def __init__(self, instance: Instance, group: list[list[int]]) -> None:
        g = instance.graph
        n = instance.n
        procs = graphs.processors(g)
        identity = list(range(n))
        for perm in group:
            if perm != identity and any(perm[v] == v for v in procs):
                raise NotApplicableError("the group must move every processor")
        self.group = group
        self.place: dict[int, tuple[int, int]] = {}
        self.sources: list[int] = []
        for v in procs:
            if v in self.place:
                continue
            self.sources.append(v)
            for i, perm in enumerate(group):
                self.place[perm[v]] = (v, i)
        #: arc -> its orbit's id; orbit id -> base transmissions it takes a round
        self.orbit: dict[tuple[int, int], int] = {}
        self.cap: dict[int, int] = {}
        for a, b in g.edges():
            for u, w in ((a, b), (b, a)):
                if (u, w) in self.orbit:
                    continue
                key = len(self.cap)
                cap = _arc_capacity(instance, u, w)
                stabiliser = 0
                for perm in group:
                    image = (perm[u], perm[w])
                    if _arc_capacity(instance, *image) != cap:
                        raise NotApplicableError("the group must keep the capacities")
                    self.orbit[image] = key
                    stabiliser += image == (u, w)
                self.cap[key] = cap // stabiliser

    def base(self, instance: Instance, order: int) -> list[tuple[int, int, int, int, int]]:
        """One base broadcast from every source for a priority order of :data:`ORDERS`: its
        hops ``(sender, receiver, source, chunk, round)``."""
        g = instance.graph
        n = instance.n
        chunks = instance.problem.chunks
        procs = set(graphs.processors(g))
        nbrs = [[(w, self.orbit[v, w]) for w in sorted(g.adj[v])] for v in range(n)]
        key = ORDERS[order]
        demands: list[tuple[tuple[int, ...], int, int, int]] = []
        for u in self.sources:
            dist = nx.single_source_shortest_path_length(g, u)
            for v in procs:
                if v != u:
                    demands.extend((key((dist[v], k, v)), u, k, v) for k in range(chunks))
        demands.sort()
        slots = _Slots(self.cap)
        known: dict[tuple[int, int], dict[int, int]] = {}
        hops: list[tuple[int, int, int, int, int]] = []
        for _, u, k, v in demands:
            have = known.setdefault((u, k), {u: 0})
            if v in have:
                continue
            for a, b, s, r in _earliest_route(nbrs, slots, have, v):
                slots.take(s, r)
                have[b] = r
                hops.append((a, b, u, k, r))
        return hops


def orbit_allgather(instance: Instance, group: list[list[int]]) -> Schedule:
    """An allgather as base broadcasts, one from each orbit of ``group``, translated by
    every element (:class:`OrbitPlan`); the best of the priority orders.

    Parameters
    ----------
    instance : Instance
        ``gossip`` (allgather), any ``chunks=K``, all-port; routers allowed.
    group : list of list of int
        The elements of a group of automorphisms of the graph (capacities kept) that moves
        every processor.

    Returns
    -------
    Schedule
        Unverified (callers replay it).

    Raises
    ------
    NotApplicableError
        Another model or problem, a group that fixes a processor, or more than
        :data:`MAX_BASE_DEMANDS` base demands.
    """
    _require_all_port(instance, "the translated allgather")
    if instance.problem.kind is not ProblemKind.GOSSIP:
        raise NotApplicableError(
            f"the translated allgather is a schedule for gossip; got {instance.problem.spec()}"
        )
    plan = OrbitPlan(instance, group)
    g = instance.graph
    procs = graphs.processors(g)
    chunks = instance.problem.chunks
    if len(plan.sources) * (len(procs) - 1) * chunks > MAX_BASE_DEMANDS:
        raise NotApplicableError(
            f"the translated allgather routes more than {MAX_BASE_DEMANDS} base demands"
        )
    # a node receives (P - 1) K chunks, at most its in-capacity a round: no order does better
    floor = max(
        -(-(len(procs) - 1) * chunks // sum(_arc_capacity(instance, w, v) for w in g[v]))
        for v in procs
    )
    best: list[tuple[int, int, int, int, int]] | None = None
    for order in range(len(ORDERS)):
        hops = plan.base(instance, order)
        if best is None or max(h[4] for h in hops) < max(h[4] for h in best):
            best = hops
        if max((h[4] for h in best), default=0) <= floor:
            break
    assert best is not None
    ref = graphs.node_ref

    def bit(v: int, k: int) -> int:
        name = ref(g, v)
        return instance.packet_index((name, k) if chunks > 1 else name)

    last = max((h[4] for h in best), default=0)
    sends: list[dict[tuple[int, int], int]] = [{} for _ in range(last + 1)]
    for a, b, u, k, r in best:
        arcs = sends[r]
        for perm in group:
            arc = (perm[a], perm[b])
            arcs[arc] = arcs.get(arc, 0) | 1 << bit(perm[u], k)
    rounds: list[Round] = [
        tuple(Transmission(u, (w,), mask) for (u, w), mask in sorted(arcs.items()))
        for arcs in sends[1:]
    ]
    return Schedule(tuple(rounds))


def translated_allgather(instance: Instance) -> Schedule:
    """The allgather of the module docstring: the translations of a ring, torus, hypercube
    or complete graph as the group of :func:`orbit_allgather` (one base broadcast).

    Parameters
    ----------
    instance : Instance
        ``gossip`` (allgather), any ``chunks=K``, all-port, on a ring, torus, hypercube or
        complete graph built from its spec.

    Returns
    -------
    Schedule
        Unverified (callers replay it).

    Raises
    ------
    NotApplicableError
        Another model or problem, a graph that is not one of these Cayley graphs, or more
        than :data:`MAX_BASE_DEMANDS` base demands.

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> from gossipcert.simulate import simulate
    >>> inst = parse_instance("ring:8", "all-port", "gossip:chunks=3")
    >>> simulate(inst, translated_allgather(inst)).rounds  # ceil(7 * 3 / 2)
    11

    References
    ----------
    Patarasuk and Yuan (2009), the ring allgather; Johnsson and Ho (1989), hypercubes.
    """
    _require_all_port(instance, "the translated allgather")
    if instance.problem.kind is not ProblemKind.GOSSIP:
        raise NotApplicableError(
            f"the translated allgather is a schedule for gossip; got {instance.problem.spec()}"
        )
    group = translations(instance.graph)
    if group is None:
        raise NotApplicableError(
            "the translated allgather needs a ring, torus, hypercube or complete graph as its "
            "spec builds it"
        )
    n = instance.n
    return orbit_allgather(instance, [[group.add(x, g) for x in range(n)] for g in range(n)])
