"""TE-CCL's machines and per-link epoch arithmetic, written for the tests from TE-CCL's own
code alone (microsoft/TE-CCL: ``teccl/topologies/{topology,ndv2,dgx2,mesh}.py``,
``teccl/solvers/base_formulation.py``, ``teccl/examples/json_gen.py``). It imports nothing
from gossipcert: it is half of the second, independent replay of TE-CCL's epoch model
(:mod:`tests.teccl_reference` is the other half).

What TE-CCL's code says, and this module reproduces float for float (the epoch counts of a
link are ``ceil``s of float quotients, so the same floats are computed the same way):

- a machine is a capacity matrix ``capacity[i][j]`` (chunks per second on the link
  ``i -> j``, 0 when there is none) and an alpha matrix (seconds), built from the link
  bandwidth in GB/s over the chunk size in GB;
- **NDv2** (``ndv2.py``): 8 GPUs a chassis in a hybrid cube-mesh of NVLinks of 50 GB/s
  (beta 23 us/MB) and 25 GB/s (beta 46), alpha 0.7 us; InfiniBand 12.5 GB/s (beta 107),
  alpha 1.3 us. Two chassis: a fixed 16 x 16 matrix with the directed links 8 -> 1 and
  0 -> 9, and ``set_switch_indicies`` makes node 0 a switch (``chassis > 1``), so GPU 0 holds
  and wants nothing. One chassis: node 0 is a switch too. More chassis: node 0 is a switch,
  GPU ``k`` of chassis ``i`` is node ``8 i + k + 1``; GPU 0 of each chassis sends to the
  switch, the switch sends to GPU 1 of each chassis (the matrix is built with the switch's
  row and column swapped, then transposed);
- **DGX2** (``dgx2.py``, always 2 chassis): node ``17 i`` is chassis ``i``'s NVSwitch, linked
  both ways to its 16 GPUs at 125 GB/s, alpha 0.35 us; GPU ``2m+1`` of one chassis (local
  index) sends to GPU ``2m`` of the other over InfiniBand at 12.5 GB/s, alpha 2.6 us;
- **Mesh** (``mesh.py``): ``side**2`` nodes, ``i`` and ``j`` linked when ``|i - j|`` is 1 or
  ``side`` (so the end of a row is linked to the start of the next), 100 GB/s, alpha the
  input's ``alpha[0]``, no switch;
- the epoch is one chunk over the fastest link (``FASTEST_LINK``, "Fast") or the slowest
  (``SLOWEST_LINK``, "Slow"), times ``epoch_multiplier``; raised to ``min alpha / 200`` when
  the smallest alpha is more than 200 epochs (``alpha_check``);
- a link's alpha is ``ceil(alpha / epoch)`` epochs when ``alpha / epoch > 0.1``, else 0
  (``get_alpha_num_back``); its capacity per epoch is ``capacity * epoch`` chunks and a chunk
  takes ``max(0, ceil(1 / that) - 1)`` extra epochs on it (``get_beta_num_back``);
- the experiments' chunk is the total size over the GPUs (``json_gen.py``:
  ``output_tts / (chassis * nodes_in_chassis)``; its DGX2 early-stop inputs pass 8 GPUs a
  chassis, so their chunk is twice the others').
"""

from __future__ import annotations

import math
from dataclasses import dataclass

# NDv2's single chassis: (GPU, GPU, beta in us/MB) of each NVLink, both ways.
_NDV2_NVLINKS = (
    (0, 1, 23), (0, 2, 46), (0, 3, 46), (0, 4, 23), (1, 2, 46), (1, 3, 23), (1, 5, 46),
    (2, 3, 23), (2, 6, 23), (3, 7, 46), (4, 5, 23), (4, 6, 46), (4, 7, 46), (5, 6, 46),
    (5, 7, 23), (6, 7, 23),
)  # fmt: skip
_IB = 107  # NDv2's InfiniBand beta (us/MB)

SIZES = {
    "1KB": 1e-6, "4KB": 4e-6, "16KB": 16e-6, "64KB": 64e-6, "256KB": 256e-6, "1MB": 1e-3,
    "4MB": 4e-3, "16MB": 16e-3, "64MB": 64e-3, "256MB": 256e-3, "1GB": 1,
}  # fmt: skip
"""json_gen.py's collective sizes (GB) by the names of its files."""


