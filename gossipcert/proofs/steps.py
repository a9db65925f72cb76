"""DRAT evidence for linear-cost points: "fewer than ``S`` steps in ``R`` rounds is impossible".

:mod:`gossipcert.search.cost` finds the least number of steps ``S`` for ``R`` rounds by CP-SAT
optimisation, whose ``OPTIMAL`` status is the solver's word. This module states the claim
"a schedule of at most ``R`` rounds with at most ``S - 1`` steps exists" as a standalone CNF
and proves it unsatisfiable with CaDiCaL, writing a DRAT proof that the checkers of
:mod:`gossipcert.proofs.checkers` judge, as for the round optimum (:mod:`.proof`).

The CNF is the per-packet transfer encoding (:mod:`gossipcert.encodings.transfer`) for
horizon ``R`` with every demand required after round ``R``, the lex-leader constraints when
the options ask for them, and:

- ``("s", t, j)`` for ``j = 1 .. top`` (``top`` the packet cap, or the number of packets
  without one): "some node sends at least ``j`` packets in round ``t``", a unary counter
  (``s[t,j+1] -> s[t,j]``);
- *steps of a round*: for every node ``u``, ``sum sent(u,t) + sum_j not s[t,j] <= top``,
  i.e. ``u`` sends at most ``s_t`` packets (a totalizer);
- *learned* (implied): a node learns at most ``s_t`` packets in round ``t``, as it hears one
  sender (one transmission, or its one call partner):
  ``sum_q K[v,q,t] + sum_q not K[v,q,t-1] + sum_j not s[t,j] <= P + top``;
- *total*: ``sum_{t,j} s[t,j] <= S - 1`` (a totalizer).

A schedule of at most ``S - 1`` steps gives a model (``s_t`` the most packets any node sends),
so the CNF's unsatisfiability proves ``S_min(R) >= S``; with a verified schedule of ``R``
rounds and ``S`` steps the point is certified. The rules that are not implied (symmetry, no
useless sends, canonical order) keep the least ``S``: each maps a schedule to one with the
same rounds and no more steps (see :mod:`gossipcert.search.cost`); ``--strict`` leaves them out.

References
----------
.. [1] R. Beier and J. F. Sibeyn, "A powerful heuristic for telephone gossiping", section 2
   (linear cost, steps ``S``).
.. [2] N. Wetzler, M. Heule, W. Hunt, "DRAT-trim: efficient checking and trimming using
   expressive clausal proofs", SAT 2014.
"""

from __future__ import annotations

import time
from typing import Any

from gossipcert.encodings import EncodingOptions, TransferEncoding, encoding_for
from gossipcert.encodings.cnf import StandaloneCNF
from gossipcert.encodings.formula import Formula
from gossipcert.instance import Instance
from gossipcert.models import require_linear_cost
from gossipcert.proofs.evidence import refutation_fields
from gossipcert.proofs.refutation import (
    check_stored_refutation,
    checked_refutation,
    reliance,
    stored_options,
)
from gossipcert.schedule import from_json
from gossipcert.simulate import simulate
from gossipcert.symmetry.automorphisms import add_lex_leader, automorphism_generators


def step_top(instance: Instance) -> int:
    """The most packets one node can send in a round: the cap, or every packet."""
    cap = instance.model.packet_cap
    return instance.n_packets if cap is None else cap


def steps_formula(
    instance: Instance, rounds: int, max_steps: int, options: EncodingOptions
) -> tuple[Formula, int]:
    """The formula "at most ``rounds`` rounds and ``max_steps`` steps", and the number of
    symmetry generators (same variables and constraint order every time).

    Examples
    --------
    >>> from gossipcert.solvers.backends import SatBackend, Status
    >>> from gossipcert.instance import parse_instance
    >>> inst = parse_instance("path:3", "telephone", "gossip")
    >>> [SatBackend(steps_formula(inst, 3, s, EncodingOptions())[0]).solve([]) is Status.SAT
    ...  for s in (3, 4)]
    [False, True]
    """
    require_linear_cost(instance.model.kind)  # the counts below hold in those models only
    enc = encoding_for(instance, options, transfer=True)
    assert isinstance(enc, TransferEncoding)
    enc.extend_to(rounds)
    gens = add_lex_leader(enc, automorphism_generators(instance)) if enc.options.symmetry else 0
    enc.require(rounds)
    f = enc.formula
    top = step_top(instance)
    n_packets = instance.n_packets
    every: list[int] = []
    for t in range(1, rounds + 1):
        # s[j-1]: some node sends at least j packets in round t
        s = [f.var(("s", t, j)) for j in range(1, top + 1)]
        every.extend(s)
        for j in range(1, top):
            f.clause([-s[j], s[j - 1]])
        slack = [-x for x in s]
        for u in range(instance.n):
            sent = enc.sent_literals(u, t)
            if sent:
                f.at_most(sent + slack, top)
        for v in range(instance.n):
            lits, fixed = enc.learned_literals(v, t)
            f.at_most(lits + slack, n_packets + top - fixed)
    f.at_most(every, max_steps)
    return f, gens


