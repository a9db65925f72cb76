"""A second LRAT checker: each step's clause checked by dratify's engine on its hints alone.

gossipcert-lrat (:mod:`gossipcert.proofs.lrat`) follows each step's hints in order itself.
This checker, ``dratify-hints``, shares no code with it and does no propagation of its own:
for every addition ``i l1 .. lk 0 h1 .. hm 0`` it builds the small formula made of the
clauses ``h1 .. hm`` (each must be live) and the units ``-l1 .. -lk``, and asks ``dratify``
(its Rust engine where ``cdclkit[native]`` provides it) whether the empty clause follows
by unit propagation. If it does, the added clause is implied by clauses of the current set
(``S and not C`` is contradictory already on the hints), so the set stays satisfiable if
the formula is. The order of the hints is not used: only that they are live clauses.

Rules (the state is a table of live clauses by id; formula clauses have ids ``1 .. n``):

- an addition's id must be larger than every id before it; its hints must all be positive
  (RAT steps are not accepted by this checker: a proof with one is rejected, never
  passed) and live; the step is accepted when dratify derives the empty clause from the
  hints and the negated clause; the clause then joins the table;
- a deletion ``i d j1 .. jm 0`` removes the clauses from the table (a clause that is not
  live is ignored and counted); a later step that names a deleted clause is rejected;
- the proof is verified when an addition of the empty clause is accepted.

Deletions are applied soundly: no assignment outlives a step (each step is one fresh call
to dratify on its own small formula), so a deleted clause leaves nothing behind — the
defect of dratify's whole-proof mode with deletions on cannot arise. Each call checks a
single addition of the empty clause, which dratify can only accept by unit propagation.

References
----------
.. [1] L. Cruz-Filipe, M. J. H. Heule, W. A. Hunt, Jr., M. Kaufmann and P. Schneider-Kamp,
   "Efficient certified RAT verification", CADE 2017, LNCS 10395 (the LRAT format).
.. [2] dratify (PyPI), ``check_proof``; cdclkit (PyPI), its native engine.
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from gossipcert.proofs.drat_extra import load_dratify

#: how many lines pass between two looks at the clock
_CLOCK_EVERY = 2048

#: formulas of more variables than this have each step's variables renamed 0, 1, ... (the
#: native engine's time per call grows with the number of variables it is given: 28 us at
#: 769 variables, 4.9 ms at 70,000, for the same 30 clauses)
COMPACT_ABOVE = 4096

DELETIONS = "applied (each step is checked alone on the clauses it names)"


def checker_name() -> str:
    """This checker's name, with dratify's version and engine."""
    dratify = load_dratify()
    engine = "native" if dratify.native_available() else "python"
    return f"dratify-hints ({getattr(dratify, '__version__', '?')}, {engine} engine)"


@dataclass(frozen=True)
class HintedVerdict:
    """What :func:`check_hinted` found.

    Attributes
    ----------
    status : str
        ``"verified"``, ``"rejected"`` or ``"timeout"``.
    message : str
    additions, deletions, ignored_deletions : int
    seconds : float
    """

    status: str
    message: str
    additions: int
    deletions: int
    ignored_deletions: int
    seconds: float


def _internal(lit: int) -> int:
    """dratify's internal literal of a DIMACS literal (``2 * (var - 1) + sign``)."""
    return 2 * (lit - 1) if lit > 0 else 2 * (-lit - 1) + 1


def _empty_clause_follows(native: Any, nvars: int, clauses: list[Any]) -> bool:
    """dratify's verdict on "the empty clause follows from ``clauses`` (internal literals)
    by unit propagation": its registered native engine called through the ``register_native``
    contract (``check_proof(nvars, clauses, steps, check_rat, apply_deletions)``, a tuple
    whose first field is the verdict and last whether the empty clause was reached), else
    :func:`dratify.check_proof` (``native`` None)."""
    if native is None:
        dratify = load_dratify()
        formula = dratify.CNF(nvars)
        formula.clauses.extend(tuple(c) for c in clauses)
        return bool(dratify.check_proof(formula, [("a", [])], engine="python").ok)
    fields = tuple(native.check_proof(nvars, clauses, [(False, [])], False, False))
    return bool(fields[0]) and bool(fields[-1])


