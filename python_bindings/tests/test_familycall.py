"""pointwise._fastcall.FamilyCall (python_bindings/src/FamilyCall.cpp), the
C call of an AOT library's family, without a GPU: the families are compiled
by pw-compile with --target=cpu (host loops dispatched by the same runtime),
and a stand-in tensor type over NumPy arrays plays torch.Tensor. Every call
is made through the C call and through the general call it stands in front
of (`Family._general_call`, which launches through `_fastcall.Launcher`):
the same outputs, the same packed arguments, the same errors."""

import ctypes
import inspect
import struct

import numpy as np
import pytest

from pointwise import _native, _runtime
from pointwise._runtime import KernelLibrary, load_runtime

SOURCE = r"""
!d2 = memref<?x?xf32, strided<[?, ?], offset: ?>>
!s2 = memref<4x3xf32, strided<[?, ?], offset: ?>>
!i1d = memref<?xi32, strided<[?], offset: ?>>
!h1d = memref<?xf16, strided<[?], offset: ?>>
!q1d = memref<?xi64, strided<[?], offset: ?>>
!r17 = memref<?x?x?x?x?x?x?x?x?x?x?x?x?x?x?x?x?xf32,
              strided<[?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?],
                      offset: ?>>

func.func @axpy(%x: !d2, %y: !d2, %a: f32, %out: !d2) {
  pointwise.map ins(%x, %y, %a : !d2, !d2, f32) outs(%out : !d2) {
  ^bb0(%u: f32, %v: f32, %s: f32):
    %m = arith.mulf %u, %s : f32
    %r = arith.addf %m, %v : f32
    pointwise.yield %r : f32
  }
  return
}

func.func @twice_static(%x: !s2, %out: !s2) {
  pointwise.map ins(%x : !s2) outs(%out : !s2) {
  ^bb0(%u: f32):
    %r = arith.addf %u, %u : f32
    pointwise.yield %r : f32
  }
  return
}

// Declared layouts: rows of stride 1 from element 3 (any row pitch), into a
// row-major output (identity layout: strides [?, 1], offset 0).
!rows = memref<?x?xf32, strided<[?, 1], offset: 3>>
func.func @copy_declared(%x: !rows, %out: memref<?x?xf32>) {
  pointwise.map ins(%x : !rows) outs(%out : memref<?x?xf32>) {
  ^bb0(%u: f32):
    pointwise.yield %u : f32
  }
  return
}

// A rank-0 memref from a declared offset of 5 elements.
func.func @copy_rank0(%x: memref<f32, strided<[], offset: 5>>,
                      %out: memref<f32>) {
  pointwise.map ins(%x : memref<f32, strided<[], offset: 5>>)
                outs(%out : memref<f32>) {
  ^bb0(%u: f32):
    pointwise.yield %u : f32
  }
  return
}

func.func @shift_if(%x: !i1d, %k: i8, %flag: i1, %w: f64, %out: !i1d) {
  pointwise.map ins(%x, %k, %flag, %w : !i1d, i8, i1, f64) outs(%out : !i1d) {
  ^bb0(%u: i32, %s: i8, %f: i1, %d: f64):
    %e = arith.extsi %s : i8 to i32
    %t = arith.fptosi %d : f64 to i32
    %p = arith.addi %u, %e : i32
    %q = arith.addi %p, %t : i32
    %r = arith.select %f, %q, %u : i32
    pointwise.yield %r : i32
  }
  return
}

func.func @widen_sum(%x: !q1d, %h: i16, %i: i32, %q: i64, %out: !q1d) {
  pointwise.map ins(%x, %h, %i, %q : !q1d, i16, i32, i64) outs(%out : !q1d) {
  ^bb0(%u: i64, %a: i16, %b: i32, %c: i64):
    %e = arith.extsi %a : i16 to i64
    %f = arith.extsi %b : i32 to i64
    %s = arith.addi %u, %e : i64
    %t = arith.addi %s, %f : i64
    %r = arith.addi %t, %c : i64
    pointwise.yield %r : i64
  }
  return
}

func.func @copy17(%x: !r17, %out: !r17) {
  pointwise.map ins(%x : !r17) outs(%out : !r17) {
  ^bb0(%u: f32):
    pointwise.yield %u : f32
  }
  return
}

func.func @scale_f16(%x: !h1d, %s: f16, %out: !h1d) {
  pointwise.map ins(%x, %s : !h1d, f16) outs(%out : !h1d) {
  ^bb0(%u: f16, %c: f16):
    %r = arith.mulf %u, %c : f16
    pointwise.yield %r : f16
  }
  return
}
"""

