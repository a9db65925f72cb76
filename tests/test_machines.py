"""The machines of TACCL and TE-CCL (dgx2, ndv2:K, mi250:K): their shape, agreement with
the topology reader on TE-CCL's capacity matrices, the cut bound on them (by hand, and
sound against the solver on small chassis graphs), and the machine pipeline construction.
"""

from __future__ import annotations

import json
from pathlib import Path

import networkx as nx
import pytest

from gossipcert import graphs
from gossipcert.api import solve
from gossipcert.closed_forms.cuts import cut_bound
from gossipcert.constructions.catalog import construct
from gossipcert.constructions.machines import machine_pipeline
from gossipcert.errors import NotApplicableError, SpecError
from gossipcert.graphs.machines import CUBE_MESH_DOUBLE, MI250_LINKS
from gossipcert.instance import make_instance, parse_instance, parse_model, parse_problem
from gossipcert.search.entry import solve as search_solve
from gossipcert.simulate import simulate
from gossipcert.symmetry.automorphisms import automorphism_generators


def caps(g: nx.Graph) -> dict[frozenset[int], int]:
    return {frozenset((u, v)): c for u, v, c in g.edges(data="capacity")}


# --------------------------------------------------------------------------------------------
# Shapes
# --------------------------------------------------------------------------------------------


def test_dgx2_is_a_star_around_one_router() -> None:
    g = graphs.from_spec("dgx2")
    assert g.number_of_nodes() == 17 and g.number_of_edges() == 16
    assert graphs.routers(g) == [16] and graphs.processors(g) == list(range(16))
    assert set(g.adj[16]) == set(range(16))
    assert set(caps(g).values()) == {1}


def test_ndv2_one_chassis_is_the_dgx1() -> None:
    assert caps(graphs.from_spec("ndv2")) == caps(graphs.dgx1())
    assert graphs.from_spec("ndv2:1").graph["spec"] == "ndv2:1"


