"""SIGINT and SIGTERM stop a command the same way: as Ctrl-C.

The console script installs :func:`install`: either signal raises ``KeyboardInterrupt`` in
the main process, so that every command stops at once, prints what it has (``solve`` its
bounds, and its partial result with ``-o``) and exits 130 (SIGINT) or 143 (SIGTERM, the
shell's ``128 + 15``), whether the signal came from a terminal's Ctrl-C (the whole process
group), ``kill PID`` or ``timeout``. Work running in a child process
(:func:`gossipcert.search.watchdog.call_in_child`) is stopped by its parent.

Examples
--------
>>> exit_code(130), exit_code(0)
(130, 0)
"""

from __future__ import annotations

import signal
from types import FrameType

#: the signals received, in order
_received: list[int] = []


def _stop(signum: int, frame: FrameType | None) -> None:
    _received.append(signum)
    raise KeyboardInterrupt


def install() -> None:
    """Make SIGINT and SIGTERM raise ``KeyboardInterrupt`` in this process."""
    signal.signal(signal.SIGINT, _stop)
    signal.signal(signal.SIGTERM, _stop)


def exit_code(code: int) -> int:
    """The exit status of a command that ended with ``code``: an interrupted one (130) exits
    143 when the signal was SIGTERM.

    Parameters
    ----------
    code : int

    Returns
    -------
    int
    """
    if code == 130 and _received and _received[-1] == signal.SIGTERM:
        return 128 + signal.SIGTERM
    return code
