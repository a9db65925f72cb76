"""The bridge lower bound of allreduce: an edge whose removal splits the graph lets every
chunk into one side through one arc, which pipelines them like a single machine.

Let ``x -- y`` be a bridge, ``Y`` the side of ``y`` once it is removed and ``X`` the other
side. Call a chunk ``c`` *crossing* when it has a contributor in ``X`` and a demander in
``Y``. As in the receipts bound, say that ``y`` *knows* ``w`` (for ``c``) after round ``t``
when a chain of receipts of ``c`` in increasing rounds leads from ``w`` to ``y`` by then; a
partial result is always inside its holder's knowledge, under ``sum`` and ``max`` alike.
Every chain from ``X`` into ``Y`` is received by ``y`` over the arc ``x -> y``, which carries
at most ``a`` chunks a round (its capacity in all-port, else the ``p`` packets of one
transmission: :func:`gossipcert.encodings.allreduce.arc_cap`).

- **completion.** For a crossing chunk ``c`` let ``g_c`` be the round of the receipt over
  ``x -> y`` after which ``y`` first knows every contributor of ``c`` in ``X``. A chain
  from a contributor ``w`` takes at least ``dist(w, y)`` receipts in increasing rounds, so
  ``g_c >= S``, the least over the crossing chunks of the distance from ``y`` to their
  farthest contributor in ``X``. Some contributor ``w*`` of ``X`` is known to ``y`` only from
  round ``g_c`` on; every demander ``u`` of ``c`` in ``Y`` needs it, and a chain from
  ``w*`` to ``u`` passes ``y`` in a round ``>= g_c`` and then takes ``dist(y, u)`` more
  receipts: ``R >= g_c + T``, with ``T`` the least over the crossing chunks of the distance
  from ``y`` to their farthest demander in ``Y``. The ``g_c`` of distinct chunks are
  receipts of distinct chunks over one arc, at most ``a`` a round, so the last of ``N``
  crossing chunks is completed no earlier than round ``S - 1 + ceil(N / a)``:

  ``R >= S - 1 + ceil(N / a) + T``.
- **last sending** is the same bound in reverse time (as for the cut-vertex bound of
  :mod:`gossipcert.search.allreduce_cut`): run a schedule backwards and swap contributors
  and demanders; the arc ``y -> x`` takes the place of ``x -> y``.

The bound is the largest of these over the bridges and both of their directions. It is the
one of a machine whose chassis reach a switch through one link each (``ndv2:K``): for a chassis
``Y`` behind the link ``switch -- g``, every one of the ``N = 32 K`` chunks of ``ndv2:4`` has
its farthest outside contributor 4 hops from ``g`` (switch, another chassis' NIC GPU, two
NVLink hops) and its farthest demander in ``Y`` 2 hops from ``g``: ``R >= 3 + N + 2``, two
rounds above the cut-vertex bound at the switch, and met by the tree allreduce. On the path
of 4 nodes in all-port with one chunk a node it gives ``1 + 4 + 1 = 6``, the optimum.

References
----------
.. [1] F. Harary and A. J. Schwenk, "The communication problem on graphs and digraphs",
   J. Franklin Inst. 297, 1974 (the counting of knowledge along chains of calls).
.. [2] S. M. Johnson, "Optimal two- and three-stage production schedules with setup times
   included", Naval Res. Logist. Q. 1, 1954 (jobs through one machine between a head and a
   tail: the first head and the last tail add to the machine's load).
"""

from __future__ import annotations

import math
from collections.abc import Iterator

import networkx as nx

from gossipcert.encodings.allreduce import arc_cap
from gossipcert.instance import Instance
from gossipcert.search.allreduce_cut import Kinds, chunk_kinds


def bridge_sides(g: nx.Graph) -> Iterator[tuple[int, int, set[int]]]:
    """Each bridge ``x -- y`` of ``g``, both ways round, with ``y``'s side once it is
    removed (the nodes ``y`` still reaches).

    Examples
    --------
    >>> sorted((x, y, sorted(side)) for x, y, side in bridge_sides(nx.path_graph(3)))
    [(0, 1, [1, 2]), (1, 0, [0]), (1, 2, [2]), (2, 1, [0, 1])]
    """
    rest = g.copy()
    for u, v in nx.bridges(g):
        rest.remove_edge(u, v)
        side = nx.node_connected_component(rest, v)
        rest.add_edge(u, v)
        yield u, v, side
        yield v, u, set(g) - side


def _through(dist: dict[int, int], side: set[int], kinds: Kinds, rate: int) -> int | None:
    """The completion bound of the module docstring for the arc into ``side`` at the node
    whose distances are ``dist``, the chunks' groups being (contributors, demanders, how
    many); None when no chunk crosses."""
    crossing = 0
    start: int | None = None
    tail: int | None = None
    for have, want, many in kinds:
        outside = [w for w in have if w not in side]
        inside = [u for u in want if u in side]
        if not outside or not inside:
            continue
        crossing += many
        first = max(dist[w] for w in outside)
        last = max(dist[u] for u in inside)
        start = first if start is None else min(start, first)
        tail = last if tail is None else min(tail, last)
    if start is None or tail is None:
        return None
    return start - 1 + math.ceil(crossing / rate) + tail


def bridge_bound(instance: Instance) -> int | None:
    """The bridge bound of the module docstring: the largest completion and last-sending
    bound over the bridges of the graph and both of their directions; None without a
    bridge, or when every bridge's arcs are unbounded or no chunk crosses them.

    Parameters
    ----------
    instance : Instance
        A reduction (allreduce, reduce-scatter, reduce) or any instance whose chunks have
        contributors (holdings) and demanders (demands).

    Returns
    -------
    int or None

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> bridge_bound(parse_instance("path:4", "all-port", "allreduce"))
    6
    >>> bridge_bound(parse_instance("ndv2:4", "all-port", "allreduce"))
    37
    >>> bridge_bound(parse_instance("ring:5", "all-port", "allreduce")) is None
    True

    References
    ----------
    .. [1] F. Harary and A. J. Schwenk, "The communication problem on graphs and digraphs",
       J. Franklin Inst. 297, 1974.
    """
    g = instance.graph
    kinds = chunk_kinds(instance)
    mirrored = [(want, have, many) for have, want, many in kinds]
    best: int | None = None
    for x, y, side in bridge_sides(g):
        dist = nx.single_source_shortest_path_length(g, y)
        found = []
        into, out = arc_cap(instance, x, y), arc_cap(instance, y, x)
        if into:
            found.append(_through(dist, side, kinds, into))
        if out:  # reverse time: contributors and demanders swap, y -> x carries them
            found.append(_through(dist, side, mirrored, out))
        for value in found:
            if value is not None and (best is None or value > best):
                best = value
    return best
