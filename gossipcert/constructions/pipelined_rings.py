"""Rings with many chunks: the two-stream ring broadcast and the bidirectional ring allreduce
(all-port), and the pipelined ring allgather (one-port), along a Hamiltonian cycle
``c_0, ..., c_{n-1}``.

**Two-stream ring broadcast** (all-port, every cycle arc carrying ``c`` chunks a round): the
source ``c_0`` starts two streams, clockwise with the chunks in increasing order and
counter-clockwise in decreasing order, ``c`` a round each, and every node passes each stream
on in the next round. Node ``c_d`` holds after round ``R`` the first ``a = c (R - d + 1)``
chunks and the last ``b = c (R - (n - d) + 1)`` ones, all of them when ``a + b >= K``
(``a, b`` clipped to ``[0, K]``). That is the ``flow-over-time`` bound of
:mod:`gossipcert.closed_forms.pipelined` for node ``c_d`` on a ring (its two paths from the
source, of lengths ``d`` and ``n - d``), so on a ring the schedule's ``R`` (the least for
which every node is covered) is the optimum.

**Pipelined ring allgather** (single-port or multicast with a packet cap ``p``; all-port):
every node forwards to its successor, ``p`` packets a round, first its own ``K`` chunks and
then the chunks it receives, in the order it receives them, except those of its successor.
A node sends and receives ``(n - 1) K`` chunks, so the schedule takes ``ceil((n - 1) K / p)``
rounds when ``p`` divides ``K`` (a node's queue is never empty: it holds ``K`` chunks at the
start and gains ``p`` a round as it loses ``p``). With ``p = 1`` that is the receive bound
``(n - 1) K`` of single-port allgather, so it is optimal on every graph with a
Hamiltonian cycle (the ring algorithm of [1]_ with ``K`` blocks a node).

**Bidirectional ring allreduce** (all-port): every one of the ``n K`` chunks is reduced from
both sides of the ring towards one *meeting edge* and sent back the same way. For a chunk
with meeting edge ``(c_f, c_{f+1})`` and ``h = n/2 - 1`` (``n`` even):

- rounds ``1 .. h``: the partials of ``c_{f-h} .. c_f`` move one position clockwise a round
  (``op: reduce``) and those of ``c_{f+1+h} .. c_{f+1}`` one position counter-clockwise, so
  that ``c_f`` holds the contributions of ``c_{f-h} .. c_f`` and ``c_{f+1}`` those of the
  other ``h + 1`` positions;
- round ``h + 1``: ``c_f`` and ``c_{f+1}`` exchange their partials (``op: reduce``; the two
  sets are disjoint, nothing is counted twice) and both hold the chunk complete;
- rounds ``h + 2 .. 2h + 1 = n - 1``: ``c_{f+1}`` sends it on clockwise and ``c_f``
  counter-clockwise (``op: copy``), one position a round.

A chunk uses one clockwise and one counter-clockwise arc in each of its ``n - 1`` rounds.
The ``n`` chunks ``(c_f, k)`` of one *wave* ``k``, chunk ``(c_f, k)`` meeting at edge
``(c_f, c_{f+1})``, are translates of one another along the ring, so in each round of a wave
every arc carries exactly one chunk. Running the ``K`` waves one after another (``c`` at a
time when every cycle arc carries ``c``) takes ``(n - 1) ceil(K / c)`` rounds. With ``c = 1``
that meets the receipts bound of :mod:`gossipcert.search.allreduce_bounds` for even ``n``:
every chunk is received ``2n - 2`` times and the ``2n`` arcs carry ``2n`` receipts a round,
``ceil(n K (2n - 2) / 2n) = (n - 1) K``. For odd ``n`` the longer side has ``(n - 1)/2``
positions and a chunk takes ``n`` rounds. Given several edge-disjoint Hamiltonian cycles
(a torus has two), the waves are dealt to the cycles in turn: on the ``k x k`` torus (and the
hypercube of dimension 4, the ``4 x 4`` torus) the two cycles of :func:`torus_cycles`, which
meet the receipts bound ``ceil((n - 1) K / 2)`` for even ``K``.

Both schedules are returned unverified; callers replay them.

References
----------
.. [1] P. Patarasuk and X. Yuan, "Bandwidth optimal all-reduce algorithms for clusters of
   workstations", J. Parallel Distrib. Comput. 69 (2009) 117-124 (ring allgather and
   allreduce; the bandwidth lower bound).
.. [2] R. Thakur, R. Rabenseifner and W. Gropp, "Optimization of collective communication
   operations in MPICH", IJHPCA 19 (2005) (ring algorithms).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence

from gossipcert import graphs
from gossipcert.closed_forms.hamiltonian import hamiltonian_cycle
from gossipcert.constructions.collectives import _arc_capacity
from gossipcert.errors import NotApplicableError
from gossipcert.instance import Instance, ModelKind, ProblemKind
from gossipcert.schedule import Round, Schedule, Transmission

__all__ = [
    "bidirectional_ring_allreduce",
    "ring_pipeline_allgather",
    "torus_cycles",
    "two_stream_broadcast",
]


def _cycle(instance: Instance, cycle: Sequence[int] | None) -> list[int]:
    c = list(cycle) if cycle is not None else hamiltonian_cycle(instance.graph)
    g = instance.graph
    n = len(c)
    if sorted(c) != list(range(instance.n)) or any(
        not g.has_edge(c[i], c[(i + 1) % n]) for i in range(n)
    ):
        raise NotApplicableError("the ring schedules need a Hamiltonian cycle of the graph")
    return c


def torus_cycles(k: int) -> list[list[int]]:
    """Two edge-disjoint Hamiltonian cycles of the ``k x k`` torus (node ``(r, c)`` numbered
    ``r k + c``), ``k >= 3``.

    The first runs along row ``i`` from column ``-i`` to column ``-i - 1`` (every horizontal
    edge of the row but one) and steps down to row ``i + 1`` at column ``-i - 1``, where row
    ``i + 1`` starts; the second is the rest: column ``j`` from row ``-j`` down to row
    ``-j - 1`` and across to column ``j + 1`` on the one horizontal edge row ``-j - 1`` left
    out, where column ``j + 1`` starts.

    Examples
    --------
    >>> a, b = torus_cycles(4)
    >>> a[:6], b[:6]
    ([0, 1, 2, 3, 7, 4], [0, 4, 8, 12, 13, 1])
    """
    first: list[int] = []
    for i in range(k):
        first.extend(i * k + (-i + j) % k for j in range(k))
    second: list[int] = []
    for j in range(k):
        second.extend(((-j + i) % k) * k + j for i in range(k))
    return [first, second]


def _decomposition(instance: Instance) -> list[list[int]] | None:
    """The two cycles of :func:`torus_cycles` when the graph is a ``k x k`` torus (or the
    hypercube of dimension 4 relabelled as the ``4 x 4`` torus), as its spec builds it."""
    spec = str(instance.graph.graph.get("spec", ""))
    name, _, args = spec.partition(":")
    relabel: list[int] | None = None
    if name == "torus" and "x" in args:
        a, _, b = args.partition("x")
        if not (a.isdigit() and a == b and int(a) >= 3):
            return None
        k = int(a)
    elif spec == "hypercube:4":
        k = 4
        gray = [0, 1, 3, 2]  # position on C_4 -> two bits; Q_4 = C_4 x C_4
        relabel = [gray[v // 4] * 4 + gray[v % 4] for v in range(16)]
    else:
        return None
    cycles = torus_cycles(k)
    if relabel is not None:
        cycles = [[relabel[v] for v in c] for c in cycles]
    g = instance.graph
    if g.number_of_nodes() != k * k or any(
        not g.has_edge(c[i], c[(i + 1) % len(c)]) for c in cycles for i in range(len(c))
    ):
        return None
    return cycles


def _chunk_bits(instance: Instance, owner: int) -> list[int]:
    """Packet numbers of ``owner``'s chunks ``0 .. K - 1``."""
    ref = graphs.node_ref(instance.graph, owner)
    k = instance.problem.chunks
    if k == 1:
        return [instance.packet_index(ref)]
    return [instance.packet_index((ref, j)) for j in range(k)]


