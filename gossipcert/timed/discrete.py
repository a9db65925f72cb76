"""The round model's certified optimum as a lower bound on time, at a chunk count.

Cut a message of ``S`` bytes into ``C`` chunks of ``S / C``. Let ``B`` be the machine's
fastest link and ``tau = S / (C B)`` the time of one chunk over it. Take the round model
(all-port) on the machine's graph with **capacity 1 on every link** and a **latency of
``L(e) = floor(B / B(e))`` rounds** on link ``e`` (the round model's latency rule,
:mod:`gossipcert.encodings.all_port`; 1 where the model has no latencies: the reductions).
Then every algorithm that moves whole chunks over the links, store-and-forward at every
node, takes at least ``R tau``, ``R`` the round model's optimum:

- give a transfer that starts at ``s`` over link ``e`` the round ``floor(s / tau) + 1``. Two
  transfers over one link start at least ``S / (C B(e)) >= tau`` apart (the link serves one
  at a time), so they get different rounds: capacity 1 holds;
- a chunk that arrives over ``e`` is forwarded no earlier than ``S / (C B(e)) >= L(e) tau``
  after its transfer started, so ``L(e)`` rounds later at least: the latency rule holds;
- the last arrival is at ``(r - 1) tau + L(e) tau`` at least, ``r`` the round of its start,
  so the time is at least ``tau`` times the length of the schedule so built, which is at
  least ``R``.

So ``R tau`` bounds the time of every algorithm of ``C`` whole chunks, in particular an
algorithm file that its executor runs in one pass (MSCCL runs a file in several passes
over slices of the chunks when a chunk exceeds its buffer slice: such a run moves more,
smaller chunks and the bound does not apply to it). It does not hold when a router forwards
**cut-through** (a chunk then crosses two links in one link's time); with
``switch="store-and-forward"`` the routers are nodes of the round model like any other. The
argument needs each link to carry one transfer at a time, as the simulator's links do
(:mod:`gossipcert.timed.simulate`). The round model's optimum
comes from :func:`gossipcert.watchdog.solve_within` with its evidence; a search cut
short by its time limit gives a bracket, whose proved lower end is the bound.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from typing import Any

import networkx as nx

from gossipcert.children import call_in_child
from gossipcert.errors import GossipcertError
from gossipcert.instance import Instance, make_instance, parse_model, parse_problem
from gossipcert.schedule import Schedule
from gossipcert.statuses import SolveStatus
from gossipcert.timed.machine import Machine

__all__ = ["DiscreteBound", "discrete_bound", "relaxed_instance"]


@dataclass
class DiscreteBound:
    """The round model's optimum at a chunk count and what it says about time.

    Attributes
    ----------
    chunks : int
        ``C``: chunks of the whole message.
    available : bool
        Whether a round count was sought (``reason`` says why not).
    problem, model, topology : str
        The round model's instance.
    status : SolveStatus
        The search's status (``optimal``, ``feasible``, ``unknown``).
    lower, upper : int or None
        The proved lower end and the best schedule's rounds.
    certified : bool
        The lower end has evidence beyond the solver's word (a closed form, checked proofs).
    evidence : str or None
        The lower end's evidence kind.
    schedule : Schedule or None
        The best schedule found (verified by the search).
    """

    chunks: int
    available: bool
    reason: str = ""
    problem: str = ""
    model: str = ""
    topology: str = ""
    status: SolveStatus = SolveStatus.UNKNOWN
    lower: int | None = None
    upper: int | None = None
    certified: bool = False
    evidence: str | None = None
    fastest: float = 0.0
    schedule: Schedule | None = field(default=None, repr=False)
    seconds: float = 0.0

    def time(self, size: float) -> float | None:
        """``R tau`` at ``size`` bytes: the lower end's rounds times one chunk over the
        fastest link (None when no lower end)."""
        if not self.available or self.lower is None:
            return None
        return self.lower * size / (self.chunks * self.fastest)

    def to_json(self) -> dict[str, Any]:
        if not self.available:
            return {"available": False, "reason": self.reason, "chunks": self.chunks}
        return {
            "available": True,
            "chunks": self.chunks,
            "problem": self.problem,
            "model": self.model,
            "topology": self.topology,
            "status": self.status,
            "lower_bound": self.lower,
            "upper_bound": self.upper,
            "certified": self.certified,
            "evidence": self.evidence,
            "round_seconds_per_byte": 1.0 / (self.chunks * self.fastest),
            "seconds": round(self.seconds, 3),
        }


def relaxed_instance(machine: Machine, problem: str) -> tuple[Instance, bool]:
    """The round model of the module docstring for ``problem`` on ``machine``, and whether
    it has latencies.

    Raises
    ------
    GossipcertError
        The machine's routers forward cut-through (the bound does not hold), or the problem
        is not one gossipcert solves.

    Examples
    --------
    >>> from gossipcert.graphs import from_spec
    >>> from gossipcert.timed.machine import machine_of
    >>> inst, lat = relaxed_instance(machine_of(from_spec("dgx1"), 8), "gossip")
    >>> inst.model.spec(), lat, inst.graph[0][2].get("latency"), inst.graph[0][1].get("latency")
    ('all-port', True, 2, None)
    """
    prob = parse_problem(problem)
    g = machine.graph
    if any(r for _, r in g.nodes(data="router", default=False)):
        if machine.switch == "cut-through":
            raise GossipcertError(
                f"{machine.name} has switches that forward cut-through: a chunk crosses two "
                "links in one link's time, which the round model's routers (store and "
                "forward) do not bound"
            )
    fastest = machine.fastest
    relaxed = nx.Graph(spec=f"{machine.name} (relaxed)")
    for v, data in g.nodes(data=True):
        relaxed.add_node(v, label=data.get("label", str(v)), router=bool(data.get("router")))
    latencies = not prob.reduction
    used = False
    for (u, v), bw in zip(machine.arcs, machine.bandwidth, strict=True):
        if u > v or relaxed.has_edge(u, v):
            continue
        relaxed.add_edge(u, v, capacity=1)
        lat = math.floor(fastest / bw * (1 + 1e-12)) if latencies else 1
        if lat > 1:
            relaxed[u][v]["latency"] = lat
            used = True
    return make_instance(relaxed, parse_model("all-port"), prob), used


def discrete_bound(
    machine: Machine, problem: str | None, chunks: int, time_limit: float | None = 60.0
) -> DiscreteBound:
    """The round model's optimum for ``problem`` (a gossipcert problem spec with its chunk
    count, ``C = chunks`` chunks in all) on ``machine``, as a bound on time (see the module
    docstring).

    Examples
    --------
    >>> from gossipcert.graphs import from_spec
    >>> from gossipcert.timed.machine import machine_of
    >>> d = discrete_bound(machine_of(from_spec("ring:4"), 4), "gossip", 4, time_limit=30)
    >>> d.status.value, d.lower, d.time(4.0)  # 2 rounds of one unit each
    ('optimal', 2, 2.0)
    """
    if problem is None:
        return DiscreteBound(chunks, False, "gossipcert has no problem for this collective")
    try:
        instance, _ = relaxed_instance(machine, problem)
    except GossipcertError as exc:
        return DiscreteBound(chunks, False, str(exc).splitlines()[0])
    start = time.monotonic()
    deadline = None if time_limit is None else start + time_limit * 1.1 + 2.0
    kind, found = call_in_child(_solve, (instance, time_limit), deadline)
    if kind != "result":
        return DiscreteBound(
            chunks,
            False,
            f"the round model's search did not answer within its time limit ({kind})",
        )
    return DiscreteBound(
        chunks,
        True,
        problem=problem,
        model=instance.model.spec(),
        topology=str(instance.graph.graph.get("spec")),
        fastest=machine.fastest,
        seconds=time.monotonic() - start,
        **found,
    )


def _solve(send: Any, instance: Instance, time_limit: float | None) -> dict[str, Any]:
    """The round model's search, in a child killed at a hard deadline (some stages of the
    allreduce search do not look at the clock)."""
    from gossipcert.watchdog import solve_within

    res = solve_within(instance, time_limit=time_limit)
    kind = (res.evidence or {}).get("kind")
    return {
        "status": res.status,
        "lower": res.lower_bound,
        "upper": res.upper_bound,
        "certified": kind not in (None, "none", "solver-claim"),
        "evidence": kind,
        "schedule": res.schedule,
    }
