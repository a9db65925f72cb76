"""The number of calls of the sequential gossip protocol of Bermond, Gargano and Pérennes
[1]_, counted phase by phase, the number of its type-k nodes, its Theorem 3.1 bound and the
lower bounds of section 2.

Number of calls: ``n - 1 + p + floor((h-1)/2) n`` plus ``ceil((n - N_k)/2)`` (``h`` odd) or
``ceil(N_k/2) + n - N_k`` (``h`` even), ``N_k`` the number of type-k nodes; at most
``n^2/2p + (1 - k/2p - 1/(2(k-1))) n + p`` (Theorem 3.1), within ``p`` of the lower bound (2)
of Theorem 2.1. The paper takes ``N_k = ceil(n/(k-1))``; for some ``n`` there is one type-k
node more (:func:`type_k_count`), and phase 4 then needs one call fewer than counted there.

References
----------
.. [1] J.-C. Bermond, L. Gargano and S. Pérennes, "Optimal sequential gossiping by short
   messages", Discrete Applied Mathematics 86 (1998), pp. 145-155. Section 2 (bounds (1),
   (2), Theorem 2.1), section 3 (Theorem 3.1, the protocol, Examples 3.1 and 3.2).
"""

from __future__ import annotations

from gossipcert.constructions.bermond_phases import split_n


def type_k_count(n: int, p: int) -> int:
    """The number ``N_k`` of type-k nodes after phase 2: the labels ``i = p - 1 (mod k - 1)``
    and ``n - 1``.

    Section 3 of [1]_ counts ``ceil(n/(k - 1))`` of them. That is exact unless ``n - 1`` is
    not ``p - 1 (mod k - 1)`` while that residue occurs ``ceil(n/(k - 1))`` times among
    ``0 .. n-1``; then there is one more.

    Examples
    --------
    >>> type_k_count(16, 4), type_k_count(22, 9), type_k_count(6, 3)
    (6, 8, 4)
    """
    _, k = split_n(n, p)
    residue = (p - 1) % (k - 1)
    count = (n - 1 - residue) // (k - 1) + 1
    return count + ((n - 1) % (k - 1) != residue)


def bermond_call_count(n: int, p: int, *, type_k: int | None = None) -> int:
    """The calls of the protocol, counted phase by phase as in section 3 of [1]_.

    ``n - 1`` (phase 1) ``+ p`` (phase 2) ``+ floor((h-1)/2) n`` (phase 3) plus, in phase 4,
    ``ceil((n - N_k)/2)`` for odd ``h`` or ``ceil(N_k/2) + n - N_k`` for even ``h``.

    Parameters
    ----------
    n, p : int
        As in :func:`gossipcert.constructions.bermond.bermond_protocol`.
    type_k : int, optional
        ``N_k``; by default the true number :func:`type_k_count`. Pass ``ceil(n/(k-1))``
        for the paper's count.

    Returns
    -------
    int

    Examples
    --------
    >>> bermond_call_count(16, 4), bermond_call_count(22, 9)
    (40, 48)
    >>> bermond_call_count(6, 3), bermond_call_count(6, 3, type_k=3)
    (9, 10)
    """
    h, _ = split_n(n, p)
    big = type_k_count(n, p) if type_k is None else type_k
    last = -(-(n - big) // 2) if h % 2 else -(-big // 2) + n - big
    return n - 1 + p + (h - 1) // 2 * n + last


def theorem_3_1_bound(n: int, p: int) -> float:
    """Theorem 3.1 of [1]_: the protocol makes at most
    ``n^2/2p + (1 - k/2p - 1/(2(k-1))) n + p`` calls.

    Examples
    --------
    >>> round(theorem_3_1_bound(16, 4), 2)
    41.33
    """
    _, k = split_n(n, p)
    return n * n / (2 * p) + (1 - k / (2 * p) - 1 / (2 * (k - 1))) * n + p


def lower_bound(n: int, p: int) -> int:
    """The larger of the lower bounds (1) and (2) (Theorem 2.1) of [1]_ on ``c(n, p)``,
    rounded up.

    (1): ``c(n, p) >= n^2/2p + (p - 2) n / 2p``; (2): for ``n = hp + k``,
    ``c(n, p) >= n^2/2p + (1 - k/2p - 1/(2(k-1))) n``.

    Examples
    --------
    >>> lower_bound(16, 4), lower_bound(22, 9)
    (38, 41)
    """
    _, k = split_n(n, p)
    # both bounds times 2p(k - 1) are integers: compare exactly
    scale = 2 * p * (k - 1)
    first = (n * n + (p - 2) * n) * (k - 1)
    second = n * n * (k - 1) + (2 * p * (k - 1) - k * (k - 1) - p) * n
    return -(-max(first, second) // scale)
