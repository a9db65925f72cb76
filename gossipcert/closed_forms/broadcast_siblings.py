"""The walk count with shared neighbours: a lower bound for single-packet broadcast.

The bound applies where :mod:`gossipcert.closed_forms.broadcast_walks` applies (one packet under
telephone, half-duplex or single-port rules, where a node that knows the packet passes it to
at most one neighbour per round), on graphs of degree at most :data:`MAX_DEGREE`. Notation
as there: ``S`` the holders, ``dist(v)`` the distance from ``S``, ``tau(v)`` the round in
which a non-holder ``v`` is informed, ``R`` the rounds.

``broadcast-walks`` bounds the far nodes of a subtree by following walks, and two children
of one node can both count a node they are both adjacent to: in the butterflies and de
Bruijn graphs every edge lies in a 4-cycle ``u - c - z - c' - u``, so the subtrees of ``c``
and ``c'`` are each allowed ``z``. Only one of them can inform it. ``broadcast-siblings``
(rules): fix ``R`` and a threshold ``d >= 1``. For an arc ``p -> u`` (``u`` a non-holder),
a round ``t`` and a set ``E`` of neighbours of ``u`` let::

    M_d(p -> u, t, E) = [u demanding and dist(u) >= d]
                        + max over ordered sets c_1, ..., c_m (m <= R - t) of distinct
                          candidates, and over owners of their shared neighbours, of
                          sum_i M_d(u -> c_i, t + i, E_i),

where the *candidates* are the non-holder neighbours of ``u`` other than ``p`` and not in
``E``; a *shared neighbour* is a node ``z`` other than ``u``, ``p`` and the ``c_j``, not a
holder, adjacent to at least two of the ``c_i``, and its *owner* is one of them; ``E_i`` is
the set of neighbours of ``c_i`` that are another ``c_j``, or ``p``, or a shared neighbour
owned by another child. ``M_d`` is 0 when ``dist(u) + R - t < d``, and at most ``K_d``, the
number of counted nodes. For a holder ``s``, ``root_d(s)`` is the same maximum over its
non-holder neighbours with rounds ``1, 2, ...`` (no ``p``, ``E`` empty). Every ``R``-round
schedule satisfies, for every ``d >= 1``::

    K_d = #{demanding non-holders v with dist(v) >= d}  <=  sum over holders s of root_d(s).

The bound is the least ``R``, from the ``broadcast-walks`` value up, satisfying this for
every checked ``d``. With ``E`` always empty and no owners the programme is that of
``broadcast-walks`` (ignoring shared neighbours only enlarges the maximum), and the search
starts at its value, so the bound is never below it.

Argument. The informers form a forest rooted at the holders. Claim: if ``u`` is informed
by ``p`` in round ``tau(u)`` and no child of ``u`` lies in ``E``, the subtree of ``u``
holds at most ``M_d(p -> u, tau(u), E)`` counted nodes. Induction on ``R - tau(u)``. The
children ``c_1, ..., c_m`` of ``u``, sorted by round, are candidates (a child is not
informed before ``u`` calls it, so it is not ``p`` or a holder, and by hypothesis not in
``E``), and ``tau(c_i) >= tau(u) + i``, so ``m <= R - tau(u)``. Let every shared
neighbour ``z`` be owned by the child that informs it, or by any of its neighbours among
the ``c_i`` if none does (``z`` has one informer). Then no child of ``c_i`` lies in
``E_i``: another ``c_j`` and ``p`` are informed by someone else (by ``u``, and before
``u``), and a shared neighbour owned by another child is not informed by ``c_i``. By
induction the subtree of ``c_i`` holds at most ``M_d(u -> c_i, tau(c_i), E_i)`` counted
nodes, and ``M_d`` is non-increasing in ``t`` (downwards from ``t = R``: fewer rounds
remain, each term is taken one round later, and the cut-off ``dist(u) + R - t < d`` only
moves up), so at most ``M_d(u -> c_i, tau(u) + i, E_i)``. The subtree of ``u`` is ``u``
and the disjoint subtrees of its children, and this choice of children, order and owners
is one of those the maximum ranges over. A node of the subtree informed in round
``<= R`` is within ``R - tau(u)`` calls of ``u``, hence at distance ``<= dist(u) + R -
tau(u)`` from ``S``: the cut-off is sound. The same argument at a holder (``tau = 0``)
bounds its tree by ``root_d(s)``, and every counted node informed by round ``R`` lies in
one of these trees.

Computation. A memoised recursion from the holders over the states ``(p, u, t, E)`` it
reaches (``E`` a bit mask over the neighbours of ``u``). At a node with ``f``
candidates it tries every ordered subset and every choice of owners, so the graph's degree
is limited to :data:`MAX_DEGREE`. Only the thresholds where ``broadcast-walks`` is nearly
tight are checked (its right side at most :data:`TIGHT` times ``K_d``, the tightest
first; elsewhere the refinement cannot change the verdict in practice), the checking
stops at the first threshold where sharing lowers nothing (as on the shuffle-exchange
graphs, where the walk count is already exact), and each ``R`` gets a budget of
:data:`STATE_BUDGET` states (a count, so the value is the same on every machine): a
threshold whose recursion runs past it is not used. Fewer thresholds only weaken the
bound. A choice of children is skipped when its value under ``broadcast-walks`` cannot
beat the best one found: ``M_d`` of ``broadcast-walks`` bounds every ``M_d(., ., E)`` here
(induction on ``R - t``: the same maximum over fewer choices, of smaller terms). A
candidate too near the holders to count (``dist(c) + R - t - 1 < d``: 0 in every later
round) is never worth choosing, since it counts nothing and only adds to its siblings'
``E_i`` and takes a round: the same choice without it is at least as good. So choices
with such a child are skipped, and such a neighbour is dropped from ``E`` (its exclusion
changes nothing), which merges states. The table of ``broadcast-walks`` values (every
arc in every round) is kept only up to :data:`MAX_TABLE` entries; beyond (long paths and
cycles, where the walk count is exact anyway) no threshold is checked.

On the Table 4 graphs of Beier and Sibeyn [3] from node 0 (``k = 3..14``; butterflies to
``k = 12``, CCC to ``k = 13``) it gives 15 on ``debruijn:11`` (``broadcast-walks`` 14; 15 is
the table's lower bound and its heuristic's value; 49,000 states) and equals
``broadcast-walks`` on the others. On ``butterfly:12`` the tightest threshold (``d = 15``
at 19 rounds) needs 1.16 million states, past the budget; given them (``STATE_BUDGET =
1_500_000``) it refutes 19 rounds and the value is 20 (about 35 s).

References
----------
.. [1] P. Fraigniaud and E. Lazard, "Methods and problems of communication in usual
   networks", Discrete Applied Mathematics 53 (1994) 79-133 (broadcast trees; counting
   the nodes a broadcast tree reaches by a given round).
.. [2] R. Klasing, B. Monien, R. Peine and E. A. Stoehr, "Broadcasting in butterfly and
   deBruijn networks", Discrete Applied Mathematics 53 (1994) (lower bounds that count the
   call sequences reaching the far nodes of these graphs).
.. [3] R. Beier and J. F. Sibeyn, "A powerful heuristic for telephone gossiping",
   SIROCCO 2000 (Table 4: broadcast times of butterflies, CCC, shuffle-exchange and de
   Bruijn graphs).
"""

