"""The exact core: closed forms, the papers' optima, proofs, certificates and their checks."""

from __future__ import annotations

import copy
import json
import math
from pathlib import Path

import pytest

from gossipcert.certificates.certificate import build_certificate, check_certificate
from gossipcert.closed_forms import all_bounds
from gossipcert.encodings import EncodingOptions
from gossipcert.errors import CertificateError, SpecError
from gossipcert.graphs import MAX_NODES
from gossipcert.instance import parse_instance
from gossipcert.proofs import relaxation
from gossipcert.proofs.checkers import check_proof
from gossipcert.proofs.refutation import pack_proof, prove_unsat, unpack_proof
from gossipcert.search.entry import solve
from gossipcert.simulate import simulate
from gossipcert.solvers.export import ESTIMATE_FROM, estimated_items, export
from gossipcert.solvers.standalone import standalone_cnf, standalone_formula


def optimum(graph: str, model: str = "telephone", problem: str = "gossip", **kw) -> int:
    res = solve(parse_instance(graph, model, problem), proof=False, **kw)
    assert res.status == "optimal", res.status
    rep = simulate(res.instance, res.schedule)
    assert rep.ok and rep.rounds == res.optimum
    return res.optimum


# ------------------------------------------------------------------- closed forms


@pytest.mark.parametrize("n", range(3, 17))
def test_telephone_gossip_on_complete_graphs(n: int) -> None:
    assert optimum(f"complete:{n}") == math.ceil(math.log2(n)) + n % 2


@pytest.mark.parametrize("n", range(3, 9))
def test_telephone_gossip_on_complete_graphs_proved_by_the_solver(n: int) -> None:
    assert optimum(f"complete:{n}", use_bounds=False) == math.ceil(math.log2(n)) + n % 2


@pytest.mark.parametrize("k", range(1, 7))
def test_telephone_gossip_on_hypercubes(k: int) -> None:
    assert optimum(f"hypercube:{k}") == k


@pytest.mark.parametrize("n", range(2, 11))
def test_telephone_gossip_on_paths_beier_sibeyn_lemma_1(n: int) -> None:
    # Lemma 1: n - 1 rounds for even n, n rounds for odd n
    assert optimum(f"path:{n}", use_bounds=False) == (n - 1 if n % 2 == 0 else n)


