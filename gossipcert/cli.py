"""The ``gossipcert`` command.

Every command takes ``--json`` for machine-readable output. Exit status: 0 success, 1 a
negative verdict (an invalid or incomplete schedule, a failed check, an optimum not certified),
2 bad input (one line on standard error, never a traceback; with ``--json`` also
``{"error": ..., "exit": 2}`` on standard output), 130 interrupted by Ctrl-C.

No text the user gave is read as console markup or emoji codes: both consoles print it as is.
"""

from __future__ import annotations

import functools
import json
import math
import os
import sys
from collections.abc import Callable
from typing import Annotated, Any, TypeVar

import typer
from rich.markup import escape as esc
from rich.table import Table

from gossipcert import __version__, graphs
from gossipcert.cli_text import (
    Progress,
    console,
    err_console,
    head,
    print_json,
    print_solve_result,
    print_verdict,
    show_schedule,
)
from gossipcert.errors import GossipcertError, SpecError
from gossipcert.instance import parse_instance
from gossipcert.schedule import read_schedule
from gossipcert.simulate import simulate

app = typer.Typer(
    name="gossipcert",
    help=(
        "Certified minimum numbers of rounds for gossip, broadcast, scatter, gather and total "
        "exchange under the telephone, half-duplex, single-port, multicast and all-port models.\n\n"
        "GRAPH is a spec such as ring:8, hypercube:4, mesh:3x4, ccc:3, butterfly:3, "
        "shuffle-exchange:4, debruijn:4, knodel:8, star-graph:4, pancake:4, fattree:8[:exp], "
        "random:N,M,seed=S, a product ring:3*path:2, or a file (.edgelist, .graphml, .g6, .json)."
    ),
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)

F = TypeVar("F", bound=Callable[..., Any])

MODEL_HELP = (
    "Communication model: telephone, telephone:p=2, sequential:p=2, half-duplex[:p=N], "
    "single-port[:p=N] (p=1 default), multicast[:p=N], all-port[:c=N]; options calls=N, "
    "tau=X, h=N."
)
PROBLEM_HELP = (
    "Problem: gossip (allgather), broadcast:S, scatter:S, gather:R, total-exchange "
    "(alltoall), or a JSON file "
    '{"packets": [...], "holdings": {node: [...]}, "demands": {node: [...]}}.'
)
ChunksOpt = Annotated[
    int | None,
    typer.Option("--chunks", help="Split each node's data into K packets (K >= 1).", metavar="K"),
]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print machine-readable JSON.")]
ModelOpt = Annotated[str, typer.Option("--model", "-m", help=MODEL_HELP, metavar="MODEL")]
ProblemOpt = Annotated[str, typer.Option("--problem", "-p", help=PROBLEM_HELP, metavar="PROBLEM")]
ForceOpt = Annotated[bool, typer.Option("--force", help="Overwrite --output if it exists.")]
ScheduleOutOpt = Annotated[
    str | None,
    typer.Option("--output", "-o", help="Write the schedule (JSON or .csv).", metavar="FILE"),
]
ShowOpt = Annotated[bool, typer.Option("--show", help="Print the schedule, one row per round.")]


def _chunked(problem: str, chunks: int | None) -> str:
    """The problem spec with ``--chunks K`` applied (bad K: SpecError, exit 2)."""
    from gossipcert.instance import parse_problem, with_chunks

    return problem if chunks is None else with_chunks(parse_problem(problem), chunks).spec()


GraphArg = Annotated[str, typer.Argument(help="Graph spec or file.", metavar="GRAPH")]


def _positive_seconds(value: float | None) -> float | None:
    """Reject a time limit that is not a positive finite number of seconds."""
    if value is not None and not (math.isfinite(value) and value > 0):
        raise typer.BadParameter(f"must be a positive number of seconds, got {value:g}")
    return value


def _time_limit_option(help_text: str) -> Any:
    return typer.Option(
        "--time-limit", "-t", help=help_text, callback=_positive_seconds, metavar="SECONDS"
    )


def _error_exit(message: str, as_json: bool, code: int = 2) -> None:
    """One line on stderr (and a JSON object on stdout with ``--json``); exit ``code``."""
    err_console.print(f"[bold red]error:[/] {esc(message)}")
    if as_json:
        print_json({"error": message, "exit": code})
    raise typer.Exit(code)


CountingOpt = Annotated[
    bool, typer.Option("--counting", help="Add the implied counting constraints to the encoding.")
]


def _bad_input(func: F) -> F:
    """Turn every GossipcertError into one line on stderr and exit status 2."""

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        as_json = bool(kwargs.get("as_json"))
        try:
            return func(*args, **kwargs)
        except GossipcertError as exc:
            _error_exit(str(exc), as_json)
        except KeyboardInterrupt:
            err_console.print("interrupted")
            if as_json:
                print_json({"error": "interrupted", "exit": 130})
            raise typer.Exit(130) from None

    return wrapper  # type: ignore[return-value]


def _show_version(value: bool) -> None:
    if value:
        sys.stdout.write(f"gossipcert {__version__}\n")
        raise typer.Exit(0)


