"""The call-order lower bound for single-packet broadcast (one source or several).

The bound applies where the bounds of :mod:`gossipcert.closed_forms.broadcast` apply: one packet
under telephone, half-duplex or single-port rules (any packet cap, any limit on calls per
round), where a node that knows the packet passes it to at most one neighbour per round.
Write ``S`` for the holders, ``tau(v)`` for the round in which a non-holder ``v`` is
informed and ``d(x, v)`` for the distance from ``x`` to ``v`` in ``G - S`` (the graph
without the holders).

``broadcast-order`` (the order of the first two generations of calls): every informed
non-holder ``v`` has one informer; following informers back from ``v`` gives its
*informing chain* ``s, c, g, ..., v`` from a holder ``s``. All chain nodes after ``s`` are
non-holders (holders are never informed), so the part from ``g`` to ``v`` is a walk in
``G - S`` and ``tau(v) >= tau(g) + d(g, v)``. The holder ``s`` calls its children in
distinct rounds ``>= 1``; ranking them by round gives an injective *position*
``pos_s(c) >= 1`` with ``tau(c) >= pos_s(c)``, and extending the ranking by the neighbours
that ``s`` never informs gives an ordering of all non-holder neighbours of ``s`` whose
prefix are its children. Likewise a child ``c`` calls its own children in distinct rounds
after ``tau(c)``, so ``tau(g) >= tau(c) + pos_c(g)`` for an ordering ``pos_c`` of the
non-holder neighbours of ``c``. Hence every schedule of ``R`` rounds defines orderings
``pos_s`` (one per holder) and ``pos_c`` (one per non-holder neighbour of a holder) with,
for every demanding non-holder ``v``, some holder ``s`` and neighbour ``c`` of ``s`` with::

    v = c and pos_s(c) <= R,   or   pos_s(c) + pos_c(g) + d(g, v) <= R for a neighbour g of c.

The bound is the least ``R`` (at least the distance from ``S`` to the farthest demanding
node) for which such orderings exist. The orderings of different holders, and of the same
child under different holders, are chosen independently, which only relaxes the
condition. Where a node has more than :data:`_MAX_FAN` non-holder neighbours its own
ordering is not enumerated and the second alternative is replaced by the weaker
``pos_s(c) + d(c, v) <= R`` (one level only: the plain distance from ``c``).

The existence of the orderings is decided by a depth-first search over the holders' call
positions and, for each chosen child, the prefix of its ordering that fits in the rounds
left; the nodes covered by each choice are bit sets of the balls ``{v : d(g, v) <= r}``,
and a branch is cut as soon as the union of everything still available cannot cover the
demand. The search counts its steps; past :data:`_STEP_BUDGET` steps a horizon is taken as
feasible (which only weakens the bound), so the value is the same on every machine.

The bound is at least the distance bound. It does not count subtree sizes (that is what
``broadcast-layers`` and ``broadcast-ranks`` do), so neither dominates the other. Measured:
on every connected graph of at most 6 nodes, from every single source and every pair of
sources, it never exceeds the optimum and never exceeds the larger of ``broadcast-layers``
and ``broadcast-cut``; the tests hold 7- and 8-node graphs where it is above both (and
meets the optimum); on the Table 4 graphs it never exceeds ``broadcast-layers``.

References
----------
.. [1] P. Fraigniaud and E. Lazard, "Methods and problems of communication in usual
   networks", Discrete Applied Mathematics 53 (1994) 79-133 (broadcast trees; a node
   informs its children one per round).
.. [2] M. Ivanova, D. Haugland and B. H. Tvedt, "Strong bounds and exact solutions to the
   minimum broadcast time problem", International Transactions in Operational Research
   (arXiv:2107.06359) (lower bounds for broadcast from a set of sources).
"""

from __future__ import annotations

import itertools
from collections import deque

from gossipcert.closed_forms.base import _LOWER, Bound
from gossipcert.closed_forms.broadcast import one_packet_view
from gossipcert.instance import Instance

#: a node with more non-holder neighbours than this is not given its own call ordering
_MAX_FAN = 5
#: search steps per horizon before the horizon is taken as feasible (a count, so that the
#: value is the same on every machine)
_STEP_BUDGET = 200_000


def _distances_avoiding(nbrs: list[list[int]], start: int, holder: list[bool]) -> list[int]:
    """Distances from ``start`` in the graph without the holders (``-1``: unreachable)."""
    dist = [-1] * len(nbrs)
    dist[start] = 0
    queue = deque([start])
    while queue:
        u = queue.popleft()
        for w in nbrs[u]:
            if dist[w] < 0 and not holder[w]:
                dist[w] = dist[u] + 1
                queue.append(w)
    return dist


class _Balls:
    """Bit sets ``{v : d(x, v) <= r}`` in ``G - S``, computed on demand."""

    def __init__(self, nbrs: list[list[int]], holder: list[bool]) -> None:
        self.nbrs = nbrs
        self.holder = holder
        # cumulative[x][r]: the ball of radius r around x (the last entry: all reachable)
        self.cumulative: dict[int, list[int]] = {}

    def ball(self, x: int, radius: int) -> int:
        if radius < 0:
            return 0
        if x not in self.cumulative:
            dist = _distances_avoiding(self.nbrs, x, self.holder)
            layers: list[int] = [0] * (max(dist) + 1)
            for v, d in enumerate(dist):
                if d >= 0:
                    layers[d] |= 1 << v
            acc = 0
            for d, layer in enumerate(layers):
                acc |= layer
                layers[d] = acc
            self.cumulative[x] = layers
        layers = self.cumulative[x]
        return layers[min(radius, len(layers) - 1)]


