"""A second, independent replay of TE-CCL's epoch model, written for the tests from TE-CCL's
code alone (microsoft/TE-CCL: ``teccl/solvers/base_formulation.py``, ``allgather.py``,
``alltoall.py``, ``teccl/scheduler.py``; the machines in :mod:`tests.teccl_reference_machines`).
It imports nothing from gossipcert, so that a verdict on a TE-CCL file that both replays give
rests on two readings of TE-CCL's code that share no line.

TE-CCL writes a schedule as JSON: ``1-Epoch_Duration`` (s), ``3-Epochs_Required``,
``4-Collective_Finish_Time`` (= epoch x epochs), ``5-Algo_Bandwidth`` (= ``node_per_chassis x
chunk x chassis / finish``), and ``7-Flows`` (``6-Flows`` in older AlltoAll files), one string
a flow: ``Chunk c from s traveled over i->j in epoch k`` (AllGather) or ``... with volume v in
epoch k`` (AlltoAll), with ``via switches w`` when the hop ``i -> w -> j`` crosses a switch
(only the first hop's epoch is written). AllGather files add ``6-Demand_Met`` (destination,
source, chunk: ``epoch x (met + 1)``) and ``8-Chunk paths`` (``... met by epoch k``).

**AllGather** (``AllGatherFormulation``, a MILP): flows are 0/1 per (source, chunk, link,
epoch); a GPU's buffer of a chunk is 0/1.

- a flow on ``i -> j`` sent in epoch ``k`` is in ``j``'s buffer at the start of epoch
  ``k + alpha + beta + 1``, or of ``k + alpha`` when ``i`` is a switch and
  ``switch_to_gpu_link_on`` is off (the switch-to-GPU hop is instantaneous);
- a GPU sends in epoch ``k`` only a chunk in its buffer at the start of ``k`` (its own, or one
  that arrived), to any number of neighbours (it copies);
- a switch keeps nothing: it sends in epoch ``k`` only what arrived for ``k``, i.e. a flow
  into it sent in ``k - alpha - beta - 1``; with ``switch_copy`` one arrival feeds every
  outgoing link, without it one arrival feeds one;
- no flow carries a chunk into its own source; a GPU receives each chunk at most once
  (its buffer is 0/1 and only grows by arrivals);
- a link's flows in any ``beta + 1`` consecutive epochs number at most
  ``(beta + 1) x capacity x epoch``;
- demand ``(s, d, c)`` is met in epoch ``buffer start - 1`` (``total_demand_sat[k] ==
  buffer[k + 1]``); ``3-Epochs_Required`` is the last demand's epoch plus one.

**AlltoAll** (``AlltoAllFormulation``, an LP: a chunk may be split): flows are volumes per
(source, link, epoch), summed over the source's chunks; per source and node:

- a flow on ``i -> j`` sent in epoch ``k`` arrives by the end of ``k + alpha`` (no beta: the
  capacity per epoch ``capacity x epoch`` may be a fraction of a chunk);
- a GPU sends in epoch ``k + 1`` at most what it held or received by the end of ``k``, less
  what it sent or consumed (data is never copied); only the source holds data at first;
- a switch sends in epoch ``k + 1`` at most what arrived in epoch ``k``;
- a link carries at most ``capacity x epoch`` an epoch, all sources together;
- a destination consumes up to its demand of each source; ``3-Epochs_Required`` is one more
  than the last epoch with a consumption (the replay: the first epoch by which the whole
  demand can have been consumed). The same rules with each chunk its own commodity, consumed
  only at its destination, check the file's per-chunk account (``chunk_errors``).

What neither file nor replay states: the horizon (``num_epochs``) TE-CCL solved in, so the
rules that depend on it alone (no flow in the last epochs that could not arrive in time) are
not checked; the capacity window is checked from epoch ``beta`` on, as TE-CCL does.
"""

from __future__ import annotations

import gzip
import itertools
import json
import re
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.teccl_reference_machines import (
    LinkEpochs,
    Machine,
    allgather_demand,
    alltoall_chunk_of,
    alltoall_demand,
    link_epochs,
)

