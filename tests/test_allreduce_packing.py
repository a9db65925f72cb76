"""The chunk-packing bound of allreduce (gossipcert.proofs.allreduce_packing): its refutations,
their re-check, and horizons it must not refute."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest

from gossipcert.certificates.certificate import build_certificate, check_certificate
from gossipcert.instance import Instance, parse_instance
from gossipcert.proofs.allreduce_packing import (
    check_packing_evidence,
    one_chunk,
    packing_bound,
    slots,
    total,
)
from gossipcert.search import heartbeat
from gossipcert.search.entry import solve
from tests.one_chunk_reference import least_weight
from tests.test_allreduce_cut import atlas_instance

#: an instance and its chunk-packing evidence
Packed = tuple[Instance, dict[str, Any]]


class Steps:
    """A report that keeps the steps of a check."""

    def __init__(self) -> None:
        self.steps: list[tuple[bool | None, str]] = []

    def add(self, ok: bool | None, text: str) -> None:
        self.steps.append((ok, text))

    @property
    def holds(self) -> bool:
        return all(ok is not False for ok, _ in self.steps)


@pytest.fixture(scope="module")
def atlas43() -> Packed:
    # the 5-cycle with the chord 0-3, all-port, two chunks a node: 7 rounds are impossible
    inst = atlas_instance(43, "all-port", 2)
    ev = packing_bound(inst, 7, None)
    assert ev is not None
    return inst, ev


def test_atlas_43_needs_eight_rounds(atlas43: Packed) -> None:
    inst, ev = atlas43
    assert ev["kind"] == "allreduce-packing" and ev["rounds"] == 7 and ev["chunks"] == 10
    assert ev["chunks"] * ev["least_weight"] > ev["total"]
    weights = {tuple(r[:-1]): r[-1] for r in ev["weights"]}
    assert ev["total"] == total(slots(inst, 7), weights)
    assert set(weights) <= set(slots(inst, 7))
    out = Steps()
    check_packing_evidence(inst, 8, ev, None, out)
    assert out.holds and len(out.steps) >= 3


def test_the_least_weight_agrees_with_an_independent_brute_force(
    atlas43: Packed,
) -> None:
    inst, ev = atlas43
    weights = {(u, v, t): y for _, u, v, t, y in ev["weights"]}
    edges = sorted(inst.graph.edges)  # atlas 43: the 5-cycle with the chord 0-3
    assert least_weight(5, edges, 7, weights, ev["least_weight"]) == ev["least_weight"]
    assert least_weight(5, edges, 7, weights, ev["least_weight"] - 1) is None
    # and the weights make the chunks too heavy: 7 rounds are impossible
    assert ev["chunks"] * ev["least_weight"] > sum(y for *_, y in ev["weights"])


@pytest.mark.parametrize(
    "mutation",
    ["lighter", "heavier-claim", "rounds", "proof", "strict"],
)
def test_a_forged_packing_evidence_fails(atlas43: Packed, mutation: str) -> None:
    inst, ev = atlas43
    bad = copy.deepcopy(ev)
    if mutation == "lighter":  # drop a weighted slot: the CNF (and the total) change
        bad["weights"] = bad["weights"][1:]
        bad["total"] -= 1
    elif mutation == "heavier-claim":  # claim a larger least weight than was proved
        bad["least_weight"] += 1
    elif mutation == "rounds":
        bad["rounds"] = 6
    elif mutation == "proof":
        key = "lrat_xz_base64" if "lrat_xz_base64" in bad else "proof_xz_base64"
        bad[key] = bad[key][:-8] + "AAAAAAAA"
    else:  # the proof was made with the useless-transmission family
        bad["strict"] = True
    out = Steps()
    check_packing_evidence(inst, 8, bad, None, out)
    assert not out.holds


@pytest.mark.parametrize(
    ("graph", "model", "problem", "feasible"),
    [
        ("path:3", "single-port", "allreduce", 7),
        ("ring:4", "single-port", "allreduce", 6),
        ("path:4", "all-port", "allreduce", 6),
    ],
)
def test_a_feasible_horizon_is_never_refuted(
    graph: str, model: str, problem: str, feasible: int
) -> None:
    # these horizons have verified schedules (solve's optima), so no bound may refute them
    inst = parse_instance(graph, model, problem)
    assert packing_bound(inst, feasible, None) is None


def test_one_chunk_keeps_contributors_and_demanders() -> None:
    inst = parse_instance("ring:4", "single-port", "allreduce:chunks=2")
    single, k = one_chunk(inst)
    assert k == 8 and single.n_packets == 1
    assert single.holdings == (1, 1, 1, 1) and single.demands == (1, 1, 1, 1)


def test_solve_certifies_the_bowtie_by_the_packing_bound(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the bowtie (two triangles sharing node 4), all-port, one chunk a node: 4 rounds refuted;
    # from a graph file, so that check can rebuild it
    path = tmp_path / "bowtie.edgelist"
    path.write_text("0 1\n0 4\n1 4\n2 3\n2 4\n3 4\n")
    monkeypatch.setattr(heartbeat, "EVERY_SECONDS", 0.01)
    events: list[dict[str, Any]] = []
    res = solve(parse_instance(str(path), "all-port", "allreduce"), progress=events.append)
    assert res.status == "optimal" and res.optimum == 5
    # the bound's stage tells it is alive, with the bracket, as the exact search does
    beats = [e for e in events if e["event"] == "heartbeat"]
    assert any(e["what"] == "the chunk-packing bound at 4 rounds" for e in beats)
    assert all({"time", "rounds", "lower", "upper"} <= e.keys() for e in beats)
    assert res.evidence["kind"] == "allreduce-packing" and res.evidence["rounds"] == 4
    cert = build_certificate(res)
    rep = check_certificate(copy.deepcopy(cert))
    assert rep.status == "holds", rep.steps
    assert any("interchangeable chunks weigh at least" in t for _, t in rep.steps)
    bad = copy.deepcopy(cert)
    bad["evidence"]["total"] += 1
    assert check_certificate(bad).status == "fails"
    bad = copy.deepcopy(cert)
    bad["symmetry_breaking"] = not bad["symmetry_breaking"]
    assert check_certificate(bad).status == "fails"


def test_ctrl_c_in_the_packing_bound_keeps_the_bracket(monkeypatch: pytest.MonkeyPatch) -> None:
    from gossipcert.search import allreduce

    def interrupted(*args: Any) -> Any:
        raise KeyboardInterrupt

    monkeypatch.setattr(allreduce, "packing_bound", interrupted)
    res = solve(atlas_instance(42, "all-port", 1))  # the bowtie: bracket [4, 5] before it
    assert res.interrupted and res.status == "feasible" and res.optimum is None
    assert res.lower_bound == 4 and res.upper_bound is not None and res.upper_bound >= 5
    assert res.evidence["kind"] == "allreduce-bracket"