class _Covers:
    """For a child ``c`` and a number of rounds ``b`` left after ``c`` is informed: the bit
    sets of nodes that ``c`` and its subtree can inform within ``b`` rounds, one per
    ordering prefix of ``c``'s calls (the maximal ones only)."""

    def __init__(self, nbrs: list[list[int]], holder: list[bool], balls: _Balls) -> None:
        self.nbrs = nbrs
        self.holder = holder
        self.balls = balls
        self.memo: dict[tuple[int, int], tuple[int, ...]] = {}

    def options(self, c: int, left: int) -> tuple[int, ...]:
        key = (c, left)
        if key in self.memo:
            return self.memo[key]
        fan = [g for g in self.nbrs[c] if not self.holder[g]]
        base = 1 << c
        if len(fan) > _MAX_FAN:
            # one level only: pos_s(c) + d(c, v) <= R
            found = {base | self.balls.ball(c, left)}
        else:
            found = set()
            length = min(left, len(fan))
            for order in itertools.permutations(fan, length):
                cover = base
                for i, g in enumerate(order, start=1):
                    cover |= self.balls.ball(g, left - i)
                found.add(cover)
        kept = _maximal(found)
        self.memo[key] = kept
        return kept


def _maximal(sets: set[int]) -> tuple[int, ...]:
    """The bit sets not strictly inside another one, largest first."""
    ordered = sorted(sets, key=lambda x: -x.bit_count())
    kept: list[int] = []
    for x in ordered:
        if not any(x | k == k for k in kept):
            kept.append(x)
    return tuple(kept)


def _feasible(
    rounds: int,
    children: list[list[int]],
    covers: _Covers,
    demand: int,
) -> bool:
    """Whether orderings exist that cover ``demand`` within ``rounds`` (module docstring);
    True also when the step budget runs out."""
    # upper[k]: everything the holders k, k+1, ... could cover at best
    reach = []
    for kids in children:
        acc = 0
        for c in kids:
            for cover in covers.options(c, rounds - 1):
                acc |= cover
        reach.append(acc)
    upper = [0] * (len(children) + 1)
    for k in range(len(children) - 1, -1, -1):
        upper[k] = upper[k + 1] | reach[k]
    if upper[0] & demand != demand:
        return False
    steps = 0

    def search(k: int, pos: int, unused: tuple[int, ...], acc: int) -> bool:
        nonlocal steps
        steps += 1
        if steps > _STEP_BUDGET:
            return True
        if acc & demand == demand:
            return True
        if k == len(children):
            return False
        if pos > rounds or not unused:
            # this holder's calls are over; the next holder starts from its first position
            nxt = k + 1
            kids = tuple(children[nxt]) if nxt < len(children) else ()
            return search(nxt, 1, kids, acc)
        left = rounds - pos
        best = acc | upper[k + 1]
        for c in unused:
            for cover in covers.options(c, left):
                best |= cover
        if best & demand != demand:
            return False
        for c in unused:
            rest = tuple(x for x in unused if x != c)
            for cover in covers.options(c, left):
                if search(k, pos + 1, rest, acc | cover):
                    return True
        return False

    return search(0, 1, tuple(children[0]) if children else (), 0)


def order_value(nbrs: list[list[int]], sources: list[int], demand: list[bool]) -> int:
    """The ``broadcast-order`` value (see the module docstring) of a graph given by its
    adjacency lists.

    Parameters
    ----------
    nbrs : list of list of int
        Adjacency lists.
    sources : list of int
        The holders of the packet.
    demand : list of bool
        Which nodes must be informed (holders are ignored).

    Returns
    -------
    int
        The least horizon for which the call orderings exist.

    Examples
    --------
    >>> # the path 0-1-2-3-4 from node 2: node 0 and node 4 lie behind different first
    >>> # calls, so one of them waits a round (the distance bound is 2)
    >>> path = [[1], [0, 2], [1, 3], [2, 4], [3]]
    >>> order_value(path, [2], [True] * 5)
    3
    """
    n = len(nbrs)
    holder = [False] * n
    for s in sources:
        holder[s] = True
    target = 0
    for v in range(n):
        if demand[v] and not holder[v]:
            target |= 1 << v
    if target == 0:
        return 0
    balls = _Balls(nbrs, holder)
    covers = _Covers(nbrs, holder, balls)
    children = [[c for c in nbrs[s] if not holder[c]] for s in sorted(set(sources))]
    children = [kids for kids in children if kids]
    # the distance from S to the farthest demanding node (multi-source breadth-first search)
    dist = [-1] * n
    queue = deque(sorted(set(sources)))
    for s in queue:
        dist[s] = 0
    while queue:
        u = queue.popleft()
        for w in nbrs[u]:
            if dist[w] < 0:
                dist[w] = dist[u] + 1
                queue.append(w)
    rounds = max(1, max(dist[v] for v in range(n) if target >> v & 1))
    while not _feasible(rounds, children, covers, target):
        rounds += 1
        if rounds > 2 * n + 2:  # unreachable demand: no finite horizon
            raise ValueError("a demanding node is out of reach of the sources")
    return rounds


def broadcast_order_bound(instance: Instance) -> Bound | None:
    """The call-order bound for one-packet instances (see the module docstring).

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
    >>> broadcast_order_bound(parse_instance("path:5", "telephone", "broadcast:2")).value
    3
    """
    view = one_packet_view(instance)
    if view is None:
        return None
    value = order_value(*view)
    return Bound(
        "broadcast-order",
        _LOWER,
        value,
        "Fraigniaud-Lazard broadcast trees: the sources, and their children, make their "
        "calls one per round, so each far node waits for the rank of the call that leads "
        "to it",
    )
