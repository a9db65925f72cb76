"""``solve`` against the breadth-first search of :mod:`tests.reductions_bfs` and the SAT model
of :mod:`tests.reductions_sat` on connected graphs of up to 5 nodes (networkx's graph atlas):
reduce (root 0, and a root in another orbit of the automorphisms where there is one),
reduce-scatter and allreduce, under telephone, single-port and all-port, with 1 and 2 chunks.

Under ``max`` the search's optimum must be ``solve``'s. Under ``sum`` the ``max`` optimum is a
lower bound (a ``sum`` schedule is a ``max`` schedule) and ``solve``'s schedule, replayed by the
search's own rules, an upper bound: where they meet the ``sum`` optimum is known; elsewhere the
``sum`` search itself decides. The default suite takes every graph up to 4 nodes and a fixed
sample of 5-node graphs, for telephone and reduce, and the other problems with one chunk on
3 nodes (the search grows fast with chunks that compete for one port). The full sweep,
marked slow, settles every case with the SAT model (:func:`settle`): ``max`` refutes one round
less than ``solve``'s schedule, or the ``sum`` model decides between the two; ``solve`` may
leave a bracket there (counted), but no case may disagree or stay undecided.
"""

from __future__ import annotations

import json
import os
import sys
import time
from functools import cache

import networkx as nx
import pytest

from gossipcert.instance import make_instance, parse_model, parse_problem
from gossipcert.search.entry import solve
from gossipcert.search.outcome import SolveResult
from tests.reductions_bfs import BruteForce, BudgetError, replay
from tests.reductions_sat import SatBudgetError, feasible, sum_from_max
from tests.reductions_sat import optimum as sat_optimum

MODELS = {"telephone": "telephone", "single-port": "single-port:p=1", "all-port": "all-port"}


def atlas(max_nodes: int) -> list[int]:
    """Indices in the graph atlas of the connected graphs with 2 .. ``max_nodes`` nodes."""
    return [
        i
        for i, g in enumerate(nx.graph_atlas_g())
        if 2 <= g.number_of_nodes() <= max_nodes and nx.is_connected(g)
    ]


def labelled(index: int) -> nx.Graph:
    g = nx.Graph(nx.graph_atlas(index))
    nx.set_node_attributes(g, {v: str(v) for v in g}, "label")
    nx.set_node_attributes(g, False, "router")
    nx.set_edge_attributes(g, 1, "capacity")
    g.graph["spec"] = f"atlas:{index}"
    return g


def other_root(index: int) -> int | None:
    """The least node in another orbit than node 0 under the automorphisms, if any."""
    g = nx.graph_atlas(index)
    orbit = {iso[0] for iso in nx.algorithms.isomorphism.GraphMatcher(g, g).isomorphisms_iter()}
    rest = sorted(set(g) - orbit)
    return rest[0] if rest else None


def spec(problem: str, root: int, k: int, redop: str) -> str:
    args = [str(root)] if problem == "reduce" else []
    if k > 1:
        args.append(f"chunks={k}")
    if redop != "sum":
        args.append(f"redop={redop}")
    return problem + (":" + ",".join(args) if args else "")


#: seconds ``solve`` may take on one instance (the default suite's take well under one)
SOLVE_SECONDS = 120.0


class SolveOpenError(Exception):
    """``solve`` left a bracket within :data:`SOLVE_SECONDS`."""


@cache
def solved(index: int, model: str, text: str, seconds: float = SOLVE_SECONDS) -> SolveResult:
    inst = make_instance(labelled(index), parse_model(MODELS[model]), parse_problem(text))
    return solve(inst, proof=False, time_limit=seconds)


def chunk_of(name: object, problem: str, k: int) -> int:
    """The search's number of a chunk named as gossipcert names it."""
    owner, part = name if isinstance(name, tuple) else (name, 0)
    return int(part) if problem == "reduce" else int(owner) * k + int(part)


#: seconds one search may take (over it: :class:`BudgetError`)
SECONDS = 20.0


def bfs(
    index: int,
    model: str,
    problem: str,
    root: int,
    k: int,
    redop: str,
    limit: int,
    seconds: float = SECONDS,
) -> int:
    g = nx.graph_atlas(index)
    search = BruteForce(
        g.number_of_nodes(), g.edges, model, problem, k, redop, root, seconds=seconds
    )
    found = search.optimum(limit)
    assert found is not None, f"no {redop} schedule within {limit} rounds"
    return found


