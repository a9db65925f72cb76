"""The exact solver against an independent breadth-first search on every small graph.

The reference search below shares nothing with :mod:`gossipcert`: it works on plain edge
lists, enumerates the matchings and the automorphisms of the graph itself and explores the
knowledge states round by round until one meets every demand. Every connected graph with 2
to 6 nodes of the networkx graph atlas is solved by both, for gossip and for broadcast from
node 0, under the telephone and the half-duplex model, with the SAT and the CP-SAT back-end,
and the optima must agree.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from itertools import permutations, product
from typing import Any

import networkx as nx
import numpy as np
import pytest

from gossipcert.instance import make_instance, parse_model, parse_problem
from gossipcert.search.entry import solve
from gossipcert.search.outcome import SolveResult

Edge = tuple[int, int]
#: per node ``v`` and field value ``k``: that value moved to ``v``'s image
Leaf = tuple[tuple[int, ...], ...]
#: automorphisms keyed by the node sent to position 0, then 1, ...; leaves at depth n
Tree = dict[int, Any]

MODELS = ("telephone", "half-duplex")
PROBLEMS = ("gossip", "broadcast:0")
BACKENDS = ("sat", "cpsat")

# ============================================================== the reference search
#
# A state is one integer: node v's knowledge is the ``width``-bit field at bit ``v * width``
# (bit p of the field: the node knows packet p). Gossip has one packet per node (width n),
# broadcast a single packet (width 1).


def maximal_matchings(n: int, edges: tuple[Edge, ...]) -> list[tuple[Edge, ...]]:
    """Every maximal matching of the graph on ``0..n-1`` with the given edges.

    Each edge in turn is taken (if both ends are still free) or skipped; a branch is
    kept only if no edge has both ends free at the end.
    """
    out: list[tuple[Edge, ...]] = []

    def grow(i: int, used: int, chosen: list[Edge]) -> None:
        if i == len(edges):
            if all(used >> u & 1 or used >> v & 1 for u, v in edges):
                out.append(tuple(chosen))
            return
        u, v = edges[i]
        if not (used >> u & 1 or used >> v & 1):
            chosen.append((u, v))
            grow(i + 1, used | 1 << u | 1 << v, chosen)
            chosen.pop()
        grow(i + 1, used, chosen)

    grow(0, 0, [])
    return out


def automorphisms(n: int, edges: tuple[Edge, ...], fixed: int | None) -> list[tuple[int, ...]]:
    """The permutations of ``0..n-1`` that map the edge set onto itself (and fix ``fixed``)."""
    edge_set = {frozenset(e) for e in edges}
    return [
        perm
        for perm in permutations(range(n))
        if (fixed is None or perm[fixed] == fixed)
        and all(frozenset((perm[u], perm[v])) in edge_set for u, v in edges)
    ]


class Canoniser:
    """Picks one representative of each orbit of states under a group of automorphisms.

    Replacing a state by another one in its orbit is sound: applying an automorphism to a
    schedule gives a valid schedule with the same number of rounds, which leads to the
    image state, and the demands (all of gossip, or broadcast with the source fixed) are
    invariant under the group.

    Each node has a key (row and column counts of the knowledge matrix) that moves with
    the node. The representative is the least image among the automorphisms under which
    the keys, read by image position, form the least sequence; the images of a state
    under the automorphisms of the group are the images of any other state of its orbit,
    so every state of an orbit gets the same representative, and only few automorphisms
    need to be tried. They are stored as a tree keyed by the
    node sent to position 0, 1, ... so the search follows the key order; a leaf holds, per
    node ``v`` and field value ``k``, that value moved to ``v``'s image (its bits renamed
    too when packets are named after nodes, as in gossip).
    """

    def __init__(self, n: int, width: int, perms: list[tuple[int, ...]]) -> None:
        self.n = n
        self.width = width
        self.full = (1 << width) - 1
        self.tree: Tree = {}
        for perm in perms:
            if width == n:
                rename = [sum(1 << perm[b] for b in range(n) if k >> b & 1) for k in range(1 << n)]
            else:
                rename = list(range(1 << width))
            moved: Leaf = tuple(tuple(r << (width * perm[v]) for r in rename) for v in range(n))
            node = self.tree
            position_of = {perm[v]: v for v in range(n)}
            for pos in range(n - 1):
                node = node.setdefault(position_of[pos], {})
            node[position_of[n - 1]] = moved
        self.columns = (
            [sum(1 << (width * v + p) for v in range(n)) for p in range(n)]
            if width == n
            else [0] * n
        )

    def __call__(self, state: int) -> int:
        n, width, full = self.n, self.width, self.full
        rows = [state >> (width * v) & full for v in range(n)]
        key = [(rows[v].bit_count(), (state & self.columns[v]).bit_count()) for v in range(n)]
        frontier: list[Any] = [self.tree]
        for _ in range(n):
            least = min(key[v] for node in frontier for v in node)
            frontier = [child for node in frontier for v, child in node.items() if key[v] == least]
        leaves: list[Leaf] = frontier
        return min(sum(f[r] for f, r in zip(leaf, rows, strict=True)) for leaf in leaves)


def keep_maximal(states: set[int], block: int = 1 << 22) -> list[int]:
    """The states of ``states`` not bitwise below another one, most knowledge first.

    Dropping a state that knows, node by node, at most what another state of the same
    level knows cannot delay the answer: the rules are monotone (one round from a larger
    state, with the same calls, gives a larger state) and the demands only ask for
    knowledge. A state can only lie below states with more bits set, so the states are
    taken by decreasing bit count and each group is compared with those kept before it,
    ``block`` pairs at a time.
    """
    by_count: dict[int, list[int]] = {}
    for s in states:
        by_count.setdefault(s.bit_count(), []).append(s)
    kept = np.zeros(0, dtype=np.uint64)
    for count in sorted(by_count, reverse=True):
        group = np.array(sorted(by_count[count]), dtype=np.uint64)
        if len(kept):
            step = max(1, block // len(kept))
            alive = np.ones(len(group), dtype=bool)
            for i in range(0, len(group), step):
                part = group[i : i + step, None]
                alive[i : i + step] = ~((part & kept[None, :]) == part).any(axis=1)
            group = group[alive]
        kept = np.concatenate([kept, group])
    return [int(s) for s in kept]


class Search:
    """Breadth-first search over the rounds of one graph, model and problem.

    Each round applies one maximal matching; that loses nothing because knowledge only
    grows: adding a call (or a transmission) to a round never makes anyone know less after
    it, and a larger state before a round gives a larger state after it, so extending every
    round of any schedule to a maximal (directed) matching gives a schedule that meets the
    demands at least as early. (A directed matching is maximal exactly when its underlying
    matching is: a new arc needs two free ends.) Telephone calls go both ways; under
    half-duplex each edge of the matching is used in one direction, and a direction in
    which the sender has nothing new for the receiver is skipped, the other direction (or
    idling) giving as much.
    """

    def __init__(self, n: int, edges: tuple[Edge, ...], model: str, problem: str) -> None:
        if model not in MODELS:
            raise ValueError(f"unknown model {model!r}")
        if problem == "gossip":
            width, fixed = n, None
            self.start = sum(1 << (n * v + v) for v in range(n))
        else:
            kind, _, source = problem.partition(":")
            if kind != "broadcast":
                raise ValueError(f"unknown problem {problem!r}")
            width, fixed = 1, int(source)
            self.start = 1 << fixed
        self.n, self.width, self.full = n, width, (1 << width) - 1
        self.goal = (1 << (n * width)) - 1
        self.telephone = model == "telephone"
        self.matchings = maximal_matchings(n, edges)
        self.canon = Canoniser(n, width, automorphisms(n, edges, fixed))
        self.what = f"{edges} ({model}, {problem})"

    def rows(self, state: int) -> list[int]:
        return [state >> (self.width * v) & self.full for v in range(self.n)]

    def successors(self, state: int) -> Iterator[int]:
        """The states after one more round (some maybe more than once)."""
        rows, width = self.rows(state), self.width
        for matching in self.matchings:
            options: list[tuple[int, ...]] = []
            for u, v in matching:
                ru, rv = rows[u], rows[v]
                u_to_v, v_to_u = ru << (width * v), rv << (width * u)
                if self.telephone:
                    options.append((u_to_v | v_to_u,))
                else:
                    useful = tuple(
                        arc for arc, new in ((u_to_v, ru & ~rv), (v_to_u, rv & ~ru)) if new
                    )
                    if useful:
                        options.append(useful)
            for arcs in product(*options):
                yield state | sum(arcs)

    def finishes_in_one_round(self, state: int) -> bool:
        """Whether one more round can meet every demand, without listing the states.

        A node whose knowledge is not yet complete must be matched this round: by a call
        to a partner that knows the rest (telephone), or by receiving from a neighbour that
        knows everything (half-duplex: an incomplete sender stays incomplete). Such pairs
        form a matching, and every matching lies in a maximal one with the same pairs.
        """
        rows, full = self.rows(state), self.full
        complete = [r == full for r in rows]
        everyone = (1 << self.n) - 1
        done = sum(1 << v for v in range(self.n) if complete[v])
        if done == everyone:
            return True
        for matching in self.matchings:
            after = done
            for u, v in matching:
                if self.telephone:
                    if rows[u] | rows[v] == full:
                        after |= 1 << u | 1 << v
                elif complete[u] or complete[v]:
                    after |= 1 << u | 1 << v
            if after == everyone:
                return True
        return False

    def optimum(self) -> int:
        """The least number of rounds after which every demand is met.

        Level ``k`` holds representatives of the states after ``k`` rounds, none of which
        meets the demands within one more round; the states of the next level are tested
        for that as they appear, so the last two levels are never stored.
        """
        if self.start == self.goal:
            return 0
        if self.finishes_in_one_round(self.start):
            return 1
        level, rounds = [self.canon(self.start)], 0
        while True:
            following: set[int] = set()
            for state in level:
                for nxt in self.successors(state):
                    if self.finishes_in_one_round(nxt):
                        return rounds + 2
                    following.add(nxt)
            rounds += 1
            if rounds > 4 * self.n:
                raise AssertionError(f"no end in sight on {self.what}")
            level = keep_maximal({self.canon(s) for s in following})


@cache
def brute_force(n: int, edges: tuple[Edge, ...], model: str, problem: str) -> int:
    """The least number of rounds after which every demand is met (see :class:`Search`)."""
    return Search(n, edges, model, problem).optimum()


# ------------------------------------------------------- sanity checks of the reference


def path_edges(n: int) -> tuple[Edge, ...]:
    return tuple((i, i + 1) for i in range(n - 1))


def ring_edges(n: int) -> tuple[Edge, ...]:
    return (*path_edges(n), (0, n - 1))


def complete_edges(n: int) -> tuple[Edge, ...]:
    return tuple((u, v) for u in range(n) for v in range(u + 1, n))


def star_edges(n: int) -> tuple[Edge, ...]:
    return tuple((0, v) for v in range(1, n))


def test_reference_matchings() -> None:
    assert sorted(maximal_matchings(4, path_edges(4))) == [((0, 1), (2, 3)), ((1, 2),)]
    assert len(maximal_matchings(4, complete_edges(4))) == 3
    assert len(maximal_matchings(6, complete_edges(6))) == 15
    assert sorted(maximal_matchings(4, star_edges(4))) == [((0, 1),), ((0, 2),), ((0, 3),)]
    assert len(maximal_matchings(5, ring_edges(5))) == 5


def test_reference_automorphisms() -> None:
    assert len(automorphisms(5, ring_edges(5), None)) == 10
    assert len(automorphisms(6, complete_edges(6), None)) == 720
    assert len(automorphisms(5, star_edges(5), 0)) == 24
    assert automorphisms(4, path_edges(4), 0) == [(0, 1, 2, 3)]


@pytest.mark.parametrize(
    ("n", "edges", "fixed"),
    [(6, complete_edges(6), None), (6, ring_edges(6), None), (5, star_edges(5), 0)],
)
def test_reference_canoniser_is_orbit_invariant(
    n: int, edges: tuple[Edge, ...], fixed: int | None
) -> None:
    width = n if fixed is None else 1
    perms = automorphisms(n, edges, fixed)
    canon = Canoniser(n, width, perms)
    rng = random.Random(n * 1000 + len(edges))
    for _ in range(40):
        rows = [rng.getrandbits(width) | (1 << v if width == n else 0) for v in range(n)]
        state = sum(r << (width * v) for v, r in enumerate(rows))
        images = set()
        for perm in perms:
            moved = [0] * n
            for v, r in enumerate(rows):
                renamed = sum(1 << perm[b] for b in range(n) if r >> b & 1)
                moved[perm[v]] = renamed if width == n else r
            image = sum(r << (width * v) for v, r in enumerate(moved))
            images.add(image)
            assert canon(image) == canon(state)
        assert canon(state) in images


@pytest.mark.parametrize(
    ("n", "edges", "model", "problem", "expected"),
    [
        # distance 3 from 0 to 3; {01,23}, {12}, {01,23}
        (4, path_edges(4), "telephone", "gossip", 3),
        # {01,23}, then {12,30}; log2(4) = 2 is a lower bound
        (4, ring_edges(4), "telephone", "gossip", 2),
        (4, complete_edges(4), "telephone", "gossip", 2),
        # the centre gathers the three leaves' packets in three separate rounds; the two
        # leaves it called before its last gathering call each need one more call: 3 + 2
        (4, star_edges(4), "telephone", "gossip", 5),
        # one call a round; the node left out of the second call never hears of the node
        # left out of the first
        (3, complete_edges(3), "telephone", "gossip", 3),
        # one arc a round
        (2, path_edges(2), "half-duplex", "gossip", 2),
        (2, path_edges(2), "telephone", "gossip", 1),
        # one arc a round; with three arcs the first receiver never receives again
        # before the others know everything: a->b, b->c, c->a, c->b
        (3, complete_edges(3), "half-duplex", "gossip", 4),
        # the centre takes part in one arc a round and must receive 5 times and send 5 times
        (6, star_edges(6), "half-duplex", "gossip", 10),
        (4, path_edges(4), "telephone", "broadcast:0", 3),
        (4, path_edges(4), "half-duplex", "broadcast:1", 2),
        (5, star_edges(5), "telephone", "broadcast:0", 4),
        # a leaf tells the centre, which then tells the other three leaves one by one
        (5, star_edges(5), "half-duplex", "broadcast:1", 4),
        # ceil(log2 6) rounds: doubling the informed set
        (6, complete_edges(6), "half-duplex", "broadcast:0", 3),
    ],
)
def test_reference_hand_checked(
    n: int, edges: tuple[Edge, ...], model: str, problem: str, expected: int
) -> None:
    assert brute_force(n, edges, model, problem) == expected


# ==================================================================== the atlas


@dataclass(frozen=True)
class AtlasGraph:
    index: int
    n: int
    edges: tuple[Edge, ...]

    def __str__(self) -> str:
        return f"atlas {self.index} (n={self.n}, edges {list(self.edges)})"


@cache
def atlas() -> tuple[AtlasGraph, ...]:
    """Every connected graph of the atlas with 2 to 6 nodes, relabelled ``0..n-1``."""
    out: list[AtlasGraph] = []
    for index, g in enumerate(nx.graph_atlas_g()):
        if 1 < g.number_of_nodes() <= 6 and nx.is_connected(g):
            h = nx.convert_node_labels_to_integers(g)
            edges = tuple(sorted((min(e), max(e)) for e in h.edges()))
            out.append(AtlasGraph(index, h.number_of_nodes(), edges))
    return tuple(out)


def project_graph(case: AtlasGraph) -> nx.Graph:
    """The graph as the project expects it (labels, router flags, capacities, spec)."""
    g = nx.convert_node_labels_to_integers(nx.graph_atlas(case.index))
    assert tuple(sorted((min(e), max(e)) for e in g.edges())) == case.edges
    nx.set_node_attributes(g, {v: str(v) for v in g}, "label")
    nx.set_node_attributes(g, False, "router")
    nx.set_edge_attributes(g, 1, "capacity")
    g.graph["spec"] = f"atlas-{case.index}"
    return g


def run_project(
    case: AtlasGraph, model: str, problem: str, backend: str, strict: bool, proof: bool
) -> SolveResult:
    inst = make_instance(project_graph(case), parse_model(model), parse_problem(problem))
    return solve(inst, backend=backend, use_bounds=False, proof=proof, strict=strict)


@cache
def project_optimum(
    case: AtlasGraph, model: str, problem: str, backend: str, strict: bool
) -> tuple[str, int | None, str]:
    """Status, optimum and schedule (as text) from the project's solver, without proofs."""
    res = run_project(case, model, problem, backend, strict, proof=False)
    schedule = (
        "none"
        if res.schedule is None
        else " | ".join(
            ", ".join(f"{t.sender}->{','.join(map(str, t.receivers))}" for t in rnd)
            for rnd in res.schedule.rounds
        )
    )
    return res.status, res.optimum, schedule


