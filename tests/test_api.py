"""The Python API at the package's face: gossipcert.solve, verify, bounds, check, table."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import networkx as nx
import pytest

import gossipcert
from gossipcert.errors import CertificateError, GraphError, SpecError


def _grid_with_names() -> nx.Graph:
    """A 3x4 grid with string node names and the edge r0c0 -- r0c1 removed."""
    g = nx.relabel_nodes(nx.grid_2d_graph(3, 4), lambda rc: f"r{rc[0]}c{rc[1]}")
    g.remove_edge("r0c0", "r0c1")
    return g


def test_solve_a_networkx_graph_with_string_names_keeps_them(tmp_path: Path) -> None:
    g = _grid_with_names()
    res = gossipcert.solve(g, "telephone", "broadcast:r1c1")
    assert res.status is gossipcert.SolveStatus.OPTIMAL
    # r1c1 reaches r2c3 (distance 3) and 12 nodes need ceil(log2 12) = 4 rounds
    assert res.optimum == 4 and res.certified
    names = {x for rnd in res.named_rounds() for s, ds, _ in rnd for x in (s, *ds)}
    assert names <= set(g.nodes) and "r1c1" in names
    assert gossipcert.verify(g, res.schedule, "telephone", "broadcast:r1c1").ok
    path = res.write_certificate(tmp_path / "grid-cert.json")
    with pytest.raises(CertificateError, match="exists"):
        res.write_certificate(path)
    assert gossipcert.check(path).ok is True
    data = json.loads(path.read_text())
    assert data["instance"]["graph"]["labels"][0] == "r0c0"


def test_the_api_and_the_command_line_agree(tmp_path: Path) -> None:
    res = gossipcert.solve("ccc:3", "telephone", "gossip")
    out = subprocess.run(
        [sys.executable, "-m", "gossipcert", "solve", "ccc:3", "--json", "--quiet"],
        capture_output=True,
        text=True,
        check=False,
    )
    cli = json.loads(out.stdout)
    api = res.to_json()
    assert out.returncode == 0
    for key in ("status", "optimum", "lower_bound", "upper_bound", "certified"):
        assert api[key] == cli[key], key
    assert api["optimum"] == 7


@pytest.mark.parametrize(
    ("graph", "message"),
    [
        (nx.DiGraph([(0, 1)]), "directed"),
        (nx.Graph([(0, 0), (0, 1)]), "self-loop"),
        (nx.Graph([(0, 1), (2, 3)]), "disconnected"),
        (nx.Graph(), "empty"),
        (nx.MultiGraph([(0, 1), (0, 1)]), "multigraph"),
        (nx.Graph([(1, "1")]), "same text"),
        (nx.Graph([(0, 1, {"latency": 0})]), "latency 0 is not a whole number"),
        (nx.Graph([(0, 1, {"capacity": 1.5})]), "capacity 1.5 is not a whole number"),
    ],
)
def test_bad_graphs_raise_the_projects_own_error(graph: nx.Graph, message: str) -> None:
    with pytest.raises(GraphError, match=message):
        gossipcert.solve(graph, "telephone", "gossip")


def test_a_networkx_graph_keeps_its_latencies() -> None:
    """An edge's ``latency`` attribute reaches the all-port model (b -- c takes 3 rounds), and
    another model refuses it in words that name no spec."""
    from gossipcert.errors import UnsupportedModelError

    g = nx.path_graph(["a", "b", "c"])
    g["b"]["c"]["latency"] = 3
    res = gossipcert.solve(g, "all-port", "broadcast:a")
    assert res.optimum == 4 and res.certified
    g["b"]["c"]["latency"] = 1
    assert gossipcert.solve(g, "all-port", "broadcast:a").optimum == 2
    g["b"]["c"]["latency"] = 3
    with pytest.raises(UnsupportedModelError, match=r"^the graph has links slower"):
        gossipcert.solve(g, "telephone", "broadcast:a")


def test_a_bad_spec_raises_a_spec_error() -> None:
    with pytest.raises(SpecError):
        gossipcert.bounds("ring:4", "telephon", "gossip")


def test_bounds_returns_the_best_of_each_kind() -> None:
    b = gossipcert.bounds("hypercube:4", "telephone", "gossip")
    assert b.lower is not None and b.lower.value == 4
    assert b.upper is not None and b.upper.value == 4
    assert all(x.value >= b.lower.value for x in b.found if x.kind == "upper")


def test_verify_names_the_broken_rule() -> None:
    rounds = [[{"from": 0, "to": [1], "packets": "all"}, {"from": 2, "to": [1], "packets": "all"}]]
    rep = gossipcert.verify("path:3", {"rounds": rounds}, "half-duplex", "gossip")
    assert not rep.valid
    assert any("receives" in e.message for e in rep.errors)


def test_the_time_limit_holds_and_gives_the_bracket() -> None:
    """Stopped at its limit, the search answers with the bracket it has reached, never an
    optimum it has not proved (DeBruijn6 is open: 8 or 9) and never a schedule the verifier
    has not accepted. How far it got, and how long the answer takes after the limit, depend
    on the machine: ``benchmarks/time_limits.py`` measures them; a test does not."""
    res = gossipcert.solve("debruijn:6", "telephone", "gossip", time_limit=5)
    assert res.timed_out and not res.interrupted and res.optimum is None
    assert res.status in (gossipcert.SolveStatus.FEASIBLE, gossipcert.SolveStatus.UNKNOWN)
    assert res.lower <= 9  # a lower bound is never above the optimum
    if res.schedule is not None:
        rep = gossipcert.verify("debruijn:6", res.schedule, "telephone", "gossip")
        assert rep.ok and rep.rounds == res.upper >= res.lower


def test_progress_reaches_the_callback_and_the_logger(caplog: pytest.LogCaptureFixture) -> None:
    events: list[str] = []
    with caplog.at_level("INFO", logger="gossipcert"):
        gossipcert.solve(
            "ring:6", "telephone", "gossip", progress=lambda e: events.append(e["event"])
        )
    assert "lower-bound" in events and "upper-bound" in events
    assert any(r.name == "gossipcert" and "lower-bound" in r.getMessage() for r in caplog.records)


def test_python_dash_m_and_version() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "gossipcert", "--version"], capture_output=True, text=True
    )
    assert out.returncode == 0 and out.stdout.strip() == f"gossipcert {gossipcert.__version__}"


def test_table_runs_a_sweep_and_resumes(tmp_path: Path) -> None:
    sweep = tmp_path / "sweep.toml"
    sweep.write_text(
        'name = "api"\ntime_limit = 60\noutput = "."\nstore = "store"\n[[group]]\n'
        'graphs = ["ring:{n}"]\nsizes = [4, 5]\nmodels = ["telephone", "half-duplex"]\n'
        'problems = ["gossip"]\n'
    )
    df = gossipcert.table(sweep)
    got = {(r.graph, r.model): (r.status, r.optimum) for r in df.itertuples()}
    assert got == {
        ("ring:4", "telephone"): ("optimal", 2),
        ("ring:5", "telephone"): ("optimal", 4),
        ("ring:4", "half-duplex"): ("optimal", 4),
        ("ring:5", "half-duplex"): ("optimal", 6),
    }
    entries = sorted(p.name for p in (tmp_path / "store").glob("*.json"))
    again = gossipcert.table(sweep)  # everything comes from the store
    assert again.equals(df)
    assert sorted(p.name for p in (tmp_path / "store").glob("*.json")) == entries