def ring_pipeline_allgather(instance: Instance, cycle: Sequence[int] | None = None) -> Schedule:
    """The pipelined ring allgather of the module docstring.

    Parameters
    ----------
    instance : Instance
        ``gossip`` (allgather), any ``chunks=K``, under single-port or multicast with a
        packet cap, or all-port, without routers.
    cycle : sequence of int, optional
        A Hamiltonian cycle as a node order (default: one found by
        :func:`~gossipcert.closed_forms.hamiltonian.hamiltonian_cycle`).

    Returns
    -------
    Schedule

    Raises
    ------
    NotApplicableError
        Another problem or model, routers, unbounded packets or no Hamiltonian cycle.

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> from gossipcert.simulate import simulate
    >>> inst = parse_instance("complete:8", "single-port", "gossip:chunks=4")
    >>> simulate(inst, ring_pipeline_allgather(inst)).rounds
    28
    """
    m = instance.model
    if instance.problem.kind is not ProblemKind.GOSSIP:
        raise NotApplicableError("the pipelined ring allgather is a schedule for gossip")
    if m.kind not in (ModelKind.SINGLE_PORT, ModelKind.MULTICAST, ModelKind.ALL_PORT):
        raise NotApplicableError(
            f"the pipelined ring allgather sends to one node while it hears another; got {m.spec()}"
        )
    if m.calls_per_round is not None or graphs.routers(instance.graph):
        raise NotApplicableError("the pipelined ring allgather: every node on the ring, each round")
    c = _cycle(instance, cycle)
    n = len(c)
    if m.kind is ModelKind.ALL_PORT:
        per = min(_arc_capacity(instance, c[i], c[(i + 1) % n]) for i in range(n))
    elif m.packet_cap is None:
        raise NotApplicableError("the pipelined ring allgather needs a packet cap")
    else:
        per = m.packet_cap
    mine = [_chunk_bits(instance, c[i]) for i in range(n)]
    origin = {b: i for i in range(n) for b in mine[i]}
    queue = [deque(mine[i]) for i in range(n)]
    rounds: list[Round] = []
    left = n * (n - 1) * instance.problem.chunks
    while left:
        now: list[tuple[int, list[int]]] = []
        for i in range(n):
            succ = (i + 1) % n
            sent: list[int] = []
            while queue[i] and len(sent) < per:
                b = queue[i].popleft()
                if origin[b] != succ:
                    sent.append(b)
            if sent:
                now.append((i, sent))
        if not now:  # pragma: no cover - every chunk reaches every node first
            raise NotApplicableError("the pipelined ring allgather stalled")
        rnd: list[Transmission] = []
        for i, sent in now:
            succ = (i + 1) % n
            queue[succ].extend(sent)
            left -= len(sent)
            mask = 0
            for b in sent:
                mask |= 1 << b
            rnd.append(Transmission(c[i], (c[succ],), mask))
        rounds.append(tuple(rnd))
    return Schedule(tuple(rounds))


