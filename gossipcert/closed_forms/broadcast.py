"""Lower bounds for single-packet broadcast (one source or several) in the one-port models.

Both bounds apply to instances with one packet under telephone, half-duplex or single-port
rules (any packet cap, any limit on calls per round): in each of them a node that knows
the packet passes it to at most one neighbour per round. Write ``S`` for the holders,
``dist(v)`` for the distance from ``S`` to ``v``, ``A_j`` for the nodes at distance ``j``
and ``tau(v)`` for the round in which ``v`` is informed. In every schedule each informed
non-holder has one *informer*; following informers back from ``v`` gives a walk from
``S`` to ``v`` (its *informing chain*), and the nodes whose chain passes through ``x``
form the *subtree* of ``x``. A node informed in round ``r`` has a subtree of at most
``2^(R - r)`` nodes after round ``R`` (its informed part at most doubles per round).

``broadcast-layers`` (distance layers, a Fraigniaud--Lazard-type bound in the spirit of
the ``d+`` bound of Ivanova, Haugland and Tvedt [2]): for ``d >= 1`` let ``K_d`` be the
number of demanding nodes at distance ``>= d`` and, for ``w`` in ``A_{d-1}``, ``c_w`` the
number of neighbours of ``w`` in ``A_d``. Then::

    K_d <= sum over w in A_{d-1} of  sum_{j=1}^{min(c_w, R-d+1)} 2^(R-d+1-j).

Argument: along the informing chain of a node ``v`` with ``dist(v) >= d`` the distance
changes by at most one per step, so the first chain node ``x`` with ``dist(x) >= d`` is in
``A_d`` and its informer ``w`` in ``A_{d-1}``; ``v`` is in the subtree of ``x``. A node
``w`` informs its children in ``A_d`` in distinct rounds, all after round
``tau(w) >= d - 1``, at most ``c_w`` of them, so their subtrees hold at most the inner sum.
The bound is the least ``R`` (at least the eccentricity of ``S``) satisfying the
inequality for every ``d``; ``d = 1`` is the doubling bound with the sources' degrees
taken into account, and the largest ``d`` gives the distance bound.

``broadcast-cut`` (subtrees behind a cut vertex): let ``v`` be a cut vertex and
``C_1, ..., C_k`` the components of ``G - v`` that hold no source, and let ``b_i`` be a
lower bound on the time to broadcast in the graph induced by ``C_i + v`` from ``v`` alone.
Then ``R >= dist(v) + max_i (i - 1 + b_i)`` with the ``b_i`` in decreasing order. Argument:
nothing in ``C_i`` is informed before ``v`` calls into ``C_i``, and ``v`` makes its first
calls into the ``k`` components in distinct rounds after ``tau(v) >= dist(v)``; if the first
call into ``C_i`` is ``v``'s ``j``-th round after ``tau(v)``, the schedule restricted to the
edges of ``C_i + v`` is a broadcast from ``v`` whose first ``j - 1`` rounds are empty, so
``R - tau(v) - (j - 1) >= b_i``; giving the larger ``b_i`` the earlier ranks minimizes the
maximum. ``b_i`` is the exact broadcast time when ``C_i + v`` is a tree (the classical
recursion ``t(u) = max_i (i + t(c_i))`` over the children sorted by decreasing ``t`` [1]),
and the ``broadcast-layers`` value from ``v`` otherwise.

Both stay linear-time on large graphs: capacities are computed for at most 40 remaining
rounds (beyond, a subtree is taken as unrestricted, which only weakens the bound), and the
cut vertices are examined nearest the sources first until a fixed number of node visits is
spent (the bound is a maximum over cut vertices, so fewer of them only weakens it; the count
keeps the value the same on every machine).

References
----------
.. [1] P. J. Slater, E. J. Cockayne and S. T. Hedetniemi, "Information dissemination in
   trees", SIAM Journal on Computing 10(4) (1981) 692-701 (broadcast time of a tree).
.. [2] M. Ivanova, D. Haugland and B. H. Tvedt, "Strong bounds and exact solutions to the
   minimum broadcast time problem", International Transactions in Operational Research
   (arXiv:2107.06359), section on lower bounds (``d+(G, S)``, generalizing Fraigniaud and
   Lazard).
.. [3] P. Fraigniaud and E. Lazard, "Methods and problems of communication in usual
   networks", Discrete Applied Mathematics 53 (1994) 79-133.
"""

from __future__ import annotations

from collections import deque

import networkx as nx

from gossipcert.closed_forms.base import _LOWER, Bound
from gossipcert.instance import Instance

_IH = "Ivanova-Haugland-Tvedt (d+ type), Fraigniaud-Lazard"
#: subtree capacities are computed for at most this many rounds (beyond: no restriction)
_HORIZON = 40
#: node visits spent on the components behind cut vertices (a count, so that the value
#: is the same on every machine)
_CUT_BUDGET = 50_000


def _applies(instance: Instance) -> bool:
    # a node passes the packet to at most one neighbour per round (any packet cap, any call
    # limit): the one-port models every broadcast argument here needs
    return instance.n_packets == 1 and instance.model.informs_one


