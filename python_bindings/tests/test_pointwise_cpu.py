"""@pw.pointwise on the CPU with NumPy arrays: results against NumPy,
promotion, broadcasting, layouts, outputs, caches and every error."""

import os
import subprocess
import sys
import textwrap
import threading

import pytest

np = pytest.importorskip("numpy")
pw = pytest.importorskip("pointwise")

from pointwise import _compiler  # noqa: E402


@pytest.fixture(autouse=True)
def _cache(tmp_path_factory, monkeypatch):
    # One disk cache for the whole session, silent compilation.
    directory = tmp_path_factory.getbasetemp() / "pointwise-cache"
    monkeypatch.setenv("POINTWISE_CACHE_DIR", str(directory))
    monkeypatch.setenv("POINTWISE_PROGRESS", "0")


@pytest.fixture
def complete_families(monkeypatch):
    """Every variant compiled at the first call: one cache file per family,
    which the cache tests below damage, copy and count (the files of
    variants compiled on demand follow the same rules:
    test_first_calls.py)."""
    monkeypatch.setenv("POINTWISE_ON_DEMAND", "0")


@pw.pointwise(is_tensor=[True, True, False], dtypes=[None, None, float],
              promotion_methods=[(0, 1, "DEFAULT")])
def axpy(x, y, alpha):
    return x * alpha + y


@pw.pointwise(promotion_methods=[((0, 1), "DEFAULT"), ((0, 1), "DEFAULT")],
              num_outputs=2)
def polar(r, t):
    return r * pw.cos(t), r * pw.sin(t)


@pw.pointwise(promotion_methods=[(0, "DEFAULT")])
def copy(x):
    return x


@pw.pointwise(promotion_methods=[(0, 1, "ALWAYS_BOOL")])
def less(x, y):
    return x < y


@pw.pointwise(promotion_methods=[(0, "INT_TO_FLOAT")])
def gelu(x):
    return 0.5 * x * (1.0 + pw.tanh(0.7978845608 * (x + 0.044715 * x * x * x)))


def rng(seed=0):
    return np.random.default_rng(seed)


def test_axpy_broadcast_and_allocation():
    a = rng().standard_normal((3, 4), dtype=np.float32)
    b = rng(1).standard_normal(4, dtype=np.float32)
    z = axpy(a, b, 0.5)
    assert z.dtype == np.float32 and z.shape == (3, 4)
    np.testing.assert_allclose(z, a * np.float32(0.5) + b, rtol=1e-6)


@pytest.mark.parametrize("shape", [(), (7,), (2, 3), (2, 1, 4), (2, 3, 4, 5),
                                   (2, 1, 3, 1, 2, 3)])
def test_ranks(shape):
    a = rng().standard_normal(shape)
    z = axpy(a, a, 2.0)
    np.testing.assert_allclose(z, a * 3.0)


@pytest.mark.parametrize("layout", ["transposed", "sliced", "flipped",
                                    "broadcast", "offset", "zero-size"])
def test_layouts(layout):
    base = rng().standard_normal((6, 8), dtype=np.float32)
    other = rng(2).standard_normal((6, 8), dtype=np.float32)
    if layout == "transposed":
        x, y = base.T, other.T
    elif layout == "sliced":
        x, y = base[::2, 1::3], other[1::2, ::3]
    elif layout == "flipped":
        x, y = base[::-1, ::-1], other
    elif layout == "broadcast":
        x, y = base[:, :1], other[:1, :]
    elif layout == "offset":
        x, y = base[2:, 3:], other[:4, :5]
    else:
        x, y = base[:0], other[:0]
    z = axpy(x, y, -1.5)
    np.testing.assert_allclose(z, x * np.float32(-1.5) + y, rtol=1e-6)


def test_output_follows_the_inputs_memory_order():
    a = rng().standard_normal((5, 3), dtype=np.float32).T
    z = axpy(a, a, 1.0)
    assert z.strides == (4, 12)  # transposed, like the inputs (and PyTorch)
    c = rng().standard_normal((2, 3, 4, 5)).transpose(0, 2, 3, 1)  # NHWC
    z = copy(c)
    np.testing.assert_array_equal(z, c)
    assert np.argsort(z.strides).tolist() == np.argsort(c.strides).tolist()


@pw.pointwise(is_tensor=[True, True, False],
              promotion_methods=[(0, 1, 2, "DEFAULT")])
def axpy_all(x, y, alpha):
    return x * alpha + y


@pytest.mark.parametrize("x_dtype,y_dtype,alpha,expected", [
    ("float32", "float32", 0.5, "float32"),
    ("float16", "float16", 0.5, "float16"),
    ("int32", "int32", 2.0, "float32"),      # a Python float lifts ints
    ("int8", "int32", 2.0, "float32"),
    ("int8", "int16", 3, "int16"),           # a Python int does not
    ("float16", "float32", 0.5, "float32"),
    ("float64", "float32", 0.5, "float64"),
    ("int64", "float16", 1.0, "float16"),
])
def test_default_promotion(x_dtype, y_dtype, alpha, expected):
    x = (rng().standard_normal((4, 5)) * 10).astype(x_dtype)
    y = (rng(3).standard_normal((4, 5)) * 10).astype(y_dtype)
    z = axpy_all(x, y, alpha)
    assert z.dtype == np.dtype(expected)
    reference = x.astype(np.float64) * alpha + y.astype(np.float64)
    tolerance = 2e-3 if expected == "float16" else 1e-5
    np.testing.assert_allclose(z.astype(np.float64), reference, rtol=tolerance,
                               atol=tolerance)


def test_promotion_uses_the_listed_arguments_only():
    # (0, 1): the scalar takes no part; the float result is truncated to the
    # integer output, like FlagGems' pointwise_dynamic.
    x = np.arange(-5, 5, dtype=np.int32)
    z = axpy(x, x, 0.75)
    assert z.dtype == np.int32
    np.testing.assert_array_equal(z, np.trunc(x * 0.75 + x).astype(np.int32))


