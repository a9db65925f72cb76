"""Small algorithm files written for the hostile-input tests: valid MSCCL XML algorithms to
mutate (as a plain structure serialised one element a line, the way MSCCLang writes them),
and the hand-written hostile files of SCCL and TE-CCL JSON."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable, Sequence
from typing import Any

from gossipcert.formats import readers
from gossipcert.formats.verdict import Verdict, assess

#: an MSCCL algorithm: (algo attributes, [(gpu attributes, [(tb attributes, [step attributes])])])
Block = tuple[dict[str, str], list[dict[str, str]]]
Algo = tuple[dict[str, str], list[tuple[dict[str, str], list[Block]]]]  # algo, gpus


def step(
    s: int,
    kind: str,
    src: tuple[str, int] = ("o", -1),
    dst: tuple[str, int] = ("o", -1),
    cnt: int = 1,
    dep: tuple[int, int] = (-1, -1),
    hasdep: int = 0,
) -> dict[str, str]:
    return {"s": str(s), "type": kind, "srcbuf": src[0], "srcoff": str(src[1]),
            "dstbuf": dst[0], "dstoff": str(dst[1]), "cnt": str(cnt), "depid": str(dep[0]),
            "deps": str(dep[1]), "hasdep": str(hasdep)}  # fmt: skip


def tb(i: int, send: int, recv: int, steps: list[dict[str, str]], chan: int = 0) -> Block:
    return {"id": str(i), "send": str(send), "recv": str(recv), "chan": str(chan)}, steps


def gpu(
    r: int, sizes: tuple[int, int, int], tbs: list[Block]
) -> tuple[dict[str, str], list[Block]]:
    i, o, s = sizes
    return {"id": str(r), "i_chunks": str(i), "o_chunks": str(o), "s_chunks": str(s)}, tbs


def head(n: int, coll: str, nchunks: int, inplace: int = 1, outofplace: int = 0) -> dict[str, str]:
    return {"name": "t", "proto": "LL", "nchannels": "1", "nchunksperloop": str(nchunks),
            "ngpus": str(n), "coll": coll, "inplace": str(inplace),
            "outofplace": str(outofplace), "minBytes": "0", "maxBytes": "0"}  # fmt: skip


def to_xml(algo: Algo) -> bytes:
    """One element a line, attributes separated by one space, as MSCCLang writes them."""

    def tag(name: str, attrs: dict[str, str], close: str = ">") -> str:
        return "<" + name + "".join(f' {k}="{v}"' for k, v in attrs.items()) + close

    lines = [tag("algo", algo[0])]
    for g_attrs, tbs in algo[1]:
        lines.append("  " + tag("gpu", g_attrs))
        for t_attrs, steps in tbs:
            lines.append("    " + tag("tb", t_attrs))
            lines.extend("      " + tag("step", s, "/>") for s in steps)
            lines.append("    </tb>")
        lines.append("  </gpu>")
    lines.append("</algo>")
    return ("\n".join(lines) + "\n").encode("utf-8")


def ring_allgather(n: int) -> Algo:
    """In place: rank r sends its chunk to r + 1 and forwards what it receives."""
    gpus = []
    for r in range(n):
        steps = [step(0, "s", ("o", r), ("o", r))]
        for t in range(1, n - 1):
            c = (r - t) % n
            steps.append(step(t, "rcs", ("o", c), ("o", c)))
        c = (r - n + 1) % n
        steps.append(step(n - 1, "r", ("o", c), ("o", c)))
        gpus.append(gpu(r, (0, n, 0), [tb(0, (r + 1) % n, (r - 1) % n, steps)]))
    return head(n, "allgather", n), gpus


def pair_allgather() -> Algo:
    """Two GPUs out of place, each copying its own chunk in a thread block of its own."""
    gpus = []
    for r in range(2):
        p = 1 - r
        gpus.append(gpu(r, (1, 2, 0), [
            tb(0, p, p, [step(0, "s", ("i", 0), ("o", r)), step(1, "r", ("o", p), ("o", p))]),
            tb(1, -1, -1, [step(0, "cpy", ("i", 0), ("o", r))]),
        ]))  # fmt: skip
    return head(2, "allgather", 2, inplace=0, outofplace=1), gpus


def relay_allgather() -> Algo:
    """Two GPUs in place: a receive into scratch, signalled to a second thread block that
    copies it out (a dependency, ``hasdep`` and a ``nop``)."""
    gpus = []
    for r in range(2):
        p = 1 - r
        gpus.append(gpu(r, (0, 2, 1), [
            tb(0, p, p, [step(0, "s", ("o", r), ("o", r)),
                         step(1, "r", ("s", 0), ("s", 0), hasdep=1)]),
            tb(1, -1, -1, [step(0, "nop", ("i", -1), ("o", -1), cnt=0, dep=(0, 1)),
                           step(1, "cpy", ("s", 0), ("o", p), dep=(0, 1))]),
        ]))  # fmt: skip
    return head(2, "allgather", 2), gpus


def ring_allreduce(n: int) -> Algo:
    """In place, ``n`` chunks: reduce-scatter (``rrs``, then ``rrcs``) then allgather
    (``rcs``, ``r``) round a ring."""
    gpus = []
    for r in range(n):
        steps = [step(0, "s", ("i", r), ("i", r))]
        for t in range(1, n - 1):
            c = (r - t) % n
            steps.append(step(t, "rrs", ("i", c), ("i", c)))
        c = (r - n + 1) % n
        steps.append(step(n - 1, "rrcs", ("i", c), ("i", c)))
        for t in range(n - 2):
            c = (r - t) % n
            steps.append(step(n + t, "rcs", ("i", c), ("i", c)))
        c = (r + 2) % n
        steps.append(step(2 * n - 2, "r", ("i", c), ("i", c)))
        gpus.append(gpu(r, (n, n, 0), [tb(0, (r + 1) % n, (r - 1) % n, steps)]))
    return head(n, "allreduce", n), gpus


def pairs_alltoall(n: int) -> Algo:
    """Out of place: rank r sends chunk d to d on thread block d, keeps its own by a copy."""
    gpus = []
    for r in range(n):
        tbs: list[Block] = []
        for d in range(n):
            if d == r:
                tbs.append(tb(len(tbs), -1, -1, [step(0, "cpy", ("i", r), ("o", r))]))
                continue
            tbs.append(tb(len(tbs), d, d, [step(0, "s", ("i", d), ("o", r)),
                                           step(1, "r", ("i", d), ("o", d))]))  # fmt: skip
        gpus.append(gpu(r, (n, n, 0), tbs))
    return head(n, "alltoall", n, inplace=0, outofplace=1), gpus


def chain_reduce() -> Algo:
    """``reduce`` to rank 2 on a path 0 - 1 - 2, in place: 0 sends, 1 receive-reduce-sends,
    2 receive-reduce-copies."""
    return head(3, "reduce", 1), [
        gpu(0, (1, 1, 0), [tb(0, 1, -1, [step(0, "s", ("i", 0), ("i", 0))])]),
        gpu(1, (1, 1, 0), [tb(0, 2, 0, [step(0, "rrs", ("i", 0), ("i", 0))])]),
        gpu(2, (1, 1, 0), [tb(0, -1, 1, [step(0, "rrc", ("i", 0), ("i", 0))])]),
    ]


def chain_broadcast() -> Algo:
    """``broadcast`` from rank 0 on a path, out of place: copy, send, receive-copy-send."""
    return head(3, "broadcast", 1, inplace=0, outofplace=1), [
        gpu(0, (1, 1, 0), [tb(0, 1, -1, [step(0, "cpy", ("i", 0), ("o", 0)),
                                         step(1, "s", ("i", 0), ("o", 0))])]),
        gpu(1, (1, 1, 0), [tb(0, 2, 0, [step(0, "rcs", ("o", 0), ("o", 0))])]),
        gpu(2, (1, 1, 0), [tb(0, -1, 1, [step(0, "r", ("o", 0), ("o", 0))])]),
    ]  # fmt: skip


def local_reduce() -> Algo:
    """One GPU's allreduce of three chunks, in place (a reduction over one rank is the
    identity), with a scratch sum of the three folded by two ``re`` steps the loader fuses
    into one transmission."""
    return head(1, "allreduce", 3), [
        gpu(0, (3, 3, 1), [tb(0, -1, -1, [step(0, "cpy", ("i", 0), ("s", 0)),
                                          step(1, "re", ("i", 1), ("s", 0)),
                                          step(2, "re", ("i", 2), ("s", 0))])]),
    ]  # fmt: skip


def two_gather() -> Algo:
    """A ``gather`` (its result is not checked): 1 sends its input to 0."""
    return head(2, "gather", 2, inplace=0, outofplace=1), [
        gpu(0, (1, 2, 0), [tb(0, -1, 1, [step(0, "r", ("o", 1), ("o", 1))])]),
        gpu(1, (1, 2, 0), [tb(0, 0, -1, [step(0, "s", ("i", 0), ("o", 1))])]),
    ]


#: the valid algorithms the property tests mutate
BASES = {
    "ring-allgather-3": ring_allgather(3),
    "pair-allgather": pair_allgather(),
    "relay-allgather": relay_allgather(),
    "ring-allreduce-3": ring_allreduce(3),
    "pairs-alltoall-3": pairs_alltoall(3),
    "chain-reduce": chain_reduce(),
    "chain-broadcast": chain_broadcast(),
    "local-reduce": local_reduce(),
    "two-gather": two_gather(),
}


def issue_race() -> bytes:
    """GPU 0's thread block 0 copies o[0] into s[0] and sends s[0]; its thread block 1, with
    no dependency on block 0, receives into s[0] and copies s[0] into o[1]."""
    return to_xml((head(2, "allgather", 2), [
        gpu(0, (1, 2, 1), [
            tb(0, 1, -1, [step(0, "cpy", ("o", 0), ("s", 0)), step(1, "s", ("s", 0), ("s", 0))]),
            tb(1, -1, 1, [step(0, "r", ("s", 0), ("s", 0)), step(1, "cpy", ("s", 0), ("o", 1))]),
        ]),
        gpu(1, (1, 2, 0), [tb(0, 0, 0, [step(0, "s", ("o", 1), ("o", 1)),
                                        step(1, "r", ("o", 0), ("o", 0))])]),
    ]))  # fmt: skip


def sccl(name: str, n: int, chunks: list[dict[str, Any]], steps: list[Any], k: int = 1) -> str:
    """An SCCL JSON algorithm (``msccl_type`` objects) with ``runtime_name`` ``name``."""
    return json.dumps({
        "msccl_type": "algorithm", "name": "x",
        "instance": {"msccl_type": "instance", "steps": len(steps), "extra_rounds": 0,
                     "chunks": k, "pipeline": None, "extra_memory": None,
                     "allow_exchange": False},
        "input_map": {}, "output_map": {},
        "collective": {"msccl_type": "collective", "name": name, "nodes": n, "chunks": chunks,
                       "triggers": {}, "runtime_name": name},
        "steps": [{"msccl_type": "step", "rounds": 1, "sends": s} for s in steps],
        "topology": None,
    })  # fmt: skip


def sccl_allreduce_defined(n: int) -> list[dict[str, Any]]:
    """SCCL's ``allreduce(n)``: chunk c is rank c's contribution, every one at address 0."""
    return [{"msccl_type": "chunk", "pre": [c], "post": list(range(n)), "addr": 0}
            for c in range(n)]  # fmt: skip


def sccl_reduce_scatter_defined(n: int) -> list[dict[str, Any]]:
    """SCCL's ``reduce_scatter(n)``: chunk c from rank c mod n to rank c div n, at address
    c div n."""
    return [{"msccl_type": "chunk", "pre": [c % n], "post": [c // n], "addr": c // n}
            for c in range(n * n)]  # fmt: skip


def sccl_ring_allreduce(n: int) -> str:
    """SCCL allreduce round a ring: reduce (each rank adds its contribution on the way to
    rank n - 1), then broadcast back, at the one address."""
    steps = [[[0, r, r + 1]] for r in range(n - 1)]
    steps += [[[0, n - 1 - i, n - 2 - i]] for i in range(n - 1)]
    return sccl("allreduce", n, sccl_allreduce_defined(n), steps)


def sccl_ring_allgather(n: int) -> str:
    chunks = [{"msccl_type": "chunk", "pre": [c], "post": list(range(n)), "addr": c}
              for c in range(n)]  # fmt: skip
    steps = [[[(r - t) % n, r, (r + 1) % n] for r in range(n)] for t in range(n - 1)]
    return sccl("allgather", n, chunks, steps)


def teccl_ring(n: int) -> str:
    """TE-CCL's allgather output on a one-way ring: chunk of s crosses s+e -> s+e+1 in
    epoch e."""
    flows = [f"Chunk 0 from {s} traveled over {(s + e) % n}->{(s + e + 1) % n} in epoch {e}"
             for s in range(n) for e in range(n - 1)]  # fmt: skip
    demand = {f"GPU {d}": {f"GPU {s}": {"Chunk 0": float((d - s) % n)} for s in range(n)
                           if s != d} for d in range(n)}  # fmt: skip
    return json.dumps({"1-Epoch_Duration": 1.0, "6-Demand_Met": demand, "7-Flows": flows})


# ------------------------------------------------------------------ mutations
#: a chooser: picks one item of a sequence (a hypothesis draw, or ``random.Random.choice``)
Choose = Callable[[Sequence[Any]], Any]

#: integer texts: 0, negative, huge, and what readers other than C's strtol read otherwise
NUMBERS = ["0", "1", "-1", "2", "3", "-2", "63", "64", "71", "72", "2147483647", "2147483648",
           "-2147483649", "4294967297", "1000000000000", "9" * 30, "0o1", "0x1", "01", "010",
           "1e3", " 1", "+1", "1 ", "\u0661", "\uff11", "1_0", "", "&#49;", "1.0", "x"]  # fmt: skip
#: other values of the attributes that name something
ENUMS = {
    "type": ["s", "r", "rcs", "rrs", "rrc", "rrcs", "cpy", "re", "nop", "S", ""],
    "srcbuf": ["i", "o", "s", "x"], "dstbuf": ["i", "o", "s", "x"],
    "coll": ["allgather", "alltoall", "allreduce", "reducescatter", "reduce", "broadcast",
             "gather", "scatter", "send", "alltoallv", "custom"],
    "proto": ["LL", "LL128", "Simple", "ll"],
    "inplace": ["0", "1", "2"], "outofplace": ["0", "1"],
}  # fmt: skip
#: JSON values put in place of another
ODD: list[Any] = [0, 1, -1, 2, 3, 10**12, 10**30, 1.5, 1.0, True, False, None, "1", "GPU 1",
                  "Chunk 1", "GPU \u0661", [], {}, [0, 1, 2], {"a": 1}, [[0, 1, 2]]]  # fmt: skip


def mutate_msccl(algo: Algo, choose: Choose) -> bytes:
    """``algo`` (a copy) with one to three mutations: an attribute set to a text of
    :data:`NUMBERS` (or another value of its kind), an attribute or a step deleted (the steps
    renumbered), two steps of a thread block swapped."""
    algo = copy.deepcopy(algo)
    for _ in range(choose([1, 2, 3])):
        elems: list[dict[str, str]] = [algo[0]]
        blocks = []
        for g, tbs in algo[1]:
            elems.append(g)
            for t, steps in tbs:
                elems.append(t)
                elems.extend(steps)
                blocks.append(steps)
        what = choose(["value"] * 6 + ["delete-attr", "delete-step", "swap"])
        if what in ("delete-step", "swap") and any(len(b) > 1 for b in blocks):
            steps = choose([b for b in blocks if len(b) > 1])
            i = choose(range(len(steps)))
            j = choose([x for x in range(len(steps)) if x != i])
            if what == "swap":
                steps[i], steps[j] = steps[j], steps[i]
            else:
                del steps[i]
            for k, st in enumerate(steps):
                st["s"] = str(k)
            continue
        elem = choose(elems)
        if not elem:
            continue
        key = choose(sorted(elem))
        if what == "delete-attr":
            del elem[key]
        else:
            elem[key] = choose(ENUMS.get(key, []) + NUMBERS)
    return to_xml(algo)


def _paths(value: Any, here: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [here]
    if isinstance(value, dict):
        for key, item in value.items():
            out.extend(_paths(item, (*here, key)))
    elif isinstance(value, list):
        for i, item in enumerate(value):
            out.extend(_paths(item, (*here, i)))
    return out


def mutate_json(text: str, choose: Choose) -> str:
    """A JSON file with one to three mutations: a value replaced by one of :data:`ODD` (a
    number pushed to 0, negative or huge, a float, a bool, a string of non-ASCII digits, a
    list, an object), an entry deleted or repeated, a key renamed."""
    data = json.loads(text)
    for _ in range(choose([1, 2, 3])):
        paths = _paths(data)[1:]
        if not paths:
            break
        path = choose(paths)
        parent = data
        for key in path[:-1]:
            parent = parent[key]
        key = path[-1]
        what = choose(["value"] * 5 + ["delete", "repeat", "rename"])
        if what == "delete":
            del parent[key]
        elif what == "repeat" and isinstance(parent, list):
            parent.insert(key, copy.deepcopy(parent[key]))
        elif what == "rename" and isinstance(parent, dict):
            parent[choose(["GPU 7", "Chunk 9", "GPU \u0661", "x", "GPU 01"])] = parent.pop(key)
        else:
            parent[key] = copy.deepcopy(choose(ODD))
    return json.dumps(data)


def full_mesh(ranks: int) -> str:
    """The topology a test judges a file's validity on: every rank linked to every other
    (the verdicts under test do not depend on the machine; ``verify --from`` asks for one)."""
    return f"fully-connected:{ranks}" if ranks > 1 else "complete:1"


def judge_on_full_mesh(path: str, fmt: str) -> Verdict:
    """``verify_algorithm`` without the optimum, on :func:`full_mesh` of the file's ranks."""
    loaded = readers.load(path, fmt)
    return assess(loaded.replay, source=path, fmt=fmt, collective=loaded.collective,
                  ranks=loaded.ranks, steps=loaded.steps, optimum=False, root=loaded.root,
                  topology=loaded.topology or full_mesh(loaded.ranks))  # fmt: skip
