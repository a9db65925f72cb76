"""Certify the packet-limited results of the papers and time them, with and without the rules.

Usage::

    python benchmarks/packet_models.py                       # every group
    python benchmarks/packet_models.py --group gonzalez --time-limit 120
    python benchmarks/packet_models.py --group front --point-limit 60

Groups: ``dimakopoulos`` (single-port and half-duplex ``p=1``), ``gonzalez`` (multicast),
``bermond`` (sequential calls on complete graphs), ``front`` (linear-cost Pareto fronts of
Beier and Sibeyn, telephone).

Table 1 runs the full pipeline (``gossipcert solve``) and prints the optimum, its evidence,
the paper's value, and the time to certify, with the rules and with ``--strict`` (no symmetry
breaking, no dominance; a closed-form certificate needs no search, so both times are then
the bounds' and constructions'). Table 2 (not for ``front``) isolates the two solver
questions -- a schedule of ``R*`` rounds (find) and none of ``R* - 1`` (prove) -- and times
each with the search's rules on (symmetry, no useless sends, canonical order of calls, learn
cap, packet counting), with every rule but the packet counting (``no-count``) and all off
(``plain``), each under ``--query-limit`` seconds. ``front`` computes each
Pareto front with the rules and with ``--strict``.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from dataclasses import replace

from gossipcert.closed_forms import all_bounds
from gossipcert.encodings import EncodingOptions, encoding_for
from gossipcert.graphs import from_spec
from gossipcert.instance import Instance, parse_instance
from gossipcert.search.cost import pareto_front
from gossipcert.search.entry import solve
from gossipcert.search.outcome import SolveResult
from gossipcert.solvers.backends import Status, make_backend
from gossipcert.symmetry.automorphisms import add_lex_leader, automorphism_generators

RULES = {
    "rules": EncodingOptions.for_search(),
    "no-count": replace(EncodingOptions.for_search(), packet_count=False),
    "plain": EncodingOptions(
        dominance=False, symmetry=False, learn_cap=False, useless=False, canonical=False
    ),
}


def _dimakopoulos() -> list[tuple[str, str, str]]:
    out = [(f"ring:{n}", "single-port:p=1", f"n-1 = {n - 1}") for n in range(3, 13)]
    out += [
        (f"ring:{n}", "half-duplex:p=1", f"{2 * (n - 1) if n % 2 == 0 else 2 * n}")
        for n in range(3, 10)
    ]
    for g in ("hypercube:3", "torus:3x3", "mesh:2x4", "ring:3*path:2"):
        n = from_spec(g).number_of_nodes()
        out.append((g, "single-port:p=1", f"Hamiltonian: n-1 = {n - 1}"))
        out.append((g, "half-duplex:p=1", "product/Hamiltonian"))
    return out


def _gonzalez() -> list[tuple[str, str, str]]:
    out = []
    for n in range(3, 10):
        r = n // 2
        out.append((f"path:{n}", "multicast", f"n+r = {n + r}"))
    out.append(("petersen", "multicast", "n-1 = 9 claimed; n+r = 12"))
    return out


def _bermond() -> list[tuple[str, str, str]]:
    out = [(f"complete:{n}", "sequential", f"2n-4 = {2 * n - 4}") for n in range(4, 11)]
    out += [
        (f"complete:{n}", "sequential:p=1", f"n(n-1)/2 = {n * (n - 1) // 2}") for n in range(3, 9)
    ]
    for p in (2, 3):
        for n in range(3, 10):
            out.append((f"complete:{n}", f"sequential:p={p}", "Th. 2.1 <= c(n,p) <= Th. 3.1"))
    return out


GROUPS: dict[str, Callable[[], list[tuple[str, str, str]]]] = {
    "dimakopoulos": _dimakopoulos,
    "gonzalez": _gonzalez,
    "bermond": _bermond,
}
FRONTS = [("mesh:3x3", 7), ("ring:8", 8), ("mesh:4x4", 8)]


def _paper_bounds(inst: Instance) -> str:
    names = ("bermond-2.1", "bermond-3.1-upper", "gonzalez-n-plus-r-upper", "dimakopoulos")
    found = [f"{b.name}={b.value}" for b in all_bounds(inst) if b.name.startswith(names)]
    return " ".join(found)


def query(inst: Instance, options: EncodingOptions, rounds: int, limit: float) -> str:
    """Seconds for one solver question "``rounds`` rounds suffice?" (SAT back-end)."""
    if rounds < 0:
        return "-"
    start = time.monotonic()
    enc = encoding_for(inst, options)
    enc.extend_to(rounds)
    if enc.options.symmetry:
        add_lex_leader(enc, automorphism_generators(inst))
    solver = make_backend("sat", enc.formula)
    try:
        status = solver.solve([enc.selector(rounds)], time.monotonic() + limit)
    finally:
        solver.close()
    dt = time.monotonic() - start
    return f"{'>' if status is Status.UNKNOWN else ''}{dt:.2f} {status.value}"


def _timed_solve(inst: Instance, time_limit: float, strict: bool) -> tuple[SolveResult, float]:
    start = time.monotonic()
    res = solve(inst, time_limit=time_limit, strict=strict)
    return res, time.monotonic() - start


def run_group(
    name: str, time_limit: float, query_limit: float, ablation: bool, max_nodes: int | None
) -> None:
    print(f"\n## {name}\n")
    print("| graph | model | status | R* | bounds | evidence | paper | seconds | strict |")
    print("|---|---|---|---|---|---|---|---|---|")
    rows = []
    for graph, model, paper in GROUPS[name]():
        inst = parse_instance(graph, model, "gossip")
        if max_nodes is not None and inst.n > max_nodes:
            continue
        res, dt = _timed_solve(inst, time_limit, strict=False)
        plain, dt_plain = _timed_solve(inst, time_limit, strict=True)
        ev = res.evidence
        what = ev["kind"] + (f" ({ev['name']})" if ev["kind"] == "closed-form" else "")
        print(
            f"| {graph} | {model} | {res.status} | {res.optimum if res.optimum else '-'} | "
            f"[{res.lower_bound}, {res.upper_bound}] | {what} | {paper} {_paper_bounds(inst)} "
            f"| {dt:.2f} | {'' if plain.status == 'optimal' else '>'}{dt_plain:.2f} "
            f"{plain.status} |",
            flush=True,
        )
        rows.append((inst, graph, model, res.optimum))
    if not ablation:
        return
    print(f"\n### {name}: solver questions, rules on and off (SAT, {query_limit:g} s each)\n")
    print(
        "| graph | model | R* | find rules | find no-count | find plain | prove rules "
        "| prove no-count | prove plain |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    for inst, graph, model, opt in rows:
        if opt is None:
            continue
        cells = [
            query(inst, RULES[k], r, query_limit)
            for r in (opt, opt - 1)
            for k in ("rules", "no-count", "plain")
        ]
        print(f"| {graph} | {model} | {opt} | " + " | ".join(cells) + " |", flush=True)


def run_fronts(time_limit: float) -> None:
    print("\n## linear cost: Pareto fronts of (R, S), telephone gossip\n")
    print("| graph | rules | R | least S | proved | Pareto | seconds |")
    print("|---|---|---|---|---|---|---|")
    for graph, max_rounds in FRONTS:
        inst = parse_instance(graph, "telephone", "gossip")
        for strict in (False, True):
            res = pareto_front(inst, max_rounds, time_limit, strict=strict)
            pareto = {p.rounds for p in res.pareto()}
            for p in res.points:
                print(
                    f"| {graph} | {'strict' if strict else 'rules'} | {p.rounds} | {p.steps} | "
                    f"{'yes' if p.proved else 'no'} | {'*' if p.rounds in pareto else ''} | "
                    f"{p.seconds:.1f} |",
                    flush=True,
                )
            last = res.points[-1]
            if res.constant_from is not None and last.rounds < max_rounds:
                # S_min is constant from a proved S <= R on (gossipcert.search.cost)
                print(
                    f"| {graph} | {'strict' if strict else 'rules'} | "
                    f"{last.rounds + 1}-{max_rounds} | {last.steps} | yes (constant) | | |",
                    flush=True,
                )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--group", nargs="*", default=[*GROUPS, "front"])
    ap.add_argument("--time-limit", type=float, default=120.0, help="seconds per solve")
    ap.add_argument("--query-limit", type=float, default=30.0, help="seconds per question")
    ap.add_argument("--front-limit", type=float, default=240.0, help="seconds per front")
    ap.add_argument("--no-ablation", action="store_true")
    ap.add_argument("--max-nodes", type=int, help="skip graphs with more nodes")
    args = ap.parse_args()
    for g in args.group:
        if g == "front":
            run_fronts(args.front_limit)
        else:
            run_group(g, args.time_limit, args.query_limit, not args.no_ablation, args.max_nodes)


if __name__ == "__main__":
    main()
