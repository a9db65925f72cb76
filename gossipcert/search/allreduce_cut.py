"""The cut-vertex lower bound of allreduce: a node whose removal splits the graph is a
pipeline every chunk must pass through twice, once in and once out.

Let ``v`` be a node and ``C_1, ..., C_m`` the components of ``G - v``. In one round ``v``
receives at most ``a`` chunks and sends at most ``b`` (``a = b = p`` in telephone,
half-duplex and single-port with ``p`` packets per transmission, ``k p`` with ``k`` ports;
in all-port ``a`` and ``b``
are the sums of the capacities of ``v``'s arcs in and out; multicast, where one
transmission reaches several components, and unbounded packets give no bound). For a chunk
``c`` call a component a *source* when it holds a contributor of ``c`` and some demander of
``c`` lies outside it, and a *sink* when it holds a demander of ``c`` and some contributor
lies outside it. Every edge leaving a component ends at ``v``, so every chain of
transmissions of ``c`` that carries a contribution out of a component enters ``v`` from it,
and every chain into a component leaves ``v`` into it. As in the receipts bound, say that
``v`` *knows* ``w`` (for ``c``) after round ``t`` when a chain of receipts of ``c`` in
increasing rounds leads from ``w`` to ``v`` by then; a partial result is always inside its
holder's knowledge, under ``sum`` and ``max`` alike. With ``N`` chunks, each with at least
``k`` sources and ``s`` sinks, and ``o = 1`` when some component may be both a source and a
sink of a chunk (else ``0``):

- **completion.** For a chunk ``c`` and a source ``C``, the receipt of ``c`` from ``C``
  after which ``v`` first knows every contributor of ``c`` in ``C`` *completes* ``C``; let
  ``g_c`` be the round in which the last source, ``C_last``, is completed. Before round
  ``g_c`` ``v`` does not know some contributor of ``C_last``; every sink other than
  ``C_last`` demands it, and it can only enter it from ``v``: at least ``e = s - o`` sends
  of ``c`` from ``v``, into distinct components, after round ``g_c``. Sort the chunks by
  ``g_c``; the first ``j`` of them took ``j k`` completing receipts, all distinct, by round
  ``g_(j)``, and none before round ``start``, so ``g_(j) >= start - 1 + ceil(j k / a)``,
  and the other ``N - j + 1`` need ``(N - j + 1) e`` sends in the rounds after ``g_(j)``:
  ``R >= start - 1 + ceil(j k / a) + ceil((N - j + 1) e / b)`` for every ``j = 1..N``.
  Here ``start`` is the least, over the chunks and their sources ``C``, of the round before
  which ``C`` cannot be completed: the distance from ``v`` of ``C``'s farthest contributor,
  and at least 2 when ``C`` holds two contributors and ``v``'s receipts of a round come
  from one neighbour (one-port models, or one neighbour of ``v`` in ``C``), since a receipt
  of round 1 carries its sender's contribution alone.
- **last sending** is the completion bound in reverse time. Run a schedule backwards on the
  reversed graph and swap contributors and demanders: the chains of knowledge are the same
  chains reversed, receipts of ``v`` become its sends (``a`` and ``b`` swap), sources
  become sinks. So the completion bound of the mirrored instance holds too:
  ``R >= start' - 1 + ceil(j s / b) + ceil((N - j + 1) r / a)`` with ``r = k - o``.

A refinement, the **tail**, when every sink ``C`` of every chunk has, for each neighbour
``u`` of ``v`` in ``C``, a demander of the chunk other than ``u`` (two demanders, or one not
next to ``v``). Let ``X`` be the counted sends, one per chunk and sink other than
``C_last`` at least, after ``g_c``. If there are more,
``R >= start - 1 + ceil(j k / a) + ceil(((N - j + 1) e + 1) / b)``. Otherwise take the
last send of ``X``, of ``c`` into ``C`` to ``u``: another demander ``w`` of ``C`` needs the
contributor of ``C_last`` that ``v`` learnt in round ``g_c``, which enters ``C`` only by a
send of ``X``, so ``w`` hears it from ``u``'s side a round later. So the second term grows
by one, or by the rounds of one more send, whichever is less. In reverse time the tail is a
*head* on the last-sending bound, when every source holds two contributors.

The bound is the largest of these over the nodes ``v`` (a node that splits nothing has one
component, ``k = s = 1`` and ``e = r = 0``: ``N / a``, the receive bound). On a star
``K_{1,L}`` in single-port with ``p = 1`` the center gives ``N L + L - 1``, which the hub
allreduce (:mod:`gossipcert.constructions.hub_allreduce`) meets; on the path of 3 nodes with
one chunk per node it gives 7, the optimum; on the bowtie (two triangles sharing a node)
with two chunks per node, ``start = 2`` and the tail make it ``1 + 20 + 1 + 1 = 23``.

References
----------
.. [1] F. Harary and A. J. Schwenk, "The communication problem on graphs and digraphs",
   J. Franklin Inst. 297, 1974 (the counting of knowledge along chains of calls).
.. [2] S. M. Johnson, "Optimal two- and three-stage production schedules with setup times
   included", Naval Res. Logist. Q. 1, 1954 (a job must pass one machine, then another:
   the first and last jobs' idle times add to the busiest machine's load).
"""

