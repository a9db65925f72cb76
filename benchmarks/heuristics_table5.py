"""Table 5 of Beier and Sibeyn (telephone gossip on CCC, SE, butterfly, de Bruijn), in parts.

Used by ``python benchmarks/heuristics.py table5``. Each row runs the matching heuristic's
parameter grid (:func:`gossipcert.heuristics.settings_grid.best_of_grid`, stopped early at
the paper's lower bound) and the coloring heuristic
(:func:`gossipcert.heuristics.coloring.coloring_heuristic`, down to the lower bound), each
within its own budget; "ours" is the better of the two. Every schedule is replayed by the
verifier before it is counted. Rows over ``--matching-max-nodes`` run the coloring
heuristic alone.

With ``--merge`` the page named by ``--out`` is built in parts: the rows of the graphs run
now replace the old rows of those graphs, every other row stays, every command that built
the page is listed on it, and everything from the page's first second-level heading on (its
notes and history, written by hand) is kept as it was.

References
----------
R. Beier and J. F. Sibeyn, "A powerful heuristic for telephone gossiping", Table 5.
"""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Protocol

from gossipcert.errors import GossipcertError
from gossipcert.heuristics.coloring import PRUNING, coloring_heuristic
from gossipcert.heuristics.settings_grid import best_of_grid
from gossipcert.instance import parse_instance
from gossipcert.simulate import simulate

HEAD = (
    "| graph | n | m | LB | former UB | paper HR | matching (sweep) | coloring | ours | "
    "within HR | setting of ours | matching CPU s / wall s (settings) | "
    "coloring CPU s / wall s |"
)
SEPARATOR = "|" + "|".join("---" for _ in range(HEAD.count("|") - 1)) + "|"
RUN_PREFIX = "- `benchmarks/heuristics.py table5"


class Row(Protocol):
    """What the page needs of a paper row (``heuristics.PaperRow``)."""

    spec: str
    name: str
    lower: int | None
    upper: int | None
    heuristic: int | None


def _num(value: int | None) -> str:
    return "-" if value is None else str(value)


def _matching(spec: str, budget: float, lower: int) -> tuple[int, str, str]:
    """Rounds, setting and ``CPU / wall (settings)`` of the sweep, its schedule verified."""
    inst = parse_instance(spec, "telephone", "gossip")
    wall, cpu = time.monotonic(), time.process_time()
    res = best_of_grid(inst, budget, lower_bound=lower, log=sys.stderr)
    wall, cpu = time.monotonic() - wall, time.process_time() - cpu
    rep = simulate(inst, res.best.schedule)
    if not rep.ok or rep.rounds != len(res.best.schedule):
        raise AssertionError(f"{spec}: the sweep's schedule failed the verifier")
    return rep.rounds, res.best.params.describe(), f"{cpu:.1f} / {wall:.1f} ({len(res.tried)})"


def _coloring(spec: str, budget: float, lower: int) -> tuple[int | None, str, str]:
    """Rounds (None: nothing found), setting and ``CPU / wall`` of the coloring heuristic."""
    inst = parse_instance(spec, "telephone", "gossip")
    wall, cpu = time.monotonic(), time.process_time()
    try:
        res = coloring_heuristic(inst, min_rounds=max(lower, 1), time_limit=budget)
    except GossipcertError as exc:
        wall, cpu = time.monotonic() - wall, time.process_time() - cpu
        return None, f"coloring: {exc}", f"{cpu:.1f} / {wall:.1f}"
    wall, cpu = time.monotonic() - wall, time.process_time() - cpu
    rep = simulate(inst, res.schedule)
    if not rep.ok or rep.rounds != len(res.sequence):
        raise AssertionError(f"{spec}: the coloring schedule failed the verifier")
    found = [k for _, k, _, outcome in res.trace if outcome == "found"]
    no_repeat, window, f = PRUNING[found[-1]] if found else (0, False, 0.0)
    setting = f"coloring pruning {no_repeat},{int(window)},{f:g}" if found else "coloring dive"
    return rep.rounds, setting, f"{cpu:.1f} / {wall:.1f}"


def table5_row(
    row: Row,
    budget: float,
    coloring_budget: float,
    matching_max_nodes: int,
    run_matching: Callable[[str, float, int], tuple[int, str, str]] = _matching,
    run_coloring: Callable[[str, float, int], tuple[int | None, str, str]] = _coloring,
) -> str:
    """One Markdown row: both heuristics on ``row``'s graph, ``**`` where one beats HR."""
    inst = parse_instance(row.spec, "telephone", "gossip")
    n, m = inst.n, inst.graph.number_of_edges()
    print(f"{row.name}: n={n}, m={m}", file=sys.stderr, flush=True)
    lower = row.lower or 0
    ours: list[tuple[int, str]] = []
    if n > matching_max_nodes:
        match_cell, match_time = f"not run (n > {matching_max_nodes})", "-"
    else:
        rounds, setting, match_time = run_matching(row.spec, budget, lower)
        ours.append((rounds, f"matching {setting}"))
        match_cell = str(rounds)
    col_rounds, col_setting, col_time = run_coloring(row.spec, coloring_budget, lower)
    if col_rounds is not None:
        ours.append((col_rounds, col_setting))
    hr = row.heuristic

    def marked(value: int | None, text: str) -> str:
        return f"**{text}**" if value is not None and hr is not None and value < hr else text

    if ours:
        best, best_setting = min(ours, key=lambda pair: pair[0])
        within = "-" if hr is None else ("yes" if best <= hr else "no")
        best_cell = marked(best, str(best))
    else:
        best_setting, within, best_cell = col_setting, "-", "none"
    if match_cell.isdigit():
        match_cell = marked(int(match_cell), match_cell)
    col_cell = "none" if col_rounds is None else marked(col_rounds, str(col_rounds))
    cells = [row.name, str(n), str(m), _num(row.lower), _num(row.upper), _num(hr)]
    cells += [match_cell, col_cell, best_cell, within, best_setting, match_time, col_time]
    return "| " + " | ".join(cells) + " |"