def two_stream_broadcast(instance: Instance, cycle: Sequence[int] | None = None) -> Schedule:
    """The two-stream ring broadcast of the module docstring.

    Parameters
    ----------
    instance : Instance
        ``broadcast:S`` (one source, any ``chunks=K``), all-port, no routers.
    cycle : sequence of int, optional
        A Hamiltonian cycle as a node order (default: one found by
        :func:`~gossipcert.closed_forms.hamiltonian.hamiltonian_cycle`); it is
        rotated to start at the source.

    Returns
    -------
    Schedule

    Raises
    ------
    NotApplicableError
        Another problem or model, routers, or no Hamiltonian cycle.

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> from gossipcert.simulate import simulate
    >>> inst = parse_instance("ring:16", "all-port", "broadcast:0,chunks=64")
    >>> simulate(inst, two_stream_broadcast(inst)).rounds
    39
    """
    m = instance.model
    if instance.problem.kind is not ProblemKind.BROADCAST:
        raise NotApplicableError("the two-stream ring broadcast is a schedule for broadcast")
    if m.kind is not ModelKind.ALL_PORT or m.calls_per_round is not None:
        raise NotApplicableError(
            f"the two-stream ring broadcast uses both arcs of every edge; got {m.spec()}"
        )
    if graphs.routers(instance.graph):
        raise NotApplicableError("the two-stream ring broadcast needs no routers")
    sources = [v for v in range(instance.n) if instance.holdings[v]]
    if len(sources) != 1:
        raise NotApplicableError("the two-stream ring broadcast has one source")
    c = _cycle(instance, cycle)
    start = c.index(sources[0])
    c = c[start:] + c[:start]
    n = len(c)
    k = instance.problem.chunks
    per = min(_arc_capacity(instance, c[i], c[(i + 1) % n]) for i in range(n))

    def covered(r: int) -> bool:
        return all(
            min(k, max(0, per * (r - d + 1))) + min(k, max(0, per * (r - n + d + 1))) >= k
            for d in range(1, n)
        )

    rounds_needed = 1
    while not covered(rounds_needed):
        rounds_needed += 1
    # the stream entering round t carries chunks per*(t-1) .. per*t - 1 (clockwise, in
    # increasing order; counter-clockwise the same positions counted from the top)
    rounds: list[Round] = []
    for t in range(1, rounds_needed + 1):
        rnd: list[Transmission] = []
        for hop in range(1, n):  # the stream entering in round t - hop + 1 is at hop ``hop``
            entered = t - hop + 1
            if entered < 1:
                break
            low = [b for b in range(per * (entered - 1), per * entered) if b < k]
            if low:
                mask = sum(1 << b for b in low)
                rnd.append(Transmission(c[hop - 1], (c[hop],), mask))
                top = sum(1 << (k - 1 - b) for b in low)
                rnd.append(Transmission(c[(n - hop + 1) % n], (c[n - hop],), top))
        rounds.append(tuple(rnd))
    return Schedule(tuple(rounds))


