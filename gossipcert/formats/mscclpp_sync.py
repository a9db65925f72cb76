"""The synchronisation of an MSCCL++ execution plan: which operation waits for which, its
as-soon-as-possible rounds, its deadlocks and its happens-before order.

**What orders what** (the executor's kernel and channels, microsoft/mscclpp):

* a thread block runs its operations in order, but its threads do not wait for each other
  between operations: only ``nop`` (``__syncthreads``) and ``barrier`` are **fences**. A data
  operation is ordered after the thread block's last fence before it and before its next
  fence, no more: a ``wait`` publishes nothing to the data operations that follow it before
  a fence, and a ``signal`` publishes none of the data operations of its own segment.
  Synchronising operations (``signal``, ``wait``, ``flush``, ``sem_acquire``,
  ``sem_release`` and their relaxed forms) run on the first threads, in program order;
* channels pair up as the executor connects them (``setupConnections``): the ``k``-th
  memory-then-port channel of GPU ``r`` towards ``p`` and the ``k``-th of ``p`` towards ``r``
  are one connection (a channel without a partner gets one the plan cannot use). A signal
  adds one to its partner's semaphore; the ``j``-th wait on a connection returns after the
  ``j``-th signal (counting semaphores never reset between launches: more waits than
  signals is a deadlock, more signals than waits leaves the next launch's waits passing
  early). With signals from several thread blocks, a wait is ordered after the signals that
  must have come first whatever their interleaving. ``rlxsignal``/``rlxwait`` order
  execution only: they publish no data written in the kernel;
* ``sem_acquire`` waits for a ``sem_release`` of the GPU's semaphore (beyond its initial
  value); the ``k``-th ``barrier`` call of every thread block using a barrier id is one
  barrier of ``num_threadblocks`` thread blocks;
* a port channel's ``put`` is carried out later by the proxy: its data is known to have
  arrived (and its source to have been read) only after the next ``signal`` or ``flush`` on
  the same channel from the same thread block (``pws``/``pwsf`` signal themselves) is known
  to have happened. The kernel flushes as many channels as the ``flush`` has destination
  buffers (``handleFlush`` reads ``nOutputs``): a ``flush`` written without them flushes
  nothing;
* a packet read waits for the packet's flag, so it comes after the packet's write.

**Rounds** (the as-soon-as-possible rule of :mod:`gossipcert.formats.replay`): an operation
that moves data between GPUs happens one round after the later of its thread block's previous
operation and what it waits for (two rounds when it reads from other GPUs and writes to
others: a combined value is forwarded one round after it arrived); the others take no round.

**Happens-before** is kept as vector clocks over the thread blocks, indexed by the position
of their fences and synchronising operations: once with every edge (execution order: the
start of the peers' kernels, overwrites, the end of their kernels) and once without the
relaxed ones (data publication).

References
----------
.. [1] github.com/microsoft/mscclpp, ``src/core/include/execution_kernel.hpp``,
   ``src/core/executor/executor.cc`` (``setupConnections``, ``setupChannels``),
   ``include/mscclpp/semaphore_device.hpp``.
"""

from __future__ import annotations

from collections import defaultdict, deque
from dataclasses import dataclass, field

import networkx as nx
import numpy as np

from gossipcert.formats.findings import Finding
from gossipcert.formats.mscclpp_effects import Effect
from gossipcert.formats.mscclpp_plan import Op, Plan, ThreadBlock

FENCES = ("nop", "barrier")
POINTS = ("signal", "wait", "rlxsignal", "rlxwait", "flush", "sem_acquire", "sem_release")
#: the largest clock matrix (nodes x thread blocks) built
MAX_CLOCK_CELLS = 60_000_000


@dataclass
class Entry:
    """One operation of one thread block, in program order (a pipeline's flattened)."""

    rank: int
    tb: int
    chain: int
    op: Op
    effect: Effect
    kind: str  # "fence", "point" or "data"
    node: int = -1
    pos: int = -1  # position on its chain (fences and points)
    fence_after: int = -1  # data: position of its next fence (or the end)
    anchor: int = -1  # port puts: position of the signal or flush that publishes them
    asynchronous: bool = False  # a port channel's put: carried out later by the proxy

    def where(self) -> str:
        return f"GPU {self.rank} thread block {self.tb} {self.op.name} ({self.op.path})"


