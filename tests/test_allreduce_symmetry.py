"""The exact allreduce model with its interchangeable chunks ordered (family 7), which
:func:`gossipcert.search.allreduce_exact.find` searches: the same least satisfiable horizon as the
model without it on every connected graph of up to 4 nodes with one chunk and up to 3 nodes
with two (``sum``; ``max`` too with two); and its schedules replay."""

from __future__ import annotations

import pytest
from pysat.solvers import Solver

from gossipcert.encodings import allreduce
from gossipcert.instance import Instance, make_instance, parse_instance, parse_model, parse_problem
from gossipcert.search.allreduce_exact import find
from gossipcert.simulate import simulate
from tests.test_reductions_bfs import MODELS, atlas, labelled, spec


def least_horizon(inst: Instance, symmetry: bool, limit: int = 40) -> int:
    """The fewest rounds with a model of the formula."""
    for rounds in range(1, limit):
        f = allreduce.build(inst, rounds, symmetry=symmetry)
        with Solver(name="cadical195", bootstrap_with=f.cnf_since(0)) as s:
            if s.solve():
                return rounds
    raise AssertionError("no horizon")


@pytest.mark.parametrize("model", sorted(MODELS))
@pytest.mark.parametrize(("k", "max_nodes", "redop"), [(1, 4, "sum"), (2, 3, "sum"), (2, 3, "max")])
def test_ordering_chunks_keeps_the_optimum(model: str, k: int, max_nodes: int, redop: str) -> None:
    ordered = 0
    for index in atlas(max_nodes):
        inst = make_instance(
            labelled(index),
            parse_model(MODELS[model]),
            parse_problem(spec("allreduce", 0, k, redop)),
        )
        ordered += len(allreduce.interchangeable(inst)) < inst.n_packets
        assert least_horizon(inst, True) == least_horizon(inst, False), index
    assert ordered > 0  # the family is not empty


def test_found_schedules_replay_and_one_round_fewer_is_refused() -> None:
    inst = parse_instance("path:3", "single-port", "allreduce:chunks=2")
    status, schedule = find(inst, 13, None)
    assert status == "sat" and schedule is not None
    report = simulate(inst, schedule)
    assert report.ok and report.rounds == 13
    assert find(inst, 12, None) == ("unsat", None)


def test_interchangeable_classes() -> None:
    def classes(problem: str) -> list[list[int]]:
        return allreduce.interchangeable(parse_instance("path:3", "single-port", problem))

    # reduce: the chunks have the same contributors and the one demander, the root
    assert classes("reduce:0,chunks=3") == [[0, 1, 2]]
    # reduce-scatter: the chunks of node i are demanded at node i alone
    assert classes("reduce-scatter") == [[0], [1], [2]]
    assert classes("reduce-scatter:chunks=2") == [[0, 1], [2, 3], [4, 5]]
