"""What the Python API returns: :class:`Result` of :func:`gossipcert.solve` (with its
:class:`SolveStatus`) and :class:`BoundsResult` of :func:`gossipcert.bounds`.

A result names nodes as the user's graph does: a networkx graph's own node objects
(kept by :func:`gossipcert.graphs.convert.from_networkx`), else the graph's labels.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gossipcert.closed_forms import Bound
from gossipcert.errors import CertificateError
from gossipcert.instance import Instance, bits
from gossipcert.names import node_name, packet_name
from gossipcert.schedule import Schedule, to_json
from gossipcert.search.outcome import SolveResult
from gossipcert.statuses import SolveStatus

__all__ = ["BoundsResult", "Result", "SolveStatus", "solve_record", "without_proofs"]


@dataclass(frozen=True)
class Result:
    """What :func:`solve` found: the status, both bounds with their evidence, the schedule.

    Attributes
    ----------
    status : SolveStatus
        What the evidence proves: ``OPTIMAL`` only with a lower bound beyond the solver's
        word (see ``docs/statuses.md``).
    optimum : int or None
        The least number of rounds, when ``status`` is ``OPTIMAL`` (else None).
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
        The search's own result (times, event log, encoding options; its ``status`` is the
        search's word, ``optimal`` also on the solver's word alone).
    interrupted : bool
        Ctrl-C stopped the search: the bounds and schedule are those known at that moment
        (:meth:`write` keeps them as a partial result, which ``solve(..., resume=FILE)``
        continues from).
    decided_by_solver : bool
        The bounds met, but the lower bound is the solver's word only (``proof=False``, or
        a proof cut short): ``status`` is then ``FEASIBLE`` with ``lower == upper``.
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
    interrupted: bool = False
    decided_by_solver: bool = False

    @classmethod
    def from_search(cls, res: SolveResult) -> Result:
        """The result of a search (:func:`gossipcert.watchdog.solve_within`).

        Parameters
        ----------
        res : SolveResult
            What the search returned.

        Returns
        -------
        Result
        """
        fields = res.status_fields()
        return cls(
            fields["status"],
            fields["optimum"],
            res.lower_bound,
            res.upper_bound,
            res.evidence,
            res.upper_source,
            res.schedule,
            res.certified,
            res.timed_out,
            res.instance,
            res,
            res.interrupted,
            decided_by_solver=fields["decided_by_solver"],
        )

    @property
    def skipped(self) -> list[str]:
        """The steps of the search not started for want of time, in words (a step that
        cannot be stopped half way, such as building a large construction or an allreduce
        sub-problem, is started only while time is left): each leaves the bracket wider,
        never wrong; empty when nothing was skipped.

        Examples
        --------
        >>> from gossipcert import solve
        >>> solve("ring:4", "all-port", "allreduce").skipped
        []
        """
        return list(self.raw.skipped)

    def named_rounds(self) -> list[list[tuple[Hashable, tuple[Hashable, ...], tuple[Any, ...]]]]:
        """The schedule with the graph's own node names: per round, one
        ``(sender, receivers, packets)`` per transmission; a packet is named by its node
        (gossip, broadcast, scatter, gather, a reduction's chunk), by its pair of nodes
        (total exchange), and under ``chunks=K`` by ``(that, k)``
        (:func:`gossipcert.names.packet_name`).

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
        >>> res = solve(nx.path_graph(["a", "b", "c"]), "all-port", "alltoall")
        >>> sorted({p for rnd in res.named_rounds() for _, _, packets in rnd for p in packets})
        [('a', 'b'), ('a', 'c'), ('b', 'a'), ('b', 'c'), ('c', 'a'), ('c', 'b')]
        """
        if self.schedule is None:
            return []
        inst = self.instance
        g = inst.graph
        out = []
        for rnd in self.schedule.rounds[: len(self.schedule)]:
            row = []
            for tr in rnd:
                know = tr.packets
                packets: tuple[Any, ...] = (
                    ("all",) if know is None else tuple(packet_name(inst, p) for p in bits(know))
                )
                row.append(
                    (
                        node_name(g, tr.sender),
                        tuple(node_name(g, d) for d in tr.receivers),
                        packets,
                    )
                )
            out.append(row)
        return out

    def named_schedule(self) -> dict[str, Any] | None:
        """The schedule as ``gossipcert-schedule/1`` JSON content with the graph's own names
        (nodes and packets as :meth:`named_rounds` names them, a reduction's ``"op"``),
        which :func:`gossipcert.verify` takes back as it is.

        Returns
        -------
        dict or None
            ``{"format": ..., "rounds": [[{"from", "to", "packets"[, "op"]}, ...], ...]}``;
            None without a schedule.

        Examples
        --------
        >>> import networkx as nx
        >>> from gossipcert import solve, verify
        >>> G = nx.grid_2d_graph(2, 2)
        >>> res = solve(G, "telephone", "reduce", root=(1, 1))
        >>> res.named_schedule()["rounds"][-1][0]["to"]
        [(1, 1)]
        >>> verify(G, res.named_schedule(), "telephone", "reduce", root=(1, 1)).ok
        True
        """
        if self.schedule is None:
            return None
        from gossipcert.schedule import FORMAT

        rounds = [
            [
                {
                    "from": sender,
                    "to": list(receivers),
                    "packets": "all" if tr.packets is None else list(packets),
                    **({"op": tr.op} if tr.op != "copy" else {}),
                }
                for (sender, receivers, packets), tr in zip(named, rnd, strict=True)
            ]
            for named, rnd in zip(self.named_rounds(), self.schedule.rounds, strict=False)
        ]
        return {"format": FORMAT, "rounds": rounds}

    def to_json(
        self, certificate: str | None = None, partial_result: str | None = None
    ) -> dict[str, Any]:
        """The record of the result: what ``gossipcert solve --json`` prints, field for
        field (``docs/statuses.md`` lists the fields).

        Parameters
        ----------
        certificate, partial_result : str, optional
            The file the certificate (or the partial result) was written to, as ``solve
            -o FILE`` writes it; None (the default) when none was.

        Returns
        -------
        dict
            JSON-ready: the instance (``graph``, ``model``, ``problem``, ``n``, ``m``,
            ``packets``), the status fields (``status``, ``certified``,
            ``decided_by_solver``, ``optimum``, ``lower_bound``, ``upper_bound``),
            ``schedule``, ``schedule_source``, ``evidence`` (without its stored proofs:
            the certificate carries them), ``backend``, ``times``, ``timed_out``,
            ``interrupted``, ``certificate`` and ``partial_result``; nodes named by their
            text (``str`` of a networkx node).

        Examples
        --------
        >>> from gossipcert import solve
        >>> record = solve("ring:4").to_json()
        >>> record["status"].value, record["optimum"], record["certificate"]
        ('optimal', 2, None)
        """
        return solve_record(self.raw, certificate, partial_result)

    def certificate(self) -> dict[str, Any]:
        """The certificate of an optimum (what ``gossipcert check`` re-checks); with
        ``decided_by_solver`` its evidence is the solver's word, and ``check`` says
        ``unproved``.

        Returns
        -------
        dict
            The certificate (format ``gossipcert-certificate/1``), ready for ``json.dump``.

        Raises
        ------
        CertificateError
            The bounds did not meet, or met on the solver's word in a run that was
            interrupted (``SolveResult.certifiable``).

        Examples
        --------
        >>> from gossipcert import solve
        >>> solve("ring:4").certificate()["optimum"]
        2
        """
        from gossipcert.certificates.certificate import build_certificate

        if not self.raw.certifiable:
            how = " (interrupted)" if self.interrupted else ""
            raise CertificateError(
                f"only an optimum found to the end, or proved before an interruption, has a "
                f"certificate (this result is {self.status.value}{how}); write_partial() "
                "keeps what is known, and solve(..., resume=FILE) goes on from it"
            )
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
            The bounds did not meet, or the file exists.

        Examples
        --------
        >>> solve("ring:4").write_certificate("ring4-cert.json")  # doctest: +SKIP
        PosixPath('ring4-cert.json')
        """
        from gossipcert.store import certificate_text

        return _write_new(path, overwrite, lambda: certificate_text(self.certificate()))

    def write_partial(self, path: str | os.PathLike[str], overwrite: bool = False) -> Path:
        """Write what the search knows, whatever its status, as a partial result
        (``gossipcert-partial/1``: the best verified schedule, both bounds and the lower
        bound's evidence), which ``solve(..., resume=path)`` (or ``gossipcert solve
        --resume``) starts from.

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
            The file exists.

        Examples
        --------
        >>> import pathlib, tempfile
        >>> from gossipcert import solve
        >>> part = pathlib.Path(tempfile.mkdtemp()) / "ring6-part.json"
        >>> _ = solve("ring:6").write_partial(part)
        >>> solve("ring:6", resume=part).upper_source.endswith("ring6-part.json (resumed)")
        True
        """
        from gossipcert.certificates.partial import partial_text

        return _write_new(path, overwrite, lambda: partial_text(self.raw))

    def write(self, path: str | os.PathLike[str], overwrite: bool = False) -> Path:
        """What ``gossipcert solve -o path`` writes: the certificate when the bounds met
        (with a proof, or on the solver's word in a run that ended by itself:
        ``SolveResult.certifiable``; :meth:`write_certificate`), else the partial result
        (:meth:`write_partial`), e.g. after the time limit or Ctrl-C.

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
            The file exists.

        Examples
        --------
        >>> import pathlib, tempfile
        >>> from gossipcert import solve
        >>> out = pathlib.Path(tempfile.mkdtemp()) / "ring6.json"
        >>> _ = solve("ring:6").write(out)
        >>> import json; json.loads(out.read_text())["format"]
        'gossipcert-certificate/1'
        """
        if self.raw.certifiable:
            return self.write_certificate(path, overwrite)
        return self.write_partial(path, overwrite)


def solve_record(
    res: SolveResult, certificate: str | None = None, partial_result: str | None = None
) -> dict[str, Any]:
    """The one record of a search's result (:meth:`Result.to_json`, ``solve --json``).

    Parameters
    ----------
    res : SolveResult
        What the search returned.
    certificate, partial_result : str, optional
        The file the certificate (or the partial result) was written to, if any.

    Returns
    -------
    dict
        The fields :meth:`Result.to_json` lists, in that order.
    """
    return {
        **res.instance.describe(),
        **res.status_fields(),
        "schedule": to_json(res.schedule, res.instance) if res.schedule else None,
        "schedule_source": res.upper_source,
        "evidence": without_proofs(res.evidence),
        "backend": res.backend,
        "times": {k: round(v, 3) for k, v in res.times.items()},
        "timed_out": res.timed_out,
        "interrupted": res.interrupted,
        "certificate": certificate,
        "partial_result": partial_result,
    }


def without_proofs(evidence: dict[str, Any]) -> dict[str, Any]:
    """The evidence without its stored proofs (and those of its cubes, its coverage, a
    reduction's dual, sub-problem or bracket): what a record of a result shows of it.

    Examples
    --------
    >>> without_proofs({"kind": "drat", "proof_xz_base64": "...", "dual": {"lrat_xz_base64": ""}})
    {'kind': 'drat', 'dual': {}}
    """
    out = {k: v for k, v in evidence.items() if k not in ("proof_xz_base64", "lrat_xz_base64")}
    if isinstance(out.get("cubes"), list):
        out["cubes"] = [without_proofs(c) for c in out["cubes"]]
    if isinstance(out.get("coverage"), dict):
        out["coverage"] = without_proofs(out["coverage"])
    for key in ("dual", "sub", "bracket"):  # a reduction's dual, sub-problem or bracket
        if isinstance(out.get(key), dict):
            out[key] = without_proofs(out[key])
    return out


def _write_new(path: str | os.PathLike[str], overwrite: bool, text: Callable[[], str]) -> Path:
    """Write ``text()`` to ``path``, refusing to replace a file unless ``overwrite``."""
    target = Path(path)
    if target.exists() and not overwrite:
        raise CertificateError(f"{str(target)!r} exists; pass overwrite=True to replace it")
    target.write_text(text())
    return target


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