def _wave(n: int, f: int, offset: int) -> list[tuple[int, int, int, str]]:
    """The hops ``(round, sender position, receiver position, op)`` of one chunk meeting at
    edge ``(f, f + 1)``, its first round ``offset + 1``: ``cw`` positions before ``f`` reduce
    clockwise into ``f``, ``ccw`` after ``f + 1`` counter-clockwise into ``f + 1``."""
    cw = n // 2 - 1 if n % 2 == 0 else (n - 1) // 2
    ccw = n - 2 - cw
    hops = []
    for i in range(cw):
        hops.append((offset + 1 + i, (f - cw + i) % n, (f - cw + i + 1) % n, "reduce"))
    for i in range(ccw):
        hops.append((offset + 1 + i, (f + 1 + ccw - i) % n, (f + ccw - i) % n, "reduce"))
    meet = offset + cw + 1
    hops.append((meet, f % n, (f + 1) % n, "reduce"))
    hops.append((meet, (f + 1) % n, f % n, "reduce"))
    for i in range(ccw):
        hops.append((meet + 1 + i, (f + 1 + i) % n, (f + 2 + i) % n, "copy"))
    for i in range(cw):
        hops.append((meet + 1 + i, (f - i) % n, (f - 1 - i) % n, "copy"))
    return hops


def bidirectional_ring_allreduce(
    instance: Instance, cycles: Sequence[Sequence[int]] | None = None
) -> Schedule:
    """The bidirectional ring allreduce of the module docstring.

    Parameters
    ----------
    instance : Instance
        ``allreduce``, any ``chunks=K`` and operator, all-port, no routers.
    cycles : sequence of sequences of int, optional
        Edge-disjoint Hamiltonian cycles as node orders (default: the two of
        :func:`torus_cycles` on a square torus or ``Q_4``, else one found by
        :func:`~gossipcert.closed_forms.hamiltonian.hamiltonian_cycle`).

    Returns
    -------
    Schedule

    Raises
    ------
    NotApplicableError
        Another problem or model, routers, or no Hamiltonian cycle.

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> from gossipcert.simulate import simulate
    >>> inst = parse_instance("ring:16", "all-port", "allreduce")
    >>> simulate(inst, bidirectional_ring_allreduce(inst)).rounds
    15
    """
    m = instance.model
    if instance.problem.kind is not ProblemKind.ALLREDUCE:
        raise NotApplicableError("the bidirectional ring allreduce is a schedule for allreduce")
    if m.kind is not ModelKind.ALL_PORT or m.calls_per_round is not None:
        raise NotApplicableError(
            f"the bidirectional ring allreduce uses both arcs of every edge; got {m.spec()}"
        )
    if graphs.routers(instance.graph):
        raise NotApplicableError("the bidirectional ring allreduce needs no routers")
    if cycles is None:
        cycles = _decomposition(instance)
    rings = (
        [_cycle(instance, c) for c in cycles] if cycles is not None else [_cycle(instance, None)]
    )
    used = [frozenset(frozenset((c[i], c[(i + 1) % len(c)])) for i in range(len(c))) for c in rings]
    if len(used) > 1 and any(a & b for i, a in enumerate(used) for b in used[i + 1 :]):
        raise NotApplicableError("the cycles of the bidirectional ring allreduce share an edge")
    n = instance.n
    k = instance.problem.chunks
    length = n - 1 if n % 2 == 0 else n
    lanes = [min(_arc_capacity(instance, c[i], c[(i + 1) % n]) for i in range(n)) for c in rings]
    # deal the waves to (cycle, lane) slots in turn; slot (ring, lane) runs its waves in order
    slots = [(r, lane) for lane in range(max(lanes)) for r in range(len(rings)) if lane < lanes[r]]
    sends: dict[int, dict[tuple[int, int, str], int]] = {}
    bits = [_chunk_bits(instance, v) for v in range(n)]
    for wave in range(k):
        r, _ = slots[wave % len(slots)]
        offset = (wave // len(slots)) * length
        c = rings[r]
        for f in range(n):
            b = bits[c[f]][wave]
            for t, u, v, op in _wave(n, f, offset):
                arcs = sends.setdefault(t, {})
                key = (c[u], c[v], op)
                arcs[key] = arcs.get(key, 0) | 1 << b
    last = max(sends, default=0)
    rounds: list[Round] = []
    for t in range(1, last + 1):
        arcs = sends.get(t, {})
        rounds.append(
            tuple(Transmission(u, (v,), mask, op) for (u, v, op), mask in sorted(arcs.items()))
        )
    return Schedule(tuple(rounds))
