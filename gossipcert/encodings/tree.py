"""The all-port model on a tree, time-indexed: only the timing of each packet is free.

On a tree every packet has one way to each node: the path from its holder. So when every
packet has a single holder, a schedule is, up to transmissions that teach nothing, a time at
which each packet crosses each arc of the subtree that joins its holder to the nodes that
demand it, ordered along the paths and within the arc capacities. This encoding states
exactly that, with no knowledge variables and no arcs a packet never needs.

Rules encoded (the all-port model, as in :mod:`.all_port`, on a tree; no call limit):

- every arc may be used in every round; at most ``c(u, v)`` packets cross arc ``u -> v``
  per round (``all-port:c=N``, or the edge's capacity);
- a packet received in round ``t`` is forwarded in round ``t + 1`` at the earliest;
- a node may send one packet on several arcs in a round (copies, each counted on its arc);
- routers store and forward like any node (they hold and demand nothing).

Why it is exact: let ``A_p`` be the arcs of the smallest subtree that contains the holder
of ``p`` and every node demanding ``p``, directed away from the holder. In any schedule a
node ``v`` of that subtree first learns ``p`` across the arc from its parent (the only arc
on the path from the holder), after the parent learnt it. Keeping, for each packet, only
its first crossing of each arc of ``A_p`` deletes transmissions, which keeps every arc
within its capacity, and keeps every demand met in the same round. So every schedule of
``r`` rounds gives a model of the formula for ``r``, and every model decodes into a
schedule of ``r`` rounds (the verifier checks each one).

Variables (from the formula's ``IDPool``, keyed by tuples):

- ``("T", p, u, v, t)``: packet ``p`` has crossed arc ``u -> v`` of ``A_p`` by the end of
  round ``t`` (an order encoding of the crossing time); only for ``t >= depth(v)``, the
  distance from the holder (earlier it is the constant False);
- ``("X", p, u, v, t)``: ``p`` crosses ``u -> v`` in round ``t``; only where more packets
  than ``c(u, v)`` could cross that arc in that round;
- ``("D", r)``: selector, "every demand is met after round ``r``".

Constraint families, for every packet ``p``, arc ``a = u -> v`` of ``A_p`` and round ``t``:

- *monotone*: ``T[p,a,t-1] -> T[p,a,t]``;
- *precedence*: ``T[p,a,t] -> T[p,a',t-1]`` where ``a'`` is the arc into ``u`` (when ``u``
  is not the holder);
- *crossing*: ``T[p,a,t] and not T[p,a,t-1] -> X[p,a,t]`` (and, with the work-conserving
  rule, the converse, ``X[p,a,t] -> T[p,a,t] and not T[p,a,t-1]``);
- *capacity*: ``sum_p X[p,a,t] <= c(a)``;
- *demand*: ``D_r -> T[p,a,r]`` for the arc ``a`` into every node demanding ``p``;
- *symmetry* (sound, not implied; off with ``--strict``): lex-leader constraints on the
  round-1 crossings, keyed as in :mod:`.all_port` by the arc and the nodes naming the
  packet (an automorphism that fixes the problem maps each ``A_p`` onto ``A_{p'}``);
- *work-conserving arcs* (option ``eager``; sound, not implied; off with ``--strict``): a
  packet ``p`` that waits at the tail of ``a`` in round ``t`` (``T[p,a',t-1]``, or ``u``
  is its holder, and not ``T[p,a,t-1]``) crosses in round ``t`` when ``a`` has room for
  it: if at most ``c(a)`` packets can use ``a`` in round ``t``, the clause
  ``waiting -> T[p,a,t]``; if ``c(a) = 1``, ``waiting -> T[p,a,t] or OR_q X[q,a,t]``
  over the other packets ``q``, with ``X`` then defined exactly
  (``X[p,a,t] -> T[p,a,t] and not T[p,a,t-1]``). Arcs of larger capacity shared by more
  packets get no such clause (the cardinality form slowed the solver down). Sound because
  moving a waiting packet's crossing of ``a`` forward into a round where ``a`` has room
  keeps every arc within capacity and every later crossing after it, and only makes
  packets arrive earlier; each such move lowers the sum of the crossing times, so
  repeating it ends in a schedule of the same length that obeys the rule. The rule is
  invariant under the automorphisms, so it combines with the lex-leader constraints (the
  orbit of a work-conserving schedule is work-conserving).

References
----------
.. [1] V. V. Dimakopoulos and N. J. Dimopoulos, "Communications in binary fat trees",
   Proc. ICCI 1995 (the multi-port model on trees with link capacities).
.. [2] J. P. de Sousa and L. A. Wolsey, "A time indexed formulation of non-preemptive
   single machine scheduling problems", Mathematical Programming 54 (1992) 353-367 (one
   variable per job and period).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable

import networkx as nx

from gossipcert import graphs
from gossipcert.encodings.all_port import packet_nodes
from gossipcert.encodings.formula import Formula, Lit
from gossipcert.encodings.horizon import HorizonEncoding
from gossipcert.encodings.options import EncodingOptions
from gossipcert.errors import UnsupportedModelError
from gossipcert.instance import Instance, bits
from gossipcert.schedule import Round, Schedule, Transmission


def tree_applies(instance: Instance) -> bool:
    """Whether :class:`TreeEncoding` encodes ``instance``: arc capacities (all-port) without a
    call limit, a
    tree whose every edge has latency 1, and every packet held by exactly one node.

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> tree_applies(parse_instance("fattree:8", "all-port", "total-exchange"))
    True
    >>> tree_applies(parse_instance("ring:5", "all-port", "total-exchange"))
    False
    >>> tree_applies(parse_instance("path:5", "all-port", "broadcast:0,4"))
    False
    """
    m = instance.model
    if not m.rules.arc_capacities or m.calls_per_round is not None:
        return False
    g = instance.graph
    if graphs.latencies(g):
        return False  # its crossing times assume one round per edge: the generic encoding
    if g.number_of_nodes() == 0 or not nx.is_tree(g):
        return False
    count = [0] * instance.n_packets
    for mask in instance.holdings:
        for p in bits(mask):
            count[p] += 1
    return all(c == 1 for c in count)


class TreeEncoding(HorizonEncoding):
    """All-port on a tree, one crossing time per packet and arc; see the module docstring.

    Parameters
    ----------
    instance : Instance
        All-port without a call limit on a tree, every packet with one holder.
    options : EncodingOptions, optional
    formula : Formula, optional
        Where the constraints go (a new one by default).

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> enc = TreeEncoding(parse_instance("path:3", "all-port", "scatter:0"))
    >>> sorted(enc.paths[1])  # packet 1 goes to node 2: arcs 0 -> 1 -> 2
    [(0, 1), (1, 2)]
    >>> enc.extend_to(2)
    >>> enc.knows(2, 1, 1), enc.knows(0, 1, 0)
    (False, True)
    """

    uses: tuple[str, ...] = ("symmetry", "tree", "eager")

    def __init__(
        self,
        instance: Instance,
        options: EncodingOptions | None = None,
        formula: Formula | None = None,
    ) -> None:
        if not tree_applies(instance):
            raise UnsupportedModelError(
                "the tree encoding needs all-port without calls=N on a tree, every packet "
                f"held by one node (got {instance.graph.graph.get('spec', 'a graph')}, "
                f"{instance.model.spec()}, {instance.problem.spec()})"
            )
        self.instance = instance
        self.options = (options or EncodingOptions()).only(self.uses)
        self.formula = formula or Formula()
        self.horizon = 0
        self.selectors: dict[int, int] = {}
        g = instance.graph
        fixed = instance.model.capacity
        n, n_packets = instance.n, instance.n_packets
        self.holder = [0] * n_packets
        for v, mask in enumerate(instance.holdings):
            for p in bits(mask):
                self.holder[p] = v
        # parent and depth of every node in the tree hung from each holder
        hung: dict[int, tuple[dict[int, int], dict[int, int]]] = {}
        for h in sorted(set(self.holder)):
            parent = {v: u for u, v in nx.bfs_edges(g, h, sort_neighbors=sorted)}
            hung[h] = (parent, dict(nx.single_source_shortest_path_length(g, h)))
        #: per packet, arc (u, v) of A_p -> depth(v) (its earliest crossing round)
        self.paths: list[dict[tuple[int, int], int]] = []
        #: per packet, node v -> the arc of A_p into v
        self.into: list[dict[int, tuple[int, int]]] = []
        for p in range(n_packets):
            h = self.holder[p]
            parent, depth = hung[h]
            arcs: dict[tuple[int, int], int] = {}
            into: dict[int, tuple[int, int]] = {}
            for d in range(n):
                v = d
                if not instance.demands[d] >> p & 1:
                    continue
                while v != h and v not in into:
                    u = parent[v]
                    arcs[(u, v)] = depth[v]
                    into[v] = (u, v)
                    v = u
            self.paths.append(dict(sorted(arcs.items())))
            self.into.append(into)
        #: per arc, the packets whose A_p contains it, with their earliest rounds
        self.users: dict[tuple[int, int], list[tuple[int, int]]] = {}
        for p, arcs in enumerate(self.paths):
            for a, e in arcs.items():
                self.users.setdefault(a, []).append((p, e))
        self.users = dict(sorted(self.users.items()))
        #: c(u, v) of every arc some packet needs
        self.capacity = {
            (u, v): fixed if fixed is not None else graphs.capacity(g, u, v) for u, v in self.users
        }
        self.names = packet_nodes(instance)

    # -------------------------------------------------------------- variables

    def crossed(self, p: int, a: tuple[int, int], t: int) -> Lit:
        """Literal for "``p`` has crossed arc ``a`` by the end of round ``t``"."""
        if t < self.paths[p][a]:
            return False
        return self.formula.var(("T", p, *a, t))

    def knows(self, v: int, p: int, t: int) -> Lit:
        """Node ``v`` knows ``p`` after round ``t`` (False off ``A_p``: never needed)."""
        if self.holder[p] == v:
            return True
        a = self.into[p].get(v)
        if a is None:
            return False
        return self.crossed(p, a, t)

    # -------------------------------------------------------------- constraints

    def extend_to(self, horizon: int) -> None:
        """Add rounds ``self.horizon + 1 .. horizon``."""
        for t in range(self.horizon + 1, horizon + 1):
            self._add_round(t)
        self.horizon = max(self.horizon, horizon)

    def _add_round(self, t: int) -> None:
        f = self.formula
        for a, users in self.users.items():
            moving: list[tuple[int, Lit, Lit]] = []
            for p, e in users:
                if e > t:
                    continue
                now = self.crossed(p, a, t)
                before = self.crossed(p, a, t - 1)
                if before is not False:
                    f.clause([-before, now])
                u = a[0]
                if u != self.holder[p]:
                    f.clause([-now, self.crossed(p, self.into[p][u], t - 1)])
                moving.append((p, now, before))
            cap = self.capacity[a]
            if len(moving) <= cap:
                if self.options.eager:  # room for all: a waiting packet crosses
                    for p, now, before in moving:
                        f.clause([self._absent(p, a, t), before, now])
                continue
            xs: list[int] = []
            for p, now, before in moving:
                x = f.var(("X", p, *a, t))
                f.clause([-now, before, x])
                if self.options.eager and cap == 1:  # X is then exactly the crossing
                    f.clause([-x, now])
                    f.clause([-x, -before if not isinstance(before, bool) else not before])
                xs.append(x)
            f.at_most(xs, cap)
            if self.options.eager and cap == 1:
                for i, (p, now, before) in enumerate(moving):
                    others = xs[:i] + xs[i + 1 :]
                    f.clause([self._absent(p, a, t), before, now, *others])

    def _absent(self, p: int, a: tuple[int, int], t: int) -> Lit:
        """Literal for "``p`` is not at the tail of ``a`` after round ``t - 1``"."""
        u = a[0]
        if u == self.holder[p]:
            return False
        there = self.crossed(p, self.into[p][u], t - 1)
        return -there if not isinstance(there, bool) else not there

    # -------------------------------------------------------------- decoding

    def _moved(self, p: int, a: tuple[int, int], t: int, value: Callable[[int], bool]) -> bool:
        def holds(lit: Lit) -> bool:
            return lit if isinstance(lit, bool) else value(lit)

        return holds(self.crossed(p, a, t)) and not holds(self.crossed(p, a, t - 1))

    def decode_round(self, t: int, value: Callable[[int], bool]) -> Round:
        """One transmission per arc that carries a packet in round ``t``."""
        out: list[Transmission] = []
        for a, users in self.users.items():
            mask = 0
            for p, e in users:
                if e <= t and self._moved(p, a, t, value):
                    mask |= 1 << p
            if mask:
                out.append(Transmission(a[0], (a[1],), mask))
        return tuple(out)

    def first_round_keys(self) -> list[tuple[Hashable, int]]:
        """Round-1 crossings keyed by ``(u, v, *nodes naming the packet)``."""
        if self.names is None:
            return []
        out: list[tuple[Hashable, int]] = []
        for a, users in self.users.items():
            for p, e in users:
                if e == 1:
                    out.append(((*a, *self.names[p]), self.formula.var(("T", p, *a, 1))))
        return out

    def hint(self, schedule: Schedule, horizon: int) -> dict[int, bool]:
        """Values of the variables along ``schedule`` (a CP-SAT hint): each packet crosses
        each arc of ``A_p`` in the round it first reaches the arc's head."""
        know = list(self.instance.holdings)
        first: list[dict[int, int]] = [{} for _ in range(self.instance.n_packets)]
        for t in range(1, horizon + 1):
            rnd = schedule.rounds[t - 1] if t <= len(schedule.rounds) else ()
            new = list(know)
            for tr in rnd:
                mask = know[tr.sender] if tr.packets is None else tr.packets & know[tr.sender]
                for r in tr.receivers:
                    for p in bits(mask & ~new[r]):
                        first[p][r] = t
                    new[r] |= mask
            know = new
        out: dict[int, bool] = {}
        for p, arcs in enumerate(self.paths):
            for a, e in arcs.items():
                when = first[p].get(a[1])
                for t in range(e, horizon + 1):
                    now = when is not None and when <= t
                    out[self.formula.var(("T", p, *a, t))] = now
                    key = ("X", p, *a, t)
                    if key in self.formula.vpool.obj2id:
                        out[self.formula.var(key)] = when == t
        return out
