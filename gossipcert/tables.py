"""Sweeps over graph families × sizes × models × problems, and their result tables.

A sweep is a TOML file::

    name = "telephone-half-duplex"   # tables <output>/<name>.csv and <name>.md
    time_limit = 20                  # seconds per instance for the exact search
    backend = "sat"                  # optional: sat or cpsat
    output = "."                     # optional, relative to the TOML file
    store = "store"                  # optional, relative to the TOML file

    [[group]]
    graphs = ["ring:{n}", "path:{n}"]   # {n} is replaced by every size
    sizes = [4, 5, 6]
    models = ["telephone", "half-duplex"]
    problems = ["gossip", "broadcast:0"]

    [[group]]
    graphs = ["petersen", "hypercube:3"]  # no {n}: one graph each
    models = ["telephone"]
    problems = ["gossip"]

A sweep that reproduces a paper also sets the paper's claims beside the answers: optional
top-level ``title``, ``intro`` and ``notes`` (Markdown text around the table) and, per group,
a ``[group.claim]`` table (``source``, ``value``, ``lower``, ``upper``, ``heuristic``,
``note``; integers, formulas in ``n``, ``k``, ``r``, ... or tables from sizes to integers,
see :mod:`gossipcert.claims`). The table then gains the columns ``claim``, ``claim_source``
and ``verdict`` (agrees, better, differs, open).

For each instance the row holds: the best closed-form lower bound, its name and source
(:mod:`gossipcert.closed_forms`); the rounds of every construction of
:mod:`gossipcert.constructions.catalog` that applies and passes the verifier; the rounds of
the matching heuristic; and the answer of :func:`gossipcert.search.rounds.solve` — the
certified optimum with its evidence kind, or ``feasible``/``unknown`` with both bounds when
the time limit runs out — with the path of its certificate.

Results go to a :class:`gossipcert.store.Store` as each instance finishes, keyed by the
instance's canonical form; a rerun takes from the store every certified answer (and every
uncertified one found with at least the same time limit), so a killed sweep resumes where it
stopped and a finished sweep is rebuilt without solving anything. Only the calling process
writes to the store; the workers (a local process pool, or a Dask cluster) compute and return.
"""

from __future__ import annotations

import math
import os
import time
import tomllib
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from gossipcert.claims import Claim, describe_values, judge, parse_claim
from gossipcert.errors import GossipcertError, SpecError
from gossipcert.instance import Instance, parse_instance
from gossipcert.parallel import DaskRunner, local_map
from gossipcert.search.watchdog import MAX_SECONDS
from gossipcert.store import Store, atomic_write, entry_stem, instance_key

#: the columns of the CSV table, in order
COLUMNS = [
    "graph",
    "model",
    "problem",
    "n",
    "m",
    "lower_bound",
    "lower_bound_name",
    "lower_bound_source",
    "constructions",
    "heuristic",
    "status",
    "optimum",
    "lower",
    "upper",
    "evidence",
    "schedule_source",
    "certificate",
    "seconds",
    "claim",
    "claim_source",
    "verdict",
]
MARKDOWN_MARK = "<!-- gossipcert table: generated from {source}; do not edit -->"
_SWEEP_KEYS = {"name", "time_limit", "backend", "output", "store", "group"}
_PAGE_KEYS = {"title", "intro", "notes"}  # text around the Markdown table
_GROUP_KEYS = {"graphs", "sizes", "models", "problems", "claim"}


@dataclass(frozen=True)
class Task:
    """One instance to evaluate (picklable: it travels to worker processes)."""

    graph: str
    model: str
    problem: str
    solve: bool
    time_limit: float | None
    backend: str

    @property
    def spec_id(self) -> str:
        """The key of this instance's row inside a store entry (:func:`spec_key`)."""
        return spec_key(self.graph, self.model, self.problem)


def spec_key(graph: str, model: str, problem: str) -> str:
    """``graph | model | problem``: the key of a row inside a store entry (rows depend on the
    specs as written, since bounds and constructions recognise families by their spec)."""
    return f"{graph} | {model} | {problem}"


@dataclass
class Sweep:
    """A parsed sweep file."""

    name: str
    source: Path
    specs: list[tuple[str, str, str]]
    time_limit: float | None
    backend: str
    output: Path
    store: Path
    instances: list[Instance] = field(default_factory=list, repr=False)
    keys: list[str] = field(default_factory=list, repr=False)
    #: (graph, model, problem) -> the group's claim and the size its graph was built with
    claims: dict[tuple[str, str, str], tuple[Claim, str | None]] = field(
        default_factory=dict, repr=False
    )
    #: the page around the Markdown table: a title, text above it and notes below it
    title: str = ""
    intro: str = ""
    notes: str = ""


