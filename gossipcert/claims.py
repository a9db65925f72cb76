"""What a paper claims about an instance, and whether a certified answer agrees with it.

A sweep file (:mod:`gossipcert.tables.sweeps`) may attach a claim to a group of instances::

    [[group]]
    graphs = ["ccc:{n}"]
    sizes = [3, 4]
    models = ["telephone"]
    problems = ["gossip"]

    [group.claim]
    source = "Table 5"                 # where the paper says it
    lower = {3 = 7, 4 = 9}             # the paper's lower bound (LB)
    upper = {3 = 10, 4 = 10}           # a former upper bound (UB)
    heuristic = {3 = 7, 4 = 9}         # rounds of the paper's own schedule (HR)
    note = "..."                       # shown under the table

Each of ``value`` (the paper says this *is* the optimum), ``lower``, ``upper`` and
``heuristic`` is an integer, a table from the group's sizes to integers (sizes that are
missing have no claim), or a formula in the variables below, evaluated by a small
arithmetic interpreter (no names other than these, no attribute access, no calls other than
the functions listed):

* ``n``: number of nodes that hold or demand information (processors), ``N``: all nodes,
* ``k``: the group's size (what ``{n}`` stands for), ``r``: the radius, ``d``: the diameter,
* ``p``: the model's packet cap (``None`` for unbounded), ``c``: its calls per round,
* functions ``log2`` (exact for powers of 2, else real), ``ceil``, ``floor``, ``min``,
  ``max``, ``abs``; operators ``+ - * / // % **``, comparisons, ``and``/``or``/``not`` and
  ``a if cond else b``.

Verdicts (:func:`judge`), with ``R*`` the certified optimum or ``[lo, hi]`` the bracket:

``agrees``
    Every claim holds: ``value == R*``, ``lower <= R*``, ``R* <= upper`` and
    ``R* <= heuristic``, and the paper's upper values are reached (``R* == upper`` or
    ``R* == heuristic`` where given).
``better``
    Every claim holds and ``R*`` is below the paper's best schedule (``upper`` or
    ``heuristic``): a gap the paper left open is closed by a certified schedule.
``differs``
    A claim is contradicted by certified evidence: ``R* != value``, ``R* < lower`` (the
    paper's lower bound is wrong for this instance, or stated under other hypotheses), or a
    certified lower bound above the paper's ``upper``/``heuristic``. The page's note says why.
``open``
    Not certified and nothing contradicted yet (the bracket contains every claim).
``-``
    No claim for this instance.
"""

from __future__ import annotations

import ast
import math
import operator
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from gossipcert.errors import SpecError
from gossipcert.statuses import SolveStatus

#: the claim kinds a sweep's ``[group.claim]`` may give, in display order
CLAIM_KINDS: tuple[str, ...] = ("value", "lower", "upper", "heuristic")
_LABELS = {"value": "=", "lower": "LB", "upper": "UB", "heuristic": "HR"}
_CLAIM_KEYS = set(CLAIM_KINDS) | {"source", "note"}

#: the largest exponent a claim formula may raise a number (other than 0, 1, -1) to
MAX_EXPONENT = 1000

#: the most bits a whole number raised to a power in a claim formula may have
MAX_POWER_BITS = 100_000


def _power(base: Any, exponent: Any) -> Any:
    """``base ** exponent``, refusing a power whose result would take unbounded time or
    memory: an exponent outside ``-MAX_EXPONENT..MAX_EXPONENT``, or a whole-number result of
    more than ``MAX_POWER_BITS`` bits (``((2**1000)**1000)**1000`` nests within the first
    limit)."""
    if abs(base) not in (0, 1):
        if abs(exponent) > MAX_EXPONENT:
            # an ArithmeticError: evaluate_formula names the formula
            raise OverflowError(f"exponent {exponent} is outside -{MAX_EXPONENT}..{MAX_EXPONENT}")
        if isinstance(base, int) and abs(exponent) * abs(base).bit_length() > MAX_POWER_BITS:
            raise OverflowError(f"the power would have more than {MAX_POWER_BITS} bits")
    return operator.pow(base, exponent)