@dataclass(frozen=True)
class Machine:
    """A TE-CCL topology object's data: ``capacity[i][j]`` in chunks per second, ``alpha``
    in seconds (-1 or 0 where there is no link, as TE-CCL writes them), the switches, the
    chunk size (GB) and ``node_per_chassis * chassis``, the factor of the algorithmic
    bandwidth."""

    name: str
    chassis: int
    chunk_size: float
    capacity: tuple[tuple[float, ...], ...]
    alpha: tuple[tuple[float, ...], ...]
    switches: frozenset[int]
    node_per_chassis: int

    @property
    def n(self) -> int:
        return len(self.capacity)

    def links(self) -> list[tuple[int, int]]:
        return [(i, j) for i in range(self.n) for j in range(self.n) if self.capacity[i][j] > 0]

    def gpus(self) -> list[int]:
        """The nodes that hold and want data (every node but the switches)."""
        return [v for v in range(self.n) if v not in self.switches]

    def fast_epoch(self) -> float:
        """``get_epoch_duration_fast_link``: one chunk over the fastest link."""
        return 1.0 / max(max(x for x in row if x != 0) for row in self.capacity)

    def slow_epoch(self) -> float:
        """``get_epoch_duration_slow_link``: one chunk over the slowest link."""
        return 1.0 / min(min(x for x in row if x != 0) for row in self.capacity)

    def epoch(self, kind: str, multiplier: int = 1, ratio_max: float = 200) -> float:
        """``set_epoch_duration`` for ``kind`` "fast" or "slow", with ``alpha_check``."""
        base = self.fast_epoch() if kind == "fast" else self.slow_epoch()
        duration = base * multiplier
        min_alpha = min(min(x for x in row if x >= 0) for row in self.alpha)
        if min_alpha / duration > ratio_max:
            duration = min_alpha / ratio_max
        return duration


def _ndv2_beta_capacity(beta: int, chunk: float) -> float:
    # ndv2.py's conversion_map (its last assignment of each key wins)
    return {0: 0, 23: 50 / chunk, 46: 50 / (2 * chunk), _IB: 12.5 / chunk}[beta]


def _ndv2_chassis_rows() -> list[list[int]]:
    rows = [[0] * 8 for _ in range(8)]
    for i, j, beta in _NDV2_NVLINKS:
        rows[i][j] = rows[j][i] = beta
    return rows


def ndv2(chassis: int, chunk: float) -> Machine:
    """TE-CCL's ``NDv2`` topology (``teccl/topologies/ndv2.py``) at ``chunk`` GB."""
    block = _ndv2_chassis_rows()
    if chassis == 2:
        n = 16
        pre = [[0] * n for _ in range(n)]
        for base in (0, 8):
            for i in range(8):
                for j in range(8):
                    pre[base + i][base + j] = block[i][j]
        pre[1][8] = _IB  # transposed below: the link 8 -> 1
        pre[9][0] = _IB  # the link 0 -> 9
    else:
        n = 8 * chassis + 1
        pre = [[0] * n]  # row 0: the switch
        for i in range(chassis):
            for row in block:
                cap = [0] * (8 * chassis)
                for k in range(8):
                    cap[8 * i + k] = row[k]
                pre.append([0, *cap])
        for i in range(chassis):
            pre[0][i * 8 + 1] = _IB
            pre[i * 8 + 2][0] = _IB
    betas = [list(r) for r in zip(*pre, strict=True)]  # TE-CCL transposes the matrix
    capacity = tuple(tuple(_ndv2_beta_capacity(b, chunk) for b in row) for row in betas)
    alpha = tuple(
        tuple((1.3 * pow(10, -6) if b == _IB else 0.7 * pow(10, -6)) if b else -1 for b in row)
        for row in betas
    )
    return Machine("NDv2", chassis, chunk, capacity, alpha, frozenset({0}), 8)


def dgx2(chunk: float) -> Machine:
    """TE-CCL's ``DGX2`` topology (``teccl/topologies/dgx2.py``; always 2 chassis)."""
    chassis, n = 2, 34
    topo = [[0] * n for _ in range(n)]
    for i in range(chassis):
        sw = 17 * i
        for g in range(1, 17):
            topo[sw][sw + g] = topo[sw + g][sw] = 1
    link = 125 / chunk
    capacity = [[x * link for x in row] for row in topo]
    alpha = [[x * 0.35 * pow(10, -6) for x in row] for row in topo]
    for i in range(chassis):
        for j in range(chassis):
            if i == j:
                continue
            for s in range(1, 16, 2):
                src, dst = s + i * 17 + 1, s - 1 + j * 17 + 1
                capacity[src][dst] = 12.5 / chunk
                alpha[src][dst] = 2.6 * pow(10, -6)
    return Machine(
        "DGX2",
        chassis,
        chunk,
        tuple(map(tuple, capacity)),
        tuple(map(tuple, alpha)),
        frozenset({0, 17}),
        16,
    )


