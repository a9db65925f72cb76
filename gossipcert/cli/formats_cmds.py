"""The command line of other tools' files: ``verify --from FORMAT FILE`` and
``export CERT.json --format msccl-xml|sccl-json`` (see :mod:`gossipcert.formats`)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import typer
from rich.markup import escape as esc

from gossipcert.cli.common import _check_output, _write_text
from gossipcert.cli_text import console, err_console, print_json
from gossipcert.errors import GossipcertError
from gossipcert.models.spec import parse_model

#: links shown per round without --show
_LINKS_SHOWN = 8
#: violations shown without --show
_FINDINGS_SHOWN = 10

if TYPE_CHECKING:  # pragma: no cover - annotations only
    from gossipcert.formats.verdict import Verdict


def verify_from(
    path: str,
    fmt: str,
    topology: str | None,
    time_limit: float | None,
    show: bool,
    as_json: bool,
) -> None:
    """``gossipcert verify --from FORMAT FILE``: print the verdict, exit 0 when the algorithm
    is valid and fits the model, 1 otherwise."""
    from gossipcert.formats.verdict import FORMATS, verify_algorithm

    if fmt not in FORMATS:
        raise GossipcertError(f"unknown --from format {fmt!r}; choose one of {', '.join(FORMATS)}")
    verdict = verify_algorithm(path, fmt, topology, time_limit)
    if as_json:
        print_json(verdict.to_json())
    else:
        print_verdict(verdict, show)
    raise typer.Exit(0 if verdict.valid and verdict.fits else 1)


def _optimum_text(verdict: Verdict) -> str:
    opt = verdict.optimum
    if not opt.get("available"):
        return f"unavailable ({opt.get('reason')})"
    where = f"{verdict.problem} on {verdict.topology} under {verdict.optimum_model}"
    if opt.get("optimum") is not None:
        how = "certified" if opt.get("certified") else "the solver's word"
        if opt.get("upper_source", "").startswith("this algorithm"):
            how = "lower bound met by this algorithm"
        return f"{opt['optimum']} round(s) ({how}, lower bound: {opt.get('evidence')}) for {where}"
    low, high = opt.get("lower_bound"), opt.get("upper_bound")
    sources = f"lower end: {opt.get('lower_source')}; upper end: {opt.get('upper_source')}"
    return (
        f"between {low} and {'?' if high is None else high} rounds (time limit; {sources}) "
        f"for {where}"
    )


def _gap_text(verdict: Verdict) -> str:
    gap = verdict.gap()
    if gap is None:
        if not verdict.valid:
            return "not given (invalid algorithm)"
        if verdict.compared_model is None:
            return "not given (the algorithm does not fit the model: not comparable)"
        return "not given (no optimum)"
    if "exact" in gap:
        return f"{gap['exact']} round(s) above the optimum"
    if "at_least" in gap:
        return f"between {gap['at_least']} and {gap['at_most']} round(s) above the optimum"
    return f"at most {gap['at_most']} round(s) above the optimum"


def print_verdict(verdict: Verdict, show: bool) -> None:
    """The verdict as text: one line per fact, then the violations and the rounds."""
    rep = verdict.replay
    out = console.print
    k = (
        f"{verdict.chunks} chunk(s) per rank"
        if verdict.collective != "allreduce"
        else (f"{verdict.chunks} chunk(s)")
    )
    out(
        f"{esc(verdict.source)}: {verdict.collective} on {verdict.ranks} GPUs ({k}), "
        f"{verdict.steps} {'steps' if verdict.fmt == 'msccl-xml' else 'chunk moves'}",
        highlight=False,
    )
    state = (
        "[green]valid[/]" if verdict.valid else f"[red]invalid[/] ({len(rep.findings)} violations)"
    )
    if verdict.valid and not rep.semantics:
        state += " (structure and timing only: the result of this collective is not checked)"
    out(f"  verdict: {state}", highlight=False)
    shown = rep.findings if show else rep.findings[:_FINDINGS_SHOWN]
    for f in shown:
        out(f"    - {esc(f.message)}", highlight=False, soft_wrap=True)
    if len(shown) < len(rep.findings):
        out(f"    ... and {len(rep.findings) - len(shown)} more (--show lists them all)")
    how = "as soon as possible" if verdict.fmt == "msccl-xml" else "as the file gives them"
    out(f"  rounds: {verdict.rounds} ({how})")
    rules = {f.rule for f in verdict.model_findings}
    count = len(verdict.model_findings)
    if verdict.fits:
        fit = "fits"
    elif "not-a-link" in rules:
        fit = f"[red]does not fit[/] ({count} violations: it uses links the topology lacks)"
    elif parse_model(verdict.model).rules.arc_capacities:
        fit = f"[red]does not fit[/] ({count} violations; it needs links of capacity "
        fit += f"{verdict.needs_capacity})"
    else:
        fit = f"[red]does not fit[/] ({count} violations; up to {verdict.needs_capacity} "
        fit += "chunks a round through one GPU's port)"
    out(f"  model: {verdict.model} on {esc(verdict.topology)}: {fit}", highlight=False)
    for f in verdict.model_findings[: (None if show else 3)]:
        out(f"    - {esc(f.message)}", highlight=False)
    out(f"  optimum: {esc(_optimum_text(verdict))}", highlight=False)
    out(f"  gap: {_gap_text(verdict)}", highlight=False)
    for t, links in sorted(verdict.loads.items()):
        items = sorted(links.items())
        text = ", ".join(f"{u}->{v}:{c}" for (u, v), c in items[: (None if show else _LINKS_SHOWN)])
        more = "" if show or len(items) <= _LINKS_SHOWN else f", ... ({len(items)} links)"
        out(f"  round {t}: {text}{more}", highlight=False)
        if not show and t >= 10 and len(verdict.loads) > 12:
            out(f"  ... {len(verdict.loads) - t} more rounds (--show lists them)")
            break


def export_algorithm(
    source: str, fmt: str, output: str | None, force: bool, extra: dict[str, Any]
) -> None:
    """``gossipcert export CERT.json --format msccl-xml|sccl-json``."""
    from gossipcert.formats.writers import export_schedule_file

    _check_output(output, force)
    text = export_schedule_file(source, fmt, **extra)
    if output:
        _write_text(output, text)
        err_console.print(f"wrote {esc(output)} ({fmt})", highlight=False)
    else:
        typer.echo(text, nl=False)