def _str_list(group: dict[str, Any], key: str, where: str) -> list[str]:
    value = group.get(key)
    if not isinstance(value, list) or not value or not all(isinstance(x, str) for x in value):
        raise SpecError(f"{where}: '{key}' must be a non-empty list of strings")
    return value


def read_sweep(path: str | Path) -> Sweep:
    """Parse and check a sweep file; every instance is built, so a bad spec fails here.

    Parameters
    ----------
    path : str or Path
        The TOML file (format in the module docstring).

    Returns
    -------
    Sweep

    Raises
    ------
    SpecError
        The file cannot be read or does not follow the format, or names a bad graph,
        model or problem.
    """
    src = Path(path)
    try:
        data = tomllib.loads(src.read_text())
    except FileNotFoundError:
        raise SpecError(f"sweep file {str(src)!r} does not exist") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise SpecError(f"cannot read sweep file {str(src)!r}: {exc}") from None
    except tomllib.TOMLDecodeError as exc:
        raise SpecError(f"sweep file {str(src)!r} is not valid TOML: {exc}") from None
    unknown = set(data) - _SWEEP_KEYS - _PAGE_KEYS
    if unknown:
        raise SpecError(f"{src}: unknown key(s) {', '.join(sorted(unknown))}")
    name = data.get("name")
    if name is None:
        raise SpecError(
            f"{src}: 'name' is missing; the tables are written to <output>/<name>.csv and .md, "
            'e.g. name = "my-sweep"'
        )
    if not isinstance(name, str) or not name or "/" in name or name.startswith("."):
        raise SpecError(f"{src}: 'name' must be a plain file name")
    limit = data.get("time_limit")
    if limit is not None and (
        isinstance(limit, bool)
        or not isinstance(limit, int | float)
        or not 0 < limit <= MAX_SECONDS
    ):
        raise SpecError(
            f"{src}: 'time_limit' must be a positive number of seconds, at most {MAX_SECONDS:,}"
        )
    backend = data.get("backend", "sat")
    if backend not in ("sat", "cpsat"):
        raise SpecError(f"{src}: 'backend' must be sat or cpsat")
    groups = data.get("group")
    if not isinstance(groups, list) or not groups:
        raise SpecError(f"{src}: at least one [[group]] is needed")
    specs: list[tuple[str, str, str]] = []
    claims: dict[tuple[str, str, str], tuple[Claim, str | None]] = {}
    for key in sorted(_PAGE_KEYS):
        if not isinstance(data.get(key, ""), str):
            raise SpecError(f"{src}: '{key}' must be text")
    for i, group in enumerate(groups, 1):
        where = f"{src}: group {i}"
        if not isinstance(group, dict):
            raise SpecError(f"{where} is not a table")
        extra = set(group) - _GROUP_KEYS
        if extra:
            raise SpecError(f"{where}: unknown key(s) {', '.join(sorted(extra))}")
        claim = parse_claim(group["claim"], where) if "claim" in group else None
        templates = _str_list(group, "graphs", where)
        models = _str_list(group, "models", where)
        problems = _str_list(group, "problems", where)
        sizes = group.get("sizes", [])
        if not isinstance(sizes, list) or not all(
            isinstance(s, int | str) and not isinstance(s, bool) for s in sizes
        ):
            raise SpecError(f"{where}: 'sizes' must be a list of numbers or strings")
        for t in templates:
            if "{n}" in t and not sizes:
                raise SpecError(f"{where}: graph {t!r} has {{n}} but the group has no 'sizes'")
            sized = [(t.replace("{n}", str(s)), str(s)) for s in sizes] if "{n}" in t else []
            for g, size in sized or [(t, None)]:
                for m in models:
                    for p in problems:
                        if (g, m, p) not in specs:
                            specs.append((g, m, p))
                        if claim is not None:
                            claims[(g, m, p)] = (claim, size)
    base = src.parent
    out = base / str(data.get("output", "."))
    store = base / str(data.get("store", "store"))
    sweep = Sweep(name, src, specs, float(limit) if limit else None, backend, out, store)
    sweep.claims = claims
    sweep.title = data.get("title", "")
    sweep.intro = data.get("intro", "")
    sweep.notes = data.get("notes", "")
    for g, m, p in specs:
        try:
            inst = parse_instance(g, m, p)
        except GossipcertError as exc:
            raise SpecError(f"{src}: instance {g} · {m} · {p}: {exc}") from None
        sweep.instances.append(inst)
        sweep.keys.append(instance_key(inst))
    return sweep


