"""TE-CCL's allgather model as a CNF: schedules of a given number of epochs, or a checked
proof that there is none.

The formula says "every GPU holds every chunk by epoch ``E``" (every demand met by the end of
epoch ``E - 1``) in TE-CCL's model (:mod:`.teccl_model`). Variables, from a
:class:`pysat.formula.IDPool` keyed by tuples:

- ``("f", s, c, i, j, k)``: chunk ``c`` of GPU ``s`` crosses link ``(i, j)`` in epoch ``k``
  (only where it could still be of use: ``k`` at least the chunk's distance to ``i``, and
  ``k + held_after(i, j) <= E``; never into its own source);
- ``("h", s, c, v, t)``: GPU ``v`` holds it at the start of epoch ``t`` (usable from ``t``).

Constraint families:

- **holding**: the source holds its chunk from epoch 0; ``h(t) -> h(t + 1)``; ``h(t)`` needs
  ``h(t - 1)`` or a flow that makes the chunk usable at ``t`` (``k + held_after(i, v) = t``);
- **sending**: a GPU sends a chunk it holds; a switch sends a chunk in epoch ``k`` only if
  some flow brought it to the switch for epoch ``k`` (TE-CCL's switch copy: one flow in, any
  number out; without copy, no more out than in);
- **capacity**: at most ``floor(window capacity)`` flows on a link in each window of
  ``B + 1`` epochs (cardinality constraints, :class:`pysat.card.CardEnc`);
- **demands**: ``h(s, c, d, E)`` for every GPU ``d`` other than ``s``.

Two variants. ``strict`` states every window that can hold a flow, so that each model is a
schedule :func:`.teccl_replay.replay_allgather` accepts. The other is a relaxation of TE-CCL's
model whatever horizon ``K >= E`` the schedule is solved in, so that its refutation proves
that no schedule of ``E`` epochs exists there: TE-CCL states the windows that end at epochs
``B .. K - 1``; with ``K = E`` (a literal ``("horizon is E",)``) no flow happens in epoch
``E`` and a switch-to-GPU link cannot meet a demand in the last epoch (TE-CCL's last-epoch
count leaves those links out), with ``K > E`` the window that ends at ``E`` holds too
(windows that end later hold only flows it holds). The refutation is CaDiCaL's proof,
trimmed, checked by the project's checkers
(:func:`gossipcert.proofs.refutation.refutation_status`). A GPU never receives a chunk twice
in TE-CCL's model; the formula does not say so (a second receipt never helps, so the same
epochs are feasible), and a decoded schedule keeps each GPU's first receipt only.

References
----------
.. [1] github.com/microsoft/TE-CCL, ``teccl/solvers/allgather.py`` (the model).
.. [2] A. Biere et al., CaDiCaL; the proof checking of :mod:`gossipcert.proofs`.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from pysat.card import CardEnc, EncType
from pysat.formula import IDPool
from pysat.solvers import Solver

from gossipcert.encodings.cnf import StandaloneCNF
from gossipcert.encodings.options import EncodingOptions
from gossipcert.formats.teccl_bounds import _delay, _dijkstra
from gossipcert.formats.teccl_model import EpochModel
from gossipcert.formats.teccl_replay import TOLERANCE, EpochReplay, replay_allgather
from gossipcert.interrupts import pysat_handler_off
from gossipcert.proofs.refutation import refutation_status
from gossipcert.solvers.backends import solve_sliced
from gossipcert.statuses import QueryStatus

__all__ = ["ExactOutcome", "allgather_cnf", "decide_allgather"]

Flow = tuple[int, int, int, int, int]


@dataclass(frozen=True)
class ExactOutcome:
    """What deciding ``epochs`` found.

    Attributes
    ----------
    epochs : int
    status : QueryStatus
        ``sat`` (a schedule, replayed and valid), ``unsat`` (refuted, proof checked) or
        ``unknown`` (out of time, or a model the replay refused).
    replay : EpochReplay or None
        The schedule's replay (``sat``).
    flows : list
        The schedule (``sat``).
    proof : str
        The checkers' verdict on the refutation (``unsat``).
    seconds : float
    """

    epochs: int
    status: QueryStatus
    replay: EpochReplay | None = None
    flows: tuple[Flow, ...] = ()
    proof: str = ""
    seconds: float = 0.0


@pysat_handler_off()  # PySAT takes no SIGINT itself
def allgather_cnf(
    model: EpochModel, epochs: int, chunks: int = 1, strict: bool = True
) -> tuple[IDPool, list[list[int]]]:
    """The CNF of the module docstring: its variable pool and clauses.

    Examples
    --------
    >>> from gossipcert.formats.teccl_machines import mesh
    >>> m = EpochModel(mesh(2), chunk=1.0, epoch=0.01)
    >>> pool, clauses = allgather_cnf(m, 2)
    >>> with Solver(name="cadical195", bootstrap_with=clauses) as s:
    ...     s.solve()
    True
    >>> pool, clauses = allgather_cnf(m, 1)
    >>> with Solver(name="cadical195", bootstrap_with=clauses) as s:
    ...     s.solve()
    False
    """
    m = model.machine
    gpus = m.gpus
    pool = IDPool()
    clauses: list[list[int]] = []
    short = None if strict else pool.id(("horizon is E",))
    delay = _delay(model, "allgather")
    held = {link: model.held_after(*link) for link in m.links}
    out_of: dict[int, list[int]] = {}
    for i, j in m.links:
        out_of.setdefault(i, []).append(j)
    per_link: dict[tuple[int, int], dict[int, list[int]]] = {link: {} for link in m.links}
    for s in gpus:
        ready = _dijkstra(model, s, delay)
        for c in range(chunks):
            arrivals: dict[tuple[int, int], list[int]] = {}  # (node, epoch usable) -> flows
            from_switch: set[int] = set()  # flows over a switch-to-GPU link
            for (i, j), h in held.items():
                if j == s or i not in ready:
                    continue
                for k in range(ready[i], epochs - h + 1):
                    x = pool.id(("f", s, c, i, j, k))
                    per_link[(i, j)].setdefault(k, []).append(x)
                    arrivals.setdefault((j, k + h), []).append(x)
                    if short is not None and k == epochs:
                        clauses.append([-x, -short])  # no epoch E in a horizon of E
                    if model.is_switch(i) and not model.is_switch(j):
                        from_switch.add(x)
            for (i, j), h in held.items():
                if j == s or i not in ready:
                    continue
                for k in range(ready[i], epochs - h + 1):
                    x = pool.id(("f", s, c, i, j, k))
                    if model.is_switch(i):
                        feeds = arrivals.get((i, k), [])
                        clauses.append([-x, *feeds])
                    elif i != s:
                        clauses.append([-x, pool.id(("h", s, c, i, k))])
            for v in gpus:
                if v == s:
                    continue
                first = ready.get(v, epochs + 1)
                for t in range(first, epochs + 1):
                    h_t = pool.id(("h", s, c, v, t))
                    if t < epochs:
                        clauses.append([-h_t, pool.id(("h", s, c, v, t + 1))])
                    came = arrivals.get((v, t), [])
                    before = [pool.id(("h", s, c, v, t - 1))] if t > first else []
                    clauses.append([-h_t, *before, *came])
                    if short is not None and t == epochs and not model.switch_to_gpu_link_on:
                        direct = [x for x in came if x not in from_switch]
                        clauses.append([-h_t, *before, *direct, -short])
                if first > epochs:
                    clauses.append([])  # unreachable in time
                else:
                    clauses.append([pool.id(("h", s, c, v, epochs))])
            for w in m.switches:
                if model.switch_copy:
                    continue
                for k in range(epochs + 1):
                    outs = [
                        pool.id(("f", s, c, w, j, k))
                        for j in out_of.get(w, [])
                        if pool.obj2id.get(("f", s, c, w, j, k))
                    ]
                    ins = arrivals.get((w, k), [])
                    if outs:
                        card = CardEnc.atmost(outs + [-x for x in ins], len(ins), vpool=pool,
                                              encoding=EncType.seqcounter)  # fmt: skip
                        clauses.extend(card.clauses)
    clauses += _windows(model, per_link, epochs, pool, short)
    return pool, clauses


@pysat_handler_off()  # PySAT takes no SIGINT itself
def _windows(
    model: EpochModel,
    per_link: dict[tuple[int, int], dict[int, list[int]]],
    epochs: int,
    pool: IDPool,
    short: int | None,
) -> list[list[int]]:
    """The capacity family: at most ``floor(window capacity)`` flows a window, every window
    that can hold a flow (strict, ``short`` None) or those ending by epoch ``E`` (the one that
    ends at ``E`` only in a horizon beyond ``E``)."""
    clauses: list[list[int]] = []
    for link, by_epoch in per_link.items():
        if not by_epoch:
            continue
        width = model.beta_epochs(*link) + 1
        most = int(model.window_capacity(*link) + TOLERANCE)
        top = max(by_epoch) + width - 1 if short is None else epochs
        for end in range(width - 1, top + 1):
            lits = [x for k in range(end - width + 1, end + 1) for x in by_epoch.get(k, [])]
            if len(lits) > most:
                card = CardEnc.atmost(lits, most, vpool=pool, encoding=EncType.seqcounter)
                if short is not None and end == epochs:  # only in a horizon beyond E
                    clauses.extend([*cl, short] for cl in card.clauses)
                else:
                    clauses.extend(card.clauses)
    return clauses


def _decode(model: EpochModel, pool: IDPool, true: set[int], chunks: int) -> list[Flow]:
    """The flows a model sets, each GPU keeping its first receipt of a chunk, and each flow
    that feeds nothing that is kept dropped (a switch's useless in-flows)."""
    flows: list[Flow] = []
    for key, var in pool.obj2id.items():
        if isinstance(key, tuple) and key[0] == "f" and var in true:
            _, s, c, i, j, k = key
            flows.append((s, c, i, j, k))
    flows.sort(key=lambda f: (f[4] + model.held_after(f[2], f[3]), f))
    seen: set[tuple[int, int, int]] = set()
    kept = []
    for s, c, i, j, k in flows:
        if not model.is_switch(j):
            if (s, c, j) in seen:
                continue
            seen.add((s, c, j))
        kept.append((s, c, i, j, k))
    return kept


def decide_allgather(
    model: EpochModel,
    epochs: int,
    chunks: int = 1,
    seconds: float = 60.0,
    prove: bool = True,
) -> ExactOutcome:
    """Whether an allgather of ``epochs`` epochs exists in TE-CCL's model.

    The relaxed formula is solved first: its refutation, with the proof checked, is
    ``unsat``; a model is decoded and replayed, and a valid replay is ``sat``. If the
    replay refuses it (a window past epoch ``E``), the strict formula is solved.

    Parameters
    ----------
    model : EpochModel
    epochs : int
    chunks : int
    seconds : float
        Time for the solving and the proof's check together.
    prove : bool
        Check the refutation's proof (else ``unsat`` is never returned: ``unknown``).

    Returns
    -------
    ExactOutcome
    """
    start = time.monotonic()
    deadline = start + seconds
    for strict in (False, True):
        pool, clauses = allgather_cnf(model, epochs, chunks, strict=strict)
        if not strict and prove:
            cnf = StandaloneCNF(epochs, EncodingOptions(), pool.top, clauses, 0)
            status, result = refutation_status(
                cnf, deadline, f"the proof that no allgather of {epochs} epochs exists"
            )
            if status == QueryStatus.UNSAT and result is not None:
                return ExactOutcome(epochs, QueryStatus.UNSAT, proof=result[1].summary(),
                                    seconds=time.monotonic() - start)  # fmt: skip
            if status == QueryStatus.UNKNOWN:
                return ExactOutcome(epochs, QueryStatus.UNKNOWN, seconds=time.monotonic() - start)
        with Solver(name="cadical195", bootstrap_with=clauses) as solver:
            found = solve_sliced(solver, [], deadline)
            if not found:
                return ExactOutcome(epochs, QueryStatus.UNKNOWN, seconds=time.monotonic() - start)
            true = {x for x in solver.get_model() or [] if x > 0}
        flows = _decode(model, pool, true, chunks)
        rep = replay_allgather(model, flows, chunks)
        if rep.valid and rep.epochs <= epochs:
            return ExactOutcome(epochs, QueryStatus.SAT, rep, tuple(flows),
                                seconds=time.monotonic() - start)  # fmt: skip
    return ExactOutcome(epochs, QueryStatus.UNKNOWN, seconds=time.monotonic() - start)
