"""An independent judge of MSCCL XML algorithms, written for the tests from the MSCCL
executor's C code (Azure/msccl-executor-nccl and ROCm/rccl: ``src/misc/msccl/
msccl_parser.cc``, ``src/include/msccl/msccl_parser.h``, ``src/device/msccl_kernel.cu``,
``src/misc/msccl/msccl_lifecycle.cc``). It shares no code with ``gossipcert.formats``: it
tokenizes the bytes as ``mscclXmlGetNode`` does, reads integers as C's ``strtol`` does,
loads thread blocks as ``mscclGetAlgoFromXmlFile`` does (``nop`` dependencies handed to the
next transmission, ``re`` steps fused, the kernel's step counter), then *runs* the algorithm:
each thread block executes its transmissions in order, a transmission waits until every
thread block it depends on has published a counter at least the step it names, a receive
waits for the matching send (the ``k``-th send on a connection meets its ``k``-th receive;
connections buffer). Races are found on the explicit happens-before graph of the run
(transitive closure by search), not by vector clocks.

:func:`judge` answers ``"valid"``, ``"invalid"`` or ``"not judged"`` with the reasons, and
what gossipcert must refuse though the executor runs it: an integer text the executor reads
otherwise than its face value (``"0o1"``), ``re`` steps the loader fuses across a ``nop``'s
dependency or with different counts. Besides the executor's own refusals, a file is not valid
when the executor would run it wrongly: a peer, GPU or dependency that does not exist, a
buffer index outside its buffer, steps not numbered ``0, 1, 2, ...`` in order (a dependency
names a step by its ``s``; a dependency on a step that does not exist, which the kernel
would read as another), a read of a slot nothing wrote, two partial results sharing
a contribution combined, a deadlock, data left in a connection, a race, final buffers other
than the collective's (NCCL's definitions, in place as NCCL aliases the buffers), and what
makes the executor never select the algorithm (``minBytes``/``maxBytes``/``inplace``/
``outofplace`` missing, neither in place nor out of place), or misbehave (more than 64 steps
a thread block, a channel of 32 or more, two thread blocks on one connection).
"""

from __future__ import annotations

from collections import defaultdict, deque
from dataclasses import dataclass

from tests.msccl_reference_load import (
    CHECKED,
    CPY,
    MAX_CHANNELS,
    MAX_STEPS,
    RCS,
    RE,
    RECV,
    RRC,
    RRCS,
    RRS,
    SEND,
    TYPES,
    Block,
    InvalidError,
    load,
)

# ------------------------------------------------------------------ the run
Slot = tuple[int, str, int]


def _expected_and_initial(
    coll: str, n: int, k: int, root: int
) -> tuple[dict[Slot, frozenset], dict[Slot, frozenset]]:
    """NCCL's collectives: (initial input slots, wanted output slots), values as sets of
    (origin, index) contributions."""
    init: dict[Slot, frozenset] = {}
    want: dict[Slot, frozenset] = {}
    for r in range(n):
        if coll == "allgather":
            for j in range(k):
                init[(r, "i", j)] = frozenset({(r, j)})
                for s in range(n):
                    want[(r, "o", s * k + j)] = frozenset({(s, j)})
        elif coll == "alltoall":
            for d in range(n):
                for j in range(k):
                    init[(r, "i", d * k + j)] = frozenset({(r, d, j)})
                    want[(r, "o", d * k + j)] = frozenset({(d, r, j)})
        elif coll == "allreduce":
            for c in range(k):
                init[(r, "i", c)] = frozenset({(r, c)})
                want[(r, "o", c)] = frozenset((s, c) for s in range(n))
        elif coll == "reducescatter":
            for c in range(n * k):
                init[(r, "i", c)] = frozenset({(r, c)})
            for j in range(k):
                want[(r, "o", j)] = frozenset((s, r * k + j) for s in range(n))
        elif coll == "reduce":
            for c in range(k):
                init[(r, "i", c)] = frozenset({(r, c)})
                if r == root:
                    want[(r, "o", c)] = frozenset((s, c) for s in range(n))
        elif coll == "broadcast":
            for c in range(k):
                if r == root:
                    init[(r, "i", c)] = frozenset({(root, c)})
                want[(r, "o", c)] = frozenset({(root, c)})
    return init, want


def _alias(coll: str, k: int, in_place: bool):
    """NCCL's in-place buffers (msccl_lifecycle.cc, isInPlace): allgather's input is its
    rank's part of the output, reducescatter's output its rank's part of the input, the
    other collectives' input is their output."""

    def slot(rank: int, buf: str, idx: int) -> Slot:
        if in_place and buf == "i" and coll in ("allgather", "gather"):
            return rank, "o", rank * k + idx
        if in_place and buf == "o" and coll in ("reducescatter", "scatter"):
            return rank, "i", rank * k + idx
        if in_place and buf == "o" and coll not in ("allgather", "gather", "reducescatter",
                                                    "scatter"):  # fmt: skip
            return rank, "i", idx
        return rank, buf, idx

    return slot


