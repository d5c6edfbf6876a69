"""Times one kernel family from two builds (A and B) in one process, on the
layouts that pick its linear and transpose variants: every operand a dense
row-major f32 matrix, then each input in turn transposed (a column-major
view), which makes the dispatch launch a transpose variant.

usage: python3 benchmarks/family_ab.py --lib A.so --lib B.so \
           --family polar_f32 --inputs 2 --outputs 2 [--size 8192] [--rounds 5]

The two builds alternate within each round; the table gives each build's
median over the rounds (µs, and GB/s of the bytes the call must move) and
B / A's time ratio per round (< 1: B is faster).
"""
import argparse
import os
import statistics
import sys

import torch
import triton.testing as tt

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--lib", action="append", required=True,
                        help="a library from pw-compile -o X.so (twice)")
    parser.add_argument("--family", required=True)
    parser.add_argument("--inputs", type=int, required=True)
    parser.add_argument("--outputs", type=int, required=True)
    parser.add_argument("--size", type=int, default=8192)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--package", default=os.path.join(HERE, "..",
                                                          "gpu-bundle"),
                        help="directory holding the pointwise package")
    options = parser.parse_args()
    if len(options.lib) != 2:
        parser.error("--lib must be given twice (A, then B)")
    sys.path.insert(0, options.package)
    import pointwise

    families = [pointwise.KernelLibrary(path).family(options.family)
                for path in options.lib]
    n = options.size
    inputs = [torch.randn(n, n, device="cuda") for _ in range(options.inputs)]
    outputs = [torch.empty(n, n, device="cuda")
               for _ in range(options.outputs)]
    cases = [("dense", inputs)]
    for i in range(options.inputs):
        transposed = list(inputs)
        transposed[i] = inputs[i].t()
        cases.append(("input %d transposed" % i, transposed))
    moved = (options.inputs + options.outputs) * n * n * 4

    print("device: %s, torch %s; %s, %d x %d f32" % (
        torch.cuda.get_device_name(), torch.__version__, options.family, n, n))
    print("A: %s\nB: %s" % tuple(options.lib))
    print("| layout | A µs | B µs | A GB/s | B GB/s | B / A per round |")
    print("|---|---|---|---|---|---|")
    for name, operands in cases:
        expected = None
        for family in families:
            family(*operands, *outputs)
            torch.cuda.synchronize()
            result = [o.clone() for o in outputs]
            if expected is None:
                expected = result
            else:
                for want, got in zip(expected, result):
                    torch.testing.assert_close(got, want)
        times = [[], []]
        for _ in range(options.rounds):
            for which, family in enumerate(families):
                times[which].append(1e3 * tt.do_bench(
                    lambda: family(*operands, *outputs), warmup=25, rep=100,
                    return_mode="median"))
        a, b = (statistics.median(t) for t in times)
        ratios = " ".join("%.3f" % (y / x) for x, y in zip(*times))
        print("| %s | %.1f | %.1f | %.0f | %.0f | %s |" % (
            name, a, b, moved / a / 1e3, moved / b / 1e3, ratios))


if __name__ == "__main__":
    main()
