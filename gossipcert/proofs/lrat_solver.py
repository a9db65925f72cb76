"""CaDiCaL writing an LRAT proof as it solves, and that proof trimmed.

PySAT's ``with_proof`` makes CaDiCaL write a binary DRAT proof that PySAT turns into text in
Python, and a DRAT proof has to be checked by searching for every lemma's justification.
CaDiCaL 1.9 can instead write **LRAT** (its ``lrat`` option): each learnt clause with the
ids of the clauses that imply it, in propagation order. This module configures it so before
the formula is added (the option must be set before the proof is traced), writes the proof
to a temporary file in CaDiCaL's binary form (cheaper to write than text, and read
without a tokenizer), and on a refutation trims it to the steps the empty clause depends
on, writing the trimmed proof as text (:mod:`gossipcert.proofs.lrat_kernels`, compiled;
the text is what certificates store and checkers read). The solver is the one the search
would use anyway, so the query that decides a horizon also proves it.

References
----------
.. [1] A. Biere, T. Faller, K. Fazekas, M. Fleury, N. Froleyks and F. Pollitt, "CaDiCaL
   2.0", CAV 2024 (LRAT proof output of CaDiCaL 1.9 and later).
.. [2] A. Ignatiev, A. Morgado and J. Marques-Silva, "PySAT: a Python toolkit for
   prototyping with SAT oracles", SAT 2018 (``Cadical195.configure``).
"""

from __future__ import annotations

import tempfile
from functools import cache
from typing import Any

import numpy as np
import pysolvers
from pysat.solvers import Solver

from gossipcert.proofs.trim import Renaming, TrimmedProof, binary_to_text, trim_lrat

#: the PySAT name of the proof-writing solver
LRAT_SOLVER = "cadical195"


@cache
def compiled_available() -> bool:
    """Whether the compiled LRAT kernels load here (numba imports, and can cache their
    code beside the package or in its user-wide cache). Without them proofs are trimmed and
    checked by the Python versions, more slowly. Their first use after an install compiles
    them, which a running search is told of first (:mod:`gossipcert.proofs.kernel_notice`)."""
    try:
        import gossipcert.proofs.fixpoint
        import gossipcert.proofs.lrat_compiled
        import gossipcert.proofs.lrat_kernels
    except Exception:  # pragma: no cover - numba is a dependency; a read-only install
        return False
    from gossipcert.proofs import kernel_notice

    proofs = gossipcert.proofs
    kernel_notice.announce([proofs.lrat_kernels, proofs.lrat_compiled, proofs.fixpoint])
    return True


def add_clauses(solver: Any, clauses: list[list[int]]) -> None:
    """Add ``clauses`` to a PySAT CaDiCaL 1.9.5 ``solver`` by the binding's own call, one
    Python call per clause (PySAT's ``add_clause`` goes through two methods each)."""
    inner = solver.solver
    add, handle = pysolvers.cadical195_add_cl, inner.cadical
    for clause in clauses:
        if add(handle, clause) is False:  # the formula is refuted already
            inner.status = False


class LratSolver:
    """A CaDiCaL solver on ``clauses`` that writes an LRAT proof (binary) to a temporary file.

    The formula's clauses get the ids ``1 .. len(clauses)`` in order, as LRAT requires;
    use :attr:`solver` as any PySAT solver (``solve_limited``, ``get_model``) and
    :meth:`trimmed` after it answered "unsatisfiable".

    Parameters
    ----------
    clauses : list of list of int
        The formula, in the order whose ids the proof uses.
    binary : bool, default True
        The solver writes CaDiCaL's binary LRAT (else text; the trimmed proof is text
        either way).

    Examples
    --------
    >>> s = LratSolver([[1, 2], [-1, 2], [1, -2], [-1, -2]])
    >>> s.solver.solve()
    False
    >>> s.trimmed().text.splitlines()[-2].split(" 0 ")[0].split()[1:]
    []
    >>> s.close()
    """

    def __init__(self, clauses: list[list[int]], binary: bool = True) -> None:
        self.binary = binary
        self.solver: Any = Solver(name=LRAT_SOLVER)
        self.solver.configure({"lrat": 1, "binary": int(binary)})
        self.file = tempfile.TemporaryFile(prefix="gossipcert-lrat-")
        inner = self.solver.solver
        # PySAT closes the proof file with the solver when these are set
        inner.prfile = self.file
        inner.prfp = pysolvers.cadical195_tracepr(inner.cadical, self.file)
        add_clauses(self.solver, clauses)
        self.ids = self._formula_ids(len(clauses))
        self.size = len(clauses)
        #: the id of the formula's first empty clause, if it has one (no proof is written)
        self.empty = None if all(clauses) else 1 + [bool(c) for c in clauses].index(False)

    def _formula_ids(self, n: int) -> Renaming:
        """The renaming of clause ids from the solver's to the proof's
        (:class:`gossipcert.proofs.trim.Renaming`): CaDiCaL numbers the formula's clauses in
        the order they are added, but a clause it simplifies while adding (a literal already
        fixed by a unit) is derived with an id of its own, taken from the same counter. Empty
        when nothing was derived while adding."""
        pysolvers.flushpr(self.solver.solver.prfp)
        self.file.seek(0)
        data = self.file.read()
        self.file.seek(0, 2)
        text = binary_to_text(data) if self.binary else data
        derived = []
        for line in text.split(b"\n"):
            head, _, rest = line.partition(b" ")
            if head and rest[:2] != b"d ":
                derived.append(int(head))
        return Renaming(n, derived)

    def trimmed(self) -> TrimmedProof:
        """The proof written so far, trimmed to the first empty clause's dependencies.

        Raises
        ------
        gossipcert.errors.SolverError
            The proof has no empty clause (the solver did not refute the formula).
        """
        if self.empty is not None:  # the formula states the empty clause itself
            return TrimmedProof(f"{self.size + 1} 0 {self.empty} 0\n", 1, 1, 0, 0)
        pysolvers.flushpr(self.solver.solver.prfp)
        self.file.seek(0)
        data = self.file.read()
        fast = self._trim_compiled(data) if compiled_available() else None
        if fast is not None:
            return fast
        # without the kernels, or on what they do not read: the line version, which names
        # what is wrong
        return trim_lrat(binary_to_text(data) if self.binary else data, self.ids)

    def _trim_compiled(self, data: bytes) -> TrimmedProof | None:
        """:meth:`trimmed` by the compiled kernels; None when they cannot read the proof or
        find no refutation in it."""
        from gossipcert.proofs.lrat_kernels import OK, read_proof, trim_arrays

        status, _, proof = read_proof(data, binary=self.binary)
        if status != OK or proof is None:
            return None
        rename = None
        if self.ids:
            table = self.ids.table()
            rename = np.zeros(max(table) + 1, np.int64)
            rename[list(table)] = list(table.values())
        status, text, kept, lines, steps = trim_arrays(proof, rename)
        return TrimmedProof(text, kept, lines, steps, proof.lines) if status == OK else None

    def close(self) -> None:
        """Free the solver and its proof file (idempotent)."""
        if self.solver is not None:
            self.solver.delete()
            self.solver = None
            self.file.close()
