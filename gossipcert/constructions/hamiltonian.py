"""Multinode broadcasting (gossip, one packet per step) through a Hamiltonian cycle, and a
pipeline baseline for paths.

**Hamiltonian graphs** (section 3): the lower bounds ``n - 1`` (full duplex, Eq. 1),
``2(n - 1)`` (half duplex, even ``n``, Eq. 2) and ``2n`` (half duplex, odd ``n``, Eq. 3)
depend only on ``n`` and are met by the ring algorithms, so any graph with a Hamiltonian
cycle gossips optimally through the links of its cycle. The ring schedules are those of
:mod:`gossipcert.constructions.rings`; the cycle is found by
:mod:`gossipcert.closed_forms.hamiltonian`.

A path has no Hamiltonian cycle, and Dimakopoulos gives no path algorithm; so that meshes
(products of paths) can be composed (:mod:`gossipcert.constructions.products`),
:func:`path_pipeline` supplies a plain baseline for paths, not taken from the paper: odd
steps move packets rightwards, even steps leftwards, ``2(n - 1)`` steps with full-duplex
links and twice that with half-duplex links.

References
----------
.. [1] V. V. Dimakopoulos, "Single-port multinode broadcasting", Tech. Report 1-99,
   University of Ioannina, 1999: section 2 (Eqs. 1-3), section 3 (Hamiltonian networks).
.. [2] T. F. Gonzalez, "An efficient algorithm for gossiping in the multicasting
   communication environment", IEEE TPDS, 2003, Fig. 1 (a Hamiltonian circuit under
   multicast).
"""

from __future__ import annotations

from collections.abc import Sequence

from gossipcert import graphs
from gossipcert.closed_forms.hamiltonian import hamiltonian_cycle, is_hamiltonian_cycle
from gossipcert.constructions.rings import (
    origin_packet,
    ring_full_duplex,
    ring_half_duplex,
    ring_multicast_clockwise,
)
from gossipcert.errors import NotApplicableError
from gossipcert.instance import Instance, ModelKind, ProblemKind
from gossipcert.schedule import Schedule, Transmission

__all__ = [
    "check_gossip",
    "hamiltonian_gossip",
    "path_pipeline",
]


_ONE_PACKET_MODELS = (ModelKind.SINGLE_PORT, ModelKind.HALF_DUPLEX, ModelKind.MULTICAST)


def check_gossip(instance: Instance, algorithm: str) -> None:
    """Raise unless ``instance`` is gossip under single-port, half-duplex or multicast, with
    every node active at once and holding a packet: what the ring algorithms, the path
    pipeline and the product composition need.

    Raises
    ------
    NotApplicableError
        Another model or problem, a limit on the calls per round, or routers.
    """
    model = instance.model
    if model.kind not in _ONE_PACKET_MODELS:
        raise NotApplicableError(
            f"{algorithm} is defined for single-port, half-duplex and multicast; got {model.spec()}"
        )
    if model.calls_per_round is not None:
        raise NotApplicableError(f"{algorithm} needs every node active at once; got {model.spec()}")
    if instance.problem.kind is not ProblemKind.GOSSIP:
        raise NotApplicableError(f"{algorithm} solves gossip; got {instance.problem.spec()}")
    if graphs.routers(instance.graph):
        raise NotApplicableError(f"{algorithm} needs every node to hold a packet (no routers)")


