"""Replaying an MSCCL++ execution plan on a memory model of buffers and semaphores.

Every unit of every buffer of every GPU (:mod:`gossipcert.formats.mscclpp_effects`) holds a
set: the original chunks it holds (``allgather``, ``alltoall``) or the contributions folded
into it (``allreduce``, ``reducescatter``), and whether it is in packet form. The operations
run in an order the synchronisation allows (:mod:`gossipcert.formats.mscclpp_sync`; the
operations that can never run are the deadlock), and the replay reports:

* ``race``: a read of a unit whose write does not happen before it (publication: release
  signals and waits, fences, barriers, semaphores, packet flags, a port put's later signal
  or flush), a write that may come before an earlier read of the unit or before its earlier
  write, and a read or overwrite of another GPU's input or output before that GPU's kernel is
  known to have started (its caller may still be writing it); each names both operations;
* ``late-write``: a write into another GPU's input or output not known to happen before that
  GPU's kernel ends (its caller reads the result then);
* ``unwritten-read``, ``packet-format`` (packets read as plain data or plain data as
  packets: the flag never matches), ``packet-never-written`` (a packet read nobody writes:
  it spins forever), ``double-count`` (two partial results that share a contribution combined
  under ``sum``), ``out-of-bounds``, ``operation`` (references the kernel reads past);
* the deadlocks, unmatched signals and waits, barriers and semaphores of the synchronisation;
* ``missing`` and ``wrong-result``: the collective's postcondition on every rank at the end
  (in place, input and output alias as NCCL lays them out: ``allgather`` input chunk ``k`` of
  rank ``r`` is output chunk ``r K + k``, ``reducescatter`` output chunk ``k`` is input chunk
  ``r K + k``, the others share one buffer).

A plan of another collective, or a pipeline over a reused scratch buffer (whose offsets wrap
between iterations), is **not judged** (:attr:`~gossipcert.formats.findings.Replay.
not_judged`): never valid.

References
----------
.. [1] github.com/microsoft/mscclpp, ``src/core/include/execution_kernel.hpp``,
   ``python/mscclpp/language/collectives.py`` (the buffers of each collective).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Hashable

from gossipcert.formats.findings import POISON, Finding, Replay, Transfer, Value
from gossipcert.formats.mscclpp_effects import Loc, Resolver
from gossipcert.formats.mscclpp_plan import Plan
from gossipcert.formats.mscclpp_sync import (
    FENCES,
    POINTS,
    Entry,
    SyncGraph,
    add_packet_edges,
    build,
    schedule,
)

#: the collectives whose result is checked
COLLECTIVES = ("allgather", "allreduce", "reducescatter", "alltoall")
#: races reported in full (the rest counted)
MAX_REPORTED = 200

Key = tuple[int, str, int]


class _Slot:
    __slots__ = ("packet", "readers", "value", "writer")

    def __init__(self, value: Value, packet: bool, writer: Entry | None) -> None:
        self.value, self.packet, self.writer = value, packet, writer
        self.readers: list[Entry] = []


class _Memory:
    """The units of every buffer, with the checks of the module docstring."""

    def __init__(self, plan: Plan, g: int, sg: SyncGraph) -> None:
        self.plan, self.g, self.sg = plan, g, sg
        self.k = _chunks(plan)
        self.slots: dict[Key, _Slot] = {}
        self.findings: list[Finding] = []
        self.reports: dict[tuple[str, str, int, str], list[int]] = {}
        self._hb: dict[tuple[int, int, bool], bool] = {}
        for key, value in _initial(plan, self.k, g).items():
            self.slots[self.canon(*key)] = _Slot(value, False, None)

    def canon(self, rank: int, buf: str, unit: int) -> Key:
        if not self.plan.inplace:
            return rank, buf, unit
        coll, kg = self.plan.collective, self.k * self.g
        if coll == "allgather" and buf == "i":
            return rank, "o", rank * kg + unit
        if coll == "reducescatter" and buf == "o":
            return rank, "i", rank * kg + unit
        if coll in ("allreduce", "alltoall") and buf == "o":
            return rank, "i", unit
        return rank, buf, unit

    def name(self, rank: int, buf: str, unit: int) -> str:
        part = f" (part {unit % self.g + 1} of {self.g})" if self.g > 1 else ""
        return f"GPU {rank} {buf}[{unit // self.g}]{part}"

    def report(self, rule: str, text: str, rank: int, buf: str, unit: int) -> None:
        """Collect one violation per (rule, sentence, buffer), with its range of units."""
        span = self.reports.get((rule, text, rank, buf))
        if span is None:
            self.reports[(rule, text, rank, buf)] = [unit, unit]
        else:
            span[0], span[1] = min(span[0], unit), max(span[1], unit)

    def _before(self, e: Entry, node: int, strong: bool) -> bool:
        key = (e.node, node, strong)
        hit = self._hb.get(key)
        if hit is None:
            hit = self._hb[key] = self.sg.before(e, node, strong, completion=True)
        return hit

    def _started(self, rank: int, node: int) -> bool:
        key = (-1 - rank, node, False)
        hit = self._hb.get(key)
        if hit is None:
            hit = self._hb[key] = self.sg.started(rank, node)
        return hit

    def read(self, e: Entry, loc: Loc, k: int, waits_flag: bool) -> Value:
        key = self.canon(loc.rank, loc.buf, loc.unit + k)
        slot = self.slots.get(key)
        if slot is None:
            self.report(
                "unwritten-read", f"{e.where()} reads {{slot}}, which nothing has written", *key
            )
            return POISON
        if slot.packet != loc.packet:
            what = (
                "packets as plain data"
                if slot.packet
                else "plain data as packets (their flag never matches: it spins forever)"
            )
            self.report("packet-format", f"{e.where()} reads {what} at {{slot}}", *key)
        w = slot.writer
        if w is None:
            if key[0] != e.rank and not self._started(key[0], e.node):
                self.report(
                    "race",
                    f"{e.where()} reads {{slot}} before GPU {key[0]}'s kernel is "
                    "known to have started (its caller may still be writing it)",
                    *key,
                )
        elif not waits_flag and w is not e and not self._before(w, e.node, True):
            self.report(
                "race",
                f"{e.where()} reads {{slot}}, written by {w.where()}, without "
                "waiting for it (no fence, release signal, barrier or semaphore "
                "orders them)",
                *key,
            )
        slot.readers.append(e)
        return slot.value

    def write(self, e: Entry, loc: Loc, k: int, value: Value) -> None:
        key = self.canon(loc.rank, loc.buf, loc.unit + k)
        slot = self.slots.get(key)
        if slot is not None:
            w = slot.writer
            if w is None:
                if key[0] != e.rank and not self._started(key[0], e.node):
                    self.report(
                        "race",
                        f"{e.where()} overwrites {{slot}} before GPU {key[0]}'s "
                        "kernel is known to have started",
                        *key,
                    )
            elif w is not e and not self._before(w, e.node, False):
                self.report(
                    "race",
                    f"{e.where()} overwrites {{slot}}, written by {w.where()}, "
                    "with no order between the two writes",
                    *key,
                )
            for r in slot.readers:
                if r is not e and not self._before(r, e.node, False):
                    self.report(
                        "race",
                        f"{e.where()} overwrites {{slot}}, which {r.where()} "
                        "reads, without waiting for that read",
                        *key,
                    )
        self.slots[key] = _Slot(value, loc.packet, e)

    def combine(self, e: Entry, values: list[Value], dest: Loc, k: int) -> Value:
        out: set[Hashable] = set()
        for v in values:
            if v is POISON:
                return POISON
            twice = out & v
            if twice:
                self.report(
                    "double-count",
                    f"{e.where()} combines partial results that both "
                    f"hold {_describe(frozenset(twice))} at {{slot}}: counted twice "
                    "under sum",
                    *self.canon(dest.rank, dest.buf, dest.unit + k),
                )
            out |= v
        return frozenset(out)

    def flush_reports(self) -> None:
        for (rule, text, rank, buf), (lo, hi) in self.reports.items():
            self.findings.append(
                Finding(rule, text.replace("{slot}", self.span(rank, buf, lo, hi)), rank=rank)
            )

    def span(self, rank: int, buf: str, lo: int, hi: int) -> str:
        """``GPU r s[3]``, ``GPU r s[3..5]``, with the parts of chunks when not whole."""
        g = self.g
        first, last = lo // g, hi // g
        chunks = f"{buf}[{first}]" if first == last else f"{buf}[{first}..{last}]"
        whole = lo % g == 0 and hi % g == g - 1
        part = "" if whole else f" (units {lo % g}..{hi % g + (last - first) * g} of {g} per chunk)"
        return f"GPU {rank} {chunks}{part}"


def _describe(value: Value, limit: int = 3) -> str:
    items = sorted(value, key=repr)
    return "{" + ", ".join(map(str, items[:limit])) + (", ..." if len(items) > limit else "") + "}"


def _chunks(plan: Plan) -> int:
    """``K``: a rank's chunks (allgather, alltoall, reducescatter) or the buffer's
    (allreduce)."""
    g0 = plan.gpus[0]
    n = plan.ranks
    if plan.collective == "allgather":
        return g0.input_chunks or g0.output_chunks // n
    if plan.collective in ("alltoall", "reducescatter"):
        return (g0.input_chunks or g0.output_chunks * n) // n
    return g0.input_chunks or g0.output_chunks


def _initial(plan: Plan, k: int, g: int) -> dict[Key, Value]:
    n, coll, kg = plan.ranks, plan.collective, k * g
    out: dict[Key, Value] = {}
    for r in range(n):
        if coll == "allgather":
            out.update({(r, "i", u): frozenset({(r, u)}) for u in range(kg)})
        elif coll == "alltoall":
            out.update(
                {(r, "i", d * kg + u): frozenset({(r, d, u)}) for d in range(n) for u in range(kg)}
            )
        elif coll == "allreduce":
            out.update({(r, "i", u): frozenset({(r, u)}) for u in range(kg)})
        elif coll == "reducescatter":
            out.update({(r, "i", u): frozenset({(r, u)}) for u in range(n * kg)})
        else:  # no postcondition: the caller's buffers hold data of their own
            gpu = plan.gpus[r]
            for buf in ("i", "o"):
                out.update(
                    {(r, buf, u): frozenset({(r, buf, u)}) for u in range(gpu.chunks(buf) * g)}
                )
    return out


def _expected(plan: Plan, k: int, g: int) -> dict[Key, Value]:
    n, coll, kg = plan.ranks, plan.collective, k * g
    out: dict[Key, Value] = {}
    for r in range(n):
        if coll == "allgather":
            out.update(
                {(r, "o", s * kg + u): frozenset({(s, u)}) for s in range(n) for u in range(kg)}
            )
        elif coll == "alltoall":
            out.update(
                {(r, "o", s * kg + u): frozenset({(s, r, u)}) for s in range(n) for u in range(kg)}
            )
        elif coll == "allreduce":
            buf = "o" if plan.gpus[r].output_chunks else "i"
            out.update({(r, buf, u): frozenset((s, u) for s in range(n)) for u in range(kg)})
        elif coll == "reducescatter":
            out.update(
                {(r, "o", u): frozenset((s, r * kg + u) for s in range(n)) for u in range(kg)}
            )
    return out


def _entries(plan: Plan, resolver: Resolver, findings: list[Finding]) -> list[Entry]:
    entries = []
    for gpu in plan.gpus:
        for tb in gpu.tbs:
            flat = [o for op in tb.ops for o in ((op, *op.ops) if op.name == "pipeline" else (op,))]
            for op in flat:
                if op.name == "pipeline":
                    continue
                kind = "fence" if op.name in FENCES else "point" if op.name in POINTS else "data"
                effect = resolver.effect(gpu, tb, op)
                for text in effect.problems:
                    findings.append(
                        Finding(
                            "operation",
                            f"GPU {gpu.id} thread block {tb.id} {op.path}: {text}",
                            rank=gpu.id,
                        )
                    )
                entries.append(Entry(gpu.id, tb.id, -1, op, effect, kind))
    return entries


def _bounds(plan: Plan, g: int, entries: list[Entry], findings: list[Finding]) -> None:
    """Moves reaching past a buffer are reported and dropped."""
    for e in entries:
        kept = []
        for mv in e.effect.moves:
            bad = [
                loc
                for loc in (*mv.sources, *mv.dests)
                if loc.unit + mv.length > plan.gpus[loc.rank].chunks(loc.buf) * g
            ]
            if bad:
                loc = bad[0]
                size = plan.gpus[loc.rank].chunks(loc.buf)
                findings.append(
                    Finding(
                        "out-of-bounds",
                        f"{e.where()} reaches chunk "
                        f"{(loc.unit + mv.length - 1) // g} of GPU {loc.rank}'s "
                        f"{loc.buf!r} buffer, which has {size}",
                        rank=e.rank,
                    )
                )
            else:
                kept.append(mv)
        e.effect.moves = kept


def _waits_flag(e: Entry, loc: Loc) -> bool:
    return loc.packet and not (e.op.name == "ppkt" and e.op.channel_type == "port")


def _packet_writers(
    entries: list[Entry], sg_blocked: set[int], findings: list[Finding], canon
) -> dict[int, list[int]]:
    writers: dict[Key, list[Entry]] = defaultdict(list)
    for e in entries:
        for mv in e.effect.moves:
            for d in mv.dests:
                if d.packet:
                    for k in range(mv.length):
                        writers[canon(d.rank, d.buf, d.unit + k)].append(e)
    out: dict[int, list[int]] = {}
    for e in entries:
        needs: dict[int, Entry] = {}
        missing = None
        for mv in e.effect.moves:
            for s in mv.sources:
                if _waits_flag(e, s):
                    for k in range(mv.length):
                        ws = writers.get(canon(s.rank, s.buf, s.unit + k))
                        if not ws:
                            missing = missing or (s.rank, s.buf, (s.unit + k))
                        for w in ws or ():
                            if w is not e:
                                needs[id(w)] = w
        if missing is not None:
            findings.append(
                Finding(
                    "packet-never-written",
                    f"deadlock: {e.where()} waits for "
                    f"packets at GPU {missing[0]} {missing[1]} unit {missing[2]} "
                    "that nothing writes: it spins forever",
                    rank=e.rank,
                )
            )
            sg_blocked.add(e.node)
        out[e.node] = [w.node for w in needs.values()]
    return out


def replay_plan(plan: Plan) -> Replay:
    """Replay ``plan`` (see the module docstring).

    Returns
    -------
    Replay
        Rounds, transmissions (in chunks, rounded up per link and round) and every violation
        found; ``chunks_per_rank`` as :mod:`gossipcert.formats.verdict` expects (the whole
        buffer's chunks for ``allreduce``).

    Examples
    --------
    >>> from gossipcert.formats.mscclpp_writer import example_plan
    >>> rep = replay_plan(example_plan())
    >>> rep.valid, rep.rounds, len(rep.transfers)
    (True, 1, 2)
    """
    findings = [Finding("executor", d) for d in plan.defects]
    not_judged: list[str] = []
    if plan.collective not in COLLECTIVES:
        not_judged.append(
            f"the collective {plan.collective!r} has no postcondition here "
            f"(checked: {', '.join(COLLECTIVES)})"
        )
    if plan.reuse_resources and any(
        op.name == "pipeline" for g in plan.gpus for tb in g.tbs for op in tb.ops
    ):
        not_judged.append(
            "pipelines over a reused scratch buffer (reuse_resources: the "
            "executor wraps scratch offsets between iterations) are not modelled"
        )
    resolver = Resolver(plan)
    g = resolver.g
    entries = _entries(plan, resolver, findings)
    _bounds(plan, g, entries, findings)
    # the graph first (nodes for every entry), then the packet edges
    sg = build(plan, entries, findings, {})
    memory = _Memory(plan, g, sg)
    add_packet_edges(sg, _packet_writers(entries, sg.blocked, findings, memory.canon))
    schedule(sg, findings)
    memory.sg = sg
    by_node = {e.node: e for e in entries}
    for node in sg.order:
        e = by_node.get(node)
        if e is None or not e.effect.moves:
            continue
        for mv in e.effect.moves:
            for k in range(mv.length):
                values = [memory.read(e, s, k, _waits_flag(e, s)) for s in mv.sources]
                value = memory.combine(e, values, mv.dests[0], k) if mv.reduce else values[0]
                for d in mv.dests:
                    memory.write(e, d, k, value)
    _late_writes(plan, memory)
    if plan.collective in COLLECTIVES:
        _check_result(plan, memory)
    memory.flush_reports()
    transfers = _transfers(sg, entries, g)
    rounds = max((t.round for t in transfers), default=0)
    k = memory.k
    return Replay(
        rounds,
        transfers,
        findings + memory.findings,
        k,
        plan.collective in COLLECTIVES,
        None,
        not_judged,
    )


def _late_writes(plan: Plan, memory: _Memory) -> None:
    for key, slot in memory.slots.items():
        rank, buf, unit = key
        w = slot.writer
        if w is None or w.rank == rank or buf == "s":
            continue
        if not memory.sg.before_end(w, rank, completion=True):
            memory.report(
                "late-write",
                f"{w.where()} writes {{slot}}, not known to happen "
                f"before GPU {rank}'s kernel ends (its caller may read it first)",
                rank,
                buf,
                unit,
            )


def _check_result(plan: Plan, memory: _Memory) -> None:
    for key, want in _expected(plan, memory.k, memory.g).items():
        canon = memory.canon(*key)
        slot = memory.slots.get(canon)
        rank, buf, unit = key
        if slot is None:
            memory.report(
                "missing",
                f"at the end, {{slot}} was never written; it should hold {_describe(want)}",
                rank,
                buf,
                unit,
            )
        elif slot.packet:
            memory.report(
                "wrong-result", "at the end, {slot} holds packets, not plain data", rank, buf, unit
            )
        elif slot.value != want and slot.value is not POISON:
            lost, extra = want - slot.value, slot.value - want
            parts = ([f"lacks {_describe(lost)}"] if lost else []) + (
                [f"holds {_describe(extra)} too"] if extra else []
            )
            memory.report(
                "wrong-result", f"at the end, {{slot}} {' and '.join(parts)}", rank, buf, unit
            )


def _transfers(sg: SyncGraph, entries: list[Entry], g: int) -> list[Transfer]:
    load: dict[tuple[int, int, int], int] = defaultdict(int)
    for e in entries:
        t = sg.rounds[e.node]
        if t is None:
            continue
        for stage, sender, receiver, units in e.effect.transfers:
            load[(t - e.effect.stages + stage, sender, receiver)] += units
    return [Transfer(t, s, r, 0, -(-units // g), ()) for (t, s, r), units in sorted(load.items())]
