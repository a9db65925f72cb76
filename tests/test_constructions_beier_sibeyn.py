"""Beier and Sibeyn: row/column schedules (Lemmas 1, 2, 5) and the Table 6 matching sequences.

Measured: paths, cycles, tori and meshes with an odd side take exactly the lemmas' rounds.
Meshes with all sides even: the schedule has the stated ``a + b - 1`` (Lemma 2 (4)) resp.
``sum(a_i) - d + 1`` (Lemma 5) rounds, but gossip is complete one round earlier, at the
diameter ``sum(a_i - 1)``, which is optimal. Every legible sequence of Table 6 gossips in
exactly its stated number of rounds (CCC_3..12, Butterfly_3..12, Star_3..8, Pancake_3..8;
the largest ones are marked slow).
"""

from __future__ import annotations

import pytest

from gossipcert import graphs
from gossipcert.constructions.beier_sibeyn import (
    grid_shape,
    line_rounds,
    rows_columns,
    rows_columns_claim,
)
from gossipcert.constructions.beier_sibeyn_matchings import (
    TABLE_6,
    coloring_matchings,
    matching_sequence,
)
from gossipcert.errors import NotApplicableError, SpecError
from gossipcert.instance import make_instance, parse_instance, parse_model, parse_problem
from gossipcert.schedule import Schedule
from gossipcert.simulate import simulate

TELEPHONE = parse_model("telephone")
GOSSIP = parse_problem("gossip")

# ----------------------------------------------------------------------------- Lemma 1


@pytest.mark.parametrize("n", range(1, 16))
def test_lemma_1_paths(n: int) -> None:
    inst = parse_instance(f"path:{n}", "telephone", "gossip")
    rep = simulate(inst, rows_columns(inst))
    assert rep.ok, rep.errors[:3]
    # n - 1 for even n, n for odd n (one extra round)
    assert rep.rounds == rep.length == (n - 1 if n % 2 == 0 else n if n > 1 else 0)


