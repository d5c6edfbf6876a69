"""The @pw.pointwise functions the semantics suites share: the CPU one
checks them against NumPy, the GPU one against PyTorch."""

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