# ---------------------------------------------------------------------------------------------
# the work of one instance (runs in a worker)


def _constructions(instance: Instance) -> str:
    from gossipcert.constructions.catalog import CONSTRUCTIONS, construct
    from gossipcert.simulate import simulate

    found: list[str] = []
    for name in CONSTRUCTIONS:
        try:
            sched = construct(instance, name)
        except GossipcertError:
            continue
        rep = simulate(instance, sched)
        if rep.ok:  # a schedule the verifier rejects is not one for this model
            found.append(f"{name}={rep.rounds}")
    return ", ".join(found)


def _heuristic(instance: Instance) -> int | None:
    from gossipcert.heuristics.matching import matching_heuristic
    from gossipcert.simulate import simulate

    try:
        sched = matching_heuristic(instance)
    except GossipcertError:
        return None
    rep = simulate(instance, sched)
    return rep.rounds if rep.ok else None


def evaluate(task: Task) -> dict[str, Any]:
    """Compute one instance's row (and, if ``task.solve``, its solve outcome and certificate).

    Parameters
    ----------
    task : Task

    Returns
    -------
    dict
        ``{"spec_id", "row", "outcome", "certificate"}``; ``outcome`` and ``certificate`` are
        None when nothing was solved (or no optimum was certified).
    """
    from gossipcert.closed_forms import best_lower_bound

    instance = parse_instance(task.graph, task.model, task.problem)
    lb = best_lower_bound(instance)
    row = {
        "graph": task.graph,
        "model": task.model,
        "problem": task.problem,
        "n": instance.n,
        "m": instance.graph.number_of_edges(),
        "lower_bound": lb.value,
        "lower_bound_name": lb.name,
        "lower_bound_source": lb.source,
        "constructions": _constructions(instance),
        "heuristic": _heuristic(instance),
    }
    outcome: dict[str, Any] | None = None
    cert: dict[str, Any] | None = None
    if task.solve:
        outcome, cert = _solve(instance, task)
    return {"spec_id": task.spec_id, "row": row, "outcome": outcome, "certificate": cert}


def _solve(instance: Instance, task: Task) -> tuple[dict[str, Any], dict[str, Any] | None]:
    from gossipcert.certificates.certificate import build_certificate
    from gossipcert.command_start import limits_from_now
    from gossipcert.search.watchdog import solve_within

    t0 = time.monotonic()
    try:
        with limits_from_now():  # the limit is per instance, not from the command's start
            res = solve_within(instance, backend=task.backend, time_limit=task.time_limit)
    except GossipcertError as exc:
        return {
            "status": "error",
            "message": str(exc),
            "time_limit": task.time_limit,
            "seconds": round(time.monotonic() - t0, 2),
        }, None
    outcome = {
        "status": res.status,
        "optimum": res.optimum,
        "lower": res.lower_bound,
        "upper": res.upper_bound,
        "evidence": res.evidence.get("kind") if res.status == "optimal" else None,
        "schedule_source": res.upper_source if res.schedule is not None else None,
        "time_limit": task.time_limit,
        "backend": task.backend,
        "seconds": round(time.monotonic() - t0, 2),
    }
    return outcome, (build_certificate(res) if res.status == "optimal" else None)


# ---------------------------------------------------------------------------------------------
# planning, running and writing (the calling process)


def _reusable(outcome: dict[str, Any] | None, time_limit: float | None) -> bool:
    """A stored outcome answers the question: certified, or not certified with at least
    as much time as this run would give."""
    if not outcome:
        return False
    if outcome.get("status") == "optimal":
        return True
    if outcome.get("status") == "error":
        return False
    old = outcome.get("time_limit")
    old_t = math.inf if old is None else float(old)
    new_t = math.inf if time_limit is None else time_limit
    return old_t >= new_t


