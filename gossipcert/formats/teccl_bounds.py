"""Lower bounds on the epochs of a collective in TE-CCL's model (:mod:`.teccl_model`).

Two bounds, each a closed form over the model's own delays and capacities:

- **distance**: a chunk of ``s`` is usable at ``v`` no earlier than the shortest path from
  ``s`` to ``v`` whose links cost their delay: ``held_after`` for allgather (``A + B + 1``,
  ``A`` into a GPU from a switch), ``A + 1`` for alltoall (arrival in ``A``, forwarding the
  epoch after). The epochs required are at least the largest such distance between two
  GPUs (for allgather: met at the end of the epoch before the chunk is usable).
- **cut**: for a set ``T`` of nodes and a GPU ``d`` in it, every chunk of a GPU outside
  ``T`` that ``d`` wants must cross a link ``(i, j)`` from outside into ``T`` in some epoch
  ``k`` no earlier than the chunk can be at ``i`` (its distance from its source) and early
  enough to reach ``d`` in time: ``k + delay(i, j) + dist(j, d) <= E`` (allgather;
  ``k + A + 1 + dist(j, d) <= E`` for alltoall, ``dist`` the distance above). Each crossing
  carries one chunk (allgather: a flow is one chunk; one crossing may serve many
  destinations, but ``d`` needs its own), and a link carries at most its capacity: for
  allgather ``floor(window capacity)`` chunks in any ``B + 1`` consecutive epochs, so at
  most ``ceil(L / (B + 1))`` windows' worth in ``L`` epochs (a horizon of at least ``B + 1``
  epochs covers every such stretch with TE-CCL's windows); for alltoall ``rate epoch`` an
  epoch, fractions allowed. If the maximum flow of chunks into these link-epoch slots is less
  than the chunks, ``E`` epochs are impossible. The flow network is exact rational arithmetic
  (capacities as the exact binary value of TE-CCL's floats, plus its solver tolerance), so the
  refutation is a checkable fact: the cut, the destination, the flow value and the demand.

The cuts tried are the single GPUs, the chassis (a chassis with its switches), and the
complements of both; the bound is the least ``E`` no cut refutes.

References
----------
.. [1] L. R. Ford, D. R. Fulkerson, "Maximal flow through a network", 1956 (the flow
   network's value bounds what the cut's links can carry).
.. [2] github.com/microsoft/TE-CCL, ``teccl/solvers/allgather.py`` and ``alltoall.py``
   (the rules the delays and capacities come from).
"""

from __future__ import annotations

import heapq
import itertools
import math
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from functools import partial

import networkx as nx

from gossipcert.formats.teccl_model import EpochModel
from gossipcert.formats.teccl_replay import TOLERANCE

__all__ = ["EpochBound", "cut_refutes", "distance_bound", "epoch_lower_bound"]

_INF = 1 << 60


@dataclass(frozen=True)
class EpochBound:
    """A lower bound on the epochs required, with its evidence.

    Attributes
    ----------
    value : int
        No schedule meets every demand in fewer epochs.
    kind : str
        ``distance`` or ``cut``.
    detail : str
        For ``distance``: the source and destination; for ``cut``: the set, the destination,
        the epochs refuted, the flow value and the chunks it had to carry.
    """

    value: int
    kind: str
    detail: str

    def to_json(self) -> dict[str, object]:
        return {"value": self.value, "kind": self.kind, "detail": self.detail}


def _delay(model: EpochModel, collective: str) -> Callable[[int, int], int]:
    if collective == "allgather":
        return model.held_after
    return lambda i, j: model.alpha_epochs(i, j) + 1


def _dijkstra(model: EpochModel, start: int, delay: Callable[[int, int], int],
              reverse: bool = False) -> dict[int, int]:  # fmt: skip
    """Shortest delays from ``start`` (to ``start`` when ``reverse``)."""
    out: dict[int, list[int]] = {}
    for i, j in model.machine.links:
        a, b = (j, i) if reverse else (i, j)
        out.setdefault(a, []).append(b)
    dist = {start: 0}
    heap = [(0, start)]
    while heap:
        t, u = heapq.heappop(heap)
        if t > dist[u]:
            continue
        for v in out.get(u, []):
            nt = t + (delay(v, u) if reverse else delay(u, v))
            if nt < dist.get(v, _INF):
                dist[v] = nt
                heapq.heappush(heap, (nt, v))
    return dist


def distance_bound(model: EpochModel, collective: str) -> EpochBound:
    """The distance bound (module docstring).

    Examples
    --------
    >>> from gossipcert.formats.teccl_machines import mesh
    >>> distance_bound(EpochModel(mesh(3), 1.0, 0.01), "allgather").value
    4
    """
    delay = _delay(model, collective)
    best = (0, -1, -1)
    for s in model.machine.gpus:
        dist = _dijkstra(model, s, delay)
        for d in model.machine.gpus:
            if d != s and dist.get(d, _INF) > best[0]:
                best = (dist.get(d, _INF), s, d)
    if best[0] >= _INF:
        raise ValueError("the machine's GPUs do not reach each other")
    return EpochBound(best[0], "distance", f"from {best[1]} to {best[2]}")


