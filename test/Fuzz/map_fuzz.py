#!/usr/bin/env python3
"""Structured fuzzing: random valid modules through both pipelines.

Each case starts from a differential case (test/lit-support/
differential_generate.py: one or two `pointwise.map` ops over every element
type, static and dynamic layouts, broadcasts, negative strides, in-place
updates) and goes further where that suite stops: some cases get extra
leading dims, up to rank 9, and each map may sit inside up to two nested
regions (`scf.for`, `scf.if`, `scf.execute_region`, `scf.parallel`,
`affine.for`, `affine.parallel`, `async.execute`). Every case must

  - verify (pw-opt);
  - run under `pw-run --check`: the optimized CPU lowering (loops, or
    pw-tile's tiled code, in turn) against the reference lowering, bit for
    bit;
  - lower through `pw-gpu-pipeline{format=isa}` to PTX that ptxas accepts
    (when --ptxas is given).

A map inside `async.execute` is a documented limitation: both pipelines
must reject it with their diagnostic, not crash. Anything else -- a crash,
a mismatch, a rejection -- is a failure, printed with its module as a lit
test ready to commit.

    map_fuzz.py --pw-opt build/bin/pw-opt --pw-run build/bin/pw-run \\
        --ptxas /usr/local/cuda/bin/ptxas --cases 2000 --seed 1

See docs/Testing.md.
"""

from __future__ import annotations

import argparse
import collections
import math
import os
import random
import shlex
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

LIT_SUPPORT = Path(__file__).resolve().parents[1] / "lit-support"
sys.path.insert(0, str(LIT_SUPPORT))

import differential as diff  # noqa: E402
from differential_case import (LOWERINGS, Case, MemRefArg,  # noqa: E402
                               arg_sizes, arg_type, case_features,
                               check_case, element_offsets,
                               refresh_identity_layouts, render_map)
from differential_generate import generate_case  # noqa: E402

MAX_RANK = 9
MAX_NESTING = 2
REGIONS = ("scf.for", "scf.if", "scf.execute_region", "scf.parallel",
           "affine.for", "affine.parallel", "async.execute")
ASYNC_DIAGNOSTIC = "inside 'async.execute'"
EXTRACT_PTX = LIT_SUPPORT / "extract-ptx.py"


@dataclass
class FuzzCase:
    case: Case
    # Per map, the regions around it, outermost first.
    nesting: list[list[str]] = field(default_factory=list)

    @property
    def in_async(self) -> bool:
        return any("async.execute" in chain for chain in self.nesting)

    def features(self) -> set[str]:
        features = case_features(self.case)
        features = {f for f in features if not f.startswith("rank=")}
        features.add(f"rank={max(m.rank for m in self.case.maps)}")
        for chain in self.nesting:
            features.update(f"in-{region}" for region in chain)
            if len(chain) > 1:
                features.add("nested-2")
        return features


# --------------------------------------------------------------------------
# Generation
# --------------------------------------------------------------------------


def fuzz_rng(seed: int, index: int) -> random.Random:
    return random.Random(f"pointwise-map-fuzz:{seed}:{index}")


def view_extent(sizes: list[int], strides: list[int], offset: int) -> int:
    """The distance from the lowest to the highest element a view
    addresses, plus one: an outer stride of at least this keeps the slices
    of a new outer dim apart."""
    offsets = element_offsets(sizes, strides, offset)
    return max(offsets) - min(offsets) + 1 if offsets else 1


