"""GPU correctness of compiled kernel families (pytest; CUDA machine only).

Runs the families of benchmarks/workloads.mlir (workloads.so) and of
test/Integration/GPU/kernels.mlir (kernels.so), built by
test/gpu-bundle/gpu-bundle.sh into gpu-bundle/, through the ctypes bindings
(python_bindings/pointwise), and compares every output element with PyTorch
(float64 references where rounding differs). Every output is poisoned (NaN,
or a sentinel for integers and bools) before each launch, and outputs that
are views of larger buffers must leave the rest of the buffer untouched.

Tests named ``*large*`` allocate gigabytes or run the benchmark sizes;
``-k "not large"`` skips them (the compute-sanitizer run of
test/gpu-bundle/gpu-run.sh does). The module is skipped when torch has no CUDA
device or the bundle is missing (set POINTWISE_BUNDLE to its directory).
"""

import itertools
import math
import os
import pathlib
import sys
import threading

import pytest

torch = pytest.importorskip("torch")
if not torch.cuda.is_available():
    pytest.skip("torch sees no CUDA device", allow_module_level=True)

HERE = pathlib.Path(__file__).resolve().parent


def _find_bundle():
    candidates = [os.environ.get("POINTWISE_BUNDLE"), HERE]
    if len(HERE.parents) > 2:
        candidates.append(HERE.parents[2] / "gpu-bundle")
    for candidate in candidates:
        if candidate and (pathlib.Path(candidate) / "workloads.so").is_file():
            return pathlib.Path(candidate)
    return None


BUNDLE = _find_bundle()
if BUNDLE is None:
    pytest.skip("no GPU bundle (workloads.so) found: run test/gpu-bundle/gpu-bundle.sh "
                "or set POINTWISE_BUNDLE", allow_module_level=True)
if (BUNDLE / "pointwise" / "_runtime.py").is_file():
    sys.path.insert(0, str(BUNDLE))
elif len(HERE.parents) > 2:
    sys.path.insert(0, str(HERE.parents[2] / "python_bindings"))

import pointwise as pw  # noqa: E402

W = pw.KernelLibrary(str(BUNDLE / "workloads.so"))
K = pw.KernelLibrary(str(BUNDLE / "kernels.so")) if (BUNDLE / "kernels.so").is_file() else None

add = W.family("add_f32")
axpy = W.family("axpy_f32")
copy = W.family("copy_f32")
gelu = W.family("gelu_tanh_f16")
add_bf16 = W.family("add_bf16_f32")
scale_shift = W.family("scale_shift_f32")
polar = W.family("polar_f32")

DEV = "cuda"
NAN = float("nan")


def kernels(name):
    if K is None:
        pytest.skip("kernels.so is not in the bundle")
    return K.family(name)


@pytest.fixture(autouse=True)
def _seed_and_sync():
    torch.manual_seed(1234)
    yield
    torch.cuda.synchronize()


# ===------------------------------------------------------------------------===
# Helpers: inputs, poisoned outputs, checks
# ===------------------------------------------------------------------------===

def rnd(*shape, dtype=torch.float32):
    return torch.randn(tuple(shape), device=DEV, dtype=torch.float32).to(dtype)


def _poison_value(dtype):
    if dtype.is_floating_point:
        return NAN
    if dtype == torch.bool:
        return None
    return {torch.int8: -77, torch.uint8: 0xA5, torch.int16: -12345,
            torch.int32: -0x5A5A5A5A, torch.int64: -0x5A5A5A5A5A5A5A5A}[dtype]


def poison(t):
    """Fills t (any view) with NaN, an integer sentinel, or for bools the
    byte 0xAB (not a valid bool: every written element becomes 0 or 1)."""
    value = _poison_value(t.dtype)
    if value is None:
        t.view(torch.uint8).fill_(0xAB)
    else:
        t.fill_(value)
    return t


class Out:
    """An output view of a (poisoned) buffer in one of several layouts, and a
    check that everything outside the view stays poisoned."""

    def __init__(self, shape, dtype=torch.float32, layout="contiguous"):
        shape = tuple(shape)
        self.shape, self.dtype, self.layout = shape, dtype, layout
        n = len(shape)
        if layout == "contiguous":
            base = torch.empty(shape, device=DEV, dtype=dtype)
            view = base
        elif layout == "transposed":       # reversed memory order
            base = torch.empty(shape[::-1], device=DEV, dtype=dtype)
            view = base.permute(*reversed(range(n)))
        elif layout == "sliced":           # offset 1, stride 2 on the last dim
            if n == 0:
                base = torch.empty(3, device=DEV, dtype=dtype)
                view = base[1]
            else:
                base = torch.empty(shape[:-1] + (2 * shape[-1] + 1,),
                                   device=DEV, dtype=dtype)
                view = base[..., 1::2]
        elif layout == "channels_last":
            base = torch.empty((shape[0], shape[2], shape[3], shape[1]),
                               device=DEV, dtype=dtype)
            view = base.permute(0, 3, 1, 2)
        elif layout == "offset":           # starts 3 elements into a buffer
            numel = math.prod(shape)
            base = torch.empty(numel + 5, device=DEV, dtype=dtype)
            view = base[3:3 + numel].view(shape)
        else:
            raise ValueError(layout)
        assert tuple(view.shape) == shape
        self.base, self.view = base, view
        poison(base)
        self.mask = torch.zeros(base.shape, dtype=torch.bool, device=DEV)
        if base.numel():
            self.mask.as_strided(view.shape, view.stride(),
                                 view.storage_offset() - base.storage_offset()
                                 ).fill_(True)

    def check(self, ref, atol=0.0, rtol=0.0):
        check_close(self.view, ref, atol, rtol)
        # Bools are compared as raw bytes: the poison byte is no valid bool.
        base = self.base.view(torch.uint8) if self.dtype == torch.bool else self.base
        outside = base[~self.mask]
        if outside.numel():
            if self.dtype == torch.bool:
                assert bool((outside == 0xAB).all()), \
                    "elements outside the output view were written"
            elif self.dtype.is_floating_point:
                assert bool(torch.isnan(outside).all()), \
                    "elements outside the output view were written"
            else:
                assert bool((outside == _poison_value(self.dtype)).all()), \
                    "elements outside the output view were written"


def check_close(out, ref, atol=0.0, rtol=0.0):
    """Every element of out against ref (ref may be of a wider dtype)."""
    assert tuple(out.shape) == tuple(ref.shape)
    if out.dtype == torch.bool:
        raw = out.view(torch.uint8).contiguous()
        bad = ~((raw == 0) | (raw == 1))
        assert not bool(bad.any()), "%d elements unwritten (poison left)" % int(bad.sum())
        assert torch.equal(raw.bool(), ref.to(torch.bool))
        return
    if not out.dtype.is_floating_point:
        assert torch.equal(out, ref.to(out.dtype)), _mismatch(out, ref.to(out.dtype))
        return
    nans = torch.isnan(out) & ~torch.isnan(ref)
    assert not bool(nans.any()), "%d of %d elements unwritten (NaN poison left)" % (
        int(nans.sum()), out.numel())
    if atol == 0 and rtol == 0:
        assert torch.equal(out, ref.to(out.dtype)), _mismatch(out, ref)
    else:
        torch.testing.assert_close(out.double(), ref.double(), atol=atol,
                                   rtol=rtol, equal_nan=True)


