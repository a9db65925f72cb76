"""The idle budget of the broadcast encoding: its counters, its slack and that it is implied
(the optimum with it equals the optimum without it and the brute force)."""

from __future__ import annotations

import itertools

import networkx as nx
import pytest
from pysat.solvers import Solver

from gossipcert.encodings import EncodingOptions
from gossipcert.encodings.broadcast import BroadcastEncoding
from gossipcert.encodings.formula import Formula
from gossipcert.encodings.waste import idle_budget, unary_sum
from gossipcert.instance import Instance, make_instance, parse_instance, parse_model, parse_problem
from gossipcert.search.entry import solve
from gossipcert.simulate import simulate
from gossipcert.solvers.backends import SatBackend, Status


@pytest.mark.parametrize("weights", [(1, 1, 1), (2, 1, 3), (4, 2, 1, 1), (1,), (5, 5)])
@pytest.mark.parametrize("cap", [1, 2, 4, 7])
def test_unary_sum_outputs_are_forced_exactly_up_to_the_sum(
    weights: tuple[int, ...], cap: int
) -> None:
    f = Formula()
    xs = [f.var(("x", i)) for i in range(len(weights))]
    out = unary_sum(f, ("T",), [[x] * w for x, w in zip(xs, weights, strict=True)], cap)
    assert len(out) == min(cap, sum(weights))
    with Solver(name="cadical195", bootstrap_with=f.cnf_since(0)) as s:
        for values in itertools.product((False, True), repeat=len(xs)):
            total = sum(w for w, b in zip(weights, values, strict=True) if b)
            fixed = [x if b else -x for x, b in zip(xs, values, strict=True)]
            for j, o in enumerate(out, start=1):
                # output j may be false exactly when the chosen weights add up to less than j
                assert s.solve(assumptions=[*fixed, -o]) is (total < j)


def _optimum(inst: Instance, waste: bool) -> int:
    options = EncodingOptions(symmetry=False, dominance=False, broadcast=True, waste=waste)
    enc = BroadcastEncoding(inst, options)
    enc.extend_to(inst.n)
    solver = SatBackend(enc.formula)
    try:
        for r in range(inst.n):
            status = solver.solve([enc.selector(r)], None, None)
            if status is Status.SAT:
                rep = simulate(inst, enc.decode(r, solver.value))
                assert rep.ok and rep.rounds is not None and rep.rounds <= r
                return r
            assert status is Status.UNSAT
    finally:
        solver.close()
    raise AssertionError("no schedule within n rounds")


def _binomial_tree(k: int) -> nx.Graph:
    """The binomial tree of order ``k`` (2^k nodes; broadcast from its root takes k rounds,
    with no node ever idle)."""
    g = nx.Graph()
    g.add_node(0)
    for _ in range(k):
        size = g.number_of_nodes()
        g.add_edges_from((u + size, v + size) for u, v in list(g.edges))
        g.add_node(size)
        g.add_edge(0, size)
    return g


def _instance(g: nx.Graph, sources: tuple[int, ...]) -> Instance:
    h = nx.convert_node_labels_to_integers(g)
    nx.set_node_attributes(h, {v: str(v) for v in h}, "label")
    nx.set_node_attributes(h, False, "router")
    nx.set_edge_attributes(h, 1, "capacity")
    h.graph["spec"] = "test"
    return make_instance(
        h, parse_model("telephone"), parse_problem("broadcast:" + ",".join(map(str, sources)))
    )


@pytest.mark.parametrize(
    ("graph", "sources", "optimum"),
    [
        # 2^k nodes: slack 0, every round forced
        ("hypercube:3", (0,), 3),
        ("hypercube:4", (0,), 4),
        ("binomial:3", (0,), 3),
        ("binomial:4", (0,), 4),
        # the deepest leaf of the binomial tree: 7 -> 6 -> 4 -> 0, then 0 -> 2, 4 -> 5 and
        # 0 -> 1, 2 -> 3
        ("binomial:3", (7,), 5),
        # slack 1 and 2
        ("complete:7", (0,), 3),
        ("ring:6", (0,), 3),
        ("ring:8", (0, 4), 2),
        ("path:9", (4, 5), 4),
        ("star:5", (1,), 4),
    ],
)
def test_budget_keeps_the_optimum(graph: str, sources: tuple[int, ...], optimum: int) -> None:
    if graph.startswith("binomial:"):
        inst = _instance(_binomial_tree(int(graph.split(":")[1])), sources)
    else:
        inst = parse_instance(graph, "telephone", "broadcast:" + ",".join(map(str, sources)))
    assert _optimum(inst, True) == optimum
    assert _optimum(inst, False) == optimum


