"""Dimakopoulos's composition of multinode broadcasting for Cartesian products.

**Products** ``G = A x B`` (section 4, Fig. 6): Phase 1 performs multinode broadcasting in
every copy ``B_i = (v_i, *)`` of ``B`` at once; Phase 2 performs ``n2`` multinode
broadcastings, one after the other, in every copy ``A_j = (*, u_j)`` of ``A``, the ``r``-th
of them with node ``(v_i, u_j)`` broadcasting ``m(v_i, u_r)``. It takes exactly
``T = T_B + n2 T_A`` steps (Theorem 2), ``n - 1`` when both factors are optimal under full
duplex (Theorem 3), ``2(n - 1)`` under half duplex with both ``n1``, ``n2`` even (Theorem 4)
and ``2n`` with ``n1`` even, ``n2`` odd (Theorem 5). The factors are recognised by
:mod:`gossipcert.constructions.product_factors`; a factor gossips by the composition again,
through a Hamiltonian cycle or along a path (:mod:`gossipcert.constructions.hamiltonian`).

References
----------
.. [1] V. V. Dimakopoulos, "Single-port multinode broadcasting", Tech. Report 1-99,
   University of Ioannina, 1999: section 4 (Fig. 5, Fig. 6, Theorems 2-5).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import cast

from gossipcert import graphs
from gossipcert.constructions.hamiltonian import check_gossip, hamiltonian_gossip, path_pipeline
from gossipcert.constructions.product_factors import factor_specs, product_factors
from gossipcert.constructions.rings import origin_packet
from gossipcert.errors import NotApplicableError
from gossipcert.instance import Instance, Problem, ProblemKind, make_instance
from gossipcert.schedule import Round, Schedule, Transmission

__all__ = ["product"]


def _default_factor(instance: Instance) -> Schedule:
    """The factor algorithm: the composition again for a product (hypercubes included),
    the path baseline for a path of three or more nodes, the Hamiltonian cycle otherwise."""
    spec = str(instance.graph.graph.get("spec", ""))
    if factor_specs(spec) is not None:
        return product(instance)
    if spec.startswith("path:") and instance.n >= 3:
        return path_pipeline(instance)
    return hamiltonian_gossip(instance)


def product(
    instance: Instance,
    factor: Callable[[Instance], Schedule] | None = None,
    *,
    swap: bool = False,
) -> Schedule:
    """Dimakopoulos's multinode broadcasting for ``G = A x B`` (Fig. 6).

    Phase 1 (lines 1-2): in every copy ``B_i`` of ``B`` in parallel, multinode
    broadcasting. Phase 2 (lines 3-5): for ``r = 1..n2``, in every copy ``A_j`` of ``A`` in
    parallel, multinode broadcasting with node ``(v_i, u_j)`` broadcasting ``m(v_i, u_r)``.
    The broadcastings run one after the other, so the schedule obeys the factors' link
    model.

    Parameters
    ----------
    instance : Instance
        Gossip on a product graph (see
        :func:`~gossipcert.constructions.product_factors.product_factors`), no routers.
    factor : callable, optional
        The multinode broadcasting algorithm for a factor: takes the factor's gossip
        instance (same model) and returns a schedule that names its packets. Default: this
        composition again for a factor that is a product (recursively, section 4.1),
        :func:`~gossipcert.constructions.hamiltonian.path_pipeline` for a path,
        :func:`~gossipcert.constructions.hamiltonian.hamiltonian_gossip` otherwise.
    swap : bool
        Compose as ``B x A`` instead (Phase 1 in the copies of ``A``): the renaming of the
        dimensions in the proof of Theorem 5.

    Returns
    -------
    Schedule
        Exactly ``T_B + n2 T_A`` steps (Theorem 2), ``T_A + n1 T_B`` with ``swap``.

    Raises
    ------
    NotApplicableError
        Not a product, wrong model or problem, or a factor without an algorithm.

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> from gossipcert.simulate import simulate
    >>> inst = parse_instance("ring:4*ring:3", "half-duplex:p=1", "gossip")
    >>> rep = simulate(inst, product(inst))
    >>> rep.ok, rep.rounds  # T_B + n2 T_A = 2*3 + 3 * 2*(4-1) = 2n
    (True, 24)

    References
    ----------
    Dimakopoulos 1999, section 4.1 (Fig. 5 and Fig. 6) and section 4.2 (Theorems 2-5).
    """
    check_gossip(instance, "The product composition")
    algorithm = _default_factor if factor is None else factor
    a, b = product_factors(instance.graph)
    n1, n2 = a.number_of_nodes(), b.number_of_nodes()
    problem = Problem(ProblemKind.GOSSIP)
    inst_a = make_instance(a, instance.model, problem)
    inst_b = make_instance(b, instance.model, problem)
    sched_a, sched_b = algorithm(inst_a), algorithm(inst_b)

    def node(x: int, y: int) -> int:
        return x * n2 + y

    # the packet of product node (x, y), and the origin node of each factor packet (a gossip
    # instance names each packet after its origin node, see graphs.node_ref)
    packet = [origin_packet(instance, v) for v in range(instance.n)]
    origin_a = [graphs.resolve_node(a, cast("int | str", name)) for name in inst_a.packet_names]
    origin_b = [graphs.resolve_node(b, cast("int | str", name)) for name in inst_b.packet_names]

    # the copies B_x = (v_x, *) of B and A_y = (*, u_y) of A: their nodes in the product
    in_b = [[node(x, y) for y in range(n2)] for x in range(n1)]
    in_a = [[node(x, y) for x in range(n1)] for y in range(n2)]
    rounds: list[Round] = []
    if not swap:
        # Phase 1: multinode broadcasting in every copy B_i = (v_i, *) at once
        to_b = [[packet[node(x, o)] for o in origin_b] for x in range(n1)]
        rounds += [_in_copies(rnd, in_b, to_b) for rnd in sched_b.rounds[: len(sched_b)]]
        # Phase 2: for r = 1..n2, in every copy A_j = (*, u_j), (v_i, u_j) broadcasts m(v_i, u_r)
        for r in range(n2):
            to_a = [[packet[node(o, r)] for o in origin_a] for _ in range(n2)]
            rounds += [_in_copies(rnd, in_a, to_a) for rnd in sched_a.rounds[: len(sched_a)]]
    else:
        # the same with the dimensions renamed: Phase 1 in the copies of A
        to_a = [[packet[node(o, y)] for o in origin_a] for y in range(n2)]
        rounds += [_in_copies(rnd, in_a, to_a) for rnd in sched_a.rounds[: len(sched_a)]]
        for r in range(n1):
            to_b = [[packet[node(r, o)] for o in origin_b] for _ in range(n1)]
            rounds += [_in_copies(rnd, in_b, to_b) for rnd in sched_b.rounds[: len(sched_b)]]
    return Schedule(tuple(rounds))


def _copy_round(rnd: Round, place: Sequence[int], message: Sequence[int]) -> list[Transmission]:
    """One factor round, placed in one copy: ``place`` maps factor nodes to product
    nodes, ``message`` maps a factor packet to the product packet it stands for."""
    out = []
    for tr in rnd:
        if tr.packets is None:
            raise NotApplicableError(
                "a factor schedule must name its packets to be composed (not 'all')"
            )
        mask = 0
        for q in range(tr.packets.bit_length()):
            if tr.packets >> q & 1:
                mask |= 1 << message[q]
        out.append(Transmission(place[tr.sender], tuple(place[r] for r in tr.receivers), mask))
    return out


def _in_copies(rnd: Round, copies: list[list[int]], messages: list[list[int]]) -> Round:
    """One factor round in every copy at once: copy ``c`` places the factor's nodes at
    ``copies[c]`` and its packets as ``messages[c]`` (:func:`_copy_round`)."""
    merged: list[Transmission] = []
    for place, message in zip(copies, messages, strict=True):
        merged += _copy_round(rnd, place, message)
    return tuple(merged)
