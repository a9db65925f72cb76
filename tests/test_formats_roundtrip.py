"""Writing verified schedules as MSCCL XML and SCCL JSON and reading them back: the same
schedule, the same rounds, and a clean verdict, on rings, hubs, the DGX-1 and complete
graphs; and the command line of ``verify --from`` and ``export --format``."""

from __future__ import annotations

import json

import pytest

from gossipcert import graphs
from gossipcert.cli import main
from gossipcert.formats.msccl_xml import parse_msccl_xml
from gossipcert.formats.replay import replay
from gossipcert.formats.verdict import schedule_from_transfers, verify_algorithm
from gossipcert.formats.writers import msccl_xml_from_schedule
from gossipcert.instance import parse_instance
from gossipcert.schedule import Schedule, Transmission, write_schedule
from gossipcert.simulate import simulate
from gossipcert.watchdog import solve_within

CASES = [
    ("ring:5", "all-port", "gossip"),
    ("ring:4", "all-port", "total-exchange"),
    ("hub:4", "single-port", "gossip"),
    ("hub:4", "single-port", "total-exchange"),
    ("dgx1", "all-port", "gossip"),
    ("dgx1", "all-port", "gossip:chunks=2"),
    ("fully-connected:4", "all-port", "total-exchange:chunks=2"),
    ("complete:5", "all-port", "gossip"),
]


def _per_link(schedule: Schedule) -> list[set[tuple[int, int, int]]]:
    """Each round as the set of (sender, receiver, packet mask) per link."""
    out = []
    for rnd in schedule.rounds[: len(schedule)]:
        links: dict[tuple[int, int], int] = {}
        for tr in rnd:
            for v in tr.receivers:
                links[(tr.sender, v)] = links.get((tr.sender, v), 0) | tr.packets
        out.append({(u, v, m) for (u, v), m in links.items()})
    return out


@pytest.mark.parametrize(("graph", "model", "problem"), CASES)
def test_solve_export_read_back(graph, model, problem):
    instance = parse_instance(graph, model, problem)
    res = solve_within(instance, time_limit=60, proof=False)
    assert res.status == "optimal" and res.schedule is not None
    text = msccl_xml_from_schedule(res.schedule, instance)
    result = replay(parse_msccl_xml(text))
    assert result.valid, result.findings[:3]
    assert result.rounds == res.optimum
    back = schedule_from_transfers(instance, result.transfers, graphs.processors(instance.graph))
    rep = simulate(instance, back)
    assert rep.ok and rep.rounds == res.optimum
    # read back as soon as possible: the same chunks on the same links, none later
    assert _first_sends(back).keys() == _first_sends(res.schedule).keys()
    sent = _first_sends(res.schedule)
    assert all(t <= sent[key] for key, t in _first_sends(back).items())


def _first_sends(schedule: Schedule) -> dict[tuple[int, int, int], int]:
    """(sender, receiver, packet) -> the first round it crosses that link."""
    out: dict[tuple[int, int, int], int] = {}
    for t, links in enumerate(_per_link(schedule), start=1):
        for u, v, mask in links:
            for p in range(mask.bit_length()):
                if mask >> p & 1:
                    out.setdefault((u, v, p), t)
    return out


