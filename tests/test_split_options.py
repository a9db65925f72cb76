"""The split search honours the search's encoding options (``--counting``, ``--encoding``)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from gossipcert.certificates.certificate import build_certificate, check_certificate
from gossipcert.encodings import EncodingOptions
from gossipcert.instance import parse_instance
from gossipcert.search.cubes import base_options
from gossipcert.search.split import SplitSearch, SplitSettings
from gossipcert.search.split_refutation import refute_by_cubes


def _run(inst, options: EncodingOptions, **settings):
    args = (inst, "sat", None, options, True, True, None, None)
    return SplitSearch(*args, split=SplitSettings(**settings)).run()


@pytest.mark.usefixtures("dratify")  # its cubes are DRAT proofs
def test_cubes_carry_the_counting_constraints_and_check() -> None:
    inst = parse_instance("ring:5", "half-duplex", "gossip")
    options = EncodingOptions.for_search(counting=True)
    res = _run(inst, options, one_piece=0.0)
    assert (res.status, res.optimum, res.evidence["kind"]) == ("optimal", 6, "drat-cubes")
    assert res.evidence["encoding"]["counting"] is True
    assert res.evidence["encoding"]["symmetry"] is False  # never in a split formula
    report = check_certificate(build_certificate(res), time_limit=120)
    assert report.ok, report
    plain = refute_by_cubes(inst, 5)
    assert plain.evidence["cnf_sha256"] != res.evidence["cnf_sha256"]
    assert plain.evidence["encoding"]["counting"] is False


def test_one_piece_search_uses_the_given_options() -> None:
    inst = parse_instance("ring:5", "half-duplex", "gossip")
    res = _run(inst, EncodingOptions.for_search(counting=True))
    assert res.optimum == 6 and res.evidence["kind"] == "drat"
    assert res.evidence["encoding"]["counting"] is True


@pytest.mark.usefixtures("dratify")  # its cubes are DRAT proofs
def test_strict_split_drops_the_rules_a_proof_does_not_cover() -> None:
    inst = parse_instance("ring:5", "half-duplex", "gossip")
    res = _run(inst, EncodingOptions.for_search(counting=True), strict=True, one_piece=0.0)
    enc = res.evidence["encoding"]
    assert enc["counting"] is True
    assert not any(enc[k] for k in ("symmetry", "dominance", "useless", "canonical"))


def test_base_options_keep_the_search_options() -> None:
    opts = replace(EncodingOptions.for_search(counting=True), broadcast=False)
    got = base_options(False, opts)
    assert got.counting and not got.broadcast and not got.symmetry and not got.canonical
    assert base_options(True) == base_options(True, EncodingOptions.for_search(strict=True))
