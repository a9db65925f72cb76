"""The one-round bound of the reductions: a single round combines nothing before it is sent.

Before round 1 every node's partial result of a chunk is its own contribution alone (or
nothing), and a transmission carries its sender's partial *as it was before the round*
(:mod:`gossipcert.simulate`). So every partial received in round 1 holds exactly one
contribution, its sender's: a node ``v`` that demands chunk ``c`` and lacks, at the start,
the contributions of the set ``M(v, c)`` of other contributors can finish in round 1 only
by receiving, in round 1, a partial of ``c`` from **each** node of ``M(v, c)``, over the arc
from that node to ``v``. Hence one round is impossible, and the optimum is at least 2,
when for some ``v`` these receipts do not fit in one round:

* some ``u`` of some ``M(v, c)`` is not a neighbour of ``v`` (or its link has a latency of
  more than one round);
* **all-port**: some arc ``(u, v)`` would carry more chunks than its capacity, the chunks
  ``c`` with ``u`` in ``M(v, c)``;
* **one-port models** (telephone, half-duplex, single-port, multicast: a node receives at
  most one transmission a round): the ``M(v, c)`` of ``v`` name two senders or more, or the
  one sender's chunks exceed the packet cap ``p``.

This holds under ``sum`` and ``max`` alike (a copy in round 1 also brings one contribution),
for ``reduce``, ``reduce-scatter`` and ``allreduce`` with any chunks, and through routers
(a router holds no contribution: a relayed partial arrives in round 2 at the earliest).

The bound is the allreduce counterpart of the doubling argument of Chan et al. [1]_ (a
partial result at most doubles a round in the one-port model), taken at its first round,
where it is exact in all-port: when no condition above holds, every contributor sending its
own partial of each chunk straight to each demander is a one-round schedule. It separates 1
from 2 where the counting bounds cannot: allreduce of ``n K`` chunks on ``fully-connected:n``
at arc capacity ``c < n K`` (each node must receive ``(n - 1) n K`` singletons in one round
over arcs that carry ``(n - 1) c``), where the receipts bound gives only
``ceil(n K (2 n - 2) / (n (n - 1) c))``, 1 when ``c >= 2 K``.

References
----------
.. [1] E. Chan, M. Heimlich, A. Purkayastha and R. van de Geijn, "Collective communication:
   theory, practice, and experience", Concurrency and Computation: Practice and Experience
   19, 2007 (section 4: lower bounds; a reduction needs ``ceil(log2 p)`` steps since a
   partial result at most doubles per step).
"""

from __future__ import annotations

from collections import defaultdict

from gossipcert import graphs
from gossipcert.closed_forms.base import _LOWER, Bound
from gossipcert.instance import Instance, ModelKind, bits
from gossipcert.models import rules_of
from gossipcert.problems import REDUCTIONS

NAME = "one-round"
SOURCE = (
    "every partial received in round 1 holds one contribution, its sender's: a demander "
    "must hear each other contributor directly in round 1 (Chan et al. 2007, the doubling "
    "argument at its first round)"
)


def first_round_receipts(instance: Instance) -> dict[int, dict[int, int]] | None:
    """For each demander ``v``, the chunks each other node ``u`` must send it in round 1 for
    a one-round schedule: ``{v: {u: count}}`` (module docstring); None when every demand is
    met at the start (zero rounds).

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> needs = first_round_receipts(parse_instance("complete:3", "all-port", "allreduce"))
    >>> needs[0]  # node 0 hears nodes 1 and 2 on each of the 3 chunks
    {1: 3, 2: 3}
    """
    contributors: dict[int, list[int]] = defaultdict(list)
    for u in range(instance.n):
        for c in bits(instance.holdings[u]):
            contributors[c].append(u)
    out: dict[int, dict[int, int]] = {}
    unmet = False
    for v in range(instance.n):
        loads: dict[int, int] = defaultdict(int)
        for c in bits(instance.demands[v]):
            missing = [u for u in contributors[c] if u != v]
            unmet |= bool(missing)
            for u in missing:
                loads[u] += 1
        if loads:
            out[v] = dict(loads)
    return out if unmet else None


def _fits(instance: Instance, v: int, loads: dict[int, int]) -> bool:
    """Whether ``v``'s round-1 receipts fit in one round (module docstring)."""
    g, model = instance.graph, instance.model
    for u in loads:
        if not g.has_edge(u, v) or g[u][v].get("latency", 1) > 1:
            return False
    if model.kind is ModelKind.ALL_PORT:
        return all(
            count <= (model.capacity or graphs.capacity(g, u, v)) for u, count in loads.items()
        )
    if rules_of(model.kind).one_port:
        if len(loads) > 1:
            return False
        cap = model.packet_cap
        return cap is None or next(iter(loads.values())) <= cap
    return True


def one_round_bound(instance: Instance) -> Bound | None:
    """2 when no one-round schedule exists for a reduction (module docstring), else None.

    Parameters
    ----------
    instance : Instance
        A ``reduce``, ``reduce-scatter`` or ``allreduce`` (None for other problems).

    Returns
    -------
    Bound or None

    Examples
    --------
    The 16-rank allreduce of 16 chunks on 16 fully connected GPUs at two chunks a link and
    round: each GPU must hear 15 others on 16 chunks in round 1, two chunks a link:

    >>> from gossipcert.instance import parse_instance
    >>> one_round_bound(parse_instance("fully-connected:16", "all-port:c=2", "allreduce")).value
    2
    >>> one_round_bound(parse_instance("fully-connected:4", "all-port:c=4", "allreduce")) is None
    True
    >>> one_round_bound(parse_instance("star:3", "single-port", "reduce:0")).value  # two senders
    2
    """
    if instance.problem.kind not in REDUCTIONS:
        return None
    needs = first_round_receipts(instance)
    if needs is None:
        return None
    if all(_fits(instance, v, loads) for v, loads in needs.items()):
        return None
    return Bound(NAME, _LOWER, 2, SOURCE)


def one_round_value(instance: Instance) -> int | None:
    """:func:`one_round_bound`'s value (None when it does not apply), as the allreduce
    bracket (:mod:`gossipcert.search.allreduce`) and its checker take its bounds."""
    bound = one_round_bound(instance)
    return None if bound is None else bound.value
