"""Broadcast, scatter, gather, gossip and total exchange in binary fat trees (all-port).

The algorithms of Dimakopoulos and Dimopoulos [1]_ for a binary fat tree whose ``n`` leaves
are the processors and whose inner nodes are routers. Every router uses all its links in every
step, stores what it receives and may forward it in the next step; a branch between levels
``l - 1`` and ``l`` carries at most ``c_l`` packets each way per step.

- :func:`flooding`: broadcasting (section 2.1) and multinode broadcasting (section 4,
  Theorem 2). Every router replicates each packet it receives towards all its other
  neighbours, through one FIFO queue per outgoing link. One packet reaches every leaf in
  ``2 log n`` steps; the ``n`` packets of gossip in ``n + 1`` steps (``n >= 4``).
- :func:`farthest_first`: scattering by the farthest-first discipline (section 3,
  Theorem 1): ``n + 1`` steps for ``n >= 4``, the bound of Table 1. Gathering is the same
  schedule with every data path reversed.
- :func:`total_exchange`: the phase algorithm of section 5. Phase ``i`` exchanges, under every
  node of level ``h = log n - i``, the packets of its left subtree meant for its right subtree
  and vice versa. The CBFT form sends one packet across per step, the EBFT form ``2^(h-1)``.
  Serially it takes formula (1) steps; with consecutive phases overlapped by ``2h - 3`` steps,
  formula (2), that is ``(n^2 - 1)/3 + 2 log n - 1`` in the CBFT and (3) ``n + 2 log n - 2`` in
  the EBFT.
- :func:`total_exchange_by_scatterings`: the simple CBFT solution of section 5, ``n``
  farthest-first scatterings one after the other.

Each function returns a schedule in which every packet moves along the unique path of the
tree; the step counts of the paper are given by the ``*_steps`` functions below, and
:func:`lemma3_bound` is the lower bound of Lemma 3 for the EBFT.

References
----------
.. [1] V. V. Dimakopoulos and N. J. Dimopoulos, "Communications in binary fat trees",
   Proc. ICCI, 1995. Sections 2-5, Table 1, Theorems 1-2, equations (1)-(3), Lemma 3.
"""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from itertools import pairwise
from typing import Literal

from gossipcert import graphs
from gossipcert.errors import NotApplicableError
from gossipcert.instance import Instance, ModelKind, ProblemKind, bits
from gossipcert.schedule import Schedule, Transmission

Variant = Literal["auto", "cbft", "ebft"]


# ----------------------------------------------------------------------------- the tree


@dataclass(frozen=True, eq=False)
class FatTree:
    """The shape of a binary fat tree: its nodes by ``(level, index)`` and its capacities.

    Attributes
    ----------
    n_leaves : int
        Number of leaves (processors), a power of 2.
    levels : int
        ``log2 n_leaves``; the root is at this level.
    capacities : tuple of int
        ``(c_1, ..., c_levels)``: packets per step each way on a branch between levels
        ``l - 1`` and ``l`` (the model's ``c=N`` option, when given, overrides the graph).
    node_at : dict
        ``(level, index) -> node id``.
    """

    n_leaves: int
    levels: int
    capacities: tuple[int, ...]
    node_at: dict[tuple[int, int], int] = field(repr=False)

    def capacity(self, level: int) -> int:
        """``c_level``, the capacity of a branch between ``level - 1`` and ``level``."""
        return self.capacities[level - 1]

    def leaf(self, x: int) -> int:
        """The node id of leaf ``x`` (counted from the left)."""
        return self.node_at[(0, x)]

    def meet_level(self, x: int, y: int) -> int:
        """The level of the lowest common ancestor of leaves ``x`` and ``y``."""
        return (x ^ y).bit_length()

    def path(self, x: int, y: int) -> list[int]:
        """The node ids on the unique path from leaf ``x`` to leaf ``y`` (``2 i + 1`` nodes when
        they meet at level ``i``)."""
        top = self.meet_level(x, y)
        up = [self.node_at[(level, x >> level)] for level in range(top + 1)]
        down = [self.node_at[(level, y >> level)] for level in range(top - 1, -1, -1)]
        return up + down

    def neighbours(self, level: int, x: int) -> list[tuple[int, int]]:
        """The ``(level, index)`` neighbours of node ``(level, x)``: children, then parent."""
        out = [(level - 1, 2 * x), (level - 1, 2 * x + 1)] if level > 0 else []
        if level < self.levels:
            out.append((level + 1, x >> 1))
        return out