from __future__ import annotations

import itertools
import sys
from array import array
from fractions import Fraction

from gossipcert.closed_forms.base import _LOWER, Bound
from gossipcert.closed_forms.broadcast import one_packet_view
from gossipcert.closed_forms.broadcast_walks import WalkCount
from gossipcert.instance import Instance

#: the largest degree of a node for which the bound is computed (the work per state
#: grows like the number of ordered subsets of the candidates)
MAX_DEGREE = 4
#: thresholds are checked where broadcast-walks' right side is at most this times K_d
TIGHT = Fraction(5, 4)
#: states of the recursion allowed per number of rounds tried (summed over its thresholds)
STATE_BUDGET = 250_000
#: the largest table of broadcast-walks values kept (rounds times arcs, 4 bytes each)
MAX_TABLE = 25_000_000


#: one set of children: the children and the arcs to them
_Choice = tuple[tuple[int, ...], tuple[int, ...]]


class _SiblingCount:
    """The right side ``sum_s root_d(s)`` for one ``R`` and one ``d`` (module docstring)."""

    def __init__(
        self,
        walks: WalkCount,
        rounds: int,
        threshold: int,
        upper: dict[int, array[int]] | None = None,
    ):
        self.nbrs = walks.nbrs
        self.holder = walks.holder
        self.dist = walks.dist
        self.rounds = rounds
        self.threshold = threshold
        self.cap = walks.beyond[threshold]
        self.counted = [
            int(want and not held and d >= threshold)
            for want, held, d in zip(walks.demand, walks.holder, walks.dist, strict=True)
        ]
        self.position = [{v: j for j, v in enumerate(row)} for row in self.nbrs]
        self.memo: dict[tuple[int, int, int, int], int] = {}
        self.plans: dict[tuple[int, int, int], list[_Choice]] = {}
        self.owners: dict[tuple[int, int, tuple[int, ...]], list[list[int]]] = {}
        #: M of broadcast-walks per round and arc: an upper bound on every M here (given
        #: when the caller has just computed it)
        self.upper: dict[int, array[int]] = {} if upper is None else upper
        if upper is None:
            walks.sides(rounds, threshold, self.upper)
        self.indptr = walks.arcs.indptr.tolist()
        self.budget = 0
        #: the recursion reached its budget: the values are no longer upper bounds
        self.over = False

    def total(self, budget: int) -> int | None:
        """``sum_s root_d(s)``, or None past ``budget`` states."""
        self.budget = budget
        total = sum(
            self._children(s, -1, 0, self._plan(-1, s, 0))
            for s in range(len(self.nbrs))
            if self.holder[s]
        )
        return None if self.over else total

    def _value(self, parent: int, node: int, t: int, excluded: int) -> int:
        """``M_d(parent -> node, t, E)``, ``E`` as a bit mask over ``nbrs[node]``."""
        reach = self.threshold - self.rounds + t + 1  # a child nearer than this counts 0
        if self.dist[node] + 1 < reach:
            return 0
        if excluded:  # only the exclusion of a child that can count matters (see _children)
            for j, c in enumerate(self.nbrs[node]):
                if excluded >> j & 1 and self.dist[c] < reach:
                    excluded ^= 1 << j
        key = (parent, node, t, excluded)
        got = self.memo.get(key)
        if got is not None:
            return got
        if len(self.memo) >= self.budget:
            self.over = True  # from here on every new state is 0: the caller drops the total
            return 0
        value = min(
            self.cap,
            self.counted[node]
            + self._children(node, parent, t, self._plan(parent, node, excluded)),
        )
        self.memo[key] = value
        return value

    def _children(self, node: int, parent: int, t: int, plan: list[_Choice]) -> int:
        """The best of the ``plan``'s sets of children for ``node`` (informed by
        ``parent`` in round ``t``), each with its best owners and order. Sets are tried in
        the order of their values under ``broadcast-walks`` (an upper bound on their values
        here), and the rest skipped once that bound cannot beat the best so far."""
        left = self.rounds - t
        if left <= 0:
            return 0
        rows = [self.upper.get(t + 1 + i) for i in range(min(left, MAX_DEGREE))]
        scored = sorted(
            (
                (
                    _best_order(
                        [[row[a] if row else 0 for a in arcs] for row in rows[: len(arcs)]]
                    ),
                    k,
                )
                for k, (chosen, arcs) in enumerate(plan)
                if len(chosen) <= left
            ),
            reverse=True,
        )
        best = 0
        reach = self.threshold - left + 1
        for bound, k in scored:
            if bound <= best:
                break
            chosen = plan[k][0]
            if any(self.dist[c] < reach for c in chosen):
                continue  # such a child counts 0 and only excludes: the set without it is better
            size = len(chosen)
            for masks in self._exclusions(node, parent, chosen):
                # vals[i][j]: child j called i + 1 rounds after its informer
                vals = [
                    [self._value(node, c, t + 1 + i, masks[j]) for j, c in enumerate(chosen)]
                    for i in range(size)
                ]
                best = max(best, _best_order(vals))
        return best

    def _plan(self, parent: int, node: int, excluded: int) -> list[_Choice]:
        """Every set of children of ``node`` among its candidates, with the arcs to them;
        cached."""
        key = (parent, node, excluded)
        plan = self.plans.get(key)
        if plan is None:
            row = self.nbrs[node]
            start = self.indptr[node]
            cands = [
                (c, start + j)
                for j, c in enumerate(row)
                if c != parent and not self.holder[c] and not excluded >> j & 1
            ]
            plan = [
                (tuple(c for c, _ in pick), tuple(a for _, a in pick))
                for size in range(1, len(cands) + 1)
                for pick in itertools.combinations(cands, size)
            ]
            self.plans[key] = plan
        return plan

    def _exclusions(self, node: int, parent: int, chosen: tuple[int, ...]) -> list[list[int]]:
        """For each choice of owners of the shared neighbours of ``chosen``, the masks
        ``E_i`` of the children (bits over their own neighbour lists); cached."""
        key = (node, parent, chosen)
        got = self.owners.get(key)
        if got is None:
            got = self.owners[key] = self._owner_masks(node, parent, chosen)
        return got

    def _owner_masks(self, node: int, parent: int, chosen: tuple[int, ...]) -> list[list[int]]:
        """:meth:`_exclusions`, computed."""
        taken = set(chosen)
        base = []
        sharers: dict[int, list[int]] = {}
        for k, c in enumerate(chosen):
            mask = 0
            for j, z in enumerate(self.nbrs[c]):
                if z == node or self.holder[z]:
                    continue  # excluded anyway: the informer, and holders
                if z in taken or z == parent:
                    mask |= 1 << j
                else:
                    sharers.setdefault(z, []).append(k)
            base.append(mask)
        shared = [(z, ks) for z, ks in sharers.items() if len(ks) > 1]
        out = []
        for owners in itertools.product(*(ks for _, ks in shared)):
            masks = list(base)
            for (z, ks), owner in zip(shared, owners, strict=True):
                for k in ks:
                    if k != owner:
                        masks[k] |= 1 << self.position[chosen[k]][z]
            out.append(masks)
        return out


