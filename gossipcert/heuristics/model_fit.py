"""Telephone or half-duplex rounds made valid under any model, by splitting rounds.

The matching heuristic (:mod:`gossipcert.heuristics.matching`) chooses a matching per round
and lets each matched pair exchange everything (telephone) or send everything one way
(half-duplex). Every such round is a valid round of single-port, multicast and all-port
once its transmissions respect the model's limits on one round: a call's two
transmissions send to one node and receive from one node (one-port), and each uses one
arc (all-port). What may not hold is the size of a transmission (the packet cap ``p``, or
an arc's capacity under all-port) and the number of calls in a round (``calls=K``, the
sequential model). :func:`fit_rounds` splits each round into as many rounds as needed: the
useful packets of each transmission (those its receiver lacks) in pieces of at most the
limit, sent in consecutive rounds (all sent from what the sender knew at the round's
start), and the calls of each piece in groups of at most ``calls_per_round``. The
receivers know after the group exactly what they knew after the round, so the schedule
meets every demand the rounds met.

Examples
--------
>>> from gossipcert.instance import parse_instance
>>> from gossipcert.schedule import Schedule, Transmission as T
>>> inst = parse_instance("path:3", "telephone:p=1", "gossip")
>>> rounds = [(T(0, (1,), None), T(1, (0,), None)), (T(1, (2,), None), T(2, (1,), None))]
>>> [len(r) for r in fit_rounds(inst, rounds).rounds]  # 2 packets go 1 -> 2: two rounds
[2, 2, 1]
"""

from __future__ import annotations

from collections.abc import Iterable

from gossipcert.graphs import capacity
from gossipcert.instance import Instance
from gossipcert.schedule import Round, Schedule, Transmission


def _pieces(mask: int, size: int | None) -> list[int]:
    """``mask``'s packets in pieces of at most ``size`` (one piece when unbounded)."""
    if size is None or mask.bit_count() <= size:
        return [mask]
    out: list[int] = []
    piece, count = 0, 0
    while mask:
        low = mask & -mask
        mask ^= low
        piece |= low
        count += 1
        if count == size:
            out.append(piece)
            piece, count = 0, 0
    if piece:
        out.append(piece)
    return out


def _by_calls(
    sends: list[tuple[int, int, int]], per_round: int | None, two_way: bool
) -> list[Round]:
    """Rounds of at most ``per_round`` calls (two-way: a pair's two transmissions are one
    call) from ``sends`` ``(sender, receiver, packets)``."""
    groups: dict[tuple[int, int], list[Transmission]] = {}
    for u, v, mask in sends:
        key = (min(u, v), max(u, v)) if two_way else (u, v)
        groups.setdefault(key, []).append(Transmission(u, (v,), mask))
    calls = list(groups.values())
    step = len(calls) if per_round is None else per_round
    return [
        tuple(tr for call in calls[i : i + step] for tr in call)
        for i in range(0, len(calls), max(1, step))
    ]


def fit_rounds(instance: Instance, rounds: Iterable[Round]) -> Schedule:
    """``rounds`` (point-to-point calls of telephone or half-duplex) as a schedule valid
    under ``instance``'s model, each round split where a transmission carries more than the
    model allows or the round has too many calls.

    Parameters
    ----------
    instance : Instance
    rounds : iterable of Round
        Rounds whose transmissions have one receiver each, a node sending and receiving at
        most once (with its one partner); ``None`` packets are everything the sender knows.

    Returns
    -------
    Schedule
        The rounds unchanged when the model has unbounded packets and no limit on calls.

    References
    ----------
    .. [1] R. Beier and J. F. Sibeyn, "A powerful heuristic for telephone gossiping",
       section 4 (the rounds of the matching heuristic).
    """
    model = instance.model
    rounds = list(rounds)
    if model.unbounded and model.calls_per_round is None:
        return Schedule(tuple(rounds))
    all_port = model.rules.arc_capacities
    two_way = model.rules.two_way_calls
    known = list(instance.holdings)
    out: list[Round] = []
    for rnd in rounds:
        sends: list[tuple[int, int, list[int]]] = []
        learned: list[tuple[int, int]] = []
        for tr in rnd:
            u = tr.sender
            have = known[u] if tr.packets is None else tr.packets & known[u]
            for v in tr.receivers:
                useful = have & ~known[v]
                if not useful:
                    continue
                size = (
                    (model.capacity or capacity(instance.graph, u, v))
                    if all_port
                    else (model.packet_cap)
                )
                sends.append((u, v, _pieces(useful, size)))
                learned.append((v, useful))
        depth = max((len(p) for _, _, p in sends), default=0)
        for i in range(depth):
            piece = [(u, v, p[i]) for u, v, p in sends if i < len(p)]
            out.extend(_by_calls(piece, model.calls_per_round, two_way))
        for v, useful in learned:
            known[v] |= useful
    return Schedule(tuple(out))
