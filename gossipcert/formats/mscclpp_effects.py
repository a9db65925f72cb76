"""What each operation of an MSCCL++ execution plan reads and writes, as the executor's
kernel (``src/core/include/execution_kernel.hpp`` of microsoft/mscclpp) runs it.

Buffers are cut into **units**: chunk ``c`` of a buffer is units ``c G .. c G + G - 1`` with
``G`` the least common multiple of the plan's thread-block-group sizes, so that the slice an
operation of a group (``tbg_info``: the ``tb_id``-th of ``tbg_size`` slices of each of its
regions, as the loader's ``calcOffset`` cuts them) is a whole number of units (exact for
message sizes the slices divide evenly; the executor gives the first slices one element more
otherwise).

Each operation becomes :class:`Move` objects: ``length`` units, where unit ``k`` of every
destination receives the value of unit ``k`` of its source (a copy) or the combination of
unit ``k`` of every source (a reduction), as the kernel's loops do. A location is a rank,
a buffer and a first unit, and whether it is in **packet** form (LL protocol: data with a
flag; a packet read waits for the flag of the current launch, so it is ordered after the
packet's write by the flag itself). The kernel's own rules, kept here:

* ``put``, ``pws``, ``pwsf``: the ``i``-th source region (of the first source's buffer type,
  for a memory channel) to the ``i``-th remote destination, ``size`` of the destination;
* ``get``: the kernel copies the remote region at the **destination**'s offset into the local
  buffer at the **source**'s offset (``handleGet`` swaps the two offsets): the same when both
  indices agree, as the DSL writes them;
* ``copy``; ``re`` / ``res`` / ``rre`` / ``rres``: the first source combined with the other
  sources (local, or remote for ``rre``/``rres``) into the first destination, and the other
  destinations (remote) receive the result;
* packets: ``cpkt`` writes packets, ``upkt`` reads them (from the scratch buffer, whatever its
  reference says), ``ppkt`` on a memory channel writes packets to the remote buffers (on a
  port channel it copies packets that are already packets), ``rppkt`` forwards packets,
  ``repkt`` / ``respkt`` / ``recpkt`` / ``recspkt`` combine the first (plain) source with
  packets from scratch into the first destination, ``recpkt`` / ``recspkt`` also into a local
  packet destination, and the ``...spkt`` ones also into remote packet destinations;
* switch (NVLS): ``glres`` reads the region of every rank of its switch channel's group,
  combines them and stores the result into every rank's destination region; ``gstore`` and
  ``gstorepkt`` store a local region into every rank of the group.

A pipeline's operations run once over their whole regions (one iteration; the executor
repeats them over slices of ``unit_size`` bytes, with the same order within each).

References
----------
.. [1] github.com/microsoft/mscclpp, ``src/core/include/execution_kernel.hpp``,
   ``src/core/executor/execution_plan.cc`` (``calcOffset``, ``setupOperation``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from gossipcert.formats.mscclpp_plan import BufRef, Gpu, Op, Plan, ThreadBlock

#: operations that only synchronise
SYNC_OPS = {
    "nop",
    "barrier",
    "signal",
    "wait",
    "rlxsignal",
    "rlxwait",
    "flush",
    "sem_acquire",
    "sem_release",
    "pipeline",
}
#: operations whose moves combine their sources (``sum``)
REDUCING = {"re", "res", "rre", "rres", "repkt", "respkt", "recpkt", "recspkt", "glres"}


@dataclass(frozen=True)
class Loc:
    """A place: rank, buffer (``i``, ``o``, ``s``), first unit, packet form."""

    rank: int
    buf: str
    unit: int
    packet: bool = False


@dataclass(frozen=True)
class Move:
    """``length`` units from ``sources`` (combined when ``reduce``) into ``dests``."""

    length: int
    sources: tuple[Loc, ...]
    dests: tuple[Loc, ...]
    reduce: bool = False


@dataclass
class Effect:
    """An operation's moves, the problems of its references and the data it moves between
    ranks for the timing: ``(stage, sender, receiver, units)``, stage 1 the data it reads
    from other ranks, stage 2 what it then writes to other ranks (stage 1 when it reads
    none): a packet received in a round is forwarded in the next one at the earliest."""

    moves: list[Move]
    problems: list[str]
    transfers: list[tuple[int, int, int, int]]

    @property
    def stages(self) -> int:
        """Rounds the operation takes (0: it moves nothing between ranks)."""
        return max((t[0] for t in self.transfers), default=0)


def units_per_chunk(plan: Plan) -> int:
    """``G``: the least common multiple of the plan's thread-block-group sizes.

    Examples
    --------
    >>> from gossipcert.formats.mscclpp_plan import parse_mscclpp_plan
    >>> units_per_chunk(parse_mscclpp_plan('{"name": "p", "collective": "x", "protocol": '
    ...     '"Simple", "inplace": false, "gpus": [{"id": 0, "input_chunks": 1, "output_chunks":'
    ...     ' 1, "scratch_chunks": 0, "channels": [], "remote_buffers": [], "threadblocks": []}]}'))
    1
    """
    g = 1
    for gpu in plan.gpus:
        for tb in gpu.tbs:
            for op in tb.ops:
                for o in (op, *op.ops):
                    g = math.lcm(g, o.tbg[1])
    return g


class Resolver:
    """Turns operations into moves (see the module docstring)."""

    def __init__(self, plan: Plan) -> None:
        self.plan = plan
        self.g = units_per_chunk(plan)

    def _slice(self, ref: BufRef, op: Op) -> tuple[int, int]:
        """First unit and length of ``ref``'s region sliced for ``op``'s group."""
        lo, length = ref.index * self.g, ref.size * self.g
        t, size = op.tbg
        return lo + t * length // size, length // size

    def _remote(self, gpu: Gpu, tb: ThreadBlock, op: Op, ref: BufRef) -> tuple[int, str]:
        kind = op.channel_type or "memory"
        owner, buf, _ = gpu.remote_buffers[tb.remote_refs[kind][ref.ref]]
        return owner, buf

    def _loc(self, gpu: Gpu, tb: ThreadBlock, op: Op, ref: BufRef, packet: bool = False) -> Loc:
        lo, _ = self._slice(ref, op)
        if ref.kind == "remote":
            owner, buf = self._remote(gpu, tb, op, ref)
            return Loc(owner, buf, lo, packet)
        return Loc(gpu.id, ref.buf or "s", lo, packet)

    def group(self, gpu: Gpu, tb: ThreadBlock, ref: BufRef) -> tuple[tuple[int, ...], str]:
        """The ranks and buffer of a switch reference."""
        sw = gpu.switches[tb.channels["switch"][ref.ref]]
        return sw.ranks, sw.buf

    def effect(self, gpu: Gpu, tb: ThreadBlock, op: Op) -> Effect:
        """The moves of ``op`` run by thread block ``tb`` of ``gpu``."""
        out = Effect([], [], [])
        name = op.name
        if name in SYNC_OPS:
            return out
        handler = getattr(self, "_" + name, None)
        if handler is None:  # pragma: no cover - every non-sync name has a handler
            out.problems.append(f"operation {name!r} is not modelled")
            return out
        handler(gpu, tb, op, out)
        inbound: dict[int, int] = {}
        outbound: dict[int, int] = {}
        for mv in out.moves:
            for r in {a.rank for a in mv.sources} - {gpu.id}:
                inbound[r] = inbound.get(r, 0) + mv.length
            for r in {b.rank for b in mv.dests} - {gpu.id}:
                outbound[r] = outbound.get(r, 0) + mv.length
        out.transfers.extend((1, r, gpu.id, units) for r, units in sorted(inbound.items()))
        stage = 2 if inbound else 1
        out.transfers.extend((stage, gpu.id, r, units) for r, units in sorted(outbound.items()))
        return out

    def _need(self, op: Op, out: Effect, src: int, dst: int) -> bool:
        if len(op.src) < src or len(op.dst) < dst:
            out.problems.append(
                f"{op.name} needs at least {src} source and {dst} destination buffer(s); it "
                f"has {len(op.src)} and {len(op.dst)}"
            )
            return False
        return True

    def _sizes(self, op: Op, out: Effect, length: int, refs: tuple[BufRef, ...]) -> None:
        for ref in refs:
            if self._slice(ref, op)[1] != length:
                out.problems.append(
                    f"{op.name} moves {length / self.g:g} chunk(s) but a buffer reference "
                    f"({ref.kind} index {ref.index}) has {ref.size}: the kernel reads or "
                    "writes past it, or leaves part of it"
                )

    def _copy(self, gpu: Gpu, tb: ThreadBlock, op: Op, out: Effect) -> None:
        if not self._need(op, out, 1, 1):
            return
        _, length = self._slice(op.src[0], op)
        self._sizes(op, out, length, op.dst[:1])
        src = self._loc(gpu, tb, op, op.src[0], packet=op.name == "upkt")
        if op.name == "upkt":
            src = Loc(gpu.id, "s", src.unit, True)
            if op.src[0].buf != "s":
                out.problems.append(
                    "upkt reads packets from the scratch buffer whatever its "
                    f"source says ({op.src[0].buf!r})"
                )
        dst = self._loc(gpu, tb, op, op.dst[0], packet=op.name == "cpkt")
        out.moves.append(Move(length, (src,), (dst,)))

    _cpkt = _copy
    _upkt = _copy

    def _put(self, gpu: Gpu, tb: ThreadBlock, op: Op, out: Effect) -> None:
        if not self._need(op, out, 1, 1):
            return
        port = op.channel_type == "port"
        if port and len(op.channel_ids) < len(op.dst):
            out.problems.append(
                f"{op.name} on port channels names {len(op.channel_ids)} "
                f"channel(s) for {len(op.dst)} destinations"
            )
        for i, dref in enumerate(op.dst):
            if i >= len(op.src):
                out.problems.append(f"{op.name}: destination {i} has no source {i}")
                break
            sref = op.src[i]
            _, length = self._slice(dref, op)
            self._sizes(op, out, length, (sref,))
            src = self._loc(gpu, tb, op, sref)
            if not port:  # the kernel takes the first source's buffer for every pair
                src = Loc(gpu.id, op.src[0].buf or "s", src.unit)
            packets = op.name == "ppkt"
            if packets and port:  # a port channel copies what is already packets
                src = Loc(src.rank, src.buf, src.unit, True)
            dst = self._loc(gpu, tb, op, dref, packet=packets)
            if dref.kind != "remote":
                out.problems.append(f"{op.name} destination {i} is not a remote buffer")
                continue
            out.moves.append(Move(length, (src,), (dst,)))

    _pws = _put
    _pwsf = _put
    _ppkt = _put

    def _rppkt(self, gpu: Gpu, tb: ThreadBlock, op: Op, out: Effect) -> None:
        if not self._need(op, out, 1, 1):
            return
        _, length = self._slice(op.src[0], op)
        src = Loc(gpu.id, "s", self._slice(op.src[0], op)[0], True)
        dests = tuple(self._loc(gpu, tb, op, d, packet=True) for d in op.dst)
        self._sizes(op, out, length, op.dst)
        out.moves.append(Move(length, (src,), dests))

    def _get(self, gpu: Gpu, tb: ThreadBlock, op: Op, out: Effect) -> None:
        if not self._need(op, out, 1, 1):
            return
        for i, sref in enumerate(op.src):
            if i >= len(op.dst):
                out.problems.append(f"get: source {i} has no destination {i}")
                break
            dref = op.dst[i]
            _, length = self._slice(sref, op)
            owner, buf = self._remote(gpu, tb, op, sref)
            # handleGet reads the remote at the destination's offset and writes the local
            # buffer at the source's offset
            src = Loc(owner, buf, self._slice(dref, op)[0])
            dst = Loc(gpu.id, dref.buf or "s", self._slice(sref, op)[0])
            out.moves.append(Move(length, (src,), (dst,)))

    def _re(self, gpu: Gpu, tb: ThreadBlock, op: Op, out: Effect) -> None:
        if not self._need(op, out, 1, 1):
            return
        _, length = self._slice(op.src[0], op)
        packet_srcs = op.name.endswith("pkt")
        srcs = [self._loc(gpu, tb, op, op.src[0])]
        for ref in op.src[1:]:
            if packet_srcs:  # packets are read from scratch, whatever the reference says
                srcs.append(Loc(gpu.id, "s", self._slice(ref, op)[0], True))
            else:
                srcs.append(self._loc(gpu, tb, op, ref))
        self._sizes(op, out, length, (*op.src, *op.dst))
        local_pkt = 1 if op.name in ("recpkt", "recspkt") else 0
        dests = [self._loc(gpu, tb, op, op.dst[0])]
        if local_pkt and len(op.dst) > 1:
            dests.append(self._loc(gpu, tb, op, op.dst[1], packet=True))
        for ref in op.dst[1 + local_pkt :]:
            dests.append(self._loc(gpu, tb, op, ref, packet=packet_srcs))
        out.moves.append(Move(length, tuple(srcs), tuple(dests), True))

    _res = _re
    _rre = _re
    _rres = _re
    _repkt = _re
    _respkt = _re
    _recpkt = _re
    _recspkt = _re

    def _glres(self, gpu: Gpu, tb: ThreadBlock, op: Op, out: Effect) -> None:
        if not self._need(op, out, 1, 1):
            return
        ranks, buf = self.group(gpu, tb, op.src[0])
        lo, length = self._slice(op.src[0], op)
        dranks, dbuf = self.group(gpu, tb, op.dst[0])
        dlo, _ = self._slice(op.dst[0], op)
        srcs = tuple(Loc(r, buf, lo) for r in ranks)
        dests = tuple(Loc(r, dbuf, dlo) for r in dranks)
        out.moves.append(Move(length, srcs, dests, True))

    def _gstore(self, gpu: Gpu, tb: ThreadBlock, op: Op, out: Effect) -> None:
        if not self._need(op, out, 1, 1):
            return
        packet = op.name == "gstorepkt"
        _, length = self._slice(op.src[0], op)
        src = self._loc(gpu, tb, op, op.src[0], packet=packet)
        if op.dst[0].kind != "switch":
            out.problems.append(f"{op.name}'s destination is not a switch channel")
            return
        ranks, buf = self.group(gpu, tb, op.dst[0])
        dlo, _ = self._slice(op.dst[0], op)
        dests = tuple(Loc(r, "s" if packet else buf, dlo, packet) for r in ranks)
        out.moves.append(Move(length, (src,), dests))

    _gstorepkt = _gstore
