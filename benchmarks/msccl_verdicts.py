"""The verdict on every MSCCL XML file under a folder, beside an independent replay's.

Usage: .venv/bin/python benchmarks/msccl_verdicts.py FOLDER [--reference] [--rows]
       [--json OUT]

(Run it from the repository with the Python of its environment; ``--reference`` takes
``tests/msccl_reference.py``.)

For each file: gossipcert's verdict without the optimum's search
(``verify_algorithm(..., optimum=False)``: valid, invalid with the rules it breaks, not
judged, or refused with the one-line reason) and the seconds it took. With ``--reference``
each file is also judged by ``tests/msccl_reference.py``, a replay written for the tests from
the executor's C code that shares no code with ``gossipcert.formats`` (it tokenizes, loads and
runs the algorithm; it is slow on the largest files, minutes for a 2.7 MB one): the two must
agree on valid or not. It prints the counts of each verdict, the agreement, the slowest file,
and with ``--rows`` one row per file; ``--json`` writes every row. Exit 1 when they disagree.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from gossipcert.errors import GossipcertError
from gossipcert.formats.verdict import verify_algorithm


def verdict_of(path: Path) -> dict[str, object]:
    start = time.perf_counter()
    try:
        v = verify_algorithm(str(path), optimum=False)
        judged = getattr(v, "judged", v.replay.semantics)  # (main before "not judged")
        row: dict[str, object] = {
            "verdict": "valid" if v.valid else "invalid" if judged else "not judged",
            "collective": v.collective,
            "ranks": v.ranks,
            "rules": sorted({f.rule for f in v.replay.findings}),
        }
    except GossipcertError as exc:
        row = {"verdict": "refused", "reason": str(exc).split(": ", 1)[-1][:160]}
    row["seconds"] = round(time.perf_counter() - start, 3)
    return row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("folder")
    parser.add_argument("--reference", action="store_true", help="judge with the reference too")
    parser.add_argument("--rows", action="store_true", help="one row per file")
    parser.add_argument("--json", help="write every row to this file")
    args = parser.parse_args()
    judge: Callable[[bytes], Any] | None = None
    if args.reference:
        from tests.msccl_reference import judge
    rows: dict[str, dict[str, object]] = {}
    for path in sorted(Path(args.folder).glob("*.xml")):
        row = verdict_of(path)
        if judge is not None:
            start = time.perf_counter()
            ref = judge(path.read_bytes())
            row["reference"] = ref.verdict
            row["reference_seconds"] = round(time.perf_counter() - start, 1)
            row["agree"] = (row["verdict"] == "valid") == (ref.verdict == "valid")
        rows[path.name] = row
        if args.rows:
            extra = f" | reference {row['reference']}" if judge is not None else ""
            why = row.get("rules") or row.get("reason", "")
            print(f"| {path.name} | {row['verdict']} | {why} | {row['seconds']}{extra} |",
                  flush=True)  # fmt: skip
    counts = Counter(str(r["verdict"]) for r in rows.values())
    print(f"\n{len(rows)} files: " + ", ".join(f"{k} {v}" for k, v in sorted(counts.items())))
    slowest = max(rows, key=lambda name: float(rows[name]["seconds"]))  # type: ignore[arg-type]
    print(f"slowest: {slowest} ({rows[slowest]['seconds']} s)")
    if judge is not None:
        differ = [name for name, r in rows.items() if not r["agree"]]
        print(f"agree with the reference on valid or not: {len(rows) - len(differ)} of "
              f"{len(rows)}" + (f"; differ: {differ}" if differ else ""))  # fmt: skip
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1))
    sys.exit(1 if judge is not None and differ else 0)


if __name__ == "__main__":
    main()
