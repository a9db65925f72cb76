"""The first half of the independent MSCCL judge of ``tests/msccl_reference.py``: the
executor's tokenizer (``mscclXmlGetNode``, byte by byte), C's ``strtol`` and the loader
(``mscclGetAlgoFromXmlFile``: thread blocks, ``nop`` dependencies handed on, ``re`` steps
fused, the kernel's step counter), written from the executor's C code; it shares no code
with ``gossipcert.formats``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

MAX_STR_LEN, MAX_ATTR_COUNT, MAX_NODES = 255, 16, 4096
MAX_COUNT, MAX_REDUCE_FUSION, MAX_STEPS, MAX_CHANNELS = 72, 16, 64, 32
SEND, RECV, RCS, RRS, RRC, RRCS, CPY, RE = "s", "r", "rcs", "rrs", "rrc", "rrcs", "cpy", "re"
#: type -> (sends, receives, check src, check dst) as the loader sets them
TYPES = {
    SEND: (1, 0, 1, 0), RECV: (0, 1, 0, 1), RCS: (1, 1, 0, 1), RRS: (1, 1, 1, 0),
    RRC: (0, 1, 1, 1), RRCS: (1, 1, 1, 1), CPY: (0, 0, 1, 1), RE: (0, 0, 1, 1),
}  # fmt: skip
COLLS = ("reduce", "broadcast", "allreduce", "reducescatter", "allgather", "send", "recv",
         "gather", "scatter", "alltoall", "alltoallv")  # fmt: skip
CHECKED = ("allgather", "alltoall", "allreduce", "reducescatter", "reduce", "broadcast")


class InvalidError(Exception):
    """The executor refuses the file, or would run it wrongly."""


# ------------------------------------------------------------------ bytes, as the C reads them
def strtol(text: bytes) -> tuple[int, bool]:
    """C's ``strtol(text, NULL, 0)`` (a 64-bit long, saturating) and whether ``text`` is
    plain ASCII decimal without a leading zero (white space and a sign allowed)."""
    i, n = 0, len(text)
    while i < n and text[i] in b" \t\n\v\f\r":
        i += 1
    lead = i
    neg = i < n and text[i] == ord("-")
    if i < n and text[i] in b"+-":
        i += 1
    base, digits = 10, b"0123456789"
    if text[i : i + 2].lower() == b"0x" and i + 2 < n and text[i + 2] in b"0123456789abcdefABCDEF":
        base, digits, i = 16, b"0123456789abcdefABCDEF", i + 2
    elif text[i : i + 1] == b"0":
        base, digits = 8, b"01234567"
    start = i
    while i < n and text[i] in digits:
        i += 1
    value = int(text[start:i], base) if i > start else 0
    value = min(-value if neg else value, (1 << 63) - 1) if not neg else max(-value, -(1 << 63))
    rest = text[i:]
    plain = (
        i > start and base == 10 and all(c in b" \t\n\v\f\r" for c in rest) and text[lead:] != b""
    )
    if base == 8 and i - start == 1 and all(c in b" \t\n\v\f\r" for c in rest):
        plain = True  # a lone "0"
    return value, plain


def to_int(value: int, bits: int = 32) -> int:
    value &= (1 << bits) - 1
    return value - (1 << bits) if value >> (bits - 1) else value


@dataclass
class Node:
    name: bytes
    attrs: list[tuple[bytes, bytes]]
    subs: list[Node] = field(default_factory=list)

    def get(self, key: bytes) -> bytes | None:
        for k, v in self.attrs[:MAX_ATTR_COUNT]:
            if k == key:
                return v
        return None


class Reader:
    """``mscclXmlGetNode`` and ``mscclXmlLoadSub``, byte by byte."""

    def __init__(self, data: bytes) -> None:
        self.data, self.pos = data, 0
        self.roots: list[Node] = []  # the top-level elements handled

    def char(self) -> int:
        if self.pos >= len(self.data):
            raise InvalidError("XML Parse : Unexpected EOF")
        self.pos += 1
        return self.data[self.pos - 1]

    def value(self) -> tuple[bytes, int]:
        c = self.char()
        if c not in b"\"'":
            raise InvalidError("XML Parse : Expected (double) quote.")
        out = bytearray()
        while True:
            c = self.char()
            if c == ord('"'):
                break
            out.append(c)
        if len(out) > MAX_STR_LEN:
            raise InvalidError("value overflows its buffer")
        return bytes(out), self.char()

    def token(self, with_value: bool) -> tuple[bytes, bytes | None, int]:
        out = bytearray()
        while True:
            c = self.char()
            if c == ord("="):
                if not with_value:
                    raise InvalidError("XML Parse : Unexpected value")
                text, last = self.value()
                return bytes(out), text, last
            if len(out) == MAX_STR_LEN - 1:
                raise InvalidError("name too long")
            if c in b" >/\n\r":
                return bytes(out), None, c
            out.append(c)

    def node(self) -> tuple[str, Node | None]:
        c = ord(" ")
        while c in b" \n\r":
            if self.pos >= len(self.data):
                return "none", None
            c = self.char()
        if c != ord("<"):
            raise InvalidError("XML Parse error : expecting '<'")
        name, _, c = self.token(False)
        if name.startswith(b"!--"):
            window = b"..." + name[3:] + bytes([c])
            while window[-3:] != b"-->":
                window = window[-2:] + bytes([self.char()])
            return self.node()
        if name == b"" and c == ord("/"):
            name, _, c = self.token(False)
            if c != ord(">"):
                raise InvalidError("XML Parse error : unexpected trailing in closing tag")
            return "close", Node(name, [])
        attrs = []
        while c == ord(" "):
            key, text, c = self.token(True)
            attrs.append((key, text or b""))
        single = c == ord("/")
        if single:
            _, _, c = self.token(False)
        if c != ord(">"):
            raise InvalidError("XML Parse : expected >")
        return "single" if single else "open", Node(name, attrs)

    def load(self, head: Node | None, kind: str, handled: tuple[bytes, ...]) -> None:
        if kind == "single":
            return
        while True:
            what, node = self.node()
            if what == "none":
                if head is not None:
                    raise InvalidError("XML Parse : unterminated")
                return
            assert node is not None
            if head is not None and what == "close":
                if node.name != head.name:
                    raise InvalidError("XML Mismatch")
                return
            sub = {b"algo": (b"gpu",), b"gpu": (b"tb",), b"tb": (b"step",)}.get(node.name, ())
            if node.name in handled:
                if head is not None:
                    head.subs.append(node)
                else:
                    self.roots.append(node)
                self.load(node, what, sub)
            else:
                self.load(node, what, ())


# ------------------------------------------------------------------ the loader
@dataclass
class Tran:
    """One transmission of a thread block as the loader builds it."""

    type: str
    steps: list[dict[str, int | str]]  # the XML steps (several for fused re)
    deps: list[tuple[int, int]]
    has_dep: bool
    published: int = -1  # the kernel's counter when it publishes (or would)


@dataclass
class Block:
    rank: int
    bid: int
    send: int
    recv: int
    chan: int
    trans: list[Tran]
    nsteps: int
    i_chunks: int


class Loaded:
    def __init__(self, data: bytes) -> None:
        self.must_refuse: list[str] = []
        reader = Reader(data)
        first = Reader(data)
        _, meta = first.node()
        if meta is None or meta.name != b"algo":
            raise InvalidError("the first element is not <algo>")
        reader.load(None, "", (b"algo",))
        algos = reader.roots
        if not algos:
            raise InvalidError("no algo")
        self.algo = algos[0]

    def attr(self, node: Node, key: str, bits: int = 32) -> int:
        text = node.get(key.encode())
        if text is None:
            raise InvalidError(f"Attribute {key} of node {node.name!r} not found")
        value, plain = strtol(text)
        read = to_int(value, bits)
        if not plain or read != int(text):  # not as written, or wrapped into the C type
            self.must_refuse.append(f"{key}={text!r}")
        return read

    def text(self, node: Node, key: str) -> str:
        text = node.get(key.encode())
        if text is None:
            raise InvalidError(f"Attribute {key} not found")
        return text.decode("latin-1")


def load(data: bytes) -> tuple[Loaded, dict[str, int | str | None], list[Block], list[str]]:
    """The algorithm as the executor loads it on every rank: (loaded, head attributes,
    thread blocks, defects that keep it from being valid)."""
    ld = Loaded(data)
    a = ld.algo
    head: dict[str, int | str | None] = {}
    for key in ("nchunksperloop", "nchannels", "ngpus"):
        head[key] = ld.attr(a, key)
    head["proto"] = ld.text(a, "proto")
    if head["proto"] not in ("Simple", "LL128", "LL"):
        raise InvalidError("protocol")
    head["coll"] = ld.text(a, "coll")
    if head["coll"] not in COLLS:
        raise InvalidError("unsupported collective")
    defects = []
    for key, bits in (("minBytes", 64), ("maxBytes", 64), ("inplace", 32), ("outofplace", 32)):
        head[key] = ld.attr(a, key, bits) if a.get(key.encode()) is not None else None
        if head[key] is None:
            defects.append(f"{key} missing: the loader fails")
    n = head["ngpus"]
    assert isinstance(n, int)
    gpus = [g for g in a.subs if g.name == b"gpu"]
    ids = [ld.attr(g, "id") for g in gpus]
    if n < 1 or len(ids) != n or sorted(ids) != list(range(n)):
        raise InvalidError("the GPUs are not 0..ngpus-1, once each")
    for g in gpus:
        loaded = 1 + len(gpus) + len(g.subs) + sum(len(t.subs) for t in g.subs)
        if loaded >= MAX_NODES:
            raise InvalidError("XML parser is limited to MAX_NODES nodes")
    blocks: list[Block] = []
    for g, rank in zip(gpus, ids, strict=True):
        sizes = {b: ld.attr(g, f"{b}_chunks") for b in "ios"}
        if sizes["s"] < 0:
            raise InvalidError("nScratchChunks must be not negative")
        seen = set()
        for t in (t for t in g.subs if t.name == b"tb"):
            bid, recv, send, chan = (ld.attr(t, k) for k in ("id", "recv", "send", "chan"))
            if bid < 0 or bid in seen or recv == rank or send == rank or min(recv, send) < -1:
                raise InvalidError("bad thread block")
            if chan < 0 or chan > MAX_CHANNELS:
                raise InvalidError("invalid channel")
            if max(recv, send) >= n:
                raise InvalidError("a peer that is not a GPU")
            seen.add(bid)
            blocks.append(_block(ld, t, rank, bid, send, recv, chan, sizes))
        if seen and sorted(seen) != list(range(len(seen))):
            raise InvalidError("thread block missing")
    return ld, head, blocks, defects


def _block(ld: Loaded, t: Node, rank: int, bid: int, send: int, recv: int, chan: int,
           sizes: dict[str, int]) -> Block:  # fmt: skip
    trans: list[Tran] = []
    pending: list[tuple[int, int]] = []
    old = None  # (dst buffer, dst offset, src buffer) a re may fuse into
    reductions = 0
    count = 0
    numbers: list[int] = []
    for node in (s for s in t.subs if s.name == b"step"):
        count += 1
        names = ("s", "srcoff", "dstoff", "cnt", "depid", "deps", "hasdep")
        st: dict[str, int | str] = {key: ld.attr(node, key) for key in names}
        for k in ("srcbuf", "dstbuf", "type"):
            st[k] = ld.text(node, k)
        s, kind = st["s"], st["type"]
        assert isinstance(s, int)
        numbers.append(s)
        if s >= MAX_STEPS or s < 0:
            raise InvalidError("step index")
        if kind not in TYPES and kind != "nop":
            raise InvalidError("type of transfer is not supported")
        if st["depid"] >= 0:  # type: ignore[operator]
            pending.append((st["depid"], st["deps"]))  # type: ignore[arg-type]
        if st["srcbuf"] not in ("i", "o", "s") or st["dstbuf"] not in ("i", "o", "s"):
            raise InvalidError("type of buffer is not supported")
        if kind == "nop":
            continue
        here = (st["dstbuf"], st["dstoff"], st["srcbuf"])
        fused = kind == RE and old == here and st["depid"] == -1
        if kind == RE and not fused:
            old = None
        cnt = st["cnt"]
        assert isinstance(cnt, int)
        if cnt < 0 or cnt >= MAX_COUNT:
            raise InvalidError("count")
        sends, recvs, check_src, check_dst = TYPES[str(kind)]
        if (sends and send < 0) or (recvs and recv < 0):
            raise InvalidError("a send or receive without its peer")
        for flag, buf, off in ((check_src, str(st["srcbuf"]), int(st["srcoff"])),
                               (check_dst, str(st["dstbuf"]), int(st["dstoff"]))):  # fmt: skip
            if flag and (off < -1 or off >= sizes[buf]):
                raise InvalidError("Incorrect offset")
            if flag and (off < 0 or off + cnt > sizes[buf]):
                raise InvalidError("chunks outside the buffer (the kernel reads or writes past it)")
        if st["hasdep"] not in (0, 1):
            raise InvalidError("hasDependence needs to be 0 or 1")
        if fused and (pending or st["cnt"] != trans[-1].steps[-1]["cnt"]):
            ld.must_refuse.append("a re fused across a nop's dependency or with another cnt")
        if fused:
            trans[-1].steps.append(st)
            trans[-1].has_dep = bool(st["hasdep"])
        else:
            if pending and st["depid"] < 0:  # type: ignore[operator]
                raise InvalidError("a chain of dependencies must end in a step with one")
            trans.append(Tran(str(kind), [st], pending, bool(st["hasdep"])))
            pending = []
        if kind != RE:
            old = None
        else:
            reductions += 1
            full = st["hasdep"] or reductions == MAX_REDUCE_FUSION
            old = None if full else (st["dstbuf"], st["dstoff"], st["srcbuf"])
    counter = 0  # the kernel's step counter (msccl_kernel.cu)
    for tr in trans:
        if tr.deps:
            counter += len(tr.deps) - 1
        if tr.type == RE:
            counter += len(tr.steps) - 1
        tr.published = counter
        counter += 1
    if numbers != list(range(count)):  # a rule of the reader: a dependency names its ``s``
        raise InvalidError("steps not numbered 0, 1, 2, ... in order")
    return Block(rank, bid, send, recv, chan, trans, count, sizes["i"])
