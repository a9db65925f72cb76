"""The all-port solver against an independent search, with capacities and routers.

The reference search below shares nothing with :mod:`gossipcert`: it builds holdings and
demands itself from plain edge lists, capacities and router sets, and explores the
reachable knowledge states round by round. In the all-port model the arcs into a node
decide alone what that node learns, so a round is a choice, for every node ``v``, of what
each in-arc ``u -> v`` carries (``min(c(u, v), |useful|)`` of the packets ``u`` knows and
``v`` does not; fewer is never better); per node only the inclusion-maximal results are
kept, and per layer only the states no other state contains (knowledge only helps), each
replaced by its smallest image under the automorphisms that keep the routers, the
capacities and the problem's root (packets move with their nodes).

For the personalized problems (scatter, gather, total exchange) a second, simpler search
routes every packet along a timed simple path (see :func:`routing_optimum`); the two
searches are compared where both are quick. Every connected graph of the networkx atlas
with up to 4 nodes (5 for the rooted problems and broadcast), with capacity 1 everywhere,
2 everywhere, or 2 on the edges at the lowest node and 1 elsewhere, and with its
largest-degree node made a router (when two processors remain), is solved by both; the
optima must agree, for both back-ends. The generic encoding is checked on every graph, the
time-indexed tree encoding (:mod:`gossipcert.encodings.tree`) on the trees among them.
"""

from __future__ import annotations

from functools import cache
from itertools import combinations, pairwise, permutations, product

import networkx as nx
import pytest

from gossipcert.instance import Instance, make_instance, parse_model, parse_problem
from gossipcert.search.entry import solve

Edge = tuple[int, int, int]  # u, v, capacity
State = tuple[int, ...]

# ================================================================ the reference search


def packets_of(
    n: int, routers: frozenset[int], problem: str
) -> tuple[list[tuple[int, ...]], State, State]:
    """Packet names (node tuples), holdings and demands of a problem, built from scratch."""
    procs = [v for v in range(n) if v not in routers]
    kind, _, arg = problem.partition(":")
    root = int(arg) if arg else None
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
        for v in procs:
            add((v,), v, procs)
    elif kind == "broadcast":
        assert root is not None
        add((root,), root, procs)
    elif kind == "scatter":
        assert root is not None
        for v in procs:
            if v != root:
                add((v,), root, [v])
    elif kind == "gather":
        assert root is not None
        for v in procs:
            if v != root:
                add((v,), v, [root])
    else:
        for u in procs:
            for v in procs:
                if u != v:
                    add((u, v), u, [v])
    return names, tuple(hold), tuple(need)


def maximal_masks(masks: set[int]) -> set[int]:
    """The masks no other mask of the set contains."""
    ordered = sorted(masks, key=lambda m: -m.bit_count())
    kept: list[int] = []
    for m in ordered:
        if not any(m & k == m for k in kept):
            kept.append(m)
    return set(kept)


def choices(useful: int, cap: int) -> list[int]:
    """The ``min(cap, |useful|)``-subsets of ``useful``."""
    items = [i for i in range(useful.bit_length()) if useful >> i & 1]
    if len(items) <= cap:
        return [useful]
    return [sum(1 << i for i in c) for c in combinations(items, cap)]


class AllPortReference:
    """Rounds of the all-port model on one capacitated graph."""

    def __init__(self, n: int, edges: tuple[Edge, ...]) -> None:
        self.n = n
        self.into: list[list[tuple[int, int]]] = [[] for _ in range(n)]  # v -> [(u, c)]
        for u, v, c in edges:
            self.into[v].append((u, c))
            self.into[u].append((v, c))

    def learn_options(self, state: State, v: int) -> set[int]:
        """The inclusion-maximal sets of packets ``v`` can receive in one round."""
        got = {0}
        for u, c in self.into[v]:
            useful = state[u] & ~state[v]
            if not useful:
                continue
            got = maximal_masks({g | s for g in got for s in choices(useful, c)})
        return got

    def successors(self, state: State) -> list[State]:
        per_node = [sorted(self.learn_options(state, v)) for v in range(self.n)]
        return [tuple(state[v] | pick[v] for v in range(self.n)) for pick in product(*per_node)]


