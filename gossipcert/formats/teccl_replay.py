"""TE-CCL schedules replayed in TE-CCL's own epoch model (:mod:`.teccl_model`).

:func:`replay_allgather` takes whole-chunk flows ``(source, chunk, i, j, epoch)`` and finds
when each GPU first holds each chunk, following TE-CCL's rules; :func:`replay_alltoall` takes
the paths of fractions of chunks. Both report every broken rule as a
:class:`~gossipcert.formats.findings.Finding` and give the epochs required and the finish
time as TE-CCL computes them, so that a schedule it wrote replays to its own
"3-Epochs_Required" and "4-Collective_Finish_Time".

Rules checked (their keys):

- ``no-link``: a flow on a pair of nodes the machine does not link;
- ``unheld``: a GPU sends a chunk before it is in its buffer;
- ``switch-idle``: a switch sends a chunk in an epoch in which none reached it (or, without
  switch copy, sends it on more links than it received it from);
- ``held-twice``: a GPU receives a chunk it already holds or receives, or the source its own
  (TE-CCL's buffer holds a chunk or not);
- ``capacity``: a link carries more than its capacity (over ``B + 1`` consecutive epochs for
  allgather, in one epoch for alltoall), beyond TE-CCL's solver tolerance;
- ``broken-path``: an alltoall path that does not run from its source to its destination, or
  forwards data before it arrived;
- ``volume``: an alltoall demand whose paths carry more or less than its chunk;
- ``missing``: a demand never met.

References
----------
.. [1] github.com/microsoft/TE-CCL, ``teccl/solvers/allgather.py`` (the node, buffer and
   capacity constraints, ``find_demand_satisfied_k``), ``teccl/solvers/alltoall.py``.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field

from gossipcert.formats.findings import Finding
from gossipcert.formats.teccl_model import EpochModel

__all__ = ["TOLERANCE", "EpochReplay", "PathFlow", "replay_allgather", "replay_alltoall"]

#: TE-CCL's solver feasibility tolerance (its inputs' ``feasibility_tol``, Gurobi's default)
TOLERANCE = 1e-4

#: a whole-chunk flow: (source, chunk, from, to, epoch)
Flow = tuple[int, int, int, int, int]


@dataclass(frozen=True)
class PathFlow:
    """An alltoall path: ``volume`` of chunk ``chunk`` from ``source`` to ``dest`` over
    ``hops`` ``(i, j, epoch)``."""

    source: int
    dest: int
    chunk: int
    volume: float
    hops: tuple[tuple[int, int, int], ...]


@dataclass
class EpochReplay:
    """A schedule replayed in TE-CCL's model.

    Attributes
    ----------
    collective : str
        ``allgather`` or ``alltoall``.
    epochs : int
        Epochs required: one more than the last epoch in which a demand is met (0: none).
    finish_time : float
        ``epoch`` times ``epochs`` (seconds).
    met : dict
        ``(source, dest, chunk)`` -> the epoch at whose end the demand is met (alltoall: the
        last epoch in which part of it is consumed).
    findings : list of Finding
    flows : int
        Link flows replayed (a flow through a switch counts once per link).
    """

    collective: str
    epochs: int
    finish_time: float
    met: dict[tuple[int, int, int], int] = field(repr=False)
    findings: list[Finding]
    flows: int

    @property
    def valid(self) -> bool:
        """Every flow follows TE-CCL's rules and every demand is met."""
        return not self.findings


def _capacity_findings(
    model: EpochModel, per_link: dict[tuple[int, int], dict[int, float]], window: bool
) -> list[Finding]:
    """Links that carry more than they may (over ``B + 1`` epochs when ``window``)."""
    out = []
    for (i, j), load in sorted(per_link.items()):
        width = model.beta_epochs(i, j) + 1 if window else 1
        cap = model.window_capacity(i, j) if window else model.per_epoch(i, j)
        epochs = sorted(load)
        for n, k in enumerate(epochs):  # the window that ends at k
            total = sum(load[t] for t in epochs[: n + 1] if t > k - width)
            if total > cap + TOLERANCE:
                span = f"epochs {max(0, k - width + 1)}..{k}" if width > 1 else f"epoch {k}"
                out.append(Finding(
                    "capacity", f"link {i}->{j} carries {total:g} chunks in {span}, more than "
                    f"its {cap:g}", k, i,
                ))  # fmt: skip
                break
    return out


