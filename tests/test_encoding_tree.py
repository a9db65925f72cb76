"""The time-indexed all-port encoding on trees against the generic all-port encoding.

On every tree with up to 5 nodes (7 in the slow test; 4 without the sound but not implied
rules, ``strict``), with no router or with every inner
node a router (when two processors remain), capacities 1, 2 or mixed, and each of gossip,
broadcast, scatter, gather and total exchange, both encodings give the same optimum, each
proved from the trivial lower bound by the solver. The tree encoding's hint along a
verified schedule satisfies its formula, its certificates re-check, and ``auto`` picks it.
"""

from __future__ import annotations

import networkx as nx
import pytest

from gossipcert.certificates.certificate import build_certificate, check_certificate
from gossipcert.constructions.collectives import farthest_first_routes
from gossipcert.encodings import EncodingOptions, TreeEncoding, encoding_for
from gossipcert.encodings.formula import Formula
from gossipcert.encodings.tree import tree_applies
from gossipcert.errors import UnsupportedModelError
from gossipcert.instance import Instance, make_instance, parse_instance, parse_model, parse_problem
from gossipcert.search.entry import solve

PROBLEMS = ("gossip", "broadcast", "scatter", "gather", "total-exchange")
PATTERNS = ("one", "two", "mixed")


def tree_instance(tree: nx.Graph, routers: frozenset[int], pattern: str, problem: str) -> Instance:
    g = nx.Graph()
    g.add_nodes_from(range(tree.number_of_nodes()))
    for u, v in sorted(tree.edges()):
        cap = {"one": 1, "two": 2}.get(pattern, 2 if 0 in (u, v) else 1)
        g.add_edge(u, v, capacity=cap)
    nx.set_node_attributes(g, {v: str(v) for v in g}, "label")
    nx.set_node_attributes(g, {v: v in routers for v in g}, "router")
    return make_instance(g, parse_model("all-port"), parse_problem(problem))


def cases(max_n: int) -> list[tuple[nx.Graph, frozenset[int]]]:
    """Every tree up to ``max_n`` nodes, without routers and with its inner nodes routers."""
    out = []
    for n in range(2, max_n + 1):
        for t in nx.nonisomorphic_trees(n):
            t = nx.convert_node_labels_to_integers(t)
            inner = frozenset(v for v in t if t.degree(v) > 1)
            out.append((t, frozenset()))
            if inner and n - len(inner) >= 2:
                out.append((t, inner))
    return out


def disagreements(max_n: int, problem: str, backend: str, strict: bool = False) -> list[str]:
    found = []
    for tree, routers in cases(max_n):
        root = min(v for v in tree if v not in routers)
        spec = f"{problem}:{root}" if problem in ("broadcast", "scatter", "gather") else problem
        for pattern in PATTERNS:
            got = {}
            for encoding in ("tree", "knowledge"):
                inst = tree_instance(tree, routers, pattern, spec)
                res = solve(
                    inst,
                    backend=backend,
                    encoding=encoding,
                    use_bounds=False,
                    proof=False,
                    strict=strict,
                )
                got[encoding] = (res.status, res.optimum)
            if got["tree"] != got["knowledge"] or got["tree"][0] != "optimal":
                found.append(
                    f"{sorted(tree.edges())} routers {sorted(routers)} {pattern} {spec}: {got}"
                )
    return found


@pytest.mark.parametrize("problem", PROBLEMS)
def test_tree_and_generic_encodings_agree(problem: str) -> None:
    found = disagreements(5, problem, "sat")
    assert not found, "\n".join(found)


@pytest.mark.parametrize("problem", PROBLEMS)
def test_strict_encodings_agree(problem: str) -> None:
    """Without symmetry breaking and the work-conserving rule: the plain formulas."""
    found = disagreements(4, problem, "sat", strict=True)
    assert not found, "\n".join(found)


@pytest.mark.parametrize("problem", ["gossip", "total-exchange"])
def test_tree_and_generic_encodings_agree_on_cpsat(problem: str) -> None:
    found = disagreements(4, problem, "cpsat")
    assert not found, "\n".join(found)


@pytest.mark.slow
@pytest.mark.parametrize("problem", PROBLEMS)
def test_tree_and_generic_encodings_agree_up_to_7_nodes(problem: str) -> None:
    found = disagreements(7, problem, "sat")
    assert not found, "\n".join(found)


def test_applies() -> None:
    assert tree_applies(parse_instance("fattree:8:exp", "all-port", "total-exchange"))
    assert tree_applies(parse_instance("star:5", "all-port:c=2", "gossip:chunks=2"))
    assert not tree_applies(parse_instance("ring:5", "all-port", "gossip"))
    assert not tree_applies(parse_instance("path:5", "single-port", "gossip"))
    assert not tree_applies(parse_instance("path:5", "all-port:calls=1", "gossip"))
    assert not tree_applies(parse_instance("path:5", "all-port", "broadcast:0,4"))
    with pytest.raises(UnsupportedModelError):
        TreeEncoding(parse_instance("ring:5", "all-port", "gossip"))
    with pytest.raises(UnsupportedModelError):
        solve(parse_instance("ring:5", "all-port", "gossip"), encoding="tree")


