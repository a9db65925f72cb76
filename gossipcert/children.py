"""The one way gossipcert runs work in a child process: forked, reporting through a pipe,
killed at a deadline, never outliving its parent.

Every child is a :class:`Child` (:func:`call_in_child`: one child waited for): the search
and the check under a hard time limit (:mod:`gossipcert.watchdog`), the proof checkers, the
schedule portfolio, the local pool (:mod:`gossipcert.parallel`) and the allreduce race.
It is a :mod:`multiprocessing` process of the ``fork`` context (no new interpreter to import
the solvers again) reporting pickles on a :func:`~multiprocessing.Pipe`. Kept here, which the
library does not give: ``PR_SET_PDEATHSIG`` (Linux: the kernel kills a child whose parent
died), SIGINT and SIGTERM held while the process forks and while a message is written or
read, the child's answer to its parent's word to stop (:data:`STOP_SIGNAL`). A daemonic
process may not start children (:data:`DASK_SETTING`). Platforms: POSIX with ``fork``.
"""

from __future__ import annotations

import atexit
import ctypes
import multiprocessing
import multiprocessing.connection
import os
import pickle
import signal
import sys
import time
from collections import deque
from collections.abc import Callable, Iterable
from contextlib import suppress
from multiprocessing.connection import Connection
from typing import Any, cast

from gossipcert import interrupts
from gossipcert.errors import GossipcertError
from gossipcert.interrupts import STOPPING, signals_held

#: after SIGINT or SIGTERM, seconds :func:`call_in_child` waits for the child's own answer
#: before killing it (the caller then answers from the child's last reported state)
INTERRUPT_GRACE = 0.25

#: seconds without a message from the child after which :func:`call_in_child` calls its
#: ``on_idle``
IDLE_SECONDS = 2.0

#: receives one message object from the child
Send = Callable[[Any], None]

#: children are forked: any function runs in them (only the messages are pickled)
_FORK = multiprocessing.get_context("fork")

#: how a daemonic Dask worker is made one that may start children
DASK_SETTING = (
    "start Dask workers with the setting distributed.worker.daemon: false "
    "(environment DASK_DISTRIBUTED__WORKER__DAEMON=False)"
)


#: this process is one of a pool's workers, which share the machine's cores among them
_one_core = False


def keep_to_one_core() -> None:
    """Mark this process as one worker among several (a pool's child): work it does should
    not fan out into more processes (:func:`may_fan_out`)."""
    global _one_core
    _one_core = True


def may_fan_out() -> bool:
    """Whether this process may run work in two children at once: it may run on two cores
    or more, is not a pool's worker (:func:`keep_to_one_core`), and is not a task of a
    Dask worker of several threads (its tasks share the worker's cores already).

    Examples
    --------
    >>> isinstance(may_fan_out(), bool)
    True
    """
    return not _one_core and _dask_threads() <= 1 and len(os.sched_getaffinity(0)) >= 2


def _dask_threads() -> int:
    """The threads of the Dask worker whose task runs in this thread (0 outside Dask)."""
    distributed = sys.modules.get("distributed")  # a Dask worker has imported it
    if distributed is None:
        return 0
    try:
        return int(distributed.get_worker().state.nthreads)
    except (ValueError, AttributeError):  # not in a worker's task
        return 0


def die_with_parent(parent: int | None = None) -> None:  # pragma: no cover - in children
    """In a child: be killed when the parent dies (Linux), and exit at once if the parent
    that started this child is already gone.

    Parameters
    ----------
    parent : int, optional
        The parent's process id when it started the child.
    """
    try:
        ctypes.CDLL("libc.so.6").prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):  # not Linux: the parent's finally is the guard
        pass
    if parent is not None and os.getppid() != parent:
        os._exit(1)


#: how a parent tells its child to stop (:func:`_interrupt_once`). Not SIGINT: a child keeps
#: SIGINT blocked all its life, because PySAT takes SIGINT for the length of a ``solve()``
#: and escapes from inside CaDiCaL (``longjmp``), leaving a solver that crashes the
#: process when it is freed ("Fatal Python error: Segmentation fault" on a stopped run)
#: and an error in place of an interruption. A Ctrl-C at a terminal (SIGINT to the whole
#: process group) thus reaches the main process alone, which tells its child, which tells
#: its own children, each with SIGTERM; a child inside a native call is killed when its
#: grace runs out.
STOP_SIGNAL = signal.SIGTERM


