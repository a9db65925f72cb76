"""Verify every MSCCL XML algorithm under a folder and print a Markdown table.

Usage: .venv/bin/python benchmarks/msccl_files.py FOLDER [--time-limit S] [--topology T]
       [--mutants DIR]

(Run it with the Python of the environment gossipcert is installed in, the project's
``.venv``; another Python stops with ``ModuleNotFoundError: gossipcert``.)

One row per file: collective, ranks, valid or not (with the first violations), the rounds
by the as-soon-as-possible rule, the model checked (all-port on ``fully-connected:N`` unless
``--topology``), the certified optimum for the same collective and chunks (or the bracket
found within the time limit) and the gap, the round trip (a valid algorithm turned into a
gossipcert schedule, written by gossipcert's own MSCCL XML writer and verified
again: it must be valid with the same rounds), and the seconds spent reading and verifying
(the optimum's search and the round trip apart).

``--mutants DIR`` also writes broken copies of each file to DIR (never to the folder) and
verifies them: a receive dropped (the last step of a thread block that receives and that
nothing depends on), a dependency removed (the first step with ``depid``; after ``nop`` steps
the executor's loader refuses the file, which the reader reports), a receive turned
into a receive-reduce of the same slot (for reductions: the reduced chunk folded in twice),
a thread block's send peer changed. Each must come out invalid with the violation named;
the script exits 1 if one does not.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path
from xml.etree.ElementTree import Element, tostring

from defusedxml.ElementTree import fromstring

from gossipcert import graphs
from gossipcert.errors import GossipcertError
from gossipcert.formats.msccl_xml import read_msccl_xml
from gossipcert.formats.verdict import (
    Verdict,
    reduction_schedule_from_transfers,
    schedule_from_transfers,
    topology_graph,
    verify_algorithm,
)
from gossipcert.formats.writers import msccl_xml_from_schedule
from gossipcert.instance import make_instance, parse_model, parse_problem

#: mutation name -> the violation rules that report it
EXPECTED = {
    "drop-step": {"unmatched-send", "unmatched-receive", "missing", "wrong-result"},
    "no-dependency": {"unwritten-read", "race", "wrong-result", "double-count"},
    "reduce-twice": {"double-count", "unwritten-read", "wrong-result"},
    "peer-changed": {"unmatched-send", "unmatched-receive"},
}


def _steps(tb: Element) -> list[Element]:
    return [s for s in tb if s.tag == "step"]


def _gpus(root: Element) -> list[Element]:
    return [g for g in root if g.tag == "gpu"]


def drop_step(root: Element) -> str | None:
    for gpu in _gpus(root):
        for tb in gpu:
            steps = _steps(tb)
            if steps and steps[-1].get("type") == "r" and steps[-1].get("hasdep") == "0":
                tb.remove(steps[-1])
                return f"GPU {gpu.get('id')} tb {tb.get('id')}: last receive dropped"
    return None


def no_dependency(root: Element) -> str | None:
    for gpu in _gpus(root):
        for tb in gpu:
            for st in _steps(tb):
                if st.get("depid", "-1") != "-1" and st.get("type") != "nop":
                    st.set("depid", "-1")
                    st.set("deps", "-1")
                    where = f"GPU {gpu.get('id')} tb {tb.get('id')} step {st.get('s')}"
                    return f"{where}: dependency removed"
    return None


def reduce_twice(root: Element) -> str | None:
    reduction = root.get("coll") in ("allreduce", "reducescatter", "reduce")
    wanted = ("rcs", "r") if reduction else ("r",)
    for kind in wanted:
        for gpu in _gpus(root):
            for tb in gpu:
                for st in _steps(tb):
                    if st.get("type") == kind:
                        st.set("type", "rrcs" if kind == "rcs" else "rrc")
                        st.set("srcbuf", st.get("dstbuf", "o"))
                        st.set("srcoff", st.get("dstoff", "0"))
                        where = f"GPU {gpu.get('id')} tb {tb.get('id')} step {st.get('s')}"
                        return f"{where}: {kind} became {st.get('type')} of its own slot"
    return None


def peer_changed(root: Element) -> str | None:
    n = int(root.get("ngpus", "0"))
    for gpu in _gpus(root):
        rank = int(gpu.get("id", "0"))
        for tb in gpu:
            send = int(tb.get("send", "-1"))
            if send >= 0 and n > 2:
                new = next(p for p in range(n) if p not in (rank, send))
                tb.set("send", str(new))
                return f"GPU {rank} tb {tb.get('id')}: send peer {send} -> {new}"
    return None


MUTATIONS = {
    "drop-step": drop_step,
    "no-dependency": no_dependency,
    "reduce-twice": reduce_twice,
    "peer-changed": peer_changed,
}


def write_mutants(files: list[Path], folder: Path) -> list[tuple[Path, str, str]]:
    """Broken copies of ``files`` in ``folder``: (path, mutation, what changed)."""
    folder.mkdir(parents=True, exist_ok=True)
    out = []
    for path in files:
        for name, mutate in MUTATIONS.items():
            root = fromstring(path.read_bytes())
            what = mutate(root)
            if what is None:
                continue
            target = folder / f"{path.stem}--{name}.xml"
            target.write_bytes(tostring(root))
            out.append((target, name, what))
    return out


def _optimum_cell(data: dict) -> str:
    opt = data["optimum"]
    if not opt.get("available"):
        return f"unavailable ({opt.get('reason')})"
    if opt.get("optimum") is not None:
        return f"{opt['optimum']} ({'certified' if opt.get('certified') else 'solver'})"
    return (
        f"[{opt.get('lower_bound')}, {opt.get('upper_bound')}] (time limit; lower: "
        f"{opt.get('lower_source')}; upper: {opt.get('upper_source')})"
    )


def _gap_cell(data: dict) -> str:
    gap = data["gap"]
    if gap is None:
        return "-"
    if "exact" in gap:
        return str(gap["exact"])
    return f"{gap.get('at_least', '?')}..{gap['at_most']}"


def round_trip_cell(verdict: Verdict) -> str:
    """Written again by gossipcert's writer and read back: the same rounds, valid."""
    if not verdict.valid:
        return "-"
    copies = ("allgather", "alltoall", "broadcast")
    if verdict.collective not in (*copies, "allreduce", "reducescatter", "reduce") or (
        not verdict.problem
    ):
        return f"no writer for {verdict.collective}"
    if verdict.compared_model is None:
        return "not comparable (does not fit the topology)"
    graph = topology_graph(verdict.topology, verdict.ranks)
    model = parse_model(verdict.compared_model)
    instance = make_instance(graph, model, parse_problem(verdict.problem))
    convert = schedule_from_transfers
    if verdict.collective not in copies:
        convert = reduction_schedule_from_transfers
    schedule = convert(instance, verdict.replay.transfers, graphs.processors(graph))
    try:
        text = msccl_xml_from_schedule(schedule, instance)
    except GossipcertError as exc:
        return f"**not written**: {exc}"
    with tempfile.TemporaryDirectory() as folder:
        target = Path(folder) / "again.xml"
        target.write_text(text)
        again = verify_algorithm(str(target), topology=verdict.topology, optimum=False)
    if again.valid and again.rounds == verdict.rounds:
        return f"same ({again.rounds} rounds, {model.spec()})"
    return f"**differs**: valid {again.valid}, {again.rounds} rounds"


