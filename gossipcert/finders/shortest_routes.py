"""Shortest-route schedules for personalized all-port problems, found by SAT.

In a personalized problem (scatter, gather, total exchange: every packet has one
destination) under the all-port model, a schedule whose every packet moves only along
shortest paths towards its destination is often as short as the best one, and the formula
restricted to such moves is much smaller for the solver. This heuristic takes the all-port
encoding (:mod:`gossipcert.encodings.all_port`), forbids every transfer that does not bring
its packet one step closer to its destination (with latencies: onto a shortest route, every
edge weighted by its latency), and asks for a schedule of ``L``, ``L + 1``,
... rounds within a time budget. The result is an *upper bound* only (the restriction is not
sound for lower bounds: a detour can relieve a loaded arc), and, like every schedule, it is
verified by the caller.

References
----------
.. [1] Z. Cai et al., "Synthesizing optimal collective algorithms", PPoPP 2021 (Alltoall on
   rings, hypercubes and the DGX-1).
"""

from __future__ import annotations

import time

import networkx as nx

from gossipcert import graphs
from gossipcert.encodings.all_port import AllPortEncoding
from gossipcert.encodings.options import EncodingOptions
from gossipcert.errors import HeuristicError
from gossipcert.instance import Instance
from gossipcert.schedule import Schedule
from gossipcert.solvers.backends import Status, make_backend


def applies(instance: Instance) -> bool:
    """Arc capacities (all-port) without a call limit, every packet demanded by exactly one
    node, and a graph with a cycle (on a tree every route is the shortest one already)."""
    if not instance.model.rules.arc_capacities or instance.model.calls_per_round:
        return False
    if instance.graph.number_of_edges() < instance.n:
        return False
    return all(
        sum(instance.demands[v] >> p & 1 for v in range(instance.n)) == 1
        for p in range(instance.n_packets)
    )


def shortest_route_schedule(
    instance: Instance, start: int, tries: int = 2, seconds: float = 10.0
) -> Schedule:
    """A schedule in which every packet moves along shortest paths to its destination.

    Parameters
    ----------
    instance : Instance
        A personalized all-port instance (see :func:`applies`).
    start : int
        The first horizon tried (a lower bound).
    tries : int
        Horizons ``start .. start + tries - 1`` are tried in turn.
    seconds : float
        The time budget for all of them.

    Returns
    -------
    Schedule
        Unverified; the caller verifies it.

    Raises
    ------
    HeuristicError
        The instance is not personalized all-port, or no schedule was found in time.

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> len(shortest_route_schedule(parse_instance("ring:6", "all-port", "alltoall"), 5))
    5
    """
    if not applies(instance):
        raise HeuristicError(
            "shortest routes need a personalized all-port problem on a graph with a cycle"
        )
    deadline = time.monotonic() + seconds
    g = instance.graph
    # rounds from one node to another: every edge weighted by its latency (1 by default)
    dist = dict(nx.all_pairs_dijkstra_path_length(g, weight="latency"))
    dest = [
        next(v for v in range(instance.n) if instance.demands[v] >> p & 1)
        for p in range(instance.n_packets)
    ]
    for rounds in range(max(start, 1), max(start, 1) + tries):
        enc = AllPortEncoding(instance, EncodingOptions(symmetry=False))
        enc.extend_to(rounds)
        for t in range(1, rounds + 1):
            for u, v in enc.arcs:
                for p in range(instance.n_packets):
                    x = enc.sends(p, u, v, t)
                    step = graphs.latency(g, u, v)
                    if x is not False and dist[v][dest[p]] != dist[u][dest[p]] - step:
                        enc.formula.clause([-x])
        solver = make_backend("sat", enc.formula)
        try:
            status = solver.solve([enc.selector(rounds)], deadline, None)
            if status is Status.SAT:
                return enc.decode(rounds, solver.value)
        finally:
            solver.close()
        if status is Status.UNKNOWN:
            break
    raise HeuristicError("no shortest-route schedule found within the budget")
