"""Start-up time of the command line: ``gossipcert --version`` and ``gossipcert --help``.

Prints the median wall and CPU seconds of each over ``--runs`` runs (each a fresh process),
and the ten slowest imports of ``import gossipcert.cli`` (``python -X importtime``).

Run with the project environment's Python::

    .venv/bin/python benchmarks/startup.py [--runs 7]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time


def timed(args: list[str]) -> tuple[float, float]:
    """Wall and CPU (user + system of the child) seconds of one run."""
    before = os.times()
    start = time.perf_counter()
    subprocess.run(args, capture_output=True, check=True)
    wall = time.perf_counter() - start
    after = os.times()
    cpu = (after.children_user - before.children_user) + (
        after.children_system - before.children_system
    )
    return wall, cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    runs = parser.parse_args().runs
    exe = [sys.executable, "-m", "gossipcert"]
    print(f"{'command':<22} {'wall s':>8} {'cpu s':>8}")
    for extra in (["--version"], ["--help"]):
        samples = [timed(exe + extra) for _ in range(runs)]
        wall = statistics.median(s[0] for s in samples)
        cpu = statistics.median(s[1] for s in samples)
        print(f"{'gossipcert ' + extra[0]:<22} {wall:8.3f} {cpu:8.3f}")
    out = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", "import gossipcert.cli"],
        capture_output=True,
        text=True,
        check=True,
    ).stderr
    rows = []
    for line in out.splitlines()[1:]:
        parts = line.split("|")
        if len(parts) == 3:
            rows.append((int(parts[1]), parts[2].rstrip()))
    print("\nslowest imports of gossipcert.cli (cumulative microseconds):")
    for total, name in sorted(rows, reverse=True)[:10]:
        print(f"{total:>10}  {name}")


if __name__ == "__main__":
    main()
