"""What every command shares: the application, its options, and the handling of bad input."""

from __future__ import annotations

import functools
import math
import os
import sys
from collections.abc import Callable
from typing import Annotated, Any, NoReturn, ParamSpec, TypeVar

import typer
from rich.markup import escape as esc

from gossipcert import interrupts
from gossipcert._version import __version__
from gossipcert.cli_text import (
    err_console,
    print_json,
)
from gossipcert.errors import GossipcertError, SpecError
from gossipcert.models import MODELS

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

P = ParamSpec("P")
R = TypeVar("R")

MODEL_HELP = (
    "Communication model: "
    + ", ".join(
        f"{kind.value}[:c=N]"
        if rules.arc_capacities
        else f"{kind.value}:k=N[,p=N]"
        if rules.k_ports
        else f"{kind.value}[:p=N]"
        for kind, rules in MODELS.items()
    )
    + ", sequential[:p=N] (telephone, one call a round); p=1 by default in "
    + ", ".join(k.value for k, r in MODELS.items() if r.default_packet_cap == 1)
    + ", the others carry any number of packets unless p is given; options calls=N, tau=X, h=N."
)
PROBLEM_HELP = (
    "Problem: gossip (allgather), broadcast:S, scatter:S, gather:R, total-exchange "
    "(alltoall), reduce:R, reduce-scatter, allreduce, or a JSON file "
    '{"packets": [...], "holdings": {node: [...]}, "demands": {node: [...]}}.'
)
ChunksOpt = Annotated[
    int | None,
    typer.Option("--chunks", help="Split each node's data into K packets (K >= 1).", metavar="K"),
]
RedopOpt = Annotated[
    str | None,
    typer.Option(
        "--redop",
        help="Reductions: sum (default; a contribution never counted twice) or max (idempotent).",
        metavar="OP",
    ),
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


def _chunked(problem: str, chunks: int | None, redop: str | None = None) -> str:
    """The problem spec with ``--chunks K`` and ``--redop OP`` applied (bad K or OP:
    SpecError, exit 2)."""
    from gossipcert.instance import parse_problem, with_chunks, with_redop

    if chunks is None and redop is None:
        return problem
    return with_redop(with_chunks(parse_problem(problem), chunks), redop).spec()


def _no_reduction(instance: Any, what: str) -> None:
    """Refuse a reduction where only the copy problems are covered (SpecError, exit 2)."""
    if instance.problem.reduction:
        raise SpecError(
            f"{what} covers the copy problems only, not {instance.problem.spec()}; reductions "
            "are solved (solve) and verified (verify)"
        )


GraphArg = Annotated[str, typer.Argument(help="Graph spec or file.", metavar="GRAPH")]


def _positive_seconds(value: float | None) -> float | None:
    """Reject a time limit that is not a positive finite number of seconds, or is above
    :data:`MAX_SECONDS`."""
    from gossipcert.command_start import MAX_SECONDS

    if value is not None and not (math.isfinite(value) and value > 0):
        raise typer.BadParameter(f"must be a positive number of seconds, got {value:g}")
    if value is not None and value > MAX_SECONDS:
        raise typer.BadParameter(
            f"must be at most {MAX_SECONDS:,} seconds, got {value:,.10g}; leave the option out "
            "for no limit"
        )
    return value


def _seconds_or_zero(value: float) -> float:
    """Reject a number of seconds that is negative, NaN, infinite or above
    :data:`MAX_SECONDS` (0 stays: off)."""
    from gossipcert.command_start import MAX_SECONDS

    if not (math.isfinite(value) and 0 <= value <= MAX_SECONDS):
        raise typer.BadParameter(
            f"must be a number of seconds in 0..{MAX_SECONDS:,} (0: off), got {value:g}"
        )
    return value


def _time_limit_option(help_text: str) -> Any:
    return typer.Option(
        "--time-limit", "-t", help=help_text, callback=_positive_seconds, metavar="SECONDS"
    )


def _error_exit(message: str, as_json: bool, code: int = 2) -> NoReturn:
    """One line on stderr (and a JSON object on stdout with ``--json``); exit ``code``."""
    err_console.print(f"[bold red]error:[/] {esc(message)}")
    if as_json:
        print_json({"error": message, "exit": code})
    raise typer.Exit(code)


CountingOpt = Annotated[
    bool, typer.Option("--counting", help="Add the implied counting constraints to the encoding.")
]


def _bad_input(func: Callable[P, R]) -> Callable[P, R]:
    """Turn every GossipcertError into one line on stderr and exit status 2, and a signal
    the command does not answer itself into "interrupted" and 130 (143 after SIGTERM)."""

    @functools.wraps(func)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        as_json = bool(kwargs.get("as_json"))
        interrupts.begin_work()  # from here a signal is answered below, or by the command
        try:
            return func(*args, **kwargs)
        except GossipcertError as exc:
            _error_exit(str(exc), as_json)
        except KeyboardInterrupt:
            err_console.print("interrupted")
            if as_json:
                print_json({"error": "interrupted", "exit": interrupts.exit_code(130)})
            raise typer.Exit(130) from None

    return wrapper


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

    if output is None:
        return
    if not output.strip():
        raise GossipcertError("an output file name is empty; give a file name after -o")
    path = Path(output)
    if path.exists() and not path.is_file():
        raise GossipcertError(f"cannot write {output}: it exists and is not a regular file")
    if path.exists() and not force:
        raise GossipcertError(f"{output} exists; choose another name or pass --force")
    if not path.parent.is_dir():
        raise GossipcertError(f"cannot write {output}: folder {path.parent} does not exist")


def _write_text(output: str, text: str) -> None:
    """Write ``text`` to ``output`` atomically (:func:`gossipcert.store.atomic_write`)."""
    from pathlib import Path

    from gossipcert.store import atomic_write

    atomic_write(Path(os.path.abspath(output)), text)
