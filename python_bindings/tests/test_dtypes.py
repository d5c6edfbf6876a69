"""pointwise._dtypes: DType, as_dtype, promote_types, result_type.

The expected promotions are PyTorch's (torch.promote_types and
torch.result_type), written out by hand.
"""

import copy
import pickle

import pytest

from pointwise import _dtypes as dt
from pointwise._dtypes import (
    ALL_DTYPES,
    DType,
    Operand,
    as_dtype,
    bfloat16,
    bool_,
    float16,
    float32,
    float64,
    int8,
    int16,
    int32,
    int64,
    promote_types,
    python_scalar_dtype,
    result_type,
    uint8,
    uint16,
    uint32,
    uint64,
)

# name, mlir, itemsize, code, category
ATTRIBUTES = [
    (bool_, "bool", "i1", 1, 0, 0),
    (int8, "int8", "i8", 1, 1, 1),
    (int16, "int16", "i16", 2, 2, 1),
    (int32, "int32", "i32", 4, 3, 1),
    (int64, "int64", "i64", 8, 4, 1),
    (float16, "float16", "f16", 2, 5, 2),
    (bfloat16, "bfloat16", "bf16", 2, 6, 2),
    (float32, "float32", "f32", 4, 7, 2),
    (float64, "float64", "f64", 8, 8, 2),
    (uint8, "uint8", "i8", 1, 1, 1),
    (uint16, "uint16", "i16", 2, 2, 1),
    (uint32, "uint32", "i32", 4, 3, 1),
    (uint64, "uint64", "i64", 8, 4, 1),
]


@pytest.mark.parametrize("dtype,name,mlir,itemsize,code,category", ATTRIBUTES)
def test_attributes(dtype, name, mlir, itemsize, code, category):
    assert dtype.name == name
    assert dtype.mlir == mlir
    assert dtype.itemsize == itemsize
    assert dtype.code == code
    assert dtype.category == category
    assert dtype.is_bool == (category == 0)
    assert dtype.is_integer == (category == 1)
    assert dtype.is_floating == (category == 2)
    assert dtype.is_unsigned == name.startswith("uint")
    assert dtype.is_signed == (category == 1 and not name.startswith("uint"))
    assert dtype.bits == itemsize * 8 if category else dtype.bits == 1
    assert repr(dtype) == f"pointwise.{name}"
    assert str(dtype) == name


def test_all_dtypes_in_code_order():
    assert ALL_DTYPES == tuple(a[0] for a in ATTRIBUTES)
    assert [d.code for d in ALL_DTYPES[:9]] == list(range(9))
    assert all(ALL_DTYPES[d.code].mlir == d.mlir for d in ALL_DTYPES)
    assert len({hash(d) for d in ALL_DTYPES}) == 13


def test_codes_match_runtime_element_types():
    from pointwise._runtime import ElementType

    for dtype in ALL_DTYPES:
        assert ElementType[dtype.mlir.upper()] == dtype.code


def test_immutable_singletons():
    with pytest.raises(AttributeError):
        float32.name = "float64"
    with pytest.raises(AttributeError):
        float32.extra = 1
    assert pickle.loads(pickle.dumps(float16)) is float16
    assert copy.deepcopy(bfloat16) is bfloat16
    assert copy.copy(int8) is int8
    assert {float32: 1}[as_dtype("float")] == 1


ALIASES = [
    ("bool", bool_),
    ("bool_", bool_),
    ("int8", int8),
    ("int16", int16),
    ("short", int16),
    ("int32", int32),
    ("int", int32),
    ("int64", int64),
    ("long", int64),
    ("float16", float16),
    ("half", float16),
    ("bfloat16", bfloat16),
    ("float32", float32),
    ("float", float32),
    ("float64", float64),
    ("double", float64),
    ("torch.float32", float32),
    ("torch.half", float16),
    ("torch.bfloat16", bfloat16),
    ("torch.bool", bool_),
    ("torch.long", int64),
    ("pointwise.int16", int16),
    (bool, bool_),
    (int, int64),
    (float, float64),
    (float32, float32),
]


@pytest.mark.parametrize("obj,expected", ALIASES)
def test_as_dtype_names_and_python_types(obj, expected):
    assert as_dtype(obj) is expected


