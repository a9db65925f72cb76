"""Sweeps, the certificate store and the result tables: resume after SIGKILL, reruns that
solve nothing, the same table through a Dask cluster, and check --all."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest
from typer.testing import CliRunner

from gossipcert import tables
from gossipcert.cli import app
from gossipcert.instance import parse_instance
from gossipcert.store import Store, atomic_write, canonical_form, instance_key
from gossipcert.tables import evaluation

runner = CliRunner()

SMALL = """\
name = "small"
time_limit = 60
[[group]]
graphs = ["ring:{n}", "path:{n}"]
sizes = [4, 5]
models = ["telephone", "half-duplex"]
problems = ["gossip", "broadcast:0"]
[[group]]
graphs = ["ring:3*path:2", "path:2*ring:3"]
models = ["telephone"]
problems = ["gossip"]
"""

#: half-duplex gossip needs the solver and a DRAT proof on every one of these
RESUME = """\
name = "resume"
time_limit = 120
[[group]]
graphs = ["ring:{n}", "path:{n}"]
sizes = [4, 5, 6, 7, 8]
models = ["half-duplex"]
problems = ["gossip"]
[[group]]
graphs = ["complete:{n}"]
sizes = [4, 5, 6]
models = ["half-duplex"]
problems = ["gossip"]
"""

#: columns that differ between two runs of the same sweep (wall-clock time)
TIMING = ["seconds"]


def sweep_file(folder: Path, text: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "sweep.toml"
    path.write_text(text)
    return path


def frame(path: Path) -> pd.DataFrame:
    return pd.read_csv(path, keep_default_na=False).drop(columns=TIMING)


def test_canonical_key_ignores_node_names_only() -> None:
    key = lambda g, m="telephone", p="gossip": instance_key(parse_instance(g, m, p))  # noqa: E731
    assert key("ring:3*path:2") == key("path:2*ring:3")
    assert key("ring:6", p="broadcast:0") == key("ring:6", p="broadcast:3")
    assert key("path:6", p="broadcast:0") != key("path:6", p="broadcast:2")  # end vs middle
    assert key("ring:6") != key("path:6")
    assert key("ring:6") != key("ring:6", m="half-duplex")
    assert key("ring:6") != key("ring:6", p="total-exchange")
    # routers are coloured, and unequal capacities change the key
    assert key("fattree:4", "all-port") != key("fattree:4:exp", "all-port")
    assert key("fattree:4", "all-port") != key("complete:7", "all-port")
    form = canonical_form(parse_instance("fattree:4:exp", "all-port", "gossip"))
    assert form["capacity"] is None and form["n"] == 7 + 6  # six edges, subdivided


def test_atomic_write_replaces_whole_file(tmp_path: Path) -> None:
    target = tmp_path / "x.json"
    atomic_write(target, "old")
    atomic_write(target, "new")
    assert target.read_text() == "new"
    assert [p.name for p in tmp_path.iterdir()] == ["x.json"]  # no temporary file left


def test_atomic_write_leaves_a_special_file_alone(tmp_path: Path) -> None:
    # the replacement removed a device or pipe (--force -o /dev/full, as root, put a text file
    # in its place)
    import os
    import stat

    from gossipcert.errors import GossipcertError

    pipe = tmp_path / "pipe.json"
    os.mkfifo(pipe)
    with pytest.raises(GossipcertError, match="not a regular file"):
        atomic_write(pipe, "text")
    assert stat.S_ISFIFO(pipe.stat().st_mode)
    assert [p.name for p in tmp_path.iterdir()] == ["pipe.json"]


def test_sweep_rows_and_rerun_solves_nothing(tmp_path: Path) -> None:
    sweep = tables.read_sweep(sweep_file(tmp_path, SMALL))
    assert len(sweep.specs) == 18
    first = tables.run_sweep(sweep, progress=False)
    # the two spellings of the prism share one canonical key: solved once
    assert first == {"instances": 18, "tasks": 18, "solved": 17}
    df = tables.table(sweep)
    tables.write_tables(sweep, df)
    got = {
        (r.graph, r.model, r.problem): (r.status, r.optimum, r.evidence) for r in df.itertuples()
    }
    assert got["ring:5", "telephone", "gossip"] == ("optimal", 4, "closed-form")
    assert got["ring:5", "half-duplex", "gossip"] == ("optimal", 6, "drat")
    assert got["path:5", "half-duplex", "gossip"] == ("optimal", 6, "drat")
    assert got["path:2*ring:3", "telephone", "gossip"] == ("optimal", 3, "closed-form")
    row = df.set_index(["graph", "model", "problem"]).loc[("ring:5", "telephone", "gossip")]
    assert (row.lower_bound, row.lower_bound_name) == (4, "telephone-gossip")
    assert "ring-hd=10" in row.constructions and row.heuristic == 4
    assert (tmp_path / row.certificate).is_file()
    second = tables.run_sweep(tables.read_sweep(tmp_path / "sweep.toml"), progress=False)
    assert second == {"instances": 18, "tasks": 0, "solved": 0}
    pd.testing.assert_frame_equal(tables.table(sweep), df)
    md = (tmp_path / "small.md").read_text()
    assert "| ring:5 | half-duplex | gossip | 5 |" in md and "**6** (optimal) | drat" in md


def test_timeout_is_not_an_optimum_and_is_retried_with_more_time(tmp_path: Path) -> None:
    text = (
        'name = "t"\ntime_limit = 0.001\n[[group]]\ngraphs = ["ring:5"]\n'
        'models = ["half-duplex"]\nproblems = ["gossip"]\n'
    )
    sweep = tables.read_sweep(sweep_file(tmp_path, text))
    tables.run_sweep(sweep, progress=False)
    row = tables.table(sweep).iloc[0]
    # the limit holds: the search is stopped at once, with at most the bounds known then
    assert row.status in ("feasible", "unknown") and pd.isna(row.optimum)
    assert row.certificate is None
    assert row.status == "unknown" or (row.lower, row.upper) == (4, 6)  # bounds, no answer
    assert tables.run_sweep(sweep, progress=False)["solved"] == 0  # same limit: kept
    sweep.time_limit = 60
    assert tables.run_sweep(sweep, progress=False)["solved"] == 1
    assert tables.table(sweep).iloc[0].status == "optimal"


def test_killed_sweep_resumes_with_the_rows_of_an_uninterrupted_run(tmp_path: Path) -> None:
    whole = sweep_file(tmp_path / "whole", RESUME)
    assert runner.invoke(app, ["table", str(whole), "-q"]).exit_code == 0
    cut = sweep_file(tmp_path / "cut", RESUME)
    store = tmp_path / "cut" / "store"
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    cmd = [sys.executable, "-m", "gossipcert.cli", "table", str(cut), "-q"]
    proc = subprocess.Popen(cmd, env=env, start_new_session=True)
    entries = lambda: [p for p in store.glob("*.json") if not p.name.endswith(".cert.json")]  # noqa: E731
    deadline = time.monotonic() + 120
    while len(entries()) < 3 and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.002)
    os.killpg(proc.pid, signal.SIGKILL)
    assert proc.wait() == -signal.SIGKILL
    done = len(entries())
    assert 3 <= done < 13, done  # killed half-way
    assert not (tmp_path / "cut" / "resume.csv").exists()
    res = runner.invoke(app, ["table", str(cut), "-q", "--json"])
    assert res.exit_code == 0, res.stderr
    stats = json.loads(res.stdout)
    assert stats["tasks"] == 13 - done and stats["certified"] == 13
    a, b = frame(tmp_path / "whole" / "resume.csv"), frame(tmp_path / "cut" / "resume.csv")
    assert len(b) == 13 and not b.duplicated(["graph", "model", "problem"]).any()
    pd.testing.assert_frame_equal(a, b)
    # and a second run does no solving at all
    again = json.loads(runner.invoke(app, ["table", str(cut), "-q", "--json"]).stdout)
    assert (again["tasks"], again["solved"]) == (0, 0)


def test_dask_local_cluster_gives_the_same_table(tmp_path: Path) -> None:
    distributed = pytest.importorskip("dask.distributed")
    local = sweep_file(tmp_path / "local", SMALL)
    assert runner.invoke(app, ["table", str(local), "-q"]).exit_code == 0
    remote = sweep_file(tmp_path / "remote", SMALL)
    with distributed.LocalCluster(
        n_workers=1, threads_per_worker=1, processes=False, dashboard_address=None
    ) as cluster:
        res = runner.invoke(
            app, ["table", str(remote), "-q", "--json", "--scheduler", cluster.scheduler_address]
        )
    assert res.exit_code == 0, res.stderr
    assert json.loads(res.stdout)["solved"] == 17
    pd.testing.assert_frame_equal(
        frame(tmp_path / "local" / "small.csv"), frame(tmp_path / "remote" / "small.csv")
    )


def test_from_store_and_check_all(tmp_path: Path) -> None:
    path = sweep_file(tmp_path, SMALL)
    res = runner.invoke(app, ["table", str(path), "--from-store", "--json"])
    assert res.exit_code == 1  # nothing run yet: every row missing, and said so
    assert json.loads(res.stdout)["missing"] == 18
    assert runner.invoke(app, ["table", str(path), "-q"]).exit_code == 0
    res = runner.invoke(app, ["table", str(path), "--from-store", "--json"])
    assert res.exit_code == 0 and json.loads(res.stdout)["certified"] == 18
    store = Store(tmp_path / "store")
    certs = store.certificates()
    assert len(certs) == 17
    res = runner.invoke(app, ["check", "--all", str(store.root), "--json"])
    assert res.exit_code == 0, res.stdout
    counts = {"holds": 17, "fails": 0, "timeout": 0, "unproved": 0}
    assert json.loads(res.stdout)["counts"] == counts
    forged = json.loads(certs[0].read_text())
    forged["optimum"] -= 1
    certs[0].write_text(json.dumps(forged))
    res = runner.invoke(app, ["check", "--all", str(store.root), "--json"])
    assert res.exit_code == 1
    assert json.loads(res.stdout)["counts"]["fails"] == 1


def test_bad_sweep_files_are_one_line_and_exit_2(tmp_path: Path) -> None:
    cases = {
        "name = 3\n[[group]]\n": "'name'",
        'name = "x"\n': "[[group]]",
        'name = "x"\n[[group]]\ngraphs = ["ring:{n}"]\nmodels = ["telephone"]\n'
        'problems = ["gossip"]\n': "no 'sizes'",
        'name = "x"\n[[group]]\ngraphs = ["ring:2"]\nmodels = ["telephone"]\n'
        'problems = ["gossip"]\n': "ring:2",
        'name = "x"\ncolour = 1\n': "unknown key",
        "name = [": "not valid TOML",
    }
    for i, (text, needle) in enumerate(cases.items()):
        path = tmp_path / f"bad{i}.toml"
        path.write_text(text)
        res = runner.invoke(app, ["table", str(path)])
        assert res.exit_code == 2, (text, res.stdout)
        assert needle in res.stderr and len(res.stderr.strip().splitlines()) == 1


def test_tables_not_written_by_gossipcert_are_not_replaced(tmp_path: Path) -> None:
    path = sweep_file(tmp_path, SMALL)
    (tmp_path / "small.md").write_text("my notes\n")
    res = runner.invoke(app, ["table", str(path), "-q"])
    assert res.exit_code == 2 and "--force" in res.stderr
    assert (tmp_path / "small.md").read_text() == "my notes\n"
    assert not (tmp_path / "store").exists() or not any((tmp_path / "store").iterdir())


def test_plot_of_optima_against_bounds(tmp_path: Path) -> None:
    path = sweep_file(tmp_path, SMALL)
    picture = tmp_path / "small.svg"
    res = runner.invoke(app, ["table", str(path), "-q", "--plot", str(picture)])
    assert res.exit_code == 0, res.stderr
    text = picture.read_text()
    # one panel per family x model x problem with two sizes: ring and path, 2 models, 2 problems
    assert (
        text.count("ring · half-duplex · gossip") == 1 and "path · telephone · broadcast:0" in text
    )
    assert "certified optimum" in text
    assert text.count("<!-- nodes n -->") == 8  # the prism (a product) is no family: no panel
    res = runner.invoke(app, ["table", str(path), "-q", "--plot", str(tmp_path / "x.pdf")])
    assert res.exit_code == 2 and ".png or .svg" in res.stderr


def test_a_damaged_entry_is_run_again_not_trusted(tmp_path: Path) -> None:
    text = 'name = "d"\n[[group]]\ngraphs = ["ring:{n}"]\nsizes = [5, 6]\n'
    text += 'models = ["half-duplex"]\nproblems = ["gossip"]\n'
    sweep = tables.read_sweep(sweep_file(tmp_path, text))
    assert tables.run_sweep(sweep, progress=False)["solved"] == 2
    store = Store(sweep.store)
    entry = next(p for p in sorted(store.root.glob("*_n5_*.json")) if ".cert" not in p.name)
    entry.write_text(entry.read_text()[:40])  # a torn file, as a crash without atomic writes leaves
    again = tables.run_sweep(sweep, progress=False)
    assert (again["tasks"], again["solved"]) == (1, 1)
    assert list(tables.table(sweep)["optimum"]) == [6, 6]


def test_bad_scheduler_address_is_one_line(tmp_path: Path) -> None:
    pytest.importorskip("dask.distributed")
    res = runner.invoke(app, ["table", str(sweep_file(tmp_path, SMALL)), "--scheduler", "nonsense"])
    assert res.exit_code == 2 and "cannot reach the Dask scheduler" in res.stderr
    assert len(res.stderr.strip().splitlines()) == 1


def test_time_limit_is_per_instance_in_process(monkeypatch: pytest.MonkeyPatch) -> None:
    """A sweep solving in the command's process gives each instance its whole limit, even
    when the command started long before (the limit used to count from the command's start,
    so every instance after the first ones was killed at once)."""
    from gossipcert import command_start as clock

    monkeypatch.setattr(clock, "COMMAND_START", time.monotonic() - 1000.0)
    task = tables.Task("ring:6", "telephone", "gossip", True, 60.0, "sat")
    outcome = evaluation.evaluate(task)["outcome"]
    assert outcome["status"] == "optimal" and outcome["optimum"] == 3, outcome
    assert clock.COMMAND_START is not None  # restored after the instance


@pytest.mark.parametrize(
    ("text", "needle"),
    [
        # an empty file was told "'name' must be a plain file name"
        ("", "'name' is missing"),
        ('name = "../x"', "'name' must be a plain file name"),
    ],
)
def test_sweep_without_a_name(tmp_path: Path, text: str, needle: str) -> None:
    from gossipcert.errors import SpecError

    with pytest.raises(SpecError, match=needle):
        tables.read_sweep(sweep_file(tmp_path, text))
