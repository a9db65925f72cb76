"""Writing verified gossipcert schedules as MSCCL++ execution plans.

Only a schedule the verifier accepts (valid and complete) is written, for ``gossip``
(``allgather``, in place: chunk ``j`` of rank ``s`` is output chunk ``s K + j``) and
``total-exchange`` (``alltoall``, out of place: the chunk from ``s`` to ``d`` is input chunk
``d K + j`` on ``s`` and output chunk ``s K + j`` on ``d``), with ``chunks=K``; rank ``r`` is
the ``r``-th processor of the graph (a schedule through routers is refused).

The plan runs the schedule round by round, in the Simple protocol over memory channels
(one per pair of ranks that exchange data, both ways), as MSCCL++'s own plans do:

* first a handshake: each rank ``rlxsignal``\\ s the ranks that will write into it, and
  ``rlxwait``\\ s for the ranks it will write into before its first ``put`` (so that no rank
  writes into a peer whose kernel has not started);
* round ``t``: one fused ``put`` of every chunk the rank sends in the round (each to its
  slot at the receiver), a ``nop`` (a fence: the puts are complete), a ``signal`` to each
  receiver of the round, a ``wait`` for each sender of the round, and a ``nop`` (the chunks
  received are visible to every thread of the block before the next round's ``put``);
* the ``put`` of a round reads every chunk from one buffer (the kernel takes the first
  source's buffer for all): the output for ``allgather``; for ``alltoall`` a rank first copies
  its input chunks into its scratch buffer, chunks in transit wait in scratch, and each chunk
  is put straight into its destination's output;
* a chunk a rank already holds (or receives twice in one round) goes into a scratch slot of
  its own, so that nothing overwrites a slot that may be being read;
* a rank that talks to more than 8 peers (``MAX_CHANNEL_PER_OPERATION`` channels a
  ``signal``) splits them over several thread blocks, which meet at a ``barrier`` after
  the round's ``wait`` (and after the handshake).

A thread block runs at most 64 operations (``MAX_OPERATION``) and an operation names at most
10 buffers on a side: a schedule of more rounds than fit, or that sends more than 10 chunks
from one thread block in a round, is refused. Read back by
:mod:`gossipcert.formats.mscclpp_replay`, the plan is valid and takes the schedule's rounds
(each round's ``put`` waits for the previous round's ``wait``).

References
----------
.. [1] github.com/microsoft/mscclpp, ``python/mscclpp/language/program.py`` (``to_json``),
   ``src/core/executor/execution_plan.cc`` (what the loader reads).
"""

from __future__ import annotations

import json
from typing import Any

from gossipcert import graphs
from gossipcert.errors import FormatError
from gossipcert.formats.mscclpp_plan import (
    MAX_CHANNEL_PER_OPERATION,
    MAX_OPERATION,
    Plan,
    parse_mscclpp_plan,
)
from gossipcert.instance import Instance, ProblemKind, bits, parse_instance
from gossipcert.schedule import Schedule, Transmission
from gossipcert.simulate import simulate

#: gossipcert problem -> MSCCL++ collective
COLLECTIVES = {ProblemKind.GOSSIP: "allgather", ProblemKind.TOTAL_EXCHANGE: "alltoall"}

Slot = tuple[str, int]  # buffer, chunk


def _moves(
    schedule: Schedule, instance: Instance, rank: dict[int, int]
) -> list[list[tuple[int, int, int]]]:
    """Per round, ``(sender rank, receiver rank, packet)`` with ``"all"`` resolved."""
    know = list(instance.holdings)
    out = []
    for rnd in schedule.rounds[: len(schedule)]:
        moves: list[tuple[int, int, int]] = []
        learned = list(know)
        for tr in rnd:
            mask = know[tr.sender] if tr.packets is None else tr.packets
            for v in tr.receivers:
                moves.extend((rank[tr.sender], rank[v], p) for p in bits(mask))
                learned[v] |= mask
        know = learned
        out.append(sorted(moves))
    return out


