"""Writing verified gossipcert schedules as other tools' algorithms: MSCCL XML and SCCL JSON.

Only a schedule the verifier accepts (valid and complete) is written, for ``gossip``
(MSCCL ``allgather``) and ``total-exchange`` (``alltoall``), with ``chunks=K``, and as MSCCL
XML also ``broadcast:r`` (below), ``reduce:r``, ``allreduce`` and ``reduce-scatter``
(:mod:`gossipcert.formats.reduction_writer`); rank ``r`` is the ``r``-th processor of the
graph, and a schedule that sends through routers is refused (routers are not GPUs).

**MSCCL XML** (the executor's dialect, as MSCCLang's ``ncclize`` writes it with
``old_format``): for each link ``u -> v`` and each round, the ``i``-th chunk the schedule
sends on that link goes on channel ``i``; each ``(u, v, channel)`` has a sending thread block
on ``u`` (``send=v recv=-1``) and a receiving one on ``v`` (``send=-1 recv=u``), their steps in
round order, so the ``k``-th send and the ``k``-th receive of a connection are the same
transmission. A send of a chunk that ``u`` received depends (``depid``/``deps``) on the
receive that brought it, and that receive is marked ``hasdep="1"`` so that the executor
signals its completion. Chunk ``j`` of rank ``s`` lives in output slot ``s K + j``
(allgather, in place, as NCCL lays it out); for alltoall the chunk from ``s`` to ``d`` is
input slot ``d K + j`` on ``s``, output slot ``s K + j`` on ``d`` and a scratch slot on every
rank it passes through, and each rank copies its own chunks from input to output with a
``cpy`` step. A chunk a rank already holds is received into a scratch slot of its own
(nothing overwrites a slot that may be being sent). In the point-to-point models (every
model but all-port) a GPU's sends of a round wait for its sends of its previous sending
round (:mod:`gossipcert.formats.send_order`; a ``nop`` carries the second dependency when a
send also waits for its chunk), so that no two of its rounds run as one. A thread
block holds at most 64 steps (the executor's default ``MSCCL_MAX_NUM_STEPS``): a link used
in more rounds continues on the next group of channels, its first send there waiting for the
last one of the previous group; more than the executor's 32 channels is refused.
``minBytes="0" maxBytes="0"`` (the executor's scheduler takes ``maxBytes=0``
as no upper limit), ``proto="Simple"`` unless told otherwise, ``nchunksperloop`` = ``n K``.

**broadcast:r** is ``coll="broadcast"`` (what ``ncclBroadcast`` runs), ``nchunksperloop`` =
``K``: chunk ``c`` is input slot ``c`` on the root, which copies its input to its output
(one ``cpy``) before its first send and sends from its input; every other rank receives into
and forwards from output slot ``c``, and never reads its input (``sendbuff`` matters only on
the root). So the file is right in place and out of place (``inplace="1" outofplace="1"``).
The root is fixed by the schedule, and the file is **valid only for calls with root r**:
the executor has no root attribute and its scheduler selects by collective, ranks, size and
in-place-ness, never by root (:mod:`gossipcert.formats.reduction_writer` says where); a
multi-source broadcast is refused (``ncclBroadcast`` has one root).

Read back (:mod:`gossipcert.formats.replay`), the file gives each transmission in the round
the schedule gives it, or earlier when the schedule left a chunk waiting although link and
data were ready (the as-soon-as-possible rule): never more rounds, and the same schedule
when it has no such slack (every optimal schedule's last round stays where it was). In the
point-to-point models a GPU's receives cannot be chained that way (a dependency names a
thread block of the same GPU): two chunks the schedule sends to one GPU in different rounds
may then arrive in the same round when the schedule had slack, which the verdict reports.

**SCCL JSON** (``msccl_type`` objects of microsoft/sccl's ``serialization.py``): one step of
one round per schedule round, ``sends`` ``[address, src, dst]``, the collective unchunked
with ``instance.chunks = K`` (chunk ``c`` piece ``i`` at address ``c K + i``, as SCCL's
``chunk_up``), and the topology's links ``links[dst][src]``.

References
----------
.. [1] github.com/microsoft/msccl-tools, ``msccl/language/ir.py`` (``ir_to_xml``).
.. [2] github.com/microsoft/sccl, ``msccl/serialization.py`` and ``msccl/collectives.py``.
"""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path
from typing import Any
from xml.sax.saxutils import quoteattr

