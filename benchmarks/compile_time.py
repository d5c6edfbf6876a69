#!/usr/bin/env python3
"""Compile latency of kernel families: prints tables.

1. First call of a freshly decorated binary f32 add (``@pw.pointwise``), per
   rank 1-6, in a new process: cold (empty disk cache) and warm (the cache
   filled by the cold run), as the median of ``--repeat`` processes, split
   into stages: import of the package, the wait for the compiler library
   (the decorator starts loading it on a thread of its own; the wait is
   what is left of that when the first call needs it), trace (Python ->
   MLIR), compile (pwcCompile: MLIR passes, LLVM NVPTX, PTX ->
   cubin where the format asks for it, host object), save (pwcSave and its
   hash), load (disk cache: hash and pwcLoad), and launch (the first call's
   remainder: layout dispatch, GPU module load (with PTX, the format used
   where no ptxas is found, the driver's JIT of the one variant launched),
   kernel, synchronization); `cpu` is the process's CPU time (user + sys)
   over the first call, on every thread, and `next` the call after it
   whose operand is transposed, which needs another variant (ranks >= 2),
   of which `next_load` is the variant's load from the disk cache (warm,
   on demand: the hash check, pwcLoad's JIT link and the GPU module load
   of its initializer; 0 where nothing is loaded).
   Per mode (``--modes``): `on-demand`, the package's default, compiles the
   family's tables and then each variant when a call first chooses it;
   `complete` (``POINTWISE_ON_DEMAND=0``) compiles every variant at the
   first call; `serial` is `on-demand` without the decorator's loading of
   the compiler library ahead of the call (``POINTWISE_PREFETCH=0``): the
   first call loads it.
   With a CUDA device (PyTorch) the call runs on it; without one, what the
   first call compiles is compiled for ``--chip`` exactly as it would be
   (on demand: the tables and the variant a contiguous call chooses), and
   nothing is launched.
2. Where ``pw-compile`` is found (``--pw-compile``, or ``build/bin``): the
   same rank-r add family through ``pw-compile --mlir-timing``, split into
   the MLIR passes, gpu-module-to-binary (LLVM NVPTX, and ptxas for cubins:
   the difference between ``format=fatbin`` and ``format=isa``) and the host
   code, and with ``--workloads``, the wall time of compiling
   benchmarks/workloads.mlir.

Each measurement is a new process; on a busy machine, take the medians of
several repeats (``--repeat``).

    python3 benchmarks/compile_time.py [--repeat 3] [--ranks 1-6]
"""

import argparse
import json
import os
import resource
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
STAGES = ["import", "compiler", "trace", "compile", "save", "load", "launch",
          "first_call", "cpu", "next", "next_load"]
MODES = ["on-demand", "complete", "serial"]


def cpu_seconds():
    """CPU time (user + sys) of this process's threads and of the children
    it waited for (ptxas)."""
    return sum(usage.ru_utime + usage.ru_stime for usage in (
        resource.getrusage(resource.RUSAGE_SELF),
        resource.getrusage(resource.RUSAGE_CHILDREN)))


def variant_index(family, rank, bits, strategy, transposed=-1):
    """The index of a variant row of the pwFamily at address `family`."""
    from pointwise._runtime import _PwFamily
    table = _PwFamily.from_address(family)
    for i in range(table.numVariants):
        v = table.variants[i]
        if (v.rank, v.indexBitwidth, v.strategy, v.transposedArgument) == (
                rank, bits, strategy, transposed):
            return i
    raise LookupError("no variant of rank %d" % rank)


