"""Schedules in TE-CCL's model built by gossipcert, to set beside TE-CCL's own.

:func:`greedy_allgather` routes one chunk at a time on its earliest-arrival tree under the
links' remaining capacity: from the chunk's source, a label-setting search (Dijkstra's, with
waiting allowed at GPUs, so arrival times are monotone) relaxes each GPU-to-GPU link at the
first epoch its windows have room, and each pass through a switch as one step (the switch
sends in the epoch the chunk reaches it, so both links must have room at their epochs; a
switch copies, so the flow into it is shared by every GPU it serves in that epoch). The
tree's flows are reserved and the next chunk is routed. A sparing variant then bans the
tree's flows on the slowest links one by one, keeping each ban that leaves the chunk's last
arrival as early (a chunk crosses a scarce link only where that gains time). Several chunk
orders are tried, each plain and sparing, and the schedule that finishes first is kept. Every
schedule it returns has been replayed by
:func:`gossipcert.formats.teccl_replay.replay_allgather` and found valid.

This is a heuristic: it gives an upper bound, which the bounds of
:mod:`.teccl_bounds` may meet.
"""

from __future__ import annotations

import heapq
import math
import random
from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from gossipcert.formats.teccl_model import EpochModel
from gossipcert.formats.teccl_replay import (
    TOLERANCE,
    EpochReplay,
    PathFlow,
    replay_allgather,
    replay_alltoall,
)

__all__ = ["GreedyResult", "greedy_allgather", "greedy_alltoall"]

Flow = tuple[int, int, int, int, int]


@dataclass(frozen=True)
class GreedyResult:
    """A verified schedule: its flows ``(source, chunk, i, j, epoch)`` and its replay."""

    flows: list[Flow]
    replay: EpochReplay

    @property
    def epochs(self) -> int:
        return self.replay.epochs


class _Links:
    """Reservations per link and epoch, against TE-CCL's window capacities."""

    def __init__(self, model: EpochModel) -> None:
        self.model = model
        self.load: dict[tuple[int, int], dict[int, int]] = defaultdict(lambda: defaultdict(int))
        self.width = {link: model.beta_epochs(*link) + 1 for link in model.machine.links}
        self.most = {
            link: int(model.window_capacity(*link) + TOLERANCE) for link in model.machine.links
        }

    def free(self, link: tuple[int, int], k: int) -> bool:
        """Whether one more flow fits on ``link`` in epoch ``k``."""
        w, most = self.width[link], self.most[link]
        if most < 1:
            return False
        load = self.load[link]
        for end in range(k, k + w):
            if sum(load.get(t, 0) for t in range(end - w + 1, end + 1)) + 1 > most:
                return False
        return True

    def first(self, link: tuple[int, int], k: int, limit: int) -> int | None:
        """The first epoch from ``k`` (below ``limit``) with room on ``link``."""
        while k < limit:
            if self.free(link, k):
                return k
            k += 1
        return None

    def take(self, link: tuple[int, int], k: int) -> None:
        self.load[link][k] += 1

    def give(self, link: tuple[int, int], k: int) -> None:
        self.load[link][k] -= 1


def _steps_into(
    model: EpochModel,
    links: _Links,
    u: int,
    t: int,
    v: int,
    w: int | None,
    limit: int,
    mine: set[tuple[int, int, int]],
) -> tuple[int, list[tuple[int, int, int]]] | None:
    """The earliest arrival at ``v`` from ``u`` (holding the chunk from ``t``), directly or
    through switch ``w``, and its link flows; ``mine``: flows this chunk already has."""

    def room(link: tuple[int, int], k: int) -> bool:
        return (link[0], link[1], k) in mine or links.free(link, k)

    k = t
    while k < limit:
        if w is None:
            if room((u, v), k):
                return k + model.held_after(u, v), [(u, v, k)]
        else:
            k2 = k + model.held_after(u, w)
            if room((u, w), k) and room((w, v), k2):
                return k2 + model.held_after(w, v), [(u, w, k), (w, v, k2)]
        k += 1
    return None


