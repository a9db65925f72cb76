"""The longest silence of a command: the largest gap between two lines it prints.

Runs a command (by default ``gossipcert solve petersen --model half-duplex``, whose proof
is written and checked for most of its run), stamps every line it prints on stdout or
stderr with the seconds since the start, and prints the line count, the wall time, the
largest gap (start and end of the run included) and the step after which it came. The
command line promises a line at least every few seconds during every long step.

Run with the project environment's Python::

    .venv/bin/python benchmarks/heartbeat_gaps.py [--quiet-lines] [-- COMMAND ...]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from pathlib import Path

DEFAULT = ["solve", "petersen", "--model", "half-duplex"]


def gaps(command: list[str], echo: bool) -> tuple[int, float, float, str, int]:
    """Run ``command``; return (lines, wall seconds, largest gap, the line before it,
    exit status)."""
    start = time.monotonic()
    proc = subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, bufsize=1
    )
    assert proc.stdout is not None
    last, largest, before, lines, previous = start, 0.0, "(the start)", 0, "(the start)"
    for line in proc.stdout:
        now = time.monotonic()
        if now - last > largest:
            largest, before = now - last, previous
        last, previous, lines = now, line.strip(), lines + 1
        if echo:
            print(f"{now - start:8.2f}  {line}", end="", flush=True)
    status = proc.wait()
    end = time.monotonic()
    if end - last > largest:
        largest, before = end - last, previous
    return lines, end - start, largest, before, status


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quiet-lines", action="store_true", help="do not echo the lines")
    parser.add_argument("command", nargs="*", help="gossipcert's arguments (after --)")
    args = parser.parse_args()
    exe = Path(sys.executable).with_name("gossipcert")
    command = [str(exe), *(args.command or DEFAULT)]
    lines, wall, largest, before, status = gaps(command, not args.quiet_lines)
    print()
    print("| command | exit | wall s | lines | largest gap s | after the line |")
    print("|---|---|---|---|---|---|")
    shown = " ".join(["gossipcert", *command[1:]])
    print(f"| `{shown}` | {status} | {wall:.1f} | {lines} | {largest:.2f} | {before[:60]} |")


if __name__ == "__main__":
    main()
