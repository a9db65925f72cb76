"""The fat-tree algorithms of Dimakopoulos and Dimopoulos, checked by the verifier.

Every schedule is replayed by :func:`gossipcert.simulate.simulate` (arc capacities included)
on binary fat trees with 2 to 64 leaves, constant (CBFT) and exponential (EBFT) capacities,
and its length is compared with the step count the paper gives for it.
"""

from __future__ import annotations

import math

import pytest

from gossipcert.constructions.fat_tree_shape import fat_tree_shape
from gossipcert.constructions.fat_tree_total_exchange import (
    lemma3_bound,
    total_exchange,
    total_exchange_by_scatterings,
    total_exchange_lower_bound,
    total_exchange_steps,
)
from gossipcert.constructions.fat_trees import (
    farthest_first,
    farthest_first_steps,
    flooding,
    flooding_broadcast_steps,
    flooding_gossip_steps,
)
from gossipcert.errors import NotApplicableError
from gossipcert.instance import Instance, parse_instance
from gossipcert.schedule import Schedule
from gossipcert.simulate import simulate

SIZES = [2, 4, 8, 16, 32, 64]
PATTERNS = ["", ":exp"]


def tree(n: int, pattern: str, problem: str, model: str = "all-port") -> Instance:
    return parse_instance(f"fattree:{n}{pattern}", model, problem)


def verified_length(instance: Instance, schedule: Schedule) -> int:
    """The verified length of a schedule that must solve the instance, ending in its last round."""
    report = simulate(instance, schedule)
    assert report.ok, report.errors[:3] or report.unmet[:3]
    assert report.rounds == report.length
    return report.length


