"""Pictures of schedules: only verified schedules are drawn, layouts keep nodes apart."""

from __future__ import annotations

import itertools
import json
import math
import os
import stat
from pathlib import Path

import pytest
from typer.testing import CliRunner

from gossipcert import graphs, plot
from gossipcert.certificates.certificate import build_certificate
from gossipcert.cli import app
from gossipcert.constructions.rings import ring_full_duplex, ring_half_duplex
from gossipcert.instance import parse_instance
from gossipcert.schedule import Schedule, write_schedule
from gossipcert.search.entry import solve
from gossipcert.simulate import simulate
from gossipcert.store import certificate_text

runner = CliRunner()


@pytest.fixture
def ring_hd(tmp_path: Path) -> Path:
    inst = parse_instance("ring:6", "half-duplex:p=1", "gossip")
    path = tmp_path / "ring6-hd.json"
    write_schedule(ring_half_duplex(inst), inst, path)
    return path


def draw(*args: str) -> tuple[int, str, str]:
    res = runner.invoke(app, ["draw", *args])
    return res.exit_code, res.stdout, res.stderr


def test_draw_schedule_png_and_svg(ring_hd: Path, tmp_path: Path) -> None:
    spec = ["-g", "ring:6", "-m", "half-duplex:p=1", "-p", "gossip"]
    png, svg = tmp_path / "a.png", tmp_path / "a.svg"
    assert draw(str(ring_hd), *spec, "-o", str(png))[0] == 0
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert draw(str(ring_hd), *spec, "-o", str(svg))[0] == 0
    text = svg.read_text()
    assert "<svg" in text and "round 10" in text and "round 11" not in text  # 2(n-1) panels
    knowledge = tmp_path / "k.svg"
    assert draw(str(ring_hd), *spec, "--knowledge", "-o", str(knowledge))[0] == 0
    assert "demands met" in knowledge.read_text()
    # rounds 2-3 only
    part = tmp_path / "part.svg"
    assert draw(str(ring_hd), *spec, "--rounds", "2-3", "-o", str(part))[0] == 0
    assert "round 3" in part.read_text() and "round 4" not in part.read_text()


def test_draw_more_columns_than_panels(tmp_path: Path) -> None:
    # --columns 99999999999 asked matplotlib for that many axes: a MemoryError traceback
    inst = parse_instance("ring:6", "half-duplex:p=1", "gossip")
    fig = plot.draw_rounds(inst, ring_half_duplex(inst), first=2, last=4, columns=99_999_999_999)
    assert len(fig.axes) == 3


def test_draw_refuses_what_the_verifier_rejects(tmp_path: Path) -> None:
    inst = parse_instance("ring:6", "half-duplex:p=1", "gossip")
    bad = tmp_path / "fd.json"
    write_schedule(ring_full_duplex(inst), inst, bad)  # sends and receives at once
    assert not simulate(inst, ring_full_duplex(inst)).ok
    out = tmp_path / "bad.png"
    code, _, err = draw(str(bad), "-g", "ring:6", "-m", "half-duplex:p=1", "-o", str(out))
    assert code == 2 and "does not pass the verifier" in err
    assert len(err.strip().splitlines()) == 1 and not out.exists()
    short = tmp_path / "short.json"
    write_schedule(Schedule(ring_half_duplex(inst).rounds[:3]), inst, short)
    code, _, err = draw(str(short), "-g", "ring:6", "-m", "half-duplex:p=1", "-o", str(out))
    assert code == 2 and "demands unmet" in err and not out.exists()


def test_draw_certificate(tmp_path: Path) -> None:
    res = solve(parse_instance("ccc:3", "telephone", "broadcast:0"))
    assert res.status == "optimal"
    cert = tmp_path / "c.cert.json"
    cert.write_text(certificate_text(build_certificate(res)))
    out = tmp_path / "c.svg"
    assert draw(str(cert), "-o", str(out))[0] == 0
    assert f"round {res.optimum}" in out.read_text()
    code, _, err = draw(str(cert), "-g", "ccc:3", "-o", str(tmp_path / "d.svg"))
    assert code == 2 and "carries its own graph" in err


