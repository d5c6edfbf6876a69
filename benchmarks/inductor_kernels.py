#!/usr/bin/env python3
"""What Inductor generates for gpu_bench.py's workloads, and what the
timing method costs a dense copy of rank5_sliced's bytes.

    python3 inductor_kernels.py [--out DIR] [--workloads a,b] [--lib L]

Needs a CUDA GPU, torch and Triton. Set TRITON_CACHE_DIR before starting
(the script sets it to DIR/triton-cache when unset), so that the PTX of
Inductor's kernels can be found.

For every workload: torch.compile(dynamic=False) of the eager function,
its generated module (`DIR/<workload>.py`, Triton source inline, with the
autotuner's choice), and per Triton kernel a line of what its PTX does:
vector widths of global loads and stores, cache and eviction qualifiers,
L2 cache-hint policies, shared memory, warps and whether it was built for
programmatic dependent launch.

Then `--dense-copy`: do_bench of contiguous copies of 2^k floats (torch's
copy_ and, with --lib, our copy family), in % of copy bandwidth, to show
how much of a small workload's time under do_bench is the flush's
write-back rather than the kernel (rank5_sliced moves 2 x 64 MiB).
"""

import argparse
import collections
import json
import os
import pathlib
import re
import sys

HERE = pathlib.Path(__file__).resolve().parent


def ptx_summary(text):
    """Counts of the access instructions of one PTX kernel."""
    counts = collections.Counter()
    for line in text.splitlines():
        line = line.strip()
        m = re.match(r"(?:@%p\d+\s+)?(ld|st)\.global((?:\.[\w:]+)*)", line)
        if m:
            kind, quals = m.group(1), m.group(2)
            width = re.search(r"\.v(\d)", quals)
            counts["%s%s" % (kind, ".v" + width.group(1) if width else "")] += 1
            for q in ("nc", "L1::evict_last", "L1::evict_first",
                      "L1::no_allocate", "L2::cache_hint", "L2::evict_last",
                      "L2::evict_first", "cs", "cg", "lu"):
                if "." + q in quals + ".":
                    counts["%s.%s" % (kind, q)] += 1
        if "createpolicy" in line:
            counts[line.split()[0]] += 1
        if "griddepcontrol" in line:
            counts[line.split()[0].rstrip(";")] += 1
    return dict(sorted(counts.items()))


def find_ptx(cache, name):
    """(ptx text, metadata) of Triton kernel `name` in the Triton cache."""
    for path in pathlib.Path(cache).rglob(name + ".ptx"):
        meta = {}
        json_path = path.with_suffix(".json")
        if json_path.exists():
            meta = json.loads(json_path.read_text())
        return path.read_text(), meta
    return None, {}


def record_autotuner_choices():
    """{kernel name: its launcher's config} of every Inductor kernel run from
    now on (the generated source lists the candidates, not the choice)."""
    from torch._inductor.runtime import triton_heuristics
    chosen = {}
    run = triton_heuristics.CachingAutotuner.run

    def recording_run(self, *args, **kwargs):
        result = run(self, *args, **kwargs)
        name = self.inductor_meta.get("kernel_name")
        if name and getattr(self, "launchers", None):
            chosen[name] = str(self.launchers[0].config)
        return result
    triton_heuristics.CachingAutotuner.run = recording_run
    return chosen


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", default=os.environ.get("OUT", "/tmp"))
    parser.add_argument("--workloads", default="")
    parser.add_argument("--lib", default="",
                        help="a workloads.so: also time our copy family")
    parser.add_argument("--dense-copy", action="store_true")
    options = parser.parse_args()
    out = pathlib.Path(options.out)
    out.mkdir(parents=True, exist_ok=True)
    cache = os.environ.setdefault("TRITON_CACHE_DIR",
                                  str(out / "triton-cache"))

    import torch
    from torch._inductor.utils import run_and_get_code
    sys.path.insert(0, str(HERE))
    import gpu_bench as gb

    if options.lib:
        gb.use_library(options.lib)
    chosen = record_autotuner_choices()
    gb.g = torch.Generator(device=gb.dev).manual_seed(0)
    names = [n for n in options.workloads.split(",") if n] or list(gb.W)
    if not options.lib:
        names = [n for n in names if n != "flip_f32"]  # needs pw.Strided

    for name in names:
        case = gb.W[name]()
        torch._dynamo.reset()
        compiled = torch.compile(case.eager, dynamic=False)
        _, sources = run_and_get_code(compiled, *case.args)
        torch.cuda.synchronize()
        code = "\n\n# ---- next module ----\n\n".join(sources)
        (out / (name + ".py")).write_text(code)
        kernels = sorted(set(re.findall(r"def (triton_\w+)\(", code)))
        print("== %s: %d kernel(s)" % (name, len(kernels)))
        for kernel in kernels:
            ptx, meta = find_ptx(cache, kernel)
            if ptx is None:
                print("   %s: no PTX found in %s" % (kernel, cache))
                continue
            keys = ("num_warps", "num_stages", "shared", "launch_pdl",
                    "launch_cooperative_grid")
            print("   %s: %s" % (kernel, {k: meta.get(k) for k in keys}))
            if kernel in chosen:
                print("      autotuner's choice: %s" % chosen[kernel])
            print("      %s" % ptx_summary(ptx))
        del case

    if options.dense_copy:
        ceiling = gb.copy_bw()
        print("== dense copies under do_bench (%% of %.0f GB/s)" % ceiling)
        for log2 in (22, 24, 26, 28):
            x = gb.rnd(1 << log2)
            y = torch.empty_like(x)
            rows = [("torch copy_", lambda: y.copy_(x))]
            if options.lib:
                rows.append(("our copy_f32",
                             lambda: gb.F["copy_f32"](x, y)))
            for label, fn in rows:
                ms = gb.bench(fn)
                print("   2^%d floats (%6.1f MiB each way) %-12s %6.1f"
                      % (log2, x.numel() * 4 / 2**20, label,
                         100 * 2 * x.numel() * 4 / (ms * 1e-3) / 1e9 / ceiling))
            del x, y


if __name__ == "__main__":
    main()
