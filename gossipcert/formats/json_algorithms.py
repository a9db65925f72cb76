"""SCCL and TE-CCL schedules (JSON), replayed round by round.

**SCCL JSON** (microsoft/sccl's ``serialization.py``, ``msccl_type`` objects; ``sccl_type``
in the older SCCL and in TACCL): an ``algorithm`` with its ``collective`` (chunks with
``pre``, ``post`` and ``addr``), its ``instance`` (``chunks``: each chunk split into that many,
chunk ``c`` piece ``i`` at address ``addr K + i`` as SCCL's ``chunk_up``), its ``topology``
and ``steps``, each ``{"rounds": r, "sends": [[address, src, dst], ...]}``. The replay is
SCCL's own ``check_implements``: a send moves every chunk at the address that ``src`` holds
at the start of the step, and every ``post`` rank must hold its chunks at the end. A step of
``r`` rounds is ``r`` rounds; the ``k``-th send on a link within it goes to its round
``k mod r + 1`` (at most ``ceil(m / r)`` chunks per round on a link that carries ``m``).

**TE-CCL schedules** (``teccl/solvers``, the ``schedule_output_file``): ``"7-Flows"`` lists
``"Chunk c from s traveled over u->v in epoch e"`` and ``"6-Demand_Met"`` ``{"GPU d": {"GPU s":
{"Chunk c": epoch}}}``. Epoch ``e`` is round ``e + 1``; a chunk received in an epoch can be
forwarded from the next one on (TE-CCL's epochs when the epoch is the fast links' chunk time
and ``alpha`` is 0); ``via switches`` is ignored (the flow is a GPU-to-GPU transmission).
Rank ``r`` is the ``r``-th GPU of "6-Demand_Met" (TE-CCL's switches are nodes too, so its
GPUs need not be ``0..n-1``). A flow line is read whole: anything else on it (trailing text,
another separator) is refused with the line's place in ``7-Flows``. Only allgather schedules
are read here: TE-CCL's alltoall output holds fractions of chunks over epochs. :mod:`.teccl`
replays both in TE-CCL's own epoch model (alpha, transmission epochs, switches), to the
file's own epochs.

References
----------
.. [1] github.com/microsoft/sccl, ``msccl/serialization.py``, ``msccl/algorithm.py``.
.. [2] X. Liu et al., "Rethinking machine learning collective communication as a
   multi-commodity flow problem", SIGCOMM 2024 (github.com/microsoft/TE-CCL).
"""

from __future__ import annotations

import re
from collections import defaultdict
from pathlib import Path
from typing import Any

from gossipcert.errors import FormatError
from gossipcert.formats.findings import Finding, Replay, Transfer, Value
from gossipcert.limits import (
    MAX_CELLS,
    MAX_CHUNKS,
    MAX_RANKS,
    MAX_ROUNDS,
    check_limit,
    decode_json,
    json_int,
    shorten,
)

#: SCCL's runtime names -> MSCCL's collective names
_COLLECTIVES = {
    "allgather": "allgather",
    "alltoall": "alltoall",
    "allreduce": "allreduce",
    "reduce_scatter": "reducescatter",
}
#: one line of ``7-Flows``, whole (TE-CCL's ``allgather.py`` writes ``via switches a -> b``
#: when the flow crosses switches); anything else on the line is refused
_FLOW = re.compile(
    r"Chunk ([0-9]{1,9}) from ([0-9]{1,9}) traveled over ([0-9]{1,9})->([0-9]{1,9})"
    r"(?: with volume [0-9.]+(?:e-?[0-9]+)?)? in epoch ([0-9]{1,9})"
    r"(?: via switches [0-9]{1,9}(?: -> [0-9]{1,9})*)?",
)
_KEY = re.compile(r"(GPU|Chunk) ([0-9]{1,9})")


def _numbered(key: str, what: str, high: int, where: str) -> int:
    """``N`` of a TE-CCL key ``"GPU N"`` or ``"Chunk N"`` (ASCII decimal, at most ``high``)."""
    match = _KEY.fullmatch(key)
    if match is None or match.group(1) != what:
        raise FormatError(f"{where}: key {shorten(key)} is not '{what} N' (N in ASCII decimal)")
    return json_int(int(match.group(2)), f"{where}: {what} {match.group(2)}", 0, high)


