"""Allreduce on a Cayley graph: one reduce tree and one broadcast tree a wave of chunks,
list-scheduled once and translated to every node.

On a ring, torus, hypercube or complete graph (the Cayley graphs of
:mod:`gossipcert.constructions.translated`, node ``v`` joined to ``v + s`` for every
generator ``s``), the ``n K`` chunks of an allreduce are ``K`` *waves* of ``n``: chunk
``(g, k)`` is chunk ``(0, k)`` translated by ``g``. A base pattern for chunk ``(0, k)`` is a
spanning in-tree towards node ``0`` (every node sends its partial result, its own
contribution and its subtree's, to its parent once all its children have sent theirs:
``op: reduce``, no contribution counted twice) followed by a spanning out-tree from ``0``
(``op: copy``). Translated by every ``g``, a base transmission along generator ``s`` in round
``t`` puts exactly one chunk on every arc of ``s`` in round ``t``; so the translated schedule
is valid under all-port when the base patterns of all waves together use every generator at
most ``c`` (its arcs' capacity) times a round.

Each pattern has ``2 (n - 1)`` transmissions, every chunk's ``2 n - 2`` receipts, which is
the receipts bound of :mod:`gossipcert.search.allreduce_bounds`: ``ceil(2 (n - 1) K / (|S| c))``
rounds at least. The schedule here tries to meet it:

- the trees are breadth-first (every node's parent one step nearer ``0``), each parent
  chosen along the generator used least so far over all trees, so that every generator
  carries about the same share;
- the base transmissions are list-scheduled round by round, each generator taking up to
  ``c`` of those whose predecessors are done (a reduce after its children's, a broadcast
  after its parent's, the first ones after the reduction is complete), the longest chains
  to the end first (a reduce far from the root before one near it, a broadcast with a
  deep subtree before a leaf), then the earlier wave.

Unlike a reduce-scatter followed by an allgather, the waves overlap: the broadcasts of an
early wave fill the rounds in which a later wave is still being reduced, so the two halves'
last, partly idle rounds are not both paid (on ``Q_3`` with four chunks a node, 19 rounds
against the composition's 20). Whether it meets the bound is checked, never assumed; the
schedule is replayed by the verifier.

References
----------
.. [1] P. Patarasuk and X. Yuan, "Bandwidth optimal all-reduce algorithms for clusters of
   workstations", JPDC 69 (2009) (the bound ``2 (n - 1) / n`` of the data a node sends).
.. [2] R. Thakur, R. Rabenseifner and W. Gropp, "Optimization of collective communication
   operations in MPICH", IJHPCA 19 (2005) (allreduce as reduce-scatter then allgather).
.. [3] T. C. Hu, "Parallel sequencing and assembly line problems", Operations Research 9
   (1961) (highest level first).
"""

from __future__ import annotations

import heapq

import networkx as nx

from gossipcert import graphs
from gossipcert.constructions.collectives import _require_all_port
from gossipcert.constructions.translated import OrbitPlan, translations
from gossipcert.errors import NotApplicableError
from gossipcert.instance import Instance, ProblemKind
from gossipcert.schedule import Round, Schedule, Transmission

__all__ = ["orbit_allreduce", "translated_allreduce"]

#: most base transmissions list-scheduled (2 (n - 1) K)
MAX_JOBS = 200_000


def _trees(
    root: int,
    nbrs: list[list[int]],
    gen: dict[tuple[int, int], int],
    dist: dict[int, int],
    count: int,
    load: dict[int, int],
) -> list[dict[int, int]]:
    """``count`` breadth-first parent maps towards ``root``, each parent on the generator (of
    the arc between the node and its parent) used least so far (``load``, updated)."""
    order = sorted((v for v in dist if v != root), key=lambda v: (dist[v], v))
    trees = []
    for _ in range(count):
        parent = {}
        for v in order:
            ups = [u for u in nbrs[v] if dist.get(u, -1) == dist[v] - 1]
            u = min(ups, key=lambda u: (load.get(gen[v, u], 0), gen[v, u]))
            parent[v] = u
            load[gen[v, u]] = load.get(gen[v, u], 0) + 1
        trees.append(parent)
    return trees


