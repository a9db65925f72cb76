"""A breadth-first search over the partial results of a reduction, sharing no code with
gossipcert (neither its encodings nor its time reversal), for the graphs of up to 5 nodes.

Semantics (written from the rules, on plain edge lists): every node contributes to every
chunk; per node and chunk a *partial result*, the set of contributions folded into it (a
bitmask over nodes), initially the node's own. A transmission carries the sender's partial
of a chunk as it was before the round; the receiver stores it (copy: its partial becomes
the received one; at most one copy per node and chunk a round) or combines it into its own
(reduce: union). Under ``sum`` the sets united in one round at one node and chunk (its own
or the one copied, and every combined receipt) must be pairwise disjoint; ``max`` allows any
overlap. Demands: ``reduce`` (root ``r``): ``K`` chunks, ``r`` needs each complete;
``reduce-scatter``: ``n K`` chunks, chunk ``i K + k`` complete at node ``i``;
``allreduce``: every node needs every one of the ``n K`` chunks complete. Models:

- ``telephone`` (packets unbounded): the calls form a matching, each side sends any chunks;
- ``single-port`` (``p = 1``): a node sends one chunk to one neighbour and receives one;
- ``all-port`` (capacity 1): every arc carries one chunk a round.

The search is exact; what it leaves out is shown not to change the optimum:

1. **Ignoring is always allowed.** The outcomes of a receipt include "keep the old partial"
   (the same as not sending), so only maximal port patterns are enumerated: maximal
   matchings (telephone), maximal sets of arcs with at most one out and one in per node
   (single-port), every arc (all-port).
2. **Canonical forms.** A state is the sorted tuple of ``(demanders, partials)`` per chunk
   (chunks with the same demanders are interchangeable), minimised over the automorphisms
   of the graph that keep the multiset of demanders.
3. **Dominance.** Under ``max`` every move is monotone (a larger partial sends and combines
   into larger partials, and combining dominates copying and ignoring), so only the
   pointwise-maximal outcomes and states are kept. Under ``sum`` the only order used is
   "every partial equal or *complete*": from a state whose partial is complete where another
   state's is not, drop every receipt into that complete partial and turn every receipt of
   it into a copy (dropping the other receipts into the same place): the result is equal or
   complete again at every place, and no double count arises. Nothing else is pruned (a
   larger incomplete partial may forbid a later combination).
4. **Hopeless states.** Searching up to ``R`` rounds, a state after round ``t`` is dropped
   when some demanded partial lacks a contribution that no partial within ``R - t`` hops
   holds (a partial moves one hop a round), or a node lacks more demanded chunks than it can
   receive in ``R - t`` rounds (one a round in single-port, one per neighbour in all-port).
   The search stops at the first finished state; in the last round it only asks, per port
   pattern, whether every receiver has an outcome that completes its demands (the receivers
   of one pattern choose independently), without forming the successors.
5. **Telephone.** Packets are unbounded, so the chunks are independent given the sequence
   of matchings. For ``reduce`` and ``allreduce`` all chunks have the same demanders: one
   chunk's optimal schedule, repeated for every chunk, is a schedule, and one chunk of any
   schedule is a one-chunk schedule, so the optimum is the one-chunk optimum. For
   ``reduce-scatter`` the state is, per owner, the antichain of partial vectors its chunk can
   reach under the matchings so far (again independent of ``K``).

:func:`replay` checks a schedule against the same rules (ports, copies, double counts,
demands) for the ``sum`` upper bound: every ``sum`` schedule is a ``max`` schedule, so the
``max`` optimum is a lower bound of the ``sum`` optimum, and a ``sum`` schedule of that
length closes it.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Iterator
from itertools import combinations, product
from typing import Any

import networkx as nx

Edge = tuple[int, int]
Chunk = tuple[int, ...]  # the partials of one chunk, per node


class BudgetError(Exception):
    """The search grew past its state or time budget."""


def bits(x: int) -> Iterator[int]:
    while x:
        low = x & -x
        yield low.bit_length() - 1
        x ^= low


class BruteForce:
    """The exact search of the module docstring for one instance."""

    def __init__(
        self,
        n: int,
        edges: Iterable[Edge],
        model: str,
        problem: str,
        k: int = 1,
        redop: str = "sum",
        root: int = 0,
        max_states: int = 300_000,
        seconds: float = 60.0,
    ) -> None:
        self.n, self.model, self.problem, self.k = n, model, problem, k
        self.sum = redop == "sum"
        self.full = (1 << n) - 1
        self.edges = sorted({(min(e), max(e)) for e in edges})
        self.nbrs = [
            sorted({b for a, b in self.edges if a == v} | {a for a, b in self.edges if b == v})
            for v in range(n)
        ]
        if problem == "reduce":
            self.demands = [1 << root] * k
        elif problem == "reduce-scatter":
            self.demands = [1 << i for i in range(n) for _ in range(k)]
        elif problem == "allreduce":
            self.demands = [self.full] * (n * k)
        else:
            raise ValueError(problem)
        self.max_states, self.deadline = max_states, time.monotonic() + seconds
        g = nx.Graph()
        g.add_nodes_from(range(n))
        g.add_edges_from(self.edges)
        self.dist = dict(nx.all_pairs_shortest_path_length(g))
        # receipts a node may take in one round (None: any number)
        self.per_node: list[int | None] = [
            1 if model == "single-port" else len(self.nbrs[v]) if model == "all-port" else None
            for v in range(n)
        ]
        wanted = sorted(self.demands)
        self.perms: list[list[int]] = []
        self.masks: list[list[int]] = []
        for iso in nx.algorithms.isomorphism.GraphMatcher(g, g).isomorphisms_iter():
            perm = [iso[v] for v in range(n)]
            table = [sum(1 << perm[v] for v in bits(m)) for m in range(1 << n)]
            if sorted(table[d] for d in self.demands) == wanted:
                self.perms.append(perm)
                self.masks.append(table)

    # ------------------------------------------------------------------ outcomes

    def outcomes(self, old: int, got: list[int]) -> list[int]:
        """The partials a node may end with, holding ``old`` and offered ``got``."""
        if not got:
            return [old]
        if not self.sum:  # combine everything: dominates copying and ignoring
            value = old
            for x in got:
                value |= x
            return [value]
        out = set()
        bases = [(old, got)] + [(g, got[:j] + got[j + 1 :]) for j, g in enumerate(got)]
        for base, rest in bases:
            for r in range(len(rest) + 1):
                for sub in combinations(rest, r):
                    acc = base
                    for x in sub:
                        if acc & x:
                            break
                        acc |= x
                    else:
                        out.add(acc)
        return [self.full] if self.full in out else sorted(out)

    def pack(self, vector: Iterable[int]) -> tuple[int, int]:
        """A vector of partials as one integer (``n`` bits a place) and the mask of the
        places that are not complete."""
        value = free = 0
        shift = 0
        for x in vector:
            value |= x << shift
            if x != self.full:
                free |= self.full << shift
            shift += self.n
        return value, free

    def maximal(self, items: Iterable[Any], flat: Any = None) -> list[Any]:
        """The items not dominated by another (module docstring, 3): under ``max`` no
        partial a superset, under ``sum`` every partial equal or complete (``flat`` gives
        the vector of partials of an item)."""
        key = flat or (lambda x: x)
        packed = [(self.pack(key(s)), s) for s in set(items)]
        packed.sort(key=lambda x: -x[0][0].bit_count())
        kept: list[tuple[int, int]] = []
        out = []
        for i, ((value, free), s) in enumerate(packed):
            if i % 512 == 0:
                self.check_budget(0)
            if self.sum:
                if any((value ^ v) & f == 0 for v, f in kept):
                    continue
            elif any(value & ~v == 0 for v, _ in kept):
                continue
            kept.append((value, free))
            out.append(s)
        return out

    # ------------------------------------------------------------------ chunked models

    def start(self) -> tuple[tuple[int, Chunk], ...]:
        return self.canon([(d, tuple(1 << v for v in range(self.n))) for d in self.demands])

    def canon(self, chunks: list[tuple[int, Chunk]]) -> tuple[tuple[int, Chunk], ...]:
        best = None
        n = self.n
        for perm, table in zip(self.perms, self.masks, strict=True):
            image = []
            for d, parts in chunks:
                new = [0] * n
                for v in range(n):
                    new[perm[v]] = table[parts[v]]
                image.append((table[d], tuple(new)))
            image.sort()
            key = tuple(image)
            if best is None or key < best:
                best = key
        assert best is not None
        return best

    def done(self, state: tuple[tuple[int, Chunk], ...]) -> bool:
        return all(parts[v] == self.full for d, parts in state for v in bits(d))

    def hopeless(self, state: tuple[tuple[int, Chunk], ...], rounds: int) -> bool:
        """Whether ``state`` cannot meet the demands in ``rounds`` more rounds: a missing
        contribution is held by no partial (a copy under ``sum`` may drop it) or is farther
        (in hops, one a round) from every partial holding it, or a node needs more chunks
        than it can receive."""
        missing = [0] * self.n
        for d, parts in state:
            for v in bits(d):
                lack = self.full & ~parts[v]
                if not lack:
                    continue
                missing[v] += 1
                for w in bits(lack):
                    near = [self.dist[u][v] for u in range(self.n) if parts[u] >> w & 1]
                    if not near or min(near) > rounds:  # under sum a copy may lose w
                        return True
        return any(
            cap is not None and m > cap * rounds
            for m, cap in zip(missing, self.per_node, strict=True)
        )

    def patterns(self) -> list[list[Edge]]:
        """The maximal port patterns as lists of arcs (module docstring, 1)."""
        arcs = [(a, b) for a in range(self.n) for b in self.nbrs[a]]
        if self.model == "all-port":
            return [arcs]
        if self.model != "single-port":
            raise ValueError(self.model)
        found: list[list[Edge]] = []

        def grow(i: int, outs: int, ins: int, chosen: list[Edge]) -> None:
            if i == len(arcs):
                extendable = any(not outs >> a & 1 and not ins >> b & 1 for a, b in arcs)
                if not extendable:
                    found.append(list(chosen))
                return
            a, b = arcs[i]
            if not outs >> a & 1 and not ins >> b & 1:
                grow(i + 1, outs | 1 << a, ins | 1 << b, [*chosen, (a, b)])
            grow(i + 1, outs, ins, chosen)

        grow(0, 0, 0, [])
        return found

    def receiver_options(
        self, state: tuple[tuple[int, Chunk], ...], b: int, senders: list[int]
    ) -> list[tuple[int, ...]]:
        """The vectors (per chunk) of partials ``b`` may end with, each sender on an arc
        into ``b`` carrying one chunk."""
        old = tuple(parts[b] for _, parts in state)
        per_sender = []
        for a in senders:
            useful = [
                j
                for j, (_, parts) in enumerate(state)
                if old[j] != self.full and (self.sum or parts[a] & ~old[j])
            ]
            per_sender.append(useful or [None])
        out: set[tuple[int, ...]] = set()
        for pick in product(*per_sender):
            got: dict[int, list[int]] = {}
            for a, j in zip(senders, pick, strict=True):
                if j is not None:
                    got.setdefault(j, []).append(state[j][1][a])
            choices = [self.outcomes(old[j], got.get(j, [])) for j in range(len(state))]
            out.update(product(*choices))
        return self.maximal(out)

    def successors(self, state: tuple[tuple[int, Chunk], ...], rounds: int) -> set[Any]:
        """The canonical successors that may still finish in ``rounds`` more rounds (a
        finished one alone, as soon as it is found)."""
        out = set()
        for pattern in self.pattern_list:
            into: dict[int, list[int]] = {}
            for a, b in pattern:
                into.setdefault(b, []).append(a)
            receivers = sorted(into)
            options = [self.receiver_options(state, b, into[b]) for b in receivers]
            if rounds == 0:  # only a finished successor counts: the receivers are independent
                last = self.finish(state, receivers, options)
                if last is not None:
                    return {last}
                continue
            for combo in product(*options):
                cols = [list(parts) for _, parts in state]
                for b, vec in zip(receivers, combo, strict=True):
                    for j, x in enumerate(vec):
                        cols[j][b] = x
                new = tuple((d, tuple(c)) for (d, _), c in zip(state, cols, strict=True))
                if self.done(new):
                    return {new}
                if not self.hopeless(new, rounds):
                    out.add(self.canon(list(new)))
                self.check_budget(len(out))
        return out

    def finish(
        self,
        state: tuple[tuple[int, Chunk], ...],
        receivers: list[int],
        options: list[list[tuple[int, ...]]],
    ) -> tuple[tuple[int, Chunk], ...] | None:
        """A finished successor of ``state`` under one port pattern, or None: every other
        node must be done already, and each receiver needs one option that completes every
        chunk it demands (the options of distinct receivers combine freely)."""
        cols = [list(parts) for _, parts in state]
        wanted = [[j for j, (d, _) in enumerate(state) if d >> v & 1] for v in range(self.n)]
        for v in range(self.n):
            if v not in receivers and any(cols[j][v] != self.full for j in wanted[v]):
                return None
        for b, vecs in zip(receivers, options, strict=True):
            good = [x for x in vecs if all(x[j] == self.full for j in wanted[b])]
            if not good:
                return None
            for j, x in enumerate(good[0]):
                cols[j][b] = x
        return tuple((d, tuple(c)) for (d, _), c in zip(state, cols, strict=True))

    def check_budget(self, size: int) -> None:
        if size > self.max_states or time.monotonic() > self.deadline:
            raise BudgetError(f"{size} states")

    # ------------------------------------------------------------------ telephone

    def matchings(self) -> list[list[Edge]]:
        found: list[list[Edge]] = []

        def grow(i: int, used: int, chosen: list[Edge]) -> None:
            if i == len(self.edges):
                if not any(not used >> a & 1 and not used >> b & 1 for a, b in self.edges):
                    found.append(list(chosen))
                return
            a, b = self.edges[i]
            if not used >> a & 1 and not used >> b & 1:
                grow(i + 1, used | 1 << a | 1 << b, [*chosen, (a, b)])
            grow(i + 1, used, chosen)

        grow(0, 0, [])
        return found

    def chunk_step(self, parts: Chunk, matching: list[Edge]) -> list[Chunk]:
        """One chunk's partial vectors after a round of calls ``matching``."""
        choices = [[x] for x in parts]
        for a, b in matching:
            choices[b] = self.outcomes(parts[b], [parts[a]])
            choices[a] = self.outcomes(parts[a], [parts[b]])
        return self.maximal(product(*choices))

    def tel_canon(self, classes: tuple[frozenset[Chunk], ...]) -> tuple[Any, ...]:
        """Per owner (or one class) the antichain, minimised over the automorphisms."""
        best = None
        n = self.n
        owners = self.problem == "reduce-scatter"
        for perm, table in zip(self.perms, self.masks, strict=True):
            image: list[Any] = [None] * len(classes)
            for i, cls in enumerate(classes):
                moved = []
                for parts in cls:
                    new = [0] * n
                    for v in range(n):
                        new[perm[v]] = table[parts[v]]
                    moved.append(tuple(new))
                image[perm[i] if owners else i] = tuple(sorted(moved))
            key = tuple(image)
            if best is None or key < best:
                best = key
        return best

    def tel_optimum(self, limit: int) -> int | None:
        start = tuple(1 << v for v in range(self.n))
        count = self.n if self.problem == "reduce-scatter" else 1
        dem = [1 << i for i in range(self.n)] if count > 1 else [self.demands[0]]
        frontier = {self.tel_canon(tuple(frozenset([start]) for _ in range(count)))}
        matchings = self.matchings()
        for t in range(limit + 1):
            for classes in frontier:
                if all(
                    any(all(p[v] == self.full for v in bits(d)) for p in cls)
                    for d, cls in zip(dem, classes, strict=True)
                ):
                    return t
            if t == limit:
                return None
            nxt = set()
            for classes in frontier:
                for m in matchings:
                    new = tuple(
                        frozenset(self.maximal(s for p in cls for s in self.chunk_step(p, m)))
                        for cls in classes
                    )
                    if all(
                        any(not self.hopeless(((d, p),), limit - t - 1) for p in cls)
                        for d, cls in zip(dem, new, strict=True)
                    ):
                        nxt.add(self.tel_canon(new))
                    self.check_budget(len(nxt))
            frontier = nxt
        return None

    # ------------------------------------------------------------------ search

    def optimum(self, limit: int) -> int | None:
        """The least rounds, or None when more than ``limit`` are needed.

        Raises
        ------
        BudgetError
            The search outgrew its budget.
        """
        if self.model == "telephone":
            return self.tel_optimum(limit)
        self.pattern_list = self.patterns()
        frontier = {self.start()}
        flat = lambda s: tuple(x for _, parts in s for x in parts)  # noqa: E731
        for t in range(limit + 1):
            if any(self.done(s) for s in frontier):
                return t
            if t == limit:
                return None
            nxt: set[Any] = set()
            for s in frontier:
                found = self.successors(s, limit - t - 1)
                if any(self.done(x) for x in found):
                    return t + 1
                nxt |= found
                self.check_budget(len(nxt))
            # the quadratic filter pays where it prunes: under max, on layers not too large
            frontier = set(self.maximal(nxt, flat)) if not self.sum and len(nxt) <= 20_000 else nxt
        return None