def mscclpp_plan_from_schedule(
    schedule: Schedule, instance: Instance, name: str | None = None
) -> str:
    """An MSCCL++ execution plan (JSON text) that runs ``schedule`` (see the module docstring).

    Parameters
    ----------
    schedule : Schedule
        Valid and complete for ``instance`` (checked).
    instance : Instance
        ``gossip`` or ``total-exchange``, any ``chunks=K``, on any graph whose processors
        are the ranks.
    name : str, optional
        The plan's ``name`` (default: problem and graph).

    Returns
    -------
    str

    Raises
    ------
    FormatError
        Another problem, a schedule the verifier rejects, one through routers, or one of more
        rounds than a thread block's 64 operations hold.

    Examples
    --------
    >>> import json
    >>> from gossipcert import mscclpp_plan_from_schedule
    >>> from gossipcert.instance import parse_instance
    >>> from gossipcert.schedule import Schedule, Transmission
    >>> inst = parse_instance("path:2", "all-port", "gossip")
    >>> plan = json.loads(mscclpp_plan_from_schedule(
    ...     Schedule(((Transmission(0, (1,), 1), Transmission(1, (0,), 2)),)), inst))
    >>> plan["collective"], [op["name"] for op in plan["gpus"][0]["threadblocks"][0]["ops"]]
    ('allgather', ['rlxsignal', 'rlxwait', 'nop', 'put', 'nop', 'signal', 'wait', 'nop'])
    """
    kind = instance.problem.kind
    coll = COLLECTIVES.get(kind)
    if coll is None:
        raise FormatError(
            f"{instance.problem.spec()} cannot be written as an MSCCL++ plan (written: gossip "
            "as allgather, total-exchange as alltoall)"
        )
    report = simulate(instance, schedule)
    if not report.ok:
        first = report.errors[0].message if report.errors else "some demands are never met"
        raise FormatError(f"the schedule fails the verifier ({first}); nothing is written")
    procs = graphs.processors(instance.graph)
    rank = {v: r for r, v in enumerate(procs)}
    if any(t.sender not in rank or set(t.receivers) - set(rank) for rnd in schedule for t in rnd):
        raise FormatError("the schedule sends through routers, which are not GPUs")
    n, k = len(procs), instance.problem.chunks
    writer = _Writer(instance, coll, n, k)
    rounds = _moves(schedule, instance, rank)
    for moves in rounds:
        writer.round(moves)
    return json.dumps(
        writer.plan(
            name or f"{instance.problem.spec()} on {instance.graph.graph.get('spec', 'graph')}"
        ),
        indent=1,
    )


