"""NCCL's tree allreduce: its trees against NCCL's own rules, its schedules replayed by the
verifier over ranges of sizes, against a closed form and the certified optima."""

from __future__ import annotations

import pytest

from gossipcert.constructions.nccl_tree import btree, dtree, nccl_tree_allreduce, tree_parents
from gossipcert.errors import NotApplicableError
from gossipcert.instance import parse_instance
from gossipcert.simulate import simulate
from gossipcert.watchdog import solve_within


def _nccl_btree(nranks: int, rank: int) -> tuple[int, int, int]:
    """``ncclGetBtree`` of src/graph/trees.cc step by step, with its loops as NCCL has them
    (the oracle the module's own formulation is checked against)."""
    bit = 1
    while bit < nranks:
        if bit & rank:
            break
        bit <<= 1
    if rank == 0:
        return -1, -1, (bit >> 1 if nranks > 1 else -1)
    up = (rank ^ bit) | (bit << 1)
    if up >= nranks:
        up = rank ^ bit
    lowbit = bit >> 1
    down0 = -1 if lowbit == 0 else rank - lowbit
    down1 = -1 if lowbit == 0 else rank + lowbit
    while down1 >= nranks:
        down1 = -1 if lowbit == 0 else rank + lowbit
        lowbit >>= 1
    return up, down0, down1


@pytest.mark.parametrize("nodes", range(1, 70))
def test_btree_is_nccls(nodes: int) -> None:
    assert [btree(nodes, x) for x in range(nodes)] == [_nccl_btree(nodes, x) for x in range(nodes)]


@pytest.mark.parametrize("ranks", range(1, 40))
def test_two_spanning_trees(ranks: int) -> None:
    for t, parents in enumerate(tree_parents(ranks, 1)):
        roots = [r for r, p in enumerate(parents) if p < 0]
        assert len(roots) == 1
        for r in range(ranks):  # every rank reaches the root, parents and children agree
            seen, x = set(), r
            while parents[x] >= 0:
                assert x not in seen
                seen.add(x)
                links = dtree(ranks, parents[x])[t]
                assert x in links[1:]
                x = parents[x]
            assert x == roots[0]
        kids = [sum(1 for p in parents if p == r) for r in range(ranks)]
        assert max(kids, default=0) <= 2
    if ranks % 2 == 0 and ranks > 1:  # the mirror: every rank is a leaf of one tree
        leaves = [
            {r for r in range(ranks) if r not in parents} for parents in tree_parents(ranks, 1)
        ]
        assert leaves[0] | leaves[1] == set(range(ranks))


def test_chain_inside_nodes() -> None:
    first, second = tree_parents(8, 4)  # two nodes of four: chains under their heads 0 and 4
    assert first == [-1, 0, 1, 2, 0, 4, 5, 6]
    assert second == [4, 0, 1, 2, -1, 4, 5, 6]
    with pytest.raises(NotApplicableError):
        tree_parents(6, 4)


@pytest.mark.parametrize("n", range(3, 21))
def test_chain_on_a_ring_closed_form(n: int) -> None:
    """One node whose GPUs form a ring: the chain follows it; chunk ``c`` reaches the root
    ``n - 1`` rounds after it leaves the last rank and is back there ``n - 1`` later, one
    chunk a round behind the one before: ``3 (n - 1)`` rounds for ``n`` chunks."""
    inst = parse_instance(f"ring:{n}", "all-port", "allreduce")
    report = simulate(inst, nccl_tree_allreduce(inst, n))
    assert report.ok
    assert report.rounds == 3 * (n - 1)


@pytest.mark.parametrize("n", range(2, 19))
@pytest.mark.parametrize("model", ["all-port", "single-port:p=1"])
def test_double_binary_tree_valid(n: int, model: str) -> None:
    for problem in ("allreduce", "allreduce:chunks=2", "allreduce:redop=max"):
        inst = parse_instance(f"complete:{n}", model, problem)
        report = simulate(inst, nccl_tree_allreduce(inst))
        assert report.ok, report.errors[:3]


@pytest.mark.parametrize("gpus_per_node", [1, 2, 4, 8, 16])
def test_through_the_switch(gpus_per_node: int) -> None:
    inst = parse_instance("dgx2", "all-port", "allreduce")
    report = simulate(inst, nccl_tree_allreduce(inst, gpus_per_node))
    assert report.ok, report.errors[:3]
    assert report.rounds >= 17  # the cut bound at the switch (solve's lower end)


@pytest.mark.parametrize(
    ("graph", "model", "per_node"),
    [
        ("complete:4", "all-port", 1),
        ("complete:5", "all-port", 1),
        ("complete:6", "single-port:p=1", 1),
        ("ring:5", "all-port", 5),
        ("complete:4", "all-port", 2),
    ],
)
def test_never_below_the_optimum(graph: str, model: str, per_node: int) -> None:
    inst = parse_instance(graph, model, "allreduce")
    rounds = simulate(inst, nccl_tree_allreduce(inst, per_node)).rounds
    best = solve_within(inst, time_limit=60)
    assert best.lower_bound is not None and best.lower_bound <= rounds


def test_refusals() -> None:
    ring = parse_instance("ring:8", "all-port", "allreduce")
    with pytest.raises(NotApplicableError, match="through GPU"):
        nccl_tree_allreduce(ring)  # rank 0's child 4 is four GPUs away
    with pytest.raises(NotApplicableError):
        nccl_tree_allreduce(parse_instance("ring:4", "all-port", "gossip"))
    with pytest.raises(NotApplicableError):
        nccl_tree_allreduce(parse_instance("ring:4", "telephone", "allreduce"), 4)