def test_tight_schedule_reads_back_identical():
    # the ring both ways round: every chunk moves as soon as it arrives
    n = 6
    instance = parse_instance(f"ring:{n}", "all-port", "gossip")
    rounds = []
    for t in range(n // 2):
        rnd = []
        for r in range(n):
            rnd.append(Transmission(r, ((r + 1) % n,), 1 << ((r - t) % n)))
            if t < n // 2 - 1 or n % 2:
                rnd.append(Transmission(r, ((r - 1) % n,), 1 << ((r + t) % n)))
        rounds.append(tuple(rnd))
    schedule = Schedule(tuple(rounds))
    assert simulate(instance, schedule).ok
    result = replay(parse_msccl_xml(msccl_xml_from_schedule(schedule, instance)))
    back = schedule_from_transfers(instance, result.transfers, list(range(n)))
    assert _per_link(back) == _per_link(schedule)


def test_verdict_gap_against_the_optimum(tmp_path):
    n = 5
    instance = parse_instance(f"ring:{n}", "all-port", "gossip")
    one_way = Schedule(
        tuple(
            tuple(Transmission(r, ((r + 1) % n,), 1 << ((r - t) % n)) for r in range(n))
            for t in range(n - 1)
        )
    )
    path = tmp_path / "one-way.xml"
    path.write_text(msccl_xml_from_schedule(one_way, instance))
    verdict = verify_algorithm(str(path), topology=f"ring:{n}", time_limit=60)
    assert verdict.valid and verdict.fits
    assert verdict.rounds == n - 1
    assert verdict.optimum["optimum"] == n // 2  # both ways round
    assert verdict.gap() == {"exact": n - 1 - n // 2}
    # on a hub the same algorithm is a single-port one: every GPU sends one chunk a round
    verdict = verify_algorithm(str(path), topology=f"hub:{n}", time_limit=60)
    assert verdict.fits and verdict.model == "single-port"
    assert verdict.optimum["optimum"] == n - 1 and verdict.gap() == {"exact": 0}
    # a topology without the links 0 -> 1 ... : not a link
    verdict = verify_algorithm(str(path), topology=f"path:{n}", time_limit=10, optimum=False)
    assert not verdict.fits and any(f.rule == "not-a-link" for f in verdict.model_findings)


def test_overloaded_links_compared_at_the_capacity_they_need(tmp_path):
    instance = parse_instance("fully-connected:4", "all-port:c=2", "gossip:chunks=2")
    everything = Schedule(
        (
            tuple(
                Transmission(r, (v,), 0b11 << (2 * r)) for r in range(4) for v in range(4) if v != r
            ),
        )
    )
    path = tmp_path / "direct.xml"
    path.write_text(msccl_xml_from_schedule(everything, instance))
    verdict = verify_algorithm(str(path), topology="fully-connected:4", time_limit=60)
    assert verdict.valid and not verdict.fits and verdict.needs_capacity == 2
    assert verdict.compared_model == "all-port:c=2"
    assert verdict.optimum["optimum"] == 1 and verdict.gap() == {"exact": 0}


def test_unknown_reduction_problem_is_unavailable(tmp_path):
    from tests.test_formats_msccl import ring_allreduce

    path = tmp_path / "ar.xml"
    path.write_text(ring_allreduce(4))
    verdict = verify_algorithm(str(path), topology="ring:4", time_limit=5)
    assert verdict.valid and verdict.rounds == 6
    assert verdict.problem == "allreduce"
    if not verdict.optimum["available"]:
        assert "allreduce" in verdict.optimum["reason"]


def _run(capsys, args):
    with pytest.raises(SystemExit) as info:
        main(args)
    out = capsys.readouterr()
    return info.value.code, out.out, out.err


def test_cli_export_and_verify(tmp_path, capsys):
    cert = tmp_path / "dgx1-cert.json"
    code, _, _ = _run(
        capsys, ["solve", "dgx1", "-m", "all-port", "-p", "gossip", "-q", "-o", str(cert)]
    )
    assert code == 0
    xml = tmp_path / "dgx1.xml"
    code, _, err = _run(capsys, ["export", str(cert), "--format", "msccl-xml", "-o", str(xml)])
    assert code == 0 and "wrote" in err
    code, out, _ = _run(
        capsys, ["verify", "--from", "msccl-xml", str(xml), "--topology", "dgx1", "--json"]
    )
    data = json.loads(out)
    assert code == 0 and data["valid"] and data["fits_model"]
    assert data["rounds"] == 2 and data["optimum"]["optimum"] == 2 and data["gap"] == {"exact": 0}
    # a plain schedule file with its instance on the command line, as SCCL JSON
    instance = parse_instance("ring:4", "all-port", "gossip")
    sched = tmp_path / "s.json"
    res = solve_within(instance, time_limit=30, proof=False)
    write_schedule(res.schedule, instance, sched)
    code, out, _ = _run(
        capsys,
        [
            "export",
            "ring:4",
            "--format",
            "sccl-json",
            "--schedule",
            str(sched),
            "-m",
            "all-port",
            "-p",
            "gossip",
        ],
    )
    assert code == 0 and json.loads(out)["msccl_type"] == "algorithm"


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        (["verify", "--from", "msccl-xml", "{bad}"], "not well-formed XML"),
        (["verify", "--from", "msccl-xml", "{none}"], "does not exist"),
        (["verify", "--from", "xml", "{bad}"], "unknown --from format"),
        (["verify", "--from", "msccl-xml", "{bad}", "-p", "gossip"], "takes one file"),
        (["export", "{bad}", "--format", "msccl-xml"], "not valid JSON"),
    ],
)
def test_cli_bad_input_is_one_line(tmp_path, capsys, args, fragment):
    bad = tmp_path / "bad.xml"
    bad.write_text("<algo ngpus='2'>\n<gpu>\n</algo>\n")
    args = [a.format(bad=bad, none=tmp_path / "none.xml") for a in args]
    code, _, err = _run(capsys, args)
    assert code == 2
    assert fragment in err and "Traceback" not in err
    assert len(err.strip().splitlines()) <= 2


