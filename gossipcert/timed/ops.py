"""Round-by-round schedules as lists of timed ops (:class:`~gossipcert.timed.simulate.Op`).

A schedule given by rounds (SCCL's and TE-CCL's files, gossipcert's own schedules) says
which chunks each transmission carries, not which earlier step it waits for. As ops, a
transmission waits for the data it sends: a move of chunks ``K`` from ``u`` in round ``t``
waits for the arrival of every earlier move (round ``< t``) of a chunk of ``K`` into ``u``
(for a reduction, of a partial of the same chunk). Rounds are not barriers: a move runs as
soon as its data is there and its links are free, as an executor with data dependencies
runs it.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Hashable, Iterable

from gossipcert.errors import GossipcertError
from gossipcert.schedule import Schedule
from gossipcert.timed.simulate import Op

__all__ = ["ops_from_moves", "ops_from_schedule"]

#: a move: (round, sender rank, receiver rank, units of data, the chunks it carries)
Move = tuple[int, int, int, float, frozenset[Hashable]]


def ops_from_moves(moves: Iterable[Move]) -> list[Op]:
    """One transfer op per move, waiting for the arrivals of its chunks at its sender.

    Examples
    --------
    >>> ops = ops_from_moves([(1, 0, 1, 1.0, frozenset({"a"})), (2, 1, 2, 1.0, frozenset({"a"})),
    ...                       (2, 0, 2, 1.0, frozenset({"b"}))])
    >>> [(op.src, op.dst, op.arrivals) for op in ops]
    [(0, 1, ()), (1, 2, (0,)), (0, 2, ())]
    """
    ordered = sorted(enumerate(moves), key=lambda item: (item[1][0], item[0]))
    arrived: dict[tuple[int, Hashable], list[int]] = defaultdict(list)
    ops: list[Op] = []
    pending: list[tuple[int, Hashable, int]] = []
    current = None
    for _, (t, u, v, amount, keys) in ordered:
        if t != current:
            for node, key, index in pending:
                arrived[(node, key)].append(index)
            pending, current = [], t
        waits = sorted({i for key in keys for i in arrived.get((u, key), ())})
        ops.append(Op(u, v, float(amount), arrivals=tuple(waits)))
        pending.extend((v, key, len(ops) - 1) for key in keys)
    return ops


def ops_from_schedule(schedule: Schedule, ranks: dict[int, int]) -> list[Op]:
    """The ops of a gossipcert :class:`~gossipcert.schedule.Schedule` whose nodes are the
    ranks' nodes (``ranks`` maps a node to its rank): one op per transmission and receiver,
    carrying the transmission's packets (one unit each).

    Examples
    --------
    >>> from gossipcert.schedule import Schedule, Transmission
    >>> s = Schedule(((Transmission(0, (1,), 0b1),), (Transmission(1, (2,), 0b11),)))
    >>> [(op.src, op.dst, op.nbytes) for op in ops_from_schedule(s, {0: 0, 1: 1, 2: 2})]
    [(0, 1, 1.0), (1, 2, 2.0)]
    """
    moves: list[Move] = []
    for t, rnd in enumerate(schedule.rounds, start=1):
        for tr in rnd:
            if tr.packets is None:
                raise GossipcertError("a schedule that sends 'all' its packets has no volume")
            mask = int(tr.packets)
            keys = frozenset(i for i in range(mask.bit_length()) if mask >> i & 1)
            for v in tr.receivers:
                moves.append((t, ranks[tr.sender], ranks[v], float(len(keys)), keys))
    return ops_from_moves(moves)
