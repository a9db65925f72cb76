"""The palindromic schedule search against a brute force over every palindrome."""

from __future__ import annotations

import itertools
import subprocess
import sys
from pathlib import Path

import networkx as nx
import pytest
from pysat.formula import CNF
from pysat.solvers import Solver

from gossipcert.errors import NotApplicableError, SpecError
from gossipcert.finders.invariant import symmetric_search
from gossipcert.instance import Instance, parse_instance
from gossipcert.research.palindrome import palindrome_maps, palindrome_search
from gossipcert.schedule import Schedule, read_schedule
from gossipcert.simulate import simulate
from gossipcert.solvers.backends import Status
from gossipcert.symmetry.groups import left_map, right_map


def _matchings(inst: Instance) -> list[tuple[tuple[int, int], ...]]:
    """Every matching of the graph, the empty one included."""
    edges = sorted((min(u, v), max(u, v)) for u, v in inst.graph.edges)
    out: list[tuple[tuple[int, int], ...]] = []
    for size in range(len(edges) + 1):
        for pick in itertools.combinations(edges, size):
            ends = [x for e in pick for x in e]
            if len(set(ends)) == len(ends):
                out.append(pick)
    return out


def _automorphisms(inst: Instance) -> list[list[int]]:
    g = inst.graph
    matcher = nx.algorithms.isomorphism.GraphMatcher(g, g)
    return [[iso[v] for v in range(inst.n)] for iso in matcher.isomorphisms_iter()]


def _palindrome_exists(inst: Instance, phi: list[int], rounds: int) -> bool:
    """Whether some palindrome up to ``phi`` of ``rounds`` rounds gossips: every choice of
    the free rounds, mirrored and replayed by the verifier (no meeting argument)."""
    half = rounds // 2
    free = rounds - half
    for first in itertools.product(_matchings(inst), repeat=free):
        mirror = [[(phi[u], phi[v]) for u, v in first[t]] for t in range(half - 1, -1, -1)]
        if simulate(inst, Schedule.from_calls([*first, *mirror])).ok:
            return True
    return False