def _route(
    model: EpochModel,
    links: _Links,
    source: int,
    limit: int,
    banned: frozenset[tuple[int, int]] = frozenset(),
) -> tuple[int, list[tuple[int, int, int]]] | None:
    """One chunk's earliest-arrival tree avoiding the ``banned`` links: (the epoch the last
    GPU holds it, the tree's flows, reserved on ``links``), or None if some GPU is
    unreachable before ``limit``."""
    m = model.machine
    ways: dict[int, list[tuple[int, int | None]]] = defaultdict(list)  # v -> (u, switch)
    for i, j in m.links:
        if model.is_switch(i) or j == source or (i, j) in banned:
            continue
        if not model.is_switch(j):
            ways[j].append((i, None))
        else:
            for a, b in m.links:
                if a == j and not model.is_switch(b) and b != source and (a, b) not in banned:
                    ways[b].append((i, j))
    settled = {source: 0}
    mine: set[tuple[int, int, int]] = set()
    heap: list[tuple[int, int, list[tuple[int, int, int]]]] = []

    def best_into(v: int) -> None:
        found = None
        for u, w in ways[v]:
            if u in settled:
                got = _steps_into(model, links, u, settled[u], v, w, limit, mine)
                if got is not None and (found is None or got[0] < found[0]):
                    found = got
        if found is not None:
            heapq.heappush(heap, (found[0], v, found[1]))

    for v in m.gpus:
        if v != source:
            best_into(v)
    while heap:
        t, v, steps = heapq.heappop(heap)
        if v in settled:
            continue
        if not all((i, j, k) in mine or links.free((i, j), k) for i, j, k in steps):
            best_into(v)  # a slot went to another GPU of this chunk: look again
            continue
        settled[v] = t
        for i, j, k in steps:
            if (i, j, k) not in mine:
                mine.add((i, j, k))
                links.take((i, j), k)
        for x in m.gpus:
            if x not in settled and any(u == v for u, _ in ways[x]):
                best_into(x)
    if any(g not in settled for g in m.gpus):
        for i, j, k in mine:
            links.give((i, j), k)
        return None
    return max(settled.values()), sorted(mine, key=lambda f: f[2])


def _sparing_route(
    model: EpochModel, links: _Links, source: int, limit: int, slow: frozenset[tuple[int, int]]
) -> list[tuple[int, int, int]] | None:
    """An earliest-arrival tree, then the same with each of its flows on the ``slow`` links
    banned in turn (latest first), kept when the last GPU still holds the chunk as early: a
    chunk crosses a scarce link only where that gains time."""
    first = _route(model, links, source, limit)
    if first is None:
        return None
    done, tree = first
    banned: frozenset[tuple[int, int]] = frozenset()
    for i, j, k in sorted(tree, key=lambda f: -f[2]):
        if (i, j) not in slow or (i, j) in banned or (i, j, k) not in tree:
            continue
        for a, b, t in tree:
            links.give((a, b), t)
        trial = _route(model, links, source, done + 1, banned | {(i, j)})
        if trial is not None and trial[0] <= done:
            banned, tree = banned | {(i, j)}, trial[1]
            continue
        if trial is not None:
            for a, b, t in trial[1]:
                links.give((a, b), t)
        for a, b, t in tree:
            links.take((a, b), t)
    return tree


def _build(
    model: EpochModel, order: list[tuple[int, int]], limit: int, sparing: bool
) -> list[Flow] | None:
    links = _Links(model)
    rates = {link: model.per_epoch(*link) for link in model.machine.links}
    slowest = min(rates.values())
    slow = frozenset(link for link, r in rates.items() if r < 1 or r == slowest)
    if not sparing:
        slow = frozenset()
    flows: list[Flow] = []
    for s, c in order:
        tree = _sparing_route(model, links, s, limit, slow)
        if tree is None:
            return None
        flows.extend((s, c, i, j, k) for i, j, k in tree)
    return flows


