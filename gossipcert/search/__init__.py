"""The round search: solver back-ends, the incremental search over the number of rounds,
its time limit, the split search over cubes, the relaxation, the linear-cost search and the
export of the formula to outside solvers.

Modules
-------
- :mod:`.backends`: SAT (PySAT) and CP-SAT (OR-Tools) back-ends behind one interface.
- :mod:`.rounds`: the search for the least number of rounds (``solve``) and its result.
- :mod:`.watchdog`: the search run in a child process whose time limit holds.
- :mod:`.split` and :mod:`.cubes`: the lower bound split into cubes, solved and checked apart.
- :mod:`.relaxation`: a refutation of a relaxed formula that implies the full one.
- :mod:`.packet_refutation`: lower bounds from one packet's broadcast.
- :mod:`.cost`: the linear-cost objectives (least steps, least cost).
- :mod:`.export`: the formula as DIMACS or OPB, and an outside solver's model read back.
"""
