"""TE-CCL's published schedules and gossipcert's shorter ones, replayed a second time by an
independent reading of TE-CCL's code (``tests/teccl_reference.py``, which shares no code with
``gossipcert.formats``), and the comparison questioned.

Usage::

    .venv/bin/python benchmarks/teccl_reference_check.py TECCL_EXAMPLES SCHEDULES
        [--page results/teccl-2026-11-29.md] [--gossipcert]

``TECCL_EXAMPLES`` is a snapshot of github.com/microsoft/TE-CCL's ``teccl/examples`` (its
``schedules/`` and ``experiments/output_provided/``); ``SCHEDULES`` the folder of gossipcert's
shorter schedules (``results/schedules/teccl``); ``--page`` the results page whose table names
each attached schedule's epochs. With ``--gossipcert`` each published file is also replayed by
``gossipcert.api.judge_teccl`` (no search) and the two replays' epochs and validity compared.

Printed: a table of the published files (the machine TE-CCL built, the epoch rule that gives
the file's epoch, validity, epochs and finish time against the file's own, AlltoAll hops the
flow list writes once for several pieces); a table of the attached schedules (valid on the
same machine, chunk and epoch as the file it refutes, every demand met, epochs as the page
says and below TE-CCL's, and what TE-CCL's solver optimised for that file); the counts.
"""

from __future__ import annotations

import argparse
import re
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.teccl_reference import Replay, collective_of, load, replay
from tests.teccl_reference_machines import Machine, experiment_machine, machine

# The three files of teccl/examples/schedules: the inputs that made them (sample_inputs/
# ndv2_input.json names ndv2_schedule.json; mesh.json names mesh_6.json, side 6, chunk 100 GB,
# alpha 0; mesh_4.json has the 1 s epoch of the same chunk on a side-4 mesh).
EXAMPLES = {
    "ndv2_schedule.json": ("NDv2", 2, 0.0625, 4),
    "mesh_4.json": ("Mesh", 1, 100.0, 4),
    "mesh_6.json": ("Mesh", 1, 100.0, 6),
}

# What TE-CCL's solver did for each kind of file (json_gen.py and sample_inputs/*.json;
# teccl/scheduler.py): the claim a shorter schedule can refute.
ITERATIVE = (
    "epochs searched: binary search on the horizon, each probe stops at its first feasible "
    "solution (solution_limit 1), a probe without one (2 h limit) counts as infeasible"
)
EARLY_STOP = (
    "epochs not minimised: one MILP on a fixed horizon, objective the sum over demands of "
    "epochs satisfied, stopped at a 30% MIP gap"
)
ALLTOALL = (
    "epochs not minimised: one LP (chunks split) on a fixed horizon, objective early "
    "delivery (demand met weighted 1/(epoch+1)), not the last epoch"
)


def solver_setting(rel: str, data: dict) -> str:
    """What TE-CCL optimised for the file at ``rel`` (its path under examples)."""
    if collective_of(data) == "alltoall":
        return ALLTOALL
    if "Fast_Early_Stop" in rel:
        return EARLY_STOP
    return ITERATIVE


def epoch_rule(m: Machine, data: dict) -> str:
    """Which of TE-CCL's epoch rules gives the file's epoch exactly (floats equal)."""
    epoch, expected = data.get("1-Epoch_Duration"), data.get("2-Expected_Epoch_Duration")
    names = []
    for kind in ("fast", "slow"):
        base = m.fast_epoch() if kind == "fast" else m.slow_epoch()
        names += [f"{kind} x{k}" for k in (1, 2, 4) if base * k == expected]
    rule = " = ".join(names[:2]) or f"{expected} (no rule)"
    if epoch != expected:
        raised = any(m.epoch(k.split()[0], int(k.split()[1][1:])) == epoch for k in names)
        rule += ", raised to alpha/200" if raised else f", then {epoch} (no rule)"
    return rule


def machine_of(rel: str) -> tuple[Machine, str]:
    """The machine TE-CCL built for the file at ``rel``, and how it is known."""
    name = Path(rel).name
    if rel.startswith("schedules/") and name in EXAMPLES:
        top, chassis, chunk, side = EXAMPLES[name]
        return machine(top, chassis, chunk, side=side), "its sample input"
    m, _kind = experiment_machine(list(Path(rel).parts))
    return m, "json_gen.py"


