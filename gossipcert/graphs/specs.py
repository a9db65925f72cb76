"""Graph specification strings (``hypercube:4``, ``ring:3*path:2``, a file's path).

See :mod:`gossipcert.graphs` for the conventions every graph follows.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Sequence

import networkx as nx

from gossipcert.errors import SpecError
from gossipcert.graphs.base import _SUFFIX_LIST, _UNSIGNED, FAMILIES, GRAPH_FILE_SUFFIXES
from gossipcert.graphs.collectives import dgx1, fully_connected, hub
from gossipcert.graphs.families import (
    _grid,
    cartesian_product,
    complete,
    hypercube,
    path,
    petersen,
    ring,
    star,
)
from gossipcert.graphs.files import read_graph_file
from gossipcert.graphs.machines import dgx2, mi250, ndv2
from gossipcert.graphs.machines_forestcoll import a100, mi250_forestcoll
from gossipcert.graphs.machines_vendors import mi300x, ndv5
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
from gossipcert.graphs.random_graphs import random_connected

# --------------------------------------------------------------------------------------------
# Specs
# --------------------------------------------------------------------------------------------

_USAGE: dict[str, str] = {
    "ring": "ring:N (N >= 3)",
    "path": "path:N (N >= 1)",
    "complete": "complete:N (N >= 1)",
    "star": "star:N (N >= 2 nodes in total)",
    "hypercube": "hypercube:K (K >= 1)",
    "mesh": "mesh:AxB (A, B >= 1)",
    "torus": "torus:AxB (A, B >= 3)",
    "petersen": "petersen (no parameters)",
    "ccc": "ccc:K (K >= 3)",
    "butterfly": "butterfly:K (K >= 3)",
    "shuffle-exchange": "shuffle-exchange:K (K >= 2)",
    "debruijn": "debruijn:K (K >= 2)",
    "knodel": "knodel:N or knodel:N,DELTA (N even >= 2, 1 <= DELTA <= floor(log2 N))",
    "star-graph": "star-graph:K (K >= 2)",
    "pancake": "pancake:K (K >= 2)",
    "fattree": "fattree:N, fattree:N:exp or fattree:N:C1,C2,... (N a power of 2 >= 2)",
    "random": "random:N,M,seed=S (N - 1 <= M <= N(N-1)/2)",
    "fully-connected": "fully-connected:N (N >= 2)",
    "hub": "hub:N (N >= 2; the single-port model on K_N)",
    "dgx1": "dgx1 (no parameters)",
    "dgx2": "dgx2 (no parameters)",
    "ndv2": "ndv2:K or ndv2:K:lat=L (K >= 1 chassis, L >= 1 rounds on a NIC link)",
    "mi250": "mi250, mi250:K or mi250:K:forestcoll (K >= 1 chassis; TE-CCL's model, or "
    "ForestColl's)",
    "a100": "a100 or a100:K (K >= 1 boxes of 8 A100, ForestColl's model)",
    "ndv5": "ndv5, ndv5:K or ndv5:K:gpus=G (K >= 1 Azure ND H100 v5 boxes of 8 H100, G of "
    "each box's GPUs in use)",
    "mi300x": "mi300x or mi300x:N (N = 2..8 GPUs of one MI300X platform)",
}


def _spec_int(token: str, family: str, spec: str) -> int:
    text = token.strip()
    if not _UNSIGNED.fullmatch(text):
        raise SpecError(f"bad number {token!r} in {spec!r}; expected {_USAGE[family]}")
    return int(text)


def _spec_ints(args: str, family: str, spec: str, sep: str, count: Sequence[int]) -> list[int]:
    parts = args.split(sep) if args else []
    if len(parts) not in count:
        raise SpecError(f"wrong number of parameters in {spec!r}; expected {_USAGE[family]}")
    return [_spec_int(part, family, spec) for part in parts]


_Builder = Callable[[], nx.Graph]


def _parse_fattree(args: str, spec: str) -> _Builder:
    head, colon, tail = args.partition(":")
    n_leaves = _spec_int(head, "fattree", spec)
    if not colon:
        return lambda: fat_tree(n_leaves)
    word = tail.strip().lower()
    if word in ("exp", "exponential", "const", "constant"):
        return lambda: fat_tree(n_leaves, word)
    if re.fullmatch(r"[0-9]+(\s*,\s*[0-9]+)*", word):
        caps = [int(c) for c in word.split(",")]
        return lambda: fat_tree(n_leaves, caps)
    raise SpecError(
        f"unknown capacity pattern {tail!r} in {spec!r}; accepted: exp, exponential, const, "
        f"constant or a list C1,C2,... of capacities; expected {_USAGE['fattree']}"
    )


def _parse_random(args: str, spec: str) -> _Builder:
    parts = [part.strip() for part in args.split(",")]
    if len(parts) not in (2, 3):
        raise SpecError(f"wrong number of parameters in {spec!r}; expected {_USAGE['random']}")
    n = _spec_int(parts[0], "random", spec)
    m = _spec_int(parts[1], "random", spec)
    seed = 0
    if len(parts) == 3:
        key, eq, value = parts[2].partition("=")
        if eq and key.strip().lower() != "seed":
            raise SpecError(
                f"unknown parameter {key.strip()!r} in {spec!r}; expected {_USAGE['random']}"
            )
        text = (value if eq else key).strip()
        if not re.fullmatch(r"-?[0-9]+", text):
            raise SpecError(f"bad seed {text!r} in {spec!r}; expected {_USAGE['random']}")
        seed = int(text)
    return lambda: random_connected(n, m, seed)


_ONE_PARAMETER: dict[str, Callable[[int], nx.Graph]] = {
    "ring": ring,
    "path": path,
    "complete": complete,
    "star": star,
    "hypercube": hypercube,
    "ccc": cube_connected_cycles,
    "butterfly": wrapped_butterfly,
    "shuffle-exchange": shuffle_exchange,
    "debruijn": de_bruijn,
    "star-graph": star_graph,
    "pancake": pancake,
    "fully-connected": fully_connected,
    "hub": hub,
    "a100": a100,
    "mi300x": mi300x,
}


def _parse_ndv2(args: str, spec: str) -> _Builder:
    head, colon, tail = args.partition(":")
    k = _spec_int(head, "ndv2", spec)
    if not colon:
        return lambda: ndv2(k)
    key, eq, value = tail.partition("=")
    if key.strip().lower() != "lat" or not eq:
        raise SpecError(f"unknown option {tail!r} in {spec!r}; expected {_USAGE['ndv2']}")
    lat = _spec_int(value, "ndv2", spec)
    return lambda: ndv2(k, latency=lat)


def _parse_ndv5(args: str, spec: str) -> _Builder:
    head, colon, tail = args.partition(":")
    k = _spec_int(head, "ndv5", spec)
    if not colon:
        return lambda: ndv5(k)
    key, eq, value = tail.partition("=")
    if key.strip().lower() != "gpus" or not eq:
        raise SpecError(f"unknown option {tail!r} in {spec!r}; expected {_USAGE['ndv5']}")
    per = _spec_int(value, "ndv5", spec)
    return lambda: ndv5(k, gpus=per)


def _parse_mi250(args: str, spec: str) -> _Builder:
    head, colon, tail = args.partition(":")
    k = _spec_int(head, "mi250", spec)
    if not colon:
        return lambda: mi250(k)
    if tail.strip().lower() != "forestcoll":
        raise SpecError(f"unknown option {tail!r} in {spec!r}; expected {_USAGE['mi250']}")
    return lambda: mi250_forestcoll(k)


#: the machines whose parameter may be left out (one chassis, or the whole platform)
_MACHINES: dict[str, Callable[[], nx.Graph]] = {
    "ndv2": lambda: ndv2(1),
    "mi250": lambda: mi250(1),
    "a100": lambda: a100(1),
    "ndv5": lambda: ndv5(1),
    "mi300x": mi300x,
}

_NO_PARAMETER: dict[str, Callable[[], nx.Graph]] = {
    "petersen": petersen,
    "dgx1": dgx1,
    "dgx2": dgx2,
}


def _parse_family(name: str, args: str | None, spec: str) -> _Builder:
    """Parse the parameters ``args`` (None if there is no colon) of family ``name``."""
    if name in _NO_PARAMETER:
        if args is not None:
            raise SpecError(f"{name} takes no parameters, got {spec!r}")
        return _NO_PARAMETER[name]
    if name in _MACHINES and args is None:
        return _MACHINES[name]
    if name == "ndv2":
        assert args is not None
        return _parse_ndv2(args, spec)
    if name == "mi250":
        assert args is not None
        return _parse_mi250(args, spec)
    if name == "ndv5" and args is not None and args.strip():
        return _parse_ndv5(args, spec)
    if args is None or not args.strip():
        raise SpecError(f"missing parameters in {spec!r}; expected {_USAGE[name]}")
    if name in _ONE_PARAMETER:
        (value,) = _spec_ints(args, name, spec, ",", (1,))
        return lambda: _ONE_PARAMETER[name](value)
    if name in ("mesh", "torus"):
        a, b = _spec_ints(args.lower(), name, spec, "x", (2,))
        return lambda: _grid(a, b, wrap=name == "torus", family=name)
    if name == "knodel":
        values = _spec_ints(args, name, spec, ",", (1, 2))
        return lambda: knodel(*values)
    if name == "fattree":
        return _parse_fattree(args, spec)
    return _parse_random(args, spec)


def looks_like_file(spec: str) -> bool:
    """True when ``spec`` names a graph file rather than a family (it contains ``/`` or ends
    in a graph-file suffix)."""
    return "/" in spec or spec.lower().endswith(GRAPH_FILE_SUFFIXES)


def _from_single_spec(part: str) -> nx.Graph:
    text = part.strip()
    if looks_like_file(text):
        return read_graph_file(text)
    name, colon, args = text.partition(":")
    name = name.strip().lower()
    if name not in _USAGE:
        raise SpecError(
            f"unknown graph family {name!r} in {text!r}; known: {', '.join(FAMILIES)}; "
            f"or a graph file ending in {_SUFFIX_LIST}"
        )
    build = _parse_family(name, args if colon else None, text)
    try:
        return build()
    except SpecError as exc:
        raise SpecError(f"bad graph spec {text!r}: {exc}; expected {_USAGE[name]}") from None


def from_spec(spec: str) -> nx.Graph:
    """Build the graph a specification string describes.

    Accepted forms: ``ring:8``, ``path:5``, ``complete:6``, ``star:5``, ``hypercube:4``,
    ``mesh:3x4``, ``torus:3x4``, ``petersen``, ``ccc:3``, ``butterfly:3``,
    ``shuffle-exchange:4``, ``debruijn:4``, ``knodel:8``, ``knodel:8,2``, ``star-graph:4``,
    ``pancake:4``, ``fattree:8`` (constant capacities), ``fattree:8:exp``,
    ``fattree:8:1,2,2``, ``random:N,M,seed=S``; Cartesian products joined by ``*``
    (left-associative, ``ring:3*path:2*path:2``); and graph files: anything that contains
    ``/`` or ends in ``.edgelist``, ``.graphml``, ``.g6`` or ``.json`` (see
    :func:`read_graph_file`). Family names are case-insensitive.

    Parameters
    ----------
    spec : str
        The specification.

    Returns
    -------
    networkx.Graph
        The graph; ``G.graph["spec"]`` holds the canonical form of ``spec``.

    Raises
    ------
    SpecError
        Unknown family, bad or out-of-range parameters.
    GraphError
        A named graph file that is missing or malformed.

    Examples
    --------
    >>> from_spec("hypercube:4").number_of_edges()
    32
    >>> from_spec(" Mesh:3X4 ").graph["spec"]
    'mesh:3x4'
    >>> from_spec("ring:3*path:2").number_of_nodes()
    6

    References
    ----------
    Beier and Sibeyn, section 2; Dimakopoulos and Dimopoulos, section 2.
    """
    if not isinstance(spec, str):
        raise SpecError(f"a graph spec must be a string, got {spec!r}")
    text = spec.strip()
    if not text:
        raise SpecError(
            f"empty graph spec; known families: {', '.join(FAMILIES)}; "
            f"or a graph file ending in {_SUFFIX_LIST}"
        )
    if "*" not in text or os.path.isfile(text):
        return _from_single_spec(text)
    factors = text.split("*")
    for position, factor in enumerate(factors):
        if not factor.strip():
            raise SpecError(f"empty factor number {position + 1} in the product {text!r}")
    try:
        graph = _from_single_spec(factors[0])
        for factor in factors[1:]:
            graph = cartesian_product(graph, _from_single_spec(factor))
    except SpecError as exc:
        raise SpecError(f"{exc} (in the product {text!r})") from None
    return graph


_GRID = re.compile(r"(mesh|torus):(\d+)x(\d+)")


def factor_specs(spec: str) -> tuple[str, str] | None:
    """The specs of ``A`` and ``B`` when ``spec`` names a product ``A x B`` (else None).

    ``f1*f2*...*fk`` is left-associative, so ``B = fk``; ``torus:AxB`` is ``ring:A*ring:B``,
    ``mesh:AxB`` is ``path:A*path:B`` and ``hypercube:K`` is ``hypercube:K-1*path:2``, all
    with the node numbering ``a * n2 + b`` of :func:`gossipcert.graphs.cartesian_product`.
    """
    if "*" in spec and "/" not in spec:
        left, _, right = spec.rpartition("*")
        return left, right
    grid = _GRID.fullmatch(spec)
    if grid:
        kind = "ring" if grid.group(1) == "torus" else "path"
        return f"{kind}:{grid.group(2)}", f"{kind}:{grid.group(3)}"
    if spec.startswith("hypercube:"):
        k = int(spec.partition(":")[2])
        if k >= 2:
            inner = "path:2" if k == 2 else f"hypercube:{k - 1}"
            return inner, "path:2"
    return None
