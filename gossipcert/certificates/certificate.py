"""Certificates: a JSON file that lets anyone re-check an optimum from scratch.

A certificate (``gossipcert-certificate/1``) holds the instance (the graph's spec *and* its
edge list, the model and problem specs), the optimum ``R*``, the schedule of ``R*`` rounds and
the lower-bound evidence, of one of the kinds of :mod:`gossipcert.certificates.kinds`
(``closed-form``, ``drat``, ``drat-cubes``, ``drat-relaxed``, ``drat-packet``,
``solver-claim``, ``reversal``, ``allreduce-bracket``, ``allreduce-drat``,
``allreduce-packing``: what each proves, the problems and models it applies to, its writer and
its checker are there, and in the table of ``docs/evidence.md``). A ``solver-claim`` is a
solver's word only (weaker, and labelled so: its check re-solves the claim, and even when
every step agrees the verdict is ``unproved``, never ``holds``).

A steps certificate (``gossipcert-steps-certificate/1``) holds points of a linear-cost front
instead: for each, ``R``, the least steps ``S``, a schedule of at most ``R`` rounds and ``S``
steps, and a DRAT proof that ``S - 1`` steps in ``R`` rounds are impossible
(:mod:`gossipcert.proofs.steps`).

:func:`check_certificate` re-derives everything: it rebuilds the instance from the stored edge
list, replays the schedule in the verifier, recomputes the closed-form bound, or regenerates
the CNF, compares its hash and re-checks the proof with every checker of
:mod:`gossipcert.proofs.checkers`; for a solver claim it asks the solver again. Each kind's
check is its registered checker; evidence of a kind that does not apply to the certificate's
problem or model (allreduce evidence for a gossip, say) fails. It also checks
that the problem's label (``spec``) and its stored content describe the same problem, and
says which problem it checked. Any mismatch is a failure; a check that runs out of time is
no verdict (neither holds nor fails); a solver claim that the solver confirms again is
``unproved`` (its steps agree, but nothing was proved).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gossipcert import graphs
from gossipcert._version import __version__
from gossipcert.certificates.checks import Context
from gossipcert.certificates.kinds import KINDS, kind_of
from gossipcert.certificates.partial import FORMAT as PARTIAL_FORMAT
from gossipcert.errors import (
    CertificateError,
    GossipcertError,
    MissingDependencyError,
    UnsupportedModelError,
)
from gossipcert.graphs.records import graph_from_record, graph_record
from gossipcert.instance import (
    Instance,
    ProblemKind,
    make_instance,
    names_problem_file,
    parse_model,
    parse_problem,
    stored_problem,
)
from gossipcert.models import require_linear_cost
from gossipcert.schedule import FORMAT as SCHEDULE_FORMAT
from gossipcert.schedule import Schedule, from_json, to_json
from gossipcert.search.outcome import SolveResult
from gossipcert.simulate import simulate
from gossipcert.store import certificate_text

FORMAT = "gossipcert-certificate/1"
STEPS_FORMAT = "gossipcert-steps-certificate/1"


def build_certificate(result: SolveResult) -> dict[str, Any]:
    """The certificate of an ``optimal`` result."""
    if result.status != "optimal" or result.schedule is None:
        raise CertificateError(f"only an optimal result has a certificate (got {result.status})")
    inst = result.instance
    evidence = result.evidence
    if result.dual is not None:  # a reduction by time reversal: the dual's whole certificate
        evidence = {k: v for k, v in evidence.items() if k != "dual"}
        evidence["dual_certificate"] = build_certificate(result.dual)
    return {
        "format": FORMAT,
        "gossipcert": __version__,
        "instance": instance_record(inst),
        "optimum": result.optimum,
        "lower_bound": result.lower_bound,
        "upper_bound": result.upper_bound,
        "schedule": to_json(result.schedule, inst),
        "schedule_source": result.upper_source,
        "evidence": evidence,
        "symmetry_breaking": _uses_symmetry(result),
        "backend": result.backend,
        "times": {k: round(v, 3) for k, v in result.times.items()},
    }


def instance_record(inst: Instance) -> dict[str, Any]:
    """The instance as stored in a certificate: the graph record, the model and problem."""
    problem: dict[str, Any] = {"spec": inst.problem.spec()}
    if inst.problem.custom is not None:
        packets, holdings, demands = inst.problem.custom
        problem["custom"] = {
            "packets": list(packets),
            "holdings": {str(k): list(v) for k, v in holdings},
            "demands": {str(k): list(v) for k, v in demands},
        }
    return {"graph": graph_record(inst.graph), "model": inst.model.spec(), "problem": problem}


def steps_claim(points: list[tuple[Any, Any]]) -> str:
    """The claim of a steps certificate, from its ``(R, S)`` points: ``S_min(5) = 11, ...``.

    Examples
    --------
    >>> steps_claim([(5, 11), (6, 10)])
    'S_min(5) = 11, S_min(6) = 10'
    """
    return ", ".join(f"S_min({r}) = {s}" for r, s in points)


def build_steps_certificate(
    inst: Instance, points: list[tuple[int, int, Schedule, dict[str, Any]]]
) -> dict[str, Any]:
    """The steps certificate of linear-cost points ``(R, S, schedule, DRAT evidence)``."""
    return {
        "format": STEPS_FORMAT,
        "gossipcert": __version__,
        "instance": instance_record(inst),
        "claim": steps_claim([(r, s) for r, s, _, _ in points]),
        "points": [
            {"rounds": r, "steps": s, "schedule": to_json(sched, inst), "evidence": ev}
            for r, s, sched, ev in points
        ],
    }


def _uses_symmetry(result: SolveResult) -> bool:
    """Whether the lower-bound evidence relies on a symmetry argument (its kind says)."""
    if result.dual is not None:
        return _uses_symmetry(result.dual)
    kind = kind_of(result.evidence)
    return kind is not None and kind.symmetry(result.evidence, result.options.symmetry)


def write_certificate(cert: dict[str, Any], path: str | Path) -> None:
    """Write a certificate as JSON."""
    Path(path).write_text(certificate_text(cert))


def read_certificate(path: str | Path) -> dict[str, Any]:
    """Read a certificate file."""
    p = Path(path)
    try:
        data = json.loads(p.read_text())
    except FileNotFoundError:
        raise CertificateError(f"certificate {str(p)!r} does not exist") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise CertificateError(f"certificate {str(p)!r} is not valid JSON: {exc}") from None
    if isinstance(data, dict) and data.get("format") in (PARTIAL_FORMAT, SCHEDULE_FORMAT):
        raise CertificateError(
            f"{str(p)!r} is a {data['format']} file, not a certificate: it proves no lower "
            f"bound; replay its schedule with: gossipcert verify {p}"
        )
    if not isinstance(data, dict) or data.get("format") not in (FORMAT, STEPS_FORMAT):
        raise CertificateError(f"{str(p)!r} is not a {FORMAT} or {STEPS_FORMAT} file")
    return data


def instance_from_certificate(cert: dict[str, Any]) -> Instance:
    """Rebuild the instance stored in a certificate."""
    try:
        rec = cert["instance"]
        g = graph_from_record(rec["graph"])
        model = parse_model(rec["model"])
        prob = rec["problem"]
        spec = prob["spec"]
        if "custom" not in prob and names_problem_file(str(spec)):
            # never read the checking machine's files: a custom problem travels in the
            # certificate, so what is certified is what the certificate says
            raise CertificateError(
                f"the problem {spec!r} is a file, but the certificate does not carry "
                "its content ('custom')"
            )
        problem = stored_problem(prob)
    except (KeyError, TypeError) as exc:
        raise CertificateError(f"malformed certificate instance: missing {exc}") from None
    return make_instance(g, model, problem)


def step_verdict(ok: bool | None, claim: bool = False) -> str:
    """``holds``, ``fails``, ``timeout`` (``ok`` None) or ``unproved`` (a solver's claim
    that agrees) for one step of a check.

    Examples
    --------
    >>> step_verdict(True), step_verdict(True, claim=True), step_verdict(None)
    ('holds', 'unproved', 'timeout')
    """
    if ok is None:
        return "timeout"
    if not ok:
        return "fails"
    return "unproved" if claim else "holds"


@dataclass
class CheckReport:
    """Outcome of :func:`check_certificate` (and of :func:`gossipcert.check`).

    Each step is ``(verdict, text)`` with ``verdict`` True (holds), False (fails) or None
    (could not be decided in the time allowed). A step that agrees only because a solver
    said so again (a solver claim re-solved, no proof) is recorded as a claim: its status
    is ``unproved``, not ``holds``.

    Attributes
    ----------
    steps : list of (bool or None, str)
        Every step checked, in order: the instance rebuilt, the schedule replayed, the lower
        bound re-derived (each proof and each checker), with a sentence.
    ok : bool
        Every step holds and none rests on a solver's word alone (property).
    status : str
        ``holds``, ``fails``, ``timeout`` (none fails, some undecided) or ``unproved``
        (property).
    unproved : bool
        The lower bound rests on a solver's word re-solved, with no proof.
    claims : set of int
        The steps that are a solver's word, not a check.
    """

    steps: list[tuple[bool | None, str]] = field(default_factory=list)
    #: the lower bound rests on a solver's word (re-solved, no proof): at best ``unproved``
    unproved: bool = False
    #: indices of the steps that are a solver's word, not a check
    claims: set[int] = field(default_factory=set)
    #: called with ``(ok, text, claim)`` as each step is recorded (progress, or a step
    #: passed out of a worker process before it is stopped)
    listener: Callable[[bool | None, str, bool], None] | None = None

    def add(self, ok: bool | None, text: str, claim: bool = False) -> None:
        """Record one check; ``claim`` marks a solver's word re-solved (no proof)."""
        if claim:
            self.claims.add(len(self.steps))
            self.unproved = True
        self.steps.append((ok, text))
        if self.listener is not None:
            self.listener(ok, text, claim)

    def step_status(self, index: int) -> str:
        """``holds``, ``fails``, ``timeout`` or ``unproved`` for step ``index``.

        Examples
        --------
        >>> rep = CheckReport()
        >>> rep.add(True, "schedule verified")
        >>> rep.add(True, "solver claim re-solved: unsat", claim=True)
        >>> [rep.step_status(i) for i in range(2)], rep.status
        (['holds', 'unproved'], 'unproved')
        """
        return step_verdict(self.steps[index][0], index in self.claims)

    @property
    def ok(self) -> bool:
        """Every step holds, and none rests on a solver's word alone."""
        return self.status == "holds"

    @property
    def status(self) -> str:
        """``holds``; ``fails`` (some step fails); ``timeout`` (none fails, some undecided);
        or ``unproved`` (every step agrees, but the lower bound is a solver's word re-solved,
        with no proof: not a certificate)."""
        verdicts = {v for v, _ in self.steps}
        if False in verdicts:
            return "fails"
        if None in verdicts:
            return "timeout"
        return "unproved" if self.unproved else "holds"


