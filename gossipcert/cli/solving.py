"""The ``solve`` command: the exact search, its certificate or partial result."""

from __future__ import annotations

import time
from typing import Annotated, Any, NoReturn

import typer
from rich.markup import escape as esc
from rich.table import Table

from gossipcert import interrupts
from gossipcert.cli.common import (
    ChunksOpt,
    CountingOpt,
    ForceOpt,
    GraphArg,
    JsonOpt,
    ModelOpt,
    ProblemOpt,
    RedopOpt,
    ShowOpt,
    _bad_input,
    _check_output,
    _chunked,
    _no_reduction,
    _write_text,
    app,
)
from gossipcert.cli.solve_options import (
    CertificateOutOpt,
    CubeStoreOpt,
    EncodingOpt,
    HOpt,
    JobsOpt,
    MaxRoundsOpt,
    ObjectiveOpt,
    PortfolioOpt,
    ProofOpt,
    QuietOpt,
    ResumeOpt,
    SchedulerOpt,
    SolveTimeLimitOpt,
    SplitDepthOpt,
    SplitOpt,
    StrictOpt,
    TauOpt,
)
from gossipcert.cli_text import (
    Progress,
    console,
    err_console,
    head,
    print_json,
    print_solve_result,
)
from gossipcert.errors import GossipcertError

BackendOpt = Annotated[
    str,
    typer.Option(
        "--backend",
        "-b",
        help="Solver back-end: sat (CaDiCaL) or cpsat (OR-Tools).",
        metavar="NAME",
    ),
]


@app.command("solve")
@_bad_input
def solve_cmd(
    graph: GraphArg,
    model: ModelOpt = "telephone",
    problem: ProblemOpt = "gossip",
    chunks: ChunksOpt = None,
    redop: RedopOpt = None,
    backend: BackendOpt = "sat",
    time_limit: SolveTimeLimitOpt = None,
    strict: StrictOpt = False,
    counting: CountingOpt = False,
    encoding: EncodingOpt = "auto",
    proof: ProofOpt = True,
    output: CertificateOutOpt = None,
    force: ForceOpt = False,
    resume: ResumeOpt = None,
    show: ShowOpt = False,
    quiet: QuietOpt = False,
    objective: ObjectiveOpt = "rounds",
    max_rounds: MaxRoundsOpt = None,
    tau: TauOpt = None,
    h: HOpt = None,
    split: SplitOpt = False,
    depth: SplitDepthOpt = None,
    jobs: JobsOpt = None,
    scheduler: SchedulerOpt = None,
    cube_store: CubeStoreOpt = None,
    portfolio: PortfolioOpt = 0.0,
    as_json: JsonOpt = False,
) -> None:
    """Find the minimum number of rounds and prove that one round fewer is impossible.

    Prints the optimum with its lower-bound evidence (a closed-form bound, or a checked DRAT
    proof), or, when the time limit runs out, the best bounds known. Progress goes to stderr
    (a heartbeat every few seconds during a long solver query; --quiet silences it).

    Exit status: 0 the optimum is certified; 1 it is not (the time limit ran out; or the
    lower bound is only the solver's word, with --no-proof or a proof cut short by the time
    limit; or no solver encoding covers the model and the closed-form bounds do not meet); 2
    bad input; 130 interrupted by Ctrl-C (the best bounds found so far are printed first).

    Example: gossipcert solve petersen --model telephone --problem gossip -o petersen.json
    """
    from gossipcert.certificates.partial import resume_seed
    from gossipcert.instance import parse_instance
    from gossipcert.watchdog import solve_within

    _refuse_unused_options(
        objective == "rounds",
        "--objective steps or cost",
        {"--max-rounds": max_rounds, "--tau": tau, "--h": h},
    )
    _refuse_unused_options(
        objective != "rounds",
        "--objective rounds",
        {
            "--split": split or None,
            "--portfolio": portfolio or None,
            "--resume": resume,
            "--counting": counting or None,
        },
    )
    _refuse_unused_options(
        not split,
        "--split",
        {"--scheduler": scheduler, "--cube-store": cube_store, "--split-depth": depth},
    )
    _refuse_unused_options(not split and not portfolio, "--split or --portfolio", {"--jobs": jobs})
    _check_output(output, force)
    instance = parse_instance(graph, model, _chunked(problem, chunks, redop))
    if objective != "rounds":
        _no_reduction(instance, f"--objective {objective}")
        _solve_cost(
            instance, objective, max_rounds, tau, h, backend, time_limit, strict, as_json, output
        )
    seeds = resume_seed(resume, instance) if resume else []
    settings, race = _split_and_race(
        strict, split, 1 if depth is None else depth, 1 if jobs is None else jobs, scheduler,
        cube_store, portfolio,
    )  # fmt: skip
    progress = Progress(not quiet)
    try:
        from gossipcert.watchdog import solve_within

        res = solve_within(  # the search in a child process killed at the time limit
            instance,
            backend=backend,
            time_limit=time_limit,
            strict=strict,
            counting=counting,
            proof=proof,
            progress=progress,
            seeds=seeds,
            split=settings,
            encoding=encoding,
            portfolio=race,
            in_child=True,  # SIGINT or SIGTERM answers at once from the last reported state
        )
    except KeyboardInterrupt:
        _interrupted(progress, as_json)
    _solve_outcome(res, output, as_json, show)


