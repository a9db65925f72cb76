"""Schedules for the collectives of the collective-synthesis literature.

These are the schedules a GPU collective library would run on the topologies of SCCL [1]_;
the exact search uses them as its first upper bound (and CP-SAT hint), so that it only has
to prove the lower bound.

- **Bidirectional ring allgather** (all-port, along a Hamiltonian cycle): in step ``s``
  every node forwards clockwise the packet it received clockwise in step ``s - 1`` and
  counter-clockwise the one it received counter-clockwise; each packet travels
  ``ceil((n-1)/2)`` hops one way and ``floor((n-1)/2)`` the other, so the schedule takes
  ``ceil((n-1)/2) = floor(n/2)`` steps, the diameter, one packet per arc and step.
- **Farthest-first routing** (all-port, personalized problems): every packet gets a fixed
  route (a shortest path; on a tree the only path), and in every step each arc carries,
  among the packets waiting at its tail whose next hop it is, those with the most hops
  still to go (up to its capacity). This is the greedy that is optimal for personalized
  communication on linear arrays [2]_; on rings, with the packets that have two shortest
  routes sent clockwise from even positions and counter-clockwise from odd ones, it meets
  the cut bound ``ceil(n^2/8)`` (even ``n``) and ``k(k+1)/2`` (``n = 2k+1``) for every
  ``n`` checked (3 to 24, see the tests).
- **Shift exchange** (single-port on ``K_n``, i.e. ``hub:N``): in round ``k`` node ``i``
  sends to node ``i + k (mod n)`` the packets addressed to it; ``n - 1`` rounds for one
  packet per pair, meeting the bound "each node receives ``n - 1`` packets, one a round".
  With ``K`` chunks per pair, each shift is repeated for every ``p`` chunks.
- **Hypercube doubling** (all-port, gossip on ``Q_d``): recursive doubling, in which
  dimension ``j`` carries the ``2^(j-1)`` packets a node knows; with arc capacity ``c`` it
  takes ``sum_j ceil(2^(j-1)/c)`` steps, ``d`` when ``c >= 2^(d-1)``.

Every function returns an unverified schedule; callers pass it through the verifier.

References
----------
.. [1] Z. Cai, Z. Liu, S. Maleki, M. Musuvathi, T. Mytkowicz, J. Nelson, O. Saarikivi,
   "Synthesizing optimal collective algorithms", PPoPP 2021.
.. [2] V. V. Dimakopoulos and N. J. Dimopoulos, "Communications in binary fat trees",
   Proc. ICCI 1995 (farthest-first scatter).
.. [3] D. P. Bertsekas, C. Ozveren, G. D. Stamoulis, P. Tseng, J. N. Tsitsiklis, "Optimal
   communication algorithms for hypercubes", J. Parallel Distrib. Comput. 11 (1991)
   (recursive doubling; the all-port model).
"""

from __future__ import annotations

from collections.abc import Sequence

import networkx as nx

from gossipcert import graphs
from gossipcert.closed_forms.hamiltonian import hamiltonian_cycle
from gossipcert.errors import NotApplicableError
from gossipcert.instance import Instance, ModelKind, ProblemKind, bits
from gossipcert.schedule import Round, Schedule, Transmission


def _arc_capacity(instance: Instance, u: int, v: int) -> int:
    """``c(u, v)``: the model's ``c=N``, else the edge's capacity."""
    fixed = instance.model.capacity
    return fixed if fixed is not None else graphs.capacity(instance.graph, u, v)


def _require_all_port(instance: Instance, name: str) -> None:
    if instance.model.kind is not ModelKind.ALL_PORT:
        raise NotApplicableError(f"{name} is an all-port schedule; got {instance.model.spec()}")
    if instance.model.calls_per_round is not None:
        raise NotApplicableError(
            f"{name} uses every arc in a round; {instance.model.spec()} limits the calls"
        )


def _require_no_routers(instance: Instance, name: str) -> None:
    if graphs.routers(instance.graph):
        raise NotApplicableError(f"{name} needs every node to be a processor")


def _require_plain(instance: Instance, name: str, kind: ProblemKind) -> None:
    if instance.problem.kind is not kind or instance.problem.chunks != 1:
        raise NotApplicableError(
            f"{name} is a schedule for {kind.value} with one packet a node; "
            f"got {instance.problem.spec()}"
        )


