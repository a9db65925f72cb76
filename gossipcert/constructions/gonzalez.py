"""Gonzalez's gossiping schedules for the multicast model (one packet per transmission).

Every communication is carried out in a minimum-depth spanning tree ``T`` of the network
(section 3.1): a breadth-first-search tree from a centre, of height ``r``, the radius. The
messages are labelled ``0..n-1`` in depth-first order from the root (section 3.2), and

- **Simple** (Lemma 1) sends every message up to the root, message ``i`` arriving there at
  time ``i``, then sends message ``m`` down from the root at time ``n - 2 + m``, every
  inner node forwarding at once: ``2n + r - 3`` rounds;
- **ConcurrentUpDown** (Theorem 1) overlaps Propagate-Up (steps U1-U4) and Propagate-Down
  (steps D1-D3), which never collide: ``n + r`` rounds.

The paper's abstract and section 4 say "at most ``n + r``"; Lemma 1 and Theorem 1 state
``2n + r - 3`` and ``n + r`` as the schedules' total times. Both are exact for the schedules
as constructed: the deepest node of the tree receives message ``n - 1`` (Simple) or
message ``0`` (ConcurrentUpDown) in the very last round, except that Simple ends one round
earlier when the only deepest node is the origin of message ``n - 1``. A path with
``2m + 1`` nodes needs ``n + r - 1`` rounds (section 1), one fewer than ConcurrentUpDown.

Time convention (section 1): a message sent "at time ``t``" is received at time ``t + 1``;
here that is round ``t + 1`` of the schedule, and a message received at time ``t`` (after
round ``t``) may be sent at time ``t`` (in round ``t + 1``), as the design requires.

References
----------
.. [1] T. F. Gonzalez, "An efficient algorithm for gossiping in the multicasting
   communication environment", IEEE Trans. Parallel and Distributed Systems 14(7), 2003,
   sections 1, 3.1 and 3.2 (Lemmas 1-3, Theorem 1, Tables 1-4).
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass

import networkx as nx

from gossipcert import graphs
from gossipcert.constructions.rings import origin_packet
from gossipcert.errors import NotApplicableError
from gossipcert.instance import Instance, ModelKind, ProblemKind
from gossipcert.schedule import Schedule, Transmission

__all__ = [
    "RootedTree",
    "concurrent_up_down",
    "minimum_depth_spanning_tree",
    "simple",
]


@dataclass(frozen=True)
class RootedTree:
    """A rooted spanning tree with Gonzalez's depth-first message labels.

    Attributes
    ----------
    root : int
        The root (a centre of the graph for a minimum-depth tree).
    parent : tuple of int
        ``parent[v]``; ``-1`` for the root.
    children : tuple of tuple of int
        The children of each node, in the fixed order of its subtrees.
    level : tuple of int
        Depth of each node (the root is at level 0).
    label : tuple of int
        ``label[v] = i``: the message that starts at ``v``, numbered in depth-first
        (preorder) order from the root (label 0) following ``children``.
    last : tuple of int
        ``last[v] = j``: the largest label in the subtree of ``v``, whose labels are
        exactly ``i..j``.
    """

    root: int
    parent: tuple[int, ...]
    children: tuple[tuple[int, ...], ...]
    level: tuple[int, ...]
    label: tuple[int, ...]
    last: tuple[int, ...]

    @property
    def height(self) -> int:
        """The largest level: the radius ``r`` for a minimum-depth tree."""
        return max(self.level)

    def node_of_label(self) -> list[int]:
        """The inverse of ``label``: the node where each message starts."""
        out = [0] * len(self.label)
        for v, i in enumerate(self.label):
            out[i] = v
        return out


def _bfs_tree(graph: nx.Graph, root: int) -> RootedTree:
    """The breadth-first-search tree from ``root``, neighbours taken in increasing order."""
    n = graph.number_of_nodes()
    parent = [-1] * n
    level = [-1] * n
    level[root] = 0
    kids: list[list[int]] = [[] for _ in range(n)]
    queue = deque([root])
    while queue:
        u = queue.popleft()
        for w in sorted(graph[u]):
            if level[w] < 0:
                level[w] = level[u] + 1
                parent[w] = u
                kids[u].append(w)
                queue.append(w)
    if min(level) < 0:
        raise NotApplicableError("the graph is disconnected: it has no spanning tree")
    # label the messages in depth-first order, starting with the root (section 3.2)
    label = [0] * n
    last = [0] * n
    counter = 0
    stack: list[tuple[int, bool]] = [(root, False)]
    while stack:
        v, done = stack.pop()
        if done:
            last[v] = max([label[v]] + [last[c] for c in kids[v]])
            continue
        label[v] = counter
        counter += 1
        stack.append((v, True))
        stack.extend((c, False) for c in reversed(kids[v]))
    return RootedTree(
        root,
        tuple(parent),
        tuple(tuple(k) for k in kids),
        tuple(level),
        tuple(label),
        tuple(last),
    )


def minimum_depth_spanning_tree(graph: nx.Graph, root: int | None = None) -> RootedTree:
    """A spanning tree of least height: the BFS tree from a centre of the graph.

    Parameters
    ----------
    graph : networkx.Graph
        A connected graph on the nodes ``0..n-1``.
    root : int, optional
        Build the BFS tree from this node instead of the first centre.

    Returns
    -------
    RootedTree
        Height equal to the radius (when ``root`` is None), labels in depth-first order.

    Examples
    --------
    >>> t = minimum_depth_spanning_tree(graphs.path(5))
    >>> t.root, t.height, t.label, t.last
    (2, 2, (2, 1, 0, 3, 4), (2, 2, 4, 4, 4))

    References
    ----------
    Gonzalez 2003, section 3.1: "performing n breadth-first search (BFS) traversals of the
    graph starting at each vertex and then selecting the tree with least height".
    """
    n = graph.number_of_nodes()
    if n == 0:
        raise NotApplicableError("the graph has no nodes")
    if root is not None:
        return _bfs_tree(graph, root)
    if graph.graph.get("vertex_transitive"):
        return _bfs_tree(graph, 0)
    # one BFS from every vertex; keep the first tree of least height
    best: RootedTree | None = None
    for v in range(n):
        tree = _bfs_tree(graph, v)
        if best is None or tree.height < best.height:
            best = tree
    assert best is not None
    return best


class _Plan:
    """What every node sends at every time: one message, to a set of neighbours.

    A node may multicast one message per time unit; two steps of the paper that send the
    same message at the same time (Steps U4 and D3) merge into one multicast.
    """

    def __init__(self) -> None:
        self.sends: dict[tuple[int, int], tuple[int, set[int]]] = {}

    def send(self, v: int, time: int, message: int, receivers: set[int] | list[int]) -> None:
        if not receivers:
            return
        key = (v, time)
        if key in self.sends:
            other, to = self.sends[key]
            if other != message:
                raise RuntimeError(
                    f"node {v} would send messages {other} and {message} at time {time}"
                )
            to.update(receivers)
        else:
            self.sends[key] = (message, set(receivers))

    def schedule(self, instance: Instance, tree: RootedTree) -> Schedule:
        """Turn the plan into rounds: a send at time ``t`` happens in round ``t + 1``."""
        node_of = tree.node_of_label()
        packet = [origin_packet(instance, node_of[m]) for m in range(instance.n)]
        length = 1 + max((t for _, t in self.sends), default=-1)
        rounds: list[list[Transmission]] = [[] for _ in range(length)]
        for (v, t), (m, to) in sorted(self.sends.items(), key=lambda kv: (kv[0][1], kv[0][0])):
            rounds[t].append(Transmission(v, tuple(sorted(to)), 1 << packet[m]))
        return Schedule(tuple(tuple(r) for r in rounds))


def _check(instance: Instance, algorithm: str) -> None:
    model = instance.model
    if model.kind is not ModelKind.MULTICAST:
        raise NotApplicableError(
            f"{algorithm} is a multicast schedule (Gonzalez 2003); got {model.spec()}"
        )
    if model.calls_per_round is not None:
        raise NotApplicableError(f"{algorithm} sends many messages per round; got {model.spec()}")
    if instance.problem.kind is not ProblemKind.GOSSIP:
        raise NotApplicableError(f"{algorithm} solves gossip; got {instance.problem.spec()}")
    if graphs.routers(instance.graph):
        raise NotApplicableError(f"{algorithm} needs every node to hold a message (no routers)")


def _tree(instance: Instance, root: int | None) -> RootedTree:
    return minimum_depth_spanning_tree(instance.graph, root)


def simple(instance: Instance, root: int | None = None) -> Schedule:
    """Gonzalez's algorithm Simple: all messages up to the root, then all down.

    Up: message ``i`` at level ``k`` is sent to the parent at time ``i - k``, from there to
    the grandparent at time ``i - k + 1``, and so on, so that the root receives it at time
    ``i``. Down: at time ``n - 2 + m`` the root multicasts message ``m`` to all its
    children; every inner node multicasts to all its children what it receives from its
    parent, at once.

    Parameters
    ----------
    instance : Instance
        Gossip under ``multicast`` (any packet cap), no routers.
    root : int, optional
        Root of the BFS tree (default: a centre, which gives a tree of height ``r``).

    Returns
    -------
    Schedule
        ``2n + h - 3`` rounds for a tree of height ``h >= 1`` (``2n + r - 3`` from a centre).

    Raises
    ------
    NotApplicableError
        Another model or problem, or routers.

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> from gossipcert.simulate import simulate
    >>> inst = parse_instance("path:5", "multicast", "gossip")
    >>> rep = simulate(inst, simple(inst))
    >>> rep.ok, rep.rounds
    (True, 9)

    References
    ----------
    Gonzalez 2003, section 3.2, algorithm Simple and Lemma 1 ("total communication time
    2n + r - 3 for any tree with n processors and height r").
    """
    _check(instance, "Simple")
    n = instance.n
    if n == 1:
        return Schedule(())
    tree = _tree(instance, root)
    plan = _Plan()
    for v in range(n):
        # up: message i travels from its level k to the root, one level per time unit
        m = tree.label[v]
        u = v
        while u != tree.root:
            plan.send(u, m - tree.level[u], m, [tree.parent[u]])
            u = tree.parent[u]
    for u in range(n):
        # down: the root sends message m at time n - 2 + m; level-l nodes forward it at
        # time n - 2 + m + l, the time they receive it
        if tree.children[u]:
            for m in range(n):
                plan.send(u, n - 2 + m + tree.level[u], m, list(tree.children[u]))
    return plan.schedule(instance, tree)


def concurrent_up_down(instance: Instance, root: int | None = None) -> Schedule:
    """Gonzalez's algorithm ConcurrentUpDown: Propagate-Up and Propagate-Down overlapped.

    For a node ``v`` at level ``k`` whose subtree holds the messages ``i..j`` (``i`` its
    own), with parent ``v'`` holding ``i'`` (section 3.2):

    - (U3) at time 0, if ``i = i' + 1`` (the lip-message), ``v`` sends ``i`` to ``v'``;
    - (U4) from time ``i - k + w`` (``w`` = number of lip-messages), ``v`` sends the
      rip-messages ``i + w..j`` to ``v'``, message ``m`` at time ``m - k``;
    - (D2) ``v`` multicasts to all its children the o-messages it receives from ``v'``,
      at once, except those received at times ``i - k`` and ``i - k + 1``, which it sends
      at times ``j - k + 1`` and ``j - k + 2``;
    - (D3) from time ``i - k`` to ``j - k`` ``v`` sends messages ``i..j`` in increasing
      order (message ``m`` at time ``m - k``) to all its children except the one whose
      subtree already has ``m``; message ``i`` goes to all children, and when ``i = k`` it
      is sent at time ``j - k + 1`` instead.

    Steps U1, U2 and D1 are the receiving sides of U3, U4, D2 and D3. The root (``i = k = 0``,
    ``j = n - 1``) thus sends message ``m`` at time ``m`` for ``1 <= m <= n - 1`` and
    message 0 at time ``n``.

    Parameters
    ----------
    instance : Instance
        Gossip under ``multicast`` (any packet cap), no routers.
    root : int, optional
        Root of the BFS tree (default: a centre, which gives a tree of height ``r``).

    Returns
    -------
    Schedule
        ``n + h`` rounds for a tree of height ``h >= 1`` (``n + r`` from a centre).

    Raises
    ------
    NotApplicableError
        Another model or problem, or routers.

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> from gossipcert.simulate import simulate
    >>> inst = parse_instance("path:5", "multicast", "gossip")
    >>> rep = simulate(inst, concurrent_up_down(inst))
    >>> rep.ok, rep.rounds
    (True, 7)

    References
    ----------
    Gonzalez 2003, section 3.2: algorithms Propagate-Up (U1-U4, Lemma 2) and
    Propagate-Down (D1-D3, Lemma 3), procedure ConcurrentUpDown and Theorem 1.
    """
    _check(instance, "ConcurrentUpDown")
    n = instance.n
    if n == 1:
        return Schedule(())
    tree = _tree(instance, root)
    plan = _Plan()
    _propagate_up(tree, plan)
    _propagate_down(tree, plan)
    return plan.schedule(instance, tree)


def _propagate_up(tree: RootedTree, plan: _Plan) -> None:
    """Gonzalez's Propagate-Up at every non-root vertex (U3, U4) into ``plan``."""
    n = len(tree.label)
    lab, last, lev = tree.label, tree.last, tree.level
    for v in range(n):
        if v == tree.root:
            continue
        i, j, k = lab[v], last[v], lev[v]
        parent = tree.parent[v]
        lip = i == lab[parent] + 1
        w = 1 if lip else 0
        if lip:
            # (U3) the lip-message goes to the parent at time 0
            plan.send(v, 0, i, [parent])
        for m in range(i + w, j + 1):
            # (U4) the rip-messages, message m at time m - k
            plan.send(v, m - k, m, [parent])


def _propagate_down(tree: RootedTree, plan: _Plan) -> None:
    """Gonzalez's Propagate-Down (D1-D3) into ``plan``, level by level so that what a vertex
    receives is known."""
    n = len(tree.label)
    lab, last, lev = tree.label, tree.last, tree.level

    def child_holding(v: int, m: int) -> int | None:
        """The child of ``v`` whose subtree starts message ``m`` (None if ``m == i``)."""
        for c in tree.children[v]:
            if lab[c] <= m <= last[c]:
                return c
        return None

    # what each vertex sends down: (time, message, receivers)
    down: dict[int, list[tuple[int, int, list[int]]]] = {v: [] for v in range(n)}
    order = sorted(range(n), key=lambda x: lev[x])
    for v in order:
        kids = tree.children[v]
        if not kids:
            continue
        i, j, k = lab[v], last[v], lev[v]
        sends: list[tuple[int, int, list[int]]] = []
        if v != tree.root:
            # (D1) the o-messages arrive from the parent one time unit after it sends them
            parent = tree.parent[v]
            for t_sent, m, to in down[parent]:
                if v not in to:
                    continue  # the parent does not send v what its subtree holds
                received = t_sent + 1
                # (D2) forward at once, except the ones received at times i-k and i-k+1
                if received == i - k:
                    at = j - k + 1
                elif received == i - k + 1:
                    at = j - k + 2
                else:
                    at = received
                sends.append((at, m, list(kids)))
        # (D3) messages i..j in increasing order from time i - k
        for m in range(i, j + 1):
            if m == i:
                at = j - k + 1 if i == k else i - k
                sends.append((at, m, list(kids)))
            else:
                holder = child_holding(v, m)
                sends.append((m - k, m, [c for c in kids if c != holder]))
        for at, m, to in sends:
            plan.send(v, at, m, to)
            if to:
                down[v].append((at, m, to))