def test_integer_scalar_keeps_integer_type():
    @pw.pointwise(is_tensor=[True, False], promotion_methods=[(0, 1, "DEFAULT")])
    def scale(x, k):
        return x * k

    x = np.arange(-6, 6, dtype=np.int16).reshape(3, 4)
    z = scale(x, 3)
    assert z.dtype == np.int16
    np.testing.assert_array_equal(z, x * 3)
    z = scale(x, 2.5)  # a float scalar: float32, PyTorch's default dtype
    assert z.dtype == np.float32
    np.testing.assert_allclose(z, x * 2.5)


def test_bool_outputs_and_int_to_float():
    x = rng().standard_normal((3, 4))
    y = rng(1).standard_normal((3, 1))
    b = less(x, y)
    assert b.dtype == np.bool_
    np.testing.assert_array_equal(b, x < y)
    i = np.arange(-4, 8, dtype=np.int32).reshape(3, 4)
    g = gelu(i)
    assert g.dtype == np.float32
    xf = i.astype(np.float64)
    np.testing.assert_allclose(
        g, 0.5 * xf * (1 + np.tanh(0.7978845608 * (xf + 0.044715 * xf ** 3))),
        rtol=1e-5, atol=1e-6)


def test_two_outputs():
    r = rng().random((4, 6))
    t = rng(1).random((4, 6))[:, ::-1]
    x, y = polar(r, t)
    np.testing.assert_allclose(x, r * np.cos(t))
    np.testing.assert_allclose(y, r * np.sin(t))


def test_preallocated_and_in_place_outputs():
    a = rng().standard_normal((3, 4), dtype=np.float32)
    b = rng(1).standard_normal((3, 4), dtype=np.float32)
    expected = a * np.float32(2.0) + b
    out = np.empty((4, 3), dtype=np.float32).T  # a transposed output
    result = axpy(a, b, 2.0, out0=out)
    assert result is out
    np.testing.assert_allclose(out, expected, rtol=1e-6)
    axpy(a, b, 2.0, out0=a)  # in place
    np.testing.assert_allclose(a, expected, rtol=1e-6)
    wide = np.zeros((3, 4), dtype=np.float64)  # float32 result into float64
    axpy(b, b, 1.0, out0=wide)
    np.testing.assert_allclose(wide, b.astype(np.float64) * 2, rtol=1e-6)


def test_strided_buffer_flip():
    a = np.arange(10, dtype=np.float32)
    flipped = pw.StridedBuffer(a, strides=(-1,), offset=9)
    out = np.empty_like(a)
    copy.instantiate(1)(flipped, out0=out)
    np.testing.assert_array_equal(out, a[::-1])
    m = np.arange(12, dtype=np.int64).reshape(3, 4)
    view = pw.StridedBuffer(m, shape=(4, 3), strides=(1, 4))
    np.testing.assert_array_equal(copy(view), m.T)
    with pytest.raises(ValueError, match="reaches elements"):
        pw.StridedBuffer(a, strides=(-1,), offset=5)
    with pytest.raises(ValueError, match="needs strides"):
        pw.StridedBuffer(a, shape=(2, 5))


def test_instantiate_fixed_rank():
    add2 = axpy.instantiate(3)
    a = rng().standard_normal((2, 3), dtype=np.float32)
    out = np.empty((1, 2, 3), dtype=np.float32)
    add2(a, a, 1.0, out0=out)
    np.testing.assert_allclose(out[0], a * 2, rtol=1e-6)
    with pytest.raises(ValueError, match="instantiated for rank 1, but the "
                       "inputs broadcast to rank 2"):
        axpy.instantiate(1)(a, a, 1.0)


def test_all_dtypes_copy():
    for dtype in ("bool", "int8", "int16", "int32", "int64", "float16",
                  "float32", "float64"):
        x = (rng().standard_normal((3, 5)) * 50).astype(dtype)[:, ::2]
        np.testing.assert_array_equal(copy(x), x)


def test_errors():
    a = np.ones((3, 4), dtype=np.float32)
    with pytest.raises(TypeError, match="expected 3 positional inputs"):
        axpy(a, a)
    with pytest.raises(TypeError, match="unexpected keyword argument 'out1'"):
        axpy(a, a, 1.0, out1=a)
    with pytest.raises(TypeError, match="declared a scalar"):
        axpy(a, a, a)
    with pytest.raises(TypeError, match="declared a tensor"):
        axpy(a, 2.0, 1.0)
    with pytest.raises(ValueError, match="broadcast"):
        axpy(a, np.ones((2, 4), dtype=np.float32), 1.0)
    with pytest.raises(ValueError, match="out0 has shape"):
        axpy(a, a, 1.0, out0=np.ones((4, 3), dtype=np.float32))
    read_only = np.ones((3, 4), dtype=np.float32)
    read_only.flags.writeable = False
    with pytest.raises(ValueError, match="read-only"):
        axpy(a, a, 1.0, out0=read_only)
    with pytest.raises(TypeError, match="unsupported|complex"):
        copy(np.ones(3, dtype=np.complex64))
    with pytest.raises(TypeError, match="expected a tensor"):
        copy([1.0, 2.0])


def test_overlapping_outputs_are_rejected():
    a = np.ones(8, dtype=np.float64)
    overlapping = pw.StridedBuffer(a, shape=(4,), strides=(1,), offset=1)
    with pytest.raises(pw.LayoutError, match="overlap"):
        copy(a[:4], out0=overlapping.view.owner[1:5][::-1])
    both = np.zeros(5)
    with pytest.raises(pw.LayoutError):
        polar(a[:4], a[:4], out0=both[:4], out1=both[1:])


