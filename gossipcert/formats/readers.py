"""One entry point for every algorithm format: read the file, replay it, say what it is.

:func:`load` returns a :class:`Loaded`: the replay (:class:`~gossipcert.formats.replay.Replay`:
rounds, transmissions, violations) and what the verdict needs to know (collective, ranks,
steps, the topology the file carries if any).
"""

from __future__ import annotations

from dataclasses import dataclass

from gossipcert.errors import FormatError
from gossipcert.formats.msccl_xml import read_msccl_xml
from gossipcert.formats.replay import Replay, replay


@dataclass
class Loaded:
    """An algorithm file read and replayed."""

    replay: Replay
    collective: str
    ranks: int
    steps: int
    topology: str | None = None
    root: int | None = None


def load(path: str, fmt: str) -> Loaded:
    """Read and replay ``path`` in format ``fmt`` (``msccl-xml``, ``sccl-json``,
    ``teccl-json``).

    Raises
    ------
    FormatError
        Unknown format, unreadable file, or a file of another tool.
    """
    if fmt == "msccl-xml":
        algo = read_msccl_xml(path)
        return Loaded(replay(algo), algo.coll, algo.ngpus, algo.n_steps)
    raise FormatError(
        f"unknown algorithm format {fmt!r}; choose msccl-xml, sccl-json or teccl-json"
    )
