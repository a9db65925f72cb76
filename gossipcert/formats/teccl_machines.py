"""TE-CCL's machines as its code builds them: nodes, switches, and each link's rate and alpha.

TE-CCL (Liu et al., SIGCOMM 2024) describes a machine by a capacity matrix in chunks per
second (``capacity[i][j]``: the link from ``i`` to ``j``; 0: none), an alpha matrix in seconds
(``-1`` or 0 where there is no link), the indices of its switch nodes and ``node_per_chassis``.
The descriptions below are written from the conventions of its ``teccl/topologies/*.py``; they
keep TE-CCL's node numbering, and compute each rate and alpha with the same floating-point
operations as its code, so that the epoch arithmetic of :mod:`.teccl_model` (a ceiling of
``alpha / epoch``, of ``1 / (rate epoch)``) rounds as TE-CCL's does.

- ``ndv2:K`` (``ndv2.py``): chassis of 8 V100 GPUs in the hybrid cube-mesh, 50 GB/s on a
  double NVLink and 25 GB/s on a single one (alpha 0.7 us), a NIC link of 12.5 GB/s (alpha
  1.3 us). With ``K = 2`` there are 16 nodes and no switch node, the chassis joined by two
  one-way links ``0 -> 9`` and ``8 -> 1``; TE-CCL then marks node 0 a switch all the same
  (``set_switch_indicies``: ``[0]`` whenever there is more than one chassis), so GPU 0 holds
  and wants no data and the GPUs are 1..15. Otherwise node 0 is the NIC switch and GPU ``g``
  of chassis ``c`` is node ``8c + g + 1``; GPU 0 of each chassis sends to the switch, and the
  switch sends to GPU 1.
- ``dgx2:2`` (``dgx2.py``, always two chassis): node ``17c`` is the NVSwitch of chassis ``c``,
  GPU ``g`` is node ``17c + g + 1``; GPU <-> own switch 125 GB/s (alpha 0.35 us); a NIC link of
  12.5 GB/s (alpha 2.6 us) from each odd GPU ``g`` to GPU ``g - 1`` of the other chassis. The
  alpha matrix holds 0 where there is no link, so TE-CCL's least alpha is 0.
- ``amd:K`` (``amd.py``): 16 MI250 GCDs a chassis, ``w`` Infinity Fabric links between two
  GCDs giving ``w`` times 50 GB/s. One chassis: nodes 0..15, no switch. Several: node 0 is the
  switch that joins the chassis; device ``d`` of chassis ``c`` is node ``24c + d + 1``
  (devices 16..23 are a chassis's NIC switches, 16 + i linked to GCDs 2i and 2i + 1); links at
  25 GB/s where a device index exceeds 16, at 50 GB/s otherwise. The switch list TE-CCL
  builds, ``24c + 16 + k`` for ``k < 8`` (without the offset of 1 its matrix has), and the
  links to node 0 from exactly those nodes, are kept as its code makes them. Alpha is the
  input's (``alpha = (link, switch)``, 0 by default).
- ``mesh:S`` (``mesh.py``): ``S^2`` nodes, ``i`` linked to ``i +- 1`` and ``i +- S`` (the row
  ends included, as the code tests indices), 100 GB/s, alpha the input's.
- ``dgx1`` (``dgx1.py``): the DGX-1's 8 GPUs, 25 GB/s a NVLink (two on the double links).

References
----------
.. [1] X. Liu, B. Arzani, S. K. R. Kakarla, L. Zhao, V. Liu, M. Castro, S. Kandula,
   L. Marshall, "Rethinking machine learning collective communication as a multi-commodity
   flow problem", SIGCOMM 2024; github.com/microsoft/TE-CCL, ``teccl/topologies/``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from gossipcert.errors import FormatError

__all__ = ["MACHINE_NAMES", "TecclLink", "TecclMachine", "teccl_machine"]


@dataclass(frozen=True)
class TecclLink:
    """One directed link: ``weight * (gbps / (divisor * chunk))`` chunks a second, as TE-CCL
    computes it for a chunk of ``chunk`` GB, and its alpha in seconds."""

    gbps: float
    alpha: float
    divisor: int = 1
    weight: float = 1

    def rate(self, chunk: float) -> float:
        """Chunks a second for chunks of ``chunk`` GB (TE-CCL's capacity)."""
        return self.weight * (self.gbps / (self.divisor * chunk))


@dataclass(frozen=True)
class TecclMachine:
    """A machine as TE-CCL builds it (see the module docstring).

    Attributes
    ----------
    name : str
        ``NDv2``, ``DGX2``, ``AMD``, ``Mesh`` or ``DGX1`` (TE-CCL's names).
    chassis : int
    nodes : int
        Rows of the capacity matrix.
    switches : frozenset of int
        TE-CCL's switch indices: they hold and want no data, and keep nothing.
    links : dict
        ``(i, j)`` -> :class:`TecclLink`.
    node_per_chassis : int
        What TE-CCL's algorithmic bandwidth multiplies the chunk size by (with ``chassis``).
    min_alpha : float
        TE-CCL's ``get_min_alpha``: the least entry >= 0 of its alpha matrix.
    source : str
        The TE-CCL file the description follows.
    """

    name: str
    chassis: int
    nodes: int
    switches: frozenset[int]
    links: dict[tuple[int, int], TecclLink] = field(repr=False)
    node_per_chassis: int
    min_alpha: float
    source: str

    @property
    def gpus(self) -> list[int]:
        """The nodes that hold and want data (every node that is not a switch)."""
        return [v for v in range(self.nodes) if v not in self.switches]

    @property
    def spec(self) -> str:
        """The spec string of :func:`teccl_machine` that builds this machine."""
        if self.name == "Mesh":
            return f"mesh:{round(self.nodes**0.5)}"
        if self.name == "DGX1":
            return "dgx1"
        return f"{self.name.lower()}:{self.chassis}"

    def rates(self, chunk: float) -> list[float]:
        """Every link's rate in chunks a second (TE-CCL's nonzero capacities)."""
        return [link.rate(chunk) for link in self.links.values()]


#: the NDv2 chassis: TE-CCL's codes 23 (double NVLink), 46 (single NVLink), 0 (none)
_NDV2 = [
    [0, 23, 46, 46, 23, 0, 0, 0],
    [23, 0, 46, 23, 0, 46, 0, 0],
    [46, 46, 0, 23, 0, 0, 23, 0],
    [46, 23, 23, 0, 0, 0, 0, 46],
    [23, 0, 0, 0, 0, 23, 46, 46],
    [0, 46, 0, 0, 23, 0, 46, 23],
    [0, 0, 23, 0, 46, 46, 0, 23],
    [0, 0, 0, 46, 46, 23, 23, 0],
]
#: the MI250 chassis: Infinity Fabric links between GCDs (TE-CCL's adjacency_list)
_AMD = {
    0: {1: 4, 4: 2, 8: 1}, 1: {0: 4, 5: 1, 9: 1, 10: 1}, 2: {3: 4, 6: 1, 10: 1, 9: 1},
    3: {2: 4, 7: 2, 11: 1}, 4: {6: 1, 5: 4, 0: 2}, 5: {1: 1, 4: 4, 7: 1, 6: 1},
    6: {4: 1, 7: 4, 2: 1, 5: 1}, 7: {5: 1, 6: 4, 3: 2}, 8: {0: 1, 9: 4, 12: 2},
    9: {1: 1, 2: 1, 8: 4, 13: 1}, 10: {1: 1, 2: 1, 11: 4, 14: 1}, 11: {3: 1, 10: 4, 15: 2},
    12: {8: 2, 13: 4, 14: 1}, 13: {9: 1, 12: 4, 15: 1, 14: 1}, 14: {10: 1, 12: 1, 13: 1, 15: 4},
    15: {11: 2, 13: 1, 14: 4},
}  # fmt: skip
#: the DGX-1: NVLinks between GPUs (2: a double link)
_DGX1 = {
    (0, 1): 2, (0, 2): 1, (0, 3): 1, (0, 4): 2, (1, 2): 1, (1, 3): 2, (1, 5): 1, (2, 3): 2,
    (2, 6): 2, (3, 7): 1, (4, 5): 2, (4, 6): 1, (4, 7): 1, (5, 6): 1, (5, 7): 2, (6, 7): 2,
}  # fmt: skip


def _ndv2_link(code: int) -> TecclLink:
    if code == 23:
        return TecclLink(50, 0.7 * pow(10, -6))
    if code == 46:
        return TecclLink(50, 0.7 * pow(10, -6), divisor=2)
    return TecclLink(12.5, 1.3 * pow(10, -6))  # 107: the NIC


def ndv2(chassis: int) -> TecclMachine:
    """TE-CCL's NDv2 with ``chassis`` chassis (``teccl/topologies/ndv2.py``).

    Examples
    --------
    >>> m = ndv2(2)
    >>> m.nodes, sorted(m.switches), (0, 9) in m.links, (9, 0) in m.links
    (16, [0], True, False)
    >>> m.links[(8, 1)].rate(0.0625)
    200.0
    """
    codes: dict[tuple[int, int], int] = {}
    if chassis == 2:
        for c in range(2):
            for i in range(8):
                for j in range(8):
                    if _NDV2[i][j]:
                        codes[(8 * c + i, 8 * c + j)] = _NDV2[i][j]
        codes[(8, 1)] = codes[(0, 9)] = 107  # TE-CCL's matrix is transposed after building
        nodes = 16
    else:
        for c in range(chassis):
            for i in range(8):
                for j in range(8):
                    if _NDV2[i][j]:
                        codes[(8 * c + i + 1, 8 * c + j + 1)] = _NDV2[i][j]
            codes[(8 * c + 1, 0)] = 107  # GPU 0 of the chassis to the switch
            codes[(0, 8 * c + 2)] = 107  # the switch to GPU 1
        nodes = 8 * chassis + 1
    links = {pair: _ndv2_link(code) for pair, code in codes.items()}
    return TecclMachine(
        "NDv2", chassis, nodes, frozenset({0}), links, 8, 0.7 * pow(10, -6),
        "teccl/topologies/ndv2.py",
    )  # fmt: skip


def dgx2(chassis: int = 2) -> TecclMachine:
    """TE-CCL's two DGX-2 chassis (``teccl/topologies/dgx2.py`` builds two whatever its
    input says; ``chassis`` is what the algorithmic bandwidth counts).

    Examples
    --------
    >>> m = dgx2()
    >>> m.nodes, sorted(m.switches), len(m.links), (2, 18) in m.links
    (34, [0, 17], 80, True)
    """
    links: dict[tuple[int, int], TecclLink] = {}
    nvswitch = TecclLink(125, 1 * 0.35 * pow(10, -6))
    for c in range(2):
        for g in range(16):
            links[(17 * c, 17 * c + g + 1)] = nvswitch
            links[(17 * c + g + 1, 17 * c)] = nvswitch
    for c in range(2):
        for g in range(1, 16, 2):
            links[(17 * c + g + 1, 17 * (1 - c) + g)] = TecclLink(12.5, 2.6 * pow(10, -6))
    return TecclMachine(
        "DGX2", chassis, 34, frozenset({0, 17}), links, 16, 0.0, "teccl/topologies/dgx2.py"
    )


def amd(chassis: int, alpha: tuple[float, float] = (0.0, 0.0)) -> TecclMachine:
    """TE-CCL's MI250 machine (``teccl/topologies/amd.py``), alphas ``(link, switch)``.

    Examples
    --------
    >>> one, two = amd(1), amd(2)
    >>> one.nodes, len(one.links), two.nodes, sorted(two.switches)[:3]
    (16, 56, 49, [0, 16, 17])
    """
    gpu_link, switch_link = 50, 25.0
    if chassis == 1:
        links = {
            (i, j): TecclLink(gpu_link, alpha[0], weight=w)
            for i, row in _AMD.items()
            for j, w in row.items()
        }
        return TecclMachine(
            "AMD", 1, 16, frozenset(), links, 16, _min_alpha(links), "teccl/topologies/amd.py"
        )
    adjacency = {i: dict(row) for i, row in _AMD.items()}
    for i in range(8):
        adjacency[16 + i] = {2 * i: 1, 2 * i + 1: 1}
        adjacency[2 * i][16 + i] = 1
        adjacency[2 * i + 1][16 + i] = 1
    rates: dict[tuple[int, int], tuple[float, int]] = {}
    switches: list[int] = []
    for c in range(chassis):
        for i, row in adjacency.items():
            for j, w in row.items():
                gbps = switch_link if i > 16 or j > 16 else gpu_link
                rates[(24 * c + i + 1, 24 * c + j + 1)] = (gbps, w)
        switches.extend(24 * c + 16 + k for k in range(8))
    for s in switches:
        rates[(s, 0)] = rates[(0, s)] = (switch_link, 1)
    # TE-CCL gives a link the switch alpha when its capacity equals the switch links' one
    links = {
        pair: TecclLink(gbps, alpha[1] if (gbps, w) == (switch_link, 1) else alpha[0], weight=w)
        for pair, (gbps, w) in rates.items()
    }
    return TecclMachine(
        "AMD", chassis, 24 * chassis + 1, frozenset([*switches, 0]), links, 16,
        _min_alpha(links), "teccl/topologies/amd.py",
    )  # fmt: skip


def mesh(side: int, alpha: float = 0.0) -> TecclMachine:
    """TE-CCL's mesh of ``side^2`` nodes (``teccl/topologies/mesh.py``).

    Examples
    --------
    >>> m = mesh(4)
    >>> m.nodes, len(m.links), (3, 4) in m.links
    (16, 54, True)
    """
    n = side * side
    links = {
        (i, j): TecclLink(100, alpha)
        for i in range(n)
        for j in range(n)
        if j in (i - 1, i + 1, i - side, i + side)
    }
    return TecclMachine(
        "Mesh", 1, n, frozenset(), links, n, _min_alpha(links), "teccl/topologies/mesh.py"
    )


def dgx1(alpha: float = 0.0) -> TecclMachine:
    """TE-CCL's DGX-1 (``teccl/topologies/dgx1.py``).

    Examples
    --------
    >>> dgx1().links[(0, 1)].rate(1.0)
    50.0
    """
    links: dict[tuple[int, int], TecclLink] = {}
    for (u, v), w in _DGX1.items():
        links[(u, v)] = links[(v, u)] = TecclLink(25, alpha, weight=w)
    return TecclMachine(
        "DGX1", 1, 8, frozenset(), links, 8, _min_alpha(links), "teccl/topologies/dgx1.py"
    )


def _min_alpha(links: dict[tuple[int, int], TecclLink]) -> float:
    """TE-CCL's least alpha >= 0 when its matrix holds -1 where there is no link."""
    return min(link.alpha for link in links.values() if link.alpha >= 0)


MACHINE_NAMES = ("ndv2:K", "dgx2:2", "amd:K", "mesh:S", "dgx1")


def teccl_machine(spec: str, alpha: tuple[float, float] = (0.0, 0.0)) -> TecclMachine:
    """The machine of a spec: ``ndv2:K``, ``dgx2:2``, ``amd:K``, ``mesh:S`` or ``dgx1``
    (``alpha``: TE-CCL's input alphas ``(link, switch)``, used by ``amd``, ``mesh`` and
    ``dgx1``, whose code takes them from the input).

    Raises
    ------
    FormatError
        An unknown name or a bad count.

    Examples
    --------
    >>> teccl_machine("ndv2:4").nodes, teccl_machine("mesh:6").nodes
    (33, 36)
    """
    name, _, arg = spec.strip().lower().partition(":")
    if name == "dgx1" and not arg:
        return dgx1(alpha[0])
    try:
        count = int(arg)
    except ValueError:
        count = 0
    if name in ("ndv2", "amd") and 1 <= count <= 64:
        return ndv2(count) if name == "ndv2" else amd(count, alpha)
    if name == "dgx2" and count == 2:
        return dgx2(2)
    if name == "mesh" and 2 <= count <= 64:
        return mesh(count, alpha[0])
    raise FormatError(
        f"unknown TE-CCL machine {spec!r}; choose one of {', '.join(MACHINE_NAMES)} "
        "(K chassis, 1..64; S the mesh side, 2..64; TE-CCL builds DGX2 with 2 chassis only)"
    )
