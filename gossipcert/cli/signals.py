"""The command's SIGINT and SIGTERM: :mod:`gossipcert.interrupts` (taken by the console
script before any heavy import; kept here under its former name)."""

from gossipcert.interrupts import exit_code, install

__all__ = ["exit_code", "install"]
