"""The MSCCL executor's loader and kernel on one thread block's steps: which steps make one
transmission, and which step counter each publishes.

The loader (``mscclGetAlgoFromXmlFile``) turns a thread block's ``<step>`` elements into
transmissions:

* a ``nop`` is no transmission: its dependency (``depid``/``deps``) is handed to the next
  transmission, which must have one of its own (else the loader refuses the file: "XML will
  be ignored");
* a ``re`` step right after a ``re`` into the same destination slot from the same source
  buffer, without a dependency of its own, is *fused* into that reduction (one transmission,
  up to ``MSCCL_MAX_REDUCE_FUSION`` reductions a thread block, ended by ``hasdep="1"``). The
  fused transmission runs where its first step stands, with the *last* step's ``cnt``. The
  reader refuses a fused step whose ``cnt`` differs from the one before it, or that follows a
  ``nop`` with a dependency (it would run before that dependency): files whose meaning is the
  loader's accident rather than their author's.

The kernel (``mscclRunInterpreter``) counts steps as it runs a thread block's transmissions:
each adds one, a dependency list of ``d`` entries (the ``nop`` steps' and its own) ``d - 1``
more, a fused reduction of ``r`` steps ``r - 1`` more. After a transmission with
``hasdep="1"`` it publishes its counter, and a step waiting for step ``s`` of that thread
block is released once the published counter reaches ``s``. The counter is a step's index
less the ``nop`` steps *without* a dependency before it (:func:`published_counters`).

References
----------
.. [1] github.com/Azure/msccl-executor-nccl and github.com/ROCm/rccl,
   ``src/misc/msccl/msccl_parser.cc`` and ``src/device/msccl_kernel.cu``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from gossipcert.errors import FormatError

#: ``MSCCL_MAX_REDUCE_FUSION``
EXECUTOR_MAX_REDUCE_FUSION = 16


class StepFields(Protocol):
    """What these rules read of a step (:class:`gossipcert.formats.msccl_xml.Step`)."""

    @property
    def index(self) -> int: ...
    @property
    def kind(self) -> str: ...
    @property
    def srcbuf(self) -> str: ...
    @property
    def dstbuf(self) -> str: ...
    @property
    def dstoff(self) -> int: ...
    @property
    def cnt(self) -> int: ...
    @property
    def depid(self) -> int: ...
    @property
    def hasdep(self) -> int: ...


def check_transmissions(steps: Sequence[StepFields], where: str) -> None:
    """Refuse a thread block whose steps the loader refuses, or fuses into a transmission
    that means otherwise than its steps (see the module docstring).

    Raises
    ------
    FormatError
        Naming the step.
    """
    pending, reductions, chain, cnt = 0, 0, None, 0
    for st in steps:
        pending += st.depid >= 0
        if st.kind == "nop":
            continue
        fused = st.kind == "re" and chain == (st.dstbuf, st.dstoff, st.srcbuf) and st.depid < 0
        if fused and (pending or st.cnt != cnt):
            why = (
                "runs before the dependency of the nop before it"
                if pending
                else (f"runs with cnt={st.cnt} for both, not {cnt}")
            )
            raise FormatError(
                f"{where} step {st.index} (re): the loader fuses it into the reduction before "
                f"it, which then {why}"
            )
        if not fused:
            if pending and st.depid < 0:
                raise FormatError(
                    f"{where} step {st.index} ({st.kind}) has no dependency but follows nop "
                    "steps that have: the executor's loader refuses the file (a chain of nops "
                    "must end in a step with a dependency)"
                )
            pending = 0
        reductions += st.kind == "re"  # the loader counts them over the thread block
        full = st.kind != "re" or st.hasdep or reductions == EXECUTOR_MAX_REDUCE_FUSION
        chain, cnt = (None if full else (st.dstbuf, st.dstoff, st.srcbuf)), st.cnt


def published_counters(steps: Sequence[StepFields]) -> list[tuple[int, int]]:
    """(counter published, step index) of each step after which the kernel publishes its
    counter, in order (see the module docstring).

    Examples
    --------
    >>> from types import SimpleNamespace as S
    >>> steps = [S(index=0, kind="nop", depid=-1, hasdep=0), S(index=1, kind="s", depid=-1,
    ...          hasdep=1), S(index=2, kind="nop", depid=1, hasdep=0),
    ...          S(index=3, kind="cpy", depid=1, hasdep=1)]
    >>> published_counters(steps)
    [(0, 1), (2, 3)]
    """
    out, skipped = [], 0
    for st in steps:
        if st.kind == "nop" and st.depid < 0:
            skipped += 1
        elif st.hasdep and st.kind != "nop":
            out.append((st.index - skipped, st.index))
    return out
