"""Trimming an LRAT proof to the steps its refutation uses (backward, core first).

CaDiCaL writes an LRAT proof as it solves (option ``lrat``): every clause it learns, with the
ids of the clauses its unit propagation used (the hints). Most learnt clauses never
contribute to the empty clause. This module keeps only those that do, as drat-trim's
backward pass does for DRAT, but without any propagation: in LRAT the dependencies are
written down, so the core is found by following hints backwards from the first empty
clause, one pass over the proof.

The trimmed proof keeps the kept additions in their order and ids (so ids still increase)
and adds, after each addition, a deletion of every clause it uses for the last time
(formula clauses included), so a checker that applies deletions holds only the clauses
still needed. Comments and the solver's own deletions are dropped.

Two implementations give the same proof (a test holds them to it): one line at a time
(small proofs, and any proof with comments or odd spacing), and on arrays for proofs of
:data:`ARRAYS_FROM` bytes or more: numpy reads every integer at once, the kept steps are
one breadth-first search (scipy) over the graph from each step to the steps it names, and
each clause's last use is one ``maximum.at`` over the kept steps' hints.

Trimming decides nothing: the trimmed proof is untrusted input to the checkers
(:func:`gossipcert.proofs.lrat_checks.check_lrat_proof`), which accept it only if it is a
refutation of the formula on its own. A wrong trimmer can make a check fail, never pass.

References
----------
.. [1] N. Wetzler, M. J. H. Heule and W. A. Hunt, Jr., "DRAT-trim: efficient checking and
   trimming using expressive clausal proofs", SAT 2014, LNCS 8561 (backward, core-first
   checking and trimming).
.. [2] L. Cruz-Filipe, M. J. H. Heule, W. A. Hunt, Jr., M. Kaufmann and P. Schneider-Kamp,
   "Efficient certified RAT verification", CADE 2017, LNCS 10395 (the LRAT format).
.. [3] A. Biere et al., CaDiCaL (https://github.com/arminbiere/cadical), ``--lrat``.
.. [4] P. Virtanen et al., "SciPy 1.0", Nature Methods 17 (2020)
   (``scipy.sparse.csgraph.breadth_first_order``).
"""

from __future__ import annotations

import re
import warnings
from bisect import bisect_left
from collections.abc import Iterator, Mapping
from dataclasses import dataclass

import numpy as np

from gossipcert.errors import SolverError


@dataclass(frozen=True)
class TrimmedProof:
    """A trimmed LRAT proof.

    Attributes
    ----------
    text : str
        The LRAT proof: kept additions and the deletions after each clause's last use.
    additions : int
        Additions kept (the empty clause included).
    lines : int
        Lines of ``text``.
    original_additions : int
        Additions of the proof before trimming, up to its first empty clause.
    original_lines : int
        Lines of the proof before trimming.
    """

    text: str
    additions: int
    lines: int
    original_additions: int
    original_lines: int


#: an addition of the empty clause (``i 0 h1 .. hm 0``) after a line's end
_EMPTY_ADDITION = re.compile(rb"\n[0-9]+ 0 ")


class Renaming(Mapping[int, int]):
    """The renaming of clause ids from a solver's to the proof's, when the solver derived
    clauses of its own while the formula was added (CaDiCaL simplifies a clause with a
    literal already fixed, and the derived clause takes an id from the same counter).

    The formula's ``k``-th clause has the ``k``-th id that no derived clause took; the
    derived clauses become ``n + 1, n + 2, ...`` in order; later ids are unchanged (not in
    the mapping). Computed per id (a bisection), not stored per clause.

    Examples
    --------
    >>> ids = Renaming(3, [2])  # the solver's id 2 was derived while adding 3 clauses
    >>> [ids.get(x, x) for x in (1, 2, 3, 4, 5)]
    [1, 4, 2, 3, 5]
    """

    def __init__(self, n: int, derived: list[int]) -> None:
        self.n = n
        self.derived = sorted(derived)
        self.taken = set(derived)

    def __getitem__(self, key: int) -> int:
        if not 0 < key <= self.n + len(self.derived):
            raise KeyError(key)
        below = bisect_left(self.derived, key)
        return self.n + below + 1 if key in self.taken else key - below

    def __iter__(self) -> Iterator[int]:
        return iter(range(1, self.n + len(self.derived) + 1))

    def __len__(self) -> int:
        return self.n + len(self.derived)

    def __bool__(self) -> bool:
        return bool(self.derived)

    def table(self) -> dict[int, int]:
        """Every id the renaming changes, as a dict (for many lookups: one bisection each
        costs more than building it)."""
        ids = np.arange(1, self.n + len(self.derived) + 1)
        keep = np.ones(len(ids), dtype=bool)
        keep[np.asarray(self.derived, dtype=np.int64) - 1] = False
        originals = ids[keep]
        changed = originals != np.arange(1, len(originals) + 1)
        renamed = (np.flatnonzero(changed) + 1).tolist()
        table = dict(zip(originals[changed].tolist(), renamed, strict=True))
        table.update({d: self.n + k for k, d in enumerate(self.derived, start=1)})
        return table


