"""pointwise._trace: tracing Python functions into ``pointwise.map``.

Three kinds of tests:

* the text and the dtypes that tracing produces (no tools needed);
* every operator and function, on every dtype it takes and ranks 0, 1 and
  3, gives IR that ``pw-opt`` verifies and ``pw-opt --pw-cpu-pipeline``
  lowers;
* end to end: traced modules run through ``pw-run`` (with ``--check``
  against the reference lowering) on random inputs, whose outputs are
  compared with values computed here in Python from the dumped inputs.
"""

import itertools
import json
import math
import os
import struct
import subprocess

import pytest

from pointwise import _trace as pw
from pointwise._dtypes import (
    ALL_DTYPES,
    bfloat16,
    bool_,
    float16,
    float32,
    float64,
    int8,
    int16,
    int32,
    int64,
    python_scalar_dtype,
    uint8,
    uint16,
    uint32,
    uint64,
)
from pointwise._trace import Param, TracingError, Value, trace_function

RANKS = (0, 1, 3)
FLOATS = (float16, bfloat16, float32, float64)
UNSIGNED = (uint8, uint16, uint32, uint64)
INTEGERS = (int8, int16, int32, int64) + UNSIGNED


def T(dtype, rank=1):
    return Param("tensor", dtype, rank)


def S(dtype):
    return Param("scalar", dtype)


def trace(fn, params, outputs, name="f", **kwargs):
    return trace_function(fn, params, outputs, name, **kwargs)


def traced_results(fn, params):
    """What ``fn`` returns while it is traced (Values keep their dtype)."""
    seen = []

    def recorder(*args):
        seen.append(fn(*args))
        return 0

    trace(recorder, params, [float32])
    return seen[0]


def traced_module(fn, params):
    """``fn`` traced with its results' own dtypes as output dtypes."""
    results = traced_results(fn, params)
    if not isinstance(results, (tuple, list)):
        results = [results]
    outputs = [
        r.dtype if isinstance(r, Value) else python_scalar_dtype(r) for r in results
    ]
    return trace(fn, params, outputs)


# ===------------------------------------------------------------------------===
# Text
# ===------------------------------------------------------------------------===

AXPY_F32 = """\
module {
  func.func @axpy(%arg0: memref<?x?xf32, strided<[?, ?], offset: ?>>, \
%arg1: memref<?x?xf32, strided<[?, ?], offset: ?>>, %arg2: f64, \
%out0: memref<?x?xf32, strided<[?, ?], offset: ?>>) {
    pointwise.map ins(%arg0, %arg1, %arg2 : \
memref<?x?xf32, strided<[?, ?], offset: ?>>, \
memref<?x?xf32, strided<[?, ?], offset: ?>>, f64) \
outs(%out0 : memref<?x?xf32, strided<[?, ?], offset: ?>>) {
    ^bb0(%in0: f32, %in1: f32, %in2: f64):
      %0 = arith.truncf %in2 : f64 to f32
      %1 = arith.mulf %in1, %0 : f32
      %2 = arith.addf %in0, %1 : f32
      pointwise.yield %2 : f32
    }
    return
  }
}
"""


def axpy(x, y, alpha):
    return x + y * alpha


def test_axpy_text():
    params = [T(float32, 2), T(float32, 2), S(float64)]
    assert trace_function(axpy, params, [float32], "axpy") == AXPY_F32


