"""The verifier's partial results of a reduction (``reduce``, ``reduce-scatter``,
``allreduce``), replayed round by round for :func:`gossipcert.simulate.simulate`.

Written plainly from the rules in :mod:`gossipcert.simulate`'s docstring and sharing no
code with the encodings: per node and chunk, the set of contributions folded into the
node's partial result, as a bitmask over the contributing nodes.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from gossipcert.instance import Instance, bits


def chunk_text(name: Any) -> str:
    """A chunk's name in a sentence: ``3``, or ``(3, 1)`` for chunk 1 of node 3's data."""
    return str(name) if not isinstance(name, tuple) else "(" + ", ".join(map(str, name)) + ")"


class Partials:
    """The partial results of a reduction during a replay (rules: :mod:`gossipcert.simulate`).

    ``partial[v][c]`` is the bitmask, over contributor nodes, of the contributions folded
    into node ``v``'s partial result of chunk ``c``; ``full[c]`` is every contributor of
    ``c``. Receipts of a round are collected by :meth:`receive` (reading the partials before
    the round) and applied by :meth:`combine`.
    """

    def __init__(self, instance: Instance) -> None:
        self.instance = instance
        n, chunks = instance.n, instance.n_packets
        self.full = [0] * chunks
        self.partial = [[0] * chunks for _ in range(n)]
        for v, held in enumerate(instance.holdings):
            for c in bits(held):
                self.full[c] |= 1 << v
                self.partial[v][c] = 1 << v
        self.sum = instance.problem.redop == "sum"
        self.receipts: list[tuple[int, int, int, bool, int]] = []
        #: how many demanded (node, chunk) pairs still lack a contribution (kept up to date
        #: by :meth:`combine`, so that :meth:`unmet` needs no pass over every chunk)
        self.open = sum(
            1
            for v, need in enumerate(instance.demands)
            for c in bits(need)
            if self.full[c] & ~self.partial[v][c]
        )

    def receive(self, sender: int, receiver: int, mask: int, op: str) -> None:
        """Note that ``receiver`` gets ``sender``'s partials of the chunks in ``mask``."""
        row = self.partial[sender]
        for c in bits(mask):
            self.receipts.append((receiver, c, sender, op == "copy", row[c]))

    def combine(self, t: int, report: Any, ref: Any) -> int:
        """Apply round ``t``'s receipts, report double counts; the contributions gained."""
        names = self.instance.packet_names
        demands = self.instance.demands
        full = self.full
        by_target: dict[tuple[int, int], list[tuple[int, bool, int]]] = defaultdict(list)
        for v, c, u, copy, value in self.receipts:
            by_target[(v, c)].append((u, copy, value))
        self.receipts = []
        gained = 0
        for (v, c), got in sorted(by_target.items()):
            copies = [(u, value) for u, copy, value in got if copy]
            if len(copies) > 1:
                report(
                    t,
                    (v, *(u for u, _ in copies)),
                    "copied-twice",
                    f"node {ref(v)} stores chunk {chunk_text(names[c])} from "
                    f"{', '.join(str(ref(u)) for u, _ in copies)} at once (one copy kept)",
                )
            old = self.partial[v][c]
            value = copies[0][1] if copies else old
            for u, copy, received in got:
                if copy:
                    continue
                shared = value & received
                if shared and self.sum:
                    for w in bits(shared):
                        report(
                            t,
                            (v, u, w),
                            "double-count",
                            f"node {ref(v)} combines chunk {chunk_text(names[c])} holding "
                            f"rank {ref(w)}'s contribution twice (from {ref(u)})",
                        )
                value |= received
            self.partial[v][c] = value
            gained += (value & ~old).bit_count()
            if demands[v] >> c & 1:  # a copy may also replace a complete partial
                self.open += bool(full[c] & ~value) - bool(full[c] & ~old)
        return gained

    def unmet(self) -> bool:
        """Whether some demanded chunk still lacks a contribution."""
        return self.open > 0

    def missing(self) -> list[tuple[int, int, int]]:
        """Every ``(node, chunk, contributor)`` whose contribution a demanded chunk lacks."""
        return [
            (v, c, w)
            for v, need in enumerate(self.instance.demands)
            for c in bits(need)
            for w in bits(self.full[c] & ~self.partial[v][c])
        ]
