"""Split proofs: cubes on the first round, their cover, certificates and their checks."""

from __future__ import annotations

import copy

import pytest

from gossipcert.certificates.certificate import build_certificate, check_certificate
from gossipcert.certificates.split import is_automorphism
from gossipcert.instance import parse_instance
from gossipcert.proofs import relaxation
from gossipcert.proofs.refutation import pack_proof, prove_unsat, unpack_proof
from gossipcert.search.cube_plans import orbit_plan
from gossipcert.search.cube_runs import CubeStore
from gossipcert.search.cubes import base_formula, base_options, key_orbits
from gossipcert.search.entry import solve
from gossipcert.search.split import SplitSearch, SplitSettings
from gossipcert.search.split_refutation import refute_by_cubes
from gossipcert.simulate import simulate
from gossipcert.solvers.standalone import standalone_cnf

#: the split search writes DRAT proofs (its cubes): the optional extra "drat"
pytestmark = pytest.mark.usefixtures("dratify")

# (graph, model, problem, optimum, strict split); the strict splits of CCC3 and K5 take long
CASES = [
    *[
        (g, m, p, r, strict)
        for g, m, p, r in (
            ("petersen", "telephone", "gossip", 4),
            ("path:6", "telephone", "broadcast:1", 4),
            ("star:5", "half-duplex", "gossip", 8),
            ("ring:5", "half-duplex", "gossip", 6),
        )
        for strict in (False, True)
    ],
    ("ccc:3", "telephone", "gossip", 7, False),
    ("complete:5", "half-duplex", "gossip", 5, False),
]


def _split_certificate(inst, **settings) -> dict:
    args = (inst, "sat", None, base_options(settings.get("strict", False)), True, True, None, None)
    res = SplitSearch(*args, split=SplitSettings(**settings, one_piece=0.0)).run()
    assert res.status == "optimal"
    return build_certificate(res)


@pytest.mark.parametrize("graph,model,problem,optimum,strict", CASES)
def test_split_and_one_piece_proofs_agree(
    graph: str, model: str, problem: str, optimum: int, strict: bool
) -> None:
    inst = parse_instance(graph, model, problem)
    assert solve(inst, proof=False).optimum == optimum
    for r, expected in ((optimum - 1, "unsat"), (optimum, "sat")):
        whole = prove_unsat(standalone_cnf(inst, r, base_options(strict)))
        split = refute_by_cubes(inst, r, strict=strict)
        assert whole.status == split.status == expected
    assert split.schedule is not None
    rep = simulate(inst, split.schedule)
    assert rep.ok and rep.rounds <= optimum


def test_split_formula_is_the_standalone_formula_without_symmetry() -> None:
    inst = parse_instance("petersen", "half-duplex", "gossip")
    opts = base_options(False)
    assert base_formula(inst, 5, opts).cnf.sha256() == standalone_cnf(inst, 5, opts).sha256()


def test_orbits_cover_every_first_round_call() -> None:
    inst = parse_instance("ccc:3", "telephone", "gossip")
    base = base_formula(inst, 2, base_options(False))
    cubes, cov = orbit_plan(inst, base, depth=1)
    orbits = key_orbits(sorted(base.index), cov["generators"], True)
    assert sum(len(o) for o in orbits) == len(base.index) == 36
    assert len(orbits) == 2  # the cycle edges and the cube edges of CCC3
    assert len(cubes) == 1 + len(orbits)
    assert all(is_automorphism(inst, g) for g in cov["generators"])


@pytest.fixture(scope="module")
def orbit_cert() -> dict:
    return _split_certificate(parse_instance("ring:5", "half-duplex", "gossip"), depth=2)


@pytest.fixture(scope="module")
def strict_cert() -> dict:
    return _split_certificate(parse_instance("ring:5", "half-duplex", "gossip"), strict=True)


@pytest.mark.parametrize("which", ["orbit_cert", "strict_cert"])
def test_split_certificate_holds(which: str, request: pytest.FixtureRequest) -> None:
    cert = request.getfixturevalue(which)
    assert cert["evidence"]["kind"] == "drat-cubes"
    assert cert["symmetry_breaking"] is (which == "orbit_cert")
    rep = check_certificate(cert)
    assert rep.status == "holds", rep.steps


@pytest.mark.parametrize("which", ["orbit_cert", "strict_cert"])
def test_a_cube_without_its_proof_fails(which: str, request: pytest.FixtureRequest) -> None:
    cert = copy.deepcopy(request.getfixturevalue(which))
    del cert["evidence"]["cubes"][-1]["proof_xz_base64"]
    assert check_certificate(cert).status == "fails"


