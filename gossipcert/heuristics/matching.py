"""The matching heuristic of Beier and Sibeyn, for every model.

Every round (algorithm ROUND_HEURISTIC of [1]_, section 4.1):

1. weigh every edge by the current knowledge — the *potential approach* or the *BFS
   approach* of :mod:`gossipcert.heuristics.weights` and :mod:`gossipcert.heuristics.flow`
   (``Dist_Exp`` may decrease from round to round, section 5.2);
2. take a maximum-weight matching — exact (networkx) up to :data:`EXACT_MATCHING_NODES`
   nodes, above them the double-cover matching of :mod:`gossipcert.heuristics.
   cover_matching` (exact on bipartite graphs at any size, and used there also when the
   exact matching is asked for) unless it is lighter than the greedy one, or greedy (the
   approximate matching of section 4.2) on request. The greedy matching takes equal
   weights in edge order, the paper's "most natural ordering" under which hypercubes
   gossip optimally (section 4.2); the double-cover matching is kept only when strictly
   heavier. Optionally the matching is chosen among a few candidates by *look-ahead*: the
   optimal matching and variants with a few of its edges forbidden (chosen by a seeded generator)
   are each followed by ``look_ahead`` plain rounds, and the candidate whose resulting
   packet distribution ``D`` finishes first, else has the least
   ``cost(D) = sum_p sum_v dist_v(p, D) ** Dist_Exp`` over the demanding nodes ``v``, wins;
3. the matched pairs communicate: under telephone both ends send everything; under
   half-duplex the edge is used in its heavier direction. Under the other models the
   pairs call as under telephone (a valid single-port, multicast and all-port round), and
   :func:`~gossipcert.heuristics.model_fit.fit_rounds` splits a round whose transmissions
   carry more than the packet cap or an arc's capacity, or that has more calls than the
   model allows.

Any problem works (gossip, broadcast, general dispersion): only packets some node still
demands carry weight. Knowledge is packed in 64-bit words (:mod:`~gossipcert.heuristics.
bitsets`), so a round on a 10,000-node gossip instance is a few hundred NumPy operations on
``10,000 x 157`` word arrays. The run is deterministic: ties go to the edge order, look-ahead
draws from ``random.Random(seed)``.

Why these defaults (readings of section 4 tried on graphs of 512 to 8,192 nodes): the
paper's step 2 is a *maximum* weighted matching, and section 5.3 says the approximate one
loses a round or two on de Bruijn and shuffle-exchange graphs. A greedy matching above 300
nodes cost exactly that: telephone gossip on DeBruijn 10 took 19-20 rounds with it and takes
18 (the paper's) with the double-cover matching; Knödel 1024 took 12 and takes 11. The
weights with node counts (flow) beat the bitset form, which keeps only whether a border
edge leads to some farthest node: Knödel 1024 in 11 rounds against 14. Both run at the
paper's scale now: ``auto`` takes the flow weights up to :data:`FLOW_WORK`, and a sweep
tries them first on graphs of large diameter up to :data:`FLOW_LEVELS_WORK`
(:func:`long_flow_fits`; Mesh 80x80 reaches its diameter, 158, in about 9 CPU minutes).

Termination: while a demand is unmet, the packet with the largest remaining eccentricity has
a border edge on a shortest path to its farthest demanding node, so some edge has a positive
weight; every chosen edge teaches its receiver a packet it lacked that some node demands.
The number of rounds is therefore at most :func:`round_bound`; the heuristic raises
:class:`~gossipcert.errors.HeuristicError` if that bound (or ``max_rounds``) is passed.

References
----------
.. [1] R. Beier and J. F. Sibeyn, "A powerful heuristic for telephone gossiping", sections 4-5.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from dataclasses import dataclass, replace

import networkx as nx
import numpy as np

from gossipcert.errors import HeuristicError, SpecError
from gossipcert.heuristics.bitsets import (
    Index,
    Words,
    edge_arrays,
    neighbour_table,
    pack,
    popcount,
)
from gossipcert.heuristics.cover_matching import cover_matching, is_bipartite
from gossipcert.heuristics.flow import flow_weights
from gossipcert.heuristics.linear_cost import choose_packets
from gossipcert.heuristics.model_fit import fit_rounds
from gossipcert.heuristics.pairing import exact_matching, greedy_matching, improve_matching
from gossipcert.heuristics.weights import (
    EdgeWeights,
    bfs_weights,
    potential_weights,
    reach_sets,
)
from gossipcert.instance import Instance, Model, require_unit_latencies
from gossipcert.schedule import Round, Schedule, Transmission
from gossipcert.simulate import simulate

#: graphs up to this many nodes get the exact matching unless asked otherwise
EXACT_MATCHING_NODES = 300

#: the flow form of the BFS weights when its estimated work, (node, packet) pairs times
#: degree times the square of the first round's largest distance (levels per round times
#: rounds), is at most this (a few CPU minutes; Knödel 8192 is 4e10), the bitset form
#: above (Hypercube 13 at 1.5e11, meshes of thousands of nodes at 1e12 and more)
FLOW_WORK = 1e11

#: graphs whose first round's largest distance is at least this (meshes, tori, rings) and
#: whose flow weights fit :data:`FLOW_LEVELS_WORK` try the flow weights first in a sweep,
#: even where ``auto`` takes the bitset weights (:func:`long_flow_fits`)
LONG_DEPTH = 32

#: the work of the level-list flow weights (:mod:`~gossipcert.heuristics.flow_levels`):
#: (node, packet) pairs times degree times the first round's largest distance (one pass
#: over the cells per round, at most that many rounds); Mesh 80x80 is 2.6e10 (about 500
#: CPU seconds)
FLOW_LEVELS_WORK = 5e10

#: the flow weights guess the round's largest distance as the last one's minus one when it
#: fell by one in the last round and is above this (meshes: every round of a good run);
#: the guess is checked, so it changes no weight, only the work
GUESS_TOP_FROM = 16

#: progress callback: (rounds done, (node, packet) demands still unmet)
Progress = Callable[[int, int], None]


@dataclass(frozen=True)
class MatchingParams:
    """The parameters of one run of the matching heuristic.

    Attributes
    ----------
    approach : str
        ``"flow"`` (BFS approach with node counts), ``"bfs"`` (its bitset form for large
        graphs), ``"potential"``, or ``"auto"``: ``flow`` up to :data:`FLOW_WORK`,
        ``bfs`` above.
    dist_exp : float
        ``Dist_Exp`` in round 1.
    dist_exp_decay : float
        ``Dist_Exp`` is multiplied by this after every round (never below 1).
    band : int
        Bitset BFS approach: demanding nodes within ``band`` of a packet's eccentricity
        are targets.
    num_exp : float
        Flow BFS approach: ``Num_Exp``, how a node's weight is divided over its paths.
    approx : bool or None
        True: the greedy matching; False: the exact one (networkx; the double-cover
        assignment on bipartite graphs); None: exact up to :data:`EXACT_MATCHING_NODES`
        nodes, the double-cover matching above.
    look_ahead : int
        Rounds of look-ahead (0: none).
    candidates : int
        Matchings compared per round when looking ahead.
    seed : int
        Seed of the look-ahead's choice of forbidden edges.
    """

    approach: str = "auto"
    dist_exp: float = 8.0
    dist_exp_decay: float = 1.0
    band: int = 0
    num_exp: float = 1.0
    approx: bool | None = None
    look_ahead: int = 0
    candidates: int = 4
    seed: int = 0

    def describe(self) -> str:
        """A short text such as ``bfs dist-exp=2 band=0 exact``."""
        parts = [self.approach]
        if self.approach != "potential":
            parts.append(f"dist-exp={self.dist_exp:g}")
            if self.dist_exp_decay != 1.0:
                parts.append(f"decay={self.dist_exp_decay:g}")
        if self.approach in ("auto", "bfs"):
            parts.append(f"band={self.band}")
        if self.approach in ("auto", "flow") and self.num_exp != 1.0:
            parts.append(f"num-exp={self.num_exp:g}")
        if self.approx is not None:
            parts.append("approx" if self.approx else "exact")
        if self.look_ahead:
            parts.append(f"look-ahead={self.look_ahead}x{self.candidates}")
        return " ".join(parts)


@dataclass(frozen=True)
class MatchingResult:
    """A verified schedule of the matching heuristic and how it was found.

    ``cost`` is what a sweep minimises: the rounds, or under linear cost ``R + tau*h*S``.
    """

    schedule: Schedule
    params: MatchingParams
    seconds: float
    cost: float


def round_bound(instance: Instance) -> int:
    """The most rounds the heuristic can take: the (node, packet) pairs it may have to teach.

    A pair counts when the node lacks a packet at the start that some node demands.

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> round_bound(parse_instance("star:4", "half-duplex", "gossip"))
    12
    """
    lacking = 0
    for d, h in zip(instance.demands, instance.holdings, strict=False):
        lacking |= d & ~h
    return sum((lacking & ~h).bit_count() for h in instance.holdings)


def resolved_approach(instance: Instance, params: MatchingParams) -> str:
    """The weighting a run with ``params`` uses: ``"auto"`` resolved by :data:`FLOW_WORK`.

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> resolved_approach(parse_instance("ring:8", "telephone", "gossip"), MatchingParams())
    'flow'
    >>> inst = parse_instance("mesh:80x80", "telephone", "gossip")
    >>> resolved_approach(inst, MatchingParams())
    'bfs'
    """
    if params.approach != "auto":
        return params.approach
    return _Engine(instance, params).approach


def resolved_matcher(instance: Instance, params: MatchingParams) -> str:
    """The matching a run with ``params`` uses: ``"greedy"``, ``"exact"`` or ``"cover"``.

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> resolved_matcher(parse_instance("ring:9", "telephone", "gossip"), MatchingParams())
    'exact'
    >>> resolved_matcher(parse_instance("mesh:3x3", "telephone", "gossip"), MatchingParams())
    'cover'
    """
    return _Engine(instance, params).matcher


def long_flow_fits(instance: Instance) -> bool:
    """Whether ``instance`` has a large first-round distance and affordable flow weights.

    True when the largest distance of a wanted packet in round 1 is at least
    :data:`LONG_DEPTH` and the level-list flow weights' work is at most
    :data:`FLOW_LEVELS_WORK`. On such graphs the bitset BFS weights, which ``auto`` takes
    above :data:`FLOW_WORK`, miss the diameter where the flow weights reach it (square
    meshes: ``benchmarks/heuristics_meshes.py``), so the sweep tries the flow weights first.

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> long_flow_fits(parse_instance("mesh:40x40", "telephone", "gossip"))
    True
    >>> long_flow_fits(parse_instance("hypercube:8", "telephone", "gossip"))
    False
    """
    engine = _Engine(instance, replace(MatchingParams(), approach="flow"))
    depth = len(reach_sets(engine.start, engine.demand, engine.nbr)) - 1
    degree = 2 * len(engine.u) / max(1, engine.n)
    work = instance.n * instance.n_packets * degree * depth
    return depth >= LONG_DEPTH and work <= FLOW_LEVELS_WORK


def _check_params(params: MatchingParams) -> None:
    if params.approach not in ("auto", "bfs", "flow", "potential"):
        raise SpecError(
            f"unknown weighting {params.approach!r}; choose auto, flow, bfs or potential"
        )
    # the weights are float32 powers: an exponent beyond its range (or NaN) spoils them all
    top = float(np.finfo(np.float32).max)
    for name, value in (
        ("--dist-exp", params.dist_exp),
        ("--dist-exp-decay", params.dist_exp_decay),
        ("--num-exp", params.num_exp),
    ):
        if not abs(value) <= top:
            raise SpecError(
                f"{name} must be a finite number between -{top:.3g} and {top:.3g}, got {value:g}"
            )
    if params.dist_exp <= 0 or params.dist_exp_decay <= 0:
        raise SpecError("--dist-exp and its decay must be positive")
    if params.look_ahead < 0 or params.candidates < 1 or params.band < 0:
        raise SpecError("look-ahead and band must be >= 0, candidates >= 1")


class _Engine:
    """The packed instance and one round's choice of a matching."""

    def __init__(self, instance: Instance, params: MatchingParams) -> None:
        self.half_duplex = instance.model.rules.send_or_receive
        self.n = instance.n
        self.params = params
        # the matcher: "greedy" (approximate), "exact" (Edmonds) or "cover" (the double
        # cover's assignment, exact on bipartite graphs)
        self.matcher = "greedy" if params.approx else "exact"
        # internal numbering by decreasing degree (stable), so that neighbour slots are
        # prefixes; regular graphs keep their numbering
        g = instance.graph
        self.label = sorted(range(self.n), key=lambda x: (-g.degree[x], x))
        rank = {x: i for i, x in enumerate(self.label)}
        inner = nx.relabel_nodes(g, rank)
        self.nbr = neighbour_table(inner)
        self.u, self.v = edge_arrays(inner)
        if not params.approx and (
            (params.approx is None and instance.n > EXACT_MATCHING_NODES)
            or is_bipartite(self.u, self.v, self.n)
        ):
            self.matcher = "cover"
        self.demand = pack([instance.demands[x] for x in self.label], instance.n_packets)
        self.start = pack([instance.holdings[x] for x in self.label], instance.n_packets)
        self.n_packets = instance.n_packets
        self.approach = params.approach
        # the largest distances of the flow weights' rounds so far
        self.tops: list[int] = []
        if self.approach == "auto":
            depth = len(reach_sets(self.start, self.demand, self.nbr)) - 1
            degree = 2 * len(self.u) / max(1, self.n)
            work = instance.n * instance.n_packets * degree * depth**2
            self.approach = "flow" if work <= FLOW_WORK else "bfs"

    def missing(self, know: Words) -> int:
        return int(popcount(self.demand & ~know).sum())

    def dist_exp(self, t: int) -> float:
        p = self.params
        return max(min(1.0, p.dist_exp), p.dist_exp * p.dist_exp_decay**t)

    def weights(self, know: Words, t: int) -> EdgeWeights:
        if self.approach == "potential":
            return potential_weights(know, self.demand, self.u, self.v)
        if self.approach == "flow":
            tops = self.tops
            falling = len(tops) >= 2 and tops[-1] == tops[-2] - 1 > GUESS_TOP_FROM
            w = flow_weights(
                know,
                self.demand,
                self.nbr,
                self.u,
                self.v,
                self.n_packets,
                self.dist_exp(t),
                self.params.num_exp,
                top_guess=tops[-1] - 1 if falling else None,
            )
            tops.append(w.eccentricity)
            return w
        return bfs_weights(
            know, self.demand, self.nbr, self.u, self.v, self.dist_exp(t), self.params.band
        )

    def matching(self, w: EdgeWeights, forbid: list[int] | None = None) -> tuple[list[int], Index]:
        """Chosen edge indices and, per edge, 1 when ``u -> v`` is the (heavier) direction."""
        if self.half_duplex:
            weight = np.maximum(w.forward, w.backward)
        else:
            weight = w.forward + w.backward
        if forbid:
            weight = weight.copy()
            weight[forbid] = 0.0
        if self.matcher in ("greedy", "cover"):
            chosen = greedy_matching(self.u, self.v, weight, self.n)
            chosen = improve_matching(self.u, self.v, weight, self.n, chosen)
        if self.matcher == "cover":
            # the greedy matching follows the edge order on ties (the "natural ordering"
            # of section 4.2, which gossips optimally on hypercubes): kept unless lighter
            heavy, odd = cover_matching(self.u, self.v, weight, self.n)
            if odd:
                heavy = improve_matching(self.u, self.v, weight, self.n, heavy)
            if weight[heavy].sum() > weight[chosen].sum() * (1 + 1e-9):
                chosen = heavy
        elif self.matcher == "exact":
            chosen = exact_matching(self.u, self.v, weight)
        return chosen, (w.forward >= w.backward).astype(np.int64)

    def apply(self, know: Words, chosen: list[int], forward: Index) -> Words:
        new = know.copy()
        idx = np.array(chosen, dtype=np.int64)
        if not len(idx):
            return new
        a, b = self.u[idx], self.v[idx]
        if self.half_duplex:
            fw = forward[idx].astype(bool)
            src = np.where(fw, a, b)
            dst = np.where(fw, b, a)
            new[dst] |= know[src]
        else:
            new[a] |= know[b]
            new[b] |= know[a]
        return new

    def linear_cost_round(
        self, know: Words, chosen: list[int], forward: Index, model: Model
    ) -> tuple[Words, Round]:
        """Steps 3-4 of the round under linear cost: the packets each matched pair sends."""
        arcs: list[tuple[int, int]] = []
        for k in chosen:
            a, b = int(self.u[k]), int(self.v[k])
            if not self.half_duplex:
                arcs += [(a, b), (b, a)]
            else:
                arcs.append((a, b) if forward[k] else (b, a))
        tau_h = (model.tau or 0.0) * model.h
        masks, _ = choose_packets(know, self.demand, self.nbr, arcs, tau_h)
        new = know.copy()
        out: list[Transmission] = []
        for (a, b), mask in zip(arcs, masks, strict=True):
            if not mask:
                continue
            new[b] |= pack([mask], self.n_packets)[0]
            out.append(Transmission(self.label[a], (self.label[b],), mask))
        return new, tuple(out)

    def plain_round(self, know: Words, t: int) -> tuple[list[int], Index]:
        return self.matching(self.weights(know, t))

    def cost(self, know: Words, t: int) -> float:
        """``sum_p sum_v dist_v(p) ** Dist_Exp`` over the demanding nodes ``v``."""
        reach = reach_sets(know, self.demand, self.nbr)
        de = self.dist_exp(t)
        total = 0.0
        for d in range(1, len(reach)):
            level = reach[d][:-1] & ~reach[d - 1][:-1]
            total += float(d) ** de * int(popcount(self.demand[:-1] & level).sum())
        return total

    def look_ahead_round(self, know: Words, t: int, rng: random.Random) -> tuple[list[int], Index]:
        w = self.weights(know, t)
        best, forward = self.matching(w)
        p = self.params
        candidates = [best]
        for _ in range(p.candidates - 1):
            k = min(len(best), 1 + len(best) // 20)
            if not k:
                break
            alt, _ = self.matching(w, forbid=rng.sample(best, k))
            if alt and alt not in candidates:
                candidates.append(alt)
        if len(candidates) == 1:
            return best, forward
        scored = []
        for i, cand in enumerate(candidates):
            state = self.apply(know, cand, forward)
            used = 1
            while used <= p.look_ahead and self.missing(state):
                chosen, fw = self.plain_round(state, t + used)
                state = self.apply(state, chosen, fw)
                used += 1
            done = not self.missing(state)
            scored.append((0 if done else 1, used if done else 0, self.cost(state, t + used), i))
        return candidates[min(scored)[3]], forward


def _to_round(engine: _Engine, chosen: list[int], forward: Index) -> Round:
    out: list[Transmission] = []
    for k in chosen:
        a, b = engine.label[int(engine.u[k])], engine.label[int(engine.v[k])]
        if not engine.half_duplex:
            out += [Transmission(a, (b,), None), Transmission(b, (a,), None)]
        elif forward[k]:
            out.append(Transmission(a, (b,), None))
        else:
            out.append(Transmission(b, (a,), None))
    return tuple(out)


def run_matching(
    instance: Instance,
    params: MatchingParams | None = None,
    *,
    max_rounds: int | None = None,
    progress: Progress | None = None,
) -> MatchingResult:
    """Run the matching heuristic and verify its schedule.

    Parameters
    ----------
    instance : Instance
        Any model: half-duplex rounds under half-duplex, telephone calls under the others
        (each a valid one-port or all-port round), split by
        :func:`gossipcert.heuristics.model_fit.fit_rounds` where a packet cap, an arc's
        capacity or a limit on calls per round requires.
    params : MatchingParams, optional
        Default: BFS approach, ``Dist_Exp = 8``, exact matching up to
        :data:`EXACT_MATCHING_NODES` nodes, no look-ahead.
    max_rounds : int, optional
        Give up after this many rounds (default :func:`round_bound`).
    progress : callable, optional
        Called after every round with the rounds done and the demands still unmet.

    Returns
    -------
    MatchingResult

    Raises
    ------
    HeuristicError
        Demands unmet after ``max_rounds`` rounds, or a schedule the verifier rejects.
    UnsupportedModelError
        A graph with latencies (its rounds move a packet one edge).

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> len(run_matching(parse_instance("hypercube:4", "telephone", "gossip")).schedule)
    4
    """
    require_unit_latencies(instance, "the matching heuristic")
    params = params or MatchingParams()
    _check_params(params)
    began = time.monotonic()
    engine = _Engine(instance, params)
    rng = random.Random(params.seed)
    know = engine.start
    limit = max_rounds if max_rounds is not None else round_bound(instance)
    rounds: list[Round] = []
    missing = engine.missing(know)
    while missing:
        if len(rounds) >= limit:
            raise HeuristicError(
                f"the matching heuristic gave up after {len(rounds)} rounds with "
                f"{missing} demands unmet (bound: {limit} rounds)"
            )
        t = len(rounds)
        if params.look_ahead:
            chosen, forward = engine.look_ahead_round(know, t, rng)
        else:
            chosen, forward = engine.plain_round(know, t)
        if not chosen:
            raise HeuristicError(
                f"the matching heuristic found nothing to send in round {t + 1}, "
                "yet demands are unmet"
            )
        if instance.model.tau is not None:
            know, rnd = engine.linear_cost_round(know, chosen, forward, instance.model)
            rounds.append(rnd)
        else:
            know = engine.apply(know, chosen, forward)
            rounds.append(_to_round(engine, chosen, forward))
        missing = engine.missing(know)
        if progress is not None:
            progress(len(rounds), missing)
    schedule = fit_rounds(instance, rounds)  # split for a packet cap or a limit on calls
    report = simulate(instance, schedule)
    if not report.ok:
        raise HeuristicError(
            f"the matching heuristic's schedule failed verification ({params.describe()})"
        )
    used = replace(params, approach=engine.approach)
    cost = float(len(schedule)) if report.cost is None else float(report.cost)
    return MatchingResult(schedule, used, time.monotonic() - began, cost)


def matching_heuristic(
    instance: Instance, max_rounds: int | None = None, params: MatchingParams | None = None
) -> Schedule:
    """The verified schedule of :func:`run_matching` (an upper bound).

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> len(matching_heuristic(parse_instance("hypercube:3", "telephone", "gossip")))
    3
    >>> len(matching_heuristic(parse_instance("star:8", "half-duplex", "gossip")))
    14
    """
    return run_matching(instance, params, max_rounds=max_rounds).schedule


def with_params(params: MatchingParams, **changes: object) -> MatchingParams:
    """A copy of ``params`` with some fields changed."""
    return replace(params, **changes)  # type: ignore[arg-type]
