"""Export of the time-expanded model for a fixed horizon: DIMACS CNF and OPB.

The exported formula is the one :mod:`gossipcert.exact.proof` builds (every demand required
after round ``R``), so any external SAT or pseudo-Boolean solver can decide "``R`` rounds
suffice". In OPB, at-most-one groups and cardinality bounds stay native constraints instead
of their CNF encodings.

References
----------
.. [1] O. Roussel and V. Manquinho, "Input/output format and solver requirements for the
   competitions of pseudo-Boolean solvers" (the OPB format).
"""

from __future__ import annotations

from gossipcert.encodings import EncodingOptions
from gossipcert.encodings.formula import Formula
from gossipcert.errors import SpecError
from gossipcert.exact.proof import standalone_cnf, standalone_formula
from gossipcert.instance import Instance

FORMATS = ("dimacs", "opb")

#: the most constraints an exported formula may have (a few dozen bytes each in memory and
#: in the file: about 2 GiB)
MAX_EXPORT_ITEMS = 1 << 25

#: horizons up to this are exported without an estimate first
ESTIMATE_FROM = 64


def _term(lit: int, coef: int) -> str:
    return f"{coef:+d} {'~' if lit < 0 else ''}x{abs(lit)}"


def formula_to_opb(formula: Formula, comment: str = "") -> str:
    """OPB text of a formula: clauses as ``>= 1``, at-most-one and ``<= k`` as ``>= -k``."""
    lines: list[str] = []
    nvars = 0
    for item in formula.items:
        lits = item[1]
        nvars = max([nvars, *(abs(x) for x in lits)])
        if item[0] == "or":
            lines.append(" ".join(_term(x, 1) for x in lits) + " >= 1 ;" if lits else "0 >= 1 ;")
        else:
            k = 1 if item[0] == "amo" else item[2]
            lines.append(" ".join(_term(x, -1) for x in lits) + f" >= {-k} ;")
    head = [f"* #variable= {nvars} #constraint= {len(lines)}"]
    head += [f"* {c}" for c in comment.splitlines()]
    return "\n".join(head + lines) + "\n"


def estimated_items(instance: Instance, rounds: int, options: EncodingOptions) -> int:
    """About how many constraints the formula of ``rounds`` rounds has: those of
    ``ESTIMATE_FROM // 4`` rounds, plus the growth of its last round for every further one.

    Parameters
    ----------
    instance : Instance
    rounds : int
    options : EncodingOptions

    Returns
    -------
    int
        The estimate (exact up to ``ESTIMATE_FROM // 4`` rounds). It is low where rounds
        still grow after round 16, on graphs of diameter above 16 (about 0.7 of the true
        size for gossip on path:40 at 70 rounds), so the cap of :func:`export` is a guard
        against absurd horizons, not an exact limit.
    """
    base = ESTIMATE_FROM // 4
    if rounds <= base:
        return len(standalone_formula(instance, rounds, options)[0].items)
    last = len(standalone_formula(instance, base, options)[0].items)
    before = len(standalone_formula(instance, base - 1, options)[0].items)
    return last + (rounds - base) * max(last - before, 1)


def export(instance: Instance, rounds: int, fmt: str, options: EncodingOptions) -> str:
    """The formula "``rounds`` rounds suffice" for ``instance`` in format ``fmt``.

    Raises
    ------
    SpecError
        A horizon above ``ESTIMATE_FROM`` whose formula would have more than
        ``MAX_EXPORT_ITEMS`` constraints (:func:`estimated_items`).
    """
    if rounds > ESTIMATE_FROM:
        items = estimated_items(instance, rounds, options)
        if items > MAX_EXPORT_ITEMS:
            raise SpecError(
                f"the formula of {rounds} rounds would have about {items:,} constraints (at "
                f"most {MAX_EXPORT_ITEMS:,} are exported); ask for fewer rounds"
            )
    comment = (
        f"gossipcert: {instance.graph.graph.get('spec', 'graph')} {instance.model.spec()} "
        f"{instance.problem.spec()} in {rounds} rounds; encoding {options.to_json()}"
    )
    if fmt == "dimacs":
        cnf = standalone_cnf(instance, rounds, options)
        return f"c {comment}\nc sha256 of the lines below: {cnf.sha256()}\n" + cnf.dimacs()
    formula, _ = standalone_formula(instance, rounds, options)
    return formula_to_opb(formula, comment)
