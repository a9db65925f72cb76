"""Certificates: writing the evidence of an optimum to JSON and checking it from scratch.

Modules
-------
- :mod:`.certificate`: the certificate of a round optimum or a steps front, and ``check``.
- :mod:`.kinds`: the evidence kinds, one object each (the registry ``check`` dispatches
  through); :mod:`.checks`: each kind's checker.
- :mod:`.split`: checking the evidence of a split (cube) proof.
- :mod:`.reductions`: checking a reduction's evidence (time reversal, allreduce bracket).
- :mod:`.partial`: the partial result written when a run stops before its optimum.
"""
