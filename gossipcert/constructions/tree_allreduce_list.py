"""Allreduce on any fabric: a reduce tree and a broadcast tree a chunk, list-scheduled.

Every chunk is reduced up a spanning in-tree towards a root (a node sends its partial
result, its own contribution and its subtree's, once all its children have sent theirs:
``op: reduce``, nothing counted twice) and sent down a spanning out-tree from it (``op:
copy``); a router may be the root or an inner node (the model lets any node combine, as a
switch with in-network reduction does). The trees are breadth-first from the root, each
parent taken along the arc least loaded so far (load over capacity), so that the chunks
spread over parallel links, and the root is the node of least eccentricity (a switch, on the
multi-chassis machines). The transmissions are list-scheduled round by round: every arc
takes up to its capacity of those whose predecessors are done, the longest chains to the end
first (a reduce far from the root before one near it, a broadcast with a deep subtree before
a leaf), then the earlier chunk.

This is the non-translated counterpart of
:mod:`gossipcert.constructions.translated_allreduce`, for the machines: on NDv2 chassis
behind one switch every chunk crosses each chassis' NIC once up and once down, and the
schedule keeps those links busy. It is an upper bound like any other, replayed by the
verifier and compared with the allreduce bounds.

References
----------
.. [1] R. L. Graham et al., "Scalable Hierarchical Aggregation Protocol (SHArP)", COMHPC 2016
   (reduction trees through switches).
.. [2] T. C. Hu, "Parallel sequencing and assembly line problems", Operations Research 9
   (1961) (highest level first).
"""

from __future__ import annotations

import heapq

import networkx as nx

from gossipcert import graphs
from gossipcert.constructions.collectives import _arc_capacity, _require_all_port
from gossipcert.errors import NotApplicableError
from gossipcert.instance import Instance, ProblemKind
from gossipcert.schedule import Round, Schedule, Transmission

__all__ = ["tree_list_allreduce"]

#: most transmissions list-scheduled (2 (nodes - 1) chunks)
MAX_JOBS = 400_000


def _tree(
    instance: Instance, root: int, allowed: nx.Graph, load: dict, inward: bool
) -> dict[int, int]:
    """A breadth-first tree at ``root`` in the graph ``allowed`` (parent pointers), each
    parent on the arc least loaded so far relative to its capacity; the arcs point to the
    root when ``inward``."""
    dist = nx.single_source_shortest_path_length(allowed, root)
    order = sorted((v for v in dist if v != root), key=lambda v: (dist[v], v))
    parent = {}
    for v in order:
        ups = sorted(u for u in allowed.adj[v] if dist[u] == dist[v] - 1)

        def cost(u: int, v: int = v) -> tuple[float, int]:
            arc = (v, u) if inward else (u, v)
            return load.get(arc, 0) / _arc_capacity(instance, *arc), u

        u = min(ups, key=cost)
        parent[v] = u
        arc = (v, u) if inward else (u, v)
        load[arc] = load.get(arc, 0) + 1
    return parent


def _switch(instance: Instance) -> tuple[int | None, list[list[int]]]:
    """The switch (the router of least eccentricity) and, per chassis (a component of the
    graph without it), its routers that link to the switch (its NICs); ``(None, [])`` on a
    graph without routers."""
    g = instance.graph
    routers = graphs.routers(g)
    if not routers:
        return None, []
    ecc = nx.eccentricity(g)
    switch = min(routers, key=lambda v: (ecc[v], v))
    rest = g.subgraph(v for v in g if v != switch)
    entries = []
    for part in nx.connected_components(rest):
        nics = sorted(v for v in part if g.has_edge(v, switch) and graphs.is_router(g, v))
        entries.append(nics)
    return switch, [e for e in entries if e]


def _needed(instance: Instance, parent: dict[int, int], root: int) -> set[int]:
    """The tree's nodes that lead to a processor (routers that do not are left out)."""
    keep: set[int] = set()
    for v in graphs.processors(instance.graph):
        while v != root and v not in keep:
            keep.add(v)
            v = parent[v]
    return keep