def automorphisms(
    n: int, edges: tuple[Edge, ...], routers: frozenset[int], fixed: int | None
) -> list[tuple[int, ...]]:
    """Node permutations keeping the edges with their capacities, the routers and ``fixed``."""
    cap = {frozenset((u, v)): c for u, v, c in edges}
    return [
        perm
        for perm in permutations(range(n))
        if (fixed is None or perm[fixed] == fixed)
        and all((perm[v] in routers) == (v in routers) for v in range(n))
        and all(cap.get(frozenset((perm[u], perm[v]))) == c for u, v, c in edges)
    ]


def canonical(state: State, perms: list[tuple[int, ...]], names: list[tuple[int, ...]]) -> State:
    """The smallest image of ``state``; every packet moves with the nodes that name it."""
    index = {name: i for i, name in enumerate(names)}
    best = state
    for perm in perms:
        moved = [index[tuple(perm[x] for x in name)] for name in names]
        image = [0] * len(state)
        for v, mask in enumerate(state):
            image[perm[v]] = sum(1 << moved[p] for p in range(len(names)) if mask >> p & 1)
        t = tuple(image)
        if t < best:
            best = t
    return best


def maximal_states(states: set[State], bits_per_node: int) -> set[State]:
    packed = sorted(
        ((sum(x << (v * bits_per_node) for v, x in enumerate(s)), s) for s in states),
        key=lambda item: -item[0].bit_count(),
    )
    kept: list[int] = []
    out: set[State] = set()
    for key, s in packed:
        if not any(key & k == key for k in kept):
            kept.append(key)
            out.add(s)
    return out


@cache
def brute_force(n: int, edges: tuple[Edge, ...], routers: frozenset[int], problem: str) -> int:
    """Fewest all-port rounds meeting every demand of ``problem``."""
    names, hold, need = packets_of(n, routers, problem)
    _, _, arg = problem.partition(":")
    perms = automorphisms(n, edges, routers, int(arg) if arg else None)
    ref = AllPortReference(n, edges)

    def done(s: State) -> bool:
        return all(need[v] & ~s[v] == 0 for v in range(n))

    layer = {hold}
    rounds = 0
    while not any(done(s) for s in layer):
        nxt = {canonical(t, perms, names) for s in layer for t in ref.successors(s)}
        layer = maximal_states(nxt, len(names))
        rounds += 1
        assert rounds < 50
    return rounds


def simple_paths(adj: list[list[int]], src: int, dst: int) -> list[list[int]]:
    """Every simple path from ``src`` to ``dst``, as node lists."""
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


@cache
def routing_optimum(n: int, edges: tuple[Edge, ...], routers: frozenset[int], problem: str) -> int:
    """Fewest rounds for a personalized problem (one holder, one demander per packet).

    Copies never help there: keeping, for each packet, only the transfers along which it
    first reached its destination leaves a valid schedule of the same length, and a walk
    that revisits a node can wait there instead. So every packet follows a simple path,
    each arc crossed in its own round, in increasing rounds, and at most ``c(u, v)``
    packets cross an arc per round; a depth-first search over these timed paths decides
    each horizon in turn.
    """
    names, hold, need = packets_of(n, routers, problem)
    adj: list[list[int]] = [[] for _ in range(n)]
    cap: dict[tuple[int, int], int] = {}
    for u, v, c in edges:
        adj[u].append(v)
        adj[v].append(u)
        cap[(u, v)] = cap[(v, u)] = c
    ends = []
    for p in range(len(names)):
        (src,) = [v for v in range(n) if hold[v] >> p & 1]
        (dst,) = [v for v in range(n) if need[v] >> p & 1]
        ends.append((src, dst))

    def feasible(rounds: int) -> bool:
        options: list[list[list[tuple[int, int, int]]]] = []
        for src, dst in ends:
            opts = []
            for path in simple_paths(adj, src, dst):
                hops = list(pairwise(path))
                for times in combinations(range(1, rounds + 1), len(hops)):
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

    rounds = 0
    while not feasible(rounds):
        rounds += 1
    return rounds


