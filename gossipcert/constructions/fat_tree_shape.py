"""The binary fat tree of an all-port instance, as the algorithms of Dimakopoulos and
Dimopoulos [1]_ see it: its nodes by ``(level, index)``, its branch capacities and the unique
path between two leaves; the checks of the problem they solve; and the timeline of the packets
crossing its arcs, step by step, gathered into a schedule.

The algorithms are :mod:`gossipcert.constructions.fat_trees` (broadcast, gossip, scatter,
gather) and :mod:`gossipcert.constructions.fat_tree_total_exchange`.

References
----------
.. [1] V. V. Dimakopoulos and N. J. Dimopoulos, "Communications in binary fat trees",
   Proc. ICCI, 1995. Section 2 (levels, leaves, branch capacities).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import pairwise

from gossipcert import graphs
from gossipcert.errors import NotApplicableError
from gossipcert.instance import Instance, ModelKind, ProblemKind
from gossipcert.schedule import Schedule, Transmission


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


def expect_problem(instance: Instance, *kinds: ProblemKind) -> None:
    """Raise NotApplicableError unless the instance's problem is one of ``kinds``."""
    if instance.problem.kind not in kinds:
        names = " or ".join(k.value for k in kinds)
        raise NotApplicableError(
            f"this fat-tree algorithm solves {names}, not {instance.problem.spec()}"
        )


def only_holder(instance: Instance) -> int:
    """The one node holding packets (a scatter's source); raise if there is not exactly one."""
    holders = [v for v, mask in enumerate(instance.holdings) if mask]
    if len(holders) != 1:
        raise NotApplicableError("expected exactly one node holding packets")
    return holders[0]


def only_demander(instance: Instance) -> int:
    """The one node demanding packets (a gather's root); raise if there is not exactly one."""
    needers = [v for v, mask in enumerate(instance.demands) if mask]
    if len(needers) != 1:
        raise NotApplicableError("expected exactly one node demanding packets")
    return needers[0]


# ----------------------------------------------------------------------------- timelines


class Timeline:
    """The packets crossing every arc in every step, gathered into a schedule."""

    def __init__(self) -> None:
        self.loads: dict[int, dict[tuple[int, int], int]] = {}

    def send(self, step: int, u: int, w: int, mask: int) -> None:
        """The packets ``mask`` cross the arc ``(u, w)`` in step ``step``."""
        arcs = self.loads.setdefault(step, {})
        arcs[(u, w)] = arcs.get((u, w), 0) | mask

    def route(self, path: Sequence[int], start: int, mask: int) -> None:
        """Store-and-forward along ``path``: the ``j``-th arc is crossed in step ``start + j``."""
        for j, (u, w) in enumerate(pairwise(path)):
            self.send(start + j, u, w, mask)

    def schedule(self) -> Schedule:
        """Steps ``1 .. last`` as rounds, one transmission per loaded arc."""
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
