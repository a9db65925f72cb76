"""A second LRAT checker in native code: each step's hints propagated by MiniSat.

``minisat-hints`` judges an LRAT proof one addition at a time, like ``dratify-hints``
(:mod:`gossipcert.proofs.hinted`), but the unit propagation is MiniSat 2.2's [2]_ (C++,
through PySAT's ``propagate`` [3]_), run inside one solver that holds every clause of the
proof. It shares no code with gossipcert-lrat (:mod:`gossipcert.proofs.lrat`, Python) nor
with CaDiCaL, the solver that wrote the proof.

How a step is checked. Every clause ``D`` of the formula and every added clause gets a fresh
*activation* variable ``a_D`` above the formula's variables, and the solver holds
``D or -a_D``. For an addition ``i l1 .. lk 0 h1 .. hm 0`` the hints must all be live
clauses (by id, in a table that deletions update); MiniSat then assumes ``a_h1 .. a_hm``
and ``-l1 .. -lk`` one by one, propagating after each, and the step is accepted exactly when
this reaches a conflict. The clause ``C or -a_C`` then joins the solver.

Rules:

- an addition's id must be larger than every id before it; its hints must be positive
  (RAT steps are not accepted: a proof with one is rejected, never passed), named once or
  more, and live; its literals must be variables of the formula (an activation variable
  lies above them); the step is accepted when the propagation above conflicts;
- a deletion ``i d j1 .. jm 0`` takes the clauses out of the table (a clause that is not
  live is ignored and counted); a later step that names a deleted clause is rejected;
- the proof is verified when an addition of the empty clause is accepted.

Soundness. No clause of the solver contains an activation literal positively, and only the
hints' activation variables are assumed, so every other clause ``D or -a_D`` either has
``-a_D`` unassigned or true: it can propagate ``-a_D`` at most, never a literal of the
formula, and never conflicts (a clause left with only ``-a_D`` makes it true). Nothing is
assigned at the root: every clause has its activation literal, and a clause that was empty
(``-a_D`` alone) only makes ``a_D`` false, which conflicts with assuming it: the step rests
on an empty clause and is implied. So a conflict is a unit-propagation refutation of the
hint clauses and the negated clause, which shows the clause follows from live clauses, and
the clause set stays satisfiable if the formula is. Deleted clauses stay in the solver but
are never activated again, so deletions are applied soundly (no assignment outlives a step:
the solver returns to the root after each).

References
----------
.. [1] L. Cruz-Filipe, M. J. H. Heule, W. A. Hunt, Jr., M. Kaufmann and P. Schneider-Kamp,
   "Efficient certified RAT verification", CADE 2017, LNCS 10395 (the LRAT format).
.. [2] N. Eén and N. Sörensson, "An extensible SAT-solver", SAT 2003, LNCS 2919 (MiniSat).
.. [3] A. Ignatiev, A. Morgado and J. Marques-Silva, "PySAT: a Python toolkit for
   prototyping with SAT oracles", SAT 2018 (``Solver.propagate``).
"""

from __future__ import annotations

import time
from collections.abc import Iterable

from pysat.solvers import Solver

from gossipcert.interrupts import pysat_handler_off
from gossipcert.proofs.hinted import HintedVerdict
from gossipcert.statuses import Verdict

#: the PySAT solver whose propagation judges each step
PROPAGATOR = "minisat22"

CHECKER_NAME = "minisat-hints (MiniSat 2.2 through PySAT)"

DELETIONS = "applied (a deleted clause is never activated again)"

_NOT_IMPLIED = "the clause does not follow from its hints by unit propagation"

#: how many lines pass between two looks at the clock
_CLOCK_EVERY = 4096


