"""The factors of a Cartesian product graph ``G = A x B``, recognised from its spec and
checked against its edges: products ``f1*...*fk``, tori (rings), meshes (paths) and
hypercubes (``Q_{k-1} x P_2``), all with the node numbering ``a * n2 + b`` of
:func:`gossipcert.graphs.cartesian_product`.

References
----------
.. [1] V. V. Dimakopoulos, "Single-port multinode broadcasting", Tech. Report 1-99,
   University of Ioannina, 1999: section 4 (Cartesian products).
"""

from __future__ import annotations

import networkx as nx

from gossipcert import graphs
from gossipcert.errors import GossipcertError, NotApplicableError
from gossipcert.graphs.specs import factor_specs

__all__ = ["factor_specs", "product_factors"]


def product_factors(graph: nx.Graph) -> tuple[nx.Graph, nx.Graph]:
    """The factors ``A`` and ``B`` of a product graph ``G = A x B``.

    Node ``(a, b)`` of ``G`` must be number ``a * n2 + b``, as built by
    :func:`gossipcert.graphs.cartesian_product`, ``torus``, ``mesh`` and ``hypercube``.

    Parameters
    ----------
    graph : networkx.Graph
        A graph whose spec is a product ``S1*...*Sk`` (``A = S1*...*S(k-1)``, ``B = Sk``),
        a torus (rings), a mesh (paths) or a hypercube (``Q_{k-1} x P_2``).

    Returns
    -------
    tuple of networkx.Graph
        ``(A, B)``.

    Raises
    ------
    NotApplicableError
        The graph is not recognised as such a product.

    Examples
    --------
    >>> a, b = product_factors(graphs.from_spec("torus:3x4"))
    >>> a.graph["spec"], b.graph["spec"]
    ('ring:3', 'ring:4')
    """
    spec = str(graph.graph.get("spec", ""))
    parts = factor_specs(spec)
    if parts is None:
        raise NotApplicableError(f"{spec or 'the graph'} is not a recognised Cartesian product")
    try:
        a, b = graphs.from_spec(parts[0]), graphs.from_spec(parts[1])
    except GossipcertError as exc:
        raise NotApplicableError(f"cannot rebuild the factors of {spec}: {exc}") from None
    n1, n2 = a.number_of_nodes(), b.number_of_nodes()
    expected = {(x * n2 + y, x2 * n2 + y) for x, x2 in a.edges() for y in range(n2)}
    expected |= {(x * n2 + y, x * n2 + y2) for y, y2 in b.edges() for x in range(n1)}
    got = {tuple(sorted(e)) for e in graph.edges()}
    if n1 * n2 != graph.number_of_nodes() or {tuple(sorted(e)) for e in expected} != got:
        raise NotApplicableError(f"{spec} does not match the product of its factors")
    return a, b
