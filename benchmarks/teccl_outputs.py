"""TE-CCL's published schedules replayed in its own model, and its optimality claims judged.

For every TE-CCL schedule (JSON) under a folder (a snapshot of github.com/microsoft/TE-CCL's
``teccl/examples``: ``schedules/`` and ``experiments/output_provided/``), this script

1. reads it (:func:`gossipcert.formats.teccl.read_teccl_schedule`: the machine from its GPUs
   and links, the chunk size from its algorithmic bandwidth) and replays it in TE-CCL's epoch
   model, comparing the epochs required and the finish time with the file's own
   ("3-Epochs_Required", "4-Collective_Finish_Time": equal as floats, as TE-CCL computes
   them);
2. sets beside it gossipcert's lower bound in the same model
   (:func:`gossipcert.formats.teccl_bounds.epoch_lower_bound`: distances, and cuts by exact
   max-flow);
3. where the bound is below TE-CCL's epochs, builds a schedule of its own
   (:mod:`gossipcert.formats.teccl_construct`; with ``--exact-seconds``, also the CNF of
   :mod:`gossipcert.formats.teccl_exact` for allgather, a refutation checked by the proof
   checkers raising the bound), replays it, and writes it in TE-CCL's own format under
   ``--schedules`` when it is shorter than TE-CCL's;
4. gives the verdict on TE-CCL's claim that its schedule is optimal in its model:
   **confirmed** (the bound meets its epochs), **refuted** (a shorter schedule, verified), or
   **open** (a bracket).

Each file's row is appended to ``--resume`` (JSON lines) as it is done, and a rerun skips the
files already there. Run::

    git --git-dir=/path/to/TE-CCL.git archive HEAD teccl/examples | tar -x -C /tmp/teccl
    nice -n 10 .venv/bin/python benchmarks/teccl_outputs.py /tmp/teccl \\
        --schedules results/schedules/teccl --resume /tmp/teccl-rows.jsonl \\
        --output results/teccl-2026-11-29.md

References
----------
.. [1] X. Liu et al., "Rethinking machine learning collective communication as a
   multi-commodity flow problem", SIGCOMM 2024; github.com/microsoft/TE-CCL.
"""

from __future__ import annotations

import argparse
import gzip
import json
import platform
import sys
import time
from pathlib import Path
from typing import Any

from gossipcert.errors import GossipcertError
from gossipcert.formats.teccl_verdict import judge_teccl


def _files(folder: Path) -> list[Path]:
    found = []
    for path in sorted(folder.rglob("*.json")):
        parts = path.as_posix()
        if "/schedules/" in parts or "/output_provided/" in parts:
            found.append(path)
    return found


def _short(path: Path) -> str:
    text = path.as_posix()
    for mark in ("/output_provided/", "/examples/"):
        if mark in text:
            return text.split(mark, 1)[1]
    return path.name


def judge(path: Path, args: argparse.Namespace) -> dict[str, Any]:
    """One file's row."""
    start = time.perf_counter()
    row: dict[str, Any] = {"file": _short(path)}
    try:
        got = judge_teccl(str(path), tries=args.tries, exact_seconds=args.exact_seconds)
    except GossipcertError as exc:
        row.update(read=False, error=str(exc))
        return row
    data = got.to_json()
    attached = ""
    if got.better is not None and args.schedules:
        name = Path(args.schedules) / (row["file"].replace("/", "_")[:-5] + ".json.gz")
        name.parent.mkdir(parents=True, exist_ok=True)
        got.better["gossipcert"] = f"a schedule of {got.best} epochs for {row['file']}"
        with gzip.open(name, "wt", encoding="utf-8") as fh:
            json.dump(got.better, fh)
        attached = name.as_posix()
    row.update(
        read=True, collective=data["collective"], machine=data["machine"],
        epoch=data["epoch"], epoch_rule=data["epoch_rule"] or "given", chunk_gb=data["chunk_gb"],
        theirs=data["epochs"], replayed=data["epochs_replayed"], finish=data["finish_time"],
        finish_replayed=data["finish_time_replayed"], same=data["same"], valid=data["valid"],
        findings=[e["message"] for e in data["errors"][:3]], lower=got.bound.value,
        lower_how=f"{got.bound.kind}: {got.bound.detail}", best=got.best,
        best_how=got.best_how, attached=attached, verdict=got.verdict, optimum=got.optimum,
        sentence=got.sentence(), seconds=round(time.perf_counter() - start, 1),
    )  # fmt: skip
    return row


