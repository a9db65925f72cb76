"""Schedule finders used by the search for its upper bound.

Modules
-------
- :mod:`.upper`: the verified upper bounds (constructions, heuristics, routes) the search
  starts from.
- :mod:`.portfolio`: several finders race in processes; the shortest verified schedule wins.
- :mod:`.invariant`: schedules invariant under a group of automorphisms (their formula and
  search); :mod:`.invariant_step`: the search step that tries them for the upper bound.
- :mod:`.shortest_routes`: personalized all-port problems routed along shortest paths.
- :mod:`.tree_allreduce`: allreduce with every chunk reduced up a tree and sent down one, the
  trees packed by CP-SAT (:mod:`.tree_time_indexed` and :mod:`.tree_intervals`: the packing
  as a time-indexed model and as a scheduling model).
"""
