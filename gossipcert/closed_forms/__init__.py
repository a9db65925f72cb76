"""Closed-form lower and upper bounds on the number of rounds, each with its citation.

Every bound is one function that takes an :class:`~gossipcert.instance.Instance` and returns
a :class:`Bound`, or None where its hypothesis does not hold (wrong model, problem, graph
family or size). :func:`all_bounds` evaluates them all; :func:`best_lower_bound` picks the
largest lower bound and :func:`best_upper_bound` the smallest upper bound.

A bound's ``name`` is stable: certificates refer to it, and ``gossipcert check`` recomputes
it by name. Names are unique; the names of upper bounds end in ``-upper``.

Kinds
-----
``"lower"``
    Every schedule that solves the instance has at least ``value`` rounds. The exact search
    uses these directly, so each one is stated only under hypotheses that make it sound.
``"upper"``
    Some schedule with ``value`` rounds exists (a theorem of the cited paper: "the algorithm
    takes ``X`` steps"). Informative only; constructions elsewhere build and verify schedules.
``"lower-cost"``
    A lower bound on the *linear cost* ``T = R + tau*h*S`` of the design (section 2), for
    models with ``tau`` set. ``value`` is the lower bound on the rounds ``R`` that the cost
    bound is built from, and ``cost`` the lower bound on ``T``. :func:`best_lower_bound`
    ignores this kind.

In the sequential model (``calls_per_round == 1``) a round is one call, so bounds on the
number of calls are bounds on rounds.

Conventions used in the hypotheses
----------------------------------
* Lower bounds stay sound when the model is *more* restricted than the paper's (a smaller
  packet cap, a limit on calls per round): a schedule of the restricted model is one of the
  paper's model. So lower bounds ignore ``calls_per_round``. Rounds of the half-duplex model
  are telephone rounds (a directed matching is part of a matching), so telephone lower
  bounds on rounds hold for half-duplex too.
* Upper bounds need the paper's model or a less restricted one: no limit on calls per round
  (except the sequential bounds, which are about that model), and a packet cap at least the
  paper's. With unbounded packets a gossip schedule that always sends everything solves every
  problem on the same graph (each node's knowledge contains the holdings of every node whose
  gossip packet it knows), so gossip upper bounds are reported for every problem then.
* Family bounds recognise a graph by ``G.graph["spec"]`` and are reported only when the graph
  equals the one the spec builds (same edges, capacities, routers), so that a graph read
  from a file or edited after construction never inherits a family's bound. Paths, cycles and
  complete graphs are recognised by their structure.
* Bounds on graphs with routers are only those of the fat-tree paper, the cut bounds and
  the pipeline bounds.
* On a graph with latencies (all-port only, an edge's ``latency`` ``L``: a packet entering
  it in round ``t`` arrives after round ``t + L - 1``) only :data:`LATENCY_BOUNDS` apply,
  ``distance``, ``flow-over-time`` and ``cut``, stated with distances weighted by the
  latencies; every other bound assumes one round per edge and declines.

Bounds (name: hypothesis -- value)
----------------------------------
General: ``distance``, ``doubling``, ``telephone-gossip``, ``receive``, ``pendant-leaves``
(telephone and half-duplex: the calls of one node with its degree-1 neighbours; ``2(n-1)``
and ``2n-3`` for gossip on the star ``K_{1,n-1}``).

Half-duplex (:mod:`.half_duplex`): ``half-duplex-golden`` (any packet cap: the knowledge
matrix's norm grows at most by the golden ratio per round; ``log_phi n`` for gossip).

Pipelines (:mod:`.pipelined`, several chunks): ``pipelined-broadcast`` (one-port models
and multicast with a packet cap ``p``, broadcast of ``K`` chunks from one source: ``ceil(K/p) -
1`` rounds before the last chunk leaves the source, then a one-packet broadcast;
Bar-Noy-Kipnis), ``flow-over-time`` (all-port, or a packet cap: the most distinct packets that
can reach a node from their one holder by round ``R``, a temporally repeated flow;
Ford-Fulkerson).

Cuts (:mod:`.cuts`): ``cut`` (all-port or a packet cap: the packets that must cross a cut
over the most that can cross it in a round, plus the distance before and after it);
``cut-cover`` (:mod:`.cut_cover`, the same cuts: a packet's crossings must reach every
demander beyond the cut in time, so a crossing in the last rounds counts for the share of
them near its head); ``late-entry`` (:mod:`.late_entry`, the same cuts: what a node's
neighbourhood does not know one round before the end enters the node in the last round over
its links from outside, and what it knows crossed the cut early enough to reach it).
:mod:`.relay`: ``relay`` (point-to-point models with a packet cap, and all-port: a cut
vertex sends every packet a component of the rest lacks into it, and receives every packet
one component alone holds, at most its port's load per round).

Broadcast (one packet, one-port models; :mod:`.broadcast`): ``broadcast-layers`` (distance
layers, generalizing distance and doubling: Fraigniaud-Lazard, Ivanova-Haugland-Tvedt ``d+``
type), ``broadcast-cut`` (subtrees behind a cut vertex; exact broadcast time of trees,
Slater-Cockayne-Hedetniemi). :mod:`.broadcast_order`: ``broadcast-order`` (the sources and
their children call one neighbour per round: injective call positions, two generations
deep). :mod:`.broadcast_ranks`: ``broadcast-ranks`` (a node is named by the ranks of the
calls on its chain from a source; their sum is at most ``R``, their number at least its
distance). :mod:`.broadcast_walks`: ``broadcast-walks`` (the same chains as walks in the
graph: a dynamic programme over arcs and rounds bounds the far nodes of each subtree).
:mod:`.broadcast_siblings`: ``broadcast-siblings`` (graphs of degree at most 4: the same
programme, where a node adjacent to two children of one node is counted in one of their
subtrees only).

Per packet (one-port models, several packets; :mod:`.packet_layers`): ``packet-layers`` (the
``broadcast-layers`` value of each packet's own broadcast, the largest over the packets; for
gossip the largest over the sources, one per automorphism orbit), ``packet-ranks`` and
``packet-walks`` (the same with ``broadcast-ranks`` and ``broadcast-walks``).

Dimakopoulos [2]: ``dimakopoulos-1`` (single-port or half-duplex, ``p = 1``, gossip:
``n - 1``); ``dimakopoulos-2-3`` (half-duplex, ``p = 1``, gossip: ``2(n - 1)`` for even
``n``, ``2n`` for odd ``n``); ``dimakopoulos-hamiltonian-upper`` (a Hamiltonian cycle is
found: the same values are achieved, section 3); ``dimakopoulos-product-upper`` (products of
factors with a known optimum, Theorems 2-5).

Beier-Sibeyn [1]: ``beier-sibeyn-path`` (telephone gossip on a path: ``n - 1`` even,
``n`` odd), ``beier-sibeyn-cycle`` (on a cycle: ``n/2`` even, ``floor(n/2) + 2`` odd),
``beier-sibeyn-mesh``, ``beier-sibeyn-torus``, ``beier-sibeyn-hypercube``,
``beier-sibeyn-knodel``, ``beier-sibeyn-ccc``, ``beier-sibeyn-se`` (section 2 lower bounds);
``beier-sibeyn-linear-cost`` (kind ``lower-cost``, bound (1)); upper bounds
``beier-sibeyn-path-upper``, ``beier-sibeyn-cycle-upper`` (Lemma 1),
``beier-sibeyn-mesh-upper``, ``beier-sibeyn-torus-upper`` (Lemma 2),
``beier-sibeyn-mesh-lemma3-upper`` (Lemma 3), ``beier-sibeyn-mesh-lemma4-upper``
(Lemma 4), ``beier-sibeyn-lemma5-upper`` (Lemma 5),
``beier-sibeyn-hypercube-upper``, ``beier-sibeyn-knodel-upper``, ``beier-sibeyn-ccc-upper``,
``beier-sibeyn-se-upper``, ``beier-sibeyn-butterfly-upper``, ``beier-sibeyn-debruijn-upper``,
``beier-sibeyn-star-pancake-upper`` (section 2).

Gonzalez [3] (multicast): ``gonzalez-receive`` (``p = 1`` gossip: ``n - 1``),
``gonzalez-odd-path`` (``p = 1`` gossip on a path with odd ``n``: ``n + r - 1``);
``gonzalez-n-plus-r-upper`` (Theorem 1), ``gonzalez-simple-upper`` (Lemma 1,
``2n + r - 3``), ``gonzalez-updown-upper`` (procedure UpDown, ``n + 3r - 2``),
``gonzalez-hamiltonian-upper`` (``n - 1``), ``gonzalez-broadcast-upper`` (eccentricity).

Dimakopoulos-Dimopoulos [4] (all-port binary fat trees, ``n`` leaves, ``L = log2 n``):
``dd-broadcast`` (``2L``), ``dd-scatter-gather``, ``dd-gossip`` (``n + 1``),
``dd-total-exchange`` (``max(n + 1, n^2/(4 c_L))``), ``dd-lemma3`` (hole counting);
``dd-broadcast-upper``, ``dd-scatter-gather-upper``, ``dd-gossip-upper``,
``dd-gossip-no-queue-upper``, ``dd-total-exchange-serial-upper`` (formula (1)),
``dd-total-exchange-pipelined-upper`` (formulas (2) and (3)).

Bermond-Gargano-Perennes [5] (sequential telephone gossip, packet cap ``p``):
``bermond-1`` (bound (1)), ``bermond-2.1`` (Theorem 2.1), ``bermond-p1``
(``c(n, 1) = n(n-1)/2``), ``bermond-2n-4``; ``bermond-3.1-upper`` (Theorem 3.1),
``bermond-p1-upper``, ``bermond-2n-4-upper`` (complete graphs).

References
----------
.. [1] R. Beier and J. F. Sibeyn, "A powerful heuristic for telephone gossiping", SIROCCO
   2000. Section 2 (graph classes, bound (1)) and section 3 (Lemmas 1-5).
.. [2] V. V. Dimakopoulos, "Single-port multinode broadcasting", Tech. Report 1-99,
   University of Ioannina, 1999. Section 2 (bounds (1)-(3)), section 3 (Hamiltonian
   networks), section 4 (Theorems 2-5, products).
.. [3] T. F. Gonzalez, "An efficient algorithm for gossiping in the multicasting
   communication environment", IEEE TPDS 14(7), 2003. Sections 1-4.
.. [4] V. V. Dimakopoulos and N. J. Dimopoulos, "Communications in binary fat trees",
   Proc. ICCI 1995. Table 1, Theorems 1-2, formulas (1)-(3), Lemma 3.
.. [5] J.-C. Bermond, L. Gargano, S. Perennes, "Optimal sequential gossiping by short
   messages", Discrete Applied Mathematics 86 (1998) 145-155. Bound (1), Theorem 2.1,
   Theorem 3.1.
"""

