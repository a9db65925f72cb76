"""The SAT reference of :mod:`tests.reductions_sat` on its own: its lexicographic, cut and
window constraints, known optima, its redundant constraints against the plain model, and
its ``max`` optimum against the breadth-first search of :mod:`tests.reductions_bfs`."""

from __future__ import annotations

from itertools import product

import networkx as nx
import pytest
from pysat.formula import IDPool
from pysat.solvers import Solver

from tests.reductions_bfs import BruteForce
from tests.reductions_sat import (
    Send,
    components,
    demands,
    feasible,
    formula,
    lex_geq,
    sends_of,
    spread,
    sum_from_max,
    through,
    windows,
)
from tests.reductions_sat import optimum as sat_optimum

K4 = [(a, b) for a in range(4) for b in range(a + 1, 4)]
STAR = [(0, 1), (0, 2), (0, 3)]
P3 = [(0, 1), (1, 2)]
#: two triangles sharing node 4, and the triangle 1, 2, 3 with the path 3, 4, 0
BOWTIE = [(0, 1), (0, 4), (1, 4), (2, 3), (2, 4), (3, 4)]
ATLAS_36 = [(0, 4), (1, 2), (1, 3), (2, 3), (3, 4)]


def test_lex_geq_is_the_lexicographic_order() -> None:
    """Every pair of 0/1 vectors of length 3: the clauses hold for some values of their
    auxiliary variables exactly when ``x >= y`` lexicographically."""
    for x, y in product(product((0, 1), repeat=3), repeat=2):
        pool = IDPool()
        xs = [pool.id(("x", i)) for i in range(3)]
        ys = [pool.id(("y", i)) for i in range(3)]
        clauses: list[list[int]] = []
        lex_geq(list(zip(xs, ys, strict=True)), pool, clauses)
        units = [[v if b else -v] for v, b in zip(xs + ys, x + y, strict=True)]
        with Solver(name="glucose4", bootstrap_with=clauses + units) as s:
            assert s.solve() == (x >= y), (x, y)


def test_cut_counts() -> None:
    """The star's center must take every chunk from each leaf and give it to each; a path's
    middle node passes a chunk for the root 0 from one side only."""
    full = 0b1111
    assert through(4, STAR, 0, full) == (3, 3)
    assert through(4, STAR, 1, full) == (1, 1)
    assert through(3, P3, 1, 0b001) == (1, 1)
    assert through(3, P3, 0, 0b001) == (1, 0)
    assert through(4, K4, 0, full) == (1, 1)
    # below the center's 12 receipts of the four allreduce chunks: refuted without search
    clauses, _ = formula(4, STAR, "single-port", "allreduce", 1, 11)
    assert [] in clauses


def test_spread_and_windows() -> None:
    """Single-port spreading times, and the windows of the bowtie's middle node: each of the
    ten chunks is completed from each side after round 2 (a side has two nodes) and two
    rounds before the end (the other side has two demanders)."""
    assert spread(4, STAR, 0, 0b1110, 0b1111) == 3  # the center informs one leaf a round
    assert spread(4, K4, 0, 0b1110, 0b1111) == 2
    assert spread(4, STAR, 1, 0b1000, 0b1111) == 2
    assert spread(4, STAR, 1, 0b1000, 0b0111) == 4  # leaf 3 is not within: unreachable
    assert spread(3, P3, 1, 0, 0b111) == 0
    assert windows(4, STAR, 0, [0b1111]) == [(1, 2)] * 3
    assert windows(4, STAR, 0, [0b0001]) == [(1, 0)] * 3  # reduce to the center
    assert windows(4, STAR, 1, [0b0010]) == [(3, 0)]
    assert windows(5, BOWTIE, 4, demands(5, "allreduce", 2)) == [(2, 2)] * 20


@pytest.mark.parametrize("edges", [BOWTIE, ATLAS_36])
def test_windows_refute_without_search(edges: list[tuple[int, int]]) -> None:
    """Single-port allreduce of two chunks a node on the bowtie and on atlas 36: the middle
    node (4, resp. 3) completes each of the ten chunks from each of its two sides, in
    distinct rounds from 2 to ``R - 2``, so 22 rounds are refuted by the count (a pigeonhole
    CDCL does not find)."""
    assert [] in formula(5, edges, "single-port", "allreduce", 2, 22)[0]
    assert [] not in formula(5, edges, "single-port", "allreduce", 2, 23)[0]