def lift_rank(case: Case, rng: random.Random, extra: int) -> Case | None:
    """A copy of `case` with `extra` new leading dims (sizes 1 to 3, at
    most 4x the elements) added to every map and argument of full rank:
    padded or negative outer strides, broadcasts on inputs, static or
    dynamic sizes and strides. None when the result breaks a rule of
    check_case."""
    lifted = case.clone()
    full = len(lifted.sizes)
    new_sizes = [1] * extra
    for position in rng.sample(range(extra), min(extra, 2)):
        new_sizes[position] = rng.choice([1, 2, 2, 3])
    if math.prod(new_sizes) > 4:
        new_sizes = [min(s, 2) for s in new_sizes]
    outputs = {i for m in lifted.maps for i in m.outputs}
    old_sizes = {index: arg_sizes(lifted, arg)
                 for index, arg in enumerate(lifted.args)
                 if isinstance(arg, MemRefArg)}
    lifted.sizes = new_sizes + lifted.sizes
    for m in lifted.maps:
        if m.rank == full:
            m.rank += extra
    for index, arg in enumerate(lifted.args):
        if not isinstance(arg, MemRefArg) or arg.rank != full:
            continue
        broadcast = [index not in outputs and rng.random() < 0.25
                     for _ in range(extra)]
        sizes = old_sizes[index]
        stride = view_extent(sizes, arg.strides, arg.offset)
        strides = []
        for size, is_broadcast in zip(reversed(new_sizes),
                                      reversed(broadcast)):
            size = 1 if is_broadcast else size
            step = stride * rng.choice([1, 1, 2])
            if rng.random() < 0.25:
                arg.offset += (size - 1) * step
                step = -step
            strides.insert(0, step)
            stride = abs(step) * max(size, 1)
        arg.broadcast = broadcast + arg.broadcast
        arg.strides = strides + arg.strides
        arg.static_sizes = [rng.random() < 0.5
                            for _ in range(extra)] + arg.static_sizes
        arg.static_strides = [rng.random() < 0.5
                              for _ in range(extra)] + arg.static_strides
        if not arg.static_offset or rng.random() < 0.2:
            arg.static_offset = False
    refresh_identity_layouts(lifted)
    return None if check_case(lifted) else lifted


def draw_nesting(rng: random.Random) -> list[str]:
    depth = rng.choice([0, 0, 1, 1, 1, 2]) if MAX_NESTING >= 2 else 0
    chain = [rng.choice(REGIONS) for _ in range(depth)]
    # async.execute is rare: it only checks the diagnostic.
    if "async.execute" in chain and rng.random() < 0.5:
        chain = [r for r in chain if r != "async.execute"]
    return chain


def generate(seed: int, index: int, lowering: str) -> FuzzCase:
    case = generate_case(seed, index)
    case.origin = f"map-fuzz seed {seed} case {index}"
    case.lowering = diff.choose_lowering(lowering, index)
    rng = fuzz_rng(seed, index)
    rank = len(case.sizes)
    if rank < MAX_RANK and rng.random() < 0.35:
        lifted = lift_rank(case, rng, rng.randint(1, MAX_RANK - rank))
        if lifted is not None:
            case = lifted
    return FuzzCase(case, [draw_nesting(rng) for _ in case.maps])


# --------------------------------------------------------------------------
# Rendering
# --------------------------------------------------------------------------


def open_region(region: str, level: int) -> tuple[list[str], list[str]]:
    """The lines before and after a region's body."""
    iv = f"%iv{level}"
    if region == "scf.for":
        return [f"scf.for {iv} = %c0 to %c1 step %c1 {{"], ["}"]
    if region == "scf.if":
        return ["scf.if %true {"], ["}"]
    if region == "scf.execute_region":
        return ["scf.execute_region {"], ["  scf.yield", "}"]
    if region == "scf.parallel":
        return [f"scf.parallel ({iv}) = (%c0) to (%c1) step (%c1) {{"], ["}"]
    if region == "affine.for":
        return [f"affine.for {iv} = 0 to 1 {{"], ["}"]
    if region == "affine.parallel":
        return [f"affine.parallel ({iv}) = (0) to (1) {{"], ["}"]
    if region == "async.execute":
        token = f"%token{level}"
        return ([f"{token} = async.execute {{"],
                ["  async.yield", "}", f"async.await {token} : !async.token"])
    raise ValueError(region)


def render(fuzz: FuzzCase) -> str:
    case = fuzz.case
    params = ", ".join(f"%arg{i}: {arg_type(case, i)}"
                       for i in range(len(case.args)))
    lines = [f"func.func @case({params}) {{",
             "  %c0 = arith.constant 0 : index",
             "  %c1 = arith.constant 1 : index",
             "  %true = arith.constant true"]
    level = 0
    for m, chain in zip(case.maps, fuzz.nesting):
        body = render_map(case, m)
        for region in reversed(chain):
            level += 1
            before, after = open_region(region, level)
            body = before + ["  " + line for line in body] + after
        lines += ["  " + line for line in body]
    lines += ["  return", "}"]
    return "\n".join(lines) + "\n"


