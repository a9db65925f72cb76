"""TE-CCL's schedule files read, their machine and chunk size found, replayed in its model.

TE-CCL (``teccl solve``) writes one JSON object per run (``teccl/scheduler.py``): the epoch
("1-Epoch_Duration", and "2-Expected_Epoch_Duration" before the alpha stretch), the epochs
required ("3-Epochs_Required"), the finish time ("4-Collective_Finish_Time", seconds), the
algorithmic bandwidth ("5-Algo_Bandwidth", GB/s), the solver's seconds, and the schedule:

- **allgather** (``teccl/solvers/allgather.py``): "6-Demand_Met" ``{"GPU d": {"GPU s":
  {"Chunk c": t}}}``, ``t`` the time at whose end ``d`` holds chunk ``c`` of ``s``
  (the epoch times one more than the epoch); "7-Flows", ``"Chunk c from s traveled over
  u->v in epoch e"``, with ``" via switches w"`` when the chunk crossed switch ``w`` on its
  way (the switch sends it in the epoch it reaches it, which the line leaves out); and
  "8-Chunk paths", each demand's flows. Its A* solver writes "7-Flows" alone, one line a link.
- **alltoall** (``teccl/solvers/alltoall.py``): the paths of each demand's fractions,
  ``{"Demand at d for chunk c from s met by epoch k": [[[e, "u->v with volume x in epoch
  e ..."], ...], ...]}`` (one list a path), under "7-chunk paths" beside the flows
  "6-Flows", or under "8-Chunk paths" beside "7-Flows" (the DGX-2 files of TE-CCL's
  provided outputs). The flow lines repeat the paths' hops but merge equal lines, so the
  paths are what is replayed.

The file names neither the machine nor the chunk size. The machine is the one of
:mod:`.teccl_machines` whose GPUs are the file's and whose links carry every flow; the chunk
size is the algorithmic bandwidth times the finish time over ``node_per_chassis`` times the
chassis (TE-CCL's own formula backwards), taken as the nearest value ``size / d`` of TE-CCL's
example sizes (``teccl/examples/json_gen.py``: 1 KB to 1 GB, divided by a device count),
which is then exact. Either can be given instead.

References
----------
.. [1] github.com/microsoft/TE-CCL, ``teccl/scheduler.py``, ``teccl/solvers/allgather.py``,
   ``teccl/solvers/alltoall.py``, ``teccl/examples/json_gen.py``.
"""

from __future__ import annotations

import gzip
import itertools
import json
import math
import re
from dataclasses import dataclass, field
from typing import Any

from gossipcert.errors import FormatError
from gossipcert.formats.teccl_machines import (
    TecclMachine,
    amd,
    dgx1,
    dgx2,
    mesh,
    ndv2,
    teccl_machine,
)
from gossipcert.formats.teccl_model import EpochModel, explain_epoch
from gossipcert.formats.teccl_replay import EpochReplay, PathFlow, replay_allgather, replay_alltoall

__all__ = ["SIZES", "TecclSchedule", "parse_teccl_schedule", "read_teccl_schedule"]

#: TE-CCL's example sizes in GB (``json_gen.py``'s output_total_transmission_size)
SIZES = (1e-6, 4e-6, 16e-6, 64e-6, 256e-6, 1e-3, 4e-3, 16e-3, 64e-3, 256e-3, 1)
#: the most chunks a GPU's data may be cut into (a guard against absurd indices)
MAX_CHUNKS = 4096
#: the most nodes a file may name
MAX_NODE = 100_000
#: the most characters of JSON read (TE-CCL's largest provided output is 1.6 MB)
MAX_TEXT = 200_000_000

_NUM = r"(\d{1,9})"
_SWITCHES = r"(?: via switches (\d{1,9}(?: ?-> ?\d{1,9})*))?"
_FLOW = re.compile(
    rf"Chunk {_NUM} from {_NUM} traveled over {_NUM}->{_NUM}"
    rf"(?: with volume ([0-9]+(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?))? in epoch {_NUM}{_SWITCHES}"
)
_HOP = re.compile(
    rf"{_NUM}->{_NUM}(?: with volume ([0-9]+(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?))?"
    rf" in epoch {_NUM}{_SWITCHES}"
)
_DEMAND = re.compile(rf"Demand at {_NUM} for chunk {_NUM} from {_NUM} met by epoch {_NUM}")
_HEADER = (
    "1-Epoch_Duration", "2-Expected_Epoch_Duration", "3-Epochs_Required",
    "4-Collective_Finish_Time", "5-Algo_Bandwidth",
)  # fmt: skip


