"""The broadcast bounds of each packet, for instances with many packets in the one-port models.

See :mod:`gossipcert.closed_forms` for the conventions every bound follows.

The argument
------------
In the telephone, half-duplex and single-port models (any packet cap, any limit on calls
per round) a node passes a given packet to at most one neighbour per round: it is in at
most one call, or sends on at most one arc. Take a schedule that solves the instance and
keep, of each transmission, only the packet ``p``: what is left is a schedule that
broadcasts ``p`` from the nodes holding it to the nodes demanding it, under the same rules
and in the same number of rounds (forwarding still waits one round). So every lower bound on
that single-packet broadcast is a lower bound on the whole instance, and so is their maximum
over the packets.

``packet-layers`` takes, for each packet, the ``broadcast-layers`` value of
:mod:`gossipcert.closed_forms.broadcast` (distance layers whose subtrees at most double per
round, with the degrees taken into account: a node informed from a neighbour has one slot
fewer). For gossip that is the largest broadcast bound over all sources; on graphs of small
degree it exceeds the doubling bound ``ceil(log2 n)``, since a node of degree ``d`` informs
at most ``d - 1`` new neighbours (the star graph ``S_5``: 120 nodes, degree 4, at most 104
informed after 7 rounds, so 8 rounds; the paper's lower bound was 7).

``packet-ranks`` does the same with the ``broadcast-ranks`` value of
:mod:`gossipcert.closed_forms.broadcast_ranks` (a node is named by the ranks of the calls on its
chain from a source; their sum is at most ``R`` and their number at least its distance).
Neither dominates the other. On the Table 5 graphs of Beier and Sibeyn it is the stronger:
de Bruijn 6, 7 and 8 need 8, 9 and 10 rounds (``packet-layers``: 7, 8, 9), CCC 4 needs 9
and butterfly 8 needs 13.

``packet-walks`` takes the ``broadcast-walks`` value of
:mod:`gossipcert.closed_forms.broadcast_walks`
(the rank count along the walks of the graph), never below ``packet-ranks``: butterfly 7
needs 12 rounds (the paper's lower bound is 11).

Packets with the same holders and demanders give the same value and are evaluated once.
Where every packet is held by one node and demanded by all (gossip, with any number of
chunks), sources in one orbit of the graph's automorphism group (pynauty) give the same
value too, and one source per orbit is evaluated, in order of increasing degree, then by
node (other packets: fewest holders and most demanders first), until a fixed amount of
work (nodes plus arcs per evaluation) is spent: the value is a maximum over the packets, so
evaluating fewer of them only weakens it, and counting work instead of seconds keeps it the
same on every machine.

References
----------
.. [1] M. Ivanova, D. Haugland and B. H. Tvedt, "Strong bounds and exact solutions to the
   minimum broadcast time problem", International Transactions in Operational Research
   (arXiv:2107.06359): lower bounds on the broadcast time from distance layers
   (``d+(G, S)``), generalizing Fraigniaud and Lazard.
.. [2] R. Beier and J. F. Sibeyn, "A powerful heuristic for telephone gossiping", SIROCCO
   2000, Tables 4 and 5 (the lower bounds this bound is set beside).
"""

from __future__ import annotations

from collections.abc import Callable

import pynauty

from gossipcert.closed_forms.base import _LOWER, Bound
from gossipcert.closed_forms.broadcast import layers_value
from gossipcert.closed_forms.broadcast_ranks import ranks_value
from gossipcert.closed_forms.broadcast_walks import walks_value
from gossipcert.instance import Instance

#: work spent on the per-packet evaluations, in nodes plus arcs per evaluation (a count, so
#: that the value is the same on every machine; about a second of Python)
WORK_BUDGET = 20_000


def _orbit_representatives(nbrs: list[list[int]]) -> list[int]:
    """One node per orbit of the graph's automorphism group: ``rep[v]`` (the least node of
    ``v``'s orbit)."""
    g = pynauty.Graph(len(nbrs), directed=False, adjacency_dict=dict(enumerate(nbrs)))
    _, _, _, orbits, _ = pynauty.autgrp(g)
    return [int(r) for r in orbits]


