"""Two closed lower bounds of allreduce, from what a round can receive; sound under every
model and under ``sum`` and ``max`` alike (the bracket of :mod:`gossipcert.search.allreduce`
takes the largest of its bounds):

- ``receive`` (:func:`receive_bound`): with two contributors or more, every node holds every
  chunk incomplete at the start, so it receives each of the ``n K`` chunks at least once; a
  node ``v`` receives at most ``in(v)`` chunks per round (``p`` in the one-port models with
  a packet cap, ``k p`` with ``k`` ports, the sum of its edges' capacities in all-port; no
  bound when packets are unbounded), hence ``R >= max_v ceil(n K / in(v))``. This exceeds
  gossip's own receive bound ``(n - 1) K / p``;
- ``receipts`` (:func:`receipt_bound`; :func:`receipts_per_round` is the most a round may
  hold): a chunk with ``m`` contributors and ``d``
  demanders is received, over the whole schedule, at least ``m + d - 2`` times (``2 n - 2``
  for allreduce), and a round holds at most ``cap`` receipts (one ``(receiver, chunk)``
  pair each): ``R >= ceil(sum_c (m_c + d_c - 2) / cap)``. The argument is the one for the
  fewest one-way calls of gossip [1]_, applied to *knowledge*: let ``v`` know ``w`` when
  some chain of receipts of the chunk, in increasing rounds, leads from ``w`` to ``v``. A
  partial result is always inside its holder's knowledge (a copy or a combine takes a
  partial inside the sender's knowledge), so a complete partial means complete knowledge;
  order the receipts of each round one after the other (knowledge can only grow by it).
  At the receipt after which a first node ``x`` knows every contributor, each other
  contributor has already sent (``m - 1`` receipts, distinct senders); every other
  demander (``d - 1`` at least, none complete yet) receives afterwards (distinct
  receivers, later receipts). This holds under ``sum`` and ``max`` alike. ``cap`` is the sum
  of the arc capacities in all-port (every arc may be used); else ``p`` times the most arcs
  one round may use: arcs with distinct tails and distinct heads in single-port (a maximum
  matching between senders and receivers: 2 on a star; with ``k`` ports at most ``k`` arcs
  at each tail and at each head, a maximum flow), both ways of a matching of the graph in
  telephone, one way in half-duplex, one arc into each node in multicast, at most
  ``calls=N`` calls; with unbounded packets there is no bound. On ``K_n`` in single-port
  with ``p = 1`` it is ``2 K (n - 1)``, the rounds of the ring allreduce.

References
----------
.. [1] F. Harary and A. J. Schwenk, "The communication problem on graphs and digraphs",
   J. Franklin Inst. 297, 1974 (gossip on a digraph takes at least ``2 n - 2`` calls).
"""

from __future__ import annotations

import math

import networkx as nx
from networkx.algorithms import bipartite

from gossipcert import graphs
from gossipcert.instance import Instance


def receive_bound(instance: Instance) -> int | None:
    """``max_v ceil(chunks / in(v))`` for an allreduce (module docstring); None when a node
    may receive any number of chunks per round or when some chunk has one contributor.

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> receive_bound(parse_instance("ring:4", "single-port", "allreduce:chunks=2"))
    8
    >>> receive_bound(parse_instance("ring:4", "all-port", "allreduce")) is None
    False
    """
    contributors = [0] * instance.n_packets
    for held in instance.holdings:
        for c in range(instance.n_packets):
            contributors[c] += held >> c & 1
    if min(contributors, default=0) < 2:
        return None
    model, g = instance.model, instance.graph
    best = 0
    for v in range(instance.n):
        need = instance.demands[v].bit_count()
        if not need:
            continue
        if model.rules.arc_capacities:
            cap = sum(model.capacity or graphs.capacity(g, v, u) for u in g.adj[v])
        elif model.port_packets is None:
            return None
        else:
            cap = model.port_packets  # k ports of p packets each
        best = max(best, math.ceil(need / cap))
    return best


def receipts_per_round(instance: Instance) -> int | None:
    """The most ``(receiver, chunk)`` receipts one round may hold (module docstring); None
    when packets are unbounded.

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> receipts_per_round(parse_instance("ring:5", "all-port", "allreduce"))
    10
    >>> receipts_per_round(parse_instance("ring:5", "telephone:p=2", "allreduce"))
    8
    >>> receipts_per_round(parse_instance("star:5", "single-port", "allreduce"))
    2
    """
    model, g, n = instance.model, instance.graph, instance.n
    rules, ports = model.rules, model.ports
    if ports is None:  # arc capacities
        return sum(model.capacity or graphs.capacity(g, u, v) for u in range(n) for v in g.adj[u])
    if model.packet_cap is None:
        return None
    if (rules.two_way_calls or rules.send_or_receive) and ports != 1:
        return None  # no such model: no bound rather than another model's
    if not rules.point_to_point:
        arcs = n * ports
    elif rules.two_way_calls or rules.send_or_receive:
        matching = len(nx.max_weight_matching(g, maxcardinality=True))
        arcs = matching * (2 if rules.two_way_calls else 1)
    elif ports == 1:
        heads_and_tails = nx.Graph()
        tails = [("out", u) for u in range(n)]
        heads_and_tails.add_nodes_from(tails)
        heads_and_tails.add_edges_from(
            (("out", u), ("in", v)) for u in range(n) for v in g.adj[u] if v != u
        )
        arcs = len(bipartite.hopcroft_karp_matching(heads_and_tails, tails)) // 2
    else:  # at most ``ports`` arcs out of and into each node, one transmission an arc
        flow = nx.DiGraph()
        for u in range(n):
            flow.add_edge("s", ("out", u), capacity=ports)
            flow.add_edge(("in", u), "t", capacity=ports)
            for v in g.adj[u]:
                if v != u:
                    flow.add_edge(("out", u), ("in", v), capacity=1)
        arcs = int(nx.maximum_flow_value(flow, "s", "t"))
    if model.calls_per_round is not None and rules.point_to_point:
        arcs = min(arcs, model.calls_per_round * (2 if rules.two_way_calls else 1))
    return arcs * model.packet_cap


def receipt_bound(instance: Instance) -> int | None:
    """``ceil(sum_c (m_c + d_c - 2) / cap)`` (module docstring), for the chunks that some
    node demands; None when a round may hold any number of receipts.

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> receipt_bound(parse_instance("hub:5", "single-port", "allreduce:chunks=2"))
    16
    >>> receipt_bound(parse_instance("ring:6", "all-port", "allreduce:chunks=2"))
    10
    """
    cap = receipts_per_round(instance)
    if cap is None or cap == 0:
        return None
    need = 0
    for c in range(instance.n_packets):
        m = sum(held >> c & 1 for held in instance.holdings)
        d = sum(want >> c & 1 for want in instance.demands)
        if d:
            need += max(0, m + d - 2)
    return -(-need // cap)