@dataclass
class TecclSchedule:
    """A TE-CCL schedule file, read.

    Attributes
    ----------
    collective : str
        ``allgather`` or ``alltoall``.
    model : EpochModel
        The machine, chunk size and epoch the schedule is replayed in.
    reported : dict
        The file's header numbers (keys of :data:`_HEADER`, and ``Solver_Time`` if given).
    epoch_rule : str or None
        Which TE-CCL rule gives the file's epoch (:func:`.teccl_model.explain_epoch`).
    chunk_inferred : bool
        Whether the chunk size was found from the file (not given).
    flows : list
        Allgather: ``(source, chunk, i, j, epoch)`` link flows.
    paths : list of PathFlow
        Alltoall: the paths.
    chunks : int
        Chunks of a GPU's data (allgather) or of the whole exchange (alltoall).
    demands : set
        ``(source, dest, chunk)``.
    recorded_met : dict
        Allgather: the epochs "6-Demand_Met" records per demand.
    origin : str
        ``TE-CCL``, or ``gossipcert`` for a schedule gossipcert wrote (a "gossipcert" key).
    """

    collective: str
    model: EpochModel
    reported: dict[str, float]
    epoch_rule: str | None
    chunk_inferred: bool
    gpus: list[int]
    flows: list[tuple[int, int, int, int, int]] = field(default_factory=list, repr=False)
    paths: list[PathFlow] = field(default_factory=list, repr=False)
    chunks: int = 1
    demands: set[tuple[int, int, int]] = field(default_factory=set, repr=False)
    recorded_met: dict[tuple[int, int, int], int] = field(default_factory=dict, repr=False)
    origin: str = "TE-CCL"

    @property
    def epochs(self) -> int:
        """The file's "3-Epochs_Required"."""
        return int(self.reported["3-Epochs_Required"])

    def replay(self) -> EpochReplay:
        """Replay in the file's model (:mod:`.teccl_replay`); a demand whose "6-Demand_Met"
        time differs from the replay's is a finding ``record``."""
        if self.collective == "allgather":
            rep = replay_allgather(self.model, self.flows, self.chunks, self.gpus)
            from gossipcert.formats.findings import Finding

            for key, epoch in sorted(self.recorded_met.items()):
                got = rep.met.get(key)
                if got is not None and got != epoch:
                    s, d, c = key
                    rep.findings.append(Finding(
                        "record", f"'6-Demand_Met' has chunk {c} of {s} at {d} by the end of "
                        f"epoch {epoch}; the replay has it by the end of epoch {got}", got, d,
                    ))  # fmt: skip
            return rep
        return replay_alltoall(self.model, self.paths, self.demands)


def _fail(path: str, message: str) -> FormatError:
    return FormatError(f"{path}: {message}")


def _number(data: dict[str, Any], key: str, path: str, positive: bool = True) -> float:
    value = data.get(key)
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise _fail(path, f"{key!r} must be a number, got {str(value)[:40]!r}")
    if value < 0 or (positive and value == 0):
        raise _fail(path, f"{key!r} must be {'positive' if positive else '>= 0'}, got {value!r}")
    return float(value)


def _int_key(text: Any, prefix: str, path: str, where: str) -> int:
    match = re.fullmatch(rf"{prefix} (\d{{1,9}})", str(text))
    if match is None:
        raise _fail(path, f"{where}: expected {prefix!r} and a number, got {str(text)[:40]!r}")
    return int(match.group(1))


def _switch_chain(text: str | None) -> list[int]:
    return [int(x) for x in re.split(r" ?-> ?", text)] if text else []


def _expand(
    model: EpochModel, u: int, v: int, epoch: int, chain: list[int], alltoall: bool
) -> list[tuple[int, int, int]]:
    """The link hops of ``u -> v in epoch e via switches ...``: each switch sends the chunk on
    in the epoch it can (TE-CCL's switches keep nothing)."""
    nodes = [u, *chain, v]
    hops = []
    k = epoch
    for a, b in itertools.pairwise(nodes):
        hops.append((a, b, k))
        if not model.link(a, b):
            break  # replayed as a flow over no link
        k += model.arrival_delay(a, b) + 1 if alltoall else model.held_after(a, b)
    return hops


