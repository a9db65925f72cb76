"""The ``export`` and ``decode`` commands: the formula for outside solvers, and their
models read back as verified schedules (also other tools' algorithm formats)."""

from __future__ import annotations

import json
import os
import sys
from typing import Annotated, Any

import typer
from rich.markup import escape as esc

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
    _no_reduction,
    _write_text,
    app,
)
from gossipcert.cli.formats_cmds import export_algorithm
from gossipcert.cli_text import (
    err_console,
)
from gossipcert.errors import GossipcertError


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
            help="dimacs or opb (the formula), or msccl-xml, mscclpp-plan or sccl-json (a "
            "schedule as an MSCCL algorithm, an MSCCL++ execution plan or an SCCL algorithm: "
            "GRAPH is then a certificate or partial result of solve -o, or the graph of "
            "--schedule FILE).",
        ),
    ] = "dimacs",
    schedule: Annotated[
        str | None,
        typer.Option(
            "--schedule",
            help="msccl-xml, mscclpp-plan, sccl-json: the schedule file to write, for GRAPH, "
            "--model and "
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
    from gossipcert.formats.writers import WRITERS as ALGORITHM_FORMATS
    from gossipcert.instance import parse_instance
    from gossipcert.solvers.export import FORMATS, export

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
        raise GossipcertError("--schedule goes with --format msccl-xml, mscclpp-plan or sccl-json")
    if rounds is None:
        raise GossipcertError("--rounds R is needed for --format dimacs or opb")
    if fmt not in FORMATS:
        raise GossipcertError(
            f"unknown format {fmt!r}; choose one of {', '.join([*FORMATS, *ALGORITHM_FORMATS])}"
        )
    _check_output(output, force)
    instance = parse_instance(graph, model, _chunked(problem, chunks))
    _no_reduction(instance, "export")
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
    from gossipcert.instance import parse_instance
    from gossipcert.simulate import simulate
    from gossipcert.solvers.export import decode_model, parse_solver_output

    _check_output(output, force)
    instance = parse_instance(graph, model, _chunked(problem, chunks))
    _no_reduction(instance, "decode")
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
