"""NCCL's tree allreduce (``NCCL_ALGO_TREE``), written from its published rules.

NCCL runs its tree for allreduce only. The ranks are grouped into **nodes** of ``g``
consecutive ranks (the GPUs of one machine); the tree has two levels:

* **inside a node, a chain** (``ncclTopoPreset`` in ``src/graph/connect.cc``): the node's
  ranks in order, each one's parent the rank before it, its child the rank after it; the
  node's first rank is its head, which the inter-node tree links (the ``TREE`` pattern: the
  head talks to the parent node and to the child nodes);
* **across nodes, a double binary tree** (``ncclGetDtree`` in ``src/graph/trees.cc``).
  Tree 0 is the binary tree ``ncclGetBtree`` builds on the node numbers, rooted at 0: a
  node ``x > 0`` whose lowest set bit is ``b`` has parent ``x - b + 2b`` (``x`` with bit
  ``b`` cleared and bit ``2b`` set), or ``x - b`` when that is out of range, and children
  ``x - b/2`` and ``x + b/2`` (the second halved, ``x + b/4``..., until it is in range;
  none once ``b = 1``); node 0 has one child, the largest power of 2 below the node count.
  Tree 1 is tree 0 **mirrored** (node ``x`` in the place of ``N - 1 - x``) when the node
  count ``N`` is even, **shifted** by one (``x`` in the place of ``x - 1``) when it is odd:
  the leaves of one tree are inner nodes of the other.

NCCL duplicates its channels: the first half of the channels runs tree 0, the second
half tree 1, each channel on its own part of the buffer. Here the first ``ceil(P / 2)`` of
the ``P`` chunks take tree 0 and the others tree 1 (one node: both halves run the same
chain). Each chunk is **reduced up** (a rank sends its partial result to its parent once
every child's has arrived and been combined into its own: ``directRecvReduceDirectSend``)
and then **broadcast down** (the root, once it holds the whole result, sends it to its
children, who forward it: ``directRecvCopyDirectSend``); ``runTreeSplit`` runs the up and
down streams at once, so chunks pipeline: the messages of chunk ``c`` come before those of
``c + 1`` (the two trees' chunks alternate), and each is moved as soon as the machine has
room (all-port: fewer than the arc's capacity in chunks that round; single-port with
``p = 1``: the sender sends and the receiver receives nothing else that round), as
:func:`gossipcert.constructions.nccl.embed` moves NCCL's allgathers.

Two ranks of the tree that no link joins are reached through **routers** (a switch such as
the DGX-2's NVSwitch): the partial or result is copied into the router and sent on from it
(``"op": "reduce"`` on the last hop of the way up), never combined there (NCCL's tree does
not reduce in the switch); a router holds one partial of a chunk at a time, so a second
partial of the same chunk enters it only once the first has left. A path through another
GPU is refused: NCCL's tree links GPUs directly or through switches.

References
----------
.. [1] NVIDIA NCCL, github.com/NVIDIA/nccl (``src/graph/trees.cc``, ``src/graph/connect.cc``,
   ``src/device/all_reduce.h``).
.. [2] P. Sanders, J. Speck and J. L. Traff, "Two-tree algorithms for full bandwidth
   broadcast, reduction and scan", Parallel Computing 35, 2009 (the double binary tree).
"""

from __future__ import annotations

import itertools
from collections import defaultdict

import networkx as nx

from gossipcert import graphs
from gossipcert.constructions.nccl import _free, _take
from gossipcert.errors import NotApplicableError
from gossipcert.instance import Instance, ModelKind, ProblemKind
from gossipcert.schedule import Schedule, Transmission

#: (parent, first child, second child) of a node; -1 for none
Links = tuple[int, int, int]