from __future__ import annotations

from collections.abc import Callable

from gossipcert.closed_forms.base import (
    _LOWER,
    _UPPER,
    Bound,
)
from gossipcert.closed_forms.beier_sibeyn import (
    beier_sibeyn_ccc_bound,
    beier_sibeyn_cycle_bound,
    beier_sibeyn_hypercube_bound,
    beier_sibeyn_knodel_bound,
    beier_sibeyn_linear_cost_bound,
    beier_sibeyn_mesh_bound,
    beier_sibeyn_path_bound,
    beier_sibeyn_se_bound,
    beier_sibeyn_torus_bound,
)
from gossipcert.closed_forms.beier_sibeyn_upper import (
    beier_sibeyn_butterfly_upper_bound,
    beier_sibeyn_ccc_upper_bound,
    beier_sibeyn_cycle_upper_bound,
    beier_sibeyn_debruijn_upper_bound,
    beier_sibeyn_hypercube_upper_bound,
    beier_sibeyn_knodel_upper_bound,
    beier_sibeyn_lemma5_upper_bound,
    beier_sibeyn_mesh_lemma3_upper_bound,
    beier_sibeyn_mesh_lemma4_upper_bound,
    beier_sibeyn_mesh_upper_bound,
    beier_sibeyn_path_upper_bound,
    beier_sibeyn_se_upper_bound,
    beier_sibeyn_star_pancake_upper_bound,
    beier_sibeyn_torus_upper_bound,
)
from gossipcert.closed_forms.bermond import (
    bermond_1_bound,
    bermond_2n4_bound,
    bermond_2n4_upper_bound,
    bermond_p1_bound,
    bermond_p1_upper_bound,
    bermond_theorem21_bound,
    bermond_theorem31_upper_bound,
)
from gossipcert.closed_forms.broadcast import (
    broadcast_cut_bound,
    broadcast_layers_bound,
)
from gossipcert.closed_forms.broadcast_order import broadcast_order_bound
from gossipcert.closed_forms.broadcast_ranks import broadcast_ranks_bound
from gossipcert.closed_forms.broadcast_siblings import broadcast_siblings_bound
from gossipcert.closed_forms.broadcast_walks import broadcast_walks_bound
from gossipcert.closed_forms.cut_cover import cut_cover_bound
from gossipcert.closed_forms.cuts import cut_bound
from gossipcert.closed_forms.dimakopoulos import (
    dimakopoulos_half_duplex_bound,
    dimakopoulos_hamiltonian_upper_bound,
    dimakopoulos_product_upper_bound,
    dimakopoulos_receive_bound,
)
from gossipcert.closed_forms.fat_trees import (
    dd_broadcast_bound,
    dd_broadcast_upper_bound,
    dd_gossip_bound,
    dd_gossip_no_queue_upper_bound,
    dd_gossip_upper_bound,
    dd_lemma3_bound,
    dd_scatter_gather_bound,
    dd_scatter_gather_upper_bound,
    dd_total_exchange_bound,
    dd_total_exchange_pipelined_upper_bound,
    dd_total_exchange_serial_upper_bound,
)
from gossipcert.closed_forms.general import (
    distance_bound,
    doubling_bound,
    pendant_leaves_bound,
    receive_bound,
    telephone_gossip_odd_bound,
)
from gossipcert.closed_forms.gonzalez import (
    gonzalez_broadcast_upper_bound,
    gonzalez_hamiltonian_upper_bound,
    gonzalez_n_plus_r_upper_bound,
    gonzalez_odd_path_bound,
    gonzalez_receive_bound,
    gonzalez_simple_upper_bound,
    gonzalez_updown_upper_bound,
)
from gossipcert.closed_forms.half_duplex import half_duplex_golden_bound
from gossipcert.closed_forms.hamiltonian import (
    HAMILTONIAN_EXHAUSTIVE_MAX_NODES,
    HAMILTONIAN_SEARCH_BUDGET,
    HAMILTONIAN_SEARCH_MAX_NODES,
    HAMILTONIAN_STEPS_PER_NODE,
)
from gossipcert.closed_forms.late_entry import late_entry_bound
from gossipcert.closed_forms.packet_layers import (
    packet_layers_bound,
    packet_ranks_bound,
    packet_walks_bound,
)
from gossipcert.closed_forms.pipelined import flow_over_time_bound, pipelined_broadcast_bound
from gossipcert.closed_forms.relay import relay_bound
from gossipcert.graphs import latencies
from gossipcert.instance import Instance

