"""Allreduce: the verified upper bounds of the bracket, each built once and within the time.

The upper end of the allreduce bracket (:mod:`gossipcert.search.allreduce`) is the shortest
of these schedules, each replayed by the verifier:

- ``seeds``, schedules from elsewhere (``solve --resume``);
- the composition: the reduce-scatter schedule, then the gossip (allgather) schedule as
  copies (:func:`compose`);
- the allreduce constructions of :data:`CONSTRUCTIONS`.

A construction is built at most once per instance (:class:`Made`): the closed answer (a
construction that meets a closed lower bound makes the sub-problems needless) and the upper
bounds after the sub-problems share it. On many chunks building and replaying are the slow
part (the list-scheduled tree allreduce of 64 chunks on two MI250 chassis: seconds), and
neither can be stopped half way, so each is started only while time is left before the
deadline: what is not started is *skipped*, named in :attr:`Made.skipped`, and leaves the
bracket wider, never wrong.

References
----------
.. [1] R. Thakur, R. Rabenseifner and W. Gropp, "Optimization of collective communication
   operations in MPICH", IJHPCA 19, 2005 (allreduce as reduce-scatter then allgather).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from gossipcert.command_start import seconds_left
from gossipcert.constructions.hub_allreduce import hub_allreduce
from gossipcert.constructions.pipelined_rings import bidirectional_ring_allreduce
from gossipcert.constructions.ring_allreduce import ring_allreduce
from gossipcert.constructions.switch_allreduce import switch_allreduce
from gossipcert.constructions.translated_allreduce import translated_allreduce
from gossipcert.constructions.tree_allreduce_list import tree_list_allreduce
from gossipcert.errors import NotApplicableError
from gossipcert.instance import Instance
from gossipcert.schedule import Schedule, Transmission
from gossipcert.search.allreduce_exact import replayed

#: the allreduce constructions tried for the upper bound: (name, module, function)
CONSTRUCTIONS: tuple[tuple[str, str, Callable[[Instance], Schedule]], ...] = (
    ("bidirectional ring", "pipelined_rings", bidirectional_ring_allreduce),
    ("switch", "switch_allreduce", switch_allreduce),
    ("translated", "translated_allreduce", translated_allreduce),
    ("tree (list-scheduled)", "tree_allreduce_list", tree_list_allreduce),
    ("ring", "ring_allreduce", ring_allreduce),
    ("hub", "hub_allreduce", hub_allreduce),
)


def source_name(name: str, module: str) -> str:
    """How a construction of :data:`CONSTRUCTIONS` is named as a schedule's source."""
    return f"the {name} allreduce (gossipcert.constructions.{module})"


def compose(first: Schedule, gossip: Instance, second: Schedule) -> Schedule:
    """``first`` then ``second`` (a schedule of ``gossip``) as copies: each receiver gets,
    one transmission per arc, only the packets it does not know yet in ``gossip`` and not from
    an earlier sender of the same round ("all" spelled out, since after ``first`` every node
    holds a partial of every chunk, whole or not; two copies of one chunk into one node in
    one round would break the verifier's rule). Each transmission keeps its arcs and carries
    a subset of its packets, so the port rules still hold (multicast is never composed)."""
    know = list(gossip.holdings)
    tail = []
    for rnd in second.rounds[: len(second)]:
        incoming: dict[int, int] = {}
        out = []
        for tr in rnd:
            mask = know[tr.sender] if tr.packets is None else tr.packets & know[tr.sender]
            for r in tr.receivers:
                fresh = mask & ~know[r] & ~incoming.get(r, 0)
                if fresh:
                    incoming[r] = incoming.get(r, 0) | fresh
                    out.append(Transmission(tr.sender, (r,), fresh, "copy"))
        for r, mask in incoming.items():
            know[r] |= mask
        tail.append(tuple(out))
    return Schedule(first.rounds[: len(first)] + tuple(tail))


