"""Reductions solved: reduce and reduce-scatter by time reversal, the allreduce bracket,
their certificates, and the optima against the exhaustive search of
:mod:`tests.reductions_reference` on tiny graphs."""

from __future__ import annotations

import copy
from functools import cache
from pathlib import Path
from typing import Any

import networkx as nx
import pytest
from typer.testing import CliRunner

from gossipcert.certificates.certificate import build_certificate, check_certificate
from gossipcert.cli import app
from gossipcert.errors import UnsupportedModelError
from gossipcert.instance import (
    Instance,
    ProblemKind,
    make_instance,
    parse_instance,
    parse_model,
    parse_problem,
)
from gossipcert.schedule import Schedule
from gossipcert.search import allreduce as allreduce_search
from gossipcert.search import allreduce_exact, heartbeat
from gossipcert.search.allreduce_bounds import receive_bound
from gossipcert.search.entry import solve
from gossipcert.search.outcome import SolveResult
from gossipcert.search.reversal import dual_instance, reduction_from_dual
from gossipcert.simulate import simulate
from tests.reductions_reference import Edge, reference_optimum

runner = CliRunner()


@pytest.fixture(autouse=True)
def _exact_search_only(monkeypatch: pytest.MonkeyPatch) -> None:
    """These tests exercise the exact search and its DRAT proofs, which the chunk-packing
    bound would pre-empt on the bowtie (tests/test_allreduce_packing.py covers that bound)."""
    monkeypatch.setattr(allreduce_search, "PACKING_NODES", 0)


GRAPHS: dict[str, tuple[int, list[Edge]]] = {
    "P3": (3, [(0, 1), (1, 2)]),
    "K3": (3, [(0, 1), (1, 2), (0, 2)]),
    "P4": (4, [(0, 1), (1, 2), (2, 3)]),
    "S4": (4, [(0, 1), (0, 2), (0, 3)]),
    "C4": (4, [(0, 1), (1, 2), (2, 3), (0, 3)]),
    "K4": (4, [(a, b) for a in range(4) for b in range(a + 1, 4)]),
}
MODELS = {"telephone": "telephone", "single-port": "single-port:p=1", "all-port": "all-port"}


def project_graph(name: str) -> nx.Graph:
    n, edges = GRAPHS[name]
    g = nx.Graph()
    g.add_nodes_from(range(n))
    g.add_edges_from(edges)
    nx.set_node_attributes(g, {v: str(v) for v in g}, "label")
    nx.set_node_attributes(g, False, "router")
    nx.set_edge_attributes(g, 1, "capacity")
    g.graph["spec"] = name
    return g


@cache
def project(name: str, model: str, problem: str) -> SolveResult:
    inst = make_instance(project_graph(name), parse_model(MODELS[model]), parse_problem(problem))
    return solve(inst, proof=False)


def spec(problem: str, k: int) -> str:
    root = "reduce:0" if problem == "reduce" else problem
    chunks = f"chunks={k}" if k > 1 else ""
    sep = "," if ":" in root else ":"
    return root + (sep + chunks if chunks else "")


# (graph, model, problem, chunks): each reference search well under a second
FAST = [
    *[(g, "telephone", p, k) for g in GRAPHS for p in ("reduce", "reduce-scatter") for k in (1, 2)],
    *[(g, m, "reduce", 1) for g in GRAPHS for m in ("single-port", "all-port")],
    ("P3", "single-port", "reduce", 2),
    ("P4", "single-port", "reduce", 2),
    ("P3", "all-port", "reduce", 2),
    ("S4", "all-port", "reduce", 2),
    ("P4", "all-port", "reduce", 2),
    ("P3", "all-port", "reduce-scatter", 1),
]
SLOW = [
    ("P3", "single-port", "reduce-scatter", 1),
    ("K3", "single-port", "reduce-scatter", 1),
    ("C4", "single-port", "reduce", 2),
    ("C4", "all-port", "reduce", 2),
]


def check_against_reference(graph: str, model: str, problem: str, k: int) -> None:
    res = project(graph, model, spec(problem, k))
    assert res.status == "optimal" and res.report is not None and res.report.ok
    n, edges = GRAPHS[graph]
    assert res.optimum == reference_optimum(n, edges, model, problem, k, "max")


@pytest.mark.parametrize(("graph", "model", "problem", "k"), FAST)
def test_reversal_optimum_matches_exhaustive_search(
    graph: str, model: str, problem: str, k: int
) -> None:
    check_against_reference(graph, model, problem, k)


