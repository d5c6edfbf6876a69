"""Property tests of @pw.pointwise on the CPU against NumPy (Hypothesis).

Hypothesis draws mutually broadcastable shapes (rank 0 to 5, sizes 0 to
4), a memory layout per input (permuted dims, stepped and reversed strides,
offsets into a larger buffer), dtypes (bool, every integer and float type
NumPy has) and Python scalars, and calls functions of every promotion kind.
The output's dtype must be the one PyTorch's rules give
(pointwise._promotion, checked against hand-written tables in
test_promotion.py) and its values NumPy's, computed in float64 or in the
integer type and rounded to that dtype.

The default run is derandomized and short, for the lit suite;
POINTWISE_HYPOTHESIS_EXAMPLES=N (per test) with POINTWISE_HYPOTHESIS_SEED=S
(or "random") is the long run (docs/Testing.md).
"""

import os

import pytest

np = pytest.importorskip("numpy")
pw = pytest.importorskip("pointwise")
hypothesis = pytest.importorskip("hypothesis")

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from hypothesis.extra import numpy as hnp  # noqa: E402

from pointwise._dtypes import Operand, as_dtype  # noqa: E402
from pointwise._promotion import (output_dtype,  # noqa: E402
                                  parse_promotion_methods)

_EXAMPLES = int(os.environ.get("POINTWISE_HYPOTHESIS_EXAMPLES", "25"))
# Unset: derandomized, the same examples at every run; a number: that seed;
# "random": a new seed each run (printed with a failure).
_SEED = os.environ.get("POINTWISE_HYPOTHESIS_SEED")

_SETTINGS = settings(
    max_examples=_EXAMPLES, deadline=None,
    derandomize=_SEED is None,
    suppress_health_check=[HealthCheck.too_slow,
                           HealthCheck.function_scoped_fixture],
    database=None, print_blob=True)
_SEEDED = (hypothesis.seed(int(_SEED)) if _SEED and _SEED.isdigit()
           else (lambda test: test))


@pytest.fixture(autouse=True)
def _cache(tmp_path_factory, monkeypatch):
    directory = tmp_path_factory.getbasetemp() / "pointwise-cache"
    monkeypatch.setenv("POINTWISE_CACHE_DIR", str(directory))
    monkeypatch.setenv("POINTWISE_PROGRESS", "0")


INTEGER_DTYPES = ("int8", "int16", "int32", "int64")
FLOAT_DTYPES = ("float16", "float32", "float64")
DTYPES = ("bool",) + INTEGER_DTYPES + FLOAT_DTYPES

# (rtol, atol) of a float result. The body rounds after each op in its
# operands' types (Triton's rules) and NumPy's reference only at the end:
# wide enough for that, far too narrow for a wrong element (values are
# up to about 100).
TOLERANCE = {"float16": (4e-3, 0.1), "float32": (1e-5, 1e-4),
             "float64": (1e-9, 1e-9)}


# --- the functions under test, one or more per promotion kind -------------


def mul_add(x, y):
    return x * y + x


def mul(x, y):
    return x * y


def divide(x, y):
    return x / y


def less_equal(x, y):
    return x <= y


def add(x, y):
    return x + y


@pw.pointwise(is_tensor=[True, False, True], dtypes=[None, float, None],
              promotion_methods=[(0, 1, 2, "DEFAULT")])
def axpy(x, alpha, y):
    return x * alpha + y


def _as(values, dtype):
    return np.asarray(values).astype(dtype)


def _float64(values):
    return _as(values, np.float64)


def _reference_mul_add(x, y, dtype):
    if dtype.kind == "f":
        return _float64(x) * _float64(y) + _float64(x)
    x, y = _as(x, dtype), _as(y, dtype)
    # On bools, * is a logical and and + a logical or, as in PyTorch.
    return x * y + x if dtype != np.bool_ else (x & y) | x


def _reference_mul(x, y, dtype):
    if dtype.kind == "f":
        return _float64(x) * _float64(y)
    return _as(x, dtype) * _as(y, dtype)


def _reference_add(x, y, dtype):
    # The body adds in the operands' common type (on bools a logical or,
    # as in PyTorch); BOOL_TO_LONG only widens the result.
    common = _common_type(x, y)
    if common.kind == "f":
        return _float64(x) + _float64(y)
    if common == np.bool_:
        return _as(x, np.bool_) | _as(y, np.bool_)
    return _as(x, common) + _as(y, common)


def _reference_divide(x, y, dtype):
    return _float64(x) / _float64(y)


def _reference_less_equal(x, y, dtype):
    # Compared in the operands' common type, as PyTorch does.
    common = _common_type(x, y)
    return _as(x, common) <= _as(y, common)


def _common_type(x, y):
    rule = parse_promotion_methods([(0, 1, "DEFAULT")], 2, 1)[0]
    return as_numpy(output_dtype(rule, [operand(x), operand(y)]))


BODIES = {
    "DEFAULT": (mul_add, _reference_mul_add),
    "NO_OPMATH": (mul, _reference_mul),
    "INT_TO_FLOAT": (divide, _reference_divide),
    "ALWAYS_BOOL": (less_equal, _reference_less_equal),
    "BOOL_TO_LONG": (add, _reference_add),
}

