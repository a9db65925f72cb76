"""Every bound and construction for pipelined collectives against the exact optimum, on
every small case (not a sample).

The cases are those of ``tests/pipelined_optima.py`` (1335): every connected graph of the
networkx atlas with 2 to 4 nodes (5 for broadcast and scatter); the models the bounds are
stated for (telephone, half-duplex, single-port and multicast with one packet a call;
all-port with capacity 1 and ``c=2``) and the problems they cover (broadcast, scatter,
gather, gossip, total exchange, reduce-scatter; allreduce under single-port and all-port);
1 and 2 chunks (1 for the total exchange, the scatter on 5 nodes and the allreduce on 4 in
the one-port models), and 3 chunks under all-port (allreduce: on 3 nodes at most) and for
broadcast in every model. The exact optima are cached in ``tests/data/pipelined-optima.json``,
produced by that script from the exact search alone (no bound, no construction); the slow
test recomputes every one of them.

Checked on every case where they apply:

- lower bounds at most the optimum: ``pipelined-broadcast``, ``flow-over-time``, ``cut``
  (its family of cuts with the throughput sides and capacity clusters of
  :mod:`gossipcert.closed_forms.cut_sides`), ``cut-cover``, ``late-entry``; the continuous
  bandwidth bound of :mod:`gossipcert.closed_forms.throughput` times the chunks (all-port);
  the allreduce bounds ``receive``, ``receipts``, ``one-round``, the cut-vertex and the
  bridge bound, and the reduce-scatter and allgather optima (an allreduce is both);
- the optimum where a closed form claims it: ``pipelined-broadcast`` on complete graphs
  under single-port (Bar-Noy, Kipnis and Schieber), ``flow-over-time`` on complete graphs
  under all-port (the scatter-allgather broadcast);
- constructions claimed optimal meet the optimum: the circulant broadcast (single-port,
  complete graphs), the scatter-allgather broadcast (all-port, complete graphs, ``c = 1, 2``),
  the ring pipeline allgather (single-port, complete graphs), the two-stream broadcast and
  the bidirectional ring allreduce (all-port, the 4-cycle), the destination-flow alltoall
  (all-port, every graph: a schedule in the optimum's rounds and none in one fewer).
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from fractions import Fraction
from pathlib import Path

import networkx as nx
import pytest

from gossipcert.closed_forms import Bound
from gossipcert.closed_forms.allreduce_one_round import one_round_bound
from gossipcert.closed_forms.cut_cover import cut_cover_bound
from gossipcert.closed_forms.cuts import cut_bound
from gossipcert.closed_forms.late_entry import late_entry_bound
from gossipcert.closed_forms.pipelined import flow_over_time_bound, pipelined_broadcast_bound
from gossipcert.closed_forms.throughput import allgather_cut, broadcast_cut, reduce_scatter_cut
from gossipcert.constructions.circulant_broadcast import circulant_broadcast
from gossipcert.constructions.destination_flows import destination_flow_alltoall
from gossipcert.constructions.pipelined_rings import (
    bidirectional_ring_allreduce,
    ring_pipeline_allgather,
    two_stream_broadcast,
)
from gossipcert.constructions.scatter_allgather import (
    scatter_allgather_broadcast,
    scatter_allgather_rounds,
)
from gossipcert.instance import Instance, parse_instance
from gossipcert.schedule import Schedule
from gossipcert.search.allreduce_bounds import receipt_bound, receive_bound
from gossipcert.search.allreduce_bridge import bridge_bound
from gossipcert.search.allreduce_cut import cut_bound as allreduce_cut_bound
from gossipcert.simulate import simulate
from tests import pipelined_optima as ref

DATA = Path(__file__).parent / "data" / "pipelined-optima.json"
OPTIMA: dict[str, int] = json.loads(DATA.read_text())
CASES = list(ref.cases())

BoundFn = Callable[[Instance], Bound | None]
#: the closed forms for pipelined collectives (copy problems)
COPY_BOUNDS: dict[str, BoundFn] = {
    "pipelined-broadcast": pipelined_broadcast_bound,
    "flow-over-time": flow_over_time_bound,
    "cut": cut_bound,
    "cut-cover": cut_cover_bound,
    "late-entry": late_entry_bound,
}


def _value(b: Bound | int | None) -> int | None:
    return b.value if isinstance(b, Bound) else b


#: the allreduce bounds of :mod:`gossipcert.search.allreduce`
ALLREDUCE_BOUNDS: dict[str, Callable[[Instance], int | None]] = {
    "receive": receive_bound,
    "receipts": receipt_bound,
    "one-round": lambda inst: _value(one_round_bound(inst)),
    "cut-vertex": allreduce_cut_bound,
    "bridge": bridge_bound,
}


def optimum(atlas: int, model: str, problem: str, chunks: int) -> int:
    return OPTIMA[ref.key(atlas, model, problem, chunks)]


def rounds_of(inst: Instance, schedule: Schedule) -> int:
    report = simulate(inst, schedule)
    assert report.valid and report.complete, report.errors[:3]
    assert report.rounds is not None
    return report.rounds


def bandwidth_rounds(inst: Instance, problem: str) -> Fraction | None:
    """Chunks times the continuous bandwidth bound's rounds a chunk, all-port (capacity 1
    or ``c``); None for the problems it does not state."""
    g = inst.graph
    scale = Fraction(1, inst.model.capacity or 1)
    k = inst.problem.chunks
    if problem == "broadcast:0":
        return k * scale * broadcast_cut(g, 0).ratio
    if problem == "gossip":
        return k * scale * allgather_cut(g).ratio
    if problem == "reduce-scatter":
        return k * scale * reduce_scatter_cut(g).ratio
    if problem == "allreduce":
        return k * scale * max(allgather_cut(g).ratio, reduce_scatter_cut(g).ratio)
    return None


def test_the_data_holds_every_case() -> None:
    assert sorted(OPTIMA) == sorted(ref.key(*c) for c in CASES)
    assert len(CASES) > 1300


def test_bounds_never_exceed_the_exact_optimum() -> None:
    """Every case, every bound that applies; each bound applies somewhere and meets the
    optimum somewhere (a bound that never applied would make this test vacuous)."""
    applied: dict[str, int] = {}
    tight: dict[str, int] = {}
    for atlas, model, problem, chunks in CASES:
        inst = ref.instance(atlas, model, problem, chunks)
        best = optimum(atlas, model, problem, chunks)
        values: dict[str, int | Fraction | None] = {}
        if problem == "allreduce":
            values.update({name: fn(inst) for name, fn in ALLREDUCE_BOUNDS.items()})
            values["reduce-scatter"] = OPTIMA.get(ref.key(atlas, model, "reduce-scatter", chunks))
            values["allgather"] = OPTIMA.get(ref.key(atlas, model, "gossip", chunks))
        else:
            values.update({name: _value(fn(inst)) for name, fn in COPY_BOUNDS.items()})
        if model.startswith("all-port"):
            values["bandwidth"] = bandwidth_rounds(inst, problem)
        for name, value in values.items():
            if value is None:
                continue
            applied[name] = applied.get(name, 0) + 1
            assert value <= best, (atlas, model, problem, chunks, name, value, best)
            if math.ceil(value) == best:
                tight[name] = tight.get(name, 0) + 1
    expected = {*COPY_BOUNDS, *ALLREDUCE_BOUNDS, "reduce-scatter", "allgather", "bandwidth"}
    assert set(applied) == expected
    assert set(tight) == expected


def _complete(atlas: int) -> bool:
    g = nx.graph_atlas(atlas)
    n = g.number_of_nodes()
    return g.number_of_edges() == n * (n - 1) // 2


def test_closed_forms_are_the_optimum_where_they_claim_it() -> None:
    """Bar-Noy, Kipnis and Schieber (single-port) and the flow over time (all-port, the
    scatter-allgather broadcast) on every complete graph, 2 and 3 chunks."""
    checked = 0
    for atlas, model, problem, chunks in CASES:
        if problem != "broadcast:0" or chunks < 2 or not _complete(atlas):
            continue
        inst = ref.instance(atlas, model, problem, chunks)
        best = optimum(atlas, model, problem, chunks)
        if model == "single-port":
            bound = pipelined_broadcast_bound(inst)
        elif model == "all-port":
            bound = flow_over_time_bound(inst)
        else:
            continue
        assert bound is not None and bound.value == best, (atlas, model, chunks, bound, best)
        checked += 1
    assert checked == 2 * 2 * 4  # two models, two chunk counts, K_2 .. K_5


def _atlas_of(spec: str) -> int:
    """The atlas index of the graph isomorphic to ``spec`` (vertex-transitive here, so the
    source 0 may be any node)."""
    g = parse_instance(spec, "all-port", "gossip").graph
    found = [
        i
        for i, h in ref.atlas_graphs(5)
        if h.number_of_nodes() == g.number_of_nodes() and nx.is_isomorphic(g, h)
    ]
    assert len(found) == 1
    return found[0]


@pytest.mark.parametrize("n", [2, 3, 4, 5])
def test_complete_graph_constructions_meet_the_optimum(n: int) -> None:
    atlas = _atlas_of(f"complete:{n}")
    for chunks in ref.CHUNKS:
        spec = ref.problem_spec("broadcast:0", chunks)
        inst = parse_instance(f"complete:{n}", "single-port", spec)
        got = rounds_of(inst, circulant_broadcast(inst))
        assert got == optimum(atlas, "single-port", "broadcast:0", chunks)
        for model, c in (("all-port", 1), ("all-port:c=2", 2)):
            inst = parse_instance(f"complete:{n}", model, spec)
            got = rounds_of(inst, scatter_allgather_broadcast(inst))
            assert got == optimum(atlas, model, "broadcast:0", chunks)
            assert got == scatter_allgather_rounds(n, chunks, c)
        if n <= 4 and chunks <= 2:
            spec = ref.problem_spec("gossip", chunks)
            inst = parse_instance(f"complete:{n}", "single-port", spec)
            got = rounds_of(inst, ring_pipeline_allgather(inst))
            assert got == optimum(atlas, "single-port", "gossip", chunks)


def test_ring_constructions_meet_the_optimum() -> None:
    atlas = _atlas_of("ring:4")
    for chunks in ref.CHUNKS:
        inst = parse_instance("ring:4", "all-port", ref.problem_spec("broadcast:0", chunks))
        assert rounds_of(inst, two_stream_broadcast(inst)) == optimum(
            atlas, "all-port", "broadcast:0", chunks
        )
        if chunks <= 2:
            inst = parse_instance("ring:4", "all-port", ref.problem_spec("allreduce", chunks))
            assert rounds_of(inst, bidirectional_ring_allreduce(inst)) == optimum(
                atlas, "all-port", "allreduce", chunks
            )


def test_destination_flow_alltoall_is_exact() -> None:
    """A schedule in the optimum's rounds, none in one fewer: the flow model is the
    alltoall itself under all-port (capacity 1 and 2)."""
    for atlas, model, problem, chunks in CASES:
        if problem != "total-exchange" or not model.startswith("all-port"):
            continue
        inst = ref.instance(atlas, model, problem, chunks)
        best = optimum(atlas, model, problem, chunks)
        schedule = destination_flow_alltoall(inst, best)
        assert schedule is not None and rounds_of(inst, schedule) == best
        assert best == 1 or destination_flow_alltoall(inst, best - 1) is None


@pytest.mark.slow
def test_the_cached_optima_are_reproduced() -> None:
    """The data file is what the exact search gives today (minutes)."""
    assert ref.compute() == OPTIMA
