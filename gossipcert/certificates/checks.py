"""The checker of each evidence kind, as :mod:`gossipcert.certificates.kinds` registers it.

Each function takes a :class:`Context` (the certificate's instance, optimum, evidence and
report) and adds the steps that re-derive that kind's lower bound; the steps common to every
certificate (the instance, the problem's label, the schedule, the bounds) are
:func:`gossipcert.certificates.certificate.check_certificate`'s. The work is done by the
modules that own each kind's argument (cited in each function); these functions adapt one
signature to it, and check what every kind of its family shares (the horizon refuted is
``R* - 1``; the certificate's ``symmetry_breaking`` flag agrees with the formula).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from gossipcert.closed_forms import bound_by_name
from gossipcert.encodings import EncodingOptions
from gossipcert.errors import UnsupportedModelError
from gossipcert.instance import Instance
from gossipcert.solvers.backends import SatBackend, Status

#: the check of a whole certificate ``(cert, time_limit, report, full)``, for those held in
#: the evidence (a reduction's dual, an allreduce's sub-problem)
CheckWhole = Callable[[dict[str, Any], float | None, Any, bool], None]


@dataclass
class Context:
    """What a kind's checker is given.

    Attributes
    ----------
    instance : Instance
        The instance, rebuilt from the certificate's record.
    optimum : int
        The certified optimum (a round count).
    evidence, cert : dict
        The evidence and the whole certificate.
    time_limit : float or None
    full : bool
        Let the project's own proof checker run to the end.
    out : CheckReport
        Where the steps go.
    check_whole : callable
        The check of a whole certificate (for certificates held in the evidence).
    report : callable
        Makes a report whose steps are passed to a listener (``CheckReport``).
    """

    instance: Instance
    optimum: int
    evidence: dict[str, Any]
    cert: dict[str, Any]
    time_limit: float | None
    full: bool
    out: Any
    check_whole: CheckWhole
    report: Callable[..., Any]


def closed_form(ctx: Context) -> None:
    """Recompute the named bound of :mod:`gossipcert.closed_forms`: it must apply, be a lower
    bound, equal the optimum and the value the certificate states."""
    ev, optimum, out = ctx.evidence, ctx.optimum, ctx.out
    b = bound_by_name(ctx.instance, str(ev.get("name")))
    # the stated value is what a reader sees: it must be the recomputed one
    stated = b is not None and ev.get("value", b.value) == b.value
    ok = b is not None and b.kind == "lower" and b.value == optimum and stated
    what = "not applicable" if b is None else f"{b.kind} bound {b.value}"
    out.add(
        ok,
        f"closed-form bound {ev.get('name')!r} recomputed: {what} "
        f"(optimum {optimum}; only a lower bound equal to it certifies)"
        + ("" if stated or b is None else f"; the certificate states {ev.get('value')!r}"),
    )
    out.add(
        ctx.cert.get("symmetry_breaking") is False,
        "no solver argument involved (symmetry_breaking false)",
    )


def reversal(ctx: Context) -> None:
    """The dual's whole certificate and the duality
    (:func:`gossipcert.certificates.reductions.check_reversal_evidence`)."""
    from gossipcert.certificates.reductions import check_reversal_evidence

    check_reversal_evidence(*_reduction_args(ctx))


def allreduce_bracket(ctx: Context) -> None:
    """An allreduce lower bound recomputed, or with its sub-problem's certificate
    (:func:`gossipcert.certificates.reductions.check_allreduce_evidence`)."""
    from gossipcert.certificates.reductions import check_allreduce_evidence

    check_allreduce_evidence(*_reduction_args(ctx))


def _reduction_args(ctx: Context) -> tuple[Any, ...]:
    return (
        ctx.instance,
        ctx.optimum,
        ctx.evidence,
        ctx.cert,
        ctx.time_limit,
        ctx.out,
        ctx.full,
        ctx.check_whole,
        ctx.report,
    )


def allreduce_drat(ctx: Context) -> None:
    """The allreduce CNF (exact or union relaxation) regenerated and its proof re-checked
    (:func:`gossipcert.certificates.reductions.check_allreduce_drat`)."""
    from gossipcert.certificates.reductions import check_allreduce_drat, union_relies_on

    check_allreduce_drat(ctx.instance, ctx.optimum, ctx.evidence, ctx.time_limit, ctx.out, ctx.full)
    _symmetry_flag(ctx, union_relies_on(ctx.evidence))


def allreduce_packing(ctx: Context) -> None:
    """Weights on the port slots and the proof of each chunk's least weight
    (:func:`gossipcert.proofs.allreduce_packing.check_packing_evidence`)."""
    from gossipcert.proofs.allreduce_packing import check_packing_evidence, packing_relies_on

    check_packing_evidence(
        ctx.instance, ctx.optimum, ctx.evidence, ctx.time_limit, ctx.out, ctx.full
    )
    _symmetry_flag(ctx, packing_relies_on(ctx.evidence))


def _symmetry_flag(ctx: Context, relies: list[str]) -> None:
    """The certificate's ``symmetry_breaking`` flag says whether the CNF relies on more than
    the model's rules; and what it relies on, stated."""
    from gossipcert.proofs.refutation import reliance

    consistent = ctx.cert.get("symmetry_breaking") is bool(relies)
    ctx.out.add(
        consistent,
        f"symmetry_breaking flag {'agrees' if consistent else 'DISAGREES'} with the CNF",
    )
    ctx.out.add(True, reliance(relies))