@pytest.mark.parametrize("n", range(3, 20))
def test_lemma_1_cycles(n: int) -> None:
    inst = parse_instance(f"ring:{n}", "telephone", "gossip")
    rep = simulate(inst, rows_columns(inst))
    assert rep.ok, rep.errors[:3]
    assert rep.rounds == rep.length == (n // 2 if n % 2 == 0 else n // 2 + 2)


def test_lemma_1_odd_cycle_idles_node_i_in_round_i() -> None:
    rounds = line_rounds(list(range(7)), closed=True)
    for t, calls in enumerate(rounds, start=1):
        busy = {v for call in calls for v in call}
        assert busy == set(range(7)) - {t % 7}


# ----------------------------------------------------------------------------- Lemma 2


def _paper_mesh(rows: int, cols: int) -> int:
    """Lemma 2's rounds, the row length a even whenever one side is even."""
    a, b = (cols, rows) if cols % 2 == 0 or rows % 2 else (rows, cols)
    if a % 2 == 0:
        return a + b - 1  # (4) and (5)
    return a + b  # (6)


def _cycle(n: int) -> int:
    return n // 2 if n % 2 == 0 else n // 2 + 2


@pytest.mark.parametrize("rows", range(2, 9))
@pytest.mark.parametrize("cols", range(2, 9))
def test_lemma_2_meshes(rows: int, cols: int) -> None:
    inst = parse_instance(f"mesh:{rows}x{cols}", "telephone", "gossip")
    sched = rows_columns(inst)
    rep = simulate(inst, sched)
    assert rep.ok, rep.errors[:3]
    claim = _paper_mesh(rows, cols)
    assert len(sched) == rows_columns_claim(inst) == claim
    if rows % 2 == 0 and cols % 2 == 0:
        # the construction beats its lemma by one round: done at the diameter
        assert rep.rounds == claim - 1 == rows + cols - 2
    else:
        assert rep.rounds == claim


@pytest.mark.parametrize("rows", range(3, 9))
@pytest.mark.parametrize("cols", range(3, 9))
def test_lemma_2_tori(rows: int, cols: int) -> None:
    inst = parse_instance(f"torus:{rows}x{cols}", "telephone", "gossip")
    rep = simulate(inst, rows_columns(inst))
    assert rep.ok, rep.errors[:3]
    # a/2 + b/2, floor(a/2) + b/2 + 2, floor(a/2) + floor(b/2) + 4
    assert rep.rounds == rep.length == _cycle(rows) + _cycle(cols)


def test_lemma_2_torus_formulas_spelled_out() -> None:
    for spec, expected in (("torus:6x8", 3 + 4), ("torus:5x8", 2 + 4 + 2), ("torus:5x7", 9)):
        inst = parse_instance(spec, "telephone", "gossip")
        assert simulate(inst, rows_columns(inst)).rounds == expected


# ----------------------------------------------------------------------------- Lemma 5


@pytest.mark.parametrize(
    "spec", ["path:4*path:4*path:2", "path:2*path:2*path:2*path:2", "mesh:2x4*path:6"]
)
def test_lemma_5_even_meshes(spec: str) -> None:
    inst = parse_instance(spec, "telephone", "gossip")
    sides, torus = grid_shape(inst.graph)
    sched = rows_columns(inst)
    rep = simulate(inst, sched)
    assert rep.ok and not torus
    assert len(sched) == sum(sides) - len(sides) + 1  # Lemma 5
    assert rep.rounds == sum(a - 1 for a in sides)  # one round better: the diameter


@pytest.mark.parametrize(
    "spec", ["ring:4*ring:4*ring:4", "ring:4*ring:6*ring:8", "ring:3*ring:4*ring:5"]
)
def test_lemma_5_tori(spec: str) -> None:
    inst = parse_instance(spec, "telephone", "gossip")
    sides, torus = grid_shape(inst.graph)
    rep = simulate(inst, rows_columns(inst))
    assert rep.ok and torus
    assert rep.rounds == sum(_cycle(a) for a in sides)  # sum a_i / 2 when all even


def test_odd_sided_meshes_in_three_dimensions_use_single_lines() -> None:
    inst = parse_instance("path:3*path:4*path:2", "telephone", "gossip")
    rep = simulate(inst, rows_columns(inst))
    assert rep.ok and rep.rounds == 3 + 3 + 1


@pytest.mark.parametrize(
    ("spec", "model"),
    [
        ("mesh:3x4", "half-duplex"),
        ("mesh:3x4", "telephone:p=1"),
        ("mesh:3x4", "sequential"),
        ("path:3*ring:4", "telephone"),
        ("petersen", "telephone"),
    ],
)
def test_rows_columns_not_applicable(spec: str, model: str) -> None:
    with pytest.raises(NotApplicableError):
        rows_columns(parse_instance(spec, model, "gossip"))


def test_rows_columns_also_broadcasts() -> None:
    inst = parse_instance("torus:4x6", "telephone", "broadcast:5")
    assert simulate(inst, rows_columns(inst)).ok


# ----------------------------------------------------------------------------- matchings

MATCHING_GRAPHS = [f"ccc:{k}" for k in range(3, 8)] + [f"butterfly:{k}" for k in range(3, 8)]
MATCHING_GRAPHS += [f"star-graph:{k}" for k in range(3, 7)] + [f"pancake:{k}" for k in range(3, 7)]


@pytest.mark.parametrize("spec", MATCHING_GRAPHS)
def test_matchings_are_perfect_and_partition_the_edges(spec: str) -> None:
    g = graphs.from_spec(spec)
    ms = coloring_matchings(g)
    family, k = spec.split(":")
    expected = {"ccc": 3, "butterfly": 4}.get(family, int(k) - 1)
    assert len(ms) == expected
    seen: list[frozenset[int]] = []
    for m in ms:
        # a perfect matching of edges of the graph
        assert sorted(v for e in m for v in e) == list(range(g.number_of_nodes()))
        assert all(g.has_edge(u, v) for u, v in m)
        seen += [frozenset(e) for e in m]
    # disjoint, and together every edge
    assert len(seen) == len(set(seen)) == g.number_of_edges()
    assert set(seen) == {frozenset(e) for e in g.edges()}


def test_ccc_and_butterfly_matchings_follow_section_8() -> None:
    # CCC_4 (even): M2 is the cross edges; CCC_3 (odd): (i, 0) -- (i, 2) is in M2
    g = graphs.from_spec("ccc:4")
    node = {g.nodes[v]["coords"]: v for v in g}
    m0, m1, m2 = (set(map(frozenset, m)) for m in coloring_matchings(g))
    assert frozenset((node[(5, 0)], node[(5, 1)])) in m0
    assert frozenset((node[(5, 3)], node[(5, 0)])) in m1
    assert frozenset((node[(5, 2)], node[(1, 2)])) in m2
    g = graphs.from_spec("ccc:3")
    node = {g.nodes[v]["coords"]: v for v in g}
    m0, m1, m2 = (set(map(frozenset, m)) for m in coloring_matchings(g))
    assert frozenset((node[(3, 2)], node[(7, 2)])) in m0  # cross edge at (i, k-1)
    assert frozenset((node[(3, 0)], node[(2, 0)])) in m1  # cross edge at (i, 0)
    assert frozenset((node[(3, 0)], node[(3, 2)])) in m2  # cycle edge (i, 0) -- (i, k-1)
    # Butterfly_3 (odd): wrap edge of cycle i in M2 iff 2^(k-2) <= i < 2^(k-1) or i >= 3 2^(k-2)
    g = graphs.from_spec("butterfly:3")
    node = {g.nodes[v]["coords"]: v for v in g}
    ms = [set(map(frozenset, m)) for m in coloring_matchings(g)]
    for i in range(8):
        wrap = frozenset((node[(i, 2)], node[(i, 0)]))
        assert wrap in ms[2 if i in (2, 3, 6, 7) else 3]
        lower = i < 4
        # the cross edge from (i, k-1) to (i xor 2^(k-1), 0): M0 for the lower half, else M1
        assert frozenset((node[(i, 2)], node[(i ^ 4, 0)])) in ms[0 if lower else 1]
        assert frozenset((node[(i, 0)], node[(i, 1)])) in ms[0 if lower else 1]
        assert frozenset((node[(i, 1)], node[(i, 2)])) in ms[1 if lower else 0]


# ----------------------------------------------------------------------------- Table 6


@pytest.mark.parametrize(
    ("spec", "sequence", "rounds"),
    [
        ("pancake:4", "02102", 5),
        ("ccc:3", "0120120", 7),
        ("butterfly:3", "012320", 6),
        ("butterfly:4", "0123023", 7),
        ("ccc:4", "012021202", 9),
        # the other three 5-round schedules of Pancake_4 the paper names (section 8)
        ("pancake:4", "12012", 5),
        ("pancake:4", "20120", 5),
        ("pancake:4", "21021", 5),
    ],
)
def test_named_sequences(spec: str, sequence: str, rounds: int) -> None:
    inst = parse_instance(spec, "telephone", "gossip")
    rep = simulate(inst, matching_sequence(inst, sequence))
    assert rep.ok, rep.errors[:3]
    assert rep.rounds == rep.length == rounds
    # and one round fewer of the same sequence does not gossip
    assert not simulate(inst, matching_sequence(inst, sequence[:-1])).complete


def _big(spec: str) -> bool:
    family, k = spec.split(":")
    return int(k) >= (11 if family in ("ccc", "butterfly") else 8)


@pytest.mark.parametrize(
    "spec",
    [pytest.param(s, marks=pytest.mark.slow) if _big(s) else s for s in TABLE_6],
)
def test_table_6(spec: str) -> None:
    rounds, sequence = TABLE_6[spec]
    assert len(sequence) == rounds
    inst = make_instance(graphs.from_spec(spec), TELEPHONE, GOSSIP)
    rep = simulate(inst, matching_sequence(inst, sequence))
    assert rep.ok, rep.errors[:3]
    assert rep.rounds == rounds


def test_matching_sequence_errors() -> None:
    inst = parse_instance("ccc:3", "telephone", "gossip")
    with pytest.raises(SpecError):
        matching_sequence(inst, "0130")
    with pytest.raises(SpecError):
        matching_sequence(inst, "01a")
    with pytest.raises(NotApplicableError):
        matching_sequence(parse_instance("ccc:3", "half-duplex", "gossip"), "012")
    with pytest.raises(NotApplicableError):
        matching_sequence(parse_instance("hypercube:3", "telephone", "gossip"), "012")


def test_matching_sequence_with_given_matchings() -> None:
    inst = parse_instance("hypercube:3", "telephone", "gossip")
    dims = [[(v, v ^ 1 << d) for v in range(8) if not v >> d & 1] for d in range(3)]
    sched = matching_sequence(inst, "012", dims)
    assert isinstance(sched, Schedule)
    assert simulate(inst, sched).rounds == 3