def test_long_links_continue_on_further_channels():
    # a one-way ring of 70: every link is used in 69 rounds, more than the 64 steps a thread
    # block may hold; the export spreads them over two channels, in order
    n = 70
    instance = parse_instance(f"ring:{n}", "all-port", "gossip")
    one_way = Schedule(tuple(
        tuple(Transmission(r, ((r + 1) % n,), 1 << ((r - t) % n)) for r in range(n))
        for t in range(n - 1)
    ))  # fmt: skip
    algo = parse_msccl_xml(msccl_xml_from_schedule(one_way, instance))
    assert not algo.defects
    assert max(len(tb.steps) for g in algo.gpus for tb in g.tbs) <= 64
    assert algo.nchannels == 2
    result = replay(algo)
    assert result.valid and result.rounds == n - 1
    back = schedule_from_transfers(instance, result.transfers, list(range(n)))
    assert _per_link(back) == _per_link(one_way)


def test_lane_channel_moves_a_full_thread_block_and_refuses_past_the_channels() -> None:
    """A writer's send goes to channel ``group * width + index``; a thread block with fewer
    than ``spare`` steps left sends the lane to its next channel group; past the executor's
    32 channels the schedule cannot be written."""
    from collections import defaultdict

    import pytest

    from gossipcert.errors import FormatError
    from gossipcert.formats.msccl_xml import (
        EXECUTOR_MAX_CHANNELS,
        EXECUTOR_MAX_STEPS,
        lane_channel,
    )

    blocks: dict[tuple[object, ...], list[int]] = defaultdict(list)
    group: dict[tuple[int, int, int], int] = defaultdict(int)
    assert lane_channel(blocks, group, 2, (0, 1, 1), 3) == 1
    blocks[("send", 0, 1, 1)] = [0] * (EXECUTOR_MAX_STEPS - 3)
    assert lane_channel(blocks, group, 2, (0, 1, 1), 3) == 1  # still room
    blocks[("send", 0, 1, 1)].append(0)
    assert lane_channel(blocks, group, 2, (0, 1, 1), 3) == 3 and group[(0, 1, 1)] == 1
    group[(0, 1, 1)] = EXECUTOR_MAX_CHANNELS // 2
    with pytest.raises(FormatError, match="too many chunks from rank 0 to 1"):
        lane_channel(blocks, group, 2, (0, 1, 1), 3)
