"""The evidence record of a refutation proved and checked during the search: what a
certificate stores so that ``check`` can regenerate the CNF and re-check the proof."""

from __future__ import annotations

from typing import Any

from gossipcert.encodings import EncodingOptions
from gossipcert.proofs.refutation import (
    ProofResult,
    proof_fields,
)
from gossipcert.proofs.verdicts import ProofVerdict


def refutation_fields(
    options: EncodingOptions,
    rounds: int,
    cnf: Any,
    pr: ProofResult,
    verdict: ProofVerdict,
    packed: str | None = None,
) -> dict[str, Any]:
    """What every stored refutation records: the encoding, the CNF's hash and size, the
    proof solver, every checker's verdict and the proof itself."""
    return {
        "kind": "drat",
        "rounds": rounds,
        "encoding": options.to_json(),
        "symmetry_generators": cnf.generators,
        "cnf_sha256": cnf.sha256(),
        "variables": cnf.nvars,
        "clauses": len(cnf.clauses),
        "proof_solver": "CaDiCaL 1.9.5 (PySAT)",
        "checkers": [o.to_json() for o in verdict.outcomes],
        **proof_fields(pr, packed),
    }


def drat_evidence(
    options: EncodingOptions,
    rounds: int,
    cnf: Any,
    pr: ProofResult,
    verdict: ProofVerdict,
    packed: str | None = None,
) -> dict[str, Any]:
    """The ``drat`` evidence of the refutation of ``rounds`` rounds
    (:func:`refutation_fields`), with a note naming the rules the CNF relies on beyond the
    plain encoding."""
    evidence = refutation_fields(options, rounds, cnf, pr, verdict, packed)
    relies = options.not_implied()
    if relies:
        evidence["note"] = (
            "the CNF includes "
            + " and ".join(relies)
            + ", sound by the arguments in the encoding docstrings; use --strict for a proof "
            "of the plain encoding"
        )
    return evidence
