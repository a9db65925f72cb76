"""An MSCCL++ execution plan as timed ops: its thread blocks' order, its semaphores and
packet flags, the data each operation moves between GPUs.

The ops follow the plan's synchronisation graph (:mod:`gossipcert.formats.mscclpp_sync`,
built once with the replay, :func:`gossipcert.formats.mscclpp_replay.synchronise`), node by
node:

* an operation that moves data between GPUs (its moves, :mod:`gossipcert.formats.
  mscclpp_effects`) is one **transfer** per pair of GPUs: first what it reads from other
  GPUs (``get``, ``rre``, ``rres``: the data comes to the thread block's GPU, which waits
  for it to *arrive*), then what it writes to others (``put``, the remote destinations of
  ``res``, ``rres``, the packet puts), once the reads are in; a memory channel's thread
  block moves on once its writes have *left* (its threads store them over the link), a port
  channel's at once (the proxy carries the ``put`` later);
* a ``signal`` (``rlxsignal``, the signal of ``pws``/``pwsf``) is a transfer of no bytes to
  each peer of its channels that leaves once every write its thread block issued since its
  previous signal or ``flush`` has *arrived* (a memory channel's signal fences the stores
  before it, a port channel's proxy delivers in order); a ``flush`` waits for the same
  arrivals;
* a ``wait`` waits for the matching signals to arrive, a packet read for the packets it
  reads to arrive (their writer's transfer to the reader's GPU); barriers and semaphores
  order the thread blocks of one GPU, and everything else follows its thread block's order;
  operations inside one GPU (copies, reductions, packet unpacking) take no time, as for the
  other formats (:mod:`gossipcert.formats.msccl_ops`).

A transfer's bytes are its units over the units a chunk (``C`` chunks make the message, so
``S / C`` bytes a chunk); a **packet** write (``LL``: the kernel stores every 8 bytes of
data as a 16-byte packet with its flag, ``srcOffsets << 1`` in the kernel) carries twice
its data on the wire, on a machine with units. A **pipeline** runs once over its whole
regions (the executor slices it by ``unit_size`` and overlaps the slices: the time of one
pass is an upper estimate of it). NVSwitch operations (``glres``, ``gstore``, ``gstorepkt``:
multicast and reduction inside the switch) are not timed: the machine's switches forward,
they do not multicast or reduce, and an estimate of their time would be another machine's.

References
----------
.. [1] github.com/microsoft/mscclpp, ``src/core/include/execution_kernel.hpp`` (the
   operations), ``include/mscclpp/memory_channel_device.hpp`` and
   ``include/mscclpp/port_channel_device.hpp`` (signals after the data, the proxy's FIFO).
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from gossipcert.errors import GossipcertError
from gossipcert.formats.mscclpp_replay import Synchronised
from gossipcert.formats.mscclpp_sync import Entry
from gossipcert.timed.simulate import Op

__all__ = ["SWITCH_OPS", "PlanOps", "plan_ops"]

#: operations inside the NVSwitch (multicast, reduction), not timed
SWITCH_OPS = ("glres", "gstore", "gstorepkt")
SIGNALS = ("signal", "rlxsignal")


@dataclass
class PlanOps:
    """The timed ops of a plan and what the timing needs to say about them.

    Attributes
    ----------
    ops : list of Op
        In the order of the synchronisation graph (``after`` and ``arrivals`` point back).
    transfers, signals : int
        Transfers of data and of signals among them.
    pipelines : bool
        Whether the plan has pipelines (timed in one pass, module docstring).
    packets : bool
        Whether some transfer carries packets (twice its data on the wire).
    """

    ops: list[Op]
    transfers: int
    signals: int
    pipelines: bool
    packets: bool


class _Builder:
    def __init__(self, synced: Synchronised, wire: bool) -> None:
        self.synced, self.wire = synced, wire
        self.sg, self.plan = synced.sg, synced.plan
        self.g = synced.memory.g
        self.ops: list[Op] = []
        self.done: dict[int, int] = {}
        self.out_to: dict[int, dict[int, list[int]]] = {}
        self.unpublished: dict[int, list[int]] = defaultdict(list)
        self.count = {"transfers": 0, "signals": 0}
        self.packets = False

    def add(self, op: Op) -> int:
        self.ops.append(op)
        return len(self.ops) - 1

    def chain(self, v: int) -> int:
        e = self.sg.entry_of.get(v)
        return e.chain if e is not None else self.sg.own[v][0][0]

    def channel(self, e: Entry) -> int:
        """The index of the operation's first channel among its GPU's (spreads the routes
        of one pair of GPUs as the plan spreads its channels)."""
        kind = e.op.channel_type
        if kind not in ("memory", "port") or not e.op.channel_ids:
            return 0
        tb = self.plan.gpus[e.rank].tbs[e.tb]
        return tb.channels[kind][e.op.channel_ids[0]]

    def peers(self, e: Entry) -> list[int]:
        """The GPUs a signal of ``e``'s channels reaches."""
        kind = e.op.channel_type or "memory"
        if kind not in ("memory", "port"):
            return []
        gpu, tb = self.plan.gpus[e.rank], self.plan.gpus[e.rank].tbs[e.tb]
        return [gpu.channels[kind][tb.channels[kind][c]] for c in e.op.channel_ids]

    def node(self, v: int) -> None:
        sg = self.sg
        e = sg.entry_of.get(v)
        chain = self.chain(v)
        rank = sg.chains[chain][0]
        after: list[int] = []
        arrivals: list[int] = []
        for p in set(sg.preds[v]):
            targets = self.out_to.get(p, {}).get(rank)
            if targets and self.chain(p) != chain:
                arrivals.extend(targets)
            else:
                after.append(self.done[p])
        carried = sg.labels[v].endswith("(its signal)")  # the signal of a pws or pwsf
        if carried:
            e = sg.entry_of[v - 1]
        name = e.op.name if e is not None else ""
        if carried or name in SIGNALS or name == "flush":
            arrivals.extend(self.unpublished.pop(chain, []))
        start = self.add(Op(after=tuple(sorted(set(after))), arrivals=tuple(arrivals)))
        if e is not None and (carried or name in SIGNALS):
            self.signal(v, e, rank, start)
        elif e is not None and e.kind == "data" and e.effect.transfers:
            self.data(v, e, rank, chain, start)
        else:
            self.done[v] = start

    def signal(self, v: int, e: Entry, rank: int, start: int) -> None:
        sent = []
        for peer in self.peers(e):
            sent.append(self.add(Op(rank, peer, 0.0, after=(start,), channel=self.channel(e))))
            self.out_to.setdefault(v, {}).setdefault(peer, []).append(sent[-1])
        self.count["signals"] += len(sent)
        self.done[v] = self.add(Op(after=tuple(sent) or (start,)))

    def data(self, v: int, e: Entry, rank: int, chain: int, start: int) -> None:
        if e.op.name in SWITCH_OPS:
            raise GossipcertError(
                f"{e.where()}: NVSwitch operations ({', '.join(SWITCH_OPS)}) multicast and "
                "reduce inside the switch, which the timed machine does not model"
            )
        channel = self.channel(e)
        inbound = [t for t in e.effect.transfers if t[2] == rank and t[1] != rank]
        outbound = [t for t in e.effect.transfers if t[1] == rank and t[2] != rank]
        reads = [
            self.add(Op(src, rank, units / self.g, after=(start,), channel=channel))
            for _, src, _, units in inbound
        ]
        ready = self.add(Op(arrivals=tuple(reads))) if reads else start
        factor = 2.0 if self.wire and e.op.name.endswith("pkt") else 1.0
        self.packets |= factor > 1 and bool(outbound)
        writes = []
        for _, _, dst, units in outbound:
            op = Op(rank, dst, units / self.g * factor, after=(ready,), channel=channel)
            writes.append(self.add(op))
            self.out_to.setdefault(v, {}).setdefault(dst, []).append(writes[-1])
        self.unpublished[chain].extend(writes)
        self.count["transfers"] += len(reads) + len(writes)
        asynchronous = e.op.channel_type == "port" and e.op.name in ("put", "ppkt", "pws", "pwsf")
        leave = (ready,) if asynchronous or not writes else tuple(writes)
        self.done[v] = self.add(Op(after=leave))