def replayed(
    res: SolveResult, index: int, model: str, problem: str, root: int, k: int, redop: str = "sum"
) -> int:
    """The round after which ``solve``'s schedule meets the demands under the search's own
    rules for ``redop`` (its length, or the test fails)."""
    assert res.schedule is not None and res.report is not None and res.report.ok
    g = nx.graph_atlas(index)
    names = res.instance.packet_names
    rounds = [
        [
            (
                t.sender,
                t.receivers,
                [
                    chunk_of(names[c], problem, k)
                    for c in range(len(names))
                    if t.packets is None or t.packets >> c & 1
                ],
                t.op,
            )
            for t in rnd
        ]
        for rnd in res.schedule.rounds
    ]
    done = replay(g.number_of_nodes(), g.edges, model, problem, k, redop, rounds, root)
    assert done == res.upper_bound
    return done


def check(index: int, model: str, problem: str, root: int, k: int, redop: str) -> str:
    """Assert that ``solve`` agrees with the search; return how the optimum was settled."""
    res = solved(index, model, spec(problem, root, k, redop))
    if res.status != "optimal":
        raise SolveOpenError(f"[{res.lower_bound}, {res.upper_bound}]")
    assert res.optimum is not None and replayed(res, index, model, problem, root, k, redop)
    lower = bfs(index, model, problem, root, k, "max", res.optimum)
    if redop == "max" or lower == res.optimum:
        assert lower == res.optimum
        return "max search" if redop == "max" else "max search, sum replay"
    assert bfs(index, model, problem, root, k, "sum", res.optimum) == res.optimum
    return "sum search"


#: seconds the SAT reference may take on one case
SAT_SECONDS = 120.0


def settle(
    index: int,
    model: str,
    problem: str,
    root: int,
    k: int,
    solve_seconds: float = SOLVE_SECONDS,
    sat_seconds: float = SAT_SECONDS,
    bfs_seconds: float = 0.0,
) -> dict[str, object]:
    """One case of the sweep under ``sum``: ``solve``'s answer, its schedule replayed by the
    search's rules (the upper bound ``U``), the SAT reference's ``max`` optimum (a lower
    bound: ``U - 1`` rounds refuted; below ``U`` the reference's ``sum`` model decides, from
    the ``max`` optimum up, first on the sends of ``max`` schedules), and, given
    ``bfs_seconds``, the breadth-first search's ``max`` optimum beside the SAT one.

    ``outcome`` is ``agree`` (``solve`` optimal, the reference's optimum equal),
    ``disagree``, ``bracket`` (``solve`` left ``[lower, upper]``; ``reference`` the optimum)
    or ``over budget`` (the reference did not decide)."""
    g = nx.graph_atlas(index)
    n, edges = g.number_of_nodes(), list(g.edges)
    res = solved(index, model, spec(problem, root, k, "sum"), solve_seconds)
    out: dict[str, object] = {"solve": res.status, "lower": res.lower_bound}
    upper = replayed(res, index, model, problem, root, k)
    out["upper"] = upper
    try:
        if not feasible(n, edges, model, problem, k, upper - 1, root, sat_seconds):
            ref: int | None = upper  # max refutes U - 1; the sum schedule has U rounds
            out["max"] = upper
        else:  # the sum optimum lies in [max optimum, upper]: the sum model decides
            low = sat_optimum(n, edges, model, problem, k, upper - 1, root, sat_seconds)
            out["max"] = ref = low
            while ref < upper:
                if sum_from_max(n, edges, model, problem, k, ref, root, sat_seconds):
                    break
                if feasible(n, edges, model, problem, k, ref, root, sat_seconds, redop="sum"):
                    break
                ref += 1
    except (SatBudgetError, BudgetError) as exc:
        ref = None
        out["why"] = str(exc)
    out["reference"] = ref
    if bfs_seconds > 0 and isinstance(out.get("max"), int):
        try:
            out["bfs"] = bfs(index, model, problem, root, k, "max", upper, bfs_seconds)
            assert out["bfs"] == out["max"], out
        except BudgetError:
            out["bfs"] = None
    if ref is None:
        out["outcome"] = "over budget"
    elif res.status == "optimal":
        out["outcome"] = "agree" if ref == res.optimum else "disagree"
    else:
        out["outcome"] = "bracket" if res.lower_bound <= ref <= upper else "disagree"
    return out