from gossipcert import graphs
from gossipcert.certificates.certificate import instance_from_certificate
from gossipcert.errors import FormatError, GossipcertError
from gossipcert.formats.msccl_xml import EXECUTOR_MAX_COUNT, PROTOCOLS, lane_channel
from gossipcert.formats.mscclpp_writer import mscclpp_plan_from_schedule
from gossipcert.formats.reduction_writer import reduction_xml
from gossipcert.formats.send_order import SendOrder
from gossipcert.instance import Instance, ProblemKind, bits, parse_instance
from gossipcert.models import rules_of
from gossipcert.schedule import Schedule, load_schedule_file, schedule_from_file_data
from gossipcert.simulate import simulate

#: gossipcert problem -> MSCCL collective, for MSCCL XML and SCCL JSON alike
COLLECTIVE_OF = {ProblemKind.GOSSIP: "allgather", ProblemKind.TOTAL_EXCHANGE: "alltoall"}
#: the further problems written as MSCCL XML only (the rooted ones: for calls with that root)
MSCCL_ONLY = {
    ProblemKind.BROADCAST: "broadcast",
    ProblemKind.REDUCE: "reduce",
    ProblemKind.ALLREDUCE: "allreduce",
    ProblemKind.REDUCE_SCATTER: "reducescatter",
}

Chunk = tuple[int, int | None, int]  # origin rank, destination rank (alltoall), piece


def _checked(
    schedule: Schedule, instance: Instance, msccl: bool = False
) -> tuple[str, list[int], int]:
    """The collective, the ranks' nodes and K; FormatError for what cannot be written."""
    kind = instance.problem.kind
    coll = COLLECTIVE_OF.get(kind) or (MSCCL_ONLY.get(kind) if msccl else None)
    spec = instance.problem.spec()
    if coll is None and msccl:
        raise FormatError(
            f"{spec} cannot be written as MSCCL XML (written: gossip as allgather, "
            "total-exchange as alltoall, broadcast, reduce, allreduce, reduce-scatter)"
        )
    if coll is None:
        raise FormatError(
            f"only gossip (allgather) and total-exchange (alltoall) schedules can be written "
            f"as SCCL algorithms, not {spec}"
            + (
                " (SCCL JSON's sends are copies: it has no combining step)"
                if instance.problem.reduction
                else ""
            )
        )
    if kind is ProblemKind.BROADCAST and sum(1 for h in instance.holdings if h) > 1:
        raise FormatError(
            f"{spec} has {sum(1 for h in instance.holdings if h)} sources; MSCCL's "
            'coll="broadcast" runs for ncclBroadcast, which has one root'
        )
    report = simulate(instance, schedule)
    if not report.ok:
        first = report.errors[0].message if report.errors else "some demands are never met"
        raise FormatError(f"the schedule fails the verifier ({first}); nothing is written")
    procs = graphs.processors(instance.graph)
    routers = set(graphs.routers(instance.graph))
    if routers and any(
        t.sender in routers or set(t.receivers) & routers for rnd in schedule for t in rnd
    ):
        raise FormatError(
            "the schedule sends through routers, which are not GPUs: an MSCCL or "
            "SCCL algorithm moves data between GPUs only"
        )
    return coll, procs, instance.problem.chunks


