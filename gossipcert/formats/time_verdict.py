"""An algorithm's time at message sizes on a machine, beside a certified lower bound.

:func:`time_algorithm` reads an algorithm file (MSCCL XML, SCCL or TE-CCL JSON), places its
ranks on a machine (:func:`gossipcert.timed.machine.machine_of`: links with bandwidth and
latency, routes over real links for pairs of ranks no link joins) and, at each size:

- **time**: the algorithm simulated on the machine (:func:`gossipcert.timed.simulate.
  simulate`): MSCCL steps keep their thread block order, dependencies and channels, and
  the executor's passes over slices of the buffer (:mod:`gossipcert.formats.msccl_ops`);
  SCCL and TE-CCL moves wait for the data they send (:mod:`gossipcert.timed.ops`);
- **bound**: the largest of the latency part and the bandwidth part
  (:mod:`gossipcert.timed.bound`), and of the round model's certified optimum at the file's
  chunk count when it bounds this run (:mod:`gossipcert.timed.discrete`: one pass over
  whole chunks, no cut-through switch), with the part that binds;
- **ratio**: time over bound (1 would be optimal; above 1, the algorithm leaves that much
  on the table, or the bound is not tight);
- **schedule**: the round model's best schedule at the same chunk count (certified optimal
  when the search says so) run on the same machine: what a schedule of whole chunks can do.

Only a valid algorithm is timed (an invalid one computes something else). Pairs of ranks
that no link joins are listed with their route; the file is never run on a machine with
more bandwidth than the one named.
"""

from __future__ import annotations

import time
from collections.abc import Hashable
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, cast

import networkx as nx

from gossipcert.errors import FormatError, GossipcertError
from gossipcert.formats import readers
from gossipcert.formats.msccl_ops import MscclOps, msccl_ops
from gossipcert.formats.readers import Loaded
from gossipcert.formats.verdict import (
    FORMATS,
    MACHINES_HELP,
    Verdict,
    assess,
    problem_spec,
    topology_graph,
)
from gossipcert.timed.bound import (
    COLLECTIVES,
    BandwidthBound,
    bandwidth_bound,
    latency_bound,
    required_pairs,
)
from gossipcert.timed.discrete import DiscreteBound, discrete_bound
from gossipcert.timed.machine import Machine, machine_of
from gossipcert.timed.ops import ops_from_moves, ops_from_schedule
from gossipcert.timed.simulate import Op, Run, simulate
from gossipcert.timed.sizes import default_sizes, format_size, parse_sizes

__all__ = ["TimeReport", "TimeRow", "time_algorithm", "time_loaded", "verify_and_time"]

#: collectives whose ``K`` counts each rank's chunks (the message is ``N K`` chunks)
_PER_RANK = ("allgather", "alltoall", "reducescatter")


@dataclass
class TimeRow:
    """One size: the algorithm's time, the bound's parts and the ratio."""

    size: float
    time: float | None
    passes: int
    extrapolated: bool
    latency: float
    bandwidth: float
    discrete: float | None
    discrete_applies: bool
    schedule_time: float | None = None
    #: the busiest link's work in the run (its bytes over its bandwidth)
    busiest_link: float | None = None

    @property
    def bound(self) -> float:
        parts = [self.latency, self.bandwidth]
        if self.discrete is not None and self.discrete_applies:
            parts.append(self.discrete)
        return max(parts)

    @property
    def binds(self) -> str:
        """The part equal to the bound (on a tie: bandwidth, then latency, then discrete)."""
        best = self.bound
        if self.bandwidth >= best:
            return "bandwidth"
        return "latency" if self.latency >= best else "discrete"

    @property
    def ratio(self) -> float | None:
        if self.time is None or self.bound <= 0:
            return None
        return self.time / self.bound

    def to_json(self) -> dict[str, Any]:
        return {
            "size": self.size,
            "time": self.time,
            "passes": self.passes,
            "extrapolated": self.extrapolated,
            "bound": self.bound,
            "binds": self.binds,
            "ratio": self.ratio,
            "latency_part": self.latency,
            "bandwidth_part": self.bandwidth,
            "discrete_part": self.discrete,
            "discrete_part_bounds_this_run": self.discrete_applies,
            "schedule_time": self.schedule_time,
            "busiest_link_work": self.busiest_link,
        }


