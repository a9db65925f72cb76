"""A search's reports as another process receives them, and the answer of a stopped search.

A search run in a child process (:func:`gossipcert.watchdog.solve_within`) sends two kinds of
report as it goes: *events* (``progress``: a bound found, a horizon refuted, a heartbeat)
and *states* (``on_state``: the best lower bound and its evidence, the best schedule and
where it came from). :class:`Reports` is what the receiving process keeps of them: every
event is logged and passed on, the last state is kept, and the schedule in it is verified
again as it arrives (:func:`gossipcert.simulate.simulate`), so that a search killed at its
time limit, or stopped by a signal, leaves nothing to replay; while the child is silent
(inside a native call), it sends heartbeats naming the step the child last said it was in.
:meth:`Reports.answer` is the result of such a stopped search: the bounds and evidence of
its last state, ``timed_out`` or ``interrupted`` set.
"""

from __future__ import annotations

import time
from typing import Any

from gossipcert.encodings import EncodingOptions
from gossipcert.instance import Instance
from gossipcert.search.outcome import SolveResult
from gossipcert.search.rounds import Progress, _verified
from gossipcert.statuses import SolveStatus


class Reports:
    """What a receiving process keeps of the reports of a search of ``instance`` that began
    at ``start`` (a ``time.monotonic()`` value), passing each event to ``progress``.

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> reports = Reports(parse_instance("path:3", "telephone", "broadcast:0"), 0.0, None)
    >>> reports.on_message(("state", {"lower": 2, "upper_source": "none"}))
    >>> reports.answer("sat", EncodingOptions(), "timeout").lower_bound
    2
    """

    def __init__(self, instance: Instance, start: float, progress: Progress | None) -> None:
        self.instance, self.start, self.progress = instance, start, progress
        #: the last state reported (``verified``: its schedule, verified on arrival)
        self.state: dict[str, Any] = {"lower": 0, "evidence": {}, "upper_source": "none"}
        #: the events reported, heartbeats left out
        self.log: list[dict[str, Any]] = []
        #: the step the child last said it was in, for the heartbeats sent while it is
        #: silent; ``origin``: when the child's clock read 0
        self.doing: dict[str, Any] = {"what": "starting the search", "lower": None}
        self.doing.update(upper=None, origin=start)

    def on_message(self, msg: tuple[str, Any]) -> None:
        """Take one report: ``("event", event)`` or ``("state", state)``."""
        kind, value = msg
        if kind == "state":
            self.state.update(value)
            if value.get("schedule") is not None:
                self.state["verified"] = _verified(self.instance, value["schedule"], "reported")
            return
        doing = self.doing
        if isinstance(value.get("time"), int | float):  # the child's clock
            doing["origin"] = time.monotonic() - value["time"]
        if value["event"] == "heartbeat":
            doing.update(what=value.get("what"), rounds=value.get("rounds"))
            doing.update(lower=value.get("lower"), upper=value.get("upper"))
        else:
            self.log.append(value)
            doing.update(what=f"working (last step: {value['event']})", rounds=None)
            if value["event"] in ("lower-bound", "upper-bound"):
                doing[value["event"].split("-")[0]] = value["value"]
        if self.progress is not None:
            self.progress(value)

    def on_idle(self) -> None:
        """The child has been silent a while: pass on a heartbeat (:func:`idle_heartbeat`)."""
        if self.progress is not None:
            self.progress(idle_heartbeat(self.doing))

    def answer(self, backend: str, options: EncodingOptions, stopped: str) -> SolveResult:
        """The result of the search, stopped (``"interrupted"``, or killed at its time
        limit: anything else) after its last report."""
        state = self.state
        best = state.get("verified")  # the last schedule reported, verified as it arrived
        lower = int(state["lower"])
        evidence = state["evidence"] or {
            "kind": "closed-form",
            "name": "trivial",
            "value": lower,
            "source": "the lower bound known when the search was stopped",
        }
        return SolveResult.from_bracket(
            self.instance,
            SolveStatus.of_bracket(lower, None if best is None else best[1].rounds),
            lower,
            best,
            evidence,
            state["upper_source"] if best is not None else "none",
            backend,
            state.get("options", options),
            {"total": time.monotonic() - self.start},
            self.log,
            timed_out=stopped != "interrupted",
            interrupted=stopped == "interrupted",
        )


def idle_heartbeat(doing: dict[str, Any]) -> dict[str, Any]:
    """A heartbeat event sent by the receiving process while the child is silent (inside a
    native call), naming the step the child last reported; its time on the child's clock
    (``doing["origin"]``: when the child's clock read 0)."""
    return {
        "event": "heartbeat",
        "time": round(time.monotonic() - doing["origin"], 3),
        "rounds": doing.get("rounds"),
        "what": doing.get("what"),
        "lower": doing.get("lower"),
        "upper": doing.get("upper"),
    }
