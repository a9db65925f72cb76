"""The matching heuristic answers on every model: a schedule the verifier accepts.

Property test over the models (telephone, half-duplex, single-port, multicast, all-port;
packet caps, arc capacities, calls per round, linear cost), graph shapes (random connected
graphs, trees, grids) and problems. Under single-port, multicast and all-port the pairs
call as under telephone; a cap or a limit on calls splits rounds
(:func:`gossipcert.heuristics.model_fit.fit_rounds`), never more than the cap allows.
"""

from __future__ import annotations

import networkx as nx
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from gossipcert.cli import app
from gossipcert.graphs.random_graphs import random_connected
from gossipcert.heuristics.matching import run_matching
from gossipcert.heuristics.model_fit import fit_rounds
from gossipcert.instance import make_instance, parse_instance, parse_model, parse_problem
from gossipcert.schedule import Transmission
from gossipcert.simulate import simulate

MODELS = [
    "telephone",
    "telephone:p=1",
    "sequential",
    "telephone:calls=2",
    "half-duplex",
    "half-duplex:p=2",
    "single-port",
    "single-port:p=1",
    "multicast",
    "multicast:p=2",
    "all-port",
    "all-port:c=2",
    "telephone:tau=1",
    "single-port:calls=3",
]
PROBLEMS = ["gossip", "broadcast:0", "scatter:1", "gather:0", "total-exchange", "gossip:chunks=2"]


@st.composite
def graphs(draw: st.DrawFn) -> nx.Graph:
    shape = draw(st.sampled_from(["random", "tree", "grid"]))
    seed = draw(st.integers(0, 10_000))
    if shape == "grid":
        g = nx.convert_node_labels_to_integers(
            nx.grid_2d_graph(draw(st.integers(2, 4)), draw(st.integers(2, 4)))
        )
    else:
        n = draw(st.integers(3, 14))
        extra = 0 if shape == "tree" else draw(st.integers(0, (n - 1) * (n - 2) // 2))
        g = random_connected(n, n - 1 + extra, seed=seed)
    g.graph["spec"] = f"{shape}-{seed}"
    nx.set_edge_attributes(g, 1, "capacity")
    return g


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(graph=graphs(), model=st.sampled_from(MODELS), problem=st.sampled_from(PROBLEMS))
def test_matching_heuristic_answers_on_every_model(
    graph: nx.Graph, model: str, problem: str
) -> None:
    inst = make_instance(graph, parse_model(model), parse_problem(problem))
    res = run_matching(inst)
    rep = simulate(inst, res.schedule)
    assert rep.ok, rep.errors[:1]


def test_fit_splits_for_the_cap_and_the_calls() -> None:
    inst = parse_instance("star:4", "sequential:p=2", "gossip")
    # round 1: every leaf calls... one call at a time; round 2 the centre sends 3 packets
    rounds = [
        (Transmission(1, (0,), None), Transmission(0, (1,), None)),
        (Transmission(0, (2,), None), Transmission(2, (0,), None)),
    ]
    fitted = fit_rounds(inst, rounds)
    # round 2's 0 -> 2 carries packets 0 and 1 (the leaves') in 1 piece of 2 (cap 2)
    assert [len(r) for r in fitted.rounds] == [2, 2]
    inst = parse_instance("path:4", "telephone:p=1", "gossip")
    rounds = [
        (Transmission(0, (1,), None), Transmission(2, (3,), None)),
        (Transmission(1, (2,), None),),
    ]
    fitted = fit_rounds(inst, rounds)
    # 1 knows packets 0 and 1 and sends both to 2 one at a time
    assert [r[0].packets for r in fitted.rounds[1:]] == [1, 2]
    assert simulate(inst, fitted).valid


def test_cli_heuristic_under_single_port_with_a_cap() -> None:
    out = CliRunner().invoke(app, ["heuristic", "ring:8", "--model", "single-port:p=1"])
    assert out.exit_code == 0, out.output
    assert "verified" in out.output or "rounds" in out.output
