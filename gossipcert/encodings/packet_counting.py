"""Implied counting constraints for the per-packet transfer encoding (``p``-capped models).

A node set ``S`` can gain only so much knowledge per round: every new fact "``v`` knows
``p``" with ``v`` in ``S`` needs a transfer into ``v`` in that round, a transmission carries
at most ``p`` packets, and the port rules limit how many transmissions the nodes of ``S`` can
receive in one round. Summed over rounds this gives, for every round ``t``,

``sum_{v in S, q} K[v,q,t] <= |K_0(S)| + t * mu(S) * p``

where ``K_0(S)`` is what ``S`` holds at the start and ``mu(S)`` the most transmissions ``S``
can receive in one round. The counting across rounds is what a CDCL solver cannot find by itself
(a pigeonhole argument); stated as one cardinality constraint per round (a totalizer in CNF,
a linear constraint in CP-SAT), a demand that needs more knowledge at round ``R`` conflicts by
propagation, and so do partial schedules that fall behind the budget.

Rules (each implied by the model, so a DRAT proof with them proves the plain claim):

- *soundness of the count*: every true ``K[v,q,t]`` that ``v`` did not hold goes back to the
  last round ``s <= t`` where it turned true; the justification clause of
  :mod:`.transfer` gives a transfer ``q`` into ``v`` in round ``s``; distinct ``(v, q)`` give
  distinct transfers, and round ``s`` has at most ``mu(S) * p`` transfers into ``S`` (at
  most ``mu(S)`` transmissions into ``S``, at most ``p`` packets each). So the count is at
  most ``t * mu(S) * p`` above the holdings.
- *receipts of a set* ``mu(S)``, the most transmissions the nodes of ``S`` receive in one
  round, read from the model's port rules (not its name): with ``send_or_receive``
  (half-duplex) the arcs form a directed matching, one receiver per matched edge, so ``mu``
  is the maximum matching of the edges touching ``S``; with calls both ways (telephone) the
  calls form a matching and a call ``{u, v}`` has receivers at both ends, so ``mu`` is the
  maximum matching of the edges touching ``S``, an edge weighing its number of ends in
  ``S``; with directed ports (single-port, ``k`` ports) at most ``k`` arcs out and ``k`` in
  per node, one transmission an arc, so ``mu`` is the largest set of arcs into ``S`` with
  at most ``k`` at each tail and at each head (a maximum ``k``-matching between all nodes,
  as senders, and ``S``, a maximum flow; ``k = 1``: a bipartite matching); one transmission
  to several receivers (multicast): every node of ``S`` with a neighbour, times its ports.
- *global*: ``S`` = every node (``mu`` is then ``nu``, ``2 nu``, the matching of the
  bipartite double cover, the nodes with a neighbour).
- *per set* (point-to-point models): for a set ``T`` of at most two nodes, ``S_T`` = the
  nodes outside ``T`` whose neighbours all lie in ``T`` (the leaves of a star, the pendant
  vertices behind one neighbour), and ``S_T`` with ``T`` (a centre that sends to its leaves
  or receives, not both, in half-duplex). Kept where ``mu(S) < k |S|`` (``k`` the ports of a
  node), the cases the per-node learn cap does not already bound round by round, and
  dropped where a kept superset has no larger ``mu`` (its constraint implies the smaller
  set's).
- *busy node* (point-to-point models): every transfer into or out of a node ``c`` uses one
  of its arcs of the round: at most one in half-duplex, two (a call, or one out and one in)
  in telephone and single-port, ``2k`` with ``k`` ports, so at most ``b = p``, ``2p`` or
  ``2kp`` transfers touch ``c`` per round. The facts "``c`` knows ``q``" (``q`` not held by
  ``c``) and, for each component ``C`` of ``G - c`` and each packet ``q`` with no holder in
  ``C``, "``r_C`` knows ``q``" (``r_C`` the smallest neighbour of ``c`` in ``C``) each need
  their own such transfer: a
  packet from outside ``C`` enters ``C`` only across an arc ``c -> C``, and distinct facts
  give distinct (receiver, packet) pairs. So ``sum K[facts, t] <= t * b`` (a centre that
  must feed its leaves and a subtree behind it, atlas graphs where the per-set count is
  short of the optimum).
- *call limit*: with ``calls=N`` at most ``N`` calls (``2N`` receivers in telephone) or ``N``
  transmissions (multicast: receivers at most the ``N`` largest neighbourhoods in ``S``).

Variables: none of its own (the totalizers' auxiliaries come from the formula's vpool).
A constraint whose totalizer would be larger than :data:`MAX_TOTALIZER` (literals times the
bound) is left out: leaving out an implied constraint is always sound, and on large instances
the count would cost more than it saves.

References
----------
.. [1] V. V. Dimakopoulos, "Single-port multinode broadcasting", 1999.
.. [2] T. F. Gonzalez, "An efficient algorithm for gossiping in the multicasting
   communication environment", IEEE TPDS, 2003.
.. [3] J.-C. Bermond, L. Gargano, S. Perennes, "Optimal sequential gossiping by short
   messages", Discrete Applied Mathematics 86, 1998.
"""

