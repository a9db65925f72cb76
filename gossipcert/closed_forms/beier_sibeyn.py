"""Beier-Sibeyn: lower bounds of section 2 (telephone, unbounded packets) and the
linear-cost bound (1).

See :mod:`gossipcert.closed_forms` for the conventions every bound follows.

References
----------
.. [1] R. Beier and J. F. Sibeyn, "A powerful heuristic for telephone gossiping", SIROCCO
   2000. Section 2 (graph classes, bound (1)) and section 3 (Lemmas 1-5).
"""

from __future__ import annotations

from gossipcert.closed_forms.base import (
    _BS,
    _LOWER,
    _LOWER_COST,
    Bound,
    _ceil_log2,
    _Factor,
    _family,
    _family_k,
    _grid_factors,
    _structure,
    _telephone_lower_gossip,
)
from gossipcert.instance import Instance

# --------------------------------------------------------------------------------------------
# Beier-Sibeyn: telephone model, unbounded packets (unit cost), linear cost
# --------------------------------------------------------------------------------------------


def beier_sibeyn_linear_cost_bound(instance: Instance) -> Bound | None:
    """Bound (1), on the linear cost: ``T >= ceil(log n) + odd(n) + tau*h*(n - 1)``.

    Kind ``"lower-cost"``: ``value`` is the rounds part ``ceil(log2 n) + odd(n)`` and
    ``cost`` the bound on ``T = R + tau*h*S``. Every node receives ``n - 1`` packets from one
    partner per round, at most ``max_u s_{u,t}`` in round ``t``, so ``S >= n - 1``.

    Parameters
    ----------
    instance : Instance

    Returns
    -------
    Bound or None
        None unless telephone or half-duplex gossip (no routers, ``n >= 2``) with ``tau`` set.

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> b = beier_sibeyn_linear_cost_bound(parse_instance("ring:5", "telephone:tau=0.5",
    ...     "gossip"))
    >>> b.kind, b.value, b.cost
    ('lower-cost', 4, 6.0)

    References
    ----------
    Beier and Sibeyn, section 2, bound (1).
    """
    m = instance.model
    if m.tau is None or not _telephone_lower_gossip(instance) or instance.n < 2:
        return None
    n = instance.n
    rounds = _ceil_log2(n) + n % 2
    return Bound(
        "beier-sibeyn-linear-cost",
        _LOWER_COST,
        rounds,
        f"{_BS} sec. 2, (1): R >= ceil(log n) + odd(n), and S >= n - 1 since every node "
        "receives n - 1 packets from one partner per round",
        cost=rounds + m.tau * m.h * (n - 1),
    )


def beier_sibeyn_path_bound(instance: Instance) -> Bound | None:
    """Lemma 1 (rounds): telephone gossip on a path ``P_n`` takes ``n - 1`` rounds for even
    ``n`` and ``n`` for odd ``n >= 3``.

    The lemma states equality. The lower bound for odd ``n``: in ``n - 1`` rounds the packets
    of both ends must move every round, so edge ``i`` (between nodes ``i`` and ``i + 1``) is
    used in round ``i + 1`` and in round ``n - 1 - i``; in round ``t = (n + 1)/2`` this asks
    for edges ``t - 1`` and ``t - 2`` at once, which share node ``t - 1``. For even ``n`` the
    value is the diameter.

    Parameters
    ----------
    instance : Instance

    Returns
    -------
    Bound or None
        None unless telephone or half-duplex gossip on a graph that is a path.

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> [beier_sibeyn_path_bound(parse_instance(f"path:{n}", "telephone", "gossip")).value
    ...  for n in (4, 5)]
    [3, 5]

    References
    ----------
    Beier and Sibeyn, section 3, Lemma 1 (paths).
    """
    if not _telephone_lower_gossip(instance) or _structure(instance) != "path":
        return None
    n = instance.n
    value = n - 1 if n % 2 == 0 or n == 1 else n
    return Bound(
        "beier-sibeyn-path",
        _LOWER,
        value,
        f"{_BS} Lemma 1: gossip on P_n takes n-1 rounds (n even), n (n odd): "
        "the end packets cannot both move every round",
    )


