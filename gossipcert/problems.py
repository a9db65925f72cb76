"""Problem specs: :class:`ProblemKind`, :class:`Problem` and :func:`parse_problem`.

Problem specs: ``gossip``, ``broadcast:S`` (or ``broadcast:S1,S2,...``, one packet held by
several sources), ``scatter:S``, ``gather:R``, ``total-exchange``, the reductions
``reduce:R``, ``reduce-scatter`` and ``allreduce`` (with ``redop=sum|max``), each with
``chunks=K``; or a JSON file ``{"packets": [...], "holdings": {node: [packet, ...]},
"demands": {...}}``.

References
----------
.. [1] R. Beier and J. F. Sibeyn, "A powerful heuristic for telephone gossiping".
.. [2] V. V. Dimakopoulos, "Single-port multinode broadcasting", 1999.
"""

from __future__ import annotations

import json
from collections.abc import Hashable
from dataclasses import dataclass, field, replace
from enum import StrEnum
from pathlib import Path
from typing import Any

from gossipcert.errors import SpecError


class ProblemKind(StrEnum):
    """The problems of the design (section 3)."""

    GOSSIP = "gossip"
    BROADCAST = "broadcast"
    SCATTER = "scatter"
    GATHER = "gather"
    TOTAL_EXCHANGE = "total-exchange"
    CUSTOM = "custom"
    REDUCE = "reduce"
    REDUCE_SCATTER = "reduce-scatter"
    ALLREDUCE = "allreduce"


_ROOTED = {ProblemKind.BROADCAST, ProblemKind.SCATTER, ProblemKind.GATHER, ProblemKind.REDUCE}

#: the reductions: a packet is a chunk whose partial results are combined (docs/commands.md)
REDUCTIONS = frozenset({ProblemKind.REDUCE, ProblemKind.REDUCE_SCATTER, ProblemKind.ALLREDUCE})

#: the reduction operators: ``sum`` counts a contribution once only, ``max`` is idempotent
REDOPS = ("sum", "max")


@dataclass(frozen=True)
class Problem:
    """A problem: which packets exist, who holds them, who must know them.

    Parameters
    ----------
    kind : ProblemKind
    root : int, str or None
        The source (broadcast, scatter) or root (gather), as written by the user: a node
        label or index, resolved against the graph by :func:`make_instance`.
    custom : tuple or None
        For ``custom``: ``(packets, holdings, demands)`` as read from the JSON file.
    chunks : int
        Each node's data is split into this many packets (the ``--chunks K`` of collective
        libraries): every packet of the problem becomes ``K`` packets ``(name, k)`` with the
        same holders and demanders. 1 by default; built-in problems only.
    redop : {"sum", "max"}
        The operator of a reduction: under ``sum`` two partial results that share a
        contribution must never be combined (a double count); ``max`` is idempotent and
        allows it. Reductions only (``sum`` elsewhere).
    """

    kind: ProblemKind
    root: int | str | None = None
    custom: (
        tuple[
            tuple[Any, ...],
            tuple[tuple[Any, tuple[Any, ...]], ...],
            tuple[tuple[Any, tuple[Any, ...]], ...],
        ]
        | None
    ) = None
    source_file: str | None = field(default=None, compare=False)
    chunks: int = 1
    redop: str = "sum"

    @property
    def reduction(self) -> bool:
        """Whether this is ``reduce``, ``reduce-scatter`` or ``allreduce``."""
        return self.kind in REDUCTIONS

    def spec(self) -> str:
        """The canonical spec string (a custom problem gives its file name)."""
        if self.kind is ProblemKind.CUSTOM:
            return self.source_file or "custom"
        chunks = [f"chunks={self.chunks}"] if self.chunks != 1 else []
        if self.redop != "sum":
            chunks.append(f"redop={self.redop}")
        if self.kind in _ROOTED:
            return f"{self.kind.value}:" + ",".join([str(self.root), *chunks])
        return self.kind.value + (":" + ",".join(chunks) if chunks else "")


def _node_text(text: Any) -> int | str:
    """A node reference as the user wrote it; :func:`graphs.resolve_node` matches it against
    labels first, then against indices ("007" stays a label, never the index 7). A node
    given from Python by another object (``(0, 1)`` of a networkx grid) is its text, the
    label of that node."""
    return text.strip() if isinstance(text, str) else str(text)


def names_problem_file(spec: str) -> bool:
    """Whether a problem spec is the path of a custom problem's JSON file.

    Examples
    --------
    >>> names_problem_file("runs/p.JSON "), names_problem_file("broadcast:0")
    (True, False)
    """
    return spec.strip().lower().endswith(".json")