@pytest.mark.slow
@pytest.mark.parametrize(("graph", "model", "problem", "k"), SLOW)
def test_reversal_optimum_matches_exhaustive_search_slow(
    graph: str, model: str, problem: str, k: int
) -> None:
    check_against_reference(graph, model, problem, k)


@pytest.mark.parametrize(
    ("graph", "model", "k"),
    [("P3", "telephone", 1), ("P3", "telephone", 2), ("P3", "single-port", 1)],
)
def test_sum_and_max_agree_for_reduce(graph: str, model: str, k: int) -> None:
    """Under sum nothing is pruned: the same optimum, as the duality argument says."""
    n, edges = GRAPHS[graph]
    got = reference_optimum(n, edges, model, "reduce", k, "sum")
    assert got == reference_optimum(n, edges, model, "reduce", k, "max")
    assert got == project(graph, model, spec("reduce", k)).optimum


ALLREDUCE = [(g, "telephone", k) for g in GRAPHS for k in (1, 2)] + [("P3", "all-port", 1)]


@pytest.mark.parametrize(("graph", "model", "k"), ALLREDUCE)
def test_allreduce_max_matches_exhaustive_search(graph: str, model: str, k: int) -> None:
    res = project(graph, model, spec("allreduce", k) + (",redop=max" if k > 1 else ":redop=max"))
    n, edges = GRAPHS[graph]
    assert res.status == "optimal" and res.report is not None and res.report.ok
    assert res.optimum == reference_optimum(n, edges, model, "allreduce", k, "max")


@pytest.mark.parametrize(("graph", "model", "k"), ALLREDUCE)
def test_allreduce_sum_within_its_bounds(graph: str, model: str, k: int) -> None:
    """Under sum the bracket's bounds hold and max's optimum is a lower bound."""
    res = project(graph, model, spec("allreduce", k))
    n, edges = GRAPHS[graph]
    assert res.status == "optimal" and res.report is not None and res.report.ok
    assert res.optimum >= reference_optimum(n, edges, model, "allreduce", k, "max")
    bracket = res.evidence.get("bracket", res.evidence)
    assert bracket["value"] <= res.optimum


def test_allreduce_on_a_path_of_three_single_port() -> None:
    """The receipts bound is 6 (3 chunks received 4 times each, 2 arcs a round); the cut
    bound at the middle node is 7 (it hears every chunk from both sides, 6 rounds, and
    after the last one sends it to the other side), which the allreduce model's schedule
    meets: the exhaustive search's optimum (under max, hence under sum)."""
    res = project("P3", "single-port", "allreduce")
    assert (res.status, res.optimum, res.evidence["kind"]) == ("optimal", 7, "allreduce-bracket")
    assert res.evidence["source"] == "cut" and res.evidence["bounds"]["receipts"] == 6
    assert reference_optimum(3, GRAPHS["P3"][1], "single-port", "allreduce", 1, "max") == 7


def test_allreduce_sum_on_two_nodes_by_exhaustive_search() -> None:
    """Nothing pruned under sum: one exchange with reduce on two nodes, two chunks."""
    res = solve(parse_instance("path:2", "telephone", "allreduce:chunks=2"))
    assert res.optimum == 1 == reference_optimum(2, [(0, 1)], "telephone", "allreduce", 2, "sum")


def test_receive_bound() -> None:
    assert receive_bound(parse_instance("ring:4", "single-port", "allreduce:chunks=2")) == 8
    assert receive_bound(parse_instance("star:4", "all-port", "allreduce")) == 4
    assert receive_bound(parse_instance("ring:4", "telephone", "allreduce")) is None


# ----------------------------------------------------------------------------- reversal


def test_reversed_broadcast_tree() -> None:
    red = parse_instance("path:4", "telephone", "reduce:1")
    bc = Schedule.from_calls([[(1, 2)], [(1, 0), (2, 3)]])
    out = reduction_from_dual(dual_instance(red), bc, red)
    rounds = [sorted((t.sender, t.receivers[0], t.op) for t in r) for r in out.rounds]
    assert rounds == [[(0, 1, "reduce"), (3, 2, "reduce")], [(2, 1, "reduce")]]
    assert simulate(red, out).ok