def published(examples: Path) -> list[Path]:
    files = sorted((examples / "schedules").glob("*.json"))
    files += sorted((examples / "experiments" / "output_provided").glob("**/*.json"))
    return files


def rel_of(path: Path, examples: Path) -> str:
    rel = path.relative_to(examples).as_posix()
    return rel.removeprefix("experiments/output_provided/")


def page_rows(page: Path) -> dict[str, tuple[int, str, int]]:
    """The page's attached schedules: file -> (TE-CCL epochs, schedule path, its epochs)."""
    out = {}
    for line in page.read_text().splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        link = re.search(r"\[schedule\]\((schedules/teccl/[^)]+)\)", line)
        if len(cells) < 12 or not link:
            continue
        best = re.match(r"(\d+) \(", cells[11])
        if best:
            out[cells[0]] = (int(cells[4]), link.group(1), int(best.group(1)))
    return out


def chunk_of(data: dict, m: Machine) -> float | None:
    """The chunk a file's own numbers imply (TE-CCL's bandwidth formula read backwards)."""
    try:
        return (
            data["5-Algo_Bandwidth"]
            * data["4-Collective_Finish_Time"]
            / (m.node_per_chassis * m.chassis)
        )
    except (KeyError, TypeError):
        return None


def _yes(flag: bool) -> str:
    return "yes" if flag else "NO"


def _why(r: Replay) -> str:
    return "; ".join((r.errors + r.mismatches + r.chunk_errors)[:2])


def check_published(examples: Path, with_gossipcert: bool) -> tuple[list[str], dict, int]:
    rows, replays, bad = [], {}, 0
    head = "| file | machine | epoch (rule) | TE-CCL epochs | replayed | finish same | demand times same | valid | per chunk | hops written once |"  # noqa: E501
    if with_gossipcert:
        head += " gossipcert's replay | agree |"
    rows += [head, head_rule(head)]
    for path in published(examples):
        rel = rel_of(path, examples)
        try:
            data = load(path)
            m, _how = machine_of(rel)
            r = replay(data, m)
        except (OSError, ValueError, KeyError) as exc:
            raise ValueError(f"{rel}: {exc}") from exc
        replays[rel] = (data, m, r)
        demand_same = not any(x.startswith(("6-Demand_Met", "8-Chunk")) for x in r.mismatches)
        finish_same = r.valid and not any(x.startswith(("3-", "4-")) for x in r.mismatches)
        bad += not r.exact
        chunk_note = "-" if r.collective == "allgather" else _yes(not r.chunk_errors)
        lost = "-" if r.collective == "allgather" else str(r.lost)
        row = (
            f"| {rel} | {m.name.lower()}:{m.chassis if m.name != 'Mesh' else int(m.n**0.5)} | "
            f"{data.get('1-Epoch_Duration')} s ({epoch_rule(m, data)}) | "
            f"{data.get('3-Epochs_Required')} | {r.epochs} | {_yes(finish_same)} | "
            f"{_yes(demand_same) if r.collective == 'allgather' else '-'} | "
            f"{_yes(r.valid)}{'' if r.valid else ' (' + _why(r) + ')'} | {chunk_note} | {lost} |"
        )
        if with_gossipcert:
            theirs, agree = gossipcert_replay(path, r)
            row += f" {theirs} | {_yes(agree)} |"
            bad += not agree
        rows.append(row)
    return rows, replays, bad


def head_rule(head: str) -> str:
    return "|" + "---|" * (head.count("|") - 1)


def gossipcert_replay(path: Path, r: Replay) -> tuple[str, bool]:
    """gossipcert's own replay (no search): epochs and validity, and whether they agree."""
    from gossipcert.api import judge_teccl

    j = judge_teccl(str(path), improve=False)
    valid = not j.findings
    text = f"{j.replayed} epochs, {'valid' if valid else 'invalid'}"
    return text, (j.replayed == r.epochs and valid == r.valid)


