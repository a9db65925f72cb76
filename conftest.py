"""pytest runs the Markdown pages' examples (the README's and ``docs/*.md``, by
``--doctest-glob='*.md'``) in a scratch folder, where the files they write land and
``docs/examples`` is the repository's sample files."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).parent


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
