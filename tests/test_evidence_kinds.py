"""The evidence kinds are one registry (``gossipcert.certificates.kinds.KINDS``): every kind
the code writes is in it, its writer exists, ``check`` dispatches through it and refuses a
kind that does not apply to the certificate's problem or model, and the docs' table of kinds
is the registry's."""

from __future__ import annotations

import ast
import copy
import functools
import importlib
import re
from pathlib import Path
from typing import Any

import pytest

import gossipcert
from gossipcert.certificates import kinds
from gossipcert.certificates.certificate import build_certificate, check_certificate
from gossipcert.certificates.checks import Context
from gossipcert.certificates.kinds import KINDS, markdown_table, proves
from gossipcert.instance import parse_instance
from gossipcert.search.entry import solve

PACKAGE = Path(gossipcert.__file__).parent
DOCS = PACKAGE.parent / "docs"
#: ``kind`` values of records that are not evidence: the two covers of a split proof
NOT_EVIDENCE = {"orbits", "tautology"}


@functools.cache
def written_kinds() -> dict[str, set[str]]:
    """Every ``"kind": "..."`` of a dict literal and every ``KIND = "..."`` in the package,
    with the modules that write it."""
    found: dict[str, set[str]] = {}
    for path in PACKAGE.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            values = []
            if isinstance(node, ast.Dict):
                values = [
                    v
                    for k, v in zip(node.keys, node.values, strict=True)
                    if isinstance(k, ast.Constant) and k.value == "kind"
                ]
            elif isinstance(node, ast.Assign) and any(
                isinstance(t, ast.Name) and t.id == "KIND" for t in node.targets
            ):
                values = [node.value]
            for v in values:
                if isinstance(v, ast.Constant) and isinstance(v.value, str):
                    found.setdefault(v.value, set()).add(path.name)
    return found


def test_every_kind_the_code_writes_is_registered() -> None:
    written = set(written_kinds()) - NOT_EVIDENCE
    assert written == set(KINDS), (written - set(KINDS), set(KINDS) - written)
    assert len(KINDS) == 10


@pytest.mark.parametrize("name", sorted(KINDS))
def test_each_writer_exists(name: str) -> None:
    target: Any = None
    path = KINDS[name].writer.split(".")
    for cut in range(len(path), 0, -1):  # the longest importable prefix, then attributes
        try:
            target = importlib.import_module(".".join(path[:cut]))
        except ImportError:
            continue
        for attr in path[cut:]:
            target = getattr(target, attr)
        break
    assert callable(target), KINDS[name].writer
    # the writer's module writes the kind
    module = path[path.index("gossipcert") + 1 : -1]
    assert any(f"{part}.py" in written_kinds()[name] for part in module), KINDS[name].writer


def test_the_docs_table_is_the_registry() -> None:
    text = (DOCS / "evidence.md").read_text()
    pattern = r"<!-- evidence kinds: begin[^>]*-->\n(.*?)\n<!-- evidence kinds: end"
    found = re.search(pattern, text, re.S)
    assert found is not None, "docs/evidence.md lost its table of evidence kinds"
    assert found.group(1) == markdown_table(), "regenerate the table (see docs/evidence.md)"
    for name in KINDS:
        assert f"`{name}`" in found.group(1)


def test_proves_says_which_records_are_more_than_a_solver_s_word() -> None:
    assert proves({"kind": "drat"}) and proves({"kind": "closed-form"})
    assert not proves({"kind": "solver-claim"}) and not proves({"kind": "no-such-kind"})
    assert proves({"kind": "reversal", "dual": {"kind": "drat"}})
    assert not proves({"kind": "reversal", "dual": {"kind": "solver-claim"}})
    assert proves({"kind": "allreduce-bracket", "source": "cut"})
    sub = {"kind": "reversal", "dual": {"kind": "solver-claim"}}
    assert not proves({"kind": "allreduce-bracket", "source": "reduce-scatter", "sub": sub})


# ------------------------------------------------------------------- check and the registry


@pytest.fixture(scope="module")
def gossip_cert() -> dict[str, Any]:
    """path:4 half-duplex gossip, certified by a proof (its closed forms stop short)."""
    res = solve(parse_instance("path:4", "half-duplex", "gossip"))
    assert res.certified and res.evidence["kind"] == "drat"
    return build_certificate(res)


@pytest.fixture(scope="module")
def allreduce_cert() -> dict[str, Any]:
    res = solve(parse_instance("ring:4", "single-port", "allreduce"))
    assert res.certified and res.evidence["kind"] == "allreduce-bracket"
    return build_certificate(res)


def _failed(rep: Any) -> list[str]:
    return [text for ok, text in rep.steps if ok is False]


@pytest.mark.parametrize("kind", ["allreduce-packing", "allreduce-drat", "allreduce-bracket"])
def test_allreduce_evidence_is_refused_for_a_gossip(gossip_cert: dict[str, Any], kind: str) -> None:
    cert = copy.deepcopy(gossip_cert)
    cert["evidence"]["kind"] = kind
    rep = check_certificate(cert)
    assert rep.status == "fails"
    assert _failed(rep) == [f"evidence of kind {kind!r} applies to allreduce, not to gossip"]


@pytest.mark.parametrize("kind", ["drat", "solver-claim", "reversal", "closed-form"])
def test_other_evidence_is_refused_for_an_allreduce(
    allreduce_cert: dict[str, Any], kind: str
) -> None:
    cert = copy.deepcopy(allreduce_cert)
    cert["evidence"]["kind"] = kind
    rep = check_certificate(cert)
    assert rep.status == "fails"
    if kind == "closed-form":  # applies to every problem: its own check fails instead
        assert not any("applies to" in t for t in _failed(rep))
    else:
        assert f"evidence of kind {kind!r} applies to" in _failed(rep)[0]
        assert _failed(rep)[0].endswith("not to allreduce")


def test_a_kind_is_refused_under_a_model_it_does_not_cover() -> None:
    inst = parse_instance("ring:4", "all-port", "gossip")
    assert KINDS["drat-packet"].refusal(inst) == (
        "evidence of kind 'drat-packet' applies under telephone, half-duplex, single-port, "
        "not under all-port"
    )
    assert KINDS["drat"].refusal(inst) is None


def test_check_dispatches_through_the_registry(
    gossip_cert: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A kind added to the registry is checked by its own checker, and only through it."""
    seen: list[Context] = []

    def checker(ctx: Context) -> None:
        seen.append(ctx)
        ctx.out.add(True, "the new kind's own step")

    new = kinds.EvidenceKind(
        "new-kind", "a test", kinds.ROUND_PROBLEMS, None, "gossipcert.api.solve", checker
    )
    monkeypatch.setitem(KINDS, "new-kind", new)
    cert = copy.deepcopy(gossip_cert)
    cert["evidence"] = {"kind": "new-kind"}
    rep = check_certificate(cert)
    assert rep.status == "holds" and len(seen) == 1
    assert seen[0].optimum == 4 and rep.steps[-1] == (True, "the new kind's own step")
    monkeypatch.delitem(KINDS, "new-kind")
    rep = check_certificate(cert)
    assert rep.status == "fails" and "unknown evidence kind 'new-kind'" in _failed(rep)[0]
