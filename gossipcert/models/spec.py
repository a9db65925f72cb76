"""Model specs: :class:`Model` (a model's kind and its options) and :func:`parse_model`.

Model specs (docs/models.rst)::

    telephone            telephone:p=2        sequential:p=2 (telephone with one call a round)
    half-duplex          half-duplex:p=1      single-port:p=1 (default p=1)
    multicast (p=1)      all-port (an arc carries its edge's capacity, 1 by default)

Options after the colon, comma separated: ``p=N`` (packets per transmission), ``calls=N``
(calls or transmissions in the whole network per round), ``c=N`` (capacity of every arc,
models with arc capacities; without it each edge's ``capacity`` attribute counts), ``k=N``
(ports per node, required by the models whose rules have ``k_ports``), ``tau=X`` and ``h=N``
(linear cost ``1 + tau*h*s`` per round). The rules of each kind are its
:class:`~gossipcert.models.base.PortRules` (:mod:`gossipcert.models`); which options a
model takes is read from them.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from gossipcert.errors import SpecError
from gossipcert.models import MODELS, rules_of
from gossipcert.models.base import ModelKind, PortRules

#: spec name -> (kind, default packet cap, default calls per round)
_MODEL_NAMES: dict[str, tuple[ModelKind, int | None, int | None]] = {
    kind.value: (kind, rules.default_packet_cap, None) for kind, rules in MODELS.items()
}
_MODEL_NAMES["sequential"] = (ModelKind.TELEPHONE, None, 1)  # telephone, one call a round
_MODEL_OPTIONS = ("p", "calls", "c", "k", "tau", "h")


@dataclass(frozen=True)
class Model:
    """A communication model: the rules of one round.

    Parameters
    ----------
    kind : ModelKind
        Who may talk in one round (see the table in the module docstring).
    packet_cap : int or None
        ``p``: most packets in one transmission (telephone: each way); None is unbounded.
        Not used by ``all-port``, which is limited by arc capacities instead.
    calls_per_round : int or None
        Most calls (telephone) or transmissions (other models) in the whole network per
        round; 1 is the sequential model of Bermond et al. None is unlimited.
    capacity : int or None
        ``all-port``: packets per arc per round on every arc; None (default) takes each
        edge's ``capacity`` attribute from the graph (1 unless the graph says otherwise).
    tau, h : float or None, int
        Linear cost: a round in which some node sends ``s`` packets costs ``1 + tau*h*s``.
    k : int or None
        Ports per node (the models whose rules have ``k_ports``): a node sends at most ``k``
        transmissions and receives at most ``k`` per round.
    """

    kind: ModelKind
    packet_cap: int | None = None
    calls_per_round: int | None = None
    capacity: int | None = None
    tau: float | None = None
    h: int = 1
    k: int | None = None

    @property
    def rules(self) -> PortRules:
        """The rules of this model's kind (:func:`gossipcert.models.rules_of`)."""
        return rules_of(self.kind)

    @property
    def unbounded(self) -> bool:
        """True when a transmission may carry any number of packets (``"all"`` allowed)."""
        return not self.rules.arc_capacities and self.packet_cap is None

    @property
    def ports(self) -> int | None:
        """The most transmissions a node sends, and the most it receives, in one round:
        1 in the one-port models, ``k`` with ``k_ports``, None with arc capacities.

        Examples
        --------
        >>> parse_model("half-duplex").ports, parse_model("all-port").ports
        (1, None)
        """
        rules = self.rules
        if rules.one_port:
            return 1
        if rules.k_ports:
            assert self.k is not None, "a k-port model is built with its k"
            return self.k
        return None

    @property
    def informs_one(self) -> bool:
        """A node passes a given packet to at most one neighbour per round (point-to-point
        transmissions, one port): what every one-port broadcast argument needs."""
        return self.rules.point_to_point and self.ports == 1

    @property
    def port_packets(self) -> int | None:
        """The most packets a node receives (and sends) in one round through its ports:
        ``ports * p``; None with unbounded packets or arc capacities."""
        ports = self.ports
        if ports is None or self.packet_cap is None:
            return None
        return ports * self.packet_cap

    def spec(self) -> str:
        """The canonical spec string of this model."""
        name = self.kind.value
        calls = self.calls_per_round
        if self.kind is ModelKind.TELEPHONE and calls == 1:
            name, calls = "sequential", None
        default_p = _MODEL_NAMES[self.kind.value][1]
        opts: list[str] = []
        if self.k is not None:
            opts.append(f"k={self.k}")
        if self.packet_cap is not None and (self.packet_cap != default_p or name == "half-duplex"):
            opts.append(f"p={self.packet_cap}")
        if calls is not None:
            opts.append(f"calls={calls}")
        if self.capacity is not None:
            opts.append(f"c={self.capacity}")
        if self.tau is not None:
            opts.append(f"tau={self.tau:g}")
        if self.h != 1:
            opts.append(f"h={self.h}")
        return name + (":" + ",".join(opts) if opts else "")


