"""The four-phase protocol of Bermond, Gargano and Pérennes for sequential gossip with
``p``-block calls: Examples 3.1 and 3.2 phase by phase, Theorem 3.1 and the lower bounds of
section 2 over a range of ``n`` and ``p``, and every schedule through the verifier.

Tables are written in the paper's notation: ``[a,b]`` is the cyclic run of blocks
``a, a+1, ..., b`` (mod ``n``), ``[a]`` one block, ``ALL`` every block.
"""

from __future__ import annotations

import math
import re

import pytest

from gossipcert.constructions.bermond import bermond, bermond_knowledge_tables, bermond_protocol
from gossipcert.constructions.bermond_counts import (
    bermond_call_count,
    lower_bound,
    theorem_3_1_bound,
    type_k_count,
)
from gossipcert.constructions.bermond_phases import split_n
from gossipcert.errors import NotApplicableError
from gossipcert.instance import parse_instance
from gossipcert.simulate import simulate


def blocks(text: str, n: int) -> frozenset[int]:
    """The blocks of the paper's notation ``[a,b][c]...`` or ``ALL``."""
    if text == "ALL":
        return frozenset(range(n))
    out: set[int] = set()
    for a, b in re.findall(r"\[(\d+)(?:,(\d+))?\]", text):
        first, last = int(a), int(b or a)
        out.update((first + t) % n for t in range((last - first) % n + 1))
    return frozenset(out)


def table(text: str, n: int) -> dict[int, frozenset[int]]:
    """Rows ``label[*] intervals`` of a printed table."""
    rows: dict[int, frozenset[int]] = {}
    for line in text.strip().splitlines():
        label, intervals = line.split(maxsplit=1)
        rows[int(label.rstrip("*"))] = blocks(intervals.replace(" ", ""), n)
    return rows


def starred(text: str) -> set[int]:
    return {int(line.split()[0][:-1]) for line in text.strip().splitlines() if "*" in line}


def label_pairs(n: int, p: int, stage: str) -> list[tuple[int, int]]:
    """The calls of a stage, as pairs of labels (after the relabelling of phase 2)."""
    proto = bermond_protocol(n, p)
    label_of = {node: label for label, node in enumerate(proto.node_of_label)}
    return [(label_of[c.u], label_of[c.v]) for c in proto.calls if c.stage == stage]


# ----------------------------------------------------------------------------- Example 3.1

EX31_PHASE1 = """
0 [0,1]
1 [0,2]
2 [0,3]
3 [0,6]
4 [0,4]
5 [1,5]
6* [2,9]
7 [3,7]
8 [4,8]
9* [5,12]
10 [6,10]
11 [7,11]
12* [8,15]
13 [9,13]
14 [10,14]
15 [11,15]
"""

EX31_PHASE2_BEFORE = """
0 [0,1][13,15]
1 [0,2][14,15]
2 [0,3][12,15]
3 [0,6][15]
4 [0,4]
5 [1,5]
6 [2,9]
7 [3,7]
8 [4,8]
9 [5,12]
10 [6,10]
11 [7,11]
12 [8,15]
13 [9,13]
14 [10,14]
15 [11,15][0,2]
"""

EX31_PHASE2_AFTER = """
0* [12,3]
1 [13,4]
2 [14,2]
3* [15,6]
4 [0,4]
5 [1,5]
6* [2,9]
7 [3,7]
8 [4,8]
9* [5,12]
10 [6,10]
11 [7,11]
12* [8,15]
13 [9,13]
14 [10,14]
15* [11,2]
"""

EX31_STEP1_TYPE1 = """
0* [12,3][8,11]
1 [13,1][2,5]
2 [14,2][3,6][10,13]
3* [15,6][11,5]
4 [0,4][5,8]
5 [1,5][6,9]
6* [2,9][14,1]
7 [3,7][8,11][15,2]
8 [4,8][9,12]
9* [5,12][1,4]
10 [6,10][11,14][2,5]
11 [7,11][12,15]
12* [8,15][4,7]
13 [9,13][14,1][5,8]
14 [10,14][15,2]
15* [11,2][7,10]
"""

