"""A time-expanded SAT model of the reductions under ``max`` and ``sum``, written from the
rules on plain edge lists with pysat alone (sharing no code with gossipcert, nor with
:mod:`tests.reductions_bfs`): a second exact reference for the graphs of up to 5 nodes.

Rules (those of :mod:`tests.reductions_bfs`): every node contributes to every chunk; per node
and chunk a *partial result*, the set of contributions folded into it, initially the node's
own. A transmission carries the sender's partial of one chunk as it was before the round;
the receiver copies it (its partial becomes the received one; one copy per node and chunk a
round), combines it into its own (union) or ignores it. Under ``sum`` the sets united at one
node and chunk in one round (its own or the copied one, and every combined receipt) are
pairwise disjoint; ``max`` allows any overlap. Demands: ``reduce`` (root ``r``): ``K`` chunks,
``r`` needs each complete; ``reduce-scatter``: ``n K`` chunks, chunk ``i K + k`` complete at
node ``i``; ``allreduce``: every node needs every one of the ``n K`` chunks complete. Models,
one round:

- ``telephone`` (packets unbounded): the calls form a matching of the edges; a call carries
  every chunk both ways (the receiver may ignore any);
- ``single-port`` (``p = 1``): a node sends one chunk to one neighbour and receives one chunk;
- ``all-port`` (capacity 1): every arc carries at most one chunk.

Under ``max`` only uniting is modelled: every move is monotone (a larger partial sends and
unites into larger partials), so a union dominates a copy or ignoring the receipt, and a
schedule exists with some choice of copies and unions if and only if it exists with unions
alone. Likewise an unbounded telephone call carries every chunk (under ``sum`` too: the
receiver may ignore what it does not want).

Variables, for a horizon of ``R`` rounds:

- ``hold[v, c, w, t]`` (``t = 0 .. R``): contribution ``w`` is in ``v``'s partial of chunk
  ``c`` after round ``t``;
- ``send[u, v, c, t]`` (``t = 1 .. R``, ``(u, v)`` an arc): ``u`` sends its partial of ``c`` to
  ``v`` in round ``t`` (telephone: ``call[{u, v}, t]``, shared by every chunk);
- ``max``: ``via[u, v, c, w, t]``, the receipt of ``send[u, v, c, t]`` carries ``w``;
- ``sum``: ``copy``, ``combine`` and ``take`` (either) per receipt, ``keep[v, c, t]`` (no
  copy: the old partial is the base), ``src[x, v, c, w, t]``: ``w`` comes from the base
  (``x = v``) or from the receipt from ``x``.

Constraint families:

- start: ``hold[v, c, w, 0]`` is true exactly when ``v = w``;
- union (``max``): ``hold[v, c, w, t]`` is ``hold[v, c, w, t - 1]`` or some
  ``via[u, v, c, w, t]``, and ``via`` implies ``send[u, v, c, t]`` and ``hold[u, c, w, t - 1]``
  (and the converse: both imply ``hold[v, c, w, t]``);
- copies and sums (``sum``): ``copy`` and ``combine`` need the ``send`` and exclude each
  other, at most one ``copy``, ``keep`` exactly when no ``copy``; ``src`` is the conjunction
  of its gate (``keep``, or ``take`` of the receipt) and ``hold[x, c, w, t - 1]``;
  ``hold[v, c, w, t]`` is the disjunction of the ``src``, and at most one ``src`` of each
  ``w`` is true (no double count);
- ports: telephone, at most one call per node and round; single-port, at most one ``send``
  out of and one into each node a round; all-port, at most one ``send`` per arc and round;
- demands: ``hold[v, c, w, R]`` for every demanded pair ``(v, c)`` and every ``w``.

Redundant constraints, each sound (it removes no schedule, or keeps one of every class of
schedules that are images of each other):

1. **Distance.** ``hold[v, c, w, t]`` is false when ``w`` is more than ``t`` hops from
   ``v``: a contribution moves one hop a round.
2. **Interchangeable chunks.** Chunks with the same demanders start alike and are treated
   alike by every rule, so permuting them maps schedules to schedules. Within each class the
   chunks' vectors of ``send`` variables (round by round, arc by arc) are ordered
   lexicographically non-increasing: the chunks of any schedule can be renumbered so.
3. **Telephone.** The calls carry every chunk, so chunks with the same demanders have the
   same partials: one chunk per set of demanders is modelled.
4. **Receipts of a chunk.** A chunk with ``d`` demanders is sent at least ``n + d - 2``
   times (single-port and all-port count the transmissions). Take the first round ``t*`` after
   which some node ``x`` holds the complete partial. Link two contributions for every
   transmission whose receipt feeds ``x``'s partial after ``t*`` (one contribution of the
   sent partial, one of the receiver's): every partial is connected by the links of the
   receipts it grew from (a union of two connected sets joined by a link), so ``x``'s, with
   ``n`` contributions, needs ``n - 1`` transmissions, each into ``x`` or into a node whose
   partial reached ``x`` before round ``t*``. Every demander ``y != x`` is incomplete before
   round ``t*`` and needs a receipt in a round ``>= t*``: not one of those (a receipt into
   ``y`` in round ``t*`` feeds nobody's partial by then), and distinct for distinct ``y``.
   Summed over the chunks, and counted once a port a round (a port carries one chunk), the
   total is a bound on the transmissions too.
5. **Cut vertices.** For a node ``v`` and a chunk, every component ``C`` of the graph without
   ``v`` with a demander outside ``C`` sends the chunk into ``v`` at least once (the
   contributions of ``C`` leave ``C`` only through ``v``, and the first transmission out of
   ``C`` that carries one is into ``v``); every component with a demander inside receives the
   chunk from ``v`` at least once (``v``'s own contribution enters ``C`` only from ``v``).
   Summed over the chunks, they bound the ports into and out of ``v`` used over the rounds.
6. **Useless transmissions.** A transmission whose partial holds nothing new to the receiver
   changes no partial, and dropping it frees a port: every ``send`` carries some ``w`` held
   by the sender and not by the receiver before the round. (Dropping transmissions keeps
   every partial, so it commutes with constraint 2, and the counts of 4 and 5, proved for
   every schedule, hold for the rest.) Under ``sum`` (single-port, all-port): no receipt is
   ignored, for the same reason.
7. **Windows at a node** (single-port). Take a node ``v``, a chunk ``c`` and a component
   ``C`` of the graph without ``v`` with a demander of ``c`` outside ``C`` (``v`` counts),
   in a schedule under ``max`` (a node keeps what it holds). The contributions of ``C``
   reach that demander only through ``v``, so ``v`` holds them all after some first round
   ``t*``, where ``v`` takes a receipt carrying some ``w`` of ``C`` new to it: one receipt
   (single-port), of ``c``, from a node of ``C`` (a node of another component holding ``w``
   would have had it through ``v``, before). Distinct pairs ``(c, C)`` thus have distinct
   rounds ``t*`` in which ``v`` receives. Their span: ``b <= t* <= R - m``, where

   - ``b`` is the single-port broadcast time from ``v`` to ``C`` within ``C`` and ``v``:
     the transmissions of ``c`` by which the contributions of ``C`` reached ``v`` (within
     ``C`` and ``v``: they leave ``C`` only into ``v``), reversed in time (round ``r`` to
     ``t* + 1 - r``, an arc to its reverse), take ``v``'s item to every node of ``C`` with
     one send out of and one receipt into each node a round; ``b`` is at least the largest
     distance from ``v`` into ``C``, and at least 2 when ``C`` has two nodes or more (after
     one round an item is at two nodes at most: in round 1, ``v`` takes one contribution);
   - ``m`` is the single-port time in which an item at ``v`` reaches the demanders of ``c``
     outside ``C`` and ``v`` (``0`` when none) over the nodes outside ``C``: after round
     ``t*`` the ``w`` new to ``v`` is held outside ``C`` by ``v`` alone, and it reaches
     those demanders by round ``R`` over arcs outside ``C`` (the nodes of ``C`` send only
     into ``C`` and ``v``), one send out of and one receipt into each node a round; ``m`` is
     at least the largest distance from ``v`` to them, and at least 2 when they are two or
     more (``v`` sends to one of them in round ``t* + 1``).

   Hence (Hall's condition for distinct rounds) every window ``[s, e]`` of rounds holds at
   least as many rounds in which ``v`` receives as there are pairs with ``s <= b`` and
   ``R - m <= e``; added for every ``s`` among the ``b`` and ``e`` among the ``R - m``.
   (The whole horizon is the count of 5 into ``v``.) Under ``sum`` the sends of a schedule
   make a ``max`` schedule (whose partials, unions, hold those of ``sum``), so the windows,
   on the sends alone, hold as well.

:func:`optimum` searches the horizon from a hint in either direction (feasibility is
monotone in ``R``: an idle round may be added) and returns the least feasible ``R``. The
``max`` optimum is a lower bound of the ``sum`` one (a ``sum`` schedule is a ``max`` schedule)
and its model is the smaller, so a ``sum`` optimum is best searched from the ``max`` one up;
:func:`sum_from_max` first asks whether the sends of a ``max`` schedule admit copies and
combinations without a double count (a cheap proof of a ``sum`` schedule).

The constraints 1, 2, 3, 5, 7 hold under ``sum`` as argued. For 4 under ``sum``: a partial is
the copied (or kept) set and the combined receipts, pairwise disjoint, each connected by
induction and linked to the base by one link a combined receipt, so the count of links, and
of transmissions, holds as well.

References
----------
F. Harary and A. J. Schwenk, "The communication problem on graphs and digraphs", Journal of
the Franklin Institute 297 (1974): the fewest one-way calls of gossip (``2 n - 2``), whose
linking argument constraint 4 follows.
"""

