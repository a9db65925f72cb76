"""The coloring heuristic's search on one knowledge row per orbit of the matchings' symmetry
(:mod:`gossipcert.heuristics.coloring_symmetry`): the same sequences in the same order as the
search on every node (:mod:`gossipcert.heuristics.coloring_search`), on ``|G|`` times fewer
rows, for gossip on CCC, wrapped butterfly, star and pancake graphs.

References
----------
.. [1] R. Beier and J. F. Sibeyn, "A powerful heuristic for telephone gossiping", Proc. 7th
   SIROCCO, 2000: section 6 (the search), section 8 (the matchings of the four families).
"""

from __future__ import annotations

import hashlib

import numpy as np

from gossipcert.heuristics.coloring_classes import Matching
from gossipcert.heuristics.coloring_reach import orbit_reach_rounds
from gossipcert.heuristics.coloring_search import _Search
from gossipcert.heuristics.coloring_symmetry import MatchingSymmetry
from gossipcert.instance import Instance


class _SymmetricSearch(_Search):
    """:class:`~gossipcert.heuristics.coloring_search._Search` on one knowledge row per orbit
    (:mod:`.coloring_symmetry`).

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
