"""@pw.pointwise functions called inside another's body: the callee's body
is traced into the caller's map (one kernel), with the callee's promotion
and the rounding of its outputs, so the result is what two kernels give."""

import pytest

np = pytest.importorskip("numpy")
pw = pytest.importorskip("pointwise")

from pointwise import _dtypes, _trace  # noqa: E402


pytestmark = pytest.mark.usefixtures("quiet_shared_cache")


def make_functions():
    """Fresh functions (their launcher caches start empty)."""

    @pw.pointwise(is_tensor=[True, True, False], dtypes=[None, None, float],
                  promotion_methods=[(0, 1, "DEFAULT")])
    def axpy(x, y, alpha):
        return x * alpha + y

    @pw.pointwise(promotion_methods=[(0, 1, "DEFAULT")])
    def mul(x, y):
        return x * y

    @pw.pointwise(promotion_methods=[(0, 1, "DEFAULT")])
    def outer(x, y):
        return axpy(x, y, 2.0) - mul(y, x)

    return axpy, mul, outer


def test_composition_is_one_map_and_one_kernel():
    axpy, mul, outer = make_functions()
    a = np.random.default_rng(0).standard_normal((5, 7), dtype=np.float32)
    b = np.random.default_rng(1).standard_normal(7, dtype=np.float32)
    result = outer(a, b)
    expected = (a * 2.0 + b) - (b * a)
    np.testing.assert_allclose(result, expected, rtol=1e-6, atol=1e-6)
    assert len(outer._launchers) == 1
    assert not axpy._launchers and not mul._launchers  # never compiled
    params = [_trace.Param("tensor", _dtypes.float32, 2)] * 2
    text = _trace.trace_function(outer.fn, params, [_dtypes.float32], "outer")
    assert text.count("pointwise.map") == 1 and "call" not in text


@pytest.mark.parametrize("dtype", [np.float16, np.int8, np.uint8, np.float64])
def test_composition_matches_two_kernels(dtype):
    axpy, mul, outer = make_functions()
    g = np.random.default_rng(2)
    a = (g.standard_normal((3, 40)) * 50).astype(dtype)
    b = (g.standard_normal(40) * 50).astype(dtype)
    # The callee's float16 outputs are rounded as a stored output is.
    two_kernels = axpy(a, b, 2.0) - mul(b, a)
    assert outer(a, b).dtype == two_kernels.dtype
    np.testing.assert_array_equal(outer(a, b), two_kernels)


def test_callee_promotion_and_several_outputs():
    @pw.pointwise(promotion_methods=[(0, "INT_TO_FLOAT"), (0, 1, "ALWAYS_BOOL")],
                  num_outputs=2)
    def halve_and_compare(x, y):
        return x / 2, x > y

    @pw.pointwise(promotion_methods=[(0, 1, "INT_TO_FLOAT")])
    def combine(x, y):
        half, larger = halve_and_compare(x, y)
        return pw.where(larger, half, -half)

    x = np.array([3, -5, 7, 200], np.int32)
    y = np.array([1, 1, 9, 0], np.int32)
    result = combine(x, y)
    assert result.dtype == np.float32
    np.testing.assert_array_equal(result, np.where(x > y, x / 2, -x / 2))


def test_nested_calls_and_scalars():
    @pw.pointwise(is_tensor=[True, False], dtypes=[None, "int8"],
                  promotion_methods=[(0, 1, "DEFAULT")])
    def add_small(x, n):
        return x + n

    @pw.pointwise(is_tensor=[True, False], promotion_methods=[(0, 1, "DEFAULT")])
    def twice(x, n):
        return add_small(add_small(x, n), 3)

    @pw.pointwise(promotion_methods=[(0, "DEFAULT")])
    def outermost(x):
        return twice(x, 5) * 2

    x = np.array([1, 2, 3], np.int16)
    assert outermost(x).tolist() == [18, 20, 22]
    assert twice(x, -4).tolist() == [0, 1, 2]
    # A traced scalar passed on converts to the declared dtype as .to()
    # does (300 is 44 in int8); a Python number is range-checked.
    assert twice(x, 300).tolist() == [48, 49, 50]

    @pw.pointwise(promotion_methods=[(0, "DEFAULT")])
    def too_large(x):
        return add_small(x, 300)

    with pytest.raises(OverflowError, match="add_small: argument 1"):
        too_large(x)


def test_composition_errors():
    axpy, mul, _ = make_functions()
    x = np.ones(3, np.float32)

    @pw.pointwise(promotion_methods=[(0, "DEFAULT")])
    def with_output(a):
        return mul(a, a, out0=a)

    @pw.pointwise(promotion_methods=[(0, "DEFAULT")])
    def tensor_as_scalar(a):
        return axpy(a, a, a)

    @pw.pointwise(promotion_methods=[(0, "DEFAULT")])
    def number_as_tensor(a):
        return mul(a, 2.0)

    @pw.pointwise(promotion_methods=[(0, "DEFAULT")])
    def unsupported_promotion(a):
        return mul(a, a.to("int32"))

    @pw.pointwise(promotion_methods=[(0, "DEFAULT")])
    def wrong_count(a):
        return mul(a)

    with pytest.raises(pw.TracingError, match="mul: .* takes no outputs"):
        with_output(x)
    with pytest.raises(pw.TracingError, match="axpy: argument 2 is declared "
                                              "a scalar"):
        tensor_as_scalar(x)
    with pytest.raises(pw.TracingError, match="mul: argument 1 is declared "
                                              "a tensor"):
        number_as_tensor(x)
    with pytest.raises(pw.TracingError, match="uint16 with int32"):
        unsupported_promotion(np.ones(3, np.uint16))
    with pytest.raises(TypeError, match="mul: expected 2 positional inputs"):
        wrong_count(x)
