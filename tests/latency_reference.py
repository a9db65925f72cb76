"""An exhaustive search for the all-port model with latencies 1 and 2, written from the rules
alone (it imports nothing from :mod:`gossipcert`).

Rules: every arc ``u -> v`` carries at most ``c(u, v)`` packets that ``u`` knows, entering
it in round ``t``; over an edge of latency 1 they are known at ``v`` after round ``t``, over
an edge of latency 2 after round ``t + 1``. A state is, per node ``v``, the pair ``(k, f)``:
what ``v`` knows after the round, and what it will know one round later whatever happens
(``k`` plus what is in flight to it). Only latencies 1 and 2 occur, so nothing is in flight
for longer.

One round from ``(k, f)``: ``v`` ends it knowing ``f`` plus what its latency-1 in-arcs carry,
and one round later that plus what its latency-2 in-arcs carry. The in-arcs of ``v`` decide
alone what ``v`` gets, so the choices are made per node; an arc carries ``min(c, |useful|)``
of the packets its tail knows and ``v`` will not have by then (sending more never hurts), and
of a node's options only those no other option dominates are kept (``(k1, f1)`` dominates
``(k2, f2)`` when ``k1`` contains ``k2`` and ``f1`` contains ``f2``: more knowledge, as early,
never hurts in this model, since a schedule from the smaller state can be replayed from the
larger one). Per layer only the undominated states are kept, each replaced by its smallest
image under the automorphisms that keep capacities, latencies and the problem's root.

Total exchange has too many packets for that search beyond three nodes; :func:`routing_optimum`
routes every packet on a timed simple path instead (copies never help a packet with one
demander), and :func:`optimum` uses it for total exchange.
"""

from __future__ import annotations

from functools import cache
from itertools import combinations, pairwise, permutations, product

Edge = tuple[int, int, int, int]  # u, v, capacity, latency
State = tuple[int, ...]  # per node k | f << P


def packets_of(n: int, problem: str) -> tuple[list[tuple[int, ...]], State, State]:
    """Packet names (node tuples), holdings and demands of gossip, broadcast:r or
    total-exchange, built from scratch."""
    kind, _, arg = problem.partition(":")
    names: list[tuple[int, ...]] = []
    hold = [0] * n
    need = [0] * n

    def add(name: tuple[int, ...], holder: int, needers: list[int]) -> None:
        bit = 1 << len(names)
        names.append(name)
        hold[holder] |= bit
        for w in needers:
            need[w] |= bit

    if kind == "gossip":
        for v in range(n):
            add((v,), v, list(range(n)))
    elif kind == "broadcast":
        add((int(arg),), int(arg), list(range(n)))
    else:
        for u in range(n):
            for v in range(n):
                if u != v:
                    add((u, v), u, [v])
    return names, tuple(hold), tuple(need)


def _subsets(useful: int, cap: int) -> list[int]:
    items = [i for i in range(useful.bit_length()) if useful >> i & 1]
    if len(items) <= cap:
        return [useful]
    return [sum(1 << i for i in c) for c in combinations(items, cap)]


def _undominated(masks: set[int]) -> list[int]:
    """The masks that no other mask of the set contains (bitwise)."""
    kept: list[int] = []
    for m in sorted(masks, key=lambda x: -x.bit_count()):
        if not any(m & k == m for k in kept):
            kept.append(m)
    return kept


class Reference:
    """The rounds of one graph with capacities and latencies (1 or 2)."""

    def __init__(self, n: int, edges: tuple[Edge, ...], n_packets: int) -> None:
        assert all(lat in (1, 2) for *_, lat in edges)
        self.n = n
        self.p = n_packets
        self.full = (1 << n_packets) - 1
        self.into: list[list[tuple[int, int, int]]] = [[] for _ in range(n)]
        for u, v, c, lat in edges:
            self.into[v].append((u, c, lat))
            self.into[u].append((v, c, lat))

    def options(self, state: State, v: int) -> list[int]:
        """The undominated ``k | f << P`` that ``v`` may reach in one round."""
        p, full = self.p, self.full
        f = state[v] >> p
        got = {f | f << p}
        for u, c, lat in self.into[v]:
            useful = state[u] & full & ~f
            if not useful:
                continue
            nxt: set[int] = set()
            for g in got:
                for s in _subsets(useful, c):
                    nxt.add(g | s | s << p if lat == 1 else g | s << p)
            got = set(_undominated(nxt))
        return sorted(got)

    def successors(self, state: State) -> list[State]:
        per_node = [self.options(state, v) for v in range(self.n)]
        return [tuple(pick) for pick in product(*per_node)]


def _automorphisms(n: int, edges: tuple[Edge, ...], fixed: int | None) -> list[tuple[int, ...]]:
    label = {frozenset((u, v)): (c, lat) for u, v, c, lat in edges}
    return [
        perm
        for perm in permutations(range(n))
        if (fixed is None or perm[fixed] == fixed)
        and all(label.get(frozenset((perm[u], perm[v]))) == (c, lat) for u, v, c, lat in edges)
    ]