EX31_STEP1_TYPEK = """
0* [12,3][8,11][4,7]
1 [13,1][2,5][9,12]
2 [14,2][3,6][10,13]
3* [15,6][11,5][7,10]
4 [0,4][5,8][12,15]
5 [1,5][6,9][13,0]
6* [2,9][14,1][10,13]
7 [3,7][8,11][15,2]
8 [4,8][9,12][0,3]
9* [5,12][1,4][13,0]
10 [6,10][11,14][2,5]
11 [7,11][12,15][3,6]
12* [8,15][4,7][0,3]
13 [9,13][14,1][5,8]
14 [10,14][15,2][6,9]
15* [11,2][7,10][3,6]
"""

EX31_PHASE3 = """
0* ALL
1 [9,5]
2 [10,6]
3* ALL
4 [12,8]
5 [13,9]
6* ALL
7 [15,11]
8 [0,12]
9* ALL
10 [2,14]
11 [3,15]
12* ALL
13 [5,1]
14 [6,2]
15* ALL
"""


def test_example_3_1_shape() -> None:
    proto = bermond_protocol(16, 4)
    assert (proto.h, proto.k) == (3, 4)  # "this implies k = 4"
    assert proto.notes == ()
    assert [stage for stage in proto.tables] == [
        "phase 1",
        "phase 2",
        "phase 3.1 type 1",
        "phase 3.1 type k",
        "phase 3",
        "phase 4",
    ]
    # phases of n - 1, p, h'n = 16 and ceil((n - ceil(n/(k-1)))/2) = 5 calls
    assert [sum(c.phase == ph for c in proto.calls) for ph in (1, 2, 3, 4)] == [15, 4, 16, 5]


def test_example_3_1_phase_1() -> None:
    tables = bermond_knowledge_tables(16, 4)
    assert dict(enumerate(tables["phase 1"])) == table(EX31_PHASE1, 16)


def test_example_3_1_phase_2() -> None:
    proto = bermond_protocol(16, 4)
    assert dict(enumerate(proto.table("phase 2"))) == table(EX31_PHASE2_BEFORE, 16)
    # relabelled: 0 -> 1, 1 -> 2 (Case 1), 2 -> 0 (Case 2)
    assert proto.node_of_label[:3] == (2, 0, 1)
    after = table(EX31_PHASE2_AFTER, 16)
    # the paper prints "1 [13,4]"; label 1 is node 0, which knows [0,1][13,15] = [13,1]
    # (the first column of the same table), the type-1 property [1 - p, 1]
    assert after[1] == blocks("[13,4]", 16)
    after[1] = blocks("[13,1]", 16)
    assert dict(enumerate(proto.table("phase 2", by_label=True))) == after
    assert set(proto.type_k) == starred(EX31_PHASE2_AFTER)


def test_example_3_1_phase_3() -> None:
    tables = bermond_knowledge_tables(16, 4, by_label=True)
    assert dict(enumerate(tables["phase 3.1 type 1"])) == table(EX31_STEP1_TYPE1, 16)
    assert dict(enumerate(tables["phase 3.1 type k"])) == table(EX31_STEP1_TYPEK, 16)
    assert dict(enumerate(tables["phase 3"])) == table(EX31_PHASE3, 16)
    # the calls of step 1 are {i, i + p + 1}, those of type-1 nodes i first
    pairs = label_pairs(16, 4, "phase 3.1 type 1") + label_pairs(16, 4, "phase 3.1 type k")
    assert [b for _, b in pairs] == [(a + 5) % 16 for a, _ in pairs]
    assert [a for a, _ in pairs] == [1, 2, 4, 5, 7, 8, 10, 11, 13, 14, 0, 3, 6, 9, 12, 15]


def test_example_3_1_last_phase() -> None:
    # "the calls that complete the protocol are between nodes 1 and 8, 2 and 10, 4 and 11,
    # 5 and 13, 7 and 14"
    assert label_pairs(16, 4, "phase 4") == [(1, 8), (2, 10), (4, 11), (5, 13), (7, 14)]
    assert all(row == frozenset(range(16)) for row in bermond_knowledge_tables(16, 4)["phase 4"])


# ----------------------------------------------------------------------------- Example 3.2

EX32_PHASE1 = """
0 [0,1]
1 [0,2]
2 [0,3]
3 [0,4]
4 [0,5]
5 [0,6]
6 [0,7]
7 [0,8]
8 [0,11]
9 [0,9]
10 [1,10]
11* [2,14]
12 [3,12]
13 [4,13]
14* [5,17]
15 [6,15]
16 [7,16]
17* [8,20]
18 [9,18]
19 [10,19]
20 [11,21]
21 [12,21]
"""

