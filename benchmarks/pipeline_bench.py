#!/usr/bin/env python3
"""The embedder's GPU path against the families and the peers, in one
process: programs compiled by pw-gpu-pipeline (pipeline_modules.py) on the
GPU machine.

Part 1, static workloads: the 13 workloads of gpu_bench.py (peers.py's),
each as our kernel family (Family.__call__, as gpu_bench.py times it) and as
a static-shape module compiled by pw-gpu-pipeline (its entry called through
its C interface), with a dense copy of the same bytes, timed in interleaved
rounds under do_bench; effective bandwidth as a percentage of the copy
bandwidth, and the difference pipeline - family in points.

Part 2, fused chains: tanh-GELU as nine ops, bias + GELU + dropout with the
mask as a tensor, and a twelve-input chain, at 2^26 and 2^16 elements (f32,
and bf16 where it applies): ours (the chain written as one map per op, fused
by pw-fuse-maps into one kernel) against PyTorch eager (the same ops, one
call each), Inductor (torch.compile of eager's function) and FlagGems (the
whole chain as one pointwise_dynamic kernel), with a copy of the fused
bytes. Columns: ours as % of the copy bandwidth for its own bytes, twice:
against a copy of exactly the chain's bytes timed in the same rounds
(`same-bytes copy`, the target's measure), and against the machine's
copy bandwidth of a 2 GiB copy (`copy_bw`, larger and so a little faster
than a copy of the chain's own bytes); eager /
ours against the ideal ratio (the bytes eager's separate ops move / the
fused bytes); Inductor / ours. At 2^16, where launches dominate, a second
table gives the host time per call (back-to-back calls, one
synchronization) and eager / ours against the number of ops.

Outputs are compared with eager's on every element before timing.

    python3 pipeline_bench.py --workloads-lib pipeline_workloads.so \\
        --chains-lib pipeline_chains.so --families workloads.so \\
        [--runtime libPointwiseRuntime.so] [--no-inductor] [--flaggems DIR]
        [--rounds N] [--json PATH]
"""

import argparse
import datetime
import json
import os
import pathlib
import statistics
import sys

import torch
import triton

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import gpu_bench  # noqa: E402  (the workloads, timing and comparison)
import pipeline_modules as pm  # noqa: E402
from pipeline_modules import descriptor  # noqa: E402

M, N = pm.M, pm.N


def workload_descriptors(name, args, outs):
    """The descriptors of static workload `name`'s entry for gpu_bench's
    arguments `args` and outputs `outs`."""
    d = descriptor
    if name == "add_transposed_f32":
        return [d(args[0]), d(args[1].t()), d(outs[0])]
    if name == "transpose_copy_f32":
        return [d(args[0].t()), d(outs[0])]
    if name == "strided_slice_f32":
        return [d(args[0][:, ::2]), d(args[1]), d(outs[0])]
    if name == "flip_f32":
        x = args[0]
        return [d(x, strides=[-N, -1], offset=M * N - 1, base=x), d(outs[0])]
    if name == "rank5_sliced_scalar_f32":
        x = args[0]
        return [d(x, offset=64 * 65), d(outs[0])]
    return [d(t) for t in (*args, *outs)]


def timed_rounds(calls, rounds):
    """{name: median ms over `rounds` interleaved rounds}."""
    names = list(calls)
    samples = {name: [] for name in names}
    for r in range(rounds):
        for name in names[r % len(names):] + names[:r % len(names)]:
            samples[name].append(gpu_bench.bench(calls[name]))
    return {name: statistics.median(v) for name, v in samples.items()}


