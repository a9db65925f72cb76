"""Hostile SCCL JSON, TE-CCL JSON and topology files: the hand-written ones of the red
team's report, and random mutations of valid files judged against independent replays
written here from the tools' own rules (SCCL's ``msccl/collectives.py`` and
``Algorithm.check_implements``; TE-CCL's flows and demands). Every answer is a verdict that
agrees, or a refusal in one line (exit 2); never "valid" for an algorithm whose
postcondition fails."""

from __future__ import annotations

import json
import re
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gossipcert import graphs
from gossipcert.cli import main
from gossipcert.errors import FormatError, GossipcertError
from gossipcert.formats.json_algorithms import read_sccl, read_teccl
from tests.hostile_files import (
    judge_on_full_mesh,
    mutate_json,
    sccl,
    sccl_allreduce_defined,
    sccl_reduce_scatter_defined,
    sccl_ring_allgather,
    sccl_ring_allreduce,
    teccl_ring,
)


# ------------------------------------------------------------------ independent replays
def _is_int(x: Any) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


def sccl_definition(name: str, n: int) -> list[tuple[list[int], list[int], int]]:
    """SCCL's ``msccl/collectives.py``: ``build_collective`` with ``_scattered``,
    ``_transpose``, ``_all`` and ``_single_scattered`` (one chunk a rank at address 0 for
    allreduce, ``n * n`` for alltoall and reduce_scatter)."""
    if name == "allgather":
        return [([c], list(range(n)), c) for c in range(n)]
    if name == "allreduce":
        return [([c], list(range(n)), c // n) for c in range(n)]
    if name == "alltoall":
        return [([c % n], [c // n], c) for c in range(n * n)]
    return [([c % n], [c // n], c // n) for c in range(n * n)]  # reduce_scatter


def sccl_judge(data: Any) -> str:
    """ "valid", "invalid" or "malformed": the algorithm run as SCCL's check runs it (a send
    moves what the sender holds at the address at the start of the step), a receive being a
    copy when it brings all the receiver holds there and a sum otherwise (two partial
    results sharing a chunk: invalid), the runtime's collective being SCCL's definition."""
    try:
        assert data.get("msccl_type", data.get("sccl_type")) == "algorithm"  # SCCL's decoder
        coll, steps = data["collective"], data["steps"]
        n = coll["nodes"]
        assert _is_int(n) and 1 <= n <= 1024
        k = (data.get("instance") if isinstance(data.get("instance"), dict) else {}).get(
            "chunks", 1
        )
        k = 1 if k is None else k
        assert _is_int(k) and 1 <= k
        base = []
        for c, chunk in enumerate(coll["chunks"]):
            pre, post, addr = chunk["pre"], chunk["post"], chunk.get("addr", c)
            assert all(_is_int(r) and 0 <= r < n for r in pre + post) and pre and _is_int(addr)
            assert 0 <= addr < 2**31
            base.append((sorted(set(pre)), sorted(set(post)), addr))
        assert base and len(base) * k <= 1 << 16 and n * len(base) * k <= 1 << 21
        name = str(coll.get("runtime_name", "")).lower()
        name = name if name in ("allgather", "alltoall", "allreduce", "reduce_scatter") else None
        wrong = name is not None and sorted(base) != sorted(sccl_definition(name, n))
        chunks = [(set(p), set(q), a * k + i) for p, q, a in base for i in range(k)]
        held: dict[tuple[int, int], frozenset[int]] = {}
        for i, (pre, _, a) in enumerate(chunks):
            for r in pre:
                held[(r, a)] = held.get((r, a), frozenset()) | {i}
        addresses = {a for _, _, a in chunks}
        total = 0
        for step in steps:
            rounds = step.get("rounds", 1)
            assert _is_int(rounds) and rounds >= 1
            total += rounds
            assert total <= 100_000
            after = dict(held)
            for send in step["sends"]:
                assert isinstance(send, list) and len(send) == 3 and all(map(_is_int, send))
                a, src, dst = send
                assert 0 <= src < n and 0 <= dst < n and a in addresses
                moved = held.get((src, a), frozenset())
                mine = after.get((dst, a), frozenset())
                if not moved or (moved & mine and not moved >= mine):
                    wrong = True  # nothing to send, or neither a copy nor a sum is right
                after[(dst, a)] = moved if moved >= mine else mine | moved
            held = after
    except (AssertionError, KeyError, TypeError, AttributeError):
        return "malformed"
    for i, (_, post, a) in enumerate(chunks):
        wrong = wrong or any(i not in held.get((r, a), frozenset()) for r in post)
    return "invalid" if wrong else "valid"


_NUM = re.compile(r"(GPU|Chunk) ([0-9]{1,9})", re.ASCII)
_FLOW_TEXT = re.compile(
    r"Chunk ([0-9]{1,9}) from ([0-9]{1,9}) traveled over ([0-9]{1,9})->([0-9]{1,9})"
    r"(?: with volume [0-9.]+)? in epoch ([0-9]{1,9})",
    re.ASCII,
)


def teccl_judge(data: Any) -> str:
    """ "valid", "invalid" or "malformed": TE-CCL's allgather flows, epoch ``e`` after the
    epochs in which the chunk reached the sender; every demand met at the end."""
    try:  # a TE-CCL schedule, not an SCCL object nor a topology
        assert data.get("msccl_type", data.get("sccl_type")) not in ("algorithm", "topology")
        assert "capacity" not in data and "7-Flows" in data
        demand = data["6-Demand_Met"]
        wanted = set()
        for dk, sources in demand.items():
            d = _NUM.fullmatch(dk)
            assert d and d.group(1) == "GPU" and isinstance(sources, dict)
            for sk, pieces in sources.items():
                s = _NUM.fullmatch(sk)
                assert s and s.group(1) == "GPU" and isinstance(pieces, dict)
                for ck in pieces:
                    c = _NUM.fullmatch(ck)
                    assert c and c.group(1) == "Chunk" and int(c.group(2)) < 1 << 16
                    wanted.add((int(d.group(2)), int(s.group(2)), int(c.group(2))))
        assert wanted
        gpus = {x for d, s, _ in wanted for x in (d, s)}
        n = len(gpus)
        assert gpus == set(range(n)) and max(gpus, default=0) < 1024
        k = 1 + max((c for *_, c in wanted), default=0)
        assert n * n * k <= 1 << 21
        assert wanted == {(d, s, c) for d in range(n) for s in range(n) if s != d
                          for c in range(k)}  # fmt: skip
        moves = []
        for text in data["7-Flows"]:
            m = _FLOW_TEXT.match(text) if isinstance(text, str) else None
            assert m
            c, s, u, v, e = map(int, m.groups())
            assert all(x < n for x in (s, u, v)) and c < k and e < 100_000
            moves.append((e, s, c, u, v))
    except (AssertionError, KeyError, TypeError, AttributeError):
        return "malformed"
    since = {(s, c, s): -1 for s in range(n) for c in range(k)}
    wrong = False
    for e, s, c, u, v in sorted(moves):
        if since.get((s, c, u), e) >= e:
            wrong = True
        since[(s, c, v)] = min(since.get((s, c, v), e), e)
    wrong = wrong or any((s, c, d) not in since for d, s, c in wanted)
    return "invalid" if wrong else "valid"


# ------------------------------------------------------------------ gossipcert's answers
def _answer(text: str, fmt: str) -> tuple[str, str]:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "f.json"
        path.write_text(text, encoding="utf-8")
        try:
            verdict = judge_on_full_mesh(str(path), fmt)
        except GossipcertError as exc:
            message = str(exc)
            assert message and "\n" not in message, message
            return "refused", message
    return ("valid" if verdict.valid else "invalid" if verdict.judged else "not judged"), ""


def agrees(text: str, fmt: str) -> str:
    kind, message = _answer(text, fmt)
    ref = (sccl_judge if fmt == "sccl-json" else teccl_judge)(json.loads(text))
    if kind == "refused":
        assert ref != "valid", f"refused what the tool's own rules call valid: {message}"
    else:
        assert kind == ref, (kind, ref)
    return kind


def _cli(capsys: pytest.CaptureFixture[str], path: Path, fmt: str) -> tuple[int, str]:
    with pytest.raises(SystemExit) as info:
        main(["verify", "--from", fmt, str(path), "--time-limit", "5"])
    return int(info.value.code or 0), capsys.readouterr().err


# ------------------------------------------------------------------ the report's files
def test_valid_bases_agree() -> None:
    assert agrees(sccl_ring_allgather(4), "sccl-json") == "valid"
    assert agrees(sccl_ring_allreduce(3), "sccl-json") == "valid"
    assert agrees(teccl_ring(4), "teccl-json") == "valid"


@pytest.mark.parametrize("n", [4])
def test_an_allreduce_that_moves_nothing_is_not_valid(n: int) -> None:
    """SCCL allreduce on 4 ranks with ``"steps": []`` was "valid, rounds: 0"."""
    for chunks in (sccl_allreduce_defined(n),
                   [{"pre": list(range(n)), "post": list(range(n)), "addr": 0}]):  # fmt: skip
        text = sccl("allreduce", n, chunks, [])
        assert agrees(text, "sccl-json") == "invalid"
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "a.json"
        path.write_text(text)
        rules = {f.rule for f in read_sccl(str(path))[0].findings}
    assert rules == {"collective-mismatch"}


@pytest.mark.parametrize("n", [4, 10])
def test_a_reduce_scatter_that_moves_nothing_is_not_valid(n: int) -> None:
    """SCCL reduce-scatter on 4 and on 10 ranks with no moves was valid."""
    all_ranks = [{"pre": list(range(n)), "post": [a], "addr": a} for a in range(n)]
    for chunks in (sccl_reduce_scatter_defined(n), all_ranks):
        assert agrees(sccl("reduce_scatter", n, chunks, []), "sccl-json") == "invalid"


def test_a_partial_result_summed_twice_is_a_double_count() -> None:
    """Rank 2 holds 0's and its own contributions and receives 0's and 1's: a sum counts
    0's twice, a copy loses 2's."""
    text = sccl("allreduce", 3, sccl_allreduce_defined(3),
                [[[0, 0, 1], [0, 0, 2]], [[0, 1, 2]], [[0, 2, 0], [0, 2, 1]]])  # fmt: skip
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "a.json"
        path.write_text(text)
        found = read_sccl(str(path))[0].findings
    assert [f.rule for f in found] == ["double-count"] and found[0].rank == 2
    assert agrees(text, "sccl-json") == "invalid"


@pytest.mark.parametrize(
    ("edit", "fragment"),
    [(lambda d: d["collective"].update(nodes=10**9), "1,024"),
     (lambda d: d["instance"].update(chunks=10**9), "65,536"),
     (lambda d: d["collective"]["chunks"][0].update(addr=[0]), "addr: expected an integer"),
     (lambda d: d["collective"].update(nodes=True), "expected an integer, got True"),
     (lambda d: d["steps"][0].update(rounds=2.0), "rounds: expected an integer"),
     (lambda d: d["steps"][0].update(rounds=10**6), "100,000"),
     (lambda d: d["collective"]["chunks"][0].update(pre=[0.0]), "expected an integer")],
)  # fmt: skip
def test_sccl_files_refused_in_one_line(tmp_path, capsys, edit, fragment) -> None:
    """A huge node or chunk count ran past 60 s; an ``addr`` that is a list was a
    TypeError traceback."""
    data = json.loads(sccl_ring_allgather(3))
    edit(data)
    path = tmp_path / "s.json"
    path.write_text(json.dumps(data))
    with pytest.raises(FormatError, match=re.escape(fragment)):
        read_sccl(str(path))
    code, err = _cli(capsys, path, "sccl-json")
    assert code == 2 and err.count("\n") == 1


@pytest.mark.parametrize("fmt", ["sccl-json", "teccl-json"])
def test_json_nested_100000_deep_is_one_line(tmp_path, capsys, fmt) -> None:
    """A RecursionError traceback before."""
    path = tmp_path / "deep.json"
    path.write_text('{"msccl_type": "algorithm", "x": ' + "[" * 100_000 + "]" * 100_000 + "}")
    code, err = _cli(capsys, path, fmt)
    assert code == 2 and "nested too deep" in err and err.count("\n") == 1
    path.write_text('{"7-Flows": [' + "9" * 5000 + "]}")
    code, err = _cli(capsys, path, fmt)
    assert code == 2 and "digits" in err and err.count("\n") == 1


@pytest.mark.parametrize(
    ("edit", "fragment"),
    [(lambda d: d["6-Demand_Met"]["GPU 0"].update({"GPU 1": 3}), "holds 3, not an object"),
     (lambda d: d["6-Demand_Met"]["GPU 0"]["GPU 1"].update({"Chunk 100000000": 0}), "65,535"),
     (lambda d: d["6-Demand_Met"]["GPU 0"]["GPU 1"].update({"Chunk \u0661": 0}), "ASCII"),
     (lambda d: d["7-Flows"].append("Chunk 0 from 0 traveled over 0->1 in epoch 999999999"),
      "100,000"),
     (lambda d: d["7-Flows"].append("Chunk 0 from \u0661 traveled over 0->1 in epoch 0"),
      "is not 'Chunk c from s"),
     (lambda d: d["7-Flows"].append(7), "is not 'Chunk c from s")],
)  # fmt: skip
def test_teccl_files_refused_in_one_line(tmp_path, capsys, edit, fragment) -> None:
    """``6-Demand_Met`` entries that are integers were a traceback; a huge chunk index ran
    for minutes."""
    data = json.loads(teccl_ring(3))
    edit(data)
    path = tmp_path / "t.json"
    path.write_text(json.dumps(data))
    with pytest.raises(FormatError, match=re.escape(fragment)):
        read_teccl(str(path))
    code, err = _cli(capsys, path, "teccl-json")
    assert code == 2 and err.count("\n") == 1


@pytest.mark.parametrize(
    ("data", "fragment"),
    [({"TopologyParams": {"name": "Mesh", "side_length": 10**9}}, "1,024"),
     ({"capacity": [[0, 1e400], [1, 0]]}, "numbers >= 0"),
     ({"capacity": [[0, 10**30], [1, 0]]}, "numbers >= 0"),
     ({"capacity": [[0] * 1025] * 1025}, "1,024"),
     ({"msccl_type": "topology", "links": [[0, 1], [1, 0]],
       "switches": [[[True], [1], 1, "s"]]}, "outside"),
     ({"msccl_type": "topology", "links": [[0, 1], [1, 0]],
       "switches": [[[0], [1], 1, ["s"]]]}, "name ['s']")],
)  # fmt: skip
def test_topology_files_refused_in_one_line(tmp_path, data, fragment) -> None:
    """A TE-CCL Mesh of side 10^9 hung; an infinite capacity was an OverflowError."""
    path = tmp_path / "topo.json"
    path.write_text(json.dumps(data).replace("Infinity", "1e400"))
    with pytest.raises(GossipcertError, match=re.escape(fragment)) as info:
        graphs.read_graph_file(path)
    assert "\n" not in str(info.value)


# ------------------------------------------------------------------ random mutations
@st.composite
def mutated_json(draw: st.DrawFn, bases: list[str]) -> str:
    """A valid file mutated (:func:`tests.hostile_files.mutate_json`)."""
    text = draw(st.sampled_from(bases))
    return mutate_json(text, lambda seq: draw(st.sampled_from(list(seq))))


SCCL_BASES = [
    sccl_ring_allgather(3),
    sccl_ring_allreduce(3),
    sccl("reduce_scatter", 2, sccl_reduce_scatter_defined(2), [[[0, 1, 0], [1, 0, 1]]]),
]
TECCL_BASES = [teccl_ring(3)]
TOPOLOGY_BASES = [
    json.dumps(
        {
            "msccl_type": "topology",
            "name": "t",
            "links": [[0, 1, 0], [1, 0, 2], [0, 2, 0]],
            "switches": [[[0, 1], [1, 2], 1, "sw"]],
        }
    ),
    json.dumps({"capacity": [[0, 0.5, 0], [0.5, 0, 1.0], [0, 1.0, 0]], "switch_indices": [2]}),
    json.dumps({"TopologyParams": {"name": "Mesh", "side_length": 3, "chassis": 1}}),
    json.dumps({"nodes": [0, 1, 2], "edges": [[0, 1, 2], [1, 2]], "routers": [2]}),
]
FEW = settings(max_examples=150, deadline=None, derandomize=True, database=None,
               suppress_health_check=[HealthCheck.too_slow])  # fmt: skip
MANY = settings(max_examples=2000, deadline=None, database=None,
                suppress_health_check=[HealthCheck.too_slow])  # fmt: skip


def _topology_answer(text: str) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "topo.json"
        path.write_text(text, encoding="utf-8")
        try:
            graphs.read_graph_file(path)
        except GossipcertError as exc:
            assert str(exc) and "\n" not in str(exc)


@FEW
@given(mutated_json(SCCL_BASES))
def test_mutated_sccl_files_agree_with_sccls_rules(text: str) -> None:
    agrees(text, "sccl-json")


@FEW
@given(mutated_json(TECCL_BASES))
def test_mutated_teccl_files_agree_with_teccls_rules(text: str) -> None:
    agrees(text, "teccl-json")


@FEW
@given(mutated_json(TOPOLOGY_BASES))
def test_mutated_topology_files_read_or_refused_in_one_line(text: str) -> None:
    _topology_answer(text)


@pytest.mark.slow
@MANY
@given(mutated_json(SCCL_BASES))
def test_many_mutated_sccl_files(text: str) -> None:
    agrees(text, "sccl-json")


@pytest.mark.slow
@MANY
@given(mutated_json(TECCL_BASES))
def test_many_mutated_teccl_files(text: str) -> None:
    agrees(text, "teccl-json")


@pytest.mark.slow
@MANY
@given(mutated_json(TOPOLOGY_BASES))
def test_many_mutated_topology_files(text: str) -> None:
    _topology_answer(text)
