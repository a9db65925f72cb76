"""Writing a verified reduction schedule (``allreduce``, ``reduce-scatter``, ``reduce``) as
MSCCL XML.

Chunk ``c`` of the reduction (``c = owner K + piece``, the packet order of
:func:`gossipcert.instance.make_instance`) is slot ``c`` of the input buffer on every rank;
the algorithm is in place (``inplace="1"``), as NCCL lays out ``allreduce`` (output =
input) and ``reducescatter`` (rank ``r``'s output chunk ``j`` is input chunk ``r K + j``);
``nchunksperloop`` = ``n K``.

* a transmission ``u -> v`` of chunk ``c`` in round ``t`` is a send ``s`` of ``i[c]`` on
  ``u`` and a receive ``r`` on ``v`` into a scratch slot of its own; the ``i``-th chunk of a
  link in a round goes on channel ``i`` (a new group of channels after 64 steps), as for
  the copy collectives (:mod:`gossipcert.formats.writers`);
* on ``v`` a local thread block (``send=-1 recv=-1``) then folds the round's receipts into
  ``i[c]``: ``cpy`` for a copy, ``re`` for a combine (the verifier's order: the copy first),
  each waiting for its receive, and first for every send of the chunk since it was last
  written (a ``nop`` carries each such dependency), so that nothing overwrites a chunk
  before it is sent;
* a send of ``i[c]`` waits for the last local step that wrote it; in the point-to-point
  models a GPU's sends of a round wait for its sends of its previous sending round
  (:mod:`gossipcert.formats.send_order`).

Receiving into scratch and combining locally keeps a round's receipts of one chunk from
racing on ``i[c]``; read back (:mod:`gossipcert.formats.replay`), local steps take no round
of their own, so the transmissions keep their rounds (or come earlier when the schedule
left slack).

**reduce:r** is ``coll="reduce"``, the collective ``ncclReduce`` runs: ``nchunksperloop`` =
``K``, chunk ``c`` (piece ``c`` of the vector) is slot ``c`` of the input on every rank and
of the root's output. The input is never written (``ncclReduce``'s ``sendbuff`` is
``const``) and the output only on the root (``recvbuff`` matters only there): a rank's
partial of ``c`` stays in ``i[c]`` until its first receipt of ``c``, which starts an
accumulator (``o[c]`` on the root, a scratch slot elsewhere) with a ``cpy`` of ``i[c]`` (or
of the received partial, for a copy); the later receipts fold into it and its sends read it.
The file is correct in place and out of place alike (``inplace="1" outofplace="1"``: the
executor's scheduler tells the two apart on each rank by ``sendbuff == recvbuff``, and a
non-root rank may pass any ``recvbuff``).

The root is fixed by the schedule and is not in the file: the MSCCL executor has no root
attribute (``mscclGetAlgoFromXmlFile`` reads ``coll="reduce"`` and nothing more), its
scheduler (``mscclInternalSchedulerSelectAlgo``) picks an algorithm by collective, number of
ranks, message size (``count`` a multiple of ``nchunksperloop``) and in-place-ness, never by
root, and ``mscclRunAlgo`` takes the call's ``root`` without using it. So the file is
**valid only for calls with root r**: called with another root, it still runs and writes
the result into rank ``r``'s output buffer (which that call need not even pass). Load it
only where every ``ncclReduce`` of that size has root ``r``, or select it from a scheduler
plug-in (``mscclSchedulerInterface.selectAlgo`` sees ``mscclSchedulerParam.root``). The
default ``name`` says the root (``reduce:r on ...``). MSCCLang's synthesizer gives its own
rooted ``Reduce`` ``coll="custom"``, which the executor's loader refuses.

References
----------
.. [1] github.com/microsoft/msccl-tools, ``msccl/language/ir.py`` (``ir_to_xml``),
   ``msccl/collectives.py`` (``reduce``, ``broadcast``: ``runtime_name`` ``custom``).
.. [2] github.com/Azure/msccl-executor-nccl, ``src/device/msccl_kernel.cu`` (``re``,
   ``cpy`` and the receive steps), ``src/misc/msccl/msccl_parser.cc`` (``coll``),
   ``src/misc/msccl/msccl_lifecycle.cc`` (the scheduler) and ``src/collectives.cc``
   (``ncclReduce``); ROCm/rccl, ``src/misc/msccl/`` (the same rules).
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any
from xml.sax.saxutils import quoteattr

from gossipcert.errors import FormatError
from gossipcert.formats.msccl_xml import EXECUTOR_MAX_STEPS, lane_channel
from gossipcert.formats.send_order import SendOrder
from gossipcert.instance import Instance, ProblemKind, bits
from gossipcert.models import rules_of
from gossipcert.schedule import Schedule

#: gossipcert reduction -> MSCCL collective
REDUCTION_COLLECTIVE = {
    ProblemKind.ALLREDUCE: "allreduce",
    ProblemKind.REDUCE_SCATTER: "reducescatter",
    ProblemKind.REDUCE: "reduce",
}

Key = tuple[str, int, int, int]  # role ("send", "recv", "local"), rank, peer, channel
Ref = tuple[Key, int]  # a step: its thread block and index
Slot = tuple[str, int]  # buffer, offset


def reduction_xml(
    schedule: Schedule,
    instance: Instance,
    rank: dict[Any, int],
    name: str | None,
    proto: str,
) -> str:
    """The MSCCL XML of a verified reduction schedule (see the module docstring).

    ``rank`` maps each processor to its rank; the schedule is already checked.

    Raises
    ------
    FormatError
        Not a reduction, or a link that needs more than the executor's channels.
    """
    kind = instance.problem.kind
    if kind not in REDUCTION_COLLECTIVE:
        raise FormatError(f"{instance.problem.spec()} is not a reduction MSCCL XML runs")
    coll = REDUCTION_COLLECTIVE[kind]
    n, k = len(rank), instance.problem.chunks
    root = None
    if kind is ProblemKind.REDUCE:
        root = next(rank[v] for v in rank if instance.demands[v])
    serial = not rules_of(instance.model.kind).arc_capacities
    tbs: dict[Key, list[list[Any]]] = defaultdict(list)  # step: type, src, dst, dep
    scratch = [0] * n
    where: dict[tuple[int, int], Slot] = {}  # (rank, chunk) -> its partial, if not i[c]
    last_write: dict[tuple[int, int], Ref] = {}  # (rank, chunk) -> the local step
    unwaited: dict[tuple[int, int], list[Ref]] = defaultdict(list)  # sends since that write
    order = SendOrder(
        tbs, lambda dep: ["nop", None, None, dep], lambda dep: ["cpy", ("i", 0), ("i", 0), dep, 0]
    )
    lane_last: dict[tuple[int, int, int], Ref] = {}
    group: dict[tuple[int, int, int], int] = defaultdict(int)
    local_group = [0] * n
    for rnd in schedule.rounds[: len(schedule)]:
        moves = sorted(
            (rank[tr.sender], rank[v], c, tr.op)
            for tr in rnd
            for v in tr.receivers
            for c in bits(tr.packets if tr.packets is not None else (1 << instance.n_packets) - 1)
        )
        width: dict[tuple[int, int], int] = defaultdict(int)
        for u, v, _, _ in moves:
            width[(u, v)] += 1
        got: dict[tuple[int, int], list[tuple[str, int, Ref]]] = defaultdict(list)
        used: dict[tuple[int, int], int] = defaultdict(int)
        for u, v, c, op in moves:
            i = used[(u, v)]
            used[(u, v)] += 1
            lane = (u, v, i)
            chan = lane_channel(tbs, group, width[(u, v)], lane, 4)
            send_key: Key = ("send", u, v, chan)
            waits = [last_write.get((u, c)), order.wait(u) if serial else None,
                     lane_last.get(lane)]  # fmt: skip
            deps = list(dict.fromkeys(w for w in waits if w is not None and w[0] != send_key))
            for dep in deps[:-1]:
                tbs[send_key].append(["nop", None, None, dep])
            src = where.get((u, c), ("i", c))
            tbs[send_key].append(["s", src, src, deps[-1] if deps else None])
            ref = (send_key, len(tbs[send_key]) - 1)
            lane_last[lane] = ref
            if serial:
                order.sent(u, ref)
            unwaited[(u, c)].append(ref)
            recv_key: Key = ("recv", v, u, chan)
            slot = scratch[v]
            scratch[v] += 1
            tbs[recv_key].append(["r", ("s", slot), ("s", slot), None])
            got[(v, c)].append((op, slot, (recv_key, len(tbs[recv_key]) - 1)))
        _fold(got, tbs, local_group, unwaited, where, root, scratch, last_write)
        order.next_round()
    if root is not None:  # a root that never receives (one rank): its output is its input
        for c in range(k):
            if (root, c) not in where:
                tbs[("local", root, -1, local_group[root])].append(
                    ["cpy", ("i", c), ("o", c), None]
                )
    return _text(instance, coll, n, k, tbs, scratch, name, proto)


def _fold(
    got: dict[tuple[int, int], list[tuple[str, int, Ref]]],
    tbs: dict[Key, list[list[Any]]],
    local_group: list[int],
    unwaited: dict[tuple[int, int], list[Ref]],
    where: dict[tuple[int, int], Slot],
    root: int | None,
    scratch: list[int],
    last_write: dict[tuple[int, int], Ref],
) -> None:
    """Each rank's local steps at the end of a round: the partials it received (``got``,
    per rank and chunk: the op, the scratch slot and the receive) copied or reduced into the
    chunk's partial, the copy first, after the sends that still read the old partial."""
    for (v, c), receipts in sorted(got.items()):
        receipts.sort(key=lambda x: x[0] != "copy")  # the copy first
        key: Key = ("local", v, -1, local_group[v])
        steps = tbs[key]
        fold = 2 * len(receipts) + len(unwaited[(v, c)])
        if steps and len(steps) + fold > EXECUTOR_MAX_STEPS - 3:
            previous = (key, len(steps) - 1)
            local_group[v] += 1
            key = ("local", v, -1, local_group[v])
            steps = tbs[key]
            steps.append(["nop", None, None, previous])
        for ref in unwaited.pop((v, c), []):  # nothing overwrites it before it is sent
            steps.append(["nop", None, None, ref])
        target = where.get((v, c), ("i", c))
        if root is not None and target == ("i", c):  # reduce: a partial leaves the input
            if v == root:
                target = ("o", c)
            else:
                target = ("s", scratch[v])
                scratch[v] += 1
            where[(v, c)] = target
            if receipts[0][0] != "copy":  # (a step after nops needs a dependency)
                steps.append(["cpy", ("i", c), target, receipts[0][2]])
        for op, slot, ref in receipts:
            steps.append(["cpy" if op == "copy" else "re", ("s", slot), target, ref])
            last_write[(v, c)] = (key, len(steps) - 1)