def test_only_the_first_receipt_is_kept() -> None:
    # in all-port, 1 and 2 both inform 3 in round 2: 3 reports to one of them only
    red = parse_instance("complete:4", "all-port", "reduce:0")
    dual = dual_instance(red)
    from gossipcert.schedule import Transmission

    bc = Schedule(
        (
            (Transmission(0, (1,), 1), Transmission(0, (2,), 1)),
            (Transmission(1, (3,), 1), Transmission(2, (3,), 1), Transmission(1, (2,), 1)),
        )
    )
    assert simulate(dual, bc).ok
    out = reduction_from_dual(dual, bc, red)
    assert [len(r) for r in out.rounds] == [1, 2]
    assert simulate(red, out).ok


@pytest.mark.parametrize("model", ["multicast", "all-port:calls=1"])
def test_models_not_symmetric_are_refused(model: str) -> None:
    with pytest.raises(UnsupportedModelError):
        solve(parse_instance("ring:4", model, "reduce:0"))
    res = runner.invoke(app, ["solve", "ring:4", "-m", model, "-p", "reduce-scatter"])
    assert res.exit_code == 2 and "time reversal" in res.stderr


@pytest.mark.parametrize(
    ("graph", "model", "problem", "optimum"),
    [
        ("ring:8", "telephone", "reduce-scatter", 4),  # gossip on an even ring: n/2
        ("ring:7", "single-port", "reduce-scatter", 6),  # single-port ring: n - 1
        ("hypercube:3", "telephone", "reduce:0", 3),  # broadcast: log2 n
        ("ring:6", "sequential", "reduce:0", 5),  # one call a round: n - 1 calls
        ("path:5", "half-duplex", "reduce:0,chunks=2", 4),  # the distance
    ],
)
def test_known_optima(graph: str, model: str, problem: str, optimum: int) -> None:
    res = solve(parse_instance(graph, model, problem))
    assert res.status == "optimal" and res.optimum == optimum and res.certified
    assert res.report is not None and res.report.ok and res.report.rounds == optimum
    assert all(t.op == "reduce" for r in res.schedule.rounds for t in r)  # type: ignore[union-attr]


# ----------------------------------------------------------------------------- certificates


@cache
def drat_certificate() -> dict:
    """A reduce-scatter certificate whose dual's lower bound is a DRAT proof."""
    res = solve(parse_instance("ring:5", "telephone", "reduce-scatter"), use_bounds=False)
    assert res.evidence["kind"] == "reversal" and res.evidence["dual"]["kind"] == "drat"
    return build_certificate(res)


def test_certificate_of_a_reversal_holds() -> None:
    cert = drat_certificate()
    rep = check_certificate(copy.deepcopy(cert))
    assert rep.status == "holds", rep.steps
    texts = [t for _, t in rep.steps]
    assert any(t.startswith("gossip: ") and "LRAT proof" in t for t in texts)
    assert any("run backwards solves reduce-scatter in 4 rounds" in t for t in texts)


def test_tampered_reversal_certificates_fail() -> None:
    cert = copy.deepcopy(drat_certificate())
    cert["evidence"]["dual_certificate"]["instance"]["problem"] = {"spec": "broadcast:0"}
    assert check_certificate(cert).status == "fails"
    cert = copy.deepcopy(drat_certificate())
    cert["evidence"]["dual_certificate"]["schedule"]["rounds"].pop()
    assert check_certificate(cert).status == "fails"
    cert = copy.deepcopy(drat_certificate())
    cert["instance"]["model"] = "multicast"
    assert check_certificate(cert).status == "fails"


def bowtie(folder: Path) -> Instance:
    """The bowtie (two triangles sharing node 4), all-port, one chunk per node, read from a
    graph file: no closed bound reaches its optimum 5, so a DRAT refutation of 4 rounds
    certifies it."""
    path = folder / "bowtie.edgelist"
    path.write_text("0 1\n0 4\n1 4\n2 3\n2 4\n3 4\n")
    return parse_instance(str(path), "all-port", "allreduce")