@pytest.mark.parametrize("which", ["orbit_cert", "strict_cert"])
def test_a_cut_proof_fails(which: str, request: pytest.FixtureRequest) -> None:
    cert = copy.deepcopy(request.getfixturevalue(which))
    # the cube with the longest proof (a short one may be refuted by unit propagation alone)
    cube = max(cert["evidence"]["cubes"], key=lambda c: c["proof_lines"])
    assert cube["proof_lines"] > 20
    lines = unpack_proof(cube["proof_xz_base64"]).splitlines()
    cube["proof_xz_base64"] = pack_proof("\n".join(lines[: len(lines) // 2]) + "\n")
    cube["proof_lines"] = len(lines) // 2  # stated as cut: the checkers are what reject it
    rep = check_certificate(cert)
    assert rep.status == "fails"
    assert not any("the record states" in text for _, text in rep.steps)


@pytest.mark.parametrize("which", ["orbit_cert", "strict_cert"])
def test_a_cube_stating_another_proof_length_fails(
    which: str, request: pytest.FixtureRequest
) -> None:
    cert = copy.deepcopy(request.getfixturevalue(which))
    cube = cert["evidence"]["cubes"][0]
    cube["proof_lines"] += 1  # the messages print the sum of these
    rep = check_certificate(cert)
    assert rep.status == "fails"
    assert any(ok is False and "the record states a proof of" in t for ok, t in rep.steps)


@pytest.mark.parametrize("which", ["orbit_cert", "strict_cert"])
@pytest.mark.parametrize("index", [0, 1, -1])
def test_a_dropped_cube_fails(which: str, index: int, request: pytest.FixtureRequest) -> None:
    cert = copy.deepcopy(request.getfixturevalue(which))
    del cert["evidence"]["cubes"][index]
    assert check_certificate(cert).status == "fails"


def test_dropped_cube_fails_the_orbit_cover_itself(orbit_cert: dict) -> None:
    # even with the list's digest made to match, a missing orbit is found
    from gossipcert.search.cubes import Cube, cubes_digest

    cert = copy.deepcopy(orbit_cert)
    ev = cert["evidence"]
    del ev["cubes"][-1]
    ev["coverage"]["cubes_sha256"] = cubes_digest([Cube.from_json(c) for c in ev["cubes"]])
    rep = check_certificate(cert)
    assert rep.status == "fails"
    assert any(ok is False and "cover by orbits FAILS" in text for ok, text in rep.steps)


def test_a_generator_that_is_no_automorphism_fails(orbit_cert: dict) -> None:
    cert = copy.deepcopy(orbit_cert)
    gens = cert["evidence"]["coverage"]["generators"]
    gens[0] = [2, 1, 0, 3, 4]  # swaps nodes 0 and 2 of the ring: not an automorphism
    rep = check_certificate(cert)
    assert rep.status == "fails"


def test_refuted_cubes_are_stored_and_reused(tmp_path) -> None:
    inst = parse_instance("star:5", "half-duplex", "gossip")
    first = refute_by_cubes(inst, 7, depth=2, store=tmp_path)
    assert first.status == "unsat" and len(list(tmp_path.glob("*.json"))) == first.cubes
    events: list[dict] = []
    again = refute_by_cubes(inst, 7, depth=2, store=tmp_path, progress=events.append)
    assert events[0]["event"] == "split" and events[0]["stored"] == first.cubes
    assert [e for e in events if e["event"] == "cube"] == []  # nothing solved again
    assert again.evidence == first.evidence
    # a stored file of another formula is not taken for this one
    CubeStore(tmp_path).put("0" * 64, {"cube": {"calls": [], "idle": []}, "status": "unsat"})
    assert refute_by_cubes(inst, 7, depth=2, store=tmp_path).evidence == first.evidence


def _stable(evidence: dict) -> dict:
    """Evidence without the timings (which differ from run to run)."""
    out = copy.deepcopy(evidence)
    for c in [*out["cubes"], out["coverage"]]:
        for k in ("seconds", "solve_seconds", "checkers"):
            c.pop(k, None)
    return out


def test_process_pool_gives_the_same_evidence() -> None:
    inst = parse_instance("petersen", "telephone", "gossip")
    one = refute_by_cubes(inst, 3, strict=True, jobs=1)
    two = refute_by_cubes(inst, 3, strict=True, jobs=2)
    assert one.status == two.status == "unsat"
    assert _stable(one.evidence) == _stable(two.evidence)


@pytest.mark.slow
def test_local_dask_cluster_gives_the_same_certificate() -> None:
    from dask import config as dask_config
    from dask.distributed import LocalCluster

    inst = parse_instance("star:5", "half-duplex", "gossip")
    pool = refute_by_cubes(inst, 7, depth=2, jobs=2)
    with (
        dask_config.set({"distributed.worker.daemon": False}),  # workers that start children
        LocalCluster(n_workers=2, threads_per_worker=1, dashboard_address=None) as cluster,
    ):
        dask = refute_by_cubes(inst, 7, depth=2, scheduler=cluster.scheduler_address)
    assert pool.status == dask.status == "unsat"
    assert _stable(pool.evidence) == _stable(dask.evidence)


def test_split_search_settles_easy_horizons_in_one_piece(monkeypatch) -> None:
    # the one-piece search's path: the relaxation step would refute ccc:3 at 6 rounds first
    monkeypatch.setattr(relaxation, "STEP_MIN_NODES", 10**6)
    inst = parse_instance("ccc:3", "telephone", "gossip")
    args = (inst, "sat", None, base_options(False), True, True, None, None)
    res = SplitSearch(*args, split=SplitSettings()).run()
    assert (res.status, res.optimum, res.evidence["kind"]) == ("optimal", 7, "drat")


def test_solve_split_on_the_command_line_writes_a_certificate_that_checks(tmp_path) -> None:
    import json

    from typer.testing import CliRunner

    from gossipcert.cli import app

    runner = CliRunner()
    cert = tmp_path / "c.json"
    store = tmp_path / "cubes"
    args = ["solve", "ring:5", "-m", "half-duplex", "--split", "--split-depth", "2"]
    args += ["--cube-store", str(store), "-o", str(cert), "--json", "-q", "-t", "60"]
    monkey = pytest.MonkeyPatch()
    monkey.setattr("gossipcert.search.split.ONE_PIECE_SHARE", 0.0)  # straight to the cubes
    try:
        out = runner.invoke(app, args)
    finally:
        monkey.undo()
    assert out.exit_code == 0, out.output
    data = json.loads(out.stdout)
    assert data["optimum"] == 6 and data["evidence"]["kind"] == "drat-cubes"
    assert "proof_xz_base64" not in json.dumps(data)  # proofs stay in the certificate
    assert list(store.glob("*.json"))
    checked = runner.invoke(app, ["check", str(cert), "--json", "-t", "120"])
    assert checked.exit_code == 0 and json.loads(checked.stdout)["status"] == "holds"


def test_automorphism_check_keeps_capacities_and_the_set_of_sources() -> None:
    import networkx as nx

    from gossipcert.instance import make_instance, parse_model, parse_problem

    g = nx.path_graph(3)
    nx.set_node_attributes(g, False, "router")
    nx.set_node_attributes(g, {v: str(v) for v in g}, "label")
    g[0][1]["capacity"], g[1][2]["capacity"] = 2, 1
    g.graph["spec"] = "file"
    inst = make_instance(g, parse_model("all-port"), parse_problem("gossip"))
    assert not is_automorphism(inst, [2, 1, 0])  # swaps a capacity-2 edge with a capacity-1 one
    assert is_automorphism(inst, [0, 1, 2])
    two = parse_instance("ring:8", "telephone", "broadcast:0,4")
    assert is_automorphism(two, [(4 - v) % 8 for v in range(8)])  # exchanges the two sources
    assert not is_automorphism(two, [(v + 1) % 8 for v in range(8)])


def test_split_refuses_models_outside_its_argument() -> None:
    from typer.testing import CliRunner

    from gossipcert.cli import app
    from gossipcert.errors import UnsupportedModelError
    from gossipcert.search.split_refutation import refute_by_cubes

    with pytest.raises(UnsupportedModelError, match="--split covers"):
        refute_by_cubes(parse_instance("ring:6", "all-port", "gossip"), 1)
    result = CliRunner().invoke(app, ["solve", "ring:6", "-m", "all-port", "--split"])
    assert result.exit_code == 2 and "--split covers" in result.output


def test_a_search_process_that_dies_is_an_error_not_a_time_out(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import os

    from gossipcert import watchdog
    from gossipcert.errors import SolverError

    monkeypatch.setattr(watchdog, "_solve_child", lambda *args: os._exit(3))
    with pytest.raises(SolverError, match="ended without an answer"):
        watchdog.solve_within(parse_instance("ring:6", "telephone", "gossip"), time_limit=30)


def test_a_tampered_stored_cube_is_solved_again(tmp_path) -> None:
    """A refutation read back from the cube store is re-checked before it is trusted."""
    import json

    inst = parse_instance("star:5", "half-duplex", "gossip")
    first = refute_by_cubes(inst, 7, depth=2, store=tmp_path)
    victim = sorted(tmp_path.glob("*.json"))[0]
    data = json.loads(victim.read_text())
    data["proof_xz_base64"] = "bm90IGEgcHJvb2Y="  # base64 of "not a proof": unreadable
    victim.write_text(json.dumps(data))
    events: list[dict] = []
    again = refute_by_cubes(inst, 7, depth=2, store=tmp_path, progress=events.append)
    assert events[0]["stored"] == first.cubes - 1
    assert len([e for e in events if e["event"] == "cube"]) == 1  # that cube solved again
    assert again.status == "unsat"