def check_propagated(
    clauses: list[list[int]],
    lines: Iterable[str],
    deadline: float | None = None,
    nvars: int | None = None,
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
    nvars : int, optional
        The formula's number of variables (its DIMACS header), if the caller knows it; by
        default the largest variable of ``clauses``.

    Returns
    -------
    HintedVerdict

    Examples
    --------
    >>> check_propagated([[1, 2], [-1, 2], [-2]], ["4 2 0 1 2 0", "5 0 4 3 0"]).status
    <Verdict.VERIFIED: 'verified'>
    >>> check_propagated([[1, 2], [-1, 2], [-2]], ["4 2 0 1 0", "5 0 4 3 0"]).message
    'line 1: the clause does not follow from its hints by unit propagation'
    """
    start = time.monotonic()
    if nvars is None:
        nvars = max((abs(x) for c in clauses for x in c), default=0)
    solver = Solver(name=PROPAGATOR)
    try:
        return _check(solver, clauses, nvars, lines, deadline, start)
    finally:
        solver.delete()


class _Live:
    """The clauses live in the solver, by id, each behind two activation variables.

    Activation variables come first: MiniSat sorts a clause's literals and watches the first
    two, so an inactive clause watches its own two activation literals and is never visited;
    the formula's variables are shifted above them (by ``shift``). A formula clause joins
    the solver when a step first names it (a trimmed proof names few of a large formula's
    clauses); ``made`` holds the ids that joined or were deleted.
    """

    def __init__(self, solver: Solver, clauses: list[list[int]], shift: int) -> None:
        self.add = solver.add_clause
        self.clauses, self.shift = clauses, shift
        self.top = -1  # a clause's activation variables are (top, top + 1), both <= shift
        self.active: dict[int, int] = {}  # live clause id -> its first activation variable
        self.made: set[int] = set()

    def activation(self, h: int) -> int:
        """The first activation variable of clause ``h``, a formula clause joining now if
        no step named it before (KeyError: ``h`` is not a live clause)."""
        if h in self.active:
            return self.active[h]
        if not 0 < h <= len(self.clauses) or h in self.made:
            raise KeyError(h)
        self.made.add(h)
        self.top += 2
        if self.top + 1 > self.shift:  # cannot happen (the bound); never let numbers meet
            raise KeyError(h)
        self.active[h] = self.top
        shift = self.shift
        self.add(
            [
                -self.top,
                -self.top - 1,
                *(x + shift if x > 0 else x - shift for x in self.clauses[h - 1]),
            ]
        )
        return self.top

    def delete(self, ids: list[int]) -> int:
        """Delete the clauses ``ids``; how many of them were not live (ignored)."""
        ignored = 0
        for j in ids:
            if self.active.pop(j, None) is None:
                if 0 < j <= len(self.clauses) and j not in self.made:
                    self.made.add(j)  # a formula clause no step named: it never joins
                else:
                    ignored += 1
        return ignored

    def learn(self, cid: int, shifted: list[int]) -> bool:
        """Add the derived clause ``cid`` (its literals shifted); False when the activation
        variables ran out (cannot happen: the bound of :func:`_check`)."""
        self.top += 2
        if self.top + 1 > self.shift:
            return False
        self.active[cid] = self.top
        self.add([-self.top, -self.top - 1, *shifted])
        return True


@pysat_handler_off()  # PySAT takes no SIGINT itself
def _check(
    solver: Solver,
    clauses: list[list[int]],
    nvars: int,
    lines: Iterable[str],
    deadline: float | None,
    start: float,
) -> HintedVerdict:
    """:func:`check_propagated` with its solver."""
    propagate = solver.propagate
    lines = lines if isinstance(lines, list) else list(lines)
    # at most one clause joins per line and per token a line names (a token takes two
    # characters at least): a bound on the activation variables, cheap to take
    named = min(len(clauses), sum(map(len, lines)) // 2 + len(lines))
    shift = 2 * (named + len(lines))
    live = _Live(solver, clauses, shift)
    active, activation = live.active, live.activation
    last = len(clauses)
    additions = deletions = ignored = 0
    status, message = Verdict.REJECTED, "the proof ends without deriving the empty clause"
    for number, line in enumerate(lines, start=1):
        if number % _CLOCK_EVERY == 0 and deadline is not None and time.monotonic() > deadline:
            status, message = Verdict.TIMEOUT, f"deadline passed at line {number}"
            break
        tokens = line.split()
        if not tokens or tokens[0] == "c":
            continue
        try:
            if len(tokens) > 1 and tokens[1] == "d":
                ids = list(map(int, tokens[2:]))
                if not ids or ids.pop() != 0 or min(ids, default=1) <= 0:
                    raise ValueError
                deletions += len(ids)
                ignored += live.delete(ids)
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
        if lits and max(map(abs, lits)) > nvars:
            message = f"line {number}: a variable that is not the formula's"
            break
        try:
            try:
                firsts = [active[h] for h in hints]
            except KeyError:
                firsts = [activation(h) for h in hints]
        except KeyError as exc:
            message = f"line {number}: hint {exc.args[0]} is not a live clause"
            break
        shifted = [x + shift if x > 0 else x - shift for x in lits]
        assumptions = [*firsts, *[a + 1 for a in firsts], *[-x for x in shifted]]
        consistent, _ = propagate(assumptions=assumptions)
        if consistent:
            message = (
                f"line {number}: the clause does not follow from its hints by unit propagation"
            )
            break
        additions += 1
        if not lits:
            status = Verdict.VERIFIED
            message = (
                f"empty clause derived at line {number}: {additions} clauses added, "
                f"{deletions} deleted"
            )
            break
        if not live.learn(cid, shifted):
            status, message = Verdict.REJECTED, f"line {number}: more clauses than the proof has"
            break
    return HintedVerdict(status, message, additions, deletions, ignored, time.monotonic() - start)