def parse_problem(spec: str, root: str | None = None) -> Problem:
    """Parse a problem spec: ``gossip``, ``broadcast:S`` (``broadcast:S1,S2,...``: several
    sources), ``scatter:S``, ``gather:R``, ``total-exchange``, ``reduce:R``,
    ``reduce-scatter``, ``allreduce`` or the path of a JSON file, each with an optional
    ``chunks=K``; a reduction also takes ``redop=sum|max`` (default ``sum``).

    ``root``, when given, is the root's text apart from the spec (the Python API's
    ``root=``), which then names none: ``parse_problem("broadcast:chunks=2", root="(1, 2)")``.

    Examples
    --------
    >>> parse_problem("broadcast:chunks=2", root="(1, 2)").spec()
    'broadcast:(1, 2),chunks=2'
    >>> parse_problem("broadcast:0,5,chunks=2").root
    '0,5'
    >>> parse_problem("reduce:0,chunks=2,redop=max").spec()
    'reduce:0,chunks=2,redop=max'
    >>> parse_problem("broadcast:0,chunks=2")  # doctest: +NORMALIZE_WHITESPACE
    Problem(kind=<ProblemKind.BROADCAST: 'broadcast'>, root='0', custom=None,
            source_file=None, chunks=2, redop='sum')
    """
    text = spec.strip()
    if names_problem_file(text):
        if root is not None:
            raise SpecError(f"a problem file has no root (got root={root!r})")
        return _read_custom_problem(Path(text))
    name, colon, rest = text.partition(":")
    name = name.strip().lower()
    name = _PROBLEM_ALIASES.get(name, name)
    accepted = (
        "gossip (allgather), broadcast:S[,S2,...], scatter:S, gather:R, "
        "total-exchange (alltoall), reduce:R, reduce-scatter, allreduce, "
        "each with an optional chunks=K (reductions also redop=sum|max), or a .json file"
    )
    try:
        kind = ProblemKind(name)
    except ValueError:
        raise SpecError(f"unknown problem {name!r} in {spec!r}; accepted: {accepted}") from None
    if kind is ProblemKind.CUSTOM:
        raise SpecError(f"a custom problem is given as a .json file; accepted: {accepted}")
    # the pieces as written: a root's text keeps its spaces and commas ("(1, 2)" of a torus)
    args = rest.split(",") if colon else []
    chunks = 1
    redop = "sum"
    seen: set[str] = set()
    plain: list[str] = []
    for a in args:
        key, eq, value = a.partition("=")
        key = key.strip().lower()
        if eq and key in ("chunks", "redop"):
            if key in seen:
                raise SpecError(f"{key} is given twice in {spec!r}")
            seen.add(key)
            if key == "chunks":
                chunks = parse_chunks(value)
            elif kind not in REDUCTIONS:
                raise SpecError(f"redop applies to reductions only, not {name} (got {spec!r})")
            else:
                redop = parse_redop(value)
        else:
            plain.append(a)
    if root is not None:
        if kind not in _ROOTED:
            raise SpecError(f"{name} has no root (got root={root!r})")
        if any(part.strip() for part in plain):
            raise SpecError(f"{spec!r} names its root, and root={root!r} another; give one")
        plain = [str(root)]
    if kind in _ROOTED:
        text = ",".join(plain).strip()
        if not text or not all(part.strip() for part in plain):
            raise SpecError(f"{name} needs a node, e.g. {name}:0 (got {spec!r})")
        # several sources of a broadcast stay one text: resolve_roots splits it (a node's
        # name may hold commas, so whether other text names one node is the graph's to say)
        parts = [x.strip() for x in text.split(",")]
        several = len(parts) > 1 and all(x.isdigit() and x.isascii() for x in parts)
        if several and kind is not ProblemKind.BROADCAST and root is None:
            raise SpecError(f"{name} has one root, e.g. {name}:0 (got {spec!r})")
        return Problem(kind, _node_text(text), chunks=chunks, redop=redop)
    if plain:
        raise SpecError(f"{name} takes no argument but chunks=K (got {spec!r})")
    return Problem(kind, chunks=chunks, redop=redop)


#: the names collective-communication libraries use
_PROBLEM_ALIASES = {
    "allgather": "gossip",
    "alltoall": "total-exchange",
    "reducescatter": "reduce-scatter",
    "reduce_scatter": "reduce-scatter",
}


def parse_redop(text: str) -> str:
    """A reduction operator: ``sum`` or ``max``.

    Examples
    --------
    >>> parse_redop(" MAX ")
    'max'
    """
    value = str(text).strip().lower()
    if value not in REDOPS:
        raise SpecError(f"redop must be one of {', '.join(REDOPS)}, got {text!r}")
    return value


