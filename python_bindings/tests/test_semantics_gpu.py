"""@pw.pointwise semantics on the GPU against PyTorch eager: float floor
division and remainder, conversions into outputs of another dtype, and
unsigned integers. Skipped without torch or a CUDA device."""

import itertools
import math

import numpy as np
import pytest

torch = pytest.importorskip("torch")
if not torch.cuda.is_available():
    pytest.skip("no CUDA device", allow_module_level=True)
pw = pytest.importorskip("pointwise")

from semantics_functions import add, arithmetic, compare, copy, divmod_, float_to_integer


pytestmark = pytest.mark.usefixtures("quiet_shared_cache")


def cuda(values, dtype):
    return torch.tensor(values, dtype=dtype).cuda()


def assert_identical(ours, expected):
    """Equal values and dtypes, NaN where NaN, the same sign of zero (a
    NaN's sign is not specified)."""
    assert ours.dtype == expected.dtype
    torch.testing.assert_close(ours, expected, rtol=0, atol=0, equal_nan=True)
    numbers = ~torch.isnan(expected)
    assert torch.equal(torch.signbit(ours[numbers]),
                       torch.signbit(expected[numbers]))


SPECIAL = [
    (1.0, 0.1), (-1.0, 0.1), (1.0, -0.1), (-1.0, -0.1),  # x / y rounds to 10
    (0.3, 0.1), (0.7, 0.1), (2.0, 0.2), (-0.3, 0.1),
    (7.0, 2.0), (-7.0, 2.0), (7.0, -2.0), (-7.0, -2.0),
    (6.0, 3.0), (-6.0, 3.0), (6.0, -3.0), (-6.0, -3.0),
    (0.0, 3.0), (-0.0, 3.0), (0.0, -3.0), (-0.0, -3.0),
    (0.5, 3.0), (-0.5, 3.0), (0.5, -3.0), (-0.5, -3.0),
    (1.0, 0.0), (-1.0, 0.0), (0.0, 0.0), (1.0, -0.0), (-1.0, -0.0),
    (math.inf, 2.0), (-math.inf, 2.0), (2.0, math.inf), (-2.0, math.inf),
    (2.0, -math.inf), (-2.0, -math.inf), (math.inf, math.inf),
    (math.inf, 0.0), (math.nan, 1.0), (1.0, math.nan), (math.nan, 0.0),
]


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64,
                                   torch.float16, torch.bfloat16])
def test_float_floor_division_and_remainder_are_torchs(dtype):
    a = cuda([x for x, _ in SPECIAL], dtype)
    b = cuda([y for _, y in SPECIAL], dtype)
    quotient, remainder = divmod_(a, b)
    # float16 and bfloat16 compute in float32 (opmath), rounded once.
    wide = torch.float32 if dtype in (torch.float16, torch.bfloat16) else dtype
    a_, b_ = a.to(wide), b.to(wide)
    assert_identical(quotient,
                     torch.div(a_, b_, rounding_mode="floor").to(dtype))
    assert_identical(remainder, torch.remainder(a_, b_).to(dtype))
    if wide is dtype:  # 0.1 rounds up in float32 and float64
        assert quotient[0].item() == 9 and quotient[1].item() == -10
        assert_identical(quotient, torch.div(a, b, rounding_mode="floor"))
        assert_identical(remainder, torch.remainder(a, b))


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_float_floor_division_of_near_multiples(dtype):
    g = torch.Generator(device="cuda").manual_seed(3)
    b = torch.rand(8192, device="cuda", generator=g, dtype=dtype) * 10 + 0.01
    b = torch.where(torch.rand(8192, device="cuda", generator=g) > 0.5, b, -b)
    k = torch.randint(-1000, 1000, (8192,), device="cuda", generator=g)
    a = k.to(dtype) * b
    quotient, remainder = divmod_(a, b)
    assert_identical(quotient, torch.div(a, b, rounding_mode="floor"))
    assert_identical(remainder, torch.remainder(a, b))
    assert (torch.floor(a / b) != quotient).any()  # cases that need fmod


FLOATS = [0.0, -0.0, 0.5, -0.5, 0.99, -0.99, 1.5, -1.5, 2.5, -2.5, 100.7,
          -100.7, 127.9, 128.0, -128.9, -129.0, 255.5, 256.0, 300.7, -300.7,
          32767.5, 32768.0, -32769.0, 65535.9, 65536.0, 2.0**31, -2.0**31 - 1e3,
          2.0**32 + 5, 2.0**40, -2.0**40, 2.0**63, -2.0**63, 2.0**64, 1e30,
          -1e30, math.inf, -math.inf, math.nan]