@dataclass
class SyncGraph:
    """Nodes, edges, rounds and clocks of a plan (see the module docstring)."""

    entries: list[Entry]
    chains: list[tuple[int, int]]  # chain -> (rank, tb)
    preds: list[list[int]] = field(default_factory=list)  # timing edges
    hb: list[list[tuple[int, bool]]] = field(default_factory=list)  # (pred, strong)
    own: list[list[tuple[int, int]]] = field(default_factory=list)  # node -> its (chain, pos)
    cross: dict[int, list[int]] = field(default_factory=dict)  # packet writer -> readers
    entry_of: dict[int, Entry] = field(default_factory=dict)
    stages: list[int] = field(default_factory=list)
    blocked: set[int] = field(default_factory=set)
    labels: dict[int, str] = field(default_factory=dict)
    ends: dict[int, list[int]] = field(default_factory=dict)  # rank -> end nodes
    starts: dict[int, list[int]] = field(default_factory=dict)  # rank -> chains
    end_pos: list[int] = field(default_factory=list)  # chain -> position of its end
    rounds: list[int | None] = field(default_factory=list)
    order: list[int] = field(default_factory=list)
    full: np.ndarray | None = None
    strong: np.ndarray | None = None

    def node(self, label: str, chain: int = -1, pos: int = -1, stages: int = 0) -> int:
        self.preds.append([])
        self.hb.append([])
        self.own.append([(chain, pos)] if chain >= 0 else [])
        self.stages.append(stages)
        self.labels[len(self.preds) - 1] = label
        return len(self.preds) - 1

    # -- happens-before queries ------------------------------------------------------
    def known(self, chain: int, pos: int, node: int, strong: bool) -> bool:
        """Whether the point at ``pos`` of ``chain`` happens before ``node``."""
        clocks = self.strong if strong else self.full
        if clocks is None:  # too large to keep: assume ordered (races not checked)
            return True
        return bool(clocks[node, chain] >= pos)

    def before(self, e: Entry, node: int, strong: bool, completion: bool = False) -> bool:
        """Whether data operation ``e`` (its completion, for a port put) happens before
        ``node``: through its next fence, or (execution order only) through the packets it
        writes, whose readers wait for them."""
        if completion and e.asynchronous:
            return e.anchor >= 0 and self.known(e.chain, e.anchor, node, strong)
        if self.known(e.chain, e.fence_after, node, strong):
            return True
        if not strong:
            for x in self.cross.get(e.node, ()):
                if x == node or self.before(self.entry_of[x], node, False):
                    return True
        return False

    def started(self, rank: int, node: int) -> bool:
        """Whether some thread block of ``rank`` is known to have started before ``node``."""
        return any(self.known(c, 0, node, False) for c in self.starts.get(rank, []))

    def before_end(self, e: Entry, rank: int, completion: bool) -> bool:
        """Whether ``e``'s writes are published before the end of some thread block of
        ``rank`` (release order: its caller reads them then)."""
        return any(self.before(e, end, True, completion) for end in self.ends.get(rank, []))


def _connections(plan: Plan) -> dict[tuple[int, str, int], tuple[int, int]]:
    """``(rank, type, channel) -> (peer, tag)`` as ``setupConnections`` numbers them; the
    channels without a partner the executor adds are keyed with channel ``-1 - k``."""
    n = plan.ranks
    count: dict[tuple[int, str], defaultdict[int, int]] = {
        (g.id, t): defaultdict(int) for g in plan.gpus for t in ("memory", "port")
    }
    for g in plan.gpus:
        for t in ("memory", "port"):
            for p in g.channels[t]:
                count[(g.id, t)][p] += 1
    out: dict[tuple[int, str, int], tuple[int, int]] = {}
    for g in plan.gpus:
        tags: dict[int, int] = defaultdict(int)
        for t in ("memory", "port"):
            for k, p in enumerate(g.channels[t]):
                out[(g.id, t, k)] = (p, tags[p])
                tags[p] += 1
            extra = 0
            for p in range(n):
                if p != g.id and count[(g.id, t)][p] < count[(p, t)][g.id]:
                    for _ in range(count[(p, t)][g.id] - count[(g.id, t)][p]):
                        out[(g.id, t, -1 - extra)] = (p, tags[p])
                        tags[p] += 1
                        extra += 1
    return out


