"""Time a list of transfers with dependencies on a machine: the seam every reader times by.

An algorithm is a list of :class:`Op`: a **transfer** of ``nbytes`` units from rank ``src``
to rank ``dst``, or a **local** step (``src = dst = -1``: a copy, a reduction, a wait) that
takes no time. An op starts when every op of its ``after`` is *done* and every transfer of
its ``arrivals`` has *arrived*:

- a transfer is **done** when its data has left the sender (the end of its occupation of
  its first segment's links: the sending thread block is free again) and has **arrived**
  when the last byte is at the receiver (every segment's occupation and latency,
  :class:`~gossipcert.timed.machine.Route`);
- **every link serves one transfer at a time, in the order the transfers reach it** (a
  queue), at its own bandwidth; among transfers that reach a link at the same moment, those
  whose receiver comes next after their sender (rank ``src + 1``, then ``src + 2``...) go
  first, then the order of the list (so that an all-to-all does not send every rank's first
  transfer to the same receiver). On a segment (the links between two processors,
  :class:`~gossipcert.timed.machine.Route`) a transfer reaches a link once it has started
  on the link before (a switch streams it on, cut-through), starts there when the link is
  free, ends there no earlier than on the link before (a link cannot pass on bytes it has
  not received) and no earlier than its bytes take at the link's bandwidth; the link is
  free again when the transfer ends there; the segment's latency is paid once its last
  link is done, and the next segment starts then (a processor on the way stores the data);
- a local op is done and arrived when it is ready.

**Iterations.** An executor that runs the list ``I`` times over successive slices of the
buffer (MSCCL's loop over ``nchunksperloop`` chunks of ``chunkSize`` each) is the list
repeated, with ``carry`` pairs ``(a, b)``: op ``b`` of iteration ``i + 1`` also waits for op
``a`` of iteration ``i`` to be done (a thread block runs its steps again only after its
last one). At most ``cap`` iterations are simulated; for more, the time is the simulated
finish of the last one plus, for each iteration left, a period: the larger of the one
measured over the second half of the simulated iterations (the pipeline's steady state)
and the busiest link's work in one iteration (no link can do more), and
:attr:`Run.extrapolated` says so.

The time of a list is when its last transfer arrives. This is a schedule the machine can
run (a link carries one transfer at a time, at most at its bandwidth): never a machine with
more bandwidth than the real one.
"""

from __future__ import annotations

import heapq
from collections.abc import Sequence
from dataclasses import dataclass, field

from gossipcert.errors import GossipcertError
from gossipcert.timed.machine import Machine, Route

__all__ = ["ITERATION_CAP", "Op", "Run", "simulate"]

#: iterations simulated before the steady state is extrapolated
ITERATION_CAP = 8
#: the simulator's events: an op is ready, a transfer reaches a link, a transfer arrived
_READY, _HOP, _ARRIVE = 0, 1, 2


@dataclass(frozen=True)
class Op:
    """One step of an algorithm (see the module docstring).

    Attributes
    ----------
    src, dst : int
        Sending and receiving ranks of a transfer; -1 for a local step.
    nbytes : float
        Data moved, in units the caller scales by :func:`simulate`'s ``unit``.
    after : tuple of int
        Ops (indices in the list) that must be done first.
    arrivals : tuple of int
        Transfers whose data must have arrived first.
    channel : int
        The transfer's channel: between ranks no link joins, the ``k``-th channel the pair
        uses takes the ``k``-th of the equally cheap routes
        (:meth:`~gossipcert.timed.machine.Machine.route`), so that channels spread over them.
    """

    src: int = -1
    dst: int = -1
    nbytes: float = 0.0
    after: tuple[int, ...] = ()
    arrivals: tuple[int, ...] = ()
    channel: int = 0

    @property
    def transfer(self) -> bool:
        return self.src >= 0


@dataclass
class Run:
    """The outcome of :func:`simulate`.

    Attributes
    ----------
    time : float
        When the last transfer arrives (0 with none).
    iterations, simulated : int
        Iterations asked for and simulated.
    extrapolated : bool
        Whether ``time`` extrapolates the steady state past the simulated iterations.
    finish : list of float
        When each simulated iteration's last transfer arrived (cumulative maximum).
    routed : dict
        ``(src, dst) -> Route`` for the pairs of ranks no link joins.
    busiest : float
        The busiest link's work (its bytes over its bandwidth) over every iteration.
    """

    time: float
    iterations: int
    simulated: int
    extrapolated: bool
    finish: list[float] = field(default_factory=list)
    routed: dict[tuple[int, int], Route] = field(default_factory=dict)
    #: the busiest link's work over every iteration: no schedule of these transfers on
    #: these routes is faster
    busiest: float = 0.0


