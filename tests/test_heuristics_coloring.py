"""The coloring heuristic: Table 6 of Beier and Sibeyn, verification, and never below optima."""

from __future__ import annotations

import networkx as nx
import pytest

from gossipcert import graphs
from gossipcert.constructions.beier_sibeyn_matchings import matching_sequence
from gossipcert.errors import NotApplicableError, UnsupportedModelError
from gossipcert.heuristics import coloring_search
from gossipcert.heuristics.coloring import PRUNING, coloring_heuristic
from gossipcert.heuristics.coloring_classes import _default_matchings, greedy_coloring_matchings
from gossipcert.heuristics.coloring_orbit_search import _SymmetricSearch
from gossipcert.heuristics.coloring_search import _Search
from gossipcert.heuristics.coloring_symmetry import matching_symmetry
from gossipcert.instance import Instance, make_instance, parse_instance, parse_model, parse_problem
from gossipcert.search.entry import solve
from gossipcert.simulate import simulate

# Table 6 (rounds of the paper's sequences) for the cases the search settles in a second
TABLE6 = [
    ("ccc:3", 7),
    ("ccc:4", 9),
    ("butterfly:3", 6),
    ("butterfly:4", 7),
    pytest.param("butterfly:5", 11, marks=pytest.mark.slow),
    ("star-graph:3", 3),
    ("star-graph:4", 6),
    ("star-graph:5", 9),
    ("pancake:3", 3),
    ("pancake:4", 5),
    ("pancake:5", 8),
]


@pytest.mark.parametrize(("graph", "rounds"), TABLE6)
def test_table6_rounds_are_reached(graph: str, rounds: int) -> None:
    inst = parse_instance(graph, "telephone", "gossip")
    res = coloring_heuristic(inst, time_limit=30)
    assert len(res.sequence) <= rounds
    rep = simulate(inst, res.schedule)
    assert rep.ok and rep.rounds == len(res.sequence)
    # the sequence alone reproduces the schedule (construct --algorithm matching-sequence)
    again = simulate(inst, matching_sequence(inst, res.sequence))
    assert again.ok and again.rounds == len(res.sequence)


def test_the_search_is_deterministic() -> None:
    inst = parse_instance("butterfly:4", "telephone", "gossip")
    assert coloring_heuristic(inst).sequence == coloring_heuristic(inst).sequence


@pytest.mark.parametrize("spec", ["petersen", "ring:7", "mesh:3x4", "hypercube:3", "knodel:8"])
def test_greedy_colouring_gives_maximal_matchings_covering_every_edge(spec: str) -> None:
    g = graphs.from_spec(spec)
    ms = greedy_coloring_matchings(g)
    covered = set()
    for m in ms:
        ends = [x for e in m for x in e]
        assert len(ends) == len(set(ends))  # a matching
        assert all(g.has_edge(u, v) for u, v in m)
        free = set(g) - set(ends)
        assert not any(g.has_edge(u, v) for u in free for v in free)  # maximal
        covered |= {frozenset(e) for e in m}
    assert covered == {frozenset(e) for e in g.edges}


# every seventh connected graph of the atlas with 3 to 6 nodes
CONNECTED = [i for i in range(4, 209) if nx.is_connected(nx.graph_atlas(i))][::7]


@pytest.mark.parametrize("index", CONNECTED)
def test_never_below_the_certified_optimum(index: int) -> None:
    g = nx.convert_node_labels_to_integers(nx.graph_atlas(index))
    for v in g:
        g.nodes[v]["label"] = str(v)
    g.graph["spec"] = f"atlas-{index}"
    inst = make_instance(g, parse_model("telephone"), parse_problem("gossip"))
    res = coloring_heuristic(inst, time_limit=5)
    assert simulate(inst, res.schedule).ok
    assert len(res.sequence) >= solve(inst, proof=False).optimum


def test_only_unbounded_telephone() -> None:
    with pytest.raises(UnsupportedModelError):
        coloring_heuristic(parse_instance("ring:6", "half-duplex", "gossip"))
    with pytest.raises(UnsupportedModelError):
        coloring_heuristic(parse_instance("ring:6", "telephone:p=1", "gossip"))


