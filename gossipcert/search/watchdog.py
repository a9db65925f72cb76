"""Time limits that hold: the work runs in a forked child that is killed at the deadline.

The search keeps its own deadline (CaDiCaL in conflict-budget slices, CP-SAT with a time
limit, the proof checkers in child processes), but a single slice, the constructions on a
large graph, building a large encoding or regenerating a CNF cannot be stopped from inside.
So a command with a time limit runs its work in a child process (``os.fork``, which also
works inside the daemonic workers of a process pool or a Dask cluster) that reports every
step to the parent through a pipe. The child gets the limit minus a small margin
(:data:`MARGIN_FRACTION` of it, at most :data:`MARGIN_SECONDS`), so that it normally ends
on its own with its full answer. On the command line the limit counts from the process's
start (:mod:`gossipcert.command_start`); at the limit the parent kills it and answers from the last
state reported: the best lower bound and its evidence, and the best schedule, verified again
by :func:`gossipcert.simulate.simulate` in the parent. Since the kill bounds the time, the
child lets CaDiCaL's conflict-budget slices double up to the time left
(:func:`gossipcert.search.backends.allow_long_slices`) instead of restarting every second.

- :func:`call_in_child`: the mechanism (any function, any messages);
- :func:`solve_within`: :func:`gossipcert.search.rounds.solve` under a hard limit;
- :func:`check_within`: :func:`gossipcert.certificates.certificate.check_certificate` under a hard
  limit (killed, the check is no verdict — ``timeout`` — never a failure).
"""

from __future__ import annotations

import os
import pickle
import select
import signal
import struct
import time
from collections.abc import Callable
from typing import Any

from gossipcert.command_start import limit_origin
from gossipcert.encodings import EncodingOptions
from gossipcert.errors import SolverError
from gossipcert.instance import Instance
from gossipcert.parallel import die_with_parent
from gossipcert.schedule import Schedule
from gossipcert.search.backends import BACKENDS, allow_long_slices
from gossipcert.search.rounds import Progress, SolveResult, _Search, _verified
from gossipcert.search.split import SplitSearch, SplitSettings

#: the child gets the limit minus this fraction of it ...
MARGIN_FRACTION = 0.03
#: ... but never more than this many seconds less
MARGIN_SECONDS = 2.0
#: after SIGINT or SIGTERM, seconds the parent waits for the child's own answer before
#: killing it and answering from the child's last reported state
INTERRUPT_GRACE = 0.6

Send = Callable[[Any], None]

#: a child that ended without an answer: not a time-out, and nothing it reported is kept
_DIED = (
    "the {what} process ended without an answer (killed by the system, e.g. out of memory, "
    "or a crash in a native solver)"
)

_HEADER = struct.Struct("!Q")


def child_budget(time_limit: float) -> float:
    """Seconds the child is given for a hard limit of ``time_limit`` seconds."""
    return max(0.0, time_limit - min(MARGIN_SECONDS, MARGIN_FRACTION * time_limit))


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def _interrupt_once(signum: int, frame: Any) -> None:
    """The child's SIGINT and SIGTERM: the first stops the work (``KeyboardInterrupt``, so
    that it answers with what it has), later ones are ignored while it answers."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    raise KeyboardInterrupt


def _child(fd: int, fn: Callable[..., Any], args: tuple[Any, ...]) -> None:
    """Body of the child: run ``fn(send, *args)`` and send its outcome; never returns."""
    code = 0
    signal.signal(signal.SIGINT, _interrupt_once)
    signal.signal(signal.SIGTERM, _interrupt_once)

    def send(obj: Any) -> None:
        data = pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL)
        _write_all(fd, _HEADER.pack(len(data)) + data)

    try:
        try:
            send(("result", fn(send, *args)))
        except KeyboardInterrupt:
            send(("interrupted", None))
        except BaseException as exc:  # handed to the parent, raised there
            try:
                send(("error", exc))
            except Exception:  # an exception that does not pickle
                send(("error", SolverError(f"{type(exc).__name__}: {exc}")))
    except BaseException:
        code = 1
    finally:
        os._exit(code)


#: the longest time limit taken (about 116 days; the operating system's timers overflow far
#: above it); no limit at all is no time limit given
MAX_SECONDS = 10_000_000


class _Reader:
    """Length-prefixed pickles from a pipe, read without blocking past a deadline."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self.buffer = b""
        self.eof = False

    def messages(self, until: float | None) -> list[Any]:
        """The messages that arrive before ``until`` (at least one wait; [] on time-out)."""
        left = None if until is None else max(0.0, until - time.monotonic())
        ready, _, _ = select.select([self.fd], [], [], left)
        if not ready:
            return []
        chunk = os.read(self.fd, 1 << 20)
        if not chunk:
            self.eof = True
            return []
        self.buffer += chunk
        out = []
        while len(self.buffer) >= _HEADER.size:
            (size,) = _HEADER.unpack_from(self.buffer)
            if len(self.buffer) < _HEADER.size + size:
                break
            out.append(pickle.loads(self.buffer[_HEADER.size : _HEADER.size + size]))
            self.buffer = self.buffer[_HEADER.size + size :]
        return out