def with_redop(problem: Problem, redop: str | None) -> Problem:
    """``problem`` with the reduction operator ``redop`` (None: unchanged).

    Raises
    ------
    SpecError
        An unknown operator, a problem that is no reduction, or a spec that says another.
    """
    if redop is None:
        return problem
    op = parse_redop(redop)
    if problem.kind not in REDUCTIONS:
        raise SpecError(f"--redop applies to reductions only, not {problem.kind.value}")
    if problem.redop not in ("sum", op):
        raise SpecError(f"--redop {op} contradicts redop={problem.redop} in the problem")
    return replace(problem, redop=op)


def parse_chunks(text: str | int) -> int:
    """The number of packets each node's data is split into: a whole number >= 1.

    Examples
    --------
    >>> parse_chunks("3")
    3
    """
    try:
        value = int(text)
    except ValueError:
        raise SpecError(f"chunks must be a whole number, got {text!r}") from None
    if value < 1:
        raise SpecError(
            f"chunks must be at least 1 (each node's data in K >= 1 packets), got {value}"
        )
    return value


def with_chunks(problem: Problem, chunks: int | None) -> Problem:
    """``problem`` with its data split into ``chunks`` packets (None: unchanged).

    Raises
    ------
    SpecError
        ``chunks < 1``, a custom problem, or a spec that already says another chunks=K.
    """
    if chunks is None:
        return problem
    k = parse_chunks(chunks)
    if problem.kind is ProblemKind.CUSTOM:
        raise SpecError("--chunks applies to the built-in problems, not to a .json problem")
    if problem.chunks not in (1, k):
        raise SpecError(f"--chunks {k} contradicts chunks={problem.chunks} in the problem")
    return replace(problem, chunks=k)


def _read_custom_problem(path: Path) -> Problem:
    try:
        data = json.loads(path.read_text())
    except FileNotFoundError:
        raise SpecError(f"problem file {str(path)!r} does not exist") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise SpecError(f"problem file {str(path)!r} is not valid JSON: {exc}") from None
    return problem_from_dict(data, str(path))


def problem_from_dict(data: Any, source: str) -> Problem:
    """A custom problem from its JSON object ``{"packets", "holdings", "demands"}``.

    Parameters
    ----------
    data : object
        The decoded JSON.
    source : str
        Where it came from (a file name), for messages and as the problem's spec.
    """
    if not isinstance(data, dict) or not {"holdings", "demands"} <= data.keys():
        raise SpecError(
            f"problem file {source!r} must be an object with 'holdings' and 'demands' "
            "(and optionally 'packets')"
        )

    def table(key: str) -> tuple[tuple[Any, tuple[Any, ...]], ...]:
        value = data[key]
        if not isinstance(value, dict) or not all(isinstance(v, list) for v in value.values()):
            raise SpecError(f"problem file {source!r}: {key!r} must map nodes to lists")
        written: dict[int | str, str] = {}
        for k in value:
            node = _node_text(k)
            if node in written:
                raise SpecError(
                    f"problem file {source!r}: {key!r} names node {node!r} twice "
                    f"({written[node]!r} and {k!r}); give each node one list"
                )
            written[node] = k
        return tuple((_node_text(k), tuple(_hashable(p) for p in v)) for k, v in value.items())

    holdings, demands = table("holdings"), table("demands")
    if "packets" in data:
        if not isinstance(data["packets"], list):
            raise SpecError(f"problem file {source!r}: 'packets' must be a list")
        packets = tuple(_hashable(p) for p in data["packets"])
    else:
        seen: dict[Any, None] = {}
        for _, names in holdings + demands:
            seen.update(dict.fromkeys(names))
        packets = tuple(seen)
    return Problem(ProblemKind.CUSTOM, None, (packets, holdings, demands), source)


def _canonical_int(value: Any) -> Any:
    """``"7"`` becomes 7 (text files carry numbers as text); ``"007"`` stays text."""
    if isinstance(value, str):
        try:
            if str(int(value)) == value:
                return int(value)
        except ValueError:
            pass
    return value


def _hashable(value: Any) -> Hashable:
    """JSON lists become tuples so that packet names can be dictionary keys."""
    if isinstance(value, list):
        return tuple(_hashable(x) for x in value)
    if isinstance(value, dict):
        raise SpecError(f"a packet name cannot be an object: {value!r}")
    return value


def stored_problem(record: Any) -> Problem:
    """The problem of a certificate's or partial result's instance record: a spec string,
    or ``{"spec": ..., "custom": ...}`` (a custom problem's content travels with it).

    Examples
    --------
    >>> stored_problem("gossip:chunks=2").spec(), stored_problem({"spec": "broadcast:0"}).spec()
    ('gossip:chunks=2', 'broadcast:0')
    """
    if isinstance(record, dict):
        if "custom" in record:
            return problem_from_dict(record["custom"], str(record.get("spec")))
        return parse_problem(str(record.get("spec")))
    return parse_problem(str(record))
