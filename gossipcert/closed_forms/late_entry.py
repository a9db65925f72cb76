"""The late-entry bound: what a node's neighbourhood does not know one round before the end
must enter the node in the last round, over its few links from outside that neighbourhood.

Take a cut: a side ``S`` and the rest ``T``, ``F`` the arcs from ``S`` into ``T``, and a
processor ``x`` in ``T`` with the packets ``C_x`` it demands that no node of ``T`` holds.
Pick ``Q = {x} + A``, ``A`` a set of neighbours of ``x`` in ``T``. In a schedule of ``R``
rounds every packet ``p`` of ``C_x`` is one of two kinds.

- Known to a node ``q`` of ``Q`` after round ``R - 1``. The chain that brought ``p`` from a
  holder (in ``S``) to ``q`` (in ``T``) crosses an arc ``a = (s, y)`` of ``F`` in some round
  ``r`` for the last time, and stays in ``T`` afterwards (it would otherwise cross again):
  ``s`` knew ``p`` after round ``r - 1``, so ``r >= h_a = 1 + dist(H, s)`` (``H`` the nodes
  that hold a packet of ``C_x``), and from ``y`` the chain needs at least ``dist_T(y, q)``
  more rounds, the distance in the subgraph ``T`` induces, so ``r <= R - 1 - dist_T(y,
  Q)``. In round ``r`` arc ``a`` carries at most ``c(a)`` packets, so at most

      slots_Q(R - 1) = sum over a in F of  c(a) * #{r : h_a <= r <= R - 1 - dist_T(head(a), Q)}

  packets are of this kind (each is charged to one such arc and round).
- Known to no node of ``Q`` after round ``R - 1``. Then ``x`` receives ``p`` in round ``R``
  from a neighbour outside ``Q`` (its neighbours in ``Q`` do not know ``p``), over an arc
  that carries at most its capacity: at most ``late(x, Q) = sum over u in N(x) - Q of
  c(u, x)`` packets are of this kind.

So ``|C_x| <= slots_Q(R - 1) + late(x, Q)``, and the optimum is at least the least ``R``
that satisfies it for every cut, ``x`` and ``A``. Neighbours in ``Q`` take their links off
``late`` but bring the cut's arcs nearer (fewer rounds of distance), so the bound tries
every ``A`` (the neighbours of ``x`` in ``T``, all subsets up to :data:`MAX_SUBSET_DEGREE`
of them; beyond, none and all).

Where the cut bounds stop: on ``mi250:2`` the 16 GCDs of one chassis reach the other's only
through the switch and the eight links from the switch down to its NICs (capacity 1, a
packet first crosses one in round 3). Take ``x`` the GCD 5 of the second chassis and ``A``
its xGMI neighbours 4, 6 and 7: inside that chassis (its GCDs and NICs) a down-link's packet
reaches ``Q`` one round after it reaches NICs 2 and 3, two after NICs 0 and 1, three after
NICs 4 and 5 and four after 6 and 7, so after round 6 ``Q`` knows at most ``3 + 3 + 2 + 2
+ 1 + 1 = 12`` of the first chassis's packets, and GCD 5 receives at most 3 in round 7 (two
over its link from GCD 1, one from its NIC): ``16 > 15``, no allgather of 7 rounds (8 with
two chunks a GCD: ``32 > 28 + 3``, no allgather of 9 rounds). The cover bound of
:mod:`.cut_cover` weighs each crossing by the share of the demanders it can reach, and
reaches only 7 and 9.

Applies to copy problems under the all-port model (arc capacities), without edge
latencies. Cuts: the family of :func:`gossipcert.closed_forms.cuts.cut_family`.

References
----------
.. [1] F. T. Leighton, *Introduction to Parallel Algorithms and Architectures*, 1992
   (bisection and cut arguments on the packets that must cross a cut).
.. [2] V. V. Dimakopoulos and N. J. Dimopoulos, "Communications in binary fat trees", Proc.
   ICCI 1995 (packets over the root's cut, in rounds).
"""

from __future__ import annotations

import networkx as nx
import numpy as np

