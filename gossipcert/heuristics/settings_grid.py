"""The matching heuristic over a grid of settings within a time budget (the command
line's ``heuristic --sweep``; not a sweep of instances, which is :mod:`gossipcert.tables`).

Section 5.2 of [1]_ tunes ``Dist_Exp`` by hand per graph class and size ("values in the
range from 0.25 to 60 ... larger graphs prefer larger values ... better results when
Dist_Exp decreases from round to round") and section 5.3 adds look-ahead for small graphs.
The sweep runs the heuristic for a short list of settings, default first, keeps the shortest
verified schedule (under linear cost the cheapest, ``R + tau*h*S``; the first one on ties),
and stops when the budget cannot pay for another run (estimated by the slowest run so far)
or when a schedule meets the given lower bound.

References
----------
.. [1] R. Beier and J. F. Sibeyn, "A powerful heuristic for telephone gossiping", sections 5.2
   and 5.3.
"""

from __future__ import annotations

import sys
import time
from dataclasses import dataclass, field, replace
from typing import TextIO

from gossipcert.errors import HeuristicError
from gossipcert.heuristics.matching import (
    MatchingParams,
    MatchingResult,
    Progress,
    long_flow_fits,
    resolved_approach,
    resolved_matcher,
    run_matching,
)
from gossipcert.instance import Instance, require_unit_latencies

#: graphs up to this many nodes also try look-ahead in the sweep
LOOK_AHEAD_NODES = 200


@dataclass(frozen=True)
class SweepResult:
    """The best schedule of a sweep and every setting tried.

    Attributes
    ----------
    best : MatchingResult
    tried : list of (str, int or None, float)
        Each setting's description, its rounds (None if it gave up) and its seconds.
    """

    best: MatchingResult
    tried: list[tuple[str, int | None, float]] = field(default_factory=list)


def default_grid(instance: Instance, base: MatchingParams | None = None) -> list[MatchingParams]:
    """The settings a sweep tries, ``base`` first (but see below).

    On graphs of large diameter where ``base`` resolves to the bitset weights and the
    double-cover matching and the level-list flow weights are affordable
    (:func:`~gossipcert.heuristics.matching.long_flow_fits`), the flow weights with
    ``Dist_Exp`` 60 decreasing by 0.99 and by 0.98 a round come first, then ``base``.
    The greedy matching with ``base``'s weights second where ``base`` takes the
    double-cover matching, and third the greedy matching with ``Dist_Exp`` 16 decreasing by
    a factor 0.98 a round; with the flow weights, fourth and fifth ``base`` with
    ``Dist_Exp`` 60 decreasing by 0.98 and by 0.99 a round (square meshes); then
    ``Dist_Exp`` in 8, 4, 16, 1, 32, 2, with and without a decrease (factor 0.9 a round);
    the bitset BFS approach's band 0 and 1 (when the setting resolves to it); look-ahead
    (one round, four candidates) on small graphs.

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> grid = default_grid(parse_instance("ring:6", "telephone", "gossip"))
    >>> grid[0].describe()
    'auto dist-exp=8 band=0'
    >>> len(grid) > 10
    True
    """
    base = base or MatchingParams()
    # each resolution prepares the instance (seconds on Mesh 80x80): once each
    approach = resolved_approach(instance, base)
    cover = base.approx is None and resolved_matcher(instance, base) == "cover"
    grid = []
    if base.approach == "auto" and approach == "bfs" and cover and long_flow_fits(instance):
        # graphs of large diameter (Mesh 80x80) where `auto` takes the bitset weights for
        # the cost of the dense flow form: the level-list flow weights with Dist_Exp 60
        # decreasing by 0.99 and by 0.98 a round first (Mesh 80x80 in 158 rounds, the
        # diameter, with 0.99; the bitset weights miss the diameter already on 13x13)
        flow = replace(base, approach="flow", dist_exp=60.0)
        grid += [replace(flow, dist_exp_decay=0.99), replace(flow, dist_exp_decay=0.98)]
    grid.append(base)
    if cover:
        # the greedy matching second: on meshes its ties in edge order beat the heavier
        # double-cover matching (Mesh 80x80 in 159 rounds against 164, 40x40 in 78 against 80)
        grid.append(replace(base, approx=True))
        # and third with a Dist_Exp that starts high and decreases (section 5.2): on meshes the
        # two miss the diameter on different sizes (16x16: 31 and 30; 32x32: 62 and 63)
        grid.append(replace(base, approx=True, dist_exp=16.0, dist_exp_decay=0.98))
        if approach == "flow":
            # then the heavy matching again with Dist_Exp 60, the top of section 5.2's range
            # ("larger graphs prefer larger values"), decreasing by 0.98 and by 0.99 a round:
            # with the flow weights one or the other reaches the diameter on every square
            # mesh from 8x8 to 40x40, where the three settings above miss it on some
            # (17x17 in 33 rounds and 19x19 in 37 with each of them)
            grid.append(replace(base, dist_exp=60.0, dist_exp_decay=0.98))
            grid.append(replace(base, dist_exp=60.0, dist_exp_decay=0.99))
    # the band is a setting of the bitset weights only
    bands = (0, 1) if approach == "bfs" else (base.band,)
    for de in (8.0, 4.0, 16.0, 1.0, 32.0, 2.0):
        for decay in (1.0, 0.9):
            for band in bands:
                grid.append(replace(base, dist_exp=de, dist_exp_decay=decay, band=band))
    if instance.n <= LOOK_AHEAD_NODES:
        for de in (8.0, 2.0):
            grid.append(replace(base, dist_exp=de, look_ahead=1, candidates=4))
    out: list[MatchingParams] = []
    for p in grid:
        if p not in out:
            out.append(p)
    return out


