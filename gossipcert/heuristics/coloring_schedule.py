"""Which pruning setting of the coloring search runs next, and for how many search nodes.

The coloring heuristic (:mod:`gossipcert.heuristics.coloring`) searches each horizon with
several pruning settings, from strict (few branches, quick answers) to permissive (every
branch that moves a packet). Section 6 of the paper notes that no single setting suits
every graph class, and Table 6's CCC sequences show that the permissive ones are sometimes
the only ones that find the shortest sequence, after a long search. Giving each setting a
fixed share of the time in turn wastes that time when a strict setting searches long in
vain before the permissive one starts (on CCC 10 a windowed setting spent 98 s of a
300 s budget at 24 rounds, where the setting without the window rule then needed 4 s).

The schedule here interleaves the settings instead. Every search can be paused and
resumed (its depth-first walk is a generator), and the horizon's search nodes are handed
out in *slices*:

- cycle ``c = 0, 1, 2, ...`` gives every setting still searching ``base * 2^c`` more
  search nodes (at most ``cap``), in the settings' order, so a setting that finds a
  sequence in ``N`` nodes is reached after at most about ``N`` nodes of each other setting
  (plus one slice), whatever the others do;
- a setting whose search ends without a sequence (its pruned tree exhausted) drops out;
- the settings stricter than the one that found the previous (longer) sequence — those
  before it in the order, the *floor* — get only cycle 0's probe: a horizon one round
  shorter is harder, and a setting that needed to be passed over at ``R + 1`` rounds
  rarely finds ``R``. This gives the permissive settings most of a hard horizon's time
  (before the reach bound of :mod:`.coloring_reach`, CCC 10's 23 rounds needed about
  85 s of the unfiltered setting alone; now 40 search nodes).

Slices count search nodes, not seconds, so the schedule, and the sequence found, do not
depend on the machine's load while the time limit does not bind. The price is memory: the
searches of all the settings still in turn are alive at once, each with its own knowledge
(a few MB per orbit search; on a graph without the orbit reduction, one ``n x n`` bit
matrix each).

References
----------
.. [1] R. Beier and J. F. Sibeyn, "A powerful heuristic for telephone gossiping", section 6
   (the pruning parameters of the coloring heuristic and their choice per graph class).
"""

from __future__ import annotations

from collections.abc import Container, Iterator

#: search nodes of a setting's first slice at a horizon
BASE_NODES = 64
#: most search nodes of one slice (a few seconds at 10,000 nodes)
CAP_NODES = 4096


def setting_slices(
    n_settings: int,
    floor: int,
    done: Container[int],
    *,
    base: int = BASE_NODES,
    cap: int = CAP_NODES,
) -> Iterator[tuple[int, int]]:
    """The slices of one horizon: ``(setting, search nodes)``, in the order to run them.

    Parameters
    ----------
    n_settings : int
        Settings ``0 .. n_settings - 1``, strictest first.
    floor : int
        The setting that found the previous sequence; the ones before it get only the
        first cycle's slice.
    done : container of int
        The settings whose search has ended (read at every slice: the caller adds to it).
    base, cap : int
        The first cycle's slice and the largest slice, in search nodes.

    Yields
    ------
    (int, int)
        A setting and how many more search nodes it may visit. The iteration ends when no
        setting may search any more.

    Examples
    --------
    >>> it = setting_slices(3, 1, set(), base=10, cap=40)
    >>> [next(it) for _ in range(7)]
    [(0, 10), (1, 10), (2, 10), (1, 20), (2, 20), (1, 40), (2, 40)]
    >>> list(setting_slices(3, 1, {1, 2}, base=10))
    [(0, 10)]
    """
    if not 0 <= floor < n_settings:
        raise ValueError(f"floor {floor} is not one of {n_settings} settings")
    cycle = 0
    while True:
        live = [k for k in range(n_settings) if (cycle == 0 or k >= floor) and k not in done]
        if not live:
            return
        size = min(base << min(cycle, 30), cap)
        for k in live:
            if k not in done:
                yield k, size
        cycle += 1
