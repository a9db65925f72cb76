"""Reading MSCCL++ execution plans, the JSON files MSCCL++'s executor runs.

A plan (what ``CollectiveProgram.to_json`` of MSCCL++'s Python DSL writes) is an object::

    {"name": "...", "collective": "allreduce", "protocol": "Simple" | "LL", "inplace": true,
     "gpus": [{"id": 0, "input_chunks": 16, "output_chunks": 16, "scratch_chunks": 0,
               "channels": [{"channel_type": "memory", "connected_to": [1, 1]},
                            {"channel_type": "switch", "buffer_type": "i",
                             "rank_groups": [{"size": 2, "ranks": [0, 1]}]}],
               "remote_buffers": [{"rank": 1, "type": "i", "access_channel_types": ["memory"]}],
               "semaphores": [{"init_value": 0}],
               "threadblocks": [{"id": 0, "ops": [...],
                                 "channels": [{"channel_type": "memory", "channel_ids": [0]}],
                                 "remote_buffer_refs": [{"access_channel_type": "memory",
                                                         "remote_buffer_ids": [0]}]}]}],
     "num_threads_per_block": 1024, "use_double_scratch_buffer": false, ...}

and an operation ``{"name": "put", "src_buff": [{"type": "i", "index": 0, "size": 1}],
"dst_buff": [{"buffer_id": 0, "index": 0, "size": 1}], "channel_type": "memory"}``: a local
buffer reference names its ``type`` (``i`` input, ``o`` output, ``s`` scratch), a remote one
its ``buffer_id`` (the thread block's ``remote_buffer_refs`` of the operation's channel
type, which name the GPU's ``remote_buffers``), a switch one its ``switch_channel_id``; all
count ``index`` and ``size`` in chunks of the buffer.

What this reader accepts follows the executor's own loader (``ExecutionPlan::Impl`` in
``src/core/executor/execution_plan.cc`` of microsoft/mscclpp): the keys it reads, with the
types it converts them to, and the names it knows (operation names, buffer and channel
types); what makes the loader throw, or reach past the end of a list, raises
:class:`~gossipcert.errors.FormatError` with the JSON path. The loader reads a switch
channel's buffer from ``buffer_type`` (an older form wrote ``buff``, which it no longer
reads) and takes a thread block's place in ``threadblocks`` as its id. Integers must be
JSON integers (the loader would also convert ``true`` or ``1.5``); ``reduce_op`` is not read
by the loader (every reduction sums).

What the loader accepts but the executor then refuses or runs wrong is recorded in
:attr:`Plan.defects` (the verdict reports each): more than 64 operations in a thread block
(``MAX_OPERATION``, counting a pipeline's operations), more than 16 channels of one type in
a thread block (``MAX_CHANNEL``), more than 8 channels in an operation, more than 16
semaphores in an operation, a barrier id of 16 or more (``MAX_DEVICE_SYNCERS``).

Hostile input is refused quickly with the limit named: files over :data:`MAX_BYTES`, more
than :data:`MAX_RANKS` GPUs, buffers of more than :data:`MAX_CHUNKS` chunks, more than
:data:`MAX_OPS` operations in all, nesting deeper than Python's JSON decoder goes.

References
----------
.. [1] github.com/microsoft/mscclpp, ``src/core/executor/execution_plan.cc`` (the loader),
   ``src/core/include/execution_common.hpp`` (its limits),
   ``python/mscclpp/language/`` (the DSL that writes plans).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from gossipcert.errors import FormatError
from gossipcert.formats.mscclpp_types import (
    BufRef,
    Gpu,
    Op,
    Plan,
    SwitchChannel,
    ThreadBlock,
    check_refs,
)

#: the operation names the loader knows (``getOpType``)
OP_NAMES = (
    "nop",
    "barrier",
    "put",
    "pws",
    "pwsf",
    "get",
    "copy",
    "signal",
    "wait",
    "flush",
    "re",
    "res",
    "rre",
    "rres",
    "ppkt",
    "rppkt",
    "respkt",
    "cpkt",
    "upkt",
    "repkt",
    "recpkt",
    "recspkt",
    "glres",
    "gstore",
    "gstorepkt",
    "rlxsignal",
    "rlxwait",
    "pipeline",
    "sem_acquire",
    "sem_release",
)
BUFFERS = ("i", "o", "s")
CHANNEL_TYPES = ("memory", "port", "none", "switch")

#: the executor's limits (``execution_common.hpp``)
MAX_OPERATION = 64
MAX_CHANNEL = 16
MAX_CHANNEL_PER_OPERATION = 8
MAX_DEVICE_SYNCERS = 16
MAX_DEVICE_SEMAPHORES = 16

#: the reader's own limits on untrusted input
MAX_BYTES = 1 << 26
MAX_RANKS = 4096
MAX_CHUNKS = 1 << 16
MAX_OPS = 1 << 20
MAX_TBG = 1 << 10


class _Reader:
    """Typed access to decoded JSON with the path of each value in messages."""

    def __init__(self, source: str) -> None:
        self.source = source
        self.ops = 0

    def fail(self, path: str, what: str) -> FormatError:
        return FormatError(f"{self.source}: {path}: {what}")

    def obj(self, value: Any, path: str) -> dict[str, Any]:
        if not isinstance(value, dict):
            raise self.fail(path, f"expected an object, got {type(value).__name__}")
        return value

    def get(self, obj: dict[str, Any], key: str, path: str) -> Any:
        if key not in obj:
            raise self.fail(path, f"no {key!r} (the executor's loader needs it)")
        return obj[key]

    def array(self, value: Any, path: str, limit: int = MAX_OPS) -> list[Any]:
        if not isinstance(value, list):
            raise self.fail(path, f"expected a list, got {type(value).__name__}")
        if len(value) > limit:
            raise self.fail(path, f"{len(value):,} entries; at most {limit:,} are read")
        return value

    def integer(self, value: Any, path: str, low: int = 0, high: int = MAX_CHUNKS) -> int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise self.fail(path, f"expected an integer, got {json.dumps(value)[:40]}")
        if not low <= value <= high:
            raise self.fail(path, f"{value} is outside {low}..{high:,}")
        return value

    def text(self, value: Any, path: str, allowed: tuple[str, ...] | None = None) -> str:
        if not isinstance(value, str):
            raise self.fail(path, f"expected a string, got {json.dumps(value)[:40]}")
        if allowed is not None and value not in allowed:
            raise self.fail(
                path, f"{value[:40]!r} is not one the executor knows ({', '.join(allowed)})"
            )
        return value

    def field(self, obj: dict[str, Any], key: str, path: str, **kw: Any) -> int:
        return self.integer(self.get(obj, key, path), f"{path}.{key}", **kw)


def parse_mscclpp_plan(text: str | bytes, source: str = "plan") -> Plan:
    """Parse the text of an MSCCL++ execution plan (see the module docstring).

    Raises
    ------
    FormatError
        Not JSON, not a plan, or a plan the executor's loader refuses.

    Examples
    --------
    >>> text = '''{"name": "p", "collective": "allgather", "protocol": "Simple",
    ...  "inplace": true, "gpus": [{"id": 0, "input_chunks": 1, "output_chunks": 1,
    ...  "scratch_chunks": 0, "threadblocks": [], "channels": [], "remote_buffers": []}]}'''
    >>> plan = parse_mscclpp_plan(text)
    >>> plan.collective, plan.ranks, plan.n_ops
    ('allgather', 1, 0)
    """
    if len(text) > MAX_BYTES:
        raise FormatError(f"{source}: larger than {MAX_BYTES:,} bytes (the reader's limit)")
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise FormatError(f"{source}:{exc.lineno}:{exc.colno}: invalid JSON: {exc.msg}") from None
    except RecursionError:
        raise FormatError(f"{source}: JSON nested too deeply to be a plan") from None
    except UnicodeDecodeError as exc:
        raise FormatError(f"{source}: not UTF-8 text ({exc.reason})") from None
    return _read_plan(data, _Reader(source))


def read_mscclpp_plan(path: str | os.PathLike[str]) -> Plan:
    """Read an MSCCL++ execution plan file (see :func:`parse_mscclpp_plan`).

    Raises
    ------
    FormatError
        Missing, unreadable, larger than :data:`MAX_BYTES`, or not a plan the loader reads.
    """
    name = os.fspath(path)
    p = Path(name)
    try:
        if p.stat().st_size > MAX_BYTES:
            raise FormatError(f"{name}: larger than {MAX_BYTES:,} bytes (the reader's limit)")
        data = p.read_bytes()
    except FileNotFoundError:
        raise FormatError(f"{name} does not exist") from None
    except OSError as exc:
        raise FormatError(f"cannot read {name}: {exc.strerror or exc}") from None
    return parse_mscclpp_plan(data, name)


def _read_plan(data: Any, rd: _Reader) -> Plan:
    if isinstance(data, dict) and "gpus" not in data and ("algo" in data or "msccl_type" in data):
        raise rd.fail("$", "not an MSCCL++ execution plan (no 'gpus'; another tool's JSON?)")
    top = rd.obj(data, "$")
    name = rd.text(rd.get(top, "name", "$"), "$.name")
    collective = rd.text(rd.get(top, "collective", "$"), "$.collective")
    protocol = rd.text(rd.get(top, "protocol", "$"), "$.protocol")
    inplace = rd.get(top, "inplace", "$")
    if not isinstance(inplace, bool):
        raise rd.fail("$.inplace", f"expected true or false, got {json.dumps(inplace)[:40]}")
    double = top.get("use_double_scratch_buffer", False)
    if not isinstance(double, bool):
        raise rd.fail("$.use_double_scratch_buffer", "expected true or false")
    gpus_raw = rd.array(rd.get(top, "gpus", "$"), "$.gpus", MAX_RANKS)
    if not gpus_raw:
        raise rd.fail("$.gpus", "no GPU")
    n = len(gpus_raw)
    defects: list[str] = []
    gpus = tuple(_read_gpu(g, f"$.gpus[{r}]", r, n, rd, defects) for r, g in enumerate(gpus_raw))
    reuse = top.get("reuse_resources", False)
    if not isinstance(reuse, bool):
        raise rd.fail("$.reuse_resources", "expected true or false")
    plan = Plan(name, collective, protocol, inplace, gpus, double, reuse, defects, rd.source)
    check_refs(plan, rd.fail)
    return plan


def _read_gpu(raw: Any, path: str, rank: int, n: int, rd: _Reader, defects: list[str]) -> Gpu:
    g = rd.obj(raw, path)
    gid = rd.field(g, "id", path, high=MAX_RANKS)
    if gid != rank:
        raise rd.fail(
            f"{path}.id",
            f"GPU {gid} at place {rank}: the loader refuses it ('GPU rank does not match')",
        )
    sizes = [rd.field(g, k, path) for k in ("input_chunks", "output_chunks", "scratch_chunks")]
    if sizes[0] == 0 and sizes[1] == 0:
        raise rd.fail(path, "input_chunks and output_chunks are both 0 (the loader refuses it)")
    peers: dict[str, list[int]] = {"memory": [], "port": []}
    switches: list[SwitchChannel] = []
    for c, ch_raw in enumerate(rd.array(rd.get(g, "channels", path), f"{path}.channels")):
        cpath = f"{path}.channels[{c}]"
        ch = rd.obj(ch_raw, cpath)
        kind = rd.text(rd.get(ch, "channel_type", cpath), f"{cpath}.channel_type", CHANNEL_TYPES)
        if kind == "switch":
            if "buffer_type" not in ch:
                old = (
                    " (the older form 'buff', which the loader no longer reads)"
                    if "buff" in ch
                    else ""
                )
                raise rd.fail(cpath, f"a switch channel without 'buffer_type'{old}")
            buf = rd.text(ch["buffer_type"], f"{cpath}.buffer_type", BUFFERS)
            for k, grp_raw in enumerate(rd.array(rd.get(ch, "rank_groups", cpath), cpath)):
                gp = f"{cpath}.rank_groups[{k}]"
                grp = rd.obj(grp_raw, gp)
                rd.field(grp, "size", gp)
                ranks = rd.array(rd.get(grp, "ranks", gp), f"{gp}.ranks", MAX_RANKS)
                switches.append(
                    SwitchChannel(
                        buf,
                        tuple(
                            rd.integer(x, f"{gp}.ranks[{i}]", 0, n - 1) for i, x in enumerate(ranks)
                        ),
                    )
                )
            continue
        targets = rd.array(
            rd.get(ch, "connected_to", cpath), f"{cpath}.connected_to", MAX_RANKS * 64
        )
        for i, peer in enumerate(targets):
            p = rd.integer(peer, f"{cpath}.connected_to[{i}]", 0, n - 1)
            if kind in peers:
                peers[kind].append(p)
    remotes = []
    for b, rb_raw in enumerate(
        rd.array(rd.get(g, "remote_buffers", path), f"{path}.remote_buffers")
    ):
        bp = f"{path}.remote_buffers[{b}]"
        rb = rd.obj(rb_raw, bp)
        owner = rd.field(rb, "rank", bp, high=n - 1)
        buf = rd.text(rd.get(rb, "type", bp), f"{bp}.type", BUFFERS)
        types = rd.array(rd.get(rb, "access_channel_types", bp), f"{bp}.access_channel_types", 8)
        remotes.append(
            (
                owner,
                buf,
                tuple(
                    rd.text(t, f"{bp}.access_channel_types[{i}]", CHANNEL_TYPES)
                    for i, t in enumerate(types)
                ),
            )
        )
    sems = tuple(
        rd.field(
            rd.obj(s, f"{path}.semaphores[{i}]"),
            "init_value",
            f"{path}.semaphores[{i}]",
            high=1 << 30,
        )
        for i, s in enumerate(rd.array(g.get("semaphores", []), f"{path}.semaphores"))
    )
    tbs = tuple(
        _read_tb(t, f"{path}.threadblocks[{i}]", i, rd, defects, rank)
        for i, t in enumerate(rd.array(rd.get(g, "threadblocks", path), f"{path}.threadblocks"))
    )
    return Gpu(
        rank,
        sizes[0],
        sizes[1],
        sizes[2],
        {k: tuple(v) for k, v in peers.items()},
        tuple(switches),
        tuple(remotes),
        sems,
        tbs,
    )


def _read_tb(
    raw: Any, path: str, place: int, rd: _Reader, defects: list[str], rank: int
) -> ThreadBlock:
    t = rd.obj(raw, path)
    tid = rd.field(t, "id", path, high=MAX_OPS)
    if tid != place:
        raise rd.fail(
            f"{path}.id",
            f"thread block {tid} at place {place}: the loader indexes "
            "operations by place and channels by id, which must agree",
        )
    channels: dict[str, list[int]] = {"memory": [], "port": [], "switch": []}
    for c, ch_raw in enumerate(rd.array(rd.get(t, "channels", path), f"{path}.channels")):
        cp = f"{path}.channels[{c}]"
        ch = rd.obj(ch_raw, cp)
        kind = rd.text(rd.get(ch, "channel_type", cp), f"{cp}.channel_type", CHANNEL_TYPES)
        ids = rd.array(rd.get(ch, "channel_ids", cp), f"{cp}.channel_ids")
        if kind in channels:
            channels[kind].extend(
                rd.integer(x, f"{cp}.channel_ids[{i}]") for i, x in enumerate(ids)
            )
    for kind in ("memory", "port", "switch"):
        if len(channels[kind]) > MAX_CHANNEL:
            defects.append(
                f"{path}: {len(channels[kind])} {kind} channels; the device plan "
                f"holds {MAX_CHANNEL} (MAX_CHANNEL)"
            )
    refs: dict[str, list[int]] = {"memory": [], "port": []}
    for c, rr_raw in enumerate(
        rd.array(t.get("remote_buffer_refs", []), f"{path}.remote_buffer_refs")
    ):
        rp = f"{path}.remote_buffer_refs[{c}]"
        rr = rd.obj(rr_raw, rp)
        kind = rd.text(
            rd.get(rr, "access_channel_type", rp), f"{rp}.access_channel_type", CHANNEL_TYPES
        )
        ids = rd.array(rd.get(rr, "remote_buffer_ids", rp), f"{rp}.remote_buffer_ids")
        if kind in refs:
            refs[kind].extend(
                rd.integer(x, f"{rp}.remote_buffer_ids[{i}]") for i, x in enumerate(ids)
            )
    ops = []
    count = 0
    for i, op_raw in enumerate(rd.array(rd.get(t, "ops", path), f"{path}.ops")):
        op = _read_op(op_raw, f"{path}.ops[{i}]", rd, nested=False)
        ops.append(op)
        count += 1 + len(op.ops)
        for o in (op, *op.ops):
            _op_limits(o, defects)
    if count > MAX_OPERATION:
        defects.append(
            f"{path} (GPU {rank}): {count} operations; the executor refuses more than "
            f"{MAX_OPERATION} in a thread block (MAX_OPERATION)"
        )
    return ThreadBlock(
        place,
        tuple(ops),
        {k: tuple(v) for k, v in channels.items()},
        {k: tuple(v) for k, v in refs.items()},
    )


def _op_limits(op: Op, defects: list[str]) -> None:
    if len(op.channel_ids) > MAX_CHANNEL_PER_OPERATION:
        defects.append(
            f"{op.path}: {len(op.channel_ids)} channels; an operation holds "
            f"{MAX_CHANNEL_PER_OPERATION} (MAX_CHANNEL_PER_OPERATION)"
        )
    if len(op.src) > 2 + MAX_CHANNEL_PER_OPERATION or len(op.dst) > 2 + MAX_CHANNEL_PER_OPERATION:
        defects.append(f"{op.path}: more than {2 + MAX_CHANNEL_PER_OPERATION} buffers on a side")
    if len(op.semaphore_ids) > MAX_DEVICE_SEMAPHORES:
        defects.append(f"{op.path}: more than {MAX_DEVICE_SEMAPHORES} semaphores")
    if op.barrier_id >= MAX_DEVICE_SYNCERS:
        defects.append(
            f"{op.path}: barrier {op.barrier_id}; the device has "
            f"{MAX_DEVICE_SYNCERS} (MAX_DEVICE_SYNCERS)"
        )


def _read_op(raw: Any, path: str, rd: _Reader, nested: bool) -> Op:
    rd.ops += 1
    if rd.ops > MAX_OPS:
        raise rd.fail(path, f"more than {MAX_OPS:,} operations (the reader's limit)")
    o = rd.obj(raw, path)
    name = rd.text(rd.get(o, "name", path), f"{path}.name", OP_NAMES)
    kw: dict[str, Any] = {}
    if "channel_type" in o:
        kw["channel_type"] = rd.text(o["channel_type"], f"{path}.channel_type", CHANNEL_TYPES)
    if "channel_ids" in o:
        ids = rd.array(o["channel_ids"], f"{path}.channel_ids", 64)
        kw["channel_ids"] = tuple(
            rd.integer(x, f"{path}.channel_ids[{i}]") for i, x in enumerate(ids)
        )
    if "tbg_info" in o:
        tp = f"{path}.tbg_info"
        info = rd.obj(o["tbg_info"], tp)
        size = rd.field(info, "tbg_size", tp, low=1, high=MAX_TBG)
        kw["tbg"] = (rd.field(info, "tb_id", tp, high=size - 1), size)
    for side in ("src_buff", "dst_buff"):
        if side in o:
            refs = rd.array(o[side], f"{path}.{side}", 64)
            kw[side[:3]] = tuple(
                _read_ref(r, f"{path}.{side}[{i}]", rd) for i, r in enumerate(refs)
            )
    if "barrier_id" in o:
        kw["barrier_id"] = rd.integer(o["barrier_id"], f"{path}.barrier_id", 0, MAX_OPS)
    if "num_threadblocks" in o:
        kw["num_threadblocks"] = rd.integer(
            o["num_threadblocks"], f"{path}.num_threadblocks", 0, MAX_OPS
        )
    if "semaphore_ids" in o:
        ids = rd.array(o["semaphore_ids"], f"{path}.semaphore_ids", 64)
        kw["semaphore_ids"] = tuple(
            rd.integer(x, f"{path}.semaphore_ids[{i}]") for i, x in enumerate(ids)
        )
    if name == "pipeline":
        if nested:
            raise rd.fail(path, "a pipeline inside a pipeline (the loader reads one level)")
        ctx = rd.obj(rd.get(o, "iter_context", path), f"{path}.iter_context")
        rd.field(ctx, "unit_size", f"{path}.iter_context", low=1, high=1 << 40)
        rd.field(ctx, "num_chunks", f"{path}.iter_context", high=MAX_CHUNKS)
        inner = rd.array(rd.get(o, "ops", path), f"{path}.ops")
        kw["ops"] = tuple(_read_op(x, f"{path}.ops[{i}]", rd, True) for i, x in enumerate(inner))
    if name == "barrier" and ("barrier_id" not in o or "num_threadblocks" not in o):
        raise rd.fail(path, "a barrier needs 'barrier_id' and 'num_threadblocks'")
    return Op(name, path, **kw)


def _read_ref(raw: Any, path: str, rd: _Reader) -> BufRef:
    r = rd.obj(raw, path)
    index = rd.field(r, "index", path)
    size = rd.field(r, "size", path)
    if "switch_channel_id" in r:
        return BufRef(
            "switch",
            None,
            rd.integer(r["switch_channel_id"], f"{path}.switch_channel_id"),
            index,
            size,
        )
    if "buffer_id" in r:
        return BufRef("remote", None, rd.integer(r["buffer_id"], f"{path}.buffer_id"), index, size)
    if "type" not in r:
        raise rd.fail(
            path, "a buffer reference with neither 'type', 'buffer_id' nor 'switch_channel_id'"
        )
    return BufRef("local", rd.text(r["type"], f"{path}.type", BUFFERS), -1, index, size)
