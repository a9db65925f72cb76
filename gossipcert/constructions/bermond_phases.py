"""The four phases of the sequential gossip protocol of Bermond, Gargano and Pérennes [1]_,
played on labels: who calls whom, with which blocks each way, and what every node knows after
each stage (the record and the schedule are :mod:`gossipcert.constructions.bermond`).

Write ``n = hp + k`` with ``h >= 1`` and ``2 <= k <= p + 1``; nodes and blocks are taken
modulo ``n`` and ``[a, b]`` is the cyclic run of blocks ``a, a + 1, ..., b``.

1. ``n - 1`` calls after which every node ``i >= p`` knows ``[i - p, i]`` (type 1) or
   ``[i - p, i + k - 1]`` (type k, the nodes ``p - 1 + d(k - 1)``).
2. ``p`` calls that extend this to all nodes; nodes ``0 .. p-2`` are then relabelled.
3. ``floor((h - 1)/2)`` steps of ``n`` calls ``{i, i + p + 1}`` in which every node learns
   ``p`` new blocks per call, the calls of type-1 nodes ``i`` first.
4. The last calls, by the parity of ``h``.

Where the paper leaves a choice open this module takes the following one; each is stated at
the step it concerns.

- Phase 2: node ``n - 1`` learns from the nodes ``0 .. p-2`` exactly the ``k - 1`` blocks
  ``[0, k - 2]`` it needs to become of type k (the paper: "node ``n - 1`` will know ``p + k``
  blocks"), each from the first of them that knows it.
- Phase 4: the nodes of one type that must pair up are taken in increasing order of their
  labels and the ``j``-th is paired with the ``(j + floor(N/2))``-th (the pairs of
  Examples 3.1 and 3.2); when their number ``N`` is odd, the last one calls a node that
  already knows everything.
- Phase 4, ``h`` even, type-1 nodes (relabelled ``0 .. N_1 - 1``, ``j`` calls ``j + q``,
  ``q = p - floor((p + 1)/(k - 1))``): ``j`` receives from ``j + q`` the first blocks it
  misses (``p`` of them when ``j + q`` is at least ``p`` labels ahead) and from ``j - q`` the
  rest. For some ``(n, p)`` with ``h = 2`` that ``q`` leaves a node short of blocks; then the
  nearest ``q`` that works is taken, and when none does (``n = 3p``, for instance) the calls
  are made in an order in which blocks learned in phase 4 are passed on. The number of calls
  is the paper's in every case; :attr:`gossipcert.constructions.bermond.BermondProtocol.notes` says
  which rule was used.

References
----------
.. [1] J.-C. Bermond, L. Gargano and S. Pérennes, "Optimal sequential gossiping by short
   messages", Discrete Applied Mathematics 86 (1998), pp. 145-155. Section 2 (bounds (1),
   (2), Theorem 2.1), section 3 (Theorem 3.1, the protocol, Examples 3.1 and 3.2).
"""

from __future__ import annotations

from dataclasses import dataclass

from gossipcert.errors import NotApplicableError
from gossipcert.instance import bits


@dataclass(frozen=True)
class BermondCall:
    """One call of the protocol, between nodes ``u`` and ``v``.

    Attributes
    ----------
    phase : int
        1 to 4.
    stage : str
        The first table that shows the call's effect (see
        :class:`gossipcert.constructions.bermond.BermondProtocol`).
    u, v : int
        The two nodes, by their numbers ``0 .. n-1`` (not their labels after phase 2).
    to_v, to_u : int
        Bitmasks of the blocks sent ``u -> v`` and ``v -> u``; block ``b`` is bit ``b``, the
        block node ``b`` holds at the start.
    """

    phase: int
    stage: str
    u: int
    v: int
    to_v: int
    to_u: int


def split_n(n: int, p: int) -> tuple[int, int]:
    """``(h, k)`` with ``n = hp + k``, ``h >= 1`` and ``2 <= k <= p + 1`` (Theorem 2.1 of [1]_).

    Raises
    ------
    NotApplicableError
        ``p < 2`` or ``n < p + 2``, outside the hypothesis of sections 2 and 3.

    Examples
    --------
    >>> split_n(16, 4), split_n(22, 9), split_n(13, 4)
    ((3, 4), (2, 4), (2, 5))
    """
    if p < 2 or n < p + 2:
        raise NotApplicableError(
            f"the protocol of Bermond et al. needs p >= 2 and n >= p + 2 (n={n}, p={p})"
        )
    k = (n - 2) % p + 2
    return (n - k) // p, k


