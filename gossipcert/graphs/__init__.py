"""Graph families, graph specifications and graph files.

Every graph this module returns is a :class:`networkx.Graph` that obeys the same conventions,
on which the rest of gossipcert relies:

* undirected and simple (no self-loops; parallel edges are merged by the constructions and
  rejected in files); the nodes are the integers ``0..n-1``;
* ``G.graph["spec"]`` is a canonical specification string (``"hypercube:4"``, ``"ring:3*path:2"``)
  or, for a graph read from a file, the file's path;
* every node has a ``"label"`` (str): ``str(v)`` for the built-in families, the label used in the
  file for files; schedules and command-line arguments may name nodes by it
  (see :func:`resolve_node` and :func:`node_ref`);
* every node has a ``"router"`` flag (bool): True only for nodes that relay but neither hold nor
  demand information (the inner nodes of fat trees; files may mark routers too);
* every edge has an integer ``"capacity"`` >= 1 (1 unless the family or the file says otherwise);
* an edge may have an integer ``"latency"`` >= 1, the rounds a packet spends on it (1 when
  absent; only the all-port model accepts another value, see :mod:`gossipcert.models.all_port`);
* families with structure give each node ``"coords"``: ``(r, c)`` for meshes and tori, ``(i, j)``
  for cube-connected cycles and butterflies, ``(s, j)`` for Knödel graphs, the permutation tuple
  for star and pancake graphs, ``(level, index)`` for fat trees and ``(a, b)`` for products;
* families whose nodes all have the same eccentricity (all of them are vertex-transitive) set
  ``G.graph["vertex_transitive"] = True``; :func:`describe` then needs one breadth-first search.

Families (spec form, nodes ``n``, edges ``m``):

==========================  ======================  =========================================
spec                        n                       m
==========================  ======================  =========================================
``ring:N``                  N                       N
``path:N``                  N                       N - 1
``complete:N``              N                       N(N-1)/2
``star:N``                  N                       N - 1
``hypercube:K``             2^K                     K 2^(K-1)
``mesh:AxB``                AB                      2AB - A - B
``torus:AxB``               AB                      2AB
``petersen``                10                      15
``ccc:K``                   K 2^K                   3/2 K 2^K
``butterfly:K``             K 2^K                   2 K 2^K
``shuffle-exchange:K``      2^K                     3/2 2^K - 3 (K even), - 2 (K odd)
``debruijn:K``              2^K                     2 2^K - 3
``knodel:N`` / ``N,D``      N                       N D / 2 (default D = floor(log2 N))
``star-graph:K``            K!                      (K-1) K!/2
``pancake:K``               K!                      (K-1) K!/2
``fattree:N`` / ``N:exp``   2N - 1 (N processors)   2N - 2
``random:N,M,seed=S``       N                       M
``fully-connected:N``       N                       N(N-1)/2 (all-port ``K_N``)
``hub:N``                   N                       N(N-1)/2 (single-port ``K_N`` only)
``dgx1``                    8                       16 (capacities 1 and 2)
``dgx2``                    17 (16 GPUs, a switch)  16
``ndv2:K`` / ``K:lat=L``    8K (+1 switch, K >= 3)  16K + 1 (K = 2), 17K (K >= 3)
``mi250:K``                 16K (+8K+1, K >= 2)     28K (+24K, K >= 2)
==========================  ======================  =========================================

Products are written with ``*`` (``ring:3*path:2``, left-associative) and any string that
contains ``/`` or ends in ``.edgelist``, ``.graphml``, ``.g6`` or ``.json`` names a graph file.
Bad specifications raise :class:`~gossipcert.errors.SpecError`; unreadable or malformed graph
files raise :class:`~gossipcert.errors.GraphError`.

References
----------
.. [1] R. Beier and J. F. Sibeyn, "A powerful heuristic for telephone gossiping",
   Proc. 7th Colloquium on Structural Information and Communication Complexity (SIROCCO),
   2000. Section 2 (graph classes, node and edge counts) and section 8 (index tuples of
   cube-connected cycles, butterflies, star and pancake graphs).
.. [2] V. V. Dimakopoulos and N. J. Dimopoulos, "Communications in binary fat trees",
   Proc. ICCI, 1995. Section 2 (binary fat trees, constant and exponential capacities).
"""

from __future__ import annotations

from gossipcert.graphs.base import (
    FAMILIES,
    GRAPH_FILE_SUFFIXES,
    MAX_EDGES,
    MAX_NODES,
)
from gossipcert.graphs.collectives import (
    dgx1,
    fully_connected,
    hub,
)
from gossipcert.graphs.families import (
    cartesian_product,
    complete,
    hypercube,
    mesh,
    path,
    petersen,
    ring,
    star,
    torus,
)
from gossipcert.graphs.files import (
    read_graph_file,
    write_graph_file,
)
from gossipcert.graphs.machines import (
    dgx2,
    mi250,
    ndv2,
)
from gossipcert.graphs.networks import (
    cube_connected_cycles,
    de_bruijn,
    fat_tree,
    knodel,
    pancake,
    shuffle_exchange,
    star_graph,
    wrapped_butterfly,
)
from gossipcert.graphs.queries import (
    capacity,
    describe,
    is_router,
    latencies,
    latency,
    node_ref,
    processors,
    resolve_node,
    routers,
)
from gossipcert.graphs.random_graphs import (
    random_connected,
)
from gossipcert.graphs.specs import (
    from_spec,
    looks_like_file,
)

__all__ = [
    "FAMILIES",
    "GRAPH_FILE_SUFFIXES",
    "MAX_EDGES",
    "MAX_NODES",
    "capacity",
    "cartesian_product",
    "complete",
    "cube_connected_cycles",
    "de_bruijn",
    "describe",
    "dgx1",
    "dgx2",
    "fat_tree",
    "from_spec",
    "fully_connected",
    "hub",
    "hypercube",
    "is_router",
    "knodel",
    "latencies",
    "latency",
    "looks_like_file",
    "mesh",
    "mi250",
    "ndv2",
    "node_ref",
    "pancake",
    "path",
    "petersen",
    "processors",
    "random_connected",
    "read_graph_file",
    "resolve_node",
    "ring",
    "routers",
    "shuffle_exchange",
    "star",
    "star_graph",
    "torus",
    "wrapped_butterfly",
    "write_graph_file",
]
