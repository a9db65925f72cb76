"""MSCCL++ execution plans judged: each read (and its time), its verdict, rounds, the certified
optimum and the gap; MSCCL++'s own loader on the same files; mutants of the valid ones.

Usage::

    .venv/bin/python benchmarks/mscclpp_plans.py FOLDER... [--dsl MSCCLPP_SNAPSHOT]
        [--loader MSCCLPP_SNAPSHOT] [--mutants] [--time-limit S] [--work DIR]

``FOLDER`` holds plans (``*.json``, searched recursively), e.g. a snapshot's
``test/execution-files`` and ``test/executor-tests/execution-plans``. ``--dsl`` takes a
snapshot of github.com/microsoft/mscclpp, copies its pure-Python DSL
(``python/mscclpp/language``, ``python/mscclpp/default_algos``) into ``--work`` and runs the
default algorithms of ``python -m mscclpp --install`` (``allreduce_multi_nodes`` with its two
configurations, thread-block groups of 1 and 4) for 16 and 32 ranks (8 a node: the algorithm
needs two nodes or more), and its single-node examples (``language/tests/single_node``) for
8 ranks where they take ``--num_gpus`` (as written otherwise), with ``python3`` (which needs
``sortedcontainers``); those plans are judged too. ``--loader`` builds
a small harness around MSCCL++'s own loader (``src/core/executor/execution_plan.cc`` and
``src/core/errors.cc`` of the snapshot, compiled with ``g++`` against CUDA's headers and
nlohmann/json; a stub for the CUDA driver's ``cuGetErrorString``, which only its error paths
call) and loads every plan for every rank at a message size the plan accepts. Nothing of
MSCCL++ is part of gossipcert.

Mutants (``--mutants``) of every valid plan: the first ``signal`` (or packet put) removed;
a ``signal`` moved before the data operation it publishes; the first put's destination moved
one chunk; the first remote buffer given to another rank; the first reduction applied twice.
Each is replayed and must be invalid; the script prints the first violation of each.

Times are wall-clock on whatever machine runs it (the page says which).
"""

from __future__ import annotations

import argparse
import copy
import json
import os
import shutil
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

from gossipcert.errors import GossipcertError
from gossipcert.formats.mscclpp_plan import parse_mscclpp_plan, read_mscclpp_plan
from gossipcert.formats.mscclpp_replay import replay_plan
from gossipcert.formats.verdict import verify_algorithm

DATA_OPS = (
    "put",
    "ppkt",
    "copy",
    "re",
    "res",
    "rre",
    "rres",
    "get",
    "respkt",
    "recpkt",
    "recspkt",
    "repkt",
    "glres",
    "gstore",
)
REDUCING = ("re", "res", "rre", "rres", "repkt", "respkt", "recpkt", "recspkt", "glres")

DSL_SCRIPT = """
import json, sys
sys.path.insert(0, sys.argv[1])
from mscclpp.language.collectives import AllReduce
from mscclpp.language.utils import AlgoSpec
from mscclpp.default_algos import allreduce_multi_nodes
for n in (16, 32):
    for low, high, tbg in ((1 << 10, 64 << 10, 1), (128 << 10, 2 << 20, 4)):
        name = f"allreduce_{n}ranks_{low >> 10}K_{high >> 10}K"
        spec = AlgoSpec(name=name, collective=AllReduce(n, 1, True), nranks_per_node=8,
                        world_size=n, in_place=True, instances=1, protocol="LL", auto_sync=False,
                        num_threads_per_block=1024, reuse_resources=True,
                        use_double_scratch_buffer=True, min_message_size=low,
                        max_message_size=high, tags={"default": 1})
        text = allreduce_multi_nodes(spec, thread_block_group_size=tbg).to_json()
        open(f"{sys.argv[2]}/{name}.json", "w").write(text)
"""

HARNESS = r"""
#include <fstream>
#include <iostream>
#include <memory>
#include <string>
#include <nlohmann/json.hpp>
#include <mscclpp/core.hpp>
#include <mscclpp/utils.hpp>
#include <mscclpp/memory_channel.hpp>
#include <mscclpp/port_channel.hpp>
#include <mscclpp/switch_channel.hpp>
#define private public
#include "execution_plan.hpp"
#undef private
#include <cuda.h>
extern "C" CUresult cuGetErrorString(CUresult, const char** s) {
  *s = "no CUDA driver";
  return CUDA_SUCCESS;
}
int main(int argc, char** argv) {
  std::ifstream f(argv[1]);
  int n = nlohmann::json::parse(f)["gpus"].size();
  size_t in = std::stoull(argv[2]), out = std::stoull(argv[3]);
  try {
    for (int r = 0; r < n; r++) {
      mscclpp::ExecutionPlan plan(argv[1], r);
      plan.impl_->loadExecutionPlan(in, out, 0, 0);
    }
  } catch (const std::exception& e) { std::cout << "refused: " << e.what() << "\n"; return 1; }
  std::cout << "loaded " << n << " ranks\n";
  return 0;
}
"""