def _positive_int(text: str, what: str, spec: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise SpecError(f"{what} must be a whole number, got {text!r} in {spec!r}") from None
    if value < 1:
        raise SpecError(f"{what} must be at least 1, got {value} in {spec!r}")
    return value


def parse_model(spec: str) -> Model:
    """Parse a model spec such as ``telephone``, ``sequential:p=2`` or ``single-port:p=1``.

    Parameters
    ----------
    spec : str
        ``NAME`` or ``NAME:key=value,...`` (see the module docstring).

    Returns
    -------
    Model

    Raises
    ------
    SpecError
        Naming the bad part and listing what is accepted.

    Examples
    --------
    >>> m = parse_model("sequential:p=2")
    >>> m.kind.value, m.packet_cap, m.calls_per_round
    ('telephone', 2, 1)
    """
    name, _, rest = spec.strip().partition(":")
    name = name.strip().lower()
    if name not in _MODEL_NAMES:
        raise SpecError(
            f"unknown model {name!r} in {spec!r}; known models: {', '.join(_MODEL_NAMES)}"
        )
    kind, packet_cap, calls = _MODEL_NAMES[name]
    rules = rules_of(kind)
    capacity: int | None = None
    tau: float | None = None
    h = 1
    k: int | None = None
    seen: set[str] = set()
    for part in filter(None, (x.strip() for x in rest.split(","))):
        key, eq, value = part.partition("=")
        key = key.strip().lower()
        if not eq or key not in _MODEL_OPTIONS:
            raise SpecError(
                f"bad model option {part!r} in {spec!r}; options are p=N, calls=N, c=N, k=N, "
                "tau=X, h=N"
            )
        if key in seen:
            raise SpecError(f"model option {key!r} is given twice in {spec!r}")
        seen.add(key)
        if key == "p":
            if rules.arc_capacities:
                raise SpecError(
                    f"{kind.value} has no packet cap (use c=N for arc capacity): {spec!r}"
                )
            packet_cap = _positive_int(value, "p", spec)
        elif key == "calls":
            calls = _positive_int(value, "calls", spec)
        elif key == "c":
            if not rules.arc_capacities:
                raise SpecError(
                    f"arc capacity c=N applies to {_taking('arc_capacities')} only: {spec!r}"
                )
            capacity = _positive_int(value, "c", spec)
        elif key == "k":
            if not rules.k_ports:
                raise SpecError(
                    f"{kind.value} takes no ports per node k=N (models that do: "
                    f"{_taking('k_ports') or 'none'}): {spec!r}"
                )
            k = _positive_int(value, "k", spec)
        elif key == "tau":
            try:
                tau = float(value)
            except ValueError:
                raise SpecError(f"tau must be a number, got {value!r} in {spec!r}") from None
            if not math.isfinite(tau) or tau < 0:
                raise SpecError(f"tau must be a finite non-negative number in {spec!r}")
        else:
            h = _positive_int(value, "h", spec)
    if rules.k_ports and k is None:
        raise SpecError(
            f"{kind.value} needs its ports per node, k=N (for example {kind.value}:k=2): {spec!r}"
        )
    return Model(kind, packet_cap, calls, capacity, tau, h, k)


def _taking(flag: str) -> str:
    """The names of the models whose rules have ``flag`` (for the spec parser's errors)."""
    return " and ".join(kind.value for kind, rules in MODELS.items() if getattr(rules, flag))
