"""Another tool's transfers as a gossipcert schedule, which the verifier
(:func:`gossipcert.simulate.simulate`) replays: the copy collectives'
(:func:`schedule_from_transfers`) and the reductions' (:func:`reduction_schedule_from_transfers`),
one round per round of the tool's timing, a sender's chunks to one receiver one transmission."""

from __future__ import annotations

from collections import defaultdict
from typing import Any, cast

from gossipcert import graphs
from gossipcert.formats.findings import Transfer
from gossipcert.instance import Instance
from gossipcert.schedule import Schedule, Transmission

__all__ = ["reduction_schedule_from_transfers", "schedule_from_transfers"]


def schedule_from_transfers(
    instance: Instance, transfers: list[Transfer], procs: list[int]
) -> Schedule:
    """The transmissions as a gossipcert schedule (chunks the problem lacks left out)."""
    index: dict[Any, int] = {}
    refs = [graphs.node_ref(instance.graph, v) for v in procs]
    for name in instance.packet_names:
        index[name] = instance.packet_index(name)
    rounds: dict[int, dict[tuple[int, int], int]] = defaultdict(lambda: defaultdict(int))
    chunks = instance.problem.chunks
    for tr in transfers:
        mask = 0
        for value in tr.payload:
            for chunk in value:
                name = _packet_name(chunk, refs, chunks)
                if name in index:
                    mask |= 1 << index[name]
        rounds[tr.round][(procs[tr.sender], procs[tr.receiver])] |= mask
    length = max(rounds, default=0)
    return Schedule(
        tuple(
            tuple(Transmission(u, (v,), m) for (u, v), m in sorted(rounds.get(t, {}).items()))
            for t in range(1, length + 1)
        )
    )


def reduction_schedule_from_transfers(
    instance: Instance, transfers: list[Transfer], procs: list[int]
) -> Schedule:
    """A reduction's transmissions as a gossipcert schedule (``allreduce``, ``reduce-scatter``,
    ``reduce``).

    Each chunk a transfer carries (its contributions ``(rank, c)``) is chunk ``c`` of the
    instance; the receiver copies it when it holds every contribution the receiver's partial
    holds at the start of the round (nothing is lost), and combines it otherwise. A partial
    the algorithm kept apart (in a scratch slot) is the sender's whole partial here: the
    verifier then judges the schedule as gossipcert's model reads it.
    """
    partial: dict[tuple[int, int], set[int]] = defaultdict(set)
    rounds: dict[int, dict[tuple[int, int, str], int]] = defaultdict(lambda: defaultdict(int))
    gained: list[tuple[int, int, set[int]]] = []
    current = 0
    for tr in sorted(transfers, key=lambda x: x.round):
        if tr.round != current:
            for v, c, ranks in gained:
                partial[(v, c)] |= ranks | {v}
            gained, current = [], tr.round
        for value in tr.payload:
            pairs = [cast(tuple[int, int], x) for x in value]
            chunk = {c for _, c in pairs}
            if len(chunk) != 1:
                continue
            c = chunk.pop()
            ranks = {s for s, _ in pairs}
            mine = partial[(tr.receiver, c)] or {tr.receiver}
            op = "copy" if ranks >= mine else "reduce"
            rounds[tr.round][(procs[tr.sender], procs[tr.receiver], op)] |= 1 << c
            gained.append((tr.receiver, c, ranks))
    length = max(rounds, default=0)
    return Schedule(
        tuple(
            tuple(
                Transmission(u, (v,), m, op) for (u, v, op), m in sorted(rounds.get(t, {}).items())
            )
            for t in range(1, length + 1)
        )
    )


def _packet_name(chunk: Any, refs: list[Any], chunks: int) -> Any:
    if len(chunk) == 2:  # allgather: (origin, piece)
        base: Any = refs[chunk[0]]
    else:  # alltoall: (origin, destination, piece)
        base = (refs[chunk[0]], refs[chunk[1]])
    return (base, chunk[-1]) if chunks > 1 else base