def _candidates(gpus: set[int]) -> list[TecclMachine]:
    """The machines whose GPUs are ``gpus``."""
    top = max(gpus, default=0)
    found = []
    options = [ndv2(k) for k in range(1, 9)] + [dgx2(), dgx1()] + [amd(k) for k in (1, 2, 3, 4)]
    side = math.isqrt(top + 1)
    if side * side == top + 1 and side >= 2:
        options.append(mesh(side))
    for machine in options:
        if set(machine.gpus) == gpus:
            found.append(machine)
    return found


def _machine(
    gpus: set[int], links: set[tuple[int, int]], given: str | TecclMachine | None, path: str
) -> TecclMachine:
    if isinstance(given, TecclMachine):
        return given
    if given is not None:
        return teccl_machine(given)
    fits = [m for m in _candidates(gpus) if links <= set(m.links)]
    if len(fits) == 1:
        return fits[0]
    shown = f"{min(gpus)}..{max(gpus)}" if gpus else "none"
    if not fits:
        raise _fail(path, f"no TE-CCL machine has these {len(gpus)} GPUs ({shown}) and links; "
                          "name it (ndv2:K, dgx2:2, amd:K, mesh:S, dgx1)")  # fmt: skip
    names = ", ".join(m.spec for m in fits)
    raise _fail(path, f"the GPUs ({shown}) fit several TE-CCL machines ({names}); name one")


def _chunk_size(reported: dict[str, float], machine: TecclMachine) -> float:
    """TE-CCL's chunk size from its algorithmic bandwidth (module docstring)."""
    estimate = (
        reported["5-Algo_Bandwidth"]
        * reported["4-Collective_Finish_Time"]
        / (machine.node_per_chassis * machine.chassis)
    )
    best = min(
        (size / d for size in SIZES for d in range(1, 1025)),
        key=lambda x: abs(x - estimate),
    )
    if abs(best - estimate) <= 1e-9 * estimate:
        return best
    return estimate


def _allgather(data: dict[str, Any], path: str) -> tuple[dict[Any, float], set[int]]:
    """ "6-Demand_Met": (demand -> recorded epoch times, GPUs)."""
    demand = data["6-Demand_Met"]
    if not isinstance(demand, dict):
        raise _fail(path, '\'6-Demand_Met\' must be an object {"GPU d": {"GPU s": ...}}')
    times: dict[Any, float] = {}
    gpus: set[int] = set()
    for d_key, sources in demand.items():
        d = _int_key(d_key, "GPU", path, "'6-Demand_Met'")
        if not isinstance(sources, dict):
            raise _fail(path, f"'6-Demand_Met' of {d_key!r} must be an object, not "
                              f"{type(sources).__name__}")  # fmt: skip
        gpus.add(d)
        for s_key, pieces in sources.items():
            s = _int_key(s_key, "GPU", path, f"'6-Demand_Met' of {d_key}")
            if not isinstance(pieces, dict):
                raise _fail(path, f"'6-Demand_Met' of {d_key}, {s_key} must be an object, not "
                                  f"{type(pieces).__name__}")  # fmt: skip
            gpus.add(s)
            for c_key, t in pieces.items():
                c = _int_key(c_key, "Chunk", path, f"'6-Demand_Met' of {d_key}, {s_key}")
                if c >= MAX_CHUNKS:
                    raise _fail(path, f"chunk {c} in '6-Demand_Met': at most {MAX_CHUNKS} a GPU")
                if isinstance(t, bool) or not isinstance(t, int | float) or not t >= 0:
                    raise _fail(path, f"'6-Demand_Met' of {d_key}, {s_key}, {c_key} must be a "
                                      f"time >= 0, got {str(t)[:40]!r}")  # fmt: skip
                times[(s, d, c)] = float(t)
    if max(gpus, default=0) >= MAX_NODE:
        raise _fail(path, f"a GPU numbered {max(gpus)}: at most {MAX_NODE} nodes")
    return times, gpus


