"""@pw.pointwise on the GPU with PyTorch (and CuPy, DLPack): every result
against PyTorch eager, including the result dtype from torch.result_type.
Skipped without a CUDA device."""

import itertools
import os

import numpy as np
import pytest

torch = pytest.importorskip("torch")
if not torch.cuda.is_available():
    pytest.skip("no CUDA device", allow_module_level=True)
pw = pytest.importorskip("pointwise")


@pytest.fixture(autouse=True)
def _quiet(monkeypatch, tmp_path_factory):
    monkeypatch.setenv("POINTWISE_PROGRESS", "0")
    monkeypatch.setenv("POINTWISE_CACHE_DIR",
                       str(tmp_path_factory.getbasetemp() / "pointwise-cache"))


DTYPES = [torch.bool, torch.int8, torch.int16, torch.int32, torch.int64,
          torch.uint8, torch.float16, torch.bfloat16, torch.float32,
          torch.float64]


def random(shape, dtype, seed=0):
    g = torch.Generator(device="cuda").manual_seed(seed)
    if dtype == torch.bool:
        return torch.rand(shape, device="cuda", generator=g) > 0.5
    if dtype.is_floating_point:
        return torch.randn(shape, device="cuda", generator=g).to(dtype)
    return torch.randint(-50, 50, shape, device="cuda", generator=g).to(dtype)


@pw.pointwise(promotion_methods=[(0, 1, "DEFAULT")])
def add(x, y):
    return x + y


@pw.pointwise(is_tensor=[True, True, False], dtypes=[None, None, float],
              promotion_methods=[(0, 1, "DEFAULT")])
def axpy(x, y, alpha):
    return x * alpha + y


@pw.pointwise(promotion_methods=[(0, "DEFAULT")])
def copy(x):
    return x


def tolerance(dtype):
    return {torch.float16: 2e-3, torch.bfloat16: 1.6e-2}.get(dtype, 1e-6)


@pytest.mark.parametrize("a_dtype,b_dtype", list(itertools.product(DTYPES, DTYPES)))
def test_add_matches_torch_for_every_dtype_pair(a_dtype, b_dtype):
    if a_dtype == torch.bool and b_dtype == torch.bool:
        pytest.skip("torch adds bools as logical or; so do we, checked below")
    a = random((33, 17), a_dtype, 1)
    b = random((17,), b_dtype, 2)
    ours = add(a, b)
    expected = a + b
    assert ours.dtype == expected.dtype == torch.result_type(a, b)
    tol = tolerance(expected.dtype)
    torch.testing.assert_close(ours, expected, rtol=tol, atol=tol)


@pw.pointwise(promotion_methods=[(0, 1, "DEFAULT"), (0, 1, "DEFAULT")],
              num_outputs=2)
def floor_div_and_mod(x, y):
    return x // y, x % y


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16, torch.float32,
                                   torch.float64, torch.int32, torch.int64])
def test_floor_division_and_remainder(dtype):
    # Floating-point % has no PTX instruction: the kernel calls libdevice's
    # fmod, then corrects the sign as Python (and torch.remainder) do.
    a = random((4, 300), dtype, 5) * 7
    b = random((300,), dtype, 6)
    if dtype.is_floating_point:
        b = torch.where(b.abs() < 0.25, torch.full_like(b, 0.5), b)
    else:
        b = torch.where(b == 0, torch.ones_like(b), b)
    quotient, remainder = floor_div_and_mod(a, b)
    assert quotient.dtype == remainder.dtype == dtype
    tol = tolerance(dtype) if dtype.is_floating_point else 0
    torch.testing.assert_close(remainder, torch.remainder(a, b), rtol=tol,
                               atol=tol * 8)
    wide = torch.float32 if dtype in (torch.float16, torch.bfloat16) else dtype
    expected = torch.div(a.to(wide), b.to(wide), rounding_mode="floor")
    torch.testing.assert_close(quotient, expected.to(dtype), rtol=0, atol=0)


def test_bool_add_is_logical_or():
    a = random((64,), torch.bool, 1)
    b = random((64,), torch.bool, 2)
    ours = add(a, b)
    assert ours.dtype == torch.bool
    assert torch.equal(ours, a | b)


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16, torch.float32,
                                   torch.float64, torch.int32])
def test_axpy_scalar_as_wrapped_number(dtype):
    a = random((8, 128), dtype, 3)
    b = random((8, 128), dtype, 4)
    ours = axpy(a, b, 0.5)
    assert ours.dtype == dtype
    expected = (a.double() * 0.5 + b.double()).to(dtype) if not dtype.is_floating_point \
        else (a.float() * 0.5 + b.float()).to(dtype)
    tol = tolerance(dtype)
    torch.testing.assert_close(ours, expected, rtol=tol, atol=tol if dtype.is_floating_point else 1)


