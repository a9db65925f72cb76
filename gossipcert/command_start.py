"""When the command started: the origin of a command-line time limit; what a time limit
given from Python may be (:func:`checked_time_limit`).

A time limit given on the command line counts from the moment the process started, so that
the time spent importing the libraries (seconds on a busy machine) is inside it too.
"""

from __future__ import annotations

import math
import numbers
import os
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from gossipcert.errors import SpecError

#: ``time.monotonic()`` value at which the running command started (None: not a command)
COMMAND_START: float | None = None


def process_age() -> float:
    """Seconds since this process started (Linux ``/proc``; 0 where unknown).

    Examples
    --------
    >>> 0 <= process_age() < 10**7
    True
    """
    try:
        fields = Path("/proc/self/stat").read_text().rsplit(")", 1)[1].split()
        started = int(fields[19]) / os.sysconf("SC_CLK_TCK")  # field 22, starttime
        uptime = float(Path("/proc/uptime").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return 0.0
    return max(0.0, uptime - started)


def mark_command_start() -> None:
    """Record the process's start as the origin of time limits (the console script)."""
    global COMMAND_START
    COMMAND_START = time.monotonic() - process_age()


def limit_origin() -> float:
    """The origin of a time limit: the command's start, else now."""
    return time.monotonic() if COMMAND_START is None else COMMAND_START


#: when the Python API was loaded, ``(began, ended)`` (:func:`note_api_load`), until a call
#: takes it as the origin of its time limit (:func:`call_origin`)
_API_LOAD: tuple[float, float] | None = None

#: a Python API call made within this many seconds of the API's loading counts the loading in
#: its time limit: the loading was part of the same statement (``gossipcert.solve(...)``
#: looked up for the first time), and the caller's clock was running
LOAD_GRACE = 1.0


def note_api_load(began: float, ended: float) -> None:
    """Record that the Python API (:mod:`gossipcert.api`) was loaded between ``began`` and
    ``ended`` (``time.monotonic()`` values), on the first use of a name of ``gossipcert``."""
    global _API_LOAD
    _API_LOAD = (began, ended)


def call_origin() -> float:
    """The origin of a Python API call's time limit: now; but for a call that comes within
    :data:`LOAD_GRACE` seconds of the API's loading (the first ``gossipcert.solve(...)`` of
    a process, which loads the solvers' libraries before it runs: seconds on a busy machine),
    when the loading began. The loading counts once, for the first call only.

    Examples
    --------
    >>> note_api_load(time.monotonic() - 3.0, time.monotonic())
    >>> round(time.monotonic() - call_origin())
    3
    >>> round(time.monotonic() - call_origin())
    0
    """
    global _API_LOAD
    now = time.monotonic()
    load, _API_LOAD = _API_LOAD, None
    if load is not None and now - load[1] <= LOAD_GRACE:
        return load[0]
    return now


def seconds_left(deadline: float | None) -> float:
    """Seconds until ``deadline``, a ``time.monotonic()`` instant (infinite without one)."""
    return float("inf") if deadline is None else deadline - time.monotonic()


@contextmanager
def limits_from(origin: float) -> Iterator[None]:
    """Within the block, a time limit counts from ``origin`` (a ``time.monotonic()`` value:
    the moment a Python API call began, :func:`call_origin`).

    Examples
    --------
    >>> start = time.monotonic() - 5.0
    >>> with limits_from(start):
    ...     limit_origin() == start
    True
    """
    global COMMAND_START
    saved = COMMAND_START
    COMMAND_START = origin
    try:
        yield
    finally:
        COMMAND_START = saved


@contextmanager
def limits_from_now() -> Iterator[None]:
    """Within the block, a time limit counts from when it is applied, not from the command's
    start (each instance of a sweep has its own limit).

    Examples
    --------
    >>> with limits_from_now():
    ...     limit_origin() <= time.monotonic()
    True
    """
    global COMMAND_START
    saved = COMMAND_START
    COMMAND_START = None
    try:
        yield
    finally:
        COMMAND_START = saved


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
