"""The verifier: the papers' own schedules, and every rule of every model broken once."""

from __future__ import annotations

import pytest

from gossipcert import graphs
from gossipcert.constructions.rings import (
    hypercube_dimension_order,
    ring_full_duplex,
    ring_half_duplex,
    ring_multicast_clockwise,
)
from gossipcert.instance import make_instance, parse_instance, parse_model, parse_problem
from gossipcert.schedule import Schedule, Transmission
from gossipcert.simulate import simulate


def inst(graph: str, model: str, problem: str = "gossip"):
    return parse_instance(graph, model, problem)


def sched(*rounds: list[tuple[int, list[int], list[int] | None]]) -> Schedule:
    """Rounds of (sender, receivers, packets or None for all)."""
    return Schedule(
        tuple(
            tuple(
                Transmission(u, tuple(rs), None if ps is None else sum(1 << p for p in ps))
                for u, rs, ps in rnd
            )
            for rnd in rounds
        )
    )


# --------------------------------------------------------------- the papers' schedules


@pytest.mark.parametrize("n", range(3, 14))
def test_dimakopoulos_ring_full_duplex_takes_n_minus_1(n: int) -> None:
    i = inst(f"ring:{n}", "single-port:p=1")
    rep = simulate(i, ring_full_duplex(i))
    assert rep.ok, rep.errors[:3]
    assert rep.rounds == rep.length == n - 1


@pytest.mark.parametrize("n", range(4, 15, 2))
def test_dimakopoulos_ring_half_duplex_even_takes_2n_minus_2(n: int) -> None:
    i = inst(f"ring:{n}", "half-duplex:p=1")
    rep = simulate(i, ring_half_duplex(i))
    assert rep.ok, rep.errors[:3]
    assert rep.rounds == rep.length == 2 * (n - 1)


@pytest.mark.parametrize("n", range(3, 16, 2))
def test_dimakopoulos_ring_half_duplex_odd_takes_2n(n: int) -> None:
    i = inst(f"ring:{n}", "half-duplex:p=1")
    s = ring_half_duplex(i)
    rep = simulate(i, s)
    assert rep.ok, rep.errors[:3]
    assert rep.rounds == rep.length == 2 * n
    # the rotating pattern of Fig. 3: in step j position j-1 idles, (n-1)/2 nodes transmit
    for j, rnd in enumerate(s.rounds, start=1):
        assert (j - 1) % n not in {t.sender for t in rnd} | {r for t in rnd for r in t.receivers}
        assert len(rnd) <= (n - 1) // 2


@pytest.mark.parametrize("n", range(3, 13))
def test_gonzalez_clockwise_ring_under_multicast_takes_n_minus_1(n: int) -> None:
    i = inst(f"ring:{n}", "multicast")
    rep = simulate(i, ring_multicast_clockwise(i))
    assert rep.ok, rep.errors[:3]
    assert rep.rounds == n - 1


@pytest.mark.parametrize("k", range(1, 9))
def test_hypercube_dimension_order_gossip_takes_k(k: int) -> None:
    i = inst(f"hypercube:{k}", "telephone")
    rep = simulate(i, hypercube_dimension_order(i, k))
    assert rep.ok
    assert rep.rounds == k
    # after round d every node knows 2^d packets
    assert [s.learned for s in rep.per_round] == [(2**d) * 2**k for d in range(k)]


def test_odd_ring_rotation_is_single_port_but_not_telephone() -> None:
    """Design section 2: single-port p=1 rotates an odd cycle; telephone cannot."""
    i = inst("ring:5", "telephone:p=1")
    rep = simulate(i, ring_full_duplex(i))
    assert not rep.valid
    assert {e.rule for e in rep.errors} == {"two-calls"}


def test_incomplete_schedule_reports_unmet_demands() -> None:
    i = inst("ring:6", "single-port:p=1")
    full = ring_full_duplex(i)
    rep = simulate(i, Schedule(full.rounds[:-1]))
    assert rep.valid and not rep.complete
    assert rep.rounds is None
    # after n-2 steps each node lacks exactly the packet of its clockwise neighbour
    assert sorted(rep.unmet) == sorted((v, (v + 1) % 6) for v in range(6))


def test_completion_round_ignores_extra_rounds() -> None:
    i = inst("path:2", "telephone")
    rep = simulate(i, Schedule.from_calls([[(0, 1)], [(0, 1)], []]))
    assert rep.ok and rep.rounds == 1 and rep.length == 2