INTEGER_TYPES = [torch.int8, torch.int16, torch.int32, torch.int64, torch.uint8]


@pytest.mark.parametrize("source", [torch.float32, torch.float64,
                                    torch.float16, torch.bfloat16])
@pytest.mark.parametrize("target", INTEGER_TYPES)
def test_float_results_convert_into_integer_outputs(source, target):
    x = cuda(FLOATS, torch.float64).to(source)
    out = torch.empty(x.shape, dtype=target, device="cuda")
    assert copy(x, out0=out) is out
    info = torch.iinfo(target)
    expected = [float_to_integer(v, info.bits, info.min < 0)
                for v in x.double().tolist()]
    assert out.tolist() == expected
    # Where torch defines the conversion it agrees: values in range, and
    # for uint8 every value within int64 (c10 converts through int64).
    wide = x.double()
    if target == torch.uint8:
        defined = wide.isfinite() & (wide.abs() < 2.0**63)
    else:
        defined = wide.isfinite() & (wide > float(info.min) - 1) & \
            (wide < float(info.max) + 1)
    assert torch.equal(out[defined], x[defined].to(target))


def test_float_results_convert_into_bool_outputs():
    x = cuda([0.0, -0.0, 0.5, -1e-30, math.inf, math.nan], torch.float32)
    out = torch.empty(6, dtype=torch.bool, device="cuda")
    copy(x, out0=out)
    assert torch.equal(out, x.to(torch.bool))


@pytest.mark.parametrize("source,target", list(itertools.product(
    [torch.bool, torch.int16, torch.int32, torch.int64, torch.uint8],
    [torch.bool, torch.int8, torch.uint8, torch.int16, torch.float16])))
def test_copies_convert_as_torch_copy(source, target):
    g = torch.Generator(device="cuda").manual_seed(7)
    if source == torch.bool:
        x = torch.rand(1000, device="cuda", generator=g) > 0.5
    else:
        # Narrower sources wrap these around (as torch's .to() does).
        x = torch.randint(-2**40, 2**40, (1000,), device="cuda", generator=g,
                          dtype=torch.int64)
        x[:4] = torch.tensor([2**63 - 1, -2**63, 255, -129])
        x = x.to(source)
    out = torch.empty(x.shape, dtype=target, device="cuda")
    copy(x, out0=out)
    assert torch.equal(out, x.to(target))  # .to() is copy_


def test_float_promotion_result_into_an_integer_output():
    a = cuda([1.7, -2.7, 3.5], torch.float32)
    b = cuda([1, 1, 1], torch.int32)
    out = add(a, b, out0=torch.empty(3, dtype=torch.int16, device="cuda"))
    assert torch.equal(out, (a + b).to(torch.int16))


DTYPES = [torch.bool, torch.int8, torch.int16, torch.int32, torch.int64,
          torch.uint8, torch.float16, torch.bfloat16, torch.float32,
          torch.float64]


def uint8_values(seed):
    g = torch.Generator(device="cuda").manual_seed(seed)
    edges = cuda([0, 1, 127, 128, 129, 200, 254, 255], torch.uint8)
    rest = torch.randint(0, 256, (992,), device="cuda", generator=g,
                         dtype=torch.int64).to(torch.uint8)
    return torch.cat([edges, rest])


@pytest.mark.parametrize("other", DTYPES)
def test_uint8_promotion_is_torchs(other):
    x = uint8_values(1)
    if other == torch.bool:
        y = uint8_values(2) > 100
    elif other.is_floating_point:
        y = uint8_values(2).to(other) - 100
    else:
        y = (uint8_values(2).to(torch.int64) - 100).to(other)
    ours = add(x, y)
    expected = x + y
    assert ours.dtype == expected.dtype == torch.result_type(x, y)
    tol = {torch.float16: 2e-3, torch.bfloat16: 1.6e-2}.get(expected.dtype, 0)
    torch.testing.assert_close(ours, expected, rtol=tol, atol=tol)
    assert add(y, x).dtype == torch.result_type(y, x)


