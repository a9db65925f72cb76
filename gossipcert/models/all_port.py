"""The all-port model (multi-port): every arc in every round, up to its capacity.

Every arc ``(u, v)`` may carry at most ``c(u, v)`` packets per round (the edge's capacity,
default 1). Reversible: an undirected graph gives each arc and its reverse one capacity.

Links slower than one round (docs/models.rst), the one model that states them:

- an edge may carry a latency ``L >= 1`` (edge attribute ``latency``, both directions, like
  ``capacity``; 1 when absent); a packet that enters arc ``u -> v`` in round ``t`` is known
  at ``v`` from the end of round ``t + L - 1`` (forwarded by ``v`` in round ``t + L`` at the
  earliest); ``L = 1`` is the rule above;
- capacity is per round of entry (the link is pipelined): at most ``c(u, v)`` packets enter
  ``u -> v`` in each round, whatever is still in flight;
- a schedule's round count is the round by which every demand is met, arrivals included
  (a schedule whose last send is in round ``t`` on a latency-2 link has at least ``t + 1``
  rounds);
- a transmission is listed in the round it enters the link (schedule files are unchanged);
  the verifier computes the arrival rounds;
- the other models, and the reductions, refuse a graph with a latency other than 1
  (:func:`gossipcert.instance.check_latencies`).

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
    latencies=True,
    constructions=(
        "fattree-flood",
        "farthest-first",
        "fattree-total-exchange",
        "ring-allgather",
        "hypercube-doubling",
        "scatter-allgather",
        "two-stream-broadcast",
        "translated-allgather",
        "ring-alltoall",
        "farthest-first-routes",
        "switch-alltoall",
        "machine-pipeline",
        "tree-mix",
        "tree-broadcast",
    ),
)
