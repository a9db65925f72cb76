"""The project's own DRAT proof checker: forward RUP/RAT, sound deletions, nothing shared.

This is the second, independent verdict on every DRAT proof that gossipcert stores (the
first comes from ``dratify``; ``drat-trim`` adds a third where it is installed). It shares no
code with the solver or with the other checkers, and it is written to be read: one pass over
the proof, one propagation routine, one rule per kind of step.

Rules (the checker's state is a clause set ``S`` and the literals that unit propagation
fixes at the root, each with the clause that implied it):

- ``S`` starts as the formula; the root is propagated to a fixpoint.
- An added clause ``C`` is accepted when it is **RUP** (assigning every literal of ``C``
  false and propagating over ``S`` gives a conflict), or else **RAT** on its first literal
  ``l`` as written (for every clause ``D`` of ``S`` that contains ``-l``, the resolvent
  ``C + (D - {-l})`` is a tautology or RUP). ``C`` then joins ``S`` and the root is
  propagated again; a conflict there means ``S`` is refuted by unit propagation.
- A deletion removes one copy of the clause from ``S``, **except** when that clause is a unit
  clause or the reason for a root literal: then the deletion is ignored, as drat-trim does,
  and counted. Otherwise the root assignment would keep a literal that nothing in ``S``
  implies any more — the defect that let forged proofs through another checker.
  Deleting a clause that is not in ``S`` is ignored and counted too.
- The proof is valid when it adds the empty clause and that step is accepted (``S`` is
  refuted by unit propagation), or when ``S`` is refuted by unit propagation after its last
  step (as drat-trim accepts). A proof that ends otherwise, a step that is neither RUP nor
  RAT, or a malformed token is a rejection that names the step.

Soundness in one line: every state ``S`` is satisfiable if the formula is (a RUP or RAT
addition and a deletion each preserve satisfiability, an ignored deletion changes nothing),
and the root literals are implied by ``S`` (their reasons are never deleted), so a conflict
at the root means the formula is unsatisfiable.

Literals are stored as ``2 * var + sign`` (sign 1 for a negative literal), so ``lit ^ 1`` is
the complement; ``value[lit]`` is 1 when ``lit`` is true. Each clause of two or more
literals is watched by its first two literals (two-watched-literal propagation).

References
----------
.. [1] N. Wetzler, M. J. H. Heule and W. A. Hunt, Jr., "DRAT-trim: efficient checking and
   trimming using expressive clausal proofs", SAT 2014, LNCS 8561 (the format, and the
   convention of ignoring deletions of unit and reason clauses).
.. [2] M. J. H. Heule, W. A. Hunt, Jr. and N. Wetzler, "Verifying refutations with extended
   resolution", CADE 2013 (the RAT rule, pivot = first literal).
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass

from gossipcert.statuses import Verdict

#: how many proof steps pass between two looks at the clock
_CLOCK_EVERY = 2048

CHECKER_NAME = "gossipcert-drat (forward RUP/RAT, deletions of unit and reason clauses ignored)"


@dataclass(frozen=True)
class DratVerdict:
    """What :func:`check_drat_text` found.

    Attributes
    ----------
    status : Verdict
        ``"verified"``, ``"rejected"`` or ``"timeout"`` (no verdict: the deadline passed).
    message : str
        One line for a person: why the proof was rejected, or what was checked.
    additions, deletions : int
        Steps read up to the verdict.
    ignored_deletions : int
        Deletions of unit or reason clauses, or of clauses not present, that were ignored.
    rat_steps : int
        Additions accepted by RAT rather than RUP.
    seconds : float
    """

    status: Verdict
    message: str
    additions: int
    deletions: int
    ignored_deletions: int
    rat_steps: int
    seconds: float

    @property
    def ok(self) -> bool:
        """True when the proof was verified."""
        return self.status == Verdict.VERIFIED


class _RejectedError(Exception):
    """A proof step that is not justified (internal)."""


class _DeadlineError(Exception):
    """The deadline passed in the middle of a step (internal)."""


#: one whole step on one line, as solvers write them: ``[d ]lit lit ... 0``, single spaces
_STEP_LINE = re.compile(r"(d )?((?:-?[1-9][0-9]* )*)0")
#: one token: a literal or the terminating 0 (no '+', no '-0', no '_', ASCII digits only)
_NUMBER = re.compile(r"-?[1-9][0-9]*|0")


def _steps(lines: list[str], deletions: bool, what: str) -> list[tuple[bool, list[int]]]:
    """The clauses of DIMACS-like lines as ``(is_deletion, literals)``.

    A line that holds exactly one step takes a fast path; any other line is read token by
    token (a clause may span lines, or a line hold several).
    """
    steps: list[tuple[bool, list[int]]] = []
    deleting = False
    cur: list[int] = []
    for s in lines:
        if not cur and not deleting:
            m = _STEP_LINE.fullmatch(s)
            if m and (deletions or m.group(1) is None):
                steps.append((m.group(1) is not None, [int(x) for x in m.group(2).split()]))
                continue
        for tok in s.split():
            if tok == "d" and deletions:
                if cur or deleting:
                    raise _RejectedError(f"{what} step {len(steps) + 1}: 'd' inside a clause")
                deleting = True
            elif _NUMBER.fullmatch(tok):
                x = int(tok)
                if x == 0:
                    steps.append((deleting, cur))
                    deleting, cur = False, []
                else:
                    cur.append(x)
            else:
                raise _RejectedError(f"{what} step {len(steps) + 1}: bad token {tok[:20]!r}")
    if cur or deleting:
        raise _RejectedError(f"{what} step {len(steps) + 1} is not ended by 0 (truncated?)")
    return steps


def _content_lines(text: str) -> list[str]:
    """Stripped lines, without blank and comment lines."""
    out = []
    for line in text.splitlines():
        s = line.strip()
        if s and s[0] != "c":
            out.append(s)
    return out


def parse_dimacs(text: str) -> tuple[int, list[list[int]]]:
    """The variable count and clauses of a DIMACS CNF text.

    Parameters
    ----------
    text : str
        ``p cnf V C`` header, comment lines starting with ``c``, clauses ended by ``0``.

    Returns
    -------
    (int, list of list of int)

    Raises
    ------
    ValueError
        On a missing or repeated header, a bad token, a literal beyond ``V``, a clause count
        that differs from the header, or an unterminated clause.

    Examples
    --------
    >>> parse_dimacs("p cnf 2 2\\n1 0\\n-1 -2 0\\n")
    (2, [[1], [-1, -2]])
    """
    lines = _content_lines(text)
    if not lines or not lines[0].startswith("p"):
        raise ValueError("no 'p cnf' header before the clauses")
    parts = lines[0].split()
    if (
        len(parts) != 4
        or parts[:2] != ["p", "cnf"]
        or not all(_NUMBER.fullmatch(x) and not x.startswith("-") for x in parts[2:])
    ):
        raise ValueError(f"bad DIMACS header {lines[0][:40]!r}")
    nvars, ncls = int(parts[2]), int(parts[3])
    try:
        steps = _steps(lines[1:], deletions=False, what="formula clause")
    except _RejectedError as exc:
        raise ValueError(str(exc)) from None
    clauses = [c for _, c in steps]
    for c in clauses:
        for x in c:
            if abs(x) > nvars:
                raise ValueError(f"literal {x} beyond the header's {nvars} variables")
    if len(clauses) != ncls:
        raise ValueError(f"header says {ncls} clauses, the formula has {len(clauses)}")
    return nvars, clauses


def _parse_proof(text: str) -> list[tuple[bool, list[int]]]:
    """Steps ``(is_deletion, dimacs_literals)`` of a text DRAT proof."""
    return _steps(_content_lines(text), deletions=True, what="proof")


def _internal_clause(dimacs: list[int]) -> list[int]:
    """Internal literals of a DIMACS clause, duplicates dropped (first occurrence kept)."""
    lits = [x + x if x > 0 else 1 - x - x for x in dimacs]
    return lits if len(set(lits)) == len(lits) else list(dict.fromkeys(lits))


class _Checker:
    """Clause store, root assignment and propagation of one check."""

    def __init__(self, nvars: int, deadline: float | None = None) -> None:
        self.deadline = deadline
        size = 2 * (nvars + 1)
        self.value = bytearray(size)  # value[lit] == 1: lit is true
        self.watches: list[list[int]] = [[] for _ in range(size)]
        self.clauses: list[list[int] | None] = []  # by clause id; None once deleted
        self.by_key: dict[tuple[int, ...], list[int]] = {}  # sorted literals -> live ids
        self.trail: list[int] = []  # root literals first, then a RUP check's assumptions
        self.reason_ids: set[int] = set()  # clauses that imply a root literal (kept forever)
        self.refuted = False  # unit propagation at the root found a conflict

    # -- clause store ----------------------------------------------------------------------

    def add(self, lits: list[int]) -> None:
        """Add a clause (internal literals, no duplicates) and propagate the root."""
        if self.refuted:
            return
        cid = len(self.clauses)
        self.clauses.append(lits)
        self.by_key.setdefault(tuple(sorted(lits)), []).append(cid)
        value = self.value
        if len({lit >> 1 for lit in lits}) < len(lits):
            return  # (no duplicates, so) a tautology: never unit, never conflicting, unwatched
        # order the literals: non-false first, so that the watches obey the invariant
        if len(lits) >= 2 and (value[lits[0] ^ 1] or value[lits[1] ^ 1]):
            lits.sort(key=lambda lit: value[lit ^ 1])
        if len(lits) >= 2:
            self.watches[lits[0]].append(cid)
            self.watches[lits[1]].append(cid)
        if not lits or value[lits[0] ^ 1]:
            self.refuted = True  # every literal false at the root
        elif not value[lits[0]] and (len(lits) == 1 or value[lits[1] ^ 1]):
            mark = len(self.trail)
            self._assign(lits[0])
            self.reason_ids.add(cid)
            if self._propagate(mark, root=True):
                self.refuted = True

    def delete(self, lits: list[int]) -> bool:
        """Delete one copy of a clause; False when the deletion is ignored."""
        ids = self.by_key.get(tuple(sorted(lits)))
        if not ids:
            return False  # not present
        cid = ids[-1]
        if len(lits) == 1 or cid in self.reason_ids:
            return False  # a unit or a reason: keep it, so the root stays implied
        ids.pop()
        self.clauses[cid] = None  # dropped from the watch lists lazily
        return True

    # -- propagation -----------------------------------------------------------------------

    def _assign(self, lit: int) -> None:
        self.value[lit] = 1
        self.trail.append(lit)

    def _propagate(self, head: int, root: bool) -> bool:
        """Propagate the trail from ``head``; True on a conflict."""
        value, trail, watches, clauses = self.value, self.trail, self.watches, self.clauses
        while head < len(trail):
            false_lit = trail[head] ^ 1
            head += 1
            ws = watches[false_lit]
            i = j = 0
            n = len(ws)
            while i < n:
                cid = ws[i]
                i += 1
                c = clauses[cid]
                if c is None:
                    continue  # deleted: drop the watch
                if c[0] == false_lit:
                    c[0], c[1] = c[1], false_lit
                first = c[0]
                if value[first]:
                    ws[j] = cid
                    j += 1
                    continue
                for k in range(2, len(c)):
                    lk = c[k]
                    if not value[lk ^ 1]:
                        c[1], c[k] = lk, false_lit
                        watches[lk].append(cid)
                        break
                else:
                    ws[j] = cid
                    j += 1
                    if value[first ^ 1]:
                        ws[j:] = ws[i:n]  # keep the watches not visited yet
                        return True
                    value[first] = 1
                    trail.append(first)
                    if root:
                        self.reason_ids.add(cid)
            del ws[j:]
        return False

    def _backtrack(self, mark: int) -> None:
        value, trail = self.value, self.trail
        for lit in trail[mark:]:
            value[lit] = 0
        del trail[mark:]

    def rup(self, lits: list[int]) -> bool:
        """Is the clause ``lits`` RUP with respect to the current clause set?"""
        if self.refuted:
            return True
        value = self.value
        mark = len(self.trail)
        conflict = False
        for lit in lits:
            if value[lit]:
                conflict = True  # a literal true at the root (or twice-complemented clause)
                break
            if not value[lit ^ 1]:
                self._assign(lit ^ 1)
        if not conflict:
            conflict = self._propagate(mark, root=False)
        self._backtrack(mark)
        return conflict

    def rat(self, lits: list[int], pivot: int) -> bool:
        """Is ``lits`` RAT on ``pivot`` with respect to the current clause set?"""
        neg = pivot ^ 1
        mine = set(lits)
        for i, c in enumerate(self.clauses):
            if self.deadline is not None and i % _CLOCK_EVERY == 0:
                if time.monotonic() > self.deadline:
                    raise _DeadlineError
            if c is None or neg not in c:
                continue
            resolvent = lits + [x for x in c if x != neg and x not in mine]
            if any(x ^ 1 in mine for x in c if x != neg):
                continue  # tautological resolvent
            if not self.rup(resolvent):
                return False
        return True


def check_drat_text(cnf_text: str, proof_text: str, deadline: float | None = None) -> DratVerdict:
    """Check a text DRAT proof of unsatisfiability of a DIMACS formula.

    Parameters
    ----------
    cnf_text : str
        The formula (DIMACS).
    proof_text : str
        The proof: one step per clause, ``d`` before a deletion, ``0`` ends each step.
    deadline : float, optional
        A ``time.monotonic()`` value; past it the answer is ``timeout``, never a verdict.

    Returns
    -------
    DratVerdict

    Examples
    --------
    The minimal forged proof: deleting the reason for ``-2`` must not leave ``-2`` behind.

    >>> check_drat_text("p cnf 2 2\\n1 0\\n-1 -2 0\\n", "d -1 -2 0\\n2 0\\n0\\n").status
    <Verdict.REJECTED: 'rejected'>
    >>> check_drat_text("p cnf 1 2\\n1 0\\n-1 0\\n", "0\\n").status
    <Verdict.VERIFIED: 'verified'>
    """
    start = time.monotonic()
    counts = {"a": 0, "d": 0, "ignored": 0, "rat": 0}

    def verdict(status: Verdict, message: str) -> DratVerdict:
        return DratVerdict(
            status,
            message,
            counts["a"],
            counts["d"],
            counts["ignored"],
            counts["rat"],
            time.monotonic() - start,
        )

    try:
        nvars, clauses = parse_dimacs(cnf_text)
    except ValueError as exc:
        return verdict(Verdict.REJECTED, f"formula cannot be read: {exc}")
    try:
        steps = _parse_proof(proof_text)
    except _RejectedError as exc:
        return verdict(Verdict.REJECTED, str(exc))
    # variables beyond the formula's (extension variables of RAT steps) are numbered on from
    # nvars in order of appearance, so memory follows the proof's size, not its numbers
    extra: dict[int, int] = {}
    for _, dimacs in steps:
        for x in dimacs:
            if abs(x) > nvars and abs(x) not in extra:
                extra[abs(x)] = nvars + 1 + len(extra)

    def internal(dimacs: list[int]) -> list[int]:
        if extra:
            dimacs = [x if abs(x) <= nvars else (extra[x] if x > 0 else -extra[-x]) for x in dimacs]
        return _internal_clause(dimacs)

    if deadline is not None and time.monotonic() > deadline:
        return verdict(Verdict.TIMEOUT, "deadline passed while reading the formula and the proof")
    chk = _Checker(nvars + len(extra), deadline)
    for c in clauses:
        chk.add(_internal_clause(c))
    for number, (deleting, dimacs) in enumerate(steps, 1):
        if deadline is not None and number % _CLOCK_EVERY == 0 and time.monotonic() > deadline:
            late = f"deadline passed after {number - 1} of {len(steps)} steps"
            return verdict(Verdict.TIMEOUT, late)
        lits = internal(dimacs)
        if deleting:
            counts["d"] += 1
            if not chk.delete(lits):
                counts["ignored"] += 1
            continue
        counts["a"] += 1
        if not chk.rup(lits):
            try:
                justified = bool(lits) and chk.rat(lits, lits[0])
            except _DeadlineError:
                return verdict(Verdict.TIMEOUT, f"deadline passed at step {number} of {len(steps)}")
            if not justified:
                what = "the empty clause" if not lits else f"clause {' '.join(map(str, dimacs))}"
                wrong = f"proof step {number}: {what} is neither RUP nor RAT"
                return verdict(Verdict.REJECTED, wrong)
            counts["rat"] += 1
        if not lits:
            return verdict(
                Verdict.VERIFIED,
                f"empty clause derived at step {number} of {len(steps)}; every addition RUP or "
                f"RAT ({counts['rat']} RAT), {counts['ignored']} deletions ignored",
            )
        chk.add(lits)
    if chk.refuted:
        return verdict(
            Verdict.VERIFIED,
            f"all {len(steps)} steps checked; unit propagation refutes the clause set at the end "
            "(no explicit empty clause)",
        )
    return verdict(Verdict.REJECTED, "the proof ends without deriving the empty clause")