def _demands(demand: dict[str, Any], where: str) -> set[tuple[int, int, int]]:
    """``6-Demand_Met`` (``{"GPU d": {"GPU s": {"Chunk c": time}}}``) as (d, s, c)."""
    wanted: set[tuple[int, int, int]] = set()
    for d_key, sources in demand.items():
        d = _numbered(d_key, "GPU", MAX_RANKS - 1, where)
        if not isinstance(sources, dict):
            raise FormatError(f"{where}: {d_key!r} holds {shorten(sources)}, not an object "
                              "of 'GPU s': {'Chunk c': time}")  # fmt: skip
        for s_key, pieces in sources.items():
            s = _numbered(s_key, "GPU", MAX_RANKS - 1, where)
            if not isinstance(pieces, dict):
                raise FormatError(f"{where}: {d_key!r}: {s_key!r} holds {shorten(pieces)}, not "
                                  "an object of 'Chunk c': time")  # fmt: skip
            wanted.update((d, s, _numbered(c, "Chunk", MAX_CHUNKS - 1, where)) for c in pieces)
    return wanted


def load_json(path: str) -> Any:
    """Decoded JSON of ``path`` (FormatError with the line for invalid JSON, and for JSON
    that Python's parser cannot decode: see :func:`gossipcert.limits.decode_json`)."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise FormatError(f"{path} does not exist") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise FormatError(f"cannot read {path}: {exc}") from None
    return decode_json(text, path)


def what_json(data: Any) -> str:
    """Which tool's JSON ``data`` looks like: ``sccl``, ``teccl``, ``teccl-input``,
    ``topology`` or ``unknown``."""
    if isinstance(data, dict):
        kind = data.get("msccl_type", data.get("sccl_type"))
        if kind == "algorithm":
            return "sccl"
        if kind == "topology" or "capacity" in data or "gpus_per_node" in data:
            return "topology"
        if "7-Flows" in data or "6-Flows" in data:
            return "teccl"
        if "TopologyParams" in data:
            return "teccl-input"
    return "unknown"


def _refuse(path: str, data: Any, wanted: str) -> None:
    found = what_json(data)
    names = {
        "sccl": "an SCCL/MSCCL algorithm (use --from sccl-json)",
        "teccl": "a TE-CCL schedule (use --from teccl-json)",
        "teccl-input": "a TE-CCL input file (a topology: use it as --topology)",
        "topology": "a topology (use it as --topology)",
        "unknown": _unknown(data),
    }
    raise FormatError(f"{path} is {names[found]}, not {wanted}")


def _ranks(value: Any, where: str, n: int) -> frozenset[int]:
    """A chunk's ``pre`` or ``post``: a list of ranks ``0..n-1`` (JSON integers)."""
    if not isinstance(value, list):
        raise FormatError(f"{where}: expected a list of ranks, got {shorten(value)}")
    return frozenset(json_int(x, where, 0, n - 1) for x in value)


def _unknown(data: Any) -> str:
    """What a JSON that no reader recognises holds, and what each reader looks for."""
    if isinstance(data, dict):
        keys = ", ".join(repr(k) for k in list(data)[:8]) + (", ..." if len(data) > 8 else "")
        what = f"a JSON object with keys {keys or 'none'}"
    else:
        what = f"a JSON {type(data).__name__}"
    return (
        f"{what}, none of the formats gossipcert reads (an SCCL/MSCCL algorithm has "
        "'msccl_type': 'algorithm'; a TE-CCL schedule '7-Flows'; a topology 'links', "
        "'capacity', 'TopologyParams' or TACCL's 'gpus_per_node')"
    )


