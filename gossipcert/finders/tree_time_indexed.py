"""The tree packing of :mod:`gossipcert.finders.tree_allreduce` as a time-indexed CP-SAT model:
a Boolean per chunk, arc and round. It states every model the finder handles; the shape, the
rules of a round, the claims (an *upper-bound device only*) and the symmetry breaking are
those of :mod:`gossipcert.finders.tree_allreduce`.

Variables of the time-indexed model (CP-SAT, in tuple-keyed dicts; ``t = 1..R`` is a round,
``0`` the start):

- ``root[c, v]``: ``v`` is chunk ``c``'s single root;
- ``swap[c, (a, b), t]``: ``a < b`` are ``c``'s two roots and swap partials in round ``t``;
- ``red[c, u, v, t]``: ``u`` sends its partial of ``c`` to its parent ``v`` in round ``t``;
- ``cp[c, u, v, t]``: ``u`` sends the complete ``c`` to ``v`` in round ``t``;
- ``sent[c, v, t]``: ``v`` has sent its partial of ``c`` (to a parent or in a swap) by round
  ``t``; ``swapped[c, v, t]``: by a swap; ``got[c, v, t]``: ``v`` has received ``c``'s copy;
- ``late[c, v, t]``: how many children send ``c`` to ``v`` after round ``t``;
- ``done[c, v, t]``: ``v`` holds ``c`` complete after round ``t``;
- ``port[u, v, t, op]`` (one-port models): the transmission ``u -> v`` with ``op`` in round
  ``t``; ``call[(a, b), t]`` (telephone): the call ``{a, b}`` in round ``t``;

Constraint families: one root or one swap per chunk; every node but the roots sends once
(``sent[c, v, R] = 1 - root[c, v]``) and receives one copy; a child's send precedes its
parent's (``red[c, u, v, t] + sent[c, v, t] <= 1``); ``done`` only for a root after its last
child (``done[c, v, t] = 1`` forces ``late[c, v, t] = 0``), for a swapped node or after a
copy; a copy's sender is done the round before; every chunk done everywhere at ``R`` (or
``fin``); the model's rules of a round above. On request (``uniform``), a restriction: every
chunk but the last ``uniform`` has chunk 0's shape (its root or swap edge, and the rounds
summed out of every ``red`` and ``cp``: :func:`~gossipcert.finders.tree_intervals.same_shape`).

References
----------
.. [1] Google OR-Tools CP-SAT, https://github.com/google/or-tools.
"""

from __future__ import annotations

from typing import Any

from ortools.sat.python import cp_model

from gossipcert import graphs
from gossipcert.finders import tree_intervals
from gossipcert.instance import Instance
from gossipcert.schedule import Round, Schedule, Transmission

#: the ops of a transmission, as the packing numbers them
REDUCE, COPY = 0, 1


