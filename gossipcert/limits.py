"""Limits and number parsing shared by the readers of other tools' files.

An algorithm or topology file is untrusted input: a file of a few hundred bytes may name a
billion GPUs or chunks. Each reader of :mod:`gossipcert.formats` (and the topology files of
:mod:`gossipcert.graphs.files`) refuses, with :class:`~gossipcert.errors.FormatError` naming
the limit, any size beyond these, which are generous for the files the tools publish (the
largest MSCCL algorithm of the executors' repositories has 32 GPUs and
``nchunksperloop="512"``; TE-CCL's published schedules run to 3,305 epochs):

* :data:`MAX_RANKS` GPUs (ranks, nodes of a topology matrix) in one file;
* :data:`MAX_CHUNKS` chunks (MSCCL ``nchunksperloop``, SCCL chunks times
  ``instance.chunks``, TE-CCL chunk indices);
* :data:`MAX_CELLS` slots a replay tracks: ranks times chunks, times ranks again for a
  reduction whose every output slot holds every rank's contribution;
* :data:`MAX_ROUNDS` rounds (SCCL steps' ``rounds`` summed, TE-CCL epochs).

**Integers.** MSCCL's executor reads every integer attribute with C's ``strtol(text, NULL,
0)`` (``minBytes`` and ``maxBytes`` with ``strtoll``) and stores the result in an ``int``
(``int64_t``): it skips leading white space, takes a sign, reads ``0x`` as hexadecimal and a
leading ``0`` as octal, stops at the first character that is not a digit (``"1e3"`` is 1,
``"0o1"`` is 0, an Arabic-Indic digit is 0) and wraps what does not fit. Python's
``int(text, 0)`` reads several of these otherwise (``"0o1"``, ``"1_0"``, ``"١"``). So
:func:`c_int` accepts exactly the texts both read alike and the same way as written: ASCII
decimal digits without a leading zero, an optional sign, white space around, within the C
type's range; any other text is refused with what the executor would read instead.
JSON numbers (SCCL, TE-CCL) are integers only when Python's :mod:`json` gives an ``int``
that is not a ``bool`` (:func:`json_int`); a float, even ``1.0``, is not one. Decoding JSON
nested deeper than Python's parser recurses, or holding an integer of more digits than
Python converts, is refused (:func:`decode_json`).

References
----------
.. [1] github.com/Azure/msccl-executor-nccl and github.com/ROCm/rccl,
   ``src/include/msccl/msccl_parser.h`` (``mscclXmlGetAttrInt``: ``strtol(str, NULL, 0)``).
.. [2] ISO/IEC 9899:2018, 7.22.1.4 (``strtol``).
"""

from __future__ import annotations

import json
import re
from typing import Any

from gossipcert.errors import FormatError

#: GPUs (ranks) in one algorithm or topology file
MAX_RANKS = 1024
#: chunks of one algorithm
MAX_CHUNKS = 1 << 16
#: slots (times contributions, for reductions) one replay tracks
MAX_CELLS = 1 << 21
#: rounds of a schedule read from a file
MAX_ROUNDS = 100_000

#: the white space C's ``isspace`` skips (the "C" locale)
_C_SPACE = " \t\n\v\f\r"
_DECIMAL = re.compile(r"[ \t\n\v\f\r]*[+-]?(0|[1-9][0-9]*)[ \t\n\v\f\r]*", re.ASCII)
_BITS = {32: "int", 64: "int64_t"}


def strtol_reading(text: str) -> tuple[int, str]:
    """What C's ``strtol(text, NULL, 0)`` reads from ``text``, and the text after it.

    Examples
    --------
    >>> strtol_reading(" 12ab"), strtol_reading("0o1"), strtol_reading("0x1F")
    ((12, 'ab'), (0, 'o1'), (31, ''))
    >>> strtol_reading("010"), strtol_reading("1e3")
    ((8, ''), (1, 'e3'))
    >>> strtol_reading("\\u0661"), strtol_reading("-")
    ((0, '\\u0661'), (0, '-'))
    """
    i, n = 0, len(text)
    while i < n and text[i] in _C_SPACE:
        i += 1
    sign = 1
    if i < n and text[i] in "+-":
        sign = -1 if text[i] == "-" else 1
        i += 1
    base, digits = 10, "0123456789"
    hexdigits = "0123456789abcdefABCDEF"
    if text[i : i + 2] in ("0x", "0X") and i + 2 < n and text[i + 2] in hexdigits:
        base, digits, i = 16, hexdigits, i + 2
    elif text[i : i + 1] == "0":
        base, digits = 8, "01234567"
    start = i
    while i < n and text[i] in digits:
        i += 1
    if i == start:
        return 0, text  # no conversion: strtol returns 0 and ends at the start
    return sign * int(text[start:i], base), text[i:]


