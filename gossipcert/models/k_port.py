"""The k-port model: each node sends to at most ``k`` neighbours and receives from at most ``k``.

Every node sends at most ``k`` transmissions a round, each to one neighbour and at most one to
each neighbour, and receives at most ``k``; its partners may differ; at most ``p`` packets a
transmission (default 1). The spec names ``k``: ``k-port:k=2``, ``k-port:k=3,p=2``.

- ``k = 1`` is the single-port model: the same rounds, packet caps and schedules (the spec
  ``k-port:k=1`` is kept as written; its optima, verdicts and encoding agree with
  ``single-port``'s, which the tests check);
- with ``k`` at least the largest degree and ``p = 1`` every arc may carry one packet every
  round: all-port with capacity 1;
- reversible: reversing every arc and the order of the rounds swaps sends and receipts, both
  bounded by ``k``.

References
----------
.. [1] J. Bruck, C.-T. Ho, S. Kipnis, E. Upfal and D. Weathersby, "Efficient algorithms for
   all-to-all communications in multiport message-passing systems", IEEE TPDS 8(11), 1997
   (each processor sends and receives ``k`` messages a round through ``k`` ports).
.. [2] A. Bar-Noy and C.-T. Ho, "Broadcasting multiple messages in the multiport model",
   IEEE TPDS, 1999 (the ``k``-port model: ``k`` messages to ``k`` processors and ``k``
   from ``k`` processors a round).
.. [3] V. V. Dimakopoulos, "Single-port multinode broadcasting", 1999 (the single-port
   model, ``k = 1``).
"""

from gossipcert.models.base import ModelKind, PortRules

K_PORT = PortRules(
    kind=ModelKind.K_PORT,
    summary="each node sends to at most k neighbours and receives from at most k",
    source="Bruck-Ho-Kipnis-Upfal-Weathersby; Bar-Noy-Ho (k-port); k=1: Dimakopoulos (FD)",
    point_to_point=True,
    one_port=False,
    k_ports=True,
    default_packet_cap=1,
    constructions=(),
)