@pytest.mark.parametrize("layout", ["contiguous", "transposed", "nchw+nhwc",
                                    "sliced", "broadcast", "rank5", "empty",
                                    "rank0"])
def test_layouts(layout):
    if layout == "contiguous":
        a, b = random((1000, 300), torch.float32, 1), random((1000, 300), torch.float32, 2)
    elif layout == "transposed":
        a, b = random((300, 1000), torch.float32, 1).t(), random((1000, 300), torch.float32, 2)
    elif layout == "nchw+nhwc":
        a = random((8, 32, 16, 16), torch.float32, 1)
        b = random((8, 16, 16, 32), torch.float32, 2).permute(0, 3, 1, 2)
    elif layout == "sliced":
        a = random((64, 130), torch.float32, 1)[::2, 1:129:2]
        b = random((32, 64), torch.float32, 2)
    elif layout == "broadcast":
        a, b = random((512, 1), torch.float32, 1), random((1, 256), torch.float32, 2)
    elif layout == "rank5":
        a = random((4, 5, 6, 7, 66), torch.float32, 1)[..., 1:65]
        b = random((6, 1, 64), torch.float32, 2)
    elif layout == "empty":
        a, b = random((0, 5), torch.float32, 1), random((5,), torch.float32, 2)
    else:
        a, b = random((), torch.float32, 1), random((), torch.float32, 2)
    ours = axpy(a, b, 2.0)
    torch.testing.assert_close(ours, a * 2.0 + b)
    # The output is allocated in the inputs' memory order, like eager.
    expected = a * 2.0 + b
    if ours.numel() > 1:
        assert ours.stride() == expected.stride(), layout


def test_gelu_f16_and_two_outputs():
    @pw.pointwise(promotion_methods=[(0, "DEFAULT")])
    def gelu(x):
        return 0.5 * x * (1.0 + pw.tanh(0.7978845608028654 * (x + 0.044715 * x * x * x)))

    x = random((4096, 1024), torch.float16, 5)
    torch.testing.assert_close(gelu(x), torch.nn.functional.gelu(x, approximate="tanh"),
                               rtol=2e-3, atol=2e-3)

    @pw.pointwise(promotion_methods=[((0, 1), "DEFAULT"), ((0, 1), "DEFAULT")],
                  num_outputs=2)
    def polar(r, t):
        return r * pw.cos(t), r * pw.sin(t)

    r, t = random((1024, 512), torch.float32, 6).abs(), random((1024, 512), torch.float32, 7)
    x, y = polar(r, t)
    torch.testing.assert_close(x, r * torch.cos(t))
    torch.testing.assert_close(y, r * torch.sin(t))


def bf16_results_on_every_input(function):
    """`function` of each of the 65,536 bf16 numbers: the inputs, which of
    them are not NaN, and the bits of the results there (a NaN input must
    give NaN)."""
    bits = torch.arange(-32768, 32768, dtype=torch.int32, device="cuda").to(torch.int16)
    x = bits.view(torch.bfloat16)
    ours = function(x)
    number = ~torch.isnan(x)
    assert torch.isnan(ours[~number]).all()
    return x, number, ours.view(torch.int16)[number]


def test_bf16_tanh_is_eagers_on_every_input():
    """tanh of each of the 65,536 bf16 numbers, bit for bit as eager's (which
    rounds CUDA's tanhf to bf16), and as the correctly rounded float64 tanh."""
    @pw.pointwise(promotion_methods=[(0, "DEFAULT")])
    def tanh(x):
        return pw.tanh(x)

    x, number, ours_bits = bf16_results_on_every_input(tanh)
    assert torch.equal(ours_bits, torch.tanh(x).view(torch.int16)[number])
    exact = torch.tanh(x.double()).to(torch.bfloat16).view(torch.int16)[number]
    assert torch.equal(ours_bits, exact)


def test_bf16_gelu_keeps_libdevice_results_on_every_input():
    """A tanh-GELU of each of the 65,536 bf16 numbers. pw-bf16-math-to-nvvm
    computes its tanh by libdevice's large-argument branch alone (a check
    over every input allows it); the results are bit for bit those of the
    same GELU of the numbers in float32, where libdevice's tanhf stays,
    rounded to bf16, and those of eager's gelu(approximate="tanh"), whose
    kernel computes the same float32 operations in the same order."""
    @pw.pointwise(promotion_methods=[(0, "DEFAULT")])
    def gelu(x):
        cube = x * x * x
        inner = 0.7978845608028654 * (x + 0.044715 * cube)
        return 0.5 * x * (1.0 + pw.tanh(inner))

    @pw.pointwise(promotion_methods=[(0, "DEFAULT")])
    def gelu_f32(x):
        cube = x * x * x
        inner = 0.7978845608028654 * (x + 0.044715 * cube)
        return 0.5 * x * (1.0 + pw.tanh(inner))

    x, number, ours_bits = bf16_results_on_every_input(gelu)
    libdevice = gelu_f32(x.float()).to(torch.bfloat16).view(torch.int16)[number]
    assert torch.equal(ours_bits, libdevice)
    eager = torch.nn.functional.gelu(x, approximate="tanh")
    assert torch.equal(ours_bits, eager.view(torch.int16)[number])


