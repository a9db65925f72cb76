"""The ring allreduce: reduce-scatter then allgather around a Hamiltonian cycle.

The ``n K`` chunks of an allreduce are cut into ``n`` segments of ``K`` chunks (segment
``i``: chunks ``i K .. i K + K - 1``). Along a cycle ``c_0, ..., c_{n-1}``, in step ``s``
every position ``i`` sends one segment to position ``i + 1``:

- **reduce-scatter**, steps ``s = 0 .. n - 2``: position ``i`` sends segment ``i - s`` with
  ``"op": "reduce"``. Position ``j`` receives segment ``j - 1 - s`` in step ``s``, a different
  segment each step, so it combines the incoming partial (the contributions of positions
  ``j - 1 - s .. j - 1``) with its own contribution alone: no contribution is counted twice,
  and after step ``n - 2`` position ``j`` holds segment ``j + 1`` complete;
- **allgather**, steps ``s = 0 .. n - 2``: position ``i`` sends segment ``i + 1 - s`` (which
  it holds complete: its own in step 0, the one received in step ``s - 1`` after) with
  ``"op": "copy"``; position ``j`` receives segments ``j, j - 1, ..., j + 2``, and with
  segment ``j + 1`` it ends holding every segment complete.

A step moves ``K`` chunks over each cycle arc, in ``ceil(K / q)`` rounds of ``q`` chunks,
``q`` the packet cap ``p`` (single-port) or the smallest capacity on the cycle (all-port):
``2 (n - 1) ceil(K / q)`` rounds in all, each node sending one transmission to its successor
and receiving one from its predecessor per round. The rules hold in single-port and
all-port (not in telephone or half-duplex, where a node may not send to one node and hear
another in the same round). The schedule is returned unverified; callers replay it.

References
----------
.. [1] P. Patarasuk and X. Yuan, "Bandwidth optimal all-reduce algorithms for clusters of
   workstations", J. Parallel Distrib. Comput. 69, 2009.
.. [2] R. Thakur, R. Rabenseifner and W. Gropp, "Optimization of collective communication
   operations in MPICH", IJHPCA 19, 2005.
"""

from __future__ import annotations

from collections.abc import Sequence

from gossipcert import graphs
from gossipcert.closed_forms.hamiltonian import hamiltonian_cycle
from gossipcert.errors import NotApplicableError
from gossipcert.instance import Instance, ModelKind, ProblemKind
from gossipcert.schedule import Round, Schedule, Transmission


def ring_allreduce(instance: Instance, cycle: Sequence[int] | None = None) -> Schedule:
    """The ring allreduce of the module docstring: ``2 (n - 1) ceil(K / q)`` rounds.

    Parameters
    ----------
    instance : Instance
        An ``allreduce`` (any ``chunks=K``, either operator) under single-port with a packet
        cap or all-port without ``calls=N``, on a graph without routers.
    cycle : sequence of int, optional
        A Hamiltonian cycle as a node order (default: one found by
        :func:`~gossipcert.closed_forms.hamiltonian.hamiltonian_cycle`).

    Returns
    -------
    Schedule

    Raises
    ------
    NotApplicableError
        Another problem or model, routers, fewer than two nodes, or no Hamiltonian cycle.

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> from gossipcert.simulate import simulate
    >>> inst = parse_instance("hub:5", "single-port", "allreduce:chunks=2")
    >>> simulate(inst, ring_allreduce(inst)).rounds
    16
    """
    model = instance.model
    if instance.problem.kind is not ProblemKind.ALLREDUCE:
        raise NotApplicableError(f"the ring allreduce solves allreduce, not {instance.problem}")
    if graphs.routers(instance.graph):
        raise NotApplicableError("the ring allreduce needs every node to be a processor")
    n = instance.n
    if n < 2:
        raise NotApplicableError("the ring allreduce needs two nodes or more")
    order = list(cycle) if cycle is not None else hamiltonian_cycle(instance.graph)
    arcs = [(order[i], order[(i + 1) % n]) for i in range(n)]
    if model.kind is ModelKind.SINGLE_PORT and model.packet_cap is not None:
        per_round = model.packet_cap
    elif model.kind is ModelKind.ALL_PORT and model.calls_per_round is None:
        per_round = min(model.capacity or graphs.capacity(instance.graph, u, v) for u, v in arcs)
    else:
        raise NotApplicableError(
            f"the ring allreduce is a single-port (with p) or all-port schedule, not {model.spec()}"
        )
    k = instance.n_packets // n
    if k * n != instance.n_packets:  # pragma: no cover - allreduce has n K chunks
        raise NotApplicableError("the chunks do not split into n equal segments")
    groups = [list(range(j, min(j + per_round, k))) for j in range(0, k, per_round)]
    rounds: list[Round] = []
    for op, shift in (("reduce", 0), ("copy", 1)):
        for s in range(n - 1):
            for group in groups:
                rnd = []
                for i, (u, v) in enumerate(arcs):
                    segment = (i + shift - s) % n
                    mask = sum(1 << (segment * k + j) for j in group)
                    rnd.append(Transmission(u, (v,), mask, op))
                rounds.append(tuple(rnd))
    return Schedule(tuple(rounds))


def ring_allreduce_rounds(n: int, chunks: int, per_round: int = 1) -> int:
    """The rounds the ring allreduce takes: ``2 (n - 1) ceil(K / q)``.

    Examples
    --------
    >>> ring_allreduce_rounds(8, 2)
    28
    """
    return 2 * (n - 1) * -(-chunks // per_round)
