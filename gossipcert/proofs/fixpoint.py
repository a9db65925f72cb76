"""A second compiled LRAT checker, ``hint-fixpoint``: each step's clause must follow from
its hint clauses by unit propagation to a fixpoint, in any order.

gossipcert-lrat (:mod:`gossipcert.proofs.lrat`, :mod:`gossipcert.proofs.lrat_compiled`)
takes the hints in their written order and requires each to be unit or conflicting when it
is reached. This checker shares no checking code with it (only the verdict's record),
reads the proof by another route (a tokenizer of its own, giving the tokens of
:func:`gossipcert.proofs.trim.proof_tokens`, where the other reads lines into arrays) and
uses another rule: for an addition ``i l1 .. lk 0 h1 .. hm 0`` it sets ``-l1 .. -lk`` true
and then sweeps the hint clauses again and again, making true the last free literal of any
clause whose other literals are false, until some clause has every literal false (the step
is accepted) or a sweep changes nothing (it is refused). The order of the hints is not
used, only that they are live clauses: this is the question minisat-hints
(:mod:`gossipcert.proofs.propagated`) asks MiniSat, answered here without a solver call
per step.

Rules (the state is the set of live clauses by id; formula clauses have ids ``1 .. n``):

- every line is ``id l1 .. lk 0 h1 .. hm 0`` (an addition) or ``id d c1 .. cj 0`` (a
  deletion, its id unused), on one line: a ``d`` anywhere else, a line break or a ``d``
  where a zero ends the literals, a missing or extra zero, ``-0`` or any other byte refuses
  the proof on its own (the other checker reads the bytes by another route and refuses them
  too);

- an addition's id must be larger than every id before it (the first larger than ``n``),
  its hints positive (a RAT step is refused) and live, its variables the formula's; the
  step is accepted by the fixpoint above (a tautology is accepted as it stands) and the
  clause joins the set;
- a deletion removes the named clauses (one that is not live is ignored and counted);
- the proof is verified when an addition of the empty clause is accepted.

Like the compiled gossipcert-lrat engine it only ever accepts: a refusal returns ``None``
and the caller asks minisat-hints, whose verdict (naming the line) is reported.

The assignment is an array of values by variable, undone after each step from a trail.

References
----------
.. [1] L. Cruz-Filipe, M. J. H. Heule, W. A. Hunt, Jr., M. Kaufmann and P. Schneider-Kamp,
   "Efficient certified RAT verification", CADE 2017, LNCS 10395 (the LRAT format).
.. [2] M. Davis, G. Logemann and D. Loveland, "A machine program for theorem-proving",
   CACM 5(7), 1962 (unit propagation).
"""

from __future__ import annotations

import time
from typing import Any

import numba
import numpy as np

from gossipcert.proofs.lrat_compiled import CompiledVerdict
from gossipcert.proofs.trim import DELETION_TOKEN, LINE_END_TOKEN
from gossipcert.statuses import Verdict

CHECKER_NAME = "hint-fixpoint"
DELETIONS = "applied (each step propagates only the clauses it names)"

#: tokens read between two looks at the clock
CHUNK = 2_000_000

_RUNNING, _VERIFIED, _REFUSED = 0, 1, 2


@numba.njit(cache=True, nogil=True)
def _tokenize(data: np.ndarray) -> tuple[Any, ...]:
    """The proof's integers, :data:`DELETION_TOKEN` for each ``d`` and
    :data:`LINE_END_TOKEN` at each line's end; ``(False, ...)`` on any other byte, a
    lone ``-``, ``-0``, a number of more than 18 digits or a ``d`` inside a token."""
    out = np.empty(len(data) + 1, np.int64)
    count = 0
    i = 0
    size = len(data)
    while i < size:
        c = data[i]
        if c == 32:
            i += 1
        elif c == 10:
            out[count] = LINE_END_TOKEN
            count += 1
            i += 1
        elif c == 100:
            if i + 1 < size and data[i + 1] != 32 and data[i + 1] != 10:
                return False, out[:0]
            out[count] = DELETION_TOKEN
            count += 1
            i += 1
        else:
            sign = 1
            if c == 45:
                sign = -1
                i += 1
            x = 0
            digits = 0
            while i < size and 48 <= data[i] <= 57:
                x = x * 10 + (data[i] - 48)
                digits += 1
                i += 1
            if digits == 0 or digits > 18 or (sign < 0 and x == 0):  # "-0" is no number
                return False, out[:0]
            if i < size and data[i] != 32 and data[i] != 10:
                return False, out[:0]
            out[count] = sign * x
            count += 1
    return True, out[:count]


