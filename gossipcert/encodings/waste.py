"""The idle budget of a single-packet broadcast: how many informed nodes may stay idle.

With one packet and one receiver per call (telephone, half-duplex, single-port), write
``N_t`` for the number of informed nodes after round ``t`` and ``W_t`` for the number of
nodes informed after round ``t - 1`` that inform nobody in round ``t`` (*idle* nodes). In the
broadcast encoding (:mod:`gossipcert.encodings.broadcast`) every call goes to a node not yet
informed, and every node is informed by at most one call, so ``N_t = 2 N_{t-1} - W_t`` and,
unrolled over ``R`` rounds,

    N_R = 2^R N_0 - sum_{t=1}^{R} 2^(R-t) W_t.

A schedule of ``R`` rounds informs every demanding node, so ``N_R >= M`` with ``M`` the
number of holders and demanding nodes together, which gives the *idle budget*

    sum_{t=1}^{R} 2^(R-t) W_t <= 2^R N_0 - M =: slack.

The constraint is implied (every model of the broadcast encoding with all demands met after
round ``R`` satisfies it), so a DRAT proof of a formula with it proves the plain claim.
When ``2^R`` is close to the number of nodes the slack is small and the budget is strong:

- *forced calls*: in a round ``t`` with ``2^(R-t) > slack`` no informed node may be idle, so
  ``I[v,t-1] -> OR_w S[v,w,t]`` (a clause);
- *a node's own idle rounds* (implied by the budget and the ports): a node ``v`` calls each
  neighbour at most once, and a non-holder never calls its informer, so ``v`` makes at most
  ``s = deg(v) - 1`` calls (``deg(v)`` for a holder). Informed in round ``tau <= t``, it is
  idle in at least ``R - tau - s`` of the rounds ``tau+1 .. R``, which lose at least
  ``1 + 2 + ... + 2^(R-tau-s-1) = 2^(R-tau-s) - 1 >= 2^(R-t-s) - 1`` opportunities (the
  cheapest idle rounds are the last ones). So ``not I[v,t]`` when ``2^(R-t-s) - 1 > slack``
  (for a holder, always informed, the selector is refuted);
- *the rest of the budget*: for the other rounds an idle indicator ``Z[v,t]`` (forced true
  when ``v`` is informed and calls nobody) is counted round by round, and the weighted sum of
  the counts is bounded by ``slack``. A totalizer for that sum has about ``slack^2`` clauses
  per merge (seven million on de Bruijn 8 at 10 rounds, where the slack is 768), so a slack
  above :data:`BUDGET_CAP` is scaled: with ``q = ceil(slack / BUDGET_CAP)``,
  ``sum floor(2^(R-t) / q) W_t <= sum 2^(R-t) W_t / q <= slack / q``, and as the left side is
  an integer it is at most ``floor(slack / q)``. This is still implied; rounds whose weight
  drops to zero are not counted.

Every clause carries the negation of the selector ``D_R``, so the budget of ``R`` rounds binds
only in the query "``R`` rounds suffice", and one incremental formula can hold the budgets of
several horizons.

Variables (from the formula's ``IDPool``, keyed by tuples):

- ``("Z", v, t, R)``: node ``v`` is idle in round ``t`` (only forced one way: true if idle);
- ``("WC", t, R, i, j)``: the ``i``-th merge of the count of round ``t`` reaches ``j``
  (a totalizer over the ``Z`` of that round, cut at ``slack // 2^(R-t) + 1``);
- ``("WT", R, i, j)``: the ``i``-th merge of the weighted sum reaches ``j`` (cut at
  ``slack + 1``); a count output of weight ``w`` enters it as ``w`` copies of itself.

Only the "at least" direction of each counter is encoded (``inputs >= j -> output_j``), which
is all an upper bound on the sum needs.

References
----------
.. [1] A. Farley, S. Hedetniemi, S. Mitchell and A. Proskurowski, "Minimum broadcast graphs",
   Discrete Mathematics 25 (1979) 189-193 (the informed set at most doubles per round).
.. [2] O. Bailleux and Y. Boufkhad, "Efficient CNF encoding of Boolean cardinality
   constraints", CP 2003 (the totalizer).
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Sequence
from typing import Protocol

from gossipcert.encodings.formula import Formula, Lit
from gossipcert.instance import Instance


class BroadcastState(Protocol):
    """What the budget reads of a broadcast encoding
    (:class:`gossipcert.encodings.broadcast.BroadcastEncoding` is one). The budget only
    reads these attributes, so they are read-only here: an encoding may hold lists."""

    @property
    def formula(self) -> Formula:
        """The formula the budget's clauses go to."""
        ...

    @property
    def instance(self) -> Instance:
        """The broadcast instance."""
        ...

    @property
    def holder(self) -> Sequence[bool]:
        """``holder[v]``: node ``v`` holds the message at the start."""
        ...

    @property
    def n_holders(self) -> int:
        """How many nodes hold the message at the start."""
        ...

    @property
    def nbrs(self) -> Sequence[Sequence[int]]:
        """``nbrs[v]``: the neighbours of ``v``."""
        ...

    def informed(self, v: int, t: int) -> Lit:
        """The literal "``v`` is informed after round ``t``"."""
        ...

    def arcs(self, t: int) -> Iterable[tuple[int, int]]:
        """The arcs ``(u, w)`` that may inform ``w`` in round ``t``."""
        ...