def check_certificate(
    cert: dict[str, Any],
    time_limit: float | None = None,
    full: bool = False,
    on_step: Callable[[bool | None, str, bool], None] | None = None,
) -> CheckReport:
    """Re-derive every claim of a certificate; see the module docstring.

    ``full`` lets the project's own proof checker run to the end instead of within its
    budget (see :mod:`gossipcert.proofs.checkers`). ``on_step(ok, text, claim)`` is called as
    each step is decided. A malformed certificate is a failed check, never an exception.
    """
    out = CheckReport(listener=on_step)
    try:
        _check(cert, time_limit, out, full)
    except MissingDependencyError:  # no verdict, and the certificate is not at fault
        raise
    except GossipcertError as exc:
        out.add(False, f"certificate cannot be checked: {exc}")
    except (KeyError, TypeError, AttributeError, IndexError, ValueError) as exc:
        out.add(False, f"malformed certificate: {type(exc).__name__}: {exc}")
    return out


def _same_graph_record(a: dict[str, Any], b: dict[str, Any]) -> bool:
    keys = ("n", "labels", "routers", "edges")
    return all(a.get(k) == b.get(k) for k in keys)


def _check(
    cert: dict[str, Any], time_limit: float | None, out: CheckReport, full: bool = False
) -> None:
    from gossipcert.proofs.steps import check_steps_point

    if not isinstance(cert, dict):
        raise CertificateError("a certificate is a JSON object")
    inst = instance_from_certificate(cert)
    _check_problem_label(cert, inst, out)
    spec = cert["instance"]["graph"].get("spec")
    # a spec naming a file, alone or as a factor of a product, is not rebuilt: the checking
    # machine's files are never read (the stored record is what is certified)
    if spec and not any(graphs.looks_like_file(part) for part in str(spec).split("*")):
        fresh = graph_record(graphs.from_spec(spec))
        same = _same_graph_record(fresh, graph_record(inst.graph))
        out.add(
            same,
            f"stored graph (edges, labels, routers, capacities) "
            f"{'matches' if same else 'DIFFERS FROM'} {spec}",
        )
    if cert.get("format") == STEPS_FORMAT:
        points = cert.get("points")
        if not isinstance(points, list) or not points:
            raise CertificateError("a steps certificate needs a non-empty list of points")
        try:
            require_linear_cost(inst.model.kind)
        except UnsupportedModelError as exc:  # the formula proves nothing under this model
            out.add(False, f"model {inst.model.spec()}: {exc}")
            return
        for point in points:
            check_steps_point(inst, point, time_limit, out, full)
        derived = steps_claim([(p.get("rounds"), p.get("steps")) for p in points])
        out.add(
            cert.get("claim") == derived,
            f"claim {cert.get('claim')!r} "
            + ("is" if cert.get("claim") == derived else f"is NOT {derived!r},")
            + " what the points show",
        )
        return
    if "claim" in cert:  # only steps certificates state a claim; a round one states its optimum
        out.add(False, f"a round certificate carries a 'claim' ({cert['claim']!r}) it cannot prove")
    optimum = cert.get("optimum")
    if not isinstance(optimum, int) or isinstance(optimum, bool) or optimum < 0:
        out.add(False, f"optimum {optimum!r} is not a round count")
        return
    bounds_ok = cert.get("lower_bound") == cert.get("upper_bound") == optimum
    out.add(
        bounds_ok,
        f"lower bound {cert.get('lower_bound')} and upper bound "
        f"{cert.get('upper_bound')} {'meet at' if bounds_ok else 'DO NOT MEET AT'} "
        f"the optimum {optimum}",
    )
    # the schedule
    sched = from_json(cert.get("schedule"), inst)
    rep = simulate(inst, sched)
    if not rep.valid:
        out.add(False, f"schedule breaks the model: {rep.errors[0].message}")
    elif not rep.complete:
        out.add(False, f"schedule leaves {len(rep.unmet)} demands unmet")
    else:
        out.add(
            rep.rounds == optimum,
            f"schedule verified: all demands met after round {rep.rounds} "
            f"(certificate claims {optimum})",
        )
    # the lower bound, by its kind's checker (gossipcert.certificates.kinds)
    ev = cert.get("evidence")
    if not isinstance(ev, dict):
        raise CertificateError("'evidence' must be an object")
    kind = kind_of(ev)
    if kind is None:
        out.add(False, f"unknown evidence kind {ev.get('kind')!r} (known: {', '.join(KINDS)})")
        return
    refusal = kind.refusal(inst)
    if refusal is not None:
        out.add(False, refusal)
        return
    kind.checker(Context(inst, optimum, ev, cert, time_limit, full, out, _check, CheckReport))