_AG = re.compile(
    r"^Chunk (\d+) from (\d+) traveled over (\d+)->(\d+) in epoch (\d+)(?: via switches (.+))?$"
)
_A2A = re.compile(
    r"^Chunk (\d+) from (\d+) traveled over (\d+)->(\d+) with volume (\S+) in epoch (\d+)"
    r"(?: via switches (.+))?$"
)
_MET = re.compile(r"^Demand at (\d+) for chunk (\d+) from (\d+) met by epoch (\d+)$")
FEAS_TOL = 1e-4  # TE-CCL's Gurobi FeasibilityTol and IntFeasTol (input_data.py)
ROUNDING = 1e-6  # TE-CCL rounds AlltoAll volumes to 6 decimals (round(v.x, 6))
MAX_ERRORS = 20


class FormatError(ValueError):
    """The file is not a TE-CCL schedule this reference reads."""


@dataclass
class Replay:
    """The replay of one TE-CCL schedule.

    ``errors`` are broken rules of TE-CCL's model (empty: valid in it), ``met`` the epoch
    each demand is met in, ``epochs`` the epochs required (``None`` when a demand is unmet),
    ``mismatches`` the file's numbers that differ from the replay's, ``chunk_errors`` (AlltoAll)
    the breaks of the per-chunk account that TE-CCL's per-source LP does not see."""

    collective: str
    epoch: float
    errors: list[str] = field(default_factory=list)
    met: dict[tuple[int, int, int], int] = field(default_factory=dict)
    epochs: int | None = None
    finish: float | None = None
    bandwidth: float | None = None
    mismatches: list[str] = field(default_factory=list)
    chunk_errors: list[str] = field(default_factory=list)
    chunk_epochs: int | None = None
    flows: int = 0
    lost: int = 0  # AlltoAll: hops the flow list writes once for several pieces

    @property
    def valid(self) -> bool:
        return not self.errors and self.epochs is not None

    @property
    def exact(self) -> bool:
        """Valid, and the file's epochs, finish time, bandwidth and demand times replayed."""
        return self.valid and not self.mismatches

    def error(self, text: str) -> None:
        if len(self.errors) < MAX_ERRORS:
            self.errors.append(text)
        elif len(self.errors) == MAX_ERRORS:
            self.errors.append("... (more)")


def load(path: str | Path) -> dict[str, Any]:
    """A TE-CCL output file (``.json`` or ``.json.gz``) as a dict."""
    raw = Path(path).read_bytes()
    if raw[:2] == b"\x1f\x8b":
        raw = gzip.decompress(raw)
    data = json.loads(raw)
    if not isinstance(data, dict):
        raise FormatError(f"{path}: not a JSON object")
    return data


def _flow_strings(data: dict[str, Any]) -> list[str]:
    keys = [k for k in data if k.endswith("-Flows")]
    if len(keys) != 1 or not isinstance(data[keys[0]], list):
        raise FormatError("no list of flows ('7-Flows' or '6-Flows')")
    return [str(x) for x in data[keys[0]]]


def _path_strings(data: dict[str, Any]) -> list[str] | None:
    """AlltoAll: every hop of every path of ``8-Chunk paths`` (``7-chunk paths`` in older
    files), as flow strings, duplicates kept; ``None`` when the file has no paths.

    TE-CCL writes ``7-Flows`` as a *set* of strings (``get_flow_schedule``: ``flows_str``), so
    two pieces of one chunk on one link in one epoch, split onto two paths, are written once;
    the paths (``chunk_flow_paths_to_string``, a list per demand) keep both."""
    keys = [k for k in data if k.lower().endswith("-chunk paths")]
    if len(keys) != 1 or not isinstance(data[keys[0]], dict):
        return None
    out = []
    for key, paths in data[keys[0]].items():
        match = _MET.match(key)
        if not match or not isinstance(paths, list):
            raise FormatError(f"not a chunk path entry: {key!r}")
        _d, c, s, _k = match.groups()
        for path in paths:
            for hop in path:
                if not (isinstance(hop, list) and len(hop) == 2 and isinstance(hop[1], str)):
                    raise FormatError(f"not a hop of {key!r}: {hop!r}")
                out.append(f"Chunk {c} from {s} traveled over {hop[1]}")
    return out