def static_workloads(library, families, options, ceiling):
    print("\n== static workloads: pw-gpu-pipeline module vs kernel family "
          "(%% of copy bandwidth; median of %d interleaved rounds)"
          % options.rounds)
    print("| workload | family | pipeline | pipeline - family | copy of the "
          "bytes | max error |")
    print("|---|---|---|---|---|---|")
    gpu_bench.F = families
    rows, failed = [], False
    for name in gpu_bench.W:
        case = gpu_bench.W[name]()
        entry = library.entry(name)
        outs = case.outs(*case.args)
        for o in outs:
            o.fill_(float("nan"))
        entry(*workload_descriptors(name, case.args, outs))
        err, ok = gpu_bench.compare(outs, case.eager(*case.args), case)
        failed |= not ok
        descriptors = workload_descriptors(name, case.args, outs)
        family_outs = case.outs(*case.args)
        copy_call, _buffers = gpu_bench.same_bytes_copy(case.bytes)
        ms = timed_rounds({
            "family": lambda: case.ours(*case.args, *family_outs),
            "pipeline": library.bind(name, *descriptors),
            "copy": copy_call}, options.rounds)
        pct = {k: 100 * case.bytes / (v * 1e-3) / 1e9 / ceiling
               for k, v in ms.items()}
        rows.append({"name": name, "bytes": case.bytes, "ms": ms, "pct": pct,
                     "max_err": err, "ok": ok})
        print("| %s | %.1f | %.1f | %+.1f | %.1f | %.2g%s |" % (
            name, pct["family"], pct["pipeline"],
            pct["pipeline"] - pct["family"], pct["copy"], err,
            "" if ok else " WRONG"), flush=True)
        del case, outs, family_outs, descriptors, _buffers
        torch.cuda.empty_cache()
    return rows, failed


# ---- fused chains: eager, FlagGems, bytes ----


def rnd(shape, dtype):
    return torch.randn(shape, device="cuda", dtype=torch.float32,
                       generator=gpu_bench.g).to(dtype)


