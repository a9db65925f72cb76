"""Outside judges for what gossipcert writes: MSCCL-XML-Verifier on the MSCCL XML files of the
test suite's round trips, and whether MSCCL++'s own plan loader can run here.

Usage::

    .venv/bin/python benchmarks/outside_judges.py VERIFIER_SNAPSHOT [--mscclpp SNAPSHOT]
        [--time-limit S] [--work DIR]

``VERIFIER_SNAPSHOT`` is a folder holding a snapshot of github.com/dromniscience/
MSCCL-XML-Verifier (its ``CMakeLists.txt`` and ``src/``); it is built with CMake into
``--work`` (a temporary folder by default). Nothing of it is part of gossipcert.

The files: every case of the round-trip tests that export MSCCL XML
(``tests/test_formats_roundtrip.py``, ``tests/test_formats_send_order.py``,
``tests/test_formats_rooted_export.py``, ``tests/test_formats_reduction_export.py``, slow
cases included), solved as the tests solve them and written by
:func:`gossipcert.formats.writers.msccl_xml_from_schedule`. The checker covers out-of-place
``allgather`` (``allgather-verifier``) and out-of-place ``alltoall`` (``alltoall-verifier``,
which reads an alltoall from ``coll="allreduce"``, msccl-tools' old name for it: it is given a
copy with that attribute changed, nothing else); the other files are listed as not covered,
with the reason. Each covered file runs 5 iterations of the checker's own executor; its exit
code and last line are printed beside gossipcert's own verdict.

With ``--mscclpp SNAPSHOT``, the MSCCL++ execution plans that
:func:`gossipcert.formats.mscclpp_writer.mscclpp_plan_from_schedule` writes for the round
trips of ``tests/test_formats_mscclpp.py`` are loaded by MSCCL++'s own loader
(``src/core/executor/execution_plan.cc``, built as ``benchmarks/mscclpp_plans.py`` builds it:
it includes ``include/mscclpp/gpu.hpp``, which needs CUDA's headers, ``cuda.h`` and
``cuda_runtime.h``, and the CUDA runtime library to link, but no GPU to load a plan).
"""

from __future__ import annotations

import argparse
import importlib.util
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from gossipcert.formats.msccl_xml import parse_msccl_xml
from gossipcert.formats.mscclpp_plan import parse_mscclpp_plan
from gossipcert.formats.mscclpp_replay import replay_plan
from gossipcert.formats.mscclpp_writer import mscclpp_plan_from_schedule
from gossipcert.formats.replay import replay
from gossipcert.formats.writers import msccl_xml_from_schedule
from gossipcert.instance import parse_instance
from gossipcert.watchdog import solve_within

TESTS = Path(__file__).resolve().parent.parent / "tests"
SOURCES = {
    "test_formats_roundtrip.py": "CASES",
    "test_formats_send_order.py": "CASES",
    "test_formats_rooted_export.py": "_cases",
    "test_formats_reduction_export.py": "_cases",
}


def cases() -> list[tuple[str, str, str, str]]:
    """(test file, graph, model, problem) of every round trip that writes MSCCL XML."""
    out = []
    for name, attr in SOURCES.items():
        spec = importlib.util.spec_from_file_location(name[:-3], TESTS / name)
        assert spec and spec.loader
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        found = getattr(module, attr)
        for case in found() if callable(found) else found:
            values = getattr(case, "values", case)
            out.append((name, *values[:3]))
    return out


def build(snapshot: Path, work: Path) -> Path:
    """Build the checker from ``snapshot`` into ``work/build``."""
    build_dir = work / "build"
    if not (build_dir / "allgather-verifier").exists():
        build_dir.mkdir(parents=True, exist_ok=True)
        subprocess.run(
            ["cmake", str(snapshot.resolve()), "-DCMAKE_BUILD_TYPE=Release"],
            cwd=build_dir,
            check=True,
            capture_output=True,
        )
        subprocess.run(["make", "-j2"], cwd=build_dir, check=True, capture_output=True)
    return build_dir