def _canonical(state: State, perms: list[tuple[int, ...]], moved: list[list[int]], p: int) -> State:
    best = state
    for perm, move in zip(perms, moved, strict=True):
        image = [0] * len(state)
        for v, mask in enumerate(state):
            image[perm[v]] = sum(
                1 << move[q % p] << (q // p * p) for q in range(2 * p) if mask >> q & 1
            )
        t = tuple(image)
        if t < best:
            best = t
    return best


def _simple_paths(adj: list[list[int]], src: int, dst: int) -> list[list[int]]:
    out: list[list[int]] = []

    def grow(path: list[int]) -> None:
        if path[-1] == dst:
            out.append(list(path))
            return
        for w in adj[path[-1]]:
            if w not in path:
                path.append(w)
                grow(path)
                path.pop()

    grow([src])
    return out


def _timings(lats: list[int], first: int, rounds: int) -> list[list[int]]:
    """Entry rounds ``t_1 < t_2 < ...`` with ``t_{i+1} >= t_i + L_i`` and the last arrival
    ``t_k + L_k - 1 <= rounds``."""
    if not lats:
        return [[]]
    out: list[list[int]] = []
    rest = sum(lats[1:])
    for t in range(first, rounds - lats[0] - rest + 2):
        for tail in _timings(lats[1:], t + lats[0], rounds):
            out.append([t, *tail])
    return out


@cache
def routing_optimum(n: int, edges: tuple[Edge, ...], limit: int = 40) -> int:
    """Fewest rounds of total exchange: every packet on a timed simple path.

    Copies never help a packet that one node demands: keeping, for each packet, only the
    transfers along which it first reached its destination leaves a valid schedule of the
    same length (fewer packets enter each arc), and a walk that revisits a node may wait
    there instead. So each packet follows a simple path, entering its arcs in rounds
    ``t_1 < t_2 < ...`` with ``t_{i+1} >= t_i + L_i``, and at most ``c(u, v)`` packets enter
    an arc per round; a depth-first search over these timed paths decides each horizon.
    """
    adj: list[list[int]] = [[] for _ in range(n)]
    cap: dict[tuple[int, int], int] = {}
    lat: dict[tuple[int, int], int] = {}
    for u, v, c, latency in edges:
        adj[u].append(v)
        adj[v].append(u)
        cap[u, v] = cap[v, u] = c
        lat[u, v] = lat[v, u] = latency
    pairs = [(u, v) for u in range(n) for v in range(n) if u != v]

    def feasible(rounds: int) -> bool:
        options: list[list[list[tuple[int, int, int]]]] = []
        for src, dst in pairs:
            opts = []
            for path in _simple_paths(adj, src, dst):
                hops = list(pairwise(path))
                for times in _timings([lat[h] for h in hops], 1, rounds):
                    opts.append([(u, v, t) for (u, v), t in zip(hops, times, strict=True)])
            if not opts:
                return False
            options.append(opts)
        options.sort(key=len)
        load: dict[tuple[int, int, int], int] = {}

        def place(i: int) -> bool:
            if i == len(options):
                return True
            for opt in options[i]:
                if all(load.get(x, 0) < cap[x[:2]] for x in opt):
                    for x in opt:
                        load[x] = load.get(x, 0) + 1
                    if place(i + 1):
                        return True
                    for x in opt:
                        load[x] -= 1
            return False

        return place(0)

    rounds = 1
    while not feasible(rounds):
        rounds += 1
        assert rounds < limit
    return rounds


def optimum(n: int, edges: tuple[Edge, ...], problem: str) -> int:
    """Fewest rounds after which every demand is met (arrivals included): the state search
    for gossip and broadcast, the routing search for total exchange."""
    if problem == "total-exchange" and n > 2:
        return routing_optimum(n, edges)
    return state_optimum(n, edges, problem)


@cache
def state_optimum(n: int, edges: tuple[Edge, ...], problem: str, limit: int = 40) -> int:
    """Fewest rounds after which every demand is met (arrivals included), by the search
    over knowledge states."""
    names, hold, need = packets_of(n, problem)
    p = len(names)
    _, _, arg = problem.partition(":")
    perms = _automorphisms(n, edges, int(arg) if arg else None)
    index = {name: i for i, name in enumerate(names)}
    moved = [[index[tuple(perm[x] for x in name)] for name in names] for perm in perms]
    ref = Reference(n, edges, p)
    full = (1 << p) - 1
    layer = {tuple(h | h << p for h in hold)}
    rounds = 0
    while not any(all(need[v] & ~s[v] & full == 0 for v in range(n)) for s in layer):
        nxt = {_canonical(t, perms, moved, p) for s in layer for t in ref.successors(s)}
        packed = {sum(x << (v * 2 * p) for v, x in enumerate(s)): s for s in nxt}
        layer = {packed[key] for key in _undominated(set(packed))}
        rounds += 1
        assert rounds < limit
    return rounds
