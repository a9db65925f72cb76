"""Broadcast of ``K`` chunks on a complete graph under all-port: scatter, then allgather,
pipelined.

Under all-port on ``K_n`` with every arc carrying ``c`` chunks a round, the source ``s``
can pass ``c (n - 1)`` distinct chunks a round, ``c`` to each other node, and a node can
pass on to every other node what it just received. The schedule:

- in every round but the last, ``s`` sends every other node ``c`` chunks of the next batch
  of ``c (n - 1)`` chunks (a *scatter*), and every node sends every node other than ``s``
  the ``c`` chunks it received from ``s`` in the round before (an *allgather* of the batch);
- in the last round, ``s`` sends every node the last ``c`` chunks (at most), and the nodes
  pass on the previous batch.

A node receives ``c`` chunks in the first round and ``c (n - 1)`` in every later one, so the
broadcast takes ``R = 1 + ceil((K - c) / (c (n - 1)))`` rounds (``1`` when ``K <= c``).
That is optimal: a node can receive nothing but from ``s`` in the first round, ``c`` chunks,
and at most ``c (n - 1)`` a round after; it is the ``flow-over-time`` bound of
:mod:`gossipcert.closed_forms.pipelined`, whose paths are the direct arc and the ``n - 2``
paths of two arcs.

References
----------
.. [1] M. Barnett, L. Shuler, R. van de Geijn, S. Gupta, D. G. Payne and J. Watts,
   "Interprocessor collective communication library (InterCom)", SHPCC 1994 (broadcast as a
   scatter followed by an allgather).
.. [2] E. Chan, M. Heimlich, A. Purkayastha and R. van de Geijn, "Collective communication:
   theory, practice, and experience", CCPE 19 (2007).
"""

from __future__ import annotations

from gossipcert.constructions.collectives import (
    _arc_capacity,
    _require_all_port,
    _require_no_routers,
)
from gossipcert.errors import NotApplicableError
from gossipcert.instance import Instance, ProblemKind
from gossipcert.schedule import Round, Schedule, Transmission

__all__ = ["scatter_allgather_broadcast", "scatter_allgather_rounds"]


def scatter_allgather_rounds(n: int, chunks: int, c: int = 1) -> int:
    """``1 + ceil((K - c) / (c (n - 1)))`` rounds (``1`` when ``K <= c``; ``0`` for ``n = 1``).

    Examples
    --------
    >>> scatter_allgather_rounds(8, 16), scatter_allgather_rounds(32, 64)
    (4, 4)
    """
    if n <= 1:
        return 0
    if chunks <= c:
        return 1
    return 1 + -(-(chunks - c) // (c * (n - 1)))


def scatter_allgather_broadcast(instance: Instance) -> Schedule:
    """The pipelined scatter-allgather broadcast of the module docstring.

    Parameters
    ----------
    instance : Instance
        ``broadcast:S`` from one source, any ``chunks=K``, all-port, on a complete graph
        without routers whose arcs all carry the same ``c``.

    Returns
    -------
    Schedule
        Unverified (callers replay it).

    Raises
    ------
    NotApplicableError
        Another model or problem, a graph that is not complete, or unequal capacities.

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> from gossipcert.simulate import simulate
    >>> inst = parse_instance("complete:8", "all-port", "broadcast:0,chunks=16")
    >>> simulate(inst, scatter_allgather_broadcast(inst)).rounds
    4
    """
    _require_all_port(instance, "the scatter-allgather broadcast")
    _require_no_routers(instance, "the scatter-allgather broadcast")
    if instance.problem.kind is not ProblemKind.BROADCAST:
        raise NotApplicableError("the scatter-allgather broadcast is a schedule for broadcast")
    g = instance.graph
    n = instance.n
    if g.number_of_edges() != n * (n - 1) // 2:
        raise NotApplicableError("the scatter-allgather broadcast needs a complete graph")
    sources = [v for v in range(n) if instance.holdings[v]]
    if len(sources) != 1:
        raise NotApplicableError("the scatter-allgather broadcast has one source")
    caps = {_arc_capacity(instance, u, v) for u, v in g.edges()}
    if len(caps) != 1:
        raise NotApplicableError("the scatter-allgather broadcast needs equal capacities")
    (c,) = caps
    s = sources[0]
    others = [v for v in range(n) if v != s]
    k = instance.problem.chunks
    total = scatter_allgather_rounds(n, k, c)
    # batch[t][i]: the chunks the source sends to others[i] in round t (0-based)
    batch: list[list[list[int]]] = []
    nxt = 0
    for _ in range(total - 1):
        row = []
        for _ in others:
            row.append(list(range(nxt, min(nxt + c, k - c))))
            nxt = min(nxt + c, k - c)
        batch.append(row)
    last = list(range(nxt, k))
    rounds: list[Round] = []
    for t in range(total):
        sends: list[Transmission] = []
        for i, v in enumerate(others):
            mine = batch[t][i] if t < total - 1 else last
            if mine:
                sends.append(Transmission(s, (v,), _mask(mine)))
            peers = tuple(w for w in others if w != v)
            if t >= 1 and batch[t - 1][i] and peers:
                sends.append(Transmission(v, peers, _mask(batch[t - 1][i])))
        rounds.append(tuple(sends))
    return Schedule(tuple(rounds))


def _mask(chunks: list[int]) -> int:
    out = 0
    for b in chunks:
        out |= 1 << b
    return out