def _split_and_race(
    strict: bool,
    split: bool,
    depth: int,
    jobs: int,
    scheduler: str | None,
    cube_store: str | None,
    portfolio: float,
) -> tuple[Any, Any]:
    """The settings of ``--split`` and ``--portfolio`` (None: not asked for)."""
    settings = None
    if split:
        from gossipcert.search.split import SplitSettings

        if depth not in (1, 2) or jobs < 1:
            raise GossipcertError("--split-depth must be 1 or 2, and --jobs at least 1")
        settings = SplitSettings(strict, depth, jobs, scheduler, cube_store)
    race = None
    if portfolio > 0:
        from gossipcert.finders.portfolio import PortfolioSettings

        race = PortfolioSettings(portfolio, jobs=max(1, jobs))
    return settings, race


def _interrupted(progress: Progress, as_json: bool) -> NoReturn:
    """Ctrl-C (or SIGTERM) before the search answered: the bounds reported so far; exit 130."""
    low = "?" if progress.lower is None else progress.lower
    high = "?" if progress.upper is None else progress.upper
    err_console.print(f"interrupted; bounds so far: between {low} and {high} rounds")
    if as_json:
        print_json(
            {
                "error": "interrupted",
                "exit": interrupts.exit_code(130),
                "lower_bound": progress.lower,
                "upper_bound": progress.upper,
            }
        )
    raise typer.Exit(130) from None


def _solve_outcome(res: Any, output: str | None, as_json: bool, show: bool) -> NoReturn:
    """Write the certificate (or the partial result) to ``output``, print the result (the
    record of :func:`gossipcert.result.solve_record` with ``--json``) and exit: 0 certified,
    1 not, 130 interrupted."""
    from gossipcert.certificates.certificate import build_certificate
    from gossipcert.certificates.partial import partial_text
    from gossipcert.result import solve_record, without_proofs
    from gossipcert.statuses import SolveStatus
    from gossipcert.store import certificate_text

    proved = res.proved_status is SolveStatus.OPTIMAL  # not on the solver's word alone
    written: str | None = None
    if output and res.certifiable:
        _write_text(output, certificate_text(build_certificate(res)))
        written = "certificate"
    elif output:
        _write_text(output, partial_text(res))
        written = "partial"
    if as_json:
        print_json(  # the record the API's Result.to_json() returns
            solve_record(
                res,
                certificate=output if written == "certificate" else None,
                partial_result=output if written == "partial" else None,
            )
        )
    else:
        print_solve_result(res, without_proofs(res.evidence), show)
        if written == "certificate":
            label = "" if proved else " (its lower bound is the solver's word)"
            console.print(
                f"  certificate{label}: {esc(output or '')} (re-check with: gossipcert check "
                f"{esc(output or '')})"
            )
        elif written == "partial":
            console.print(
                f"  partial result (best verified schedule and both bounds, optimum not "
                f"proved): {esc(output or '')}; continue with --resume {esc(output or '')}"
            )
    if res.interrupted:
        raise typer.Exit(130)
    raise typer.Exit(0 if proved else 1)


