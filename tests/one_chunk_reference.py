"""An independent brute force for the chunk-packing bound's claim, written apart from
gossipcert: the least weight of a one-chunk all-port schedule under weights on arc-rounds.

Knowledge of one chunk's contributions: every node starts knowing its own; an arc ``(u, v)``
used in round ``t`` gives ``v`` everything ``u`` knew after round ``t - 1``; any set of
arcs may be used in a round (all-port, one chunk). The search runs over the rounds, with a
state the tuple of the nodes' knowledge bitmasks and the least weight reaching it. In each
round every useful arc of weight 0 is used (knowledge only grows, and more knowledge never
hurts later, so this is dominant), and every subset of the useful weighted arcs within the
budget is tried."""

from __future__ import annotations

from itertools import combinations

Arc = tuple[int, int]


def least_weight(
    n: int, edges: list[Arc], rounds: int, weights: dict[tuple[int, int, int], int], cap: int
) -> int | None:
    """The least weight of a schedule after which every node knows every contribution, if
    it is at most ``cap`` (None otherwise)."""
    full = (1 << n) - 1
    arcs = [a for u, v in edges for a in ((u, v), (v, u))]
    layer = {tuple(1 << v for v in range(n)): 0}
    for t in range(1, rounds + 1):
        after: dict[tuple[int, ...], int] = {}
        for state, spent in layer.items():
            useful = [(u, v) for u, v in arcs if state[u] & ~state[v]]
            free = [a for a in useful if weights.get((*a, t), 0) == 0]
            paid = [a for a in useful if weights.get((*a, t), 0) > 0]
            base = list(state)
            for u, v in free:
                base[v] |= state[u]
            for r in range(len(paid) + 1):
                for chosen in combinations(paid, r):
                    cost = spent + sum(weights[(u, v, t)] for u, v in chosen)
                    if cost > cap:
                        continue
                    new = list(base)
                    for u, v in chosen:
                        new[v] |= state[u]
                    key = tuple(new)
                    if after.get(key, cap + 1) > cost:
                        after[key] = cost
        layer = after
    return layer.get(tuple([full] * n))