# Stand-in dtype objects (torch's are singletons compared by identity).
F32, I32, I64, F16, F64 = "float32", "int32", "int64", "float16", "float64"
_DTYPES = {np.dtype(np.float32): F32, np.dtype(np.int32): I32,
           np.dtype(np.int64): I64, np.dtype(np.float16): F16,
           np.dtype(np.float64): F64}
_BY_CODE = {_runtime.ElementType.F32: frozenset([F32]),
            _runtime.ElementType.I32: frozenset([I32]),
            _runtime.ElementType.I64: frozenset([I64]),
            _runtime.ElementType.F16: frozenset([F16]),
            _runtime.ElementType.F64: frozenset([F64])}


class FakeTensor:
    """What both call paths read of a torch.Tensor, over a NumPy array."""

    def __init__(self, array, cuda=True, dtype=None, negative=False):
        self.array = array
        self.shape = array.shape
        self.dtype = dtype or _DTYPES[array.dtype]
        self.is_cuda = cuda
        self.negative = negative

    def is_neg(self):
        return self.negative

    def data_ptr(self):
        return self.array.ctypes.data

    def stride(self):
        return tuple(s // self.array.itemsize for s in self.array.strides)

    def get_device(self):
        return 0

    def is_contiguous(self):
        return self.array.flags.c_contiguous


class SubTensor(FakeTensor):
    pass


@pytest.fixture(scope="module")
def library(pw_compile, tmp_path_factory):
    import subprocess
    directory = tmp_path_factory.mktemp("familycall")
    source = directory / "families.mlir"
    source.write_text(SOURCE)
    path = directory / "families.so"
    runtime = load_runtime()
    subprocess.run([pw_compile, str(source), "--target=cpu", "--quiet",
                    "--runtime-dir", _runtime_dir(runtime), "-o", str(path)],
                   check=True)
    return KernelLibrary(str(path), runtime=runtime)


def _runtime_dir(runtime):
    import os
    return os.path.dirname(runtime.path) if os.sep in runtime.path else "."


@pytest.fixture
def family(library, monkeypatch):
    """family(name): the family bound to FakeTensor as its tensor type."""
    if _native.fastcall(library.runtime) is None:
        pytest.skip("pointwise._fastcall is not built (no Python headers)")
    monkeypatch.setattr(_runtime, "_torch_dtypes_of",
                        lambda code: _BY_CODE.get(code, frozenset()))
    made = []

    def get(name):
        f = _runtime.Family(library, name, library.family(name)._table)
        f._bind_torch(FakeTensor)
        # Counts the launches of the general call (the C call launches
        # through the runtime directly).
        launch = f._launch
        f.python_launches = 0

        def counted(*values):
            f.python_launches += 1
            return launch(*values)
        f._launch = counted
        made.append(f)
        return f
    return get


def c_call_of(f):
    return type(f).__call__


def python_call(f, *args):
    return f._general_call(*args)


def outcome(call, *args):
    """('ok', None) or (exception type, message) of call(*args)."""
    try:
        return ("ok", call(*args))
    except Exception as error:  # compared between the two paths
        return (type(error), str(error))


def test_the_c_call_is_installed(family):
    f = family("axpy")
    assert type(c_call_of(f)).__name__ == "FamilyCall"
    assert list(inspect.signature(f).parameters) == ["a0", "a1", "a2", "a3"]
    # Half-precision scalars keep the general call.
    assert not type(c_call_of(family("scale_f16"))).__name__ == "FamilyCall"


def rnd(*shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape).astype(np.float32)


def layouts():
    """(x, y, out, expected) cases of axpy(x, y, 2.5, out) on 5 x 7."""
    x, y = rnd(5, 7, seed=1), rnd(5, 7, seed=2)
    wide = rnd(6, 16, seed=3)
    row = rnd(7, seed=4)
    yield "contiguous", x, y, np.zeros((5, 7), np.float32)
    yield "transposed", rnd(7, 5, seed=5).T, y, np.zeros((5, 7), np.float32)
    yield "sliced", wide[1:, 1::2][:, :7], y, np.zeros((5, 7), np.float32)
    yield "broadcast row", np.broadcast_to(row, (5, 7)), y, \
        np.zeros((5, 7), np.float32)
    yield "rank 1 padded", row, y, np.zeros((5, 7), np.float32)
    yield "leading 1 stripped", x[None], y, np.zeros((5, 7), np.float32)
    yield "flipped", x[::-1, ::-1], y, np.zeros((5, 7), np.float32)
    yield "transposed output", x, y, np.zeros((7, 5), np.float32).T
    yield "sliced output", x, y, np.zeros((10, 7), np.float32)[::2]


@pytest.mark.parametrize("case", list(layouts()), ids=lambda c: c[0])
def test_values_on_every_layout(family, case):
    _, x, y, out = case
    f = family("axpy")
    expected = (x * np.float32(2.5) + y).reshape(5, 7)
    results = []
    for expected_python_launches, call in ((0, f),
                                           (1, lambda *a: python_call(f, *a))):
        out[...] = np.nan
        assert call(FakeTensor(x), FakeTensor(y), 2.5, FakeTensor(out)) is None
        assert f.python_launches == expected_python_launches
        results.append(out.copy())
    np.testing.assert_array_equal(results[0], results[1])
    np.testing.assert_allclose(results[0], expected, rtol=1e-6)


LAUNCH = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p,
                          ctypes.POINTER(ctypes.c_void_p))