def binary_to_text(data: bytes) -> bytes:
    """CaDiCaL's binary LRAT as text (a deletion gets the id 0, which no reader uses).

    Each number is ``2 |x| + (x < 0)`` in 7-bit groups, least significant first, the high
    bit set on every byte but the last; a line is ``a id lits 0 hints 0`` or ``d ids 0``.
    This is the reader for small proofs (the compiled one,
    :func:`gossipcert.proofs.lrat_kernels.read_proof`, costs a fixed load first).

    Raises
    ------
    SolverError
        A byte that begins no line, or a line cut short.

    Examples
    --------
    >>> binary_to_text(b"a\\x0a\\x05\\x00\\x06\\x08\\x00d\\x02\\x00")
    b'5 -2 0 3 4 0\\n0 d 1 0\\n'
    """
    out: list[bytes] = []
    i, size = 0, len(data)
    while i < size:
        kind = data[i]
        i += 1
        if kind not in (97, 100):  # "a", "d"
            raise SolverError(f"binary LRAT: byte {i - 1} begins no line")
        numbers: list[int] = []
        zeros = 0
        want = 2 if kind == 97 else 1
        while zeros < want:
            u = shift = 0
            while True:
                if i >= size:
                    raise SolverError("binary LRAT: the last line is cut short")
                byte = data[i]
                i += 1
                u |= (byte & 127) << shift
                shift += 7
                if byte < 128:
                    break
            x = -(u >> 1) if u & 1 else u >> 1
            if x == 0 and (kind == 100 or numbers):
                zeros += 1
            numbers.append(x)
        text = " ".join(map(str, numbers))
        out.append(f"0 d {text}".encode() if kind == 100 else text.encode())
    return b"\n".join(out) + b"\n" if out else b""


def _renumbered(line: bytes, ids: Mapping[int, int]) -> bytes:
    """An LRAT addition with its id and hints renamed by ``ids`` (others unchanged)."""
    tokens = line.split()
    zero = tokens.index(b"0", 1)
    get = ids.get
    out = [str(get(int(tokens[0]), int(tokens[0]))).encode(), *tokens[1 : zero + 1]]
    for h in map(int, tokens[zero + 1 : -1]):
        out.append(str(get(h, h) if h > 0 else -get(-h, -h)).encode())
    out.append(b"0")
    return b" ".join(out)


def trim_lrat(data: bytes, ids: Mapping[int, int] | None = None) -> TrimmedProof:
    """Keep the additions of an LRAT proof that its first empty clause depends on.

    Parameters
    ----------
    data : bytes
        The proof as written by the solver (text LRAT).
    ids : mapping, optional
        Renames clause ids (the solver's id to the formula's), applied to the kept lines (a
        dict, or a :class:`Renaming`).

    Returns
    -------
    TrimmedProof

    Raises
    ------
    SolverError
        The proof adds no empty clause, or a line is not LRAT.

    Examples
    --------
    >>> proof = b"4 2 0 1 2 0\\n5 1 0 1 3 0\\n5 d 1 0\\n6 0 4 3 0\\n"
    >>> print(trim_lrat(proof).text, end="")
    4 2 0 1 2 0
    4 d 1 2 0
    6 0 4 3 0
    6 d 3 4 0
    """
    if isinstance(ids, Renaming):
        ids = ids.table() if ids else {}
    else:  # the identity needs no renaming
        ids = {k: v for k, v in (ids or {}).items() if k != v}
    fast = (
        _trim_arrays(data, ids)
        if len(data) >= (RENAMED_ARRAYS_FROM if ids else ARRAYS_FROM)
        else None
    )
    return fast if fast is not None else _trim_lines(data, ids)


