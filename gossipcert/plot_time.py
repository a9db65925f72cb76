"""The picture engineers compare collectives by: time against message size, log-log.

:func:`draw_time` plots what ``verify --from FORMAT FILE --topology MACHINE --json`` found
(:meth:`gossipcert.formats.time_verdict.TimeReport.to_json`): the algorithm's simulated
time at each size, the certified lower bound (solid) with its latency and bandwidth parts
(dotted), and the round model's best schedule at the file's chunk count run on the same
machine (dashed). A point is marked where the bound's discrete part does not bound the run
(the executor ran the file in several passes) and where the time is extrapolated.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from matplotlib.figure import Figure

from gossipcert.errors import GossipcertError

__all__ = ["draw_time", "is_time_report"]


def is_time_report(data: Any) -> bool:
    """Whether decoded JSON is the output of ``verify --from ... --json`` with a time part."""
    return isinstance(data, dict) and isinstance(data.get("time"), dict) and "file" in data


def _series(rows: list[dict[str, Any]], key: str) -> tuple[list[float], list[float]]:
    points = [(r["size"], r[key]) for r in rows if r.get(key) is not None and r[key] > 0]
    return [x for x, _ in points], [y for _, y in points]


def draw_time(data: dict[str, Any]) -> Figure:
    """Time against size for the algorithm, the bound and the best certified schedule.

    Parameters
    ----------
    data : dict
        The JSON of ``verify --from FORMAT FILE --topology MACHINE --json``.

    Returns
    -------
    matplotlib.figure.Figure

    Raises
    ------
    GossipcertError
        No time in the report, or no size with a positive time or bound.

    Examples
    --------
    >>> report = {"file": "ring.xml", "collective": "allreduce", "time": {
    ...     "machine": "ring:8", "units": "no physical units", "timed": True, "sizes": [
    ...     {"size": 8.0, "time": 14.0, "bound": 7.0, "latency_part": 0.0,
    ...      "bandwidth_part": 7.0, "schedule_time": 7.0, "extrapolated": False,
    ...      "discrete_part_bounds_this_run": True},
    ...     {"size": 64.0, "time": 112.0, "bound": 56.0, "latency_part": 0.0,
    ...      "bandwidth_part": 56.0, "schedule_time": 56.0, "extrapolated": False,
    ...      "discrete_part_bounds_this_run": True}]}}
    >>> len(draw_time(report).axes[0].lines)
    4
    """
    if not is_time_report(data):
        raise GossipcertError("not a report of verify --from ... --json with a time part")
    report = data["time"]
    rows = [r for r in report.get("sizes", []) if isinstance(r, dict)]
    units = report.get("units") == "bytes and seconds"
    fig = Figure(figsize=(7.0, 4.8))
    ax = fig.add_subplot(1, 1, 1)
    drawn = 0
    for key, label, style in (
        ("time", "this algorithm (simulated)", dict(color="#d62728", marker="o", lw=2)),
        ("bound", "certified lower bound", dict(color="black", lw=2)),
        ("schedule_time", "round model's best schedule", dict(color="#1f77b4", ls="--")),
        ("latency_part", "latency part", dict(color="grey", ls=":")),
        ("bandwidth_part", "bandwidth part", dict(color="#2ca02c", ls=":")),
    ):
        xs, ys = _series(rows, key)
        if xs:
            ax.plot(xs, ys, label=label, **style)
            drawn += 1
    extra = [r for r in rows if r.get("extrapolated") and r.get("time")]
    if extra:
        ax.plot(
            [r["size"] for r in extra],
            [r["time"] for r in extra],
            ls="none", marker="o", mfc="white", color="#d62728", label="extrapolated passes",
        )  # fmt: skip
    if not drawn:
        raise GossipcertError("the report has no size with a positive time or bound to draw")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("message size (bytes)" if units else "message size (data units)")
    ax.set_ylabel("time (s)" if units else "time (time units)")
    name = Path(str(data.get("file"))).name
    title = f"{name}: {report.get('collective', data.get('collective'))} on "
    title += str(report.get("machine"))
    ax.set_title(title, fontsize=9)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
    return fig
