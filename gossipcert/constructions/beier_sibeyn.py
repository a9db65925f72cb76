"""Beier and Sibeyn's telephone gossiping schedules (unit cost: a call exchanges everything).

Paths, cycles, meshes and tori (section 3, the rounds parts of Lemmas 1, 2 and 5):

- a path ``P_n`` alternately uses the edges ``(2i, 2i+1)`` and ``(2i+1, 2i+2)``: ``n - 1``
  rounds for even ``n``, ``n`` for odd ``n``; an even cycle ``C_n`` likewise, ``n/2``
  rounds; on an odd cycle node ``i`` idles in round ``i`` and the other nodes form the
  unique perfect matching of the remaining path: ``floor(n/2) + 2`` rounds (Lemma 1);
- an ``a x b`` mesh or torus gossips in its rows (phase 1), then in its columns (phase 2)
  (Lemma 2). For a mesh with even ``a`` phase 2 runs on the cycles of length ``2b`` formed by
  pairs of adjacent columns, and with even ``b`` as well phase 1 runs on pairs of rows and
  the first round of phase 2 is omitted: ``a + b - 1`` rounds (``a``, ``b`` even or ``a``
  even, ``b`` odd) and ``a + b`` (both odd); a torus needs ``T(C_a) + T(C_b)`` rounds,
  ``a/2 + b/2`` for even sides, ``floor(a/2) + b/2 + 2`` and ``floor(a/2) + floor(b/2) + 4``;
- a ``d``-dimensional mesh with all sides even gossips in ``d`` phases, phase ``j`` on the
  cycles of length ``2 a_j`` that pair its lines along the next dimension, the first round
  of every phase after the first omitted: ``sum(a_i) - d + 1`` rounds; a torus in
  ``sum(a_i / 2)`` (Lemma 5).

As constructed, the all-even mesh schedules have the stated ``a + b - 1`` and
``sum(a_i) - d + 1`` rounds, but gossip is complete one round earlier, after ``a + b - 2``
resp. ``sum(a_i - 1)`` rounds, the diameter (verified on every size tested). In two
dimensions: at the start of phase 2 the knowledge shared by a ``2 x 2`` block lies on its
column cycle as intervals whose two ends both advance in every kept round, the worst one of
four cells at the turn of the cycle, so ``b - 2`` of the ``b - 1`` kept rounds suffice. The
lemmas are upper bounds; this does not contradict them.

Here ``a`` is the length of a row, as in the paper ("pairs of adjacent columns that together
constitute cycles of length 2b"); ``mesh:RxC`` of :mod:`gossipcert.graphs` has ``R`` rows of
length ``C``, and the phases are oriented so that the lemma's case applies (the even side
first). For ``d >= 3`` dimensions with an odd side, the phases run on single lines (paths or
cycles of Lemma 1) — the plain extension of the same proof, not a statement of the paper.

Coloring-heuristic schedules (section 8, Table 6): a few perfect matchings ``M_0, M_1, ...``
that together cover every edge exactly once, and a sequence of their indices, one per round:
cube-connected cycles (three matchings), wrapped butterflies (four), star and pancake graphs
(``k - 1``, one per generator). :data:`TABLE_6` lists the paper's sequences.

References
----------
.. [1] R. Beier and J. F. Sibeyn, "A powerful heuristic for telephone gossiping", Proc. 7th
   SIROCCO, 2000: section 3 (Lemmas 1, 2 and 5), section 8 (the matchings of CCC,
   butterflies, star and pancake graphs; Figures 6 and 7; Table 6).
"""

from __future__ import annotations

import itertools
import math
import re
from collections import deque
from collections.abc import Callable, Sequence

import networkx as nx

from gossipcert.errors import NotApplicableError, SpecError
from gossipcert.instance import Instance, ModelKind
from gossipcert.schedule import Schedule

__all__ = [
    "TABLE_6",
    "Calls",
    "butterfly_matchings",
    "ccc_matchings",
    "coloring_matchings",
    "grid_shape",
    "line_rounds",
    "matching_sequence",
    "pancake_matchings",
    "rows_columns",
    "rows_columns_claim",
    "star_matchings",
]

#: The calls of one round (a matching), as node pairs.
Calls = list[tuple[int, int]]

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