def refuted_rounds(ctx: Context) -> int | None:
    """The horizon the evidence refutes, when it is ``R* - 1``; else a failed step and None."""
    rounds = ctx.evidence.get("rounds")
    if not isinstance(rounds, int) or isinstance(rounds, bool) or rounds != ctx.optimum - 1:
        ctx.out.add(
            False,
            f"the evidence refutes {rounds!r} rounds, but an optimum of {ctx.optimum} needs "
            f"{ctx.optimum - 1} rounds refuted",
        )
        return None
    return rounds


def drat_relaxed(ctx: Context) -> None:
    """The relaxed CNF rebuilt from its rows and columns, its proof re-checked
    (:func:`gossipcert.proofs.relaxation.check_relaxed_evidence`)."""
    from gossipcert.proofs.relaxation import check_relaxed_evidence

    rounds = refuted_rounds(ctx)
    if rounds is not None:
        args = (ctx.evidence, ctx.cert, ctx.time_limit, ctx.out, ctx.full)
        check_relaxed_evidence(ctx.instance, rounds, *args)


def drat_packet(ctx: Context) -> None:
    """One packet's broadcast CNF rebuilt, its proof re-checked
    (:func:`gossipcert.proofs.packet_refutation.check_packet_evidence`)."""
    from gossipcert.proofs.packet_refutation import check_packet_evidence

    rounds = refuted_rounds(ctx)
    if rounds is not None:
        args = (ctx.evidence, ctx.cert, ctx.time_limit, ctx.out, ctx.full)
        check_packet_evidence(ctx.instance, rounds, *args)


def drat_cubes(ctx: Context) -> None:
    """Every cube's proof and the cover, for the models the split covers
    (:func:`gossipcert.certificates.split.check_cube_evidence`)."""
    from gossipcert.certificates.split import check_cube_evidence
    from gossipcert.search.split_refutation import check_split_applies

    try:
        check_split_applies(ctx.instance)  # the cover's argument is for these models only
    except UnsupportedModelError as exc:
        ctx.out.add(False, f"a split proof does not apply: {exc}")
        return
    rounds = refuted_rounds(ctx)
    if rounds is not None:
        args = (ctx.evidence, ctx.cert, ctx.time_limit, ctx.out, ctx.full)
        check_cube_evidence(ctx.instance, rounds, *args)


def drat(ctx: Context) -> None:
    """The CNF for ``R* - 1`` rounds regenerated (its SHA-256 compared) and its proof
    re-checked by every checker (:func:`gossipcert.proofs.refutation.check_drat_evidence`)."""
    from gossipcert.proofs.refutation import check_drat_evidence

    rounds, options = _encoded(ctx)
    if rounds is not None and options is not None:
        check_drat_evidence(
            ctx.instance, rounds, options, ctx.evidence, ctx.time_limit, ctx.out, ctx.full
        )


def solver_claim(ctx: Context) -> None:
    """The claim re-solved (no proof stored: at best ``unproved``)."""
    from gossipcert.solvers.standalone import standalone_formula

    rounds, options = _encoded(ctx)
    if rounds is None or options is None:
        return
    formula, _ = standalone_formula(ctx.instance, rounds, options)
    solver = SatBackend(formula)
    deadline = None if ctx.time_limit is None else time.monotonic() + ctx.time_limit
    try:
        status = solver.solve([], deadline)
    finally:
        solver.close()
    ctx.out.add(
        None if status is Status.UNKNOWN else status is Status.UNSAT,
        f"solver claim re-solved for {rounds} rounds: {status.value} (no proof stored: the "
        "solver's word again, not a proof)",
        claim=True,
    )


def _encoded(ctx: Context) -> tuple[int | None, EncodingOptions | None]:
    """The refuted horizon and the stored encoding options of a ``drat`` or ``solver-claim``
    record, with the symmetry flag and what the CNF relies on as steps."""
    from gossipcert.proofs.refutation import reliance, stored_options

    rounds = refuted_rounds(ctx)
    if rounds is None:
        return None, None
    options = stored_options(ctx.evidence)
    consistent = ctx.cert.get("symmetry_breaking") is options.symmetry
    ctx.out.add(
        consistent,
        f"symmetry_breaking flag {'agrees' if consistent else 'DISAGREES'} "
        "with the encoding options",
    )
    ctx.out.add(True, reliance(options.not_implied()))
    return rounds, options