class Recorder:
    """A stand-in for pwFamilyLaunch, which both paths call: records which
    path launched ("Python" while the general call's launcher runs), the
    family and each argument's packed words; launches nothing."""

    def __init__(self, f, status=0):
        self.f, self.status, self.launches, self.paths = f, status, [], []
        self.current = "C"
        self.c_callback = LAUNCH(lambda *a: self.launch(self.current, *a))

    def launch(self, path, family, args):
        values = []
        for i, a in enumerate(self.f.arguments):
            words = 3 + 2 * a.rank if a.is_memref else 1
            values.append(tuple((ctypes.c_int64 * words).from_address(args[i])))
        self.launches.append((family, values))
        self.paths.append(path)
        return self.status


@pytest.fixture
def recorder(library):
    """recorder(f): routes both of f's paths to a Recorder."""
    fastcall = _native.fastcall(library.runtime)
    runtime = library.runtime
    saved = []

    def make(f, status=0):
        r = Recorder(f, status)
        address = ctypes.cast(r.c_callback, ctypes.c_void_p).value
        fastcall.bind(address,
                      ctypes.cast(runtime.lib.pwExchangeDevice, ctypes.c_void_p).value,
                      ctypes.cast(runtime.lib.pwSetStream, ctypes.c_void_p).value)
        launch = f._launch
        saved.append((f, launch))

        def through_the_general_call(*values):
            r.current = "Python"
            try:
                return launch(*values)
            finally:
                r.current = "C"
        f._launch = through_the_general_call
        return r
    yield make
    for f, launch in saved:
        f._launch = launch
    cast = ctypes.cast
    fastcall.bind(cast(runtime.lib.pwFamilyLaunch, ctypes.c_void_p).value,
                  cast(runtime.lib.pwExchangeDevice, ctypes.c_void_p).value,
                  cast(runtime.lib.pwSetStream, ctypes.c_void_p).value)


@pytest.mark.parametrize("case", list(layouts()), ids=lambda c: c[0])
def test_packed_words_match_the_general_call(family, recorder, case):
    _, x, y, out = case
    f = family("axpy")
    r = recorder(f)
    args = (FakeTensor(x), FakeTensor(y), -0.75, FakeTensor(out))
    f(*args)
    python_call(f, *args)
    assert r.paths == ["C", "Python"]
    assert r.launches[0] == r.launches[1]
    family_address, values = r.launches[0]
    assert family_address == f._family_pointer.value
    assert values[2] == struct.unpack("<q", struct.pack("<f", -0.75) + b"\0" * 4)


SCALARS = [(3, True, 2.75), (-128, False, -1.0), (127, 1, 1e9), (0, 0.0, 0.4),
           (5, 2.5, -3.9)]


@pytest.mark.parametrize("k, flag, w", SCALARS)
def test_scalars_pack_like_struct(family, recorder, k, flag, w):
    f = family("shift_if")
    r = recorder(f)
    x = np.arange(6, dtype=np.int32)
    out = np.zeros(6, np.int32)
    args = (FakeTensor(x), k, flag, w, FakeTensor(out))
    f(*args)
    python_call(f, *args)
    assert r.paths == ["C", "Python"]
    assert r.launches[0] == r.launches[1]


