"""Dimakopoulos: gossip through a Hamiltonian cycle, and the product composition (Fig. 6)."""

from __future__ import annotations

import pytest

from gossipcert import graphs
from gossipcert.closed_forms.hamiltonian import hamiltonian_cycle
from gossipcert.constructions.hamiltonian import hamiltonian_gossip, path_pipeline
from gossipcert.constructions.product_factors import product_factors
from gossipcert.constructions.products import product
from gossipcert.constructions.rings import (
    ring_full_duplex,
    ring_half_duplex,
    ring_multicast_clockwise,
)
from gossipcert.errors import NotApplicableError
from gossipcert.instance import Instance, make_instance, parse_instance, parse_problem
from gossipcert.schedule import Schedule, Transmission
from gossipcert.simulate import simulate

STRUCTURED = [
    "ring:5",
    "complete:6",
    "hypercube:4",
    "torus:3x3",
    "torus:3x5",
    "torus:4x5",
    "mesh:2x3",
    "mesh:3x4",
    "mesh:4x3",
    "mesh:4x4",
    "ring:3*path:2",
    "path:3*path:3*path:2",
    "ring:3*ring:5*ring:3",
    "hypercube:2*ring:3",
]
BY_SAT = ["ccc:3", "ccc:4", "butterfly:3", "debruijn:4", "star-graph:4", "pancake:4", "knodel:16"]
NOT_HAMILTONIAN = ["petersen", "mesh:3x3", "mesh:1x5", "path:4", "star:5", "shuffle-exchange:3"]


def _is_cycle(spec: str, cycle: list[int]) -> bool:
    g = graphs.from_spec(spec)
    n = g.number_of_nodes()
    return sorted(cycle) == list(range(n)) and all(
        g.has_edge(cycle[i], cycle[(i + 1) % n]) for i in range(n)
    )


# ----------------------------------------------------------------------------- the cycle


@pytest.mark.parametrize("spec", STRUCTURED + BY_SAT)
def test_hamiltonian_cycle_is_a_cycle(spec: str) -> None:
    assert _is_cycle(spec, hamiltonian_cycle(graphs.from_spec(spec)))


@pytest.mark.parametrize("spec", NOT_HAMILTONIAN)
def test_no_hamiltonian_cycle(spec: str) -> None:
    with pytest.raises(NotApplicableError):
        hamiltonian_cycle(graphs.from_spec(spec))


def test_sat_limits_are_reported_as_not_applicable() -> None:
    with pytest.raises(NotApplicableError, match="SAT search limit"):
        hamiltonian_cycle(graphs.from_spec("ccc:3"), max_sat_nodes=10)


def test_structured_cycles_need_no_search() -> None:
    # the Gray code and the woven torus cycle come from the structure, however large
    assert _is_cycle("hypercube:10", hamiltonian_cycle(graphs.hypercube(10), max_sat_nodes=0))
    assert _is_cycle("torus:31x33", hamiltonian_cycle(graphs.torus(31, 33), max_sat_nodes=0))


# ----------------------------------------------------------------------------- gossip


@pytest.mark.parametrize("spec", ["ring:6", "ring:7", "torus:3x5", "hypercube:4", "ccc:3"])
def test_hamiltonian_gossip_meets_the_lower_bounds(spec: str) -> None:
    for model in ("single-port:p=1", "multicast", "half-duplex:p=1"):
        inst = parse_instance(spec, model, "gossip")
        rep = simulate(inst, hamiltonian_gossip(inst))
        n = inst.n
        assert rep.ok, rep.errors[:3]
        if model == "half-duplex:p=1":
            assert rep.rounds == (2 * (n - 1) if n % 2 == 0 else 2 * n)  # Eqs. 2 and 3
        else:
            assert rep.rounds == n - 1  # Eq. 1


@pytest.mark.parametrize("spec", [*STRUCTURED, "star-graph:4", "pancake:4", "butterfly:3"])
def test_hamiltonian_gossip_on_many_graphs(spec: str) -> None:
    for model in ("single-port:p=1", "half-duplex:p=1"):
        inst = parse_instance(spec, model, "gossip")
        rep = simulate(inst, hamiltonian_gossip(inst))
        n = inst.n
        assert rep.ok, rep.errors[:3]
        expected = n - 1 if model.startswith("single") else 2 * n - 2 * (n % 2 == 0)
        assert rep.rounds == rep.length == expected


def test_hamiltonian_gossip_checks_a_given_cycle() -> None:
    inst = parse_instance("mesh:2x3", "single-port:p=1", "gossip")
    assert simulate(inst, hamiltonian_gossip(inst, [0, 1, 2, 5, 4, 3])).rounds == 5
    with pytest.raises(NotApplicableError):
        hamiltonian_gossip(inst, [0, 1, 2, 3, 4, 5])


@pytest.mark.parametrize(
    ("spec", "model", "problem"),
    [
        ("ring:5", "telephone", "gossip"),
        ("ring:5", "all-port", "gossip"),
        ("ring:5", "single-port:p=1,calls=1", "gossip"),
        ("ring:5", "single-port:p=1", "broadcast:0"),
        ("petersen", "single-port:p=1", "gossip"),
    ],
)
def test_hamiltonian_gossip_not_applicable(spec: str, model: str, problem: str) -> None:
    with pytest.raises(NotApplicableError):
        hamiltonian_gossip(parse_instance(spec, model, problem))


@pytest.mark.parametrize("n", range(1, 9))
def test_path_pipeline(n: int) -> None:
    for model, factor in (("single-port:p=1", 2), ("multicast", 2), ("half-duplex:p=1", 4)):
        inst = parse_instance(f"path:{n}", model, "gossip")
        rep = simulate(inst, path_pipeline(inst))
        assert rep.ok, rep.errors[:3]
        assert rep.rounds == factor * (n - 1)