def translated_allreduce(instance: Instance) -> Schedule:
    """The translated allreduce of the module docstring.

    Parameters
    ----------
    instance : Instance
        ``allreduce`` (any ``chunks=K``, either operator), all-port, on a ring, torus,
        hypercube or complete graph as its spec builds it.

    Returns
    -------
    Schedule
        Unverified (callers replay it).

    Raises
    ------
    NotApplicableError
        Another problem or model, another graph, or too many chunks.

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> from gossipcert.simulate import simulate
    >>> inst = parse_instance("hypercube:3", "all-port", "allreduce:chunks=4")
    >>> simulate(inst, translated_allreduce(inst)).rounds  # ceil(2 * 7 * 4 / 3)
    19
    """
    _require_all_port(instance, "the translated allreduce")
    if instance.problem.kind is not ProblemKind.ALLREDUCE:
        raise NotApplicableError("the translated allreduce is a schedule for allreduce")
    group = translations(instance.graph)
    if group is None:
        raise NotApplicableError(
            "the translated allreduce needs a ring, torus, hypercube or complete graph"
        )
    n = instance.n
    return orbit_allreduce(instance, [[group.add(x, h) for x in range(n)] for h in range(n)])


def orbit_allreduce(instance: Instance, group: list[list[int]]) -> Schedule:
    """The allreduce of the module docstring for any group of automorphisms that moves every
    node (capacities kept): one base pattern a wave and orbit representative, list-scheduled
    with every arc orbit taking its capacity over its stabiliser's order a round, translated
    by every element.

    Parameters
    ----------
    instance : Instance
        ``allreduce``, any ``chunks=K``, all-port, no routers.
    group : list of list of int
        Every element, as node permutations (the identity among them).

    Returns
    -------
    Schedule
        Unverified (callers replay it).

    Raises
    ------
    NotApplicableError
        Another problem or model, routers, a group that fixes a node or changes a
        capacity, or too many jobs.
    """
    _require_all_port(instance, "the translated allreduce")
    if instance.problem.kind is not ProblemKind.ALLREDUCE:
        raise NotApplicableError("the translated allreduce is a schedule for allreduce")
    g = instance.graph
    n = instance.n
    if graphs.routers(g):
        raise NotApplicableError("the translated allreduce needs no routers")
    plan = OrbitPlan(instance, group)
    waves = instance.problem.chunks
    if 2 * (n - 1) * waves * len(plan.sources) > MAX_JOBS:
        raise NotApplicableError(f"the translated allreduce schedules at most {MAX_JOBS} jobs")
    nbrs = [sorted(g.adj[v]) for v in range(n)]
    load: dict[int, int] = {}
    jobs: list[_Job] = []
    for u in plan.sources:
        dist = nx.single_source_shortest_path_length(g, u)
        trees = _trees(u, nbrs, plan.orbit, dist, 2 * waves, load)
        jobs.extend(_jobs(trees, waves, plan.orbit, u, len(jobs)))
    rounds_of = _list_schedule(jobs, plan.cap)
    ref = graphs.node_ref

    def bit(v: int, k: int) -> int:
        return instance.packet_index((ref(g, v), k) if waves > 1 else ref(g, v))

    last = max(rounds_of.values(), default=0)
    sends: list[dict[tuple[int, int, str], int]] = [{} for _ in range(last + 1)]
    for job, (u, v, k, op, _, _, _, root) in enumerate(jobs):
        arcs = sends[rounds_of[job]]
        for perm in group:
            key = (perm[u], perm[v], op)
            arcs[key] = arcs.get(key, 0) | 1 << bit(perm[root], k)
    rounds: list[Round] = [
        tuple(Transmission(u, (v,), mask, op) for (u, v, op), mask in sorted(arcs.items()))
        for arcs in sends[1:]
    ]
    return Schedule(tuple(rounds))


