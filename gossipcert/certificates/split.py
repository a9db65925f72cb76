"""Re-checking split evidence (``drat-cubes``): every cube's proof, and the cover.

The evidence of :func:`gossipcert.search.split_refutation.refute_by_cubes` claims that the
formula ``F`` for ``rounds`` rounds (regenerated here, its SHA-256 compared) is unsatisfiable
because

1. for every stored cube ``c``, ``F ∧ c`` has a DRAT proof, re-checked here by every checker
   of :mod:`gossipcert.proofs.checkers`; and
2. the cubes cover ``F``: either (``tautology``) a DRAT proof that ``F ∧ ¬c_1 ∧ … ∧ ¬c_m``
   is unsatisfiable, re-checked the same way; or (``orbits``) the argument of
   :mod:`gossipcert.search.cubes`, re-checked by computation: each stored generator is an
   automorphism of the instance (a permutation of the nodes that preserves the edges, the
   routers and the root), each stabilizer generator also maps its call to itself, the
   orbits of round-1 keys are recomputed from the generators, and every orbit (and every
   orbit of the stabilizer beside each representative call) has its cube, as is the cube
   "no call in round 1" (and, at depth 2, "no other call apart from ``b``").

A cube dropped, a proof removed or altered, a generator that is not an automorphism, or an
orbit without a cube fails the check.
"""

from __future__ import annotations

import json
import time
from typing import Any

from gossipcert import graphs
from gossipcert.errors import CertificateError
from gossipcert.instance import Instance, ProblemKind, resolve_roots
from gossipcert.proofs.refutation import reliance, stored_options
from gossipcert.search.cubes import (
    Base,
    Cube,
    Key,
    base_formula,
    check_refutation,
    cube_literals,
    cubes_digest,
    key_orbits,
)
from gossipcert.search.cubes import permute_key as image

Steps = Any  # a CheckReport (kept untyped here: certificate imports this module)


def is_automorphism(instance: Instance, perm: Any) -> bool:
    """Whether ``perm`` is a node permutation preserving edges, capacities, latencies,
    routers and the
    problem's roots (as a set: the sources of a broadcast may be exchanged)."""
    n = instance.n
    if not isinstance(perm, list) or sorted(perm) != list(range(n)):
        return False
    g = instance.graph
    if any(
        not g.has_edge(perm[u], perm[v])
        or graphs.capacity(g, u, v) != graphs.capacity(g, perm[u], perm[v])
        or graphs.latency(g, u, v) != graphs.latency(g, perm[u], perm[v])
        for u, v in g.edges
    ):
        return False
    if any(graphs.is_router(g, v) != graphs.is_router(g, perm[v]) for v in range(n)):
        return False
    if instance.problem.root is not None:
        roots = set(resolve_roots(g, instance.problem.root))
        if {perm[r] for r in roots} != roots:
            return False
    return True


def orbit_coverage(instance: Instance, base: Base, cubes: list[Cube], cov: dict[str, Any]) -> str:
    """Check the orbit argument for ``cubes``; returns a summary, raises on a gap.

    Raises
    ------
    CertificateError
        Naming the first gap found.
    """
    if instance.problem.kind is ProblemKind.CUSTOM:
        raise CertificateError("the orbit argument needs a named problem (custom: none)")
    und = base.undirected
    keys = sorted(base.index)
    gens = cov.get("generators")
    if not isinstance(gens, list) or not all(is_automorphism(instance, p) for p in gens):
        raise CertificateError("a stored generator is not an automorphism of the instance")
    given = set(cubes)
    if Cube((), tuple(keys)) not in given:
        raise CertificateError('the cube "no call in round 1" is missing')
    plain = {c.calls[0] for c in cubes if len(c.calls) == 1 and not c.idle}
    pairs: dict[Key, set[Key]] = {}
    for c in cubes:
        if len(c.calls) == 2 and not c.idle:
            pairs.setdefault(c.calls[0], set()).add(c.calls[1])
            pairs.setdefault(c.calls[1], set()).add(c.calls[0])
    stabs = cov.get("stabilizers") or {}
    split = 0
    for orbit in key_orbits(keys, gens, und):
        if plain & set(orbit):
            continue
        if not any(_split_holds(instance, b, keys, cubes, pairs, stabs, und) for b in orbit):
            raise CertificateError(
                f"the orbit of round-1 call {list(orbit[0])} ({len(orbit)} calls) has no cube"
            )
        split += 1
    orbits = len(key_orbits(keys, gens, und))
    return (
        f"{len(gens)} generators, all automorphisms; {orbits} orbits of round-1 calls, each "
        f"with its cube ({split} split again under its stabilizer), and the empty round"
    )


