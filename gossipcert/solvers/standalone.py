"""The standalone formula of a horizon: the encoding of an instance extended to ``rounds``
rounds, its symmetry broken by lex-leader clauses (:mod:`gossipcert.symmetry.automorphisms`)
when the options ask for it, and every demand required after the last round. The same
variables and constraint order every time, so its CNF
(:class:`gossipcert.encodings.cnf.StandaloneCNF`) is deterministic: the formula refuted by
the proofs and exported for outside solvers.
"""

from __future__ import annotations

from gossipcert.encodings import Encoding, EncodingOptions, encoding_for
from gossipcert.encodings.cnf import StandaloneCNF, cnf_of
from gossipcert.encodings.formula import Formula
from gossipcert.instance import Instance
from gossipcert.symmetry.automorphisms import add_lex_leader, automorphism_generators


def standalone_encoding(
    instance: Instance, rounds: int, options: EncodingOptions
) -> tuple[Encoding, int]:
    """The encoding of ``instance`` for horizon ``rounds`` with every demand required, and the
    number of symmetry generators used (same variables and constraint order every time)."""
    enc = encoding_for(instance, options)
    enc.extend_to(rounds)
    gens = add_lex_leader(enc, automorphism_generators(instance)) if enc.options.symmetry else 0
    enc.require(rounds)
    return enc, gens


def standalone_formula(
    instance: Instance, rounds: int, options: EncodingOptions
) -> tuple[Formula, int]:
    """The formula of :func:`standalone_encoding`, and the number of symmetry generators."""
    enc, gens = standalone_encoding(instance, rounds, options)
    return enc.formula, gens


def standalone_cnf(instance: Instance, rounds: int, options: EncodingOptions) -> StandaloneCNF:
    """The CNF of :func:`standalone_formula`."""
    formula, gens = standalone_formula(instance, rounds, options)
    return cnf_of(formula, rounds, options, gens)
