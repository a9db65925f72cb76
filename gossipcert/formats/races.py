"""Data races between the thread blocks of one GPU of an MSCCL algorithm.

The thread blocks of a GPU run concurrently. The executor orders their steps only by:

* the order of a thread block's own steps;
* dependencies (``depid``/``deps``: a step waits until the named thread block signals a
  step at or after the one named; see :mod:`gossipcert.formats.timing`);
* transmissions: a receive completes after the matching send, on whichever GPUs, so a chain
  of sends and receives through other GPUs orders steps of one GPU too.

Two accesses of one slot (a GPU's buffer index, in-place aliases being one slot) by two
thread blocks, at least one of them a write, with no such chain from one to the other, are a
**race**: a read may see the value before or after the write, two writes may land in either
order. :class:`RaceCheck` is given the accesses in one order the executor may run them in (the
as-soon-as-possible order of :mod:`gossipcert.formats.replay`) and the vector clocks of the
happens-before order (``clocks[v][c]``: the last step of thread block ``c`` that happens
before event ``v``); since every access that the order puts first either happens before the
later one or races with it, checking each access against the slot's last write and the reads
since that write finds a race whenever there is one, whichever order the replay picked.

References
----------
.. [1] L. Lamport, "Time, clocks, and the ordering of events in a distributed system",
   CACM 21(7), 1978 (happens-before).
.. [2] C. Flanagan, S. N. Freund, "FastTrack: efficient and precise dynamic race
   detection", PLDI 2009 (a slot's last write and its reads since).
"""

from __future__ import annotations

from collections.abc import Hashable

import numpy as np


class RaceCheck:
    """The accesses of every slot so far, and the races they make (see the module docstring).

    Parameters
    ----------
    clocks : numpy.ndarray or None
        ``clocks[v][c]``; None: races are not checked.
    owner : dict
        Event ``v`` -> (thread block ``c``, step index) that performs it.
    """

    def __init__(self, clocks: np.ndarray | None, owner: dict[int, tuple[int, int]]) -> None:
        self.clocks = clocks
        self.owner = owner
        self.last_write: dict[Hashable, tuple[int, int, str]] = {}
        self.reads: dict[Hashable, dict[int, tuple[int, str]]] = {}

    def _unordered(self, node: int, chain: int, step: int) -> bool:
        """Whether step ``step`` of thread block ``chain`` does not happen before ``node``."""
        assert self.clocks is not None
        return chain != self.owner[node][0] and int(self.clocks[node][chain]) < step

    def read(self, node: int, slot: Hashable, name: str, where: str) -> str | None:
        """Record that event ``node`` (by ``where``) reads ``slot`` (called ``name``); the
        race it makes with the slot's last write, as a sentence, or None."""
        if self.clocks is None or node not in self.owner:
            return None
        chain, step = self.owner[node]
        seen = self.reads.setdefault(slot, {})
        seen[chain] = (step, where)
        last = self.last_write.get(slot)
        if last is not None and self._unordered(node, last[0], last[1]):
            return (
                f"{where} reads {name}, written by {last[2]}, without waiting for it (no "
                "dependency orders them): a data race"
            )
        return None

    def write(self, node: int, slot: Hashable, name: str, where: str) -> list[str]:
        """Record that event ``node`` writes ``slot``; the races it makes with the slot's last
        write and with the reads since, as sentences."""
        if self.clocks is None or node not in self.owner:
            return []
        out = []
        last = self.last_write.get(slot)
        if last is not None and self._unordered(node, last[0], last[1]):
            out.append(
                f"{where} writes {name}, which {last[2]} writes too, and neither waits for the "
                "other: which value stays depends on timing (a data race)"
            )
        for chain, (step, reader) in sorted(self.reads.get(slot, {}).items()):
            if self._unordered(node, chain, step):
                out.append(
                    f"{where} writes {name}, which {reader} reads, and neither waits for the "
                    "other: the read may see either value (a data race)"
                )
        self.last_write[slot] = (*self.owner[node], where)
        self.reads[slot] = {}
        return out
