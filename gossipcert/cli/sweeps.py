"""Commands for result tables and pictures: ``table``, ``summary`` and ``draw``."""

from __future__ import annotations

from typing import Annotated

import typer
from rich.markup import escape as esc

from gossipcert.cli.common import (
    MODEL_HELP,
    PROBLEM_HELP,
    ForceOpt,
    JsonOpt,
    _bad_input,
    _check_output,
    _time_limit_option,
    app,
)
from gossipcert.cli.exporting import _json_file
from gossipcert.cli.stored import stored_or_given_instance
from gossipcert.cli_text import (
    console,
    print_json,
)
from gossipcert.errors import GossipcertError


@app.command("table")
@_bad_input
def table_cmd(
    sweep_file: Annotated[
        str, typer.Argument(help="Sweep file (TOML; see the README).", metavar="SWEEP.toml")
    ],
    scheduler: Annotated[
        str | None,
        typer.Option(
            "--scheduler",
            help="Run on the Dask scheduler at this address (workers started with "
            "DASK_DISTRIBUTED__WORKER__DAEMON=False, see docs/tables.md).",
        ),
    ] = None,
    jobs: Annotated[int, typer.Option("--jobs", "-j", min=1, help="Local worker processes.")] = 1,
    time_limit: Annotated[
        float | None, _time_limit_option("Seconds per instance (overrides the file).")
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
    """Run a sweep over graphs × models × problems and write <output>/<name>.csv and .md
    (the TOML file's name and output; output defaults to the TOML file's folder).

    Every answer is kept in the sweep's certificate store as soon as it is known, so an
    interrupted sweep resumes where it stopped and a finished one is rebuilt without
    solving. Exit 0 when every instance has a row, 1 when --from-store finds some missing.
    """
    from gossipcert import tables

    sweep = tables.read_sweep(sweep_file)
    if time_limit is not None:
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
    certified = tables.certified_count(df)
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
        list[str],
        typer.Argument(
            help="Sweep files (TOML) whose tables are in their stores.", metavar="SWEEP.toml"
        ),
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
        str,
        typer.Argument(
            help="Schedule file (.json or .csv), or a certificate (JSON).", metavar="SCHEDULE"
        ),
    ],
    output: Annotated[str, typer.Option("--output", "-o", help="Picture to write (.png, .svg).")],
    graph: Annotated[
        str | None,
        typer.Option(
            "--graph",
            "-g",
            help="Graph spec or file (not for a certificate; default: the graph a schedule "
            "file carries).",
        ),
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
    """Draw a schedule round by round (or its knowledge growth) as PNG or SVG; or, given
    the output of verify --from FORMAT FILE --topology MACHINE --json, the algorithm's time
    against message size beside the certified lower bound and the round model's best
    schedule (log-log).

    The schedule is replayed by the verifier first; one that breaks a rule or leaves a
    demand unmet is not drawn (exit 2). A certificate carries its graph, model, problem and
    schedule, so it needs no --graph, --model or --problem.
    """
    from gossipcert import plot
    from gossipcert.certificates.certificate import instance_from_certificate
    from gossipcert.schedule import from_json, read_schedule, refuse_steps_certificate

    _check_output(output, force)
    if not output.lower().endswith(plot.FORMATS):
        raise GossipcertError(f"draw writes .png or .svg: {output}")
    data = _json_file(schedule)
    from gossipcert.plot_time import draw_time, is_time_report

    if is_time_report(data):  # verify --from ... --json: time against size
        if graph or model or problem or knowledge or rounds:
            raise GossipcertError(
                "a time report (verify --from ... --json) is drawn as time against size; "
                "drop --graph, --model, --problem, --knowledge and --rounds"
            )
        plot.save(draw_time(data), output)
        console.print(f"wrote {esc(output)}", highlight=False)
        return
    refuse_steps_certificate(schedule, data)
    if isinstance(data, dict) and data.get("format") == "gossipcert-certificate/1":
        if graph or model or problem:
            raise GossipcertError(
                "a certificate carries its own graph, model and problem; drop --graph, "
                "--model and --problem"
            )
        instance = instance_from_certificate(data)
        sched = from_json(data.get("schedule"), instance)
    else:
        # a schedule file that carries its instance is drawn under it (--graph, --model and
        # --problem replace or, when they disagree with the stored ones, are refused)
        instance = stored_or_given_instance(graph, schedule, data, model, problem, None)
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
