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

A branch is cut when some node cannot learn everything in the rounds left even if its
knowledge doubled every round. The pruning may miss solutions (section 6 says so); the
result is an upper bound, and every schedule returned is replayed by the verifier.

References
----------
.. [1] R. Beier and J. F. Sibeyn, "A powerful heuristic for telephone gossiping", section 6
   (the heuristic), section 8 and Table 6 (matchings and sequences).
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import networkx as nx
import numpy as np

from gossipcert.constructions.beier_sibeyn import coloring_matchings, matching_sequence
from gossipcert.errors import NotApplicableError, UnsupportedModelError
from gossipcert.heuristics import bitsets
from gossipcert.instance import Instance, ModelKind
from gossipcert.schedule import Schedule
from gossipcert.simulate import simulate

Matching = list[tuple[int, int]]


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
        Search nodes visited in the last horizon tried.
    seconds : float
    """

    sequence: str
    matchings: list[Matching]
    schedule: Schedule
    nodes: int
    seconds: float


def greedy_coloring_matchings(graph: nx.Graph) -> list[Matching]:
    """Colour classes of a greedy edge colouring, each completed to a maximal matching.

    Parameters
    ----------
    graph : networkx.Graph

    Returns
    -------
    list of list of (int, int)
        Matchings that together hold every edge at least once.

    Examples
    --------
    >>> from gossipcert import graphs
    >>> ms = greedy_coloring_matchings(graphs.from_spec("ring:6"))
    >>> len(ms), sorted(len(m) for m in ms)
    (2, [3, 3])
    """
    line = nx.line_graph(graph)
    colour = nx.coloring.greedy_color(line, strategy="largest_first")
    classes: dict[int, list[tuple[int, int]]] = {}
    for (u, v), c in sorted(colour.items(), key=lambda kv: (kv[1], sorted(kv[0]))):
        classes.setdefault(c, []).append((min(u, v), max(u, v)))
    edges = sorted((min(u, v), max(u, v)) for u, v in graph.edges)
    out = []
    for c in sorted(classes):
        used = {x for e in classes[c] for x in e}
        m = list(classes[c])
        for u, v in edges:
            if u not in used and v not in used:
                m.append((u, v))
                used.update((u, v))
        out.append(sorted(m))
    return out


def _default_matchings(instance: Instance) -> list[Matching]:
    try:
        return [list(m) for m in coloring_matchings(instance.graph)]
    except NotApplicableError:
        return greedy_coloring_matchings(instance.graph)


#: pruning settings tried at each horizon, strictest first: (no_repeat, window, f)
PRUNING = (
    (2, True, 0.8),
    (1, True, 0.8),
    (1, True, 0.5),
    (1, False, 0.35),  # no window rule (Table 6's CCC sequences break it), but still filtered
    (1, False, 0.0),
)


def coloring_heuristic(
    instance: Instance,
    matchings: list[Matching] | None = None,
    *,
    min_rounds: int = 1,
    max_rounds: int | None = None,
    pruning: tuple[tuple[int, bool, float], ...] = PRUNING,
    time_limit: float = 10.0,
) -> ColoringResult:
    """Search for a short gossiping sequence of matchings.

    A first greedy dive finds a sequence; every later search asks for one round fewer than
    the best so far, until a horizon below ``min_rounds``, a horizon where no setting finds
    a sequence, or the time limit.

    Parameters
    ----------
    instance : Instance
        Telephone model, unbounded packets, any problem.
    matchings : list of list of (int, int), optional
        Default: the section-8 matchings of the graph family, else a greedy edge colouring
        completed to maximal matchings (:func:`greedy_coloring_matchings`).
    min_rounds, max_rounds : int
        Stop below ``min_rounds`` (a lower bound); the first dive has horizon
        ``max_rounds`` (default ``4 n``).
    pruning : tuple of (no_repeat, window, f)
        The settings tried at each horizon, in order, each with an equal share of the time
        left: a matching differs from the previous ``no_repeat`` ones (1 or 2); ``window``,
        every matching appears in every window of ``p + 1`` rounds; ``f``, keep only
        matchings whose gain is at least ``f`` times the best gain (0 keeps every matching
        that moves something). Section 6 notes that the strict settings suit most graph
        classes; the sequences of CCC in Table 6 repeat a matching two rounds apart and
        leave a matching out of a window of ``p + 1`` (``01212`` in CCC 8's), which only
        the settings without the window rule can find. Among those, a middle filter
        (``f = 0.35``) is tried before the unfiltered search: on CCC 8 it finds an
        18-round sequence within a minute where the windowed settings find none.
    time_limit : float
        Seconds for the whole search.

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
    if instance.model.kind is not ModelKind.TELEPHONE or not instance.model.unbounded:
        raise UnsupportedModelError(
            f"the coloring heuristic is for telephone with unbounded packets; "
            f"got {instance.model.spec()}"
        )
    if instance.model.calls_per_round is not None:
        raise UnsupportedModelError("the coloring heuristic has no limit on calls per round")
    ms = [sorted(m) for m in (matchings if matchings is not None else _default_matchings(instance))]
    if not ms or len(ms) > 10:
        raise NotApplicableError(f"the coloring heuristic needs 1 to 10 matchings, got {len(ms)}")
    start = time.monotonic()
    deadline = start + time_limit
    rounds = 4 * instance.n if max_rounds is None else max_rounds
    best: tuple[str, int] | None = None
    # a greedy dive finds some sequence at once; then each success lowers the horizon
    while rounds >= max(1, min_rounds) and time.monotonic() < deadline:
        for k, (no_repeat, window, f) in enumerate(pruning):
            share = (deadline - time.monotonic()) / (len(pruning) - k)
            search = _Search(instance, ms, rounds, f, no_repeat, window, time.monotonic() + share)
            seq = search.run()
            if seq is not None:
                best = (seq, search.nodes)
                rounds = len(seq) - 1
                break
        else:
            break  # no setting found a sequence this short
    if best is None:
        raise NotApplicableError(
            f"no matching sequence found within {time.monotonic() - start:.1f}s"
        )
    seq, nodes = best
    sched = matching_sequence(instance, seq, ms)
    if not simulate(instance, sched).ok:  # the search's bookkeeping and the verifier disagree
        raise NotApplicableError(f"sequence {seq} failed verification")
    return ColoringResult(seq, ms, sched, nodes, time.monotonic() - start)


class _Search:
    """One depth-first search for a sequence of ``rounds`` matchings.

    Knowledge is packed (:mod:`gossipcert.heuristics.bitsets`): row ``v`` of an ``n x W``
    array of ``uint64`` is what node ``v`` knows, so a matching's gain and its application are
    a few NumPy operations on the rows of its edges' ends.
    """

    def __init__(
        self,
        instance: Instance,
        matchings: list[Matching],
        rounds: int,
        f: float,
        no_repeat: int,
        window: bool,
        deadline: float,
    ) -> None:
        self.p = len(matchings)
        self.rounds = rounds
        self.f = f
        self.no_repeat = no_repeat
        self.window = window and len(matchings) > 1
        self.deadline = deadline
        n = instance.n
        # ends[i] = (u, v): the two ends of every edge of matching i, as index arrays
        self.ends = [
            (
                np.array([u for u, _ in m], dtype=np.int64),
                np.array([v for _, v in m], dtype=np.int64),
            )
            for m in matchings
        ]
        self.holdings = bitsets.pack(instance.holdings, n)[:-1]
        self.demands = bitsets.pack(instance.demands, n)[:-1]
        # what each node must end up knowing (its holdings and its demands)
        self.need = bitsets.popcount(self.holdings | self.demands)
        self.nodes = 0
        self.timed_out = False

    def _done(self, know: bitsets.Words) -> bool:
        return not np.any(self.demands & ~know)

    def _hopeless(self, know: bitsets.Words, left: int) -> bool:
        # a node's knowledge at most doubles per round: it needs as many packets as it lacks
        if left >= 30:
            return False
        return bool(np.any(bitsets.popcount(know) * (1 << left) < self.need))

    def _gain(self, know: bitsets.Words, i: int) -> int:
        u, v = self.ends[i]
        # packets learnt over the matching: what one end knows and the other does not
        return int(np.bitwise_count(know[u] ^ know[v]).sum(dtype=np.int64))

    def _apply(self, know: bitsets.Words, i: int) -> bitsets.Words:
        u, v = self.ends[i]
        both = know[u] | know[v]
        nxt = know.copy()
        nxt[u] = both
        nxt[v] = both
        return nxt

    def run(self) -> str | None:
        path: list[int] = []
        found = self._dfs(self.holdings, path)
        return "".join(map(str, path)) if found else None

    def _dfs(self, know: bitsets.Words, path: list[int]) -> bool:
        self.nodes += 1
        if self._done(know):
            return True
        depth = len(path)
        left = self.rounds - depth
        if left == 0 or self._hopeless(know, left):
            return False
        if self.nodes % 64 == 0 and time.monotonic() > self.deadline:
            self.timed_out = True
            return False
        p = self.p
        banned = set(path[-self.no_repeat :]) if p > self.no_repeat else set(path[-1:])
        candidates = [i for i in range(p) if i not in banned]
        if self.window and depth >= p:
            missing = set(range(p)) - set(path[-p:])
            if missing:
                candidates = [i for i in candidates if i in missing]
        scored = [(g, i) for i in candidates if (g := self._gain(know, i))]
        if not scored:
            return False
        best = max(g for g, _ in scored)
        scored = [s for s in scored if s[0] >= self.f * best]
        scored.sort(key=lambda s: (-s[0], s[1]))
        for _, i in scored:
            path.append(i)
            if self._dfs(self._apply(know, i), path):
                return True
            path.pop()
            if self.timed_out:
                return False
        return False


def coloring_schedule(instance: Instance) -> Schedule:
    """The schedule of :func:`coloring_heuristic` with its defaults (an upper bound)."""
    return coloring_heuristic(instance).schedule