from gossipcert import graphs
from gossipcert.closed_forms.base import _LOWER, Bound, _memo
from gossipcert.closed_forms.cuts import cut_family
from gossipcert.instance import Instance, bits

__all__ = ["MAX_SUBSET_DEGREE", "late_entry_bound", "late_entry_rounds"]

#: the neighbourhoods ``A`` tried are all subsets when ``x`` has at most this many
#: neighbours beyond the cut; otherwise the empty set and all of them
MAX_SUBSET_DEGREE = 6


def late_entry_rounds(
    need: int, caps: np.ndarray, first: np.ndarray, near: np.ndarray, late: int, start: int
) -> int:
    """The least ``R >= start`` with ``need <= slots(R - 1) + late`` (module docstring).

    ``caps``, ``first`` and ``near`` give each cut arc's capacity, first round ``h_a`` and
    distance from its head to ``Q``.

    Examples
    --------
    >>> one = np.ones(8, dtype=np.int64)  # mi250:2, GCD 5 of chassis 2 and three neighbours
    >>> late_entry_rounds(16, one, 3 * one, np.array([2, 2, 1, 1, 3, 3, 4, 4]), 3, 1)
    8
    """
    r = max(start, 1)
    while need > late + int((caps * np.maximum(0, r - near - first)).sum()):
        r += 1
    return r


def _subset_distances(to_heads: np.ndarray) -> np.ndarray:
    """For each subset ``A`` (bit mask over the columns 1..k), the least distance from each
    cut arc's head to ``{x} + A`` (column 0 is ``x``): shape ``(2^k, arcs)``."""
    k = to_heads.shape[1] - 1
    out = np.empty((1 << k, to_heads.shape[0]), dtype=np.int64)
    out[0] = to_heads[:, 0]
    for mask in range(1, 1 << k):
        low = (mask & -mask).bit_length() - 1
        out[mask] = np.minimum(out[mask & (mask - 1)], to_heads[:, low + 1])
    return out


def _distances_within(g: nx.Graph, nodes: list[int], sources: np.ndarray) -> np.ndarray:
    """Hop distances from each of ``sources`` (nodes of ``nodes``) in the subgraph ``nodes``
    induces, one row a source, indexed by node (``n + 1`` to nodes it does not reach and to
    nodes outside it)."""
    from scipy.sparse import csr_matrix  # deferred: scipy only where an all-port bound runs
    from scipy.sparse.csgraph import shortest_path

    n = g.number_of_nodes()
    index = {v: i for i, v in enumerate(nodes)}
    rows = [index[u] for u in nodes for w in g.adj[u] if w in index]
    cols = [index[w] for u in nodes for w in g.adj[u] if w in index]
    adjacency = csr_matrix((np.ones(len(rows)), (rows, cols)), shape=(len(nodes),) * 2)
    starts = [index[int(v)] for v in sources]
    within = shortest_path(adjacency, unweighted=True, directed=False, indices=starts)
    within[np.isinf(within)] = n + 1
    out = np.full((len(starts), n), n + 1, dtype=np.int64)
    out[:, nodes] = within.astype(np.int64)
    return out


def _side_value(
    instance: Instance, side: frozenset[int], dist: np.ndarray, capm: np.ndarray, best: int
) -> tuple[int, int] | None:
    """The bound from one cut (``side`` is ``S``) when it beats ``best``: (rounds, ``x``).

    ``dist`` holds the hop distances and ``capm`` the arc capacities (0: no arc)."""
    g = instance.graph
    n = instance.n
    rest = [v for v in range(n) if v not in side]
    inner = sorted(side)
    held_rest = 0
    for v in rest:
        held_rest |= instance.holdings[v]
    arcs = [(s, y) for s in inner for y in g.adj[s] if y not in side]
    if not arcs:
        return None
    tails = np.array([s for s, _ in arcs])
    heads = np.array([y for _, y in arcs])
    caps = capm[tails, heads]
    inside = _distances_within(g, rest, heads)  # dist_T(head(a), v): a row an arc
    from_side = capm[inner].sum(axis=0)  # each node's capacity in from S
    classes: dict[int, list[int]] = {}  # the processors of T by the packets they lack
    for x in rest:
        crossing = instance.demands[x] & ~held_rest
        if crossing:
            classes.setdefault(crossing, []).append(x)
    found: tuple[int, int] | None = None
    for crossing, xs in classes.items():
        need = crossing.bit_count()
        holders = [v for v in inner if instance.holdings[v] & crossing]
        h = 1 + dist[np.ix_(np.array(holders), tails)].min(axis=0)  # h_a
        target = best if found is None else found[0]
        # every Q holds x (its slots are at least x's own) and late is at least x's links
        # from S: the nodes that cannot beat ``target`` whatever A is
        slack = np.maximum(0, target - inside[:, xs] - h[:, None])
        floor = (caps[:, None] * slack).sum(axis=0) + from_side[xs]
        for x in (x for x, low in zip(xs, floor.tolist(), strict=True) if need > low):
            target = best if found is None else found[0]
            value = _node_value(instance, side, x, need, (caps, h, inside, capm), target)
            if value > target:
                found = (value, x)
    return found


