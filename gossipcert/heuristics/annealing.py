"""Simulated annealing over telephone schedules of a fixed number of rounds.

The state is ``R`` matchings of the graph, one per round, each kept *maximal*: under the
telephone model with unbounded packets both ends of a call send everything they know, so
knowledge only grows with the set of calls and a call added to a round never leaves a demand
unmet that was met without it. The energy of a state is the number of ``(node, packet)``
demands still unmet after round ``R`` (zero: the ``R`` matchings solve the instance), plus,
optionally, ``tie_weight`` times the demands still unmet after knowledge has flooded
``1 .. depth`` further steps along every edge: an unmet demand whose packet is near counts
less than one whose packet is far, which gives plateaus of equal counts a slope.

Knowledge is packed in 64-bit words (:mod:`gossipcert.heuristics.bitsets`) and kept after
every round, so that a move in round ``r`` replays only rounds ``r + 1 .. R``; a round is
one gather and one OR over the ``n x W`` words, with ``partner[v] = v`` for a node without
a call.

The moves:

- *add a call* ``u-v`` in round ``r`` (an edge not in that round's matching): drop the calls
  of ``u`` and ``v`` in round ``r`` and call ``u-v``; the partners left without a call are
  re-matched to a random neighbour without a call, if any (this keeps the matching maximal,
  and covers the swap ``u-a, v-b -> u-v, a-b``). The round and the edge are either random or,
  with probability ``focus``, a *repair*: pick an unmet demand ``(v, p)`` at random and,
  among the rounds ``r`` and edges ``x-y`` such that ``x`` knows ``p`` before round ``r``
  and the calls after round ``r`` carry ``y``'s knowledge to ``v`` (a backward pass over the
  matchings), take one at random. Dropping calls of round ``r`` changes neither side, so
  the move meets ``(v, p)``, perhaps leaving others unmet (a focused move, as in WalkSAT
  [3]_);
- *swap two rounds* (probability ``swap_rate``): exchange the matchings of two rounds.

A move is accepted by the Metropolis rule at a temperature falling geometrically from
``hot`` to ``cold`` over ``cycle`` steps; each cycle after the first starts again from the
best state found (a restart). The start is a given schedule, the matching heuristic's or
the coloring heuristic's, cut to ``R`` rounds (each round completed to a maximal matching),
or random maximal matchings (when ``start="random"`` or the heuristic does not apply). The
run is deterministic for a seed and a step budget (with ``start="coloring"``, whose search
has a time limit, only for a given start); a time budget stops it earlier.

References
----------
.. [1] R. Beier and J. F. Sibeyn, "A powerful heuristic for telephone gossiping" (the
   matching heuristic that gives the start, and the instances).
.. [2] S. Kirkpatrick, C. D. Gelatt and M. P. Vecchi, "Optimization by simulated
   annealing", Science 220, 1983.
.. [3] B. Selman, H. Kautz and B. Cohen, "Noise strategies for improving local search",
   AAAI 1994.
"""

from __future__ import annotations

import math
import random
import time
from dataclasses import dataclass

import numpy as np

from gossipcert.errors import GossipcertError, HeuristicError, SpecError, UnsupportedModelError
from gossipcert.heuristics.bitsets import (
    Index,
    Words,
    edge_arrays,
    neighbour_table,
    pack,
    spread,
    unpack_row,
)
from gossipcert.instance import Instance, ModelKind
from gossipcert.schedule import Schedule
from gossipcert.simulate import simulate

#: where a run starts: the matching heuristic, the coloring heuristic, random matchings
STARTS = ("matching", "coloring", "random")


