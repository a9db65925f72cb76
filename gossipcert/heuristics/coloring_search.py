"""The coloring heuristic's depth-first search for one horizon: the knowledge of every node as
packed rows, a round applied in place and undone, the gains that order the matchings, the
rules that prune them, and the three sound bounds that cut a branch.

:mod:`gossipcert.heuristics.coloring` runs one search per horizon and pruning setting;
:mod:`gossipcert.heuristics.coloring_orbit_search` is the same search on one row per orbit.

References
----------
.. [1] R. Beier and J. F. Sibeyn, "A powerful heuristic for telephone gossiping", Proc. 7th
   SIROCCO, 2000: section 6 (the search, its pruning rules and the ``f · W`` filter).
"""

from __future__ import annotations

import math
import time
from collections.abc import Generator
from typing import Any

import networkx as nx
import numpy as np
import numpy.typing as npt

from gossipcert.heuristics import bitsets
from gossipcert.heuristics.coloring_classes import Matching
from gossipcert.heuristics.coloring_reach import packed_reach_rounds
from gossipcert.instance import Instance

#: entries of a search's table of failed (state, last rounds) pairs
MEMO_LIMIT = 2_000_000
#: bytes of undo records a path may keep as whole rows; past it, only the changed words
UNDO_BYTES = 1 << 28
Index = bitsets.Index


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

    #: what the nodes know: ``uint64`` words here, one boolean row per orbit in
    #: :class:`~gossipcert.heuristics.coloring_orbit_search._SymmetricSearch`
    know: npt.NDArray[Any]

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