class FakeTorchDtype:
    """What a torch dtype looks like to as_dtype: its str()."""

    def __init__(self, name):
        self.name = name

    def __str__(self):
        return f"torch.{self.name}"


@pytest.mark.parametrize(
    "name,expected",
    [
        ("float32", float32),
        ("float16", float16),
        ("bfloat16", bfloat16),
        ("float64", float64),
        ("int64", int64),
        ("int32", int32),
        ("int16", int16),
        ("int8", int8),
        ("bool", bool_),
    ],
)
def test_as_dtype_torch_dtypes_by_name(name, expected):
    assert as_dtype(FakeTorchDtype(name)) is expected


@pytest.mark.parametrize("name", ["complex64", "float8_e4m3fn", "qint8", "quint8"])
def test_as_dtype_rejects_unsupported_torch_dtypes(name):
    with pytest.raises(TypeError, match="unsupported dtype"):
        as_dtype(FakeTorchDtype(name))


def test_as_dtype_numpy():
    np = pytest.importorskip("numpy")
    cases = {
        np.float32: float32,
        np.float16: float16,
        np.float64: float64,
        np.int8: int8,
        np.int16: int16,
        np.int32: int32,
        np.int64: int64,
        np.bool_: bool_,
        np.dtype("float32"): float32,
        np.dtype("int64"): int64,
        np.dtype("bool"): bool_,
        np.dtype("f2"): float16,
        np.dtype("i1"): int8,
        np.uint8: uint8,
        np.dtype("uint16"): uint16,
        np.uint32: uint32,
        np.dtype("u8"): uint64,
    }
    for obj, expected in cases.items():
        assert as_dtype(obj) is expected, obj
    for bad in (np.complex64, np.dtype("c16"), np.float128, np.dtype("M8")):
        with pytest.raises(TypeError):
            as_dtype(bad)


def test_as_dtype_rejects_numpy_dtypes_of_the_other_byte_order():
    np = pytest.importorskip("numpy")
    for name in ("f4", "i8", "f2"):
        swapped = np.dtype(name).newbyteorder("S")
        with pytest.raises(TypeError, match="byte order"):
            as_dtype(swapped)
        assert as_dtype(swapped.newbyteorder("=")).name == np.dtype(name).name
    assert as_dtype(np.dtype("i1").newbyteorder("S")) is int8  # no byte order


@pytest.mark.parametrize(
    "bad",
    [complex, "complex64", "uint4", "int4", "", None, object(), 3, 2.5, "i1"],
)
def test_as_dtype_errors_name_supported_dtypes(bad):
    with pytest.raises(TypeError) as info:
        as_dtype(bad)
    message = str(info.value)
    assert "unsupported dtype" in message
    for dtype in ALL_DTYPES:
        assert dtype.name in message


def test_python_scalar_dtype():
    assert python_scalar_dtype(True) is bool_
    assert python_scalar_dtype(3) is int64
    assert python_scalar_dtype(2.5) is float64
    with pytest.raises(TypeError):
        python_scalar_dtype(1j)
    with pytest.raises(TypeError):
        python_scalar_dtype("1")


# torch.promote_types over (bool, int8, int16, int32, int64, float16,
# bfloat16, float32, float64), row by column.
B, I8, I16, I32, I64 = bool_, int8, int16, int32, int64
F16, BF16, F32, F64 = float16, bfloat16, float32, float64
ORDER = [B, I8, I16, I32, I64, F16, BF16, F32, F64]
PROMOTE_TABLE = [
    [B, I8, I16, I32, I64, F16, BF16, F32, F64],
    [I8, I8, I16, I32, I64, F16, BF16, F32, F64],
    [I16, I16, I16, I32, I64, F16, BF16, F32, F64],
    [I32, I32, I32, I32, I64, F16, BF16, F32, F64],
    [I64, I64, I64, I64, I64, F16, BF16, F32, F64],
    [F16, F16, F16, F16, F16, F16, F32, F32, F64],
    [BF16, BF16, BF16, BF16, BF16, F32, BF16, F32, F64],
    [F32, F32, F32, F32, F32, F32, F32, F32, F64],
    [F64, F64, F64, F64, F64, F64, F64, F64, F64],
]


