"""Beier and Sibeyn's telephone gossiping schedules on paths, cycles, meshes and tori (unit
cost: a call exchanges everything).

Section 3, the rounds parts of Lemmas 1, 2 and 5:

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

The coloring-heuristic schedules of section 8 (matchings of CCC, butterflies, star and
pancake graphs, and Table 6) are in :mod:`gossipcert.constructions.beier_sibeyn_matchings`.

References
----------
.. [1] R. Beier and J. F. Sibeyn, "A powerful heuristic for telephone gossiping", Proc. 7th
   SIROCCO, 2000: section 3 (Lemmas 1, 2 and 5).
"""

from __future__ import annotations

import itertools
import math
import re
from collections.abc import Sequence

import networkx as nx

from gossipcert.errors import NotApplicableError
from gossipcert.instance import Instance, ModelKind
from gossipcert.schedule import Schedule

__all__ = [
    "Calls",
    "check_telephone",
    "grid_shape",
    "line_rounds",
    "rows_columns",
    "rows_columns_claim",
]

#: The calls of one round (a matching), as node pairs.
Calls = list[tuple[int, int]]


def check_telephone(instance: Instance, algorithm: str) -> None:
    """Raise unless the model is the telephone model with unbounded packets and any number of
    calls per round: the model of every schedule of Beier and Sibeyn.

    Raises
    ------
    NotApplicableError
        Another model, bounded packets or a limit on the calls per round.
    """
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
    check_telephone(instance, "rows-columns")
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
