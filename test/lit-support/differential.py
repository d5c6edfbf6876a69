#!/usr/bin/env python3
"""Differential testing of the CPU pipeline: optimized against reference.

Generates random `pointwise.map` cases (differential_generate.py), checks
that each module verifies (`pw-opt`), and runs it with
`pw-run --check`, which executes the optimized lowering (broadcast
canonicalization, dimension coalescing, loops) and the reference lowering
(naive loops over the original layout) on identical inputs and compares
every buffer bit for bit. Every case must pass; anything else -- a
mismatch, a crash, a case pw-run cannot run, a module pw-opt rejects -- is
a failure, never a skip, so a generator bug cannot hide as a pass.
Failures are reduced (differential_reduce.py) and printed as lit tests.

    differential.py --pw-run build/bin/pw-run --pw-opt build/bin/pw-opt \\
        --cases 5000 --seed 1

GPU mode (differential_gpu.py): the same cases, compiled as kernel families,
with their inputs and reference outputs, in a bundle that a GPU machine
without MLIR runs (DIR/differential_gpu_runner.py DIR):

    differential.py --pw-run build/bin/pw-run --pw-opt build/bin/pw-opt \\
        --gpu-bundle gpu-diff --cases 300 --seed 1

See docs/Testing.md.
"""

from __future__ import annotations

import argparse
import collections
import concurrent.futures
import os
import re
import shlex
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Sequence

import differential_gpu
import differential_pipeline
from differential_case import (LOWERINGS, Case, arg_specs, case_features,
                               render_module)
from differential_generate import KNOWN_ISSUES, generate_case
from differential_reduce import case_size, reduce_case

# Outcome kinds. Only PASS is a pass.
PASS = "pass"
MISMATCH = "mismatch"      # the lowerings disagree: a compiler bug
CRASH = "crash"            # pw-run or pw-opt died on a signal
ERROR = "error"            # pw-run could not run the case
INVALID = "invalid"        # pw-opt rejects the module: a generator bug
TIMEOUT = "timeout"
FAILURE_KINDS = (MISMATCH, CRASH, ERROR, INVALID, TIMEOUT)

LIT_PW_RUN = "pw-run"          # a lit tool substitution (test/lit.cfg.py)


@dataclass
class Outcome:
    kind: str
    detail: str = ""       # what the tool said

    @property
    def signature(self) -> str:
        """What a reduced case must keep to count as the same failure:
        the kind, and for errors and crashes the first diagnostic with
        numbers blanked out (so shrinking sizes does not change it)."""
        if self.kind in (MISMATCH, TIMEOUT, PASS):
            return self.kind
        lines = self.detail.splitlines()
        key = next((line for line in lines if re.search(
            r"error:|Assertion|LLVM ERROR|pw-run:|signal", line)),
            lines[0] if lines else "")
        key = re.sub(r"'[^']*'|\"[^\"]*\"", "'...'", key)
        return self.kind + ": " + re.sub(r"-?\d+", "N", key).strip()


@dataclass
class Tools:
    pw_run: str
    pw_opt: str
    timeout: float = 120.0


def run_in_parallel(one, indices, jobs: int, progress, results: list):
    """Runs `one(index)` for every index on `jobs` threads, reporting each
    result to `progress` as it comes; returns `results` with them added,
    sorted by index."""
    with concurrent.futures.ThreadPoolExecutor(jobs) as pool:
        futures = [pool.submit(one, index) for index in indices]
        for future in concurrent.futures.as_completed(futures):
            result = future.result()
            progress.update(result)
            results.append(result)
    return sorted(results, key=lambda r: r.index)