def hamiltonian_gossip(instance: Instance, cycle: Sequence[int] | None = None) -> Schedule:
    """Gossip through the links of a Hamiltonian cycle with the ring algorithms.

    Parameters
    ----------
    instance : Instance
        Gossip under ``single-port`` (full duplex), ``half-duplex`` or ``multicast``, no
        routers; optimal for one packet per step (``p = 1``), valid for any ``p``.
    cycle : sequence of int, optional
        The cycle to use (default
        :func:`~gossipcert.closed_forms.hamiltonian.hamiltonian_cycle`).

    Returns
    -------
    Schedule
        ``n - 1`` rounds under single-port and multicast, ``2(n - 1)`` under half-duplex
        for even ``n`` and ``2n`` for odd ``n`` (the lower bounds of Eqs. 1-3).

    Raises
    ------
    NotApplicableError
        Wrong model or problem, or no Hamiltonian cycle.

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> from gossipcert.simulate import simulate
    >>> inst = parse_instance("torus:3x5", "half-duplex:p=1", "gossip")
    >>> simulate(inst, hamiltonian_gossip(inst)).rounds
    30

    References
    ----------
    Dimakopoulos 1999, section 3: "multinode broadcasting can be performed optimally in any
    hamiltonian graph through the links of its hamiltonian cycle" (sections 3.1-3.2,
    Theorem 1); Gonzalez 2003, Fig. 1, for multicast.
    """
    check_gossip(instance, "Hamiltonian-cycle gossip")
    g = instance.graph
    if cycle is None:
        cycle = hamiltonian_cycle(g)
    elif not is_hamiltonian_cycle(g, list(cycle)):
        raise NotApplicableError("the given node order is not a Hamiltonian cycle of the graph")
    kind = instance.model.kind
    if kind is ModelKind.SINGLE_PORT:
        return ring_full_duplex(instance, cycle)
    if kind is ModelKind.HALF_DUPLEX:
        return ring_half_duplex(instance, cycle)
    return ring_multicast_clockwise(instance, cycle)


def path_pipeline(instance: Instance, order: Sequence[int] | None = None) -> Schedule:
    """A baseline gossip for a path (not from the paper): two pipelines taking turns.

    In odd full-duplex steps every node sends rightwards the packet it received from the
    left in the previous odd step (first its own); in even steps the same leftwards.
    Under half duplex each full-duplex step becomes two, nodes at even positions sending
    first, as in Dimakopoulos's emulation for even rings (section 3.2.1).

    Parameters
    ----------
    instance : Instance
        Gossip under single-port, half-duplex or multicast, no routers.
    order : sequence of int, optional
        The path as a node order (default ``0..n-1`` on a ``path:N`` graph).

    Returns
    -------
    Schedule
        ``2(n - 1)`` steps (single-port, multicast) or ``4(n - 1)`` (half-duplex).

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> from gossipcert.simulate import simulate
    >>> inst = parse_instance("path:4", "single-port:p=1", "gossip")
    >>> simulate(inst, path_pipeline(inst)).rounds
    6

    References
    ----------
    Dimakopoulos 1999, sections 3.1 (clockwise rotation) and 3.2.1 (half-duplex emulation);
    the path itself is not treated there.
    """
    check_gossip(instance, "The path pipeline")
    g = instance.graph
    if order is None:
        if not str(g.graph.get("spec", "")).startswith("path:"):
            raise NotApplicableError("the path pipeline needs a path (give its node order)")
        order = list(range(instance.n))
    c = list(order)
    n = len(c)
    if sorted(c) != list(range(instance.n)) or not all(
        g.has_edge(c[i], c[i + 1]) for i in range(n - 1)
    ):
        raise NotApplicableError("the given node order is not a Hamiltonian path of the graph")
    pk = [origin_packet(instance, v) for v in c]
    steps: list[list[tuple[int, int, int]]] = []  # (from position, to position, origin)
    for s in range(1, 2 * (n - 1) + 1):
        q = (s + 1) // 2
        if s % 2:
            # rightwards: position i forwards the packet of position i - (q - 1)
            steps.append([(i, i + 1, i - q + 1) for i in range(n - 1) if i - q + 1 >= 0])
        else:
            # leftwards: position i forwards the packet of position i + (q - 1)
            steps.append([(i, i - 1, i + q - 1) for i in range(1, n) if i + q - 1 <= n - 1])
    if instance.model.kind is ModelKind.HALF_DUPLEX:
        steps = [[x for x in step if x[0] % 2 == parity] for step in steps for parity in (0, 1)]
    return Schedule(
        tuple(tuple(Transmission(c[i], (c[j],), 1 << pk[o]) for i, j, o in step) for step in steps)
    )