class _Writer:
    """Builds the plan round by round."""

    def __init__(self, instance: Instance, coll: str, n: int, k: int) -> None:
        self.instance, self.coll, self.n, self.k = instance, coll, n, k
        self.rounds: list[list[tuple[int, int, Slot, Slot]]] = []
        self.scratch = [n * k if coll == "alltoall" else 0 for _ in range(n)]
        self.where: dict[tuple[int, int], Slot] = {}  # (rank, packet) -> its slot
        for r in range(n):
            for p in bits(instance.holdings[procs_index(instance, r)]):
                self.where[(r, p)] = self._home(r, p)

    def _home(self, r: int, p: int) -> Slot:
        """The slot of packet ``p`` on rank ``r`` when ``r`` holds it from the start or it is
        addressed to ``r``."""
        q, piece = divmod(p, self.k)
        if self.coll == "allgather":
            return "o", q * self.k + piece
        origin, rest = divmod(q, self.n - 1)
        dest = rest if rest < origin else rest + 1
        if r == origin:  # its input chunk, copied to scratch at the start
            return "s", dest * self.k + piece
        return "o", origin * self.k + piece

    def _dest(self, r: int, p: int) -> Slot:
        if (r, p) not in self.where:
            if self.coll == "allgather" or self._dest_rank(p) == r:
                self.where[(r, p)] = self._home(r, p)
                return self.where[(r, p)]
            self.where[(r, p)] = ("s", self.scratch[r])
            self.scratch[r] += 1
            return self.where[(r, p)]
        self.scratch[r] += 1  # a chunk it holds: a slot of its own
        return "s", self.scratch[r] - 1

    def _dest_rank(self, p: int) -> int:
        origin, rest = divmod(p // self.k, self.n - 1)
        return rest if rest < origin else rest + 1

    def round(self, moves: list[tuple[int, int, int]]) -> None:
        placed = []
        for u, v, p in moves:
            src = self.where[(u, p)]
            placed.append((u, v, src, self._dest(v, p)))
        self.rounds.append(placed)

    def plan(self, name: str) -> dict[str, Any]:
        n, k, coll = self.n, self.k, self.coll
        peers = [
            sorted(
                {v for rnd in self.rounds for u, v, *_ in rnd if u == r}
                | {u for rnd in self.rounds for u, v, *_ in rnd if v == r}
            )
            for r in range(n)
        ]
        gpus = []
        for r in range(n):
            groups = [
                peers[r][i : i + MAX_CHANNEL_PER_OPERATION]
                for i in range(0, len(peers[r]), MAX_CHANNEL_PER_OPERATION)
            ]
            groups = groups or [[]]
            remote: dict[tuple[int, str], int] = {}
            tbs = [
                self._tb(r, t, group, peers[r], remote, len(groups))
                for t, group in enumerate(groups)
            ]
            gpus.append(
                {
                    "id": r,
                    "input_chunks": k if coll == "allgather" else n * k,
                    "output_chunks": n * k,
                    "scratch_chunks": self.scratch[r],
                    "threadblocks": tbs,
                    "channels": [{"channel_type": "memory", "connected_to": peers[r]}],
                    "remote_buffers": [
                        {"rank": q, "type": b, "access_channel_types": ["memory"]}
                        for (q, b), _ in sorted(remote.items(), key=lambda x: x[1])
                    ],
                    "semaphores": [],
                }
            )
        return {
            "name": name,
            "collective": coll,
            "protocol": "Simple",
            "inplace": coll == "allgather",
            "reuse_resources": False,
            "gpus": gpus,
            "num_threads_per_block": 1024,
            "use_double_scratch_buffer": False,
            "buffer_alignment": 16,
            "min_message_size": 0,
            "max_message_size": 2**64 - 1,
        }

    def _tb(
        self,
        r: int,
        t: int,
        group: list[int],
        peers: list[int],
        remote: dict[tuple[int, str], int],
        ntb: int,
    ) -> dict[str, Any]:
        chan = {q: peers.index(q) for q in group}
        local = {q: i for i, q in enumerate(group)}  # the thread block's channel ids
        refs: list[int] = []
        ops: list[dict[str, Any]] = []
        if self.coll == "alltoall" and t == 0:  # own input -> scratch; own chunks -> output
            ops.append(
                {
                    "name": "copy",
                    "src_buff": [{"type": "i", "index": 0, "size": self.n * self.k}],
                    "dst_buff": [{"type": "s", "index": 0, "size": self.n * self.k}],
                }
            )
            own = r * self.k
            ops.append(
                {
                    "name": "copy",
                    "src_buff": [{"type": "i", "index": own, "size": self.k}],
                    "dst_buff": [{"type": "o", "index": own, "size": self.k}],
                }
            )
        into = sorted({v for rnd in self.rounds for u, v, *_ in rnd if u == r and v in chan})
        from_ = sorted({u for rnd in self.rounds for u, v, *_ in rnd if v == r and u in chan})
        if from_:
            ops.append(_sync("rlxsignal", [local[q] for q in from_]))
        if into:
            ops.append(_sync("rlxwait", [local[q] for q in into]))
        fence = (
            {"name": "barrier", "barrier_id": 0, "num_threadblocks": ntb}
            if ntb > 1
            else {"name": "nop"}
        )
        if ops:
            ops.append(dict(fence))
        for rnd in self.rounds:
            sends = [(v, src, dst) for u, v, src, dst in rnd if u == r and v in chan]
            recvs = sorted({u for u, v, *_ in rnd if v == r and u in chan})
            if len(sends) > 2 + MAX_CHANNEL_PER_OPERATION:
                raise FormatError(
                    f"rank {r} sends {len(sends)} chunks to its peers {group} in one round; an "
                    f"operation names at most {2 + MAX_CHANNEL_PER_OPERATION} buffers"
                )
            if sends:
                srcs, dsts = [], []
                for v, src, dst in sends:
                    key = (v, dst[0])
                    if key not in remote:
                        remote[key] = len(remote)
                    if remote[key] not in refs:
                        refs.append(remote[key])
                    srcs.append({"type": src[0], "index": src[1], "size": 1})
                    dsts.append({"buffer_id": refs.index(remote[key]), "index": dst[1], "size": 1})
                ops.append(
                    {"name": "put", "src_buff": srcs, "dst_buff": dsts, "channel_type": "memory"}
                )
                ops.append({"name": "nop"})
                ops.append(_sync("signal", sorted({local[v] for v, *_ in sends})))
            if recvs:
                ops.append(_sync("wait", [local[u] for u in recvs]))
            if sends or recvs or ntb > 1:
                ops.append(dict(fence))
        if len(ops) > MAX_OPERATION:
            raise FormatError(
                f"rank {r} needs {len(ops)} operations in a thread block; the executor runs at "
                f"most {MAX_OPERATION} (MAX_OPERATION): the schedule has too many rounds"
            )
        return {
            "id": t,
            "ops": ops,
            "channels": [{"channel_type": "memory", "channel_ids": [chan[q] for q in group]}]
            if group
            else [],
            "remote_buffer_refs": [{"access_channel_type": "memory", "remote_buffer_ids": refs}]
            if refs
            else [],
        }


def _sync(name: str, ids: list[int]) -> dict[str, Any]:
    return {"name": name, "channel_ids": ids, "channel_type": "memory"}


def procs_index(instance: Instance, r: int) -> int:
    """The node of rank ``r``."""
    return graphs.processors(instance.graph)[r]


def example_plan() -> Plan:
    """A two-rank allgather plan, as this writer writes it (for examples and tests).

    Examples
    --------
    >>> example_plan().collective
    'allgather'
    """
    inst = parse_instance("path:2", "all-port", "gossip")
    sched = Schedule(((Transmission(0, (1,), 1), Transmission(1, (0,), 2)),))
    return parse_mscclpp_plan(mscclpp_plan_from_schedule(sched, inst), "example")
