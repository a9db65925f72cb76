"""Allreduce through the centre of a star (a switch that combines): reduce in, copy out.

On a star whose centre is linked to every processor (the DGX-2: sixteen GPUs on one
NVSwitch fabric, :func:`gossipcert.graphs.machines.dgx2`), under all-port with every link
carrying ``c`` chunks a round each way: in round ``t`` every leaf sends the centre its
partial results of the ``t``-th batch of ``c`` chunks (``op: reduce``; the centre combines
the ``n`` partials, which share no contribution, in that round), and in round ``t + 1`` the
centre sends the batch, complete, to every leaf at once (``op: copy``). With ``n K`` chunks
that is ``ceil(n K / c) + 1`` rounds, which meets the allreduce bounds of
:mod:`gossipcert.search.allreduce` on a star with a router centre: every leaf must receive
each of the ``n K`` chunks, at most ``c`` a round, and nothing useful in round 1, when the
centre holds no partial result.

The model lets any node combine partial results, a router included (the verifier's rules,
:mod:`gossipcert.simulate`; the reduce-scatter of the same star by time reversal does the
same): this is in-network reduction, as a switch with SHARP or NVLink SHARP performs it. A
switch that only forwards is another model.

References
----------
.. [1] R. L. Graham et al., "Scalable Hierarchical Aggregation Protocol (SHArP): a hardware
   architecture for efficient data reduction", COMHPC 2016 (reduction in the switch).
.. [2] P. Patarasuk and X. Yuan, "Bandwidth optimal all-reduce algorithms for clusters of
   workstations", JPDC 69 (2009) (the ``2 (n - 1) / n`` bound without it).
"""

from __future__ import annotations

from gossipcert import graphs
from gossipcert.constructions.collectives import _arc_capacity, _require_all_port
from gossipcert.errors import NotApplicableError
from gossipcert.instance import Instance, ProblemKind
from gossipcert.schedule import Round, Schedule, Transmission

__all__ = ["switch_allreduce"]


def switch_allreduce(instance: Instance) -> Schedule:
    """The star allreduce of the module docstring: ``ceil(n K / c) + 1`` rounds.

    Parameters
    ----------
    instance : Instance
        ``allreduce`` (any ``chunks=K``, either operator) under all-port on a star: one
        centre (a router or a processor) linked to every other node, no other link, every
        link of capacity ``c``.

    Returns
    -------
    Schedule
        Unverified (callers replay it).

    Raises
    ------
    NotApplicableError
        Another problem or model, a graph that is not such a star.

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> from gossipcert.simulate import simulate
    >>> inst = parse_instance("dgx2", "all-port", "allreduce:chunks=2")
    >>> simulate(inst, switch_allreduce(inst)).rounds
    33
    """
    _require_all_port(instance, "the switch allreduce")
    if instance.problem.kind is not ProblemKind.ALLREDUCE:
        raise NotApplicableError("the switch allreduce is a schedule for allreduce")
    g = instance.graph
    n = instance.n
    centres = [v for v in range(n) if g.degree(v) == n - 1]
    if n < 3 or g.number_of_edges() != n - 1 or not centres:
        raise NotApplicableError("the switch allreduce needs a star (one centre, n - 1 links)")
    hub = centres[0]
    leaves = [v for v in range(n) if v != hub]
    if any(graphs.is_router(g, v) for v in leaves):
        raise NotApplicableError("the switch allreduce needs every leaf to be a processor")
    caps = {_arc_capacity(instance, hub, v) for v in leaves}
    if len(caps) != 1:
        raise NotApplicableError("the switch allreduce needs equal link capacities")
    (c,) = caps
    chunks = instance.n_packets
    batches = [
        sum(1 << b for b in range(start, min(start + c, chunks))) for start in range(0, chunks, c)
    ]
    rounds: list[Round] = []
    for t in range(len(batches) + 1):
        now: list[Transmission] = []
        if t < len(batches):
            now.extend(Transmission(v, (hub,), batches[t], "reduce") for v in leaves)
        if t >= 1:  # one transmission per link (all-port allows one to all, the same load)
            now.extend(Transmission(hub, (v,), batches[t - 1], "copy") for v in leaves)
        rounds.append(tuple(now))
    return Schedule(tuple(rounds))
