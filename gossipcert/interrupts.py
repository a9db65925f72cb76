"""SIGINT and SIGTERM from a command's first instant to its last: exit 130 or 143, with what
is known, never a traceback.

The console script (:mod:`gossipcert.__main__`) calls :func:`install` before it imports
anything heavy (the command line, the solvers: seconds on a busy machine). Then:

- during the work, either signal raises ``KeyboardInterrupt`` in the main process, so that
  every command stops at once and prints what it has (``solve`` its bounds, and its partial
  result or certificate with ``-o``; work in a child process,
  :func:`gossipcert.children.call_in_child`, is stopped by its parent);
- during start-up (the imports, and the reading of the command line, which loads the
  modules an option needs) a signal is noted, not raised: a ``KeyboardInterrupt`` raised in
  the middle of an import can be swallowed (a native module's initialisation turns it into
  an ``ImportError``, which a library's ``try: import ... except ImportError`` takes for a
  missing optional module), and the command would then run on. Start-up ends at
  :func:`begin_work`, which ends the command if a signal came (:func:`stopped_before_work`,
  one line and with ``--json`` also a JSON object: there is nothing else to keep), as does
  the command line's entry for the commands that do no work (:func:`before_work`);
- once the command has its answer, :func:`finish` exits; a signal from then on ends the
  process at once with the signal's status (the answer is already printed and flushed),
  until the interpreter's last exit handler, which blocks both signals: Python puts the
  default handlers back as it shuts down, and a SIGTERM then would end the process by the
  signal (status -15) instead of 143. A signal blocked there arrives after the exit;
- a ``KeyboardInterrupt`` that escapes everything (a second signal while the first is being
  answered) ends in one line too (:func:`_excepthook`), never a traceback;
- a ``KeyboardInterrupt`` that Python swallows (raised inside a hook it runs for itself: the
  ``logging`` module's after-fork hook, a ``__del__``; it would print "Exception ignored"
  and the command would run on) is raised again: the signal is sent once more to this
  process (:func:`_unraisable`), and its handler raises it in the code that runs next. A
  ``KeyboardInterrupt`` swallowed silently (by a library's ``except``) is still noted
  (:func:`signalled`): the work a command hands to a child process
  (:func:`gossipcert.children.call_in_child`) asks it, and stops as for the signal itself;
- a native SAT solver does not take SIGINT itself: PySAT, called from the main thread,
  installs its own handler for the length of a call, which escapes from inside the solver
  with ``longjmp`` and leaves SIGINT blocked in the thread, that handler in place (later
  Ctrl-Cs are lost, or jump into a stack frame that no longer exists) and a CaDiCaL solver
  in an invalid state (its next use aborts the process). gossipcert's calls into PySAT
  from the main process are made under :func:`pysat_handler_off`, for which PySAT
  installs none; the signal is raised as ``KeyboardInterrupt`` when the
  call returns.

The exit status is 130 after SIGINT and 143 after SIGTERM (the shell's ``128 + 15``)
whenever a signal arrived, whatever the command would have answered; 0, 1 or 2 otherwise.
Only a signal in the interpreter's own start-up, before the console script's first line,
finds Python's defaults (a ``KeyboardInterrupt`` in Python's start-up, or the end by
SIGTERM).

This module imports nothing but the standard library's ``atexit``, ``contextlib``, ``os``,
``signal``, ``sys`` and ``threading``.

Examples
--------
>>> exit_code(0), status_of(signal.SIGTERM)
(0, 143)
"""

from __future__ import annotations

import atexit
import os
import signal
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType, TracebackType
from typing import Any, NoReturn

#: the signals received, in order
_received: list[int] = []
#: the command has its answer: a signal now ends the process at once
_final = False
#: the arguments of the command (to answer in JSON when ``--json`` is among them)
_argv: list[str] = []
#: the command's own code runs (its handlers say what they keep when a signal comes)
_working = False


def begin_work() -> None:
    """The command's own code starts: from here it answers a signal itself. A signal noted
    during start-up (the command line was being read) ends the command here, in one line
    (:func:`stopped_before_work`)."""
    global _working
    if _received and not _working:
        stopped_before_work()
    _working = True


def signalled() -> bool:
    """Whether SIGINT or SIGTERM has reached this process's handler (:func:`install`) since
    it started: a command that is asked this stops its work, even if the
    ``KeyboardInterrupt`` its handler raised was swallowed on the way.

    Returns
    -------
    bool
    """
    return bool(_received)