@pytest.mark.parametrize("h, i, q", [(-32768, 2**31 - 1, -2**63),
                                     (32767, -2**31, 2**63 - 1), (-1, -1, -1)])
def test_wide_integer_scalars(family, recorder, h, i, q):
    f = family("widen_sum")
    r = recorder(f)
    x = np.arange(4, dtype=np.int64)
    args = (FakeTensor(x), h, i, q, FakeTensor(np.zeros(4, np.int64)))
    f(*args)
    python_call(f, *args)
    assert r.paths == ["C", "Python"]
    assert r.launches[0] == r.launches[1]
    assert r.launches[0][1][1:4] == [(h & 0xFFFF,), (i & 0xFFFFFFFF,), (q,)]


class Number:
    """A scalar that only Python code can convert (counted)."""

    def __init__(self, value):
        self.value, self.conversions = value, 0

    def __float__(self):
        self.conversions += 1
        return float(self.value)


class SubFloat32(np.float32):
    """A NumPy scalar type defined in Python: its conversions may be Python
    code."""


@pytest.mark.filterwarnings("ignore:Casting complex values")
def test_scalars_needing_python_code_are_handed_over(family, recorder):
    """The C call runs no conversion of the caller's: such scalars go to the
    general call, which converts them once. NumPy's own scalar types
    convert in NumPy's C code and stay in the C call."""
    f = family("axpy")
    r = recorder(f)
    x = rnd(2, 3)
    tensors = (FakeTensor(x), FakeTensor(x))
    for scalar in (Number(1.5), SubFloat32(1.5), np.complex64(1.5),
                   np.longdouble(1.5)):
        f(*tensors, scalar, FakeTensor(np.zeros_like(x)))
    assert r.paths == ["Python"] * 4
    for scalar in (np.float64(1.5), np.float32(1.5), np.float16(1.5),
                   np.int32(1), np.uint8(200), np.bool_(True)):
        f(*tensors, scalar, FakeTensor(np.zeros_like(x)))
    assert r.paths[4:] == ["C"] * 6
    number = Number(2.0)
    f(*tensors, number, FakeTensor(np.zeros_like(x)))
    assert number.conversions == 1


NUMPY_SCALARS = [np.int8(-128), np.int16(-3), np.int32(2**31 - 1),
                 np.int64(-2**63), np.uint8(255), np.uint16(7),
                 np.uint32(2**32 - 1), np.uint64(2**64 - 1), np.longlong(5),
                 np.intc(-9), np.float16(0.1), np.float32(0.1),
                 np.float32(3e38), np.float64(-0.0), np.longdouble(2.5),
                 np.bool_(True), np.bool_(False), np.float32("nan")]


@pytest.mark.parametrize("value", NUMPY_SCALARS, ids=repr)
def test_numpy_scalars_pack_like_struct(family, recorder, value):
    """Each NumPy scalar in each scalar slot of shift_if (i8, i1, f64) and
    widen_sum (i16, i32, i64): the C call packs the same words as the
    general call, or hands over the values struct rejects, which then
    fail the same way."""
    x = np.arange(6, dtype=np.int32)
    calls = [("shift_if", lambda v: (FakeTensor(x), v, True, 1.0,
                                     FakeTensor(np.zeros(6, np.int32)))),
             ("shift_if", lambda v: (FakeTensor(x), 1, v, 1.0,
                                     FakeTensor(np.zeros(6, np.int32)))),
             ("shift_if", lambda v: (FakeTensor(x), 1, True, v,
                                     FakeTensor(np.zeros(6, np.int32))))]
    q = np.arange(4, dtype=np.int64)
    for slot in range(3):
        calls.append(("widen_sum", lambda v, slot=slot: (
            FakeTensor(q), *[v if i == slot else 1 for i in range(3)],
            FakeTensor(np.zeros(4, np.int64)))))
    for name, make in calls:
        f = family(name)
        r = recorder(f)
        got = outcome(f, *make(value))
        want = outcome(lambda *a: python_call(f, *a), *make(value))
        assert got == want, (name, got, want)
        if got[0] == "ok":
            assert r.launches[0] == r.launches[-1]
            # Integers and reals the C call takes itself (a longdouble it
            # hands over); what struct rejects (a real for an integer) was
            # handed over.
            expected = "Python" if isinstance(value, np.longdouble) else "C"
            assert r.paths[0] == expected, (name, r.paths)


