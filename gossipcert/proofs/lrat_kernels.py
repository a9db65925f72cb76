"""Compiled kernels for LRAT proofs: reading them (text and CaDiCaL's binary form),
trimming them, and writing the trimmed proof as text.

The line-by-line and numpy versions in :mod:`gossipcert.proofs.trim` cost about half a
solve on a proof of 60,000 lines (Python loops over the kept steps). These kernels do the
same work in one compiled pass each (numba [3]_), so the evidence of a refutation costs
little beside the solve that wrote it. They decide nothing: a trimmed proof is untrusted
input to the checkers (:func:`gossipcert.proofs.lrat_checks.check_lrat_proof`).

**A proof as arrays** (what both readers return): line ``k`` is an addition
(``kind[k] == 0``) or a deletion (``kind[k] == 1``); ``head[k]`` is its id (a deletion's
leading id in text, 0 in binary); ``values[lo[k]:mid[k]]`` are an addition's literals and
``values[mid[k]:hi[k]]`` its hints (a RAT group's clause as ``-id``), or a deletion's ids.

**Binary LRAT** (CaDiCaL's ``binary`` option with ``lrat``): a line is ``a`` or ``d``
followed by numbers, each written as ``2 |x| + (x < 0)`` in 7-bit groups, least significant
first, the high bit set on every byte but the last; an addition is ``a id lits 0 hints 0``,
a deletion ``d ids 0`` (no id of its own). It is about 10 % cheaper for the solver to write
than text, and is read here without a tokenizer.

**Trimming** keeps the additions the first empty clause depends on (the hints followed
backwards from it, one pass from the end), and after each kept addition writes a deletion
of every clause it uses for the last time, exactly as
:func:`gossipcert.proofs.trim.trim_lrat` does (a test holds the two to the same text).

A reader or the trimmer that meets anything it does not handle (a comment line, a malformed
line, ids that do not increase) returns a status other than :data:`OK`; the caller then
uses the line-by-line version, which names the line.

References
----------
.. [1] L. Cruz-Filipe, M. J. H. Heule, W. A. Hunt, Jr., M. Kaufmann and P. Schneider-Kamp,
   "Efficient certified RAT verification", CADE 2017, LNCS 10395 (the LRAT format).
.. [2] N. Wetzler, M. J. H. Heule and W. A. Hunt, Jr., "DRAT-trim: efficient checking and
   trimming using expressive clausal proofs", SAT 2014, LNCS 8561 (backward trimming; the
   binary encoding of numbers).
.. [3] S. K. Lam, A. Pitrou and S. Seibert, "Numba: a LLVM-based Python JIT compiler",
   LLVM-HPC 2015.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numba
import numpy as np

#: a reader's or the trimmer's status: all went well
OK = 0
#: the text holds a comment line (only the line version reads comments)
COMMENT = 1
#: a malformed line (a token that is not an integer, a missing zero, a bad byte, ...)
MALFORMED = 2
#: the proof adds no empty clause
NO_EMPTY = 3
#: addition ids that do not increase
UNORDERED = 4

_SPACE, _NEWLINE, _MINUS, _D, _C, _A = 32, 10, 45, 100, 99, 97


class ProofArrays(NamedTuple):
    """An LRAT proof as arrays (module docstring); ``lines`` is the number of lines read
    (blank lines included)."""

    kind: np.ndarray
    head: np.ndarray
    lo: np.ndarray
    mid: np.ndarray
    hi: np.ndarray
    values: np.ndarray
    lines: int


@numba.njit(cache=True, nogil=True)
def _parse_text(data: np.ndarray) -> tuple[Any, ...]:
    """Read text LRAT. Returns ``(status, line, kind, head, lo, mid, hi, values, count,
    lines)``: ``line`` the 1-based line of a bad status, ``count`` the lines with tokens."""
    n = len(data)
    cap_lines = 1
    for i in range(n):
        if data[i] == _NEWLINE:
            cap_lines += 1
    kind = np.empty(cap_lines, np.int8)
    head = np.empty(cap_lines, np.int64)
    lo = np.empty(cap_lines, np.int64)
    mid = np.empty(cap_lines, np.int64)
    hi = np.empty(cap_lines, np.int64)
    values = np.empty(n // 2 + 1, np.int64)
    nv = 0
    count = 0
    line = 0
    i = 0
    while i < n:
        line += 1
        # one line: tokens up to the newline
        ntok = 0
        zeros = 0
        deletion = False
        first = 0
        start_values = nv
        the_mid = nv
        while i < n and data[i] != _NEWLINE:
            b = data[i]
            if b == _SPACE:
                i += 1
                continue
            if ntok == 0 and b == _C:
                return COMMENT, line, kind, head, lo, mid, hi, values, count, line
            if ntok == 1 and b == _D:
                if i + 1 < n and data[i + 1] != _SPACE:
                    return MALFORMED, line, kind, head, lo, mid, hi, values, count, line
                deletion = True
                ntok += 1
                i += 1
                continue
            negative = False
            if b == _MINUS:
                negative = True
                i += 1
            digits = 0
            x = 0
            while i < n and 48 <= data[i] <= 57:
                x = 10 * x + (data[i] - 48)
                digits += 1
                i += 1
            if digits == 0 or digits > 18 or (i < n and data[i] != _SPACE and data[i] != _NEWLINE):
                return MALFORMED, line, kind, head, lo, mid, hi, values, count, line
            if negative:
                if x == 0:
                    return MALFORMED, line, kind, head, lo, mid, hi, values, count, line
                x = -x
            if ntok == 0:
                if x < 0 or (negative and x == 0):
                    return MALFORMED, line, kind, head, lo, mid, hi, values, count, line
                first = x
            else:
                if zeros == (1 if deletion else 2):  # a token after the line's last zero
                    return MALFORMED, line, kind, head, lo, mid, hi, values, count, line
                if x == 0:
                    zeros += 1
                    if zeros == 1 and not deletion:
                        the_mid = nv
                elif deletion and x < 0:
                    return MALFORMED, line, kind, head, lo, mid, hi, values, count, line
                elif not deletion and zeros == 1 and x == 0:
                    return MALFORMED, line, kind, head, lo, mid, hi, values, count, line
                else:
                    values[nv] = x
                    nv += 1
            ntok += 1
        i += 1  # the newline
        if ntok == 0:
            continue
        if (
            zeros != (1 if deletion else 2)
            or (deletion and ntok < 3)
            or (first == 0 and not deletion)
        ):
            return MALFORMED, line, kind, head, lo, mid, hi, values, count, line
        kind[count] = 1 if deletion else 0
        head[count] = first
        lo[count] = start_values
        mid[count] = start_values if deletion else the_mid
        hi[count] = nv
        count += 1
    return OK, 0, kind, head, lo, mid, hi, values, count, line


@numba.njit(cache=True, nogil=True)
def _parse_binary(data: np.ndarray) -> tuple[Any, ...]:
    """Read binary LRAT (module docstring); the same results as :func:`_parse_text`."""
    n = len(data)
    cap = n // 2 + 1
    kind = np.empty(cap, np.int8)
    head = np.empty(cap, np.int64)
    lo = np.empty(cap, np.int64)
    mid = np.empty(cap, np.int64)
    hi = np.empty(cap, np.int64)
    values = np.empty(n, np.int64)
    nv = 0
    count = 0
    i = 0
    while i < n:
        b = data[i]
        i += 1
        if b != _A and b != _D:
            return MALFORMED, count + 1, kind, head, lo, mid, hi, values, count, count + 1
        deletion = b == _D
        want = 1 if deletion else 2  # zeros that end the line
        zeros = 0
        ntok = 0
        first = 0
        start_values = nv
        the_mid = nv
        while zeros < want:
            u = 0
            shift = 0
            while True:
                if i >= n or shift > 56:
                    return MALFORMED, count + 1, kind, head, lo, mid, hi, values, count, count + 1
                c = data[i]
                i += 1
                u |= np.int64(c & 127) << shift  # type: ignore[assignment]
                shift += 7
                if c < 128:
                    break
            x = u >> 1
            if u & 1:
                x = -x
            if not deletion and ntok == 0:
                if x <= 0:
                    return MALFORMED, count + 1, kind, head, lo, mid, hi, values, count, count + 1
                first = x
            elif x == 0:
                zeros += 1
                if zeros == 1:
                    the_mid = nv
            elif deletion and x < 0:
                return MALFORMED, count + 1, kind, head, lo, mid, hi, values, count, count + 1
            else:
                values[nv] = x
                nv += 1
            ntok += 1
        kind[count] = 1 if deletion else 0
        head[count] = first
        lo[count] = start_values
        mid[count] = start_values if deletion else the_mid
        hi[count] = nv
        count += 1
    return OK, 0, kind, head, lo, mid, hi, values, count, count


def read_proof(data: bytes, binary: bool = False) -> tuple[int, int, ProofArrays | None]:
    """Read an LRAT proof (text, or CaDiCaL's binary form) into arrays.

    Returns
    -------
    (int, int, ProofArrays or None)
        The status (:data:`OK` or why not), the 1-based line of a bad status, and the
        arrays when the status is :data:`OK`.

    Examples
    --------
    >>> status, _, proof = read_proof(b"4 2 0 1 2 0\\n4 d 1 0\\n5 0 4 3 0\\n")
    >>> status, proof.kind.tolist(), proof.head.tolist(), proof.values.tolist()
    (0, [0, 1, 0], [4, 4, 5], [2, 1, 2, 1, 4, 3])
    """
    raw = np.frombuffer(data, dtype=np.uint8)
    parse = _parse_binary if binary else _parse_text
    status, line, kind, head, lo, mid, hi, values, count, lines = parse(raw)
    if status != OK:
        return int(status), int(line), None
    end = int(hi[count - 1]) if count else 0
    arrays = ProofArrays(
        kind[:count], head[:count], lo[:count], mid[:count], hi[:count], values[:end], int(lines)
    )
    return OK, 0, arrays


@numba.njit(cache=True, nogil=True)
def _digits(x: int) -> int:
    """Characters of ``x`` written in decimal (its sign included)."""
    size = 1 if x < 0 else 0
    x = abs(x)
    size += 1
    while x >= 10:
        x //= 10
        size += 1
    return size


@numba.njit(cache=True, nogil=True)
def _put(out: np.ndarray, at: int, x: int) -> int:
    """Write ``x`` in decimal at ``out[at]``; the position after it."""
    size = _digits(x)
    if x < 0:
        out[at] = _MINUS
        x = -x
    end = at + size
    k = end - 1
    while True:
        out[k] = 48 + x % 10
        x //= 10
        k -= 1
        if x == 0:
            break
    return end


@numba.njit(cache=True, nogil=True)
def _renamed(x: int, rename: np.ndarray) -> int:
    """Clause id ``x`` (``-id`` for a RAT group) renamed by ``rename`` (0 keeps it)."""
    a = abs(x)
    if a < len(rename) and rename[a] != 0:
        return rename[a] if x > 0 else -rename[a]
    return x


@numba.njit(cache=True, nogil=True)
def _needed(
    kind: np.ndarray, head: np.ndarray, mid: np.ndarray, hi: np.ndarray, values: np.ndarray, e: int
) -> tuple[Any, ...]:
    """The additions up to line ``e`` (the empty clause) that it depends on, through the
    hints: ``(status, needed, top)``, ``top`` the largest clause id named (``UNORDERED``
    when the ids of additions do not increase)."""
    top = 0
    last_id = 0
    for k in range(e + 1):
        if kind[k] == 0:
            if head[k] <= last_id:
                return UNORDERED, np.zeros(0, np.bool_), 0
            last_id = head[k]
            top = max(top, head[k])
        for j in range(mid[k], hi[k]):
            top = max(top, abs(values[j]))
    where = np.full(top + 1, -1, np.int64)
    for k in range(e + 1):
        if kind[k] == 0:
            where[head[k]] = k
    needed = np.zeros(e + 1, np.bool_)
    needed[e] = True
    for k in range(e, -1, -1):
        if not needed[k]:
            continue
        for j in range(mid[k], hi[k]):
            w = where[abs(values[j])]
            if 0 <= w < k:
                needed[w] = True
    return OK, needed, top


@numba.njit(cache=True, nogil=True)
def _last_uses(
    needed: np.ndarray,
    mid: np.ndarray,
    hi: np.ndarray,
    values: np.ndarray,
    top: int,
    rename: np.ndarray,
) -> tuple[np.ndarray, np.ndarray]:
    """The deletions after each kept addition: ``dead[bucket[k]:bucket[k + 1]]`` are the
    (renamed, increasing) ids whose last use among the kept additions is line ``k``."""
    e = len(needed) - 1
    last = np.full(top + 1, -1, np.int64)
    for k in range(e + 1):
        if needed[k]:
            for j in range(mid[k], hi[k]):
                last[abs(values[j])] = k
    bucket = np.zeros(e + 2, np.int64)
    for h in range(top + 1):
        if last[h] >= 0:
            bucket[last[h] + 1] += 1
    for k in range(e + 1):
        bucket[k + 1] += bucket[k]
    dead = np.empty(bucket[e + 1], np.int64)
    fill = bucket[: e + 1].copy()
    for h in range(top + 1):
        if last[h] >= 0:
            dead[fill[last[h]]] = _renamed(h, rename)
            fill[last[h]] += 1
    for k in range(e + 1):  # increasing renamed ids within a step
        a, b = bucket[k], bucket[k + 1]
        if b - a > 1:
            dead[a:b] = np.sort(dead[a:b])
    return bucket, dead


@numba.njit(cache=True, nogil=True)
def _text_size(
    needed: np.ndarray,
    head: np.ndarray,
    lo: np.ndarray,
    mid: np.ndarray,
    hi: np.ndarray,
    values: np.ndarray,
    rename: np.ndarray,
    bucket: np.ndarray,
    dead: np.ndarray,
) -> tuple[int, int, int]:
    """The characters of the trimmed text :func:`_write` writes, its kept additions and its
    lines."""
    size = 0
    kept = 0
    lines = 0
    for k in range(len(needed)):
        if not needed[k]:
            continue
        kept += 1
        lines += 1
        name = _renamed(head[k], rename)
        size += _digits(name) + 1
        for j in range(lo[k], mid[k]):
            size += _digits(values[j]) + 1
        size += 2
        for j in range(mid[k], hi[k]):
            size += _digits(_renamed(values[j], rename)) + 1
        size += 2
        if bucket[k + 1] > bucket[k]:
            lines += 1
            size += _digits(name) + 3
            for j in range(bucket[k], bucket[k + 1]):
                size += _digits(dead[j]) + 1
            size += 2
    return size, kept, lines


@numba.njit(cache=True, nogil=True)
def _write(
    out: np.ndarray,
    needed: np.ndarray,
    head: np.ndarray,
    lo: np.ndarray,
    mid: np.ndarray,
    hi: np.ndarray,
    values: np.ndarray,
    rename: np.ndarray,
    bucket: np.ndarray,
    dead: np.ndarray,
) -> None:
    """Write the kept additions, each followed by its deletions, into ``out`` (of the size
    :func:`_text_size` gives)."""
    at = 0
    for k in range(len(needed)):
        if not needed[k]:
            continue
        name = _renamed(head[k], rename)
        at = _put(out, at, name)
        out[at] = _SPACE
        at += 1
        for j in range(lo[k], mid[k]):
            at = _put(out, at, values[j])
            out[at] = _SPACE
            at += 1
        out[at] = 48
        out[at + 1] = _SPACE
        at += 2
        for j in range(mid[k], hi[k]):
            at = _put(out, at, _renamed(values[j], rename))
            out[at] = _SPACE
            at += 1
        out[at] = 48
        out[at + 1] = _NEWLINE
        at += 2
        if bucket[k + 1] > bucket[k]:
            at = _put(out, at, name)
            out[at] = _SPACE
            out[at + 1] = _D
            out[at + 2] = _SPACE
            at += 3
            for j in range(bucket[k], bucket[k + 1]):
                at = _put(out, at, dead[j])
                out[at] = _SPACE
                at += 1
            out[at] = 48
            out[at + 1] = _NEWLINE
            at += 2


@numba.njit(cache=True, nogil=True)
def _trim(
    kind: np.ndarray,
    head: np.ndarray,
    lo: np.ndarray,
    mid: np.ndarray,
    hi: np.ndarray,
    values: np.ndarray,
    rename: np.ndarray,
) -> tuple[Any, ...]:
    """Trim (module docstring). Returns ``(status, text, kept additions, lines written,
    additions up to the empty clause)``."""
    count = len(kind)
    empty_line = -1
    for k in range(count):
        if kind[k] == 0 and mid[k] == lo[k]:
            empty_line = k
            break
    nothing = np.empty(0, np.uint8)
    if empty_line < 0:
        return NO_EMPTY, nothing, 0, 0, 0
    e = empty_line
    status, needed, top = _needed(kind, head, mid, hi, values, e)
    if status != OK:
        return status, nothing, 0, 0, 0
    bucket, dead = _last_uses(needed, mid, hi, values, top, rename)
    size, kept, lines = _text_size(needed, head, lo, mid, hi, values, rename, bucket, dead)
    out = np.empty(size, np.uint8)
    _write(out, needed, head, lo, mid, hi, values, rename, bucket, dead)
    steps = 0
    for k in range(e + 1):
        if kind[k] == 0:
            steps += 1
    return OK, out, kept, lines, steps


def trim_arrays(
    proof: ProofArrays, rename: np.ndarray | None = None
) -> tuple[int, str, int, int, int]:
    """Trim a proof read by :func:`read_proof`.

    Parameters
    ----------
    proof : ProofArrays
    rename : numpy.ndarray, optional
        ``rename[i]`` is the new id of clause ``i`` (0 where ``i`` keeps its id).

    Returns
    -------
    (int, str, int, int, int)
        The status (:data:`OK`, :data:`NO_EMPTY` or :data:`UNORDERED`), the trimmed text,
        the kept additions, the lines written and the additions up to the empty clause.

    Examples
    --------
    >>> _, _, proof = read_proof(b"4 2 0 1 2 0\\n5 1 0 1 3 0\\n5 d 1 0\\n6 0 4 3 0\\n")
    >>> print(trim_arrays(proof)[1], end="")
    4 2 0 1 2 0
    4 d 1 2 0
    6 0 4 3 0
    6 d 3 4 0
    """
    table = np.zeros(0, np.int64) if rename is None else rename.astype(np.int64)
    status, out, kept, lines, steps = _trim(
        proof.kind, proof.head, proof.lo, proof.mid, proof.hi, proof.values, table
    )
    return int(status), out.tobytes().decode(), int(kept), int(lines), int(steps)