def _packet_masks(instance: Instance) -> set[tuple[int, int]]:
    """The distinct (holders, demanders) node masks of the packets that someone still needs."""
    holders = [0] * instance.n_packets
    demanders = [0] * instance.n_packets
    for masks, table in ((instance.holdings, holders), (instance.demands, demanders)):
        by_mask: dict[int, int] = {}  # a packet mask -> the nodes that have it (few distinct)
        for v, mask in enumerate(masks):
            by_mask[mask] = by_mask.get(mask, 0) | (1 << v)
        for mask, who in by_mask.items():
            while mask:
                low = mask & -mask
                table[low.bit_length() - 1] |= who
                mask ^= low
    return {(h, d) for h, d in zip(holders, demanders, strict=True) if h and d & ~h}


def packet_candidates(
    instance: Instance, nbrs: list[list[int]], limit: int
) -> list[tuple[list[int], list[bool]]]:
    """At most ``limit`` distinct (sources, demanders) pairs of the packets, one per
    automorphism orbit where that is sound, fewest neighbours at the sources first.

    Parameters
    ----------
    instance : Instance
    nbrs : list of list of int
        The adjacency lists of ``instance``'s graph.
    limit : int

    Returns
    -------
    list of (list of int, list of bool)
        Per packet its holders and, per node, whether it demands the packet.

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> i = parse_instance("path:4", "telephone", "gossip")
    >>> packet_candidates(i, [list(i.graph.adj[v]) for v in range(4)], 9)
    [([0], [True, True, True, True]), ([1], [True, True, True, True])]
    """
    n = instance.n
    full = (1 << n) - 1
    pairs = _packet_masks(instance)
    if len(pairs) > 1 and all(d == full and h & (h - 1) == 0 for h, d in pairs):
        rep = _orbit_representatives(nbrs)  # gossip-like: one source each, demanded by all
        sources = sorted(
            (v for v in (h.bit_length() - 1 for h, _ in pairs) if rep[v] == v),
            key=lambda v: (len(nbrs[v]), v),
        )
        everyone = [True] * n
        return [([v], everyone) for v in sources[:limit]]

    def nodes(mask: int) -> list[int]:
        return [v for v in range(n) if mask >> v & 1]

    def key(pair: tuple[int, int]) -> tuple[int, int, int]:
        h, d = pair
        return h.bit_count(), -d.bit_count(), h  # few sources, many demanders: hardest first

    chosen = sorted(pairs, key=key)[:limit]
    return [(nodes(h), [bool(d >> v & 1) for v in range(n)]) for h, d in chosen]