def _mismatch(out, ref):
    diff = (out.double() - ref.double()).abs()
    diff[torch.isnan(diff)] = math.inf
    index = int(diff.argmax()) if diff.numel() else 0
    return "max abs diff %g at flat index %d of %d" % (
        float(diff.max()) if diff.numel() else 0.0, index, out.numel())


def variant(family):
    """The variant the last launch chose, through last_variant() and the
    family's describe() table; None when nothing was launched."""
    index = pw.last_variant()
    if index < 0:
        return None
    return family.describe()["variants"][index]


def layout_input(values, layout):
    """A view with the values of `values` (a contiguous tensor) in `layout`."""
    n = values.dim()
    if layout == "contiguous":
        return values
    if layout == "transposed":     # stored in reversed dim order
        return values.permute(*reversed(range(n))).contiguous().permute(
            *reversed(range(n)))
    if layout == "offset1":
        flat = torch.empty(values.numel() + 4, device=DEV, dtype=values.dtype)
        view = flat[1:1 + values.numel()].view(values.shape)
        view.copy_(values)
        return view
    if layout == "offset3":
        flat = torch.empty(values.numel() + 4, device=DEV, dtype=values.dtype)
        view = flat[3:3 + values.numel()].view(values.shape)
        view.copy_(values)
        return view
    if layout == "step2":          # every other element of the last dim
        big = torch.empty(values.shape[:-1] + (2 * values.shape[-1],),
                          device=DEV, dtype=values.dtype)
        view = big[..., ::2]
        view.copy_(values)
        return view
    if layout == "step3first":     # every third row of the first dim
        big = torch.empty((3 * values.shape[0],) + values.shape[1:],
                          device=DEV, dtype=values.dtype)
        view = big[::3]
        view.copy_(values)
        return view
    raise ValueError(layout)


# ===------------------------------------------------------------------------===
# Contiguous operands, all ranks and sizes
# ===------------------------------------------------------------------------===

SHAPES = [(0,), (1,), (2,), (3,), (7,), (31,), (64,), (1023,), (1024,),
          (1025,), (4097,), ((1 << 20) + 3,), (), (0, 5), (5, 0), (1, 1),
          (7, 13), (3, 0, 2), (3, 5, 7), (1, 1, 1), (2, 3, 5, 7),
          (1, 1, 1, 1), (2, 1, 3, 1), (1, 4097), (4097, 1)]


@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_add_contiguous(shape):
    a, b = rnd(*shape), rnd(*shape)
    out = Out(shape)
    add(a, b, out.view)
    out.check(a + b)
    v = variant(add)
    if a.numel() == 0:
        assert v is None, "an empty launch ran variant %r" % (v,)
    else:
        assert v["strategy"] == "linear" and v["rank"] == 1, v
        assert v["index_bitwidth"] == 32, v


@pytest.mark.parametrize("n", [1, 5, 33, 1023, 4097, 65539])
@pytest.mark.parametrize("layouts", [("offset1", "contiguous", "contiguous"),
                                     ("offset3", "offset1", "contiguous"),
                                     ("contiguous", "offset3", "offset"),
                                     ("offset1", "offset1", "offset")], ids=str)
def test_add_offsets(n, layouts):
    """Views starting 1 or 3 elements into their buffers (not 16-byte
    aligned), in every combination with aligned ones."""
    a = layout_input(rnd(n), layouts[0])
    b = layout_input(rnd(n), layouts[1])
    out = Out((n,), layout=layouts[2])
    add(a, b, out.view)
    out.check(a + b)


@pytest.mark.parametrize("shape", [(5,), (33, 65), (3, 5, 7), (2, 3, 4, 5)], ids=str)
def test_axpy_scalars(shape):
    x, y = rnd(*shape), rnd(*shape)
    for alpha in (0.2, -3, 0, 1e30):
        out = Out(shape)
        axpy(x, y, alpha, out.view)
        ref = x.double() * torch.tensor(alpha, dtype=torch.float32).double() + y.double()
        out.check(ref, atol=1e-6, rtol=1e-6)


# ===------------------------------------------------------------------------===
# Broadcasting
# ===------------------------------------------------------------------------===

BROADCASTS = [
    ((33, 47), (47,)),          # row
    ((33, 47), (33, 1)),        # column
    ((33, 47), (1, 1)),         # scalar-like
    ((33, 47), ()),             # rank 0
    ((10, 1, 10), (1, 10, 1)),  # both sides broadcast
    ((3, 1, 5), (4, 1)),
    ((0, 5), (5,)),
    ((1,), (1023,)),
    ((257, 1025), (1025,)),
    ((257, 1025), (257, 1)),
    ((2, 3, 4, 5), (3, 1, 5)),
    ((2, 1, 4, 1), (1, 3, 1, 5)),
]


@pytest.mark.parametrize("shapes", BROADCASTS, ids=str)
@pytest.mark.parametrize("swap", [False, True])
def test_add_broadcast(shapes, swap):
    sa, sb = shapes
    if swap:
        sa, sb = sb, sa
    a, b = rnd(*sa), rnd(*sb)
    ref = a + b
    out = Out(ref.shape)
    add(a, b, out.view)
    out.check(ref)


@pytest.mark.parametrize("shape", [(33, 47), (4, 5, 6), (2, 3, 4, 5)], ids=str)
def test_add_expanded(shape):
    """Broadcasts through explicit stride-0 views (expand)."""
    row = rnd(shape[-1])
    col = rnd(shape[0], *([1] * (len(shape) - 1)))
    a = row.expand(*shape)
    b = col.expand(*shape)
    assert 0 in a.stride() and 0 in b.stride()
    out = Out(shape)
    add(a, b, out.view)
    out.check(a + b)


def test_bcast_row_variant():
    a, r = rnd(512, 1024), rnd(1024)
    out = Out(a.shape)
    add(a, r, out.view)
    out.check(a + r)
    v = variant(add)
    assert v["strategy"] == "linear" and v["rank"] == 2, v


@pytest.mark.parametrize("pitch,offset,expected", [
    (1025, 0, "linear-narrow"),   # rows 4 bytes further off 16 each time
    (1028, 1, "linear-narrow"),   # aligned pitch, first element 4 bytes off
    (1028, 0, "linear"),          # every row 16-byte aligned
])
def test_rows_off_16_bytes_take_the_narrow_variant(pitch, offset, expected):
    """Rows sliced from a wider buffer (x[:, :1024] of a 1025-float pitch):
    the 8-byte-vector variant where an operand's rows are not 16-byte
    aligned, with the same values as the reference."""
    a = rnd(300, pitch)[:, offset:offset + 1024]
    b = rnd(300, 1024)
    out = Out(a.shape)
    add(a, b, out.view)
    out.check(a + b)
    v = variant(add)
    assert v["rank"] == 2 and v["strategy"] == expected, v
    # The rank5_sliced layout: rows of 64 floats at a pitch of 65.
    x = rnd(2, 3, 5, 64, 65)[:, :, 1:, :, :-1]
    o = Out(x.shape)
    scale_shift(x, 3.0, 1.0, o.view)
    o.check(x * 3.0 + 1.0)
    v = variant(scale_shift)
    assert v["strategy"] == "linear-narrow" and v["rank"] == 3, v


