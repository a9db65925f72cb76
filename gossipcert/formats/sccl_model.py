"""SCCL's own model: does an algorithm of ``S`` steps, ``R`` rounds and ``C`` chunks exist?

SCCL (Cai et al., PPoPP 2021; microsoft/sccl's ``msccl/path_encoding.py``) searches
*k-synchronous* algorithms: each GPU's data is cut into ``C`` chunks; ``S`` steps run one after
another, step ``s`` taking ``r_s >= 1`` rounds with ``r_1 + ... + r_S <= R``; in a step a link
of bandwidth ``b`` carries at most ``b r_s`` chunks (distinct addresses), and a chunk sent in a
step must be on its sender when the step starts (no forwarding within a step). The rules as
this module states them, for a non-combining collective given as a gossipcert instance (its
packets are SCCL's chunks, its demands the postcondition, ``capacity`` the bandwidth):

- ``("h", p, v, s)``: node ``v`` holds packet ``p`` when step ``s`` starts (``s = 0..S``):
  its holdings at ``s = 0``, held ever after, and new only through a send of step ``s - 1``;
- ``("x", p, u, v, s)``: ``u`` sends ``p`` to ``v`` in step ``s``, which needs ``h(p, u, s)``
  (variables only where ``p`` can have reached ``u``: within ``s`` hops of a holder);
- ``("r", s, i)``: step ``s`` takes ``i`` rounds (exactly one ``i``), and every choice with
  more than ``R`` rounds in all is excluded;
- capacity: if step ``s`` takes ``i`` rounds, at most ``b i`` sends on a link
  (:class:`pysat.card.CardEnc`, each clause guarded by the choice);
- demands: ``h(p, v, S)`` for every demand.

A model is an algorithm: step ``s``'s sends laid out over its ``r_s`` rounds (the ``k``-th on a
link in round ``k mod r_s``: at most ``b`` a round) give a gossipcert schedule of at most ``R``
rounds in the all-port model with the link capacities, which
:func:`gossipcert.simulate.simulate` replays (every chunk sent was held when its step began, so
in every round of the step). A refutation is CaDiCaL's proof, checked by the project's
checkers.

References
----------
.. [1] Z. Cai, Z. Liu, S. Maleki, M. Musuvathi, T. Mytkowicz, J. Nelson, O. Saarikivi,
   "Synthesizing optimal collective algorithms", PPoPP 2021; github.com/microsoft/sccl,
   ``msccl/path_encoding.py``, ``msccl/strategies.py``, ``SYNTHESIS.md``.
"""

from __future__ import annotations

import itertools
import time
from collections import defaultdict
from dataclasses import dataclass

from pysat.card import CardEnc, EncType
from pysat.formula import IDPool
from pysat.solvers import Solver

from gossipcert.encodings.cnf import StandaloneCNF
from gossipcert.encodings.options import EncodingOptions
from gossipcert.errors import UnsupportedModelError
from gossipcert.instance import Instance, ModelKind
from gossipcert.interrupts import pysat_handler_off
from gossipcert.proofs.refutation import refutation_status
from gossipcert.schedule import Schedule, Transmission
from gossipcert.simulate import Report, simulate
from gossipcert.solvers.backends import solve_sliced
from gossipcert.statuses import QueryStatus

__all__ = ["SCCLOutcome", "decide_sccl", "sccl_cnf"]


@dataclass(frozen=True)
class SCCLOutcome:
    """Whether an algorithm of ``steps`` steps and ``rounds`` rounds exists.

    Attributes
    ----------
    status : QueryStatus
        ``sat`` (an algorithm, replayed by the verifier), ``unsat`` (refuted, the proof
        checked) or ``unknown``.
    step_rounds : tuple of int
        Rounds of each step (``sat``).
    schedule : Schedule or None
        The algorithm as a gossipcert schedule (``sat``).
    report : Report or None
        The verifier's report on it.
    proof : str
        The checkers' verdict on the refutation (``unsat``).
    seconds : float
    """

    steps: int
    rounds: int
    status: QueryStatus
    step_rounds: tuple[int, ...] = ()
    schedule: Schedule | None = None
    report: Report | None = None
    proof: str = ""
    seconds: float = 0.0