#: the signals that stop a process's work (:func:`signals_held`)
STOPPING = {signal.SIGINT, signal.SIGTERM}


@contextmanager
def signals_held() -> Iterator[set[int]]:
    """SIGINT and SIGTERM wait while the block runs, and arrive once each after it: blocked
    in this thread, and in the main thread (the only one that runs Python's handlers, and
    may set them) noted by holding handlers too: another thread, a native library's, may
    take a signal this one blocks, and Python would run its handler here all the same.
    Yields the signal mask to restore.

    Examples
    --------
    >>> with signals_held() as mask:
    ...     signal.SIGINT in signal.pthread_sigmask(signal.SIG_BLOCK, ())
    True
    """
    held: list[int] = []
    previous: dict[int, Any] = {}
    holding = [True]

    def note(signum: int, frame: FrameType | None) -> None:
        if holding[0]:
            held.append(signum)
            return
        # left in place by a signal that came while the handlers were put back: put back
        # the one it replaced, and act as it would
        handler = previous.get(signum)
        signal.signal(signum, signal.SIG_DFL if handler is None else handler)
        if callable(handler):
            handler(signum, frame)
        elif handler in (None, signal.SIG_DFL):
            signal.raise_signal(signum)

    # each old handler and the old mask are kept before they change: a signal that stops
    # the entry half way leaves nothing the exit cannot put back
    mask = signal.pthread_sigmask(signal.SIG_BLOCK, ())
    try:
        if threading.current_thread() is threading.main_thread():
            for stopping in STOPPING:
                previous[stopping] = signal.getsignal(stopping)
                signal.signal(stopping, note)
        signal.pthread_sigmask(signal.SIG_BLOCK, STOPPING)
        yield mask
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, mask)
        holding[0] = False
        try:
            for signum, handler in previous.items():
                signal.signal(signum, signal.SIG_DFL if handler is None else handler)
        finally:  # (a signal that stops the putting back leaves a noted one to come)
            for signum in dict.fromkeys(held):  # the restored handler acts on it here
                signal.raise_signal(signum)


#: blocks of :func:`pysat_handler_off` under way in the main thread
_native_calls = 0


@contextmanager
def pysat_handler_off() -> Iterator[None]:
    """PySAT installs no SIGINT handler of its own for the calls made in the block (solves,
    propagation, cardinality encodings); also a decorator.

    Called from a process's main thread, PySAT installs its own SIGINT handler for the length
    of a call: it escapes from inside the solver with ``longjmp`` and the call raises PySAT's
    error "Caught keyboard interrupt", leaving SIGINT blocked in the thread, PySAT's handler
    installed (a later SIGINT jumps into a stack frame that no longer exists) and a CaDiCaL
    solver in an invalid state (its next use, even being freed, may end the process).
    Called from another thread PySAT installs none, and so in the block: PySAT's test of
    the thread (``pysat._utils.MainThread.check``, wrapped once, on first use) answers "not
    the main thread" while the block runs; PySAT calls made by other code are not changed.
    A signal then reaches Python's own handler, and its ``KeyboardInterrupt`` is raised when
    the native call returns: the caller's budget bounds the wait (a slice of about a second
    for the search, :func:`gossipcert.solvers.backends.solve_sliced`, longer where long
    slices are allowed; a few seconds for the Hamiltonian-cycle search). In a child process,
    which keeps SIGINT blocked, nothing changes.

    Examples
    --------
    >>> from pysat._utils import MainThread
    >>> with pysat_handler_off():
    ...     inside = MainThread.check()
    >>> inside, MainThread.check()
    (False, True)
    """
    global _native_calls
    if threading.current_thread() is not threading.main_thread():
        yield  # PySAT installs no handler off the main thread
        return
    _pysat_check_wrapped()
    _native_calls += 1
    try:
        yield
    finally:
        _native_calls -= 1


def _pysat_check_wrapped() -> None:
    """Wrap PySAT's test of the main thread so that it answers False while a block of
    :func:`pysat_handler_off` runs (once per process)."""
    from pysat._utils import MainThread

    check = MainThread.__dict__["check"].__func__
    if getattr(check, "native_call_wrapper", False):
        return

    def wrapped() -> bool:
        return _native_calls <= 0 and bool(check())

    wrapped.native_call_wrapper = True  # type: ignore[attr-defined]
    MainThread.check = staticmethod(wrapped)


