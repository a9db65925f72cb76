"""Time at a message size: the machines' units, the simulator of timed transfers, the lower
bound on time and its parts (against hand computations, ForestColl's published numbers, and
the simulated time of every algorithm tried: a bound above a time is a bug)."""

from __future__ import annotations

import random
from fractions import Fraction

import networkx as nx
import pytest

from gossipcert import graphs
from gossipcert.closed_forms.throughput import allgather_cut
from gossipcert.errors import FormatError, GossipcertError, SpecError
from gossipcert.graphs.links import LINKS, derived_capacity, has_units
from gossipcert.timed.bound import bandwidth_bound, latency_bound, required_pairs
from gossipcert.timed.discrete import discrete_bound, relaxed_instance
from gossipcert.timed.machine import machine_of
from gossipcert.timed.ops import ops_from_moves
from gossipcert.timed.simulate import Op, simulate
from gossipcert.timed.sizes import default_sizes, parse_sizes

MACHINES = [
    "dgx1", "dgx2", "ndv2:1", "ndv2:2", "ndv2:3", "mi250:1", "mi250:2", "mi250:1:forestcoll",
    "mi250:2:forestcoll", "a100:1", "a100:2", "a100:3", "ndv5:1", "ndv5:2", "mi300x",
    "mi300x:4",
]  # fmt: skip


@pytest.mark.parametrize("spec", MACHINES)
def test_machines_carry_cited_units_and_their_capacities_follow(spec: str) -> None:
    g = graphs.from_spec(spec)
    assert has_units(g)
    slowest = min(bw for _, _, bw in g.edges(data="bandwidth"))
    for u, v, data in g.edges(data=True):
        kind = LINKS[data["link"]]
        lanes = data["bandwidth"] / kind.bandwidth
        assert lanes == int(lanes) and lanes in (1, 2, 4)
        assert 0 <= data["alpha"] <= kind.alpha
        assert data["capacity"] == derived_capacity(data["bandwidth"], slowest), (u, v)


def test_graphs_without_units_have_none() -> None:
    for spec in ("ring:8", "fully-connected:4", "hub:4", "fattree:8"):
        assert not has_units(graphs.from_spec(spec))


@pytest.mark.parametrize(
    ("spec", "algbw"),
    [
        ("a100:1", Fraction(2400, 7)),
        ("a100:2", Fraction(1040, 3)),
        ("mi250:1:forestcoll", Fraction(2400, 7)),
        ("mi250:2:forestcoll", Fraction(5312, 15)),
    ],
)
def test_forestcoll_optimal_allgather_bandwidth(spec: str, algbw: Fraction) -> None:
    """ForestColl's README and paper: the optimal allgather algorithmic bandwidth (GB/s) of
    its A100 and MI250 boxes, here from the machines' own bandwidths."""
    g = graphs.from_spec(spec)
    cut = allgather_cut(g, weight="bandwidth")
    assert len(graphs.processors(g)) / cut.ratio / 10**9 == algbw


def test_sizes() -> None:
    assert parse_sizes("1K,2M,1.5G,7") == [1024.0, 2.0 * 2**20, 1.5 * 2**30, 7.0]
    assert parse_sizes("4KiB, 4KB, 4k") == [4096.0] * 3
    for bad in ("0", "-1", "abc", "1X", "nan", "inf", ""):
        with pytest.raises(SpecError, match="positive number"):
            parse_sizes(bad)
    assert default_sizes(1, 327680, 8) == [8, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 327680]
    sizes = default_sizes(0, 1 << 40, 16)
    assert sizes[0] == 16 and sizes[-1] == 1 << 40 and len(sizes) <= 12


# --------------------------------------------------------------------------------------------
# The simulator, against hand computations
# --------------------------------------------------------------------------------------------


