"""The BFS approach with node counts ("flow" weights), in column chunks for large graphs.

Formula (9) of [1]_: every node ``x`` outside the dispersion region ``DR(p)`` gives each
border-crossing edge on a shortest path from ``DR(p)`` to ``x`` the weight
``dist_x(p) ** Dist_Exp / |bce_x(p)| ** Num_Exp``. The sets ``bce_x(p)`` cost ``O(n^3 m)``
per round; this module computes the weights as a *flow* down the shortest-path DAG
instead, for all packets at once on dense ``n x Q`` arrays (``Q`` packet classes):

- every node ``x`` outside ``DR(p)`` that demands ``p`` puts ``(dist_x(p) / top) **
  Dist_Exp`` on itself (``top`` the largest distance of the round, a common factor that
  changes no matching and keeps large exponents finite);
- going down the levels, each node passes its mass on to its *parents* (its neighbours one
  level closer to ``DR(p)``), each parent receiving the mass divided by the number of
  parents ``** Num_Exp``;
- a border edge ``u -> w`` (``u`` knows ``p``, ``w`` at distance 1) gets ``w``'s mass so
  divided, times the number of packets of the class.

With ``Num_Exp = 1`` a node's weight is shared over its shortest paths, as the paper's
division by ``|bce_x(p)|`` shares it over the border edges; with ``Num_Exp = 0`` every
shortest path gets all of it (a node then counts once per shortest path, where the paper
counts it once per border edge). Packets known by the same nodes and lacked by the same
demanding nodes get the same weights and are handled once (:func:`packet_classes`).

The dense form (:func:`border_mass_dense`) does one gather per neighbour slot and level on
whole ``n x Q`` arrays, ``O(top * n * Q * degree)`` per round. The level-list form of
:mod:`gossipcert.heuristics.flow_levels` touches each (node, class) cell outside the
dispersion regions once per round, ``O(n * Q * degree)``, at a higher cost per cell, with
the same numbers bit for bit. :func:`flow_weights` takes, per chunk, the one that is
cheaper by :data:`LEVELS_RATIO`: the level lists on graphs of large diameter (Mesh 80x80:
about 5 CPU seconds a round instead of 25) and late in a run, the dense form while the
distances are short. ``top`` is the largest distance of
a wanted packet: from the packed reach sets, or a guess (the last round's minus one) that
the classes' searches confirm. The classes are processed in chunks of at most
:data:`CHUNK_CELLS` (node, class) cells, so the memory stays bounded (a few hundred MB)
whatever the graph's size.

References
----------
.. [1] R. Beier and J. F. Sibeyn, "A powerful heuristic for telephone gossiping", section 4.1
   (BFS approach, Definition 1, formula (9)).
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from gossipcert.heuristics.bitsets import Index, Words, slots
from gossipcert.heuristics.flow_levels import border_mass_levels
from gossipcert.heuristics.weights import EdgeWeights, reach_sets

Bools = npt.NDArray[np.bool_]
Floats32 = npt.NDArray[np.float32]

#: (node, class) cells per chunk of classes
CHUNK_CELLS = 1 << 24

#: the level-list form is taken when ``top`` times the chunk's cells is at least this many
#: times its cells outside the dispersion regions (a cell of a level list costs about as
#: much as this many dense cell-levels; Pancake 7, ``top`` 13 and less, stays dense)
LEVELS_RATIO = 20

#: edges per block when summing a chunk's border masses onto the edges
_EDGE_CELLS = 1 << 22


def _unpack(rows: Words, n_bits: int) -> Bools:
    """Rows of words as a ``rows x n_bits`` Boolean array."""
    as_bytes = np.ascontiguousarray(rows, dtype="<u8").view(np.uint8)
    return np.unpackbits(as_bytes, axis=1, bitorder="little")[:, :n_bits].astype(bool)


def packet_classes(know: Words, demand: Words, n_packets: int) -> tuple[Bools, Bools, Floats32]:
    """Packets grouped by who knows them and who still lacks and demands them.

    Two packets known by the same nodes and demanded by the same nodes get the same
    weights (the classes are recomputed every round). Returns, per class, the knowing nodes
    and the lacking demanding nodes (``n x Q`` Boolean arrays) and the class sizes; classes
    nobody lacks are left out.

    Examples
    --------
    >>> from gossipcert.heuristics.bitsets import pack
    >>> k = pack([0b01, 0b01, 0b10], 2)
    >>> kb, lack, size = packet_classes(k, pack([0b11, 0b11, 0b11], 2), 2)
    >>> kb.T.tolist(), size.tolist()
    ([[False, False, True], [True, True, False]], [1.0, 1.0])
    """
    kb = _unpack(know[:-1], n_packets)
    lack = _unpack(demand[:-1] & ~know[:-1], n_packets)
    n = kb.shape[0]
    # group the columns by a random linear hash, then check that
    # every column equals its class's first one; on a collision (not seen so far) group
    # exactly by the columns' bytes
    # (einsum, not BLAS: a multithreaded BLAS is slow on a loaded machine)
    mix = np.random.default_rng(n).random((2, n), dtype=np.float32)
    hashes = np.column_stack(
        [np.einsum("vp,v->p", cols.astype(np.float32), row) for cols in (kb, lack) for row in mix]
    )
    _, first, inverse, counts = np.unique(
        hashes, axis=0, return_index=True, return_inverse=True, return_counts=True
    )
    rep = first[inverse.ravel()]
    if not (
        np.array_equal(kb, np.take(kb, rep, axis=1))
        and np.array_equal(lack, np.take(lack, rep, axis=1))
    ):
        keys = np.packbits(np.vstack([kb, lack]), axis=0).T.copy()
        keyed = keys.view(np.dtype((np.void, keys.shape[1]))).ravel()
        _, first, counts = np.unique(keyed, return_index=True, return_counts=True)
    lack = np.take(lack, first, axis=1)
    keep = lack.any(axis=0)
    first, counts = first[keep], counts[keep]
    return np.take(kb, first, axis=1), lack[:, keep], counts.astype(np.float32)


def _gather(
    src: npt.NDArray[np.generic],
    hops: list[tuple[Index | slice, Index]],
    out: npt.NDArray[np.generic],
    buf: npt.NDArray[np.generic],
    combine: np.ufunc,
) -> None:
    """``out[v] = combine over the neighbours w of v of src[w]`` (rows), into ``out``.

    ``buf`` is scratch space of ``out``'s shape: the gathers reuse it instead of allocating
    a large temporary per neighbour slot (the allocations cost as much system time as the
    arithmetic on graphs of thousands of nodes).
    """
    who, whom = hops[0]
    np.take(
        src,
        whom,
        axis=0,
        out=out[: len(whom)] if isinstance(who, slice) else buf[: len(whom)],
        mode="clip",
    )
    if not isinstance(who, slice):
        out[...] = 0
        out[who] = buf[: len(whom)]
    elif len(whom) < len(out):
        out[len(whom) :] = 0
    for who, whom in hops[1:]:
        part = buf[: len(whom)]
        np.take(src, whom, axis=0, out=part, mode="clip")
        if isinstance(who, slice):
            combine(out[who], part, out=out[who])
        else:
            out[who] = combine(out[who], part)


def border_mass_dense(
    kb: Bools, lack: Bools, nbr: Index, top: int, dist_exp: float, num_exp: float
) -> Floats32:
    """Per node ``w`` and class: the mass one border edge into ``w`` receives.

    Nonzero only where ``w`` lies at distance 1 from the class's dispersion region. This
    form works on whole ``n x Q`` arrays, one pass per level;
    :func:`gossipcert.heuristics.flow_levels.border_mass` gives the same numbers on the
    cells of each level only, and :func:`flow_weights` takes whichever of the two is
    cheaper for a chunk of classes (:data:`LEVELS_RATIO`).
    """
    return border_mass_dense_levels(kb, lack, nbr, top, dist_exp, num_exp)[0]


def border_mass_dense_levels(
    kb: Bools, lack: Bools, nbr: Index, top: int, dist_exp: float, num_exp: float
) -> tuple[Floats32, int, bool]:
    """:func:`border_mass_dense`, the depth of the search, and whether it reached every
    lacking cell (as :func:`~gossipcert.heuristics.flow_levels.border_mass_levels`)."""
    n, q = kb.shape
    hops = slots(nbr)
    far = np.int16(np.iinfo(np.int16).max)
    dist = np.zeros((n + 1, q), dtype=np.int16)
    body = dist[:-1]
    frontier = np.zeros((n + 1, q), dtype=bool)
    frontier[:-1] = kb
    unseen = ~kb
    # scratch arrays reused level after level
    nxt = np.empty((n, q), dtype=bool)
    scratch = np.empty((n, q), dtype=bool)
    remaining = int(lack.sum())
    depth = 0
    while remaining and depth < top:
        body += unseen  # a cell at distance d is unseen for d levels
        _gather(frontier, hops, nxt, scratch, np.bitwise_or)
        nxt &= unseen
        depth += 1
        unseen ^= nxt
        np.logical_and(nxt, lack, out=scratch)
        remaining -= int(np.count_nonzero(scratch))
        frontier[:-1] = nxt
    del nxt, scratch, frontier
    np.copyto(body, far, where=unseen)
    dist[n] = -5  # the padding row is nobody's parent or child
    table = np.zeros(depth + 1, dtype=np.float32)
    table[1:] = (np.arange(1, depth + 1, dtype=np.float32) / np.float32(top)) ** np.float32(
        dist_exp
    )
    mass = np.take(table, np.minimum(body, depth))
    mass *= lack
    parents = np.zeros((n, q), dtype=np.float32)
    below = body - 1
    for who, whom in hops:
        parents[who] += dist[whom] == below[who]
    inverse = np.maximum(parents, np.float32(1.0)) ** np.float32(-num_exp)
    del parents, below
    share = np.zeros((n + 1, q), dtype=np.float32)
    got = np.empty((n, q), dtype=np.float32)
    buf = np.empty((n, q), dtype=np.float32)
    level = body == depth
    for d in range(depth, 0, -1):
        np.multiply(mass, inverse, out=share[:-1])
        share[:-1] *= level
        if d > 1:
            _gather(share, hops, got, buf, np.add)
            np.equal(body, d - 1, out=level)
            got *= level
            mass += got
    # share now holds, on level-1 nodes, the mass per border edge
    return share[:-1], depth, remaining == 0


def flow_weights(
    know: Words,
    demand: Words,
    nbr: Index,
    u: Index,
    v: Index,
    n_packets: int,
    dist_exp: float,
    num_exp: float = 1.0,
    chunk_cells: int = CHUNK_CELLS,
    top_guess: int | None = None,
) -> EdgeWeights:
    """The flow form of the BFS approach (see the module docstring).

    Parameters
    ----------
    know, demand : numpy.ndarray
        Packed knowledge and demands, ``(n + 1) x W`` with a zero last row.
    nbr : numpy.ndarray
        Padded neighbour table.
    u, v : numpy.ndarray
        The edges.
    n_packets : int
        Number of packets.
    dist_exp, num_exp : float
        ``Dist_Exp`` and ``Num_Exp`` of formula (9).
    chunk_cells : int
        At most this many (node, class) cells at once.
    top_guess : int, optional
        A guess of the round's largest distance ``top`` (e.g. the last round's minus one).
        The classes' searches check it: it is kept only if every demand lies within it and
        some at exactly that distance, otherwise the round is redone with ``top`` from the
        packed reach sets. The weights are the same either way; a right guess saves the
        reach sets' ``top`` passes over the packed knowledge.

    Returns
    -------
    EdgeWeights

    Examples
    --------
    >>> import networkx as nx
    >>> from gossipcert.heuristics.bitsets import edge_arrays, neighbour_table, pack
    >>> g = nx.path_graph(3)
    >>> know = pack([0b001, 0b010, 0b100], 3)
    >>> demand = pack([0b111, 0b111, 0b111], 3)
    >>> u, v = edge_arrays(g)
    >>> w = flow_weights(know, demand, neighbour_table(g), u, v, 3, 1.0)
    >>> w.forward.tolist(), w.backward.tolist(), w.eccentricity
    ([1.5, 0.5], [0.5, 1.5], 2)
    >>> guessed = flow_weights(know, demand, neighbour_table(g), u, v, 3, 1.0, top_guess=1)
    >>> guessed.forward.tolist(), guessed.eccentricity
    ([1.5, 0.5], 2)
    """
    m = len(u)
    kb, lack, size = packet_classes(know, demand, n_packets)
    if top_guess is not None and top_guess > 0:
        found = _flow_sums(kb, lack, size, nbr, u, v, top_guess, dist_exp, num_exp, chunk_cells)
        if found is not None:
            return EdgeWeights(found[0], found[1], top_guess)
    top = len(reach_sets(know, demand, nbr)) - 1
    if top == 0:
        return EdgeWeights(np.zeros(m), np.zeros(m), 0)
    found = _flow_sums(kb, lack, size, nbr, u, v, top, dist_exp, num_exp, chunk_cells, False)
    assert found is not None
    return EdgeWeights(found[0], found[1], top)


def _flow_sums(
    kb: Bools,
    lack: Bools,
    size: Floats32,
    nbr: Index,
    u: Index,
    v: Index,
    top: int,
    dist_exp: float,
    num_exp: float,
    chunk_cells: int,
    check: bool = True,
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]] | None:
    """Forward and backward weights of the edges for a given ``top``, chunk by chunk.

    With ``check``, ``None`` unless ``top`` is the largest distance of a lacking cell.
    """
    n, q = kb.shape
    m = len(u)
    fwd = np.zeros(m)
    bwd = np.zeros(m)
    width = max(1, chunk_cells // max(n, 1))
    deepest = 0
    for lo in range(0, q, width):
        hi = min(q, lo + width)
        k_part = np.ascontiguousarray(kb[:, lo:hi])
        # the dense form costs top passes over all cells, the level lists one (slower)
        # pass over the cells outside the dispersion regions: the cheaper one, same numbers
        outside = k_part.size - int(np.count_nonzero(k_part))
        levels = top * k_part.size >= LEVELS_RATIO * outside
        form = border_mass_levels if levels else border_mass_dense_levels
        border, depth, complete = form(
            k_part, np.ascontiguousarray(lack[:, lo:hi]), nbr, top, dist_exp, num_exp
        )
        if check and not complete:
            return None
        deepest = max(deepest, depth)
        border *= size[lo:hi]
        kf = k_part.astype(np.float32)
        step = max(1, _EDGE_CELLS // (hi - lo))
        for a in range(0, m, step):
            b = min(m, a + step)
            uu, vv = u[a:b], v[a:b]
            fwd[a:b] += np.einsum("ij,ij->i", kf[uu], border[vv])
            bwd[a:b] += np.einsum("ij,ij->i", kf[vv], border[uu])
    if check and deepest != top:
        return None
    return fwd, bwd
