"""The coloring heuristic of Beier and Sibeyn: gossip by a sequence of fixed matchings.

A small set ``M_0, ..., M_{p-1}`` of matchings is fixed first — the section-8 matchings of
CCC, wrapped butterfly, star and pancake graphs, or for any other graph the colour classes of
an edge colouring, each completed to a maximal matching. Then a depth-first search looks for
a sequence ``M_{i_0} M_{i_1} ... M_{i_{R-1}}`` that gossips (telephone, unbounded packets:
both ends of a matched edge learn everything the other knows), for ``R`` from a lower bound
upwards. At each level the search

1. drops the matchings that are pruned: the one used in the previous round (and, when
   ``no_repeat=2``, the one before it); and, once ``p`` rounds have passed, every matching
   but the one missing from the last ``p`` rounds when one is missing (each matching appears
   in every window of ``p + 1`` rounds);
2. measures each survivor's *gain* — the number of packets it lets nodes learn — and keeps
   only those with gain at least ``f · W``, ``W`` the best gain (the "``f · W`` filter");
3. tries them best first.

A branch is cut only by three bounds, which never drop a sequence that still meets every
demand in the rounds left: a node learns at most what its partner knows in a round, the
nodes knowing a packet at most double in a round
(:class:`~gossipcert.heuristics.coloring_search._Search`), and every node must
learn its demands even if it exchanged with all its partners at once in every round left
(:mod:`gossipcert.heuristics.coloring_reach`: a packet needs the distance from its nearest
holder). The last is tight on the paper's CCC sequences, whose lengths are the graphs'
diameters: it prunes every branch that falls behind, and the search then reaches CCC 12's
28 rounds in a few seconds, where without it half an hour of best-first search did not.
The settings' filters may miss solutions (section 6 says so); the result is an upper
bound, and every schedule returned is replayed by the verifier. On gossip over the four
section-8 families the search keeps one knowledge row per orbit of the matchings' symmetry
(:mod:`gossipcert.heuristics.coloring_symmetry`, searched by
:mod:`gossipcert.heuristics.coloring_orbit_search`) and visits the same sequences.

This module runs the searches horizon after horizon and assembles the schedule of the best
sequence; the matchings are :mod:`gossipcert.heuristics.coloring_classes`, the search's state
and its bounds :mod:`gossipcert.heuristics.coloring_search`.

References
----------
.. [1] R. Beier and J. F. Sibeyn, "A powerful heuristic for telephone gossiping", section 6
   (the heuristic), section 8 and Table 6 (matchings and sequences).
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from gossipcert.constructions.beier_sibeyn_matchings import matching_sequence
from gossipcert.errors import NotApplicableError, UnsupportedModelError
from gossipcert.heuristics.coloring_classes import Matching, _default_matchings
from gossipcert.heuristics.coloring_orbit_search import _SymmetricSearch
from gossipcert.heuristics.coloring_schedule import setting_slices
from gossipcert.heuristics.coloring_search import _Search
from gossipcert.heuristics.coloring_symmetry import MatchingSymmetry, matching_symmetry
from gossipcert.instance import Instance, ModelKind
from gossipcert.schedule import Schedule
from gossipcert.simulate import simulate


@dataclass(frozen=True)
class ColoringResult:
    """A gossip schedule found by :func:`coloring_heuristic`.

    Attributes
    ----------
    sequence : str
        One digit per round (``"0123023"``); ``matching-sequence`` reproduces the schedule.
    matchings : list of list of (int, int)
        ``M_0, M_1, ...`` as used.
    schedule : Schedule
        Verified.
    nodes : int
        Search nodes the setting that found the sequence visited.
    seconds : float
    trace : tuple of (int, int, int, str)
        Per horizon and setting searched: ``(rounds, setting, search nodes, outcome)``,
        the setting an index into ``pruning`` and the outcome ``"found"``,
        ``"exhausted"`` (no sequence in its pruned tree), ``"stopped"`` (another setting
        found one first, or a probe below the floor ended) or ``"time"``.
    """

    sequence: str
    matchings: list[Matching]
    schedule: Schedule
    nodes: int
    seconds: float
    trace: tuple[tuple[int, int, int, str], ...] = ()


#: pruning settings tried at each horizon, strictest first: (no_repeat, window, f)
PRUNING = (
    (2, True, 0.8),
    (1, True, 0.8),
    (1, True, 0.5),
    (1, False, 0.35),  # no window rule (Table 6's CCC sequences break it), but still filtered
    (1, False, 0.0),
)


def check_model(instance: Instance) -> None:
    """Raise :class:`UnsupportedModelError` unless telephone with unbounded packets and no
    limit on calls per round (the model of Beier and Sibeyn's heuristic)."""
    if instance.model.kind is not ModelKind.TELEPHONE or not instance.model.unbounded:
        raise UnsupportedModelError(
            f"the coloring heuristic is for telephone with unbounded packets; "
            f"got {instance.model.spec()}"
        )
    if instance.model.calls_per_round is not None:
        raise UnsupportedModelError("the coloring heuristic has no limit on calls per round")


def coloring_heuristic(
    instance: Instance,
    matchings: list[Matching] | None = None,
    *,
    min_rounds: int = 1,
    max_rounds: int | None = None,
    pruning: tuple[tuple[int, bool, float], ...] = PRUNING,
    time_limit: float = 10.0,
    symmetry: bool = True,
) -> ColoringResult:
    """Search for a short gossiping sequence of matchings.

    A first greedy dive finds a sequence; every later search asks for one round fewer than
    the best so far, until a horizon below ``min_rounds``, a horizon where no setting finds
    a sequence, or the time limit. Branches are cut only by sound bounds, the strongest
    being the reach bound (:mod:`gossipcert.heuristics.coloring_reach`: the demands must be
    met even with every matching at once in each round left); so the unfiltered setting
    ``(1, False, 0.0)``, when it ends ``"exhausted"``, has shown that no sequence of the
    matchings of that length exists. At each horizon the pruning settings search in turns of
    a growing number of search nodes (:mod:`gossipcert.heuristics.coloring_schedule`), so a
    strict setting that searches long in vain does not hold back a permissive one.

    Parameters
    ----------
    instance : Instance
        Telephone model, unbounded packets, any problem.
    matchings : list of list of (int, int), optional
        Default: the section-8 matchings of the graph family, else a greedy edge colouring
        completed to maximal matchings
        (:func:`~gossipcert.heuristics.coloring_classes.greedy_coloring_matchings`).
    min_rounds, max_rounds : int
        Stop below ``min_rounds`` (a lower bound); the first dive has horizon
        ``max_rounds`` (default ``4 n``).
    pruning : tuple of (no_repeat, window, f)
        The settings tried at each horizon, interleaved in slices of search nodes
        (:func:`~gossipcert.heuristics.coloring_schedule.setting_slices`: each setting's
        search is resumed where it paused; the settings before the one that found the
        previous sequence get one short probe): a matching differs from the previous
        ``no_repeat`` ones (1 or 2); ``window``, every matching appears in every window of
        ``p + 1`` rounds; ``f``, keep only matchings whose gain is at least ``f`` times the
        best gain (0 keeps every matching that moves something). Section 6 notes that the
        strict settings suit most graph classes; the sequences of CCC in Table 6 repeat a
        matching two rounds apart and leave a matching out of a window of ``p + 1``
        (``01212`` in CCC 8's), which only the settings without the window rule can find.
        Among those, a middle filter (``f = 0.35``) comes before the unfiltered search: on
        CCC 8 it finds an 18-round sequence where the windowed settings find none.
    time_limit : float
        Seconds for the whole search.
    symmetry : bool
        Search on one knowledge row per orbit of the matchings' symmetry where
        :func:`~gossipcert.heuristics.coloring_symmetry.matching_symmetry` finds one (gossip
        on CCC, wrapped butterfly, star and pancake graphs). Same sequences, found faster.

    Returns
    -------
    ColoringResult

    Raises
    ------
    UnsupportedModelError
        Another model.
    NotApplicableError
        No sequence found within the horizons and the time.

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> res = coloring_heuristic(parse_instance("pancake:4", "telephone", "gossip"))
    >>> res.sequence
    '02102'

    References
    ----------
    Beier and Sibeyn, sections 6 and 8.
    """
    check_model(instance)
    ms = _matchings(instance, matchings)
    start = time.monotonic()
    deadline = start + time_limit
    sym = matching_symmetry(instance, ms) if symmetry else None
    rounds = 4 * instance.n if max_rounds is None else max_rounds
    best: tuple[str, int] | None = None
    trace: list[tuple[int, int, int, str]] = []
    floor = 0  # the setting that found the last sequence (coloring_schedule)
    # a greedy dive finds some sequence at once; then each success lowers the horizon
    while rounds >= max(1, min_rounds) and time.monotonic() < deadline:
        winner, found = _one_horizon(instance, ms, rounds, pruning, floor, deadline, sym, trace)
        if winner is None:
            break  # no setting found a sequence this short (or the time is over)
        floor, best = winner, found
        rounds = len(best[0]) - 1 if best is not None else rounds
    if best is None:
        raise NotApplicableError(
            f"no matching sequence found within {time.monotonic() - start:.1f}s"
        )
    seq, nodes = best
    sched = _verified(instance, seq, ms)
    return ColoringResult(seq, ms, sched, nodes, time.monotonic() - start, tuple(trace))


def _matchings(instance: Instance, matchings: list[Matching] | None) -> list[Matching]:
    """The matchings to search with, sorted: those given, else the graph's defaults."""
    ms = [sorted(m) for m in (matchings if matchings is not None else _default_matchings(instance))]
    if not ms or len(ms) > 10:
        raise NotApplicableError(f"the coloring heuristic needs 1 to 10 matchings, got {len(ms)}")
    return ms


def _verified(instance: Instance, seq: str, ms: list[Matching]) -> Schedule:
    """The schedule of a matching sequence, replayed by the verifier."""
    sched = matching_sequence(instance, seq, ms)
    if not simulate(instance, sched).ok:  # the search's bookkeeping and the verifier disagree
        raise NotApplicableError(f"sequence {seq} failed verification")
    return sched


def _one_horizon(
    instance: Instance,
    ms: list[Matching],
    rounds: int,
    pruning: tuple[tuple[int, bool, float], ...],
    floor: int,
    deadline: float,
    sym: MatchingSymmetry | None,
    trace: list[tuple[int, int, int, str]],
) -> tuple[int | None, tuple[str, int] | None]:
    """The pruning settings' searches for a sequence of ``rounds`` matchings, in turns
    (:func:`~gossipcert.heuristics.coloring_schedule.setting_slices`), each ending appended
    to ``trace``: the setting that found one, and the sequence with its search nodes (None,
    None when none did)."""
    searches: dict[int, _Search] = {}
    done: set[int] = set()
    winner, best = None, None
    for k, nodes in setting_slices(len(pruning), floor, done):
        search = searches.get(k)
        if search is None:
            no_repeat, window, f = pruning[k]
            search = searches[k] = (
                _Search(instance, ms, rounds, f, no_repeat, window, deadline)
                if sym is None
                else _SymmetricSearch(
                    instance, ms, rounds, f, no_repeat, window, deadline, symmetry=sym
                )
            )
        found = search.advance(nodes)
        if found is None and k >= floor:
            continue  # paused: its next slice comes
        done.add(k)
        del searches[k]  # ended, or a probe of a setting below the floor
        outcome = "found" if found else "stopped" if found is None else "exhausted"
        trace.append((rounds, k, search.nodes, "time" if search.timed_out else outcome))
        if search.timed_out:
            break
        if found:
            winner = k
            best = (search.sequence, search.nodes)
            break
    trace.extend((rounds, k, s.nodes, "stopped") for k, s in sorted(searches.items()))
    return winner, best


def coloring_schedule(instance: Instance) -> Schedule:
    """The schedule of :func:`coloring_heuristic` with its defaults (an upper bound)."""
    return coloring_heuristic(instance).schedule
