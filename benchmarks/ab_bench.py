#!/usr/bin/env python3
"""A/B comparison of kernel libraries built with different code-generation
options, in one process, on gpu_bench.py's workloads.

    python3 ab_bench.py --libs base.so,unroll2.so [--workloads a,b]
                        [--rounds 5] [--inductor] [--rotate 3]

Every library is a `pw-compile benchmarks/workloads.mlir` build (same
families, other options). For each workload the inputs are made once; every
library's family is checked against eager on every element, then the
libraries are timed in turn, `--rounds` times (interleaved, so that drift
of the machine hits them all alike), with gpu_bench's do_bench settings.
The table shows the median over rounds in % of copy bandwidth, with eager
(and Inductor static with --inductor), timed in the same rounds, for
reference; below it, every other column against the first library round
by round. Differences below
about 0.3 points are noise (benchmarks/NOTES.md). With --rotate N every
call of ours uses the next of N copies of the inputs and outputs, so that
lines a kernel loads with an L2 evict_last policy, which outlive do_bench's
flush, cannot serve the next call (small launches, tenth session).
"""

import argparse
import pathlib
import statistics
import sys

import torch

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import gpu_bench as gb  # noqa: E402


def add_sweep(sizes_mib):
    """Registers copy_<S>MiB, add_<S>MiB, rank5_<S>MiB and gelu_<S>MiB in
    gpu_bench's workload table: inputs of S MiB each (rank5: 64-float rows at
    a row stride of 65, like rank5_sliced_scalar_f32, which is rank5_64MiB;
    gelu: f16 GELU like gelu_tanh_f16, which is gelu_256MiB)."""
    for mib in sizes_mib:
        floats = mib << 18

        def copy(floats=floats):
            x = gb.rnd(floats)
            return gb.Case(lambda x: x.clone(), (x,), gb.nbytes(x) * 2,
                           lambda x, o: gb.F["copy_f32"](x, o), gb.like(x))

        def add(floats=floats):
            a, b = gb.rnd(floats), gb.rnd(floats)
            return gb.Case(lambda a, b: a + b, (a, b), gb.nbytes(a, b) * 3 // 2,
                           lambda a, b, o: gb.F["add_f32"](a, b, o),
                           gb.like(a))

        def rank5(batch=max(1, mib // 8)):
            x = gb.rnd(batch, 16, 33, 64, 65)[:, :, 1:, :, :-1]
            return gb.Case(lambda x: x * 3.0 + 1.0, (x,), x.numel() * 4 * 2,
                           lambda x, o: gb.F["scale_shift_f32"](x, 3.0, 1.0, o),
                           lambda x: (torch.empty(x.shape, device=gb.dev),))

        def gelu(halves=floats * 2):
            x = gb.rnd(halves, dtype=torch.float16)
            return gb.Case(
                lambda x: torch.nn.functional.gelu(x, approximate="tanh"),
                (x,), gb.nbytes(x) * 2,
                lambda x, o: gb.F["gelu_tanh_f16"](x, o), gb.like(x),
                atol=1e-2, rtol=1e-2)

        for kind, make, family in (("copy", copy, "copy_f32"),
                                   ("add", add, "add_f32"),
                                   ("rank5", rank5, "scale_shift_f32"),
                                   ("gelu", gelu, "gelu_tanh_f16")):
            name = "%s_%dMiB" % (kind, mib)
            gb.W[name] = make
            gb.FAMILY_OF[name] = family


def add_slices():
    """Registers rank-2 maps over views whose rows are not contiguous with
    each other, which pw-coalesce-dims cannot merge into one dim: rows of
    4096 or 8192 floats at a pitch of 4097 / 8193 (misaligned: every row
    starts 4 bytes further from a 16-byte boundary, so those operands move
    lane by lane, like rank5_sliced_scalar_f32's 65-float pitch) or 4100
    (16-byte aligned rows, whole vectors); and rows of 1022 floats at an
    aligned pitch of 1024 (no whole 16-byte vectors per row)."""
    def scale(rows, columns, pitch):
        def make():
            x = gb.rnd(rows, pitch)[:, :columns]
            return gb.Case(lambda x: x * 3.0 + 1.0, (x,), x.numel() * 4 * 2,
                           lambda x, o: gb.F["scale_shift_f32"](x, 3.0, 1.0, o),
                           lambda x: (torch.empty(x.shape, device=gb.dev),))
        return make

    def add(rows, columns, pitch):
        def make():
            a = gb.rnd(rows, pitch)[:, :columns]
            b = gb.rnd(rows, pitch)[:, 1:columns + 1]
            return gb.Case(lambda a, b: a + b, (a, b), a.numel() * 4 * 3,
                           lambda a, b, o: gb.F["add_f32"](a, b, o),
                           lambda a, b: (torch.empty(a.shape, device=gb.dev),))
        return make

    for name, make, family in (
            ("scale_rows_of_1022_32MiB", scale(8192, 1022, 1024), "scale_shift_f32"),
            ("add_rows_of_1022_32MiB", add(8192, 1022, 1024), "add_f32"),
            ("scale_misaligned_64MiB", scale(4096, 4096, 4097), "scale_shift_f32"),
            ("scale_aligned_64MiB", scale(4096, 4096, 4100), "scale_shift_f32"),
            ("scale_misaligned_256MiB", scale(8192, 8192, 8193), "scale_shift_f32"),
            ("add_misaligned_256MiB", add(8192, 8192, 8193), "add_f32")):
        gb.W[name] = make
        gb.FAMILY_OF[name] = family


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--libs", required=True,
                        help="comma-separated workloads.so builds")
    parser.add_argument("--workloads", default="",
                        help="comma-separated names (default: all 13)")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--inductor", action="store_true",
                        help="also time torch.compile(dynamic=False)")
    parser.add_argument("--rotate", type=int, default=1,
                        help="make this many copies of each workload's "
                        "inputs and outputs and let every call use the next "
                        "(L2 lines loaded with an evict_last policy outlive "
                        "do_bench's flush: with 3 or more copies no call "
                        "finds its own inputs left in L2 by the call before)")
    parser.add_argument("--sweep", default="",
                        help="comma-separated MiB sizes: adds a dense copy, "
                        "a dense add, a rank5_sliced-like scale and an f16 "
                        "GELU of each input size (how the libraries differ "
                        "with size)")
    parser.add_argument("--slices", action="store_true",
                        help="adds rank-2 maps over row slices, misaligned "
                        "(lane by lane) and aligned (add_slices)")
    options = parser.parse_args()
    add_sweep([int(s) for s in options.sweep.split(",") if s])
    if options.slices:
        add_slices()
    libs = [pathlib.Path(p) for p in options.libs.split(",") if p]
    names = [n for n in options.workloads.split(",") if n] or list(gb.W)
    unknown = [n for n in names if n not in gb.W]
    if unknown:
        sys.exit("ab_bench: unknown workloads %s" % unknown)

    _, package_dir = gb._find_paths(str(libs[0]))
    sys.path.insert(0, str(package_dir))
    import pointwise as pw
    gb.pw = pw
    families = []
    for lib in libs:
        library = pw.KernelLibrary(str(lib))
        families.append({name: library.family(name)
                         for name in set(gb.FAMILY_OF.values())})
    gb.g = torch.Generator(device=gb.dev).manual_seed(0)
    ceiling = gb.copy_bw()
    props = torch.cuda.get_device_properties(0)
    print("device: %s; copy bandwidth %.0f GB/s; %d rounds"
          % (props.name, ceiling, options.rounds))
    labels = [lib.stem for lib in libs]
    peers = ["eager"] + (["inductor"] if options.inductor else [])
    print("| workload | " + " | ".join(labels + peers) + " |")
    print("|---" * (1 + len(labels) + len(peers)) + "|")
    failed = False
    paired = {label: [] for label in labels[1:] + peers}
    for name in names:
        cases = [gb.W[name]() for _ in range(max(1, options.rotate))]
        case = cases[0]
        args = case.args
        timings = [[] for _ in libs]
        wrong = set()
        for index, fams in enumerate(families):
            gb.F = fams
            _, ok, _ = gb.check(case, gb.FAMILY_OF[name])
            if not ok:
                wrong.add(index)
                failed = True
        calls = [(c.args, c.outs(*c.args)) for c in cases]
        state = {"next": 0}

        def ours():
            call_args, call_outs = calls[state["next"]]
            state["next"] = (state["next"] + 1) % len(calls)
            return case.ours(*call_args, *call_outs)
        peers_timed = [lambda: case.eager(*args)]
        if options.inductor:
            compiled = torch.compile(case.eager, dynamic=False)
            compiled(*args)
            peers_timed.append(lambda: compiled(*args))
        peer_ms = [[] for _ in peers_timed]
        for _ in range(options.rounds):
            for index, fams in enumerate(families):
                gb.F = fams
                timings[index].append(gb.bench(ours))
            for index, fn in enumerate(peers_timed):
                peer_ms[index].append(gb.bench(fn))

        def pct(ms):
            return 100 * case.bytes / (ms * 1e-3) / 1e9 / ceiling
        cells = ["%.1f%s" % (pct(statistics.median(t)),
                             " WRONG" if i in wrong else "")
                 for i, t in enumerate(timings)]
        cells += ["%.1f" % pct(statistics.median(ms)) for ms in peer_ms]
        print("| %s | %s |" % (name, " | ".join(cells)), flush=True)
        # Each library and peer against the first library, round by round
        # (both timed within a few hundred ms): the median difference in
        # points and in how many rounds it was ahead.
        for label, series in zip(labels[1:] + peers,
                                 timings[1:] + peer_ms):
            deltas = [pct(t) - pct(base)
                      for t, base in zip(series, timings[0])]
            paired[label].append("%s %+.2f (%d/%d ahead)" % (
                name, statistics.median(deltas),
                sum(d > 0 for d in deltas), len(deltas)))
        del case, cases, args, calls
        torch.cuda.empty_cache()
    for label, lines in paired.items():
        print("\n%s - %s, paired by round (points): %s"
              % (label, labels[0], "; ".join(lines)))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