@numba.njit(cache=True, nogil=True)
def _well_formed(tokens: np.ndarray) -> bool:
    """Whether every line of the tokens is ``id l1 .. lk 0 h1 .. hm 0`` or ``id d c1 .. cj
    0`` (an addition's id and the deleted clauses positive, a deletion's id 0 or more, as
    :func:`gossipcert.proofs.trim.binary_to_text` writes it; blank lines allowed): the
    grammar alone, every line read, before any step is checked (so that a line after the
    empty clause is read too)."""
    size = len(tokens)
    pos = 0
    while pos < size:
        if tokens[pos] == LINE_END_TOKEN:  # a blank line
            pos += 1
            continue
        first = tokens[pos]
        pos += 1
        deletion = pos < size and tokens[pos] == DELETION_TOKEN
        if first < (0 if deletion else 1) or first >= DELETION_TOKEN:  # the id
            return False
        pos += deletion
        zeros = 0
        while pos < size and tokens[pos] != LINE_END_TOKEN:
            t = tokens[pos]
            done = zeros == (1 if deletion else 2)
            if done or t == DELETION_TOKEN or (deletion and t < 0):
                return False
            zeros += t == 0
            pos += 1
        if zeros != (1 if deletion else 2) or tokens[pos - 1] != 0:
            return False
        pos += 1  # the line's end
    return True


@numba.njit(cache=True, nogil=True, inline="always")
def _deletion(
    tokens: np.ndarray,
    pos: int,
    first_formula: np.ndarray,
    starts: np.ndarray,
    n: int,
    state: np.ndarray,
) -> int:
    """Delete the clauses of the deletion line whose ids start at ``pos`` (counted in
    ``state`` as by :func:`_sweep`): the position after the line, or ``-1`` when it is not
    a deletion line."""
    size = len(tokens)
    while pos < size and tokens[pos] != 0:
        j = tokens[pos]
        if j <= 0 or j >= DELETION_TOKEN:
            return -1
        state[3] += 1
        if 0 < j <= n and first_formula[j] == 1:
            first_formula[j] = 0
        elif n < j < len(starts) and starts[j] >= 0:
            starts[j] = -1
        else:
            state[4] += 1
        pos += 1
    if pos + 1 >= size or tokens[pos + 1] != LINE_END_TOKEN:
        return -1
    return pos + 2  # the zero and the line's end


@numba.njit(cache=True, nogil=True, inline="always")
def _live_hints(
    tokens: np.ndarray,
    hint_start: int,
    hint_end: int,
    first_formula: np.ndarray,
    starts: np.ndarray,
    n: int,
) -> bool:
    """Whether every hint ``tokens[hint_start:hint_end]`` names a live clause."""
    for q in range(hint_start, hint_end):
        h = tokens[q]
        if h <= 0:
            return False
        live = (h <= n and first_formula[h] == 1) or (n < h < len(starts) and starts[h] >= 0)
        if not live:
            return False
    return True


@numba.njit(cache=True, nogil=True, inline="always")
def _fixpoint(
    tokens: np.ndarray,
    hint_start: int,
    hint_end: int,
    value: np.ndarray,
    trail: np.ndarray,
    depth: int,
    formula_lits: np.ndarray,
    formula_start: np.ndarray,
    formula_end: np.ndarray,
    starts: np.ndarray,
    ends: np.ndarray,
    n: int,
) -> tuple[bool, int]:
    """Propagate the hint clauses ``tokens[hint_start:hint_end]`` under ``value`` to a
    fixpoint, each assignment on ``trail`` from ``depth``: whether a hint clause became
    false (the step follows), and the new depth."""
    accepted = False
    changed = True
    while changed and not accepted:
        changed = False
        for q in range(hint_start, hint_end):
            h = tokens[q]
            if h <= n:
                src, a, b = formula_lits, formula_start[h], formula_end[h]
            else:
                src, a, b = tokens, starts[h], ends[h]
            free_count = 0
            free = 0
            satisfied = False
            for r in range(a, b):
                y = src[r]
                s = value[abs(y)]
                if s == 0:
                    free_count += 1
                    free = y
                elif (s > 0) == (y > 0):
                    satisfied = True
                    break
            if satisfied:
                continue
            if free_count == 0:
                accepted = True
                break
            if free_count == 1:
                value[abs(free)] = 1 if free > 0 else -1
                trail[depth] = abs(free)
                depth += 1
                changed = True
    return accepted, depth