def before_work() -> bool:
    """Whether a signal arrived before the command's own code started (while the command
    line and the modules it loads were being read): nothing was said, and nothing is kept.

    Returns
    -------
    bool
    """
    return bool(_received) and not _working


def status_of(signum: int) -> int:
    """The exit status after signal ``signum``: ``128 + signum`` (130 SIGINT, 143 SIGTERM).

    Parameters
    ----------
    signum : int

    Returns
    -------
    int
    """
    return 128 + signum


def _flush() -> None:
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError, AttributeError):  # closed, or replaced by None
            pass


def _stop(signum: int, frame: FrameType | None) -> None:
    _received.append(signum)
    if _final:  # the answer is out: end now, with the signal's status
        _flush()
        os._exit(status_of(signum))
    if _working:  # during start-up the signal is only noted (module docstring)
        raise KeyboardInterrupt


def install(argv: list[str] | None = None) -> None:
    """Take SIGINT and SIGTERM in this process: noted during start-up (answered at
    :func:`begin_work`), raised as ``KeyboardInterrupt`` once the command's work runs; an
    escaped ``KeyboardInterrupt`` ends the process in one line with status 130 or 143.

    Parameters
    ----------
    argv : list of str, optional
        The command's arguments (``--json`` among them: the one line is JSON on stdout too).
    """
    global _argv
    if argv is not None:
        _argv = list(argv)
    signal.signal(signal.SIGINT, _stop)
    signal.signal(signal.SIGTERM, _stop)
    sys.excepthook = _excepthook
    sys.unraisablehook = _unraisable
    if not _installed:
        _installed.append(True)
        atexit.register(_block_late_signals)  # registered first: runs last


#: :func:`install` ran (its exit handler is registered once)
_installed: list[bool] = []


def _block_late_signals() -> None:
    """The last exit handler: from here the interpreter tears itself down with the default
    handlers; a signal is kept pending (and so never delivered) rather than end the
    process by the signal after its answer."""
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT, signal.SIGTERM})


def exit_code(code: int) -> int:
    """The exit status of a command that ended with ``code``: the signal's (130 or 143) if
    one arrived, else ``code``.

    Parameters
    ----------
    code : int

    Returns
    -------
    int
    """
    return status_of(_received[-1]) if _received else code


def _say(message: str, code: int) -> None:
    """``message`` on stderr (and with ``--json`` an error object on stdout), flushed."""
    try:
        sys.stderr.write(message + "\n")
        if "--json" in _argv:
            sys.stdout.write(f'{{"error": "interrupted", "exit": {code}}}\n')
    except (OSError, ValueError, AttributeError):
        pass
    _flush()


def finish(code: int) -> NoReturn:
    """End the command with ``code`` (or the signal's status, if one arrived): from here a
    signal ends the process at once.

    Parameters
    ----------
    code : int
    """
    global _final
    _final = True
    final = exit_code(code)
    _flush()
    sys.exit(final)


def stopped_before_work() -> NoReturn:
    """A signal arrived during start-up (the command's imports): say so, and exit 130 or
    143."""
    global _final
    _final = True
    code = exit_code(status_of(signal.SIGINT))
    _say("interrupted during start-up, before any work: nothing to keep", code)
    os._exit(code)


def stopped() -> NoReturn:
    """A ``KeyboardInterrupt`` escaped the command's own handlers (a second signal while
    the first was being answered): one line, and exit 130 or 143."""
    global _final
    _final = True
    code = exit_code(status_of(signal.SIGINT))
    _say("interrupted", code)
    os._exit(code)


def _excepthook(kind: type[BaseException], value: BaseException, tb: TracebackType | None) -> None:
    """The last resort: a ``KeyboardInterrupt`` that escaped every handler ends the
    process as :func:`stopped` does, and so does any exception after a signal (a native
    module interrupted in its initialisation raises ``ImportError: initialization
    failed``); anything else goes to Python's own hook."""
    if issubclass(kind, KeyboardInterrupt) or _received:
        stopped()
    sys.__excepthook__(kind, value, tb)


def _unraisable(unraisable: sys.UnraisableHookArgs) -> None:
    """A ``KeyboardInterrupt`` that Python swallowed (module docstring): send the signal
    again, so that it is raised where it can stop the command; anything else goes to
    Python's own hook."""
    if isinstance(unraisable.exc_value, KeyboardInterrupt) and _received:
        os.kill(os.getpid(), _received[-1])
        return
    sys.__unraisablehook__(unraisable)
