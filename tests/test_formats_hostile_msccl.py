"""Hostile MSCCL XML files: the hand-written ones of the red team's report, and random
mutations of valid algorithms judged against an independent replay of the executor's rules
(``tests/msccl_reference.py``). Every answer is a verdict that agrees with that replay, or a
refusal in one line (exit 2); never "valid" for an algorithm the replay finds wrong."""

from __future__ import annotations

import copy

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gossipcert.cli import main
from gossipcert.errors import FormatError, GossipcertError
from gossipcert.formats.msccl_xml import parse_msccl_xml
from gossipcert.formats.replay import replay
from gossipcert.formats.verdict import assess, verify_algorithm
from gossipcert.limits import c_int
from tests.hostile_files import (
    BASES,
    full_mesh,
    gpu,
    head,
    issue_race,
    mutate_msccl,
    pair_allgather,
    step,
    to_xml,
)
from tests.msccl_reference import judge


def outcome(data: bytes) -> tuple[str, str]:
    """gossipcert's answer: ("valid" | "invalid" | "not judged" | "refused", message)."""
    try:
        algo = parse_msccl_xml(data, "m.xml")
        rep = replay(algo)
        assess(rep, source="m.xml", fmt="msccl-xml", collective=algo.coll, ranks=algo.ngpus,
               steps=algo.n_steps, optimum=False, root=rep.root,
               topology=full_mesh(algo.ngpus))  # fmt: skip
    except GossipcertError as exc:
        return "refused", str(exc)
    return ("valid" if rep.valid else "invalid" if rep.judged else "not judged"), ""


def agrees(data: bytes) -> tuple[str, str]:
    """gossipcert's answer, asserted to agree with the reference replay."""
    kind, message = outcome(data)
    ref = judge(data)
    if ref.verdict == "too large":  # beyond gossipcert's limits too
        assert kind == "refused", kind
    elif kind == "refused":
        assert message and "\n" not in message, message
        if "gossipcert.limits" not in message and not ref.must_refuse:
            assert ref.verdict != "valid", f"refused a file the executor runs right: {message}"
    else:
        assert not ref.must_refuse, f"{ref.must_refuse}: read a number the executor reads otherwise"
        assert kind == ref.verdict, (kind, ref.verdict, ref.reasons[:3])
    return kind, message


def _cli(capsys: pytest.CaptureFixture[str], path: str, *more: str) -> tuple[int, str]:
    with pytest.raises(SystemExit) as info:
        main(["verify", "--from", "msccl-xml", path, "--time-limit", "5", *more])
    err = capsys.readouterr().err
    return int(info.value.code or 0), err


def _with_dstoff(text: str) -> bytes:
    """The two-GPU allgather with GPU 0's receive written to ``dstoff=text`` (1 is right)."""
    algo = pair_allgather()
    algo[1][0][1][0][1][1]["dstoff"] = text
    return to_xml(algo)


# ------------------------------------------------------------------ the report's files
def test_bases_are_valid_and_agree() -> None:
    for name, algo in BASES.items():
        kind, _ = agrees(to_xml(algo))
        assert kind == ("not judged" if "gather" in name and "allgather" not in name else "valid")


@pytest.mark.parametrize(
    ("text", "read"), [("0o1", "0 and ignores 'o1'"), ("\u0661", "0 and ignores"),
                       ("1e3", "1 and ignores 'e3'"), ("0x1", "as 1"), ("01", "as 1"),
                       ("1_0", "1 and ignores '_0'"), ("", "as 0")],
)  # fmt: skip
def test_numbers_the_executor_reads_otherwise_are_refused(tmp_path, capsys, text, read) -> None:
    """``dstoff="0o1"`` and an Arabic-Indic one were read as 1 and the file called valid;
    the executor's strtol reads 0 (GPU 0's o[0] overwritten, o[1] never written)."""
    data = _with_dstoff(text)
    kind, message = agrees(data)
    assert kind == "refused" and "not a decimal integer" in message and read in message
    assert judge(data).must_refuse
    path = tmp_path / "a.xml"
    path.write_bytes(data)
    code, err = _cli(capsys, str(path))
    assert code == 2 and err.count("\n") == 1 and "dstoff=" in err


def test_the_executors_reading_of_0o1_is_invalid() -> None:
    """What the GPU runs: dstoff 0, so GPU 0's own chunk is overwritten (the reference)."""
    assert judge(_with_dstoff("0o1")).verdict == "invalid"
    assert judge(_with_dstoff("1")).verdict == "valid"


@pytest.mark.parametrize("text", ["1", " 1", "+1", "1 "])
def test_decimal_with_sign_and_spaces_is_read_as_the_executor_reads_it(text) -> None:
    assert agrees(_with_dstoff(text))[0] == "valid"


def test_out_of_range_integers_name_what_the_executor_reads() -> None:
    with pytest.raises(FormatError, match=r"int range .* it would read 1$"):
        c_int("4294967297", "x")
    assert c_int("-2147483648", "x") == -2147483648
    assert c_int("9223372036854775807", "x", bits=64) == 2**63 - 1


def test_a_race_between_thread_blocks_is_found() -> None:
    """The report's race (judged valid before): the receive into s[0] may land before s[0]
    is sent, whatever order the as-soon-as-possible timing picks."""
    data = issue_race()
    rep = replay(parse_msccl_xml(data))
    races = [f.message for f in rep.findings if f.rule == "race"]
    assert not rep.valid and races
    assert any("writes s[0], which GPU 0 thread block 0 step 1 (s)" in m for m in races), races
    assert agrees(data)[0] == "invalid"