def test_tracing_errors_are_clear():
    @pw.pointwise(promotion_methods=[(0, "DEFAULT")])
    def relu(x):
        if x > 0:
            return x
        return 0

    with pytest.raises(pw.TracingError, match="pw.where"):
        relu(np.ones(3))

    @pw.pointwise(promotion_methods=[(0, "DEFAULT")])
    def fine(x):
        return pw.where(x > 0, x, 0)

    np.testing.assert_array_equal(fine(np.array([-1.0, 2.0])), [0.0, 2.0])


def test_decorator_arguments_are_checked():
    with pytest.raises(ValueError, match="promotion_methods is required"):
        pw.pointwise(lambda x: x)
    with pytest.raises(ValueError, match="inconsistent number of inputs"):
        pw.pointwise(is_tensor=[True], promotion_methods=[(0, "DEFAULT")])(
            lambda x, y: x)
    with pytest.raises(ValueError):
        pw.pointwise(promotion_methods=[(0, "SOMETIMES")])(lambda x: x)
    with pytest.raises(ValueError):
        pw.pointwise(promotion_methods=[(3, "DEFAULT")])(lambda x: x)


def test_compiled_once_per_rank_and_dtypes():
    @pw.pointwise(promotion_methods=[(0, "DEFAULT")])
    def double(x):
        return x + x

    for shape in [(3, 4), (5, 7), (100, 2), (1, 9)]:
        x = rng().standard_normal(shape)
        np.testing.assert_array_equal(double(x), x + x)
        np.testing.assert_array_equal(double(x.T), x.T + x.T)
        np.testing.assert_array_equal(double(x[::2, ::-1]), x[::2, ::-1] * 2)
    assert len(double._launchers) == 1  # rank 2, float64: one family
    double(np.ones(3, dtype=np.float32))
    assert len(double._launchers) == 2


def test_threads_share_one_compilation():
    @pw.pointwise(promotion_methods=[(0, "DEFAULT")])
    def triple(x):
        return x * 3

    errors = []

    def work(seed):
        try:
            for _ in range(20):
                x = rng(seed).standard_normal((4, 3))
                np.testing.assert_allclose(triple(x), x * 3)
        except Exception as e:  # noqa: BLE001
            errors.append(e)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert len(triple._launchers) == 1


@pytest.mark.usefixtures("complete_families")
def test_disk_cache_is_used_by_a_new_process(tmp_path):
    script = textwrap.dedent("""
        import sys, numpy as np, pointwise as pw
        from pointwise import _compiler
        @pw.pointwise(promotion_methods=[(0, "DEFAULT")])
        def negate(x):
            return -x
        x = np.arange(6.0).reshape(2, 3)
        assert (negate(x) == -x).all()
        print(sorted({l.origin for l in _compiler._memory.values()}))
    """)
    env = dict(os.environ, POINTWISE_CACHE_DIR=str(tmp_path),
               PYTHONPATH=os.pathsep.join(sys.path))
    first = subprocess.run([sys.executable, "-c", script], env=env,
                           capture_output=True, text=True, check=True)
    second = subprocess.run([sys.executable, "-c", script], env=env,
                            capture_output=True, text=True, check=True)
    assert first.stdout.strip() == "['compiled']"
    assert second.stdout.strip() == "['disk']"
    files = [f for f in os.listdir(tmp_path) if f.endswith(".pwlib")]
    assert len(files) == 1
    # A damaged cache file is compiled again and replaced.
    with open(tmp_path / files[0], "wb") as f:
        f.write(b"not bitcode")
    third = subprocess.run([sys.executable, "-c", script], env=env,
                           capture_output=True, text=True, check=True)
    assert third.stdout.strip() == "['compiled']"


@pytest.mark.usefixtures("complete_families")
def test_disk_cache_follows_the_compiler_build(tmp_path, monkeypatch):
    """Another build of the compiler (same version string) does not reuse
    what the previous one cached: its code generation may differ."""
    monkeypatch.setenv("POINTWISE_CACHE_DIR", str(tmp_path))
    identity = _compiler.compiler_identity()
    assert identity.startswith("libPointwiseC.so: ") and "; host " in identity

    def origins():
        def halve(x):
            return x / 2
        fn = pw.pointwise(promotion_methods=[(0, "INT_TO_FLOAT")])(halve)
        _compiler.clear_memory_cache()
        np.testing.assert_allclose(fn(np.arange(4.0)), np.arange(4.0) / 2)
        return sorted({l.origin for l in _compiler._memory.values()})

    assert origins() == ["compiled"]
    assert origins() == ["disk"]
    monkeypatch.setattr(_compiler, "_identity", identity + " rebuilt")
    assert origins() == ["compiled"]
    assert len([f for f in os.listdir(tmp_path) if f.endswith(".pwlib")]) == 2


def test_progress_line(capfd, monkeypatch):
    monkeypatch.setenv("POINTWISE_PROGRESS", "1")
    monkeypatch.setenv("POINTWISE_CACHE_DIR", "")  # compile for sure

    @pw.pointwise(promotion_methods=[(0, "DEFAULT")])
    def progress_probe(x):
        return x * x

    _compiler.clear_memory_cache()
    progress_probe(np.ones(2, dtype=np.int8))
    err = capfd.readouterr().err
    assert "pointwise: compiling progress_probe (rank 1: int8 -> int8) for " \
           "the CPU ... done in" in err


