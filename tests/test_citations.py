"""Docstrings and comments cite what a reader of the repository can open: the papers by name
and the repository's own documents (``docs/``), never a document that is not in it."""

from __future__ import annotations

import re
from pathlib import Path

import gossipcert

ROOT = Path(gossipcert.__file__).parent.parent
#: a section of a design document, or a file of that name, that the repository does not hold
FOREIGN = re.compile(r"design section|design\.md")


def _sources() -> list[Path]:
    folders = ("gossipcert", "tests", "docs", "benchmarks")
    found = [
        p for d in folders for p in (ROOT / d).rglob("*") if p.suffix in {".py", ".md", ".rst"}
    ]
    return [p for p in found if p != Path(__file__)]


def test_no_source_cites_a_document_outside_the_repository() -> None:
    sources = _sources()
    assert any(p.name == "transfer.py" for p in sources)  # the walk found the package
    cited = [
        f"{p.relative_to(ROOT)}:{n}"
        for p in sources
        for n, line in enumerate(p.read_text().splitlines(), 1)
        if FOREIGN.search(line)
    ]
    assert cited == []


def test_the_docs_that_docstrings_cite_exist() -> None:
    named = set()
    for p in (ROOT / "gossipcert").rglob("*.py"):
        named |= set(re.findall(r"docs/([\w-]+\.(?:md|rst))", p.read_text()))
    assert "time.md" in named and "models.rst" in named
    assert sorted(n for n in named if not (ROOT / "docs" / n).exists()) == []
