"""The union relaxation of the reductions against the independent SAT reference.

The relaxation's least satisfiable horizon is the ``max`` optimum (under ``max`` every
schedule is a union of knowledge, and a union schedule is a ``max`` schedule), with every
constraint family and with the sound ones left out (``strict``); the reference is
:mod:`tests.reductions_sat`, which shares no code with it. Its refutations are lower bounds
of the ``sum`` optimum, which :func:`gossipcert.search.entry.solve` certifies.
"""

from __future__ import annotations

import networkx as nx
import pytest
from pysat.solvers import Solver

from gossipcert.encodings import allreduce_union as union
from gossipcert.encodings.options import EncodingOptions
from gossipcert.errors import UnsupportedModelError
from gossipcert.instance import Instance, make_instance, parse_instance, parse_model, parse_problem
from tests.reductions_sat import optimum as reference_optimum
from tests.test_reductions_bfs import MODELS, atlas, labelled, spec


def satisfiable(inst: Instance, rounds: int, options: EncodingOptions) -> bool:
    with Solver(
        name="cadical195", bootstrap_with=union.build(inst, rounds, options).cnf_since(0)
    ) as s:
        return bool(s.solve())


def optimum_is(inst: Instance, options: EncodingOptions, rounds: int) -> bool:
    """``rounds`` is the least satisfiable horizon (feasibility is monotone in it)."""
    return satisfiable(inst, rounds, options) and not (
        rounds > 0 and satisfiable(inst, rounds - 1, options)
    )


@pytest.mark.parametrize("model", sorted(MODELS))
@pytest.mark.parametrize("problem", ["allreduce", "reduce-scatter", "reduce"])
@pytest.mark.parametrize(("k", "max_nodes"), [(1, 4), (2, 3)])
def test_union_optimum_is_the_max_optimum(model: str, problem: str, k: int, max_nodes: int) -> None:
    for index in atlas(max_nodes):
        g = nx.graph_atlas(index)
        n, edges = g.number_of_nodes(), list(g.edges)
        inst = make_instance(
            labelled(index), parse_model(MODELS[model]), parse_problem(spec(problem, 0, k, "sum"))
        )
        expected = reference_optimum(n, edges, model, problem, k, 2 * n * k, 0, 60.0)
        for options in (union.DEFAULT_OPTIONS, union.STRICT_OPTIONS):
            assert optimum_is(inst, options, expected), (index, options, expected)


def test_union_formula_declines_what_the_exact_model_declines() -> None:
    with pytest.raises(UnsupportedModelError):
        union.build(parse_instance("ring:4", "multicast", "allreduce"), 3)


def test_counting_and_symmetry_shrink_nothing_below_the_optimum() -> None:
    # single-port allreduce with two chunks on the path of 3: the reference's 13, for every
    # combination of the optional families
    inst = parse_instance("path:3", "single-port", "allreduce:chunks=2")
    for counting in (False, True):
        for useless in (False, True):
            for symmetry in (False, True):
                options = EncodingOptions(counting=counting, useless=useless, symmetry=symmetry)
                assert optimum_is(inst, options, 13), options
