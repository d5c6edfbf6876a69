#!/usr/bin/env python3
"""Runs a pipeline bundle of the differential suite (differential_pipeline.py)
on a GPU machine: every case through

    pw-run CASE.mlir --entry case --target=cuda --gpu-path=pipeline \\
        --arg ... --seed S --check

which lowers the module with pw-gpu-pipeline, runs it on the GPU and
compares every buffer and returned tensor with the CPU reference lowering
on the same inputs (floats within pw-run's tolerance by element type).

A *rounding-sensitive* case (cases.json) may differ in at most
max(2, 10 %) of a buffer's elements: a comparison flipped by a last-bit
difference changes a few elements, a bug most of them. Those are reported as
TOLERATED; --strict makes them failures.

Exit status: 0 when every case passed, 1 on any failure, 2 when the bundle
is malformed or pw-run cannot run.

    python3 differential_pipeline_runner.py BUNDLE --pw-run PATH [--jobs N]
        [--only ID] [--list] [--wrapper 'compute-sanitizer --tool memcheck']
"""

import argparse
import concurrent.futures
import json
import os
import re
import shlex
import subprocess
import sys
import time

BUNDLE_FORMAT = "pw-differential-pipeline-1"
SENSITIVE_FRACTION = 0.10
SENSITIVE_MINIMUM = 2
DIFFER = re.compile(r"(\d+) of (\d+) buffer elements differ")
LAUNCH_SITES = re.compile(r"pw-gpu-pipeline, (\d+) kernel launch site")


def load(bundle):
    path = os.path.join(bundle, "cases.json")
    try:
        with open(path) as f:
            manifest = json.load(f)
    except (OSError, ValueError) as error:
        raise SystemExit(f"differential-pipeline: malformed bundle: {path}: "
                         f"{error}")
    if manifest.get("format") != BUNDLE_FORMAT:
        raise SystemExit(f"differential-pipeline: malformed bundle: {path} "
                         f"is not {BUNDLE_FORMAT}")
    for case in manifest["cases"]:
        if not os.path.isfile(os.path.join(bundle, case["file"])):
            raise SystemExit(f"differential-pipeline: malformed bundle: "
                             f"{case['id']}: no {case['file']}")
    return manifest


def command(args, bundle, case):
    words = shlex.split(args.wrapper) if args.wrapper else []
    words += [args.pw_run, os.path.join(bundle, case["file"]), "--entry",
              case["entry"], "--target=cuda", "--gpu-path=pipeline"]
    for spec in case["args"]:
        words += ["--arg", spec]
    return words + ["--seed", str(case["seed"]), "--check"]


def classify(case, returncode, output):
    """(verdict, detail): pass, tolerated or fail."""
    if returncode == 0 and "check passed" in output:
        return "pass", ""
    counts = [(int(d), int(t)) for d, t in DIFFER.findall(output)]
    if (returncode == 1 and "check FAILED" in output and counts
            and case["rounding_sensitive"]
            and all(d <= max(SENSITIVE_MINIMUM, int(SENSITIVE_FRACTION * t))
                    for d, t in counts)):
        return "tolerated", "; ".join(f"{d} of {t} elements"
                                      for d, t in counts)
    return "fail", output.strip()[-2000:]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("bundle")
    parser.add_argument("--pw-run", default="pw-run")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--only", action="append", default=[])
    parser.add_argument("--first", type=int, default=0,
                        help="skip the first N cases")
    parser.add_argument("--limit", type=int, default=0,
                        help="run at most N cases")
    parser.add_argument("--list", action="store_true")
    parser.add_argument("--strict", action="store_true")
    parser.add_argument("--wrapper", default="",
                        help="a command that runs pw-run (compute-sanitizer)")
    parser.add_argument("--timeout", type=float, default=300.0)
    args = parser.parse_args(argv)

    manifest = load(args.bundle)
    cases = manifest["cases"]
    if args.only:
        cases = [c for c in cases if c["id"] in args.only]
    cases = cases[args.first:]
    if args.limit:
        cases = cases[:args.limit]
    if args.list:
        for case in cases:
            print(f"{case['id']} ({case['origin']}): "
                  f"{' '.join(command(args, args.bundle, case)[1:])}")
        print(f"{len(cases)} cases (seed {manifest['seed']}); "
              f"{len(manifest['left_out'])} generated cases left out")
        return 0

    def run(case):
        try:
            done = subprocess.run(command(args, args.bundle, case),
                                  capture_output=True, text=True,
                                  timeout=args.timeout)
        except subprocess.TimeoutExpired:
            return case, "fail", f"timed out after {args.timeout:.0f} s"
        except OSError as error:
            raise SystemExit(f"differential-pipeline: cannot run "
                             f"{args.pw_run}: {error}")
        output = done.stdout + done.stderr
        sites = LAUNCH_SITES.search(output)
        return (case, *classify(case, done.returncode, output),
                int(sites.group(1)) if sites else 0)

    start = time.monotonic()
    counts = {"pass": 0, "tolerated": 0, "fail": 0}
    failures = []
    # Cases whose function launches two or more kernels: outlining names
    # them all after the function, so gpu.modules hold kernels of one name.
    one_name = 0
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        for done, (case, verdict, detail, sites) in enumerate(
                pool.map(run, cases), 1):
            one_name += verdict == "pass" and sites >= 2
            if args.strict and verdict == "tolerated":
                verdict = "fail"
            counts[verdict] += 1
            if verdict == "tolerated":
                print(f"TOLERATED {case['id']} ({case['origin']}): {detail}")
            elif verdict == "fail":
                failures.append(case)
                print(f"FAIL {case['id']} ({case['origin']}):\n  "
                      + " ".join(shlex.quote(w) for w in
                                 command(args, args.bundle, case))
                      + "\n" + detail.replace("\n", "\n  "))
            if done % 50 == 0 or done == len(cases):
                print(f"[{done}/{len(cases)}] {time.monotonic() - start:.0f} s",
                      flush=True)
    print(f"{len(cases)} cases: {counts['pass']} passed, "
          f"{counts['tolerated']} tolerated, {counts['fail']} failed "
          f"(seed {manifest['seed']}, {len(manifest['left_out'])} left out)")
    print(f"{one_name} passed cases launch kernels of one name from one "
          f"function (two or more launch sites)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
