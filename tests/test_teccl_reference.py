"""The independent replay of TE-CCL's epoch model (``tests/teccl_reference.py``) against
gossipcert's (``gossipcert.api.judge_teccl``): the machines as TE-CCL's code builds them, the
docs' mesh file and its mutants (each breaking one of TE-CCL's rules), and three of gossipcert's
attached shorter schedules on the small TE-CCL inputs they answer. The two replays share no
code; every case asserts that they agree."""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

import pytest

from gossipcert.api import judge_teccl
from gossipcert.errors import GossipcertError
from tests.teccl_reference import _conservation, load, replay
from tests.teccl_reference_machines import dgx2, link_epochs, machine, mesh, ndv2

ROOT = Path(__file__).resolve().parent.parent
MESH2 = ROOT / "docs" / "examples" / "allgather-mesh2.teccl.json"
ATTACHED = ROOT / "results" / "schedules" / "teccl"


def gossipcert_exact(path: Path, **options: Any) -> tuple[bool, int | None]:
    """gossipcert's replay: (valid and the file's own epochs and finish time, its epochs)."""
    try:
        j = judge_teccl(str(path), improve=False, **options)
    except GossipcertError:
        return False, None
    data = load(path)
    same = j.replayed == data.get("3-Epochs_Required") and j.finish_replayed == pytest.approx(
        data.get("4-Collective_Finish_Time"), rel=1e-9
    )
    return (not j.findings and same), j.replayed


def test_machines_as_teccl_builds_them() -> None:
    chunk = 1 / 16
    two = ndv2(2, chunk)
    ib = 12.5 / chunk
    assert two.n == 16 and two.switches == {0} and two.gpus() == list(range(1, 16))
    assert two.capacity[8][1] == ib and two.capacity[0][9] == ib  # TE-CCL's transpose
    assert two.capacity[1][8] == 0 and two.capacity[9][0] == 0
    assert sorted(len([j for j in range(16) if two.capacity[i][j]]) for i in (2, 3)) == [4, 4]
    four = ndv2(4, chunk)
    assert four.n == 33 and four.switches == {0}
    assert [v for v in range(33) if four.capacity[v][0]] == [1, 9, 17, 25]
    assert [v for v in range(33) if four.capacity[0][v]] == [2, 10, 18, 26]
    box = dgx2(1 / 32)
    assert box.n == 34 and box.switches == {0, 17}
    across = sorted((i, j) for i, j in box.links() if box.capacity[i][j] == 12.5 * 32)
    assert across == [(2 * m + 2, 2 * m + 18) for m in range(8)] + [
        (2 * m + 19, 2 * m + 1) for m in range(8)
    ]
    grid = mesh(3, 100.0)
    assert grid.capacity[2][3] == 1.0 and grid.capacity[0][4] == 0  # a row's end meets the next


def test_epoch_arithmetic() -> None:
    chunk = 16e-3 / 16
    m = ndv2(2, chunk)
    slow, fast = m.epoch("slow"), m.epoch("fast")
    assert fast == 1.0 / (50 / chunk) and slow == 1.0 / (12.5 / chunk)
    at_slow = link_epochs(m, slow)
    assert at_slow[(8, 1)].per_epoch == 1 and at_slow[(8, 1)].beta == 0
    assert at_slow[(1, 2)].per_epoch == 2 and at_slow[(0, 1)].per_epoch == 4
    at_fast = link_epochs(m, fast)
    assert (at_fast[(8, 1)].per_epoch, at_fast[(8, 1)].beta) == (0.25, 3)
    assert (at_fast[(1, 2)].per_epoch, at_fast[(1, 2)].beta) == (0.5, 1)
    assert at_fast[(0, 1)].alpha == 0  # 0.7 us is under a tenth of a 20 us epoch
    tiny = ndv2(2, 1e-6 / 16)  # 1 KB: the smallest alpha would be 560 fast epochs
    assert tiny.epoch("fast") == 0.7 * pow(10, -6) / 200
    assert machine("DGX2", 2, 1 / 32).epoch("slow") == 1.0 / (12.5 * 32)


def test_consumption_and_relays() -> None:
    errors: list[str] = []
    assert _conservation(errors, "d", False, 0.0, {2: 0.5, 4: 0.5}, {}, 1.0) == 4
    assert _conservation(errors, "relay", False, 0.0, {2: 1.0}, {3: 1.0}, 0.0) is None
    assert not errors
    _conservation(errors, "early", False, 0.0, {2: 1.0}, {2: 1.0}, 0.0)
    _conservation(errors, "switch", True, 0.0, {2: 1.0}, {4: 1.0}, 0.0)
    assert len(errors) == 2
    # a destination that forwards part of what it got has its demand met only later
    assert _conservation([], "d", False, 0.0, {1: 1.0, 5: 1.0}, {2: 1.0}, 1.0) == 5


def _mesh2() -> dict[str, Any]:
    return json.loads(MESH2.read_text())


def _with(flows_add: tuple[str, ...] = (), flows_drop: tuple[str, ...] = ()) -> dict:
    data = _mesh2()
    data["7-Flows"] = [f for f in data["7-Flows"] if f not in flows_drop] + list(flows_add)
    return data


def _met_later() -> dict:
    data = _mesh2()
    data["6-Demand_Met"]["GPU 0"]["GPU 3"]["Chunk 0"] = 0.03
    return data


