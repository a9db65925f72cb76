"""``python -m gossipcert`` and the ``gossipcert`` console script.

``gossipcert --version`` is answered here, before the command line's modules (and the
solvers they load) are imported.
"""

from __future__ import annotations

import sys


def main() -> None:
    """Run the ``gossipcert`` command (:func:`gossipcert.cli.main`)."""
    if sys.argv[1:] == ["--version"]:
        from gossipcert._version import __version__

        sys.stdout.write(f"gossipcert {__version__}\n")
        return
    from gossipcert.cli import main as cli_main

    cli_main()


if __name__ == "__main__":
    main()
