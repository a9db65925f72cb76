"""The all-port model end to end: graph specs of the collective-synthesis literature, the
problem names and chunks of collective libraries, personalized problems in every model,
certificates and bad input."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from gossipcert import graphs
from gossipcert.certificates.certificate import build_certificate, check_certificate
from gossipcert.cli import app
from gossipcert.errors import SpecError
from gossipcert.instance import parse_instance, parse_problem
from gossipcert.search.entry import solve
from gossipcert.simulate import simulate

runner = CliRunner()


def run(*args: str) -> tuple[int, str, str]:
    res = runner.invoke(app, list(args))
    return res.exit_code, res.stdout, res.stderr


def optimum(graph: str, model: str, problem: str, backend: str = "sat") -> int:
    inst = parse_instance(graph, model, problem)
    res = solve(inst, backend=backend)
    assert res.status == "optimal", (graph, model, problem, res.status)
    assert simulate(inst, res.schedule).rounds == res.optimum
    return res.optimum  # type: ignore[return-value]


# ------------------------------------------------------------------------------ graph specs


def test_dgx1_capacities_as_in_the_hybrid_cube_mesh() -> None:
    g = graphs.from_spec("dgx1")
    double = {(0, 1), (0, 4), (1, 3), (2, 3), (2, 6), (4, 5), (5, 7), (6, 7)}
    single = {(0, 2), (0, 3), (1, 2), (1, 5), (3, 7), (4, 6), (4, 7), (5, 6)}
    caps = {(min(u, v), max(u, v)): c for u, v, c in g.edges(data="capacity")}
    assert caps == {**dict.fromkeys(double, 2), **dict.fromkeys(single, 1)}


def test_fully_connected_and_hub_are_complete_graphs() -> None:
    for spec in ("fully-connected:5", "hub:5"):
        g = graphs.from_spec(spec)
        assert g.number_of_nodes() == 5 and g.number_of_edges() == 10
    assert graphs.from_spec("hub:5").graph["ports"] == "single-port"


def test_hub_is_the_single_port_model_only() -> None:
    # a hub's node sends and receives one packet a round: gossip takes n - 1 rounds
    assert optimum("hub:5", "single-port", "gossip") == 4
    for model in ("all-port", "telephone", "single-port:p=2", "multicast"):
        with pytest.raises(SpecError, match="single-port"):
            parse_instance("hub:5", model, "gossip")
    # the same graph under all-port: one round
    assert optimum("fully-connected:5", "all-port", "allgather") == 1


# ------------------------------------------------------------------------- problem names


def test_allgather_and_alltoall_are_gossip_and_total_exchange() -> None:
    assert parse_problem("allgather") == parse_problem("gossip")
    assert parse_problem("ALLTOALL") == parse_problem("total-exchange")
    assert parse_problem("alltoall:chunks=2").spec() == "total-exchange:chunks=2"
    assert parse_problem("scatter:3,chunks=2").spec() == "scatter:3,chunks=2"


@pytest.mark.parametrize(
    ("graph", "model", "problem", "expected"),
    [
        # K_4 all-port: a node takes in 3 packets a round and needs 3K
        ("complete:4", "all-port", "allgather:chunks=3", 3),
        ("complete:4", "all-port:c=3", "allgather:chunks=3", 1),
        # a single-port node receives one packet a round: (n - 1) K
        ("ring:4", "single-port", "gossip:chunks=2", 6),
        # broadcast of two chunks down a path of 3 edges, pipelined
        ("path:4", "all-port", "broadcast:0,chunks=2", 4),
    ],
)
def test_chunks(graph: str, model: str, problem: str, expected: int) -> None:
    inst = parse_instance(graph, model, problem)
    assert inst.n_packets == (1 if "broadcast" in problem else 4) * int(problem[-1])
    assert optimum(graph, model, problem) == expected


# ---------------------------------------------------------- personalized problems, every model

PERSONALIZED_MODELS = (
    "telephone",
    "telephone:p=1",
    "half-duplex:p=1",
    "single-port",
    "multicast",
    "sequential:p=1",
    "all-port",
)


@pytest.mark.parametrize("model", PERSONALIZED_MODELS)
def test_personalized_problems_both_backends_agree(model: str) -> None:
    cases = [(g, p) for g in ("path:3", "star:4", "ring:4") for p in ("scatter:0", "gather:0")]
    # total exchange on star:4 and ring:4 takes the half-duplex searches minutes
    cases += [("path:3", "total-exchange"), ("complete:3", "total-exchange")]
    for graph, problem in cases:
        sat = optimum(graph, model, problem, "sat")
        assert optimum(graph, model, problem, "cpsat") == sat, (graph, problem)


@pytest.mark.parametrize(
    ("model", "expected"),
    [
        # the centre of star:4 sends (scatter) or receives (gather) one transmission a round
        ("telephone", 3),
        ("single-port", 3),
        ("multicast", 3),
        ("sequential:p=1", 3),
        # all-port: every arc at once
        ("all-port", 1),
    ],
)
def test_scatter_and_gather_at_a_star_centre(model: str, expected: int) -> None:
    assert optimum("star:4", model, "scatter:0") == expected
    assert optimum("star:4", model, "gather:0") == expected


def test_total_exchange_single_port_complete_graph() -> None:
    # each node sends n - 1 packets, one a round, and a round of K_n can serve every node
    assert optimum("complete:4", "single-port", "total-exchange") == 3


# ------------------------------------------------------------------------------ certificates


@pytest.mark.parametrize(
    ("graph", "model", "problem"),
    [
        ("fattree:4", "all-port", "total-exchange"),
        ("fattree:4:exp", "all-port", "gossip"),
        ("ring:5", "all-port:c=2", "alltoall"),
    ],
)
def test_all_port_certificates_round_trip(graph: str, model: str, problem: str) -> None:
    res = solve(parse_instance(graph, model, problem), use_bounds=False)
    assert res.status == "optimal" and res.evidence["kind"] == "drat"
    cert = json.loads(json.dumps(build_certificate(res)))
    assert check_certificate(cert).ok


def test_cli_solve_check_export(tmp_path: Path) -> None:
    cert = tmp_path / "c.json"
    code, out, _ = run(
        "solve", "fattree:4", "-m", "all-port", "-p", "alltoall", "-o", str(cert), "--json"
    )
    data = json.loads(out)
    assert code == 0 and data["status"] == "optimal" and data["optimum"] == 7
    code, _, _ = run("check", str(cert))
    assert code == 0
    code, out, _ = run(
        "export", "dgx1", "-m", "all-port", "-p", "allgather", "--chunks", "2", "-r", "2"
    )
    assert code == 0 and "p cnf" in out and "gossip:chunks=2" in out


# ------------------------------------------------------------------------------- bad input


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("solve", "ring:4", "-m", "all-port:c=0"), "at least 1"),
        (("solve", "ring:4", "-m", "all-port:c=-1"), "c must be"),
        (("solve", "ring:4", "-m", "all-port:c=1.5"), "whole number"),
        (("solve", "ring:4", "-m", "all-port", "--chunks", "0"), "chunks must be at least 1"),
        (("bounds", "ring:4", "-m", "all-port", "--chunks", "-2"), "chunks must be at least 1"),
        (("solve", "ring:4", "-m", "all-port", "-p", "gossip:chunks=0"), "chunks must be"),
        (("solve", "hub:4", "-m", "all-port"), "single-port"),
        (("solve", "fattree:4:0,1"), "capacity"),
    ],
)
def test_bad_input_exits_2(args: tuple[str, ...], message: str) -> None:
    code, out, err = run(*args)
    assert code == 2, (out, err)
    assert message in " ".join(err.split())


@pytest.mark.parametrize("capacity", ["0", "-3", "x"])
def test_graph_file_with_bad_capacity_exits_2(tmp_path: Path, capacity: str) -> None:
    f = tmp_path / "g.edgelist"
    f.write_text(f"0 1 {capacity}\n1 2 1\n")
    code, _, err = run("solve", str(f), "-m", "all-port")
    assert code == 2 and "capacity" in err


@pytest.mark.parametrize("table", ["holdings", "demands"])
def test_router_holding_or_demanding_exits_2(tmp_path: Path, table: str) -> None:
    # fattree:2 is two leaves 0, 1 and the router 2
    other = "demands" if table == "holdings" else "holdings"
    problem = {"packets": ["a"], table: {"2": ["a"]}, other: {"0": ["a"]}}
    f = tmp_path / "p.json"
    f.write_text(json.dumps(problem))
    code, _, err = run("solve", "fattree:2", "-m", "all-port", "-p", str(f))
    assert code == 2 and "router" in err and "hold and demand nothing" in " ".join(err.split())


# ------------------------------------------------------------------ fat trees (D-D, Table 1)


@pytest.mark.parametrize("n", [2, 4, 8, 16])
def test_dimakopoulos_dimopoulos_table1_certified(n: int) -> None:
    log = n.bit_length() - 1
    # Table 1: broadcast 2 log n; scatter, gather and multinode broadcast n + 1, except for
    # n = 2, where one packet crosses the root in 2 steps
    other = n + 1 if n > 2 else 2
    assert optimum(f"fattree:{n}", "all-port", "broadcast:0") == 2 * log
    assert optimum(f"fattree:{n}", "all-port", "scatter:0") == other
    assert optimum(f"fattree:{n}", "all-port", "gather:0") == other
    assert optimum(f"fattree:{n}", "all-port", "gossip") == other


def test_fat_tree_total_exchange_four_leaves() -> None:
    # CBFT: the root cut gives 2 - 1 + 4 + 2 = 7, below the paper's algorithm (8)
    assert optimum("fattree:4", "all-port", "total-exchange") == 7
    # EBFT: n + 2 log n - 2 = 6, as conjectured
    assert optimum("fattree:4:exp", "all-port", "total-exchange") == 6


@pytest.mark.slow
def test_ebft_total_exchange_eight_leaves_beats_the_conjecture() -> None:
    """Dimakopoulos and Dimopoulos conjecture that no EBFT total exchange takes fewer than
    n + 2 log n - 2 = 12 steps for n = 8; a verified 11-step schedule exists, and 10 steps
    are refuted (about a minute)."""
    inst = parse_instance("fattree:8:exp", "all-port", "total-exchange")
    res = solve(inst)
    assert res.status == "optimal" and res.optimum == 11
    assert simulate(inst, res.schedule).rounds == 11
    assert res.evidence["kind"] in ("drat", "solver-claim")


# ------------------------------------------------------------------- shortest-route heuristic


def test_shortest_routes_schedule_is_valid_and_short() -> None:
    from gossipcert.errors import HeuristicError
    from gossipcert.finders.shortest_routes import applies, shortest_route_schedule

    inst = parse_instance("ring:6", "all-port", "alltoall")
    assert applies(inst)
    rep = simulate(inst, shortest_route_schedule(inst, 5))
    assert rep.ok and rep.rounds == 5  # the cut bound: 5 rounds are optimal
    assert not applies(parse_instance("ring:8", "all-port", "gossip"))
    assert not applies(parse_instance("fattree:4", "all-port", "alltoall"))  # a tree
    assert not applies(parse_instance("ring:8", "single-port", "alltoall"))
    with pytest.raises(HeuristicError):
        shortest_route_schedule(parse_instance("ring:8", "all-port", "gossip"), 4)
    # the search tries the ring construction first: it meets the cut bound
    res = solve(inst)
    assert res.status == "optimal" and res.optimum == 5 and res.upper_source == "ring-alltoall"


def test_broadcast_from_several_sources_under_all_port() -> None:
    """The one packet of a broadcast keeps its name when symmetry exchanges the sources."""
    for backend in ("sat", "cpsat"):
        res = solve(parse_instance("ring:6", "all-port", "broadcast:0,3"), backend=backend)
        assert res.status == "optimal" and res.optimum == 1
        res = solve(
            parse_instance("path:5", "all-port", "broadcast:0,4"), backend=backend, use_bounds=False
        )
        assert res.status == "optimal" and res.optimum == 2
