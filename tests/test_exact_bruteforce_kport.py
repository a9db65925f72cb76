"""The k-port model's exact solver against an independent search on every small graph.

The reference search below shares nothing with :mod:`gossipcert`: it builds holdings and
demands from plain edge lists and decides "done within ``R`` rounds?" for ``R`` upwards by
depth-first search over knowledge states (a bitmask of packets per node). A round of the
k-port model: every node sends at most ``k`` transmissions, each to one neighbour and at
most one to each, and receives at most ``k``; a transmission carries at most ``p`` packets
its sender knew before the round. What the search leaves out is shown not to change the
answer:

- **knowledge only helps**: a round possible from a state is possible from a larger state
  and leads to a larger state (a packet the receiver knows is dropped), so only *maximal*
  rounds are tried, rounds to which no transfer of a useful packet can be added, and a
  transmission carries ``min(p, useful)`` packets;
- **useful packets**: with ``B`` rounds left (this one included) a packet is sent to ``v``
  only if ``v`` lacks it and demands it or lies within ``B - 1`` hops of a node that
  demands and lacks it; any other copy reaches no demander in time, and dropping it frees a
  port;
- **lower bounds** (a state whose bound exceeds the rounds left is dead), each counting what
  one round can do at most: a packet moves one hop a round; a node receives ``k p`` packets
  a round; the nodes knowing a packet grow at most ``(k + 1)``-fold; a packet is received at
  least once by every node that lacks it, and at least once at each hop to the farthest of
  them, and a round holds at most ``p`` times the most arcs with ``k`` at each tail and each
  head (a maximum flow) of receipts; every packet that a set
  ``T`` demands and does not hold crosses the arcs into ``T``, at most ``p`` times the most
  of them one round may use (``k`` per tail and per head, one transmission an arc); a cut
  vertex sends every packet a side lacks into it, and receives every packet a side alone
  holds, ``k p`` a round;
- **memo**: a state refuted with ``B`` rounds left is refuted with fewer; states are stored
  as their smallest image under the automorphisms of the graph that map holdings and demands
  onto themselves (packets renamed with the nodes that name them).

The search is checked by hand, against the single-port reference of
``packets_reference.py`` at ``k = 1`` and against the all-port reference of
``test_exact_bruteforce_allport.py`` when ``k`` reaches the largest degree (every arc carries
one packet a round). Then every connected graph of the networkx atlas with 2 to 5 nodes is
solved by the project, for gossip, broadcast from node 0 and total exchange under
``k-port:k=2``, with the SAT and the CP-SAT back-end, and the search confirms each optimum
``R``: the solver's schedule, replayed under the rules written here (:func:`replay`), meets
every demand after ``R`` rounds, and the exhaustive search finds no schedule of ``R - 1``
rounds. The closed-form bounds must bracket the optima. ``k-port:k=1`` is the single-port model:
the solver gives it single-port's optima.

Allreduce under k-port is encoded by k-port's own rules (at most ``k`` transmissions out and
in a node, one an arc, one ``op`` each): with ``redop=max`` combining dominates copying, so
the partial of each chunk is the set of contributions its holder has heard of, and a second
search over those sets gives the optimum the solver must find on the graphs of 2 and 3
nodes (on 4 nodes that search is too slow for the suite; there ``k = 1`` must give
single-port's optima and ``k = 2`` no more, and fewer on the star).
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import cache
from itertools import combinations, permutations

import networkx as nx
import pytest
from packets_reference import optimum as single_port_optimum
from test_exact_bruteforce_allport import reference_optimum as all_port_optimum
from typer.testing import CliRunner

import gossipcert
from gossipcert.cli import app
from gossipcert.closed_forms import all_bounds
from gossipcert.instance import Instance, make_instance, parse_model, parse_problem
from gossipcert.search.entry import solve
from gossipcert.simulate import simulate

Edge = tuple[int, int]
State = tuple[int, ...]

PROBLEMS = ("gossip", "broadcast:0", "total-exchange")
BACKENDS = ("sat", "cpsat")

# ====================================================================== the reference


def problem_masks(n: int, problem: str) -> tuple[list[tuple[int, ...]], State, State]:
    """Packet names (node tuples), holdings and demands, built from the problem's words."""
    names: list[tuple[int, ...]] = []
    hold, need = [0] * n, [0] * n
    if problem == "gossip":
        for v in range(n):
            names.append((v,))
            hold[v] |= 1 << v
        need = [(1 << n) - 1] * n
    elif problem == "broadcast:0":
        names.append((0,))
        hold[0] = 1
        need = [1] * n
    elif problem == "total-exchange":
        for u in range(n):
            for v in range(n):
                if u != v:
                    hold[u] |= 1 << len(names)
                    need[v] |= 1 << len(names)
                    names.append((u, v))
    else:
        raise ValueError(f"no reference for {problem!r}")
    return names, tuple(hold), tuple(need)


