"""Total exchange in binary fat trees (all-port): the phase algorithm of Dimakopoulos and
Dimopoulos [1]_ (section 5), its step counts and the bounds it is compared with.

- :func:`total_exchange`: phase ``i`` exchanges, under every node of level
  ``h = log n - i``, the packets of its left subtree meant for its right subtree and vice
  versa. The CBFT form sends one packet across per step, the EBFT form ``2^(h-1)``.
  Serially it takes formula (1) steps; with consecutive phases overlapped by ``2h - 3``
  steps, formula (2), that is ``(n^2 - 1)/3 + 2 log n - 1`` in the CBFT and (3)
  ``n + 2 log n - 2`` in the EBFT.
- :func:`total_exchange_by_scatterings`: the simple CBFT solution of section 5, ``n``
  farthest-first scatterings (:func:`gossipcert.constructions.fat_trees.farthest_first`)
  one after the other.

:func:`lemma3_bound` is the lower bound of Lemma 3 for the EBFT, and
:func:`total_exchange_lower_bound` that of Table 1.

References
----------
.. [1] V. V. Dimakopoulos and N. J. Dimopoulos, "Communications in binary fat trees",
   Proc. ICCI, 1995. Section 5, Table 1, equations (1)-(3), Lemma 3.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from typing import Literal

from gossipcert.constructions.fat_tree_shape import (
    FatTree,
    Timeline,
    expect_problem,
    fat_tree_shape,
)
from gossipcert.constructions.fat_trees import farthest_first_plan, farthest_first_steps
from gossipcert.errors import NotApplicableError
from gossipcert.instance import Instance, ProblemKind
from gossipcert.schedule import Schedule

Variant = Literal["auto", "cbft", "ebft"]


def _choose_variant(tree: FatTree, variant: Variant) -> Literal["cbft", "ebft"]:
    exponential = all(
        tree.capacity(level) >= 2 ** (level - 1) for level in range(1, 1 + tree.levels)
    )
    if variant == "auto":
        return "ebft" if exponential else "cbft"
    if variant == "ebft" and not exponential:
        raise NotApplicableError(
            f"the EBFT total exchange needs c_l >= 2^(l-1); capacities are {tree.capacities}"
        )
    if variant not in ("cbft", "ebft"):
        raise NotApplicableError(f"unknown variant {variant!r}; use 'auto', 'cbft' or 'ebft'")
    return variant


def _phase_messages(tree: FatTree, height: int, ebft: bool) -> Iterable[tuple[int, int, int]]:
    """``(source leaf, destination leaf, dispatch step within the phase)`` of one phase.

    The phase of level ``h`` exchanges, under every level-``h`` node ``R_h^j`` (leaves
    ``j 2^h .. (j+1) 2^h - 1``), the messages of its left subtree meant for its right subtree
    and vice versa.
    """
    half = 1 << (height - 1)
    if ebft:
        # EBFT: in step l every leaf k sends its message for k XOR 2^(h-1) XOR l
        for x in range(half):
            for k in range(tree.n_leaves):
                yield k, k ^ half ^ x, x + 1
        return
    # CBFT: 2^(h-1) periods; in period k, leaf k of each half sends its 2^(h-1) messages
    # for the other half one by one, for all the nodes R_h^j in parallel
    for j in range(tree.n_leaves >> height):
        base = j << height
        for k in range(half):
            for x in range(half):
                step = k * half + x + 1
                yield base + k, base + half + x, step
                yield base + half + k, base + x, step


def total_exchange(
    instance: Instance, *, pipelined: bool = True, variant: Variant = "auto"
) -> Schedule:
    """Total exchange by exchanges across the nodes of one level at a time, root first.

    For ``i = 0, ..., log n - 1``, phase ``i`` runs in parallel under all the nodes of level
    ``h_i = log n - i``: their left and right subtrees exchange the ``(2^(h-1))^2`` messages
    each way meant for the other side. Every message goes straight from its origin to its
    destination (routers forward it in the next step, nothing is queued). The CBFT form lets
    one message cross per step: in period ``k`` leaf ``k`` of each side sends its messages for
    the other side one by one. The EBFT form lets all leaves send at once: in step ``l`` leaf
    ``k`` sends its message for ``k XOR 2^(h-1) XOR l``. Phase ``i`` lasts
    ``T_i = ceil(4^(h-1) / c_h) + 2h - 1`` steps (``c_h = 1`` in the CBFT form).

    Parameters
    ----------
    instance : Instance
        ``total-exchange`` on a binary fat tree, all-port model.
    pipelined : bool
        False: the phases run one after the other, formula (1). True (default): phase
        ``i + 1`` starts ``2 h_i - 3`` steps before phase ``i`` ends, formula (2).
    variant : {"auto", "cbft", "ebft"}
        The form of each phase. ``"auto"`` takes the EBFT form when every ``c_l >= 2^(l-1)``
        (the exponential tree), the CBFT form otherwise (valid for any capacities).

    Returns
    -------
    Schedule
        :func:`total_exchange_steps` steps: pipelined, ``(n^2 - 1)/3 + 2 log n - 1`` (CBFT) and
        ``n + 2 log n - 2`` (EBFT, equation (3)).

    Raises
    ------
    NotApplicableError
        Not a fat tree, not all-port, not total exchange, or ``"ebft"`` on too thin a tree.

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> len(total_exchange(parse_instance("fattree:8", "all-port", "total-exchange")))
    26
    >>> len(total_exchange(parse_instance("fattree:8:exp", "all-port", "total-exchange")))
    12
    >>> inst = parse_instance("fattree:8:exp", "all-port", "total-exchange")
    >>> len(total_exchange(inst, pipelined=False))
    16

    References
    ----------
    Dimakopoulos and Dimopoulos [1]_, section 5: the phase algorithm, "Phase i for CBFTs",
    "Phase i for EBFTs", the timing analysis and equation (1); "Pipelining the phases" and
    equations (2) and (3).
    """
    tree = fat_tree_shape(instance)
    expect_problem(instance, ProblemKind.TOTAL_EXCHANGE)
    ebft = _choose_variant(tree, variant) == "ebft"
    leaves = [tree.leaf(x) for x in range(tree.n_leaves)]
    timeline = Timeline()
    offset = 0  # steps before the current phase's first step
    for i in range(tree.levels):
        height = tree.levels - i
        capacity = (1 << (height - 1)) if ebft else 1
        for x, y, step in _phase_messages(tree, height, ebft):
            packet = instance.holdings[leaves[x]] & instance.demands[leaves[y]]
            timeline.route(tree.path(x, y), offset + step, packet)
        # T_i = ceil((2^(h-1))^2 / c_h) + 2h - 1
        phase_steps = -(-(4 ** (height - 1)) // capacity) + 2 * height - 1
        # pipelining: the next phase overlaps the last 2h - 3 steps of this one
        overlap = 2 * height - 3 if pipelined and height > 1 else 0
        offset += phase_steps - overlap
    return timeline.schedule()


def total_exchange_steps(capacities: Sequence[int], *, pipelined: bool = True) -> int:
    """Steps of the phase algorithm by formula (1) (serial) or (2) (pipelined) of [1]_.

    Parameters
    ----------
    capacities : sequence of int
        ``(c_1, ..., c_{log n})`` as used by the phases: all 1 for the CBFT form,
        ``2^(i-1)`` for the EBFT form.
    pipelined : bool
        Formula (2) when True, formula (1) when False.

    Returns
    -------
    int
        ``sum_i ceil(4^(i-1) / c_i) + (log n)^2`` (1) or ``... + 2 log n - 1`` (2).

    Examples
    --------
    >>> total_exchange_steps([1, 1, 1]), total_exchange_steps([1, 2, 4])
    (26, 12)
    >>> total_exchange_steps([1, 2, 4], pipelined=False)
    16
    """
    levels = len(capacities)
    crossing = sum(-(-(4 ** (i - 1)) // c) for i, c in enumerate(capacities, start=1))
    return crossing + (2 * levels - 1 if pipelined else levels * levels)


def total_exchange_lower_bound(n_leaves: int, root_capacity: int) -> int:
    """The total-exchange lower bound of Table 1 of [1]_: ``max{n + 1, n^2 / 4 c_{log n}}``.

    Examples
    --------
    >>> total_exchange_lower_bound(16, 1), total_exchange_lower_bound(16, 8)
    (64, 17)
    """
    return max(n_leaves + 1, -(-(n_leaves * n_leaves) // (4 * root_capacity)))


def lemma3_bound(n_leaves: int) -> float:
    """Lemma 3 of [1]_: a total exchange in the EBFT needs ``n + 2 log n - 2 log log n - 2``
    steps (equation (6)).

    Examples
    --------
    >>> lemma3_bound(16)
    18.0
    """
    log_n = math.log2(n_leaves)
    return n_leaves + 2 * log_n - 2 * math.log2(log_n) - 2


def total_exchange_by_scatterings(instance: Instance) -> Schedule:
    """Total exchange as ``n`` farthest-first scatterings, by leaf ``0, 1, ..., n-1`` in turn.

    Needs no queues and only capacity 1 (any fat tree).

    Parameters
    ----------
    instance : Instance
        ``total-exchange`` on a binary fat tree, all-port model.

    Returns
    -------
    Schedule
        ``n`` times :func:`~gossipcert.constructions.fat_trees.farthest_first_steps`:
        ``n (n + 1)`` steps for ``n >= 4``.

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> inst = parse_instance("fattree:4", "all-port", "total-exchange")
    >>> len(total_exchange_by_scatterings(inst))
    20

    References
    ----------
    Dimakopoulos and Dimopoulos [1]_, section 5 ("a simple solution consists of n consecutive
    scatterings one by each node in turn ... the n scatterings will take n(n + 1) steps").
    """
    tree = fat_tree_shape(instance)
    expect_problem(instance, ProblemKind.TOTAL_EXCHANGE)
    leaves = [tree.leaf(x) for x in range(tree.n_leaves)]
    each = farthest_first_steps(tree.n_leaves)
    timeline = Timeline()
    for source in range(tree.n_leaves):
        for x, path, dispatch in farthest_first_plan(tree, source):
            packet = instance.holdings[leaves[source]] & instance.demands[leaves[x]]
            timeline.route(path, source * each + dispatch, packet)
    return timeline.schedule()
