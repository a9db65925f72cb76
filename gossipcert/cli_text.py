"""What the ``gossipcert`` command prints: consoles, verdicts, schedules, progress lines.

Both consoles print user text as is: no console markup and no emoji codes are interpreted
(a node called ``smile`` stays ``smile``); text built here escapes every user-supplied part.
"""

from __future__ import annotations

import json
import sys
import time
from typing import Any

from rich.console import Console
from rich.markup import escape as esc
from rich.table import Table

from gossipcert.statuses import QueryStatus, SolveStatus

console = Console(soft_wrap=True, emoji=False, highlight=False)
err_console = Console(stderr=True, soft_wrap=True, emoji=False, highlight=False)


def rounds_text(count: int | None) -> str:
    """``1 round``, ``3 rounds``."""
    return f"{count} round" if count == 1 else f"{count} rounds"


def print_json(data: Any) -> None:
    """Print ``data`` as indented JSON on standard output."""
    sys.stdout.write(json.dumps(data, indent=2, default=str) + "\n")


def head(instance: Any) -> str:
    """``graph · model · problem``, escaped for rich."""
    return esc(
        f"{instance.describe()['graph']} · {instance.model.spec()} · {instance.problem.spec()}"
    )


def print_verdict(rep: Any, instance: Any) -> None:
    """Print a verifier report: the violations (first 50), unmet demands and the verdict."""
    from gossipcert import graphs

    ref = lambda v: graphs.node_ref(instance.graph, v)  # noqa: E731
    for err in rep.errors[:50]:
        console.print(f"[red]✗[/] {esc(err.message)}", highlight=False)
    if len(rep.errors) > 50:
        console.print(f"... and {len(rep.errors) - 50} more violations")
    if rep.missing:
        for line in rep.incomplete(instance, 5):
            console.print(f"[yellow]incomplete:[/] {esc(line)}", highlight=False)
        if len(rep.missing) > 5:
            console.print(f"... and {len(rep.missing) - 5} more missing contributions")
    elif rep.unmet:
        sample = ", ".join(f"{ref(v)} lacks {instance.packet_names[p]!r}" for v, p in rep.unmet[:5])
        console.print(
            f"[yellow]unmet demands after round {rep.length}:[/] {len(rep.unmet)} "
            f"({esc(sample)}{', ...' if len(rep.unmet) > 5 else ''})",
            highlight=False,
        )
    count = len(rep.errors)
    verdict = "valid" if rep.valid else f"INVALID ({count} violation{'' if count == 1 else 's'})"
    done = (
        f"all demands met after round {rep.rounds}"
        if rep.rounds is not None
        else "demands not all met"
    )
    # S = sum over rounds of the most packets one node sends (the linear-cost step count of
    # Beier and Sibeyn), T = R + tau * h * S under linear cost
    extra = f", S = {rep.steps} linear-cost steps" + (
        f", T = {rep.cost:g}" if rep.cost is not None else ""
    )
    console.print(
        f"{head(instance)}: {verdict}; {rounds_text(rep.length)}; {done}{extra}",
        highlight=False,
    )


def show_schedule(sched: Any, instance: Any) -> None:
    """Print a schedule as a table: one row per round, its transmissions in the second column."""
    from gossipcert import graphs

    ref = lambda v: graphs.node_ref(instance.graph, v)  # noqa: E731
    from gossipcert.instance import bits
    from gossipcert.schedule import json_name

    table = Table(title=f"schedule ({rounds_text(len(sched))})", show_lines=False)
    table.add_column("round", justify="right")
    table.add_column(
        "transmissions (sender -> receivers: packets; => combines the partial results)"
        if instance.problem.reduction
        else "transmissions (sender -> receivers: packets)"
    )
    for t, rnd in enumerate(sched.rounds[: len(sched)], start=1):
        parts = []
        for tr in rnd:
            packets = (
                "all"
                if tr.packets is None
                else " ".join(
                    json.dumps(json_name(instance.packet_names[i])) for i in bits(tr.packets)
                )
            )
            to = ",".join(str(ref(r)) for r in tr.receivers)
            arrow = "=>" if tr.op == "reduce" else "->"  # => combines into the receiver's
            parts.append(f"{ref(tr.sender)}{arrow}{to}: {packets}")
        table.add_row(str(t), esc("; ".join(parts) or "-"))
    console.print(table)


#: seconds between two heartbeat lines on stderr during a solver query
HEARTBEAT_SECONDS = 3.0