EX32_PHASE2_BEFORE = """
0 [0,1][14,21]
1 [0,2][13,21]
2 [0,3][16,21]
3 [0,4][17,21]
4 [0,5][15,21]
5 [0,6][19,21]
6 [0,7][20,21]
7 [0,8][18,21]
8 [0,11][21]
9 [0,9]
10 [1,10]
11* [2,14]
12 [3,12]
13 [4,13]
14* [5,17]
15 [6,15]
16 [7,16]
17* [8,20]
18 [9,18]
19 [10,19]
20 [11,21]
21 [12,21]
"""

EX32_PHASE2_AFTER = """
0 [0,2][13,21]
1 [0,1][14,21]
2 [0,5][15,21]
3 [0,3][16,21]
4 [0,4][17,21]
5 [0,8][18,21]
6 [0,6][19,21]
7 [0,7][20,21]
8 [0,11][21]
9 [0,9]
10 [1,10]
11 [2,14]
12 [3,12]
13 [4,13]
14 [5,17]
15 [6,15]
16 [7,16]
17 [8,20]
18 [9,18]
19 [10,19]
20 [11,21]
21 [12,21][0,2]
"""

EX32_TYPES = """
0 [13,0]
1 [14,1]
2* [15,5]
3 [16,3]
4 [17,4]
5* [18,8]
6 [19,6]
7 [20,7]
8* [21,11]
9 [0,9]
10 [1,10]
11* [2,14]
12 [3,12]
13 [4,13]
14* [5,17]
15 [6,15]
16 [7,16]
17* [8,20]
18 [9,18]
19 [10,19]
20* [11,21]
21* [12,2]
"""

# the type-1 nodes relabelled 0 .. 13: own blocks, blocks from j + 6, blocks of j - 6
EX32_LAST = """
0 [13,0] [1,9] [4,12]
1 [14,1] [2,10] [5,13]
2 [16,3] [4,12] [7,15]
3 [17,4] [5,13] [6,16]
4 [19,6] [7,15] [10,18]
5 [20,7] [8,16] [11,19]
6 [0,9] [10,18] [13,21]
7 [1,10] [11,19] [0,14]
8 [3,12] [13,21] [16,2]
9 [4,13] [14,0] [17,3]
10 [6,15] [16,2] [19,5]
11 [7,16] [17,3] [20,6]
12 [9,18] [19,5] [6,8]
13 [10,19] [20,6] [7,9]
"""


def test_example_3_2_shape() -> None:
    proto = bermond_protocol(22, 9)
    assert (proto.h, proto.k) == (2, 4)  # "this implies k = 4"
    assert proto.notes == ()
    # h' = floor((h - 1)/2) = 0: no step in phase 3
    assert list(proto.tables) == ["phase 1", "phase 2", "phase 3", "phase 4 type k", "phase 4"]
    assert proto.tables["phase 3"] == proto.tables["phase 2"]
    # phases of n - 1, p, 0 and ceil(N_k/2) + n - N_k = 4 + 14 calls
    assert [sum(c.phase == ph for c in proto.calls) for ph in (1, 2, 3, 4)] == [21, 9, 0, 18]


def test_example_3_2_phase_1() -> None:
    tables = bermond_knowledge_tables(22, 9)
    assert dict(enumerate(tables["phase 1"])) == table(EX32_PHASE1, 22)