#: the largest budget counted exactly; a larger slack is divided down to about this size
BUDGET_CAP = 128


def _merge(
    f: Formula, key: tuple[Hashable, ...], a: list[int], b: list[int], cap: int
) -> list[int]:
    """Outputs ``r_1..r_m`` (``m = min(len(a) + len(b), cap)``) with ``a >= i and b >= j ->
    r_{min(i + j, m)}``, where ``a`` and ``b`` are unary counts (``a[i-1]``: at least ``i``)."""
    m = min(len(a) + len(b), cap)
    out = [f.var((*key, j)) for j in range(1, m + 1)]
    for i in range(min(len(a), cap) + 1):
        for j in range(min(len(b), cap) + 1):
            if i + j == 0:
                continue
            lits: list[Lit] = []
            if i:
                lits.append(-a[i - 1])
            if j:
                lits.append(-b[j - 1])
            f.clause([*lits, out[min(i + j, m) - 1]])
    return out


def unary_sum(
    f: Formula, key: tuple[Hashable, ...], leaves: list[list[int]], cap: int
) -> list[int]:
    """A totalizer over unary counts, cut at ``cap``: output ``j`` (1-based) is forced true
    when the inputs add up to at least ``j``.

    Parameters
    ----------
    f : Formula
    key : tuple
        Prefix of the keys of the merge outputs: ``(*key, i, j)``.
    leaves : list of list of int
        Unary counts (``leaf[i-1]`` true when the leaf counts at least ``i``); a literal of
        weight ``w`` is the leaf ``[lit] * w``.
    cap : int
        Outputs beyond ``cap`` are not made.

    Returns
    -------
    list of int
        The outputs, at most ``cap`` of them.

    Examples
    --------
    >>> f = Formula()
    >>> a, b, c = f.var("a"), f.var("b"), f.var("c")
    >>> out = unary_sum(f, ("T",), [[a], [b, b], [c]], 3)
    >>> len(out)
    3
    """
    level = [leaf[:cap] for leaf in leaves if leaf]
    index = 0
    while len(level) > 1:
        nxt: list[list[int]] = []
        for i in range(0, len(level) - 1, 2):
            nxt.append(_merge(f, (*key, index), level[i], level[i + 1], cap))
            index += 1
        if len(level) % 2:
            nxt.append(level[-1])
        level = nxt
    return level[0] if level else []


def idle_budget(enc: BroadcastState, r: int, selector: int) -> int:
    """Add the idle budget of ``r`` rounds (module docstring), each clause under ``selector``.

    Parameters
    ----------
    enc : BroadcastState
        Extended to at least ``r`` rounds.
    r : int
    selector : int
        ``D_r``: every demand is met after round ``r``.

    Returns
    -------
    int
        The slack ``2^r N_0 - M`` (negative: ``r`` rounds are impossible, and the selector is
        refuted by a unit clause).

    Examples
    --------
    >>> from gossipcert.encodings.broadcast import BroadcastEncoding
    >>> from gossipcert.instance import parse_instance
    >>> enc = BroadcastEncoding(parse_instance("path:4", "telephone", "broadcast:0"))
    >>> enc.extend_to(3)
    >>> idle_budget(enc, 3, enc.formula.var(("D", 3)))
    4
    """
    f = enc.formula
    inst = enc.instance
    n = inst.n
    needed = sum(1 for v in range(n) if enc.holder[v] or inst.demands[v] & 1)
    slack = enc.n_holders * 2 ** min(r, 62) - needed
    if slack < 0:
        f.clause([-selector])
        return slack
    # a node's own idle rounds: informed after round t, it loses at least 2^(r-t-s) - 1
    spare = (slack + 1).bit_length()  # least k with 2^k - 1 > slack
    for v in range(n):
        slots = len(enc.nbrs[v]) - (0 if enc.holder[v] else 1)
        latest = r - slots - spare  # the last round after which v may not be informed yet
        if latest >= 0:
            f.clause([-selector, _negate(enc.informed(v, latest))])
    # the weighted sum, with weights and slack divided by ``scale`` (rounded down)
    scale = -(-slack // BUDGET_CAP) if slack > BUDGET_CAP else 1
    budget = slack // scale
    counts: list[tuple[int, list[int]]] = []
    for t in range(1, r + 1):
        weight = 2 ** (r - t)
        scaled = weight // scale
        calls: dict[int, list[int]] = {}
        for u, w in enc.arcs(t):
            calls.setdefault(u, []).append(f.var(("S", u, w, t)))
        idle: list[list[int]] = []
        for v in range(n):
            before = enc.informed(v, t - 1)
            if before is False:
                continue
            if weight > slack:  # no informed node may be idle
                f.clause([-selector, _negate(before), *calls.get(v, [])])
                continue
            if not scaled:  # the scaled budget does not count this round
                continue
            z = f.var(("Z", v, t, r))
            f.clause([-selector, _negate(before), z, *calls.get(v, [])])
            idle.append([z])
        if idle:
            counts.append((scaled, unary_sum(f, ("WC", t, r), idle, budget // scaled + 1)))
    leaves = [[out] * scaled for scaled, outs in counts for out in outs]
    total = unary_sum(f, ("WT", r), leaves, budget + 1)
    if len(total) > budget:
        f.clause([-selector, -total[budget]])
    return slack


def _negate(lit: Lit) -> Lit:
    if isinstance(lit, bool):
        return not lit
    return -lit
