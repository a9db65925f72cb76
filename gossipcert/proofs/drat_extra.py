"""dratify, the DRAT path's independent checker, from the optional extra ``drat``.

LRAT proofs (what gossipcert writes) are judged by the project's own checkers alone; a DRAT
proof (a certificate written before LRAT, the split search's cubes) needs dratify, and its
Rust engine where ``cdclkit[native]`` provides it: ``pip install 'gossipcert[drat]'``.
Without them a DRAT check is refused by name (:class:`~gossipcert.errors.MissingDependencyError`,
exit 2 on the command line), never judged by fewer checkers than it needs.

References
----------
.. [1] dratify (PyPI), ``check_proof``; cdclkit (PyPI), its native engine.
"""

from __future__ import annotations

from functools import cache
from types import ModuleType

from gossipcert.errors import MissingDependencyError

#: what a DRAT check says when dratify is not installed
MISSING = (
    "checking a DRAT proof needs dratify, from the optional extra 'drat': "
    "pip install 'gossipcert[drat]'"
)


@cache
def load_dratify() -> ModuleType:
    """The ``dratify`` module, its native engine registered when ``cdclkit`` is installed.

    Raises
    ------
    MissingDependencyError
        dratify is not installed.

    Examples
    --------
    >>> load_dratify().__name__  # doctest: +SKIP
    'dratify'
    """
    try:
        import dratify
    except ImportError as exc:
        raise MissingDependencyError(MISSING) from exc
    try:  # the optional Rust engine of dratify registers itself on import
        import cdclkit  # noqa: F401
    except ImportError:  # pragma: no cover - optional accelerator
        pass
    return dratify