def generate_dsl(snapshot: Path, work: Path) -> Path:
    """The DSL's default plans for 8, 16 and 32 ranks (see the module docstring)."""
    root = work / "dsl"
    pkg = root / "mscclpp"
    if pkg.exists():
        shutil.rmtree(pkg)
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    for part in ("language", "default_algos"):
        shutil.copytree(snapshot / "python" / "mscclpp" / part, pkg / part)
    out = work / "dsl-plans"
    out.mkdir(exist_ok=True)
    subprocess.run(["python3", "-c", DSL_SCRIPT, str(root), str(out)], check=True)
    examples = snapshot / "python" / "mscclpp" / "language" / "tests" / "single_node"
    for script in sorted([*examples.glob("*.py"), *examples.glob("alltoall/*.py")]):
        extra = ["--num_gpus", "8"] if "--num_gpus" in script.read_text() else []
        run = subprocess.run(
            ["python3", str(script), "--name", script.stem, *extra],
            capture_output=True,
            text=True,
            env={**os.environ, "PYTHONPATH": str(root)},
        )
        if run.returncode == 0 and run.stdout.lstrip().startswith("{"):
            (out / f"example_{script.stem}_8gpus.json").write_text(run.stdout)
        else:
            print(
                f"DSL example {script.name}: not generated "
                f"({(run.stderr.strip().splitlines() or ['?'])[-1]})"
            )
    return out


def build_loader(snapshot: Path, work: Path) -> Path:
    """The loader harness (see the module docstring)."""
    exe = work / "loader"
    if exe.exists():
        return exe
    gen = work / "gen" / "mscclpp"
    gen.mkdir(parents=True, exist_ok=True)
    version = (snapshot / "include" / "mscclpp" / "version.hpp.in").read_text()
    for key in ("MAJOR", "MINOR", "PATCH"):
        version = version.replace(f"@MSCCLPP_{key}@", "0")
    (gen / "version.hpp").write_text(version)
    (work / "harness.cc").write_text(HARNESS)
    cuda = Path(os.environ.get("CUDA_HOME", "/usr/local/cuda"))
    flags = [
        "-std=c++17",
        "-O1",
        "-DMSCCLPP_USE_CUDA",
        f"-I{work / 'gen'}",
        f"-I{snapshot / 'include'}",
        f"-I{snapshot / 'src/core/include'}",
        f"-I{cuda / 'include'}",
    ]
    sources = [
        work / "harness.cc",
        snapshot / "src/core/executor/execution_plan.cc",
        snapshot / "src/core/errors.cc",
    ]
    subprocess.run(
        ["g++", *flags, *map(str, sources), "-o", str(exe), f"-L{cuda / 'lib64'}", "-lcudart"],
        check=True,
    )
    return exe