def test_promote_types_table():
    for row, a in enumerate(ORDER):
        for col, b in enumerate(ORDER):
            expected = PROMOTE_TABLE[row][col]
            assert promote_types(a, b) is expected, (a, b)
            assert promote_types(b, a) is expected, (b, a)


# torch.promote_types(torch.uint8, x) for x in ORDER (torch's lookup table).
UINT8_ROW = [uint8, int16, int16, int32, int64, float16, bfloat16, float32,
             float64]


def test_promote_types_uint8():
    for b, expected in zip(ORDER, UINT8_ROW):
        assert promote_types(uint8, b) is expected, b
        assert promote_types(b, uint8) is expected, b
    assert promote_types(uint8, uint8) is uint8


@pytest.mark.parametrize("wide", [uint16, uint32, uint64])
def test_promote_types_of_wide_unsigned_is_torchs(wide):
    # c10's promoteTypes: uint16/32/64 promote with themselves and with
    # floating types only; every other pair raises.
    assert promote_types(wide, wide) is wide
    for floating in (float16, bfloat16, float32, float64):
        assert promote_types(wide, floating) is floating
        assert promote_types(floating, wide) is floating
    for other in (bool_, int8, int16, int32, int64, uint8, uint16, uint32,
                  uint64):
        if other is wide:
            continue
        with pytest.raises(TypeError, match="not supported, as in PyTorch"):
            promote_types(wide, other)
        with pytest.raises(TypeError, match="not supported, as in PyTorch"):
            promote_types(other, wide)


def test_result_type_of_unsigned_with_scalars():
    # torch.result_type(uint8 tensor, 5) is uint8, with 2.5 float32, with
    # True uint8; a bool tensor with an int scalar is int64.
    assert result_type(T(uint8), 5) is uint8
    assert result_type(T(uint8), 2.5) is float32
    assert result_type(T(uint8), True) is uint8
    assert result_type(T(uint16), -3) is uint16
    assert result_type(T(uint64), 1.0) is float32
    assert result_type(T(uint8), T(int8)) is int16
    assert result_type(T(uint8), T(bool_)) is uint8
    assert result_type(T(uint8), Operand(int64, "zerodim")) is uint8
    assert result_type(T(int8), Operand(uint8, "zerodim")) is int8
    assert result_type(T(bool_), Operand(uint8, "zerodim")) is uint8
    with pytest.raises(TypeError, match="uint32 with int32"):
        result_type(T(uint32), T(int32))


def test_promote_types_accepts_names():
    assert promote_types("half", "bfloat16") is float32
    assert promote_types("long", "half") is float16
    assert promote_types(bool, "int8") is int8


def T(dtype):
    return Operand(dtype, "tensor")


def S(dtype_or_value):
    return Operand.scalar(dtype_or_value)


def Z(dtype):
    return Operand(dtype, "zerodim")


