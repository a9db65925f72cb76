"""Beier-Sibeyn: upper bounds of sections 2 and 3 (Lemmas 1-5 and the families of Table 1).

See :mod:`gossipcert.closed_forms` for the conventions every bound follows.

References
----------
.. [1] R. Beier and J. F. Sibeyn, "A powerful heuristic for telephone gossiping", SIROCCO
   2000. Section 2 (graph classes, bound (1)) and section 3 (Lemmas 1-5).
"""

from __future__ import annotations

from collections.abc import Callable

from gossipcert.closed_forms.base import (
    _BS,
    _UPPER,
    Bound,
    _ceil_log2,
    _family_k,
    _grid_factors,
    _structure,
    _telephone_upper,
)
from gossipcert.closed_forms.beier_sibeyn import _knodel_params, _two_grid_factors
from gossipcert.instance import Instance


def beier_sibeyn_path_upper_bound(instance: Instance) -> Bound | None:
    """Lemma 1 (rounds): telephone gossip on ``P_n`` in ``n - 1`` rounds (``n`` even) and
    ``n`` rounds (``n`` odd), alternating the matchings ``(2i, 2i+1)`` and ``(2i+1, 2i+2)``.

    Parameters
    ----------
    instance : Instance

    Returns
    -------
    Bound or None
        None unless the telephone model with unbounded packets and no limit on calls per
        round, no routers, and the graph is a path.

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> beier_sibeyn_path_upper_bound(parse_instance("path:7", "telephone", "gossip")).value
    7

    References
    ----------
    Beier and Sibeyn, section 3, Lemma 1.
    """
    if not _telephone_upper(instance) or _structure(instance) != "path":
        return None
    n = instance.n
    value = n - 1 if n % 2 == 0 or n == 1 else n
    return Bound(
        "beier-sibeyn-path-upper",
        _UPPER,
        value,
        f"{_BS} Lemma 1: alternating matchings gossip on P_n in n-1 (even) or n (odd) rounds",
    )


def beier_sibeyn_cycle_upper_bound(instance: Instance) -> Bound | None:
    """Lemma 1 (rounds): telephone gossip on the cycle ``C_n`` in ``n/2`` rounds (``n``
    even) and ``floor(n/2) + 2`` rounds (``n`` odd).

    Parameters
    ----------
    instance : Instance

    Returns
    -------
    Bound or None
        None unless the telephone model with unbounded packets and no limit on calls per
        round, no routers, and the graph is a cycle.

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> [beier_sibeyn_cycle_upper_bound(parse_instance(f"ring:{n}", "telephone",
    ...     "gossip")).value for n in (8, 9)]
    [4, 6]

    References
    ----------
    Beier and Sibeyn, section 3, Lemma 1, (2) and (3).
    """
    if not _telephone_upper(instance) or _structure(instance) != "cycle":
        return None
    n = instance.n
    value = n // 2 if n % 2 == 0 else n // 2 + 2
    return Bound(
        "beier-sibeyn-cycle-upper",
        _UPPER,
        value,
        f"{_BS} Lemma 1: gossip on C_n in n/2 (even) or floor(n/2)+2 (odd) rounds",
    )


def beier_sibeyn_mesh_upper_bound(instance: Instance) -> Bound | None:
    """Lemma 2 (rounds), meshes: gossip in the rows, then in the columns (pairs of lines
    form cycles of even length): ``a + b - 1`` if ``a`` or ``b`` is even, ``a + b`` if both
    are odd.

    A product of a path and a cycle contains the mesh as a spanning subgraph, so the bound
    holds for it too.

    Parameters
    ----------
    instance : Instance

    Returns
    -------
    Bound or None
        None unless the telephone model with unbounded packets and no limit on calls per
        round, and a verified product of two paths or cycles, each with at least 2 nodes.

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> [beier_sibeyn_mesh_upper_bound(parse_instance(f"mesh:{s}", "telephone",
    ...     "gossip")).value for s in ("4x6", "4x5", "3x5")]
    [9, 8, 8]

    References
    ----------
    Beier and Sibeyn, section 3, Lemma 2, (4)-(5) and the case ``a, b`` odd.
    """
    pair = _two_grid_factors(instance)
    if not _telephone_upper(instance) or pair is None:
        return None
    (a, _), (b, _) = pair
    value = a + b if a % 2 == 1 and b % 2 == 1 else a + b - 1
    return Bound(
        "beier-sibeyn-mesh-upper",
        _UPPER,
        value,
        f"{_BS} Lemma 2: rows then columns: a + b - 1 (a or b even), a + b (both odd)",
    )