def _table(rows: list[dict[str, Any]]) -> str:
    head = ("file", "read", "machine", "epoch", "TE-CCL epochs", "replayed", "finish (s)",
            "replayed finish", "same", "valid", "lower bound", "best schedule",
            "optimum in TE-CCL's model", "verdict on TE-CCL's claim")  # fmt: skip
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in rows:
        if not r.get("read"):
            lines.append(f"| {r['file']} | no: {r.get('error', '')} |" + " |" * (len(head) - 2))
            continue
        best = f"{r['best']} ({r['best_how']})"
        if r["best_how"] != "TE-CCL":
            name = r["file"].replace("/", "_")[:-5] + ".json.gz"
            best += f", [schedule](schedules/teccl/{name})"
        verdict = r["sentence"]
        lines.append("| " + " | ".join(str(x) for x in (
            r["file"], "yes", r["machine"], f"{r['epoch']:g} s ({r['epoch_rule']})",
            r["theirs"], r["replayed"], f"{r['finish']:.6g}", f"{r['finish_replayed']:.6g}",
            "yes" if r["same"] else "NO", "yes" if r["valid"] else "NO",
            f"{r['lower']} ({r['lower_how']})", best, r["optimum"], verdict,
        )) + " |")  # fmt: skip
    return "\n".join(lines)


NOTES = """Notes:

- **Read and replayed.** Each file is read as TE-CCL writes it (`6-Demand_Met` and `7-Flows`
  for allgather; the paths of `7-chunk paths`, or `8-Chunk paths` in the DGX-2 files, for
  alltoall). The machine is the one of TE-CCL's `teccl/topologies` whose GPUs and links the
  file uses; the chunk size is TE-CCL's algorithmic bandwidth formula read backwards, and the
  epoch the file's own. "epoch" gives which of TE-CCL's rules yields it (`fast x4`: four
  chunk-times of the fastest link, `slow x1`, or `alpha / 200`: stretched so that the least
  alpha is 200 epochs). "same" compares the replay's epochs required and finish time with
  the file's `3-Epochs_Required` and `4-Collective_Finish_Time` as floats; "valid": every
  flow follows TE-CCL's rules (link loads are accepted within TE-CCL's solver tolerance
  1e-4; the largest excess in these files is 1e-6 of a chunk, the 6-decimal rounding of
  alltoall volumes), and every `6-Demand_Met` time agrees with the replay.
- **TE-CCL's model as its code builds it.** On two NDv2 chassis TE-CCL marks GPU 0 a switch
  (`set_switch_indicies`), so those schedules have 15 GPUs (1..15) and GPU 0 only forwards,
  keeping nothing. The DGX-2 runs with early stop were generated with 8 GPUs a chassis
  (`json_gen.py` passes 8 for them), so their chunks are twice the other DGX-2 runs' (1/16
  of the size, not 1/32); they are judged in the model they were solved in.
- **Lower bound.** `distance`: the farthest chunk's delay; `cut`: the chunks that must enter
  a set of nodes against what its links carry in time (an exact max-flow; its evidence names
  the set); both closed forms of the model's own delays and capacities
  (`gossipcert/formats/teccl_bounds.py`). "confirmed": the bound equals TE-CCL's epochs.
- **Shorter schedules** come from `gossipcert/formats/teccl_construct.py` (greedy routing,
  several orders), are replayed before they count, and are attached in TE-CCL's own format
  under `results/schedules/teccl/` (`gossipcert teccl FILE.json.gz` replays one). TE-CCL's
  claims fail where its own search stops short: the iterative search accepts the first
  feasible solution of each horizon (`solution_limit = 1`) in a binary search, early stop
  allows a 30 % MIP gap, and the alltoall linear program maximises early delivery over a
  fixed horizon rather than minimising the epochs.
"""


