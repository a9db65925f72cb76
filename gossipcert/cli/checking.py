"""The ``check`` command: a certificate (or every certificate in a folder) re-checked from
scratch."""

from __future__ import annotations

import json
import os
import time
from typing import Annotated, Any

import typer
from rich.markup import escape as esc

from gossipcert.cli.common import (
    ForceOpt,
    JsonOpt,
    _bad_input,
    _check_output,
    _time_limit_option,
    _write_text,
    app,
)
from gossipcert.cli_text import (
    console,
    err_console,
    print_json,
)
from gossipcert.errors import GossipcertError
from gossipcert.statuses import CheckStatus

#: the mark ``check`` prints before a step or a certificate, per verdict
CHECK_MARK = {
    CheckStatus.HOLDS: "[green]✓[/]",
    CheckStatus.FAILS: "[red]✗[/]",
    CheckStatus.TIMEOUT: "[yellow]?[/]",
    CheckStatus.UNPROVED: "[yellow]~[/]",
}

#: exit status of ``check`` per verdict
CHECK_EXIT = {
    CheckStatus.HOLDS: 0,
    CheckStatus.FAILS: 1,
    CheckStatus.TIMEOUT: 3,
    CheckStatus.UNPROVED: 4,
}
#: the key under which a certificate stores a DRAT proof (check --upgrade counts them)
_DRAT_KEY = '"proof_xz_base64"'
#: check prints a heartbeat line after this many seconds without a decided step
CHECK_HEARTBEAT_SECONDS = 8.0


CheckCertificateOpt = Annotated[
    str | None,
    typer.Argument(help="Certificate written by solve -o.", metavar="CERTIFICATE"),
]
CheckAllDirOpt = Annotated[
    str | None,
    typer.Option(
        "--all",
        help="Check every certificate in this folder (*.cert.json and *-cert.json, the "
        "names the README uses).",
    ),
]
CheckTimeLimitOpt = Annotated[
    float | None, _time_limit_option("Seconds for re-checking a proof or re-solving a claim.")
]
CheckFullOpt = Annotated[
    bool,
    typer.Option(
        "--full",
        help="Let the project's own proof checker run to the end (by default it stops at "
        "max(60 s, dratify's time) on very long proofs, and the proof then rests on "
        "dratify and drat-trim).",
    ),
]
CheckQuietOpt = Annotated[
    bool,
    typer.Option("--quiet", "-q", help="No heartbeat lines on stderr during a long step."),
]
CheckUpgradeOpt = Annotated[
    str | None,
    typer.Option(
        "--upgrade",
        metavar="NEW.json",
        help="Prove every stored DRAT refutation again with a trimmed LRAT proof (checked "
        "by gossipcert-lrat and minisat-hints in its place) and, when the certificate "
        "holds, write it with those proofs to NEW.json: its later checks are fast. The "
        "certificate given is not changed.",
    ),
]


@app.command("check")
@_bad_input
def check_cmd(
    certificate: CheckCertificateOpt = None,
    all_dir: CheckAllDirOpt = None,
    time_limit: CheckTimeLimitOpt = None,
    full: CheckFullOpt = False,
    as_json: JsonOpt = False,
    quiet: CheckQuietOpt = False,
    upgrade: CheckUpgradeOpt = None,
    force: ForceOpt = False,
) -> None:
    """Re-check a certificate from scratch: rebuild the instance, replay the schedule,
    recompute the bound or regenerate the CNF and re-check the DRAT proof with every
    checker available (dratify with deletions ignored, the project's own checker, and
    drat-trim when it is on the PATH or named by GOSSIPCERT_DRAT_TRIM). A steps certificate
    (solve --objective steps -o) is checked point by point the same way. With --upgrade,
    stored DRAT proofs (certificates written before LRAT) are replaced by LRAT proofs.

    Exit 0 when every step holds, 1 on any mismatch or rejected proof, 2 when the file cannot
    be read, 3 when the time limit ran out before a verdict (neither holds nor fails), 4 when
    every step agrees but the lower bound is a solver's word (solve --no-proof, or a proof
    not checked in time): re-solving it is the solver's word again, not a proof.
    """
    from gossipcert.certificates.certificate import read_certificate, step_verdict
    from gossipcert.watchdog import check_within, upgrade_within

    if (certificate is None) == (all_dir is None):
        raise GossipcertError("give one certificate, or --all FOLDER")
    if all_dir is not None:
        _check_all(all_dir, time_limit, as_json, full)
    assert certificate is not None
    if upgrade is not None:
        _check_output(upgrade, force)
        if os.path.abspath(upgrade) == os.path.abspath(certificate):
            raise GossipcertError("--upgrade writes a new file: give a name other than the input")
    cert = read_certificate(certificate)
    shown = 0

    def show(ok: bool | None, text: str, claim: bool) -> None:
        """Print a step as soon as it is decided (a long proof check shows its progress)."""
        nonlocal shown
        console.print(f"{CHECK_MARK[step_verdict(ok, claim)]} {esc(text)}", highlight=False)
        shown += 1

    started = time.monotonic()
    last = [started]

    def beat(event: dict[str, Any]) -> None:
        """A heartbeat line on stderr when no step was decided for CHECK_HEARTBEAT_SECONDS."""
        now = time.monotonic()
        if now - last[0] >= CHECK_HEARTBEAT_SECONDS:
            last[0] = now
            err_console.print(
                f"[dim]{now - started:8.2f}s[/]  still checking step {shown + 1} "
                "(re-solving a claim or checking a proof)",
                highlight=False,
            )

    def arrived(ok: bool | None, text: str, claim: bool) -> None:
        last[0] = time.monotonic()
        if not as_json:
            show(ok, text, claim)

    from gossipcert.search.heartbeat import heartbeats

    upgraded = None
    with heartbeats(None if quiet else beat, "checking", dict):
        if upgrade is None:
            rep = check_within(cert, time_limit, full, on_step=arrived, in_child=True)
        else:
            rep, upgraded = upgrade_within(cert, time_limit, on_step=arrived, in_child=True)
    _print_report(rep, cert, as_json, shown)
    if upgrade is not None:
        drat = json.dumps(cert).count(_DRAT_KEY)
        _write_upgraded(
            upgrade, upgraded if rep.status is CheckStatus.HOLDS else None, as_json, drat
        )
    raise typer.Exit(CHECK_EXIT[rep.status])