def run(blocks: list[Block], coll: str, n: int, k: int, in_place: bool, root: int) -> list[str]:
    """Run the thread blocks (see the module docstring); the reasons the run is wrong."""
    problems: list[str] = []
    slot_of = _alias(coll, k, in_place)
    init, want = _expected_and_initial(coll, n, k, root)
    state: dict[Slot, frozenset] = {slot_of(*key): v for key, v in init.items()}
    by_key = {(b.rank, b.bid): b for b in blocks}
    inputs = {b.rank: b.i_chunks for b in blocks}
    pc = {key: 0 for key in by_key}
    queues: dict[tuple[int, int, int], deque] = defaultdict(deque)
    events: list[tuple[int, int]] = []  # (rank, bid) of each executed transmission
    preds: list[list[int]] = []
    last_event: dict[tuple[int, int], int] = {}
    done_event: dict[tuple[int, int, int], int] = {}  # (rank, bid, transmission) -> event
    accesses: dict[Slot, list[tuple[int, bool]]] = defaultdict(list)

    def is_input(key: Slot) -> bool:
        """Whether a slot holds the call's input (for the collectives not checked)."""
        r, buf, idx = key
        gathered = in_place and coll == "gather" and buf == "o"
        return buf == "i" or (gathered and 0 <= idx - r * k < inputs[r])

    def read(ev: int, rank: int, buf: str, idx: int) -> frozenset | None:
        key = slot_of(rank, buf, idx)
        if key not in state and coll not in CHECKED and is_input(key):
            state[key] = frozenset({("input", *key)})
        accesses[key].append((ev, False))
        if key not in state:
            problems.append(f"GPU {rank} reads {buf}[{idx}], which nothing wrote")
            return None
        return state[key]

    def write(ev: int, rank: int, buf: str, idx: int, value: frozenset | None) -> None:
        key = slot_of(rank, buf, idx)
        accesses[key].append((ev, True))
        if value is not None:
            state[key] = value
        else:
            state.pop(key, None)

    def combine(a: frozenset | None, b: frozenset | None) -> frozenset | None:
        if a is None or b is None:
            return None
        if a & b:
            problems.append("two partial results sharing a contribution combined")
        return a | b

    def releaser(rank: int, bid: int, step: int) -> int | None:
        """The event that released a wait for (bid, step), None if not yet."""
        b = by_key.get((rank, bid))
        if b is None:
            return None
        for j, tr in enumerate(b.trans):
            if tr.has_dep and tr.published >= step:
                return done_event.get((rank, bid, j))
        return None

    progress = True
    while progress:
        progress = False
        for key in sorted(by_key):
            b = by_key[key]
            while pc[key] < len(b.trans):
                tr = b.trans[pc[key]]
                waits = [releaser(b.rank, d, s) for d, s in tr.deps]
                if any(w is None for w in waits):
                    break
                recvs = TYPES[tr.type][1]
                conn_in = (b.recv, b.rank, b.chan)
                if recvs and not queues[conn_in]:
                    break
                ev = len(events)
                events.append(key)
                preds.append([w for w in waits if w is not None])
                if key in last_event:
                    preds[ev].append(last_event[key])
                last_event[key] = ev
                _execute(tr, b, ev, queues, conn_in, preds, read, write, combine, problems)
                done_event[(*key, pc[key])] = ev
                pc[key] += 1
                progress = True
    stuck = [key for key, b in by_key.items() if pc[key] < len(b.trans)]
    if stuck:
        problems.append(f"deadlock: thread blocks {stuck[:4]} never finish")
    if any(queues.values()):
        problems.append("data left in a connection (a send nobody receives)")
    problems.extend(_races(events, preds, accesses))
    if coll in CHECKED:
        for slot, value in want.items():
            if state.get(slot_of(*slot)) != value:
                problems.append(f"GPU {slot[0]} {slot[1]}[{slot[2]}] does not end as it should")
    return problems


