"""MSCCL XML: reading, as-soon-as-possible rounds and the slot-level replay, on XML files
written here (a ring allgather, an all-pairs alltoall, a ring allreduce and their broken
variants)."""

from __future__ import annotations

import pytest

from gossipcert.errors import FormatError
from gossipcert.formats.msccl_xml import parse_msccl_xml, read_msccl_xml
from gossipcert.formats.replay import replay

HEAD = (
    '<algo name="t" proto="{proto}" nchannels="1" nchunksperloop="{nchunks}" ngpus="{n}" '
    'coll="{coll}" inplace="{inplace}" outofplace="{outofplace}"{sizes}>'
)


def step(s, kind, src=("o", -1), dst=("o", -1), cnt=1, dep=(-1, -1), hasdep=0):
    return (
        f'<step s="{s}" type="{kind}" srcbuf="{src[0]}" srcoff="{src[1]}" dstbuf="{dst[0]}" '
        f'dstoff="{dst[1]}" cnt="{cnt}" depid="{dep[0]}" deps="{dep[1]}" hasdep="{hasdep}"/>'
    )


def algo_xml(n, coll, gpus, nchunks=None, inplace=1, outofplace=0, sizes=True, proto="LL"):
    """``gpus[r]`` = (i_chunks, o_chunks, s_chunks, [(send, recv, chan, [step, ...]), ...])."""
    size_text = ' minBytes="0" maxBytes="0"' if sizes else ""
    head = HEAD.format(
        proto=proto,
        nchunks=nchunks or n,
        n=n,
        coll=coll,
        inplace=inplace,
        outofplace=outofplace,
        sizes=size_text,
    )
    body = []
    for r, (ic, oc, sc, tbs) in enumerate(gpus):
        body.append(f'<gpu id="{r}" i_chunks="{ic}" o_chunks="{oc}" s_chunks="{sc}">')
        for b, (send, recv, chan, steps) in enumerate(tbs):
            body.append(f'<tb id="{b}" send="{send}" recv="{recv}" chan="{chan}">')
            body.extend(steps)
            body.append("</tb>")
        body.append("</gpu>")
    return head + "\n".join(body) + "</algo>"


def ring_allgather(n, drop=None, peer=None):
    """In-place ring allgather: in round t rank r forwards chunk r - t + 1 to r + 1."""
    gpus = []
    for r in range(n):
        steps = [step(0, "s", src=("o", r), dst=("o", r))]
        for t in range(1, n - 1):
            c = (r - t) % n
            steps.append(step(t, "rcs", src=("o", c), dst=("o", c)))
        c = (r - (n - 1)) % n
        steps.append(step(n - 1, "r", src=("o", c), dst=("o", c)))
        if drop is not None and drop[0] == r:
            del steps[drop[1]]
            steps = [
                s.replace(f's="{i + 1}"', f's="{i}"') if i >= drop[1] else s
                for i, s in enumerate(steps)
            ]
        send = (r + 1) % n if peer is None or peer[0] != r else peer[1]
        gpus.append((0, n, 0, [(send, (r - 1) % n, 0, steps)]))
    return algo_xml(n, "allgather", gpus)


def test_ring_allgather_is_valid_in_n_minus_1_rounds():
    for n in (3, 4, 6):
        result = replay(parse_msccl_xml(ring_allgather(n)))
        assert result.valid, result.findings
        assert result.rounds == n - 1
        assert len(result.transfers) == n * (n - 1)
        # round t: rank r sends chunk r - t + 1 to r + 1
        for tr in result.transfers:
            assert tr.receiver == (tr.sender + 1) % n
            assert tr.payload == (frozenset({((tr.sender - tr.round + 1) % n, 0)}),)


def test_dropped_receive_is_a_deadlock_and_a_missing_chunk():
    result = replay(parse_msccl_xml(ring_allgather(4, drop=(2, 3))))
    rules = {f.rule for f in result.findings}
    assert "unmatched-send" in rules
    assert "missing" in rules
    assert not result.valid


def test_dropped_forward_leaves_a_receive_unmatched():
    result = replay(parse_msccl_xml(ring_allgather(4, drop=(1, 1))))
    unmatched = [f for f in result.findings if f.rule == "unmatched-receive"]
    assert unmatched and unmatched[0].rank == 2
    assert "deadlock" in unmatched[0].message


def test_changed_peer_is_reported():
    result = replay(parse_msccl_xml(ring_allgather(4, peer=(0, 2))))
    assert {"unmatched-send", "unmatched-receive"} <= {f.rule for f in result.findings}


