"""The implied packet-counting constraints of the transfer encoding.

The receiver bounds are checked against every round a model allows on small graphs (found
by enumeration here, not by the project), and the optima with and without the counting must
agree on every connected graph with up to 4 nodes, for every packet-limited model; a bound
one too small must change some optimum, so the agreement test can fail.
"""

from __future__ import annotations

from dataclasses import replace
from itertools import combinations

import pytest
from test_exact_bruteforce_packets import MODELS, brute_force, cases, project_instance

from gossipcert.encodings import EncodingOptions, encoding_for
from gossipcert.encodings.packet_counting import busy_facts, counting_sets, receiver_bound
from gossipcert.instance import Instance, ModelKind, parse_instance
from gossipcert.search.entry import solve
from gossipcert.solvers.backends import Status, make_backend

CAPPED = tuple(m for m in MODELS if m != "sequential")


def rounds_receivers(inst: Instance) -> list[frozenset[int]]:
    """The receiver set of every round the model allows (by enumerating arc sets)."""
    n = inst.n
    nbrs = [sorted(inst.graph.adj[v]) for v in range(n)]
    arcs = [(u, v) for u in range(n) for v in nbrs[u]]
    kind = inst.model.kind
    calls = inst.model.calls_per_round
    out: set[frozenset[int]] = set()
    for mask in range(1 << len(arcs)):
        used = [a for i, a in enumerate(arcs) if mask >> i & 1]
        ins = [v for _, v in used]
        outs = [u for u, _ in used]
        if len(set(ins)) < len(ins):
            continue  # every model: at most one transmission into a node
        if kind is ModelKind.MULTICAST:
            units = len(set(outs))
        else:
            if len(set(outs)) < len(outs):
                continue  # point-to-point: one arc out
            if kind is ModelKind.HALF_DUPLEX and set(ins) & set(outs):
                continue
            if kind is ModelKind.TELEPHONE:
                if any((v, u) not in used for u, v in used):
                    continue  # a call is both arcs of an edge
                units = len(used) // 2
            else:
                units = len(used)
        if calls is not None and units > calls:
            continue
        out.add(frozenset(ins))
    return list(out)


@pytest.mark.parametrize("model", CAPPED)
def test_receiver_bound_against_enumeration(model: str) -> None:
    """Sound on every node set of every 2-4 node graph; exact without a call limit."""
    bad = []
    for index, n, edges in cases(4):
        inst = project_instance(n, edges, model, "gossip")
        nbrs = [sorted(inst.graph.adj[v]) for v in range(n)]
        rounds = rounds_receivers(inst)
        for size in range(1, n + 1):
            for subset in map(frozenset, combinations(range(n), size)):
                most = max(len(r & subset) for r in rounds)
                bound = receiver_bound(inst, nbrs, subset)
                exact = inst.model.calls_per_round is None
                if bound < most or (exact and bound != most):
                    bad.append(f"atlas {index} {model} {sorted(subset)}: {bound}, rounds {most}")
    assert not bad, "\n".join(bad[:20])


def test_counting_sets_of_a_star_and_a_path() -> None:
    inst = parse_instance("star:6", "half-duplex:p=1", "gossip")
    nbrs = [sorted(inst.graph.adj[v]) for v in range(inst.n)]
    # nu = 1: the whole node set already bounds the leaves
    assert counting_sets(inst, nbrs) == [(frozenset(range(6)), 1)]
    inst = parse_instance("star:6", "single-port:p=1", "gossip")
    nbrs = [sorted(inst.graph.adj[v]) for v in range(inst.n)]
    assert counting_sets(inst, nbrs) == [(frozenset(range(6)), 2), (frozenset({1, 2, 3, 4, 5}), 1)]
    inst = parse_instance("path:5", "single-port:p=1", "gossip")
    nbrs = [sorted(inst.graph.adj[v]) for v in range(inst.n)]
    # 0, 2 and 4 hear only from 1 and 3: two receivers per round
    assert counting_sets(inst, nbrs) == [(frozenset(range(5)), 4), (frozenset({0, 2, 4}), 2)]
    inst = parse_instance("star:5", "multicast", "gossip")
    nbrs = [sorted(inst.graph.adj[v]) for v in range(inst.n)]
    assert counting_sets(inst, nbrs) == [(frozenset(range(5)), 5)]