def test_example_3_2_phase_2() -> None:
    proto = bermond_protocol(22, 9)
    # the relabelling l(0) = 1, l(1) = 0, l(2) = 3, l(3) = 4, l(4) = 2, l(5) = 6, l(6) = 7,
    # l(7) = 5
    relabel = {0: 1, 1: 0, 2: 3, 3: 4, 4: 2, 5: 6, 6: 7, 7: 5}
    assert all(proto.node_of_label[new] == old for old, new in relabel.items())
    # The paper leaves two rows of this table as they were after phase 1. In the first call
    # of phase 2 node p - 1 + Delta(k-1) = 20 receives [0, p - 1 + (Delta+1)(k-1) - n] =
    # [0,1] from node 8, so it knows [11,1] (its type-k property [20 - p, 20 + k - 1], and the
    # table marks it 20*); node 21 learns [0,2] from the nodes 0 .. 7, as the relabelled
    # column shows.
    before = table(EX32_PHASE2_BEFORE, 22)
    before[20], before[21] = blocks("[11,1]", 22), blocks("[12,2]", 22)
    assert dict(enumerate(proto.table("phase 2"))) == before
    after = table(EX32_PHASE2_AFTER, 22)
    after[20] = blocks("[11,1]", 22)
    assert dict(enumerate(proto.table("phase 2", by_label=True))) == after
    # the last column: each label has (at least) its type property, and the stars are
    # the type-k nodes, i = p - 1 (mod k - 1) and n - 1
    knowledge = proto.table("phase 2", by_label=True)
    for label, printed in table(EX32_TYPES, 22).items():
        assert printed <= knowledge[label]
    assert set(proto.type_k) == starred(EX32_TYPES) == {2, 5, 8, 11, 14, 17, 20, 21}


def test_example_3_2_last_phase() -> None:
    n, p = 22, 9
    proto = bermond_protocol(n, p)
    # "The calls between nodes of type k are between nodes 2 and 14, 5 and 17, 8 and 20,
    # 14 and 21": 14 cannot call twice; the fourth pair is 11 and 21 (the ceil(8/2) = 4
    # calls pair the j-th type-k node with the (j + 4)-th, as the first three do)
    assert label_pairs(n, p, "phase 4 type k") == [(2, 14), (5, 17), (8, 20), (11, 21)]
    # type-1 nodes relabelled 0 .. 13; node j calls j + q, q = p - floor((p+1)/(k-1)) = 6
    ones = [i for i in range(n) if i not in proto.type_k]
    assert len(ones) == 14
    assert label_pairs(n, p, "phase 4") == [(ones[j], ones[(j + 6) % 14]) for j in range(14)]
    start = proto.table("phase 4 type k", by_label=True)
    received = {
        (label_of_call[0], label_of_call[1]): call
        for label_of_call, call in zip(
            label_pairs(n, p, "phase 4"),
            [c for c in proto.calls if c.stage == "phase 4"],
            strict=True,
        )
    }
    rows = [line.split() for line in EX32_LAST.strip().splitlines()]
    # two misprints: in row 3 the last partner (label 16) knows [7,16], not [6,16]; in
    # row 7 the blocks of the last partner (label 1, [14,1]) that node 10 misses are [14,0]
    rows[3][3], rows[7][3] = "[7,16]", "[14,0]"
    for j, own, ahead, behind in rows:
        a = ones[int(j)]
        forward, backward = ones[(int(j) + 6) % 14], ones[(int(j) - 6) % 14]
        own_set, ahead_set, behind_set = (blocks(x, n) for x in (own, ahead, behind))
        assert own_set <= start[a]
        # j receives from j + 6 exactly the p blocks printed ...
        got = received[(a, forward)].to_u
        assert {b for b in range(n) if got >> b & 1} == ahead_set
        # ... and from j - 6 blocks it misses among those printed, which j - 6 knows
        got = received[(backward, a)].to_v
        assert {b for b in range(n) if got >> b & 1} <= behind_set <= start[backward]
        assert own_set | ahead_set | behind_set == frozenset(range(n))
    assert all(row == frozenset(range(n)) for row in proto.table("phase 4"))


# ----------------------------------------------------------------------------- Theorem 3.1

RANGE = [(n, p) for p in range(2, 9) for n in range(p + 2, 6 * p + 8)]


@pytest.mark.parametrize("p", range(2, 9))
def test_schedules_are_valid_and_as_long_as_counted(p: int) -> None:
    for n in range(p + 2, 6 * p + 8):
        inst = parse_instance(f"complete:{n}", f"sequential:p={p}", "gossip")
        schedule = bermond(inst)
        report = simulate(inst, schedule)
        assert report.ok, (n, p, report.errors[:3])
        assert report.rounds == report.length == bermond_call_count(n, p)
        # one call per round, at most p explicit packets each way
        for rnd in schedule.rounds:
            assert len(rnd) == 2 and rnd[0].sender == rnd[1].receivers[0]
            assert all(tr.packets is not None and tr.packets.bit_count() <= p for tr in rnd)