def test_linear_cost_steps_and_cost() -> None:
    # path 0-1-2, telephone, "all" each way: round 1 {0,1} sends 1 packet each way, round 2
    # {1,2}: node 1 sends 2, round 3 {0,1}: node 1 sends all 3
    i = inst("path:3", "telephone:tau=0.5,h=2")
    s = Schedule.from_calls([[(0, 1)], [(1, 2)], [(0, 1)]])
    rep = simulate(i, s)
    assert rep.ok and rep.rounds == 3
    assert [r.max_sent for r in rep.per_round] == [1, 2, 3]
    assert [r.packets_moved for r in rep.per_round] == [2, 3, 5]
    assert rep.steps == 6
    assert rep.cost == pytest.approx(3 + 0.5 * 2 * 6)


def test_broadcast_and_scatter_and_gather_completion() -> None:
    # star:4 = centre 0 with leaves 1,2,3
    b = inst("star:4", "multicast", "broadcast:0")
    assert simulate(b, sched([(0, [1, 2, 3], [0])])).rounds == 1
    sc = inst("star:4", "telephone", "scatter:0")
    assert sc.n_packets == 3
    rep = simulate(sc, sched([(0, [1], None)], [(0, [2], None)], [(0, [3], None)]))
    assert rep.rounds == 3
    g = inst("star:4", "all-port", "gather:0")
    assert simulate(g, sched([(1, [0], [0]), (2, [0], [1]), (3, [0], [2])])).rounds == 1
    te = inst("path:2", "telephone", "total-exchange")
    assert te.packet_names == ((0, 1), (1, 0))
    assert simulate(te, Schedule.from_calls([[(0, 1)]])).rounds == 1


# --------------------------------------------------------------- each rule broken once


def only_error(rep):
    assert not rep.valid
    assert len(rep.errors) == 1, [e.message for e in rep.errors]
    return rep.errors[0]


def test_not_a_neighbour() -> None:
    e = only_error(simulate(inst("path:4", "telephone"), sched([(0, [2], None)], [])))
    assert e.rule == "not-a-neighbour" and e.round == 1 and e.nodes == (0, 2)
    assert e.message == "round 1: node 0 sends to 2, which is not its neighbour"


def test_sends_to_itself() -> None:
    e = only_error(simulate(inst("path:4", "all-port"), sched([(1, [1], [1])])))
    assert e.rule == "not-a-neighbour" and "node 1 sends to itself" in e.message


def test_no_receiver() -> None:
    e = only_error(simulate(inst("path:3", "multicast"), sched([(1, [], [1])])))
    assert e.rule == "no-receiver" and e.message == "round 1: node 1 sends to nobody"


@pytest.mark.parametrize("model", ["half-duplex", "single-port"])
def test_multiple_receivers_in_point_to_point_models(model: str) -> None:
    e = only_error(simulate(inst("star:3", model), sched([(0, [1, 2], [0])])))
    assert e.rule == "multiple-receivers"
    assert e.message == f"round 1: node 0 sends to 1 and 2 at once, but {model} is point-to-point"


def test_multiple_receivers_in_telephone_is_also_two_calls() -> None:
    rep = simulate(inst("star:3", "telephone"), sched([(0, [1, 2], [0])]))
    assert [(e.rule, e.nodes) for e in rep.errors] == [
        ("multiple-receivers", (0, 1, 2)),
        ("two-calls", (0, 1, 2)),
    ]


def test_telephone_two_calls() -> None:
    i = inst("path:3", "telephone")
    e = only_error(simulate(i, sched([], [(1, [0], None), (1, [2], None)])))
    assert e.rule == "two-calls" and e.round == 2 and e.nodes == (1, 0, 2)
    assert e.message == "round 2: node 1 is in calls with 0 and 2 under telephone"
    # a node that receives from one neighbour and sends to another is also in two calls
    e = only_error(simulate(i, sched([(0, [1], None), (1, [2], None)])))
    assert e.rule == "two-calls" and e.nodes[0] == 1


def test_telephone_packet_cap_each_way() -> None:
    i = inst("path:3", "telephone:p=1")
    e = only_error(
        simulate(i, sched([(0, [1], [0]), (1, [0], [1])], [(1, [2], [0]), (1, [2], [1])]))
    )
    assert e.rule == "packet-cap" and e.round == 2 and e.nodes == (1, 2)
    assert e.message == "round 2: node 1 sends 2 packets to 2, more than p=1"


