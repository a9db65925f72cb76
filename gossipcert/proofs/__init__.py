"""Proofs of lower bounds: producing DRAT proofs of "R rounds are impossible" and checking
them with checkers that share no code.

Modules
-------
- :mod:`.refutation`: the standalone CNF of a horizon, its refutation with proof logging,
  and stored proofs inside certificates.
- :mod:`.checkers`: the proof checkers (dratify, the project's own, drat-trim) and the
  verdict that needs two of them.
- :mod:`.drat` and :mod:`.lrat`: the project's own DRAT and LRAT checkers; :mod:`.hinted`:
  the second LRAT checker (dratify on each step's hints).
- :mod:`.lrat_solver` and :mod:`.trim`: CaDiCaL writing LRAT, and its proof trimmed.
- :mod:`.steps`: proofs of the linear-cost step bounds.
"""
