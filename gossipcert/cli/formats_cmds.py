"""The command line of other tools' files: ``verify --from FORMAT FILE`` and
``export CERT.json --format msccl-xml|sccl-json`` (see :mod:`gossipcert.formats`)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.markup import escape as esc

from gossipcert.cli.common import _check_output, _write_text
from gossipcert.cli_text import console, err_console, print_json
from gossipcert.errors import GossipcertError, SpecError
from gossipcert.models.spec import parse_model

#: the options of ``verify --from``: the machine and the time at message sizes
TopologyOpt = Annotated[
    str | None,
    typer.Option(
        "--topology",
        help="--from: the machine to check and time the algorithm on: dgx1, dgx2, ndv2:K, "
        "ndv5:K, a100:K, mi250:K, mi250:K:forestcoll, mi300x:N (real links: bandwidth and "
        "latency, see gossipcert graph), a graph spec without units (ring:8, hub:8, "
        "fully-connected:8) or a topology file (TACCL, TE-CCL, SCCL JSON). Required unless "
        "the file carries its own.",
        metavar="T",
    ),
]
SizeOpt = Annotated[
    str | None,
    typer.Option(
        "--size",
        help="--from: message sizes to time, S[,S...] in bytes with K, M, G, T (powers of "
        "1024), e.g. 1K,1M,1G: the collective's whole buffer as the executor counts it. "
        "Default: across the file's minBytes..maxBytes (powers of 4).",
        metavar="S",
    ),
]
AlphaOpt = Annotated[
    float | None,
    typer.Option(
        "--alpha",
        help="--from: latency of every link, seconds (time units on a graph without "
        "physical units, where the default is none).",
        metavar="SECONDS",
    ),
]
BandwidthOpt = Annotated[
    float | None,
    typer.Option(
        "--bandwidth",
        help="--from, graphs without physical units: data units per time unit of a "
        "capacity-1 link (default 1).",
        metavar="B",
    ),
]
SwitchOpt = Annotated[
    str,
    typer.Option(
        "--switch",
        help="--from: how switches forward a transfer: cut-through (NVSwitch, InfiniBand) "
        "or store-and-forward (the round model's routers).",
    ),
]


def link_row(row: dict[str, Any]) -> tuple[str, str]:
    """A row of ``gossipcert graph`` for a kind of link of a machine."""
    return (
        f"link {row['link']}",
        f"{row['edges']} edges, {row['bandwidth'] / 1e9:g} GB/s each way, "
        f"latency {row['alpha'] * 1e6:g} us, capacity {row['capacity']}",
    )


def refuse_from_options(
    topology: str | None,
    time_limit: float | None,
    size: str | None,
    alpha: float | None,
    bandwidth: float | None,
    switch: str,
) -> None:
    """SpecError when an option of ``verify --from`` is given without ``--from``."""
    given = (topology, time_limit, size, alpha, bandwidth)
    if any(x is not None for x in given) or switch != "cut-through":
        raise SpecError(
            "--topology, --size, --alpha, --bandwidth, --switch and --time-limit go with "
            "--from FORMAT FILE"
        )


#: links shown per round without --show
_LINKS_SHOWN = 8
#: violations shown without --show
_FINDINGS_SHOWN = 10
#: what a format's steps are called
_STEP_WORDS = {"msccl-xml": "steps", "mscclpp-plan": "operations"}

if TYPE_CHECKING:  # pragma: no cover - annotations only
    from gossipcert.formats.verdict import Verdict


def verify_from(
    path: str,
    fmt: str,
    topology: str | None,
    time_limit: float | None,
    show: bool,
    as_json: bool,
    timing: dict[str, Any] | None = None,
    model: str | None = None,
) -> None:
    """``gossipcert verify --from FORMAT FILE``: print the verdict and the time at message
    sizes (``timing``: ``sizes``, ``alpha``, ``bandwidth``, ``switch``), exit 0 when the
    algorithm is valid and fits the model (``--model``, else the topology's default), 3 when
    its result cannot be checked (not judged), 1 otherwise."""
    from gossipcert.cli.time_text import print_time
    from gossipcert.formats.time_verdict import verify_and_time
    from gossipcert.formats.verdict import FORMATS

    if fmt not in FORMATS:
        raise GossipcertError(f"unknown --from format {fmt!r}; choose one of {', '.join(FORMATS)}")
    verdict = verify_and_time(path, fmt, topology, time_limit, model=model, **(timing or {}))
    if as_json:
        print_json(verdict.to_json())
    else:
        print_verdict(verdict, show)
        print_time(verdict.time, show)
    raise typer.Exit(0 if verdict.valid and verdict.fits else 1 if verdict.judged else 3)


def _optimum_text(verdict: Verdict) -> str:
    opt = verdict.optimum
    if not opt.get("available"):
        return f"unavailable ({opt.get('reason')})"
    where = f"{verdict.problem} on {verdict.topology} under {verdict.optimum_model}"
    if opt.get("optimum") is not None:
        how = "certified" if opt.get("certified") else "proved"
        if opt.get("upper_source", "").startswith("this algorithm"):
            how = "lower bound met by this algorithm"
        return f"{opt['optimum']} round(s) ({how}, lower bound: {opt.get('evidence')}) for {where}"
    low, high = opt.get("lower_bound"), opt.get("upper_bound")
    sources = f"lower end: {opt.get('lower_source')}; upper end: {opt.get('upper_source')}"
    if opt.get("decided_by_solver"):
        return (
            f"{high} round(s) by the solver's word only, not proved (status "
            f"{opt.get('status')}; {sources}) for {where}"
        )
    return (
        f"between {low} and {'?' if high is None else high} rounds (time limit; {sources}) "
        f"for {where}"
    )


def _gap_text(verdict: Verdict) -> str:
    gap = verdict.gap()
    if gap is None:
        if not verdict.valid:
            return "not given (" + ("invalid algorithm)" if verdict.judged else "not judged)")
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
        f"{verdict.steps} {_STEP_WORDS.get(verdict.fmt, 'chunk moves')}",
        highlight=False,
    )
    state = (
        "[green]valid[/]"
        if verdict.valid
        else f"[red]invalid[/] ({_count(len(rep.findings), 'violation')})"
    )
    if rep.not_judged and not rep.findings:
        state = "[yellow]not judged[/] (" + "; ".join(esc(r) for r in rep.not_judged) + ")"
    elif rep.not_judged:
        state += "; not judged in full: " + "; ".join(esc(r) for r in rep.not_judged)
    elif not verdict.judged:
        state = (
            f"[yellow]not judged[/]: no violation found, but the result of a {verdict.collective} "
            "cannot be checked (its roots, peers or counts come with the call)"
        )
    out(f"  verdict: {state}", highlight=False)
    shown = rep.findings if show else rep.findings[:_FINDINGS_SHOWN]
    for f in shown:
        out(f"    - {esc(f.message)}", highlight=False, soft_wrap=True)
    if len(shown) < len(rep.findings):
        out(f"    ... and {len(rep.findings) - len(shown)} more (--show lists them all)")
    how = (
        "as the file gives them"
        if verdict.fmt in ("sccl-json", "teccl-json")
        else "as soon as possible"
    )
    out(f"  rounds: {verdict.rounds} ({how})")
    rules = {f.rule for f in verdict.model_findings}
    count = _count(len(verdict.model_findings), "violation")
    if verdict.fits:
        fit = "fits"
    elif "not-a-link" in rules:
        fit = f"[red]does not fit[/] ({count}: it uses links the topology lacks)"
    elif parse_model(verdict.model).rules.arc_capacities:
        fit = f"[red]does not fit[/] ({count}; it needs links of capacity "
        fit += f"{verdict.needs_capacity})"
    elif verdict.model_default:
        fit = f"[red]does not fit[/] ({count}; up to {verdict.needs_capacity} "
        fit += "chunks a round through one GPU's port)"
    else:
        fit = f"[red]does not fit[/] ({count}: {', '.join(sorted(rules))})"
    which = " (the topology's default; --model chooses another)" if verdict.model_default else ""
    out(f"  model: {verdict.model}{which} on {esc(verdict.topology)}: {fit}", highlight=False)
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


def _count(n: int, noun: str) -> str:
    """``1 violation``, ``2 violations``."""
    return f"{n} {noun}{'' if n == 1 else 's'}"


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