__all__ = [
    "HAMILTONIAN_EXHAUSTIVE_MAX_NODES",
    "HAMILTONIAN_SEARCH_BUDGET",
    "HAMILTONIAN_SEARCH_MAX_NODES",
    "HAMILTONIAN_STEPS_PER_NODE",
    "LATENCY_BOUNDS",
    "LOWER_BOUNDS",
    "LOWER_COST_BOUNDS",
    "UPPER_BOUNDS",
    "Bound",
    "all_bounds",
    "beier_sibeyn_butterfly_upper_bound",
    "beier_sibeyn_ccc_bound",
    "beier_sibeyn_ccc_upper_bound",
    "beier_sibeyn_cycle_bound",
    "beier_sibeyn_cycle_upper_bound",
    "beier_sibeyn_debruijn_upper_bound",
    "beier_sibeyn_hypercube_bound",
    "beier_sibeyn_hypercube_upper_bound",
    "beier_sibeyn_knodel_bound",
    "beier_sibeyn_knodel_upper_bound",
    "beier_sibeyn_lemma5_upper_bound",
    "beier_sibeyn_linear_cost_bound",
    "beier_sibeyn_mesh_bound",
    "beier_sibeyn_mesh_lemma3_upper_bound",
    "beier_sibeyn_mesh_lemma4_upper_bound",
    "beier_sibeyn_mesh_upper_bound",
    "beier_sibeyn_path_bound",
    "beier_sibeyn_path_upper_bound",
    "beier_sibeyn_se_bound",
    "beier_sibeyn_se_upper_bound",
    "beier_sibeyn_star_pancake_upper_bound",
    "beier_sibeyn_torus_bound",
    "beier_sibeyn_torus_upper_bound",
    "bermond_1_bound",
    "bermond_2n4_bound",
    "bermond_2n4_upper_bound",
    "bermond_p1_bound",
    "bermond_p1_upper_bound",
    "bermond_theorem21_bound",
    "bermond_theorem31_upper_bound",
    "best_lower_bound",
    "best_upper_bound",
    "bound_by_name",
    "broadcast_cut_bound",
    "broadcast_layers_bound",
    "broadcast_order_bound",
    "broadcast_ranks_bound",
    "broadcast_siblings_bound",
    "broadcast_walks_bound",
    "cut_bound",
    "cut_cover_bound",
    "dd_broadcast_bound",
    "dd_broadcast_upper_bound",
    "dd_gossip_bound",
    "dd_gossip_no_queue_upper_bound",
    "dd_gossip_upper_bound",
    "dd_lemma3_bound",
    "dd_scatter_gather_bound",
    "dd_scatter_gather_upper_bound",
    "dd_total_exchange_bound",
    "dd_total_exchange_pipelined_upper_bound",
    "dd_total_exchange_serial_upper_bound",
    "dimakopoulos_half_duplex_bound",
    "dimakopoulos_hamiltonian_upper_bound",
    "dimakopoulos_product_upper_bound",
    "dimakopoulos_receive_bound",
    "distance_bound",
    "doubling_bound",
    "flow_over_time_bound",
    "gonzalez_broadcast_upper_bound",
    "gonzalez_hamiltonian_upper_bound",
    "gonzalez_n_plus_r_upper_bound",
    "gonzalez_odd_path_bound",
    "gonzalez_receive_bound",
    "gonzalez_simple_upper_bound",
    "gonzalez_updown_upper_bound",
    "half_duplex_golden_bound",
    "late_entry_bound",
    "packet_layers_bound",
    "packet_ranks_bound",
    "packet_walks_bound",
    "pendant_leaves_bound",
    "pipelined_broadcast_bound",
    "receive_bound",
    "relay_bound",
    "telephone_gossip_odd_bound",
]

