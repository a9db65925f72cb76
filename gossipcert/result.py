"""What the Python API returns: :class:`Result` of :func:`gossipcert.solve` (with its
:class:`SolveStatus`) and :class:`BoundsResult` of :func:`gossipcert.bounds`.

A result names nodes as the user's graph does: a networkx graph's own node objects
(kept by :func:`gossipcert.graphs.convert.from_networkx`), else the graph's labels.
"""

from __future__ import annotations

import os
from collections.abc import Hashable
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import Any

from gossipcert.closed_forms import Bound
from gossipcert.errors import CertificateError
from gossipcert.instance import Instance, bits
from gossipcert.schedule import Schedule, to_json
from gossipcert.search.outcome import SolveResult

__all__ = ["BoundsResult", "Result", "SolveStatus"]


class SolveStatus(StrEnum):
    """How far :func:`solve` got."""

    #: the optimum is known: a verified schedule and a lower bound with evidence meet
    OPTIMAL = "optimal"
    #: a verified schedule is known, but not that it is shortest
    FEASIBLE = "feasible"
    #: no schedule was found in time
    UNKNOWN = "unknown"
    #: no schedule can exist (some demand can never be met)
    INFEASIBLE = "infeasible"


def _node_name(instance: Instance, v: int) -> Hashable:
    names = instance.graph.graph.get("nodes")
    return names[v] if names is not None else instance.graph.nodes[v].get("label", str(v))


@dataclass(frozen=True)
class Result:
    """What :func:`solve` found: the status, both bounds with their evidence, the schedule.

    Attributes
    ----------
    status : SolveStatus
    optimum : int or None
        The least number of rounds, when ``status`` is ``OPTIMAL``.
    lower, upper : int or None
        The best lower bound and the length of the best verified schedule.
    lower_evidence : dict
        How the lower bound is known: ``{"kind": "closed-form", ...}`` (a bound and its
        citation), ``"drat"`` (a proof checked by two checkers), ``"split"``, or
        ``"solver-claim"`` (the solver's word only, e.g. ``proof=False``).
    upper_source : str
        Where the schedule comes from (a construction, a heuristic, the solver).
    schedule : Schedule or None
        The best schedule, replayed by the verifier before it was returned.
    certified : bool
        An optimum whose lower bound has evidence beyond the solver's word.
    timed_out : bool
        The time limit ran out first.
    instance : Instance
    raw : SolveResult
        The search's own result (times, event log, encoding options).
    """

    status: SolveStatus
    optimum: int | None
    lower: int
    upper: int | None
    lower_evidence: dict[str, Any]
    upper_source: str
    schedule: Schedule | None
    certified: bool
    timed_out: bool
    instance: Instance
    raw: SolveResult

    @classmethod
    def from_search(cls, res: SolveResult) -> Result:
        """The result of a search (:func:`gossipcert.search.watchdog.solve_within`).

        Parameters
        ----------
        res : SolveResult
            What the search returned.

        Returns
        -------
        Result
        """
        return cls(
            SolveStatus(res.status),
            res.optimum,
            res.lower_bound,
            res.upper_bound,
            res.evidence,
            res.upper_source,
            res.schedule,
            res.certified,
            res.timed_out,
            res.instance,
            res,
        )

    def named_rounds(self) -> list[list[tuple[Hashable, tuple[Hashable, ...], tuple[Any, ...]]]]:
        """The schedule with the graph's own node names: per round, one
        ``(sender, receivers, packets)`` per transmission; a packet is named by its holder
        (gossip, broadcast, gather) or by its pair of nodes, as in the JSON output.

        Returns
        -------
        list of list of (name, tuple of names, tuple)
            One list per round; ``("all",)`` for "everything the sender knows".

        Examples
        --------
        >>> import networkx as nx
        >>> from gossipcert import solve
        >>> res = solve(nx.path_graph(["x", "y"]), "telephone", "broadcast:x")
        >>> res.named_rounds()
        [[('x', ('y',), ('all',))]]
        """
        if self.schedule is None:
            return []
        inst = self.instance
        out = []
        for rnd in self.schedule.rounds:
            row = []
            for tr in rnd:
                know = tr.packets
                packets: tuple[Any, ...] = (
                    ("all",) if know is None else tuple(_packet_name(inst, p) for p in bits(know))
                )
                row.append(
                    (
                        _node_name(inst, tr.sender),
                        tuple(_node_name(inst, d) for d in tr.receivers),
                        packets,
                    )
                )
            out.append(row)
        return out

    def to_json(self) -> dict[str, Any]:
        """The fields of ``gossipcert solve --json``: ``status``, ``optimum``,
        ``lower_bound``, ``upper_bound``, ``schedule``, ``evidence`` and the instance.

        Returns
        -------
        dict
            JSON-ready; nodes named by their text (``str`` of a networkx node).

        Examples
        --------
        >>> from gossipcert import solve
        >>> solve("ring:4").to_json()["optimum"]
        2
        """
        return {
            **self.instance.describe(),
            "status": self.status.value,
            "certified": self.certified,
            "optimum": self.optimum,
            "lower_bound": self.lower,
            "upper_bound": self.upper,
            "schedule": to_json(self.schedule, self.instance) if self.schedule else None,
            "schedule_source": self.upper_source,
            "evidence": self.lower_evidence,
            "timed_out": self.timed_out,
        }

    def certificate(self) -> dict[str, Any]:
        """The certificate of an optimum (what ``gossipcert check`` re-checks).

        Returns
        -------
        dict
            The certificate (format ``gossipcert-certificate/1``), ready for ``json.dump``.

        Raises
        ------
        CertificateError
            The result is not optimal.

        Examples
        --------
        >>> from gossipcert import solve
        >>> solve("ring:4").certificate()["optimum"]
        2
        """
        from gossipcert.certificates.certificate import build_certificate

        return build_certificate(self.raw)

    def write_certificate(self, path: str | os.PathLike[str], overwrite: bool = False) -> Path:
        """Write :meth:`certificate` to a file.

        Parameters
        ----------
        path : str or path
            The file to write.
        overwrite : bool
            Replace an existing file (off: an existing file is an error, never lost).

        Returns
        -------
        Path
            The file written.

        Raises
        ------
        CertificateError
            The result is not optimal, or the file exists.

        Examples
        --------
        >>> solve("ring:4").write_certificate("ring4-cert.json")  # doctest: +SKIP
        PosixPath('ring4-cert.json')
        """
        from gossipcert.store import certificate_text

        target = Path(path)
        if target.exists() and not overwrite:
            raise CertificateError(f"{str(target)!r} exists; pass overwrite=True to replace it")
        target.write_text(certificate_text(self.certificate()))
        return target


def _packet_name(instance: Instance, p: int) -> Any:
    """A packet named with the graph's node names: its holder, its (source, target) pair,
    and with chunks ``(that, chunk index)``."""
    name: Any = instance.packet_names[p]
    chunked = instance.problem.chunks > 1 and isinstance(name, tuple)
    base: Any = name[0] if chunked else name
    if isinstance(base, tuple):
        base = tuple(_node_name(instance, v) for v in base)
    elif isinstance(base, int):
        base = _node_name(instance, base)
    return (base, name[1]) if chunked else base


@dataclass(frozen=True)
class BoundsResult:
    """Every closed-form bound that applies, and the best of each kind.

    Parameters
    ----------
    lower, upper : Bound or None
        The largest lower bound and the smallest upper bound.
    found : list of Bound
        Every bound that applies, each with its value and source.
    """

    lower: Bound | None
    upper: Bound | None
    found: list[Bound]
