"""An MSCCL++ execution plan as read (:mod:`gossipcert.formats.mscclpp_plan` reads it), and
what the executor's loader indexes without checking (channel ids, remote buffer ids, switch
channel ids, semaphore ids): out of range there is undefined behaviour, so the reader refuses
them.

References
----------
.. [1] github.com/microsoft/mscclpp, ``src/core/executor/execution_plan.cc``
   (``setupChannels``, ``setupRemoteBuffers``, ``setupOperation``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from gossipcert.errors import FormatError


@dataclass(frozen=True)
class BufRef:
    """A buffer reference of an operation: ``kind`` is ``local`` (``buf`` given),
    ``remote`` (``ref`` the thread block's remote buffer id) or ``switch`` (``ref`` the
    thread block's switch channel id); ``index`` and ``size`` in chunks."""

    kind: str
    buf: str | None
    ref: int
    index: int
    size: int


@dataclass(frozen=True)
class Op:
    """One operation of a thread block (a pipeline's operations in ``ops``)."""

    name: str
    path: str
    channel_type: str | None = None
    channel_ids: tuple[int, ...] = ()
    src: tuple[BufRef, ...] = ()
    dst: tuple[BufRef, ...] = ()
    tbg: tuple[int, int] = (0, 1)  # (tb_id, tbg_size)
    barrier_id: int = -1
    num_threadblocks: int = 0
    semaphore_ids: tuple[int, ...] = ()
    ops: tuple[Op, ...] = ()


@dataclass(frozen=True)
class ThreadBlock:
    """A thread block: its operations, its channels per type (indices into the GPU's
    channels of that type) and its remote buffers per access channel type."""

    id: int
    ops: tuple[Op, ...]
    channels: dict[str, tuple[int, ...]]
    remote_refs: dict[str, tuple[int, ...]]


@dataclass(frozen=True)
class SwitchChannel:
    """An NVLS (switch) channel of a GPU: its buffer and the ranks of its group."""

    buf: str
    ranks: tuple[int, ...]


@dataclass(frozen=True)
class Gpu:
    """A GPU of the plan."""

    id: int
    input_chunks: int
    output_chunks: int
    scratch_chunks: int
    channels: dict[str, tuple[int, ...]]  # type -> peers, flattened in order
    switches: tuple[SwitchChannel, ...]
    remote_buffers: tuple[tuple[int, str, tuple[str, ...]], ...]  # (rank, buffer, types)
    semaphores: tuple[int, ...]  # initial values
    tbs: tuple[ThreadBlock, ...]

    def chunks(self, buf: str) -> int:
        return {"i": self.input_chunks, "o": self.output_chunks, "s": self.scratch_chunks}[buf]


@dataclass
class Plan:
    """An MSCCL++ execution plan as read."""

    name: str
    collective: str
    protocol: str
    inplace: bool
    gpus: tuple[Gpu, ...]
    double_scratch: bool = False
    reuse_resources: bool = False
    defects: list[str] = field(default_factory=list)
    source: str = "plan"

    @property
    def ranks(self) -> int:
        return len(self.gpus)

    @property
    def n_ops(self) -> int:
        """Operations over every thread block (a pipeline's own included)."""
        return sum(1 + len(op.ops) for g in self.gpus for tb in g.tbs for op in tb.ops)


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