def test_text_is_deterministic():
    def f(x, y, a):
        return pw.where(x > 0.5, pw.exp(x) * a, y // 3), x.to("half") + 1

    params = [T(float16, 3), T(int32, 3), S(float64)]
    texts = {trace(f, params, [float32, bfloat16]) for _ in range(3)}
    assert len(texts) == 1


def test_signature_ranks_and_scalars():
    def f(x, n, b, y):
        return x

    text = trace(f, [T(bfloat16, 3), S(int64), S(bool_), T(int8, 3)], [float64])
    assert (
        "func.func @f(%arg0: memref<?x?x?xbf16, strided<[?, ?, ?], offset: ?>>, "
        "%arg1: i64, %arg2: i1, %arg3: memref<?x?x?xi8, strided<[?, ?, ?], "
        "offset: ?>>, %out0: memref<?x?x?xf64, strided<[?, ?, ?], offset: ?>>)"
    ) in text
    assert "ins(%arg0, %arg1, %arg2, %arg3 : " in text
    assert "outs(%out0 : memref<?x?x?xf64, strided<[?, ?, ?], offset: ?>>)" in text
    assert "^bb0(%in0: bf16, %in1: i64, %in2: i1, %in3: i8):" in text
    assert "arith.extf %in0 : bf16 to f32" in text

    rank0 = trace(f, [T(float32, 0), S(int64), S(bool_), T(int8, 0)], [float32])
    assert "%arg0: memref<f32, strided<[], offset: ?>>" in rank0
    assert "%out0: memref<f32, strided<[], offset: ?>>" in rank0


def test_names_are_quoted_when_needed():
    text = trace(lambda x: x, [T(float32)], [float32], name="<lambda>")
    assert 'func.func @"<lambda>"(' in text
    assert "func.func @add.f32_$1(" in trace(
        lambda x: x, [T(float32)], [float32], name="add.f32_$1"
    )


def test_identical_operations_are_emitted_once():
    def f(x):
        return (x + 1.0) * (x + 1.0) + 1.0

    text = trace(f, [T(float32)], [float32])
    assert text.count("arith.constant 1.0 : f32") == 1
    assert text.count("arith.addf") == 2


def test_opmath_and_storage():
    def f(x, y):
        return x * y + x

    text = trace(f, [T(float16), T(float16)], [float16])
    body = [line.strip() for line in text.splitlines() if " = " in line]
    assert body == [
        "%0 = arith.extf %in0 : f16 to f32",
        "%1 = arith.extf %in1 : f16 to f32",
        "%2 = arith.mulf %0, %1 : f32",
        "%3 = arith.addf %2, %0 : f32",
        "%4 = arith.truncf %3 : f32 to f16",
    ]


def test_explicit_to_half_rounds():
    text = trace(lambda x: x.to(float16) * 2, [T(float32)], [float32])
    assert "arith.truncf %in0 : f32 to f16" in text
    assert "arith.extf %0 : f16 to f32" in text


def test_f64_to_half_rounds_through_f32():
    text = trace(lambda x: x, [T(float64)], [bfloat16])
    assert "arith.truncf %in0 : f64 to f32" in text
    assert "arith.truncf %0 : f32 to bf16" in text


def test_wrapped_scalars_keep_opmath_precision_in_arithmetic():
    mul = trace(lambda x: x * 0.1, [T(float16)], [float16])
    assert f"arith.constant {struct.unpack('f', struct.pack('f', 0.1))[0]!r}" in mul
    # Comparisons see the literal rounded to the promoted dtype, float16.
    half_tenth = struct.unpack("e", struct.pack("e", 0.1))[0]
    compare = trace(lambda x: x == 0.1, [T(float16)], [bool_])
    assert f"arith.constant {half_tenth!r} : f32" in compare
    assert "arith.cmpf oeq" in compare


def test_predicates():
    def f(x, y):
        return x < y, x <= y, x > y, x >= y, x == y, x != y

    floats = trace(f, [T(float32), T(float32)], [bool_] * 6)
    for predicate in ("olt", "ole", "ogt", "oge", "oeq", "une"):
        assert f"arith.cmpf {predicate}," in floats
    ints = trace(f, [T(int16), T(int16)], [bool_] * 6)
    for predicate in ("slt", "sle", "sgt", "sge", "eq", "ne"):
        assert f"arith.cmpi {predicate}," in ints
    bools = trace(f, [T(bool_), T(bool_)], [bool_] * 6)
    for predicate in ("ult", "ule", "ugt", "uge", "eq", "ne"):
        assert f"arith.cmpi {predicate}," in bools


def test_conversions_text():
    cases = [
        (float32, int32, "arith.fptosi %in0 : f32 to i32"),
        (int32, float32, "arith.sitofp %in0 : i32 to f32"),
        (bool_, float64, "arith.uitofp %in0 : i1 to f64"),
        (bool_, int16, "arith.extui %in0 : i1 to i16"),
        (float64, bool_, "arith.cmpf une, %in0, %0 : f64"),
        (int8, bool_, "arith.cmpi ne, %in0, %0 : i8"),
        (float32, float64, "arith.extf %in0 : f32 to f64"),
        (float64, float32, "arith.truncf %in0 : f64 to f32"),
        (int8, int64, "arith.extsi %in0 : i8 to i64"),
        (int64, int16, "arith.trunci %in0 : i64 to i16"),
    ]
    for src, dst, expected in cases:
        text = trace(lambda x: x.to(dst), [T(src)], [dst])
        assert expected in text, (src, dst, text)


def test_integer_power_and_sigmoid_ops():
    power = trace(lambda x: x**3, [T(int32)], [int32])
    assert power.count("arith.muli") == 2 and "select" not in power
    general = trace(lambda x, y: x**y, [T(int32), T(int32)], [int32])
    assert "math.ipowi" not in general and "arith.select" in general
    assert "arith.mulf %in0, %in0" in trace(lambda x: x**2, [T(float32)], [float32])
    sigmoid = trace(pw.sigmoid, [T(float32)], [float32])
    for op in ("arith.negf", "math.exp", "arith.addf", "arith.divf"):
        assert op in sigmoid


# ===------------------------------------------------------------------------===
# Dtypes of traced values
# ===------------------------------------------------------------------------===

DTYPE_CASES = [
    (lambda a, b: a / b, [T(int32), T(int32)], float32),
    (lambda a, b: a / b, [T(bool_), T(bool_)], float32),
    (lambda a: a + 1000, [T(int8)], int8),
    (lambda a: a + 2.5, [T(int16)], float32),
    (lambda a: 2.5 * a, [T(float16)], float16),
    (lambda a: a - 2.5, [T(bfloat16)], bfloat16),
    (lambda a, b: a + b, [T(bool_), T(bool_)], bool_),
    (lambda a, b: a * b, [T(float16), T(bfloat16)], float32),
    (lambda a, b: a - b, [T(int64), T(float16)], float16),
    (lambda a: a + 3, [T(bool_)], int64),
    (lambda a: a + True, [T(int64)], int64),
    (lambda a: a * True, [T(bool_)], bool_),
    (lambda a, b: a**b, [T(bool_), T(bool_)], int64),
    (lambda a: a**0.5, [T(int8)], float32),
    (lambda a: 2**a, [T(int16)], int16),
    (lambda a: a < 2.5, [T(int32)], bool_),
    (lambda a: a // 2.5, [T(int32)], float32),
    (lambda a: a % 3, [T(int32)], int32),
    (lambda a: pw.exp(a), [T(int32)], float32),
    (lambda a: pw.sigmoid(a), [T(bool_)], float32),
    (lambda a: pw.log(a), [T(float16)], float16),
    (lambda a: pw.floor(a), [T(int32)], int32),
    (lambda a: pw.round(a), [T(bfloat16)], bfloat16),
    (lambda a: pw.isnan(a), [T(int32)], bool_),
    (lambda a: a.to("half"), [S(float64)], float16),
    (lambda a: a << 2, [T(int8)], int8),
    (lambda a, b: a & b, [T(bool_), T(int16)], int16),
    (lambda a: ~a, [T(bool_)], bool_),
    (lambda a: -a, [T(int8)], int8),
    (lambda a, b: a * b, [T(float16), S(float64)], float16),
    (lambda a, b: a * b, [T(int32), S(float64)], float32),
    (lambda a, b: a * b, [T(int8), S(int64)], int8),
    (lambda c: pw.where(c, 1.0, 2.0), [T(bool_)], float32),
    (lambda c, a: pw.where(c, a, 2), [T(bool_), T(int8)], int8),
    (lambda c, a, b: pw.where(c, a, b), [T(float32), T(int32), T(int64)], int64),
    (lambda a, b: pw.maximum(a, b), [T(int8), T(float16)], float16),
    (lambda a, b: pw.minimum(a, b), [T(bool_), T(bool_)], bool_),
    (lambda a, b: pw.fma(a, 2.0, b), [T(float16), T(bfloat16)], float32),
    (lambda a: pw.fma(a, a, 1), [T(int16)], int16),
]


@pytest.mark.parametrize("fn,params,expected", DTYPE_CASES)
def test_result_dtypes(fn, params, expected):
    result = traced_results(fn, params)
    assert result.dtype is expected
    assert not result.wrapped


WRAPPED_CASES = [
    (lambda a: a * 2, [S(float64)], float64),
    (lambda a: a * 2, [S(int64)], int64),
    (lambda a: a / 2, [S(int64)], float64),
    (lambda a: a + True, [S(bool_)], int64),
    (lambda a: a & True, [S(bool_)], bool_),
    (lambda a: a * 2.5, [S(float32)], float64),
    (lambda a: pw.exp(a), [S(int64)], float64),
    (lambda a: a > 2, [S(float64)], bool_),
    (lambda a: -a, [S(bool_)], int64),
    (lambda a: pw.where(a > 0, a, 0), [S(int64)], int64),
]


@pytest.mark.parametrize("fn,params,expected", WRAPPED_CASES)
def test_wrapped_values_stay_wrapped(fn, params, expected):
    result = traced_results(fn, params)
    assert result.dtype is expected
    assert result.wrapped


def test_parameters_and_values():
    def f(x, alpha):
        assert isinstance(x, Value) and not x.wrapped and x.dtype is float16
        assert x.ir_type == "f32"
        assert alpha.wrapped and alpha.dtype is float64 and alpha.ir_type == "f64"
        assert "float16" in repr(x)
        return x

    trace(f, [T(float16), S(float)], [float16])


def test_python_numbers_only():
    assert pw.exp(0) == 1.0
    assert pw.log(0.0) == -math.inf
    assert math.isnan(pw.sqrt(-1.0))
    assert pw.rsqrt(4) == 0.5
    assert pw.exp(1000.0) == math.inf
    assert pw.sigmoid(-1000.0) == 0.0 and pw.sigmoid(0) == 0.5
    assert pw.round(2.5) == 2.0 and pw.round(3.5) == 4.0 and pw.round(7) == 7
    assert pw.floor(-1.5) == -2.0 and isinstance(pw.floor(-1.5), float)
    assert pw.ceil(1.25) == 2.0
    assert math.isnan(pw.maximum(math.nan, 1.0)) and math.isnan(pw.minimum(1, math.nan))
    assert pw.maximum(2, 3) == 3 and pw.minimum(2, 3.5) == 2
    assert pw.where(True, 1, 2.5) == 1 and pw.where(0, 1, 2.5) == 2.5
    assert pw.isnan(math.nan) and not pw.isnan(1) and pw.isinf(-math.inf)
    assert pw.fma(2, 3, 4) == 10
    assert pw.fma(0.1, 10.0, -1.0) == 5.551115123125783e-17  # one rounding
    assert math.isnan(pw.sin(math.inf))
    assert pw.log1p(-1.0) == -math.inf


def test_constant_and_scalar_results_broadcast():
    def f(x, alpha):
        return 1.5, alpha, True

    text = trace(f, [T(float32, 2), S(float64)], [float32, float16, int32])
    lines = [line.strip() for line in text.splitlines() if " = " in line]
    assert lines == [
        "%0 = arith.constant 1.5 : f64",
        "%1 = arith.truncf %0 : f64 to f32",
        "%2 = arith.truncf %in1 : f64 to f32",
        "%3 = arith.truncf %2 : f32 to f16",
        "%4 = arith.constant true",
        "%5 = arith.extui %4 : i1 to i32",
    ]
    assert "pointwise.yield %1, %3, %5 : f32, f16, i32" in text


# ===------------------------------------------------------------------------===
# Verification and lowering
# ===------------------------------------------------------------------------===


def _pw_opt(pw_opt, text, args):
    return subprocess.run(
        [pw_opt, *args, "-o", os.devnull],
        input=text,
        text=True,
        capture_output=True,
    )


@pytest.mark.parametrize("dtype", UNSIGNED)
def test_unsigned_values_take_the_unsigned_operations(dtype):
    t = dtype.mlir
    text = trace(
        lambda x, y: (x // y, x % y, x < y, pw.maximum(x, y), pw.minimum(x, y),
                      x >> y, x.to(float32), x.to(int64), abs(x)),
        [T(dtype), T(dtype)],
        [dtype, dtype, bool_, dtype, dtype, dtype, float32, int64, dtype],
    )
    for op in ("arith.divui", "arith.remui", "arith.cmpi ult",
               "arith.maxui", "arith.minui", "arith.shrui",
               f"arith.uitofp %in0 : {t} to f32"):
        assert op in text, op
    for op in ("divsi", "floordivsi", "remsi", "cmpi slt", "maxsi", "minsi",
               "shrsi", "sitofp", "absi"):
        assert op not in text, op
    if dtype is not uint64:
        assert f"arith.extui %in0 : {t} to i64" in text


def test_unsigned_constants_are_written_as_signless_bits():
    text = trace(lambda x: x + 255, [T(uint8)], [uint8])
    assert "arith.constant -1 : i8" in text
    text = trace(lambda x: x + 2**63, [T(uint64)], [uint64])
    assert "arith.constant -9223372036854775808 : i64" in text


def test_float_floor_division_derives_the_quotient_from_fmod():
    text = trace(lambda x, y: x // y, [T(float32), T(float32)], [float32])
    assert "arith.remf %in0, %in1 : f32" in text
    assert "math.copysign" in text and "math.floor" in text


def test_floats_convert_to_uint8_through_int64():
    text = trace(lambda x: x, [T(float32)], [uint8])
    assert "arith.fptosi %in0 : f32 to i64" in text
    assert "arith.trunci" in text and "fptoui" not in text
    for dtype in (uint16, uint32, uint64):
        text = trace(lambda x: x, [T(float32)], [dtype])
        assert f"arith.fptoui %in0 : f32 to {dtype.mlir}" in text


def test_wide_unsigned_promotion_is_a_tracing_error():
    with pytest.raises(TracingError, match="uint16 with int8 is not supported"):
        trace(lambda x, y: x + y, [T(uint16), T(int8)], [int16])
    with pytest.raises(TracingError, match="uint64 with bool"):
        trace(lambda c, x, y: pw.where(c, x, y), [T(bool_), T(uint64), T(bool_)],
              [uint64])
    # Wrapped numbers combine with any unsigned type, as in PyTorch.
    trace(lambda x: x * 3 + True, [T(uint32)], [uint32])


def test_unsigned_floor_division_and_conversions_lower_for_the_gpu(pw_opt):
    """The GPU pipeline (to PTX text: no device or toolkit needed) takes the
    operations of unsigned integers, float floor division and the
    conversions into every output dtype."""
    modules = []
    for dtype in UNSIGNED:
        modules.append(trace(
            lambda x, y: (x // y, x % y, x < y, pw.maximum(x, y), x >> y,
                          x << y, x ** y, x / y),
            [T(dtype), T(dtype)],
            [dtype, dtype, bool_, dtype, dtype, dtype, dtype, float32]))
    for dtype in FLOATS:
        modules.append(trace(lambda x, y: (x // y, x % y),
                             [T(dtype), T(dtype)], [dtype, dtype]))
    for source in FLOATS:
        modules.append(trace(lambda x: (x,) * 9, [T(source)],
                             [bool_, *INTEGERS]))
    result = _pw_opt(pw_opt, "\n// -----\n".join(modules),
                     ["--split-input-file", "--pw-gpu-pipeline=format=isa"])
    assert result.returncode == 0, result.stderr[-4000:]


def check_lowering(pw_opt, modules):
    """pw-opt verifies each module and --pw-cpu-pipeline lowers it."""
    joined = "\n// -----\n".join(modules)
    for args in ([], ["--pw-cpu-pipeline"]):
        result = _pw_opt(pw_opt, joined, ["--split-input-file", *args])
        if result.returncode == 0:
            continue
        for module in modules:  # report the first module that fails
            single = _pw_opt(pw_opt, module, args)
            if single.returncode != 0:
                pytest.fail(
                    f"pw-opt {' '.join(args)} failed:\n{single.stderr}\n{module}"
                )
        pytest.fail(f"pw-opt {' '.join(args)} failed:\n{result.stderr}")


def variants(fn, arity, dtypes, literals=(), scalars=()):
    """Modules of ``fn`` over ``dtypes`` and RANKS, with literal and scalar
    operands in place of the second (and first) argument."""
    modules = []
    for dtype, rank in itertools.product(dtypes, RANKS):
        modules.append(traced_module(fn, [T(dtype, rank)] * arity))
    for dtype in dtypes:
        for literal in literals:
            rest = [T(dtype, 1)] * (arity - 1)
            modules.append(traced_module(lambda *a: fn(*a, literal), rest))
            modules.append(traced_module(lambda *a: fn(literal, *a), rest))
        for scalar in scalars:
            params = [T(dtype, 3)] * (arity - 1) + [S(scalar)]
            modules.append(traced_module(fn, params))
    return modules


MIXED_PAIRS = [
    (float16, bfloat16),
    (int8, float16),
    (bool_, int32),
    (int64, float32),
    (bfloat16, float64),
    (int16, int8),
    (bool_, float16),
    (int64, int64),
]

BINARY = {
    "add": (lambda a, b: a + b, ALL_DTYPES),
    "sub": (lambda a, b: a - b, INTEGERS + FLOATS),
    "mul": (lambda a, b: a * b, ALL_DTYPES),
    "truediv": (lambda a, b: a / b, ALL_DTYPES),
    "floordiv": (lambda a, b: a // b, INTEGERS + FLOATS),
    "mod": (lambda a, b: a % b, INTEGERS + FLOATS),
    "pow": (lambda a, b: a**b, ALL_DTYPES),
    "lt": (lambda a, b: a < b, ALL_DTYPES),
    "le": (lambda a, b: a <= b, ALL_DTYPES),
    "gt": (lambda a, b: a > b, ALL_DTYPES),
    "ge": (lambda a, b: a >= b, ALL_DTYPES),
    "eq": (lambda a, b: a == b, ALL_DTYPES),
    "ne": (lambda a, b: a != b, ALL_DTYPES),
    "and": (lambda a, b: a & b, (bool_,) + INTEGERS),
    "or": (lambda a, b: a | b, (bool_,) + INTEGERS),
    "xor": (lambda a, b: a ^ b, (bool_,) + INTEGERS),
    "lshift": (lambda a, b: a << b, INTEGERS),
    "rshift": (lambda a, b: a >> b, INTEGERS),
    "maximum": (pw.maximum, ALL_DTYPES),
    "minimum": (pw.minimum, ALL_DTYPES),
}


def _literals_for(dtypes):
    if any(d.is_floating for d in dtypes):
        return (2, 2.5, True)
    if any(d.is_bool for d in dtypes):
        return (True,)
    return (3, True)


@pytest.mark.parametrize("name", sorted(BINARY))
def test_binary_operators_lower(pw_opt, name):
    fn, dtypes = BINARY[name]
    if name in ("and", "or", "xor"):
        literals, scalars = (True, 5), (bool_, int64)
    elif name in ("lshift", "rshift"):
        literals, scalars = (3,), (int64,)
    elif name in ("sub", "floordiv", "mod"):
        literals, scalars = (3, 2.5), (int64, float64)
    else:
        literals, scalars = (3, 2.5, True), (int64, float64, bool_)
    modules = variants(fn, 2, dtypes, literals, scalars)
    for a, b in MIXED_PAIRS:
        if a in dtypes and b in dtypes:
            modules.append(traced_module(fn, [T(a, 3), T(b, 3)]))
    check_lowering(pw_opt, modules)


UNARY = {
    "neg": (lambda a: -a, INTEGERS + FLOATS),
    "pos": (lambda a: +a, ALL_DTYPES),
    "abs": (abs, ALL_DTYPES),
    "invert": (lambda a: ~a, (bool_,) + INTEGERS),
    "floor": (pw.floor, ALL_DTYPES),
    "ceil": (pw.ceil, ALL_DTYPES),
    "round": (pw.round, ALL_DTYPES),
    "isnan": (pw.isnan, ALL_DTYPES),
    "isinf": (pw.isinf, ALL_DTYPES),
}
for _name in "exp exp2 log log2 log1p sqrt rsqrt sin cos tan tanh erf sigmoid".split():
    UNARY[_name] = (getattr(pw, _name), ALL_DTYPES)


@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary_operators_and_functions_lower(pw_opt, name):
    fn, dtypes = UNARY[name]
    modules = variants(fn, 1, dtypes)
    for scalar in (bool_, int64, float64, float16):
        if scalar in dtypes:
            modules.append(traced_module(fn, [S(scalar)]))
    check_lowering(pw_opt, modules)


def test_where_lowers(pw_opt):
    modules = []
    for cond, value, rank in itertools.product(
        (bool_, float32, int32, float16), ALL_DTYPES, RANKS
    ):
        modules.append(traced_module(pw.where, [T(cond, rank)] + [T(value, rank)] * 2))
    for value in ALL_DTYPES:
        modules.append(
            traced_module(lambda c, a: pw.where(c, a, 2.5), [T(bool_), T(value)])
        )
        modules.append(
            traced_module(lambda c, a: pw.where(c, 1, a), [T(int8), T(value)])
        )
        modules.append(
            traced_module(lambda c, a: pw.where(c, a, a), [S(bool_), T(value)])
        )
    modules.append(traced_module(lambda c: pw.where(c, 1.0, 2), [T(bool_, 3)]))
    modules.append(
        traced_module(lambda a, b: pw.where(True, a, b), [T(int8), T(float16)])
    )
    check_lowering(pw_opt, modules)


def test_fma_lowers(pw_opt):
    modules = variants(pw.fma, 3, ALL_DTYPES)
    for dtype in ALL_DTYPES:
        modules.append(
            traced_module(lambda a, b: pw.fma(a, 2.5, b), [T(dtype), S(float64)])
        )
        modules.append(traced_module(lambda a: pw.fma(a, a, 3), [T(dtype, 3)]))
    modules.append(traced_module(pw.fma, [T(float16), T(bfloat16), T(int8)]))
    check_lowering(pw_opt, modules)


def test_conversions_lower(pw_opt):
    modules = []
    for src, dst in itertools.product(ALL_DTYPES, ALL_DTYPES):
        # .to() inside the body, then a store of yet another type.
        store = ALL_DTYPES[(src.code + dst.code) % len(ALL_DTYPES)]
        modules.append(trace(lambda x: x.to(dst), [T(src, 1)], [store]))
        # The yield's conversion alone, from tensors and from scalars.
        modules.append(trace(lambda x: x, [T(src, 3)], [dst]))
        modules.append(trace(lambda x: x, [S(src)], [dst], rank=1))
    for literal in (True, -3, 2.5, math.inf, -math.inf, math.nan, -0.0, 1e300):
        for dst in ALL_DTYPES:
            if (
                dst.is_integer
                and isinstance(literal, float)
                and not math.isfinite(literal)
            ):
                continue
            if dst.is_integer and literal == 1e300:
                continue
            modules.append(trace(lambda x: literal, [T(float32, 0)], [dst]))
    check_lowering(pw_opt, modules)


def test_several_outputs_no_parameters_and_reflected_literals_lower(pw_opt):
    def several(x, y, alpha):
        return x + y, x > y, alpha, 1.5, pw.where(x > 0, x * alpha, -y)

    modules = [
        trace(
            several,
            [T(float16, r), T(int32, r), S(float64)],
            [bfloat16, bool_, float32, int8, float64],
        )
        for r in RANKS
    ]
    modules.append(trace(lambda: 1.5, [], [float32], rank=2))
    modules.append(trace(lambda a: (a * 2, a), [S(int64)], [int16, float16], rank=0))
    for literal in (2, 2.5, True):
        for dtype in (bool_, int8, float16, float64):
            modules.append(
                traced_module(
                    lambda x: (
                        literal + x,
                        literal * x,
                        literal / x,
                        literal**x,
                        literal < x,
                    ),
                    [T(dtype)],
                )
            )
    check_lowering(pw_opt, modules)


# ===------------------------------------------------------------------------===
# Errors
# ===------------------------------------------------------------------------===


def test_python_control_flow_is_an_error():
    def relu(x):
        if x > 0:
            return x
        return 0.0

    with pytest.raises(TracingError) as info:
        trace(relu, [T(float32)], [float32])
    message = str(info.value)
    assert "pw.where" in message and "relu" in message
    assert isinstance(info.value, TypeError)


@pytest.mark.parametrize(
    "fn",
    [
        lambda x: bool(x),
        lambda x: int(x),
        lambda x: float(x),
        lambda x: math.exp(x),
        lambda x: len(x),
        lambda x: list(x),
        lambda x: x[0],
        lambda x: [1, 2][x],
        lambda x: 0 < x < 1,
        lambda x: max(x, 0.0),
        lambda x: x and 1.0,
    ],
)
def test_conversions_to_python_values_are_errors(fn):
    with pytest.raises(TracingError, match=r"pw\.where"):
        trace(fn, [T(float32)], [float32], name="conv")


def test_wrong_result_count():
    def two(x):
        return x, x

    with pytest.raises(
        TracingError, match=r"two': returned 2 value\(s\), but 1 output"
    ):
        trace(two, [T(float32)], [float32])
    with pytest.raises(TracingError, match=r"returned 1 value\(s\), but 3 output"):
        trace(lambda x: x, [T(float32)], [float32] * 3)
    assert "pointwise.yield" in trace(lambda x: [x, 1], [T(float32)], [float32, int8])
    assert "pointwise.yield" in trace(lambda x: (x,), [T(float32)], [float32])


def test_bad_results():
    def returns_none(x):
        x + 1

    with pytest.raises(TracingError, match=r"returns_none.*None"):
        trace(returns_none, [T(float32)], [float32])
    with pytest.raises(TracingError, match=r"result #0 is 'x' of type str"):
        trace(lambda x: "x", [T(float32)], [float32])


def test_bitwise_on_float_is_an_error():
    def masked(x, y):
        return x & y

    with pytest.raises(TracingError, match=r"masked.*bitwise '&'.*float"):
        trace(masked, [T(float32), T(int32)], [float32])
    with pytest.raises(TracingError, match=r"bitwise '\|'"):
        trace(lambda x: x | 1, [T(float16)], [float16])
    with pytest.raises(TracingError, match=r"bitwise '~'"):
        trace(lambda x: ~x, [T(float64)], [float64])
    with pytest.raises(TracingError, match=r"shift '<<'"):
        trace(lambda x: x << 1, [T(float32)], [float32])
    with pytest.raises(TracingError, match=r"shift '>>'"):
        trace(lambda x, y: x >> y, [T(bool_), T(bool_)], [bool_])
    # bool >> int promotes to int64, which shifts.
    assert "arith.shrsi" in trace(lambda x: x >> 1, [T(bool_)], [int64])


@pytest.mark.parametrize(
    "fn,pattern",
    [
        (lambda x, y: x - y, r"subtraction \('-'\) of bool"),
        (lambda x, y: x // y, r"floor division"),
        (lambda x, y: x % y, r"remainder"),
        (lambda x, y: -x, r"negation"),
    ],
)
def test_bool_arithmetic_errors(fn, pattern):
    with pytest.raises(TracingError, match=pattern):
        trace(fn, [T(bool_), T(bool_)], [bool_])


def test_unsupported_operands():
    with pytest.raises(
        TracingError, match=r"unsupported operand 'a' of type str for '\+'"
    ):
        trace(lambda x: x + "a", [T(float32)], [float32])
    with pytest.raises(TracingError, match=r"unsupported operand None"):
        trace(lambda x: x == None, [T(float32)], [bool_])  # noqa: E711
    with pytest.raises(TracingError, match=r"complex"):
        trace(lambda x: x * 1j, [T(float32)], [float32])
    with pytest.raises(TracingError, match=r"unsupported argument"):
        pw.exp("1")
    with pytest.raises(TypeError, match="unsupported dtype"):
        trace(lambda x: x.to("complex64"), [T(float32)], [float32])


def test_missing_attributes_point_to_the_pw_functions():
    for fn, name in [(lambda x: x.real, "real"), (lambda x: x.exp(), "exp"),
                     (lambda x: x.shape, "shape")]:
        with pytest.raises(TracingError, match=r"in traced function '.*<lambda>': "
                           r"a traced Value \(a scalar\) has no attribute "
                           r"'%s'.*pw\.exp" % name) as info:
            trace(fn, [T(float32)], [float32], name="attr")
        assert isinstance(info.value, AttributeError)  # hasattr() stays usable
    text = trace(lambda x: x + hasattr(x, "real"), [T(float32)], [float32])
    assert "arith.addf" in text


def test_numpy_functions_point_to_the_pw_functions():
    np = pytest.importorskip("numpy")
    for fn, pattern in [
        (lambda x: np.exp(x), r"NumPy's exp cannot take a traced Value.*use pw\.exp$"),
        (lambda x: np.sin(x) + 1, r"NumPy's sin .*use pw\.sin$"),
        (lambda x: np.maximum(x, 0), r"NumPy's maximum .*use pw\.maximum$"),
        (lambda x: np.rint(x), r"NumPy's rint .*use pw\.round$"),
        (lambda x: np.hypot(x, x), r"NumPy's hypot .*use Python operators and "
                                   r"the pw functions \(pw\.exp, "),
        (lambda x: np.add.reduce(x), r"NumPy's add\.reduce cannot"),
    ]:
        with pytest.raises(TracingError, match=r"in traced function '.*<lambda>': " +
                           pattern):
            trace(fn, [T(float32)], [float32], name="npf")


def test_numpy_scalars_on_the_left_act_as_reflected_operators():
    np = pytest.importorskip("numpy")
    cases = [
        (lambda x: np.float32(2) * x, lambda x: 2.0 * x),
        (lambda x: np.float64(3) - x, lambda x: 3.0 - x),
        (lambda x: np.float64(3) / x, lambda x: 3.0 / x),
        (lambda x: np.float64(7) // x, lambda x: 7.0 // x),
        (lambda x: np.float64(7) % x, lambda x: 7.0 % x),
        (lambda x: np.float64(2) ** x, lambda x: 2.0 ** x),
        (lambda x: np.int64(1) < x, lambda x: 1 < x),
        (lambda x: np.float64(2) >= x, lambda x: 2.0 >= x),
        (lambda x: np.int64(1) == x, lambda x: x == 1),
        (lambda x: np.int64(1) != x, lambda x: x != 1),
        (lambda x: np.add(x, 2), lambda x: x + 2),
        (lambda x: np.negative(x), lambda x: -x),
        (lambda x: np.absolute(x), lambda x: abs(x)),
    ]
    for numpy_fn, python_fn in cases:
        assert trace(numpy_fn, [T(float32)], [float32]) == \
            trace(python_fn, [T(float32)], [float32])
    for numpy_fn, python_fn in [
            (lambda x: np.int64(1) << x, lambda x: 1 << x),
            (lambda x: np.int64(6) & x, lambda x: 6 & x),
            (lambda x: np.int32(6) ^ x, lambda x: 6 ^ x)]:
        assert trace(numpy_fn, [T(int32)], [int64]) == \
            trace(python_fn, [T(int32)], [int64])


def test_values_do_not_outlive_their_trace():
    leaked = []
    trace(lambda x: leaked.append(x) or x, [T(float32)], [float32], name="first")
    with pytest.raises(TracingError, match="after its trace ended"):
        trace(lambda y: y + leaked[0], [T(float32)], [float32], name="second")
    with pytest.raises(TracingError, match="after its trace ended"):
        leaked[0] * 2


def test_bad_arguments():
    with pytest.raises(ValueError, match="kind"):
        Param("vector", float32, 1)
    with pytest.raises(ValueError, match="rank 0"):
        Param("scalar", float32, 2)
    with pytest.raises(ValueError, match="negative"):
        Param("tensor", float32, -1)
    with pytest.raises(TypeError):
        Param("tensor", "complex64", 1)
    with pytest.raises(ValueError, match="different ranks"):
        trace(lambda a, b: a + b, [T(float32, 1), T(float32, 2)], [float32])
    with pytest.raises(ValueError, match="at least one output"):
        trace(lambda a: a, [T(float32)], [])
    with pytest.raises(TypeError, match="one dtype per output"):
        trace(lambda a: a, [T(float32)], float32)
    with pytest.raises(ValueError, match="outputs have rank 2"):
        trace(lambda a: a, [T(float32, 1)], [float32], rank=2)
    with pytest.raises(TypeError, match="not a Param"):
        trace(lambda a: a, [float32], [float32])


# ===------------------------------------------------------------------------===
# End to end through pw-run
# ===------------------------------------------------------------------------===

_STRUCT = {
    "i1": "B",
    "i8": "b",
    "i16": "h",
    "i32": "i",
    "i64": "q",
    "f16": "e",
    "bf16": "H",
    "f32": "f",
    "f64": "d",
}


def f32(x):
    try:
        return struct.unpack("f", struct.pack("f", x))[0]
    except OverflowError:
        return math.copysign(math.inf, x)


def f16(x):
    try:
        return struct.unpack("e", struct.pack("e", f32(x)))[0]
    except OverflowError:
        return math.copysign(math.inf, x)


def bf16(x):
    bits = struct.unpack("I", struct.pack("f", f32(x)))[0]
    bits = ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16) << 16
    return struct.unpack("f", struct.pack("I", bits & 0xFFFFFFFF))[0]


def wrap(value, bits):
    value &= (1 << bits) - 1
    return value - (1 << bits) if value >> (bits - 1) else value


def _decode(entry, directory):
    """The elements of a dumped memref view, in row-major order."""
    data = (directory / entry["file"]).read_bytes()
    code = _STRUCT[entry["type"]]
    width = entry["byte_width"]
    values = []
    for index in itertools.product(*(range(s) for s in entry["sizes"])):
        element = entry["offset"] + sum(i * s for i, s in zip(index, entry["strides"]))
        (raw,) = struct.unpack_from("<" + code, data, element * width)
        if entry["type"] == "bf16":
            raw = struct.unpack("<f", struct.pack("<I", raw << 16))[0]
        elif entry["type"] == "i1":
            raw = bool(raw)
        values.append(raw)
    return values


def _read_dump(directory):
    manifest = json.loads((directory / "manifest.json").read_text())
    views = {}
    for entry in manifest["arguments"]:
        if entry["kind"] == "memref":
            views[entry["index"]] = _decode(entry, directory)
    return views


def run(pw_run, tmp_path, text, specs, seed=1):
    """Runs ``text`` with pw-run --check; returns (inputs, outputs) by index."""
    source = tmp_path / "traced.mlir"
    source.write_text(text)
    command = [pw_run, str(source), "--seed", str(seed), "--check"]
    command += ["--dump-inputs", str(tmp_path / "in")]
    command += ["--dump-outputs", str(tmp_path / "out")]
    for spec in specs:
        command += ["--arg", spec]
    result = subprocess.run(command, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr + text
    assert "check passed" in result.stdout
    return _read_dump(tmp_path / "in"), _read_dump(tmp_path / "out")


def assert_same(actual, expected, rel=0.0):
    assert len(actual) == len(expected)
    for i, (a, e) in enumerate(zip(actual, expected)):
        if isinstance(e, float) and math.isnan(e):
            assert isinstance(a, float) and math.isnan(a), (i, a, e)
        elif rel:
            assert a == pytest.approx(e, rel=rel, abs=rel), (i, a, e)
        else:
            assert a == e and type(a) is type(e), (i, a, e)


def test_run_axpy(pw_run, tmp_path):
    params = [T(float32, 2), T(float32, 2), S(float64)]
    text = trace_function(axpy, params, [float32], "axpy")
    ins, outs = run(pw_run, tmp_path, text, ["3x4@1,3", "3x4", "=0.3", "3x4"])
    a, b, c = ins[0], ins[1], outs[3]
    assert_same(c, [f32(x + f32(y * f32(0.3))) for x, y in zip(a, b)])


def test_run_where_and_comparisons(pw_run, tmp_path):
    def f(x, n):
        return pw.where(x > 0, x, n * 2), x < n, x >= 0.5, n == 3, x != x

    params = [T(float32, 3), T(int32, 3)]
    text = trace(f, params, [float32, bool_, bool_, bool_, bool_])
    shape = "2x3x5"
    ins, outs = run(pw_run, tmp_path, text, [shape, "2x3x5@1,2,6"] + [shape] * 5)
    x, n = ins[0], ins[1]
    assert_same(outs[2], [xi if xi > 0 else float(ni * 2) for xi, ni in zip(x, n)])
    assert_same(outs[3], [xi < ni for xi, ni in zip(x, n)])
    assert_same(outs[4], [xi >= 0.5 for xi in x])
    assert_same(outs[5], [ni == 3 for ni in n])
    assert_same(outs[6], [False] * len(x))


def test_run_integer_floor_division_and_remainder(pw_run, tmp_path):
    def f(a, b):
        d = pw.where(b == 0, 7, b)
        return a // d, a % d, a // -3, a % 7, -17 % d

    text = trace(f, [T(int32), T(int32)], [int32, int32, int8, int16, int64])
    ins, outs = run(pw_run, tmp_path, text, ["64"] * 7)
    a, b = ins[0], ins[1]
    d = [bi if bi != 0 else 7 for bi in b]
    assert any(x < 0 for x in a) and any(x < 0 for x in d)
    assert_same(outs[2], [x // y for x, y in zip(a, d)])
    assert_same(outs[3], [x % y for x, y in zip(a, d)])
    assert_same(outs[4], [x // -3 for x in a])
    assert_same(outs[5], [x % 7 for x in a])
    assert_same(outs[6], [-17 % y for y in d])


def test_run_float_floor_division_and_remainder(pw_run, tmp_path):
    def f(a, b):
        d = pw.where(b == 0, 0.5, b)
        return a // d, a % d, a % -1.5

    text = trace(f, [T(float32), T(float32)], [float32] * 3)
    ins, outs = run(pw_run, tmp_path, text, ["64"] * 5)
    a, b = ins[0], ins[1]
    d = [y if y != 0 else 0.5 for y in b]

    def remainder(x, y):
        r = math.fmod(x, y)  # exact
        return f32(r + y) if r != 0 and (r < 0) != (y < 0) else r

    def floor_divide(x, y):
        # PyTorch's div_floor_floating in float32 arithmetic.
        mod = math.fmod(x, y)  # exact
        div = f32(f32(x - mod) / y)
        if mod != 0 and (y < 0) != (mod < 0):
            div = f32(div - 1)
        if div == 0:
            return math.copysign(0.0, f32(x / y))
        floored = float(math.floor(div))
        return floored + 1 if div - floored > 0.5 else floored

    assert_same(outs[2], [floor_divide(x, y) for x, y in zip(a, d)])
    assert_same(outs[3], [remainder(x, y) for x, y in zip(a, d)])
    assert_same(outs[4], [remainder(x, f32(-1.5)) for x in a])


def test_run_int_to_float_division(pw_run, tmp_path):
    def f(a, b, flag):
        return a / b, a / 4, flag / True

    text = trace(f, [T(int32), T(int16), T(bool_)], [float32, float64, float32])
    ins, outs = run(pw_run, tmp_path, text, ["40"] * 6)
    a, b, flag = ins[0], ins[1], ins[2]

    def divide(x, y):
        if y == 0:
            return math.nan if x == 0 else math.copysign(math.inf, x)
        return f32(x / y)

    assert_same(outs[3], [divide(x, y) for x, y in zip(a, b)])
    assert_same(outs[4], [f32(x / 4) for x in a])  # computed in float32
    assert_same(outs[5], [1.0 if v else 0.0 for v in flag])


def test_run_conversions(pw_run, tmp_path):
    def f(x, n, flag, wide):
        return (
            x.to(int32),
            x.to(bool_),
            (x * 1000).to("int16"),
            x.to(float16),
            n.to("half"),
            flag.to(float),
            wide.to(bfloat16),
            wide,
            (x - x).to(bool),
        )

    params = [T(float32), T(int32), T(bool_), S(float64)]
    outputs = [int32, bool_, int16, float32, float16, float32, float32, bfloat16, bool_]
    text = trace(f, params, outputs)
    # 1 + 2^-8 + 2^-30: rounds to bf16 1.0078125 directly, but to 1.0 through
    # f32, as PyTorch's double -> BFloat16 conversion does.
    wide = "=1.0039062509313226"
    ins, outs = run(pw_run, tmp_path, text, ["50", "50", "50", wide] + ["50"] * 9)
    x, n, flag = ins[0], ins[1], ins[2]
    assert_same(outs[4], [int(v) for v in x])  # truncation
    assert_same(outs[5], [v != 0 for v in x])
    assert_same(outs[6], [int(f32(v * 1000)) for v in x])
    assert_same(outs[7], [f16(v) for v in x])
    assert_same(outs[8], [f16(float(v)) for v in n])
    assert_same(outs[9], [float(v) for v in flag])
    assert_same(outs[10], [1.0] * 50)
    assert_same(outs[11], [1.0] * 50)
    assert_same(outs[12], [False] * 50)


def test_run_float16_math(pw_run, tmp_path):
    def f(x, y, alpha):
        hypot = pw.sqrt(x * x + y * y)
        return hypot, pw.exp(x) * alpha, x + y, pw.sigmoid(y), x.to(bfloat16) * 0.1

    params = [T(float16, 2), T(bfloat16, 2), S(float64)]
    text = trace(f, params, [float16, float16, bfloat16, float32, float32])
    ins, outs = run(pw_run, tmp_path, text, ["4x8", "4x8", "=0.5"] + ["4x8"] * 5)
    x, y = ins[0], ins[1]
    # Opmath: computed in f32, rounded once.
    assert_same(
        outs[3], [f16(math.sqrt(f32(f32(a * a) + f32(b * b)))) for a, b in zip(x, y)]
    )
    assert_same(outs[4], [f16(math.exp(a) * 0.5) for a in x], rel=1e-3)
    assert_same(outs[5], [bf16(f32(a + b)) for a, b in zip(x, y)])
    assert_same(outs[6], [1 / (1 + math.exp(-b)) for b in y], rel=1e-6)
    assert_same(outs[7], [f32(bf16(a) * f32(0.1)) for a in x])


def test_run_transcendentals_float32(pw_run, tmp_path):
    def f(x):
        return pw.tanh(x), pw.erf(x), pw.log1p(abs(x)), pw.exp2(x), pw.rsqrt(abs(x) + 1)

    text = trace(f, [T(float32)], [float32] * 5)
    ins, outs = run(pw_run, tmp_path, text, ["32"] * 6)
    x = ins[0]
    assert_same(outs[1], [math.tanh(v) for v in x], rel=1e-6)
    assert_same(outs[2], [math.erf(v) for v in x], rel=1e-6)
    assert_same(outs[3], [math.log1p(abs(v)) for v in x], rel=1e-6)
    assert_same(outs[4], [2.0**v for v in x], rel=1e-6)
    assert_same(outs[5], [1 / math.sqrt(abs(v) + 1) for v in x], rel=1e-6)


def test_run_rounding_extrema_and_nan(pw_run, tmp_path):
    def f(x, y):
        halves = pw.floor(x * 4) * 0.5
        nan_or_x = pw.where(x > 2, (x - x) / (x - x), x)
        return (
            pw.round(halves),
            pw.ceil(x),
            pw.maximum(nan_or_x, y),
            pw.minimum(x, y),
            pw.isnan(nan_or_x),
            pw.isinf(x / (y - y)),
        )

    text = trace(f, [T(float32), T(float32)], [float32] * 4 + [bool_] * 2)
    ins, outs = run(pw_run, tmp_path, text, ["64"] * 8)
    x, y = ins[0], ins[1]
    halves = [math.floor(v * 4) * 0.5 for v in x]
    assert any(h % 1 == 0.5 for h in halves)
    assert_same(outs[2], [float(round(h)) for h in halves])  # half to even
    assert_same(outs[3], [float(math.ceil(v)) for v in x])
    assert_same(outs[4], [math.nan if a > 2 else max(a, b) for a, b in zip(x, y)])
    assert_same(outs[5], [min(a, b) for a, b in zip(x, y)])
    assert_same(outs[6], [a > 2 for a in x])
    assert_same(outs[7], [a != 0 for a in x])


def test_run_integer_power_and_shifts(pw_run, tmp_path):
    def f(a, b):
        e = b % 5
        return a**e, a ** (e - 2), a**3, 2**e, a << (b % 40 - 4), a >> (b % 40 - 4)

    text = trace(f, [T(int32), T(int32)], [int32] * 6)
    ins, outs = run(pw_run, tmp_path, text, ["64"] * 8)
    a, b = ins[0], ins[1]

    def torch_pow(x, n):
        if n < 0:
            return 1 if x == 1 else (-1 if n % 2 else 1) if x == -1 else 0
        return wrap(x**n, 32)

    def lshift(x, n):
        return 0 if n < 0 or n >= 32 else wrap(x << n, 32)

    def rshift(x, n):
        return x >> (31 if n < 0 or n > 31 else n)

    e = [v % 5 for v in b]
    s = [v % 40 - 4 for v in b]
    assert_same(outs[2], [torch_pow(x, n) for x, n in zip(a, e)])
    assert_same(outs[3], [torch_pow(x, n - 2) for x, n in zip(a, e)])
    assert_same(outs[4], [wrap(x**3, 32) for x in a])
    assert_same(outs[5], [2**n for n in e])
    assert_same(outs[6], [lshift(x, n) for x, n in zip(a, s)])
    assert_same(outs[7], [rshift(x, n) for x, n in zip(a, s)])


def test_run_bool_and_bitwise(pw_run, tmp_path):
    def f(p, q, k):
        return p + q, p * q, p & ~q, p ^ True, (k & 12) | 1, k ^ -1, p + 2

    params = [T(bool_), T(bool_), T(int8)]
    text = trace(f, params, [bool_, bool_, bool_, bool_, int8, int8, int64])
    ins, outs = run(pw_run, tmp_path, text, ["32"] * 10)
    p, q, k = ins[0], ins[1], ins[2]
    assert_same(outs[3], [a or b for a, b in zip(p, q)])
    assert_same(outs[4], [a and b for a, b in zip(p, q)])
    assert_same(outs[5], [a and not b for a, b in zip(p, q)])
    assert_same(outs[6], [not a for a in p])
    assert_same(outs[7], [(v & 12) | 1 for v in k])
    assert_same(outs[8], [~v for v in k])
    assert_same(outs[9], [int(a) + 2 for a in p])


def test_run_rank_0_scalars_and_several_outputs(pw_run, tmp_path):
    def f(x, n, alpha):
        return x * alpha + n / 2, n // 2, alpha, 7, pw.fma(x, alpha, 1.0)

    params = [T(float64, 0), S(int64), S(float32)]
    outputs = [float64, int8, float16, int32, float64]
    text = trace(f, params, outputs)
    specs = ["()", "=-7", "=0.25"] + ["()+1"] * 5
    ins, outs = run(pw_run, tmp_path, text, specs)
    (x,) = ins[0]
    assert_same(outs[3], [x * 0.25 + -3.5])
    assert_same(outs[4], [-4])
    assert_same(outs[5], [0.25])
    assert_same(outs[6], [7])
    assert_same(outs[7], [x * 0.25 + 1.0])
