"""Two reference searches for the packet-limited models, sharing nothing with gossipcert.

Both work on plain edge lists and knowledge tuples (a bitmask of packets per node) and answer
the fewest rounds in which every node knows every packet (gossip) or packet 0 (broadcast from
node 0). Both rest on one fact: knowledge only helps. A round possible from a state is
possible from any larger state (a transfer of a packet the receiver already knows is simply
dropped) and leads to a larger state, so a larger state never needs more rounds.

- :func:`layered_optimum` explores the reachable states layer by layer, keeping only the
  states no other state of the layer contains. It enumerates every round a model allows and
  is slow beyond four nodes; it is kept as the plain check of the other.
- :func:`optimum` asks "done within ``R`` rounds?" for ``R`` upwards from a lower bound, by
  depth-first search with a memo of refuted (state, budget) pairs, the admissible bounds of
  :meth:`Game.lower`, and only the maximal rounds (a round to which no transfer can be added);
  it solves every connected 5-node graph for every model in minutes.

Models: ``kind`` is telephone, half-duplex, single-port or multicast; ``cap`` is the packets
per transmission (None: unbounded); ``sequential`` allows one call in the whole network per
round (telephone calls).
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import cache
from itertools import combinations, permutations, product

Edge = tuple[int, int]
State = tuple[int, ...]  # knowledge bitmask of each node


def subsets(mask: int, size: int | None) -> list[int]:
    """The sub-masks of ``mask`` with exactly ``min(size, |mask|)`` bits (all of it if None).

    Sending fewer packets than allowed is never better, so only the largest sets are tried.
    """
    items = [i for i in range(mask.bit_length()) if mask >> i & 1]
    if size is None or size >= len(items):
        return [mask]
    return [sum(1 << i for i in c) for c in combinations(items, size)]


def parse(model: str) -> tuple[str, int | None, bool]:
    """``(kind, cap, sequential)`` of a model spec such as ``single-port:p=2``."""
    name, _, opt = model.partition(":")
    cap = int(opt[2:]) if opt.startswith("p=") else None
    sequential = name == "sequential"
    if name in ("single-port", "multicast") and cap is None:
        cap = 1  # their default
    return ("telephone" if sequential else name), cap, sequential


def neighbours(n: int, edges: tuple[Edge, ...]) -> list[tuple[int, ...]]:
    """The sorted neighbours of each node."""
    return [
        tuple(sorted({b for a, b in edges if a == v} | {a for a, b in edges if b == v}))
        for v in range(n)
    ]


def automorphisms(n: int, edges: tuple[Edge, ...], fixed: int | None) -> list[tuple[int, ...]]:
    """The node permutations that map the edge set onto itself (and fix ``fixed``)."""
    edge_set = {frozenset(e) for e in edges}
    return [
        perm
        for perm in permutations(range(n))
        if (fixed is None or perm[fixed] == fixed)
        and all(frozenset((perm[u], perm[v])) in edge_set for u, v in edges)
    ]


def start_state(n: int, gossip: bool) -> State:
    """Each node holds its own packet (gossip), or node 0 holds packet 0 (broadcast)."""
    return tuple(1 << v for v in range(n)) if gossip else tuple(int(v == 0) for v in range(n))


# ===================================================================== layered search


def deliver(state: State, moves: list[tuple[int, int]]) -> State:
    """The state after each ``(receiver, mask)`` of a round (masks read the old state)."""
    new = list(state)
    for v, mask in moves:
        new[v] |= mask
    return tuple(new)


@cache
def matchings(n: int, edges: tuple[Edge, ...]) -> tuple[tuple[Edge, ...], ...]:
    """Every matching (maximal or not) of the graph."""
    out: list[tuple[Edge, ...]] = []

    def grow(i: int, used: int, chosen: list[Edge]) -> None:
        if i == len(edges):
            out.append(tuple(chosen))
            return
        u, v = edges[i]
        if not (used >> u & 1 or used >> v & 1):
            chosen.append((u, v))
            grow(i + 1, used | 1 << u | 1 << v, chosen)
            chosen.pop()
        grow(i + 1, used, chosen)

    grow(0, 0, [])
    return tuple(out)


class Reference:
    """Every round of one model on one graph (all of them, maximal or not)."""

    def __init__(
        self, n: int, edges: tuple[Edge, ...], kind: str, cap: int | None, sequential: bool
    ) -> None:
        self.n = n
        self.edges = edges
        self.kind = kind
        self.cap = cap
        self.sequential = sequential
        self.nbrs = neighbours(n, edges)
        self.arcs = [(u, v) for u in range(n) for v in self.nbrs[u]]

    def send(self, state: State, u: int, v: int) -> list[int]:
        """The packet sets worth sending from ``u`` to ``v``."""
        useful = state[u] & ~state[v]
        return subsets(useful, self.cap) if useful else []

    def successors(self, state: State) -> Iterator[State]:
        if self.sequential:
            yield from self._sequential(state)
        elif self.kind == "telephone":
            for m in matchings(self.n, self.edges):
                options = []
                for u, v in m:
                    a = self.send(state, u, v) or [0]
                    b = self.send(state, v, u) or [0]
                    options.append([((v, x), (u, y)) for x in a for y in b])
                for pick in product(*options):
                    yield deliver(state, [mv for pair in pick for mv in pair])
        elif self.kind in ("half-duplex", "single-port"):
            yield from self._point_to_point(state, 0, 0, 0, [])
        else:
            yield from self._multicast(state)

    def _sequential(self, state: State) -> Iterator[State]:
        for u, v in self.edges:
            for x in self.send(state, u, v) or [0]:
                for y in self.send(state, v, u) or [0]:
                    yield deliver(state, [(v, x), (u, y)])
        yield state

    def _point_to_point(
        self, state: State, i: int, senders: int, receivers: int, moves: list[tuple[int, int]]
    ) -> Iterator[State]:
        """Each arc in turn is used (if its ends are free) or not."""
        if i == len(self.arcs):
            yield deliver(state, moves)
            return
        u, v = self.arcs[i]
        free = not (senders >> u & 1 or receivers >> v & 1)
        if self.kind == "half-duplex":
            busy = senders | receivers
            free = not (busy >> u & 1 or busy >> v & 1)
        if free:
            for x in self.send(state, u, v):
                moves.append((v, x))
                yield from self._point_to_point(
                    state, i + 1, senders | 1 << u, receivers | 1 << v, moves
                )
                moves.pop()
        yield from self._point_to_point(state, i + 1, senders, receivers, moves)

    def _multicast(self, state: State) -> Iterator[State]:
        """Every node picks a packet set, then every receiver one sending neighbour or none."""
        for sets in product(*[subsets(state[u], self.cap) or [0] for u in range(self.n)]):
            choices = []
            for v in range(self.n):
                useful = {sets[u] & ~state[v] for u in self.nbrs[v]} - {0}
                choices.append(sorted(useful) or [0])
            for pick in product(*choices):
                yield deliver(state, list(enumerate(pick)))


def maximal(states: set[State], n: int) -> set[State]:
    """The states no other state of the set contains (each packed into one integer)."""
    packed = sorted(
        ((sum(x << (v * n) for v, x in enumerate(s)), s) for s in states),
        key=lambda item: -item[0].bit_count(),
    )
    kept: list[int] = []
    out: set[State] = set()
    for key, s in packed:
        if not any(key & k == key for k in kept):
            kept.append(key)
            out.add(s)
    return out


def canonical(state: State, perms: list[tuple[int, ...]], relabel: bool) -> State:
    """The smallest image of ``state``; with ``relabel`` packets move with their nodes."""
    best = state
    n = len(state)
    for perm in perms:
        image = [0] * n
        for v, mask in enumerate(state):
            if relabel:
                mask = sum(1 << perm[p] for p in range(n) if mask >> p & 1)
            image[perm[v]] = mask
        t = tuple(image)
        if t < best:
            best = t
    return best


@cache
def layered_optimum(n: int, edges: tuple[Edge, ...], model: str, problem: str) -> int:
    """Fewest rounds, by breadth-first search over the layers of reachable states.

    Every state of a layer is replaced by its smallest image under the graph's automorphisms
    (fixing the source of a broadcast), which is reached in as many rounds, and only the
    maximal states of a layer are kept.
    """
    kind, cap, sequential = parse(model)
    ref = Reference(n, edges, kind, cap, sequential)
    gossip = problem == "gossip"
    perms = automorphisms(n, edges, None if gossip else 0)
    full = (1 << n) - 1 if gossip else 1
    layer = {start_state(n, gossip)}
    rounds = 0
    while not any(all(x == full for x in s) for s in layer):
        nxt = {canonical(t, perms, gossip) for s in layer for t in ref.successors(s)}
        layer = maximal(nxt, n)
        rounds += 1
        assert rounds < 100
    return rounds


# ===================================================================== decision search


class Game:
    """Whether a state is done within ``R`` rounds: depth-first search for one instance.

    Pruning, each sound because it only discards what cannot finish in time or what a kept
    alternative does at least as well:

    - **Lower bounds** (:meth:`lower`): a state whose bound exceeds the rounds left is dead.
    - **Maximal rounds only** (:meth:`successors`): a round to which a transfer can still be
      added (free ports, something useful to send) leads to a smaller state than the round
      with that transfer, and a smaller state never needs fewer rounds. Likewise a
      transmission carries ``min(cap, useful)`` packets, never fewer.
    - **Memo**: a state refuted with ``b`` rounds left is refuted with any ``b' <= b``; states
      are stored as their smallest image under the graph's automorphisms (fixing the source
      of a broadcast; packets of gossip move with their nodes), which need as many rounds.
    """

    def __init__(
        self,
        n: int,
        edges: tuple[Edge, ...],
        kind: str,
        cap: int | None,
        sequential: bool,
        gossip: bool,
    ) -> None:
        self.n = n
        self.edges = edges
        self.kind = kind
        self.cap = cap
        self.sequential = sequential
        self.gossip = gossip
        self.nbrs = neighbours(n, edges)
        self.packets = n if gossip else 1
        self.full = (1 << self.packets) - 1
        self.dist = [self._distances(s) for s in range(n)]
        self.cuts = [(w, comps) for w in range(n) if len(comps := self._components(w)) > 1]
        # (position v of the image reads node inv[v], mask relabelling table) per automorphism
        self.images: list[tuple[tuple[int, ...], list[int]]] = []
        for perm in automorphisms(n, edges, None if gossip else 0):
            inv = [0] * n
            for v in range(n):
                inv[perm[v]] = v
            if gossip:
                table = [sum(1 << perm[b] for b in range(n) if m >> b & 1) for m in range(1 << n)]
            else:
                table = [0, 1]
            self.images.append((tuple(inv), table))
        self.refuted: dict[State, int] = {}  # canonical state -> most rounds left refuted

    def _distances(self, source: int) -> list[int]:
        dist = [self.n] * self.n
        dist[source] = 0
        frontier = [source]
        while frontier:
            nxt = []
            for u in frontier:
                for w in self.nbrs[u]:
                    if dist[w] == self.n:
                        dist[w] = dist[u] + 1
                        nxt.append(w)
            frontier = nxt
        return dist

    def _components(self, w: int) -> list[list[int]]:
        """The connected components of the graph without ``w``."""
        seen = {w}
        comps = []
        for root in range(self.n):
            if root in seen:
                continue
            comp, stack = [], [root]
            seen.add(root)
            while stack:
                u = stack.pop()
                comp.append(u)
                for y in self.nbrs[u]:
                    if y not in seen:
                        seen.add(y)
                        stack.append(y)
            comps.append(comp)
        return comps

    def canonical(self, s: State) -> State:
        """The smallest image of ``s`` under the automorphisms."""
        best = s
        for inv, table in self.images:
            t = tuple([table[s[v]] for v in inv])
            if t < best:
                best = t
        return best

    def lower(self, s: State) -> int:
        """A lower bound on the rounds ``s`` still needs (0 exactly when it is done).

        Each term counts what one round can do at most:

        - a packet moves one hop per round: the farthest node from a packet's holders;
        - a node receives at most one transmission of at most ``cap`` packets per round
          (every model here): ``ceil(missing / cap)``;
        - a holder sends a packet to at most one node per round except under multicast, so
          its holders at most double (at most one more under sequential calls);
        - sequential calls: one call moves at most ``cap`` packets each way, so at most
          ``2 cap`` (node, packet) pairs per round; unbounded, at most two nodes learn;
        - half-duplex: at most ``n // 2`` transmissions of ``cap`` packets per round;
          telephone ``n // 2`` calls of ``2 cap``;
        - a cut vertex ``w`` (not under multicast, whose transmission may reach several
          components at once): every packet a component lacks enters it from ``w``, one
          transmission (one call) of ``w`` per round into one component, so
          ``sum over components ceil(lacking / cap)``; under half-duplex ``w`` also spends
          ``ceil(missing_w / cap)`` rounds receiving.
        """
        n, full, cap = self.n, self.full, self.cap
        best = missing_total = incomplete = 0
        for v in range(n):
            miss = (full & ~s[v]).bit_count()
            if miss:
                incomplete += 1
                missing_total += miss
                if cap is not None:
                    best = max(best, -(-miss // cap))
        if not incomplete:
            return 0
        for x in range(self.packets):
            bit = 1 << x
            holders = [v for v in range(n) if s[v] & bit]
            k = len(holders)
            if k == n:
                continue
            far = max(min(self.dist[h][v] for h in holders) for v in range(n) if not s[v] & bit)
            best = max(best, far)
            if self.sequential:
                best = max(best, n - k)
            elif self.kind != "multicast":
                doublings = 0
                while k << doublings < n:
                    doublings += 1
                best = max(best, doublings)
        if self.sequential and cap is not None:
            best = max(best, -(-missing_total // (2 * cap)))
        elif self.sequential:
            best = max(best, -(-incomplete // 2))
        elif cap is not None and self.kind in ("half-duplex", "telephone"):
            per_round = (n // 2) * cap * (2 if self.kind == "telephone" else 1)
            best = max(best, -(-missing_total // per_round))
        if self.kind == "multicast":
            return best
        c = cap or n * n  # unbounded: one call into a component brings all it lacks
        for w, comps in self.cuts:
            r = 0
            for comp in comps:
                known = 0
                for v in comp:
                    known |= s[v]
                r += -(-(full & ~known).bit_count() // c)
            if self.kind == "half-duplex":
                r += -(-(full & ~s[w]).bit_count() // c)
            best = max(best, r)
        return best

    def useful(self, s: State, u: int, v: int) -> list[int]:
        """The packet sets ``u`` may send ``v`` (largest useful ones), or none."""
        m = s[u] & ~s[v]
        return subsets(m, self.cap) if m else []

    def successors(self, s: State) -> set[State]:
        """The states after every maximal round from ``s``."""
        out: set[State] = set()
        if self.sequential:
            for u, v in self.edges:
                for x in self.useful(s, u, v) or [0]:
                    for y in self.useful(s, v, u) or [0]:
                        if x or y:
                            out.add(deliver(s, [(v, x), (u, y)]))
        elif self.kind == "multicast":
            self._multicast(s, 0, {}, [], out)
        else:
            self._point_to_point(s, 0, 0, 0, [], out)
        return out

    def _point_to_point(
        self,
        s: State,
        v: int,
        senders: int,
        busy: int,
        moves: list[tuple[int, int]],
        out: set[State],
    ) -> None:
        """Nodes in turn: ``v`` receives from a free neighbour (telephone: calls a later free
        neighbour) or not. ``busy`` holds the receivers (single-port) or every node in a
        transfer (half-duplex, telephone); ``senders`` the senders (single-port)."""
        kind = self.kind
        if v == self.n:
            if not self._addable(s, senders, busy):
                out.add(deliver(s, moves))
            return
        if kind == "single-port":
            for u in self.nbrs[v]:
                if not senders >> u & 1:
                    for x in self.useful(s, u, v):
                        moves.append((v, x))
                        self._point_to_point(s, v + 1, senders | 1 << u, busy | 1 << v, moves, out)
                        moves.pop()
        elif kind == "half-duplex" and not busy >> v & 1:
            for u in self.nbrs[v]:
                if not busy >> u & 1:
                    for x in self.useful(s, u, v):
                        moves.append((v, x))
                        self._point_to_point(s, v + 1, senders, busy | 1 << u | 1 << v, moves, out)
                        moves.pop()
        elif kind == "telephone" and not busy >> v & 1:
            for u in self.nbrs[v]:
                if u < v or busy >> u & 1:
                    continue
                a, b = self.useful(s, u, v), self.useful(s, v, u)
                for x in a or [0]:
                    for y in b or [0]:
                        if x or y:
                            moves += [(v, x), (u, y)]
                            self._point_to_point(
                                s, v + 1, senders, busy | 1 << u | 1 << v, moves, out
                            )
                            del moves[-2:]
        self._point_to_point(s, v + 1, senders, busy, moves, out)

    def _addable(self, s: State, senders: int, busy: int) -> bool:
        """Whether a transfer can be added to the round (then the round is not maximal)."""
        for w in range(self.n):
            if busy >> w & 1:
                continue
            for u in self.nbrs[w]:
                if self.kind == "single-port":
                    if not senders >> u & 1 and s[u] & ~s[w]:
                        return True
                elif not busy >> u & 1 and (
                    s[u] & ~s[w] or (self.kind == "telephone" and s[w] & ~s[u])
                ):
                    return True
        return False

    def _multicast(
        self,
        s: State,
        v: int,
        sent: dict[int, int],
        moves: list[tuple[int, int]],
        out: set[State],
    ) -> None:
        """Nodes in turn: ``v`` takes the transmission of one neighbour (fixing what that
        neighbour sends, if not yet fixed) or none. ``sent``: sender -> its packet set."""
        if v == self.n:
            receivers = {w for w, _ in moves}
            for w in range(self.n):
                if w not in receivers:
                    for u in self.nbrs[w]:
                        if (sent[u] if u in sent else s[u]) & ~s[w]:
                            return  # w could still take u's transmission: not maximal
            out.add(deliver(s, moves))
            return
        for u in self.nbrs[v]:
            for x in [sent[u]] if u in sent else subsets(s[u], self.cap):
                gain = x & ~s[v]
                if gain:
                    fixed = u not in sent
                    sent[u] = x
                    moves.append((v, gain))
                    self._multicast(s, v + 1, sent, moves, out)
                    moves.pop()
                    if fixed:
                        del sent[u]
        self._multicast(s, v + 1, sent, moves, out)

    def within(self, s: State, budget: int) -> bool:
        """Whether ``s`` can be completed in ``budget`` rounds."""
        bound = self.lower(s)
        if bound == 0:
            return True
        if bound > budget:
            return False
        key = self.canonical(s)
        if self.refuted.get(key, -1) >= budget:
            return False
        ranked = []
        for t in self.successors(s):
            bound = self.lower(t)
            if bound < budget:
                ranked.append((bound, -sum(x.bit_count() for x in t), t))
        ranked.sort()
        if any(self.within(t, budget - 1) for _, _, t in ranked):
            return True
        self.refuted[key] = budget
        return False


@cache
def optimum(n: int, edges: tuple[Edge, ...], model: str, problem: str) -> int:
    """Fewest rounds, by the decision search from the lower bound upwards."""
    kind, cap, sequential = parse(model)
    game = Game(n, edges, kind, cap, sequential, problem == "gossip")
    start = start_state(n, problem == "gossip")
    rounds = game.lower(start)
    while not game.within(start, rounds):
        rounds += 1
    return rounds
