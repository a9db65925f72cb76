"""The walk-counting lower bound for single-packet broadcast (one source or several).

The bound applies where the bounds of :mod:`gossipcert.closed_forms.broadcast` apply: one packet
under telephone, half-duplex or single-port rules (any packet cap, any limit on calls per
round), where a node that knows the packet passes it to at most one neighbour per round.
Write ``S`` for the holders, ``dist(v)`` for the distance from ``S`` to ``v`` and
``tau(v)`` for the round in which a non-holder ``v`` is informed (``tau(s) = 0`` for a
holder). It sharpens ``broadcast-ranks`` (:mod:`.broadcast_ranks`) by following the graph:
the rank count lets every node of a chain have ``Delta - 1`` children, and lets every rank
sequence of length ``>= d`` end at distance ``>= d``; here the chains are walks in the
graph, and only the walks that end at a far node count.

``broadcast-walks`` (rules): fix ``R`` and a threshold ``d >= 1``. On the arcs ``p -> u``
of the graph (``u`` a non-holder) and the rounds ``1 <= t <= R`` let::

    M_d(p -> u, t) = [u demanding and dist(u) >= d]
                     + max over orderings v_1, v_2, ... of the non-holder
                       neighbours of u other than p of
                       sum_{i = 1}^{min(#, R - t)} M_d(u -> v_i, t + i),

and for a holder ``s`` let ``root_d(s)`` be the same maximum over orderings of its
non-holder neighbours, with rounds ``1, 2, ..., R`` (``M_d(s -> v_i, i)``). Every
``R``-round schedule satisfies, for every ``d >= 1``::

    #{demanding non-holders v with dist(v) >= d}  <=  sum over holders s of root_d(s).

The bound is the least ``R`` satisfying this for every ``d``, searched upwards from the
``broadcast-ranks`` value (which is at least the distance bound; ``broadcast-walks`` is
therefore never below it).

Argument: every informed non-holder has one informer, so the informers form a forest
rooted at the holders; ``M_d`` is non-increasing in ``t`` (induction downwards from
``t = R``: fewer rounds remain, and each term is taken one round later). Claim: if ``u``
is informed by ``p`` in round ``tau(u)``, its subtree holds at most ``M_d(p -> u,
tau(u))`` demanding nodes at distance ``>= d``. Induction on ``R - tau(u)``: the children
of ``u`` are distinct non-holder neighbours other than ``p`` (a child is informed by
``u``, so it is neither ``u``'s informer nor a holder), called in distinct rounds after
``tau(u)`` and at most ``R``; sorted by round, the ``i``-th child ``c_i`` is informed in
round ``tau(c_i) >= tau(u) + i``, so there are at most ``R - tau(u)`` of them, and by
induction and monotonicity its subtree holds at most ``M_d(u -> c_i, tau(c_i)) <=
M_d(u -> c_i, tau(u) + i)`` counted nodes. The subtree of ``u`` is ``u`` and the disjoint
subtrees of its children; adding the neighbours that are not children at the remaining
positions only adds non-negative terms, so the sum is at most the maximum over orderings.
The same argument at the holders (``tau = 0``, no informer) bounds each holder's tree by
``root_d(s)``, and every counted node lies in one of these trees.

Computation. The values only need to be upper bounds on the subtree counts, so they are
taken at most ``K_d`` (the number of counted nodes; the argument goes through with
``min(K_d, .)`` on the right, and the numbers stay small on long paths). The maximum over
orderings is an assignment of the children to the rounds ``t + 1, t + 2, ...``; with
``M_d`` non-increasing in the round, leaving a round free never helps, so it is the best
permutation. Up to :data:`EXACT_FAN` children it is solved exactly for all arcs at once
(numpy, a dynamic programme over subsets: the ``j`` children of a subset take the first
``j`` rounds, ``2^f f`` steps for ``f`` children). Beyond, enumerating orderings
explodes (``f!``), and it is replaced by the smaller of two upper bounds, which keeps the
inequality sound (the right side only grows): the sum over the rounds ``t + i``, ``i <=
min(f, R - t)``, of the largest value of a child in that round, and the sum over the
children of their values in round ``t + 1`` (monotonicity: no child does better later).
Both are computed per node (largest, second largest and sum over the arcs out of ``u``,
the arc back to the informer set aside), ``O(A)`` per round. At the holders, which are
few, the assignment is solved exactly (OR-Tools). An arc ``p -> u`` needs a value only in
the rounds ``t >= dist(u)`` (``u`` is not informed earlier), and its value is 0 when
``dist(u) + R - t < d`` (a subtree node lies within ``R - t`` calls of ``u``); each round
works on the arcs between these two limits only (arcs sorted by the distance of their
heads).

Cost: ``O(R D A 2^f f)`` for ``A`` arcs, ``D`` thresholds and ``f <= EXACT_FAN`` children
per arc, for each ``R`` tried (usually one or two). Past :data:`WORK_BUDGET` arc-rounds
summed over the thresholds (with :data:`ROUND_OVERHEAD` arcs counted per round for the
fixed cost), only the largest thresholds ``d`` are checked, as many as the budget allows
and at least :data:`LARGE_THRESHOLDS` (fewer thresholds only weaken the bound; the
binding ones are the far thresholds, where few nodes must be reached by few chains). On
``ccc:13`` (3.2e5 arcs, 31 rounds) six thresholds are checked; on the de Bruijn and
butterfly graphs up to ``k = 14`` and ``k = 10`` all of them.

The value is never below ``broadcast-ranks``: the search starts there. (With every
threshold checked it would not fall below it anyway: by induction, ``M_d`` of an arc at
depth ``L`` of a chain is at most the rank count's number of sequences continuing a chain
of length ``L``, as is the first upper bound used beyond :data:`EXACT_FAN`.)

On the Table 4 graphs of Beier and Sibeyn [3] from node 0 it gives 12 on ``butterfly:7``
(the optimum; ``broadcast-ranks`` 11) and 19 on ``debruijn:14`` (``broadcast-ranks`` 18).

References
----------
.. [1] P. Fraigniaud and E. Lazard, "Methods and problems of communication in usual
   networks", Discrete Applied Mathematics 53 (1994) 79-133 (broadcast trees; counting
   the nodes a broadcast tree reaches by a given round).
.. [2] M. Ivanova, D. Haugland and B. H. Tvedt, "Strong bounds and exact solutions to the
   minimum broadcast time problem", International Transactions in Operational Research
   (arXiv:2107.06359) (lower bounds for broadcast from a set of sources).
.. [3] R. Beier and J. F. Sibeyn, "A powerful heuristic for telephone gossiping",
   SIROCCO 2000 (Table 4: broadcast times of butterflies, CCC, shuffle-exchange and de
   Bruijn graphs).
.. [4] R. Klasing, B. Monien, R. Peine and E. A. Stoehr, "Broadcasting in butterfly and
   deBruijn networks", Discrete Applied Mathematics 53 (1994) (lower bounds that count the
   call sequences reaching the far nodes of these graphs).
"""

