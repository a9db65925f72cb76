"""The order of a GPU's sends in the MSCCL XML the writers produce, in the point-to-point
models (every model but all-port).

There a GPU sends at most ``p`` chunks a round (one call of the telephone models, ``p``
ports of single-port, one multicast to several neighbours), and the schedule says which
round each goes in. The executor's thread blocks run as soon as they can, so without a
dependency the sends of two rounds could run in one. The rule the writers follow:

* a GPU's sends of a round wait for every send of its previous sending round: directly when
  that round had one send, else through a **gate** on a local thread block (``send=-1
  recv=-1``): ``nop`` steps waiting for all but the last of those sends, then a ``cpy`` of no
  chunk waiting for the last (the executor gives a ``nop``'s dependency to the next step, and
  signals only steps that are not ``nop``), on which the next round's sends depend (built
  when the GPU sends again);
* the sends of one round do not wait for each other (they run in the same round);
* a thread block holds at most :data:`~gossipcert.formats.msccl_xml.EXECUTOR_MAX_STEPS`
  steps: a gate that does not fit goes in a new one, and more sends than that in one round
  are gathered in several gates, each waiting for the one before.

Read back (:mod:`gossipcert.formats.replay`), local steps take no round, so each send comes
one round after the last send of the GPU's previous sending round at the earliest: never
two of the schedule's rounds in one, and no round added.

References
----------
.. [1] github.com/Azure/msccl-executor-nccl, ``src/device/msccl_kernel.cu`` (a ``nop``
   waits for its dependency only) and ``src/misc/msccl/msccl_parser.cc`` (one dependency a
   step, ``MSCCL_MAX_NUM_STEPS``).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from typing import Any

from gossipcert.formats.msccl_xml import EXECUTOR_MAX_STEPS

Key = tuple[str, int, int, int]  # role, rank, peer, channel (a writer's thread block)
Ref = tuple[Key, int]  # a step: its thread block and index
#: the peer of a gate's thread block key (``("local", rank, GATE, group)``)
GATE = -2


class SendOrder:
    """A GPU's sends round by round (see the module docstring).

    Parameters
    ----------
    blocks : dict
        The writer's thread blocks (key -> list of steps), where the gates' steps go.
    nop : callable
        The writer's ``nop`` step waiting for a given step.
    join : callable
        The writer's step that moves nothing (a ``cpy`` of no chunk) waiting for a given step.

    Examples
    --------
    >>> blocks = defaultdict(list)
    >>> order = SendOrder(blocks, lambda dep: ["nop", dep], lambda dep: ["cpy", dep])
    >>> for i in range(2):  # two sends in one round: not ordered between them
    ...     assert order.wait(0) is None
    ...     order.sent(0, (("send", 0, i + 1, 0), 0))
    >>> order.next_round()
    >>> gate = order.wait(0)  # the next round's sends wait for both
    >>> gate, [(kind, dep[0][2]) for kind, dep in blocks[gate[0]]]
    ((('local', 0, -2, 0), 1), [('nop', 1), ('cpy', 2)])
    """

    def __init__(
        self,
        blocks: dict[Key, list[Any]],
        nop: Callable[[Ref], list[Any]],
        join: Callable[[Ref], list[Any]],
    ) -> None:
        self.blocks = blocks
        self.nop = nop
        self.join = join
        self._gate: dict[int, Ref] = {}  # rank -> what its sends now wait for
        self._last: dict[int, list[Ref]] = {}  # rank -> its previous sending round's sends
        self._this_round: dict[int, list[Ref]] = defaultdict(list)
        self._group: dict[int, int] = defaultdict(int)

    def wait(self, rank: int) -> Ref | None:
        """The step a send of ``rank`` in the current round waits for (None: its first);
        the gate is built on the first call of the round."""
        if rank not in self._gate and rank in self._last:
            self._gate[rank] = self._build(rank, self._last[rank])
        return self._gate.get(rank)

    def sent(self, rank: int, ref: Ref) -> None:
        """Record a send of ``rank`` in the current round."""
        self._this_round[rank].append(ref)

    def next_round(self) -> None:
        """Close the current round: its sends are what each GPU's next sends wait for."""
        for rank, refs in self._this_round.items():
            self._last[rank] = refs
            self._gate.pop(rank, None)
        self._this_round.clear()

    def _build(self, rank: int, refs: list[Ref]) -> Ref:
        if len(refs) == 1:
            return refs[0]
        size = EXECUTOR_MAX_STEPS - 2  # sends a gate gathers, with its join and a nop
        gate: Ref | None = None
        for start in range(0, len(refs), size):
            part = refs[start : start + size]
            key: Key = ("local", rank, GATE, self._group[rank])
            if len(self.blocks[key]) + len(part) + 1 + (gate is not None) > EXECUTOR_MAX_STEPS:
                self._group[rank] += 1
                key = ("local", rank, GATE, self._group[rank])
            steps = self.blocks[key]
            if gate is not None:
                steps.append(self.nop(gate))
            steps.extend(self.nop(ref) for ref in part[:-1])
            steps.append(self.join(part[-1]))
            gate = (key, len(steps) - 1)
        assert gate is not None
        return gate
