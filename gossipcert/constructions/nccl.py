"""NCCL's ring and PAT allgathers, written from their published rules, run on any machine.

Rank ``r`` is the ``r``-th processor of the graph. Each algorithm is a list of **logical
messages** ``(chunk, from rank, to rank)`` in NCCL's order; :func:`embed` runs them on the
machine: each message follows a shortest path of the graph (through routers, such as a
DGX-2's NVSwitch, or through other GPUs when the two ranks are not linked), hop by hop, each
hop in the first round after the chunk reached the hop's sender in which the model has room
for it (all-port: fewer than the arc's capacity in chunks that round; single-port with
``p = 1``: the sender sends and the receiver receives nothing else that round), messages
earlier in the list first. So the schedule is NCCL's data flow with each chunk moved as soon
as the machine allows (NCCL pipelines its steps the same way, chunk after chunk); callers
replay it in the verifier.

* **ring** (``NCCL_ALGO_RING``, ``src/device/all_gather.h``): ranks in a ring
  ``0 -> 1 -> ... -> n - 1 -> 0``; in step ``s = 0 .. n - 2`` rank ``r`` sends the chunk of
  rank ``r - s`` (its own in step 0, then the one it received in step ``s - 1``) to
  ``r + 1``: ``n - 1`` steps.
* **PAT** (Parallel Aggregated Trees, ``NCCL_ALGO_PAT``; the step generator
  ``PatAGAlgorithm`` of ``src/include/collectives.h``, peers in ``src/device/prims_simple.h``):
  rank ``r`` sends along dimension ``d`` to ``r - 2^d`` and receives from ``r + 2^d``; the
  data of rank ``r + s`` (``0 < s < n``) reaches ``r`` from ``r + 2^d`` with ``d`` the lowest
  set bit of ``s``, which had it from ``r + 2^d`` plus the rest of ``s``: a binomial tree per
  rank, the highest dimension first (Bruck's order). Messages in the order of the dimensions,
  ``D - 1`` down to ``0`` (``D = ceil(log2 n)``): the aggregated form, ``D`` steps when a
  link carries everything a rank has.

NCCL's tree algorithm (``NCCL_ALGO_TREE``) runs only allreduce: its tuner skips it for
allgather and reduce-scatter (``src/graph/tuning.cc``). NCCL's reduce-scatters are the time
reversal of these allgathers (ring: the partial of chunk ``r - s - 1`` forwarded around the
ring; PAT: ``PatRSAlgorithm``, receiving from ``r - 2^d`` and sending to ``r + 2^d``), which
:func:`gossipcert.search.reversal.reduction_from_dual` builds from them.

References
----------
.. [1] NVIDIA NCCL, github.com/NVIDIA/nccl (``src/include/collectives.h``,
   ``src/device/all_gather.h``, ``src/device/prims_simple.h``, ``src/graph/tuning.cc``).
.. [2] J. Bruck, C.-T. Ho, S. Kipnis, E. Upfal and D. Weathersby, "Efficient algorithms for
   all-to-all communications in multiport message-passing systems", IEEE TPDS 8, 1997.
"""

from __future__ import annotations

import itertools
from collections import defaultdict

import networkx as nx

from gossipcert import graphs
from gossipcert.constructions.collectives import _arc_capacity
from gossipcert.errors import NotApplicableError
from gossipcert.instance import Instance, ModelKind, ProblemKind
from gossipcert.schedule import Schedule, Transmission

#: the algorithms: name -> logical messages for n ranks
ALGORITHMS = ("ring", "pat")

Message = tuple[int, int, int]  # source rank (the chunk's owner), from rank, to rank


def ring_messages(n: int) -> list[Message]:
    """The ring allgather's messages, step by step.

    Examples
    --------
    >>> ring_messages(3)
    [(0, 0, 1), (1, 1, 2), (2, 2, 0), (2, 0, 1), (0, 1, 2), (1, 2, 0)]
    """
    return [((r - s) % n, r, (r + 1) % n) for s in range(n - 1) for r in range(n)]


