#!/usr/bin/env python3
"""Runs each workload once with our family and once with Inductor (static
shapes) inside an NVTX range named ``profile``, for Nsight Compute to read
the hardware counters of exactly those kernels:

    ncu --clock-control none --nvtx --nvtx-include "profile/" \\
        --metrics ... python3 ncu_compare.py --lib workloads.so \\
        [--workloads a,b] [--libs-extra other.so]

Warm-up calls (compilation, autotuning, our first launch) happen outside
the range. The script prints, in launch order, which workload and which
side each profiled kernel belongs to; with --libs-extra, the families of
the other library are profiled too, after ours, in the same range.
"""

import argparse
import pathlib
import sys

import torch

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import gpu_bench as gb  # noqa: E402


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--lib", default="")
    parser.add_argument("--libs-extra", default="",
                        help="comma-separated other workloads.so builds")
    parser.add_argument("--workloads", default="")
    parser.add_argument("--no-inductor", action="store_true")
    options = parser.parse_args()
    names = [n for n in options.workloads.split(",") if n] or list(gb.W)
    lib_path, package_dir = gb._find_paths(options.lib)
    sys.path.insert(0, str(package_dir))
    import pointwise as pw
    gb.pw = pw
    libs = [lib_path] + [pathlib.Path(p) for p in
                         options.libs_extra.split(",") if p]
    families = []
    for lib in libs:
        library = pw.KernelLibrary(str(lib))
        families.append((lib.stem, {name: library.family(name)
                                    for name in set(gb.FAMILY_OF.values())}))
    gb.g = torch.Generator(device=gb.dev).manual_seed(0)
    order = []
    for name in names:
        case = gb.W[name]()
        args = case.args
        outs = case.outs(*args)
        for _, fams in families:
            gb.F = fams
            for _ in range(3):
                case.ours(*args, *outs)
        compiled = None
        if not options.no_inductor:
            compiled = torch.compile(case.eager, dynamic=False)
            for _ in range(3):
                compiled(*args)
        torch.cuda.synchronize()
        torch.cuda.nvtx.range_push("profile")
        for label, fams in families:
            gb.F = fams
            case.ours(*args, *outs)
            order.append("%s / %s" % (name, label))
        if compiled is not None:
            compiled(*args)
            order.append("%s / inductor" % name)
        torch.cuda.synchronize()
        torch.cuda.nvtx.range_pop()
        del case, args, outs, compiled
        torch.cuda.empty_cache()
    print("profiled launches, in order:")
    for index, what in enumerate(order):
        print("  %2d %s" % (index, what))


if __name__ == "__main__":
    main()
