"""What ``verify --from`` prints about time: one line per message size, the algorithm's time
beside the certified lower bound, the part that binds and the ratio."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.markup import escape as esc

from gossipcert.cli_text import console
from gossipcert.statuses import SolveStatus
from gossipcert.timed.sizes import format_size

if TYPE_CHECKING:  # pragma: no cover - annotations only
    from gossipcert.formats.time_verdict import TimeReport

#: pairs of ranks routed over several links, listed without --show
_ROUTES_SHOWN = 4


def format_seconds(t: float | None, units: bool = True) -> str:
    """A time in seconds as ``1.79 us``, ``12.5 ms`` (or in time units).

    Examples
    --------
    >>> format_seconds(1.79e-6), format_seconds(0.0125), format_seconds(3.0, False)
    ('1.79 us', '12.5 ms', '3 t')
    """
    if t is None:
        return "-"
    if not units:
        return f"{t:.4g} t"
    for scale, name in ((1.0, "s"), (1e-3, "ms"), (1e-6, "us"), (1e-9, "ns")):
        if abs(t) >= scale:
            return f"{t / scale:.3g} {name}"
    return f"{t:.3g} s"


def print_time(report: TimeReport, show: bool = False) -> None:
    """The time section of a verdict (see :mod:`gossipcert.formats.time_verdict`)."""
    out = console.print
    units = report.units
    out(f"  time on {esc(report.machine.describe())}:", highlight=False, soft_wrap=True)
    if not units:
        out("    sizes in data units, times in time units (t)", highlight=False)
    routes = sorted(report.routed.items())
    for (s, d), path in routes[: (None if show else _ROUTES_SHOWN)]:
        hops = " -> ".join(map(str, path))
        out(
            f"    rank {s} -> rank {d}: no link; routed {hops} ({len(path) - 1} links)",
            highlight=False,
        )
    if len(routes) > _ROUTES_SHOWN and not show:
        out(f"    ... {len(routes) - _ROUTES_SHOWN} more routed pairs (--show lists them)")
    if report.reason is not None:
        out(f"    {esc(report.reason)}", highlight=False)
    out(f"    latency part: {esc(report.latency_detail)}", highlight=False)
    out(f"    bandwidth part: {esc(report.bandwidth.detail)}", highlight=False, soft_wrap=True)
    out(f"    discrete part: {esc(_discrete_text(report))}", highlight=False, soft_wrap=True)
    head = f"    {'size':>10}  {'time':>10}  {'bound':>10}  {'ratio':>6}  {'binds':<9}  "
    head += f"{'passes':>6}  {'schedule':>10}"
    out(head, highlight=False)
    for row in report.rows:
        ratio = "-" if row.ratio is None else f"{row.ratio:.3f}"
        passes = f"{row.passes}" + ("*" if row.extrapolated else "")
        out(
            f"    {format_size(row.size, units):>10}  {format_seconds(row.time, units):>10}  "
            f"{format_seconds(row.bound, units):>10}  {ratio:>6}  {row.binds:<9}  "
            f"{passes:>6}  {format_seconds(row.schedule_time, units):>10}",
            highlight=False,
        )
    for note in report.notes:
        out(f"    note: {esc(note)}", highlight=False, soft_wrap=True)


def _discrete_text(report: TimeReport) -> str:
    d = report.discrete
    if not d.available:
        return f"none ({d.reason})"
    if d.status is SolveStatus.OPTIMAL:
        what = f"{d.lower} round(s)" + (" (certified)" if d.certified else " (the solver's word)")
    else:
        what = f"between {d.lower} and {'?' if d.upper is None else d.upper} rounds (time limit)"
    return (
        f"{d.problem} under {d.model} on {d.topology}: {what}; bound = rounds x one chunk "
        f"of {d.chunks} over the fastest link, when the run moves whole chunks in one pass; "
        "'schedule' is that round schedule run on the machine"
    )
