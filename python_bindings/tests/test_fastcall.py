"""pointwise._fastcall (python_bindings/src/FastCall.cpp), the C call path of
@pw.pointwise, without a GPU: a stand-in tensor type and ctypes callbacks in
place of the runtime's pwFamilyLaunch, pwExchangeDevice and pwSetStream. Checks
what reaches the launch (descriptors, scalars, family), what is allocated,
and that every case outside the common one goes to the general path
untouched."""

import ctypes
import struct

import pytest

from pointwise import _native
from pointwise._runtime import load_runtime

LAUNCH = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p,
                          ctypes.POINTER(ctypes.c_void_p))
EXCHANGE_DEVICE = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_int,
                                   ctypes.POINTER(ctypes.c_int))
SET_STREAM = ctypes.CFUNCTYPE(None, ctypes.c_void_p)
FAMILY = 0xFA0000
STREAM = 0x5EA0


class FakeTensor:
    """What the C path reads of a torch.Tensor."""

    next_address = 0x10000

    def __init__(self, shape, dtype="f32", device=0, contiguous=True,
                 cuda=True, negative=False):
        self.shape = tuple(shape)
        self.dtype = dtype
        self.device = device
        self.contiguous = contiguous
        self.is_cuda = cuda
        self.negative = negative
        self.address = FakeTensor.next_address
        FakeTensor.next_address += 0x10000

    def get_device(self):
        return self.device

    def is_contiguous(self):
        return self.contiguous

    def is_neg(self):
        return self.negative

    def data_ptr(self):
        return self.address


class SubTensor(FakeTensor):
    pass


def empty_like(tensor, dtype=None):
    return FakeTensor(tensor.shape, dtype or tensor.dtype, tensor.device)


@pytest.fixture
def fastcall():
    runtime = load_runtime()
    module = _native.fastcall(runtime)
    if module is None:
        pytest.skip("pointwise._fastcall is not built (no Python headers)")
    yield module
    # Back to the real runtime for the rest of the session.
    cast = ctypes.cast
    module.bind(cast(runtime.lib.pwFamilyLaunch, ctypes.c_void_p).value,
                cast(runtime.lib.pwExchangeDevice, ctypes.c_void_p).value,
                cast(runtime.lib.pwSetStream, ctypes.c_void_p).value)


class Harness:
    """A FastPath over fakes; records launches, selections and hand-overs."""

    def __init__(self, module, num_inputs, scalars=(), num_outputs=1,
                 status=0, allocate=empty_like):
        self.launches, self.devices, self.streams, self.slow_calls = [], [], [], []
        self.status = status
        self.rank = None
        self.current = 0  # the device the fake runtime has current

        def launch(family, args):
            self.launches.append((family, self._unpack(args)))
            return self.status

        def exchange_device(device, previous):
            self.devices.append(device)
            if previous:
                previous[0] = self.current
            self.current = device
            return 0

        def set_stream(stream):
            self.streams.append(stream)

        self.callbacks = (LAUNCH(launch), EXCHANGE_DEVICE(exchange_device),
                          SET_STREAM(set_stream))
        module.bind(*[ctypes.cast(c, ctypes.c_void_p).value
                      for c in self.callbacks])
        self.num_inputs, self.num_outputs = num_inputs, num_outputs
        self.scalars = tuple(scalars)
        self.plans = {}
        self.fast = module.FastPath(
            num_inputs=num_inputs, num_outputs=num_outputs,
            tensor_positions=tuple(i for i in range(num_inputs)
                                   if i not in self.scalars),
            scalar_positions=self.scalars,
            output_names=tuple("out%d" % k for k in range(num_outputs)),
            plans=self.plans, slow=self.slow, tensor_type=FakeTensor,
            empty_like=allocate, raw_stream=lambda device: STREAM + device,
            raise_error=self.raise_error)

    def slow(self, args, outputs, rank):
        self.slow_calls.append((args, dict(outputs), rank))
        return "general path"

    @staticmethod
    def raise_error(status):
        raise RuntimeError("launch status %d" % status)

    def plan(self, dtypes, scalar_types, rank, device, out_dtypes, codes):
        self.rank = rank
        self.codes = codes
        self.plans[(tuple(dtypes), tuple(scalar_types), rank, device)] = (
            "launcher", tuple(out_dtypes), FAMILY, codes)

    def _unpack(self, args):
        """Per argument: a descriptor tuple, or the scalar's 8 raw bytes."""
        values = []
        for i in range(self.num_inputs + self.num_outputs):
            code = self.codes[i] if i < self.num_inputs else " "
            if code == " ":
                words = 3 + 2 * self.rank
                values.append(tuple((ctypes.c_int64 * words).from_address(args[i])))
            else:
                values.append(ctypes.string_at(args[i], 8))
        return values

    def __call__(self, *args, **outputs):
        return self.fast(*args, **outputs)


