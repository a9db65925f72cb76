"""``verify --from FORMAT FILE --topology MACHINE --size S``: an algorithm's time beside the
certified lower bound (the ring allreduce one way and both ways, with and without latency),
graphs without physical units, topology files with units, and bad input (exit 2, one line).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gossipcert.cli import main
from gossipcert.formats.msccl_examples import ring_allreduce_xml
from gossipcert.formats.time_verdict import time_algorithm

EXAMPLES = Path(__file__).resolve().parent.parent / "docs" / "examples"


def _run(capsys: pytest.CaptureFixture[str], args: list[str]) -> tuple[int, str, str]:
    with pytest.raises(SystemExit) as info:
        main(args)
    out = capsys.readouterr()
    return int(info.value.code or 0), out.out, out.err


@pytest.fixture(scope="module")
def rings(tmp_path_factory: pytest.TempPathFactory) -> dict[int, str]:
    folder = tmp_path_factory.mktemp("rings")
    paths = {}
    for directions in (1, 2):
        path = folder / f"ring-{directions}.xml"
        path.write_text(ring_allreduce_xml(8, directions))
        paths[directions] = str(path)
    return paths


def test_the_examples_are_the_generators_output() -> None:
    assert (EXAMPLES / "ring-allreduce-8-one-way.xml").read_text() == ring_allreduce_xml(8, 1)
    assert (EXAMPLES / "ring-allreduce-8-both-ways.xml").read_text() == ring_allreduce_xml(8, 2)


def test_one_way_ring_takes_twice_the_bound_both_ways_meets_it(rings: dict[int, str]) -> None:
    """Issue 50's must-show on ring:8 (unit bandwidth, no latency): at a large size the
    one-way ring allreduce takes twice the certified bound (one direction of every link
    idles), the two rings meet it; the bound is the receptions count (7/8 of the size) and
    the round model's certified optimum at the file's chunk count agrees."""
    one = time_algorithm(rings[1], topology="ring:8", sizes="1G", time_limit=60)
    both = time_algorithm(rings[2], topology="ring:8", sizes="1G", time_limit=60)
    for report in (one, both):
        assert report.machine.units is not None and "no physical units" in report.machine.units
        assert report.discrete.status == "optimal" and report.discrete.certified
        row = report.rows[0]
        assert row.bound == pytest.approx(7 / 8 * 2**30)
        assert row.binds == "bandwidth" and row.discrete == pytest.approx(row.bound)
    assert one.rows[0].ratio == pytest.approx(2.0)
    assert 1.0 <= both.rows[0].ratio <= 1.03


def test_with_a_latency_the_latency_part_binds_at_small_sizes(rings: dict[int, str]) -> None:
    report = time_algorithm(rings[2], topology="ring:8", sizes="1,1G", alpha=1.0, time_limit=60)
    small, large = report.rows
    assert small.binds == "latency" and small.bound == 4.0  # 4 links to the opposite rank
    assert small.time is not None and small.time >= small.bound
    assert large.binds == "bandwidth" and large.ratio is not None and large.ratio < 1.001


def test_cli_prints_time_bound_ratio_and_the_units(
    capsys: pytest.CaptureFixture[str], rings: dict[int, str]
) -> None:
    code, out, _ = _run(
        capsys, ["verify", "--from", "msccl-xml", rings[1], "--topology", "ring:8", "--size", "1M"]
    )
    assert code == 0
    assert "no physical units" in out and "time units" in out
    assert "1 MiB" not in out  # no bytes on a graph without units
    line = next(x for x in out.splitlines() if x.strip().startswith("1048576"))
    assert "2.000" in line and "bandwidth" in line
    code, out, _ = _run(
        capsys,
        ["verify", "--from", "msccl-xml", rings[2], "--topology", "ring:8", "--size", "4K,1M",
         "--json"],
    )  # fmt: skip
    data = json.loads(out)["time"]
    assert data["units"].startswith("no physical units")
    assert [r["size"] for r in data["sizes"]] == [4096.0, 1048576.0]
    assert {"time", "bound", "binds", "ratio", "latency_part", "bandwidth_part"} <= set(
        data["sizes"][0]
    )
    assert data["discrete_part"]["lower_bound"] == 14


def test_machine_in_bytes_and_seconds(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = tmp_path / "ring.xml"
    path.write_text(ring_allreduce_xml(8, 2, proto="LL"))
    report = time_algorithm(str(path), topology="dgx1", sizes="1K,256M", discrete=False)
    assert report.machine.units is None and report.wire == 2.0
    # rank r and r + 1 are not all linked on the DGX-1: routed over real links, listed
    assert report.routed and all(len(p) >= 3 for p in report.routed.values())
    small, large = report.rows
    assert large.passes > 1 and not large.discrete_applies
    assert small.time is not None and large.time is not None
    assert small.time >= small.bound and large.time >= large.bound


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        (["--size", "0"], "a size must be a positive number"),
        (["--size", "-4K"], "a size must be a positive number"),
        (["--size", "lots"], "a size must be a positive number"),
        (["--alpha", "0"], "a latency (--alpha) must be a positive number"),
        (["--alpha", "-1e-6"], "a latency (--alpha) must be a positive number"),
        (["--alpha", "nan"], "a latency (--alpha) must be a positive number"),
        (["--bandwidth", "0"], "a bandwidth (--bandwidth) must be a positive number"),
        (["--bandwidth", "inf"], "a bandwidth (--bandwidth) must be a positive number"),
        (["--switch", "teleport"], "unknown switch semantics"),
    ],
)
def test_bad_numbers_exit_2_with_one_line(
    capsys: pytest.CaptureFixture[str], rings: dict[int, str], args: list[str], fragment: str
) -> None:
    code, _, err = _run(
        capsys, ["verify", "--from", "msccl-xml", rings[1], "--topology", "ring:8", *args]
    )
    assert code == 2 and fragment in err and len(err.strip().splitlines()) == 1


@pytest.mark.parametrize(
    ("topology", "fragment"),
    [
        (None, "name the machine with --topology: a machine (dgx1"),
        ("dgx2", "the algorithm has 8 ranks but dgx2 has 16 GPUs"),
        ("a100:2", "the algorithm has 8 ranks but a100:2 has 16 GPUs"),
    ],
)
def test_no_machine_or_the_wrong_one_exits_2(
    capsys: pytest.CaptureFixture[str], rings: dict[int, str], topology: str | None, fragment: str
) -> None:
    args = ["verify", "--from", "msccl-xml", rings[1]]
    if topology is not None:
        args += ["--topology", topology]
    code, _, err = _run(capsys, args)
    assert code == 2 and fragment in err and len(err.strip().splitlines()) == 1


def test_bandwidth_of_a_machine_with_units_is_refused(
    capsys: pytest.CaptureFixture[str], rings: dict[int, str]
) -> None:
    code, _, err = _run(
        capsys,
        ["verify", "--from", "msccl-xml", rings[1], "--topology", "dgx1", "--bandwidth", "2"],
    )
    assert code == 2 and "its own link bandwidths" in err


def test_time_options_need_from(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, _, err = _run(capsys, ["verify", "ring:4", str(tmp_path / "s.json"), "--size", "1K"])
    assert code == 2 and "go with --from" in err


def test_taccl_profile_and_teccl_input_carry_their_units(tmp_path: Path) -> None:
    from gossipcert.graphs import from_spec

    profile = tmp_path / "topo-ndv2-1MB.json"
    profile.write_text(json.dumps({
        "name": "NDv2_1MB", "gpus_per_node": 8, "nics_per_node": 1, "alpha": 0.3,
        "node_betas_list": [23, 46], "node_invbws_list": [23, 46],
        "remote_invbw": 107, "remote_alpha": 2.6, "remote_beta": 105,
    }))  # fmt: skip
    g = from_spec(str(profile))
    assert g[0][1]["bandwidth"] == pytest.approx(1e12 / 23) and g[0][1]["capacity"] == 2
    assert g[0][2]["bandwidth"] == pytest.approx(1e12 / 46) and g[0][2]["capacity"] == 1
    assert g[0][1]["alpha"] == pytest.approx(0.3e-6)
    teccl = tmp_path / "amd.json"
    teccl.write_text(json.dumps({"TopologyParams": {"name": "AMD", "chassis": 2,
                                                    "alpha": [1e-6, 2e-6]}}))  # fmt: skip
    h = from_spec(str(teccl))
    assert h.number_of_nodes() == 49 and h[0][1]["alpha"] == 1e-6 and h[0][32]["alpha"] == 2e-6
    dgx2 = tmp_path / "dgx2.json"
    dgx2.write_text(json.dumps({"TopologyParams": {"name": "DGX2", "chassis": 2}}))
    with pytest.raises(Exception, match="send one way only"):
        from_spec(str(dgx2))


def test_draw_plots_a_time_report(
    capsys: pytest.CaptureFixture[str], rings: dict[int, str], tmp_path: Path
) -> None:
    code, out, _ = _run(
        capsys,
        ["verify", "--from", "msccl-xml", rings[1], "--topology", "ring:8", "--size", "8,8K",
         "--json"],
    )  # fmt: skip
    report = tmp_path / "report.json"
    report.write_text(out)
    picture = tmp_path / "time.png"
    code, _, err = _run(capsys, ["draw", str(report), "-o", str(picture)])
    assert code == 0 and picture.stat().st_size > 1000, err
    other = tmp_path / "other.png"
    code, _, err = _run(capsys, ["draw", str(report), "-o", str(other), "--knowledge"])
    assert code == 2 and "time against size" in err