def beier_sibeyn_cycle_bound(instance: Instance) -> Bound | None:
    """Lemma 1 (rounds): telephone gossip on the cycle ``C_n`` takes ``n/2`` rounds for even
    ``n`` and ``floor(n/2) + 2`` for odd ``n``.

    The lemma gives schedules of these lengths. Lower bound for odd ``n = 2k + 1``: some node
    ``w`` is idle in round 1 (an odd cycle has no perfect matching); in ``k + 1`` rounds its
    packet would have to reach both nodes at distance ``k`` by moving every round from round 2
    on, clockwise and counterclockwise, but ``w`` calls only one neighbour in round 2. For
    even ``n`` the value is the diameter.

    Parameters
    ----------
    instance : Instance

    Returns
    -------
    Bound or None
        None unless telephone or half-duplex gossip on a graph that is a cycle.

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> [beier_sibeyn_cycle_bound(parse_instance(f"ring:{n}", "telephone", "gossip")).value
    ...  for n in (8, 9)]
    [4, 6]

    References
    ----------
    Beier and Sibeyn, section 3, Lemma 1, (2) and (3).
    """
    if not _telephone_lower_gossip(instance) or _structure(instance) != "cycle":
        return None
    n = instance.n
    value = n // 2 if n % 2 == 0 else n // 2 + 2
    return Bound(
        "beier-sibeyn-cycle",
        _LOWER,
        value,
        f"{_BS} Lemma 1: gossip on C_n takes n/2 (even) or floor(n/2)+2 (odd) rounds: "
        "a node idle in round 1 cannot send both ways in round 2",
    )


def _two_grid_factors(instance: Instance) -> tuple[_Factor, _Factor] | None:
    factors = _grid_factors(instance)
    if factors is None or len(factors) != 2:
        return None
    return factors[0], factors[1]


def beier_sibeyn_mesh_bound(instance: Instance) -> Bound | None:
    """Section 2: ``LW = a + b - 2`` for gossip on the ``a x b`` mesh (its diameter).

    Parameters
    ----------
    instance : Instance

    Returns
    -------
    Bound or None
        None unless telephone or half-duplex gossip on a verified two-dimensional product of
        paths (``mesh:AxB``, ``path:A*path:B``), both sides at least 2.

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> beier_sibeyn_mesh_bound(parse_instance("mesh:3x4", "telephone", "gossip")).value
    5

    References
    ----------
    Beier and Sibeyn, section 2 ("Mesh_{a x b}: ... LW = a + b - 2").
    """
    pair = _two_grid_factors(instance)
    if not _telephone_lower_gossip(instance) or pair is None:
        return None
    (a, wa), (b, wb) = pair
    if (wa and a > 2) or (wb and b > 2):
        return None  # a cycle factor: a torus, whose diameter is smaller
    return Bound(
        "beier-sibeyn-mesh",
        _LOWER,
        a + b - 2,
        f"{_BS} sec. 2: LW = a + b - 2 on the a x b mesh (the diameter)",
    )


def beier_sibeyn_torus_bound(instance: Instance) -> Bound | None:
    """Section 2: ``LW = (a + b)/2`` for gossip on the ``a x b`` torus, read as the diameter
    ``floor(a/2) + floor(b/2)``.

    The OCR'd statement ``(a + b)/2`` exceeds the diameter when a side is odd, and no
    argument for that is given; the conservative reading (equal to ``(a + b)/2`` for even
    sides) is used.

    Parameters
    ----------
    instance : Instance

    Returns
    -------
    Bound or None
        None unless telephone or half-duplex gossip on a verified product of two rings
        (``torus:AxB``, ``ring:A*ring:B``; a 2-node factor counts as a ring).

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> beier_sibeyn_torus_bound(parse_instance("torus:4x6", "telephone", "gossip")).value
    5

    References
    ----------
    Beier and Sibeyn, section 2 ("Torus_{a x b}: ... LW = (a + b)/2").
    """
    pair = _two_grid_factors(instance)
    if not _telephone_lower_gossip(instance) or pair is None:
        return None
    (a, wa), (b, wb) = pair
    if not (wa and wb):
        return None
    return Bound(
        "beier-sibeyn-torus",
        _LOWER,
        a // 2 + b // 2,
        f"{_BS} sec. 2: LW = (a + b)/2 on the a x b torus, read as the diameter "
        "floor(a/2) + floor(b/2)",
    )


