"""The linear-cost variant of the matching heuristic: how many and which packets to send.

In the linear-cost model a round in which some node sends ``s`` packets costs
``1 + tau * h * s`` ([1]_, section 2), so after the matching ``M`` of a round is fixed,
steps 3 and 4 of ROUND_HEURISTIC (section 4.1) choose

3. the number of steps ``s_opt``: the ``s`` maximising
   ``Transfer_Volume(s, M) / (1 + tau * h * s)``, where ``Transfer_Volume(s, M)`` is the
   number of wanted packets the matched pairs can pass in ``s`` steps,
   ``sum over directed matched edges a -> b of min(s, |P(a) \\ P(b)|)``; unless sending
   everything finishes the instance in this round, which is then done;
4. for each directed matched edge ``a -> b``, the ``s_opt`` packets of highest priority:
   first the packets ``p`` for which ``b`` lies on a shortest path to a farthest demanding
   node (see :func:`~gossipcert.heuristics.weights.geodesic_targets`), then the other
   wanted ones; within each group by decreasing remaining eccentricity ``e_p`` (the order
   of the BFS weight ``e_p ** Dist_Exp``), ties to the lower packet number.

References
----------
.. [1] R. Beier and J. F. Sibeyn, "A powerful heuristic for telephone gossiping", sections 2
   and 4.1 (linear-cost model), Table 3.
"""

from __future__ import annotations

import numpy as np

from gossipcert.heuristics.bitsets import Index, Words, unpack_row
from gossipcert.heuristics.weights import geodesic_targets
from gossipcert.instance import bits


def best_steps(volumes: list[int], tau_h: float) -> int:
    """``s`` in ``1..max(volumes)`` maximising ``sum min(s, vol) / (1 + tau_h * s)``.

    Examples
    --------
    >>> best_steps([5, 1, 1], 0.0)
    5
    >>> best_steps([5, 1, 1], 10.0)
    1
    """
    top = max(volumes, default=0)
    if top <= 1:
        return max(top, 1)
    vols = np.array(volumes)
    s = np.arange(1, top + 1)
    moved = np.minimum(vols[None, :], s[:, None]).sum(axis=1)
    ratio = moved / (1.0 + tau_h * s)
    return int(s[int(np.argmax(ratio))])


def choose_packets(
    know: Words,
    demand: Words,
    nbr: Index,
    arcs: list[tuple[int, int]],
    tau_h: float,
) -> tuple[list[int], int]:
    """Per arc ``(a, b)`` the packets ``a`` sends (Python bitsets), and the steps ``s``.

    Parameters
    ----------
    know, demand : numpy.ndarray
        Packed knowledge and demands (internal node numbers).
    nbr : numpy.ndarray
        Padded neighbour table.
    arcs : list of (int, int)
        The directed matched edges of the round.
    tau_h : float
        ``tau * h``.
    """
    on1, ecc, top = geodesic_targets(know, demand, nbr)
    wanted_rows = np.bitwise_or.reduce(np.array(ecc), axis=0)
    wanted = unpack_row(wanted_rows)
    ecc_of: dict[int, int] = {}
    for d in range(1, top + 1):
        for p in bits(unpack_row(ecc[d])):
            ecc_of[p] = d
    news = [unpack_row(know[a] & ~know[b]) & wanted for a, b in arcs]
    volumes = [x.bit_count() for x in news]
    everything = news
    # sending everything finishes the instance now: do it
    after = know.copy()
    for a, b in arcs:
        after[b] |= know[a]
    if not (demand[:-1] & ~after[:-1]).any():
        return everything, max(volumes, default=0)
    s = best_steps(volumes, tau_h)
    out: list[int] = []
    for (_, b), new in zip(arcs, news, strict=True):
        if new.bit_count() <= s:
            out.append(new)
            continue
        urgent = unpack_row(on1[b])
        ranked = sorted(bits(new), key=lambda p: (not urgent >> p & 1, -ecc_of.get(p, 0), p))
        mask = 0
        for p in ranked[:s]:
            mask |= 1 << p
        out.append(mask)
    return out, s