def test_integer_division_by_zero_never_traps():
    @pw.pointwise(promotion_methods=[((0, 1), "DEFAULT"), ((0, 1), "DEFAULT")],
                  num_outputs=2)
    def divmod_(x, y):
        return x // y, x % y

    for dtype in ("int8", "int32", "int64"):
        info = np.iinfo(dtype)
        x = np.array([7, -7, 7, -7, 5, info.min, info.min, 3], dtype=dtype)
        y = np.array([2, 2, -2, -2, 0, -1, 1, -1], dtype=dtype)
        q, r = divmod_(x, y)
        with np.errstate(divide="ignore", over="ignore"):
            expected_q = np.where(y == 0, 0, np.floor_divide(x, np.where(y == 0, 1, y)))
            expected_r = np.where(y == 0, 0, np.remainder(x, np.where(y == 0, 1, y)))
        np.testing.assert_array_equal(q, expected_q.astype(dtype))
        np.testing.assert_array_equal(r, expected_r.astype(dtype))


def _run_script(script, tmp_path):
    """Runs `script` in a new Python process (a crash must not take the test
    session down) with this session's environment and its own disk cache."""
    env = dict(os.environ, POINTWISE_CACHE_DIR=str(tmp_path),
               PYTHONPATH=os.pathsep.join(sys.path))
    return subprocess.run([sys.executable, "-c", textwrap.dedent(script)],
                          env=env, capture_output=True, text=True, timeout=300)


