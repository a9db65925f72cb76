"""A line on the progress stream when the compiled proof kernels are about to be compiled.

The LRAT kernels (:mod:`gossipcert.proofs.lrat_kernels`, :mod:`gossipcert.proofs.lrat_compiled`,
:mod:`gossipcert.proofs.fixpoint`) are compiled by numba at their first use and cached on disk
(``cache=True``: beside the package, or in numba's user-wide cache where that is read-only), so
the first proof after an install or an upgrade spends tens of seconds compiling and every later
one none. A search says so before it happens (:data:`NOTICE`, a ``stage`` event), rather
than showing a "working" line that does not move.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from types import ModuleType

#: the line said before the kernels are compiled
NOTICE = "compiling the proof checker's kernels (once per install) ..."

#: who is told (a running search's progress), or None
_listener: Callable[[str], None] | None = None


@contextmanager
def announcing(say: Callable[[str], None]) -> Iterator[None]:
    """Within the block, :func:`announce` tells ``say``.

    Examples
    --------
    >>> said = []
    >>> with announcing(said.append):
    ...     announce([])  # no kernel module: nothing to compile
    >>> said
    []
    """
    global _listener
    saved, _listener = _listener, say
    try:
        yield
    finally:
        _listener = saved


def kernels_cached(modules: list[ModuleType]) -> bool:
    """Whether every numba kernel of ``modules`` has compiled code in its on-disk cache for
    the present source (False when it cannot tell)."""
    for module in modules:
        for value in vars(module).values():
            cache = getattr(value, "_cache", None)
            if cache is None or not hasattr(value, "py_func"):
                continue  # not a numba dispatcher
            if getattr(value, "targetoptions", {}).get("inline") == "always":
                continue  # inlined into its callers: no code of its own to cache
            try:  # numba's cache index: empty when missing or written for other source
                if not cache._cache_file._load_index():
                    return False
            except Exception:
                return False
    return True


def announce(modules: list[ModuleType]) -> None:
    """Say :data:`NOTICE` to the listener when a kernel of ``modules`` is not compiled yet."""
    if _listener is not None and not kernels_cached(modules):
        _listener(NOTICE)