@pytest.mark.parametrize("seed", range(1, 9))
def test_budget_keeps_the_optimum_on_random_graphs(seed: int) -> None:
    # 12-16 nodes: 2^4 is close to n, so the forced rounds and the counters both bind
    n = 12 + seed % 5
    inst = parse_instance(f"random:{n},{n + 4},seed={seed}", "telephone", "broadcast:0")
    assert _optimum(inst, True) == _optimum(inst, False)


def test_slack_and_a_refuted_horizon() -> None:
    inst = parse_instance("path:4", "telephone", "broadcast:0")
    enc = BroadcastEncoding(inst, EncodingOptions(broadcast=True))
    enc.extend_to(3)
    assert idle_budget(enc, 3, enc.formula.var(("D", 3))) == 8 - 4
    assert idle_budget(enc, 1, enc.formula.var(("D", 1))) == 2 - 4  # impossible: unit


def test_leaves_of_a_binomial_tree_come_last() -> None:
    # with slack 0 a leaf informed before the last round would have to call someone
    inst = _instance(_binomial_tree(3), (0,))
    enc = BroadcastEncoding(inst, EncodingOptions(broadcast=True, waste=True))
    d = enc.selector(3)
    leaves = [v for v in range(inst.n) if len(enc.nbrs[v]) == 1]
    with Solver(name="cadical195", bootstrap_with=enc.formula.cnf_since(0)) as s:
        assert s.solve(assumptions=[d])
        early = [enc.informed(v, 2) for v in leaves]
        assert early.count(False) == 1  # the leaf 7 is 3 away: pruned by distance
        for lit in early:
            if lit is not False:
                assert not s.solve(assumptions=[d, lit])


def test_search_records_the_budget_and_certifies() -> None:
    import json

    from gossipcert.certificates.certificate import build_certificate, check_certificate

    res = solve(parse_instance("hypercube:4", "telephone", "broadcast:0"), use_bounds=False)
    assert res.status == "optimal" and res.upper_bound == 4
    assert res.evidence["kind"] == "drat"
    assert res.evidence["encoding"]["waste"] is True
    cert = json.loads(json.dumps(build_certificate(res)))
    assert check_certificate(cert).ok
    # read as if made without the budget (as a certificate written before the budget existed,
    # with no such key, is read), the regenerated CNF differs: the check fails
    cert["evidence"]["encoding"]["waste"] = False
    assert not check_certificate(cert).ok
    del cert["evidence"]["encoding"]["waste"]
    assert not check_certificate(cert).ok


@pytest.mark.parametrize("seed", range(1, 7))
def test_scaled_budget_keeps_the_optimum(seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    # a cap of 2 scales every slack above 2: weights and slack divided by up to 8
    import gossipcert.encodings.waste as waste

    monkeypatch.setattr(waste, "BUDGET_CAP", 2)
    n = 10 + seed % 4
    inst = parse_instance(f"random:{n},{n + 3},seed={seed}", "telephone", "broadcast:0")
    assert _optimum(inst, True) == _optimum(inst, False)


def test_scaled_budget_stays_small_on_a_large_slack() -> None:
    # de Bruijn 8 at 10 rounds: slack 2^10 - 256 = 768; unscaled, the weighted totalizer
    # alone had about seven million clauses
    inst = parse_instance("debruijn:8", "telephone", "broadcast:0")
    enc = BroadcastEncoding(inst, EncodingOptions(broadcast=True, waste=True))
    enc.extend_to(10)
    mark = enc.formula.mark()
    assert idle_budget(enc, 10, enc.formula.var(("D", 10))) == 768
    assert 1_000 < len(enc.formula.cnf_since(mark)) < 400_000
