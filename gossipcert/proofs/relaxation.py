"""Refutations by relaxation: "``R`` rounds are impossible" from a few rows and columns.

The formula of :mod:`gossipcert.encodings.relaxed` keeps, of the telephone dissemination
matrix (a row per packet, a column per node), only the rows ``P`` and the columns ``Q``, over
the shared call variables of ``R`` rounds. :func:`refute_by_relaxation` chooses them lazily
(counter-example guided): it starts from the tightest row and column, solves, and on a model
replays its calls in the verifier. A complete replay is a real schedule of at most ``R``
rounds; otherwise the packet that the most nodes miss and the node that misses the most
packets are added, and the same solver goes on with the new clauses. When the solver refutes
the formula, the formula of ``(instance, R, sorted P, sorted Q)`` is rebuilt and refuted again
by CaDiCaL with a DRAT proof, which the independent checkers judge; ``check`` rebuilds that
CNF from the certificate's ``rows`` and ``columns`` and re-checks the proof.

Why a refutation is a lower bound (soundness)
---------------------------------------------
Take any telephone schedule of ``R`` rounds that meets every demand. Set ``C[u, v, t]`` to
its calls; they form a matching in each round, so the matching constraints hold. For a row
``p`` set ``K[p, v, t]`` to "``v`` knows ``p`` after round ``t`` in the schedule" and
``KV[p, v, u, t]`` to "``{v, u}`` is a call of round ``t`` and ``u`` knew ``p`` after round
``t - 1``". Knowledge at time 0 is the holdings; a node that knows ``p`` after round ``t``
knew it before or was in a call with a node that knew it (a call carries everything), so the
row step holds; every demand is met after round ``R``, so the row goal holds. For a column
``q`` set ``Z[q, v, t]`` to "there is a time-respecting path from ``v`` after round ``t`` to
``q`` by the end of round ``R``" (a sequence of calls in increasing rounds ``> t``, each
starting where the last ended, the last ending at ``q``; the empty path when ``v = q``), and
``ZV[q, v, u, t]`` to "``{v, u}`` is a call of round ``t + 1`` and ``Z[q, u, t + 1]``". After
round ``R`` only the empty path remains, so ``Z[q, v, R]`` holds exactly for ``v = q``; a
path from ``v`` after round ``t`` either waits at ``v`` through round ``t + 1`` or starts
with a call ``{v, u}`` of round ``t + 1``, after which it is a path from ``u`` after round
``t + 1``: the column step holds. Along such a path everything ``v`` held after round ``t``
is carried to ``q`` (a call copies all of a node's knowledge to the other end, and knowledge
is never lost), and conversely a packet that reaches ``q`` travelled along such a path from
some holder at time 0; since ``q``'s demands are met, each packet ``q`` demands and does not
hold has a holder ``v`` with ``Z[q, v, 0]``: the column goal holds. So every schedule of
``R`` rounds satisfies the relaxed formula, whatever ``P`` and ``Q``; if it is unsatisfiable,
no schedule of ``R`` rounds exists and the optimum is at least ``R + 1``. The argument uses
no symmetry, dominance or ordering rule, so the DRAT proof of the relaxed CNF covers the
whole claim beyond this paragraph.

The relaxation is strongest where packets are tight: on de Bruijn 6 at 7 rounds, the two
self-looped nodes as rows and columns are already contradictory, while the whole formula
needs a split of 36 cubes.

References
----------
.. [1] E. Clarke, O. Grumberg, S. Jha, Y. Lu, H. Veith, "Counterexample-guided abstraction
   refinement", CAV 2000 (the lazy refinement).
.. [2] N. Wetzler, M. Heule, W. Hunt, "DRAT-trim: efficient checking and trimming using
   expressive clausal proofs", SAT 2014.
.. [3] R. Beier and J. F. Sibeyn, "A powerful heuristic for telephone gossiping" (the
   instances, Tables 5 and 6).
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import networkx as nx
from pysat.solvers import Solver

from gossipcert.encodings import EncodingOptions
from gossipcert.encodings.cnf import StandaloneCNF
from gossipcert.encodings.relaxed import RelaxedTelephone, relaxation_applies
from gossipcert.errors import CertificateError, SolverError
from gossipcert.instance import Instance, bits
from gossipcert.proofs.refutation import (
    PROOF_SOLVER,
    check_stored_refutation,
    checked_refutation,
    proof_record,
)
from gossipcert.schedule import Schedule
from gossipcert.simulate import Report, simulate
from gossipcert.solvers.backends import solve_sliced
from gossipcert.statuses import QueryStatus

#: the evidence kind of a relaxation refutation
KIND = "drat-relaxed"
#: how the evidence names the method
METHOD = "row-column relaxation"

Progress = Callable[[dict[str, Any]], None]


#: a solver's answer (None: out of time) as a query's status
_ANSWER = {None: QueryStatus.UNKNOWN, True: QueryStatus.SAT, False: QueryStatus.UNSAT}


@dataclass
class RelaxationResult:
    """Outcome of :func:`refute_by_relaxation`.

    ``status`` is ``unsat`` (with ``evidence`` when the proof was asked for and verified),
    ``sat`` (``schedule`` meets every demand within ``rounds``, verified) or ``unknown``;
    ``rows`` and ``columns`` are those in the formula at the end, in the order added.
    """

    status: QueryStatus
    rounds: int
    rows: list[int]
    columns: list[int]
    iterations: int
    seconds: float
    schedule: Schedule | None = None
    evidence: dict[str, Any] | None = None
    log: list[dict[str, Any]] = field(default_factory=list)


def _distances(instance: Instance) -> dict[int, dict[int, int]]:
    return dict(nx.all_pairs_shortest_path_length(instance.graph))


def row_order(instance: Instance) -> list[int]:
    """The packets, tightest first: the farthest demander from the nearest holder (the
    broadcast slack ``R - b(p)`` is at most ``R`` minus that distance), then the fewest
    edges at the holders, then the packet number.

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> row_order(parse_instance("path:5", "telephone", "gossip"))[:2]
    [0, 4]
    """
    dist = _distances(instance)
    deg = dict(instance.graph.degree())

    def key(p: int) -> tuple[int, int, int]:
        holders = [v for v in range(instance.n) if instance.holdings[v] >> p & 1]
        far = max(
            (
                min(dist[h].get(v, 0) for h in holders)
                for v in range(instance.n)
                if instance.demands[v] >> p & 1
            ),
            default=0,
        )
        return (-far, sum(deg[h] for h in holders), p)

    return sorted(range(instance.n_packets), key=key)


def column_order(instance: Instance) -> list[int]:
    """The nodes that demand a packet they lack, tightest first: the farthest nearest holder
    of a demanded packet, then the fewest edges, then the node number."""
    dist = _distances(instance)
    deg = dict(instance.graph.degree())

    def key(q: int) -> tuple[int, int, int]:
        far = max(
            min(dist[v].get(q, 0) for v in range(instance.n) if instance.holdings[v] >> p & 1)
            for p in bits(instance.demands[q] & ~instance.holdings[q])
        )
        return (-far, deg[q], q)

    wanting = [q for q in range(instance.n) if instance.demands[q] & ~instance.holdings[q]]
    return sorted(wanting, key=key)


def relaxed_cnf(
    instance: Instance, rounds: int, rows: Sequence[int], columns: Sequence[int]
) -> StandaloneCNF:
    """The CNF of the relaxed formula with the rows and the columns each in increasing order
    (the CNF a certificate's proof refutes; the same text for the same sets)."""
    rel = RelaxedTelephone(instance, rounds)
    rel.add(sorted(set(rows)), sorted(set(columns)))
    clauses = rel.formula.cnf_since(0)
    return StandaloneCNF(rounds, EncodingOptions(), rel.formula.vpool.top, clauses, 0)


def _alone_refuted(
    instance: Instance, rounds: int, row: int | None, column: int | None, deadline: float | None
) -> bool:
    """Whether one row (or one column) alone is refuted at ``rounds`` before ``deadline``."""
    rel = RelaxedTelephone(instance, rounds)
    rel.add([] if row is None else [row], [] if column is None else [column])
    with Solver(name=PROOF_SOLVER, bootstrap_with=rel.formula.cnf_since(0)) as solver:
        return solve_sliced(solver, [], deadline) is False


def slack(
    instance: Instance, rounds: int, seconds: float = 2.0
) -> tuple[dict[int, int], dict[int, int]]:
    """Per packet and per node, how tight it is at ``rounds``: 0 when its row (column) alone
    is refuted at ``rounds - 1`` (its broadcast, or gather, needs every round), 1 when
    refuted at ``rounds - 2``, else 2 (also when a check takes more than ``seconds``). For
    gossip one node per automorphism orbit is checked (an automorphism maps a schedule,
    a row and a column onto others of the same length).

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> rows, columns = slack(parse_instance("debruijn:6", "telephone", "gossip"), 8)
    >>> sorted(p for p in rows if rows[p] == 0), sorted(q for q in columns if columns[q] == 0)
    ([0, 63], [0, 63])
    """
    from gossipcert.instance import ProblemKind
    from gossipcert.symmetry.automorphisms import automorphism_generators, orbit_roots

    gossip = instance.problem.kind is ProblemKind.GOSSIP
    gens = automorphism_generators(instance) if gossip else []
    roots = orbit_roots(list(range(instance.n)), lambda v: [g[v] for g in gens])

    def measure(row: int | None, column: int | None) -> int:
        for gap in (1, 2):
            until = time.monotonic() + seconds
            if rounds >= gap and _alone_refuted(instance, rounds - gap, row, column, until):
                return gap - 1
        return 2

    rows: dict[int, int] = {}
    columns: dict[int, int] = {}
    for p in range(instance.n_packets):
        key = roots[p] if gossip else p
        rows[p] = rows[key] if key in rows else measure(key, None)
    for q in column_order(instance):
        key = roots[q] if gossip else q
        columns[q] = columns[key] if key in columns else measure(None, key)
    return rows, columns


def _pick(
    counts: Counter[int], taken: list[int], order: list[int], tight: dict[int, int] | None
) -> int | None:
    """The candidate missed most, not yet taken (the tightest first when ``tight`` is
    given); ties by ``order``."""
    rank = {x: i for i, x in enumerate(order)}
    left = [x for x in counts if x not in taken and x in rank]
    if not left:
        left = [x for x in order if x not in taken]
    first = tight or {}
    return min(left, key=lambda x: (first.get(x, 0), -counts[x], rank[x]), default=None)


def refute_by_relaxation(
    instance: Instance,
    rounds: int,
    deadline: float | None = None,
    rows: Sequence[int] | None = None,
    columns: Sequence[int] | None = None,
    proof: bool = True,
    max_rows: int | None = None,
    progress: Progress | None = None,
    tight: bool = False,
) -> RelaxationResult:
    """Refute ``rounds`` rounds with the fewest rows and columns found, or find a schedule.

    Parameters
    ----------
    instance : Instance
        Telephone, unbounded packets, no call limit.
    rounds : int
    deadline : float, optional
        A ``time.monotonic()`` value for the search and the proof together.
    rows, columns : sequence of int, optional
        The first rows (packet numbers) and columns (node numbers); default: the tightest
        one of each (:func:`row_order`, :func:`column_order`).
    proof : bool
        Prove a refutation with DRAT and check it (its ``evidence``).
    max_rows : int, optional
        Stop (``unknown``) rather than go beyond this many rows (and as many columns).
    progress : callable, optional
        Called with a dict per solver call.
    tight : bool
        Measure every packet's and node's :func:`slack` first; start from all rows and
        columns of slack 0 (unless given) and add the tightest missed ones first.

    Returns
    -------
    RelaxationResult

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> inst = parse_instance("path:4", "telephone", "gossip")
    >>> refute_by_relaxation(inst, 2, proof=False).status
    <QueryStatus.UNSAT: 'unsat'>
    >>> refute_by_relaxation(inst, 3, proof=False).status
    <QueryStatus.SAT: 'sat'>
    """
    start = time.monotonic()
    rel, orders, slacks = _first_relaxation(instance, rounds, rows, columns, tight)
    log: list[dict[str, Any]] = []
    solver = Solver(name=PROOF_SOLVER)
    mark, iterations = 0, 0

    def result(status: QueryStatus, **kw: Any) -> RelaxationResult:
        return RelaxationResult(
            status,
            rounds,
            list(rel.rows),
            list(rel.columns),
            iterations,
            time.monotonic() - start,
            log=log,
            **kw,
        )

    try:
        while True:
            solver.append_formula(rel.formula.cnf_since(mark))
            mark = rel.formula.mark()
            found = _solve_logged(solver, rel, rounds, deadline, log, progress)
            iterations += 1
            if found is None:
                return result(QueryStatus.UNKNOWN)
            if not found:
                break
            sched, rep = _model_schedule(instance, rel, solver)
            if rep.complete:
                assert rep.rounds is not None
                return result(QueryStatus.SAT, schedule=Schedule(sched.rounds[: rep.rounds]))
            if max_rows is not None and len(rel.rows) >= max_rows:
                return result(QueryStatus.UNKNOWN)
            _add_missed(rel, rep, orders, slacks)
    finally:
        solver.delete()
    if not proof:
        return result(QueryStatus.UNSAT)
    return result(
        QueryStatus.UNSAT, evidence=prove_relaxed(instance, rounds, rel.rows, rel.columns, deadline)
    )


#: the order rows and columns are added in (:func:`row_order`, :func:`column_order`), and
#: their slacks when measured (:func:`slack`; None otherwise)
_Orders = tuple[list[int], list[int]]
_Slacks = tuple[dict[int, int] | None, dict[int, int] | None]


def _first_relaxation(
    instance: Instance,
    rounds: int,
    rows: Sequence[int] | None,
    columns: Sequence[int] | None,
    tight: bool,
) -> tuple[RelaxedTelephone, _Orders, _Slacks]:
    """The relaxation :func:`refute_by_relaxation` starts from (``rows`` and ``columns``,
    else the tightest row and column, or with ``tight`` every one of slack 0), the orders
    it grows in and the slacks."""
    r_order, c_order = row_order(instance), column_order(instance)
    row_slack: dict[int, int] | None = None
    column_slack: dict[int, int] | None = None
    first_rows, first_columns = r_order[:1], c_order[:1]
    if tight:
        row_slack, column_slack = slack(instance, rounds)
        first_rows = [p for p in r_order if row_slack[p] == 0] or first_rows
        first_columns = [q for q in c_order if column_slack[q] == 0] or first_columns
    rel = RelaxedTelephone(instance, rounds)
    rel.add(first_rows if rows is None else rows, first_columns if columns is None else columns)
    return rel, (r_order, c_order), (row_slack, column_slack)


def _solve_logged(
    solver: Any,
    rel: RelaxedTelephone,
    rounds: int,
    deadline: float | None,
    log: list[dict[str, Any]],
    progress: Progress | None,
) -> bool | None:
    """One solver call on the relaxation so far, its event logged (and told)."""
    t0 = time.monotonic()
    found = solve_sliced(solver, [], deadline)
    event = {
        "event": "relaxation",
        "rounds": rounds,
        "rows": len(rel.rows),
        "columns": len(rel.columns),
        "status": _ANSWER[found],
        "seconds": round(time.monotonic() - t0, 3),
    }
    log.append(event)
    if progress is not None:
        progress(event)
    return found


def _model_schedule(
    instance: Instance, rel: RelaxedTelephone, solver: Any
) -> tuple[Schedule, Report]:
    """The calls of the solver's model as a schedule, and the verifier's report on it.

    Raises
    ------
    SolverError
        The calls break the telephone model (a wrong encoding, never a wrong instance).
    """
    true = {x for x in solver.get_model() or [] if x > 0}
    sched = rel.decode(true.__contains__)
    rep = simulate(instance, sched)
    if not rep.valid:
        raise SolverError(
            f"the relaxation's calls break the telephone model: {rep.errors[0].message}"
        )
    return sched, rep


def _add_missed(rel: RelaxedTelephone, rep: Report, orders: _Orders, slacks: _Slacks) -> None:
    """Add to ``rel`` the row and the column that the schedule misses most (ties broken by
    ``orders`` and ``slacks``)."""
    by_packet = Counter(p for _, p in rep.unmet)
    by_node = Counter(v for v, _ in rep.unmet)
    p = _pick(by_packet, rel.rows, orders[0], slacks[0])
    q = _pick(by_node, rel.columns, orders[1], slacks[1])
    if p is not None:
        rel.add_row(p)
    if q is not None:
        rel.add_column(q)


def prove_relaxed(
    instance: Instance,
    rounds: int,
    rows: Sequence[int],
    columns: Sequence[int],
    deadline: float | None = None,
) -> dict[str, Any] | None:
    """The checked DRAT evidence that the relaxed formula is unsatisfiable, or None when the
    proof or its check does not finish in time.

    Raises
    ------
    SolverError
        The formula is satisfiable, or the checkers reject the proof.
    """
    cnf = relaxed_cnf(instance, rounds, rows, columns)
    checked = checked_refutation(
        cnf,
        deadline,
        f"the relaxed CNF for {rounds} rounds is satisfiable",
        "the relaxation's DRAT proof",
    )
    if checked is None:
        return None
    pr, verdict = checked
    return {
        "kind": KIND,
        "method": METHOD,
        "rounds": rounds,
        "rows": sorted(set(rows)),
        "columns": sorted(set(columns)),
        **proof_record(cnf, pr, verdict),
        "note": "rows are packet numbers, columns node numbers; the relaxed CNF keeps those "
        "rows and columns of the dissemination matrix (gossipcert.proofs.relaxation)",
    }


def _index_list(value: Any, size: int, what: str) -> list[int]:
    """A stored list of distinct numbers ``0..size-1`` in increasing order."""
    if (
        not isinstance(value, list)
        or not all(isinstance(x, int) and not isinstance(x, bool) for x in value)
        or value != sorted(set(value))
        or any(not 0 <= x < size for x in value)
    ):
        raise CertificateError(f"'{what}' must be increasing distinct numbers from 0 to {size - 1}")
    return value


def check_relaxed_evidence(
    instance: Instance,
    rounds: int,
    ev: dict[str, Any],
    cert: dict[str, Any],
    time_limit: float | None,
    out: Any,
    full: bool = False,
) -> None:
    """Re-check a ``drat-relaxed`` evidence into ``out`` (a certificate's ``CheckReport``):
    the model is covered, the CNF rebuilt from ``(instance, rounds, rows, columns)`` has the
    stored hash, and every checker verifies the stored proof."""
    if not relaxation_applies(instance):
        out.add(False, f"the relaxation does not cover the model {instance.model.spec()}")
        return
    rows = _index_list(ev.get("rows"), instance.n_packets, "rows")
    columns = _index_list(ev.get("columns"), instance.n, "columns")
    out.add(
        cert.get("symmetry_breaking") is False,
        "no symmetry argument involved (symmetry_breaking false)",
    )
    out.add(
        True,
        f"the claim rests on the {METHOD} (sound by the argument in "
        "gossipcert.proofs.relaxation) and the proof",
    )
    cnf = relaxed_cnf(instance, rounds, rows, columns)
    what = f"relaxed CNF for {rounds} rounds, {len(rows)} rows and {len(columns)} columns"
    check_stored_refutation(cnf, what, ev, time_limit, out, full)


#: the relaxation step of ``solve`` runs on instances with at least this many nodes ...
STEP_MIN_NODES = 24
#: ... for at most this many seconds ...
STEP_SECONDS = 120.0
#: ... and at most this share of the time left ...
STEP_SHARE = 0.3
#: ... keeping at most this share of the packets as rows (and as many columns): beyond it
#: the relaxed CNF and its proof are no longer small beside the full formula's (on
#: butterfly:3 a refutation with 3 of 24 rows took a proof four times the full formula's
#: and ten times its time)
STEP_ROW_SHARE = 0.1


def step_applies(instance: Instance) -> bool:
    """Whether ``solve`` tries the relaxation step on ``instance``: telephone, at least
    :data:`STEP_MIN_NODES` nodes and several packets (with one packet the single row is the
    whole problem, which the broadcast encoding already solves)."""
    return relaxation_applies(instance) and instance.n >= STEP_MIN_NODES and instance.n_packets > 1


def step_rows(instance: Instance) -> int:
    """The most rows (and columns) the step keeps: :data:`STEP_ROW_SHARE` of the packets,
    at least one.

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> step_rows(parse_instance("ccc:6", "telephone", "gossip"))
    38
    """
    return max(1, int(instance.n_packets * STEP_ROW_SHARE))


def relaxation_step(search: Any) -> None:
    """The refutation step of ``solve`` before the full formula.

    From the lower bound ``L`` upwards while ``L < U``, each horizon is refuted by
    :func:`refute_by_relaxation` within the step's budget: a checked refutation raises ``L``
    (its evidence becomes the lower bound's), a schedule from the relaxation is verified and
    lowers ``U``; the first horizon not settled ends the step. ``search`` is the
    :class:`gossipcert.search.rounds._Search` being run; it needs a DRAT proof (``proof``) and
    a schedule.
    """
    if not search.proof or search.upper is None or not step_applies(search.instance):
        return
    now = time.monotonic()
    budget = STEP_SECONDS
    if search.deadline is not None:
        budget = min(budget, (search.deadline - now) * STEP_SHARE)
    until = now + budget
    while search.lower < search.upper and time.monotonic() < until:
        r = search.lower
        out = refute_by_relaxation(search.instance, r, until, max_rows=step_rows(search.instance))
        search.emit(
            {
                "event": "query",
                "rounds": r,
                "status": out.status,
                "seconds": round(out.seconds, 3),
                "method": METHOD,
                "rows": out.rows,
                "columns": out.columns,
            }
        )
        if out.status == QueryStatus.SAT and out.schedule is not None:
            rep = simulate(search.instance, out.schedule)
            if not rep.ok:
                raise SolverError("the relaxation's schedule failed verification")
            search.best = (out.schedule, rep)
            search.upper_source = "relaxation"
            search.tell_upper()
        elif out.status == QueryStatus.UNSAT and out.evidence is not None:
            search.lower, search.lower_evidence = r + 1, out.evidence
            search.emit({"event": "lower-bound", "value": search.lower, "source": METHOD})
        else:
            return
