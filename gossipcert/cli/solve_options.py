"""The options of ``gossipcert solve`` (:mod:`gossipcert.cli.solving`), one type each."""

from __future__ import annotations

from typing import Annotated

import typer

from gossipcert.cli.common import _seconds_or_zero, _time_limit_option

SolveTimeLimitOpt = Annotated[
    float | None, _time_limit_option("Seconds for search and proof (default: no limit).")
]

StrictOpt = Annotated[
    bool,
    typer.Option(
        "--strict",
        help="No symmetry breaking or dominance: the DRAT proof then covers the whole claim.",
    ),
]

EncodingOpt = Annotated[
    str,
    typer.Option(
        "--encoding",
        help="auto (default: broadcast for single-packet problems, tree for all-port on "
        "trees), broadcast, knowledge (the generic one) or tree.",
        metavar="NAME",
    ),
]

ProofOpt = Annotated[
    bool,
    typer.Option("--proof/--no-proof", help="Re-prove R*-1 infeasible with a checked DRAT proof."),
]

CertificateOutOpt = Annotated[
    str | None,
    typer.Option(
        "--output",
        "-o",
        help="Write the certificate (JSON) here; if the optimum is not certified, the "
        "partial result (best verified schedule and both bounds) instead.",
        metavar="FILE",
    ),
]

ResumeOpt = Annotated[
    str | None,
    typer.Option(
        "--resume",
        help="Start from the schedule of a partial-results file or certificate written by "
        "an earlier solve -o (verified again before use).",
        metavar="FILE",
    ),
]

QuietOpt = Annotated[bool, typer.Option("--quiet", "-q", help="No progress lines on stderr.")]

ObjectiveOpt = Annotated[
    str,
    typer.Option(
        "--objective",
        help="rounds (default); steps: least S for each R up to --max-rounds (the Pareto "
        "front of linear cost); cost: least T = R + tau*h*S.",
    ),
]

MaxRoundsOpt = Annotated[
    int | None,
    typer.Option(
        "--max-rounds",
        help="Largest R of the front (steps, cost); solving stops sooner, at "
        "the first R with a proved S <= R, after which S no longer changes.",
    ),
]

TauOpt = Annotated[
    float | None, typer.Option("--tau", help="Linear cost: time per packet and hop.")
]

HOpt = Annotated[int | None, typer.Option("--h", help="Linear cost: hops per link.")]

SplitOpt = Annotated[
    bool,
    typer.Option(
        "--split",
        help="Prove R*-1 impossible by cubes on the first round's calls, one per orbit "
        "under the automorphisms (with --strict: cubes covering every call, and a proof "
        "that they do), each with its DRAT proof.",
    ),
]

SplitDepthOpt = Annotated[
    int | None,
    typer.Option("--split-depth", help="--split: calls fixed per cube (1 or 2; default 1)."),
]

JobsOpt = Annotated[
    int | None,
    typer.Option(
        "--jobs", "-j", help="--split, --portfolio: local worker processes (default 1).", min=1
    ),
]

SchedulerOpt = Annotated[
    str | None,
    typer.Option(
        "--scheduler",
        help="--split: run the cubes on this Dask scheduler (workers started with "
        "DASK_DISTRIBUTED__WORKER__DAEMON=False, see docs/tables.md).",
    ),
]

CubeStoreOpt = Annotated[
    str | None,
    typer.Option(
        "--cube-store",
        help="--split: folder of refuted cubes, read first and written as cubes finish.",
        metavar="DIR",
    ),
]

PortfolioOpt = Annotated[
    float,
    typer.Option(
        "--portfolio",
        help="Seconds for the schedule portfolio (constructions, heuristics, earlier "
        "schedules, CP-SAT seeds, SAT with phase hints racing in --jobs processes) "
        "before the search; 0: off.",
        metavar="SECONDS",
        callback=_seconds_or_zero,
    ),
]
