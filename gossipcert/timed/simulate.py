"""Time a list of transfers with dependencies on a machine: the seam every reader times by.

An algorithm is a list of :class:`Op`: a **transfer** of ``nbytes`` units from rank ``src``
to rank ``dst``, or a **local** step (``src = dst = -1``: a copy, a reduction, a wait) that
takes no time. An op starts when every op of its ``after`` is *done* and every transfer of
its ``arrivals`` has *arrived*:

- a transfer is **done** when its data has left the sender (the end of its occupation of
  its first segment's links: the sending thread block is free again) and has **arrived**
  when the last byte is at the receiver (every segment's occupation and latency,
  :class:`~gossipcert.timed.machine.Route`);
- **a link shares its bandwidth equally among the transfers on it** (processor sharing:
  the thread blocks and channels of an executor send at once): on a segment (the links
  between two processors, :class:`~gossipcert.timed.machine.Route`; a switch streams a
  transfer on, cut-through) a transfer moves at the least of its links' shares, ``B / n``
  for a link of bandwidth ``B`` carrying ``n`` transfers, its rate changing as transfers
  start and end; the segment's latency is paid once its bytes have all passed, and the
  next segment starts then (a processor on the way stores the data first);
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
run (the transfers on a link never move more than its bandwidth together): never a machine
with more bandwidth than the real one.
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
#: the simulator's events: an op is ready, a transfer's segment starts or has passed, a
#: transfer arrived
_READY, _START, _FINISH, _ARRIVE = 0, 1, 2, 3


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
    """

    time: float
    iterations: int
    simulated: int
    extrapolated: bool
    finish: list[float] = field(default_factory=list)
    routed: dict[tuple[int, int], Route] = field(default_factory=dict)


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
    Two chunks of 1 unit over one link of a ring of 3 without units, then one forwarded:

    >>> from gossipcert.graphs import from_spec
    >>> from gossipcert.timed.machine import machine_of
    >>> m = machine_of(from_spec("ring:3"), 3)
    >>> ops = [Op(0, 1, 1.0), Op(0, 1, 1.0), Op(1, 2, 1.0, arrivals=(0,))]
    >>> simulate(m, ops).time  # the link 0 -> 1 shared: both arrive at 2, then one more
    3.0
    """
    n_ops = len(ops)
    iterations = max(1, int(iterations))
    sim = max(1, min(iterations, cap))
    succ_done: list[list[int]] = [[] for _ in range(n_ops)]
    succ_arr: list[list[int]] = [[] for _ in range(n_ops)]
    indeg0 = [0] * n_ops
    for j, op in enumerate(ops):
        for p in op.after:
            succ_done[p].append(j)
            indeg0[j] += 1
        for p in op.arrivals:
            succ_arr[p].append(j)
            indeg0[j] += 1
    carry_succ: list[list[int]] = [[] for _ in range(n_ops)]
    carry_in = [0] * n_ops
    for a, b in carry:
        carry_succ[a].append(b)
        carry_in[b] += 1
    # each transfer's route (the same in every iteration) and its bytes
    segs: list[tuple[tuple[tuple[int, ...], tuple[float, ...], float], ...] | None] = []
    sizes: list[float] = []
    routed: dict[tuple[int, int], Route] = {}
    busy = [0.0] * len(machine.arcs)  # each link's occupation in one iteration
    # the channels each pair of ranks uses, numbered 0, 1, ...: one route each among the
    # equally cheap ones (Machine.route)
    lanes: dict[tuple[int, int], dict[int, int]] = {}
    for op in ops:
        if op.src >= 0:
            lanes.setdefault((op.src, op.dst), {}).setdefault(op.channel, 0)
    for used in lanes.values():
        for k, chan in enumerate(sorted(used)):
            used[chan] = k
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
    total = n_ops * sim
    indeg = indeg0 + [d + c for d, c in zip(indeg0, carry_in, strict=True)] * (sim - 1)
    ready = [0.0] * total
    # events (time, sequence, kind, op, segment, version): READY an op is ready, START a
    # transfer's segment starts, FINISH its bytes have passed (valid while the flow's
    # version is unchanged), ARRIVE the transfer is at its receiver
    heap: list[tuple[float, int, int, int, int, int]] = [
        (0.0, x, _READY, x, 0, 0) for x in range(total) if indeg[x] == 0
    ]
    heapq.heapify(heap)
    seq = total
    on_arc: list[set[tuple[int, int]]] = [set() for _ in machine.arcs]
    # an active flow (op, segment) -> [bytes left, rate, when they were counted, version]
    flows: dict[tuple[int, int], list[float]] = {}
    shape: dict[tuple[int, int], tuple[tuple[int, ...], tuple[float, ...]]] = {}  # its links
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
                push(heap, (ready[y], seq, _READY, y, 0, 0))

    def reshare(t: float, arcs: tuple[int, ...]) -> None:
        """Every flow on ``arcs`` moves at its new share from ``t`` on (a flow whose share
        is unchanged keeps its finish event)."""
        nonlocal seq
        touched = on_arc[arcs[0]] if len(arcs) == 1 else set().union(*(on_arc[i] for i in arcs))
        for key in touched:
            state = flows[key]
            seg_arcs, seg_bws = shape[key]
            if len(seg_arcs) == 1:
                rate = seg_bws[0] / len(on_arc[seg_arcs[0]])
            else:
                rate = min(bw / len(on_arc[i]) for i, bw in zip(seg_arcs, seg_bws, strict=True))
            if rate == state[1]:
                continue
            left = max(0.0, state[0] - state[1] * (t - state[2]))
            state[0], state[1], state[2], state[3] = left, rate, t, state[3] + 1
            seq += 1
            push(heap, (t + left / rate, seq, _FINISH, key[0], key[1], int(state[3])))

    while heap:
        t, _, kind, x, seg, version = pop(heap)
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
            kind = _START
        if kind == _START:
            arcs, bws, _ = hops[seg]  # type: ignore[index]
            flows[(x, seg)] = [sizes[j], 0.0, t, 0.0]
            shape[(x, seg)] = (arcs, bws)
            for i in arcs:
                on_arc[i].add((x, seg))
            reshare(t, arcs)
            continue
        if kind == _FINISH:
            state = flows.get((x, seg))
            if state is None or int(state[3]) != version:
                continue  # a rate changed since: a later event stands for this flow
            del flows[(x, seg)], shape[(x, seg)]
            arcs, _, alpha = hops[seg]  # type: ignore[index]
            for i in arcs:
                on_arc[i].discard((x, seg))
            reshare(t, arcs)
            if seg == 0:  # the data has left the sender: done
                release(succ_done[j], t, base)
                if it + 1 < sim:
                    release(carry_succ[j], t, base + n_ops)
            seq += 1
            more = seg + 1 < len(hops)  # type: ignore[arg-type]
            push(heap, (t + alpha, seq, _START if more else _ARRIVE, x, seg + 1, 0))
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
    time = finish[-1] if finish else 0.0
    extrapolated = iterations > sim
    if extrapolated:
        half = sim // 2
        period = (finish[-1] - finish[half - 1]) / (sim - half) if half >= 1 else finish[-1]
        # never less than the busiest link's work of an iteration
        time = finish[-1] + (iterations - sim) * max(period, max(busy, default=0.0))
    return Run(time, iterations, sim, extrapolated, finish, routed)