@dataclass
class TimeReport:
    """What :func:`time_algorithm` found (see :meth:`to_json` for the fields).

    Attributes
    ----------
    collective : str
    ranks : int
    machine : Machine
        The machine the ranks run on (its units, routes and switch semantics).
    rows : list of TimeRow
        One per size: time, bound and its parts, ratio, passes, the round model's schedule.
    latency_detail : str
        The pair whose latency binds the latency part.
    bandwidth : BandwidthBound
        The bandwidth part, seconds per byte, and the cut or count that gives it.
    discrete : DiscreteBound
        The round model's optimum at the file's chunk count.
    protocol, wire, slice_bytes
        An MSCCL file's protocol, its wire bytes per data byte and the executor's slice.
    routed : dict
        ``(src, dst) -> route`` for the pairs of ranks no link joins.
    reason : str or None
        Why the algorithm was not timed (an invalid one), None when it was.
    notes : list of str
    seconds : dict
        Seconds spent on each part.
    """

    collective: str
    ranks: int
    machine: Machine
    rows: list[TimeRow]
    latency_detail: str
    bandwidth: BandwidthBound
    discrete: DiscreteBound
    protocol: str | None = None
    wire: float = 1.0
    slice_bytes: int | None = None
    routed: dict[tuple[int, int], tuple[int, ...]] = field(default_factory=dict)
    reason: str | None = None
    notes: list[str] = field(default_factory=list)
    seconds: dict[str, float] = field(default_factory=dict)

    @property
    def units(self) -> bool:
        """Whether sizes are bytes and times seconds (else data and time units)."""
        return self.machine.units is None

    def to_json(self) -> dict[str, Any]:
        return {
            "machine": self.machine.name,
            "units": "bytes and seconds" if self.units else self.machine.units,
            "machine_note": self.machine.describe(),
            "switch": self.machine.switch,
            "collective": self.collective,
            "ranks": self.ranks,
            "protocol": self.protocol,
            "wire_bytes_per_data_byte": self.wire,
            "slice_bytes": self.slice_bytes,
            "timed": self.reason is None,
            "reason": self.reason,
            "routed": [
                {"from": s, "to": d, "route": list(path)}
                for (s, d), path in sorted(self.routed.items())
            ],
            "latency_part": self.latency_detail,
            "bandwidth_part": {
                "seconds_per_byte": float(self.bandwidth.per_byte),
                "exact": str(self.bandwidth.per_byte),
                "detail": self.bandwidth.detail,
                **self.bandwidth.evidence,
            },
            "discrete_part": self.discrete.to_json(),
            "sizes": [row.to_json() for row in self.rows],
            "notes": self.notes,
            "seconds": {k: round(v, 3) for k, v in self.seconds.items()},
        }


def _chunks(loaded: Loaded) -> int:
    """``C``: chunks of the whole message (the unit the round model counts)."""
    if loaded.algo is not None:
        return loaded.algo.nchunksperloop
    k = loaded.replay.chunks_per_rank
    return k * loaded.ranks if loaded.collective in _PER_RANK else k


def _key(item: Hashable, reduction: bool) -> Hashable:
    """What a payload item waits for: its chunk (a reduction's ``(rank, chunk)``), else the
    item itself."""
    return cast(tuple[int, int], item)[1] if reduction else item


def _moves_ops(loaded: Loaded) -> list[Op]:
    reduction = loaded.collective in ("allreduce", "reducescatter", "reduce")
    moves = []
    for tr in loaded.replay.transfers:
        keys = frozenset(_key(item, reduction) for value in tr.payload for item in value)
        moves.append((tr.round, tr.sender, tr.receiver, float(tr.cnt), keys))
    return ops_from_moves(moves)


def _schedule_time(
    machine: Machine, discrete: DiscreteBound, size: float
) -> tuple[list[Op], float] | None:
    """The best round schedule's ops and bytes a chunk (None: none, or it uses a router)."""
    if discrete.schedule is None:
        return None
    index = {node: r for r, node in enumerate(machine.ranks)}
    try:
        ops = ops_from_schedule(discrete.schedule, index)
    except (KeyError, GossipcertError):
        return None
    return ops, size / discrete.chunks


def _program(loaded: Loaded) -> tuple[MscclOps | None, list[Op], str | None]:
    """The ops to simulate (an MSCCL file's, with its passes), or why there are none."""
    if not loaded.replay.valid:
        return None, [], "not timed: the algorithm is invalid (it does not compute its collective)"
    try:
        if loaded.algo is not None:
            program = msccl_ops(loaded.algo)
            return program, program.ops, None
        return None, _moves_ops(loaded), None
    except GossipcertError as exc:
        return None, [], f"not timed: {exc}"


