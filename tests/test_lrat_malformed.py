"""Each compiled LRAT checker refuses malformed input on its own.

The two-verdict rule is only as strong as the weaker reader: a proof that breaks the LRAT
format must be refused by ``gossipcert-lrat (compiled)`` and by ``hint-fixpoint
(compiled)`` each, whatever the other does. Before, hint-fixpoint accepted a ``d`` or a line
break where a zero ends the literals, ``-0`` for that zero, and anything after the empty
clause.

:func:`well_formed` is the grammar, written here from the format (Cruz-Filipe et al., CADE
2017): every non-blank line is ``id l1 .. lk 0 h1 .. hm 0`` (an addition) or ``id d c1 ..
cj 0`` (a deletion); an addition's id and the deleted clauses are positive (a deletion's id,
which no reader uses, may be 0, as CaDiCaL's binary proof read as text has it); numbers are
decimal, of at most 18 digits (leading zeros read as the same number), never ``-0``; tokens
are separated by spaces. Random edits of genuine proofs that break it are refused by each
checker.
"""

from __future__ import annotations

import random
import re

import pytest

from gossipcert.proofs.drat import parse_dimacs
from tests.test_proof_compiled import CHECKERS, FORMULA, MALFORMED_PROOFS, WELL_FORMED
from tests.test_proof_trim import genuine

_NUMBER = re.compile(r"-?[0-9]{1,18}")


def well_formed(proof: str) -> bool:
    """Whether ``proof`` follows the LRAT grammar (module docstring).

    Examples
    --------
    >>> well_formed("5 2 0 1 2 0\\n5 d 1 0\\n6 0 5 3 0\\n"), well_formed("5 2 d 1 2 0\\n")
    (True, False)
    """
    for line in proof.split("\n"):
        if set(line) - set("0123456789- d"):
            return False
        tokens = line.split()
        if not tokens:
            continue
        if not all(t == "d" or (_NUMBER.fullmatch(t) and t != "-0") for t in tokens):
            return False
        rest = tokens[1:]
        if tokens[0] == "d" or int(tokens[0]) < (0 if rest[:1] == ["d"] else 1):
            return False
        if rest[:1] == ["d"]:
            ids = rest[1:]
            if not ids or ids[-1] == "d" or int(ids[-1]) != 0:
                return False
            if any(t == "d" or int(t) <= 0 for t in ids[:-1]):
                return False
        else:
            if "d" in rest or not rest:
                return False
            values = [int(t) for t in rest]  # leading zeros read as the same number
            if values.count(0) != 2 or values[-1] != 0:
                return False
    return True


def _mutations(proof: str, rng: random.Random, count: int) -> list[str]:
    """``count`` random edits of ``proof``: a token inserted, a character removed or replaced."""
    pieces = ["d", "0", "-0", "\n", " ", "x", "-", "7", "--1", " d ", " 0", "\n0", "00", "\t"]
    out = []
    for _ in range(count):
        at = rng.randrange(len(proof) + 1)
        edit = rng.randrange(3)
        if edit == 0:
            out.append(proof[:at] + rng.choice(pieces) + proof[at:])
        elif edit == 1 and at < len(proof):
            out.append(proof[:at] + proof[at + 1 :])
        elif at < len(proof):
            out.append(proof[:at] + rng.choice("0d-\n 19x") + proof[at + 1 :])
    return out


def _verdict(checker: str, clauses: list[list[int]], proof: str, nvars: int) -> str:
    engine = CHECKERS[checker]
    got = engine(clauses, proof.encode(), nvars)
    return "refused" if got is None else got.status


def _cases() -> list[tuple[list[list[int]], str, int]]:
    _, small = parse_dimacs(FORMULA)
    clauses, lines = genuine()
    nvars = max(abs(x) for c in clauses for x in c)
    return [(small, WELL_FORMED, 2), (clauses, "\n".join(lines) + "\n", nvars)]


def test_the_suite_s_malformed_corpus_breaks_the_grammar() -> None:
    assert well_formed(WELL_FORMED)
    content = [p for p in MALFORMED_PROOFS if well_formed(p)]
    # every case of the corpus breaks the grammar but two, refused for their content: a
    # variable beyond the formula's, and an id beyond any the formula and proof could use
    assert len(MALFORMED_PROOFS) == 25 and len(content) == 2
    assert all("99999999999999999" in p or "5 9 0" in p for p in content)


@pytest.mark.parametrize("checker", sorted(CHECKERS))
@pytest.mark.parametrize("seed", range(4))
def test_random_edits_that_break_the_grammar_are_refused(checker: str, seed: int) -> None:
    rng = random.Random(seed)
    broken = 0
    for clauses, proof, nvars in _cases():
        assert well_formed(proof) and _verdict(checker, clauses, proof, nvars) == "verified"
        for mutant in _mutations(proof, rng, 400):
            if well_formed(mutant):
                continue
            broken += 1
            assert _verdict(checker, clauses, mutant, nvars) == "refused", repr(mutant)
    assert broken > 300