def test_send_of_unwritten_slot_without_dependency():
    # GPU 0 receives chunk 1 on tb 0 and, on tb 1 with no dependency, forwards slot 1 to GPU 2
    # in round 1: nothing has written it yet
    gpus = [
        (
            0,
            3,
            0,
            [
                (-1, 1, 0, [step(0, "r", dst=("o", 1), hasdep=1)]),
                (2, -1, 0, [step(0, "s", src=("o", 1)), step(1, "s", src=("o", 0))]),
            ],
        ),
        (0, 3, 0, [(0, -1, 0, [step(0, "s", src=("o", 1))])]),
        (0, 3, 0, [(-1, 0, 0, [step(0, "r", dst=("o", 1)), step(1, "r", dst=("o", 0))])]),
    ]
    result = replay(parse_msccl_xml(algo_xml(3, "allgather", gpus)))
    unwritten = [f for f in result.findings if f.rule == "unwritten-read"]
    assert unwritten and unwritten[0].rank == 0 and unwritten[0].round == 1
    # with the dependency on tb 0 step 0 the read happens in round 2, after the write
    gpus[0][3][1] = (2, -1, 0, [step(0, "s", src=("o", 1), dep=(0, 0)), step(1, "s", src=("o", 0))])
    result = replay(parse_msccl_xml(algo_xml(3, "allgather", gpus)))
    assert not [f for f in result.findings if f.rule == "unwritten-read"]
    assert result.rounds == 3 and not [f for f in result.findings if f.rule == "race"]
    # the same dependency on a step without hasdep="1": the executor never signals it
    gpus[0][3][0] = (-1, 1, 0, [step(0, "r", dst=("o", 1))])
    result = replay(parse_msccl_xml(algo_xml(3, "allgather", gpus)))
    unsignalled = [f for f in result.findings if f.rule == "unsignalled-dependency"]
    assert len(unsignalled) == 1 and "thread block 1 step 0 (s)" in unsignalled[0].message


def ring_allreduce(n, double=False):
    """Reduce-scatter then allgather around a ring, chunk c of n, in place (buffer i)."""
    gpus = []
    for r in range(n):
        steps = [step(0, "s", src=("i", r), dst=("i", r))]
        for t in range(1, n - 1):
            c = (r - t) % n
            steps.append(step(t, "rrs", src=("i", c), dst=("i", c)))
        c = (r + 1) % n
        steps.append(step(n - 1, "rrcs", src=("i", c), dst=("i", c)))
        for t in range(1, n - 1):
            c = (r + 1 - t) % n
            steps.append(step(n - 1 + t, "rcs", src=("i", c), dst=("i", c)))
        c = (r + 2) % n
        steps.append(step(2 * n - 2, "r", src=("i", c), dst=("i", c)))
        if double and r == 1:
            # receive-reduce turned into a second reduce of the same contribution
            steps.insert(2, step(2, "re", src=("i", (r - 1) % n), dst=("i", (r - 1) % n)))
            steps = [
                s.replace(f's="{i - 1}"', f's="{i}"') if i > 2 else s for i, s in enumerate(steps)
            ]
        gpus.append((n, 0, 0, [((r + 1) % n, (r - 1) % n, 0, steps)]))
    return algo_xml(n, "allreduce", gpus, nchunks=n)


def test_ring_allreduce_is_valid_in_2n_minus_2_rounds():
    for n in (3, 4, 5):
        result = replay(parse_msccl_xml(ring_allreduce(n)))
        assert result.valid, result.findings[:3]
        assert result.rounds == 2 * (n - 1)


def test_reducing_a_contribution_twice_is_a_double_count():
    result = replay(parse_msccl_xml(ring_allreduce(4, double=True)))
    doubles = [f for f in result.findings if f.rule == "double-count"]
    assert doubles and doubles[0].rank == 1
    assert not result.valid


def alltoall_pairs(n, k=1):
    gpus = []
    for r in range(n):
        tbs = []
        for p in range(n):
            if p == r:
                continue
            tbs.append(
                (
                    p,
                    p,
                    0,
                    [step(0, "s", src=("i", p * k), cnt=k), step(1, "r", dst=("o", p * k), cnt=k)],
                )
            )
        tbs.append((-1, -1, 0, [step(0, "cpy", src=("i", r * k), dst=("o", r * k), cnt=k)]))
        gpus.append((n * k, n * k, 0, tbs))
    return algo_xml(n, "alltoall", gpus, nchunks=n * k, inplace=0, outofplace=1)


def test_alltoall_all_pairs_one_round_with_k_chunks():
    result = replay(parse_msccl_xml(alltoall_pairs(4, k=2)))
    assert result.valid, result.findings[:3]
    assert result.rounds == 1 and result.chunks_per_rank == 2
    assert all(tr.cnt == 2 for tr in result.transfers)