def sources(n: int) -> list[int]:
    return sorted({0, n - 1, n // 2, n // 2 - 1 if n > 2 else 0, 5 % n})


# ----------------------------------------------------------------------------- broadcast


@pytest.mark.parametrize("pattern", PATTERNS)
@pytest.mark.parametrize("n", SIZES)
def test_flooding_broadcast_takes_the_diameter(n: int, pattern: str) -> None:
    # section 2.1: broadcasting needs D = 2 log n steps and flooding achieves it
    for s in sources(n):
        inst = tree(n, pattern, f"broadcast:{s}")
        assert verified_length(inst, flooding(inst)) == 2 * int(math.log2(n))
    assert flooding_broadcast_steps(n) == 2 * int(math.log2(n))


# ----------------------------------------------------------------------------- scatter, gather


@pytest.mark.parametrize("pattern", PATTERNS)
@pytest.mark.parametrize("n", SIZES)
def test_farthest_first_scatter_takes_n_plus_1(n: int, pattern: str) -> None:
    # Theorem 1: T = max_i (n - 2^(i-1) + 2i - 1) = n + 1 for n >= 4, Table 1's lower bound.
    # For n = 2 the maximum is T_1 = 2 (the distance between the two leaves): Table 1's
    # n + 1 (argued with "nodes 2 or 3") does not apply to the 2-leaf tree.
    expected = n + 1 if n >= 4 else 2
    assert farthest_first_steps(n) == expected
    for s in sources(n):
        inst = tree(n, pattern, f"scatter:{s}")
        assert verified_length(inst, farthest_first(inst)) == expected


@pytest.mark.parametrize("pattern", PATTERNS)
@pytest.mark.parametrize("n", SIZES)
def test_gather_by_reversed_paths_takes_n_plus_1(n: int, pattern: str) -> None:
    expected = n + 1 if n >= 4 else 2
    for r in sources(n):
        inst = tree(n, pattern, f"gather:{r}")
        schedule = farthest_first(inst)
        assert verified_length(inst, schedule) == expected
        # the two holes of the lower-bound argument (section 2.1) come first: the root
        # receives one packet in each of the steps 3 .. n + 1
        received = [
            t
            for t, rnd in enumerate(schedule.rounds, start=1)
            if any(r in tr.receivers for tr in rnd)
        ]
        assert received == list(range(expected - n + 2, expected + 1))


def test_gather_is_the_scatter_run_backwards() -> None:
    scatter = tree(16, "", "scatter:3")
    gather = tree(16, "", "gather:3")
    forward, backward = farthest_first(scatter), farthest_first(gather)
    total = len(forward)
    arcs = {
        (t, tr.sender, tr.receivers[0]) for t, rnd in enumerate(forward.rounds, 1) for tr in rnd
    }
    reversed_arcs = {
        (total + 1 - t, tr.receivers[0], tr.sender)
        for t, rnd in enumerate(backward.rounds, 1)
        for tr in rnd
    }
    assert arcs == reversed_arcs


def test_scatter_never_queues() -> None:
    # farthest-first dispatches one message per step and no message waits at a router:
    # the message for leaf x crosses its j-th arc in step dispatch + j
    inst = tree(32, "", "scatter:0")
    schedule = farthest_first(inst)
    seen: dict[int, list[int]] = {}
    for t, rnd in enumerate(schedule.rounds, 1):
        for tr in rnd:
            assert tr.packets is not None and tr.packets.bit_count() == 1
            seen.setdefault(tr.packets, []).append(t)
    for steps in seen.values():
        assert steps == list(range(steps[0], steps[0] + len(steps)))


# ----------------------------------------------------------------------------- gossip


@pytest.mark.parametrize("pattern", PATTERNS)
@pytest.mark.parametrize("n", SIZES)
def test_flooding_gossip_takes_n_plus_1(n: int, pattern: str) -> None:
    # Theorem 2 (n >= 4, proved for the CBFT; capacities do not help, section 2.1):
    # n + 1 steps, the lower bound of Table 1. n = 2: two steps through the root.
    inst = tree(n, pattern, "gossip")
    assert verified_length(inst, flooding(inst)) == flooding_gossip_steps(n)
    assert flooding_gossip_steps(n) == (n + 1 if n >= 4 else 2)


def test_flooding_needs_queues() -> None:
    # section 4.1: the flooding algorithm queues messages at the routers; in a CBFT some
    # router forwards a packet later than the step after it received it
    inst = tree(16, "", "gossip")
    schedule = flooding(inst)
    first_seen: dict[tuple[int, int], int] = {}
    late = False
    for t, rnd in enumerate(schedule.rounds, 1):
        for tr in rnd:
            assert tr.packets is not None
            for p in range(inst.n_packets):
                if tr.packets >> p & 1:
                    if (tr.sender, p) in first_seen and first_seen[(tr.sender, p)] < t - 1:
                        late = True
                    first_seen.setdefault((tr.receivers[0], p), t)
    assert late


# ----------------------------------------------------------------------------- total exchange


def cbft_closed_form(n: int) -> int:
    # T_CBFT = (n^2 - 1)/3 + 2 log n - 1
    return (n * n - 1) // 3 + 2 * int(math.log2(n)) - 1


def ebft_closed_form(n: int) -> int:
    # equation (3): T_EBFT = n + 2 log n - 2
    return n + 2 * int(math.log2(n)) - 2


@pytest.mark.parametrize("n", SIZES)
def test_total_exchange_cbft(n: int) -> None:
    levels = int(math.log2(n))
    inst = tree(n, "", "total-exchange")
    serial = verified_length(inst, total_exchange(inst, pipelined=False))
    pipelined = verified_length(inst, total_exchange(inst))
    # formula (1): sum_i ceil(4^(i-1)/c_i) + (log n)^2, c_i = 1
    assert serial == total_exchange_steps([1] * levels, pipelined=False)
    assert serial == (n * n - 1) // 3 + levels * levels
    # formula (2), and its CBFT closed form
    assert pipelined == total_exchange_steps([1] * levels) == cbft_closed_form(n)
    # pipelining saves sum_{i=0}^{log n - 2} (2 h_i - 3) = (log n)^2 - 2 log n + 1 steps
    assert serial - pipelined == levels * levels - 2 * levels + 1
    # Table 1: at least max{n + 1, n^2 / 4 c_{log n}} (n + 1 needs n >= 4, as above)
    assert pipelined >= total_exchange_lower_bound(n, 1) or n == 2


@pytest.mark.parametrize("n", SIZES)
def test_total_exchange_ebft(n: int) -> None:
    levels = int(math.log2(n))
    caps = [2 ** (i - 1) for i in range(1, levels + 1)]
    inst = tree(n, ":exp", "total-exchange")
    assert fat_tree_shape(inst).capacities == tuple(caps)
    serial = verified_length(inst, total_exchange(inst, pipelined=False))
    pipelined = verified_length(inst, total_exchange(inst))
    assert serial == total_exchange_steps(caps, pipelined=False) == n - 1 + levels * levels
    assert pipelined == total_exchange_steps(caps) == ebft_closed_form(n)
    # Lemma 3: any total exchange in the EBFT needs n + 2 log n - 2 log log n - 2 steps,
    # so the pipelined algorithm is within 2 log log n of optimal
    assert pipelined >= lemma3_bound(n)
    assert pipelined - lemma3_bound(n) == pytest.approx(2 * math.log2(levels))
    assert pipelined >= total_exchange_lower_bound(n, caps[-1]) or n == 2
    # the CBFT form is valid on the EBFT as well, and slower
    assert verified_length(inst, total_exchange(inst, variant="cbft")) == cbft_closed_form(n)


def test_total_exchange_formulas_for_large_trees() -> None:
    # formula (2) reduces to the closed forms for every size, not only those simulated
    for levels in range(1, 13):
        n = 2**levels
        assert total_exchange_steps([1] * levels) == cbft_closed_form(n)
        caps = [2 ** (i - 1) for i in range(1, levels + 1)]
        assert total_exchange_steps(caps) == ebft_closed_form(n)
        assert total_exchange_steps(caps, pipelined=False) == n - 1 + levels * levels
    # log log n integral: the gap to Lemma 3 is exactly 2 log log n
    assert [ebft_closed_form(n) - lemma3_bound(n) for n in (4, 16, 256, 65536)] == [2, 4, 6, 8]


def test_total_exchange_ebft_phases_use_full_capacity() -> None:
    # the EBFT phases load the branches below the phase's root to their capacity: on the
    # CBFT the same schedule is over capacity (and the EBFT variant is refused)
    thin, fat = tree(8, "", "total-exchange"), tree(8, ":exp", "total-exchange")
    schedule = total_exchange(fat)
    report = simulate(thin, schedule)
    assert not report.valid
    assert {e.rule for e in report.errors} == {"over-capacity"}
    with pytest.raises(NotApplicableError):
        total_exchange(thin, variant="ebft")


def test_total_exchange_other_capacities() -> None:
    # any capacities: "auto" takes the CBFT form unless c_l >= 2^(l-1) everywhere
    inst = parse_instance("fattree:8:1,2,2", "all-port", "total-exchange")
    assert verified_length(inst, total_exchange(inst)) == cbft_closed_form(8)
    wide = parse_instance("fattree:8", "all-port:c=4", "total-exchange")
    assert fat_tree_shape(wide).capacities == (4, 4, 4)
    assert verified_length(wide, total_exchange(wide)) == ebft_closed_form(8)


@pytest.mark.parametrize("pattern", PATTERNS)
@pytest.mark.parametrize("n", [2, 4, 8, 16, 32])
def test_total_exchange_by_consecutive_scatterings(n: int, pattern: str) -> None:
    # section 5: "the n scatterings will take n(n + 1) steps" -- true for n >= 4; with two
    # leaves a scatter takes 2 steps (see above), so the two scatterings take 4, not 6
    inst = tree(n, pattern, "total-exchange")
    length = verified_length(inst, total_exchange_by_scatterings(inst))
    assert length == n * farthest_first_steps(n)
    assert length == (n * (n + 1) if n >= 4 else 4)


# ----------------------------------------------------------------------------- refusals


@pytest.mark.parametrize(
    ("graph", "model", "problem", "algorithm"),
    [
        ("fattree:8", "telephone", "gossip", flooding),
        ("ring:8", "all-port", "gossip", flooding),
        ("fattree:8", "all-port", "scatter:0", flooding),
        ("fattree:8", "all-port", "gossip", farthest_first),
        ("fattree:8", "all-port", "gossip", total_exchange),
        ("hypercube:3", "all-port", "total-exchange", total_exchange),
    ],
)
def test_refuses_what_it_does_not_fit(graph: str, model: str, problem: str, algorithm) -> None:
    with pytest.raises(NotApplicableError):
        algorithm(parse_instance(graph, model, problem))