def _execute(tr, b, ev, queues, conn_in, preds, read, write, combine, problems) -> None:
    st = tr.steps[0]
    cnt = tr.steps[-1]["cnt"]  # the loader keeps the last fused step's count
    if tr.type == RE:
        for c in range(cnt):
            total = read(ev, b.rank, st["dstbuf"], st["dstoff"] + c)
            for part in tr.steps:
                total = combine(read(ev, b.rank, st["srcbuf"], part["srcoff"] + c), total)
            write(ev, b.rank, st["dstbuf"], st["dstoff"] + c, total)
        return
    sends, recvs, _, _ = TYPES[tr.type]
    data: list = []
    if recvs:
        payload, sender_ev = queues[conn_in].popleft()
        preds[ev].append(sender_ev)
        if len(payload) != cnt:
            problems.append("a receive of another count than its send")
        data = (payload + [None] * cnt)[:cnt]
        if tr.type in (RRS, RRC, RRCS):
            data = [combine(read(ev, b.rank, st["srcbuf"], st["srcoff"] + c), data[c])
                    for c in range(cnt)]  # fmt: skip
        if tr.type in (RECV, RCS, RRC, RRCS):
            for c in range(cnt):
                write(ev, b.rank, st["dstbuf"], st["dstoff"] + c, data[c])
    elif tr.type == SEND:
        data = [read(ev, b.rank, st["srcbuf"], st["srcoff"] + c) for c in range(cnt)]
    elif tr.type == CPY:
        for c in range(cnt):
            write(ev, b.rank, st["dstbuf"], st["dstoff"] + c,
                  read(ev, b.rank, st["srcbuf"], st["srcoff"] + c))  # fmt: skip
    if sends:
        queues[(b.rank, b.send, b.chan)].append((data, ev))


def _races(events, preds, accesses) -> list[str]:
    """Accesses of one slot by two thread blocks, one a write, neither before the other."""
    before: list[int] = []  # before[e]: bit set of the events that happen before e
    for e in range(len(events)):
        mask = 0
        for p in preds[e]:
            mask |= before[p] | (1 << p)
        before.append(mask)
    out = []
    for slot, seen in accesses.items():
        for i, (a, wa) in enumerate(seen):
            for b, wb in seen[i + 1 :]:
                if (wa or wb) and events[a] != events[b] and not (before[b] >> a) & 1:
                    out.append(f"race on {slot}")
    return out


@dataclass
class Judgement:
    verdict: str  # "valid", "invalid", "not judged" (or "too large" to replay here)
    reasons: list[str]
    #: what gossipcert refuses though the executor runs it: integer texts the executor reads
    #: otherwise than written, ``re`` steps fused across a ``nop``'s dependency or of
    #: different counts
    must_refuse: list[str]


def judge(data: bytes) -> Judgement:
    """The verdict on an MSCCL XML file (see the module docstring)."""
    must_refuse: list[str] = []
    try:
        ld, head, blocks, defects = load(data)
        must_refuse = ld.must_refuse
        return _judge_loaded(head, blocks, defects, must_refuse)
    except InvalidError as exc:
        return Judgement("invalid", [str(exc)], must_refuse)


def _judge_loaded(head, blocks, defects, must_refuse) -> Judgement:
    coll, n, total = head["coll"], head["ngpus"], head["nchunksperloop"]
    reasons = list(defects)
    if total < 1:
        raise InvalidError("nchunksperloop < 1")
    per_rank = coll in ("allgather", "alltoall", "reducescatter")
    if per_rank and total % n:
        raise InvalidError("not a whole number of chunks per rank")
    k = total // n if per_rank else total
    if n * total * (n if coll in ("allreduce", "reduce", "broadcast") else 1) > 4_000_000:
        return Judgement("too large", ["too large to replay here"], must_refuse)
    links: dict[tuple[str, int, int, int], int] = {}
    for b in blocks:
        if b.chan >= MAX_CHANNELS or b.nsteps > MAX_STEPS:
            reasons.append("beyond the executor's channels or steps")
        for role, peer in (("send", b.send), ("recv", b.recv)):
            if peer >= 0 and (role, b.rank, peer, b.chan) in links:
                reasons.append("two thread blocks on one connection")
            links[(role, b.rank, peer, b.chan)] = b.bid
    steps = {(b.rank, b.bid): b.nsteps for b in blocks}
    for b in blocks:
        for tr in b.trans:
            if any(not 0 <= s < steps.get((b.rank, d), 0) for d, s in tr.deps):
                raise InvalidError("a dependency on a step that does not exist")
    modes = [m for m, flag in ((True, head["inplace"]), (False, head["outofplace"])) if flag]
    if not modes:
        reasons.append("neither in place nor out of place: never selected")
        modes = [True]
    results = []
    for root in range(n) if coll in ("reduce", "broadcast") else [0]:
        results.append([p for mode in modes for p in run(blocks, coll, n, k, mode, root)])
        if not results[-1]:
            break
    if all(results):  # no root for which the algorithm runs right
        reasons.extend(results[0])
    if reasons:
        return Judgement("invalid", reasons, must_refuse)
    return Judgement("valid" if coll in CHECKED else "not judged", [], must_refuse)
