"""Linear cost: the exact Pareto front of rounds ``R`` and steps ``S``, and the minimum cost.

Under the linear-cost model of Beier and Sibeyn a round in which some node sends ``s``
packets takes ``1 + τ·h·s`` time, so a schedule of ``R`` rounds costs ``T = R + τ·h·S`` with
``S = Σ_t max_u s_{u,t}``. For each ``R`` from the round optimum ``R*`` up to a given maximum
this module finds the minimum ``S`` by CP-SAT optimisation over the per-packet transfer
encoding (:mod:`gossipcert.encodings.transfer`) with the demands required after round ``R``:

- ``s[t]`` (an integer variable, one per round): at least the number of packets any node
  sends in round ``t``, i.e. ``s[t] >= Σ sent_literals(u, t)`` for every node ``u``;
- *learned* (implied, one-port and multicast models, where a node receives from one
  sender): ``|know_t(v)| - |know_{t-1}(v)| <= s[t]``;
- objective: minimise ``Σ_t s[t]``.

A status ``OPTIMAL`` from CP-SAT proves the point (the solver's claim; no DRAT proof of an
optimisation), ``FEASIBLE`` gives the best ``S`` found, labelled unproved. Every schedule is
decoded, replayed by :func:`gossipcert.simulate.simulate` and its ``S`` recounted there. The
rules the search adds besides the model (symmetry, no useless sends, canonical order of
sequential calls) keep ``S`` optimal: each maps a schedule to one of the same length and no
larger ``S`` (dropping a useless packet can only lower ``s``).

``S_min(R)`` does not increase with ``R`` (an extra empty round is allowed), so the Pareto
front is the set of ``(R, S_min(R))`` where ``S_min`` strictly decreases. It is constant from
the first ``R_0`` with ``S_min(R_0) <= R_0``: a round in which nobody sends adds 0 to ``S``
and may be dropped, so a schedule of ``S`` steps needs at most ``S`` rounds, and for
``R >= R_0`` a schedule of ``R`` rounds and ``S_min(R) <= S_min(R_0) <= R_0`` steps shrinks
to one of ``R_0`` rounds, whence ``S_min(R) >= S_min(R_0)``. The front is computed up to the
first such ``R_0`` whose ``S`` is proved minimal, and no further: each solve beyond it would
only repeat ``S_min(R_0)`` on a longer horizon, at a cost that grows quickly with ``R``.

References
----------
.. [1] R. Beier and J. F. Sibeyn, "A powerful heuristic for telephone gossiping", section 2
   (linear cost, steps ``S``).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from gossipcert.encodings import EncodingOptions, TransferEncoding, encoding_for
from gossipcert.errors import SolverError, SpecError
from gossipcert.instance import Instance
from gossipcert.models import require_linear_cost
from gossipcert.schedule import MAX_ROUNDS, Schedule
from gossipcert.search.entry import solve
from gossipcert.search.outcome import SolveResult
from gossipcert.simulate import simulate
from gossipcert.solvers.backends import compile_cpsat
from gossipcert.solvers.cpsat_run import cpsat_solver, run_cpsat
from gossipcert.statuses import SolveStatus
from gossipcert.symmetry.automorphisms import add_lex_leader, automorphism_generators


@dataclass
class FrontPoint:
    """The least steps found for one number of rounds.

    Attributes
    ----------
    rounds : int
    steps : int or None
        The least ``S`` found (None: no schedule found in time, or none exists).
    proved : bool
        CP-SAT proved ``steps`` minimal for ``rounds`` (with ``steps`` None: proved that no
        schedule of ``rounds`` rounds exists).
    schedule : Schedule or None
        Verified, of ``rounds`` rounds (trailing empty rounds dropped) and ``steps`` steps.
    seconds : float
    """

    rounds: int
    steps: int | None
    proved: bool
    schedule: Schedule | None
    seconds: float

    def cost(self, tau: float, h: int) -> float | None:
        """``T = R + τ·h·S``."""
        return None if self.steps is None else self.rounds + tau * h * self.steps


@dataclass
class FrontResult:
    """The round optimum and the points ``R* .. max_rounds`` (or ``R* .. constant_from``).

    Attributes
    ----------
    instance : Instance
    round_result : SolveResult
        The round search that gives ``R*``.
    points : list of FrontPoint
        One per ``R`` from ``R*``, up to ``max_rounds`` or to ``constant_from``.
    max_rounds : int or None
        The largest ``R`` asked.
    constant_from : int or None
        The first ``R_0`` with ``S_min(R_0) <= R_0``, proved: ``S_min(R) = S_min(R_0)`` for
        every ``R`` from ``R_0`` to ``max_rounds`` (see the module docstring), so the points
        stop there.
    """

    instance: Instance
    round_result: SolveResult
    points: list[FrontPoint] = field(default_factory=list)
    max_rounds: int | None = None
    constant_from: int | None = None

    @property
    def proved(self) -> bool:
        """Every point proved (and the round optimum certified)."""
        return self.round_result.proved_status is SolveStatus.OPTIMAL and all(
            p.proved for p in self.points
        )

    def pareto(self) -> list[FrontPoint]:
        """The points where the least ``S`` strictly drops (the Pareto front of ``(R, S)``)."""
        out: list[FrontPoint] = []
        least: int | None = None  # the steps of the last point kept
        for p in self.points:
            if p.steps is not None and (least is None or p.steps < least):
                out.append(p)
                least = p.steps
        return out

    def best_cost(self, tau: float, h: int) -> FrontPoint | None:
        """The point of least ``T = R + τ·h·S`` (first among equals)."""
        found = [(cost, p) for p in self.points if (cost := p.cost(tau, h)) is not None]
        return min(found, key=lambda item: item[0])[1] if found else None

    def to_json(self, tau: float | None = None, h: int = 1) -> dict[str, Any]:
        """JSON-ready form (schedules left out)."""
        from gossipcert.schedule import to_json

        pareto = {p.rounds for p in self.pareto()}
        fields = self.round_result.status_fields()
        out: dict[str, Any] = {
            "round_optimum": fields["optimum"],
            "round_status": fields["status"],
            "round_decided_by_solver": fields["decided_by_solver"],
            "proved": self.proved,
            "max_rounds": self.max_rounds,
            "constant_from": self.constant_from,
            "points": [
                {
                    "rounds": p.rounds,
                    "steps": p.steps,
                    "proved": p.proved,
                    "pareto": p.rounds in pareto,
                    "seconds": round(p.seconds, 3),
                    "schedule": None if p.schedule is None else to_json(p.schedule, self.instance),
                }
                for p in self.points
            ],
        }
        if tau is not None:
            best = self.best_cost(tau, h)
            out["tau"] = tau
            out["h"] = h
            out["min_cost"] = None if best is None else best.cost(tau, h)
            out["min_cost_rounds"] = None if best is None else best.rounds
        return out


def _term(k: Any, lit: Any) -> Any:
    """A knowledge literal as a CP-SAT term (constants as 0 or 1)."""
    return int(k) if isinstance(k, bool) else lit(k)


def min_steps(
    instance: Instance,
    rounds: int,
    options: EncodingOptions,
    deadline: float | None = None,
    workers: int = 2,
) -> FrontPoint:
    """The least ``S`` of a schedule of at most ``rounds`` rounds (CP-SAT optimisation).

    Raises
    ------
    UnsupportedModelError
        A model whose linear cost is not defined (all-port;
        :func:`gossipcert.models.require_linear_cost`).
    """
    from ortools.sat.python import cp_model

    require_linear_cost(instance.model.kind)
    start = time.monotonic()
    if deadline is not None and deadline <= start:  # before building a model of R rounds
        return FrontPoint(rounds, None, False, None, 0.0)
    enc = encoding_for(instance, options, transfer=True)
    assert isinstance(enc, TransferEncoding)
    enc.extend_to(rounds)
    if enc.options.symmetry:
        add_lex_leader(enc, automorphism_generators(instance))
    enc.require(rounds)
    model, x, lit = compile_cpsat(enc.formula)
    top = instance.n_packets if instance.model.packet_cap is None else instance.model.packet_cap
    # s[t]: the most packets any node sends in round t
    s = {t: model.new_int_var(0, top, f"s{t}") for t in range(1, rounds + 1)}
    for t in range(1, rounds + 1):
        for u in range(instance.n):
            lits = enc.sent_literals(u, t)
            if lits:
                model.add(sum(lit(i) for i in lits) <= s[t])
        # implied: a node learns at most s[t] packets in round t (from its one sender)
        for v in range(instance.n):
            now = [enc.knows(v, p, t) for p in range(instance.n_packets)]
            before = [enc.knows(v, p, t - 1) for p in range(instance.n_packets)]
            model.add(sum(_term(k, lit) for k in now) - sum(_term(k, lit) for k in before) <= s[t])
    model.minimize(sum(s.values()))
    remaining = None
    if deadline is not None:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            return FrontPoint(rounds, None, False, None, 0.0)
    solver = cpsat_solver(workers, remaining)
    status = run_cpsat(solver, model)
    seconds = time.monotonic() - start
    if status == cp_model.MODEL_INVALID:
        raise SolverError(f"CP-SAT rejected the model: {model.validate()}")
    if status == cp_model.INFEASIBLE:  # below the round optimum: proved, no schedule
        return FrontPoint(rounds, None, True, None, seconds)
    if status not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        return FrontPoint(rounds, None, False, None, seconds)
    values = {v: bool(solver.boolean_value(var)) for v, var in x.items()}
    schedule = enc.decode(rounds, lambda v: values.get(v, False))
    rep = simulate(instance, schedule)
    if not rep.ok:
        first = rep.errors[0].message if rep.errors else "demands unmet"
        raise SolverError(f"the schedule of least steps failed verification: {first}")
    objective = round(solver.objective_value)
    if rep.steps > objective or (status == cp_model.OPTIMAL and rep.steps != objective):
        raise SolverError(
            f"the verifier counts {rep.steps} steps, the optimiser {objective}, for {rounds} rounds"
        )
    return FrontPoint(rounds, rep.steps, status == cp_model.OPTIMAL, schedule, seconds)


def pareto_front(
    instance: Instance,
    max_rounds: int,
    time_limit: float | None = None,
    strict: bool = False,
    backend: str = "sat",
) -> FrontResult:
    """The least ``S`` for every ``R`` from the round optimum up to ``max_rounds``.

    Parameters
    ----------
    instance : Instance
        Any model with a transfer encoding (telephone, half-duplex, single-port, multicast,
        with or without a cap or a call limit).
    max_rounds : int
    time_limit : float, optional
        Seconds for everything; points not reached or not proved in time say so.
    strict : bool
        Leave out the rules that are not implied (the optimisation is then over the plain
        encoding).
    backend : str
        Back-end of the round search that finds ``R*`` first.

    Returns
    -------
    FrontResult
        The points ``R* .. max_rounds``, or ``R* .. constant_from``.

    Raises
    ------
    SpecError
        ``max_rounds`` is not in ``1..MAX_ROUNDS`` (the longest schedule a file may hold), or
        is below the round optimum (or its lower bound), so that the front is empty.
    UnsupportedModelError
        The all-port model.

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> res = pareto_front(parse_instance("path:3", "telephone", "gossip"), 4)
    >>> [(p.rounds, p.steps, p.proved) for p in res.points]
    [(3, 4, True), (4, 4, True)]
    >>> res = pareto_front(parse_instance("path:3", "telephone", "gossip"), 9)
    >>> len(res.points), res.constant_from  # 4 steps fit in 4 rounds: S_min(R) = 4 beyond
    (2, 4)
    """
    require_linear_cost(instance.model.kind)
    if not 1 <= max_rounds <= MAX_ROUNDS:
        raise SpecError(
            f"--max-rounds (the largest R of the front) must be in 1..{MAX_ROUNDS}, "
            f"got {max_rounds}"
        )
    start = time.monotonic()
    deadline = None if time_limit is None else start + time_limit
    rr = solve(instance, backend=backend, time_limit=time_limit, strict=strict)
    out = FrontResult(instance, rr, max_rounds=max_rounds)
    first = rr.optimum if rr.optimum is not None else rr.lower_bound
    if first is not None and max_rounds < first:
        what = "round optimum" if rr.optimum is not None else "lower bound on the rounds"
        raise SpecError(
            f"no schedule has at most --max-rounds {max_rounds} rounds: the {what} is "
            f"{first}; give --max-rounds {first} or more"
        )
    if first is None:
        return out
    options = EncodingOptions.for_search(strict=strict)
    for r in range(first, max_rounds + 1):
        point = min_steps(instance, r, options, deadline)
        out.points.append(point)
        if point.proved and point.steps is not None and point.steps <= r:
            out.constant_from = r  # S_min(R) = point.steps for every R >= r
            break
    return out