# ----------------------------------------------------------------------------- products


def _factor_lengths(inst: Instance, swap: bool = False) -> tuple[int, int, int, int]:
    """(T_A, T_B, n1, n2) with the factors' own algorithms, computed independently."""
    a, b = product_factors(inst.graph)
    lengths = []
    for g in (a, b):
        fi = make_instance(g, inst.model, parse_problem("gossip"))
        spec = g.graph["spec"]
        if (
            "*" in spec
            or spec.startswith(("torus", "mesh"))
            or (spec.startswith("hypercube:") and fi.n > 2)
        ):
            lengths.append(len(product(fi)))
        elif spec.startswith("path:") and fi.n >= 3:
            lengths.append(len(path_pipeline(fi)))
        else:
            lengths.append(len(hamiltonian_gossip(fi)))
    return lengths[0], lengths[1], a.number_of_nodes(), b.number_of_nodes()


PRODUCTS = [
    "ring:4*ring:5",
    "ring:4*ring:3",
    "ring:3*ring:4",
    "ring:3*ring:3",
    "torus:4x6",
    "mesh:3x4",
    "mesh:2x2",
    "path:3*ring:3",
    "complete:4*ring:3",
    "ring:3*path:2*path:2",
    "ring:3*ring:4*ring:5",
    "hypercube:4",
]
MODELS = ["single-port:p=1", "half-duplex:p=1", "multicast"]


@pytest.mark.parametrize("spec", PRODUCTS)
@pytest.mark.parametrize("model", MODELS)
def test_product_takes_exactly_T_B_plus_n2_T_A(spec: str, model: str) -> None:
    inst = parse_instance(spec, model, "gossip")
    t_a, t_b, n1, n2 = _factor_lengths(inst)
    for swap, expected in ((False, t_b + n2 * t_a), (True, t_a + n1 * t_b)):
        sched = product(inst, swap=swap)
        rep = simulate(inst, sched)
        assert rep.ok, rep.errors[:3]
        assert len(sched) == rep.rounds == expected  # Theorem 2


@pytest.mark.parametrize("spec", ["ring:4*ring:5", "ring:3*ring:3", "ring:3*ring:4*ring:5"])
def test_theorem_3_full_duplex_stays_optimal(spec: str) -> None:
    inst = parse_instance(spec, "single-port:p=1", "gossip")
    assert simulate(inst, product(inst)).rounds == inst.n - 1


@pytest.mark.parametrize("spec", ["ring:4*ring:6", "torus:4x4", "hypercube:4", "complete:4*ring:6"])
def test_theorem_4_half_duplex_even_even_stays_optimal(spec: str) -> None:
    inst = parse_instance(spec, "half-duplex:p=1", "gossip")
    assert simulate(inst, product(inst)).rounds == 2 * (inst.n - 1)


def test_theorem_5_half_duplex_one_odd_dimension() -> None:
    # n1 even, n2 odd: T = 2n, two steps above the bound 2(n - 1)
    inst = parse_instance("ring:4*ring:5", "half-duplex:p=1", "gossip")
    assert simulate(inst, product(inst)).rounds == 2 * inst.n
    # n1 odd, n2 even: the proof renames the dimensions (swap); in the given order
    # T = T_B + n2 T_A = 2(4 - 1) + 4 * 2 * 3 = 2n + 6
    inst = parse_instance("ring:3*ring:4", "half-duplex:p=1", "gossip")
    assert simulate(inst, product(inst, swap=True)).rounds == 2 * inst.n
    assert simulate(inst, product(inst)).rounds == 2 * 4 - 2 + 4 * 2 * 3 == 2 * inst.n + 6


def test_product_with_a_given_factor_algorithm() -> None:
    inst = parse_instance("torus:3x4", "single-port:p=1", "gossip")
    sched = product(inst, hamiltonian_gossip)
    assert simulate(inst, sched).rounds == len(sched) == 3 + 4 * 2

    def named_nothing(fi: Instance) -> Schedule:
        return Schedule(((Transmission(0, (1,), None),),))

    with pytest.raises(NotApplicableError):
        product(inst, named_nothing)


@pytest.mark.parametrize(
    ("spec", "model"),
    [
        ("petersen", "single-port:p=1"),
        ("ring:5", "single-port:p=1"),
        ("torus:3x4", "telephone"),
        ("complete:4*petersen", "single-port:p=1"),
    ],
)
def test_product_not_applicable(spec: str, model: str) -> None:
    with pytest.raises(NotApplicableError):
        product(parse_instance(spec, model, "gossip"))


def test_product_factors_of_grids() -> None:
    for spec, (fa, fb) in {
        "torus:3x4": ("ring:3", "ring:4"),
        "mesh:2x5": ("path:2", "path:5"),
        "ring:3*path:2*ring:4": ("ring:3*path:2", "ring:4"),
        "hypercube:3": ("hypercube:2", "path:2"),
    }.items():
        a, b = product_factors(graphs.from_spec(spec))
        assert (a.graph["spec"], b.graph["spec"]) == (fa, fb)


@pytest.mark.parametrize(
    ("build", "problem"),
    [
        (ring_full_duplex, "broadcast:0"),
        (ring_half_duplex, "total-exchange"),
        (ring_multicast_clockwise, "gossip:chunks=2"),
        (hamiltonian_gossip, "gossip:chunks=2"),
    ],
)
def test_ring_schedules_need_one_packet_per_node(build, problem: str) -> None:
    # another problem ended in "no packet named 0 in this instance"
    model = "multicast" if build is ring_multicast_clockwise else "single-port"
    with pytest.raises(NotApplicableError, match="solves gossip with one packet per node"):
        build(parse_instance("ring:6", model, problem))