MUTANTS = {
    "as written": (_mesh2(), None),
    "a send before the chunk is there": (
        _with(
            ("Chunk 0 from 0 traveled over 2->1 in epoch 0",),
            ("Chunk 0 from 0 traveled over 2->1 in epoch 1",),
        ),
        "before it has it",
    ),
    "a demand never met": (
        _with(flows_drop=("Chunk 0 from 3 traveled over 2->0 in epoch 1",)),
        "never met",
    ),
    "a link the mesh lacks": (
        _with(("Chunk 0 from 0 traveled over 0->3 in epoch 0",)),
        "no link 0->3",
    ),
    "a chunk received twice": (
        _with(("Chunk 0 from 2 traveled over 1->0 in epoch 1",)),
        "2 times",
    ),
    "a chunk sent back to its source": (
        _with(("Chunk 0 from 0 traveled over 1->0 in epoch 2",)),
        "back to its source",
    ),
    "two chunks on a link in one epoch": (
        {
            **_mesh2(),
            "7-Flows": [
                "Chunk 0 from 2 traveled over 2->1 in epoch 0",
                "Chunk 0 from 1 traveled over 1->0 in epoch 1",
                "Chunk 0 from 2 traveled over 1->0 in epoch 1",
            ],
        },
        "carries 2 chunks",
    ),
    "the wrong epochs claimed": ({**_mesh2(), "3-Epochs_Required": 3}, "3-Epochs_Required"),
    "a demand time wrong": (_met_later(), "6-Demand_Met (3, 0, 0)"),
}


@pytest.mark.parametrize("name", list(MUTANTS))
def test_mesh2_mutants_both_replays(name: str, tmp_path: Path) -> None:
    data, expected = MUTANTS[name]
    r = replay(data, mesh(2, 1.0))
    if expected is None:
        assert r.exact and r.epochs == 2 and r.flows == 12
    else:
        assert not r.exact
        assert any(expected in x for x in r.errors + r.mismatches), (r.errors, r.mismatches)
    path = tmp_path / "mutant.json"
    path.write_text(json.dumps(data))
    exact, _epochs = gossipcert_exact(path, machine="mesh:2", chunk=1.0)
    assert exact == r.exact


# gossipcert's shorter schedules (results/teccl-2026-11-29.md) and the TE-CCL inputs they
# answer: (file, machine, chassis, chunk in GB as json_gen.py computes it, epoch kind, epochs)
SMALL = [
    ("NDv2_output_2_chassis_AllGather_Fast_Early_Stop_16MB.json.gz", "NDv2", 16e-3 / 16, "fast"),
    ("NDv2_output_2_chassis_AlltoAll_Slow_64MB.json.gz", "NDv2", 64e-3 / 16, "slow"),
    ("DGX2_output_2_chassis_AllGather_Fast_Early_Stop_1MB.json.gz", "DGX2", 1e-3 / 16, "fast"),
]


@pytest.mark.parametrize(("name", "top", "chunk", "kind"), SMALL)
def test_attached_schedules_both_replays(name: str, top: str, chunk: float, kind: str) -> None:
    path = ATTACHED / name
    data = load(path)
    m = machine(top, 2, chunk)
    epoch = m.epoch(kind)
    assert data["1-Epoch_Duration"] == epoch  # the epoch of TE-CCL's run it answers
    r = replay(data, m, epoch=epoch)
    assert r.exact and not r.chunk_errors, (r.errors, r.mismatches, r.chunk_errors)
    assert r.epochs == data["3-Epochs_Required"]
    exact, epochs = gossipcert_exact(path)
    assert exact and epochs == r.epochs
    for copy in (True, False):  # the switch rules: both replays agree on the other one too
        ours = replay(data, m, switch_copy=copy).valid
        try:
            theirs = not judge_teccl(str(path), improve=False, switch_copy=copy).findings
        except GossipcertError:
            theirs = False
        assert ours == theirs


def test_alltoall_mutants_both_replays(tmp_path: Path) -> None:
    path = ATTACHED / SMALL[1][0]
    m = machine("NDv2", 2, SMALL[1][2])
    data = load(path)
    paths_key = next(k for k in data if k.lower().endswith("chunk paths"))
    key, paths = next((k, p) for k, p in data[paths_key].items() if len(p[0]) >= 2)
    first = paths[0][0][1]
    words = key.split()  # "Demand at D for chunk C from S met by epoch K"
    hop = f"Chunk {words[5]} from {words[7]} traveled over {first}"
    assert hop in data["6-Flows"]
    cut = json.loads(json.dumps(data))
    cut[paths_key][key] = [paths[0][1:], *paths[1:]]
    cut["6-Flows"].remove(hop)  # the relay now forwards a chunk it never got
    more = json.loads(json.dumps(data))
    more["6-Flows"].append(hop.replace("volume 1.0", "volume 0.5"))  # flows and paths differ
    for mutant, expected in ((cut, "sends"), (more, "chunk paths")):
        r = replay(mutant, m)
        assert not r.exact
        assert any(expected in x for x in r.errors + r.mismatches + r.chunk_errors)
        file = tmp_path / "mutant.json.gz"
        file.write_bytes(gzip.compress(json.dumps(mutant).encode()))
        assert gossipcert_exact(file)[0] == (
            not r.errors and r.epochs == mutant["3-Epochs_Required"]
        )