def check_attached(
    schedules: Path, page: Path, replays: dict, with_gossipcert: bool
) -> tuple[list[str], int, int]:
    rows = []
    head = "| schedule | refutes | TE-CCL epochs | page says | replayed | valid | every demand met | same epoch | same chunk | below TE-CCL | what TE-CCL optimised there |"  # noqa: E501
    if with_gossipcert:
        head += " gossipcert's replay | agree |"
    rows += [head, head_rule(head)]
    bad = attached = 0
    for rel, (teccl_epochs, link, said) in sorted(page_rows(page).items()):
        attached += 1
        path = schedules / Path(link).name
        data_t, m, r_t = replays[rel]
        data = load(path)
        r = replay(data, m, epoch=data_t["1-Epoch_Duration"])
        same_epoch = data.get("1-Epoch_Duration") == data_t["1-Epoch_Duration"]
        c_t, c_g = chunk_of(data_t, m), chunk_of(data, m)
        same_chunk = c_t is not None and c_g is not None and abs(c_t - c_g) <= 1e-9 * c_t
        demand_met = r.epochs is not None and not any("never" in e for e in r.errors)
        below = r.epochs is not None and r.epochs < teccl_epochs == r_t.epochs
        ok = r.exact and same_epoch and same_chunk and below and r.epochs == said
        if r.collective == "alltoall":
            ok = ok and not r.chunk_errors
        row = (
            f"| {Path(link).name} | {rel} | {teccl_epochs} | {said} | {r.epochs} | "
            f"{_yes(r.exact)}{'' if r.exact else ' (' + _why(r) + ')'} | {_yes(demand_met)} | "
            f"{_yes(same_epoch)} | {_yes(same_chunk)} | {_yes(below)} | "
            f"{solver_setting(rel, data_t).split(':')[0]} |"
        )
        if with_gossipcert:
            theirs, agree = gossipcert_replay(path, r)
            row += f" {theirs} | {_yes(agree)} |"
            ok = ok and agree
        bad += not ok
        rows.append(row)
    return rows, attached, bad


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("examples", type=Path, help="TE-CCL's teccl/examples folder")
    ap.add_argument("schedules", type=Path, help="gossipcert's results/schedules/teccl folder")
    ap.add_argument(
        "--page",
        type=Path,
        default=Path(__file__).resolve().parent.parent / "results" / "teccl-2026-11-29.md",
    )
    ap.add_argument("--gossipcert", action="store_true", help="also run gossipcert's replay")
    args = ap.parse_args(argv)
    if not (args.examples / "experiments" / "output_provided").is_dir():
        print(f"error: {args.examples} has no experiments/output_provided", file=sys.stderr)
        return 2
    if not args.schedules.is_dir() or not args.page.is_file():
        print(f"error: no folder {args.schedules} or no page {args.page}", file=sys.stderr)
        return 2
    start = time.perf_counter()
    try:
        rows, replays, bad_published = check_published(args.examples, args.gossipcert)
        print("\n".join(rows))
        print()
        rows, attached, bad_attached = check_attached(
            args.schedules, args.page, replays, args.gossipcert
        )
    except (OSError, ValueError, KeyError) as exc:  # FormatError and JSONDecodeError too
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print("\n".join(rows))
    print()
    exact = sum(r.exact for _d, _m, r in replays.values())
    chunk_ok = sum(
        not r.chunk_errors for _d, _m, r in replays.values() if r.collective == "alltoall"
    )
    a2a = sum(r.collective == "alltoall" for _d, _m, r in replays.values())
    lost = sum(r.lost for _d, _m, r in replays.values())
    flow_list_only = sum(
        not replay({k: v for k, v in d.items() if not k.lower().endswith("chunk paths")}, m).valid
        for d, m, r in replays.values()
        if r.collective == "alltoall"
    )
    print(
        f"{len(replays)} published files: {sum(r.valid for *_x, r in replays.values())} valid, "
        f"{exact} replayed exactly (epochs, finish, bandwidth, demand times); alltoall: "
        f"{chunk_ok} of {a2a} valid chunk by chunk, {lost} hops written once for several pieces"
        f" ({flow_list_only} of the {a2a} invalid when read from the flow list alone)"
    )
    print(
        f"{attached} attached schedules: {attached - bad_attached} valid on the same machine, "
        f"chunk and epoch, every demand met, epochs as the page says and below TE-CCL's"
    )
    print(f"({time.perf_counter() - start:.1f} s)")
    return 1 if bad_published or bad_attached else 0


if __name__ == "__main__":
    sys.exit(main())
