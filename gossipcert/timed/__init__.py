"""Time, not only rounds: a collective's time at a message size on a machine with real
links, and lower bounds on it (docs/time.md).

- :mod:`~gossipcert.timed.machine`: links with bandwidth and latency, routes between ranks;
- :mod:`~gossipcert.timed.simulate`: the time of a list of transfers with dependencies
  (:class:`~gossipcert.timed.simulate.Op`), the seam every reader times by;
- :mod:`~gossipcert.timed.ops`: round-by-round schedules as ops;
- :mod:`~gossipcert.timed.bound`: the latency and bandwidth parts of the lower bound;
- :mod:`~gossipcert.timed.discrete`: the round model's certified optimum as a bound;
- :mod:`~gossipcert.timed.sizes`: message sizes.
"""