def _notes(program: MscclOps | None, units: bool, rows: list[TimeRow]) -> list[str]:
    notes = []
    if program is not None and units:
        if program.wire != 1.0:
            notes.append(
                f"protocol {program.protocol}: the wire carries {program.wire:g} bytes a data "
                "byte (flags with the data); the bound counts data bytes"
            )
        notes.append(
            f"the executor runs the file in passes of {format_size(program.slice_bytes)} of "
            f"every chunk ({program.protocol}, NCCL's default buffer): a pass count above 1 "
            "pipelines the chunks, and the discrete part no longer bounds the run"
        )
    if any(r.extrapolated for r in rows):
        notes.append(
            "extrapolated: past the simulated passes the time grows by the steady period "
            "(measured over the second half of them, and no less than the busiest link's work)"
        )
    return notes


def time_loaded(
    loaded: Loaded,
    graph: nx.Graph,
    sizes: list[float] | None = None,
    *,
    alpha: float | None = None,
    bandwidth: float | None = None,
    switch: str = "cut-through",
    time_limit: float | None = 60.0,
    discrete: bool = True,
) -> TimeReport:
    """:func:`time_algorithm` on a file already read (``loaded``) and a topology graph."""
    clock = time.monotonic()
    machine = machine_of(graph, loaded.ranks, alpha=alpha, bandwidth=bandwidth, switch=switch)
    units = machine.units is None
    coll, algo, chunks = loaded.collective, loaded.algo, _chunks(loaded)
    if sizes is None:
        low, high = (algo.min_bytes, algo.max_bytes) if algo is not None else (None, None)
        sizes = default_sizes(low, high, chunks)
    program, ops, reason = _program(loaded)
    lat_value, lat_detail = latency_bound(machine, required_pairs(coll, loaded.ranks, loaded.root))
    if coll in COLLECTIVES:
        bw = bandwidth_bound(machine, coll, loaded.root)
    else:
        bw = BandwidthBound(Fraction(0), f"no bandwidth bound for {coll}")
    bounds_done = time.monotonic()
    spec = problem_spec(coll, loaded.replay.chunks_per_rank, loaded.ranks, loaded.root)
    if discrete:
        found = discrete_bound(machine, spec, chunks, time_limit)
    else:
        found = DiscreteBound(chunks, False, "not asked")
    solved = time.monotonic()
    rows: list[TimeRow] = []
    routed: dict[tuple[int, int], tuple[int, ...]] = {}
    for size in sizes:
        run: Run | None = None
        passes = program.passes(size, units) if program is not None else 1
        if reason is None:
            if program is not None:
                unit = program.unit(size, units)
                run = simulate(machine, ops, unit=unit, iterations=passes, carry=program.carry)
            else:
                run = simulate(machine, ops, unit=size / chunks)
            routed.update({k: r.nodes for k, r in run.routed.items()})
        sched = _schedule_time(machine, found, size)
        rows.append(
            TimeRow(
                size,
                None if run is None else run.time,
                passes,
                bool(run and run.extrapolated),
                lat_value,
                float(bw.per_byte) * size,
                found.time(size),
                passes == 1 and found.available,
                simulate(machine, sched[0], unit=sched[1]).time if sched else None,
                None if run is None else run.busiest,
            )
        )
    return TimeReport(
        coll,
        loaded.ranks,
        machine,
        rows,
        lat_detail,
        bw,
        found,
        None if program is None else program.protocol,
        1.0 if program is None or not units else program.wire,
        None if program is None or not units else program.slice_bytes,
        routed,
        reason,
        _notes(program, units, rows),
        {
            "bounds": bounds_done - clock,
            "discrete": solved - bounds_done,
            "simulate": time.monotonic() - solved,
        },
    )