Segments = tuple[tuple[tuple[int, ...], tuple[float, ...], float], ...]


def _successors(ops: Sequence[Op]) -> tuple[list[list[int]], list[list[int]], list[int]]:
    """For each op, the ops waiting for it to be done, those waiting for it to arrive, and
    how many ops each waits for."""
    succ_done: list[list[int]] = [[] for _ in ops]
    succ_arr: list[list[int]] = [[] for _ in ops]
    indeg = [0] * len(ops)
    for j, op in enumerate(ops):
        for p in op.after:
            succ_done[p].append(j)
            indeg[j] += 1
        for p in op.arrivals:
            succ_arr[p].append(j)
            indeg[j] += 1
    return succ_done, succ_arr, indeg


def _routes(
    machine: Machine, ops: Sequence[Op], unit: float
) -> tuple[list[Segments | None], list[float], list[float], dict[tuple[int, int], Route]]:
    """Each op's route (None for a local step) and bytes, each link's work in one
    iteration, and the routes of the pairs no link joins. The ``k``-th channel a pair of
    ranks uses takes the ``k``-th of the equally cheap routes (:meth:`Machine.route`)."""
    lanes: dict[tuple[int, int], dict[int, int]] = {}
    for op in ops:
        if op.src >= 0:
            lanes.setdefault((op.src, op.dst), {}).setdefault(op.channel, 0)
    for used in lanes.values():
        for k, chan in enumerate(sorted(used)):
            used[chan] = k
    segs: list[Segments | None] = []
    sizes: list[float] = []
    routed: dict[tuple[int, int], Route] = {}
    busy = [0.0] * len(machine.arcs)
    for op in ops:
        nbytes = op.nbytes * unit
        sizes.append(nbytes)
        if op.src < 0:
            segs.append(None)
            continue
        route = machine.route(op.src, op.dst, nbytes, lanes[(op.src, op.dst)][op.channel])
        if not route.direct:
            routed.setdefault((op.src, op.dst), route)
        segs.append(route.segments)
        for arcs, bws, _ in route.segments:
            for i, bw in zip(arcs, bws, strict=True):
                busy[i] += nbytes / bw
    return segs, sizes, busy, routed


def simulate(
    machine: Machine,
    ops: Sequence[Op],
    *,
    unit: float = 1.0,
    iterations: int = 1,
    carry: Sequence[tuple[int, int]] = (),
    cap: int = ITERATION_CAP,
) -> Run:
    """Time ``ops`` on ``machine`` (see the module docstring).

    Parameters
    ----------
    machine : Machine
    ops : sequence of Op
        Every op's ``after`` and ``arrivals`` name ops of the same list.
    unit : float
        Bytes (or data units) of one unit of ``Op.nbytes``.
    iterations : int
        Times the list runs (at least 1).
    carry : sequence of (int, int)
        Links between consecutive iterations (see the module docstring).
    cap : int
        Iterations simulated at most.

    Returns
    -------
    Run

    Raises
    ------
    GossipcertError
        Some op never becomes ready (a cycle of dependencies).

    Examples
    --------
    Two chunks of 1 unit over one link of a ring of 3 without units, the first forwarded:

    >>> from gossipcert.graphs import from_spec
    >>> from gossipcert.timed.machine import machine_of
    >>> m = machine_of(from_spec("ring:3"), 3)
    >>> ops = [Op(0, 1, 1.0), Op(0, 1, 1.0), Op(1, 2, 1.0, arrivals=(0,))]
    >>> simulate(m, ops).time  # the link 0 -> 1 serves one chunk after the other
    2.0
    """
    iterations = max(1, int(iterations))
    sim = max(1, min(iterations, cap))
    segs, sizes, busy, routed = _routes(machine, ops, unit)
    finish = _finish_times(machine, ops, segs, sizes, sim, carry)
    time, extrapolated = _extrapolated(finish, iterations, sim, busy)
    return Run(
        time, iterations, sim, extrapolated, finish, routed, iterations * max(busy, default=0.0)
    )


