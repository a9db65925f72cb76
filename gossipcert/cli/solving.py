"""Commands of the exact search and its evidence: ``solve``, ``check``, ``export`` and
``decode``."""

from __future__ import annotations

import json
import os
import sys
import time
from typing import Annotated, Any

import typer
from rich.markup import escape as esc
from rich.table import Table

from gossipcert.cli.common import (
    ChunksOpt,
    CountingOpt,
    ForceOpt,
    GraphArg,
    JsonOpt,
    ModelOpt,
    ProblemOpt,
    ScheduleOutOpt,
    ShowOpt,
    _bad_input,
    _check_output,
    _chunked,
    _seconds_or_zero,
    _time_limit_option,
    _write_text,
    app,
)
from gossipcert.cli.formats_cmds import export_algorithm
from gossipcert.cli_text import (
    Progress,
    console,
    err_console,
    head,
    print_json,
    print_solve_result,
)
from gossipcert.errors import GossipcertError
from gossipcert.formats.writers import WRITERS as ALGORITHM_FORMATS
from gossipcert.instance import parse_instance
from gossipcert.search.heartbeat import heartbeats
from gossipcert.simulate import simulate

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
            help="auto (default: broadcast for single-packet problems, tree for all-port on "
            "trees), broadcast, knowledge (the generic one) or tree.",
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
        int | None,
        typer.Option(
            "--max-rounds",
            help="Largest R of the front (steps, cost); solving stops sooner, at "
            "the first R with a proved S <= R, after which S no longer changes.",
        ),
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
        int | None,
        typer.Option("--split-depth", help="--split: calls fixed per cube (1 or 2; default 1)."),
    ] = None,
    jobs: Annotated[
        int | None,
        typer.Option(
            "--jobs", "-j", help="--split, --portfolio: local worker processes (default 1).", min=1
        ),
    ] = None,
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
    portfolio: Annotated[
        float,
        typer.Option(
            "--portfolio",
            help="Seconds for the schedule portfolio (constructions, heuristics, earlier "
            "schedules, CP-SAT seeds, SAT with phase hints racing in --jobs processes) "
            "before the search; 0: off.",
            metavar="SECONDS",
            callback=_seconds_or_zero,
        ),
    ] = 0.0,
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

    from gossipcert.certificates.certificate import build_certificate
    from gossipcert.certificates.partial import partial_text, read_resume_schedule
    from gossipcert.schedule import to_json
    from gossipcert.search.watchdog import solve_within
    from gossipcert.store import certificate_text

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
    depth = 1 if depth is None else depth
    jobs = 1 if jobs is None else jobs
    _check_output(output, force)
    instance = parse_instance(graph, model, _chunked(problem, chunks))
    if objective != "rounds":
        _solve_cost(
            instance, objective, max_rounds, tau, h, backend, time_limit, strict, as_json, output
        )
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
        from gossipcert.search.split import SplitSettings

        if depth not in (1, 2) or jobs < 1:
            raise GossipcertError("--split-depth must be 1 or 2, and --jobs at least 1")
        settings = SplitSettings(strict, depth, jobs, scheduler, cube_store)
    race = None
    if portfolio > 0:
        from gossipcert.finders.portfolio import PortfolioSettings

        race = PortfolioSettings(portfolio, jobs=max(1, jobs))
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
            portfolio=race,
            in_child=True,  # SIGINT or SIGTERM answers at once from the last reported state
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
    proved = certified and res.certified  # not on the solver's word alone
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
                "certified": proved,
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


#: the mark ``check`` prints before a step or a certificate, per verdict
CHECK_MARK = {
    "holds": "[green]✓[/]",
    "fails": "[red]✗[/]",
    "timeout": "[yellow]?[/]",
    "unproved": "[yellow]~[/]",
}

#: exit status of ``check`` per verdict
CHECK_EXIT = {"holds": 0, "fails": 1, "timeout": 3, "unproved": 4}
#: check prints a heartbeat line after this many seconds without a decided step
CHECK_HEARTBEAT_SECONDS = 8.0