def collective_of(data: dict[str, Any]) -> str:
    """``"alltoall"`` when the flows carry volumes, else ``"allgather"``."""
    flows = _flow_strings(data)
    return "alltoall" if any(" with volume " in f for f in flows) else "allgather"


def _path(first: str, switches: str | None, last: str) -> list[int]:
    middle = [int(x) for x in re.split(r"\s*->\s*", switches.strip())] if switches else []
    return [int(first), *middle, int(last)]


def _hops(
    m: Machine,
    links: dict[tuple[int, int], LinkEpochs],
    path: list[int],
    k: int,
    lp: bool,
    r: Replay,
) -> list[tuple[int, int, int]] | None:
    """The hops (from, to, epoch) of one written flow: a switch sends what it got in the epoch
    after arrival (MILP: ``k + alpha + beta + 1``; LP: ``k + alpha + 1``)."""
    hops, t = [], k
    for a, b in itertools.pairwise(path):
        hops.append((a, b, t))
        if b == path[-1]:
            break
        if b not in m.switches:
            r.error(f"'via switches' names node {b}, not a switch")
            return None
        le = links.get((a, b))
        if le is None:
            r.error(f"no link {a}->{b}")
            return None
        t += le.alpha + (0 if lp else le.beta) + 1
    return hops


def replay(
    data: dict[str, Any],
    m: Machine,
    *,
    epoch: float | None = None,
    chunks: int = 1,
    switch_copy: bool = True,
    switch_to_gpu_link_on: bool = False,
) -> Replay:
    """Replay a TE-CCL schedule on machine ``m`` at ``epoch`` seconds (default: the file's
    ``1-Epoch_Duration``), ``chunks`` chunks per GPU (per pair for AlltoAll)."""
    if epoch is None:
        try:
            epoch = float(data["1-Epoch_Duration"])
        except (KeyError, TypeError, ValueError) as exc:
            raise FormatError("no '1-Epoch_Duration'") from exc
    if collective_of(data) == "alltoall":
        r = Replay("alltoall", epoch)
        _replay_alltoall(data, m, r, chunks)
    else:
        r = Replay("allgather", epoch)
        _replay_allgather(data, m, r, chunks, switch_copy, switch_to_gpu_link_on)
    if r.epochs is not None:
        r.finish = epoch * r.epochs
        r.bandwidth = m.node_per_chassis * m.chunk_size * m.chassis / r.finish
    _compare(data, m, r)
    return r


def _capacity(
    r: Replay,
    links: dict[tuple[int, int], LinkEpochs],
    load_: dict[tuple[int, int], dict[int, float]],
) -> None:
    """At most ``(beta + 1) x capacity x epoch`` on a link in any ``beta + 1`` epochs."""
    for (u, v), by_epoch in sorted(load_.items()):
        le = links[(u, v)]
        bound = (le.beta + 1) * le.per_epoch
        last = max(by_epoch)
        for end in range(le.beta, max(last, le.beta) + 1):
            terms = [by_epoch.get(t, 0.0) for t in range(end - le.beta, end + 1)]
            if sum(terms) > bound + FEAS_TOL * (1 + len(terms)) + ROUNDING * len(by_epoch):
                r.error(
                    f"link {u}->{v} carries {sum(terms):g} chunks in epochs "
                    f"{end - le.beta}..{end}, more than {bound:g}"
                )