def ring_allgather(instance: Instance, cycle: Sequence[int] | None = None) -> Schedule:
    """All-port allgather around a cycle in both directions: ``floor(n/2)`` steps.

    In step ``s`` the node at position ``i`` sends to position ``i + 1`` the packet of
    position ``i - s + 1`` (for ``s <= ceil((n-1)/2)``) and to position ``i - 1`` the packet
    of position ``i + s - 1`` (for ``s <= floor((n-1)/2)``).

    Parameters
    ----------
    instance : Instance
        Gossip (allgather), one packet a node, all-port, no routers.
    cycle : sequence of int, optional
        A Hamiltonian cycle of the graph as a node order (default: one found by
        :func:`~gossipcert.closed_forms.hamiltonian.hamiltonian_cycle`).

    Returns
    -------
    Schedule

    Raises
    ------
    NotApplicableError
        Another model or problem, routers, or no Hamiltonian cycle found.

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> from gossipcert.simulate import simulate
    >>> inst = parse_instance("ring:8", "all-port", "allgather")
    >>> simulate(inst, ring_allgather(inst, range(8))).rounds
    4

    References
    ----------
    .. [1] Cai et al., PPoPP 2021 (Allgather on rings, in ``n/2`` steps).
    """
    _require_all_port(instance, "ring allgather")
    _require_no_routers(instance, "ring allgather")
    _require_plain(instance, "ring allgather", ProblemKind.GOSSIP)
    c = _hamiltonian(instance, cycle)
    n = len(c)
    pk = [instance.packet_index(graphs.node_ref(instance.graph, v)) for v in c]
    forward, backward = n // 2, (n - 1) // 2
    rounds: list[Round] = []
    for s in range(1, forward + 1):
        rnd: list[Transmission] = []
        for i in range(n):
            rnd.append(Transmission(c[i], (c[(i + 1) % n],), 1 << pk[(i - s + 1) % n]))
            if s <= backward:
                rnd.append(Transmission(c[i], (c[(i - 1) % n],), 1 << pk[(i + s - 1) % n]))
        rounds.append(tuple(rnd))
    return Schedule(tuple(rounds))


def _hamiltonian(instance: Instance, cycle: Sequence[int] | None) -> list[int]:
    return list(cycle) if cycle is not None else hamiltonian_cycle(instance.graph)


def personalized_packets(instance: Instance) -> list[tuple[int, int]]:
    """``(holder, destination)`` of every packet of a personalized instance.

    Raises
    ------
    NotApplicableError
        Some packet is held by several nodes or demanded by other than one node.

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> personalized_packets(parse_instance("path:3", "all-port", "scatter:0"))
    [(0, 1), (0, 2)]
    """
    holder: list[list[int]] = [[] for _ in range(instance.n_packets)]
    needer: list[list[int]] = [[] for _ in range(instance.n_packets)]
    for v in range(instance.n):
        for p in bits(instance.holdings[v]):
            holder[p].append(v)
        for p in bits(instance.demands[v]):
            needer[p].append(v)
    out: list[tuple[int, int]] = []
    for p in range(instance.n_packets):
        if len(holder[p]) != 1 or len(needer[p]) != 1:
            raise NotApplicableError(
                "farthest-first routing needs every packet held by one node and demanded by "
                f"one other; packet {instance.packet_names[p]!r} is not"
            )
        out.append((holder[p][0], needer[p][0]))
    return out