class Made:
    """The allreduce constructions of one instance, each built and replayed at most once,
    and only while time is left before ``deadline`` (a ``time.monotonic()`` value, None for
    no limit).

    Attributes
    ----------
    skipped : list of str
        The steps not started for want of time, in words (shared with the caller, who
        reports them in its result).
    """

    def __init__(self, instance: Instance, deadline: float | None, skipped: list[str]) -> None:
        self.instance = instance
        self.deadline = deadline
        self.skipped = skipped
        self._built: dict[str, Schedule | None] = {}
        self._replayed: dict[str, tuple[Schedule, Any] | None] = {}

    def in_time(self, what: str) -> bool:
        """Whether time is left to start ``what``; if not, it is noted as skipped."""
        if seconds_left(self.deadline) > 0:
            return True
        self.skipped.append(f"{what} (no time left)")
        return False

    def schedule(self, name: str, build: Callable[[Instance], Schedule]) -> Schedule | None:
        """The schedule of construction ``name`` (None: it does not apply, or no time was
        left to build it)."""
        if name not in self._built:
            made = None
            if self.in_time(f"building the {name} allreduce"):
                try:
                    made = build(self.instance)
                except NotApplicableError:
                    made = None
            self._built[name] = made
        return self._built[name]

    def verified(
        self, name: str, build: Callable[[Instance], Schedule], most: int | None = None
    ) -> tuple[Schedule, Any] | None:
        """The schedule of construction ``name`` and its verifier's report, when it applies,
        is valid and has at most ``most`` rounds (a longer one is not replayed: with many
        chunks the replay is the slow part); None otherwise, or when no time was left."""
        schedule = self.schedule(name, build)
        if schedule is None or (most is not None and len(schedule) > most):
            return None
        if name not in self._replayed:
            if not self.in_time(f"replaying the {name} allreduce"):
                return None
            self._replayed[name] = replayed(self.instance, schedule)
        return self._replayed[name]


class Best:
    """The shortest verified schedule offered so far (with its verifier's report) and
    where it came from."""

    def __init__(self) -> None:
        self.made: tuple[Schedule, Any] | None = None
        self.source = "none"

    def offer(self, made: tuple[Schedule, Any] | None, name: str) -> None:
        """Keep ``made`` (a verified schedule and its report) if it is the shortest yet."""
        if made is not None and (self.made is None or made[1].rounds < self.made[1].rounds):
            self.made, self.source = made, name


def meeting_construction(made: Made, lower: int) -> tuple[tuple[Schedule, Any], str] | None:
    """A construction of :data:`CONSTRUCTIONS` whose verified schedule has ``lower`` rounds
    (a closed lower bound: the optimum then), with its source; None if none does."""
    for name, module, build in CONSTRUCTIONS:
        found = made.verified(name, build, lower)
        if found is not None and found[1].rounds == lower:
            return found, source_name(name, module)
    return None


def upper_bounds(
    made: Made,
    rs: Any | None,
    ag: Any | None,
    seeds: list[tuple[str, Schedule]] | None,
    best: Best,
) -> None:
    """Offer ``best`` the ``seeds``, the composition of the sub-problems' schedules (``rs``:
    reduce-scatter, ``ag``: gossip, None when not solved) and the allreduce constructions,
    each replayed by the verifier while time is left."""
    instance = made.instance
    for name, seed in seeds or []:
        if made.in_time(f"replaying the schedule {name}"):
            best.offer(replayed(instance, seed), name)
    if rs is not None and ag is not None and rs.schedule is not None and ag.schedule is not None:
        composition = f"reduce-scatter ({rs.upper_source}) then allgather ({ag.upper_source})"
        if made.in_time("composing and replaying the reduce-scatter then allgather schedule"):
            composed = compose(rs.schedule, ag.instance, ag.schedule)
            best.offer(replayed(instance, composed), composition)
    for name, module, build in CONSTRUCTIONS:
        shorter = None if best.made is None else best.made[1].rounds - 1
        best.offer(made.verified(name, build, shorter), source_name(name, module))