def test_sincos_fusion_keeps_sin_and_cos_bit_for_bit():
    """A sine and a cosine of one value compile to one sincos: on every one
    of the 2^32 float32 inputs, its results are bit for bit those of the
    sine and the cosine compiled apart, and NaN where they are."""
    @pw.pointwise(promotion_methods=[(0, "DEFAULT"), (0, "DEFAULT")],
                  num_outputs=2)
    def cos_and_sin(t):
        return pw.cos(t), pw.sin(t)

    @pw.pointwise(promotion_methods=[(0, "DEFAULT")])
    def cos(t):
        return pw.cos(t)

    @pw.pointwise(promotion_methods=[(0, "DEFAULT")])
    def sin(t):
        return pw.sin(t)

    chunk = 1 << 28
    for start in range(-(1 << 31), 1 << 31, chunk):
        t = torch.arange(start, start + chunk, dtype=torch.int64,
                         device="cuda").to(torch.int32).view(torch.float32)
        fused_cos, fused_sin = cos_and_sin(t)
        for fused, apart in ((fused_cos, cos(t)), (fused_sin, sin(t))):
            nan = torch.isnan(apart)
            assert torch.equal(torch.isnan(fused), nan)
            assert torch.equal(fused.view(torch.int32)[~nan],
                               apart.view(torch.int32)[~nan])


def test_in_place_and_preallocated():
    a = random((256, 256), torch.float32, 1)
    b = random((256,), torch.float32, 2)
    expected = a * 3.0 + b
    out = torch.empty((256, 256), device="cuda").t()
    assert axpy(a, b, 3.0, out0=out) is out
    torch.testing.assert_close(out, expected)
    axpy(a, b, 3.0, out0=a)
    torch.testing.assert_close(a, expected)


def test_flip_with_strided_buffer():
    a = random((37, 129), torch.float32, 3)
    strides = (-a.stride(0), -a.stride(1))
    offset = (a.shape[0] - 1) * a.stride(0) + (a.shape[1] - 1) * a.stride(1)
    flipped = pw.StridedBuffer(a, strides=strides, offset=offset)
    out = torch.empty_like(a)
    copy.instantiate(2)(flipped, out0=out)
    assert torch.equal(out, torch.flip(a, (0, 1)))
    with pytest.raises(ValueError, match="reaches elements"):
        pw.StridedBuffer(a, strides=strides, offset=offset - 1)


def test_runs_on_the_current_torch_stream():
    stream = torch.cuda.Stream()
    a = random((4096, 4096), torch.float32, 1)
    b = random((4096, 4096), torch.float32, 2)
    torch.cuda.synchronize()
    with torch.cuda.stream(stream):
        out = axpy(a, b, 1.0)
        again = axpy(out, b, 1.0)  # ordered after `out` on the same stream
    stream.synchronize()
    torch.testing.assert_close(again, a + 2 * b)


def test_dlpack_objects_bf16():
    class DLPackOnly:
        def __init__(self, tensor):
            self.tensor = tensor

        def __dlpack__(self, stream=None):
            return self.tensor.__dlpack__()

        def __dlpack_device__(self):
            return self.tensor.__dlpack_device__()

    a = random((100, 3), torch.bfloat16, 1)
    b = random((100, 3), torch.bfloat16, 2)
    out = torch.empty_like(a)
    add(DLPackOnly(a), DLPackOnly(b), out0=DLPackOnly(out))
    torch.testing.assert_close(out, a + b)


def test_cuda_array_interface():
    class Interface:
        def __init__(self, tensor):
            self.tensor = tensor
            self.__cuda_array_interface__ = tensor.__cuda_array_interface__

    a = random((10, 20), torch.float32, 1)
    out = torch.empty_like(a)
    copy(Interface(a[:, ::2].contiguous()), out0=out[:, ::2])
    torch.testing.assert_close(out[:, ::2], a[:, ::2])