# ===------------------------------------------------------------------------===
# Transposed and permuted operands, non-contiguous outputs
# ===------------------------------------------------------------------------===

@pytest.mark.parametrize("shape", [(33, 65), (512, 512), (1000, 3), (3, 1000),
                                   (1, 77), (2048, 40)], ids=str)
@pytest.mark.parametrize("out_layout", ["contiguous", "transposed", "sliced"])
def test_add_transposed(shape, out_layout):
    m, n = shape
    a = rnd(m, n)
    b = rnd(n, m)
    out = Out((m, n), layout=out_layout)
    add(a, b.t(), out.view)
    out.check(a + b.t())


def test_add_transposed_variant():
    a, b = rnd(512, 512), rnd(512, 512)
    out = Out((512, 512))
    add(a, b.t(), out.view)
    out.check(a + b.t())
    v = variant(add)
    assert v["strategy"] == "transpose", v
    assert v["rank"] == 2 and v["transposed_argument"] == 1, v


@pytest.mark.parametrize("shape", [(33, 65), (1024, 2048), (5, 3)], ids=str)
def test_transpose_copy(shape):
    b = rnd(*shape)
    out = Out(shape[::-1])
    copy(b.t(), out.view)
    out.check(b.t())
    if shape[0] >= 32 and shape[1] >= 32:
        v = variant(copy)
        assert v["strategy"] == "transpose" and v["transposed_argument"] == 0, v


@pytest.mark.parametrize("perm", list(itertools.permutations(range(3))), ids=str)
@pytest.mark.parametrize("out_layout", ["contiguous", "transposed"])
def test_add_permuted_3d(perm, out_layout):
    shape = (17, 33, 9)
    a = rnd(*shape)
    stored = rnd(*[shape[p] for p in perm])
    inverse = [perm.index(d) for d in range(3)]
    b = stored.permute(*inverse)          # shape `shape`, memory order `perm`
    assert tuple(b.shape) == shape
    out = Out(shape, layout=out_layout)
    add(a, b, out.view)
    out.check(a + b)


@pytest.mark.parametrize("perm", [(0, 2, 3, 1), (0, 3, 1, 2), (3, 2, 1, 0),
                                  (1, 0, 3, 2), (2, 0, 3, 1)], ids=str)
def test_add_permuted_4d(perm):
    shape = (3, 8, 5, 7)
    a = rnd(*shape)
    stored = rnd(*[shape[p] for p in perm])
    b = stored.permute(*[perm.index(d) for d in range(4)])
    out = Out(shape)
    add(a, b, out.view)
    out.check(a + b)


@pytest.mark.parametrize("out_layout", ["contiguous", "channels_last"])
def test_nchw_plus_nhwc(out_layout):
    x = rnd(4, 32, 14, 14)
    y = rnd(4, 32, 14, 14).contiguous(memory_format=torch.channels_last)
    out = Out(x.shape, layout=out_layout)
    add(x, y, out.view)
    out.check(x + y)
    if out_layout == "contiguous":
        v = variant(add)
        assert v["strategy"] == "transpose" and v["transposed_argument"] == 1, v
        assert v["rank"] == 3, v


# ===------------------------------------------------------------------------===
# Strided slices, negative strides
# ===------------------------------------------------------------------------===

@pytest.mark.parametrize("case", ["cols2", "rows3", "both", "flat2", "flat3"])
@pytest.mark.parametrize("out_layout", ["contiguous", "sliced"])
def test_add_strided_slices(case, out_layout):
    if case == "cols2":
        a = rnd(65, 2 * 129)[:, ::2]
    elif case == "rows3":
        a = rnd(3 * 65, 129)[::3, :]
    elif case == "both":
        a = rnd(2 * 65, 3 * 129)[::2, ::3]
    elif case == "flat2":
        a = rnd(2 * 4097)[::2]
    else:
        a = rnd(3 * 1023 + 1)[1::3]
    b = rnd(*a.shape)
    out = Out(a.shape, layout=out_layout)
    add(a, b, out.view)
    out.check(a + b)


@pytest.mark.parametrize("shape,dims", [((1023,), (0,)), ((4097,), (0,)),
                                        ((33, 65), (0, 1)), ((33, 65), (0,)),
                                        ((33, 65), (1,)), ((512, 512), (0, 1)),
                                        ((3, 5, 7), (0, 2))], ids=str)
def test_copy_flip(shape, dims):
    x = rnd(*shape)
    out = Out(shape)
    copy(pw.Strided.flip(x, dims), out.view)
    out.check(torch.flip(x, dims))
    if len(dims) == len(shape):
        v = variant(copy)
        assert v["strategy"] == "linear" and v["rank"] == 1, v


def test_add_flipped_input_and_output():
    a, b = rnd(33, 65), rnd(33, 65)
    out = Out((33, 65))
    # out flipped in both dims: out_flip[i, j] = out[32 - i, 64 - j]
    add(pw.Strided.flip(a, (0,)), b, pw.Strided.flip(out.view, (0, 1)))
    out.check(torch.flip(torch.flip(a, (0,)) + b, (0, 1)))


# ===------------------------------------------------------------------------===
# The other workload families
# ===------------------------------------------------------------------------===

@pytest.mark.parametrize("sliced", [True, False])
@pytest.mark.parametrize("out_layout", ["contiguous", "transposed"])
def test_scale_shift_rank5(sliced, out_layout):
    base = rnd(2, 3, 9, 16, 17)
    x = base[:, :, 1:, :, :-1] if sliced else base
    out = Out(x.shape, layout=out_layout)
    scale_shift(x, 3.0, 1, out.view)
    out.check(x.double() * 3.0 + 1.0, atol=1e-6, rtol=1e-6)


def test_scale_shift_lower_rank():
    x = rnd(7, 9)
    out = Out((7, 9))
    scale_shift(x, -0.5, 2.0, out.view)
    out.check(x.double() * -0.5 + 2.0, atol=1e-6, rtol=1e-6)


@pytest.mark.parametrize("shape,layout", [
    ((1023,), "contiguous"), ((4097,), "offset1"), ((64, 33), "transposed"),
    (((1 << 20) + 1,), "contiguous"), ((3, 5, 7, 9), "step2")], ids=str)
def test_gelu_f16(shape, layout):
    x = layout_input(rnd(*shape, dtype=torch.float16) * 3, layout)
    out = Out(shape, dtype=torch.float16)
    gelu(x, out.view)
    ref = torch.nn.functional.gelu(x.float(), approximate="tanh")
    out.check(ref, atol=1e-2, rtol=1e-2)


@pytest.mark.parametrize("shapes", [((1023,), (1023,)), ((4097,), (4097,)),
                                    ((129,), (65, 129)), ((65, 129), (65, 1))],
                         ids=str)
def test_add_bf16_f32(shapes):
    a = rnd(*shapes[0], dtype=torch.bfloat16)
    b = rnd(*shapes[1])
    ref = a.float() + b
    out = Out(ref.shape)
    add_bf16(a, b, out.view)
    out.check(ref)


def test_add_bf16_f32_transposed():
    a = rnd(96, 64, dtype=torch.bfloat16)
    b = rnd(64, 96)
    out = Out((64, 96))
    add_bf16(a.t(), b, out.view)
    out.check(a.t().float() + b)