def one_packet_view(instance: Instance) -> tuple[list[list[int]], list[int], list[bool]] | None:
    """``(neighbours, sources, demands)`` of a one-packet instance under a one-port model
    (a node passes the packet to at most one neighbour per round); None otherwise.

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> one_packet_view(parse_instance("path:3", "telephone", "broadcast:0"))
    ([[1], [0, 2], [1]], [0], [True, True, True])
    """
    if not _applies(instance):
        return None
    n = instance.n
    nbrs = [list(instance.graph.adj[v]) for v in range(n)]
    sources = [v for v in range(n) if instance.holdings[v] & 1]
    demand = [bool(instance.demands[v] & 1) for v in range(n)]
    return nbrs, sources, demand


def source_distances(nbrs: list[list[int]], sources: list[int]) -> list[int]:
    """Distances from the set ``sources`` (``-1``: out of reach).

    Examples
    --------
    >>> source_distances([[1], [0, 2], [1], []], [0])
    [0, 1, 2, -1]
    """
    n = len(nbrs)
    dist = [-1] * n
    queue = deque(sources)
    for s in sources:
        dist[s] = 0
    while queue:
        u = queue.popleft()
        for w in nbrs[u]:
            if dist[w] < 0:
                dist[w] = dist[u] + 1
                queue.append(w)
    return dist


def far_counts(dist: list[int], demand: list[bool]) -> list[int]:
    """``out[d]`` for ``1 <= d <= ecc``: the demanding nodes at distance ``>= d`` from the
    holders (``out[0]`` and ``out[ecc + 1]`` are 0); empty when no demanding node is beyond
    the holders.

    Examples
    --------
    >>> far_counts([0, 1, 2, 2, -1], [True] * 5)
    [0, 3, 2, 0]
    """
    far = [d for d, want in zip(dist, demand, strict=True) if want and d > 0]
    if not far:
        return []
    ecc = max(far)
    out = [0] * (ecc + 2)
    for d in far:
        out[d] += 1
    for d in range(ecc - 1, 0, -1):
        out[d] += out[d + 1]
    return out


def subtree_capacities(nbrs: list[list[int]], horizon: int, cap: int) -> list[list[int]]:
    """``U[T][v]``: at most this many nodes (capped at ``cap``) in the subtree of a non-holder
    ``v`` informed with ``T`` rounds to go (see the module docstring).

    Examples
    --------
    >>> subtree_capacities([[1], [0, 2], [1]], 2, 100)  # the path 0-1-2
    [[1, 1, 1], [1, 2, 1], [1, 2, 1]]
    """
    n = len(nbrs)
    table = [[1] * n]
    best = [[1] * n]  # best[T][v]: max over the neighbours x of v of U[T][x]
    best[0] = [1 if nbrs[v] else 0 for v in range(n)]
    for t in range(1, horizon + 1):
        row = []
        prev = table[t - 1]
        for v in range(n):
            slots = min(len(nbrs[v]) - 1, t)
            if slots <= 0:
                row.append(1)
                continue
            by_slot = sum(best[t - j][v] for j in range(1, slots + 1))
            by_child = sum(sorted((prev[x] for x in nbrs[v]), reverse=True)[:slots])
            row.append(min(1 + min(by_slot, by_child), cap))
        table.append(row)
        best.append([max((row[x] for x in nbrs[v]), default=0) for v in range(n)])
    return table


def layers_value(nbrs: list[list[int]], sources: list[int], demand: list[bool]) -> int:
    """The ``broadcast-layers`` value (see the module docstring) of a graph given by its
    adjacency lists; nodes out of reach of ``sources`` are ignored.

    Examples
    --------
    >>> layers_value([[1, 2, 3], [0], [0], [0]], [0], [True] * 4)  # the star K_{1,3}
    3
    """
    dist = source_distances(nbrs, sources)
    n = len(nbrs)
    ecc = max((dist[v] for v in range(n) if demand[v] and dist[v] >= 0), default=0)
    if ecc == 0:
        return 0
    beyond = [0] * (ecc + 2)  # K_d: demanding nodes at distance >= d
    for v, d in enumerate(dist):
        if d >= 0 and demand[v]:
            beyond[min(d, ecc)] += 1
    for d in range(ecc - 1, -1, -1):
        beyond[d] += beyond[d + 1]
    holder = [d == 0 for d in dist]
    # for w in A_{d-1}: its slots (children in A_d) and those children
    parents: list[list[tuple[int, list[int]]]] = [[] for _ in range(ecc + 1)]
    for w, d in enumerate(dist):
        if 0 <= d < ecc:
            kids = [x for x in nbrs[w] if dist[x] == d + 1]
            slots = min(len(kids), len(nbrs[w]) - (0 if holder[w] else 1))
            if slots > 0:
                parents[d + 1].append((slots, kids))
    cap = beyond[1] + 1

    # capacities beyond _HORIZON rounds are taken as ``cap`` (no restriction): keeps the
    # work linear in n on graphs of large eccentricity
    known = subtree_capacities(nbrs, min(ecc, _HORIZON), cap)
    unlimited = [cap] * n

    def fits(r: int) -> bool:
        nonlocal known
        if len(known) <= min(r, _HORIZON):
            known = subtree_capacities(nbrs, min(2 * r, _HORIZON), cap)
        table = [known[t] if t < len(known) else unlimited for t in range(r + 1)]
        for d in range(1, ecc + 1):
            span = r - d + 1
            total = 0
            for slots, kids in parents[d]:
                k = min(slots, span)
                by_slot = sum(max(table[span - j][x] for x in kids) for j in range(1, k + 1))
                by_child = sum(sorted((table[span - 1][x] for x in kids), reverse=True)[:k])
                total += min(by_slot, by_child)
                if total >= beyond[d]:
                    break
            if beyond[d] > total:
                return False
        return True

    r = ecc
    while not fits(r):
        r += 1
    return r


