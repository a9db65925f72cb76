"""The round search: certified optimum, or the best bounds known.

1. The lower bound ``L`` is the best closed-form bound of :mod:`gossipcert.closed_forms`.
2. The upper bound ``U`` is the shortest verified schedule among the constructions and
   heuristics that apply, tried in that order until one meets ``L`` (the universal
   ``gather-spread`` construction always applies; should none give a schedule,
   :func:`schedule_by_horizon` asks the solver, doubling the horizon). For telephone gossip
   on larger graphs, schedules invariant under small automorphism groups may then lower it
   (:mod:`gossipcert.finders.invariant_step`, a short budget).
3. If ``L = U`` the optimum is certified without a solver (evidence: the bound). For
   one-port instances with several packets, a packet whose closed-form broadcast bound
   reaches ``L`` is broadcast alone (:mod:`gossipcert.proofs.packet_refutation`): a checked
   DRAT proof that it cannot be done in ``L`` rounds raises ``L``. For telephone instances
   of 24 nodes or more and several packets, the row-and-column relaxation
   (:mod:`gossipcert.proofs.relaxation`) then tries to refute ``L, L + 1, ...`` cheaply,
   each refutation a checked DRAT proof of the relaxed CNF.
4. Otherwise one encoding with horizon ``U - 1`` is handed to a back-end and queried with the
   assumption "all demands met after round ``r``". First a quick ascending pass from
   ``r = L`` up to ``U - 2`` (each query at most 5 s; it stops at the first that is not
   refuted) takes the cheap refutations. Then descending probes at ``r = U - 1``
   (each given at most 30 s or a quarter of the remaining time) ask whether the best schedule
   is already optimal: a model is decoded into a schedule, verified, and lowers ``U``. Then
   ascending queries from ``r = L``: "unsatisfiable" at ``r`` raises ``L`` to ``r + 1``, a
   model ends the search. ``R*`` is certified when ``L = U``; a time-out leaves the answer
   ``feasible`` with bounds ``[L, U]``. Without any schedule the ascending queries alone
   extend the horizon until one is found. Models the encodings do not cover get the bounds
   only (``optimal`` when they meet, ``feasible`` or ``unknown`` otherwise).
5. The claim "``R* - 1`` rounds are impossible" is then proved on a standalone CNF by
   CaDiCaL with an LRAT proof trimmed to its core, judged by two independent checkers
   (:func:`gossipcert.proofs.checkers.check_lrat_proof`); if that does not finish in time the
   evidence is the back-end's infeasibility claim, labelled as such. With the SAT back-end
   the deciding query ``r = L = U - 1`` (a refutation certifies ``U``, a model ``U - 1``)
   is itself asked on that CNF with the proof on
   (:class:`gossipcert.proofs.refutation.HorizonProver`), so that horizon is solved once and its
   proof reused; a probe there that runs out of its slice is resumed, not restarted, by the
   ascending query.

Every schedule returned has passed :func:`gossipcert.simulate.simulate`.
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from gossipcert.closed_forms import Bound, best_lower_bound
from gossipcert.encodings import Encoding, EncodingOptions, encoding_for
from gossipcert.errors import SolverError, UnsupportedModelError
from gossipcert.finders import portfolio as _portfolio
from gossipcert.finders.portfolio import PortfolioSettings
from gossipcert.finders.upper import Progress, schedule_by_horizon, upper_bound_schedules
from gossipcert.finders.upper import verified as _verified
from gossipcert.instance import Instance, bits
from gossipcert.proofs import kernel_notice
from gossipcert.schedule import Schedule
from gossipcert.search.heartbeat import heartbeats
from gossipcert.search.outcome import SolveResult
from gossipcert.simulate import Report, simulate
from gossipcert.solvers.backends import Status, make_backend
from gossipcert.statuses import SolveStatus, Verdict
from gossipcert.symmetry.automorphisms import add_lex_leader, automorphism_generators

if TYPE_CHECKING:
    from gossipcert.encodings.cnf import StandaloneCNF
    from gossipcert.proofs.refutation import DecidedHorizon, HorizonProver, ProofResult
    from gossipcert.proofs.verdicts import ProofVerdict

#: the events after which a stopped search's state has changed (:meth:`_Search.state`)
STATE_EVENTS = ("lower-bound", "upper-bound", "query", "proof")

#: seconds for each descending probe "is the best schedule optimal?"
PROBE_SECONDS = 30.0
#: seconds for each query of the quick ascending pass before the probes
QUICK_SECONDS = 5.0


def prove_unsat(cnf: StandaloneCNF, deadline: float | None, lrat: bool) -> ProofResult:
    """:func:`gossipcert.proofs.refutation.prove_unsat`. The proof machinery
    (:mod:`gossipcert.proofs`) is imported when a proof is made, not with the search: a
    search that the closed forms settle loads none of it."""
    from gossipcert.proofs.refutation import prove_unsat as prove

    return prove(cnf, deadline, lrat=lrat)


def check_refutation(
    cnf_text: str,
    proof: str,
    proof_format: str,
    deadline: float | None,
    meanwhile: Callable[[], None],
    formula: tuple[int, list[list[int]]],
) -> ProofVerdict:
    """:func:`gossipcert.proofs.checkers.check_refutation`, imported when a proof is checked
    (:func:`prove_unsat`)."""
    from gossipcert.proofs.checkers import check_refutation as check

    return check(cnf_text, proof, proof_format, deadline, meanwhile=meanwhile, formula=formula)


class _Search:
    """The state of one :func:`solve` call; each step is one method, run in order by ``run``.

    ``lower`` and ``lower_evidence`` hold the best lower bound and how it is known, ``best``
    the shortest verified schedule; ``unsat_at`` the largest horizon the solver refuted.
    """

    #: the symmetric step ran (the portfolio's ``symmetric`` entrant is then skipped)
    symmetric_ran: bool = False
    #: the last upper bound reported, with its source (:meth:`tell_upper`)
    told_upper: tuple[int | None, str | None] = (None, None)

    def __init__(
        self,
        instance: Instance,
        backend: str,
        time_limit: float | None,
        options: EncodingOptions,
        use_bounds: bool,
        proof: bool,
        progress: Progress | None,
        seeds: list[tuple[str, Schedule]] | None = None,
        *,
        portfolio: PortfolioSettings | None = None,
        symmetric: bool = True,
        on_state: Callable[[dict[str, Any]], None] | None = None,
    ) -> None:
        #: race the schedule portfolio for the upper bound (None: do not)
        self.portfolio = portfolio
        #: try schedules invariant under small automorphism groups (``symmetric_step``)
        self.symmetric = symmetric
        #: receives :meth:`state` whenever a bound, a query or a proof changes it
        self.on_state = on_state
        self.instance = instance
        self.seeds = list(seeds or [])
        self.backend = backend
        self.options = options
        self.use_bounds = use_bounds
        self.proof = proof
        self.progress = progress
        self.start = time.monotonic()
        self.deadline = None if time_limit is None else self.start + time_limit
        self.log: list[dict[str, Any]] = []
        self.times: dict[str, float] = {}
        self.lower = 0
        self.lower_name = ""
        self.lower_evidence: dict[str, Any] = {}
        self.best: tuple[Schedule, Report] | None = None
        self.upper_source = "none"
        self.unsat_at: int | None = None
        #: the deciding horizon solved with the proof on (reused by ``prove``)
        self.decided: DecidedHorizon | None = None
        #: the solver of horizon ``U - 1`` with the proof on, kept to resume after a time-out
        self.prover: HorizonProver | None = None
        self.t_find = self.t_prove = 0.0

    # ---------------------------------------------------------------- helpers

    def emit(self, event: dict[str, Any]) -> None:
        event = {**event, "time": round(time.monotonic() - self.start, 3)}
        self.log.append(event)
        # the state first: a parent that stops this search once it has seen the event
        # answers from a state that already holds what the event announces
        if self.on_state is not None and event["event"] in STATE_EVENTS:
            self.on_state(self.state(with_schedule=event["event"] == "upper-bound"))
        if self.progress is not None:
            self.progress(event)

    def state(self, with_schedule: bool = False) -> dict[str, Any]:
        """What a parent needs to answer if this search is stopped now: the lower bound and
        its evidence (a solver's claim where the last refutation set it), where the upper
        bound comes from, the encoding options and (``with_schedule``) the best schedule."""
        refuted = self.unsat_at is not None and self.unsat_at + 1 == self.lower
        state: dict[str, Any] = {
            "lower": self.lower,
            "evidence": self.claim() if refuted else self.lower_evidence,
            "upper_source": self.upper_source,
            "options": self.options,
        }
        if with_schedule and self.best is not None:
            state["schedule"] = self.best[0]
        return state

    @property
    def upper(self) -> int | None:
        return None if self.best is None else self.best[1].rounds

    def result(
        self, status: SolveStatus, evidence: dict[str, Any] | None = None, interrupted: bool = False
    ) -> SolveResult:
        now = time.monotonic()
        self.times["total"] = now - self.start
        timed_out = self.deadline is not None and now >= self.deadline and not interrupted
        sched, rep = self.best if self.best is not None else (None, None)
        return SolveResult(
            self.instance,
            status,
            self.upper if status is SolveStatus.OPTIMAL else None,
            self.lower,
            self.upper,
            sched,
            rep,
            self.lower_evidence if evidence is None else evidence,
            self.upper_source,
            self.backend,
            self.options,
            self.times,
            self.log,
            timed_out,
            interrupted,
        )

    # ---------------------------------------------------------------- 1. lower bound

    def lower_bound(self) -> None:
        """The best closed-form lower bound (or the trivial one)."""
        if self.use_bounds:
            lb = best_lower_bound(self.instance)
        else:
            lb = Bound(
                "trivial",
                "lower",
                1 if _unmet(self.instance) else 0,
                "a demand not met at the start needs a round",
            )
        self.lower = lb.value
        self.lower_name = lb.name
        self.lower_evidence = {
            "kind": "closed-form",
            "name": lb.name,
            "value": lb.value,
            "source": lb.source,
        }
        self.emit({"event": "lower-bound", "value": lb.value, "source": lb.name})

    # ---------------------------------------------------------------- 2. upper bound

    def upper_bound(self) -> None:
        """The shortest verified schedule among the seeds, constructions and heuristics
        (the search for one stops when a schedule meets the lower bound)."""
        for name, cand in itertools.chain(self.seeds, upper_bound_schedules(self.instance)):
            rep = simulate(self.instance, cand)
            if rep.ok and (self.upper is None or rep.rounds < self.upper):  # type: ignore[operator]
                self.best = (Schedule(cand.rounds[: rep.rounds]), rep)
                self.upper_source = name
                # reported at once, so that a run killed at its limit while a later
                # candidate is built keeps it
                self.tell_upper()
            if self.upper is not None and self.upper <= self.lower:
                break
        self.symmetric_schedules()
        if self.portfolio is not None and (self.upper is None or self.upper > self.lower):
            self.race_portfolio()
        if self.upper is not None:
            self.tell_upper()
            if self.upper < self.lower:
                raise SolverError(
                    f"the verified schedule of {self.upper} rounds beats the closed-form lower "
                    f"bound {self.lower} ({self.lower_name}): that bound does not hold here"
                )
        self.times["bounds"] = time.monotonic() - self.start

    def tell_upper(self) -> None:
        """Report the upper bound and its source, unless they were the last reported."""
        told = (self.upper, self.upper_source)
        if told != self.told_upper:
            self.told_upper = told
            self.emit({"event": "upper-bound", "value": self.upper, "source": self.upper_source})

    def symmetric_schedules(self) -> None:
        """Shorter schedules invariant under small automorphism groups, for a short budget
        (:mod:`gossipcert.finders.invariant_step`), each verified like the candidates."""
        from gossipcert.finders import invariant_step as step

        if not self.symmetric or self.upper is None or self.upper <= self.lower:
            return
        if not step.symmetric_step_applies(self.instance):
            return
        self.symmetric_ran = True
        # reported first, so that a run killed at its limit keeps it
        self.tell_upper()
        budget = step.step_budget(self.deadline)
        for name, cand in step.symmetric_candidates(
            self.instance, self.upper, self.lower, budget, self.emit
        ):
            rep = simulate(self.instance, cand)
            if rep.ok and rep.rounds < self.upper:  # type: ignore[operator]
                self.best = (Schedule(cand.rounds[: rep.rounds]), rep)
                self.upper_source = name
                self.tell_upper()

    def race_portfolio(self) -> None:
        """A shorter schedule from the portfolio (:mod:`gossipcert.finders.portfolio`), given
        at most half the time left; its ``candidates`` entrant is the step above, skipped,
        and so is its ``symmetric`` entrant where the symmetric step ran."""
        settings = self.portfolio
        if settings is None:  # no portfolio asked for
            return
        if self.deadline is not None:
            left = (self.deadline - time.monotonic()) / 2
            settings = replace(settings, seconds=max(0.0, min(settings.seconds, left)))
        seeds = [] if self.best is None else [(self.upper_source, self.best[0])]
        skip = ("candidates", "symmetric") if self.symmetric_ran else ("candidates",)
        res = _portfolio.race(self.instance, settings, self.lower, seeds, self.emit, skip=skip)
        if res.schedule is not None and res.report is not None:
            if self.upper is None or res.report.rounds < self.upper:  # type: ignore[operator]
                self.best = (res.schedule, res.report)
                self.upper_source = f"portfolio {res.entrant}"

    # ---------------------------------------------------------------- 3. search

    def encode(self) -> Encoding | None:
        """The encoding with the horizon of the best schedule minus one, or None."""
        try:
            enc = encoding_for(self.instance, self.options)
        except UnsupportedModelError as exc:
            self.emit({"event": "no-solver", "reason": str(exc)})
            return None
        self.options = enc.options
        enc.extend_to(max(self.lower, (self.upper or 1) - 1))
        if enc.options.symmetry:
            gens = add_lex_leader(enc, automorphism_generators(self.instance))
            self.emit({"event": "symmetry", "generators": gens})
        return enc

    def query(self, enc: Encoding, solver: Any, r: int, until: float | None) -> Status:
        """Ask whether ``r`` rounds suffice; a model lowers ``U``, a refutation raises ``L``."""
        q0 = time.monotonic()
        hint = None
        if self.backend == "cpsat" and self.best is not None:
            hint = enc.hint(self.best[0], enc.horizon)
        status = solver.solve([enc.selector(r)], until, hint, lambda: self.heartbeat(r))
        dt = time.monotonic() - q0
        self.emit({"event": "query", "rounds": r, "status": status.value, "seconds": round(dt, 3)})
        if status is Status.SAT:
            self.t_find += dt
            self.best = _verified(
                self.instance, enc.decode(r, solver.value), f"{self.backend} solver's"
            )
            self.upper_source = f"{self.backend}-solver"
            self.tell_upper()
        elif status is Status.UNSAT:
            self.t_prove += dt
            self.unsat_at = r
            self.lower = r + 1
            self.emit(
                {"event": "lower-bound", "value": self.lower, "source": f"{self.backend}-solver"}
            )
        return status

    def search(self, enc: Encoding) -> bool:
        """Descending probes from ``U - 1``, then ascending queries from ``L``.

        Returns False when the time limit ends the search before the bounds meet.
        """
        solver = make_backend(self.backend, enc.formula)
        try:
            # a quick ascending pass: cheap refutations below U - 1 first (each query at
            # most QUICK_SECONDS), so that the probe at U - 1 is the deciding query
            while self.upper is not None and self.lower < self.upper - 1:
                until = time.monotonic() + QUICK_SECONDS
                if self.deadline is not None:
                    until = min(until, self.deadline)
                if self.query(enc, solver, self.lower, until) is not Status.UNSAT:
                    break
            # descending probes: is the best schedule already optimal? each gets a slice
            while self.upper is not None and self.lower < self.upper:
                now = time.monotonic()
                slice_end = now + PROBE_SECONDS
                if self.deadline is not None:
                    slice_end = min(slice_end, now + (self.deadline - now) / 4)
                if self.ask(enc, solver, self.upper - 1, slice_end) is not Status.SAT:
                    break
            # ascending from the lower bound: each refutation raises it, a model ends it
            while self.upper is None or self.lower < self.upper:
                if self.ask(enc, solver, self.lower, self.deadline) is Status.UNKNOWN:
                    return False
        finally:
            solver.close()
            if self.prover is not None:
                self.prover.close()
            self.times.update(find=self.t_find, prove=self.t_prove)
        return True

    def ask(self, enc: Encoding, solver: Any, r: int, until: float | None) -> Status:
        """:meth:`query`, except that the deciding query ``r = L = U - 1`` (either answer
        ends the search) is asked with the DRAT proof on (:meth:`decide`) when the proof
        will be wanted. Other queries keep the incremental solver: a probe below a looser
        lower bound may well find a model, and a proof solver per probe would rebuild the
        CNF and log a proof for nothing."""
        deciding = self.upper is not None and r == self.lower == self.upper - 1
        if deciding and self.proof and self.backend == "sat":
            return self.decide(r, until)
        return self.query(enc, solver, r, until)

    def decide(self, r: int, until: float | None) -> Status:
        """Ask whether ``r`` rounds suffice on the standalone CNF with the proof on
        (:class:`HorizonProver`): a refutation comes with its proof, which ``prove`` reuses. A
        time-out keeps the solver, and the next call for ``r`` resumes it."""
        if self.prover is not None and self.prover.cnf.rounds != r:
            self.prover.close()
            self.prover = None
        if self.prover is None:
            from gossipcert.proofs.refutation import HorizonProver

            self.prover = HorizonProver(self.instance, r, self.options)
        q0 = time.monotonic()
        got = self.prover.solve(until, lambda: self.heartbeat(r))
        dt = time.monotonic() - q0
        status = Status(got.result.status)
        self.emit({"event": "query", "rounds": r, "status": status.value, "seconds": round(dt, 3)})
        if status is Status.UNKNOWN:
            return status
        self.prover.close()
        self.prover = None
        if status is Status.SAT:
            assert got.schedule is not None
            self.t_find += dt
            self.best = _verified(self.instance, got.schedule, "proof solver's")
            self.upper_source = "sat-solver"
            self.tell_upper()
        else:
            self.t_prove += dt
            self.unsat_at, self.lower, self.decided = r, r + 1, got
            self.emit({"event": "lower-bound", "value": self.lower, "source": "sat-solver"})
        return status

    def heartbeat(self, r: int) -> None:
        """A progress event during a long query (not logged)."""
        if self.progress is not None:
            self.progress(
                {
                    "event": "heartbeat",
                    "time": round(time.monotonic() - self.start, 3),
                    "rounds": r,
                    "lower": self.lower,
                    "upper": self.upper,
                }
            )

    def beating(self, what: str, r: int) -> AbstractContextManager[None]:
        """Heartbeats naming ``what`` while a step without a callback runs (a proof, its
        checks)."""
        return heartbeats(
            self.progress,
            what,
            lambda: {
                "time": round(time.monotonic() - self.start, 3),
                "rounds": r,
                "lower": self.lower,
                "upper": self.upper,
            },
        )

    # ---------------------------------------------------------------- 4. proof

    def claim(self) -> dict[str, Any]:
        """The back-end's infeasibility claim as evidence (weaker than a proof)."""
        return {
            "kind": "solver-claim",
            "rounds": self.unsat_at,
            "solver": "CaDiCaL 1.9.5 (PySAT)" if self.backend == "sat" else "CP-SAT (OR-Tools)",
            "encoding": self.options.to_json(),
            "note": "the solver's infeasibility claim, not independently checked",
        }

    def prove(self) -> dict[str, Any]:
        """Evidence that ``U - 1`` rounds are impossible: a checked DRAT proof if it can."""
        if self.unsat_at is None or self.unsat_at + 1 != self.upper:
            return self.lower_evidence  # the schedule met the closed-form bound
        if not self.proof:
            return self.claim()
        from gossipcert.proofs.evidence import drat_evidence
        from gossipcert.proofs.refutation import pack_proof
        from gossipcert.solvers.standalone import standalone_cnf

        rounds = self.unsat_at
        p0 = time.monotonic()
        if self.decided is not None and self.decided.cnf.rounds == rounds:
            cnf, pr = self.decided.cnf, self.decided.result  # decided with the proof on
        else:
            cnf = standalone_cnf(self.instance, rounds, self.options)
            with self.beating(f"writing the proof for {rounds} rounds", rounds):
                pr = prove_unsat(cnf, self.deadline, lrat=True)
        self.emit(
            {
                "event": "proof",
                "rounds": rounds,
                "status": pr.status,
                "seconds": round(pr.seconds, 3),
            }
        )
        if pr.status != Status.UNSAT or pr.proof is None:
            if pr.status == Status.SAT:
                raise SolverError(
                    f"back-ends disagree: the standalone CNF for {rounds} rounds is satisfiable"
                )
            self.times["proof"] = time.monotonic() - p0
            return self.claim()
        packed: list[str] = []  # compressed while the second checker works
        proof = pr.proof
        with self.beating(f"checking the proof for {rounds} rounds", rounds):
            verdict = check_refutation(
                cnf.dimacs(),
                proof,
                pr.proof_format,
                self.deadline,
                meanwhile=lambda: packed.append(pack_proof(proof)),
                formula=(cnf.nvars, cnf.clauses),
            )
        self.times["proof"] = time.monotonic() - p0
        self.emit({"event": "proof-check", "status": verdict.status, "summary": verdict.summary()})
        if verdict.status == Verdict.REJECTED:
            raise SolverError(f"the proof for {rounds} rounds was rejected: {verdict.summary()}")
        if not verdict.ok:  # a required checker ran out of time: the solver's word is all
            return self.claim()
        return drat_evidence(self.options, rounds, cnf, pr, verdict, *packed[:1])

    # ---------------------------------------------------------------- the steps in order

    def first_schedule(self) -> None:
        """No seed, heuristic or construction applied: ask the solver, doubling the horizon."""
        found = schedule_by_horizon(
            self.instance, self.options, self.backend, max(self.lower, 1), self.deadline, self.emit
        )
        if found is not None:
            self.best = found
            self.upper_source = f"{self.backend}-solver"
            self.tell_upper()

    def interrupted(self) -> SolveResult:
        """The answer at Ctrl-C: the bounds known at that moment."""
        self.times.update(find=self.t_find, prove=self.t_prove)
        refuted = self.unsat_at is not None and self.unsat_at + 1 == self.lower
        return self.result(
            SolveStatus.of_bracket(self.lower, self.upper),
            self.claim() if refuted else self.lower_evidence,
            interrupted=True,
        )

    def relaxation(self) -> None:
        """Cheap refutations by the row-and-column relaxation, before the full formula
        (:func:`gossipcert.proofs.relaxation.relaxation_step`)."""
        from gossipcert.proofs.relaxation import relaxation_step

        relaxation_step(self)

    def packets(self) -> None:
        """Refutations through one packet's broadcast, before the relaxation
        (:func:`gossipcert.proofs.packet_refutation.packet_step`)."""
        from gossipcert.proofs.packet_refutation import packet_step

        packet_step(self)

    def run(self) -> SolveResult:
        # the first proof after an install compiles the kernels: said on the progress stream
        with kernel_notice.announcing(lambda what: self.emit({"event": "stage", "what": what})):
            return self._run()

    def _run(self) -> SolveResult:
        self.lower_bound()
        self.upper_bound()
        if self.upper is not None and self.upper > self.lower:
            self.packets()
        if self.upper is not None and self.upper > self.lower:
            self.relaxation()
        if self.upper is not None and self.upper == self.lower:
            return self.result(SolveStatus.OPTIMAL)
        try:
            enc = self.encode()
            if enc is None:
                return self.result(
                    SolveStatus.FEASIBLE if self.best is not None else SolveStatus.UNKNOWN
                )
            if self.best is None:
                self.first_schedule()
            if not self.search(enc):
                status = SolveStatus.FEASIBLE if self.best is not None else SolveStatus.UNKNOWN
                return self.result(
                    status, self.lower_evidence if self.unsat_at is None else self.claim()
                )
            return self.result(SolveStatus.OPTIMAL, self.prove())
        except KeyboardInterrupt:
            return self.interrupted()


def _unmet(instance: Instance) -> bool:
    return any(bits(d & ~h) for d, h in zip(instance.demands, instance.holdings, strict=False))