def test_a_link_serves_one_transfer_at_a_time_and_latency_is_paid_on_arrival() -> None:
    m = machine_of(graphs.from_spec("path:3"), 3, alpha=0.5)
    ops = [Op(0, 1, 2.0), Op(0, 1, 1.0), Op(1, 2, 1.0, arrivals=(1,))]
    # 0 -> 1 serves [0, 2] then [2, 3]; the second arrives at 3.5; 1 -> 2 runs [3.5, 4.5]
    assert simulate(m, ops).time == 5.0
    # a local step waits for a transfer to be done (sent), not to arrive
    ops = [Op(0, 1, 2.0), Op(after=(0,)), Op(0, 1, 1.0, after=(1,))]
    assert simulate(m, ops).time == 3.5


def test_routes_cut_through_switches_and_store_at_processors() -> None:
    # four GPUs behind a switch of bandwidth 1 a link: 0 -> 1 and 2 -> 1 share 1's link
    hub = machine_of(graphs.from_spec("hub:4"), 4, alpha=0.25)
    route = hub.route(0, 1, 1.0)
    assert route.nodes == (0, 4, 1) and len(route.segments) == 1
    assert simulate(hub, [Op(0, 1, 1.0)]).time == 1.5  # one link time, two latencies
    assert simulate(hub, [Op(0, 1, 1.0), Op(2, 1, 1.0)]).time == 2.5
    # an all-to-all behind a switch: every receiver gets one transfer at a time, from the
    # rank before it first, so it takes 3 link times (not 6: all to rank 0 first)
    everyone = [Op(s, d, 1.0) for s in range(4) for d in range(4) if s != d]
    assert simulate(hub, everyone).time == 3.5
    saf = machine_of(graphs.from_spec("hub:4"), 4, alpha=0.25, switch="store-and-forward")
    assert simulate(saf, [Op(0, 1, 1.0)]).time == 2.5
    # on a path the middle processor stores the chunk: two link times
    path = machine_of(graphs.from_spec("path:3"), 3)
    run = simulate(path, [Op(0, 2, 1.0)])
    assert run.time == 2.0 and run.routed[(0, 2)].nodes == (0, 1, 2)


def test_iterations_pipeline_and_extrapolate_from_below_never() -> None:
    """A chain 0 -> 1 -> 2 -> 3 run 40 times over slices: pipelined, it takes the first
    slice's 3 link times and one more a slice; extrapolated from fewer iterations it agrees
    and never falls below the busiest link's work."""
    m = machine_of(graphs.from_spec("path:4"), 4)
    ops = [Op(0, 1, 1.0), Op(1, 2, 1.0, arrivals=(0,)), Op(2, 3, 1.0, arrivals=(1,))]
    carry = [(0, 0), (1, 1), (2, 2)]
    full = simulate(m, ops, iterations=40, carry=carry, cap=40)
    assert full.time == 42.0 and not full.extrapolated and full.busiest == 40.0
    short = simulate(m, ops, iterations=40, carry=carry, cap=6)
    assert short.extrapolated and short.time == 42.0


def test_a_cycle_of_dependencies_is_refused() -> None:
    m = machine_of(graphs.from_spec("path:2"), 2)
    with pytest.raises(GossipcertError, match="never become ready"):
        simulate(m, [Op(0, 1, 1.0, after=(1,)), Op(1, 0, 1.0, after=(0,))])


def test_moves_wait_for_their_chunks() -> None:
    ops = ops_from_moves([(1, 0, 1, 1.0, frozenset({"a"})), (2, 1, 2, 1.0, frozenset({"a"}))])
    m = machine_of(graphs.from_spec("path:3"), 3, alpha=1.0)
    assert simulate(m, ops).time == 4.0


# --------------------------------------------------------------------------------------------
# Machines: units, bad input
# --------------------------------------------------------------------------------------------