def _check_problem_label(cert: dict[str, Any], inst: Instance, out: CheckReport) -> None:
    """The problem's label and its stored content must describe the same problem."""
    prob = cert["instance"]["problem"]
    label = str(prob.get("spec"))
    try:
        named = None if names_problem_file(label) else parse_problem(label)
    except GossipcertError:
        named = None  # a free-text label: the stored content is the problem
    demands = sum(bin(d & ~h).count("1") for d, h in zip(inst.demands, inst.holdings, strict=True))
    what = f"{inst.n_packets} packets, {demands} demands not met at the start"
    if inst.problem.reduction:
        combined = sum(d.bit_count() for d in inst.demands)
        what = f"{inst.n_packets} chunks, {combined} combined over every contributor at the end"
    if named is None or named.kind is ProblemKind.CUSTOM:
        out.add(True, f"problem checked: custom problem {label!r} as stored ({what})")
        return
    if "custom" not in prob:
        out.add(True, f"problem checked: {label} ({what})")
        return
    agree = _packet_signature(make_instance(inst.graph, inst.model, named)) == (
        _packet_signature(inst)
    )
    out.add(
        agree,
        f"problem checked: stored content ({what}) "
        f"{'is' if agree else 'is NOT'} the problem its label {label!r} names",
    )


def _packet_signature(inst: Instance) -> list[tuple[tuple[int, ...], tuple[int, ...]]]:
    """Per packet, who holds it and who needs it, sorted: the problem up to packet names."""
    return sorted(
        (
            tuple(v for v in range(inst.n) if inst.holdings[v] >> p & 1),
            tuple(v for v in range(inst.n) if inst.demands[v] >> p & 1),
        )
        for p in range(inst.n_packets)
    )
