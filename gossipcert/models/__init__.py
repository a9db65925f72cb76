"""The communication models, one module each, and their registry.

A model is one :class:`~gossipcert.models.base.PortRules` object in its own module; adding a
model is one module here plus one line in :data:`MODELS` (see CONTRIBUTING.md).

Examples
--------
>>> [str(kind) for kind in MODELS]
['telephone', 'half-duplex', 'single-port', 'multicast', 'all-port', 'k-port']
>>> rules_of(ModelKind.MULTICAST).reversible
False
"""

from __future__ import annotations

from gossipcert.errors import UnsupportedModelError
from gossipcert.models.all_port import ALL_PORT
from gossipcert.models.base import ModelKind, PortRules
from gossipcert.models.half_duplex import HALF_DUPLEX
from gossipcert.models.k_port import K_PORT
from gossipcert.models.multicast import MULTICAST
from gossipcert.models.single_port import SINGLE_PORT
from gossipcert.models.telephone import TELEPHONE

__all__ = ["MODELS", "ModelKind", "PortRules", "require_linear_cost", "rules_of"]

#: every model, by kind, in the order of the design's table
MODELS: dict[ModelKind, PortRules] = {
    rules.kind: rules
    for rules in (TELEPHONE, HALF_DUPLEX, SINGLE_PORT, MULTICAST, ALL_PORT, K_PORT)
}


def rules_of(kind: ModelKind) -> PortRules:
    """The rules of the model ``kind``.

    Parameters
    ----------
    kind : ModelKind

    Returns
    -------
    PortRules

    Examples
    --------
    >>> rules_of(ModelKind.TELEPHONE).two_way_calls
    True
    """
    return MODELS[kind]


def require_linear_cost(kind: ModelKind) -> None:
    """Refuse a model whose linear cost (steps ``S``) is not defined.

    The one test of ``solve --objective steps|cost`` and of ``check`` on a steps certificate
    (:attr:`PortRules.linear_cost`).

    Parameters
    ----------
    kind : ModelKind

    Raises
    ------
    UnsupportedModelError
        The model has arc capacities (all-port).

    Examples
    --------
    >>> require_linear_cost(ModelKind.MULTICAST)
    >>> require_linear_cost(ModelKind.ALL_PORT)
    Traceback (most recent call last):
    ...
    gossipcert.errors.UnsupportedModelError: linear cost (steps) is defined for the one-port \
and multicast models, not all-port
    """
    if not rules_of(kind).linear_cost:
        raise UnsupportedModelError(
            f"linear cost (steps) is defined for the one-port and multicast models, not {kind}"
        )
