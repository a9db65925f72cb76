"""Broadcast, scatter, gather and gossip in binary fat trees (all-port).

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

Total exchange (section 5) is :mod:`gossipcert.constructions.fat_tree_total_exchange`; the
tree's shape and the timeline that turns routes into a schedule are
:mod:`gossipcert.constructions.fat_tree_shape`. Each function returns a schedule in which
every packet moves along the unique path of the tree; the step counts of the paper are given
by the ``*_steps`` functions below.

References
----------
.. [1] V. V. Dimakopoulos and N. J. Dimopoulos, "Communications in binary fat trees",
   Proc. ICCI, 1995. Sections 2-4, Table 1, Theorems 1-2.
"""

from __future__ import annotations

from collections import deque

from gossipcert.constructions.fat_tree_shape import (
    FatTree,
    Timeline,
    expect_problem,
    fat_tree_shape,
    only_demander,
    only_holder,
)
from gossipcert.instance import Instance, ProblemKind, bits
from gossipcert.schedule import Schedule


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
    expect_problem(instance, ProblemKind.BROADCAST, ProblemKind.GOSSIP)
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
    timeline = Timeline()
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


def farthest_first_plan(tree: FatTree, source: int) -> list[tuple[int, list[int], int]]:
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
    expect_problem(instance, ProblemKind.SCATTER, ProblemKind.GATHER)
    leaf_of = {tree.leaf(x): x for x in range(tree.n_leaves)}
    timeline = Timeline()
    if instance.problem.kind is ProblemKind.SCATTER:
        source = only_holder(instance)
        stock = instance.holdings[source]
        for x, path, dispatch in farthest_first_plan(tree, leaf_of[source]):
            timeline.route(path, dispatch, stock & instance.demands[tree.leaf(x)])
        return timeline.schedule()
    root = only_demander(instance)
    wanted = instance.demands[root]
    plan = farthest_first_plan(tree, leaf_of[root])
    total = max(dispatch + len(path) - 2 for _, path, dispatch in plan)
    for x, path, dispatch in plan:
        # the arc crossed in step dispatch + j of the scatter is crossed backwards in
        # step total + 1 - (dispatch + j): the reversed path starts at total + 2 - dispatch - len
        reverse_start = total + 2 - dispatch - (len(path) - 1)
        timeline.route(path[::-1], reverse_start, wanted & instance.holdings[tree.leaf(x)])
    return timeline.schedule()
