"""The hub allreduce: every chunk is gathered into one node adjacent to all others and sent
back out, the chunks one after another in a pipeline.

Let ``z`` be a node adjacent to every other node (the center of a star, any node of a
complete graph), ``l_1, ..., l_L`` the others (``L = n - 1``), and cut the ``N = n K``
chunks into ``B = ceil(N / q)`` batches of at most ``q`` chunks (``q`` the packet cap
``p``; all chunks in one batch when telephone packets are unbounded). For batch ``b =
0..B-1``:

- in round ``b L + i`` (``i = 1..L``) leaf ``l_i`` sends batch ``b`` to ``z`` with
  ``"op": "reduce"``; it has received nothing of the batch yet, so it sends its own
  contribution alone, and ``z`` folds in every leaf once: no contribution is counted twice;
- in round ``b L + L`` ``z`` also sends batch ``b`` to ``l_L`` with ``"op": "reduce"``: its
  partial before that round holds every contribution but ``l_L``'s, which ``l_L`` adds;
- in round ``b L + L + i`` (``i = 1..L-1``) ``z`` sends batch ``b``, now complete, to
  ``l_i`` with ``"op": "copy"``.

``z`` receives one batch a round (rounds ``b L + 1 .. b L + L``) and sends one (rounds
``b L + L .. b L + 2 L - 1``, consecutive batches do not overlap); leaf ``l_i`` sends in
rounds ``b L + i`` and receives in round ``b L + L + i`` (``b L + L`` for ``l_L``). So
the schedule takes ``B L + L - 1`` rounds, and every round is one call between ``z`` and
one leaf, both ways (round ``b L + i`` pairs ``l_i``'s send of batch ``b`` with ``z``'s
send of batch ``b - 1`` to ``l_i``): it is valid in single-port and in telephone, not in
half-duplex (``z`` sends and receives in one round). With ``p = 1`` it meets the cut-vertex
bound ``N L + L - 1`` of the star (:mod:`gossipcert.search.allreduce_cut`). The schedule
is returned unverified; callers replay it.

References
----------
.. [1] S. M. Johnson, "Optimal two- and three-stage production schedules with setup times
   included", Naval Res. Logist. Q. 1, 1954 (the two-machine pipeline the schedule is).
.. [2] E. Chan, M. Heimlich, A. Purkayastha and R. van de Geijn, "Collective
   communication: theory, practice, and experience", CCPE 19, 2007 (reduce then broadcast
   through one root).
"""

from __future__ import annotations

from gossipcert import graphs
from gossipcert.errors import NotApplicableError
from gossipcert.instance import Instance, ModelKind, ProblemKind
from gossipcert.schedule import Round, Schedule, Transmission


def hub_of(instance: Instance) -> int:
    """The least node adjacent to every other node.

    Raises
    ------
    NotApplicableError
        No node is adjacent to all others.

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> hub_of(parse_instance("star:4", "single-port", "allreduce"))
    0
    """
    g, n = instance.graph, instance.n
    for v in range(n):
        if len(set(g.adj[v]) - {v}) == n - 1:
            return v
    raise NotApplicableError("the hub allreduce needs a node adjacent to every other node")


def hub_allreduce(instance: Instance) -> Schedule:
    """The hub allreduce of the module docstring: ``ceil(N / q) (n - 1) + n - 2`` rounds.

    Parameters
    ----------
    instance : Instance
        An ``allreduce`` (any ``chunks=K``, either operator) under single-port or telephone,
        on a graph without routers that has a node adjacent to all others.

    Returns
    -------
    Schedule

    Raises
    ------
    NotApplicableError
        Another problem or model, ``calls=N``, routers, fewer than two nodes, or no node
        adjacent to all others.

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> from gossipcert.simulate import simulate
    >>> inst = parse_instance("star:4", "single-port", "allreduce:chunks=2")
    >>> simulate(inst, hub_allreduce(inst)).rounds
    26
    """
    model, n = instance.model, instance.n
    if instance.problem.kind is not ProblemKind.ALLREDUCE:
        raise NotApplicableError(f"the hub allreduce solves allreduce, not {instance.problem}")
    if model.kind not in (ModelKind.SINGLE_PORT, ModelKind.TELEPHONE):
        raise NotApplicableError(
            f"the hub allreduce is a single-port or telephone schedule, not {model.spec()}"
        )
    if model.calls_per_round is not None:
        raise NotApplicableError("the hub allreduce does not limit the calls of a round")
    if graphs.routers(instance.graph):
        raise NotApplicableError("the hub allreduce needs every node to be a processor")
    if n < 2:
        raise NotApplicableError("the hub allreduce needs two nodes or more")
    hub = hub_of(instance)
    leaves = [v for v in range(n) if v != hub]
    size = instance.n_packets if model.packet_cap is None else model.packet_cap
    batches = [
        sum(1 << c for c in range(j, min(j + size, instance.n_packets)))
        for j in range(0, instance.n_packets, size)
    ]
    span = len(leaves)
    rounds: list[list[Transmission]] = [[] for _ in range(len(batches) * span + span - 1)]
    for b, mask in enumerate(batches):
        for i, leaf in enumerate(leaves, start=1):
            rounds[b * span + i - 1].append(Transmission(leaf, (hub,), mask, "reduce"))
        rounds[b * span + span - 1].append(Transmission(hub, (leaves[-1],), mask, "reduce"))
        for i, leaf in enumerate(leaves[:-1], start=1):
            rounds[b * span + span + i - 1].append(Transmission(hub, (leaf,), mask, "copy"))
    out: list[Round] = [tuple(r) for r in rounds]
    return Schedule(tuple(out))


def hub_allreduce_rounds(n: int, n_chunks: int, per_round: int | None = 1) -> int:
    """The rounds the hub allreduce takes: ``ceil(N / q) (n - 1) + n - 2``.

    Examples
    --------
    >>> hub_allreduce_rounds(4, 8)
    26
    """
    batches = 1 if per_round is None else -(-n_chunks // per_round)
    return batches * (n - 1) + n - 2