def test_a_call_made_while_reading_a_tensor(family):
    """A call of another family on the same thread while the C call reads a
    tensor's attributes (as a torch function mode could make) leaves both
    calls' arguments intact."""
    outer, inner = family("shift_if"), family("axpy")
    x = np.arange(6, dtype=np.int32)
    out = np.zeros(6, np.int32)
    a, b = rnd(3, 4, seed=7), rnd(4, 3, seed=8).T
    inner_out = np.zeros((3, 4), np.float32)
    reader = FakeTensor(x)

    def stride():
        inner(FakeTensor(a), FakeTensor(b), 3.0, FakeTensor(inner_out))
        return FakeTensor.stride(reader)
    reader.stride = stride
    outer(reader, 4, True, 2.0, FakeTensor(out))
    np.testing.assert_array_equal(out, x + 6)
    np.testing.assert_allclose(inner_out, a * 3 + b, rtol=1e-6)
    assert outer.python_launches == 0 and inner.python_launches == 0


@pytest.mark.parametrize("error", [KeyboardInterrupt, RuntimeError])
def test_errors_other_than_hand_overs_propagate(family, error):
    """An error the C call does not expect of an argument (an interrupt, a
    framework's RuntimeError) is raised, as the general call raises it,
    not swallowed."""
    f = family("axpy")
    x = rnd(2, 3)
    reader = FakeTensor(x)

    def stride():
        raise error("from stride()")
    reader.stride = stride
    args = (reader, FakeTensor(x), 1.0, FakeTensor(np.zeros_like(x)))
    for call in (f, lambda *a: python_call(f, *a)):
        with pytest.raises(error, match="from stride"):
            call(*args)
    assert f.python_launches == 0


def test_a_second_runtime_keeps_the_general_call(family, monkeypatch):
    """The C calls launch through the runtime _fastcall was bound to; a
    family of a library loaded with another runtime keeps the generated
    Python, which launches through its own."""
    f = family("axpy")
    monkeypatch.setattr(f.runtime, "path", f.runtime.path + ".other")
    f._bind_torch(FakeTensor)
    assert type(c_call_of(f)).__name__ != "FamilyCall"


def test_families_above_16_dims_keep_the_general_call(family):
    f = family("copy17")
    assert type(c_call_of(f)).__name__ != "FamilyCall"
    x = rnd(*([1] * 15 + [2, 3]))
    out = np.zeros_like(x)
    f(FakeTensor(x), FakeTensor(out))
    np.testing.assert_array_equal(out, x)


@pytest.mark.parametrize("k, flag, w", SCALARS)
def test_scalar_values(family, k, flag, w):
    f = family("shift_if")
    x = np.arange(-3, 3, dtype=np.int32) * 1000
    out = np.zeros(6, np.int32)
    f(FakeTensor(x), k, flag, w, FakeTensor(out))
    expected = x + k + np.int32(int(w)) if flag else x
    np.testing.assert_array_equal(out, expected)


def test_static_sizes(family):
    f = family("twice_static")
    x = rnd(4, 3)
    out = np.zeros((4, 3), np.float32)
    f(FakeTensor(x), FakeTensor(out))
    np.testing.assert_array_equal(out, x + x)
    f(FakeTensor(rnd(3, 4).T), FakeTensor(out))  # any strides
    bad = outcome(f, FakeTensor(rnd(4, 4)), FakeTensor(out))
    assert bad == outcome(lambda *a: python_call(f, *a), FakeTensor(rnd(4, 4)),
                          FakeTensor(out))
    assert bad[0] is ValueError and "where the family declares 3" in bad[1]


def test_declared_layouts_are_read_from_the_table(family):
    f = family("copy_declared")
    x, out = f.arguments
    assert (x.static_sizes, x.static_strides, x.static_offset) == \
        ((-1, -1), (None, 1), 3)
    assert (out.static_strides, out.static_offset) == ((None, 1), 0)
    assert x.has_static_layout and out.has_static_layout
    assert "memref<?x?xf32, strided<[?, 1], offset: 3>>" in repr(x)
    axpy = family("axpy").arguments[0]
    assert not axpy.has_static_layout
    assert (axpy.static_strides, axpy.static_offset) == ((None, None), None)
    assert "strided" not in repr(axpy)


