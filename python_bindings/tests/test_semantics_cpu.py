"""@pw.pointwise semantics on the CPU against NumPy: float floor division
and remainder (PyTorch's ``div_floor_floating``, NumPy's ``npy_divmod``),
conversions into outputs of another dtype (PyTorch's ``copy_``, with the
map body's saturating float-to-integer conversions out of range), and the
unsigned integer dtypes (promotion, wraparound, comparisons, division,
shifts and conversions with values of 128 and more)."""

import math

import pytest

np = pytest.importorskip("numpy")
pw = pytest.importorskip("pointwise")

from semantics_functions import add, arithmetic, compare, copy, divmod_, float_to_integer


pytestmark = pytest.mark.usefixtures("quiet_shared_cache")


@pw.pointwise(is_tensor=[True, False], dtypes=[None, float],
              promotion_methods=[(0, 1, "DEFAULT")])
def floordiv_scalar(x, s):
    return x // s


# -- float floor division and remainder --------------------------------------

SPECIAL = [
    (1.0, 0.1), (-1.0, 0.1), (1.0, -0.1), (-1.0, -0.1),  # x / y rounds to 10
    (0.3, 0.1), (0.7, 0.1), (2.0, 0.2), (-0.3, 0.1),
    (7.0, 2.0), (-7.0, 2.0), (7.0, -2.0), (-7.0, -2.0),
    (6.0, 3.0), (-6.0, 3.0), (6.0, -3.0), (-6.0, -3.0),  # exact: signed zeros
    (0.0, 3.0), (-0.0, 3.0), (0.0, -3.0), (-0.0, -3.0),
    (0.5, 3.0), (-0.5, 3.0), (0.5, -3.0), (-0.5, -3.0),
    (1.0, 0.0), (-1.0, 0.0), (0.0, 0.0), (1.0, -0.0), (-1.0, -0.0),
    (math.inf, 2.0), (-math.inf, 2.0), (2.0, math.inf), (-2.0, math.inf),
    (2.0, -math.inf), (-2.0, -math.inf), (math.inf, math.inf),
    (math.inf, 0.0), (math.nan, 1.0), (1.0, math.nan), (math.nan, 0.0),
    (1e30, 1e-30), (-1e30, 3.0), (5e-45, 3.0), (1e38, 0.5),
]


def torch_remainder(a, b):
    """PyTorch's float remainder: fmod, plus b where the signs differ (a
    zero keeps fmod's sign, the dividend's)."""
    mod = np.fmod(a, b)
    adjust = (mod != 0) & ((b < 0) != (mod < 0))
    return np.where(adjust, mod + b, mod).astype(a.dtype)


def assert_identical(ours, expected):
    """Equal values, NaN where NaN, and the same sign of zero (a NaN's sign
    is not specified)."""
    assert ours.dtype == expected.dtype
    np.testing.assert_array_equal(ours, expected)
    numbers = ~np.isnan(expected)
    np.testing.assert_array_equal(np.signbit(ours[numbers]),
                                  np.signbit(expected[numbers]))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_float_floor_division_is_numpys(dtype):
    a = np.array([x for x, _ in SPECIAL], dtype)
    b = np.array([y for _, y in SPECIAL], dtype)
    quotient, remainder = divmod_(a, b)
    with np.errstate(all="ignore"):
        assert_identical(quotient, np.floor_divide(a, b))
        assert_identical(remainder, torch_remainder(a, b))
    assert quotient[0] == 9 and quotient[1] == -10  # not floor(1.0 / 0.1)
    assert math.floor(dtype(1.0) / dtype(0.1)) == 10


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_float_floor_division_of_near_multiples(dtype):
    # Dividends that are products k * y rounded: x / y rounds to an integer
    # that is one too high about as often as not.
    g = np.random.default_rng(3)
    b = (g.uniform(0.01, 10.0, 4096) * g.choice([-1, 1], 4096)).astype(dtype)
    k = g.integers(-1000, 1000, 4096).astype(dtype)
    a = (k * b).astype(dtype)
    a[::3] = g.standard_normal(a[::3].shape).astype(dtype) * 100
    quotient, remainder = divmod_(a, b)
    assert_identical(quotient, np.floor_divide(a, b))
    assert_identical(remainder, torch_remainder(a, b))
    naive = np.floor(a / b)
    assert (naive != quotient).any()  # the cases that need fmod occur