# ---------------------------------------------------------------------- replay


def replay(
    n: int,
    edges: Iterable[Edge],
    model: str,
    problem: str,
    k: int,
    redop: str,
    rounds: list[list[tuple[int, tuple[int, ...], list[int], str]]],
    root: int = 0,
) -> int | None:
    """The round after which a schedule meets every demand under the rules of the module
    docstring, or None when it breaks a rule or never does. A transmission is ``(sender,
    receivers, chunks, op)`` with chunks numbered as in :class:`BruteForce`."""
    full = (1 << n) - 1
    edge_set = {(min(e), max(e)) for e in edges}
    if problem == "reduce":
        dem = [1 << root] * k
    elif problem == "reduce-scatter":
        dem = [1 << i for i in range(n) for _ in range(k)]
    else:
        dem = [full] * (n * k)
    parts = [[1 << v for v in range(n)] for _ in dem]

    def finished() -> bool:
        return all(parts[c][v] == full for c, d in enumerate(dem) for v in bits(d))

    if finished():
        return 0
    for t, rnd in enumerate(rounds, start=1):
        sends: dict[int, int] = {}
        recvs: dict[int, int] = {}
        load: dict[Edge, int] = {}
        partner: dict[int, set[int]] = {}
        got: dict[tuple[int, int], list[tuple[int, str]]] = {}
        for a, receivers, chunks, op in rnd:
            if len(receivers) != 1:
                return None
            b = receivers[0]
            if (min(a, b), max(a, b)) not in edge_set or a == b:
                return None
            sends[a] = sends.get(a, 0) + 1
            recvs[b] = recvs.get(b, 0) + 1
            load[(a, b)] = load.get((a, b), 0) + len(chunks)
            partner.setdefault(a, set()).add(b)
            partner.setdefault(b, set()).add(a)
            for c in chunks:
                got.setdefault((b, c), []).append((parts[c][a], op))
        if model == "single-port" and (
            any(x > 1 for x in sends.values())
            or any(x > 1 for x in recvs.values())
            or any(x > 1 for x in load.values())
        ):
            return None
        if model == "all-port" and any(x > 1 for x in load.values()):
            return None
        if model == "telephone" and any(len(x) > 1 for x in partner.values()):
            return None
        for (b, c), items in got.items():
            copies = [x for x, op in items if op == "copy"]
            if len(copies) > 1:
                return None
            value = copies[0] if copies else parts[c][b]
            for x, op in items:
                if op == "copy":
                    continue
                if redop == "sum" and value & x:
                    return None
                value |= x
            parts[c][b] = value
        if finished():
            return t
    return None