class _Run:
    """The protocol being played: labels, knowledge, calls, tables and notes."""

    def __init__(self, n: int, p: int) -> None:
        self.n, self.p = n, p
        self.h, self.k = split_n(n, p)
        self.know = [1 << v for v in range(n)]
        self.node = list(range(n))  # label -> node
        self.calls: list[BermondCall] = []
        self.tables: dict[str, tuple[frozenset[int], ...]] = {}
        self.notes: list[str] = []

    def blocks(self, a: int, b: int) -> int:
        """The blocks ``[a, b]``, ``a`` and ``b`` not yet reduced mod ``n`` (empty if ``b < a``)."""
        count = b - a + 1
        if count > self.n:
            raise RuntimeError(f"interval [{a}, {b}] is longer than n = {self.n}")
        mask = 0
        for x in range(a, a + max(count, 0)):
            mask |= 1 << (x % self.n)
        return mask

    def at(self, label: int) -> int:
        """The node playing label ``label`` (mod ``n``)."""
        return self.node[label % self.n]

    def call(self, phase: int, stage: str, i: int, j: int, to_j: int, to_i: int) -> None:
        """Labels ``i`` and ``j`` call; ``i`` sends the blocks ``to_j``, ``j`` sends ``to_i``."""
        u, v = self.at(i), self.at(j)
        if u == v:
            raise RuntimeError(f"phase {phase}: label {i} would call itself")
        for sender, mask in ((u, to_j), (v, to_i)):
            if mask & ~self.know[sender]:
                raise RuntimeError(f"phase {phase}: node {sender} sends a block it does not know")
            if mask.bit_count() > self.p:
                raise RuntimeError(f"phase {phase}: node {sender} sends more than p blocks")
        self.know[u] |= to_i
        self.know[v] |= to_j
        self.calls.append(BermondCall(phase, stage, u, v, to_j, to_i))

    def snapshot(self, stage: str) -> None:
        self.tables[stage] = tuple(frozenset(bits(m)) for m in self.know)

    def knows(self, label: int, a: int, b: int) -> bool:
        need = self.blocks(a, b)
        return self.know[self.at(label)] & need == need


def _phase_1(run: _Run) -> int:
    """First phase: ``n - 1`` calls; returns ``Delta = floor((n - 1 - p)/(k - 1))``."""
    n, p, k = run.n, run.p, run.k
    # calls t = 1 .. p-1: t - 1 sends [0, t - 1] and receives [t]
    for t in range(1, p):
        run.call(1, "phase 1", t - 1, t, run.blocks(0, t - 1), run.blocks(t, t))
    # call p + d(k-1) + l, 0 <= l <= k-2, up to n - 1 (17): node p - 1 + d(k-1) receives
    # [p + d(k-1) + l] from node p + d(k-1) + l and sends it [d(k-1) + l, p + d(k-1) + l - 1]
    delta_max = (n - 1 - p) // (k - 1)
    for delta in range(delta_max + 1):
        for lam in range(k - 1):
            w = p + delta * (k - 1) + lam
            if w > n - 1:
                break
            centre = p - 1 + delta * (k - 1)
            run.call(1, "phase 1", centre, w, run.blocks(w - p, w - 1), run.blocks(w, w))
    run.snapshot("phase 1")
    return delta_max


def _phase_2(run: _Run, delta_max: int) -> frozenset[int]:
    """Second phase: ``p`` calls and the relabelling; returns the labels of type k."""
    n, p, k = run.n, run.p, run.k
    # p - 1 receives [n - 1] from p - 1 + Delta(k-1) and sends [0, p - 1 + (Delta+1)(k-1) - n]
    run.call(
        2,
        "phase 2",
        p - 1,
        p - 1 + delta_max * (k - 1),
        run.blocks(0, p - 1 + (delta_max + 1) * (k - 1) - n),
        run.blocks(n - 1, n - 1),
    )
    # node n - 1 calls each i = 0 .. p-2, and learns the blocks [0, k - 2] it lacks
    wanted = run.blocks(0, k - 2)
    new_label: dict[int, int] = {}
    for i in range(p - 1):
        if i % (k - 1) != (p - 2) % (k - 1):
            # Case 1: n - 1 sends [i - p + 1, -1]; i knows [i - p + 1, i + 1], becomes i + 1
            gift, new_label[i] = run.blocks(i - p + 1, -1), i + 1
        elif i >= k - 2:
            # Case 2: n - 1 sends [i - (k + p - 2), -1]; i knows [i - (k + p - 2), i + 1] and
            # becomes i + 1 - (k - 1)
            gift, new_label[i] = run.blocks(i - (k + p - 2), -1), i + 1 - (k - 1)
        else:
            # Case 3: n - 1 sends [-p, -1]; i knows at least [-p, 0], becomes 0
            gift, new_label[i] = run.blocks(-p, -1), 0
        back = wanted & run.know[run.at(i)] & ~run.know[run.at(n - 1)]
        run.call(2, "phase 2", n - 1, i, gift, back)
    if sorted(new_label.values()) != list(range(p - 1)):
        raise RuntimeError("the relabelling of phase 2 is not a permutation")
    for i, label in new_label.items():
        run.node[label] = i
    run.snapshot("phase 2")
    # type k: the labels i = p - 1 (mod k - 1), and n - 1; check both properties
    type_k = frozenset(i for i in range(n) if i % (k - 1) == (p - 1) % (k - 1)) | {n - 1}
    for i in range(n):
        top = i + k - 1 if i in type_k else i
        if not run.knows(i, i - p, top):
            raise RuntimeError(f"after phase 2 label {i} does not know [{i - p}, {top}]")
    return type_k