from __future__ import annotations

import itertools
from array import array

import numpy as np

from gossipcert.closed_forms.base import _LOWER, Bound
from gossipcert.closed_forms.broadcast import far_counts, one_packet_view, source_distances
from gossipcert.closed_forms.broadcast_ranks import ranks_value
from gossipcert.errors import SolverError
from gossipcert.instance import Instance

#: rows up to which :func:`_assignment` tries every permutation (5! = 120)
SMALL_ASSIGNMENT = 5

#: children per arc up to which the best ordering is found exactly (beyond: upper bounds)
EXACT_FAN = 4
#: work allowed for one ``R``, in arc-rounds summed over the thresholds (a count, so that
#: the value is the same on every machine); past it only the largest thresholds are checked
WORK_BUDGET = 20_000_000
#: the fixed cost of one round of the programme, in arcs
ROUND_OVERHEAD = 5_000
#: thresholds checked at least (the largest ones)
LARGE_THRESHOLDS = 6


class _Arcs:
    """The arcs of a graph in compressed order (the arc ``p -> u`` at ``indptr[p] + j``;
    index ``count`` is a dummy of value 0) and, per number ``f`` of children, the arcs into
    reachable non-holders with ``f`` children, sorted by the distance of their heads."""

    def __init__(self, nbrs: list[list[int]], holder: list[bool], dist: list[int]) -> None:
        n = len(nbrs)
        deg = np.array([len(row) for row in nbrs], dtype=np.int64)
        self.indptr = np.zeros(n + 1, dtype=np.int64)
        np.cumsum(deg, out=self.indptr[1:])
        self.count = count = int(self.indptr[-1])
        tails = np.repeat(np.arange(n, dtype=np.int64), deg)
        self.heads = heads = np.fromiter(itertools.chain.from_iterable(nbrs), np.int64, count)
        # rows are sorted, so the keys tail * n + head ascend: the arc u -> p by bisection
        self.back = np.searchsorted(tails * n + heads, heads * n + tails)
        is_holder = np.array(holder, dtype=bool)
        self.head_dist = head_dist = np.array(dist, dtype=np.int64)[heads]
        live = ~is_holder[heads] & (head_dist > 0)
        self.groups: dict[int, tuple[np.ndarray, np.ndarray, np.ndarray]] = {}
        for k in sorted(set(deg[heads[live]].tolist())):  # (np.unique loads numpy.ma)
            rows = np.flatnonzero(live & (deg[heads] == k))
            rows = rows[np.argsort(head_dist[rows], kind="stable")]
            # children: the arcs out of the head except the one back to the informer;
            # arcs into holders become the dummy
            out = self.indptr[heads[rows]][:, None] + np.arange(k, dtype=np.int64)
            kids = out[out != self.back[rows][:, None]].reshape(len(rows), k - 1)
            kids = np.where(is_holder[heads[kids]], count, kids)
            self.groups[k - 1] = (rows, kids, head_dist[rows])
        self.fan = max(self.groups, default=0)
        self.roots = [
            [
                a
                for a in range(self.indptr[s], self.indptr[s + 1])
                if not holder[nbrs[s][a - self.indptr[s]]]
            ]
            for s in range(n)
            if holder[s]
        ]