def test_units_are_stated_and_bad_numbers_refused() -> None:
    ring = machine_of(graphs.from_spec("ring:8"), 8)
    assert ring.units is not None and "no physical units" in ring.units
    assert machine_of(graphs.from_spec("dgx1"), 8).units is None
    for bad in (0, -1.0, float("nan"), float("inf"), "x"):
        with pytest.raises(SpecError, match="positive number"):
            machine_of(graphs.from_spec("ring:4"), 4, alpha=bad)
        with pytest.raises(SpecError, match="positive number"):
            machine_of(graphs.from_spec("ring:4"), 4, bandwidth=bad)
    with pytest.raises(SpecError, match="its own link bandwidths"):
        machine_of(graphs.from_spec("dgx1"), 8, bandwidth=2.0)
    with pytest.raises(FormatError, match="16 ranks but dgx1 has 8 GPUs"):
        machine_of(graphs.from_spec("dgx1"), 16)
    with pytest.raises(SpecError, match="switch"):
        machine_of(graphs.from_spec("dgx1"), 8, switch="teleport")


# --------------------------------------------------------------------------------------------
# The bound's parts
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("n", [3, 4, 5, 8])
def test_bandwidth_parts_on_rings_meet_the_closed_forms(n: int) -> None:
    m = machine_of(graphs.from_spec(f"ring:{n}"), n)
    # allgather: (S / n) (n - 1) / 2; allreduce: 2 (n - 1) S / (2 n); broadcast: S / 2
    assert bandwidth_bound(m, "allgather").per_byte == Fraction(n - 1, 2 * n)
    assert bandwidth_bound(m, "reducescatter").per_byte == Fraction(n - 1, 2 * n)
    assert bandwidth_bound(m, "allreduce").per_byte == Fraction(n - 1, n)
    assert bandwidth_bound(m, "broadcast", 0).per_byte == Fraction(1, 2)
    # alltoall: every share crosses floor(n^2 / 4) links on average at least
    hops = sum(min(d, n - d) for d in range(1, n)) * n
    assert bandwidth_bound(m, "alltoall").per_byte >= Fraction(hops, n * 2 * n)


def test_latency_part_is_the_farthest_pair() -> None:
    m = machine_of(graphs.from_spec("ring:8"), 8, alpha=0.5)
    assert latency_bound(m, required_pairs("allgather", 8))[0] == 2.0
    assert latency_bound(m, required_pairs("broadcast", 8, root=3))[0] == 2.0
    ndv2 = machine_of(graphs.from_spec("ndv2:2"), 16)
    value, text = latency_bound(ndv2, required_pairs("allgather", 16))
    # from a GPU two NVLinks from GPU 0 to one two from GPU 8: 4 x 0.7 us and the NIC's 1.3
    assert value == pytest.approx(4 * 0.7e-6 + 1.3e-6) and "5 links" in text


def test_the_relaxed_round_model() -> None:
    inst, lat = relaxed_instance(machine_of(graphs.from_spec("ndv2:2"), 16), "gossip")
    assert lat and {c for _, _, c in inst.graph.edges(data="capacity")} == {1}
    assert {inst.graph[u][v].get("latency", 1) for u, v in inst.graph.edges} == {1, 2, 4}
    inst, lat = relaxed_instance(machine_of(graphs.from_spec("ring:4"), 4), "allreduce")
    assert not lat
    with pytest.raises(GossipcertError, match="cut-through"):
        relaxed_instance(machine_of(graphs.from_spec("a100:1"), 8), "gossip")
    with pytest.raises(GossipcertError, match="cut-through"):
        relaxed_instance(machine_of(graphs.from_spec("hub:4"), 4), "gossip")
    saf = machine_of(graphs.from_spec("hub:4"), 4, switch="store-and-forward")
    assert relaxed_instance(saf, "gossip")[0].graph.number_of_nodes() == 5
    assert not discrete_bound(machine_of(graphs.from_spec("dgx2"), 16), "gossip", 16).available