@pytest.mark.parametrize("shape", [(1023,), (4097,), (33, 65)], ids=str)
@pytest.mark.parametrize("layouts", [("contiguous", "contiguous"),
                                     ("contiguous", "transposed"),
                                     ("sliced", "offset")], ids=str)
def test_polar_two_outputs(shape, layouts):
    r = rnd(*shape).abs()
    t = rnd(*shape) * 4
    if len(shape) == 2:
        t = t.t().contiguous().t()        # a transposed input
    ox = Out(shape, layout=layouts[0])
    oy = Out(shape, layout=layouts[1])
    polar(r, t, ox.view, oy.view)
    ox.check(r.double() * torch.cos(t.double()), atol=1e-5, rtol=1e-5)
    oy.check(r.double() * torch.sin(t.double()), atol=1e-5, rtol=1e-5)


# ===------------------------------------------------------------------------===
# In place
# ===------------------------------------------------------------------------===

def test_copy_in_place_exact_alias():
    x = rnd(1023)
    before = x.clone()
    copy(x, x)
    torch.cuda.synchronize()
    assert torch.equal(x, before)


def test_axpy_in_place_on_y():
    x, y = rnd(33, 65), rnd(33, 65)
    ref = x.double() * 0.5 + y.double()
    axpy(x, y, 0.5, y)                 # out exactly aliases input y
    check_close(y, ref, atol=1e-6, rtol=1e-6)


def test_add_in_place_transposed_alias():
    a, b = rnd(65, 33).t(), rnd(33, 65)   # a transposed view, written in place
    ref = a + b
    add(a, b, a)
    check_close(a, ref)


def test_partial_overlap_is_rejected():
    buffer = rnd(1025)
    out_before = buffer.clone()
    with pytest.raises(pw.PointwiseError) as info:
        add(buffer[1:], buffer[1:], buffer[:-1])
    assert info.value.status == pw.PW_ERROR_LAYOUT and info.value.message
    torch.cuda.synchronize()
    assert torch.equal(buffer, out_before), "a rejected launch wrote its output"


def test_tensors_with_the_negative_bit_are_rejected():
    # x.conj().imag holds its values negated: a family (which copies nothing)
    # rejects it on both call paths instead of reading the memory as is.
    z = torch.complex(rnd(64), rnd(64))
    imag = z.conj().imag
    out = torch.zeros(64, device=DEV)
    for call in (add, lambda *a: add._general_call(*a)):
        with pytest.raises(TypeError, match="negative or conjugate bit"):
            call(imag, imag, out)
    assert torch.count_nonzero(out) == 0
    add(imag.resolve_neg(), imag.resolve_neg(), out)
    assert torch.equal(out, imag + imag)


def test_interleaved_views_that_share_no_element_run():
    # a[1::2] = a[::2] + a[::2], column 0 of a matrix from column 1, and odd
    # elements from even ones at other strides: the byte ranges intersect,
    # the elements do not (docs/Layout.md).
    buffer = rnd(2048)
    expected = buffer.clone()
    expected[1::2] = buffer[::2] + buffer[::2]
    add(buffer[::2], buffer[::2], buffer[1::2])
    torch.cuda.synchronize()
    assert torch.equal(buffer, expected)
    matrix = rnd(300, 7)
    expected = matrix.clone()
    expected[:, 0] = matrix[:, 1] + matrix[:, 2]
    add(matrix[:, 1], matrix[:, 2], matrix[:, 0])
    torch.cuda.synchronize()
    assert torch.equal(matrix, expected)
    # Shifted by one row: row r of the output is row r + 1 of the input.
    with pytest.raises(pw.PointwiseError) as info:
        add(matrix[1:, 1], matrix[1:, 1], matrix[:-1, 1])
    assert info.value.status == pw.PW_ERROR_LAYOUT
    # Different strides: a[1::4] = a[0:1024:2] + a[2:1026:2], odd elements
    # from even ones (apart modulo the gcd of the strides, 2 elements).
    buffer = rnd(2048)
    expected = buffer.clone()
    expected[1::4] = buffer[0:1024:2] + buffer[2:1026:2]
    add(buffer[0:1024:2], buffer[2:1026:2], buffer[1::4])
    torch.cuda.synchronize()
    assert torch.equal(buffer, expected)
    # a[0:9:3] = a[1:12:4] (elements 0, 3, 6 and 1, 5, 9): no shared element
    # either, but a gcd of one element: rejected, conservatively.
    with pytest.raises(pw.PointwiseError) as info:
        add(buffer[1:12:4], buffer[1:12:4], buffer[0:9:3])
    assert info.value.status == pw.PW_ERROR_LAYOUT


# ===------------------------------------------------------------------------===
# kernels.mlir: rank 6 and every element type
# ===------------------------------------------------------------------------===

@pytest.mark.parametrize("seed", range(6))
def test_add_rank6_permuted(seed):
    f = kernels("add_f32_r6")
    g = torch.Generator().manual_seed(seed)
    shape = (2, 3, 4, 5, 3, 7)
    perm_a = torch.randperm(6, generator=g).tolist()
    perm_o = torch.randperm(6, generator=g).tolist()
    a = rnd(*[shape[p] for p in perm_a]).permute(*[perm_a.index(d) for d in range(6)])
    b = rnd(*shape[2:])                           # broadcast over 2 dims
    out_base = poison(torch.empty([shape[p] for p in perm_o], device=DEV))
    out = out_base.permute(*[perm_o.index(d) for d in range(6)])
    f(a, b, out)
    check_close(out, a + b)


def test_rank_above_declared():
    x = rnd(2, 1, 3, 4, 5)                     # rank 5 into a rank-4 family
    with pytest.raises(ValueError, match="rank"):
        copy(x, torch.empty_like(x))
    y = rnd(1, 1, 3, 4, 5, 6)                  # leading 1s are dropped
    out = Out(y.shape)
    copy(y, out.view)
    out.check(y)


@pytest.mark.parametrize("layout", ["contiguous", "transposed"])
def test_muladd_i32_wraps(layout):
    f = kernels("muladd_i32")
    x = torch.randint(-2**31, 2**31 - 1, (17, 33, 5), device=DEV, dtype=torch.int32)
    y = torch.randint(-2**31, 2**31 - 1, (33, 5), device=DEV, dtype=torch.int32)
    out = Out((17, 33, 5), dtype=torch.int32, layout=layout)
    k = 123457
    f(x, y, k, out.view)
    wide = x.long() * k + y.long()
    ref = ((wide + 2**31) % 2**32) - 2**31
    out.check(ref)