def _check_telephone(instance: Instance, algorithm: str) -> None:
    model = instance.model
    if model.kind is not ModelKind.TELEPHONE or not model.unbounded:
        raise NotApplicableError(
            f"{algorithm} is a telephone schedule exchanging everything (unit cost); "
            f"got {model.spec()}"
        )
    if model.calls_per_round is not None:
        raise NotApplicableError(f"{algorithm} makes many calls per round; got {model.spec()}")


# --------------------------------------------------------------------------- Lemma 1


def line_rounds(nodes: Sequence[int], closed: bool, *, omit_first: bool = False) -> list[Calls]:
    """Lemma 1's calls on a path (``closed=False``) or cycle given as a node sequence.

    Parameters
    ----------
    nodes : sequence of int
        The line in order; consecutive nodes (and for a cycle the last and the first) must
        be adjacent.
    closed : bool
        A cycle rather than a path.
    omit_first : bool
        Drop the first round (used when phase ``j > 1`` of a mesh starts on a cycle whose
        first-round partners already share everything, Lemmas 2 and 5).

    Returns
    -------
    list of list of (int, int)
        The calls of every round: ``n - 1`` (even path), ``n`` (odd path), ``n/2`` (even
        cycle) or ``floor(n/2) + 2`` (odd cycle) rounds.

    Examples
    --------
    >>> line_rounds([0, 1, 2, 3], closed=False)
    [[(0, 1), (2, 3)], [(1, 2)], [(0, 1), (2, 3)]]
    >>> len(line_rounds(list(range(7)), closed=True))
    5

    References
    ----------
    Beier and Sibeyn, section 3, proof of Lemma 1: "The first three schedules alternatingly
    use the edges (2i, 2i+1) and the edges (2i+1, 2i+2) ... For cycles of odd length, node i
    remains idle during round i. This leaves a unique maximum matching".
    """
    c = list(nodes)
    n = len(c)
    if n <= 1:
        return []
    if n == 2:
        out = [[(c[0], c[1])]]
        return out[1:] if omit_first else out
    even = [(c[i], c[i + 1]) for i in range(0, n - 1, 2)]
    odd = [(c[i], c[(i + 1) % n]) for i in range(1, n if closed else n - 1, 2)]
    if not closed:
        # paths: n - 1 rounds for even n, one more for odd n
        count = n - 1 if n % 2 == 0 else n
        out = [even if t % 2 == 0 else odd for t in range(count)]
    elif n % 2 == 0:
        # even cycles: n/2 rounds of the two alternating perfect matchings
        out = [even if t % 2 == 0 else odd for t in range(n // 2)]
    else:
        # odd cycles: in round t node t idles; the path t+1, ..., t-1 is perfectly matched
        out = []
        for t in range(1, n // 2 + 3):
            idle = t % n
            out.append(
                [(c[(idle + 1 + 2 * m) % n], c[(idle + 2 + 2 * m) % n]) for m in range(n // 2)]
            )
    return out[1:] if omit_first else out


def _lemma1(n: int, closed: bool) -> int:
    """The number of rounds of Lemma 1 for a line of ``n`` nodes."""
    if n <= 1:
        return 0
    if n == 2:
        return 1
    if not closed:
        return n - 1 if n % 2 == 0 else n
    return n // 2 if n % 2 == 0 else n // 2 + 2


# --------------------------------------------------------------------------- grids

_GRID = re.compile(r"(mesh|torus):(\d+)x(\d+)")
_LINE = re.compile(r"(path|ring):(\d+)")


def grid_shape(graph: nx.Graph) -> tuple[tuple[int, ...], bool]:
    """The side lengths of a mesh or torus, and whether it is a torus.

    Node ``(x_1, ..., x_d)`` must be number ``sum_i x_i prod_{l > i} a_l`` (row-major), as
    :mod:`gossipcert.graphs` numbers ``mesh:AxB``, ``torus:AxB``, ``path:N``, ``ring:N`` and
    their products (``path:4*path:4*path:2``). Sides of length 1 are kept.

    Parameters
    ----------
    graph : networkx.Graph
        A graph built from a mesh, torus, path, ring or product spec.

    Returns
    -------
    tuple
        ``(sides, torus)``: the side lengths in coordinate order, and whether the lines
        are cycles.

    Raises
    ------
    NotApplicableError
        Not a mesh or a torus (for instance a product of a path and a ring).

    Examples
    --------
    >>> from gossipcert import graphs
    >>> grid_shape(graphs.from_spec("mesh:3x4"))
    ((3, 4), False)
    >>> grid_shape(graphs.from_spec("ring:3*ring:4*ring:5"))
    ((3, 4, 5), True)
    """
    spec = str(graph.graph.get("spec", ""))
    sides: list[int] = []
    kinds: set[bool] = set()
    for part in spec.split("*"):
        grid = _GRID.fullmatch(part.strip())
        line = _LINE.fullmatch(part.strip())
        if grid:
            kinds.add(grid.group(1) == "torus")
            sides += [int(grid.group(2)), int(grid.group(3))]
        elif line:
            kinds.add(line.group(1) == "ring")
            sides.append(int(line.group(2)))
        else:
            raise NotApplicableError(f"{spec or 'the graph'} is not a mesh or a torus")
    if len(kinds) != 1:
        raise NotApplicableError(f"{spec} mixes paths and rings: neither a mesh nor a torus")
    torus = kinds.pop()
    shape = tuple(sides)
    # the edges must be those of the grid with row-major numbering
    n = math.prod(shape)
    expected: set[tuple[int, int]] = set()
    for v, x in enumerate(itertools.product(*(range(a) for a in shape))):
        for d, a in enumerate(shape):
            if x[d] + 1 < a or (torus and a > 2):
                y = list(x)
                y[d] = (x[d] + 1) % a
                w = _index(shape, tuple(y))
                expected.add((min(v, w), max(v, w)))
    got = {(min(u, v), max(u, v)) for u, v in graph.edges()}
    if graph.number_of_nodes() != n or got != expected:
        raise NotApplicableError(f"{spec} does not have the edges of a {shape} grid")
    return shape, torus


def _index(shape: Sequence[int], x: Sequence[int]) -> int:
    v = 0
    for a, xi in zip(shape, x, strict=True):
        v = v * a + xi
    return v


def _lines(shape: Sequence[int], dim: int) -> list[list[tuple[int, ...]]]:
    """Every line along dimension ``dim``: the coordinates with the others fixed."""
    others = [range(a) if d != dim else range(1) for d, a in enumerate(shape)]
    out = []
    for base in itertools.product(*others):
        line = []
        for t in range(shape[dim]):
            x = list(base)
            x[dim] = t
            line.append(tuple(x))
        out.append(line)
    return out


def _paired_cycles(shape: Sequence[int], dim: int, pair: int) -> list[list[tuple[int, ...]]]:
    """The cycles of length ``2 a_dim`` made of two lines along ``dim`` whose coordinates
    along ``pair`` are ``2s`` and ``2s + 1``: out along the first line, back along the second."""
    out = []
    for line in _lines(shape, dim):
        if line[0][pair] % 2:
            continue
        back = [(*x[:pair], x[pair] + 1, *x[pair + 1 :]) for x in reversed(line)]
        out.append(line + back)
    return out


def _phase(
    shape: Sequence[int], lines: list[list[tuple[int, ...]]], closed: bool, omit_first: bool
) -> list[Calls]:
    """All lines gossip in parallel (Lemma 1); round ``t`` joins their ``t``-th rounds."""
    per_line = [
        line_rounds([_index(shape, x) for x in line], closed, omit_first=omit_first)
        for line in lines
    ]
    length = max((len(r) for r in per_line), default=0)
    return [[c for r in per_line if t < len(r) for c in r[t]] for t in range(length)]


def _plan(shape: tuple[int, ...], torus: bool) -> list[tuple[str, int, int, bool]]:
    """The phases: (kind, dimension, pairing dimension, omit first) with kind ``"cycle"``,
    ``"path"`` or ``"pair"`` (two lines joined into one cycle)."""
    dims = [d for d, a in enumerate(shape) if a > 1]
    if torus:
        # tori: rows, then columns (then the further dimensions), each on its cycles
        return [("cycle", d, -1, False) for d in reversed(dims)]
    if len(dims) <= 1:
        return [("path", d, -1, False) for d in dims]
    sides = [shape[d] for d in dims]
    if all(a % 2 == 0 for a in sides):
        # Lemmas 2 (4) and 5: phase j on cycles pairing lines along the next dimension,
        # the first round of every later phase omitted; the last phase pairs along the first
        order = list(reversed(dims))
        return [("pair", d, order[(j + 1) % len(order)], j > 0) for j, d in enumerate(order)]
    if len(dims) == 2:
        r, c = dims
        even = [d for d in (c, r) if shape[d] % 2 == 0]
        if even:
            # Lemma 2 (5): the rows of even length a gossip as paths, then pairs of
            # adjacent columns form cycles of length 2b
            e = even[0]
            o = r if e == c else c
            return [("path", e, -1, False), ("pair", o, e, False)]
        # Lemma 2 (6): rows, then columns, all paths of odd length
        return [("path", c, -1, False), ("path", r, -1, False)]
    # more dimensions with an odd side: every phase on single paths
    return [("path", d, -1, False) for d in reversed(dims)]


def rows_columns(instance: Instance) -> Schedule:
    """Beier and Sibeyn's row/column gossip on a path, cycle, mesh or torus (unit cost).

    Parameters
    ----------
    instance : Instance
        ``telephone`` with unbounded packets on ``path:N``, ``ring:N``, ``mesh:AxB``,
        ``torus:AxB`` or a product of paths only or rings only. Every call exchanges
        everything, so the schedule that gossips also solves any other problem on the graph.

    Returns
    -------
    Schedule
        :func:`rows_columns_claim` rounds; on a mesh with all sides even the last of them
        is superfluous (gossip is complete after ``sum(a_i - 1)`` rounds, the diameter).

    Raises
    ------
    NotApplicableError
        Another model or graph.

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> from gossipcert.simulate import simulate
    >>> inst = parse_instance("mesh:3x6", "telephone", "gossip")
    >>> simulate(inst, rows_columns(inst)).rounds  # Lemma 2 (5): a + b - 1
    8
    >>> inst = parse_instance("mesh:4x6", "telephone", "gossip")
    >>> sched = rows_columns(inst)
    >>> len(sched), simulate(inst, sched).rounds  # Lemma 2 (4): a + b - 1, done at a + b - 2
    (9, 8)

    References
    ----------
    Beier and Sibeyn, section 3, Lemmas 1, 2 and 5 and their proofs.
    """
    _check_telephone(instance, "rows-columns")
    shape, torus = grid_shape(instance.graph)
    rounds: list[Calls] = []
    for kind, dim, pair, omit in _plan(shape, torus):
        if kind == "pair":
            lines = _paired_cycles(shape, dim, pair)
            rounds += _phase(shape, lines, True, omit)
        else:
            rounds += _phase(shape, _lines(shape, dim), kind == "cycle", omit)
    return Schedule.from_calls(rounds)


def rows_columns_claim(instance: Instance) -> int:
    """The number of rounds the paper states for :func:`rows_columns` on this grid.

    Parameters
    ----------
    instance : Instance
        As for :func:`rows_columns`.

    Returns
    -------
    int
        Lemma 1 for paths and cycles; Lemma 2 for two dimensions (``a + b - 1``,
        ``a + b``, ``T(C_a) + T(C_b)``); Lemma 5 for more (``sum a_i - d + 1``,
        ``sum a_i / 2``); sums of Lemma 1 phases where no lemma applies.

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> rows_columns_claim(parse_instance("torus:5x7", "telephone", "gossip"))
    9

    References
    ----------
    Beier and Sibeyn, section 3, Lemmas 1, 2 and 5.
    """
    shape, torus = grid_shape(instance.graph)
    sides = [a for a in shape if a > 1]
    if torus:
        return sum(_lemma1(a, True) for a in sides)
    if len(sides) <= 1:
        return sum(_lemma1(a, False) for a in sides)
    if all(a % 2 == 0 for a in sides):
        return sum(sides) - len(sides) + 1
    if len(sides) == 2:
        return sum(sides) - (0 if all(a % 2 for a in sides) else 1)
    return sum(_lemma1(a, False) for a in sides)


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
        m0, m1 = _cycle_matchings(k, node)
        cross = [
            (node(i, j), node(i ^ 1 << j, j)) for i in cycles for j in range(k) if not i >> j & 1
        ]
        return [m0, m1, cross]
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
    _check_telephone(instance, "a matching sequence")
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
