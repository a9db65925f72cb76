"""A lower bound on the rounds a coloring-search state still needs: all matchings at once.

The coloring heuristic (:mod:`gossipcert.heuristics.coloring`) applies one of the fixed
matchings ``M_0, ..., M_{p-1}`` per round. Relax the round: every node exchanges with all
of its partners in all the matchings at once (all-port on the matchings' union graph
``U``). Starting from the search's knowledge ``K``, let ``A^(0) = K`` and

``A^(j+1)_v = A^(j)_v ∪ ⋃ { A^(j)_w : w a partner of v in some M_i }``,

so ``A^(j)_v`` is the union of what the nodes within distance ``j`` of ``v`` in ``U`` know.
Any sequence of ``j`` matchings teaches ``v`` only packets of ``A^(j)_v`` (by induction:
knowledge is monotone and a round of ``M_i`` is contained in the relaxed round). So a
state with ``left`` rounds to go whose ``A^(left)`` misses a demand cannot be completed
by *any* continuation, whatever the pruning rules: the cut is sound.

The bound is the distance bound of broadcasting, taken for every packet from where it is
known now: a packet needs at least the distance from its nearest holder to the farthest
node that wants it. It is tight where the paper's sequences are: CCC 10's 23 and CCC 12's
28 rounds are the diameters of those graphs (the lower bounds of Table 5), so a sequence
of that length must keep every packet spreading along shortest paths at every round, and
the bound cuts every branch that stops doing so one round after it does.

Two forms, one per knowledge representation of the search:

- :func:`packed_reach_rounds`: one packed row per node (:mod:`.bitsets`), the union
  graph's neighbour table;
- :func:`orbit_reach_rounds`: one boolean row per orbit of the matchings' symmetry
  (:mod:`.coloring_symmetry`); ``A^(j)`` is equivariant like ``K`` (the symmetry maps
  ``U`` onto itself), so the relaxed round is the OR of the partner rows of every matching,
  read through the same pull-backs the search's rounds use.

Both stop after ``limit`` relaxed rounds and then answer ``limit + 1`` (at least that
many): the search asks only whether the rounds left suffice.

References
----------
.. [1] R. Beier and J. F. Sibeyn, "A powerful heuristic for telephone gossiping",
   section 6 (the coloring heuristic: "the latter stages can be rapidly tested
   exhaustively"), Table 5 (the lower bounds) and Table 6 (the sequences).
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from gossipcert.heuristics import bitsets

Index = bitsets.Index


def packed_reach_rounds(
    know: bitsets.Words, demands: bitsets.Words, partners: Index, limit: int
) -> int:
    """Relaxed rounds until every node knows its demands, on one packed row per node.

    Parameters
    ----------
    know : numpy.ndarray of uint64, shape (n, words)
        ``know[v]``: the packets node ``v`` knows, packed.
    demands : numpy.ndarray of uint64, shape (n, words)
        ``demands[v]``: the packets node ``v`` must end up knowing, packed.
    partners : numpy.ndarray of int64, shape (n, degree)
        ``partners[v, j]``: the ``j``-th node some matching pairs with ``v``; ``n`` pads
        (:func:`~gossipcert.heuristics.bitsets.neighbour_table` of the union graph).
    limit : int
        The most relaxed rounds to try.

    Returns
    -------
    int
        The least ``j <= limit`` with every demand in ``A^(j)``, else ``limit + 1``.

    Examples
    --------
    >>> import networkx as nx
    >>> path = nx.path_graph(4)  # gossip on a path of 4: the packet of node 0 needs 3 rounds
    >>> know = bitsets.pack([1 << v for v in range(4)], 4)[:-1]
    >>> need = bitsets.pack([15 ^ (1 << v) for v in range(4)], 4)[:-1]
    >>> nbr = bitsets.neighbour_table(path)
    >>> packed_reach_rounds(know, need, nbr, 10), packed_reach_rounds(know, need, nbr, 2)
    (3, 3)
    """
    rows = np.vstack((know, np.zeros((1, know.shape[1]), dtype=know.dtype)))
    for j in range(limit + 1):
        if not np.any(demands & ~rows[:-1]):
            return j
        if j < limit:
            rows = bitsets.spread(rows, partners)
    return limit + 1


def orbit_reach_rounds(know: npt.NDArray[np.bool_], takes: list[Index], limit: int) -> int:
    """Relaxed rounds until every node knows every packet, on one row per orbit.

    Parameters
    ----------
    know : numpy.ndarray of bool, shape (orbits, packets)
        ``know[s]``: what the representative of orbit ``s`` knows (gossip: it must end up
        knowing every packet).
    takes : list of numpy.ndarray of int64
        Per matching, the flat positions in ``know`` of every representative's partner
        row pulled back to the representative (``_SymmetricSearch.take``).
    limit : int
        The most relaxed rounds to try.

    Returns
    -------
    int
        The least ``j <= limit`` with ``A^(j)`` full, else ``limit + 1``.

    Examples
    --------
    >>> import time
    >>> from gossipcert.heuristics.coloring_classes import _default_matchings
    >>> from gossipcert.heuristics.coloring_orbit_search import _SymmetricSearch
    >>> from gossipcert.heuristics.coloring_symmetry import matching_symmetry
    >>> from gossipcert.instance import parse_instance
    >>> inst = parse_instance("ccc:4", "telephone", "gossip")
    >>> ms = _default_matchings(inst)
    >>> s = _SymmetricSearch(inst, ms, 9, 0.0, 1, False, time.monotonic() + 60,
    ...                      symmetry=matching_symmetry(inst, ms))
    >>> orbit_reach_rounds(s.know, s.take, 20)  # the diameter of CCC 4
    8
    """
    a = know
    for j in range(limit + 1):
        if a.all():
            return j
        if j < limit:
            flat = a.reshape(-1)
            b = a.copy()
            for take in takes:
                b |= np.take(flat, take).reshape(a.shape)
            a = b
    return limit + 1