def child(rank, device, chip):
    """One first call in this (new) process; prints its stages as JSON."""
    start = time.perf_counter()
    import numpy as np
    import pointwise as pw
    from pointwise import _compiler, _pointwise, _trace
    times = dict.fromkeys(STAGES, 0.0)
    times["import"] = time.perf_counter() - start

    def timed(stage, function):
        def wrapper(*args, **kwargs):
            began = time.perf_counter()
            try:
                return function(*args, **kwargs)
            finally:
                times[stage] += time.perf_counter() - began
        return wrapper

    # The compiler library: the decorator starts loading it on a thread of
    # its own (unless POINTWISE_PREFETCH=0); `compiler` is the time the
    # first call waits for it (or loads it).
    load_compiler = _compiler.load_compiler

    def timed_load_compiler():
        main = threading.current_thread() is threading.main_thread()
        began = time.perf_counter()
        compiler = load_compiler()
        if main:
            times["compiler"] += time.perf_counter() - began
        with compile_lock:
            if not hasattr(compiler.lib.pwcCompile, "timed"):
                compiler.lib.pwcCompile = timed("compile",
                                                compiler.lib.pwcCompile)
                compiler.lib.pwcCompile.timed = True
        return compiler

    compile_lock = threading.Lock()
    _compiler.load_compiler = timed_load_compiler
    _compiler._load = timed("load", _compiler._load)
    _compiler._save = timed("save", _compiler._save)
    _trace.trace_function = timed("trace", _trace.trace_function)

    @pw.pointwise(promotion_methods=[(0, 1, "DEFAULT")])
    def add(x, y):
        return x + y

    shape = (2, 3, 4, 5, 6, 7)[:rank]
    x = np.ones(shape, np.float32)
    if device == "cuda":
        import torch
        a = torch.from_numpy(x).cuda()
        flipped = torch.from_numpy(np.ascontiguousarray(x.T)).cuda().permute(
            *reversed(range(rank)))
        torch.cuda.synchronize()
        began, cpu = time.perf_counter(), cpu_seconds()
        result = add(a, a)
        torch.cuda.synchronize()
        times["first_call"] = time.perf_counter() - began
        times["cpu"] = cpu_seconds() - cpu
        assert bool((result == 2).all())
        first = dict(times)
        if rank > 1:
            loaded = times["load"]
            began = time.perf_counter()
            result = add(a, flipped)
            torch.cuda.synchronize()
            times["next"] = time.perf_counter() - began
            times["next_load"] = times["load"] - loaded
            assert bool((result == 2).all())
    else:
        # What the first call on a GPU compiles, without launching it.
        from pointwise._runtime import PW_STRATEGY_LINEAR, PW_STRATEGY_TRANSPOSE
        began, cpu = time.perf_counter(), cpu_seconds()
        params = [_trace.Param("tensor", "float32", rank)] * 2
        source = _trace.trace_function(add.fn, params, ["float32"],
                                       add._symbol, rank=rank)
        options = "target=cuda chip=%s format=%s" % (chip,
                                                     _pointwise._gpu_format())
        library = _compiler.compile_families(source, options, "add",
                                             (add._symbol,))
        family = library.family(add._symbol)
        on_demand = library.on_demand_families.get(add._symbol)
        if on_demand is not None:
            # Contiguous operands coalesce to rank 1, 32-bit indices.
            on_demand.load(variant_index(family, 1, 32, PW_STRATEGY_LINEAR))
        times["first_call"] = time.perf_counter() - began
        times["cpu"] = cpu_seconds() - cpu
        first = dict(times)
        if on_demand is not None and rank > 1:
            loaded = times["load"]
            began = time.perf_counter()
            on_demand.load(variant_index(family, rank, 32,
                                         PW_STRATEGY_TRANSPOSE, 1))
            times["next"] = time.perf_counter() - began
            times["next_load"] = times["load"] - loaded
    # The stages of the first call alone; `next` is the second call whole.
    first["next"] = times["next"]
    first["next_load"] = times["next_load"]
    first["launch"] = max(0.0, first["first_call"] - first["compiler"] -
                          first["trace"] - first["compile"] - first["save"] -
                          first["load"])
    print(json.dumps(first))


