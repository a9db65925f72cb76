"""The MSCCL executor's own XML tokenizer, replayed on an algorithm file's bytes.

The executor does not read its algorithm files with an XML library: ``mscclXmlGetNode`` in
``src/misc/msccl/msccl_parser.cc`` reads the bytes one by one, and what it reads can differ
from what an XML parser (:mod:`defusedxml`, which :mod:`gossipcert.formats.msccl_xml` uses)
reads. :func:`check_executor_reading` runs the executor's tokenizer on the file and refuses
the file (:class:`~gossipcert.errors.FormatError`, with the line) when that tokenizer fails or
reads an attribute the loader uses otherwise than the XML parser. Its rules, from the C code:

* between elements only spaces and line ends (``\\n``, ``\\r``) may stand: a tab, text or a
  byte-order mark is an error (``expecting '<'``);
* an element's name ends at a space, ``>``, ``/`` or a line end; attributes are read only
  while the character after the name or after a value is a space: a line end between
  attributes, or spaces around ``=``, is an error (``expected >``);
* a value opens with a double or single quote and ends at the next *double* quote; it is
  taken as written: no character or entity reference is decoded (``&#49;`` is not ``1``), no
  white space normalised;
* a name of more than 253 bytes is an error (``MAX_STR_LEN``); a value of more than 255
  bytes overflows the executor's buffer and is refused here; an element keeps its first 16
  attributes (``MAX_ATTR_COUNT``), later ones are ignored;
* a comment ``<!-- ... -->`` is skipped; anything else, an XML declaration ``<?xml ...?>``
  included, is an element, and the first element must be the ``<algo>`` (the executor reads
  the first one as the algorithm's metadata, ``mscclGetAlgoMetaFromXmlFile``).

References
----------
.. [1] github.com/Azure/msccl-executor-nccl and github.com/ROCm/rccl,
   ``src/misc/msccl/msccl_parser.cc`` (``mscclXmlGetToken``, ``mscclXmlGetValue``,
   ``mscclXmlGetNode``) and ``src/include/msccl/msccl_parser.h`` (``MAX_STR_LEN``,
   ``MAX_ATTR_COUNT``).
"""

from __future__ import annotations

import re
from xml.etree.ElementTree import Element

from gossipcert.errors import FormatError

#: ``MAX_STR_LEN`` and ``MAX_ATTR_COUNT`` of the executor's parser
MAX_STR_LEN = 255
MAX_ATTR_COUNT = 16
#: the attributes the executor's loader reads, per element
READ_KEYS = {
    "algo": (
        "nchunksperloop", "nchannels", "ngpus", "proto", "coll", "minBytes", "maxBytes",
        "inplace", "outofplace",
    ),
    "gpu": ("id", "i_chunks", "o_chunks", "s_chunks"),
    "tb": ("id", "recv", "send", "chan"),
    "step": (
        "s", "srcoff", "srcbuf", "dstoff", "dstbuf", "cnt", "type", "depid", "deps", "hasdep",
    ),
}  # fmt: skip

_NAME = re.compile(rb"[^ >/\n\r=]*")
_ENDS = b" >/\n\r"


class _RefusedError(Exception):
    """The executor's tokenizer fails at a byte offset."""

    def __init__(self, pos: int, message: str) -> None:
        super().__init__(message)
        self.pos = pos


def _char(data: bytes, pos: int) -> str:
    return "end of file" if pos >= len(data) else repr(chr(data[pos]))


def _token(data: bytes, pos: int, value: bool) -> tuple[bytes, bytes | None, int, int]:
    """``mscclXmlGetToken`` from ``pos``: (name, value or None, the byte after it, new pos)."""
    end = _NAME.match(data, pos).end()  # type: ignore[union-attr]
    if end >= len(data):
        raise _RefusedError(end, "unexpected end of file")
    name, stop = data[pos:end], data[end]
    if stop == ord("="):
        if not value:
            label = name.decode(errors="replace")
            raise _RefusedError(end, f"a value ('=') after the element name {label!r}")
        if len(name) > MAX_STR_LEN - 1:
            raise _RefusedError(pos, f"an attribute name of {len(name)} bytes (MAX_STR_LEN)")
        quote = end + 1
        if quote >= len(data) or data[quote] not in b"\"'":
            raise _RefusedError(quote, f"expected a quote after '=', got {_char(data, quote)}")
        close = data.find(b'"', quote + 1)
        if close < 0 or close + 1 >= len(data):
            raise _RefusedError(quote, "unexpected end of file in an attribute value")
        text = data[quote + 1 : close]
        if len(text) > MAX_STR_LEN:
            raise _RefusedError(quote, f"a value of {len(text)} bytes overflows its buffer")
        return name, text, data[close + 1], close + 2
    if len(name) > MAX_STR_LEN - 2:
        raise _RefusedError(pos, f"a name of {len(name)} bytes (MAX_STR_LEN)")
    return name, None, stop, end + 1


