"""The broadcast encoding against a plain search over informed sets, and against the
generic knowledge encoding, on every connected graph with up to 6 nodes, from one source
and from two sources, in the telephone and the half-duplex model.

The reference below is independent of :mod:`gossipcert`: a breadth-first search over the
set of informed nodes, where one round applies any matching of the graph (telephone: both
ends of a call learn what either knows) or any directed matching (half-duplex: the receiver
learns what the sender knows), listed by brute force.
"""

from __future__ import annotations

import itertools
from functools import cache

import networkx as nx
import pytest

from gossipcert.encodings import EncodingOptions, encoding_for
from gossipcert.encodings.broadcast import BroadcastEncoding, broadcast_applies
from gossipcert.errors import UnsupportedModelError
from gossipcert.instance import Instance, make_instance, parse_instance, parse_model, parse_problem
from gossipcert.search.entry import solve
from gossipcert.simulate import simulate
from gossipcert.solvers.backends import SatBackend, Status

Edge = tuple[int, int]


# ------------------------------------------------------------------ the reference search


def matchings(edges: tuple[Edge, ...], directed: bool) -> list[tuple[Edge, ...]]:
    """Every matching (as arcs ``(a, b)``: ``a`` sends to ``b``; both ways for telephone)."""
    out: list[tuple[Edge, ...]] = []
    for k in range(len(edges) + 1):
        for combo in itertools.combinations(edges, k):
            ends = [x for e in combo for x in e]
            if len(ends) != len(set(ends)):
                continue
            if not directed:
                out.append(tuple(a for u, v in combo for a in ((u, v), (v, u))))
                continue
            for flips in itertools.product((False, True), repeat=k):
                out.append(
                    tuple((v, u) if f else (u, v) for (u, v), f in zip(combo, flips, strict=True))
                )
    return out


@cache
def reference_time(
    n: int,
    edges: tuple[Edge, ...],
    sources: tuple[int, ...],
    directed: bool,
    targets: frozenset[int] | None = None,
) -> int:
    """Fewest rounds until every node (or every one of ``targets``) is informed
    (breadth-first over informed sets)."""
    rounds = matchings(edges, directed)
    start = sum(1 << s for s in sources)
    want = (1 << n) - 1 if targets is None else sum(1 << v for v in targets)
    frontier, seen, t = {start}, {start}, 0
    while not any(state & want == want for state in frontier):
        nxt: set[int] = set()
        for state in frontier:
            for arcs in rounds:
                new = state
                for a, b in arcs:
                    if state >> a & 1:
                        new |= 1 << b
                if new not in seen:
                    seen.add(new)
                    nxt.add(new)
        frontier, t = nxt | frontier, t + 1
    return t


# ------------------------------------------------------------------ the project's side


def connected_graphs(max_n: int) -> list[nx.Graph]:
    """Every connected graph of the networkx atlas with 2 to ``max_n`` nodes."""
    return [
        nx.convert_node_labels_to_integers(g)
        for g in nx.graph_atlas_g()
        if 2 <= g.number_of_nodes() <= max_n and nx.is_connected(g)
    ]


def project_instance(g: nx.Graph, model: str, sources: tuple[int, ...]) -> Instance:
    h = g.copy()
    nx.set_node_attributes(h, {v: str(v) for v in h}, "label")
    nx.set_node_attributes(h, False, "router")
    nx.set_edge_attributes(h, 1, "capacity")
    h.graph["spec"] = "atlas"
    return make_instance(
        h, parse_model(model), parse_problem("broadcast:" + ",".join(map(str, sources)))
    )


def encoding_optimum(inst: Instance, broadcast: bool, strict: bool) -> int:
    """Fewest rounds by ascending queries to one incremental formula; the schedule of the
    first satisfiable horizon is decoded and verified, the one before must be refuted."""
    options = EncodingOptions.for_search(strict=strict, broadcast=broadcast)
    enc = encoding_for(inst, options)
    assert isinstance(enc, BroadcastEncoding) is broadcast
    enc.extend_to(inst.n)
    solver = SatBackend(enc.formula)
    try:
        for r in range(inst.n):
            status = solver.solve([enc.selector(r)], None, None)
            if status is Status.SAT:
                rep = simulate(inst, enc.decode(r, solver.value))
                assert rep.ok and rep.rounds is not None and rep.rounds <= r
                return r
            assert status is Status.UNSAT
    finally:
        solver.close()
    raise AssertionError("no schedule within n rounds")


def cases(max_n: int, min_n: int = 2) -> list[tuple[nx.Graph, tuple[int, ...]]]:
    out = []
    for g in connected_graphs(max_n):
        if g.number_of_nodes() < min_n:
            continue
        n = g.number_of_nodes()
        out += [(g, (s,)) for s in range(n)]
        out += [(g, pair) for pair in itertools.combinations(range(n), 2)]
    return out


def reference_case(g: nx.Graph, sources: tuple[int, ...], model: str) -> tuple[str, Instance, int]:
    """A case's name, its instance and the reference's minimum broadcast time."""
    edges = tuple(sorted((min(e), max(e)) for e in g.edges))
    want = reference_time(g.number_of_nodes(), edges, sources, model == "half-duplex")
    return f"{edges} from {sources}", project_instance(g, model, sources), want


def check_cases(todo: list[tuple[nx.Graph, tuple[int, ...]]], model: str) -> list[str]:
    bad = []
    for g, sources in todo:
        name, inst, want = reference_case(g, sources, model)
        got = (
            encoding_optimum(inst, True, False),
            encoding_optimum(inst, True, True),
            encoding_optimum(inst, False, True),
        )
        if got != (want, want, want):
            bad.append(f"{name}: reference {want}, encodings {got}")
    return bad