def plan(sweep: Sweep, store: Store) -> list[Task]:
    """The tasks still to run: instances without a row, and one solve per canonical key
    without a reusable outcome."""
    tasks: list[Task] = []
    solving: set[str] = set()
    for (g, m, p), key in zip(sweep.specs, sweep.keys, strict=True):
        entry = store.get(key) or {}
        need_solve = not _reusable(entry.get("outcome"), sweep.time_limit) and key not in solving
        spec_id = spec_key(g, m, p)
        if need_solve:
            solving.add(key)
        if need_solve or spec_id not in entry.get("rows", {}):
            tasks.append(Task(g, m, p, need_solve, sweep.time_limit, sweep.backend))
    return tasks


def record(store: Store, instance: Instance, key: str, result: dict[str, Any]) -> None:
    """Merge one worker result into its store entry (certificate first, then the entry)."""
    entry = store.get(key) or {}
    rows = dict(entry.get("rows", {}))
    rows[result["spec_id"]] = result["row"]
    new = {k: v for k, v in entry.items() if k not in ("format", "key", "rows")}
    new["rows"] = rows
    if result["outcome"] is not None:
        new["outcome"] = result["outcome"]
        new.pop("certificate", None)
    store.put(key, entry_stem(instance, key), new, result["certificate"])


Runner = Callable[[list[Task], int], Iterator[tuple[Task, dict[str, Any]]]]


def _local_runner(tasks: list[Task], jobs: int) -> Iterator[tuple[Task, dict[str, Any]]]:
    for i, result in local_map(evaluate, tasks, jobs):
        yield tasks[i], result


class SweepDaskRunner(DaskRunner):
    """A sweep's runner on the Dask scheduler at ``address``: each task is evaluated on the
    cluster (see :class:`gossipcert.parallel.DaskRunner`)."""

    def __call__(self, tasks: list[Task], jobs: int) -> Iterator[tuple[Task, dict[str, Any]]]:
        """Submit every task and yield the results as they arrive; then disconnect."""
        del jobs  # the cluster's workers decide
        try:
            for i, result in self.map(evaluate, tasks):
                yield tasks[i], result
        finally:
            self.close()


def dask_runner(address: str) -> SweepDaskRunner:
    """A runner that sends the tasks to the Dask scheduler at ``address``, connected
    (see :class:`SweepDaskRunner`)."""
    runner = SweepDaskRunner(address)
    runner.connect()
    return runner


