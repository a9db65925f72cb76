"""The Markdown pages of sweeps: one table per sweep, framed by its title, intro and notes,
and the summary table over several sweeps."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pandas as pd

from gossipcert.statuses import SolveStatus
from gossipcert.tables.sweeps import Sweep

MARKDOWN_MARK = "<!-- gossipcert table: generated from {source}; do not edit -->"


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
        if r.evidence == "solver-claim" and r.status in (SolveStatus.OPTIMAL, SolveStatus.FEASIBLE):
            # the bounds met on the solver's word (stored before as "optimal")
            decided = r.optimum if r.status == SolveStatus.OPTIMAL else r.upper
            answer = f"{decided} (optimal by the solver's word, no checked proof)"
        elif r.status == SolveStatus.OPTIMAL:
            answer = f"**{r.optimum}** (optimal)"
        elif r.status in (SolveStatus.FEASIBLE, SolveStatus.UNKNOWN):
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
