"""What a communication model is: the rules of one round, as one object.

A model's rules are stated once, as a :class:`PortRules`, in its own module of this package
(:mod:`.telephone`, :mod:`.half_duplex`, :mod:`.single_port`, :mod:`.multicast`,
:mod:`.all_port`). The verifier, the bounds that hold for every model of a shape, the
fallback construction, the encodings' choice and the command line read the rules from the
registry (:data:`gossipcert.models.MODELS`) instead of naming models; a paper's construction
or bound that is stated for one model names that model.

References
----------
.. [1] R. Beier and J. F. Sibeyn, "A powerful heuristic for telephone gossiping".
.. [2] V. V. Dimakopoulos, "Single-port multinode broadcasting", 1999.
.. [3] T. F. Gonzalez, "An efficient algorithm for gossiping in the multicasting
   communication environment", IEEE TPDS, 2003.
.. [4] V. V. Dimakopoulos and N. J. Dimopoulos, "Communications in binary fat trees".
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class ModelKind(StrEnum):
    """The communication models: the five of the design (section 2), and k-port."""

    TELEPHONE = "telephone"
    HALF_DUPLEX = "half-duplex"
    SINGLE_PORT = "single-port"
    MULTICAST = "multicast"
    ALL_PORT = "all-port"
    K_PORT = "k-port"


@dataclass(frozen=True)
class PortRules:
    """The rules of one round of a communication model.

    Parameters
    ----------
    kind : ModelKind
        The model's name in specs and certificates.
    summary : str
        Who may talk in one round, in one line (the command line's help).
    source : str
        Where the model is stated.
    point_to_point : bool
        A transmission has exactly one receiver (False: any set of neighbours).
    one_port : bool
        A node sends at most one transmission and receives at most one per round (False:
        ``k_ports`` or arc capacities).
    two_way_calls : bool
        A call ``{u, v}`` is the two transmissions ``u -> v`` and ``v -> u``, and the calls
        of a round form a matching (telephone); a packet cap bounds each way.
    send_or_receive : bool
        A node does not both send and receive in one round (half-duplex).
    default_packet_cap : int or None
        ``p`` when the spec gives none (None: unbounded packets).
    constructions : tuple of str
        The constructions stated for this model (tried for its upper bound).
    reversible : bool
        Reversing every arc and the order of the rounds maps a schedule to a schedule
        (the port rules are symmetric between sending and receiving).
    k_ports : bool
        A node sends at most ``k`` transmissions, at most one to each neighbour, and
        receives at most ``k`` per round; ``k`` is the spec's ``k=N``
        (:attr:`~gossipcert.models.spec.Model.ports`). With neither ``one_port`` nor
        ``k_ports`` every arc may be used in every round, bounded by its capacity.
    latencies : bool
        Links may take more than one round (the edge attribute ``latency``); the other
        models refuse a graph with a latency other than 1.

    Examples
    --------
    >>> from gossipcert.models import MODELS
    >>> rules = MODELS[ModelKind.HALF_DUPLEX]
    >>> rules.point_to_point, rules.one_port, rules.send_or_receive
    (True, True, True)
    """

    kind: ModelKind
    summary: str
    source: str
    point_to_point: bool
    one_port: bool
    two_way_calls: bool = False
    send_or_receive: bool = False
    default_packet_cap: int | None = None
    constructions: tuple[str, ...] = ()
    reversible: bool = True
    k_ports: bool = False
    latencies: bool = False

    @property
    def arc_capacities(self) -> bool:
        """Packets per transmission are bounded by arc capacities, not by ``p``; no port
        bounds what a node sends or receives."""
        return not self.one_port and not self.k_ports

    @property
    def calls_form_matching(self) -> bool:
        """The pairs of nodes that talk in a round form a matching, so that every round is
        a telephone round (telephone lower bounds hold)."""
        return self.two_way_calls or self.send_or_receive

    @property
    def linear_cost(self) -> bool:
        """The linear-cost objective (steps ``S``, the sum over rounds of the most packets one
        node sends) is defined and its CNF is sound: a node sends one transmission and hears
        one sender per round, so it learns at most what one node sends (one-port models).

        With arc capacities (all-port) or ``k`` ports a node hears several neighbours at
        once and a transmission to several receivers is one send, which the steps formula,
        counting packets per arc and bounding what a node learns by one sender, does not
        state.
        """
        return self.one_port

    @property
    def directed_ports(self) -> bool:
        """A node's sending and receiving partners are independent (no calls)."""
        return not self.two_way_calls and not self.send_or_receive