@pytest.mark.parametrize("k", [2, 3, 4])
def test_ndv2_chassis_and_nic(k: int) -> None:
    g = graphs.from_spec(f"ndv2:{k}")
    switch = k >= 3
    assert g.number_of_nodes() == 8 * k + switch
    assert graphs.routers(g) == ([8 * k] if switch else [])
    # every chassis: the cube mesh, NVLinks 4 (double) and 2 (single) in NIC units
    for c in range(k):
        inside = g.subgraph(range(8 * c, 8 * c + 8))
        assert inside.number_of_edges() == 16
        for a, b in CUBE_MESH_DOUBLE:
            assert g[8 * c + a][8 * c + b]["capacity"] == 4
        assert sorted(d for _, d in inside.degree(weight="capacity")) == [12] * 8
        assert g.nodes[8 * c + 5]["coords"] == (c, 5)
    nic = [(u, v) for u, v in g.edges() if u // 8 != v // 8 or max(u, v) == 8 * k]
    assert len(nic) == (1 if k == 2 else k)
    assert all(g[u][v]["capacity"] == 1 for u, v in nic)
    assert all("latency" not in d for *_, d in g.edges(data=True))
    assert nx.is_connected(g)


def test_ndv2_latency_option_marks_the_nic_links_only() -> None:
    g = graphs.from_spec("ndv2:2:lat=3")
    assert g.graph["spec"] == "ndv2:2:lat=3"
    marked = {frozenset((u, v)) for u, v, d in g.edges(data=True) if "latency" in d}
    assert marked == {frozenset((0, 8))} and g[0][8]["latency"] == 3
    h = graphs.from_spec("NDV2:4:LAT=2")
    assert {d["latency"] for *_, d in h.edges(data=True) if "latency" in d} == {2}
    assert sum("latency" in d for *_, d in h.edges(data=True)) == 4


def test_mi250_chassis() -> None:
    g = graphs.from_spec("mi250")
    assert g.number_of_nodes() == 16 and g.number_of_edges() == 28 and not graphs.routers(g)
    assert caps(g) == {frozenset((a, b)): c for a, b, c in MI250_LINKS}
    # TE-CCL's adjacency: every GCD has 7 Infinity Fabric links, its partner on the MI250 4
    assert sorted(d for _, d in g.degree(weight="capacity")) == [7] * 16
    h = graphs.from_spec("mi250:2")
    assert h.number_of_nodes() == 49 and len(graphs.routers(h)) == 17
    assert h[16][17]["capacity"] == 8 and h[2][33]["capacity"] == 1
    assert set(h.adj[48]) == set(range(32, 48))


def _group_order(gens: list[list[int]], n: int) -> int:
    """The order of the permutation group the generators generate (closure; small groups)."""
    seen = {tuple(range(n))}
    frontier = list(seen)
    while frontier:
        perm = frontier.pop()
        for g in gens:
            composed = tuple(g[perm[v]] for v in range(n))
            if composed not in seen:
                seen.add(composed)
                frontier.append(composed)
    return len(seen)


@pytest.mark.parametrize(
    ("spec", "order"),
    # the DGX-1 mesh with its capacities has 4 automorphisms; one NIC at GPU 0 leaves the
    # swap of two chassis, and a switch every permutation of the chassis
    [("ndv2:1", 4), ("ndv2:2", 2), ("ndv2:3", 6), ("ndv2:4", 24), ("mi250", 4)],
)
def test_machine_automorphisms(spec: str, order: int) -> None:
    g = graphs.from_spec(spec)
    matcher = nx.algorithms.isomorphism.GraphMatcher(
        g,
        g,
        node_match=lambda a, b: a["router"] == b["router"],
        edge_match=lambda a, b: a["capacity"] == b["capacity"],
    )
    assert sum(1 for _ in matcher.isomorphisms_iter()) == order
    gens = automorphism_generators(parse_instance(spec, "all-port", "gossip"))
    assert _group_order(gens, g.number_of_nodes()) == order


def test_dgx2_automorphisms_are_every_permutation_of_the_gpus() -> None:
    gens = automorphism_generators(parse_instance("dgx2", "all-port", "gossip"))
    assert all(p[16] == 16 for p in gens)
    # transpositions whose graph spans the 16 GPUs and is connected generate S_16
    moved = [sorted(v for v in range(16) if p[v] != v) for p in gens]
    swaps = nx.Graph([tuple(m) for m in moved if len(m) == 2])
    assert swaps.number_of_nodes() == 16 and nx.is_connected(swaps)


@pytest.mark.parametrize(
    "spec", ["dgx2:2", "ndv2:0", "ndv2:2:foo=1", "ndv2:2:lat=0", "ndv2:x", "mi250:0"]
)
def test_bad_machine_specs(spec: str) -> None:
    with pytest.raises(SpecError):
        graphs.from_spec(spec)


# --------------------------------------------------------------------------------------------
# The reader of TE-CCL's capacity matrices gives the same graphs
# --------------------------------------------------------------------------------------------


def _write(path: Path, data: object) -> str:
    path.write_text(json.dumps(data))
    return str(path)


def _same(built: nx.Graph, read: nx.Graph) -> bool:
    def match(a: dict[str, object], b: dict[str, object]) -> bool:
        return a.get("router") == b.get("router")

    return nx.is_isomorphic(
        built, read, node_match=match, edge_match=lambda a, b: a["capacity"] == b["capacity"]
    )


def test_reader_agrees_on_teccl_ndv2_chassis(tmp_path: Path) -> None:
    # teccl/topologies/ndv2.py: 50 GB/s (double NVLink) and 25 GB/s a link, per chunk size
    nvlink = 25 / 0.0625
    matrix = [[0.0] * 8 for _ in range(8)]
    for a, b in CUBE_MESH_DOUBLE:
        matrix[a][b] = matrix[b][a] = 2 * nvlink
    g1 = graphs.dgx1()
    for a, b, c in g1.edges(data="capacity"):
        if c == 1:
            matrix[a][b] = matrix[b][a] = nvlink
    read = graphs.read_graph_file(_write(tmp_path / "ndv2.json", {"capacity": matrix}))
    assert caps(read) == caps(graphs.from_spec("ndv2:1"))


def test_reader_agrees_on_teccl_dgx2_chassis(tmp_path: Path) -> None:
    # teccl/topologies/dgx2.py: node 0 of a chassis is its switch, 125 GB/s to every GPU
    port = 125 / 0.0625
    matrix = [[0.0] * 17 for _ in range(17)]
    for v in range(1, 17):
        matrix[0][v] = matrix[v][0] = port
    data = {"capacity": matrix, "switch_indices": [0]}
    read = graphs.read_graph_file(_write(tmp_path / "dgx2.json", data))
    assert _same(graphs.from_spec("dgx2"), read)


def test_reader_agrees_on_teccl_mi250_chassis(tmp_path: Path) -> None:
    # teccl/topologies/amd.py, one chassis: 50 GB/s an Infinity Fabric link
    matrix = [[0.0] * 16 for _ in range(16)]
    for a, b, links in MI250_LINKS:
        matrix[a][b] = matrix[b][a] = links * 50 / 0.25
    read = graphs.read_graph_file(_write(tmp_path / "mi250.json", {"capacity": matrix}))
    assert caps(read) == caps(graphs.from_spec("mi250"))


def test_reader_of_two_teccl_ndv2_chassis_differs_only_at_the_nic(tmp_path: Path) -> None:
    """TE-CCL joins two NDv2 chassis by two one-way links (0 -> 9 and 8 -> 1, a NIC's
    sending and receiving sides); the reader makes each an edge both ways, ndv2:2 one edge
    0 - 8: the chassis are the same, and so is the one chunk a round each way across."""
    matrix = [[0.0] * 16 for _ in range(16)]
    built = graphs.from_spec("ndv2:2")
    for a, b, c in built.edges(data="capacity"):
        if a // 8 == b // 8:
            matrix[a][b] = matrix[b][a] = c * 12.5
    matrix[0][9] = matrix[8][1] = 12.5
    read = graphs.read_graph_file(_write(tmp_path / "ndv2x2.json", {"capacity": matrix}))
    inside = {e: c for e, c in caps(read).items() if len({v // 8 for v in e}) == 1}
    assert inside == {e: c for e, c in caps(built).items() if len({v // 8 for v in e}) == 1}
    assert set(caps(read)) - set(inside) == {frozenset((0, 9)), frozenset((1, 8))}


# --------------------------------------------------------------------------------------------
# The cut bound on the machines
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("spec", "problem", "expected"),
    [
        # one GPU receives 15 C chunks through its port, none in round 1
        ("dgx2", "gossip", 16),
        ("dgx2", "total-exchange:chunks=2", 31),
        # 8 C chunks through the NIC, then 2 hops inside the chassis
        ("ndv2:2", "gossip", 10),
        ("ndv2:2", "gossip:chunks=2", 18),
        # 64 C packets through the NIC, the last ones for the NIC's GPU
        ("ndv2:2", "total-exchange", 64),
        # through the switch: one more round before the first crossing
        ("ndv2:4", "gossip", 27),
        ("ndv2:3", "gossip:chunks=2", 35),
        ("ndv2:4", "total-exchange", 193),
        ("ndv2:3", "total-exchange", 129),
    ],
)
def test_cut_bound_finds_the_chassis_cut(spec: str, problem: str, expected: int) -> None:
    b = cut_bound(parse_instance(spec, "all-port", problem))
    assert b is not None and b.value == expected


def test_gomory_hu_cuts_find_the_mi250_chassis() -> None:
    # 16 GCDs and 8 NICs against the rest: 2 * 16 * 16 = 512 packets over 8 NIC links a
    # round, after the first can reach the switch; the balls and bridges give 19
    b = cut_bound(parse_instance("mi250:2", "all-port", "total-exchange"))
    assert b is not None and b.value == 35


def chassis_graph(k: int, size: int, switch: bool) -> nx.Graph:
    """``k`` cliques of ``size`` nodes (capacity 2 between consecutive nodes, 1 otherwise)
    joined by a switch router linked to the first node of each, or by one link 0 - size."""
    g = nx.Graph()
    n = k * size + switch
    g.add_nodes_from(range(n))
    for c in range(k):
        for i in range(size):
            for j in range(i + 1, size):
                g.add_edge(c * size + i, c * size + j, capacity=2 if j - i == 1 else 1)
    if switch:
        g.add_edges_from(((c * size, n - 1) for c in range(k)), capacity=1)
    else:
        g.add_edge(0, size, capacity=1)
    nx.set_node_attributes(g, {v: str(v) for v in g}, "label")
    nx.set_node_attributes(g, {v: switch and v == n - 1 for v in g}, "router")
    return g


@pytest.mark.parametrize(
    ("k", "size", "switch", "problem", "optimum"),
    [
        (2, 4, True, "gossip", 6),
        (2, 4, True, "gossip:chunks=2", 10),
        (3, 3, True, "gossip", 8),
        (2, 5, False, "gossip", 6),
    ],
)
def test_cut_bound_and_pipeline_against_the_solver(
    k: int, size: int, switch: bool, problem: str, optimum: int
) -> None:
    """More than 8 nodes, so the cuts are the single nodes, bridges, balls and Gomory-Hu
    cuts; the solver (without closed-form bounds) gives the optimum."""
    inst = make_instance(
        chassis_graph(k, size, switch), parse_model("all-port"), parse_problem(problem)
    )
    res = search_solve(inst, use_bounds=False, proof=False)
    assert (res.status, res.optimum) == ("optimal", optimum)
    b = cut_bound(inst)
    assert b is not None and b.value <= optimum
    assert simulate(inst, machine_pipeline(inst)).rounds == optimum


# --------------------------------------------------------------------------------------------
# The machine pipeline
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("spec", "problem"),
    [
        ("dgx2", "gossip"),
        ("dgx2", "total-exchange"),
        ("ndv2:2", "gossip:chunks=2"),
        ("ndv2:2", "total-exchange"),
        ("ndv2:3", "gossip"),
        ("ndv2:3", "total-exchange"),
        ("ndv2:4", "gossip"),
        ("ndv2:4", "total-exchange"),
        ("fattree:8", "total-exchange"),
    ],
)
def test_pipeline_meets_the_cut_bound(spec: str, problem: str) -> None:
    inst = parse_instance(spec, "all-port", problem)
    report = simulate(inst, construct(inst, "machine-pipeline"))
    assert report.ok
    b = cut_bound(inst)
    assert b is not None and report.rounds == b.value


def test_pipeline_is_valid_where_it_is_not_optimal() -> None:
    inst = parse_instance("mi250:2", "all-port", "gossip")
    report = simulate(inst, machine_pipeline(inst))
    assert report.ok and report.rounds is not None and report.rounds >= 5


@pytest.mark.parametrize(("model", "problem"), [("telephone", "gossip"), ("all-port", "allreduce")])
def test_pipeline_refuses(model: str, problem: str) -> None:
    with pytest.raises(NotApplicableError):
        machine_pipeline(parse_instance("ndv2:2", model, problem))


def test_solve_certifies_ndv2_without_a_solver() -> None:
    res = solve("ndv2:2", "all-port", "gossip:chunks=2")
    assert res.status == "optimal" and res.optimum == 18 and res.certified
    assert res.lower_evidence["kind"] == "closed-form" and res.lower_evidence["name"] == "cut"
    assert res.upper_source == "machine-pipeline"


# --------------------------------------------------------------------------------------------
# Symmetry breaking with chunks
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("spec", "problem"),
    [
        ("ring:6", "gossip:chunks=2"),
        ("star:5", "total-exchange:chunks=2"),
        ("fattree:4", "gossip:chunks=2"),
        ("fattree:4", "total-exchange:chunks=2"),
        ("hypercube:3", "broadcast:0,chunks=3"),
        ("ndv2:1", "gossip:chunks=2"),
    ],
)
def test_lex_leader_with_chunks_keeps_the_optimum(spec: str, problem: str) -> None:
    """The chunk index is part of the key: the constraints are added (some generator has a
    key it moves), and the optimum with them is the optimum without (``strict``)."""
    from gossipcert.encodings import encoding_for
    from gossipcert.encodings.options import EncodingOptions
    from gossipcert.symmetry.automorphisms import add_lex_leader

    inst = parse_instance(spec, "all-port", problem)
    gens = automorphism_generators(inst)
    assert gens
    enc = encoding_for(inst, EncodingOptions())
    enc.extend_to(2)
    before = enc.formula.vpool.top
    assert add_lex_leader(enc, gens) == len(gens)
    assert enc.formula.vpool.top > before  # some key moved: constraints were written
    events: list[dict[str, object]] = []
    free = search_solve(inst, use_bounds=False, proof=False, progress=events.append)
    strict = search_solve(inst, use_bounds=False, proof=False, strict=True)
    assert free.status == strict.status == "optimal"
    assert free.optimum == strict.optimum
    assert any(e.get("event") == "symmetry" and e.get("generators") for e in events)
