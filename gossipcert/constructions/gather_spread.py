"""The universal fallback: gather to a centre along a BFS tree, then spread.

Every connected instance, in every model and for every problem, gets a schedule from this
construction, so that the exact search always starts from a verified upper bound. It is
never meant to be optimal, only correct and not absurdly long.

The schedule works in a breadth-first-search forest: one tree per connected component,
rooted at a centre ``c`` of that component. Two kinds of moves use the tree's arcs:

- *up* ``u -> parent(u)``: packets that ``u`` knows, its parent does not, ``c`` does not
  either, and some node of the component demands (the gathering);
- *down* ``u -> w`` for a child ``w``: packets that ``u`` knows, ``w`` does not, and some
  node in the subtree of ``w`` demands (the spreading).

Round by round the candidate moves are ranked (up before down, or the reverse, then by the
number of useful packets) and taken greedily as long as the model's port rules allow (read
from its :class:`~gossipcert.models.base.PortRules`, not its name):

- calls both ways (``telephone``): the calls form a matching; a call carries the reverse
  move too when it is useful; at most ``p`` packets each way;
- send or receive (``half-duplex``): a node sends once, or receives once, or idles;
- directed ports (``single-port``; ``k`` ports): a node sends at most once (``k`` times)
  and receives at most once (``k`` times), one move an arc;
- one transmission to several receivers (``multicast``): as single-port, and the sender's
  one transmission also goes to every other tree neighbour for which its packets are useful
  and that receives nothing else;
- arc capacities (``all-port``): every useful arc, at most its capacity in packets;
- ``calls=N``: at most ``N`` calls (telephone) or transmissions (other models) a round.

With unbounded packets a transmission carries everything its sender knows (``"all"``);
otherwise the lowest-numbered useful packets, up to the cap.

Termination: while a demand ``(v, p)`` is unmet there is a useful move. If the centre ``c``
of ``v``'s component lacks ``p``, the node nearest to ``c`` on the tree path from a holder of
``p`` to ``c`` that knows ``p`` has an up move; otherwise the first node lacking ``p`` on the
path from ``c`` down to ``v`` receives a down move. The first move of the ranking always
fits an empty round, so every round teaches some node a packet it lacked, and the schedule
ends after at most ``n * P`` rounds (``P`` packets). Several centres (a centre of the graph,
the single holder of every packet, the single demanding node) and both rankings are tried;
the shortest schedule is returned. Callers pass it through the verifier as usual.

References
----------
.. [1] T. F. Gonzalez, "An efficient algorithm for gossiping in the multicasting
   communication environment", IEEE TPDS 14(7), 2003, section 3.1 (gossip along a
   minimum-depth spanning tree: every message up to the root, then down; algorithm Simple),
   here generalised to every model and problem of the design.
.. [2] V. V. Dimakopoulos and N. J. Dimopoulos, "Communications in binary fat trees"
   (all-port arcs with capacities).
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass

import networkx as nx

from gossipcert import graphs
from gossipcert.errors import NotApplicableError
from gossipcert.instance import Instance
from gossipcert.schedule import Round, Schedule, Transmission

__all__ = ["GatherSpreadPlan", "gather_spread"]

#: above this many node-packet pairs only one centre and one ranking are tried
_MANY_PAIRS = 20_000
#: components up to this many nodes get an exact centre, larger ones a sampled one
_EXACT_CENTRE = 128


@dataclass(frozen=True)
class GatherSpreadPlan:
    """A BFS forest: ``parent[v]`` (``-1`` at a root), ``children[v]``, ``root_of[v]``."""

    parent: tuple[int, ...]
    children: tuple[tuple[int, ...], ...]
    root_of: tuple[int, ...]


def _bfs_forest(graph: nx.Graph, roots: list[int]) -> GatherSpreadPlan:
    """BFS trees from ``roots`` (one per component), neighbours in increasing order."""
    n = graph.number_of_nodes()
    parent = [-1] * n
    root_of = [-1] * n
    kids: list[list[int]] = [[] for _ in range(n)]
    for r in roots:
        if root_of[r] >= 0:
            continue
        root_of[r] = r
        queue = deque([r])
        while queue:
            u = queue.popleft()
            for w in sorted(graph.adj[u]):
                if root_of[w] < 0:
                    root_of[w] = r
                    parent[w] = u
                    kids[u].append(w)
                    queue.append(w)
    return GatherSpreadPlan(tuple(parent), tuple(tuple(k) for k in kids), tuple(root_of))


def _eccentricity(graph: nx.Graph, v: int) -> int:
    """Largest BFS distance from ``v`` within its component."""
    seen = {v}
    frontier = [v]
    depth = -1
    while frontier:
        depth += 1
        nxt = []
        for u in frontier:
            for w in graph.adj[u]:
                if w not in seen:
                    seen.add(w)
                    nxt.append(w)
        frontier = nxt
    return depth


def _centre(graph: nx.Graph, comp: list[int]) -> int:
    """A node of least eccentricity in ``comp``: exact up to ``_EXACT_CENTRE`` nodes, else the
    best of an evenly spread sample (any root gives a valid schedule)."""
    if graph.graph.get("vertex_transitive"):
        return comp[0]
    step = max(1, len(comp) // _EXACT_CENTRE)
    return min(comp[::step], key=lambda v: (_eccentricity(graph, v), v))


def _richest(comp: list[int], table: tuple[int, ...]) -> int:
    """The node of ``comp`` with the most packets in ``table`` (the least such node)."""
    return max(comp, key=lambda v: (table[v].bit_count(), -v))


def _centres(instance: Instance) -> list[list[int]]:
    """Candidate root sets: one root per component, chosen three ways."""
    g = instance.graph
    comps = [sorted(c) for c in nx.connected_components(g)]
    options: list[list[int]] = []
    # a centre (least eccentricity) of every component
    options.append([_centre(g, c) for c in comps])
    # the node holding the most packets, and the node demanding the most, in each component
    for table in (instance.holdings, instance.demands):
        roots = [_richest(c, table) for c in comps]
        if roots not in options:
            options.append(roots)
    return options


def gather_spread(instance: Instance, roots: list[int] | None = None) -> Schedule:
    """Gather every needed packet to a centre along a BFS tree, then spread it.

    Parameters
    ----------
    instance : Instance
        Any model and problem; the graph may be disconnected when every demand can be met
        within its component.
    roots : list of int, optional
        One root per connected component (default: try a centre, the largest holder and
        the largest demander, and keep the shortest schedule).

    Returns
    -------
    Schedule
        Solves the instance; callers verify it.

    Raises
    ------
    NotApplicableError
        The graph has no nodes.

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> len(gather_spread(parse_instance("star:6", "half-duplex", "gossip")))
    10
    >>> len(gather_spread(parse_instance("path:4", "sequential:p=1", "broadcast:0")))
    3

    References
    ----------
    Gonzalez 2003, section 3.1 (algorithm Simple), generalised.
    """
    if instance.n == 0:
        raise NotApplicableError("the graph has no nodes")
    if roots is not None:
        return _build(instance, _bfs_forest(instance.graph, roots), up_first=True)
    big = instance.n * instance.n_packets > _MANY_PAIRS
    best: Schedule | None = None
    for option in _centres(instance)[: 1 if big else None]:
        plan = _bfs_forest(instance.graph, option)
        for up_first in (True,) if big else (True, False):
            sched = _build(instance, plan, up_first)
            if best is None or len(sched) < len(best):
                best = sched
    assert best is not None
    return best


class _Round:
    """The transmissions chosen so far in one round, and the ports they occupy."""

    def __init__(self, instance: Instance) -> None:
        self.rules = instance.model.rules
        self.ports = instance.model.ports or 1
        self.limit = instance.model.calls_per_round
        self.sending: dict[int, int] = {}  # sender -> transmissions it sends this round
        self.receiving: set[int] = set()
        self.received: dict[int, int] = {}  # receiver -> transmissions it receives
        self.in_call: set[int] = set()
        self.calls = 0
        self.out: list[tuple[int, list[int], int]] = []  # sender, receivers, packets

    def full(self) -> bool:
        return self.limit is not None and self.calls >= self.limit

    def fits(self, u: int, v: int) -> bool:
        rules = self.rules
        if rules.arc_capacities:
            return not self.full()
        if rules.two_way_calls:
            return u not in self.in_call and v not in self.in_call and not self.full()
        if rules.send_or_receive:
            busy = self.sending.keys() | self.receiving
            return u not in busy and v not in busy and not self.full()
        return (
            self.sending.get(u, 0) < self.ports
            and self.received.get(v, 0) < self.ports
            and not self.full()
        )

    def add(self, u: int, v: int, packets: int, count: bool = True) -> None:
        self.sending[u] = self.sending.get(u, 0) + 1
        self.receiving.add(v)
        self.received[v] = self.received.get(v, 0) + 1
        self.in_call.update((u, v))
        self.out.append((u, [v], packets))
        if count:
            self.calls += 1


def _build(instance: Instance, plan: GatherSpreadPlan, up_first: bool) -> Schedule:
    g = instance.graph
    n = instance.n
    model = instance.model
    parent, children, root_of = plan.parent, plan.children, plan.root_of
    know = list(instance.holdings)
    demands = instance.demands
    # packets demanded somewhere in each component, and in each subtree
    comp_need: dict[int, int] = {}
    for v in range(n):
        comp_need[root_of[v]] = comp_need.get(root_of[v], 0) | demands[v]
    sub_need = list(demands)
    order = sorted(range(n), key=lambda v: _depth(parent, v), reverse=True)
    for v in order:
        if parent[v] >= 0:
            sub_need[parent[v]] |= sub_need[v]
    nbrs = [[*([parent[v]] if parent[v] >= 0 else []), *children[v]] for v in range(n)]

    def useful(u: int, w: int) -> int:
        """Packets worth moving along the tree arc ``u -> w``."""
        if parent[u] == w:
            return know[u] & ~know[w] & comp_need[root_of[u]] & ~know[root_of[u]]
        return know[u] & ~know[w] & sub_need[w]

    rules = model.rules

    def cap(u: int, w: int) -> int | None:
        if rules.arc_capacities:
            return model.capacity or graphs.capacity(g, u, w)
        return model.packet_cap

    def take(mask: int, limit: int | None) -> int:
        if limit is None or mask.bit_count() <= limit:
            return mask
        out = 0
        for _ in range(limit):
            low = mask & -mask
            out |= low
            mask ^= low
        return out

    limit_rounds = n * max(1, instance.n_packets) + 1
    rounds: list[Round] = []
    while any(d & ~k for d, k in zip(demands, know, strict=False)):
        # excluded by the termination argument of the module docstring
        assert len(rounds) < limit_rounds, "gather-spread made no progress"
        cands: list[tuple[int, int, int, int]] = []  # (rank, -size, u, w) for useful arcs
        for u in range(n):
            for w in nbrs[u]:
                m = useful(u, w)
                if m:
                    up = parent[u] == w
                    cands.append((0 if up == up_first else 1, -m.bit_count(), u, w))
        cands.sort()
        rnd = _Round(instance)
        for _, _, u, w in cands:
            if not rnd.fits(u, w):
                continue
            m = useful(u, w)
            rnd.add(u, w, take(m, cap(u, w)))
            if rules.two_way_calls:  # the same call, the other way
                back = useful(w, u)
                if back:
                    rnd.add(w, u, take(back, cap(w, u)), count=False)
            elif rules.one_port and not rules.point_to_point:  # one transmission, more receivers
                sent = rnd.out[-1][2]
                for x in nbrs[u]:
                    if x != w and x not in rnd.receiving and sent & useful(u, x):
                        rnd.out[-1][1].append(x)
                        rnd.receiving.add(x)
                        rnd.received[x] = 1
            if rnd.full():
                break
        new = list(know)
        trs: list[Transmission] = []
        for u, dests, packets in rnd.out:
            carried = know[u] if model.unbounded else packets
            for x in dests:
                new[x] |= carried
            trs.append(Transmission(u, tuple(sorted(dests)), None if model.unbounded else packets))
        know = new
        rounds.append(tuple(trs))
    return Schedule(tuple(rounds))


def _depth(parent: tuple[int, ...], v: int) -> int:
    d = 0
    while parent[v] >= 0:
        v = parent[v]
        d += 1
    return d
