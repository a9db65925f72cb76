"""The ``model-list`` directive: the communication models, read from their registry.

Each model of :data:`gossipcert.models.MODELS` is listed with its spec name and the first
two paragraphs of the docstring of the module that defines its
:class:`~gossipcert.models.base.PortRules` (its one-line title and its rules), so that a
model added as CONTRIBUTING.md says appears in the documentation without editing it.
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil
from types import ModuleType

from docutils import nodes
from docutils.statemachine import StringList
from sphinx.application import Sphinx
from sphinx.util.docutils import SphinxDirective

import gossipcert.models
from gossipcert.models import MODELS
from gossipcert.models.base import PortRules


def _module_of(rules: PortRules) -> ModuleType:
    """The module of :mod:`gossipcert.models` that defines ``rules``."""
    for info in pkgutil.iter_modules(gossipcert.models.__path__):
        if info.name in ("base", "spec"):
            continue  # what a model is, and the spec parser: they define no model
        module = importlib.import_module(f"gossipcert.models.{info.name}")
        if any(value is rules for value in vars(module).values()):
            return module
    raise LookupError(f"no module of gossipcert.models defines the rules of {rules.kind}")


def model_entries() -> list[str]:
    """The reStructuredText of the list: one definition per model, in registry order."""
    lines: list[str] = []
    for kind, rules in MODELS.items():
        doc = inspect.getdoc(_module_of(rules)) or rules.summary
        paragraphs = doc.split("\n\n")[:2]
        lines.append(f"``{kind.value}``")
        for i, paragraph in enumerate(paragraphs):
            if i:
                lines.append("")
            lines.extend(f"   {line}" for line in paragraph.splitlines())
    return lines


class ModelList(SphinxDirective):
    """``.. model-list::``: a definition list of the registered models."""

    def run(self) -> list[nodes.Node]:
        container = nodes.container()
        self.state.nested_parse(StringList(model_entries(), "model-list"), 0, container)
        return container.children


def setup(app: Sphinx) -> dict[str, bool]:
    """Register the directive."""
    app.add_directive("model-list", ModelList)
    return {"parallel_read_safe": True}