def greedy_allgather(
    model: EpochModel,
    chunks: int = 1,
    tries: int = 8,
    seed: int = 0,
    limit: int = 100_000,
    progress: Callable[[str], None] | None = None,
) -> GreedyResult | None:
    """The best of ``tries`` greedy allgather schedules (module docstring), verified.

    Parameters
    ----------
    model : EpochModel
    chunks : int
        Chunks of each GPU's data.
    tries : int
        Chunk orders tried: by source, by chunk, then shuffled with ``seed``.
    limit : int
        No flow at or after this epoch.
    progress : callable, optional
        Called with a line after each try.

    Returns
    -------
    GreedyResult or None
        None when no try meets every demand.

    Examples
    --------
    >>> from gossipcert.formats.teccl_machines import mesh
    >>> greedy_allgather(EpochModel(mesh(3), chunk=1.0, epoch=0.01)).epochs
    4
    """
    gpus = model.machine.gpus
    base = [(s, c) for c in range(chunks) for s in gpus]
    rng = random.Random(seed)
    orders = [base, sorted(base, key=lambda x: (x[0], x[1]))]
    while len(orders) < tries:
        shuffled = list(base)
        rng.shuffle(shuffled)
        orders.append(shuffled)
    best: GreedyResult | None = None
    for n, order in enumerate(orders[:tries], 1):
        for sparing in (True, False):
            flows = _build(model, order, limit, sparing)
            if flows is None:
                continue
            rep = replay_allgather(model, flows, chunks, gpus)
            if rep.valid and (best is None or rep.epochs < best.epochs):
                best = GreedyResult(flows, rep)
        if progress is not None:
            progress(f"greedy order {n} of {tries}: best {best.epochs if best else '-'} epochs")
    return best


def _piece_route(
    model: EpochModel,
    load: dict[tuple[int, int], dict[int, float]],
    source: int,
    dest: int,
    piece: float,
    limit: int,
) -> list[tuple[int, int, int]] | None:
    """The earliest-consumed path of ``piece`` of a chunk from ``source`` to ``dest`` under
    the links' remaining capacity (alltoall: no copies; a GPU may keep data, a switch sends
    it on in the epoch after it arrives)."""
    m = model.machine

    def room(i: int, j: int, k: int) -> bool:
        return load[(i, j)].get(k, 0.0) + piece <= model.per_epoch(i, j) + TOLERANCE

    out: dict[int, list[int]] = defaultdict(list)
    for i, j in m.links:
        out[i].append(j)
    best = {source: 0}
    how: dict[int, tuple[int, list[tuple[int, int, int]]]] = {}
    heap = [(0, source)]
    finish: tuple[int, int] | None = None  # (consumed in epoch, via node)
    while heap:
        t, u = heapq.heappop(heap)
        if t > best.get(u, limit) or (finish is not None and t > finish[0]):
            continue
        for w in out[u]:
            paths: list[tuple[int, list[tuple[int, int, int]], int]] = []
            if not model.is_switch(w):
                k = next((k for k in range(t, limit) if room(u, w, k)), None)
                if k is not None:
                    paths.append((w, [(u, w, k)], k + model.arrival_delay(u, w)))
            else:
                for v in out[w]:
                    if model.is_switch(v):
                        continue
                    for k in range(t, limit):
                        k2 = k + model.arrival_delay(u, w) + 1
                        if room(u, w, k) and room(w, v, k2):
                            paths.append((v, [(u, w, k), (w, v, k2)],
                                          k2 + model.arrival_delay(w, v)))  # fmt: skip
                            break
            for v, steps, arrive in paths:
                if v == dest:
                    if finish is None or arrive < finish[0]:
                        finish = (arrive, u)
                        how[dest] = (u, steps)
                elif arrive + 1 < best.get(v, limit):
                    best[v] = arrive + 1
                    how[v] = (u, steps)
                    heapq.heappush(heap, (arrive + 1, v))
    if finish is None:
        return None
    hops: list[tuple[int, int, int]] = []
    node = dest
    while node != source:
        prev, steps = how[node]
        hops[:0] = steps
        node = prev
    return hops