def _node(data: bytes, pos: int) -> tuple[str | None, dict[str, bytes], int]:
    """``mscclXmlGetNode`` at ``pos`` (a ``<``), byte by byte: (the element's name, None for
    a comment or a closing tag; the attributes it keeps; the position after it)."""
    name, _, stop, pos = _token(data, pos + 1, value=False)
    if name.startswith(b"!--"):
        end = data.find(b"-->", pos - len(name) + 2)
        if end < 0:
            raise _RefusedError(pos, "unterminated comment")
        return None, {}, end + 3
    if not name and stop == ord("/"):  # a closing tag
        _, _, stop, pos = _token(data, pos, value=False)
        if stop != ord(">"):
            raise _RefusedError(pos - 1, f"{_char(data, pos - 1)} after a closing tag's name")
        return None, {}, pos
    attrs: dict[str, bytes] = {}
    count = 0
    while stop == ord(" "):
        key, text, stop, pos = _token(data, pos, value=True)
        if count < MAX_ATTR_COUNT:
            count += 1
            attrs.setdefault(key.decode("utf-8", "replace"), text or b"")
    if stop == ord("/"):
        _, _, stop, pos = _token(data, pos, value=False)
    if stop != ord(">"):
        raise _RefusedError(pos - 1, f"expected '>', got {_char(data, pos - 1)}")
    return name.decode("utf-8", "replace"), attrs, pos


#: the executor's elements in their plainest form (no comment, every name, key and value
#: short), read at once; anything else goes through :func:`_node`
_TAG = re.compile(
    rb'<([^ >/\n\r=!]{1,253})((?: (?:[^ >/\n\r=]{0,254}=["\'][^"]{0,255}"|[^ >/\n\r=]{0,253}))*)'
    rb"(/)?>"
    rb"|</([^ >/\n\r=]{0,253})>"
)
_ATTR = re.compile(rb' ([^ >/\n\r=]*)(?:=["\']([^"]*)")?')
_SPACE = re.compile(rb"[ \n\r]*")


def executor_elements(data: bytes) -> list[tuple[str, dict[str, bytes], int]]:
    """Every element the executor's tokenizer reads: (name, the attributes it keeps, byte
    offset), in document order.

    Raises
    ------
    _RefusedError
        Where the tokenizer fails.
    """
    out: list[tuple[str, dict[str, bytes], int]] = []
    pos, n = 0, len(data)
    while True:
        pos = _SPACE.match(data, pos).end()  # type: ignore[union-attr]
        if pos >= n:
            return out
        if data[pos] != ord("<"):
            raise _RefusedError(pos, f"expecting '<', got {_char(data, pos)}")
        match = _TAG.match(data, pos)
        if match is None:
            name, attrs, end = _node(data, pos)
        elif match.group(4) is not None:  # a closing tag
            name, end = None, match.end()
        else:
            name, attrs, end = match.group(1).decode("utf-8", "replace"), {}, match.end()
            for count, (key, text) in enumerate(_ATTR.findall(match.group(2))):
                if count < MAX_ATTR_COUNT:
                    attrs.setdefault(key.decode("utf-8", "replace"), text)
        if name is not None:
            out.append((name, attrs, pos))
        pos = end


def check_executor_reading(data: bytes, root: Element, source: str) -> None:
    """Refuse a file the executor's tokenizer fails on or reads otherwise than ``root`` (the
    XML parser's tree of the same bytes) in an attribute the loader uses.

    Raises
    ------
    FormatError
        With the line, what the executor's parser does and, for an attribute read otherwise,
        both readings.

    Examples
    --------
    >>> from xml.etree.ElementTree import fromstring
    >>> text = b'<algo ngpus="&#49;"></algo>'
    >>> check_executor_reading(text, fromstring(text), "f.xml")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    gossipcert.errors.FormatError: f.xml:1: ... reads <algo> attribute ngpus as '&#49;', not '1' ...
    """

    def line(pos: int) -> int:
        return data.count(b"\n", 0, pos) + 1

    try:
        seen = executor_elements(data)
    except _RefusedError as exc:
        raise FormatError(
            f"{source}:{line(exc.pos)}: the MSCCL executor's XML parser refuses the file: {exc}"
        ) from None
    if not seen or seen[0][0] != "algo":
        first = seen[0][0] if seen else "nothing"
        raise FormatError(
            f"{source}: the MSCCL executor reads the first element as the algorithm, and it is "
            f"<{first}>, not <algo> (an XML declaration or another element comes first)"
        )
    read = [(name, attrs, pos) for name, attrs, pos in seen if name in READ_KEYS]
    parsed = [elem for elem in root.iter() if elem.tag in READ_KEYS]
    if [r[0] for r in read] != [e.tag for e in parsed]:
        raise FormatError(
            f"{source}: the MSCCL executor's XML parser finds other elements than an XML "
            "parser does (text, CDATA or processing instructions between them)"
        )
    for (name, attrs, pos), elem in zip(read, parsed, strict=True):
        for key in READ_KEYS[name]:
            mine, theirs = elem.get(key), attrs.get(key)
            if mine is None:
                continue  # missing: the reader says so
            if theirs is None:
                raise FormatError(
                    f"{source}:{line(pos)}: the MSCCL executor does not see <{name}> attribute "
                    f"{key} (it keeps an element's first {MAX_ATTR_COUNT} attributes)"
                )
            if theirs != mine.encode("utf-8"):
                raise FormatError(
                    f"{source}:{line(pos)}: the MSCCL executor reads <{name}> attribute {key} as "
                    f"{theirs.decode('utf-8', 'replace')!r}, not {mine!r} (its parser decodes no "
                    "references and normalises no white space)"
                )