def cases(indices: list[int], ks: tuple[int, ...] = (1, 2)) -> list[tuple[int, str, str, int, int]]:
    out = []
    for i in indices:
        roots = [0] + [r for r in [other_root(i)] if r is not None]
        for model in MODELS:
            for k in ks:
                out += [(i, model, "reduce", r, k) for r in roots]
                out += [(i, model, p, 0, k) for p in ("reduce-scatter", "allreduce")]
    return out


#: a fixed sample of 5-node graphs: the path, the cycle, the star, K_5 minus an edge, K_5
FIVE = [i for i in atlas(5) if nx.graph_atlas(i).number_of_nodes() == 5]
SAMPLE_FIVE = [
    i
    for i in FIVE
    if any(
        nx.is_isomorphic(nx.graph_atlas(i), h)
        for h in (nx.path_graph(5), nx.cycle_graph(5), nx.star_graph(4))
    )
]
SMALL = atlas(4)


def quick(case: tuple[int, str, str, int, int]) -> bool:
    """The cases of the default suite: telephone and reduce everywhere, and the others with
    one chunk on 3 nodes (the search grows fast with chunks that compete for one port)."""
    index, model, problem, _, k = case
    n = nx.graph_atlas(index).number_of_nodes()
    return model == "telephone" or problem == "reduce" or (n <= 3 and k == 1)


@pytest.mark.parametrize(
    ("index", "model", "problem", "root", "k"), [c for c in cases(SMALL) if quick(c)]
)
def test_small_graphs(index: int, model: str, problem: str, root: int, k: int) -> None:
    check(index, model, problem, root, k, "sum")


def test_allreduce_two_chunks_on_a_path() -> None:
    """Two chunks on P_3 in all-port: 7 rounds under sum, as under max, one above the
    receipts bound (6 chunks received 4 times each, 4 arcs: 6), and the cut bound at the
    middle node (every chunk in from each side and out again)."""
    assert nx.is_isomorphic(nx.graph_atlas(6), nx.path_graph(3))
    assert check(6, "all-port", "allreduce", 0, 2, "sum") == "max search, sum replay"
    res = solved(6, "all-port", "allreduce:chunks=2")
    assert (res.optimum, res.evidence["kind"], res.evidence["source"]) == (
        7,
        "allreduce-bracket",
        "cut",
    )


@pytest.mark.parametrize(
    ("index", "model", "problem", "root", "k"),
    [c for c in cases(SAMPLE_FIVE, (1,)) if quick(c)],
)
def test_five_node_sample(index: int, model: str, problem: str, root: int, k: int) -> None:
    check(index, model, problem, root, k, "sum")


@pytest.mark.parametrize(
    ("index", "model", "problem", "root", "k"),
    [c for c in cases(SMALL, (1,)) if quick(c) and c[0] % 2 == 0],
)
def test_max_sample(index: int, model: str, problem: str, root: int, k: int) -> None:
    check(index, model, problem, root, k, "max")


def test_the_search_itself() -> None:
    """Known optima: gossip on K_4 (telephone, 2 rounds); allreduce on P_3 single-port
    (7 rounds, by the max search); reduce on a star from a leaf in all-port, one chunk:
    the distance 2."""
    k4 = [(a, b) for a in range(4) for b in range(a + 1, 4)]
    assert BruteForce(4, k4, "telephone", "reduce-scatter").optimum(5) == 2
    assert BruteForce(3, [(0, 1), (1, 2)], "single-port", "allreduce", redop="max").optimum(9) == 7
    assert BruteForce(4, [(0, 1), (0, 2), (0, 3)], "all-port", "reduce", root=1).optimum(5) == 2
    assert BruteForce(4, k4, "telephone", "allreduce").optimum(1) is None
    with pytest.raises(BudgetError):
        BruteForce(
            5, [(0, 1), (1, 2), (2, 3), (3, 4)], "single-port", "allreduce", 2, "sum", max_states=10
        ).optimum(20)