def _cap(model: EpochModel, link: tuple[int, int], collective: str) -> tuple[Fraction, int]:
    """(chunks a window carries, the window's epochs) of a link."""
    i, j = link
    if collective == "allgather":
        return Fraction(math.floor(model.window_capacity(i, j) + TOLERANCE)), (
            model.beta_epochs(i, j) + 1
        )
    return Fraction(model.per_epoch(i, j)) + Fraction(TOLERANCE), 1


def cut_refutes(
    model: EpochModel,
    collective: str,
    inside: frozenset[int],
    dest: int,
    epochs: int,
    *,
    ready: dict[int, dict[int, int]],
    to_dest: dict[int, int],
    chunks: int = 1,
) -> tuple[bool, Fraction, int]:
    """Whether the cut ``inside`` refutes ``epochs`` for destination ``dest``.

    Parameters
    ----------
    ready : dict
        ``ready[s][v]``: the distance from GPU ``s`` to ``v``.
    to_dest : dict
        ``to_dest[v]``: the distance from ``v`` to ``dest``.
    chunks : int
        Chunks of a GPU's data (allgather) or sent to each GPU (alltoall).

    Returns
    -------
    (bool, Fraction, int)
        Refuted, the flow value, the chunks to carry.
    """
    delay = _delay(model, collective)
    sources = [s for s in model.machine.gpus if s not in inside]
    need = len(sources) * chunks
    if need == 0:
        return False, Fraction(0), 0
    net = nx.DiGraph()
    pieces: list[tuple[object, object, Fraction]] = []
    for i, j in model.machine.links:
        if i in inside or j not in inside:
            continue
        last = epochs - delay(i, j) - to_dest.get(j, _INF)
        if collective == "alltoall":
            last = epochs - model.alpha_epochs(i, j) - 1 - to_dest.get(j, _INF)
        releases = sorted({ready[s].get(i, _INF) for s in sources} - {_INF})
        releases = [r for r in releases if r <= last]
        if not releases:
            continue
        cap, width = _cap(model, (i, j), collective)
        unbounded = collective == "allgather" and epochs < width
        # nested windows [r, last]: chain the release points (module docstring)
        for a, r in enumerate(releases):
            span = last - r + 1
            amount = Fraction(need) if unbounded else math.ceil(span / width) * cap
            head: object = ("sink",) if a == 0 else ((i, j), releases[a - 1])
            pieces.append((((i, j), r), head, amount))
        for s in sources:
            r = ready[s].get(i, _INF)
            if r <= last:
                pieces.append((("chunk", s), ((i, j), r), Fraction(chunks)))
    if not pieces:
        return True, Fraction(0), need
    den = math.lcm(*(p[2].denominator for p in pieces))
    for tail, head, amount in pieces:
        net.add_edge(tail, head, capacity=int(amount * den))
    for s in sources:
        if ("chunk", s) in net:
            net.add_edge(("source",), ("chunk", s), capacity=chunks * den)
    if ("source",) not in net or ("sink",) not in net:
        return True, Fraction(0), need
    value = Fraction(nx.maximum_flow_value(net, ("source",), ("sink",)), den)
    return value < need, value, need


def alltoall_cut_refutes(
    model: EpochModel,
    inside: frozenset[int],
    epochs: int,
    *,
    ready: dict[int, dict[int, int]],
    to: dict[int, dict[int, int]],
    chunks: int = 1,
) -> tuple[bool, Fraction, int]:
    """Whether the cut ``inside`` refutes ``epochs`` for an alltoall, every destination in it
    at once (no copies: each chunk from outside to a GPU inside crosses on a flow of its own,
    fractions allowed; ``to[d][v]`` the distance from ``v`` to ``d``).

    Returns
    -------
    (bool, Fraction, int)
        Refuted, the flow value, the chunks to carry.
    """
    gpus = model.machine.gpus
    sources = [s for s in gpus if s not in inside]
    dests = [d for d in gpus if d in inside]
    need = len(sources) * len(dests) * chunks
    if need == 0:
        return False, Fraction(0), 0
    pieces: list[tuple[object, object, Fraction]] = []
    for i, j in model.machine.links:
        if i in inside or j not in inside:
            continue
        cap, _ = _cap(model, (i, j), "alltoall")
        late = epochs - model.alpha_epochs(i, j) - 1
        spans = {}
        for s in sources:
            for d in dests:
                lo, hi = ready[s].get(i, _INF), late - to[d].get(j, _INF)
                if lo <= hi:
                    spans[(s, d)] = (lo, hi)
        cuts = sorted({lo for lo, _ in spans.values()} | {hi + 1 for _, hi in spans.values()})
        for a, b in itertools.pairwise(cuts):
            pieces.append((((i, j), a), ("sink",), (b - a) * cap))
        for key, (lo, hi) in spans.items():
            for a in cuts:
                if lo <= a <= hi:
                    pieces.append((("pair", key), ((i, j), a), Fraction(chunks)))
    if not pieces:
        return True, Fraction(0), need
    den = math.lcm(*(p[2].denominator for p in pieces))
    net = nx.DiGraph()
    for tail, head, amount in pieces:
        net.add_edge(tail, head, capacity=int(amount * den))
    for s in sources:
        for d in dests:
            if ("pair", (s, d)) in net:
                net.add_edge(("source",), ("pair", (s, d)), capacity=chunks * den)
    if ("source",) not in net:
        return True, Fraction(0), need
    value = Fraction(nx.maximum_flow_value(net, ("source",), ("sink",)), den)
    return value < need, value, need