@app.callback()
def _root(
    version: Annotated[
        bool,
        typer.Option(
            "--version", callback=_show_version, is_eager=True, help="Print the version and exit."
        ),
    ] = False,
) -> None:
    del version


def _check_output(output: str | None, force: bool = False) -> None:
    """Refuse to overwrite a user's file, and fail early on a path that cannot be written."""
    from pathlib import Path

    if not output:
        return
    path = Path(output)
    if path.exists() and not force:
        raise GossipcertError(f"{output} exists; choose another name or pass --force")
    if not path.parent.is_dir():
        raise GossipcertError(f"cannot write {output}: folder {path.parent} does not exist")


def _write_text(output: str, text: str) -> None:
    """Write ``text`` to ``output`` atomically (:func:`gossipcert.store.atomic_write`)."""
    from pathlib import Path

    from gossipcert.store import atomic_write

    atomic_write(Path(os.path.abspath(output)), text)


@app.command("graph")
@_bad_input
def graph_cmd(
    graph: GraphArg,
    as_json: JsonOpt = False,
) -> None:
    """Describe a graph: nodes, edges, degrees, diameter, radius, processors, routers and
    edge capacities.

    Above 5,000 nodes the diameter and radius come from a bounded number of breadth-first
    searches (eccentricity bounds); when these do not settle them, bounds are printed.
    """
    g = graphs.from_spec(graph)
    info = graphs.describe(g)
    if as_json:
        print_json(info)
        return
    table = Table(title=esc(str(info.get("spec", graph))), show_header=False)
    for key, value in info.items():
        if key == "capacities":
            text = ", ".join(f"{cap}: {count} edges" for cap, count in value.items())
            table.add_row(key, esc(text or "-"))
        elif key.endswith("_bounds") or key == "distance_note":
            continue
        elif value is None and f"{key}_bounds" in info:
            low, high = info[f"{key}_bounds"]
            table.add_row(key, f"between {low} and {high} (not settled)")
        elif key != "spec":
            table.add_row(key, esc(f"{value:.3f}" if isinstance(value, float) else str(value)))
    console.print(table)
    if "distance_note" in info:
        console.print(esc(info["distance_note"]))