def best_of_grid(
    instance: Instance,
    time_limit: float = 30.0,
    *,
    grid: list[MatchingParams] | None = None,
    lower_bound: int = 0,
    progress: Progress | None = None,
    log: TextIO | None = None,
) -> SweepResult:
    """Run the matching heuristic over ``grid`` within ``time_limit`` seconds.

    Parameters
    ----------
    instance : Instance
    time_limit : float
        Seconds for the whole sweep; the first setting always runs to the end.
    grid : list of MatchingParams, optional
        Default :func:`default_grid`.
    lower_bound : int
        Stop as soon as a schedule has this many rounds.
    progress : callable, optional
        Passed to every run.
    log : file, optional
        One line per setting tried.

    Returns
    -------
    SweepResult

    Raises
    ------
    HeuristicError
        No setting produced a schedule.
    UnsupportedModelError
        A graph with latencies.

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> res = best_of_grid(parse_instance("mesh:3x3", "telephone", "gossip"), 60.0, lower_bound=5)
    >>> len(res.best.schedule)
    5
    """
    require_unit_latencies(instance, "the matching heuristic")
    grid = grid or default_grid(instance)
    start = time.monotonic()
    best: MatchingResult | None = None
    tried: list[tuple[str, int | None, float]] = []
    slowest = 0.0
    error: HeuristicError | None = None
    for params in grid:
        elapsed = time.monotonic() - start
        if tried and elapsed + slowest > time_limit:
            break
        began = time.monotonic()
        try:
            res = run_matching(instance, params, progress=progress)
        except HeuristicError as exc:
            error = exc
            tried.append((params.describe(), None, time.monotonic() - began))
            continue
        took = time.monotonic() - began
        slowest = max(slowest, took)
        tried.append((params.describe(), len(res.schedule), took))
        if log is not None:
            print(f"  {params.describe()}: {len(res.schedule)} rounds ({took:.1f}s)", file=log)
        if best is None or res.cost < best.cost:
            best = res
        if best.cost <= lower_bound:
            break
    if best is None:
        raise error or HeuristicError("the sweep tried no setting")
    return SweepResult(best, tried)


class ProgressLine:
    """Progress of a heuristic on stderr: rounds done and demands still unmet.

    Silent for the first ``after`` seconds, then one line at most every ``every`` seconds
    (overwritten in place on a terminal).
    """

    def __init__(
        self,
        enabled: bool = True,
        after: float = 2.0,
        every: float = 1.0,
        stream: TextIO = sys.stderr,
    ) -> None:
        self.enabled = enabled
        self.start = time.monotonic()
        self.after = after
        self.every = every
        self.stream = stream
        self.last = 0.0
        self.shown = False

    def __call__(self, rounds: int, missing: int) -> None:
        now = time.monotonic()
        if not self.enabled or now - self.start < self.after or now - self.last < self.every:
            return
        self.last = now
        tty = self.stream.isatty()
        text = f"{now - self.start:7.1f}s  round {rounds}, {missing} demands unmet"
        self.stream.write(("\r" + text + "   ") if tty else text + "\n")
        self.stream.flush()
        self.shown = True

    def close(self) -> None:
        """End the progress line (a newline after an in-place line)."""
        if self.shown and self.stream.isatty():
            self.stream.write("\n")
            self.stream.flush()