def _flow_lines(data: dict[str, Any], key: str, path: str) -> list[tuple[Any, ...]]:
    lines = data.get(key)
    if not isinstance(lines, list):
        raise _fail(path, f"{key!r} must be a list of strings")
    out = []
    for i, text in enumerate(lines):
        match = _FLOW.fullmatch(text) if isinstance(text, str) else None
        if match is None:
            raise _fail(path, f"{key}[{i}] is not 'Chunk c from s traveled over u->v in epoch e"
                              f" [via switches w]': {str(text)[:80]!r}")  # fmt: skip
        c, s, u, v, _, e, chain = match.groups()
        if int(c) >= MAX_CHUNKS or max(int(s), int(u), int(v)) >= MAX_NODE:
            raise _fail(path, f"{key}[{i}] names chunk {c} or a node beyond "
                              f"{MAX_CHUNKS} chunks and {MAX_NODE} nodes")  # fmt: skip
        out.append((int(c), int(s), int(u), int(v), int(e), _switch_chain(chain)))
    return out


def _paths(data: dict[str, Any], key: str, path: str) -> list[tuple[Any, ...]]:
    """An alltoall's paths: (s, d, c, volume, [(u, v, epoch, chain), ...])."""
    table = data.get(key)
    if not isinstance(table, dict):
        raise _fail(path, f"{key!r} must be an object of demands and their paths")
    out = []
    for name, multipaths in table.items():
        match = _DEMAND.fullmatch(str(name))
        if match is None:
            raise _fail(path, f"{key}: {str(name)[:60]!r} is not 'Demand at d for chunk c from s"
                              " met by epoch k'")  # fmt: skip
        d, c, s, _ = map(int, match.groups())
        if c >= MAX_CHUNKS * 64 or max(d, s) >= MAX_NODE:
            raise _fail(path, f"{key}: {name!r} names a chunk or node beyond the limits")
        if not isinstance(multipaths, list):
            raise _fail(path, f"{key}: the paths of {name!r} must be a list")
        for one in multipaths:
            hops, volumes = [], set()
            if not isinstance(one, list):
                raise _fail(path, f"{key}: a path of {name!r} must be a list of [epoch, hop]")
            for item in one:
                text = item[1] if isinstance(item, list) and len(item) == 2 else None
                hop = _HOP.fullmatch(text) if isinstance(text, str) else None
                if hop is None or hop.group(3) is None:
                    raise _fail(path, f"{key}: a hop of {name!r} is not [epoch, 'u->v with "
                                      f"volume x in epoch e']: {str(item)[:80]!r}")  # fmt: skip
                u, v, vol, e, chain = hop.groups()
                if max(int(u), int(v)) >= MAX_NODE:
                    raise _fail(path, f"{key}: a hop of {name!r} names node beyond {MAX_NODE}")
                volumes.add(float(vol))
                hops.append((int(u), int(v), int(e), _switch_chain(chain)))
            if len(volumes) > 1:
                raise _fail(path, f"{key}: a path of {name!r} carries different volumes")
            if hops:
                out.append((s, d, c, volumes.pop(), hops))
    return out


