"""The multicast model: one transmission to any set of neighbours, one reception.

Every node sends at most one transmission, to any subset of its neighbours, and receives at
most one; at most ``p`` packets (default 1). Reversing time turns one sender with several
receivers into several senders to one receiver, which the model forbids: not reversible.

References
----------
.. [1] T. F. Gonzalez, "An efficient algorithm for gossiping in the multicasting
   communication environment", IEEE TPDS, 2003.
"""

from gossipcert.models.base import ModelKind, PortRules

MULTICAST = PortRules(
    kind=ModelKind.MULTICAST,
    summary="each node sends one transmission to any set of neighbours, receives one",
    source="Gonzalez",
    point_to_point=False,
    one_port=True,
    default_packet_cap=1,
    constructions=("hamiltonian", "concurrent-updown", "simple", "shift-exchange"),
    reversible=False,
)