def _print_report(rep: Any, cert: dict[str, Any], as_json: bool, shown: int) -> None:
    """The check's steps (those not yet ``shown`` as they were decided) and its verdict; with
    ``as_json``, the whole report as one JSON object."""
    from gossipcert.certificates.certificate import STEPS_FORMAT

    if as_json:
        print_json(
            {
                "ok": rep.ok,
                "status": rep.status,
                "optimum": cert.get("optimum"),
                "steps": [
                    {
                        "ok": rep.step_status(i) is CheckStatus.HOLDS,
                        "status": rep.step_status(i),
                        "check": text,
                    }
                    for i, (_, text) in enumerate(rep.steps)
                ],
            }
        )
    else:
        for i, (_, text) in enumerate(rep.steps[shown:], start=shown):
            console.print(f"{CHECK_MARK[rep.step_status(i)]} {esc(text)}", highlight=False)
        verdict = {
            CheckStatus.HOLDS: "[bold green]certificate holds[/]",
            CheckStatus.FAILS: "[bold red]certificate FAILS[/]",
            CheckStatus.TIMEOUT: "[bold yellow]could not re-check in time[/] (no verdict)",
            CheckStatus.UNPROVED: "[bold yellow]certificate NOT proved[/] (its lower bound is the "
            "solver's word, re-solved; no proof is stored)",
        }[rep.status]
        # a steps certificate's claim was compared with its points; a round certificate is
        # named by its optimum (a stray claim there is a failed step, not a headline)
        steps = cert.get("format") == STEPS_FORMAT
        claim = cert.get("claim") if steps else f"optimum {cert.get('optimum')}"
        console.print(f"{verdict}: {esc(str(claim))}", highlight=False)


def _write_upgraded(output: str, cert: dict[str, Any] | None, as_json: bool, drat: int) -> None:
    """``check --upgrade``: the upgraded certificate written (its input held ``drat`` DRAT
    proofs), or why not."""
    from gossipcert.store import certificate_text

    if cert is None:
        err_console.print(f"{esc(output)} not written: the certificate does not hold")
        return
    text = certificate_text(cert)
    _write_text(output, text)
    kept = text.count(_DRAT_KEY)
    what = f"{drat - kept} DRAT proof(s) replaced by LRAT proofs"
    if kept:
        what += f", {kept} kept (no LRAT proof in time)"
    if not drat:
        what = "no DRAT proof to replace: a copy"
    if not as_json:
        console.print(f"upgraded certificate written to {esc(output)} ({what})", highlight=False)


def _check_all(folder: str, time_limit: float | None, as_json: bool, full: bool) -> None:
    """``check --all``: every certificate in ``folder``; exit 0 all hold, 1 one fails,
    3 none fails but one could not be decided in time, 4 the others hold but one rests on
    a solver's word."""
    from pathlib import Path

    from gossipcert.certificates.certificate import read_certificate
    from gossipcert.watchdog import check_within

    root = Path(folder)
    if not root.is_dir():
        raise GossipcertError(f"{folder} is not a folder")
    files = sorted(set(root.glob("*.cert.json")) | set(root.glob("*-cert.json")))
    if not files:
        raise GossipcertError(f"no certificates (*.cert.json, *-cert.json) in {folder}")
    results = []
    for f in files:
        try:
            rep = check_within(read_certificate(f), time_limit, full, in_child=True)
            status = rep.status
            first = next(
                (t for i, (_, t) in enumerate(rep.steps) if rep.step_status(i) == status), ""
            )
            if status is CheckStatus.HOLDS:
                first = ""
            if status is CheckStatus.UNPROVED:
                first = "its lower bound is a solver's word (no proof stored): " + first
        except GossipcertError as exc:
            status, first = CheckStatus.FAILS, str(exc)
        results.append({"certificate": str(f), "status": status, "first_problem": first})
        if not as_json:
            extra = f": {esc(first)}" if status is not CheckStatus.HOLDS else ""
            console.print(f"{CHECK_MARK[status]} {esc(f.name)}{extra}", highlight=False)
    counts = {k: sum(r["status"] == k for r in results) for k in CHECK_EXIT}
    if as_json:
        print_json({"counts": counts, "certificates": results})
    else:
        console.print(
            f"{len(results)} certificates: {counts[CheckStatus.HOLDS]} hold, "
            f"{counts[CheckStatus.FAILS]} fail, {counts[CheckStatus.TIMEOUT]} undecided in "
            f"time, {counts[CheckStatus.UNPROVED]} on a solver's word",
            highlight=False,
        )
    order = (CheckStatus.FAILS, CheckStatus.TIMEOUT, CheckStatus.UNPROVED)
    worst = next((k for k in order if counts[k]), CheckStatus.HOLDS)
    raise typer.Exit(CHECK_EXIT[worst])