def replay_allgather(
    model: EpochModel, flows: Iterable[Flow], chunks: int = 1, gpus: Iterable[int] | None = None
) -> EpochReplay:
    """Replay whole-chunk flows of an allgather (module docstring for the rules).

    Parameters
    ----------
    model : EpochModel
    flows : iterable of (source, chunk, i, j, epoch)
        One entry per link flow (duplicates count once: TE-CCL's flow is one variable).
    chunks : int
        Chunks of each GPU's data.
    gpus : iterable of int, optional
        The GPUs that hold and want data (default: the machine's).

    Returns
    -------
    EpochReplay

    Examples
    --------
    TE-CCL's mesh of four GPUs (links 0-1, 1-2, 2-3, 0-2, 1-3, one chunk an epoch each):
    in epoch 0 every GPU sends its chunk to two neighbours, in epoch 1 the missing chunks
    cross, and every demand is met by the end of epoch 1:

    >>> from gossipcert.formats.teccl_machines import mesh
    >>> m = EpochModel(mesh(2), chunk=1.0, epoch=0.01)
    >>> flows = [(0, 0, 0, 1, 0), (1, 0, 1, 0, 0), (2, 0, 2, 3, 0), (3, 0, 3, 2, 0),
    ...          (0, 0, 0, 2, 0), (2, 0, 2, 0, 0), (1, 0, 1, 3, 0), (3, 0, 3, 1, 0),
    ...          (3, 0, 2, 0, 1), (2, 0, 3, 1, 1), (1, 0, 0, 2, 1), (0, 0, 1, 3, 1)]
    >>> r = replay_allgather(m, flows)
    >>> r.valid, r.epochs
    (True, 2)

    GPU 2 forwarding chunk 1 in epoch 0, before it holds it:

    >>> bad = replay_allgather(m, flows[:-2] + [(1, 0, 2, 1, 0)])
    >>> sorted({f.rule for f in bad.findings})
    ['missing', 'unheld']
    """
    group = sorted(model.machine.gpus if gpus is None else set(gpus))
    unique = sorted(set(flows), key=lambda f: (f[4], not model.is_switch(f[2]), f))
    findings: list[Finding] = []
    per_link: dict[tuple[int, int], dict[int, float]] = defaultdict(lambda: defaultdict(float))
    usable: dict[tuple[int, int], dict[int, int]] = defaultdict(dict)  # (s, c) -> node -> epoch
    received: dict[tuple[int, int], set[int]] = defaultdict(set)
    switch_in: dict[tuple[int, int, int, int], int] = defaultdict(int)  # (s, c, w, epoch)
    switch_out: dict[tuple[int, int, int, int], int] = defaultdict(int)
    for s in group:
        for c in range(chunks):
            usable[(s, c)][s] = 0
    for s, c, i, j, k in unique:
        if not model.link(i, j):
            findings.append(Finding(
                "no-link", f"epoch {k}: chunk {c} of {s} sent over {i}->{j}, which is no link",
                k, i,
            ))  # fmt: skip
            continue
        per_link[(i, j)][k] += 1
        if model.is_switch(i):
            switch_out[(s, c, i, k)] += 1
            got = switch_in[(s, c, i, k)]
            if got == 0 or (not model.switch_copy and switch_out[(s, c, i, k)] > got):
                findings.append(Finding(
                    "switch-idle", f"epoch {k}: switch {i} sends chunk {c} of {s} to {j}, "
                    "but no flow brought it to the switch for this epoch", k, i,
                ))  # fmt: skip
                continue
        else:
            since = usable[(s, c)].get(i)
            if since is None or since > k:
                findings.append(Finding(
                    "unheld", f"epoch {k}: {i} sends chunk {c} of {s} to {j} before it holds "
                    "it", k, i,
                ))  # fmt: skip
                continue
        when = k + model.held_after(i, j)
        if model.is_switch(j):
            switch_in[(s, c, j, when)] += 1
            continue
        if j == s or j in received[(s, c)]:
            findings.append(Finding(
                "held-twice", f"epoch {k}: {j} receives chunk {c} of {s} from {i}, but "
                + ("it is its own" if j == s else "it already holds or receives it"), k, j,
            ))  # fmt: skip
            continue
        received[(s, c)].add(j)
        usable[(s, c)][j] = when
    findings += _capacity_findings(model, per_link, window=True)
    met = _met(group, chunks, usable, findings)
    epochs = max(met.values(), default=-1) + 1
    return EpochReplay("allgather", epochs, model.finish_time(epochs), met, findings, len(unique))


