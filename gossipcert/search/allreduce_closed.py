"""The closed lower bounds of allreduce, named once.

Each is a function of the instance alone (no solver), sound under every model and under
``sum`` and ``max`` alike, recomputed by ``gossipcert check`` from the certificate's
instance. The allreduce bracket (:mod:`gossipcert.search.allreduce`) takes the largest; the
certificate checker (:mod:`gossipcert.certificates.reductions`) recomputes the one an
``allreduce-bracket`` evidence names; the evidence kinds
(:mod:`gossipcert.certificates.kinds`) count such evidence as a proof. A bound added here is
known to all three.

- ``receive`` and ``receipts``: :mod:`gossipcert.search.allreduce_bounds`;
- ``cut``: :mod:`gossipcert.search.allreduce_cut`;
- ``bridge``: :mod:`gossipcert.search.allreduce_bridge`;
- ``one-round``: :mod:`gossipcert.closed_forms.allreduce_one_round`.

Examples
--------
>>> from gossipcert.instance import parse_instance
>>> inst = parse_instance("path:3", "single-port:p=1", "allreduce")
>>> {name: bound.value(inst) for name, bound in CLOSED_BOUNDS.items()}["receive"]
3
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from gossipcert.closed_forms.allreduce_one_round import one_round_value
from gossipcert.instance import Instance
from gossipcert.search.allreduce_bounds import receipt_bound, receive_bound
from gossipcert.search.allreduce_bridge import bridge_bound
from gossipcert.search.allreduce_cut import cut_bound


@dataclass(frozen=True)
class ClosedBound:
    """A closed allreduce lower bound: its value on an instance (None where it does not
    apply) and the argument in one line (printed by ``check``)."""

    value: Callable[[Instance], int | None]
    why: str


#: the closed allreduce bounds by the name their evidence carries (``source``)
CLOSED_BOUNDS: dict[str, ClosedBound] = {
    "receive": ClosedBound(receive_bound, "each node receives every chunk once"),
    "receipts": ClosedBound(receipt_bound, "each chunk is received m + d - 2 times in all"),
    "cut": ClosedBound(cut_bound, "a cut vertex takes every chunk in from each side and out again"),
    "bridge": ClosedBound(bridge_bound, "a bridge lets every chunk into one side over one arc"),
    "one-round": ClosedBound(one_round_value, "one round combines nothing before it is sent"),
}