@pytest.mark.parametrize(("n", "p"), RANGE)
def test_theorem_3_1_and_lower_bounds(n: int, p: int) -> None:
    calls = len(bermond_protocol(n, p).calls)
    assert calls == bermond_call_count(n, p)
    # Theorem 3.1: at most n^2/2p + (1 - k/2p - 1/(2(k-1))) n + p calls
    assert calls <= theorem_3_1_bound(n, p) + 1e-9
    # never below the lower bounds (1) and (2), and within p of (2)
    assert calls >= lower_bound(n, p)
    assert calls - (theorem_3_1_bound(n, p) - p) <= p + 1e-9


@pytest.mark.parametrize(("n", "p"), RANGE)
def test_type_k_count_against_the_paper(n: int, p: int) -> None:
    # Section 3 counts ceil(n/(k-1)) type-k nodes. When n - 1 is not p - 1 (mod k - 1)
    # while that residue already occurs ceil(n/(k-1)) times among 0 .. n-1, n - 1 is one
    # more (e.g. n = 6, p = 3: labels 0, 2, 4 and 5), and phase 4 needs at most one call
    # fewer than the paper's count.
    proto = bermond_protocol(n, p)
    _, k = split_n(n, p)
    paper = math.ceil(n / (k - 1))
    assert len(proto.type_k) == type_k_count(n, p) in (paper, paper + 1)
    paper_calls = bermond_call_count(n, p, type_k=paper)
    assert len(proto.calls) in (paper_calls, paper_calls - 1)
    if len(proto.type_k) == paper:
        assert len(proto.calls) == paper_calls


def test_n_equals_p_plus_k_small_cases() -> None:
    # the smallest n the theorem covers, n = p + 2 (h = 1, k = 2: every node is of type k)
    for p in range(2, 12):
        proto = bermond_protocol(p + 2, p)
        assert (proto.h, proto.k) == (1, 2)
        assert len(proto.calls) == (p + 2) - 1 + p  # phases 1 and 2 only
        assert all(row == frozenset(range(p + 2)) for row in proto.table("phase 4"))


@pytest.mark.parametrize(
    ("n", "p", "note"),
    [
        # the paper's q = p - floor((p+1)/(k-1)) leaves a type-1 node short; another q works
        (17, 6, "some type-1 node cannot get"),
        (15, 3, "some type-1 node cannot get"),
        # n = 3p: for no q do two partners know all a node misses; blocks are relayed
        (9, 3, "for no q"),
        (24, 8, "for no q"),
    ],
)
def test_last_phase_where_the_papers_q_fails(n: int, p: int, note: str) -> None:
    # Last Phase, Case 2: "let node i call node i + p - floor((p+1)/(k-1)). Each node is
    # involved in 2 calls. This implies each node can learn the p + k - 1 blocks it does not
    # know yet." -- not for every (n, p); the number of calls stays N_1 all the same
    proto = bermond_protocol(n, p)
    assert proto.h % 2 == 0
    assert len(proto.notes) == 1 and note in proto.notes[0]
    inst = parse_instance(f"complete:{n}", f"sequential:p={p}", "gossip")
    report = simulate(inst, bermond(inst))
    assert report.ok
    assert report.length == bermond_call_count(n, p) <= theorem_3_1_bound(n, p)


# ----------------------------------------------------------------------------- refusals


@pytest.mark.parametrize(
    ("graph", "model", "problem"),
    [
        ("complete:10", "sequential:p=1", "gossip"),  # p >= 2
        ("complete:5", "sequential:p=4", "gossip"),  # n >= p + 2
        ("ring:10", "sequential:p=2", "gossip"),  # complete graph
        ("complete:10", "sequential", "gossip"),  # a packet cap
        ("complete:10", "half-duplex:p=2", "gossip"),  # telephone calls
        ("complete:10", "sequential:p=2", "broadcast:0"),  # gossip
    ],
)
def test_refuses_what_it_does_not_fit(graph: str, model: str, problem: str) -> None:
    with pytest.raises(NotApplicableError):
        bermond(parse_instance(graph, model, problem))


def test_plain_telephone_with_cap_is_accepted() -> None:
    # one call per round is valid under any telephone model with the same packet cap
    inst = parse_instance("complete:13", "telephone:p=4", "gossip")
    assert simulate(inst, bermond(inst)).ok
