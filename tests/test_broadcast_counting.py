"""The broadcast encoding's optional counting constraint: exact, and linear in size.

``EncodingOptions()`` has counting on, so a direct caller of
:class:`~gossipcert.encodings.broadcast.BroadcastEncoding` gets it; the encoding leaves out a
round's count when its totalizer would exceed
:data:`~gossipcert.encodings.broadcast.COUNTING_CELLS`, which keeps the formula linear-ish
in ``n R`` (before, the count made it quadratic: about five times the plain formula on
butterfly 6 at 10 rounds, and tens of gigabytes on butterfly 10).
"""

from __future__ import annotations

import networkx as nx
import pytest

from gossipcert.encodings import EncodingOptions
from gossipcert.encodings.broadcast import COUNTING_CELLS, BroadcastEncoding
from gossipcert.instance import make_instance, parse_instance, parse_model, parse_problem
from gossipcert.search.entry import solve

WITH = EncodingOptions()  # the defaults: counting on
WITHOUT = EncodingOptions(counting=False)


def n_clauses(graph: str, rounds: int, options: EncodingOptions) -> int:
    enc = BroadcastEncoding(parse_instance(graph, "telephone", "broadcast:0"), options)
    enc.extend_to(rounds)
    return len(enc.formula.cnf_since(0))


def test_defaults_count_on_small_graphs() -> None:
    # below the cap the count is encoded: the default formula is larger than the plain one
    assert n_clauses("butterfly:3", 5, WITH) > n_clauses("butterfly:3", 5, WITHOUT)


@pytest.mark.parametrize("graph, rounds", [("butterfly:6", 10), ("debruijn:8", 10)])
def test_defaults_stay_linear(graph: str, rounds: int) -> None:
    plain = n_clauses(graph, rounds, WITHOUT)
    counted = n_clauses(graph, rounds, WITH)
    # each round's count is cut at about 2 * COUNTING_CELLS clauses
    assert counted - plain <= rounds * 3 * COUNTING_CELLS
    # before the cut: 266,042 against 52,744 clauses on butterfly 6 at 10 rounds
    assert counted <= 1.5 * plain


def test_growth_with_the_graph() -> None:
    # clauses per (n + m) R do not grow from butterfly 4 to butterfly 7 (measured 8.5, 11.8,
    # 6.0, 4.5; before the cut they grew with n)
    ratios = []
    for k in (4, 5, 6, 7):
        inst = parse_instance(f"butterfly:{k}", "telephone", "broadcast:0")
        size = (inst.n + inst.graph.number_of_edges()) * (k + 3)
        ratios.append(n_clauses(f"butterfly:{k}", k + 3, WITH) / size)
    assert max(ratios) <= 15 and ratios[-1] <= ratios[0], ratios


def _graphs(max_n: int) -> list[nx.Graph]:
    return [
        g
        for g in nx.graph_atlas_g()[1:]
        if g.number_of_nodes() <= max_n and nx.is_connected(g) and g.number_of_nodes() > 1
    ]


def test_counting_keeps_the_optimum() -> None:
    # every connected graph up to 5 nodes, from every source: the same optimum with the
    # count as without it (the plain encoding is checked against a brute force elsewhere)
    model = parse_model("telephone")
    for g in _graphs(5):
        for s in range(g.number_of_nodes()):
            inst = make_instance(g, model, parse_problem(f"broadcast:{s}"))
            with_count = EncodingOptions(broadcast=True, waste=True)
            without = EncodingOptions(broadcast=True, waste=True, counting=False)
            a = solve(inst, options=with_count, use_bounds=False, proof=False).optimum
            b = solve(inst, options=without, use_bounds=False, proof=False).optimum
            assert a == b, (sorted(g.edges), s, a, b)
