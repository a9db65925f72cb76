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
GPUs need not be ``0..n-1``). Only allgather schedules are read here: TE-CCL's alltoall
output holds fractions of chunks over epochs. :mod:`.teccl` replays both in TE-CCL's own
epoch model (alpha, transmission epochs, switches), to the file's own epochs.

References
----------
.. [1] github.com/microsoft/sccl, ``msccl/serialization.py``, ``msccl/algorithm.py``.
.. [2] X. Liu et al., "Rethinking machine learning collective communication as a
   multi-commodity flow problem", SIGCOMM 2024 (github.com/microsoft/TE-CCL).
"""

from __future__ import annotations

import json
import re
from collections import defaultdict
from pathlib import Path
from typing import Any

from gossipcert.errors import FormatError
from gossipcert.formats.findings import Finding, Replay, Transfer, Value

#: SCCL's runtime names -> MSCCL's collective names
_COLLECTIVES = {
    "allgather": "allgather",
    "alltoall": "alltoall",
    "allreduce": "allreduce",
    "reduce_scatter": "reducescatter",
}
_FLOW = re.compile(
    r"Chunk (\d+) from (\d+) traveled over (\d+)->(\d+)(?: with volume [0-9.]+)? in epoch (\d+)"
)


def load_json(path: str) -> Any:
    """Decoded JSON of ``path`` (FormatError with the line for invalid JSON)."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise FormatError(f"{path} does not exist") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise FormatError(f"cannot read {path}: {exc}") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise FormatError(f"{path}:{exc.lineno}: invalid JSON: {exc.msg}") from None


def what_json(data: Any) -> str:
    """Which tool's JSON ``data`` looks like: ``sccl``, ``teccl``, ``teccl-input``,
    ``topology`` or ``unknown``."""
    if isinstance(data, dict):
        kind = data.get("msccl_type", data.get("sccl_type"))
        if kind == "algorithm":
            return "sccl"
        if kind == "topology" or "capacity" in data:
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
        "unknown": "JSON of no tool gossipcert reads",
    }
    raise FormatError(f"{path} is {names[found]}, not {wanted}")


def _ints(value: Any, where: str) -> list[int]:
    if not isinstance(value, list) or not all(
        isinstance(x, int) and not isinstance(x, bool) for x in value
    ):
        raise FormatError(f"{where}: expected a list of integers, got {value!r}")
    return value


