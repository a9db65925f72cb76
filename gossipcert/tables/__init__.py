"""Sweeps over graph families × sizes × models × problems, and their result tables.

Modules:

- :mod:`~gossipcert.tables.sweeps`: the sweep file (TOML) and its parsing;
- :mod:`~gossipcert.tables.evaluation`: the work of one instance, as a worker runs it;
- :mod:`~gossipcert.tables.running`: planning and running a sweep (a local process pool or
  a Dask cluster), each result recorded in the store;
- :mod:`~gossipcert.tables.results`: the table from the store, the claims judged, and the
  summary of several sweeps;
- :mod:`~gossipcert.tables.markdown`: the Markdown pages;
- :mod:`~gossipcert.tables.files`: the CSV and Markdown files, written atomically.

The names below are the package's face, as the ``table`` and ``summary`` commands and
:func:`gossipcert.api.table` use them, with the types of their signatures.
"""

from __future__ import annotations

from gossipcert.tables.evaluation import Task
from gossipcert.tables.files import check_outputs, write_tables
from gossipcert.tables.markdown import summary_markdown
from gossipcert.tables.results import certified_count, summary, table
from gossipcert.tables.running import Runner, dask_runner, run_sweep
from gossipcert.tables.sweeps import Sweep, read_sweep

__all__ = [
    "Runner",
    "Sweep",
    "Task",
    "certified_count",
    "check_outputs",
    "dask_runner",
    "read_sweep",
    "run_sweep",
    "summary",
    "summary_markdown",
    "table",
    "write_tables",
]
