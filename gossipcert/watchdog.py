"""Time limits that hold: the work runs in a forked child that is killed at the deadline.

The search keeps its own deadline (CaDiCaL in conflict-budget slices, CP-SAT with a time
limit, the proof checkers in child processes), but a single slice, the constructions on a
large graph, building a large encoding or regenerating a CNF cannot be stopped from inside.
So a command with a time limit runs its work in a forked child process
(:class:`gossipcert.children.Child`) that reports every step to the parent through a pipe.
The child gets the limit minus a small margin
(:data:`MARGIN_FRACTION` of it, at most :data:`MARGIN_SECONDS`), so that it normally ends
on its own with its full answer. On the command line the limit counts from the process's
start (:mod:`gossipcert.command_start`); just before the limit (:func:`kill_after`: at most
:data:`ANSWER_SECONDS` before) the parent kills it and answers from the last state reported:
the best lower bound and its evidence, and the best schedule, verified again by
:func:`gossipcert.simulate.simulate` in the parent as it arrived. The killed child is not
waited for (:meth:`gossipcert.children.Child.reap`), so the answer comes within the limit,
or within a fraction of a second of it on a loaded machine. Since the kill bounds the time, the
child lets CaDiCaL's conflict-budget slices double up to the time left
(:func:`gossipcert.solvers.backends.allow_long_slices`) instead of restarting every second.

- :func:`gossipcert.children.call_in_child`: the mechanism (any function, any messages),
  shared with every other place that runs a child;
- :func:`solve_within`: :func:`gossipcert.search.entry.solve` under a hard limit;
- :func:`check_within`: :func:`gossipcert.certificates.certificate.check_certificate` under a hard
  limit (killed, the check is no verdict — ``timeout`` — never a failure);
- :func:`upgrade_within`: the same check, replacing stored DRAT proofs by LRAT ones.
"""

from __future__ import annotations

import math
import numbers
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from gossipcert.children import Send, call_in_child
from gossipcert.command_start import limit_origin
from gossipcert.encodings import EncodingOptions
from gossipcert.errors import SolverError, SpecError
from gossipcert.instance import Instance
from gossipcert.schedule import Schedule
from gossipcert.search.outcome import SolveResult
from gossipcert.search.rounds import Progress, _Search, _verified
from gossipcert.solvers.backends import BACKENDS, allow_long_slices
from gossipcert.statuses import SolveStatus

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


#: the longest time limit taken (about 116 days; the operating system's timers overflow far
#: above it); no limit at all is no time limit given
MAX_SECONDS = 10_000_000


def checked_time_limit(value: Any) -> float | None:
    """A time limit given from Python: None (no limit) or a positive finite number of
    seconds up to :data:`MAX_SECONDS`.

    Raises
    ------
    SpecError
        Anything else: 0, a negative number, NaN, infinity, a bool, a string.

    Examples
    --------
    >>> checked_time_limit(2), checked_time_limit(None)
    (2.0, None)
    >>> checked_time_limit(float("nan"))
    Traceback (most recent call last):
    ...
    gossipcert.errors.SpecError: time_limit must be a positive number of seconds or None, got nan
    """
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise SpecError(f"time_limit must be a positive number of seconds or None, got {value!r}")
    seconds = float(value)
    if not (math.isfinite(seconds) and seconds > 0):
        raise SpecError(f"time_limit must be a positive number of seconds or None, got {value!r}")
    if seconds > MAX_SECONDS:
        raise SpecError(
            f"time_limit must be at most {MAX_SECONDS:,} seconds, got {value!r}; give None "
            "for no limit"
        )
    return seconds


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
    state: dict[str, Any] = {"lower": 0, "evidence": {}, "upper_source": "none"}
    log: list[dict[str, Any]] = []
    on_message, on_idle = _listeners(state, log, start, progress, instance)
    deadline = None if time_limit is None else start + kill_after(time_limit)
    # killed at a deadline, the child may let CaDiCaL run long slices
    slices = None if deadline is None else allow_long_slices
    kind, value = call_in_child(
        _solve_child, (kwargs, split), deadline, on_message, slices, on_idle
    )
    if kind == "result":
        return value
    if kind == "died":
        raise SolverError(
            _DIED.format(what="search")
            + f" (last state: lower bound {state['lower']}, upper bound from "
            f"{state['upper_source']})"
        )
    return _from_state(instance, backend, options, state, log, start, kind)


