"""The walk-counting broadcast bound against the plain search of ``test_broadcast_encoding``
(every connected graph, one and two sources) and the rank count it sharpens."""

from __future__ import annotations

import json

import pytest
from test_broadcast_encoding import cases, reference_case
from typer.testing import CliRunner

from gossipcert.cli import app
from gossipcert.closed_forms import all_bounds, best_lower_bound
from gossipcert.closed_forms import broadcast_walks as walks_module
from gossipcert.closed_forms.broadcast_ranks import broadcast_ranks_bound
from gossipcert.closed_forms.broadcast_walks import broadcast_walks_bound, walks_value
from gossipcert.instance import parse_instance


def _check(max_n: int) -> tuple[list[str], int]:
    """Cases where the bound exceeds the optimum or falls below ``broadcast-ranks``, and
    how often it is strictly above ``broadcast-ranks``."""
    bad: list[str] = []
    wins = 0
    for g, src in cases(max_n):
        name, inst, want = reference_case(g, src, "telephone")
        walks = broadcast_walks_bound(inst)
        ranks = broadcast_ranks_bound(inst)
        assert walks is not None and ranks is not None
        if not ranks.value <= walks.value <= want:
            bad.append(f"{name}: optimum {want}, ranks {ranks.value}, walks {walks.value}")
        wins += walks.value > ranks.value
    return bad, wins


def test_sound_with_the_upper_bounds_for_every_ordering(monkeypatch: pytest.MonkeyPatch) -> None:
    # up to 6 nodes every node has at most 4 children: the exact ordering programme runs
    # everywhere, so check the upper bounds used beyond EXACT_FAN by using them everywhere
    monkeypatch.setattr(walks_module, "EXACT_FAN", 0)
    bad, wins = _check(5)
    assert bad == []
    assert wins > 0


