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
nodes knowing a packet at most double in a round (:class:`_Search`), and every node must
learn its demands even if it exchanged with all its partners at once in every round left
(:mod:`gossipcert.heuristics.coloring_reach`: a packet needs the distance from its nearest
holder). The last is tight on the paper's CCC sequences, whose lengths are the graphs'
diameters: it prunes every branch that falls behind, and the search then reaches CCC 12's
28 rounds in a few seconds, where without it half an hour of best-first search did not.
The settings' filters may miss solutions (section 6 says so); the result is an upper
bound, and every schedule returned is replayed by the verifier. On gossip over the four
section-8 families the search keeps one knowledge row per orbit of the matchings' symmetry
(:mod:`gossipcert.heuristics.coloring_symmetry`) and visits the same sequences.

References
----------
.. [1] R. Beier and J. F. Sibeyn, "A powerful heuristic for telephone gossiping", section 6
   (the heuristic), section 8 and Table 6 (matchings and sequences).
"""

from __future__ import annotations

import hashlib
import math
import time
from collections.abc import Generator
from dataclasses import dataclass

import networkx as nx
import numpy as np

from gossipcert.constructions.beier_sibeyn_matchings import coloring_matchings, matching_sequence
from gossipcert.errors import NotApplicableError, UnsupportedModelError
from gossipcert.heuristics import bitsets
from gossipcert.heuristics.coloring_reach import orbit_reach_rounds, packed_reach_rounds
from gossipcert.heuristics.coloring_schedule import setting_slices
from gossipcert.heuristics.coloring_symmetry import MatchingSymmetry, matching_symmetry
from gossipcert.instance import Instance, ModelKind
from gossipcert.schedule import Schedule
from gossipcert.simulate import simulate

Matching = list[tuple[int, int]]

#: entries of a search's table of failed (state, last rounds) pairs
MEMO_LIMIT = 2_000_000
#: bytes of undo records a path may keep as whole rows; past it, only the changed words
UNDO_BYTES = 1 << 28
Index = bitsets.Index


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
        completed to maximal matchings (:func:`greedy_coloring_matchings`).
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
    sym = matching_symmetry(instance, ms) if symmetry else None
    rounds = 4 * instance.n if max_rounds is None else max_rounds
    best: tuple[str, int] | None = None
    trace: list[tuple[int, int, int, str]] = []
    floor = 0  # the setting that found the last sequence (coloring_schedule)
    # a greedy dive finds some sequence at once; then each success lowers the horizon
    while rounds >= max(1, min_rounds) and time.monotonic() < deadline:
        searches: dict[int, _Search] = {}
        done: set[int] = set()
        winner = None
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
        if winner is None:
            break  # no setting found a sequence this short (or the time is over)
        floor = winner
        rounds = len(best[0]) - 1 if best is not None else rounds
    if best is None:
        raise NotApplicableError(
            f"no matching sequence found within {time.monotonic() - start:.1f}s"
        )
    seq, nodes = best
    sched = matching_sequence(instance, seq, ms)
    if not simulate(instance, sched).ok:  # the search's bookkeeping and the verifier disagree
        raise NotApplicableError(f"sequence {seq} failed verification")
    return ColoringResult(seq, ms, sched, nodes, time.monotonic() - start, tuple(trace))


class _Search:
    """One depth-first search for a sequence of ``rounds`` matchings.

    Knowledge is packed (:mod:`gossipcert.heuristics.bitsets`): row ``v`` of an ``n x W``
    array of ``uint64`` is what node ``v`` knows, so a matching's gain and its application are
    a few NumPy operations on the rows of its edges' ends. There is one such array for the
    whole search: a round is applied in place and undone on the way back, from the old rows
    of its edges' ends, or, where ``rounds`` of those would pass :data:`UNDO_BYTES`, from
    the words it changed and the bits they gained (a bit is gained once along a path, so
    those records stay sparse where the rounds teach little; about 7x slower to make).

    Three sound bounds cut a branch (none drops a sequence that gossips in the rounds
    left): a node's knowledge grows by at most its partner's each round
    (:meth:`_node_bound`), the nodes knowing a packet at most double each round
    (:meth:`_packet_bound`), and the demands must be met even with every matching at once
    in every round left (:meth:`_reach_bound`, :mod:`.coloring_reach`). (An earlier cut
    assumed that a node's own knowledge at most doubles each round, which fails as soon as
    a node talks to a better informed partner; it lost broadcast sequences outright.)
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
        self._settings(matchings, rounds, f, no_repeat, window, deadline)
        n, n_packets = instance.n, instance.n_packets
        # ends[i] = (u, v): the two ends of every edge of matching i, as index arrays
        self.ends = [
            (
                np.array([u for u, _ in m], dtype=np.int64),
                np.array([v for _, v in m], dtype=np.int64),
            )
            for m in matchings
        ]
        # both[i]: the ends of matching i, u's then v's (each node at most once)
        self.both = [np.concatenate(e) for e in self.ends]
        self.holdings = bitsets.pack(instance.holdings, n_packets)[:-1]
        self.demands = bitsets.pack(instance.demands, n_packets)[:-1]
        self.width = self.holdings.shape[1]
        self.n_packets = n_packets
        # what each node must end up knowing (its holdings and its demands)
        self.need = bitsets.popcount(self.holdings | self.demands)
        # partners[v, j]: the j-th node matched with v by some matching, n past the last
        graph = nx.Graph()
        graph.add_nodes_from(range(n))
        graph.add_edges_from(e for m in matchings for e in m)
        self.partners = bitsets.neighbour_table(graph)
        # the packets whose spread _packet_bound follows: the words of up to four columns
        step = max(1, self.width // 4)
        self.sample_words = list(range(0, self.width, step))[:4]
        self.know = self.holdings.copy()
        self.count = bitsets.popcount(self.know)  # count[v]: packets node v knows
        # whether a path's undo records would not fit as whole rows (see _apply)
        self.sparse_undo = rounds * self.know.nbytes > UNDO_BYTES
        # scratch rows for the gains: one end's rows, the other's, their per-word popcounts
        half = max((len(u) for u, _ in self.ends), default=0)
        self._rows_u = np.empty((half, self.width), dtype=np.uint64)
        self._rows_v = np.empty((half, self.width), dtype=np.uint64)
        self._bits = np.empty((half, self.width), dtype=np.uint8)
        # failed[(state, last rounds)]: the most rounds left with which that node was
        # searched to the end without a sequence (a transposition table)
        self.failed: dict[tuple[bytes, tuple[int, ...]], int] = {}
        self.nodes = 0
        self.timed_out = False

    def _settings(
        self,
        matchings: list[Matching],
        rounds: int,
        f: float,
        no_repeat: int,
        window: bool,
        deadline: float,
    ) -> None:
        """The search's settings, shared by both searches: the matchings' count, the
        horizon, the filter factor, the no-repeat depth, the window rule, the deadline."""
        self.p = len(matchings)
        self.rounds = rounds
        self.f = f
        self.no_repeat = no_repeat
        self.window = window and len(matchings) > 1
        self.deadline = deadline
        # the walk pauses once it has visited pause_at search nodes (advance)
        self.pause_at = math.inf
        self.path: list[int] = []  # the matchings of the current branch
        # reach[d]: the relaxed rounds (coloring_reach) the node at depth d of the current
        # path still needs, or more (inherited from its parent: knowledge only grows)
        self.reach: list[float] = [math.inf] * (rounds + 2)
        self._walk: Generator[None, None, bool] | None = None

    def _done(self) -> bool:
        if np.any(self.count < self.need):  # a node that knows fewer than it needs
            return False
        return not np.any(self.demands & ~self.know)

    def _state_key(self) -> bytes | None:
        """A digest of the knowledge, for :attr:`failed`; None: too large to be worth it."""
        return None

    def _node_bound(self, left: int) -> bool:
        """True when some node cannot reach what it needs in ``left`` rounds.

        In a round a node learns at most what its partner knows, and its partner is one of
        the nodes some matching pairs it with, so ``b_v(0) = |K_v|`` and
        ``b_v(s + 1) = min(P, b_v(s) + max over partners w of b_w(s))`` bound ``|K_v|`` after
        ``s`` rounds (by induction: ``|K_v ∪ K_w| <= |K_v| + |K_w|``). This also holds a
        packet back from nodes farther than ``left`` from all its holders.
        """
        need = self.need
        bound = np.append(self.count, 0)  # the zero at n pads the partner table
        body = bound[:-1]
        for _ in range(left):
            if np.all(body >= need):
                return False
            body += bound[self.partners].max(axis=1)
            np.minimum(body, self.n_packets, out=body)
        return bool(np.any(body < need))

    def _packet_bound(self, left: int) -> bool:
        """True when some sampled packet cannot reach every node that needs it in time.

        In a round each node that knows a packet tells at most one partner, so the number
        of nodes that know packet ``q`` at most doubles: ``c_q 2^left`` must reach the nodes
        that know it now or must know it at the end. Only the packets of a few words are
        counted (a subset of packets gives a weaker bound, still sound).
        """
        if left >= 62 or (1 << left) >= self.count.shape[0]:
            return False  # c_q >= 1 for every packet some node holds
        for w in self.sample_words:
            col = np.ascontiguousarray(self.know[:, w])
            want = col | self.demands[:, w]
            known = np.unpackbits(col.view(np.uint8), bitorder="little").reshape(-1, 64)
            wanted = np.unpackbits(want.view(np.uint8), bitorder="little").reshape(-1, 64)
            c = known.sum(axis=0, dtype=np.int64)
            if np.any(c * (1 << left) < wanted.sum(axis=0, dtype=np.int64)):
                return True
        return False

    def _reach_rounds(self, limit: int) -> int:
        """Relaxed rounds (all matchings at once) until the demands are met, up to ``limit``."""
        return packed_reach_rounds(self.know, self.demands, self.partners, limit)

    def _reach_bound(self, left: int) -> bool:
        """True when even every matching at once in each of the ``left`` rounds misses a demand.

        Knowledge only grows along a path, so the relaxed rounds a node needs are at most its
        parent's: they are computed only where the parent's do not already fit in ``left``
        (where the parent had no round to spare), which on most graphs is rare.
        """
        depth = self.rounds - left
        parent = self.reach[depth - 1] if depth > 0 else math.inf
        if parent <= left:
            self.reach[depth] = parent
            return False
        need = self._reach_rounds(left)
        self.reach[depth] = need
        return need > left

    def _hopeless(self, left: int) -> bool:
        return self._packet_bound(left) or self._node_bound(left) or self._reach_bound(left)

    def _gain(self, i: int) -> int:
        u, v = self.ends[i]
        k = len(u)
        a, b, bits = self._rows_u[:k], self._rows_v[:k], self._bits[:k]
        np.take(self.know, u, axis=0, out=a)
        np.take(self.know, v, axis=0, out=b)
        # packets learnt over the matching: what one end knows and the other does not
        np.bitwise_xor(a, b, out=a)
        np.bitwise_count(a, out=bits)
        return int(bits.sum(dtype=np.int64))

    def _apply(self, i: int) -> tuple[Index, bitsets.Words, Index, Index]:
        """Apply matching ``i`` in place; return what :meth:`_undo` needs.

        The record is ``(rows or flat positions, old rows or gained bits, ends, old
        counts)``: the ends' old rows when a whole path of them fits in :data:`UNDO_BYTES`
        (fast), else only the changed words and the bits they gained (small).
        """
        half = len(self.ends[i][0])
        ends = self.both[i]
        old = self.know[ends]
        union = old[:half] | old[half:]
        old_count = self.count[ends]
        counts = np.bitwise_count(union).sum(axis=1, dtype=np.int64)
        self.count[ends] = np.concatenate((counts, counts))
        if not self.sparse_undo:
            self.know[ends[:half]] = union
            self.know[ends[half:]] = union
            return ends, old, ends, old_count
        learnt = np.concatenate((union, union))
        learnt ^= old  # the bits each end learns (the union is a superset of its row)
        where = np.flatnonzero(learnt)
        # flat positions in self.know of the changed words, and the bits they gained
        pos = ends[where // self.width] * self.width + where % self.width
        bits = learnt.reshape(-1)[where]
        self.know.reshape(-1)[pos] ^= bits
        return pos, bits, ends, old_count

    def _undo(self, record: tuple[Index, bitsets.Words, Index, Index]) -> None:
        where, words, ends, old_count = record
        if self.sparse_undo:
            self.know.reshape(-1)[where] ^= words
        else:
            self.know[where] = words
        self.count[ends] = old_count

    @property
    def sequence(self) -> str:
        """The current branch as digits: the sequence found once :meth:`advance` is True."""
        return "".join(map(str, self.path))

    def advance(self, nodes: float = math.inf) -> bool | None:
        """Search ``nodes`` more search nodes, from where the walk last paused.

        Returns
        -------
        bool or None
            True: a sequence was found (:attr:`sequence`); False: there is none in this
            setting's pruned tree, or the deadline passed (:attr:`timed_out`); None: paused,
            to be resumed by the next call.
        """
        self.pause_at = self.nodes + nodes
        if self._walk is None:
            self._walk = self._dfs(self.path)
        try:
            next(self._walk)
        except StopIteration as stop:
            return bool(stop.value)
        return None

    def run(self) -> str | None:
        """The whole search at once: the sequence found, or None."""
        return self.sequence if self.advance() else None

    def _dfs(self, path: list[int]) -> Generator[None, None, bool]:
        if self.nodes >= self.pause_at:
            yield  # paused here; advance raises pause_at and resumes
        self.nodes += 1
        if self._done():
            return True
        depth = len(path)
        left = self.rounds - depth
        if left == 0 or self._hopeless(left):
            return False
        if time.monotonic() > self.deadline:  # a node costs far more than the clock
            self.timed_out = True
            return False
        p = self.p
        # the state and the last rounds the rules look at fix the subtree below this node
        state = self._state_key()
        key = None
        if state is not None:
            key = (state, tuple(path[-p:] if self.window else path[-self.no_repeat :]))
            if self.failed.get(key, -1) >= left:
                return False  # searched before with as many rounds left, in vain
        banned = set(path[-self.no_repeat :]) if p > self.no_repeat else set(path[-1:])
        candidates = [i for i in range(p) if i not in banned]
        if self.window and depth >= p:
            missing = set(range(p)) - set(path[-p:])
            if missing:
                candidates = [i for i in candidates if i in missing]
        scored = [(g, i) for i in candidates if (g := self._gain(i))]
        if not scored:
            return False
        best = max(g for g, _ in scored)
        scored = [s for s in scored if s[0] >= self.f * best]
        scored.sort(key=lambda s: (-s[0], s[1]))
        for _, i in scored:
            path.append(i)
            record = self._apply(i)
            if (yield from self._dfs(path)):
                return True
            self._undo(record)
            path.pop()
            if self.timed_out:
                return False
        if key is not None and len(self.failed) < MEMO_LIMIT:
            self.failed[key] = left
        return False


class _SymmetricSearch(_Search):
    """:class:`_Search` on one knowledge row per orbit (:mod:`.coloring_symmetry`).

    ``K[s]`` (a boolean row over the packets) is what ``reps[s]`` knows; a node ``h(r_s)``
    knows ``h(K[s])``. Gains are the full search's (every orbit has ``|G|`` nodes, so the
    packets learnt over a matching are ``|G|`` times those its representatives learn), so
    both searches visit the same sequences in the same order and find the same one; the
    bounds here count every packet exactly (the nodes knowing a packet of orbit ``t`` are
    ``sum_s |K[s] ∩ orbit t|``).
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
        *,
        symmetry: MatchingSymmetry,
    ) -> None:
        self._settings(matchings, rounds, f, no_repeat, window, deadline)
        self.sym = symmetry
        n = instance.n
        self.n_packets = n
        self.orbits = len(symmetry.reps)
        # column j of a row is packet order[j]: the packets sorted by orbit, so that the
        # packets of orbit t are the columns t * |G| .. (t + 1) * |G| - 1
        order = np.argsort(symmetry.orbit, kind="stable")
        column = np.argsort(order)
        self.order = order
        # know[s, j]: whether the representative of orbit s knows packet order[j]
        self.know = np.zeros((self.orbits, n), dtype=bool)
        self.know[np.arange(self.orbits), column[symmetry.reps]] = True
        self.count = self.know.sum(axis=1, dtype=np.int64)
        self.need = np.full(self.orbits, n, dtype=np.int64)
        # take[i]: flat positions in know of M_i's partner rows (K[partner][h^{-1}], columns
        # reordered), so that one gather reads every representative's partner
        self.take = [
            (symmetry.partner[i][:, None] * n + column[symmetry.pull[i][:, order]]).ravel()
            for i in range(self.p)
        ]
        # partner orbit per matching, the padding orbit (count 0) where unmatched
        self.partner_orbit = np.where(symmetry.matched, symmetry.partner, self.orbits)
        # partner rows computed by _gain at each level of the current path, by matching
        self._cache: list[dict[int, np.ndarray]] = [{}]
        # failed[(state, last rounds)]: the most rounds left with which that node was
        # searched to the end without a sequence (a transposition table)
        self.failed: dict[tuple[bytes, tuple[int, ...]], int] = {}
        self.nodes = 0
        self.timed_out = False

    def _state_key(self) -> bytes | None:
        return hashlib.blake2b(np.packbits(self.know).tobytes(), digest_size=16).digest()

    def _partner_rows(self, i: int) -> np.ndarray:
        rows = self._cache[-1].get(i)
        if rows is None:
            rows = np.take(self.know.reshape(-1), self.take[i]).reshape(self.know.shape)
            self._cache[-1][i] = rows
        return rows

    def _done(self) -> bool:
        return bool(np.all(self.count >= self.need))

    def _reach_rounds(self, limit: int) -> int:
        return orbit_reach_rounds(self.know, self.take, limit)

    def _node_bound(self, left: int) -> bool:
        # b_s(t + 1) = min(P, b_s(t) + max over matchings of the partner's b(t))
        partner = self.partner_orbit
        bound = np.append(self.count, 0)
        body = bound[:-1]
        for _ in range(left):
            if np.all(body >= self.need):
                return False
            body += bound[partner].max(axis=0)
            np.minimum(body, self.n_packets, out=body)
        return bool(np.any(body < self.need))

    def _packet_bound(self, left: int) -> bool:
        if left >= 62 or (1 << left) >= self.n_packets:
            return False
        # knowers[t]: the nodes knowing a packet of orbit t (the columns of orbit t)
        size = self.sym.size
        knowers = np.array(
            [np.count_nonzero(self.know[:, t * size : (t + 1) * size]) for t in range(self.orbits)]
        )
        return bool(np.any(knowers * (1 << left) < self.n_packets))

    def _gain(self, i: int) -> int:
        # packets learnt: known to the partner (True) and not to the node (False)
        return int(np.count_nonzero(self._partner_rows(i) > self.know)) * self.sym.size

    def _apply(self, i: int) -> tuple[np.ndarray, np.ndarray]:  # type: ignore[override]
        old = self.know, self.count
        self.know = self.know | self._partner_rows(i)
        self.count = np.array([np.count_nonzero(row) for row in self.know], dtype=np.int64)
        self._cache.append({})
        return old

    def _undo(self, record: tuple[np.ndarray, np.ndarray]) -> None:  # type: ignore[override]
        self.know, self.count = record
        self._cache.pop()

    def packets_known(self, s: int) -> list[int]:
        """The packets the representative of orbit ``s`` knows, in increasing order."""
        return sorted(self.order[np.flatnonzero(self.know[s])].tolist())


def coloring_schedule(instance: Instance) -> Schedule:
    """The schedule of :func:`coloring_heuristic` with its defaults (an upper bound)."""
    return coloring_heuristic(instance).schedule
