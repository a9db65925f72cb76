"""Sphinx configuration of gossipcert's documentation (built with warnings as errors)."""

import sys
from pathlib import Path

from gossipcert._version import __version__

sys.path.insert(0, str(Path(__file__).parent))  # model_list.py, the models' directive

project = "gossipcert"
author = "the gossipcert authors"
copyright = "2026, the gossipcert authors (MIT License)"  # noqa: A001  (Sphinx's name)
release = version = __version__
extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.doctest",
    "sphinx.ext.viewcode",
    "numpydoc",
    "myst_parser",
    "model_list",
]
source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
numpydoc_show_class_members = False
numpydoc_validation_checks = {"PR01", "RT01", "EX01"}  # parameters, returns, examples
# classes: their fields are documented as Attributes, which PR01 does not read
numpydoc_validation_exclude = {
    r"\.SolveStatus(\.\w+)?$",
    r"\.Result$",
    r"\.BoundsResult$",
    r"\.Verdict$",
    r"\.TimeReport$",
    r"\.Report$",
    r"\.CheckReport$",
    r"\.TecclJudgement$",
}
autodoc_typehints = "none"
exclude_patterns = ["_build"]
html_theme = "alabaster"
nitpicky = False