def _by_node(arcs: _Arcs, cur: np.ndarray) -> tuple[np.ndarray, ...]:
    """Per node, over the arcs out of it: the largest value, how many arcs reach it, the
    largest of the others, and the sum."""
    starts = np.minimum(arcs.indptr[:-1], arcs.count)
    top = np.maximum.reduceat(cur, starts)
    at_top = cur[:-1] == np.repeat(top, np.diff(arcs.indptr))
    ties = np.add.reduceat(np.append(at_top, False).astype(np.int64), starts)
    second = np.maximum.reduceat(np.where(np.append(at_top, False), 0, cur), starts)
    return top, ties, second, np.add.reduceat(cur, starts)


def _best_orders(
    arcs: _Arcs,
    later: list[np.ndarray],
    nodes: list[tuple[np.ndarray, ...]],
    left: int,
    window: tuple[int, int],
) -> np.ndarray:
    """For the arcs whose heads lie in the distance ``window``, the best ordering of their
    children over the ``left`` rounds after ``t``: ``later[i]`` holds ``M`` at round
    ``t + 1 + i`` (zero past ``R``) and ``nodes[i]`` its :func:`_by_node` summary."""
    out = np.zeros(arcs.count + 1, dtype=np.int64)
    if left == 0:
        return out
    for f, (all_rows, all_kids, dists) in arcs.groups.items():
        lo, hi = np.searchsorted(dists, window[0]), np.searchsorted(dists, window[1], "right")
        if f == 0 or lo >= hi:
            continue
        rows, kids = all_rows[lo:hi], all_kids[lo:hi]
        if f <= EXACT_FAN:
            # vals[i][c]: child c called i + 1 rounds after its informer
            vals = [[later[i][kids[:, c]] for c in range(f)] for i in range(min(f, left))]
            vals += [[np.zeros(len(rows), dtype=np.int64)] * f] * (f - len(vals))
            best = [np.zeros(len(rows), dtype=np.int64)]
            for mask in range(1, 1 << f):
                slot = mask.bit_count() - 1
                cands = [best[mask ^ (1 << c)] + vals[slot][c] for c in range(f) if mask >> c & 1]
                best.append(np.maximum.reduce(cands) if len(cands) > 1 else cands[0])
            out[rows] = best[-1]
        else:
            heads, back = arcs.heads[rows], arcs.back[rows]
            by_slot = np.zeros(len(rows), dtype=np.int64)
            for i in range(min(f, left)):
                top, ties, second, _ = nodes[i]
                alone = (later[i][back] == top[heads]) & (ties[heads] == 1)
                by_slot += np.where(alone, second[heads], top[heads])
            by_child = nodes[0][3][heads] - later[0][back]
            out[rows] = np.minimum(by_slot, by_child)
    return out


