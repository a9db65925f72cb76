"""The open gossip instances of Beier and Sibeyn's Tables 5 and 6, with split proofs.

Each instance runs ``gossipcert solve GRAPH --split --jobs J --time-limit T --json`` in a
fresh process (telephone model, gossip): the closed-form lower bound, the best construction
or heuristic schedule, descending probes for shorter schedules, then the claim "one round
fewer is impossible" split into cubes by the automorphism orbits of the first round's calls.
The table puts the outcome (certified optimum, or the bracket ``[L, U]``) beside the paper's
lower bound (LB), former upper bound (UB) and heuristic result (HR); ``seconds`` is the
wall-clock time of the whole process.

Run with the project's Python, e.g.
``nice -n 10 .venv/bin/python benchmarks/open_instances.py --out results/open-instances.md``
(``--quick`` gives every instance 60 s). Timings on a busy machine vary.

References
----------
.. [1] R. Beier and J. F. Sibeyn, "A powerful heuristic for telephone gossiping", Tables 5
   and 6 (``k = 5, 6, 7``; Star5's LB is ``ceil(log2 120) = 7``, UB from their reference [3]).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

# (graph spec, paper's name, LB, UB, HR, time limit in seconds)
SUITE = [
    ("debruijn:6", "DeBruijn6", 8, 20, 10, 420.0),
    ("star-graph:5", "Star5", 7, 9, 9, 420.0),
    ("ccc:5", "CCC5", 11, 15, 13, 60.0),
    ("butterfly:5", "Butterfly5", 8, 15, 11, 60.0),
    ("shuffle-exchange:7", "SE7", 13, 25, 15, 60.0),
    ("debruijn:7", "DeBruijn7", 10, 23, 12, 60.0),
    ("ccc:6", "CCC6", 13, 15, 14, 60.0),
]


def run(
    graph: str, limit: float, jobs: int, cert: Path | None, extra: list[str] | None = None
) -> tuple[float, dict]:
    """Wall seconds of one ``gossipcert solve --split`` process and its JSON answer."""
    exe = Path(sys.executable).with_name("gossipcert")
    cmd = [str(exe), "solve", graph, "--split", "-j", str(jobs), "-t", str(limit), "--json"]
    cmd += extra or []
    if cert is not None:
        cmd += ["-o", str(cert), "--force"]
    t0 = time.monotonic()
    out = subprocess.run(cmd, capture_output=True, text=True, check=False)
    wall = time.monotonic() - t0
    try:
        return wall, json.loads(out.stdout)
    except json.JSONDecodeError:
        return wall, {"status": f"error: {out.stderr.strip()[-100:]}"}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--quick", action="store_true", help="60 s per instance")
    ap.add_argument("--limit", type=float, help="seconds per instance (instead of the suite's)")
    ap.add_argument("--only", nargs="*", help="only these instances (paper names)")
    ap.add_argument("--portfolio", type=float, default=0.0, help="solve --portfolio SECONDS")
    ap.add_argument("--counting", action="store_true", help="solve --counting")
    ap.add_argument("--out", type=Path, help="also write the table (Markdown) here")
    ap.add_argument("--certificates", type=Path, help="folder for certificates / partials")
    args = ap.parse_args()
    head = (
        "| instance | n | paper LB | paper UB | paper HR | ours | status | evidence | "
        "limit | seconds |\n|---|---|---|---|---|---|---|---|---|---|"
    )
    lines = [head]
    print(head, flush=True)
    extra = ["--portfolio", str(args.portfolio)] if args.portfolio > 0 else []
    extra += ["--counting"] if args.counting else []
    for graph, name, lb, ub, hr, limit in SUITE:
        if args.only and name not in args.only:
            continue
        limit = 60.0 if args.quick else args.limit or limit
        cert = None
        if args.certificates is not None:
            args.certificates.mkdir(parents=True, exist_ok=True)
            cert = args.certificates / f"{graph.replace(':', '')}-telephone-gossip.json"
        wall, res = run(graph, limit, args.jobs, cert, extra)
        low, high = res.get("lower_bound"), res.get("upper_bound")
        ours = str(res["optimum"]) if res.get("status") == "optimal" else f"[{low}, {high}]"
        ev = res.get("evidence") or {}
        evidence = ev.get("kind", "")
        if evidence == "drat-cubes":
            evidence += f" ({len(ev.get('cubes', []))} cubes, {ev['coverage']['kind']})"
        n = res.get("n", "")
        row = (
            f"| {name} (`{graph}`) | {n} | {lb} | {ub} | {hr} | {ours} | {res.get('status')} "
            f"| {evidence} | {limit:.0f} s | {wall:.0f} |"
        )
        lines.append(row)
        print(row, flush=True)
    if args.out is not None:
        note = (
            f"\n`{' '.join(sys.argv)}` with --jobs {args.jobs}, on a 2-core machine shared "
            "with other work (timings vary).\n"
        )
        args.out.write_text("\n".join(lines) + "\n" + note)


if __name__ == "__main__":
    main()
