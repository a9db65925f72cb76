"""The sweep file: graph families × sizes × models × problems, parsed and checked.

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
and ``verdict`` (agrees, better, differs, open; see :mod:`gossipcert.tables.results`).
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gossipcert.claims import Claim, parse_claim
from gossipcert.command_start import MAX_SECONDS
from gossipcert.errors import GossipcertError, SpecError
from gossipcert.instance import Instance, parse_instance
from gossipcert.store import instance_key

_SWEEP_KEYS = {"name", "time_limit", "backend", "output", "store", "group"}
_PAGE_KEYS = {"title", "intro", "notes"}  # text around the Markdown table
_GROUP_KEYS = {"graphs", "sizes", "models", "problems", "claim"}


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
    data = _read_toml(src)
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
        _add_group(group, f"{src}: group {i}", specs, claims)
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


def _read_toml(src: Path) -> dict[str, Any]:
    """A sweep file's TOML; a file that cannot be read or parsed is a :class:`SpecError`."""
    try:
        return tomllib.loads(src.read_text())
    except FileNotFoundError:
        raise SpecError(f"sweep file {str(src)!r} does not exist") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise SpecError(f"cannot read sweep file {str(src)!r}: {exc}") from None
    except tomllib.TOMLDecodeError as exc:
        raise SpecError(f"sweep file {str(src)!r} is not valid TOML: {exc}") from None


def _add_group(
    group: Any,
    where: str,
    specs: list[tuple[str, str, str]],
    claims: dict[tuple[str, str, str], tuple[Claim, str | None]],
) -> None:
    """The instances of one ``[[group]]`` appended to ``specs`` (each once, in order), and
    the group's claim on each of them into ``claims``."""
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
        sized: list[tuple[str, str | None]] = (
            [(t.replace("{n}", str(s)), str(s)) for s in sizes] if "{n}" in t else [(t, None)]
        )
        for g, size in sized:
            for m in models:
                for p in problems:
                    if (g, m, p) not in specs:
                        specs.append((g, m, p))
                    if claim is not None:
                        claims[(g, m, p)] = (claim, size)
