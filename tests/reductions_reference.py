"""An exhaustive search over reduction schedules on tiny graphs, sharing no code with gossipcert.

It works on plain edge lists. A state is, per node and chunk, the set of contributions (a
bitmask over nodes) folded into that node's partial result of the chunk. Every node
contributes to every chunk. Chunks, demands:

- ``reduce`` (root 0): ``K`` chunks, node 0 needs each of them whole;
- ``reduce-scatter``: ``n K`` chunks, chunk ``i K + k`` belongs to node ``i``, who needs it whole;
- ``allreduce``: the same chunks, every node needs every one of them whole.

The rounds of each model are enumerated in full:

- ``telephone`` (unbounded): the calls form a matching (any, not only maximal ones); each
  side of a call sends any set of chunks, each with ``copy`` or ``reduce``;
- ``single-port`` (``p = 1``): every node sends at most one chunk to one neighbour and
  receives at most one;
- ``all-port`` (capacity 1): every arc carries at most one chunk.

A receipt either replaces the receiver's partial (copy) or is united with it (reduce); under
``sum`` a reduce of two sets that meet is forbidden, under ``max`` it is allowed. All receipts
of a round read the partials before the round.

Under ``max`` every move is monotone (a reduce yields a superset of a copy, and more
contributions never forbid a later move), so only ``reduce`` is tried, an unbounded
telephone call sends everything, and only the pointwise-maximal states of each round are
kept. Under ``sum`` nothing is pruned: every subset, every op, every state (tiny instances
only).
"""

from __future__ import annotations

from collections.abc import Iterator
from itertools import product

Edge = tuple[int, int]


def chunks_and_demands(n: int, problem: str, k: int) -> tuple[int, list[list[int]]]:
    """The number of chunks and, per node, the chunks it needs whole."""
    if problem == "reduce":
        return k, [list(range(k)) if v == 0 else [] for v in range(n)]
    units = n * k
    if problem == "reduce-scatter":
        return units, [[v * k + j for j in range(k)] for v in range(n)]
    if problem == "allreduce":
        return units, [list(range(units)) for _ in range(n)]
    raise ValueError(problem)


def matchings(edges: list[Edge]) -> list[list[Edge]]:
    """Every matching (including the empty one) of the edge list."""
    out: list[list[Edge]] = []

    def grow(i: int, used: set[int], chosen: list[Edge]) -> None:
        if i == len(edges):
            out.append(list(chosen))
            return
        grow(i + 1, used, chosen)
        u, v = edges[i]
        if u not in used and v not in used:
            grow(i + 1, used | {u, v}, [*chosen, (u, v)])

    grow(0, set(), [])
    return out


