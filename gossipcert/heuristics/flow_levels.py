"""The flow weights' border masses level by level, touching each (node, class) cell once.

:func:`gossipcert.heuristics.flow.border_mass_dense` computes, per packet class, the
distances from the dispersion region ``DR(p)`` and pushes every demanding node's mass
``(dist / top) ** Dist_Exp`` down the shortest-path DAG to the border (formula (9) of
[1]_, in the flow form of :mod:`gossipcert.heuristics.flow`). It does so on whole
``n x Q`` arrays, one pass per level: ``top`` levels of ``n x Q`` cells each, although a cell
lies on one level only. On a mesh of 80x80 nodes (``top`` up to 158, ``Q`` up to 6,400) that
is a hundred times the cells that matter.

This module keeps, per level, the list of the cells on it (their node and class) and does
every step on those lists only:

- breadth-first search: level 1 in one dense step (the cells next to ``DR(p)``), then each
  level's cells push to their neighbours' cells not reached yet (a cell reached twice in
  one level is kept once); while a level is expanded its cells' parent counts (neighbours
  one level closer) are read from the same gather;
- the masses, from the farthest level to level 1: a cell's mass is its own demand's
  weight plus what its children (neighbours one level farther) pass on; each cell passes
  its mass times ``parents ** -Num_Exp`` on to each of its parents.

Cells are numbered class-major (``class * (n + 1) + node``), so that the cells a gather
reads lie near each other in memory.

The arithmetic is the dense form's, in the same order per cell: the children's shares are
added in the order of the neighbour slots (the dense form adds zeros for the neighbours that
are not children, which changes no float), then added to the cell's own weight, then
multiplied by the inverse parent count, all in ``float32``. So both forms give the *same*
numbers, bit for bit (a test checks this), and the matching heuristic takes the same
matchings; only the work changes, from ``O(top * n * Q * degree)`` to
``O(n * Q * degree)`` per round.

References
----------
.. [1] R. Beier and J. F. Sibeyn, "A powerful heuristic for telephone gossiping", section 4.1
   (BFS approach, Definition 1, formula (9)).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

from gossipcert.heuristics.bitsets import Index

Bools = npt.NDArray[np.bool_]
Floats32 = npt.NDArray[np.float32]
Cells = npt.NDArray[np.signedinteger]

#: neighbour cells (cells times the largest degree) the levels of one search keep at most
#: (4 bytes each): Mesh 80x80's chunks of 2,621 classes fit in one search
AROUND_CELLS = 1 << 26

#: distance of a cell not reached (as in the dense form)
_FAR = np.iinfo(np.int16).max

#: distance stored in the padding row (nobody's parent or child)
_PAD = -5


def _first_level(kb: Bools, nbr: Index) -> Bools:
    """The cells next to ``DR(p)``, class-major (``Q x (n + 1)``, padding column false)."""
    n, q = kb.shape
    rows = np.zeros((q, n + 1), dtype=bool)
    rows[:, :n] = kb.T
    near = np.zeros((q, n + 1), dtype=bool)
    body = near[:, :n]
    np.take(rows, nbr[:, 0], axis=1, out=body)
    for j in range(1, nbr.shape[1]):
        body |= np.take(rows, nbr[:, j], axis=1)
    body &= ~rows[:, :n]
    return near


def _unique(cand: Cells, stamp: Cells) -> Bools:
    """Mask of the first occurrence (by a last-write stamp) of each cell in ``cand``."""
    order = np.arange(len(cand), dtype=stamp.dtype)
    stamp[cand] = order
    return stamp[cand] == order


def _class_major(a: Bools) -> Bools:
    """``n x Q`` as ``Q x (n + 1)``, the padding column false."""
    n, q = a.shape
    out = np.zeros((q, n + 1), dtype=a.dtype)
    out[:, :n] = a.T
    return out


class Level:
    """The cells at one distance: their nodes, flat cells, neighbour cells, parent counts."""

    __slots__ = ("around", "cell", "node", "parents")

    def __init__(self, node: Cells, cell: Cells) -> None:
        self.node = node
        self.cell = cell
        self.around: Cells | None = None  # cells x degree: the neighbour cells
        self.parents: npt.NDArray[np.uint8] | None = None  # neighbours one level closer


def levels_bfs(
    kb: Bools, lack: Bools, nbr: Index, top: int
) -> tuple[npt.NDArray[np.int16], list[Level], int]:
    """Distances of all cells, the cells of each level ``1..depth``, the lacking cells left.

    Cells are numbered class-major, ``class * (n + 1) + node`` (node ``n`` is the padding
    of each class), so that a cell's neighbours lie near it in memory. The search stops, as
    the dense one does, when every lacking cell is reached or at depth ``top``. Returns the
    flat distance array (``_FAR`` where not reached, ``_PAD`` on the padding) and the levels
    ``d >= 1`` (list index ``d - 1``), every one with its neighbour cells and parent counts,
    and the number of lacking cells not reached (0 unless the search stopped at ``top`` or
    ran out of cells to reach).
    """
    n, q = kb.shape
    idx: type[np.signedinteger[Any]] = (
        np.int32 if (n + 1) * q < np.iinfo(np.int32).max else np.int64
    )
    dist = np.full((q, n + 1), _FAR, dtype=np.int16)
    dist[:, :n][kb.T] = 0
    dist[:, n] = _PAD
    dist = dist.ravel()
    lack_flat = _class_major(lack).ravel()
    remaining = int(np.count_nonzero(lack))
    cell = np.flatnonzero(_first_level(kb, nbr)).astype(idx)
    node = cell % idx(n + 1)
    dist[cell] = 1
    remaining -= int(np.count_nonzero(lack_flat[cell]))
    levels = [Level(node, cell)]
    table = np.ascontiguousarray(nbr, dtype=idx)
    stamp = np.empty((n + 1) * q, dtype=idx)
    depth = 1
    while True:
        level = levels[-1]
        around_nodes = table[level.node]
        level.around = around_nodes + (level.cell - level.node)[:, None]
        seen = dist[level.around]
        closer = seen == depth - 1
        parents = closer[:, 0].astype(np.uint8)
        for j in range(1, closer.shape[1]):
            parents += closer[:, j]
        level.parents = parents
        if not (remaining and depth < top):
            break
        depth += 1
        fresh = seen == _FAR
        cand = level.around[fresh]
        keep = _unique(cand, stamp)
        cand = cand[keep]
        if not len(cand):  # nothing more reachable
            break
        dist[cand] = depth
        levels.append(Level(cand % idx(n + 1), cand))
        remaining -= int(np.count_nonzero(lack_flat[cand]))
    return dist, levels, remaining


def border_mass(
    kb: Bools, lack: Bools, nbr: Index, top: int, dist_exp: float, num_exp: float
) -> Floats32:
    """Per node ``w`` and class: the mass one border edge into ``w`` receives.

    The same numbers as :func:`gossipcert.heuristics.flow.border_mass_dense` (see the
    module docstring); nonzero only where ``w`` lies at distance 1 from the class's
    dispersion region.

    Examples
    --------
    >>> import networkx as nx
    >>> from gossipcert.heuristics.bitsets import neighbour_table
    >>> kb = np.array([[True], [False], [False]])
    >>> lack = ~kb
    >>> border_mass(kb, lack, neighbour_table(nx.path_graph(3)), 2, 1.0, 1.0).ravel().tolist()
    [0.0, 1.5, 0.0]
    """
    return border_mass_levels(kb, lack, nbr, top, dist_exp, num_exp)[0]


def border_mass_levels(
    kb: Bools, lack: Bools, nbr: Index, top: int, dist_exp: float, num_exp: float
) -> tuple[Floats32, int, bool]:
    """:func:`border_mass`, the depth of the search, and whether it reached every lacking cell.

    With every lacking cell reached, the depth is the largest eccentricity of the classes.
    The classes are searched in groups of at most :data:`AROUND_CELLS` neighbour cells
    (the levels keep every cell's neighbour cells until the masses are summed), so graphs
    of high degree do not need more memory than meshes; the classes are independent, so
    the numbers do not depend on the grouping.
    """
    n, q = kb.shape
    if top == 0 or not lack.any():
        return np.zeros((n, q), dtype=np.float32), 0, True
    width = max(1, AROUND_CELLS // ((n + 1) * nbr.shape[1]))
    if width < q:
        out = np.empty((n, q), dtype=np.float32)
        deepest, complete = 0, True
        for lo in range(0, q, width):
            hi = min(q, lo + width)
            out[:, lo:hi], depth, done = border_mass_levels(
                np.ascontiguousarray(kb[:, lo:hi]),
                np.ascontiguousarray(lack[:, lo:hi]),
                nbr,
                top,
                dist_exp,
                num_exp,
            )
            deepest, complete = max(deepest, depth), complete and done
        return out, deepest, complete
    _, levels, left = levels_bfs(kb, lack, nbr, top)
    depth = len(levels)
    table = np.zeros(depth + 1, dtype=np.float32)
    table[1:] = (np.arange(1, depth + 1, dtype=np.float32) / np.float32(top)) ** np.float32(
        dist_exp
    )
    lack_flat = _class_major(lack).ravel()
    # share[c]: what cell c passes to each of its parents; only the level above reads it
    share = np.zeros((n + 1) * q, dtype=np.float32)
    cell = levels[0].cell
    for d in range(depth, 0, -1):
        level = levels[d - 1]
        cell = level.cell
        mass = np.where(lack_flat[cell], table[d], np.float32(0.0)).astype(np.float32)
        if d < depth:
            # the children's shares in slot order (the non-children's are zero)
            got = share[level.around]
            acc = got[:, 0].copy()
            for j in range(1, got.shape[1]):
                acc += got[:, j]
            mass += acc
        # levels_bfs sets the parent counts of every level it returns
        assert level.parents is not None
        inverse = np.maximum(level.parents.astype(np.float32), np.float32(1.0)) ** np.float32(
            -num_exp
        )
        share[cell] = mass * inverse
        level.around = None  # free as we go
    out = np.zeros((q, n + 1), dtype=np.float32)
    out.ravel()[cell] = share[cell]
    return np.ascontiguousarray(out[:, :n].T), depth, left == 0