def btree(nodes: int, x: int) -> Links:
    """Node ``x``'s parent and children in NCCL's binary tree on ``nodes`` nodes (module
    docstring).

    Examples
    --------
    >>> [btree(14, x) for x in (0, 8, 12, 13)]
    [(-1, -1, 8), (0, 4, 12), (8, 10, 13), (12, -1, -1)]
    """
    if x == 0:
        top = 1
        while top < nodes:
            top <<= 1
        return -1, -1, (top >> 1 if nodes > 1 else -1)
    low = x & -x
    parent = (x - low) | (low << 1)
    if parent >= nodes:
        parent = x - low
    half = low >> 1
    if not half:
        return parent, -1, -1
    second = x + half
    while half and second >= nodes:
        half >>= 1
        second = x + half
    return parent, x - (low >> 1), second if half else -1


def dtree(nodes: int, x: int) -> tuple[Links, Links]:
    """Node ``x``'s links in NCCL's two trees: the binary tree, and it mirrored (an even
    node count) or shifted by one (an odd one).

    Examples
    --------
    >>> dtree(4, 0), dtree(4, 3)  # mirrored: node 3 is tree 1's root
    (((-1, -1, 2), (1, -1, -1)), ((2, -1, -1), (-1, -1, 1)))
    >>> dtree(3, 1)[1]  # shifted: node 1 is tree 1's root, with child 0
    (-1, -1, 0)
    """
    first = btree(nodes, x)
    if nodes % 2:
        back = [(y + 1) % nodes if y >= 0 else -1 for y in btree(nodes, (x - 1) % nodes)]
    else:
        back = [nodes - 1 - y if y >= 0 else -1 for y in btree(nodes, nodes - 1 - x)]
    return first, (back[0], back[1], back[2])


def tree_parents(ranks: int, gpus_per_node: int) -> tuple[list[int], list[int]]:
    """Each rank's parent (-1 at the root) in NCCL's two trees: a chain inside each node of
    ``gpus_per_node`` ranks, the double binary tree across nodes between their heads.

    Raises
    ------
    NotApplicableError
        ``gpus_per_node`` does not divide the ranks.

    Examples
    --------
    >>> tree_parents(4, 1)
    ([-1, 2, 0, 2], [1, 3, 1, -1])
    >>> tree_parents(4, 4)  # one node: a chain, in both halves
    ([-1, 0, 1, 2], [-1, 0, 1, 2])
    """
    if gpus_per_node < 1 or ranks % gpus_per_node:
        raise NotApplicableError(
            f"NCCL's tree groups the {ranks} ranks into nodes of {gpus_per_node}: it must "
            "divide them"
        )
    nodes = ranks // gpus_per_node
    out: tuple[list[int], list[int]] = ([-1] * ranks, [-1] * ranks)
    for r in range(ranks):
        node, i = divmod(r, gpus_per_node)
        for t in (0, 1):
            if i:
                out[t][r] = r - 1
            elif nodes > 1:
                up = dtree(nodes, node)[t][0]
                out[t][r] = -1 if up < 0 else up * gpus_per_node
    return out


def _children(parents: list[int]) -> tuple[int, dict[int, list[int]], list[int], list[int]]:
    """The root, each rank's children, the ranks from the root down (breadth first) and
    each rank's parent."""
    kids: dict[int, list[int]] = defaultdict(list)
    root = -1
    for r, p in enumerate(parents):
        if p < 0:
            root = r
        else:
            kids[p].append(r)
    order = [root]
    for r in order:
        order.extend(sorted(kids[r]))
    return root, kids, order, parents