def _best_order(vals: list[list[int]]) -> int:
    """Largest ``sum_i vals[i][perm[i]]`` over the permutations (``vals`` square, small).

    Examples
    --------
    >>> _best_order([[5, 4], [1, 3]]), _best_order([[1, 2, 3], [3, 1, 2], [2, 3, 1]])
    (8, 9)
    """
    size = len(vals)
    if size == 1:
        return vals[0][0]
    if size == 2:
        (a, b), (c, d) = vals
        return max(a + d, b + c)
    if size == 3:
        (a, b, c), (d, e, f), (g, h, i) = vals
        return max(a + e + i, a + f + h, b + d + i, b + f + g, c + d + h, c + e + g)
    return max(
        sum(vals[i][k] for i, k in enumerate(perm)) for perm in itertools.permutations(range(size))
    )


def siblings_value(nbrs: list[list[int]], sources: list[int], demand: list[bool]) -> int | None:
    """The ``broadcast-siblings`` value (see the module docstring) of a graph given by its
    adjacency lists, or None when a node within reach of the sources has more than
    :data:`MAX_DEGREE` neighbours.

    Examples
    --------
    >>> # the 4-cycle from node 0: the walk count lets both neighbours inform node 2 in
    >>> # round 2, only one of them can, and the bound is still 2 (node 1 informs node 2)
    >>> siblings_value([[1, 3], [0, 2], [1, 3], [2, 0]], [0], [True] * 4)
    2
    """
    walks = WalkCount(nbrs, sources, demand)
    if not walks.beyond:
        return 0
    if max(len(row) for v, row in enumerate(walks.nbrs) if walks.dist[v] >= 0) > MAX_DEGREE:
        return None
    rounds = walks.value()
    depth = sys.getrecursionlimit()
    sys.setrecursionlimit(max(depth, 4 * rounds + 1000))
    try:
        while not _fits(walks, rounds):
            rounds += 1
    finally:
        sys.setrecursionlimit(depth)
    return rounds