def _trim_lines(data: bytes, ids: Mapping[int, int]) -> TrimmedProof:
    """:func:`trim_lrat` one line at a time: the reference, and the path for proofs the
    array version leaves (comments, tabs, malformed lines, whose error it names)."""
    found = _EMPTY_ADDITION.search(b"\n" + data)  # (a copy: the first line may be the one)
    if found is None:
        raise SolverError("the LRAT proof adds no empty clause")
    lines = data.split(b"\n")
    end = data.count(b"\n", 0, found.start())
    kept: list[tuple[bytes, bytes, list[int]]] = []
    needed: set[bytes] = set()
    additions = 0
    k = end
    try:
        for k in range(end, -1, -1):
            line = lines[k]
            head, _, rest = line.partition(b" ")
            if not head or head == b"c" or rest[:2] == b"d ":
                continue
            additions += 1
            if k != end and head not in needed:
                continue
            tokens = rest.split()
            zero = tokens.index(b"0")
            if tokens[-1] != b"0" or len(tokens) == zero + 1:
                raise ValueError
            # ids as the text has them (CaDiCaL writes no leading zeros; a trimmer that
            # erred here would make the check fail, never pass)
            hints = set(tokens[zero + 1 : -1])
            if any(h[:1] == b"-" for h in hints):  # RAT groups name clauses by -id
                hints = {h.lstrip(b"-") for h in hints}
            # the clauses used here for the last time (in proof order): not needed later
            last = sorted(map(int, hints - needed))
            needed.update(hints)
            if ids:
                head, line = str(ids.get(int(head), int(head))).encode(), _renumbered(line, ids)
                last = sorted(ids.get(h, h) for h in last)
            kept.append((head, line.strip(), last))
    except (ValueError, IndexError):
        raise SolverError(f"the LRAT proof has a malformed line (line {k + 1})") from None
    out: list[bytes] = []
    for head, line, last in reversed(kept):
        out.append(line)
        if last:
            out.append(b"%s d %s 0" % (head, " ".join(map(str, last)).encode()))
    text = b"\n".join(out).decode() + "\n"
    return TrimmedProof(text, len(kept), len(out), additions, len(lines) - (lines[-1] == b""))


#: proofs of at least this many bytes are trimmed on arrays (below, one line at a time is
#: faster: numpy's fixed costs outweigh the loop)
ARRAYS_FROM = 200_000
#: the same for a proof whose ids are renamed (the line version parses every kept line then)
RENAMED_ARRAYS_FROM = 30_000

#: the tokens that stand for a deletion's ``d`` and for a line's end in the array version
#: (above every id and literal it accepts)
_DELETION, _LINE_END = 2**62 + 1, 2**62 + 2
#: the tokens :func:`proof_tokens` puts for a ``d`` and for each line's end
DELETION_TOKEN, LINE_END_TOKEN = _DELETION, _LINE_END

#: the bytes of an LRAT proof the array version reads (digits, ``-``, ``d``, space, newline)
_READABLE = np.zeros(256, dtype=bool)
_READABLE[list(b"0123456789- d\n")] = True


def proof_tokens(data: bytes) -> np.ndarray | None:
    """The proof's integers, with :data:`_DELETION` for each ``d`` and :data:`_LINE_END` at
    each line's end; None when the text holds anything else (the line version then reads it).
    """
    raw = np.frombuffer(data, dtype=np.uint8)
    if np.any(np.bincount(raw, minlength=256)[~_READABLE]):
        return None
    text = data.replace(b" d ", b" %d " % _DELETION).replace(b"\n", b" %d " % _LINE_END)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        try:
            tokens = np.fromstring(text, dtype=np.int64, sep=" ")
        except (ValueError, DeprecationWarning):
            return None
    # every token read as one integer: a lone "d", a "--5" or an overflow sends the proof to
    # the line version, which names the line
    nonblank = (raw != 32) & (raw != 10)
    starts = int(nonblank[0]) + int(np.count_nonzero(nonblank[1:] & ~nonblank[:-1]))
    if len(tokens) != starts + data.count(b"\n"):
        return None
    big = tokens[np.abs(tokens) >= 2**62]
    if np.any((big != _DELETION) & (big != _LINE_END)):
        return None
    return tokens