def mismatches(
    cases: tuple[AtlasGraph, ...],
    model: str,
    problem: str,
    backend: str,
    strict: bool,
) -> list[str]:
    out: list[str] = []
    for case in cases:
        expected = brute_force(case.n, case.edges, model, problem)
        status, optimum, schedule = project_optimum(case, model, problem, backend, strict)
        if status != "optimal" or optimum != expected:
            line = (
                f"{case}: {model} {problem} {backend}{' strict' if strict else ''}: "
                f"brute force {expected}, solver {status} {optimum}"
            )
            if optimum is not None and optimum < expected:
                line += f", schedule {schedule}"
            out.append(line)
    return out


def report(found: list[str]) -> str:
    return f"{len(found)} mismatches:\n" + "\n".join(found)


# ====================================================================== the tests


def test_atlas_size() -> None:
    sizes = [sum(1 for c in atlas() if c.n == n) for n in range(2, 7)]
    assert sizes == [1, 2, 6, 21, 112]


@pytest.mark.parametrize("model", MODELS)
def test_reference_consistent(model: str) -> None:
    """Broadcast from any node is no slower than gossip, and half-duplex broadcasts as fast
    as telephone (only the informed end of a call has anything to tell)."""
    other = "half-duplex" if model == "telephone" else "telephone"
    for case in atlas():
        if case.n > 5:
            continue
        gossip = brute_force(case.n, case.edges, model, "gossip")
        for s in range(case.n):
            cast = brute_force(case.n, case.edges, model, f"broadcast:{s}")
            assert cast <= gossip, case
            assert cast == brute_force(case.n, case.edges, other, f"broadcast:{s}"), case
    if model == "half-duplex":
        # each half-duplex round is half of a telephone round
        for case in atlas():
            if case.n <= 5:
                tel = brute_force(case.n, case.edges, "telephone", "gossip")
                half = brute_force(case.n, case.edges, model, "gossip")
                assert tel <= half <= 2 * tel, case


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("problem", PROBLEMS)
@pytest.mark.parametrize("model", MODELS)
def test_solver_matches_bruteforce(model: str, problem: str, backend: str) -> None:
    found = mismatches(atlas(), model, problem, backend, strict=False)
    assert not found, report(found)


