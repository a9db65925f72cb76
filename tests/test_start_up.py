"""Start-up: a trivial command loads no library it does not use (OR-Tools' CP-SAT, scipy,
pandas, numba, matplotlib are loaded where they are used), and the first Python API call of
a process counts its own imports in its time limit. Times are measured by
``benchmarks/codebase_measures.py``, not here."""

from __future__ import annotations

import json
import subprocess
import sys

#: libraries of a second or so between them, none needed by a solve the closed forms settle
HEAVY = ("ortools.sat", "scipy", "pandas", "numba", "matplotlib", "dask")

_COMMAND = f"""
import json, sys
sys.argv = ["gossipcert", *json.loads(sys.argv[1])]
from gossipcert.__main__ import main
try:
    main()
except SystemExit as exc:
    code = exc.code
heavy = {HEAVY!r}
loaded = list(sys.modules)
found = sorted({{h for h in heavy for m in loaded if m == h or m.startswith(h + ".")}})
print(json.dumps({{"exit": code, "loaded": found}}))
"""


def _loaded(args: list[str]) -> dict[str, object]:
    out = subprocess.run(
        [sys.executable, "-c", _COMMAND, json.dumps(args)],
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_a_trivial_solve_loads_no_heavy_library() -> None:
    found = _loaded(["solve", "path:4", "--problem", "broadcast:0", "-q"])
    assert found == {"exit": 0, "loaded": []}


def test_the_probe_sees_a_heavy_library_when_one_is_used() -> None:
    # distances on a graph of 40,000 arcs are searched by scipy: the probe above can fail
    found = _loaded(["graph", "path:20000"])
    assert found == {"exit": 0, "loaded": ["scipy"]}


_FIRST_CALL = """
import json, sys, time
import gossipcert
from gossipcert import command_start

imported = {}
class Watch:  # notes when the search's module is first looked for
    def find_spec(self, name, path=None, target=None):
        imported.setdefault(name, time.monotonic())
        return None

sys.meta_path.insert(0, Watch())
origins = []
def stop(origin):
    origins.append(origin)
    raise SystemExit

command_start.limits_from = stop
for _ in range(2):
    t = time.monotonic()
    try:
        gossipcert.solve("ring:4", time_limit=10)  # the first: loads the API and the search
    except SystemExit:
        pass
    origins.append(t)
print(json.dumps([imported["gossipcert.watchdog"], *origins]))
"""


def test_the_first_call_counts_its_imports_in_its_limit() -> None:
    """The API and the search's modules are loaded by the first ``gossipcert.solve(...)``:
    its limit counts from before them, never from after them (the call then overran its
    limit by the seconds of the imports); a later call's limit counts from the call."""
    out = subprocess.run(
        [sys.executable, "-c", _FIRST_CALL], capture_output=True, text=True, check=True
    )
    searched, first, first_call, second, second_call = json.loads(out.stdout)
    assert first_call <= first < searched  # the origin: in the call, before the imports
    assert second >= second_call  # a later call counts from the call
