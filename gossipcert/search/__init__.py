"""The round search: the incremental search over the number of rounds, the split search over
cubes, the allreduce bracket, the linear-cost search and the heartbeats of long steps.

It stands on the solvers (:mod:`gossipcert.solvers`), the proofs and evidence producers
(:mod:`gossipcert.proofs`) and the schedule finders (:mod:`gossipcert.finders`); the search
run in a child process whose time limit holds is :mod:`gossipcert.watchdog`.

Modules
-------
- :mod:`.rounds`: the search for the least number of rounds (``solve``) and its result
  (:mod:`.outcome`), entered through :mod:`.entry`.
- :mod:`.split`, :mod:`.split_refutation`, :mod:`.cubes`, :mod:`.cube_plans` and
  :mod:`.cube_runs`: the lower bound split into cubes, solved and checked apart.
- :mod:`.allreduce` and :mod:`.allreduce_cut`: the allreduce bracket (lower and upper bounds).
- :mod:`.reversal`: reduce and reduce-scatter solved as the time reversals of broadcast and
  chunked gossip.
- :mod:`.cost`: the linear-cost objectives (least steps, least cost).
- :mod:`.heartbeat`: heartbeat events during a step that reports no progress of its own.
- :mod:`.reports`: a search's reports as the parent of its child process keeps them, and
  the answer of a search stopped at its time limit or by a signal.
"""