from __future__ import annotations

import multiprocessing
import threading
import time
from collections.abc import Callable, Iterable
from itertools import count, pairwise
from typing import Any

from pysat.card import CardEnc, EncType
from pysat.formula import IDPool
from pysat.solvers import Solver

Edge = tuple[int, int]


class SatBudgetError(Exception):
    """The solver did not answer within its time budget."""


def demands(n: int, problem: str, k: int, root: int = 0) -> list[int]:
    """Per chunk, the bitmask of the nodes that need it complete."""
    full = (1 << n) - 1
    if problem == "reduce":
        return [1 << root] * k
    if problem == "reduce-scatter":
        return [1 << i for i in range(n) for _ in range(k)]
    if problem == "allreduce":
        return [full] * (n * k)
    raise ValueError(problem)


def distances(n: int, edges: list[Edge]) -> list[list[int]]:
    """Hop distances (``n`` for unreachable), by breadth-first search from every node."""
    nbrs: list[list[int]] = [[] for _ in range(n)]
    for a, b in edges:
        nbrs[a].append(b)
        nbrs[b].append(a)
    out = []
    for s in range(n):
        dist = [n] * n
        dist[s] = 0
        layer = [s]
        for d in count(1):
            layer = sorted({w for v in layer for w in nbrs[v] if dist[w] == n and w != s})
            if not layer:
                break
            for w in layer:
                dist[w] = d
        out.append(dist)
    return out


