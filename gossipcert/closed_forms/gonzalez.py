"""Gonzalez 2003: multicast, one packet per transmission.

See :mod:`gossipcert.closed_forms` for the conventions every bound follows.

References
----------
.. [1] T. F. Gonzalez, "An efficient algorithm for gossiping in the multicasting
   communication environment", IEEE TPDS 14(7), 2003. Sections 1-4.
"""

from __future__ import annotations

import networkx as nx

from gossipcert.closed_forms.base import (
    _GON,
    _LOWER,
    _UPPER,
    Bound,
    _gossip_upper_applies,
    _has_routers,
    _holders,
    _is_gossip,
    _radius,
    _structure,
)
from gossipcert.closed_forms.hamiltonian import _hamiltonian
from gossipcert.instance import Instance, ModelKind, ProblemKind

# --------------------------------------------------------------------------------------------
# Gonzalez 2003: multicast, one packet per transmission
# --------------------------------------------------------------------------------------------


def _multicast_p1_gossip(instance: Instance) -> bool:
    m = instance.model
    return m.kind is ModelKind.MULTICAST and m.packet_cap == 1 and _is_gossip(instance)


def gonzalez_receive_bound(instance: Instance) -> Bound | None:
    """Section 1: every processor receives ``n - 1`` messages, at most one per time unit.

    Parameters
    ----------
    instance : Instance

    Returns
    -------
    Bound or None
        None unless multicast gossip with ``p = 1`` and no routers.

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> gonzalez_receive_bound(parse_instance("petersen", "multicast", "gossip")).value
    9

    References
    ----------
    Gonzalez 2003, section 1 ("n - 1 is a trivial lower bound").
    """
    if not _multicast_p1_gossip(instance):
        return None
    return Bound(
        "gonzalez-receive",
        _LOWER,
        instance.n - 1,
        f"{_GON}, sec. 1: each processor receives n-1 messages, one per time unit",
    )


def gonzalez_odd_path_bound(instance: Instance) -> Bound | None:
    """Section 1: multicast gossip on a path with ``n = 2m + 1`` nodes needs ``n + r - 1``
    rounds (``r = m`` the radius).

    The centre receives its ``n - 1`` messages one per round, the last one no earlier than
    round ``n - 1``; it came from one side and still has to reach the end of the other side,
    ``m`` rounds away.

    Parameters
    ----------
    instance : Instance

    Returns
    -------
    Bound or None
        None unless multicast gossip with ``p = 1`` on a path with an odd number ``n >= 3``
        of nodes.

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> gonzalez_odd_path_bound(parse_instance("path:7", "multicast", "gossip")).value
    9

    References
    ----------
    Gonzalez 2003, section 1 (straight line with ``2m + 1`` processors) and section 4.
    """
    if not _multicast_p1_gossip(instance) or _structure(instance) != "path":
        return None
    n = instance.n
    if n < 3 or n % 2 == 0:
        return None
    return Bound(
        "gonzalez-odd-path",
        _LOWER,
        n + (n - 1) // 2 - 1,
        f"{_GON}, sec. 1: the centre's last message arrives at n-1 and needs r more rounds",
    )


def _gonzalez_upper(instance: Instance) -> bool:
    return (
        _gossip_upper_applies(instance, {ModelKind.MULTICAST}, unbounded=False) and instance.n >= 3
    )


def gonzalez_n_plus_r_upper_bound(instance: Instance) -> Bound | None:
    """Theorem 1: procedure ConcurrentUpDown gossips in ``n + r`` rounds on any network with
    ``n`` processors and radius ``r`` (on a minimum-depth spanning tree).

    Parameters
    ----------
    instance : Instance

    Returns
    -------
    Bound or None
        None unless the multicast model (any packet cap) with no limit on transmissions per
        round, gossip (any problem with unbounded packets), no routers, ``n >= 3``.

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> gonzalez_n_plus_r_upper_bound(parse_instance("path:7", "multicast", "gossip")).value
    10

    References
    ----------
    Gonzalez 2003, section 3.2, Theorem 1.
    """
    if not _gonzalez_upper(instance):
        return None
    return Bound(
        "gonzalez-n-plus-r-upper",
        _UPPER,
        instance.n + _radius(instance),
        f"{_GON}, Theorem 1: ConcurrentUpDown takes n + r rounds",
    )


