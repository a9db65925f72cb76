"""Reading MSCCL XML algorithms, the files the MSCCL executor runs.

An algorithm is an ``<algo>`` element with one ``<gpu>`` per rank; a GPU has thread blocks
``<tb id send recv chan>`` (the peer it sends to, the peer it receives from, ``-1`` for
none, and its channel), and a thread block a sequence of ``<step>`` elements::

    <algo name="..." proto="LL" nchannels="1" nchunksperloop="8" ngpus="8" coll="allgather"
          inplace="1" outofplace="0" minBytes="1" maxBytes="327680">
      <gpu id="0" i_chunks="0" o_chunks="8" s_chunks="0">
        <tb id="0" send="1" recv="1" chan="0">
          <step s="0" type="s" srcbuf="o" srcoff="0" dstbuf="o" dstoff="0" cnt="1"
                depid="-1" deps="-1" hasdep="0"/>

Step types (the executor's ``mscclTransmission`` types): ``s`` send, ``r`` receive, ``rcs``
receive-copy-send, ``rrs`` receive-reduce-send, ``rrc`` receive-reduce-copy, ``rrcs``
receive-reduce-copy-send, ``cpy`` local copy, ``re`` local reduce, ``nop`` (waits on its
dependency only). ``depid``/``deps`` name a step of another thread block of the same GPU
that must finish first; buffers are ``i`` (input), ``o`` (output) and ``s`` (scratch),
``cnt`` consecutive chunks from the offset.

What this reader accepts follows the executor's own loader (``src/misc/msccl/
msccl_parser.cc`` in Azure/msccl-executor-nccl and ROCm/rccl, function
``mscclGetAlgoFromXmlFile``): the same required attributes, the same step types and
buffers. The XML is parsed with :mod:`defusedxml` (no entities, no DTD, no external
references: an algorithm file is untrusted input). What the executor refuses to load
(including a ``cnt`` of :data:`EXECUTOR_MAX_COUNT` or more, and ``nop`` steps with
dependencies followed by a step without one: the loader gives a ``nop``'s dependencies to
the next step, which must have one of its own) and what makes the file unreadable raise
:class:`~gossipcert.errors.FormatError` (with the line where the parser gives one); what the
executor accepts but that is wrong all the same (``minBytes``/``maxBytes`` missing,
duplicate thread-block ids, two thread blocks sharing a connection) is recorded in
:attr:`MscclAlgorithm.defects` for the verdict.

``minBytes`` and ``maxBytes``: the executor's loader reads them with
``mscclXmlGetAttrInt64``; when one is missing it logs ``Attribute minBytes of node algo not
found`` at the WARN level and fails to load the file's metadata, so the algorithm is never
selected and every call falls back to NCCL's own algorithms: silently, unless the NCCL log
is read.

The writers' dialect is MSCCLang's ``ncclize`` in its executor form (``old_format``:
``<step s=...>`` with ``srcbuf``/``srcoff``/``dstbuf``/``dstoff``); the newer ``<op>``
dialect is refused with a message saying so.

References
----------
.. [1] M. Cowan, S. Maleki, M. Musuvathi, O. Saarikivi, Y. Xiong, "MSCCLang: Microsoft
   Collective Communication Language", ASPLOS 2023 (github.com/microsoft/msccl-tools,
   ``msccl/language/ir.py``: the XML writer).
.. [2] github.com/Azure/msccl-executor-nccl and github.com/ROCm/rccl,
   ``src/misc/msccl/msccl_parser.cc`` (the loader).
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sized
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from xml.etree.ElementTree import Element, ParseError

from defusedxml import DefusedXmlException
from defusedxml.ElementTree import DefusedXMLParser

from gossipcert.errors import FormatError

#: the step types the executor knows, with (receives, sends, reads src, writes dst, reduces)
STEP_TYPES: dict[str, tuple[bool, bool, bool, bool, bool]] = {
    "s": (False, True, True, False, False),
    "r": (True, False, False, True, False),
    "rcs": (True, True, False, True, False),
    "rrs": (True, True, True, False, True),
    "rrc": (True, False, True, True, True),
    "rrcs": (True, True, True, True, True),
    "cpy": (False, False, True, True, False),
    "re": (False, False, True, True, True),
    "nop": (False, False, False, False, False),
}

#: the collectives the executor's loader knows (``coll``)
COLLECTIVES = (
    "allgather",
    "alltoall",
    "allreduce",
    "reducescatter",
    "reduce",
    "broadcast",
    "send",
    "recv",
    "gather",
    "scatter",
    "alltoallv",
)
PROTOCOLS = ("Simple", "LL128", "LL")
BUFFERS = ("i", "o", "s")

#: the executor's default ``MSCCL_MAX_NUM_STEPS`` (steps in one thread block) and
#: ``MAXCHANNELS`` (its loader refuses a step index or a channel beyond them)
EXECUTOR_MAX_STEPS = 64
EXECUTOR_MAX_CHANNELS = 32
#: ``MSCCL_MAX_COUNT`` (a step moves fewer chunks), ``MSCCL_MAX_REDUCE_FUSION`` (``re`` fused)
EXECUTOR_MAX_COUNT = 72
EXECUTOR_MAX_REDUCE_FUSION = 16


def lane_channel(
    blocks: Mapping[Any, Sized],
    group: dict[tuple[int, int, int], int],
    width: int,
    lane: tuple[int, int, int],
    spare: int,
) -> int:
    """The channel of a writer's next send on ``lane`` (sender, receiver, index among the
    sends on that arc in one round): channel ``group * width + index``, moving the lane to
    its next group of channels (a new thread block) when the current one has fewer than
    ``spare`` of the executor's :data:`EXECUTOR_MAX_STEPS` steps left (``blocks`` holds the
    steps of each thread block so far, keyed ``("send", sender, receiver, channel)``).

    Raises
    ------
    FormatError
        The lane needs more than the executor's :data:`EXECUTOR_MAX_CHANNELS` channels.
    """
    u, v, i = lane
    chan = group[lane] * width + i
    if len(blocks[("send", u, v, chan)]) > EXECUTOR_MAX_STEPS - spare:
        group[lane] += 1  # a new thread block on the next channel group
        chan = group[lane] * width + i
    if chan >= EXECUTOR_MAX_CHANNELS:
        raise FormatError(
            f"the schedule sends too many chunks from rank {u} to {v}: with at most "
            f"{EXECUTOR_MAX_STEPS} steps a thread block, it needs more than the executor's "
            f"{EXECUTOR_MAX_CHANNELS} channels"
        )
    return chan


#: the largest file read (the executor itself stops at 4096 XML nodes per rank)
MAX_BYTES = 1 << 28


@dataclass(frozen=True)
class Step:
    """One ``<step>`` of a thread block (offsets as written; ``cnt`` chunks)."""

    index: int
    kind: str
    srcbuf: str
    srcoff: int
    dstbuf: str
    dstoff: int
    cnt: int
    depid: int
    deps: int
    hasdep: int
    line: int | None = None

    @property
    def receives(self) -> bool:
        return STEP_TYPES[self.kind][0]

    @property
    def sends(self) -> bool:
        return STEP_TYPES[self.kind][1]


@dataclass(frozen=True)
class ThreadBlock:
    """A ``<tb>``: its id, peers (``-1``: none), channel and steps in order."""

    id: int
    send: int
    recv: int
    chan: int
    steps: tuple[Step, ...]
    line: int | None = None


@dataclass(frozen=True)
class Gpu:
    """A ``<gpu>``: its rank, buffer sizes in chunks and thread blocks."""

    id: int
    i_chunks: int
    o_chunks: int
    s_chunks: int
    tbs: tuple[ThreadBlock, ...]


@dataclass(frozen=True)
class MscclAlgorithm:
    """An MSCCL XML algorithm as read.

    Attributes
    ----------
    attrs : dict
        The ``<algo>`` attributes as written (text).
    name, coll, proto : str
    ngpus, nchannels, nchunksperloop : int
    inplace, outofplace : bool or None
        None when the attribute is missing (a defect: the executor requires both).
    gpus : tuple of Gpu
        Indexed by rank.
    defects : list of str
        What the executor accepts or skips silently but is wrong all the same.
    source : str
    """

    name: str
    coll: str
    proto: str
    ngpus: int
    nchannels: int
    nchunksperloop: int
    inplace: bool | None
    outofplace: bool | None
    min_bytes: int | None
    max_bytes: int | None
    gpus: tuple[Gpu, ...]
    defects: list[str] = field(default_factory=list)
    source: str = "algorithm"

    @property
    def n_steps(self) -> int:
        """Number of steps over every thread block."""
        return sum(len(tb.steps) for g in self.gpus for tb in g.tbs)


def _line(elem: Element) -> int | None:
    return getattr(elem, "sourceline", None)


def _where(source: str, elem: Element | None) -> str:
    line = None if elem is None else _line(elem)
    return f"{source}:{line}" if line else source


def _int_attr(elem: Element, key: str, where: str, default: int | None = None) -> int:
    text = elem.get(key)
    if text is None:
        if default is not None:
            return default
        raise FormatError(f"{where}: <{elem.tag}> has no {key!r} attribute (the executor needs it)")
    try:
        return int(text.strip(), 0)
    except ValueError:
        raise FormatError(
            f"{where}: <{elem.tag}> attribute {key}={text!r} is not an integer"
        ) from None


def parse_msccl_xml(text: str | bytes, source: str = "algorithm") -> MscclAlgorithm:
    """Parse the text of an MSCCL XML algorithm (see the module docstring).

    Parameters
    ----------
    text : str or bytes
        The XML.
    source : str
        A name for messages (the file's path).

    Returns
    -------
    MscclAlgorithm

    Raises
    ------
    FormatError
        Not XML (with the line and column), entities or a DTD, not an ``<algo>``, a missing
        or non-integer attribute the executor reads, an unknown collective, protocol, buffer
        or step type, a peer or dependency outside the algorithm, a negative offset on a
        buffer the step uses, an offset beyond the buffer, a negative ``cnt``.

    Examples
    --------
    >>> algo = parse_msccl_xml('''<algo name="x" proto="LL" nchannels="1" nchunksperloop="2"
    ...   ngpus="2" coll="allgather" inplace="1" outofplace="0" minBytes="0" maxBytes="0">
    ...  <gpu id="0" i_chunks="0" o_chunks="2" s_chunks="0"><tb id="0" send="1" recv="1" chan="0">
    ...   <step s="0" type="s" srcbuf="o" srcoff="0" dstbuf="o" dstoff="0" cnt="1" depid="-1"
    ...    deps="-1" hasdep="0"/></tb></gpu>
    ...  <gpu id="1" i_chunks="0" o_chunks="2" s_chunks="0"><tb id="0" send="0" recv="0" chan="0">
    ...   <step s="0" type="r" srcbuf="o" srcoff="0" dstbuf="o" dstoff="0" cnt="1" depid="-1"
    ...    deps="-1" hasdep="0"/></tb></gpu></algo>''')
    >>> algo.coll, algo.ngpus, algo.n_steps
    ('allgather', 2, 2)

    References
    ----------
    github.com/Azure/msccl-executor-nccl, ``src/misc/msccl/msccl_parser.cc``.
    """
    root = _parse_tree(text, source)
    if root.tag != "algo":
        hint = ""
        if root.tag in ("system", "topology", "graphs"):
            hint = " (an NCCL topology or graph file, not an algorithm)"
        raise FormatError(
            f"{_where(source, root)}: the root element is <{root.tag}>{hint}; an "
            "MSCCL algorithm is an <algo> element"
        )
    return _read_algo(root, source)


def read_msccl_xml(path: str | os.PathLike[str]) -> MscclAlgorithm:
    """Read an MSCCL XML algorithm file (see :func:`parse_msccl_xml`).

    Raises
    ------
    FormatError
        Missing, unreadable, larger than 256 MiB, or not an algorithm the executor loads.
    """
    name = os.fspath(path)
    p = Path(name)
    try:
        if p.stat().st_size > MAX_BYTES:
            raise FormatError(f"{name}: larger than {MAX_BYTES:,} bytes")
        data = p.read_bytes()
    except FileNotFoundError:
        raise FormatError(f"{name} does not exist") from None
    except OSError as exc:
        raise FormatError(f"cannot read {name}: {exc.strerror or exc}") from None
    return parse_msccl_xml(data, name)


class _LineTreeBuilder(DefusedXMLParser):
    """The defused expat parser, recording each element's line as ``sourceline``."""

    def _start(self, tag: str, attr_list: list[str]) -> Element:  # pragma: no cover - hook
        elem = super()._start(tag, attr_list)
        elem.sourceline = self.parser.CurrentLineNumber
        return elem


def _parse_tree(text: str | bytes, source: str) -> Element:
    parser = _LineTreeBuilder(forbid_dtd=True, forbid_entities=True, forbid_external=True)
    try:
        parser.feed(text)
        return parser.close()
    except ParseError as exc:
        line, col = getattr(exc, "position", (None, None))
        detail = str(exc).split(":")[0]
        at = f"{source}:{line}:{col}" if line else source
        raise FormatError(f"{at}: not well-formed XML ({detail})") from None
    except DefusedXmlException as exc:
        raise FormatError(
            f"{source}: refused: the XML declares {type(exc).__name__.replace('Forbidden', '')}"
            " (entities, DTDs and external references are not read from algorithm files)"
        ) from None


def _choice(elem: Element, key: str, allowed: tuple[str, ...], where: str) -> str:
    value = elem.get(key)
    if value is None:
        raise FormatError(f"{where}: <{elem.tag}> has no {key!r} attribute (the executor needs it)")
    if value not in allowed:
        raise FormatError(
            f"{where}: {key}={value!r} is not one the executor knows ({', '.join(allowed)})"
        )
    return value


def _read_algo(root: Element, source: str) -> MscclAlgorithm:
    where = _where(source, root)
    defects: list[str] = []
    ngpus = _int_attr(root, "ngpus", where)
    if ngpus < 1:
        raise FormatError(f"{where}: ngpus={ngpus}; an algorithm has at least one GPU")
    coll = _choice(root, "coll", COLLECTIVES, where)
    proto = _choice(root, "proto", PROTOCOLS, where)
    nchannels = _int_attr(root, "nchannels", where)
    nchunks = _int_attr(root, "nchunksperloop", where)
    if nchunks < 1:
        raise FormatError(f"{where}: nchunksperloop={nchunks}; it must be at least 1")
    flags: dict[str, bool | None] = {}
    for key in ("inplace", "outofplace"):
        flags[key] = None if root.get(key) is None else bool(_int_attr(root, key, where))
        if flags[key] is None:
            defects.append(
                f"{where}: <algo> has no {key!r}: the executor's loader fails on it and never "
                "selects the algorithm (only a WARN line in the NCCL log says so)"
            )
    sizes: dict[str, int | None] = {}
    for key in ("minBytes", "maxBytes"):
        sizes[key] = None if root.get(key) is None else _int_attr(root, key, where)
        if sizes[key] is None:
            defects.append(
                f"{where}: <algo> has no {key!r}: the executor's loader fails on it and skips "
                "the algorithm silently (only a WARN line in the NCCL log says so), so every "
                "call runs NCCL's own algorithm instead"
            )
    gpus: dict[int, Gpu] = {}
    for elem in root:
        ops = elem.tag == "gpu" and any(t.tag == "op" for tb in elem for t in tb)
        if elem.tag == "op" or ops:
            raise FormatError(
                f"{_where(source, elem)}: the <op> dialect (MSCCLang's newer "
                "runtime format) is not the executor's; write it with old_format"
            )
        if elem.tag != "gpu":
            continue
        gpu = _read_gpu(elem, source, ngpus, defects)
        if gpu.id in gpus:
            raise FormatError(f"{_where(source, elem)}: <gpu id={gpu.id}> appears twice")
        gpus[gpu.id] = gpu
    missing = [r for r in range(ngpus) if r not in gpus]
    if missing:
        raise FormatError(f"{where}: ngpus={ngpus} but no <gpu> for rank(s) {missing[:8]}")
    return MscclAlgorithm(
        name=root.get("name", ""),
        coll=coll,
        proto=proto,
        ngpus=ngpus,
        nchannels=nchannels,
        nchunksperloop=nchunks,
        inplace=flags["inplace"],
        outofplace=flags["outofplace"],
        min_bytes=sizes["minBytes"],
        max_bytes=sizes["maxBytes"],
        gpus=tuple(gpus[r] for r in range(ngpus)),
        defects=defects,
        source=source,
    )


def _read_gpu(elem: Element, source: str, ngpus: int, defects: list[str]) -> Gpu:
    where = _where(source, elem)
    rank = _int_attr(elem, "id", where)
    if not 0 <= rank < ngpus:
        raise FormatError(f"{where}: <gpu id={rank}> is outside 0..{ngpus - 1} (ngpus={ngpus})")
    sizes = {k: _int_attr(elem, k, where) for k in ("i_chunks", "o_chunks", "s_chunks")}
    for key, value in sizes.items():
        if value < 0:
            raise FormatError(f"{where}: {key}={value} is negative")
    tbs: dict[int, ThreadBlock] = {}
    for tb_elem in elem:
        if tb_elem.tag != "tb":
            continue
        tb = _read_tb(tb_elem, source, rank, ngpus, sizes, defects)
        if tb.id in tbs:
            raise FormatError(
                f"{_where(source, tb_elem)}: GPU {rank} has thread block {tb.id} "
                "twice (the executor refuses duplicate ids)"
            )
        tbs[tb.id] = tb
    if tbs and sorted(tbs) != list(range(len(tbs))):
        gap = next(i for i in range(len(tbs) + 1) if i not in tbs)
        raise FormatError(
            f"{where}: GPU {rank}'s thread blocks skip id {gap} (the executor "
            "refuses ids that are not 0, 1, 2, ...)"
        )
    ordered = tuple(tbs[i] for i in range(len(tbs)))
    for tb in ordered:
        for st in tb.steps:
            if st.depid >= 0 and (
                st.depid >= len(ordered) or st.deps >= len(ordered[st.depid].steps) or st.deps < 0
            ):
                raise FormatError(
                    f"{_where(source, elem)}: GPU {rank} thread block {tb.id} step {st.index} "
                    f"depends on thread block {st.depid} step {st.deps}, which does not exist"
                )
    seen: dict[tuple[str, int, int], int] = {}
    for tb in ordered:
        for role, peer in (("send", tb.send), ("recv", tb.recv)):
            if peer < 0:
                continue
            link = (role, peer, tb.chan)
            if link in seen:
                defects.append(
                    f"GPU {rank}: thread blocks {seen[link]} and {tb.id} both {role} "
                    f"{'to' if role == 'send' else 'from'} GPU {peer} on channel {tb.chan}: one "
                    "connection, so the order of their transfers is undefined"
                )
            else:
                seen[link] = tb.id
    return Gpu(rank, sizes["i_chunks"], sizes["o_chunks"], sizes["s_chunks"], ordered)


def _read_tb(
    elem: Element,
    source: str,
    rank: int,
    ngpus: int,
    sizes: dict[str, int],
    defects: list[str],
) -> ThreadBlock:
    where = _where(source, elem)
    tb_id = _int_attr(elem, "id", where)
    if tb_id < 0:
        raise FormatError(f"{where}: thread block id {tb_id} is negative")
    send, recv, chan = (_int_attr(elem, k, where) for k in ("send", "recv", "chan"))
    for key, peer in (("send", send), ("recv", recv)):
        if peer < -1 or peer >= ngpus:
            raise FormatError(
                f"{where}: GPU {rank} thread block {tb_id}: {key}={peer} is not a "
                f"rank (0..{ngpus - 1}) nor -1"
            )
        if peer == rank:
            raise FormatError(
                f"{where}: GPU {rank} thread block {tb_id}: {key}={peer} is the GPU itself"
            )
    if chan < 0:
        raise FormatError(f"{where}: GPU {rank} thread block {tb_id}: channel {chan} is negative")
    steps = []
    for st_elem in elem:
        if st_elem.tag != "step":
            continue
        step = _read_step(st_elem, source, rank, tb_id, sizes)
        if step.receives and recv < 0:
            raise FormatError(
                f"{_where(source, st_elem)}: GPU {rank} thread block {tb_id} step "
                f"{step.index} ({step.kind}) receives but the block has recv=-1"
            )
        if step.sends and send < 0:
            raise FormatError(
                f"{_where(source, st_elem)}: GPU {rank} thread block {tb_id} step "
                f"{step.index} ({step.kind}) sends but the block has send=-1"
            )
        steps.append(step)
    if len(steps) > EXECUTOR_MAX_STEPS:
        defects.append(
            f"{where}: GPU {rank} thread block {tb_id} has {len(steps)} steps: the executor's "
            f"default build (MSCCL_MAX_NUM_STEPS={EXECUTOR_MAX_STEPS}) refuses to load it"
        )
    if chan >= EXECUTOR_MAX_CHANNELS:
        defects.append(
            f"{where}: GPU {rank} thread block {tb_id} is on channel {chan}: NCCL has "
            f"{EXECUTOR_MAX_CHANNELS} channels (MAXCHANNELS)"
        )
    numbers = [s.index for s in steps]
    if numbers != list(range(len(steps))):
        raise FormatError(
            f"{where}: GPU {rank} thread block {tb_id}: steps are numbered "
            f"{numbers[:6]}..., not 0, 1, 2, ... in order"
        )
    _check_nop_chains(steps, f"{where}: GPU {rank} thread block {tb_id}")
    return ThreadBlock(tb_id, send, recv, chan, tuple(steps), _line(elem))


def _check_nop_chains(steps: list[Step], where: str) -> None:
    """The loader's rule: ``nop`` dependencies go to the next step (not a ``re`` fused into
    the reduction before it), which must have one of its own ("XML will be ignored")."""
    pending, reductions, chain = 0, 0, None
    for st in steps:
        pending += st.depid >= 0
        if st.kind == "nop":
            continue
        fused = st.kind == "re" and chain == (st.dstbuf, st.dstoff, st.srcbuf) and st.depid < 0
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
        chain = None if full else (st.dstbuf, st.dstoff, st.srcbuf)


def _read_step(elem: Element, source: str, rank: int, tb_id: int, sizes: dict[str, int]) -> Step:
    where = _where(source, elem)
    if elem.get("type") is None:
        raise FormatError(f"{where}: <step> has no 'type' attribute")
    kind = elem.get("type", "")
    if kind not in STEP_TYPES:
        raise FormatError(
            f"{where}: GPU {rank} thread block {tb_id}: step type {kind!r} is not "
            f"one the executor knows ({' '.join(STEP_TYPES)})"
        )
    index = _int_attr(elem, "s", where)
    srcbuf = _choice(elem, "srcbuf", BUFFERS, where)
    dstbuf = _choice(elem, "dstbuf", BUFFERS, where)
    srcoff, dstoff, cnt = (_int_attr(elem, k, where) for k in ("srcoff", "dstoff", "cnt"))
    depid, deps, hasdep = (_int_attr(elem, k, where) for k in ("depid", "deps", "hasdep"))
    if not 0 <= cnt < EXECUTOR_MAX_COUNT and kind != "nop":
        raise FormatError(
            f"{where}: GPU {rank} thread block {tb_id} step {index}: cnt={cnt}; the executor "
            f"takes 0 to {EXECUTOR_MAX_COUNT - 1} (MSCCL_MAX_COUNT)"
        )
    if hasdep not in (0, 1):
        raise FormatError(f"{where}: hasdep={hasdep}; the executor takes 0 or 1")
    _, _, reads, writes, _ = STEP_TYPES[kind]
    used = [("src", srcbuf, srcoff)] if reads or kind in ("s", "rcs") else []
    if writes:
        used.append(("dst", dstbuf, dstoff))
    for role, buf, off in used:
        if off < 0:
            raise FormatError(
                f"{where}: GPU {rank} thread block {tb_id} step {index} ({kind}): "
                f"negative {role} offset {off}"
            )
        size = sizes[f"{buf}_chunks"]
        if off + cnt > size:
            raise FormatError(
                f"{where}: GPU {rank} thread block {tb_id} step {index} ({kind}): {role} chunks "
                f"{off}..{off + cnt - 1} of buffer {buf!r} beyond its {size} chunks "
                f"({buf}_chunks)"
            )
    return Step(index, kind, srcbuf, srcoff, dstbuf, dstoff, cnt, depid, deps, hasdep, _line(elem))