def formula(
    n: int,
    edges: Iterable[Edge],
    model: str,
    problem: str,
    k: int,
    rounds: int,
    root: int = 0,
    redundant: bool = True,
    redop: str = "max",
) -> tuple[list[list[int]], IDPool]:
    """The clauses of the module docstring for ``rounds`` rounds, and their variables' pool
    (``redundant=False``: without the redundant constraints 1, 2, 4, 5, 6 and 7)."""
    edge_list = sorted({(min(e), max(e)) for e in edges})
    arcs = [(a, b) for a, b in edge_list] + [(b, a) for a, b in edge_list]
    arcs.sort()
    dem = demands(n, problem, k, root)
    if model == "telephone":  # redundant constraint 3: one chunk per set of demanders
        dem = sorted(set(dem))
    elif model not in ("single-port", "all-port"):
        raise ValueError(model)
    chunks = range(len(dem))
    dist = distances(n, edge_list)
    pool = IDPool()
    clauses: list[list[int]] = []
    true = pool.id("true")
    clauses.append([true])

    def hold(v: int, c: int, w: int, t: int) -> int:
        if t == 0:
            return true if v == w else -true
        if redundant and dist[v][w] > t:  # redundant constraint 1
            return -true
        return pool.id(("hold", v, c, w, t))

    def send(u: int, v: int, c: int, t: int) -> int:
        if model == "telephone":
            return pool.id(("call", min(u, v), max(u, v), t))
        return pool.id(("send", u, v, c, t))

    def at_most_one(lits: list[int]) -> None:
        if len(lits) > 1:
            enc = CardEnc.atmost(lits, 1, vpool=pool, encoding=EncType.seqcounter)
            clauses.extend(enc.clauses)

    into: dict[int, list[int]] = {v: [a for a, b in arcs if b == v] for v in range(n)}
    drop = redundant and model != "telephone"  # redundant constraint 6 under sum
    if redop not in ("max", "sum"):
        raise ValueError(redop)
    for t in range(1, rounds + 1):
        if redop == "sum":
            for v in range(n):
                for c in chunks:
                    sum_round(n, v, c, t, into[v], hold, send, drop, pool, clauses)
        elif redundant and model != "telephone":  # redundant constraint 6
            for u, v in arcs:
                for c in chunks:
                    news = []
                    for w in range(n):
                        there, here = hold(u, c, w, t - 1), hold(v, c, w, t - 1)
                        if there == -true or here == true:
                            continue
                        new = pool.id(("new", u, v, c, w, t))
                        clauses += [[-new, there], [-new, -here]]
                        news.append(new)
                    clauses.append([-send(u, v, c, t), *news])
        for v in range(n) if redop == "max" else ():
            for c in chunks:
                for w in range(n):
                    now = hold(v, c, w, t)
                    if now == -true:
                        continue
                    before = hold(v, c, w, t - 1)
                    clauses.append([-before, now])
                    reasons = [before]
                    for u in into[v]:
                        there = hold(u, c, w, t - 1)
                        if there == -true:
                            continue
                        via = pool.id(("via", u, v, c, w, t))
                        s = send(u, v, c, t)
                        clauses += [[-via, s], [-via, there], [-s, -there, now]]
                        reasons.append(via)
                    clauses.append([-now, *reasons])
        if model == "telephone":
            for v in range(n):
                at_most_one([send(u, v, 0, t) for u in into[v]])
        elif model == "single-port":
            for v in range(n):
                at_most_one([send(v, b, c, t) for a, b in arcs if a == v for c in chunks])
                at_most_one([send(a, v, c, t) for a in into[v] for c in chunks])
        else:
            for a, b in arcs:
                at_most_one([send(a, b, c, t) for c in chunks])
    if redundant and model != "telephone":  # redundant constraints 4, 5 and 7
        counting(n, edge_list, arcs, model, dem, rounds, send, pool, clauses)
    for c, d in enumerate(dem):
        for v in range(n):
            if d >> v & 1:
                for w in range(n):
                    clauses.append([hold(v, c, w, rounds)])
    if redundant and model != "telephone":  # redundant constraint 2
        for d in sorted(set(dem)):
            members = [c for c in chunks if dem[c] == d]
            for c, c2 in pairwise(members):
                vec = [
                    (send(a, b, c, t), send(a, b, c2, t))
                    for t in range(1, rounds + 1)
                    for a, b in arcs
                ]
                lex_geq(vec, pool, clauses)
    return clauses, pool