def test_uint8_arithmetic_and_comparisons_are_torchs():
    x = uint8_values(3)
    y = uint8_values(4).roll(3)
    y = torch.where(y == 0, torch.ones_like(y), y)  # torch: x // 0 traps
    results = arithmetic(x, y)
    expected = (x + y, x - y, x * y, torch.div(x, y, rounding_mode="floor"),
                torch.remainder(x, y), torch.maximum(x, y), torch.minimum(x, y))
    for ours, theirs in zip(results, expected):
        assert ours.dtype == theirs.dtype == torch.uint8
        assert torch.equal(ours, theirs)
    for ours, theirs in zip(compare(x, y),
                            (x < y, x <= y, x > y, x >= y, x == y, x != y)):
        assert torch.equal(ours, theirs)


@pw.pointwise(promotion_methods=[(0, 1, "DEFAULT")] * 2, num_outputs=2)
def shifts(x, y):
    return x >> y, x << y


def test_uint8_shifts_are_torchs():
    x = uint8_values(5)
    y = (uint8_values(6) % 8).to(torch.uint8)
    right, left = shifts(x, y)
    assert torch.equal(right, x >> y) and torch.equal(left, x << y)


@pytest.mark.parametrize("scalar", [3, 100, True, 2.5])
def test_uint8_with_python_scalars_is_torchs(scalar):
    @pw.pointwise(is_tensor=[True, False], promotion_methods=[(0, 1, "DEFAULT")])
    def plus(a, s):
        return a + s

    x = uint8_values(7)
    ours = plus(x, scalar)
    expected = x + scalar
    assert ours.dtype == expected.dtype
    assert torch.equal(ours, expected)


@pytest.mark.parametrize("name", ["uint16", "uint32", "uint64"])
def test_wide_unsigned_against_numpy(name):
    dtype = getattr(torch, name, None)
    if dtype is None:
        pytest.skip("torch %s has no %s" % (torch.__version__, name))
    info = np.iinfo(name)
    g = np.random.default_rng(8)
    a = g.integers(0, info.max, 1000, dtype=name, endpoint=True)
    b = g.integers(1, info.max, 1000, dtype=name, endpoint=True)
    a[:4] = [info.max, info.max // 2 + 1, 128, 0]
    b[:4] = [3, info.max, 255, info.max]
    try:
        x = torch.from_numpy(a).cuda()
        y = torch.from_numpy(b).cuda()
    except (TypeError, RuntimeError) as e:
        pytest.skip("torch cannot hold %s tensors here: %s" % (name, e))
    results = arithmetic(x, y)
    try:
        results = [r.cpu().numpy() for r in results]
    except (TypeError, RuntimeError) as e:
        pytest.skip("torch cannot read %s tensors back here: %s" % (name, e))
    expected = [a + b, a - b, a * b, a // b, a % b, np.maximum(a, b),
                np.minimum(a, b)]
    for ours, theirs in zip(results, expected):
        assert ours.dtype == theirs.dtype
        np.testing.assert_array_equal(ours, theirs)
    for ours, theirs in zip(compare(x, y), (a < b, a <= b, a > b, a >= b,
                                            a == b, a != b)):
        np.testing.assert_array_equal(ours.cpu().numpy(), theirs)
    with pytest.raises(TypeError, match="not supported, as in PyTorch"):
        add(x, torch.ones(1000, dtype=torch.int32, device="cuda"))


@pw.pointwise(is_tensor=[True, True, False], dtypes=[None, None, float],
              promotion_methods=[(0, 1, "DEFAULT")])
def axpy(x, y, alpha):
    return x * alpha + y


@pw.pointwise(promotion_methods=[(0, 1, 2, "DEFAULT")])
def combine(p, q, r):
    return p - q * r


@pw.pointwise(promotion_methods=[(0, 1, "DEFAULT")])
def composed(x, y):
    return combine(axpy(x, y, 2.0), add(y, x), axpy(y, x, -0.5))


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.int32,
                                   torch.uint8])
def test_composition_matches_separate_kernels(dtype):
    g = torch.Generator(device="cuda").manual_seed(9)
    a = (torch.randn((64, 33), device="cuda", generator=g) * 20).to(dtype)
    b = (torch.randn((33,), device="cuda", generator=g) * 20).to(dtype)
    ours = composed(a, b)
    separate = combine(axpy(a, b, 2.0), add(b, a), axpy(b, a, -0.5))
    assert ours.dtype == separate.dtype == torch.result_type(a, b)
    assert torch.equal(ours, separate)
