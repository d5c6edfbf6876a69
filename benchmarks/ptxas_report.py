#!/usr/bin/env python3
"""Prints ptxas resource usage of the benchmark workloads' kernels.

Compiles every workload of the benchmark suite (the static layouts in
test/Transforms/coalesce-dims-bench-workloads.mlir, the shapes of
../shared/bench/peers.py) with pw-gpu-pipeline to PTX, assembles each
kernel with `ptxas -v -arch=sm_90`, and prints a table of strategy,
registers, shared memory, stack and spills. Usage:

  python3 benchmarks/ptxas_report.py [--build build] [--ptxas PATH]
"""

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
WORKLOADS = os.path.join(ROOT, "test", "Transforms",
                         "coalesce-dims-bench-workloads.mlir")
ESCAPE = re.compile(r"\\([0-9A-Fa-f]{2})")


def run(command, **kwargs):
    result = subprocess.run(command, capture_output=True, text=True, **kwargs)
    if result.returncode != 0:
        sys.exit(f"{' '.join(command)} failed:\n{result.stderr}")
    return result


def strategies(pw_opt):
    """Strategy pw-tile picks per workload, from the tiled IR."""
    tiled = run([pw_opt, WORKLOADS, "--pw-canonicalize-broadcast",
                 "--pw-coalesce-dims", "--pw-tile"]).stdout
    found = {}
    for function in re.split(r"\n  func\.func ", tiled)[1:]:
        name = function.split("(", 1)[0].lstrip("@")
        match = re.search(r'pointwise\.strategy = "(\w+)"', function)
        found[name] = match.group(1) if match else "?"
    return found


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--build", default=os.path.join(ROOT, "build"))
    parser.add_argument("--ptxas", default=shutil.which("ptxas") or
                        "/usr/local/cuda/bin/ptxas")
    parser.add_argument("--arch", default="sm_90")
    args = parser.parse_args()
    pw_opt = os.path.join(args.build, "bin", "pw-opt")
    lowered = run([pw_opt, WORKLOADS, "--pw-gpu-pipeline=format=isa"]).stdout
    modules = [ESCAPE.sub(lambda m: chr(int(m.group(1), 16)), text) for text in
               re.findall(r'assembly = "((?:[^"\\]|\\.)*)"', lowered)]
    chosen = strategies(pw_opt)
    rows = []
    with tempfile.TemporaryDirectory() as directory:
        for index, ptx in enumerate(modules):
            path = os.path.join(directory, f"kernel{index}.ptx")
            with open(path, "w") as f:
                f.write(ptx)
            report = run([args.ptxas, "-v", f"-arch={args.arch}", path,
                          "-o", os.devnull]).stderr
            kernel = re.search(r"Compiling entry function '(\w+)'", report).group(1)
            registers = re.search(r"Used (\d+) registers", report).group(1)
            smem = re.search(r"(\d+) bytes smem", report)
            frame = re.search(r"(\d+) bytes stack frame, (\d+) bytes spill stores, "
                              r"(\d+) bytes spill loads", report)
            workload = kernel.removesuffix("_kernel")
            rows.append((workload, chosen.get(workload, "?"), registers,
                         smem.group(1) if smem else "0", frame.group(1),
                         frame.group(2), frame.group(3)))
    print(f"ptxas -v, {args.arch}, pw-gpu-pipeline defaults\n")
    print("| workload | strategy | registers | smem bytes | stack bytes | spill stores | spill loads |")
    print("|---|---|---|---|---|---|---|")
    for row in rows:
        print("| " + " | ".join(row) + " |")
    if any(row[5] != "0" or row[6] != "0" for row in rows):
        sys.exit("ptxas_report: some kernel spills registers")


if __name__ == "__main__":
    main()