def declared_layout_calls():
    """(name, x, out, error or None) calls of copy_declared."""
    wide = rnd(6, 9, seed=7)
    yield "rows of any pitch", wide[1:, 2:7], np.zeros((5, 5), np.float32), None
    yield "contiguous", rnd(5, 5), np.zeros((5, 5), np.float32), None
    yield "one column, any stride", wide[:, ::4][:, 1:2], \
        np.zeros((6, 1), np.float32), None
    yield "empty, any layout", wide[:0, ::2], np.zeros((5, 0), np.float32).T, \
        None
    yield "transposed input", wide[:5, :5].T, np.zeros((5, 5), np.float32), \
        "argument #0: has stride 9 in dim 1 where the family declares 1 " \
        "(strides [?, 1])"
    yield "strided rows", wide[:, ::2], np.zeros((6, 5), np.float32), \
        "argument #0: has stride 2 in dim 1"
    yield "transposed output", rnd(5, 5), np.zeros((5, 5), np.float32).T, \
        "argument #1: has stride 5 in dim 1 where the family declares 1"
    yield "output rows of another pitch", rnd(5, 5), \
        np.zeros((5, 8), np.float32)[:, :5], None


@pytest.mark.parametrize("case", list(declared_layout_calls()),
                         ids=lambda c: c[0])
def test_declared_layouts(family, case):
    """Views with the declared strides run on both paths, the declared
    offset carried by the descriptor; others are ValueErrors naming the
    stride, the same from both paths. The output's identity layout takes
    any row pitch: its type has dynamic sizes, so its row stride is
    dynamic."""
    _, x, out, error = case
    f = family("copy_declared")
    results = []
    for call in (f, lambda *a: python_call(f, *a)):
        out[...] = np.nan
        results.append(outcome(call, FakeTensor(x), FakeTensor(out)))
        if error is None:
            np.testing.assert_array_equal(out, x)
    assert results[0] == results[1]
    if error is None:
        assert results[0] == ("ok", None)
    else:
        assert results[0][0] is ValueError and error in results[0][1], \
            results[0]


def test_declared_offsets_travel_in_the_descriptor(family, recorder):
    f = family("copy_declared")
    r = recorder(f)
    wide = rnd(6, 9, seed=8)
    x, out = wide[1:, 2:7], np.zeros((5, 5), np.float32)
    f(FakeTensor(x), FakeTensor(out))
    python_call(f, FakeTensor(x), FakeTensor(out))
    assert r.paths == ["C", "Python"]
    assert r.launches[0] == r.launches[1]
    words = r.launches[0][1][0]
    # aligned + 3 elements is the view's first element; sizes, strides.
    assert words[2] == 3
    assert words[1] + 3 * 4 == x.ctypes.data
    assert words[3:] == (5, 5, 9, 1)
    assert r.launches[0][1][1][1:3] == (out.ctypes.data, 0)


def test_declared_offsets_of_rank_0_memrefs(family, recorder):
    f = family("copy_rank0")
    assert (f.arguments[0].static_strides, f.arguments[0].static_offset) == \
        ((), 5)
    x, out = np.array(3.5, np.float32), np.zeros((), np.float32)
    for call in (f, lambda *a: python_call(f, *a)):
        out[...] = np.nan
        assert outcome(call, FakeTensor(x), FakeTensor(out)) == ("ok", None)
        assert out == np.float32(3.5)
    r = recorder(f)
    f(FakeTensor(x), FakeTensor(out))
    python_call(f, FakeTensor(x), FakeTensor(out))
    assert r.paths == ["C", "Python"]
    assert r.launches[0] == r.launches[1]
    words = r.launches[0][1][0]
    assert words[2] == 5 and words[1] + 5 * 4 == x.ctypes.data


def test_tables_of_another_abi_version_are_rejected(library):
    table = library.family("axpy")._table
    arguments = (_runtime._PwFamilyArgument * table.numArguments)()
    for i in range(table.numArguments):
        ctypes.pointer(arguments[i])[0] = table.arguments[i]
    arguments[0].abiVersion = 0
    old = _runtime._PwFamily.from_buffer_copy(table)
    old.arguments = ctypes.cast(arguments,
                                ctypes.POINTER(_runtime._PwFamilyArgument))
    with pytest.raises(ValueError, match="family table of ABI version 0, "
                       "this package reads version 2: rebuild"):
        _runtime.Family(library, "axpy", old)


