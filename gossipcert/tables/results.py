"""A sweep's table of results, read from the store alone, the paper's claims judged beside
the answers, and the summary of several sweeps.

A claim (:mod:`gossipcert.claims`) is judged only against what is certified
(:func:`_certified_answer`); the verdict is one of agrees, better, differs and open.
"""

from __future__ import annotations

import os
from typing import Any

import pandas as pd

from gossipcert.claims import describe_values, judge
from gossipcert.instance import Instance
from gossipcert.statuses import SolveStatus
from gossipcert.store import Store
from gossipcert.tables.sweeps import Sweep, spec_key

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
    if status == SolveStatus.OPTIMAL and row["evidence"] != "solver-claim":
        return status, row["optimum"], row["optimum"]
    if status == SolveStatus.OPTIMAL:
        return SolveStatus.FEASIBLE, row["lower_bound"], row["optimum"]
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


def certified_count(df: pd.DataFrame) -> int:
    """Rows of a sweep's table whose optimum is certified: optimal, with evidence other than
    the solver's word."""
    return int(((df["status"] == SolveStatus.OPTIMAL) & (df["evidence"] != "solver-claim")).sum())


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