@pytest.mark.parametrize("name", ["uint32", "int32"])
def test_c_call_reads_unsigned_tensors(name, monkeypatch):
    """An i32 family takes uint32 tensors (integers are signless) through
    the C call, whose tensor reader maps torch's unsigned dtypes: the
    general call, made to fail here, is not used."""
    dtype = getattr(torch, name, None)
    f = kernels("muladd_i32")
    if dtype is None or not _c_call_in_use(f):
        pytest.skip("no torch.%s or no C call here" % name)

    def general_call_launch(*args):
        raise AssertionError("handed over to the general call")
    monkeypatch.setattr(f, "_launch", general_call_launch)
    x = torch.randint(-2**31, 2**31 - 1, (17, 33, 5), device=DEV,
                      dtype=torch.int32)
    y = torch.randint(-2**31, 2**31 - 1, (33, 5), device=DEV, dtype=torch.int32)
    # A transposed output, so that the layout is not a dense copy's.
    out = torch.full((5, 33, 17), -1, device=DEV, dtype=torch.int32)
    out = out.permute(2, 1, 0)
    k = 77777
    f(x.view(dtype), y.view(dtype), k, out.view(dtype))
    wide = x.long() * k + y.long()
    assert torch.equal(out.long(), ((wide + 2**31) % 2**32) - 2**31)


@pytest.mark.parametrize("n", [0, 1, 3, 31, -1, -2])
def test_integer_powers(n):
    """math.ipowi (wrapping at 32 bits) and math.fpowi in one family."""
    f = kernels("powers_i32")
    x = torch.randint(-5, 6, (7, 9, 5), device=DEV, dtype=torch.int32)
    if n < 0:
        x[x == 0] = 3  # 0 to a negative power is undefined
    y = rnd(7, 9, 5)
    out = Out((7, 9, 5), dtype=torch.int32, layout="transposed")
    fout = Out((7, 9, 5))
    f(x, y, n, out.view, fout.view)
    wide = x.long()
    if n >= 0:
        ref = torch.ones_like(wide)
        for _ in range(n):
            ref = ((ref * wide + 2**31) % 2**32) - 2**31
    else:
        ref = torch.where(wide == 1, 1, torch.where(wide == -1, (-1) ** -n, 0))
    out.check(ref.int())
    # f32 flushes what falls below its normal range (small |y| to the 31st).
    fout.check(y.double() ** n, rtol=1e-5, atol=1e-37)


def test_sub_i64_wide_values():
    f = kernels("sub_i64")
    x = torch.randint(-2**60, 2**60, (65, 129), device=DEV, dtype=torch.int64)
    y = torch.randint(-2**60, 2**60, (129,), device=DEV, dtype=torch.int64)
    out = Out((65, 129), dtype=torch.int64, layout="sliced")
    f(x, y, -(1 << 40), out.view)
    out.check(x - y - (1 << 40))


def test_fma_f64():
    f = kernels("fma_f64")
    x = rnd(9, 17, 33, dtype=torch.float64)
    y = rnd(17, 1, dtype=torch.float64)
    out = Out((9, 17, 33), dtype=torch.float64, layout="transposed")
    f(x, y, 0.1, out.view)
    out.check(x * 0.1 + y, atol=1e-14, rtol=1e-14)


@pytest.mark.parametrize("out_layout", ["contiguous", "transposed", "sliced"])
def test_greater_f32_bool_output(out_layout):
    f = kernels("greater_f32")
    x, y = rnd(7, 33, 65), rnd(33, 1)
    out = Out((7, 33, 65), dtype=torch.bool, layout=out_layout)
    f(x, y, out.view)
    out.check(x > y)


def test_where_f64_bool_input():
    f = kernels("where_f64")
    c = rnd(5, 33, 65) > 0
    a = rnd(5, 33, 65, dtype=torch.float64)
    b = rnd(65, dtype=torch.float64)
    out = Out((5, 33, 65), dtype=torch.float64)
    f(c.transpose(0, 2).contiguous().transpose(0, 2), a, b, out.view)
    out.check(torch.where(c, a, b))


def test_widen_i8_i16():
    f = kernels("widen_i8_i16")
    a = torch.randint(-128, 128, (65, 129), device=DEV, dtype=torch.int8)
    b = torch.randint(-2**15, 2**15, (129, 65), device=DEV, dtype=torch.int16).t()
    out = Out((65, 129))
    f(a, b, out.view)
    out.check(a.float() + b.float())
    # Signless: uint8 bytes are read as i8 by sitofp.
    u = a.view(torch.uint8)
    out2 = Out((65, 129))
    f(u, b, out2.view)
    out2.check(a.float() + b.float())


@pytest.mark.parametrize("s", [1.5, 0.1, -2])
def test_scale_f16_scalar(s):
    f = kernels("scale_f16")
    x = rnd(33, 65, dtype=torch.float16)
    out = Out((33, 65), dtype=torch.float16, layout="transposed")
    f(x, s, out.view)
    ref = x.float() * torch.tensor(s, dtype=torch.float16).float()
    out.check(ref, atol=1e-3, rtol=1e-3)


@pytest.mark.parametrize("flag", [True, False])
def test_scale_bf16_i1_scalar(flag):
    f = kernels("scale_bf16")
    x = rnd(33, 65, dtype=torch.bfloat16)
    out = Out((33, 65), dtype=torch.bfloat16)
    f(x, 2.5, flag, out.view)
    ref = (x.float() * 2.5).to(torch.bfloat16) if flag else x
    out.check(ref.float())


def test_bf16_scalar_library():
    path = BUNDLE / "kernels-bf16-scalar.so"
    if not path.is_file():
        pytest.skip("kernels-bf16-scalar.so is not in the bundle")
    # The host code converts the scalar with __truncsfbf2, which the runtime
    # exports (Debian 12's libgcc lacks it).
    lib = pw.KernelLibrary(str(path))
    f = lib.family("scale_bf16_scalar")
    x = rnd(33, 65, dtype=torch.bfloat16)
    out = Out((33, 65), dtype=torch.bfloat16)
    f(x, 1.5, out.view)
    out.check((x.float() * 1.5).to(torch.bfloat16).float(), atol=1e-2, rtol=1e-2)


def test_inc_in_place_family():
    f = kernels("inc_inplace_f32")
    a = rnd(65, 33)
    ref = a + 2.5
    f(a, 2.5)
    check_close(a, ref)
    b = rnd(33, 65).t()                # transposed, in place
    ref = b + 1
    f(b, 1)
    check_close(b, ref)


def test_static_sizes():
    f = kernels("add_static_f32")
    a, b = rnd(4, 37), rnd(4, 37)
    out = Out((4, 37))
    f(a, b, out.view)
    out.check(a + b)
    with pytest.raises(ValueError, match="declares 4"):
        f(rnd(3, 37), rnd(3, 37), torch.empty(3, 37, device=DEV))


def test_static_strides_and_offsets(monkeypatch):
    """A family whose types fix strides and an offset runs on views with
    them (any row pitch, the declared offset carried by the descriptor) and
    rejects others: the kernels would not read what the type promises."""
    f = kernels("scale_rows_f32")
    x, out = f.arguments[0], f.arguments[2]
    assert (x.static_strides, x.static_offset) == ((None, 1), 2)
    assert (out.static_strides, out.static_offset) == ((None, 1), 0)
    base = rnd(40, 70)
    # Rows at a pitch of 70, from elements 215 and 0; one row from element
    # 7; one column of stride 70 (a dim of one element: any stride).
    for view in (base[3:, 5:66], base[:, :64], rnd(1, 1000)[:, 7:],
                 base.t()[:, 3:4]):
        out = torch.full(view.shape, float("nan"), device=DEV)
        f(view, -1.5, out)
        check_close(out, view * -1.5)
    out = torch.empty(70, 40, device=DEV)
    with pytest.raises(ValueError, match="declares 1"):
        f(base.t(), 2.0, out)
    with pytest.raises(ValueError, match="argument #2: has stride 40 in dim 1"):
        f(base, 2.0, torch.empty(70, 40, device=DEV).t())
    # Past the Python checks, the runtime's: a descriptor that contradicts
    # the type is a layout error, not a kernel reading other elements.
    monkeypatch.setattr(f, "_check_static",
                        lambda index, sizes, strides, pointer, offset:
                        (pointer, offset))
    e = expect_layout_error(f._general_call, base.t(), 2.0, out)
    assert "argument 0 dim 1 has stride 70 but the function declares 1" \
        in e.message


