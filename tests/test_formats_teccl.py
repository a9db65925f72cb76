"""TE-CCL's epoch model: its machines, small schedule files written here (in TE-CCL's output
format) replayed to their own epochs and finish time, the lower bounds against exact optima,
gossipcert's own schedules, the verdict, and hostile input."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from typer.testing import CliRunner

from gossipcert.cli import app
from gossipcert.errors import FormatError
from gossipcert.formats.json_algorithms import read_teccl
from gossipcert.formats.teccl import parse_teccl_schedule, read_teccl_schedule, teccl_json
from gossipcert.formats.teccl_bounds import distance_bound, epoch_lower_bound
from gossipcert.formats.teccl_construct import greedy_allgather, greedy_alltoall
from gossipcert.formats.teccl_exact import decide_allgather
from gossipcert.formats.teccl_machines import dgx2, mesh, ndv2, teccl_machine
from gossipcert.formats.teccl_model import EpochModel, epoch_duration, explain_epoch
from gossipcert.formats.teccl_replay import PathFlow, replay_allgather, replay_alltoall
from gossipcert.formats.teccl_verdict import judge_teccl

#: TE-CCL's 4-GPU mesh (links 0-1, 1-2, 2-3, 0-2, 1-3): an allgather in two epochs
MESH2_ALLGATHER = [
    (0, 0, 0, 1, 0), (1, 0, 1, 0, 0), (2, 0, 2, 3, 0), (3, 0, 3, 2, 0),
    (0, 0, 0, 2, 0), (2, 0, 2, 0, 0), (1, 0, 1, 3, 0), (3, 0, 3, 1, 0),
    (3, 0, 2, 0, 1), (2, 0, 3, 1, 1), (1, 0, 0, 2, 1), (0, 0, 1, 3, 1),
]  # fmt: skip


def mesh2_file(delay: int = 0) -> dict:
    """A TE-CCL allgather output on ``mesh:2`` (chunk 1 GB, epoch 0.01 s: one chunk an
    epoch), every flow ``delay`` epochs late, as TE-CCL would write it."""
    flows = [(s, c, i, j, k + delay) for s, c, i, j, k in MESH2_ALLGATHER]
    epochs = 2 + delay
    met: dict = {}
    for s, c, _i, j, k in flows:
        met.setdefault(f"GPU {j}", {}).setdefault(f"GPU {s}", {})[f"Chunk {c}"] = 0.01 * (k + 1)
    return {
        "1-Epoch_Duration": 0.01,
        "2-Expected_Epoch_Duration": 0.01,
        "3-Epochs_Required": epochs,
        "4-Collective_Finish_Time": 0.01 * epochs,
        "5-Algo_Bandwidth": 4 * 1.0 * 1 / (0.01 * epochs),
        "6-Demand_Met": met,
        "7-Flows": [
            f"Chunk {c} from {s} traveled over {i}->{j} in epoch {k}" for s, c, i, j, k in flows
        ],
        "8-Chunk paths": {},
        "Solver_Time": 1.0,
    }


def write(tmp_path: Path, data: object, name: str = "t.json") -> str:
    path = tmp_path / name
    path.write_text(data if isinstance(data, str) else json.dumps(data))
    return str(path)


# --- the machines as TE-CCL builds them


def test_machines_keep_teccl_numbering() -> None:
    two = ndv2(2)
    # two chassis: 16 nodes, node 0 marked a switch, the chassis joined by 0 -> 9 and 8 -> 1
    assert two.gpus == list(range(1, 16)) and two.switches == {0}
    assert (0, 9) in two.links and (8, 1) in two.links and (9, 0) not in two.links
    four = ndv2(4)
    assert four.nodes == 33 and four.gpus == list(range(1, 33))
    assert {(1, 0), (0, 2), (25, 0), (0, 26)} <= set(four.links)
    d = dgx2()
    assert d.gpus == [*range(1, 17), *range(18, 34)] and d.switches == {0, 17}
    ib = [(i, j) for (i, j) in d.links if 0 not in (i, j) and 17 not in (i, j)]
    assert len(ib) == 16 and (2, 18) in ib and (19, 1) in ib
    assert teccl_machine("mesh:3").nodes == 9
    with pytest.raises(FormatError, match="unknown TE-CCL machine"):
        teccl_machine("dgx2:4")


def test_epochs_as_teccl_computes_them() -> None:
    # NDv2, 1 KB over 16 devices: the fast epoch 1.25 ns; stretched to alpha / 200 = 3.5 ns
    assert epoch_duration(ndv2(2), 1e-6 / 16, "fast", 1) == (3.5e-09, 1.25e-09)
    assert explain_epoch(ndv2(2), 1e-6 / 16, 3.5e-09) == "alpha / 200"
    m = EpochModel(dgx2(), 1e-6 / 32, 1e-9)
    # 0.35 us / 1 ns = 350 epochs (a switch link), 2.6 us = 2600 (a NIC link), and a NIC
    # carries 0.4 chunk an epoch: 2 more epochs to send one
    assert m.alpha_epochs(1, 0) == 350 and m.alpha_epochs(2, 18) == 2600
    assert m.beta_epochs(2, 18) == 2 and m.held_after(2, 18) == 2603
    # through a switch: 351 epochs in, 350 out (the switch-to-GPU link is instantaneous)
    assert m.held_after(11, 0) + m.held_after(0, 1) == 701
    assert m.alpha_epochs(1, 0) == math.ceil(0.35e-6 / 1e-9)
    tiny = EpochModel(ndv2(2), 1.0, 1.0)
    assert tiny.alpha_epochs(1, 2) == 0  # 0.7 us over 1 s is below TE-CCL's threshold 0.1


# --- files written here, replayed to their own numbers


def test_allgather_file_replays_to_its_numbers(tmp_path: Path) -> None:
    for delay in (0, 3):
        sched = read_teccl_schedule(write(tmp_path, mesh2_file(delay)))
        assert sched.model.machine.spec == "mesh:2" and sched.model.chunk == 1.0
        rep = sched.replay()
        assert rep.valid and rep.epochs == 2 + delay == sched.epochs
        assert rep.finish_time == sched.reported["4-Collective_Finish_Time"]


def test_via_switch_lines_follow_the_switch(tmp_path: Path) -> None:
    """A line ``u->v in epoch e via switches w`` is the flow into the switch in epoch ``e``
    and out of it in the epoch it arrives (TE-CCL's switches keep nothing): on TE-CCL's
    DGX-2 with 1 KB, a chunk sent in epoch 0 is met 701 epochs later, by the end of epoch 700
    (as TE-CCL's provided output records it)."""
    m = EpochModel(dgx2(), 1e-6 / 32, 1e-9)
    flows = [(11, 0, 11, 0, 0), (11, 0, 0, 1, 351)]
    rep = replay_allgather(m, flows, gpus=[1, 11])
    assert rep.met[(11, 1, 0)] == 700
    late = replay_allgather(m, [(11, 0, 11, 0, 0), (11, 0, 0, 1, 352)], gpus=[1, 11])
    assert {f.rule for f in late.findings} == {"switch-idle", "missing"}


def test_alltoall_file_replays_to_its_numbers(tmp_path: Path) -> None:
    """Fractions of chunks on paths (TE-CCL's "7-chunk paths"), each half of a chunk on its
    own path; a path's hop lists its volume and epoch."""
    m = EpochModel(mesh(2), chunk=1.0, epoch=0.01)
    got = greedy_alltoall(m)
    assert got is not None
    data = teccl_json(m, got[1], paths=got[0])
    data.pop("gossipcert", None)
    sched = read_teccl_schedule(write(tmp_path, data))
    rep = sched.replay()
    assert sched.collective == "alltoall" and rep.valid and rep.epochs == got[1].epochs
    # half a chunk over each of two paths: a capacity of one chunk an epoch holds both
    half = [PathFlow(0, 3, 3, 0.5, ((0, 1, 0), (1, 3, 1))),
            PathFlow(0, 3, 3, 0.5, ((0, 2, 0), (2, 3, 1)))]  # fmt: skip
    assert replay_alltoall(m, half, [(0, 3, 3)]).valid
    short = replay_alltoall(m, half[:1], [(0, 3, 3)])
    assert [f.rule for f in short.findings] == ["volume"]
    over = [PathFlow(0, 3, 3, 1.0, ((0, 1, 0), (1, 3, 1))),
            PathFlow(2, 3, 3, 0.5, ((2, 1, 0), (1, 3, 1)))]  # fmt: skip
    rules = {f.rule for f in replay_alltoall(m, over, [(0, 3, 3)]).findings}
    assert "capacity" in rules


def test_mutations_are_caught(tmp_path: Path) -> None:
    data = mesh2_file()
    data["7-Flows"][8] = data["7-Flows"][8].replace("in epoch 1", "in epoch 0")  # too early
    rep = read_teccl_schedule(write(tmp_path, data)).replay()
    assert "unheld" in {f.rule for f in rep.findings}
    data = mesh2_file()
    data["6-Demand_Met"]["GPU 1"]["GPU 0"]["Chunk 0"] = 0.03  # a wrong record
    rep = read_teccl_schedule(write(tmp_path, data)).replay()
    assert [f.rule for f in rep.findings] == ["record"]
    data = mesh2_file()
    data["7-Flows"].append("Chunk 0 from 0 traveled over 0->3 in epoch 0")  # no such link
    with pytest.raises(FormatError, match="no TE-CCL machine"):
        read_teccl_schedule(write(tmp_path, data))
    rep = read_teccl_schedule(write(tmp_path, data), machine="mesh:2").replay()
    assert "no-link" in {f.rule for f in rep.findings}


def test_round_reader_maps_teccl_gpus_to_ranks(tmp_path: Path) -> None:
    """The round verdict reads GPUs numbered around TE-CCL's switch nodes as ranks in order."""
    data = mesh2_file()
    shifted = json.loads(json.dumps(data).replace("GPU ", "GPU 1"))
    lines = []
    for line in data["7-Flows"]:
        words = line.split()
        words[3] = str(10 + int(words[3]))
        u, v = words[6].split("->")
        words[6] = f"{10 + int(u)}->{10 + int(v)}"
        lines.append(" ".join(words))
    shifted["7-Flows"] = lines
    replay, coll, n, flows = read_teccl(write(tmp_path, shifted))
    assert (coll, n, flows) == ("allgather", 4, 12) and replay.valid
    alltoall = {"1-Epoch_Duration": 1.0, "6-Flows": [], "7-chunk paths": {}}
    with pytest.raises(FormatError, match="gossipcert teccl"):
        read_teccl(write(tmp_path, alltoall))


# --- bounds, schedules and exact optima agree


@pytest.mark.parametrize(("alpha", "kind"), [(0.0, "cut"), (0.015, "distance")])
def test_bounds_and_schedules_bracket_the_exact_optimum(alpha: float, kind: str) -> None:
    """On the 9-GPU mesh with two chunks a GPU (one chunk an epoch on a link; alpha 0, or
    15 ms: 2 epochs), the exact optimum lies between the bound and the greedy schedule: the
    SAT formula refutes one epoch fewer than the bound (proof checked), and finds a
    schedule at the optimum, which the replay accepts. (With alpha 0 the cut bound of the
    corner GPU binds: 16 chunks through two links; with alpha the farthest chunk does, and
    the greedy schedule takes an epoch more than the optimum.)"""
    m = EpochModel(mesh(3, alpha=alpha), chunk=1.0, epoch=0.01)
    bound = epoch_lower_bound(m, "allgather", chunks=2)
    assert bound.kind == kind
    greedy = greedy_allgather(m, chunks=2)
    assert greedy is not None and greedy.replay.valid
    assert decide_allgather(m, bound.value - 1, chunks=2, seconds=600).status == "unsat"
    optimum = None
    for e in range(bound.value, greedy.epochs + 1):
        out = decide_allgather(m, e, chunks=2, seconds=600)
        if out.status == "sat":
            assert out.replay is not None and out.replay.valid and out.replay.epochs <= e
            optimum = e
            break
        assert out.status == "unsat", out
    assert optimum is not None and bound.value <= optimum <= greedy.epochs


def test_cut_bound_counts_a_gpus_one_link() -> None:
    """A GPU whose only way in carries one chunk an epoch needs an epoch per chunk: on the
    two DGX-2 (1 GB, Fast epochs) the 31 chunks enter each GPU through its switch port, so
    31 epochs, though the farthest chunk needs 12."""
    m = EpochModel(dgx2(), 1 / 32, 0.00025)
    assert distance_bound(m, "allgather").value == 12
    assert epoch_lower_bound(m, "allgather").value == 31


def test_exact_refutation_holds_for_any_horizon() -> None:
    """The relaxed formula lets a switch deliver in epoch E only in a horizon beyond E, where
    the window that ends at E holds: 3 epochs are refuted on the DGX-2 with Slow epochs."""
    m = EpochModel(dgx2(), 16e-3 / 32, 4e-05)
    assert epoch_lower_bound(m, "allgather").value == 4
    out = decide_allgather(m, 3, seconds=600)
    assert out.status == "unsat"


def test_verdicts(tmp_path: Path) -> None:
    on_time = judge_teccl(write(tmp_path, mesh2_file(), "a.json"))
    assert on_time.verdict == "confirmed" and on_time.same and on_time.valid
    assert on_time.sentence() == "TE-CCL's 2 epochs: optimal, certified"
    late = judge_teccl(write(tmp_path, mesh2_file(3), "b.json"))
    assert late.verdict == "refuted" and late.best == 2 and late.better is not None
    again = parse_teccl_schedule(late.better)
    assert again.origin == "gossipcert" or again.replay().valid
    assert again.replay().valid and again.replay().epochs == 2


# --- hostile input: one line, exit 2


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ("{\n [", "invalid JSON"),
        ([1, 2], "not a TE-CCL schedule"),
        ({"7-Flows": []}, "'1-Epoch_Duration' must be a number"),
        ({**mesh2_file(), "1-Epoch_Duration": -1}, "must be positive"),
        ({**mesh2_file(), "3-Epochs_Required": "2"}, "integer"),
        ({**mesh2_file(), "6-Demand_Met": {"GPU 1": 3}}, "must be an object, not int"),
        ({**mesh2_file(), "6-Demand_Met": {"GPU 1": {"GPU 0": {"Chunk 0": "x"}}}}, "time"),
        (
            {**mesh2_file(), "6-Demand_Met": {"GPU 1": {"GPU 0": {"Chunk 99999999": 1}}}},
            "at most 4096",
        ),
        (
            {**mesh2_file(), "7-Flows": ["Chunk 0 from 0 traveled over 0->1 in epoch 0 xyz"]},
            "is not 'Chunk c",
        ),
        (
            {**mesh2_file(), "7-Flows": ["Chunk 999999999 from 0 traveled over 0->1 in epoch 0"]},
            "beyond",
        ),
        (
            {**mesh2_file(), "7-Flows": ["Chunk 0 from 0 traveled over 0->1 in epoch 0" * 2]},
            "is not 'Chunk c",
        ),
        (
            {**mesh2_file(), "6-Demand_Met": {"GPU 7": {"GPU 5": {"Chunk 0": 1}}}},
            "no TE-CCL machine",
        ),
        (
            {
                "1-Epoch_Duration": 1,
                "2-Expected_Epoch_Duration": 1,
                "3-Epochs_Required": 1,
                "4-Collective_Finish_Time": 1,
                "5-Algo_Bandwidth": 1,
                "6-Flows": [],
            },
            "without its paths",
        ),
    ],
)
def test_hostile_input_is_one_clear_error(tmp_path: Path, data: object, message: str) -> None:
    path = write(tmp_path, data)
    with pytest.raises(FormatError, match=message):
        read_teccl_schedule(path)
    result = CliRunner().invoke(app, ["teccl", path, "--no-improve"])
    assert result.exit_code == 2
    assert "Traceback" not in result.output


