"""The verifier's parts; its one entry point is :func:`gossipcert.simulate.simulate`, whose
module states the rules it judges by.

Modules
-------
- :mod:`.report`: what a replay reports (:class:`~.report.Report`, its violations and its
  counts per round).
- :mod:`.ports`: the port and link rules of one round, read from the model's port rules.
- :mod:`.plain`: a round that visibly breaks no rule, replayed by whole-round operations.
"""