def test_auto_picks_the_tree_encoding() -> None:
    inst = parse_instance("fattree:4:exp", "all-port", "total-exchange")
    assert isinstance(encoding_for(inst, EncodingOptions.for_search()), TreeEncoding)
    assert not isinstance(encoding_for(inst, EncodingOptions.for_search(tree=False)), TreeEncoding)
    assert not isinstance(encoding_for(inst, EncodingOptions()), TreeEncoding)  # old certificates
    res = solve(inst)
    assert res.options.tree and res.status == "optimal" and res.optimum == 6


def test_arcs_of_each_packet() -> None:
    # fattree:4: leaves 0..3, level-1 routers 4 (over 0, 1) and 5 (over 2, 3), root 6
    enc = TreeEncoding(parse_instance("fattree:4", "all-port", "total-exchange"))
    p = enc.instance.packet_index([0, 3])
    assert enc.paths[p] == {(0, 4): 1, (4, 6): 2, (5, 3): 4, (6, 5): 3}
    assert enc.into[p] == {4: (0, 4), 6: (4, 6), 5: (6, 5), 3: (5, 3)}
    gossip = TreeEncoding(parse_instance("path:4", "all-port", "gossip"))
    assert sorted(gossip.paths[0]) == [(0, 1), (1, 2), (2, 3)]  # node 0's packet, to all


def satisfied(formula: Formula, values: dict[int, bool]) -> bool:
    """Whether every constraint whose variables all have values holds."""

    def val(lit: int) -> bool | None:
        v = values.get(abs(lit))
        return None if v is None else (v if lit > 0 else not v)

    for item in formula.items:
        vals = [val(lit) for lit in item[1]]
        if None in vals:
            continue
        if item[0] == "or" and not any(vals):
            return False
        if item[0] == "amo" and sum(vals) > 1:
            return False
        if item[0] == "le" and sum(vals) > item[2]:
            return False
    return True


@pytest.mark.parametrize(
    ("graph", "problem"),
    [
        ("fattree:8", "total-exchange"),
        ("fattree:8:exp", "total-exchange"),
        ("fattree:8", "scatter:0"),
    ],
)
def test_hint_along_a_schedule_satisfies_the_formula(graph: str, problem: str) -> None:
    inst = parse_instance(graph, "all-port", problem)
    schedule = farthest_first_routes(inst)
    enc = TreeEncoding(inst, EncodingOptions(symmetry=False))
    r = len(schedule)
    enc.extend_to(r)
    hint = enc.hint(schedule, r)
    assert satisfied(enc.formula, hint)
    # and the decoding of that assignment is the schedule's first crossings, all demands met
    from gossipcert.simulate import simulate

    decoded = enc.decode(r, lambda v: hint.get(v, False))
    rep = simulate(inst, decoded)
    assert rep.ok and rep.rounds == r
    # a packet that crosses its first arc one round late breaks the formula within r rounds
    p = max(range(inst.n_packets), key=lambda q: len(enc.paths[q]))
    first = min(enc.paths[p], key=enc.paths[p].get)  # type: ignore[arg-type]
    late = dict(hint)
    late[enc.formula.var(("T", p, *first, enc.paths[p][first]))] = False
    assert hint[enc.formula.var(("T", p, *first, enc.paths[p][first]))] or not satisfied(
        enc.formula, late
    )


def test_certificate_of_the_tree_encoding_rechecks() -> None:
    res = solve(parse_instance("fattree:4:exp", "all-port", "total-exchange"))
    assert res.evidence["kind"] == "drat" and res.evidence["encoding"]["tree"] is True
    cert = build_certificate(res)
    assert check_certificate(cert).ok
    # the same proof does not fit the generic encoding's CNF
    cert["evidence"]["encoding"]["tree"] = False
    assert not check_certificate(cert).ok


def test_cpsat_with_the_tree_encoding() -> None:
    for graph, optimum in (("fattree:4:exp", 6), ("fattree:4", 7)):
        inst = parse_instance(graph, "all-port", "total-exchange")
        res = solve(inst, backend="cpsat", encoding="tree", use_bounds=False)
        assert res.status == "optimal" and res.optimum == optimum


def test_work_conserving_rule_forbids_an_idle_arc() -> None:
    """Scatter from 0 on path:3: an idle arc 0 -> 1 in round 1 is allowed by the plain
    formula and ruled out by the work-conserving one (both packets wait at node 0)."""
    from pysat.solvers import Solver

    inst = parse_instance("path:3", "all-port", "scatter:0")
    verdicts = []
    for eager in (False, True):
        enc = TreeEncoding(inst, EncodingOptions(eager=eager))
        enc.extend_to(3)
        enc.require(3)
        idle = [[-enc.formula.var(("T", p, 0, 1, 1))] for p in range(2)]
        with Solver(name="cadical195", bootstrap_with=enc.formula.cnf_since(0) + idle) as s:
            verdicts.append(s.solve())
    assert verdicts == [True, False]