def descriptor(tensor):
    shape = tensor.shape
    strides, stride = [], 1
    for size in reversed(shape):
        strides.insert(0, stride)
        stride *= max(size, 1)
    return (tensor.address, tensor.address, 0, *shape, *strides)


def test_launches_with_descriptors_and_allocates(fastcall):
    h = Harness(fastcall, 2)
    h.plan(["f32", "f32"], [], 2, 0, ["f32"], "  ")
    a, b = FakeTensor((3, 5)), FakeTensor((3, 5))
    out = h(a, b)
    assert isinstance(out, FakeTensor) and out.shape == (3, 5) and out.dtype == "f32"
    [(family, values)] = h.launches
    assert family == FAMILY
    assert values == [descriptor(a), descriptor(b), descriptor(out)]
    assert h.devices == [0] and h.streams == [STREAM]
    assert not h.slow_calls


def test_device_guarded_and_stream_selected_when_it_changes(fastcall):
    """Every launch makes its tensors' device current (other code may have
    changed it since the last one) and the device it found current again
    after it, where that differs; the stream is set when it changes."""
    h = Harness(fastcall, 1)
    for device in (0, 1):
        h.plan(["f32"], [], 1, device, ["f32"], " ")
    h(FakeTensor((4,)))
    h(FakeTensor((4,)))
    assert h.devices == [0, 0]
    h(FakeTensor((4,), device=1))
    assert h.devices == [0, 0, 1, 0] and h.current == 0
    assert h.streams == [STREAM, STREAM + 1]
    assert len(h.launches) == 3
    # The general path's select() and restore() share the record.
    assert fastcall.select(1, STREAM + 1) == (0, 0)
    assert h.devices == [0, 0, 1, 0, 1] and h.current == 1
    assert h.streams == [STREAM, STREAM + 1]
    assert fastcall.restore(1, 0) == 0 and h.current == 0
    assert fastcall.restore(0, 0) == 0 and fastcall.restore(0, -1) == 0
    assert h.devices == [0, 0, 1, 0, 1, 0]
    assert fastcall.select(0, None) == (0, 0)
    assert h.streams[-1] is None


def test_scalars_packed_by_their_codes(fastcall):
    h = Harness(fastcall, 5, scalars=(1, 2, 3, 4))
    h.plan(["f32"], [float, float, int, bool], 1, 0, ["f32"], " dfb?")
    x = FakeTensor((8,))
    h(x, 0.1, 2.5, -7, True)
    [(_, values)] = h.launches
    assert values[1] == struct.pack("<d", 0.1)
    assert values[2] == struct.pack("<f", 2.5) + b"\0" * 4
    assert values[3][:1] == struct.pack("<b", -7)
    assert values[4][:1] == b"\x01"


def test_unsigned_scalars_packed_by_their_codes(fastcall):
    np = pytest.importorskip("numpy")
    h = Harness(fastcall, 5, scalars=(1, 2, 3, 4))
    h.plan(["f32"], [int, int, int, int], 1, 0, ["f32"], " BHIQ")
    x = FakeTensor((8,))
    h(x, 255, 65535, 2**32 - 1, 2**64 - 1)
    [(_, values)] = h.launches
    assert values[1] == b"\xff" + b"\0" * 7
    assert values[2] == b"\xff" * 2 + b"\0" * 6
    assert values[3] == b"\xff" * 4 + b"\0" * 4
    assert values[4] == b"\xff" * 8
    h.plan(["f32"], [np.uint8, int, int, int], 1, 0, ["f32"], " BHIQ")
    h(x, np.uint8(200), 0, 7, 2**63)
    assert h.launches[-1][1][1] == b"\xc8" + b"\0" * 7
    assert h.launches[-1][1][4] == struct.pack("<Q", 2**63)
    # Out of the unsigned range: the general path packs or reports it.
    for bad in ((256, 0, 0, 0), (0, -1, 0, 0), (0, 0, 2**32, 0),
                (0, 0, 0, 2**64)):
        h(x, *bad)
    assert len(h.slow_calls) == 4 and len(h.launches) == 2