@pytest.mark.parametrize("model", ["half-duplex:p=1", "single-port:p=1", "multicast:p=1"])
def test_packet_cap(model: str) -> None:
    i = inst("path:3", model)
    e = only_error(simulate(i, sched([(0, [1], [0])], [(1, [2], [0, 1])])))
    assert e.rule == "packet-cap" and e.round == 2 and e.nodes[0] == 1
    assert "node 1 sends 2 packets in one transmission, more than p=1" in e.message


def test_all_under_a_packet_cap_counts_what_the_sender_knows() -> None:
    i = inst("path:3", "single-port:p=1")
    e = only_error(simulate(i, sched([(0, [1], None)], [(1, [2], None)])))
    assert e.rule == "packet-cap" and '"all"' in e.message


@pytest.mark.parametrize("model", ["half-duplex", "single-port", "multicast"])
def test_sends_twice(model: str) -> None:
    i = inst("star:3", model)
    e = only_error(simulate(i, sched([(0, [1], [0]), (0, [2], [0])])))
    assert e.rule == "sends-twice" and e.nodes == (0, 1, 2)
    assert e.message == f"round 1: node 0 sends 2 transmissions (to 1 and 2) under {model}"


@pytest.mark.parametrize("model", ["half-duplex", "single-port", "multicast"])
def test_receives_twice(model: str) -> None:
    i = inst("star:3", model)
    e = only_error(simulate(i, sched([], [], [(1, [0], [1]), (2, [0], [2])])))
    assert e.rule == "receives-twice" and e.round == 3 and e.nodes == (0, 1, 2)
    assert e.message == f"round 3: node 0 receives from 1 and 2 under {i.model.spec()}"


def test_half_duplex_sends_and_receives() -> None:
    i = inst("path:3", "half-duplex")
    e = only_error(simulate(i, sched([(0, [1], [0]), (1, [2], [1])])))
    assert e.rule == "sends-and-receives" and e.nodes == (1,)
    assert e.message == "round 1: node 1 sends to 2 and receives from 0 under half-duplex"


def test_single_port_may_send_and_receive_with_different_partners() -> None:
    i = inst("path:3", "single-port:p=1")
    assert simulate(i, sched([(0, [1], [0]), (1, [2], [1])])).valid


def test_multicast_may_send_to_many() -> None:
    i = inst("star:4", "multicast")
    assert simulate(i, sched([(0, [1, 2, 3], [0])])).valid


def test_k_port_sends_and_receives_up_to_k() -> None:
    """k-port: k transmissions out and k in per node, to distinct neighbours, are valid; one
    more out, one more in, or a second one on an arc is refused by its rule's name."""
    i = inst("star:4", "k-port:k=2")
    ok = sched([(0, [1], [0]), (0, [2], [0]), (3, [0], [3]), (1, [0], [1])])
    assert simulate(i, ok).valid
    e = only_error(simulate(i, sched([(0, [1], [0]), (0, [2], [0]), (0, [3], [0])])))
    assert e.rule == "sends-over-k" and e.nodes == (0, 1, 2, 3)
    assert e.message == "round 1: node 0 sends 3 transmissions (to 1, 2 and 3) under k-port:k=2"
    e = only_error(simulate(i, sched([(1, [0], [1]), (2, [0], [2]), (3, [0], [3])])))
    assert e.rule == "receives-over-k" and e.nodes == (0, 1, 2, 3)
    assert e.message == "round 1: node 0 receives from 1, 2 and 3 under k-port:k=2"
    e = only_error(simulate(i, sched([(1, [0], [1])], [(0, [2], [0]), (0, [2], [1])])))
    assert e.rule == "arc-twice" and e.round == 2 and e.nodes == (0, 2)
    assert e.message == "round 2: node 0 sends 2 transmissions to 2 under k-port:k=2"
    e = only_error(simulate(i, sched([(0, [1, 2], [0])])))
    assert e.rule == "multiple-receivers"
    assert e.message == "round 1: node 0 sends to 1 and 2 at once, but k-port is point-to-point"
    e = only_error(simulate(i, sched([(1, [0], [1])], [(0, [2], [0, 1])])))
    assert e.rule == "packet-cap" and e.round == 2  # p = 1 by default


def test_k_port_with_one_port_is_single_port() -> None:
    """k = 1 names the single-port rules: the same verdicts, rule names included."""
    schedules = [
        sched([(0, [1], [0]), (0, [2], [0])]),
        sched([], [], [(1, [0], [1]), (2, [0], [2])]),
        sched([(0, [1], [0]), (1, [2], [1])]),
        sched([(0, [1], [0])], [(1, [2], [0, 1])]),
    ]
    for s in schedules:
        one = simulate(inst("star:3", "k-port:k=1"), s)
        single = simulate(inst("star:3", "single-port"), s)
        assert [(x.rule, x.nodes) for x in one.errors] == [(x.rule, x.nodes) for x in single.errors]
        assert (one.valid, one.rounds) == (single.valid, single.rounds)


