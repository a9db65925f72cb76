"""Dimakopoulos-Dimopoulos: all-port binary fat trees.

See :mod:`gossipcert.closed_forms` for the conventions every bound follows.

References
----------
.. [1] V. V. Dimakopoulos and N. J. Dimopoulos, "Communications in binary fat trees",
   Proc. ICCI 1995. Table 1, Theorems 1-2, formulas (1)-(3), Lemma 3.
"""

from __future__ import annotations

from gossipcert import graphs
from gossipcert.closed_forms.base import _DD, _LOWER, _UPPER, Bound, _cache, _family
from gossipcert.instance import Instance, ModelKind, ProblemKind

# --------------------------------------------------------------------------------------------
# Dimakopoulos-Dimopoulos: all-port binary fat trees
# --------------------------------------------------------------------------------------------


def _fat_tree(instance: Instance) -> tuple[int, list[int]] | None:
    """``(n_leaves, [c_1, ..., c_L])`` with the effective capacities (the model's ``c=N``
    if set, else the tree's) for the all-port model on a verified ``fattree:`` spec."""
    if instance.model.kind is not ModelKind.ALL_PORT:
        return None
    fam = _family(instance)
    if fam is None or fam[0] != "fattree":
        return None
    g = _cache(instance)["rebuilt"]
    leaves = graphs.processors(g)
    n = len(leaves)
    levels = n.bit_length() - 1
    if n < 2 or n != 1 << levels:
        return None
    caps = [0] * levels
    for u, v, data in g.edges(data=True):
        level = max(g.nodes[u]["coords"][0], g.nodes[v]["coords"][0])
        caps[level - 1] = int(data.get("capacity", 1))
    if instance.model.capacity is not None:
        caps = [instance.model.capacity] * levels
    return n, caps


def _fat_tree_upper(instance: Instance, kind: ProblemKind) -> tuple[int, list[int]] | None:
    tree = _fat_tree(instance)
    if tree is None or instance.model.calls_per_round is not None:
        return None
    return tree if instance.problem.kind is kind else None


def dd_broadcast_bound(instance: Instance) -> Bound | None:
    """Table 1: broadcasting in a binary fat tree with ``n`` leaves takes ``2 log n`` steps
    (the distance between leaves in different halves).

    Parameters
    ----------
    instance : Instance

    Returns
    -------
    Bound or None
        None unless all-port broadcast on a verified ``fattree:N``.

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> dd_broadcast_bound(parse_instance("fattree:8", "all-port", "broadcast:0")).value
    6

    References
    ----------
    Dimakopoulos and Dimopoulos, section 2.1 and Table 1.
    """
    tree = _fat_tree(instance)
    if tree is None or instance.problem.kind is not ProblemKind.BROADCAST:
        return None
    return Bound(
        "dd-broadcast",
        _LOWER,
        2 * len(tree[1]),
        f"{_DD}, Table 1: broadcasting needs the diameter 2 log n",
    )


def dd_broadcast_upper_bound(instance: Instance) -> Bound | None:
    """Section 2.1: routers replicate the message in all directions: ``2 log n`` steps.

    Parameters
    ----------
    instance : Instance

    Returns
    -------
    Bound or None
        None unless all-port broadcast, no limit on transmissions per round, verified
        ``fattree:N``.

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> dd_broadcast_upper_bound(parse_instance("fattree:8:exp", "all-port",
    ...     "broadcast:3")).value
    6

    References
    ----------
    Dimakopoulos and Dimopoulos, section 2.1.
    """
    tree = _fat_tree_upper(instance, ProblemKind.BROADCAST)
    if tree is None:
        return None
    return Bound(
        "dd-broadcast-upper",
        _UPPER,
        2 * len(tree[1]),
        f"{_DD}, sec. 2.1: routers in broadcast mode take 2 log n steps",
    )


def _hole_argument_applies(n: int, caps: list[int]) -> bool:
    """The ``n + 1`` argument: one link of capacity 1 per leaf, ``n >= 4`` leaves."""
    return n >= 4 and caps[0] == 1