def _assignment(weights: list[list[int]]) -> int:
    """Largest total weight of an assignment of rows to distinct columns (square input).

    Up to :data:`SMALL_ASSIGNMENT` rows every permutation is tried (the solver's library
    costs a tenth of a second to load); beyond, OR-Tools' assignment solver.

    Examples
    --------
    >>> _assignment([[1, 5], [4, 1]]), _assignment([[3, 1, 1], [1, 3, 1], [1, 1, 9]])
    (9, 15)
    """
    size = len(weights)
    if size == 0:
        return 0
    if size <= SMALL_ASSIGNMENT:
        return max(
            int(sum(row[c] for row, c in zip(weights, perm, strict=True)))
            for perm in itertools.permutations(range(size))
        )
    from ortools.graph.python import linear_sum_assignment

    rows, cols = np.divmod(np.arange(size * size, dtype=np.int64), size)
    solver = linear_sum_assignment.SimpleLinearSumAssignment()
    solver.add_arcs_with_cost(rows, cols, -np.array(weights, dtype=np.int64).ravel())
    status = solver.solve()
    if status != solver.OPTIMAL:  # a complete square matrix always has an assignment
        raise SolverError(f"the assignment solver failed at a holder ({status})")
    return -solver.optimal_cost()


def _root_total(
    arcs: _Arcs,
    indicator: np.ndarray,
    rounds: int,
    threshold: int,
    cap: int,
    keep: dict[int, array[int]] | None = None,
) -> int:
    """The right side ``sum_s root_d(s)`` for one threshold (``indicator``: counted heads),
    with ``M`` capped at ``cap`` (the number of counted nodes); ``keep``, if given, gets
    ``M`` of every arc (by arc index) in every round ``t`` with an arc in its window."""
    zero = np.zeros(arcs.count + 1, dtype=np.int64)
    width = max(arcs.fan, 1)
    later = [zero] * width  # M at rounds t + 1, ..., t + width
    summary = _by_node(arcs, zero) if arcs.fan > EXACT_FAN else ()
    nodes = [summary] * width
    first = max((len(r) for r in arcs.roots), default=0)  # a holder's rounds 1..first
    root_arcs = np.array([a for r in arcs.roots for a in r], dtype=np.int64)
    at_round: dict[int, list[int]] = {}
    for t in range(rounds, 0, -1):
        # heads nearer than threshold - (R - t) reach no counted node: M is 0 there; heads
        # farther than t cannot be informed by round t: M there is never read
        window = (threshold - (rounds - t), t)
        cur = np.minimum(indicator + _best_orders(arcs, later, nodes, rounds - t, window), cap)
        later = [cur, *later[:-1]]
        if keep is not None:
            keep[t] = array("i", cur.astype(np.int32).tobytes())
        if arcs.fan > EXACT_FAN:
            nodes = [_by_node(arcs, cur), *nodes[:-1]]
        if t <= first:
            at_round[t] = cur[root_arcs].tolist()
    total = 0
    pos = 0
    for kids in arcs.roots:
        size = len(kids)
        total += _assignment(
            [
                [at_round[i + 1][pos + k] if i < rounds else 0 for i in range(size)]
                for k in range(size)
            ]
        )
        pos += size
    return total