def test_unknown_packet_in_every_model() -> None:
    for model in ["telephone", "half-duplex", "single-port", "multicast", "all-port"]:
        i = inst("path:3", model)
        # node 0 forwards packet 2 in round 1: it cannot know it yet
        e = only_error(simulate(i, sched([(0, [1], [2])])))
        assert e.rule == "unknown-packet" and e.round == 1 and e.nodes == (0,)
        assert e.message == "round 1: node 0 sends packet 2, which it does not know yet"


def test_packet_received_this_round_cannot_be_forwarded_this_round() -> None:
    i = inst("path:3", "all-port")
    e = only_error(simulate(i, sched([(0, [1], [0]), (1, [2], [0])])))
    assert e.rule == "unknown-packet" and e.nodes == (1,)


def test_all_port_over_capacity() -> None:
    i = inst("path:3", "all-port")
    e = only_error(simulate(i, sched([(0, [1], [0])], [(1, [0], [1]), (1, [2], [0, 1])])))
    assert e.rule == "over-capacity" and e.round == 2 and e.nodes == (1, 2)
    assert e.message == "round 2: arc 1->2 carries 2 packets, over its capacity 1"
    wide = inst("path:3", "all-port:c=2")
    assert simulate(wide, sched([(0, [1], [0])], [(1, [0], [1]), (1, [2], [0, 1])])).valid


def test_all_port_uses_fat_tree_capacities() -> None:
    # fattree:4:exp: leaf branches have capacity 1, the root's branches capacity 2
    g = graphs.from_spec("fattree:4:exp")
    i = make_instance(g, parse_model("all-port"), parse_problem("gossip"))
    parent = next(iter(g.adj[0]))
    assert set(g.adj[1]) == {parent}
    root = next(v for v in g.adj[parent] if v not in (0, 1))
    assert graphs.capacity(g, 0, parent) == 1 and graphs.capacity(g, parent, root) == 2
    up = [(0, [parent], [0]), (1, [parent], [1])]
    assert simulate(i, sched(up, [(parent, [root], [0, 1])])).valid
    e = only_error(simulate(i, sched(up, [(parent, [0], [0, 1])])))
    assert e.rule == "over-capacity" and e.round == 2 and e.nodes == (parent, 0)
    assert e.message == f"round 2: arc {parent}->0 carries 2 packets, over its capacity 1"


@pytest.mark.parametrize(
    ("model", "limit", "what"),
    [
        ("sequential", 1, "calls"),
        ("telephone:calls=2", 2, "calls"),
        ("multicast:calls=1", 1, "transmissions"),
    ],
)
def test_calls_per_round(model: str, limit: int, what: str) -> None:
    i = inst("path:6", model)
    rnd = [(0, [1], [0]), (2, [3], [2]), (4, [5], [4])]
    if what == "calls":
        rnd.append((1, [0], [1]))  # the other half of call {0, 1}: still three calls
    e = only_error(simulate(i, sched(rnd)))
    assert e.rule == "calls-per-round" and e.round == 1 and e.nodes == ()
    assert i.model.calls_per_round == limit
    assert e.message == f"round 1: 3 {what}, more than the {limit} allowed under {i.model.spec()}"


def test_every_violation_is_reported_not_only_the_first() -> None:
    i = inst("path:4", "half-duplex:p=1")
    s = sched(
        [(0, [2], [0]), (1, [2], [1]), (3, [2], [2])],  # non-edge, unknown packet, receives x3
        [(2, [1], [1, 2])],  # over p
    )
    rep = simulate(i, s)
    rules = [(e.round, e.rule) for e in rep.errors]
    assert (1, "not-a-neighbour") in rules
    assert (1, "unknown-packet") in rules
    assert (1, "receives-twice") in rules
    assert (2, "packet-cap") in rules


def test_verifier_errors_name_original_labels(tmp_path) -> None:
    path = tmp_path / "g.edgelist"
    path.write_text("a b\nb c\n")
    g = graphs.from_spec(str(path))
    i = make_instance(g, parse_model("telephone"), parse_problem("gossip"))
    a, c = graphs.resolve_node(g, "a"), graphs.resolve_node(g, "c")
    rep = simulate(i, sched([(a, [c], None)]))
    assert rep.errors[0].message == "round 1: node a sends to c, which is not its neighbour"
