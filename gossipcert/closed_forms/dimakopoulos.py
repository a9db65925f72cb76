"""Dimakopoulos 1999: single-port full and half duplex, ``p = 1``.

See :mod:`gossipcert.closed_forms` for the conventions every bound follows.

References
----------
.. [1] V. V. Dimakopoulos, "Single-port multinode broadcasting", Tech. Report 1-99,
   University of Ioannina, 1999. Section 2 (bounds (1)-(3)), section 3 (Hamiltonian
   networks), section 4 (Theorems 2-5, products).
"""

from __future__ import annotations

import networkx as nx

from gossipcert import graphs
from gossipcert.closed_forms.base import (
    _DIM,
    _LOWER,
    _UPPER,
    Bound,
    _gossip_upper_applies,
    _is_gossip,
    _verified_spec,
)
from gossipcert.closed_forms.hamiltonian import _hamiltonian, _hamiltonian_cycle_of
from gossipcert.errors import GossipcertError
from gossipcert.instance import Instance, ModelKind

# --------------------------------------------------------------------------------------------
# Dimakopoulos 1999: single-port full and half duplex, p = 1
# --------------------------------------------------------------------------------------------


def dimakopoulos_receive_bound(instance: Instance) -> Bound | None:
    """Bound (1): single-port gossip with one packet per step takes ``n - 1`` steps.

    Every node receives the ``n - 1`` other packets one by one (full or half duplex).

    Parameters
    ----------
    instance : Instance

    Returns
    -------
    Bound or None
        None unless single-port or half-duplex with ``p = 1``, gossip, no routers.

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> dimakopoulos_receive_bound(parse_instance("ring:7", "single-port:p=1", "gossip")).value
    6
    >>> print(dimakopoulos_receive_bound(parse_instance("ring:7", "telephone", "gossip")))
    None

    References
    ----------
    Dimakopoulos 1999, section 2, eq. (1): ``T_HD, T_FD >= n - 1``.
    """
    m = instance.model
    kinds = {ModelKind.SINGLE_PORT, ModelKind.HALF_DUPLEX}
    if m.kind not in kinds or m.packet_cap != 1 or not _is_gossip(instance):
        return None
    return Bound(
        "dimakopoulos-1",
        _LOWER,
        instance.n - 1,
        f"{_DIM}, eq. (1): every node receives the n-1 other packets one per step",
    )


def dimakopoulos_half_duplex_bound(instance: Instance) -> Bound | None:
    """Bounds (2) and (3): half-duplex gossip with ``p = 1`` takes ``2(n - 1)`` steps for
    even ``n`` and ``2n`` for odd ``n``.

    Gossip needs ``n(n - 1)`` receptions; a step has at most ``floor(n/2)`` of them (each
    reception pairs a receiving node with a distinct sending node), so
    ``T >= n(n - 1) / floor(n/2)``, which is ``2(n - 1)`` for even and ``2n`` for odd ``n``.

    Parameters
    ----------
    instance : Instance

    Returns
    -------
    Bound or None
        None unless half-duplex with ``p = 1``, gossip, no routers, ``n >= 2``.

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> [dimakopoulos_half_duplex_bound(parse_instance(f"ring:{n}", "half-duplex:p=1",
    ...     "gossip")).value for n in (4, 5)]
    [6, 10]

    References
    ----------
    Dimakopoulos 1999, section 2, eqs. (2) and (3).
    """
    m = instance.model
    if m.kind is not ModelKind.HALF_DUPLEX or m.packet_cap != 1 or not _is_gossip(instance):
        return None
    n = instance.n
    if n < 2:
        return None
    value = 2 * (n - 1) if n % 2 == 0 else 2 * n
    return Bound(
        "dimakopoulos-2-3",
        _LOWER,
        value,
        f"{_DIM}, eqs. (2)-(3): n(n-1) receptions, at most floor(n/2) per half-duplex step",
    )


def _dimakopoulos_value(n: int, kind: ModelKind) -> int:
    """The optimum of section 3 on a Hamiltonian graph (or K1, K2) with ``n`` nodes."""
    if n <= 1:
        return 0
    if kind is ModelKind.SINGLE_PORT:
        return n - 1
    return 2 * (n - 1) if n % 2 == 0 else 2 * n


def _dimakopoulos_upper_applies(instance: Instance) -> bool:
    kinds = {ModelKind.SINGLE_PORT, ModelKind.HALF_DUPLEX}
    return _gossip_upper_applies(instance, kinds, unbounded=False)


