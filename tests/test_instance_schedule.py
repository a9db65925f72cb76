"""Spec parsing of models and problems, instances, and the schedule file formats."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gossipcert import graphs
from gossipcert import instance as instance_module
from gossipcert.constructions.rings import ring_half_duplex
from gossipcert.errors import InstanceError, ScheduleFormatError, SpecError
from gossipcert.instance import (
    ModelKind,
    ProblemKind,
    make_instance,
    parse_instance,
    parse_model,
    parse_problem,
)
from gossipcert.schedule import (
    MAX_ROUNDS,
    Schedule,
    Transmission,
    from_csv,
    from_json,
    read_schedule,
    to_csv,
    to_json,
    write_schedule,
)


@pytest.mark.parametrize(
    ("spec", "kind", "p", "calls"),
    [
        ("telephone", ModelKind.TELEPHONE, None, None),
        ("telephone:p=2", ModelKind.TELEPHONE, 2, None),
        ("sequential:p=2", ModelKind.TELEPHONE, 2, 1),
        ("half-duplex", ModelKind.HALF_DUPLEX, None, None),
        ("half-duplex:p=1", ModelKind.HALF_DUPLEX, 1, None),
        ("single-port:p=1", ModelKind.SINGLE_PORT, 1, None),
        ("single-port", ModelKind.SINGLE_PORT, 1, None),
        ("multicast", ModelKind.MULTICAST, 1, None),
        ("all-port", ModelKind.ALL_PORT, None, None),
        ("telephone:calls=3", ModelKind.TELEPHONE, None, 3),
    ],
)
def test_model_specs(spec: str, kind: ModelKind, p: int | None, calls: int | None) -> None:
    m = parse_model(spec)
    assert (m.kind, m.packet_cap, m.calls_per_round) == (kind, p, calls)
    assert parse_model(m.spec()) == m  # the canonical spec parses back to the same model


def test_linear_cost_and_capacity_options() -> None:
    m = parse_model("telephone:tau=0.25,h=3")
    assert (m.tau, m.h) == (0.25, 3)
    assert parse_model("all-port:c=4").capacity == 4


@pytest.mark.parametrize(
    ("spec", "needle"),
    [
        ("telefone", "unknown model 'telefone'"),
        ("telephone:p=0", "p must be at least 1"),
        ("telephone:p=x", "p must be a whole number"),
        ("telephone:q=1", "bad model option 'q=1'"),
        ("all-port:p=2", "all-port has no packet cap"),
        ("telephone:c=2", "applies to all-port only"),
        ("telephone:tau=-1", "non-negative"),
    ],
)
def test_bad_model_specs(spec: str, needle: str) -> None:
    with pytest.raises(SpecError, match=needle) as info:
        parse_model(spec)
    if "unknown" in needle:
        assert "half-duplex" in str(info.value)  # lists what is accepted


def test_problem_specs() -> None:
    assert parse_problem("gossip").kind is ProblemKind.GOSSIP
    assert parse_problem("broadcast:3").root == "3"  # resolved against labels, then indices
    assert parse_problem("gather:a").root == "a"
    assert parse_problem("total-exchange").kind is ProblemKind.TOTAL_EXCHANGE
    for bad, needle in [
        ("gosip", "unknown problem"),
        ("broadcast", "needs a node"),
        ("gossip:1", "takes no argument"),
        ("nofile.json", "does not exist"),
    ]:
        with pytest.raises(SpecError, match=needle):
            parse_problem(bad)


def test_chunks_beyond_the_packet_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    # K * packets above the limit is refused before the K copies are built (chunks=10**20
    # used to fill the memory)
    monkeypatch.setattr(instance_module, "MAX_CHUNKED_PACKETS", 100, raising=False)
    assert parse_instance("ring:6", "telephone", "gossip:chunks=16").n_packets == 96
    with pytest.raises(SpecError, match=r"6 packets .* into 102 packets, more than the limit"):
        parse_instance("ring:6", "telephone", "gossip:chunks=17")


def test_instances_spell_out_packets() -> None:
    g = parse_instance("ring:4", "telephone", "gossip")
    assert g.n_packets == 4 and g.holdings == (1, 2, 4, 8) and set(g.demands) == {15}
    b = parse_instance("ring:4", "telephone", "broadcast:2")
    assert b.holdings == (0, 0, 1, 0) and b.demands == (1, 1, 1, 1)
    s = parse_instance("ring:4", "telephone", "scatter:1")
    assert s.packet_names == (0, 2, 3) and s.holdings[1] == 0b111 and s.demands[1] == 0
    ga = parse_instance("ring:4", "telephone", "gather:1")
    assert ga.demands[1] == 0b111 and ga.holdings[1] == 0
    te = parse_instance("path:3", "telephone", "total-exchange")
    assert te.n_packets == 6 and te.packet_names[0] == (0, 1)


def test_fat_tree_packets_live_on_processors_only() -> None:
    inst = parse_instance("fattree:4", "all-port", "gossip")
    assert inst.n == 7 and inst.n_packets == 4
    for v in graphs.routers(inst.graph):
        assert inst.holdings[v] == 0 and inst.demands[v] == 0
    router = graphs.routers(inst.graph)[0]
    with pytest.raises(SpecError, match="router"):
        parse_instance("fattree:4", "all-port", f"broadcast:{router}")


def test_custom_problem_file(tmp_path: Path) -> None:
    f = tmp_path / "p.json"
    f.write_text(
        json.dumps(
            {
                "packets": ["x", "y"],
                "holdings": {"0": ["x"], "3": ["y"]},
                "demands": {"1": ["x", "y"], "2": ["y"]},
            }
        )
    )
    inst = parse_instance("path:4", "telephone", str(f))
    assert inst.packet_names == ("x", "y")
    assert inst.holdings == (1, 0, 0, 2) and inst.demands == (0, 3, 2, 0)
    f.write_text(json.dumps({"holdings": {"0": ["x"], "2": ["z"]}, "demands": {"1": ["z"]}}))
    assert parse_instance("path:4", "telephone", str(f)).n_packets == 2
    f.write_text(json.dumps({"packets": ["x"], "holdings": {"0": ["x"]}, "demands": {"1": ["q"]}}))
    with pytest.raises(SpecError, match="'q'"):
        parse_instance("path:4", "telephone", str(f))
    # two keys naming one node once spaces are dropped: the problem written to a certificate
    # kept one of the two lists, and the certificate then failed its check
    f.write_text('{"holdings": {"0": ["x"], " 0": ["y"]}, "demands": {"1": ["x", "y"]}}')
    with pytest.raises(SpecError, match="'holdings' names node '0' twice"):
        parse_problem(str(f))


def test_unmeetable_demands_are_an_instance_error(tmp_path: Path) -> None:
    f = tmp_path / "two.edgelist"
    f.write_text("0 1\n2 3\n")
    g = graphs.from_spec(str(f))
    with pytest.raises(InstanceError, match="disconnected"):
        make_instance(g, parse_model("telephone"), parse_problem("gossip"))
    # broadcast inside one component of a disconnected graph is still unmeetable
    with pytest.raises(InstanceError):
        make_instance(g, parse_model("telephone"), parse_problem("broadcast:0"))


# ------------------------------------------------------------------- schedule files


def test_json_and_csv_round_trip(tmp_path: Path) -> None:
    inst = parse_instance("ring:5", "half-duplex:p=1", "gossip")
    sched = ring_half_duplex(inst)
    assert from_json(to_json(sched, inst), inst) == sched
    assert from_csv(to_csv(sched, inst), inst) == sched
    for name in ("s.json", "s.csv"):
        write_schedule(sched, inst, tmp_path / name)
        assert read_schedule(tmp_path / name, inst) == sched


def test_total_exchange_packets_in_json_and_csv() -> None:
    inst = parse_instance("path:2", "telephone", "total-exchange")
    sched = Schedule(((Transmission(0, (1,), 1), Transmission(1, (0,), 2)),))
    data = to_json(sched, inst)
    assert data["rounds"][0][0]["packets"] == [[0, 1]]
    assert "0/1" in to_csv(sched, inst)
    assert from_csv(to_csv(sched, inst), inst) == sched
    assert from_json(data, inst) == sched


def test_trailing_empty_rounds_are_dropped() -> None:
    inst = parse_instance("path:2", "telephone", "gossip")
    sched = Schedule(((Transmission(0, (1,), None),), (), ()))
    assert len(sched) == 1 and len(to_json(sched, inst)["rounds"]) == 1


@pytest.mark.parametrize(
    ("data", "needle"),
    [
        ({"format": "other/1", "rounds": []}, "unknown schedule format"),
        ({"rounds": "x"}, "'rounds'"),
        ({"rounds": [[{"from": 0}]]}, "round 1, transmission 1"),
        ({"rounds": [[{"from": 0, "to": [7], "packets": "all"}]]}, "node 7 does not exist"),
        ({"rounds": [[{"from": 0, "to": [1], "packets": [9]}]]}, "packet 9 does not exist"),
        ({"rounds": [[{"from": 0, "to": [1], "packets": 3}]]}, "must be a list"),
        ({"rounds": [[{"from": True, "to": [1], "packets": "all"}]]}, "a number or a label"),
        ({"rounds": [[{"from": [0], "to": [1], "packets": "all"}]]}, "a number or a label"),
        ({"rounds": [[{"from": 0, "to": [{"a": 1}], "packets": "all"}]]}, "a number or a label"),
        # as many rounds as a CSV line may name, and no more
        ({"rounds": [[]] * (MAX_ROUNDS + 1)}, "1000001 rounds, beyond the limit of 1000000"),
    ],
)
def test_bad_schedule_json(data: dict, needle: str) -> None:
    inst = parse_instance("ring:4", "telephone", "gossip")
    with pytest.raises(ScheduleFormatError, match=needle):
        from_json(data, inst)


@pytest.mark.parametrize(
    ("text", "needle"),
    [
        ("a,b\n", "header"),
        ("round,from,to,packets\n1,0,1\n", "line 2: expected 4 fields"),
        ("round,from,to,packets\nx,0,1,all\n", "round 'x' is not a number"),
        ("round,from,to,packets\n0,0,1,all\n", "numbered from 1"),
        ("round,from,to,packets\n99999999999,0,1,all\n", "beyond the limit"),
        ("round,from,to,packets\n1,0,9,all\n", "line 2 \\(round 1\\): node 9 does not exist"),
    ],
)
def test_bad_schedule_csv(text: str, needle: str) -> None:
    inst = parse_instance("ring:4", "telephone", "gossip")
    with pytest.raises(ScheduleFormatError, match=needle):
        from_csv(text, inst)


@pytest.mark.parametrize("name", ["x/y", "a;b", " sp ", "all", "All", "ALL", ""])
def test_csv_refuses_packet_names_it_cannot_read_back(tmp_path: Path, name: str) -> None:
    # the CSV was written, and reading it back failed or ('all') meant every packet
    f = tmp_path / "p.json"
    f.write_text(json.dumps({"holdings": {"0": [name, "q"]}, "demands": {"1": [name, "q"]}}))
    inst = parse_instance("path:2", "telephone:p=1", str(f))
    one = Schedule(((Transmission(0, (1,), 1 << inst.packet_index(name)),),))
    with pytest.raises(ScheduleFormatError, match="write the schedule as JSON"):
        to_csv(one, inst)
    fine = Schedule(((Transmission(0, (1,), 1 << inst.packet_index("q")),),))
    assert from_csv(to_csv(fine, inst), inst) == fine


def test_csv_refuses_a_node_label_with_a_semicolon(tmp_path: Path) -> None:
    f = tmp_path / "g.json"
    f.write_text(json.dumps({"edges": [["a;b", "c"]]}))
    inst = parse_instance(str(f), "telephone", "gossip")
    with pytest.raises(ScheduleFormatError, match="node label 'a;b'"):
        to_csv(Schedule.from_calls([[(0, 1)]]), inst)