def pw_opt_gpu_command(pw_opt: str, path: str) -> list[str]:
    return [pw_opt, path, "--pw-gpu-pipeline=format=isa"]


def lit_test_text(fuzz: FuzzCase, headline: str, ptxas: bool) -> str:
    """The case as a lit test: the same checks as the fuzzer's."""
    case = fuzz.case
    checks = ""
    if fuzz.in_async:
        runs = [f"not pw-opt %s {pipeline} -o /dev/null 2>&1 | FileCheck %s"
                for pipeline in ("--pw-cpu-pipeline",
                                 "--pw-gpu-pipeline=format=isa")]
        checks = f"// CHECK: {ASYNC_DIAGNOSTIC}\n"
    else:
        run = " ".join(shlex.quote(word) for word in
                       diff.pw_run_command(diff.LIT_PW_RUN, "%s", case))
        runs = [run]
        gpu = "pw-opt %s --pw-gpu-pipeline=format=isa"
        if ptxas:
            gpu += (" | %python %lit_support/extract-ptx.py --ptxas %ptxas "
                    "--arch sm_90")
        else:
            gpu += " -o /dev/null"
        runs.append(gpu)
    return (f"// {headline}\n" + "".join(f"// RUN: {r}\n" for r in runs)
            + checks + "\n" + render(fuzz))


# --------------------------------------------------------------------------
# Checking
# --------------------------------------------------------------------------


@dataclass
class Tools:
    pw_opt: str
    pw_run: str
    ptxas: str | None
    timeout: float


def run(command: list[str], timeout: float,
        stdin: str | None = None) -> tuple[int, str, str]:
    try:
        completed = subprocess.run(command, capture_output=True, text=True,
                                   timeout=timeout, input=stdin)
    except subprocess.TimeoutExpired:
        return 124, "", f"{command[0]} ran over {timeout} s"
    except OSError as error:
        return 1, "", f"cannot run {command[0]}: {error}"
    return completed.returncode, completed.stdout, completed.stderr


def died(returncode: int) -> bool:
    return returncode < 0 or returncode > 1


def tool_outcome(what: str, returncode: int, stderr: str) -> diff.Outcome:
    if returncode == 124:
        return diff.Outcome(diff.TIMEOUT, f"{what}: {stderr}")
    if died(returncode):
        return diff.Outcome(diff.CRASH,
                            f"{what} died (code {returncode})\n{stderr}")
    return diff.Outcome(diff.ERROR, f"{what} failed\n{stderr.strip()}")


def check_async(tools: Tools, path: str) -> diff.Outcome:
    for pipeline in ("--pw-cpu-pipeline", "--pw-gpu-pipeline=format=isa"):
        returncode, _, stderr = run([tools.pw_opt, path, pipeline, "-o",
                                     os.devnull], tools.timeout)
        if returncode == 0:
            return diff.Outcome(diff.ERROR, f"pw-opt {pipeline} accepts a "
                                            "map inside async.execute")
        if returncode != 1 or ASYNC_DIAGNOSTIC not in stderr:
            return tool_outcome(f"pw-opt {pipeline}", returncode, stderr)
    return diff.Outcome(diff.PASS)


def check_gpu(tools: Tools, path: str) -> diff.Outcome:
    returncode, stdout, stderr = run(pw_opt_gpu_command(tools.pw_opt, path),
                                     tools.timeout)
    if returncode != 0:
        return tool_outcome("pw-opt --pw-gpu-pipeline=format=isa",
                            returncode, stderr)
    if not tools.ptxas:
        return diff.Outcome(diff.PASS)
    returncode, _, stderr = run([sys.executable, str(EXTRACT_PTX), "--ptxas",
                                 tools.ptxas, "--arch", "sm_90"],
                                tools.timeout, stdin=stdout)
    if returncode != 0:
        return diff.Outcome(diff.ERROR, "ptxas rejects the PTX\n" + stderr)
    return diff.Outcome(diff.PASS)