def _refuse_unused_options(unused: bool, owner: str, values: dict[str, Any]) -> None:
    """Refuse options given where they would be ignored (``unused``): they belong to
    ``owner``."""
    given = [name for name, value in values.items() if value is not None]
    if unused and given:
        raise GossipcertError(
            f"{' and '.join(given)} only {'applies' if len(given) == 1 else 'apply'} with "
            f"{owner}; leave {'it' if len(given) == 1 else 'them'} out or add {owner}"
        )


def _solve_cost(
    instance: Any,
    objective: str,
    max_rounds: int | None,
    tau: float | None,
    h: int | None,
    backend: str,
    time_limit: float | None,
    strict: bool,
    as_json: bool,
    output: str | None = None,
) -> None:
    """``solve --objective steps|cost``: the Pareto front of ``(R, S)`` and the least cost;
    with ``output``, a steps certificate of every point a DRAT proof settles in time."""
    from gossipcert.search.cost import pareto_front

    if objective not in ("steps", "cost"):
        raise GossipcertError(f"unknown objective {objective!r}; choose rounds, steps or cost")
    if max_rounds is None:
        raise GossipcertError(f"--objective {objective} needs --max-rounds")
    spec = instance.model.spec()
    if tau is not None and instance.model.tau is not None and tau != instance.model.tau:
        raise GossipcertError(
            f"--tau {tau:g} disagrees with tau={instance.model.tau:g} in the model {spec}; "
            "give one of them"
        )
    if h is not None and instance.model.h != 1 and h != instance.model.h:
        raise GossipcertError(
            f"--h {h} disagrees with h={instance.model.h} in the model {spec}; give one of them"
        )
    tau = instance.model.tau if tau is None else tau
    h = instance.model.h if h is None else h
    if objective == "cost" and tau is None:
        raise GossipcertError("--objective cost needs --tau (or tau=X in the model spec)")
    if (tau is not None and tau < 0) or h < 1:
        raise GossipcertError("--tau must be non-negative and --h at least 1")
    start = time.monotonic()
    res = pareto_front(instance, max_rounds, time_limit, strict, backend)
    data = res.to_json(tau, h)
    missed = _steps_certificate(instance, res, strict, output, time_limit, start)
    if as_json:
        print_json({**instance.describe(), "objective": objective, **data})
    else:
        console.print(
            f"{head(instance)}: round optimum {res.round_result.optimum} "
            f"({res.round_result.proved_status}); least steps S for each R "
            f"({'all proved' if res.proved else 'not all proved'}):",
            highlight=False,
        )
        table = Table("R", "S", "proved", "Pareto")
        for p in data["points"]:
            table.add_row(
                str(p["rounds"]),
                "-" if p["steps"] is None else str(p["steps"]),
                "yes" if p["proved"] else "no",
                "*" if p["pareto"] else "",
            )
        console.print(table)
        if res.constant_from is not None and res.constant_from < max_rounds:
            last = res.points[-1]
            console.print(
                f"S = {last.steps} for every R from {last.rounds} to {max_rounds}: proved at "
                f"R = {last.rounds}, and {last.steps} steps never need more than {last.steps} "
                "rounds (a round without sends can be dropped)",
                highlight=False,
            )
        if tau is not None:
            console.print(
                f"least T = R + {tau:g}*{h}*S over R <= {max_rounds}: {data['min_cost']} "
                f"(R = {data['min_cost_rounds']})",
                highlight=False,
            )
    raise typer.Exit(0 if res.proved and not missed else 1)


def _steps_certificate(
    instance: Any,
    res: Any,
    strict: bool,
    output: str | None,
    time_limit: float | None,
    start: float,
) -> list[int]:
    """Write the steps certificate of ``res``'s points (DRAT proofs); the rounds missed."""
    if output is None:
        return []
    from gossipcert.certificates.certificate import build_steps_certificate
    from gossipcert.encodings import EncodingOptions
    from gossipcert.proofs.steps import certify_points
    from gossipcert.store import certificate_text

    deadline = None if time_limit is None else start + time_limit
    options = EncodingOptions.for_search(strict=strict)
    certified, missed = certify_points(instance, res.points, options, deadline)
    if certified:
        _write_text(output, certificate_text(build_steps_certificate(instance, certified)))
        err_console.print(f"steps certificate written to {output}", highlight=False)
    if missed:
        err_console.print(
            f"no DRAT proof in time for R = {', '.join(map(str, missed))}", highlight=False
        )
    return missed
