"""Tests of the refutations through one packet's broadcast (``drat-packet``): refuted exactly
below the brute-force broadcast time (the brute force of ``test_bounds`` shares no code with
the package), the solve step that uses them, and the certificate check, forgeries included."""

from __future__ import annotations

import copy
import json

import networkx as nx
import pytest
from test_bounds import (
    broadcast_optimum,
    half_duplex_step,
    make,
    plain_graph,
    small_connected_graphs,
    telephone_step,
)

from gossipcert.certificates.certificate import build_certificate, check_certificate
from gossipcert.closed_forms import best_lower_bound
from gossipcert.errors import SolverError
from gossipcert.instance import parse_instance
from gossipcert.proofs.packet_refutation import (
    KIND,
    packet_instance,
    refute_by_packet,
    tight_packets,
)
from gossipcert.search.entry import solve

#: 8 nodes where the packet of node 5 cannot be broadcast in the 4 rounds of every
#: closed-form bound (node 5 hangs off node 6, which has two other neighbours)
EIGHT = [(0, 3), (1, 2), (2, 3), (2, 6), (2, 7), (3, 4), (3, 6), (5, 6)]
#: 9 nodes whose gossip time 6 is the broadcast time from node 4, one round above every
#: closed-form bound (a random graph, ``gnm_random_graph(9, 9, seed=59)``)
NINE = [(0, 5), (0, 7), (1, 3), (1, 5), (1, 8), (2, 4), (2, 5), (6, 7), (7, 8)]


@pytest.mark.parametrize("model", ["telephone", "half-duplex"])
def test_refuted_exactly_below_the_brute_force_broadcast_time(model: str) -> None:
    graphs = [g for g in small_connected_graphs(5) if g.number_of_nodes() >= 3]
    graphs.append(plain_graph(nx.Graph(EIGHT)))
    step_of = {"telephone": telephone_step, "half-duplex": lambda h: half_duplex_step(h, None)}
    checked = 0
    for g in graphs:
        inst = make(g, model, "gossip")
        step = step_of[model](g)
        for v in range(g.number_of_nodes()):
            optimum = broadcast_optimum(g, step, source=v)
            p = inst.packet_index(str(v))
            assert refute_by_packet(inst, optimum, p) is None, (sorted(g.edges()), v)
            ev = refute_by_packet(inst, optimum - 1, p)
            assert ev is not None, (sorted(g.edges()), v, optimum)
            assert (ev["kind"], ev["rounds"], ev["holders"]) == (KIND, optimum - 1, [v])
            assert ev["checkers"] and all(c["status"] == "verified" for c in ev["checkers"])
            checked += 1
    assert checked > 100


def test_solve_takes_its_lower_bound_from_one_packet_and_the_certificate_holds() -> None:
    g = plain_graph(nx.Graph(NINE))
    del g.graph["spec"]  # a graph with no spec: the certificate's edge list is all there is
    inst = make(g, "telephone", "gossip")
    assert best_lower_bound(inst).value == 5
    assert 4 in tight_packets(inst, 5)
    res = solve(inst)
    # the full formula alone (no proof, so no packet step) agrees
    assert solve(inst, proof=False).optimum == res.optimum == 6
    assert res.status == "optimal"
    assert broadcast_optimum(g, telephone_step(g), source=4) == 6
    ev = res.evidence
    assert (ev["kind"], ev["rounds"], ev["packet"], ev["holders"]) == (KIND, 5, 4, [4])
    assert ev["encoding"]["broadcast"] and not ev["encoding"]["symmetry"]
    cert = json.loads(json.dumps(build_certificate(res)))
    assert cert["symmetry_breaking"] is False
    rep = check_certificate(cert)
    assert rep.ok, rep.steps
    assert any("packet 4 alone is the broadcast from nodes [4]" in t for _, t in rep.steps)

    def fails(change: object) -> None:
        forged = copy.deepcopy(cert)
        change(forged["evidence"])  # type: ignore[operator]
        assert not check_certificate(forged).ok

    # another packet: its broadcast fits in 5 rounds, so the CNF (and its hash) differ
    fails(lambda e: e.update(packet=0, holders=[0]))
    fails(lambda e: e.update(holders=[6]))  # holders that are not the packet's
    fails(lambda e: e.update(packet=99))
    fails(lambda e: e.update(rounds=4))
    fails(lambda e: e.update(encoding={**e["encoding"], "symmetry": True}))
    fails(lambda e: e.update(variables=e["variables"] + 1))  # sizes a reader would be shown
    fails(lambda e: e.update(proof_lines=e["proof_lines"] + 1))
    forged = copy.deepcopy(cert)
    forged["evidence"]["proof_lines"] += 1
    steps = check_certificate(forged).steps
    assert any(ok is False and "the evidence states a proof of" in t for ok, t in steps)
    fails(lambda e: e.update(lrat_xz_base64=build_certificate(res)["evidence"]["cnf_sha256"]))
    # (a well-formed but wrong proof cannot be made here: this CNF falls to unit propagation
    # alone, so every proof of it is valid; the checkers' rejection of wrong proofs is tested
    # on the full formula's evidence, which goes through the same check_drat_evidence)


def test_a_satisfiable_broadcast_is_no_refutation_and_not_an_error() -> None:
    inst = parse_instance("ring:6", "telephone", "gossip")
    assert refute_by_packet(inst, 3, 0) is None
    assert refute_by_packet(inst, 2, 0)["rounds"] == 2


def test_which_packets_apply() -> None:
    gossip = parse_instance("ring:5", "telephone", "gossip")
    assert packet_instance(gossip, 1).problem.spec() == "broadcast:1"
    chunks = parse_instance("ring:5", "telephone", "gossip:chunks=2")
    assert packet_instance(chunks, 3).problem.spec() == "broadcast:1"
    # scatter: each packet has one demander, so its own problem is no broadcast
    scatter = parse_instance("ring:5", "telephone", "scatter:0")
    assert packet_instance(scatter, 0) is None
    assert tight_packets(scatter, 2) == []
    with pytest.raises(SolverError):
        refute_by_packet(scatter, 2, 0)
    assert packet_instance(parse_instance("ring:5", "multicast", "gossip"), 0) is None
    assert tight_packets(parse_instance("ring:5", "telephone", "broadcast:0"), 2) == []