@numba.njit(cache=True, nogil=True)
def _sweep(
    tokens: np.ndarray,
    starts: np.ndarray,
    ends: np.ndarray,
    first_formula: np.ndarray,
    formula_lits: np.ndarray,
    formula_start: np.ndarray,
    formula_end: np.ndarray,
    nvars: int,
    state: np.ndarray,
    stop: int,
) -> int:
    """Read tokens from ``state[0]`` up to ``stop``; ``state`` = (position, last id,
    additions, deletions, ignored, position of the verdict's line). ``starts[id]`` and
    ``ends[id]`` locate a live derived clause's literals in ``tokens`` (``-1``: not live);
    a formula clause ``id`` is live while ``first_formula[id]`` is ``1``."""
    n = len(formula_start) - 1
    value = np.zeros(nvars + 1, np.int8)
    trail = np.empty(nvars + 1, np.int64)
    pos = state[0]
    size = len(tokens)
    while pos < stop:
        t = tokens[pos]
        if t == LINE_END_TOKEN:
            pos += 1
            continue
        line = pos
        cid = t
        pos += 1
        if cid < 0 or cid == DELETION_TOKEN:
            state[5] = line
            return _REFUSED
        if pos < size and tokens[pos] == DELETION_TOKEN:
            pos = _deletion(tokens, pos + 1, first_formula, starts, n, state)
            if pos < 0:
                state[5] = line
                return _REFUSED
            continue
        if cid <= state[1] or cid >= len(starts):
            state[5] = line
            return _REFUSED
        state[1] = cid
        lit_start = pos
        while pos < size and tokens[pos] != 0 and tokens[pos] < DELETION_TOKEN:
            pos += 1
        lit_end = pos
        if pos >= size or tokens[pos] != 0:  # the literals end at a zero on the step's line
            state[5] = line
            return _REFUSED
        pos += 1
        hint_start = pos
        while pos < size and tokens[pos] != 0 and tokens[pos] < DELETION_TOKEN:
            pos += 1
        hint_end = pos
        if pos + 1 >= size or tokens[pos] != 0 or tokens[pos + 1] != LINE_END_TOKEN:
            state[5] = line
            return _REFUSED
        pos += 2
        depth = 0
        accepted = False
        for q in range(lit_start, lit_end):
            x = tokens[q]
            v = abs(x)
            if v == 0 or v > nvars:
                state[5] = line
                return _REFUSED
            want = np.int8(-1 if x > 0 else 1)  # x false
            if value[v] == -want:
                accepted = True  # x and -x both in the clause
            elif value[v] == 0:
                value[v] = want
                trail[depth] = v
                depth += 1
        if not accepted:
            if not _live_hints(tokens, hint_start, hint_end, first_formula, starts, n):
                state[5] = line
                return _REFUSED
            accepted, depth = _fixpoint(
                tokens, hint_start, hint_end, value, trail, depth, formula_lits,
                formula_start, formula_end, starts, ends, n,
            )  # fmt: skip
        for q in range(depth):
            value[trail[q]] = 0
        if not accepted:
            state[5] = line
            return _REFUSED
        state[2] += 1
        if lit_end == lit_start:
            state[0], state[5] = pos, line
            return _VERIFIED
        starts[cid] = lit_start
        ends[cid] = lit_end
    state[0] = pos
    return _RUNNING


