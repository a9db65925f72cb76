"""Tests of gossipcert.closed_forms: closed forms, hypotheses, and soundness against brute force.

The brute force is written here, independently of the package: a breadth-first search over
knowledge states (one bitmask of known packets per node) whose rounds are the maximal
transmission sets of each model. Knowledge only grows and more knowledge never hurts, so
maximal sets (and, with a packet cap, sending only packets the receiver lacks) lose nothing,
and a state that another state of the same round contains can be dropped: whatever the
smaller one reaches in ``k`` rounds, the larger one reaches too.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Iterable, Iterator

import networkx as nx
import numpy as np
import pytest

from gossipcert import closed_forms as bounds
from gossipcert.closed_forms import (
    LOWER_BOUNDS,
    LOWER_COST_BOUNDS,
    UPPER_BOUNDS,
    Bound,
    all_bounds,
    beier_sibeyn_upper,
    best_lower_bound,
    best_upper_bound,
    bound_by_name,
    fat_trees,
)
from gossipcert.graphs import cartesian_product, from_spec
from gossipcert.instance import Instance, make_instance, parse_instance, parse_model, parse_problem

ALL_FUNCTIONS = LOWER_BOUNDS + LOWER_COST_BOUNDS + UPPER_BOUNDS


def inst(graph: str, model: str, problem: str = "gossip") -> Instance:
    return parse_instance(graph, model, problem)


def value(fn: Callable[[Instance], Bound | None], instance: Instance) -> int | None:
    b = fn(instance)
    return None if b is None else b.value


# --------------------------------------------------------------------------------------------
# Brute force
# --------------------------------------------------------------------------------------------


def plain_graph(g: nx.Graph) -> nx.Graph:
    """Relabel to 0..n-1 with the attributes gossipcert expects."""
    h = nx.convert_node_labels_to_integers(g, ordering="sorted")
    out = nx.Graph()
    out.graph["spec"] = "atlas"
    out.add_nodes_from((v, {"label": str(v), "router": False}) for v in range(h.number_of_nodes()))
    out.add_edges_from((u, v, {"capacity": 1}) for u, v in h.edges())
    return out


def small_connected_graphs(max_nodes: int) -> list[nx.Graph]:
    return [
        plain_graph(g)
        for g in nx.graph_atlas_g()
        if 1 <= g.number_of_nodes() <= max_nodes and nx.is_connected(g)
    ]


def maximal_matchings(g: nx.Graph) -> list[list[tuple[int, int]]]:
    """Every maximal matching of ``g`` (the empty one for an edgeless graph)."""
    edges = sorted(tuple(sorted(e)) for e in g.edges())
    out: list[list[tuple[int, int]]] = []

    def grow(i: int, used: set[int], chosen: list[tuple[int, int]]) -> None:
        if i == len(edges):
            if all(u in used or v in used for u, v in edges):
                out.append(list(chosen))
            return
        u, v = edges[i]
        if u not in used and v not in used:
            chosen.append((u, v))
            grow(i + 1, used | {u, v}, chosen)
            chosen.pop()
        grow(i + 1, used, chosen)

    grow(0, set(), [])
    return out


State = tuple[int, ...]
Step = Callable[[State], Iterable[State]]


def maximal_states(states: set[State]) -> list[State]:
    """The states that no other state contains (node by node)."""
    width = max(k.bit_length() for s in states for k in s) or 1
    assert width * max(len(s) for s in states) <= 64
    packed = sorted(
        ((sum(k << (width * v) for v, k in enumerate(s)), s) for s in states),
        key=lambda item: -item[0].bit_count(),
    )
    kept = np.zeros(len(packed), dtype=np.uint64)
    out: list[State] = []
    for code, s in packed:
        if out and np.any((np.uint64(code) & ~kept[: len(out)]) == 0):
            continue
        kept[len(out)] = code
        out.append(s)
    return out


def gossip_symmetries(g: nx.Graph) -> Callable[[State], State]:
    """A canonical form of gossip states under the automorphisms of ``g`` (which move the
    nodes and, with them, the packets named after the nodes)."""
    n = g.number_of_nodes()
    autos = list(nx.algorithms.isomorphism.GraphMatcher(g, g).isomorphisms_iter())
    tables = []
    for sigma in autos:
        inverse = {w: v for v, w in sigma.items()}
        table = [sum(1 << sigma[i] for i in range(n) if mask >> i & 1) for mask in range(1 << n)]
        tables.append((table, [inverse[w] for w in range(n)]))

    def canonical(s: State) -> State:
        return min(tuple(table[s[v]] for v in order) for table, order in tables)

    return canonical


def bfs_rounds(
    start: State,
    goal: Callable[[State], bool],
    step: Step,
    canonical: Callable[[State], State] | None = None,
    limit: int = 40,
) -> int:
    """Fewest rounds from ``start`` to a state meeting ``goal`` (at most 64 bits a state)."""
    frontier = [start]
    for rounds in range(limit + 1):
        if any(goal(s) for s in frontier):
            return rounds
        frontier = maximal_states({t for s in frontier for t in step(s)})
        if canonical is not None:
            frontier = list({canonical(s) for s in frontier})
    raise AssertionError("no schedule found within the limit")


def telephone_step(g: nx.Graph) -> Step:
    ms = maximal_matchings(g)

    def step(s: State) -> Iterator[State]:
        for m in ms:
            k = list(s)
            for u, v in m:
                k[u] = k[v] = s[u] | s[v]
            yield tuple(k)

    return step


def half_duplex_step(g: nx.Graph, cap: int | None) -> Step:
    """Directed matchings; with ``cap == 1`` every arc carries one packet the receiver lacks."""
    ms = maximal_matchings(g)

    def step(s: State) -> Iterator[State]:
        for m in ms:
            # only orientations in which the sender has something new for the receiver
            options = [[a for a in ((u, v), (v, u)) if s[a[0]] & ~s[a[1]]] or [None] for u, v in m]
            for pick in itertools.product(*options):
                arcs = [a for a in pick if a is not None]
                if cap is None:
                    k = list(s)
                    for u, v in arcs:
                        k[v] |= s[u]
                    yield tuple(k)
                else:
                    yield from capped_arcs(s, arcs)

    return step


def one_packet_choices(s: State, u: int, v: int) -> list[int]:
    """The single packets ``u`` can send ``v`` usefully (nothing if there is none)."""
    new = s[u] & ~s[v]
    return [1 << i for i in range(new.bit_length()) if new >> i & 1] or [0]


def capped_arcs(s: State, arcs: list[tuple[int, int]]) -> Iterator[State]:
    """Every way of sending one useful packet along each arc (receivers are distinct)."""
    options = [one_packet_choices(s, u, v) for u, v in arcs]
    for pick in itertools.product(*options):
        k = list(s)
        for (_, v), bit in zip(arcs, pick, strict=True):
            k[v] |= bit
        yield tuple(k)


def single_port_step(g: nx.Graph) -> Step:
    """Every node sends at most one packet to one neighbour and receives at most one (p=1);
    maximal arc sets only."""
    n = g.number_of_nodes()
    arc_sets: list[list[tuple[int, int]]] = []
    for targets in itertools.product(*[[None, *sorted(g[v])] for v in range(n)]):
        receivers = [t for t in targets if t is not None]
        if len(receivers) != len(set(receivers)):
            continue
        arcs = [(u, t) for u, t in enumerate(targets) if t is not None]
        taken = set(receivers)
        if any(
            targets[u] is None and any(w not in taken for w in g[u]) for u in range(n)
        ):  # u could still send to a free receiver
            continue
        arc_sets.append(arcs)

    def step(s: State) -> Iterator[State]:
        for arcs in arc_sets:
            yield from capped_arcs(s, arcs)

    return step


def multicast_step(g: nx.Graph) -> Step:
    """Every node receives from one neighbour (joining a sender's audience never hurts);
    every sender sends one packet (p=1), useful to one of its receivers, to all of them."""
    n = g.number_of_nodes()

    def step(s: State) -> Iterator[State]:
        for senders in itertools.product(*[sorted(g[v]) or [None] for v in range(n)]):
            groups: dict[int, list[int]] = {}
            for v, u in enumerate(senders):
                if u is not None:
                    groups.setdefault(u, []).append(v)
            choices = []
            for u, vs in groups.items():
                useful = 0
                for v in vs:
                    useful |= s[u] & ~s[v]
                bits = [1 << i for i in range(useful.bit_length()) if useful >> i & 1]
                choices.append(bits or [0])
            for pick in itertools.product(*choices):
                k = list(s)
                for (_u, vs), bit in zip(groups.items(), pick, strict=True):
                    for v in vs:
                        k[v] |= bit
                yield tuple(k)

    return step


def sequential_step(g: nx.Graph, cap: int | None) -> Step:
    """One call per round; each way at most ``cap`` packets the receiver lacks."""
    edges = sorted(tuple(sorted(e)) for e in g.edges())

    def subsets(mask: int) -> list[int]:
        items = [1 << i for i in range(mask.bit_length()) if mask >> i & 1]
        if cap is None or len(items) <= cap:
            return [mask]
        return [sum(c) for c in itertools.combinations(items, cap)]

    def step(s: State) -> Iterator[State]:
        for u, v in edges:
            for a in subsets(s[u] & ~s[v]):
                for b in subsets(s[v] & ~s[u]):
                    k = list(s)
                    k[v] |= a
                    k[u] |= b
                    yield tuple(k)

    return step


def all_port_step(g: nx.Graph, capacity: int | None) -> Step:
    """Every arc carries up to its capacity (or ``capacity`` for all) of packets its head
    lacks; routers store and forward like everyone else."""
    arcs = [(u, w, capacity or g[u][w]["capacity"]) for u in g for w in g[u]]

    def step(s: State) -> Iterator[State]:
        options = []
        for u, w, c in arcs:
            new = [1 << i for i in range(s[u].bit_length()) if s[u] >> i & 1 and not s[w] >> i & 1]
            options.append([sum(x) for x in itertools.combinations(new, min(c, len(new)))])
        for pick in itertools.product(*options):
            k = list(s)
            for (_u, w, _c), sent in zip(arcs, pick, strict=True):
                k[w] |= sent
            yield tuple(k)

    return step


def instance_optimum(instance: Instance, step: Step) -> int:
    """Fewest rounds to meet the demands of ``instance`` from its holdings."""
    demands = instance.demands

    def met(s: State) -> bool:
        return all(d & ~k == 0 for d, k in zip(demands, s, strict=True))

    return bfs_rounds(tuple(instance.holdings), met, step)


def gossip_optimum(g: nx.Graph, step: Step) -> int:
    n = g.number_of_nodes()
    full = (1 << n) - 1
    start = tuple(1 << v for v in range(n))
    done: Callable[[State], bool] = lambda s: all(k == full for k in s)  # noqa: E731
    return bfs_rounds(start, done, step, gossip_symmetries(g))


def broadcast_optimum(g: nx.Graph, step: Step, source: int = 0) -> int:
    n = g.number_of_nodes()
    start = tuple(1 if v == source else 0 for v in range(n))
    return bfs_rounds(start, lambda s: all(s), step)


def make(g: nx.Graph, model: str, problem: str) -> Instance:
    return make_instance(g, parse_model(model), parse_problem(problem))


def assert_sound(instance: Instance, optimum: int) -> int:
    """Every lower bound <= optimum <= every upper bound; returns how many bounds applied."""
    found = all_bounds(instance)
    for b in found:
        if b.kind == "upper":
            assert b.value >= optimum, (b, optimum, instance.describe())
        else:
            assert b.value <= optimum, (b, optimum, instance.describe())
    return len(found)


# --------------------------------------------------------------------------------------------
# Soundness against brute force
# --------------------------------------------------------------------------------------------

ATLAS5 = small_connected_graphs(5)
ATLAS4 = small_connected_graphs(4)


def test_atlas_has_all_connected_graphs_up_to_5_nodes() -> None:
    assert len(ATLAS5) == 1 + 1 + 2 + 6 + 21
    assert [g.number_of_nodes() for g in ATLAS5[: len(ATLAS4)]] == [1, 2, 3, 3] + [4] * 6


@pytest.mark.parametrize("index", range(len(ATLAS5)))
def test_sound_telephone_gossip_and_broadcast(index: int) -> None:
    g = ATLAS5[index]
    step = telephone_step(g)
    assert_sound(make(g, "telephone", "gossip"), gossip_optimum(g, step))
    assert_sound(make(g, "telephone", "broadcast:0"), broadcast_optimum(g, step))
    assert_sound(make(g, "telephone:tau=0.5", "gossip"), gossip_optimum(g, step))


@pytest.mark.parametrize("index", range(len(ATLAS5)))
def test_sound_half_duplex_gossip(index: int) -> None:
    g = ATLAS5[index]
    assert_sound(make(g, "half-duplex", "gossip"), gossip_optimum(g, half_duplex_step(g, None)))


@pytest.mark.parametrize("index", range(len(ATLAS4)))
def test_sound_one_packet_models(index: int) -> None:
    g = ATLAS4[index]
    assert_sound(make(g, "half-duplex:p=1", "gossip"), gossip_optimum(g, half_duplex_step(g, 1)))
    assert_sound(make(g, "single-port:p=1", "gossip"), gossip_optimum(g, single_port_step(g)))
    assert_sound(make(g, "multicast", "gossip"), gossip_optimum(g, multicast_step(g)))


@pytest.mark.parametrize(
    ("index", "cap"),
    [(i, 1) for i in range(len(ATLAS4))] + [(i, c) for i in range(len(ATLAS5)) for c in (2, None)],
)
def test_sound_sequential(index: int, cap: int | None) -> None:
    g = ATLAS5[index]
    model = "sequential" if cap is None else f"sequential:p={cap}"
    assert_sound(make(g, model, "gossip"), gossip_optimum(g, sequential_step(g, cap)))


@pytest.mark.parametrize(
    ("spec", "model", "step"),
    [
        ("ring:5", "half-duplex:p=1", lambda g: half_duplex_step(g, 1)),
        ("ring:5", "single-port:p=1", single_port_step),
        ("complete:5", "single-port:p=1", single_port_step),
        ("path:5", "multicast", multicast_step),
        ("ring:5", "multicast", multicast_step),
        ("complete:5", "sequential:p=2", lambda g: sequential_step(g, 2)),
        ("complete:5", "sequential:p=1", lambda g: sequential_step(g, 1)),
        ("ring:7", "telephone", telephone_step),
        ("path:7", "telephone", telephone_step),
        ("mesh:2x3", "telephone", telephone_step),
        ("ring:3*path:2", "telephone", telephone_step),
        ("mesh:2x4", "telephone", telephone_step),
        ("knodel:6", "telephone", telephone_step),
    ],
)
def test_sound_on_named_graphs(spec: str, model: str, step: Callable[[nx.Graph], Step]) -> None:
    i = inst(spec, model)
    assert assert_sound(i, gossip_optimum(i.graph, step(i.graph))) >= 3


@pytest.mark.parametrize("spec", ["fattree:2", "fattree:4", "fattree:4:exp"])
@pytest.mark.parametrize("capacity", [None, 2])
@pytest.mark.parametrize("problem", ["scatter:1", "gather:0", "gossip", "broadcast:3"])
def test_sound_on_fat_trees(spec: str, capacity: int | None, problem: str) -> None:
    if spec == "fattree:2" and problem == "broadcast:3":
        problem = "broadcast:1"
    model = "all-port" if capacity is None else f"all-port:c={capacity}"
    i = inst(spec, model, problem)
    assert_sound(i, instance_optimum(i, all_port_step(i.graph, capacity)))


def test_sound_total_exchange_on_the_smallest_fat_tree() -> None:
    i = inst("fattree:2", "all-port", "total-exchange")
    assert assert_sound(i, instance_optimum(i, all_port_step(i.graph, None))) >= 4


def test_exact_values_meet_on_small_named_graphs() -> None:
    """Where the papers give the optimum, lower and upper bounds meet the brute force."""
    for spec, model in [
        ("ring:5", "half-duplex:p=1"),
        ("ring:4", "single-port:p=1"),
        ("path:7", "telephone"),
        ("ring:6", "telephone"),
        ("ring:9", "telephone"),
        ("complete:4", "sequential:p=1"),
        ("complete:5", "sequential"),
    ]:
        i = inst(spec, model)
        low, up = best_lower_bound(i), best_upper_bound(i)
        assert up is not None and low.value == up.value, (spec, model, low, up)


# --------------------------------------------------------------------------------------------
# Closed forms
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("n", range(3, 17))
def test_telephone_gossip_on_complete_graphs(n: int) -> None:
    b = bound_by_name(inst(f"complete:{n}", "telephone"), "telephone-gossip")
    assert b is not None and b.value == math.ceil(math.log2(n)) + n % 2


@pytest.mark.parametrize("n", range(3, 16))
def test_dimakopoulos_ring_values(n: int) -> None:
    fd = inst(f"ring:{n}", "single-port:p=1")
    hd = inst(f"ring:{n}", "half-duplex:p=1")
    assert value(bounds.dimakopoulos_receive_bound, fd) == n - 1
    assert value(bounds.dimakopoulos_receive_bound, hd) == n - 1
    expected = 2 * (n - 1) if n % 2 == 0 else 2 * n
    assert value(bounds.dimakopoulos_half_duplex_bound, hd) == expected
    assert value(bounds.dimakopoulos_hamiltonian_upper_bound, hd) == expected
    assert value(bounds.dimakopoulos_hamiltonian_upper_bound, fd) == n - 1
    assert best_lower_bound(hd).value == expected
    assert best_lower_bound(fd).value == n - 1


@pytest.mark.parametrize(
    ("spec", "fd", "hd"),
    [
        ("ring:4*ring:6", 23, 46),  # Theorems 3 and 4
        ("ring:4*ring:3", 11, 24),  # Theorem 5: 2n, two more than (2)
        ("torus:3x5", 14, 6 + 3 * 10),  # odd x odd: Theorem 2 only (phase 2 along C5)
        ("hypercube:4", 15, 30),
        ("ring:3*path:2", 5, 12),
    ],
)
def test_dimakopoulos_products(spec: str, fd: int, hd: int) -> None:
    assert value(bounds.dimakopoulos_product_upper_bound, inst(spec, "single-port:p=1")) == fd
    assert value(bounds.dimakopoulos_product_upper_bound, inst(spec, "half-duplex:p=1")) == hd


def test_dimakopoulos_product_needs_known_factors() -> None:
    assert bounds.dimakopoulos_product_upper_bound(inst("mesh:3x4", "single-port:p=1")) is None
    assert (
        bounds.dimakopoulos_product_upper_bound(inst("petersen*path:2", "half-duplex:p=1")) is None
    )
    assert bounds.dimakopoulos_product_upper_bound(inst("ring:5", "single-port:p=1")) is None


@pytest.mark.parametrize("n", range(1, 16))
def test_beier_sibeyn_paths_and_cycles(n: int) -> None:
    p = inst(f"path:{n}", "telephone")
    expected = n - 1 if n % 2 == 0 or n == 1 else n
    assert value(bounds.beier_sibeyn_path_bound, p) == expected
    assert value(bounds.beier_sibeyn_path_upper_bound, p) == expected
    if n >= 3:
        c = inst(f"ring:{n}", "telephone")
        cycle = n // 2 if n % 2 == 0 else n // 2 + 2
        assert value(bounds.beier_sibeyn_cycle_upper_bound, c) == cycle
        assert value(bounds.beier_sibeyn_cycle_bound, c) == cycle
        assert value(bounds.beier_sibeyn_cycle_bound, inst(f"ring:{n}", "half-duplex")) == cycle


@pytest.mark.parametrize(
    ("a", "b"), [(a, b) for a in range(2, 8) for b in range(2, 8)] + [(1, 5), (5, 1)]
)
def test_beier_sibeyn_meshes(a: int, b: int) -> None:
    i = inst(f"mesh:{a}x{b}", "telephone")
    if min(a, b) == 1:
        assert bounds.beier_sibeyn_mesh_bound(i) is None
        assert value(bounds.beier_sibeyn_path_bound, i) == 5
        return
    assert value(bounds.beier_sibeyn_mesh_bound, i) == a + b - 2
    up = a + b if a % 2 and b % 2 else a + b - 1
    assert value(bounds.beier_sibeyn_mesh_upper_bound, i) == up
    lemma3 = bounds.beier_sibeyn_mesh_lemma3_upper_bound(i)
    assert (lemma3 is None) == (a % 2 == 0 or b % 2 == 0 or min(a, b) < 3)
    if lemma3 is not None:
        assert lemma3.value >= up
    lemma4 = value(bounds.beier_sibeyn_mesh_lemma4_upper_bound, i)
    assert lemma4 == (a + b + 2 if lemma3 is not None and max(a, b) >= 5 else None)


@pytest.mark.parametrize(("a", "b"), [(a, b) for a in range(3, 9) for b in range(3, 9)])
def test_beier_sibeyn_tori(a: int, b: int) -> None:
    i = inst(f"torus:{a}x{b}", "telephone")
    assert value(bounds.beier_sibeyn_torus_bound, i) == a // 2 + b // 2
    assert bounds.beier_sibeyn_mesh_bound(i) is None
    if a % 2 == 0 and b % 2 == 0:
        up = (a + b) // 2
    elif a % 2 and b % 2:
        up = (a + b) // 2 + 4
    else:
        up = (a + b + 1) // 2 + 2
    assert value(bounds.beier_sibeyn_torus_upper_bound, i) == up
    assert value(bounds.distance_bound, i) == a // 2 + b // 2


def test_beier_sibeyn_lemma5_and_section2_families() -> None:
    assert value(bounds.beier_sibeyn_lemma5_upper_bound, inst("torus:4x6*ring:8", "telephone")) == 9
    assert value(bounds.beier_sibeyn_lemma5_upper_bound, inst("mesh:4x6*path:2", "telephone")) == 10
    assert bounds.beier_sibeyn_lemma5_upper_bound(inst("mesh:4x5", "telephone")) is None
    for k in range(1, 8):
        h = inst(f"hypercube:{k}", "telephone")
        assert value(bounds.beier_sibeyn_hypercube_bound, h) == k
        assert value(bounds.beier_sibeyn_hypercube_upper_bound, h) == k
        assert value(bounds.beier_sibeyn_lemma5_upper_bound, h) == (k if k >= 2 else None)
    for n in range(2, 40, 2):
        kn = inst(f"knodel:{n}", "telephone")
        assert value(bounds.beier_sibeyn_knodel_bound, kn) == math.ceil(math.log2(n))
        assert value(bounds.beier_sibeyn_knodel_upper_bound, kn) == math.ceil(math.log2(n))
    assert bounds.beier_sibeyn_knodel_upper_bound(inst("knodel:12,2", "telephone")) is None
    assert value(bounds.beier_sibeyn_knodel_bound, inst("knodel:12,2", "telephone")) == 4
    table5 = {5: 11, 6: 13, 7: 16}  # LB column of Table 5
    for k, lb in table5.items():
        assert value(bounds.beier_sibeyn_ccc_bound, inst(f"ccc:{k}", "telephone")) == lb
    assert bounds.beier_sibeyn_ccc_bound(inst("ccc:4", "telephone")) is None
    ubs = {"ccc": [10, 10, 15, 15], "butterfly": [10, 10, 15, 15], "debruijn": [11, 14, 17, 20]}
    for family, column in ubs.items():
        fn = getattr(bounds, f"beier_sibeyn_{family}_upper_bound")
        for k, ub in zip(range(3, 7), column, strict=True):
            if family != "debruijn" or k <= 6:
                assert value(fn, inst(f"{family}:{k}", "telephone")) == ub
    for k, (lb, ub) in {3: (5, 9), 4: (7, 13), 5: (9, 17)}.items():
        se = inst(f"shuffle-exchange:{k}", "telephone")
        assert value(bounds.beier_sibeyn_se_bound, se) == lb
        assert value(bounds.beier_sibeyn_se_upper_bound, se) == ub


def test_star_and_pancake_upper_bound_matches_the_quoted_values() -> None:
    # section 7: the construction of their [3] gives 3, 6, 9, 13, 17, 21 for k = 3..8
    assert [beier_sibeyn_upper._star_pancake_value(k) for k in range(3, 9)] == [3, 6, 9, 13, 17, 21]
    for k in (3, 4, 5):
        for family in ("star-graph", "pancake"):
            b = bounds.beier_sibeyn_star_pancake_upper_bound(inst(f"{family}:{k}", "telephone"))
            assert b is not None and b.value == [3, 6, 9][k - 3]


def test_beier_sibeyn_linear_cost() -> None:
    b = bounds.beier_sibeyn_linear_cost_bound(inst("ring:8", "telephone:tau=0.25,h=2"))
    assert b is not None and b.kind == "lower-cost"
    assert (b.value, b.cost) == (3, 3 + 0.25 * 2 * 7)
    assert b.to_json()["cost"] == 6.5
    assert bounds.beier_sibeyn_linear_cost_bound(inst("ring:8", "telephone")) is None
    # never taken as a bound on rounds
    i = inst("ring:9", "telephone:tau=100")
    assert best_lower_bound(i).kind == "lower"


@pytest.mark.parametrize("n", range(3, 14))
def test_gonzalez(n: int) -> None:
    p = inst(f"path:{n}", "multicast")
    r = (n - 1 + 1) // 2
    assert value(bounds.gonzalez_receive_bound, p) == n - 1
    assert value(bounds.gonzalez_odd_path_bound, p) == (n + r - 1 if n % 2 else None)
    assert value(bounds.gonzalez_n_plus_r_upper_bound, p) == n + n // 2
    assert value(bounds.gonzalez_simple_upper_bound, p) == 2 * n + n // 2 - 3
    assert value(bounds.gonzalez_updown_upper_bound, p) == n + 3 * (n // 2) - 2
    assert bounds.gonzalez_hamiltonian_upper_bound(p) is None
    ring = inst(f"ring:{n}", "multicast")
    assert value(bounds.gonzalez_hamiltonian_upper_bound, ring) == n - 1
    assert best_lower_bound(ring).value == n - 1
    b = inst(f"path:{n}", "multicast", "broadcast:0")
    assert value(bounds.gonzalez_broadcast_upper_bound, b) == n - 1


@pytest.mark.parametrize("leaves", [2, 4, 8, 16, 32])
def test_fat_tree_table1_and_formulas(leaves: int) -> None:
    L = leaves.bit_length() - 1
    for caps in ("", ":exp"):
        spec = f"fattree:{leaves}{caps}"
        c = [1 << (i - 1) for i in range(1, L + 1)] if caps else [1] * L
        te = inst(spec, "all-port", "total-exchange")
        assert value(bounds.dd_broadcast_bound, inst(spec, "all-port", "broadcast:0")) == 2 * L
        small = leaves < 4
        sg = inst(spec, "all-port", "scatter:1")
        assert value(bounds.dd_scatter_gather_bound, sg) == (None if small else leaves + 1)
        assert value(bounds.dd_scatter_gather_upper_bound, sg) == (None if small else leaves + 1)
        gossip = inst(spec, "all-port")
        assert value(bounds.dd_gossip_bound, gossip) == (None if small else leaves + 1)
        assert value(bounds.dd_gossip_no_queue_upper_bound, gossip) == leaves + 2 * L - 2
        cut = math.ceil(leaves * leaves / (4 * c[-1]))
        assert value(bounds.dd_total_exchange_bound, te) == max(cut, 0 if small else leaves + 1)
        phases = sum(math.ceil(4 ** (i - 1) / c[i - 1]) for i in range(1, L + 1))
        assert value(bounds.dd_total_exchange_serial_upper_bound, te) == phases + L * L
        pipelined = value(bounds.dd_total_exchange_pipelined_upper_bound, te)
        assert pipelined == phases + 2 * L - 1
        if caps:
            assert pipelined == leaves + 2 * L - 2  # (3)
        else:
            assert pipelined == (leaves * leaves - 1) // 3 + 2 * L - 1
        lemma3 = value(bounds.dd_lemma3_bound, te)
        assert lemma3 is not None and leaves - 1 <= lemma3 <= pipelined


def test_fat_tree_lemma3_closed_form() -> None:
    # the closed form n + 2 log n - 2 log log n - 2 is an integer when log n is a power of 2
    for n in (16, 256, 65536):
        L = n.bit_length() - 1
        closed = n + 2 * L - 2 * (L.bit_length() - 1) - 2
        assert fat_trees._lemma3_value(n, L) >= closed


def test_fat_tree_hypotheses() -> None:
    # the n + 1 arguments need leaf links of capacity 1
    assert bounds.dd_gossip_bound(inst("fattree:8", "all-port:c=2")) is None
    assert bounds.dd_gossip_bound(inst("fattree:8:2,2,4", "all-port")) is None
    assert (
        value(bounds.dd_total_exchange_bound, inst("fattree:8", "all-port:c=2", "total-exchange"))
        == 8
    )
    assert bounds.dd_lemma3_bound(inst("fattree:8", "all-port:c=2", "total-exchange")) is None
    # not a fat tree, or not all-port
    assert bounds.dd_gossip_bound(inst("fattree:8", "telephone")) is None
    assert bounds.dd_gossip_bound(inst("ring:8", "all-port")) is None
    assert bounds.dd_gossip_upper_bound(inst("fattree:8", "all-port:calls=2")) is None
    assert bounds.dd_gossip_bound(inst("fattree:8", "all-port:calls=2")) is not None


@pytest.mark.parametrize("n", range(2, 30))
def test_bermond(n: int) -> None:
    for p in (1, 2, 3, 4, 9):
        i = inst(f"complete:{n}", f"sequential:p={p}")
        low1 = math.ceil(n * n / (2 * p) + (p - 2) * n / (2 * p))
        assert value(bounds.bermond_1_bound, i) == low1
        if p == 1:
            assert value(bounds.bermond_p1_bound, i) == n * (n - 1) // 2
            assert value(bounds.bermond_p1_upper_bound, i) == n * (n - 1) // 2
        t21 = bounds.bermond_theorem21_bound(i)
        t31 = bounds.bermond_theorem31_upper_bound(i)
        if p >= 2 and n >= p + 2:
            k = next(k for k in range(2, p + 2) if (n - k) % p == 0)
            exact = n * n / (2 * p) + (1 - k / (2 * p) - 1 / (2 * (k - 1))) * n
            assert t21 is not None and t21.value == math.ceil(exact - 1e-9)
            assert t31 is not None and t31.value == math.floor(exact + p + 1e-9)
            assert t21.value <= t31.value < t21.value + p + 1
            if k in (2, p + 1):  # "bounds (1) and (2) coincide for k = 2 and k = p + 1"
                assert t21.value == low1
        else:
            assert t21 is None and t31 is None
        two = value(bounds.bermond_2n4_upper_bound, i)
        assert two == ({2: 1, 3: 3}.get(n, 2 * n - 4) if p >= n - 1 else None)
    assert value(bounds.bermond_2n4_bound, inst(f"complete:{n}", "sequential")) == {
        2: 1,
        3: 3,
    }.get(n, 2 * n - 4)


def test_bermond_examples() -> None:
    # Example 3.1 (p = 4, n = 16): the protocol makes 15 + 4 + 16 + 5 = 40 calls
    i = inst("complete:16", "sequential:p=4")
    assert value(bounds.bermond_theorem21_bound, i) == 38
    assert value(bounds.bermond_theorem31_upper_bound, i) == 41
    # Example 3.2 (p = 9, n = 22): 21 + 9 + 0 + 18 = 48 calls
    i = inst("complete:22", "sequential:p=9")
    assert value(bounds.bermond_theorem21_bound, i) == 41
    assert value(bounds.bermond_theorem31_upper_bound, i) == 49


# --------------------------------------------------------------------------------------------
# Hypotheses
# --------------------------------------------------------------------------------------------


def test_model_and_problem_hypotheses() -> None:
    ring = "ring:7"
    # Dimakopoulos: p = 1 only, gossip only, single-port / half-duplex only
    assert bounds.dimakopoulos_half_duplex_bound(inst(ring, "half-duplex")) is None
    assert bounds.dimakopoulos_half_duplex_bound(inst(ring, "half-duplex:p=2")) is None
    assert bounds.dimakopoulos_half_duplex_bound(inst(ring, "single-port:p=1")) is None
    assert bounds.dimakopoulos_receive_bound(inst(ring, "telephone:p=1")) is None
    assert bounds.dimakopoulos_receive_bound(inst(ring, "single-port:p=1", "broadcast:0")) is None
    # single-port is not a telephone model: the odd-n term does not hold there
    assert bounds.telephone_gossip_odd_bound(inst(ring, "single-port:p=1")) is None
    assert bounds.telephone_gossip_odd_bound(inst(ring, "multicast")) is None
    # Beier-Sibeyn upper bounds need unbounded packets and unlimited calls
    assert bounds.beier_sibeyn_cycle_upper_bound(inst(ring, "telephone:p=3")) is None
    assert bounds.beier_sibeyn_cycle_upper_bound(inst(ring, "telephone:calls=2")) is None
    assert bounds.beier_sibeyn_cycle_upper_bound(inst(ring, "half-duplex")) is None
    # ... and then hold for every problem (a gossip schedule sending everything)
    assert value(bounds.beier_sibeyn_cycle_upper_bound, inst(ring, "telephone", "scatter:2")) == 5
    # lower bounds of the telephone model hold under restrictions
    assert value(bounds.beier_sibeyn_path_bound, inst("path:5", "telephone:p=1,calls=1")) == 5
    assert value(bounds.beier_sibeyn_path_bound, inst("path:5", "half-duplex")) == 5
    assert bounds.beier_sibeyn_path_bound(inst("path:5", "telephone", "broadcast:0")) is None
    # Gonzalez: multicast, p = 1 for the lower bounds, gossip
    assert bounds.gonzalez_odd_path_bound(inst("path:5", "multicast:p=2")) is None
    assert bounds.gonzalez_odd_path_bound(inst("path:5", "single-port:p=1")) is None
    assert bounds.gonzalez_n_plus_r_upper_bound(inst("path:5", "multicast:p=2")) is not None
    assert bounds.gonzalez_n_plus_r_upper_bound(inst("path:5", "multicast", "broadcast:0")) is None
    assert bounds.gonzalez_n_plus_r_upper_bound(inst("path:2", "multicast")) is None
    # Bermond: sequential telephone only
    assert bounds.bermond_1_bound(inst("complete:6", "telephone:p=2")) is None
    assert bounds.bermond_1_bound(inst("complete:6", "half-duplex:p=2,calls=1")) is None
    assert bounds.bermond_2n4_upper_bound(inst("ring:6", "sequential")) is None
    assert bounds.bermond_2n4_upper_bound(inst("complete:6", "sequential:p=4")) is None
    assert value(bounds.bermond_2n4_upper_bound, inst("complete:6", "sequential:p=5")) == 8


def test_family_bounds_need_the_family_graph() -> None:
    g = from_spec("hypercube:3")
    g.remove_edge(0, 1)
    g.add_edge(0, 3, capacity=1)
    i = make_instance(g, parse_model("telephone"), parse_problem("gossip"))
    assert bounds.beier_sibeyn_hypercube_upper_bound(i) is None
    assert bounds.beier_sibeyn_hypercube_bound(i) is None
    # a product built by hand is recognised by its spec
    built = cartesian_product(from_spec("ring:4"), from_spec("ring:6"))
    j = make_instance(built, parse_model("telephone"), parse_problem("gossip"))
    assert value(bounds.beier_sibeyn_torus_upper_bound, j) == 5
    # a graph with a spec that names no family
    k = make_instance(
        plain_graph(nx.petersen_graph()), parse_model("telephone"), parse_problem("gossip")
    )
    generic = {
        "distance",
        "doubling",
        "telephone-gossip",
        "packet-layers",
        "packet-ranks",
        "packet-walks",
    }
    assert all(b.name in generic for b in all_bounds(k))


def test_routers_only_for_fat_tree_bounds() -> None:
    i = inst("fattree:8", "all-port")
    names = {b.name for b in all_bounds(i)}
    assert names == {
        "distance",
        "cut",
        "cut-cover",
        "late-entry",
        "dd-gossip",
        "dd-gossip-upper",
        "dd-gossip-no-queue-upper",
    }


# --------------------------------------------------------------------------------------------
# The registry and the queries
# --------------------------------------------------------------------------------------------

SAMPLE = [
    ("ring:7", "telephone", "gossip"),
    ("ring:7", "telephone:tau=1", "gossip"),
    ("ring:6", "half-duplex:p=1", "gossip"),
    ("torus:4x4", "single-port:p=1", "gossip"),
    ("torus:4x6", "telephone", "gossip"),
    ("mesh:3x5", "telephone", "gossip"),
    ("hypercube:3", "telephone", "gossip"),
    ("path:5", "multicast", "gossip"),
    ("path:5", "multicast", "broadcast:0"),
    ("fattree:8:exp", "all-port", "total-exchange"),
    ("fattree:8", "all-port", "scatter:0"),
    ("complete:7", "sequential:p=2", "gossip"),
    ("complete:6", "sequential:p=1", "gossip"),
    ("complete:6", "sequential", "gossip"),
    ("knodel:8", "telephone", "gossip"),
    ("ccc:5", "telephone", "gossip"),
]


def test_names_are_unique_and_kinds_consistent() -> None:
    seen: dict[str, str] = {}
    for spec in SAMPLE:
        for b in all_bounds(inst(*spec)):
            assert isinstance(b.value, int) and b.value >= 0
            assert b.kind in ("lower", "upper", "lower-cost")
            assert b.name.endswith("-upper") == (b.kind == "upper"), b
            assert seen.setdefault(b.name, b.kind) == b.kind
            assert b.source
    names = [fn.__name__ for fn in ALL_FUNCTIONS]
    assert len(names) == len(set(names))


@pytest.mark.parametrize("spec", SAMPLE)
def test_queries(spec: tuple[str, str, str]) -> None:
    i = inst(*spec)
    found = all_bounds(i)
    low = best_lower_bound(i)
    assert low.kind == "lower"
    assert low.value == max(b.value for b in found if b.kind == "lower")
    up = best_upper_bound(i)
    ups = [b.value for b in found if b.kind == "upper"]
    assert (up is None) == (not ups)
    if up is not None:
        assert up.value == min(ups) and low.value <= up.value
    for b in found:
        assert bound_by_name(i, b.name) == b
    assert bound_by_name(i, "no-such-bound") is None


def test_bound_json() -> None:
    b = Bound("x-upper", "upper", 3, "somewhere")
    assert b.to_json() == {"name": "x-upper", "kind": "upper", "value": 3, "source": "somewhere"}