def _phase_3(run: _Run, type_k: frozenset[int]) -> int:
    """Third phase: ``h' = floor((h-1)/2)`` steps of ``n`` calls ``{i, i + p + 1}``; returns h'."""
    n, p, k = run.n, run.p, run.k
    steps = (run.h - 1) // 2
    for s in range(steps):
        for kind in ("1", "k"):
            stage = f"phase 3.{s + 1} type {kind}"
            for i in range(n):
                if (i in type_k) != (kind == "k"):
                    continue
                # i always sends [i - (s+1)p + 1, i - sp] to i + p + 1
                to_j = run.blocks(i - (s + 1) * p + 1, i - s * p)
                if kind == "1":
                    # first the calls of type-1 nodes i: i receives [i + sp + 1, i + (s+1)p]
                    to_i = run.blocks(i + s * p + 1, i + (s + 1) * p)
                else:
                    # then those of type-k nodes i: i receives [i + sp + k, i + (s+1)p + k - 1]
                    to_i = run.blocks(i + s * p + k, i + (s + 1) * p + k - 1)
                run.call(3, stage, i, i + p + 1, to_j, to_i)
            run.snapshot(stage)
    run.snapshot("phase 3")
    return steps


def _pair_up(
    run: _Run, labels: list[int], missing: dict[int, int], helper: int, stage: str
) -> None:
    """Pair the ``j``-th label with the ``(j + floor(N/2))``-th; each sends the other the blocks
    it misses. When ``N`` is odd the last label calls ``helper``, who knows everything."""
    half = len(labels) // 2
    for j in range(half):
        a, b = labels[j], labels[j + half]
        run.call(4, stage, a, b, missing[b], missing[a])
    if len(labels) % 2:
        odd = labels[-1]
        run.call(4, stage, odd, helper, 0, missing[odd])


def _phase_4(run: _Run, type_k: frozenset[int], steps: int) -> None:
    """Last phase, by the parity of ``h`` (``steps`` is ``h'``)."""
    n, p, k = run.n, run.p, run.k
    ones = [i for i in range(n) if i not in type_k]
    kays = sorted(type_k)
    if run.h % 2:
        # Case 1, h odd: the type-k nodes know everything; a type-1 node i misses
        # [i + (h-1)p/2 + 1, i + (h-1)p/2 + k - 1]; pair the type-1 nodes
        missing = {i: run.blocks(i + steps * p + 1, i + steps * p + k - 1) for i in ones}
        _pair_up(run, ones, missing, kays[0], "phase 4")
    else:
        # Case 2, h even: first the type-k nodes; node i misses the p blocks
        # [i + h'p + k, i + h'p + k + p - 1]; pair them
        missing = {i: run.blocks(i + steps * p + k, i + steps * p + k + p - 1) for i in kays}
        _pair_up(run, kays, missing, kays[0], "phase 4 type k")
        run.snapshot("phase 4 type k")
        # then the type-1 nodes
        _type_1_calls(run, ones, steps)
    run.snapshot("phase 4")
    everything = (1 << n) - 1
    if any(known != everything for known in run.know):
        raise RuntimeError(f"the protocol leaves some node uninformed (n={n}, p={p})")


