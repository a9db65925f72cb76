"""Proofs of lower bounds: producing DRAT proofs of "R rounds are impossible" and checking
them with checkers that share no code.

Modules
-------
- :mod:`.refutation`: the refutation of a horizon's standalone CNF
  (:mod:`gossipcert.solvers.standalone`) with proof logging, and stored proofs inside
  certificates.
- :mod:`.checkers`: the DRAT proof checkers (dratify, the project's own, drat-trim), and
  :mod:`.lrat_checks` the LRAT ones; :mod:`.verdicts`: each checker's verdict and the
  verdict that needs two of them.
- :mod:`.drat` and :mod:`.lrat`: the project's own DRAT and LRAT checkers;
  :mod:`.propagated` (MiniSat on each step's hints) and :mod:`.hinted` (dratify on them):
  second LRAT checkers.
- :mod:`.lrat_compiled` and :mod:`.fixpoint`: the two compiled LRAT checkers that judge
  first (they only ever accept).
- :mod:`.lrat_solver`, :mod:`.trim` and :mod:`.lrat_kernels`: CaDiCaL writing LRAT (binary),
  and its proof read and trimmed (compiled kernels; line by line without them).
- :mod:`.steps`: proofs of the linear-cost step bounds.
- :mod:`.relaxation`, :mod:`.packet_refutation` and :mod:`.allreduce_packing`: lower bounds
  from a refuted relaxation, from one packet's broadcast, and from a packing of the allreduce's
  port slots; each writes its evidence and checks it again from scratch.
"""