class SweepProgress:
    """A progress bar on standard error: instances done, running, left, and time."""

    def __init__(self, total: int, workers: int | Callable[[], int], enabled: bool = True) -> None:
        from rich.console import Console
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            TextColumn,
            TimeElapsedColumn,
        )

        self.total = total
        self.workers = workers
        self.done = 0
        self.progress = Progress(
            TextColumn("{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("running {task.fields[running]} · left {task.fields[left]}"),
            TimeElapsedColumn(),
            console=Console(stderr=True),
            disable=not enabled,
            transient=False,
        )
        self.task = self.progress.add_task("sweep", total=total, **self._fields())

    def _fields(self) -> dict[str, int]:
        workers = self.workers() if callable(self.workers) else self.workers
        running = min(max(1, workers), self.total - self.done)
        return {"running": running, "left": self.total - self.done - running}

    def __enter__(self) -> SweepProgress:
        self.progress.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.progress.stop()

    def advance(self, description: str) -> None:
        """One more instance done."""
        self.done += 1
        self.progress.update(self.task, advance=1, description=description, **self._fields())


def run_sweep(
    sweep: Sweep,
    jobs: int = 1,
    runner: Runner | None = None,
    progress: bool = True,
) -> dict[str, int]:
    """Run what the store does not already answer; record each result as it arrives.

    Parameters
    ----------
    sweep : Sweep
    jobs : int
        Worker processes of the local pool (1: in this process).
    runner : callable, optional
        How to run tasks (default: the local pool; see :func:`dask_runner`).
    progress : bool
        Show a progress bar on standard error.

    Returns
    -------
    dict
        ``{"instances", "tasks", "solved"}``: how many instances, how many were run, and how
        many of those ran the exact search.
    """
    store = Store(sweep.store)
    tasks = plan(sweep, store)
    where = {s: i for i, s in enumerate(sweep.specs)}
    run = runner or _local_runner
    workers = lambda: getattr(run, "workers", None) or jobs  # noqa: E731
    with SweepProgress(len(tasks), workers, progress and bool(tasks)) as bar:
        for task, result in run(tasks, jobs):
            i = where[(task.graph, task.model, task.problem)]
            record(store, sweep.instances[i], sweep.keys[i], result)
            bar.advance(f"{task.graph} · {task.model} · {task.problem}")
    return {
        "instances": len(sweep.specs),
        "tasks": len(tasks),
        "solved": sum(t.solve for t in tasks),
    }


def table(sweep: Sweep) -> pd.DataFrame:
    """The sweep's table, from the store alone (instances not yet run have status
    ``not-run``)."""
    store = Store(sweep.store)
    rows: list[dict[str, Any]] = []
    for i, ((g, m, p), key) in enumerate(zip(sweep.specs, sweep.keys, strict=True)):
        entry = store.get(key) or {}
        spec_id = spec_key(g, m, p)
        row: dict[str, Any] = {c: None for c in COLUMNS}
        row.update(entry.get("rows", {}).get(spec_id, {"graph": g, "model": m, "problem": p}))
        outcome = entry.get("outcome")
        if not outcome or spec_id not in entry.get("rows", {}):
            row["status"] = "not-run"
        else:
            for c in ("status", "optimum", "lower", "upper", "evidence", "schedule_source"):
                row[c] = outcome.get(c)
            row["seconds"] = outcome.get("seconds")
            cert = entry.get("certificate")
            if cert:
                row["certificate"] = os.path.relpath(store.root / cert, sweep.output)
        if (g, m, p) in sweep.claims:
            claim, size = sweep.claims[(g, m, p)]
            values = claim.values(size, _claim_variables(sweep.instances[i], size))
            row["claim"] = describe_values(values)
            row["claim_source"] = claim.source
            row["verdict"] = judge(values, *_certified_answer(row))
        rows.append(row)
    df = pd.DataFrame(rows, columns=COLUMNS)
    for c in ("n", "m", "lower_bound", "heuristic", "optimum", "lower", "upper"):
        df[c] = df[c].astype("Int64")
    return df


def _certified_answer(row: dict[str, Any]) -> tuple[str, Any, Any]:
    """The status and bounds a claim is judged against: only what is certified.

    An optimum whose lower bound is the solver's word (evidence ``solver-claim``), and the
    lower end of a bracket (found by solver calls without proofs), are not certified: the
    verdict then uses the closed-form lower bound and the verified schedule's rounds.
    """
    status = row["status"]
    if status == "optimal" and row["evidence"] != "solver-claim":
        return status, row["optimum"], row["optimum"]
    if status == "optimal":
        return "feasible", row["lower_bound"], row["optimum"]
    return status, row["lower_bound"], row["upper"]


def _claim_variables(instance: Instance, size: str | None) -> dict[str, Any]:
    """The variables a claim formula may name (see :mod:`gossipcert.claims`)."""
    from gossipcert.graphs import describe, processors

    info = describe(instance.graph)
    return {
        "n": len(processors(instance.graph)),
        "N": instance.n,
        "k": int(size) if size is not None and size.isdigit() else None,
        "r": info["radius"],
        "d": info["diameter"],
        "p": instance.model.packet_cap,
        "c": instance.model.calls_per_round,
    }


def _md_cell(value: Any) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)) or value is pd.NA:
        return ""
    return str(value).replace("|", "\\|").replace("\n", " ")


_VERDICT_CELLS = {
    "agrees": "agrees",
    "better": "**better**",
    "differs": "**differs**",
    "open": "open",
    "-": "",
}