class Progress:
    """Progress lines on stderr, and the best bounds seen so far (for an interrupted run)."""

    def __init__(self, enabled: bool) -> None:
        self.enabled = enabled
        self.lower: int | None = None
        self.upper: int | None = None
        self.last_line = time.monotonic()

    def _print(self, text: str) -> None:
        self.last_line = time.monotonic()
        if self.enabled:
            err_console.print(text)

    def __call__(self, event: dict[str, Any]) -> None:
        kind = event["event"]
        t = f"[dim]{event['time']:8.2f}s[/]"
        if kind == "lower-bound":
            self.lower = event["value"]
        elif kind == "upper-bound":
            self.upper = event["value"]
        if kind == "heartbeat":
            if time.monotonic() - self.last_line >= HEARTBEAT_SECONDS:
                doing = event.get("what") or f"deciding {rounds_text(event['rounds'])}"
                self._print(
                    f"{t}  {esc(doing)}; bounds so far [{event['lower']}, {event['upper']}]"
                )
        elif kind == "query":
            colour = {QueryStatus.SAT: "green", QueryStatus.UNSAT: "red"}.get(
                event["status"], "yellow"
            )
            how = f", {esc(str(event['method']))}" if "method" in event else ""
            self._print(
                f"{t}  {rounds_text(event['rounds'])}: [{colour}]{event['status']}[/] "
                f"({event['seconds']:.2f}s{how})"
            )
        elif kind == "trying":
            self._print(f"{t}  trying {rounds_text(event['rounds'])}: {esc(event['what'])}")
        elif kind == "stage":
            self._print(f"{t}  {esc(event['what'])}")
        elif kind in ("lower-bound", "upper-bound"):
            self._print(f"{t}  {kind} {event['value']} ({esc(str(event['source']))})")
        elif kind == "proof":
            self._print(
                f"{t}  proof for {rounds_text(event['rounds'])}: {event['status']} "
                f"({event['seconds']:.2f}s)"
            )
        elif kind == "proof-check":
            self._print(f"{t}  proof check: {esc(event['summary'])}")
        elif kind == "symmetric":
            took = f" ({event['seconds']:.2f}s)" if "seconds" in event else ""
            self._print(
                f"{t}  schedules invariant under H=<{esc(str(event['group']))}>, "
                f"{rounds_text(event['rounds'])}: {event['status']}{took}"
            )
        elif kind == "symmetry":
            self._print(f"{t}  symmetry breaking: {event['generators']} generators")
        elif kind == "split":
            self._print(
                f"{t}  {rounds_text(event['rounds'])} split into {event['cubes']} cubes "
                f"(cover: {event['coverage']}; {event['stored']} refuted before)"
            )
        elif kind == "cube":
            self._print(
                f"{t}  cube {event['refuted']}/{event['cubes']} refuted "
                f"({event['seconds']:.1f}s): {esc(event['cube'])}"
            )


def print_solve_result(res: Any, evidence: dict[str, Any], show: bool) -> None:
    """The human-readable outcome of solve."""
    title = head(res.instance)
    if show and res.schedule is not None:
        show_schedule(res.schedule, res.instance)
    if res.status is SolveStatus.OPTIMAL and not res.certified:
        console.print(
            f"{title}: [bold yellow]optimum {rounds_text(res.optimum)}, not certified[/] "
            f"(the lower bound is the solver's word)"
        )
    elif res.status is SolveStatus.OPTIMAL:
        console.print(f"{title}: [bold green]optimum {rounds_text(res.optimum)}[/]")
    else:
        high = res.upper_bound if res.upper_bound is not None else "?"
        console.print(
            f"{title}: [bold yellow]{res.status}[/], between {res.lower_bound} and {high} rounds"
        )
    if res.schedule is not None:
        console.print(
            f"  upper bound: schedule of {rounds_text(res.upper_bound)} from "
            f"{esc(res.upper_source)}, verified"
        )
    else:
        # the gather-spread fallback applies to every instance: no schedule means no time
        console.print(
            "  upper bound: none yet — the time ran out before the first schedule (a "
            "construction, a heuristic or the gather-spread fallback) was built and verified"
        )
    console.print(f"  lower bound: {esc(evidence_text(evidence))}")
    no_solver = [e for e in res.log if e.get("event") == "no-solver"]
    if no_solver and res.status is not SolveStatus.OPTIMAL:
        console.print(
            f"  not certified: no solver encoding covers this model "
            f"({esc(str(no_solver[0]['reason']))}), and the closed-form bounds do not meet"
        )
    if res.timed_out:
        console.print(
            f"  time limit reached after {res.times.get('total', 0.0):.1f}s: "
            + (
                "the optimum is not proved"
                if res.status is not SolveStatus.OPTIMAL
                else "proof not finished"
            )
        )
    if res.interrupted:
        console.print(
            "  interrupted (Ctrl-C, SIGINT or SIGTERM): these are the bounds known at that moment"
        )


