"""The half-duplex model (H1, telegraph): the arcs of a round form a directed matching.

Every node sends to one neighbour, or receives from one, or idles; unbounded packets, or at
most ``p``.

References
----------
.. [1] V. V. Dimakopoulos, "Single-port multinode broadcasting", 1999 (HD, ``p = 1``).
.. [2] R. Beier and J. F. Sibeyn, "A powerful heuristic for telephone gossiping" (telegraph).
"""

from gossipcert.models.base import ModelKind, PortRules

HALF_DUPLEX = PortRules(
    kind=ModelKind.HALF_DUPLEX,
    summary="arcs form a directed matching: send to one, or receive from one, or idle",
    source="Dimakopoulos (HD); Beier-Sibeyn (telegraph)",
    point_to_point=True,
    one_port=True,
    send_or_receive=True,
    constructions=("hamiltonian",),
)
