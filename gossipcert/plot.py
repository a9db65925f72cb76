"""Pictures of schedules: round by round, and the growth of knowledge.

:func:`draw_rounds` draws one small panel per round, as in the papers' figures: the graph in
light grey, every transmission of the round as a coloured arrow from sender to receiver
(labelled with its packet when it carries one or two), and each node shaded by the share of
its demand it knows after the round. :func:`draw_knowledge` plots, per node and round, how
many demanded packets the node knows, and the share of all demands met after each round.

Layouts follow the graph's family (the part of ``G.graph["spec"]`` before the colon): a
circle for rings, a line for paths, the grid for meshes and tori, levels for fat trees, the
cube projection for hypercubes and cube-connected cycles. A networkx graph whose nodes are
all pairs of numbers (``(row, column)``, as networkx's grid, torus and product generators
name them) is drawn on those coordinates. Any other graph gets a Kamada-Kawai layout
(spring layout above 200 nodes), with a fixed seed.

Only schedules that pass :func:`gossipcert.simulate.simulate` are drawn: the drawing
functions refuse any other with :class:`~gossipcert.errors.ScheduleFormatError`.
"""

from __future__ import annotations

import math
import os
from pathlib import Path
from typing import Any

import matplotlib
import networkx as nx
from matplotlib.figure import Figure
from matplotlib.patches import FancyArrowPatch
from matplotlib.ticker import MaxNLocator

from gossipcert import graphs
from gossipcert.errors import GossipcertError, ScheduleFormatError
from gossipcert.instance import Instance
from gossipcert.schedule import Schedule, json_name
from gossipcert.simulate import simulate

Positions = dict[int, tuple[float, float]]
FORMATS = (".png", ".svg")
_ARROW = "#d62728"
_EDGE = "#c8c8c8"


def family(g: nx.Graph) -> str:
    """The family name of a graph built from a spec (``"ring"`` for ``ring:8``), else ``""``.

    Examples
    --------
    >>> family(graphs.from_spec("ring:8")), family(graphs.from_spec("ring:3*path:2"))
    ('ring', '')
    """
    spec = str(g.graph.get("spec") or "")
    if "*" in spec or graphs.looks_like_file(spec):
        return ""
    return spec.split(":", 1)[0]