def run_child(rank, device, chip, cache, package, mode):
    env = dict(os.environ, POINTWISE_CACHE_DIR=cache, POINTWISE_PROGRESS="0",
               POINTWISE_ON_DEMAND="0" if mode == "complete" else "1",
               POINTWISE_PREFETCH="0" if mode == "serial" else "1")
    if os.path.isdir(os.path.join(package, "pointwise")):
        env["PYTHONPATH"] = os.pathsep.join(
            [package] + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else []))
    out = subprocess.run(
        [sys.executable, os.path.abspath(__file__), "--child", str(rank),
         "--device", device, "--chip", chip],
        env=env, capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def median_table(rows):
    return {stage: statistics.median(r[stage] for r in rows)
            for stage in STAGES}


def ms(seconds):
    return "%8.1f" % (seconds * 1e3)


def first_call_tables(args, device):
    print("First call of a new @pw.pointwise binary f32 add, new process "
          "(%s; median of %d; ms)" % (
              "launched on the GPU" if device == "cuda"
              else "compiled for %s, not launched" % args.chip, args.repeat))
    header = "%-10s %-5s %-5s" % ("mode", "rank", "cache") + "".join(
        "%11s" % s for s in STAGES)
    print(header)
    for mode in args.modes:
        for rank in args.ranks:
            cold, warm = [], []
            for _ in range(args.repeat):
                cache = tempfile.mkdtemp(prefix="pw-compile-time-")
                try:
                    cold.append(run_child(rank, device, args.chip, cache,
                                          args.package, mode))
                    warm.append(run_child(rank, device, args.chip, cache,
                                          args.package, mode))
                finally:
                    shutil.rmtree(cache, ignore_errors=True)
            for name, rows in (("cold", cold), ("warm", warm)):
                m = median_table(rows)
                print("%-10s %-5d %-5s" % (mode, rank, name) +
                      "".join("   " + ms(m[s]) for s in STAGES))
    print()


def find_pw_compile(args):
    if args.pw_compile:
        return args.pw_compile
    for candidate in (os.path.join(ROOT, "build", "bin", "pw-compile"),
                      shutil.which("pw-compile")):
        if candidate and os.access(candidate, os.X_OK):
            return candidate
    return None


def add_source(rank):
    memref = "memref<%sxf32, strided<[%s], offset: ?>>" % (
        "x".join("?" * rank), ", ".join("?" * rank))
    return ("func.func @add_f32(%%x: %s, %%y: %s, %%out: %s) {\n"
            "  pointwise.map ins(%%x, %%y : %s, %s) outs(%%out : %s) {\n"
            "  ^bb0(%%a: f32, %%b: f32):\n"
            "    %%s = arith.addf %%a, %%b : f32\n"
            "    pointwise.yield %%s : f32\n  }\n  return\n}\n"
            % ((memref,) * 6))


TIMING_ROW = re.compile(r"^\s*([\d.]+)\s+\(\s*[\d.]+%\)\s+(?:([\d.]+)\s+"
                        r"\(\s*[\d.]+%\)\s+)?(.+?)\s*$")


def pw_compile_stages(tool, path, fmt, chip, index_bitwidths):
    """Wall time and the --mlir-timing rows (name -> seconds) of one run."""
    widths = ["--index-bitwidths=" + index_bitwidths] if index_bitwidths else []
    with tempfile.TemporaryDirectory() as out:
        began = time.perf_counter()
        result = subprocess.run(
            [tool, path, "-o", os.path.join(out, "f.o"), "--quiet",
             "--format=" + fmt, "--chip=" + chip, "--mlir-timing",
             "--mlir-timing-display=list"] + widths,
            capture_output=True, text=True, check=True)
        wall = time.perf_counter() - began
    rows = {}
    for line in result.stderr.splitlines():
        match = TIMING_ROW.match(line)
        if match:
            seconds = float(match.group(2) or match.group(1))
            rows[match.group(3)] = rows.get(match.group(3), 0.0) + seconds
    return wall, rows


HOST_ROWS = {"translation to LLVM IR", "family entries", "host optimization",
             "host object", "object link", "parse", "family variants"}


def pw_compile_table(args, tool):
    widths = args.index_bitwidths or "32"
    print("pw-compile of the rank-r add family (%s; index bitwidths %s; median "
          "of %d; ms; pass times summed over the threads that ran them)" % (
              tool, widths, args.repeat))
    columns = ["variants", "wall", "passes", "to-binary", "NVPTX", "ptxas",
               "host"]
    print("%-5s" % "rank" + "".join("%10s" % c for c in columns))
    # Per bitwidth: a linear variant per rank and, from rank 2, a narrow one
    # and a transpose per input (docs/Families.md).
    per_width = len(set(widths.split(",")))
    with tempfile.TemporaryDirectory() as work:
        for rank in args.ranks:
            path = os.path.join(work, "add_r%d.mlir" % rank)
            with open(path, "w") as f:
                f.write(add_source(rank))
            runs = {"fatbin": [], "isa": []}
            for _ in range(args.repeat):
                for fmt in runs:
                    runs[fmt].append(pw_compile_stages(
                        tool, path, fmt, args.chip, args.index_bitwidths))

            def med(fmt, pick):
                return statistics.median(pick(w, r) for w, r in runs[fmt])

            def passes(w, r):
                return sum(v for k, v in r.items()
                           if k not in HOST_ROWS and k not in (
                               "GpuModuleToBinaryPass", "Total", "Rest",
                               "root") and not k.startswith("(A)")
                           and not k.endswith("Pipeline")
                           and not k.startswith("Pipeline Collection"))

            wall = med("fatbin", lambda w, r: w)
            binary = med("fatbin",
                         lambda w, r: r.get("GpuModuleToBinaryPass", 0.0))
            nvptx = med("isa", lambda w, r: r.get("GpuModuleToBinaryPass", 0.0))
            host = med("fatbin", lambda w, r: sum(r.get(k, 0.0)
                                                  for k in HOST_ROWS))
            print("%-5d" % rank + "%10d" % ((4 * rank - 3) * per_width) +
                  "".join("%10.1f" % (v * 1e3) for v in (
                      wall, med("fatbin", passes), binary, nvptx,
                      max(0.0, binary - nvptx), host)))
    print()
    if args.workloads:
        walls = []
        for _ in range(args.repeat):
            with tempfile.TemporaryDirectory() as out:
                began = time.perf_counter()
                subprocess.run([tool, args.workloads, "-o",
                                os.path.join(out, "w.o"), "--quiet"],
                               check=True)
                walls.append(time.perf_counter() - began)
        print("pw-compile %s: %.2f s (median of %d)\n" % (
            args.workloads, statistics.median(walls), args.repeat))


def parse_ranks(text):
    if "-" in text:
        low, high = text.split("-")
        return list(range(int(low), int(high) + 1))
    return [int(r) for r in text.split(",")]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ranks", type=parse_ranks, default=parse_ranks("1-6"))
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--index-bitwidths",
                        help="pw-compile's --index-bitwidths for its table "
                             "(default: pw-compile's, 32)")
    parser.add_argument("--modes", type=lambda t: t.split(","),
                        default=MODES, help="first-call modes to measure, "
                        "comma-separated: on-demand, complete, serial (default all)")
    parser.add_argument("--device", choices=["auto", "cpu", "cuda"],
                        default="auto", help="cuda: launch on the GPU "
                        "(PyTorch); cpu: compile only (default: cuda when "
                        "there is one)")
    parser.add_argument("--chip", default="sm_90",
                        help="GPU architecture when compiling without a GPU")
    parser.add_argument("--pw-compile", help="pw-compile to time (default: "
                        "build/bin/pw-compile or PATH; none: skip)")
    parser.add_argument("--workloads", nargs="?", const=os.path.join(
        HERE, "workloads.mlir"), help="also time pw-compile of this file "
        "(default benchmarks/workloads.mlir)")
    parser.add_argument("--package", default=os.path.join(ROOT,
                                                          "python_bindings"),
                        help="directory holding the pointwise package "
                        "(default: python_bindings of this tree, else the "
                        "one Python finds)")
    parser.add_argument("--child", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    args.package = os.path.abspath(args.package)
    if args.child is not None:
        child(args.child, args.device, args.chip)
        return
    device = args.device
    if device == "auto":
        try:
            import torch
            device = "cuda" if torch.cuda.is_available() else "cpu"
        except ImportError:
            device = "cpu"
    print("machine: %d cores, load average %.1f; python %s\n" % (
        os.cpu_count(), os.getloadavg()[0], sys.version.split()[0]))
    first_call_tables(args, device)
    tool = find_pw_compile(args) if args.pw_compile != "none" else None
    if tool:
        pw_compile_table(args, tool)


if __name__ == "__main__":
    main()
