#!/usr/bin/env python3
"""How much of a gap between our kernels and Inductor's depends on the way
it is timed: each workload's two kernels timed, in one process, by

  do_bench      triton.testing.do_bench (peers.py's measure: a 256 MB
                cache.zero_() before each timed call, which leaves L2 full
                of dirty lines)
  read-flush    the same loop, but L2 is flushed by reading 256 MB
                (cache.sum()), so it holds no dirty lines
  no-flush      one pair of events around 50 back-to-back calls
  idle-gpu      do_bench's loop with a synchronize before each timed call
                and a 50 µs sleep kernel (the kernel starts behind no memory
                traffic, as under ncu)
  rotate        do_bench's loop (zero_() flush), but each call reads the
                next of 3 copies of the inputs (same sizes, strides and
                offsets): no call finds lines of its own inputs left in L2
                by the call before, whatever cache policy they were read
                with (L2::evict_last lines can outlive the flush)

    python3 bench_methods.py --lib workloads.so [--workloads a,b] [--rounds 3]

Prints % of copy bandwidth (medians over rounds) for ours and Inductor
static per method.
"""

import argparse
import pathlib
import statistics
import sys

import torch
import triton.testing as tt

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import gpu_bench as gb  # noqa: E402

CACHE = None


def timed_loop(fn, flush, sync, reps=40):
    """Median ms of fn() after flush(); fn may be a list, called in turn."""
    fns = fn if isinstance(fn, list) else [fn]
    times = []
    for rep in range(reps):
        fn = fns[rep % len(fns)]
        flush()
        if sync:
            torch.cuda.synchronize()
            # ~50 µs of GPU work, so that fn's launch is queued before the
            # GPU reaches the start event.
            torch.cuda._sleep(100000)
        start = torch.cuda.Event(enable_timing=True)
        end = torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        end.record()
        times.append((start, end))
    torch.cuda.synchronize()
    return statistics.median(s.elapsed_time(e) for s, e in times)


def methods():
    def zero():
        CACHE.zero_()

    def read():
        CACHE.sum()

    def no_flush(fn):
        for _ in range(5):
            fn()
        start = torch.cuda.Event(enable_timing=True)
        end = torch.cuda.Event(enable_timing=True)
        start.record()
        for _ in range(50):
            fn()
        end.record()
        torch.cuda.synchronize()
        return start.elapsed_time(end) / 50

    return {
        "do_bench": lambda fn: tt.do_bench(fn, warmup=25, rep=100,
                                           return_mode="median"),
        "read-flush": lambda fn: timed_loop(fn, read, sync=False),
        "no-flush": no_flush,
        "idle-gpu": lambda fn: timed_loop(fn, zero, sync=True),
        "rotate": lambda fns: timed_loop(fns, zero, sync=False, reps=60),
    }


def same_layout_copy(t):
    """A tensor with t's values, sizes, strides and storage offset in a
    storage of its own."""
    storage = torch.empty(t.untyped_storage().size(), dtype=torch.uint8,
                          device=t.device).untyped_storage()
    copy = torch.empty(0, dtype=t.dtype, device=t.device)
    copy.set_(storage, t.storage_offset(), t.shape, t.stride())
    return copy.copy_(t)


def measure_workload(name, table, ceiling, rounds):
    """The table cells of workload `name`: ours / Inductor per method."""
    case = gb.W[name]()
    args = case.args
    outs = case.outs(*args)
    compiled = torch.compile(case.eager, dynamic=False)
    compiled(*args)
    sides = {"ours": lambda: case.ours(*args, *outs),
             "inductor": lambda: compiled(*args)}
    if "rotate" in table:
        arg_sets = [args] + [tuple(same_layout_copy(a) for a in args)
                             for _ in range(2)]
        out_sets = [outs] + [case.outs(*a) for a in arg_sets[1:]]
        rotated = {
            "ours": [lambda a=a, o=o: case.ours(*a, *o)
                     for a, o in zip(arg_sets, out_sets)],
            "inductor": [lambda a=a: compiled(*a) for a in arg_sets]}
        for a in arg_sets[1:]:
            compiled(*a)  # no recompilation: same layouts

    def pct(ms):
        return 100 * case.bytes / (ms * 1e-3) / 1e9 / ceiling
    cells = []
    for measure in table.values():
        samples = {side: [] for side in sides}
        for _ in range(rounds):
            for side, fn in sides.items():
                samples[side].append(measure(
                    rotated[side] if measure is table.get("rotate") else fn))
        cells.append("%.1f / %.1f" % tuple(
            pct(statistics.median(samples[s])) for s in sides))
    return cells


def main():
    global CACHE
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--lib", default="")
    parser.add_argument("--workloads", default="")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--methods", default="",
                        help="comma-separated (default: all)")
    options = parser.parse_args()
    names = [n for n in options.workloads.split(",") if n] or list(gb.W)
    gb.use_library(options.lib)
    gb.g = torch.Generator(device=gb.dev).manual_seed(0)
    ceiling = gb.copy_bw()
    CACHE = torch.empty(64 << 20, dtype=torch.int32, device=gb.dev)
    table = methods()
    if options.methods:
        table = {m: table[m] for m in options.methods.split(",")}
    print("device: %s; copy bandwidth %.0f GB/s; medians of %d rounds; "
          "%% of copy bandwidth, ours / inductor"
          % (torch.cuda.get_device_name(0), ceiling, options.rounds))
    print("| workload | " + " | ".join(table) + " |")
    print("|---" * (1 + len(table)) + "|")
    for name in names:
        print("| %s | %s |" % (name, " | ".join(
            measure_workload(name, table, ceiling, options.rounds))),
            flush=True)
        torch.cuda.empty_cache()


if __name__ == "__main__":
    main()