def _cube_point(i: int, k: int) -> tuple[float, float]:
    """Node ``i`` of the ``k``-cube: bits 0 and 1 pick the corner of a square, bit 2 shrinks
    it (the classic picture of the 3-cube as two nested squares), and every further bit
    moves the whole 3-cube sideways (4-cube: two 3-cubes side by side), alternating
    horizontally and vertically."""
    x = 1.0 if i & 1 else -1.0
    y = (1.0 if i >> 1 & 1 else -1.0) if k > 1 else 0.0
    scale = 1.0 if i >> 2 & 1 or k < 3 else 2.5
    x, y = x * scale, y * scale
    for j in range(3, k):
        if i >> j & 1:
            m = j - 3
            shift = 7.5 * 2 ** (m // 2)
            x, y = (x + shift, y) if m % 2 == 0 else (x, y + shift)
    return x, y


def _coords(g: nx.Graph) -> dict[int, Any] | None:
    """The nodes' ``coords``; a graph rebuilt from a certificate has none, so they are taken
    from the family's graph when it has the same edges. None when that fails."""
    coords = {v: g.nodes[v].get("coords") for v in g}
    if all(c is not None for c in coords.values()):
        return coords
    try:
        fresh = graphs.from_spec(str(g.graph.get("spec")))
    except GossipcertError:
        return None
    same = {frozenset(e) for e in fresh.edges} == {frozenset(e) for e in g.edges}
    if not same or fresh.number_of_nodes() != g.number_of_nodes():
        return None
    return {v: fresh.nodes[v].get("coords") for v in fresh}


def _named_coords(g: nx.Graph) -> Positions | None:
    """``(column, -row)`` of each node of a networkx graph named by pairs of numbers
    ``(row, column)``; None for any other graph."""
    names = g.graph.get("nodes")
    if not names or not all(
        isinstance(x, tuple)
        and len(x) == 2
        and all(isinstance(c, int | float) and not isinstance(c, bool) for c in x)
        for x in names
    ):
        return None
    return {v: (float(names[v][1]), -float(names[v][0])) for v in g}


def graph_title(g: nx.Graph) -> str:
    """The graph's name in a picture's title: its spec, or for a graph given from Python
    ``"a graph of N nodes"``.

    Examples
    --------
    >>> graph_title(graphs.from_spec("ring:8"))
    'ring:8'
    """
    return str(g.graph.get("spec") or f"a graph of {g.number_of_nodes()} nodes")


def layout(g: nx.Graph) -> Positions:
    """Node positions for ``g`` (see the module docstring).

    Examples
    --------
    >>> pos = layout(graphs.from_spec("mesh:2x3"))
    >>> pos[4]
    (1.0, -1.0)
    >>> from gossipcert.graphs.convert import from_networkx
    >>> layout(from_networkx(nx.grid_2d_graph(2, 3, periodic=True)))[4]
    (1.0, -1.0)
    """
    named = _named_coords(g)
    if named is not None:
        return named
    fam = family(g)
    n = g.number_of_nodes()
    coords = _coords(g) if fam in ("mesh", "torus", "fattree", "ccc") else {}
    if coords is None:
        fam = ""
    if fam == "ring":
        return {v: (math.sin(2 * math.pi * v / n), math.cos(2 * math.pi * v / n)) for v in range(n)}
    if fam == "path":
        return {v: (float(v), 0.0) for v in range(n)}
    if fam in ("mesh", "torus"):
        assert coords is not None
        return {v: (float(coords[v][1]), -float(coords[v][0])) for v in g}
    if fam == "fattree":
        assert coords is not None
        leaves = sum(1 for v in g if coords[v][0] == 0)
        pos: Positions = {}
        for v in g:
            level, x = coords[v]
            width = 2**level
            pos[v] = ((x + 0.5) * width - 0.5 * 1, float(level) * max(1.0, leaves / 6))
        return pos
    if fam == "hypercube":
        k = max(1, n.bit_length() - 1)
        return {v: _cube_point(v, k) for v in g}
    if fam == "ccc":
        assert coords is not None
        k = len({coords[v][1] for v in g})
        cycles: dict[int, list[tuple[float, int]]] = {}
        for v in g:
            i, j = coords[v]
            cx, cy = _cube_point(i, k)
            nx_, ny_ = _cube_point(i ^ (1 << j), k)
            cycles.setdefault(i, []).append((math.atan2(ny_ - cy, nx_ - cx), v))
        pos = {}
        for i, members in cycles.items():
            # the cycle's nodes evenly around the cube point, each turned towards its
            # cross edge as far as the even spacing allows
            members.sort()
            step = 2 * math.pi / len(members)
            sx = sum(math.cos(a - r * step) for r, (a, _) in enumerate(members))
            sy = sum(math.sin(a - r * step) for r, (a, _) in enumerate(members))
            base = math.atan2(sy, sx)
            cx, cy = _cube_point(i, k)
            radius = 0.45 + 0.05 * k
            for r, (_, v) in enumerate(members):
                angle = base + r * step
                pos[v] = (cx + radius * math.cos(angle), cy + radius * math.sin(angle))
        return pos
    if n <= 200:
        raw = nx.kamada_kawai_layout(g)
    else:
        raw = nx.spring_layout(g, seed=1)
    return {v: (float(p[0]), float(p[1])) for v, p in raw.items()}


def knowledge_by_round(instance: Instance, schedule: Schedule) -> list[list[int]]:
    """Knowledge bitmasks of every node before round 1 and after each round.

    The schedule must already have passed the verifier; this only replays it.
    """
    know = list(instance.holdings)
    out = [list(know)]
    for rnd in schedule.rounds:
        new = list(know)
        for tr in rnd:
            packets = know[tr.sender] if tr.packets is None else tr.packets & know[tr.sender]
            for r in tr.receivers:
                new[r] |= packets
        know = new
        out.append(list(know))
    return out


def _verified(instance: Instance, schedule: Schedule) -> int:
    rep = simulate(instance, schedule)
    if not rep.ok:
        why = rep.errors[0].message if rep.errors else f"{len(rep.unmet)} demands unmet"
        raise ScheduleFormatError(f"the schedule does not pass the verifier ({why}); not drawn")
    assert rep.rounds is not None
    return rep.rounds


def _packet_label(instance: Instance, mask: int | None) -> str | None:
    if mask is None:
        return None
    names = [
        json_name(instance.packet_names[p]) for p in range(instance.n_packets) if mask >> p & 1
    ]
    if not 1 <= len(names) <= 2:
        return None
    return ",".join("/".join(map(str, x)) if isinstance(x, list) else str(x) for x in names)


def _share(instance: Instance, know: list[int], v: int) -> float:
    need = instance.demands[v]
    if not need:
        return 1.0
    return (know[v] & need).bit_count() / need.bit_count()


def draw_rounds(
    instance: Instance,
    schedule: Schedule,
    first: int = 1,
    last: int | None = None,
    columns: int | None = None,
    title: str | None = None,
) -> Figure:
    """One panel per round with the round's transmissions highlighted.

    Parameters
    ----------
    instance : Instance
    schedule : Schedule
        Must pass the verifier.
    first, last : int
        The rounds to draw (default: all).
    columns : int, optional
        Panels per row (default: about the square root of the number of panels; at most
        the number of panels).
    title : str, optional

    Returns
    -------
    matplotlib.figure.Figure

    Raises
    ------
    ScheduleFormatError
        The schedule does not pass the verifier.
    GossipcertError
        The round range is empty or outside the schedule.
    """
    rounds = _verified(instance, schedule)
    last = rounds if last is None else last
    if not 1 <= first <= last <= rounds:
        raise GossipcertError(f"rounds {first}-{last} are not within 1-{rounds}")
    g = instance.graph
    pos = layout(g)
    know = knowledge_by_round(instance, schedule)
    count = last - first + 1
    # more columns than panels would only add empty ones (and 10**11 of them fill the memory)
    cols = min(count, columns) if columns else max(1, min(count, math.ceil(math.sqrt(count * 1.5))))
    rows = math.ceil(count / cols)
    xs = [p[0] for p in pos.values()]
    ys = [p[1] for p in pos.values()]
    span_x = (max(xs) - min(xs)) or 1.0
    span_y = (max(ys) - min(ys)) or 1.0
    aspect = min(2.5, max(0.4, span_y / span_x))
    panel = 3.2 if g.number_of_nodes() <= 24 else 4.2
    fig = Figure(figsize=(panel * cols, panel * aspect * rows + 0.6))
    axes = fig.subplots(rows, cols, squeeze=False)
    small = g.number_of_nodes() <= 32
    for idx, ax in enumerate(axes.flat):
        ax.set_axis_off()
        if idx >= count:
            continue
        _draw_round(ax, instance, schedule, pos, first + idx, know[first + idx], small)
    fig.suptitle(
        title
        or f"{graph_title(g)} · {instance.model.spec()} · {instance.problem.spec()}"
        f" — {rounds} rounds (verified)",
        fontsize=11,
    )
    fig.text(
        0.5,
        0.005,
        "red arrow: a transmission (label: its packet), two heads: a call both ways; "
        "node shade: share of the node's demand known after the round (white: none, blue: all); "
        "grey square: router",
        ha="center",
        va="bottom",
        fontsize=8,
        color="#444444",
    )
    fig.tight_layout(rect=(0, 0.03, 1, 1))
    return fig


def _draw_round(
    ax: Any,
    instance: Instance,
    schedule: Schedule,
    pos: dict[Any, Any],
    t: int,
    after: list[int],
    small: bool,
) -> None:
    """The panel of round ``t``: the graph, its nodes shaded by what they know ``after`` the
    round, and the round's transmissions as arrows (labelled on ``small`` graphs)."""
    g = instance.graph
    cmap = matplotlib.colormaps["Blues"]
    nx.draw_networkx_edges(g, pos, ax=ax, edge_color=_EDGE, width=1.0)
    procs = [v for v in g if not graphs.is_router(g, v)]
    routers = [v for v in g if graphs.is_router(g, v)]
    nx.draw_networkx_nodes(
        g,
        pos,
        nodelist=procs,
        ax=ax,
        node_size=260 if small else 90,
        node_color=[cmap(0.05 + 0.5 * _share(instance, after, v)) for v in procs],
        edgecolors="#333333",
        linewidths=0.8,
    )
    if routers:
        nx.draw_networkx_nodes(
            g,
            pos,
            nodelist=routers,
            ax=ax,
            node_shape="s",
            node_size=200 if small else 70,
            node_color="#eeeeee",
            edgecolors="#777777",
            linewidths=0.8,
        )
    if small:
        labels = {v: str(graphs.node_ref(g, v)) for v in g}
        nx.draw_networkx_labels(g, pos, labels, ax=ax, font_size=7)
    arcs = {(tr.sender, r): tr.packets for tr in schedule.rounds[t - 1] for r in tr.receivers}
    for (u, v), packets in arcs.items():
        both = (v, u) in arcs
        if both and u > v:
            continue  # a call both ways: one double-headed arrow
        label = _packet_label(instance, packets) if small else None
        if both:
            back = _packet_label(instance, arcs[v, u]) if small else None
            label = f"{label}⇄{back}" if label and back else None
        _arrow(ax, pos[u], pos[v], label, both)
    ax.set_title(f"round {t}", fontsize=10)
    ax.margins(0.12)


def _arrow(
    ax: Any, a: tuple[float, float], b: tuple[float, float], label: str | None, both: bool
) -> None:
    arrow = FancyArrowPatch(
        a,
        b,
        arrowstyle="<|-|>" if both else "-|>",
        mutation_scale=11,
        color=_ARROW,
        linewidth=2.2 if both else 1.8,
        connectionstyle="arc3,rad=0" if both else "arc3,rad=0.18",
        shrinkA=7,
        shrinkB=7,
        zorder=3,
    )
    ax.add_patch(arrow)
    if label:
        mx, my = (a[0] + b[0]) / 2, (a[1] + b[1]) / 2
        dx, dy = b[0] - a[0], b[1] - a[1]
        norm = math.hypot(dx, dy) or 1.0
        off = 0.18 * norm * 0.5
        ax.text(
            mx + off * dy / norm,
            my - off * dx / norm,
            label,
            fontsize=6.5,
            color=_ARROW,
            ha="center",
            va="center",
            zorder=4,
            bbox={"boxstyle": "round,pad=0.1", "fc": "white", "ec": "none", "alpha": 0.8},
        )


def draw_knowledge(instance: Instance, schedule: Schedule, title: str | None = None) -> Figure:
    """Knowledge growth: per node and round, the demanded packets known; and the share of all
    demands met after each round.

    Raises
    ------
    ScheduleFormatError
        The schedule does not pass the verifier.
    """
    rounds = _verified(instance, schedule)
    g = instance.graph
    know = knowledge_by_round(instance, schedule)[: rounds + 1]
    nodes = [v for v in g if instance.demands[v]]
    grid = [[(k[v] & instance.demands[v]).bit_count() for k in know] for v in nodes]
    total = sum(d.bit_count() for d in instance.demands) or 1
    met = [100 * sum((k[v] & instance.demands[v]).bit_count() for v in g) / total for k in know]
    height = max(3.0, min(12.0, 0.22 * len(nodes) + 1.5))
    fig = Figure(figsize=(11, height))
    ax1, ax2 = fig.subplots(1, 2, gridspec_kw={"width_ratios": [3, 2]})
    im = ax1.imshow(grid, aspect="auto", cmap="Blues", interpolation="nearest")
    ax1.set_xlabel("after round")
    ax1.set_ylabel("node")
    step = max(1, len(nodes) // 30)
    ax1.set_yticks(range(0, len(nodes), step))
    ax1.set_yticklabels([str(graphs.node_ref(g, nodes[i])) for i in range(0, len(nodes), step)])
    ax1.set_xticks(range(0, rounds + 1, max(1, rounds // 12)))
    fig.colorbar(im, ax=ax1, label="demanded packets known")
    ax2.plot(range(rounds + 1), met, marker="o", color=_ARROW)
    ax2.set_xlabel("after round")
    ax2.set_ylabel("demands met (%)")
    ax2.set_ylim(0, 105)
    ax2.grid(alpha=0.3)
    fig.suptitle(
        title
        or f"knowledge growth: {graph_title(g)} · {instance.model.spec()} · "
        f"{instance.problem.spec()}",
        fontsize=11,
    )
    fig.tight_layout()
    return fig


def save(fig: Figure, path: str | Path) -> None:
    """Write ``fig`` as PNG or SVG (by the file's suffix).

    Raises
    ------
    GossipcertError
        Another suffix, the file cannot be written, or it exists and is not a regular file.
    """
    p = Path(path)
    if p.suffix.lower() not in FORMATS:
        raise GossipcertError(f"draw writes .png or .svg, not {p.suffix or 'no suffix'!r}")
    from gossipcert.store import refuse_special_file

    refuse_special_file(p)
    tmp = p.with_name(f".{p.name}.tmp")
    try:
        fig.savefig(tmp, format=p.suffix[1:].lower(), dpi=130, bbox_inches="tight")
        os.replace(tmp, p)
    except OSError as exc:
        tmp.unlink(missing_ok=True)
        raise GossipcertError(f"cannot write {p}: {exc.strerror or exc}") from None


def draw_table(df: Any, title: str | None = None) -> Figure:
    """Optimum against bounds per family: one panel per graph family × model × problem with
    at least two sizes, rounds against the number of nodes.

    Parameters
    ----------
    df : pandas.DataFrame
        A table of :func:`gossipcert.tables.results.table` (columns ``graph``, ``model``,
        ``problem``, ``n``, ``lower_bound``, ``heuristic``, ``status``, ``optimum``,
        ``lower``, ``upper``).
    title : str, optional

    Returns
    -------
    matplotlib.figure.Figure

    Raises
    ------
    GossipcertError
        No family appears with two sizes or more.
    """
    data = df.copy()
    data["family"] = [
        "" if "*" in str(g) or graphs.looks_like_file(str(g)) else str(g).split(":", 1)[0]
        for g in data["graph"]
    ]
    data = data[data["family"] != ""]
    groups = [
        (key, part.sort_values("n"))
        for key, part in data.groupby(["family", "model", "problem"], sort=True)
        if part["n"].nunique() >= 2
    ]
    if not groups:
        raise GossipcertError("no graph family appears with two sizes or more; nothing to plot")
    cols = min(4, len(groups))
    rows = math.ceil(len(groups) / cols)
    fig = Figure(figsize=(3.6 * cols, 2.9 * rows + 0.6))
    axes = fig.subplots(rows, cols, squeeze=False)
    for ax in axes.flat[len(groups) :]:
        ax.set_axis_off()
    for ax, ((fam, model, problem), part) in zip(axes.flat, groups, strict=False):
        n = part["n"].astype(float)
        ax.plot(
            n, part["lower_bound"].astype(float), "--", color="#7f7f7f", label="closed-form lower"
        )
        heur = part["heuristic"].astype(float)
        ax.plot(n, heur, "x", color="#ff7f0e", markersize=7, zorder=4, label="matching heuristic")
        done = part[part["status"] == "optimal"]
        ax.plot(
            done["n"].astype(float),
            done["optimum"].astype(float),
            "o",
            color="#1f77b4",
            label="certified optimum",
        )
        open_ = part[part["status"].isin(["feasible", "unknown"])]
        for r in open_.itertuples(index=False):
            hi = r.upper if r.upper is not None and r.upper == r.upper else r.lower
            ax.vlines(float(r.n), float(r.lower), float(hi), color=_ARROW, linewidth=3)
        if len(open_):
            ax.plot([], [], color=_ARROW, linewidth=3, label="open: [lower, upper]")
        ax.set_title(f"{fam} · {model} · {problem}", fontsize=9)
        ax.set_xlabel("nodes n", fontsize=8)
        ax.set_ylabel("rounds", fontsize=8)
        ax.tick_params(labelsize=7)
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        ax.yaxis.set_major_locator(MaxNLocator(integer=True))
        ax.grid(alpha=0.3)
    handles, labels = axes.flat[0].get_legend_handles_labels()
    seen = dict(zip(labels, handles, strict=False))
    for ax in axes.flat[1 : len(groups)]:
        for h, lab in zip(*reversed(ax.get_legend_handles_labels()), strict=False):
            seen.setdefault(h, lab)
    fig.legend(list(seen.values()), list(seen.keys()), loc="lower center", ncol=4, fontsize=8)
    fig.suptitle(title or "certified optima against bounds", fontsize=11)
    fig.tight_layout(rect=(0, 0.5 / (2.9 * rows + 0.6), 1, 1))
    return fig