def read_page(path: Path) -> tuple[list[str], dict[str, str], list[str]]:
    """The run lines, the table's rows by graph name, and the sections after the table."""
    runs: list[str] = []
    rows: dict[str, str] = {}
    history: list[str] = []
    in_table = False
    for line in path.read_text(encoding="utf-8").splitlines():
        if history or line.startswith("## "):
            history.append(line)
        elif line.startswith(RUN_PREFIX):
            runs.append(line)
        elif line == HEAD:
            in_table = True
        elif in_table and line.startswith("| ") and line != SEPARATOR:
            rows[line.split("|")[1].strip()] = line
        elif not line.strip():
            in_table = False
    return runs, rows, history


def page(runs: list[str], rows: dict[str, str], order: list[str], history: list[str]) -> list[str]:
    """The page: title, notes, the commands that built it, the table, then ``history``.

    ``history`` is the page's own sections after the table (notes, older results).
    """
    known = [name for name in order if name in rows]
    known += sorted(name for name in rows if name not in order)
    return [
        "# Matching and coloring heuristics vs Beier-Sibeyn Table 5 (telephone gossip)",
        "",
        "Each row is the newest run of its graph by one of the commands below (built in "
        "parts with `--merge`). Per row: the matching heuristic's parameter sweep "
        "(`gossipcert.heuristics.settings_grid`, stopped at the paper's lower bound) and the "
        "coloring heuristic (`gossipcert.heuristics.coloring`, section-8 matchings on CCC "
        "and butterflies, a greedy edge colouring completed to maximal matchings on SE and "
        "de Bruijn; searched down to the lower bound), each within its budget. `ours` is "
        "the better; `**` marks a number below the paper's HR (the best of its two "
        "heuristics). Every schedule counted passed the verifier (`gossipcert.simulate`). "
        "`setting of ours` is the sweep's setting or the coloring search's pruning setting "
        "`(no_repeat, window, f)` that found ours. CPU seconds are this process's "
        "(`time.process_time`), wall seconds from a monotonic clock; the machine has 2 cores "
        "shared with other jobs, so wall seconds are inflated and CPU seconds are the better "
        "measure. `not run (n > N)`: the command skipped the sweep on graphs over `N` "
        "nodes (`--matching-max-nodes`).",
        "",
        "Runs (the commit is the code each ran; the whole run's figures from the script):",
        "",
        *runs,
        "",
        HEAD,
        SEPARATOR,
        *(rows[name] for name in known),
        "",
        *history,
    ]


def commit() -> str:
    """The checked-out commit, ``-dirty`` if the code (package or benchmarks) has changes."""
    root = Path(__file__).resolve().parent.parent
    try:
        head = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"],
            capture_output=True,
            text=True,
            check=True,
            cwd=root,
        ).stdout.strip()
        changed = subprocess.run(
            ["git", "status", "--porcelain", "--", "gossipcert", "benchmarks"],
            capture_output=True,
            text=True,
            check=True,
            cwd=root,
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "?"
    return f"{head}-dirty" if changed else head


def build(
    rows: list[Row],
    order: list[str],
    command: str,
    out: Path | None,
    merge: bool,
    row_line: Callable[[Row], str],
) -> list[str]:
    """Run ``rows``, rewriting the page at ``out`` after every row; return its lines."""
    runs: list[str] = []
    old: dict[str, str] = {}
    history: list[str] = []
    if merge and out is not None and out.exists():
        runs, old, history = read_page(out)
    start = datetime.now(UTC)
    wall, cpu = time.monotonic(), time.process_time()
    head = f"`benchmarks/heuristics.py {command}` at {commit()}, {start:%Y-%m-%d %H:%M} UTC"
    new: dict[str, str] = {}

    def write(status: str) -> list[str]:
        lines = page([*runs, f"- {head}: {status}"], {**old, **new}, order, history)
        if out is not None:
            out.write_text("\n".join(lines) + "\n", encoding="utf-8")
        return lines

    write("running")
    for row in rows:
        new[row.name] = row_line(row)
        print(new[row.name], flush=True)
        write("running")
    return write(
        f"{len(rows)} rows, {time.monotonic() - wall:.0f} s wall, "
        f"{time.process_time() - cpu:.0f} s CPU"
    )
