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

What this reader accepts follows the executor's own loader (``mscclGetAlgoFromXmlFile`` in
``src/misc/msccl/msccl_parser.cc`` of Azure/msccl-executor-nccl and ROCm/rccl): its required
attributes, step types and buffers. The XML is parsed with :mod:`defusedxml` (no entities, no
DTD, no external references). What the executor refuses to load (a ``cnt`` of
:data:`EXECUTOR_MAX_COUNT` or more; ``nop`` steps with dependencies followed by a step
without one: the loader gives a ``nop``'s dependencies to the next step, which must have one
of its own) and what makes the file unreadable raise :class:`~gossipcert.errors.FormatError`
(with the line); what the executor accepts but is wrong all the same (``minBytes`` missing,
two thread blocks sharing a connection) is in :attr:`MscclAlgorithm.defects`.
Integers are read as the executor's ``strtol`` reads them, or refused
(:func:`gossipcert.limits.c_int`); the bytes must read alike to the executor's own
tokenizer (:mod:`gossipcert.formats.msccl_lexer`); sizes beyond :mod:`.limits` and a rank
loading :data:`EXECUTOR_MAX_NODES` XML elements or more (the executor's ``MAX_NODES``) are
refused. A missing ``minBytes`` or ``maxBytes`` makes the loader log a WARN line and skip the
algorithm: every call silently falls back to NCCL's own algorithms.

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
from gossipcert.formats.msccl_lexer import check_executor_reading
from gossipcert.formats.msccl_loader import check_transmissions
from gossipcert.limits import MAX_CELLS, MAX_CHUNKS, MAX_RANKS, c_int, check_limit

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
#: ``MSCCL_MAX_COUNT`` (a step moves fewer chunks)
EXECUTOR_MAX_COUNT = 72


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


#: the largest file read, and the executor's ``MAX_NODES`` (a rank loads fewer XML elements)
MAX_BYTES, EXECUTOR_MAX_NODES = 1 << 28, 4096


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


def _int_attr(elem: Element, key: str, where: str, bits: int = 32) -> int:
    """An integer attribute, read as the executor's ``strtol`` reads it (:func:`.limits.c_int`)."""
    text = elem.get(key)
    if text is None:
        raise FormatError(f"{where}: <{elem.tag}> has no {key!r} attribute (the executor needs it)")
    return c_int(text, f"{where}: <{elem.tag}> {key}", bits)


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
        Not XML (with the line and column), not an ``<algo>``, or what the executor's loader
        or tokenizer refuses or reads otherwise (see the module docstring).

    Examples
    --------
    >>> gpu = ('<gpu id="{0}" i_chunks="0" o_chunks="2" s_chunks="0"><tb id="0" send="{1}" '
    ...        'recv="{1}" chan="0"><step s="0" type="{2}" srcbuf="o" srcoff="0" dstbuf="o" '
    ...        'dstoff="0" cnt="1" depid="-1" deps="-1" hasdep="0"/></tb></gpu>')
    >>> algo = parse_msccl_xml('<algo name="x" proto="LL" nchannels="1" nchunksperloop="2" '
    ...     'ngpus="2" coll="allgather" inplace="1" outofplace="0" minBytes="0" maxBytes="0">'
    ...     + gpu.format(0, 1, "s") + gpu.format(1, 0, "r") + '</algo>')
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
    check_executor_reading(text.encode("utf-8") if isinstance(text, str) else text, root, source)
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
    check_limit(ngpus, MAX_RANKS, "GPUs (ngpus)", where)
    coll = _choice(root, "coll", COLLECTIVES, where)
    proto = _choice(root, "proto", PROTOCOLS, where)
    nchannels = _int_attr(root, "nchannels", where)
    nchunks = _int_attr(root, "nchunksperloop", where)
    if nchunks < 1:
        raise FormatError(f"{where}: nchunksperloop={nchunks}; it must be at least 1")
    check_limit(nchunks, MAX_CHUNKS, "chunks (nchunksperloop)", where)
    # an allreduce's every slot holds every rank's contribution; a root is sought by replaying
    cells = ngpus * nchunks * (ngpus if coll in ("allreduce", "reduce", "broadcast") else 1)
    check_limit(cells, MAX_CELLS, f"slots to replay ({ngpus} GPUs, {nchunks} chunks)", where)
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
        sizes[key] = None if root.get(key) is None else _int_attr(root, key, where, bits=64)
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
    for gpu in gpus.values():  # <algo>, every <gpu>, the rank's own <tb> and <step>
        loaded = 1 + len(gpus) + len(gpu.tbs) + sum(len(tb.steps) for tb in gpu.tbs)
        if loaded >= EXECUTOR_MAX_NODES:
            raise FormatError(f"{where}: GPU {gpu.id} loads {loaded} XML elements; the executor "
                              f"refuses {EXECUTOR_MAX_NODES} or more")  # fmt: skip
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
    if sizes["s_chunks"] < 0:  # the loader checks only this one (the others bound offsets)
        raise FormatError(f"{where}: s_chunks={sizes['s_chunks']} is negative")
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
    check_transmissions(steps, f"{where}: GPU {rank} thread block {tb_id}")
    return ThreadBlock(tb_id, send, recv, chan, tuple(steps), _line(elem))


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
    if hasdep not in (0, 1) and kind != "nop":  # the loader drops a nop's hasdep unread
        raise FormatError(f"{where}: hasdep={hasdep}; the executor takes 0 or 1")
    _, _, reads, writes, _ = STEP_TYPES[kind]
    used = [("src", srcbuf, srcoff)] if reads else []  # the loader's checkSrc, checkDst
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
