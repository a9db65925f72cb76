"""Sequential gossip by calls that carry at most ``p`` blocks each way (Bermond et al.).

The four-phase protocol of Bermond, Gargano and Pérennes [1]_ (section 3) for gossip among
``n`` nodes of the complete graph, one call at a time, with at most ``p`` blocks sent each
way in a call. Write ``n = hp + k`` with ``h >= 1`` and ``2 <= k <= p + 1``; nodes and blocks
are taken modulo ``n`` and ``[a, b]`` is the cyclic run of blocks ``a, a + 1, ..., b``.

1. ``n - 1`` calls after which every node ``i >= p`` knows ``[i - p, i]`` (type 1) or
   ``[i - p, i + k - 1]`` (type k, the nodes ``p - 1 + d(k - 1)``).
2. ``p`` calls that extend this to all nodes; nodes ``0 .. p-2`` are then relabelled.
3. ``floor((h - 1)/2)`` steps of ``n`` calls ``{i, i + p + 1}`` in which every node learns
   ``p`` new blocks per call, the calls of type-1 nodes ``i`` first.
4. The last calls, by the parity of ``h``.

Number of calls: ``n - 1 + p + floor((h-1)/2) n`` plus ``ceil((n - N_k)/2)`` (``h`` odd) or
``ceil(N_k/2) + n - N_k`` (``h`` even), ``N_k`` the number of type-k nodes; at most
``n^2/2p + (1 - k/2p - 1/(2(k-1))) n + p`` (Theorem 3.1), within ``p`` of the lower bound (2)
of Theorem 2.1. The paper takes ``N_k = ceil(n/(k-1))``; for some ``n`` there is one type-k
node more (:func:`~gossipcert.constructions.bermond_counts.type_k_count`), and phase 4 then
needs one call fewer than counted there.

The phases are played in :mod:`gossipcert.constructions.bermond_phases` (which also states
the choices made where the paper leaves one open); the counts and bounds are
:mod:`gossipcert.constructions.bermond_counts`. This module holds the protocol's record, its
knowledge tables and the schedule.

References
----------
.. [1] J.-C. Bermond, L. Gargano and S. Pérennes, "Optimal sequential gossiping by short
   messages", Discrete Applied Mathematics 86 (1998), pp. 145-155. Section 2 (bounds (1),
   (2), Theorem 2.1), section 3 (Theorem 3.1, the protocol, Examples 3.1 and 3.2).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from gossipcert.constructions.bermond_phases import BermondCall, play
from gossipcert.errors import NotApplicableError
from gossipcert.instance import Instance, ModelKind, ProblemKind, bits
from gossipcert.schedule import Schedule, Transmission


@dataclass(frozen=True, eq=False)
class BermondProtocol:
    """The protocol of [1]_ for one ``(n, p)``: its calls and the knowledge after each stage.

    Attributes
    ----------
    n, p : int
        Nodes and the packet cap.
    h, k : int
        ``n = hp + k``, ``h >= 1``, ``2 <= k <= p + 1``.
    calls : tuple of BermondCall
        In order; one call per round of the sequential model.
    node_of_label : tuple of int
        ``node_of_label[i]`` is the node that plays the role of ``i`` after the relabelling
        at the end of phase 2 (only the nodes ``0 .. p-2`` change).
    type_k : frozenset of int
        The labels of the nodes of type k after phase 2.
    tables : dict
        Stage name -> the set of blocks each node (by its number) knows after that stage.
        Stages, in order: ``"phase 1"``, ``"phase 2"``, for every step ``s`` of phase 3
        ``"phase 3.s type 1"`` and ``"phase 3.s type k"``, then ``"phase 3"``, for even
        ``h`` ``"phase 4 type k"``, and ``"phase 4"``.
    notes : tuple of str
        Where phase 4 had to leave the paper's rule (see
        :mod:`gossipcert.constructions.bermond_phases`).
    """

    n: int
    p: int
    h: int
    k: int
    calls: tuple[BermondCall, ...]
    node_of_label: tuple[int, ...]
    type_k: frozenset[int]
    tables: dict[str, tuple[frozenset[int], ...]] = field(repr=False)
    notes: tuple[str, ...] = ()

    def table(self, stage: str, *, by_label: bool = False) -> tuple[frozenset[int], ...]:
        """The knowledge after ``stage``, per node, or per label when ``by_label``."""
        rows = self.tables[stage]
        if not by_label:
            return rows
        return tuple(rows[self.node_of_label[i]] for i in range(self.n))


def bermond_protocol(n: int, p: int) -> BermondProtocol:
    """The calls of the four-phase protocol for ``n`` nodes and at most ``p`` blocks a way.

    Parameters
    ----------
    n : int
        Number of nodes, at least ``p + 2``.
    p : int
        Most blocks sent each way in one call, at least 2.

    Returns
    -------
    BermondProtocol
        The calls in order and the knowledge table after each phase.

    Raises
    ------
    NotApplicableError
        ``p < 2`` or ``n < p + 2`` (outside the hypothesis of section 3).

    Examples
    --------
    >>> proto = bermond_protocol(16, 4)
    >>> proto.h, proto.k, len(proto.calls)
    (3, 4, 40)
    >>> sorted(proto.table("phase 1")[6])  # node 6* knows [2, 9] after phase 1
    [2, 3, 4, 5, 6, 7, 8, 9]

    References
    ----------
    Bermond, Gargano and Pérennes [1]_, section 3: First, Second, Third and Last Phase;
    Examples 3.1 and 3.2.
    """
    run, type_k = play(n, p)
    return BermondProtocol(
        n,
        p,
        run.h,
        run.k,
        tuple(run.calls),
        tuple(run.node),
        type_k,
        dict(run.tables),
        tuple(run.notes),
    )


def bermond_knowledge_tables(
    n: int, p: int, *, by_label: bool = False
) -> dict[str, tuple[frozenset[int], ...]]:
    """The blocks each node knows after each phase (and each half-step of phase 3).

    Parameters
    ----------
    n, p : int
        As in :func:`bermond_protocol`.
    by_label : bool
        Index the rows by the labels given at the end of phase 2 (as the paper's tables do
        from then on) instead of by node number.

    Returns
    -------
    dict
        Stage name (see :class:`BermondProtocol`) -> one set of block numbers per row.

    Examples
    --------
    >>> t = bermond_knowledge_tables(16, 4, by_label=True)
    >>> sorted(t["phase 2"][0])  # label 0* knows [12, 3]
    [0, 1, 2, 3, 12, 13, 14, 15]

    References
    ----------
    Bermond, Gargano and Pérennes [1]_, Examples 3.1 and 3.2 (the tables after each phase).
    """
    proto = bermond_protocol(n, p)
    return {stage: proto.table(stage, by_label=by_label) for stage in proto.tables}


def bermond(instance: Instance) -> Schedule:
    """Sequential gossip with at most ``p`` packets each way per call (four-phase protocol).

    One call per round: round ``t`` holds the two transmissions of the ``t``-th call of
    :func:`bermond_protocol`, each with at most ``p`` explicit packets.

    Parameters
    ----------
    instance : Instance
        ``gossip`` on ``complete:n`` under ``sequential:p=P`` (or any telephone model with a
        packet cap ``p``: one call per round fits them all), ``p >= 2``, ``n >= p + 2``.

    Returns
    -------
    Schedule
        :func:`~gossipcert.constructions.bermond_counts.bermond_call_count` rounds, at most
        :func:`~gossipcert.constructions.bermond_counts.theorem_3_1_bound`.

    Raises
    ------
    NotApplicableError
        Another model, problem or graph, or ``(n, p)`` outside the theorem.

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> len(bermond(parse_instance("complete:16", "sequential:p=4", "gossip")))
    40

    References
    ----------
    Bermond, Gargano and Pérennes [1]_, section 1.1 (the complete graph, telephone model,
    ``p`` blocks per call) and section 3 (Theorem 3.1 and the protocol).
    """
    model = instance.model
    if model.kind is not ModelKind.TELEPHONE or model.packet_cap is None:
        raise NotApplicableError(
            f"the protocol of Bermond et al. is for telephone calls with a packet cap "
            f"(sequential:p=P), not {model.spec()}"
        )
    if instance.problem.kind is not ProblemKind.GOSSIP:
        raise NotApplicableError(f"the protocol solves gossip, not {instance.problem.spec()}")
    n = instance.n
    if instance.graph.number_of_edges() != n * (n - 1) // 2:
        raise NotApplicableError("the protocol of Bermond et al. needs the complete graph")
    proto = bermond_protocol(n, model.packet_cap)
    # block b is the packet node b holds at the start
    packet = [instance.holdings[b] for b in range(n)]

    def packets(mask: int) -> int:
        out = 0
        for b in bits(mask):
            out |= packet[b]
        return out

    return Schedule(
        tuple(
            (
                Transmission(c.u, (c.v,), packets(c.to_v)),
                Transmission(c.v, (c.u,), packets(c.to_u)),
            )
            for c in proto.calls
        )
    )