#: a deletion line's end, then the line's end
_CLOSE = np.array([0, _LINE_END], dtype=np.int64)


#: 10, 100, ..., 10**18: a number below 10**k has at most k digits
_POWERS = 10 ** np.arange(1, 19, dtype=np.int64)


def _text(values: np.ndarray) -> str:
    """Integers as LRAT text, all at once: :data:`_DELETION` is written ``d``, each
    :data:`_LINE_END` ends the line, the others are separated by spaces.

    Examples
    --------
    >>> _text(np.array([12, -3, 0, _LINE_END, 5, _DELETION, 40, 0, _LINE_END]))
    '12 -3 0\\n5 d 40 0\\n'
    """
    end = values == _LINE_END
    keep = ~end
    numbers = values[keep]
    deletion = numbers == _DELETION
    newline = np.append(end[1:], False)[keep]  # the next token ends the line
    size = np.abs(numbers)
    size[deletion] = 0
    digits = 1 + np.searchsorted(_POWERS, size, side="right")
    width = digits + (numbers < 0)
    width[deletion] = 1
    start = np.cumsum(width + 1) - (width + 1)
    out = np.empty(int((width + 1).sum()), dtype=np.uint8)
    out[start + width] = np.where(newline, 10, 32)
    left, where, rest, last = np.arange(len(numbers)), start + width - 1, size, digits
    for place in range(int(digits.max(initial=0))):
        if place:
            live = last > place
            left, rest, where = left[live], rest[live], where[live]
            last = last[live]
        out[where - place] = 48 + rest % 10
        rest = rest // 10
    out[start[numbers < 0]] = 45
    out[start[deletion]] = 100
    return out.tobytes().decode()


def _renamed(values: np.ndarray, ids: Mapping[int, int]) -> np.ndarray:
    """``values`` (clause ids, a RAT group's as ``-id``) renamed by ``ids``."""
    keys = np.fromiter(ids.keys(), dtype=np.int64, count=len(ids))
    order = np.argsort(keys)
    keys = keys[order]
    new = np.fromiter(ids.values(), dtype=np.int64, count=len(ids))[order]
    size = np.abs(values)
    at = np.minimum(np.searchsorted(keys, size), len(keys) - 1)
    out = np.where(keys[at] == size, new[at], size)
    return np.where(values < 0, -out, out)