def test_draw_keeps_existing_files_and_checks_suffix(ring_hd: Path, tmp_path: Path) -> None:
    out = tmp_path / "mine.png"
    out.write_text("keep me")
    code, _, err = draw(str(ring_hd), "-g", "ring:6", "-m", "half-duplex:p=1", "-o", str(out))
    assert code == 2 and "--force" in err and out.read_text() == "keep me"
    code, _, err = draw(str(ring_hd), "-g", "ring:6", "-o", str(tmp_path / "x.pdf"))
    assert code == 2 and ".png or .svg" in err
    code, _, err = draw(str(ring_hd), "-o", str(tmp_path / "y.png"))
    assert code == 2 and "--graph" in err
    missing = tmp_path / "nope.json"
    code, _, err = draw(str(missing), "-g", "ring:6", "-o", str(tmp_path / "z.png"))
    assert code == 2 and "does not exist" in err
    # --force onto a named pipe: it was replaced by the picture
    pipe = tmp_path / "pipe.png"
    os.mkfifo(pipe)
    spec = ["-g", "ring:6", "-m", "half-duplex:p=1"]
    code, _, err = draw(str(ring_hd), *spec, "--force", "-o", str(pipe))
    assert code == 2 and "not a regular file" in err and stat.S_ISFIFO(pipe.stat().st_mode)


@pytest.mark.parametrize(
    "spec",
    [
        "ring:8",
        "path:5",
        "mesh:3x4",
        "torus:3x3",
        "fattree:8",
        "hypercube:3",
        "hypercube:4",
        "ccc:3",
        "ccc:4",
        # no family layout: Kamada-Kawai, which needs scipy
        "petersen",
        "debruijn:5",
    ],
)
def test_layouts_keep_nodes_apart(spec: str) -> None:
    g = graphs.from_spec(spec)
    pos = plot.layout(g)
    assert sorted(pos) == list(range(g.number_of_nodes()))
    edges = sorted(math.dist(pos[u], pos[v]) for u, v in g.edges)
    median_edge = edges[len(edges) // 2]
    closest = min(math.dist(a, b) for a, b in itertools.combinations(pos.values(), 2))
    assert closest > 0.3 * median_edge, (spec, closest, median_edge)


def test_a_large_graph_without_a_family_layout_is_laid_out() -> None:
    """Above 200 nodes the spring layout; above 500 networkx runs it on scipy's sparse
    matrices (draw ended in ModuleNotFoundError before scipy was a dependency)."""
    g = graphs.from_spec("random:600,1200,seed=1")
    pos = plot.layout(g)
    assert sorted(pos) == list(range(600))
    assert len(set(pos.values())) == 600


def test_family_layouts() -> None:
    ring = plot.layout(graphs.from_spec("ring:4"))
    assert all(math.isclose(math.hypot(*p), 1.0) for p in ring.values())
    assert plot.layout(graphs.from_spec("mesh:2x3"))[5] == (2.0, -1.0)
    tree = plot.layout(graphs.from_spec("fattree:4"))
    assert tree[6][1] > tree[4][1] > tree[0][1]  # root above routers above leaves


def test_knowledge_replay_matches_the_verifier() -> None:
    inst = parse_instance("ring:7", "half-duplex:p=1", "gossip")
    sched = ring_half_duplex(inst)
    know = plot.knowledge_by_round(inst, sched)
    assert know[0] == list(inst.holdings)
    assert know[-1] == simulate(inst, sched).knowledge
    full = (1 << 7) - 1
    assert all(k == full for k in know[-1]) and any(k != full for k in know[-2])


def test_certificate_json_is_not_mistaken_for_a_schedule(tmp_path: Path) -> None:
    path = tmp_path / "s.json"
    path.write_text(json.dumps({"format": "gossipcert-schedule/1", "rounds": "x"}))
    code, _, err = draw(str(path), "-g", "ring:4", "-o", str(tmp_path / "s.png"))
    assert code == 2 and len(err.strip().splitlines()) == 1