from __future__ import annotations

from dataclasses import dataclass

import networkx as nx

from gossipcert.closed_forms.relay import port_rates
from gossipcert.instance import Instance


def pipeline(
    n_chunks: int,
    first: int,
    second: int,
    a: int,
    b: int,
    start: int = 1,
    tail: bool = False,
) -> int:
    """``max_j start - 1 + ceil(j first / a) + ceil((N - j + 1) second / b)`` over
    ``j = 1..N``; with ``tail`` the second term ``ceil(x / y)`` becomes
    ``min(ceil(x / y) + 1, ceil((x + 1) / y))`` where ``x > 0`` (module docstring).

    Examples
    --------
    >>> pipeline(4, 3, 2, 1, 1)  # star K_{1,3}, one chunk per node: 12 + 2
    14
    >>> pipeline(10, 2, 1, 1, 1, tail=True)  # two sides of two nodes, two chunks: 20 + 1 + 1
    22
    >>> pipeline(10, 2, 1, 1, 1, start=2, tail=True)  # no side is completed in round 1
    23
    """

    def term(x: int, y: int, more: bool) -> int:
        rounds = -(-x // y)
        return min(rounds + 1, -(-(x + 1) // y)) if more and x > 0 else rounds

    return max(
        start - 1 + term(j * first, a, False) + term((n_chunks - j + 1) * second, b, tail)
        for j in range(1, n_chunks + 1)
    )


@dataclass(frozen=True)
class _Side:
    """What the completion bound of one node needs: the counts of the module docstring."""

    n_chunks: int  # N: the chunks someone demands
    k: int  # the fewest sources of a chunk
    s: int  # the fewest sinks of a chunk
    o: int  # 1 when a component may be both a source and a sink of a chunk
    start: int  # no source is completed before this round
    tail: bool  # every sink keeps a demander away from the node's last send into it


#: chunks grouped by their (contributors, demanders), each pair with how many chunks share it
Kinds = list[tuple[tuple[int, ...], tuple[int, ...], int]]


def chunk_kinds(instance: Instance) -> Kinds:
    """The chunks of ``instance`` grouped by contributors and demanders (an allreduce has one
    group): the counts of :func:`_side` are the same for every chunk of a group."""
    nodes = range(instance.n)
    kinds: dict[tuple[tuple[int, ...], tuple[int, ...]], int] = {}
    for c in range(instance.n_packets):
        have = tuple(w for w in nodes if instance.holdings[w] >> c & 1)
        want = tuple(w for w in nodes if instance.demands[w] >> c & 1)
        kinds[have, want] = kinds.get((have, want), 0) + 1
    return [(have, want, many) for (have, want), many in kinds.items()]


def _side(g: nx.Graph, v: int, kinds: Kinds, one_in: bool) -> _Side | None:
    """The counts at ``v`` with each group's first member contributing and its second
    demanding (pass them swapped for the mirrored instance); ``one_in``: ``v``'s receipts of
    a round come from one neighbour. None when no chunk is demanded."""
    rest = g.subgraph(u for u in g if u != v)
    comps = [set(c) for c in nx.connected_components(rest)]
    dist = nx.single_source_shortest_path_length(g, v)
    near = set(g.adj[v])
    counts = []
    n_chunks = 0
    start = None
    tail = True
    for have, want, many in kinds:
        if not want:
            continue
        n_chunks += many
        sources = [i for i, comp in enumerate(comps) if _source(comp, have, want)]
        sinks = [i for i, comp in enumerate(comps) if _source(comp, want, have)]
        counts.append((len(sources), len(sinks), 1 if set(sources) & set(sinks) else 0))
        for i in sources:
            inside = [w for w in have if w in comps[i]]
            alone = one_in or len(near & comps[i]) == 1
            first = max(max(dist[w] for w in inside), 2 if len(inside) >= 2 and alone else 1)
            start = first if start is None else min(start, first)
        for i in sinks:
            inside = [w for w in want if w in comps[i]]
            tail = tail and (len(inside) >= 2 or inside[0] not in near)
    if not counts:
        return None
    return _Side(
        n_chunks=n_chunks,
        k=min(x[0] for x in counts),
        s=min(x[1] for x in counts),
        o=max(x[2] for x in counts),
        start=1 if start is None else start,
        tail=tail,
    )


def _completion(side: _Side, a: int, b: int) -> int:
    """The completion bound of the module docstring (0 when no chunk has a source)."""
    if side.k < 1:
        return 0
    return pipeline(
        side.n_chunks, side.k, max(0, side.s - side.o), a, b, start=side.start, tail=side.tail
    )


def node_cut_bound(instance: Instance, v: int) -> int | None:
    """The larger of the completion and last-sending bounds of the module docstring at node
    ``v``; None when ``v``'s ports are unbounded or no chunk is demanded.

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> node_cut_bound(parse_instance("star:4", "single-port", "allreduce:chunks=2"), 0)
    26
    """
    return _node_bound(instance, v, chunk_kinds(instance))


def _node_bound(instance: Instance, v: int, kinds: Kinds) -> int | None:
    """:func:`node_cut_bound` with the chunks' groups (:func:`chunk_kinds`) given."""
    rates = port_rates(instance, v)
    if rates is None:
        return None
    a, b = rates
    if a <= 0 or b <= 0:
        return None
    g = instance.graph
    one_port = instance.model.ports == 1
    forward = _side(g, v, kinds, one_port)
    if forward is None:
        return None
    backward = _side(g, v, [(want, have, many) for have, want, many in kinds], one_port)
    mirrored = 0 if backward is None else _completion(backward, b, a)
    return max(_completion(forward, a, b), mirrored)


def _source(comp: set[int], inside: tuple[int, ...], outside: tuple[int, ...]) -> bool:
    """Some node of ``inside`` is in ``comp`` and some node of ``outside`` is not."""
    return any(w in comp for w in inside) and any(w not in comp for w in outside)


def cut_bound(instance: Instance) -> int | None:
    """The cut-vertex bound (module docstring): the largest node bound over the nodes; None
    when no node has one.

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> cut_bound(parse_instance("star:4", "single-port", "allreduce"))
    14
    >>> cut_bound(parse_instance("path:3", "single-port", "allreduce"))
    7
    >>> cut_bound(parse_instance("star:4", "multicast", "allreduce")) is None
    True
    """
    kinds = chunk_kinds(instance)
    found = [_node_bound(instance, v, kinds) for v in range(instance.n)]
    values = [x for x in found if x is not None]
    return max(values) if values else None
