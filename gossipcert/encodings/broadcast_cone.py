"""The broadcast encoding restricted to the calls that can still reach a set of targets.

A *relaxation* of the broadcast problem of :mod:`gossipcert.encodings.broadcast`: only the
nodes of a target set ``T`` must be informed after round ``R``. A call that informs ``v``
in round ``t`` can then matter only if ``v`` is within ``R - t`` of some target (the packet
still has to travel from ``v`` to it, one edge per round); every other call is left out.
When ``T`` is a set of far nodes, most calls of most rounds go, and the formula is far
smaller and easier than the full one. With ``T`` the set of all demanding nodes it is the
broadcast encoding (the cone of every node is the whole graph).

Rules encoded (one packet; telephone, half-duplex or single-port, as in the broadcast
encoding):

- the holders are informed before round 1; every other node is informed after round ``t``
  when it was informed after round ``t-1`` or receives in round ``t``;
- a node sends in round ``t`` only if it was informed after round ``t-1``;
- a node sends to at most one neighbour and receives from at most one per round;
- a node ``v`` receives in round ``t`` only if ``dist(v, T) <= R - t`` (*cone*);
- every target is informed after round ``R``.

The cone rule removes only calls after which the packet cannot reach a target in time;
deleting them from a schedule leaves the targets' informing rounds unchanged, so the
relaxation is exact for the question "can ``T`` be informed in ``R`` rounds?". Its schedules
inform ``T``, not necessarily every node: a schedule of the full problem must come from
``T`` = every demanding node, and is verified by the simulator like any other.

Variables (from the formula's ``IDPool``, keyed by tuples), as in the broadcast encoding:

- ``("I", v, t)``: node ``v`` is informed after round ``t``;
- ``("S", u, v, t)``: ``u`` informs ``v`` in round ``t``, only for arcs into the cone;
- ``("B", v, t)``: ``v`` sends or receives in round ``t`` (dominance);
- ``("D", r)``: selector, "every target is informed after round ``r``".

Constraint families: the broadcast encoding's informing, sender-informed,
receiver-uninformed and port constraints over the arcs into the cone; *dominance*
(optional, sound) over the same arcs, "an informed node and an uninformed neighbour inside
the cone are not both idle" (adding such a call keeps every call inside the cone, so the
exchange argument of the broadcast encoding holds); *targets*: ``D_r -> I[v, r]`` for
``v`` in ``T``. The idle budget and the counting constraint are not added (both count every
demanding node).

References
----------
.. [1] N. Ivanova, D. Haugland and B. H. Tvedt, integer-programming models of the minimum
   broadcast time problem, 2021 (an arborescence rooted at the sources with informing
   times; reductions by the distances to the nodes still to be reached).
.. [2] P. Fraigniaud and E. Lazard, "Methods and problems of communication in usual
   networks", Discrete Applied Mathematics 53 (1994) 79-133 (a broadcast is at least as
   long as the distance to the farthest node).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable

from gossipcert.encodings.broadcast import BroadcastEncoding
from gossipcert.encodings.formula import Formula, Lit
from gossipcert.encodings.options import EncodingOptions
from gossipcert.errors import InstanceError
from gossipcert.instance import Instance


def distances_to(nbrs: list[list[int]], sources: Iterable[int]) -> list[int | None]:
    """Hop distance from the nearest of ``sources`` to every node (``None``: unreachable).

    Examples
    --------
    >>> distances_to([[1], [0, 2], [1], []], [2])
    [2, 1, 0, None]
    """
    dist: list[int | None] = [None] * len(nbrs)
    queue: deque[int] = deque()
    for s in sources:
        if dist[s] is None:
            dist[s] = 0
            queue.append(s)
    while queue:
        u = queue.popleft()
        du = dist[u]
        assert du is not None
        for w in nbrs[u]:
            if dist[w] is None:
                dist[w] = du + 1
                queue.append(w)
    return dist


class ConeBroadcastEncoding(BroadcastEncoding):
    """Broadcast encoding of "inform ``targets`` within ``rounds`` rounds"; see the module
    docstring.

    Parameters
    ----------
    instance : Instance
        One packet; telephone, half-duplex or single-port without a call limit.
    rounds : int
        The horizon ``R`` the cone is cut for; :meth:`extend_to` beyond it is an error.
    targets : iterable of int
        The nodes that must be informed (holders among them are ignored).
    options : EncodingOptions, optional
        Only ``prune`` and ``dominance`` are used.
    formula : Formula, optional

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> inst = parse_instance("path:5", "telephone", "broadcast:2")
    >>> enc = ConeBroadcastEncoding(inst, 2, [0])
    >>> enc.sends(2, 3, 1), enc.sends(2, 1, 2)
    (False, False)
    >>> enc.sends(2, 1, 1) is not False
    True
    """

    def __init__(
        self,
        instance: Instance,
        rounds: int,
        targets: Iterable[int],
        options: EncodingOptions | None = None,
        formula: Formula | None = None,
    ) -> None:
        base = options or EncodingOptions()
        super().__init__(instance, base.only(("prune", "dominance")).only(self.uses), formula)
        if rounds < 0:
            raise InstanceError(f"rounds must be >= 0, got {rounds}")
        self.rounds = rounds
        wanted = set(targets)
        for v in wanted:
            if not 0 <= v < instance.n:
                raise InstanceError(f"target {v} is not a node of the graph")
        self.targets = sorted(v for v in wanted if not self.holder[v])
        self.to_target = distances_to(self.nbrs, self.targets)

    def in_cone(self, v: int, t: int) -> bool:
        """Whether a call informing ``v`` in round ``t`` can still reach a target."""
        d = self.to_target[v]
        return d is not None and d <= self.rounds - t

    def sends(self, u: int, v: int, t: int) -> Lit:
        """Literal for "``u`` informs ``v`` in round ``t``" (False outside the cone)."""
        if not self.in_cone(v, t):
            return False
        return super().sends(u, v, t)

    def arcs(self, t: int) -> list[tuple[int, int]]:
        """The arcs ``u -> v`` with a variable in round ``t`` (into the cone), sorted."""
        return [(u, v) for u, v in super().arcs(t) if self.in_cone(v, t)]

    def extend_to(self, horizon: int) -> None:
        """Add rounds up to ``horizon`` (at most :attr:`rounds`)."""
        if horizon > self.rounds:
            raise InstanceError(f"the cone is cut for {self.rounds} rounds, not {horizon}")
        super().extend_to(horizon)

    def selector(self, r: int) -> int:
        """``D_r``: every target informed after round ``r``."""
        if r in self.selectors:
            return self.selectors[r]
        self.extend_to(r)
        d = self.formula.var(("D", r))
        for v in self.targets:
            self.formula.clause([-d, self.informed(v, r)])
        self.selectors[r] = d
        return d