def _is_palindrome(sched: Schedule, phi: list[int], rounds: int) -> bool:
    """Round ``rounds + 1 - t`` is ``phi`` (round ``t``), for ``t = 1 .. rounds // 2``."""
    calls = [{frozenset((t.sender, *t.receivers)) for t in rnd} for rnd in sched.rounds]
    calls += [set()] * (rounds - len(calls))
    return all(
        calls[rounds - 1 - t] == {frozenset(phi[x] for x in c) for c in calls[t]}
        for t in range(rounds // 2)
    )


GRAPHS = ["path:4", "path:5", "ring:5", "ring:6", "star:4", "complete:4", "mesh:2x3"]


@pytest.mark.parametrize("graph", GRAPHS)
def test_agrees_with_brute_force_for_every_automorphism(graph: str) -> None:
    inst = parse_instance(graph, "telephone", "gossip")
    for phi in _automorphisms(inst):
        for rounds in range(1, 5):
            want = _palindrome_exists(inst, phi, rounds)
            got = palindrome_search(inst, phi, rounds)
            assert got.status is (Status.SAT if want else Status.UNSAT), (phi, rounds)
            if want:
                assert got.schedule is not None
                report = simulate(inst, got.schedule)
                assert report.ok and len(got.schedule.rounds) == rounds


def test_agrees_with_brute_force_with_two_free_rounds_and_a_middle_one() -> None:
    # R = 5: h = 2 mirrored rounds around a free middle round
    inst = parse_instance("ring:6", "telephone", "gossip")
    for phi in _automorphisms(inst):
        want = _palindrome_exists(inst, phi, 5)
        got = palindrome_search(inst, phi, 5)
        assert got.status is (Status.SAT if want else Status.UNSAT), phi


def test_schedule_is_a_palindrome_up_to_phi() -> None:
    inst = parse_instance("hypercube:4", "telephone", "gossip")
    phi = [int(format(v, "04b")[::-1], 2) for v in range(16)]
    res = palindrome_search(inst, phi, 5)
    assert res.status is Status.SAT and res.schedule is not None
    assert _is_palindrome(res.schedule, phi, 5)


@pytest.mark.parametrize("rounds", [4, 5])
def test_both_finders_mirror_by_phi_not_its_inverse(rounds: int) -> None:
    # a rotation of the ring is not its own inverse; palindromes up to phi and up to phi^-1
    # both exist, so the verdicts alone cannot tell which one a finder built
    inst = parse_instance("ring:6", "telephone", "gossip")
    rot = [(v + 1) % 6 for v in range(6)]
    for res in (
        palindrome_search(inst, rot, rounds),
        symmetric_search(inst, [], rounds, mirror=rot),
    ):
        assert res.status is Status.SAT and res.schedule is not None
        assert _is_palindrome(res.schedule, rot, rounds)


def test_unknown_at_the_time_limit_and_a_horizon_below_one() -> None:
    inst = parse_instance("ring:6", "telephone", "gossip")
    rot = [(v + 1) % 6 for v in range(6)]
    res = palindrome_search(inst, rot, 4, time_limit=0)
    assert res.status is Status.UNKNOWN and res.schedule is None
    with pytest.raises(SpecError, match="at least 1"):
        palindrome_search(inst, rot, 0)


def test_identity_at_an_even_horizon_wastes_a_round() -> None:
    # round h + 1 repeats round h: the hypercube's 4 rounds are out of reach, 5 are not
    inst = parse_instance("hypercube:4", "telephone", "gossip")
    ident = list(range(16))
    assert palindrome_search(inst, ident, 4).status is Status.UNSAT
    assert palindrome_search(inst, ident, 5).status is Status.SAT


def test_refuses_a_non_automorphism() -> None:
    inst = parse_instance("path:4", "telephone", "gossip")
    with pytest.raises(SpecError, match="not an automorphism"):
        palindrome_search(inst, [1, 0, 2, 3], 3)


def test_refuses_other_problems() -> None:
    inst = parse_instance("path:4", "telephone", "broadcast:0")
    with pytest.raises(NotApplicableError):
        palindrome_search(inst, [3, 2, 1, 0], 3)


@pytest.mark.parametrize("graph", ["path:4", "ring:6", "complete:4", "mesh:2x3"])
def test_symmetric_search_with_a_mirror_agrees(graph: str) -> None:
    # the same family by equivalences in the full formula (the trivial group)
    inst = parse_instance(graph, "telephone", "gossip")
    for phi in _automorphisms(inst)[:6]:
        for rounds in range(2, 5):
            a = palindrome_search(inst, phi, rounds).status
            b = symmetric_search(inst, [], rounds, mirror=phi).status
            assert a is b, (phi, rounds)


def test_mirror_with_a_group() -> None:
    # left maps and right maps of the star graph commute, so a right map is a mirror for
    # any group of left maps
    inst = parse_instance("star-graph:4", "telephone", "gossip")
    group = [left_map(inst.graph, (1, 0, 3, 2))]
    found = symmetric_search(inst, group, 6, mirror=right_map(inst.graph, (0, 2, 1, 3)))
    assert found.status is Status.SAT and found.schedule is not None
    assert simulate(inst, found.schedule).ok
    with pytest.raises(SpecError, match="orbits"):
        symmetric_search(inst, group, 6, mirror=left_map(inst.graph, (1, 2, 0, 3)))


def _invariant_exists(inst: Instance, g: list[int], phi: list[int], rounds: int) -> bool:
    """Whether some palindrome up to ``phi`` whose every round ``g`` maps onto itself
    gossips (every choice of the free rounds among the ``g``-invariant matchings)."""
    inv = [
        m
        for m in _matchings(inst)
        if {frozenset(e) for e in m} == {frozenset((g[u], g[v])) for u, v in m}
    ]
    half = rounds // 2
    for first in itertools.product(inv, repeat=rounds - half):
        mirror = [[(phi[u], phi[v]) for u, v in first[t]] for t in range(half - 1, -1, -1)]
        if simulate(inst, Schedule.from_calls([*first, *mirror])).ok:
            return True
    return False


@pytest.mark.parametrize("graph", ["ring:6", "hypercube:3"])
def test_a_group_and_a_mirror_agree_with_brute_force(graph: str) -> None:
    inst = parse_instance(graph, "telephone", "gossip")
    autos = _automorphisms(inst)
    asked = refused = 0
    for g in autos[:: max(1, len(autos) // 8)]:
        for phi in autos[:: max(1, len(autos) // 8)]:
            for rounds in (3, 4):
                try:
                    got = symmetric_search(inst, [g], rounds, mirror=phi)
                except SpecError:
                    refused += 1
                    continue
                asked += 1
                want = _invariant_exists(inst, g, phi, rounds)
                assert got.status is (Status.SAT if want else Status.UNSAT), (g, phi, rounds)
                if want:
                    assert got.schedule is not None
                    assert _is_palindrome(got.schedule, phi, rounds)
    assert asked and refused


def _bench(script: str, *args: str) -> str:
    """A benchmark's standard output (it must exit 0)."""
    path = Path(__file__).resolve().parents[1] / "benchmarks" / script
    cmd = [sys.executable, str(path), *args]
    return subprocess.run(cmd, capture_output=True, text=True, check=True).stdout


def test_benchmarks_print_a_row_per_map(tmp_path: Path) -> None:
    args = "palindrome_search.py star-graph:4 6 --limit 20 --stop-at-first --store".split()
    out = _bench(*args, str(tmp_path))
    assert "| `g0` | 4 |" in out and "| sat |" in out
    (stored,) = tmp_path.iterdir()
    inst = parse_instance("star-graph:4", "telephone", "gossip")
    assert simulate(inst, read_schedule(stored, inst)).ok
    out = _bench("symmetric_search.py", "hypercube:3", "3", "--limit", "20", "--mirror", "g0")
    assert "palindromes up to the map g0" in out
    verdict = {
        row.split("|")[1].strip(" `"): row.split("|")[6].strip()
        for row in out.splitlines()
        if row.startswith("| `")
    }
    # g2 commutes with the mirror g0; g1 does not (its orbits are not mapped onto orbits)
    assert verdict["g2"] == "sat" and verdict["g0"] == "unsat"
    assert verdict["g1"].startswith("skipped")


def test_benchmark_writes_the_formulas_it_would_solve(tmp_path: Path) -> None:
    args = ("palindrome_search.py", "hypercube:3", "3", "--cnf", str(tmp_path))
    out = _bench(*args)
    inst = parse_instance("hypercube:3", "telephone", "gossip")
    maps = palindrome_maps(inst, 3)
    files = sorted(tmp_path.iterdir())
    assert len(files) == len(maps) and out.count("written: ") == len(maps)
    answers = set()
    for name, phi in maps.items():
        cnf = CNF(from_file=str(tmp_path / f"hypercube-3-3-pal-{name.replace('*', '-')}.cnf"))
        with Solver(name="cadical195", bootstrap_with=cnf.clauses) as sat:
            answer = sat.solve()
        want = palindrome_search(inst, phi, 3).status
        assert want is (Status.SAT if answer else Status.UNSAT), name
        answers.add(answer)
    assert answers == {True, False}
    again = _bench(*args)
    assert again.count("kept: ") == len(maps)  # nothing overwritten
