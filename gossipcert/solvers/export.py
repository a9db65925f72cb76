"""Export of the time-expanded model for a fixed horizon (DIMACS CNF and OPB), and the way
back: an external solver's model decoded into a schedule.

The exported formula is the one :mod:`gossipcert.proofs.refutation` builds (every demand required
after round ``R``), so any external SAT or pseudo-Boolean solver can decide "``R`` rounds
suffice". In OPB, at-most-one groups and cardinality bounds stay native constraints instead
of their CNF encodings; both formats number the variables alike (``x12`` in OPB is ``12`` in
DIMACS).

A model found by an outside solver is read by :func:`parse_solver_output` and turned into a
schedule by :func:`decode_model`, which rebuilds the same encoding (the instance, horizon and
options of the export) and reads its call variables. The schedule is only as good as the
verifier says: the caller replays it with :func:`gossipcert.simulate.simulate`, so a model of
another formula (other options, another horizon) is caught there, never trusted.

References
----------
.. [1] O. Roussel and V. Manquinho, "Input/output format and solver requirements for the
   competitions of pseudo-Boolean solvers" (the OPB format and its ``v x1 -x2`` lines).
.. [2] The SAT competition's output format: ``s SATISFIABLE`` and ``v`` lines of literals
   ended by ``0`` (https://satcompetition.github.io/, "Output format").
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterator

from gossipcert.encodings import EncodingOptions
from gossipcert.encodings.cnf import cnf_of
from gossipcert.encodings.formula import Formula
from gossipcert.errors import SolverOutputError, SpecError
from gossipcert.instance import Instance
from gossipcert.schedule import Schedule
from gossipcert.solvers.standalone import standalone_encoding, standalone_formula

FORMATS = ("dimacs", "opb")

#: the most constraints an exported formula may have (a few dozen bytes each in memory and
#: in the file: about 2 GiB)
MAX_EXPORT_ITEMS = 1 << 25

#: horizons up to this are exported without an estimate first
ESTIMATE_FROM = 64


def _term(lit: int, coef: int) -> str:
    return f"{coef:+d} {'~' if lit < 0 else ''}x{abs(lit)}"


def formula_to_opb(formula: Formula, comment: str = "") -> str:
    """OPB text of a formula: clauses as ``>= 1``, at-most-one and ``<= k`` as ``>= -k``,
    ``>= k`` as itself."""
    lines: list[str] = []
    nvars = 0
    for item in formula.items:
        lits = item[1]
        nvars = max([nvars, *(abs(x) for x in lits)])
        if item[0] == "or":
            lines.append(" ".join(_term(x, 1) for x in lits) + " >= 1 ;" if lits else "0 >= 1 ;")
        elif item[0] == "ge":
            lines.append(" ".join(_term(x, 1) for x in lits) + f" >= {item[2]} ;")
        else:
            k = 1 if item[0] == "amo" else item[2]
            lines.append(" ".join(_term(x, -1) for x in lits) + f" >= {-k} ;")
    head = [f"* #variable= {nvars} #constraint= {len(lines)}"]
    head += [f"* {c}" for c in comment.splitlines()]
    return "\n".join(head + lines) + "\n"


def estimated_items(instance: Instance, rounds: int, options: EncodingOptions) -> int:
    """About how many constraints the formula of ``rounds`` rounds has: those of
    ``ESTIMATE_FROM // 4`` rounds, plus the growth of its last round for every further one.

    Parameters
    ----------
    instance : Instance
    rounds : int
    options : EncodingOptions

    Returns
    -------
    int
        The estimate (exact up to ``ESTIMATE_FROM // 4`` rounds). It is low where rounds
        still grow after round 16, on graphs of diameter above 16 (about 0.7 of the true
        size for gossip on path:40 at 70 rounds), so the cap of :func:`export` is a guard
        against absurd horizons, not an exact limit.
    """
    base = ESTIMATE_FROM // 4
    if rounds <= base:
        return len(standalone_formula(instance, rounds, options)[0].items)
    last = len(standalone_formula(instance, base, options)[0].items)
    before = len(standalone_formula(instance, base - 1, options)[0].items)
    return last + (rounds - base) * max(last - before, 1)


def check_export_size(instance: Instance, rounds: int, options: EncodingOptions) -> None:
    """Refuse a horizon above ``ESTIMATE_FROM`` whose formula would have more than
    ``MAX_EXPORT_ITEMS`` constraints (:func:`estimated_items`), before building it.

    Raises
    ------
    SpecError
    """
    if rounds > ESTIMATE_FROM:
        items = estimated_items(instance, rounds, options)
        if items > MAX_EXPORT_ITEMS:
            raise SpecError(
                f"the formula of {rounds} rounds would have about {items:,} constraints (at "
                f"most {MAX_EXPORT_ITEMS:,} are exported); ask for fewer rounds"
            )


def export(instance: Instance, rounds: int, fmt: str, options: EncodingOptions) -> str:
    """The formula "``rounds`` rounds suffice" for ``instance`` in format ``fmt``.

    Raises
    ------
    SpecError
        A formula too large to export (:func:`check_export_size`).
    """
    check_export_size(instance, rounds, options)
    enc, gens = standalone_encoding(instance, rounds, options)
    return _render(instance, rounds, fmt, options, enc.formula, gens)


def _render(
    instance: Instance,
    rounds: int,
    fmt: str,
    options: EncodingOptions,
    formula: Formula,
    gens: int,
) -> str:
    """The text of :func:`export` for a standalone formula built once (DIMACS numbers the
    auxiliary variables of ``formula``; OPB leaves them unnumbered)."""
    comment = (
        f"gossipcert: {instance.graph.graph.get('spec', 'graph')} {instance.model.spec()} "
        f"{instance.problem.spec()} in {rounds} rounds; encoding {options.to_json()}"
    )
    if fmt == "dimacs":
        cnf = cnf_of(formula, rounds, options, gens)
        return f"c {comment}\nc sha256 of the lines below: {cnf.sha256()}\n" + cnf.dimacs()
    return formula_to_opb(formula, comment)


#: status words of solvers' outputs (``s ...`` lines, or MiniSat's first line), by verdict
_SAT_WORDS = ("SATISFIABLE", "SAT", "OPTIMUM FOUND")
_NO_MODEL_WORDS = ("UNSATISFIABLE", "UNSAT", "UNKNOWN", "INDET", "INDETERMINATE", "TIMEOUT")

#: one literal: ``12``, ``-12``, ``x12``, ``-x12`` or ``~x12`` (ASCII digits, at most 18)
_LITERAL = re.compile(r"^(-|~)?(x?)([0-9]{1,18})$")


def parse_solver_output(text: str) -> dict[int, bool]:
    """The assignment in a SAT or pseudo-Boolean solver's output.

    Read are the SAT competition's format (``c`` comments, an ``s`` status line, ``v`` lines
    of literals ending with ``0``), MiniSat's result file (``SAT`` then one line of
    literals) and the pseudo-Boolean competition's ``v x1 -x2`` lines. Variables the output
    does not name are left out of the result (false, to :func:`decode_model`).

    Parameters
    ----------
    text : str

    Returns
    -------
    dict
        ``{variable: value}`` for every variable named.

    Raises
    ------
    SolverOutputError
        The solver reports no model (unsatisfiable, unknown), a line is not part of this
        format, a variable is given both values, or no literal is found at all.

    Examples
    --------
    >>> parse_solver_output("c kissat\\ns SATISFIABLE\\nv 1 -2\\nv 3 0\\n")
    {1: True, 2: False, 3: True}
    >>> parse_solver_output("s OPTIMUM FOUND\\nv x1 -x2\\n")
    {1: True, 2: False}
    """
    values: dict[int, bool] = {}
    for number, raw in enumerate(text.lstrip("\ufeff").splitlines(), 1):
        tokens = raw.split()
        if not tokens or tokens[0] in ("c", "o"):
            continue  # blank, comment, or a pseudo-Boolean solver's objective line
        if tokens[0] == "s" or " ".join(tokens).upper() in _SAT_WORDS + _NO_MODEL_WORDS:
            word = " ".join(tokens[1:] if tokens[0] == "s" else tokens)
            if word.upper() in _SAT_WORDS:
                continue
            raise SolverOutputError(
                f"the solver answered {word!r}: there is no model to decode (an outside "
                "solver's 'unsatisfiable' is not checked evidence; gossipcert solve proves "
                "lower bounds with a checked proof)"
            )
        for token in tokens[1:] if tokens[0] == "v" else tokens:
            match = _LITERAL.match(token)
            if match is None:
                raise SolverOutputError(
                    f"line {number}: {token!r} is not a literal (expected the output of a SAT "
                    "or pseudo-Boolean solver: 's SATISFIABLE' and 'v 1 -2 ... 0' lines)"
                )
            var = int(match.group(3))
            if var == 0:
                continue
            value = match.group(1) is None
            if values.setdefault(var, value) != value:
                raise SolverOutputError(f"line {number}: variable {var} is given both values")
    if not values:
        raise SolverOutputError("no model in the solver's output (no literals found)")
    return values


def _lines(text: str, comment: str) -> Iterator[str]:
    """The lines of a formula without its comments (lines starting with ``comment``) and
    blank lines, each with its spacing normalised."""
    for line in text.splitlines():
        tokens = line.split()
        if tokens and not tokens[0].startswith(comment):
            yield " ".join(tokens)


def _shape(text: str) -> str:
    """The size line of an exported formula: DIMACS ``p cnf V C`` or OPB's ``* #variable=``
    comment (empty when neither is found in the first lines)."""
    for line in text.split("\n", 4)[:4]:
        line = " ".join(line.split())
        if line.startswith("p cnf") or line.startswith("* #variable="):
            return line
    return ""


def check_formula(instance: Instance, rounds: int, options: EncodingOptions, text: str) -> str:
    """Check that ``text`` is the formula :func:`export` writes for these arguments.

    The format is read from the text (OPB starts with ``*``, DIMACS with ``c`` or ``p``).
    Comments (the header naming the graph and model as they were written) and spacing are
    not compared: the same formula exported as ``complete:5`` or ``fully-connected:5``, or
    with CRLF line ends or tabs, passes; every constraint must be the same, in the same
    order.

    Returns
    -------
    str
        The format, ``dimacs`` or ``opb``.

    Raises
    ------
    SolverOutputError
        The text is another formula (another instance, horizon or options), with the sizes
        of both when they differ.

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> inst = parse_instance("ring:4", "telephone", "gossip")
    >>> opts = EncodingOptions.for_search()
    >>> check_formula(inst, 2, opts, export(inst, 2, "opb", opts))
    'opb'
    >>> try:
    ...     check_formula(inst, 3, opts, export(inst, 2, "dimacs", opts))
    ... except SolverOutputError as exc:
    ...     print(str(exc).split(": ")[1].split(";")[0])
    it has 'p cnf 35 75', these give 'p cnf 51 111'
    """
    check_export_size(instance, rounds, options)
    enc, gens = standalone_encoding(instance, rounds, options)
    return _compare_formula(instance, rounds, options, text, enc.formula, gens)


def _compare_formula(
    instance: Instance,
    rounds: int,
    options: EncodingOptions,
    text: str,
    formula: Formula,
    gens: int,
) -> str:
    """:func:`check_formula` against a standalone formula built once."""
    fmt = "opb" if text.lstrip().startswith("*") else "dimacs"
    expected = _render(instance, rounds, fmt, options, formula, gens)
    comment = "*" if fmt == "opb" else "c"
    pairs = itertools.zip_longest(_lines(text, comment), _lines(expected, comment))
    if all(a == b for a, b in pairs):
        return fmt
    have, want = _shape(text), _shape(expected)
    sizes = f": it has {have!r}, these give {want!r}" if have != want else ""
    raise SolverOutputError(
        "the formula file is not the one export writes for "
        f"{instance.graph.graph.get('spec', 'graph')}, {instance.model.spec()}, "
        f"{instance.problem.spec()} in {rounds} rounds with these options{sizes}; give "
        "decode the graph, --rounds, --model, --problem, --chunks, --strict and --counting "
        "of the export"
    )


def decode_model(
    instance: Instance,
    rounds: int,
    options: EncodingOptions,
    values: dict[int, bool],
    formula_text: str | None = None,
) -> Schedule:
    """The schedule that a model of the exported formula describes (not yet verified).

    Parameters
    ----------
    instance : Instance
    rounds : int
        The horizon of the export.
    options : EncodingOptions
        The export's options (``EncodingOptions.for_search(strict=..., counting=...)``).
    values : dict
        The model, e.g. from :func:`parse_solver_output`; unnamed variables are false.
    formula_text : str, optional
        The exported file: first checked to be this formula (:func:`check_formula`), with
        the encoding built once for both.

    Returns
    -------
    Schedule
        To be replayed by :func:`gossipcert.simulate.simulate` before any use.

    Raises
    ------
    SolverOutputError
        The model names variables the formula does not have (another formula's model), or
        ``formula_text`` is another formula.
    SpecError
        A formula too large to have been exported (:func:`check_export_size`).

    Examples
    --------
    >>> from pysat.solvers import Solver
    >>> from gossipcert.solvers.standalone import standalone_cnf
    >>> from gossipcert.instance import parse_instance
    >>> from gossipcert.simulate import simulate
    >>> inst = parse_instance("ring:4", "telephone", "gossip")
    >>> opts = EncodingOptions.for_search()
    >>> with Solver(bootstrap_with=standalone_cnf(inst, 2, opts).clauses) as s:
    ...     _ = s.solve()
    ...     model = {abs(x): x > 0 for x in s.get_model()}
    >>> simulate(inst, decode_model(inst, 2, opts, model)).ok
    True
    """
    check_export_size(instance, rounds, options)
    enc, gens = standalone_encoding(instance, rounds, options)
    fmt = None
    if formula_text is not None:
        fmt = _compare_formula(instance, rounds, options, formula_text, enc.formula, gens)
    if fmt != "dimacs":  # the DIMACS comparison has numbered them already
        enc.formula.cnf_since(0)  # numbers the auxiliary variables of the exported CNF
    top = enc.formula.vpool.top
    beyond = [v for v in values if v > top]
    if beyond:
        raise SolverOutputError(
            f"the model names variable {max(beyond)}, but the formula of {rounds} rounds has "
            f"{top} variables: was it exported for another instance, horizon or options?"
        )
    return enc.decode(rounds, lambda var: values.get(var, False))
