"""Time every MSCCL XML algorithm under a folder on its machine, beside the certified lower
bound, and print Markdown tables.

Usage: .venv/bin/python benchmarks/time_files.py FOLDER --machine GLOB=SPEC [--machine ...]
       [--skip GLOB=REASON ...] [--sizes S,S,...] [--summary] [--claim GLOB ...]
       [--time-limit S]

(Run it with the Python of the environment gossipcert is installed in, the project's
``.venv``.) Each file (path relative to FOLDER) takes the machine of the first ``--machine``
whose glob matches it (``fnmatch``); a file that matches a ``--skip`` first, or no machine,
is listed with the reason and not timed. Files with the same bytes are timed once (the
table names every copy). Without ``--sizes`` each file is timed at its own sizes (across
its ``minBytes..maxBytes``, :func:`gossipcert.timed.sizes.default_sizes`).

Default: one row per file and size: the algorithm's simulated time, the certified lower
bound, the ratio, the part that binds (latency, bandwidth, discrete), the executor's passes
(``*``: extrapolated) and the round model's best schedule at the file's chunk count run on
the same machine. ``--summary``: one row per file: read and valid, the ratio at each size,
and the ratio of the time to the **bandwidth part** at the largest size (ForestColl proves
its allgathers throughput-optimal: that ratio must approach 1 as the size grows), with the
busiest link's own work over the bandwidth part (the file's transfers on their routes
cannot take less: when the two are close, the file's choice of links, not its schedule,
sets the time); for the files that match a ``--claim`` glob (files whose generator claims
throughput optimality) the verdict on that claim says whether the file comes within 5 %
of it.

The round verdict's own optimum is not sought here (``verify --from`` does); the discrete
part of the bound is, within ``--time-limit`` seconds a file.
"""

from __future__ import annotations

import argparse
import fnmatch
import hashlib
import sys
import time
from pathlib import Path

from gossipcert.errors import GossipcertError
from gossipcert.formats import readers
from gossipcert.formats.time_verdict import TimeReport, time_loaded
from gossipcert.formats.verdict import topology_graph
from gossipcert.timed.sizes import format_size, parse_sizes

#: within this much of the bandwidth part, a throughput-optimality claim is met
CLAIM_TOLERANCE = 1.05


def _seconds(t: float | None) -> str:
    if t is None:
        return "-"
    for scale, name in ((1.0, "s"), (1e-3, "ms"), (1e-6, "us"), (1e-9, "ns")):
        if t >= scale:
            return f"{t / scale:.3g} {name}"
    return f"{t:.3g} s"


def _pairs(items: list[str], what: str) -> list[tuple[str, str]]:
    out = []
    for item in items:
        glob, eq, value = item.partition("=")
        if not eq or not glob or not value:
            sys.exit(f"{what} takes GLOB=VALUE, got {item!r}")
        out.append((glob, value))
    return out


