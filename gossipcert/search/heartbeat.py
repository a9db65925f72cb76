"""Heartbeats during a step that gives no progress of its own (a proof, its checks).

The search's solver queries call a heartbeat about every second from the solver's own
callback (:meth:`gossipcert.search.rounds._Search.heartbeat`); a DRAT proof's generation
and its checkers (drat-trim, dratify, the project's checker, gossipcert-lrat) have no
callback, so :func:`heartbeats` sends the same ``heartbeat`` events from a thread while
the step runs, naming the step (``what``). The command line prints one line on stderr at
most every :data:`gossipcert.cli_text.HEARTBEAT_SECONDS` seconds, and none with ``--quiet``.

Examples
--------
>>> import time
>>> seen = []
>>> with heartbeats(seen.append, "checking", lambda: {"time": 0.0}, every=0.05):
...     time.sleep(0.2)
>>> seen[0]["event"], seen[0]["what"], len(seen) >= 2
('heartbeat', 'checking', True)
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

#: seconds between two heartbeat events
EVERY_SECONDS = 1.0


@contextmanager
def heartbeats(
    emit: Callable[[dict[str, Any]], None] | None,
    what: str,
    fields: Callable[[], dict[str, Any]],
    every: float | None = None,
) -> Iterator[None]:
    """Send ``{"event": "heartbeat", "what": what, **fields()}`` to ``emit`` every ``every``
    seconds while the block runs (nothing when ``emit`` is None).

    The thread is stopped and joined when the block ends, so no heartbeat follows the
    block's own events.

    Parameters
    ----------
    emit : callable or None
    what : str
        The step, as the progress line names it.
    fields : callable
        The event's other fields at the moment it is sent (time, bounds).
    every : float, optional
        Default :data:`EVERY_SECONDS`.
    """
    if emit is None:
        yield
        return
    period = EVERY_SECONDS if every is None else every
    stop = threading.Event()

    def beat() -> None:
        while not stop.wait(period):
            emit({"event": "heartbeat", "what": what, **fields()})

    thread = threading.Thread(target=beat, name="gossipcert-heartbeat", daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join()