def test_32_bit_indices_at_the_2_31_boundary():
    """2^31 - 1 bytes from an odd address: the runtime picks 32-bit
    indices, the vector path peels a head of 15 elements, and the last
    block's elements past the end reach 2^31 + 14. They must fail the bounds
    test (a signed compare took them for negative, in-range indices and
    wrote before the buffer)."""
    n = 2**31 - 1
    f = kernels("inc_i8")
    x = torch.zeros(n + 1, dtype=torch.int8, device=DEV)[1:]
    guarded = torch.full((n + 64,), 7, dtype=torch.int8, device=DEV)
    out = guarded[1:n + 1]
    f(x, out)
    torch.cuda.synchronize()
    v = variant(f)
    assert (v["rank"], v["index_bitwidth"], v["strategy"]) == \
        (1, 32, "linear"), v
    assert bool((out == 1).all())
    assert guarded[0].item() == 7
    assert bool((guarded[n + 1:] == 7).all())
    del x, guarded, out
    torch.cuda.empty_cache()


# ===------------------------------------------------------------------------===
# Errors
# ===------------------------------------------------------------------------===

def expect_layout_error(call, *args):
    with pytest.raises(pw.PointwiseError) as info:
        call(*args)
    e = info.value
    assert e.status == pw.PW_ERROR_LAYOUT, (e.status_name, e.message)
    assert e.message, "no error message"
    return e


def test_shapes_that_do_not_broadcast():
    out = Out((3, 4))
    e = expect_layout_error(add, rnd(3, 4), rnd(5, 4), out.view)
    assert "broadcast" in e.message, e.message
    torch.cuda.synchronize()
    assert bool(torch.isnan(out.base).all()), "a rejected launch wrote its output"


def test_output_of_the_wrong_shape():
    expect_layout_error(add, rnd(3, 4), rnd(3, 4), torch.empty(4, 3, device=DEV))
    expect_layout_error(add, rnd(3, 4), rnd(3, 4), torch.empty(1, 4, device=DEV))


def test_polar_same_output_twice():
    r, t = rnd(1023), rnd(1023)
    o = torch.empty(1023, device=DEV)
    expect_layout_error(polar, r, t, o, o)


def test_outputs_overlapping_each_other():
    r, t = rnd(1023), rnd(1023)
    o = torch.empty(1024, device=DEV)
    expect_layout_error(polar, r, t, o[:1023], o[1:])


def test_output_with_stride_zero():
    out = torch.empty(1, 4, device=DEV).expand(3, 4)
    expect_layout_error(add, rnd(3, 4), rnd(3, 4), out)


def test_misaligned_pointer():
    buffer = torch.zeros(1025, device=DEV)
    misaligned = pw.Strided(buffer.data_ptr() + 2, (1024,), (1,), 0, "f32",
                            owner=buffer)
    out = Out((1024,))
    e = expect_layout_error(add, misaligned, rnd(1024), out.view)
    assert "align" in e.message.lower(), e.message
    expect_layout_error(copy, rnd(1024), misaligned)


def test_null_data():
    expect_layout_error(copy, pw.Strided(0, (4,), (1,)), torch.empty(4, device=DEV))


def test_null_data_empty_is_fine():
    copy(pw.Strided(0, (0,), (1,)), torch.empty(0, device=DEV))
    assert pw.last_variant() == -1


def test_error_then_success():
    """Errors are not sticky: a good launch after a bad one works."""
    with pytest.raises(pw.PointwiseError):
        add(rnd(3, 4), rnd(5, 4), torch.empty(3, 4, device=DEV))
    a, b = rnd(1023), rnd(1023)
    out = Out((1023,))
    add(a, b, out.view)
    out.check(a + b)


def test_wrong_dtype():
    with pytest.raises(TypeError, match="f32"):
        add(rnd(8, dtype=torch.float64), rnd(8), torch.empty(8, device=DEV))
    with pytest.raises(TypeError, match="f16"):
        gelu(rnd(8), torch.empty(8, device=DEV, dtype=torch.float16))
    with pytest.raises(TypeError, match="bf16"):
        add_bf16(rnd(8, dtype=torch.float16), rnd(8), torch.empty(8, device=DEV))
    with pytest.raises(TypeError):
        copy(pw.Strided(rnd(8), (8,), (1,), 0, "f64"), torch.empty(8, device=DEV))
    if K is not None:
        with pytest.raises(TypeError, match="i1"):
            kernels("greater_f32")(rnd(8), rnd(8),
                                   torch.empty(8, device=DEV, dtype=torch.int8))


def test_bad_arguments():
    with pytest.raises(TypeError, match="CUDA"):
        add(torch.ones(8), rnd(8), torch.empty(8, device=DEV))   # a CPU tensor
    with pytest.raises(TypeError):
        add(rnd(8), rnd(8))                                      # too few
    with pytest.raises(TypeError, match="scalar"):
        axpy(rnd(8), rnd(8), "x", torch.empty(8, device=DEV))
    with pytest.raises(OverflowError, match="scalar f32"):      # out of range
        axpy(rnd(8), rnd(8), 1e300, torch.empty(8, device=DEV))
    with pytest.raises(TypeError):
        add(3.0, rnd(8), torch.empty(8, device=DEV))
    with pytest.raises(LookupError):
        W.family("no_such_family")


# ===------------------------------------------------------------------------===
# The C call (pointwise._fastcall.FamilyCall) against the general call
# ===------------------------------------------------------------------------===

def _c_call_in_use(family):
    return type(type(family).__call__).__name__ == "FamilyCall"


def test_families_use_the_c_call():
    """With _fastcall.abi3.so in the package (or beside the bundle's
    runtime), families of torch tensors take the C call (the tests above all
    run through it); the general call serves what it hands over."""
    package = pathlib.Path(pw.__file__).parent
    if not any((d / "_fastcall.abi3.so").is_file() for d in (package, BUNDLE)):
        pytest.skip("no _fastcall.abi3.so in %s or %s" % (package, BUNDLE))
    assert _c_call_in_use(add) and _c_call_in_use(axpy) and _c_call_in_use(gelu)


C_CALL_CASES = [
    ("contiguous", lambda: (rnd(33, 65), rnd(33, 65))),
    ("transposed", lambda: (rnd(65, 33).t(), rnd(33, 65))),
    ("sliced", lambda: (rnd(40, 140)[3:36, 1::2][:, :65], rnd(33, 65))),
    ("expanded", lambda: (rnd(65).expand(33, 65), rnd(33, 1))),
    ("rank 5, leading ones", lambda: (rnd(1, 1, 2, 33, 65), rnd(65))),
    ("rank 6", lambda: (rnd(2, 1, 3, 1, 5, 7), rnd(2, 1, 3, 1, 5, 7))),
]


