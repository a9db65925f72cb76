"""What replaying another tool's algorithm finds: violations, transmissions and the
replay's outcome, shared by the readers of :mod:`gossipcert.formats`."""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass, field

from gossipcert.formats.msccl_xml import Step

#: a slot's content: the chunks or contributions it holds
Value = frozenset[Hashable]
#: a value derived from an earlier error (reading it is not reported again)
POISON: Value = frozenset()


@dataclass(frozen=True)
class Finding:
    """One violation: its rule key, the round (None: not tied to one), the GPU and a sentence."""

    rule: str
    message: str
    round: int | None = None
    rank: int | None = None

    def to_json(self) -> dict[str, object]:
        return {"rule": self.rule, "round": self.round, "rank": self.rank, "message": self.message}


@dataclass(frozen=True)
class Transfer:
    """One transmission: round, sender, receiver, channel, chunks and what each carried."""

    round: int
    sender: int
    receiver: int
    chan: int
    cnt: int
    payload: tuple[Value, ...]


@dataclass
class Replay:
    """The outcome of :func:`replay`.

    Attributes
    ----------
    rounds : int
        Round of the last transmission (0 if none happens).
    transfers : list of Transfer
        Every transmission that happens, by round (payloads from the first mode replayed).
    findings : list of Finding
    chunks_per_rank : int
        ``K``: chunks of each rank's data (allgather, alltoall, reducescatter), or the
        chunks of the whole buffer (allreduce, reduce, broadcast).
    semantics : bool
        Whether the collective's result was checked (False for collectives other than
        allgather, alltoall, allreduce, reducescatter, reduce and broadcast: structure and
        timing only, and never :attr:`valid`).
    root : int or None
        The rank taken as root (``reduce``, ``broadcast``; None for the other collectives).
    not_judged : list of str
        Why the algorithm cannot be judged (an operation or a collective the replay does not
        model): such an algorithm is never valid, whatever else is found.
    """

    rounds: int
    transfers: list[Transfer]
    findings: list[Finding] = field(default_factory=list)
    chunks_per_rank: int = 1
    semantics: bool = True
    root: int | None = None
    not_judged: list[str] = field(default_factory=list)

    @property
    def valid(self) -> bool:
        """No violation, the collective's result checked on every rank, and every operation
        modelled."""
        return self.semantics and not self.findings and not self.not_judged

    @property
    def judged(self) -> bool:
        """Whether the replay can say valid or invalid: a violation was found, or the result
        was checked with every operation modelled."""
        return bool(self.findings) or (self.semantics and not self.not_judged)


StepKey = tuple[int, int, int]  # rank, thread block, step index


def step_where(rank: int, tb: int, step: Step) -> str:
    line = f" (line {step.line})" if step.line else ""
    return f"GPU {rank} thread block {tb} step {step.index} ({step.kind}){line}"
