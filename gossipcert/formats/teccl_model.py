"""TE-CCL's epoch model as its code defines it: epoch duration, alpha and transmission in
epochs, capacities per epoch, switch semantics.

A machine (:mod:`.teccl_machines`) moves chunks of ``chunk`` GB; time is cut into epochs of
``epoch`` seconds. TE-CCL's solvers (``teccl/solvers/base_formulation.py``, ``allgather.py``,
``alltoall.py``) state the rules of one epoch for a link ``(i, j)`` of ``rate`` chunks a
second and ``alpha`` seconds:

- **epoch duration** (``set_epoch_duration``): the time of one chunk on the fastest link
  (``FASTEST_LINK``, "Fast") or on the slowest (``SLOWEST_LINK``, "Slow"), times
  ``epoch_multiplier``, or the input's ``epoch_duration``; then, when the least alpha over
  that epoch exceeds ``alpha_epoch_duration_ratio_max`` (200), the epoch is stretched to the
  least alpha over 200 (the file's "1-Epoch_Duration"; "2-Expected_Epoch_Duration" is the
  epoch before the stretch);
- **alpha in epochs** ``A(i, j)`` (``get_alpha_num_back``): ``ceil(alpha / epoch)`` when
  ``alpha / epoch`` exceeds ``alpha_threshold`` (0.1), else 0;
- **transmission in epochs** ``B(i, j)`` (``get_beta_num_back``): a link that carries fewer
  than one chunk an epoch needs ``ceil(1 / (rate epoch)) - 1`` epochs more;
- **allgather** (a mixed-integer program; a flow is a whole chunk): a chunk sent on
  ``(i, j)`` in epoch ``k`` is in ``j``'s buffer from epoch ``k + A + B + 1`` on, so ``j``
  forwards it from then and its demand counts as met at the end of epoch ``k + A + B``; a
  link from a switch to a GPU is instantaneous unless ``switch_to_gpu_link_on``: the chunk is
  in the GPU's buffer from epoch ``k + A`` (met at the end of ``k + A - 1``). A switch keeps
  nothing: what reaches it by epoch ``k`` it sends in epoch ``k`` or never; with
  ``switch_copy`` it may send it on every out-link, without, on as many as it received. A
  buffer holds a chunk or not: a GPU never receives a chunk it holds, nor the source its
  own. A link carries at most ``(B + 1) rate epoch`` chunks over any ``B + 1`` consecutive
  epochs;
- **alltoall** (a linear program; a flow is any fraction of a chunk): a flow sent on
  ``(i, j)`` in epoch ``k`` reaches ``j`` in epoch ``k + A`` (no transmission epochs), where
  it is consumed or forwarded from epoch ``k + A + 1``; a switch forwards in epoch
  ``k + A + 1`` what reached it, or drops it; a link carries at most ``rate epoch`` chunks an
  epoch;
- **epochs required** (the file's "3-Epochs_Required"): one more than the last epoch in which
  a demand is met (allgather) or data consumed (alltoall); the finish time
  ("4-Collective_Finish_Time") is ``epoch`` times it.

All of it is computed in double precision, as TE-CCL computes it (so ``0.35e-6 / 5e-9``
rounds up as it does there).

References
----------
.. [1] X. Liu et al., "Rethinking machine learning collective communication as a
   multi-commodity flow problem", SIGCOMM 2024; github.com/microsoft/TE-CCL,
   ``teccl/solvers/base_formulation.py``, ``teccl/solvers/allgather.py``,
   ``teccl/solvers/alltoall.py``, ``teccl/input_data.py``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from gossipcert.errors import FormatError
from gossipcert.formats.teccl_machines import TecclMachine

__all__ = ["RATIO_MAX", "EpochModel", "epoch_duration", "explain_epoch"]

#: TE-CCL's default ``alpha_epoch_duration_ratio_max``
RATIO_MAX = 200
#: TE-CCL's default ``alpha_threshold``
ALPHA_THRESHOLD = 0.1


@dataclass(frozen=True)
class EpochModel:
    """TE-CCL's model on one machine, for one chunk size and epoch (module docstring).

    Parameters
    ----------
    machine : TecclMachine
    chunk : float
        The chunk size in GB (TE-CCL's ``chunk_size``).
    epoch : float
        The epoch duration in seconds.
    alpha_threshold : float
    switch_copy : bool
    switch_to_gpu_link_on : bool

    Examples
    --------
    >>> from gossipcert.formats.teccl_machines import ndv2
    >>> m = EpochModel(ndv2(2), chunk=1e-6 / 16, epoch=5e-09)
    >>> m.alpha_epochs(0, 9), m.beta_epochs(0, 9), m.per_epoch(1, 2)
    (260, 0, 2.0)
    """

    machine: TecclMachine
    chunk: float
    epoch: float
    alpha_threshold: float = ALPHA_THRESHOLD
    switch_copy: bool = True
    switch_to_gpu_link_on: bool = False

    def __post_init__(self) -> None:
        for name in ("chunk", "epoch"):
            value = getattr(self, name)
            if not (isinstance(value, float | int) and math.isfinite(value) and value > 0):
                raise FormatError(f"the {name} must be a positive number, got {value!r}")

    def link(self, i: int, j: int) -> bool:
        """Whether ``(i, j)`` is a link of the machine."""
        return (i, j) in self.machine.links

    def rate(self, i: int, j: int) -> float:
        """Chunks a second on ``(i, j)``."""
        return self.machine.links[(i, j)].rate(self.chunk)

    def per_epoch(self, i: int, j: int) -> float:
        """Chunks an epoch on ``(i, j)`` (TE-CCL's ``epoch_capacity``)."""
        return self.rate(i, j) * self.epoch

    def alpha_epochs(self, i: int, j: int) -> int:
        """``A(i, j)``: TE-CCL's ``get_alpha_num_back``."""
        alpha = self.machine.links[(i, j)].alpha
        if (alpha / self.epoch) > self.alpha_threshold:
            return math.ceil(alpha / self.epoch)
        return 0

    def beta_epochs(self, i: int, j: int) -> int:
        """``B(i, j)``: TE-CCL's ``get_beta_num_back``."""
        return max(0, math.ceil(1 / self.per_epoch(i, j)) - 1)

    def window_capacity(self, i: int, j: int) -> float:
        """Chunks ``(i, j)`` carries over ``B + 1`` consecutive epochs (allgather)."""
        b = self.beta_epochs(i, j)
        return (b + 1) * self.per_epoch(i, j)

    def is_switch(self, v: int) -> bool:
        return v in self.machine.switches

    def held_after(self, i: int, j: int) -> int:
        """Allgather: epochs from sending on ``(i, j)`` to the chunk being usable at ``j``:
        ``A + B + 1`` (``j`` a GPU or a switch: a switch sends it in that epoch), or ``A`` for
        an instantaneous switch-to-GPU link."""
        a = self.alpha_epochs(i, j)
        if self.is_switch(i) and not self.is_switch(j) and not self.switch_to_gpu_link_on:
            return a
        return a + self.beta_epochs(i, j) + 1

    def arrival_delay(self, i: int, j: int) -> int:
        """Alltoall: epochs from sending on ``(i, j)`` to reaching ``j`` (``A``)."""
        return self.alpha_epochs(i, j)

    def finish_time(self, epochs: int) -> float:
        """TE-CCL's "4-Collective_Finish_Time": the epoch times the epochs required."""
        return self.epoch * epochs

    def algo_bandwidth(self, epochs: int) -> float:
        """TE-CCL's "5-Algo_Bandwidth" (GB/s) for ``epochs`` epochs."""
        m = self.machine
        return m.node_per_chassis * self.chunk * m.chassis / self.finish_time(epochs)


def epoch_duration(
    machine: TecclMachine,
    chunk: float,
    epoch_type: str = "fast",
    multiplier: int = 1,
    ratio_max: float = RATIO_MAX,
) -> tuple[float, float]:
    """TE-CCL's epoch: (the epoch, the epoch before the alpha check).

    Parameters
    ----------
    machine : TecclMachine
    chunk : float
        GB.
    epoch_type : str
        ``fast`` (one chunk on the fastest link) or ``slow`` (on the slowest).
    multiplier : int
        TE-CCL's ``epoch_multiplier``.
    ratio_max : float
        TE-CCL's ``alpha_epoch_duration_ratio_max``.

    Examples
    --------
    >>> from gossipcert.formats.teccl_machines import ndv2
    >>> epoch_duration(ndv2(2), 1e-6 / 16, "fast", 1)
    (3.5e-09, 1.25e-09)
    """
    rates = machine.rates(chunk)
    # TE-CCL takes the max (min) of each row's max (min) nonzero capacity
    base = 1.0 / (max(rates) if epoch_type == "fast" else min(rates))
    expected = base * multiplier
    epoch = expected
    if machine.min_alpha / epoch > ratio_max:
        epoch = machine.min_alpha / ratio_max
    return epoch, expected


def explain_epoch(machine: TecclMachine, chunk: float, epoch: float) -> str | None:
    """Which of TE-CCL's rules gives ``epoch``: ``fast x4``, ``slow x1``, ``alpha / 200``
    (the stretch), or None (an epoch given in the input).

    Examples
    --------
    >>> from gossipcert.formats.teccl_machines import ndv2
    >>> explain_epoch(ndv2(2), 1e-6 / 16, 5e-09), explain_epoch(ndv2(2), 1e-6 / 16, 3.5e-09)
    ('slow x1', 'alpha / 200')
    """
    for mult in range(1, 65):
        for kind in ("fast", "slow"):
            got, expected = epoch_duration(machine, chunk, kind, mult)
            if got == epoch:
                if got != expected:
                    return f"alpha / {RATIO_MAX:g}"
                return f"{kind} x{mult}"
    return None