from __future__ import annotations

from itertools import combinations
from typing import Any

import networkx as nx

from gossipcert.errors import UnsupportedModelError
from gossipcert.instance import Instance

#: the largest ``literals * bound`` of a counting constraint that is added (a size cap)
MAX_TOTALIZER = 400_000


def _sender_matching(nbrs: list[list[int]], receivers: frozenset[int], ports: int) -> int:
    """Most arcs into ``receivers`` with at most ``ports`` at each tail and at each head: a
    maximum matching between every node (as a sender) and ``receivers`` along edges when
    ``ports`` is 1, else a maximum flow."""
    if ports == 1:
        b = nx.Graph()
        left = [("s", u) for u in range(len(nbrs))]
        b.add_nodes_from(left)
        for v in receivers:
            for u in nbrs[v]:
                b.add_edge(("s", u), ("r", v))
        return len(nx.bipartite.hopcroft_karp_matching(b, top_nodes=left)) // 2
    d = nx.DiGraph()
    for v in receivers:
        d.add_edge(("r", v), "sink", capacity=ports)
        for u in nbrs[v]:
            d.add_edge("source", ("s", u), capacity=ports)
            d.add_edge(("s", u), ("r", v), capacity=1)
    if "source" not in d:
        return 0
    return int(nx.maximum_flow_value(d, "source", "sink"))


def _touching_matching(nbrs: list[list[int]], subset: frozenset[int], both: bool) -> int:
    """Maximum weight of a matching of the edges that touch ``subset``, an edge weighing its
    number of ends in ``subset`` (``both``) or 1."""
    g = nx.Graph()
    for v in subset:
        for u in nbrs[v]:
            g.add_edge(u, v, weight=(int(u in subset) + 1) if both else 1)
    matching = nx.max_weight_matching(g)
    return sum(g.edges[e]["weight"] for e in matching)


def receiver_bound(instance: Instance, nbrs: list[list[int]], subset: frozenset[int]) -> int:
    """The most transmissions the nodes of ``subset`` can receive in one round under the
    model's port rules.

    Parameters
    ----------
    instance : Instance
    nbrs : list of list of int
        The neighbours of each node.
    subset : frozenset of int

    Returns
    -------
    int

    Raises
    ------
    UnsupportedModelError
        Arc capacities (no port bounds what a node receives), or calls or send-or-receive
        with more than one port.

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> inst = parse_instance("star:5", "single-port:p=1", "gossip")
    >>> nbrs = [sorted(inst.graph.adj[v]) for v in range(inst.n)]
    >>> receiver_bound(inst, nbrs, frozenset(range(5)))
    2
    >>> receiver_bound(inst, nbrs, frozenset({1, 2, 3, 4}))
    1
    >>> inst = parse_instance("ring:5", "half-duplex:p=1", "gossip")
    >>> nbrs = [sorted(inst.graph.adj[v]) for v in range(inst.n)]
    >>> receiver_bound(inst, nbrs, frozenset(range(5)))
    2
    >>> inst = parse_instance("star:5", "half-duplex:p=1", "gossip")
    >>> nbrs = [sorted(inst.graph.adj[v]) for v in range(inst.n)]
    >>> receiver_bound(inst, nbrs, frozenset({0, 1, 2}))  # the centre sends or receives
    1
    """
    model = instance.model
    rules, ports = model.rules, model.ports
    calls = model.calls_per_round
    if ports is None or ((rules.two_way_calls or rules.send_or_receive) and ports != 1):
        raise UnsupportedModelError(f"the packet counting has no receipts bound for {model.spec()}")
    if not rules.point_to_point:
        out = ports * sum(1 for v in subset if nbrs[v])
        if calls is not None:
            reach = sorted(sum(1 for v in nbrs[u] if v in subset) for u in range(instance.n))
            out = min(out, sum(reach[-calls:]))
        return out
    if rules.two_way_calls or rules.send_or_receive:
        out = _touching_matching(nbrs, subset, both=rules.two_way_calls)
    else:
        out = _sender_matching(nbrs, subset, ports)
    if calls is not None:
        out = min(out, 2 * calls if rules.two_way_calls else calls)
    return out