def broadcast_layers_bound(instance: Instance) -> Bound | None:
    """The distance-layer bound for one-packet instances (see the module docstring).

    Parameters
    ----------
    instance : Instance

    Returns
    -------
    Bound or None
        None unless the instance has one packet and a one-port model.

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> broadcast_layers_bound(parse_instance("star:5", "telephone", "broadcast:0")).value
    4
    >>> broadcast_layers_bound(parse_instance("path:9", "telephone", "broadcast:4,5")).value
    4
    """
    view = one_packet_view(instance)
    if view is None:
        return None
    value = layers_value(*view)
    return Bound(
        "broadcast-layers",
        _LOWER,
        value,
        f"{_IH}: the nodes beyond distance d hang below arcs from layer d-1, each subtree "
        "at most doubling per round",
    )


def tree_broadcast_time(nbrs: list[list[int]], root: int, inside: set[int]) -> int:
    """Broadcast time of the tree induced by ``inside`` from ``root`` (Slater et al.).

    Examples
    --------
    >>> tree_broadcast_time([[1, 2], [0, 3], [0], [1]], 0, {0, 1, 2, 3})
    2
    """
    parent = {root: -1}
    order = [root]
    for u in order:
        for w in nbrs[u]:
            if w in inside and w not in parent:
                parent[w] = u
                order.append(w)
    times: dict[int, list[int]] = {u: [] for u in order}
    value = 0
    for u in reversed(order):
        kids = sorted(times[u], reverse=True)
        value = max((i + 1 + t for i, t in enumerate(kids)), default=0)
        if parent[u] >= 0:
            times[parent[u]].append(value)
    return value


def _component_time(nbrs: list[list[int]], v: int, comp: set[int]) -> int:
    inside = comp | {v}
    edges = sum(1 for u in inside for w in nbrs[u] if w in inside) // 2
    if edges == len(inside) - 1:
        return tree_broadcast_time(nbrs, v, inside)
    index = {u: i for i, u in enumerate(sorted(inside))}
    sub = [[index[w] for w in nbrs[u] if w in inside] for u in sorted(inside)]
    return layers_value(sub, [index[v]], [True] * len(sub))


def broadcast_cut_bound(instance: Instance) -> Bound | None:
    """The subtree bound at cut vertices for one-packet broadcast (module docstring).

    Parameters
    ----------
    instance : Instance

    Returns
    -------
    Bound or None
        None unless one packet, a one-port model and every node demanding the packet.

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> # a leaf of the star K_{1,4}: one round to the centre, then one per other leaf
    >>> broadcast_cut_bound(parse_instance("star:5", "telephone", "broadcast:1")).value
    4
    """
    if not _applies(instance) or not all(d & 1 for d in instance.demands):
        return None
    g = instance.graph
    n = instance.n
    nbrs = [list(g.adj[v]) for v in range(n)]
    sources = [v for v in range(n) if instance.holdings[v] & 1]
    dist = source_distances(nbrs, sources)
    best = 0
    spent = 0
    # cut vertices nearest the sources first; stop when the budget of node visits is spent
    for v in sorted(nx.articulation_points(g), key=lambda x: (dist[x], x)):
        if spent > _CUT_BUDGET:
            break
        times: list[int] = []
        seen = {v}
        for start in nbrs[v]:
            if start in seen:
                continue
            comp = {start}
            queue = deque([start])
            seen.add(start)
            while queue:
                u = queue.popleft()
                for w in nbrs[u]:
                    if w not in seen:
                        seen.add(w)
                        comp.add(w)
                        queue.append(w)
            spent += len(comp)
            if any(instance.holdings[u] & 1 for u in comp):
                continue
            times.append(_component_time(nbrs, v, comp))
        if times:
            times.sort(reverse=True)
            best = max(best, dist[v] + max(i + t for i, t in enumerate(times)))
    return Bound(
        "broadcast-cut",
        _LOWER,
        best,
        "Slater-Cockayne-Hedetniemi (trees), generalized: a cut vertex serves the "
        "source-free components behind it one first call per round",
    )
