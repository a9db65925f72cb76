"""The exact solver against independent searches for every packet-limited model.

The reference searches live in ``packets_reference.py`` and share nothing with
:mod:`gossipcert`: a layered search over every round a model allows (slow, plain) and a
decision search with admissible bounds and maximal rounds only (fast). They are checked
against each other and by hand; connected graphs of the networkx atlas are then solved by
the project and by the fast one, for gossip and for broadcast from node 0, and the optima
must agree.
"""

from __future__ import annotations

from functools import cache

import networkx as nx
import pytest
from packets_reference import Edge, layered_optimum, optimum

from gossipcert.encodings import EncodingOptions, encoding_for
from gossipcert.instance import Instance, make_instance, parse_instance, parse_model, parse_problem
from gossipcert.search.entry import solve
from gossipcert.solvers.backends import Status, make_backend

brute_force = optimum  # the reference the project is compared with

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
        ("star:5", "single-port", "gossip", 16),  # the centre sends 4 packets to each leaf
        ("star:5", "half-duplex:p=1", "gossip", 20),  # ... and receives 4 in other rounds
        ("ring:5", "single-port", "gossip", 4),  # n - 1
        ("ring:5", "half-duplex:p=1", "gossip", 10),  # 2n, n odd
        ("complete:5", "sequential", "gossip", 6),  # 2n - 4
        ("complete:5", "sequential:p=1", "gossip", 10),  # n(n - 1)/2
    ],
)
def test_reference_hand_checked(graph: str, model: str, problem: str, expected: int) -> None:
    inst = parse_instance(graph, "telephone", "gossip")
    edges = tuple(sorted((min(e), max(e)) for e in inst.graph.edges))
    assert optimum(inst.n, edges, model, problem) == expected
    if inst.n <= 4:
        assert layered_optimum(inst.n, edges, model, problem) == expected


@pytest.mark.parametrize("problem", PROBLEMS)
def test_references_agree(problem: str) -> None:
    """The decision search (bounds, maximal rounds) and the layered search (every round)
    give the same optimum for every model on every connected graph with up to 4 nodes."""
    found = [
        f"atlas {index} {model}: layered {slow}, decision {fast}"
        for index, n, edges in cases(4)
        for model in MODELS
        if (slow := layered_optimum(n, edges, model, problem))
        != (fast := optimum(n, edges, model, problem))
    ]
    assert not found, "\n".join(found)


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
    """Gossip on the 21 connected graphs with 5 nodes (the reference takes up to about three
    minutes per model here, sequential:p=1 the longest)."""
    found = mismatches(model, "gossip", backend, strict=False, max_n=5)
    assert not found, "\n".join(found)


@pytest.mark.slow
@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("model", MODELS)
def test_solver_matches_bruteforce_six_node_broadcast(model: str, backend: str) -> None:
    """Broadcast on the 112 connected graphs with 6 nodes (the reference takes about a
    second per model; the project's solves take the time)."""
    found = mismatches(model, "broadcast:0", backend, strict=False, max_n=6)
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