def time_algorithm(
    path: str,
    fmt: str = "msccl-xml",
    topology: str | nx.Graph | None = None,
    sizes: str | list[float] | None = None,
    *,
    alpha: float | None = None,
    bandwidth: float | None = None,
    switch: str = "cut-through",
    time_limit: float | None = 60.0,
    discrete: bool = True,
) -> TimeReport:
    """Time another tool's algorithm on a machine at message sizes, beside a certified
    lower bound (see the module docstring).

    Parameters
    ----------
    path : str
        The algorithm file.
    fmt : {"msccl-xml", "sccl-json", "teccl-json"}
    topology : str or networkx.Graph
        The machine: a spec (``dgx1``, ``ndv2:2``, ``a100:2``, ``mi250:1``, ``mi300x``,
        ``ring:8``...) or a topology file; required unless the file carries its own.
    sizes : str or list of float, optional
        Message sizes in bytes (``"1K,1M"``; see :mod:`gossipcert.timed.sizes`); default
        across the file's ``minBytes..maxBytes``.
    alpha : float, optional
        Latency of every link (seconds; time units on a graph without physical units).
    bandwidth : float, optional
        Data units per time unit of a capacity-1 link (graphs without units only).
    switch : {"cut-through", "store-and-forward"}
        How switches forward (:mod:`gossipcert.timed.machine`).
    time_limit : float, optional
        Seconds for the round model's optimum (the discrete part).
    discrete : bool
        Whether to seek the discrete part at all.

    Returns
    -------
    TimeReport

    Raises
    ------
    FormatError
        An unreadable file, no topology, or a topology whose GPUs are not the file's ranks.
    SpecError
        A size, latency or bandwidth that is not a positive number.

    Examples
    --------
    A one-way ring allreduce on a ring of 8 without units takes twice the bound (it leaves
    one direction of every link idle):

    >>> import pathlib, tempfile
    >>> from gossipcert.formats.msccl_examples import ring_allreduce_xml
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     target = pathlib.Path(folder) / "ring.xml"
    ...     _ = target.write_text(ring_allreduce_xml(8))
    ...     report = time_algorithm(str(target), topology="ring:8", sizes="8M", discrete=False)
    >>> row = report.rows[0]
    >>> row.time / 2**20, row.bound / 2**20, row.binds, row.ratio
    (14.0, 7.0, 'bandwidth', 2.0)
    """
    loaded = readers.load(path, fmt)
    graph = _machine_graph(topology, loaded)
    parsed = None if sizes is None else parse_sizes(sizes)
    return time_loaded(
        loaded,
        graph,
        parsed,
        alpha=alpha,
        bandwidth=bandwidth,
        switch=switch,
        time_limit=time_limit,
        discrete=discrete,
    )


def _machine_graph(topology: str | nx.Graph | None, loaded: Loaded) -> nx.Graph:
    if topology is None and loaded.topology is None:
        raise FormatError(f"name the machine with --topology: {MACHINES_HELP}")
    return topology_graph(topology if topology is not None else loaded.topology, loaded.ranks)


def verify_and_time(
    path: str,
    fmt: str = "msccl-xml",
    topology: str | nx.Graph | None = None,
    time_limit: float | None = 60.0,
    sizes: str | list[float] | None = None,
    *,
    alpha: float | None = None,
    bandwidth: float | None = None,
    switch: str = "cut-through",
    model: str | None = None,
) -> Verdict:
    """:func:`~gossipcert.formats.verdict.verify_algorithm` (its ``model`` included) and
    :func:`time_algorithm` on one reading of the file: the verdict, with its
    :attr:`~gossipcert.formats.verdict.Verdict.time` set (what ``verify --from`` prints).

    Raises
    ------
    FormatError, SpecError
        As the two functions do.
    """
    if fmt not in FORMATS:
        raise FormatError(f"unknown format {fmt!r}; choose one of {', '.join(FORMATS)}")
    parsed = None if sizes is None else parse_sizes(sizes)
    start = time.monotonic()
    loaded = readers.load(path, fmt)
    read = time.monotonic() - start
    graph = _machine_graph(topology, loaded)
    machine_of(graph, loaded.ranks, alpha=alpha, bandwidth=bandwidth, switch=switch)  # checks
    verdict = assess(
        loaded.replay,
        source=path,
        fmt=fmt,
        collective=loaded.collective,
        ranks=loaded.ranks,
        steps=loaded.steps,
        topology=graph,
        time_limit=time_limit,
        root=loaded.root,
        model=model,
    )
    verdict.seconds["read"] = read
    verdict.time = time_loaded(
        loaded,
        graph,
        parsed,
        alpha=alpha,
        bandwidth=bandwidth,
        switch=switch,
        time_limit=time_limit,
    )
    return verdict