def _arcs(instance: Instance) -> dict[tuple[int, int], int]:
    arcs = {}
    for u, v, cap in instance.graph.edges(data="capacity", default=1):
        arcs[(u, v)] = arcs[(v, u)] = int(cap)
    return arcs


def _hops(instance: Instance, p: int) -> dict[int, int]:
    """Hops from the holders of packet ``p`` to every node."""
    start = [v for v, held in enumerate(instance.holdings) if held >> p & 1]
    dist = dict.fromkeys(start, 0)
    frontier = list(start)
    while frontier:
        nxt = []
        for u in frontier:
            for v in instance.graph[u]:
                if v not in dist:
                    dist[v] = dist[u] + 1
                    nxt.append(v)
        frontier = nxt
    return dist


@pysat_handler_off()  # PySAT takes no SIGINT itself
def sccl_cnf(instance: Instance, steps: int, rounds: int) -> tuple[IDPool, list[list[int]]]:
    """The formula of the module docstring: its pool and clauses.

    Raises
    ------
    UnsupportedModelError
        Not the all-port model, or a reduction (SCCL's combining collectives are not
        stated here).

    Examples
    --------
    The DGX-1's allgather with one chunk takes 2 steps (its diameter):

    >>> from gossipcert.instance import parse_instance
    >>> dgx1 = parse_instance("dgx1", "all-port", "gossip")
    >>> for s in (1, 2):
    ...     pool, clauses = sccl_cnf(dgx1, s, s)
    ...     with Solver(name="cadical195", bootstrap_with=clauses) as solver:
    ...         print(s, solver.solve())
    1 False
    2 True
    """
    if instance.model.kind != ModelKind.ALL_PORT or instance.problem.kind.value in (
        "reduce", "reduce-scatter", "allreduce",
    ):  # fmt: skip
        raise UnsupportedModelError("SCCL's model is stated here for copy collectives, all-port")
    if steps < 1 or rounds < steps:
        raise UnsupportedModelError(f"need 1 <= steps <= rounds, got {steps} and {rounds}")
    pool = IDPool()
    clauses: list[list[int]] = []
    arcs = _arcs(instance)
    n = instance.graph.number_of_nodes()
    sends: dict[tuple[int, int, int], list[int]] = defaultdict(list)  # (u, v, s) -> x vars
    for p in range(len(instance.packet_names)):
        hops = _hops(instance, p)
        for v in range(n):
            held0 = instance.holdings[v] >> p & 1
            first = hops.get(v)
            for s in range(steps + 1):
                h = pool.id(("h", p, v, s))
                if s == 0 or first is None or s < first:
                    clauses.append([h] if held0 else [-h])
                    continue
                clauses.append([-pool.id(("h", p, v, s - 1)), h])
                came = []
                for u in instance.graph[v]:
                    if hops.get(u, steps + 1) <= s - 1:
                        x = pool.id(("x", p, u, v, s - 1))
                        came.append(x)
                        sends[(u, v, s - 1)].append(x)
                        clauses.append([-x, pool.id(("h", p, u, s - 1))])
                clauses.append([-h, pool.id(("h", p, v, s - 1)), *came])
            if instance.demands[v] >> p & 1:
                clauses.append([pool.id(("h", p, v, steps))])
    most = rounds - steps + 1  # the most rounds one step can take
    choice = {(s, i): pool.id(("r", s, i)) for s in range(steps) for i in range(1, most + 1)}
    for s in range(steps):
        options = [choice[(s, i)] for i in range(1, most + 1)]
        clauses.append(options)
        clauses.extend(CardEnc.atmost(options, 1, vpool=pool, encoding=EncType.pairwise).clauses)
    for combo in itertools.product(range(1, most + 1), repeat=steps):
        if sum(combo) > rounds:
            clauses.append([-choice[(s, i)] for s, i in enumerate(combo)])
    for (u, v, s), lits in sends.items():
        for i in range(1, most + 1):
            bound = arcs[(u, v)] * i
            if len(lits) > bound:
                card = CardEnc.atmost(lits, bound, vpool=pool, encoding=EncType.seqcounter)
                clauses.extend([*cl, -choice[(s, i)]] for cl in card.clauses)
    return pool, clauses