def judge(build_dir: Path, xml: Path) -> tuple[str, str]:
    """(verdict, detail) of the checker on one file."""
    text = xml.read_text()
    algo = parse_msccl_xml(text)
    if algo.coll not in ("allgather", "alltoall"):
        return "not covered", f"no checker for {algo.coll}"
    if not algo.outofplace:
        return "not covered", "in-place only (the checker runs out-of-place calls)"
    target = xml
    if algo.coll == "alltoall":
        target = xml.with_suffix(".checker.xml")
        target.write_text(text.replace('coll="alltoall"', 'coll="allreduce"', 1))
    tool = build_dir / f"{algo.coll}-verifier"
    run = subprocess.run([str(tool), str(target), "5"], capture_output=True, text=True, timeout=600)
    last = (run.stdout.strip().splitlines() or [""])[-1]
    err = run.stderr.strip().splitlines()
    detail = last if run.returncode == 0 else (err[-1] if err else last)
    return ("accepted" if run.returncode == 0 else "REFUSED"), detail


def cuda_headers() -> str:
    """Where CUDA's or HIP's headers are, or why there are none."""
    for root in ("/usr/local/cuda/include", "/usr/include", "/opt/rocm/include"):
        for header in ("cuda_runtime.h", "hip/hip_runtime.h"):
            if (Path(root) / header).exists():
                return f"found {root}/{header}"
    nvcc = shutil.which("nvcc") or shutil.which("hipcc")
    return (
        f"compiler {nvcc}"
        if nvcc
        else "none: neither cuda_runtime.h nor hip/hip_runtime.h nor nvcc/hipcc"
    )


def loader_judges(snapshot: Path, work: Path, limit: float) -> None:
    """MSCCL++'s own loader on the writer's plans (see the module docstring)."""
    print()
    print("MSCCL++ plan loader: CUDA headers:", cuda_headers())
    spec = importlib.util.spec_from_file_location(
        "mscclpp_plans", Path(__file__).with_name("mscclpp_plans.py")
    )
    assert spec and spec.loader
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    exe = bench.build_loader(snapshot, work)
    spec = importlib.util.spec_from_file_location("roundtrip", TESTS / "test_formats_mscclpp.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    marks = module.test_writer_round_trip_keeps_the_rounds.pytestmark
    print("| instance | gossipcert | MSCCL++ loader |")
    print("|---|---|---|")
    for graph, model, problem in marks[0].args[1]:
        inst = parse_instance(graph, model, problem)
        res = solve_within(inst, time_limit=limit, proof=False)
        path = work / f"{graph}-{problem}.json".replace(":", "_")
        path.write_text(mscclpp_plan_from_schedule(res.schedule, inst))
        rep = replay_plan(parse_mscclpp_plan(path.read_text()))
        print(
            f"| {graph} {model} {problem} | {'valid' if rep.valid else 'INVALID'}, "
            f"{rep.rounds} rounds (optimum {res.optimum}) | {bench.load_with_mscclpp(exe, path)} |"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("verifier", type=Path, help="snapshot of MSCCL-XML-Verifier")
    parser.add_argument("--mscclpp", type=Path, help="snapshot of microsoft/mscclpp (loader check)")
    parser.add_argument("--time-limit", type=float, default=60.0)
    parser.add_argument("--work", type=Path)
    args = parser.parse_args()
    work = args.work or Path(tempfile.mkdtemp(prefix="outside-judges-"))
    work.mkdir(parents=True, exist_ok=True)
    build_dir = build(args.verifier, work)
    print("| test file | instance | collective | gossipcert | checker | detail |")
    print("|---|---|---|---|---|---|")
    counts: dict[str, int] = {}
    for k, (source, graph, model, problem) in enumerate(cases()):
        start = time.monotonic()
        instance = parse_instance(graph, model, problem)
        res = solve_within(instance, time_limit=args.time_limit, proof=False)
        if res.schedule is None:
            print(f"| {source} | {graph} {model} {problem} | - | no schedule | - | - |")
            continue
        xml = work / f"case{k}.xml"
        xml.write_text(msccl_xml_from_schedule(res.schedule, instance))
        ours = replay(parse_msccl_xml(xml.read_text()))
        verdict, detail = judge(build_dir, xml)
        counts[verdict] = counts.get(verdict, 0) + 1
        print(
            f"| {source} | {graph} {model} {problem} | {parse_msccl_xml(xml.read_text()).coll} | "
            f"{'valid' if ours.valid else 'INVALID'}, {ours.rounds} rounds | {verdict} | "
            f"{detail} ({time.monotonic() - start:.1f} s) |",
            flush=True,
        )
    print()
    print("files:", sum(counts.values()), "; ".join(f"{v}: {n}" for v, n in sorted(counts.items())))
    if args.mscclpp:
        loader_judges(args.mscclpp, work, args.time_limit)
    sys.stdout.flush()


if __name__ == "__main__":
    main()
