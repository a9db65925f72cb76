"""What a search that did not finish knows: its best verified schedule and both bounds.

``solve -o FILE`` writes this file (``gossipcert-partial/1``) when the time limit runs out or
the run is interrupted, so that the work is not lost; ``solve --resume FILE`` reads the
schedule back, verifies it again, and starts from it as its upper bound. Nothing else in the
file is trusted on reading: the lower bound and its evidence are recorded for the reader
only, and the new search derives its own.

Its ``status`` never says more than the evidence beside it proves: ``optimal`` only with a
lower bound beyond the solver's word; bounds that met on the solver's word alone (a proof
cut short by the time limit or by a signal) are ``feasible`` with ``decided_by_solver``
true (``docs/statuses.md``).

A certificate (``gossipcert-certificate/1``) holds a schedule in the same place, so it can be
resumed from too, and so can a plain schedule file (``gossipcert-schedule/1``, e.g. one
written by the symmetric schedule search).

Examples
--------
>>> from gossipcert.instance import parse_instance
>>> from gossipcert.search.entry import solve
>>> res = solve(parse_instance("ring:6", "telephone", "gossip"))
>>> data = partial_record(res)
>>> data["format"], data["status"], data["upper_bound"], data["decided_by_solver"]
('gossipcert-partial/1', <SolveStatus.OPTIMAL: 'optimal'>, 3, False)
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from gossipcert.errors import GossipcertError, ScheduleFormatError
from gossipcert.instance import Instance
from gossipcert.schedule import FORMAT as SCHEDULE_FORMAT
from gossipcert.schedule import Schedule, from_json, to_json
from gossipcert.search.outcome import SolveResult
from gossipcert.statuses import SolveStatus

FORMAT = "gossipcert-partial/1"


def partial_record(result: SolveResult) -> dict[str, Any]:
    """The ``gossipcert-partial/1`` record of a search result (any status)."""
    inst = result.instance
    fields = result.status_fields()
    return {
        "format": FORMAT,
        "instance": inst.describe(),
        "status": fields["status"],
        "decided_by_solver": fields["decided_by_solver"],
        "lower_bound": result.lower_bound,
        "upper_bound": result.upper_bound,
        "schedule": to_json(result.schedule, inst) if result.schedule is not None else None,
        "schedule_source": result.upper_source,
        "evidence": {
            k: v
            for k, v in result.evidence.items()
            if k not in ("proof_xz_base64", "lrat_xz_base64")
        },
        "timed_out": result.timed_out,
        "interrupted": result.interrupted,
        "note": _note(fields["status"], fields["decided_by_solver"]),
    }


def _note(status: SolveStatus, decided_by_solver: bool) -> str:
    """What a partial file says of itself, by what its evidence proves."""
    if status is SolveStatus.OPTIMAL:
        what = "the optimum is proved (the evidence below), but no certificate was written"
    elif decided_by_solver:
        what = "the bounds met on the solver's word only: the optimum is not proved"
    else:
        what = "the optimum is not proved"
    return (
        f"the search did not finish: the schedule is verified, {what}; continue with: "
        "gossipcert solve ... --resume THIS_FILE"
    )


def partial_text(result: SolveResult) -> str:
    """:func:`partial_record` as JSON text."""
    return json.dumps(partial_record(result), indent=1) + "\n"


def read_resume_schedule(path: str | Path, instance: Instance) -> Schedule | None:
    """The schedule stored in a partial-results file, a certificate or a schedule file (not yet
    verified).

    Returns None when the file records no schedule.

    Raises
    ------
    ScheduleFormatError
        Missing or unreadable file, or not a partial-results file or certificate.
    """
    p = Path(path)
    try:
        data = json.loads(p.read_text())
    except FileNotFoundError:
        raise ScheduleFormatError(f"resume file {str(p)!r} does not exist") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ScheduleFormatError(f"cannot read resume file {str(p)!r}: {exc}") from None
    except json.JSONDecodeError as exc:
        raise ScheduleFormatError(f"resume file {str(p)!r} is not valid JSON: {exc}") from None
    if isinstance(data, dict) and data.get("format") == SCHEDULE_FORMAT:
        return from_json(data, instance)
    if not isinstance(data, dict) or "schedule" not in data:
        raise ScheduleFormatError(
            f"resume file {str(p)!r} is neither a partial-results file nor a certificate "
            "(it has no 'schedule') nor a schedule file"
        )
    if data["schedule"] is None:
        return None
    return from_json(data["schedule"], instance)


def resume_seed(path: str | Path, instance: Instance) -> list[tuple[str, Schedule]]:
    """The schedule a run resumes from (``solve --resume FILE``, ``gossipcert.solve(...,
    resume=FILE)``), verified on ``instance``, named for the search's upper bound: ``[]``
    when the file records no schedule.

    Raises
    ------
    ScheduleFormatError
        The file cannot be read (:func:`read_resume_schedule`).
    GossipcertError
        Its schedule does not solve ``instance`` (a file of another graph, model or
        problem).
    """
    from gossipcert.simulate import simulate

    previous = read_resume_schedule(path, instance)
    if previous is None:
        return []
    check = simulate(instance, previous)
    if not check.ok:
        first = check.errors[0].message if check.errors else "demands not all met"
        raise GossipcertError(
            f"the schedule in {path} does not solve this instance ({first}); was it written "
            "for another graph, model or problem?"
        )
    return [(f"{path} (resumed)", previous)]
