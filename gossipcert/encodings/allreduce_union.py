"""The union relaxation of the reductions: knowledge of contributions, for lower-bound proofs.

Every schedule of a reduction, under ``sum`` or ``max``, gives a model of this formula, so a
refutation of it for ``R`` rounds proves that ``R`` rounds are impossible; its models are
not schedules (they may count twice), and it is never used to find one
(:mod:`gossipcert.encodings.allreduce` is the exact model). Say that ``v`` *knows* ``w``
for chunk ``c`` after round ``t`` when a chain of transmissions of ``c`` in increasing
rounds leads from ``w`` (a contributor of ``c``) to ``v`` by then. A partial result is
always inside its holder's knowledge (a copy or a combine takes a partial inside the
sender's), so a complete partial means complete knowledge. Knowledge follows the rules of a
round of the model below, the rules of gossip among the contributions:

- a transmission of ``c`` from ``u`` to ``v`` in round ``t`` gives ``v`` everything ``u``
  knew of ``c`` after round ``t - 1`` (unions only);
- the port rules of the model are those of the exact model: telephone (a matching of
  calls, at most ``p`` chunks each way), half-duplex and single-port (at most one arc out
  and one in per node, not both in half-duplex; at most ``p`` chunks an arc), all-port (at
  most the capacity an arc); multicast and ``calls=N`` are not encoded;
- every demander of ``c`` knows every contributor of ``c`` after round ``R``.

Variables, for rounds ``t = 1..R``:

- ``K[v, c, w, t]`` (``t = 0..R``): ``v`` knows ``w`` for chunk ``c`` after round ``t``;
  fixed at ``t = 0`` ("``v = w``"), and false while ``w`` is more than ``t`` hops away
  (``prune``; unit propagation derives it anyway);
- ``X[u, v, c, t]``: arc ``(u, v)`` carries chunk ``c`` in round ``t``;
- ``V[u, v, c, w, t] = X[u, v, c, t] and K[u, c, w, t - 1]``: the transmission brings ``w``;
- ``N[u, v, c, w, t]``: ``u`` knew ``w`` and ``v`` did not, before round ``t`` (``useless``);
- the port variables of the exact model: ``M[e, t]`` (telephone) or ``S[u, v, t]``.

Constraint families:

1. **knowledge**: ``K[v, c, w, t] = K[v, c, w, t - 1] or any_u V[u, v, c, w, t]``;
2. **ports**: as in the exact model (:func:`gossipcert.encodings.allreduce.port_literals`),
   and at most ``p`` (or the capacity) chunks an arc a round;
3. **demand**: ``K[v, c, w, R]`` for every demander ``v`` and contributor ``w`` of ``c``;
4. **receipts** (``counting``, implied): chunk ``c`` is sent at least ``m_c + d_c - 2``
   times over the rounds (``m`` contributors, ``d`` demanders): the knowledge argument of
   :func:`gossipcert.search.allreduce_bounds.receipt_bound`, which counts transmissions;
5. **components around a node** (``counting``, implied): for a node ``v`` and chunk ``c``, each
   component ``C`` of the graph without ``v`` that holds a contributor of ``c`` while a
   demander lies outside sends ``c`` into ``v`` at least once, and each that holds a
   demander while a contributor lies outside receives ``c`` from ``v`` at least once (the
   chains into or out of ``C`` pass ``v``; :mod:`gossipcert.search.allreduce_cut`); as
   clauses, and summed over the chunks as a count of ``v``'s receipts and sends (a node
   that splits nothing has one component: it receives every chunk it demands from
   elsewhere and sends every chunk others demand of it);
6. **useless transmissions** (``useless``, sound, not implied): a transmission brings its
   receiver something it did not know: ``X[u, v, c, t]`` implies some ``N[u, v, c, w, t]``.
   Dropping a transmission that brings nothing changes no knowledge and frees a port, so
   a schedule of ``R`` rounds gives one that meets this too, and the counts of 4 and 5,
   true of every schedule, still hold;
7. **interchangeable chunks** (``symmetry``, sound, not implied): chunks with the same
   contributors and demanders are permuted by renaming, which maps schedules (and 6) to
   schedules; within each such class the chunks' vectors of ``X`` (round by round, arc by
   arc) are ordered lexicographically non-increasing.

Families 6 and 7 are left out under ``strict`` (:class:`~gossipcert.encodings.options.
EncodingOptions` with ``useless`` and ``symmetry`` off); families 1 to 5 are satisfied by
every schedule with its true knowledge.

References
----------
.. [1] F. Harary and A. J. Schwenk, "The communication problem on graphs and digraphs",
   J. Franklin Inst. 297, 1974 (knowledge along chains of calls; the count of family 4).
.. [2] R. Thakur, R. Rabenseifner and W. Gropp, "Optimization of collective communication
   operations in MPICH", IJHPCA 19, 2005 (allreduce as reduce-scatter then allgather: the
   knowledge of contributions is an allgather's).
"""