def fat_tree_shape(instance: Instance) -> FatTree:
    """Recognise the binary fat tree of an all-port instance.

    Parameters
    ----------
    instance : Instance
        An ``all-port`` instance on a graph built by :func:`gossipcert.graphs.fat_tree`
        (every node has ``coords == (level, index)``; the leaves are the processors).

    Returns
    -------
    FatTree

    Raises
    ------
    NotApplicableError
        The model is not all-port, or the graph is not a binary fat tree with one capacity
        per level.

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> t = fat_tree_shape(parse_instance("fattree:8:exp", "all-port", "gossip"))
    >>> t.n_leaves, t.levels, t.capacities, t.path(0, 3)
    (8, 3, (1, 2, 4), [0, 8, 12, 9, 3])

    References
    ----------
    Dimakopoulos and Dimopoulos [1]_, section 2 (levels, leaves numbered from the left,
    branch capacities ``c_i``).
    """
    if instance.model.kind is not ModelKind.ALL_PORT:
        raise NotApplicableError(
            f"the fat-tree algorithms are for the all-port model, not {instance.model.spec()}"
        )
    g = instance.graph
    spec = g.graph.get("spec", "the graph")
    node_at: dict[tuple[int, int], int] = {}
    for v, coords in g.nodes(data="coords"):
        if (
            not isinstance(coords, tuple)
            or len(coords) != 2
            or not all(isinstance(c, int) for c in coords)
        ):
            raise NotApplicableError(f"{spec} is not a fat tree: node {v} has no (level, index)")
        if (coords[0] == 0) == graphs.is_router(g, v):
            raise NotApplicableError(f"{spec} is not a fat tree: only leaves may be processors")
        node_at[coords] = v
    n_leaves = sum(1 for level, _ in node_at if level == 0)
    levels = n_leaves.bit_length() - 1
    if n_leaves < 2 or n_leaves & (n_leaves - 1):
        raise NotApplicableError(f"{spec} is not a binary fat tree: {n_leaves} leaves")
    expected = {(level, x) for level in range(levels + 1) for x in range(n_leaves >> level)}
    if set(node_at) != expected or g.number_of_edges() != 2 * n_leaves - 2:
        raise NotApplicableError(f"{spec} is not a complete binary fat tree")
    capacities: list[int] = []
    for level in range(1, levels + 1):
        caps = set()
        for x in range(n_leaves >> level):
            parent = node_at[(level, x)]
            for child in (2 * x, 2 * x + 1):
                child_node = node_at[(level - 1, child)]
                if not g.has_edge(parent, child_node):
                    raise NotApplicableError(f"{spec} is not a complete binary fat tree")
                caps.add(graphs.capacity(g, parent, child_node))
        if len(caps) != 1:
            raise NotApplicableError(f"{spec}: the branches of level {level} differ in capacity")
        capacities.append(instance.model.capacity or caps.pop())
    return FatTree(n_leaves, levels, tuple(capacities), node_at)


def _expect(instance: Instance, *kinds: ProblemKind) -> None:
    if instance.problem.kind not in kinds:
        names = " or ".join(k.value for k in kinds)
        raise NotApplicableError(
            f"this fat-tree algorithm solves {names}, not {instance.problem.spec()}"
        )


def _only_holder(instance: Instance) -> int:
    holders = [v for v, mask in enumerate(instance.holdings) if mask]
    if len(holders) != 1:
        raise NotApplicableError("expected exactly one node holding packets")
    return holders[0]


def _only_demander(instance: Instance) -> int:
    needers = [v for v, mask in enumerate(instance.demands) if mask]
    if len(needers) != 1:
        raise NotApplicableError("expected exactly one node demanding packets")
    return needers[0]


# ----------------------------------------------------------------------------- timelines


class _Timeline:
    """The packets crossing every arc in every step, gathered into a schedule."""

    def __init__(self) -> None:
        self.loads: dict[int, dict[tuple[int, int], int]] = {}

    def send(self, step: int, u: int, w: int, mask: int) -> None:
        arcs = self.loads.setdefault(step, {})
        arcs[(u, w)] = arcs.get((u, w), 0) | mask

    def route(self, path: Sequence[int], start: int, mask: int) -> None:
        """Store-and-forward along ``path``: the ``j``-th arc is crossed in step ``start + j``."""
        for j, (u, w) in enumerate(pairwise(path)):
            self.send(start + j, u, w, mask)

    def schedule(self) -> Schedule:
        length = max(self.loads, default=0)
        return Schedule(
            tuple(
                tuple(
                    Transmission(u, (w,), mask)
                    for (u, w), mask in sorted(self.loads.get(step, {}).items())
                )
                for step in range(1, length + 1)
            )
        )