def sum_round(
    n: int,
    v: int,
    c: int,
    t: int,
    senders: list[int],
    hold: Callable[[int, int, int, int], int],
    send: Callable[[int, int, int, int], int],
    drop_ignored: bool,
    pool: IDPool,
    clauses: list[list[int]],
) -> None:
    """Node ``v``'s partial of chunk ``c`` after round ``t`` under ``sum`` (module docstring):
    each receipt is copied, combined or ignored (with ``drop_ignored``, single-port and
    all-port, no transmission is ignored: dropping it changes nothing), at most one copy,
    and the sources of each contribution (the partial kept when nothing is copied, each
    receipt taken) at most one."""
    true = hold(0, c, 0, 0)  # the constant
    takes, copies = [], []
    for u in senders:
        s = send(u, v, c, t)
        cp, cb = pool.id(("copy", u, v, c, t)), pool.id(("combine", u, v, c, t))
        take = pool.id(("take", u, v, c, t))
        clauses += [[-cp, s], [-cb, s], [-cp, -cb], [-take, cp, cb], [-cp, take], [-cb, take]]
        if drop_ignored:
            clauses.append([-s, take])
        takes.append((u, take))
        copies.append(cp)
    keep = pool.id(("keep", v, c, t))
    clauses.append([keep, *copies])
    clauses.extend([-keep, -cp] for cp in copies)
    if len(copies) > 1:
        clauses.extend(CardEnc.atmost(copies, 1, vpool=pool, encoding=EncType.seqcounter).clauses)
    for w in range(n):
        if hold(v, c, w, t) == -true:
            # every source is false too (a receipt holds w only within t - 1 hops of w)
            continue
        now = hold(v, c, w, t)
        sources = []
        for node, gate in [(v, keep), *takes]:
            before = hold(node, c, w, t - 1)
            if before == -true:
                continue
            src = pool.id(("src", node, v, c, w, t))
            clauses += [[-src, gate], [-src, before], [src, -gate, -before], [-src, now]]
            sources.append(src)
        clauses.append([-now, *sources])
        if len(sources) > 1:
            clauses.extend(
                CardEnc.atmost(sources, 1, vpool=pool, encoding=EncType.seqcounter).clauses
            )


