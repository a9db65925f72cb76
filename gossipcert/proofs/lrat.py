"""The project's own LRAT proof checker: each step checked against the clauses it names.

LRAT [1]_ is DRAT with the antecedents written down: every added clause lists, in order, the
clauses whose unit propagation derives it (its *hints*), so a checker never searches for
them and deletions cost nothing to handle soundly. ``drat-trim -L FILE`` [2]_ writes an LRAT
proof of the core of a DRAT proof it verified; this module checks such a file on its own.
It shares no code with drat-trim, and the hints are untrusted: a wrong or missing hint makes
a step fail, never pass.

Format (text; one step a line; lines starting with ``c`` are comments):

- the formula's clauses have the ids ``1 .. n`` in DIMACS order;
- an addition ``i l1 .. lk 0 h1 .. hm 0``: clause ``(l1 .. lk)`` with id ``i``, larger than
  every id before it, justified by the hints ``h1 .. hm`` (below);
- a deletion ``i d j1 .. jm 0``: the clauses ``j1 .. jm`` leave the clause set (``i`` is
  not used).

Rules (the checker's state is the set ``S`` of live clauses, by id):

- **RUP part**: every literal of the added clause ``C`` is set false. The positive hints
  before the first negative one are taken in order; each must be a live clause, and the
  literals of it that are not false must be none (a conflict: ``C`` is accepted) or exactly
  one, which is then set true. A hint with two or more such literals, or a hint that is not
  live, rejects the step. Hints after a conflict are not read.
- **RAT part**, only when the RUP part ends without a conflict (``C`` must not be empty):
  the pivot ``p`` is the first literal of ``C`` as written. For **every** live clause ``D``
  that contains ``-p`` (found by the checker, not taken from the hints): if a literal of
  ``D`` other than ``-p`` is already true, ``D`` needs nothing; otherwise the hints must hold
  a group ``-j g1 .. gr`` with ``j`` the id of ``D``: the literals of ``D`` other than ``-p``
  are set false on top of the RUP part's assignment and the group's hints, propagated as
  above, must reach a conflict. A group that names a clause that is not live, or that does
  not contain ``-p``, or a second group for the same clause, rejects the step.
- A tautology (a clause with a literal and its complement) is accepted as it stands.
- A deletion removes the named clauses from ``S``; naming a clause that is not live is
  ignored and counted.
- The proof is valid when an addition of the **empty clause** is accepted. A proof that
  ends without one, an id that does not increase, or a malformed line is a rejection that
  names the line.

Soundness: if the formula is satisfiable, every state ``S`` is. A RUP addition is implied by
its hints, which are clauses of ``S`` (the propagation shows ``S and not C`` is
contradictory). A RAT addition keeps ``S`` satisfiable, because every resolvent on ``p`` with
a clause of ``S`` is implied by ``S`` (a true literal of ``D`` was derived by propagation from
``not C`` over clauses of ``S``, so ``not (C + D - {-p})`` propagates to a conflict; the
groups are that propagation written out), and the checker looked at every such clause
itself. A tautology is satisfied by every assignment; a deletion only removes clauses. So
the empty clause in ``S`` means the formula is unsatisfiable. Deletions are applied, not
ignored: no state outlives a step (each step starts from no assignment), so a deleted
clause can leave nothing behind.

Literals are DIMACS integers; clauses are stored as frozensets, and "the literals of ``D``
that are not false" is one set difference.

References
----------
.. [1] L. Cruz-Filipe, M. J. H. Heule, W. A. Hunt, Jr., M. Kaufmann and P. Schneider-Kamp,
   "Efficient certified RAT verification", CADE 2017, LNCS 10395 (the LRAT format).
.. [2] N. Wetzler, M. J. H. Heule and W. A. Hunt, Jr., "DRAT-trim: efficient checking and
   trimming using expressive clausal proofs", SAT 2014, LNCS 8561.
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from dataclasses import dataclass
from operator import neg
from pathlib import Path
from typing import Any

from gossipcert.proofs.drat import parse_dimacs
from gossipcert.statuses import Verdict

#: how many proof lines pass between two looks at the clock
_CLOCK_EVERY = 4096

CHECKER_NAME = "gossipcert-lrat"
DELETIONS = "applied (every step names its antecedents)"


@dataclass(frozen=True)
class LratVerdict:
    """What :func:`check_lrat` found.

    Attributes
    ----------
    status : Verdict
        ``"verified"``, ``"rejected"`` or ``"timeout"`` (no verdict: the deadline passed).
    message : str
        One line for a person: why the proof was rejected, or what was checked.
    additions, deletions : int
        Steps read up to the verdict (deletions count the clauses named).
    rat_steps : int
        Additions accepted by their RAT part.
    ignored_deletions : int
        Deletions of clauses that were not live.
    seconds : float
    """

    status: Verdict
    message: str
    additions: int
    deletions: int
    rat_steps: int
    ignored_deletions: int
    seconds: float

    @property
    def ok(self) -> bool:
        """True when the proof was verified."""
        return self.status == Verdict.VERIFIED


class _RejectedError(Exception):
    """A proof line that is not justified or not well formed (internal)."""


def _propagate(live: dict[int, frozenset[int]], false: set[int], hints: list[int]) -> bool:
    """Unit propagation over ``hints`` (ids of live clauses, in order), extending ``false``
    (the literals set false); True at a conflict, False when the hints run out first."""
    add = false.add  # the hot loop of the checker: one set difference per hint
    h = 0
    try:
        for h in hints:
            rest = live[h] - false
            if len(rest) == 1:
                (unit,) = rest
                add(-unit)
            elif not rest:
                return True
            else:
                raise _RejectedError(f"hint {h} is not unit ({len(rest)} literals not false)")
    except KeyError:
        raise _RejectedError(f"hint {h} is not a live clause") from None
    return False


class _Live(dict[int, frozenset[int]]):
    """The live clauses by id. A formula clause is made a set when a step first names it
    (most of a large formula is never named by a trimmed proof); :meth:`materialise` makes
    every one of them (the RAT part looks at all clauses)."""

    def __init__(self, formula: list[list[int]]) -> None:
        super().__init__()
        self.formula = formula
        #: formula clauses deleted before any step named them
        self.gone: set[int] = set()
        self.whole = False

    def __missing__(self, key: int) -> frozenset[int]:
        if self.whole or not 0 < key <= len(self.formula) or key in self.gone:
            raise KeyError(key)
        clause = self[key] = frozenset(self.formula[key - 1])
        self.gone.add(key)  # made once: from now on it is in the table or deleted from it
        return clause

    def get(self, key: int, default: Any = None) -> Any:
        try:
            return self[key]
        except KeyError:
            return default

    def pop(self, key: int, default: Any = None) -> Any:
        clause = self.get(key)
        if clause is None:
            return default
        return super().pop(key)

    def materialise(self) -> None:
        for key in range(1, len(self.formula) + 1):
            if key not in self.gone:
                self[key]
        self.whole = True


class _Checker:
    """The clause set ``S`` and the rules of the module docstring."""

    def __init__(self, clauses: list[list[int]]) -> None:
        self.live = _Live(clauses)
        self.last = len(clauses)
        #: literal -> ids of the live clauses containing it; built at the first RAT part
        self.occ: dict[int, set[int]] | None = None
        self.additions = self.deletions = self.rat_steps = self.ignored = 0

    def _occurrences(self) -> dict[int, set[int]]:
        if self.occ is None:
            self.live.materialise()
            occ: dict[int, set[int]] = {}
            for i, c in self.live.items():
                for lit in c:
                    occ.setdefault(lit, set()).add(i)
            self.occ = occ
        return self.occ

    def delete(self, ids: list[int]) -> None:
        for j in ids:
            clause = self.live.pop(j, None)
            self.deletions += 1
            if clause is None:
                self.ignored += 1
            elif self.occ is not None:
                for lit in clause:
                    self.occ[lit].discard(j)

    def add(self, cid: int, lits: list[int], hints: list[int]) -> bool:
        """Check and add one clause; True when it is the empty clause."""
        if cid <= self.last:
            raise _RejectedError(f"clause id {cid} does not increase (last was {self.last})")
        self.last = cid
        clause = frozenset(lits)
        if clause.isdisjoint(map(neg, lits)) and not self._justified(lits, clause, hints):
            raise _RejectedError("the clause is neither RUP by its hints nor RAT")
        self.live[cid] = clause
        if self.occ is not None:
            for lit in clause:
                self.occ.setdefault(lit, set()).add(cid)
        self.additions += 1
        return not lits

    def _justified(self, lits: list[int], clause: frozenset[int], hints: list[int]) -> bool:
        first_group = len(hints)
        if hints and min(hints) < 0:
            first_group = next(k for k, h in enumerate(hints) if h < 0)
        false = set(clause)
        if _propagate(
            self.live, false, hints if first_group == len(hints) else hints[:first_group]
        ):
            return True
        if not lits:
            raise _RejectedError("the empty clause: its hints reach no conflict")
        pivot = lits[0]
        groups: dict[int, list[int]] = {}
        k = first_group
        while k < len(hints):
            end = next((m for m in range(k + 1, len(hints)) if hints[m] < 0), len(hints))
            j = -hints[k]
            if j in groups:
                raise _RejectedError(f"two RAT groups for clause {j}")
            d = self.live.get(j)
            if d is None or -pivot not in d:
                raise _RejectedError(f"RAT group for clause {j}, not a live clause with {-pivot}")
            groups[j] = hints[k + 1 : end]
            k = end
        for j in sorted(self._occurrences().get(-pivot, ())):
            rest = self.live[j] - {-pivot}
            if any(-x in false for x in rest):  # a literal of D is already true
                continue
            if j not in groups:
                raise _RejectedError(f"RAT on {pivot}: no hints for the resolvent with clause {j}")
            if not _propagate(self.live, false | rest, groups[j]):
                raise _RejectedError(f"RAT on {pivot}: the resolvent with clause {j} is not RUP")
        self.rat_steps += 1
        return True


def _numbers(tokens: list[str]) -> list[int]:
    try:
        return list(map(int, tokens))
    except ValueError:
        raise _RejectedError("a token that is not an integer") from None


def check_lrat(
    clauses: list[list[int]], lines: Iterable[str], deadline: float | None = None
) -> LratVerdict:
    """Check an LRAT proof of the unsatisfiability of ``clauses``.

    Parameters
    ----------
    clauses : list of list of int
        The formula, in DIMACS order (clause ``i`` of the proof is ``clauses[i - 1]``).
    lines : iterable of str
        The proof's lines (read one at a time, so a file object works).
    deadline : float, optional
        A ``time.monotonic()`` value; the check stops there with status ``timeout``.

    Returns
    -------
    LratVerdict

    Examples
    --------
    >>> check_lrat([[1, 2], [-1, 2], [-2]], ["4 2 0 1 2 0", "5 0 4 3 0"]).status
    <Verdict.VERIFIED: 'verified'>
    >>> check_lrat([[1, 2], [-1, 2], [-2]], ["4 2 0 9 0", "5 0 4 3 0"]).message
    'line 1 (clause 4): hint 9 is not a live clause'
    """
    start = time.monotonic()
    checker = _Checker(clauses)
    number = 0
    status, message = Verdict.REJECTED, "the proof ends without deriving the empty clause"
    try:
        for number, line in enumerate(lines, start=1):
            if number % _CLOCK_EVERY == 0 and deadline is not None and time.monotonic() > deadline:
                status, message = Verdict.TIMEOUT, f"deadline passed at line {number}"
                break
            tokens = line.split()
            if not tokens or tokens[0] == "c":
                continue
            where = f"line {number}"
            try:
                if len(tokens) > 1 and tokens[1] == "d":
                    ids = _numbers(tokens[2:])
                    if not ids or ids[-1] != 0 or 0 in ids[:-1] or min(ids[:-1], default=1) < 0:
                        raise _RejectedError("a deletion is not 'i d j1 .. jm 0'")
                    checker.delete(ids[:-1])
                    continue
                nums = _numbers(tokens)
                where = f"line {number} (clause {nums[0]})"
                if nums[0] <= 0 or 0 not in nums[1:] or nums[-1] != 0:
                    raise _RejectedError("an addition is not 'i l1 .. lk 0 h1 .. hm 0'")
                k = nums.index(0, 1)
                hints = nums[k + 1 : -1]
                if k + 1 == len(nums) or 0 in hints:
                    raise _RejectedError("an addition is not 'i l1 .. lk 0 h1 .. hm 0'")
                if checker.add(nums[0], nums[1:k], hints):
                    status = Verdict.VERIFIED
                    message = (
                        f"empty clause derived at line {number}: {checker.additions} clauses "
                        f"added ({checker.rat_steps} by RAT), {checker.deletions} deleted"
                    )
                    break
            except _RejectedError as exc:
                message = f"{where}: {exc}"
                break
    except OSError as exc:  # a file that cannot be read is no proof
        message = f"cannot read the proof: {exc}"
    return LratVerdict(
        status,
        message,
        checker.additions,
        checker.deletions,
        checker.rat_steps,
        checker.ignored,
        time.monotonic() - start,
    )


def check_lrat_text(cnf_text: str, proof: str, deadline: float | None = None) -> LratVerdict:
    """:func:`check_lrat` on a DIMACS formula and an LRAT proof, both as text.

    A formula that cannot be parsed is a rejection.
    """
    try:
        _, clauses = parse_dimacs(cnf_text)
    except ValueError as exc:
        return LratVerdict(Verdict.REJECTED, f"formula: {exc}", 0, 0, 0, 0, 0.0)
    return check_lrat(clauses, proof.splitlines(), deadline)


def check_lrat_file(cnf_text: str, path: Path, deadline: float | None = None) -> LratVerdict:
    """:func:`check_lrat` on a DIMACS formula (text) and an LRAT proof file, read line by
    line."""
    try:
        _, clauses = parse_dimacs(cnf_text)
    except ValueError as exc:
        return LratVerdict(Verdict.REJECTED, f"formula: {exc}", 0, 0, 0, 0, 0.0)
    with path.open() as handle:
        return check_lrat(clauses, handle, deadline)