class Reference:
    """Exhaustive search for the least rounds of a reduction (see the module docstring)."""

    def __init__(
        self, n: int, edges: list[Edge], model: str, problem: str, k: int, redop: str
    ) -> None:
        self.n, self.model, self.redop = n, model, redop
        self.edges = [(min(e), max(e)) for e in edges]
        self.arcs = [(u, v) for u, v in self.edges] + [(v, u) for u, v in self.edges]
        self.nbrs = {v: sorted({b for a, b in self.arcs if a == v}) for v in range(n)}
        self.units, self.demands = chunks_and_demands(n, problem, k)
        self.full = (1 << n) - 1
        self.matchings = matchings(self.edges)

    def start(self) -> tuple[int, ...]:
        return tuple(1 << v for v in range(self.n) for _ in range(self.units))

    def done(self, state: tuple[int, ...]) -> bool:
        u = self.units
        return all(state[v * u + c] == self.full for v in range(self.n) for c in self.demands[v])

    def receive(self, mine: int, got: int, op: str) -> int | None:
        """The receiver's new partial, or None for a forbidden double count."""
        if op == "copy":
            return got
        if self.redop == "sum" and mine & got:
            return None
        return mine | got

    # ------------------------------------------------------------------- rounds

    def deliveries(self, state: tuple[int, ...]) -> Iterator[list[tuple[int, int, int, str]]]:
        """Every round as a list of receipts ``(sender, receiver, chunk, op)``."""
        units = range(self.units)
        ops = ("reduce",) if self.redop == "max" else ("copy", "reduce")
        held = lambda v: [c for c in units if state[v * self.units + c]]  # noqa: E731

        def useful(a: int, b: int, c: int) -> bool:
            """Under max a chunk that adds nothing to its receiver changes no state."""
            u = self.units
            return self.redop == "sum" or bool(state[a * u + c] & ~state[b * u + c])

        if self.model == "telephone":
            for calls in self.matchings:
                sides = []
                for u, v in calls:
                    for a, b in ((u, v), (v, u)):
                        if self.redop == "max":  # monotone: send everything
                            sides.append(
                                [[(a, b, c, "reduce") for c in held(a) if useful(a, b, c)]]
                            )
                            continue
                        choice = [[None, *ops] for _ in held(a)]
                        sides.append(
                            [
                                [(a, b, c, op) for c, op in zip(held(a), pick, strict=True) if op]
                                for pick in product(*choice)
                            ]
                        )
                for combo in product(*sides):
                    yield [r for side in combo for r in side]
        elif self.model == "single-port":
            options = []
            for a in range(self.n):
                mine: list[tuple[int, int, int, str] | None] = [None]
                mine += [
                    (a, b, c, op)
                    for b in self.nbrs[a]
                    for c in held(a)
                    for op in ops
                    if useful(a, b, c)
                ]
                options.append(mine)
            for combo in product(*options):
                sends = [s for s in combo if s is not None]
                receivers = [s[1] for s in sends]
                if len(set(receivers)) == len(receivers):
                    yield sends
        elif self.model == "all-port":
            options = []
            for a, b in self.arcs:
                options.append(
                    [None] + [(a, b, c, op) for c in held(a) for op in ops if useful(a, b, c)]
                )
            for combo in product(*options):
                yield [s for s in combo if s is not None]
        else:
            raise ValueError(self.model)

    def successors(self, state: tuple[int, ...]) -> set[tuple[int, ...]]:
        out: set[tuple[int, ...]] = set()
        u = self.units
        for receipts in self.deliveries(state):
            new = list(state)
            copied: set[int] = set()
            ok = True
            # copies first (a copy and reduces into one place: the reduces fold into the copy)
            for a, b, c, op in sorted(receipts, key=lambda r: r[3] != "copy"):
                i = b * u + c
                if op == "copy":
                    if i in copied:
                        ok = False
                        break
                    copied.add(i)
                value = self.receive(new[i], state[a * u + c], op)
                if value is None:
                    ok = False
                    break
                new[i] = value
            if ok:
                out.add(tuple(new))
        return out

    def optimum(self, limit: int = 12) -> int:
        """The least number of rounds (ValueError beyond ``limit``)."""
        frontier = {self.start()}
        for t in range(limit + 1):
            if any(self.done(s) for s in frontier):
                return t
            nxt: set[tuple[int, ...]] = set()
            for s in frontier:
                nxt |= self.successors(s)
            frontier = maximal(nxt) if self.redop == "max" else nxt
        raise ValueError(f"no schedule within {limit} rounds")


def maximal(states: set[tuple[int, ...]]) -> set[tuple[int, ...]]:
    """The states not pointwise below another one (each partial a subset)."""
    ordered = sorted(states, key=lambda s: -sum(x.bit_count() for x in s))
    kept: list[tuple[int, ...]] = []
    for s in ordered:
        if not any(all(x & ~y == 0 for x, y in zip(s, k, strict=True)) for k in kept):
            kept.append(s)
    return set(kept)


def reference_optimum(
    n: int, edges: list[Edge], model: str, problem: str, k: int = 1, redop: str = "max"
) -> int:
    """The least rounds of a reduction on ``0..n-1`` with ``edges``, by exhaustive search."""
    return Reference(n, edges, model, problem, k, redop).optimum()