@pytest.mark.parametrize("case", C_CALL_CASES, ids=lambda c: c[0])
def test_c_call_matches_the_general_call(case):
    """Same outputs, or the same error, through both paths of axpy."""
    x, y = case[1]()
    results = []
    for call in (axpy, lambda *a: axpy._general_call(*a)):
        out = torch.broadcast_shapes(x.shape, y.shape)
        out = poison(torch.empty(out, device=DEV))
        try:
            call(x, y, -1.25, out)
            results.append(out)
        except Exception as error:  # compared between the two paths
            results.append((type(error), str(error)))
    if isinstance(results[0], tuple):
        assert results[0] == results[1]
        assert case[0] == "rank 6"  # above the declared rank 4
        return
    torch.testing.assert_close(results[0], results[1], rtol=0, atol=0)
    check_close(results[0], x * -1.25 + y, rtol=1e-6)


def test_c_call_hand_overs_raise_like_the_general_call():
    x = rnd(8)
    out = torch.empty(8, device=DEV)
    cases = [(x.double(), x, 1.0, out), (x.cpu(), x, 1.0, out),
             (x, x, "1", out), (x, x, 1e300, out), (x, x, 1.0),
             (x, rnd(9), 1.0, out)]
    for args in cases:
        outcomes = []
        for call in (axpy, lambda *a: axpy._general_call(*a)):
            try:
                call(*args)
                outcomes.append("ok")
            except Exception as error:  # compared between the two paths
                outcomes.append((type(error), str(error)))
        assert outcomes[0] == outcomes[1] and outcomes[0] != "ok"


# ===------------------------------------------------------------------------===
# Tables, streams, other array types, threads
# ===------------------------------------------------------------------------===

def test_describe_tables():
    d = add.describe()
    assert d["name"] == "add_f32"
    assert d["outputs"] == [2] and d["inputs"] == [0, 1]
    assert [a["element_type"] for a in d["arguments"]] == ["f32"] * 3
    assert all(a["rank"] == 4 for a in d["arguments"])
    assert {v["strategy"] for v in d["variants"]} == {"linear", "transpose",
                                                      "linear-narrow"}
    assert {v["rank"] for v in d["variants"]
            if v["strategy"] == "linear-narrow"} == {2, 3, 4}
    assert {v["index_bitwidth"] for v in d["variants"]} == {32}
    assert set(W.family_names()) >= {"add_f32", "axpy_f32", "copy_f32",
                                     "gelu_tanh_f16", "add_bf16_f32",
                                     "scale_shift_f32", "polar_f32"}
    p = polar.describe()
    assert p["outputs"] == [2, 3]
    s = scale_shift.describe()
    assert [a["kind"] for a in s["arguments"]] == ["memref", "scalar", "scalar", "memref"]
    assert "variant" in str(add)


def test_runtime_device_info():
    assert pw.device_count() >= 1
    assert pw.device_name(0)
    assert pw.load_runtime().device_arch(0).startswith("sm_")


def test_non_default_stream():
    stream = torch.cuda.Stream()
    a, b = rnd(1 << 20), rnd(1 << 20)
    out = Out((1 << 20,))
    torch.cuda.synchronize()
    with torch.cuda.stream(stream):
        pw.set_stream(stream)
        try:
            assert pw.get_stream() == stream.cuda_stream
            c = a * 2                    # queued on `stream`
            add(c, b, out.view)          # must see c
            d = out.view * 1             # queued after the add on `stream`
        finally:
            pw.set_stream(None)
    stream.synchronize()
    out.check(a * 2 + b)
    check_close(d, a * 2 + b)
    assert pw.get_stream() == 0


class _ArrayInterface:
    def __init__(self, tensor):
        self.tensor = tensor
        self.__cuda_array_interface__ = tensor.__cuda_array_interface__


def test_cuda_array_interface():
    a = rnd(33, 65)
    b = rnd(65, 33).t()
    out = Out((33, 65), layout="transposed")
    add(_ArrayInterface(a), _ArrayInterface(b), _ArrayInterface(out.view))
    out.check(a + b)


def test_cupy_arrays():
    cupy = pytest.importorskip("cupy")
    a = cupy.arange(1023, dtype=cupy.float32)
    b = cupy.ones((1023,), dtype=cupy.float32)[::-1]
    out = cupy.full((1023,), cupy.nan, dtype=cupy.float32)
    add(a, b, out)
    cupy.cuda.runtime.deviceSynchronize()
    assert bool((out == a + 1).all())


