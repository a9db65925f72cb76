"""A store of solve results and certificates, keyed by the instance's canonical form.

Two instances that differ only by a renaming of the nodes (``ring:3*path:2`` and the same
graph read from a file, or a broadcast from node 0 and one from node 3 of a ring) have the
same optimum, so they share one entry. The key is the SHA-256 of

- the graph in nauty's canonical labelling [1]_, the nodes coloured by their role (router or
  processor, and the root of a broadcast, scatter or gather); when the edge capacities are not
  all equal, every edge is subdivided by a node coloured by its capacity, so that the labelling
  respects capacities too;
- the model's canonical spec (:meth:`gossipcert.instance.Model.spec`);
- the problem's kind (the root is already a colour). A custom problem names packets and
  nodes, so its key is taken on its graph record and content as given (no renaming).

A directory holds, per key, ``<stem>.json`` (the entry: the solve outcome and the table rows
of every graph spec that mapped to the key) and, when the optimum is certified,
``<stem>.cert.json`` (a certificate that ``gossipcert check`` re-derives). Every file is
written atomically — to a temporary file in the same directory, then :func:`os.replace` — so
a sweep killed at any moment leaves every entry either whole or absent.

References
----------
.. [1] B. D. McKay and A. Piperno, "Practical graph isomorphism, II", J. Symbolic
   Computation 60, 2014 (nauty, canonical labelling).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import tempfile
from pathlib import Path
from typing import Any

import pynauty

from gossipcert import graphs
from gossipcert.errors import GossipcertError
from gossipcert.graphs.records import graph_record
from gossipcert.instance import Instance, ProblemKind, resolve_roots

ENTRY_FORMAT = "gossipcert-store/1"


def certificate_text(cert: dict[str, Any]) -> str:
    """A certificate as JSON text."""
    return json.dumps(cert, indent=1) + "\n"


def canonical_form(instance: Instance) -> dict[str, Any]:
    """The instance up to a renaming of its nodes, as a JSON-ready dict.

    Parameters
    ----------
    instance : Instance

    Returns
    -------
    dict
        ``{"n", "edges", "colours", "model", "problem"}`` with the nodes (and, for unequal
        capacities, the subdivision nodes) in canonical order.

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> a = canonical_form(parse_instance("ring:6", "telephone", "broadcast:0"))
    >>> b = canonical_form(parse_instance("ring:6", "telephone", "broadcast:4"))
    >>> a == b
    True
    >>> a == canonical_form(parse_instance("path:6", "telephone", "broadcast:0"))
    False
    """
    g = instance.graph
    model = instance.model.spec()
    if instance.problem.kind is ProblemKind.CUSTOM:
        packets, holdings, demands = instance.problem.custom or ((), (), ())
        return {
            "graph": graph_record(g),
            "model": model,
            "problem": {
                "packets": [repr(p) for p in packets],
                "holdings": [[str(k), [repr(p) for p in v]] for k, v in holdings],
                "demands": [[str(k), [repr(p) for p in v]] for k, v in demands],
            },
        }
    roots: set[int] = set()
    if instance.problem.root is not None:
        roots = set(resolve_roots(g, instance.problem.root))
    n = instance.n
    colour: list[tuple[str, int]] = [
        ("router" if graphs.is_router(g, v) else ("root" if v in roots else "node"), 0)
        for v in range(n)
    ]
    caps = {graphs.capacity(g, u, v) for u, v in g.edges}
    slow = graphs.latencies(g)
    pairs: list[tuple[int, int]] = []
    uniform: int | None = None
    if len(caps) <= 1 and not slow:
        uniform = caps.pop() if caps else 1
        pairs = [(u, v) for u, v in g.edges]
    else:
        for u, v in sorted((min(e), max(e)) for e in g.edges):
            w = len(colour)
            lat = slow.get((u, v), 1)
            # an edge's latency is part of the instance like its capacity
            colour.append(("edge" if lat == 1 else f"edge:latency={lat}", graphs.capacity(g, u, v)))
            pairs += [(w, u), (w, v)]
    classes = sorted(set(colour))
    cells = [{v for v, c in enumerate(colour) if c == k} for k in classes]
    total = len(colour)
    adjacency: dict[int, list[int]] = {v: [] for v in range(total)}
    for u, v in pairs:
        adjacency[u].append(v)
        adjacency[v].append(u)
    pg = pynauty.Graph(
        total,
        directed=False,
        adjacency_dict={v: sorted(a) for v, a in adjacency.items()},
        vertex_coloring=cells,
    )
    order = pynauty.canon_label(pg)
    pos = [0] * total
    for i, v in enumerate(order):
        pos[v] = i
    edges = sorted(sorted((pos[u], pos[v])) for u, v in pairs)
    return {
        "n": total,
        "edges": edges,
        "colours": [list(colour[v]) for v in order],
        "capacity": uniform,
        "model": model,
        "problem": instance.problem.kind.value,
    }


def instance_key(instance: Instance) -> str:
    """The SHA-256 (hex) of :func:`canonical_form`.

    Examples
    --------
    >>> from gossipcert.instance import parse_instance
    >>> k = instance_key(parse_instance("ring:3*path:2", "telephone", "gossip"))
    >>> k == instance_key(parse_instance("path:2*ring:3", "telephone", "gossip"))
    True
    """
    text = json.dumps(canonical_form(instance), sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9]+", "-", text).strip("-") or "x"


def entry_stem(instance: Instance, key: str) -> str:
    """A file stem a person can read: model, problem kind, size, and the key's first digits."""
    kind = instance.problem.kind.value
    return f"{_slug(instance.model.spec())}_{kind}_n{instance.n}_{key[:16]}"


