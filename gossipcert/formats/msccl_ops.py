"""An MSCCL algorithm as timed ops: its steps, their order and dependencies, and the
executor's loop over slices of the buffer.

The ops are the nodes of :class:`~gossipcert.formats.timing.Timing` (the dependency graph
the replay times rounds by): one **transfer** per matched send and receive (the ``k``-th send
of GPU ``u`` to ``v`` on a channel and the ``k``-th receive of ``v`` from ``u`` on it), moving
the step's ``cnt`` chunks, and one **local** op per other step (and per receive, taking its
chunks out of the connection). A step waits for its thread block's previous step and for
its dependency (the step the executor signals, :mod:`gossipcert.formats.replay`); a
receive waits for its transfer to *arrive*; everything else waits for the op before it to
be *done* (a sending thread block moves on once its data has left). Local steps (copies,
reductions) take no time: computation is not modelled.

**The executor's loop** (``msccl_kernel.cu``): a message of ``S`` bytes is ``nchunksperloop``
chunks of ``S / nchunksperloop``; each thread block runs all its steps once per slice of
``chunkSize`` bytes of every chunk (``I = ceil(chunk / chunkSize)`` passes), a pass starting
once the block has finished the one before; a dependency waits for the same pass of the
step it names. ``chunkSize`` is the protocol's step of the connection buffer with NCCL's
default ``NCCL_BUFFSIZE`` (:data:`PROTOCOLS`): ``Simple`` 4 MiB / 8 steps x 4
(``MSCCL_CHUNKSTEPS``) = 2 MiB, ``LL`` 512 KiB / 8 / 2 = 32 KiB, ``LL128`` 4,915,200 / 8 x
15/16 = 576,000 bytes. Passes are taken equal (``chunk / I`` each). The protocols move
flags with the data: ``LL`` 8 bytes of data in every 16-byte line (the wire carries twice
the data), ``LL128`` 120 in every 128, ``Simple`` none. The connections' buffering (the
executor holds ``NCCL_STEPS`` = 8 slots a connection) is not modelled: a send never waits
for its receiver.

On a graph without physical units there is no buffer to slice and no wire format: one
pass, each step moving its whole chunks.

References
----------
.. [1] github.com/Azure/msccl-executor-nccl, ``src/device/msccl_kernel.cu`` (the loop over
   ``gridOffset``, ``chunkSize``, the flags of ``(workIndex, iter, step)``),
   ``src/device/primitives.h`` (``calcBytePerStep``), ``src/init.cc`` (``DEFAULT_BUFFSIZE``,
   ``DEFAULT_LL_BUFFSIZE``, ``DEFAULT_LL128_BUFFSIZE``), ``src/include/device.h``
   (``NCCL_STEPS``, the LL and LL128 line formats).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from gossipcert.errors import GossipcertError
from gossipcert.formats.findings import Finding
from gossipcert.formats.msccl_xml import MscclAlgorithm
from gossipcert.formats.timing import Timing
from gossipcert.timed.simulate import Op

__all__ = ["PROTOCOLS", "MscclOps", "msccl_ops"]

#: per protocol: (bytes of every chunk a pass moves, wire bytes per data byte)
PROTOCOLS: dict[str, tuple[int, float]] = {
    "Simple": ((1 << 22) // 8 * 4, 1.0),
    "LL": (8 * 512 * 8 * 16 // 8 // 2, 2.0),
    "LL128": (120 * 640 * 8 * 8 // 8 * 15 // 16, 128 / 120),
}


@dataclass
class MscclOps:
    """The ops of an algorithm, the links between passes and its protocol's numbers."""

    ops: list[Op]
    carry: list[tuple[int, int]]
    chunks: int
    protocol: str
    slice_bytes: int
    wire: float

    def passes(self, size: float, units: bool = True) -> int:
        """``I``: the executor's passes for a message of ``size`` bytes (1 without units)."""
        if not units:
            return 1
        return max(1, math.ceil(size / self.chunks / self.slice_bytes - 1e-9))

    def unit(self, size: float, units: bool = True) -> float:
        """Bytes on the wire of one chunk's slice in a pass."""
        if not units:
            return size / self.chunks
        return size / self.chunks / self.passes(size) * self.wire


def msccl_ops(algo: MscclAlgorithm) -> MscclOps:
    """The timed ops of ``algo`` (see the module docstring).

    Raises
    ------
    GossipcertError
        A send or receive without its partner (the algorithm cannot run).

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
    >>> found = msccl_ops(algo)
    >>> [(op.src, op.dst) for op in found.ops if op.transfer], found.passes(2 ** 20)
    ([(0, 1), (1, 0)], 16)
    """
    findings: list[Finding] = []
    timing = Timing(algo, findings)
    unmatched = [f for f in findings if f.rule in ("unmatched-send", "unmatched-receive")]
    if unmatched:
        raise GossipcertError(f"the algorithm cannot be timed: {unmatched[0].message}")
    arrival_of = {timing.recv_node[rkey]: node for node, (_, rkey, _) in timing.pairs.items()}
    ops: list[Op] = []
    for node, preds in enumerate(timing.preds):
        after = tuple(sorted({p for p in preds if arrival_of.get(node) != p}))
        arrivals = (arrival_of[node],) if node in arrival_of else ()
        if node in timing.pairs:
            skey, rkey, chan = timing.pairs[node]
            cnt = timing.steps[skey].cnt
            ops.append(Op(skey[0], rkey[0], float(cnt), after, arrivals, chan))
        else:
            ops.append(Op(after=after, arrivals=arrivals))
    carry = []
    for gpu in algo.gpus:
        for tb in gpu.tbs:
            if tb.steps:
                first = timing.first[(gpu.id, tb.id, 0)]
                last = timing.last[(gpu.id, tb.id, len(tb.steps) - 1)]
                carry.append((last, first))
    slice_bytes, wire = PROTOCOLS[algo.proto]
    return MscclOps(ops, carry, algo.nchunksperloop, algo.proto, slice_bytes, wire)