def build(
    plan: Plan, entries: list[Entry], findings: list[Finding], packet_writers: dict[int, list[int]]
) -> SyncGraph:
    """The graph of ``entries`` (grouped by chain, in program order); ``packet_writers``
    maps a packet-reading entry to the entries that write its packets."""
    chains = sorted(
        {(e.rank, e.tb) for e in entries} | {(g.id, tb.id) for g in plan.gpus for tb in g.tbs}
    )
    index = {c: i for i, c in enumerate(chains)}
    for e in entries:
        e.chain = index[(e.rank, e.tb)]
    sg = SyncGraph(entries, chains)
    by_chain: dict[int, list[Entry]] = defaultdict(list)
    for e in entries:
        by_chain[e.chain].append(e)
    signals: dict[tuple, list[tuple[int, int, bool]]] = defaultdict(
        list
    )  # key -> (node, chain, strong)
    waits: dict[tuple, list[tuple[int, int, bool]]] = defaultdict(list)
    barriers: dict[tuple[int, int], dict[int, list[tuple[int, int]]]] = defaultdict(
        lambda: defaultdict(list)
    )
    conns = _connections(plan)
    sg.end_pos = [0] * len(chains)
    for ci, (rank, tb) in enumerate(chains):
        sg.starts.setdefault(rank, []).append(ci)
        block = plan.gpus[rank].tbs[tb]
        start = sg.node(f"start of GPU {rank} thread block {tb}", ci, 0)
        last_point, last_fence, pos = start, start, 0
        segment: list[Entry] = []
        pending_port: dict[int, list[Entry]] = defaultdict(list)  # channel -> puts
        prev = start
        for e in by_chain[ci]:
            name = e.op.name
            if e.kind == "data":
                e.node = sg.node(e.where(), stages=e.effect.stages)
                sg.preds[e.node].append(prev)
                sg.hb[e.node].append((last_fence, True))
                segment.append(e)
                prev = e.node
                if e.op.channel_type == "port" and name in ("put", "ppkt", "pws", "pwsf"):
                    e.asynchronous = True
                    for c in e.op.channel_ids[: len(e.op.dst)]:
                        pending_port[c].append(e)
                if name in ("pws", "pwsf"):  # the signal it carries
                    pos += 1
                    sig = sg.node(f"{e.where()} (its signal)", ci, pos)
                    sg.preds[sig].append(prev)
                    sg.hb[sig].append((last_point, True))
                    for c in e.op.channel_ids:
                        for put in pending_port.pop(c, []):
                            put.anchor = pos
                        _channel(conns, rank, "port", block, c, sig, ci, True, signals, "signal")
                    last_point = prev = sig
                continue
            pos += 1
            e.pos = pos
            e.node = sg.node(e.where(), ci, pos)
            sg.preds[e.node].append(prev)
            sg.hb[e.node].append((last_point, True))
            if e.kind == "fence":
                for d in segment:
                    sg.hb[e.node].append((d.node, True))
                    d.fence_after = pos
                segment = []
                if name == "barrier":
                    barriers[(rank, e.op.barrier_id)][ci].append((e.node, e.op.num_threadblocks))
                last_fence = e.node
            else:
                _point(conns, rank, block, ci, e, pos, signals, waits, pending_port)
            last_point = prev = e.node
        pos += 1
        end = sg.node(f"end of GPU {rank} thread block {tb}", ci, pos)
        sg.end_pos[ci] = pos
        sg.preds[end].append(prev)
        sg.hb[end].append((last_point, True))
        for d in segment:
            sg.hb[end].append((d.node, True))
            d.fence_after = pos
        sg.ends.setdefault(rank, []).append(end)
    _match(sg, signals, waits, findings, conns)
    _semaphores(plan, sg, entries, findings)
    _barriers(sg, barriers, findings)
    sg.entry_of = {e.node: e for e in entries}
    add_packet_edges(sg, packet_writers)
    return sg


def add_packet_edges(sg: SyncGraph, packet_writers: dict[int, list[int]]) -> None:
    """A packet read waits for its packets' writes (execution order: an LL packet publishes
    its own payload, no other data)."""
    for reader, writers in packet_writers.items():
        for w in writers:
            sg.preds[reader].append(w)
            sg.hb[reader].append((w, False))
            sg.cross.setdefault(w, []).append(reader)


def _channel(
    conns: dict,
    rank: int,
    kind: str,
    tb: ThreadBlock,
    c: int,
    node: int,
    chain: int,
    strong: bool,
    table: dict,
    role: str,
) -> None:
    """Record a signal (on the connection towards the peer) or a wait (from the peer);
    ``c`` is the operation's channel id (a place in the thread block's channels)."""
    peer, tag = conns[(rank, kind, tb.channels[kind][c])]
    key = (rank, peer, tag) if role == "signal" else (peer, rank, tag)
    table[(*key, kind)].append((node, chain, strong))


