"""Palindromic schedule search: gossip schedules that read the same backwards, up to a map.

Telephone gossip is symmetric in time. A call sequence read backwards moves every packet
along the same edges in the opposite order, so a gossip schedule reversed is again one; and
an automorphism ``phi`` of the graph maps a gossip schedule to a gossip schedule. This
module looks for schedules that are their own reversal up to ``phi``: with ``h = R // 2``,

    round ``R + 1 - t`` is ``phi`` (round ``t``), for ``t = 1, ..., h``,

and, when ``R`` is odd, a free middle round ``h + 1``. Only the first ``h`` (or ``h + 1``)
rounds are unknowns, and the demand "every packet reaches every node" becomes a meeting
condition after those rounds, so the formula is that of a half-length schedule. It is a
schedule *finder*: "satisfiable" gives a schedule, expanded and judged by
:func:`gossipcert.simulate.simulate`; "unsatisfiable" only says that no schedule of that
length is a palindrome up to ``phi``, nothing about the instance.

Model rules (telephone, unbounded packets, gossip):

- the calls of a round form a matching of the graph; a call ``{u, v}`` sends everything
  ``u`` knows to ``v`` and back;
- packet ``p`` is held by its origin ``o(p)`` before round 1; knowledge only grows; a
  packet learnt in round ``t`` can be forwarded from round ``t + 1``;
- every node must know every packet after the last round.

Why meeting suffices (and is needed). Write ``h'`` for the number of free rounds (``h``,
or ``h + 1`` with the middle round) and ``K_t(v)`` for what ``v`` knows after round ``t``
of the free rounds. Packet ``p`` reaches ``q`` by round ``R`` exactly when a
time-respecting path carries it from ``o(p)`` to some ``m`` within the first ``h'`` rounds
and from ``m`` to ``q`` within the last ``h`` (split the path after round ``h'``). The last
``h`` rounds are ``phi(M_h), ..., phi(M_1)``; mapping a path through them by ``phi^-1`` and
reading it backwards gives a path from ``phi^-1(q)`` to ``phi^-1(m)`` through ``M_1, ...,
M_h`` in order. So, with ``m' = phi^-1(m)`` and ``q' = phi^-1(q)``::

    p reaches q  <=>  some m' has  p in K_h'(phi(m'))  and  packet(q') in K_h(m').

The schedule gossips exactly when this holds for every packet ``p`` and node ``q'``
(``q'`` runs over all nodes as ``q`` does). With ``R`` even and ``phi`` the identity,
round ``h + 1`` repeats round ``h``, which teaches nothing, so only maps that move some
edge are worth asking.

Variables (PySAT ``IDPool``, tuple keys; constants where the answer is forced):

- ``("call", u, v, t)`` with ``u < v``: the edge ``{u, v}`` is a call in free round ``t``;
- ``("know", v, p, t)``: ``v`` knows packet ``p`` after free round ``t`` (only when
  ``dist(v, o(p)) <= t``; before that it is the constant False, and round 0 is a constant);
- ``("via", v, p, t, u)``: ``v`` learns ``p`` in round ``t`` from its neighbour ``u``;
- ``("meet", p, q, m)``: packet ``p`` meets node ``q``'s packet at ``m`` (the ``m'`` above).

Constraint families:

- *matching*: at most one call at each node in each free round;
- *support*: ``know(v, p, t) -> know(v, p, t-1) or OR_u via(v, p, t, u)``, and each ``via``
  implies its call and the partner's knowledge after round ``t - 1`` (only this direction:
  the demand asks for knowledge, so a model may under-report it but never over-report);
- *equal*: a call leaves both ends with the same knowledge (implied, it helps the solver);
- *meeting*: for every packet ``p`` and node ``q``, ``OR_m meet(p, q, m)``, and
  ``meet(p, q, m) -> know(phi(m), p, h') and know(m, packet(q), h)``.

References
----------
.. [1] R. Beier and J. F. Sibeyn, "A powerful heuristic for telephone gossiping", SIROCCO
   2000 (the open instances of Tables 5 and 6; periodic matching sequences).
.. [2] S. M. Hedetniemi, S. T. Hedetniemi and A. L. Liestman, "A survey of gossiping and
   broadcasting in communication networks", Networks 18 (1988) 319-349 (a gossip schedule
   read backwards is a gossip schedule).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field

import networkx as nx
from pysat.card import CardEnc, EncType

from gossipcert.errors import SpecError
from gossipcert.finders.invariant import (
    ClauseSink,
    check_generators,
    negate,
    packet_origins,
    solve_and_expand,
)
from gossipcert.instance import Instance
from gossipcert.interrupts import pysat_handler_off
from gossipcert.schedule import Schedule
from gossipcert.solvers.backends import Status

Lit = int | bool


@dataclass
class PalindromeResult:
    """The answer of one palindromic search.

    Attributes
    ----------
    status : Status
        ``SAT`` (a verified schedule), ``UNSAT`` (no palindrome up to ``phi`` of that
        length; nothing about the instance) or ``UNKNOWN`` (time limit).
    rounds : int
        The horizon asked.
    schedule : Schedule or None
        The whole schedule (free rounds and their mirror images), verified, when
        ``status`` is ``SAT``.
    stats : dict
        Variables, clauses, encoding and solving seconds.
    """

    status: Status
    rounds: int
    schedule: Schedule | None = None
    stats: dict[str, float] = field(default_factory=dict)


class PalindromeEncoding(ClauseSink):
    """The CNF of the free rounds and the meeting condition (see the module docstring).

    Parameters
    ----------
    instance : Instance
        Telephone gossip with unbounded packets.
    phi : sequence of int
        An automorphism of the graph (node ``v`` to ``phi[v]``).
    rounds : int
        The horizon ``R >= 1``.
    """

    def __init__(self, instance: Instance, phi: Sequence[int], rounds: int) -> None:
        if rounds < 1:
            raise SpecError(f"the horizon must be at least 1, not {rounds}")
        (self.phi,) = check_generators(instance, [phi])
        self.instance = instance
        self.rounds = rounds
        self.half = rounds // 2
        self.free = rounds - self.half  # the middle round is free when rounds is odd
        n = instance.n
        self.origin, self.packet_of = packet_origins(instance)
        self.nbrs = [sorted(instance.graph.adj[v]) for v in range(n)]
        self.dist = dict(nx.all_pairs_shortest_path_length(instance.graph))
        super().__init__()
        self._matching()
        self._support()
        self._equal()
        self._meeting()

    # -- literals: an int, or True / False for constants
    def call(self, u: int, v: int, t: int) -> int:
        """``{u, v}`` is a call in free round ``t``."""
        return self.vpool.id(("call", min(u, v), max(u, v), t))

    def know(self, v: int, p: int, t: int) -> Lit:
        """``v`` knows packet ``p`` after free round ``t`` (a constant where forced)."""
        if self.dist[v][self.origin[p]] > t:
            return False
        if t == 0:
            return True
        return self.vpool.id(("know", v, p, t))

    @pysat_handler_off()  # PySAT takes no SIGINT itself
    def _matching(self) -> None:
        for t in range(1, self.free + 1):
            for v, row in enumerate(self.nbrs):
                lits = [self.call(v, u, t) for u in row]
                if len(lits) > 1:
                    enc = EncType.pairwise if len(lits) <= 6 else EncType.seqcounter
                    self.clauses.extend(
                        CardEnc.atmost(lits, 1, vpool=self.vpool, encoding=enc).clauses
                    )

    def _support(self) -> None:
        for t in range(1, self.free + 1):
            for v, row in enumerate(self.nbrs):
                for p in range(self.instance.n_packets):
                    k = self.know(v, p, t)
                    prev = self.know(v, p, t - 1)
                    if k is False or prev is True:
                        continue
                    support: list[Lit] = [prev]
                    for u in row:
                        ku = self.know(u, p, t - 1)
                        if ku is False:
                            continue
                        via = self.vpool.id(("via", v, p, t, u))
                        self._add([-via, self.call(v, u, t)])
                        self._add([-via, ku])
                        support.append(via)
                    self._add([-k, *support])

    def _equal(self) -> None:
        for t in range(1, self.free + 1):
            for v, row in enumerate(self.nbrs):
                for u in row:
                    if u < v:
                        continue
                    c = self.call(v, u, t)
                    for p in range(self.instance.n_packets):
                        kv, ku = self.know(v, p, t), self.know(u, p, t)
                        if kv is ku:
                            continue
                        self._add([-c, negate(kv), ku])
                        self._add([-c, negate(ku), kv])

    def _meeting(self) -> None:
        n = self.instance.n
        phi = self.phi
        # holders[x]: the nodes that may know packet x after the first half
        holders: dict[int, list[int]] = {}
        for m in range(n):
            for x in range(self.instance.n_packets):
                if self.know(m, x, self.half) is not False:
                    holders.setdefault(x, []).append(m)
        for p in range(self.instance.n_packets):
            for q in range(n):
                if phi[q] == self.origin[p]:
                    continue  # q's image is p's origin: nothing to carry
                x = self.packet_of[q]
                meets: list[Lit] = []
                for m in holders.get(x, []):
                    a, b = self.know(phi[m], p, self.free), self.know(m, x, self.half)
                    if a is False:
                        continue
                    if a is True and b is True:
                        meets = [True]
                        break
                    y = self.vpool.id(("meet", p, q, m))
                    self._add([-y, a])
                    self._add([-y, b])
                    meets.append(y)
                self._add(meets)

    def schedule(self, model: set[int]) -> Schedule:
        """The whole schedule of a model: the free rounds, then their images in reverse."""
        free = []
        for t in range(1, self.free + 1):
            free.append(
                sorted(
                    (u, v)
                    for u, row in enumerate(self.nbrs)
                    for v in row
                    if u < v and self.vpool.obj2id.get(("call", u, v, t), 0) in model
                )
            )
        phi = self.phi
        mirror = [sorted((phi[u], phi[v]) for u, v in calls) for calls in free[: self.half][::-1]]
        return Schedule.from_calls(free + mirror)


def palindrome_search(
    instance: Instance,
    phi: Sequence[int],
    rounds: int,
    time_limit: float | None = None,
    solver: str = "cadical195",
) -> PalindromeResult:
    """Look for an ``rounds``-round gossip schedule that is a palindrome up to ``phi``.

    Parameters
    ----------
    instance : Instance
        Telephone gossip, unbounded packets.
    phi : sequence of int
        An automorphism of the graph.
    rounds : int
        The horizon.
    time_limit : float or None
        Seconds for the solver (checked between conflict-budget slices).
    solver : str
        A PySAT solver name.

    Returns
    -------
    PalindromeResult
        ``SAT`` with a verified schedule, ``UNSAT`` (no palindrome up to ``phi`` of that
        length; the instance may still have a schedule), or ``UNKNOWN``.

    Raises
    ------
    SpecError
        ``phi`` is not an automorphism of the graph, or ``rounds < 1``.
    NotApplicableError
        Not telephone gossip with unbounded packets.

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> inst = parse_instance("hypercube:4", "telephone", "gossip")
    >>> reverse_bits = [int(format(v, "04b")[::-1], 2) for v in range(16)]
    >>> res = palindrome_search(inst, reverse_bits, 4)
    >>> res.status.value, len(res.schedule)
    ('sat', 4)
    >>> palindrome_search(inst, list(range(16)), 4).status.value  # round 3 repeats round 2
    'unsat'
    """
    t0 = time.monotonic()
    enc = PalindromeEncoding(instance, phi, rounds)
    stats: dict[str, float] = {
        "variables": enc.vpool.top,
        "clauses": len(enc.clauses),
        "encode_seconds": round(time.monotonic() - t0, 3),
    }
    status, sched, stats["solve_seconds"] = solve_and_expand(
        instance, enc, enc.schedule, time_limit, solver, "palindromic"
    )
    return PalindromeResult(status, rounds, sched, stats)


def palindrome_maps(instance: Instance, rounds: int) -> dict[str, list[int]]:
    """Named maps worth asking at ``rounds``: nauty's generators and their products.

    Each single map of :func:`~gossipcert.symmetry.groups.nauty_subgroups` (``g0``,
    ``g0*g1``, ...), and the identity (``id``) when ``rounds`` is odd (with ``rounds`` even
    it makes round ``h + 1`` repeat round ``h``).

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> sorted(palindrome_maps(parse_instance("debruijn:4", "telephone", "gossip"), 5))
    ['g0', 'g0*g1', 'g1', 'id']
    """
    from gossipcert.symmetry.groups import nauty_subgroups

    out: dict[str, list[int]] = {"id": list(range(instance.n))} if rounds % 2 else {}
    for name, gens in nauty_subgroups(instance).items():
        if len(gens) == 1:
            out[name] = list(gens[0])
    return out