def test_cupy_if_available():
    cupy = pytest.importorskip("cupy")
    x = cupy.arange(12, dtype=cupy.float32).reshape(3, 4)
    z = axpy(x, x.T.copy().T, 2.0)
    assert isinstance(z, cupy.ndarray)
    cupy.testing.assert_allclose(z, x * 3)

    # Column-major inputs: the output is allocated by CuPy in their order.
    f = cupy.asfortranarray(x)
    zf = axpy(f, f, 1.0)
    assert isinstance(zf, cupy.ndarray) and zf.flags.f_contiguous
    cupy.testing.assert_allclose(zf, x * 2)
    # Broadcasting and promotion: an int32 row with float32, a float scalar.
    r = cupy.arange(4, dtype=cupy.int32)
    w = axpy(x, r, 0.5)
    assert w.dtype == cupy.float32
    cupy.testing.assert_allclose(w, x * 0.5 + r)
    # Negative strides and slices, through __cuda_array_interface__.
    v = x[::-1, 1::2]
    cupy.testing.assert_allclose(copy(v), v)
    # Preallocated and in-place outputs.
    out = cupy.empty_like(x)
    assert axpy(x, x, 1.0, out0=out) is out
    cupy.testing.assert_allclose(out, x * 2)
    axpy(out, x, -0.5, out0=out)  # in place: 2x * -0.5 + x
    cupy.testing.assert_allclose(out, x * 0)
    # CuPy's current stream: the launch is ordered after work queued there.
    stream = cupy.cuda.Stream(non_blocking=True)
    with stream:
        big = cupy.full(1 << 22, 1.5, dtype=cupy.float32)
        result = axpy(big, big, 2.0)
        total = float(result.sum())
    stream.synchronize()
    assert total == 4.5 * (1 << 22)


def test_cpu_tensors_run_on_the_cpu():
    a = torch.arange(6.0).reshape(2, 3)
    z = axpy(a, a, 1.0)
    assert z.device.type == "cpu"
    assert torch.equal(z, a * 2)


def test_errors():
    a = random((4, 4), torch.float32)
    with pytest.raises(ValueError, match="different devices"):
        add(a, a.cpu())
    with pytest.raises(ValueError, match="broadcast"):
        add(a, random((3,), torch.float32))
    with pytest.raises(ValueError, match="out0 has shape"):
        add(a, a, out0=random((4, 5), torch.float32))
    converted = add(a, a, out0=random((4, 4), torch.int32))  # as copy_
    assert torch.equal(converted, (a + a).to(torch.int32))
    with pytest.raises(pw.LayoutError, match="overlap"):
        copy(a, out0=a.expand(4, 4)[:, :1].expand(4, 4))
    with pytest.raises(TypeError, match="declared a scalar"):
        axpy(a, a, a)
    with pytest.raises(TypeError):
        copy(random((4,), torch.float32).to(torch.complex64))


def test_compiled_per_rank_not_per_shape():
    @pw.pointwise(promotion_methods=[(0, 1, "DEFAULT")])
    def mul(x, y):
        return x * y

    for shape in [(7, 9), (1024, 3), (3, 1024), (1, 1)]:
        x, y = random(shape, torch.float32, 1), random(shape, torch.float32, 2)
        torch.testing.assert_close(mul(x, y), x * y)
        torch.testing.assert_close(mul(x.t(), y.t()), x.t() * y.t())
        torch.testing.assert_close(mul(x[:, :1], y), x[:, :1] * y)
    assert len(mul._launchers) == 1


def test_fast_path_matches_the_general_call():
    @pw.pointwise(is_tensor=[True, True, False], dtypes=[None, None, float],
                  promotion_methods=[(0, 1, "DEFAULT")])
    def fma_like(x, y, alpha):
        return x * alpha + y

    a = random((64, 33), torch.float32, 1)
    b = random((64, 33), torch.float32, 2)
    torch.testing.assert_close(fma_like(a, b, 2.0), a * 2 + b)  # general call
    assert fma_like._fast is not None and fma_like._plans
    for shape in [(64, 33), (5, 7), (1, 1), (300, 1000)]:  # fast path
        x = random(shape, torch.float32, 3)
        y = random(shape, torch.float32, 4)
        torch.testing.assert_close(fma_like(x, y, -1.5), x * -1.5 + y)
        out = torch.empty(shape, device="cuda")
        assert fma_like(x, y, 3, out0=out) is out  # an int for a float scalar
        torch.testing.assert_close(out, x * 3 + y)
        # Cases the fast path hands to the general call.
        torch.testing.assert_close(fma_like(x.t(), y.t(), 1.0), x.t() + y.t())
        torch.testing.assert_close(fma_like(x, y[:1], 1.0), x + y[:1])
        wide = torch.empty(shape, device="cuda", dtype=torch.float64)
        fma_like(x, y, 1.0, out0=wide)
        torch.testing.assert_close(wide, (x + y).double())
        narrow = torch.empty(shape, device="cuda", dtype=torch.int32)
        fma_like(x, y, 1.0, out0=narrow)  # converted as copy_ converts
        assert torch.equal(narrow, (x + y).to(torch.int32))
        with pytest.raises(TypeError, match="unexpected keyword"):
            fma_like(x, y, 1.0, out7=out)
    h = random((10, 10), torch.float16, 5)
    torch.testing.assert_close(fma_like(h, h, 0.5), (h.float() * 1.5).half(),
                               rtol=2e-3, atol=2e-3)