@app.command("check")
@_bad_input
def check_cmd(
    certificate: Annotated[
        str | None,
        typer.Argument(help="Certificate written by solve -o.", metavar="CERTIFICATE"),
    ] = None,
    all_dir: Annotated[
        str | None,
        typer.Option(
            "--all",
            help="Check every certificate in this folder (*.cert.json and *-cert.json, the "
            "names the README uses).",
        ),
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
    quiet: Annotated[
        bool,
        typer.Option("--quiet", "-q", help="No heartbeat lines on stderr during a long step."),
    ] = False,
) -> None:
    """Re-check a certificate from scratch: rebuild the instance, replay the schedule,
    recompute the bound or regenerate the CNF and re-check the DRAT proof with every
    checker available (dratify with deletions ignored, the project's own checker, and
    drat-trim when it is on the PATH or named by GOSSIPCERT_DRAT_TRIM). A steps certificate
    (solve --objective steps -o) is checked point by point the same way.

    Exit 0 when every step holds, 1 on any mismatch or rejected proof, 2 when the file cannot
    be read, 3 when the time limit ran out before a verdict (neither holds nor fails), 4 when
    every step agrees but the lower bound is a solver's word (solve --no-proof, or a proof
    not checked in time): re-solving it is the solver's word again, not a proof.
    """
    from gossipcert.certificates.certificate import STEPS_FORMAT, read_certificate, step_verdict
    from gossipcert.search.watchdog import check_within

    if (certificate is None) == (all_dir is None):
        raise GossipcertError("give one certificate, or --all FOLDER")
    if all_dir is not None:
        _check_all(all_dir, time_limit, as_json, full)
    assert certificate is not None
    cert = read_certificate(certificate)
    shown = 0

    def show(ok: bool | None, text: str, claim: bool) -> None:
        """Print a step as soon as it is decided (a long proof check shows its progress)."""
        nonlocal shown
        console.print(f"{CHECK_MARK[step_verdict(ok, claim)]} {esc(text)}", highlight=False)
        shown += 1

    started = time.monotonic()
    last = [started]

    def beat(event: dict[str, Any]) -> None:
        """A heartbeat line on stderr when no step was decided for CHECK_HEARTBEAT_SECONDS."""
        now = time.monotonic()
        if now - last[0] >= CHECK_HEARTBEAT_SECONDS:
            last[0] = now
            err_console.print(
                f"[dim]{now - started:8.2f}s[/]  still checking step {shown + 1} "
                "(re-solving a claim or checking a proof)",
                highlight=False,
            )

    def arrived(ok: bool | None, text: str, claim: bool) -> None:
        last[0] = time.monotonic()
        if not as_json:
            show(ok, text, claim)

    with heartbeats(None if quiet else beat, "checking", dict):
        rep = check_within(cert, time_limit, full, on_step=arrived)
    if as_json:
        print_json(
            {
                "ok": rep.ok,
                "status": rep.status,
                "optimum": cert.get("optimum"),
                "steps": [
                    {
                        "ok": rep.step_status(i) == "holds",
                        "status": rep.step_status(i),
                        "check": text,
                    }
                    for i, (_, text) in enumerate(rep.steps)
                ],
            }
        )
    else:
        for i, (_, text) in enumerate(rep.steps[shown:], start=shown):
            console.print(f"{CHECK_MARK[rep.step_status(i)]} {esc(text)}", highlight=False)
        verdict = {
            "holds": "[bold green]certificate holds[/]",
            "fails": "[bold red]certificate FAILS[/]",
            "timeout": "[bold yellow]could not re-check in time[/] (no verdict)",
            "unproved": "[bold yellow]certificate NOT proved[/] (its lower bound is the "
            "solver's word, re-solved; no proof is stored)",
        }[rep.status]
        # a steps certificate's claim was compared with its points; a round certificate is
        # named by its optimum (a stray claim there is a failed step, not a headline)
        steps = cert.get("format") == STEPS_FORMAT
        claim = cert.get("claim") if steps else f"optimum {cert.get('optimum')}"
        console.print(f"{verdict}: {esc(str(claim))}", highlight=False)
    raise typer.Exit(CHECK_EXIT[rep.status])


def _check_all(folder: str, time_limit: float | None, as_json: bool, full: bool) -> None:
    """``check --all``: every certificate in ``folder``; exit 0 all hold, 1 one fails,
    3 none fails but one could not be decided in time, 4 the others hold but one rests on
    a solver's word."""
    from pathlib import Path

    from gossipcert.certificates.certificate import read_certificate
    from gossipcert.search.watchdog import check_within

    root = Path(folder)
    if not root.is_dir():
        raise GossipcertError(f"{folder} is not a folder")
    files = sorted(set(root.glob("*.cert.json")) | set(root.glob("*-cert.json")))
    if not files:
        raise GossipcertError(f"no certificates (*.cert.json, *-cert.json) in {folder}")
    results = []
    for f in files:
        try:
            rep = check_within(read_certificate(f), time_limit, full)
            status = rep.status
            first = next(
                (t for i, (_, t) in enumerate(rep.steps) if rep.step_status(i) == status), ""
            )
            if status == "holds":
                first = ""
            if status == "unproved":
                first = "its lower bound is a solver's word (no proof stored): " + first
        except GossipcertError as exc:
            status, first = "fails", str(exc)
        results.append({"certificate": str(f), "status": status, "first_problem": first})
        if not as_json:
            extra = f": {esc(first)}" if status != "holds" else ""
            console.print(f"{CHECK_MARK[status]} {esc(f.name)}{extra}", highlight=False)
    counts = {k: sum(r["status"] == k for r in results) for k in CHECK_EXIT}
    if as_json:
        print_json({"counts": counts, "certificates": results})
    else:
        console.print(
            f"{len(results)} certificates: {counts['holds']} hold, {counts['fails']} fail, "
            f"{counts['timeout']} undecided in time, {counts['unproved']} on a solver's word",
            highlight=False,
        )
    worst = next((k for k in ("fails", "timeout", "unproved") if counts[k]), "holds")
    raise typer.Exit(CHECK_EXIT[worst])


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
    graph: GraphArg,
    rounds: Annotated[
        int | None, typer.Option("--rounds", "-r", help="Horizon R (dimacs, opb).", min=0)
    ] = None,
    model: ModelOpt = "telephone",
    problem: ProblemOpt = "gossip",
    chunks: ChunksOpt = None,
    fmt: Annotated[
        str,
        typer.Option(
            "--format",
            "-f",
            help="dimacs or opb (the formula), or msccl-xml or sccl-json (a schedule as an "
            "MSCCL or SCCL algorithm: GRAPH is then a certificate or partial result of "
            "solve -o, or the graph of --schedule FILE).",
        ),
    ] = "dimacs",
    schedule: Annotated[
        str | None,
        typer.Option(
            "--schedule",
            help="msccl-xml, sccl-json: the schedule file to write, for GRAPH, --model and "
            "--problem (default: GRAPH is a certificate holding both).",
            metavar="FILE",
        ),
    ] = None,
    strict: Annotated[bool, typer.Option("--strict", help="Plain encoding only.")] = False,
    counting: CountingOpt = False,
    output: Annotated[
        str | None, typer.Option("--output", "-o", help="File to write (default: stdout).")
    ] = None,
    force: ForceOpt = False,
) -> None:
    """Write the formula "R rounds suffice" (DIMACS CNF or OPB) for any external solver, or
    a verified schedule as an MSCCL XML or SCCL JSON algorithm:

    \b
        gossipcert export dgx1-cert.json --format msccl-xml -o dgx1-allgather.xml
        gossipcert export dgx1 --format msccl-xml --schedule s.json -m all-port -p gossip
    """

    from gossipcert.encodings import EncodingOptions
    from gossipcert.search.export import FORMATS, export

    if fmt in ALGORITHM_FORMATS:
        if rounds is not None or strict or counting:
            raise GossipcertError(
                f"--rounds, --strict and --counting are for dimacs and opb, not {fmt}"
            )
        spec = None if schedule is None else _chunked(problem, chunks)
        if schedule is None and chunks is not None:
            raise GossipcertError("--chunks goes with --schedule; a certificate has its own")
        extra = {} if schedule is None else {"graph": graph, "model": model, "problem": spec}
        export_algorithm(schedule or graph, fmt, output, force, extra)
        return
    if schedule is not None:
        raise GossipcertError("--schedule goes with --format msccl-xml or sccl-json")
    if rounds is None:
        raise GossipcertError("--rounds R is needed for --format dimacs or opb")
    if fmt not in FORMATS:
        raise GossipcertError(
            f"unknown format {fmt!r}; choose one of {', '.join([*FORMATS, *ALGORITHM_FORMATS])}"
        )
    _check_output(output, force)
    instance = parse_instance(graph, model, _chunked(problem, chunks))
    options = EncodingOptions.for_search(strict=strict, counting=counting)
    text = export(instance, rounds, fmt, options)
    if output:
        _write_text(output, text)
        shape = next((ln for ln in text.splitlines() if ln.startswith(("p cnf", "* #"))), "")
        err_console.print(f"wrote {esc(output)} ({esc(shape)})", highlight=False)
    else:
        sys.stdout.write(text)


