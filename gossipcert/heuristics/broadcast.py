"""A greedy heuristic for single-packet broadcast: the largest remaining subtrees first.

Every round, the uninformed nodes that still matter (they demand the packet or lead to a
node that does) are arranged in a breadth-first forest grown from the informed nodes: each
such node hangs below one neighbour one step closer to the informed set (ties broken at
random). A *frontier* node (adjacent to an informed node) roots a subtree whose height and
number of demanding nodes say how much work remains behind it. Frontier nodes are served in
decreasing order of (height, size), each by a free informed neighbour, the one with the
fewest other uninformed neighbours; a frontier node left without a free neighbour gets one
along an augmenting path that keeps every node served so far served (Kuhn's algorithm).
Since the sets of frontier nodes that can be served together form a transversal matroid,
serving them greedily in priority order this way serves a largest possible set, and the
best one for the priorities.

Every informed node with an uninformed neighbour is thus used whenever possible, and the
deepest subtrees start first. The trial is repeated with random tie-breaking and noisy
priorities, and the shortest schedule is kept (every one ends: while a demand is unmet, some
frontier node exists and gets a sender, so each round informs a node).

The rounds are directed matchings of arcs from informed to uninformed nodes: valid in the
telephone (as one-way calls), half-duplex and single-port models, whatever the packet cap.

References
----------
.. [1] S. M. Hedetniemi, S. T. Hedetniemi and A. L. Liestman, "A survey of gossiping and
   broadcasting in communication networks", Networks 18 (1988) 319-349.
.. [2] R. Beier and J. F. Sibeyn, "A powerful heuristic for telephone gossiping", section 4
   (the breadth-first approach).
"""

from __future__ import annotations

import random
import time
from collections import deque

from gossipcert.encodings.broadcast import broadcast_applies
from gossipcert.errors import HeuristicError, UnsupportedModelError
from gossipcert.instance import Instance
from gossipcert.schedule import Round, Schedule, Transmission


def _one_trial(
    instance: Instance, nbrs: list[list[int]], rng: random.Random | None, limit: int
) -> list[Round] | None:
    n = instance.n
    informed = [bool(h & 1) for h in instance.holdings]
    demand = [bool(d & 1) for d in instance.demands]
    missing = sum(1 for v in range(n) if demand[v] and not informed[v])
    rounds: list[Round] = []
    while missing:
        if len(rounds) >= limit:
            return None
        # breadth-first forest of the uninformed nodes, grown from the informed ones
        level = [-1] * n
        parent = [-1] * n
        order: list[int] = []
        frontier: list[int] = []
        for v in range(n):
            if informed[v]:
                continue
            if any(informed[w] for w in nbrs[v]):
                level[v] = 0
                frontier.append(v)
        queue = deque(frontier)
        while queue:
            u = queue.popleft()
            order.append(u)
            for w in nbrs[u]:
                if not informed[w] and level[w] < 0:
                    level[w] = level[u] + 1
                    queue.append(w)
        for v in order:
            if level[v] > 0:
                ups = [w for w in nbrs[v] if not informed[w] and level[w] == level[v] - 1]
                parent[v] = ups[0] if rng is None else rng.choice(ups)
        height = [0 if demand[v] else -1 for v in range(n)]
        size = [1 if demand[v] else 0 for v in range(n)]
        for v in reversed(order):
            p = parent[v]
            if p >= 0:
                size[p] += size[v]
                if height[v] >= 0:
                    height[p] = max(height[p], height[v] + 1)

        keys: dict[int, tuple[float, float]] = {}
        for v in frontier:
            if height[v] < 0:
                continue
            if rng is None:
                keys[v] = (float(height[v]), float(size[v]))
            else:
                keys[v] = (height[v] + 0.9 * rng.random(), size[v] + rng.random())
        frontier = sorted(keys, key=keys.__getitem__, reverse=True)
        free_out = {
            u: sum(1 for w in nbrs[u] if not informed[w])
            for v in frontier
            for u in nbrs[v]
            if informed[u]
        }
        sender_of: dict[int, int] = {}  # receiver -> sender
        busy: dict[int, int] = {}  # sender -> receiver
        for v in frontier:
            free = [u for u in nbrs[v] if informed[u] and u not in busy]
            if free:
                u = min(free, key=lambda x: free_out[x])
                busy[u] = v
                sender_of[v] = u
            else:
                _augment(v, nbrs, informed, busy, sender_of)
        if not sender_of:
            raise HeuristicError("the broadcast greedy found no call although a demand is unmet")
        rnd = tuple(Transmission(u, (v,), 1) for v, u in sorted(sender_of.items()))
        for v in sender_of:
            informed[v] = True
            if demand[v]:
                missing -= 1
        rounds.append(rnd)
    return rounds