@pytest.mark.parametrize("dtype", [np.float16])
def test_half_floor_division_computes_in_float32(dtype):
    a = np.array([x for x, _ in SPECIAL if abs(x) < 6e4], np.float32)
    b = np.array([y for x, y in SPECIAL if abs(x) < 6e4], np.float32)
    quotient, remainder = divmod_(a.astype(dtype), b.astype(dtype))
    a32, b32 = a.astype(dtype).astype(np.float32), b.astype(dtype).astype(np.float32)
    with np.errstate(all="ignore"):
        assert_identical(quotient, np.floor_divide(a32, b32).astype(dtype))
        assert_identical(remainder, torch_remainder(a32, b32).astype(dtype))


def test_float_floor_division_by_a_scalar():
    x = np.array([1.0, -1.0, 0.3, 2.5, -0.0], np.float32)
    # A Python float scalar takes the tensor's dtype (a wrapped number).
    np.testing.assert_array_equal(floordiv_scalar(x, 0.1),
                                  np.floor_divide(x, np.float32(0.1)))
    with np.errstate(all="ignore"):
        out = floordiv_scalar(x, 0.0)
        np.testing.assert_array_equal(out, x / np.float32(0))


def test_integer_floor_division_is_unchanged():
    a = np.array([7, -7, 7, -7, 5, -128], np.int8)
    b = np.array([2, 2, -2, -2, 0, -1], np.int8)
    quotient, remainder = divmod_(a, b)
    np.testing.assert_array_equal(quotient, [3, -4, -4, 3, 0, -128])
    np.testing.assert_array_equal(remainder, [1, 1, -1, -1, 0, 0])


# -- conversions into outputs of another dtype ---------------------------------

FLOATS = [0.0, -0.0, 0.5, -0.5, 0.99, -0.99, 1.5, -1.5, 2.5, -2.5, 100.7,
          -100.7, 127.9, 128.0, -128.9, -129.0, 255.5, 256.0, 300.7, -300.7,
          32767.5, 32768.0, -32769.0, 65535.9, 65536.0, 2.0**31, -2.0**31 - 1e3,
          2.0**32 + 5, 2.0**40, -2.0**40, 2.0**63, -2.0**63, 2.0**64, 1e30,
          -1e30, math.inf, -math.inf, math.nan]

INTEGER_TYPES = [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16,
                 np.uint32, np.uint64]


@pytest.mark.parametrize("source", [np.float32, np.float64, np.float16])
@pytest.mark.parametrize("target", INTEGER_TYPES)
def test_float_results_convert_into_integer_outputs(source, target):
    with np.errstate(all="ignore"):
        x = np.array(FLOATS, np.float64).astype(source)
    out = np.zeros(x.shape, target)
    assert copy(x, out0=out) is out
    info = np.iinfo(target)
    expected = [float_to_integer(float(v), info.bits, info.min < 0) for v in x]
    assert out.tolist() == expected
    # In range, the conversion is NumPy's (and C's) truncation.
    info = np.iinfo(target)
    wide = x.astype(np.float64)
    finite = np.isfinite(wide) & (wide > info.min - 1) & (wide < info.max + 1)
    with np.errstate(all="ignore"):
        in_range = x[finite].astype(target)
    np.testing.assert_array_equal(out[finite], in_range)


def test_uint8_out_of_range_wraps_like_pytorch():
    x = np.array([-1.0, -1.5, 256.0, 300.7, -255.0, 1e10], np.float32)
    out = copy(x, out0=np.zeros(6, np.uint8))
    # c10's cast to uint8 goes through int64: (int64)x mod 256.
    assert out.tolist() == [255, 255, 0, 44, 1, int(1e10) % 256]


def test_float_results_convert_into_bool_outputs():
    x = np.array([0.0, -0.0, 0.5, -1e-30, math.inf, math.nan], np.float32)
    out = copy(x, out0=np.zeros(6, np.bool_))
    assert out.tolist() == [False, False, True, True, True, True]  # NaN: True


@pytest.mark.parametrize("source", [np.int16, np.int32, np.int64, np.uint16,
                                    np.uint32, np.uint64, np.bool_])
@pytest.mark.parametrize("target", [np.int8, np.uint8, np.int16, np.bool_])
def test_integers_convert_into_narrower_outputs_with_wraparound(source, target):
    if source is np.bool_:
        values = np.array([True, False, True])
    else:
        info = np.iinfo(source)
        values = np.array([0, 1, 127, 128, 255, 256, 300, 70000, info.max,
                           info.min, info.max - 1], np.float64)
        values = np.array([int(v) for v in values.tolist()
                           if info.min <= v <= info.max], source)
    out = np.zeros(values.shape, target)
    copy(values, out0=out)
    expected = values != 0 if target is np.bool_ else values.astype(target)
    np.testing.assert_array_equal(out, expected)


