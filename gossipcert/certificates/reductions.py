"""Checking the evidence of a reduction: time reversal (reduce, reduce-scatter) and the
allreduce bracket.

A ``reduce`` or ``reduce-scatter`` optimum found by :mod:`gossipcert.search.reversal` has the
evidence ``{"kind": "reversal", "dual_problem", "dual_optimum", "dual_certificate"}``: the
whole certificate of the dual instance (``broadcast:r`` or ``gossip`` with the same chunks,
graph and model). :func:`check_reversal_evidence` re-derives the duality:

1. the model is symmetric under time reversal (the argument is in
   :mod:`gossipcert.search.reversal`);
2. the dual certificate is for the dual of the certified instance: the same graph (edges,
   labels, routers, capacities), the same model, the dual problem rebuilt here;
3. the dual certificate holds, checked step by step like any certificate (its steps are
   listed with the prefix ``dual``), and its optimum is the one certified;
4. the dual's schedule, converted again, is verified on the reduction and meets every demand
   after the certified number of rounds.

An ``allreduce`` optimum (:mod:`gossipcert.search.allreduce`) has the evidence
``{"kind": "allreduce-bracket", "source", "value", ...}``: its schedule (the composition) is
verified like any other, and :func:`check_allreduce_evidence` re-derives the lower bound:
the ``receive``, ``receipts``, ``cut``, ``bridge`` and ``one-round`` bounds are recomputed; a
``reduce-scatter`` or ``gossip`` bound comes with that problem's whole certificate
(``dual_certificate``), which must be for the same graph, model and chunks, hold, and
certify the optimum.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from gossipcert.encodings import allreduce_union as union
from gossipcert.encodings.allreduce import standalone
from gossipcert.graphs.records import graph_record
from gossipcert.instance import Instance, ProblemKind, parse_model, stored_problem
from gossipcert.proofs.refutation import recheck_evidence_proof
from gossipcert.schedule import from_json
from gossipcert.search.allreduce import sub_problem
from gossipcert.search.allreduce_closed import CLOSED_BOUNDS
from gossipcert.search.reversal import dual_instance, reduction_from_dual, reversal_refusal
from gossipcert.simulate import simulate

#: the fields of a graph record that must agree between a certificate and its dual's
GRAPH_FIELDS = ("n", "labels", "routers", "edges")


def check_reversal_evidence(
    inst: Instance,
    optimum: int,
    ev: dict[str, Any],
    cert: dict[str, Any],
    time_limit: float | None,
    out: Any,
    full: bool,
    check_dual: Callable[[dict[str, Any], float | None, Any, bool], None],
    report: Callable[..., Any],
) -> None:
    """Add to ``out`` the steps that re-derive a reversal certificate (module docstring).

    Parameters
    ----------
    inst : Instance
        The reduction, rebuilt from the certificate.
    optimum : int
        The certified optimum.
    ev, cert : dict
        The evidence and the whole certificate.
    time_limit, full
        As for the check of any certificate.
    out : CheckReport
        Where the steps go.
    check_dual : callable
        The check of a whole certificate ``(cert, time_limit, report, full)``.
    report : callable
        Makes a report whose steps are passed to a listener (``CheckReport``).
    """
    reason = reversal_refusal(inst.model)
    out.add(
        reason is None,
        f"model {inst.model.spec()} is symmetric under time reversal"
        if reason is None
        else f"time reversal does not apply: {reason}",
    )
    if reason is not None:
        return
    dual = dual_instance(inst)
    dual_cert = _sub_certificate(inst, dual, optimum, ev, time_limit, out, full, check_dual, report)
    if dual_cert is None:
        return
    flag = cert.get("symmetry_breaking") == dual_cert.get("symmetry_breaking")
    out.add(flag, f"symmetry_breaking flag {'agrees' if flag else 'DISAGREES'} with the dual's")
    converted = reduction_from_dual(dual, from_json(dual_cert.get("schedule"), dual), inst)
    rep = simulate(inst, converted)
    ok = rep.ok and rep.rounds == optimum
    first = rep.errors[0].message if rep.errors else f"demands met after round {rep.rounds}"
    out.add(
        ok,
        f"the dual's schedule run backwards solves {inst.problem.spec()} in {optimum} rounds "
        f"(verified)"
        if ok
        else f"the dual's schedule run backwards does NOT solve it in {optimum} rounds: {first}",
    )


def check_allreduce_evidence(
    inst: Instance,
    optimum: int,
    ev: dict[str, Any],
    cert: dict[str, Any],
    time_limit: float | None,
    out: Any,
    full: bool,
    check_dual: Callable[[dict[str, Any], float | None, Any, bool], None],
    report: Callable[..., Any],
) -> None:
    """Add to ``out`` the steps that re-derive an allreduce lower bound (module docstring);
    parameters as for :func:`check_reversal_evidence`."""
    source = ev.get("source")
    if isinstance(source, str) and source in CLOSED_BOUNDS:
        bound = CLOSED_BOUNDS[source]
        value = bound.value(inst)
        out.add(
            value == optimum,
            f"{source} bound recomputed: {value} ({bound.why}; optimum {optimum})",
        )
        out.add(cert.get("symmetry_breaking") is False, "no solver argument involved")
        return
    kinds = {"reduce-scatter": ProblemKind.REDUCE_SCATTER, "gossip": ProblemKind.GOSSIP}
    if source not in kinds:
        out.add(False, f"unknown allreduce bound {source!r}")
        return
    sub = sub_problem(inst, kinds[source])
    sub_cert = _sub_certificate(inst, sub, optimum, ev, time_limit, out, full, check_dual, report)
    if sub_cert is not None:
        flag = cert.get("symmetry_breaking") == sub_cert.get("symmetry_breaking")
        out.add(flag, f"symmetry_breaking flag {'agrees' if flag else 'DISAGREES'} with its")


def union_relies_on(ev: dict[str, Any]) -> list[str]:
    """The sound but not implied families an ``allreduce-drat`` refutation rests on: those
    of the union relaxation unless ``strict`` (none for the exact model)."""
    if ev.get("formula") != "union" or ev.get("strict") is True:
        return []
    return [
        "no useless transmission and ordered interchangeable chunks "
        "(gossipcert.encodings.allreduce_union)"
    ]


def check_allreduce_drat(
    inst: Instance,
    optimum: int,
    ev: dict[str, Any],
    time_limit: float | None,
    out: Any,
    full: bool,
) -> None:
    """Re-check the DRAT proof that ``optimum - 1`` rounds of allreduce are impossible
    against the regenerated CNF: the exact model's (:mod:`gossipcert.encodings.allreduce`),
    or with ``formula: "union"`` the union relaxation's
    (:mod:`gossipcert.encodings.allreduce_union`, its options by ``strict``)."""
    rounds = ev.get("rounds")
    if rounds != optimum - 1:
        out.add(False, f"the proof refutes {rounds!r} rounds, not {optimum - 1}")
        return
    if ev.get("formula", "exact") == "union":
        options = union.STRICT_OPTIONS if ev.get("strict") is True else union.DEFAULT_OPTIONS
        _, cnf = union.standalone(inst, rounds, options)
        what = "allreduce union relaxation CNF"
    elif ev.get("formula", "exact") == "exact":
        _, cnf = standalone(inst, rounds)
        what = "allreduce CNF"
    else:
        out.add(False, f"unknown allreduce formula {ev.get('formula')!r}")
        return
    same = cnf.sha256() == ev.get("cnf_sha256")
    out.add(
        same,
        f"{what} for {rounds} rounds regenerated: SHA-256 "
        f"{'matches' if same else 'DIFFERS FROM'} the certificate's",
    )
    if not same:
        return
    for ok, text in recheck_evidence_proof(cnf, ev, time_limit, full):
        out.add(ok, text)


def _sub_certificate(
    inst: Instance,
    dual: Instance,
    optimum: int,
    ev: dict[str, Any],
    time_limit: float | None,
    out: Any,
    full: bool,
    check_dual: Callable[[dict[str, Any], float | None, Any, bool], None],
    report: Callable[..., Any],
) -> dict[str, Any] | None:
    """Check the certificate of ``dual`` held in ``ev`` (same graph and model, holds, same
    optimum); return it, or None when there is none to check further."""
    dual_cert = ev.get("dual_certificate")
    if not isinstance(dual_cert, dict):
        out.add(False, f"the evidence holds no certificate of {dual.problem.spec()}")
        return None
    rec = dual_cert.get("instance", {})
    mine = graph_record(inst.graph)
    same_graph = all(rec.get("graph", {}).get(k) == mine.get(k) for k in GRAPH_FIELDS)
    same_model = parse_model(str(rec.get("model"))).spec() == dual.model.spec()
    same_problem = stored_problem(rec.get("problem")).spec() == dual.problem.spec()
    out.add(
        same_graph and same_model and same_problem,
        f"certificate held is for {dual.problem.spec()} on the same graph and model"
        if same_graph and same_model and same_problem
        else f"certificate held is NOT for {dual.problem.spec()} on the same graph and model",
    )
    agree = dual_cert.get("optimum") == optimum == ev.get("dual_optimum", ev.get("value"))
    out.add(
        agree,
        f"{dual.problem.spec()} optimum {dual_cert.get('optimum')} "
        f"{'is' if agree else 'is NOT'} the certified optimum {optimum}",
    )
    prefix = f"{dual.problem.spec()}: "
    sub = report(listener=lambda ok, text, claim: out.add(ok, prefix + text, claim))
    check_dual(dual_cert, time_limit, sub, full)
    return dual_cert