def test_replay_catches_double_counts_and_ports() -> None:
    edges = [(0, 1), (1, 2)]
    good = [
        [(0, (1,), [0], "reduce")],
        [(1, (2,), [0], "reduce")],
        [(2, (1,), [0], "copy")],
        [(1, (0,), [0], "copy")],
    ]
    assert (
        replay(3, edges, "single-port", "allreduce", 1, "sum", good) is None
    )  # chunks 1, 2 missing
    swap = [[(0, (1,), [0, 1], "reduce"), (1, (0,), [0, 1], "reduce")]]
    assert replay(2, [(0, 1)], "telephone", "allreduce", 1, "sum", swap) == 1
    assert replay(2, [(0, 1)], "single-port", "allreduce", 1, "sum", swap) is None  # p = 1
    twice = [[(0, (1,), [0], "reduce")], [(1, (0,), [0], "reduce")]]
    assert replay(2, [(0, 1)], "single-port", "reduce", 1, "sum", twice) is None  # 0 counted twice
    assert replay(2, [(0, 1)], "single-port", "reduce", 1, "max", twice) == 2
    both = [[(0, (1,), [0], "reduce"), (2, (1,), [0], "reduce")]]
    assert (
        replay(3, edges, "single-port", "reduce", 1, "sum", both, root=1) is None
    )  # receives twice
    assert replay(3, edges, "all-port", "reduce", 1, "sum", both, root=1) == 1


@pytest.mark.parametrize(
    ("index", "model", "problem", "k", "expected"),
    [(6, "all-port", "allreduce", 2, "agree"), (13, "single-port", "reduce-scatter", 2, "agree")],
)
def test_settle(index: int, model: str, problem: str, k: int, expected: str) -> None:
    """The sweep's step on two cases the search leaves to the SAT model: the path ``P_3``
    (7 rounds) and the star ``K_{1,3}`` (18: the center takes 18 chunks)."""
    out = settle(index, model, problem, 0, k)
    assert out["outcome"] == expected
    assert out["reference"] == out["upper"] == out["max"] == {6: 7, 13: 18}[index]


@pytest.mark.parametrize(
    ("index", "optimum", "seconds"),
    [
        (36, 23, 60.0),
        pytest.param(42, 23, 300.0, marks=pytest.mark.slow),  # the packing takes a minute
        pytest.param(34, 32, 600.0, marks=pytest.mark.slow),  # and two here
    ],
)
def test_settle_single_port_allreduce_with_cut_vertices(
    index: int, optimum: int, seconds: float
) -> None:
    """Single-port, two chunks, 5-node graphs with a cut vertex (atlas 36, the bowtie atlas 42,
    atlas 34) that were open for both: ``solve`` certifies the optimum by the cut bound (no
    side is completed in round 1) and the reference refutes a round less by its windows."""
    out = settle(index, "single-port", "allreduce", 0, 2, solve_seconds=seconds)
    assert out["outcome"] == "agree", out
    assert out["reference"] == out["upper"] == out["lower"] == optimum


def sweep(
    log: str | None = None, solve_seconds: float = 20.0, sat_seconds: float = 90.0
) -> dict[str, int]:
    """Settle every case of :func:`cases` on the atlas up to 5 nodes (684 in all), with the
    breadth-first search beside the SAT model (5 s a case up to 4 nodes, 1 s on 5); with a
    ``log`` path, append one JSON line a case there, skipping the cases it already holds.
    Returns the count of each outcome."""
    done: dict[str, dict[str, object]] = {}
    if log is not None and os.path.exists(log):
        with open(log, encoding="utf-8") as f:
            done = {row["case"]: row for row in map(json.loads, f)}
    settled: dict[str, int] = {}
    for case in cases(atlas(5)):
        key = "-".join(map(str, case))
        n = nx.graph_atlas(case[0]).number_of_nodes()
        if key in done:
            out = done[key]
        else:
            start = time.monotonic()
            out = settle(*case, solve_seconds, sat_seconds, 5.0 if n <= 4 else 1.0)
            out.update(case=key, n=n, seconds=round(time.monotonic() - start, 2))
            if log is not None:
                with open(log, "a", encoding="utf-8") as f:
                    print(json.dumps(out), file=f)
        settled[str(out["outcome"])] = settled.get(str(out["outcome"]), 0) + 1
    return settled


@pytest.mark.slow
def test_full_sweep() -> None:
    """Every connected graph up to 5 nodes, every model, problem and chunks 1 and 2 under sum
    (684 cases), with 20 s for ``solve`` and 90 s a SAT call: no disagreement, every case
    decided by the reference; the cases ``solve`` leaves open are counted."""
    settled = sweep()
    assert set(settled) <= {"agree", "bracket"}, settled
    assert sum(settled.values()) == 684


if __name__ == "__main__":  # python -m tests.test_reductions_bfs LOG: the sweep, logged
    print(sweep(sys.argv[1]))