def test_a_write_racing_an_earlier_write_is_found() -> None:
    """Two thread blocks of GPU 1 both write o[0], in no order."""
    algo = pair_allgather()
    algo[1][1][1][1][1][0].update(dstoff="0", srcbuf="i", srcoff="0")  # cpy i[0] -> o[0]
    rep = replay(parse_msccl_xml(to_xml(algo)))
    assert any("writes o[0], which" in f.message and "writes too" in f.message
               for f in rep.findings if f.rule == "race")  # fmt: skip


def test_gather_is_not_judged(tmp_path, capsys) -> None:
    """``coll="gather"`` with two GPUs and no step was "valid (structure and timing only)"."""
    data = to_xml((head(2, "gather", 2, 0, 1), [gpu(0, (1, 2, 0), []), gpu(1, (1, 2, 0), [])]))
    path = tmp_path / "g.xml"
    path.write_bytes(data)
    verdict = verify_algorithm(str(path), topology="fully-connected:2", optimum=False)
    assert not verdict.valid and not verdict.judged and not verdict.replay.findings
    assert verdict.to_json()["valid"] is False and verdict.to_json()["judged"] is False
    code, _ = _cli(capsys, str(path), "--topology", "fully-connected:2")
    assert code == 3
    assert agrees(data)[0] == "not judged"


@pytest.mark.parametrize(
    ("attrs", "fragment"),
    [({"nchunksperloop": "10000000"}, "65,536 this reader takes"),
     ({"ngpus": "1000000000000"}, "int range"),
     ({"ngpus": "100000"}, "1,024 this reader takes"),
     ({"ngpus": "64", "nchunksperloop": "1024"}, "slots to replay")],
)  # fmt: skip
def test_huge_sizes_are_refused_with_the_limit_named(attrs, fragment) -> None:
    """A one-GPU file with ``nchunksperloop="10000000"`` or ``ngpus="1000000000000"`` ran
    past 60 s."""
    algo = (head(1, "allreduce", 1), [gpu(0, (1, 1, 0), [])])
    algo[0].update(attrs)
    with pytest.raises(FormatError, match=fragment):
        parse_msccl_xml(to_xml(algo))


# ------------------------------------------------------------------ the executor's tokenizer
@pytest.mark.parametrize(
    ("edit", "fragment"),
    [(lambda t: t.replace(b' proto="LL"', b'\n proto="LL"'), "expected '>'"),
     (lambda t: t.replace(b"\n  <gpu", b"\n\t<gpu", 1), "expecting '<'"),
     (lambda t: t.replace(b'dstoff="1"', b'dstoff="&#49;"', 1), "'&#49;', not '1'"),
     (lambda t: t.replace(b'name="t"', b'name = "t"'), "quote"),
     (lambda t: b'<?xml version="1.0"?>\n' + t, "expected '>'"),
     (lambda t: b'<?xml version="1.0" ?>\n' + t, "not <algo>"),
     (lambda t: b"\xef\xbb\xbf" + t, "expecting '<'"),
     (lambda t: t.replace(b"</tb>", b"</tb >", 1), "closing tag"),
     (lambda t: t.replace(b'<algo name="t"', b'<algo' + b''.join(b' x%d="0"' % i for i in range(8))
                          + b' name="t"'), "does not see <algo> attribute"),
     (lambda t: t.replace(b'name="t"', b'name="' + b"x" * 300 + b'"'), "overflows")],
)  # fmt: skip
def test_what_the_executors_own_parser_reads_otherwise_is_refused(edit, fragment) -> None:
    text = _with_dstoff("1")
    assert agrees(text)[0] == "valid"
    data = edit(text)
    kind, message = agrees(data)
    assert kind == "refused" and fragment in message, message


def test_a_dependency_after_a_nop_without_one_follows_the_kernels_counter() -> None:
    """The kernel's step counter skips no index for a ``nop`` without a dependency, so a
    wait for step 2 of a thread block whose step 0 is such a nop is released only by a
    later step: here never (the last step is 2), a deadlock."""
    algo = copy.deepcopy(BASES["relay-allgather"])
    for r in range(2):
        t0 = algo[1][r][1][0][1]
        t0.insert(0, step(0, "nop", ("i", -1), ("o", -1), cnt=0))
        for i, s in enumerate(t0):
            s["s"] = str(i)
        for s in algo[1][r][1][1][1]:
            s["deps"] = "2"
    kind, _ = agrees(to_xml(algo))
    rep = replay(parse_msccl_xml(to_xml(algo)))
    assert kind == "invalid" and "unsignalled-dependency" in {f.rule for f in rep.findings}


# ------------------------------------------------------------------ random mutations
@st.composite
def mutants(draw: st.DrawFn) -> bytes:
    """A valid algorithm of :data:`BASES` mutated (:func:`tests.hostile_files.mutate_msccl`)."""
    base = BASES[draw(st.sampled_from(sorted(BASES)))]
    return mutate_msccl(base, lambda seq: draw(st.sampled_from(list(seq))))


FEW = settings(max_examples=250, deadline=None, derandomize=True, database=None,
               suppress_health_check=[HealthCheck.too_slow])  # fmt: skip
MANY = settings(max_examples=3000, deadline=None, database=None,
                suppress_health_check=[HealthCheck.too_slow])  # fmt: skip


@FEW
@given(mutants())
def test_mutated_algorithms_agree_with_the_executors_rules(data: bytes) -> None:
    agrees(data)


@pytest.mark.slow
@MANY
@given(mutants())
def test_many_mutated_algorithms_agree_with_the_executors_rules(data: bytes) -> None:
    agrees(data)
