"""Packed knowledge for the heuristics: one row of 64-bit words per node, one bit per packet.

A row ``K[v]`` of a ``(n + 1) x W`` array of ``uint64`` holds the packets node ``v`` knows
(packet ``p`` is bit ``p % 64`` of word ``p // 64``); row ``n`` is all zeros and stands for
"no neighbour" in the padded neighbour table, so that one gather ``K[nbr[:, j]]`` reads the
``j``-th neighbour of every node at once. Set operations on whole rows are then a few NumPy
calls: a round of a 10,000-node gossip touches 10,000 x 157 words per operation.

Examples
--------
>>> import numpy as np
>>> rows = pack([0b101, 0b10], 3)
>>> rows.shape, int(popcount(rows).sum())
((3, 1), 3)
>>> unpack_row(rows[0])
5
"""

from __future__ import annotations

import networkx as nx
import numpy as np
import numpy.typing as npt

Words = npt.NDArray[np.uint64]
Index = npt.NDArray[np.int64]


def n_words(n_bits: int) -> int:
    """Words needed for ``n_bits`` bits (at least one)."""
    return max(1, (n_bits + 63) // 64)


def pack(masks: list[int] | tuple[int, ...], n_bits: int) -> Words:
    """Rows of words for the Python-integer bitsets ``masks``, plus a zero row at the end.

    Parameters
    ----------
    masks : sequence of int
        One bitset per node (bit ``p``: packet ``p``).
    n_bits : int
        The number of packets.

    Returns
    -------
    numpy.ndarray
        ``(len(masks) + 1) x n_words(n_bits)`` of ``uint64``.
    """
    width = n_words(n_bits)
    out = np.zeros((len(masks) + 1, width), dtype=np.uint64)
    for v, mask in enumerate(masks):
        if mask:
            out[v] = np.frombuffer(mask.to_bytes(width * 8, "little"), dtype="<u8")
    return out


def unpack_row(row: Words) -> int:
    """The Python-integer bitset of one row."""
    return int.from_bytes(np.ascontiguousarray(row, dtype="<u8").tobytes(), "little")


def popcount(rows: Words) -> npt.NDArray[np.int64]:
    """The number of set bits of every row."""
    return np.bitwise_count(rows).sum(axis=-1, dtype=np.int64)


def neighbour_table(graph: nx.Graph) -> Index:
    """``nbr[v, j]``: the ``j``-th neighbour of ``v`` in increasing order, ``n`` past the degree.

    Examples
    --------
    >>> neighbour_table(nx.path_graph(3)).tolist()
    [[1, 3], [0, 2], [1, 3]]
    """
    n = graph.number_of_nodes()
    degree = max((d for _, d in graph.degree), default=0)
    nbr = np.full((n, max(degree, 1)), n, dtype=np.int64)
    for v in range(n):
        ws = sorted(graph.adj[v])
        nbr[v, : len(ws)] = ws
    return nbr


def slots(nbr: Index) -> list[tuple[Index | slice, Index]]:
    """Per neighbour slot ``j``: the nodes with a ``j``-th neighbour and those neighbours.

    Irregular graphs (random graphs) then gather ``2m`` rows per step, not ``n`` times the
    largest degree; with the nodes numbered by decreasing degree each slot is a prefix.
    """
    n = nbr.shape[0]
    out: list[tuple[Index | slice, Index]] = []
    for j in range(nbr.shape[1]):
        col = nbr[:, j]
        has = col < n
        k = int(has.sum())
        if has[:k].all():  # nodes sorted by decreasing degree: a prefix
            out.append((slice(0, k), col[:k]))
        else:
            who = np.flatnonzero(has)
            out.append((who, col[who]))
    return out


def spread(rows: Words, nbr: Index) -> Words:
    """``rows[v] | OR of rows[w]`` over the neighbours ``w`` of ``v`` (zero row kept last)."""
    out = rows.copy()
    body = out[:-1]
    for who, whom in slots(nbr):
        body[who] |= rows[whom]
    return out


def gather_or(rows: Words, nbr: Index) -> Words:
    """OR of ``rows[w]`` over the neighbours ``w`` of each node (no zero row)."""
    out = rows[nbr[:, 0]].copy()
    for who, whom in slots(nbr)[1:]:
        out[who] |= rows[whom]
    return out


def edge_arrays(graph: nx.Graph) -> tuple[Index, Index]:
    """The edges as two arrays ``(u, v)``, ``u < v``, in increasing order."""
    edges = sorted((min(u, v), max(u, v)) for u, v in graph.edges)
    if not edges:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    arr = np.array(edges, dtype=np.int64)
    return arr[:, 0].copy(), arr[:, 1].copy()