#: SCCL's definitions (``msccl/collectives.py``) of the collectives its runtime names, on
#: ``n`` ranks: per chunk (precondition, postcondition, address)
def sccl_collective(name: str, n: int) -> list[tuple[frozenset[int], frozenset[int], int]]:
    """The chunks of SCCL's ``allgather``, ``alltoall``, ``allreduce`` or ``reducescatter``
    (SCCL's ``reduce_scatter``) on ``n`` ranks, before ``chunk_up``.

    Examples
    --------
    >>> sccl_collective("allreduce", 2)
    [(frozenset({0}), frozenset({0, 1}), 0), (frozenset({1}), frozenset({0, 1}), 0)]
    """
    everyone = frozenset(range(n))
    if name in ("allgather", "allreduce"):  # chunk c: rank c's data (allreduce: one address)
        return [(frozenset({c}), everyone, c if name == "allgather" else 0) for c in range(n)]
    # chunk c: from rank c mod n to rank c div n (reducescatter: to address c div n)
    return [
        (frozenset({c % n}), frozenset({c // n}), c if name == "alltoall" else c // n)
        for c in range(n * n)
    ]


def _collective_mismatch(
    name: str, n: int, base: list[tuple[frozenset[int], frozenset[int], int]]
) -> Finding | None:
    """A finding when the file's collective is not SCCL's definition of its runtime name
    (the runtime runs the algorithm as that collective, whatever the file's chunks say)."""
    want = sorted((sorted(p), sorted(q), a) for p, q, a in sccl_collective(name, n))
    have = sorted((sorted(p), sorted(q), a) for p, q, a in base)
    if want == have:
        return None
    gap = next((i for i, (x, y) in enumerate(zip(have, want, strict=False)) if x != y), None)
    detail = (
        f"{len(have)} chunks where SCCL's has {len(want)}"
        if gap is None
        else f"a chunk with pre {have[gap][0]}, post {have[gap][1]}, address {have[gap][2]} "
        f"where SCCL's has pre {want[gap][0]}, post {want[gap][1]}, address {want[gap][2]}"
    )
    return Finding(
        "collective-mismatch",
        f"the file's collective is not SCCL's {name} on {n} ranks ({detail}): its runtime "
        f"name makes the runtime run it as that {name}, which its pre- and postconditions do "
        "not describe",
    )


def _sccl_chunks(
    path: str, coll: dict[str, Any], n: int, k: int, name: str
) -> tuple[list[tuple[frozenset[int], frozenset[int], int, tuple[Any, ...]]], Finding | None]:
    """The chunks after ``chunk_up(k)``: (pre, post, address, identity), and a finding when
    the collective is not SCCL's definition of its runtime name."""
    base = coll.get("chunks")
    if not isinstance(base, list) or not base:
        raise FormatError(f"{path}: collective.chunks must be a non-empty list")
    check_limit(len(base) * k, MAX_CHUNKS, "chunks (collective.chunks times instance.chunks)",
                path)  # fmt: skip
    check_limit(n * len(base) * k, MAX_CELLS, f"slots to replay ({n} ranks)", path)
    read: list[tuple[frozenset[int], frozenset[int], int]] = []
    for c, chunk in enumerate(base):
        where = f"{path}: collective.chunks[{c}]"
        if not isinstance(chunk, dict):
            raise FormatError(f"{where}: expected an object with pre, post and addr")
        pre, post = _ranks(chunk.get("pre"), where, n), _ranks(chunk.get("post"), where, n)
        if not pre:
            raise FormatError(f"{where}: pre must name at least one rank of 0..{n - 1}")
        read.append((pre, post, json_int(chunk.get("addr", c), f"{where}: addr", 0, 2**31 - 1)))
    chunks = []
    seen: dict[tuple[Any, ...], int] = defaultdict(int)
    for c, (pre, post, addr) in enumerate(read):
        for piece in range(k):  # SCCL's chunk_up: address addr k + piece
            if name == "allgather":
                key: tuple[Any, ...] = (min(pre),)
            elif name == "alltoall" and len(post) == 1:
                key = (min(pre), min(post))
            else:
                key = ("chunk", c)
            identity = (*key, seen[key])
            seen[key] += 1
            chunks.append((pre, post, addr * k + piece if k > 1 else addr, identity))
    return chunks, _collective_mismatch(name, n, read) if name != "custom" else None


def read_sccl(path: str) -> tuple[Replay, str, int, int, Any]:
    """Replay an SCCL JSON algorithm: (replay, collective, ranks, sends, topology JSON).

    Each ``(rank, address)`` holds the set of chunks (for a combining collective: the
    contributions) it has; a send moves the sender's set at the start of the step. A
    receiver holding none of it, or a subset of it, takes it (a copy); one holding chunks it
    lacks combines them (a reduction), and when the two share a chunk neither a copy nor a
    sum gives each chunk once: a ``double-count``. A collective whose ``runtime_name`` is
    ``allgather``, ``alltoall``, ``allreduce`` or ``reduce_scatter`` must be SCCL's own
    definition of it (``collective-mismatch`` otherwise: the runtime runs it as that
    collective); any other is checked against its own pre- and postconditions.

    Raises
    ------
    FormatError
        Not an SCCL algorithm, malformed (a number that is not a JSON integer, a rank out
        of range), or beyond :mod:`gossipcert.limits`.
    """
    data = load_json(path)
    if what_json(data) != "sccl":
        _refuse(path, data, "an SCCL algorithm")
    coll, steps = data.get("collective"), data.get("steps")
    if not isinstance(coll, dict) or not isinstance(steps, list):
        raise FormatError(f"{path}: an SCCL algorithm needs 'collective' and 'steps'")
    n = json_int(coll.get("nodes"), f"{path}: collective.nodes", 1, MAX_RANKS)
    inst = data.get("instance") if isinstance(data.get("instance"), dict) else {}
    k = inst.get("chunks", 1)
    k = 1 if k is None else json_int(k, f"{path}: instance.chunks", 1, MAX_CHUNKS)
    name = _COLLECTIVES.get(str(coll.get("runtime_name", "")).lower(), "custom")
    chunks, mismatch = _sccl_chunks(path, coll, n, k, name)
    at_address: dict[int, list[int]] = defaultdict(list)
    value: dict[tuple[int, int], frozenset[int]] = defaultdict(frozenset)  # (rank, address)
    for i, (pre, _, addr, _) in enumerate(chunks):
        at_address[addr].append(i)
        for r in pre:
            value[(r, addr)] |= {i}
    findings: list[Finding] = [mismatch] if mismatch else []
    transfers: list[Transfer] = []
    offset = 0
    sends_total = 0
    for s, step in enumerate(steps):
        where = f"{path}: steps[{s}]"
        if not isinstance(step, dict) or not isinstance(step.get("sends"), list):
            raise FormatError(f"{where}: expected an object with 'rounds' and 'sends'")
        rounds = json_int(step.get("rounds", 1), f"{where}: rounds", 1, MAX_ROUNDS)
        check_limit(offset + rounds, MAX_ROUNDS, "rounds (the steps' rounds summed)", where)
        nxt = dict(value)
        per_link: dict[tuple[int, int], int] = defaultdict(int)
        for send in step["sends"]:
            if not isinstance(send, list) or len(send) != 3:
                raise FormatError(f"{where}: bad send {shorten(send)} (address, src, dst)")
            addr, src, dst = (json_int(x, f"{where}: send {shorten(send)}") for x in send)
            if not (0 <= src < n and 0 <= dst < n) or addr not in at_address:
                raise FormatError(f"{where}: bad send {send!r} (address, src, dst)")
            moved = value[(src, addr)]
            t = offset + per_link[(src, dst)] % rounds + 1
            per_link[(src, dst)] += 1
            sends_total += 1
            if not moved:
                findings.append(Finding(
                    "unwritten-read", f"step {s} (round {t}): GPU {src} sends address {addr} "
                    f"to GPU {dst}, but holds none of its chunks yet", t, src,
                ))  # fmt: skip
            held = nxt.get((dst, addr), frozenset())
            if held & moved and not moved >= held:
                findings.append(Finding(
                    "double-count", f"step {s} (round {t}): GPU {dst} holds chunks "
                    f"{sorted(chunks[i][3] for i in held)[:4]} at address {addr} and receives "
                    f"{sorted(chunks[i][3] for i in moved)[:4]} from GPU {src}: they share "
                    f"{sorted(chunks[i][3] for i in held & moved)[:4]}, which neither a copy nor "
                    "a sum counts once", t, dst,
                ))  # fmt: skip
            nxt[(dst, addr)] = moved if moved >= held else held | moved
            payload: Value = frozenset(chunks[i][3] for i in moved)
            transfers.append(Transfer(t, src, dst, 0, 1, (payload,)))
        value = defaultdict(frozenset, nxt)
        offset += rounds
    for i, (_, post, addr, identity) in enumerate(chunks):
        for r in sorted(post):
            if i not in value[(r, addr)]:
                findings.append(Finding(
                    "missing", f"at the end, GPU {r} lacks chunk {identity} (address {addr}), "
                    "which the collective's postcondition requires", rank=r,
                ))  # fmt: skip
    rounds_used = max((tr.round for tr in transfers), default=0)
    replay = Replay(rounds_used, sorted(transfers, key=lambda tr: tr.round), findings, k,
                    semantics=True)  # fmt: skip
    return replay, name, n, sends_total, data.get("topology")


def read_teccl(path: str) -> tuple[Replay, str, int, int]:
    """Replay a TE-CCL allgather schedule: (replay, collective, ranks, flows).

    Raises
    ------
    FormatError
        Not a TE-CCL schedule, an alltoall one, or malformed flows.
    """
    data = load_json(path)
    if what_json(data) != "teccl":
        _refuse(path, data, "a TE-CCL schedule")
    demand = data.get("6-Demand_Met")
    if not isinstance(demand, dict):
        raise FormatError(
            f"{path}: no '6-Demand_Met': TE-CCL writes it for allgather; its alltoall "
            "schedules are fractions of chunks over epochs, which rounds of whole chunks do "
            f"not hold: replay it in TE-CCL's own model with `gossipcert teccl {path}`"
        )
    wanted = _demands(demand, f"{path}: 6-Demand_Met")
    if not wanted:
        raise FormatError(f"{path}: '6-Demand_Met' names no demand (no GPU, no chunk)")
    gpus = {d for d, _, _ in wanted} | {s for _, s, _ in wanted}
    # rank r is the r-th GPU (TE-CCL numbers switches among its nodes: on two NDv2
    # chassis the GPUs are 1..15, on two DGX-2 1..16 and 18..33)
    rank = {g: r for r, g in enumerate(sorted(gpus))}
    n = len(gpus)
    wanted = {(rank[d], rank[s], c) for d, s, c in wanted}
    k = 1 + max((c for _, _, c in wanted), default=0)
    check_limit(n * n * k, MAX_CELLS, f"demands to check ({n} GPUs, {k} chunks)", path)
    complete = {(d, s, c) for d in range(n) for s in range(n) if s != d for c in range(k)}
    if wanted != complete:
        raise FormatError(f"{path}: the demands are not an allgather's (every GPU every chunk)")
    flows = data.get("7-Flows")
    if not isinstance(flows, list):
        raise FormatError(f"{path}: '7-Flows' must be a list of strings")
    moves = []
    for i, text in enumerate(flows):
        match = _FLOW.fullmatch(text) if isinstance(text, str) else None
        if match is None:
            raise FormatError(f"{path}: 7-Flows[{i}] is not 'Chunk c from s traveled over u->v "
                              f"in epoch e [via switches ...]': {str(text)[:80]!r}")  # fmt: skip
        c, s, u, v, e = map(int, match.groups())
        check_limit(e + 1, MAX_ROUNDS, "rounds (epoch + 1)", f"{path}: 7-Flows[{i}]")
        if not all(x in rank for x in (s, u, v)) or c >= k:
            raise FormatError(
                f"{path}: 7-Flows[{i}] names a node or chunk outside the demands (a line a "
                f"link, through switch nodes: replay it with `gossipcert teccl {path}`)"
            )
        moves.append((e + 1, rank[s], c, rank[u], rank[v]))
    held: dict[tuple[int, int], dict[int, int]] = defaultdict(dict)  # chunk -> gpu -> round
    for s in range(n):
        for c in range(k):
            held[(s, c)][s] = 0
    findings: list[Finding] = []
    transfers = []
    for t, s, c, u, v in sorted(moves):
        since = held[(s, c)].get(u)
        if since is None or since >= t:
            findings.append(Finding(
                "unwritten-read", f"epoch {t - 1}: GPU {u} sends chunk {c} of GPU {s} to GPU {v}"
                " before it holds it", t, u,
            ))  # fmt: skip
        held[(s, c)].setdefault(v, t)
        held[(s, c)][v] = min(held[(s, c)][v], t)
        transfers.append(Transfer(t, u, v, 0, 1, (frozenset({(s, c)}),)))
    for d, s, c in sorted(wanted):
        if d not in held[(s, c)]:
            findings.append(Finding(
                "missing", f"at the end, GPU {d} lacks chunk {c} of GPU {s}", rank=d,
            ))  # fmt: skip
    rounds = max((tr.round for tr in transfers), default=0)
    return Replay(rounds, transfers, findings, k, semantics=True), "allgather", n, len(moves)