def test_two_outputs_of_planned_dtypes(fastcall):
    h = Harness(fastcall, 1, num_outputs=2)
    h.plan(["f16"], [], 1, 0, ["f16", "f32"], " ")
    x = FakeTensor((6,), "f16")
    given = FakeTensor((6,), "f32")
    first, second = h(x, out1=given)
    assert first.dtype == "f16" and second is given
    [(_, values)] = h.launches
    assert values[1] == descriptor(first) and values[2] == descriptor(given)
    first, second = h(x, out0=None)
    assert first.dtype == "f16" and second.dtype == "f32"


@pytest.mark.parametrize("case", [
    "no plan", "argument count", "subclass", "cpu tensor", "shapes differ",
    "devices differ", "not contiguous", "scalar overflows", "float for int",
    "float32 overflows", "int beyond a double", "truth value fails",
    "unknown keyword", "output dtype", "output shape", "output strided",
    "output device", "output not a tensor"])
def test_everything_else_goes_to_the_general_path(fastcall, case):
    h = Harness(fastcall, 3, scalars=(2,))
    h.plan(["f32", "f32"], [int], 1, 0, ["f32"], "  b")
    a, b = FakeTensor((4,)), FakeTensor((4,))
    args, outputs = (a, b, 3), {}
    if case == "no plan":
        args = (a, b, True)
    elif case == "argument count":
        args = (a, b)
    elif case == "subclass":
        args = (SubTensor((4,)), b, 3)
    elif case == "cpu tensor":
        args = (FakeTensor((4,), cuda=False), b, 3)
    elif case == "shapes differ":
        args = (a, FakeTensor((5,)), 3)
    elif case == "devices differ":
        args = (a, FakeTensor((4,), device=1), 3)
    elif case == "not contiguous":
        args = (a, FakeTensor((4,), contiguous=False), 3)
    elif case == "scalar overflows":
        args = (a, b, 300)
    elif case == "float for int":
        h.plan(["f32", "f32"], [float], 1, 0, ["f32"], "  b")
        args = (a, b, 3.0)
    elif case == "float32 overflows":  # would round to infinity
        h.plan(["f32", "f32"], [float], 1, 0, ["f32"], "  f")
        args = (a, b, 1e39)
    elif case == "int beyond a double":
        h.plan(["f32", "f32"], [int], 1, 0, ["f32"], "  d")
        args = (a, b, 10 ** 400)
    elif case == "truth value fails":
        class Unsure(int):
            def __bool__(self):
                raise ValueError("no truth value")
        h.plan(["f32", "f32"], [Unsure], 1, 0, ["f32"], "  ?")
        args = (a, b, Unsure(1))
    elif case == "unknown keyword":
        outputs = {"out7": FakeTensor((4,))}
    elif case == "output dtype":
        outputs = {"out0": FakeTensor((4,), "f64")}
    elif case == "output shape":
        outputs = {"out0": FakeTensor((2, 2))}
    elif case == "output strided":
        outputs = {"out0": FakeTensor((4,), contiguous=False)}
    elif case == "output device":
        outputs = {"out0": FakeTensor((4,), device=1)}
    elif case == "output not a tensor":
        outputs = {"out0": [0.0] * 4}
    assert h.fast(*args, **outputs) == "general path"
    assert h.slow_calls == [(args, outputs, None)]
    assert not h.launches


def test_rebinding_during_a_call_keeps_the_calls_entry_points(fastcall):
    """bind() can run while a call has released the GIL (another thread
    binding another runtime): that call finishes with the entry points it
    started with, and the next call uses the new ones."""
    second = Harness(fastcall, 1)
    second.plan(["f32"], [], 1, 0, ["f32"], " ")  # how it unpacks launches
    first = Harness(fastcall, 1)
    first.plan(["f32"], [], 1, 0, ["f32"], " ")

    def address(callback):
        return ctypes.cast(callback, ctypes.c_void_p).value

    def exchange_device_then_rebind(device, previous):
        first.devices.append(device)
        if previous:
            previous[0] = device
        fastcall.bind(*[address(c) for c in second.callbacks])
        return 0
    rebinding = EXCHANGE_DEVICE(exchange_device_then_rebind)
    fastcall.bind(address(first.callbacks[0]), address(rebinding),
                  address(first.callbacks[2]))
    x = FakeTensor((4,))
    first(x)
    assert len(first.launches) == 1 and first.streams == [STREAM]
    assert not second.launches and not second.streams
    first(x)
    assert len(first.launches) == 1
    assert len(second.launches) == 1 and second.devices == [0]