from __future__ import annotations

from itertools import pairwise

import networkx as nx

from gossipcert.encodings.allreduce import (
    and_literal,
    arc_cap,
    arcs_of,
    encodable,
    interchangeable,
    port_literals,
)
from gossipcert.encodings.cnf import StandaloneCNF
from gossipcert.encodings.formula import Formula, Lit
from gossipcert.encodings.options import EncodingOptions
from gossipcert.errors import UnsupportedModelError
from gossipcert.instance import Instance, bits

#: the options of a default search (every family), and of ``strict`` (implied ones only)
DEFAULT_OPTIONS = EncodingOptions()
STRICT_OPTIONS = EncodingOptions(useless=False, symmetry=False)


def build(instance: Instance, rounds: int, options: EncodingOptions = DEFAULT_OPTIONS) -> Formula:
    """The formula of the module docstring for ``rounds`` rounds.

    Raises
    ------
    UnsupportedModelError
        A model or size :func:`gossipcert.encodings.allreduce.encodable` refuses.

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> from pysat.solvers import Solver
    >>> inst = parse_instance("path:3", "single-port", "allreduce")
    >>> [Solver(bootstrap_with=build(inst, r).cnf_since(0)).solve() for r in (6, 7)]
    [False, True]
    """
    reason = encodable(instance)
    if reason is not None:
        raise UnsupportedModelError(f"the allreduce encoding: {reason}")
    f = Formula()
    g, n = instance.graph, instance.n
    chunks = range(instance.n_packets)
    contrib = [[w for w in range(n) if instance.holdings[w] >> c & 1] for c in chunks]
    arcs = arcs_of(instance)
    dist = dict(nx.all_pairs_shortest_path_length(g))

    def far(v: int, w: int, t: int) -> bool:
        return options.prune and dist[v].get(w, n) > t

    know: dict[tuple[int, int, int], Lit] = {
        (v, c, w): v == w for c in chunks for w in contrib[c] for v in range(n)
    }
    sends: dict[tuple[int, int, int, int], int] = {}
    for t in range(1, rounds + 1):
        ports = port_literals(f, instance, arcs, t)
        for u, v in arcs:  # family 2
            carried = []
            for c in chunks:
                x = sends[(u, v, c, t)] = f.var(("X", u, v, c, t))
                if ports is not None:
                    f.clause([-x, ports[(u, v)]])
                f.clause([-x, *[know[(u, c, w)] for w in contrib[c]]])
                carried.append(x)
            cap = arc_cap(instance, u, v)
            if cap is not None:
                f.at_most(carried, cap)
            if options.useless:  # family 6
                for c in chunks:
                    news: list[Lit] = []
                    for w in contrib[c]:
                        there, here = know[(u, c, w)], know[(v, c, w)]
                        if there is False or here is True:
                            continue
                        new = f.var(("N", u, v, c, w, t))
                        f.clause([-new, there])
                        if here is not False:
                            f.clause([-new, -here])
                        news.append(new)
                    f.clause([-sends[(u, v, c, t)], *news])
        now: dict[tuple[int, int, int], Lit] = {}
        for v in range(n):  # family 1
            for c in chunks:
                for w in contrib[c]:
                    if far(v, w, t):
                        now[(v, c, w)] = False
                        continue
                    before = know[(v, c, w)]
                    if before is True:
                        now[(v, c, w)] = True
                        continue
                    k = f.var(("K", v, c, w, t))
                    reasons: list[Lit] = [before]
                    if before is not False:
                        f.clause([-before, k])
                    for u in sorted(g.adj[v]):
                        there = know[(u, c, w)]
                        if there is False:
                            continue
                        via = and_literal(f, ("V", u, v, c, w, t), sends[(u, v, c, t)], there)
                        f.clause([-via, k])
                        reasons.append(via)
                    f.clause([-k, *reasons])
                    now[(v, c, w)] = k
        know = now
    for v in range(n):  # family 3
        for c in bits(instance.demands[v]):
            for w in contrib[c]:
                f.clause([know[(v, c, w)]])
    if options.counting:
        _counts(f, instance, arcs, sends, rounds, contrib)
    if options.symmetry:
        _interchangeable(f, instance, arcs, sends, rounds)
    return f