def parse_teccl_schedule(
    data: Any,
    path: str = "<json>",
    machine: str | TecclMachine | None = None,
    chunk: float | None = None,
    switch_copy: bool = True,
    switch_to_gpu_link_on: bool = False,
) -> TecclSchedule:
    """Read decoded TE-CCL schedule JSON (see :func:`read_teccl_schedule`)."""
    if not isinstance(data, dict) or not any(k in data for k in ("7-Flows", "6-Flows")):
        what = "not a TE-CCL schedule (no '7-Flows' or '6-Flows')"
        if isinstance(data, dict) and "TopologyParams" in data:
            what = "a TE-CCL input file (the parameters of a run), not the schedule it writes"
        elif isinstance(data, dict) and "capacity" in data:
            what = "a topology (a capacity matrix), not a TE-CCL schedule"
        elif isinstance(data, dict) and data.get("msccl_type", data.get("sccl_type")):
            what = "an SCCL/MSCCL object, not a TE-CCL schedule"
        raise _fail(path, what)
    reported = {k: _number(data, k, path) for k in _HEADER if k != "3-Epochs_Required"}
    epochs = data.get("3-Epochs_Required")
    if isinstance(epochs, bool) or not isinstance(epochs, int) or epochs < 0:
        raise _fail(path, f"'3-Epochs_Required' must be an integer >= 0, got {epochs!r}")
    reported["3-Epochs_Required"] = epochs
    if "Solver_Time" in data:
        reported["Solver_Time"] = _number(data, "Solver_Time", path, positive=False)
    epoch = reported["1-Epoch_Duration"]
    origin = "gossipcert" if "gossipcert" in data else "TE-CCL"
    if "6-Demand_Met" in data or ("7-Flows" in data and "8-Chunk paths" not in data
                                  and "6-Flows" not in data):  # fmt: skip
        got = _read_allgather(data, path, reported, machine, chunk, switch_copy,
                              switch_to_gpu_link_on)  # fmt: skip
        got.origin = origin
        return got
    key = "7-chunk paths" if "7-chunk paths" in data else "8-Chunk paths"
    if key not in data:
        raise _fail(path, "a TE-CCL alltoall schedule without its paths ('7-chunk paths' or "
                          "'8-Chunk paths'): its flow lines merge equal hops, so the paths are "
                          "needed to replay it")  # fmt: skip
    raw = _paths(data, key, path)
    gpus = {p[0] for p in raw} | {p[1] for p in raw}
    links = {(u, v) for p in raw for u, v, _, chain in p[4] for u, v in _pairs(u, v, chain)}
    m = _machine(gpus, links, machine, path)
    size = chunk if chunk is not None else _chunk_size(reported, m)
    model = EpochModel(m, size, epoch, switch_copy=switch_copy,
                       switch_to_gpu_link_on=switch_to_gpu_link_on)  # fmt: skip
    group = m.gpus
    rank = {g: r for r, g in enumerate(group)}
    # TE-CCL's chunk for d is d's rank among the GPUs, plus a multiple of their count
    per_pair = 1 + max((c for _, _, c, _, _ in raw), default=0) // len(group)
    demands = {(s, d, rank[d] + j * len(group)) for s in group for d in group if s != d
               for j in range(per_pair)}  # fmt: skip
    paths = []
    for s, d, c, volume, hops in raw:
        expanded: list[tuple[int, int, int]] = []
        for u, v, e, chain in hops:
            expanded.extend(_expand(model, u, v, e, chain, alltoall=True))
        paths.append(PathFlow(s, d, c, volume, tuple(expanded)))
    return TecclSchedule(
        "alltoall", model, reported, explain_epoch(m, size, epoch), chunk is None,
        group, paths=paths, chunks=per_pair * len(group), demands=demands, origin=origin,
    )  # fmt: skip


def _pairs(u: int, v: int, chain: list[int]) -> list[tuple[int, int]]:
    nodes = [u, *chain, v]
    return list(itertools.pairwise(nodes))


def _read_allgather(
    data: dict[str, Any],
    path: str,
    reported: dict[str, float],
    machine: str | TecclMachine | None,
    chunk: float | None,
    switch_copy: bool,
    switch_to_gpu_link_on: bool,
) -> TecclSchedule:
    lines = _flow_lines(data, "7-Flows", path)
    times, gpus = _allgather(data, path) if "6-Demand_Met" in data else ({}, set())
    if not times:
        gpus = {s for _, s, *_ in lines}
    links = {pair for _, _, u, v, _, chain in lines for pair in _pairs(u, v, chain)}
    m = _machine(gpus, links, machine, path)
    size = chunk if chunk is not None else _chunk_size(reported, m)
    epoch = reported["1-Epoch_Duration"]
    model = EpochModel(m, size, epoch, switch_copy=switch_copy,
                       switch_to_gpu_link_on=switch_to_gpu_link_on)  # fmt: skip
    chunks = 1 + max([c for *_, c in times] + [line[0] for line in lines], default=0)
    flows: list[tuple[int, int, int, int, int]] = []
    for c, s, u, v, e, chain in lines:
        if s not in m.gpus:
            raise _fail(path, f"a flow of chunk {c} from {s}, which is no GPU of {m.spec}")
        flows.extend((s, c, a, b, k) for a, b, k in _expand(model, u, v, e, chain, False))
    recorded = {}
    for key, t in times.items():
        k = round(t / epoch) - 1
        recorded[key] = k
    return TecclSchedule(
        "allgather", model, reported, explain_epoch(m, size, epoch), chunk is None,
        m.gpus, flows=flows, chunks=chunks, recorded_met=recorded,
    )  # fmt: skip


