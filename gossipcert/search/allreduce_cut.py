"""The cut-vertex lower bound of allreduce: a node whose removal splits the graph is a
pipeline every chunk must pass through twice, once in and once out.

Let ``v`` be a node and ``C_1, ..., C_m`` the components of ``G - v``. In one round ``v``
receives at most ``a`` chunks and sends at most ``b`` (``a = b = p`` in telephone,
half-duplex and single-port with ``p`` packets per transmission; in all-port ``a`` and ``b``
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

- **first hearing.** Let ``h_c`` be the round in which ``v`` has received ``c`` from every
  source (``k >= 1`` of them) for the first time, the last of them being ``C_last``. Before
  round ``h_c`` nothing of ``c`` came from ``C_last``, so ``v`` does not know its
  contributors; every sink other than ``C_last`` demands them, and they can only enter it
  from ``v``: at least ``e = s - o`` sends of ``c`` from ``v``, into distinct components,
  after round ``h_c``. Sort the chunks by ``h_c``; the first ``j`` of them took ``j k``
  receipts by round ``h_(j)``, so ``h_(j) >= ceil(j k / a)``, and the other ``N - j + 1``
  need ``(N - j + 1) e`` sends in the rounds after ``h_(j)``:
  ``R >= ceil(j k / a) + ceil((N - j + 1) e / b)`` for every ``j = 1..N``.
- **last sending**, the same in reverse time. Let ``f_c`` be the earliest of the rounds in
  which ``v`` sends ``c`` into a sink for the last time, the sink being ``C_first``
  (``s >= 1``). Nothing of ``c`` enters ``C_first`` after round ``f_c``, so by the end of
  round ``f_c - 1`` ``v`` knows every contributor outside ``C_first``, which took a
  receipt of ``c`` from each source other than ``C_first``, at least ``r = k - o``, in the
  rounds before ``f_c``; and every sink's last send is in round ``f_c`` or later: ``s``
  sends in the rounds ``f_c..R``. Sorting the chunks by ``f_c``:
  ``R >= ceil(j r / a) + ceil((N - j + 1) s / b)`` for every ``j = 1..N``.

Two refinements, each when a side has two members to serve:

- **tail** (first hearing), when every sink of every chunk holds two demanders of it. Let
  ``X`` be the counted sends, one per chunk and sink other than ``C_last`` at least, after
  ``h_c``. If there are more, ``R >= ceil(j k / a) + ceil(((N - j + 1) e + 1) / b)``.
  Otherwise take the last send of ``X``, of ``c`` into ``C`` to ``u``: another demander
  ``w`` of ``C`` needs ``C_last``'s contributors, which enter ``C`` only by a send of ``X``,
  so ``w`` hears them from ``u``'s side a round later. So the second term grows by one, or
  by the rounds of one more send, whichever is less;
- **head** (last sending), when every source of every chunk holds two contributors of it.
  If the counted receipts before ``f_c`` are one per chunk and source, each brings ``v``
  all of its source's contributors, so its sender heard another contributor in an earlier
  round: none falls in round 1, and the first term grows by one (or by one more receipt).

The bound is the largest of these over the nodes ``v`` (a node that splits nothing has one
component, ``k = s = 1`` and ``e = r = 0``: ``N / a``, the receive bound). On a star
``K_{1,L}`` in single-port with ``p = 1`` the center gives ``N L + L - 1``, which the hub
allreduce (:mod:`gossipcert.constructions.hub_allreduce`) meets; on the path of 3 nodes with
one chunk per node it gives 7, the optimum; on the bowtie (two triangles sharing a node)
with two chunks per node the tail makes it ``20 + 1 + 1 = 22``.

References
----------
.. [1] F. Harary and A. J. Schwenk, "The communication problem on graphs and digraphs",
   J. Franklin Inst. 297, 1974 (the counting of knowledge along chains of calls).
.. [2] S. M. Johnson, "Optimal two- and three-stage production schedules with setup times
   included", Naval Res. Logist. Q. 1, 1954 (a job must pass one machine, then another:
   the first and last jobs' idle times add to the busiest machine's load).
"""

from __future__ import annotations

import networkx as nx

from gossipcert.closed_forms.relay import port_rates
from gossipcert.instance import Instance


def pipeline(
    n_chunks: int,
    first: int,
    second: int,
    a: int,
    b: int,
    head: bool = False,
    tail: bool = False,
) -> int:
    """``max_j ceil(j first / a) + ceil((N - j + 1) second / b)`` over ``j = 1..N``; with
    ``head`` (``tail``) the first (second) term ``ceil(x / y)`` becomes
    ``min(ceil(x / y) + 1, ceil((x + 1) / y))`` where ``x > 0`` (module docstring).

    Examples
    --------
    >>> pipeline(4, 3, 2, 1, 1)  # star K_{1,3}, one chunk per node: 12 + 2
    14
    >>> pipeline(10, 2, 1, 1, 1, tail=True)  # the bowtie, two chunks per node: 20 + 1 + 1
    22
    """

    def term(x: int, y: int, more: bool) -> int:
        rounds = -(-x // y)
        return min(rounds + 1, -(-(x + 1) // y)) if more and x > 0 else rounds

    return max(
        term(j * first, a, head) + term((n_chunks - j + 1) * second, b, tail)
        for j in range(1, n_chunks + 1)
    )


def node_cut_bound(instance: Instance, v: int) -> int | None:
    """The larger of the two pipeline bounds of the module docstring at node ``v``; None
    when ``v``'s ports are unbounded or no chunk is demanded.

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> node_cut_bound(parse_instance("star:4", "single-port", "allreduce:chunks=2"), 0)
    26
    """
    rates = port_rates(instance, v)
    if rates is None:
        return None
    a, b = rates
    g = instance.graph
    rest = g.subgraph(u for u in g if u != v)
    comps = [set(c) for c in nx.connected_components(rest)]
    holders = [[w for w in g if instance.holdings[w] >> c & 1] for c in range(instance.n_packets)]
    wanting = [[w for w in g if instance.demands[w] >> c & 1] for c in range(instance.n_packets)]
    counts = []
    head = tail = True  # every source holds two contributors; every sink two demanders
    for c in range(instance.n_packets):
        if not wanting[c]:
            continue
        sources = [i for i, comp in enumerate(comps) if _source(comp, holders[c], wanting[c])]
        sinks = [i for i, comp in enumerate(comps) if _source(comp, wanting[c], holders[c])]
        counts.append((len(sources), len(sinks), 1 if set(sources) & set(sinks) else 0))
        head = head and all(len(comps[i] & set(holders[c])) >= 2 for i in sources)
        tail = tail and all(len(comps[i] & set(wanting[c])) >= 2 for i in sinks)
    if not counts or a <= 0 or b <= 0:
        return None
    k = min(x[0] for x in counts)
    s = min(x[1] for x in counts)
    o = max(x[2] for x in counts)
    best = 0
    if k >= 1:
        best = max(best, pipeline(len(counts), k, max(0, s - o), a, b, tail=tail))
    if s >= 1:
        best = max(best, pipeline(len(counts), max(0, k - o), s, a, b, head=head))
    return best


def _source(comp: set[int], inside: list[int], outside: list[int]) -> bool:
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
    found = [node_cut_bound(instance, v) for v in range(instance.n)]
    values = [x for x in found if x is not None]
    return max(values) if values else None