def completions(
    n: int, edges: list[tuple[int, int]], dem: list[int], sends: frozenset[Send], v: int
) -> list[tuple[int, int, int]]:
    """For the pairs of a chunk and a component of :func:`windows` (in its order), the
    component, the round after which ``v`` first holds all its contributions (the partials
    grown by unions over ``sends``: the ``max`` view; 0 if never) and the sender into ``v`` of
    that chunk in that round (-1 if none)."""
    held = [[1 << x] * len(dem) for x in range(n)]
    pairs = [(c, comp) for c, d in enumerate(dem) for comp in components(n, edges, v) if d & ~comp]
    done = dict.fromkeys(pairs, (0, -1))
    for t in range(1, 1 + max((r for *_, r in sends), default=0)):
        moves = [(a, b, c) for _, a, b, c, r in sends if r == t]
        new = [row[:] for row in held]
        for a, b, c in moves:
            new[b][c] |= held[a][c]
        held = new
        for c, comp in pairs:
            if not done[c, comp][0] and held[v][c] & comp == comp:
                done[c, comp] = t, next((a for a, b, x in moves if b == v and x == c), -1)
    return [(comp, *done[c, comp]) for c, comp in pairs]


@pytest.mark.parametrize(
    ("edges", "problem", "k", "rounds", "redop"),
    [
        (STAR, "allreduce", 1, 14, "max"),
        (STAR, "allreduce", 1, 15, "sum"),
        (STAR, "reduce-scatter", 1, 10, "max"),
        (STAR, "reduce", 2, 8, "sum"),
        (P3, "allreduce", 2, 14, "max"),
        (P3, "reduce-scatter", 2, 9, "sum"),
        (ATLAS_36, "allreduce", 1, 13, "max"),
        (BOWTIE, "reduce-scatter", 1, 11, "sum"),
    ],
)
def test_completions_lie_in_their_windows(
    edges: list[tuple[int, int]], problem: str, k: int, rounds: int, redop: str
) -> None:
    """The claim of constraint 7 on five schedules each of the plain model (some above the
    optimum, some under ``sum``, reduce to node 0): at every node, each pair of a chunk and a
    component is completed in a round of its window, by a receipt from the component, each
    in a round of its own."""
    n = max(max(e) for e in edges) + 1
    dem = demands(n, problem, k)
    clauses, pool = formula(n, edges, "single-port", problem, k, rounds, 0, False, redop)
    with Solver(name="cadical195", bootstrap_with=clauses) as s:
        for _ in range(5):
            assert s.solve()
            sends = sends_of(pool, s.get_model() or [])
            for v in range(n):
                found = completions(n, edges, dem, sends, v)
                spans = windows(n, edges, v, dem)
                assert len({t for _, t, _ in found}) == len(found)
                for (comp, t, sender), (b, m) in zip(found, spans, strict=True):
                    assert b <= t <= rounds - m and sender >= 0 and comp >> sender & 1
            s.add_clause([-pool.id(key) for key in sends])


#: every connected graph of 3 and 4 nodes (the path, triangle, star, path, paw, cycle,
#: diamond and complete graph)
CONNECTED_3_4 = [i for i in range(6, 19) if nx.is_connected(nx.graph_atlas(i))]


@pytest.mark.parametrize(
    ("i", "k"), [(i, 1) for i in CONNECTED_3_4] + [(i, 2) for i in CONNECTED_3_4[:2]]
)
def test_windows_keep_the_optimum(i: int, k: int) -> None:
    """Single-port allreduce: the optimum with the redundant constraints, the windows 7
    among them, is the plain model's (it meets it and refutes one round less). On the star
    the windows refute 13 rounds with one chunk by the count alone (the center completes
    each of its 12 pairs of chunk and leaf in rounds 1 to ``R - 2``); the plain model takes
    a second or two (CaDiCaL; Glucose, :func:`feasible`'s solver for small formulas, takes
    several times longer)."""
    g = nx.graph_atlas(i)
    args = (g.number_of_nodes(), list(g.edges), "single-port", "allreduce", k)
    best = sat_optimum(*args, 1)
    for rounds, expected in ((best, True), (best - 1, False)):
        clauses, _ = formula(*args, rounds, redundant=False)
        with Solver(name="cadical195", bootstrap_with=clauses) as s:
            assert s.solve() == expected, rounds


