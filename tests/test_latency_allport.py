"""Links slower than one round (edge ``latency``) in the all-port model.

The solver, both back-ends, against the exhaustive search of ``latency_reference.py`` (which
shares nothing with :mod:`gossipcert`) on every connected graph of the networkx atlas with
up to 5 nodes, each with four deterministic assignments of latencies and capacities in ``{1,
2}``, for gossip, broadcast and total exchange. The default suite takes every graph up to 4
nodes and every third 5-node graph (gossip and broadcast); ``-m slow`` takes every 5-node
graph with every pattern for gossip and broadcast. The reference's routing search for total
exchange does not finish on some 5-node graphs (a star with latency-2 edges), so on 5 nodes
total exchange is compared with a second independent reference, ``latency_milp.py`` (an
integer multicommodity flow on the time-expanded network, solved by HiGHS), which agrees
with the routing search on every graph up to 4 nodes: a sample in the default suite, every
5-node graph and pattern with ``-m slow``. The search is run without the closed-form bounds
(so that the encoding, not a bound meeting the first schedule, decides), and separately
every bound is checked to be at most the optimum and the ``latency-flood`` schedule at least
it.

Also: the verifier's messages on broken latency schedules, a certificate round trip, the
refusal of other models and of reductions, and graph files with latencies read back.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import networkx as nx
import pytest
from latency_reference import Edge, optimum, routing_optimum, state_optimum

from gossipcert import api, graphs
from gossipcert.closed_forms import all_bounds
from gossipcert.constructions.catalog import construct
from gossipcert.errors import NotApplicableError, UnsupportedModelError
from gossipcert.instance import Instance, make_instance, parse_model, parse_problem
from gossipcert.schedule import Schedule, Transmission
from gossipcert.search.entry import solve
from gossipcert.simulate import simulate

PATTERNS = ("alternating", "all-two", "random-a", "random-b")


def labelled(atlas_index: int, pattern: str) -> tuple[int, tuple[Edge, ...]]:
    """The atlas graph with latencies and capacities in {1, 2} by ``pattern``."""
    g = nx.graph_atlas(atlas_index)
    edges = sorted((min(u, v), max(u, v)) for u, v in g.edges)
    rng = random.Random(f"{atlas_index}-{pattern}")
    out: list[Edge] = []
    for i, (u, v) in enumerate(edges):
        if pattern == "alternating":
            lat, cap = 1 + i % 2, 1
        elif pattern == "all-two":
            lat, cap = 2, 1 + (i + 1) % 2
        else:
            lat, cap = rng.choice((1, 2)), rng.choice((1, 2))
        out.append((u, v, cap, lat))
    return g.number_of_nodes(), tuple(out)


def instance_of(n: int, edges: tuple[Edge, ...], problem: str) -> Instance:
    g = graphs.from_spec(f"path:{n}")
    g.remove_edges_from(list(g.edges))
    g.graph["spec"] = "atlas.json"  # as if read from a file
    for u, v, cap, lat in edges:
        g.add_edge(u, v, capacity=cap)
        if lat != 1:
            g[u][v]["latency"] = lat
    return make_instance(g, parse_model("all-port"), parse_problem(problem))


def connected(nodes: range) -> list[int]:
    return [
        i
        for i in range(1, 53)
        if nx.graph_atlas(i).number_of_nodes() in nodes and nx.is_connected(nx.graph_atlas(i))
    ]


SMALL = connected(range(2, 5))
FIVE = connected(range(5, 6))
FIVE_SAMPLE = FIVE[::3]


def check(index: int, pattern: str, problem: str, backend: str) -> None:
    n, edges = labelled(index, pattern)
    inst = instance_of(n, edges, problem)
    best = optimum(n, edges, problem)
    res = solve(inst, backend=backend, use_bounds=False, proof=False, time_limit=120)
    assert res.status == "optimal", (index, pattern, problem, res.status)
    assert res.optimum == best, (index, pattern, problem, backend, edges)
    rep = simulate(inst, res.schedule)
    assert rep.ok and rep.rounds == best


def test_every_atlas_graph_is_counted() -> None:
    assert len(SMALL) == 9 and len(FIVE) == 21


@pytest.mark.parametrize("backend", ["sat", "cpsat"])
@pytest.mark.parametrize("problem", ["gossip", "broadcast:0", "total-exchange"])
@pytest.mark.parametrize("pattern", PATTERNS)
@pytest.mark.parametrize("index", SMALL)
def test_small_graphs(index: int, pattern: str, problem: str, backend: str) -> None:
    check(index, pattern, problem, backend)


@pytest.mark.parametrize("backend", ["sat", "cpsat"])
@pytest.mark.parametrize("problem", ["gossip", "broadcast:0"])
@pytest.mark.parametrize("index", FIVE_SAMPLE)
def test_five_node_sample(index: int, problem: str, backend: str) -> None:
    check(index, PATTERNS[index % len(PATTERNS)], problem, backend)


@pytest.mark.slow
@pytest.mark.parametrize("backend", ["sat", "cpsat"])
@pytest.mark.parametrize("problem", ["gossip", "broadcast:0"])
@pytest.mark.parametrize("pattern", PATTERNS)
@pytest.mark.parametrize("index", FIVE)
def test_five_node_graphs(index: int, pattern: str, problem: str, backend: str) -> None:
    check(index, pattern, problem, backend)


@pytest.mark.parametrize("problem", ["gossip", "broadcast:0", "total-exchange"])
@pytest.mark.parametrize("index", SMALL + FIVE_SAMPLE)
def test_bounds_and_flood_bracket_the_optimum(index: int, problem: str) -> None:
    for pattern in PATTERNS:
        n, edges = labelled(index, pattern)
        if problem == "total-exchange" and n == 5:
            continue
        inst = instance_of(n, edges, problem)
        best = optimum(n, edges, problem)
        for b in all_bounds(inst):
            assert b.kind != "lower" or b.value <= best, (b, index, pattern)
        rep = simulate(inst, construct(inst, "latency-flood"))
        assert rep.ok and rep.rounds is not None and rep.rounds >= best


def test_reference_sees_latency() -> None:
    # a path 0 - 1 - 2 whose second edge takes 2 rounds: broadcast needs 1 + 2
    assert optimum(3, ((0, 1, 1, 1), (1, 2, 1, 2)), "broadcast:0") == 3
    assert optimum(3, ((0, 1, 1, 1), (1, 2, 1, 1)), "broadcast:0") == 2
    assert optimum(2, ((0, 1, 1, 2),), "total-exchange") == 2
    # 0 -(latency 2, capacity 1)- 1 -(latency 1, capacity 2)- 2, gossip: b enters 1 -> 0 in
    # round 1, c (at 1 after round 1) in round 2 and arrives after round 3; a reaches 1
    # after round 2 and 2 after round 3
    assert optimum(3, ((0, 1, 1, 2), (1, 2, 2, 1)), "gossip") == 3
    # capacity counts entries: three packets for 0 over a latency-2 capacity-1 link
    assert optimum(4, ((0, 1, 1, 2), (1, 2, 2, 1), (1, 3, 2, 1)), "gossip") == 4


def test_the_two_references_agree() -> None:
    for index in SMALL:
        for pattern in PATTERNS:
            n, edges = labelled(index, pattern)
            if n <= 3:
                assert state_optimum(n, edges, "total-exchange") == routing_optimum(n, edges)


# ---------------------------------------------------------------- the verifier


def slow_path() -> Instance:
    g = graphs.from_spec("path:3")
    g[1][2]["latency"] = 3
    return make_instance(g, parse_model("all-port"), parse_problem("broadcast:0"))


def test_verifier_counts_arrivals() -> None:
    inst = slow_path()
    sched = Schedule(((Transmission(0, (1,), 1),), (Transmission(1, (2,), 1),)))
    rep = simulate(inst, sched)
    # the last send is in round 2 on a latency-3 link: it arrives after round 4
    assert rep.ok and rep.rounds == 4 and rep.length == 4


def test_verifier_rejects_a_packet_forwarded_in_flight() -> None:
    g = graphs.from_spec("path:3")
    g[0][1]["latency"] = 2
    inst = make_instance(g, parse_model("all-port"), parse_problem("broadcast:0"))
    sched = Schedule(((Transmission(0, (1,), 1),), (Transmission(1, (2,), 1),)))
    rep = simulate(inst, sched)
    assert not rep.ok
    assert [e.message for e in rep.errors] == [
        "round 2: node 1 sends packet 0, which it does not know yet (it is in flight to it "
        "until the end of round 2)"
    ]


def test_verifier_capacity_counts_packets_entering() -> None:
    g = graphs.from_spec("path:2")
    g[0][1]["latency"] = 3
    inst = make_instance(g, parse_model("all-port"), parse_problem("total-exchange"))
    both = Schedule(((Transmission(0, (1,), 1),), (Transmission(1, (0,), 2),)))
    assert simulate(inst, both).rounds == 4  # in flight together on both arcs: fine
    g2 = graphs.from_spec("star:3")
    g2[0][1]["latency"] = 2
    inst2 = make_instance(g2, parse_model("all-port"), parse_problem("gather:1"))
    # packets of 0 and 2: both enter 0 -> 1 in round 2, capacity 1
    bad = Schedule(((Transmission(2, (0,), 2),), (Transmission(0, (1,), 3),)))
    rep = simulate(inst2, bad)
    assert [e.rule for e in rep.errors] == ["over-capacity"]
    assert rep.errors[0].message.startswith("round 2: arc 0->1 carries 2 packets, over its")
    # one a round over the pipelined link: 0's packet in round 1, 2's in round 2
    good = Schedule(
        ((Transmission(0, (1,), 1), Transmission(2, (0,), 2)), (Transmission(0, (1,), 2),))
    )
    rep = simulate(inst2, good)
    assert rep.ok and rep.rounds == 3


# ---------------------------------------------------------------- refusals


@pytest.mark.parametrize("model", ["telephone", "half-duplex:p=1", "single-port", "multicast"])
def test_other_models_refuse_latencies(model: str) -> None:
    g = graphs.from_spec("ring:4")
    g[0][1]["latency"] = 2
    with pytest.raises(UnsupportedModelError, match="latencies are defined for the all-port"):
        make_instance(g, parse_model(model), parse_problem("gossip"))


def test_reductions_and_bad_latencies_refused() -> None:
    g = graphs.from_spec("ring:4")
    g[0][1]["latency"] = 2
    with pytest.raises(UnsupportedModelError, match="reduction"):
        make_instance(g, parse_model("all-port"), parse_problem("allreduce"))
    g[0][1]["latency"] = 0
    with pytest.raises(Exception, match="latency must be a whole number >= 1"):
        make_instance(g, parse_model("all-port"), parse_problem("gossip"))


def test_constructions_decline_latencies() -> None:
    inst = slow_path()
    with pytest.raises(NotApplicableError, match="latency"):
        construct(inst, "gather-spread")
    from gossipcert.heuristics.matching import run_matching

    with pytest.raises(UnsupportedModelError, match="latency 3"):
        run_matching(inst)


# ---------------------------------------------------------------- files and certificates


@pytest.mark.parametrize("suffix", [".json", ".graphml", ".edgelist"])
def test_graph_file_with_latencies_read_back(tmp_path: Path, suffix: str) -> None:
    g = graphs.from_spec("ring:4")
    g[0][1]["latency"] = 3
    g[2][3]["capacity"] = 2
    target = tmp_path / f"g{suffix}"
    graphs.write_graph_file(g, target)
    back = graphs.read_graph_file(target)
    assert graphs.latencies(back) == {(0, 1): 3}
    assert graphs.capacity(back, 2, 3) == 2
    assert graphs.describe(back)["latencies"] == {"1": 3, "3": 1}


def test_graph_files_written_by_hand(tmp_path: Path) -> None:
    edgelist = tmp_path / "a.edgelist"
    edgelist.write_text("a b\nb c 2 4\n")
    assert graphs.latencies(graphs.read_graph_file(edgelist)) == {(1, 2): 4}
    simple = tmp_path / "b.json"
    simple.write_text(json.dumps({"edges": [[0, 1, 1, 2], [1, 2]]}))
    assert graphs.latencies(graphs.read_graph_file(simple)) == {(0, 1): 2}
    node_link = tmp_path / "c.json"
    node_link.write_text(
        json.dumps(
            {"nodes": [{"id": 0}, {"id": 1}], "edges": [{"source": 0, "target": 1, "latency": 5}]}
        )
    )
    assert graphs.latencies(graphs.read_graph_file(node_link)) == {(0, 1): 5}
    edgelist.write_text("a b 1 0\n")
    with pytest.raises(Exception, match="bad latency"):
        graphs.read_graph_file(edgelist)


RING = ((0, 1, 1, 2), (1, 2, 1, 1), (2, 3, 2, 1), (0, 3, 1, 2))


@pytest.mark.parametrize("problem", ["total-exchange", "gossip"])
def test_certificate_round_trip(tmp_path: Path, problem: str) -> None:
    from gossipcert.certificates.certificate import build_certificate
    from gossipcert.certificates.certificate import write_certificate as write

    inst = instance_of(4, RING, problem)
    # without the closed forms the lower bound is a refutation with a checked proof
    res = solve(inst, use_bounds=False)
    assert res.status == "optimal" and res.optimum == optimum(4, RING, problem)
    cert = build_certificate(res)
    assert cert["evidence"]["kind"] != "closed-form"
    target = tmp_path / "cert.json"
    write(cert, target)
    record = json.loads(target.read_text())["instance"]["graph"]
    assert [0, 1, 1, 2] in record["edges"] and [1, 2, 1] in record["edges"]
    assert api.check(target).ok
    # the same certificate with the latencies dropped no longer checks
    record["edges"] = [edge[:3] for edge in record["edges"]]
    broken = json.loads(target.read_text())
    broken["instance"]["graph"] = record
    assert not api.check(broken).ok


# --------------------------------------------------- total exchange on 5 nodes: the flow MILP


@pytest.mark.parametrize("pattern", PATTERNS)
@pytest.mark.parametrize("index", SMALL)
def test_the_flow_reference_agrees_with_the_routing_search(index: int, pattern: str) -> None:
    """The two independent references agree where both finish (up to 4 nodes)."""
    from latency_milp import total_exchange_optimum

    n, edges = labelled(index, pattern)
    assert total_exchange_optimum(n, edges) == optimum(n, edges, "total-exchange")


def check_total_exchange(index: int, pattern: str, backend: str) -> None:
    from latency_milp import total_exchange_optimum

    n, edges = labelled(index, pattern)
    inst = instance_of(n, edges, "total-exchange")
    best = total_exchange_optimum(n, edges)
    res = solve(inst, backend=backend, use_bounds=False, proof=False, time_limit=120)
    assert res.status == "optimal" and res.optimum == best, (index, pattern, backend, edges)
    rep = simulate(inst, res.schedule)
    assert rep.ok and rep.rounds == best


@pytest.mark.parametrize("backend", ["sat", "cpsat"])
@pytest.mark.parametrize("index", FIVE_SAMPLE)
def test_five_node_total_exchange_sample(index: int, backend: str) -> None:
    check_total_exchange(index, PATTERNS[index % len(PATTERNS)], backend)


@pytest.mark.slow
@pytest.mark.parametrize("backend", ["sat", "cpsat"])
@pytest.mark.parametrize("pattern", PATTERNS)
@pytest.mark.parametrize("index", FIVE)
def test_five_node_total_exchange(index: int, pattern: str, backend: str) -> None:
    check_total_exchange(index, pattern, backend)