def test_fast_path_takes_numpy_scalars():
    """NumPy's integer, float16/32/64 and bool_ scalars are packed by the
    C call itself (as struct packs them) once a call has planned for their
    type: every call gives what the same value as a Python number gives."""
    @pw.pointwise(is_tensor=[True, True, False], dtypes=[None, None, float],
                  promotion_methods=[(0, 1, "DEFAULT")])
    def fma_like(x, y, alpha):
        return x * alpha + y

    x = random((64, 33), torch.float32, 1)
    y = random((64, 33), torch.float32, 2)
    for value in (np.float32(0.1), np.float16(0.5), np.float64(-2.5),
                  np.int64(3), np.uint8(7), np.int8(-4), np.bool_(True),
                  np.longdouble(1.25)):
        expected = fma_like(x, y, float(value))
        for _ in range(3):  # the first call plans for the type
            assert torch.equal(fma_like(x, y, value), expected), value
        assert any(type(value) in key[1] for key in fma_like._plans)
    # A longdouble beyond float64's range is an error on every call; the C
    # call hands longdoubles over rather than pack an infinity.
    big = np.longdouble(10) ** 400
    if np.isfinite(big):  # where longdouble is wider than float64
        for _ in range(2):
            with pytest.raises(OverflowError):
                fma_like(x, y, big)


@pytest.mark.parametrize("reader", ["torchtensors", "torchshim"])
def test_torch_tensor_reader_matches_attributes(request, reader):
    """pointwise._torchtensors (built for this torch) and
    pointwise._torchshim (torch's C shim) in the C call path: the same
    results, allocations, streams and hand-overs as reading attributes."""
    from pointwise import _native, _runtime
    fastcall = _native.fastcall(_runtime.load_runtime())
    if fastcall is None:
        pytest.skip("no C call path here")

    @pw.pointwise(is_tensor=[True, True, False], dtypes=[None, None, float],
                  promotion_methods=[(0, 1, "DEFAULT"), (0, 1, "ALWAYS_BOOL")],
                  num_outputs=2)
    def two(x, y, alpha):
        return x * alpha + y, x > y

    a = random((64, 33), torch.float16, 1)
    b = random((64, 33), torch.float32, 2)
    two(a, b, 1.0)  # the general call plans; the fast path is bound now
    module = _native._torch_tensors
    if reader == "torchshim":
        if _native._beside_runtime(_native.TORCH_SHIM_NAME,
                                   _runtime.load_runtime().path) is None:
            pytest.skip("no pointwise._torchshim here")
        # This torch exports every function the shim looks up.
        found = _native._shim_reader(_runtime.load_runtime(), torch)
        assert found is not None, "torch %s: the shim does not bind" % (
            torch.__version__)
        module = found[0]
        assert module.__name__ == "pointwise._torchshim"
        # Releases whose empty_cuda takes std::optional (this one) allocate
        # through ATen, not through the dispatcher: on the current device
        # without empty_cuda's device guard.
        assert _native._cuda_key_set(torch) != 0
        assert module.allocator() == ("at::detail::empty_generic on the "
                                      "current device, at::detail::empty_cuda "
                                      "elsewhere")
        # Its table is the one the call path uses from here on; the bound
        # module's goes back at the end.
        bound = _native._torch_tensors
        if bound:
            def rebind():
                fastcall.bind_tensors(bound.table(), _native._check_torch_tensors(
                    bound, _runtime.load_runtime(), torch))
            request.addfinalizer(rebind)
    elif module is False or module is None:
        # A module built for this torch's release must be in use.
        path = _native._beside_runtime(
            _native.torch_tensors_name(torch.__version__),
            _runtime.load_runtime().path)
        assert path is None or \
            os.environ.get("POINTWISE_TORCH_TENSORS", "1") in ("0", "no", ""), \
            "%s is built for torch %s but not in use" % (path,
                                                        torch.__version__)
        pytest.skip("no pointwise._torchtensors for torch %s here"
                    % torch.__version__)
    table = _native._check_torch_tensors(module, _runtime.load_runtime(),
                                         torch)
    assert table is not None and table[module.probe(b)[2]] is torch.float32
    # A device torch does not have: an error, not another device's stream.
    for missing in (torch.cuda.device_count() + 7, 300):
        with pytest.raises(RuntimeError):
            module.stream(missing)
    with pytest.raises(ValueError, match="no device"):
        module.stream(-1)

    def run_both(*args, **outputs):
        results = []
        for address in (module.table(), 0):
            fastcall.bind_tensors(address, table)
            try:
                results.append(two(*args, **outputs))
            finally:
                fastcall.bind_tensors(module.table(), table)
        return results

    for shape in [(64, 33), (1, 1), (2, 3, 4, 5), (0, 7), ()]:
        x, y = random(shape, torch.float16, 3), random(shape, torch.float32, 4)
        (s1, m1), (s2, m2) = run_both(x, y, -1.5)
        for s, m in ((s1, m1), (s2, m2)):
            assert s.dtype == torch.float32 and m.dtype == torch.bool
            assert s.shape == shape and s.is_contiguous()
            torch.testing.assert_close(s, x.float() * -1.5 + y)
            torch.testing.assert_close(m, x.float() > y)
        out = torch.empty(shape, device="cuda")
        (r, _), _ = run_both(x, y, 2.0, out0=out)
        assert r is out
        torch.testing.assert_close(out, x.float() * 2 + y)
        # Handed over: non-contiguous, mismatched shapes, CPU tensors.
        if len(shape) >= 2:
            xt, yt = x.transpose(0, 1), y.transpose(0, 1)
            (s1, _), (s2, _) = run_both(xt, yt, 1.0)
            torch.testing.assert_close(s1, s2)
            torch.testing.assert_close(s1, xt.float() + yt)
    with pytest.raises(ValueError, match="different devices"):
        two(a, b.cpu(), 1.0)
    # The current stream, as torch has it, also through the reader.
    stream = torch.cuda.Stream()
    x, y = random((512, 512), torch.float16, 5), random((512, 512),
                                                     torch.float32, 6)
    with torch.cuda.stream(stream):
        torch.cuda._sleep(1000000)  # the launch must queue behind this
        s, _ = two(x, y, 1.0)
    stream.synchronize()
    torch.testing.assert_close(s, x.float() + y)


