"""The @pw.pointwise functions the semantics suites share (the CPU one
checks them against NumPy, the GPU one against PyTorch), and the reference
float-to-integer conversion both compare with."""

import math

import pointwise as pw


@pw.pointwise(promotion_methods=[(0, 1, "DEFAULT"), (0, 1, "DEFAULT")],
              num_outputs=2)
def divmod_(x, y):
    return x // y, x % y


@pw.pointwise(promotion_methods=[(0, "DEFAULT")])
def copy(x):
    return x


@pw.pointwise(promotion_methods=[(0, 1, "DEFAULT")])
def add(x, y):
    return x + y


@pw.pointwise(promotion_methods=[(0, 1, "DEFAULT")] * 7, num_outputs=7)
def arithmetic(x, y):
    return x + y, x - y, x * y, x // y, x % y, pw.maximum(x, y), pw.minimum(x, y)


@pw.pointwise(promotion_methods=[(0, 1, "ALWAYS_BOOL")] * 6, num_outputs=6)
def compare(x, y):
    return x < y, x <= y, x > y, x >= y, x == y, x != y


def float_to_integer(value, bits, signed):
    """The documented conversion of a float to an integer output of `bits`
    bits (docs/Python.md), the reference of the CPU and GPU tests:
    truncation toward zero, saturating (NaN is 0), except that uint8
    converts through int64 (saturating) and wraps around, as PyTorch's
    uint8 does."""
    if math.isnan(value):
        return 0
    if not math.isinf(value):
        value = math.trunc(value)

    def saturate(v, low, high):
        return low if v < low else high if v > high else int(v)

    if signed:
        return saturate(value, -2**(bits - 1), 2**(bits - 1) - 1)
    if bits == 8:
        return saturate(value, -2**63, 2**63 - 1) % 2**8
    return saturate(value, 0, 2**bits - 1)