def _point(
    conns: dict,
    rank: int,
    tb: ThreadBlock,
    ci: int,
    e: Entry,
    pos: int,
    signals: dict,
    waits: dict,
    pending_port: dict,
) -> None:
    op, name = e.op, e.op.name
    kind = op.channel_type or "memory"
    if name in ("signal", "rlxsignal", "wait", "rlxwait") and kind in ("memory", "port"):
        role = "signal" if "signal" in name else "wait"
        for c in op.channel_ids:
            if role == "signal" and kind == "port":
                for put in pending_port.pop(c, []):
                    put.anchor = pos
            _channel(
                conns,
                rank,
                kind,
                tb,
                c,
                e.node,
                ci,
                not name.startswith("rlx"),
                signals if role == "signal" else waits,
                role,
            )
    elif name == "flush" and kind == "port":
        for c in op.channel_ids[: len(op.dst)]:  # the kernel flushes nOutputs channels
            for put in pending_port.pop(c, []):
                put.anchor = pos


def _ordered(items: list[tuple[int, int, bool]]) -> tuple[int, dict[int, list[tuple[int, bool]]]]:
    per: dict[int, list[tuple[int, bool]]] = defaultdict(list)
    for node, chain, strong in items:
        per[chain].append((node, strong))
    return len(items), per


def _match(sg: SyncGraph, signals: dict, waits: dict, findings: list[Finding], conns: dict) -> None:
    for key in sorted(set(signals) | set(waits)):
        src, dst, tag, kind = key
        total, sig_per = _ordered(signals.get(key, []))
        n_waits, wait_per = _ordered(waits.get(key, []))
        where = f"the {kind} connection {tag} from GPU {src} to GPU {dst}"
        partner = next((k for k, v in conns.items() if k[0] == dst and v == (src, tag)), None)
        if partner is not None and partner[1] != kind:
            findings.append(
                Finding(
                    "channel-mismatch",
                    f"{where} is a {partner[1]} channel on GPU {dst}: the two ends differ in type",
                    rank=src,
                )
            )
        if n_waits > total:
            findings.append(
                Finding(
                    "unmatched-wait",
                    f"deadlock: GPU {dst} waits {n_waits} "
                    f"time(s) on {where}, which is signalled {total} time(s)",
                    rank=dst,
                )
            )
        elif total > n_waits:
            findings.append(
                Finding(
                    "unmatched-signal",
                    f"{where} is signalled {total} time(s) "
                    f"but waited on {n_waits}: the semaphore keeps "
                    f"{total - n_waits} for the next launch, whose waits then "
                    "return before their signals",
                    rank=src,
                )
            )
        for ws in wait_per.values():
            for j, (w, w_strong) in enumerate(ws, start=1):
                if j > total:
                    sg.blocked.add(w)
                    continue
                for ss in sig_per.values():
                    k = j - (total - len(ss))
                    if k >= 1:
                        s, s_strong = ss[k - 1]
                        sg.preds[w].append(s)
                        sg.hb[w].append((s, s_strong and w_strong))


def _semaphores(plan: Plan, sg: SyncGraph, entries: list[Entry], findings: list[Finding]) -> None:
    rel: dict[tuple[int, int], list[tuple[int, int, bool]]] = defaultdict(list)
    acq: dict[tuple[int, int], list[tuple[int, int, bool]]] = defaultdict(list)
    for e in entries:
        if e.op.name in ("sem_acquire", "sem_release"):
            table = acq if e.op.name == "sem_acquire" else rel
            for s in e.op.semaphore_ids:
                table[(e.rank, s)].append((e.node, e.chain, True))
    for key in sorted(set(rel) | set(acq)):
        rank, s = key
        init = plan.gpus[rank].semaphores[s]
        total, rel_per = _ordered(rel.get(key, []))
        n_acq, acq_per = _ordered(acq.get(key, []))
        if n_acq > total + init:
            findings.append(
                Finding(
                    "unmatched-wait",
                    f"deadlock: GPU {rank} acquires semaphore "
                    f"{s} {n_acq} time(s); it starts at {init} and is released "
                    f"{total} time(s)",
                    rank=rank,
                )
            )
        if n_acq != total:
            findings.append(
                Finding(
                    "unbalanced-semaphore",
                    f"GPU {rank}'s semaphore {s} is "
                    f"released {total} and acquired {n_acq} time(s): it does "
                    f"not return to {init} for the next launch",
                    rank=rank,
                )
            )
        for ws in acq_per.values():
            for j, (w, _) in enumerate(ws, start=1):
                need = j - init
                if need > total:
                    sg.blocked.add(w)
                    continue
                for ss in rel_per.values():
                    k = need - (total - len(ss))
                    if k >= 1:
                        sg.preds[w].append(ss[k - 1][0])
                        sg.hb[w].append((ss[k - 1][0], True))