def _node_value(
    instance: Instance,
    side: frozenset[int],
    x: int,
    need: int,
    arrays: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray],
    target: int,
) -> int:
    """The largest bound over the neighbourhoods ``A`` of ``x`` in ``T``, or ``target`` if
    none is larger (``arrays``: the cut arcs' capacities and first rounds, the distances in
    ``T`` from their heads, the capacities)."""
    caps, h, inside, capm = arrays
    beyond = [u for u in instance.graph.adj[x] if u not in side]
    to_heads = inside[:, [x, *beyond]]
    if len(beyond) > MAX_SUBSET_DEGREE:
        near = {0: to_heads[:, 0], (1 << len(beyond)) - 1: to_heads.min(axis=1)}
    else:
        near = dict(enumerate(_subset_distances(to_heads)))
    total_in = int(capm[:, x].sum())
    value = target
    for mask, to_q in near.items():
        late = total_in - sum(int(capm[beyond[i], x]) for i in bits(mask))
        value = max(value, late_entry_rounds(need, caps, h, to_q, late, value))
    return value


def late_entry_bound(instance: Instance) -> Bound | None:
    """The late-entry bound of the module docstring over the cut bound's family of cuts.

    Parameters
    ----------
    instance : Instance
        A problem that copies packets, all-port (arc capacities), no latencies.

    Returns
    -------
    Bound or None
        None for reductions, other models, latencies, or when no cut gives a bound.

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> late_entry_bound(parse_instance("mi250:2", "all-port", "gossip")).value
    8
    >>> late_entry_bound(parse_instance("mi250:2", "all-port", "gossip:chunks=2")).value
    10

    References
    ----------
    The cut arguments of Leighton and of Dimakopoulos and Dimopoulos, applied to the
    neighbourhood of one node one round before the end.
    """

    def compute() -> tuple[int, str, str] | None:
        m = instance.model
        if instance.problem.reduction or graphs.latencies(instance.graph):
            return None
        if not m.rules.arc_capacities or m.calls_per_round is not None:
            return None
        g = instance.graph
        n = instance.n
        dist = np.full((n, n), n + 1, dtype=np.int64)
        for v in range(n):
            for w, d in nx.single_source_shortest_path_length(g, v).items():
                dist[v, w] = d
        capm = np.zeros((n, n), dtype=np.int64)
        for u, v in g.edges:
            capm[u, v] = capm[v, u] = m.capacity or graphs.capacity(g, u, v)
        best: tuple[int, str, str] | None = None
        for side in cut_family(instance):
            found = _side_value(instance, side, dist, capm, 1 if best is None else best[0])
            if found is not None and (best is None or found[0] > best[0]):
                names = sorted(str(graphs.node_ref(g, v)) for v in side)
                best = (found[0], "{" + ", ".join(names) + "}", str(graphs.node_ref(g, found[1])))
        return best

    found = _memo(instance, "late-entry", compute)
    if found is None:
        return None
    value, side, node = found
    return Bound(
        "late-entry",
        _LOWER,
        value,
        f"the packets node {node} lacks from beyond the cut of {side}: those its "
        "neighbourhood knows a round before the end crossed the cut in time, the rest "
        "enter the node in the last round over its links from outside",
    )