def _replay_allgather(
    data: dict[str, Any], m: Machine, r: Replay, chunks: int, copy: bool, link_on: bool
) -> None:
    links = link_epochs(m, r.epoch)
    gpus = set(m.gpus())
    hops: set[tuple[int, int, int, int, int]] = set()  # (source, chunk, from, to, epoch)
    for text in _flow_strings(data):
        match = _AG.match(text.strip())
        if not match:
            raise FormatError(f"not an AllGather flow: {text!r}")
        c, s, i, j, k, via = match.groups()
        path = _path(i, via, j)
        if any(not 0 <= v < m.n for v in path):
            r.error(f"{text!r}: a node outside 0..{m.n - 1}")
            continue
        for a, b, t in _hops(m, links, path, int(k), False, r) or []:
            hops.add((int(s), int(c), a, b, t))
    r.flows = len(hops)
    arrivals: dict[tuple[int, int, int], list[int]] = defaultdict(list)  # buffer start epochs
    into_switch: dict[tuple[int, int, int, int], int] = defaultdict(int)  # (s,c,sw,send epoch)
    load_: dict[tuple[int, int], dict[int, float]] = defaultdict(lambda: defaultdict(float))
    for s, c, u, v, k in sorted(hops):
        le = links.get((u, v))
        if le is None:
            r.error(f"chunk {c} of {s}: no link {u}->{v}")
            continue
        if s not in gpus or not 0 <= c < chunks:
            r.error(
                f"chunk {c} of {s}: no such chunk (sources are the GPUs, chunks 0..{chunks - 1})"
            )
            continue
        if v == s:
            r.error(f"chunk {c} of {s} sent back to its source over {u}->{v} in epoch {k}")
            continue
        load_[(u, v)][k] += 1
        if v in m.switches:
            into_switch[(s, c, v, k + le.alpha + le.beta + 1)] += 1
        elif u in m.switches and not link_on:
            arrivals[(s, c, v)].append(k + le.alpha)
        else:
            arrivals[(s, c, v)].append(k + le.alpha + le.beta + 1)
    out_of_switch: dict[tuple[int, int, int, int], int] = defaultdict(int)
    for s, c, u, v, k in sorted(hops):
        if (u, v) not in links or s not in gpus or v == s or not 0 <= c < chunks:
            continue
        if u in m.switches:
            out_of_switch[(s, c, u, k)] += 1
        elif u != s and not any(1 <= t <= k for t in arrivals.get((s, c, u), [])):
            r.error(f"GPU {u} sends chunk {c} of {s} in epoch {k} before it has it")
    for (s, c, sw, k), sent in sorted(out_of_switch.items()):
        got = into_switch.get((s, c, sw, k), 0)
        if got == 0 or (not copy and sent > got):
            r.error(
                f"switch {sw} sends chunk {c} of {s} {sent} time(s) in epoch {k}, got {got} for it"
            )
    for (s, c, v), times in sorted(arrivals.items()):
        if len(times) > 1:
            r.error(f"GPU {v} receives chunk {c} of {s} {len(times)} times (its buffer is 0/1)")
    _capacity(r, links, load_)
    unmet = 0
    for s, d, c in sorted(allgather_demand(m, chunks)):
        times = [t for t in arrivals.get((s, c, d), []) if t >= 1]
        if times:
            r.met[(s, d, c)] = min(times) - 1
        else:
            unmet += 1
    if unmet:
        r.error(f"{unmet} demand(s) never met")
    else:
        r.epochs = max(r.met.values()) + 1 if r.met else 0


def _conservation(
    r_errors: list[str],
    what: str,
    is_switch: bool,
    start: float,
    arrive: dict[int, float],
    send: dict[int, float],
    demand: float,
) -> int | None:
    """Check one commodity at one node; return the first epoch by which ``demand`` of it can
    have been consumed there (``None`` if never, or no demand)."""
    if is_switch:
        for k, vol in sorted(send.items()):
            got = arrive.get(k - 1, 0.0)
            if vol > got + FEAS_TOL + ROUNDING * 4:
                r_errors.append(f"{what}: sends {vol:g} in epoch {k}, got {got:g} in epoch {k - 1}")
        return None
    points = sorted({0, *arrive, *(k - 1 for k in send if k >= 1)})
    sends = sorted(send.items())
    got_total = sent_total = 0.0
    ai = si = 0
    arrivals = sorted(arrive.items())
    slack: list[float] = []  # start + arrived by p - sent by p + 1, at each point p
    terms = 0
    for k, vol in sends:  # a send in epoch k needs what is held by the end of k - 1
        while ai < len(arrivals) and arrivals[ai][0] <= k - 1:
            got_total += arrivals[ai][1]
            ai += 1
            terms += 1
        sent_total += vol
        terms += 1
        if sent_total > start + got_total + FEAS_TOL + ROUNDING * terms:
            r_errors.append(
                f"{what}: sends {sent_total:g} by epoch {k}, "
                f"holds {start + got_total:g} by epoch {k - 1}"
            )
            break
    if demand <= 0:
        return None
    got_total = sent_total = 0.0
    ai = si = 0
    for p in points:
        while ai < len(arrivals) and arrivals[ai][0] <= p:
            got_total += arrivals[ai][1]
            ai += 1
        while si < len(sends) and sends[si][0] <= p + 1:
            sent_total += sends[si][1]
            si += 1
        slack.append(start + got_total - sent_total)
    tol = FEAS_TOL + ROUNDING * (len(arrive) + len(send))
    best = float("inf")
    met = None
    for p, value in zip(reversed(points), reversed(slack), strict=True):
        best = min(best, value)
        if best >= demand - tol:
            met = p
        else:
            break
    return met


