"""Edge weights of the matching heuristic: the potential approach and the BFS approach.

Both weigh each direction ``u -> w`` of an edge; the telephone weight of the edge adds the
two directions, the half-duplex weight takes the larger one and orients the call that way.
Only packets that some node still demands count ("wanted" packets).

*Potential approach* (section 4.1 of [1]_): the weight of ``u -> w`` is the number of wanted
packets ``u`` knows and ``w`` does not, so the telephone weight of ``{u, w}`` is the number
of wanted packets known by exactly one end — the edge's potential.

*BFS approach* (section 4.1, Definition 1 and formula (9) of [1]_): the *dispersion region*
``DR(p)`` is the set of nodes knowing ``p``; ``dist_v(p)`` is the distance from ``v`` to it;
the *border-crossing* edges of ``p`` join ``DR(p)`` to its outside, and ``bce_v(p)`` are
those on a shortest path from ``DR(p)`` to ``v``. In the paper every node ``v`` outside
``DR(p)`` gives each edge of ``bce_v(p)`` the weight ``dist_v(p) ** Dist_Exp /
|bce_v(p)| ** Num_Exp``. The sets ``bce_v(p)`` cost ``O(n^3 m)`` per round; to reach
10,000 nodes this module computes, for all packets at once with bitsets, the form the
weight takes when ``Dist_Exp`` is large (the paper's tuned values go up to 60, larger for
larger graphs): each packet ``p`` has a remaining *eccentricity* ``e_p``, the distance from
``DR(p)`` to its farthest node still demanding it; its *targets* are the demanding nodes at
distance at least ``e_p - band``; and the border edge ``u -> w`` carries ``p`` with weight
``e_p ** Dist_Exp`` when ``w`` lies on a shortest path from ``DR(p)`` to a target. Edges on
no such path carry ``p`` with a weight below one packet of the smallest eccentricity (the
potential, scaled down), which only breaks ties. With ``band`` large every demanding node is
a target and the weight is the BFS weight with the node count replaced by "some node".
The form with node counts, closer to formula (9) and dearer, is
:mod:`gossipcert.heuristics.flow`.

The computation per round: forward, the reach sets ``R_d[v]`` (packets within distance
``d`` of ``v``: ``R_d = R_{d-1} | OR_{w ~ v} R_{d-1}[w]``) up to the largest eccentricity;
the level sets ``L_d = R_d \\ R_{d-1}`` give every ``dist_v(p)``; then backward, from the
targets, the sets ``On_d[v]`` of packets for which ``v`` (at level ``d``) lies on a shortest
path to a target: ``On_d[v] = T_d[v] | (L_d[v] & OR_{w ~ v} On_{d+1}[w])``. Each step is one
gather per neighbour slot of an ``n x ceil(P/64)`` word array.

References
----------
.. [1] R. Beier and J. F. Sibeyn, "A powerful heuristic for telephone gossiping", section 4
   (potential and BFS approach, formula (9)) and section 5.2 (Dist_Exp).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from gossipcert.heuristics.bitsets import Index, Words, gather_or, spread

Floats = npt.NDArray[np.float64]

#: edges handled per chunk when counting packets per edge (bounds the temporary arrays)
_CHUNK_WORDS = 1 << 22


@dataclass(frozen=True)
class EdgeWeights:
    """The directed weights of one round.

    Attributes
    ----------
    forward, backward : numpy.ndarray
        Weight of ``u -> v`` and of ``v -> u`` for every edge ``(u, v)`` of the edge arrays.
    eccentricity : int
        The largest remaining eccentricity of a wanted packet (0 for the potential approach).
    """

    forward: Floats
    backward: Floats
    eccentricity: int


def wanted_mask(know: Words, demand: Words) -> Words:
    """The packets some node demands and lacks (one row of words)."""
    return np.bitwise_or.reduce(demand & ~know, axis=0)


def _count(a_rows: Words, b_rows: Words, u: Index, v: Index, masks: list[Words]) -> list[Floats]:
    """``popcount(a[u] & b[v] & mask)`` per edge, for every mask (chunked over edges)."""
    m = len(u)
    width = a_rows.shape[1]
    out = [np.zeros(m, dtype=np.float64) for _ in masks]
    step = max(1, _CHUNK_WORDS // max(width, 1))
    for lo in range(0, m, step):
        hi = min(m, lo + step)
        both = a_rows[u[lo:hi]] & b_rows[v[lo:hi]]
        for k, mask in enumerate(masks):
            out[k][lo:hi] = np.bitwise_count(both & mask).sum(axis=1)
    return out


def _directed(
    know: Words,
    on1: Words,
    src: Index,
    dst: Index,
    masks: list[Words],
    scale: Floats,
    wanted: Words,
    tie: float,
) -> Floats:
    """``sum_k scale[k] * |K[src] & On1[dst] & mask_k| + tie * |K[src] & ~K[dst] & wanted|``."""
    m = len(src)
    width = know.shape[1]
    out = np.zeros(m, dtype=np.float64)
    step = max(1, _CHUNK_WORDS // max(width, 1))
    for lo in range(0, m, step):
        hi = min(m, lo + step)
        sender = know[src[lo:hi]]
        both = sender & on1[dst[lo:hi]]
        acc = tie * np.bitwise_count(sender & ~know[dst[lo:hi]] & wanted).sum(axis=1)
        for mask, sc in zip(masks, scale, strict=True):
            acc += sc * np.bitwise_count(both & mask).sum(axis=1)
        out[lo:hi] = acc
    return out


def potential_weights(know: Words, demand: Words, u: Index, v: Index) -> EdgeWeights:
    """The potential approach: wanted packets the sender knows and the receiver lacks.

    Examples
    --------
    >>> import numpy as np
    >>> from gossipcert.heuristics.bitsets import pack
    >>> k = pack([0b01, 0b10], 2)
    >>> d = pack([0b11, 0b11], 2)
    >>> w = potential_weights(k, d, np.array([0]), np.array([1]))
    >>> w.forward.tolist(), w.backward.tolist()
    ([1.0], [1.0])
    """
    wanted = wanted_mask(know, demand)
    fwd = _count(know, ~know, u, v, [wanted])[0]
    bwd = _count(know, ~know, v, u, [wanted])[0]
    return EdgeWeights(fwd, bwd, 0)


def reach_sets(
    know: Words, demand: Words, nbr: Index, beyond: list[Words] | None = None
) -> list[Words]:
    """``R_0 = know, R_1, ...``: packets within distance ``d``, until every demand is reached.

    If ``beyond`` is a list, ``beyond[d]`` becomes the packets some node demands and does not
    reach within distance ``d`` (one row of words).
    """
    reach = [know]
    while True:
        cur = reach[-1]
        unmet = np.bitwise_or.reduce(demand[:-1] & ~cur[:-1], axis=0)
        if beyond is not None:
            beyond.append(unmet)
        if not unmet.any():
            return reach
        nxt = spread(cur, nbr)
        if np.array_equal(nxt, cur):  # a demand no holder can reach (excluded by the instance)
            return reach
        reach.append(nxt)


def geodesic_targets(
    know: Words, demand: Words, nbr: Index, band: int = 0
) -> tuple[Words, list[Words], int]:
    """The level-1 sets ``On_1`` and the eccentricity classes of the wanted packets.

    Returns
    -------
    on1 : numpy.ndarray
        ``(n + 1) x W``: ``on1[w]`` holds the packets for which ``w`` lies one step from
        ``DR(p)`` on a shortest path to one of ``p``'s targets.
    ecc : list of numpy.ndarray
        ``ecc[d]`` (one row of words): the wanted packets of eccentricity ``d``.
    top : int
        The largest eccentricity (0 when nothing is wanted).
    """
    beyond: list[Words] = []
    reach = reach_sets(know, demand, nbr, beyond)
    top = len(reach) - 1
    width = know.shape[1]
    zero = np.zeros(width, dtype=np.uint64)
    if top == 0:
        return np.zeros_like(know), [zero], 0
    body = [r[:-1] for r in reach]
    dem = demand[:-1]
    # ecc[d]: the wanted packets whose farthest demanding node lies at distance d
    ecc: list[Words] = [zero] + [beyond[d - 1] & ~beyond[d] for d in range(1, top + 1)]
    n = know.shape[0] - 1
    on_next = np.zeros((n + 1, width), dtype=np.uint64)
    on = on_next[:-1]
    for d in range(top, 0, -1):
        level = body[d] & ~body[d - 1]
        in_band = ecc[d].copy()
        for e in range(d + 1, min(top, d + band) + 1):
            in_band |= ecc[e]
        if d < top:
            on = gather_or(on_next, nbr)
            on |= dem & in_band
            on &= level
        else:
            on = dem & level & in_band
        on_next[:-1] = on
    return on_next, ecc, top


def bfs_weights(
    know: Words,
    demand: Words,
    nbr: Index,
    u: Index,
    v: Index,
    dist_exp: float,
    band: int = 0,
) -> EdgeWeights:
    """The BFS approach in its large-``Dist_Exp`` form (see the module docstring).

    Parameters
    ----------
    know, demand : numpy.ndarray
        Packed knowledge and demands, ``(n + 1) x W`` with a zero last row.
    nbr : numpy.ndarray
        Padded neighbour table.
    u, v : numpy.ndarray
        The edges.
    dist_exp : float
        ``Dist_Exp``: a packet of eccentricity ``e`` weighs ``(e / top) ** dist_exp``,
        ``top`` the largest eccentricity (the common factor keeps the numbers finite).
    band : int
        Demanding nodes within ``band`` of a packet's eccentricity are its targets.

    Returns
    -------
    EdgeWeights
    """
    width = know.shape[1]
    on1, ecc, top = geodesic_targets(know, demand, nbr, band)
    if top == 0:
        m = len(u)
        return EdgeWeights(np.zeros(m), np.zeros(m), 0)
    seen = np.bitwise_or.reduce(np.array(ecc), axis=0)
    classes = [d for d in range(1, top + 1) if ecc[d].any()]
    scale = np.array([(d / top) ** dist_exp for d in classes])
    # ties: the potential, scaled below one packet of the smallest eccentricity
    tie = float(scale[0]) / (width * 64 + 1)
    fwd = _directed(know, on1, u, v, [ecc[d] for d in classes], scale, seen, tie)
    bwd = _directed(know, on1, v, u, [ecc[d] for d in classes], scale, seen, tie)
    return EdgeWeights(fwd, bwd, top)