def markdown(df: pd.DataFrame, source: str, sweep: Sweep | None = None) -> str:
    """The Markdown page: one line per instance, the answer first and the evidence after.

    When the sweep attaches claims to its groups, two columns set each paper's values
    beside ours and give the verdict (:func:`gossipcert.claims.judge`); the sweep's title,
    intro and notes, and the notes of its claims, frame the table.
    """
    with_claims = bool(df["claim"].notna().any()) if "claim" in df else False
    head = [
        "graph",
        "model",
        "problem",
        "n",
        "lower bound (name)",
        "constructions",
        "heuristic",
        "answer",
        "evidence",
    ]
    if with_claims:
        head += ["paper", "verdict"]
    head.append("certificate")
    lines = [MARKDOWN_MARK.format(source=source), ""]
    if sweep is not None and sweep.title:
        lines += [f"# {sweep.title}", ""]
    if sweep is not None and sweep.intro:
        lines += [sweep.intro.strip(), ""]
    lines += ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in df.itertuples(index=False):
        if r.status == "optimal" and r.evidence == "solver-claim":
            answer = f"{r.optimum} (optimal by the solver's word, no checked proof)"
        elif r.status == "optimal":
            answer = f"**{r.optimum}** (optimal)"
        elif r.status in ("feasible", "unknown"):
            up = "?" if r.upper is pd.NA else r.upper
            answer = f"{r.status}, between {r.lower} and {up}"
        else:
            answer = str(r.status)
        cert = (
            f"[{Path(r.certificate).name}]({r.certificate})"
            if isinstance(r.certificate, str)
            else ""
        )
        cells = [
            r.graph,
            r.model,
            r.problem,
            r.n,
            f"{_md_cell(r.lower_bound)} ({_md_cell(r.lower_bound_name)})",
            r.constructions,
            r.heuristic,
            answer,
            r.evidence,
        ]
        if with_claims:
            claim = _md_cell(r.claim)
            where = _md_cell(r.claim_source)
            cells += [
                f"{claim} ({where})" if claim else "",
                _VERDICT_CELLS.get(str(r.verdict), ""),
            ]
        lines.append("| " + " | ".join(_md_cell(c) for c in cells) + f" | {_md_cell(cert)} |")
    notes = _page_notes(sweep)
    if notes:
        lines += ["", "## Notes", "", *notes]
    return "\n".join(lines) + "\n"


def _page_notes(sweep: Sweep | None) -> list[str]:
    """The sweep's notes, then each claim's note once (with its source)."""
    if sweep is None:
        return []
    out: list[str] = []
    if sweep.notes:
        out += [sweep.notes.strip(), ""]
    seen: set[tuple[str, str]] = set()
    for claim, _size in sweep.claims.values():
        if claim.note and (claim.source, claim.note) not in seen:
            seen.add((claim.source, claim.note))
            out += [f"- **{claim.source}**: {claim.note.strip()}"]
    if sweep.claims:
        out += [
            "",
            "Verdicts: *agrees* — every claim holds and the paper's best schedule is optimal; "
            "*better* — every claim holds and the certified optimum is below the paper's best "
            "schedule or upper bound; *differs* — certified evidence contradicts a claim (see "
            "the notes); *open* — not settled within the time limit, nothing contradicted.",
        ]
    while out and not out[-1]:
        out.pop()
    return out


def _ours(path: Path) -> bool:
    """True when ``path`` is a table this module wrote (so it may be replaced)."""
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


def certified_count(df: pd.DataFrame) -> int:
    """Rows of a sweep's table whose optimum is certified: optimal, with evidence other than
    the solver's word."""
    return int(((df["status"] == "optimal") & (df["evidence"] != "solver-claim")).sum())


def summary(sweeps: list[Sweep]) -> pd.DataFrame:
    """One line per sweep, from the store alone: how many instances, how many certified,
    and how many of the paper's claims each verdict got.

    Parameters
    ----------
    sweeps : list of Sweep

    Returns
    -------
    pandas.DataFrame
        Columns ``page``, ``title``, ``instances``, ``certified`` and one per verdict
        (``agrees``, ``better``, ``differs``, ``open``).
    """
    lines = []
    for sweep in sweeps:
        df = table(sweep)
        verdicts = df["verdict"].value_counts()
        lines.append(
            {
                "page": f"{sweep.name}.md",
                "title": sweep.title or sweep.name,
                "instances": len(df),
                "certified": certified_count(df),
                **{v: int(verdicts.get(v, 0)) for v in ("agrees", "better", "differs", "open")},
            }
        )
    return pd.DataFrame(lines)


def summary_markdown(df: pd.DataFrame, link_prefix: str = "") -> str:
    """The summary as a Markdown table, each page linked (``link_prefix`` + page).

    Examples
    --------
    >>> row = {"page": "p.md", "title": "P", "instances": 3, "certified": 2, "agrees": 1,
    ...        "better": 1, "differs": 0, "open": 1}
    >>> print(summary_markdown(pd.DataFrame([row]), "results/").splitlines()[2])
    | [P](results/p.md) | 3 | 2 | 1 | 1 | 0 | 1 |
    """
    head = ["paper", "instances", "certified", "agrees", "better", "differs", "open"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in df.itertuples(index=False):
        cells = [
            f"[{_md_cell(r.title)}]({link_prefix}{r.page})",
            r.instances,
            r.certified,
            r.agrees,
            r.better,
            r.differs,
            r.open,
        ]
        lines.append("| " + " | ".join(str(c) for c in cells) + " |")
    return "\n".join(lines) + "\n"
