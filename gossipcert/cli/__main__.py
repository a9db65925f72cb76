"""``python -m gossipcert.cli``: the ``gossipcert`` command."""

from gossipcert.cli import main

main()
