"""Time limits that hold: the work runs in a forked child that is killed at the deadline.

The search keeps its own deadline (CaDiCaL in conflict-budget slices, CP-SAT with a time
limit, the proof checkers in child processes), but a single slice, the constructions on a
large graph, building a large encoding or regenerating a CNF cannot be stopped from inside.
So a command with a time limit runs its work in a forked child process
(:func:`gossipcert.children.call_in_child`) that reports every step to the parent, given
the limit minus a small margin (:func:`child_budget`) so that it normally ends on its own.
On the command line the limit counts from the process's start
(:mod:`gossipcert.command_start`); just before it (:func:`kill_after`) the parent kills
the child, does not wait for it to be gone, and answers from the last state reported, its
schedule verified as it arrived (:class:`gossipcert.search.reports.Reports`). Since the kill
bounds the time, the child lets CaDiCaL's conflict-budget slices double up to the time left
(:func:`gossipcert.solvers.backends.allow_long_slices`) instead of restarting every second.

- :func:`solve_within`: :func:`gossipcert.search.entry.solve` under a hard limit;
- :func:`check_within`: :func:`gossipcert.certificates.certificate.check_certificate` under a
  hard limit (killed, the check is no verdict, never a failure);
- :func:`upgrade_within`: the same check, replacing stored DRAT proofs by LRAT ones.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from contextlib import nullcontext
from typing import TYPE_CHECKING, Any

from gossipcert.children import Send, call_in_child
from gossipcert.command_start import limit_origin
from gossipcert.encodings import EncodingOptions
from gossipcert.errors import SolverError
from gossipcert.instance import Instance
from gossipcert.schedule import Schedule
from gossipcert.search.outcome import SolveResult
from gossipcert.search.reports import Reports
from gossipcert.search.rounds import Progress, _Search
from gossipcert.solvers.backends import BACKENDS, allow_long_slices

if TYPE_CHECKING:
    from gossipcert.search.split import SplitSettings

#: the child gets the limit minus this fraction of it ...
MARGIN_FRACTION = 0.03
#: ... but never more than this many seconds less
MARGIN_SECONDS = 2.0

#: a child that ended without an answer: not a time-out, and nothing it reported is kept
_DIED = (
    "the {what} process ended without an answer (killed by the system, e.g. out of memory, "
    "or a crash in a native solver)"
)


def child_budget(time_limit: float) -> float:
    """Seconds the child is given for a hard limit of ``time_limit`` seconds."""
    return max(0.0, time_limit - min(MARGIN_SECONDS, MARGIN_FRACTION * time_limit))


#: the child is killed this fraction of the limit before it ends ...
ANSWER_FRACTION = 0.01
#: ... but never more than this many seconds before: the time the parent keeps to answer
#: from the child's last state (the schedule in it is verified as it arrives, and the
#: killed child is not waited for, so what is left is to assemble the answer)
ANSWER_SECONDS = 0.5


def kill_after(time_limit: float) -> float:
    """Seconds after the limit's origin at which the child of a hard limit of
    ``time_limit`` seconds is killed: the limit less the time kept to answer.

    Examples
    --------
    >>> kill_after(60.0), kill_after(10.0)
    (59.5, 9.9)
    """
    return time_limit - min(ANSWER_SECONDS, ANSWER_FRACTION * time_limit)


# ------------------------------------------------------------------------------ solve


def _solve_child(send: Send, kwargs: dict[str, Any], split: SplitSettings | None) -> SolveResult:
    def progress(event: dict[str, Any]) -> None:
        send(("message", ("event", event)))

    def on_state(state: dict[str, Any]) -> None:
        send(("message", ("state", state)))

    if split is None:
        return _Search(**kwargs, progress=progress, on_state=on_state).run()
    from gossipcert.search.split import SplitSearch

    return SplitSearch(**kwargs, progress=progress, on_state=on_state, split=split).run()


def solve_within(
    instance: Instance,
    backend: str = "sat",
    time_limit: float | None = None,
    strict: bool = False,
    proof: bool = True,
    use_bounds: bool = True,
    counting: bool = False,
    options: EncodingOptions | None = None,
    progress: Progress | None = None,
    seeds: list[tuple[str, Schedule]] | None = None,
    split: SplitSettings | None = None,
    encoding: str = "auto",
    portfolio: Any = None,
    in_child: bool = False,
) -> SolveResult:
    """:func:`gossipcert.search.entry.solve` with a time limit that holds.

    Same parameters and result as :func:`~gossipcert.search.entry.solve`; with ``split``,
    the refutations are done by cubes (:class:`gossipcert.search.split.SplitSearch`).
    Without a time limit it is that search in this process. With one, the search runs in
    a child process given :func:`child_budget` seconds and killed at :func:`kill_after`
    seconds (just before ``time_limit``); killed, the answer is built from its last
    reported state (``timed_out`` set, the schedule verified again as it arrived).
    ``in_child`` runs the search in a child without a time limit too (the command line:
    SIGINT or SIGTERM then answers within a second from the child's last reported state,
    ``interrupted`` set, whatever the child is doing).

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> solve_within(parse_instance("ring:6", "telephone", "gossip"), time_limit=30).optimum
    3
    """
    from gossipcert.search.entry import _solve_reduction, solve
    from gossipcert.search.outcome import search_options

    if backend not in BACKENDS:
        raise SolverError(f"unknown back-end {backend!r}; choose one of {', '.join(BACKENDS)}")
    if instance.problem.reduction:

        def other(sub: Instance, limit: float | None = time_limit) -> SolveResult:
            return solve_within(
                sub, backend, limit, strict, proof, use_bounds, counting, options,
                progress, None, split, encoding, portfolio, in_child,
            )  # fmt: skip

        return _solve_reduction(instance, other, time_limit, strict, progress, seeds)
    if options is None:
        options = search_options(instance, encoding, strict, counting)
    if time_limit is None and split is not None and not in_child:
        from gossipcert.search.split import SplitSearch

        args = (instance, backend, None, options, use_bounds, proof, progress, seeds)
        return SplitSearch(*args, split=split, portfolio=portfolio).run()
    if time_limit is None and not in_child:
        return solve(
            instance, backend, None, proof=proof, use_bounds=use_bounds, options=options,
            progress=progress, seeds=seeds, portfolio=portfolio,
        )  # fmt: skip
    start = limit_origin()
    kwargs = {
        "instance": instance,
        "backend": backend,
        "time_limit": None
        if time_limit is None
        else max(0.0, child_budget(time_limit) - (time.monotonic() - start)),
        "options": options,
        "use_bounds": use_bounds,
        "proof": proof,
        "seeds": seeds,
        "portfolio": portfolio,
    }
    reports = Reports(instance, start, progress)
    deadline = None if time_limit is None else start + kill_after(time_limit)
    # killed at a deadline, the child may let CaDiCaL run long slices
    slices = None if deadline is None else allow_long_slices
    kind, value = call_in_child(
        _solve_child, (kwargs, split), deadline, reports.on_message, slices, reports.on_idle
    )
    if kind == "result":
        return value
    if kind == "died":
        state = reports.state
        raise SolverError(
            _DIED.format(what="search")
            + f" (last state: lower bound {state['lower']}, upper bound from "
            f"{state['upper_source']})"
        )
    return reports.answer(backend, options, kind)


# ------------------------------------------------------------------------------ check


def _check_child(
    send: Send, cert: dict[str, Any], budget: float | None, full: bool, upgrade: bool
) -> Any:
    """In the child: the check (upgrading its DRAT proofs: and the certificate upgraded)."""
    from gossipcert.certificates.certificate import check_certificate
    from gossipcert.proofs.refutation import upgrading

    def forward(ok: bool | None, text: str, claim: bool) -> None:
        send(("message", (ok, text, claim)))

    with upgrading() if upgrade else nullcontext():
        report = check_certificate(cert, budget, full, on_step=forward)
    report.listener = None  # the report goes back to the parent: no function inside
    return (report, cert) if upgrade else report


def check_within(
    cert: dict[str, Any],
    time_limit: float | None,
    full: bool = False,
    on_step: Callable[[bool | None, str, bool], None] | None = None,
    in_child: bool = False,
) -> Any:
    """:func:`gossipcert.certificates.certificate.check_certificate` with a time limit that holds.

    ``on_step(ok, text, claim)`` is called as each step is decided. Killed at the limit, the
    report keeps the steps decided so far and ends with one undecided step (no verdict,
    never a failure). ``in_child`` runs the check in a child without a time limit too (the
    command line: a native proof checker or CNF generator does not return to Python for
    seconds, so SIGINT or SIGTERM stops the check only through its parent);
    interrupted, :class:`KeyboardInterrupt` is raised.
    """
    return _checked(cert, time_limit, full, on_step, in_child, upgrade=False)


def upgrade_within(
    cert: dict[str, Any],
    time_limit: float | None,
    on_step: Callable[[bool | None, str, bool], None] | None = None,
    in_child: bool = False,
) -> tuple[Any, dict[str, Any] | None]:
    """:func:`check_within` that replaces every stored DRAT refutation by a trimmed LRAT
    proof on the way (:func:`gossipcert.proofs.refutation.upgrading`): the report and the
    upgraded certificate (None when the check was stopped at the limit)."""
    return _checked(cert, time_limit, False, on_step, in_child, upgrade=True)


def _checked(
    cert: dict[str, Any],
    time_limit: float | None,
    full: bool,
    on_step: Callable[[bool | None, str, bool], None] | None,
    in_child: bool,
    upgrade: bool,
) -> Any:
    """:func:`check_within` and :func:`upgrade_within`."""
    from gossipcert.certificates.certificate import CheckReport, check_certificate
    from gossipcert.proofs.refutation import upgrading

    if time_limit is None and not in_child:
        if not upgrade:
            return check_certificate(cert, None, full, on_step=on_step)
        with upgrading():
            return check_certificate(cert, None, full, on_step=on_step), cert
    done: list[tuple[bool | None, str, bool]] = []

    def arrived(step: tuple[bool | None, str, bool]) -> None:
        done.append(step)
        if on_step is not None:
            on_step(*step)

    start = limit_origin()
    budget = deadline = None
    if time_limit is not None:
        budget = max(0.0, child_budget(time_limit) - (time.monotonic() - start))
        deadline = start + time_limit
    slices = None if deadline is None else allow_long_slices  # killed at the deadline only
    args = (cert, budget, full, upgrade)
    kind, value = call_in_child(_check_child, args, deadline, arrived, slices)
    if kind == "result":
        return value
    if kind == "died":
        raise SolverError(_DIED.format(what="check"))
    if kind == "interrupted":
        raise KeyboardInterrupt
    rep = CheckReport()
    for ok, text, claim in done:
        rep.add(ok, text, claim)
    rep.add(None, f"no verdict: the check was stopped at the time limit ({time_limit:g}s)")
    return (rep, None) if upgrade else rep