def _chunk_of(instance: Instance, n: int, k: int, packet: int) -> Chunk:
    """Packet number -> (origin rank, destination rank or None, piece): the packet order of
    :func:`gossipcert.instance.make_instance` (processors in order, then ``chunks=K``)."""
    q, piece = divmod(packet, k)
    if instance.problem.kind is ProblemKind.GOSSIP:
        return q, None, piece
    origin, rest = divmod(q, n - 1)
    return origin, rest if rest < origin else rest + 1, piece


def _rounds(schedule: Schedule, instance: Instance) -> list[list[tuple[int, int, list[int]]]]:
    """Per round, ``(sender, receiver, packets)`` with ``"all"`` resolved against what the
    sender knows at the start of the round (the verifier's rule)."""
    know = list(instance.holdings)
    out = []
    for rnd in schedule.rounds[: len(schedule)]:
        moves = []
        learned = list(know)
        for tr in rnd:
            mask = know[tr.sender] if tr.packets is None else tr.packets
            for v in tr.receivers:
                moves.append((tr.sender, v, bits(mask)))
                learned[v] |= mask
        know = learned
        out.append(moves)
    return out


def msccl_xml_from_schedule(
    schedule: Schedule, instance: Instance, name: str | None = None, proto: str = "Simple"
) -> str:
    """An MSCCL XML algorithm that runs ``schedule`` (see the module docstring).

    Parameters
    ----------
    schedule : Schedule
        Valid and complete for ``instance`` (checked).
    instance : Instance
        ``gossip``, ``total-exchange``, ``broadcast:r`` (one source), ``reduce:r``,
        ``allreduce`` or ``reduce-scatter``, any ``chunks=K``, on any graph whose processors
        are the ranks. A rooted algorithm is right only for calls with that root.
    name : str, optional
        The ``name`` attribute (default: problem and graph).
    proto : {"Simple", "LL128", "LL"}

    Returns
    -------
    str

    Raises
    ------
    FormatError
        Another problem, a multi-source broadcast, a schedule the verifier rejects, or one
        that uses routers.

    Examples
    --------
    >>> from gossipcert import msccl_xml_from_schedule
    >>> from gossipcert.instance import parse_instance
    >>> from gossipcert.schedule import Schedule, Transmission
    >>> inst = parse_instance("complete:3", "all-port", "gossip")
    >>> sched = Schedule(((Transmission(0, (1, 2), 1), Transmission(1, (0, 2), 2),
    ...                    Transmission(2, (0, 1), 4)),))
    >>> text = msccl_xml_from_schedule(sched, inst)
    >>> text.count("<tb "), text.count('type="s"'), text.count('type="r"')
    (12, 6, 6)

    A reduce to rank 1, right only when ``ncclReduce`` is called with ``root=1``:

    >>> inst = parse_instance("path:3", "all-port", "reduce:1")
    >>> sched = Schedule(((Transmission(0, (1,), 1, "reduce"),
    ...                    Transmission(2, (1,), 1, "reduce")),))
    >>> text = msccl_xml_from_schedule(sched, inst)
    >>> 'coll="reduce"' in text, text.count('type="re"'), text.count('dstbuf="o"')
    (True, 2, 3)
    """
    coll, procs, k = _checked(schedule, instance, msccl=True)
    if proto not in PROTOCOLS:
        raise FormatError(f"unknown protocol {proto!r}; choose one of {', '.join(PROTOCOLS)}")
    n = len(procs)
    rank = {v: r for r, v in enumerate(procs)}
    if instance.problem.reduction:
        return reduction_xml(schedule, instance, rank, name, proto)
    blocks = _CopyBlocks(instance, coll, procs, k)
    if coll == "broadcast":
        blocks.root_copies()
    blocks.add_rounds(_rounds(schedule, instance))
    return _xml_text(instance, coll, n, k, blocks.tbs, blocks.scratch, name, proto)