def sibling_side(
    walks: WalkCount, rounds: int, threshold: int, budget: int
) -> tuple[int | None, int]:
    """The right side ``sum_s root_d(s)`` of one threshold (module docstring), or None past
    ``budget`` states, and the number of states visited: the margin of one threshold, as
    ``benchmarks/broadcast_margins.py`` prints it (the bound itself shares
    :data:`STATE_BUDGET` between its thresholds).

    Examples
    --------
    >>> walks = WalkCount([[1, 3], [0, 2], [1, 3], [2, 0]], [0], [True] * 4)
    >>> walks.sides(3, 2), sibling_side(walks, 3, 2, 1000)[0]  # node 2 counted once, not twice
    ((1, 2), 1)
    """
    count = _SiblingCount(walks, rounds, threshold)
    return count.total(budget), len(count.memo)


def _fits(walks: WalkCount, rounds: int) -> bool:
    """The inequality holds at every threshold checked for ``rounds`` (module docstring)."""
    if rounds * (walks.arcs.count + 1) > MAX_TABLE:
        return True  # the table of upper bounds would be too large: no threshold checked
    tight = []
    for d in walks.thresholds(rounds):
        table: dict[int, array[int]] = {}  # kept for the thresholds refined below
        count, walk_side = walks.sides(rounds, d, table)
        if count > walk_side:
            return False
        if walk_side <= TIGHT * count:
            tight.append((Fraction(walk_side, count), d, table))
    budget = STATE_BUDGET
    for ratio, d, table in sorted(tight, key=lambda x: x[:2]):
        siblings = _SiblingCount(walks, rounds, d, table)
        right = siblings.total(budget)
        if right is None:
            return True  # no verdict within the budget: this threshold and the rest unused
        if walks.beyond[d] > right:
            return False
        if right == ratio * walks.beyond[d]:
            return True  # no shared neighbour mattered at the tightest threshold: stop here
        budget -= len(siblings.memo)
    return True


def broadcast_siblings_bound(instance: Instance) -> Bound | None:
    """The walk count with shared neighbours for one-packet instances (see the module
    docstring).

    Parameters
    ----------
    instance : Instance

    Returns
    -------
    Bound or None
        None unless the instance has one packet and a one-port model, and its nodes within
        reach of the sources have at most :data:`MAX_DEGREE` neighbours.

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> broadcast_siblings_bound(parse_instance("debruijn:5", "telephone", "broadcast:0")).value
    6

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
    value = siblings_value(*view)
    if value is None:
        return None
    return Bound(
        "broadcast-siblings",
        _LOWER,
        value,
        "Fraigniaud-Lazard broadcast trees, Klasing-Monien-Peine-Stoehr: the far nodes of a "
        "subtree counted along the walks from its root, a node adjacent to two children of "
        "one node counted in one of their subtrees only",
    )
