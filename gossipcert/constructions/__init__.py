"""The papers' constructive schedules, one module per family of algorithms.

Every function returns a :class:`~gossipcert.schedule.Schedule`; callers pass it through
:func:`gossipcert.simulate.simulate` before showing it to anyone.
"""