# Per kind: the function of two tensors and that of a tensor and a Python
# scalar, and the NumPy reference.
FUNCTIONS = {
    kind: (pw.pointwise(body, promotion_methods=[(0, 1, kind)]),
           pw.pointwise(body, is_tensor=[True, False],
                        promotion_methods=[(0, 1, kind)]),
           reference)
    for kind, (body, reference) in BODIES.items()}


# --- operands ---------------------------------------------------------------


def as_numpy(dtype):
    return np.dtype(dtype.name if dtype.name != "bool" else np.bool_)


def operand(value):
    if isinstance(value, np.ndarray):
        return Operand(as_dtype(value.dtype), "tensor")
    return Operand.scalar(value)


def random_values(rng, shape, dtype):
    if dtype == "bool":
        values = rng.integers(0, 2, shape)
    elif dtype in INTEGER_DTYPES:
        # Small enough that x * y + x fits int8.
        values = rng.integers(-10, 11, shape)
    else:
        values = rng.standard_normal(shape) * 3
    return np.asarray(values).astype(dtype)


@st.composite
def strided_arrays(draw, shape, dtype):
    """An array of `shape` and `dtype` in a random layout: its dims stored
    in a random order, every dim stepped (1 to 3) and maybe reversed, at an
    offset into a larger buffer."""
    rank = len(shape)
    order = draw(st.permutations(range(rank)))
    steps = [draw(st.sampled_from([1, 1, 2, 3, -1, -2])) for _ in range(rank)]
    starts = [draw(st.integers(0, 1)) for _ in range(rank)]
    stored = [shape[d] for d in order]
    buffer_shape = [n * abs(s) + start
                    for n, s, start in zip(stored, steps, starts)]
    rng = np.random.default_rng(draw(st.integers(0, 2 ** 32 - 1)))
    buffer = random_values(rng, buffer_shape, dtype)
    index = []
    for n, step, start in zip(stored, steps, starts):
        if step > 0:
            index.append(slice(start, start + n * step, step))
        else:
            first = start + n * -step - 1
            index.append(slice(first, first + n * step if first + n * step
                               >= 0 else None, step))
    # The Ellipsis keeps a rank-0 view an array.
    view = buffer[(*index, Ellipsis)]
    array = view.transpose(np.argsort(order))
    assert array.shape == tuple(shape), (array.shape, shape)
    return array


@st.composite
def operand_pairs(draw, allow_scalars=True):
    """Two arrays of broadcastable shapes; sometimes the second is a Python
    scalar instead."""
    shapes = draw(hnp.mutually_broadcastable_shapes(
        num_shapes=2, min_dims=0, max_dims=5, min_side=0, max_side=4))
    values = [draw(strided_arrays(shape, draw(st.sampled_from(DTYPES))))
              for shape in shapes.input_shapes]
    if allow_scalars and draw(st.integers(0, 4)) == 0:
        values[1] = draw(st.one_of(
            st.booleans(), st.integers(-10, 10),
            st.floats(-4, 4, allow_nan=False, width=32)))
    return values


def check_values(result, expected, dtype):
    expected = np.broadcast_to(np.asarray(expected), result.shape)
    if dtype.kind == "f":
        rtol, atol = TOLERANCE[dtype.name]
        np.testing.assert_allclose(result.astype(np.float64),
                                   expected.astype(dtype).astype(np.float64),
                                   rtol=rtol, atol=atol, equal_nan=True)
    else:
        np.testing.assert_array_equal(result, expected.astype(dtype))


# --- the properties ---------------------------------------------------------


@pytest.mark.parametrize("kind", sorted(FUNCTIONS))
@_SEEDED
@_SETTINGS
@given(data=st.data())
def test_promotion_kinds_match_numpy(kind, data):
    of_tensors, of_tensor_and_scalar, reference = FUNCTIONS[kind]
    x, y = data.draw(operand_pairs())
    function = (of_tensors if isinstance(y, np.ndarray)
                else of_tensor_and_scalar)
    rule = parse_promotion_methods([(0, 1, kind)], 2, 1)[0]
    dtype = as_numpy(output_dtype(rule, [operand(x), operand(y)]))
    with np.errstate(all="ignore"):
        result = function(x, y)
        expected = reference(x, y, dtype)
    assert isinstance(result, np.ndarray)
    shape = np.broadcast_shapes(np.shape(x), np.shape(y))
    assert result.shape == shape
    assert result.dtype == dtype, (kind, result.dtype, dtype)
    check_values(result, expected, dtype)


@_SEEDED
@_SETTINGS
@given(data=st.data())
def test_float_scalar_argument(data):
    x, y = data.draw(operand_pairs(allow_scalars=False))
    alpha = data.draw(st.floats(-4, 4, allow_nan=False, width=32))
    rule = parse_promotion_methods([(0, 1, 2, "DEFAULT")], 3, 1)[0]
    dtype = as_numpy(output_dtype(rule, [operand(x), Operand.scalar(alpha),
                                         operand(y)]))
    with np.errstate(all="ignore"):
        result = axpy(x, alpha, y)
        # x * alpha rounds to float32 (float16's opmath, and the float
        # type of bool and integers) unless x is float64.
        product_type = np.dtype("float64" if x.dtype == np.float64
                                else "float32")
        product = x.astype(product_type) * product_type.type(alpha)
        expected = _float64(product) + _float64(y)
    assert result.dtype == dtype
    check_values(result, expected, dtype)
