"""The tree packing of :mod:`gossipcert.finders.tree_allreduce` as a scheduling model: every
send of a chunk is an optional interval of one round on its arc.

The shape and the claims are those of :mod:`gossipcert.finders.tree_allreduce` (an
*upper-bound device only*); only the encoding differs. Its size does not grow with the
horizon ``R`` (the time-indexed model's does), and CP-SAT's scheduling propagators see the
ports as resources. It states the models whose rules are resources of one round:

- ``all-port``: the sends on arc ``(u, v)`` in a round are at most its capacity (a
  cumulative resource per arc);
- ``single-port`` with ``p = 1``: a node's sends are pairwise in distinct rounds, and so are
  its receipts (two no-overlap resources per node);
- ``half-duplex`` with ``p = 1``: a node's sends and receipts together are pairwise in
  distinct rounds (no swaps).

On the 5-node tree of the graph atlas' index 30, single-port ``p = 1`` with two chunks, it
finds 32 rounds in 0.2 s where the time-indexed model takes 12.5 s for 33 and leaves 32
undecided at a 20 s limit (``benchmarks/tree_allreduce.py``).

Variables (tuple-keyed dicts; rounds ``1..R``):

- ``root[c, v]``: ``v`` is chunk ``c``'s single root; ``swap[c, (a, b)]``: ``a < b`` are its
  two roots; ``inner[c, v]``: neither (``v`` sends its partial to a parent);
- ``parent[c, (u, v)]``: ``u`` sends its partial of ``c`` to ``v``; ``source[c, (u, v)]``:
  ``v`` receives the complete ``c`` from ``u``;
- ``up[c, v]``: the round ``v`` sends its partial (its swap's round for a swapped node; for
  the root, the first round it may send ``c`` complete, one after its last child's);
- ``down[c, v]``: the round ``v`` receives the complete ``c``; ``ready[c, v]``: the first
  round ``v`` may send it (``up`` for the root, ``up + 1`` after a swap, ``down + 1`` else).

Constraint families: one root or one swap per chunk, every node ``inner`` or a root with
one parent each, one source each but the roots; a child's ``up`` before its parent's
(``parent[c, (u, v)] => up[c, u] + 1 <= up[c, v]``); the ends of a swap in one round; a
source ready before the receipt (``source[c, (u, v)] => down[c, v] >= ready[c, u]``); the
resources above; the symmetry breaking of :mod:`gossipcert.finders.tree_allreduce`. On
request (``uniform``), the restriction :func:`same_shape` (every chunk but the last
``uniform`` has chunk 0's root or swap, parents and sources), the chunks of that shape in
increasing rounds of completion, and only the free chunks ordered by their keys.

References
----------
.. [1] P. Baptiste, C. Le Pape and W. Nuijten, "Constraint-based scheduling", Kluwer, 2001
   (no-overlap and cumulative resources).
.. [2] Google OR-Tools CP-SAT, https://github.com/google/or-tools.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from gossipcert.instance import Instance
from gossipcert.models import rules_of
from gossipcert.schedule import Round, Schedule, Transmission
from gossipcert.symmetry.automorphisms import automorphism_generators, orbit_roots

if TYPE_CHECKING:
    from ortools.sat.python import cp_model


def handles(instance: Instance) -> bool:
    """Whether the model's rules are the resources of the module docstring.

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> handles(parse_instance("ring:4", "single-port", "allreduce"))
    True
    >>> handles(parse_instance("ring:4", "telephone", "allreduce"))
    False
    """
    model = instance.model
    rules = rules_of(model.kind)
    return (
        rules.one_port
        and rules.point_to_point
        and not rules.two_way_calls
        and (model.packet_cap == 1)
    )


def order_chunks(
    m: cp_model.CpModel,
    instance: Instance,
    root: Any,
    key: list[Any],
    uniform: int | None = None,
) -> None:
    """The symmetry breaking both packing models share: the chunks' ``key`` expressions
    nondecreasing (from chunk 1 when the graph has automorphisms: chunk 0 is fixed instead),
    and chunk 0's root (``root[0, v]``) the least node of its orbit under the automorphisms.
    Every chunk has the same demands, so renumbering the chunks, or mapping a schedule by an
    automorphism, keeps it a schedule.

    With ``uniform`` (:func:`same_shape`: the chunks before the last ``uniform`` share one
    shape) only those last chunks, which renumbering among themselves keeps free, are ordered;
    an automorphism maps the shared shape to one shape, so chunk 0's root is still fixed."""
    gens = automorphism_generators(instance)
    first = 1 if gens else 0
    chunks = range(len(key))
    ordered = chunks[first:-1] if uniform is None else chunks[len(key) - uniform : -1]
    for c in ordered:
        m.add(key[c] <= key[c + 1])
    if gens:
        least = orbit_roots(list(range(instance.n)), lambda v: [p[v] for p in gens])
        for v in range(instance.n):
            if least[v] != v:
                m.add(root[0, v] == 0)


