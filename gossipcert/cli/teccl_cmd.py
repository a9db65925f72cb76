"""The ``teccl`` command: a TE-CCL schedule replayed in TE-CCL's own epoch model, its lower
bound, gossipcert's own schedule, and the verdict on TE-CCL's optimality claim
(:mod:`gossipcert.formats.teccl_verdict`)."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Annotated

import typer
from rich.markup import escape as esc

from gossipcert.cli.common import ForceOpt, JsonOpt, _bad_input, _check_output, _write_text, app
from gossipcert.cli_text import console, err_console, print_json

if TYPE_CHECKING:  # pragma: no cover - annotations only
    from gossipcert.formats.teccl_verdict import TecclJudgement


TecclScheduleOpt = Annotated[
    str,
    typer.Argument(
        help="A schedule TE-CCL wrote (its JSON output; .json.gz read too).",
        metavar="FILE",
    ),
]
TecclMachineOpt = Annotated[
    str | None,
    typer.Option(
        "--machine",
        help="TE-CCL's machine: ndv2:K, dgx2:2, amd:K, mesh:S or dgx1 (default: the one "
        "whose GPUs and links the file uses).",
        metavar="MACHINE",
    ),
]
TecclChunkOpt = Annotated[
    float | None,
    typer.Option(
        "--chunk",
        help="Chunk size in GB (default: from the file's algorithmic bandwidth and finish "
        "time, as TE-CCL computes them).",
        metavar="GB",
    ),
]
TecclImproveOpt = Annotated[
    bool,
    typer.Option(
        "--improve/--no-improve",
        help="Where the lower bound is below TE-CCL's epochs, look for a shorter schedule "
        "(seconds to minutes on 32 GPUs).",
    ),
]
TecclTriesOpt = Annotated[
    int, typer.Option("--tries", min=1, max=64, help="Chunk orders the greedy tries.")
]
TecclExactSecondsOpt = Annotated[
    float,
    typer.Option(
        "--exact-seconds",
        min=0.0,
        help="Seconds for the exact allgather model (a SAT formula; its refutations are "
        "proof-checked) where a gap stays; 0: not used.",
    ),
]
TecclSwitchCopyOpt = Annotated[
    bool,
    typer.Option(
        "--switch-copy/--no-switch-copy",
        help="TE-CCL's switch_copy: a switch sends what it receives on several links.",
    ),
]
TecclSwitchToGpuLinkOpt = Annotated[
    bool,
    typer.Option(
        "--switch-to-gpu-link/--instant-switch-to-gpu",
        help="TE-CCL's switch_to_gpu_link_on: a switch-to-GPU link takes its alpha and "
        "transmission epochs (default: instantaneous, TE-CCL's default).",
    ),
]
TecclOutputOpt = Annotated[
    str | None,
    typer.Option(
        "--output",
        "-o",
        help="Write gossipcert's shorter schedule here, in TE-CCL's own format.",
        metavar="FILE",
    ),
]
TecclClaimOpt = Annotated[
    str | None,
    typer.Option(
        "--claim",
        help="What TE-CCL's run optimised: epochs (its binary search over horizons), "
        "early-stop (one horizon, a MIP gap) or alltoall-lp (its AlltoAll program); only "
        "epochs makes fewer epochs a refutation. Default: alltoall-lp for an alltoall, "
        "early-stop under a folder named *Early_Stop*, else epochs.",
    ),
]


@app.command("teccl")
@_bad_input
def teccl_cmd(
    schedule: TecclScheduleOpt,
    machine: TecclMachineOpt = None,
    chunk: TecclChunkOpt = None,
    improve: TecclImproveOpt = True,
    tries: TecclTriesOpt = 4,
    exact_seconds: TecclExactSecondsOpt = 0.0,
    switch_copy: TecclSwitchCopyOpt = True,
    switch_to_gpu_link: TecclSwitchToGpuLinkOpt = False,
    output: TecclOutputOpt = None,
    claim: TecclClaimOpt = None,
    force: ForceOpt = False,
    as_json: JsonOpt = False,
) -> None:
    """Replay a TE-CCL schedule in TE-CCL's own model and judge its optimality claim.

    The model is TE-CCL's as its code defines it: epochs of one chunk on the fastest or
    slowest link, alpha and transmission in whole epochs, switches that copy and keep nothing,
    GPUs 1..15 on two NDv2 chassis (node 0 is a switch there). The replay gives the epochs
    required and the finish time as TE-CCL computes them, beside the file's own; the lower
    bound (distances, cuts) and gossipcert's own schedule give the verdict: TE-CCL's epochs
    optimal (certified), not optimal (a shorter schedule, verified, where TE-CCL's run
    minimised the epochs; "fewer epochs" where it did not: its early stop and its AlltoAll
    program claim no least epoch count), or a bracket.

    Exit status: 0 when the schedule is valid and replays to the file's own numbers, 1
    otherwise, 2 on bad input.

    Example: gossipcert teccl ndv2_schedule.json -o shorter.json
    """
    from gossipcert.formats.teccl_verdict import judge_teccl

    _check_output(output, force)
    if improve and not as_json:
        err_console.print("replaying, bounding, and looking for a shorter schedule ...")

    def tell(line: str) -> None:
        if not as_json:
            err_console.print(f"  {esc(line)}")

    got = judge_teccl(
        schedule, machine, chunk, improve, tries, exact_seconds, tell,
        switch_copy=switch_copy, switch_to_gpu_link_on=switch_to_gpu_link, claim=claim,
    )  # fmt: skip
    if output and got.better is not None:
        _write_text(output, json.dumps(got.better) + "\n")
    if as_json:
        data = got.to_json()
        data["written"] = output if output and got.better is not None else None
        print_json(data)
    else:
        _print(got, output)
    raise typer.Exit(0 if got.valid and got.same else 1)


def _print(got: TecclJudgement, output: str | None) -> None:
    s = got.schedule
    m = s.model
    size = "from the file" if s.chunk_inferred else "given"
    console.print(
        f"TE-CCL {s.collective} schedule on {m.machine.spec} ({m.machine.source}), chunk "
        f"{m.chunk:g} GB ({size}), epoch {m.epoch:g} s ({s.epoch_rule or 'given in the input'})"
    )
    mark = "[green]valid[/]" if got.valid else f"[red]invalid[/] ({len(got.findings)} errors)"
    same = "the same" if got.same else "[red]NOT the same[/]"
    console.print(
        f"replayed in TE-CCL's model: {mark}, {got.replayed} epochs, finish "
        f"{got.finish_replayed:g} s; the file says {got.theirs} epochs, {got.finish:g} s: {same}"
    )
    for f in got.findings[:10]:
        console.print(f"  [red]✗[/] {f.rule}: {esc(f.message)}")
    console.print(f"lower bound: {got.bound.value} epochs ({got.bound.kind}: "
                  f"{esc(got.bound.detail)})")  # fmt: skip
    if got.best_how != "TE-CCL":
        written = f", written to {esc(output)}" if output else " (-o FILE writes it)"
        console.print(f"gossipcert's schedule: {got.best} epochs ({got.best_how}, replayed and "
                      f"valid){written}")  # fmt: skip
    console.print(f"verdict: {esc(got.sentence())}")
