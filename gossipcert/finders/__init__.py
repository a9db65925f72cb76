"""Schedule finders used by the search for its upper bound.

Modules
-------
- :mod:`.portfolio`: several finders race in processes; the shortest verified schedule wins.
- :mod:`.palindrome`: schedules whose matching sequence reads the same backwards.
- :mod:`.shortest_routes`: personalized all-port problems routed along shortest paths.
"""