def strict_cases(backend: str) -> tuple[AtlasGraph, ...]:
    """Graphs for the strict encoding in the default suite: all with SAT, up to 5 nodes
    with CP-SAT (the 6-node ones are in the slow suite)."""
    return atlas() if backend == "sat" else tuple(c for c in atlas() if c.n <= 5)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("problem", PROBLEMS)
@pytest.mark.parametrize("model", MODELS)
def test_strict_solver_matches_bruteforce(model: str, problem: str, backend: str) -> None:
    """No symmetry breaking, no dominance: the plain encoding."""
    found = mismatches(strict_cases(backend), model, problem, backend, strict=True)
    assert not found, report(found)


@pytest.mark.slow
@pytest.mark.parametrize("problem", PROBLEMS)
@pytest.mark.parametrize("model", MODELS)
def test_strict_cpsat_matches_bruteforce_on_six_nodes(model: str, problem: str) -> None:
    six = tuple(c for c in atlas() if c.n == 6)
    found = mismatches(six, model, problem, "cpsat", strict=True)
    assert not found, report(found)


@pytest.mark.parametrize("problem", PROBLEMS)
@pytest.mark.parametrize("model", MODELS)
def test_backends_agree(model: str, problem: str) -> None:
    found: list[str] = []
    for strict in (False, True):
        for case in atlas() if not strict else strict_cases("cpsat"):
            sat = project_optimum(case, model, problem, "sat", strict)
            cpsat = project_optimum(case, model, problem, "cpsat", strict)
            if sat[:2] != cpsat[:2]:
                found.append(
                    f"{case}: {model} {problem}{' strict' if strict else ''}: "
                    f"sat {sat[0]} {sat[1]}, cpsat {cpsat[0]} {cpsat[1]}"
                )
    assert not found, report(found)