def _replay_alltoall(data: dict[str, Any], m: Machine, r: Replay, chunks: int) -> None:
    links = link_epochs(m, r.epoch)
    gpus = m.gpus()
    index = alltoall_chunk_of(m)
    dest_of = {index[t] + c * len(gpus): t for t in gpus for c in range(chunks)}
    # (source, chunk, from, to, epoch) -> volume
    vols: dict[tuple[int, int, int, int, int], float] = defaultdict(float)
    written = _flow_strings(data)
    hops = _path_strings(data)
    if hops is None:
        hops = written
    elif set(hops) != set(written):
        r.mismatches.append("the chunk paths' hops are not the flows written in the flow list")
    r.lost = len(hops) - len(set(hops))
    for text in hops:
        match = _A2A.match(text.strip())
        if not match:
            raise FormatError(f"not an AlltoAll flow: {text!r}")
        c, s, i, j, vol, k, via = match.groups()
        path = _path(i, via, j)
        if any(not 0 <= v < m.n for v in path):
            r.error(f"{text!r}: a node outside 0..{m.n - 1}")
            continue
        for a, b, t in _hops(m, links, path, int(k), True, r) or []:
            vols[(int(s), int(c), a, b, t)] += float(vol)
    r.flows = len(vols)
    load_: dict[tuple[int, int], dict[int, float]] = defaultdict(lambda: defaultdict(float))
    # per source (TE-CCL's LP) and per chunk: (commodity, node) -> epoch -> volume
    lp_in: dict[tuple[int, int], dict[int, float]] = defaultdict(lambda: defaultdict(float))
    lp_out: dict[tuple[int, int], dict[int, float]] = defaultdict(lambda: defaultdict(float))
    ch_in: dict[tuple[int, int, int], dict[int, float]] = defaultdict(lambda: defaultdict(float))
    ch_out: dict[tuple[int, int, int], dict[int, float]] = defaultdict(lambda: defaultdict(float))
    for (s, c, u, v, k), vol in sorted(vols.items()):
        le = links.get((u, v))
        if le is None:
            r.error(f"chunk {c} of {s}: no link {u}->{v}")
            continue
        if s not in index or c not in dest_of:
            r.error(f"chunk {c} of {s}: no such chunk")
            continue
        load_[(u, v)][k] += vol
        lp_out[(s, u)][k] += vol
        lp_in[(s, v)][k + le.alpha] += vol
        ch_out[(s, c, u)][k] += vol
        ch_in[(s, c, v)][k + le.alpha] += vol
    _capacity(r, links, load_)
    demand = alltoall_demand(m, chunks)
    per_pair: dict[tuple[int, int], float] = defaultdict(float)
    for s, t, _c in demand:
        per_pair[(s, t)] += 1.0
    total = {s: sum(v for (a, _), v in per_pair.items() if a == s) for s in gpus}
    unmet = 0
    errors: list[str] = []
    for s in gpus:
        for v in range(m.n):
            if (s, v) not in lp_in and (s, v) not in lp_out and (s, v) not in per_pair:
                continue
            met = _conservation(
                errors,
                f"data of {s} at node {v}",
                v in m.switches,
                total[s] if v == s else 0.0,
                lp_in.get((s, v), {}),
                lp_out.get((s, v), {}),
                per_pair.get((s, v), 0.0),
            )
            if (s, v) in per_pair:
                if met is None:
                    unmet += 1
                else:
                    r.met[(s, v, -1)] = met
    for e in errors:
        r.error(e)
    if unmet:
        r.error(f"{unmet} demand(s) never met")
    elif r.met:
        r.epochs = max(r.met.values()) + 1
    _alltoall_chunks(m, r, demand, ch_in, ch_out)