def test_functions_named_like_c_library_functions(tmp_path):
    """A function named exp, pow, sin, fmod or expf is not confused with the
    C library function of that name that its body calls on the CPU."""
    result = _run_script("""
        import numpy as np, pointwise as pw
        P = [(0, "DEFAULT")]
        @pw.pointwise(promotion_methods=P)
        def exp(x):
            return pw.exp(x)
        @pw.pointwise(promotion_methods=P)
        def pow(x):
            return x ** 2.5
        @pw.pointwise(promotion_methods=P)
        def sin(x):
            return pw.sin(x)
        @pw.pointwise(promotion_methods=P)
        def fmod(x):
            return x % 0.75
        @pw.pointwise(promotion_methods=P)
        def expf(x):
            return pw.exp(x)
        x = np.linspace(0.25, 3.0, 37)
        np.testing.assert_allclose(exp(x), np.exp(x), rtol=1e-14)
        np.testing.assert_allclose(pow(x), x ** 2.5, rtol=1e-14)
        np.testing.assert_allclose(sin(x), np.sin(x), rtol=1e-14)
        np.testing.assert_allclose(fmod(x), np.mod(x, 0.75), atol=1e-15)
        y = x.astype(np.float32)
        z = expf(y)
        assert z.dtype == np.float32
        np.testing.assert_allclose(z, np.exp(y), rtol=1e-6)
        print("ok")
    """, tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "ok"


def test_runtime_errors_name_the_function():
    @pw.pointwise(promotion_methods=[(0, "DEFAULT")])
    def exp(x):
        return x

    a = np.ones(8, dtype=np.float64)
    with pytest.raises(pw.LayoutError, match=r"^PW_ERROR_LAYOUT: exp: .*overlaps itself"):
        exp(a[:3], out0=pw.StridedBuffer(a, shape=(3,), strides=(0,)))


@pytest.mark.parametrize("name", ["f4", "i8", "f8", "i2"])
def test_arrays_of_the_other_byte_order_are_rejected(name):
    swapped = np.dtype(name).newbyteorder("S")  # big-endian on x86 and Arm
    x = np.arange(4).astype(swapped)
    with pytest.raises(TypeError, match=r"^copy: argument 0: .*non-native "
                                        r"byte order"):
        copy(x)
    native = np.arange(4).astype(name)
    out = np.zeros(4, dtype=swapped)
    with pytest.raises(TypeError, match=r"^copy: out0: .*non-native byte order"):
        copy(native, out0=out)
    np.testing.assert_array_equal(out, np.zeros(4))
    with pytest.raises(TypeError, match="non-native byte order"):
        pw.StridedBuffer(x, strides=(-1,), offset=3)
    np.testing.assert_array_equal(copy(x.astype(x.dtype.newbyteorder("="))),
                                  native)


_CACHE_PROBE = """
    import numpy as np, pointwise as pw
    from pointwise import _compiler
    @pw.pointwise(promotion_methods=[(0, 1, "DEFAULT")])
    def addc(x, y):
        return x * 2.0 + y
    a = np.arange(6, dtype=np.float32)
    r = addc(a, a)
    print("OK" if np.array_equal(r, a * 2 + a) else "WRONG %r" % r)
    print(sorted({l.origin for l in _compiler._memory.values()}))
"""


def _cached_library(directory):
    files = [f for f in os.listdir(directory) if f.endswith(".pwlib")]
    assert len(files) == 1, files
    return directory / files[0]


# Single bytes of the cached library changed: each once gave an LLVM abort, a
# segfault, a silently wrong result, a missing family or a hang.
@pytest.mark.usefixtures("complete_families")
@pytest.mark.parametrize("patch", [
    {670: 153}, {2309: 2, 1193: 214}, {2303: 127}, {4078: 248},
    {2012: 228, 870: 221, 4055: 201, 4150: 157}, "middle", "last", "truncated"])
def test_damaged_cache_file_is_compiled_again(tmp_path, patch):
    first = _run_script(_CACHE_PROBE, tmp_path)
    assert first.returncode == 0, first.stderr
    assert first.stdout.split("\n")[:2] == ["OK", "['compiled']"]
    path = _cached_library(tmp_path)
    with open(path, "rb") as f:
        good = f.read()
    data = bytearray(good)
    if patch == "truncated":
        del data[len(data) // 2:]
    elif isinstance(patch, str):
        data[len(data) // 2 if patch == "middle" else -1] ^= 0x5A
    else:
        for offset, value in patch.items():
            data[offset % len(data)] = value
        if data == good:  # this build's file happens to have those bytes
            data[len(data) // 3] ^= 0xFF
    with open(path, "wb") as f:
        f.write(bytes(data))
    second = _run_script(_CACHE_PROBE, tmp_path)
    assert second.returncode == 0, second.stderr
    assert second.stdout.split("\n")[:2] == ["OK", "['compiled']"]
    # Replaced by a good file, which the next process loads.
    with open(path, "rb") as f:
        assert f.read() == good
    third = _run_script(_CACHE_PROBE, tmp_path)
    assert third.returncode == 0, third.stderr
    assert third.stdout.split("\n")[:2] == ["OK", "['disk']"]


@pytest.mark.usefixtures("complete_families")
def test_cache_file_hash(tmp_path, monkeypatch):
    """A cached library with its SHA-256 beside it is loaded, not compiled;
    one without it is compiled again."""
    import hashlib

    monkeypatch.setenv("POINTWISE_CACHE_DIR", str(tmp_path))

    def call():
        def cube(x):
            return x * x * x
        fn = pw.pointwise(promotion_methods=[(0, "DEFAULT")])(cube)
        _compiler.clear_memory_cache()
        np.testing.assert_array_equal(fn(np.arange(5.0)), np.arange(5.0) ** 3)
        return sorted({l.origin for l in _compiler._memory.values()})

    assert call() == ["compiled"]
    path = _cached_library(tmp_path)
    digest = tmp_path / (path.name + ".sha256")
    with open(path, "rb") as f:
        expected = hashlib.sha256(f.read()).hexdigest()
    assert digest.read_text().strip() == expected
    assert call() == ["disk"]
    assert call() == ["disk"]
    digest.unlink()
    assert call() == ["compiled"]
    assert digest.read_text().strip() == expected
    assert call() == ["disk"]
    assert not [f for f in os.listdir(tmp_path) if f.endswith(".tmp")]


@pytest.mark.usefixtures("complete_families")
def test_cache_files_share_the_librarys_permissions(tmp_path, monkeypatch):
    """The digest beside a cached library is as readable as the library (it
    was private to its writer, so nobody else could use the cache)."""
    monkeypatch.setenv("POINTWISE_CACHE_DIR", str(tmp_path))
    old = os.umask(0o022)
    try:
        fn = pw.pointwise(promotion_methods=[(0, "DEFAULT")],
                          name="shared_cache")(lambda x: x - 1)
        _compiler.clear_memory_cache()
        np.testing.assert_array_equal(fn(np.arange(3.0)), np.arange(3.0) - 1)
    finally:
        os.umask(old)
    path = _cached_library(tmp_path)
    library_mode = os.stat(path).st_mode & 0o777
    assert library_mode == 0o644
    assert os.stat(str(path) + ".sha256").st_mode & 0o777 == library_mode


@pytest.mark.usefixtures("complete_families")
def test_cache_file_without_the_family_is_compiled_again(tmp_path, monkeypatch):
    """A library with a valid hash that lacks the family it should hold (here
    another function's) is compiled again and replaced."""
    import shutil

    def cached(directory, name, body):
        directory.mkdir(exist_ok=True)
        monkeypatch.setenv("POINTWISE_CACHE_DIR", str(directory))
        _compiler.clear_memory_cache()
        fn = pw.pointwise(promotion_methods=[(0, "DEFAULT")], name=name)(body)
        np.testing.assert_array_equal(fn(np.arange(3.0)), body(np.arange(3.0)))
        return (_cached_library(directory),
                sorted({l.origin for l in _compiler._memory.values()}))

    one_path, _ = cached(tmp_path / "one", "one", lambda x: x + 1)
    two_path, _ = cached(tmp_path / "two", "two", lambda x: x * 10)
    shutil.copyfile(one_path, two_path)
    shutil.copyfile(str(one_path) + ".sha256", str(two_path) + ".sha256")

    assert cached(tmp_path / "two", "two", lambda x: x * 10)[1] == ["compiled"]
    with open(two_path, "rb") as f, open(one_path, "rb") as g:
        assert f.read() != g.read()
    assert cached(tmp_path / "two", "two", lambda x: x * 10)[1] == ["disk"]


@pytest.mark.usefixtures("complete_families")
def test_cache_file_replaced_by_another_library_is_compiled_again(
        tmp_path, monkeypatch):
    """A valid library of the same function name but another body, written
    over a cache file, is detected by the hash instead of silently giving its
    own results."""
    import shutil

    def run(directory, body):
        directory.mkdir(exist_ok=True)
        monkeypatch.setenv("POINTWISE_CACHE_DIR", str(directory))
        _compiler.clear_memory_cache()
        fn = pw.pointwise(promotion_methods=[(0, 1, "DEFAULT")],
                          name="addc")(body)
        a = np.arange(6, dtype=np.float32)
        np.testing.assert_array_equal(fn(a, a), body(a, a))
        return sorted({l.origin for l in _compiler._memory.values()})

    assert run(tmp_path / "two", lambda x, y: x * 2.0 + y) == ["compiled"]
    assert run(tmp_path / "three", lambda x, y: x * 3.0 + y) == ["compiled"]
    shutil.copyfile(_cached_library(tmp_path / "two"),
                    _cached_library(tmp_path / "three"))
    assert run(tmp_path / "three", lambda x, y: x * 3.0 + y) == ["compiled"]
    assert run(tmp_path / "three", lambda x, y: x * 3.0 + y) == ["disk"]


@pw.pointwise(is_tensor=[True, False], promotion_methods=[(0, 1, "DEFAULT")])
def add_any(x, s):
    return x + s


def _scalar_function(dtype):
    return pw.pointwise(is_tensor=[True, False], dtypes=[None, dtype],
                        promotion_methods=[(0, "DEFAULT")],
                        name="add_" + getattr(dtype, "__name__", str(dtype)))(
                            lambda x, s: x + s)


@pytest.mark.parametrize("dtype, value", [
    (bool, "False"), (bool, "x"), (float, "3"), (int, "3"), ("float32", b"1"),
    (float, None), (float, 1j), (None, "3"), (None, None), (None, 2j),
    (None, [1.0]), (None, np.complex64(1)), ("float32", np.complex128(1))])
def test_scalars_must_be_real_numbers(dtype, value):
    a = np.arange(3.0)
    fn = add_any if dtype is None else _scalar_function(dtype)
    with pytest.raises(TypeError, match=r"^%s: argument 1.* (got|but got "
                       r"a?)\s?%s" % (fn.__name__, type(value).__name__)):
        fn(a, value)


def test_functions_of_scalars_alone_fill_their_outputs():
    """Without tensor inputs the given outputs set the shape: every element
    is written, at any rank, and outputs of different shapes are an error."""
    @pw.pointwise(is_tensor=[False], dtypes=[float],
                  promotion_methods=[(0, "DEFAULT")])
    def fill(v):
        return v

    @pw.pointwise(is_tensor=[False], dtypes=[float], num_outputs=2,
                  promotion_methods=[(0, "DEFAULT"), (0, "DEFAULT")])
    def fill2(v):
        return v, v + 1

    out = np.zeros(4)
    fill(7.0, out0=out)
    np.testing.assert_array_equal(out, [7.0] * 4)
    grid = np.zeros((2, 3))[:, ::-1]
    fill(2.5, out0=grid)
    np.testing.assert_array_equal(grid, np.full((2, 3), 2.5))
    assert fill(1.0, out0=np.zeros(())).shape == ()
    cube = np.zeros((2, 1, 3))
    fill.instantiate(3)(4.0, out0=cube)
    np.testing.assert_array_equal(cube, np.full((2, 1, 3), 4.0))
    with pytest.raises(ValueError, match=r"^fill: instantiated for rank 3, but "
                       r"out0 has rank 1"):
        fill.instantiate(3)(4.0, out0=np.zeros(2))
    a, b = fill2(1.0, out0=np.zeros((2, 2)))
    np.testing.assert_array_equal(a, np.ones((2, 2)))
    np.testing.assert_array_equal(b, np.full((2, 2), 2.0))
    with pytest.raises(ValueError, match=r"^fill2: out1 has shape \[5\], but "
                       r"out0 has shape \[3\]"):
        fill2(1.0, out0=np.zeros(3), out1=np.zeros(5))
    with pytest.raises(ValueError, match=r"^fill2: out1 has shape \[3\], but "
                       r"out0 has shape \[2, 3\]"):
        fill2(1.0, out0=np.zeros((2, 3)), out1=np.zeros(3))


def test_cuda_array_interface_strides_must_match_the_shape():
    class Exporter:
        __cuda_array_interface__ = {"typestr": "<f4", "shape": (2, 3),
                                    "strides": (12,), "data": (0x1000, False),
                                    "version": 3}

    with pytest.raises(TypeError, match=r"1 strides for 2 dims"):
        pw.StridedBuffer(Exporter())


def test_bool_scalar_string_is_not_true():
    @pw.pointwise(is_tensor=[True, False], dtypes=[None, bool],
                  promotion_methods=[(0, 1, "DEFAULT")])
    def negate_unless(x, flag):
        return pw.where(flag, x, -x)

    a = np.arange(3.0)
    np.testing.assert_array_equal(negate_unless(a, False), -a)
    np.testing.assert_array_equal(negate_unless(a, np.bool_(False)), -a)
    np.testing.assert_array_equal(negate_unless(a, True), a)
    with pytest.raises(TypeError, match="cannot pass 'False' as a scalar bool"):
        negate_unless(a, "False")


@pytest.mark.parametrize("value", [
    np.float64(0.5), np.float32(0.5), np.float16(0.5), np.arange(2.0).mean()])
def test_numpy_scalars_are_scalars(value):
    a = np.arange(4.0)
    np.testing.assert_array_equal(axpy(a, a, value), a * 1.5)
    np.testing.assert_array_equal(_scalar_function(None)(a, value), a + 0.5)
    np.testing.assert_array_equal(add_any(a, value), a + 0.5)


def test_numpy_integer_and_bool_scalars():
    x = np.arange(-3, 3, dtype=np.int16)
    z = add_any(x, np.int64(3))  # an integer scalar: the tensor's dtype
    assert z.dtype == np.int16
    np.testing.assert_array_equal(z, x + 3)
    z = add_any(x, np.uint8(3))
    assert z.dtype == np.int16
    np.testing.assert_array_equal(z, x + 3)
    z = add_any(x, np.float32(0.5))  # a float scalar: float32
    assert z.dtype == np.float32
    np.testing.assert_array_equal(z, x + 0.5)
    z = add_any(np.array([True, False]), np.bool_(True))
    np.testing.assert_array_equal(z, [True, True])
    np.testing.assert_array_equal(_scalar_function("int8")(x, np.int32(-7)),
                                  x - 7)
    with pytest.raises(TypeError, match="a float cannot be passed where an "
                       "integer scalar is declared"):
        _scalar_function("int8")(x, np.float32(1))
    with pytest.raises(TypeError, match="declared a scalar .* but got a ndarray"):
        add_any(x, np.array(1.0))  # a 0-d array is an array
    with pytest.raises(TypeError, match="declared a tensor .* but got a float64"):
        copy(np.float64(1.0))


@pytest.mark.parametrize("dtype, value, allowed", [
    (None, 2 ** 63, "-9223372036854775808 to 9223372036854775807"),
    (None, -2 ** 63 - 1, "-9223372036854775808 to 9223372036854775807"),
    (None, np.uint64(2 ** 63), "-9223372036854775808 to 9223372036854775807"),
    ("int8", 300, "-128 to 127"), ("int8", -129, "-128 to 127"),
    ("int8", np.uint8(200), "-128 to 127"),
    ("int16", 1 << 15, "-32768 to 32767"),
    ("int32", -(1 << 31) - 1, "-2147483648 to 2147483647"),
    ("float32", 1e39, "3.4028234663852886e+38"),
    ("float32", -3.4028236e38, "3.4028234663852886e+38"),
    ("float16", 70000, "65504.0"), ("float16", 65520.0, "65504.0"),
    ("bfloat16", 1e39, "3.3895313892515355e+38"),
    ("bfloat16", 3.4e38, "3.3895313892515355e+38"),
    pytest.param("float64", 10 ** 400, "1.7976931348623157e+308",
                 id="float64-10**400"),
    pytest.param("float32", 10 ** 400, "3.4028234663852886e+38",
                 id="float32-10**400")])
def test_scalars_out_of_range(dtype, value, allowed):
    fn = add_any if dtype is None else _scalar_function(dtype)
    with pytest.raises(OverflowError) as info:
        fn(np.arange(3.0), value)
    message = str(info.value)
    assert message.startswith("%s: argument 1: " % fn.__name__), message
    assert "out of range for %s" % (dtype or "int64") in message
    assert allowed in message


@pytest.mark.parametrize("dtype, value", [
    ("int8", -128), ("int8", 127), (None, -2 ** 63), (None, 2 ** 63 - 1),
    ("float16", 65504.0), ("float16", 65519.0), ("float32", 3.4028235e38),
    ("bfloat16", 3.38e38), ("float32", float("inf")), ("float16", -np.inf),
    ("float32", float("nan"))])
def test_scalars_at_the_ends_of_the_range(dtype, value):
    fn = _scalar_function(dtype) if dtype else add_any
    x = np.zeros(2, dtype=np.float64 if dtype in ("float32", "bfloat16",
                                                  "float16") else np.int64)
    z = fn(x, value)
    expected = np.float64(np.array(value, dtype=dtype or "int64")) \
        if dtype != "bfloat16" else 3.3762391e38
    np.testing.assert_allclose(z, [expected, expected], rtol=1e-7)


class _Subclass(np.ndarray):
    pass


@pytest.mark.filterwarnings("ignore::PendingDeprecationWarning")  # np.matrix
def test_numpy_subclasses_are_numpy_arrays():
    a = np.arange(6.0).reshape(2, 3).view(_Subclass)
    z = axpy(a, a, 2.0)  # allocated by NumPy next to a subclass
    assert type(z) is np.ndarray
    np.testing.assert_array_equal(z, np.arange(6.0).reshape(2, 3) * 3)
    out = np.zeros((3, 2)).view(_Subclass).T
    assert axpy(a, a, 1.0, out0=out) is out
    np.testing.assert_array_equal(out, a * 2)
    m = np.matrix([[1.0, 2.0], [3.0, 4.0]])
    np.testing.assert_array_equal(copy(m), [[1.0, 2.0], [3.0, 4.0]])
    flipped = pw.StridedBuffer(np.arange(4.0).view(_Subclass), strides=(-1,),
                               offset=3)
    np.testing.assert_array_equal(copy(flipped), [3.0, 2.0, 1.0, 0.0])
    read_only = np.zeros(3).view(_Subclass)
    read_only.flags.writeable = False
    with pytest.raises(ValueError, match="^copy: out0 is read-only"):
        copy(np.ones(3), out0=read_only)
    np.testing.assert_array_equal(read_only, np.zeros(3))


def test_masked_arrays_are_rejected():
    masked = np.ma.array([1.0, 2.0, 3.0], mask=[0, 1, 0])
    with pytest.raises(TypeError, match="^copy: argument 0: masked arrays are "
                       "not supported"):
        copy(masked)
    out = np.ma.zeros(3)
    with pytest.raises(TypeError, match="^copy: out0: masked arrays"):
        copy(np.ones(3), out0=out)
    np.testing.assert_array_equal(out.data, np.zeros(3))
    with pytest.raises(TypeError, match="masked arrays"):
        pw.StridedBuffer(masked, strides=(-1,), offset=2)
    np.testing.assert_array_equal(copy(masked.filled(0.0)), [1.0, 0.0, 3.0])


@pytest.mark.parametrize("kwargs, error, pattern", [
    (dict(is_tensor=5), TypeError,
     r"^ident: is_tensor must be a list with one bool per input, got 5$"),
    (dict(is_tensor="yes"), TypeError, r"^ident: is_tensor must be a list"),
    (dict(is_tensor=[2]), TypeError,
     r"^ident: is_tensor\[0\] is 2; expected True \(a tensor\) or False"),
    (dict(is_tensor=[None]), TypeError, r"^ident: is_tensor\[0\] is None"),
    (dict(dtypes="float"), TypeError,
     r"^ident: dtypes must be a list with one dtype \(or None\) per input"),
    (dict(promotion_methods=[]), ValueError,
     r"^ident: a pointwise function needs at least one output"),
    (dict(promotion_methods=5), ValueError,
     r"^ident: promotion methods 5: expected a list"),
    (dict(num_outputs=2.0), TypeError,
     r"^ident: num_outputs must be a positive integer, got 2\.0"),
    (dict(num_inputs="1"), TypeError,
     r"^ident: num_inputs must be a non-negative integer, got '1'"),
])
def test_decorator_arguments_are_validated(kwargs, error, pattern):
    kwargs.setdefault("promotion_methods", [(0, "DEFAULT")])

    def ident(x):
        return x

    with pytest.raises(error, match=pattern):
        pw.pointwise(**kwargs)(ident)


def test_decorator_accepts_bool_like_flags():
    fn = pw.pointwise(is_tensor=(np.True_, 0), dtypes=(None, "int8"),
                      promotion_methods=[(0, "DEFAULT")])(lambda x, k: x + k)
    assert fn.is_tensor == (True, False)
    np.testing.assert_array_equal(fn(np.arange(3), 2), [2, 3, 4])


@pytest.mark.parametrize("rank", [2.5, None, "2", True, -1, 17])
def test_instantiate_needs_an_integer_rank(rank):
    error = ValueError if rank in (-1, 17) else TypeError
    with pytest.raises(error, match=r"^copy\.instantiate: rank must be "):
        copy.instantiate(rank)
    assert copy.instantiate(np.int64(2)).rank == 2


@pytest.mark.parametrize("kwargs, error, pattern", [
    (dict(shape=(2 ** 64,), strides=(0,)), ValueError,
     r"^StridedBuffer: shape\[0\] is 18446744073709551616, out of the range "
     r"0\.\.9223372036854775807$"),
    (dict(shape=(2 ** 63,), strides=(0,)), ValueError,
     r"^StridedBuffer: shape\[0\] is 9223372036854775808, out of the range"),
    (dict(shape=(-1,), strides=(0,)), ValueError, r"shape\[0\] is -1"),
    (dict(shape=3, strides=1), TypeError,
     r"^StridedBuffer: shape must be a sequence of integers, one per dim, "
     r"got 3$"),
    (dict(shape=(2.0,), strides=(1,)), TypeError,
     r"^StridedBuffer: shape\[0\]: expected an integer, got 2\.0"),
    (dict(shape=(2,), strides=(2 ** 63,)), ValueError,
     r"^StridedBuffer: strides\[0\] is 9223372036854775808"),
    (dict(shape=(2,), strides=(1,), offset=1.5), TypeError,
     r"^StridedBuffer: offset must be an integer \(in elements\), got 1\.5$"),
    (dict(shape=(2,), strides=(1,), offset=2 ** 64), ValueError,
     r"^StridedBuffer: offset 18446744073709551616 is out of the int64 range"),
])
def test_strided_buffer_arguments_are_validated(kwargs, error, pattern):
    with pytest.raises(error, match=pattern):
        pw.StridedBuffer(np.arange(4.0), **kwargs)


def test_strided_buffer_takes_numpy_integers():
    view = pw.StridedBuffer(np.arange(4.0), shape=[np.int64(2)],
                            strides=(np.int32(-1),), offset=np.int64(3))
    assert view.shape == (2,) and view.strides == (-1,) and view.offset == 3
    np.testing.assert_array_equal(copy(view), [3.0, 2.0])


def test_huge_broadcast_views_give_clear_errors():
    base = np.arange(4.0)
    huge = pw.StridedBuffer(base, shape=(2 ** 63 - 1,), strides=(0,))
    with pytest.raises(ValueError, match=r"^copy: cannot allocate out0 \(shape "
                       r"\[9223372036854775807\], float64\): "):
        copy(huge)
    with pytest.raises(ValueError, match=r"^copy: .*more elements than fit"):
        copy(pw.StridedBuffer(base, shape=(2 ** 62, 4), strides=(0, 0)))


def test_byte_strides_not_a_multiple_of_the_element_size():
    from numpy.lib.stride_tricks import as_strided
    odd = as_strided(np.zeros(8, np.float32), shape=(3,), strides=(6,))
    with pytest.raises(ValueError, match=r"^copy: argument 0: the array's byte "
                       r"strides \(6,\) are not multiples of its element size 4"):
        copy(odd)
    with pytest.raises(ValueError, match=r"^copy: out0: the array's byte"):
        copy(np.ones(3, np.float32), out0=odd)
    with pytest.raises(ValueError, match=r"^StridedBuffer: base: the array's"):
        pw.StridedBuffer(odd)
    with pytest.raises(TypeError, match=r"^StridedBuffer: base: expected a "
                       "tensor"):
        pw.StridedBuffer([1.0, 2.0])


class _Interface:
    def __init__(self, interface):
        self.__cuda_array_interface__ = interface


@pytest.mark.parametrize("interface, pattern", [
    ({}, r"missing 'typestr'"),
    ({"typestr": "<f4", "shape": (2,)}, r"missing 'data'"),
    ({"typestr": 5, "shape": (2,), "data": (0, False)}, r"'typestr' must be"),
    ({"typestr": "<f4", "shape": 2, "data": (0, False)}, r"not iterable"),
    ({"typestr": "<f4", "shape": (2.5,), "data": (0, False)},
     r"expected an integer, got 2\.5"),
    (7, r"not subscriptable"),
])
def test_bad_cuda_array_interface(interface, pattern):
    with pytest.raises(TypeError, match=r"^copy: argument 0: invalid "
                       r"__cuda_array_interface__ .*" + pattern):
        copy(_Interface(interface))


class _DLPack:
    def __init__(self, result):
        self.result = result

    def __dlpack__(self, **kwargs):
        if isinstance(self.result, Exception):
            raise self.result
        return self.result

    def __dlpack_device__(self):
        return (1, 0)


def test_bad_dlpack_exporters():
    with pytest.raises(TypeError, match=r"^copy: argument 0: _DLPack\.__dlpack__"
                       r"\(\) returned 5, not a DLPack capsule named 'dltensor'"):
        copy(_DLPack(5))
    used = np.arange(3.0).__dlpack__()
    np.from_dlpack(_DLPack(used))  # consumed: renamed "used_dltensor"
    with pytest.raises(TypeError, match=r"not a DLPack capsule"):
        copy(_DLPack(used))
    with pytest.raises(TypeError, match=r"^copy: argument 0: cannot export the "
                       r"_DLPack through __dlpack__: read-only"):
        copy(_DLPack(BufferError("read-only")))
    out = np.zeros(3)
    copy(_DLPack(np.arange(3.0).__dlpack__()), out0=out)
    np.testing.assert_array_equal(out, [0.0, 1.0, 2.0])