@pytest.mark.parametrize("model", ["telephone", "half-duplex"])
def test_small_graphs_agree_with_reference(model: str) -> None:
    assert check_cases(cases(5), model) == []


@pytest.mark.slow
@pytest.mark.parametrize("model", ["telephone", "half-duplex"])
def test_six_node_graphs_agree_with_reference(model: str) -> None:
    assert check_cases(cases(6, min_n=6), model) == []


def test_reference_values() -> None:
    # path on 4 nodes from an end: 3 rounds; from both ends: 1; star K_{1,3} from the centre: 3
    assert reference_time(4, ((0, 1), (1, 2), (2, 3)), (0,), False) == 3
    assert reference_time(4, ((0, 1), (1, 2), (2, 3)), (0, 3), False) == 1
    assert reference_time(4, ((0, 1), (0, 2), (0, 3)), (0,), True) == 3


# ------------------------------------------------------------------ the search and the CLI


@pytest.mark.parametrize(
    "graph,problem,optimum",
    [
        ("ccc:3", "broadcast:0", 6),
        ("butterfly:3", "broadcast:0", 5),
        ("petersen", "broadcast:0,1", 3),
        ("star:6", "broadcast:0", 5),
    ],
)
def test_both_encodings_give_the_same_optimum(graph: str, problem: str, optimum: int) -> None:
    for model in ("telephone", "half-duplex"):
        inst = parse_instance(graph, model, problem)
        a = solve(inst, encoding="broadcast", use_bounds=False)
        b = solve(inst, encoding="knowledge", use_bounds=False)
        assert a.status == b.status == "optimal"
        assert a.optimum == b.optimum == optimum
        assert a.options.broadcast and not b.options.broadcast
        assert a.evidence["kind"] == "drat" and a.evidence["encoding"]["broadcast"]


def test_default_encoding_for_single_packet() -> None:
    inst = parse_instance("ring:6", "telephone", "broadcast:0")
    assert solve(inst).options.broadcast
    gossip = encoding_for(
        parse_instance("ring:4", "telephone", "gossip"), EncodingOptions.for_search()
    )
    assert not isinstance(gossip, BroadcastEncoding) and not gossip.options.broadcast


def test_applies() -> None:
    assert broadcast_applies(parse_instance("ring:5", "half-duplex", "broadcast:0"))
    assert broadcast_applies(parse_instance("ring:5", "telephone:p=1", "broadcast:0"))
    assert not broadcast_applies(parse_instance("ring:5", "multicast", "broadcast:0"))
    assert not broadcast_applies(parse_instance("ring:5", "sequential", "broadcast:0"))
    with pytest.raises(UnsupportedModelError):
        BroadcastEncoding(parse_instance("ring:5", "telephone", "scatter:0"))


def test_multi_source_parse() -> None:
    inst = parse_instance("ring:10", "telephone", "broadcast:0, 5,9")
    assert inst.holdings == (1, 0, 0, 0, 0, 1, 0, 0, 0, 1)
    assert inst.n_packets == 1
    assert solve(inst).optimum == 2


def test_pendant_deadline() -> None:
    # from a leaf of the star K_{1,4}: one round to the centre, then one per other leaf
    inst = parse_instance("star:5", "telephone", "broadcast:1")
    assert solve(inst, use_bounds=False).optimum == 4


def test_certificate_round_trip_with_the_broadcast_encoding() -> None:
    import json

    from gossipcert.certificates.certificate import build_certificate, check_certificate

    inst = parse_instance("butterfly:3", "half-duplex", "broadcast:0,7")
    res = solve(inst, use_bounds=False)
    assert res.status == "optimal" and res.evidence["kind"] == "drat"
    assert res.evidence["encoding"]["broadcast"]
    cert = json.loads(json.dumps(build_certificate(res)))
    assert check_certificate(cert).ok
    # the same certificate read as if made by the generic encoding: the CNF hash differs
    cert["evidence"]["encoding"]["broadcast"] = False
    assert not check_certificate(cert).ok


def test_cli_encoding_option() -> None:
    import json

    from typer.testing import CliRunner

    from gossipcert.cli import app

    runner = CliRunner()
    res = runner.invoke(
        app, ["solve", "ring:9", "--problem", "broadcast:0,3", "--encoding", "knowledge", "--json"]
    )
    assert res.exit_code == 0, res.output
    assert json.loads(res.stdout)["optimum"] == 3
    res = runner.invoke(app, ["solve", "ring:9", "--problem", "broadcast:0", "--encoding", "x"])
    assert res.exit_code == 2
    assert "unknown encoding" in res.output


@pytest.mark.parametrize("model", ["telephone", "half-duplex", "single-port:p=1"])
def test_cpsat_backend_and_models(model: str) -> None:
    # CCC_3 from node 0: 6 rounds in every one-port model (one packet)
    inst = parse_instance("ccc:3", model, "broadcast:0")
    res = solve(inst, backend="cpsat", use_bounds=False, proof=False)
    assert res.status == "optimal" and res.optimum == 6
    assert res.options.broadcast


def test_broadcast_encoding_asked_where_it_does_not_apply_is_a_clear_error() -> None:
    from typer.testing import CliRunner

    from gossipcert.cli import app

    runner = CliRunner()
    res = runner.invoke(app, ["solve", "ring:6", "--problem", "gossip", "--encoding", "broadcast"])
    assert res.exit_code == 2
    assert "--encoding broadcast needs one packet" in res.output
    res = runner.invoke(app, ["solve", "ring:6", "-p", "broadcast:0,chunks=2,chunks=3"])
    assert res.exit_code == 2 and "chunks is given twice" in res.output
