"""Matchings of a weighted graph: exact (networkx, Edmonds' blossoms) and greedy.

The greedy matching takes the edges by decreasing weight (ties by edge order) and keeps an
edge when both ends are still free; its weight is at least half the optimum ([2]_), and it
costs ``O(m log m)``: the "approximate matching" of section 4.2 of [1]_.

References
----------
.. [1] R. Beier and J. F. Sibeyn, "A powerful heuristic for telephone gossiping", sections 4.2
   and 5.3 (approximate matching).
.. [2] D. Avis, "A survey of heuristics for the weighted matching problem", Networks 13
   (1983) (the greedy matching and its factor 1/2).
"""

from __future__ import annotations

import networkx as nx
import numpy as np
import numpy.typing as npt

from gossipcert.heuristics.bitsets import Index

Floats = npt.NDArray[np.float64]


def greedy_matching(u: Index, v: Index, weight: Floats, n: int) -> list[int]:
    """Indices of the edges of a greedy matching among those of positive weight.

    Examples
    --------
    >>> import numpy as np
    >>> greedy_matching(np.array([0, 1, 2]), np.array([1, 2, 3]), np.array([1.0, 1.5, 1.0]), 4)
    [1]
    """
    order = np.lexsort((np.arange(len(weight)), -weight))
    order = order[weight[order] > 0]
    free = np.ones(n, dtype=bool)
    chosen: list[int] = []
    uu = u.tolist()
    vv = v.tolist()
    for k in order.tolist():
        a, b = uu[k], vv[k]
        if free[a] and free[b]:
            free[a] = free[b] = False
            chosen.append(k)
    return sorted(chosen)


def improve_matching(
    u: Index, v: Index, weight: Floats, n: int, chosen: list[int], passes: int = 2
) -> list[int]:
    """Local improvement: an edge replaces the (at most two) matched edges at its ends
    when it weighs more than they do together; freed nodes are re-matched greedily.

    Each exchange increases the matching's weight, so the passes end; ``passes`` bounds
    their number. The result is a matching at least as heavy as ``chosen``.

    Examples
    --------
    >>> import numpy as np
    >>> u, v, w = np.array([0, 1, 2]), np.array([1, 2, 3]), np.array([1.0, 1.5, 1.0])
    >>> improve_matching(u, v, w, 4, [1])
    [0, 2]
    """
    mate_edge = [-1] * n
    uu, vv, ww = u.tolist(), v.tolist(), weight.tolist()
    for k in chosen:
        mate_edge[uu[k]] = mate_edge[vv[k]] = k
    incident: list[list[int]] = [[] for _ in range(n)]
    order = np.lexsort((np.arange(len(weight)), -weight))
    order = order[weight[order] > 0].tolist()
    for k in order:
        incident[uu[k]].append(k)
        incident[vv[k]].append(k)

    def rematch(x: int) -> None:
        for k in incident[x]:  # heaviest first
            y = vv[k] if uu[k] == x else uu[k]
            if mate_edge[y] < 0 and mate_edge[x] < 0:
                mate_edge[x] = mate_edge[y] = k
                return

    for _ in range(passes):
        changed = False
        for k in order:
            a, b = uu[k], vv[k]
            ka, kb = mate_edge[a], mate_edge[b]
            if ka == k:
                continue
            lost = (ww[ka] if ka >= 0 else 0.0) + (ww[kb] if kb >= 0 and kb != ka else 0.0)
            if ww[k] <= lost + 1e-12 * abs(ww[k]):
                continue
            freed = []
            for kk in {ka, kb} - {-1}:
                for x in (uu[kk], vv[kk]):
                    mate_edge[x] = -1
                    freed.append(x)
            mate_edge[a] = mate_edge[b] = k
            for x in freed:
                if mate_edge[x] < 0:
                    rematch(x)
            changed = True
        # augmenting paths a - b = c - d with a and d free: two edges for one
        for k in sorted({k for k in mate_edge if k >= 0}):
            b, c = uu[k], vv[k]
            if mate_edge[b] != k or mate_edge[c] != k:
                continue
            best_b = next((e for e in incident[b] if mate_edge[_other(e, b, uu, vv)] < 0), -1)
            best_c = -1
            for e in incident[c]:
                y = _other(e, c, uu, vv)
                if mate_edge[y] < 0 and (best_b < 0 or y != _other(best_b, b, uu, vv)):
                    best_c = e
                    break
            gain = (ww[best_b] if best_b >= 0 else 0.0) + (ww[best_c] if best_c >= 0 else 0.0)
            if best_b >= 0 and best_c >= 0 and gain > ww[k] * (1 + 1e-12):
                for e in (best_b, best_c):
                    mate_edge[uu[e]] = mate_edge[vv[e]] = e
                changed = True
        if not changed:
            break
    return sorted({k for k in mate_edge if k >= 0})


def _other(edge: int, x: int, uu: list[int], vv: list[int]) -> int:
    return vv[edge] if uu[edge] == x else uu[edge]


def exact_matching(u: Index, v: Index, weight: Floats) -> list[int]:
    """Indices of the edges of a maximum-weight matching (networkx).

    Examples
    --------
    >>> import numpy as np
    >>> exact_matching(np.array([0, 1, 2]), np.array([1, 2, 3]), np.array([1.0, 1.5, 1.0]))
    [0, 2]
    """
    g = nx.Graph()
    index: dict[tuple[int, int], int] = {}
    for k in np.flatnonzero(weight > 0).tolist():
        a, b = int(u[k]), int(v[k])
        g.add_edge(a, b, weight=float(weight[k]))
        index[(a, b)] = k
    matched = nx.max_weight_matching(g, maxcardinality=False)
    return sorted(index[(min(a, b), max(a, b))] for a, b in matched)
