"""Evidence kinds: each kind of lower-bound evidence a certificate can carry, as one object.

An :class:`EvidenceKind` holds a kind's name, the problems and models it applies to, the
function that writes it, its checker (:mod:`gossipcert.certificates.checks`), whether a
record of it proves its bound (``solver-claim`` does not), whether it rests on a symmetry
argument, and its entry in the documentation. :data:`KINDS` is the registry:
:func:`gossipcert.certificates.certificate.check_certificate` dispatches through it and
refuses evidence whose kind does not apply to the certificate's problem or model; the
table of kinds in ``docs/evidence.md`` is :func:`markdown_table` (a test compares them, so
a kind cannot go undocumented).

A new kind is one entry here, its writer and its checker.

Examples
--------
>>> from gossipcert.instance import parse_instance
>>> KINDS["allreduce-packing"].refusal(parse_instance("ring:4", "telephone", "gossip"))
"evidence of kind 'allreduce-packing' applies to allreduce, not to gossip"
>>> proves({"kind": "reversal", "dual": {"kind": "solver-claim"}})
False
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from gossipcert.certificates import checks
from gossipcert.instance import Instance, ProblemKind
from gossipcert.models.base import ModelKind
from gossipcert.problems import REDUCTIONS

#: the problems the round search encodes itself (the reductions have their own ways)
ROUND_PROBLEMS = frozenset(ProblemKind) - REDUCTIONS


def _always(ev: dict[str, Any]) -> bool:
    return True


def _never(ev: dict[str, Any], symmetry: bool) -> bool:
    return False


@dataclass(frozen=True)
class EvidenceKind:
    """One kind of lower-bound evidence.

    Attributes
    ----------
    name : str
        The ``kind`` field of the evidence record.
    summary : str
        What it proves and how ``check`` re-derives it, in one sentence (the docs' table).
    problems : frozenset of ProblemKind
        The problems it applies to; ``check`` refuses it for any other.
    models : frozenset of ModelKind or None
        The models it applies to (None: every model); ``check`` refuses it for any other.
    writer : str
        The dotted name of the function that writes it.
    checker : callable
        Adds the steps that re-derive it to a report (:mod:`gossipcert.certificates.checks`).
    proves : callable
        Whether a record of it proves its lower bound (beyond a solver's word).
    symmetry : callable
        ``(evidence, encoding uses symmetry)`` -> whether the bound rests on a symmetry
        argument (the certificate's ``symmetry_breaking`` flag).
    models_note : str
        A further condition on the model, said in the docs (checked by the checker), or
        with ``models`` None the models it applies to in words.
    """

    name: str
    summary: str
    problems: frozenset[ProblemKind]
    models: frozenset[ModelKind] | None
    writer: str
    checker: Callable[[checks.Context], None]
    proves: Callable[[dict[str, Any]], bool] = _always
    symmetry: Callable[[dict[str, Any], bool], bool] = _never
    models_note: str = ""

    def refusal(self, instance: Instance) -> str | None:
        """Why this kind does not apply to ``instance`` (None: it applies).

        Parameters
        ----------
        instance : Instance

        Returns
        -------
        str or None
        """
        kind = instance.problem.kind
        if kind not in self.problems:
            return (
                f"evidence of kind {self.name!r} applies to {_names(self.problems)}, "
                f"not to {kind.value}"
            )
        model = instance.model.kind
        if self.models is not None and model not in self.models:
            return (
                f"evidence of kind {self.name!r} applies under {_names(self.models)}, "
                f"not under {instance.model.spec()}"
            )
        return None


def _names(kinds: frozenset[ProblemKind] | frozenset[ModelKind]) -> str:
    """The members of a set of kinds, in their enumeration's order."""
    order: list[Any] = [*ProblemKind, *ModelKind]
    return ", ".join(k.value for k in sorted(kinds, key=order.index))


def _reversal_proves(ev: dict[str, Any]) -> bool:
    dual = ev.get("dual")
    return isinstance(dual, dict) and proves(dual)


def _bracket_proves(ev: dict[str, Any]) -> bool:
    from gossipcert.search.allreduce_closed import CLOSED_BOUNDS  # the bounds' modules

    if ev.get("source") in CLOSED_BOUNDS:
        return True
    sub = ev.get("sub")
    return isinstance(sub, dict) and proves(sub)


def _cubes_symmetry(ev: dict[str, Any], symmetry: bool) -> bool:
    coverage = ev.get("coverage")
    return isinstance(coverage, dict) and coverage.get("kind") == "orbits"


def _union_symmetry(ev: dict[str, Any], symmetry: bool) -> bool:
    from gossipcert.certificates.reductions import union_relies_on

    return union_relies_on(ev) != []


def _packing_symmetry(ev: dict[str, Any], symmetry: bool) -> bool:
    from gossipcert.proofs.allreduce_packing import packing_relies_on

    return packing_relies_on(ev) != []


def _encoding_symmetry(ev: dict[str, Any], symmetry: bool) -> bool:
    return symmetry


_ENCODED = "every model an encoding of `gossipcert.encodings` covers"
_ONE_PORT = frozenset({ModelKind.TELEPHONE, ModelKind.HALF_DUPLEX, ModelKind.SINGLE_PORT})
_ALLREDUCE = frozenset({ProblemKind.ALLREDUCE})

#: every evidence kind the code writes, by name
KINDS: dict[str, EvidenceKind] = {
    k.name: k
    for k in (
        EvidenceKind(
            "closed-form",
            "a bound of `gossipcert.closed_forms` equal to the optimum, with its citation; "
            "`check` recomputes it (it rests on the cited theorem)",
            frozenset(ProblemKind),
            None,
            "gossipcert.search.rounds._Search.lower_bound",
            checks.closed_form,
        ),
        EvidenceKind(
            "drat",
            "the CNF for `R* - 1` rounds (regenerated by `check`, SHA-256 compared) and a "
            "proof of its unsatisfiability (LRAT now, DRAT in older certificates), re-checked "
            "by two checkers that share no code",
            ROUND_PROBLEMS,
            None,
            "gossipcert.proofs.evidence.drat_evidence",
            checks.drat,
            symmetry=_encoding_symmetry,
            models_note=_ENCODED,
        ),
        EvidenceKind(
            "drat-cubes",
            "the same claim split into cubes on the first round's calls, each with its "
            "proof, and the cover (the orbit argument, or a proof that the cubes cover)",
            ROUND_PROBLEMS,
            frozenset({ModelKind.TELEPHONE, ModelKind.HALF_DUPLEX}),
            "gossipcert.search.split_refutation._evidence",
            checks.drat_cubes,
            symmetry=_cubes_symmetry,
            models_note="unbounded packets, no call limit",
        ),
        EvidenceKind(
            "drat-relaxed",
            "a proof that a relaxation keeping some rows and columns of the dissemination "
            "matrix is unsatisfiable for `R* - 1` rounds; `check` rebuilds the relaxed CNF",
            ROUND_PROBLEMS,
            frozenset({ModelKind.TELEPHONE}),
            "gossipcert.proofs.relaxation.prove_relaxed",
            checks.drat_relaxed,
            models_note="unbounded packets, no call limit",
        ),
        EvidenceKind(
            "drat-packet",
            "a proof that one packet alone cannot be broadcast from its holders in `R* - 1` "
            "rounds; `check` rebuilds that broadcast's CNF",
            ROUND_PROBLEMS,
            _ONE_PORT,
            "gossipcert.proofs.packet_refutation.refute_by_packet",
            checks.drat_packet,
        ),
        EvidenceKind(
            "solver-claim",
            "the solver's infeasibility answer without a proof (`--no-proof`, or a proof cut "
            "short); `check` asks the solver again and says `unproved`, never `holds`",
            ROUND_PROBLEMS,
            None,
            "gossipcert.search.rounds._Search.claim",
            checks.solver_claim,
            proves=lambda ev: False,
            symmetry=_encoding_symmetry,
            models_note=_ENCODED,
        ),
        EvidenceKind(
            "reversal",
            "a reduce or reduce-scatter optimum with the whole certificate of its dual "
            "(broadcast or gossip), checked like any certificate, and the duality",
            frozenset({ProblemKind.REDUCE, ProblemKind.REDUCE_SCATTER}),
            None,
            "gossipcert.search.reversal.solve_by_reversal",
            checks.reversal,
            proves=_reversal_proves,
            models_note="those symmetric under time reversal",
        ),
        EvidenceKind(
            "allreduce-bracket",
            "an allreduce lower bound (receive, receipts, cut: recomputed; reduce-scatter or "
            "gossip: with that problem's whole certificate) met by a verified schedule",
            _ALLREDUCE,
            None,
            "gossipcert.search.allreduce.solve_allreduce",
            checks.allreduce_bracket,
            proves=_bracket_proves,
        ),
        EvidenceKind(
            "allreduce-drat",
            "a proof that the allreduce CNF (exact, or its union relaxation) for `R* - 1` "
            "rounds is unsatisfiable; `check` regenerates the CNF",
            _ALLREDUCE,
            None,
            "gossipcert.search.allreduce.solve_allreduce",
            checks.allreduce_drat,
            symmetry=_union_symmetry,
        ),
        EvidenceKind(
            "allreduce-packing",
            "weights on the port slots of `R* - 1` rounds and a proof that every chunk "
            "weighs at least `W` in them, with `K W` above the slots' weight; `check` "
            "regenerates and re-checks both",
            _ALLREDUCE,
            None,
            "gossipcert.proofs.allreduce_packing.packing_bound",
            checks.allreduce_packing,
            symmetry=_packing_symmetry,
        ),
    )
}


def kind_of(evidence: dict[str, Any]) -> EvidenceKind | None:
    """The registered kind of an evidence record (None: no such kind).

    Parameters
    ----------
    evidence : dict

    Returns
    -------
    EvidenceKind or None
    """
    name = evidence.get("kind")
    return KINDS.get(name) if isinstance(name, str) else None


def proves(evidence: dict[str, Any]) -> bool:
    """Whether an evidence record proves its lower bound: a registered kind other than a
    solver's word (for a reduction: its dual's or sub-problem's evidence likewise).

    Parameters
    ----------
    evidence : dict

    Returns
    -------
    bool

    Examples
    --------
    >>> proves({"kind": "closed-form"}), proves({"kind": "solver-claim"}), proves({})
    (True, False, False)
    """
    kind = kind_of(evidence)
    return kind is not None and kind.proves(evidence)


def markdown_table() -> str:
    """The table of evidence kinds of ``docs/evidence.md``, from :data:`KINDS`.

    Returns
    -------
    str
        Markdown, one row per kind.
    """
    lines = [
        "| kind | problems | models | what it proves, how `check` re-derives it | written by |",
        "|---|---|---|---|---|",
    ]
    for k in KINDS.values():
        problems = "every problem" if k.problems == frozenset(ProblemKind) else _names(k.problems)
        if k.models is None:
            models = k.models_note or "every model"
        else:
            models = _names(k.models) + (f" ({k.models_note})" if k.models_note else "")
        lines.append(f"| `{k.name}` | {problems} | {models} | {k.summary} | `{k.writer}` |")
    return "\n".join(lines)