def _interrupt_once(signum: int, frame: Any) -> None:  # pragma: no cover - in children
    """The child's SIGTERM (:data:`STOP_SIGNAL`; SIGINT too, should anything unblock it):
    the first stops the work (``KeyboardInterrupt``, so that it answers with what it has),
    later ones are ignored while it answers."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    raise KeyboardInterrupt


def _child_body(
    reader: Connection,
    writer: Connection,
    fn: Callable[..., Any],
    args: tuple[Any, ...],
    parent: int,
    in_child: Callable[[], None] | None,
    mask: Iterable[int],
) -> None:  # pragma: no cover - the child (its coverage is not collected)
    """Run ``in_child()`` then ``fn(send, *args)`` and send the outcome; never returns.
    SIGINT and SIGTERM are blocked on entry; SIGTERM is unblocked (``mask``) once the
    child's handler is in place, SIGINT stays blocked (:data:`STOP_SIGNAL`)."""
    code = 0
    reader.close()  # the parent's end
    die_with_parent(parent)
    signal.signal(signal.SIGINT, _interrupt_once)
    signal.signal(signal.SIGTERM, _interrupt_once)

    def send(obj: Any) -> None:
        data = pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL)
        # a message is written whole: SIGTERM arriving meanwhile is handled after it (a
        # message cut in two would make the rest of the pipe unreadable)
        before = signal.pthread_sigmask(signal.SIG_BLOCK, STOPPING)
        try:
            writer.send_bytes(data)
        finally:
            signal.pthread_sigmask(signal.SIG_SETMASK, before)

    try:
        try:
            signal.pthread_sigmask(signal.SIG_SETMASK, {*mask, signal.SIGINT})
            if in_child is not None:
                in_child()
            send(("result", fn(send, *args)))
        except KeyboardInterrupt:
            send(("interrupted", None))
        except BaseException as exc:  # handed to the parent, raised there
            try:
                send(("error", exc))
            except Exception:  # an exception that does not pickle
                send(("error", GossipcertError(f"{type(exc).__name__}: {exc}")))
    except BaseException:
        code = 1
    finally:
        # at once: threads the work left running are not waited for, nor exit handlers
        # inherited from the parent run
        os._exit(code)


class Child:
    """A forked child running ``fn(send, *args)``.

    ``send(("message", obj))`` in the child passes ``obj`` to the parent's
    :meth:`messages`; the child's outcome arrives last, as ``("result", value)``,
    ``("error", exception)`` or ``("interrupted", None)``.

    Parameters
    ----------
    fn : callable
        A function of ``(send, *args)``.
    args : tuple
    in_child : callable, optional
        Called first in the child (e.g. to let a solver run long slices).

    Raises
    ------
    GossipcertError
        This process is daemonic (:data:`DASK_SETTING`).

    Examples
    --------
    >>> child = Child(lambda send, x: send(("message", x)) or x * 2, (21,))
    >>> out = []
    >>> while not child.done:
    ...     out += child.messages(None)
    >>> child.reap(); out
    [('message', 21), ('result', 42)]
    """

    def __init__(
        self,
        fn: Callable[..., Any],
        args: tuple[Any, ...],
        in_child: Callable[[], None] | None = None,
    ) -> None:
        if multiprocessing.current_process().daemon:
            raise GossipcertError(
                "this process is daemonic (a Dask worker under its nanny, or a multiprocessing "
                f"pool's worker) and may not start the children gossipcert works in: {DASK_SETTING}"
            )
        reader, writer = _FORK.Pipe(duplex=False)
        #: messages read and not yet returned (:meth:`read`)
        self.inbox: list[Any] = []
        #: the pipe reached its end: the child has sent everything it will send
        self.done = False
        self.conn, self._reaped, started = reader, False, False
        try:
            # SIGINT and SIGTERM wait while the process forks (multiprocessing does not
            # hold them): a handler that raises would raise inside the interpreter's fork
            # hooks, which swallow it, or in the child before it takes its own handlers
            with signals_held() as mask:
                #: the child process (not daemonic: it may start children of its own)
                self.process = _FORK.Process(
                    target=_child_body,
                    args=(reader, writer, fn, args, os.getpid(), in_child, mask),
                    name=_NAME,
                )
                self.process.start()  # reaps the children killed before and gone since
                started = True
        except BaseException:  # a signal that came meanwhile: the child is not left behind
            if started:
                self.reap()
            else:
                reader.close()
            raise
        finally:
            writer.close()  # the child's end: the pipe ends when the child has written all
        self.pid = cast(int, self.process.pid)  # started: it has one

    def read(self) -> list[Any]:
        """The next message, or [] once the pipe has ended (call when :func:`ready` says
        there is something). SIGINT and SIGTERM wait until the message is read whole (half
        a message would leave the pipe unreadable); the message is then kept in
        :attr:`inbox`, returned by the next call."""
        if not self.inbox and not self.done:
            with signals_held():
                try:
                    self.inbox.append(self.conn.recv())
                except (EOFError, OSError):  # the end, or an end inside a message (killed)
                    self.done = True
        out, self.inbox = self.inbox, []
        return out

    def messages(self, until: float | None) -> list[Any]:
        """The messages that arrive before ``until`` (a ``time.monotonic()`` value; None
        waits for the next read); [] on time-out."""
        left = None if until is None else max(0.0, until - time.monotonic())
        return self.read() if self.inbox or self.conn.poll(left) else []

    def reap(self, wait: bool = True) -> None:
        """Kill the child if it still runs, wait for it and close the pipe (idempotent).

        ``wait=False`` does not wait for the killed child to be gone: a child of gigabytes
        takes the kernel a second or more to tear down on a loaded machine, time a caller
        answering at its deadline does not have. :mod:`multiprocessing` waits for it later
        (at the next child started, :func:`multiprocessing.active_children`, and at exit).
        """
        if self._reaped:
            return
        self._reaped = True
        self.done = True  # nothing more will arrive
        self.process.kill()
        self.conn.close()
        if wait:
            self.process.join()
            try:
                self.process.close()
            except ValueError:  # pragma: no cover - another thread's poll reaped it
                pass  # its descriptors close with the object
        multiprocessing.active_children()  # waits for those killed before and gone since


