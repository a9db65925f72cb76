"""Message sizes: parsing ``--size 1K,64M,1G`` and the default sizes of an algorithm file.

A size is the collective's buffer as the MSCCL executor counts it (``nBytes``: the count
times the type's size times ``sizeMultiplier``): the whole output of an allgather, the
whole input of a reduce-scatter, a rank's whole send buffer of an alltoall, the buffer of
an allreduce, broadcast or reduce. Suffixes count in powers of 1024 as nccl-tests' ``-b``
and ``-e`` do: ``K``, ``M``, ``G``, ``T`` (``KiB``, ``KB`` and ``k`` are the same).

References
----------
.. [1] github.com/Azure/msccl-executor-nccl, ``src/misc/msccl/msccl_lifecycle.cc``
   (``nBytes = count * typeSize * sizeMultiplier``, compared with ``minBytes`` and
   ``maxBytes``) and ``msccl_parser.cc`` (``sizeMultiplier`` is the number of GPUs for
   allgather, reducescatter and alltoall).
"""

from __future__ import annotations

import math
import re

from gossipcert.errors import SpecError

__all__ = ["default_sizes", "format_size", "parse_sizes"]

_SIZE = re.compile(r"\s*([0-9]*\.?[0-9]+(?:[eE][+-]?[0-9]+)?)\s*([kmgtKMGT]?)(?:i?[bB])?\s*")
_POWERS = {"": 0, "k": 1, "m": 2, "g": 3, "t": 4}
#: the largest size a default list reaches when the file sets no maximum (1 GiB)
DEFAULT_MAX = 1 << 30
#: sizes in a default list at most (beyond it the list takes every other power of 4)
DEFAULT_COUNT = 12


def parse_sizes(
    text: str | int | float | list[int | float] | tuple[int | float, ...],
) -> list[float]:
    """The sizes of ``--size`` (a comma-separated list), each a positive number.

    Raises
    ------
    SpecError
        An empty list, or a size that is not a positive number (with a suffix).

    Examples
    --------
    >>> parse_sizes("1K, 64M,1.5G")
    [1024.0, 67108864.0, 1610612736.0]
    >>> parse_sizes("0")
    Traceback (most recent call last):
    ...
    gossipcert.errors.SpecError: a size must be a positive number (bytes, or K, M, G, T), got '0'
    """
    items = text if isinstance(text, (list, tuple)) else str(text).split(",")
    out = []
    for item in items:
        if isinstance(item, (int, float)) and not isinstance(item, bool):
            value = float(item)
        else:
            match = _SIZE.fullmatch(str(item))
            if match is None:
                raise SpecError(
                    f"a size must be a positive number (bytes, or K, M, G, T), got {item!r}"
                )
            value = float(match.group(1)) * 1024.0 ** _POWERS[match.group(2).lower()]
        if not (math.isfinite(value) and value > 0):
            raise SpecError(
                f"a size must be a positive number (bytes, or K, M, G, T), got {item!r}"
            )
        out.append(value)
    if not out:
        raise SpecError("--size needs at least one size")
    return out


def default_sizes(min_bytes: int | None, max_bytes: int | None, chunks: int) -> list[float]:
    """Sizes across a file's ``minBytes..maxBytes``: its two ends and the powers of 4
    between them (every other one past :data:`DEFAULT_COUNT`).

    The lower end is at least one byte a chunk; a missing or zero ``maxBytes`` (the
    executor's "no maximum") is :data:`DEFAULT_MAX`.

    Examples
    --------
    >>> [int(s) for s in default_sizes(0, 12287, 384)]
    [384, 1024, 4096, 12287]
    >>> [int(s) for s in default_sizes(1048576, 2097151, 32)]
    [1048576, 2097151]
    """
    lo = max(int(min_bytes or 0), chunks, 1)
    hi = int(max_bytes) if max_bytes else DEFAULT_MAX
    hi = max(hi, lo)
    k = math.ceil(math.log(lo, 4))
    powers = []
    while 4**k <= hi:
        if 4**k > lo and 4**k < hi:
            powers.append(4**k)
        k += 1
    if len(powers) + 2 > DEFAULT_COUNT:
        powers = powers[len(powers) % 2 :: 2]
    return [float(x) for x in sorted({lo, *powers, hi})]


def format_size(size: float, units: bool = True) -> str:
    """A size in bytes as ``1 KiB``, ``64 MiB``, ``12287 B`` (or in data units).

    Examples
    --------
    >>> format_size(1024), format_size(2097151), format_size(3 * 2**30), format_size(2**20, False)
    ('1 KiB', '2097151 B', '3 GiB', '1048576')
    """
    whole = f"{int(size)}" if float(size).is_integer() else f"{size:g}"
    if not units:
        return whole
    for power, name in ((4, "TiB"), (3, "GiB"), (2, "MiB"), (1, "KiB")):
        scale = 1024.0**power
        if size >= scale and (size / scale).is_integer():
            return f"{int(size / scale)} {name}"
    return f"{whole} B"