def _random_algorithm(rng: random.Random, n: int) -> list[Op]:
    """A random allgather-like list: every rank's chunk reaches every rank along random
    spanning trees (each tree edge one transfer waiting for the chunk's arrival)."""
    ops: list[Op] = []
    for root in range(n):
        arrival: dict[int, int | None] = {root: None}
        while len(arrival) < n:
            u = rng.choice(sorted(arrival))
            v = rng.choice([x for x in range(n) if x not in arrival])
            before = arrival[u]
            ops.append(Op(u, v, 1.0, arrivals=() if before is None else (before,)))
            arrival[v] = len(ops) - 1
    return ops


@pytest.mark.parametrize(
    "spec", ["ring:6", "fully-connected:5", "dgx1", "hub:5", "a100:2", "mi250:2"]
)
def test_every_simulated_allgather_takes_at_least_the_bound(spec: str) -> None:
    """Random allgathers of one chunk a rank, at several sizes and latencies: the time is
    never below the latency part or the bandwidth part (ForestColl's optimum)."""
    rng = random.Random(spec)
    g = graphs.from_spec(spec)
    n = len(graphs.processors(g))
    for trial in range(4):
        alpha = None if trial % 2 else rng.choice([1e-6, 0.3])
        m = machine_of(g, n, alpha=alpha)
        ops = _random_algorithm(rng, n)
        lat = latency_bound(m, required_pairs("allgather", n))[0]
        per_byte = float(bandwidth_bound(m, "allgather").per_byte)
        for size in (float(n), 1e3 * n, 1e9 * n):
            run = simulate(m, ops, unit=size / n)
            assert run.time >= lat * (1 - 1e-9) and run.time >= per_byte * size * (1 - 1e-9)
            assert run.time >= run.busiest * (1 - 1e-9)


def test_discrete_part_bounds_whole_chunk_algorithms_on_heterogeneous_links() -> None:
    """On the DGX-1 (links of 25 and 50 GB/s): random allgathers of whole chunks never beat
    the relaxed round model's optimum times one chunk over the fastest link."""
    m = machine_of(graphs.from_spec("dgx1"), 8)
    found = discrete_bound(m, "gossip", 8, time_limit=60)
    assert found.status == "optimal" and found.certified
    rng = random.Random(7)
    for _ in range(10):
        ops = _random_algorithm(rng, 8)
        assert simulate(m, ops, unit=1e6).time >= found.time(8e6) * (1 - 1e-9)
    # the schedule it found, run on the machine, meets R tau exactly (no latency hidden)
    assert found.schedule is not None and found.lower == len(found.schedule)


def test_fabric_is_directed_both_ways() -> None:
    m = machine_of(graphs.from_spec("path:2"), 2)
    assert sorted(m.arcs) == [(0, 1), (1, 0)] and isinstance(m.graph, nx.Graph)


@pytest.mark.parametrize(
    ("spec", "fragment"),
    [
        ("mi250:2:foo", "unknown option"),
        ("a100:0", "boxes must be >= 1"),
        ("mi300x:9", "a platform has 8 GPUs"),
        ("ndv5:x", "bad number"),
    ],
)
def test_bad_machine_specs(spec: str, fragment: str) -> None:
    with pytest.raises(SpecError, match=fragment):
        graphs.from_spec(spec)


def test_machine_shapes() -> None:
    a100 = graphs.from_spec("a100:2")
    assert len(graphs.processors(a100)) == 16 and len(graphs.routers(a100)) == 20
    # the even GPUs' NICs on one InfiniBand switch, the odd ones' on the other
    assert {graphs.routers(a100)[-2], graphs.routers(a100)[-1]} == {34, 35}
    assert sorted(a100[34]) == [18, 20, 22, 24, 26, 28, 30, 32]
    mi = graphs.from_spec("mi250:2:forestcoll")
    assert mi.number_of_nodes() == 33 and mi.degree(32) == 32
    assert graphs.from_spec("mi300x:4").number_of_edges() == 6
    assert graphs.from_spec("ndv5:2").nodes[34]["router"]
