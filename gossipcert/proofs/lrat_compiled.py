"""gossipcert-lrat's compiled engine: the RUP rule of :mod:`gossipcert.proofs.lrat` in one
compiled pass over a proof read into arrays.

The rules are those of :mod:`gossipcert.proofs.lrat` for proofs without RAT steps (what
CaDiCaL writes): every literal of an added clause ``C`` is set false; the hints are taken
in order, each must be a live clause whose literals that are not false are none (a
conflict: ``C`` is accepted) or exactly one (then set true); a tautology is accepted as it
stands; addition ids must increase (the first above the formula's last id); a deletion
removes the named live clauses (naming a clause that is not live is ignored and counted);
the proof is verified when the empty clause is accepted.

This engine only ever **accepts**: a step it does not accept by those rules (a RAT step, a
hint that is not unit, a clause that is not live, a variable beyond the formula's, ids that
do not increase, a proof it cannot read) ends its run with ``None``, and the caller then
runs the Python engine of :mod:`gossipcert.proofs.lrat` on the whole proof, whose verdict
(and message naming the line) is the one reported. So the engines can differ only in speed.

State: the assignment is an array indexed by literal (``2 |x| + (x < 0)``) holding the
number of the step that made the literal true (no clearing between steps); the live
clauses are a boolean array by id; a derived clause's literals are read in place from the
proof's arrays, a formula clause's from compact arrays of the clauses the proof names.

References
----------
.. [1] L. Cruz-Filipe, M. J. H. Heule, W. A. Hunt, Jr., M. Kaufmann and P. Schneider-Kamp,
   "Efficient certified RAT verification", CADE 2017, LNCS 10395.
.. [2] S. K. Lam, A. Pitrou and S. Seibert, "Numba: a LLVM-based Python JIT compiler",
   LLVM-HPC 2015.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from itertools import chain

import numba
import numpy as np

from gossipcert.proofs.lrat_kernels import OK, ProofArrays, read_proof
from gossipcert.statuses import Verdict

#: proof lines checked between two looks at the clock
CHUNK = 250_000

_RUNNING, _VERIFIED, _REFUSED = 0, 1, 2


@dataclass(frozen=True)
class CompiledVerdict:
    """An accepted proof's counts (the engine returns ``None`` instead of a rejection).

    Attributes
    ----------
    status : Verdict
        ``"verified"`` or ``"timeout"``.
    message : str
    additions, deletions, ignored : int
    seconds : float
    """

    status: Verdict
    message: str
    additions: int
    deletions: int
    ignored: int
    seconds: float


@numba.njit(cache=True, nogil=True)
def _check(
    kind: np.ndarray,
    head: np.ndarray,
    lo: np.ndarray,
    mid: np.ndarray,
    hi: np.ndarray,
    values: np.ndarray,
    f_lits: np.ndarray,
    f_off: np.ndarray,
    f_slot: np.ndarray,
    n_formula: int,
    nvars: int,
    live: np.ndarray,
    where: np.ndarray,
    mark: np.ndarray,
    state: np.ndarray,
    stop: int,
) -> int:
    """Check lines ``state[0] .. stop - 1``; ``state`` = (next line, last id, additions,
    deletions, ignored, step stamp, line of the verdict)."""
    top = len(live) - 1
    k = state[0]
    last, stamp = state[1], state[5]
    while k < stop:
        if kind[k] == 1:
            for j in range(mid[k], hi[k]):
                h = values[j]
                state[3] += 1
                if h <= top and live[h]:
                    live[h] = False
                else:
                    state[4] += 1
            k += 1
            continue
        cid = head[k]
        if cid <= last or cid > top:
            state[6] = k
            return _REFUSED
        last = cid
        stamp += 1
        tautology = False
        for j in range(lo[k], mid[k]):
            x = values[j]
            v = abs(x)
            if v > nvars:
                state[6] = k
                return _REFUSED
            code = 2 * v + (1 if x < 0 else 0)
            if mark[code] == stamp:  # x is true: its complement is in the clause
                tautology = True
            mark[code ^ 1] = stamp  # -x true, x false
        conflict = tautology
        if not tautology:
            for j in range(mid[k], hi[k]):
                h = values[j]
                if h <= 0 or h > top or not live[h]:
                    state[6] = k
                    return _REFUSED
                if h <= n_formula:
                    s = f_slot[h]
                    a, b, src = f_off[s], f_off[s + 1], f_lits
                else:
                    w = where[h]
                    a, b, src = lo[w], mid[w], values
                free = 0
                unit = 0
                for t in range(a, b):
                    y = src[t]
                    cy = 2 * abs(y) + (1 if y < 0 else 0)
                    if mark[cy ^ 1] != stamp:  # y is not false
                        free += 1
                        unit = cy
                        if free > 1:
                            break
                if free == 0:
                    conflict = True
                    break
                if free > 1:
                    state[6] = k
                    return _REFUSED
                mark[unit] = stamp
        if not conflict:
            state[6] = k
            return _REFUSED
        live[cid] = True
        where[cid] = k
        state[2] += 1
        k += 1
        if mid[k - 1] == lo[k - 1]:
            state[0], state[1], state[5], state[6] = k, last, stamp, k - 1
            return _VERIFIED
    state[0], state[1], state[5] = k, last, stamp
    return _RUNNING


@numba.njit(cache=True, nogil=True)
def _named(
    kind: np.ndarray, mid: np.ndarray, hi: np.ndarray, values: np.ndarray, n: int
) -> np.ndarray:
    """Which formula clauses ``1 .. n`` an addition names as a hint."""
    named = np.zeros(n + 1, np.bool_)
    for k in range(len(kind)):
        if kind[k] == 0:
            for j in range(mid[k], hi[k]):
                h = values[j]
                if 0 < h <= n:
                    named[h] = True
    return named


def formula_arrays(
    clauses: list[list[int]], proof: ProofArrays
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The formula clauses the proof's additions name, as compact arrays: ``(lits,
    offsets, slot)`` with clause ``i``'s literals ``lits[offsets[slot[i]] :
    offsets[slot[i] + 1]]``."""
    n = len(clauses)
    named = np.flatnonzero(_named(proof.kind, proof.mid, proof.hi, proof.values, n))
    picked = [clauses[i - 1] for i in named.tolist()]
    offsets = np.zeros(len(picked) + 1, np.int64)
    np.cumsum([len(c) for c in picked], out=offsets[1:])
    lits = np.fromiter(chain.from_iterable(picked), dtype=np.int64, count=int(offsets[-1]))
    slot = np.zeros(n + 1, np.int64)
    slot[named] = np.arange(len(named))
    return lits, offsets, slot