def test_cli(tmp_path: Path) -> None:
    runner = CliRunner()
    good = write(tmp_path, mesh2_file(3), "late.json")
    out = str(tmp_path / "short.json")
    result = runner.invoke(app, ["teccl", good, "-o", out])
    assert result.exit_code == 0, result.output
    assert "not optimal: 2" in result.output and Path(out).exists()
    again = runner.invoke(app, ["teccl", out, "--json"])
    data = json.loads(again.output)
    assert again.exit_code == 0 and data["verdict"] == "confirmed" and data["same"]
    clash = runner.invoke(app, ["teccl", good, "-o", out])
    assert clash.exit_code == 2 and "exists" in clash.output
    missing = runner.invoke(app, ["teccl", str(tmp_path / "none.json"), "--json"])
    assert missing.exit_code == 2 and json.loads(missing.stdout)["exit"] == 2


@pytest.mark.parametrize("machine", ["mesh:2", "mesh:3", "ndv2:1"])
def test_alltoall_bound_below_a_valid_schedule(machine: str) -> None:
    """The alltoall cut bound never exceeds a schedule the replay accepts."""
    m = EpochModel(teccl_machine(machine), chunk=0.05, epoch=0.001)
    got = greedy_alltoall(m)
    assert got is not None and got[1].valid
    assert epoch_lower_bound(m, "alltoall").value <= got[1].epochs