def mesh(side: int, chunk: float, alpha: float = 0.0) -> Machine:
    """TE-CCL's ``Mesh`` topology (``teccl/topologies/mesh.py``)."""
    n = side * side
    speed = 100 / chunk
    capacity = tuple(
        tuple(speed if abs(i - j) == 1 or abs(i - j) == side else 0 for j in range(n))
        for i in range(n)
    )
    alphas = tuple(tuple(alpha if c else -1 for c in row) for row in capacity)
    return Machine("Mesh", 1, chunk, capacity, alphas, frozenset(), n)


def machine(name: str, chassis: int, chunk: float, side: int = 4, alpha: float = 0.0) -> Machine:
    """The machine TE-CCL builds for ``TopologyParams(name, chassis, chunk_size, ...)``."""
    if name == "NDv2":
        return ndv2(chassis, chunk)
    if name == "DGX2":
        return dgx2(chunk)
    if name == "Mesh":
        return mesh(side, chunk, alpha)
    raise ValueError(f"no TE-CCL machine {name!r} in this reference (NDv2, DGX2, Mesh)")


@dataclass(frozen=True)
class LinkEpochs:
    """One link in one epoch duration: ``alpha`` and ``beta`` extra epochs
    (``get_alpha_num_back``, ``get_beta_num_back``) and the chunks it carries an epoch."""

    alpha: int
    beta: int
    per_epoch: float


def link_epochs(
    m: Machine, epoch: float, threshold: float = 0.1
) -> dict[tuple[int, int], LinkEpochs]:
    """Every link's epochs at ``epoch`` seconds, as ``base_formulation.py`` computes them."""
    out = {}
    for i, j in m.links():
        a = m.alpha[i][j]
        alpha = math.ceil(a / epoch) if (a / epoch) > threshold else 0
        per_epoch = m.capacity[i][j] * epoch
        beta = max(0, math.ceil(1 / per_epoch) - 1)
        out[(i, j)] = LinkEpochs(alpha, beta, per_epoch)
    return out


def allgather_demand(m: Machine, chunks: int = 1) -> set[tuple[int, int, int]]:
    """``all_gather_demand_generator``: (source, destination, chunk) for every ordered pair
    of distinct GPUs (switches neither send nor want)."""
    g = m.gpus()
    return {(s, t, c) for s in g for t in g if s != t for c in range(chunks)}


def alltoall_chunk_of(m: Machine) -> dict[int, int]:
    """``all_to_all_demand_generator``'s ``device_chunk_map``: the index of each GPU; with
    ``num_chunks`` per pair, chunk ``index(t) + c * gpus`` of ``s`` is for ``t``."""
    return {v: i for i, v in enumerate(m.gpus())}


def alltoall_demand(m: Machine, chunks: int = 1) -> set[tuple[int, int, int]]:
    """(source, destination, chunk) of TE-CCL's AlltoAll with ``chunks`` per pair (the solver
    multiplies ``num_chunks`` by the GPU count: ``TECCLSolver.get_solver``)."""
    index = alltoall_chunk_of(m)
    g = m.gpus()
    return {(s, t, index[t] + c * len(g)) for s in g for t in g if s != t for c in range(chunks)}


def experiment_machine(path_parts: list[str]) -> tuple[Machine, str]:
    """The machine and epoch kind of one of TE-CCL's published experiment outputs, from its
    path under ``output_provided`` (``NDv2_output/2_chassis/AllGather/Fast/1KB.json``): the
    chunk as ``json_gen.py`` computes it. Raises ``ValueError`` for other paths."""
    try:
        top, chassis_dir, _collective, epoch_dir, size_file = path_parts[-5:]
        name = top.split("_")[0]
        chassis = int(chassis_dir.split("_")[0])
        size = SIZES[size_file.removesuffix(".gz").removesuffix(".json")]
    except (ValueError, KeyError) as exc:
        raise ValueError(f"not a TE-CCL experiment path: {'/'.join(path_parts)}") from exc
    per_chassis = {"NDv2": 8, "DGX2": 16}[name]
    if name == "DGX2" and epoch_dir == "Fast_Early_Stop":
        per_chassis = 8  # json_gen.py passes 8 GPUs a chassis for DGX2's early-stop inputs
    chunk = size / (chassis * per_chassis)
    return machine(name, chassis, chunk), ("slow" if epoch_dir == "Slow" else "fast")
