"""The solvers: SAT (PySAT) and CP-SAT (OR-Tools) behind one interface, the CP-SAT runner,
and the formula of a horizon exported for outside solvers.

Modules
-------
- :mod:`.backends`: SAT and CP-SAT back-ends behind one interface, solved in time slices.
- :mod:`.cpsat_run`: the one place that makes a CP-SAT solver and runs it under a deadline.
- :mod:`.standalone`: the formula of one horizon with every demand required (its symmetry
  broken when asked), the CNF every proof refutes.
- :mod:`.export`: the formula as DIMACS or OPB, and an outside solver's model read back.
"""