def dimakopoulos_hamiltonian_upper_bound(instance: Instance) -> Bound | None:
    """Section 3: on a graph with a Hamiltonian cycle, gossip is done within the bounds
    (1)-(3) by running the ring algorithms on the cycle.

    Single-port: ``n - 1`` steps (every packet rotates one way). Half-duplex: ``2(n - 1)``
    for even ``n``, ``2n`` for odd ``n`` (Theorem 1). The schedules send one packet per
    transmission, so they are valid for every packet cap.

    Parameters
    ----------
    instance : Instance

    Returns
    -------
    Bound or None
        None unless single-port or half-duplex gossip (any problem with unbounded packets),
        no limit on calls per round, no routers, and a Hamiltonian cycle was found (graphs
        with 1 or 2 nodes count as rings).

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> dimakopoulos_hamiltonian_upper_bound(
    ...     parse_instance("hypercube:3", "half-duplex:p=1", "gossip")).value
    14
    >>> print(dimakopoulos_hamiltonian_upper_bound(
    ...     parse_instance("petersen", "single-port:p=1", "gossip")))
    None

    References
    ----------
    Dimakopoulos 1999, sections 3.1, 3.2 and Theorem 1.
    """
    if not _dimakopoulos_upper_applies(instance):
        return None
    n = instance.n
    if n >= 3 and not _hamiltonian(instance):
        return None
    return Bound(
        "dimakopoulos-hamiltonian-upper",
        _UPPER,
        _dimakopoulos_value(n, instance.model.kind),
        f"{_DIM}, sec. 3: the ring algorithm on a Hamiltonian cycle meets bounds (1)-(3)",
    )


def _dimakopoulos_factor(spec: str, kind: ModelKind) -> tuple[int, int] | None:
    """``(n_i, T_i)`` for one factor of a product: its section-3 value if it is K1, K2 or
    Hamiltonian."""
    try:
        g = graphs.from_spec(spec)
    except GossipcertError:
        return None
    n = g.number_of_nodes()
    if graphs.routers(g) or not nx.is_connected(g):
        return None
    if n >= 3 and _hamiltonian_cycle_of(g) is None:
        return None
    return n, _dimakopoulos_value(n, kind)


def _expand_factors(spec: str) -> list[str]:
    """The factor specs of a product; tori, meshes and hypercubes split into their rings,
    paths and K2s (Dimakopoulos sec. 4)."""
    out: list[str] = []
    for part in spec.split("*"):
        name, _, args = part.strip().partition(":")
        name = name.strip().lower()
        if name in ("mesh", "torus") and "x" in args.lower():
            a, b = args.lower().split("x")
            kind = "ring" if name == "torus" else "path"
            out.extend([f"{kind}:{a.strip()}", f"{kind}:{b.strip()}"])
        elif name == "hypercube" and args.strip().isdigit():
            out.extend(["path:2"] * int(args))
        else:
            out.append(part.strip())
    return out


def _fold_product(factors: list[tuple[int, int]]) -> int:
    """Theorem 2 applied repeatedly: ``T(A x B) = T_B + n_B T_A`` (either order)."""
    best: int | None = None
    for order in (factors, factors[::-1]):
        n_acc, t_acc = order[0]
        for n_f, t_f in order[1:]:
            t_acc = min(t_f + n_f * t_acc, t_acc + n_acc * t_f)
            n_acc *= n_f
        best = t_acc if best is None else min(best, t_acc)
    assert best is not None
    return best


def dimakopoulos_product_upper_bound(instance: Instance) -> Bound | None:
    """Theorems 2-5: gossip on ``G = A x B`` in ``T_B + n_B T_A`` steps (gossip in every copy
    of ``B``, then ``n_B`` gossips in the copies of ``A``), applied factor by factor.

    Factor times are those of section 3 (Hamiltonian factors, K1, K2). Under single-port this
    gives ``n - 1`` (Theorem 3); under half-duplex ``2(n - 1)`` when all factors are even
    (Theorem 4) and ``2n`` with one odd factor (Theorem 5).

    Parameters
    ----------
    instance : Instance

    Returns
    -------
    Bound or None
        None unless the graph is a verified product spec (``*``, or a mesh, torus or
        hypercube) of at least two factors with more than one node, each with a known time,
        in the setting of :func:`dimakopoulos_hamiltonian_upper_bound`.

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> dimakopoulos_product_upper_bound(
    ...     parse_instance("ring:4*ring:3", "half-duplex:p=1", "gossip")).value
    24
    >>> dimakopoulos_product_upper_bound(
    ...     parse_instance("torus:3x5", "single-port:p=1", "gossip")).value
    14

    References
    ----------
    Dimakopoulos 1999, section 4, Theorems 2-5.
    """
    if not _dimakopoulos_upper_applies(instance):
        return None
    spec = _verified_spec(instance)
    if spec is None:
        return None
    factor_specs = _expand_factors(spec)
    kind = instance.model.kind
    factors: list[tuple[int, int]] = []
    for fs in factor_specs:
        value = _dimakopoulos_factor(fs, kind)
        if value is None:
            return None
        if value[0] > 1:
            factors.append(value)
    if len(factors) < 2:
        return None
    # factors that meet the even-n formula first: T(A x B) grows with n_B T_A
    factors.sort(key=lambda f: (f[1] - (f[0] - 1) * (1 if kind is ModelKind.SINGLE_PORT else 2), f))
    return Bound(
        "dimakopoulos-product-upper",
        _UPPER,
        _fold_product(factors),
        f"{_DIM}, Theorems 2-5: gossip along B, then n_B gossips along A: T = T_B + n_B T_A",
    )
