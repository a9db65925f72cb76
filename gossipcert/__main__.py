"""``python -m gossipcert`` and the ``gossipcert`` console script.

SIGINT and SIGTERM are taken first (:mod:`gossipcert.interrupts`, the standard library
only), before the command line's modules and the solvers they load are imported: a signal
at any moment ends the command with status 130 or 143 and one line, never a traceback.
``gossipcert --version`` is answered here, before those imports.
"""

from __future__ import annotations

import sys


def main() -> None:
    """Run the ``gossipcert`` command (:func:`gossipcert.cli.main`)."""
    from gossipcert import interrupts

    interrupts.install(sys.argv[1:])
    try:
        if sys.argv[1:] == ["--version"]:
            from gossipcert._version import __version__

            sys.stdout.write(f"gossipcert {__version__}\n")
            interrupts.finish(0)
        from gossipcert.cli import main as cli_main
    except KeyboardInterrupt:
        interrupts.stopped_before_work()
    try:
        cli_main()
    except KeyboardInterrupt:  # escaped the command's own handlers (a second signal)
        interrupts.stopped()


if __name__ == "__main__":
    main()
