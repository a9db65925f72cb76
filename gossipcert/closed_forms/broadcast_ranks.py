"""The call-rank counting lower bound for single-packet broadcast (one source or several).

The bound applies where the bounds of :mod:`gossipcert.closed_forms.broadcast` apply: one packet
under telephone, half-duplex or single-port rules (any packet cap, any limit on calls per
round), where a node that knows the packet passes it to at most one neighbour per round.
Write ``S`` for the holders, ``dist(v)`` for the distance from ``S`` to ``v`` and
``tau(v)`` for the round in which a non-holder ``v`` is informed.

``broadcast-ranks`` (ranks of the calls along the informing chains): every informed
non-holder has one informer, so the informers form a forest rooted at the holders. A node
``u`` calls its children in distinct rounds after ``tau(u)`` (``tau(s) = 0`` for a holder);
number them ``1, 2, ...`` in the order of their rounds (the *rank*). The child of rank
``p`` is informed in round ``>= tau(u) + p``. Along the chain ``s = u_0, u_1, ..., u_L = v``
from a holder to ``v`` the ranks ``p_1, ..., p_L`` therefore satisfy::

    p_1 + ... + p_L <= tau(v) <= R,    L >= dist(v),

``p_1`` is at most the number of non-holder neighbours of ``s`` and every later ``p_i`` at
most ``Delta - 1`` (a non-holder's informer is one of its neighbours and not its child;
``Delta`` is the largest degree of a non-holder). The holder and its rank sequence
determine ``v`` (children of one node have distinct ranks), so for every ``d >= 1``::

    #{demanding non-holders v with dist(v) >= d}
        <= sum over holders s of #{rank sequences from s of length >= d with sum <= R}.

The bound is the least ``R`` (at least the distance from ``S`` to the farthest demanding
node) satisfying this for every ``d``. With ``d = 1`` it is the doubling bound with the
degrees taken into account; with ``d = dist`` of the farthest nodes and ``R = dist`` the
right side is the number of holders (only the sequence ``1, 1, ..., 1``): two farthest
nodes and one source already force one round more than the distance. That is the
``ceil(5k/2) - 2`` of Table 4 of Beier and Sibeyn [3] on the odd cube-connected cycles
(diameter plus one), and it lifts the de Bruijn and butterfly rows by one round over the
distance-layer bound.

The counts are computed by dynamic programming over (length, sum), ``O(R^2 Delta)`` per
source with a different number of non-holder neighbours.

References
----------
.. [1] P. Fraigniaud and E. Lazard, "Methods and problems of communication in usual
   networks", Discrete Applied Mathematics 53 (1994) 79-133 (broadcast trees; counting
   the nodes a broadcast tree reaches by a given round).
.. [2] M. Ivanova, D. Haugland and B. H. Tvedt, "Strong bounds and exact solutions to the
   minimum broadcast time problem", International Transactions in Operational Research
   (arXiv:2107.06359) (lower bounds for broadcast from a set of sources).
.. [3] R. Beier and J. F. Sibeyn, "A powerful heuristic for telephone gossiping",
   SIROCCO 2000 (Table 4: broadcast times of butterflies, CCC, shuffle-exchange and de
   Bruijn graphs).
"""

from __future__ import annotations

from collections import Counter

from gossipcert.closed_forms.base import _LOWER, Bound
from gossipcert.closed_forms.broadcast import far_counts, one_packet_view, source_distances
from gossipcert.instance import Instance


def rank_sequences(first: int, fan: int, rounds: int) -> list[int]:
    """``out[L]``: the number of rank sequences of length ``L`` with sum ``<= rounds``, the
    first rank in ``1..first`` and the others in ``1..fan``.

    Examples
    --------
    >>> rank_sequences(2, 1, 3)  # (1), (2); (1,1), (2,1); (1,1,1)
    [0, 2, 2, 1]
    >>> rank_sequences(5, 5, 3)  # compositions: C(3, L) of length L
    [0, 3, 3, 1]
    """
    out = [0] * (rounds + 1)
    cur = [0] * (rounds + 1)  # cur[t]: sequences of the current length with sum t
    for p in range(1, min(first, rounds) + 1):
        cur[p] = 1
    length = 1
    while length <= rounds and any(cur):
        out[length] = sum(cur)
        nxt = [0] * (rounds + 1)
        for t, count in enumerate(cur):
            if count:
                for p in range(1, min(fan, rounds - t) + 1):
                    nxt[t + p] += count
        cur = nxt
        length += 1
    return out


def ranks_value(nbrs: list[list[int]], sources: list[int], demand: list[bool]) -> int:
    """The ``broadcast-ranks`` value (see the module docstring) of a graph given by its
    adjacency lists; nodes out of reach of ``sources`` are ignored.

    Examples
    --------
    >>> # the cycle of 6 from node 0: node 3 alone at distance 3, two at distance 2;
    >>> # (1,1,1), (1,1), (2,1)... fit in 3 rounds
    >>> ranks_value([[1, 5], [0, 2], [1, 3], [2, 4], [3, 5], [4, 0]], [0], [True] * 6)
    3
    >>> # the path 0-1-2-3-4 from node 2: nodes 0 and 4 both at distance 2, one source
    >>> ranks_value([[1], [0, 2], [1, 3], [2, 4], [3]], [2], [True] * 5)
    3
    """
    n = len(nbrs)
    holder = [False] * n
    for s in sources:
        holder[s] = True
    dist = source_distances(nbrs, sources)
    beyond = far_counts(dist, demand)  # beyond[d]: demanding non-holders at distance >= d
    if not beyond:
        return 0
    ecc = len(beyond) - 2
    # first ranks: how many holders have a given number of non-holder neighbours
    firsts = Counter(
        sum(1 for c in set(nbrs[s]) if not holder[c] and c != s) for s in range(n) if holder[s]
    )
    fan = max(
        (len(set(nbrs[v]) - {v}) - 1 for v in range(n) if not holder[v] and dist[v] > 0),
        default=0,
    )
    rounds = ecc
    while True:
        per_length = [0] * (rounds + 2)
        for first, count in firsts.items():
            for length, seqs in enumerate(rank_sequences(first, fan, rounds)):
                per_length[length] += count * seqs
        at_least = 0  # sequences of length >= d
        fits = True
        for d in range(rounds, 0, -1):
            at_least += per_length[d]
            if d <= ecc and beyond[d] > at_least:
                fits = False
                break
        if fits:
            return rounds
        rounds += 1


def broadcast_ranks_bound(instance: Instance) -> Bound | None:
    """The call-rank counting bound for one-packet instances (see the module docstring).

    Parameters
    ----------
    instance : Instance

    Returns
    -------
    Bound or None
        None unless the instance has one packet and a one-port model.

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> broadcast_ranks_bound(parse_instance("ccc:5", "telephone", "broadcast:0")).value
    11
    """
    view = one_packet_view(instance)
    if view is None:
        return None
    value = ranks_value(*view)
    return Bound(
        "broadcast-ranks",
        _LOWER,
        value,
        "Fraigniaud-Lazard broadcast trees: a node is named by the ranks of the calls on its "
        "chain from a source, whose sum is at most R and whose length at least its distance",
    )