def call_in_child(
    fn: Callable[..., Any],
    args: tuple[Any, ...],
    deadline: float | None,
    on_message: Callable[[Any], None] | None = None,
) -> tuple[str, Any]:
    """Run ``fn(send, *args)`` in a forked child, killed at ``deadline``.

    Parameters
    ----------
    fn : callable
        Called in the child with a ``send`` function first; ``send(("message", obj))``
        (``obj`` picklable) passes ``obj`` to ``on_message`` in the parent as it arrives.
    args : tuple
    deadline : float or None
        A ``time.monotonic()`` value; the child is killed (``SIGKILL``) when it passes.
    on_message : callable, optional

    Returns
    -------
    (str, object)
        ``("result", value)``, ``("timeout", None)`` (killed at the deadline),
        ``("interrupted", None)`` (Ctrl-C) or ``("died", None)`` (no answer).
        An exception raised by ``fn`` is raised again here.

    Examples
    --------
    >>> call_in_child(lambda send, x: x + 1, (41,), None)
    ('result', 42)
    >>> import time as _t
    >>> call_in_child(lambda send: _t.sleep(5), (), _t.monotonic() + 0.2)
    ('timeout', None)
    """
    rfd, wfd = os.pipe()
    parent = os.getpid()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child (its coverage is not collected)
        os.close(rfd)
        die_with_parent(parent)  # never outlives the parent, even one killed by SIGKILL
        if deadline is not None:  # killed at the deadline: CaDiCaL may run in long slices
            allow_long_slices()
        _child(wfd, fn, args)
    os.close(wfd)
    reader = _Reader(rfd)
    outcome: tuple[str, Any] = ("died", None)
    stop = deadline
    try:
        while not reader.eof:
            try:
                if stop is not None and time.monotonic() >= stop:
                    outcome = ("timeout", None) if stop == deadline else ("interrupted", None)
                    break
                for kind, value in reader.messages(stop):
                    if kind == "message":
                        if on_message is not None:
                            on_message(value)
                    else:
                        outcome = (kind, value)
            except KeyboardInterrupt:
                # SIGINT or SIGTERM (to this process alone, or to the process group): the
                # child is told to stop, and given a moment to answer with what it has
                if stop is None or stop == deadline:
                    try:
                        os.kill(pid, signal.SIGINT)
                    except ProcessLookupError:  # pragma: no cover - already gone
                        pass
                    grace = time.monotonic() + INTERRUPT_GRACE
                    stop = grace if deadline is None else min(deadline, grace)
                outcome = ("interrupted", None)
    finally:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:  # pragma: no cover - already gone
            pass
        os.waitpid(pid, 0)
        os.close(rfd)
    if outcome[0] == "error":
        raise outcome[1]
    return outcome


# ------------------------------------------------------------------------------ solve


def _solve_child(send: Send, kwargs: dict[str, Any], split: SplitSettings | None) -> SolveResult:
    def progress(event: dict[str, Any]) -> None:
        send(("message", ("event", event)))

    def on_state(state: dict[str, Any]) -> None:
        send(("message", ("state", state)))

    if split is None:
        return _Search(**kwargs, progress=progress, on_state=on_state).run()
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
    """:func:`gossipcert.search.rounds.solve` with a time limit that holds.

    Same parameters and result as :func:`~gossipcert.search.rounds.solve`; with ``split``,
    the refutations are done by cubes (:class:`gossipcert.search.split.SplitSearch`).
    Without a time limit it is that search in this process. With one, the search runs in
    a child process given :func:`child_budget` seconds and killed at ``time_limit``;
    killed, the answer is built from its last reported state (``timed_out`` set, the
    schedule verified again). ``in_child`` runs the search in a child without a time limit
    too (the command line: SIGINT or SIGTERM then answers within a second from the child's
    last reported state, ``interrupted`` set, whatever the child is doing).

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> solve_within(parse_instance("ring:6", "telephone", "gossip"), time_limit=30).optimum
    3
    """
    from gossipcert.search.rounds import search_options, solve

    if backend not in BACKENDS:
        raise SolverError(f"unknown back-end {backend!r}; choose one of {', '.join(BACKENDS)}")
    if options is None:
        options = search_options(instance, encoding, strict, counting)
    if time_limit is None and split is not None and not in_child:
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

    def on_message(msg: tuple[str, Any]) -> None:
        kind, value = msg
        if kind == "event":
            if value["event"] != "heartbeat":
                log.append(value)
            if progress is not None:
                progress(value)
        else:
            state.update(value)

    deadline = None if time_limit is None else start + time_limit
    kind, value = call_in_child(_solve_child, (kwargs, split), deadline, on_message)
    if kind == "result":
        return value
    if kind == "died":
        raise SolverError(
            _DIED.format(what="search")
            + f" (last state: lower bound {state['lower']}, upper bound from "
            f"{state['upper_source']})"
        )
    return _from_state(instance, backend, options, state, log, start, kind)


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
    best = None
    if state.get("schedule") is not None:
        best = _verified(instance, state["schedule"], "reported")
    upper = None if best is None else best[1].rounds
    lower = int(state["lower"])
    optimal = upper is not None and lower == upper
    status = "optimal" if optimal else "feasible" if best is not None else "unknown"
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


def check_within(
    cert: dict[str, Any],
    time_limit: float | None,
    full: bool = False,
    on_step: Callable[[bool | None, str, bool], None] | None = None,
) -> Any:
    """:func:`gossipcert.certificates.certificate.check_certificate` with a time limit that holds.

    ``on_step(ok, text, claim)`` is called as each step is decided. Killed at the limit, the
    report keeps the steps decided so far and ends with one undecided step (no verdict,
    never a failure).
    """
    from gossipcert.certificates.certificate import CheckReport, check_certificate

    if time_limit is None:
        return check_certificate(cert, None, full, on_step=on_step)
    done: list[tuple[bool | None, str, bool]] = []

    def arrived(step: tuple[bool | None, str, bool]) -> None:
        done.append(step)
        if on_step is not None:
            on_step(*step)

    start = limit_origin()
    budget = max(0.0, child_budget(time_limit) - (time.monotonic() - start))
    kind, value = call_in_child(_check_child, (cert, budget, full), start + time_limit, arrived)
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
    return rep