def components(n: int, edges: list[Edge], v: int) -> list[int]:
    """The components of the graph without ``v``, as bitmasks of nodes."""
    seen = 1 << v
    out = []
    for s in range(n):
        if seen >> s & 1:
            continue
        comp, stack = 1 << s, [s]
        while stack:
            a = stack.pop()
            for x, y in edges:
                for p, q in ((x, y), (y, x)):
                    if p == a and q != v and not comp >> q & 1:
                        comp |= 1 << q
                        stack.append(q)
        seen |= comp
        out.append(comp)
    return out


def through(n: int, edges: list[Edge], v: int, wanted: int) -> tuple[int, int]:
    """For a chunk demanded by ``wanted`` (a bitmask), the components of the graph without
    ``v`` that must send it into ``v`` (some demander outside them) and those ``v`` must send
    it into (some demander inside them): at least one transmission each (module docstring,
    5)."""
    comps = components(n, edges, v)
    return sum(bool(wanted & ~c) for c in comps), sum(bool(wanted & c) for c in comps)


def spread(n: int, edges: list[Edge], source: int, targets: int, within: int) -> int:
    """The fewest rounds in which an item at ``source`` reaches every node of ``targets`` (a
    bitmask) over the nodes of ``within`` in single-port: each round, every node holding it
    sends it to at most one neighbour, and a node receives from at most one. A breadth-first
    search over the sets of holders (``n`` when they cannot reach every target: then no
    schedule meets the demands anyway)."""
    nbrs: list[list[int]] = [[] for _ in range(n)]
    for a, b in edges:
        if within >> a & 1 and within >> b & 1:
            nbrs[a].append(b)
            nbrs[b].append(a)

    def grown(held: int) -> set[int]:
        """The sets of holders one round after ``held``: each holder informs at most one
        neighbour not yet informed (nor by another holder this round)."""
        out = {held}
        for a in range(n):
            if held >> a & 1:
                out |= {x | 1 << b for x in out for b in nbrs[a] if not (held | x) >> b & 1}
        return out

    level, seen = {1 << source}, {1 << source}
    for r in count():
        if any(not targets & ~held for held in level):
            return r
        level = {y for held in level for y in grown(held)} - seen
        if not level:
            return n
        seen |= level
    raise AssertionError  # pragma: no cover (count() does not end)


def windows(n: int, edges: list[Edge], v: int, dem: list[int]) -> list[tuple[int, int]]:
    """Per chunk (of demanders ``dem``) and component ``C`` of the graph without ``v`` with a
    demander outside ``C``, the span of the round in which ``v`` completes the contributions
    of ``C`` (module docstring, 7): the broadcast time ``b`` from ``v`` into ``C`` (the
    earliest round) and the time ``m`` from ``v`` to the demanders outside ``C`` and ``v``
    (the latest round is ``R - m``)."""
    full = (1 << n) - 1
    comps = components(n, edges, v)
    spans: dict[int, list[tuple[int, int]]] = {}
    out = []
    for wanted in dem:
        if wanted not in spans:
            spans[wanted] = [
                (
                    spread(n, edges, v, comp, comp | 1 << v),
                    spread(n, edges, v, wanted & ~comp & ~(1 << v), full & ~comp),
                )
                for comp in comps
                if wanted & ~comp
            ]
        out += spans[wanted]
    return out