def reference_optimum(
    n: int, edges: tuple[Edge, ...], routers: frozenset[int], problem: str
) -> int:
    """The knowledge-state search for gossip and broadcast, the routing search otherwise."""
    if problem.startswith(("gossip", "broadcast")):
        return brute_force(n, edges, routers, problem)
    return routing_optimum(n, edges, routers, problem)


# ====================================================================== the cases


@cache
def atlas(max_n: int) -> tuple[tuple[int, int, tuple[tuple[int, int], ...]], ...]:
    out = []
    for index, g in enumerate(nx.graph_atlas_g()):
        if 1 < g.number_of_nodes() <= max_n and nx.is_connected(g):
            h = nx.convert_node_labels_to_integers(g)
            out.append(
                (index, h.number_of_nodes(), tuple(sorted(tuple(sorted(e)) for e in h.edges())))
            )
    return tuple(out)


def capacitated(edges: tuple[tuple[int, int], ...], pattern: str) -> tuple[Edge, ...]:
    """Capacity 1 (``one``), 2 (``two``) or 2 on the edges at node 0 and 1 elsewhere (``mixed``)."""
    if pattern == "one":
        return tuple((u, v, 1) for u, v in edges)
    if pattern == "two":
        return tuple((u, v, 2) for u, v in edges)
    return tuple((u, v, 2 if 0 in (u, v) else 1) for u, v in edges)


def router_sets(n: int, edges: tuple[tuple[int, int], ...]) -> list[frozenset[int]]:
    """No router, and the largest-degree node (highest label on ties) as a router when the
    other nodes stay two or more processors."""
    out = [frozenset()]
    if n >= 3:
        deg = [sum(v in e for e in edges) for v in range(n)]
        out.append(frozenset({max(range(n), key=lambda v: (deg[v], v))}))
    return out


def project_instance(
    n: int, edges: tuple[Edge, ...], routers: frozenset[int], problem: str
) -> Instance:
    g = nx.Graph()
    g.add_nodes_from(range(n))
    for u, v, c in edges:
        g.add_edge(u, v, capacity=c)
    nx.set_node_attributes(g, {v: str(v) for v in g}, "label")
    nx.set_node_attributes(g, {v: v in routers for v in g}, "router")
    return make_instance(g, parse_model("all-port"), parse_problem(problem))


def root_of(routers: frozenset[int], n: int) -> int:
    return min(v for v in range(n) if v not in routers)


def mismatches(
    problem: str,
    backend: str,
    strict: bool,
    max_n: int,
    pattern: str,
    encoding: str = "knowledge",
) -> list[str]:
    """Disagreements of the solver with the reference; ``encoding="tree"`` takes the trees
    of the atlas only (the generic encoding, ``knowledge``, every graph)."""
    out = []
    for index, n, plain in atlas(max_n):
        if encoding == "tree" and len(plain) != n - 1:
            continue
        edges = capacitated(plain, pattern)
        for routers in router_sets(n, plain):
            spec = problem
            if problem in ("broadcast", "scatter", "gather"):
                spec = f"{problem}:{root_of(routers, n)}"
            expected = reference_optimum(n, edges, routers, spec)
            inst = project_instance(n, edges, routers, spec)
            res = solve(
                inst,
                backend=backend,
                use_bounds=False,
                proof=False,
                strict=strict,
                encoding=encoding,
            )
            if (res.status, res.optimum) != ("optimal", expected):
                out.append(
                    f"atlas {index} {edges} routers {sorted(routers)} {spec}: brute force "
                    f"{expected}, solver {res.status} {res.optimum}"
                )
    return out


PROBLEMS = ("gossip", "broadcast", "scatter", "gather", "total-exchange")
PATTERNS = ("one", "two", "mixed")


def max_nodes(problem: str) -> int:
    return 4 if problem in ("gossip", "total-exchange") else 5


