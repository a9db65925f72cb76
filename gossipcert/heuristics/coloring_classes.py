"""The matchings the coloring heuristic sequences (:mod:`gossipcert.heuristics.coloring`):
the section-8 matchings of Beier and Sibeyn for CCC, wrapped butterfly, star and pancake
graphs (:func:`gossipcert.constructions.beier_sibeyn_matchings.coloring_matchings`), or for
any other graph the colour classes of a greedy edge colouring, each completed to a maximal
matching.

References
----------
.. [1] R. Beier and J. F. Sibeyn, "A powerful heuristic for telephone gossiping", Proc. 7th
   SIROCCO, 2000: section 6 (the matchings of an edge colouring), section 8 (the matchings
   of CCC, butterflies, star and pancake graphs).
"""

from __future__ import annotations

import networkx as nx

from gossipcert.constructions.beier_sibeyn_matchings import coloring_matchings
from gossipcert.errors import NotApplicableError
from gossipcert.instance import Instance

#: a matching, as node pairs
Matching = list[tuple[int, int]]


def greedy_coloring_matchings(graph: nx.Graph) -> list[Matching]:
    """Colour classes of a greedy edge colouring, each completed to a maximal matching.

    Parameters
    ----------
    graph : networkx.Graph

    Returns
    -------
    list of list of (int, int)
        Matchings that together hold every edge at least once.

    Examples
    --------
    >>> from gossipcert import graphs
    >>> ms = greedy_coloring_matchings(graphs.from_spec("ring:6"))
    >>> len(ms), sorted(len(m) for m in ms)
    (2, [3, 3])
    """
    line = nx.line_graph(graph)
    colour = nx.coloring.greedy_color(line, strategy="largest_first")
    classes: dict[int, list[tuple[int, int]]] = {}
    for (u, v), c in sorted(colour.items(), key=lambda kv: (kv[1], sorted(kv[0]))):
        classes.setdefault(c, []).append((min(u, v), max(u, v)))
    edges = sorted((min(u, v), max(u, v)) for u, v in graph.edges)
    out = []
    for c in sorted(classes):
        used = {x for e in classes[c] for x in e}
        m = list(classes[c])
        for u, v in edges:
            if u not in used and v not in used:
                m.append((u, v))
                used.update((u, v))
        out.append(sorted(m))
    return out


def _default_matchings(instance: Instance) -> list[Matching]:
    try:
        return [list(m) for m in coloring_matchings(instance.graph)]
    except NotApplicableError:
        return greedy_coloring_matchings(instance.graph)