def read_sccl(path: str) -> tuple[Replay, str, int, int, Any]:
    """Replay an SCCL JSON algorithm: (replay, collective, ranks, sends, topology JSON).

    Raises
    ------
    FormatError
        Not an SCCL algorithm, or malformed.
    """
    data = load_json(path)
    if what_json(data) != "sccl":
        _refuse(path, data, "an SCCL algorithm")
    coll, steps = data.get("collective"), data.get("steps")
    if not isinstance(coll, dict) or not isinstance(steps, list):
        raise FormatError(f"{path}: an SCCL algorithm needs 'collective' and 'steps'")
    n = coll.get("nodes")
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise FormatError(f"{path}: collective.nodes must be a positive integer")
    inst = data.get("instance") if isinstance(data.get("instance"), dict) else {}
    k = inst.get("chunks", 1) or 1
    if isinstance(k, bool) or not isinstance(k, int) or k < 1:
        raise FormatError(f"{path}: instance.chunks must be a positive integer")
    name = _COLLECTIVES.get(str(coll.get("runtime_name", "")).lower(), "custom")
    base = coll.get("chunks")
    if not isinstance(base, list) or not base:
        raise FormatError(f"{path}: collective.chunks must be a non-empty list")
    # chunked: (pre, post, address, identity)
    chunks: list[tuple[set[int], set[int], int, tuple[Any, ...]]] = []
    seen: dict[tuple[Any, ...], int] = defaultdict(int)
    for c, chunk in enumerate(base):
        where = f"{path}: collective.chunks[{c}]"
        if not isinstance(chunk, dict):
            raise FormatError(f"{where}: expected an object with pre, post and addr")
        pre, post = set(_ints(chunk.get("pre"), where)), set(_ints(chunk.get("post"), where))
        addr = chunk.get("addr", c)
        if not pre or not all(0 <= r < n for r in pre | post):
            raise FormatError(f"{where}: pre and post must name ranks 0..{n - 1}")
        for piece in range(k):
            if name == "allgather":
                key: tuple[Any, ...] = (min(pre),)
            elif name == "alltoall" and len(post) == 1:
                key = (min(pre), min(post))
            else:
                key = ("chunk", c)
            identity = (*key, seen[key])
            seen[key] += 1
            chunks.append((pre, post, addr * k + piece if k > 1 else addr, identity))
    at_address: dict[int, list[int]] = defaultdict(list)
    for i, (_, _, addr, _) in enumerate(chunks):
        at_address[addr].append(i)
    holds = [{i for i, (pre, _, _, _) in enumerate(chunks) if r in pre} for r in range(n)]
    findings: list[Finding] = []
    transfers: list[Transfer] = []
    offset = 0
    sends_total = 0
    for s, step in enumerate(steps):
        where = f"{path}: steps[{s}]"
        if not isinstance(step, dict) or not isinstance(step.get("sends"), list):
            raise FormatError(f"{where}: expected an object with 'rounds' and 'sends'")
        rounds = step.get("rounds", 1)
        if isinstance(rounds, bool) or not isinstance(rounds, int) or rounds < 1:
            raise FormatError(f"{where}: rounds must be a positive integer")
        nxt = [set(h) for h in holds]
        per_link: dict[tuple[int, int], int] = defaultdict(int)
        for send in step["sends"]:
            if not isinstance(send, list) or len(send) != 3:
                raise FormatError(f"{where}: bad send {send!r} (address, src, dst)")
            addr, src, dst = _ints(send, where)
            if not (0 <= src < n and 0 <= dst < n) or addr not in at_address:
                raise FormatError(f"{where}: bad send {send!r} (address, src, dst)")
            moved = [i for i in at_address[addr] if i in holds[src]]
            t = offset + per_link[(src, dst)] % rounds + 1
            per_link[(src, dst)] += 1
            sends_total += 1
            if not moved:
                findings.append(Finding(
                    "unwritten-read", f"step {s} (round {t}): GPU {src} sends address {addr} "
                    f"to GPU {dst}, but holds none of its chunks yet", t, src,
                ))  # fmt: skip
            nxt[dst].update(moved)
            payload: Value = frozenset(chunks[i][3] for i in moved)
            transfers.append(Transfer(t, src, dst, 0, 1, (payload,)))
        holds = nxt
        offset += rounds
    for i, (_, post, addr, identity) in enumerate(chunks):
        for r in sorted(post):
            if i not in holds[r]:
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
    wanted: set[tuple[int, int, int]] = set()
    gpus: set[int] = set()
    try:
        for d_key, sources in demand.items():
            d = int(str(d_key).removeprefix("GPU "))
            gpus.add(d)
            for s_key, pieces in sources.items():
                s = int(str(s_key).removeprefix("GPU "))
                gpus.add(s)
                for c_key in pieces:
                    wanted.add((d, s, int(str(c_key).removeprefix("Chunk "))))
    except (AttributeError, ValueError):
        raise FormatError(f"{path}: malformed '6-Demand_Met'") from None
    # rank r is the r-th GPU (TE-CCL numbers switches among its nodes: on two NDv2
    # chassis the GPUs are 1..15, on two DGX-2 1..16 and 18..33)
    rank = {g: r for r, g in enumerate(sorted(gpus))}
    n = len(gpus)
    wanted = {(rank[d], rank[s], c) for d, s, c in wanted}
    k = 1 + max((c for _, _, c in wanted), default=0)
    complete = {(d, s, c) for d in range(n) for s in range(n) if s != d for c in range(k)}
    if wanted != complete:
        raise FormatError(f"{path}: the demands are not an allgather's (every GPU every chunk)")
    flows = data.get("7-Flows")
    if not isinstance(flows, list):
        raise FormatError(f"{path}: '7-Flows' must be a list of strings")
    moves = []
    for i, text in enumerate(flows):
        match = _FLOW.match(str(text))
        if match is None:
            raise FormatError(f"{path}: 7-Flows[{i}] is not 'Chunk c from s traveled over "
                              f"u->v in epoch e': {str(text)[:80]!r}")  # fmt: skip
        c, s, u, v, e = map(int, match.groups())
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
