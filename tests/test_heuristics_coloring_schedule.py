"""The schedule of the coloring search's pruning settings: interleaved slices, the floor."""

from __future__ import annotations

import pytest

from gossipcert.heuristics.coloring import PRUNING, coloring_heuristic
from gossipcert.heuristics.coloring_classes import _default_matchings
from gossipcert.heuristics.coloring_orbit_search import _SymmetricSearch
from gossipcert.heuristics.coloring_schedule import BASE_NODES, CAP_NODES, setting_slices
from gossipcert.heuristics.coloring_symmetry import matching_symmetry
from gossipcert.instance import parse_instance
from gossipcert.simulate import simulate


def test_slices_double_up_to_the_cap_and_skip_the_settings_done() -> None:
    done: set[int] = set()
    it = setting_slices(3, 0, done, base=4, cap=16)
    assert [next(it) for _ in range(6)] == [(0, 4), (1, 4), (2, 4), (0, 8), (1, 8), (2, 8)]
    done.add(1)  # setting 1's search ended: no more slices for it
    assert [next(it) for _ in range(6)] == [(0, 16), (2, 16), (0, 16), (2, 16), (0, 16), (2, 16)]
    done.update({0, 2})
    assert list(it) == []


def test_settings_below_the_floor_get_only_the_first_probe() -> None:
    it = setting_slices(4, 2, set(), base=5, cap=100)
    first = [next(it) for _ in range(4)]
    assert first == [(0, 5), (1, 5), (2, 5), (3, 5)]
    assert [next(it) for _ in range(4)] == [(2, 10), (3, 10), (2, 20), (3, 20)]
    # the floor's own setting and those after it done: the horizon is over after the probes
    assert list(setting_slices(4, 2, {2, 3}, base=5)) == [(0, 5), (1, 5)]
    with pytest.raises(ValueError, match="floor"):
        next(setting_slices(2, 2, set()))


def test_a_permissive_setting_is_not_held_back_by_strict_ones() -> None:
    # Star 6 at the paper's 13 rounds: the three windowed settings search over 24,000 nodes
    # each in vain (checked below on setting 0 with a node cap), setting 3 finds a sequence
    # in 318 (720 without the reach bound). Taking turns, the strict ones visit about as
    # many nodes as the winner.
    inst = parse_instance("star-graph:6", "telephone", "gossip")
    ms = _default_matchings(inst)
    sym = matching_symmetry(inst, ms)
    no_repeat, window, f = PRUNING[0]
    strict = _SymmetricSearch(inst, ms, 13, f, no_repeat, window, float("inf"), symmetry=sym)
    assert strict.advance(5_000) is None  # still searching after 5,000 nodes
    res = coloring_heuristic(inst, min_rounds=13, max_rounds=13, time_limit=120)
    assert res.sequence == "0123402413203"
    assert simulate(inst, res.schedule).ok
    at13 = {k: (nodes, outcome) for rounds, k, nodes, outcome in res.trace if rounds == 13}
    assert at13[3] == (318, "found")
    for k in (0, 1, 2):  # one slice at most ahead of the winner's 318 nodes
        assert at13[k][0] <= 318 + 2 * CAP_NODES // 16 and at13[k][1] == "stopped"
    assert sum(nodes for nodes, _ in at13.values()) < 5_000


def test_settings_stricter_than_the_last_winner_are_only_probed() -> None:
    # CCC 7: 19 rounds are found by setting 2; at 18 rounds settings 0 and 1 then get one
    # probe of BASE_NODES, settings 2..4 take turns until each has exhausted its tree.
    inst = parse_instance("ccc:7", "telephone", "gossip")
    res = coloring_heuristic(inst, min_rounds=18, time_limit=120)
    assert len(res.sequence) == 19 and simulate(inst, res.schedule).ok
    winner = {rounds: k for rounds, k, _, outcome in res.trace if outcome == "found"}
    assert winner[19] == 2
    at18 = {k: (nodes, outcome) for rounds, k, nodes, outcome in res.trace if rounds == 18}
    assert at18[0] == (BASE_NODES, "stopped") and at18[1] == (BASE_NODES, "stopped")
    assert all(at18[k][1] == "exhausted" for k in (2, 3, 4))
    # without the floor they would search on: neither ends within the probe
    ms = _default_matchings(inst)
    sym = matching_symmetry(inst, ms)
    for no_repeat, window, f in PRUNING[:2]:
        alone = _SymmetricSearch(inst, ms, 18, f, no_repeat, window, float("inf"), symmetry=sym)
        assert alone.advance(BASE_NODES) is None


def test_a_paused_search_resumes_to_the_same_sequence() -> None:
    inst = parse_instance("ccc:5", "telephone", "gossip")
    ms = _default_matchings(inst)
    sym = matching_symmetry(inst, ms)
    whole = _SymmetricSearch(inst, ms, 13, 0.35, 1, False, float("inf"), symmetry=sym)
    assert whole.run() == "0120210210202"
    sliced = _SymmetricSearch(inst, ms, 13, 0.35, 1, False, float("inf"), symmetry=sym)
    steps = 0
    while (found := sliced.advance(7)) is None:
        steps += 1
    assert found and sliced.sequence == "0120210210202" and sliced.nodes == whole.nodes
    assert steps >= whole.nodes // 7 - 1