def counting(
    n: int,
    edges: list[Edge],
    arcs: list[Edge],
    model: str,
    dem: list[int],
    rounds: int,
    send: Callable[[int, int, int, int], int],
    pool: IDPool,
    clauses: list[list[int]],
) -> None:
    """The counting constraints 4 and 5 of the module docstring (single-port, all-port), and
    the windows of 7 (single-port).

    A *slot* is a port for one round (single-port: a node's way in, or its way out; all-port:
    an arc), true when some chunk uses it; the ports carry one chunk, so the slots used count
    the transmissions."""
    chunks = range(len(dem))
    slots_in: dict[int, list[int]] = {v: [] for v in range(n)}
    slots_out: dict[int, list[int]] = {v: [] for v in range(n)}

    def slot(lits: list[int]) -> int:
        used = pool.id(("slot", len(clauses)))
        clauses.append([-used, *lits])
        clauses.extend([-x, used] for x in lits)
        return used

    for t in range(1, rounds + 1):
        if model == "single-port":
            for v in range(n):
                slots_in[v].append(
                    slot([send(a, v, c, t) for a, b in arcs if b == v for c in chunks])
                )
                slots_out[v].append(
                    slot([send(v, b, c, t) for a, b in arcs if a == v for c in chunks])
                )
        else:
            for a, b in arcs:
                used = slot([send(a, b, c, t) for c in chunks])
                slots_in[b].append(used)
                slots_out[a].append(used)

    def at_least(lits: list[int], bound: int) -> None:
        if bound > len(lits):
            clauses.append([])
        elif bound > 0:
            enc = CardEnc.atleast(lits, bound, vpool=pool, encoding=EncType.totalizer)
            clauses.extend(enc.clauses)

    for c in chunks:
        lits = [send(a, b, c, t) for t in range(1, rounds + 1) for a, b in arcs]
        at_least(lits, n + dem[c].bit_count() - 2)
    at_least([x for v in range(n) for x in slots_in[v]], sum(n + d.bit_count() - 2 for d in dem))
    for v in range(n):
        pairs = [through(n, edges, v, d) for d in dem]
        at_least(slots_in[v], sum(i for i, _ in pairs))
        at_least(slots_out[v], sum(o for _, o in pairs))
    for v in range(n) if model == "single-port" else ():  # redundant constraint 7
        spans = windows(n, edges, v, dem)
        for first in sorted({b for b, _ in spans}):
            for margin in sorted({m for _, m in spans}):
                last = rounds - margin  # the window of rounds first .. last
                inside = sum(b >= first and m >= margin for b, m in spans)
                at_least(slots_in[v][first - 1 : max(last, first - 1)], inside)


def lex_geq(pairs: list[tuple[int, int]], pool: IDPool, clauses: list[list[int]]) -> None:
    """Clauses for ``x >=lex y`` over ``pairs = [(x_i, y_i)]``: ``eq_i`` (forced true while
    the prefix before ``i`` is equal) forbids ``x_i < y_i``."""
    eq = None  # None: true
    for x, y in pairs:
        guard = [] if eq is None else [-eq]
        clauses.append([*guard, x, -y])
        nxt = pool.id(("eq", len(clauses)))
        clauses.append([*guard, -x, -y, nxt])
        clauses.append([*guard, x, y, nxt])
        eq = nxt


Send = tuple[str, int, int, int, int]  # a send (or call) variable's name in the pool


#: formulas of fewer clauses are solved in this process
SMALL = 20_000


def solve_limited(clauses: list[list[int]], seconds: float, solver: str) -> list[int] | None:
    """A model of ``clauses`` (an empty list when there is none): below :data:`SMALL`
    clauses by Glucose in this process, interrupted after ``seconds``; above, by ``solver``
    in a forked process ended after ``seconds`` (CaDiCaL cannot be interrupted through pysat,
    and refutes the larger horizons far sooner).

    Raises
    ------
    SatBudgetError
        The solver did not answer within ``seconds``.
    """
    if any(not c for c in clauses):  # a count over the horizon's ports
        return []
    if len(clauses) < SMALL:  # interruptible in this process
        with Solver(name="glucose4", bootstrap_with=clauses) as s:
            timer = threading.Timer(seconds, s.interrupt)
            timer.start()
            try:
                answer = s.solve_limited(expect_interrupt=True)
            finally:
                timer.cancel()
            if answer is None:
                raise SatBudgetError(f"no answer in {seconds:.0f} s")
            return list(s.get_model() or [1]) if answer else []
    context = multiprocessing.get_context("fork")
    receive, give = context.Pipe(duplex=False)
    child = context.Process(target=_solve_in_child, args=(give, clauses, solver), daemon=True)
    child.start()
    give.close()
    try:
        if not receive.poll(seconds):
            raise SatBudgetError(f"no answer in {seconds:.0f} s")
        found = receive.recv()
    finally:
        if child.is_alive():
            child.terminate()
        child.join()
        receive.close()
    return list(found)


