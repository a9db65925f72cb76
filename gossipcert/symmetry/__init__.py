"""Symmetry: automorphisms of an instance, and symmetry breaking in the formula.

Modules
-------
- :mod:`.automorphisms`: the automorphism group of an instance (pynauty), its orbits, and the
  lex-leader clauses that break it in an encoding.
- :mod:`.groups`: cyclic subgroups whose invariant schedules are searched
  (by :mod:`gossipcert.finders.invariant`).
"""