def test_a_float_promotion_result_into_an_integer_output():
    a = np.array([1.7, -2.7, 3.5], np.float32)
    b = np.array([1, 1, 1], np.int32)
    out = add(a, b, out0=np.zeros(3, np.int16))
    assert out.dtype == np.int16 and out.tolist() == [2, -1, 4]


# -- unsigned integers ----------------------------------------------------------

UNSIGNED = [np.uint8, np.uint16, np.uint32, np.uint64]


def unsigned_values(dtype, seed):
    info = np.iinfo(dtype)
    g = np.random.default_rng(seed)
    edges = [0, 1, 2, 127, 128, 129, 200, 255, info.max, info.max - 1,
             info.max // 2, info.max // 2 + 1]
    edges = [e for e in edges if e <= info.max]
    rest = g.integers(0, info.max, 256 - len(edges), dtype=dtype,
                      endpoint=True)
    return np.concatenate([np.array(edges, dtype), rest])


@pytest.mark.parametrize("dtype", UNSIGNED)
def test_unsigned_arithmetic_wraps_and_compares_unsigned(dtype):
    x = unsigned_values(dtype, 1)
    y = np.roll(unsigned_values(dtype, 2), 5)
    y[::7] = 0
    results = arithmetic(x, y)
    safe = np.where(y == 0, 1, y)
    expected = [x + y, x - y, x * y, np.where(y == 0, 0, x // safe),
                np.where(y == 0, 0, x % safe), np.maximum(x, y),
                np.minimum(x, y)]
    for ours, theirs in zip(results, expected):
        assert ours.dtype == dtype
        np.testing.assert_array_equal(ours, theirs)
    for ours, theirs in zip(compare(x, y), [x < y, x <= y, x > y, x >= y,
                                           x == y, x != y]):
        np.testing.assert_array_equal(ours, theirs)


def test_uint8_values_of_128_and_more():
    x = np.array([200, 255, 128, 130, 0], np.uint8)
    y = np.array([100, 2, 127, 3, 1], np.uint8)
    total, difference, product, quotient, remainder, high, low = arithmetic(x, y)
    assert total.tolist() == [44, 1, 255, 133, 1]
    assert difference.tolist() == [100, 253, 1, 127, 255]
    assert product.tolist() == [32, 254, 128, 134, 0]
    assert quotient.tolist() == [2, 127, 1, 43, 0]
    assert remainder.tolist() == [0, 1, 1, 1, 0]
    assert high.tolist() == [200, 255, 128, 130, 1]
    assert low.tolist() == [100, 2, 127, 3, 0]
    assert compare(x, y)[2].tolist() == [True, True, True, True, False]


@pw.pointwise(promotion_methods=[(0, "DEFAULT")] * 6 + [(0, "INT_TO_FLOAT")],
              num_outputs=7)
def unary(x):
    return x >> 1, x << 1, x >> 9, abs(x), -x, ~x, x / 2


def test_unsigned_shifts_abs_negation_and_true_division():
    x = np.array([200, 255, 128, 1, 0], np.uint8)
    right, left, gone, magnitude, negated, inverted, half = unary(x)
    assert right.tolist() == [100, 127, 64, 0, 0]  # logical, not arithmetic
    assert left.tolist() == [144, 254, 0, 2, 0]
    assert gone.tolist() == [0] * 5
    assert magnitude.tolist() == [200, 255, 128, 1, 0]
    assert negated.tolist() == [56, 1, 128, 255, 0]
    assert inverted.tolist() == [55, 0, 127, 254, 255]
    assert half.dtype == np.float32 and half.tolist() == [100, 127.5, 64, 0.5, 0]
    big = np.array([2**64 - 1, 2**63], np.uint64)
    right, *_, half = unary(big)
    assert right.tolist() == [2**63 - 1, 2**62]
    assert half.tolist() == [np.float32(2.0**63), np.float32(2.0**62)]


@pytest.mark.parametrize("other,expected", [
    (np.int8, np.int16), (np.int16, np.int16), (np.int32, np.int32),
    (np.int64, np.int64), (np.bool_, np.uint8), (np.uint8, np.uint8),
    (np.float16, np.float16), (np.float32, np.float32),
    (np.float64, np.float64)])
def test_uint8_promotion_agrees_with_numpy_and_torch(other, expected):
    x = np.array([200, 255, 3], np.uint8)
    y = np.array([-100, 1, 0], np.float64).astype(other) if other is not np.bool_ \
        else np.array([True, True, False])
    if other in (np.uint8,):
        y = np.array([100, 1, 0], np.uint8)
    z = add(x, y)
    assert z.dtype == expected == np.result_type(x, y)
    np.testing.assert_array_equal(z, (x.astype(np.float64) + y).astype(expected))


def test_unsigned_with_python_scalars_keeps_the_tensor_dtype():
    x = np.array([200, 255, 3], np.uint8)
    z = floordiv_scalar(x, 2.0)  # a float scalar: float32
    assert z.dtype == np.float32 and z.tolist() == [100, 127, 1]

    @pw.pointwise(is_tensor=[True, False], promotion_methods=[(0, 1, "DEFAULT")])
    def plus(a, s):
        return a + s

    z = plus(x, 100)  # an int scalar: uint8, wrapping
    assert z.dtype == np.uint8 and z.tolist() == [44, 99, 103]
    assert plus(x, True).dtype == np.uint8
    assert plus(np.array([2**64 - 1], np.uint64), 1).tolist() == [0]


def test_wide_unsigned_promotion_raises_as_in_pytorch():
    x = np.array([1, 2], np.uint16)
    with pytest.raises(TypeError, match=r"add: promotion of uint16 with int32 "
                                        "is not supported"):
        add(x, np.array([1, 2], np.int32))
    with pytest.raises(TypeError, match="uint32 with uint8"):
        add(np.array([1], np.uint32), np.array([1], np.uint8))
    assert add(x, np.array([0.5, 1], np.float32)).dtype == np.float32

    @pw.pointwise(promotion_methods=[(0, "DEFAULT")])
    def mixes(a):
        return a + a.to("int8")

    with pytest.raises(pw.TracingError, match="uint64 with int8"):
        mixes(np.array([1], np.uint64))


def test_unsigned_scalars_are_range_checked():
    @pw.pointwise(is_tensor=[True, False], dtypes=[None, "uint8"],
                  promotion_methods=[(0, "DEFAULT")])
    def shift_by(a, s):
        return a + s

    @pw.pointwise(is_tensor=[True, False], dtypes=[None, "uint8"],
                  promotion_methods=[(0, 1, "DEFAULT")])
    def minus(a, s):
        return a + -s  # a scalar is a Python number: -s is negative

    x = np.array([1, 2], np.int32)
    assert shift_by(x, 255).tolist() == [256, 257]  # zero-extended
    assert minus(x, 200).tolist() == [-199, -198]
    for bad in (256, -1):
        with pytest.raises(OverflowError, match="0 to 255"):
            shift_by(x, bad)


@pw.pointwise(promotion_methods=[(0, "DEFAULT")] * 5, num_outputs=5)
def conversions(x):
    # Each output is given in the dtype its value is converted to, so that
    # the store does not convert again.
    return (x.to("int16"), x.to("int8"), x.to("float32"), x.to("uint16"),
            x.to("bool"))


def convert(x):
    outputs = [np.zeros(x.shape, dtype) for dtype in
               (np.int16, np.int8, np.float32, np.uint16, np.bool_)]
    return conversions(x, **{"out%d" % k: out for k, out in enumerate(outputs)})


def test_unsigned_conversions_zero_extend():
    x = np.array([200, 255, 128, 0], np.uint8)
    wide, narrow, real, unsigned, truth = convert(x)
    assert wide.tolist() == [200, 255, 128, 0]
    assert narrow.tolist() == [-56, -1, -128, 0]
    assert real.tolist() == [200.0, 255.0, 128.0, 0.0]
    assert unsigned.tolist() == [200, 255, 128, 0]
    assert truth.tolist() == [True, True, True, False]
    signed = np.array([-1, -128, 5], np.int8)
    assert convert(signed)[3].tolist() == [65535, 65408, 5]  # sign-extended
    big = np.array([2**64 - 1, 2**63 + 2**40], np.uint64)
    assert convert(big)[2].tolist() == [np.float32(2.0**64),
                                        np.float32(2.0**63 + 2**40)]
    # The default outputs take the promoted dtype: the value converted to
    # int8 is stored back into uint8.
    assert conversions(x)[1].tolist() == [200, 255, 128, 0]


@pw.pointwise(promotion_methods=[(0, 1, "DEFAULT")])
def power(x, y):
    return x ** y


def test_unsigned_power_wraps():
    x = np.array([3, 200, 2, 1, 0], np.uint8)
    y = np.array([5, 2, 8, 200, 0], np.uint8)
    assert power(x, y).tolist() == [243, (200 * 200) % 256, 0, 1, 1]
    big = np.array([3], np.uint64)
    assert power(big, np.array([40], np.uint64)).tolist() == [3**40 % 2**64]