def _implied(
    native: Any, table: dict[int, list[int]], lits: list[int], hints: list[int], nvars: int
) -> str:
    """Empty string when the negated clause and the hint clauses give the empty clause by unit
    propagation (dratify's verdict); else what is wrong. ``nvars`` bounds the variables of
    the table and of ``lits``; past :data:`COMPACT_ABOVE` the step's variables are renamed."""
    clauses = []
    for h in hints:
        clause = table.get(h)
        if clause is None:
            return f"hint {h} is not a live clause"
        clauses.append(clause)
    clauses.extend([_internal(-lit)] for lit in set(lits))
    if nvars > COMPACT_ABOVE:
        # the variables renamed 0, 1, ... in order of appearance (a bijection, so propagation
        # is the same): the engine's work per call then grows with the step, not the formula
        names: dict[int, int] = {}
        clauses = [
            [(names.setdefault(x >> 1, len(names)) << 1) | (x & 1) for x in c] for c in clauses
        ]
        nvars = len(names)
    if _empty_clause_follows(native, nvars, clauses):
        return ""
    return "the clause does not follow from its hints by unit propagation"


def _stored(lits: Iterable[int]) -> list[int]:
    """A clause as kept in the table: internal literals, each once."""
    return [_internal(x) for x in dict.fromkeys(lits)]


def check_hinted(
    clauses: list[list[int]], lines: Iterable[str], deadline: float | None = None
) -> HintedVerdict:
    """Check an LRAT proof of the unsatisfiability of ``clauses`` (module docstring).

    Parameters
    ----------
    clauses : list of list of int
        The formula (DIMACS literals, clause ``i`` is ``clauses[i - 1]``).
    lines : iterable of str
        The LRAT proof's lines.
    deadline : float, optional
        A ``time.monotonic()`` value; the check stops there with status ``timeout``.

    Returns
    -------
    HintedVerdict

    Examples
    --------
    >>> check_hinted([[1, 2], [-1, 2], [-2]], ["4 2 0 1 2 0", "5 0 4 3 0"]).status
    'verified'
    >>> check_hinted([[1, 2], [-1, 2], [-2]], ["4 2 0 1 0", "5 0 4 3 0"]).message
    'line 1: the clause does not follow from its hints by unit propagation'
    """
    dratify = load_dratify()
    start = time.monotonic()
    native = dratify.native_implementation()  # looked up once: the look-up searches imports
    nvars = max((abs(x) for c in clauses for x in c), default=0)
    table = {i: _stored(c) for i, c in enumerate(clauses, start=1)}
    last = len(clauses)
    additions = deletions = ignored = 0
    status, message = "rejected", "the proof ends without deriving the empty clause"
    for number, line in enumerate(lines, start=1):
        if number % _CLOCK_EVERY == 0 and deadline is not None and time.monotonic() > deadline:
            status, message = "timeout", f"deadline passed at line {number}"
            break
        tokens = line.split()
        if not tokens or tokens[0] == "c":
            continue
        try:
            if len(tokens) > 1 and tokens[1] == "d":
                ids = list(map(int, tokens[2:]))
                if not ids or ids.pop() != 0 or any(j <= 0 for j in ids):
                    raise ValueError
                for j in ids:
                    deletions += 1
                    if table.pop(j, None) is None:
                        ignored += 1
                continue
            nums = list(map(int, tokens))
            zero = nums.index(0, 1)
            if nums[-1] != 0 or len(nums) == zero + 1:
                raise ValueError
        except ValueError:
            message = f"line {number}: not an LRAT line"
            break
        cid, lits, hints = nums[0], nums[1:zero], nums[zero + 1 : -1]
        if cid <= last:
            message = f"line {number}: clause id {cid} does not increase (last was {last})"
            break
        last = cid
        if hints and min(hints) <= 0:
            message = f"line {number}: a RAT step (not accepted by this checker)"
            break
        nvars = max(nvars, max(map(abs, lits), default=0))
        problem = _implied(native, table, lits, hints, nvars)
        if problem:
            message = f"line {number}: {problem}"
            break
        additions += 1
        if not lits:
            status = "verified"
            message = (
                f"empty clause derived at line {number}: {additions} clauses added, "
                f"{deletions} deleted"
            )
            break
        table[cid] = _stored(lits)
    return HintedVerdict(status, message, additions, deletions, ignored, time.monotonic() - start)