# --------------------------------------------------------------------------------------------
# Registries and queries
# --------------------------------------------------------------------------------------------

LOWER_BOUNDS: tuple[Callable[[Instance], Bound | None], ...] = (
    distance_bound,
    doubling_bound,
    telephone_gossip_odd_bound,
    receive_bound,
    pendant_leaves_bound,
    broadcast_layers_bound,
    broadcast_cut_bound,
    broadcast_ranks_bound,
    broadcast_walks_bound,
    broadcast_siblings_bound,
    broadcast_order_bound,
    packet_layers_bound,
    packet_ranks_bound,
    packet_walks_bound,
    dimakopoulos_receive_bound,
    dimakopoulos_half_duplex_bound,
    half_duplex_golden_bound,
    beier_sibeyn_path_bound,
    beier_sibeyn_cycle_bound,
    beier_sibeyn_mesh_bound,
    beier_sibeyn_torus_bound,
    beier_sibeyn_hypercube_bound,
    beier_sibeyn_knodel_bound,
    beier_sibeyn_ccc_bound,
    beier_sibeyn_se_bound,
    gonzalez_receive_bound,
    gonzalez_odd_path_bound,
    dd_broadcast_bound,
    dd_scatter_gather_bound,
    dd_gossip_bound,
    dd_total_exchange_bound,
    dd_lemma3_bound,
    bermond_1_bound,
    bermond_theorem21_bound,
    bermond_p1_bound,
    bermond_2n4_bound,
    relay_bound,
    pipelined_broadcast_bound,
    cut_bound,  # a paper's bound of the same value is named first
    cut_cover_bound,  # after the cut bound: the same cuts, the last rounds' crossings weighed
    late_entry_bound,  # after the cover bound: the same cuts, one node's last round
    flow_over_time_bound,  # after the cut bound, which it meets on most instances
)
LOWER_COST_BOUNDS: tuple[Callable[[Instance], Bound | None], ...] = (
    beier_sibeyn_linear_cost_bound,
)
UPPER_BOUNDS: tuple[Callable[[Instance], Bound | None], ...] = (
    dimakopoulos_hamiltonian_upper_bound,
    dimakopoulos_product_upper_bound,
    beier_sibeyn_path_upper_bound,
    beier_sibeyn_cycle_upper_bound,
    beier_sibeyn_mesh_upper_bound,
    beier_sibeyn_mesh_lemma3_upper_bound,
    beier_sibeyn_mesh_lemma4_upper_bound,
    beier_sibeyn_torus_upper_bound,
    beier_sibeyn_lemma5_upper_bound,
    beier_sibeyn_hypercube_upper_bound,
    beier_sibeyn_knodel_upper_bound,
    beier_sibeyn_ccc_upper_bound,
    beier_sibeyn_se_upper_bound,
    beier_sibeyn_butterfly_upper_bound,
    beier_sibeyn_debruijn_upper_bound,
    beier_sibeyn_star_pancake_upper_bound,
    gonzalez_n_plus_r_upper_bound,
    gonzalez_simple_upper_bound,
    gonzalez_updown_upper_bound,
    gonzalez_hamiltonian_upper_bound,
    gonzalez_broadcast_upper_bound,
    dd_broadcast_upper_bound,
    dd_scatter_gather_upper_bound,
    dd_gossip_upper_bound,
    dd_gossip_no_queue_upper_bound,
    dd_total_exchange_serial_upper_bound,
    dd_total_exchange_pipelined_upper_bound,
    bermond_theorem31_upper_bound,
    bermond_p1_upper_bound,
    bermond_2n4_upper_bound,
)