def _alltoall_chunks(
    m: Machine,
    r: Replay,
    demand: set[tuple[int, int, int]],
    ch_in: dict[tuple[int, int, int], dict[int, float]],
    ch_out: dict[tuple[int, int, int], dict[int, float]],
) -> None:
    """The same rules with each chunk its own commodity, consumed at its destination only."""
    nodes_of: dict[tuple[int, int], set[int]] = defaultdict(set)
    for s, c, v in [*ch_in, *ch_out]:
        nodes_of[(s, c)].add(v)
    chunk_met: list[int] = []
    for s, t, c in sorted(demand):
        for v in sorted({s, t} | nodes_of[(s, c)]):
            met = _conservation(
                r.chunk_errors,
                f"chunk {c} of {s} at node {v}",
                v in m.switches,
                1.0 if v == s else 0.0,
                ch_in.get((s, c, v), {}),
                ch_out.get((s, c, v), {}),
                1.0 if v == t else 0.0,
            )
            if v == t:
                if met is None:
                    r.chunk_errors.append(f"chunk {c} of {s} never reaches GPU {t} whole")
                else:
                    chunk_met.append(met)
    if chunk_met and not r.chunk_errors:
        r.chunk_epochs = max(chunk_met) + 1
    del r.chunk_errors[MAX_ERRORS:]


def _close(a: float, b: float) -> bool:
    return a == b or abs(a - b) <= 1e-9 * max(abs(a), abs(b))


def _compare(data: dict[str, Any], m: Machine, r: Replay) -> None:
    """The file's own numbers against the replay's."""
    if r.epochs is None:
        return
    said = data.get("3-Epochs_Required")
    if said != r.epochs:
        r.mismatches.append(f"3-Epochs_Required: file {said}, replay {r.epochs}")
    finish = data.get("4-Collective_Finish_Time")
    if not isinstance(finish, int | float) or not _close(finish, r.epoch * r.epochs):
        r.mismatches.append(f"4-Collective_Finish_Time: file {finish}, replay {r.finish}")
    bandwidth = data.get("5-Algo_Bandwidth")
    if bandwidth is not None and (
        not isinstance(bandwidth, int | float) or not _close(bandwidth, r.bandwidth or 0.0)
    ):
        r.mismatches.append(f"5-Algo_Bandwidth: file {bandwidth}, replay {r.bandwidth}")
    if r.collective != "allgather":
        return
    table = data.get("6-Demand_Met")
    if isinstance(table, dict):
        seen = set()
        for dst, row in table.items():
            for src, cells in (row or {}).items():
                for chunk, when in (cells or {}).items():
                    key = (int(src.split()[-1]), int(dst.split()[-1]), int(chunk.split()[-1]))
                    seen.add(key)
                    met = r.met.get(key)
                    if met is None or not _close(float(when), r.epoch * (met + 1)):
                        r.mismatches.append(f"6-Demand_Met {key}: file {when}, replay epoch {met}")
        if seen != set(r.met):
            r.mismatches.append(f"6-Demand_Met lists {len(seen)} demands, the replay {len(r.met)}")
    paths = data.get("8-Chunk paths")
    if isinstance(paths, dict):
        for key in paths:
            match = _MET.match(key)
            if not match:
                continue
            d, c, s, k = map(int, match.groups())
            if r.met.get((s, d, c)) != k:
                r.mismatches.append(f"8-Chunk paths {key!r}: replay epoch {r.met.get((s, d, c))}")
    del r.mismatches[MAX_ERRORS:]