def row(
    path: Path, time_limit: float, topology: str | None, again: bool = True
) -> tuple[str, dict | None]:
    try:
        # the table's default machine, named: verify_algorithm has none of its own
        named = topology or f"fully-connected:{read_msccl_xml(path).ngpus}"
        verdict = verify_algorithm(str(path), topology=named, time_limit=time_limit)
    except GossipcertError as exc:
        return f"| {path.name} | - | - | refused: {exc} | - | - | - | - | - | - |", None
    data = verdict.to_json()
    seconds = data["seconds"]["read"] + data["seconds"]["check"]
    if data["valid"]:
        valid = "valid"
    elif not data["judged"]:
        valid = "not judged (its result cannot be checked)"
    else:
        first = "; ".join(v["message"] for v in data["violations"][:2])
        valid = f"**invalid** ({data['violation_count']}): {first}"
    model = f"{data['model']} on {data['topology']}"
    if not data["fits_model"]:
        need, other = data["needs_capacity"], data["gap_model"]
        model += f" (does not fit: needs capacity {need}; gap at {other or 'none'})"
    cells = [
        path.name,
        data["collective"],
        str(data["ranks"]),
        valid.replace("|", "/"),
        str(data["rounds"]),
        model,
        _optimum_cell(data),
        _gap_cell(data),
        round_trip_cell(verdict) if again else "-",
        f"{seconds:.2f}",
    ]
    return "| " + " | ".join(cells) + " |", data


HEADER = (
    "| file | collective | ranks | valid | rounds | model checked | optimum | gap "
    "| round trip | read+verify s |\n"
    "|---|---|---|---|---|---|---|---|---|---|"
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("folder", type=Path)
    parser.add_argument("--time-limit", type=float, default=60.0)
    parser.add_argument("--topology", default=None)
    parser.add_argument("--mutants", type=Path, default=None)
    args = parser.parse_args()
    files = sorted(args.folder.rglob("*.xml"))
    if not files:
        sys.exit(f"no .xml file under {args.folder}")
    print(HEADER)
    for path in files:
        print(row(path, args.time_limit, args.topology)[0], flush=True)
    if args.mutants is None:
        return
    failures = 0
    print("\nMutants (each must be invalid, with the violation named):\n")
    print("| mutant | change | verdict | expected violation found |\n|---|---|---|---|")
    for target, name, what in write_mutants(files, args.mutants):
        text, data = row(target, 1.0, args.topology, again=False)
        if data is None:  # a dependency removed after nops: the executor's loader refuses it
            verdict = "refused (exit 2)"
            found = name == "no-dependency" and "chain of nops" in text
        else:
            rules = {v["rule"] for v in data["violations"]}
            found = not data["valid"] and bool(rules & EXPECTED[name])
            first = next(
                (v["message"] for v in data["violations"] if v["rule"] in EXPECTED[name]), ""
            )
            verdict = ("invalid: " + first) if not data["valid"] else "**valid**"
        failures += not found
        mark = "yes" if found else "**no**"
        print(f"| {target.name} | {what} | {verdict.replace('|', '/')} | {mark} |")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
