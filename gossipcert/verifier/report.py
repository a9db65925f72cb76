"""What the verifier reports: :class:`Report` (the verdict on a schedule), its
:class:`Violation` s and its :class:`RoundStats` (the rules are those of
:mod:`gossipcert.simulate`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from gossipcert import graphs
from gossipcert.errors import GossipcertError
from gossipcert.instance import Instance
from gossipcert.names import node_name, packet_name
from gossipcert.partials import chunk_text
from gossipcert.schedule import json_name

__all__ = ["Report", "RoundStats", "Violation", "join_and"]


@dataclass(frozen=True)
class Violation:
    """One broken rule: the round, the nodes involved, the rule's key and a sentence."""

    round: int
    nodes: tuple[int, ...]
    rule: str
    message: str

    def to_json(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {
            "round": self.round,
            "nodes": list(self.nodes),
            "rule": self.rule,
            "message": self.message,
        }


@dataclass(frozen=True)
class RoundStats:
    """What happened in one round."""

    transmissions: int
    calls: int
    packets_moved: int
    max_sent: int
    learned: int


@dataclass
class Report:
    """The verdict on a schedule.

    Attributes
    ----------
    valid : bool
        No rule of the model is broken.
    complete : bool
        Every demand is met after the last round.
    rounds : int or None
        The round after which all demands are met (0 if they are met before round 1),
        None if they never are.
    length : int
        Number of rounds in the schedule (trailing empty rounds dropped); with latencies, the
        round of the last arrival when that is later.
    errors : list of Violation
    unmet : list of (node, packet)
        Demands still unmet at the end (internal node and packet numbers).
    per_round : list of RoundStats
    steps : int
        ``S = Σ_t max_u s_{u,t}``.
    cost : float or None
        ``T = R + τ·h·S`` under linear cost (``R`` the length), else None.
    knowledge : list of int
        Final knowledge bitmask of each node (in a reduction: the chunks of which it holds a
        partial result).
    missing : list of (node, chunk, contributor)
        Reductions: each contribution a demanded chunk still lacks at the end.
    instance : Instance or None
        The instance replayed (:func:`simulate` sets it), which :meth:`named_unmet` and
        :meth:`named_missing` name nodes and packets by.
    ok : bool
        Valid and complete (property).
    """

    valid: bool
    complete: bool
    rounds: int | None
    length: int
    errors: list[Violation]
    unmet: list[tuple[int, int]]
    per_round: list[RoundStats]
    steps: int
    cost: float | None
    knowledge: list[int] = field(repr=False)
    missing: list[tuple[int, int, int]] = field(default_factory=list)
    instance: Instance | None = field(default=None, repr=False, compare=False)

    def named_unmet(self) -> list[tuple[Any, Any]]:
        """:attr:`unmet` with the graph's own names: ``(node, packet)`` per demand unmet at
        the end, named as :meth:`gossipcert.Result.named_rounds` names them.

        Returns
        -------
        list of (node, packet)

        Examples
        --------
        >>> import networkx as nx
        >>> from gossipcert import verify
        >>> verify(nx.path_graph(["a", "b"]), [], "telephone", "gossip").named_unmet()
        [('a', 'b'), ('b', 'a')]
        """
        inst = self._instance()
        return [(node_name(inst.graph, v), packet_name(inst, p)) for v, p in self.unmet]

    def named_missing(self) -> list[tuple[Any, Any, Any]]:
        """:attr:`missing` with the graph's own names: ``(node, chunk, contributor)`` per
        contribution a reduction's demanded chunk lacks at the end.

        Returns
        -------
        list of (node, chunk, contributor)

        Examples
        --------
        >>> import networkx as nx
        >>> from gossipcert import verify
        >>> verify(nx.path_graph(["a", "b"]), [], "telephone", "reduce:a").named_missing()
        [('a', 'a', 'b')]
        """
        inst = self._instance()
        g = inst.graph
        return [
            (node_name(g, v), packet_name(inst, c), node_name(g, w)) for v, c, w in self.missing
        ]

    def _instance(self) -> Instance:
        if self.instance is None:
            raise GossipcertError("this report was not made by simulate(): it has no instance")
        return self.instance

    def incomplete(self, instance: Instance, limit: int | None = None) -> list[str]:
        """One sentence per contribution a reduction's result lacks at the end, e.g.
        "after round 4 node 0 holds chunk 1 without rank 3's contribution"."""
        ref = lambda v: graphs.node_ref(instance.graph, v)  # noqa: E731
        return [
            f"after round {self.length} node {ref(v)} holds chunk "
            f"{chunk_text(instance.packet_names[c])} without rank {ref(w)}'s contribution"
            for v, c, w in self.missing[:limit]
        ]

    @property
    def ok(self) -> bool:
        """Valid and complete."""
        return self.valid and self.complete

    def to_json(self, instance: Instance, max_unmet: int = 100) -> dict[str, Any]:
        """JSON-ready form, nodes and packets by their external names."""
        ref = lambda v: graphs.node_ref(instance.graph, v)  # noqa: E731
        name = lambda p: json_name(instance.packet_names[p])  # noqa: E731
        return {
            "valid": self.valid,
            "complete": self.complete,
            "rounds": self.rounds,
            "length": self.length,
            "errors": [{**e.to_json(), "nodes": [ref(v) for v in e.nodes]} for e in self.errors],
            "unmet_count": len(self.unmet),
            "unmet": [{"node": ref(v), "packet": name(p)} for v, p in self.unmet[:max_unmet]],
            **(
                {
                    "missing_count": len(self.missing),
                    "missing": [
                        {"node": ref(v), "chunk": name(c), "contribution": ref(w)}
                        for v, c, w in self.missing[:max_unmet]
                    ],
                    "incomplete": self.incomplete(instance, max_unmet),
                }
                if instance.problem.reduction
                else {}
            ),
            "per_round": [vars(s) for s in self.per_round],
            "steps": self.steps,
            "cost": self.cost,
        }


def join_and(items: list[str]) -> str:
    """``a``, ``a and b``, ``a, b and c``."""
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]