def _groups(rows: list[dict[str, Any]]) -> str:
    """Counts of verdicts per machine, collective and epoch type (the folder TE-CCL used)."""
    counts: dict[tuple[str, str, str], dict[str, int]] = {}
    for r in rows:
        if not r.get("read"):
            continue
        parts = r["file"].split("/")
        kind = parts[-2] if len(parts) > 2 else "example"
        key = (r["machine"], r["collective"], kind)
        slot = counts.setdefault(key, {"confirmed": 0, "refuted": 0, "open": 0, "invalid": 0})
        slot[r["verdict"]] += 1
    lines = ["| machine | collective | epochs | files | confirmed | refuted | open |",
             "|---|---|---|---|---|---|---|"]  # fmt: skip
    for (machine, coll, kind), c in sorted(counts.items()):
        lines.append(f"| {machine} | {coll} | {kind} | {sum(c.values())} | {c['confirmed']} | "
                     f"{c['refuted']} | {c['open']} |")  # fmt: skip
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("folder", help="TE-CCL's teccl/examples (or a folder above it)")
    ap.add_argument("--output", help="write the Markdown page here")
    ap.add_argument("--schedules", help="write gossipcert's shorter schedules here (.json.gz)")
    ap.add_argument("--resume", help="JSON lines of finished rows: appended, and skipped again")
    ap.add_argument("--tries", type=int, default=4, help="greedy chunk orders per file")
    ap.add_argument(
        "--exact-seconds",
        type=float,
        default=0.0,
        help="seconds for the allgather CNF per file where a gap stays (0: none)",
    )
    ap.add_argument("--only", default="", help="only files whose path holds this text")
    args = ap.parse_args()
    files = [p for p in _files(Path(args.folder)) if args.only in p.as_posix()]
    if not files:
        sys.exit(f"error: no TE-CCL schedule under {args.folder} (schedules/, output_provided/)")
    done: dict[str, dict[str, Any]] = {}
    if args.resume and Path(args.resume).exists():
        for line in Path(args.resume).read_text(encoding="utf-8").splitlines():
            if line.strip():
                row = json.loads(line)
                done[row["file"]] = row
    rows = []
    for n, path in enumerate(files, 1):
        key = _short(path)
        if key in done:
            rows.append(done[key])
            continue
        row = judge(path, args)
        rows.append(row)
        print(f"[{n}/{len(files)}] {key}: {row.get('verdict', 'unread')} "
              f"({row.get('seconds', 0)} s)", file=sys.stderr, flush=True)  # fmt: skip
        if args.resume:
            with open(args.resume, "a", encoding="utf-8") as fh:
                fh.write(json.dumps(row) + "\n")
    table = _table(rows)
    kinds = ("confirmed", "refuted", "open", "invalid")
    count = {v: sum(1 for r in rows if r.get("verdict") == v) for v in kinds}
    read = sum(1 for r in rows if r.get("read"))
    same = sum(1 for r in rows if r.get("same"))
    valid = sum(1 for r in rows if r.get("valid"))
    summary = (
        f"{len(rows)} files, {read} read, {valid} valid in TE-CCL's model, {same} replayed to "
        f"exactly their own epochs and finish time. TE-CCL's claims: {count['confirmed']} "
        f"confirmed (optimal, certified), {count['refuted']} refuted (a shorter schedule, "
        f"verified, attached), {count['open']} open, {count['invalid']} invalid."
    )
    groups = _groups(rows)
    print(table)
    print(summary)
    if args.output:
        page = (
            "# TE-CCL's published schedules in TE-CCL's own model\n\n"
            f"Made by `benchmarks/teccl_outputs.py FOLDER --tries {args.tries}` on "
            f"{platform.node()} ({platform.machine()}, Python {platform.python_version()}), "
            "FOLDER a snapshot of github.com/microsoft/TE-CCL's `teccl/examples`; seconds (in "
            "the resume file) are wall time on a shared, loaded 2-core machine.\n\n"
            + summary + "\n\n" + groups + "\n\n" + NOTES + "\n" + table + "\n"
        )  # fmt: skip
        Path(args.output).write_text(page, encoding="utf-8")


if __name__ == "__main__":
    main()