def counting_sets(instance: Instance, nbrs: list[list[int]]) -> list[tuple[frozenset[int], int]]:
    """The node sets the counting constraints bound, each with its receiver bound ``mu``.

    Every node; and, in the point-to-point models, for each set ``T`` of one or two nodes,
    the nodes outside ``T`` with every neighbour in ``T``, where fewer of them can receive
    in a round than there are.

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> inst = parse_instance("star:5", "single-port:p=1", "gossip")
    >>> counting_sets(inst, [sorted(inst.graph.adj[v]) for v in range(inst.n)])
    [(frozenset({0, 1, 2, 3, 4}), 2), (frozenset({1, 2, 3, 4}), 1)]
    """
    everyone = frozenset(range(instance.n))
    out = [(everyone, receiver_bound(instance, nbrs, everyone))]
    ports = instance.model.ports
    if not instance.model.rules.point_to_point or ports is None:
        return out
    seen = {everyone}
    for size in (1, 2):
        for ts in combinations(range(instance.n), size):
            tset = set(ts)
            subset = frozenset(
                v for v in range(instance.n) if v not in tset and nbrs[v] and set(nbrs[v]) <= tset
            )
            if not subset:
                continue
            for cand in (subset, subset | tset):
                if len(cand) < 2 or cand in seen:
                    continue
                seen.add(cand)
                mu = receiver_bound(instance, nbrs, cand)
                if mu < ports * len(cand):
                    out.append((cand, mu))
    # a set inside another with no larger bound is implied by it: count(S') <= count(S)
    return [(s, mu) for s, mu in out if not any(s < big and mu_big <= mu for big, mu_big in out)]


def busy_facts(instance: Instance, nbrs: list[list[int]]) -> list[list[tuple[int, int]]]:
    """For each node ``c``, the facts ``(v, q)`` that each need a transfer touching ``c``.

    Only for the point-to-point models (empty otherwise); a list is kept where it has more
    facts than ``c`` alone learns (where it says more than the learn cap).

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> inst = parse_instance("path:3", "half-duplex:p=1", "gossip")
    >>> facts = busy_facts(inst, [sorted(inst.graph.adj[v]) for v in range(inst.n)])
    >>> facts[1]  # the middle node learns two packets and feeds both ends two each
    [(1, 0), (1, 2), (0, 1), (0, 2), (2, 0), (2, 1)]
    >>> facts[0]  # an end learns two, and its packet enters the rest once
    [(0, 1), (0, 2), (1, 0)]
    """
    if not instance.model.rules.point_to_point:
        return []
    g = nx.Graph()
    g.add_nodes_from(range(instance.n))
    g.add_edges_from((u, v) for u in range(instance.n) for v in nbrs[u])
    holders = instance.holdings
    out: list[list[tuple[int, int]]] = []
    for c in range(instance.n):
        facts = [(c, q) for q in range(instance.n_packets) if not holders[c] >> q & 1]
        own = len(facts)
        rest = g.subgraph(v for v in range(instance.n) if v != c)
        for comp in sorted(map(sorted, nx.connected_components(rest))):
            entry = [v for v in comp if v in nbrs[c]]
            if not entry:
                continue
            inside = 0
            for v in comp:
                inside |= holders[v]
            facts += [(entry[0], q) for q in range(instance.n_packets) if not inside >> q & 1]
        if len(facts) > own:
            out.append(facts)
    return out


def add_packet_counts(encoding: Any, t: int, slack: int = 0) -> None:
    """The counting constraints of round ``t`` of a ``p``-capped transfer encoding.

    Parameters
    ----------
    encoding : TransferEncoding
        With ``cap`` set; its ``counting_sets`` attribute is filled on first use.
    t : int
        The round.
    slack : int
        Added to every bound (0; a negative value makes the constraints unsound, for tests
        that check they can fail).
    """
    inst = encoding.instance
    if getattr(encoding, "counting_sets", None) is None:
        encoding.counting_sets = counting_sets(inst, encoding.nbrs)
    for subset, mu in encoding.counting_sets:
        lits: list[int] = []
        for v in sorted(subset):
            for q in range(inst.n_packets):
                k = encoding.knows(v, q, t)
                if not isinstance(k, bool):
                    lits.append(k)
        # constants True are the holdings; the rest is learnt, at most mu * p per round
        _at_most(encoding, lits, t * mu * encoding.cap + slack)
    if getattr(encoding, "busy_facts", None) is None:
        encoding.busy_facts = busy_facts(inst, encoding.nbrs)
    # transmissions touching a node per round: one (send-or-receive) or a call's two, or
    # ``ports`` out and ``ports`` in
    rules, ports = inst.model.rules, inst.model.ports
    per_round = encoding.cap * (1 if rules.send_or_receive else 2) * (ports or 0)
    for facts in encoding.busy_facts:
        lits = [k for v, q in facts if not isinstance(k := encoding.knows(v, q, t), bool)]
        _at_most(encoding, lits, t * per_round + slack)


def _at_most(encoding: Any, lits: list[int], bound: int) -> None:
    """``sum(lits) <= bound`` unless it is trivial or over the size cap."""
    if len(lits) > bound and len(lits) * max(bound, 1) <= MAX_TOTALIZER:
        encoding.formula.at_most(lits, bound)