def check(tools: Tools, fuzz: FuzzCase, path: str) -> diff.Outcome:
    returncode, _, stderr = run([tools.pw_opt, path, "-o", os.devnull],
                                tools.timeout)
    if returncode != 0:
        if died(returncode) or returncode == 124:
            return tool_outcome("pw-opt", returncode, stderr)
        return diff.Outcome(diff.INVALID,
                            "pw-opt rejects the module\n" + stderr.strip())
    if fuzz.in_async:
        return check_async(tools, path)
    cpu = diff.classify_pw_run(*run(
        diff.pw_run_command(tools.pw_run, path, fuzz.case), tools.timeout))
    if cpu.kind != diff.PASS:
        return cpu
    return check_gpu(tools, path)


# --------------------------------------------------------------------------
# A run
# --------------------------------------------------------------------------


@dataclass
class Result:
    index: int
    fuzz: FuzzCase | None
    outcome: diff.Outcome
    path: str

    @property
    def case(self) -> Case:          # for diff.Progress
        return self.fuzz.case if self.fuzz else Case([], [], [])


def run_cases(tools: Tools, seed: int, indices, jobs: int, workdir: str,
              lowering: str) -> list[Result]:
    def one(index: int) -> Result:
        try:
            fuzz = generate(seed, index, lowering)
        except AssertionError as error:
            return Result(index, None, diff.Outcome(diff.INVALID, str(error)),
                          "")
        path = os.path.join(workdir, f"case-{index:06d}.mlir")
        Path(path).write_text(lit_test_text(fuzz, fuzz.case.origin,
                                            bool(tools.ptxas)))
        return Result(index, fuzz, check(tools, fuzz, path), path)

    return diff.run_in_parallel(one, indices, jobs,
                                diff.Progress(len(indices)), [])


def print_summary(results: list[Result], seed: int, jobs: int,
                  seconds: float) -> None:
    kinds = collections.Counter(r.outcome.kind for r in results)
    breakdown = ", ".join(f"{kinds[k]} {k}" for k in diff.FAILURE_KINDS)
    print(f"map-fuzz: seed {seed}: {len(results)} cases, {kinds[diff.PASS]} "
          f"passed, {len(results) - kinds[diff.PASS]} failed ({breakdown}); "
          f"{jobs} jobs, {seconds:.1f} s")
    diff.print_feature_table((r.fuzz.features() if r.fuzz else (), r.outcome)
                             for r in results)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pw-opt", required=True)
    parser.add_argument("--pw-run", required=True)
    parser.add_argument("--ptxas", help="assemble the GPU pipeline's PTX "
                                        "(default: only lower to PTX)")
    parser.add_argument("--cases", type=int, default=100)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--first", type=int, default=0)
    parser.add_argument("--only", type=int, action="append", default=[],
                        metavar="INDEX", help="run only this case (repeat)")
    parser.add_argument("--jobs", "-j", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--lowering", choices=["all", *LOWERINGS],
                        default="all")
    parser.add_argument("--keep", metavar="DIR",
                        help="write every case here")
    parser.add_argument("--timeout", type=float, default=120.0)
    args = parser.parse_args(argv)

    tools = Tools(args.pw_opt, args.pw_run, args.ptxas, args.timeout)
    indices = args.only or list(range(args.first, args.first + args.cases))
    with tempfile.TemporaryDirectory(prefix="pw-map-fuzz-") as scratch:
        workdir = args.keep or scratch
        os.makedirs(workdir, exist_ok=True)
        start = time.monotonic()
        results = run_cases(tools, args.seed, indices, args.jobs, workdir,
                            args.lowering)
        print_summary(results, args.seed, args.jobs, time.monotonic() - start)
        failures = [r for r in results if r.outcome.kind != diff.PASS]
        for result in diff.group_failures(failures):
            print(f"\n==== {result.outcome.kind}: {result.case.origin}")
            detail = result.outcome.detail
            print(detail if len(detail) < 4000 else detail[:4000] + "\n[...]")
            if result.fuzz:
                print("---- reproducer: paste into test/Fuzz/<what>.mlir")
                print(lit_test_text(result.fuzz,
                                    f"{result.case.origin} "
                                    f"({result.outcome.kind})",
                                    bool(tools.ptxas)), end="")
                print("---- end of reproducer")
    if failures:
        print(f"\nmap-fuzz: FAILED: {len(failures)} of {len(results)} cases "
              f"(seed {args.seed}); rerun one with --only INDEX --keep DIR")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