_READER_USER = """
import torch, pointwise as pw
from pointwise import _native
@pw.pointwise(promotion_methods=[(0, 1, "DEFAULT")])
def add(x, y):
    return x + y
a = torch.arange(1024, dtype=torch.float32, device="cuda")
h = torch.arange(1024, dtype=torch.float16, device="cuda")
for _ in range(3):  # the general call plans; the C call reads then
    assert torch.equal(add(a, a), a * 2)
    assert torch.equal(add(h, a), h.float() + a)
print(_native.torch_tensors_table_origin, _native.torch_tensors_in_use(),
      _native.torch_tensors_reader())
"""


def _reader_user(tmp_path, reader):
    """The disk cache of `tmp_path` and a function that runs _READER_USER in
    a new process over it with POINTWISE_TORCH_TENSORS=`reader` (None: not
    set), returning its output's words."""
    import subprocess
    import sys
    cache = tmp_path / "cache"
    env = dict(os.environ, POINTWISE_CACHE_DIR=str(cache),
               POINTWISE_PROGRESS="0", PYTHONPATH=os.pathsep.join(sys.path))
    env.pop("POINTWISE_TORCH_TENSORS", None)
    if reader is not None:
        env["POINTWISE_TORCH_TENSORS"] = reader

    def run():
        done = subprocess.run([sys.executable, "-c", _READER_USER], env=env,
                              capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stderr
        return done.stdout.split()

    return cache, run


def test_torch_tensor_reader_verdict_is_kept_on_disk(tmp_path):
    """The reader's check runs in the first process that binds it; later
    processes take its dtype table from the disk cache, unless the kept
    table fails the guard (a damaged or foreign file), which checks again
    and rewrites it."""
    from pointwise import _native, _runtime
    path = _native._beside_runtime(
        _native.torch_tensors_name(torch.__version__),
        _runtime.load_runtime().path)
    if path is None or _native.fastcall(_runtime.load_runtime()) is None:
        pytest.skip("no pointwise._torchtensors for torch %s here"
                    % torch.__version__)
    cache, run = _reader_user(tmp_path, None)
    reader = ["pointwise._torchtensors"]
    assert run() == ["checked", "True"] + reader
    kept = [f for f in os.listdir(cache) if f.startswith("torchtensors-")]
    assert len(kept) == 1 and kept[0].endswith(".dtypes")
    kept = cache / kept[0]
    verdict = kept.read_text()
    names = verdict.split()
    assert "float32" in names and "float16" in names and "bfloat16" in names
    assert run() == ["disk", "True"] + reader
    # float32's code naming float64: the guard's probe refuses it.
    swapped = ["float64" if n == "float32" else
               "float32" if n == "float64" else n for n in names]
    for damaged in (" ".join(swapped), "not_a_dtype float32", "nn float32",
                    "", "\xff"):
        kept.write_bytes(damaged.encode("latin-1"))
        assert run() == ["checked", "True"] + reader, damaged
        assert kept.read_text() == verdict


_WRONG_KEYS_USER = """
import torch
from pointwise import _native, _runtime
runtime = _runtime.load_runtime()
found = _native._shim_reader(runtime, torch)
assert found is not None
shim = found[0]
print(shim.allocator().split()[0])
# Bound right, the check passes; a key set torch does not give CUDA
# tensors fails it. The shim binds once per process: it is rebound here by
# a second process of this script with the CPU's key set.
table = _native._check_torch_tensors(shim, runtime, torch)
print("passes" if table is not None else "fails")
"""


def test_torch_shim_allocations_dispatch_as_torchs(tmp_path):
    """pointwise._torchshim allocates outputs on the current device with the
    key set of a CUDA tensor that the package reads from torch; the check
    compares what its tensors dispatch on with a tensor torch made, so a
    wrong key set (the CPU's, whose kernels would run on device memory)
    fails it and leaves the calls reading attributes."""
    import subprocess
    import sys
    from pointwise import _native, _runtime
    if _native._beside_runtime(_native.TORCH_SHIM_NAME,
                               _runtime.load_runtime().path) is None:
        pytest.skip("no pointwise._torchshim here")
    env = dict(os.environ, POINTWISE_PROGRESS="0",
               PYTHONPATH=os.pathsep.join(sys.path))
    wrong = "_native._cuda_key_set = lambda torch: " \
        "torch._C.DispatchKeySet(torch._C.DispatchKey.CPU).raw_repr()\n"
    outputs = []
    for script in (_WRONG_KEYS_USER, _WRONG_KEYS_USER.replace(
            "runtime = ", wrong + "runtime = ")):
        done = subprocess.run([sys.executable, "-c", script], env=env,
                              capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stderr
        outputs.append(done.stdout.split())
    assert outputs == [["at::detail::empty_generic", "passes"],
                       ["at::detail::empty_generic", "fails"]]


_OTHER_DEVICE_USER = """
import torch, pointwise as pw
from pointwise import _native
@pw.pointwise(promotion_methods=[(0, 1, "DEFAULT")])
def add(x, y):
    return x + y
a = torch.arange(1000, dtype=torch.float32, device="cuda:1")
b = torch.full((1000,), 0.5, dtype=torch.float32, device="cuda:1")
want = (a + b).cpu()
with torch.cuda.device(0):
    for _ in range(3):  # the general call plans; the C call then
        got = add(a, b)
        assert got.device == a.device, got.device
        assert torch.cuda.current_device() == 0
        assert torch.equal(got.cpu(), want)
    here = add(a.to("cuda:0"), b.to("cuda:0"))
    assert here.device == torch.device("cuda:0") and \
        torch.equal(here.cpu(), want)
print(_native.torch_tensors_reader())
"""


@pytest.mark.skipif(torch.cuda.device_count() < 2, reason="one CUDA device")
@pytest.mark.parametrize("reader", ["1", "shim"])
def test_outputs_are_made_on_the_inputs_device(tmp_path, reader):
    """An allocating call whose inputs live on another device than the
    current one makes its outputs on the inputs' device (each reader's
    second way of allocating, with a device guard) and leaves the current
    device as it was."""
    import subprocess
    import sys
    from pointwise import _native, _runtime
    if _native.fastcall(_runtime.load_runtime()) is None:
        pytest.skip("no C call path here")
    env = dict(os.environ, POINTWISE_PROGRESS="0",
               POINTWISE_CACHE_DIR=str(tmp_path / "cache"),
               POINTWISE_TORCH_TENSORS=reader,
               PYTHONPATH=os.pathsep.join(sys.path))
    done = subprocess.run([sys.executable, "-c", _OTHER_DEVICE_USER], env=env,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    used = done.stdout.split()[-1]
    if reader == "shim":
        assert used == "pointwise._torchshim"
    else:
        assert used in ("pointwise._torchtensors", "pointwise._torchshim")


def test_torch_shim_reader_serves_calls_of_any_release(tmp_path):
    """With POINTWISE_TORCH_TENSORS=shim (what a torch release without its
    own pointwise._torchtensors gets), the calls read tensors through
    pointwise._torchshim, checked against torch's attributes in the first
    process and bound from the kept verdict in the next; its verdict is kept
    apart from the other reader's."""
    from pointwise import _native, _runtime
    if _native._beside_runtime(_native.TORCH_SHIM_NAME,
                               _runtime.load_runtime().path) is None or \
            _native.fastcall(_runtime.load_runtime()) is None:
        pytest.skip("no pointwise._torchshim here")
    cache, run = _reader_user(tmp_path, "shim")
    reader = ["pointwise._torchshim"]
    assert run() == ["checked", "True"] + reader
    assert run() == ["disk", "True"] + reader
    # The other reader, where it is built, keeps a verdict of its own.
    versioned = _native._beside_runtime(
        _native.torch_tensors_name(torch.__version__),
        _runtime.load_runtime().path)
    if versioned is not None:
        assert _reader_user(tmp_path, None)[1]() == [
            "checked", "True", "pointwise._torchtensors"]
    kept = [f for f in os.listdir(cache) if f.startswith("torchtensors-")]
    assert len(kept) == (2 if versioned else 1)


def test_sparse_tensors_are_refused():
    """Sparse CUDA tensors (COO and compressed rows), as inputs or outputs,
    are a TypeError naming their layout, on the C call path too: its
    readers turn them away (pointwise._torchshim asks the layout where the
    release exports aoti_torch_get_layout, and the strides refuse them
    otherwise) and the general call names the mistake."""
    @pw.pointwise(promotion_methods=[(0, 1, "DEFAULT")])
    def add_dense(x, y):
        return x + y

    import warnings
    dense = torch.arange(6.0, device="cuda").reshape(2, 3)
    with warnings.catch_warnings():  # "Sparse CSR tensor support is in beta"
        warnings.simplefilter("ignore", UserWarning)
        csr = dense.to_sparse_csr()
    for _ in range(2):  # the general call plans; the C call takes the next
        assert torch.equal(add_dense(dense, dense), dense * 2)
    for sparse, layout in ((dense.to_sparse(), "sparse_coo"),
                           (csr, "sparse_csr")):
        for _ in range(2):
            with pytest.raises(TypeError, match="%s tensors are not "
                               "supported" % layout):
                add_dense(sparse, dense)
            with pytest.raises(TypeError, match="%s tensors are not "
                               "supported" % layout):
                add_dense(dense, dense, out0=sparse)
    assert torch.equal(add_dense(dense, dense), dense * 2)


def test_zero_dim_tensors_promote_like_torch():
    """A 0-d tensor is PyTorch's own promotion class, below tensors with
    dims: float32 with a 0-d float64 stays float32, int32 with a 0-d float64
    becomes float64. A plan made by such a call must not serve later calls
    with full tensors of the same dtypes."""
    @pw.pointwise(promotion_methods=[(0, 1, "DEFAULT")])
    def add_zero_dim(x, y):
        return x + y

    cases = [(torch.float32, torch.float64), (torch.int32, torch.float64),
             (torch.int32, torch.int64), (torch.float16, torch.float32),
             (torch.bool, torch.int8), (torch.bfloat16, torch.float64)]
    for a_dtype, s_dtype in cases:
        a = random((5, 3), a_dtype, 3)
        s = random((), s_dtype, 4)
        for x, y in ((a, s), (s, a)):
            got = add_zero_dim(x, y)
            want = x + y
            assert got.dtype == want.dtype, (a_dtype, s_dtype)
            torch.testing.assert_close(got, want, rtol=tolerance(got.dtype),
                                       atol=tolerance(got.dtype))
        # Both 0-d, then full tensors of the same dtypes.
        both = add_zero_dim(s.to(a_dtype), s)
        assert both.dtype == (s.to(a_dtype) + s).dtype
        full = add_zero_dim(a, random((5, 3), s_dtype, 5))
        assert full.dtype == torch.promote_types(a_dtype, s_dtype)


def test_tensors_with_the_negative_bit():
    """x.conj().imag holds its values negated in memory: read as an input
    (resolved, as eager ops do), rejected as an output."""
    z = torch.complex(random((6, 4), torch.float32, 1),
                      random((6, 4), torch.float32, 2))
    imag = z.conj().imag
    assert imag.is_neg()
    other = random((6, 4), torch.float32, 3)
    torch.testing.assert_close(add(imag, other), imag + other)
    torch.testing.assert_close(copy(imag), -z.imag)
    negated = torch._neg_view(other)
    torch.testing.assert_close(copy(negated), -other)
    with pytest.raises(TypeError, match="negative or conjugate bit"):
        copy(other, out0=z.conj().imag)


def test_views_of_other_dtypes_do_not_change_later_calls():
    """A StridedBuffer that reads float32 memory as int32 compiles an int32
    kernel; a later call on the float32 tensor itself is float32."""
    @pw.pointwise(promotion_methods=[(0, "DEFAULT")])
    def identity(x):
        return x

    t = torch.tensor([1.5, 2.5], device="cuda")
    bits = identity(pw.StridedBuffer(t, dtype="int32"))
    assert bits.dtype == torch.int32
    assert bits.tolist() == t.view(torch.int32).tolist()
    for _ in range(3):  # the fast path too
        again = identity(t)
        assert again.dtype == torch.float32 and again.tolist() == [1.5, 2.5]


def test_functions_of_scalars_alone_fill_cuda_outputs():
    @pw.pointwise(is_tensor=[False], dtypes=[float],
                  promotion_methods=[(0, "DEFAULT")])
    def fill(v):
        return v

    out = torch.zeros(3, 5, device="cuda")
    fill(2.5, out0=out)
    assert torch.equal(out, torch.full((3, 5), 2.5, device="cuda"))
    transposed = torch.zeros(5, 3, device="cuda").t()
    fill(-1.0, out0=transposed)
    assert torch.equal(transposed, torch.full((3, 5), -1.0, device="cuda"))
