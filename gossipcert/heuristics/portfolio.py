"""The default of ``gossipcert heuristic``: the paper's settings, best schedule kept.

Beier and Sibeyn do not run one setting of their heuristics: section 5.2 tunes ``Dist_Exp``
per graph ("values in the range from 0.25 to 60 ... larger graphs prefer larger values ...
better results when Dist_Exp decreases from round to round"; 4 for meshes, 2 for
butterflies), section 5.3 adds look-ahead, whose alternative matchings forbid randomly chosen
edges of the optimal one, and Table 5's HR is "the best heuristic result" of the matching and
the coloring heuristic (section 6: the coloring heuristic "outperforms the matching heuristic"
on the regular CCC, butterfly, star and pancake graphs). :func:`default_portfolio` lists a
small portfolio in that spirit, the same rule for every graph:

1. the coloring heuristic (:func:`~gossipcert.heuristics.coloring.coloring_heuristic`) on
   regular graphs under telephone with unbounded packets, for at most
   :data:`COLORING_SHARE` of the budget, searching down to the lower bound (first: it is
   fast where it applies, and on large graphs the matching heuristic's first run may use
   the whole budget);
2. the matching heuristic's default setting
   (:class:`~gossipcert.heuristics.matching.MatchingParams`; on graphs of large diameter
   where the flow weights fit, first the flow weights with ``Dist_Exp`` 60 decreasing by
   0.99, as in :func:`~gossipcert.heuristics.settings_grid.default_grid`);
3. the greedy matching (ties in edge order; meshes reach their diameter with it), then
   ``Dist_Exp`` 32 decreasing by 0.9 a round with the greedy and the exact matching, then 16
   decreasing by 0.98 (greedy), 60 decreasing by 0.98 and by 0.99 (with the flow weights),
   and the paper's named choices 4 and 2 (under linear cost also 1 and 0.5);
4. randomised restarts: one round of look-ahead over four candidate matchings with the
   seeds ``0 .. LOOK_AHEAD_RESTARTS - 1`` of the choice of forbidden edges.

:func:`run_portfolio` runs them in this order within a time budget and keeps the shortest
verified schedule (under linear cost the cheapest); it stops as soon as a schedule meets the
lower bound (by default the best closed-form bound,
:func:`~gossipcert.closed_forms.best_lower_bound`), or when the budget cannot pay for the next
entry (estimated by the slowest run of its kind so far, plain or with look-ahead; a
first look-ahead run by the slowest plain run times the rounds it weighs and plays). The
first run of the matching heuristic always runs to the end, so that every instance gets a
schedule.

Measured (``benchmarks/heuristics_default.py``): this portfolio reaches the paper's HR on
CCC 8 (18, the coloring heuristic), SE 8 (17, ``Dist_Exp`` 32 decreasing by 0.9 with the
greedy matching; the look-ahead restart with seed 3 reaches it too, when the budget gets
that far), Butterfly 8 (17, the coloring heuristic) and Mesh 20x20 (38, the greedy
matching), where the matching heuristic's default setting alone takes 19, 18, 19 and 39
(``results/heuristics-default-2026-11-27.md``).

References
----------
.. [1] R. Beier and J. F. Sibeyn, "A powerful heuristic for telephone gossiping", sections
   4.2, 5.2, 5.3 and 6, Table 5.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

from gossipcert.errors import (
    HeuristicError,
    NotApplicableError,
    SpecError,
    UnsupportedModelError,
)
from gossipcert.heuristics.matching import (
    MatchingParams,
    Progress,
    long_flow_fits,
    resolved_approach,
    resolved_matcher,
    run_matching,
)
from gossipcert.instance import Instance, ModelKind
from gossipcert.schedule import Schedule
from gossipcert.simulate import Report, simulate

#: the budget of ``gossipcert heuristic`` without options (seconds)
DEFAULT_SECONDS = 60.0

#: the coloring heuristic's share of the budget at most
COLORING_SHARE = 0.5

#: the randomised look-ahead restarts (seeds 0, 1, ...)
LOOK_AHEAD_RESTARTS = 4

#: the name of the coloring heuristic's entry in a portfolio
COLORING = "coloring"

#: one entry of a portfolio: a setting of the matching heuristic, or :data:`COLORING`
Entry = MatchingParams | str


@dataclass
class PortfolioResult:
    """The best verified schedule of a portfolio, what found it and what was tried: of the
    papers' heuristics one after the other (:func:`run_portfolio`), or of entrants racing
    in processes (:func:`gossipcert.finders.portfolio.race`).

    Attributes
    ----------
    schedule : Schedule or None
        Verified; None when no entrant of a race found one.
    report : Report or None
        The verifier's report on it (a race keeps it).
    entrant : str
        What found it: a heuristic's setting (:meth:`MatchingParams.describe`, or
        ``coloring sequence 0120...``), or a racing entrant and its label; ``none``.
    won : bool
        It reached ``lower_bound``, where the portfolio stops.
    log : list of dict
        A race: one row per schedule reported (entrant, label, valid, rounds, time).
    method : str
        ``"matching"`` or ``"coloring"``: the heuristic that found it (``run_portfolio``).
    cost : float
        Rounds, or under linear cost ``R + tau*h*S`` (infinite: no schedule).
    lower_bound : int or None
        The bound the portfolio stops at.
    seconds : float
        The whole run.
    tried : list of (str, int or None, float)
        Each entry's setting, its rounds (None: no schedule) and its seconds.
    sequence : str or None
        The coloring heuristic's matching sequence when it won.
    """

    schedule: Schedule | None
    report: Report | None
    entrant: str
    won: bool = False
    log: list[dict[str, Any]] = field(default_factory=list)
    method: str = ""
    cost: float = math.inf
    lower_bound: int | None = None
    seconds: float = 0.0
    tried: list[tuple[str, int | None, float]] = field(default_factory=list)
    sequence: str | None = None

    @property
    def rounds(self) -> int | None:
        """Length of the best schedule (None: none)."""
        if self.report is not None:
            return self.report.rounds
        return None if self.schedule is None else len(self.schedule)


def coloring_fits(instance: Instance) -> bool:
    """Whether the portfolio runs the coloring heuristic: telephone, unbounded packets, no
    limit on calls, and a regular graph (section 6: "most useful for g-regular networks").

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> coloring_fits(parse_instance("ccc:3", "telephone", "gossip"))
    True
    >>> coloring_fits(parse_instance("mesh:3x3", "telephone", "gossip"))
    False
    >>> coloring_fits(parse_instance("ccc:3", "half-duplex", "gossip"))
    False
    """
    model = instance.model
    if model.kind is not ModelKind.TELEPHONE or not model.unbounded:
        return False
    if model.calls_per_round is not None or model.tau is not None:
        return False
    degrees = {d for _, d in instance.graph.degree}
    return len(degrees) == 1 and instance.n >= 4


def default_portfolio(instance: Instance) -> list[Entry]:
    """The entries :func:`run_portfolio` runs by default, in order (see the module).

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> entries = default_portfolio(parse_instance("ccc:3", "telephone", "gossip"))
    >>> entries[0], entries[1].describe()
    ('coloring', 'auto dist-exp=8 band=0')
    >>> [e.describe() for e in entries[2:4]]
    ['auto dist-exp=8 band=0 approx', 'auto dist-exp=32 decay=0.9 band=0 approx']
    >>> entries[-1].describe()
    'auto dist-exp=8 band=0 look-ahead=1x4'
    """
    base = MatchingParams()
    approach = resolved_approach(instance, base)
    matcher = resolved_matcher(instance, base)
    entries: list[Entry] = []
    if approach == "bfs" and matcher == "cover" and long_flow_fits(instance):
        # large diameter (Mesh 80x80): the level-list flow weights, as the sweep's grid
        entries.append(replace(base, approach="flow", dist_exp=60.0, dist_exp_decay=0.99))
    entries.append(base)
    if coloring_fits(instance):
        entries.insert(0, COLORING)
    entries += [
        replace(base, approx=True),
        replace(base, dist_exp=32.0, dist_exp_decay=0.9, approx=True),
        replace(base, dist_exp=32.0, dist_exp_decay=0.9),
        replace(base, dist_exp=16.0, dist_exp_decay=0.98, approx=True),
    ]
    if approach == "flow":
        entries += [
            replace(base, dist_exp=60.0, dist_exp_decay=0.98),
            replace(base, dist_exp=60.0, dist_exp_decay=0.99),
        ]
    entries += [replace(base, dist_exp=4.0), replace(base, dist_exp=2.0)]
    if instance.model.tau is not None:
        # linear cost: "values between 0.5 and 2.5 are suitable" (section 5.2)
        entries += [replace(base, dist_exp=1.0), replace(base, dist_exp=0.5)]
    entries += [
        replace(base, look_ahead=1, candidates=4, seed=seed) for seed in range(LOOK_AHEAD_RESTARTS)
    ]
    out: list[Entry] = []
    for entry in entries:
        if entry not in out:
            out.append(entry)
    return out


def _estimate(entry: MatchingParams, slowest: dict[bool, float]) -> float:
    """Seconds a run of ``entry`` may take: the slowest run of its kind (plain or with
    look-ahead) so far; before the first look-ahead run, the slowest plain run times the
    rounds a look-ahead round weighs and plays (each candidate's matching and its rounds
    ahead, and their costs)."""
    if not entry.look_ahead:
        return slowest[False]
    if slowest[True]:
        return slowest[True]
    return slowest[False] * (1 + entry.candidates * (entry.look_ahead + 1))


def run_portfolio(
    instance: Instance,
    time_limit: float = DEFAULT_SECONDS,
    *,
    entries: list[Entry] | None = None,
    lower_bound: int | None = None,
    log: Callable[[str], None] | None = None,
    progress: Callable[[], Progress | None] | None = None,
) -> PortfolioResult:
    """Run a portfolio of the papers' heuristics and keep the best verified schedule.

    Parameters
    ----------
    instance : Instance
        Any model; the coloring heuristic only where :func:`coloring_fits`.
    time_limit : float
        Seconds for the whole portfolio; the first run of the matching heuristic (and
        the first entry) always runs to the end.
    entries : list, optional
        Default :func:`default_portfolio`.
    lower_bound : int, optional
        Stop as soon as a schedule costs this much; default the best closed-form lower
        bound on rounds (under linear cost a schedule costs more than its rounds, so the
        portfolio runs on).
    log : callable, optional
        Called with one line per entry tried: its setting, rounds and seconds.
    progress : callable, optional
        Called before every matching run; what it returns (if not None) is that run's
        progress callback (rounds done, demands unmet).

    Returns
    -------
    PortfolioResult

    Raises
    ------
    HeuristicError
        No entry produced a schedule.
    SpecError
        An entry is neither a :class:`MatchingParams` nor :data:`COLORING`.

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> res = run_portfolio(parse_instance("ring:8", "telephone", "gossip"))
    >>> len(res.schedule), res.lower_bound, len(res.tried)
    (4, 4, 1)
    """
    from gossipcert.closed_forms import best_lower_bound

    start = time.monotonic()
    if lower_bound is None:
        lower_bound = best_lower_bound(instance).value
    entries = entries if entries is not None else default_portfolio(instance)
    for entry in entries:
        if entry != COLORING and not isinstance(entry, MatchingParams):
            raise SpecError(f"unknown portfolio entry {entry!r}: a MatchingParams or 'coloring'")
    best: PortfolioResult | None = None
    tried: list[tuple[str, int | None, float]] = []
    slowest = {False: 0.0, True: 0.0}  # per kind: plain runs, look-ahead runs
    error: Exception | None = None
    for entry in entries:
        remaining = time_limit - (time.monotonic() - start)
        if isinstance(entry, MatchingParams):
            # nothing to estimate before the first run of the matching heuristic: it runs
            if (slowest[False] or slowest[True]) and _estimate(entry, slowest) > remaining:
                continue
        elif tried and remaining <= 0:
            continue
        began = time.monotonic()
        found: PortfolioResult | None = None
        try:
            if isinstance(entry, MatchingParams):
                callback = progress() if progress is not None else None
                res = run_matching(instance, entry, progress=callback)
                name = res.params.describe()
                found = PortfolioResult(res.schedule, None, name, method="matching", cost=res.cost)
                kind = bool(entry.look_ahead)
                slowest[kind] = max(slowest[kind], time.monotonic() - began)
            else:  # the coloring heuristic, at most its share of the budget
                share = min(remaining, COLORING_SHARE * time_limit)
                found = _coloring(instance, share, lower_bound)
        except (HeuristicError, NotApplicableError, UnsupportedModelError) as exc:
            error = exc
        took, rounds = time.monotonic() - began, None if found is None else found.rounds
        label = entry.describe() if isinstance(entry, MatchingParams) else str(entry)
        tried.append((found.entrant if found else label, rounds, took))
        if log is not None:
            text = "no schedule" if found is None else f"{rounds} rounds"
            if found is not None and found.cost != rounds:  # linear cost
                text += f", cost {found.cost:g}"
            log(f"  {tried[-1][0]}: {text} ({took:.1f}s)")
        if found is not None and (best is None or found.cost < best.cost):
            best = found
        if best is not None and best.cost <= lower_bound:
            break
    if best is None:
        raise HeuristicError(f"no heuristic of the portfolio found a schedule ({error})")
    took, won = time.monotonic() - start, best.cost <= lower_bound
    return replace(best, won=won, lower_bound=lower_bound, seconds=took, tried=tried)


def _coloring(instance: Instance, seconds: float, lower_bound: int) -> PortfolioResult:
    """The coloring heuristic's schedule within ``seconds``, searched down to the bound."""
    from gossipcert.heuristics.coloring import coloring_heuristic

    res = coloring_heuristic(instance, min_rounds=max(1, lower_bound), time_limit=seconds)
    rep = simulate(instance, res.schedule)
    if not rep.ok:
        raise HeuristicError(f"the coloring sequence {res.sequence} failed verification")
    setting = f"coloring sequence {res.sequence}"
    return PortfolioResult(
        res.schedule,
        rep,
        setting,
        method="coloring",
        cost=float(len(res.schedule)),
        sequence=res.sequence,
    )