def _wrapped(value: int, bits: int) -> int:
    """``value`` stored in a signed C integer of ``bits`` bits (two's complement)."""
    value &= (1 << bits) - 1
    return value - (1 << bits) if value >> (bits - 1) else value


def c_int(text: str, where: str, bits: int = 32) -> int:
    """An integer attribute read as the executor reads it (see the module docstring).

    Parameters
    ----------
    text : str
        The attribute's text.
    where : str
        The file, line and attribute, for the message.
    bits : {32, 64}
        The C type the executor stores it in (``int``, ``int64_t``).

    Raises
    ------
    FormatError
        Not ASCII decimal with an optional sign, or outside the C type's range; the
        message says what the executor reads instead.

    Examples
    --------
    >>> c_int("+12", "f"), c_int(" -1", "f")
    (12, -1)
    >>> c_int("0o1", "f:3 dstoff")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    gossipcert.errors.FormatError: f:3 dstoff='0o1' is not a decimal ... 0 and ignores 'o1'
    """
    if _DECIMAL.fullmatch(text):
        value = int(text)
        low, high = -(1 << (bits - 1)), (1 << (bits - 1)) - 1
        if not low <= value <= high:
            read = _wrapped(min(max(value, -(1 << 63)), (1 << 63) - 1), bits)
            raise FormatError(
                f"{where}={shorten(text)} is outside the executor's {_BITS[bits]} range ({low} to "
                f"{high}): it would read {read}"
            )
        return value
    value, rest = strtol_reading(text)
    value = min(max(value, -(1 << 63)), (1 << 63) - 1)  # strtol's long saturates
    ignored = f" and ignores {rest!r}" if rest.strip(_C_SPACE) else ""
    raise FormatError(
        f"{where}={text!r} is not a decimal integer: the executor (C's strtol, base 0) reads "
        f"it as {_wrapped(value, bits)}{ignored}"
    )


def json_int(value: Any, where: str, low: int | None = None, high: int | None = None) -> int:
    """A JSON integer (an ``int`` that is not a ``bool``) within ``[low, high]``.

    Raises
    ------
    FormatError
        Not an integer (a float such as ``1.0``, a string, a list, ``true``), or out of range.

    Examples
    --------
    >>> json_int(3, "x", 0, 4)
    3
    >>> json_int(True, "x")
    Traceback (most recent call last):
    ...
    gossipcert.errors.FormatError: x: expected an integer, got True
    """
    if isinstance(value, bool) or not isinstance(value, int):
        raise FormatError(f"{where}: expected an integer, got {shorten(value)}")
    if low is not None and value < low:
        raise FormatError(f"{where}: {value} is below {low}")
    if high is not None and value > high:
        raise FormatError(
            f"{where}: {shorten(value)} is above {high:,}, the most this reader takes "
            "(gossipcert.limits)"
        )
    return value


def check_limit(value: int, limit: int, what: str, where: str) -> None:
    """Refuse ``value`` above ``limit``, naming what is counted and the limit.

    Raises
    ------
    FormatError
        ``value > limit``.
    """
    if value > limit:
        raise FormatError(
            f"{where}: {shorten(value)} {what}, more than the {limit:,} this reader takes "
            "(gossipcert.limits)"
        )


def decode_json(text: str, name: str) -> Any:
    """Decoded JSON, or FormatError with the line for invalid JSON, JSON nested deeper than
    Python's parser recurses, or a number of more digits than Python converts.

    Examples
    --------
    >>> decode_json('{"a": [1, 2]}', "f")
    {'a': [1, 2]}
    >>> decode_json("[" * 100000 + "]" * 100000, "f")
    Traceback (most recent call last):
    ...
    gossipcert.errors.FormatError: f: JSON nested too deep to read
    """
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise FormatError(f"{name}:{exc.lineno}: invalid JSON: {exc.msg}") from None
    except RecursionError:
        raise FormatError(f"{name}: JSON nested too deep to read") from None
    except ValueError as exc:  # e.g. an integer of more digits than Python converts
        raise FormatError(f"{name}: unreadable JSON number ({str(exc).split(';')[0]})") from None


def shorten(value: Any, limit: int = 60) -> str:
    """``repr(value)``, cut to ``limit`` characters (for messages about untrusted input)."""
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."