def dd_scatter_gather_bound(instance: Instance) -> Bound | None:
    """Table 1: scattering and gathering take ``n + 1`` steps.

    The root sends or receives ``n - 1`` messages over its single link (capacity 1); its
    sibling is 2 links away and all other leaves at least 4, so at most one message can
    arrive (gather) in the first three steps, and dually for scatter.

    Parameters
    ----------
    instance : Instance

    Returns
    -------
    Bound or None
        None unless all-port scatter or gather on a verified ``fattree`` with ``n >= 4``
        leaves whose links have (effective) capacity ``c_1 = 1``.

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> dd_scatter_gather_bound(parse_instance("fattree:8", "all-port", "gather:5")).value
    9

    References
    ----------
    Dimakopoulos and Dimopoulos, section 2.1 and Table 1.
    """
    tree = _fat_tree(instance)
    if tree is None or instance.problem.kind not in (ProblemKind.SCATTER, ProblemKind.GATHER):
        return None
    n, caps = tree
    if not _hole_argument_applies(n, caps):
        return None
    return Bound(
        "dd-scatter-gather",
        _LOWER,
        n + 1,
        f"{_DD}, Table 1: n-1 messages over one link, none in step 1, one in steps 2-3",
    )


def dd_scatter_gather_upper_bound(instance: Instance) -> Bound | None:
    """Theorem 1: the farthest-first discipline scatters (and, reversed, gathers) in
    ``n + 1`` steps in the constant-capacity tree, hence in every binary fat tree.

    Parameters
    ----------
    instance : Instance

    Returns
    -------
    Bound or None
        None unless all-port scatter or gather, no limit on transmissions per round,
        verified ``fattree`` with ``n >= 4`` leaves.

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> dd_scatter_gather_upper_bound(parse_instance("fattree:16", "all-port",
    ...     "scatter:0")).value
    17

    References
    ----------
    Dimakopoulos and Dimopoulos, section 3, Theorem 1.
    """
    tree = _fat_tree_upper(instance, ProblemKind.SCATTER) or _fat_tree_upper(
        instance, ProblemKind.GATHER
    )
    if tree is None or tree[0] < 4:
        return None
    return Bound(
        "dd-scatter-gather-upper",
        _UPPER,
        tree[0] + 1,
        f"{_DD}, Theorem 1: farthest-first scattering takes n + 1 steps",
    )


def dd_gossip_bound(instance: Instance) -> Bound | None:
    """Table 1: multinode broadcasting (gossip) takes ``n + 1`` steps: every leaf receives
    ``n - 1`` messages over one link of capacity 1, with two holes in the first steps.

    Parameters
    ----------
    instance : Instance

    Returns
    -------
    Bound or None
        None unless all-port gossip on a verified ``fattree`` with ``n >= 4`` leaves and
        ``c_1 = 1``.

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> dd_gossip_bound(parse_instance("fattree:4:exp", "all-port", "gossip")).value
    5

    References
    ----------
    Dimakopoulos and Dimopoulos, section 2.1 and Table 1.
    """
    tree = _fat_tree(instance)
    if tree is None or instance.problem.kind is not ProblemKind.GOSSIP:
        return None
    n, caps = tree
    if not _hole_argument_applies(n, caps):
        return None
    return Bound(
        "dd-gossip",
        _LOWER,
        n + 1,
        f"{_DD}, Table 1: each leaf receives n-1 messages over one link, two steps idle",
    )


def dd_gossip_upper_bound(instance: Instance) -> Bound | None:
    """Theorem 2: flooding gossips in ``n + 1`` steps in the constant-capacity tree (so in
    every binary fat tree), ``n >= 4``.

    Parameters
    ----------
    instance : Instance

    Returns
    -------
    Bound or None
        None unless all-port gossip, no limit on transmissions per round, verified
        ``fattree`` with ``n >= 4`` leaves.

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> dd_gossip_upper_bound(parse_instance("fattree:8", "all-port", "gossip")).value
    9

    References
    ----------
    Dimakopoulos and Dimopoulos, section 4, Theorem 2.
    """
    tree = _fat_tree_upper(instance, ProblemKind.GOSSIP)
    if tree is None or tree[0] < 4:
        return None
    return Bound(
        "dd-gossip-upper",
        _UPPER,
        tree[0] + 1,
        f"{_DD}, Theorem 2: flooding gossips in n + 1 steps",
    )


