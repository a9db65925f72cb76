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

Trimming decides nothing: the trimmed proof is untrusted input to the checkers
(:func:`gossipcert.proofs.checkers.check_lrat_proof`), which accept it only if it is a
refutation of the formula on its own. A wrong trimmer can make a check fail, never pass.

References
----------
.. [1] N. Wetzler, M. J. H. Heule and W. A. Hunt, Jr., "DRAT-trim: efficient checking and
   trimming using expressive clausal proofs", SAT 2014, LNCS 8561 (backward, core-first
   checking and trimming).
.. [2] L. Cruz-Filipe, M. J. H. Heule, W. A. Hunt, Jr., M. Kaufmann and P. Schneider-Kamp,
   "Efficient certified RAT verification", CADE 2017, LNCS 10395 (the LRAT format).
.. [3] A. Biere et al., CaDiCaL (https://github.com/arminbiere/cadical), ``--lrat``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

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


def _renumbered(line: bytes, ids: dict[int, int]) -> bytes:
    """An LRAT addition with its id and hints renamed by ``ids`` (others unchanged)."""
    tokens = line.split()
    zero = tokens.index(b"0", 1)
    get = ids.get
    out = [str(get(int(tokens[0]), int(tokens[0]))).encode(), *tokens[1 : zero + 1]]
    for h in map(int, tokens[zero + 1 : -1]):
        out.append(str(get(h, h) if h > 0 else -get(-h, -h)).encode())
    out.append(b"0")
    return b" ".join(out)


def trim_lrat(data: bytes, ids: dict[int, int] | None = None) -> TrimmedProof:
    """Keep the additions of an LRAT proof that its first empty clause depends on.

    Parameters
    ----------
    data : bytes
        The proof as written by the solver (text LRAT).
    ids : dict, optional
        Renames clause ids (the solver's id to the formula's), applied to the kept lines.

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
    found = _EMPTY_ADDITION.search(b"\n" + data)  # (a copy: the first line may be the one)
    if found is None:
        raise SolverError("the LRAT proof adds no empty clause")
    lines = data.split(b"\n")
    end = data.count(b"\n", 0, found.start())
    ids = {k: v for k, v in (ids or {}).items() if k != v}  # the identity needs no renaming
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