def budgeted_candidates(
    instance: Instance, at_least: int = 0
) -> tuple[list[list[int]], list[tuple[list[int], list[bool]]]] | None:
    """The adjacency lists and the packets' (sources, demanders) pairs of
    :func:`packet_candidates`, as many as :data:`WORK_BUDGET` allows (at least ``at_least``).

    Parameters
    ----------
    instance : Instance
    at_least : int
        The fewest pairs to give even where one evaluation passes the budget.

    Returns
    -------
    (list of list of int, list of (list of int, list of bool)) or None
        None outside the one-port models (:attr:`gossipcert.models.spec.Model.informs_one`),
        with one packet, or when the budget allows no pair and ``at_least`` is 0.

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> budgeted_candidates(parse_instance("path:3", "telephone", "gossip"))[1]
    [([0], [True, True, True]), ([1], [True, True, True])]
    """
    if not instance.model.informs_one or instance.n_packets < 2:
        return None
    nbrs = [list(instance.graph.adj[v]) for v in range(instance.n)]
    evaluations = max(at_least, WORK_BUDGET // (instance.n + sum(map(len, nbrs))))
    if evaluations == 0:
        return None
    return nbrs, packet_candidates(instance, nbrs, evaluations)


def _largest_over_packets(
    instance: Instance, value: Callable[[list[list[int]], list[int], list[bool]], int]
) -> int | None:
    """The largest ``value(neighbours, sources, demand)`` over the packets, one per orbit
    where that is sound, within the work budget; None where the bounds do not apply."""
    found = budgeted_candidates(instance)
    if found is None:
        return None
    nbrs, candidates = found
    return max((value(nbrs, sources, demand) for sources, demand in candidates), default=0)


def packet_layers_bound(instance: Instance) -> Bound | None:
    """The largest ``broadcast-layers`` bound over the packets (see the module docstring).

    Parameters
    ----------
    instance : Instance

    Returns
    -------
    Bound or None
        None unless a one-port model (telephone, half-duplex, single-port; any packet cap
        and call limit), at least two packets, and one evaluation fits the work budget.

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> packet_layers_bound(parse_instance("star-graph:5", "telephone", "gossip")).value
    8
    >>> packet_layers_bound(parse_instance("path:6", "single-port", "gossip")).value
    5

    References
    ----------
    Ivanova, Haugland and Tvedt, the ``d+`` type layer bound, applied to each packet.
    """
    value = _largest_over_packets(instance, layers_value)
    if value is None:
        return None
    return Bound(
        "packet-layers",
        _LOWER,
        value,
        "Ivanova-Haugland-Tvedt (d+ type) per packet: a schedule kept to one packet "
        "broadcasts it, one neighbour per node and round",
    )


def packet_ranks_bound(instance: Instance) -> Bound | None:
    """The largest ``broadcast-ranks`` bound over the packets (see the module docstring).

    Parameters
    ----------
    instance : Instance

    Returns
    -------
    Bound or None
        None where :func:`packet_layers_bound` is None.

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> packet_ranks_bound(parse_instance("debruijn:6", "telephone", "gossip")).value
    8
    >>> packet_layers_bound(parse_instance("debruijn:6", "telephone", "gossip")).value
    7

    References
    ----------
    .. [1] P. Fraigniaud and E. Lazard, "Methods and problems of communication in usual
       networks", Discrete Applied Mathematics 53 (1994) 79-133 (broadcast trees counted by
       the ranks of their calls), applied to each packet.
    .. [2] R. Beier and J. F. Sibeyn, "A powerful heuristic for telephone gossiping",
       SIROCCO 2000, Table 5 (the graphs it is set beside).
    """
    value = _largest_over_packets(instance, ranks_value)
    if value is None:
        return None
    return Bound(
        "packet-ranks",
        _LOWER,
        value,
        "Fraigniaud-Lazard call ranks per packet: a schedule kept to one packet broadcasts "
        "it, so every packet's broadcast-ranks bound holds",
    )


def packet_walks_bound(instance: Instance) -> Bound | None:
    """The largest ``broadcast-walks`` bound over the packets (see the module docstring).

    Parameters
    ----------
    instance : Instance

    Returns
    -------
    Bound or None
        None where :func:`packet_layers_bound` is None.

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> packet_walks_bound(parse_instance("butterfly:7", "telephone", "gossip")).value
    12
    >>> packet_ranks_bound(parse_instance("butterfly:7", "telephone", "gossip")).value
    11

    References
    ----------
    .. [1] R. Klasing, B. Monien, R. Peine and E. A. Stoehr, "Broadcasting in butterfly and
       deBruijn networks", Discrete Applied Mathematics 53 (1994) (the call sequences that
       reach the far nodes), counted along the graph's walks and applied to each packet.
    """
    value = _largest_over_packets(instance, walks_value)
    if value is None:
        return None
    return Bound(
        "packet-walks",
        _LOWER,
        value,
        "Fraigniaud-Lazard call ranks along the graph's walks, per packet: a schedule kept "
        "to one packet broadcasts it, so every packet's broadcast-walks bound holds",
    )
