"""Schedule finders used by the search for its upper bound.

Modules
-------
- :mod:`.portfolio`: several finders race in processes; the shortest verified schedule wins.
- :mod:`.shortest_routes`: personalized all-port problems routed along shortest paths.
- :mod:`.tree_allreduce`: allreduce with every chunk reduced up a tree and sent down one, the
  trees packed by CP-SAT (:mod:`.tree_intervals`: the same packing as a scheduling model).
"""
