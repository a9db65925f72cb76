"""The matching heuristic ends on every instance, within the bound it derives.

Stars and complete bipartite graphs are where a weighting by packet counts alone stalls
under half-duplex (the centre keeps sending, the leaves' packets wait); the heuristic must
finish there, at the optimum on stars (``2(n-1)`` half-duplex, ``2n-3`` telephone).
"""

from __future__ import annotations

import math

import networkx as nx
import pytest

from gossipcert.errors import HeuristicError, SpecError
from gossipcert.heuristics.matching import MatchingParams, matching_heuristic, round_bound
from gossipcert.instance import Instance, make_instance, parse_instance, parse_model, parse_problem
from gossipcert.simulate import simulate

MODELS = ["telephone", "half-duplex"]


def heuristic_rounds(instance: Instance) -> int:
    sched = matching_heuristic(instance)
    rep = simulate(instance, sched)
    assert rep.ok, rep.errors[:2] or rep.unmet[:2]
    assert rep.rounds == len(sched) <= round_bound(instance)
    return len(sched)


def bipartite(a: int, b: int, model: str, problem: str = "gossip") -> Instance:
    return make_instance(
        nx.complete_bipartite_graph(a, b), parse_model(model), parse_problem(problem)
    )


@pytest.mark.parametrize("n", [3, 4, 5, 8, 13, 24])
def test_stars_at_the_optimum(n: int) -> None:
    assert heuristic_rounds(parse_instance(f"star:{n}", "half-duplex", "gossip")) == 2 * (n - 1)
    assert heuristic_rounds(parse_instance(f"star:{n}", "telephone", "gossip")) == 2 * n - 3


@pytest.mark.parametrize(("a", "b"), [(1, 1), (2, 3), (2, 7), (3, 3), (4, 9), (5, 5)])
def test_complete_bipartite_graphs(a: int, b: int) -> None:
    for model in MODELS:
        for problem in ("gossip", "broadcast:0", f"broadcast:{a + b - 1}"):
            heuristic_rounds(bipartite(a, b, model, problem))


@pytest.mark.slow
@pytest.mark.parametrize("model", MODELS)
def test_stars_and_bipartite_graphs_up_to_64_nodes(model: str) -> None:
    for n in range(2, 65):
        for problem in ("gossip", "broadcast:0", f"broadcast:{n - 1}"):
            rounds = heuristic_rounds(parse_instance(f"star:{n}", model, problem))
            if problem == "gossip" and n > 2:
                assert rounds == (2 * (n - 1) if model == "half-duplex" else 2 * n - 3)
    for a in (1, 2, 3, 5, 8, 13, 21, 32):
        for b in sorted({*range(a, 65 - a, 6), 64 - a}):
            for problem in ("gossip", "broadcast:0"):
                heuristic_rounds(bipartite(a, b, model, problem))


def test_giving_up_says_so() -> None:
    inst = parse_instance("star:8", "half-duplex", "gossip")
    with pytest.raises(HeuristicError, match=r"gave up after 5 rounds with \d+ demands unmet"):
        matching_heuristic(inst, max_rounds=5)
    # the derived bound: every node lacks the packets of the other 7 nodes
    assert round_bound(inst) == 8 * 7


def test_other_models_get_verified_schedules() -> None:
    # star:5 gossip: 4 leaves, each packet crosses the centre; a cap of 1 or one call per
    # round needs more rounds than the unbounded telephone schedule
    plain = len(matching_heuristic(parse_instance("star:5", "telephone", "gossip")))
    for model in ("telephone:p=1", "half-duplex:calls=2", "single-port", "all-port"):
        inst = parse_instance("star:5", model, "gossip")
        sched = matching_heuristic(inst)
        assert simulate(inst, sched).ok
        assert len(sched) >= plain


def test_cli_heuristic_on_the_star_of_the_report() -> None:
    from typer.testing import CliRunner

    from gossipcert.cli import app

    out = CliRunner().invoke(app, ["heuristic", "star:8", "--model", "half-duplex"])
    assert out.exit_code == 0, out.output
    assert "all demands met after round 14" in out.output


@pytest.mark.parametrize(
    "params",
    [
        MatchingParams(dist_exp=math.nan),
        MatchingParams(dist_exp=math.inf),
        MatchingParams(dist_exp=1e308),
        MatchingParams(dist_exp_decay=math.nan),
        MatchingParams(num_exp=math.nan),
        MatchingParams(num_exp=1e308),
    ],
)
def test_exponents_beyond_float32_are_refused(params: MatchingParams) -> None:
    # NaN or an exponent past float32 made every weight NaN or inf: a schedule with exit 0,
    # or "found nothing to send in round 1"
    with pytest.raises(SpecError, match="must be a finite number"):
        matching_heuristic(parse_instance("ring:6", "telephone", "gossip"), params=params)
