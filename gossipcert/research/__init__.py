"""Methods kept for the benchmarks and the record of open instances, not used by any command.

Modules
-------
- :mod:`.broadcast_far_first`: broadcast schedules that serve the farthest nodes first.
- :mod:`.broadcast_late`: broadcast formulas restricted to late-informed nodes.
- :mod:`.palindrome`: gossip schedules that read the same backwards, up to an automorphism
  (``benchmarks/palindrome_search.py``; the search's own symmetric finder,
  :mod:`gossipcert.finders.invariant`, asks for such palindromes among its schedules).
"""