def _text(
    instance: Instance,
    coll: str,
    n: int,
    k: int,
    tbs: dict[Key, list[list[Any]]],
    scratch: list[int],
    name: str | None,
    proto: str,
) -> str:
    ids: dict[Key, int] = {}
    per_rank: dict[int, list[Key]] = defaultdict(list)
    order = {"send": 0, "recv": 1, "local": 2}
    for key in sorted(tbs, key=lambda x: (x[1], order[x[0]], x[3], x[2])):
        ids[key] = len(per_rank[key[1]])
        per_rank[key[1]].append(key)
    targets = {st[3] for steps in tbs.values() for st in steps if st[3] is not None}
    nchannels = 1 + max((key[3] for key in tbs if key[0] != "local"), default=0)
    title = name or f"{instance.problem.spec()} on {instance.graph.graph.get('spec', 'graph')}"
    total = k if coll == "reduce" else n * k  # the chunks of the input
    lines = [
        f'<algo name={quoteattr(title)} proto={quoteattr(proto)} nchannels="{nchannels}" '
        f'nchunksperloop="{total}" ngpus="{n}" coll="{coll}" inplace="1" '
        f'outofplace="{int(coll == "reduce")}" minBytes="0" maxBytes="0">'
    ]
    for r in range(n):
        out_chunks = k if coll == "reducescatter" else total
        lines.append(
            f'  <gpu id="{r}" i_chunks="{total}" o_chunks="{out_chunks}" s_chunks="{scratch[r]}">'
        )
        for key in per_rank[r]:
            role, _, peer, chan = key
            send, recv = {"send": (peer, -1), "recv": (-1, peer), "local": (-1, -1)}[role]
            lines.append(
                f'    <tb id="{ids[key]}" send="{send}" recv="{recv}" '
                f'chan="{0 if role == "local" else chan}">'
            )
            for index, (kind, src, dst, dep, *count) in enumerate(tbs[key]):
                depid, deps = (ids[dep[0]], dep[1]) if dep is not None else (-1, -1)
                hasdep = int((key, index) in targets)
                if kind == "nop":
                    src, dst = ("i", -1), ("o", -1)
                cnt = count[0] if count else int(kind != "nop")
                lines.append(
                    f'      <step s="{index}" type="{kind}" srcbuf="{src[0]}" '
                    f'srcoff="{src[1]}" dstbuf="{dst[0]}" dstoff="{dst[1]}" '
                    f'cnt="{cnt}" depid="{depid}" deps="{deps}" hasdep="{hasdep}"/>'
                )
            lines.append("    </tb>")
        lines.append("  </gpu>")
    lines.append("</algo>")
    return "\n".join(lines) + "\n"