def gonzalez_simple_upper_bound(instance: Instance) -> Bound | None:
    """Lemma 1: procedure Simple (everything up to the root, then down) gossips in
    ``2n + r - 3`` rounds on a spanning tree of height ``r`` (the radius).

    Parameters
    ----------
    instance : Instance

    Returns
    -------
    Bound or None
        As for :func:`gonzalez_n_plus_r_upper_bound`.

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> gonzalez_simple_upper_bound(parse_instance("path:7", "multicast", "gossip")).value
    14

    References
    ----------
    Gonzalez 2003, section 3.2, Lemma 1.
    """
    if not _gonzalez_upper(instance):
        return None
    return Bound(
        "gonzalez-simple-upper",
        _UPPER,
        2 * instance.n + _radius(instance) - 3,
        f"{_GON}, Lemma 1: procedure Simple takes 2n + r - 3 rounds",
    )


def gonzalez_updown_upper_bound(instance: Instance) -> Bound | None:
    """Procedure UpDown (Gonzalez's [15]): phases of ``n - 1 + r`` and ``2(r - 1) + 1``
    steps, ``n + 3r - 2`` in total.

    Parameters
    ----------
    instance : Instance

    Returns
    -------
    Bound or None
        As for :func:`gonzalez_n_plus_r_upper_bound`.

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> gonzalez_updown_upper_bound(parse_instance("path:7", "multicast", "gossip")).value
    14

    References
    ----------
    Gonzalez 2003, section 3.2 (procedure UpDown).
    """
    if not _gonzalez_upper(instance):
        return None
    r = _radius(instance)
    return Bound(
        "gonzalez-updown-upper",
        _UPPER,
        instance.n - 1 + r + 2 * (r - 1) + 1,
        f"{_GON}, sec. 3.2: UpDown takes (n - 1 + r) + (2(r - 1) + 1) rounds",
    )


def gonzalez_hamiltonian_upper_bound(instance: Instance) -> Bound | None:
    """Section 1: with a Hamiltonian circuit, every processor forwards clockwise the message
    it just received: gossip in ``n - 1`` rounds.

    Parameters
    ----------
    instance : Instance

    Returns
    -------
    Bound or None
        None unless the multicast model with no limit on transmissions per round, gossip
        (any problem with unbounded packets), no routers, and a Hamiltonian cycle was found
        (graphs with 1 or 2 nodes count as rings).

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> gonzalez_hamiltonian_upper_bound(parse_instance("ring:6", "multicast",
    ...     "gossip")).value
    5

    References
    ----------
    Gonzalez 2003, section 1 (network N_1, Fig. 1).
    """
    if not _gossip_upper_applies(instance, {ModelKind.MULTICAST}, unbounded=False):
        return None
    n = instance.n
    if n >= 3 and not _hamiltonian(instance):
        return None
    return Bound(
        "gonzalez-hamiltonian-upper",
        _UPPER,
        max(n - 1, 0),
        f"{_GON}, sec. 1: messages rotate along a Hamiltonian circuit in n - 1 rounds",
    )


def gonzalez_broadcast_upper_bound(instance: Instance) -> Bound | None:
    """Section 2: broadcasting under multicast takes the eccentricity of the source (every
    node forwards to all uninformed neighbours, one sender per receiver).

    Parameters
    ----------
    instance : Instance

    Returns
    -------
    Bound or None
        None unless multicast broadcast, no limit on transmissions per round, no routers.

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> gonzalez_broadcast_upper_bound(parse_instance("mesh:3x4", "multicast",
    ...     "broadcast:0")).value
    5
    >>> gonzalez_broadcast_upper_bound(parse_instance("path:5", "multicast",
    ...     "broadcast:0,4")).value  # from both ends, every node within 2
    2

    References
    ----------
    Gonzalez 2003, section 2 ("Broadcasting under our communication model is trivial").
    """
    m = instance.model
    if m.kind is not ModelKind.MULTICAST or m.calls_per_round is not None:
        return None
    if instance.problem.kind is not ProblemKind.BROADCAST or _has_routers(instance):
        return None
    if m.packet_cap is not None and m.packet_cap < instance.n_packets:
        return None  # chunks that cannot travel together: flooding them takes longer
    sources = _holders(instance)[0]  # one node, or a set (broadcast:0,5): flood from all
    ecc = max(nx.multi_source_dijkstra_path_length(instance.graph, set(sources)).values())
    return Bound(
        "gonzalez-broadcast-upper",
        _UPPER,
        ecc,
        f"{_GON}, sec. 2: multicast broadcast along shortest paths takes the eccentricity",
    )
