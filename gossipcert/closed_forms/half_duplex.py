"""The half-duplex (telegraph) lower bound: knowledge grows by the golden ratio, not by two.

See :mod:`gossipcert.closed_forms` for the conventions every bound follows.

The argument
------------
Number the nodes ``0..n-1`` and write round ``t`` of a half-duplex schedule as the
``n x n`` matrix ``M_t = I + sum e_v e_u^T`` over its arcs ``u -> v``. Then the entry
``(v, w)`` of ``P = M_R ... M_1`` counts the time-respecting walks from ``w`` to ``v``
(a walk may stay at a node), so it is positive exactly when ``v`` knows after round ``R``
what ``w`` held at the start (with unbounded packets; a packet cap only removes knowledge).

In a half-duplex round the senders and the receivers are disjoint and every node has at most
one partner, so after permuting rows and columns alike ``M_t`` is block diagonal with blocks
``[1]`` (an idle node) and ``[[1, 0], [1, 1]]`` (a sender and its receiver). The largest
singular value of ``[[1, 0], [1, 1]]`` is the golden ratio ``phi = (1 + sqrt 5) / 2``, so
``||M_t||_2 <= phi`` and ``||P||_2 <= phi^R``.

Let ``W`` be nodes each holding a packet that no other node holds, and ``V'`` nodes that,
for every ``w`` in ``W``, are ``w`` or demand a packet held only by ``w``. A schedule that
meets the demands has ``P[v, w] >= 1`` on ``V' x W``. ``P`` is non-negative, so its spectral
norm is at least that of its ``V' x W`` block, which is at least that of the all-ones
``|V'| x |W|`` matrix: ``sqrt(|V'| |W|)``. Hence ``phi^R >= sqrt(|V'| |W|)``, and for gossip
(``V' = W`` = all nodes) ``R >= log_phi n ~ 1.44 log2 n``, against ``log2 n`` for telephone.

The Fibonacci growth is a property of the whole knowledge matrix, not of one node: a single
node can still learn ``2^t`` packets in ``t`` half-duplex rounds (a binomial gather tree), so
the per-node cap ``2^t`` of the counting constraints cannot be lowered to a Fibonacci number.

References
----------
.. [1] "On the number of rounds necessary to disseminate information", SPAA 1989, and
   "Quick gossiping by telegraphs", Discrete Mathematics: the matrix-norm technique for the
   telegraph (one-way) mode, at least about ``1.44 log2 n`` rounds in ``K_n``; written here
   for any graph and problem.
.. [2] V. V. Dimakopoulos, "Single-port multinode broadcasting", 1999 (the half-duplex model).
"""

from __future__ import annotations

from gossipcert.closed_forms.base import _LOWER, Bound, _holders
from gossipcert.instance import Instance, ModelKind


def golden_rounds(m: int) -> int:
    """The least ``R >= 0`` with ``phi^(2R) >= m``, in exact integer arithmetic.

    Uses ``phi^k = (L_k + F_k sqrt 5) / 2`` with the Lucas numbers ``L`` and the Fibonacci
    numbers ``F``.

    Examples
    --------
    >>> [golden_rounds(m * m) for m in (1, 2, 3, 4, 5, 10, 100)]
    [0, 2, 3, 3, 4, 5, 10]
    """
    if m <= 1:
        return 0
    r = 0
    lucas, fib = 2, 0  # L_{2r}, F_{2r}
    lucas1, fib1 = 1, 1  # L_{2r+1}, F_{2r+1}
    while True:
        gap = 2 * m - lucas
        if gap <= 0 or 5 * fib * fib >= gap * gap:
            return r
        # two steps of the recurrence x_{k+1} = x_k + x_{k-1}
        lucas, lucas1 = lucas + lucas1, lucas + 2 * lucas1
        fib, fib1 = fib + fib1, fib + 2 * fib1
        r += 1


def reach_block(instance: Instance) -> tuple[int, int]:
    """``(|V'|, |W|)`` of the argument: the nodes with a packet of their own, and the nodes
    that must learn (or hold) something from every one of them."""
    holders = _holders(instance)
    own: dict[int, int] = {}  # node -> the packets only it holds (a bitmask)
    for p, hs in enumerate(holders):
        if len(hs) == 1:
            own[hs[0]] = own.get(hs[0], 0) | 1 << p
    if not own:
        return 0, 0
    cover = [
        v
        for v in range(instance.n)
        if all(w == v or instance.demands[v] & mask for w, mask in own.items())
    ]
    return len(cover), len(own)


def half_duplex_golden_bound(instance: Instance) -> Bound | None:
    """Half-duplex rounds multiply the knowledge matrix's norm by at most the golden ratio.

    ``R >= log_phi sqrt(|V'| |W|)`` (module docstring): for gossip ``R >= log_phi n``.
    Holds for the half-duplex model with any packet cap or call limit.

    Parameters
    ----------
    instance : Instance

    Returns
    -------
    Bound or None
        None outside the half-duplex model or when no node holds a packet of its own.

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> half_duplex_golden_bound(parse_instance("complete:10", "half-duplex", "gossip")).value
    5
    >>> half_duplex_golden_bound(parse_instance("complete:10", "telephone", "gossip")) is None
    True

    References
    ----------
    "Quick gossiping by telegraphs" (the matrix-norm argument for ``K_n``); see the module
    docstring.
    """
    if instance.model.kind is not ModelKind.HALF_DUPLEX:
        return None
    a, b = reach_block(instance)
    if a * b <= 1:
        return None
    return Bound(
        "half-duplex-golden",
        _LOWER,
        golden_rounds(a * b),
        "half-duplex: the knowledge matrix's norm grows at most by phi = 1.618 per round "
        "(the matrix-norm argument of quick gossiping by telegraphs)",
    )