def dd_gossip_no_queue_upper_bound(instance: Instance) -> Bound | None:
    """Section 4.1: an algorithm without queues gossips in ``n + 2 log n - 2`` steps in any
    binary fat tree (their [3]).

    Parameters
    ----------
    instance : Instance

    Returns
    -------
    Bound or None
        None unless all-port gossip, no limit on transmissions per round, verified
        ``fattree``.

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> dd_gossip_no_queue_upper_bound(parse_instance("fattree:8", "all-port",
    ...     "gossip")).value
    12

    References
    ----------
    Dimakopoulos and Dimopoulos, section 4.1.
    """
    tree = _fat_tree_upper(instance, ProblemKind.GOSSIP)
    if tree is None:
        return None
    n, caps = tree
    return Bound(
        "dd-gossip-no-queue-upper",
        _UPPER,
        n + 2 * len(caps) - 2,
        f"{_DD}, sec. 4.1: a queue-free algorithm takes n + 2 log n - 2 steps",
    )


def dd_total_exchange_bound(instance: Instance) -> Bound | None:
    """Table 1: total exchange takes ``max(n + 1, n^2 / (4 c_L))`` steps.

    ``(n/2)^2`` messages cross from the left half to the right over the root branch of
    capacity ``c_L``; and (with ``c_1 = 1``, ``n >= 4``) each leaf receives ``n - 1``
    messages over one link, with two holes, as for gossip.

    Parameters
    ----------
    instance : Instance

    Returns
    -------
    Bound or None
        None unless all-port total exchange on a verified ``fattree``.

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> dd_total_exchange_bound(parse_instance("fattree:8", "all-port",
    ...     "total-exchange")).value
    16
    >>> dd_total_exchange_bound(parse_instance("fattree:8:exp", "all-port",
    ...     "total-exchange")).value
    9

    References
    ----------
    Dimakopoulos and Dimopoulos, section 2.1 and Table 1.
    """
    tree = _fat_tree(instance)
    if tree is None or instance.problem.kind is not ProblemKind.TOTAL_EXCHANGE:
        return None
    n, caps = tree
    value = -(-(n * n) // (4 * caps[-1]))
    if _hole_argument_applies(n, caps):
        value = max(value, n + 1)
    return Bound(
        "dd-total-exchange",
        _LOWER,
        value,
        f"{_DD}, Table 1: (n/2)^2 messages cross each root branch of capacity c_L; "
        "n + 1 as for gossip when c_1 = 1",
    )


def _lemma3_value(n: int, levels: int) -> int:
    """Smallest ``T`` with ``ceil(T / D') (T - n + 1) >= n - n/2^i`` for every ``i``."""
    best = n - 1
    for i in range(1, levels + 1):
        period = 2 * (levels - i) + 1
        external = n - (n >> i)
        t = n - 1
        while -(-t // period) * (t - n + 1) < external:
            t += 1
        best = max(best, t)
    return best


def dd_lemma3_bound(instance: Instance) -> Bound | None:
    """Lemma 3 (hole counting), evaluated exactly.

    Collapse the top ``i`` levels: ``2^i`` subtrees, leaves of different subtrees at least
    ``D = 2(log n - i + 1)`` links apart. Split time into periods of ``D - 1`` rounds, so
    that a message sent to another subtree in one period arrives in a later one; then the
    messages a subtree sends out in period ``s`` are at most the holes (rounds in which a
    leaf receives nothing useful) of periods ``1..s``. With ``p = ceil(T/(D-1))`` periods,
    ``p H >= n(n - n/2^i)`` external messages and ``H <= n T - n(n - 1)`` holes give
    ``ceil(T/(D-1)) (T - n + 1) >= n - n/2^i``. The value is the smallest ``T`` meeting this
    for every ``i = 1..log n``.

    The paper states the closed form ``n + 2 log n - 2 log log n - 2`` for EBFTs. Its
    derivation uses periods of ``D`` steps and an integrality step that only hold up to an
    off-by-one, and the closed form is not an integer unless ``log n`` is a power of 2; the
    exact evaluation above, with the shorter (conservative) periods, is used instead. The
    argument needs only that each leaf sends and receives one message per round, so it is
    applied to every fat tree with ``c_1 = 1``.

    Parameters
    ----------
    instance : Instance

    Returns
    -------
    Bound or None
        None unless all-port total exchange on a verified ``fattree`` with ``c_1 = 1``.

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> dd_lemma3_bound(parse_instance("fattree:16:exp", "all-port",
    ...     "total-exchange")).value
    18

    References
    ----------
    Dimakopoulos and Dimopoulos, section 5.1, Lemma 3 and (4)-(6).
    """
    tree = _fat_tree(instance)
    if tree is None or instance.problem.kind is not ProblemKind.TOTAL_EXCHANGE:
        return None
    n, caps = tree
    if caps[0] != 1:
        return None
    return Bound(
        "dd-lemma3",
        _LOWER,
        _lemma3_value(n, len(caps)),
        f"{_DD}, Lemma 3: holes in leaf receptions while messages cross between subtrees "
        "(evaluated exactly, periods of D-1 rounds)",
    )


def _dd_phase_sum(caps: list[int]) -> int:
    return sum(-(-(4 ** (i - 1)) // c) for i, c in enumerate(caps, start=1))


def dd_total_exchange_serial_upper_bound(instance: Instance) -> Bound | None:
    """Formula (1): the phase-by-phase total exchange takes
    ``sum_i ceil(4^(i-1) / c_i) + (log n)^2`` steps.

    Parameters
    ----------
    instance : Instance

    Returns
    -------
    Bound or None
        None unless all-port total exchange, no limit on transmissions per round, verified
        ``fattree``.

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> dd_total_exchange_serial_upper_bound(parse_instance("fattree:8", "all-port",
    ...     "total-exchange")).value
    30

    References
    ----------
    Dimakopoulos and Dimopoulos, section 5, formula (1).
    """
    tree = _fat_tree_upper(instance, ProblemKind.TOTAL_EXCHANGE)
    if tree is None:
        return None
    caps = tree[1]
    return Bound(
        "dd-total-exchange-serial-upper",
        _UPPER,
        _dd_phase_sum(caps) + len(caps) ** 2,
        f"{_DD}, (1): phase i crosses 4^(i-1) messages over capacity c_i, plus 2h_i - 1",
    )


def dd_total_exchange_pipelined_upper_bound(instance: Instance) -> Bound | None:
    """Formulas (2)-(3): with pipelined phases, total exchange takes
    ``sum_i ceil(4^(i-1) / c_i) + 2 log n - 1`` steps; ``(n^2 - 1)/3 + 2 log n - 1`` for
    constant and ``n + 2 log n - 2`` for exponential capacities.

    Parameters
    ----------
    instance : Instance

    Returns
    -------
    Bound or None
        None unless all-port total exchange, no limit on transmissions per round, verified
        ``fattree``.

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> dd_total_exchange_pipelined_upper_bound(parse_instance("fattree:8:exp", "all-port",
    ...     "total-exchange")).value
    12

    References
    ----------
    Dimakopoulos and Dimopoulos, section 5, formulas (2) and (3).
    """
    tree = _fat_tree_upper(instance, ProblemKind.TOTAL_EXCHANGE)
    if tree is None:
        return None
    caps = tree[1]
    return Bound(
        "dd-total-exchange-pipelined-upper",
        _UPPER,
        _dd_phase_sum(caps) + 2 * len(caps) - 1,
        f"{_DD}, (2)-(3): pipelined phases save (log n)^2 - 2 log n + 1 steps",
    )