def neighbours(n: int, edges: tuple[Edge, ...]) -> list[list[int]]:
    return [
        sorted({b for a, b in edges if a == v} | {a for a, b in edges if b == v}) for v in range(n)
    ]


def distances(nbrs: list[list[int]], source: int) -> list[int]:
    n = len(nbrs)
    dist = [n] * n
    dist[source] = 0
    front = [source]
    while front:
        front_next = []
        for u in front:
            for w in nbrs[u]:
                if dist[w] == n:
                    dist[w] = dist[u] + 1
                    front_next.append(w)
        front = front_next
    return dist


def components_without(nbrs: list[list[int]], v: int) -> list[list[int]]:
    """The components of the graph without ``v``."""
    seen, out = {v}, []
    for root in range(len(nbrs)):
        if root in seen:
            continue
        comp, stack = [], [root]
        seen.add(root)
        while stack:
            u = stack.pop()
            comp.append(u)
            for w in nbrs[u]:
                if w not in seen:
                    seen.add(w)
                    stack.append(w)
        out.append(comp)
    return out


def union(masks: State, nodes: list[int]) -> int:
    out = 0
    for v in nodes:
        out |= masks[v]
    return out


class KPortSearch:
    """Whether a state finishes within ``B`` rounds, for one graph, ``k``, ``p`` and problem
    (see the module docstring)."""

    def __init__(self, n: int, edges: tuple[Edge, ...], k: int, p: int, problem: str) -> None:
        self.n, self.k, self.p = n, k, p
        self.nbrs = neighbours(n, edges)
        names, self.hold, self.need = problem_masks(n, problem)
        self.packets = len(names)
        self.dist = [distances(self.nbrs, v) for v in range(n)]
        self.sides = [components_without(self.nbrs, v) for v in range(n)]
        self.cuts: list[tuple[list[int], list[int], int]] = []  # S, T, packets a round
        for size in range(1, n):
            for side in combinations(range(n), size):
                arcs = [(u, v) for u in side for v in self.nbrs[u] if v not in side]
                tails, heads = len({u for u, _ in arcs}), len({v for _, v in arcs})
                per_round = p * min(len(arcs), k * tails, k * heads)
                rest = [v for v in range(n) if v not in side]
                self.cuts.append((list(side), rest, per_round))
        # the most transmissions one round may hold: arcs with at most k at each tail and
        # at each head (a maximum flow)
        flow = nx.DiGraph()
        for u in range(n):
            flow.add_edge("s", ("out", u), capacity=k)
            flow.add_edge(("in", u), "t", capacity=k)
            for v in self.nbrs[u]:
                flow.add_edge(("out", u), ("in", v), capacity=1)
        self.per_round = p * int(nx.maximum_flow_value(flow, "s", "t"))
        index = {name: i for i, name in enumerate(names)}
        self.images: list[tuple[tuple[int, ...], list[int]]] = []
        edge_set = {frozenset(e) for e in edges}
        for perm in permutations(range(n)):
            if not all(frozenset((perm[a], perm[b])) in edge_set for a, b in edges):
                continue
            moved = [index.get(tuple(perm[x] for x in name)) for name in names]
            if None not in moved:  # the problem is mapped onto itself
                self.images.append((perm, [m for m in moved if m is not None]))
        self.refuted: dict[State, int] = {}

    # ------------------------------------------------------------------ bounds

    def lower(self, s: State) -> int:
        """Rounds ``s`` still needs at least (0 exactly when every demand is met)."""
        n, k, p = self.n, self.k, self.p
        lack = tuple(self.need[v] & ~s[v] for v in range(n))
        if not any(lack):
            return 0
        best = max(-(-m.bit_count() // (k * p)) for m in lack)
        receipts = 0
        for x in range(self.packets):
            holders = [v for v in range(n) if s[v] >> x & 1]
            wanting = [v for v in range(n) if lack[v] >> x & 1]
            if not wanting:
                continue
            far = max(min(self.dist[h][v] for h in holders) for v in wanting)
            best = max(best, far)
            receipts += max(far, len(wanting))
            grown, goal, r = len(holders), len(holders) + len(wanting), 0
            while grown < goal:
                grown *= k + 1
                r += 1
            best = max(best, r)
        best = max(best, -(-receipts // self.per_round))
        for side, rest, per_round in self.cuts:
            must = union(lack, rest) & ~union(s, rest) & union(s, side)
            if must:
                best = max(best, -(-must.bit_count() // per_round))
        for v in range(n):
            comps = self.sides[v]
            if len(comps) < 2:
                continue
            sends = receipts = 0
            for comp in comps:
                others = [w for c in comps if c is not comp for w in c]
                has = union(s, comp)
                sends += (union(lack, comp) & ~has).bit_count()
                elsewhere = union(lack, others) | lack[v]
                receipts += (has & ~(union(s, others) | s[v]) & elsewhere).bit_count()
            best = max(best, -(-sends // (k * p)), -(-receipts // (k * p)))
        return best

    # ------------------------------------------------------------------ rounds

    def useful(self, s: State, u: int, v: int, budget: int) -> list[int]:
        """Packets worth sending from ``u`` to ``v`` with ``budget`` rounds left, those
        ``v`` demands first, then by the distance to a node that needs them."""
        out = []
        for x in range(self.packets):
            if not s[u] >> x & 1 or s[v] >> x & 1:
                continue
            if self.need[v] >> x & 1:
                out.append((0, x))
                continue
            near = min(
                (
                    self.dist[v][w]
                    for w in range(self.n)
                    if self.need[w] >> x & 1 and not s[w] >> x & 1
                ),
                default=self.n,
            )
            if near <= budget - 1:
                out.append((near, x))
        return [x for _, x in sorted(out)]

    def successors(self, s: State, budget: int) -> Iterator[State]:
        """The states after the maximal rounds of useful transfers from ``s``, each once,
        receiver by receiver (each choosing up to ``k`` free senders and a packet set from
        each)."""
        n, k, p = self.n, self.k, self.p
        offers: dict[tuple[int, int], list[int]] = {}
        for v in range(n):
            for u in self.nbrs[v]:
                xs = self.useful(s, u, v, budget)
                if xs:
                    offers[(u, v)] = [
                        sum(1 << x for x in c) for c in combinations(xs, min(p, len(xs)))
                    ]
        seen: set[State] = set()
        sent, got, new = [0] * n, [0] * n, list(s)
        used: set[tuple[int, int]] = set()

        def maximal() -> bool:
            return not any(got[v] < k and sent[u] < k and (u, v) not in used for u, v in offers)

        def receiver(v: int) -> Iterator[State]:
            if v == n:
                state = tuple(new)
                if state not in seen and maximal():
                    seen.add(state)
                    yield state
                return
            yield from pick(v, [u for u in self.nbrs[v] if (u, v) in offers], 0)

        def pick(v: int, senders: list[int], i: int) -> Iterator[State]:
            for j in range(i, len(senders) if got[v] < k else i):
                u = senders[j]
                if sent[u] >= k:
                    continue
                for mask in offers[(u, v)]:
                    before = new[v]
                    new[v] |= mask
                    sent[u], got[v] = sent[u] + 1, got[v] + 1
                    used.add((u, v))
                    yield from pick(v, senders, j + 1)
                    used.discard((u, v))
                    sent[u], got[v] = sent[u] - 1, got[v] - 1
                    new[v] = before
            yield from receiver(v + 1)

        yield from receiver(0)

    def canonical(self, s: State) -> State:
        best = s
        for perm, rename in self.images:
            image = [0] * self.n
            for v, mask in enumerate(s):
                image[perm[v]] = sum(1 << rename[x] for x in range(self.packets) if mask >> x & 1)
            if tuple(image) < best:
                best = tuple(image)
        return best

    def within(self, s: State, budget: int) -> bool:
        bound = self.lower(s)
        if bound == 0:
            return True
        if bound > budget:
            return False
        key = self.canonical(s)
        if self.refuted.get(key, -1) >= budget:
            return False
        if any(self.within(t, budget - 1) for t in self.successors(s, budget)):
            return True
        self.refuted[key] = budget
        return False

    def optimum(self) -> int:
        rounds = self.lower(self.hold)
        while not self.within(self.hold, rounds):
            rounds += 1
        return rounds


@cache
def brute_force(n: int, edges: tuple[Edge, ...], problem: str, k: int = 2, p: int = 1) -> int:
    """Fewest k-port rounds meeting every demand of ``problem`` (see :class:`KPortSearch`)."""
    return KPortSearch(n, edges, k, p, problem).optimum()


# ============================================================ the allreduce reference


Partials = tuple[int, ...]  # node v's partial of chunk c at index v * n + c: contributors


class AllreduceMaxSearch:
    """Whether a state of ``allreduce:redop=max`` finishes within ``B`` rounds under k-port
    (one chunk per node, every node contributing to and demanding every chunk complete).

    Under ``max`` a combine yields the union of the two partials and a copy the received
    one, a subset of that union, and a larger partial never hurts (it sends and combines
    into larger ones): so every receipt combines, a partial is the set of contributions its
    holder has heard of, and a transmission of ``p`` chunks unites the sender's partials of
    them into the receiver's. The search is the one of :class:`KPortSearch` on these states:
    maximal rounds (``k`` arcs out and in a node, one transmission an arc, each carrying
    ``min(p, useful)`` chunks of which the sender knows a contribution the receiver lacks),
    a memo of refuted states, and lower bounds: a contribution moves one hop a round; a node
    receives ``k p`` chunks a round and each incomplete chunk at least once; the nodes that
    know a contribution to a chunk grow at most ``(k + 1)``-fold.
    """

    def __init__(self, n: int, edges: tuple[Edge, ...], k: int, p: int) -> None:
        self.n, self.k, self.p = n, k, p
        self.nbrs = neighbours(n, edges)
        self.dist = [distances(self.nbrs, v) for v in range(n)]
        self.full = (1 << n) - 1
        self.refuted: dict[tuple[tuple[int, ...], ...], int] = {}

    def start(self) -> Partials:
        return tuple(1 << v for v in range(self.n) for _ in range(self.n))

    def lower(self, s: Partials) -> int:
        n, k, p = self.n, self.k, self.p
        best = 0
        for v in range(n):
            incomplete = sum(s[v * n + c] != self.full for c in range(n))
            best = max(best, -(-incomplete // (k * p)))
        for c in range(n):
            for w in range(n):
                holders = [v for v in range(n) if s[v * n + c] >> w & 1]
                if len(holders) == n:
                    continue
                best = max(
                    best,
                    max(
                        min(self.dist[h][v] for h in holders)
                        for v in range(n)
                        if not s[v * n + c] >> w & 1
                    ),
                )
                grown, r = len(holders), 0
                while grown < n:
                    grown *= k + 1
                    r += 1
                best = max(best, r)
        return best

    def successors(self, s: Partials) -> Iterator[Partials]:
        n, k, p = self.n, self.k, self.p
        offers = {}
        for v in range(n):
            for u in self.nbrs[v]:
                useful = [c for c in range(n) if s[u * n + c] & ~s[v * n + c]]
                if useful:
                    offers[(u, v)] = list(combinations(useful, min(p, len(useful))))
        seen: set[Partials] = set()
        sent, got, new = [0] * n, [0] * n, list(s)
        used: set[tuple[int, int]] = set()

        def receiver(v: int) -> Iterator[Partials]:
            if v == n:
                state = tuple(new)
                maximal = not any(
                    got[b] < k and sent[a] < k and (a, b) not in used for a, b in offers
                )
                if maximal and state not in seen:
                    seen.add(state)
                    yield state
                return
            yield from pick(v, [u for u in self.nbrs[v] if (u, v) in offers], 0)

        def pick(v: int, senders: list[int], i: int) -> Iterator[Partials]:
            for j in range(i, len(senders) if got[v] < k else i):
                u = senders[j]
                if sent[u] >= k:
                    continue
                for chunks in offers[(u, v)]:
                    before = [new[v * n + c] for c in chunks]
                    for c in chunks:
                        new[v * n + c] |= s[u * n + c]
                    sent[u], got[v] = sent[u] + 1, got[v] + 1
                    used.add((u, v))
                    yield from pick(v, senders, j + 1)
                    used.discard((u, v))
                    sent[u], got[v] = sent[u] - 1, got[v] - 1
                    for c, b in zip(chunks, before, strict=True):
                        new[v * n + c] = b
            yield from receiver(v + 1)

        yield from receiver(0)

    def within(self, s: Partials, budget: int) -> bool:
        bound = self.lower(s)
        if bound == 0:
            return True
        if bound > budget:
            return False
        key = self.canonical(s)
        if self.refuted.get(key, -1) >= budget:
            return False
        if any(self.within(t, budget - 1) for t in self.successors(s)):
            return True
        self.refuted[key] = budget
        return False

    def canonical(self, s: Partials) -> tuple[tuple[int, ...], ...]:
        """``s`` with its chunks sorted: the chunks are interchangeable (each has every node
        as contributor and demander), and renaming them maps schedules to schedules."""
        n = self.n
        return tuple(sorted(tuple(s[v * n + c] for v in range(n)) for c in range(n)))

    def optimum(self) -> int:
        rounds = self.lower(self.start())
        while not self.within(self.start(), rounds):
            rounds += 1
        return rounds


@cache
def allreduce_max(n: int, edges: tuple[Edge, ...], k: int, p: int = 1) -> int:
    """Fewest k-port rounds of ``allreduce:redop=max`` (:class:`AllreduceMaxSearch`)."""
    return AllreduceMaxSearch(n, edges, k, p).optimum()


# ====================================================================== the graphs


@cache
def atlas(max_n: int) -> tuple[tuple[int, int, tuple[Edge, ...]], ...]:
    """(atlas index, n, edges) of every connected graph with 2 to ``max_n`` nodes."""
    out = []
    for index, g in enumerate(nx.graph_atlas_g()):
        if 1 < g.number_of_nodes() <= max_n and nx.is_connected(g):
            h = nx.convert_node_labels_to_integers(g)
            out.append(
                (index, h.number_of_nodes(), tuple(sorted(map(tuple, map(sorted, h.edges())))))
            )
    return tuple(out)


def project_instance(n: int, edges: tuple[Edge, ...], model: str, problem: str) -> Instance:
    g = nx.Graph()
    g.add_nodes_from(range(n))
    g.add_edges_from(edges)
    nx.set_node_attributes(g, {v: str(v) for v in g}, "label")
    nx.set_node_attributes(g, False, "router")
    nx.set_edge_attributes(g, 1, "capacity")
    return make_instance(g, parse_model(model), parse_problem(problem))


Round = list[tuple[int, int, int]]  # (sender, receiver, packets) transmissions


def replay(
    n: int, edges: tuple[Edge, ...], problem: str, k: int, p: int, rounds: list[Round]
) -> int | None:
    """The round after which every demand is met, replaying ``rounds`` under the k-port
    rules written here (None when a rule is broken or a demand is never met): a receiver is
    a neighbour, the packets are known to the sender before the round, at most ``p`` of them,
    at most ``k`` transmissions out of and into a node, at most one on an arc."""
    nbrs = neighbours(n, edges)
    _, know, need = problem_masks(n, problem)
    state = list(know)
    if all(need[v] & ~state[v] == 0 for v in range(n)):
        return 0
    for t, rnd in enumerate(rounds, start=1):
        arcs = [(u, v) for u, v, _ in rnd]
        if len(set(arcs)) < len(arcs):
            return None
        if any(sum(a[i] == x for a in arcs) > k for i in (0, 1) for x in range(n)):
            return None
        new = list(state)
        for u, v, mask in rnd:
            if v not in nbrs[u] or mask & ~state[u] or mask.bit_count() > p:
                return None
            new[v] |= mask
        state = new
        if all(need[v] & ~state[v] == 0 for v in range(n)):
            return t
    return None


@cache
def project_result(
    n: int, edges: tuple[Edge, ...], model: str, problem: str, backend: str, strict: bool
) -> tuple[str, int | None, tuple[tuple[tuple[int, int, int], ...], ...]]:
    """The solver's status, optimum and schedule (as plain transmissions, the packets
    renamed to this module's numbering)."""
    inst = project_instance(n, edges, model, problem)
    res = solve(inst, backend=backend, use_bounds=False, proof=False, strict=strict)
    names, _, _ = problem_masks(n, problem)
    index = {name: i for i, name in enumerate(names)}

    def mine(name: object) -> int:
        return index[name if isinstance(name, tuple) else (name,)]

    rounds: list[tuple[tuple[int, int, int], ...]] = []
    for rnd in res.schedule.rounds if res.schedule is not None else ():
        out = []
        for tr in rnd:
            assert tr.packets is not None  # k-port caps every transmission
            mask = sum(
                1 << mine(inst.packet_names[x])
                for x in range(inst.n_packets)
                if tr.packets >> x & 1
            )
            out.extend((tr.sender, r, mask) for r in tr.receivers)
        rounds.append(tuple(out))
    return res.status, res.optimum, tuple(rounds)


def project_optimum(
    n: int, edges: tuple[Edge, ...], model: str, problem: str, backend: str, strict: bool
) -> tuple[str, int | None]:
    status, optimum, _ = project_result(n, edges, model, problem, backend, strict)
    return status, optimum


def disagreement(
    n: int, edges: tuple[Edge, ...], model: str, problem: str, backend: str, strict: bool
) -> str | None:
    """Why the reference does not confirm the solver's optimum ``R`` (None: it does): the
    solver's schedule, replayed by :func:`replay`, meets every demand after ``R`` rounds,
    and the search finds no schedule of ``R - 1`` rounds."""
    spec = parse_model(model)
    k, p = spec.k or 1, spec.packet_cap or 1
    status, optimum, rounds = project_result(n, edges, model, problem, backend, strict)
    if status != "optimal" or optimum is None:
        return f"the solver says {status}"
    done = replay(n, edges, problem, k, p, [list(r) for r in rounds])
    if done != optimum:
        return f"its schedule replays to {done} rounds, not {optimum}"
    if optimum and KPortSearch(n, edges, k, p, problem).within(
        problem_masks(n, problem)[1], optimum - 1
    ):
        return f"the search finishes in {optimum - 1} rounds"
    return None


@cache
def confirmed_optimum(
    n: int, edges: tuple[Edge, ...], problem: str, model: str = "k-port:k=2"
) -> int:
    """The optimum, the SAT solver's confirmed by the reference (:func:`disagreement`)."""
    why = disagreement(n, edges, model, problem, "sat", False)
    assert why is None, f"{edges} {model} {problem}: {why}"
    optimum = project_optimum(n, edges, model, problem, "sat", False)[1]
    assert optimum is not None
    return optimum


def mismatches(
    model: str, problem: str, backend: str, max_n: int, strict: bool = False
) -> list[str]:
    out = []
    for index, n, edges in atlas(max_n):
        why = disagreement(n, edges, model, problem, backend, strict)
        if why is not None:
            out.append(f"atlas {index} {edges}: {model} {problem} {backend}: {why}")
    return out


def path(n: int) -> tuple[Edge, ...]:
    return tuple((i, i + 1) for i in range(n - 1))


def star(n: int) -> tuple[Edge, ...]:
    return tuple((0, v) for v in range(1, n))


def ring(n: int) -> tuple[Edge, ...]:
    return (*path(n), (0, n - 1))


def complete(n: int) -> tuple[Edge, ...]:
    return tuple((u, v) for u in range(n) for v in range(u + 1, n))


# ====================================================================== the tests


@pytest.mark.parametrize(
    ("n", "edges", "problem", "k", "expected"),
    [
        # the centre sends each leaf the other 3 leaves' packets and its own: 16 sends, 2 a
        # round
        (5, star(5), "gossip", 2, 8),
        (5, star(5), "gossip", 1, 16),
        # 12 leaf-to-leaf packets in and out of the centre, and its own 4 out: 16 sends
        (5, star(5), "total-exchange", 2, 8),
        # 1 -> 3 -> 9 nodes informed: two rounds, and one round informs only three
        (5, complete(5), "broadcast:0", 2, 2),
        (5, complete(5), "gossip", 2, 2),  # each node learns 4 packets, 2 a round
        (5, complete(5), "total-exchange", 2, 2),  # 4 out and 4 in a node, 2 a round
        # k = 2 reaches the degree: every arc in every round, and the ends are 4 hops apart
        (5, path(5), "gossip", 2, 4),
        # 6 packets cross the arc 1 -> 2 (from {0, 1} to {2, 3, 4}), one a round
        (5, path(5), "total-exchange", 2, 6),
        # each node sends its 4 packets and relays 2 (the ones two hops away): 6 sends
        (5, ring(5), "total-exchange", 2, 3),
    ],
)
def test_reference_hand_checked(
    n: int, edges: tuple[Edge, ...], problem: str, k: int, expected: int
) -> None:
    assert brute_force(n, edges, problem, k) == expected


@pytest.mark.parametrize("problem", ["gossip", "broadcast:0"])
def test_reference_with_one_port_is_the_single_port_reference(problem: str) -> None:
    """At k = 1 the search gives the optima of the single-port reference of
    ``packets_reference.py`` (written independently), for p = 1 and 2."""
    found = [
        f"atlas {index} p={p}: k=1 {mine}, single-port {theirs}"
        for index, n, edges in atlas(4 if problem == "gossip" else 5)
        for p in (1, 2)
        if (mine := brute_force(n, edges, problem, 1, p))
        != (theirs := single_port_optimum(n, edges, f"single-port:p={p}", problem))
    ]
    assert not found, "\n".join(found)


@pytest.mark.parametrize("problem", PROBLEMS)
def test_reference_with_every_port_is_the_all_port_reference(problem: str) -> None:
    """With k at the largest degree and p = 1 every arc carries one packet every round:
    the optima of the all-port reference of ``test_exact_bruteforce_allport.py`` with
    capacity 1 (written independently)."""
    found = []
    for index, n, edges in atlas(4):
        k = max(len(nb) for nb in neighbours(n, edges))
        mine = brute_force(n, edges, problem, k)
        theirs = all_port_optimum(n, tuple((u, v, 1) for u, v in edges), frozenset(), problem)
        if mine != theirs:
            found.append(f"atlas {index} k={k}: {mine}, all-port {theirs}")
    assert not found, "\n".join(found)


def test_reference_monotone_in_k() -> None:
    """More ports are never slower."""
    for _, n, edges in atlas(4):
        for problem in PROBLEMS:
            optima = [brute_force(n, edges, problem, k) for k in (1, 2, 3)]
            assert optima == sorted(optima, reverse=True), (edges, problem, optima)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("problem", PROBLEMS)
def test_solver_matches_bruteforce(problem: str, backend: str) -> None:
    """Every connected graph with 2 to 5 nodes under k-port:k=2 (the solver's schedules
    replayed by the verifier on the way)."""
    found = mismatches("k-port:k=2", problem, backend, max_n=5)
    assert not found, "\n".join(found)


@pytest.mark.parametrize("problem", ["gossip", "broadcast:0"])
def test_solver_matches_bruteforce_with_two_packets_a_transmission(problem: str) -> None:
    found = mismatches("k-port:k=2,p=2", problem, "sat", max_n=4)
    assert not found, "\n".join(found)


@pytest.mark.parametrize("problem", PROBLEMS)
def test_strict_solver_matches_bruteforce(problem: str) -> None:
    """No symmetry breaking, no useless-send rule: the plain encoding."""
    found = mismatches("k-port:k=2", problem, "sat", max_n=4, strict=True)
    assert not found, "\n".join(found)


@pytest.mark.parametrize("problem", PROBLEMS)
def test_bounds_bracket_the_optimum(problem: str) -> None:
    """Every closed-form bound that applies to k-port:k=2 holds: a lower bound at most the
    optimum, an upper bound at least it (the bounds stated for every model of a shape read
    the model's ports)."""
    found = []
    for index, n, edges in atlas(5):
        optimum = confirmed_optimum(n, edges, problem)
        for b in all_bounds(project_instance(n, edges, "k-port:k=2", problem)):
            if (b.kind == "lower" and b.value > optimum) or (
                b.kind == "upper" and b.value < optimum
            ):
                found.append(f"atlas {index}: {b.name} {b.kind} {b.value}, optimum {optimum}")
    assert not found, "\n".join(found)


@pytest.mark.parametrize("problem", PROBLEMS)
def test_solve_with_bounds_and_constructions_matches_bruteforce(problem: str) -> None:
    """The default search (bounds, constructions, heuristics) on the 4-node graphs."""
    found = []
    for index, n, edges in atlas(4):
        expected = confirmed_optimum(n, edges, problem)
        res = solve(project_instance(n, edges, "k-port:k=2", problem), proof=False)
        if (res.status, res.optimum) != ("optimal", expected):
            found.append(f"atlas {index}: {res.status} {res.optimum}, brute force {expected}")
    assert not found, "\n".join(found)


@pytest.mark.parametrize("problem", PROBLEMS)
def test_one_port_is_single_port(problem: str) -> None:
    """k-port:k=1 is the single-port model: the same optima from the solver."""
    found = [
        f"atlas {index}: {a} {b}"
        for index, n, edges in atlas(4)
        if (a := project_optimum(n, edges, "k-port:k=1", problem, "sat", False))
        != (b := project_optimum(n, edges, "single-port", problem, "sat", False))
    ]
    assert not found, "\n".join(found)


def test_drat_evidence() -> None:
    """A refutation of one round fewer, checked by the two checkers."""
    n, edges = 5, star(5)
    inst = project_instance(n, edges, "k-port:k=2", "gossip")
    res = solve(inst, use_bounds=False)
    assert res.status == "optimal" and res.optimum == brute_force(n, edges, "gossip") == 8
    assert res.evidence["kind"].startswith("drat"), res.evidence
    checkers = res.evidence["checkers"]
    assert len(checkers) >= 2 and {c["status"] for c in checkers} == {"verified"}, checkers
    assert res.evidence["rounds"] == 7


@cache
def solved(n: int, edges: tuple[Edge, ...], model: str, problem: str) -> tuple[str, int | None]:
    """The solver's status and optimum (its schedule replayed by the verifier)."""
    inst = project_instance(n, edges, model, problem)
    res = solve(inst, proof=False)
    assert res.schedule is not None and simulate(inst, res.schedule).rounds == res.optimum
    return res.status, res.optimum


@pytest.mark.parametrize("k", [1, 2, 3])
def test_allreduce_is_encoded_by_k_port_rules(k: int) -> None:
    """allreduce under k-port on every connected graph with 2 or 3 nodes: with
    ``redop=max`` the solver's optimum is the reference's; with ``sum`` (double counts
    forbidden) it is certified, at least that, and its schedule replays."""
    found = []
    for index, n, edges in atlas(3):
        expected = allreduce_max(n, edges, k)
        for problem in ("allreduce:redop=max", "allreduce"):
            inst = project_instance(n, edges, f"k-port:k={k}", problem)
            res = solve(inst, proof=False)
            assert res.schedule is not None and simulate(inst, res.schedule).ok
            fits = res.optimum == expected if problem.endswith("max") else res.optimum >= expected
            if res.status != "optimal" or not fits:
                found.append(f"atlas {index} {problem}: {res.status} {res.optimum}, max {expected}")
    assert not found, "\n".join(found)


@pytest.mark.parametrize("problem", ["allreduce", "allreduce:redop=max"])
def test_allreduce_with_one_port_is_single_port_and_more_ports_help(problem: str) -> None:
    """On the 4-node graphs: k = 1 gives single-port's optimum, k = 2 at most that (a
    single-port schedule is a k-port one), and on the star the hub's two ports nearly halve
    it (14 rounds, 8): k-port is not encoded as single-port."""
    for index, n, edges in atlas(4):
        if n < 4:
            continue
        one = solved(n, edges, "k-port:k=1", problem)
        single = solved(n, edges, "single-port", problem)
        two = solved(n, edges, "k-port:k=2", problem)
        assert one == single and one[0] == two[0] == "optimal", index
        assert two[1] is not None and one[1] is not None and two[1] <= one[1], index
    assert solved(4, star(4), "k-port:k=2", problem) == ("optimal", 8)
    assert solved(4, star(4), "single-port", problem) == ("optimal", 14)


def test_allreduce_reference_hand_checked() -> None:
    # two nodes, two chunks: each way one chunk a round, the other's in the second round
    assert allreduce_max(2, path(2), 2) == 2
    # path 0-1-2 in single-port (k = 1): the centre receives 2 chunks from each end and
    # sends 3 complete chunks to each: the solver's single-port optimum, 7
    assert allreduce_max(3, path(3), 1) == 7


def test_certificate_checks_and_the_command_line_takes_k() -> None:
    """The certificate of a k-port optimum is re-checked from its file's words (the formula
    regenerated by k-port's encoding); the command line takes ``k-port:k=2`` and refuses a
    spec without ``k``, or a bad one, in one line with exit 2."""
    res = gossipcert.solve("star:5", "k-port:k=2", "gossip")
    assert res.status == "optimal" and res.optimum == 8 and res.certified
    assert gossipcert.check(res.certificate()).ok
    runner = CliRunner()
    out = runner.invoke(app, ["solve", "ring:5", "--model", "k-port:k=2", "--json"])
    assert out.exit_code == 0, out.stderr
    assert '"optimum": 2' in out.stdout
    for spec, words in [
        ("k-port", "k-port needs its ports per node, k=N"),
        ("k-port:k=0", "k must be at least 1"),
        ("k-port:c=2", "arc capacity c=N applies to all-port only"),
        ("telephone:k=2", "telephone takes no ports per node k=N"),
    ]:
        out = runner.invoke(app, ["solve", "ring:5", "--model", spec])
        assert out.exit_code == 2 and words in out.stderr and "Traceback" not in out.stderr