class TimeIndexedPacking:
    """The CP-SAT model of the module docstring for a horizon of ``horizon`` rounds."""

    def __init__(
        self, instance: Instance, horizon: int, swaps: bool, uniform: int | None = None
    ) -> None:
        self.instance, self.horizon = instance, horizon
        g, n, model = instance.graph, instance.n, instance.model
        rules = model.rules
        self.m = m = cp_model.CpModel()
        self.chunks = chunks = range(instance.n_packets)
        self.rounds = rounds = range(1, horizon + 1)
        self.arcs = arcs = [(u, v) for u in range(n) for v in sorted(g.adj[u]) if v != u]
        self.edges = edges = sorted({(min(u, v), max(u, v)) for u, v in arcs})
        nbrs = {v: [u for u in sorted(g.adj[v]) if u != v] for v in range(n)}
        swaps = swaps and not rules.send_or_receive
        nv = range(n)
        # root[c, v]: v is chunk c's single root
        self.root = {(c, v): m.new_bool_var(f"root{c},{v}") for c in chunks for v in nv}
        # swap[c, e, t]: the ends of edge e are c's two roots and swap partials in round t
        self.swap = {
            (c, e, t): m.new_bool_var(f"swap{c},{e},{t}")
            for c in chunks
            for e in (edges if swaps else [])
            for t in rounds
        }
        # red[c, u, v, t] / cp[c, u, v, t]: u sends its partial / the complete chunk c to v
        self.red = {
            (c, a, t): m.new_bool_var(f"red{c},{a},{t}")
            for c in chunks
            for a in arcs
            for t in rounds
        }
        self.cp = {
            (c, a, t): m.new_bool_var(f"cp{c},{a},{t}")
            for c in chunks
            for a in arcs
            for t in rounds
        }
        # done[c, v, t]: v holds c complete after round t
        self.done = {
            (c, v, t): m.new_bool_var(f"done{c},{v},{t}")
            for c in chunks
            for v in nv
            for t in range(horizon + 1)
        }
        for c in chunks:
            m.add(
                sum(self.root[c, v] for v in nv)
                + sum(self.swap[c, e, t] for e in edges for t in rounds if (c, e, t) in self.swap)
                == 1
            )
            for v in nv:
                self._chunk_at(c, v, nbrs[v])
        self._ports(rules, model)
        if uniform is not None:
            tree_intervals.same_shape(m, [self._shape(c) for c in chunks], uniform)
        self._symmetry(uniform)

    def _swaps_of(self, c: int, v: int, t: int) -> list[Any]:
        """The swap variables of chunk ``c`` in round ``t`` with ``v`` as one end."""
        return [self.swap[c, e, t] for e in self.edges if v in e and (c, e, t) in self.swap]

    def _chunk_at(self, c: int, v: int, nbrs: list[int]) -> None:
        """The in-tree, out-tree and completion rules of chunk ``c`` at node ``v``."""
        m, horizon, k = self.m, self.horizon, len(nbrs)
        # sent[t] (v has sent its partial by round t), swapped[t], got[t] (v has its copy),
        # late[t] (children sending to v after round t): running sums over the rounds
        sent = [m.new_int_var(0, 1, f"sent{c},{v},{t}") for t in range(horizon + 1)]
        swapped = [m.new_int_var(0, 1, f"swapped{c},{v},{t}") for t in range(horizon + 1)]
        got = [m.new_int_var(0, 1, f"got{c},{v},{t}") for t in range(horizon + 1)]
        late = [m.new_int_var(0, k, f"late{c},{v},{t}") for t in range(horizon + 1)]
        m.add(sent[0] == 0)
        m.add(swapped[0] == 0)
        m.add(got[0] == 0)
        m.add(late[horizon] == 0)
        for t in self.rounds:
            swaps = self._swaps_of(c, v, t)
            m.add(swapped[t] == swapped[t - 1] + sum(swaps))
            m.add(sent[t] == sent[t - 1] + sum(self.red[c, (v, w), t] for w in nbrs) + sum(swaps))
            m.add(got[t] == got[t - 1] + sum(self.cp[c, (u, v), t] for u in nbrs))
            m.add(late[t - 1] == late[t] + sum(self.red[c, (u, v), t] for u in nbrs))
            for u in nbrs:
                # a child's send precedes its parent's; a copy's sender was done before
                m.add(self.red[c, (u, v), t] + sent[t] <= 1)
                m.add(self.cp[c, (u, v), t] <= self.done[c, u, t - 1])
        root = self.root[c, v]
        m.add(sent[horizon] + root == 1)  # every node but the root sends once
        m.add(got[horizon] + root + swapped[horizon] == 1)  # and the others get one copy
        for t in range(horizon + 1):
            done = self.done[c, v, t]
            m.add(done <= root + swapped[t] + got[t])
            m.add(late[t] <= k * (1 - done))  # complete after the last child's round

    def _ports(self, rules: Any, model: Any) -> None:
        """The model's rules of one round (module docstring)."""
        m, g, n = self.m, self.instance.graph, self.instance.n
        cap = model.packet_cap if model.packet_cap is not None else len(self.chunks)
        for t in self.rounds:
            load: dict[tuple[tuple[int, int], int], list[Any]] = {}
            for a in self.arcs:
                e = (min(a), max(a))
                load[a, REDUCE] = [self.red[c, a, t] for c in self.chunks] + [
                    self.swap[c, e, t] for c in self.chunks if (c, e, t) in self.swap
                ]
                load[a, COPY] = [self.cp[c, a, t] for c in self.chunks]
            if rules.arc_capacities:
                for a in self.arcs:
                    arc_cap = model.capacity or graphs.capacity(g, *a)
                    m.add(sum(load[a, REDUCE]) + sum(load[a, COPY]) <= arc_cap)
            elif rules.two_way_calls:
                # call[e, t]: the call {a, b} in round t; the calls form a matching
                call = {e: m.new_bool_var(f"call{e},{t}") for e in self.edges}
                for v in range(n):
                    m.add(sum(call[e] for e in self.edges if v in e) <= 1)
                for a in self.arcs:
                    m.add(sum(load[a, REDUCE]) + sum(load[a, COPY]) <= cap * call[min(a), max(a)])
            else:
                # port[a, op]: a transmission a node sends in round t on arc a, and its op
                ports = model.ports
                port = {
                    (a, op): m.new_bool_var(f"port{a},{op},{t}")
                    for a in self.arcs
                    for op in (REDUCE, COPY)
                }
                for (a, op), x in port.items():
                    m.add(sum(load[a, op]) <= cap * x)
                if ports > 1:  # one transmission an arc
                    for a in self.arcs:
                        m.add(port[a, REDUCE] + port[a, COPY] <= 1)
                for v in range(n):
                    out = [x for ((u, _), _), x in port.items() if u == v]
                    into = [x for ((_, w), _), x in port.items() if w == v]
                    if rules.send_or_receive:
                        m.add(sum(out) + sum(into) <= 1)
                    else:
                        m.add(sum(out) <= ports)
                        m.add(sum(into) <= ports)

    def _shape(self, c: int) -> list[Any]:
        """Chunk ``c``'s choices: its root, its swap's edge, every arc as parent and source."""
        rounds, n = self.rounds, self.instance.n
        edges = self.edges if self.swap else []
        return (
            [self.root[c, v] for v in range(n)]
            + [sum(self.swap[c, e, t] for t in rounds) for e in edges]
            + [sum(self.red[c, a, t] for t in rounds) for a in self.arcs]
            + [sum(self.cp[c, a, t] for t in rounds) for a in self.arcs]
        )

    def _symmetry(self, uniform: int | None) -> None:
        """Chunk keys nondecreasing from chunk 1 (with ``uniform``, among the free chunks);
        chunk 0's single root an orbit's least node."""
        m, n = self.m, self.instance.n
        key = []
        for c in self.chunks:
            terms = [v * self.root[c, v] for v in range(n)]
            terms += [
                (n + i) * self.swap[c, e, t]
                for i, e in enumerate(self.edges)
                for t in self.rounds
                if (c, e, t) in self.swap
            ]
            key.append(sum(terms))
        tree_intervals.order_chunks(m, self.instance, self.root, key, uniform)

    def require_done(self) -> None:
        """Every chunk complete at every node after the last round."""
        for c in self.chunks:
            for v in range(self.instance.n):
                self.m.add(self.done[c, v, self.horizon] == 1)

    def decode(self, solver: cp_model.CpSolver) -> Schedule:
        """The schedule of a solution: one transmission per arc, round and op."""
        out: list[Round] = []
        for t in self.rounds:
            rnd = []
            for a in self.arcs:
                e = (min(a), max(a))
                for op, name in ((REDUCE, "reduce"), (COPY, "copy")):
                    mask = 0
                    for c in self.chunks:
                        on = self.red[c, a, t] if op == REDUCE else self.cp[c, a, t]
                        both = self.swap.get((c, e, t)) if op == REDUCE else None
                        if solver.boolean_value(on) or (
                            both is not None and solver.boolean_value(both)
                        ):
                            mask |= 1 << c
                    if mask:
                        rnd.append(Transmission(a[0], (a[1],), mask, name))
            out.append(tuple(rnd))
        while out and not out[-1]:
            out.pop()
        return Schedule(tuple(out))