def _claim(report: TimeReport, claims: bool) -> tuple[str, str]:
    """The ratio to the bandwidth part at the largest size, and the verdict on the file's
    claim of throughput optimality (``claims``: it makes one)."""
    row = max(report.rows, key=lambda r: r.size)
    if row.time is None or row.bandwidth <= 0:
        return "-", "not judged"
    ratio = row.time / row.bandwidth
    busiest = row.busiest_link / row.bandwidth if row.busiest_link else 0.0
    ratio_text = f"{ratio:.3f} (busiest link {busiest:.3f})"
    if not claims:
        return ratio_text, "no claim"
    verdict = (
        f"met: within {CLAIM_TOLERANCE - 1:.0%} at {format_size(row.size)}"
        if ratio <= CLAIM_TOLERANCE
        else f"not met: {ratio:.2f}x the optimum at {format_size(row.size)}"
    )
    return ratio_text, verdict


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder")
    parser.add_argument("--machine", action="append", default=[], metavar="GLOB=SPEC")
    parser.add_argument("--skip", action="append", default=[], metavar="GLOB=REASON")
    parser.add_argument("--sizes", default=None)
    parser.add_argument("--summary", action="store_true")
    parser.add_argument("--claim", action="append", default=[], metavar="GLOB")
    parser.add_argument("--time-limit", type=float, default=30.0)
    args = parser.parse_args()
    root = Path(args.folder)
    machines, skips = _pairs(args.machine, "--machine"), _pairs(args.skip, "--skip")
    sizes = None if args.sizes is None else parse_sizes(args.sizes)
    copies: dict[str, list[str]] = {}
    first: dict[str, Path] = {}
    for path in sorted(root.rglob("*.xml")):
        digest = hashlib.sha256(path.read_bytes()).hexdigest()
        copies.setdefault(digest, []).append(str(path.relative_to(root)))
        first.setdefault(digest, path)
    if args.summary:
        cols = " | ".join(format_size(s) for s in sizes or [])
        print(f"| file | collective | ranks | machine | read s | valid | ratio at {cols} | "
              "time s | time / bandwidth part at the largest | throughput claim |")  # fmt: skip
        print("|---" * (10 + max(0, len(sizes or []) - 1)) + "|")
    else:
        print("| file | collective | ranks | machine | size | time | bound | ratio | binds | "
              "passes | schedule |")  # fmt: skip
        print("|---" * 11 + "|")
    started = time.monotonic()
    details: list[tuple[str, str, TimeReport]] = []
    for digest, path in first.items():
        names = copies[digest]
        label = names[0] + (f" (= {', '.join(names[1:])})" if len(names) > 1 else "")
        rel = names[0]
        skip = next((reason for glob, reason in skips if fnmatch.fnmatch(rel, glob)), None)
        spec = next((m for glob, m in machines if fnmatch.fnmatch(rel, glob)), None)
        if skip or spec is None:
            reason = skip or "no machine given for it"
            print(f"| {label} | - | - | - | not timed: {reason} |" + " |" * 6, flush=True)
            continue
        clock = time.monotonic()
        try:
            loaded = readers.load(str(path), "msccl-xml")
            read = time.monotonic() - clock
            graph = topology_graph(spec, loaded.ranks)
            report = time_loaded(loaded, graph, sizes, time_limit=args.time_limit)
        except GossipcertError as exc:
            print(f"| {label} | - | - | {spec} | refused: {exc} |" + " |" * 6, flush=True)
            continue
        total = time.monotonic() - clock
        valid = "valid" if loaded.replay.valid else f"invalid ({loaded.replay.findings[0].rule})"
        if args.summary:
            ratios = " | ".join(
                "-" if r.ratio is None else f"{r.ratio:.3f} ({r.binds[0]})" for r in report.rows
            )
            ratio, claim = _claim(report, any(fnmatch.fnmatch(rel, g) for g in args.claim))
            print(
                f"| {label} | {report.collective} | {report.ranks} | {spec} | {read:.2f} | "
                f"{valid} | {ratios} | {total:.1f} | {ratio} | {claim} |",
                flush=True,
            )
            continue
        details.append((names[0], spec, report))
        for row in report.rows:
            passes = f"{row.passes}" + ("*" if row.extrapolated else "")
            ratio = "-" if row.ratio is None else f"{row.ratio:.3f}"
            print(
                f"| {label} | {report.collective} | {report.ranks} | {spec} | "
                f"{format_size(row.size)} | {_seconds(row.time)} | {_seconds(row.bound)} | "
                f"{ratio} | {row.binds} | {passes} | {_seconds(row.schedule_time)} |",
                flush=True,
            )
            label = "〃"
    if details:
        print("\n| file | machine | protocol | pairs routed | latency part | bandwidth part | "
              "discrete part |")  # fmt: skip
        print("|---" * 7 + "|")
        for name, spec, report in details:
            d = report.discrete
            if not d.available:
                discrete = f"none: {d.reason}"
            else:
                rounds = d.lower if d.status == "optimal" else f"[{d.lower}, {d.upper}]"
                discrete = f"{d.problem} on {d.topology}: {rounds} round(s) ({d.evidence})"
            print(
                f"| {name} | {spec} | {report.protocol} (wire x{report.wire:g}) | "
                f"{len(report.routed)} | {report.latency_detail} | {report.bandwidth.detail} | "
                f"{discrete} |"
            )
    print(f"\n{len(first)} distinct files, {time.monotonic() - started:.0f} s", file=sys.stderr)


if __name__ == "__main__":
    main()