def _counts(
    f: Formula,
    instance: Instance,
    arcs: list[tuple[int, int]],
    sends: dict[tuple[int, int, int, int], int],
    rounds: int,
    contrib: list[list[int]],
) -> None:
    """Families 4 and 5."""
    g, n = instance.graph, instance.n
    times = range(1, rounds + 1)
    demanders = [[v for v in range(n) if instance.demands[v] >> c & 1] for c in range(len(contrib))]
    for c, (mc, dc) in enumerate(zip(contrib, demanders, strict=True)):
        if dc:
            carried = [sends[(u, v, c, t)] for t in times for u, v in arcs]
            f.at_least(carried, len(mc) + len(dc) - 2)
    for v in range(n):
        parts = [set(p) for p in nx.connected_components(g.subgraph(set(g) - {v}))]
        need_in = need_out = 0
        for c, (mc, dc) in enumerate(zip(contrib, demanders, strict=True)):
            for part in parts:
                door = sorted(set(g.adj[v]) & part)
                if any(w in part for w in mc) and any(d not in part for d in dc):
                    f.clause([sends[(u, v, c, t)] for t in times for u in door])
                    need_in += 1
                if any(d in part for d in dc) and any(w not in part for w in mc):
                    f.clause([sends[(v, u, c, t)] for t in times for u in door])
                    need_out += 1
        chunks = range(len(contrib))
        into = [sends[(u, v, c, t)] for t in times for u in sorted(g.adj[v]) for c in chunks]
        out = [sends[(v, u, c, t)] for t in times for u in sorted(g.adj[v]) for c in chunks]
        f.at_least(into, need_in)
        f.at_least(out, need_out)


def _interchangeable(
    f: Formula,
    instance: Instance,
    arcs: list[tuple[int, int]],
    sends: dict[tuple[int, int, int, int], int],
    rounds: int,
) -> None:
    """Family 7: lexicographic order within each class of interchangeable chunks."""
    times = range(1, rounds + 1)
    for members in interchangeable(instance):
        for a, b in pairwise(members):
            pairs = [(sends[(x, y, a, t)], sends[(x, y, b, t)]) for t in times for x, y in arcs]
            f.lex_geq(("lex", a, b), pairs)


def standalone(
    instance: Instance, rounds: int, options: EncodingOptions = DEFAULT_OPTIONS
) -> tuple[Formula, StandaloneCNF]:
    """The formula for ``rounds`` rounds and its CNF (deterministic, so that a stored proof
    is re-checked against a regenerated CNF of the same SHA-256)."""
    f = build(instance, rounds, options)
    clauses = f.cnf_since(0)
    return f, StandaloneCNF(rounds, options, f.vpool.top, clauses, 0)