def _augment(
    v: int,
    nbrs: list[list[int]],
    informed: list[bool],
    busy: dict[int, int],
    sender_of: dict[int, int],
) -> bool:
    """Give ``v`` a sender along an augmenting path (Kuhn's algorithm): a free informed
    neighbour, or a busy one whose receiver can be given another sender the same way. The
    receivers served so far stay served. Returns whether ``v`` got a sender."""
    seen: set[int] = set()
    # depth-first search over (receiver, position in its neighbour list), iteratively
    stack: list[tuple[int, int]] = [(v, 0)]
    via: list[int] = []  # the sender chosen at each level of the stack
    while stack:
        x, i = stack[-1]
        if i == len(nbrs[x]):
            stack.pop()
            if via:
                via.pop()
            continue
        stack[-1] = (x, i + 1)
        u = nbrs[x][i]
        if not informed[u] or u in seen:
            continue
        seen.add(u)
        via.append(u)
        if u in busy:
            stack.append((busy[u], 0))
            continue
        # augment: each receiver on the stack takes the sender chosen at its level
        for (r, _), w in zip(stack, via, strict=True):
            busy[w] = r
            sender_of[r] = w
        return True
    return False


def broadcast_greedy(
    instance: Instance,
    trials: int = 50,
    seconds: float = 5.0,
    target: int | None = None,
    seed: int = 0,
) -> Schedule:
    """The shortest schedule among ``trials`` runs of the greedy (see the module docstring).

    Parameters
    ----------
    instance : Instance
        One packet; telephone, half-duplex or single-port, no limit on calls per round.
    trials : int
        Runs: the first deterministic, the others with random tie-breaking.
    seconds : float
        Stop starting new runs after this long.
    target : int, optional
        Stop as soon as a schedule of at most this many rounds is found (a lower bound).
    seed : int
        Seed of the random tie-breaking.

    Returns
    -------
    Schedule
        Not yet verified (the caller verifies).

    Raises
    ------
    UnsupportedModelError
        For instances the heuristic does not cover.

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> len(broadcast_greedy(parse_instance("hypercube:4", "telephone", "broadcast:0")))
    4
    """
    if not broadcast_applies(instance):
        raise UnsupportedModelError(
            f"the broadcast greedy needs one packet and a point-to-point model without "
            f"calls=N (got {instance.n_packets} packets, {instance.model.spec()})"
        )
    nbrs = [sorted(instance.graph.adj[v]) for v in range(instance.n)]
    rng = random.Random(seed)
    start = time.monotonic()
    best: list[Round] | None = None
    for i in range(max(1, trials)):
        if i and time.monotonic() - start > seconds:
            break
        limit = instance.n if best is None else len(best) - 1
        found = _one_trial(instance, nbrs, None if i == 0 else rng, limit)
        if found is not None and (best is None or len(found) < len(best)):
            best = found
            if target is not None and len(best) <= target:
                break
    if best is None:  # pragma: no cover - the first trial always ends
        raise HeuristicError("the broadcast greedy found no schedule")
    return Schedule(tuple(best))