def test_a_filtered_search_without_the_window_rule_finds_what_the_windows_prune() -> None:
    # CCC 5 (paper: 13 rounds): every windowed setting exhausts its search at 13 rounds
    # without a sequence; the filtered setting without the window rule finds one
    inst = parse_instance("ccc:5", "telephone", "gossip")
    for setting in (s for s in PRUNING if s[1]):
        with pytest.raises(NotApplicableError):
            coloring_heuristic(inst, pruning=(setting,), min_rounds=13, max_rounds=13)
    filtered = tuple(s for s in PRUNING if not s[1] and s[2] > 0)
    assert filtered
    res = coloring_heuristic(inst, pruning=filtered, min_rounds=13, max_rounds=13)
    assert len(res.sequence) == 13 and simulate(inst, res.schedule).ok


@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize("spec", ["ccc:4", "butterfly:3", "pancake:4", "mesh:3x4"])
def test_packed_knowledge_matches_plain_bitsets(spec: str, sparse: bool) -> None:
    # the search's gain, step and undo (both records) against Python-integer bitsets
    inst = parse_instance(spec, "telephone", "gossip")
    ms = [sorted(m) for m in _default_matchings(inst)]
    search = _Search(inst, ms, 6, 0.0, 1, False, float("inf"))
    search.sparse_undo = sparse
    plain = list(inst.holdings)
    states, records = [], []
    for r in range(6):
        i = r % len(ms)
        gain = 0
        nxt = list(plain)
        for u, v in ms[i]:
            both = plain[u] | plain[v]
            gain += (both & ~plain[u]).bit_count() + (both & ~plain[v]).bit_count()
            nxt[u] = nxt[v] = both
        assert search._gain(i) == gain
        states.append(plain)
        records.append(search._apply(i))
        plain = nxt
        assert [int.from_bytes(row.tobytes(), "little") for row in search.know] == plain
        assert search.count.tolist() == [x.bit_count() for x in plain]
    for state, record in zip(reversed(states), reversed(records), strict=True):
        search._undo(record)  # back, round by round, to each earlier state
        assert [int.from_bytes(row.tobytes(), "little") for row in search.know] == state
        assert search.count.tolist() == [x.bit_count() for x in state]


def _shortest_over_matchings(inst: Instance, ms: list[list[tuple[int, int]]], most: int) -> int:
    # breadth first over the distinct knowledge states (Python-integer bitsets)
    states = {tuple(inst.holdings)}
    for rounds in range(1, most + 1):
        nxt = set()
        for state in states:
            for m in ms:
                new = list(state)
                for u, v in m:
                    new[u] = new[v] = state[u] | state[v]
                if all(d & ~k == 0 for d, k in zip(inst.demands, new, strict=True)):
                    return rounds
                nxt.add(tuple(new))
        states = nxt
    raise AssertionError("no sequence")


@pytest.mark.parametrize(
    ("spec", "problem", "shortest"),
    [
        ("ccc:4", "broadcast:0", 9),  # the doubling rule gave 11
        ("butterfly:3", "broadcast:0", 5),  # 6
        ("mesh:3x4", "broadcast:0", 5),  # 6
        ("ring:8", "broadcast:0", 4),  # no sequence at all
        ("petersen", "gossip", 5),
    ],
)
def test_broadcast_reaches_the_shortest_sequence_of_the_matchings(
    spec: str, problem: str, shortest: int
) -> None:
    # the cuts are bounds, so the unfiltered setting is exhaustive: it finds the shortest
    # sequence of the matchings (a node's knowledge does not merely double: an uninformed
    # node learns the broadcast packet in one round, which the former cut ruled out)
    inst = parse_instance(spec, "telephone", problem)
    res = coloring_heuristic(inst, time_limit=30)
    assert simulate(inst, res.schedule).ok
    assert len(res.sequence) == shortest
    assert _shortest_over_matchings(inst, res.matchings, shortest) == shortest