def test_calls_before_bind_go_to_the_general_path():
    """A FastPath called before bind() (no runtime to launch with) hands
    the call to the general path instead of calling a null entry point.
    In a fresh interpreter: this one's module is bound."""
    import pathlib
    import subprocess
    import sys
    path = _native._beside_runtime(_native.FASTCALL_NAME,
                                   load_runtime().path)
    if path is None:
        pytest.skip("pointwise._fastcall is not built (no Python headers)")
    script = """
import sys
sys.path[:0] = [%r, %r]
from pointwise import _native
import test_fastcall as t
module = _native._load_extension("pointwise._fastcall", %r)
plans = {(("f32",), (), 1, 0): ("launcher", ("f32",), t.FAMILY, " ")}
fast = module.FastPath(
    num_inputs=1, num_outputs=1, tensor_positions=(0,), scalar_positions=(),
    output_names=("out0",), plans=plans,
    slow=lambda args, outputs, rank: "general path", tensor_type=t.FakeTensor,
    empty_like=t.empty_like, raw_stream=lambda device: t.STREAM,
    raise_error=print)
print(fast(t.FakeTensor((4,))))
""" % (str(pathlib.Path(_native.__file__).parent.parent),
       str(pathlib.Path(__file__).parent), str(path))
    result = subprocess.run([sys.executable, "-c", script],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "general path"


def test_launch_errors_raise(fastcall):
    h = Harness(fastcall, 1, status=9)
    h.plan(["f32"], [], 1, 0, ["f32"], " ")
    with pytest.raises(RuntimeError, match="launch status 9"):
        h(FakeTensor((4,)))


def test_bad_construction(fastcall):
    with pytest.raises(TypeError):
        fastcall.FastPath(num_inputs=1)
    with pytest.raises(ValueError, match="tensor input"):
        fastcall.FastPath(
            num_inputs=1, num_outputs=1, tensor_positions=(),
            scalar_positions=(0,), output_names=("out0",), plans={},
            slow=print, tensor_type=FakeTensor, empty_like=empty_like,
            raw_stream=print, raise_error=print)
    with pytest.raises(TypeError):
        fastcall.FastPath(args=1)


class TensorView(ctypes.Structure):
    """PwTensorView of python_bindings/src/TensorAccess.h."""
    _fields_ = [("data", ctypes.c_uint64),
                ("sizes", ctypes.POINTER(ctypes.c_int64)),
                ("strides", ctypes.POINTER(ctypes.c_int64)),
                ("rank", ctypes.c_int64),
                ("scalar_type", ctypes.c_int32),
                ("device", ctypes.c_int32),
                ("contiguous", ctypes.c_int32)]


READ = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.py_object,
                        ctypes.POINTER(TensorView))
EMPTY = ctypes.CFUNCTYPE(ctypes.py_object, ctypes.POINTER(ctypes.c_int64),
                         ctypes.c_int64, ctypes.c_int32, ctypes.c_int32,
                         ctypes.POINTER(ctypes.c_uint64))
CURRENT_STREAM = ctypes.CFUNCTYPE(ctypes.c_void_p, ctypes.c_int32)


class TensorAccess(ctypes.Structure):
    """PwTensorAccess of python_bindings/src/TensorAccess.h (version 3)."""
    _fields_ = [("version", ctypes.c_uint32), ("read", READ),
                ("empty_contiguous", EMPTY), ("current_stream", CURRENT_STREAM)]


def Unreadable(*args, **kwargs):
    """A FakeTensor whose data_ptr() fails: only a table can read it."""
    tensor = FakeTensor(*args, **kwargs)

    def data_ptr():
        raise AttributeError("read through attributes")
    tensor.data_ptr = data_ptr
    return tensor