def beier_sibeyn_mesh_lemma3_upper_bound(instance: Instance) -> Bound | None:
    """Lemma 3 (rounds): on the ``a x b`` mesh with ``a, b`` odd, ``a + (3b + 3)/2`` rounds
    (gossip in the rows, then in strips of two columns and one of three).

    Never better in rounds than :func:`beier_sibeyn_mesh_upper_bound`; it trades rounds for
    steps in the linear-cost model. Both orientations are valid; the smaller is reported.

    Parameters
    ----------
    instance : Instance

    Returns
    -------
    Bound or None
        None unless the telephone model with unbounded packets and no limit on calls per
        round, and a verified product of two paths or cycles of odd lengths ``>= 3``.

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> beier_sibeyn_mesh_lemma3_upper_bound(parse_instance("mesh:3x7", "telephone",
    ...     "gossip")).value
    13

    References
    ----------
    Beier and Sibeyn, section 3, Lemma 3.
    """
    pair = _two_grid_factors(instance)
    if not _telephone_upper(instance) or pair is None:
        return None
    (a, _), (b, _) = pair
    if a % 2 == 0 or b % 2 == 0 or a < 3 or b < 3:
        return None
    value = min(a + (3 * b + 3) // 2, b + (3 * a + 3) // 2)
    return Bound(
        "beier-sibeyn-mesh-lemma3-upper",
        _UPPER,
        value,
        f"{_BS} Lemma 3: odd a x b mesh in a + (3b+3)/2 rounds",
    )


def beier_sibeyn_mesh_lemma4_upper_bound(instance: Instance) -> Bound | None:
    """Lemma 4 (rounds): on the ``a x b`` mesh with ``a, b`` odd, for odd ``3 <= k < b``,
    ``a + b + ceil(k/2)`` rounds; ``k = 3`` gives the fewest, ``a + b + 2``.

    The rounds term is OCR-damaged; this reading follows the proof (``a`` rounds in the rows,
    ``(2b + k - 1)/2`` rounds in the strips and one more round). Any reading at least
    ``a + b`` is a true upper bound, since :func:`beier_sibeyn_mesh_upper_bound` gives
    ``a + b`` for odd meshes; the lemma trades rounds for steps.

    Parameters
    ----------
    instance : Instance

    Returns
    -------
    Bound or None
        None unless the telephone model with unbounded packets and no limit on calls per
        round, and a verified product of two paths or cycles of odd lengths, one ``>= 3``
        and the other ``>= 5``.

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> beier_sibeyn_mesh_lemma4_upper_bound(parse_instance("mesh:3x5", "telephone",
    ...     "gossip")).value
    10

    References
    ----------
    Beier and Sibeyn, section 3, Lemma 4.
    """
    pair = _two_grid_factors(instance)
    if not _telephone_upper(instance) or pair is None:
        return None
    (a, _), (b, _) = pair
    if a % 2 == 0 or b % 2 == 0 or min(a, b) < 3 or max(a, b) < 5:
        return None
    return Bound(
        "beier-sibeyn-mesh-lemma4-upper",
        _UPPER,
        a + b + 2,
        f"{_BS} Lemma 4 with k = 3: odd a x b mesh in a + b + ceil(k/2) rounds",
    )


def beier_sibeyn_torus_upper_bound(instance: Instance) -> Bound | None:
    """Lemma 2 (rounds), tori: gossip in the row cycles, then in the column cycles.

    ``a/2 + b/2`` for ``a, b`` even (6); ``ceil(a/2) + b/2 + 2`` for ``a`` odd, ``b`` even
    (7); ``ceil(a/2) + floor(b/2) + 4`` for ``a, b`` odd (8). The OCR leaves floor and
    ceiling of ``a/2`` unreadable in (7) and (8); the larger (conservative) reading is used.

    Parameters
    ----------
    instance : Instance

    Returns
    -------
    Bound or None
        None unless the telephone model with unbounded packets and no limit on calls per
        round, and a verified product of two cycles (a 2-node factor counts as a cycle).

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> [beier_sibeyn_torus_upper_bound(parse_instance(f"torus:{s}", "telephone",
    ...     "gossip")).value for s in ("4x6", "3x4", "3x5")]
    [5, 6, 8]

    References
    ----------
    Beier and Sibeyn, section 3, Lemma 2, (6)-(8).
    """
    pair = _two_grid_factors(instance)
    if not _telephone_upper(instance) or pair is None:
        return None
    (a, wa), (b, wb) = pair
    if not (wa and wb):
        return None
    if a % 2 == 0 and b % 2 == 0:
        value = a // 2 + b // 2
    elif a % 2 == 1 and b % 2 == 1:
        value = (a + 1) // 2 + b // 2 + 4
    else:
        odd, even = (a, b) if a % 2 == 1 else (b, a)
        value = (odd + 1) // 2 + even // 2 + 2
    return Bound(
        "beier-sibeyn-torus-upper",
        _UPPER,
        value,
        f"{_BS} Lemma 2, (6)-(8): row cycles then column cycles (Lemma 1 for each)",
    )


def beier_sibeyn_lemma5_upper_bound(instance: Instance) -> Bound | None:
    """Lemma 5 (rounds): gossip on ``d``-dimensional meshes and tori with all sides even.

    Meshes: ``sum(a_i) - d + 1`` (phase ``j`` on cycles of length ``2 a_j``, first round of
    each later phase omitted). Tori: ``sum(a_i / 2)``. Products mixing paths and cycles
    contain the mesh as a spanning subgraph and get the mesh value.

    Parameters
    ----------
    instance : Instance

    Returns
    -------
    Bound or None
        None unless the telephone model with unbounded packets and no limit on calls per
        round, and a verified product of ``d >= 2`` paths or cycles, all of even length
        (hypercubes are products of K2, which counts as a cycle).

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> beier_sibeyn_lemma5_upper_bound(parse_instance("ring:4*ring:4*ring:6",
    ...     "telephone", "gossip")).value
    7
    >>> beier_sibeyn_lemma5_upper_bound(parse_instance("path:4*path:2*path:6",
    ...     "telephone", "gossip")).value
    10

    References
    ----------
    Beier and Sibeyn, section 3, Lemma 5.
    """
    factors = _grid_factors(instance)
    if not _telephone_upper(instance) or factors is None or len(factors) < 2:
        return None
    if any(a % 2 for a, _ in factors):
        return None
    if all(w for _, w in factors):
        value = sum(a // 2 for a, _ in factors)
    else:
        value = sum(a for a, _ in factors) - len(factors) + 1
    return Bound(
        "beier-sibeyn-lemma5-upper",
        _UPPER,
        value,
        f"{_BS} Lemma 5: d-dimensional even meshes sum(a_i) - d + 1, tori sum(a_i/2)",
    )


def beier_sibeyn_hypercube_upper_bound(instance: Instance) -> Bound | None:
    """Section 2: ``UP = k`` for gossip on ``Hypercube_k`` (exchange along dimension
    ``0, 1, ..., k-1``).

    Parameters
    ----------
    instance : Instance

    Returns
    -------
    Bound or None
        None unless the telephone model with unbounded packets and no limit on calls per
        round on a verified ``hypercube:K``.

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> beier_sibeyn_hypercube_upper_bound(parse_instance("hypercube:5", "telephone",
    ...     "gossip")).value
    5

    References
    ----------
    Beier and Sibeyn, section 2 ("Hypercube_k: ... UP = k").
    """
    k = _family_k(instance, "hypercube")
    if k is None or not _telephone_upper(instance):
        return None
    return Bound(
        "beier-sibeyn-hypercube-upper",
        _UPPER,
        k,
        f"{_BS} sec. 2: UP = k on Hypercube_k (one dimension per round)",
    )


def beier_sibeyn_knodel_upper_bound(instance: Instance) -> Bound | None:
    """Section 2: ``UP = ceil(log n)`` for gossip on the Knödel graph of degree
    ``Delta = floor(log2 n)`` (one dimension per round).

    The OCR does not show whether the degree is ``floor`` or ``ceil(log n)``; graphs of
    this package have ``Delta <= floor(log2 n)``, so the bound is given for the largest one,
    the family's default.

    Parameters
    ----------
    instance : Instance

    Returns
    -------
    Bound or None
        None unless the telephone model with unbounded packets and no limit on calls per
        round on a verified ``knodel:N`` with degree ``floor(log2 N)``.

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> beier_sibeyn_knodel_upper_bound(parse_instance("knodel:12", "telephone",
    ...     "gossip")).value
    4

    References
    ----------
    Beier and Sibeyn, section 2 ("Knödel_{Delta,k}: ... UP = ceil(log k), for
    Delta = log k"); W. Knödel, Discrete Math. 13 (1975) 95.
    """
    params = _knodel_params(instance)
    if params is None or not _telephone_upper(instance):
        return None
    n, delta = params
    if delta != n.bit_length() - 1:
        return None
    return Bound(
        "beier-sibeyn-knodel-upper",
        _UPPER,
        _ceil_log2(n),
        f"{_BS} sec. 2: UP = ceil(log n) on the Knodel graph of degree floor(log n)",
    )


def _family_upper(
    instance: Instance,
    family: str,
    minimum: int,
    name: str,
    formula: Callable[[int], int],
    text: str,
) -> Bound | None:
    k = _family_k(instance, family)
    if k is None or k < minimum or not _telephone_upper(instance):
        return None
    return Bound(name, _UPPER, formula(k), f"{_BS} sec. 2 and Table 5: {text} (from their [12])")


def beier_sibeyn_ccc_upper_bound(instance: Instance) -> Bound | None:
    """Section 2: ``UP = 5 ceil(k/2)`` for gossip on ``CCC_k`` (Table 5: 10, 10, 15, ...).

    Parameters
    ----------
    instance : Instance

    Returns
    -------
    Bound or None
        None unless the telephone model with unbounded packets and no limit on calls per
        round on a verified ``ccc:K``.

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> beier_sibeyn_ccc_upper_bound(parse_instance("ccc:3", "telephone", "gossip")).value
    10

    References
    ----------
    Beier and Sibeyn, section 2 and Table 5 (former upper bound of their [12]).
    """
    return _family_upper(
        instance, "ccc", 3, "beier-sibeyn-ccc-upper", lambda k: 5 * ((k + 1) // 2), "5 ceil(k/2)"
    )


def beier_sibeyn_se_upper_bound(instance: Instance) -> Bound | None:
    """Section 2: ``UP = 4k - 3`` for gossip on ``SE_k``, ``k >= 3`` (Table 5: 9, 13, 17).

    Parameters
    ----------
    instance : Instance

    Returns
    -------
    Bound or None
        None unless the telephone model with unbounded packets and no limit on calls per
        round on a verified ``shuffle-exchange:K``, ``K >= 3``.

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> beier_sibeyn_se_upper_bound(parse_instance("shuffle-exchange:3", "telephone",
    ...     "gossip")).value
    9

    References
    ----------
    Beier and Sibeyn, section 2, section 7 and Table 5.
    """
    return _family_upper(
        instance, "shuffle-exchange", 3, "beier-sibeyn-se-upper", lambda k: 4 * k - 3, "4k - 3"
    )


def beier_sibeyn_butterfly_upper_bound(instance: Instance) -> Bound | None:
    """Section 2: ``UP = 5 ceil(k/2)`` for gossip on the wrapped butterfly ``Butterfly_k``
    (Table 1: 25 for ``k = 10``).

    The section-2 lower bound ``1.741 k`` holds only for ``k >> 1`` and is not used.

    Parameters
    ----------
    instance : Instance

    Returns
    -------
    Bound or None
        None unless the telephone model with unbounded packets and no limit on calls per
        round on a verified ``butterfly:K``.

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> beier_sibeyn_butterfly_upper_bound(parse_instance("butterfly:3", "telephone",
    ...     "gossip")).value
    10

    References
    ----------
    Beier and Sibeyn, section 2, section 7, Tables 1 and 5.
    """
    return _family_upper(
        instance,
        "butterfly",
        3,
        "beier-sibeyn-butterfly-upper",
        lambda k: 5 * ((k + 1) // 2),
        "5 ceil(k/2)",
    )


def beier_sibeyn_debruijn_upper_bound(instance: Instance) -> Bound | None:
    """Section 2: ``UP = 3k + 2`` for gossip on ``DeBruijn_k``, ``k >= 3`` (Table 1: 41 for
    ``k = 13``).

    The section-2 lower bound ``1.317 k`` holds only for ``k >> 1`` and is not used.

    Parameters
    ----------
    instance : Instance

    Returns
    -------
    Bound or None
        None unless the telephone model with unbounded packets and no limit on calls per
        round on a verified ``debruijn:K``, ``K >= 3``.

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> beier_sibeyn_debruijn_upper_bound(parse_instance("debruijn:4", "telephone",
    ...     "gossip")).value
    14

    References
    ----------
    Beier and Sibeyn, section 2, section 7, Tables 1 and 5.
    """
    return _family_upper(
        instance, "debruijn", 3, "beier-sibeyn-debruijn-upper", lambda k: 3 * k + 2, "3k + 2"
    )


def _star_pancake_value(k: int) -> int:
    return k + sum(_ceil_log2(i) for i in range(3, k))


def beier_sibeyn_star_pancake_upper_bound(instance: Instance) -> Bound | None:
    """Section 2: ``UP = k + sum_{i=3}^{k-1} ceil(log i)`` for gossip on ``Star_k`` and
    ``Pancake_k``, ``k >= 3``.

    The summation limits are OCR-damaged; this reading reproduces the values the paper
    quotes for the construction of its [3] (3, 6, 9, 13, 17, 21 for ``k = 3..8``, section 7)
    and ``UP = 17`` for ``Pancake_7`` in Table 1.

    Parameters
    ----------
    instance : Instance

    Returns
    -------
    Bound or None
        None unless the telephone model with unbounded packets and no limit on calls per
        round on a verified ``star-graph:K`` or ``pancake:K``, ``K >= 3``.

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> beier_sibeyn_star_pancake_upper_bound(parse_instance("pancake:4", "telephone",
    ...     "gossip")).value
    6

    References
    ----------
    Beier and Sibeyn, section 2, section 7 and Table 1.
    """
    for family in ("star-graph", "pancake"):
        bound = _family_upper(
            instance,
            family,
            3,
            "beier-sibeyn-star-pancake-upper",
            _star_pancake_value,
            "k + sum_{i=3}^{k-1} ceil(log i)",
        )
        if bound is not None:
            return bound
    return None