class WalkCount:
    """The prepared graph of one broadcast (adjacency without loops, holders, distances,
    far counts and arcs) and the two sides of the ``broadcast-walks`` inequality.

    Examples
    --------
    >>> walks = WalkCount([[1, 5], [0, 2], [1, 3], [2, 4], [3, 5], [4, 0]], [0], [True] * 6)
    >>> walks.ecc, walks.sides(3, 3), walks.sides(2, 3)
    (3, (1, 1), (1, 0))
    """

    def __init__(self, nbrs: list[list[int]], sources: list[int], demand: list[bool]) -> None:
        n = len(nbrs)
        self.sources = list(sources)
        self.demand = list(demand)
        self.nbrs = [sorted(set(row) - {v}) for v, row in enumerate(nbrs)]
        self.holder = [False] * n
        for s in sources:
            self.holder[s] = True
        self.dist = source_distances(self.nbrs, sources)
        #: beyond[d]: demanding non-holders at distance >= d
        self.beyond = far_counts(self.dist, demand)
        #: the largest distance of a demanding node (0: none beyond the holders)
        self.ecc = max(len(self.beyond) - 2, 0)
        self.arcs = _Arcs(self.nbrs, self.holder, self.dist)
        self.counted = np.array(demand, dtype=bool)[self.arcs.heads]

    def thresholds(self, rounds: int) -> range:
        """The thresholds checked for ``rounds``, the largest first (all of them within
        :data:`WORK_BUDGET`, else the largest ones)."""
        per = rounds * (self.arcs.count + ROUND_OVERHEAD)
        checked = max(LARGE_THRESHOLDS, WORK_BUDGET // max(per, 1))
        return range(self.ecc, max(self.ecc - checked, 0), -1)

    def sides(
        self, rounds: int, threshold: int, keep: dict[int, array[int]] | None = None
    ) -> tuple[int, int]:
        """``(#{counted nodes at distance >= d}, sum over holders of root_d(s))`` for
        ``R = rounds`` and ``d = threshold``: the inequality holds when the first is at
        most the second. ``keep``, if given, gets ``M_d(arc, t)`` per round ``t``, as an
        int32 array indexed like ``nbrs`` flattened (the arc ``p -> u`` at ``indptr[p] +
        j``)."""
        count = self.beyond[threshold]
        indicator = self.counted & (self.arcs.head_dist >= threshold)
        ind = np.append(indicator, False).astype(np.int64)
        return count, _root_total(self.arcs, ind, rounds, threshold, count, keep)

    def fits(self, rounds: int) -> bool:
        """The inequality holds for every checked threshold."""
        return all(a <= b for a, b in (self.sides(rounds, d) for d in self.thresholds(rounds)))

    def value(self) -> int:
        """The ``broadcast-walks`` value: the least ``R`` that :meth:`fits`, from the
        ``broadcast-ranks`` value up (0 when no demanding node lies beyond the holders).

        :meth:`fits` is monotone in ``R``: with one more round every ``M_d`` of round ``t``
        becomes that of round ``t - 1``, which is at least as large, and a holder has one
        more round, so both sides of a threshold only grow on the right; and the thresholds
        checked for ``R + 1`` are a prefix of those for ``R`` (the budget only shrinks).
        So a failure at ``R`` refutes every smaller ``R`` too, and the least fitting ``R``
        is found by doubling steps and bisection (on a star of 600 nodes from a leaf the
        value is 599, about 590 rounds above the rank count: one check per ``R`` there
        took minutes)."""
        if not self.beyond:
            return 0
        failed = ranks_value(self.nbrs, self.sources, self.demand) - 1
        step = 1
        while not self.fits(failed + step):
            failed += step
            step *= 2
        fitting = failed + step
        while fitting - failed > 1:
            middle = (failed + fitting) // 2
            if self.fits(middle):
                fitting = middle
            else:
                failed = middle
        return fitting


def walks_value(nbrs: list[list[int]], sources: list[int], demand: list[bool]) -> int:
    """The ``broadcast-walks`` value (see the module docstring) of a graph given by its
    adjacency lists; nodes out of reach of ``sources`` are ignored.

    Examples
    --------
    >>> # the cycle of 6 from node 0: three rounds, as the rank count says
    >>> walks_value([[1, 5], [0, 2], [1, 3], [2, 4], [3, 5], [4, 0]], [0], [True] * 6)
    3
    >>> # the star K_{1,4} from a leaf: in 3 rounds the rank count names the three far
    >>> # leaves (1, 1), (1, 2) and (1, 1, 1), but a leaf has no neighbour to call other
    >>> # than its informer: the third far leaf needs a fourth round
    >>> star = [[4], [4], [4], [4], [0, 1, 2, 3]]
    >>> ranks_value(star, [0], [True] * 5), walks_value(star, [0], [True] * 5)
    (3, 4)
    """
    return WalkCount(nbrs, sources, demand).value()


def broadcast_walks_bound(instance: Instance) -> Bound | None:
    """The walk-counting bound for one-packet instances (see the module docstring).

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
    >>> broadcast_walks_bound(parse_instance("butterfly:7", "telephone", "broadcast:0")).value
    12

    References
    ----------
    .. [1] P. Fraigniaud and E. Lazard, "Methods and problems of communication in usual
       networks", Discrete Applied Mathematics 53 (1994) 79-133.
    .. [2] R. Klasing, B. Monien, R. Peine and E. A. Stoehr, "Broadcasting in butterfly and
       deBruijn networks", Discrete Applied Mathematics 53 (1994).
    """
    view = one_packet_view(instance)
    if view is None:
        return None
    value = walks_value(*view)
    return Bound(
        "broadcast-walks",
        _LOWER,
        value,
        "Fraigniaud-Lazard broadcast trees, Klasing-Monien-Peine-Stoehr: the far nodes of a "
        "subtree are counted along the walks from its root, the children of each node "
        "ordered at best over the rounds left",
    )