@app.command("verify")
@_bad_input
def verify_cmd(
    graph: GraphArg,
    schedule: Annotated[
        str,
        typer.Argument(
            help="Schedule file (.json or .csv), or a certificate or partial-results file "
            "written by solve -o (its schedule is checked).",
            metavar="SCHEDULE",
        ),
    ],
    model: ModelOpt = "telephone",
    problem: ProblemOpt = "gossip",
    chunks: ChunksOpt = None,
    show: ShowOpt = False,
    as_json: JsonOpt = False,
) -> None:
    """Replay a schedule and report every rule it breaks and when all demands are met.

    Exit 0 when the schedule is valid and complete, 1 when it is invalid or incomplete, 2 on
    bad input (including a schedule that names an edge the graph does not have).
    """
    instance = parse_instance(graph, model, _chunked(problem, chunks))
    sched = read_schedule(schedule, instance)
    rep = simulate(instance, sched)
    non_edges = [e for e in rep.errors if e.rule == "not-a-neighbour"]
    if as_json:
        print_json({**instance.describe(), **rep.to_json(instance)})
    else:
        if show:
            show_schedule(sched, instance)
        print_verdict(rep, instance)
    if non_edges:
        err_console.print(
            f"[bold red]error:[/] the schedule uses {len(non_edges)} arc(s) the graph does not "
            f"have; first: {esc(non_edges[0].message)}",
            highlight=False,
            soft_wrap=True,
        )
        raise typer.Exit(2)
    raise typer.Exit(0 if rep.ok else 1)


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
    backend: BackendOpt = "sat",
    time_limit: Annotated[
        float | None, _time_limit_option("Seconds for search and proof (default: no limit).")
    ] = None,
    strict: Annotated[
        bool,
        typer.Option(
            "--strict",
            help="No symmetry breaking or dominance: the DRAT proof then covers the whole claim.",
        ),
    ] = False,
    counting: CountingOpt = False,
    encoding: Annotated[
        str,
        typer.Option(
            "--encoding",
            help="auto (default: broadcast for single-packet problems), broadcast or knowledge.",
            metavar="NAME",
        ),
    ] = "auto",
    proof: Annotated[
        bool,
        typer.Option(
            "--proof/--no-proof", help="Re-prove R*-1 infeasible with a checked DRAT proof."
        ),
    ] = True,
    output: Annotated[
        str | None,
        typer.Option(
            "--output",
            "-o",
            help="Write the certificate (JSON) here; if the optimum is not certified, the "
            "partial result (best verified schedule and both bounds) instead.",
            metavar="FILE",
        ),
    ] = None,
    force: ForceOpt = False,
    resume: Annotated[
        str | None,
        typer.Option(
            "--resume",
            help="Start from the schedule of a partial-results file or certificate written by "
            "an earlier solve -o (verified again before use).",
            metavar="FILE",
        ),
    ] = None,
    show: ShowOpt = False,
    quiet: Annotated[
        bool, typer.Option("--quiet", "-q", help="No progress lines on stderr.")
    ] = False,
    objective: Annotated[
        str,
        typer.Option(
            "--objective",
            help="rounds (default); steps: least S for each R up to --max-rounds (the Pareto "
            "front of linear cost); cost: least T = R + tau*h*S.",
        ),
    ] = "rounds",
    max_rounds: Annotated[
        int | None, typer.Option("--max-rounds", help="Largest R of the front (steps, cost).")
    ] = None,
    tau: Annotated[
        float | None, typer.Option("--tau", help="Linear cost: time per packet and hop.")
    ] = None,
    h: Annotated[int | None, typer.Option("--h", help="Linear cost: hops per link.")] = None,
    split: Annotated[
        bool,
        typer.Option(
            "--split",
            help="Prove R*-1 impossible by cubes on the first round's calls, one per orbit "
            "under the automorphisms (with --strict: cubes covering every call, and a proof "
            "that they do), each with its DRAT proof.",
        ),
    ] = False,
    depth: Annotated[
        int, typer.Option("--split-depth", help="--split: calls fixed per cube (1 or 2).")
    ] = 1,
    jobs: Annotated[int, typer.Option("--jobs", "-j", help="--split: local worker processes.")] = 1,
    scheduler: Annotated[
        str | None,
        typer.Option("--scheduler", help="--split: run the cubes on this Dask scheduler."),
    ] = None,
    cube_store: Annotated[
        str | None,
        typer.Option(
            "--cube-store",
            help="--split: folder of refuted cubes, read first and written as cubes finish.",
            metavar="DIR",
        ),
    ] = None,
    as_json: JsonOpt = False,
) -> None:
    """Find the minimum number of rounds and prove that one round fewer is impossible.

    Prints the optimum with its lower-bound evidence (a closed-form bound, or a checked DRAT
    proof), or, when the time limit runs out, the best bounds known. Progress goes to stderr
    (a heartbeat every few seconds during a long solver query; --quiet silences it).

    Exit status: 0 the optimum is certified; 1 it is not (the time limit ran out, or no
    solver encoding covers the model and the closed-form bounds do not meet); 2 bad input;
    130 interrupted by Ctrl-C (the best bounds found so far are printed first).

    Example: gossipcert solve petersen --model telephone --problem gossip -o petersen.json
    """

    from gossipcert.exact.certificate import build_certificate, certificate_text
    from gossipcert.exact.partial import partial_text, read_resume_schedule
    from gossipcert.exact.watchdog import solve_within
    from gossipcert.schedule import to_json

    _check_output(output, force)
    instance = parse_instance(graph, model, _chunked(problem, chunks))
    if objective != "rounds":
        _solve_cost(instance, objective, max_rounds, tau, h, backend, time_limit, strict, as_json)
    seeds = []
    if resume:
        previous = read_resume_schedule(resume, instance)
        if previous is not None:
            check = simulate(instance, previous)
            if not check.ok:
                first = check.errors[0].message if check.errors else "demands not all met"
                raise GossipcertError(
                    f"the schedule in {resume} does not solve this instance ({first}); "
                    "was it written for another graph, model or problem?"
                )
            seeds.append((f"resumed from {resume}", previous))
    settings = None
    if split:
        from gossipcert.exact.split import SplitSettings

        if depth not in (1, 2) or jobs < 1:
            raise GossipcertError("--split-depth must be 1 or 2, and --jobs at least 1")
        settings = SplitSettings(strict, depth, jobs, scheduler, cube_store)
    progress = Progress(not quiet)
    try:
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
        )
    except KeyboardInterrupt:
        low = "?" if progress.lower is None else progress.lower
        high = "?" if progress.upper is None else progress.upper
        err_console.print(f"interrupted; bounds so far: between {low} and {high} rounds")
        if as_json:
            print_json(
                {
                    "error": "interrupted",
                    "exit": 130,
                    "lower_bound": progress.lower,
                    "upper_bound": progress.upper,
                }
            )
        raise typer.Exit(130) from None
    evidence = _without_proofs(res.evidence)
    certified = res.status == "optimal" and not res.interrupted
    written: str | None = None
    if output and certified:
        _write_text(output, certificate_text(build_certificate(res)))
        written = "certificate"
    elif output:
        _write_text(output, partial_text(res))
        written = "partial"
    if as_json:
        print_json(
            {
                **instance.describe(),
                "status": res.status,
                "optimum": res.optimum,
                "lower_bound": res.lower_bound,
                "upper_bound": res.upper_bound,
                "schedule": to_json(res.schedule, instance) if res.schedule else None,
                "schedule_source": res.upper_source,
                "evidence": evidence,
                "backend": res.backend,
                "times": {k: round(v, 3) for k, v in res.times.items()},
                "timed_out": res.timed_out,
                "interrupted": res.interrupted,
                "certificate": output if written == "certificate" else None,
                "partial_result": output if written == "partial" else None,
            }
        )
    else:
        print_solve_result(res, evidence, show)
        if written == "certificate":
            console.print(
                f"  certificate: {esc(output or '')} (re-check with: gossipcert check "
                f"{esc(output or '')})"
            )
        elif written == "partial":
            console.print(
                f"  partial result (best verified schedule and both bounds, optimum not "
                f"proved): {esc(output or '')}; continue with --resume {esc(output or '')}"
            )
    if res.interrupted:
        raise typer.Exit(130)
    raise typer.Exit(0 if res.status == "optimal" else 1)


