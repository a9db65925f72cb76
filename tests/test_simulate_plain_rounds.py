"""The verifier's whole-round replay of plain rounds against its per-transmission replay.

:func:`gossipcert.simulate.simulate` replays a round that visibly breaks no rule by
whole-round operations (``plain_round``) and every other round transmission by
transmission. Both must give the same report, for valid schedules and for schedules that
break rules; here the same random schedules are replayed with the whole-round path switched
off, and the reports compared field by field.
"""

from __future__ import annotations

import random

import pytest

import gossipcert.schedule as schedule_module
import gossipcert.simulate as simulate_module
from gossipcert.errors import ScheduleFormatError
from gossipcert.instance import parse_instance
from gossipcert.schedule import Schedule, Transmission
from gossipcert.simulate import Report, simulate

MODELS = (
    "telephone",
    "telephone:p=1",
    "telephone:calls=2",
    "half-duplex",
    "half-duplex:p=1",
    "single-port",
    "single-port:p=2",
    "multicast",
    "multicast:p=2",
    "sequential",
    "all-port",
)
GRAPHS = ("ring:6", "path:5", "petersen", "complete:5", "star:5")


def random_schedule(
    inst_n: int, adjacency: list[list[int]], rng: random.Random, rounds: int, sloppy: float
) -> Schedule:
    """Mostly matchings of single-packet or "all" transmissions, some both ways; with probability
    ``sloppy`` per transmission, something that may break a rule (a second receiver, a
    repeated sender or receiver, a non-neighbour, an unknown packet)."""
    out = []
    for _ in range(rounds):
        free = list(range(inst_n))
        rng.shuffle(free)
        used: set[int] = set()
        rnd: list[Transmission] = []
        for u in free:
            if u in used and rng.random() > sloppy:
                continue
            options = [v for v in adjacency[u] if v not in used] or adjacency[u]
            v = rng.choice(options)
            if rng.random() < sloppy:
                v = rng.randrange(inst_n)  # perhaps not a neighbour, perhaps itself
            receivers = (v,)
            if rng.random() < sloppy:
                receivers = (v, rng.choice(adjacency[u]))
            draw = rng.random()
            # everything it knows, its own packet (known from the start), or any packet
            packets = None if draw < 0.4 else 1 << u if draw < 0.8 else 1 << rng.randrange(inst_n)
            if packets is not None and rng.random() < 0.2:
                packets |= 1 << rng.randrange(inst_n)
            rnd.append(Transmission(u, receivers, packets))
            if rng.random() < 0.4 and v not in used and v != u:  # the other way of a call
                rnd.append(Transmission(v, (u,), None if rng.random() < 0.5 else 1 << v))
            used.update((u, v))
            if rng.random() < 0.3:
                break
        out.append(tuple(rnd))
    return Schedule(tuple(out))


def fields(report: Report) -> tuple:
    return (
        report.valid,
        report.complete,
        report.rounds,
        report.length,
        [(e.round, e.nodes, e.rule, e.message) for e in report.errors],
        report.unmet,
        report.per_round,
        report.steps,
        report.cost,
        report.knowledge,
    )