def test_sound_with_the_largest_thresholds_only(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(walks_module, "WORK_BUDGET", 0)
    monkeypatch.setattr(walks_module, "LARGE_THRESHOLDS", 1)
    bad, _ = _check(5)
    assert bad == []


def test_sound_on_graphs_of_up_to_six_nodes() -> None:
    bad, wins = _check(6)
    assert bad == []
    # strictly above the rank count in 42 of the 2742 cases (4 up to 5 nodes: the star
    # K_{1,3} from each leaf; the rank count lets a leaf call on)
    assert wins == 42


_TABLE4 = ("butterfly", "ccc", "shuffle-exchange", "debruijn")


@pytest.mark.parametrize("family", _TABLE4)
def test_never_below_the_rank_count_on_table4_graphs(family: str) -> None:
    got = []
    for k in range(3, 9):
        inst = parse_instance(f"{family}:{k}", "telephone", "broadcast:0")
        walks = broadcast_walks_bound(inst)
        ranks = broadcast_ranks_bound(inst)
        assert walks is not None and ranks is not None
        assert walks.value >= ranks.value
        got.append(walks.value - ranks.value)
    # butterfly:7 is the only row of k = 3..8 where the walks count more
    assert got == ([0, 0, 0, 0, 1, 0] if family == "butterfly" else [0] * 6)


def test_upper_bounds_for_every_ordering_are_weaker(monkeypatch: pytest.MonkeyPatch) -> None:
    specs = ("butterfly:7", "debruijn:8", "random:60,150,seed=3", "hypercube:5")

    def values() -> list[int]:
        out = [broadcast_walks_bound(parse_instance(s, "telephone", "broadcast:0")) for s in specs]
        return [b.value for b in out if b is not None]

    assert values() == [12, 10, 6, 5]
    # the exact orderings matter on butterfly:7: the upper bounds alone stop at the rank count
    monkeypatch.setattr(walks_module, "EXACT_FAN", 0)
    assert values() == [11, 10, 6, 5]


def test_values() -> None:
    # butterfly:7 from node 0: 12, the optimum (the rank count gives 11)
    inst = parse_instance("butterfly:7", "telephone", "broadcast:0")
    assert broadcast_walks_bound(inst).value == 12  # type: ignore[union-attr]
    assert best_lower_bound(inst).name == "broadcast-walks"
    # the star K_{1,5} from a leaf: one round to the centre, then one per other leaf
    star = [[5], [5], [5], [5], [5], [0, 1, 2, 3, 4]]
    assert walks_value(star, [0], [True] * 6) == 5
    # from two leaves the optimum is 4 (the centre first, then three leaves one by one);
    # the bound gives 3: each holder's tree may claim the centre
    assert walks_value(star, [0, 1], [True] * 6) == 3
    # only two far leaves demanding: three rounds
    assert walks_value(star, [0], [True, False, False, True, True, True]) == 3
    names = [b.name for b in all_bounds(parse_instance("ring:6", "half-duplex", "broadcast:0"))]
    assert "broadcast-walks" in names
    assert broadcast_walks_bound(parse_instance("ring:6", "multicast", "broadcast:0")) is None
    assert broadcast_walks_bound(parse_instance("ring:6", "telephone", "gossip")) is None


def test_debruijn_14() -> None:
    # [18, 20] on the results page before this bound
    inst = parse_instance("debruijn:14", "telephone", "broadcast:0")
    assert broadcast_ranks_bound(inst).value == 18  # type: ignore[union-attr]
    assert broadcast_walks_bound(inst).value == 19  # type: ignore[union-attr]


def test_bounds_command_lists_it_as_the_best() -> None:
    res = CliRunner().invoke(app, ["bounds", "butterfly:7", "-p", "broadcast:0", "--json"])
    assert res.exit_code == 0
    data = json.loads(res.stdout)
    walks = [b for b in data["bounds"] if b["name"] == "broadcast-walks"]
    assert len(walks) == 1 and walks[0]["value"] == 12 and walks[0]["best"]
    assert data["lower_bound"] == 12


def test_sound_with_three_sources_and_partial_demands() -> None:
    # random connected graphs of 5-7 nodes, 1-3 holders and random demanding subsets: the
    # bound never exceeds the breadth-first reference, and with several holders sharing the
    # far nodes it still holds (each tree's claim is only an upper bound)
    import random

    import networkx as nx
    from test_broadcast_encoding import reference_time

    rng = random.Random(7)
    checked = tight = 0
    while checked < 150:
        n = rng.randint(5, 7)
        g = nx.gnm_random_graph(n, rng.randint(n - 1, 2 * n), seed=rng.randrange(10**6))
        if not nx.is_connected(g):
            continue
        edges = tuple(sorted((min(e), max(e)) for e in g.edges))
        sources = tuple(sorted(rng.sample(range(n), rng.randint(1, 3))))
        targets = frozenset(v for v in range(n) if v not in sources and rng.random() < 0.6)
        if not targets:
            continue
        nbrs = [sorted(g.adj[v]) for v in range(n)]
        demand = [v in targets for v in range(n)]
        want = reference_time(n, edges, sources, False, targets)
        value = walks_value(nbrs, list(sources), demand)
        assert value <= want, (edges, sources, targets)
        checked += 1
        tight += value == want
    assert tight >= 100  # on these small graphs the bound is mostly the optimum itself


@pytest.mark.parametrize("size", range(1, 6))
def test_small_assignments_agree_with_the_assignment_solver(
    size: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    # up to SMALL_ASSIGNMENT rows every permutation is tried; OR-Tools' solver beyond
    import random

    rng = random.Random(size)
    for _ in range(20):
        weights = [[rng.randint(0, 9) for _ in range(size)] for _ in range(size)]
        by_permutations = walks_module._assignment(weights)
        monkeypatch.setattr(walks_module, "SMALL_ASSIGNMENT", 0)
        assert walks_module._assignment(weights) == by_permutations
        monkeypatch.undo()
