"""The table files of a sweep: where they go, whether an existing file may be replaced (only a
table gossipcert wrote, unless forced), and their atomic writing."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from gossipcert.errors import GossipcertError
from gossipcert.store import atomic_write
from gossipcert.tables.markdown import markdown
from gossipcert.tables.results import COLUMNS
from gossipcert.tables.sweeps import Sweep


def _ours(path: Path) -> bool:
    """True when ``path`` is a table gossipcert wrote (so it may be replaced)."""
    try:
        first = path.read_text().splitlines()[0] if path.stat().st_size else ""
    except (OSError, UnicodeDecodeError, IndexError):
        return False
    if path.suffix == ".csv":
        return first == ",".join(COLUMNS)
    return first.startswith("<!-- gossipcert table:")


def table_paths(sweep: Sweep) -> tuple[Path, Path]:
    """``<output>/<name>.csv`` and ``<output>/<name>.md``."""
    return sweep.output / f"{sweep.name}.csv", sweep.output / f"{sweep.name}.md"


def check_outputs(sweep: Sweep, force: bool = False) -> None:
    """Fail early when a table cannot be written or would replace a file gossipcert did not
    write.

    Raises
    ------
    GossipcertError
        An output exists and is not a table written by gossipcert (pass ``force``), or its
        folder does not exist.
    """
    for p in table_paths(sweep):
        if not p.parent.is_dir():
            raise GossipcertError(f"cannot write {p}: folder {p.parent} does not exist")
        if p.exists() and not force and not _ours(p):
            raise GossipcertError(f"{p} exists and is not a gossipcert table; pass --force")


def write_tables(sweep: Sweep, df: pd.DataFrame, force: bool = False) -> tuple[Path, Path]:
    """Write the CSV and Markdown tables atomically (see :func:`check_outputs`)."""
    check_outputs(sweep, force)
    csv_path, md_path = table_paths(sweep)
    atomic_write(csv_path, df.to_csv(index=False))
    atomic_write(md_path, markdown(df, sweep.source.name, sweep))
    return csv_path, md_path