def pat_messages(n: int) -> list[Message]:
    """PAT's allgather messages, the highest dimension first (see the module docstring).

    Examples
    --------
    >>> pat_messages(4)[:4]  # dimension 1: rank r sends its own chunk to r - 2
    [(0, 0, 2), (1, 1, 3), (2, 2, 0), (3, 3, 1)]
    >>> pat_messages(4)[8:]  # dimension 0: and the chunk it received from r + 2
    [(2, 0, 3), (3, 1, 0), (0, 2, 1), (1, 3, 2)]
    """
    dims = max(1, (n - 1).bit_length())
    out = []
    for d in reversed(range(dims)):
        step = 1 << d
        for rest in range(0, n, 2 * step):  # the higher bits of s
            if rest + step >= n:
                continue
            for r in range(n):
                out.append(((r + rest) % n, r, (r - step) % n))
    return out


def embed(instance: Instance, messages: list[Message]) -> Schedule:
    """Run logical ``messages`` on the instance's machine (see the module docstring).

    Raises
    ------
    NotApplicableError
        Not a ``gossip`` instance, or a model other than all-port and single-port with
        ``p = 1``.
    """
    if instance.problem.kind is not ProblemKind.GOSSIP or instance.problem.chunks != 1:
        raise NotApplicableError("NCCL's allgathers are written for gossip with one chunk per rank")
    kind = instance.model.kind
    port = kind is ModelKind.SINGLE_PORT and (instance.model.packet_cap or 1) == 1
    if kind is not ModelKind.ALL_PORT and not port:
        raise NotApplicableError("NCCL's allgathers are run under all-port or single-port:p=1")
    if instance.model.calls_per_round:
        raise NotApplicableError("no call limit (calls=N)")
    g = instance.graph
    procs = graphs.processors(g)
    use: dict[tuple, int] = defaultdict(int)
    have: dict[tuple[int, int], int] = {(v, r): 0 for r, v in enumerate(procs)}
    sends: dict[int, dict[tuple[int, int], int]] = defaultdict(lambda: defaultdict(int))
    paths: dict[tuple[int, int], list[int]] = {}
    for source, a, b in messages:
        u, v = procs[a], procs[b]
        path = paths.get((u, v))
        if path is None:
            path = paths[(u, v)] = nx.shortest_path(g, u, v)
        t = have.get((u, source))
        if t is None:
            raise NotApplicableError(
                f"rank {a} forwards the chunk of rank {source} before it has it"
            )
        for x, y in itertools.pairwise(path):
            if (y, source) in have:  # a relay that already has it (an earlier path)
                t = have[(y, source)]
                continue
            t += 1
            while not _free(use, instance, x, y, t, port):
                t += 1
            _take(use, x, y, t, port)
            sends[t][(x, y)] |= 1 << source
            have[(y, source)] = t
    last = max(sends, default=0)
    return Schedule(tuple(
        tuple(Transmission(x, (y,), mask) for (x, y), mask in sorted(sends[t].items()))
        for t in range(1, last + 1)
    ))  # fmt: skip


def _free(use: dict[tuple, int], instance: Instance, x: int, y: int, t: int, port: bool) -> bool:
    if port:
        return not use[("out", x, t)] and not use[("in", y, t)]
    return use[("arc", x, y, t)] < _arc_capacity(instance, x, y)


def _take(use: dict[tuple, int], x: int, y: int, t: int, port: bool) -> None:
    if port:
        use[("out", x, t)] += 1
        use[("in", y, t)] += 1
    else:
        use[("arc", x, y, t)] += 1


def nccl_allgather(instance: Instance, algorithm: str) -> Schedule:
    """NCCL's ``ring`` or ``pat`` allgather on the instance's machine, unverified.

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> from gossipcert.simulate import simulate
    >>> inst = parse_instance("complete:8", "single-port:p=1", "gossip")
    >>> [simulate(inst, nccl_allgather(inst, a)).rounds for a in ALGORITHMS]
    [7, 7]
    """
    n = len(graphs.processors(instance.graph))
    if algorithm == "ring":
        return embed(instance, ring_messages(n))
    if algorithm == "pat":
        return embed(instance, pat_messages(n))
    raise NotApplicableError(f"unknown NCCL algorithm {algorithm!r}; choose ring or pat")