_BINARY: dict[type, Callable[[Any, Any], Any]] = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv,
    ast.Mod: operator.mod,
    ast.Pow: _power,
}
_COMPARE: dict[type, Callable[[Any, Any], bool]] = {
    ast.Eq: operator.eq,
    ast.NotEq: operator.ne,
    ast.Lt: operator.lt,
    ast.LtE: operator.le,
    ast.Gt: operator.gt,
    ast.GtE: operator.ge,
}


def _log2(x: float) -> float:
    """``log2`` that is exact on powers of two (so ``2 * log2(n)`` stays an integer)."""
    if isinstance(x, int) and x > 0 and x & (x - 1) == 0:
        return x.bit_length() - 1
    return math.log2(x)


_FUNCTIONS: dict[str, Callable[..., Any]] = {
    "log2": _log2,
    "ceil": math.ceil,
    "floor": math.floor,
    "min": min,
    "max": max,
    "abs": abs,
}
VARIABLES: tuple[str, ...] = ("n", "N", "k", "r", "d", "p", "c")


def evaluate_formula(text: str, variables: Mapping[str, Any]) -> Any:
    """Evaluate a claim formula (see the module docstring for what it may contain).

    Parameters
    ----------
    text : str
        The formula, e.g. ``"n - 1 if n % 2 == 0 else n"``.
    variables : mapping
        Values of the variables it may name.

    Returns
    -------
    int or float

    Raises
    ------
    SpecError
        The formula does not parse, or uses a name, an operator or a construct outside the
        small language.

    Examples
    --------
    >>> evaluate_formula("n + 2 * log2(n) - 2", {"n": 8})
    12
    >>> evaluate_formula("2 * (n - 1) if n % 2 == 0 else 2 * n", {"n": 7})
    14
    """
    try:
        tree = ast.parse(text, mode="eval")
    except SyntaxError as exc:
        raise SpecError(f"claim formula {text!r} does not parse: {exc.msg}") from None

    def ev(node: ast.AST) -> Any:
        if isinstance(node, ast.Expression):
            return ev(node.body)
        if isinstance(node, ast.Constant) and type(node.value) in (int, float):
            return node.value
        if isinstance(node, ast.Name):
            if node.id not in variables:
                raise SpecError(f"claim formula {text!r}: unknown name {node.id!r}")
            return variables[node.id]
        if isinstance(node, ast.BinOp) and type(node.op) in _BINARY:
            return _BINARY[type(node.op)](ev(node.left), ev(node.right))
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub | ast.UAdd | ast.Not):
            value = ev(node.operand)
            if isinstance(node.op, ast.Not):
                return not value
            return -value if isinstance(node.op, ast.USub) else value
        if isinstance(node, ast.Compare) and all(type(o) in _COMPARE for o in node.ops):
            left = ev(node.left)
            for op, right_node in zip(node.ops, node.comparators, strict=True):
                right = ev(right_node)
                if not _COMPARE[type(op)](left, right):
                    return False
                left = right
            return True
        if isinstance(node, ast.BoolOp):
            values = [ev(v) for v in node.values]
            return all(values) if isinstance(node.op, ast.And) else any(values)
        if isinstance(node, ast.IfExp):
            return ev(node.body) if ev(node.test) else ev(node.orelse)
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id in _FUNCTIONS
            and not node.keywords
        ):
            return _FUNCTIONS[node.func.id](*(ev(a) for a in node.args))
        raise SpecError(f"claim formula {text!r}: {ast.dump(node)[:40]}... is not allowed")

    try:
        return ev(tree)
    except SpecError:
        raise
    except (ArithmeticError, TypeError, ValueError) as exc:
        raise SpecError(f"claim formula {text!r} cannot be evaluated: {exc}") from None


@dataclass(frozen=True)
class Claim:
    """The claims of one ``[group.claim]`` table (unevaluated)."""

    source: str
    note: str = ""
    terms: dict[str, Any] = field(default_factory=dict)  # kind -> int, formula or {size: int}

    def values(self, size: str | None, variables: Mapping[str, Any]) -> dict[str, int]:
        """The claimed integers for one instance (kinds without a value are left out).

        Raises
        ------
        SpecError
            A formula is malformed or does not give an integer.
        """
        out: dict[str, int] = {}
        for kind, term in self.terms.items():
            if isinstance(term, dict):
                if size is None or size not in term:
                    continue
                value: Any = term[size]
            elif isinstance(term, str):
                value = evaluate_formula(term, variables)
            else:
                value = term
            if isinstance(value, float) and value.is_integer():
                value = int(value)
            if isinstance(value, bool) or not isinstance(value, int):
                raise SpecError(f"claim {kind} of {self.source!r} is not an integer: {value!r}")
            out[kind] = value
        return out