class _CopyBlocks:
    """The thread blocks of a copy collective's MSCCL algorithm, built round by round
    (:func:`msccl_xml_from_schedule`)."""

    def __init__(self, instance: Instance, coll: str, procs: list[int], k: int) -> None:
        self.instance, self.coll, self.procs, self.k = instance, coll, procs, k
        self.n = len(procs)
        self.rank = {v: r for r, v in enumerate(procs)}
        # per thread block key (role, rank, peer, channel): its steps
        # a step: (type, buffer, offset, dependency (tb key, index) or None)
        self.tbs: dict[tuple[str, int, int, int], list[list[Any]]] = defaultdict(list)
        self.arrived: dict[tuple[int, int], tuple[tuple[str, int, int, int], int]] = {}
        self.scratch: dict[int, dict[int, int]] = defaultdict(dict)
        self.root = next((self.rank[v] for v in procs if instance.holdings[v]), -1)

    def slot(self, r: int, packet: int, receiving: bool) -> tuple[str, int]:
        """The buffer and offset of ``packet`` at rank ``r``."""
        table = self.scratch[r]
        if self.coll == "broadcast":  # the root sends from its input, the others from output
            return ("i" if r == self.root else "o"), packet
        origin, dest, piece = _chunk_of(self.instance, self.n, self.k, packet)
        if dest is None:
            return "o", origin * self.k + piece
        if r == origin:
            return "i", dest * self.k + piece
        if r == dest:
            return "o", origin * self.k + piece
        if packet not in table:
            if not receiving:  # pragma: no cover - the verifier already refused this
                raise FormatError(f"rank {r} sends a chunk it never received")
            table[packet] = len(table)
        return "s", table[packet]

    def root_copies(self) -> None:
        """A broadcast's root copies its chunks to its output before sending them."""
        root, k = self.root, self.k
        most = EXECUTOR_MAX_COUNT - 1  # the chunks one step moves at most
        for p in range(k):
            if p % most == 0:
                self.tbs[("local", root, -1, 0)].append(["cpy", "i", p, None, min(most, k - p)])
            self.arrived[(root, p)] = (("local", root, -1, 0), p // most)

    def add_rounds(self, rounds: list[Any]) -> None:
        """The sends and receives of every round, each waiting for what it needs."""
        tbs, arrived, scratch, rank = self.tbs, self.arrived, self.scratch, self.rank
        serial = not rules_of(self.instance.model.kind).arc_capacities
        width: dict[tuple[int, int], int] = defaultdict(int)
        for moves in rounds:
            for u, v, packets in moves:
                width[(rank[u], rank[v])] = max(width[(rank[u], rank[v])], len(packets))
        order = SendOrder(
            tbs, lambda dep: ["nop", "i", -1, dep], lambda dep: ["cpy", "o", 0, dep, 0]
        )
        held = {(rank[v], p) for v in self.procs for p in bits(self.instance.holdings[v])}
        lane_last: dict[tuple[int, int, int], tuple[tuple[str, int, int, int], int]] = {}
        group: dict[tuple[int, int, int], int] = defaultdict(int)
        for moves in rounds:
            for u, v, packets in sorted(moves):
                ru, rv = rank[u], rank[v]
                for i, p in enumerate(packets):
                    lane = (ru, rv, i)
                    chan = lane_channel(tbs, group, width[(ru, rv)], lane, 3)
                    send_key, recv_key = ("send", ru, rv, chan), ("recv", rv, ru, chan)
                    # what this send waits for: its chunk's arrival, the GPU's previous send
                    # (point-to-point models), the lane's previous send (a new thread block)
                    waits = [arrived.get((ru, p)), order.wait(ru) if serial else None,
                             lane_last.get(lane)]  # fmt: skip
                    deps = list(
                        dict.fromkeys(w for w in waits if w is not None and w[0] != send_key)
                    )
                    for dep in deps[:-1]:  # one dependency a step: the others on nops (ncclize)
                        tbs[send_key].append(["nop", "i", -1, dep])
                    tbs[send_key].append(
                        ["s", *self.slot(ru, p, False), deps[-1] if deps else None]
                    )
                    lane_last[lane] = (send_key, len(tbs[send_key]) - 1)
                    if serial:
                        order.sent(ru, lane_last[lane])
                    if (rv, p) in held:  # a chunk it has already: into a scratch slot of its own
                        table = scratch[rv]
                        table[-1 - len(table)] = len(table)
                        tbs[recv_key].append(["r", "s", len(table) - 1, None])
                        continue
                    held.add((rv, p))
                    tbs[recv_key].append(["r", *self.slot(rv, p, True), None])
                    arrived[(rv, p)] = (recv_key, len(tbs[recv_key]) - 1)
            order.next_round()


def _transfer_ends(
    tbs: dict[tuple[str, int, int, int], list[list[Any]]],
) -> dict[tuple[tuple[str, int, int, int], int], tuple[str, int]]:
    """For each send and receive step, the slot at the other end of its transfer (the
    ``k``-th send and the ``k``-th receive of a connection are one transfer), so that both
    steps carry the transfer's source and destination, as MSCCLang writes them (the executor
    reads only a send's source and a receive's destination)."""
    out: dict[tuple[tuple[str, int, int, int], int], tuple[str, int]] = {}
    for key, steps in tbs.items():
        role, u, v, chan = key
        if role != "send":
            continue
        sends = [(i, st) for i, st in enumerate(steps) if st[0] == "s"]
        recv_key = ("recv", v, u, chan)
        recvs = [(i, st) for i, st in enumerate(tbs.get(recv_key, [])) if st[0] == "r"]
        for (i, s), (j, r) in zip(sends, recvs, strict=False):
            out[(key, i)] = (r[1], r[2])
            out[(recv_key, j)] = (s[1], s[2])
    return out


def _xml_text(
    instance: Instance,
    coll: str,
    n: int,
    k: int,
    tbs: dict[tuple[str, int, int, int], list[list[Any]]],
    scratch: dict[int, dict[int, int]],
    name: str | None,
    proto: str,
) -> str:
    ids: dict[tuple[str, int, int, int], int] = {}
    per_rank: dict[int, list[tuple[str, int, int, int]]] = defaultdict(list)
    for key in sorted(tbs, key=lambda x: (x[1], x[3], x[2], x[0])):
        ids[key] = len(per_rank[key[1]])
        per_rank[key[1]].append(key)
    targets = {st[3] for steps in tbs.values() for st in steps if st[3] is not None}
    peer_slot = _transfer_ends(tbs) if coll in ("allgather", "alltoall") else {}
    nchannels = 1 + max((key[3] for key in tbs if key[0] != "local"), default=0)
    in_place = coll == "allgather"
    both = coll == "broadcast"  # right in place and out of place (the root copies i to o)
    total = k if both else n * k
    title = name or f"{instance.problem.spec()} on {instance.graph.graph.get('spec', 'graph')}"
    lines = [
        f'<algo name={quoteattr(title)} proto={quoteattr(proto)} nchannels="{nchannels}" '
        f'nchunksperloop="{total}" ngpus="{n}" coll="{coll}" inplace="{int(in_place or both)}" '
        f'outofplace="{int(not in_place)}" minBytes="0" maxBytes="0">'
    ]
    for r in range(n):
        i_chunks = 0 if in_place else total
        lines.append(
            f'  <gpu id="{r}" i_chunks="{i_chunks}" o_chunks="{total}" '
            f's_chunks="{len(scratch[r])}">'
        )
        keys = per_rank[r]
        for key in keys:
            role, _, peer, chan = key
            send, recv = {"send": (peer, -1), "recv": (-1, peer), "local": (-1, -1)}[role]
            chan = 0 if role == "local" else chan
            lines.append(f'    <tb id="{ids[key]}" send="{send}" recv="{recv}" chan="{chan}">')
            for index, (kind, buf, off, dep, *count) in enumerate(tbs[key]):
                depid, deps = (ids[dep[0]], dep[1]) if dep is not None else (-1, -1)
                hasdep = int((key, index) in targets)
                src, dst = (f'srcbuf="{buf}" srcoff="{off}"', f'dstbuf="{buf}" dstoff="{off}"')
                if (key, index) in peer_slot:  # both steps of a transfer say src -> dst
                    pbuf, poff = peer_slot[(key, index)]
                    if kind == "s":
                        dst = f'dstbuf="{pbuf}" dstoff="{poff}"'
                    else:
                        src = f'srcbuf="{pbuf}" srcoff="{poff}"'
                cnt = count[0] if count else int(kind != "nop")
                if kind == "cpy":  # to the output: the broadcast root's chunks, or none
                    dst = f'dstbuf="o" dstoff="{off}"'
                elif kind == "nop":
                    src, dst = 'srcbuf="i" srcoff="-1"', 'dstbuf="o" dstoff="-1"'
                lines.append(
                    f'      <step s="{index}" type="{kind}" {src} {dst} cnt="{cnt}" '
                    f'depid="{depid}" deps="{deps}" hasdep="{hasdep}"/>'
                )
            lines.append("    </tb>")
        if not in_place and not both:
            own = len(keys)
            lines.append(f'    <tb id="{own}" send="-1" recv="-1" chan="0">')
            lines.append(
                f'      <step s="0" type="cpy" srcbuf="i" srcoff="{r * k}" dstbuf="o" '
                f'dstoff="{r * k}" cnt="{k}" depid="-1" deps="-1" hasdep="0"/>'
            )
            lines.append("    </tb>")
        lines.append("  </gpu>")
    lines.append("</algo>")
    return "\n".join(lines) + "\n"


def sccl_json_from_schedule(schedule: Schedule, instance: Instance, name: str | None = None) -> str:
    """An SCCL JSON algorithm (``msccl_type`` objects) for ``schedule`` (see the module
    docstring).

    Parameters
    ----------
    schedule : Schedule
        Valid and complete for ``instance`` (checked).
    instance : Instance
        ``gossip`` or ``total-exchange``, any ``chunks=K``, on any graph whose processors
        are the ranks.
    name : str, optional
        The algorithm's name (default: problem and graph).

    Returns
    -------
    str
        The JSON text.

    Raises
    ------
    FormatError
        Another problem, a schedule the verifier rejects, or one that uses routers.

    Examples
    --------
    >>> import json
    >>> from gossipcert import sccl_json_from_schedule
    >>> from gossipcert.instance import parse_instance
    >>> from gossipcert.schedule import Schedule, Transmission
    >>> inst = parse_instance("complete:3", "all-port", "gossip")
    >>> sched = Schedule(((Transmission(0, (1, 2), 1), Transmission(1, (0, 2), 2),
    ...                    Transmission(2, (0, 1), 4)),))
    >>> data = json.loads(sccl_json_from_schedule(sched, inst))
    >>> data["msccl_type"], data["steps"][0]["sends"][:2]
    ('algorithm', [[0, 0, 1], [0, 0, 2]])
    """
    coll, procs, k = _checked(schedule, instance)
    n = len(procs)
    rank = {v: r for r, v in enumerate(procs)}
    chunks: list[dict[str, Any]] = []
    if coll == "allgather":
        for c in range(n):
            chunks.append({"msccl_type": "chunk", "pre": [c], "post": list(range(n)), "addr": c})
    else:
        for c in range(n * n):
            chunks.append({"msccl_type": "chunk", "pre": [c % n], "post": [c // n], "addr": c})
    steps = []
    for moves in _rounds(schedule, instance):
        sends = []
        for u, v, packets in moves:
            for p in packets:
                origin, dest, piece = _chunk_of(instance, n, k, p)
                base = origin if dest is None else dest * n + origin
                sends.append([base * k + piece, rank[u], rank[v]])
        steps.append({"msccl_type": "step", "rounds": 1, "sends": sorted(sends)})
    graph = instance.graph
    title = name or f"{instance.problem.spec()} on {graph.graph.get('spec', 'graph')}"
    inputs, outputs = _buffer_maps(chunks, n, k)
    data = {
        "msccl_type": "algorithm",
        "name": title,
        "instance": {
            "msccl_type": "instance",
            "steps": len(steps),
            "extra_rounds": 0,
            "chunks": k,
            "pipeline": None,
            "extra_memory": None,
            "allow_exchange": False,
        },
        "input_map": {str(r): sorted(a) for r, a in inputs.items()},
        "output_map": {str(r): sorted(a) for r, a in outputs.items()},
        "steps": steps,
        "collective": {
            "msccl_type": "collective",
            "name": f"{coll.capitalize()}(n={n})",
            "nodes": n,
            "chunks": chunks,
            "triggers": {},
            "runtime_name": coll,
        },
        "topology": {
            "msccl_type": "topology",
            "name": str(graph.graph.get("spec", "graph")),
            "links": _sccl_links(graph, procs),
            "switches": [],
        },
    }
    return json.dumps(data) + "\n"


def _sccl_links(graph: Any, procs: list[int]) -> list[list[int]]:
    """SCCL's link matrix: ``links[b][a]`` the capacity of the link from rank ``a`` to ``b``
    (0: none)."""
    n = len(procs)
    links = [[0] * n for _ in range(n)]
    for a in range(n):
        for b in range(n):
            if graph.has_edge(procs[a], procs[b]):
                links[b][a] = int(graph[procs[a]][procs[b]].get("capacity", 1))
    return links


def _buffer_maps(
    chunks: list[dict[str, Any]], n: int, k: int
) -> tuple[dict[int, list[int]], dict[int, list[int]]]:
    """Per rank, the addresses of the chunk pieces it holds before (``pre``) and after
    (``post``) the collective."""
    inputs: dict[int, list[int]] = {r: [] for r in range(n)}
    outputs: dict[int, list[int]] = {r: [] for r in range(n)}
    for chunk in chunks:
        for piece in range(k):
            addr = chunk["addr"] * k + piece
            for r in chunk["pre"]:
                inputs[r].append(addr)
            for r in chunk["post"]:
                outputs[r].append(addr)
    return inputs, outputs


WRITERS = {
    "msccl-xml": msccl_xml_from_schedule,
    "sccl-json": sccl_json_from_schedule,
    "mscclpp-plan": mscclpp_plan_from_schedule,
}


def export_schedule_file(
    path: str,
    fmt: str,
    graph: str | None = None,
    model: str | None = None,
    problem: str | None = None,
) -> str:
    """The text of ``path`` (a certificate or partial result of ``solve -o``, or a schedule
    file with ``graph``, ``model`` and ``problem``) written in ``fmt``.

    Raises
    ------
    FormatError
        Unknown format, a schedule without its instance, or one the writers refuse.
    """
    if fmt not in WRITERS:
        raise FormatError(f"unknown format {fmt!r}; choose one of {', '.join(WRITERS)}")
    data = load_schedule_file(path)
    if graph is None:
        if not isinstance(data, dict) or "instance" not in data:
            raise FormatError(
                f"{path} holds no instance (it is not a certificate or a partial result of "
                "solve -o): give --schedule FILE with the graph, --model and --problem"
            )
        try:
            instance = instance_from_certificate(data)
        except GossipcertError as exc:
            raise FormatError(f"{path}: {exc}") from None
    else:
        instance = parse_instance(graph, model or "all-port", problem or "gossip")
    schedule = schedule_from_file_data(Path(path), data, instance)
    return WRITERS[fmt](schedule, instance)