def make_chain(kind, size, dtype):
    """(inputs, eager function, unfused bytes, fused bytes)."""
    n = 1 << size
    es = torch.tensor([], dtype=dtype).element_size()
    if kind == "gelu9":
        x = rnd(n, dtype)

        def eager(x):
            x2 = x * x
            x3 = x2 * x
            a = x3 * 0.044715
            b = x + a
            u = b * 0.7978845608
            t = torch.tanh(u)
            d = t + 1.0
            h = x * 0.5
            return h * d
        # tensor reads + writes of the nine ops (x * x reads x once)
        return (x,), eager, n * es * (12 + 9), n * es * 2
    if kind == "bias_gelu_dropout":
        cols = 1024
        x = rnd((n // cols, cols), dtype)
        bias = rnd(cols, dtype)
        mask = (torch.rand((n // cols, cols), device="cuda",
                           generator=gpu_bench.g) > 0.1).to(torch.int8)

        def eager(x, bias, mask):
            s = x + bias
            g = torch.nn.functional.gelu(s, approximate="tanh")
            k = g * mask
            return k * 1.1111111
        unfused = n * (es + es + es + es + es + 1 + es + es + es)
        return (x, bias, mask), eager, unfused, n * (es + 1 + es)
    if kind == "long12":
        xs = [rnd(n, dtype) for _ in range(pm.LONG_INPUTS)]

        def eager(*i):
            v = (i[0] + i[1]) * i[2] - i[3]
            w = torch.minimum(torch.maximum(i[4], i[5]), i[6])
            v = v + w
            u = i[7] * i[8] - i[9]
            s = torch.where(v > u, v, u)
            return (s + i[10]) * i[11]
        # 12 ops: 11 binary ones reading 2 tensors, the comparison 2
        # (writing a bool), the select 3; every op writes one tensor
        unfused = n * es * (2 * 10 + 2 + 3 + 11) + n * 1 * (1 + 1)
        return tuple(xs), eager, unfused, n * es * (pm.LONG_INPUTS + 1)
    raise ValueError(kind)


def chain_descriptors(kind, args, out):
    return [descriptor(t) for t in (*args, out)]


def flaggems_chains():
    """FlagGems pointwise_dynamic kernels of the whole chains (one kernel
    each), or (None, why)."""
    try:
        import triton.language as tl
        from flag_gems.utils import pointwise_dynamic
    except Exception as e:  # noqa: BLE001
        return None, "FlagGems failed to load: %s" % repr(e)[:200]

    @pointwise_dynamic(promotion_methods=[(0, "DEFAULT")])
    @triton.jit
    def gelu9(x):
        xf = x.to(tl.float32)
        u = 0.7978845608 * (xf + 0.044715 * xf * xf * xf)
        t = 2.0 * tl.sigmoid(2.0 * u) - 1.0
        return 0.5 * xf * (1.0 + t)

    @pointwise_dynamic(promotion_methods=[(0, 1, "DEFAULT")])
    @triton.jit
    def bias_gelu_dropout(x, bias, mask):
        s = x.to(tl.float32) + bias.to(tl.float32)
        u = 0.7978845608 * (s + 0.044715 * s * s * s)
        t = 2.0 * tl.sigmoid(2.0 * u) - 1.0
        g = 0.5 * s * (1.0 + t)
        return g * mask.to(tl.float32) * 1.1111111

    @pointwise_dynamic(promotion_methods=[(0, 1, "DEFAULT")])
    @triton.jit
    def long12(a, b, c, d, e, f, g, h, i, j, k, l):
        v = (a + b) * c - d
        w = tl.minimum(tl.maximum(e, f), g)
        v = v + w
        u = h * i - j
        s = tl.where(v > u, v, u)
        return (s + k) * l

    return {"gelu9": gelu9, "bias_gelu_dropout": bias_gelu_dropout,
            "long12": long12}, None


# Chains of at most this many elements (log2) are launch-bound: their
# calls are also timed as host time per call.
LAUNCH_BOUND_LOG2 = 16


def fused_chains(library, options, ceiling, flaggems):
    print("\n== fused chains: one pw-fuse-maps kernel vs separate eager ops, "
          "Inductor and FlagGems (median ms of %d interleaved rounds)"
          % options.rounds)
    print("| chain | ops | elements | ours ms | ours % of same-bytes copy | "
          "ours % of copy_bw | "
          "eager ms | eager / ours | ideal (bytes ratio) | inductor ms | "
          "inductor / ours | flaggems ms | max error |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    rows, failed, launch_bound = [], False, []
    for kind, size, elem in pm.CHAIN_CASES:
        dtype = {"f32": torch.float32, "bf16": torch.bfloat16}[elem]
        args, eager, unfused, fused = make_chain(kind, size, dtype)
        ops = pm.chain_ops(kind)
        entry = library.entry(f"{kind}_{elem}_{size}")
        ref = eager(*args)
        out = torch.full_like(ref, float("nan"))
        descriptors = chain_descriptors(kind, args, out)
        entry(*descriptors)
        tolerance = 1e-5 if elem == "f32" else 2e-2
        case = gpu_bench.Case(eager, args, fused, None, None,
                              atol=tolerance, rtol=tolerance)
        err, ok = gpu_bench.compare(out, ref, case)
        failed |= not ok
        calls = {"ours": library.bind(f"{kind}_{elem}_{size}", *descriptors),
                 "eager": lambda: eager(*args)}
        copy_call, _buffers = gpu_bench.same_bytes_copy(fused)
        calls["copy"] = copy_call
        if not options.no_inductor:
            compiled = torch.compile(eager, dynamic=False)
            compiled(*args)
            calls["inductor"] = lambda: compiled(*args)
        if flaggems:
            fg = flaggems[kind]
            fg(*args)
            calls["flaggems"] = lambda: fg(*args)
        ms = timed_rounds(calls, options.rounds)
        if size <= LAUNCH_BOUND_LOG2:
            host, _ = gpu_bench.host_rounds(
                {name: (call, ()) for name, call in calls.items()
                 if name != "copy"}, rounds=options.rounds)
            launch_bound.append((kind, elem, size, ops, host))
        own_pct = 100 * fused / (ms["ours"] * 1e-3) / 1e9 / ceiling
        same_bytes_pct = 100 * ms["copy"] / ms["ours"]
        row = {"chain": kind, "elem": elem, "log2_elements": size, "ops": ops,
               "fused_bytes": fused, "unfused_bytes": unfused, "ms": ms,
               "ours_pct_copy": own_pct,
               "ours_pct_same_bytes_copy": same_bytes_pct,
               "ideal_ratio": unfused / fused, "max_err": err, "ok": ok}
        rows.append(row)
        print("| %s %s | %d | 2^%d | %.4f | %.1f | %.1f | %.4f | %.2f | %.2f "
              "| %s | %s | %s | %.2g%s |" % (
                  kind, elem, ops, size, ms["ours"], same_bytes_pct, own_pct,
                  ms["eager"],
                  ms["eager"] / ms["ours"], unfused / fused,
                  gpu_bench.fmt(ms.get("inductor"), "%.4f"),
                  gpu_bench.fmt(ms["inductor"] / ms["ours"] if "inductor" in ms
                                else None, "%.2f"),
                  gpu_bench.fmt(ms.get("flaggems"), "%.4f"), err,
                  "" if ok else " WRONG"), flush=True)
        del args, ref, out, descriptors, _buffers
        torch.cuda.empty_cache()
    print_launch_bound(launch_bound)
    for row, (_kind, _elem, _size, _ops, host) in zip(
            [r for r in rows if r["log2_elements"] <= LAUNCH_BOUND_LOG2],
            launch_bound):
        row["host_us"] = host
    return rows, failed


def print_launch_bound(launch_bound):
    """The launch-bound chains as host time per call: wall-clock over
    thousands of back-to-back calls and one synchronization (gpu_bench's
    small_latency), where do_bench's events time the device instead."""
    if not launch_bound:
        return
    print("\n== launch-bound chains: host us per call (median of interleaved "
          "rounds of back-to-back calls); the target is eager / ours >= "
          "ops - 1 (eager's separate calls against our one)")
    print("| chain | ops | elements | ours us | eager us | eager / ours | "
          "target | inductor us | inductor / ours | flaggems us |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for kind, elem, size, ops, host in launch_bound:
        print("| %s %s | %d | 2^%d | %.2f | %.2f | %.2f | %d | %s | %s | %s |" % (
            kind, elem, ops, size, host["ours"], host["eager"],
            host["eager"] / host["ours"], ops - 1,
            gpu_bench.fmt(host.get("inductor"), "%.2f"),
            gpu_bench.fmt(host["inductor"] / host["ours"]
                          if "inductor" in host else None, "%.2f"),
            gpu_bench.fmt(host.get("flaggems"), "%.2f")), flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--workloads-lib", required=True)
    parser.add_argument("--chains-lib", required=True)
    parser.add_argument("--families", required=True,
                        help="workloads.so (pw-compile benchmarks/workloads.mlir)")
    parser.add_argument("--runtime", default="")
    parser.add_argument("--no-inductor", action="store_true")
    parser.add_argument("--flaggems", default=os.environ.get("FLAGGEMS_SRC", ""))
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--parts", default="static,chains")
    parser.add_argument("--json", default="")
    options = parser.parse_args()

    lib_path, package_dir = gpu_bench._find_paths(options.families)
    sys.path.insert(0, str(package_dir))
    import pointwise
    gpu_bench.pw = pointwise
    families_library = pointwise.KernelLibrary(str(lib_path))
    families = {name: families_library.family(name)
                for name in set(gpu_bench.FAMILY_OF.values())}
    runtime = options.runtime or families_library.runtime.path
    workloads = pm.ModuleLibrary(options.workloads_lib, runtime)
    chains = pm.ModuleLibrary(options.chains_lib, runtime)

    flaggems, why = None, "no FlagGems source (--flaggems)"
    if options.flaggems:
        _impls, why = gpu_bench.load_flaggems(options.flaggems)
        if _impls is not None:
            flaggems, why = flaggems_chains()

    gpu_bench.g = torch.Generator(device="cuda").manual_seed(0)
    props = torch.cuda.get_device_properties(0)
    now = datetime.datetime.now(datetime.timezone.utc).strftime(
        "%Y-%m-%d %H:%M UTC")
    print("date: %s" % now)
    print("device: %s (%d SMs)" % (props.name, props.multi_processor_count))
    print("torch %s, triton %s" % (torch.__version__, triton.__version__))
    print("pipeline modules: %s, %s; families: %s" % (
        workloads.path, chains.path, lib_path))
    print("FlagGems: %s" % ("pointwise_dynamic kernels of the chains"
                            if flaggems else why), flush=True)
    ceiling = gpu_bench.copy_bw()
    print("copy bandwidth: %.0f GB/s" % ceiling, flush=True)
    result = {"date": now, "device": props.name, "copy_GBps": ceiling}
    failed = False
    parts = options.parts.split(",")
    if "static" in parts:
        result["static"], bad = static_workloads(workloads, families, options,
                                                 ceiling)
        failed |= bad
    if "chains" in parts:
        result["chains"], bad = fused_chains(chains, options, ceiling,
                                             flaggems)
        failed |= bad
    path = options.json or (os.path.join(os.environ["OUT"],
                                         "pipeline_bench.json")
                            if os.environ.get("OUT") else "")
    if path:
        with open(path, "w") as f:
            json.dump(result, f, indent=1)
    if failed:
        print("pipeline_bench: WRONG results above")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
