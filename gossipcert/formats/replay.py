"""Rounds and buffer contents of an MSCCL algorithm: its timing and its slot-level replay.

**Timing (as soon as possible).** MSCCL's thread blocks run asynchronously; this module
gives them the round structure of gossipcert's models by the as-soon-as-possible rule:

* the ``k``-th send of GPU ``u`` to ``v`` on channel ``c`` and the ``k``-th receive of ``v``
  from ``u`` on channel ``c`` are one transmission;
* a step happens one round after the later of its thread block's previous step and its
  dependency (``depid``/``deps``); a send's round is its transmission's round;
* connections are buffered, as the executor's are (within their FIFO depth): a send does
  not wait for its receiver, and a receive completes in the later of its transmission's
  round and the round its own thread block is ready in;
* a step that both receives and sends (``rcs``, ``rrs``, ``rrcs``) forwards one round after
  it received (a packet received in round ``t`` is forwarded in ``t + 1`` at the earliest,
  as in every gossipcert model);
* local steps (``cpy``, ``re``, ``nop``, and taking received chunks out of a connection)
  move nothing between GPUs and take no round of their own: they happen at the end of the
  round of the later of their thread block's previous step and their dependency.

The algorithm's rounds are the rounds of its last transmission. Steps that can never happen
(a receive with no matching send; a cycle of dependencies; a dependency the executor never
signals) are a deadlock; a send with no matching receive is reported too. The executor
publishes a thread block's progress only after its steps marked ``hasdep="1"`` (``nop``
steps are dropped from its list), so a step waiting for step ``j`` of another thread block
waits for the first step from ``j`` on so marked, and forever when there is none.

**Slots.** Each ``(rank, buffer, index)`` slot holds a set: for copy collectives the
original chunks it holds, for reductions the contributions folded into it. Within a round
every transmission reads its sender's slots before any of the round's receives writes
(so a slot written in round ``t`` is readable in round ``t + 1``), then the round's local
steps run in dependency order. Reading a slot nothing wrote, combining two partial results
that share a contribution (a double count under ``sum``) and final buffers that differ from
the collective's definition are reported, each with the GPU, thread block and step. So is a
**race** (:mod:`gossipcert.formats.races`): two accesses of one slot by two thread blocks, one
of them a write, that no chain of thread-block order, dependencies and transmissions orders
(vector clocks over the thread blocks), whichever of them the as-soon-as-possible order
happened to run first. Collectives whose result is not checked (``send``, ``recv``,
``gather``, ``scatter``, ``alltoallv``: their roots, peers or counts come with the call) get
input slots holding data of their own, and their replay can find violations but never
calls them valid.

**Rooted collectives** (``reduce``, ``broadcast``): the file names no root (the executor
has no such attribute and runs the algorithm for every root the call gives); the replay
takes as root the first of :func:`root_candidates` for which the algorithm computes its
collective, and reports the findings for the most likely one when there is none. For
``reduce`` every rank's input chunk ``c`` is its contribution and the root's output chunk
``c`` must end combined over all; for ``broadcast`` the root's input chunk ``c`` is the
chunk and every rank's output chunk ``c`` must end holding it.

In-place algorithms alias the input and output buffers as NCCL does: for ``allgather`` (and
``gather``) input chunk ``k`` of rank ``r`` is output chunk ``r K + k``; for
``reducescatter`` (and ``scatter``) output chunk ``k`` is input chunk ``r K + k``; for the
other collectives input and output coincide.
An algorithm marked both in-place and out-of-place is replayed both ways.

References
----------
.. [1] github.com/Azure/msccl-executor-nccl, ``src/device/msccl_kernel_impl.h`` and
   ``src/misc/msccl/msccl_parser.cc`` (step semantics, in-place buffers).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable

from gossipcert.errors import FormatError
from gossipcert.formats.findings import POISON, Finding, Replay, StepKey, Transfer, Value
from gossipcert.formats.findings import step_where as _where
from gossipcert.formats.msccl_xml import MscclAlgorithm, Step
from gossipcert.formats.races import RaceCheck
from gossipcert.formats.timing import Timing

#: per collective checked: whether nchunksperloop counts every rank's chunks (else: the
#: chunks of one buffer)
_PER_RANK = {
    "allgather": True,
    "alltoall": True,
    "reducescatter": True,
    "allreduce": False,
    "reduce": False,
    "broadcast": False,
}
#: the rooted collectives: the file does not say the root (see :func:`root_candidates`)
ROOTED = ("reduce", "broadcast")


def _alias(
    algo: MscclAlgorithm, k: int, in_place: bool
) -> Callable[[int, str, int], tuple[int, str, int]]:
    """The canonical slot of ``(rank, buffer, index)`` in a mode (see the module docstring)."""
    coll = algo.coll

    def canon(rank: int, buf: str, index: int) -> tuple[int, str, int]:
        if not in_place:
            return rank, buf, index
        if coll in ("allgather", "gather") and buf == "i":
            return rank, "o", rank * k + index
        if coll in ("reducescatter", "scatter") and buf == "o":
            return rank, "i", rank * k + index
        if coll not in ("allgather", "gather", "reducescatter", "scatter") and buf == "o":
            return rank, "i", index
        return rank, buf, index

    return canon


def chunks_per_rank(algo: MscclAlgorithm) -> int:
    """``K`` of the collective (see :class:`Replay`), from ``nchunksperloop``.

    Raises
    ------
    FormatError
        ``nchunksperloop`` is not a multiple of ``ngpus`` where it must be.
    """
    total = algo.nchunksperloop
    if _PER_RANK.get(algo.coll, False):
        if total % algo.ngpus:
            raise FormatError(
                f"{algo.source}: {algo.coll} with nchunksperloop={total} on "
                f"{algo.ngpus} GPUs: not a whole number of chunks per rank"
            )
        return total // algo.ngpus
    return total


def root_candidates(algo: MscclAlgorithm) -> list[int]:
    """The ranks that may be the root of a ``reduce`` or ``broadcast``, most likely first.

    The MSCCL executor has no root attribute: an algorithm's root is where its data flows
    from (``broadcast``) or to (``reduce``). First come the ranks that receive nothing
    (``broadcast``: every other rank must receive) or send nothing (``reduce``: every other
    rank must send its contribution), then the others (a root may receive a chunk back, or
    send a partial on).

    Examples
    --------
    >>> from gossipcert.formats.msccl_xml import parse_msccl_xml
    >>> from gossipcert.formats.writers import msccl_xml_from_schedule
    >>> from gossipcert.instance import parse_instance
    >>> from gossipcert.schedule import Schedule, Transmission
    >>> inst = parse_instance("path:3", "all-port", "reduce:2")
    >>> sched = Schedule(((Transmission(0, (1,), 1, "reduce"),),
    ...                   (Transmission(1, (2,), 1, "reduce"),)))
    >>> root_candidates(parse_msccl_xml(msccl_xml_from_schedule(sched, inst)))
    [2, 0, 1]
    """
    acting = set()
    for gpu in algo.gpus:
        for tb in gpu.tbs:
            if any(st.receives if algo.coll == "broadcast" else st.sends for st in tb.steps):
                acting.add(gpu.id)
    return sorted(range(algo.ngpus), key=lambda r: r in acting)


def _initial(algo: MscclAlgorithm, k: int, root: int | None) -> dict[tuple[int, str, int], Value]:
    n, coll = algo.ngpus, algo.coll
    state: dict[tuple[int, str, int], Value] = {}
    for r in range(n):
        if coll == "reduce" or (coll == "broadcast" and r == root):
            for c in range(k):
                state[(r, "i", c)] = frozenset({(r if coll == "reduce" else root, c)})
        elif coll == "allgather":
            for j in range(k):
                state[(r, "i", j)] = frozenset({(r, j)})
        elif coll == "alltoall":
            for d in range(n):
                for j in range(k):
                    state[(r, "i", d * k + j)] = frozenset({(r, d, j)})
        elif coll == "allreduce":
            for c in range(k):
                state[(r, "i", c)] = frozenset({(r, c)})
        elif coll == "reducescatter":
            for c in range(n * k):
                state[(r, "i", c)] = frozenset({(r, c)})
    return state


def _expected(algo: MscclAlgorithm, k: int, root: int | None) -> dict[tuple[int, str, int], Value]:
    n, coll = algo.ngpus, algo.coll
    want: dict[tuple[int, str, int], Value] = {}
    for r in range(n):
        if coll == "broadcast":
            for c in range(k):
                want[(r, "o", c)] = frozenset({(root, c)})
        elif coll == "reduce" and r == root:
            for c in range(k):
                want[(r, "o", c)] = frozenset((s, c) for s in range(n))
        elif coll == "allgather":
            for s in range(n):
                for j in range(k):
                    want[(r, "o", s * k + j)] = frozenset({(s, j)})
        elif coll == "alltoall":
            for s in range(n):
                for j in range(k):
                    want[(r, "o", s * k + j)] = frozenset({(s, r, j)})
        elif coll == "allreduce":
            for c in range(k):
                want[(r, "o", c)] = frozenset((s, c) for s in range(n))
        elif coll == "reducescatter":
            for j in range(k):
                want[(r, "o", j)] = frozenset((s, r * k + j) for s in range(n))
    return want


def _describe(value: Value, limit: int = 4) -> str:
    items = sorted(value, key=repr)
    text = ", ".join(map(str, items[:limit]))
    return "{" + text + (", ..." if len(items) > limit else "") + "}"


class _Slots:
    """The buffers of every GPU in one mode, and the findings of reading and combining them."""

    def __init__(
        self, algo: MscclAlgorithm, k: int, in_place: bool, label: str, root: int | None
    ) -> None:
        self.canon = _alias(algo, k, in_place)
        self.state: dict[tuple[int, str, int], Value] = {
            self.canon(*key): value for key, value in _initial(algo, k, root).items()
        }
        #: collectives whose result is not checked: inputs hold data of their own (``gather``
        #: in place: the input is the rank's part of the output, as for allgather)
        self.opaque_inputs = algo.coll not in _PER_RANK
        gathered = in_place and algo.coll == "gather"
        self.is_input = lambda key: (
            key[1] == "i"
            or (
                gathered and key[1] == "o" and 0 <= key[2] - key[0] * k < algo.gpus[key[0]].i_chunks
            )
        )
        self.label = label
        self.findings: list[Finding] = []
        self.races = RaceCheck(None, {})
        self.node = -1  # the node reading and writing now

    def _race(self, message: str | None, t: int, rank: int) -> None:
        if message is not None:
            self.findings.append(Finding("race", f"round {t}{self.label}: {message}", t, rank))

    def read(self, rank: int, buf: str, off: int, cnt: int, where: str, t: int) -> list[Value]:
        out = []
        for i in range(cnt):
            key = self.canon(rank, buf, off + i)
            value = self.state.get(key)
            if value is None and self.opaque_inputs and self.is_input(key):
                value = self.state[key] = frozenset({("input", *key)})
            if value is None:
                self.findings.append(
                    Finding(
                        "unwritten-read",
                        f"round {t}{self.label}: {where} reads {buf}[{off + i}], which nothing has "
                        "written (a missing dependency, or a chunk that never arrives)",
                        t,
                        rank,
                    )
                )
                value = POISON
            self._race(self.races.read(self.node, key, f"{buf}[{off + i}]", where), t, rank)
            out.append(value)
        return out

    def write(
        self, rank: int, buf: str, off: int, values: list[Value], where: str = "", t: int = 0
    ) -> None:
        for i, value in enumerate(values):
            key = self.canon(rank, buf, off + i)
            self.state[key] = value
            for message in self.races.write(self.node, key, f"{buf}[{off + i}]", where):
                self._race(message, t, rank)

    def combine(self, a: list[Value], b: list[Value], where: str, t: int, rank: int) -> list[Value]:
        out = []
        for x, y in zip(a, b, strict=False):
            if x is POISON or y is POISON:
                out.append(POISON)
                continue
            twice = x & y
            if twice:
                self.findings.append(
                    Finding(
                        "double-count",
                        f"round {t}{self.label}: {where} combines two partial results that both "
                        f"hold {_describe(twice)}: counted twice under sum",
                        t,
                        rank,
                    )
                )
            out.append(x | y)
        return out


def _run_mode(
    algo: MscclAlgorithm,
    timing: Timing,
    value: list[int | None],
    order: list[int],
    k: int,
    in_place: bool,
    label: str,
    root: int | None = None,
) -> tuple[_Slots, list[Transfer]]:
    slots = _Slots(algo, k, in_place, label, root)
    slots.races = RaceCheck(timing.clocks, timing.owner)
    steps = timing.steps
    pending: dict[StepKey, list[Value]] = {}
    local_of = {
        node: key
        for key, node in timing.first.items()
        if not timing.is_transfer[node] and key not in timing.recv_node
    }
    position = {node: i for i, node in enumerate(order)}
    by_round: dict[int, tuple[list[int], list[int]]] = defaultdict(lambda: ([], []))
    for node in order:
        t = value[node]
        assert t is not None
        by_round[t][0 if timing.is_transfer[node] else 1].append(node)
    receiving = {node: key for key, node in timing.recv_node.items()}
    arrival = {rkey: node for node, (_, rkey, _) in timing.pairs.items()}
    inflight: dict[int, list[Value]] = {}
    transfers: list[Transfer] = []
    for t in sorted(by_round):
        moves, locals_ = by_round[t]
        for node in moves:
            if node not in timing.pairs:
                continue  # a send nobody receives (reported when timing)
            skey, rkey, chan = timing.pairs[node]
            s_step, r_step = steps[skey], steps[rkey]
            s_where = _where(*skey[:2], s_step)
            if s_step.cnt != r_step.cnt:
                slots.findings.append(
                    Finding(
                        "count-mismatch",
                        f"round {t}: {s_where} sends {s_step.cnt} chunk(s) but "
                        f"{_where(*rkey[:2], r_step)} receives {r_step.cnt}",
                        t,
                        skey[0],
                    )
                )
            slots.node = node
            if s_step.kind == "s":
                payload = slots.read(skey[0], s_step.srcbuf, s_step.srcoff, s_step.cnt, s_where, t)
            else:
                payload = pending.pop(skey, [POISON] * s_step.cnt)
            inflight[node] = (payload + [POISON] * r_step.cnt)[: r_step.cnt]
            transfers.append(Transfer(t, skey[0], rkey[0], chan, s_step.cnt, tuple(payload)))
        for node in sorted(locals_, key=position.__getitem__):
            slots.node = node
            if node in receiving:
                _receive(
                    slots,
                    receiving[node],
                    steps,
                    inflight.pop(arrival[receiving[node]]),
                    pending,
                    t,
                )
                continue
            key = local_of[node]
            st = steps[key]
            where = _where(*key[:2], st)
            if st.kind == "cpy":
                data = slots.read(key[0], st.srcbuf, st.srcoff, st.cnt, where, t)
                slots.write(key[0], st.dstbuf, st.dstoff, data, where, t)
            elif st.kind == "re":
                src = slots.read(key[0], st.srcbuf, st.srcoff, st.cnt, where, t)
                dst = slots.read(key[0], st.dstbuf, st.dstoff, st.cnt, where, t)
                total = slots.combine(dst, src, where, t, key[0])
                slots.write(key[0], st.dstbuf, st.dstoff, total, where, t)
    return slots, transfers


def _receive(
    slots: _Slots,
    rkey: StepKey,
    steps: dict[StepKey, Step],
    payload: list[Value],
    pending: dict[StepKey, list[Value]],
    t: int,
) -> None:
    """A receiving step takes its chunks out of the connection (see the module docstring)."""
    rank = rkey[0]
    r_step = steps[rkey]
    result = payload
    if r_step.kind in ("rrs", "rrc", "rrcs"):
        where = _where(*rkey[:2], r_step)
        src = slots.read(rank, r_step.srcbuf, r_step.srcoff, r_step.cnt, where, t)
        result = slots.combine(src, payload, where, t, rank)
    if r_step.kind in ("r", "rcs", "rrc", "rrcs"):
        slots.write(rank, r_step.dstbuf, r_step.dstoff, result, _where(*rkey[:2], r_step), t)
    if r_step.sends:
        pending[rkey] = result


def _check_result(algo: MscclAlgorithm, slots: _Slots, k: int, root: int | None) -> None:
    for (rank, buf, index), want in _expected(algo, k, root).items():
        have = slots.state.get(slots.canon(rank, buf, index))
        slot = f"GPU {rank} {buf}[{index}]{slots.label}"
        if have is None:
            slots.findings.append(
                Finding(
                    "missing",
                    f"at the end, {slot} was never written; it should hold {_describe(want)}",
                    rank=rank,
                )
            )
        elif have != want and have is not POISON:
            lost, extra = want - have, have - want
            parts = []
            if lost:
                parts.append(f"lacks {_describe(lost)}")
            if extra:
                parts.append(f"holds {_describe(extra)} too")
            slots.findings.append(
                Finding(
                    "wrong-result",
                    f"at the end, {slot} {' and '.join(parts)}",
                    rank=rank,
                )
            )


def replay(algo: MscclAlgorithm) -> Replay:
    """Time an MSCCL algorithm by the as-soon-as-possible rule and replay its buffers.

    Parameters
    ----------
    algo : MscclAlgorithm
        As read by :func:`gossipcert.formats.msccl_xml.read_msccl_xml`.

    Returns
    -------
    Replay
        Rounds, transmissions and every violation found (none: the algorithm is valid).

    Examples
    --------
    >>> from gossipcert.formats.msccl_xml import parse_msccl_xml
    >>> step = ('<step s="{}" type="{}" srcbuf="o" srcoff="{}" dstbuf="o" dstoff="{}" '
    ...         'cnt="1" depid="-1" deps="-1" hasdep="0"/>')
    >>> gpu = ('<gpu id="{r}" i_chunks="0" o_chunks="2" s_chunks="0"><tb id="0" send="{p}" '
    ...        'recv="{p}" chan="0">' + step.format(0, "s", "{r}", "{r}")
    ...        + step.format(1, "r", "{p}", "{p}") + '</tb></gpu>')
    >>> algo = parse_msccl_xml('<algo name="x" proto="LL" nchannels="1" nchunksperloop="2" '
    ...     'ngpus="2" coll="allgather" inplace="1" outofplace="0" minBytes="0" maxBytes="0">'
    ...     + gpu.format(r=0, p=1) + gpu.format(r=1, p=0) + '</algo>')
    >>> result = replay(algo)
    >>> result.valid, result.rounds
    (True, 1)

    References
    ----------
    github.com/Azure/msccl-executor-nccl, ``src/misc/msccl/msccl_parser.cc``.
    """
    findings = [Finding("executor", d) for d in algo.defects]
    k = chunks_per_rank(algo)
    timing = Timing(algo, findings)
    value, order = timing.rounds(findings)
    rounds = max((value[v] or 0 for v in order if timing.is_transfer[v]), default=0)
    semantics = algo.coll in _PER_RANK
    modes = []
    if algo.inplace:
        modes.append(True)
    if algo.outofplace:
        modes.append(False)
    if not modes:
        findings.append(
            Finding(
                "executor",
                "the algorithm is marked neither in-place nor out-of-place: the "
                "executor never selects it",
            )
        )
        modes = [bool(algo.inplace is not False)]
    roots: list[int | None] = list(root_candidates(algo)) if algo.coll in ROOTED else [None]
    outcomes = []
    for root in roots:  # the first root the algorithm computes its collective for
        found: list[Finding] = []
        transfers: list[Transfer] = []
        for i, in_place in enumerate(modes):
            label = "" if len(modes) == 1 else (" (in-place)" if in_place else " (out-of-place)")
            slots, moved = _run_mode(algo, timing, value, order, k, in_place, label, root)
            if semantics:
                _check_result(algo, slots, k, root)
            found.extend(slots.findings)
            if i == 0:
                transfers = moved
        outcomes.append((root, found, transfers))
        if not found:
            break
    root, found, transfers = next((o for o in outcomes if not o[1]), outcomes[0])
    return Replay(rounds, transfers, findings + found, k, semantics, root)
