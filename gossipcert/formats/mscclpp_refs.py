"""What the MSCCL++ executor's loader indexes without checking (channel ids, remote buffer
ids, switch channel ids, semaphore ids): out of range there is undefined behaviour, so the
reader (:mod:`gossipcert.formats.mscclpp_plan`) refuses them.

References
----------
.. [1] github.com/microsoft/mscclpp, ``src/core/executor/execution_plan.cc``
   (``setupChannels``, ``setupRemoteBuffers``, ``setupOperation``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from gossipcert.errors import FormatError

if TYPE_CHECKING:  # pragma: no cover - annotations only
    from gossipcert.formats.mscclpp_plan import Gpu, Op, Plan, ThreadBlock


def check_refs(plan: Plan, fail: Callable[[str, str], FormatError]) -> None:
    """What the loader indexes without checking: channel ids, remote buffer ids, switch
    channel ids, semaphore ids (out of range there is undefined behaviour: refused here)."""
    for g in plan.gpus:
        for tb in g.tbs:
            where = f"$.gpus[{g.id}].threadblocks[{tb.id}]"
            for kind in ("memory", "port"):
                for c in tb.channels[kind]:
                    if c >= len(g.channels[kind]):
                        raise fail(
                            f"{where}.channels",
                            f"{kind} channel {c}, but GPU {g.id} has {len(g.channels[kind])}",
                        )
                for b in tb.remote_refs[kind]:
                    if b >= len(g.remote_buffers):
                        raise fail(
                            f"{where}.remote_buffer_refs",
                            f"remote buffer {b}, but GPU {g.id} has {len(g.remote_buffers)}",
                        )
                    if kind not in g.remote_buffers[b][2]:
                        raise fail(
                            f"{where}.remote_buffer_refs",
                            f"remote buffer {b} is not accessed through {kind} channels",
                        )
            for c in tb.channels["switch"]:
                if c >= len(g.switches):
                    raise fail(
                        f"{where}.channels",
                        f"switch channel {c}, but GPU {g.id} has {len(g.switches)}",
                    )
            for op in tb.ops:
                for o in (op, *op.ops):
                    _check_op_refs(o, g, tb, fail)


def _check_op_refs(
    op: Op, g: Gpu, tb: ThreadBlock, fail: Callable[[str, str], FormatError]
) -> None:
    kind = op.channel_type
    if op.channel_ids and kind in ("memory", "port"):
        for c in op.channel_ids:
            if c >= len(tb.channels[kind]):
                raise fail(
                    op.path,
                    f"{kind} channel {c}, but the thread block has {len(tb.channels[kind])}",
                )
    for ref in (*op.src, *op.dst):
        if ref.kind == "remote":
            if kind not in ("memory", "port"):
                raise fail(op.path, "a remote buffer without a memory or port channel_type")
            if ref.ref >= len(tb.remote_refs[kind]):
                raise fail(
                    op.path,
                    f"remote buffer {ref.ref}, but the thread block has "
                    f"{len(tb.remote_refs[kind])} through {kind} channels",
                )
        elif ref.kind == "switch" and ref.ref >= len(tb.channels["switch"]):
            raise fail(
                op.path,
                f"switch channel {ref.ref}, but the thread block has {len(tb.channels['switch'])}",
            )
    for s in op.semaphore_ids:
        if s >= len(g.semaphores):
            raise fail(op.path, f"semaphore {s}, but GPU {g.id} has {len(g.semaphores)}")
