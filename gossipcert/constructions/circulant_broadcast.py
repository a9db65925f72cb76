"""Round-optimal pipelined broadcast of ``K`` chunks on a circulant graph (single-port).

The model: every node sends one chunk to one node and receives one chunk from another node
each round (single-port, ``p = 1``; Bar-Noy and Kipnis's simultaneous send/receive model
[1]_). A broadcast of ``K`` chunks from one source among ``P`` nodes needs at least
``K - 1 + ceil(log2 P)`` rounds (the ``pipelined-broadcast`` bound of
:mod:`gossipcert.closed_forms.pipelined`), and Bar-Noy, Kipnis and Schieber [2]_ showed
that this is achieved for every ``P`` and ``K``. Träff [3]_ [4]_ gives schedules of that
length on the circulant graph with ``q = ceil(log2 P)`` skips (``s_q = P``, ``s_j =
ceil(s_{j+1} / 2)``) in which every node follows the same pattern, repeated every ``q``
rounds. The schedules here have that shape:

- round ``i`` (``0``-based) uses skip ``S_i = s_{(i + sigma) mod q}`` (a rotation
  ``sigma`` of the skips); in it node ``r`` (numbered from the source, ``0``) receives from
  ``r - S_i`` and sends to ``r + S_i`` (mod ``P``);
- node ``r`` receives in round ``i`` the *virtual* block ``i - d_r(i mod q)``: nothing when
  it is negative, block ``K - 1`` when it is ``K - 1`` or more (the last block stands for
  every virtual block after it, so the pattern ends for every ``K``); the ``q`` values
  ``i - d_r(j)`` of one period are distinct modulo ``q``, so a node receives every residue
  class ``c`` once a period, with a fixed delay ``d_r(c)``.

The pattern is valid when every node forwards a block it already holds: if node ``r``
receives class ``c`` in phase ``j`` from ``t = r - S_j``, then ``t`` is the source or
``d_t(c) < d_r(c)`` (the receive-from arcs of a class form a tree on which the delay grows
away from the source). It takes ``K - 1 + q`` rounds when every virtual block ``B <= K - 2``
arrives by round ``K + q - 2`` (``B + d_r(B mod q) <= K + q - 2``), every node gets some
virtual block ``>= K - 1`` by then, and none arrives before round ``0`` (``c + d_r(c) >=
0``). These conditions depend on ``K`` only through ``(K - 1) mod q``.

Träff computes such a pattern in ``O(log P)`` time per node; here it is found once per
``P``, ``(K - 1) mod q`` and rotation by a small constraint program (``P q^2`` Boolean
choices of a class and a phase, the delays as integers, one precedence per arc), cached,
and unrolled for any ``K``: the *periodic schedule found once and unrolled*. A pattern was
found for every ``P`` from 2 to 64 and every residue (see the tests). The schedule is
replayed by the verifier before it is used; its length meets the lower bound, so it is
optimal.

References
----------
.. [1] A. Bar-Noy and S. Kipnis, "Broadcasting multiple messages in simultaneous
   send/receive systems", Discrete Applied Mathematics 55 (1994) 95-105.
.. [2] A. Bar-Noy, S. Kipnis and B. Schieber, "Optimal multiple message broadcasting in
   telephone-like communication systems", Discrete Applied Mathematics 100 (2000) 1-15.
.. [3] J. L. Träff, "(Poly)logarithmic time construction of round-optimal n-block broadcast
   schedules for broadcast and irregular allgather in MPI", CLUSTER 2022 (arXiv:2205.10072;
   the circulant graph and its skips).
.. [4] J. L. Träff, "Round-optimal n-block broadcast schedules in logarithmic time",
   arXiv:2312.11236, 2023.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from gossipcert import graphs
from gossipcert.errors import NotApplicableError
from gossipcert.instance import Instance, ModelKind, ProblemKind
from gossipcert.schedule import Round, Schedule, Transmission
from gossipcert.solvers.cpsat_run import cpsat_solver, run_cpsat

__all__ = ["CirculantPattern", "circulant_broadcast", "circulant_pattern", "circulant_skips"]

#: most nodes for which the pattern is searched (the program has ``P q^2`` choices)
MAX_NODES = 256
#: seconds CP-SAT may spend on one pattern (each takes well under a second up to 64 nodes)
SEARCH_SECONDS = 30.0


def circulant_skips(p: int) -> list[int]:
    """Träff's skips ``s_0 .. s_{q-1}`` for ``p`` nodes: ``s_q = p``, ``s_j = ceil(s_{j+1}/2)``.

    Examples
    --------
    >>> circulant_skips(16), circulant_skips(12)
    ([1, 2, 4, 8], [1, 2, 3, 6])
    """
    q = (p - 1).bit_length()
    skips = [p]
    for _ in range(q):
        skips.append(-(-skips[-1] // 2))
    return skips[::-1][:-1]


@dataclass(frozen=True)
class CirculantPattern:
    """The periodic receive pattern of every node (module docstring).

    Attributes
    ----------
    p : int
        Nodes, numbered ``0`` (the source) to ``p - 1``.
    skips : tuple of int
        The rotated skips: in round ``i`` node ``r`` receives from ``r - skips[i mod q]``.
    delay : tuple of tuple of int
        ``delay[r][j]``: node ``r`` receives virtual block ``i - delay[r][j]`` in each round
        ``i`` of phase ``j = i mod q`` (row 0, the source's, is empty).
    """

    p: int
    skips: tuple[int, ...]
    delay: tuple[tuple[int, ...], ...]

    def rounds(self, chunks: int) -> list[list[tuple[int, int, int]]]:
        """``(sender, receiver, block)`` of each round of a broadcast of ``chunks`` blocks,
        virtual blocks past the last one sent as the last one (and left out where the
        receiver holds it already)."""
        q = len(self.skips)
        last = chunks - 1
        has_last = [False] * self.p
        has_last[0] = True
        out = []
        for i in range(chunks - 1 + q):
            j = i % q
            now = []
            for r in range(1, self.p):
                b = i - self.delay[r][j]
                if b < 0 or (b >= last and has_last[r]):
                    continue
                now.append(((r - self.skips[j]) % self.p, r, min(b, last)))
            for _, r, b in now:
                if b == last:
                    has_last[r] = True
            out.append(now)
        return out


def _search(p: int, last: int, skips: list[int]) -> CirculantPattern | None:
    """The pattern for ``p`` nodes, ``(K - 1) mod q == last`` and these (rotated) skips, by
    CP-SAT on one worker with a fixed seed; None when there is none or none is found."""
    from ortools.sat.python import cp_model

    q = len(skips)
    model = cp_model.CpModel()
    # x[r, c, j]: node r receives residue class c in phase j
    x = {
        (r, c, j): model.new_bool_var(f"x{r}_{c}_{j}")
        for r in range(1, p)
        for c in range(q)
        for j in range(q)
    }
    # d[r, c]: the delay of class c at node r; its last block before K - 1 arrives in time
    d = {
        (r, c): model.new_int_var(-c, q - 1 + ((last - c) % q or q), f"d{r}_{c}")
        for r in range(1, p)
        for c in range(q)
    }
    for r in range(1, p):
        for c in range(q):
            model.add_exactly_one(x[r, c, j] for j in range(q))
            # wrap[r, c]: d = j - c + q wrap, the round's phase is the class's phase
            wrap = model.new_int_var(-2, 2, f"w{r}_{c}")
            model.add(d[r, c] == sum(((j - c) % q) * x[r, c, j] for j in range(q)) + q * wrap)
            for j in range(q):
                t = (r - skips[j]) % p
                if t != 0:
                    model.add(d[t, c] + 1 <= d[r, c]).only_enforce_if(x[r, c, j])
        for j in range(q):
            model.add_exactly_one(x[r, c, j] for c in range(q))
        # some virtual block >= K - 1 (class c: the first is K - 1 + (c - last) mod q) in time
        early = [model.new_bool_var(f"e{r}_{c}") for c in range(q)]
        for c in range(q):
            model.add((c - last) % q + d[r, c] <= q - 1).only_enforce_if(early[c])
        model.add_bool_or(early)
    solver = cpsat_solver(workers=1, seconds=SEARCH_SECONDS, seed=0)
    status = run_cpsat(solver, model)
    if status not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        return None
    delay: list[tuple[int, ...]] = [()]
    for r in range(1, p):
        row = [0] * q
        for c in range(q):
            for j in range(q):
                if solver.value(x[r, c, j]):
                    row[j] = solver.value(d[r, c])
        delay.append(tuple(row))
    return CirculantPattern(p, tuple(skips), tuple(delay))


@lru_cache(maxsize=256)
def circulant_pattern(p: int, last: int = 0) -> CirculantPattern:
    """The pattern for ``p`` nodes and ``(K - 1) mod q == last``: the first rotation of the
    skips for which the search finds one, cached.

    Raises
    ------
    NotApplicableError
        ``p < 2``, more than :data:`MAX_NODES`, or no pattern found.

    Examples
    --------
    >>> pat = circulant_pattern(8, 2)
    >>> sorted(pat.skips), len(pat.delay)
    ([1, 2, 4], 8)
    """
    if not 2 <= p <= MAX_NODES:
        raise NotApplicableError(f"the circulant broadcast pattern is built for 2 to {MAX_NODES}")
    skips = circulant_skips(p)
    q = len(skips)
    for sigma in range(q):
        found = _search(p, last % q, [skips[(j + sigma) % q] for j in range(q)])
        if found is not None:
            return found
    raise NotApplicableError(f"no circulant broadcast pattern found for {p} nodes")


def circulant_broadcast(instance: Instance) -> Schedule:
    """Broadcast of ``K`` chunks in ``K - 1 + ceil(log2 P)`` rounds (module docstring).

    Parameters
    ----------
    instance : Instance
        ``broadcast:S`` (one source, any ``chunks=K``) under single-port, multicast or
        all-port, on a graph whose processors include the circulant graph's arcs (a complete
        graph does) in the order of their numbers, starting at the source.

    Returns
    -------
    Schedule
        Unverified (callers replay it).

    Raises
    ------
    NotApplicableError
        Another problem or model, or an arc of the circulant graph missing.

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> from gossipcert.simulate import simulate
    >>> inst = parse_instance("complete:12", "single-port", "broadcast:3,chunks=5")
    >>> simulate(inst, circulant_broadcast(inst)).rounds  # 5 - 1 + ceil(log2 12)
    8

    References
    ----------
    Bar-Noy, Kipnis and Schieber (2000); Träff (2022, 2023).
    """
    if instance.problem.kind is not ProblemKind.BROADCAST:
        raise NotApplicableError("circulant-broadcast is a schedule for broadcast")
    if instance.model.kind not in (ModelKind.SINGLE_PORT, ModelKind.MULTICAST, ModelKind.ALL_PORT):
        raise NotApplicableError(
            "circulant-broadcast lets every node send to one node while it hears another; "
            f"got {instance.model.spec()}"
        )
    if instance.model.calls_per_round is not None:
        raise NotApplicableError("circulant-broadcast lets every node transmit in a round")
    g = instance.graph
    sources = [v for v in range(instance.n) if instance.holdings[v]]
    if len(sources) != 1:
        raise NotApplicableError("circulant-broadcast has one source")
    procs = graphs.processors(g)
    root = sources[0]
    start = procs.index(root)
    order = procs[start:] + procs[:start]
    p = len(order)
    if p < 2:
        return Schedule(())
    chunks = instance.problem.chunks
    q = (p - 1).bit_length()
    pattern = circulant_pattern(p, (chunks - 1) % q)
    for j, s in enumerate(pattern.skips):
        for r in range(p):
            if not g.has_edge(order[r], order[(r + s) % p]):
                raise NotApplicableError(
                    f"circulant-broadcast needs the arcs r -> r + {s} of the circulant graph "
                    f"(skip {j}); edge {order[r]} -- {order[(r + s) % p]} is missing"
                )
    rounds: list[Round] = [
        tuple(Transmission(order[t], (order[r],), 1 << b) for t, r, b in now)
        for now in pattern.rounds(chunks)
    ]
    return Schedule(tuple(rounds))