@pytest.mark.parametrize("n", range(3, 13))
def test_telephone_gossip_on_cycles_beier_sibeyn_lemma_1(n: int) -> None:
    # Lemma 1: n/2 rounds for even n, floor(n/2) + 2 for odd n
    assert optimum(f"ring:{n}", use_bounds=False) == (n // 2 if n % 2 == 0 else n // 2 + 2)


@pytest.mark.parametrize("n", range(3, 9))
def test_broadcast_is_the_eccentricity_on_paths_and_log_on_complete(n: int) -> None:
    assert optimum(f"path:{n}", problem="broadcast:0", use_bounds=False) == n - 1
    assert optimum(f"complete:{n}", problem="broadcast:0", use_bounds=False) == math.ceil(
        math.log2(n)
    )


def test_half_duplex_is_never_faster_than_telephone() -> None:
    for g in ["path:4", "ring:5", "ring:6", "complete:4", "complete:5", "star:4"]:
        tel = optimum(g)
        hd = optimum(g, model="half-duplex")
        assert hd >= tel, g


def test_half_duplex_gossip_on_small_graphs() -> None:
    # path:2: one round each way; ring:4: 0->1,2->3 then 1->2... needs 4; complete:4 needs 4
    assert optimum("path:2", model="half-duplex", use_bounds=False) == 2
    assert optimum("path:3", model="half-duplex", use_bounds=False) == 4


@pytest.mark.parametrize("backend", ["sat", "cpsat"])
def test_other_problems(backend: str) -> None:
    # scatter from the centre of a star: one leaf per round
    assert optimum("star:5", problem="scatter:0", backend=backend, use_bounds=False) == 4
    # gather to an end of a path of 4 nodes under telephone: 3 rounds (pipeline)
    assert optimum("path:4", problem="gather:0", backend=backend, use_bounds=False) == 3
    # total exchange with unbounded packets is gossip on the same graph
    assert optimum("ring:6", problem="total-exchange", backend=backend) == 3


# ------------------------------------------------------------------- Beier-Sibeyn Table 5

TABLE5 = [
    ("ccc:3", 7),
    ("butterfly:3", 6),
    ("shuffle-exchange:3", 5),
    ("shuffle-exchange:4", 7),
    ("debruijn:3", 4),
    ("debruijn:4", 6),
]


@pytest.mark.usefixtures("dratify")
@pytest.mark.parametrize(("graph", "rounds"), TABLE5)
def test_beier_sibeyn_table5_optima_with_checked_proofs(graph: str, rounds: int) -> None:
    inst = parse_instance(graph, "telephone", "gossip")
    res = solve(inst)
    assert res.status == "optimal" and res.optimum == rounds
    assert simulate(inst, res.schedule).rounds == rounds
    # a checked DRAT proof that one round fewer is impossible, whatever the evidence used
    if res.evidence["kind"] == "drat":
        assert {c["status"] for c in res.evidence["checkers"]} == {"verified"}
    cnf = standalone_cnf(inst, rounds - 1, EncodingOptions())
    pr = prove_unsat(cnf)
    assert pr.status == "unsat"
    assert check_proof(cnf.dimacs(), pr.proof).ok


def test_strict_proof_covers_the_plain_encoding() -> None:
    inst = parse_instance("ring:7", "half-duplex", "gossip")
    res = solve(inst, strict=True, use_bounds=False)
    assert res.optimum == optimum("ring:7", model="half-duplex")
    assert res.evidence["kind"] == "drat"
    assert res.evidence["encoding"] == {
        "prune": True,
        "counting": False,  # the default
        "dominance": False,
        "symmetry": False,
        # rules of the transfer encoding, not read by the knowledge encoding
        "learn_cap": False,
        "useless": False,
        "canonical": False,
        # the single-packet and tree encodings' switches, not read by the knowledge encoding
        "broadcast": False,
        "tree": False,
        "eager": False,
        # the single-packet encoding's idle budget, likewise
        "waste": False,
        "last_round": False,  # the default (on with counting)
        "packet_count": False,  # the transfer encoding's counting, off under --strict
    }
    assert "note" not in res.evidence


@pytest.mark.usefixtures("dratify")
def test_a_truncated_or_forged_proof_is_rejected() -> None:
    inst = parse_instance("butterfly:3", "telephone", "gossip")
    cnf = standalone_cnf(inst, 5, EncodingOptions())
    proof = prove_unsat(cnf).proof
    lines = proof.splitlines()
    assert check_proof(cnf.dimacs(), proof).ok
    assert not check_proof(cnf.dimacs(), "\n".join(lines[: len(lines) // 2]) + "\n").ok
    assert not check_proof(cnf.dimacs(), "0\n").ok  # the empty clause alone is not RUP


@pytest.mark.usefixtures("dratify")
def test_a_proof_does_not_refute_a_satisfiable_horizon() -> None:
    inst = parse_instance("butterfly:3", "telephone", "gossip")
    proof = prove_unsat(standalone_cnf(inst, 5, EncodingOptions())).proof
    assert prove_unsat(standalone_cnf(inst, 6, EncodingOptions())).status == "sat"
    assert not check_proof(standalone_cnf(inst, 6, EncodingOptions()).dimacs(), proof).ok


def test_cnf_is_deterministic() -> None:
    inst = parse_instance("petersen", "telephone", "gossip")
    a = standalone_cnf(inst, 3, EncodingOptions())
    b = standalone_cnf(parse_instance("petersen", "telephone", "gossip"), 3, EncodingOptions())
    assert a.sha256() == b.sha256() and a.nvars == b.nvars


def test_pruning_and_counting_do_not_change_the_answer() -> None:
    inst = parse_instance("ring:7", "telephone", "gossip")
    for opts in [
        EncodingOptions(prune=False, counting=False, dominance=False, symmetry=False),
        EncodingOptions(counting=False),
        EncodingOptions(prune=False),
    ]:
        res = solve(inst, options=opts, use_bounds=False, proof=False)
        assert res.optimum == 5


def test_time_limit_gives_no_optimum() -> None:
    inst = parse_instance("debruijn:4", "telephone", "gossip")
    res = solve(inst, time_limit=0.0, proof=False)
    assert res.status in ("feasible", "unknown")
    assert res.optimum is None
    assert res.upper_bound is not None and res.lower_bound <= res.upper_bound


# ------------------------------------------------------------------- certificates


@pytest.fixture(scope="module")
def certificate() -> dict:
    res = solve(parse_instance("ring:7", "telephone", "gossip"), use_bounds=False)
    assert res.evidence["kind"] == "drat"
    return json.loads(json.dumps(build_certificate(res)))


def test_certificate_passes_check(certificate: dict) -> None:
    rep = check_certificate(certificate)
    assert rep.ok, rep.steps
    assert len(rep.steps) >= 4


def test_closed_form_certificate_passes_check() -> None:
    res = solve(parse_instance("hypercube:4", "telephone", "gossip"))
    cert = build_certificate(res)
    assert cert["evidence"]["kind"] == "closed-form"
    assert check_certificate(cert).ok


def test_schedule_shortened_fails(certificate: dict) -> None:
    bad = copy.deepcopy(certificate)
    bad["schedule"]["rounds"] = bad["schedule"]["rounds"][:-1]
    assert not check_certificate(bad).ok


def test_optimum_lowered_fails(certificate: dict) -> None:
    bad = copy.deepcopy(certificate)
    bad["optimum"] -= 1
    assert not check_certificate(bad).ok


def test_proof_truncated_fails(certificate: dict) -> None:
    bad = copy.deepcopy(certificate)
    key = "lrat_xz_base64" if "lrat_xz_base64" in bad["evidence"] else "proof_xz_base64"
    proof = unpack_proof(bad["evidence"][key])
    lines = proof.splitlines()
    bad["evidence"][key] = pack_proof("\n".join(lines[: len(lines) // 2]) + "\n")
    assert not check_certificate(bad).ok
    bad["evidence"][key] = "not base64 at all"
    assert not check_certificate(bad).ok


def test_graph_edited_fails(certificate: dict) -> None:
    bad = copy.deepcopy(certificate)
    bad["instance"]["graph"]["edges"].append([0, 3, 1])  # a chord: the CNF changes
    rep = check_certificate(bad)
    assert not rep.ok


def test_symmetry_flag_tampering_fails(certificate: dict) -> None:
    bad = copy.deepcopy(certificate)
    bad["evidence"]["encoding"]["symmetry"] = False  # the CNF hash no longer matches
    assert not check_certificate(bad).ok


def test_optimum_raised_names_the_rounds_that_need_refuting(certificate: dict) -> None:
    bad = copy.deepcopy(certificate)
    bad["optimum"] += 1
    rep = check_certificate(bad)
    assert rep.status == "fails"
    n = certificate["optimum"]
    texts = [t for ok, t in rep.steps if ok is False]
    assert any(
        f"refutes {n - 1} rounds, but an optimum of {n + 1} needs {n} rounds" in t for t in texts
    ), texts


def test_a_check_out_of_time_is_no_verdict(certificate: dict) -> None:
    rep = check_certificate(certificate, time_limit=0)
    assert rep.status == "timeout" and not rep.ok
    assert all(ok is not False for ok, _ in rep.steps), rep.steps


def test_checkers_and_deletion_policies_are_recorded(certificate: dict) -> None:
    checkers = certificate["evidence"]["checkers"]
    names = " ".join(c["checker"] for c in checkers)
    assert certificate["evidence"]["proof_format"] == "lrat"  # trimmed, with hints
    assert "gossipcert-lrat" in names and "hint-fixpoint" in names
    assert all(c["status"] == "verified" and c["deletions"] for c in checkers)
    rep = check_certificate(certificate)
    lines = [t for _, t in rep.steps if "re-checked by" in t]
    assert len(lines) == len(checkers) and all("deletions" in t for t in lines)


def _custom(cert: dict, content: dict, label: str) -> dict:
    out = copy.deepcopy(cert)
    out["instance"]["problem"] = {"spec": label, "custom": content}
    return out


def test_a_label_must_name_the_stored_problem(certificate: dict) -> None:
    # labelled gossip, but the content asks node 0 for packet 1 only
    lie = _custom(
        certificate, {"packets": [1], "holdings": {"1": [1]}, "demands": {"0": [1]}}, "gossip"
    )
    rep = check_certificate(lie)
    assert rep.status == "fails"
    assert any(
        ok is False and "is NOT the problem its label 'gossip' names" in t for ok, t in rep.steps
    ), rep.steps


def test_a_label_that_matches_its_content_holds(certificate: dict) -> None:
    n = certificate["instance"]["graph"]["n"]
    content = {
        "packets": [f"p{v}" for v in range(n)],
        "holdings": {str(v): [f"p{v}"] for v in range(n)},
        "demands": {str(v): [f"p{u}" for u in range(n)] for v in range(n)},
    }
    rep = check_certificate(_custom(certificate, content, "gossip"))
    assert any(
        ok is True and "is the problem its label 'gossip' names" in t for ok, t in rep.steps
    ), rep.steps
    # the same content under a file name is a custom problem, checked as stored
    rep = check_certificate(_custom(certificate, content, "mine.json"))
    assert any("custom problem 'mine.json' as stored" in t for _, t in rep.steps), rep.steps


# ------------------------------------------------------------------- export


def test_export_dimacs_and_opb() -> None:
    inst = parse_instance("ring:4", "telephone", "gossip")
    dimacs = export(inst, 2, "dimacs", EncodingOptions())
    header = next(line for line in dimacs.splitlines() if line.startswith("p cnf"))
    _, _, nvars, nclauses = header.split()
    assert int(nvars) > 0 and int(nclauses) == sum(
        1 for line in dimacs.splitlines() if line and line[0] not in "cp"
    )
    opb = export(inst, 2, "opb", EncodingOptions())
    assert opb.startswith("* #variable= ")
    assert all(line.endswith(";") for line in opb.splitlines() if not line.startswith("*"))


@pytest.mark.parametrize("graph", ["ring:5", "petersen", "path:6"])
def test_the_export_estimate_is_exact_up_to_its_base_and_close_beyond(graph: str) -> None:
    inst = parse_instance(graph, "telephone", "gossip")
    options = EncodingOptions()
    size = lambda r: len(standalone_formula(inst, r, options)[0].items)  # noqa: E731
    for r in (1, 5, ESTIMATE_FROM // 4):
        assert estimated_items(inst, r, options) == size(r)
    # each round past the graph's diameter adds the same constraints, so the straight line
    # from the base is within a few per cent at 100 rounds
    assert abs(estimated_items(inst, 100, options) - size(100)) <= 0.05 * size(100)


def test_export_refuses_a_formula_past_its_size_cap(monkeypatch) -> None:
    import gossipcert.solvers.export as ex

    inst = parse_instance("ring:5", "telephone", "gossip")
    monkeypatch.setattr(ex, "MAX_EXPORT_ITEMS", estimated_items(inst, 100, EncodingOptions()) - 1)
    with pytest.raises(SpecError, match=r"about .* constraints"):
        export(inst, 100, "dimacs", EncodingOptions())
    assert export(inst, ESTIMATE_FROM, "opb", EncodingOptions())  # not estimated, not capped


def test_an_upper_bound_is_no_lower_bound_evidence() -> None:
    res = solve(parse_instance("mesh:3x3", "telephone", "gossip"))
    cert = json.loads(json.dumps(build_certificate(res)))
    ups = [b for b in all_bounds(res.instance) if b.kind == "upper"]
    assert ups
    fake = max(ups, key=lambda b: b.value)
    empty = [[] for _ in range(fake.value - res.optimum)]
    cert["schedule"]["rounds"] = empty + cert["schedule"]["rounds"]
    cert["optimum"] = cert["lower_bound"] = cert["upper_bound"] = fake.value
    cert["evidence"] = {
        "kind": "closed-form",
        "name": fake.name,
        "value": fake.value,
        "source": fake.source,
    }
    cert["symmetry_breaking"] = False
    assert not check_certificate(cert).ok


def test_a_closed_form_value_other_than_the_recomputed_one_fails_the_check() -> None:
    res = solve(parse_instance("path:5", "telephone", "gossip"))
    cert = json.loads(json.dumps(build_certificate(res)))
    assert cert["evidence"]["kind"] == "closed-form" and check_certificate(cert).ok
    for value in (10**30, "zz", cert["optimum"] + 1):
        bad = copy.deepcopy(cert)
        bad["evidence"]["value"] = value
        rep = check_certificate(bad)
        assert not rep.ok and any("the certificate states" in t for _, t in rep.steps)


def test_swapped_labels_or_routers_fail_the_check() -> None:
    res = solve(parse_instance("path:5", "telephone", "broadcast:0"))
    cert = json.loads(json.dumps(build_certificate(res)))
    assert check_certificate(cert).ok
    bad = copy.deepcopy(cert)
    labels = bad["instance"]["graph"]["labels"]
    labels[0], labels[2] = labels[2], labels[0]
    assert not check_certificate(bad).ok
    bad = copy.deepcopy(cert)
    bad["instance"]["graph"]["routers"] = [4]
    assert not check_certificate(bad).ok


@pytest.mark.parametrize(
    "edit",
    [
        lambda c: c.update(evidence=[1]),
        lambda c: c["instance"].update(graph=[]),
        lambda c: c["instance"]["graph"].update(labels=["0"]),
        lambda c: c["instance"].update(model=5),
        lambda c: c["evidence"].update(rounds=4.0),
        lambda c: c.update(lower_bound=99),
        lambda c: c.update(symmetry_breaking=not c["symmetry_breaking"]),
    ],
)
def test_malformed_or_inconsistent_certificates_fail_without_exceptions(
    certificate: dict, edit
) -> None:
    bad = copy.deepcopy(certificate)
    edit(bad)
    assert not check_certificate(bad).ok


@pytest.mark.parametrize(
    ("edit", "needle"),
    [
        # an edited node count: the labels ran out (IndexError), or without labels any
        # number of nodes was built (n=10**9 until the memory ran out)
        (lambda g: g.update(n=8), "'labels' must list the labels of the 8 nodes"),
        (lambda g: (g.pop("labels"), g.update(n=MAX_NODES + 1)), "n must be a whole number"),
        (lambda g: g.update(n=6.5), "n must be a whole number"),
        (lambda g: g.update(routers="q"), "'routers' must list node numbers in 0..5"),
        (lambda g: g.update(routers=[6]), "'routers' must list node numbers in 0..5"),
    ],
)
def test_an_edited_node_count_is_a_certificate_error(edit, needle: str) -> None:
    from gossipcert.errors import CertificateError
    from gossipcert.graphs import from_spec
    from gossipcert.graphs.records import graph_from_record, graph_record

    record = graph_record(from_spec("ring:6"))
    edit(record)
    with pytest.raises(CertificateError, match=needle):
        graph_from_record(record)


@pytest.mark.parametrize(
    ("edit", "needle"),
    [
        # a capacity of 0 or below made the all-port capacity constraint an empty clause,
        # so a one-line proof "refuted" every horizon; and it shrank the cut bound
        (lambda g: g["edges"][0].__setitem__(2, -1), "a capacity must be a whole number >= 1"),
        (lambda g: g["edges"][0].__setitem__(2, 0), "a capacity must be a whole number >= 1"),
        # nothing is normalised any more: floats, booleans and reversed or repeated edges
        (lambda g: g["edges"][0].__setitem__(2, 1.9), "whole numbers"),
        (lambda g: g["edges"][0].__setitem__(1, 1.5), "whole numbers"),
        (lambda g: g["edges"][0].__setitem__(2, True), "whole numbers"),
        (lambda g: g["edges"].append([1, 0, 1]), "expected u < v"),
        (lambda g: g["edges"].append([2, 2, 1]), "expected u < v"),
        (lambda g: g["edges"].append(list(g["edges"][0])), "stored twice"),
        (lambda g: g["edges"].reverse(), "must be sorted"),
        (lambda g: g.update(edges="0-1"), "'edges' must be a list"),
    ],
)
def test_a_graph_record_is_read_exactly_as_solve_writes_it(edit, needle: str) -> None:
    from gossipcert.errors import CertificateError
    from gossipcert.graphs import from_spec
    from gossipcert.graphs.records import graph_from_record, graph_record

    record = graph_record(from_spec("ring:6"))
    assert graph_record(graph_from_record(record)) == record
    edit(record)
    with pytest.raises(CertificateError, match=needle):
        graph_from_record(record)


def test_forged_capacities_do_not_certify_a_wrong_optimum(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Two forgeries that ``check`` accepted: an all-port certificate of a graph file with an
    extra edge of capacity -1 and a one-line proof (the capacity constraint of that edge was
    an empty clause, so every horizon was "refuted"), and a certificate whose cut bound
    counted a negative capacity. Both now fail, and so does an instance built with them."""
    from gossipcert import instance as instance_module
    from gossipcert.errors import InstanceError
    from gossipcert.graphs import from_spec
    from gossipcert.instance import make_instance, parse_model, parse_problem
    from gossipcert.solvers.standalone import standalone_cnf

    res = solve(parse_instance("path:3", "all-port", "gossip"))
    honest = json.loads(json.dumps(build_certificate(res)))
    assert res.optimum == 2 and check_certificate(honest).ok
    g = from_spec("path:3")
    g.add_edge(0, 2, capacity=-1)
    with pytest.raises(InstanceError, match="capacity -1"):
        make_instance(g, parse_model("all-port"), parse_problem("gossip"))
    # the forger's CNF, built with the capacity check switched off: it has an empty clause
    opts = EncodingOptions.for_search(strict=True)
    with monkeypatch.context() as m:
        m.setattr(instance_module, "check_capacities", lambda graph: None)
        forged_cnf = standalone_cnf(
            make_instance(g, parse_model("all-port"), parse_problem("gossip")), 5, opts
        )
    assert [] in forged_cnf.clauses
    cert = copy.deepcopy(honest)
    cert["instance"]["graph"].update(
        spec="path3.edgelist", edges=[[0, 1, 1], [0, 2, -1], [1, 2, 1]]
    )
    cert["schedule"]["rounds"] = [[] for _ in range(4)] + cert["schedule"]["rounds"]
    cert.update(optimum=6, lower_bound=6, upper_bound=6, symmetry_breaking=False)
    cert["evidence"] = {
        "kind": "drat",
        "rounds": 5,
        "encoding": opts.to_json(),
        "cnf_sha256": forged_cnf.sha256(),
        "proof_xz_base64": pack_proof("0\n"),
    }
    rep = check_certificate(cert)
    assert rep.status == "fails"
    assert any("capacity must be a whole number >= 1" in t for ok, t in rep.steps if not ok)
    cut = copy.deepcopy(honest)
    cut["instance"]["graph"]["edges"] = [[0, 1, 1], [0, 2, -1], [1, 2, 1]]
    cut["schedule"]["rounds"].insert(0, [])
    cut.update(optimum=3, lower_bound=3, upper_bound=3)
    cut["evidence"] = {"kind": "closed-form", "name": "cut"}
    assert check_certificate(cut).status == "fails"


def test_a_round_certificate_states_no_claim_of_its_own(certificate: dict) -> None:
    """``check`` printed a stored ``claim`` as its headline (``certificate holds: needs 3
    rounds``) without comparing it; only steps certificates carry one, checked."""
    bad = copy.deepcopy(certificate)
    bad["claim"] = "ring:7 telephone gossip needs 3 rounds (proved)"
    rep = check_certificate(bad)
    assert rep.status == "fails"
    assert any("'claim'" in t for ok, t in rep.steps if ok is False)


def test_a_problem_file_is_never_read_from_the_checking_machine(
    certificate: dict, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A custom problem travels in the certificate (``custom``); a label naming a file
    without it is refused, even when a file of that name sits in the working directory."""
    from gossipcert.certificates.certificate import instance_from_certificate

    monkeypatch.chdir(tmp_path)
    (tmp_path / "prob.json").write_text('{"name": "x", "hold": {"0": [0]}, "need": {}}')
    bad = copy.deepcopy(certificate)
    bad["instance"]["problem"] = {"spec": "prob.json"}
    with pytest.raises(CertificateError, match="does not carry its content"):
        instance_from_certificate(bad)
    assert check_certificate(bad).status == "fails"


def test_a_closed_form_bound_above_a_verified_schedule_is_an_error(monkeypatch) -> None:
    from gossipcert.closed_forms import Bound
    from gossipcert.errors import SolverError
    from gossipcert.search import rounds as search

    monkeypatch.setattr(
        search, "best_lower_bound", lambda inst: Bound("bogus", "lower", 9, "a wrong bound")
    )
    with pytest.raises(SolverError, match="bogus"):
        solve(parse_instance("path:4", "telephone", "gossip"))


@pytest.mark.parametrize(
    "graph", ["ccc:3", "butterfly:3", "petersen", "star-graph:4", "knodel:8", "random:9,14,seed=3"]
)
def test_cnf_does_not_depend_on_edge_insertion_order(graph: str) -> None:
    import random

    import networkx as nx

    from gossipcert import graphs
    from gossipcert.graphs.records import graph_from_record, graph_record
    from gossipcert.instance import make_instance, parse_model, parse_problem

    g = graphs.from_spec(graph)
    shuffled = nx.Graph(spec=g.graph["spec"])
    shuffled.add_nodes_from(sorted(g.nodes(data=True), key=lambda x: random.Random(1).random()))
    edges = list(g.edges(data=True))
    random.Random(2).shuffle(edges)
    shuffled.add_edges_from((v, u, d) for u, v, d in edges)
    hashes = set()
    for h in (g, graph_from_record(graph_record(g)), shuffled):
        inst = make_instance(h, parse_model("telephone"), parse_problem("gossip"))
        hashes.add(standalone_cnf(inst, 2, EncodingOptions()).sha256())
    assert len(hashes) == 1


def test_certificate_with_symmetry_and_dominance_passes_check(monkeypatch) -> None:
    # the full formula's proof: the relaxation step would refute ccc:3 at 6 rounds first
    monkeypatch.setattr(relaxation, "STEP_MIN_NODES", 10**6)
    res = solve(parse_instance("ccc:3", "telephone", "gossip"))
    assert res.evidence["kind"] == "drat" and res.options.symmetry and res.options.dominance
    rep = check_certificate(json.loads(json.dumps(build_certificate(res))))
    assert rep.ok, rep.steps
