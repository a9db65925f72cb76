"""Beier and Sibeyn's coloring-heuristic schedules (section 8, Table 6): telephone gossip
with unit cost (a call exchanges everything) along a sequence of perfect matchings.

A few perfect matchings ``M_0, M_1, ...`` together cover every edge exactly once, and a
sequence of their indices gives one per round: cube-connected cycles (three matchings),
wrapped butterflies (four), star and pancake graphs (``k - 1``, one per generator).
:data:`TABLE_6` lists the paper's sequences; :func:`matching_sequence` builds the schedule
of a sequence. The search for good sequences is :mod:`gossipcert.heuristics.coloring`.

References
----------
.. [1] R. Beier and J. F. Sibeyn, "A powerful heuristic for telephone gossiping", Proc. 7th
   SIROCCO, 2000: section 8 (the matchings of CCC, butterflies, star and pancake graphs;
   Figures 6 and 7; Table 6).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Sequence

import networkx as nx

from gossipcert.constructions.beier_sibeyn import Calls, check_telephone
from gossipcert.errors import NotApplicableError, SpecError
from gossipcert.instance import Instance
from gossipcert.schedule import Schedule

__all__ = [
    "TABLE_6",
    "butterfly_matchings",
    "ccc_matchings",
    "coloring_matchings",
    "matching_sequence",
    "pancake_matchings",
    "star_matchings",
]


#: Table 6 of the paper: spec -> (rounds R, matching sequence). Sequences of the rows whose
#: round count was not legible have ``R = len(sequence)``.
TABLE_6: dict[str, tuple[int, str]] = {
    "ccc:3": (7, "0120120"),
    "ccc:4": (9, "012021202"),
    "ccc:5": (13, "2020120120210"),
    "ccc:6": (14, "01202120212020"),
    "ccc:7": (19, "2012010201202120210"),
    "ccc:8": (18, "012120212021201212"),
    "ccc:9": (23, "01212021202120212021210"),
    "ccc:10": (23, "01202012021202120210202"),
    "ccc:11": (29, "01201201201202120212021202121"),
    "ccc:12": (28, "0121202120212021202120212101"),
    "butterfly:3": (6, "012320"),
    "butterfly:4": (7, "0123023"),
    "butterfly:5": (11, "02103231023"),
    "butterfly:6": (12, "012030230123"),
    "butterfly:7": (16, "0123012321032310"),
    "butterfly:8": (17, "01230123103230123"),
    "butterfly:9": (21, "012301231012321032031"),
    "butterfly:10": (22, "0123012301230123013210"),
    "butterfly:11": (26, "01230132012310231203210321"),
    "butterfly:12": (27, "012301230123012301230132103"),
    "star-graph:3": (3, "010"),
    "star-graph:4": (6, "012010"),
    "star-graph:5": (9, "012310320"),
    "star-graph:6": (13, "0123402413203"),
    "star-graph:7": (18, "012345024153012540"),
    "star-graph:8": (22, "0123456031526402143506"),
    "pancake:3": (3, "010"),
    "pancake:4": (5, "02102"),
    "pancake:5": (8, "01230130"),
    "pancake:6": (11, "02102432104"),
    "pancake:7": (15, "012345021025012"),
    "pancake:8": (20, "01234560245602456043"),
}


# --------------------------------------------------------------------------- matchings


def _pair_index(graph: nx.Graph, family: str) -> tuple[int, Callable[[int, int], int]]:
    spec = str(graph.graph.get("spec", ""))
    name, _, arg = spec.partition(":")
    if name != family or not arg.isdigit():
        raise NotApplicableError(f"{spec or 'the graph'} is not a {family} graph")
    k = int(arg)
    index = {graph.nodes[v]["coords"]: v for v in graph}

    def node(i: int, j: int) -> int:
        return index[(i, j % k)]

    return k, node


def _cycle_matchings(k: int, node: Callable[[int, int], int]) -> tuple[Calls, Calls]:
    """For even ``k``: the cycle edges ``(i, 2j) -- (i, 2j+1)`` and ``(i, 2j-1) -- (i, 2j)``."""
    size = 1 << k
    m0 = [(node(i, 2 * j), node(i, 2 * j + 1)) for i in range(size) for j in range(k // 2)]
    m1 = [(node(i, 2 * j - 1), node(i, 2 * j)) for i in range(size) for j in range(1, k // 2 + 1)]
    return m0, m1


def ccc_matchings(graph: nx.Graph) -> list[Calls]:
    """The three matchings of ``CCC_k`` (section 8), each edge in exactly one.

    Even ``k``: ``M_0`` joins ``(i, 2j)`` and ``(i, 2j+1)``, ``M_1`` joins ``(i, 2j-1)`` and
    ``(i, 2j)``, ``M_2`` holds the cross edges. Odd ``k``: ``M_0`` and ``M_1`` hold
    ``floor(k/2)`` cycle edges per cycle, leaving ``(i, k-1)`` resp. ``(i, 0)`` unmatched,
    plus the cross edges at ``(i, k-1)`` resp. ``(i, 0)``; ``M_2`` holds the other cross
    edges and the edges ``(i, 0) -- (i, k-1)``.

    Parameters
    ----------
    graph : networkx.Graph
        ``ccc:K`` from :mod:`gossipcert.graphs` (``coords`` ``(i, j)``).

    Returns
    -------
    list of list of (int, int)
        ``[M_0, M_1, M_2]``, perfect matchings.

    Examples
    --------
    >>> from gossipcert import graphs
    >>> [len(m) for m in ccc_matchings(graphs.from_spec("ccc:3"))]
    [12, 12, 12]

    References
    ----------
    Beier and Sibeyn, section 8, "Cube-Connected-Cycles".
    """
    k, node = _pair_index(graph, "ccc")
    cycles = range(1 << k)
    if k % 2 == 0:
        # M0, M1: the cycle edges alternately; M2: all cross edges (i, j) -- (i xor 2^j, j)
        along_0, along_1 = _cycle_matchings(k, node)
        across = [
            (node(i, j), node(i ^ 1 << j, j)) for i in cycles for j in range(k) if not i >> j & 1
        ]
        return [along_0, along_1, across]
    m0: Calls = []
    m1: Calls = []
    m2: Calls = []
    for i in cycles:
        # M0: cycle edges (i, 2j) -- (i, 2j+1); (i, k-1) takes its cross edge
        m0 += [(node(i, 2 * j), node(i, 2 * j + 1)) for j in range((k - 1) // 2)]
        # M1: cycle edges (i, 2j-1) -- (i, 2j); (i, 0) takes its cross edge
        m1 += [(node(i, 2 * j - 1), node(i, 2 * j)) for j in range(1, (k - 1) // 2 + 1)]
        # M2: the cycle edge (i, 0) -- (i, k-1)
        m2.append((node(i, 0), node(i, k - 1)))
        for j in range(k):
            if i >> j & 1:
                continue
            cross = (node(i, j), node(i ^ 1 << j, j))
            if j == k - 1:
                m0.append(cross)
            elif j == 0:
                m1.append(cross)
            else:
                m2.append(cross)
    return [m0, m1, m2]


def butterfly_matchings(graph: nx.Graph) -> list[Calls]:
    """The four matchings of the wrapped butterfly ``Butterfly_k`` (section 8, Figure 7).

    Even ``k``: ``M_0``, ``M_1`` as for CCC (cycle edges), ``M_2`` the cross edges from
    ``(i, 2j)`` to ``(i xor 2^(2j), 2j+1)``, ``M_3`` those from ``(i, 2j-1)`` to
    ``(i xor 2^(2j-1), 2j)``. Odd ``k``: for ``i < 2^(k-1)`` ``M_0`` holds the cycle edges
    ``(i, 2j) -- (i, 2j+1)``, ``0 <= j <= (k-3)/2``, for ``i >= 2^(k-1)`` the edges
    ``(i, 2j-1) -- (i, 2j)``, ``1 <= j <= (k-1)/2``, and the cross edges
    ``(i, k-1) -- (i + 2^(k-1), 0)`` for ``i < 2^(k-1)``; ``M_1`` is the same with the two
    halves of ``i`` exchanged. The wrap-around cycle edges ``(i, k-1) -- (i, 0)`` go to
    ``M_2`` for ``2^(k-2) <= i < 2 2^(k-2)`` and ``3 2^(k-2) <= i < 4 2^(k-2)``, to ``M_3``
    for the other ``i``; the remaining cross edges form cycles on which ``M_2`` and ``M_3``
    must alternate, which fixes them.

    Parameters
    ----------
    graph : networkx.Graph
        ``butterfly:K`` from :mod:`gossipcert.graphs`: cross edges
        ``(i, j) -- (i xor 2^j, (j+1) mod k)``.

    Returns
    -------
    list of list of (int, int)
        ``[M_0, M_1, M_2, M_3]``, perfect matchings.

    Examples
    --------
    >>> from gossipcert import graphs
    >>> [len(m) for m in butterfly_matchings(graphs.from_spec("butterfly:3"))]
    [12, 12, 12, 12]

    References
    ----------
    Beier and Sibeyn, section 8, "Butterflies", and Figure 7.
    """
    k, node = _pair_index(graph, "butterfly")
    size = 1 << k
    if k % 2 == 0:
        # M0, M1 as for CCC; M2, M3: the cross edges leaving even resp. odd levels
        m0, m1 = _cycle_matchings(k, node)
        m2 = [(node(i, j), node(i ^ 1 << j, j + 1)) for i in range(size) for j in range(0, k, 2)]
        m3 = [(node(i, j), node(i ^ 1 << j, j + 1)) for i in range(size) for j in range(1, k, 2)]
        return [m0, m1, m2, m3]
    half = size >> 1
    low_cycle = [(2 * j, 2 * j + 1) for j in range((k - 1) // 2)]  # leaves (i, k-1) free
    high_cycle = [(2 * j - 1, 2 * j) for j in range(1, (k - 1) // 2 + 1)]  # leaves (i, 0)
    m0 = []
    m1 = []
    for i in range(size):
        first, second = (low_cycle, high_cycle) if i < half else (high_cycle, low_cycle)
        m0 += [(node(i, a), node(i, b)) for a, b in first]
        m1 += [(node(i, a), node(i, b)) for a, b in second]
        # the cross edge (i, k-1) -- (i xor 2^(k-1), 0): in M0 for the lower half of i,
        # in M1 for the upper half
        (m0 if i < half else m1).append((node(i, k - 1), node(i ^ half, 0)))
    # the wrap-around cycle edges: M2 where bit k-2 of i is set, M3 elsewhere
    colour: dict[frozenset[int], int] = {}
    for i in range(size):
        colour[frozenset((node(i, k - 1), node(i, 0)))] = 2 if i >> (k - 2) & 1 else 3
    # the rest: cross edges not starting at level k-1, alternating along their cycles
    rest = [(node(i, j), node(i ^ 1 << j, j + 1)) for i in range(size) for j in range(k - 1)]
    rest_edges = [frozenset(e) for e in rest] + list(colour)
    at: dict[int, list[frozenset[int]]] = {}
    for e in rest_edges:
        for v in e:
            at.setdefault(v, []).append(e)
    queue = deque(colour)
    while queue:
        e = queue.popleft()
        for v in e:
            for f in at[v]:
                if f == e:
                    continue
                other = 5 - colour[e]
                if f not in colour:
                    colour[f] = other
                    queue.append(f)
                elif colour[f] != other:
                    raise RuntimeError(f"butterfly:{k}: M2/M3 cannot alternate at node {v}")
    if len(colour) != len(rest_edges):
        raise RuntimeError(f"butterfly:{k}: some cross edges got no matching")
    m2 = [(min(e), max(e)) for e in rest_edges if colour[e] == 2]
    m3 = [(min(e), max(e)) for e in rest_edges if colour[e] == 3]
    return [m0, m1, m2, m3]


def _permutation_matchings(
    graph: nx.Graph, family: str, move: Callable[[tuple[int, ...], int], tuple[int, ...]]
) -> list[Calls]:
    spec = str(graph.graph.get("spec", ""))
    name, _, arg = spec.partition(":")
    if name != family or not arg.isdigit():
        raise NotApplicableError(f"{spec or 'the graph'} is not a {family} graph")
    k = int(arg)
    index = {graph.nodes[v]["coords"]: v for v in graph}
    out = []
    for c in range(k - 1):
        out.append(
            [
                (v, index[move(p, c)])
                for p, v in sorted(index.items(), key=lambda kv: kv[1])
                if v < index[move(p, c)]
            ]
        )
    return out


def star_matchings(graph: nx.Graph) -> list[Calls]:
    """The ``k - 1`` matchings of the star graph ``Star_k``: ``M_c`` exchanges ``i_0`` and
    ``i_{c+1}``.

    Parameters
    ----------
    graph : networkx.Graph
        ``star-graph:K`` (``coords`` the permutation).

    Returns
    -------
    list of list of (int, int)
        ``[M_0, ..., M_{k-2}]``.

    Examples
    --------
    >>> from gossipcert import graphs
    >>> [len(m) for m in star_matchings(graphs.from_spec("star-graph:4"))]
    [12, 12, 12]

    References
    ----------
    Beier and Sibeyn, section 8, "Star and Pancake Graphs".
    """
    return _permutation_matchings(
        graph,
        "star-graph",
        lambda p, c: (p[c + 1], *p[1 : c + 1], p[0], *p[c + 2 :]),
    )


def pancake_matchings(graph: nx.Graph) -> list[Calls]:
    """The ``k - 1`` matchings of the pancake graph ``Pancake_k``: ``M_c`` reverses
    ``i_0, ..., i_{c+1}``.

    Parameters
    ----------
    graph : networkx.Graph
        ``pancake:K`` (``coords`` the permutation).

    Returns
    -------
    list of list of (int, int)
        ``[M_0, ..., M_{k-2}]``.

    Examples
    --------
    >>> from gossipcert import graphs
    >>> [len(m) for m in pancake_matchings(graphs.from_spec("pancake:4"))]
    [12, 12, 12]

    References
    ----------
    Beier and Sibeyn, section 8, "Star and Pancake Graphs", and Figure 6 (Pancake_4).
    """
    return _permutation_matchings(graph, "pancake", lambda p, c: p[c + 1 :: -1] + p[c + 2 :])


_MATCHINGS: dict[str, Callable[[nx.Graph], list[Calls]]] = {
    "ccc": ccc_matchings,
    "butterfly": butterfly_matchings,
    "star-graph": star_matchings,
    "pancake": pancake_matchings,
}


def coloring_matchings(graph: nx.Graph) -> list[Calls]:
    """The matchings of section 8 for a CCC, wrapped butterfly, star or pancake graph.

    Parameters
    ----------
    graph : networkx.Graph
        ``ccc:K``, ``butterfly:K``, ``star-graph:K`` or ``pancake:K``.

    Returns
    -------
    list of list of (int, int)
        ``M_0, M_1, ...``: perfect matchings that together hold every edge exactly once.

    Raises
    ------
    NotApplicableError
        Another family.

    Examples
    --------
    >>> from gossipcert import graphs
    >>> len(coloring_matchings(graphs.from_spec("butterfly:4")))
    4

    References
    ----------
    Beier and Sibeyn, section 8.
    """
    family = str(graph.graph.get("spec", "")).partition(":")[0]
    if family not in _MATCHINGS:
        raise NotApplicableError(
            f"no matchings of section 8 for {graph.graph.get('spec', 'the graph')}; "
            f"families: {', '.join(_MATCHINGS)}"
        )
    return _MATCHINGS[family](graph)


def matching_sequence(
    instance: Instance, sequence: str, matchings: Sequence[Calls] | None = None
) -> Schedule:
    """The schedule in which round ``t`` uses matching ``M_{int(sequence[t])}``.

    Parameters
    ----------
    instance : Instance
        ``telephone`` with unbounded packets (every call exchanges everything).
    sequence : str
        Digits, one per round, e.g. ``"02102"``.
    matchings : sequence of list of (int, int), optional
        ``M_0, M_1, ...``; default :func:`coloring_matchings` of the graph.

    Returns
    -------
    Schedule
        ``len(sequence)`` rounds.

    Raises
    ------
    NotApplicableError
        Another model, or a graph without section-8 matchings.
    SpecError
        A character that does not name a matching.

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> from gossipcert.simulate import simulate
    >>> inst = parse_instance("pancake:4", "telephone", "gossip")
    >>> rep = simulate(inst, matching_sequence(inst, "02102"))
    >>> rep.ok, rep.rounds
    (True, 5)

    References
    ----------
    Beier and Sibeyn, sections 6 and 8 (coloring heuristic, Figure 6, Table 6).
    """
    check_telephone(instance, "a matching sequence")
    ms = list(coloring_matchings(instance.graph) if matchings is None else matchings)
    rounds = []
    for t, ch in enumerate(sequence):
        if not ch.isdigit() or int(ch) >= len(ms):
            raise SpecError(
                f"round {t + 1} of the matching sequence {sequence!r} names {ch!r}; "
                f"expected a digit 0..{len(ms) - 1}"
            )
        rounds.append(ms[int(ch)])
    return Schedule.from_calls(rounds)