def print_feature_table(cases) -> None:
    """Prints how many cases had each feature and how many of them failed;
    `cases` yields (features, outcome) pairs."""
    totals, failures = collections.Counter(), collections.Counter()
    for features, outcome in cases:
        for feature in features:
            totals[feature] += 1
            failures[feature] += outcome.kind != PASS
    print("by feature (cases/failed):")
    cells = [f"{f} {totals[f]}/{failures[f]}" for f in sorted(totals)]
    width = max((len(c) for c in cells), default=0) + 2
    per_line = max(1, 78 // width)
    for start in range(0, len(cells), per_line):
        print("  " + "".join(c.ljust(width)
                             for c in cells[start:start + per_line]).rstrip())


def pw_run_command(pw_run: str, path: str, case: Case) -> list[str]:
    command = [pw_run, path, "--entry", "case", *LOWERINGS[case.lowering]]
    for spec in arg_specs(case):
        command += ["--arg", spec]
    return command + ["--seed", str(case.seed), "--check"]


def lit_test_text(case: Case, headline: str) -> str:
    """The case as a self-contained lit test: RUN line plus module."""
    command = " ".join(shlex.quote(word) for word in
                       pw_run_command(LIT_PW_RUN, "%s", case))
    return (f"// {headline}\n"
            f"// RUN: {command}\n\n" + render_module(case))


def classify_pw_run(returncode: int, stdout: str, stderr: str) -> Outcome:
    """Reads pw-run --check's verdict. Exit 0 counts only with the
    'check passed' line; exit 1 is a mismatch only with 'check FAILED'."""
    detail = (stderr + stdout).strip()
    if returncode < 0 or returncode > 1:
        signal = -returncode if returncode < 0 else returncode - 128
        return Outcome(CRASH, f"pw-run died (signal {signal})\n{detail}")
    if returncode == 0:
        if "check passed" in stdout:
            return Outcome(PASS)
        return Outcome(ERROR, "pw-run exited 0 without a check verdict\n"
                       + detail)
    if "check FAILED" in stderr:
        return Outcome(MISMATCH, detail)
    return Outcome(ERROR, detail)


def classify_pw_opt(returncode: int, stderr: str) -> Outcome:
    if returncode == 0:
        return Outcome(PASS)
    if returncode < 0 or returncode > 1:
        return Outcome(CRASH, f"pw-opt died (code {returncode})\n{stderr}")
    return Outcome(INVALID, "pw-opt rejects the module\n" + stderr.strip())


def run(command: list[str], timeout: float) -> tuple[int, str, str]:
    """Runs a tool; a tool that cannot start exits 1 with the reason, so
    the case fails as an error instead of stopping the whole run."""
    try:
        completed = subprocess.run(command, capture_output=True, text=True,
                                   timeout=timeout)
    except OSError as error:
        return 1, "", f"cannot run {command[0]}: {error}"
    return completed.returncode, completed.stdout, completed.stderr


def verify_module(tools: Tools, path: str) -> Outcome:
    returncode, _, stderr = run([tools.pw_opt, path, "-o", os.devnull],
                                tools.timeout)
    return classify_pw_opt(returncode, stderr)


def verify_all(tools: Tools, paths: Sequence[str]) -> bool:
    """One pw-opt over every module (split-input-file): the common case,
    all valid, costs one process instead of one per case."""
    with tempfile.NamedTemporaryFile("w", suffix=".mlir",
                                     delete=False) as bundle:
        for path in paths:
            bundle.write(Path(path).read_text() + "\n// -----\n")
    try:
        returncode, _, _ = run([tools.pw_opt, bundle.name,
                                "--split-input-file", "-o", os.devnull],
                               tools.timeout * 4)
    finally:
        os.unlink(bundle.name)
    return returncode == 0


def execute(tools: Tools, case: Case, path: str) -> Outcome:
    """Runs an already written and verified case through pw-run --check."""
    try:
        return classify_pw_run(*run(pw_run_command(tools.pw_run, path, case),
                                    tools.timeout))
    except subprocess.TimeoutExpired:
        return Outcome(TIMEOUT, f"pw-run ran over {tools.timeout} s")


def test_case(tools: Tools, case: Case, path: str) -> Outcome:
    """Verifies, then runs one case (the reducer's predicate)."""
    Path(path).write_text(lit_test_text(case, case.origin))
    try:
        verified = verify_module(tools, path)
    except subprocess.TimeoutExpired:
        return Outcome(TIMEOUT, "pw-opt timed out")
    if verified.kind != PASS:
        return verified
    return execute(tools, case, path)


# --------------------------------------------------------------------------
# A run
# --------------------------------------------------------------------------


@dataclass
class Result:
    index: int
    case: Case
    outcome: Outcome
    path: str


class Progress:
    """A line every tenth of the run (and at each failure), so long runs
    show life in a log without flooding it."""

    def __init__(self, total: int):
        self.total, self.done, self.failed = total, 0, 0
        self.start = time.monotonic()
        self.step = max(1, total // 10)

    def update(self, result: Result) -> None:
        self.done += 1
        failed = result.outcome.kind != PASS
        self.failed += failed
        if failed:
            first = (result.outcome.detail.splitlines() or [""])[0]
            self.print(f"FAIL {result.outcome.kind}: {result.case.origin}: "
                       f"{first}")
        if failed or self.done % self.step == 0 or self.done == self.total:
            self.print(f"[{self.done:>{len(str(self.total))}}/{self.total}] "
                       f"{self.failed} failed, "
                       f"{time.monotonic() - self.start:.1f} s")

    def print(self, line: str) -> None:
        print(line, flush=True)


def choose_lowering(mode: str, index: int) -> str:
    """The lowering case `index` checks: `mode` itself, or with "all" each
    lowering in turn, so that every slice of a run covers all of them."""
    if mode != "all":
        return mode
    return list(LOWERINGS)[index % len(LOWERINGS)]


def run_cases(tools: Tools, seed: int, indices: Sequence[int], jobs: int,
              workdir: str, known_issues: bool,
              lowering: str) -> list[Result]:
    cases = {}
    paths = {}
    results: list[Result] = []
    for index in indices:
        try:
            case = generate_case(seed, index, known_issues)
            case.lowering = choose_lowering(lowering, index)
        except AssertionError as error:
            # A generator that cannot produce a valid case is a failure.
            results.append(Result(index, Case([], [], []),
                                  Outcome(INVALID, str(error)), ""))
            continue
        path = os.path.join(workdir, f"case-{index:05d}.mlir")
        Path(path).write_text(lit_test_text(case,
                                            f"Differential {case.origin}"))
        cases[index], paths[index] = case, path

    progress = Progress(len(indices))
    for result in results:
        progress.update(result)
    all_valid = verify_all(tools, list(paths.values()))

    def one(index: int) -> Result:
        case, path = cases[index], paths[index]
        outcome = Outcome(PASS) if all_valid else verify_module(tools, path)
        if outcome.kind == PASS:
            outcome = execute(tools, case, path)
        return Result(index, case, outcome, path)

    return run_in_parallel(one, cases, jobs, progress, results)


def print_summary(results: list[Result], seed: int, jobs: int,
                  seconds: float) -> None:
    kinds = collections.Counter(r.outcome.kind for r in results)
    passed = kinds[PASS]
    failed = len(results) - passed
    breakdown = ", ".join(f"{kinds[k]} {k}" for k in FAILURE_KINDS)
    print(f"differential: seed {seed}: {len(results)} cases, {passed} passed, "
          f"{failed} failed ({breakdown}); {jobs} jobs, {seconds:.1f} s "
          f"({seconds * jobs / max(len(results), 1):.2f} s per case per job)")
    print_feature_table(
        (case_features(r.case) if r.case.maps else (), r.outcome)
        for r in results)


def reduce_failure(tools: Tools, result: Result, jobs: int,
                   workdir: str) -> Case:
    """The smallest case that fails the way `result` did."""
    counter = iter(range(10 ** 9))
    signature = result.outcome.signature

    def still_fails(case: Case) -> bool:
        path = os.path.join(workdir, f"reduce-{result.index:05d}-"
                                     f"{next(counter)}.mlir")
        try:
            return test_case(tools, case, path).signature == signature
        finally:
            if os.path.exists(path):
                os.unlink(path)

    def evaluate_batch(predicate: Callable[[Case], bool],
                       batch: Sequence[Case]) -> list[bool]:
        with concurrent.futures.ThreadPoolExecutor(jobs) as pool:
            return list(pool.map(predicate, batch))

    return reduce_case(result.case, still_fails, evaluate_batch,
                       batch_size=jobs,
                       log=lambda line: print(f"  {line}", flush=True))


def report_failure(tools: Tools, result: Result, jobs: int, workdir: str,
                   keep: str | None, reduce: bool) -> None:
    outcome = result.outcome
    print(f"\n==== {outcome.kind}: {result.case.origin}")
    print(outcome.detail if len(outcome.detail) < 4000
          else outcome.detail[:4000] + "\n[...]")
    if not result.case.maps:
        return
    case = result.case
    headline = f"Differential {case.origin} ({outcome.kind})"
    if reduce and outcome.kind != TIMEOUT:
        before = case_size(case)
        print(f"reducing (signature: {outcome.signature}) ...", flush=True)
        case = reduce_failure(tools, result, jobs, workdir)
        print(f"reduced from {before[0]} maps, {before[1]} arguments, "
              f"{before[2]} ops, rank {before[3]} to {case_size(case)[0]} "
              f"maps, {case_size(case)[1]} arguments, {case_size(case)[2]} "
              f"ops, rank {case_size(case)[3]}")
        headline += ", reduced"
    headline += ": the optimized and reference lowerings must agree."
    text = lit_test_text(case, headline)
    print(f"---- reproducer: paste into test/Integration/CPU/"
          f"differential-<what>.mlir")
    print(text, end="")
    print("---- end of reproducer")
    if keep:
        path = os.path.join(keep, f"reduced-{result.index:05d}.mlir")
        Path(path).write_text(text)
        print(f"(also written to {path})")


def group_failures(failures: list[Result]) -> list[Result]:
    """Lists the failures by signature and returns the first of each: one
    bug usually fails many cases, and one reproducer per bug is enough."""
    groups: dict[str, list[Result]] = {}
    for result in failures:
        groups.setdefault(result.outcome.signature, []).append(result)
    if groups:
        print("failures by signature (cases):")
    for signature, members in groups.items():
        indices = " ".join(str(r.index) for r in members[:12])
        more = " ..." if len(members) > 12 else ""
        print(f"  {len(members):>5}  {signature}\n         {indices}{more}")
    return [members[0] for members in groups.values()]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pw-run", required=True, help="path of pw-run")
    parser.add_argument("--pw-opt", required=True, help="path of pw-opt")
    parser.add_argument("--cases", type=int, default=200,
                        help="how many cases (default 200; 5000 for the "
                             "long mode)")
    parser.add_argument("--seed", type=int, default=1,
                        help="run seed: the same seed gives the same cases")
    parser.add_argument("--first", type=int, default=0,
                        help="index of the first case (default 0)")
    parser.add_argument("--only", type=int, action="append", default=[],
                        metavar="INDEX", help="run only this case (repeat)")
    parser.add_argument("--jobs", "-j", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--keep", metavar="DIR",
                        help="write every case and reproducer here")
    parser.add_argument("--reduce", type=int, default=3, metavar="N",
                        help="reduce the first failure of each of the first "
                             "N failure signatures (default 3; 0: none)")
    parser.add_argument("--lowering", choices=["all", *LOWERINGS],
                        default="all",
                        help="the optimized lowering to check against the "
                             "reference; all (default): each in turn")
    parser.add_argument("--known-issues", action="store_true",
                        help="also generate the patterns of known open bugs "
                             "(listed in differential_generate.py), to see "
                             "whether they are fixed")
    parser.add_argument("--timeout", type=float, default=120.0,
                        help="seconds per pw-run (default 120)")
    parser.add_argument("--self-test", action="store_true",
                        help="run the suite's own tests and exit")
    parser.add_argument("--mode", choices=["maps", "tensor"], default="maps",
                        help="maps (default): one or two memref maps, "
                             "optimized against reference lowering; tensor: "
                             "programs of tensor maps, pw-fuse-maps against "
                             "the unfused program (differential_tensor.py)")
    parser.add_argument("--tensor-form", choices=["all", "maps", "linalg"],
                        default="all",
                        help="with --mode tensor: write the programs in "
                             "pointwise.map, in linalg.generic (converted by "
                             "pw-convert-linalg-to-pointwise), or all "
                             "(default): each in turn")
    differential_gpu.add_arguments(parser)
    differential_pipeline.add_arguments(parser)
    args = parser.parse_args(argv)

    tools = Tools(args.pw_run, args.pw_opt, args.timeout)
    for tool in (tools.pw_run, tools.pw_opt):
        if not os.access(tool, os.X_OK):
            parser.error(f"{tool} is not an executable")
    if args.self_test:
        import differential_selftest
        return differential_selftest.run(tools)

    indices = args.only or range(args.first, args.first + args.cases)
    if args.pipeline_bundle:
        return differential_pipeline.build_bundle(args, tools, indices)
    if args.mode == "tensor":
        import differential_tensor
        return differential_tensor.run(tools, args, indices)
    if args.gpu_bundle:
        return differential_gpu.build_bundle(args, tools, indices)
    with tempfile.TemporaryDirectory(prefix="pw-differential-") as scratch:
        workdir = args.keep or scratch
        os.makedirs(workdir, exist_ok=True)
        start = time.monotonic()
        if KNOWN_ISSUES and not args.known_issues:
            print("avoiding known issues (--known-issues to include): "
                  + ", ".join(KNOWN_ISSUES))
        results = run_cases(tools, args.seed, indices, args.jobs, workdir,
                            args.known_issues, args.lowering)
        print_summary(results, args.seed, args.jobs,
                      time.monotonic() - start)
        failures = [r for r in results if r.outcome.kind != PASS]
        representatives = group_failures(failures)
        for position, result in enumerate(representatives):
            report_failure(tools, result, args.jobs, workdir, args.keep,
                           reduce=position < args.reduce)
    if failures:
        print(f"\ndifferential: FAILED: {len(failures)} of {len(results)} "
              f"cases (seed {args.seed}); rerun one with --only INDEX "
              f"--keep DIR")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
