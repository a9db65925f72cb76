"""The single-port model (full-duplex, directed): send to one, receive from one.

Every node sends at most one transmission to one neighbour and receives at most one; its two
partners may differ; at most ``p`` packets (default 1).

References
----------
.. [1] V. V. Dimakopoulos, "Single-port multinode broadcasting", 1999 (FD, ``p = 1``).
"""

from gossipcert.models.base import ModelKind, PortRules

SINGLE_PORT = PortRules(
    kind=ModelKind.SINGLE_PORT,
    summary="each node sends to one neighbour and receives from one (partners may differ)",
    source="Dimakopoulos (FD)",
    point_to_point=True,
    one_port=True,
    default_packet_cap=1,
    constructions=(
        "hamiltonian",
        "product",
        "shift-exchange",
        "circulant-broadcast",
        "ring-pipeline",
    ),
)
