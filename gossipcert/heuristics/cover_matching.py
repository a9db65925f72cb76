"""Heavy matchings of large graphs through an assignment problem on the double cover.

The *bipartite double cover* of a graph has a left and a right copy of every node and the
arcs ``u -> w`` and ``w -> u`` for every edge ``{u, w}``. Add the arc ``x -> x`` of cost 0 for
every node and give ``u -> w`` the cost ``-weight(u, w)``: a minimum-cost perfect assignment
``sigma`` (OR-Tools' linear sum assignment, a cost-scaling push-relabel algorithm) is then a
maximum-weight *2-matching* of the graph, a set of node-disjoint single edges (the 2-cycles
``u -> w -> u``) and cycles (the longer cycles of ``sigma``), each node unmatched where
``sigma(x) = x``. Its weight is twice the optimum of the matching polytope's
degree-constraint relaxation, hence at least twice the maximum matching's weight.

Rounding: a single edge is kept; an even cycle keeps the heavier of its two alternating
perfect matchings; an odd cycle of length ``k`` keeps the heaviest of its ``k`` matchings of
``(k - 1) / 2`` edges (one node left out). On a bipartite graph every cycle is even and
both alternations of a cycle in an optimal 2-matching weigh the same (else swapping the
lighter half for the heavier would beat the optimum), so the result is a maximum-weight
matching: exact, in the time of an assignment problem instead of Edmonds' blossoms. On other
graphs only the odd cycles lose weight, at most the lightest third of each; the heuristic
then improves the result locally (:func:`gossipcert.heuristics.pairing.improve_matching`).

Weights are scaled to integers below ``2**31`` (costs of the assignment solver); weights
below ``max / 2**31`` count as zero.

References
----------
.. [1] R. Beier and J. F. Sibeyn, "A powerful heuristic for telephone gossiping", sections
   4.1 (step 2: a maximum weighted matching) and 4.2 (approximate matching).
.. [2] A. Schrijver, "Combinatorial Optimization", Springer (2003), section 30 (2-matchings
   and the bipartite double cover).
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from gossipcert.errors import HeuristicError
from gossipcert.heuristics.bitsets import Index

Floats = npt.NDArray[np.float64]

#: integer weights of the assignment problem lie in ``0 .. COST_SCALE``
COST_SCALE = 1 << 31


def is_bipartite(u: Index, v: Index, n: int) -> bool:
    """Whether the graph with edges ``(u[k], v[k])`` on nodes ``0..n-1`` is bipartite.

    Examples
    --------
    >>> import numpy as np
    >>> is_bipartite(np.array([0, 1, 2, 3]), np.array([1, 2, 3, 0]), 4)
    True
    >>> is_bipartite(np.array([0, 1, 2]), np.array([1, 2, 0]), 3)
    False
    """
    adj: list[list[int]] = [[] for _ in range(n)]
    for a, b in zip(u.tolist(), v.tolist(), strict=True):
        adj[a].append(b)
        adj[b].append(a)
    side = [-1] * n
    for root in range(n):
        if side[root] >= 0:
            continue
        side[root] = 0
        stack = [root]
        while stack:
            x = stack.pop()
            for y in adj[x]:
                if side[y] < 0:
                    side[y] = 1 - side[x]
                    stack.append(y)
                elif side[y] == side[x]:
                    return False
    return True


def two_matching(u: Index, v: Index, weight: Floats, n: int) -> list[int]:
    """A maximum-weight 2-matching as the permutation ``sigma`` of the assignment.

    ``sigma[x] == x``: ``x`` is unmatched; otherwise ``{x, sigma[x]}`` is an edge.
    """
    from ortools.graph.python import linear_sum_assignment

    top = float(weight.max()) if len(weight) else 0.0
    sigma = list(range(n))
    if top <= 0.0:
        return sigma
    scaled = np.floor(weight / top * COST_SCALE).astype(np.int64)
    keep = np.flatnonzero(scaled > 0)
    tails = np.concatenate([u[keep], v[keep], np.arange(n)])
    heads = np.concatenate([v[keep], u[keep], np.arange(n)])
    costs = np.concatenate([-scaled[keep], -scaled[keep], np.zeros(n, dtype=np.int64)])
    solver = linear_sum_assignment.SimpleLinearSumAssignment()
    solver.add_arcs_with_cost(tails, heads, costs)
    status = solver.solve()
    if status != solver.OPTIMAL:  # x -> x makes every instance feasible
        raise HeuristicError(f"the assignment solver failed on the double cover ({status})")
    return [solver.right_mate(x) for x in range(n)]


def _round_cycle(
    cycle: list[int], edge_of: dict[tuple[int, int], int], ww: list[float]
) -> list[int]:
    """The heaviest matching of the cycle ``cycle[0] - cycle[1] - ... - cycle[0]``."""
    k = len(cycle)
    edges = [edge_of[(cycle[j], cycle[(j + 1) % k])] for j in range(k)]
    w = [ww[e] for e in edges]
    if k % 2 == 0:
        even = sum(w[0::2])
        odd = sum(w[1::2])
        return edges[0::2] if even >= odd else edges[1::2]
    # leave node i out: the edges i+1, i+3, ..., i+k-2 (indices mod k)
    doubled = w + w
    stride = [0.0] * (2 * k + 1)  # stride[j + 1] = doubled[j] + stride[j - 1]
    for j in range(2 * k):
        stride[j + 1] = doubled[j] + (stride[j - 1] if j >= 1 else 0.0)
    best_i, best = 0, -1.0
    for i in range(k):
        # sum of doubled[i+1], doubled[i+3], ..., doubled[i+k-2]
        total = stride[i + k - 1] - stride[i]
        if total > best:
            best_i, best = i, total
    return [edges[(best_i + 1 + 2 * t) % k] for t in range((k - 1) // 2)]


def cover_matching(u: Index, v: Index, weight: Floats, n: int) -> tuple[list[int], bool]:
    """A heavy matching from the maximum-weight 2-matching (see the module docstring).

    Parameters
    ----------
    u, v : numpy.ndarray
        The edges.
    weight : numpy.ndarray
        Their weights; edges of weight 0 are never chosen.
    n : int
        Number of nodes.

    Returns
    -------
    chosen : list of int
        Indices of the matched edges, sorted.
    odd : bool
        Whether an odd cycle was rounded (then the matching may be below the optimum).

    Examples
    --------
    >>> import numpy as np
    >>> cover_matching(np.array([0, 1, 2]), np.array([1, 2, 3]), np.array([1.0, 1.5, 1.0]), 4)
    ([0, 2], False)
    >>> cover_matching(np.array([0, 1, 0]), np.array([1, 2, 2]), np.array([1.0, 1.0, 1.0]), 3)
    ([1], True)
    """
    sigma = two_matching(u, v, weight, n)
    ww = weight.tolist()
    edge_of: dict[tuple[int, int], int] = {}
    for k, (a, b) in enumerate(zip(u.tolist(), v.tolist(), strict=True)):
        edge_of[(a, b)] = edge_of[(b, a)] = k
    seen = [False] * n
    chosen: list[int] = []
    odd = False
    for start in range(n):
        if seen[start] or sigma[start] == start:
            continue
        cycle = [start]
        seen[start] = True
        x = sigma[start]
        while x != start:
            cycle.append(x)
            seen[x] = True
            x = sigma[x]
        if len(cycle) == 2:
            chosen.append(edge_of[(cycle[0], cycle[1])])
        else:
            odd |= len(cycle) % 2 == 1
            chosen += _round_cycle(cycle, edge_of, ww)
    return sorted(chosen), odd