def test_threads():
    errors = []

    def work(seed):
        try:
            g = torch.Generator(device=DEV).manual_seed(seed)
            for n in (1023, 4097, 33):
                a = torch.randn(n, 7, device=DEV, generator=g)
                b = torch.randn(7, device=DEV, generator=g)
                out = Out((n, 7))
                for _ in range(20):
                    add(a, b, out.view)
                torch.cuda.synchronize()
                out.check(a + b)
        except BaseException as e:  # noqa: BLE001
            errors.append(e)

    threads = [threading.Thread(target=work, args=(s,)) for s in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors


# ===------------------------------------------------------------------------===
# Large: 64-bit indices, benchmark sizes
# ===------------------------------------------------------------------------===

def _free_bytes():
    free, _ = torch.cuda.mem_get_info()
    return free


@pytest.mark.parametrize("bits", [64, 32])
def test_large_64bit_index(bits):
    """An input whose element offsets reach beyond 2^31 from its pointer:
    one launch of a 64-bit variant where the family has one (kernels.so),
    else 32-bit chunks (workloads.mlir, built with pw-compile's default)."""
    stride = 1 << 30                                     # 4 GiB per row
    if _free_bytes() < 3 * stride * 4:
        pytest.skip("not enough device memory")
    f = kernels("add_f32_r6") if bits == 64 else add
    assert {v["index_bitwidth"] for v in f.describe()["variants"]} == \
        ({32, 64} if bits == 64 else {32})
    base = torch.empty(2 * stride + 256, device=DEV)
    x = base.as_strided((3, 256), (stride, 1))
    x.copy_(rnd(3, 256))
    y = rnd(3, 256)
    out = Out((3, 256))
    if bits == 64:                 # rank 6: leading dims of size 1
        f(x[(None,) * 4], y[(None,) * 4], out.view[(None,) * 4])
    else:
        f(x, y, out.view)
    out.check(x + y)
    v = variant(f)
    assert v["index_bitwidth"] == bits, v
    del base


def test_large_byte_reach_is_32bit():
    """Views reaching 3 GiB and 2.6 GiB of floats from their pointers but
    fewer than 2^31 elements: the 32-bit kernels scale their element offsets
    to bytes in 64 bits, so they run them in one launch (linear, then
    transpose strategy)."""
    if _free_bytes() < 20 << 30:
        pytest.skip("not enough device memory")
    stride = 1 << 28                                     # 1 GiB per row
    base = torch.empty(3 * stride + 256, device=DEV)
    x = base.as_strided((4, 256), (stride, 1))
    x.copy_(rnd(4, 256))
    y = rnd(4, 256)
    out = Out((4, 256))
    add(x, y, out.view)
    out.check(x + y)
    assert variant(add)["index_bitwidth"] == 32
    del base, x

    rows, cols = 40000, 16384                            # 2.6 GB per operand
    x = rnd(cols, rows).t()
    y = rnd(rows, cols)
    out = Out((rows, cols))
    add(x, y, out.view)
    out.check(x + y)
    v = variant(add)
    assert (v["index_bitwidth"], v["strategy"]) == (32, "transpose"), v


def test_small_index_is_32bit():
    a = rnd(4097)
    out = Out((4097,))
    add(a, a, out.view)
    out.check(a + a)
    assert variant(add)["index_bitwidth"] == 32


M = N = 8192
L = 1 << 26


def _large_cases():
    """The 13 benchmark workloads (benchmarks/gpu_bench.py) at full size:
    (inputs, our call, reference, atol)."""
    def add_contig():
        a, b = rnd(L), rnd(L)
        return (lambda o: add(a, b, o[0])), [a + b], 0
    def axpy_scalar():
        x, y = rnd(L), rnd(L)
        return (lambda o: axpy(x, y, 0.2, o[0])), [x.double() * 0.2 + y.double()], 1e-5
    def bcast_row():
        a, r = rnd(M, N), rnd(N)
        return (lambda o: add(a, r, o[0])), [a + r], 0
    def bcast_col():
        a, c = rnd(M, N), rnd(M, 1)
        return (lambda o: add(a, c, o[0])), [a + c], 0
    def add_transposed():
        a, b = rnd(M, N), rnd(N, M)
        return (lambda o: add(a, b.t(), o[0])), [a + b.t()], 0
    def transpose_copy():
        b = rnd(N, M)
        return (lambda o: copy(b.t(), o[0])), [b.t()], 0
    def nchw_plus_nhwc():
        x = rnd(32, 256, 56, 56)
        y = rnd(32, 256, 56, 56).contiguous(memory_format=torch.channels_last)
        return (lambda o: add(x, y, o[0])), [x + y], 0
    def strided_slice():
        a, b = rnd(M, 2 * N), rnd(M, N)
        return (lambda o: add(a[:, ::2], b, o[0])), [a[:, ::2] + b], 0
    def flip():
        x = rnd(M, N)
        return (lambda o: copy(pw.Strided.flip(x, (0, 1)), o[0])), [torch.flip(x, (0, 1))], 0
    def gelu_tanh():
        x = rnd(2 * L, dtype=torch.float16)
        ref = torch.nn.functional.gelu(x, approximate="tanh")
        return (lambda o: gelu(x, o[0])), [ref], 1e-2
    def bf16_promote():
        a, b = rnd(L, dtype=torch.bfloat16), rnd(L)
        return (lambda o: add_bf16(a, b, o[0])), [a + b], 0
    def rank5():
        x = rnd(8, 16, 33, 64, 65)[:, :, 1:, :, :-1]
        return (lambda o: scale_shift(x, 3.0, 1.0, o[0])), [x.double() * 3.0 + 1.0], 1e-5
    def polar2():
        r, t = rnd(L).abs(), rnd(L)
        return (lambda o: polar(r, t, o[0], o[1])), [r.double() * torch.cos(t.double()),
                                                    r.double() * torch.sin(t.double())], 1e-5
    return {f.__name__: f for f in (add_contig, axpy_scalar, bcast_row, bcast_col,
                                    add_transposed, transpose_copy, nchw_plus_nhwc,
                                    strided_slice, flip, gelu_tanh, bf16_promote,
                                    rank5, polar2)}


@pytest.mark.parametrize("name", list(_large_cases()))
def test_large_workloads(name):
    call, refs, atol = _large_cases()[name]()
    outs = [poison(torch.empty(r.shape, device=DEV,
                               dtype=torch.float16 if name == "gelu_tanh" else torch.float32))
            for r in refs]
    call(outs)
    for out, ref in zip(outs, refs):
        check_close(out, ref, atol=atol, rtol=atol)
    del call, refs, outs
    torch.cuda.empty_cache()


# A kernel with a 64 x 65 f32 tile of static shared memory (16640 bytes), as
# the transpose variants have, that leaves its last word to out[0].
_TILE_PTX = b"""
.version 8.0
.target sm_80
.address_size 64
.visible .entry tile16640(.param .u64 out)
{
  .shared .align 4 .b8 tile[16640];
  .reg .b32 %r<3>;
  .reg .b64 %rd<3>;
  mov.u32 %r1, %tid.x;
  st.shared.u32 [tile+16636], %r1;
  bar.sync 0;
  ld.shared.u32 %r2, [tile+16636];
  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd2, %rd1;
  st.global.u32 [%rd2], %r2;
  ret;
}
"""


def test_occupancy_padding_caps_resident_blocks():
    """pwOccupancySharedMemory (the transposes' cap) against the driver's
    own occupancy calculator: with the padding, exactly N blocks of 256
    threads fit per multiprocessor, with 128 bytes less, more do; a launch
    with the padding, above 48 KiB in all, runs."""
    import ctypes
    rt = pw.load_runtime()
    lib = rt.lib
    lib.pwOccupancySharedMemory.restype = ctypes.c_int32
    lib.pwOccupancySharedMemory.argtypes = [ctypes.c_int32, ctypes.c_int32]
    module, function = ctypes.c_void_p(), ctypes.c_void_p()
    rt.check(lib.pwModuleLoad(ctypes.byref(module), _TILE_PTX,
                              ctypes.c_size_t(len(_TILE_PTX))))
    rt.check(lib.pwModuleGetFunction(ctypes.byref(function), module,
                                     b"tile16640"))
    cuda = ctypes.CDLL("libcuda.so.1")
    # Let the occupancy calculator consider any padding a block may have.
    assert cuda.cuFuncSetAttribute(function, 8, 200 * 1024) == 0

    def resident(padding):
        count = ctypes.c_int()
        assert cuda.cuOccupancyMaxActiveBlocksPerMultiprocessor(
            ctypes.byref(count), function, 256, ctypes.c_size_t(padding)) == 0
        return count.value

    assert resident(0) == 8  # threads allow 8 blocks of 256
    for blocks in range(1, 8):
        padding = lib.pwOccupancySharedMemory(16640, blocks)
        assert padding > 0, blocks
        assert resident(padding) == blocks, (blocks, padding)
        assert resident(padding - 128) > blocks, (blocks, padding)
    assert lib.pwOccupancySharedMemory(16640, 0) == 0

    out = torch.zeros(1, dtype=torch.int32, device=DEV)
    padding = lib.pwOccupancySharedMemory(16640, 3)
    assert padding + 16640 > 48 * 1024
    pointer = ctypes.c_void_p(out.data_ptr())
    params = (ctypes.c_void_p * 1)(ctypes.cast(ctypes.byref(pointer),
                                               ctypes.c_void_p))
    assert cuda.cuFuncSetAttribute(function, 8, 0) == 0  # the runtime opts in
    torch.cuda.synchronize()
    rt.check(lib.pwLaunchKernel(function, 1, 1, 1, 256, 1, 1, padding,
                                ctypes.c_void_p(torch.cuda.current_stream()
                                                .cuda_stream), params))
    torch.cuda.synchronize()
    assert 0 <= out.item() < 256
    rt.check(lib.pwModuleUnload(module))