def route_schedule(instance: Instance, routes: Sequence[Sequence[int]]) -> Schedule:
    """Farthest-first timing of fixed routes under all-port with arc capacities.

    Each step, every arc ``u -> v`` carries up to ``c(u, v)`` of the packets that are at
    ``u`` and whose next hop is ``v``, those with the most hops to go first (ties: the lower
    packet number). A packet that arrives in a step moves on in the next one.

    Parameters
    ----------
    instance : Instance
        An all-port instance.
    routes : sequence of sequences of int
        Per packet, the nodes of its route from a holder to its destination (one node if
        it is already there).

    Returns
    -------
    Schedule
        Unverified; its length is that of the route timing.

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> inst = parse_instance("path:3", "all-port", "scatter:0")
    >>> [[(t.sender, t.receivers[0], t.packets) for t in r]
    ...  for r in route_schedule(inst, [[0, 1], [0, 1, 2]]).rounds]
    [[(0, 1, 2)], [(0, 1, 1), (1, 2, 2)]]
    """
    at = [0] * len(routes)  # the index of each packet's current node on its route
    left = {p for p, r in enumerate(routes) if len(r) > 1}
    rounds: list[Round] = []
    while left:
        waiting: dict[tuple[int, int], list[int]] = {}
        for p in left:
            r = routes[p]
            waiting.setdefault((r[at[p]], r[at[p] + 1]), []).append(p)
        rnd: list[Transmission] = []
        for (u, v), ps in sorted(waiting.items()):
            ps.sort(key=lambda p: (at[p] - len(routes[p]), p))
            moving = ps[: _arc_capacity(instance, u, v)]
            mask = 0
            for p in moving:
                mask |= 1 << p
                at[p] += 1
                if at[p] == len(routes[p]) - 1:
                    left.discard(p)
            rnd.append(Transmission(u, (v,), mask))
        rounds.append(tuple(rnd))
    return Schedule(tuple(rounds))


def shortest_routes(instance: Instance) -> list[list[int]]:
    """One shortest path per packet of a personalized instance (on a tree, the only path).

    Raises
    ------
    NotApplicableError
        The instance is not personalized (see :func:`personalized_packets`).
    """
    paths = dict(nx.all_pairs_shortest_path(instance.graph))
    return [paths[s][d] for s, d in personalized_packets(instance)]


def farthest_first_routes(instance: Instance) -> Schedule:
    """Personalized all-port communication along shortest paths, farthest first.

    Parameters
    ----------
    instance : Instance
        All-port, every packet held by one node and demanded by one other (scatter,
        gather, total exchange, with any number of chunks; routers allowed).

    Returns
    -------
    Schedule

    Raises
    ------
    NotApplicableError
        Another model, or a packet with several holders or destinations.

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> from gossipcert.simulate import simulate
    >>> simulate(parse_instance("fattree:4", "all-port", "scatter:0"),
    ...          farthest_first_routes(parse_instance("fattree:4", "all-port", "scatter:0"))).rounds
    5
    """
    _require_all_port(instance, "farthest-first routing")
    return route_schedule(instance, shortest_routes(instance))


def ring_routes(instance: Instance, cycle: Sequence[int]) -> list[list[int]]:
    """The shortest way round ``cycle`` for every packet of a personalized instance.

    A packet whose destination is opposite its holder (even ``n``) goes clockwise from an
    even position and counter-clockwise from an odd one, which halves the load on each
    direction.
    """
    c = list(cycle)
    n = len(c)
    pos = {v: i for i, v in enumerate(c)}
    out: list[list[int]] = []
    for s, d in personalized_packets(instance):
        i, j = pos[s], pos[d]
        ahead = (j - i) % n
        step = 1 if 2 * ahead < n or (2 * ahead == n and i % 2 == 0) else -1
        hops = ahead if step == 1 else n - ahead
        out.append([c[(i + step * h) % n] for h in range(hops + 1)])
    return out


def ring_alltoall(instance: Instance, cycle: Sequence[int] | None = None) -> Schedule:
    """All-port personalized exchange around a cycle: shortest way round, farthest first.

    On a ring with capacity 1 this takes ``ceil(n^2/8)`` steps for even ``n`` and
    ``k(k+1)/2`` for ``n = 2k + 1``, the cut bound (checked for ``n = 3..24`` in the
    tests).

    Parameters
    ----------
    instance : Instance
        All-port, personalized (total exchange, scatter, gather; chunks allowed), no routers.
    cycle : sequence of int, optional
        A Hamiltonian cycle of the graph as a node order (default: one found by
        :func:`~gossipcert.closed_forms.hamiltonian.hamiltonian_cycle`).

    Returns
    -------
    Schedule

    Raises
    ------
    NotApplicableError
        Another model, a packet with several holders or destinations, routers, or no
        Hamiltonian cycle found.

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> from gossipcert.simulate import simulate
    >>> inst = parse_instance("ring:8", "all-port", "alltoall")
    >>> simulate(inst, ring_alltoall(inst, range(8))).rounds
    8

    References
    ----------
    .. [1] Cai et al., PPoPP 2021 (Alltoall on rings: 5 steps for 6 nodes).
    """
    _require_all_port(instance, "ring alltoall")
    _require_no_routers(instance, "ring alltoall")
    personalized_packets(instance)  # raises before the cycle is looked for
    return route_schedule(instance, ring_routes(instance, _hamiltonian(instance, cycle)))


