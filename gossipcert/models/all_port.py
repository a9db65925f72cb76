"""The all-port model (multi-port): every arc in every round, up to its capacity.

Every arc ``(u, v)`` may carry at most ``c(u, v)`` packets per round (the edge's capacity,
default 1). Reversible: an undirected graph gives each arc and its reverse one capacity.

References
----------
.. [1] V. V. Dimakopoulos and N. J. Dimopoulos, "Communications in binary fat trees".
"""

from gossipcert.models.base import ModelKind, PortRules

ALL_PORT = PortRules(
    kind=ModelKind.ALL_PORT,
    summary="every arc in every round, at most c(u,v) packets per arc",
    source="Dimakopoulos-Dimopoulos (fat trees); SCCL-style topologies",
    point_to_point=False,
    one_port=False,
    constructions=(
        "fattree-flood",
        "farthest-first",
        "fattree-total-exchange",
        "ring-allgather",
        "ring-alltoall",
        "hypercube-doubling",
        "farthest-first-routes",
        "machine-pipeline",
    ),
)