def tree_list_allreduce(instance: Instance) -> Schedule:
    """The list-scheduled tree allreduce of the module docstring.

    Parameters
    ----------
    instance : Instance
        ``allreduce`` (any ``chunks=K``, either operator), all-port; routers allowed.

    Returns
    -------
    Schedule
        Unverified (callers replay it).

    Raises
    ------
    NotApplicableError
        Another problem or model, or too many transmissions to schedule.

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> from gossipcert.simulate import simulate
    >>> inst = parse_instance("dgx2", "all-port", "allreduce:chunks=2")
    >>> simulate(inst, tree_list_allreduce(inst)).rounds  # through the switch: 16 K + 1
    33
    """
    _require_all_port(instance, "the tree allreduce")
    if instance.problem.kind is not ProblemKind.ALLREDUCE:
        raise NotApplicableError("the tree allreduce is a schedule for allreduce")
    g = instance.graph
    n = instance.n
    chunks = instance.n_packets
    if 2 * (n - 1) * chunks > MAX_JOBS:
        raise NotApplicableError(f"the tree allreduce schedules at most {MAX_JOBS} jobs")
    switch, entries = _switch(instance)

    load: dict[tuple[int, int], int] = {}
    jobs: list[tuple[int, int, int, str, list[int], int]] = []
    for c in range(chunks):
        if switch is None:  # no switch: every chunk at a node of its own, in turn
            root, allowed = graphs.processors(g)[c % len(graphs.processors(g))], g
        else:  # one NIC a chassis, in turn, and the switch at the root
            open_nics = {nics[c % len(nics)] for nics in entries}
            shut = [v for nics in entries for v in nics if v not in open_nics]
            root, allowed = switch, g.subgraph(v for v in range(n) if v not in shut)
        up = _tree(instance, root, allowed, load, inward=True)
        down = _tree(instance, root, allowed, load, inward=False)
        _add_jobs(jobs, instance, c, root, up, down)
    rounds_of = _schedule(instance, jobs)
    last = max(rounds_of, default=0)
    sends: list[dict[tuple[int, int, str], int]] = [{} for _ in range(last + 1)]
    for j, (u, v, c, op, _, _) in enumerate(jobs):
        arcs = sends[rounds_of[j]]
        arcs[u, v, op] = arcs.get((u, v, op), 0) | 1 << c
    rounds: list[Round] = [
        tuple(Transmission(u, (v,), mask, op) for (u, v, op), mask in sorted(arcs.items()))
        for arcs in sends[1:]
    ]
    return Schedule(tuple(rounds))


def _add_jobs(
    jobs: list[tuple[int, int, int, str, list[int], int]],
    instance: Instance,
    chunk: int,
    root: int,
    up: dict[int, int],
    down: dict[int, int],
) -> None:
    """The reduce and broadcast transmissions of one chunk: ``(sender, receiver, chunk, op,
    the jobs it waits for, level)``."""
    keep_up = _needed(instance, up, root)
    keep_down = _needed(instance, down, root)
    kids: dict[int, list[int]] = {}
    for v in keep_up:
        kids.setdefault(up[v], []).append(v)
    below: dict[int, list[int]] = {}
    for v in keep_down:
        below.setdefault(down[v], []).append(v)
    height: dict[int, int] = {}
    stack = [root]
    order = []
    while stack:
        v = stack.pop()
        order.append(v)
        stack.extend(below.get(v, []))
    for v in reversed(order):
        height[v] = 1 + max((height[w] for w in below.get(v, [])), default=0)
    depth: dict[int, int] = {}
    for v in keep_up:
        d, w = 0, v
        while w != root:
            w = up[w]
            d += 1
        depth[v] = d
    reduce_job: dict[int, int] = {}
    for v in sorted(keep_up, key=lambda v: -depth[v]):
        waits = [reduce_job[c] for c in kids.get(v, [])]
        reduce_job[v] = len(jobs)
        jobs.append((v, up[v], chunk, "reduce", waits, depth[v] + height[root] - 1))
    complete = [reduce_job[c] for c in kids.get(root, [])]
    bcast_job: dict[int, int] = {}
    for v in order[1:]:  # parents before children
        waits = complete if down[v] == root else [bcast_job[down[v]]]
        bcast_job[v] = len(jobs)
        jobs.append((down[v], v, chunk, "copy", waits, height[v]))


def _schedule(
    instance: Instance, jobs: list[tuple[int, int, int, str, list[int], int]]
) -> dict[int, int]:
    """Each job's round: every arc takes up to its capacity of the ready jobs a round, the
    highest level first, then the earlier chunk."""
    waiting = [len(job[4]) for job in jobs]
    after: list[list[int]] = [[] for _ in jobs]
    for j, job in enumerate(jobs):
        for w in job[4]:
            after[w].append(j)
    ready: dict[tuple[int, int], list[tuple[int, int, int]]] = {}
    for j, job in enumerate(jobs):
        if not waiting[j]:
            heapq.heappush(ready.setdefault((job[0], job[1]), []), (-job[5], job[2], j))
    round_of: dict[int, int] = {}
    t = 0
    while len(round_of) < len(jobs):
        t += 1
        taken = []
        for arc, heap in ready.items():
            for _ in range(_arc_capacity(instance, *arc)):
                if not heap:
                    break
                taken.append(heapq.heappop(heap)[2])
        if not taken:  # pragma: no cover - a job waits only for earlier jobs of its chunk
            raise NotApplicableError("the tree allreduce's jobs wait for each other")
        for j in taken:
            round_of[j] = t
        for j in taken:
            for x in after[j]:
                waiting[x] -= 1
                if not waiting[x]:
                    job = jobs[x]
                    heapq.heappush(ready.setdefault((job[0], job[1]), []), (-job[5], job[2], x))
    return round_of
