"""pytest runs the Markdown pages' examples (the README's and ``docs/*.md``, by
``--doctest-glob='*.md'``) in a scratch folder, where the files they write land and
``docs/examples`` is the repository's sample files.

The tests of the DRAT path ask for the ``dratify`` fixture: they are skipped where the
optional extra ``drat`` is not installed (``pip install -e ".[dev]"`` installs it), and so
are the examples that run a DRAT check (:data:`DRAT_EXAMPLES`).

A suite started in the background by a script (``nohup``, ``&``) inherits SIGINT ignored,
and so would every process it starts: the tests of Ctrl-C would see it ignored. Ctrl-C is
given back its Python default, as in a terminal, before any test."""

from __future__ import annotations

import signal
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).parent

if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)


@pytest.fixture(autouse=True)
def _markdown_in_a_scratch_folder(
    request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch
) -> None:
    if Path(str(getattr(request.node, "path", ""))).suffix != ".md":
        return
    scratch: Path = request.getfixturevalue("tmp_path")
    (scratch / "docs").mkdir()
    (scratch / "docs" / "examples").symlink_to(ROOT / "docs" / "examples")
    monkeypatch.chdir(scratch)


#: the docstring examples that check a DRAT proof with dratify
DRAT_EXAMPLES = frozenset(
    {"gossipcert.proofs.checkers.check_proof", "gossipcert.proofs.hinted.check_hinted"}
)


@pytest.fixture(scope="session")
def dratify() -> ModuleType:
    """dratify, the DRAT path's checker (the optional extra ``drat``); without it the test
    is skipped (before any fixture of a narrower scope is built)."""
    return pytest.importorskip("dratify")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    try:
        import dratify  # noqa: F401
    except ImportError:
        skip = pytest.mark.skip(reason="needs the optional extra 'drat' (dratify)")
        for item in items:
            if item.name in DRAT_EXAMPLES:
                item.add_marker(skip)
