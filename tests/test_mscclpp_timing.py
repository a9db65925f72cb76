"""MSCCL++ plans timed on machines: thread-block order, signals after their data, packets on
the wire, the plan's own message sizes, and the machines the plans are written for."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from gossipcert import graphs
from gossipcert.cli import main
from gossipcert.constructions.collectives import ring_allgather
from gossipcert.errors import GossipcertError, SpecError
from gossipcert.formats.mscclpp_plan import parse_mscclpp_plan
from gossipcert.formats.mscclpp_replay import synchronise
from gossipcert.formats.mscclpp_timing import plan_ops
from gossipcert.formats.mscclpp_writer import mscclpp_plan_from_schedule
from gossipcert.formats.time_verdict import time_algorithm
from gossipcert.graphs.links import LINKS
from gossipcert.instance import parse_instance


def _write(folder: Path, name: str, text: str) -> str:
    path = folder / name
    path.write_text(text)
    return str(path)


@pytest.mark.parametrize("n", range(3, 9))
def test_rounds_wait_for_each_other(n: int, tmp_path: Path) -> None:
    """A plan written from an ``R``-round schedule (a start handshake, then per round a put,
    a signal once it has arrived, a wait) takes ``alpha + R (u + 2 alpha)`` on a ring of
    links of one unit a time unit: the rounds run one after the other."""
    inst = parse_instance(f"ring:{n}", "all-port", "gossip")
    sched = ring_allgather(inst, range(n))
    path = _write(tmp_path, "p.json", mscclpp_plan_from_schedule(sched, inst))
    for alpha, unit in ((1.0, 1.0), (0.5, 8.0), (0.001, 1000.0)):
        report = time_algorithm(
            path, "mscclpp-plan", f"ring:{n}", [unit * n], alpha=alpha, discrete=False
        )
        expected = alpha + len(sched) * (unit + 2 * alpha)
        assert report.rows[0].time == pytest.approx(expected)
        assert report.rows[0].time >= report.rows[0].bound


def _packet_allgather(min_size: int | None = None, max_size: int | None = None) -> str:
    """Two GPUs: each puts its chunk into the other's scratch as packets and unpacks the
    other's (the shape of MSCCL++'s transfer_pack test plan)."""
    gpus = []
    for r in (0, 1):
        gpus.append(
            {
                "id": r,
                "input_chunks": 1,
                "output_chunks": 2,
                "scratch_chunks": 2,
                "channels": [{"channel_type": "memory", "connected_to": [1 - r]}],
                "remote_buffers": [
                    {"rank": 1 - r, "type": "s", "access_channel_types": ["memory"]}
                ],
                "semaphores": [],
                "threadblocks": [
                    {
                        "id": 0,
                        "ops": [
                            {
                                "name": "ppkt",
                                "src_buff": [{"type": "o", "index": r, "size": 1}],
                                "dst_buff": [{"buffer_id": 0, "index": r, "size": 1}],
                                "channel_type": "memory",
                            }
                        ],
                        "channels": [{"channel_type": "memory", "channel_ids": [0]}],
                        "remote_buffer_refs": [
                            {"access_channel_type": "memory", "remote_buffer_ids": [0]}
                        ],
                    },
                    {
                        "id": 1,
                        "ops": [
                            {
                                "name": "upkt",
                                "src_buff": [{"type": "s", "index": 1 - r, "size": 1}],
                                "dst_buff": [{"type": "o", "index": 1 - r, "size": 1}],
                            }
                        ],
                        "channels": [],
                        "remote_buffer_refs": [],
                    },
                ],
            }
        )
    plan: dict[str, Any] = {
        "name": "packets",
        "collective": "allgather",
        "protocol": "LL",
        "inplace": True,
        "gpus": gpus,
    }
    if min_size is not None:
        plan["min_message_size"] = min_size
    if max_size is not None:
        plan["max_message_size"] = max_size
    return json.dumps(plan)


def test_packets_twice_on_the_wire(tmp_path: Path) -> None:
    path = _write(tmp_path, "pkt.json", _packet_allgather())
    link = LINKS["xgmi-mi300x"]
    size = float(1 << 26)  # the whole output: a chunk of half of it each way
    report = time_algorithm(path, "mscclpp-plan", "mi300x:2", [size], discrete=False)
    assert report.reason is None
    assert report.rows[0].time == pytest.approx(link.alpha + size / link.bandwidth)
    assert any("16 bytes for every 8" in note for note in report.notes)
    plain = time_algorithm(path, "mscclpp-plan", "fully-connected:2", [8.0], discrete=False)
    assert plain.rows[0].time == pytest.approx(4.0)  # no wire format without units


def test_declared_sizes(tmp_path: Path) -> None:
    path = _write(tmp_path, "sized.json", _packet_allgather(1024, 65536))
    plan = parse_mscclpp_plan(Path(path).read_text())
    assert (plan.min_bytes, plan.max_bytes) == (1024, 65536)
    report = time_algorithm(path, "mscclpp-plan", "mi300x:2", None, discrete=False)
    # the plan counts a rank's input; an allgather's message is the whole output (2 ranks)
    assert [row.size for row in report.rows] == [2048.0, 4096.0, 16384.0, 65536.0, 131072.0]
    unbounded = parse_mscclpp_plan(_packet_allgather(0, 2**64 - 1))
    assert (unbounded.min_bytes, unbounded.max_bytes) == (None, None)
    with pytest.raises(GossipcertError, match="max_message_size"):
        parse_mscclpp_plan(_packet_allgather(0, -1))


def test_switch_operations_not_timed() -> None:
    ops = [
        {"name": "glres", "channel_type": "switch", "reduce_op": "sum",
         "src_buff": [{"switch_channel_id": 0, "index": 0, "size": 1}],
         "dst_buff": [{"switch_channel_id": 0, "index": 0, "size": 1}]},
    ]  # fmt: skip
    gpus = [
        {
            "id": r,
            "input_chunks": 2,
            "output_chunks": 2,
            "scratch_chunks": 0,
            "channels": [
                {
                    "channel_type": "switch",
                    "buffer_type": "i",
                    "rank_groups": [{"size": 2, "ranks": [0, 1]}],
                }
            ],
            "remote_buffers": [],
            "semaphores": [],
            "threadblocks": [
                {
                    "id": 0,
                    "ops": ops,
                    "channels": [{"channel_type": "switch", "channel_ids": [0]}],
                    "remote_buffer_refs": [],
                }
            ],
        }
        for r in (0, 1)
    ]
    text = json.dumps(
        {"name": "n", "collective": "allreduce", "protocol": "Simple", "inplace": True,
         "gpus": gpus}
    )  # fmt: skip
    with pytest.raises(GossipcertError, match="NVSwitch operations"):
        plan_ops(synchronise(parse_mscclpp_plan(text)))


def test_two_gpus_of_a_box() -> None:
    g = graphs.from_spec("ndv5:1:gpus=2")
    assert len(graphs.processors(g)) == 2 and len(graphs.routers(g)) == 1
    assert g.graph["spec"] == "ndv5:1:gpus=2"
    big = graphs.from_spec("ndv5:2:gpus=4")
    assert len(graphs.processors(big)) == 8
    assert big[0][8]["bandwidth"] == graphs.from_spec("ndv5:2")[0][16]["bandwidth"]
    for bad in ("ndv5:1:gpus=9", "ndv5:1:gpus=0", "ndv5:1:gpu=2", "ndv5:1:gpus=x"):
        with pytest.raises(SpecError):
            graphs.from_spec(bad)


def test_command_times_a_plan(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Timed like the other formats; on the box the plan is valid but does not fit the
    round model (its GPUs meet only through the switch): exit 1, the time given."""
    path = _write(tmp_path, "pkt.json", _packet_allgather(1024, 4096))
    args = ["verify", "--from", "mscclpp-plan", path, "--topology", "ndv5:1:gpus=2"]
    with pytest.raises(SystemExit) as info:
        main([*args, "--time-limit", "20", "--json"])
    assert info.value.code == 1
    report = json.loads(capsys.readouterr().out)
    assert report["valid"] and not report["fits_model"]
    timed = report["time"]
    assert timed["machine"] == "ndv5:1:gpus=2" and timed["timed"]
    assert [row["size"] for row in timed["sizes"]] == [2048.0, 4096.0, 8192.0]
    assert all(row["time"] >= row["bound"] for row in timed["sizes"])