def _listeners(
    state: dict[str, Any],
    log: list[dict[str, Any]],
    start: float,
    progress: Progress | None,
    instance: Instance,
) -> tuple[Callable[[tuple[str, Any]], None], Callable[[], None]]:
    """What :func:`solve_within` does with each message of its child (an event is logged
    and told, a state kept in ``state``, the schedule in it verified again at once, so that
    a child killed at the limit leaves nothing to replay) and while the child is silent (a
    heartbeat of the step the child last said it was in)."""
    # the step the child last said it was in, for the parent's own heartbeats
    doing: dict[str, Any] = {"what": "starting the search", "lower": None, "upper": None}
    doing["origin"] = start

    def on_message(msg: tuple[str, Any]) -> None:
        kind, value = msg
        if kind == "event":
            if isinstance(value.get("time"), int | float):  # the child's clock
                doing["origin"] = time.monotonic() - value["time"]
            if value["event"] == "heartbeat":
                doing.update(what=value.get("what"), rounds=value.get("rounds"))
                doing.update(lower=value.get("lower"), upper=value.get("upper"))
            else:
                log.append(value)
                doing.update(what=f"working (last step: {value['event']})", rounds=None)
                if value["event"] in ("lower-bound", "upper-bound"):
                    doing[value["event"].split("-")[0]] = value["value"]
            if progress is not None:
                progress(value)
        else:
            state.update(value)
            if value.get("schedule") is not None:
                state["verified"] = _verified(instance, value["schedule"], "reported")

    def on_idle() -> None:
        if progress is not None:
            progress(_idle_heartbeat(doing))

    return on_message, on_idle


def _idle_heartbeat(doing: dict[str, Any]) -> dict[str, Any]:
    """A heartbeat event sent by the parent while the child is silent (inside a native
    call), naming the step the child last reported; its time on the child's clock
    (``doing["origin"]``: when the child's clock read 0)."""
    return {
        "event": "heartbeat",
        "time": round(time.monotonic() - doing["origin"], 3),
        "rounds": doing.get("rounds"),
        "what": doing.get("what"),
        "lower": doing.get("lower"),
        "upper": doing.get("upper"),
    }


def _from_state(
    instance: Instance,
    backend: str,
    options: EncodingOptions,
    state: dict[str, Any],
    log: list[dict[str, Any]],
    start: float,
    kind: str,
) -> SolveResult:
    """The answer of a killed search, from its last reported state."""
    best = state.get("verified")  # the last schedule reported, verified as it arrived
    upper = None if best is None else best[1].rounds
    lower = int(state["lower"])
    optimal = upper is not None and lower == upper
    status = SolveStatus.of_bracket(lower, upper)
    evidence = state["evidence"] or {
        "kind": "closed-form",
        "name": "trivial",
        "value": lower,
        "source": "the lower bound known when the search was stopped",
    }
    return SolveResult(
        instance,
        status,
        upper if optimal else None,
        lower,
        upper,
        None if best is None else best[0],
        None if best is None else best[1],
        evidence,
        state["upper_source"] if best is not None else "none",
        backend,
        state.get("options", options),
        {"total": time.monotonic() - start},
        log,
        timed_out=kind != "interrupted",
        interrupted=kind == "interrupted",
    )


# ------------------------------------------------------------------------------ check


def _check_child(send: Send, cert: dict[str, Any], budget: float | None, full: bool) -> Any:
    from gossipcert.certificates.certificate import check_certificate

    def forward(ok: bool | None, text: str, claim: bool) -> None:
        send(("message", (ok, text, claim)))

    report = check_certificate(cert, budget, full, on_step=forward)
    report.listener = None  # the report goes back to the parent: no function inside
    return report


def _upgrade_child(
    send: Send, cert: dict[str, Any], budget: float | None, full: bool
) -> tuple[Any, dict[str, Any]]:
    from gossipcert.proofs.refutation import upgrading

    with upgrading():
        report = _check_child(send, cert, budget, full)
    return report, cert


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
    child = _upgrade_child if upgrade else _check_child
    kind, value = call_in_child(child, (cert, budget, full), deadline, arrived, slices)
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