def beier_sibeyn_hypercube_bound(instance: Instance) -> Bound | None:
    """Section 2: ``LW = k`` for gossip on the ``k``-dimensional hypercube (``2^k`` nodes).

    Parameters
    ----------
    instance : Instance

    Returns
    -------
    Bound or None
        None unless telephone or half-duplex gossip on a verified ``hypercube:K``.

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> beier_sibeyn_hypercube_bound(parse_instance("hypercube:4", "telephone",
    ...     "gossip")).value
    4

    References
    ----------
    Beier and Sibeyn, section 2 ("Hypercube_k: ... LW = k, UP = k").
    """
    k = _family_k(instance, "hypercube")
    if k is None or not _telephone_lower_gossip(instance):
        return None
    return Bound(
        "beier-sibeyn-hypercube",
        _LOWER,
        k,
        f"{_BS} sec. 2: LW = k on Hypercube_k (knowledge at most doubles per round)",
    )


def _knodel_params(instance: Instance) -> tuple[int, int] | None:
    fam = _family(instance)
    if fam is None or fam[0] != "knodel":
        return None
    try:
        values = [int(x) for x in fam[1].split(",")]
    except ValueError:
        return None
    n = values[0]
    delta = values[1] if len(values) > 1 else n.bit_length() - 1
    return n, delta


def beier_sibeyn_knodel_bound(instance: Instance) -> Bound | None:
    """Section 2: ``LW = ceil(log n)`` for gossip on the Knödel graph ``W_{Delta, n}``.

    Parameters
    ----------
    instance : Instance

    Returns
    -------
    Bound or None
        None unless telephone or half-duplex gossip on a verified ``knodel:N[,D]``.

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> beier_sibeyn_knodel_bound(parse_instance("knodel:12", "telephone", "gossip")).value
    4

    References
    ----------
    Beier and Sibeyn, section 2 ("Knödel_{Delta,k}: ... LW = ceil(log k)").
    """
    params = _knodel_params(instance)
    if params is None or not _telephone_lower_gossip(instance):
        return None
    return Bound(
        "beier-sibeyn-knodel",
        _LOWER,
        _ceil_log2(params[0]),
        f"{_BS} sec. 2: LW = ceil(log n) on Knodel graphs (knowledge at most doubles)",
    )


def beier_sibeyn_ccc_bound(instance: Instance) -> Bound | None:
    """Section 2: ``LW = ceil(5k/2) - 2`` for gossip on ``CCC_k``, ``k >= 5``.

    The value is the broadcast time of ``CCC_k`` from the literature the paper cites; for
    odd ``k`` it is one more than the diameter. It agrees with the LB column of the paper's
    Table 5 for ``k = 5..12``.

    Parameters
    ----------
    instance : Instance

    Returns
    -------
    Bound or None
        None unless telephone or half-duplex gossip on a verified ``ccc:K`` with ``K >= 5``.

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> beier_sibeyn_ccc_bound(parse_instance("ccc:5", "telephone", "gossip")).value
    11

    References
    ----------
    Beier and Sibeyn, section 2 ("CCC_k: ... LW = ceil(5k/2) - 2, for k >= 5") and Table 5.
    """
    k = _family_k(instance, "ccc")
    if k is None or k < 5 or not _telephone_lower_gossip(instance):
        return None
    return Bound(
        "beier-sibeyn-ccc",
        _LOWER,
        (5 * k + 1) // 2 - 2,
        f"{_BS} sec. 2: LW = ceil(5k/2) - 2 on CCC_k for k >= 5 (its broadcast time)",
    )


def beier_sibeyn_se_bound(instance: Instance) -> Bound | None:
    """Section 2: ``LW = 2k - 1`` for gossip on the shuffle-exchange graph ``SE_k`` (its
    diameter).

    Parameters
    ----------
    instance : Instance

    Returns
    -------
    Bound or None
        None unless telephone or half-duplex gossip on a verified ``shuffle-exchange:K``.

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> beier_sibeyn_se_bound(parse_instance("shuffle-exchange:4", "telephone",
    ...     "gossip")).value
    7

    References
    ----------
    Beier and Sibeyn, section 2 ("SE_k: ... LW = 2k - 1, UP = 4k - 3") and Table 5.
    """
    k = _family_k(instance, "shuffle-exchange")
    if k is None or not _telephone_lower_gossip(instance):
        return None
    return Bound(
        "beier-sibeyn-se",
        _LOWER,
        2 * k - 1,
        f"{_BS} sec. 2: LW = 2k - 1 on SE_k (the diameter)",
    )