class _Machine:
    """The rounds in which each hop can run (the model's room), and the hops taken."""

    def __init__(self, instance: Instance, port: bool) -> None:
        self.instance, self.port = instance, port
        self.g = instance.graph
        self.use: dict[tuple, int] = defaultdict(int)
        self.sends: dict[int, dict[tuple[int, int, str], int]] = defaultdict(
            lambda: defaultdict(int)
        )
        self.paths: dict[tuple[int, int], list[int]] = {}
        # (router, chunk) -> the round its partial of the chunk last left it
        self.held: dict[tuple[int, int], int] = defaultdict(int)

    def path(self, u: int, v: int) -> list[int]:
        found = self.paths.get((u, v))
        if found is None:
            found = self.paths[(u, v)] = nx.shortest_path(self.g, u, v)
            for x in found[1:-1]:
                if not self.g.nodes[x].get("router"):
                    raise NotApplicableError(
                        f"NCCL's tree links GPUs directly or through switches; "
                        f"{graphs.node_ref(self.g, u)} and {graphs.node_ref(self.g, v)} are "
                        f"linked only through GPU {graphs.node_ref(self.g, x)}"
                    )
        return found

    def send(self, chunk: int, u: int, v: int, after: int, op: str) -> int:
        """Move ``chunk`` from ``u`` to ``v`` once it is there after round ``after``: the
        round it arrives."""
        t = after
        for x, y in itertools.pairwise(self.path(u, v)):
            t += 1
            into_router = y != v
            if into_router:
                t = max(t, self.held[(y, chunk)])
            while not _free(self.use, self.instance, x, y, t, self.port):
                t += 1
            _take(self.use, x, y, t, self.port)
            if x != u:
                self.held[(x, chunk)] = t
            self.sends[t][(x, y, op if y == v else "copy")] |= 1 << chunk
        return t

    def schedule(self) -> Schedule:
        last = max(self.sends, default=0)
        return Schedule(tuple(
            tuple(Transmission(x, (y,), mask, op)
                  for (x, y, op), mask in sorted(self.sends[t].items()))
            for t in range(1, last + 1)
        ))  # fmt: skip


def nccl_tree_allreduce(instance: Instance, gpus_per_node: int = 1) -> Schedule:
    """NCCL's tree allreduce on the instance's machine (module docstring), unverified.

    Parameters
    ----------
    instance : Instance
        An ``allreduce`` (any ``chunks=K``, either operator) under all-port or single-port
        with ``p = 1``, without a call limit.
    gpus_per_node : int
        Ranks per node: 1 makes the double binary tree over every rank, the rank count one
        chain (NCCL on a single machine).

    Returns
    -------
    Schedule

    Raises
    ------
    NotApplicableError
        Another problem or model, ``gpus_per_node`` not dividing the ranks, or two ranks of
        the tree joined only through another GPU.

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> from gossipcert.simulate import simulate
    >>> inst = parse_instance("complete:8", "all-port", "allreduce")
    >>> simulate(inst, nccl_tree_allreduce(inst)).rounds
    9
    >>> inst = parse_instance("dgx2", "all-port", "allreduce")  # one machine: a chain
    >>> report = simulate(inst, nccl_tree_allreduce(inst, 16))
    >>> report.ok, report.rounds
    (True, 87)
    """
    if instance.problem.kind is not ProblemKind.ALLREDUCE:
        raise NotApplicableError(f"NCCL's tree solves allreduce, not {instance.problem.spec()}")
    kind = instance.model.kind
    port = kind is ModelKind.SINGLE_PORT and (instance.model.packet_cap or 1) == 1
    if kind is not ModelKind.ALL_PORT and not port:
        raise NotApplicableError("NCCL's tree is run under all-port or single-port:p=1")
    if instance.model.calls_per_round:
        raise NotApplicableError("no call limit (calls=N)")
    procs = graphs.processors(instance.graph)
    trees = [_children(p) for p in tree_parents(len(procs), gpus_per_node)]
    machine = _Machine(instance, port)
    chunks = instance.n_packets
    half = -(-chunks // 2)
    order = [c for pair in itertools.zip_longest(range(half), range(half, chunks)) for c in pair]
    for c in order:
        if c is None:
            continue
        root, kids, down, parents = trees[0 if c < half else 1]
        arrived: dict[int, int] = {}  # rank -> the round its partial reached its parent
        top = 0
        for r in reversed(down):  # reduce up, the deepest first
            ready = max((arrived[k] for k in kids[r]), default=0)
            if r == root:
                top = ready
            else:
                arrived[r] = machine.send(c, procs[r], procs[parents[r]], ready, "reduce")
        have = {root: top}
        for r in down:  # broadcast down, the root first
            for k in kids[r]:
                have[k] = machine.send(c, procs[r], procs[k], have[r], "copy")
    return machine.schedule()