def _met(
    group: list[int],
    chunks: int,
    usable: dict[tuple[int, int], dict[int, int]],
    findings: list[Finding],
) -> dict[tuple[int, int, int], int]:
    """The epoch each demand is met by (one before the chunk is usable), a ``missing``
    finding for each that never is."""
    met: dict[tuple[int, int, int], int] = {}
    for s in group:
        for c in range(chunks):
            for d in group:
                if d == s:
                    continue
                if d in usable[(s, c)]:
                    met[(s, d, c)] = usable[(s, c)][d] - 1
                else:
                    findings.append(Finding(
                        "missing", f"at the end, {d} lacks chunk {c} of {s}", rank=d
                    ))  # fmt: skip
    return met


def replay_alltoall(
    model: EpochModel,
    paths: Iterable[PathFlow],
    demands: Iterable[tuple[int, int, int]],
) -> EpochReplay:
    """Replay the paths of an alltoall's fractional flows (module docstring for the rules).

    Parameters
    ----------
    model : EpochModel
    paths : iterable of PathFlow
    demands : iterable of (source, dest, chunk)
        Every demand (one chunk each).

    Returns
    -------
    EpochReplay

    Examples
    --------
    >>> from gossipcert.formats.teccl_machines import mesh
    >>> m = EpochModel(mesh(2), chunk=1.0, epoch=0.01)
    >>> half = [PathFlow(0, 3, 0, 0.5, ((0, 1, 0), (1, 3, 1))),
    ...         PathFlow(0, 3, 0, 0.5, ((0, 2, 0), (2, 3, 1)))]
    >>> r = replay_alltoall(m, half, [(0, 3, 0)])
    >>> r.valid, r.epochs, r.met
    (True, 2, {(0, 3, 0): 1})
    """
    findings: list[Finding] = []
    per_link: dict[tuple[int, int], dict[int, float]] = defaultdict(lambda: defaultdict(float))
    carried: dict[tuple[int, int, int], float] = defaultdict(float)
    met: dict[tuple[int, int, int], int] = {}
    links = 0
    for p in paths:
        where = f"chunk {p.chunk} from {p.source} to {p.dest}"
        ok, node, ready = True, p.source, 0
        for _n, (i, j, k) in enumerate(p.hops):
            if not model.link(i, j):
                findings.append(Finding(
                    "no-link", f"epoch {k}: {where} sent over {i}->{j}, which is no link", k, i
                ))  # fmt: skip
                ok = False
                break
            late = k != ready if model.is_switch(i) else k < ready
            if i != node or late:
                findings.append(Finding(
                    "broken-path", f"epoch {k}: {where} leaves {i} over {i}->{j}, but it is "
                    + (f"at {node}" if i != node else f"there from epoch {ready}"), k, i,
                ))  # fmt: skip
                ok = False
                break
            per_link[(i, j)][k] += p.volume
            links += 1
            node, ready = j, k + model.arrival_delay(i, j) + 1
        if ok and node != p.dest:
            findings.append(Finding(
                "broken-path", f"{where} ends at {node}, not at its destination", rank=node
            ))  # fmt: skip
            ok = False
        if ok:
            carried[(p.source, p.dest, p.chunk)] += p.volume
            if p.volume > 0 and p.hops:
                key = (p.source, p.dest, p.chunk)
                met[key] = max(met.get(key, -1), ready - 1)
    findings += _capacity_findings(model, per_link, window=False)
    for key in sorted(set(demands) | set(carried)):
        got = carried.get(key, 0.0)
        if abs(got - 1.0) > TOLERANCE:
            s, d, c = key
            findings.append(Finding(
                "volume" if got else "missing", f"the paths carry {got:g} of chunk {c} from "
                f"{s} to {d}, not 1", rank=d,
            ))  # fmt: skip
    epochs = max(met.values(), default=-1) + 1
    return EpochReplay("alltoall", epochs, model.finish_time(epochs), met, findings, links)