@app.command("decode")
@_bad_input
def decode_cmd(
    graph: GraphArg,
    solution: Annotated[
        str,
        typer.Argument(
            help="The outside solver's output: 's SATISFIABLE' and 'v ...' lines (SAT "
            "competition), MiniSat's result file, or 'v x1 -x2 ...' (pseudo-Boolean).",
            metavar="SOLVER_OUTPUT",
        ),
    ],
    rounds: Annotated[int, typer.Option("--rounds", "-r", help="Horizon R of the export.", min=0)],
    model: ModelOpt = "telephone",
    problem: ProblemOpt = "gossip",
    chunks: ChunksOpt = None,
    strict: Annotated[bool, typer.Option("--strict", help="The export used --strict.")] = False,
    counting: Annotated[
        bool, typer.Option("--counting", help="The export used --counting.")
    ] = False,
    formula: Annotated[
        str | None,
        typer.Option(
            "--formula",
            help="The exported file (DIMACS or OPB): check first that it is the formula "
            "export writes for these arguments (every constraint, in order; comments and "
            "spacing aside), so that a model of another formula is named as such.",
        ),
    ] = None,
    output: ScheduleOutOpt = None,
    force: ForceOpt = False,
    show: ShowOpt = False,
    as_json: JsonOpt = False,
) -> None:
    """Turn an outside solver's model of an exported formula into a verified schedule.

    Give the same graph, --rounds, --model, --problem, --chunks, --strict and --counting as
    to export: the formula is rebuilt and the model's call variables read. The schedule is
    then replayed by the verifier, and written to --output only if it is valid and meets
    every demand:

    \b
        gossipcert export debruijn:5 -r 7 -o db5-7.cnf
        kissat db5-7.cnf > db5-7.out          # any SAT solver
        gossipcert decode debruijn:5 db5-7.out -r 7 -o db5-7.json

    With --formula db5-7.cnf the file is compared with the formula these arguments give
    (every constraint, in order; comments and spacing aside), and a mismatch is refused
    before any decoding.

    Exit 0 when the schedule is valid and complete, 1 when the verifier rejects it (a model
    of another formula), 2 on bad input, including an output with no model (an outside
    solver's "unsatisfiable" is not evidence here; solve proves lower bounds).
    """
    from gossipcert.cli.inspect_cmds import _print_schedule_result
    from gossipcert.encodings import EncodingOptions
    from gossipcert.search.export import decode_model, parse_solver_output

    _check_output(output, force)
    instance = parse_instance(graph, model, _chunked(problem, chunks))
    values = parse_solver_output(_read_text(solution))
    options = EncodingOptions.for_search(strict=strict, counting=counting)
    text = None if formula is None else _read_text(formula)
    sched = decode_model(instance, rounds, options, values, formula_text=text)
    rep = simulate(instance, sched)
    if not as_json and not rep.ok:
        err_console.print(
            "the decoded schedule fails the verifier: was the formula exported with other "
            "options, another horizon or another instance? Nothing is written."
            + ("" if formula else " (--formula FILE checks the exported file itself.)"),
            highlight=False,
        )
    _print_schedule_result("decode", instance, sched, as_json, output, show, report=rep)


#: the largest solver output or formula file ``decode`` reads (a formula at the export's
#: size limit is well under it)
MAX_READ_BYTES = 1 << 31


def _read_text(path: str) -> str:
    """The text of a file the user named (a byte-order mark dropped), or a clear error."""
    try:
        if os.path.getsize(path) > MAX_READ_BYTES:
            raise GossipcertError(
                f"{path} has more than {MAX_READ_BYTES:,} bytes; decode reads files up to that"
            )
        with open(path, encoding="utf-8-sig") as fh:
            return fh.read()
    except (OSError, UnicodeDecodeError) as exc:
        raise GossipcertError(f"cannot read {path}: {exc}") from None
    except MemoryError:
        raise GossipcertError(f"{path} does not fit in memory") from None