def check_compiled(
    clauses: list[list[int]],
    proof: bytes | ProofArrays,
    nvars: int,
    deadline: float | None = None,
) -> CompiledVerdict | None:
    """Verify an LRAT proof of the unsatisfiability of ``clauses`` by the RUP rule,
    compiled; ``None`` when any step is not accepted (then the Python engine judges).

    Parameters
    ----------
    clauses : list of list of int
        The formula (clause ``i`` of the proof is ``clauses[i - 1]``).
    proof : bytes or ProofArrays
        The LRAT proof (text), or already read by
        :func:`gossipcert.proofs.lrat_kernels.read_proof`.
    nvars : int
        The formula's number of variables.
    deadline : float, optional
        A ``time.monotonic()`` value; past it the verdict is ``timeout``.

    Returns
    -------
    CompiledVerdict or None

    Examples
    --------
    >>> check_compiled([[1, 2], [-1, 2], [-2]], b"4 2 0 1 2 0\\n5 0 4 3 0\\n", 2).status
    <Verdict.VERIFIED: 'verified'>
    >>> check_compiled([[1, 2], [-1, 2], [-2]], b"4 2 0 1 3 0\\n5 0 4 3 0\\n", 2) is None
    True
    """
    start = time.monotonic()
    if not isinstance(proof, ProofArrays):
        status, _, arrays = read_proof(proof)
        if status != OK or arrays is None:
            return None
        proof = arrays
    count = len(proof.kind)
    if count == 0:
        return None
    n = len(clauses)
    heads = proof.head[proof.kind == 0]
    top = max(n, int(heads.max(initial=0)))
    if top > n + 8 * (count + len(proof.values)) + 16:  # ids far beyond the proof's size
        return None
    f_lits, f_off, f_slot = formula_arrays(clauses, proof)
    if len(f_lits) and int(np.abs(f_lits).max()) > nvars:
        return None
    live = np.zeros(top + 1, np.bool_)
    live[1 : n + 1] = True
    where = np.full(top + 1, -1, np.int64)
    mark = np.zeros(2 * (nvars + 1), np.int64)
    state = np.array([0, n, 0, 0, 0, 0, -1], np.int64)
    while True:
        stop = min(count, int(state[0]) + CHUNK)
        outcome = _check(
            proof.kind, proof.head, proof.lo, proof.mid, proof.hi, proof.values,
            f_lits, f_off, f_slot, n, nvars, live, where, mark, state, stop,
        )  # fmt: skip
        if outcome == _REFUSED:
            return None
        if outcome == _VERIFIED:
            break
        if stop == count:
            return None  # no empty clause
        if deadline is not None and time.monotonic() > deadline:
            return CompiledVerdict(
                Verdict.TIMEOUT,
                f"deadline passed at step {stop}",
                int(state[2]),
                int(state[3]),
                int(state[4]),
                time.monotonic() - start,
            )
    additions, deletions, ignored = int(state[2]), int(state[3]), int(state[4])
    message = (
        f"empty clause derived at step {int(state[6]) + 1}: {additions} clauses added "
        f"(0 by RAT), {deletions} deleted"
    )
    return CompiledVerdict(
        Verdict.VERIFIED, message, additions, deletions, ignored, time.monotonic() - start
    )