@pytest.mark.parametrize(
    ("n", "edges", "model", "problem", "k", "root", "expected"),
    [
        (4, K4, "single-port", "allreduce", 1, 0, 6),  # 2 K (n - 1)
        (3, P3, "single-port", "allreduce", 1, 0, 7),
        (3, P3, "all-port", "allreduce", 2, 0, 7),
        (4, STAR, "single-port", "reduce-scatter", 2, 0, 18),  # the center takes 18 chunks
        (4, STAR, "single-port", "reduce", 1, 1, 3),  # into the center, then to leaf 1
        (4, K4, "telephone", "reduce-scatter", 1, 0, 2),  # time reversal of gossip on K_4
        (4, STAR, "all-port", "reduce", 1, 1, 2),
        (4, [(0, 1), (1, 2), (2, 3), (3, 0)], "telephone", "allreduce", 2, 0, 2),
    ],
)
def test_known_optima(
    n: int, edges: list[tuple[int, int]], model: str, problem: str, k: int, root: int, expected: int
) -> None:
    assert feasible(n, edges, model, problem, k, expected, root)
    assert not feasible(n, edges, model, problem, k, expected - 1, root)


def test_the_search_goes_both_ways() -> None:
    assert sat_optimum(3, P3, "single-port", "allreduce", 1, 1) == 7
    assert sat_optimum(3, P3, "single-port", "allreduce", 1, 20) == 7
    assert sat_optimum(4, K4, "all-port", "reduce-scatter", 2, 0) == 2


def small_cases() -> list[tuple[int, str, str, int, int]]:
    """Every connected graph of 2 and 3 nodes and the 4-node star and path, every model, the
    three problems (reduce from node 0 and from the last node), one and two chunks."""
    out = []
    for i, g in enumerate(nx.graph_atlas_g()):
        n = g.number_of_nodes()
        small = 2 <= n <= 3 and nx.is_connected(g)
        named = n == 4 and any(nx.is_isomorphic(g, h) for h in (nx.star_graph(3), nx.path_graph(4)))
        if not (small or named):
            continue
        for model in ("telephone", "single-port", "all-port"):
            for k in (1, 2) if small else (1,):
                out += [(i, model, "reduce", r, k) for r in (0, n - 1)]
                out += [(i, model, p, 0, k) for p in ("reduce-scatter", "allreduce")]
    return out


def optimum(case: tuple[int, str, str, int, int]) -> int:
    i, model, problem, root, k = case
    g = nx.graph_atlas(i)
    return sat_optimum(g.number_of_nodes(), list(g.edges), model, problem, k, 1, root)


def hard(case: tuple[int, str, str, int, int]) -> bool:
    """The star and the path in single-port with reduce-scatter or allreduce, and two
    chunks of those on 3 nodes: long horizons, left to the sweep."""
    i, model, problem, _, k = case
    n = nx.graph_atlas(i).number_of_nodes()
    heavy = model == "single-port" and problem != "reduce"
    return heavy and (n == 4 or k == 2)


@pytest.mark.parametrize("case", [c for c in small_cases() if not hard(c)])
def test_redundant_constraints_keep_the_optimum(case: tuple[int, str, str, int, int]) -> None:
    """The distance, symmetry, counting and usefulness constraints change no optimum: the
    plain model meets the optimum and refutes one round less."""
    i, model, problem, root, k = case
    g = nx.graph_atlas(i)
    best = optimum(case)
    args = (g.number_of_nodes(), list(g.edges), model, problem, k)
    assert feasible(*args, best, root, redundant=False)
    assert best == 0 or not feasible(*args, best - 1, root, redundant=False)


#: the breadth-first search's cases of :func:`small_cases` it settles in a second or so (with
#: two chunks competing for the ports, reduce-scatter and allreduce are left to the sweep)
BFS_CASES = [
    c
    for c in small_cases()
    if c[1] == "telephone"
    or c[2] == "reduce"
    or (c[4] == 1 and nx.graph_atlas(c[0]).number_of_nodes() <= 3 and not hard(c))
]


