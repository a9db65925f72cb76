"""The standalone CNF of a horizon: the clauses "every demand met after round ``rounds``",
numbered and kept as DIMACS text whose SHA-256 hash anyone can recompute.

Every lower-bound proof of the package refutes one of these (:mod:`gossipcert.proofs.refutation`);
the encodings that build their own standalone formula (the allreduce encodings) wrap it here.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from gossipcert.encodings.formula import Formula
from gossipcert.encodings.options import EncodingOptions


@dataclass(frozen=True)
class StandaloneCNF:
    """The CNF "every demand met after round ``rounds``" for one instance."""

    rounds: int
    options: EncodingOptions
    nvars: int
    clauses: list[list[int]]
    generators: int

    def dimacs(self) -> str:
        """DIMACS text (deterministic; made once, then kept: the hash, the checks and the
        evidence all ask for it)."""
        text = self.__dict__.get("_dimacs")
        if text is None:
            lines = [f"p cnf {self.nvars} {len(self.clauses)}"]
            lines += [" ".join(map(str, c)) + " 0" for c in self.clauses]
            text = self.__dict__["_dimacs"] = "\n".join(lines) + "\n"
        return text

    def sha256(self) -> str:
        """SHA-256 of the DIMACS text."""
        return hashlib.sha256(self.dimacs().encode()).hexdigest()


def cnf_of(formula: Formula, rounds: int, options: EncodingOptions, gens: int) -> StandaloneCNF:
    """The :class:`StandaloneCNF` of a standalone formula (numbers its auxiliary variables,
    so call it once per formula)."""
    clauses = formula.cnf_since(0)  # first: it may number new variables
    return StandaloneCNF(rounds, options, formula.vpool.top, clauses, gens)
