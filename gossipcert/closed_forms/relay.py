"""The relay bound: a cut vertex forwards, through its one port, everything its sides exchange.

Let ``v`` be a node and ``C_1, ..., C_m`` the components of ``G - v``. Every edge leaving a
component ends at ``v``. So:

- every packet that some node of ``C`` demands and no node of ``C`` holds enters ``C`` from
  ``v``: ``v`` *sends* it into ``C`` at least once. In the point-to-point models a
  transmission of ``v`` reaches one neighbour, so one component, and these sends are
  distinct: ``S = sum over C`` of the number of such packets;
- every packet held in ``C`` alone and demanded by a node outside ``C`` (``v`` included)
  leaves ``C`` into ``v``: ``v`` *receives* it from ``C`` at least once, ``Q`` receipts in
  all; ``F <= Q`` of them are of packets that some other component demands.

In one round ``v`` sends at most ``b`` packets and receives at most ``a`` (``a = b = p``,
the packet cap, in telephone, half-duplex and single-port, ``k p`` with ``k`` ports; in
all-port the sums of the capacities of ``v``'s arcs). Hence

- ``R >= ceil(S / b)``; in round 1 ``v`` knows only what it holds, so at most
  ``min(b, S_own)`` of the sends, those of packets ``v`` holds, fall in it:
  ``R >= 1 + ceil((S - min(b, S_own)) / b)``;
- ``R >= ceil(Q / a)``; the last of the ``F`` receipts of packets another component
  demands comes no earlier than round ``ceil(F / a)``, and ``v`` (the packet's only way
  out of its component) sends it on in a later round: ``R >= ceil(F / a) + 1``;
- half-duplex (``send_or_receive``): a round of ``v`` sends or receives, never both:
  ``R >= ceil(S / p) + ceil(Q / p)``;
- **the tail.** Write ``L(S, S_own)`` for the send bound above: ``v``'s last send is in
  round ``L`` or later. When every packet ``x`` that a component ``C`` lacks is demanded by
  at least two nodes of ``C`` (gossip and broadcast: ``|C| >= 2``), take a packet ``x`` that
  ``v`` sends in its last sending round ``t``, into ``C`` to ``u``. Another node ``w`` of
  ``C`` demands ``x``, and ``x`` enters ``C`` only from ``v``: either ``v`` sends ``x``
  into ``C`` a second time, and then ``v`` sends ``S + 1`` packets, the last no earlier than
  round ``L(S + 1, S_own + 1)``; or ``w`` gets ``x`` from ``u``'s side after round ``t``.
  So ``R >= min(L(S, S_own) + 1, L(S + 1, S_own + 1))``, one more than ``L`` when ``b = 1``.

The bound is the largest over the cut vertices (a node that splits nothing gives the
receive bound at most). On the spider with legs of 1, 1 and 2 edges (gossip, two packets per node,
single-port ``p = 1``) the centre sends ``8 + 8 + 6 = 22`` packets: 22 rounds, the
optimum. On the bowtie (two triangles sharing a node, same problem) the centre sends
``6 + 6 = 12`` packets into two sides of two nodes each, and the tail makes it 13, the
optimum. Multicast (one transmission reaches several components), unbounded packets,
graphs with routers or latencies and the reductions (whose relay argument is
:mod:`gossipcert.search.allreduce_cut`) are declined.

References
----------
.. [1] V. V. Dimakopoulos, "All-port total exchange in cartesian product networks" and
   "On the communication complexity of gossiping" (1999), section 2: a port receives
   ``p`` packets per step; here the same count on the send side of a cut vertex.
.. [2] P. J. Slater, E. J. Cockayne and S. T. Hedetniemi, "Information dissemination in
   trees", SIAM J. Comput. 10(4), 1981 (the subtrees behind a vertex are served one call at a
   time).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import networkx as nx

from gossipcert import graphs
from gossipcert.closed_forms.base import _LOWER, Bound, _has_routers
from gossipcert.instance import Instance, bits
from gossipcert.problems import REDUCTIONS


def relay_counts(instance: Instance, v: int) -> tuple[int, int, int, int]:
    """``(S, S_own, Q, F)`` of the module docstring for node ``v``.

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> relay_counts(parse_instance("star:4", "single-port", "gossip"), 0)
    (9, 3, 3, 3)
    """
    parts = _sides(instance, v)
    wants = [_union(instance.demands, part) for part in parts]
    holds = [_union(instance.holdings, part) for part in parts]
    sends = own = receipts = forwarded = 0
    for i in range(len(parts)):
        rest = [j for j in range(len(parts)) if j != i]
        incoming = wants[i] & ~holds[i]
        sends += incoming.bit_count()
        own += (incoming & instance.holdings[v]).bit_count()
        alone = holds[i] & ~(instance.holdings[v] | _union(holds, rest))
        others = _union(wants, rest)
        receipts += (alone & (others | instance.demands[v])).bit_count()
        forwarded += (alone & others).bit_count()
    return sends, own, receipts, forwarded


def tail_applies(instance: Instance, v: int) -> bool:
    """Whether every packet a component of ``G - v`` lacks is demanded by two of its nodes
    (the condition of the tail in the module docstring).

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> tail_applies(parse_instance("path:5", "single-port", "gossip"), 2)
    True
    >>> tail_applies(parse_instance("star:4", "single-port", "gossip"), 0)
    False
    """
    for part in _sides(instance, v):
        lacking = _union(instance.demands, part) & ~_union(instance.holdings, part)
        for x in bits(lacking):
            if sum(instance.demands[u] >> x & 1 for u in part) < 2:
                return False
    return True


def send_rounds(sends: int, own: int, b: int) -> int:
    """``L(S, S_own)``: the earliest round of the last of ``S`` sends, ``b`` a round, only
    ``v``'s own packets in round 1.

    Examples
    --------
    >>> send_rounds(12, 4, 1)
    12
    >>> send_rounds(5, 0, 2)
    4
    """
    return max(math.ceil(sends / b), 1 + math.ceil((sends - min(b, own)) / b))


def _sides(instance: Instance, v: int) -> list[list[int]]:
    """The components of the graph without ``v``, each sorted."""
    g = instance.graph
    return [sorted(c) for c in nx.connected_components(g.subgraph(u for u in g if u != v))]


def _union(masks: Sequence[int], indices: list[int]) -> int:
    out = 0
    for i in indices:
        out |= masks[i]
    return out


def port_rates(instance: Instance, v: int) -> tuple[int, int] | None:
    """The most packets (or chunks) ``v`` may receive and send in one round; None when
    some is unbounded or one transmission may reach several neighbours (multicast).

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> port_rates(parse_instance("star:4", "single-port:p=2", "allreduce"), 0)
    (2, 2)
    >>> port_rates(parse_instance("star:4", "all-port", "allreduce"), 0)
    (3, 3)
    >>> port_rates(parse_instance("star:4", "multicast", "allreduce"), 0) is None
    True
    """
    model, g = instance.model, instance.graph
    if model.rules.arc_capacities:
        into = sum(model.capacity or graphs.capacity(g, u, v) for u in g.adj[v])
        return into, into  # an edge's capacity holds each way
    rate = model.port_packets  # k ports of p packets (one port in the one-port models)
    if not model.rules.point_to_point or rate is None:
        return None
    return rate, rate


def relay_bound(instance: Instance) -> Bound | None:
    """The packets a cut vertex must forward over what its port carries per round.

    Parameters
    ----------
    instance : Instance

    Returns
    -------
    Bound or None
        None in multicast, with unbounded packets, routers or latencies, for the
        reductions, without a cut vertex, and when it is below 2.

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> relay_bound(parse_instance("star:5", "single-port", "gossip:chunks=2")).value
    32
    >>> relay_bound(parse_instance("path:3", "half-duplex:p=1", "gossip")).value
    6

    References
    ----------
    See the module docstring.
    """
    model = instance.model
    if not model.rules.point_to_point and not model.rules.arc_capacities:
        return None  # one transmission may reach several components
    if instance.problem.kind in REDUCTIONS:
        return None
    if _has_routers(instance) or graphs.latencies(instance.graph):
        return None
    best, where, by_tail = 0, None, False
    for v in sorted(nx.articulation_points(instance.graph)):
        rates = port_rates(instance, v)
        if rates is None:
            return None
        a, b = rates
        sends, own, receipts, forwarded = relay_counts(instance, v)
        values = []
        tail = 0
        if sends and b:
            last = send_rounds(sends, own, b)
            values.append(last)
            if tail_applies(instance, v):
                tail = min(last + 1, send_rounds(sends + 1, own + 1, b))
        if receipts and a:
            values.append(math.ceil(receipts / a))
        if forwarded and a:
            values.append(math.ceil(forwarded / a) + 1)
        if model.rules.send_or_receive and a and b:
            values.append(math.ceil(sends / b) + math.ceil(receipts / a))
        value = max(values, default=0)
        if max(value, tail) > best:
            best, where, by_tail = max(value, tail), v, tail > value
    if best < 2 or where is None:
        return None
    ending = (
        "; the last packet it sends into a side of two nodes or more still has to cross it"
        if by_tail
        else ""
    )
    return Bound(
        "relay",
        _LOWER,
        best,
        f"node {where} forwards between the components of the graph without it: every "
        "packet a component lacks enters it from that node and every packet it alone holds "
        "leaves into it, at most one port's load per round" + ending,
    )