# ====================================================================== the tests


@pytest.mark.parametrize(
    ("n", "edges", "routers", "problem", "expected"),
    [
        # a path 0-1-2: two packets on each arc, and (0, 2) crosses 0->1 before 1->2
        (3, ((0, 1, 1), (1, 2, 1)), frozenset(), "total-exchange", 2),
        (3, ((0, 1, 2), (1, 2, 2)), frozenset(), "total-exchange", 2),
        # a star with a router centre: each leaf sends 2 packets through one arc of capacity 1
        (4, ((0, 3, 1), (1, 3, 1), (2, 3, 1)), frozenset({3}), "total-exchange", 3),
        (4, ((0, 3, 1), (1, 3, 1), (2, 3, 1)), frozenset({3}), "gossip", 3),
        (4, ((0, 3, 1), (1, 3, 1), (2, 3, 1)), frozenset({3}), "broadcast:0", 2),
        (4, ((0, 1, 1), (0, 2, 1), (0, 3, 1)), frozenset(), "scatter:0", 1),
        (4, ((0, 1, 1), (1, 2, 1), (2, 3, 1)), frozenset(), "gather:0", 3),
        # the farthest packet first: three packets on arc 0->1, the last arrives in round 3
        (4, ((0, 1, 1), (1, 2, 1), (2, 3, 1)), frozenset(), "scatter:0", 3),
    ],
)
def test_reference_hand_checked(
    n: int, edges: tuple[Edge, ...], routers: frozenset[int], problem: str, expected: int
) -> None:
    assert brute_force(n, edges, routers, problem) == expected


def test_reference_monotone_in_capacity() -> None:
    """Capacity 2 everywhere is never slower than 1, nor than the mixed pattern."""
    for _, n, plain in atlas(4):
        for routers in router_sets(n, plain):
            for problem in ("gossip", "total-exchange", f"gather:{root_of(routers, n)}"):
                one, two, mixed = (
                    reference_optimum(n, capacitated(plain, p), routers, problem) for p in PATTERNS
                )
                assert two <= mixed <= one


@pytest.mark.parametrize("problem", ["scatter", "gather", "total-exchange"])
def test_two_references_agree(problem: str) -> None:
    """The routing search and the knowledge-state search give the same personalized optima
    (where the state search is quick: scatter and gather, total exchange on three
    processors)."""
    for _, n, plain in atlas(4 if problem == "total-exchange" else 5):
        for routers in router_sets(n, plain):
            if problem == "total-exchange" and n - len(routers) > 3:
                continue
            spec = problem if problem == "total-exchange" else f"{problem}:{root_of(routers, n)}"
            for pattern in PATTERNS:
                edges = capacitated(plain, pattern)
                assert routing_optimum(n, edges, routers, spec) == brute_force(
                    n, edges, routers, spec
                ), (plain, routers, spec, pattern)


@pytest.mark.parametrize("backend", ["sat", "cpsat"])
@pytest.mark.parametrize("pattern", PATTERNS)
@pytest.mark.parametrize("problem", PROBLEMS)
def test_solver_matches_bruteforce(problem: str, pattern: str, backend: str) -> None:
    found = mismatches(problem, backend, False, max_nodes(problem), pattern)
    assert not found, "\n".join(found)


@pytest.mark.parametrize("problem", PROBLEMS)
def test_strict_solver_matches_bruteforce(problem: str) -> None:
    """No symmetry breaking and no useless-send rule: the plain encoding."""
    found = mismatches(problem, "sat", True, 4, "mixed")
    assert not found, "\n".join(found)


@pytest.mark.parametrize("backend", ["sat", "cpsat"])
@pytest.mark.parametrize("problem", PROBLEMS)
def test_tree_encoding_matches_bruteforce(problem: str, backend: str) -> None:
    """The time-indexed tree encoding on the trees of the atlas, every capacity pattern."""
    found = [
        line
        for pattern in PATTERNS
        for line in mismatches(problem, backend, False, max_nodes(problem), pattern, "tree")
    ]
    assert not found, "\n".join(found)
