"""The half-duplex last-round count (at most floor(n/2) nodes miss a demand after round
R - 1): the solver with it agrees with the brute force of ``test_bounds``, which shares no
code with the package."""

from __future__ import annotations

import pytest
from test_bounds import (
    ATLAS5,
    gossip_optimum,
    half_duplex_step,
    instance_optimum,
    make,
)

from gossipcert.encodings import EncodingOptions, encoding_for
from gossipcert.instance import parse_instance
from gossipcert.search.entry import solve

COUNTING = EncodingOptions.for_search(counting=True)


def test_search_options_with_counting_turn_it_on() -> None:
    assert COUNTING.last_round and not EncodingOptions.for_search().last_round
    tel = encoding_for(parse_instance("ring:6", "telephone", "gossip"), COUNTING)
    assert not tel.options.last_round  # telephone: every node of a call receives


def test_the_count_is_in_the_formula() -> None:
    inst = parse_instance("complete:6", "half-duplex", "gossip")
    enc = encoding_for(inst, COUNTING)
    enc.selector(3)
    keys = set(enc.formula.vpool.obj2id)
    assert ("UD", 0, 3) in keys and ("U", 0, 2) in keys
    under = [enc.formula.var(("UD", v, 3)) for v in range(6)]
    assert ("le", tuple(under), 3) in enc.formula.items  # at most 3 of 6 miss a demand
    plain = encoding_for(inst, EncodingOptions.for_search())
    plain.selector(3)
    assert ("UD", 0, 3) not in set(plain.formula.vpool.obj2id)


@pytest.mark.parametrize("index", range(len(ATLAS5)))
def test_solver_with_the_count_matches_brute_force(index: int) -> None:
    g = ATLAS5[index]
    inst = make(g, "half-duplex", "gossip")
    expected = gossip_optimum(g, half_duplex_step(g, None))
    got = solve(inst, options=COUNTING, use_bounds=False, proof=False)
    assert got.optimum == expected


@pytest.mark.parametrize(
    ("spec", "problem"),
    [("path:4", "gather:0"), ("star:5", "scatter:0"), ("complete:5", "gather:2")],
)
def test_other_problems_match_brute_force(spec: str, problem: str) -> None:
    inst = parse_instance(spec, "half-duplex", problem)
    expected = instance_optimum(inst, half_duplex_step(inst.graph, None))
    got = solve(inst, options=COUNTING, use_bounds=False, proof=False)
    assert got.optimum == expected


def test_drat_proof_with_the_count_checks() -> None:
    inst = parse_instance("complete:5", "half-duplex", "gossip")
    res = solve(inst, options=COUNTING, use_bounds=False)
    assert res.optimum == 5
    assert res.evidence["kind"] == "drat" and res.evidence["encoding"]["last_round"] is True