def shift_exchange(instance: Instance) -> Schedule:
    """Total exchange on ``K_n`` under single-port: in round ``k``, ``i -> i + k (mod n)``.

    With ``K`` chunks a pair and ``p`` packets a transmission each shift takes
    ``ceil(K/p)`` rounds, so the schedule has ``(n - 1) ceil(K/p)`` rounds.

    Parameters
    ----------
    instance : Instance
        Single-port or multicast (no call limit), total exchange, a complete graph without
        routers (``hub:N``, ``complete:N``, ``fully-connected:N``).

    Returns
    -------
    Schedule

    Raises
    ------
    NotApplicableError
        Another model or problem, or a graph that is not complete.

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> from gossipcert.simulate import simulate
    >>> inst = parse_instance("hub:6", "single-port", "alltoall")
    >>> simulate(inst, shift_exchange(inst)).rounds
    5
    """
    model, g, n = instance.model, instance.graph, instance.n
    if model.kind not in (ModelKind.SINGLE_PORT, ModelKind.MULTICAST):
        raise NotApplicableError(f"the shift exchange is single-port; got {model.spec()}")
    if model.calls_per_round is not None:
        raise NotApplicableError("the shift exchange lets every node send in every round")
    if instance.problem.kind is not ProblemKind.TOTAL_EXCHANGE:
        raise NotApplicableError("the shift exchange is a total exchange")
    if graphs.routers(g) or g.number_of_edges() != n * (n - 1) // 2:
        raise NotApplicableError("the shift exchange needs a complete graph of processors")
    cap = model.packet_cap or 1
    rounds: list[Round] = []
    for k in range(1, n):
        pair = [bits(instance.holdings[i] & instance.demands[(i + k) % n]) for i in range(n)]
        for first in range(0, max(map(len, pair)), cap):
            rnd = []
            for i in range(n):
                mask = sum(1 << p for p in pair[i][first : first + cap])
                if mask:
                    rnd.append(Transmission(i, ((i + k) % n,), mask))
            rounds.append(tuple(rnd))
    return Schedule(tuple(rounds))


def hypercube_doubling(instance: Instance) -> Schedule:
    """Recursive doubling on the hypercube under all-port with arc capacities.

    Dimension ``j = 1..d`` in turn: every node sends across dimension ``j`` the
    ``2^(j-1)`` packets it knows, ``c`` per step, so dimension ``j`` takes
    ``ceil(2^(j-1)/c)`` steps (one step per dimension when ``c >= 2^(d-1)``).

    Parameters
    ----------
    instance : Instance
        Gossip, one packet a node, all-port, on ``hypercube:d`` (node ``x`` adjacent to
        ``x ^ 2^j``).

    Returns
    -------
    Schedule

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> from gossipcert.simulate import simulate
    >>> inst = parse_instance("hypercube:3", "all-port:c=4", "allgather")
    >>> simulate(inst, hypercube_doubling(inst)).rounds
    3

    References
    ----------
    .. [1] Bertsekas et al., J. Parallel Distrib. Comput. 11 (1991).
    """
    _require_all_port(instance, "hypercube doubling")
    _require_plain(instance, "hypercube doubling", ProblemKind.GOSSIP)
    g, n = instance.graph, instance.n
    d = n.bit_length() - 1
    if n != 1 << d or any(not g.has_edge(x, x ^ (1 << j)) for x in range(n) for j in range(d)):
        raise NotApplicableError("hypercube doubling needs hypercube:d with its own numbering")
    _require_no_routers(instance, "hypercube doubling")
    know = list(instance.holdings)
    rounds: list[Round] = []
    for j in range(d):
        send = [bits(know[x]) for x in range(n)]
        step = min(_arc_capacity(instance, x, x ^ (1 << j)) for x in range(n))
        for first in range(0, 1 << j, step):
            rounds.append(
                tuple(
                    Transmission(x, (x ^ (1 << j),), sum(1 << p for p in send[x][first:][:step]))
                    for x in range(n)
                )
            )
        know = [know[x] | know[x ^ (1 << j)] for x in range(n)]
    return Schedule(tuple(rounds))