def test_tensor_access_table(fastcall):
    """With a table bound (as pointwise._torchtensors binds one for torch),
    tensors are read, outputs made and streams found through it; without,
    through attributes again."""
    codes = ("f32", "f16")
    reads, made = [], []

    def read(tensor, view):
        if not isinstance(tensor, FakeTensor) or not tensor.is_cuda:
            return 0
        reads.append(tensor)
        tensor.sizes_array = (ctypes.c_int64 * max(len(tensor.shape), 1))(
            *tensor.shape)
        view.contents.data = tensor.address
        view.contents.sizes = tensor.sizes_array
        view.contents.rank = len(tensor.shape)
        view.contents.scalar_type = codes.index(tensor.dtype)
        view.contents.device = tensor.device
        view.contents.contiguous = tensor.contiguous
        return 1

    def empty(sizes, rank, code, device, data):
        made.append(Unreadable(tuple(sizes[:rank]), codes[code], device))
        data[0] = made[-1].address
        return made[-1]

    callbacks = (READ(read), EMPTY(empty),
                 CURRENT_STREAM(lambda device: STREAM * 2 + device))
    table = TensorAccess(3, *callbacks)
    h = Harness(fastcall, 2)
    h.plan(["f32", "f16"], [], 2, 1, ["f32"], "  ")
    a, b = Unreadable((3, 5), device=1), Unreadable((3, 5), "f16", device=1)
    fastcall.bind_tensors(ctypes.addressof(table), codes)
    try:
        out = h(a, b)
        assert out is made[0] and out.shape == (3, 5) and out.dtype == "f32"
        given = Unreadable((3, 5), device=1)
        assert h(a, b, out0=given) is given
        # A tensor the table does not handle goes to the general path.
        assert h(a, FakeTensor((3, 5), "f16", device=1, cuda=False)) == \
            "general path"
        with pytest.raises(ValueError, match="table version"):
            fastcall.bind_tensors(ctypes.addressof(TensorAccess(
                2, *callbacks)), codes)
    finally:
        fastcall.bind_tensors(0, ())
    assert [values for _, values in h.launches] == [
        [descriptor(a), descriptor(b), descriptor(out)],
        [descriptor(a), descriptor(b), descriptor(given)]]
    assert h.streams[-1] == STREAM * 2 + 1
    # The output the table made is not read back: the table gave its address.
    assert reads[:3] == [a, b, a] and out not in reads
    assert len(h.slow_calls) == 1
    # Unbound: attributes again (which these tensors fail).
    assert h(a, b) == "general path"


def test_tensors_with_the_negative_bit_go_to_the_general_path(fastcall):
    """Their memory holds their values negated (x.conj().imag): the general
    path resolves inputs and rejects outputs."""
    h = Harness(fastcall, 2)
    h.plan(["f32", "f32"], [], 1, 0, ["f32"], "  ")
    a, b = FakeTensor((4,)), FakeTensor((4,), negative=True)
    assert h(a, b) == "general path"
    assert h(a, a, out0=FakeTensor((4,), negative=True)) == "general path"
    assert not h.launches and len(h.slow_calls) == 2


class Codes(str):
    """Pack codes that record when they are freed."""
    freed = []

    def __del__(self):
        Codes.freed.append(str(self))


def test_a_plan_replaced_while_allocating_stays_valid(fastcall):
    """Allocating an output runs Python code (a torch function mode, say);
    when that code records a new plan for the call's key and moves the
    remembered plan to another key, the call still holds the plan it found
    (its pack codes are read after the allocation), not freed memory."""
    seen_while_allocating = []
    entered = []

    def reentrant_empty_like(tensor, dtype=None):
        if not entered:
            entered.append(tensor)
            key = (("f32",), (float,), 1, 0)
            h.plans[key] = ("launcher", ("f32",), FAMILY + 1, " d")
            h(FakeTensor((2, 2)), 1.0)  # another key: moves the memo
            seen_while_allocating.append(list(Codes.freed))
        return empty_like(tensor, dtype)

    h = Harness(fastcall, 2, scalars=(1,), allocate=reentrant_empty_like)
    h.plan(["f32"], [float], 2, 0, ["f32"], " d")
    h.plan(["f32"], [float], 1, 0, ["f32"], " d")
    h.plans[(("f32",), (float,), 1, 0)] = ("launcher", ("f32",), FAMILY,
                                           Codes(" d"))
    Codes.freed.clear()
    x = FakeTensor((4,))
    out = h(x, 0.5)
    assert seen_while_allocating == [[]], "the plan in use was freed"
    assert Codes.freed == [" d"]  # released when the call was done
    # The inner call (rank 2) first, then this one with the plan it found.
    assert [family for family, _ in h.launches] == [FAMILY, FAMILY]
    _, values = h.launches[1]
    assert values[0] == descriptor(x) and values[2] == descriptor(out)
    assert values[1] == struct.pack("<d", 0.5)
    # Later calls use the new plan.
    h(x, 0.5)
    assert h.launches[-1][0] == FAMILY + 1