def _schedule(
    instance: Instance, pool: IDPool, true: set[int], steps: int
) -> tuple[tuple[int, ...], Schedule]:
    per_step: list[int] = []
    for s in range(steps):
        per_step.append(next(i for (k, t, i), x in _choices(pool) if t == s and x in true))
    rounds: list[dict[tuple[int, int], int]] = []
    for s, r in enumerate(per_step):
        block: list[dict[tuple[int, int], int]] = [defaultdict(int) for _ in range(r)]
        count: dict[tuple[int, int], int] = defaultdict(int)
        for key, x in sorted(pool.obj2id.items(), key=lambda kv: kv[1]):
            if isinstance(key, tuple) and key[0] == "x" and key[4] == s and x in true:
                _, p, u, v, _ = key
                slot = count[(u, v)] % r
                count[(u, v)] += 1
                block[slot][(u, v)] |= 1 << p
        rounds.extend(block)
    out = tuple(
        tuple(Transmission(u, (v,), mask) for (u, v), mask in sorted(rnd.items())) for rnd in rounds
    )
    return tuple(per_step), Schedule(out)


def _choices(pool: IDPool) -> list[tuple[tuple[str, int, int], int]]:
    return [(key, x) for key, x in pool.obj2id.items() if isinstance(key, tuple) and key[0] == "r"]


def decide_sccl(
    instance: Instance, steps: int, rounds: int, seconds: float = 60.0, prove: bool = True
) -> SCCLOutcome:
    """Whether an algorithm of ``steps`` steps and at most ``rounds`` rounds exists in SCCL's
    model (module docstring); the chunks are the instance's (``gossip:chunks=C``).

    Examples
    --------
    SCCL's DGX-1 allgather in 2 steps, 3 rounds, 2 chunks (``SYNTHESIS.md``):

    >>> from gossipcert.instance import parse_instance
    >>> out = decide_sccl(parse_instance("dgx1", "all-port", "gossip:chunks=2"), 2, 3)
    >>> out.status.value, out.report.valid and out.report.complete, len(out.schedule) <= 3
    ('sat', True, True)
    """
    start = time.monotonic()
    deadline = start + seconds
    pool, clauses = sccl_cnf(instance, steps, rounds)
    if prove:
        cnf = StandaloneCNF(rounds, EncodingOptions(), pool.top, clauses, 0)
        status, result = refutation_status(
            cnf, deadline, f"the proof that no {steps}-step, {rounds}-round algorithm exists"
        )
        if status == QueryStatus.UNSAT and result is not None:
            return SCCLOutcome(steps, rounds, QueryStatus.UNSAT, proof=result[1].summary(),
                               seconds=time.monotonic() - start)  # fmt: skip
        if status == QueryStatus.UNKNOWN:
            return SCCLOutcome(steps, rounds, QueryStatus.UNKNOWN, seconds=time.monotonic() - start)
    with Solver(name="cadical195", bootstrap_with=clauses) as solver:
        found = solve_sliced(solver, [], deadline)
        if not found:
            return SCCLOutcome(steps, rounds, QueryStatus.UNKNOWN, seconds=time.monotonic() - start)
        true = {x for x in solver.get_model() or [] if x > 0}
    per_step, schedule = _schedule(instance, pool, true, steps)
    report = simulate(instance, schedule)
    ok = report.valid and report.complete and len(schedule) <= rounds
    status = QueryStatus.SAT if ok else QueryStatus.UNKNOWN
    return SCCLOutcome(steps, rounds, status, per_step, schedule, report,
                       seconds=time.monotonic() - start)  # fmt: skip