def read_teccl_schedule(
    path: str,
    machine: str | TecclMachine | None = None,
    chunk: float | None = None,
    switch_copy: bool = True,
    switch_to_gpu_link_on: bool = False,
) -> TecclSchedule:
    """Read a TE-CCL schedule file (module docstring).

    Parameters
    ----------
    path : str
    machine : str or TecclMachine, optional
        ``ndv2:K``, ``dgx2:2``, ``amd:K``, ``mesh:S`` or ``dgx1`` (default: found from the
        file's GPUs and links).
    chunk : float, optional
        The chunk size in GB (default: found from the file).
    switch_copy, switch_to_gpu_link_on : bool
        TE-CCL's switch options (its defaults; the file does not record them).

    Returns
    -------
    TecclSchedule

    Raises
    ------
    FormatError
        Not a TE-CCL schedule, malformed, or of no machine TE-CCL builds.
    """
    return parse_teccl_schedule(
        _load(path), path, machine, chunk, switch_copy, switch_to_gpu_link_on
    )


def _load(path: str) -> Any:
    """Decoded JSON of ``path`` (gzip-compressed when it ends in ``.gz``)."""
    try:
        if path.endswith(".gz"):
            with gzip.open(path, "rt", encoding="utf-8") as fh:
                text = fh.read(MAX_TEXT + 1)
        else:
            with open(path, encoding="utf-8") as fh:
                text = fh.read(MAX_TEXT + 1)
    except FileNotFoundError:
        raise FormatError(f"{path} does not exist") from None
    except (OSError, UnicodeDecodeError, EOFError) as exc:
        raise FormatError(f"cannot read {path}: {exc}") from None
    if len(text) > MAX_TEXT:
        raise FormatError(f"{path}: more than {MAX_TEXT // 10**6} MB of JSON")
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise FormatError(f"{path}:{exc.lineno}: invalid JSON: {exc.msg}") from None


def teccl_json(
    model: EpochModel,
    replay: EpochReplay,
    flows: list[tuple[int, int, int, int, int]] | None = None,
    paths: list[PathFlow] | None = None,
    note: str = "",
) -> dict[str, Any]:
    """A schedule in TE-CCL's own output format, which :func:`read_teccl_schedule` reads
    back (and TE-CCL's tools read): the header, then for an allgather "6-Demand_Met" and
    "7-Flows" with one line a link flow (a switch's flows written out), for an alltoall
    "6-Flows" and "7-chunk paths" (each path's hops written out). ``note`` goes under
    "gossipcert".

    Examples
    --------
    >>> from gossipcert.formats.teccl_machines import mesh
    >>> from gossipcert.formats.teccl_construct import greedy_allgather
    >>> m = EpochModel(mesh(2), chunk=1.0, epoch=0.01)
    >>> got = greedy_allgather(m)
    >>> data = teccl_json(m, got.replay, flows=got.flows)
    >>> again = parse_teccl_schedule(data)
    >>> again.epochs, again.replay().valid, again.model.machine.spec
    (2, True, 'mesh:2')
    """
    epochs = replay.epochs
    data: dict[str, Any] = {
        "1-Epoch_Duration": model.epoch,
        "2-Expected_Epoch_Duration": model.epoch,
        "3-Epochs_Required": epochs,
        "4-Collective_Finish_Time": model.finish_time(epochs),
        "5-Algo_Bandwidth": model.algo_bandwidth(epochs),
    }
    if flows is not None:
        met: dict[str, dict[str, dict[str, float]]] = {}
        for (s, d, c), k in sorted(replay.met.items()):
            met.setdefault(f"GPU {d}", {}).setdefault(f"GPU {s}", {})[f"Chunk {c}"] = (
                model.epoch * (k + 1)
            )
        data["6-Demand_Met"] = met
        data["7-Flows"] = [
            f"Chunk {c} from {s} traveled over {i}->{j} in epoch {k}"
            for s, c, i, j, k in sorted(set(flows), key=lambda f: (f[4], f))
        ]
    else:
        lines: list[str] = []
        table: dict[tuple[int, int, int], list[list[list[Any]]]] = {}
        for p in paths or []:
            hops = [[k, f"{i}->{j} with volume {p.volume!r} in epoch {k}"] for i, j, k in p.hops]
            lines += [f"Chunk {p.chunk} from {p.source} traveled over {h}" for _, h in hops]
            key = (p.dest, p.chunk, p.source)
            table.setdefault(key, []).append(hops)
        data["6-Flows"] = lines
        data["7-chunk paths"] = {
            f"Demand at {d} for chunk {c} from {s} met by epoch "
            f"{max(hop[0] for path in multi for hop in path)}": multi
            for (d, c, s), multi in sorted(table.items())
        }
    if note:
        data["gossipcert"] = note
    return data