def _finish_times(
    machine: Machine,
    ops: Sequence[Op],
    segs: list[Segments | None],
    sizes: list[float],
    sim: int,
    carry: Sequence[tuple[int, int]],
) -> list[float]:
    """When each of ``sim`` iterations of ``ops`` has arrived everywhere (the event loop of
    :func:`simulate`, on the routes ``segs`` and sizes of :func:`_routes`)."""
    n_ops = len(ops)
    succ_done, succ_arr, indeg0 = _successors(ops)
    carry_succ: list[list[int]] = [[] for _ in range(n_ops)]
    carry_in = [0] * n_ops
    for a, b in carry:
        carry_succ[a].append(b)
        carry_in[b] += 1
    total = n_ops * sim
    indeg = indeg0 + [d + c for d, c in zip(indeg0, carry_in, strict=True)] * (sim - 1)
    ready = [0.0] * total
    ranks = len(machine.ranks)
    # among transfers ready at once, a sender serves the next rank first, then the one
    # after... (no receiver gets every sender's first transfer at once)
    turn = [(op.dst - op.src) % ranks if op.src >= 0 else 0 for op in ops]
    # events (time, turn, sequence, kind, op, segment, link in it, the transfer's end so
    # far): READY an op is ready; HOP a transfer reaches a link; ARRIVE it arrived
    heap: list[tuple[float, int, int, int, int, int, int, float]] = [
        (0.0, turn[x % n_ops], x, _READY, x, 0, 0, 0.0) for x in range(total) if indeg[x] == 0
    ]
    heapq.heapify(heap)
    seq = total
    free = [0.0] * len(machine.arcs)
    finish = [0.0] * sim
    processed = 0
    pop, push = heapq.heappop, heapq.heappush

    def release(targets: Sequence[int], when: float, offset: int) -> None:
        nonlocal seq
        for k in targets:
            y = offset + k
            if when > ready[y]:
                ready[y] = when
            indeg[y] -= 1
            if indeg[y] == 0:
                seq += 1
                push(heap, (ready[y], turn[k], seq, _READY, y, 0, 0, 0.0))

    while heap:
        t, order, _, kind, x, seg, hop, before = pop(heap)
        it, j = divmod(x, n_ops)
        base = it * n_ops
        hops = segs[j]
        if kind == _READY:
            processed += 1
            if hops is None:  # a local step: done and arrived now
                release(succ_done[j], t, base)
                release(succ_arr[j], t, base)
                if it + 1 < sim:
                    release(carry_succ[j], t, base + n_ops)
                continue
            kind, before = _HOP, 0.0  # it reaches its first link now
        if kind == _HOP:
            arcs, bws, alpha = hops[seg]  # type: ignore[index]
            i = arcs[hop]
            start = max(t, free[i])
            end = max(start + sizes[j] / bws[hop], before)
            free[i] = end
            if seg == 0 and hop == 0:  # the data has left the sender: done
                release(succ_done[j], end, base)
                if it + 1 < sim:
                    release(carry_succ[j], end, base + n_ops)
            seq += 1
            if hop + 1 < len(arcs):  # cut-through: it reaches the next link as it starts here
                push(heap, (start, order, seq, _HOP, x, seg, hop + 1, end))
            elif seg + 1 < len(hops):  # type: ignore[arg-type]
                push(heap, (end + alpha, order, seq, _HOP, x, seg + 1, 0, 0.0))
            else:
                push(heap, (end + alpha, order, seq, _ARRIVE, x, 0, 0, 0.0))
            continue
        if t > finish[it]:  # _ARRIVE
            finish[it] = t
        release(succ_arr[j], t, base)
    if processed < total:
        raise GossipcertError(
            f"{total - processed} of {total} steps never become ready: a cycle of dependencies"
        )
    for i in range(1, sim):
        finish[i] = max(finish[i], finish[i - 1])
    return finish


def _extrapolated(
    finish: list[float], iterations: int, sim: int, busy: list[float]
) -> tuple[float, bool]:
    """The time of ``iterations`` iterations from the finish times of the ``sim`` simulated,
    and whether it was extrapolated beyond them."""
    time = finish[-1] if finish else 0.0
    extrapolated = iterations > sim
    if extrapolated:
        half = sim // 2
        period = (finish[-1] - finish[half - 1]) / (sim - half) if half >= 1 else finish[-1]
        # never less than the busiest link's work of an iteration
        time = finish[-1] + (iterations - sim) * max(period, max(busy, default=0.0))
    return time, extrapolated