def same_shape(m: cp_model.CpModel, shapes: list[list[Any]], uniform: int) -> None:
    """All chunks but the last ``uniform`` take chunk 0's shape: ``shapes[c]`` lists chunk
    ``c``'s choices (its root or swap, every node's parent and source), equal entry by entry.

    A restriction, not a relaxation: it narrows the search to packings of one shape and
    ``uniform`` free chunks, where CP-SAT answers in a second when a packing of that kind
    exists (atlas 35, single-port, two chunks: nine chunks of one shape, the path 3-2-1-0-4
    swapping on 0-1, and one free chunk pack into 22 rounds; the unrestricted model finds no
    packing in 120 s). An infeasible answer says nothing about the other packings."""
    for c in range(1, len(shapes) - uniform):
        for a, b in zip(shapes[0], shapes[c], strict=True):
            m.add(a == b)


class IntervalPacking:
    """The scheduling model of the module docstring for ``horizon`` rounds; the instance
    is one :func:`gossipcert.finders.tree_allreduce.check_applies` accepts and
    :func:`handles`."""

    def __init__(
        self, instance: Instance, horizon: int, swaps: bool, uniform: int | None = None
    ) -> None:
        from ortools.sat.python import cp_model

        self.instance, self.horizon = instance, horizon
        g, n = instance.graph, instance.n
        rules = rules_of(instance.model.kind)
        self.m = m = cp_model.CpModel()
        chunks, nodes = range(instance.n_packets), range(n)
        self.chunks = chunks
        arcs = [(u, v) for u in nodes for v in sorted(g.adj[u]) if v != u]
        edges = (
            sorted({(min(u, v), max(u, v)) for u, v in arcs}) if not rules.send_or_receive else []
        )
        if not swaps:
            edges = []
        self.arcs, self.edges = arcs, edges
        bool_var, int_var = m.new_bool_var, m.new_int_var
        self.root = {(c, v): bool_var(f"root{c},{v}") for c in chunks for v in nodes}
        self.swap = {(c, e): bool_var(f"swap{c},{e}") for c in chunks for e in edges}
        self.inner = {(c, v): bool_var(f"inner{c},{v}") for c in chunks for v in nodes}
        self.parent = {(c, a): bool_var(f"parent{c},{a}") for c in chunks for a in arcs}
        self.source = {(c, a): bool_var(f"source{c},{a}") for c in chunks for a in arcs}
        self.up = {(c, v): int_var(1, horizon, f"up{c},{v}") for c in chunks for v in nodes}
        self.down = {(c, v): int_var(1, horizon, f"down{c},{v}") for c in chunks for v in nodes}
        ready = {(c, v): int_var(1, horizon + 1, f"ready{c},{v}") for c in chunks for v in nodes}
        # the sends of a round, per resource: (sender, receiver) -> intervals
        self.sends: dict[tuple[int, int], list[Any]] = {a: [] for a in arcs}
        for c in chunks:
            m.add_exactly_one([self.root[c, v] for v in nodes] + [self.swap[c, e] for e in edges])
            for v in nodes:
                swapped = [self.swap[c, e] for e in edges if v in e]
                m.add_exactly_one([self.root[c, v], self.inner[c, v], *swapped])
                outs = [self.parent[c, (v, w)] for w in g.adj[v] if w != v]
                ins = [self.source[c, (u, v)] for u in g.adj[v] if u != v]
                m.add(sum(outs) == self.inner[c, v])
                m.add(sum(ins) == self.inner[c, v])
                up, down = self.up[c, v], self.down[c, v]
                m.add(ready[c, v] == up).only_enforce_if(self.root[c, v])
                m.add(ready[c, v] == down + 1).only_enforce_if(self.inner[c, v])
                for s in swapped:
                    m.add(ready[c, v] == up + 1).only_enforce_if(s)
            for e in edges:
                a, b = e
                s = self.swap[c, e]
                m.add(self.up[c, a] == self.up[c, b]).only_enforce_if(s)
                for arc in (e, (b, a)):
                    self.sends[arc].append(
                        m.new_optional_fixed_size_interval_var(self.up[c, a], 1, s, f"sw{c},{arc}")
                    )
            for u, v in arcs:
                p, q = self.parent[c, (u, v)], self.source[c, (u, v)]
                m.add(self.up[c, u] + 1 <= self.up[c, v]).only_enforce_if(p)
                m.add(self.down[c, v] >= ready[c, u]).only_enforce_if(q)
                self.sends[u, v].append(
                    m.new_optional_fixed_size_interval_var(self.up[c, u], 1, p, f"r{c},{u},{v}")
                )
                self.sends[u, v].append(
                    m.new_optional_fixed_size_interval_var(self.down[c, v], 1, q, f"c{c},{u},{v}")
                )
        for v in nodes:
            out = [iv for (u, _), ivs in self.sends.items() if u == v for iv in ivs]
            into = [iv for (_, w), ivs in self.sends.items() if w == v for iv in ivs]
            if rules.send_or_receive:
                m.add_no_overlap(out + into)
            else:
                m.add_no_overlap(out)
                m.add_no_overlap(into)
        if uniform is not None:
            same_shape(m, [self._shape(c) for c in chunks], uniform)
            self._one_after_another(len(chunks) - uniform)
        self._symmetry(uniform)

    def _shape(self, c: int) -> list[Any]:
        """Chunk ``c``'s choices: its root or swap, every arc as parent and as source."""
        n = self.instance.n
        return (
            [self.root[c, v] for v in range(n)]
            + [self.swap[c, e] for e in self.edges]
            + [self.parent[c, a] for a in self.arcs]
            + [self.source[c, a] for a in self.arcs]
        )

    def _one_after_another(self, block: int) -> None:
        """Chunks ``0 .. block - 1`` of one shape complete in increasing rounds: the round of
        their swap, or their root's ``up``. Sound: lowering a root's ``up`` to one after its
        last child's send keeps a packing, and then two chunks of one root differ there (the
        root receives one send a round), as two swaps on one edge do (its ends send one a
        round); renumbering the chunks of one shape keeps the shape."""
        m, n = self.m, self.instance.n
        done = [m.new_int_var(1, self.horizon, f"complete{c}") for c in range(block)]
        for c in range(block):
            for v in range(n):
                m.add(done[c] == self.up[c, v]).only_enforce_if(self.root[c, v])
            for e in self.edges:
                m.add(done[c] == self.up[c, e[0]]).only_enforce_if(self.swap[c, e])
        for c in range(1, block):
            m.add(done[c - 1] < done[c])

    def _symmetry(self, uniform: int | None) -> None:
        """As :mod:`gossipcert.finders.tree_allreduce`: chunk keys nondecreasing from chunk
        1 (with ``uniform``, among the free chunks), chunk 0's single root the least node of
        its orbit."""
        m, n = self.m, self.instance.n
        key = [
            sum(v * self.root[c, v] for v in range(n))
            + sum((n + i) * self.swap[c, e] for i, e in enumerate(self.edges))
            for c in self.chunks
        ]
        order_chunks(m, self.instance, self.root, key, uniform)

    def decode(self, solver: cp_model.CpSolver) -> Schedule:
        """The schedule of a solution: one transmission per arc, round and op."""
        masks: dict[tuple[int, tuple[int, int], str], int] = {}

        def put(t: int, arc: tuple[int, int], op: str, c: int) -> None:
            masks[t, arc, op] = masks.get((t, arc, op), 0) | 1 << c

        value, true = solver.value, solver.boolean_value
        for c in self.chunks:
            for e in self.edges:
                if true(self.swap[c, e]):
                    t = value(self.up[c, e[0]])
                    put(t, e, "reduce", c)
                    put(t, (e[1], e[0]), "reduce", c)
            for u, v in self.arcs:
                if true(self.parent[c, (u, v)]):
                    put(value(self.up[c, u]), (u, v), "reduce", c)
                if true(self.source[c, (u, v)]):
                    put(value(self.down[c, v]), (u, v), "copy", c)
        last = max((t for t, _, _ in masks), default=0)
        rounds: list[list[Transmission]] = [[] for _ in range(last)]
        for (t, (u, v), op), mask in sorted(masks.items()):
            rounds[t - 1].append(Transmission(u, (v,), mask, op))
        out: list[Round] = [tuple(r) for r in rounds]
        return Schedule(tuple(out))
