"""Gossip along a ring (or a Hamiltonian cycle) with one packet per transmission.

- Full duplex (single-port, ``p = 1``): every node forwards, clockwise, the packet it
  received in the previous step; ``n - 1`` steps [1]_ (section 3.1).
- Half duplex, even ``n``: each full-duplex step becomes two, first the nodes at even
  positions transmit, then those at odd positions; ``2(n - 1)`` steps [1]_ (section 3.2).
- Half duplex, odd ``n``: in step ``j`` (``1 <= j <= 2n``) the nodes at positions
  ``j, j+2, ..., j+n-3`` (mod ``n``) transmit clockwise, position ``j-1`` idles, the others
  receive; every node forwards from a FIFO buffer; ``2n`` steps [1]_ (Fig. 3, Theorem 1).
- Multicast (``p = 1``): the clockwise ring schedule of [2]_ (Fig. 1): ``n - 1`` rounds.

References
----------
.. [1] V. V. Dimakopoulos, "Single-port multinode broadcasting", Tech. Report 1-99,
   University of Ioannina, 1999, sections 3.1-3.2.
.. [2] T. F. Gonzalez, "An efficient algorithm for gossiping in the multicasting
   communication environment", IEEE TPDS, 2003, Fig. 1.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence

from gossipcert import graphs
from gossipcert.errors import NotApplicableError
from gossipcert.instance import Instance, ProblemKind
from gossipcert.schedule import Round, Schedule, Transmission


def origin_packet(instance: Instance, v: int) -> int:
    """The number of the gossip packet that node ``v`` holds at the start.

    Raises
    ------
    NotApplicableError
        The problem is not gossip with one packet per node (another problem, a custom one,
        ``chunks=K``), or ``v`` is a router, which holds no packet.
    """
    problem = instance.problem
    if problem.kind is not ProblemKind.GOSSIP or problem.chunks != 1:
        raise NotApplicableError(
            f"the construction solves gossip with one packet per node; got {problem.spec()}"
        )
    if graphs.is_router(instance.graph, v):
        raise NotApplicableError(
            f"the construction needs every node to hold a packet; node "
            f"{graphs.node_ref(instance.graph, v)} is a router"
        )
    return instance.packet_index(graphs.node_ref(instance.graph, v))


def _cycle(instance: Instance, cycle: Sequence[int] | None) -> list[int]:
    return list(range(instance.n)) if cycle is None else list(cycle)


def ring_full_duplex(instance: Instance, cycle: Sequence[int] | None = None) -> Schedule:
    """Dimakopoulos's full-duplex ring gossip: ``n - 1`` steps, one packet per step.

    In step ``s`` the node at position ``i`` sends to position ``i + 1`` the packet of
    position ``i - (s - 1)``, the one it received in step ``s - 1``.

    Parameters
    ----------
    instance : Instance
        A gossip instance on a graph containing ``cycle``.
    cycle : sequence of int, optional
        The ring as a node order (default ``0, 1, ..., n-1``).

    Returns
    -------
    Schedule

    References
    ----------
    .. [1] Dimakopoulos 1999, section 3.1, Fig. 1.
    """
    c = _cycle(instance, cycle)
    n = len(c)
    pk = [origin_packet(instance, v) for v in c]
    rounds: list[Round] = []
    for s in range(1, n):
        rounds.append(
            tuple(Transmission(c[i], (c[(i + 1) % n],), 1 << pk[(i - s + 1) % n]) for i in range(n))
        )
    return Schedule(tuple(rounds))


def ring_half_duplex(instance: Instance, cycle: Sequence[int] | None = None) -> Schedule:
    """Dimakopoulos's half-duplex ring gossip: ``2(n-1)`` steps for even ``n``, ``2n`` for odd.

    Parameters
    ----------
    instance : Instance
        A gossip instance on a graph containing ``cycle``.
    cycle : sequence of int, optional
        The ring as a node order (default ``0, 1, ..., n-1``).

    Returns
    -------
    Schedule

    References
    ----------
    .. [1] Dimakopoulos 1999, section 3.2, Figs. 2 and 3, Theorem 1.
    """
    c = _cycle(instance, cycle)
    n = len(c)
    pk = [origin_packet(instance, v) for v in c]
    rounds: list[Round] = []
    if n % 2 == 0:
        # emulate full-duplex step s by two steps: even positions send, then odd positions
        for s in range(1, n):
            for parity in (0, 1):
                rounds.append(
                    tuple(
                        Transmission(c[i], (c[(i + 1) % n],), 1 << pk[(i - s + 1) % n])
                        for i in range(parity, n, 2)
                    )
                )
        return Schedule(tuple(rounds))
    # odd n: rotating pattern with FIFO buffers; a packet stops at the position before its origin
    fifo = [deque([i]) for i in range(n)]  # positions' buffers of origin positions
    for j in range(1, 2 * n + 1):
        senders = [(j + 2 * a) % n for a in range((n - 1) // 2)]
        rnd: list[Transmission] = []
        arrivals: list[tuple[int, int]] = []
        for i in senders:
            if fifo[i]:
                origin = fifo[i].popleft()
                rnd.append(Transmission(c[i], (c[(i + 1) % n],), 1 << pk[origin]))
                arrivals.append(((i + 1) % n, origin))
        for i, origin in arrivals:
            if (i + 1) % n != origin:  # not yet at its last node: forward it later
                fifo[i].append(origin)
        rounds.append(tuple(rnd))
    return Schedule(tuple(rounds))


def ring_multicast_clockwise(instance: Instance, cycle: Sequence[int] | None = None) -> Schedule:
    """Gonzalez's clockwise ring gossip under multicast: ``n - 1`` rounds.

    In round 1 every node sends its own packet to its clockwise neighbour; afterwards it
    forwards the packet it has just received from its counter-clockwise neighbour.

    References
    ----------
    .. [1] Gonzalez 2003, section 1, Fig. 1.
    """
    return ring_full_duplex(instance, cycle)


def hypercube_dimension_order(instance: Instance, k: int) -> Schedule:
    """Telephone gossip on the hypercube ``Q_k``: in round ``d`` every node calls its
    neighbour across dimension ``d`` and they exchange everything: ``k`` rounds.

    References
    ----------
    .. [1] R. Beier and J. F. Sibeyn, "A powerful heuristic for telephone gossiping", section 2
       (Hypercube: LW = UP = k).
    """
    n = instance.n
    return Schedule.from_calls(
        [[(v, v ^ (1 << d)) for v in range(n) if v < v ^ (1 << d)] for d in range(k)]
    )
