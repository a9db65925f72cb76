"""The ``gossipcert`` command.

Every command takes ``--json`` for machine-readable output. Exit status: 0 success, 1 a
negative verdict (an invalid or incomplete schedule, a failed check, an optimum not certified),
2 bad input (one line on standard error, never a traceback; with ``--json`` also
``{"error": ..., "exit": 2}`` on standard output), 130 interrupted by Ctrl-C.

No text the user gave is read as console markup or emoji codes: both consoles print it as is.

The commands live in :mod:`.inspect_cmds` (``graph``, ``verify``, ``bounds``, ``construct``,
``heuristic``), :mod:`.solving` (``solve``, ``check``, ``export``) and :mod:`.sweeps`
(``table``, ``summary``, ``draw``), :mod:`.teccl_cmd` (``teccl``); :mod:`.common` holds the
application and what the commands share.
"""

from __future__ import annotations

import sys

import typer
from rich.markup import escape as esc

# the modules add their commands, in this order in --help
# isort: off
from gossipcert.cli import inspect_cmds, solving, checking, exporting, sweeps, teccl_cmd  # noqa: F401

# isort: on
from gossipcert.cli import signals
from gossipcert.cli.common import app
from gossipcert.cli_text import err_console, print_json

__all__ = ["app", "main"]

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
        from gossipcert.command_start import mark_command_start

        mark_command_start()
        signals.install()
    try:
        code = app(args=args, prog_name="gossipcert", standalone_mode=False)
    except _CLICK_ERROR as exc:
        if type(exc).__name__ == "NoArgsIsHelpError":
            exc.show()  # type: ignore[attr-defined]
            sys.exit(2)
        message = exc.format_message()  # type: ignore[attr-defined]
        known = args and args[0] in typer.main.get_command(app).commands  # type: ignore[attr-defined]
        command = f"gossipcert {args[0]}" if known else "gossipcert"
        err_console.print(f"[bold red]error:[/] {esc(message)} (see: {command} --help)")
        if "--json" in args:
            print_json({"error": message, "exit": 2})
        sys.exit(getattr(exc, "exit_code", 2))
    except typer.Abort:
        err_console.print("aborted")
        sys.exit(signals.exit_code(130))
    sys.exit(signals.exit_code(code) if isinstance(code, int) else 0)
