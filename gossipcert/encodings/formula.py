"""A small Boolean / pseudo-Boolean constraint store that compiles to CNF and to CP-SAT.

Every encoding writes its constraints once, here, and each back-end compiles them, so the SAT
and CP-SAT back-ends cannot drift apart. Three constraint forms:

- clauses (disjunctions of literals);
- at-most-one groups;
- cardinality bounds ``sum(lits) <= k`` and ``sum(lits) >= k``.

Literals are DIMACS integers from a PySAT :class:`~pysat.formula.IDPool` keyed by tuples
(``("K", v, p, t)``). The Python constants ``True`` and ``False`` may appear in a clause
given to :meth:`Formula.clause`; they are simplified away.

Constraints are stored in order and compiled incrementally: :meth:`Formula.cnf_since` returns
the clauses of everything added after a mark, so one SAT solver can be extended round by
round.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Sequence
from dataclasses import dataclass, field

from pysat.card import CardEnc, EncType
from pysat.formula import IDPool

from gossipcert.interrupts import pysat_handler_off

Lit = int | bool


@dataclass
class Formula:
    """Constraints over variables from one ``IDPool``.

    Attributes
    ----------
    vpool : IDPool
        Variables keyed by tuples; cardinality encodings take their auxiliaries from it too,
        after every keyed variable (``occupied`` keeps them apart).
    items : list
        The constraints in the order they were added: ``("or", lits)``, ``("amo", lits)``,
        ``("le", lits, k)`` or ``("ge", lits, k)``.
    """

    vpool: IDPool = field(default_factory=lambda: IDPool(start_from=1))
    items: list[tuple] = field(default_factory=list)

    def var(self, key: Hashable) -> int:
        """The variable for ``key`` (created on first use)."""
        return self.vpool.id(key)

    def clause(self, lits: Iterable[Lit]) -> None:
        """Add a disjunction; ``True`` satisfies it, ``False`` literals are dropped.

        An empty clause (all literals ``False``) is kept: the formula is then unsatisfiable.
        """
        out: list[int] = []
        for lit in lits:
            if lit is True:
                return
            if lit is False:
                continue
            out.append(lit)
        self.items.append(("or", tuple(dict.fromkeys(out))))

    def at_most_one(self, lits: Sequence[int]) -> None:
        """At most one of ``lits`` is true."""
        if len(lits) > 1:
            self.items.append(("amo", tuple(lits)))

    def at_most(self, lits: Sequence[int], k: int) -> None:
        """At most ``k`` of ``lits`` are true."""
        if k < 0:
            self.items.append(("or", ()))
        elif k == 0:
            for lit in lits:
                self.items.append(("or", (-lit,)))
        elif k == 1:
            self.at_most_one(lits)
        elif len(lits) > k:
            self.items.append(("le", tuple(lits), k))

    def at_least(self, lits: Sequence[int], k: int) -> None:
        """At least ``k`` of ``lits`` are true (none asked for when ``k <= 0``)."""
        if k > len(lits):
            self.items.append(("or", ()))
        elif k == 1:
            self.clause(lits)
        elif k > 1:
            self.items.append(("ge", tuple(lits), k))

    def lex_geq(self, key: tuple[Hashable, ...], pairs: Iterable[tuple[int, int]]) -> None:
        """``x >=lex y`` over ``pairs = [(x_i, y_i)]``, as clauses: ``("E", *key, i)`` (true
        while the prefix before ``i + 1`` is equal) forbids ``x_i < y_i`` after an equal
        prefix.

        Examples
        --------
        >>> from pysat.solvers import Solver
        >>> f = Formula()
        >>> x, y = [f.var(("x", i)) for i in range(2)], [f.var(("y", i)) for i in range(2)]
        >>> f.lex_geq(("xy",), zip(x, y))
        >>> f.clause([-x[0]]); f.clause([y[0]])
        >>> Solver(bootstrap_with=f.cnf_since(0)).solve()  # 0.. < 1..
        False
        """
        equal: int | None = None  # None: the empty prefix
        for i, (x, y) in enumerate(pairs):
            guard = [] if equal is None else [-equal]
            self.clause([*guard, x, -y])
            nxt = self.var(("E", *key, i))
            self.clause([*guard, -x, -y, nxt])
            self.clause([*guard, x, y, nxt])
            equal = nxt

    def mark(self) -> int:
        """A position in the constraint list, for :meth:`cnf_since`."""
        return len(self.items)

    @pysat_handler_off()  # PySAT takes no SIGINT itself
    def cnf_since(self, start: int = 0) -> list[list[int]]:
        """The CNF clauses of every constraint added at or after ``start``.

        At-most-one groups of up to six literals are encoded pairwise, larger ones with a
        sequential counter; upper cardinality bounds with a totalizer, lower ones with a
        sequential counter (its size grows with ``k``, the totalizer's with the number of
        literals less ``k``). Auxiliary variables come from ``vpool``.
        """
        out: list[list[int]] = []
        for item in self.items[start:]:
            if item[0] == "or":
                out.append(list(item[1]))
            elif item[0] == "amo":
                lits = list(item[1])
                if len(lits) <= 6:
                    out.extend([-a, -b] for i, a in enumerate(lits) for b in lits[i + 1 :])
                else:
                    enc = CardEnc.atmost(lits, 1, vpool=self.vpool, encoding=EncType.seqcounter)
                    out.extend(enc.clauses)
            elif item[0] == "ge":
                enc = CardEnc.atleast(
                    list(item[1]), item[2], vpool=self.vpool, encoding=EncType.seqcounter
                )
                out.extend(enc.clauses)
            else:
                enc = CardEnc.atmost(
                    list(item[1]), item[2], vpool=self.vpool, encoding=EncType.totalizer
                )
                out.extend(enc.clauses)
        return out