def _proof_name(ev: dict[str, Any]) -> str:
    """ "DRAT proof of N lines", or "LRAT proof of N lines (trimmed from M)"."""
    if ev.get("proof_format") == "lrat":
        return f"LRAT proof of {ev['proof_lines']} lines (trimmed from {ev.get('untrimmed_lines')})"
    return f"DRAT proof of {ev['proof_lines']} lines"


def _proof_text(ev: dict[str, Any]) -> str:
    """ "a DRAT proof of N lines for a CNF of V variables and C clauses, checked by ..."."""
    return (
        f"{'an' if ev.get('proof_format') == 'lrat' else 'a'} {_proof_name(ev)} for a CNF of "
        f"{ev['variables']} variables "
        f"and {ev['clauses']} clauses, checked by "
        + ", ".join(f"{c['checker']} ({c['status']})" for c in ev.get("checkers", []))
    )


def evidence_text(ev: dict[str, Any]) -> str:
    """One line that says how a lower bound is known."""
    kind = ev.get("kind")
    if kind == "closed-form":
        source = f" ({ev['source']})" if ev.get("source") else ""
        return f"{ev['value']} from the closed-form bound '{ev['name']}'{source}"
    if kind == "drat":
        return (
            f"{rounds_text(ev['rounds'])} infeasible: {_proof_name(ev)} "
            f"for a CNF of {ev['variables']} variables and {ev['clauses']} clauses, checked by "
            + ", ".join(f"{c['checker']} ({c['status']})" for c in ev.get("checkers", []))
        )
    if kind == "solver-claim":
        return f"{rounds_text(ev['rounds'])} infeasible by the word of {ev['solver']} (no proof)"
    if kind == "drat-cubes":
        cubes = ev.get("cubes", [])
        cover = ev.get("coverage", {}).get("kind")
        return (
            f"{rounds_text(ev['rounds'])} infeasible: split into {len(cubes)} cubes, each with "
            f"a checked DRAT proof ({sum(c.get('proof_lines', 0) for c in cubes)} lines in all), "
            f"for a CNF of {ev['variables']} variables and {ev['clauses']} clauses; cover: "
            + (
                "the automorphism orbits (re-checked by gossipcert check)"
                if cover == "orbits"
                else "a checked DRAT proof that every model lies in a cube"
            )
        )
    if kind == "drat-relaxed":
        return (
            f"{rounds_text(ev['rounds'])} infeasible: the {ev['method']} keeping packets "
            f"{ev['rows']} and destinations {ev['columns']} is refuted by {_proof_text(ev)}"
        )
    if kind == "reversal":
        return (
            f"that of the dual {ev['dual_problem']} (time reversal, same optimum): "
            + evidence_text(ev.get("dual", {}))
        )
    if kind == "allreduce-bracket":
        bounds = ", ".join(f"{k} {v}" for k, v in ev.get("bounds", {}).items() if v is not None)
        sub = f": {evidence_text(ev['sub'])}" if isinstance(ev.get("sub"), dict) else ""
        return f"{ev['value']} from the allreduce bound '{ev['source']}' ({bounds}){sub}"
    if kind == "allreduce-drat":
        what = " (even with unions only)" if ev.get("formula") == "union" else ""
        return f"{rounds_text(ev['rounds'])} infeasible for allreduce{what}: {_proof_text(ev)}"
    if kind == "allreduce-packing":
        return (
            f"{rounds_text(ev['rounds'])} infeasible for allreduce: {ev['chunks']} "
            f"interchangeable chunks weigh at least {ev['chunks']} x {ev['least_weight']} on "
            f"weighted port slots that carry {ev['total']} (the chunk-packing bound), by "
            f"{_proof_text(ev)}"
        )
    if kind == "drat-packet":
        return (
            f"{rounds_text(ev['rounds'])} infeasible: packet {ev['packet']} alone cannot be "
            f"broadcast from nodes {ev['holders']} in them, by {_proof_text(ev)}"
        )
    return str(ev)
