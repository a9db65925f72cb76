"""A round that visibly breaks no rule, replayed by whole-round operations (the fast path of
:func:`gossipcert.simulate.simulate`)."""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Iterator

from gossipcert.instance import Model
from gossipcert.schedule import Transmission
from gossipcert.verifier.report import RoundStats

__all__ = ["and_not", "plain_round"]


def plain_round(
    rnd: tuple[Transmission, ...], know: list[int], adj: list[set[int]], model: Model
) -> RoundStats | None:
    """Replay a round that visibly breaks no rule, by whole-round operations; else None.

    A round is *plain* when every transmission has one receiver, a neighbour of its sender;
    no node sends twice and no node receives twice; every packet sent is known to its sender;
    the packet caps hold; and the model's port rule holds (half-duplex: no node both sends
    and receives; telephone: the transmissions pair up into a matching of calls). Such a
    round breaks no rule, and its effect and counts are those of the per-transmission replay
    in :func:`simulate`: each receiver learns the one set sent to it. On a plain round
    ``know`` is updated and the round's counts are returned; any other round returns None
    with ``know`` untouched, and the per-transmission replay reports what is wrong.
    """
    # Whole-round operations: map over the columns, so that the per-transmission work runs in
    # C; ``and_not(a, b)`` is ``a & ~b`` element by element.
    if not rnd:
        return None
    senders, targets, packets, ops = zip(*rnd, strict=True)
    if ops.count("copy") != len(ops):
        return None  # "reduce" outside a reduction: the replay reports it
    if set(map(len, targets)) != {1}:
        return None
    receivers = [target[0] for target in targets]
    if len(set(senders)) != len(senders) or len(set(receivers)) != len(receivers):
        return None
    if not all(map(set.__contains__, map(adj.__getitem__, senders), receivers)):
        return None  # a receiver that is not its sender's neighbour
    sender_know = list(map(know.__getitem__, senders))
    masks = (
        packets
        if None not in packets
        else [k if p is None else p for k, p in zip(sender_know, packets, strict=True)]
    )
    if any(and_not(masks, sender_know)):
        return None  # a packet its sender does not know
    sizes = list(map(int.bit_count, masks))
    largest = max(sizes)
    rules = model.rules
    if model.packet_cap is not None and largest > model.packet_cap:
        return None
    calls = len(rnd)
    if rules.send_or_receive and not set(senders).isdisjoint(receivers):
        return None
    if rules.two_way_calls:
        target_of = dict(zip(senders, receivers, strict=True))
        source_of = dict(zip(receivers, senders, strict=True))
        if any(
            target_of.get(v, u) != u or source_of.get(u, v) != v
            for u, v in zip(senders, receivers, strict=True)
        ):
            return None  # not a matching of calls
        calls -= sum(target_of.get(v) == u for u, v in zip(senders, receivers, strict=True)) // 2
    if model.calls_per_round is not None and calls > model.calls_per_round:
        return None
    receiver_know = list(map(know.__getitem__, receivers))
    learned = sum(map(int.bit_count, and_not(masks, receiver_know)))
    # receivers are distinct: each learns the one set sent to it
    know_after = map(int.__or__, receiver_know, masks)
    deque(map(know.__setitem__, receivers, know_after), maxlen=0)
    return RoundStats(len(rnd), calls, sum(sizes), largest, learned)


def and_not(a: Iterable[int], b: Iterable[int]) -> Iterator[int]:
    """``x & ~y`` for the pairs of ``a`` and ``b``."""
    return map(int.__and__, a, map(int.__invert__, b))