def _type_1_calls(run: _Run, ones: list[int], steps: int) -> None:
    """Last phase, ``h`` even: the ``N_1`` calls that complete the type-1 nodes.

    The paper relabels the type-1 nodes ``0 .. N_1 - 1`` and lets ``j`` call ``j + q``,
    ``q = p - floor((p + 1)/(k - 1))``; each node learns the ``p + k - 1`` blocks it misses
    in its two calls. A node at label distance ``d <= (h - 1)p + 1`` ahead of ``j`` knows the
    first ``d`` blocks ``j`` misses, one at distance ``d`` behind it the last ``d``. So ``j``
    receives from ``j + q`` the first ``min(d, p)`` blocks it misses (``p`` when ``d >= p``,
    the case the paper has in mind) and from ``j - q`` the rest, the last ones, out of what
    they knew when the phase began. When the paper's ``q`` leaves some node short, the
    nearest ``q`` that does not is taken; when every ``q`` does, the calls ``{j, j + q}`` are
    made in a fixed order and each side passes on what it has learned in this phase too
    (every call carries the first blocks ``j`` misses and the last blocks ``j + q`` misses,
    up to ``p`` each), for the nearest ``q`` and order that complete everyone. Each deviation
    is noted in ``run.notes``.
    """
    n, p, k, h = run.n, run.p, run.k, run.h
    count = len(ones)
    if not count:
        return
    paper_q = p - (p + 1) // (k - 1)
    candidates = sorted(range(1, count), key=lambda q: (abs(q - paper_q), q))

    def partner(j: int, q: int) -> int:
        return ones[(j + q) % count]

    for q in candidates:
        # node a = ones[j] calls b = ones[j + q], dist[j] labels ahead of it
        dist = [(partner(j, q) - a) % n for j, a in enumerate(ones)]
        first = [min(d, p) for d in dist]  # what j + q can give j: j's first missing blocks
        rest = [min(dist[(j - q) % count], p) for j in range(count)]  # ... j - q: the last
        if max(dist) > (h - 1) * p + 1 or any(
            f + r < p + k - 1 for f, r in zip(first, rest, strict=True)
        ):
            continue
        if q != paper_q:
            run.notes.append(
                f"phase 4: with q = p - floor((p+1)/(k-1)) = {paper_q} some type-1 node cannot "
                f"get what it misses from its two partners; the type-1 node j calls j + {q}"
            )
        for j, a in enumerate(ones):
            b = partner(j, q)
            # a receives the first min(d, p) blocks it misses, from [a + h'p + 1, ...]; b the
            # rest, up to the last one, [..., b + (h'+1)p + k - 1]
            top = b + (steps + 1) * p + k - 1
            run.call(
                4,
                "phase 4",
                a,
                b,
                run.blocks(top - (p + k - 1 - first[(j + q) % count]) + 1, top),
                run.blocks(a + steps * p + 1, a + steps * p + first[j]),
            )
        return
    # no q lets every node learn from what its partners knew: pass on blocks as well
    for q in candidates:
        for order in (range(count - 1, -1, -1), range(count)):
            pairs = [(ones[j], partner(j, q)) for j in order]
            if _relay(run, pairs, steps, commit=False):
                run.notes.append(
                    f"phase 4: for no q do the partners of every type-1 node know what it "
                    f"misses; the type-1 node j calls j + {q}, j = {order[0]}, ..., "
                    f"{order[-1]}, passing on blocks learned in this phase"
                )
                _relay(run, pairs, steps, commit=True)
                return
    raise RuntimeError(f"phase 4 finds no calls completing the type-1 nodes (n={n}, p={p})")


def _relay(run: _Run, pairs: list[tuple[int, int]], steps: int, *, commit: bool) -> bool:
    """Play the calls ``(a, b)`` in order: ``a`` receives the first blocks it misses, ``b`` the
    last ones, up to ``p`` each, out of all the other knows by then. With ``commit`` the calls
    are made; otherwise only tried. True when the nodes of ``pairs`` end knowing everything."""
    n, p, k = run.n, run.p, run.k
    know = {label: run.know[run.at(label)] for pair in pairs for label in pair}

    def missing_in_order(label: int) -> list[int]:
        start = label + steps * p + 1
        return [(start + t) % n for t in range(p + k - 1)]

    for a, b in pairs:
        to_a = [x for x in missing_in_order(a) if know[b] >> x & 1 and not know[a] >> x & 1]
        to_b = [x for x in missing_in_order(b)[::-1] if know[a] >> x & 1 and not know[b] >> x & 1]
        mask_a = sum(1 << x for x in to_a[:p])
        mask_b = sum(1 << x for x in to_b[:p])
        know[a] |= mask_a
        know[b] |= mask_b
        if commit:
            run.call(4, "phase 4", a, b, mask_b, mask_a)
    everything = (1 << n) - 1
    return all(known == everything for known in know.values())


def play(n: int, p: int) -> tuple[_Run, frozenset[int]]:
    """Play the four phases for ``n`` nodes and at most ``p`` blocks each way.

    Returns
    -------
    tuple
        The finished run (its calls, labels, tables and notes) and the labels of type k.

    Raises
    ------
    NotApplicableError
        ``p < 2`` or ``n < p + 2`` (outside the hypothesis of section 3).
    """
    run = _Run(n, p)
    delta_max = _phase_1(run)
    type_k = _phase_2(run, delta_max)
    steps = _phase_3(run, type_k)
    _phase_4(run, type_k, steps)
    return run, type_k