@pytest.mark.parametrize("model", MODELS)
def test_plain_rounds_replay_as_the_per_transmission_replay(
    model: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    rng = random.Random(model)
    plain = simulate_module.plain_round
    seen = [0]

    def counting(*args: object) -> object:
        out = plain(*args)  # type: ignore[arg-type]
        seen[0] += out is not None
        return out

    for graph in GRAPHS:
        inst = parse_instance(graph, model, "gossip")
        adjacency = [sorted(inst.graph.adj[v]) for v in range(inst.n)]
        for trial in range(40):
            sched = random_schedule(inst.n, adjacency, rng, 1 + trial % 7, (trial % 4) * 0.1)
            with monkeypatch.context() as patch:
                patch.setattr(simulate_module, "plain_round", counting)
                fast = simulate(inst, sched)
            with monkeypatch.context() as patch:
                patch.setattr(simulate_module, "plain_round", lambda *args: None)
                slow = simulate(inst, sched)
            assert fields(fast) == fields(slow), (graph, model, sched)
    if model != "all-port":
        assert seen[0] > 50  # the whole-round path was taken, not only skipped


def test_plain_round_refuses_what_breaks_a_rule() -> None:
    inst = parse_instance("ring:4", "telephone", "gossip")
    adj = [set(inst.graph.adj[v]) for v in range(inst.n)]
    know = list(inst.holdings)
    call = (Transmission(0, (1,), 1), Transmission(1, (0,), 2))
    assert simulate_module.plain_round(call, list(know), adj, inst.model) is not None
    # 0 calls 1 while 1 calls 2: two calls at node 1
    assert (
        simulate_module.plain_round(
            (Transmission(0, (1,), 1), Transmission(1, (2,), 2)), list(know), adj, inst.model
        )
        is None
    )
    # a packet 0 does not know
    assert (
        simulate_module.plain_round((Transmission(0, (1,), 4),), list(know), adj, inst.model)
        is None
    )
    # not a neighbour
    assert (
        simulate_module.plain_round((Transmission(0, (2,), 1),), list(know), adj, inst.model)
        is None
    )
    half = parse_instance("ring:4", "half-duplex", "gossip")
    assert simulate_module.plain_round(call, list(know), adj, half.model) is None


# ------------------------------------------------- reading: whole rounds against items


def read_both(data: object, inst: object, monkeypatch: pytest.MonkeyPatch) -> tuple:
    """The schedule (or the error) read with and without the whole-round reader."""
    out = []
    for fast in (True, False):
        with monkeypatch.context() as patch:
            if not fast:
                patch.setattr(schedule_module, "_common_round", lambda *args: None)
            try:
                out.append(schedule_module.from_json(data, inst))
            except ScheduleFormatError as exc:
                out.append(str(exc))
    return tuple(out)


@pytest.mark.parametrize("graph", ["ring:6", "petersen", "complete:5"])
def test_whole_round_reader_reads_as_the_item_reader(
    graph: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    rng = random.Random(graph)
    inst = parse_instance(graph, "multicast", "gossip")
    adjacency = [sorted(inst.graph.adj[v]) for v in range(inst.n)]
    for trial in range(30):
        sched = random_schedule(inst.n, adjacency, rng, 1 + trial % 5, 0.2)
        data = schedule_module.to_json(sched, inst)
        fast, slow = read_both(data, inst, monkeypatch)
        written = Schedule(
            tuple(
                tuple(tr._replace(receivers=tuple(dict.fromkeys(tr.receivers))) for tr in rnd)
                for rnd in sched.rounds[: len(sched)]
            )
        )  # a receiver named twice is read once
        assert fast == slow == written


@pytest.mark.parametrize(
    "second_round",
    [
        [{"from": True, "to": [1], "packets": [0]}],  # a bool is not the node 1
        [{"from": 1.0, "to": [0], "packets": [1]}],  # nor is a float
        [{"from": 1, "to": [True], "packets": [1]}],
        [{"from": 1, "to": [0], "packets": [True]}],
        [{"from": 1, "to": [9], "packets": [1]}],  # no node 9
        [{"from": 1, "to": [0], "packets": [9]}],  # no packet 9
        [{"from": 1, "to": 0, "packets": [1]}],  # a bare receiver
        [{"from": 1, "to": [0]}],  # no packets: all
        [{"from": "1", "to": ["0"], "packets": ["1"]}],  # labels
        [{"from": 1, "to": [0, 2], "packets": "all"}],
        [[1, 0, 1]],
        ["x"],
        [],
    ],
)
def test_whole_round_reader_on_odd_rounds(
    second_round: list, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The first round fills the lookup tables, so the second meets the whole-round reader."""
    inst = parse_instance("ring:6", "multicast", "gossip")
    first = [{"from": v, "to": [(v + 1) % 6], "packets": [v]} for v in range(6)]
    fast, slow = read_both({"rounds": [first, second_round]}, inst, monkeypatch)
    assert fast == slow