def _split_holds(
    instance: Instance,
    b: Key,
    keys: list[Key],
    cubes: list[Cube],
    pairs: dict[Key, set[Key]],
    stabs: dict[str, Any],
    und: bool,
) -> bool:
    """Cubes cover the models with call ``b``: "``b`` and nothing apart", and one cube
    ``(b, f)`` per orbit of the calls apart from ``b`` under ``b``'s stabilizer."""
    apart = [k for k in keys if not set(k) & set(b)]
    alone = any(c.calls == (b,) and set(c.idle) <= set(apart) for c in cubes)
    stab = stabs.get(json.dumps(list(b)))
    if not alone or not isinstance(stab, list):
        return False
    for perm in stab:
        if not is_automorphism(instance, perm) or image(b, perm, und) != b:
            raise CertificateError(f"a stabilizer generator of {list(b)} does not fix it")
    partners = pairs.get(b, set())
    return all(partners & set(orbit) for orbit in key_orbits(apart, stab, und))


def check_cube_evidence(
    instance: Instance,
    rounds: int,
    ev: dict[str, Any],
    cert: dict[str, Any],
    time_limit: float | None,
    out: Steps,
    full: bool = False,
) -> None:
    """Add the steps re-checking ``drat-cubes`` evidence to the report ``out``."""
    deadline = None if time_limit is None else time.monotonic() + time_limit
    options = stored_options(ev)
    if options.symmetry or options.canonical:
        out.add(
            False,
            "a split formula must not include rules that name nodes (lex-leader, canonical order)",
        )
        return
    base = base_formula(instance, rounds, options)
    digest = base.cnf.sha256()
    out.add(
        digest == ev.get("cnf_sha256"),
        f"CNF for {rounds} rounds regenerated: {base.cnf.nvars} variables, "
        f"{len(base.cnf.clauses)} clauses, sha256 "
        f"{'matches' if digest == ev.get('cnf_sha256') else 'DIFFERS'}",
    )
    stored = ev.get("cubes")
    if not isinstance(stored, list):
        raise CertificateError("'cubes' must be a list")
    cubes = [Cube.from_json(c) for c in stored]
    cov = ev.get("coverage")
    if not isinstance(cov, dict):
        raise CertificateError("'coverage' must be an object")
    same = cubes_digest(cubes) == cov.get("cubes_sha256")
    out.add(
        same,
        f"{len(cubes)} cubes stored; their list "
        f"{'matches' if same else 'DIFFERS FROM'} the one the cover was made for",
    )
    orbits = cov.get("kind") == "orbits"
    flag = cert.get("symmetry_breaking") is orbits
    out.add(
        flag,
        f"symmetry_breaking flag {'agrees' if flag else 'DISAGREES'} with the cover "
        f"({cov.get('kind')})",
    )
    relies = options.not_implied() + (["the automorphism argument of the split"] if orbits else [])
    out.add(True, reliance(relies, "the proofs"))
    # every cube's proof
    verdicts: list[bool | None] = []
    for i, (cube, rec) in enumerate(zip(cubes, stored, strict=True)):
        if "proof_xz_base64" not in rec:
            out.add(False, f"cube {i} ({cube.describe()}) has no proof")
            verdicts.append(False)
            continue
        cnf = base.with_units(cube_literals(base.index, cube))
        ok, text = check_refutation(
            f"cube {i} ({cube.describe()})",
            cnf,
            rec["proof_xz_base64"],
            deadline,
            full,
            rec.get("proof_lines"),
        )
        verdicts.append(ok)
        if ok is not True:
            out.add(ok, text)
    if verdicts and all(v is True for v in verdicts):
        out.add(
            True, f"all {len(cubes)} cubes refuted: each DRAT proof re-checked by every checker"
        )
    # the cover
    if cov.get("kind") == "tautology":
        clauses = [[-lit for lit in cube_literals(base.index, c)] for c in cubes]
        if "proof_xz_base64" not in cov:
            out.add(False, "the cover has no proof")
            return
        ok, text = check_refutation(
            f"cover: F and no cube ({len(cubes)} cubes) is unsatisfiable",
            base.with_clauses(clauses),
            cov["proof_xz_base64"],
            deadline,
            full,
        )
        out.add(ok, text)
    elif orbits:
        try:
            out.add(
                True, "cover by orbits re-checked: " + orbit_coverage(instance, base, cubes, cov)
            )
        except CertificateError as exc:
            out.add(False, f"cover by orbits FAILS: {exc}")
    else:
        out.add(False, f"unknown cover {cov.get('kind')!r}")