def hand_overs():
    """Calls of axpy outside the C call's common case: it must hand them to
    the general call, which rejects all but the keyword call."""
    x, y, out = rnd(5, 7), rnd(5, 7), np.zeros((5, 7), np.float32)
    t = FakeTensor
    yield "string scalar", (t(x), t(y), "2", t(out)), {}
    yield "float overflow", (t(x), t(y), 1e300, t(out)), {}
    yield "int beyond double", (t(x), t(y), 10 ** 400, t(out)), {}
    yield "wrong dtype", (t(x.astype(np.float64)), t(y), 1.0, t(out)), {}
    yield "host tensor", (t(x, cuda=False), t(y), 1.0, t(out)), {}
    yield "subclass", (SubTensor(x), t(y), 1.0, t(out)), {}
    yield "rank too high", (t(rnd(2, 5, 7)), t(y), 1.0, t(out)), {}
    yield "too few", (t(x), t(y), 1.0), {}
    yield "too many", (t(x), t(y), 1.0, t(out), 1), {}
    yield "keyword", (t(x), t(y), 1.0), {"a3": t(out)}
    yield "shapes do not broadcast", (t(rnd(5, 6)), t(y), 1.0, t(out)), {}
    yield "output of the wrong shape", (t(x), t(y), 1.0,
                                       t(np.zeros((5, 8), np.float32))), {}
    yield "output overlaps itself", (t(x), t(y), 1.0,
                                     t(np.broadcast_to(out[0], (5, 7)))), {}


@pytest.mark.parametrize("case", list(hand_overs()), ids=lambda c: c[0])
def test_hand_overs_end_as_in_the_general_call(family, case):
    name, args, kwargs = case
    f = family("axpy")
    got = outcome(lambda *a: f(*a, **kwargs), *args)
    want = outcome(lambda *a: f._general_call(*a, **kwargs), *args)
    assert got == want
    assert (got[0] == "ok") == (name == "keyword")


def test_launch_errors_raise_the_runtimes_error(family, recorder):
    f = family("axpy")
    r = recorder(f, status=int(_runtime.Status.ERROR_INVALID_VALUE))
    x = rnd(5, 7)
    args = (FakeTensor(x), FakeTensor(x), 1.0, FakeTensor(np.zeros_like(x)))
    got = outcome(f, *args)
    assert got == outcome(lambda *a: python_call(f, *a), *args)
    assert issubclass(got[0], _runtime.PointwiseError)
    assert r.paths == ["C", "Python"]


def test_bad_construction(library):
    fastcall = _native.fastcall(library.runtime)
    if fastcall is None:
        pytest.skip("pointwise._fastcall is not built (no Python headers)")
    FamilyCall = fastcall.FamilyCall

    def make(arguments, family=1):
        return FamilyCall(family=family, arguments=arguments, slow=print,
                          tensor_type=FakeTensor, raise_error=print)
    make(("f", (2, (), (F32,)), (1, (4,), (F32,))))
    for code in ("e", "\0", "\u00e9"):
        with pytest.raises(ValueError, match="not one of"):
            make((code,))
    with pytest.raises(ValueError, match="one character"):
        make(("ff",))
    with pytest.raises(ValueError, match="a memref is"):
        make(((2, (4,), (F32,)),))  # one static size for rank 2
    with pytest.raises(ValueError, match="a memref is"):
        make(((17, (), (F32,)),))
    make(((2, (), (F32,), (_runtime.PW_DYNAMIC, 1), 3, 4),))
    with pytest.raises(ValueError, match="a memref is"):
        make(((2, (), (F32,), (1,), 3, 4),))  # one static stride for rank 2
    with pytest.raises(ValueError, match="a memref is"):
        make(((2, (), (F32,), (1, 1), 3, 0),))  # no element size
    with pytest.raises(ValueError, match="a memref is"):
        make((3,))
    with pytest.raises(ValueError, match="null family"):
        make((), family=0)
    with pytest.raises(TypeError):
        FamilyCall(family=1)


@pytest.mark.parametrize("flag", ["False", "no", [0], object(), 1j, b"",
                                  None])
def test_flags_that_are_no_numbers_are_type_errors(family, recorder, flag):
    """struct's '?' takes the truth of anything; a family's i1 scalar takes
    bools and real numbers only, on both paths, and launches nothing."""
    f = family("shift_if")
    r = recorder(f)
    x = np.arange(4, dtype=np.int32)
    args = (FakeTensor(x), 1, flag, 1.0, FakeTensor(np.zeros(4, np.int32)))
    got = outcome(f, *args)
    assert got == outcome(lambda *a: python_call(f, *a), *args)
    assert got[0] is TypeError
    assert "argument #2: cannot pass" in got[1] and "scalar i1" in got[1]
    assert r.launches == []