def refuse_special_file(path: Path) -> None:
    """Raise GossipcertError when ``path`` exists and is not a regular file (a device such as
    ``/dev/null``, a named pipe, a folder): replacing it by a new file would remove it."""
    if path.exists() and not path.is_file():
        raise GossipcertError(f"cannot write {path}: it exists and is not a regular file")


def atomic_write(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` through a temporary file in the same folder and
    :func:`os.replace`, so that readers see the old file or the new one, never a part.

    Raises
    ------
    GossipcertError
        The folder cannot be written, or ``path`` is something other than a regular file (a
        device such as ``/dev/null``, a pipe, a folder), which the replacement would remove.
    """
    refuse_special_file(path)
    try:
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
        try:
            os.fchmod(fd, 0o644)  # mkstemp makes the file private; a result is not
            with os.fdopen(fd, "w") as fh:
                fh.write(text)
                fh.flush()
                os.fsync(fh.fileno())
            os.replace(tmp, path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
    except OSError as exc:
        raise GossipcertError(f"cannot write {path}: {exc.strerror or exc}") from None


class Store:
    """A folder of entries and certificates (see the module docstring).

    Parameters
    ----------
    root : str or Path
        Created if missing.
    """

    def __init__(self, root: str | Path) -> None:
        self.root = Path(root)
        try:
            self.root.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise GossipcertError(f"cannot create store {root}: {exc.strerror or exc}") from None
        self._index: dict[str, Path] | None = None

    def _paths(self) -> dict[str, Path]:
        if self._index is None:
            self._index = {}
            for p in self.root.glob("*.json"):
                if not p.name.endswith(".cert.json"):
                    self._index[p.stem.rsplit("_", 1)[-1]] = p
        return self._index

    def get(self, key: str) -> dict[str, Any] | None:
        """The entry of ``key``, or None. An unreadable entry counts as absent."""
        path = self._paths().get(key[:16])
        if path is None or not path.exists():
            return None
        try:
            data = json.loads(path.read_text())
        except (OSError, json.JSONDecodeError):
            return None
        if not isinstance(data, dict) or data.get("format") != ENTRY_FORMAT:
            return None
        return data if data.get("key") == key else None

    def put(
        self,
        key: str,
        stem: str,
        entry: dict[str, Any],
        certificate: dict[str, Any] | None = None,
    ) -> Path:
        """Write an entry (and its certificate first, so an entry never names a missing file).

        Returns
        -------
        Path
            The entry's file.
        """
        entry = {"format": ENTRY_FORMAT, "key": key, **entry}
        if certificate is not None:
            cert_name = f"{stem}.cert.json"
            atomic_write(self.root / cert_name, certificate_text(certificate))
            entry["certificate"] = cert_name
        path = self.root / f"{stem}.json"
        atomic_write(path, json.dumps(entry, indent=1, sort_keys=True) + "\n")
        self._paths()[key[:16]] = path
        return path

    def certificates(self) -> list[Path]:
        """Every certificate file in the store, sorted by name."""
        return sorted(self.root.glob("*.cert.json"))