def test_allreduce_certificate_with_a_drat_proof(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(heartbeat, "EVERY_SECONDS", 0.01)
    events: list[dict[str, Any]] = []
    res = solve(bowtie(tmp_path), progress=events.append)  # the receipts and cut bounds are 4
    assert (res.optimum, res.evidence["kind"], res.evidence["rounds"]) == (5, "allreduce-drat", 4)
    # the search of the bracket tells it is alive while a horizon is decided
    beats = [e["what"] for e in events if e["event"] == "heartbeat"]
    assert any(w.startswith("deciding 4 rounds: the union relaxation") for w in beats), beats
    assert res.evidence["bracket"]["source"] == "receipts"
    cert = build_certificate(res)
    rep = check_certificate(copy.deepcopy(cert))
    assert rep.status == "holds", rep.steps
    cert["evidence"]["rounds"] = 3
    assert check_certificate(copy.deepcopy(cert)).status == "fails"
    cert["evidence"]["rounds"] = 4
    # the union relaxation is refuted: the same formula bounds allreduce under max
    assert (res.evidence["formula"], res.evidence["strict"]) == ("union", False)
    assert cert["symmetry_breaking"] is True  # it rests on the relaxation's sound families
    assert any("ordered interchangeable chunks" in t for _, t in rep.steps)
    flag = copy.deepcopy(cert)
    flag["symmetry_breaking"] = False
    assert check_certificate(flag).status == "fails"
    as_max = copy.deepcopy(cert)
    as_max["instance"]["problem"] = {"spec": "allreduce:redop=max"}
    assert check_certificate(as_max).status == "holds"
    for field, value in (("formula", "exact"), ("strict", True), ("formula", "knowledge")):
        forged = copy.deepcopy(cert)
        forged["evidence"][field] = value
        assert check_certificate(forged).status == "fails", (field, value)  # another CNF


def test_allreduce_exact_model_refutation_is_checked_against_its_own_cnf(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    # where the relaxation has a model (a max schedule that counts twice), the exact CNF is
    # refuted; here the relaxation is made to answer "sat" to reach that path
    monkeypatch.setattr(allreduce_exact, "refute_union", lambda *args: ("sat", None))
    res = solve(bowtie(tmp_path))
    assert (res.optimum, res.evidence["rounds"], res.evidence.get("formula")) == (5, 4, None)
    cert = build_certificate(res)
    assert check_certificate(copy.deepcopy(cert)).status == "holds"
    cert["evidence"]["formula"] = "union"
    assert check_certificate(cert).status == "fails"


def test_allreduce_strict_refutes_the_relaxation_without_its_sound_families(
    tmp_path: Path,
) -> None:
    res = solve(bowtie(tmp_path), strict=True)
    assert (res.optimum, res.evidence["formula"], res.evidence["strict"]) == (5, "union", True)
    cert = build_certificate(res)
    assert cert["symmetry_breaking"] is False
    assert check_certificate(copy.deepcopy(cert)).status == "holds"
    cert["evidence"]["strict"] = False
    assert check_certificate(cert).status == "fails"


def test_allreduce_certificate_from_the_receive_bound() -> None:
    res = solve(parse_instance("path:2", "single-port", "allreduce:chunks=2"))
    # each node receives 4 chunks one a round; reduce-scatter 2 then allgather 2
    assert (res.status, res.optimum, res.evidence["source"]) == ("optimal", 4, "receive")
    cert = build_certificate(res)
    assert check_certificate(copy.deepcopy(cert)).status == "holds"
    cert["evidence"]["source"] = "gossip"
    assert check_certificate(cert).status == "fails"


def test_composition_drops_second_copies_of_a_chunk() -> None:
    """An all-port gossip schedule may deliver a packet twice in one round; composed, the
    second copy is left out (two copies at once break the verifier's rule)."""
    from gossipcert.schedule import Transmission
    from gossipcert.search.allreduce import compose, sub_problem

    def T(u: int, to: tuple[int], mask: int) -> Transmission:
        return Transmission(u, to, mask)

    inst = parse_instance("complete:3", "all-port", "allreduce")
    gossip = sub_problem(inst, ProblemKind.GOSSIP)
    rs = solve(sub_problem(inst, ProblemKind.REDUCE_SCATTER)).schedule
    assert rs is not None
    # round 2: 0 and 1 both send packet 0 to 2
    ag = Schedule(
        (
            (T(0, (1,), 1),),
            (T(0, (2,), 1), T(1, (2,), 1), T(2, (0,), 4), T(2, (1,), 4), T(1, (0,), 2)),
            (T(1, (2,), 2),),
        )
    )
    assert simulate(gossip, ag).ok
    out = compose(rs, gossip, ag)
    assert simulate(inst, out).ok
    assert [len(r) for r in out.rounds[len(rs) :]] == [1, 4, 1]
