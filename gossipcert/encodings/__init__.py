"""Time-expanded encodings, one module per communication model.

:mod:`.formula` is the constraint store that compiles to CNF (PySAT) and to CP-SAT;
:mod:`.knowledge` the knowledge model shared by the models in which a node receives from at
most one neighbour per round; :mod:`.telephone` and :mod:`.half_duplex` their port rules.
"""

from gossipcert.encodings.knowledge import EncodingOptions, KnowledgeEncoding, encoding_for

__all__ = ["EncodingOptions", "KnowledgeEncoding", "encoding_for"]