def _cuts(model: EpochModel) -> list[frozenset[int]]:
    """Single GPUs, chassis (with their switches), and their complements."""
    m = model.machine
    nodes = frozenset(range(m.nodes))
    found: list[frozenset[int]] = [frozenset({g}) for g in m.gpus]
    groups: dict[int, set[int]] = {}
    for g in m.gpus:
        groups.setdefault(_chassis_of(m.name, m.chassis, g), set()).add(g)
    for w in m.switches:
        near = {j for (i, j) in m.links if i == w and j in m.gpus}
        owners = {_chassis_of(m.name, m.chassis, g) for g in near}
        if len(owners) == 1:
            groups[owners.pop()].add(w)
    if len(groups) > 1:
        found += [frozenset(group) for group in groups.values()]
    found += [nodes - c for c in found]
    return [c for c in dict.fromkeys(found) if any(g in c for g in m.gpus)
            and any(g not in c for g in m.gpus)]  # fmt: skip


def _chassis_of(name: str, chassis: int, node: int) -> int:
    if name == "NDv2":
        return node // 8 if chassis == 2 else (node - 1) // 8
    if name == "DGX2":
        return node // 17
    if name == "AMD" and chassis > 1:
        return (node - 1) // 24
    return 0


def _shown(cut: frozenset[int], model: EpochModel) -> str:
    """A cut in words: its nodes, or the nodes it leaves out."""
    rest = sorted(set(range(model.machine.nodes)) - cut)
    return str(sorted(cut)) if len(cut) <= len(rest) else f"all but {rest}"


def epoch_lower_bound(
    model: EpochModel, collective: str, chunks: int = 1, stop_at: int | None = None
) -> EpochBound:
    """The best of the distance and cut bounds (module docstring).

    Parameters
    ----------
    model : EpochModel
    collective : str
        ``allgather`` or ``alltoall``.
    chunks : int
        Chunks of a GPU's data (allgather) or sent to each other GPU (alltoall).
    stop_at : int, optional
        Stop raising the bound once it reaches this value (e.g. a schedule's epochs).

    Returns
    -------
    EpochBound

    Examples
    --------
    Four GPUs on a path of links carrying one chunk an epoch: three chunks must enter an end
    GPU over its one link:

    >>> from gossipcert.formats.teccl_machines import mesh
    >>> m = EpochModel(mesh(2), chunk=1.0, epoch=0.01)
    >>> epoch_lower_bound(m, "allgather").value
    2
    """
    best = distance_bound(model, collective)
    delay = _delay(model, collective)
    gpus = model.machine.gpus
    ready = {s: _dijkstra(model, s, delay) for s in gpus}
    to = {d: _dijkstra(model, d, delay, reverse=True) for d in gpus}
    for cut in _cuts(model):
        if collective == "alltoall":
            test = partial(alltoall_cut_refutes, model, cut, ready=ready, to=to, chunks=chunks)
            best = _raise(best, test, stop_at, f"into {_shown(cut, model)}")
            continue
        for d in sorted(g for g in cut if g in gpus):
            test = partial(
                cut_refutes, model, collective, cut, d, ready=ready, to_dest=to[d], chunks=chunks
            )
            best = _raise(best, test, stop_at, f"into {_shown(cut, model)} for GPU {d}")
    return best


def _raise(
    best: EpochBound,
    test: Callable[[int], tuple[bool, Fraction, int]],
    stop_at: int | None,
    where: str,
) -> EpochBound:
    """The bound raised to the least epochs ``test`` does not refute (it refutes every
    smaller count too: later deadlines only add capacity), found by doubling and bisection."""
    if stop_at is not None and best.value >= stop_at:
        return best
    first = test(best.value)
    if not first[0]:
        return best
    refuted, low, step = first, best.value, 1  # low: the most epochs known refuted
    high = None
    while high is None:
        probe = low + step
        if stop_at is not None and probe >= stop_at:
            probe = stop_at
        result = test(probe)
        if result[0]:
            refuted, low = result, probe
            if stop_at is not None and probe >= stop_at:
                break
            step *= 2
        else:
            high = probe
    while high is not None and high - low > 1:
        mid = (low + high) // 2
        result = test(mid)
        if result[0]:
            refuted, low = result, mid
        else:
            high = mid
    _, flow, need = refuted
    return EpochBound(
        low + 1, "cut", f"{low} epochs: {need} chunks {where}, the links carry at most "
        f"{float(flow):g} in time",
    )  # fmt: skip