# torch.result_type with tensors (dims >= 1) and Python numbers.
RESULT_TYPES = [
    ((T(int8), S(1000)), int8),
    ((T(int16), S(2.5)), float32),
    ((T(bool_), T(bool_)), bool_),
    ((T(float16), T(bfloat16)), float32),
    ((T(int64), T(float16)), float16),
    ((T(int32), S(2.5)), float32),
    ((T(float16), S(2.5)), float16),
    ((T(bfloat16), S(2.5)), bfloat16),
    ((T(float64), S(2.5)), float64),
    ((T(float32), S(2.5)), float32),
    ((T(int64), S(True)), int64),
    ((T(int8), S(True)), int8),
    ((T(bool_), S(3)), int64),
    ((T(bool_), S(2.5)), float32),
    ((T(bool_), S(True)), bool_),
    ((T(int32), S(7)), int32),
    ((T(int32), T(int64)), int64),
    ((T(int8), T(bool_)), int8),
    ((T(bfloat16), T(int8)), bfloat16),
    ((T(float16), T(float32)), float32),
    ((T(bfloat16), T(float64)), float64),
    ((T(int8), T(int16), S(2.5)), float32),
    ((T(float16), S(3)), float16),
    ((T(float16), S(3), S(2.5)), float16),
    ((T(int32), S(3), S(2.5)), float32),
    ((T(bool_), S(3), S(2.5)), float32),
    ((T(bool_), S(True), S(3)), int64),
    ((T(int16), T(float16), S(2.5)), float16),
    ((T(int64), T(bool_), S(2.5)), float32),
    # Python numbers only: wrapped floats count as the default dtype.
    ((S(1), S(2.5)), float32),
    ((S(1), S(2)), int64),
    ((S(True), S(False)), bool_),
    ((S(2.5),), float32),
    ((S(True), S(2)), int64),
    ((T(float64),), float64),
    ((T(bfloat16),), bfloat16),
    # Zero-dim tensors: a class between tensors with dims and Python numbers,
    # with their own dtype (not the default for floats).
    ((T(float32), Z(float64)), float32),
    ((T(int32), Z(float64)), float64),
    ((T(int32), Z(int64)), int32),
    ((T(bool_), Z(int8)), int8),
    ((T(float16), Z(float32), S(2.5)), float16),
    ((Z(float64), S(2.5)), float64),
    ((Z(int64), S(2.5)), float32),
    ((Z(int8), S(1000)), int8),
    ((Z(int8), Z(float16)), float16),
    ((Z(float64),), float64),
]


@pytest.mark.parametrize("operands,expected", RESULT_TYPES)
def test_result_type(operands, expected):
    assert result_type(*operands) is expected
    assert result_type(*reversed(operands)) is expected


def test_result_type_shorthands():
    # A bare dtype is a tensor, a Python number a scalar.
    assert result_type(int8, 1000) is int8
    assert result_type("int32", 2.5) is float32
    assert result_type(float16, bfloat16) is float32
    assert result_type(True, bool_) is bool_


def test_result_type_wrapped_float_of_any_width_is_the_default_dtype():
    # PyTorch replaces the dtype of a wrapped floating number by the default.
    assert result_type(S(float64)) is float32
    assert result_type(S(float16)) is float32
    assert result_type(T(int8), S(float64)) is float32
    assert result_type(T(float16), S(float64)) is float16


def test_operand_validation():
    assert Operand("half", "scalar").dtype is float16
    assert Operand(int8) == Operand(int8, "tensor")
    assert Operand.tensor("float") == T(float32)
    assert Operand.scalar(2.5) == Operand(float64, "scalar")
    assert Operand.scalar(True).dtype is bool_
    with pytest.raises(ValueError, match="kind"):
        Operand(float32, "matrix")
    with pytest.raises(TypeError):
        Operand("complex64")
    with pytest.raises(TypeError):
        result_type()


def test_module_exports():
    for name in dt.__all__:
        assert hasattr(dt, name), name
    assert isinstance(dt.float32, DType)


def test_one_table_agrees_with_numpy_and_struct():
    """Each DType's spellings (launch code, typestr, DLPack code) and range
    agree with NumPy's and Python's struct module's own."""
    import struct

    import numpy as np

    from pointwise import _dtypes
    for d in _dtypes.ALL_DTYPES:
        assert _dtypes.DTYPES_OF_CODE[d.code][0] is _dtypes.ALL_DTYPES[d.code]
        assert d in _dtypes.DTYPES_OF_CODE[d.code]
        assert _dtypes.from_dlpack(*d.dlpack) is d
        if d is _dtypes.bfloat16:
            assert d.typestr is None and d.pack == "E"
            assert d.max == struct.unpack("<f", b"\x00\x00\x7f\x7f")[0]
            continue
        assert _dtypes.from_typestr(*d.typestr) is d
        numpy_dtype = np.dtype("%s%d" % d.typestr)
        assert numpy_dtype.name == d.name and numpy_dtype.itemsize == d.itemsize
        assert struct.calcsize("<" + d.pack) == d.itemsize
        info = np.finfo(numpy_dtype) if d.is_floating else \
            np.iinfo(numpy_dtype) if d.is_integer else None
        if info is not None:
            assert (d.min, d.max) == (info.min, info.max)
        else:
            assert (d.min, d.max) == (0, 1)