#: a base transmission: sender, receiver, wave, op, generator (arc orbit), the jobs it waits
#: for, its level (the longest chain of jobs from it to the end, itself included) and the
#: root of its pattern (the orbit representative whose chunk it carries)
_Job = tuple[int, int, int, str, int, list[int], int, int]


def _jobs(
    trees: list[dict[int, int]],
    waves: int,
    gen: dict[tuple[int, int], int],
    root: int,
    offset: int,
) -> list[_Job]:
    """The base transmissions of every wave of ``root``'s chunks: a reduce tree, then a
    broadcast tree (job numbers from ``offset`` on)."""
    jobs: list[_Job] = []
    for k in range(waves):
        up, down = trees[2 * k], trees[2 * k + 1]
        kids: dict[int, list[int]] = {v: [] for v in (*up, root)}
        for v, u in up.items():
            kids[u].append(v)
        below: dict[int, list[int]] = {v: [] for v in (*down, root)}
        for v, u in down.items():
            below[u].append(v)
        height = _heights(below, root)
        depth_up = {v: _depth(up, v, root) for v in up}
        reduce_job: dict[int, int] = {}
        for v in sorted(up, key=lambda v: -depth_up[v]):  # children before parents
            waits = [reduce_job[c] for c in kids[v]]
            reduce_job[v] = offset + len(jobs)
            level = depth_up[v] + height[root] - 1
            jobs.append((v, up[v], k, "reduce", gen[v, up[v]], waits, level, root))
        complete = [reduce_job[c] for c in kids[root]]
        bcast_job: dict[int, int] = {}
        for v in sorted(down, key=lambda v: _depth(down, v, root)):  # parents first
            waits = complete if down[v] == root else [bcast_job[down[v]]]
            bcast_job[v] = offset + len(jobs)
            jobs.append((down[v], v, k, "copy", gen[down[v], v], waits, height[v], root))
    return jobs


def _heights(below: dict[int, list[int]], root: int) -> dict[int, int]:
    """Per node, the most nodes on a path down from it (itself included)."""
    out: dict[int, int] = {}
    order = [root]
    for v in order:
        order.extend(below[v])
    for v in reversed(order):
        out[v] = 1 + max((out[w] for w in below[v]), default=0)
    return out


def _depth(parent: dict[int, int], v: int, root: int) -> int:
    d = 0
    while v != root:
        v = parent[v]
        d += 1
    return d


def _list_schedule(jobs: list[_Job], cap: dict[int, int]) -> dict[int, int]:
    """Each job's round: round by round, every generator takes up to its capacity of the
    ready jobs, the highest level first, then the earlier wave."""
    waiting = [len(job[5]) for job in jobs]
    after: list[list[int]] = [[] for _ in jobs]
    for j, job in enumerate(jobs):
        for w in job[5]:
            after[w].append(j)
    ready: dict[int, list[tuple[int, int, int]]] = {s: [] for s in cap}
    for j, job in enumerate(jobs):
        if not waiting[j]:
            heapq.heappush(ready[job[4]], (-job[6], job[2], j))
    round_of: dict[int, int] = {}
    t = 0
    while len(round_of) < len(jobs):
        t += 1
        taken = []
        for s, heap in ready.items():
            for _ in range(cap[s]):
                if not heap:
                    break
                taken.append(heapq.heappop(heap)[2])
        if not taken:  # pragma: no cover - a job waits only for earlier jobs of its wave
            raise NotApplicableError("the translated allreduce's jobs wait for each other")
        for j in taken:
            round_of[j] = t
        for j in taken:
            for x in after[j]:
                waiting[x] -= 1
                if not waiting[x]:
                    heapq.heappush(ready[jobs[x][4]], (-jobs[x][6], jobs[x][2], x))
    return round_of