# ----------------------------------------------------------------------------- flooding


def flooding(instance: Instance) -> Schedule:
    """Broadcasting and multinode broadcasting by flooding with FIFO queues.

    In step 1 every leaf starts sending the packets it holds to its parent. A router that
    receives a packet puts it at the end of the FIFO queue of every incident link except the
    one it came from; in every step each link ``(u, w)`` of level ``l`` sends the first ``c_l``
    packets of its queue. Packets received in the same step are queued in the order of the
    links they came from (children before parent).

    Parameters
    ----------
    instance : Instance
        ``broadcast:S`` or ``gossip`` on a binary fat tree, all-port model.

    Returns
    -------
    Schedule
        Broadcast: ``2 log n`` steps, the diameter (section 2.1). Gossip: ``n + 1`` steps for
        ``n >= 4`` (Theorem 2, Table 1), ``2`` for ``n = 2``; in any capacity pattern.

    Raises
    ------
    NotApplicableError
        Not a fat tree, not all-port, or another problem.

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> len(flooding(parse_instance("fattree:16", "all-port", "broadcast:5")))
    8
    >>> len(flooding(parse_instance("fattree:16", "all-port", "gossip")))
    17

    References
    ----------
    Dimakopoulos and Dimopoulos [1]_, section 2.1 ("setting all routing nodes to a broadcast
    mode whereby the received message is replicated towards all directions"), section 4,
    Theorem 2 and Fig. 3 (flooding, received messages replicated to all directions except the
    one they came from), section 4.1 (FIFO queues).
    """
    tree = fat_tree_shape(instance)
    _expect(instance, ProblemKind.BROADCAST, ProblemKind.GOSSIP)
    node_at = tree.node_at
    # one FIFO queue per outgoing link, keyed by (from, to) in (level, index) form
    queues: dict[tuple[tuple[int, int], tuple[int, int]], deque[int]] = {}
    for here in node_at:
        for there in tree.neighbours(*here):
            queues[(here, there)] = deque()
    # step 0: every leaf queues its own packets towards its parent
    for x in range(tree.n_leaves):
        for packet in bits(instance.holdings[tree.leaf(x)]):
            queues[((0, x), (1, x >> 1))].append(packet)
    timeline = _Timeline()
    step = 0
    while any(queues.values()):
        step += 1
        arrivals: list[tuple[tuple[int, int], tuple[int, int], int]] = []
        for (here, there), queue in queues.items():
            # a link of level l carries at most c_l packets per step
            for _ in range(min(tree.capacity(max(here[0], there[0])), len(queue))):
                packet = queue.popleft()
                timeline.send(step, node_at[here], node_at[there], 1 << packet)
                arrivals.append((here, there, packet))
        # replicate at the routers towards all directions except the one it came from
        arrivals.sort(key=lambda a: (a[1], a[0][0]))
        for came_from, here, packet in arrivals:
            if here[0] == 0:
                continue  # a leaf keeps what it receives
            for there in tree.neighbours(*here):
                if there != came_from:
                    queues[(here, there)].append(packet)
    return timeline.schedule()


def flooding_broadcast_steps(n_leaves: int) -> int:
    """Steps of broadcasting by flooding: the diameter ``2 log n`` (section 2.1 of [1]_).

    Examples
    --------
    >>> flooding_broadcast_steps(64)
    12
    """
    return 2 * (n_leaves.bit_length() - 1)


def flooding_gossip_steps(n_leaves: int) -> int:
    """Steps of multinode broadcasting by flooding: ``n + 1`` (Theorem 2 of [1]_, ``n >= 4``).

    For ``n = 2`` the two leaves exchange their packets through the root in 2 steps, the
    distance between them; Theorem 2 starts its induction at ``n = 4``.

    Examples
    --------
    >>> flooding_gossip_steps(2), flooding_gossip_steps(8)
    (2, 9)
    """
    return 2 if n_leaves == 2 else n_leaves + 1


# ----------------------------------------------------------------------------- scatter, gather


