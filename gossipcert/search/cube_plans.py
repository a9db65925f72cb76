"""The cubes of a split (:mod:`gossipcert.search.cubes`): one per orbit of round-1 calls under
the automorphisms (at depth 2, one per orbit of the stabilizer beside each representative),
or, for a strict split, every round-1 choice of the nodes of largest degree. Why each set of
cubes covers the formula is argued in :mod:`gossipcert.search.cubes`.

References
----------
.. [1] M. J. H. Heule, O. Kullmann, S. Wieringa, A. Biere, "Cube and conquer: guiding CDCL
   SAT solvers by lookaheads", HVC 2011.
.. [2] B. D. McKay and A. Piperno, "Practical graph isomorphism, II", 2014 (nauty).
"""

from __future__ import annotations

import itertools
import json
from typing import Any

import pynauty
from pysat.solvers import Solver

from gossipcert.errors import SolverError
from gossipcert.instance import Instance, ProblemKind
from gossipcert.interrupts import pysat_handler_off
from gossipcert.proofs.refutation import PROOF_SOLVER
from gossipcert.search.cubes import Base, Cube, Key, cube_literals, key_orbits
from gossipcert.symmetry.automorphisms import automorphism_generators, node_cells

#: strict cubes: the number of nodes whose round-1 call is fixed, by default
STRICT_NODES = 2


def stabilizer_generators(instance: Instance, key: Key, undirected: bool) -> list[list[int]]:
    """Generators of the automorphisms that map ``key`` to itself (an edge as a set, an
    arc with its direction)."""
    cells = [c - set(key) for c in node_cells(instance)]
    # an edge's two ends share a new colour (it may be flipped); an arc's ends get one each
    cells += [set(key)] if undirected else [{v} for v in key]
    cells = [c for c in cells if c]
    adjacency = {v: sorted(instance.graph.adj[v]) for v in range(instance.n)}
    pg = pynauty.Graph(instance.n, directed=False, adjacency_dict=adjacency, vertex_coloring=cells)
    gens, *_ = pynauty.autgrp(pg)
    return [list(p) for p in gens]


def orbit_plan(instance: Instance, base: Base, depth: int = 1) -> tuple[list[Cube], dict[str, Any]]:
    """Cubes up to the automorphisms (see :mod:`gossipcert.search.cubes`) and their coverage
    record."""
    if instance.problem.kind is ProblemKind.CUSTOM:
        raise SolverError("the orbit split needs a named problem; use --strict for custom ones")
    keys = sorted(base.index)
    gens = automorphism_generators(instance)
    cubes = [Cube((), tuple(keys))]
    stabilizers: dict[str, list[list[int]]] = {}
    for orbit in key_orbits(keys, gens, base.undirected):
        b = orbit[0]
        if depth < 2:
            cubes.append(Cube((b,)))
            continue
        apart = [k for k in keys if not set(k) & set(b)]
        stab = stabilizer_generators(instance, b, base.undirected)
        stabilizers[json.dumps(list(b))] = stab
        cubes.append(Cube((b,), tuple(apart)))
        for sub in key_orbits(apart, stab, base.undirected):
            cubes.append(Cube((b, sub[0])))
    coverage = {"kind": "orbits", "depth": depth, "generators": gens, "stabilizers": stabilizers}
    return cubes, coverage


@pysat_handler_off()  # PySAT takes no SIGINT itself
def strict_plan(instance: Instance, base: Base, nodes: int = STRICT_NODES) -> list[Cube]:
    """Cubes without symmetry: every round-1 choice (a call, or idle) of the ``nodes``
    nodes of largest degree, less those that unit propagation on ``F`` refutes."""
    order = sorted(range(instance.n), key=lambda v: (-instance.graph.degree[v], v))[:nodes]
    keys = sorted(base.index)
    choices = []
    for v in order:
        mine = [k for k in keys if v in k]
        choices.append([Cube((k,)) for k in mine] + [Cube((), tuple(mine))])
    cubes: dict[Cube, None] = {}
    with Solver(name=PROOF_SOLVER, bootstrap_with=base.cnf.clauses) as solver:
        for combo in itertools.product(*choices):
            calls = tuple(sorted({k for c in combo for k in c.calls}))
            idle = tuple(sorted({k for c in combo for k in c.idle} - set(calls)))
            if set(calls) & {k for c in combo for k in c.idle}:
                continue  # a key both made true and false
            cube = Cube(calls, idle)
            ok, _ = solver.propagate(assumptions=cube_literals(base.index, cube))
            if ok:
                cubes[cube] = None
    return list(cubes)