def _trim_arrays(data: bytes, ids: Mapping[int, int]) -> TrimmedProof | None:
    """:func:`trim_lrat` on arrays: the proof read by numpy in one pass, the steps the empty
    clause depends on found by one breadth-first search (scipy) over the hint graph, the
    last uses found by one sort. None when the proof is not plain, well-formed LRAT (the
    line version then reads it, and names any malformed line)."""
    from scipy.sparse import csr_matrix
    from scipy.sparse.csgraph import breadth_first_order

    if data and not data.endswith(b"\n"):
        data += b"\n"
    tokens = proof_tokens(data)
    if tokens is None:
        return None
    ends = np.flatnonzero(tokens == _LINE_END)  # one per line
    lines_in = len(ends)
    starts = np.empty_like(ends)
    starts[:1] = 0
    starts[1:] = ends[:-1] + 1
    line = np.flatnonzero(ends > starts)  # lines with tokens (others are blank)
    starts, ends = starts[line], ends[line]
    if np.any(ends - starts < 2):
        return None
    deletion = tokens[starts + 1] == _DELETION
    add, a_start, a_end = line[~deletion], starts[~deletion], ends[~deletion]
    zeros = np.flatnonzero(tokens == 0)
    first = np.searchsorted(zeros, a_start + 1)
    if len(add) == 0 or np.any(np.searchsorted(zeros, a_end) - first != 2):
        return None
    z1 = zeros[first]  # each addition has two zeros: after its literals, at its end
    if np.any(tokens[a_end - 1] != 0) or np.any(tokens[a_start] <= 0):
        return None
    empty = np.flatnonzero(z1 == a_start + 1)
    if len(empty) == 0:
        raise SolverError("the LRAT proof adds no empty clause")
    e = int(empty[0])
    add, a_start, a_end, z1 = add[: e + 1], a_start[: e + 1], a_end[: e + 1], z1[: e + 1]
    step_ids = tokens[a_start]
    if np.any(np.diff(step_ids) <= 0):
        return None  # ids that do not increase: the checkers name it
    # the hints of every addition, as (owner, id) pairs, in proof order
    counts = a_end - 1 - (z1 + 1)
    owner = np.repeat(np.arange(e + 1), counts)
    at = np.arange(int(counts.sum())) + np.repeat(z1 + 1 - (np.cumsum(counts) - counts), counts)
    hint = np.abs(tokens[at])  # a RAT group names its clause by -id
    if step_ids[-1] <= 16 * len(tokens):  # a table from id to step
        index = np.full(int(step_ids[-1]) + 1, -1, dtype=np.int64)
        index[step_ids] = np.arange(e + 1)
        target = index[np.minimum(hint, len(index) - 1)]
        derived = (target >= 0) & (hint < len(index)) & (target < owner)
    else:
        target = np.searchsorted(step_ids, hint)
        inside = target < len(step_ids)
        derived = inside.copy()
        derived[inside] = step_ids[target[inside]] == hint[inside]
        derived &= target < owner
    graph = csr_matrix(
        (np.ones(int(derived.sum()), dtype=np.int8), (owner[derived], target[derived])),
        shape=(e + 1, e + 1),
    )
    kept = np.sort(breadth_first_order(graph, e, directed=True, return_predecessors=False))
    # each clause's last use among the kept steps: one deletion line after that step
    keep = np.zeros(e + 1, dtype=bool)
    keep[kept] = True
    use = keep[owner]
    last = np.full(int(hint.max(initial=0)) + 1, -1, dtype=np.int64)
    np.maximum.at(last, hint[use], owner[use])
    dead = np.flatnonzero(last >= 0)
    when = last[dead]
    order = np.argsort(when, kind="stable")  # ids stay in increasing order within a step
    dead, when = dead[order], when[order]
    cut = np.searchsorted(when, kept, side="right")
    begin = np.searchsorted(when, kept, side="left")
    if ids:  # every kept line's head and hints renamed, and the text written anew
        renamed = tokens.copy()
        renamed[at] = _renamed(tokens[at], ids)
        renamed[a_start] = _renamed(step_ids, ids)
        gone = _renamed(dead, ids)
        gone = gone[np.lexsort((gone, when))]  # increasing ids within a step, as below
        pieces: list[np.ndarray] = []
        for k, lo, hi in zip(kept.tolist(), begin.tolist(), cut.tolist(), strict=True):
            pieces.append(renamed[a_start[k] : a_end[k] + 1])  # its line's end included
            if hi > lo:
                pieces += [np.array([renamed[a_start[k]], _DELETION]), gone[lo:hi], _CLOSE]
        text = _text(np.concatenate(pieces))
        lines = len(kept) + int(np.count_nonzero(cut > begin))
        return TrimmedProof(text, len(kept), lines, e + 1, lines_in)
    newline = np.flatnonzero(np.frombuffer(data, dtype=np.uint8) == 10)
    line_start = np.empty_like(newline)
    line_start[:1] = 0
    line_start[1:] = newline[:-1] + 1
    out: list[bytes] = []
    names = dead.tolist()
    for k, lo, hi in zip(kept.tolist(), begin.tolist(), cut.tolist(), strict=True):
        number = int(add[k])
        out.append(data[line_start[number] : newline[number]].strip())
        if hi > lo:
            gone_ids = " ".join(map(str, names[lo:hi])).encode()
            out.append(b"%d d %s 0" % (int(step_ids[k]), gone_ids))
    return TrimmedProof(b"\n".join(out).decode() + "\n", len(kept), len(out), e + 1, lines_in)
