"""Symmetry: automorphisms of an instance, symmetry breaking in the formula, and schedules
invariant under a group.

Modules
-------
- :mod:`.automorphisms`: the automorphism group of an instance (pynauty) and its orbits.
- :mod:`.groups`: cyclic subgroups whose invariant schedules are searched.
- :mod:`.schedules`: the formula of schedules invariant under a group.
- :mod:`.step`: the search step that tries invariant schedules for the upper bound.
"""