def test_dependency_cycle_is_named():
    gpus = [
        (
            0,
            2,
            0,
            [
                (1, -1, 0, [step(0, "s", src=("o", 0), dep=(1, 0), hasdep=1)]),
                (-1, -1, 0, [step(0, "cpy", src=("o", 0), dst=("o", 1), dep=(0, 0), hasdep=1)]),
            ],
        ),
        (0, 2, 0, [(-1, 0, 0, [step(0, "r", dst=("o", 0))])]),
    ]
    result = replay(parse_msccl_xml(algo_xml(2, "allgather", gpus)))
    cycle = [f for f in result.findings if f.rule == "dependency-cycle"]
    assert cycle and "GPU 0 thread block 1 step 0 (cpy)" in cycle[0].message


def test_missing_min_bytes_is_a_defect():
    result = replay(parse_msccl_xml(ring_allgather(3).replace(' minBytes="0"', "")))
    assert any("minBytes" in f.message and "silently" in f.message for f in result.findings)


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("<algo", "not well-formed XML"),
        ('<?xml version="1.0"?><!DOCTYPE a [<!ENTITY x "y">]><algo/>', "refused"),
        ("<system/>", "not an algorithm"),
    ],
)
def test_unreadable_files(text, fragment):
    with pytest.raises(FormatError, match=fragment):
        parse_msccl_xml(text)


def test_entity_bomb_is_refused():
    bomb = (
        '<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol">'
        + "".join(
            f'<!ENTITY lol{i} "{"&lol" + str(i - 1) + ";" if i > 1 else "&lol;"}' * 10 + '">'
            for i in range(1, 9)
        )
        + "]><algo>&lol8;</algo>"
    )
    with pytest.raises(FormatError, match="refused"):
        parse_msccl_xml(bomb)


def test_bad_step_type_and_offsets_give_the_line():
    text = ring_allgather(3).replace('type="rcs"', 'type="xyz"', 1)
    with pytest.raises(FormatError, match=r"algorithm:\d+: .*step type 'xyz'"):
        parse_msccl_xml(text)
    text = ring_allgather(3).replace('srcoff="0" dstbuf', 'srcoff="-2" dstbuf', 1)
    with pytest.raises(FormatError, match="negative src offset -2"):
        parse_msccl_xml(text)
    with pytest.raises(FormatError, match="not a rank"):
        parse_msccl_xml(ring_allgather(3).replace('send="1"', 'send="7"', 1))


def test_malformed_line_number(tmp_path):
    path = tmp_path / "bad.xml"
    path.write_text(ring_allgather(3).replace("</tb>", "</tbx>", 1).replace("><", ">\n<"))
    with pytest.raises(FormatError, match=r"bad.xml:\d+:\d+: not well-formed"):
        read_msccl_xml(path)
    with pytest.raises(FormatError, match="does not exist"):
        read_msccl_xml(tmp_path / "none.xml")


def test_read_after_an_unordered_write_is_a_race():
    # GPU 0 receives chunk 1 on tb 0 in round 1; tb 1 sends chunk 0 in round 1 and then slot
    # 1 in round 2 without depending on tb 0: the slot is written by then, but only by luck
    gpus = [
        (0, 3, 0, [(-1, 1, 0, [step(0, "r", dst=("o", 1), hasdep=1)]),
                   (2, -1, 0, [step(0, "s", src=("o", 0)), step(1, "s", src=("o", 1))])]),
        (0, 3, 0, [(0, -1, 0, [step(0, "s", src=("o", 1))])]),
        (0, 3, 0, [(-1, 0, 0, [step(0, "r", dst=("o", 0)), step(1, "r", dst=("o", 1))])]),
    ]  # fmt: skip
    result = replay(parse_msccl_xml(algo_xml(3, "allgather", gpus)))
    races = [f for f in result.findings if f.rule == "race"]
    assert len(races) == 1 and races[0].round == 2 and races[0].rank == 0
    assert "thread block 0 step 0 (r)" in races[0].message
    # ordered by a dependency (tb 1 step 1 waits for tb 0 step 0): no race
    gpus[0][3][1] = (2, -1, 0, [step(0, "s", src=("o", 0)),
                                step(1, "s", src=("o", 1), dep=(0, 0))])  # fmt: skip
    result = replay(parse_msccl_xml(algo_xml(3, "allgather", gpus)))
    assert not [f for f in result.findings if f.rule == "race"]


def test_more_steps_than_the_executor_holds_is_a_defect():
    result = replay(parse_msccl_xml(ring_allgather(66)))
    assert result.rounds == 65
    defects = [f for f in result.findings if f.rule == "executor"]
    assert len(defects) == 66 and "MSCCL_MAX_NUM_STEPS=64" in defects[0].message
