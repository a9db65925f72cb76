"""The bridge bound of allreduce: never above the exact optimum on small graphs with a bridge
(the exact CNF refutes one round fewer, every case), met there, its closed form on the
``ndv2`` machines, and a certificate that rests on it re-checked."""

from __future__ import annotations

import json
from pathlib import Path

import networkx as nx
import pytest

import gossipcert
from gossipcert.graphs.convert import from_networkx
from gossipcert.instance import Instance, make_instance, parse_instance, parse_model, parse_problem
from gossipcert.search.allreduce_bridge import bridge_bound
from gossipcert.search.allreduce_exact import find
from gossipcert.statuses import QueryStatus


def boxes(router: bool) -> nx.Graph:
    """Two triangles whose corners 0 and 3 reach node 6 (a router, or a processor): the
    shape of a machine whose chassis reach a switch by one link each."""
    g = nx.Graph([(0, 1), (1, 2), (0, 2), (3, 4), (4, 5), (3, 5), (0, 6), (3, 6)])
    if router:
        g.nodes[6]["router"] = True
    return g


#: small graphs with a bridge: the boxes, paths, a star, the paw, a lollipop, a tree
GRAPHS: dict[str, nx.Graph] = {
    "boxes-router": boxes(True),
    "boxes": boxes(False),
    "path3": nx.path_graph(3),
    "path5": nx.path_graph(5),
    "star3": nx.star_graph(3),
    "paw": nx.Graph([(0, 1), (1, 2), (0, 2), (2, 3)]),
    "lollipop": nx.lollipop_graph(3, 2),
    "spider": nx.Graph([(0, 1), (1, 2), (0, 3), (3, 4), (0, 5)]),
}

CASES = [
    (name, model, chunks)
    for name in GRAPHS
    for model, chunks in (("all-port", 1), ("all-port:c=2", 2), ("all-port", 2))
    if not (chunks == 2 and name in ("boxes", "boxes-router", "spider", "path5"))
] + [(name, "single-port", 1) for name in ("path3", "star3", "paw")]


def instance(name: str, model: str, chunks: int) -> Instance:
    return make_instance(
        from_networkx(GRAPHS[name]), parse_model(model), parse_problem(f"allreduce:chunks={chunks}")
    )


@pytest.mark.parametrize(("name", "model", "chunks"), CASES)
def test_one_round_fewer_is_impossible(name: str, model: str, chunks: int) -> None:
    """The exact allreduce CNF (no bound in it) refutes the bound's rounds minus one."""
    inst = instance(name, model, chunks)
    bound = bridge_bound(inst)
    assert bound is not None and bound >= 2
    verdict, _ = find(inst, bound - 1, None)
    assert verdict == QueryStatus.UNSAT


@pytest.mark.parametrize(
    ("name", "model", "chunks"),
    [("boxes-router", "all-port", 1), ("boxes", "all-port", 1), ("path5", "all-port", 1)],
)
def test_met_by_the_exact_optimum(name: str, model: str, chunks: int) -> None:
    """Where the bound is the whole answer, the exact CNF finds a schedule in its rounds."""
    inst = instance(name, model, chunks)
    bound = bridge_bound(inst)
    assert bound is not None
    verdict, schedule = find(inst, bound, None)
    assert verdict == QueryStatus.SAT and schedule is not None


@pytest.mark.parametrize("machines", [2, 3, 4])
@pytest.mark.parametrize("chunks", [1, 2, 3, 8])
def test_closed_form_on_ndv2(machines: int, chunks: int) -> None:
    """``8 m K + 5`` with a switch (``m >= 3`` chassis: 4 hops in, 2 hops on), ``16 K + 4``
    when two chassis share one link (3 hops in)."""
    inst = parse_instance(f"ndv2:{machines}", "all-port", f"allreduce:chunks={chunks}")
    expected = 16 * chunks + 4 if machines == 2 else 8 * machines * chunks + 5
    assert bridge_bound(inst) == expected


def test_none_without_a_bridge() -> None:
    assert bridge_bound(parse_instance("ring:6", "all-port", "allreduce")) is None
    assert bridge_bound(parse_instance("path:4", "all-port", "allreduce")) == 6


def test_a_certificate_resting_on_it_is_rechecked(tmp_path: Path) -> None:
    res = gossipcert.solve("ndv2:3", "all-port", "allreduce", time_limit=120)
    assert res.status.value == "optimal" and res.optimum == 29
    assert (res.lower_evidence or {}).get("source") == "bridge"
    path = tmp_path / "cert.json"
    res.write_certificate(path)
    report = gossipcert.check(path)
    assert report.ok and report.status.value == "holds", report.steps
    tampered = json.loads(path.read_text())
    edges = tampered["instance"]["graph"]["edges"]
    links = [e for e in edges if e[2] == 1]  # the chassis' links to the switch
    assert len(links) == 3
    for e in links:
        e[2] = 2  # twice the bandwidth: the bridge bound no longer reaches 29
    (tmp_path / "bad.json").write_text(json.dumps(tampered))
    assert not gossipcert.check(tmp_path / "bad.json").ok