def check_fixpoint(
    clauses: list[list[int]],
    proof: bytes,
    nvars: int,
    deadline: float | None = None,
) -> CompiledVerdict | None:
    """Verify an LRAT proof of the unsatisfiability of ``clauses`` by hint-fixpoint
    propagation (module docstring); ``None`` when a step is refused.

    Parameters
    ----------
    clauses : list of list of int
        The formula (clause ``i`` of the proof is ``clauses[i - 1]``).
    proof : bytes
        The LRAT proof (text).
    nvars : int
        The formula's number of variables.
    deadline : float, optional
        A ``time.monotonic()`` value; past it the verdict is ``timeout``.

    Returns
    -------
    CompiledVerdict or None

    Examples
    --------
    >>> check_fixpoint([[1, 2], [-1, 2], [-2]], b"4 2 0 2 1 0\\n5 0 3 4 0\\n", 2).status
    <Verdict.VERIFIED: 'verified'>
    >>> check_fixpoint([[1, 2], [-1, 2], [-2]], b"4 2 0 1 0\\n5 0 4 3 0\\n", 2) is None
    True
    """
    start = time.monotonic()
    if proof and not proof.endswith(b"\n"):
        proof += b"\n"
    fine, tokens = _tokenize(np.frombuffer(proof, dtype=np.uint8))
    if not fine or len(tokens) == 0 or not _well_formed(tokens):
        return None
    n = len(clauses)
    top, named = _survey(tokens, n)
    if top > n + 8 * len(tokens) + 16:
        return None
    ends_at = np.flatnonzero(tokens == LINE_END_TOKEN)
    lengths = np.zeros(n + 1, np.int64)
    picked = [clauses[i - 1] for i in np.flatnonzero(named).tolist()]
    lengths[named] = [len(c) for c in picked]
    formula_end = np.cumsum(lengths)
    formula_start = formula_end - lengths
    formula_lits = np.array([x for c in picked for x in c], dtype=np.int64)
    if len(formula_lits) and int(np.abs(formula_lits).max()) > nvars:
        return None
    first_formula = np.ones(n + 1, np.int8)
    starts = np.full(top + 1, -1, np.int64)
    ends = np.full(top + 1, -1, np.int64)
    state = np.array([0, n, 0, 0, 0, -1], np.int64)
    size = len(tokens)
    while True:
        stop = _line_boundary(tokens, ends_at, min(size, int(state[0]) + CHUNK))
        outcome = _sweep(
            tokens, starts, ends, first_formula, formula_lits, formula_start, formula_end,
            nvars, state, stop,
        )  # fmt: skip
        if outcome == _REFUSED:
            return None
        if outcome == _VERIFIED:
            break
        if stop >= size:
            return None
        if deadline is not None and time.monotonic() > deadline:
            return CompiledVerdict(
                Verdict.TIMEOUT,
                f"deadline passed at token {stop}",
                int(state[2]),
                int(state[3]),
                int(state[4]),
                time.monotonic() - start,
            )
    additions, deletions, ignored = int(state[2]), int(state[3]), int(state[4])
    line = int(np.searchsorted(ends_at, state[5])) + 1
    message = f"empty clause derived at line {line}: {additions} clauses added, {deletions} deleted"
    return CompiledVerdict(
        Verdict.VERIFIED, message, additions, deletions, ignored, time.monotonic() - start
    )


def _line_boundary(tokens: np.ndarray, ends_at: np.ndarray, at: int) -> int:
    """The first position at or after ``at`` where a line starts."""
    if at >= len(tokens):
        return len(tokens)
    k = int(np.searchsorted(ends_at, at - 1))
    return int(ends_at[k]) + 1 if k < len(ends_at) else len(tokens)


@numba.njit(cache=True, nogil=True)
def _survey(tokens: np.ndarray, n: int) -> tuple[Any, ...]:
    """The largest number of the proof (markers aside), and which formula clauses
    ``1 .. n`` its additions name after their first zero."""
    named = np.zeros(n + 1, np.bool_)
    top = n
    first = True  # at a line's first token
    deletion = False
    zeros = 0
    for t in tokens:
        if t == LINE_END_TOKEN:
            first, deletion, zeros = True, False, 0
            continue
        if t == DELETION_TOKEN:
            deletion = True
            continue
        if t > top:
            top = t
        if first:
            first = False
        elif t == 0:
            zeros += 1
        elif not deletion and zeros == 1 and 0 < t <= n:
            named[t] = True
    return top, named
