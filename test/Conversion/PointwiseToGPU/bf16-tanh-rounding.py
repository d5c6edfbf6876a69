# pw-bf16-math-to-nvvm's tanh rounds to the correctly rounded bf16 tanh on
# every bf16 input, for any errors of ex2.approx.ftz.f32 and
# rcp.approx.ftz.f32 up to the bound below (PTX documents about 2^-22 for
# each). The sequence's constants are read from the pass's source, so this
# checks the sequence the pass emits. Each step is monotonic, so evaluating
# it with both instructions off by +bound and by -bound brackets every
# result the hardware can give; both ends must round to the same bf16 as
# tanh in float64.
# RUN: %python %s %pointwise_src_root/lib/Conversion/PointwiseToGPU/Bf16MathToNVVM.cpp | FileCheck %s
# CHECK: error bound 2^-21: 0 of 65280 finite bf16 inputs misround
# CHECK: error bound 2^-19: {{[1-9][0-9]*}} of 65280 finite bf16 inputs misround

import math
import re
import sys

import numpy as np


def read_constant(source, name):
    match = re.search(r"constexpr float " + name + r" = ([0-9.eE+-]+)f;", source)
    if not match:
        sys.exit(f"{name} not found in the pass's source")
    return np.float32(float(match.group(1)))


def to_bf16_bits(values):
    """Round float32 values to bf16, to nearest even; the 16 bits."""
    bits = np.asarray(values, dtype=np.float32).view(np.uint32).astype(np.uint64)
    return ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16) & 0xFFFF


def bracket(x, identity_below, two_log2e, bound):
    """The sequence's lowest and highest f32 result per input."""
    with np.errstate(over="ignore", invalid="ignore"):
        scaled = (x * two_log2e).astype(np.float32)
        power = np.exp2(scaled.astype(np.float64))
        ends = []
        for sign in (-1, 1):
            # Lower powers give lower results; a lower reciprocal a higher one.
            p = (power * (1 + sign * bound)).astype(np.float32)
            denominator = (p + np.float32(1)).astype(np.float32)
            reciprocal = (1.0 / denominator.astype(np.float64)) * (1 - sign * bound)
            reciprocal = reciprocal.astype(np.float32)
            tanh = (1.0 - 2.0 * reciprocal.astype(np.float64)).astype(np.float32)
            ends.append(np.where(np.abs(x) < identity_below, x, tanh))
    return ends


def main():
    source = open(sys.argv[1]).read()
    identity_below = read_constant(source, "kIdentityBelow")
    two_log2e = read_constant(source, "kTwoLog2E")
    x = (np.arange(65536, dtype=np.uint32) << 16).view(np.float32)
    x = x[np.isfinite(x)]
    exact = np.array([math.tanh(float(v)) for v in x])
    # The nearest bf16 to the float64 tanh. Rounding through float32 first is
    # the same here: no float64 tanh of a bf16 input lies within a float32
    # ulp of a bf16 midpoint (checked against both neighbours).
    expected = to_bf16_bits(exact.astype(np.float32))
    nearest = (expected.astype(np.uint32) << 16).view(np.float32).astype(np.float64)
    for step in (-1, 1):
        neighbour = ((expected.astype(np.int64) + step) & 0xFFFF).astype(np.uint32)
        other = (neighbour << 16).view(np.float32).astype(np.float64)
        closer = np.abs(exact - other) < np.abs(exact - nearest)
        assert not closer.any(), x[closer]
    for exponent in (21, 19):
        low, high = bracket(x, identity_below, two_log2e, 2.0 ** -exponent)
        wrong = (to_bf16_bits(low) != expected) | (to_bf16_bits(high) != expected)
        print(f"error bound 2^-{exponent}: {int(wrong.sum())} of {x.size} "
              f"finite bf16 inputs misround")


if __name__ == "__main__":
    main()