@pytest.mark.parametrize(
    ("spec", "problem"),
    [
        ("ccc:3", "gossip"),
        ("pancake:4", "gossip"),
        ("butterfly:4", "gossip"),
        ("ccc:4", "broadcast:0"),
    ],
)
def test_the_bounds_never_cut_a_branch_that_gossips(spec: str, problem: str) -> None:
    # every sequence of the shortest length, in full: no state from which some completion
    # meets every demand is declared hopeless
    inst = parse_instance(spec, "telephone", problem)
    ms = [sorted(m) for m in _default_matchings(inst)]
    rounds = _shortest_over_matchings(inst, ms, 9)
    search = _Search(inst, ms, rounds, 0.0, 1, False, float("inf"))
    cut = []

    def completes(left: int) -> bool:
        if search._done():
            return True
        if left == 0:
            return False
        some = False
        for i in range(len(ms)):
            record = search._apply(i)
            some |= completes(left - 1)
            search._undo(record)
        if search._hopeless(left):
            cut.append(some)
        assert not (some and search._hopeless(left))
        return some

    assert completes(rounds)
    assert cut  # the bounds did cut somewhere (hopeless states exist at this length)


@pytest.mark.parametrize(
    ("spec", "rounds"),
    [("ccc:4", 9), ("ccc:5", 13), ("pancake:5", 8), ("butterfly:4", 7), ("butterfly:5", 11)],
)
def test_the_search_on_orbits_is_the_full_search(spec: str, rounds: int) -> None:
    # same gains, so the same sequence (the orbit search also skips repeated states)
    inst = parse_instance(spec, "telephone", "gossip")
    ms = [sorted(m) for m in _default_matchings(inst)]
    sym = matching_symmetry(inst, ms)
    assert sym is not None and len(sym.reps) * sym.size == inst.n
    for no_repeat, window, f in PRUNING:
        full = _Search(inst, ms, rounds, f, no_repeat, window, float("inf"))
        orbits = _SymmetricSearch(
            inst, ms, rounds, f, no_repeat, window, float("inf"), symmetry=sym
        )
        assert full.run() == orbits.run()
        assert full.nodes >= orbits.nodes


def test_repeated_states_are_searched_once(monkeypatch: pytest.MonkeyPatch) -> None:
    # CCC 6 has no 13-round sequence of its matchings within the unfiltered setting;
    # proving so visits far fewer nodes when failed states are remembered
    inst = parse_instance("ccc:6", "telephone", "gossip")
    ms = [sorted(m) for m in _default_matchings(inst)]
    sym = matching_symmetry(inst, ms)
    assert sym is not None
    nodes = []
    for limit in (coloring_search.MEMO_LIMIT, 0):
        monkeypatch.setattr(coloring_search, "MEMO_LIMIT", limit)
        search = _SymmetricSearch(inst, ms, 13, 0.0, 1, False, float("inf"), symmetry=sym)
        assert search.run() is None and not search.timed_out
        nodes.append(search.nodes)
    assert nodes[0] < nodes[1] * 0.8


@pytest.mark.parametrize(
    "spec", ["ccc:4", "pancake:5", "star-graph:4", "butterfly:4", "butterfly:5"]
)
def test_orbit_rows_give_every_node_s_knowledge(spec: str) -> None:
    # after each round of a fixed sequence, K[h(r)] = h(K[r]) rebuilds the full state
    inst = parse_instance(spec, "telephone", "gossip")
    ms = [sorted(m) for m in _default_matchings(inst)]
    sym = matching_symmetry(inst, ms)
    assert sym is not None
    full = _Search(inst, ms, 8, 0.0, 1, False, float("inf"))
    orbits = _SymmetricSearch(inst, ms, 8, 0.0, 1, False, float("inf"), symmetry=sym)
    for r in range(8):
        i = (r * 5 + r // 2) % len(ms)
        assert full._gain(i) == orbits._gain(i)
        full._apply(i)
        orbits._apply(i)
        rows = [int.from_bytes(row.tobytes(), "little") for row in full.know]
        for v in range(inst.n):
            s = int(sym.orbit[v])
            mine = {q for q in range(inst.n) if rows[v] >> q & 1}
            # the rep's partner under any matching lies in the orbit; check the rep itself
            if v == sym.reps[s]:
                assert sorted(mine) == orbits.packets_known(s)
            assert len(mine) == int(orbits.count[s])


def test_no_symmetry_outside_gossip_and_the_four_families() -> None:
    for spec, problem in [("ccc:4", "broadcast:0"), ("mesh:3x4", "gossip"), ("petersen", "gossip")]:
        inst = parse_instance(spec, "telephone", problem)
        assert matching_symmetry(inst, [sorted(m) for m in _default_matchings(inst)]) is None