def _farthest_first_plan(tree: FatTree, source: int) -> list[tuple[int, list[int], int]]:
    """``(leaf, path from source, dispatch step)`` of every message of a farthest-first scatter.

    The source dispatches one message per step, those that travel furthest first (ties by
    leaf index); each then moves one link per step without waiting.
    """
    others = [x for x in range(tree.n_leaves) if x != source]
    others.sort(key=lambda x: (-tree.meet_level(source, x), x))
    return [(x, tree.path(source, x), step) for step, x in enumerate(others, start=1)]


def farthest_first_steps(n_leaves: int) -> int:
    """Steps of the farthest-first scatter: ``max_i T_i`` with ``T_i = n - 2^(i-1) + 2i - 1``.

    The proof of Theorem 1 of [1]_: the last message for the subtree ``S_i`` at distance
    ``2i`` leaves the source at time ``n - 2^(i-1)`` and arrives ``2i - 1`` steps later. The
    maximum is ``T_2 = n + 1`` for ``n >= 4`` and ``T_1 = 2`` for ``n = 2``.

    Examples
    --------
    >>> [farthest_first_steps(n) for n in (2, 4, 8, 64)]
    [2, 5, 9, 65]
    """
    levels = n_leaves.bit_length() - 1
    return max(n_leaves - 2 ** (i - 1) + 2 * i - 1 for i in range(1, levels + 1))


def farthest_first(instance: Instance) -> Schedule:
    """Scattering by the farthest-first discipline, and gathering by reversing it.

    Scatter: the source sends one message per step, giving priority to the messages that
    travel furthest; routers forward each message in the step after they receive it, so no
    message ever waits. Gather: the same data paths run backwards in time, the message that
    the scatter delivers in step ``t`` over arc ``(a, b)`` crossing ``(b, a)`` in step
    ``T + 1 - t``.

    Parameters
    ----------
    instance : Instance
        ``scatter:S`` or ``gather:R`` on a binary fat tree, all-port model.

    Returns
    -------
    Schedule
        :func:`farthest_first_steps` steps: ``n + 1`` for ``n >= 4``, optimal (Table 1).

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> len(farthest_first(parse_instance("fattree:32", "all-port", "scatter:7")))
    33
    >>> len(farthest_first(parse_instance("fattree:32:exp", "all-port", "gather:0")))
    33

    References
    ----------
    Dimakopoulos and Dimopoulos [1]_, section 3, Theorem 1 and Fig. 2 (farthest-first
    discipline); section 1 and section 3 ("reversing the data paths") for gathering.
    """
    tree = fat_tree_shape(instance)
    _expect(instance, ProblemKind.SCATTER, ProblemKind.GATHER)
    leaf_of = {tree.leaf(x): x for x in range(tree.n_leaves)}
    timeline = _Timeline()
    if instance.problem.kind is ProblemKind.SCATTER:
        source = _only_holder(instance)
        stock = instance.holdings[source]
        for x, path, dispatch in _farthest_first_plan(tree, leaf_of[source]):
            timeline.route(path, dispatch, stock & instance.demands[tree.leaf(x)])
        return timeline.schedule()
    root = _only_demander(instance)
    wanted = instance.demands[root]
    plan = _farthest_first_plan(tree, leaf_of[root])
    total = max(dispatch + len(path) - 2 for _, path, dispatch in plan)
    for x, path, dispatch in plan:
        # the arc crossed in step dispatch + j of the scatter is crossed backwards in
        # step total + 1 - (dispatch + j): the reversed path starts at total + 2 - dispatch - len
        reverse_start = total + 2 - dispatch - (len(path) - 1)
        timeline.route(path[::-1], reverse_start, wanted & instance.holdings[tree.leaf(x)])
    return timeline.schedule()


# ----------------------------------------------------------------------------- total exchange


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
    _expect(instance, ProblemKind.TOTAL_EXCHANGE)
    ebft = _choose_variant(tree, variant) == "ebft"
    leaves = [tree.leaf(x) for x in range(tree.n_leaves)]
    timeline = _Timeline()
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
        ``n`` times :func:`farthest_first_steps`: ``n (n + 1)`` steps for ``n >= 4``.

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
    _expect(instance, ProblemKind.TOTAL_EXCHANGE)
    leaves = [tree.leaf(x) for x in range(tree.n_leaves)]
    each = farthest_first_steps(tree.n_leaves)
    timeline = _Timeline()
    for source in range(tree.n_leaves):
        for x, path, dispatch in _farthest_first_plan(tree, source):
            packet = instance.holdings[leaves[source]] & instance.demands[leaves[x]]
            timeline.route(path, source * each + dispatch, packet)
    return timeline.schedule()