@dataclass(frozen=True)
class AnnealParams:
    """The settings of one run of :func:`anneal_schedule`.

    Parameters
    ----------
    seed : int
        Seed of the run's random choices.
    steps : int or None
        Most moves tried (None: only ``time_limit`` stops the run).
    time_limit : float or None
        Most seconds (None: only ``steps`` stops the run).
    hot, cold : float
        Temperature at the start and at the end of a cycle (in unmet demands).
    cycle : int
        Moves per cycle of the temperature; later cycles restart from the best state.
    tie_weight : float
        Weight of the unmet demands after ``1 .. depth`` further steps of flooding (0: the
        energy is the number of unmet demands alone).
    swap_rate : float
        Probability of the move that swaps two rounds.
    start : str
        One of :data:`STARTS`: the matching heuristic's schedule, the coloring heuristic's
        (searched for ``start_seconds``), cut to ``R`` rounds, or random matchings.
    start_seconds : float
        Seconds of the coloring heuristic's search.
    depth : int
        Steps of flooding in the tie-breaking term.
    focus : float
        Probability that the call a move adds is chosen to meet an unmet demand (the
        *repair* move) rather than at random.
    """

    seed: int = 0
    steps: int | None = 200_000
    time_limit: float | None = None
    hot: float = 5.0
    cold: float = 0.05
    cycle: int = 100_000
    tie_weight: float = 0.0
    swap_rate: float = 0.02
    start: str = "matching"
    start_seconds: float = 2.0
    depth: int = 2
    focus: float = 0.5


@dataclass(frozen=True)
class AnnealResult:
    """The outcome of :func:`anneal_schedule`.

    ``schedule`` is the verified schedule of at most ``rounds`` rounds, or None when none
    was found; ``best_cost`` the fewest unmet demands after ``rounds`` rounds seen (0 when
    found); ``best`` the ``rounds`` matchings of that state (a schedule that does not solve
    the instance when ``best_cost > 0``); ``steps`` the moves tried, ``restarts`` the cycles
    begun after the first, ``seconds`` the wall time.
    """

    schedule: Schedule | None
    rounds: int
    best_cost: int
    best: Schedule
    steps: int
    restarts: int
    seconds: float

    @property
    def found(self) -> bool:
        """True when a schedule of at most ``rounds`` rounds was found."""
        return self.schedule is not None


def check_model(instance: Instance) -> None:
    """Raise :class:`UnsupportedModelError` unless plain telephone with unbounded packets."""
    model = instance.model
    if (
        model.kind is not ModelKind.TELEPHONE
        or not model.unbounded
        or model.calls_per_round is not None
        or model.tau is not None
    ):
        raise UnsupportedModelError(
            "the annealing search covers the telephone model with unbounded packets, no limit "
            f"on calls per round and no linear cost; got {model.spec()}"
        )


#: the most memory the knowledge tables may take (two copies of ``R + 1`` rounds of
#: ``n`` rows of 64-bit words), in bytes
MEMORY_CAP = 2 << 30


