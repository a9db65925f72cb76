"""The documentation's notebook example runs and says what the command line says."""

from __future__ import annotations

import runpy
from pathlib import Path

import matplotlib

EXAMPLE = Path(__file__).parent.parent / "docs" / "examples" / "grid_notebook.py"


def test_the_notebook_example_certifies_and_agrees_with_the_cli(capsys) -> None:
    backend = matplotlib.get_backend()
    env = runpy.run_path(str(EXAMPLE))
    out = capsys.readouterr().out
    res, answer = env["res"], env["answer"]
    assert res.status.value == "optimal" and res.certified
    assert (answer["status"], answer["optimum"]) == ("optimal", res.optimum)
    assert env["report"].ok is True
    assert "check: holds" in out
    # the figure is a Figure with one panel per round, and the backend was left alone
    assert len(env["fig"].axes) >= res.optimum
    assert matplotlib.get_backend() == backend