def ascending_optimum(inst: Instance, options: EncodingOptions, slack: int = 0) -> int:
    """Fewest rounds by the transfer encoding alone (ascending SAT queries, no bounds)."""
    enc = encoding_for(inst, options, transfer=True)
    enc.count_slack = slack
    solver = make_backend("sat", enc.formula)
    try:
        r = 0
        while solver.solve([enc.selector(r)]) is not Status.SAT:
            r += 1
            assert r <= 40, "no schedule within 40 rounds"
        return r
    finally:
        solver.close()


@pytest.mark.parametrize("problem", ["gossip", "broadcast:0"])
@pytest.mark.parametrize("model", CAPPED)
def test_counting_never_cuts_off_an_optimum(model: str, problem: str) -> None:
    on = EncodingOptions.for_search()
    off = replace(on, packet_count=False)
    assert on.packet_count
    found = []
    for index, n, edges in cases(4):
        inst = project_instance(n, edges, model, problem)
        with_count, without = ascending_optimum(inst, on), ascending_optimum(inst, off)
        if with_count != without:
            found.append(f"atlas {index}: {with_count} with the counting, {without} without")
    assert not found, "\n".join(found)


@pytest.mark.parametrize(
    ("graph", "model", "optimum"),
    [
        ("star:5", "single-port", 16),  # the leaves: one receiver per round
        ("ring:5", "half-duplex:p=1", 10),  # everyone: nu = 2 receivers per round
        ("path:4", "multicast", 4),
        ("complete:4", "sequential:p=1", 6),  # one call, two receivers per round
        ("path:3", "half-duplex:p=1", 6),  # the middle node: six transfers, one per round
    ],
)
def test_counting_one_too_small_cuts_off_the_optimum(graph: str, model: str, optimum: int) -> None:
    inst = parse_instance(graph, model, "gossip")
    options = EncodingOptions.for_search()
    assert ascending_optimum(inst, options) == optimum
    assert ascending_optimum(inst, options, slack=-1) > optimum


def test_strict_leaves_the_counting_out() -> None:
    inst = parse_instance("star:5", "single-port", "gossip")
    on = encoding_for(inst, EncodingOptions.for_search())
    off = encoding_for(inst, EncodingOptions.for_search(strict=True))
    on.extend_to(3)
    off.extend_to(3)
    size = {enc: sum(1 for item in enc.formula.items if item[0] == "le") for enc in (on, off)}
    assert size[on] > size[off]
    assert not EncodingOptions().packet_count  # old certificates rebuild their own formula


@pytest.mark.parametrize("backend", ["sat", "cpsat"])
def test_busy_centre_settles_the_spider(backend: str) -> None:
    """Atlas graph 30 (leaves 1 and 2 and the path 3-4-0 on centre 3), half-duplex p=1:
    node 3 learns 4 packets, feeds each leaf 4 and sends 1, 2, 3 towards 4: 15 transfers
    touching it, one per round; the reference search agrees on 15."""
    edges = ((0, 4), (1, 3), (2, 3), (3, 4))
    inst = project_instance(5, edges, "half-duplex:p=1", "gossip")
    nbrs = [sorted(inst.graph.adj[v]) for v in range(inst.n)]
    assert max(len(f) for f in busy_facts(inst, nbrs)) == 15
    assert brute_force(5, edges, "half-duplex:p=1", "gossip") == 15
    res = solve(inst, backend=backend, use_bounds=False, proof=False, time_limit=60)
    assert (res.status, res.optimum) == ("optimal", 15)