def _check_params(rounds: int, params: AnnealParams, instance: Instance | None = None) -> None:
    if rounds < 1:
        raise SpecError(f"the annealing search needs at least one round, got {rounds}")
    if instance is not None:
        words = -(-instance.n_packets // 64)
        need = 2 * (rounds + 1) * instance.n * words * 8
        if need > MEMORY_CAP:
            raise SpecError(
                f"{rounds} rounds on {instance.n} nodes and {instance.n_packets} packets need "
                f"{need / 2**30:.1f} GiB of knowledge tables (at most {MEMORY_CAP / 2**30:.0f} "
                "GiB); ask for fewer rounds"
            )
    if params.steps is None and params.time_limit is None:
        raise SpecError("the annealing search needs a step budget or a time limit")
    if params.steps is not None and params.steps < 0:
        raise SpecError("the step budget must be >= 0")
    if not 0 < params.cold <= params.hot:
        raise SpecError("the temperatures must satisfy 0 < cold <= hot")
    if (
        params.cycle < 1
        or params.depth < 1
        or params.tie_weight < 0
        or not 0 <= params.swap_rate <= 1
    ):
        raise SpecError("cycle and depth must be >= 1, tie weight >= 0, swap rate in [0, 1]")
    if not 0 <= params.focus <= 1:
        raise SpecError("the focus must be in [0, 1]")
    if params.start not in STARTS:
        raise SpecError(f"unknown start {params.start!r}; choose {', '.join(STARTS)}")


class _State:
    """``R`` maximal matchings as partner arrays and the knowledge after every round."""

    def __init__(self, instance: Instance, rounds: int) -> None:
        n = instance.n
        self.n, self.rounds = n, rounds
        self.start = pack(list(instance.holdings), instance.n_packets)[:-1]
        self.demand = pack(list(instance.demands), instance.n_packets)[:-1]
        u, v = edge_arrays(instance.graph)
        keep = u != v
        self.edges: list[tuple[int, int]] = list(
            zip(u[keep].tolist(), v[keep].tolist(), strict=True)
        )
        self.adj: list[list[int]] = [[] for _ in range(n)]
        for a, b in self.edges:
            self.adj[a].append(b)
            self.adj[b].append(a)
        self.partner: Index = np.tile(np.arange(n, dtype=np.int64), (rounds, 1))
        width = self.start.shape[1]
        self.know: Words = np.zeros((rounds + 1, n, width), dtype=np.uint64)
        self.trial: Words = np.zeros_like(self.know)
        self.unmet = np.zeros(rounds + 1, dtype=np.int64)
        self.trial_unmet = np.zeros_like(self.unmet)
        self.gathered: Words = np.zeros_like(self.start)
        self.nbr = neighbour_table(instance.graph)
        self.eu, self.ev = u[keep], v[keep]
        self.reach = np.zeros((rounds + 1, n), dtype=np.bool_)
        self.flood: Words = np.zeros((n + 1, width), dtype=np.uint64)

    def replay(self, first: int, rows: Index, know: Words, unmet: Index) -> None:
        """Knowledge after rounds ``first + 1 .. R`` with ``rows`` as the partner arrays
        (``know[first]`` given) into ``know`` and ``unmet``."""
        for t in range(first, self.rounds):
            np.take(know[t], rows[t], axis=0, out=self.gathered)
            np.bitwise_or(know[t], self.gathered, out=know[t + 1])
            unmet[t + 1] = np.bitwise_count(self.demand & ~know[t + 1]).sum(dtype=np.int64)

    def far(self, know: Words, depth: int) -> int:
        """Unmet demands summed over ``depth`` further steps of flooding along every edge."""
        self.flood[:-1] = know
        total = 0
        for _ in range(depth):
            self.flood = spread(self.flood, self.nbr)
            total += int(np.bitwise_count(self.demand & ~self.flood[:-1]).sum())
        return total

    def repair(self, rng: random.Random) -> tuple[int, int, int] | None:
        """A call ``(r, x, y)`` of :meth:`repair_calls` for a random unmet demand, or None."""
        final = self.demand & ~self.know[self.rounds]
        needy = np.flatnonzero(final.any(axis=1))
        if not len(needy):
            return None
        v = int(needy[rng.randrange(len(needy))])
        lacking = unpack_row(final[v])
        packets = [i for i in range(lacking.bit_length()) if lacking >> i & 1]
        found = self.repair_calls(v, packets[rng.randrange(len(packets))])
        return found[rng.randrange(len(found))] if found else None

    def repair_calls(self, v: int, p: int) -> list[tuple[int, int, int]]:
        """The calls ``x-y`` in round ``r`` (0-based), not made now, that would meet the
        demand of ``v`` for ``p``: ``x`` knows ``p`` before round ``r`` and the calls after it
        carry ``y``'s knowledge to ``v``."""
        reach = self.reach
        reach[self.rounds] = False
        reach[self.rounds, v] = True  # who reaches v from the knowledge after each round
        for t in range(self.rounds - 1, 0, -1):
            np.bitwise_or(reach[t + 1], reach[t + 1][self.partner[t]], out=reach[t])
        word, bit = p // 64, np.uint64(1 << (p % 64))
        found: list[tuple[int, int, int]] = []
        for t in range(self.rounds):
            knows = (self.know[t][:, word] & bit) != 0
            after = reach[t + 1]
            hit = (knows[self.eu] & after[self.ev]) | (knows[self.ev] & after[self.eu])
            hit &= self.partner[t][self.eu] != self.ev
            found.extend((t, int(self.eu[k]), int(self.ev[k])) for k in np.flatnonzero(hit))
        return found

    def energy(self, unmet: Index, know: Words, params: AnnealParams) -> float:
        """The cost the annealing lowers: the unmet demands after the last round, and with
        ``params.tie_weight`` a share of how far they are from being met
        (:meth:`far`)."""
        last = self.rounds
        if not params.tie_weight or not unmet[last]:
            return float(unmet[last])
        return float(unmet[last]) + params.tie_weight * self.far(know[last], params.depth)

    def try_rows(self, first: int, rows: Index) -> None:
        """Replay ``rows`` from round ``first`` into the trial arrays (``trial``,
        ``trial_unmet``), the state itself unchanged."""
        self.trial[first] = self.know[first]
        self.trial_unmet[: first + 1] = self.unmet[: first + 1]
        self.replay(first, rows, self.trial, self.trial_unmet)

    def accept(self, first: int, rows: Index) -> None:
        """Make the trial of :meth:`try_rows` the state."""
        self.partner[first:] = rows[first:]
        self.know[first + 1 :] = self.trial[first + 1 :]
        self.unmet[:] = self.trial_unmet

    def full_replay(self) -> None:
        """Recompute all the knowledge from the holdings."""
        self.know[0] = self.start
        self.unmet[0] = np.bitwise_count(self.demand & ~self.start).sum(dtype=np.int64)
        self.replay(0, self.partner, self.know, self.unmet)

    def complete(self, row: Index, nodes: list[int], rng: random.Random) -> None:
        """Call every node of ``nodes`` still without a call to a random free neighbour."""
        for x in nodes:
            if row[x] != x:
                continue
            free = [y for y in self.adj[x] if row[y] == y]
            if free:
                y = free[rng.randrange(len(free))]
                row[x], row[y] = y, x

    def maximal(self, row: Index, rng: random.Random) -> None:
        """Complete ``row`` to a maximal matching, nodes in random order."""
        order = list(range(self.n))
        rng.shuffle(order)
        self.complete(row, order, rng)

    def schedule(self, rows: Index) -> Schedule:
        """The telephone schedule of the partner arrays ``rows``."""
        return Schedule.from_calls(
            [(v, int(w)) for v, w in enumerate(row.tolist()) if v < w] for row in rows
        )


def _start_schedule(instance: Instance, rounds: int, params: AnnealParams) -> Schedule:
    """The schedule the run starts from (its first ``rounds`` rounds are taken)."""
    try:
        if params.start == "matching":
            from gossipcert.heuristics.matching import matching_heuristic

            return matching_heuristic(instance)
        if params.start == "coloring":
            from gossipcert.heuristics.coloring import coloring_heuristic

            res = coloring_heuristic(instance, min_rounds=rounds, time_limit=params.start_seconds)
            return res.schedule
    except GossipcertError:
        pass
    return Schedule(())


def _start_rows(state: _State, start: Schedule, rng: random.Random) -> None:
    """The first state: the calls of ``start``'s first rounds, completed at random."""
    for t, rnd in enumerate(start.rounds[: state.rounds]):
        for tr in rnd:
            v, w = tr.sender, tr.receivers[0]
            if state.partner[t, v] == v and state.partner[t, w] == w and v != w:
                state.partner[t, v], state.partner[t, w] = w, v
    for t in range(state.rounds):
        state.maximal(state.partner[t], rng)


def anneal_schedule(
    instance: Instance,
    rounds: int,
    params: AnnealParams | None = None,
    initial: Schedule | None = None,
) -> AnnealResult:
    """Search for a telephone schedule of ``rounds`` rounds by simulated annealing.

    Parameters
    ----------
    instance : Instance
        Telephone model, unbounded packets, no limit on calls per round, no linear cost;
        any problem (gossip, broadcast, a custom dispersion).
    rounds : int
        The number of rounds ``R`` the schedule may take.
    params : AnnealParams, optional
        Seed, budgets, temperatures and moves (default: seed 0, 200,000 steps).
    initial : Schedule, optional
        Start from this schedule's first ``rounds`` rounds (default: ``params.start``).

    Returns
    -------
    AnnealResult
        With the verified schedule when one of at most ``rounds`` rounds was found.

    Raises
    ------
    UnsupportedModelError
        Another model.
    SpecError
        Bad parameters.
    HeuristicError
        A schedule the verifier rejects (a defect of this module).

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> inst = parse_instance("petersen", "telephone", "gossip")
    >>> res = anneal_schedule(inst, 4, AnnealParams(seed=1, steps=20_000))
    >>> res.found, len(res.schedule), res.best_cost
    (True, 4, 0)

    References
    ----------
    .. [1] S. Kirkpatrick, C. D. Gelatt and M. P. Vecchi, "Optimization by simulated
       annealing", Science 220, 1983.
    """
    check_model(instance)
    params = params or AnnealParams()
    _check_params(rounds, params, instance)
    began = time.monotonic()
    deadline = None if params.time_limit is None else began + params.time_limit
    rng = random.Random(params.seed)
    state = _State(instance, rounds)
    if initial is None:
        initial = _start_schedule(instance, rounds, params)
    _start_rows(state, initial, rng)
    state.full_replay()

    current = state.energy(state.unmet, state.know, params)
    best_rows = state.partner.copy()
    best_cost, best_energy = int(state.unmet[rounds]), current
    rows = state.partner.copy()
    ratio = math.log(params.cold / params.hot)
    n_edges = len(state.edges)
    step = restarts = 0
    budget = params.steps
    while best_cost > 0 and n_edges and (budget is None or step < budget):
        if deadline is not None and step % 256 == 0 and time.monotonic() > deadline:
            break
        phase = step % params.cycle
        if phase == 0 and step:
            restarts += 1
            state.partner[:] = best_rows
            rows[:] = best_rows  # the working copy too: a move edits it, then replays
            state.full_replay()
            current = best_energy
        temperature = params.hot * math.exp(ratio * phase / params.cycle)
        step += 1
        first = _propose(state, rows, rounds, params, rng)
        if first is None:
            continue
        state.try_rows(first, rows)
        new = state.energy(state.trial_unmet, state.trial, params)
        delta = new - current
        if delta <= 0 or rng.random() < math.exp(-delta / temperature):
            state.accept(first, rows)
            current = new
            final = int(state.unmet[rounds])
            if (final, new) < (best_cost, best_energy):
                best_energy, best_cost = new, final
                best_rows[:] = state.partner
        else:
            rows[first:] = state.partner[first:]
    best = state.schedule(best_rows)
    found = _verified(instance, best, rounds) if best_cost == 0 else None
    return AnnealResult(found, rounds, best_cost, best, step, restarts, time.monotonic() - began)


def _propose(
    state: _State, rows: Index, rounds: int, params: AnnealParams, rng: random.Random
) -> int | None:
    """A move of :func:`anneal_schedule` made in ``rows`` (the working copy of the
    partners): two rounds swapped, or an edge's call put in a round (an unmet demand's edge
    with probability ``params.focus``, else a random one) with the round's other calls
    completed; the first round it changes, or None when the call is there already."""
    if rounds > 1 and rng.random() < params.swap_rate:
        r, s = sorted(rng.sample(range(rounds), 2))
        rows[r], rows[s] = state.partner[s], state.partner[r]
        return r
    move = None
    if rng.random() < params.focus:
        move = state.repair(rng)
    if move is None:
        r = rng.randrange(rounds)
        u, v = state.edges[rng.randrange(len(state.edges))]
    else:
        r, u, v = move
    row = rows[r]
    if row[u] == v:
        return None
    a, b = int(row[u]), int(row[v])
    row[a], row[b] = a, b
    row[u], row[v] = v, u
    state.complete(row, [x for x in (a, b) if x not in (u, v)], rng)
    return r


def _verified(instance: Instance, best: Schedule, rounds: int) -> Schedule:
    """The schedule of no unmet demand, replayed by the verifier and cut after its last
    useful round."""
    report = simulate(instance, best)
    if not report.ok or report.rounds is None or report.rounds > rounds:
        raise HeuristicError("the annealing search's schedule failed verification")
    return Schedule(best.rounds[: report.rounds])