def _solve_in_child(give: Any, clauses: list[list[int]], solver: str) -> None:
    with Solver(name=solver, bootstrap_with=clauses) as s:
        give.send((s.get_model() or [1]) if s.solve() else [])
    give.close()


def sends_of(pool: IDPool, found: list[int]) -> frozenset[Send]:
    """The send (or call) variables true in the model ``found``."""
    true = {x for x in found if x > 0}
    return frozenset(
        key
        for key, var in pool.obj2id.items()
        if isinstance(key, tuple) and key[0] in ("send", "call") and var in true
    )


def feasible(
    n: int,
    edges: Iterable[Edge],
    model: str,
    problem: str,
    k: int,
    rounds: int,
    root: int = 0,
    seconds: float = 60.0,
    solver: str = "cadical195",
    redundant: bool = True,
    redop: str = "max",
) -> bool:
    """Whether a schedule of ``rounds`` rounds exists under ``redop``.

    Raises
    ------
    SatBudgetError
        The solver did not answer within ``seconds``.
    """
    clauses, _ = formula(n, list(edges), model, problem, k, rounds, root, redundant, redop)
    try:
        return bool(solve_limited(clauses, seconds, solver))
    except SatBudgetError as exc:
        raise SatBudgetError(f"{rounds} rounds, {redop}: {exc}") from None


def sum_from_max(
    n: int,
    edges: Iterable[Edge],
    model: str,
    problem: str,
    k: int,
    rounds: int,
    root: int = 0,
    seconds: float = 60.0,
    tries: int = 8,
) -> bool:
    """Whether one of up to ``tries`` ``max`` schedules of ``rounds`` rounds (each found by
    the ``max`` model, then excluded) takes copies and combinations that make it a ``sum``
    schedule: the ``sum`` model (without its redundant constraints) with the sends fixed.
    True proves a ``sum`` schedule of ``rounds`` rounds; False proves nothing.

    Raises
    ------
    SatBudgetError
        A solver did not answer within ``seconds``.
    """
    edge_list = list(edges)
    deadline = time.monotonic() + seconds
    clauses, pool = formula(n, edge_list, model, problem, k, rounds, root)
    base, sum_pool = formula(n, edge_list, model, problem, k, rounds, root, False, "sum")
    for _ in range(tries):
        found = solve_limited(clauses, max(deadline - time.monotonic(), 0.1), "cadical195")
        if not found:
            return False
        sends = sends_of(pool, found)
        units = [
            [var if key in sends else -var]
            for key, var in sum_pool.obj2id.items()
            if isinstance(key, tuple) and key[0] in ("send", "call")
        ]
        if solve_limited(base + units, max(deadline - time.monotonic(), 0.1), "cadical195"):
            return True
        clauses.append([-pool.id(key) for key in sends])
    return False


def optimum(
    n: int,
    edges: Iterable[Edge],
    model: str,
    problem: str,
    k: int,
    hint: int,
    root: int = 0,
    seconds: float = 60.0,
    redundant: bool = True,
    redop: str = "max",
) -> int:
    """The least number of rounds of a schedule under ``redop``, bisected below ``hint`` when
    it is feasible, or searched up from it until feasible (``seconds`` for the whole search).

    Raises
    ------
    SatBudgetError
        Some horizon was left undecided.
    """
    edge_list = list(edges)
    deadline = time.monotonic() + seconds

    def ok(r: int) -> bool:
        if r < 0:
            return False
        left = deadline - time.monotonic()
        if left <= 0:
            raise SatBudgetError(f"{r} rounds: out of time")
        return feasible(
            n, edge_list, model, problem, k, r, root, left, redundant=redundant, redop=redop
        )

    if ok(hint):  # bisect between -1 (infeasible) and the hint
        low, high = -1, hint
        while high - low > 1:
            mid = (low + high) // 2
            if ok(mid):
                high = mid
            else:
                low = mid
        return high
    r = hint + 1
    while not ok(r):
        r += 1
    return r