#: the name of the processes :class:`Child` starts
_NAME = "gossipcert-child"


def _kill_left() -> None:
    """At exit, kill the children never reaped (held by a traceback), as the death signal
    would: :mod:`multiprocessing`'s exit handler, which runs next, waits for them."""
    for process in multiprocessing.active_children():
        if process.name == _NAME:
            process.kill()


atexit.register(_kill_left)  # after multiprocessing.util's handler (imported above): runs first


def ready(children: Iterable[Child], until: float | None) -> list[Child]:
    """The children with something to read before ``until`` ([] on time-out)."""
    left = None if until is None else max(0.0, until - time.monotonic())
    pending = {c.conn: c for c in children if not c.done}
    if not pending:
        return []
    found = multiprocessing.connection.wait(list(pending), left)
    return [pending[c] for c in found if isinstance(c, Connection)]


def _started(
    fn: Callable[..., Any], args: tuple[Any, ...], in_child: Callable[[], None] | None
) -> Child | None:
    """:func:`call_in_child`'s child; None when a signal came before (its
    ``KeyboardInterrupt`` swallowed on its way) or during the fork (the child is already
    killed and reaped): the work stops before it starts."""
    try:
        return None if interrupts.signalled() else Child(fn, args, in_child)
    except KeyboardInterrupt:
        return None


def _told_to_stop(child: Child, deadline: float | None) -> float:
    """Send the child :data:`STOP_SIGNAL`; when to stop waiting for its answer."""
    with suppress(ProcessLookupError):  # already gone
        os.kill(child.pid, STOP_SIGNAL)
    grace = time.monotonic() + INTERRUPT_GRACE
    return grace if deadline is None else min(deadline, grace)


def call_in_child(
    fn: Callable[..., Any],
    args: tuple[Any, ...],
    deadline: float | None,
    on_message: Callable[[Any], None] | None = None,
    in_child: Callable[[], None] | None = None,
    on_idle: Callable[[], None] | None = None,
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
    in_child : callable, optional
        Called first in the child.
    on_idle : callable, optional
        Called in the parent whenever no message has arrived for :data:`IDLE_SECONDS`
        (a heartbeat that holds even while the child is inside a native call that
        cannot report).

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
    child = _started(fn, args, in_child)
    if child is None:
        return ("interrupted", None)
    outcome: tuple[str, Any] = ("died", None)
    stop = deadline
    # the child was told to stop (STOP_SIGNAL): an error it raises from then on is the
    # stop's (a native library that caught the signal would report it as its own error)
    told = False
    quiet_since = time.monotonic()
    # messages read and not yet handled: a Ctrl-C while one is handled leaves the others
    # here, handled on the next turn (a state the child sent just before it was stopped is
    # what the caller answers from)
    pending: deque[Any] = deque()
    try:
        while not child.done or pending:
            try:
                while pending:
                    kind, value = pending.popleft()
                    if kind == "message":
                        if on_message is not None:
                            on_message(value)
                    else:
                        outcome = (
                            ("interrupted", None) if told and kind == "error" else (kind, value)
                        )
                if child.done:
                    break
                if interrupts.signalled() and not told:
                    raise KeyboardInterrupt  # noted, and swallowed on its way here
                now = time.monotonic()
                if stop is not None and now >= stop:
                    outcome = ("timeout", None) if stop == deadline else ("interrupted", None)
                    break
                until = stop
                if on_idle is not None:
                    if now - quiet_since >= IDLE_SECONDS:
                        on_idle()
                        quiet_since = now
                    wake = quiet_since + IDLE_SECONDS
                    until = wake if stop is None else min(stop, wake)
                arrived = child.messages(until)
                if arrived:
                    quiet_since = time.monotonic()
                pending.extend(arrived)
            except KeyboardInterrupt:
                # SIGINT or SIGTERM (to this process alone, or to the process group): the
                # child is told to stop, and given a moment to answer with what it has
                if not told:
                    told, stop = True, _told_to_stop(child, deadline)
                outcome = ("interrupted", None)
    finally:
        # the answer is not held up by the teardown of a large child (killed at the
        # deadline, or exiting after its result)
        child.reap(wait=False)
    if outcome[0] == "error":
        raise outcome[1]
    return outcome
