"""A notebook's session with gossipcert: a graph of one's own, a certified optimum, its
certificate re-checked, the schedule drawn, and the same answer from the command line.

Run it as a script (``python docs/examples/grid_notebook.py``) or cell by cell in Jupyter,
where the last cell's figure shows inline (gossipcert never changes matplotlib's backend).
The test suite runs it (``tests/test_docs_example.py``).
"""

# %% A 3x4 grid with string node names and one edge removed
import json
import subprocess
import sys
import tempfile
from pathlib import Path

import networkx as nx

import gossipcert
from gossipcert.plot import draw_rounds

G = nx.relabel_nodes(nx.grid_2d_graph(3, 4), lambda rc: f"r{rc[0]}c{rc[1]}")
G.remove_edge("r0c0", "r0c1")

# %% Certify the fewest telephone rounds for gossip, within 30 s
res = gossipcert.solve(G, "telephone", "gossip", time_limit=30)
print(res.status.value, res.optimum)
print("lower bound:", res.lower, res.lower_evidence["kind"], res.lower_evidence.get("source", ""))
print("schedule:", res.upper, "rounds, from", res.upper_source)
for t, rnd in enumerate(res.named_rounds(), start=1):
    print(f"round {t}:", ", ".join(f"{s}-{d[0]}" for s, d, _ in rnd))

# %% Write the certificate and re-check it from scratch
folder = Path(tempfile.mkdtemp())
cert = res.write_certificate(folder / "grid-cert.json")
report = gossipcert.check(cert)
print("check:", "holds" if report.ok else "fails")

# %% The same answer from the command line, on the graph written as an edge list
edges = folder / "grid.edgelist"
edges.write_text("".join(f"{u} {v}\n" for u, v in G.edges))
cli = subprocess.run(
    [sys.executable, "-m", "gossipcert", "solve", str(edges), "--json", "--quiet", "-t", "30"],
    capture_output=True,
    text=True,
    check=False,
)
answer = json.loads(cli.stdout)
print("command line:", answer["status"], answer["optimum"])

# %% Draw the schedule (a matplotlib Figure: shown inline in a notebook)
fig = draw_rounds(res.instance, res.schedule, title="gossip on a 3x4 grid less one edge")
fig  # noqa: B018  (a notebook cell shows its last value)