def _without_proofs(evidence: dict[str, Any]) -> dict[str, Any]:
    """The evidence without its stored proofs (and those of its cubes), for printing."""
    out = {k: v for k, v in evidence.items() if k != "proof_xz_base64"}
    if isinstance(out.get("cubes"), list):
        out["cubes"] = [_without_proofs(c) for c in out["cubes"]]
    if isinstance(out.get("coverage"), dict):
        out["coverage"] = _without_proofs(out["coverage"])
    return out


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
) -> None:
    """``solve --objective steps|cost``: the Pareto front of ``(R, S)`` and the least cost."""
    from gossipcert.exact.cost import pareto_front

    if objective not in ("steps", "cost"):
        raise GossipcertError(f"unknown objective {objective!r}; choose rounds, steps or cost")
    if max_rounds is None:
        raise GossipcertError(f"--objective {objective} needs --max-rounds")
    tau = instance.model.tau if tau is None else tau
    h = instance.model.h if h is None else h
    if objective == "cost" and tau is None:
        raise GossipcertError("--objective cost needs --tau (or tau=X in the model spec)")
    if (tau is not None and tau < 0) or h < 1:
        raise GossipcertError("--tau must be non-negative and --h at least 1")
    res = pareto_front(instance, max_rounds, time_limit, strict, backend)
    data = res.to_json(tau, h)
    if as_json:
        print_json({**instance.describe(), "objective": objective, **data})
    else:
        console.print(
            f"{head(instance)}: round optimum {res.round_result.optimum} "
            f"({res.round_result.status}); least steps S for each R "
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
        if tau is not None:
            console.print(
                f"least T = R + {tau:g}*{h}*S over R <= {max_rounds}: {data['min_cost']} "
                f"(R = {data['min_cost_rounds']})",
                highlight=False,
            )
    raise typer.Exit(0 if res.proved else 1)


@app.command("check")
@_bad_input
def check_cmd(
    certificate: Annotated[
        str | None, typer.Argument(help="Certificate written by solve -o.")
    ] = None,
    all_dir: Annotated[
        str | None,
        typer.Option("--all", help="Check every certificate (*.cert.json) in this folder."),
    ] = None,
    time_limit: Annotated[
        float | None, _time_limit_option("Seconds for re-checking a proof or re-solving a claim.")
    ] = None,
    full: Annotated[
        bool,
        typer.Option(
            "--full",
            help="Let the project's own proof checker run to the end (by default it stops at "
            "max(60 s, dratify's time) on very long proofs, and the proof then rests on "
            "dratify and drat-trim).",
        ),
    ] = False,
    as_json: JsonOpt = False,
) -> None:
    """Re-check a certificate from scratch: rebuild the instance, replay the schedule,
    recompute the bound or regenerate the CNF and re-check the DRAT proof with every
    checker available (dratify with deletions ignored, the project's own checker, and
    drat-trim when it is on the PATH or named by GOSSIPCERT_DRAT_TRIM).

    Exit 0 when every step holds, 1 on any mismatch or rejected proof, 2 when the file cannot
    be read, 3 when the time limit ran out before a verdict (neither holds nor fails).
    """
    from gossipcert.exact.certificate import read_certificate
    from gossipcert.exact.watchdog import check_within

    if (certificate is None) == (all_dir is None):
        raise GossipcertError("give one certificate, or --all FOLDER")
    if all_dir is not None:
        _check_all(all_dir, time_limit, as_json, full)
    assert certificate is not None
    cert = read_certificate(certificate)
    rep = check_within(cert, time_limit, full)
    mark = {True: "[green]✓[/]", False: "[red]✗[/]", None: "[yellow]?[/]"}
    if as_json:
        print_json(
            {
                "ok": rep.ok,
                "status": rep.status,
                "optimum": cert.get("optimum"),
                "steps": [
                    {
                        "ok": ok,
                        "status": {True: "holds", False: "fails", None: "timeout"}[ok],
                        "check": text,
                    }
                    for ok, text in rep.steps
                ],
            }
        )
    else:
        for ok, text in rep.steps:
            console.print(f"{mark[ok]} {esc(text)}", highlight=False)
        verdict = {
            "holds": "[bold green]certificate holds[/]",
            "fails": "[bold red]certificate FAILS[/]",
            "timeout": "[bold yellow]could not re-check in time[/] (no verdict)",
        }[rep.status]
        console.print(f"{verdict}: optimum {esc(str(cert.get('optimum')))}", highlight=False)
    raise typer.Exit({"holds": 0, "fails": 1, "timeout": 3}[rep.status])


def _check_all(folder: str, time_limit: float | None, as_json: bool, full: bool) -> None:
    """``check --all``: every certificate in ``folder``; exit 0 all hold, 1 one fails,
    3 none fails but one could not be decided in time."""
    from pathlib import Path

    from gossipcert.exact.certificate import read_certificate
    from gossipcert.exact.watchdog import check_within

    root = Path(folder)
    if not root.is_dir():
        raise GossipcertError(f"{folder} is not a folder")
    files = sorted(root.glob("*.cert.json"))
    if not files:
        raise GossipcertError(f"no certificates (*.cert.json) in {folder}")
    results = []
    for f in files:
        try:
            rep = check_within(read_certificate(f), time_limit, full)
            status = rep.status
            first = next((t for ok, t in rep.steps if ok is not True), "")
        except GossipcertError as exc:
            status, first = "fails", str(exc)
        results.append({"certificate": str(f), "status": status, "first_problem": first})
        if not as_json:
            mark = {"holds": "[green]✓[/]", "fails": "[red]✗[/]", "timeout": "[yellow]?[/]"}
            extra = f": {esc(first)}" if status != "holds" else ""
            console.print(f"{mark[status]} {esc(f.name)}{extra}", highlight=False)
    counts = {k: sum(r["status"] == k for r in results) for k in ("holds", "fails", "timeout")}
    if as_json:
        print_json({"counts": counts, "certificates": results})
    else:
        console.print(
            f"{len(results)} certificates: {counts['holds']} hold, {counts['fails']} fail, "
            f"{counts['timeout']} undecided in time",
            highlight=False,
        )
    raise typer.Exit(1 if counts["fails"] else 3 if counts["timeout"] else 0)


@app.command("table")
@_bad_input
def table_cmd(
    sweep_file: Annotated[str, typer.Argument(help="Sweep file (TOML; see the README).")],
    scheduler: Annotated[
        str | None,
        typer.Option("--scheduler", help="Run on the Dask scheduler at this address."),
    ] = None,
    jobs: Annotated[int, typer.Option("--jobs", "-j", min=1, help="Local worker processes.")] = 1,
    time_limit: Annotated[
        float | None,
        typer.Option("--time-limit", "-t", help="Seconds per instance (overrides the file)."),
    ] = None,
    from_store: Annotated[
        bool, typer.Option("--from-store", help="Solve nothing: rebuild the tables from the store.")
    ] = False,
    force: Annotated[
        bool, typer.Option("--force", help="Replace tables that gossipcert did not write.")
    ] = False,
    plot_file: Annotated[
        str | None,
        typer.Option("--plot", help="Also draw optimum against bounds per family (.png, .svg)."),
    ] = None,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress bar.")] = False,
    as_json: JsonOpt = False,
) -> None:
    """Run a sweep over graphs × models × problems and write results/<name>.csv and .md.

    Every answer is kept in the sweep's certificate store as soon as it is known, so an
    interrupted sweep resumes where it stopped and a finished one is rebuilt without
    solving. Exit 0 when every instance has a row, 1 when --from-store finds some missing.
    """
    from gossipcert import tables

    sweep = tables.read_sweep(sweep_file)
    if time_limit is not None:
        if time_limit <= 0:
            raise GossipcertError("--time-limit must be positive")
        sweep.time_limit = time_limit
    tables.check_outputs(sweep, force)
    _check_output(plot_file, force)
    if plot_file and not plot_file.lower().endswith((".png", ".svg")):
        raise GossipcertError(f"--plot writes .png or .svg: {plot_file}")
    stats = {"instances": len(sweep.specs), "tasks": 0, "solved": 0}
    if not from_store:
        runner = tables.dask_runner(scheduler) if scheduler else None
        stats = tables.run_sweep(sweep, jobs, runner, progress=not quiet)
    df = tables.table(sweep)
    csv_path, md_path = tables.write_tables(sweep, df, force)
    if plot_file:
        from gossipcert import plot

        plot.save(plot.draw_table(df, f"{sweep.name}: certified optima against bounds"), plot_file)
    missing = int((df["status"] == "not-run").sum())
    certified = int((df["status"] == "optimal").sum())
    if as_json:
        print_json(
            {
                **stats,
                "certified": certified,
                "missing": missing,
                "csv": str(csv_path),
                "markdown": str(md_path),
            }
        )
    else:
        console.print(
            f"{stats['instances']} instances, {stats['tasks']} run now "
            f"({stats['solved']} solved), {certified} certified, {missing} missing; "
            f"wrote {esc(str(csv_path))} and {esc(str(md_path))}",
            highlight=False,
        )
    raise typer.Exit(1 if missing else 0)


@app.command("summary")
@_bad_input
def summary_cmd(
    sweep_files: Annotated[
        list[str], typer.Argument(help="Sweep files (TOML) whose tables are in their stores.")
    ],
    link_prefix: Annotated[
        str, typer.Option("--link-prefix", help="Prefix of the links to the pages.")
    ] = "",
    as_json: JsonOpt = False,
) -> None:
    """Summarise finished sweeps: instances, certified optima, and the verdict on each paper's
    claims (agrees, better, differs, open), as a Markdown table from the stores alone.

    Example (the summary table of the README):
    gossipcert summary results/beier-sibeyn.toml results/dimakopoulos.toml --link-prefix results/
    """
    from gossipcert import tables

    df = tables.summary([tables.read_sweep(f) for f in sweep_files])
    if as_json:
        print_json(df.to_dict(orient="records"))
    else:
        typer.echo(tables.summary_markdown(df, link_prefix), nl=False)


@app.command("draw")
@_bad_input
def draw_cmd(
    schedule: Annotated[
        str, typer.Argument(help="Schedule file (.json or .csv), or a certificate (JSON).")
    ],
    output: Annotated[str, typer.Option("--output", "-o", help="Picture to write (.png, .svg).")],
    graph: Annotated[
        str | None,
        typer.Option("--graph", "-g", help="Graph spec or file (not for a certificate)."),
    ] = None,
    model: Annotated[str | None, typer.Option("--model", "-m", help=MODEL_HELP)] = None,
    problem: Annotated[str | None, typer.Option("--problem", "-p", help=PROBLEM_HELP)] = None,
    knowledge: Annotated[
        bool,
        typer.Option("--knowledge", help="Draw the growth of knowledge instead of the rounds."),
    ] = False,
    rounds: Annotated[
        str | None, typer.Option("--rounds", help="Only these rounds, e.g. 1-6.")
    ] = None,
    columns: Annotated[int | None, typer.Option("--columns", min=1, help="Panels per row.")] = None,
    force: ForceOpt = False,
) -> None:
    """Draw a schedule round by round (or its knowledge growth) as PNG or SVG.

    The schedule is replayed by the verifier first; one that breaks a rule or leaves a
    demand unmet is not drawn (exit 2). A certificate carries its graph, model, problem and
    schedule, so it needs no --graph, --model or --problem.
    """
    from gossipcert import plot
    from gossipcert.exact.certificate import instance_from_certificate
    from gossipcert.schedule import from_json

    _check_output(output, force)
    if not output.lower().endswith(plot.FORMATS):
        raise GossipcertError(f"draw writes .png or .svg: {output}")
    data = _json_file(schedule)
    if isinstance(data, dict) and data.get("format") == "gossipcert-certificate/1":
        if graph or model or problem:
            raise GossipcertError(
                "a certificate carries its own graph, model and problem; drop --graph, "
                "--model and --problem"
            )
        instance = instance_from_certificate(data)
        sched = from_json(data.get("schedule"), instance)
    else:
        if graph is None:
            raise GossipcertError("--graph is needed to draw a schedule file")
        instance = parse_instance(graph, model or "telephone", problem or "gossip")
        sched = read_schedule(schedule, instance)
    if knowledge:
        fig = plot.draw_knowledge(instance, sched)
    else:
        first, last = 1, None
        if rounds:
            a, _, b = rounds.partition("-")
            try:
                first, last = int(a), int(b or a)
            except ValueError:
                raise GossipcertError(
                    f"--rounds takes FIRST-LAST, e.g. 1-6, not {rounds!r}"
                ) from None
        fig = plot.draw_rounds(instance, sched, first, last, columns)
    plot.save(fig, output)
    console.print(f"wrote {esc(output)}", highlight=False)


def _json_file(path: str) -> Any:
    """The decoded JSON of ``path``, or None when it is not a JSON file (a CSV schedule)."""
    if not path.lower().endswith(".json"):
        return None
    try:
        with open(path) as fh:
            return json.load(fh)
    except FileNotFoundError:
        raise GossipcertError(f"{path} does not exist") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise GossipcertError(f"{path} is not valid JSON: {exc}") from None


@app.command("export")
@_bad_input
def export_cmd(
    graph: Annotated[str, typer.Argument(help="Graph spec or file.")],
    rounds: Annotated[int, typer.Option("--rounds", "-r", help="Horizon R.", min=0)],
    model: ModelOpt = "telephone",
    problem: ProblemOpt = "gossip",
    chunks: ChunksOpt = None,
    fmt: Annotated[str, typer.Option("--format", "-f", help="dimacs or opb.")] = "dimacs",
    strict: Annotated[bool, typer.Option("--strict", help="Plain encoding only.")] = False,
    counting: CountingOpt = False,
    output: Annotated[
        str | None, typer.Option("--output", "-o", help="File to write (default: stdout).")
    ] = None,
    force: ForceOpt = False,
) -> None:
    """Write the formula "R rounds suffice" (DIMACS CNF or OPB) for any external solver."""

    from gossipcert.encodings import EncodingOptions
    from gossipcert.exact.export import FORMATS, export

    if fmt not in FORMATS:
        raise GossipcertError(f"unknown format {fmt!r}; choose one of {', '.join(FORMATS)}")
    _check_output(output, force)
    instance = parse_instance(graph, model, _chunked(problem, chunks))
    options = EncodingOptions.for_search(strict=strict, counting=counting)
    text = export(instance, rounds, fmt, options)
    if output:
        _write_text(output, text)
    else:
        sys.stdout.write(text)


@app.command("bounds")
@_bad_input
def bounds_cmd(
    graph: Annotated[str, typer.Argument(help="Graph spec or file.")],
    model: ModelOpt = "telephone",
    problem: ProblemOpt = "gossip",
    chunks: ChunksOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """List every closed-form bound that applies, its value and its source; mark the best."""
    from gossipcert.bounds import all_bounds

    instance = parse_instance(graph, model, _chunked(problem, chunks))
    found = all_bounds(instance)
    lows = [b for b in found if b.kind == "lower"]
    ups = [b for b in found if b.kind == "upper"]
    lower = max(lows, key=lambda b: b.value) if lows else None
    upper = min(ups, key=lambda b: b.value) if ups else None
    if as_json:
        print_json(
            {
                **instance.describe(),
                "lower_bound": lower.value if lower else None,
                "upper_bound": upper.value if upper else None,
                "bounds": [{**b.to_json(), "best": b is lower or b is upper} for b in found],
            }
        )
        return
    table = Table(title=head(instance))
    for col in ("", "kind", "value", "name", "source"):
        table.add_column(col)
    for b in found:
        table.add_row(
            "★" if b is lower or b is upper else "", b.kind, str(b.value), b.name, esc(b.source)
        )
    console.print(table)


def _print_schedule_result(
    name: str,
    instance: Any,
    sched: Any,
    as_json: bool,
    output: str | None,
    show: bool = False,
    extra: dict[str, Any] | None = None,
) -> None:
    """Verify a constructed schedule, print it, and write it to ``output`` only if it passes;
    exit 1 if the verifier rejects it."""
    from gossipcert.schedule import to_csv, to_json

    rep = simulate(instance, sched)
    if output and rep.ok:
        text = (
            to_csv(sched, instance)
            if output.lower().endswith(".csv")
            else (json.dumps(to_json(sched, instance)) + "\n")
        )
        _write_text(output, text)
    if as_json:
        print_json(
            {
                **instance.describe(),
                "algorithm": name,
                **(extra or {}),
                "rounds": rep.rounds,
                "valid": rep.valid,
                "complete": rep.complete,
                "steps": rep.steps,
                "errors": [e.to_json() for e in rep.errors[:20]],
                "schedule": to_json(sched, instance),
            }
        )
    else:
        if show:
            show_schedule(sched, instance)
        print_verdict(rep, instance)
    raise typer.Exit(0 if rep.ok else 1)


@app.command("construct")
@_bad_input
def construct_cmd(
    graph: Annotated[str, typer.Argument(help="Graph spec or file.")],
    algorithm: Annotated[
        str,
        typer.Option(
            "--algorithm",
            "-a",
            help="ring-fd, ring-hd, ring-multicast, hamiltonian, product, simple, "
            "concurrent-updown, fattree-flood, farthest-first, fattree-total-exchange, bermond, "
            "rows-columns, matching-sequence.",
        ),
    ],
    model: Annotated[
        str | None,
        typer.Option(
            "--model",
            "-m",
            help=MODEL_HELP + " Default: the construction's own model where it has one "
            "(ring-fd: single-port:p=1, ring-hd: half-duplex:p=1, ring-multicast, simple, "
            "concurrent-updown: multicast, fattree-*: all-port, bermond: sequential:p=2, "
            "rows-columns, matching-sequence: telephone), else telephone.",
            metavar="MODEL",
        ),
    ] = None,
    problem: ProblemOpt = "gossip",
    sequence: Annotated[
        str | None,
        typer.Option("--sequence", help="Matching indices for matching-sequence, e.g. 02102."),
    ] = None,
    output: ScheduleOutOpt = None,
    force: ForceOpt = False,
    show: ShowOpt = False,
    as_json: JsonOpt = False,
) -> None:
    """Build one of the papers' constructive schedules and verify it.

    Exit 0 when the schedule is valid and complete, 1 when the verifier rejects it, 2 when
    the construction does not apply to the graph, model or problem.
    """
    from gossipcert.constructions.catalog import CONSTRUCTIONS, construct

    if model is None:
        known = CONSTRUCTIONS.get(algorithm)
        model = known.model if known is not None and known.model else "telephone"
    instance = parse_instance(graph, model, problem)
    _check_output(output, force)
    sched = construct(instance, algorithm, sequence)
    _print_schedule_result(algorithm, instance, sched, as_json, output, show)


@app.command("heuristic")
@_bad_input
def heuristic_cmd(
    graph: Annotated[str, typer.Argument(help="Graph spec or file.")],
    model: ModelOpt = "telephone",
    problem: ProblemOpt = "gossip",
    method: Annotated[
        str,
        typer.Option(
            "--method",
            help="matching: a maximum-weight matching per round (telephone, half-duplex). "
            "coloring: a search over sequences of fixed matchings (telephone; the section-8 "
            "matchings of CCC, butterfly, star and pancake graphs, else an edge colouring).",
        ),
    ] = "matching",
    time_limit: Annotated[
        float, _time_limit_option("Seconds for the coloring search or the --sweep.")
    ] = 10.0,
    weights: Annotated[
        str,
        typer.Option(
            "--weights",
            help="Matching: edge weights: auto, flow (BFS approach with node counts), bfs "
            "(its bitset form, for large graphs) or potential.",
        ),
    ] = "auto",
    dist_exp: Annotated[
        float, typer.Option("--dist-exp", help="Matching: Dist_Exp of the BFS weights.")
    ] = 8.0,
    dist_exp_decay: Annotated[
        float,
        typer.Option(
            "--dist-exp-decay", help="Matching: Dist_Exp is multiplied by this each round."
        ),
    ] = 1.0,
    num_exp: Annotated[
        float, typer.Option("--num-exp", help="Matching: Num_Exp of the flow weights.")
    ] = 1.0,
    band: Annotated[
        int, typer.Option("--band", help="Matching: eccentricity band of the bitset weights.")
    ] = 0,
    look_ahead: Annotated[
        int, typer.Option("--look-ahead", help="Matching: rounds of look-ahead (0: none).")
    ] = 0,
    approx: Annotated[
        bool | None,
        typer.Option(
            "--approx/--exact",
            help="Matching: greedy (improved) or exact maximum-weight matching "
            "(default: exact up to 300 nodes).",
        ),
    ] = None,
    seed: Annotated[int, typer.Option("--seed", help="Matching: seed of the look-ahead.")] = 0,
    sweep_params: Annotated[
        bool,
        typer.Option(
            "--sweep",
            help="Matching: try several Dist_Exp/look-ahead settings within --time-limit and "
            "keep the shortest verified schedule.",
        ),
    ] = False,
    quiet: Annotated[bool, typer.Option("--quiet", help="No progress on stderr.")] = False,
    output: ScheduleOutOpt = None,
    force: ForceOpt = False,
    show: ShowOpt = False,
    as_json: JsonOpt = False,
) -> None:
    """Run a heuristic of Beier and Sibeyn and verify its schedule.

    With --method coloring the matching sequence found (e.g. 0123023) is printed;
    `construct --algorithm matching-sequence --sequence ...` reproduces it on the four
    families of section 8.
    """
    from gossipcert.heuristics.coloring import coloring_heuristic

    if method not in ("matching", "coloring"):
        raise SpecError(f"unknown heuristic {method!r}; choose matching or coloring")
    instance = parse_instance(graph, model, problem)
    _check_output(output, force)
    if method == "coloring":
        from gossipcert.bounds import best_lower_bound

        res = coloring_heuristic(
            instance, min_rounds=best_lower_bound(instance).value, time_limit=time_limit
        )
        if not as_json:
            console.print(f"matching sequence: {res.sequence}", highlight=False)
        _print_schedule_result(
            "coloring", instance, res.schedule, as_json, output, show, {"sequence": res.sequence}
        )
        return
    from gossipcert.heuristics.matching import MatchingParams
    from gossipcert.heuristics.run import run_heuristic

    params = MatchingParams(
        weights, dist_exp, dist_exp_decay, band, num_exp, approx, look_ahead, seed=seed
    )
    sched, extra = run_heuristic(instance, params, sweep_params, time_limit, not quiet)
    _print_schedule_result("matching", instance, sched, as_json, output, show, extra)


#: the base class of command-line usage errors (typer ships its own copy of click)
_CLICK_ERROR: type[Exception] = next(
    c for c in typer.BadParameter.__mro__ if c.__name__ == "ClickException"
)


def main(argv: list[str] | None = None) -> None:
    """Entry point of the ``gossipcert`` console script.

    Usage errors (unknown option, bad option value) become one line on stderr and exit 2,
    and with ``--json`` also ``{"error": ..., "exit": 2}`` on stdout.
    """
    args = sys.argv[1:] if argv is None else list(argv)
    if argv is None:  # a real command: time limits count from the process's start
        from gossipcert.clock import mark_command_start

        mark_command_start()
    try:
        code = app(args=args, prog_name="gossipcert", standalone_mode=False)
    except _CLICK_ERROR as exc:
        if type(exc).__name__ == "NoArgsIsHelpError":
            exc.show()  # type: ignore[attr-defined]
            sys.exit(2)
        message = exc.format_message()  # type: ignore[attr-defined]
        command = f"gossipcert {args[0]}" if args and not args[0].startswith("-") else "gossipcert"
        err_console.print(f"[bold red]error:[/] {esc(message)} (see: {command} --help)")
        if "--json" in args:
            print_json({"error": message, "exit": 2})
        sys.exit(getattr(exc, "exit_code", 2))
    except typer.Abort:
        err_console.print("aborted")
        sys.exit(130)
    sys.exit(code if isinstance(code, int) else 0)


if __name__ == "__main__":
    main()
