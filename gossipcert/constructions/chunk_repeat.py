"""A schedule for ``K = a K'`` chunks: the schedule for ``K'`` chunks run ``a`` times.

Under ``chunks=K`` every packet ``p`` of a problem is split into ``K`` interchangeable
chunks ``(p, 0) .. (p, K - 1)``, each held and needed where ``p`` is. Group them into ``a``
copies of ``K'`` chunks: copy ``c`` holds the chunks ``(p, c K' + j)``, ``0 <= j < K'``,
which are a ``chunks=K'`` instance of the same problem on the same graph and model. A
schedule ``S`` of ``R'`` rounds for that instance, its chunk ``(p, j)`` relabelled
``(p, c K' + j)`` and its rounds shifted by ``c R'``, moves copy ``c``; run for
``c = 0, 1, ..., a - 1`` one after the other (:func:`repeat_chunks`) it solves the
``chunks=K`` instance in ``a R'`` rounds:

- every round is a round of ``S`` with its packets renamed, so the port rules (who sends to
  whom, how many packets an arc or a call carries) hold as in ``S``;
- in the rounds of copy ``c`` a node knows of copy ``c``'s chunks exactly what it knows of
  ``S``'s packets at that round of ``S``: the earlier copies' chunks are not copy ``c``'s,
  and a transmission that sent "all it knows" in ``S`` is spelled out as the packets the
  sender knew there (else it would also carry the earlier copies' chunks);
- after copy ``c``'s rounds every node holds what it needs of copy ``c``.

This is the concatenation of pipelines; it does not overlap the tail of one copy with the
head of the next, so it is an upper bound only, ``a`` times that of ``S``. It serves the
copy problems (broadcast, gossip/allgather, scatter, gather, total exchange, multicast
broadcast); ``reduce-scatter`` and ``reduce`` get it by time reversal of their duals
(:mod:`gossipcert.search.reversal`), and the allreduce by the composition of those.

:func:`repeated_schedule` picks ``K'``: the largest proper divisor of ``K`` for which a
construction made for many chunks applies to the ``chunks=K'`` instance (on two MI250
chassis the machine pipeline applies up to 16 chunks a GPU, not to 32 or 64: its
time-expanded routes are one search per demand), and of those constructions the shortest
verified schedule.

References
----------
.. [1] P. Patarasuk and X. Yuan, "Bandwidth optimal all-reduce algorithms for clusters of
   workstations", JPDC 69, 2009 (a message cut into segments sent one after the other).
.. [2] E. Chan, M. Heimlich, A. Purkayastha and R. van de Geijn, "Collective communication:
   theory, practice, and experience", CCPE 19, 2007 (long messages as a sequence of
   collectives on their parts).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import replace

from gossipcert.errors import NotApplicableError
from gossipcert.instance import Instance, bits, make_instance
from gossipcert.schedule import Schedule, Transmission
from gossipcert.simulate import simulate

__all__ = ["chunk_instance", "repeat_chunks", "repeated_schedule"]


def chunk_instance(instance: Instance, chunks: int) -> Instance:
    """The same problem, graph and model with ``chunks`` chunks a packet."""
    return make_instance(instance.graph, instance.model, replace(instance.problem, chunks=chunks))


def _relabel(mask: int, sub_chunks: int, chunks: int, offset: int) -> int:
    """The bits of a ``chunks=sub_chunks`` packet mask as chunks ``offset + j`` of a
    ``chunks=chunks`` instance (bit ``p K' + j`` to bit ``p K + offset + j``)."""
    out = 0
    for b in bits(mask):
        p, j = divmod(b, sub_chunks)
        out |= 1 << (p * chunks + offset + j)
    return out


def repeat_chunks(instance: Instance, sub: Instance, schedule: Schedule) -> Schedule:
    """``schedule`` (for ``sub``, ``K'`` chunks a packet) run ``K / K'`` times, once per
    copy of ``K'`` chunks, to serve ``instance`` (``K`` chunks a packet).

    Parameters
    ----------
    instance : Instance
        A copy problem (not a reduction) with ``chunks=K``.
    sub : Instance
        The same problem, graph and model with ``chunks=K'``, ``K'`` dividing ``K``
        (:func:`chunk_instance`).
    schedule : Schedule
        A valid schedule of ``sub`` (``"packets": "all"`` allowed); its length ``R'`` is
        taken as is.

    Returns
    -------
    Schedule
        ``(K / K') R'`` rounds; unverified (callers replay it).

    Raises
    ------
    NotApplicableError
        A reduction, another problem, graph or model, or ``K'`` not dividing ``K``.

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> inst = parse_instance("path:3", "all-port", "broadcast:0,chunks=4")
    >>> sub = chunk_instance(inst, 2)
    >>> # chunk 0 to node 1; chunk 1 to node 1 and chunk 0 on to node 2; chunk 1 on
    >>> two = Schedule(((Transmission(0, (1,), 0b01),),
    ...                 (Transmission(0, (1,), 0b10), Transmission(1, (2,), 0b01)),
    ...                 (Transmission(1, (2,), 0b10),)))
    >>> simulate(sub, two).ok
    True
    >>> out = repeat_chunks(inst, sub, two)
    >>> len(out), simulate(inst, out).ok
    (6, True)
    >>> [tr.packets for tr in out.rounds[3]]  # copy 1 moves chunks 2 and 3
    [4]
    """
    big, small = instance.problem.chunks, sub.problem.chunks
    if instance.problem.reduction:
        raise NotApplicableError(
            "chunk repetition is built for copy problems; a reduction gets it by time "
            "reversal of its dual"
        )
    same = (
        sub.graph is instance.graph
        and sub.model == instance.model
        and replace(sub.problem, chunks=big) == instance.problem
    )
    if not same or big % small or sub.n_packets * (big // small) != instance.n_packets:
        raise NotApplicableError(
            f"{sub.problem.spec()} is not the same problem as {instance.problem.spec()} with "
            "a number of chunks that divides its own"
        )
    know = list(sub.holdings)
    rounds: list[list[tuple[int, tuple[int, ...], int, str]]] = []
    for rnd in schedule.rounds[: len(schedule)]:
        spelled = []
        incoming: dict[int, int] = {}
        for tr in rnd:
            mask = know[tr.sender] if tr.packets is None else tr.packets & know[tr.sender]
            spelled.append((tr.sender, tr.receivers, mask, tr.op))
            for r in tr.receivers:
                incoming[r] = incoming.get(r, 0) | mask
        for r, mask in incoming.items():
            know[r] |= mask
        rounds.append(spelled)
    out: list[tuple[Transmission, ...]] = []
    for copy in range(big // small):
        offset = copy * small
        for spelled in rounds:
            out.append(
                tuple(
                    Transmission(sender, receivers, _relabel(mask, small, big, offset), op)
                    for sender, receivers, mask, op in spelled
                )
            )
    return Schedule(tuple(out))


#: the candidate schedules of an instance: ``(name, schedule)`` pairs, unverified
Candidates = Callable[[Instance], Iterator[tuple[str, Schedule]]]


def repeated_schedule(instance: Instance, candidates: Candidates) -> tuple[str, Schedule]:
    """The repetition of the shortest verified schedule for ``K'`` chunks, ``K'`` the
    largest proper divisor of ``K`` for which ``candidates`` (the constructions made for
    many chunks, :func:`gossipcert.constructions.catalog.upper_bound_candidates` without the
    universal one) gives one.

    Returns
    -------
    (str, Schedule)
        Its name (``"chunk-repeat (a x K' chunks: NAME, R' rounds)"``) and the schedule of
        ``a R'`` rounds, unverified (callers replay it).

    Raises
    ------
    NotApplicableError
        One chunk, a reduction, or no divisor for which a construction applies.

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> from gossipcert.constructions.catalog import specific_candidates
    >>> inst = parse_instance("ring:6", "all-port", "gossip:chunks=4")
    >>> name, sched = repeated_schedule(inst, specific_candidates)
    >>> name.split(":")[0], simulate(inst, sched).ok
    ('chunk-repeat (2 x 2 chunks', True)
    """
    chunks = instance.problem.chunks
    if chunks == 1 or instance.problem.reduction:
        raise NotApplicableError("chunk repetition needs a copy problem with chunks=K > 1")
    for small in range(chunks // 2, 0, -1):
        if chunks % small:
            continue
        sub = chunk_instance(instance, small)
        best: tuple[str, Schedule, int] | None = None
        for name, cand in candidates(sub):
            rep = simulate(sub, cand)
            if rep.ok and rep.rounds is not None and (best is None or rep.rounds < best[2]):
                best = (name, Schedule(cand.rounds[: rep.rounds]), rep.rounds)
        if best is not None:
            name, schedule, rounds = best
            copies = chunks // small
            label = f"chunk-repeat ({copies} x {small} chunks: {name}, {rounds} rounds)"
            return label, repeat_chunks(instance, sub, schedule)
    raise NotApplicableError(
        f"no construction for many chunks applies to {instance.problem.spec()} with fewer chunks"
    )
