"""The ``gossipcert`` command.

Every command takes ``--json`` for machine-readable output. Exit status: 0 success, 1 a
negative verdict (an invalid or incomplete schedule, a failed check), 2 bad input (one line on
standard error, never a traceback).
"""

from __future__ import annotations

import functools
import json
import sys
from collections.abc import Callable
from typing import Annotated, Any, TypeVar

import typer
from rich.console import Console
from rich.markup import escape as esc
from rich.table import Table

from gossipcert import graphs
from gossipcert.errors import GossipcertError
from gossipcert.instance import parse_instance
from gossipcert.schedule import read_schedule
from gossipcert.simulate import simulate

app = typer.Typer(
    name="gossipcert",
    help=(
        "Certified minimum numbers of rounds for gossip, broadcast, scatter, gather and total "
        "exchange under the telephone, half-duplex, single-port, multicast and all-port models.\n\n"
        "GRAPH is a spec such as ring:8, hypercube:4, mesh:3x4, ccc:3, butterfly:3, "
        "shuffle-exchange:4, debruijn:4, knodel:8, star-graph:4, pancake:4, fattree:8[:exp], "
        "random:N,M,seed=S, a product ring:3*path:2, or a file (.edgelist, .graphml, .g6, .json)."
    ),
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
console = Console(soft_wrap=True)
err_console = Console(stderr=True, soft_wrap=True)

F = TypeVar("F", bound=Callable[..., Any])

MODEL_HELP = (
    "Communication model: telephone, telephone:p=2, sequential:p=2, half-duplex[:p=N], "
    "single-port[:p=N] (p=1 default), multicast[:p=N], all-port[:c=N]; options calls=N, "
    "tau=X, h=N."
)
PROBLEM_HELP = (
    "Problem: gossip, broadcast:S, scatter:S, gather:R, total-exchange, or a JSON file "
    '{"packets": [...], "holdings": {node: [...]}, "demands": {node: [...]}}.'
)
JsonOpt = Annotated[bool, typer.Option("--json", help="Print machine-readable JSON.")]
ModelOpt = Annotated[str, typer.Option("--model", "-m", help=MODEL_HELP)]
ProblemOpt = Annotated[str, typer.Option("--problem", "-p", help=PROBLEM_HELP)]
ForceOpt = Annotated[bool, typer.Option("--force", help="Overwrite --output if it exists.")]
ScheduleOutOpt = Annotated[
    str | None, typer.Option("--output", "-o", help="Write the schedule (JSON or .csv).")
]
CountingOpt = Annotated[
    bool, typer.Option("--counting", help="Add the implied counting constraints to the encoding.")
]


def _bad_input(func: F) -> F:
    """Turn every GossipcertError into one line on stderr and exit status 2."""

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return func(*args, **kwargs)
        except GossipcertError as exc:
            err_console.print(f"[bold red]error:[/] {esc(str(exc))}", highlight=False)
            raise typer.Exit(2) from None
        except KeyboardInterrupt:
            err_console.print("interrupted")
            raise typer.Exit(130) from None

    return wrapper  # type: ignore[return-value]


def _check_output(output: str | None, force: bool = False) -> None:
    """Refuse to overwrite a user's file, and fail early on a path that cannot be written."""
    from pathlib import Path

    if not output:
        return
    path = Path(output)
    if path.exists() and not force:
        raise GossipcertError(f"{output} exists; choose another name or pass --force")
    if not path.parent.is_dir():
        raise GossipcertError(f"cannot write {output}: folder {path.parent} does not exist")


def _write_text(output: str, text: str) -> None:
    from pathlib import Path

    try:
        Path(output).write_text(text)
    except OSError as exc:
        raise GossipcertError(f"cannot write {output}: {exc.strerror or exc}") from None


def _print_json(data: Any) -> None:
    sys.stdout.write(json.dumps(data, indent=2, default=str) + "\n")


@app.command("graph")
@_bad_input
def graph_cmd(
    graph: Annotated[str, typer.Argument(help="Graph spec or file.")],
    as_json: JsonOpt = False,
) -> None:
    """Describe a graph: nodes, edges, degrees, diameter, radius, processors and routers."""
    g = graphs.from_spec(graph)
    info = graphs.describe(g)
    if as_json:
        _print_json(info)
        return
    table = Table(title=esc(str(info.get("spec", graph))), show_header=False)
    for key, value in info.items():
        if key != "spec":
            table.add_row(key, f"{value:.3f}" if isinstance(value, float) else str(value))
    console.print(table)


@app.command("verify")
@_bad_input
def verify_cmd(
    graph: Annotated[str, typer.Argument(help="Graph spec or file.")],
    schedule: Annotated[str, typer.Argument(help="Schedule file (.json or .csv).")],
    model: ModelOpt = "telephone",
    problem: ProblemOpt = "gossip",
    as_json: JsonOpt = False,
) -> None:
    """Replay a schedule and report every rule it breaks and when all demands are met.

    Exit 0 when the schedule is valid and complete, 1 when it is invalid or incomplete,
    2 on bad input (including a schedule that names an edge the graph does not have).
    """
    instance = parse_instance(graph, model, problem)
    sched = read_schedule(schedule, instance)
    rep = simulate(instance, sched)
    non_edges = [e for e in rep.errors if e.rule == "not-a-neighbour"]
    if as_json:
        _print_json({**instance.describe(), **rep.to_json(instance)})
    else:
        _print_verdict(rep, instance)
    if non_edges:
        err_console.print(
            f"[bold red]error:[/] the schedule uses {len(non_edges)} arc(s) the graph does not "
            f"have; first: {esc(non_edges[0].message)}",
            highlight=False,
            soft_wrap=True,
        )
        raise typer.Exit(2)
    raise typer.Exit(0 if rep.ok else 1)


def _head(instance: Any) -> str:
    """``graph · model · problem``, escaped for rich."""
    return esc(
        f"{instance.describe()['graph']} · {instance.model.spec()} · {instance.problem.spec()}"
    )


def _print_verdict(rep: Any, instance: Any) -> None:
    ref = lambda v: graphs.node_ref(instance.graph, v)  # noqa: E731
    for err in rep.errors[:50]:
        console.print(f"[red]✗[/] {esc(err.message)}", highlight=False)
    if len(rep.errors) > 50:
        console.print(f"... and {len(rep.errors) - 50} more violations")
    if rep.unmet:
        sample = ", ".join(f"{ref(v)} lacks {instance.packet_names[p]!r}" for v, p in rep.unmet[:5])
        console.print(
            f"[yellow]unmet demands after round {rep.length}:[/] {len(rep.unmet)} "
            f"({esc(sample)}{', ...' if len(rep.unmet) > 5 else ''})",
            highlight=False,
        )
    verdict = "valid" if rep.valid else f"INVALID ({len(rep.errors)} violations)"
    done = (
        f"all demands met after round {rep.rounds}"
        if rep.rounds is not None
        else "demands not all met"
    )
    extra = f", S = {rep.steps}" + (f", T = {rep.cost:g}" if rep.cost is not None else "")
    console.print(
        f"{_head(instance)}: {verdict}; {rep.length} rounds; {done}{extra}",
        highlight=False,
    )


BackendOpt = Annotated[
    str, typer.Option("--backend", "-b", help="Solver back-end: sat (CaDiCaL) or cpsat (OR-Tools).")
]


def _progress_printer(enabled: bool) -> Any:
    def show(event: dict[str, Any]) -> None:
        if not enabled:
            return
        kind = event["event"]
        t = f"[dim]{event['time']:8.2f}s[/]"
        if kind == "query":
            colour = {"sat": "green", "unsat": "red"}.get(event["status"], "yellow")
            err_console.print(
                f"{t}  {event['rounds']} rounds: [{colour}]{event['status']}[/] "
                f"({event['seconds']:.2f}s)",
                highlight=False,
            )
        elif kind in ("lower-bound", "upper-bound"):
            err_console.print(f"{t}  {kind} {event['value']} ({event['source']})", highlight=False)
        elif kind == "proof":
            err_console.print(
                f"{t}  DRAT proof for {event['rounds']} rounds: {event['status']} "
                f"({event['seconds']:.2f}s)",
                highlight=False,
            )
        elif kind == "proof-check":
            err_console.print(
                f"{t}  proof check: {'verified' if event['ok'] else 'REJECTED'} "
                f"({event['seconds']:.2f}s)",
                highlight=False,
            )
        elif kind == "symmetry":
            err_console.print(
                f"{t}  symmetry breaking: {event['generators']} generators", highlight=False
            )

    return show


@app.command("solve")
@_bad_input
def solve_cmd(
    graph: Annotated[str, typer.Argument(help="Graph spec or file.")],
    model: ModelOpt = "telephone",
    problem: ProblemOpt = "gossip",
    backend: BackendOpt = "sat",
    time_limit: Annotated[
        float | None, typer.Option("--time-limit", "-t", help="Seconds for search and proof.")
    ] = None,
    strict: Annotated[
        bool,
        typer.Option(
            "--strict",
            help="No symmetry breaking or dominance: the DRAT proof then covers the whole claim.",
        ),
    ] = False,
    counting: CountingOpt = False,
    proof: Annotated[
        bool,
        typer.Option(
            "--proof/--no-proof", help="Re-prove R*-1 infeasible with a checked DRAT proof."
        ),
    ] = True,
    output: Annotated[
        str | None, typer.Option("--output", "-o", help="Write the certificate (JSON) here.")
    ] = None,
    force: ForceOpt = False,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress lines.")] = False,
    objective: Annotated[
        str,
        typer.Option(
            "--objective",
            help="rounds (default); steps: least S for each R up to --max-rounds (the Pareto "
            "front of linear cost); cost: least T = R + tau*h*S.",
        ),
    ] = "rounds",
    max_rounds: Annotated[
        int | None, typer.Option("--max-rounds", help="Largest R of the front (steps, cost).")
    ] = None,
    tau: Annotated[
        float | None, typer.Option("--tau", help="Linear cost: time per packet and hop.")
    ] = None,
    h: Annotated[int | None, typer.Option("--h", help="Linear cost: hops per link.")] = None,
    as_json: JsonOpt = False,
) -> None:
    """Find the minimum number of rounds and prove that one round fewer is impossible.

    Prints the optimum with its lower-bound evidence (a closed-form bound, or a checked DRAT
    proof), or, when the time limit runs out, the best bounds known. Exit 0 when the optimum
    is certified, 1 when it is not (time-out), 2 on bad input.

    Example: gossipcert solve petersen --model telephone --problem gossip -o petersen.json
    """

    from gossipcert.exact.certificate import build_certificate, certificate_text
    from gossipcert.exact.search import solve
    from gossipcert.schedule import to_json

    _check_output(output, force)
    instance = parse_instance(graph, model, problem)
    if objective != "rounds":
        _solve_cost(instance, objective, max_rounds, tau, h, backend, time_limit, strict, as_json)
    res = solve(
        instance,
        backend=backend,
        time_limit=time_limit,
        strict=strict,
        counting=counting,
        proof=proof,
        progress=_progress_printer(not quiet),
    )
    evidence = {k: v for k, v in res.evidence.items() if k != "proof_xz_base64"}
    if output and res.status == "optimal":
        _write_text(output, certificate_text(build_certificate(res)))
    if as_json:
        _print_json(
            {
                **instance.describe(),
                "status": res.status,
                "optimum": res.optimum,
                "lower_bound": res.lower_bound,
                "upper_bound": res.upper_bound,
                "schedule": to_json(res.schedule, instance) if res.schedule else None,
                "schedule_source": res.upper_source,
                "evidence": evidence,
                "backend": res.backend,
                "times": {k: round(v, 3) for k, v in res.times.items()},
                "certificate": output if output and res.status == "optimal" else None,
            }
        )
    else:
        head = _head(instance)
        if res.status == "optimal":
            console.print(f"{head}: [bold green]optimum {res.optimum} rounds[/]", highlight=False)
        else:
            console.print(
                f"{head}: [bold yellow]{res.status}[/], between {res.lower_bound} and "
                f"{res.upper_bound if res.upper_bound is not None else '?'} rounds",
                highlight=False,
            )
        console.print(
            f"  upper bound: schedule of {res.upper_bound} rounds from "
            f"{res.upper_source}, verified",
            highlight=False,
        )
        console.print(f"  lower bound: {esc(_evidence_text(evidence))}", highlight=False)
        if output and res.status == "optimal":
            console.print(
                f"  certificate: {esc(output)} (re-check with: gossipcert check {esc(output)})",
                highlight=False,
            )
    raise typer.Exit(0 if res.status == "optimal" else 1)


def _solve_cost(
    instance: Any,
    objective: str,
    max_rounds: int | None,
    tau: float | None,
    h: int | None,
    backend: str,
    time_limit: float | None,
    strict: bool,
    as_json: bool,
) -> None:
    """``solve --objective steps|cost``: the Pareto front of ``(R, S)`` and the least cost."""
    from gossipcert.exact.cost import pareto_front

    if objective not in ("steps", "cost"):
        raise GossipcertError(f"unknown objective {objective!r}; choose rounds, steps or cost")
    if max_rounds is None:
        raise GossipcertError(f"--objective {objective} needs --max-rounds")
    tau = instance.model.tau if tau is None else tau
    h = instance.model.h if h is None else h
    if objective == "cost" and tau is None:
        raise GossipcertError("--objective cost needs --tau (or tau=X in the model spec)")
    if (tau is not None and tau < 0) or h < 1:
        raise GossipcertError("--tau must be non-negative and --h at least 1")
    res = pareto_front(instance, max_rounds, time_limit, strict, backend)
    data = res.to_json(tau, h)
    if as_json:
        _print_json({**instance.describe(), "objective": objective, **data})
    else:
        console.print(
            f"{_head(instance)}: round optimum {res.round_result.optimum} "
            f"({res.round_result.status}); least steps S for each R "
            f"({'all proved' if res.proved else 'not all proved'}):",
            highlight=False,
        )
        table = Table("R", "S", "proved", "Pareto")
        for p in data["points"]:
            table.add_row(
                str(p["rounds"]),
                "-" if p["steps"] is None else str(p["steps"]),
                "yes" if p["proved"] else "no",
                "*" if p["pareto"] else "",
            )
        console.print(table)
        if tau is not None:
            console.print(
                f"least T = R + {tau:g}*{h}*S over R <= {max_rounds}: {data['min_cost']} "
                f"(R = {data['min_cost_rounds']})",
                highlight=False,
            )
    raise typer.Exit(0 if res.proved else 1)


def _evidence_text(ev: dict[str, Any]) -> str:
    kind = ev.get("kind")
    if kind == "closed-form":
        return f"{ev['value']} from the closed-form bound '{ev['name']}' ({ev['source']})"
    if kind == "drat":
        return (
            f"{ev['rounds']} rounds infeasible: DRAT proof of {ev['proof_lines']} lines "
            f"for a CNF of {ev['variables']} variables and {ev['clauses']} clauses, "
            f"{ev['verdict']} by {ev['checker']}"
        )
    if kind == "solver-claim":
        return f"{ev['rounds']} rounds infeasible by the word of {ev['solver']} (no proof)"
    return str(ev)


@app.command("check")
@_bad_input
def check_cmd(
    certificate: Annotated[str, typer.Argument(help="Certificate written by solve -o.")],
    time_limit: Annotated[
        float | None, typer.Option("--time-limit", "-t", help="Seconds for re-solving a claim.")
    ] = None,
    as_json: JsonOpt = False,
) -> None:
    """Re-check a certificate from scratch: rebuild the instance, replay the schedule,
    recompute the bound or regenerate the CNF and re-check the DRAT proof.

    Exit 0 when every step holds, 1 on any mismatch, 2 when the file cannot be read.
    """
    from gossipcert.exact.certificate import check_certificate, read_certificate

    cert = read_certificate(certificate)
    rep = check_certificate(cert, time_limit)
    if as_json:
        _print_json(
            {
                "ok": rep.ok,
                "optimum": cert.get("optimum"),
                "steps": [{"ok": ok, "check": text} for ok, text in rep.steps],
            }
        )
    else:
        for ok, text in rep.steps:
            console.print(f"{'[green]✓[/]' if ok else '[red]✗[/]'} {esc(text)}", highlight=False)
        verdict = "[bold green]certificate holds[/]" if rep.ok else "[bold red]certificate FAILS[/]"
        console.print(f"{verdict}: optimum {cert.get('optimum')}", highlight=False)
    raise typer.Exit(0 if rep.ok else 1)


@app.command("export")
@_bad_input
def export_cmd(
    graph: Annotated[str, typer.Argument(help="Graph spec or file.")],
    rounds: Annotated[int, typer.Option("--rounds", "-r", help="Horizon R.", min=0)],
    model: ModelOpt = "telephone",
    problem: ProblemOpt = "gossip",
    fmt: Annotated[str, typer.Option("--format", "-f", help="dimacs or opb.")] = "dimacs",
    strict: Annotated[bool, typer.Option("--strict", help="Plain encoding only.")] = False,
    counting: CountingOpt = False,
    output: Annotated[
        str | None, typer.Option("--output", "-o", help="File to write (default: stdout).")
    ] = None,
    force: ForceOpt = False,
) -> None:
    """Write the formula "R rounds suffice" (DIMACS CNF or OPB) for any external solver."""

    from gossipcert.encodings import EncodingOptions
    from gossipcert.exact.export import FORMATS, export

    if fmt not in FORMATS:
        raise GossipcertError(f"unknown format {fmt!r}; choose one of {', '.join(FORMATS)}")
    _check_output(output, force)
    instance = parse_instance(graph, model, problem)
    options = EncodingOptions.for_search(strict=strict, counting=counting)
    text = export(instance, rounds, fmt, options)
    if output:
        _write_text(output, text)
    else:
        sys.stdout.write(text)


@app.command("bounds")
@_bad_input
def bounds_cmd(
    graph: Annotated[str, typer.Argument(help="Graph spec or file.")],
    model: ModelOpt = "telephone",
    problem: ProblemOpt = "gossip",
    as_json: JsonOpt = False,
) -> None:
    """List every closed-form bound that applies, its value and its source; mark the best."""
    from gossipcert.bounds import all_bounds

    instance = parse_instance(graph, model, problem)
    found = all_bounds(instance)
    lows = [b for b in found if b.kind == "lower"]
    ups = [b for b in found if b.kind == "upper"]
    lower = max(lows, key=lambda b: b.value) if lows else None
    upper = min(ups, key=lambda b: b.value) if ups else None
    if as_json:
        _print_json(
            {
                **instance.describe(),
                "lower_bound": lower.value if lower else None,
                "upper_bound": upper.value if upper else None,
                "bounds": [{**b.to_json(), "best": b is lower or b is upper} for b in found],
            }
        )
        return
    table = Table(title=_head(instance))
    for col in ("", "kind", "value", "name", "source"):
        table.add_column(col)
    for b in found:
        table.add_row(
            "★" if b is lower or b is upper else "", b.kind, str(b.value), b.name, esc(b.source)
        )
    console.print(table)


def _print_schedule_result(
    name: str, instance: Any, sched: Any, as_json: bool, output: str | None
) -> None:
    """Verify a constructed schedule, print it, and write it to ``output`` only if it passes;
    exit 1 if the verifier rejects it."""
    from gossipcert.schedule import to_csv, to_json

    rep = simulate(instance, sched)
    if output and rep.ok:
        text = (
            to_csv(sched, instance)
            if output.lower().endswith(".csv")
            else (json.dumps(to_json(sched, instance)) + "\n")
        )
        _write_text(output, text)
    if as_json:
        _print_json(
            {
                **instance.describe(),
                "algorithm": name,
                "rounds": rep.rounds,
                "valid": rep.valid,
                "complete": rep.complete,
                "steps": rep.steps,
                "errors": [e.to_json() for e in rep.errors[:20]],
                "schedule": to_json(sched, instance),
            }
        )
    else:
        _print_verdict(rep, instance)
    raise typer.Exit(0 if rep.ok else 1)


@app.command("construct")
@_bad_input
def construct_cmd(
    graph: Annotated[str, typer.Argument(help="Graph spec or file.")],
    algorithm: Annotated[
        str,
        typer.Option(
            "--algorithm",
            "-a",
            help="ring-fd, ring-hd, ring-multicast, hamiltonian, product, simple, "
            "concurrent-updown, fattree-flood, farthest-first, fattree-total-exchange, bermond, "
            "rows-columns, matching-sequence.",
        ),
    ],
    model: ModelOpt = "telephone",
    problem: ProblemOpt = "gossip",
    sequence: Annotated[
        str | None,
        typer.Option("--sequence", help="Matching indices for matching-sequence, e.g. 02102."),
    ] = None,
    output: ScheduleOutOpt = None,
    force: ForceOpt = False,
    as_json: JsonOpt = False,
) -> None:
    """Build one of the papers' constructive schedules and verify it.

    Exit 0 when the schedule is valid and complete, 1 when the verifier rejects it, 2 when
    the construction does not apply to the graph, model or problem.
    """
    from gossipcert.constructions.catalog import construct

    instance = parse_instance(graph, model, problem)
    _check_output(output, force)
    sched = construct(instance, algorithm, sequence)
    _print_schedule_result(algorithm, instance, sched, as_json, output)


@app.command("heuristic")
@_bad_input
def heuristic_cmd(
    graph: Annotated[str, typer.Argument(help="Graph spec or file.")],
    model: ModelOpt = "telephone",
    problem: ProblemOpt = "gossip",
    output: ScheduleOutOpt = None,
    force: ForceOpt = False,
    as_json: JsonOpt = False,
) -> None:
    """Run the matching heuristic (telephone, half-duplex) and verify its schedule."""
    from gossipcert.heuristics.matching import matching_heuristic

    instance = parse_instance(graph, model, problem)
    _check_output(output, force)
    sched = matching_heuristic(instance)
    _print_schedule_result("matching", instance, sched, as_json, output)


def main() -> None:
    """Entry point of the ``gossipcert`` console script."""
    app()


if __name__ == "__main__":
    main()