@pytest.mark.parametrize("case", BFS_CASES)
def test_against_the_breadth_first_search(case: tuple[int, str, str, int, int]) -> None:
    i, model, problem, root, k = case
    g = nx.graph_atlas(i)
    search = BruteForce(g.number_of_nodes(), g.edges, model, problem, k, "max", root, seconds=30)
    assert search.optimum(40) == optimum(case)


#: under ``sum`` the breadth-first search is slower still: allreduce in telephone only
SUM_CASES = [c for c in BFS_CASES if c[2] != "allreduce" or c[1] == "telephone"]


@pytest.mark.parametrize("case", SUM_CASES)
def test_sum_against_the_breadth_first_search(case: tuple[int, str, str, int, int]) -> None:
    """The ``sum`` model (copies, unions of disjoint partials), with and without its
    redundant constraints, against the search's ``sum`` optimum."""
    i, model, problem, root, k = case
    g = nx.graph_atlas(i)
    n, edges = g.number_of_nodes(), list(g.edges)
    best = sat_optimum(n, edges, model, problem, k, 1, root, redop="sum")
    plain = sat_optimum(n, edges, model, problem, k, best, root, redundant=False, redop="sum")
    search = BruteForce(n, edges, model, problem, k, "sum", root, seconds=30)
    assert best == plain == search.optimum(best)


@pytest.mark.parametrize(
    ("redop", "redundant", "expected"),
    [("max", True, True), ("sum", False, True), ("sum", True, False)],
)
def test_sum_forbids_double_counts(redop: str, redundant: bool, expected: bool) -> None:
    """Reduce to the center 0 of ``P_3`` (leaves 1, 2) in all-port, two rounds, with the
    sends fixed: 0 to both leaves, then both leaves to 0. Under ``max`` the leaves unite and
    0 unites ``{0, 1}`` and ``{0, 2}``. Under ``sum`` that counts 0 twice; a leaf that
    ignores 0's partial sends its own alone, but no receipt is ignored under the redundant
    constraint 6: then every choice double counts or loses a contribution."""
    path = [(0, 1), (0, 2)]
    clauses, pool = formula(3, path, "all-port", "reduce", 1, 2, 0, redundant, redop)
    fixed = {(0, 1, 1), (0, 2, 1), (1, 0, 2), (2, 0, 2)}
    for t in (1, 2):
        for a, b in path + [(b, a) for a, b in path]:
            var = pool.id(("send", a, b, 0, t))
            clauses.append([var if (a, b, t) in fixed else -var])
    with Solver(name="glucose4", bootstrap_with=clauses) as s:
        assert s.solve() == expected


def test_sum_from_max() -> None:
    """The star's single-port allreduce: a max schedule of 14 rounds takes sum's rules; 13
    rounds have no max schedule, so nothing is proved."""
    assert sum_from_max(4, STAR, "single-port", "allreduce", 1, 14)
    assert not sum_from_max(4, STAR, "single-port", "allreduce", 1, 13)


def test_infeasible_horizons() -> None:
    """One round short of the optimum is refuted, with and without the redundant
    constraints, and the plain model finds the optimum's schedule."""
    assert not feasible(4, K4, "single-port", "allreduce", 1, 5)
    assert not feasible(4, K4, "single-port", "allreduce", 1, 5, redundant=False)
    assert feasible(4, K4, "single-port", "allreduce", 1, 6, redundant=False)
    assert not feasible(3, P3, "telephone", "reduce", 1, 1, root=0)
    # the center's 18 receipts (cut count) are met by a schedule of the plain model
    assert feasible(4, STAR, "single-port", "reduce-scatter", 2, 18, redundant=False)


@pytest.mark.slow
def test_the_star_pipeline() -> None:
    """Allreduce on the star ``K_{1,3}`` single-port: 14 rounds with one chunk (two above the
    center's 12 receipts) and 26 with two, by the plain model at 14 and the full one."""
    assert feasible(4, STAR, "single-port", "allreduce", 1, 14, redundant=False)
    assert sat_optimum(4, STAR, "single-port", "allreduce", 1, 14) == 14
    assert sat_optimum(4, STAR, "single-port", "allreduce", 2, 26) == 26
