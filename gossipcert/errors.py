"""The one exception hierarchy of gossipcert.

Every error that a user's input can cause derives from :class:`GossipcertError`; the
command line turns each into one line on standard error and exit status 2.
"""

from __future__ import annotations


class GossipcertError(Exception):
    """Base class of every error gossipcert raises on purpose."""


class SpecError(GossipcertError, ValueError):
    """A graph, model or problem specification string that cannot be parsed."""


class GraphError(GossipcertError, ValueError):
    """A graph file that cannot be read, or a graph unfit for the task (e.g. disconnected)."""


class ScheduleFormatError(GossipcertError, ValueError):
    """A schedule file that cannot be read, or that names nodes or packets that do not exist."""


class InstanceError(GossipcertError, ValueError):
    """An instance whose demands cannot be met at all (e.g. a disconnected graph)."""


class SolverError(GossipcertError, RuntimeError):
    """A solver back-end that failed or is unavailable."""


class SolverOutputError(GossipcertError, ValueError):
    """An external solver's output that holds no model to decode (unreadable, or the solver
    answered unsatisfiable or unknown), or a model naming variables beyond the formula."""


class CertificateError(GossipcertError, ValueError):
    """A certificate file that cannot be read."""


class UnsupportedModelError(GossipcertError, ValueError):
    """A model or option that the exact encodings do not cover."""


class NotApplicableError(GossipcertError, ValueError):
    """A construction, heuristic or bound whose hypothesis the instance does not meet
    (wrong graph family, model or problem)."""


class HeuristicError(GossipcertError, RuntimeError):
    """A heuristic that gave up before meeting every demand (the message says after how many
    rounds, and which bound it had derived from the instance)."""


class FormatError(GossipcertError, ValueError):
    """Another tool's file (MSCCL XML, SCCL or TE-CCL JSON, a TACCL or TE-CCL topology)
    that cannot be read: malformed, unsafe (entities, DTDs), of another tool, or naming
    something its own executor refuses to load (an unknown step type, a negative offset)."""


class MissingDependencyError(GossipcertError, RuntimeError):
    """A path that needs an optional dependency which is not installed (the message names
    the extra that installs it, e.g. ``pip install 'gossipcert[drat]'``)."""
