"""One entry point for every algorithm format: read the file, replay it, say what it is.

:func:`load` returns a :class:`Loaded`: the replay (:class:`~gossipcert.formats.replay.Replay`:
rounds, transmissions, violations) and what the verdict needs to know (collective, ranks,
steps, the topology the file carries if any).
"""

from __future__ import annotations

from dataclasses import dataclass

import networkx as nx

from gossipcert.errors import FormatError, GossipcertError
from gossipcert.formats.json_algorithms import read_sccl, read_teccl
from gossipcert.formats.msccl_xml import MscclAlgorithm, read_msccl_xml
from gossipcert.formats.mscclpp_plan import read_mscclpp_plan
from gossipcert.formats.mscclpp_replay import replay_plan
from gossipcert.formats.replay import Replay, replay
from gossipcert.graphs.files import graph_from_topology_json


@dataclass
class Loaded:
    """An algorithm file read and replayed."""

    replay: Replay
    collective: str
    ranks: int
    steps: int
    topology: str | nx.Graph | None = None
    root: int | None = None
    #: the MSCCL algorithm as read (for its timing), None for the other formats
    algo: MscclAlgorithm | None = None


def load(path: str, fmt: str) -> Loaded:
    """Read and replay ``path`` in format ``fmt`` (``msccl-xml``, ``mscclpp-plan``,
    ``sccl-json``, ``teccl-json``).

    Raises
    ------
    FormatError
        Unknown format, unreadable file, or a file of another tool.
    """
    if fmt == "msccl-xml":
        algo = read_msccl_xml(path)
        rep = replay(algo)
        return Loaded(rep, algo.coll, algo.ngpus, algo.n_steps, root=rep.root, algo=algo)
    if fmt == "mscclpp-plan":
        plan = read_mscclpp_plan(path)
        return Loaded(replay_plan(plan), plan.collective, plan.ranks, plan.n_ops)
    if fmt == "sccl-json":
        rep, coll, ranks, sends, topo = read_sccl(path)
        graph = None
        if topo is not None:
            try:  # the file's own topology, when it is one gossipcert reads
                graph = graph_from_topology_json(topo, f"{path} (its topology)")
            except GossipcertError:
                graph = None
        return Loaded(rep, coll, ranks, sends, graph)
    if fmt == "teccl-json":
        rep, coll, ranks, flows = read_teccl(path)
        return Loaded(rep, coll, ranks, flows)
    raise FormatError(
        f"unknown algorithm format {fmt!r}; choose msccl-xml, mscclpp-plan, sccl-json or teccl-json"
    )