@pytest.mark.parametrize("name, args, message", [
    ("shift_if", (300, True, 1.0), "argument #1"),
    ("widen_sum", (2**15, 1, 1), "argument #1"),
    ("widen_sum", (1, 1, 2**63), "argument #3"),
    ("scale_f16", (70000.0,), "argument #1"),
    ("scale_f16", (70000,), "argument #1")])
def test_scalars_out_of_range_are_overflow_errors(family, name, args, message):
    f = family(name)
    dtype = {"shift_if": np.int32, "widen_sum": np.int64,
             "scale_f16": np.float16}[name]
    x = np.arange(4).astype(dtype)
    call_args = (FakeTensor(x), *args, FakeTensor(np.zeros(4, dtype)))
    got = outcome(f, *call_args)
    assert got == outcome(lambda *a: python_call(f, *a), *call_args)
    assert got[0] is OverflowError and message in got[1], got


def test_scalars_of_the_wrong_kind_stay_type_errors(family):
    f = family("shift_if")
    x = np.arange(4, dtype=np.int32)
    got = outcome(f, FakeTensor(x), 1.5, True, 1.0,
                  FakeTensor(np.zeros(4, np.int32)))
    assert got[0] is TypeError and "argument #1" in got[1], got
    g = family("scale_f16")
    h = np.arange(4, dtype=np.float16)
    got = outcome(g, FakeTensor(h), "2.5", FakeTensor(np.zeros(4, np.float16)))
    assert got[0] is TypeError and "argument #1" in got[1], got


def test_tensors_with_the_negative_bit_are_not_read(family, recorder):
    """A tensor whose memory holds its values negated (x.conj().imag) is not
    read as if it held them: the C call hands it over and the generated
    Python rejects it."""
    f = family("axpy")
    r = recorder(f)
    x = rnd(2, 3)
    args = (FakeTensor(x, negative=True), FakeTensor(x), 1.0,
            FakeTensor(np.zeros_like(x)))
    got = outcome(f, *args)
    assert got == outcome(lambda *a: python_call(f, *a), *args)
    assert got[0] is TypeError, got
    assert r.launches == []


def test_family_names_come_from_the_index(library, pw_compile, tmp_path):
    """KernelLibrary.family_names reads the library's family index
    (pw_library_families): every family of every pw-compile object linked
    into the library, here one pw-compile .so and a library linked by hand
    from two pw-compile objects and one C object without families."""
    import subprocess
    assert library.family_names() == sorted(
        ["axpy", "twice_static", "copy_declared", "copy_rank0", "shift_if",
         "widen_sum", "copy17", "scale_f16"])
    runtime = library.runtime
    objects = []
    for name, function in (("a", "first"), ("b", "second")):
        source = tmp_path / (name + ".mlir")
        source.write_text(SOURCE.split("func.func @twice_static")[0].replace(
            "@axpy", "@" + function))
        objects.append(str(tmp_path / (name + ".o")))
        subprocess.run([pw_compile, str(source), "--target=cpu", "--quiet",
                        "-o", objects[-1]], check=True)
    plain = tmp_path / "plain.c"
    plain.write_text("int not_a_family(void) { return 7; }\n")
    linked = str(tmp_path / "linked.so")
    subprocess.run(["cc", "-shared", "-fPIC", "-o", linked, str(plain)]
                   + objects + ["-L" + _runtime_dir(runtime),
                                "-lPointwiseRuntime"], check=True)
    both = KernelLibrary(linked, runtime=runtime)
    assert both.family_names() == ["first", "second"]
    assert [f.name for f in both.families()] == ["first", "second"]
    with pytest.raises(LookupError, match="it has: first, second"):
        both.family("axpy")


def test_a_library_without_an_index(library, tmp_path):
    """A library not made by pw-compile: family_names says so; lookups by
    name still report what is missing."""
    import subprocess
    plain = tmp_path / "plain.c"
    plain.write_text("int not_a_family(void) { return 7; }\n")
    path = str(tmp_path / "plain.so")
    subprocess.run(["cc", "-shared", "-fPIC", "-o", path, str(plain)],
                   check=True)
    other = KernelLibrary(path, runtime=library.runtime)
    with pytest.raises(LookupError, match="no family index"):
        other.family_names()
    with pytest.raises(LookupError, match="no family 'x'.*no family index"):
        other.family("x")
