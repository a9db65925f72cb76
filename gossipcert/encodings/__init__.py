"""Time-expanded encodings, one module per communication model, and the registry.

:mod:`.formula` is the constraint store that compiles to CNF (PySAT) and to CP-SAT;
:mod:`.options` the optional rules every encoding shares; :mod:`.cnf` the standalone CNF of
a horizon (numbered clauses and their hash). Two models of knowledge:

- :mod:`.knowledge`: an active link carries everything its sender knows (telephone and
  half-duplex with unbounded packets; the faster encoding where it applies), with the port
  rules of :mod:`.telephone` and :mod:`.half_duplex`;
- :mod:`.transfer`: which packets cross each arc (every packet-limited model), with the port
  rules of :mod:`.packet_telephone`, :mod:`.packet_half_duplex`, :mod:`.single_port` and
  :mod:`.multicast`, and the ``calls=N`` modifier of :mod:`.sequential`; the all-port model
  with arc capacities and routers in :mod:`.all_port`;
- :mod:`.broadcast`: one packet, who informs whom and when (telephone, half-duplex and
  single-port without a call limit), chosen when the options ask for it;
- :mod:`.tree`: all-port on a tree, one crossing time per packet and arc of its unique
  paths, chosen when the options ask for it.

:func:`encoding_for` maps a model to its encoding; the model modules do not import it.
"""

from __future__ import annotations

from gossipcert.encodings.all_port import AllPortEncoding
from gossipcert.encodings.broadcast import BroadcastEncoding, broadcast_applies
from gossipcert.encodings.formula import Formula
from gossipcert.encodings.half_duplex import HalfDuplexEncoding
from gossipcert.encodings.k_port import KPortEncoding
from gossipcert.encodings.knowledge import KnowledgeEncoding
from gossipcert.encodings.multicast import MulticastEncoding
from gossipcert.encodings.options import EncodingOptions
from gossipcert.encodings.packet_half_duplex import PacketHalfDuplexEncoding
from gossipcert.encodings.packet_telephone import PacketTelephoneEncoding
from gossipcert.encodings.single_port import SinglePortEncoding
from gossipcert.encodings.telephone import TelephoneEncoding
from gossipcert.encodings.transfer import TransferEncoding
from gossipcert.encodings.tree import TreeEncoding, tree_applies
from gossipcert.errors import UnsupportedModelError
from gossipcert.instance import Instance, ModelKind

Encoding = KnowledgeEncoding | TransferEncoding | BroadcastEncoding | TreeEncoding


def _by_kind(
    *encodings: type[KnowledgeEncoding] | type[TransferEncoding],
) -> dict[ModelKind, tuple[type[KnowledgeEncoding] | None, type[TransferEncoding]]]:
    """Each model's (knowledge encoding or None, transfer encoding), from the models each
    encoding declares it implements (its ``kinds``)."""
    knowledge: dict[ModelKind, type[KnowledgeEncoding]] = {}
    transfer: dict[ModelKind, type[TransferEncoding]] = {}
    for encoding in encodings:
        for kind in encoding.kinds:
            if issubclass(encoding, KnowledgeEncoding):
                knowledge[kind] = encoding
            else:
                transfer[kind] = encoding
    return {kind: (knowledge.get(kind), enc) for kind, enc in transfer.items()}


#: model kind -> (knowledge encoding or None, transfer encoding); a model none of these
#: encodings declares is refused by name (:func:`encoding_for`)
REGISTRY = _by_kind(
    TelephoneEncoding,
    HalfDuplexEncoding,
    PacketTelephoneEncoding,
    PacketHalfDuplexEncoding,
    SinglePortEncoding,
    MulticastEncoding,
    AllPortEncoding,
    KPortEncoding,
)


def encoding_for(
    instance: Instance,
    options: EncodingOptions | None = None,
    formula: Formula | None = None,
    transfer: bool = False,
) -> Encoding:
    """The encoding of ``instance``'s model.

    Parameters
    ----------
    instance : Instance
    options : EncodingOptions, optional
        With ``broadcast`` on, single-packet instances get :class:`BroadcastEncoding`; with
        ``tree`` on, all-port instances on a tree get :class:`TreeEncoding`.
    formula : Formula, optional
    transfer : bool
        Use the per-packet transfer encoding even where the knowledge, broadcast or tree
        encoding applies; for comparisons.

    Raises
    ------
    UnsupportedModelError
        For models without an encoding (none in :data:`REGISTRY`, or all-port with a call
        limit).

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> type(encoding_for(parse_instance("ring:4", "telephone", "gossip"))).__name__
    'TelephoneEncoding'
    >>> type(encoding_for(parse_instance("ring:4", "sequential", "gossip"))).__name__
    'PacketTelephoneEncoding'
    >>> type(encoding_for(parse_instance("ring:4", "telephone", "broadcast:0"),
    ...                   EncodingOptions(broadcast=True))).__name__
    'BroadcastEncoding'
    >>> type(encoding_for(parse_instance("fattree:4", "all-port", "alltoall"),
    ...                   EncodingOptions(tree=True))).__name__
    'TreeEncoding'
    """
    model = instance.model
    if options is not None and options.broadcast and not transfer and broadcast_applies(instance):
        return BroadcastEncoding(instance, options, formula)
    if options is not None and options.tree and not transfer and tree_applies(instance):
        return TreeEncoding(instance, options, formula)
    if model.kind not in REGISTRY:
        raise UnsupportedModelError(
            f"the exact solver has no encoding of {model.spec()} (it encodes "
            f"{', '.join(kind.value for kind in REGISTRY)})"
        )
    knowledge, per_packet = REGISTRY[model.kind]
    if knowledge is not None and not transfer and model.unbounded and model.calls_per_round is None:
        return knowledge(instance, options, formula)
    return per_packet(instance, options, formula)


__all__ = [
    "BroadcastEncoding",
    "Encoding",
    "EncodingOptions",
    "KnowledgeEncoding",
    "TransferEncoding",
    "TreeEncoding",
    "encoding_for",
]