#: the bounds stated with latencies (weighted distances): on a graph with an edge whose
#: latency is not 1 only these apply, every other bound declines
LATENCY_BOUNDS: tuple[Callable[[Instance], Bound | None], ...] = (
    distance_bound,
    flow_over_time_bound,
    cut_bound,
)


def all_bounds(instance: Instance) -> list[Bound]:
    """Every bound that applies to ``instance``: lower bounds, then cost bounds, then upper.

    Parameters
    ----------
    instance : Instance

    Returns
    -------
    list of Bound

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> [b.name for b in all_bounds(parse_instance("ring:6", "telephone", "gossip"))][3:6]
    ['packet-layers', 'packet-ranks', 'packet-walks']
    """
    out = []
    fns = LOWER_BOUNDS + LOWER_COST_BOUNDS + UPPER_BOUNDS
    if latencies(instance.graph):
        fns = LATENCY_BOUNDS
    for fn in fns:
        b = fn(instance)
        if b is not None:
            out.append(b)
    return out


def bound_by_name(instance: Instance, name: str) -> Bound | None:
    """Recompute the bound called ``name`` (None if it does not apply or does not exist).

    Parameters
    ----------
    instance : Instance
    name : str

    Returns
    -------
    Bound or None

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> bound_by_name(parse_instance("ring:5", "half-duplex:p=1", "gossip"),
    ...     "dimakopoulos-2-3").value
    10
    """
    for b in all_bounds(instance):
        if b.name == name:
            return b
    return None


def best_lower_bound(instance: Instance) -> Bound:
    """The largest lower bound on rounds that applies (the distance bound always does).

    Parameters
    ----------
    instance : Instance

    Returns
    -------
    Bound
        Of kind ``"lower"``; the first in registry order among equal values.

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> best_lower_bound(parse_instance("ring:5", "half-duplex:p=1", "gossip")).name
    'dimakopoulos-2-3'
    """
    lows = [b for b in all_bounds(instance) if b.kind == _LOWER]
    return max(lows, key=lambda b: b.value)


def best_upper_bound(instance: Instance) -> Bound | None:
    """The smallest closed-form upper bound on rounds that applies, or None.

    Parameters
    ----------
    instance : Instance

    Returns
    -------
    Bound or None
        Of kind ``"upper"``; the first in registry order among equal values.

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> best_upper_bound(parse_instance("torus:4x6", "telephone", "gossip")).value
    5
    >>> print(best_upper_bound(parse_instance("petersen", "telephone", "gossip")))
    None
    """
    ups = [b for b in all_bounds(instance) if b.kind == _UPPER]
    return min(ups, key=lambda b: b.value) if ups else None
