"""The catalogue of constructions by name, as the command line and the exact search use them.

Names (docs/commands.md, ``construct``): ``ring-fd``, ``ring-hd``, ``ring-multicast``,
``hamiltonian``, ``product``, ``simple``, ``concurrent-updown``, ``fattree-flood``,
``farthest-first``, ``fattree-total-exchange``, ``ring-allgather``, ``ring-alltoall``,
``farthest-first-routes``, ``shift-exchange``, ``hypercube-doubling``, ``circulant-broadcast``,
``ring-pipeline``,
``scatter-allgather``, ``two-stream-broadcast``, ``translated-allgather``,
``switch-alltoall``, ``machine-pipeline``, ``tree-mix``, ``tree-broadcast``, ``bermond``,
``rows-columns``, ``matching-sequence`` (with a sequence of matching indices such as
``02102``; without one, the sequence of Beier and Sibeyn's Table 6 for the graph, if
listed), and ``gather-spread``, the universal fallback that applies to every model and
problem, so that the exact search always has a first upper bound. On a graph with
latencies (all-port only) every construction but ``latency-flood`` declines, and
``latency-flood`` is that first upper bound.

Every function here returns unverified schedules; callers pass them through the verifier.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass

from gossipcert.errors import NotApplicableError, SpecError
from gossipcert.graphs import latencies
from gossipcert.instance import Instance, ModelKind
from gossipcert.models import MODELS, rules_of
from gossipcert.schedule import Schedule


@dataclass(frozen=True)
class Construction:
    """One named algorithm: what it builds and where it comes from."""

    name: str
    summary: str
    source: str
    build: Callable[[Instance, str | None], Schedule]
    #: the model spec the construction is stated for, when it is stated for one only
    model: str | None = None
    #: the construction honours edge latencies (the others decline a graph with latencies)
    latencies: bool = False


#: models in which a node may send to one neighbour while it receives from another
_DIRECTED_PORTS = tuple(kind for kind, rules in MODELS.items() if rules.directed_ports)


def _require_model(inst: Instance, name: str, kinds: tuple[ModelKind, ...], why: str) -> None:
    """Raise NotApplicableError unless the model is one of ``kinds``, without a call limit."""
    if inst.model.kind not in kinds:
        raise NotApplicableError(
            f"{name} needs a {' / '.join(k.value for k in kinds)} model ({why}); "
            f"got {inst.model.spec()}"
        )
    if inst.model.calls_per_round is not None:
        raise NotApplicableError(
            f"{name} lets every node transmit in a round; {inst.model.spec()} limits the "
            f"calls per round to {inst.model.calls_per_round}"
        )


def _ring_fd(inst: Instance, _: str | None) -> Schedule:
    from gossipcert.closed_forms.hamiltonian import hamiltonian_cycle
    from gossipcert.constructions.rings import ring_full_duplex

    _require_model(inst, "ring-fd", _DIRECTED_PORTS, "every node sends clockwise while it receives")
    return ring_full_duplex(inst, hamiltonian_cycle(inst.graph))


def _ring_hd(inst: Instance, _: str | None) -> Schedule:
    from gossipcert.closed_forms.hamiltonian import hamiltonian_cycle
    from gossipcert.constructions.rings import ring_half_duplex

    _require_model(
        inst,
        "ring-hd",
        tuple(MODELS),
        "one packet a transmission on the links of a cycle",
    )
    return ring_half_duplex(inst, hamiltonian_cycle(inst.graph))


def _ring_mc(inst: Instance, _: str | None) -> Schedule:
    from gossipcert.closed_forms.hamiltonian import hamiltonian_cycle
    from gossipcert.constructions.rings import ring_multicast_clockwise

    _require_model(
        inst, "ring-multicast", _DIRECTED_PORTS, "every node sends clockwise while it receives"
    )
    return ring_multicast_clockwise(inst, hamiltonian_cycle(inst.graph))


def _hamiltonian(inst: Instance, _: str | None) -> Schedule:
    from gossipcert.constructions.hamiltonian import hamiltonian_gossip

    return hamiltonian_gossip(inst)


def _product(inst: Instance, _: str | None) -> Schedule:
    from gossipcert.constructions.products import product

    return product(inst)


def _simple(inst: Instance, _: str | None) -> Schedule:
    from gossipcert.constructions.gonzalez import simple

    return simple(inst)


def _updown(inst: Instance, _: str | None) -> Schedule:
    from gossipcert.constructions.gonzalez import concurrent_up_down

    return concurrent_up_down(inst)


def _flood(inst: Instance, _: str | None) -> Schedule:
    from gossipcert.constructions.fat_trees import flooding

    return flooding(inst)


def _farthest(inst: Instance, _: str | None) -> Schedule:
    from gossipcert.constructions.fat_trees import farthest_first

    return farthest_first(inst)


def _fat_te(inst: Instance, _: str | None) -> Schedule:
    from gossipcert.constructions.fat_tree_total_exchange import total_exchange

    return total_exchange(inst)


def _ring_allgather(inst: Instance, _: str | None) -> Schedule:
    from gossipcert.constructions.collectives import ring_allgather

    return ring_allgather(inst)


def _ring_alltoall(inst: Instance, _: str | None) -> Schedule:
    from gossipcert.constructions.collectives import ring_alltoall

    return ring_alltoall(inst)


def _routes(inst: Instance, _: str | None) -> Schedule:
    from gossipcert.constructions.collectives import farthest_first_routes

    return farthest_first_routes(inst)


def _shift(inst: Instance, _: str | None) -> Schedule:
    from gossipcert.constructions.collectives import shift_exchange

    return shift_exchange(inst)


def _doubling(inst: Instance, _: str | None) -> Schedule:
    from gossipcert.constructions.collectives import hypercube_doubling

    return hypercube_doubling(inst)


def _nccl_ring(inst: Instance, _: str | None) -> Schedule:
    from gossipcert.constructions.nccl import nccl_allgather

    return nccl_allgather(inst, "ring")


def _nccl_pat(inst: Instance, _: str | None) -> Schedule:
    from gossipcert.constructions.nccl import nccl_allgather

    return nccl_allgather(inst, "pat")


def _circulant(inst: Instance, _: str | None) -> Schedule:
    from gossipcert.constructions.circulant_broadcast import circulant_broadcast

    return circulant_broadcast(inst)


def _ring_pipeline(inst: Instance, _: str | None) -> Schedule:
    from gossipcert.constructions.pipelined_rings import ring_pipeline_allgather

    return ring_pipeline_allgather(inst)


def _scatter_allgather(inst: Instance, _: str | None) -> Schedule:
    from gossipcert.constructions.scatter_allgather import scatter_allgather_broadcast

    return scatter_allgather_broadcast(inst)


def _two_stream(inst: Instance, _: str | None) -> Schedule:
    from gossipcert.constructions.pipelined_rings import two_stream_broadcast

    return two_stream_broadcast(inst)


def _translated(inst: Instance, _: str | None) -> Schedule:
    from gossipcert.constructions.translated import translated_allgather

    return translated_allgather(inst)


def _switch_alltoall(inst: Instance, _: str | None) -> Schedule:
    from gossipcert.constructions.switch_alltoall import switch_alltoall

    return switch_alltoall(inst)


def _tree_mix(inst: Instance, _: str | None) -> Schedule:
    from gossipcert.constructions.tree_mix import tree_mix_broadcast

    return tree_mix_broadcast(inst)


def _tree_broadcast(inst: Instance, _: str | None) -> Schedule:
    from gossipcert.constructions.tree_broadcast import tree_broadcast

    return tree_broadcast(inst)


def _machine(inst: Instance, _: str | None) -> Schedule:
    from gossipcert.constructions.machines import machine_pipeline

    return machine_pipeline(inst)


def _bermond(inst: Instance, _: str | None) -> Schedule:
    from gossipcert.constructions.bermond import bermond

    return bermond(inst)


def _rows_columns(inst: Instance, _: str | None) -> Schedule:
    from gossipcert.constructions.beier_sibeyn import rows_columns

    return rows_columns(inst)


def _gather_spread(inst: Instance, _: str | None) -> Schedule:
    from gossipcert.constructions.gather_spread import gather_spread

    return gather_spread(inst)


def _latency_flood(inst: Instance, _: str | None) -> Schedule:
    from gossipcert.constructions.latency_flood import latency_flood

    return latency_flood(inst)


def _sequence(inst: Instance, sequence: str | None) -> Schedule:
    from gossipcert.constructions.beier_sibeyn_matchings import TABLE_6, matching_sequence

    if sequence is None:
        spec = inst.graph.graph.get("spec")
        if spec not in TABLE_6:
            raise NotApplicableError(
                f"no Table 6 sequence is listed for {spec}; give one with --sequence"
            )
        sequence = TABLE_6[spec][1]
    return matching_sequence(inst, sequence)


CONSTRUCTIONS: dict[str, Construction] = {
    c.name: c
    for c in (
        Construction(
            "ring-fd",
            "gossip around a Hamiltonian cycle, full duplex, n-1 steps",
            "Dimakopoulos 1999, sec. 3.1",
            _ring_fd,
            "single-port:p=1",
        ),
        Construction(
            "ring-hd",
            "gossip around a Hamiltonian cycle, half duplex, 2(n-1)/2n",
            "Dimakopoulos 1999, sec. 3.2, Fig. 3",
            _ring_hd,
            "half-duplex:p=1",
        ),
        Construction(
            "ring-multicast",
            "clockwise ring gossip under multicast, n-1 rounds",
            "Gonzalez 2003, Fig. 1",
            _ring_mc,
            "multicast",
        ),
        Construction(
            "hamiltonian",
            "gossip through the links of a Hamiltonian cycle",
            "Dimakopoulos 1999, sec. 3",
            _hamiltonian,
        ),
        Construction(
            "product",
            "multinode broadcasting in A x B: T_B + n2 T_A steps",
            "Dimakopoulos 1999, sec. 4, Fig. 6, Theorem 2",
            _product,
        ),
        Construction(
            "simple",
            "gossip on a minimum-depth spanning tree, 2n+r-3 rounds",
            "Gonzalez 2003, algorithm Simple",
            _simple,
            "multicast",
        ),
        Construction(
            "concurrent-updown",
            "ConcurrentUpDown on a minimum-depth tree, n+r",
            "Gonzalez 2003, Theorem 1",
            _updown,
            "multicast",
        ),
        Construction(
            "fattree-flood",
            "broadcast or gossip by flooding a fat tree",
            "Dimakopoulos-Dimopoulos, sec. 2.1 and 4",
            _flood,
            "all-port",
        ),
        Construction(
            "farthest-first",
            "scatter (gather by reversal) in a fat tree, n+1",
            "Dimakopoulos-Dimopoulos, sec. 3, Theorem 1",
            _farthest,
            "all-port",
        ),
        Construction(
            "fattree-total-exchange",
            "pipelined total exchange in a fat tree",
            "Dimakopoulos-Dimopoulos, sec. 5, (2)-(3)",
            _fat_te,
            "all-port",
        ),
        Construction(
            "ring-allgather",
            "allgather around a Hamiltonian cycle in both directions, floor(n/2) steps",
            "Cai et al. 2021 (SCCL), ring Allgather",
            _ring_allgather,
            "all-port",
        ),
        Construction(
            "ring-alltoall",
            "personalized exchange the shortest way round a cycle, farthest first",
            "Cai et al. 2021 (SCCL), ring Alltoall; cut bound ceil(n^2/8)",
            _ring_alltoall,
            "all-port",
        ),
        Construction(
            "farthest-first-routes",
            "personalized problems along shortest paths, farthest packet first",
            "Dimakopoulos-Dimopoulos, sec. 3 (farthest first), generalised",
            _routes,
            "all-port",
        ),
        Construction(
            "shift-exchange",
            "total exchange on K_n, round k: i -> i+k (mod n), n-1 rounds",
            "Cai et al. 2021 (SCCL), hub Alltoall",
            _shift,
            "single-port",
        ),
        Construction(
            "hypercube-doubling",
            "recursive doubling, dimension j in ceil(2^(j-1)/c) steps",
            "Bertsekas et al. 1991",
            _doubling,
            "all-port",
        ),
        Construction(
            "nccl-ring",
            "NCCL's ring allgather, each step's chunk moved as soon as the machine allows",
            "NVIDIA NCCL, src/device/all_gather.h (NCCL_ALGO_RING)",
            _nccl_ring,
        ),
        Construction(
            "nccl-pat",
            "NCCL's PAT allgather: binomial trees along r -> r - 2^d, highest dimension first",
            "NVIDIA NCCL, src/include/collectives.h (PatAGAlgorithm)",
            _nccl_pat,
        ),
        Construction(
            "circulant-broadcast",
            "K chunks from one source in K - 1 + ceil(log2 n) rounds on a circulant graph",
            "Bar-Noy-Kipnis-Schieber 2000; Traff 2022-2023 (periodic pattern)",
            _circulant,
            "single-port",
        ),
        Construction(
            "ring-pipeline",
            "allgather of K chunks a node around a Hamiltonian cycle, p a round",
            "Patarasuk-Yuan 2009, ring allgather",
            _ring_pipeline,
            "single-port",
        ),
        Construction(
            "scatter-allgather",
            "broadcast on K_n: scatter c(n-1) chunks a round, allgather them the next",
            "Barnett et al. 1994 (InterCom); Chan et al. 2007",
            _scatter_allgather,
            "all-port",
        ),
        Construction(
            "two-stream-broadcast",
            "broadcast around a Hamiltonian cycle: chunks up one way, down the other",
            "ring pipelining (Patarasuk-Yuan 2009); optimal on rings by the flow bound",
            _two_stream,
            "all-port",
        ),
        Construction(
            "translated-allgather",
            "allgather on a Cayley graph: one greedy broadcast, translated to every node",
            "Patarasuk-Yuan 2009 (ring); Johnsson-Ho 1989 (hypercube spanning trees)",
            _translated,
            "all-port",
        ),
        Construction(
            "machine-pipeline",
            "hierarchical pipeline: slow inter-chassis links first, greedy time-expanded routes",
            "TACCL (Shah et al. 2023) sketches; TE-CCL (Liu et al. 2024) time-expanded network",
            _machine,
            "all-port",
        ),
        Construction(
            "switch-alltoall",
            "alltoall across NICs and one switch: a Latin square keeps every NIC link busy",
            "TACCL (Shah et al. 2023) hierarchical sketch; Konig 1916 (edge colourings)",
            _switch_alltoall,
            "all-port",
        ),
        Construction(
            "tree-mix",
            "broadcast of K interchangeable chunks: how many take each timed tree, by CP-SAT",
            "Edmonds 1973; Johnsson-Ho 1989; chunk symmetry (counts per tree and round)",
            _tree_mix,
            "all-port",
        ),
        Construction(
            "tree-broadcast",
            "broadcast of K chunks pipelined down lambda arc-disjoint spanning trees",
            "Edmonds 1973; Johnsson-Ho 1989 (hypercubes); ForestColl (Zhao et al. 2024)",
            _tree_broadcast,
            "all-port",
        ),
        Construction(
            "bermond",
            "four-phase sequential gossip with p-packet calls",
            "Bermond-Gargano-Perennes 1998, Theorem 3.1",
            _bermond,
            "sequential:p=2",
        ),
        Construction(
            "rows-columns",
            "gossip in the rows, then in the columns",
            "Beier-Sibeyn, Lemmas 1, 2 and 5",
            _rows_columns,
            "telephone",
        ),
        Construction(
            "matching-sequence",
            "rounds from a fixed set of perfect matchings",
            "Beier-Sibeyn, sec. 8, Table 6",
            _sequence,
            "telephone",
        ),
        Construction(
            "gather-spread",
            "gather to a centre along a BFS tree, then spread; any model and problem",
            "Gonzalez 2003, sec. 3.1 (Simple), generalised",
            _gather_spread,
        ),
        Construction(
            "latency-flood",
            "all-port along shortest routes weighted by latencies, farthest first",
            "Dimakopoulos-Dimopoulos, sec. 3 (farthest first), with latencies",
            _latency_flood,
            "all-port",
            latencies=True,
        ),
    )
}


def construct(instance: Instance, name: str, sequence: str | None = None) -> Schedule:
    """The schedule of construction ``name`` for ``instance`` (not yet verified).

    Raises
    ------
    SpecError
        Unknown name.
    NotApplicableError
        The instance does not meet the construction's hypothesis, or the graph has
        latencies and the construction does not honour them.
    """
    if name not in CONSTRUCTIONS:
        raise SpecError(f"unknown construction {name!r}; known: {', '.join(CONSTRUCTIONS)}")
    if sequence is not None and name != "matching-sequence":
        raise SpecError("--sequence goes with --algorithm matching-sequence")
    if not CONSTRUCTIONS[name].latencies and latencies(instance.graph):
        raise NotApplicableError(
            f"{name} moves a packet one edge a round; this graph has edges of latency above "
            "1 (use latency-flood)"
        )
    return CONSTRUCTIONS[name].build(instance, sequence)


#: constructions that also split each node's data into chunks
_CHUNKED = frozenset(
    {
        "ring-alltoall",
        "farthest-first-routes",
        "shift-exchange",
        "machine-pipeline",
        "circulant-broadcast",
        "ring-pipeline",
        "scatter-allgather",
        "two-stream-broadcast",
        "translated-allgather",
        "tree-broadcast",
        "tree-mix",
        "switch-alltoall",
    }
)


#: tried for every instance, whatever its model and problem
_UNIVERSAL = ("gather-spread",)


def specific_candidates(instance: Instance) -> Iterator[tuple[str, Schedule]]:
    """Schedules of the constructions that apply to ``instance`` (unverified), built one at
    a time as they are asked for, without the universal ``gather-spread``. With the data
    split into chunks only those that move each packet on its own (:data:`_CHUNKED`) are
    tried (the others move one packet per node)."""
    papers = rules_of(instance.model.kind).constructions
    if latencies(instance.graph):
        # only latency-flood honours latencies (every other construction declines)
        papers = ("latency-flood",)
    elif instance.problem.chunks != 1:
        papers = tuple(name for name in papers if name in _CHUNKED)
    for name in papers:
        try:
            schedule = construct(instance, name)
        except NotApplicableError:
            continue
        yield name, schedule


def upper_bound_candidates(instance: Instance) -> Iterator[tuple[str, Schedule]]:
    """Schedules of the constructions that apply to ``instance`` (unverified), built one at
    a time as they are asked for.

    The universal ``gather-spread`` construction is always among them, so every instance
    whose demands can be met has at least one candidate. With the data split into chunks
    only the universal one and those that move each packet on its own (:data:`_CHUNKED`) are
    tried (the others move one packet per node); when none of those applies to a copy
    problem of ``K`` chunks, the schedule for fewer chunks repeated
    (:func:`gossipcert.constructions.chunk_repeat.repeated_schedule`) comes before the
    universal one.
    """
    specific = False
    for name, schedule in specific_candidates(instance):
        specific = True
        yield name, schedule
    if not specific and instance.problem.chunks > 1 and not instance.problem.reduction:
        if not latencies(instance.graph):
            from gossipcert.constructions.chunk_repeat import repeated_schedule

            try:
                yield repeated_schedule(instance, specific_candidates)
            except NotApplicableError:
                pass
    for name in _UNIVERSAL:
        try:
            schedule = construct(instance, name)
        except NotApplicableError:
            continue
        yield name, schedule
