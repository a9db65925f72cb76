"""What every encoding shares: the optional constraint families, and distances to packets.

An encoding option is either *implied* (it only restates what the model already forces, so a
DRAT proof of the formula with it proves the plain claim) or *sound but not implied* (it
removes schedules, but never all schedules of a given length; its one-line argument is in the
docstring of the module that adds it). ``--strict`` turns off every option of the second kind.
"""

from __future__ import annotations

from dataclasses import dataclass, fields, replace

import networkx as nx

from gossipcert import graphs
from gossipcert.instance import Instance, bits


@dataclass(frozen=True)
class EncodingOptions:
    """Which optional constraint families the encoding adds.

    Attributes
    ----------
    prune : bool
        Distance pruning (no variable for a pair that cannot be known yet). Implied.
    counting : bool
        Knowledge encoding: the implied cardinality bounds on knowledge and on the spread of
        each packet.
    dominance : bool
        Knowledge encoding: maximality of each round's matching (sound, not implied).
    symmetry : bool
        Lex-leader constraints on the first round from the instance's automorphisms
        (added by :mod:`gossipcert.symmetry.automorphisms`; sound, not implied).
    learn_cap : bool
        Transfer encoding: a node learns at most ``p`` packets per round. Implied.
    useless : bool
        Transfer encoding: a packet is never sent to a receiver that already knows it
        (sound, not implied).
    canonical : bool
        Transfer encoding, sequential models: two consecutive transmissions on disjoint
        pairs of nodes come in a fixed order (sound, not implied).
    broadcast : bool
        Single-packet instances of the point-to-point models use the broadcast encoding of
        :mod:`gossipcert.encodings.broadcast` instead of the generic one. Off by default so
        that certificates written before it existed still name their encoding.
    tree : bool
        All-port instances on a tree, every packet with one holder, use the time-indexed
        encoding of :mod:`gossipcert.encodings.tree` instead of the generic one. Off by
        default for the same reason.
    eager : bool
        Tree encoding: no arc has spare capacity in a round while a packet that needs it
        waits at its tail (sound, not implied; off by default like ``tree``).
    waste : bool
        Broadcast encoding: the idle budget of :mod:`gossipcert.encodings.waste` (implied).
        Off by default for the same reason; on in every search.
    last_round : bool
        Half-duplex knowledge encoding: at most ``floor(n/2)`` nodes miss a demand after
        round ``R - 1`` (:mod:`gossipcert.encodings.half_duplex`). Implied. Off by default so
        that certificates written before it existed regenerate the same formula.
    packet_count : bool
        Transfer encoding, ``p``-capped models: the knowledge of a node set grows by at most
        ``p`` per receiver per round (:mod:`gossipcert.encodings.packet_counting`). Implied.
        Off by default for the same reason; on in every search unless ``strict``.
    """

    prune: bool = True
    counting: bool = True
    dominance: bool = True
    symmetry: bool = True
    learn_cap: bool = True
    useless: bool = True
    canonical: bool = True
    broadcast: bool = False
    tree: bool = False
    eager: bool = False
    waste: bool = False
    last_round: bool = False
    packet_count: bool = False

    @classmethod
    def for_search(
        cls,
        strict: bool = False,
        counting: bool = False,
        broadcast: bool = True,
        tree: bool = True,
    ) -> EncodingOptions:
        """The options of a search: everything sound on, unless ``strict``; the broadcast
        encoding for single-packet instances unless ``broadcast`` is False, the tree
        encoding for all-port trees unless ``tree`` is False; the half-duplex last-round
        count with ``counting``; the transfer encoding's packet counting unless ``strict``
        (implied, but a plain encoding is what ``--strict`` asks for)."""
        return cls(
            counting=counting,
            last_round=counting,
            dominance=not strict,
            symmetry=not strict,
            useless=not strict,
            canonical=not strict,
            broadcast=broadcast,
            tree=tree,
            eager=not strict,
            waste=True,
            packet_count=not strict,
        )

    def to_json(self) -> dict[str, bool]:
        """JSON-ready form."""
        return {f.name: getattr(self, f.name) for f in fields(self)}

    def only(self, names: tuple[str, ...]) -> EncodingOptions:
        """These options with every rule not named in ``names`` off (an encoding's own view)."""
        return replace(self, **{f.name: False for f in fields(self) if f.name not in names})

    def not_implied(self) -> list[str]:
        """Names of the sound but not implied rules that are on."""
        return [
            text
            for text, on in (
                ("lex-leader symmetry breaking", self.symmetry),
                ("maximal-matching dominance", self.dominance),
                ("no useless sends", self.useless),
                ("canonical order of independent calls", self.canonical),
                ("work-conserving arcs", self.eager),
            )
            if on
        ]


def earliest_rounds(instance: Instance) -> list[list[int | None]]:
    """``earliest[p][v]``: distance from the nearest holder of ``p`` to ``v`` (None: never),
    each edge weighted by its latency (1 unless the edge's ``latency`` says otherwise): the
    first round after which ``v`` can know ``p``."""
    g = instance.graph
    holders: list[list[int]] = [[] for _ in range(instance.n_packets)]
    for v, mask in enumerate(instance.holdings):
        for p in bits(mask):
            holders[p].append(v)
    out: list[list[int | None]] = []
    weight = "latency" if graphs.latencies(g) else None
    for p in range(instance.n_packets):
        dist = (
            nx.multi_source_dijkstra_path_length(g, holders[p], weight=weight) if holders[p] else {}
        )
        out.append([dist.get(v) for v in range(instance.n)])
    return out
