"""gossipcert: certified optimal schedules for gossip, broadcast and related problems.

The Python API (:mod:`gossipcert.api`) is at the package's face (a graph is a spec, a
file or a networkx graph of one's own):

>>> import gossipcert
>>> res = gossipcert.solve("ccc:3", "telephone", "gossip")
>>> res.optimum, res.lower_evidence["kind"]  # a checked LRAT proof of a relaxation
(7, 'drat-relaxed')
>>> gossipcert.check(res.certificate()).ok
True

Its names are loaded on first use, so ``import gossipcert`` (and ``gossipcert --version``)
stays fast.
"""

from __future__ import annotations

import sys
import time
from typing import TYPE_CHECKING, Any

from gossipcert._version import __version__

if TYPE_CHECKING:  # pragma: no cover - for type checkers and IDEs only
    from gossipcert.api import (
        BoundsResult,
        CheckReport,
        Report,
        Result,
        SolveStatus,
        TecclJudgement,
        TimeReport,
        Verdict,
        as_instance,
        bounds,
        check,
        judge_teccl,
        msccl_xml_from_schedule,
        mscclpp_plan_from_schedule,
        sccl_json_from_schedule,
        solve,
        table,
        time_algorithm,
        upgrade,
        verify,
        verify_algorithm,
    )

__all__ = [
    "BoundsResult",
    "CheckReport",
    "Report",
    "Result",
    "SolveStatus",
    "TecclJudgement",
    "TimeReport",
    "Verdict",
    "__version__",
    "as_instance",
    "bounds",
    "check",
    "judge_teccl",
    "msccl_xml_from_schedule",
    "mscclpp_plan_from_schedule",
    "sccl_json_from_schedule",
    "solve",
    "table",
    "time_algorithm",
    "upgrade",
    "verify",
    "verify_algorithm",
]

_API = frozenset(__all__) - {"__version__"}


def __getattr__(name: str) -> Any:
    """The API's names, imported from :mod:`gossipcert.api` when first asked for.

    The loading (seconds: the solvers' libraries) is recorded, so that a first
    ``gossipcert.solve(..., time_limit=T)`` that loads the API counts it in its limit
    (:func:`gossipcert.command_start.call_origin`)."""
    if name in _API:
        if "gossipcert.api" not in sys.modules:
            began = time.monotonic()
            from gossipcert import api
            from gossipcert.command_start import note_api_load

            note_api_load(began, time.monotonic())
        from gossipcert import api

        return getattr(api, name)
    raise AttributeError(f"module 'gossipcert' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | _API)