def steps_cnf(
    instance: Instance, rounds: int, max_steps: int, options: EncodingOptions
) -> StandaloneCNF:
    """The CNF of :func:`steps_formula` (deterministic, so its hash can be compared)."""
    formula, gens = steps_formula(instance, rounds, max_steps, options)
    clauses = formula.cnf_since(0)  # allocates the totalizers' auxiliaries: count them after
    return StandaloneCNF(rounds, options, formula.vpool.top, clauses, gens)


def prove_steps(
    instance: Instance,
    rounds: int,
    steps: int,
    options: EncodingOptions,
    deadline: float | None = None,
) -> dict[str, Any] | None:
    """DRAT evidence that ``steps - 1`` steps in ``rounds`` rounds are impossible.

    Returns
    -------
    dict or None
        The evidence (kind ``drat``, the CNF's hash, the packed proof and every checker's
        verdict); None when the proof or its check did not finish before ``deadline``.

    Raises
    ------
    SolverError
        When the CNF is satisfiable (the claimed ``S`` is not the least) or a checker
        rejects the proof.
    UnsupportedModelError
        A model whose linear cost is not defined (all-port;
        :func:`gossipcert.models.require_linear_cost`).
    """
    start = time.monotonic()
    # the options the transfer encoding reads, so that the evidence names only the rules used
    options = encoding_for(instance, options, transfer=True).options
    cnf = steps_cnf(instance, rounds, steps - 1, options)
    checked = checked_refutation(
        cnf,
        deadline,
        f"{steps - 1} steps in {rounds} rounds are possible: S is not least",
        "the DRAT proof of the steps bound",
    )
    if checked is None:
        return None
    pr, verdict = checked
    assert pr.proof is not None
    return {
        **refutation_fields(options, rounds, cnf, pr, verdict),
        "steps": steps - 1,
        "seconds": round(time.monotonic() - start, 3),
    }


def check_steps_point(
    instance: Instance,
    point: dict[str, Any],
    time_limit: float | None,
    out: Any,
    full: bool = False,
) -> None:
    """Re-check one point of a steps certificate, adding each verdict to ``out``.

    The schedule is replayed by the verifier (at most ``rounds`` rounds, exactly ``steps``
    steps), the CNF "``steps - 1`` steps in ``rounds`` rounds" regenerated and its hash
    compared, and the DRAT proof re-checked by every checker.

    Parameters
    ----------
    instance : Instance
    point : dict
        ``rounds``, ``steps``, ``schedule`` and ``evidence`` (see :func:`prove_steps`).
    time_limit : float, optional
    out : CheckReport
        Anything with ``add(verdict, text)``.
    full : bool
        Let the project's own proof checker run to the end.
    """
    rounds, steps, ev = point["rounds"], point["steps"], point["evidence"]
    if not all(isinstance(x, int) and not isinstance(x, bool) for x in (rounds, steps)):
        out.add(False, f"point {rounds!r}/{steps!r}: rounds and steps must be integers")
        return
    rep = simulate(instance, from_json(point["schedule"], instance))
    ok = rep.ok and rep.length <= rounds and rep.steps == steps
    out.add(
        ok,
        f"R = {rounds}: schedule verified: {rep.length} rounds, {rep.steps} steps"
        + ("" if rep.ok else f" ({'breaks the model' if not rep.valid else 'demands unmet'})")
        + f" (certificate claims at most {rounds} rounds, {steps} steps)",
    )
    if not isinstance(ev, dict) or ev.get("kind") != "drat":
        out.add(False, f"R = {rounds}: evidence must be a DRAT proof")
        return
    if ev.get("rounds") != rounds or ev.get("steps") != steps - 1:
        out.add(
            False,
            f"R = {rounds}: the proof refutes {ev.get('steps')!r} steps in {ev.get('rounds')!r} "
            f"rounds, but S = {steps} needs {steps - 1} steps in {rounds} rounds refuted",
        )
        return
    options = stored_options(ev)
    out.add(True, f"R = {rounds}: " + reliance(options.not_implied()))
    cnf = steps_cnf(instance, rounds, steps - 1, options)
    what = f"CNF for {steps - 1} steps"
    check_stored_refutation(cnf, what, ev, time_limit, out, full, prefix=f"R = {rounds}: ")


def certify_points(
    instance: Instance, points: list[Any], options: EncodingOptions, deadline: float | None
) -> tuple[list[tuple[int, int, Any, dict[str, Any]]], list[int]]:
    """DRAT evidence for every point of a front that has a schedule.

    Parameters
    ----------
    instance : Instance
    points : list of FrontPoint
        From :func:`gossipcert.search.cost.pareto_front`.
    options : EncodingOptions
    deadline : float, optional
        A ``time.monotonic()`` value for all the proofs.

    Returns
    -------
    certified : list of (rounds, steps, schedule, evidence)
    missed : list of int
        The rounds whose point has a schedule but no proof in time.
    """
    certified: list[tuple[int, int, Any, dict[str, Any]]] = []
    missed: list[int] = []
    for p in points:
        if p.steps is None or p.schedule is None:
            continue
        ev = None if p.steps == 0 else prove_steps(instance, p.rounds, p.steps, options, deadline)
        if ev is None:
            missed.append(p.rounds)
        else:
            certified.append((p.rounds, p.steps, p.schedule, ev))
    return certified, missed
