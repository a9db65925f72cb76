"""The ``calls=N`` modifier; ``sequential`` is ``calls=1`` (Bermond, Gargano and Perennes).

Rules of one round, on top of the model's port rules:

- at most ``N`` calls (telephone) or transmissions (other models) in the whole network; with
  ``N = 1`` the number of rounds is the number of calls.

Variables: none of its own; it counts the model's *units* of a round (telephone: the call
variables ``C``; half-duplex and single-port: the arc variables ``A``; multicast: the sender
variables ``S``), each with the set of nodes it involves.

Constraint families:

- *call limit*: ``sum(units of round t) <= N``;
- *canonical order* (optional, sound, sequential only, rounds ``t-1 >= 2``): when the units
  of rounds ``t-1`` and ``t`` involve disjoint sets of nodes, the one of round ``t-1`` comes
  first in a fixed order of the units. Two such calls commute: each reads and writes the
  knowledge of its own nodes only, so swapping them leaves every node's knowledge after round
  ``t`` unchanged; bubble-sorting any schedule by these swaps gives one that satisfies the
  order, of the same length. Round 1 is left out, so that the swaps never change the first
  round, on which the lex-leader symmetry constraints are stated (the two rules combine).

References
----------
.. [1] J.-C. Bermond, L. Gargano, S. Perennes, "Optimal sequential gossiping by short
   messages", Discrete Applied Mathematics 86, 1998.
"""

from __future__ import annotations

from typing import Any


def add_call_limit(encoding: Any, t: int) -> None:
    """At most ``calls`` units in round ``t`` of a transfer encoding."""
    lits = [lit for _, lit in encoding.units(t)]
    encoding.formula.at_most(lits, encoding.calls)


def add_canonical_order(encoding: Any, t: int) -> None:
    """Consecutive disjoint units of rounds ``t-1`` and ``t`` in increasing order (``t >= 3``)."""
    if encoding.calls != 1 or t < 3:
        return
    before = encoding.units(t - 1)
    now = encoding.units(t)
    for j, (nodes_j, lit_j) in enumerate(before):
        for nodes_i, lit_i in now[:j]:
            if not nodes_i & nodes_j:
                encoding.formula.clause([-lit_j, -lit_i])
