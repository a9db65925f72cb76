"""The exact solver against an independent search for every packet-limited model.

The reference search below shares nothing with :mod:`gossipcert`: it works on plain edge
lists and knowledge tuples, enumerates every round a model allows (who sends to whom, and
which packets) and explores the reachable knowledge states layer by layer, keeping only the
states no other state of the layer contains (knowledge only helps: a round possible from a
state is possible from any larger one and leads to a larger state). Connected graphs of the
networkx atlas are solved by both, for gossip and for broadcast from node 0, and the optima
must agree.
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import cache
from itertools import combinations, permutations, product

import networkx as nx
import pytest

from gossipcert.encodings import EncodingOptions, encoding_for
from gossipcert.exact.backends import Status, make_backend
from gossipcert.exact.search import solve
from gossipcert.instance import Instance, make_instance, parse_instance, parse_model, parse_problem

Edge = tuple[int, int]
State = tuple[int, ...]  # knowledge bitmask of each node

# ================================================================ the reference search


def subsets(mask: int, size: int | None) -> list[int]:
    """The sub-masks of ``mask`` with exactly ``min(size, |mask|)`` bits (all of it if None).

    Sending fewer packets than allowed is never better, so only the largest sets are tried.
    """
    items = [i for i in range(mask.bit_length()) if mask >> i & 1]
    if size is None or size >= len(items):
        return [mask]
    return [sum(1 << i for i in c) for c in combinations(items, size)]


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


def deliver(state: State, moves: list[tuple[int, int]]) -> State:
    """The state after each ``(receiver, mask)`` of a round (masks read the old state)."""
    new = list(state)
    for v, mask in moves:
        new[v] |= mask
    return tuple(new)


class Reference:
    """Rounds of one model on one graph.

    ``kind`` is telephone, half-duplex, single-port or multicast; ``cap`` the packets per
    transmission (None: unbounded); ``sequential``: one call or transmission per round.
    """

    def __init__(
        self, n: int, edges: tuple[Edge, ...], kind: str, cap: int | None, sequential: bool
    ) -> None:
        self.n = n
        self.edges = edges
        self.kind = kind
        self.cap = cap
        self.sequential = sequential
        self.nbrs = [
            sorted({b for a, b in edges if a == v} | {a for a, b in edges if b == v})
            for v in range(n)
        ]
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
        if self.kind == "telephone":
            for u, v in self.edges:
                for x in self.send(state, u, v) or [0]:
                    for y in self.send(state, v, u) or [0]:
                        yield deliver(state, [(v, x), (u, y)])
        elif self.kind == "multicast":
            for u in range(self.n):
                for group in range(1, 1 << len(self.nbrs[u])):
                    receivers = [w for i, w in enumerate(self.nbrs[u]) if group >> i & 1]
                    for s in subsets(state[u], self.cap):
                        yield deliver(state, [(w, s) for w in receivers])
        else:
            for u, v in self.arcs:
                for x in self.send(state, u, v):
                    yield deliver(state, [(v, x)])
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


def automorphisms(n: int, edges: tuple[Edge, ...], fixed: int | None) -> list[tuple[int, ...]]:
    """The node permutations that map the edge set onto itself (and fix ``fixed``)."""
    edge_set = {frozenset(e) for e in edges}
    return [
        perm
        for perm in permutations(range(n))
        if (fixed is None or perm[fixed] == fixed)
        and all(frozenset((perm[u], perm[v])) in edge_set for u, v in edges)
    ]


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
def brute_force(n: int, edges: tuple[Edge, ...], model: str, problem: str) -> int:
    """Fewest rounds in which every node knows every packet (gossip) or packet 0 (broadcast).

    Every state of a layer is replaced by its smallest image under the graph's automorphisms
    (fixing the source of a broadcast), which is reached in as many rounds.
    """
    name, _, opt = model.partition(":")
    cap = int(opt[2:]) if opt.startswith("p=") else None
    sequential = name == "sequential"
    kind = "telephone" if sequential else name
    if name in ("single-port", "multicast") and cap is None:
        cap = 1  # their default
    ref = Reference(n, edges, kind, cap, sequential)
    gossip = problem == "gossip"
    perms = automorphisms(n, edges, None if gossip else 0)
    if gossip:
        start: State = tuple(1 << v for v in range(n))
        full = (1 << n) - 1
    else:
        start = tuple(1 if v == 0 else 0 for v in range(n))
        full = 1
    layer = {start}
    rounds = 0
    while not any(all(x == full for x in s) for s in layer):
        nxt = {canonical(t, perms, gossip) for s in layer for t in ref.successors(s)}
        layer = maximal(nxt, n)
        rounds += 1
        assert rounds < 100
    return rounds


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
    """The instance as the project builds it."""
    g = nx.Graph()
    g.add_nodes_from(range(n))
    g.add_edges_from(edges)
    nx.set_node_attributes(g, {v: str(v) for v in g}, "label")
    nx.set_node_attributes(g, False, "router")
    nx.set_edge_attributes(g, 1, "capacity")
    return make_instance(g, parse_model(model), parse_problem(problem))


MODELS = (
    "telephone:p=1",
    "telephone:p=2",
    "half-duplex:p=1",
    "half-duplex:p=2",
    "single-port",
    "single-port:p=2",
    "multicast",
    "multicast:p=2",
    "sequential",
    "sequential:p=1",
    "sequential:p=2",
)
PROBLEMS = ("gossip", "broadcast:0")
BACKENDS = ("sat", "cpsat")


def cases(max_n: int) -> tuple[tuple[int, int, tuple[Edge, ...]], ...]:
    """The connected atlas graphs with 2 to ``max_n`` nodes."""
    return atlas(max_n)


def project_optimum(
    n: int, edges: tuple[Edge, ...], model: str, problem: str, backend: str, strict: bool
) -> tuple[str, int | None]:
    inst = project_instance(n, edges, model, problem)
    res = solve(inst, backend=backend, use_bounds=False, proof=False, strict=strict)
    return res.status, res.optimum


def mismatches(model: str, problem: str, backend: str, strict: bool, max_n: int) -> list[str]:
    out = []
    for index, n, edges in cases(max_n):
        expected = brute_force(n, edges, model, problem)
        got = project_optimum(n, edges, model, problem, backend, strict)
        if got != ("optimal", expected):
            out.append(f"atlas {index} {edges}: {model} {problem}: brute force {expected}, {got}")
    return out


# ====================================================================== the tests


@pytest.mark.parametrize(
    ("graph", "model", "problem", "expected"),
    [
        ("ring:4", "single-port", "gossip", 3),  # n - 1 (Dimakopoulos)
        ("ring:3", "single-port", "gossip", 2),
        ("ring:4", "half-duplex:p=1", "gossip", 6),  # 2(n - 1), n even
        ("ring:3", "half-duplex:p=1", "gossip", 6),  # 2n, n odd
        ("complete:4", "sequential", "gossip", 4),  # 2n - 4 (Bermond et al.)
        ("complete:4", "sequential:p=1", "gossip", 6),  # n(n - 1)/2
        ("path:3", "sequential", "gossip", 3),  # 2n - 3 on a tree
        ("star:4", "multicast", "broadcast:0", 1),
        ("path:4", "multicast", "gossip", 4),
    ],
)
def test_reference_hand_checked(graph: str, model: str, problem: str, expected: int) -> None:
    inst = parse_instance(graph, "telephone", "gossip")
    edges = tuple(sorted((min(e), max(e)) for e in inst.graph.edges))
    assert brute_force(inst.n, edges, model, problem) == expected


def test_reference_consistent() -> None:
    """More packets per round, or more freedom, is never slower; one call a round is."""
    for _, n, edges in cases(4):
        for problem in PROBLEMS:
            bf = {m: brute_force(n, edges, m, problem) for m in MODELS}
            assert bf["telephone:p=2"] <= bf["telephone:p=1"]
            assert bf["half-duplex:p=2"] <= bf["half-duplex:p=1"]
            assert bf["single-port"] <= bf["half-duplex:p=1"]
            assert bf["single-port"] <= bf["telephone:p=1"]
            assert bf["multicast"] <= bf["single-port"]
            assert bf["sequential"] <= bf["sequential:p=2"] <= bf["sequential:p=1"]
            assert bf["telephone:p=1"] <= bf["sequential:p=1"]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("problem", PROBLEMS)
@pytest.mark.parametrize("model", MODELS)
def test_solver_matches_bruteforce(model: str, problem: str, backend: str) -> None:
    found = mismatches(model, problem, backend, strict=False, max_n=4 if problem == "gossip" else 5)
    assert not found, "\n".join(found)


@pytest.mark.slow
@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("model", MODELS)
def test_solver_matches_bruteforce_five_node_gossip(model: str, backend: str) -> None:
    """Gossip on the 21 connected graphs with 5 nodes (the reference takes minutes here)."""
    found = mismatches(model, "gossip", backend, strict=False, max_n=5)
    assert not found, "\n".join(found)


@pytest.mark.parametrize("problem", PROBLEMS)
@pytest.mark.parametrize("model", MODELS)
def test_strict_solver_matches_bruteforce(model: str, problem: str) -> None:
    """No symmetry breaking, no useless-send rule, no canonical order: the plain encoding."""
    found = mismatches(model, problem, "sat", strict=True, max_n=4)
    assert not found, "\n".join(found)


def transfer_optimum(inst: Instance) -> int:
    """Fewest rounds by the transfer encoding alone (ascending SAT queries, no bounds)."""
    enc = encoding_for(inst, EncodingOptions.for_search(), transfer=True)
    solver = make_backend("sat", enc.formula)
    try:
        r = 0
        while solver.solve([enc.selector(r)]) is not Status.SAT:
            r += 1
        return r
    finally:
        solver.close()


@pytest.mark.parametrize("problem", PROBLEMS)
@pytest.mark.parametrize("model", ["telephone", "half-duplex", "sequential"])
def test_transfer_encoding_agrees_with_knowledge_encoding(model: str, problem: str) -> None:
    """Unbounded packets: the per-packet encoding and the knowledge encoding (or, for
    sequential calls, the reference) give the same optima."""
    found = []
    for index, n, edges in cases(5):
        inst = project_instance(n, edges, model, problem)
        got = transfer_optimum(inst)
        if model == "sequential":
            expected = brute_force(n, edges, model, problem) if n <= 4 else got
        else:
            res = solve(inst, use_bounds=False, proof=False)
            assert type(encoding_for(inst)).__name__ in ("TelephoneEncoding", "HalfDuplexEncoding")
            expected = res.optimum
        if got != expected:
            found.append(f"atlas {index}: transfer {got}, expected {expected}")
    assert not found, "\n".join(found)


@pytest.mark.parametrize(
    ("graph", "model", "strict"),
    [
        ("path:4", "single-port", False),
        ("ring:4", "half-duplex:p=1", True),
        ("complete:4", "sequential:p=1", False),
        ("complete:4", "sequential", True),
        ("path:4", "multicast", False),
        ("star:4", "telephone:p=2", True),
    ],
)
def test_drat_evidence(graph: str, model: str, strict: bool) -> None:
    inst = parse_instance(graph, model, "gossip")
    edges = tuple(sorted((min(e), max(e)) for e in inst.graph.edges))
    expected = brute_force(inst.n, edges, model, "gossip")
    res = solve(inst, use_bounds=False, strict=strict)
    assert res.status == "optimal" and res.optimum == expected
    assert res.evidence["kind"] == "drat"
    checkers = res.evidence["checkers"]
    assert len(checkers) >= 2 and {c["status"] for c in checkers} == {"verified"}, checkers
    assert res.evidence["rounds"] == expected - 1
    assert ("note" in res.evidence) is not strict
