"""Bermond-Gargano-Perennes 1998: sequential telephone gossip with packets of ``p`` blocks.

See :mod:`gossipcert.closed_forms` for the conventions every bound follows.

References
----------
.. [1] J.-C. Bermond, L. Gargano, S. Perennes, "Optimal sequential gossiping by short
   messages", Discrete Applied Mathematics 86 (1998) 145-155. Bound (1), Theorem 2.1,
   Theorem 3.1.
"""

from __future__ import annotations

import math
from fractions import Fraction

from gossipcert.closed_forms.base import _BGP, _LOWER, _UPPER, Bound, _complete, _is_gossip
from gossipcert.instance import Instance, ModelKind

# --------------------------------------------------------------------------------------------
# Bermond-Gargano-Perennes 1998: sequential telephone gossip with packets of p blocks
# --------------------------------------------------------------------------------------------


def _sequential_gossip(instance: Instance) -> bool:
    m = instance.model
    return m.kind is ModelKind.TELEPHONE and m.calls_per_round == 1 and _is_gossip(instance)


def _classical_calls(n: int) -> int:
    """Minimum number of calls of gossip among ``n`` nodes with unbounded packets."""
    return {1: 0, 2: 1, 3: 3}.get(n, 2 * n - 4)


def bermond_1_bound(instance: Instance) -> Bound | None:
    """Bound (1): ``c(n, p) >= n^2/(2p) + (p - 2) n / (2p)``.

    ``n(n - 1)`` blocks must be received; a call carries at most ``2p``, and the first call
    of each node carries at most one block from it, so ``2p c - (p - 1) n >= n(n - 1)``.
    Calls on any graph are calls of the complete graph, so the bound holds on every graph.

    Parameters
    ----------
    instance : Instance

    Returns
    -------
    Bound or None
        None unless sequential telephone gossip (``calls_per_round == 1``) with a packet cap,
        no routers, ``n >= 2``.

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> bermond_1_bound(parse_instance("complete:16", "sequential:p=4", "gossip")).value
    36

    References
    ----------
    Bermond, Gargano and Perennes 1998, section 2, (1).
    """
    p = instance.model.packet_cap
    if not _sequential_gossip(instance) or p is None or instance.n < 2:
        return None
    n = instance.n
    value = -(-(n * n + (p - 2) * n) // (2 * p))
    return Bound(
        "bermond-1",
        _LOWER,
        value,
        f"{_BGP}, (1): 2p c - (p-1) n >= n(n-1) blocks (first calls carry one block)",
    )


def bermond_theorem21_bound(instance: Instance) -> Bound | None:
    """Theorem 2.1: for ``p >= 2``, ``n = hp + k >= p + 2`` (``h >= 1``,
    ``2 <= k <= p + 1``), ``c(n, p) >= n^2/(2p) + (1 - k/(2p) - 1/(2(k - 1))) n``.

    Evaluated in the integer form of the proof's last step:
    ``2c >= nh + 2n - floor(n/(k - 1))``.

    Parameters
    ----------
    instance : Instance

    Returns
    -------
    Bound or None
        None unless sequential telephone gossip with a packet cap ``p >= 2``,
        ``n >= p + 2``, no routers.

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> bermond_theorem21_bound(parse_instance("complete:16", "sequential:p=4",
    ...     "gossip")).value
    38

    References
    ----------
    Bermond, Gargano and Perennes 1998, section 2, Theorem 2.1.
    """
    p = instance.model.packet_cap
    n = instance.n
    if not _sequential_gossip(instance) or p is None or p < 2 or n < p + 2:
        return None
    k = (n - 2) % p + 2
    h = (n - k) // p
    twice = n * h + 2 * n - n // (k - 1)
    return Bound(
        "bermond-2.1",
        _LOWER,
        -(-twice // 2),
        f"{_BGP}, Theorem 2.1: counting calls with one received block, n = hp + k",
    )


def bermond_p1_bound(instance: Instance) -> Bound | None:
    """``c(n, 1) = n(n - 1)/2``: with one block per message every node receives each block
    in a different call, two blocks per call.

    Parameters
    ----------
    instance : Instance

    Returns
    -------
    Bound or None
        None unless sequential telephone gossip with ``p = 1``, no routers, ``n >= 2``.

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> bermond_p1_bound(parse_instance("ring:6", "sequential:p=1", "gossip")).value
    15

    References
    ----------
    Bermond, Gargano and Perennes 1998, section 1.1.
    """
    if not _sequential_gossip(instance) or instance.model.packet_cap != 1 or instance.n < 2:
        return None
    n = instance.n
    return Bound(
        "bermond-p1",
        _LOWER,
        n * (n - 1) // 2,
        f"{_BGP}, sec. 1.1: c(n,1) = n(n-1)/2, each call carries two blocks",
    )


def bermond_2n4_bound(instance: Instance) -> Bound | None:
    """``c(n, p) = 2n - 4`` for ``n >= 4`` when packets do not restrict (``n <= p + 1``); as
    a lower bound it holds for every packet cap and every graph (1 call for ``n = 2``, 3 for
    ``n = 3``).

    Parameters
    ----------
    instance : Instance

    Returns
    -------
    Bound or None
        None unless sequential telephone gossip, no routers, ``n >= 2``.

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> bermond_2n4_bound(parse_instance("complete:9", "sequential", "gossip")).value
    14

    References
    ----------
    Bermond, Gargano and Perennes 1998, section 1.1 (citing their [13]).
    """
    if not _sequential_gossip(instance) or instance.n < 2:
        return None
    return Bound(
        "bermond-2n-4",
        _LOWER,
        _classical_calls(instance.n),
        f"{_BGP}, sec. 1.1: gossip among n >= 4 nodes needs 2n - 4 calls (any packet size)",
    )


def _sequential_complete(instance: Instance) -> bool:
    return _sequential_gossip(instance) and _complete(instance)


def bermond_theorem31_upper_bound(instance: Instance) -> Bound | None:
    """Theorem 3.1: a protocol gossips among ``n = hp + k`` nodes of the complete graph with
    at most ``n^2/(2p) + (1 - k/(2p) - 1/(2(k - 1))) n + p`` calls of ``p`` blocks.

    Parameters
    ----------
    instance : Instance

    Returns
    -------
    Bound or None
        None unless sequential telephone gossip on a complete graph with ``p >= 2`` and
        ``n >= p + 2``.

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> bermond_theorem31_upper_bound(parse_instance("complete:16", "sequential:p=4",
    ...     "gossip")).value
    41

    References
    ----------
    Bermond, Gargano and Perennes 1998, section 3, Theorem 3.1.
    """
    p = instance.model.packet_cap
    n = instance.n
    if not _sequential_complete(instance) or p is None or p < 2 or n < p + 2:
        return None
    k = (n - 2) % p + 2
    value = Fraction(n * n, 2 * p) + (1 - Fraction(k, 2 * p) - Fraction(1, 2 * (k - 1))) * n + p
    return Bound(
        "bermond-3.1-upper",
        _UPPER,
        math.floor(value),
        f"{_BGP}, Theorem 3.1: four-phase protocol within p calls of the lower bound (2)",
    )


def bermond_p1_upper_bound(instance: Instance) -> Bound | None:
    """``c(n, 1) = n(n - 1)/2`` on the complete graph: every pair calls once and exchanges
    its own blocks.

    Parameters
    ----------
    instance : Instance

    Returns
    -------
    Bound or None
        None unless sequential telephone gossip on a complete graph with ``p = 1``.

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> bermond_p1_upper_bound(parse_instance("complete:6", "sequential:p=1",
    ...     "gossip")).value
    15

    References
    ----------
    Bermond, Gargano and Perennes 1998, section 1.1.
    """
    if not _sequential_complete(instance) or instance.model.packet_cap != 1:
        return None
    n = instance.n
    return Bound(
        "bermond-p1-upper",
        _UPPER,
        n * (n - 1) // 2,
        f"{_BGP}, sec. 1.1: every pair calls once, exchanging their own blocks",
    )


def bermond_2n4_upper_bound(instance: Instance) -> Bound | None:
    """``c(n, p) = 2n - 4`` (``n >= 4``) on the complete graph when ``n <= p + 1`` or packets
    are unbounded.

    Parameters
    ----------
    instance : Instance

    Returns
    -------
    Bound or None
        None unless sequential telephone gossip on a complete graph with unbounded packets
        or ``p >= n - 1``.

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> bermond_2n4_upper_bound(parse_instance("complete:9", "sequential", "gossip")).value
    14

    References
    ----------
    Bermond, Gargano and Perennes 1998, section 1.1 (citing their [13]).
    """
    p = instance.model.packet_cap
    if not _sequential_complete(instance) or instance.n < 2:
        return None
    if p is not None and p < instance.n - 1:
        return None
    return Bound(
        "bermond-2n-4-upper",
        _UPPER,
        _classical_calls(instance.n),
        f"{_BGP}, sec. 1.1: 2n - 4 calls suffice when a call may carry every block",
    )