def atlas_case(index: int) -> AtlasGraph:
    found = [c for c in atlas() if c.index == index]
    assert found, f"atlas graph {index} is not a connected graph with 2 to 6 nodes"
    return found[0]


@pytest.mark.parametrize(
    ("index", "model", "problem", "strict"),
    [
        (6, "telephone", "gossip", False),  # path of 3 nodes
        (6, "half-duplex", "gossip", True),
        (7, "half-duplex", "gossip", False),  # triangle
        (13, "telephone", "gossip", True),  # star with 4 nodes
        (14, "telephone", "broadcast:0", False),  # path of 4 nodes, from an inner node
        (16, "half-duplex", "gossip", True),  # ring of 4 nodes
        (52, "half-duplex", "gossip", False),  # complete, 5 nodes
        (52, "telephone", "gossip", True),
        (150, "half-duplex", "broadcast:0", True),
        (160, "telephone", "gossip", False),
        (121, "half-duplex", "gossip", True),
        (196, "half-duplex", "gossip", False),
        (196, "half-duplex", "gossip", True),
        (208, "telephone", "gossip", False),  # complete, 6 nodes
    ],
)
def test_drat_evidence(index: int, model: str, problem: str, strict: bool) -> None:
    case = atlas_case(index)
    expected = brute_force(case.n, case.edges, model, problem)
    assert expected > 1
    res = run_project(case, model, problem, "sat", strict, proof=True)
    assert res.status == "optimal" and res.optimum == expected, case
    # the full formula's proof, or (gossip) the proof that one packet alone cannot be
    # broadcast in one round fewer
    assert res.evidence["kind"] in ("drat", "drat-packet"), res.evidence
    checkers = res.evidence["checkers"]
    assert len(checkers) >= 2 and {c["status"] for c in checkers} == {"verified"}, checkers
    assert res.evidence["rounds"] == expected - 1


@pytest.mark.parametrize("model", MODELS)
def test_closed_form_evidence_when_one_round_suffices(model: str) -> None:
    case = atlas_case(3)  # a single edge
    assert brute_force(case.n, case.edges, model, "broadcast:0") == 1
    res = run_project(case, model, "broadcast:0", "sat", strict=False, proof=True)
    assert res.status == "optimal" and res.optimum == 1
    assert res.evidence["kind"] == "closed-form", res.evidence