def load_with_mscclpp(exe: Path, path: Path) -> str:
    """MSCCL++'s loader on every rank, at a message size the plan accepts."""
    data = json.loads(path.read_text())
    g0 = data["gpus"][0]
    align = data.get("buffer_alignment", 16)
    chunks = max(1, g0["input_chunks"], g0["output_chunks"])
    size = max(data.get("min_message_size", 0), 1 << 16)
    unit = -(-size // (chunks * align)) * align * 64  # room for thread-block-group slices
    while unit * chunks > data.get("max_message_size", 1 << 62) and unit > align:
        unit //= 2
    inp, out = g0["input_chunks"] * unit, g0["output_chunks"] * unit
    env = {
        **os.environ,
        "LD_LIBRARY_PATH": str(Path(os.environ.get("CUDA_HOME", "/usr/local/cuda")) / "lib64"),
    }
    run = subprocess.run(
        [str(exe), str(path), str(inp or out), str(out or inp)],
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
    )
    if run.returncode < 0 or run.returncode > 1:
        return f"crashed (exit {run.returncode})"
    return (run.stdout.strip().splitlines() or ["?"])[-1]


def _ops(plan: dict[str, Any]):
    for g, gpu in enumerate(plan["gpus"]):
        for t, tb in enumerate(gpu["threadblocks"]):
            for i, op in enumerate(tb["ops"]):
                yield g, t, i, op


def mutants(plan: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """The mutants of the module docstring that apply to ``plan``."""
    out = []
    found = {
        name: next(((g, t, i) for g, t, i, op in _ops(plan) if op["name"] == name), None)
        for name in ("signal", "ppkt")
    }
    target = found["signal"] or found["ppkt"]
    if target:
        m = copy.deepcopy(plan)
        g, t, i = target
        name = m["gpus"][g]["threadblocks"][t]["ops"].pop(i)["name"]
        out.append((f"{name} removed (GPU {g} tb {t} op {i})", m))
    for g, t, i, op in _ops(plan):
        ops = plan["gpus"][g]["threadblocks"][t]["ops"]
        if (
            op["name"] == "signal"
            and i >= 2
            and ops[i - 1]["name"] == "nop"
            and ops[i - 2]["name"] in DATA_OPS
        ):
            m = copy.deepcopy(plan)
            mops = m["gpus"][g]["threadblocks"][t]["ops"]
            mops.insert(i - 2, mops.pop(i))
            out.append((f"signal moved before its {ops[i - 2]['name']} (GPU {g} tb {t} op {i})", m))
            break
    for g, t, i, op in _ops(plan):
        dst = [b for b in op.get("dst_buff", []) if "buffer_id" in b]
        if op["name"] in ("put", "ppkt", "rppkt") and dst:
            m = copy.deepcopy(plan)
            for b in m["gpus"][g]["threadblocks"][t]["ops"][i]["dst_buff"]:
                if "buffer_id" in b:
                    b["index"] += 1
                    break
            out.append((f"{op['name']} one chunk off (GPU {g} tb {t} op {i})", m))
            break
    if len(plan["gpus"]) > 2:
        for g, gpu in enumerate(plan["gpus"]):
            if gpu["remote_buffers"]:
                m = copy.deepcopy(plan)
                rb = m["gpus"][g]["remote_buffers"][0]
                rb["rank"] = next(r for r in range(len(plan["gpus"])) if r not in (g, rb["rank"]))
                out.append((f"GPU {g}'s remote buffer 0 on GPU {rb['rank']}", m))
                break
    for g, t, i, op in _ops(plan):
        if op["name"] in REDUCING:
            m = copy.deepcopy(plan)
            mops = m["gpus"][g]["threadblocks"][t]["ops"]
            mops[i + 1 : i + 1] = [{"name": "nop"}, copy.deepcopy(op)]
            out.append((f"{op['name']} applied twice (GPU {g} tb {t} op {i})", m))
            break
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("folders", nargs="+", type=Path)
    parser.add_argument("--dsl", type=Path, help="mscclpp snapshot: also its DSL's default plans")
    parser.add_argument("--loader", type=Path, help="mscclpp snapshot: also its own loader")
    parser.add_argument("--mutants", action="store_true")
    parser.add_argument("--time-limit", type=float, default=60.0)
    parser.add_argument("--work", type=Path)
    args = parser.parse_args()
    work = args.work or Path(tempfile.mkdtemp(prefix="mscclpp-plans-"))
    work.mkdir(parents=True, exist_ok=True)
    folders = list(args.folders)
    if args.dsl:
        folders.append(generate_dsl(args.dsl, work))
    exe = build_loader(args.loader, work) if args.loader else None
    files = sorted(p for f in folders for p in sorted(f.rglob("*.json")))
    print(
        "| plan | bytes | read s | replay s | collective | ranks | verdict | rounds | optimum "
        "(fully-connected:N, all-port) | gap | MSCCL++ loader |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    valid: list[tuple[Path, dict[str, Any]]] = []
    for path in files:
        size = path.stat().st_size
        start = time.monotonic()
        try:
            plan = read_mscclpp_plan(path)
        except GossipcertError as exc:
            loader = load_with_mscclpp(exe, path) if exe else "-"
            print(
                f"| {path.name} | {size:,} | - | - | - | - | refused: {exc} | - | - | - | "
                f"{loader} |"
            )
            continue
        read = time.monotonic() - start
        rep = replay_plan(plan)
        replayed = time.monotonic() - start - read
        v = verify_algorithm(
            str(path), "mscclpp-plan", f"fully-connected:{plan.ranks}", time_limit=args.time_limit
        )
        state = (
            "valid"
            if v.valid
            else (
                "not judged"
                if rep.not_judged and not rep.findings
                else f"invalid: {rep.findings[0].rule}"
            )
        )
        opt = v.optimum
        best = (
            opt.get("optimum")
            if opt.get("optimum") is not None
            else f"[{opt.get('lower_bound')}, {opt.get('upper_bound')}]"
        )
        evidence = opt.get("evidence") or "-"
        gap = v.gap()
        loader = load_with_mscclpp(exe, path) if exe else "-"
        print(
            f"| {path.name} | {size:,} | {read:.2f} | {replayed:.2f} | {plan.collective} | "
            f"{plan.ranks} | {state} | {rep.rounds} | {best} ({evidence}, "
            f"{v.optimum_model}) | {gap} | {loader} |",
            flush=True,
        )
        if v.valid:
            valid.append((path, json.loads(path.read_text())))
    if not args.mutants:
        return
    print()
    print("| plan | mutant | verdict | first violation |")
    print("|---|---|---|---|")
    for path, data in valid:
        for label, m in mutants(data):
            rep = replay_plan(parse_mscclpp_plan(json.dumps(m), f"{path.name} mutant"))
            first = rep.findings[0] if rep.findings else None
            text = f"{first.rule}: {first.message}" if first else "-"
            print(
                f"| {path.name} | {label} | {'VALID' if rep.valid else 'invalid'} | {text[:300]} |",
                flush=True,
            )


if __name__ == "__main__":
    main()