def parse_claim(data: Any, where: str) -> Claim:
    """Check a ``[group.claim]`` table and return it as a :class:`Claim`.

    Raises
    ------
    SpecError
        Unknown keys, no source, or a term that is neither an integer, a formula nor a table
        of integers.

    Examples
    --------
    >>> parse_claim({"source": "Table 5", "lower": {"3": 7}}, "x").terms
    {'lower': {'3': 7}}
    """
    if not isinstance(data, dict):
        raise SpecError(f"{where}: 'claim' must be a table")
    unknown = set(data) - _CLAIM_KEYS
    if unknown:
        raise SpecError(f"{where}: unknown claim key(s) {', '.join(sorted(unknown))}")
    source = data.get("source")
    if not isinstance(source, str) or not source:
        raise SpecError(f"{where}: a claim needs a 'source' (where the paper says it)")
    note = data.get("note", "")
    if not isinstance(note, str):
        raise SpecError(f"{where}: the claim's 'note' must be text")
    terms: dict[str, Any] = {}
    for kind in CLAIM_KINDS:
        if kind not in data:
            continue
        term = data[kind]
        if isinstance(term, dict):
            if not all(isinstance(v, int) and not isinstance(v, bool) for v in term.values()):
                raise SpecError(f"{where}: claim {kind!r} must map sizes to integers")
            term = {str(key): v for key, v in term.items()}
        elif isinstance(term, bool) or not isinstance(term, int | str):
            raise SpecError(f"{where}: claim {kind!r} must be an integer, a formula or a table")
        elif isinstance(term, str):
            evaluate_formula(term, dict.fromkeys(VARIABLES, 4))  # fails early on bad syntax
        terms[kind] = term
    if not terms:
        raise SpecError(f"{where}: a claim needs at least one of {', '.join(CLAIM_KINDS)}")
    return Claim(source, note, terms)


def describe_values(values: Mapping[str, int]) -> str:
    """``"LB 7 / UB 10 / HR 7"``: the claimed values in display order.

    Examples
    --------
    >>> describe_values({"heuristic": 7, "lower": 7})
    'LB 7 / HR 7'
    """
    return " / ".join(f"{_LABELS[k]} {values[k]}" for k in CLAIM_KINDS if k in values)


def judge(values: Mapping[str, int], status: str | None, low: Any, high: Any) -> str:
    """The verdict on a paper's claims given our answer (see the module docstring).

    Parameters
    ----------
    values : mapping
        Claim kind -> claimed integer.
    status : str or None
        ``"optimal"``, ``"feasible"``, ``"unknown"``, ``"not-run"`` or ``"error"``.
    low, high : int or None
        Our certified lower bound and our best verified schedule's rounds (both equal to the
        optimum when ``status == "optimal"``).

    Returns
    -------
    str
        ``agrees``, ``better``, ``differs``, ``open`` or ``-``.

    Examples
    --------
    >>> judge({"lower": 11, "upper": 15, "heuristic": 13}, "optimal", 11, 11)
    'better'
    >>> judge({"value": 9}, "optimal", 10, 10)
    'differs'
    >>> judge({"value": 9}, "feasible", 8, 10)
    'open'
    """
    if not values:
        return "-"
    lo = None if low is None or _missing(low) else int(low)
    hi = None if high is None or _missing(high) else int(high)
    if status not in (SolveStatus.OPTIMAL, SolveStatus.FEASIBLE, SolveStatus.UNKNOWN) or lo is None:
        return "open"
    ups = [values[k] for k in ("upper", "heuristic") if k in values]
    if "value" in values:
        v = values["value"]
        if v < lo or (hi is not None and v > hi):
            return "differs"
    if "lower" in values and hi is not None and hi < values["lower"]:
        return "differs"
    if any(u < lo for u in ups):
        return "differs"
    if status != SolveStatus.OPTIMAL:
        return "open"
    if ups and lo < min(ups):
        return "better"
    return "agrees"


def _missing(value: Any) -> bool:
    try:
        return bool(value != value)  # NaN, or pandas' NA (which raises in bool())
    except TypeError:
        return True
