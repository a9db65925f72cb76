"""The as-soon-as-possible rounds of an MSCCL algorithm's steps and the happens-before
order between them (vector clocks over the thread blocks).

The rule is stated in :mod:`gossipcert.formats.replay`, which uses it.

References
----------
.. [1] github.com/Azure/msccl-executor-nccl, ``src/misc/msccl/msccl_parser.cc``.
"""

from __future__ import annotations

from collections import defaultdict, deque

import networkx as nx
import numpy as np

from gossipcert.errors import FormatError
from gossipcert.formats.findings import Finding, StepKey
from gossipcert.formats.findings import step_where as _where
from gossipcert.formats.msccl_loader import published_counters
from gossipcert.formats.msccl_xml import MscclAlgorithm, Step

#: the largest vector-clock matrix (nodes x thread blocks) built to check for races (a file
#: that needs more is refused: an algorithm is never called valid unchecked)
MAX_CLOCK_CELLS = 50_000_000


class Timing:
    """The dependency graph of events and its as-soon-as-possible rounds."""

    def __init__(self, algo: MscclAlgorithm, findings: list[Finding]) -> None:
        self.algo = algo
        self.steps: dict[StepKey, Step] = {}
        self.first: dict[StepKey, int] = {}  # node of a step's first event
        self.last: dict[StepKey, int] = {}  # node of its last event
        self.is_transfer: list[bool] = []
        self.preds: list[list[int]] = []
        self.blocked: set[int] = set()
        # transmission node -> (sender step, receiver step, channel)
        self.pairs: dict[int, tuple[StepKey, StepKey, int]] = {}
        self._signals: dict[tuple[int, int], list[int | None]] = {}
        # each node's step: (chain = thread block, step index), for happens-before
        self.chains: dict[tuple[int, int], int] = {}
        self.owner: dict[int, tuple[int, int]] = {}
        #: per node, the last step of every thread block that happens before it
        self.clocks: np.ndarray | None = None
        self._build(findings)

    def _node(self, transfer: bool) -> int:
        self.is_transfer.append(transfer)
        self.preds.append([])
        return len(self.preds) - 1

    def _build(self, findings: list[Finding]) -> None:
        sends: dict[tuple[int, int, int], list[StepKey]] = defaultdict(list)
        recvs: dict[tuple[int, int, int], list[StepKey]] = defaultdict(list)
        for gpu in self.algo.gpus:
            for tb in gpu.tbs:
                for st in tb.steps:
                    key = (gpu.id, tb.id, st.index)
                    self.steps[key] = st
                    if st.receives:
                        recvs[(tb.recv, gpu.id, tb.chan)].append(key)
                    if st.sends:
                        sends[(gpu.id, tb.send, tb.chan)].append(key)
        recv_node: dict[StepKey, int] = {}  # a receiving step's own (local) node
        send_node: dict[StepKey, int] = {}  # a sending step's transmission node
        arrival: dict[StepKey, int] = {}  # the transmission a receiving step waits for
        for conn in sorted(set(sends) | set(recvs)):
            out, into = sends.get(conn, []), recvs.get(conn, [])
            u, v, chan = conn
            for k in range(max(len(out), len(into))):
                node = self._node(True)
                if k < len(out) and k < len(into):
                    send_node[out[k]] = arrival[into[k]] = node
                    self.pairs[node] = (out[k], into[k], chan)
                elif k < len(out):
                    send_node[out[k]] = node
                    findings.append(
                        Finding(
                            "unmatched-send",
                            f"{_where(*out[k][:2], self.steps[out[k]])} is send number {k + 1} "
                            f"to GPU {v} on channel {chan}, but GPU {v} receives only {len(into)} "
                            f"time(s) from GPU {u} on that channel: the data is never received",
                            rank=u,
                        )
                    )
                else:
                    arrival[into[k]] = node
                    self.blocked.add(node)
                    findings.append(
                        Finding(
                            "unmatched-receive",
                            f"deadlock: {_where(*into[k][:2], self.steps[into[k]])} is receive "
                            f"number {k + 1} from GPU {u} on channel {chan}, but GPU {u} sends "
                            f"only {len(out)} time(s) to GPU {v} on that channel",
                            rank=v,
                        )
                    )
        for gpu in self.algo.gpus:
            for tb in gpu.tbs:
                for st in tb.steps:
                    key = (gpu.id, tb.id, st.index)
                    if st.receives:
                        first = recv_node[key] = self._node(False)
                        self.preds[first].append(arrival[key])
                        last = send_node[key] if st.sends else first
                        if st.sends:
                            self.preds[last].append(first)
                    elif st.sends:
                        first = last = send_node[key]
                    else:
                        first = last = self._node(False)
                    self.first[key], self.last[key] = first, last
                    chain = self.chains.setdefault((gpu.id, tb.id), len(self.chains))
                    for node in (first, last):
                        self.owner[node] = (chain, st.index)
        self.recv_node = recv_node
        for (rank, tb_id, s), node in self.first.items():
            st = self.steps[(rank, tb_id, s)]
            if s > 0:
                self.preds[node].append(self.last[(rank, tb_id, s - 1)])
            if st.depid >= 0:
                target = self._signalled(rank, st.depid, st.deps)
                if target is None:
                    never = self._node(False)
                    self.blocked.add(never)
                    self.preds[node].append(never)
                    findings.append(
                        Finding(
                            "unsignalled-dependency",
                            f"deadlock: {_where(rank, tb_id, st)} waits for GPU {rank} "
                            f"thread block {st.depid} step {st.deps}, but neither that step nor "
                            'a later one of that thread block has hasdep="1" (nops aside): the '
                            "executor never signals it",
                            rank=rank,
                        )
                    )
                else:
                    self.preds[node].append(self.last[(rank, st.depid, target)])

    def _signalled(self, rank: int, tb: int, index: int) -> int | None:
        """The step whose completion the executor signals to a step waiting for step
        ``index`` of ``tb`` (None: never signalled): the first whose published counter
        reaches ``index`` (:func:`gossipcert.formats.msccl_loader.published_counters`)."""
        table = self._signals.get((rank, tb))
        if table is None:
            steps = list(self.algo.gpus[rank].tbs[tb].steps)  # the reader orders both by id
            published = published_counters(steps)
            table, j = [], 0
            for s in range(len(steps)):
                while j < len(published) and published[j][0] < s:
                    j += 1
                table.append(published[j][1] if j < len(published) else None)
            self._signals[(rank, tb)] = table
        return table[index]

    def rounds(self, findings: list[Finding]) -> tuple[list[int | None], list[int]]:
        """Each node's round (None: never happens) and a topological order of those that do."""
        n = len(self.preds)
        succ: list[list[int]] = [[] for _ in range(n)]
        indeg = [0] * n
        for node, ps in enumerate(self.preds):
            for p in set(ps):
                succ[p].append(node)
                indeg[node] += 1
        value: list[int | None] = [None] * n
        best = [0] * n
        queue = deque(v for v in range(n) if indeg[v] == 0 and v not in self.blocked)
        order: list[int] = []
        while queue:
            v = queue.popleft()
            value[v] = here = best[v] + 1 if self.is_transfer[v] else best[v]
            order.append(v)
            for w in succ[v]:
                best[w] = max(best[w], here)
                indeg[w] -= 1
                if indeg[w] == 0 and w not in self.blocked:
                    queue.append(w)
        stuck = {v for v in range(n) if value[v] is None}
        if stuck:
            self._report_stuck(stuck, succ, findings)
        self._clocks(order)
        return value, order

    def _clocks(self, order: list[int]) -> None:
        """Vector clocks: ``clocks[v][c]`` is the last step of thread block ``c`` that
        happens before node ``v`` (along thread-block order, dependencies and transmissions),
        -1 for none."""
        n, chains = len(self.preds), len(self.chains)
        if n * chains > MAX_CLOCK_CELLS:
            raise FormatError(
                f"{self.algo.source}: too large to check for races ({n:,} events times "
                f"{chains:,} thread blocks, more than the {MAX_CLOCK_CELLS:,} this reader takes)"
            )
        clocks = np.full((n, max(chains, 1)), -1, dtype=np.int16)  # steps: < 4096 a block
        for v in order:
            ps = self.preds[v]
            if ps:
                row = clocks[ps].max(axis=0) if len(ps) > 1 else clocks[ps[0]].copy()
            else:
                row = clocks[v]
            chain, step = self.owner[v]
            row[chain] = max(row[chain], step)
            clocks[v] = row
        self.clocks = clocks

    def _report_stuck(
        self, stuck: set[int], succ: list[list[int]], findings: list[Finding]
    ) -> None:
        behind = set(self.blocked)
        queue = deque(self.blocked)
        while queue:
            v = queue.popleft()
            for w in succ[v]:
                if w not in behind:
                    behind.add(w)
                    queue.append(w)
        rest = stuck - behind
        names = {node: key for key, node in self.last.items()}
        names.update({node: key for key, node in self.first.items() if node not in names})
        if rest:
            graph = nx.DiGraph((p, v) for v in rest for p in self.preds[v] if p in rest)
            try:
                cycle = [u for u, _ in nx.find_cycle(graph)]
            except nx.NetworkXNoCycle:  # pragma: no cover - stuck nodes always hold a cycle
                cycle = sorted(rest)
            text = " -> ".join(
                _where(*names[v][:2], self.steps[names[v]]) for v in cycle[:6] if v in names
            )
            findings.append(
                Finding(
                    "dependency-cycle",
                    f"deadlock: a cycle of dependencies ({text}{' ...' if len(cycle) > 6 else ''})",
                )
            )
        never = len({key for key, node in self.last.items() if node in stuck})
        findings.append(
            Finding("deadlock", f"deadlock: {never} of {len(self.steps)} steps can never run")
        )
