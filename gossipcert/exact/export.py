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
from gossipcert.exact.proof import standalone_cnf, standalone_formula
from gossipcert.instance import Instance

FORMATS = ("dimacs", "opb")


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


def export(instance: Instance, rounds: int, fmt: str, options: EncodingOptions) -> str:
    """The formula "``rounds`` rounds suffice" for ``instance`` in format ``fmt``."""
    comment = (
        f"gossipcert: {instance.graph.graph.get('spec', 'graph')} {instance.model.spec()} "
        f"{instance.problem.spec()} in {rounds} rounds; encoding {options.to_json()}"
    )
    if fmt == "dimacs":
        cnf = standalone_cnf(instance, rounds, options)
        return f"c {comment}\nc sha256 of the lines below: {cnf.sha256()}\n" + cnf.dimacs()
    formula, _ = standalone_formula(instance, rounds, options)
    return formula_to_opb(formula, comment)