def greedy_alltoall(
    model: EpochModel,
    tries: int = 4,
    seed: int = 0,
    limit: int = 100_000,
    progress: Callable[[str], None] | None = None,
) -> tuple[list[PathFlow], EpochReplay] | None:
    """The best of ``tries`` greedy alltoall schedules, verified: each chunk is cut into
    pieces of ``1 / n`` (``n`` the fewest that every link carries a whole one of in an
    epoch) and each piece takes its earliest-consumed path under the capacity left; chunks go
    farthest first, then shuffled orders.

    Examples
    --------
    >>> from gossipcert.formats.teccl_machines import mesh
    >>> got = greedy_alltoall(EpochModel(mesh(2), chunk=1.0, epoch=0.01))
    >>> got[1].valid, got[1].epochs
    (True, 2)
    """
    m = model.machine
    gpus = m.gpus
    rank = {g: r for r, g in enumerate(gpus)}
    least = min(model.per_epoch(*link) for link in m.links)
    parts = max(1, math.ceil(1 / least - TOLERANCE))
    piece = 1.0 / parts
    delay = {link: model.arrival_delay(*link) + 1 for link in m.links}
    far = {s: _distances(m.links, delay, s) for s in gpus}
    pairs = [(s, d) for s in gpus for d in gpus if s != d]
    rng = random.Random(seed)
    orders = [sorted(pairs, key=lambda p: (-far[p[0]].get(p[1], 0), p))]
    while len(orders) < tries:
        shuffled = list(pairs)
        rng.shuffle(shuffled)
        orders.append(shuffled)
    demands = {(s, d, rank[d]) for s, d in pairs}
    best: tuple[list[PathFlow], EpochReplay] | None = None
    for n, order in enumerate(orders[:tries], 1):
        if progress is not None and n > 1:
            progress(f"greedy order {n - 1} of {tries}: best "
                     f"{best[1].epochs if best else '-'} epochs")  # fmt: skip
        load: dict[tuple[int, int], dict[int, float]] = defaultdict(dict)
        volume: dict[tuple[int, int, tuple[tuple[int, int, int], ...]], float] = defaultdict(float)
        ok = True
        for s, d in order:
            for _ in range(parts):
                hops = _piece_route(model, load, s, d, piece, limit)
                if hops is None:
                    ok = False
                    break
                for i, j, k in hops:
                    load[(i, j)][k] = load[(i, j)].get(k, 0.0) + piece
                volume[(s, d, tuple(hops))] += piece
            if not ok:
                break
        if not ok:
            continue
        paths = [PathFlow(s, d, rank[d], v, hops) for (s, d, hops), v in sorted(volume.items())]
        rep = replay_alltoall(model, paths, demands)
        if rep.valid and (best is None or rep.epochs < best[1].epochs):
            best = (paths, rep)
    return best


def _distances(
    links: Iterable[tuple[int, int]], delay: dict[tuple[int, int], int], source: int
) -> dict[int, int]:
    out: dict[int, list[int]] = defaultdict(list)
    for i, j in links:
        out[i].append(j)
    dist = {source: 0}
    heap = [(0, source)]
    while heap:
        t, u = heapq.heappop(heap)
        if t > dist[u]:
            continue
        for v in out[u]:
            if t + delay[(u, v)] < dist.get(v, 1 << 60):
                dist[v] = t + delay[(u, v)]
                heapq.heappush(heap, (dist[v], v))
    return dist
