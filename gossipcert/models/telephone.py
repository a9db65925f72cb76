"""The telephone model (full-duplex one-port, F1): the calls of a round form a matching.

A call ``{u, v}`` is the two transmissions ``u -> v`` and ``v -> u``; unbounded packets, or at
most ``p`` each way. ``sequential`` is telephone with one call in the whole network per round.

References
----------
.. [1] R. Beier and J. F. Sibeyn, "A powerful heuristic for telephone gossiping".
.. [2] J.-C. Bermond, L. Gargano and S. Perennes, "Optimal sequential gossiping by short
   messages", Discrete Applied Mathematics 86, 1998 (``p``, sequential).
"""

from gossipcert.models.base import ModelKind, PortRules

TELEPHONE = PortRules(
    kind=ModelKind.TELEPHONE,
    summary="calls form a matching; a call carries packets both ways",
    source="Beier-Sibeyn; Bermond-Gargano-Perennes (p)",
    point_to_point=True,
    one_port=True,
    two_way_calls=True,
    constructions=("matching-sequence", "rows-columns", "bermond"),
)