def _barriers(sg: SyncGraph, barriers: dict, findings: list[Finding]) -> None:
    for (rank, bid), calls in sorted(barriers.items()):
        gens = max(len(v) for v in calls.values())
        for k in range(gens):
            arrive = [(chain, v[k]) for chain, v in calls.items() if k < len(v)]
            want = {n for _, (_, n) in arrive}
            gen = sg.node(f"barrier {bid} of GPU {rank}, call {k + 1}")
            # past the barrier, every arrival's fence is known
            sg.own[gen] = [(chain, sg.own[node][0][1]) for chain, (node, _) in arrive]
            for _, (node, _) in arrive:
                sg.preds[gen].extend(sg.preds[node])
                sg.hb[gen].extend(p for p in sg.hb[node])
                sg.preds[node].append(gen)
                sg.hb[node].append((gen, True))
            if len(want) > 1 or len(arrive) != min(want):
                findings.append(
                    Finding(
                        "barrier",
                        f"GPU {rank}: call {k + 1} of barrier {bid} "
                        f"is made by {len(arrive)} thread block(s) and waits for "
                        f"{sorted(want)}",
                        rank=rank,
                    )
                )
                if len(arrive) < min(want):
                    sg.blocked.add(gen)


def schedule(sg: SyncGraph, findings: list[Finding]) -> None:
    """Rounds (as soon as possible), a topological order, deadlocks and the clocks."""
    n = len(sg.preds)
    succ: list[list[int]] = [[] for _ in range(n)]
    indeg = [0] * n
    for v, ps in enumerate(sg.preds):
        for p in set(ps):
            succ[p].append(v)
            indeg[v] += 1
    best = [0] * n
    sg.rounds = [None] * n
    queue = deque(v for v in range(n) if indeg[v] == 0 and v not in sg.blocked)
    while queue:
        v = queue.popleft()
        sg.rounds[v] = here = best[v] + sg.stages[v]
        sg.order.append(v)
        for w in succ[v]:
            best[w] = max(best[w], here)
            indeg[w] -= 1
            if indeg[w] == 0 and w not in sg.blocked:
                queue.append(w)
    stuck = [v for v in range(n) if sg.rounds[v] is None]
    if stuck:
        _report_stuck(sg, set(stuck), succ, findings)
    _clocks(sg)


def _report_stuck(
    sg: SyncGraph, stuck: set[int], succ: list[list[int]], findings: list[Finding]
) -> None:
    behind = set(sg.blocked)
    queue = deque(sg.blocked)
    while queue:
        v = queue.popleft()
        for w in succ[v]:
            if w not in behind:
                behind.add(w)
                queue.append(w)
    rest = stuck - behind
    if rest:
        graph = nx.DiGraph((p, v) for v in rest for p in sg.preds[v] if p in rest)
        try:
            cycle = [u for u, _ in nx.find_cycle(graph)]
        except nx.NetworkXNoCycle:  # pragma: no cover - stuck nodes always hold a cycle
            cycle = sorted(rest)
        text = " -> ".join(sg.labels[v] for v in cycle[:6])
        findings.append(
            Finding(
                "dependency-cycle",
                f"deadlock: a cycle of waits ({text}{' ...' if len(cycle) > 6 else ''})",
            )
        )
    ops = sum(1 for e in sg.entries if e.node in stuck)
    findings.append(
        Finding("deadlock", f"deadlock: {ops} of {len(sg.entries)} operations can never run")
    )


def _clocks(sg: SyncGraph) -> None:
    n, chains = len(sg.preds), len(sg.chains)
    if n * chains > MAX_CLOCK_CELLS:
        return
    dtype = np.int16 if max(sg.end_pos, default=0) < 32000 else np.int32
    full = np.full((n, max(chains, 1)), -1, dtype=dtype)
    strong = full.copy()
    for v in sg.order:
        for table, only_strong in ((full, False), (strong, True)):
            ps = [p for p, s in sg.hb[v] if s or not only_strong]
            row = table[ps].max(axis=0) if ps else table[v]
            for chain, pos in sg.own[v]:
                row[chain] = max(row[chain], pos)
            table[v] = row
    sg.full, sg.strong = full, strong