def plan_ops(synced: Synchronised, wire: bool = True) -> PlanOps:
    """The timed ops of a synchronised plan (see the module docstring).

    Parameters
    ----------
    synced : Synchronised
        The plan and its synchronisation graph
        (:func:`~gossipcert.formats.mscclpp_replay.synchronise`).
    wire : bool
        Whether packets carry twice their data (a machine with units; no wire format on a
        graph without them).

    Returns
    -------
    PlanOps

    Raises
    ------
    GossipcertError
        NVSwitch operations (not timed), or a deadlocked plan (its operations never run).

    Examples
    --------
    >>> from gossipcert.formats.mscclpp_replay import synchronise
    >>> from gossipcert.formats.mscclpp_writer import example_plan
    >>> timed = plan_ops(synchronise(example_plan()))
    >>> timed.transfers, timed.signals  # a put each way; the start handshake, a signal each way
    (2, 4)
    """
    sg = synced.sg
    if len(sg.order) < len(sg.preds):
        raise GossipcertError("the plan deadlocks: some of its operations never run")
    build = _Builder(synced, wire)
    for v in sg.order:
        build.node(v)
    pipelines = any(
        op.name == "pipeline" for g in synced.plan.gpus for tb in g.tbs for op in tb.ops
    )
    return PlanOps(
        build.ops, build.count["transfers"], build.count["signals"], pipelines, build.packets
    )
