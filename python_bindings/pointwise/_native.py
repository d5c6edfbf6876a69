"""The package's native parts and the one launch of a family.

* :func:`library_candidates`: where the package looks for its libraries and
  extensions.
* :func:`fastcall`: ``pointwise._fastcall`` (python_bindings/src), the C
  calls: the common calls of @pw.pointwise functions (``FastPath``) and of
  AOT families (``FamilyCall``), and ``Launcher``, the launch that every
  general call path makes once it has read its arguments. Bound to the
  runtime's entry points when loaded.
* :func:`bind_torch_tensors`: the C reader of PyTorch tensors,
  ``pointwise._torchtensors`` when it was built for the torch in use, else
  ``pointwise._torchshim`` (torch's C shim, any release that exports it);
  its check's verdict kept in :func:`cache_dir`.
* :func:`cache_dir`: the directory of the package's disk cache, and
  :func:`write_atomically`, how files go into it.
* :func:`make_launcher`: the launch of one family: ``_fastcall.Launcher``, or
  :class:`PythonLauncher` (the same packing with Python's struct module)
  only where the extension is not built or ``POINTWISE_FASTCALL=0``.
* :func:`select`: makes a device and stream current for this thread's
  launches.

This module imports nothing of the package but ``_dtypes``; the runtime
object it takes is ``pointwise._runtime.Runtime``.
"""

import ctypes
import hashlib
import importlib.machinery
import importlib.util
import numbers
import os
import struct
import tempfile
import threading

from . import _dtypes

__all__ = ["library_candidates", "open_library", "fastcall",
           "bind_torch_tensors", "torch_tensors_reader", "make_launcher", "PythonLauncher", "select", "cache_dir",
           "write_atomically"]

FASTCALL_NAME = "_fastcall.abi3.so"
TORCH_TENSORS_NAME = "_torchtensors.abi3.so"
TORCH_SHIM_NAME = "_torchshim.abi3.so"
# kTensorAccessVersion of python_bindings/src/TensorAccess.h: the table
# layout this package's checks (_check_torch_tensors) read.
_TENSOR_ACCESS_VERSION = 3
# What _check_torch_tensors tests: bumped when it tests more, so that
# verdicts kept by an earlier check are checked again.
_CHECK_VERSION = 4


def cache_dir():
    """The package's on-disk cache directory (``$POINTWISE_CACHE_DIR``, by
    default ``$XDG_CACHE_HOME/pointwise`` or ``~/.cache/pointwise``), or None
    when ``POINTWISE_CACHE_DIR`` is empty (disabled)."""
    env = os.environ.get("POINTWISE_CACHE_DIR")
    if env is not None:
        return env or None
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(
        os.path.expanduser("~"), ".cache")
    return os.path.join(base, "pointwise")


def library_candidates(name, env=None, first_dirs=()):
    """Where the package looks for one of its native libraries, in order:
    ``$env`` (the file or its directory), `first_dirs`, next to this package
    (installed), its parent (the GPU bundle's layout), then ``build/lib`` and
    ``gpu-bundle/`` of the source tree."""
    here = os.path.dirname(os.path.abspath(__file__))
    candidates = []
    value = os.environ.get(env) if env else None
    if value:
        candidates.append(os.path.join(value, name)
                          if os.path.isdir(value) else value)
    for directory in tuple(first_dirs) + (
            here, os.path.dirname(here),
            os.path.join(here, "..", "..", "build", "lib"),
            os.path.join(here, "..", "..", "gpu-bundle")):
        candidates.append(os.path.join(directory, name))
    return candidates


def torch_release(torch_version):
    """A ``torch.__version__`` without its local part: "2.11.0" of
    "2.11.0+cu130". The CUDA variants of one release are built from the
    same sources (``torch.version.git_version``)."""
    return torch_version.split("+", 1)[0]


def torch_tensors_name(torch_version):
    """Where pointwise._torchtensors built for `torch_version`'s release
    lies among the native libraries: one directory per torch release the
    build listed in POINTWISE_TORCH_DIR."""
    return os.path.join("torchtensors", torch_release(torch_version),
                        TORCH_TENSORS_NAME)


def _beside_runtime(name, runtime_path):
    """The first existing `name` among the package's library candidates,
    the runtime's own directory first; None if there is none."""
    first = ([os.path.dirname(runtime_path)]
             if runtime_path and os.sep in runtime_path else [])
    return next((c for c in library_candidates(name, None, first)
                 if os.path.isfile(c)), None)


def _load_extension(name, path):
    loader = importlib.machinery.ExtensionFileLoader(name, path)
    spec = importlib.util.spec_from_loader(loader.name, loader)
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


def open_library(path, mode=ctypes.DEFAULT_MODE):
    """ctypes.CDLL(path, mode), with the dynamic loader's work done by a
    call of libc's dlopen first: ctypes' own dlopen holds the GIL, for the
    4-150 ms a compiler with MLIR and LLVM in it takes to load, where a
    foreign call releases it, so that other threads run meanwhile. The
    CDLL then finds the library loaded."""
    try:
        libc = ctypes.CDLL(None)
        libc.dlopen.restype = ctypes.c_void_p
        libc.dlopen.argtypes = [ctypes.c_char_p, ctypes.c_int]
        libc.dlclose.argtypes = [ctypes.c_void_p]
        handle = libc.dlopen(os.fsencode(path), mode | os.RTLD_NOW)
    except (AttributeError, OSError):
        handle = None
    try:
        return ctypes.CDLL(path, mode)
    finally:
        if handle:
            libc.dlclose(handle)  # the CDLL holds its own reference


def _disabled(variable):
    return os.environ.get(variable, "1") in ("0", "no", "")


_fastcall = None  # None: not tried yet; False: not in use; the module
_torch_tensors = None  # the same
# Where the dtype table of the bound reader came from: "checked" (by
# _check_torch_tensors in this process) or "disk" (a verdict kept earlier).
torch_tensors_table_origin = None
_lock = threading.Lock()


def fastcall(runtime):
    """``pointwise._fastcall`` (built next to the runtime), bound to
    `runtime`'s entry points; None where it was not built, does not load,
    or ``POINTWISE_FASTCALL=0``."""
    global _fastcall
    if _fastcall is not None:
        return _fastcall or None
    with _lock:
        if _fastcall is None:
            module = False
            if not _disabled("POINTWISE_FASTCALL"):
                path = _beside_runtime(FASTCALL_NAME, runtime.path)
                try:
                    if path is not None:
                        module = _load_extension("pointwise._fastcall", path)
                except ImportError:
                    module = False  # damaged or built for another platform
                if module:
                    address = ctypes.cast
                    module.bind(
                        address(runtime.lib.pwFamilyLaunch, ctypes.c_void_p).value,
                        address(runtime.lib.pwExchangeDevice,
                                ctypes.c_void_p).value,
                        address(runtime.lib.pwSetStream, ctypes.c_void_p).value)
                    module.bound_runtime_path = runtime.path
            _fastcall = module
    return _fastcall or None


def _check_torch_tensors(module, runtime, torch):
    """The dtype table of pointwise._torchtensors (a tuple indexed by its
    dtype codes), or None when it does not read, allocate and find streams
    exactly as torch's own attributes say (a stream made by `runtime` made
    current in torch); the tensors it allocates must also dispatch as
    torch's own (the same key set)."""
    device = torch.cuda.current_device()
    codes = {}
    # Views (an offset, strides) read the same whatever the dtype but for
    # the offset's bytes: they are checked once per element size, which
    # keeps the check to about half a millisecond of the first call.
    sizes_viewed = set()
    for dtype in _dtypes.ALL_DTYPES:
        dtype = getattr(torch, dtype.name, None)  # uint16...: torch >= 2.3
        if dtype is None:
            continue
        base = torch.empty((3, 5), dtype=dtype, device="cuda")
        tensors = (base,)
        if dtype.itemsize not in sizes_viewed:
            sizes_viewed.add(dtype.itemsize)
            tensors = (base, base[1:, 2:], base.t())
        for tensor in tensors:
            probe = module.probe(tensor)
            if probe is None or probe[0] != tensor.data_ptr() or \
                    probe[1] != tuple(tensor.shape) or \
                    probe[3] != tensor.get_device() or \
                    probe[4] != tensor.is_contiguous() or \
                    probe[5] != tuple(tensor.stride()):
                return None
            if codes.setdefault(probe[2], dtype) is not dtype:
                return None
        made, address = module.empty((4, 6), probe[2], device)
        if type(made) is not torch.Tensor or made.dtype is not dtype or \
                address != made.data_ptr() or \
                made.shape != (4, 6) or not made.is_contiguous() or \
                made.get_device() != device or \
                _dispatch_keys(torch, made) != _dispatch_keys(torch, base):
            return None
    if module.probe(torch.empty(2)) is not None:  # a CPU tensor
        return None
    # A view whose negative bit is set (the imaginary part of a conjugate)
    # reads as its attributes resolve it, not through the table.
    complex_view = torch.zeros(3, dtype=torch.complex64, device="cuda").conj()
    negative = complex_view.imag
    if negative.is_neg() and module.probe(negative) is not None:
        return None
    # A conjugate view likewise.
    if complex_view.is_conj() and module.probe(complex_view) is not None:
        return None
    # A stream of the runtime's, made current as an ExternalStream: a
    # torch.cuda.Stream() would create torch's pool of streams for the
    # device, about 5 ms of the first call that binds the module
    # (docs/Performance.md, row `torch-tensor-reader`).
    stream = ctypes.c_void_p()
    if runtime.lib.pwStreamCreate(ctypes.byref(stream)) or not stream.value:
        return None
    try:
        with torch.cuda.stream(torch.cuda.ExternalStream(stream.value,
                                                         device=device)):
            if module.stream(device) != stream.value:
                return None
    finally:
        runtime.lib.pwStreamDestroy(stream)
    if module.stream(device) != torch.cuda.current_stream().cuda_stream:
        return None
    table = [None] * (max(codes) + 1)
    for code, dtype in codes.items():
        table[code] = dtype
    return tuple(table)


def _verdict_path(reader_path, torch):
    """Where the verdict of _check_torch_tensors on the reader at
    `reader_path` under this `torch` is kept: a file of the disk cache named
    by the reader's and torch's releases and by the size and modification
    time of the reader and of torch's libraries, so that a rebuilt or
    reinstalled one is checked again. None without a disk cache."""
    directory = cache_dir()
    if not directory:
        return None
    torch_lib = os.path.join(os.path.dirname(torch.__file__), "lib")
    identity = [torch.__version__, getattr(torch.version, "git_version", None),
                _TENSOR_ACCESS_VERSION, _CHECK_VERSION]
    for path in (reader_path, os.path.join(torch_lib, "libc10.so"),
                 os.path.join(torch_lib, "libc10_cuda.so"),
                 os.path.join(torch_lib, "libtorch_cpu.so"),
                 os.path.join(torch_lib, "libtorch_cuda.so"),
                 os.path.join(torch_lib, "libtorch_python.so")):
        try:
            stat = os.stat(path)
            identity.append((os.path.abspath(path), stat.st_size,
                             stat.st_mtime_ns))
        except OSError:
            identity.append((path, None))
    key = hashlib.sha256(repr(identity).encode()).hexdigest()[:40]
    return os.path.join(directory, "torchtensors-%s.dtypes" % key)


def _load_verdict(path, module, torch):
    """The dtype table kept at `path` when it still reads one fresh view as
    torch does (a guard against a file that is not what it names), else
    None."""
    try:
        with open(path, "rb") as f:
            names = f.read(4096).decode("ascii").split()
    except (OSError, UnicodeDecodeError):
        return None
    table = tuple(None if name == "-" else getattr(torch, name, None)
                  for name in names)
    if not table or any(
            name != "-" and not isinstance(dtype, torch.dtype)
            for name, dtype in zip(names, table)):
        return None
    tensor = torch.empty((3, 5), dtype=torch.float32, device="cuda")[1:, 2:]
    probe = module.probe(tensor)
    if probe is None or probe[0] != tensor.data_ptr() or \
            probe[1] != (2, 3) or probe[5] != tuple(tensor.stride()) or \
            not 0 <= probe[2] < len(table) or \
            table[probe[2]] is not torch.float32:
        return None
    return table


def write_atomically(path, data, mode=None):
    """Writes the bytes `data` to `path` through a temporary file beside it
    and a rename, so that readers see the old file or the whole new one,
    never part of it; `mode` sets the new file's permissions (mkstemp makes
    it private). Raises OSError, leaving no temporary file behind."""
    fd, temporary = tempfile.mkstemp(".tmp", ".pwc-", os.path.dirname(path))
    try:
        with os.fdopen(fd, "wb") as f:
            if mode is not None:
                try:
                    os.fchmod(f.fileno(), mode)
                except OSError:
                    pass
            f.write(data)
        os.replace(temporary, path)
    except BaseException:
        try:
            os.unlink(temporary)
        except OSError:
            pass
        raise


def _save_verdict(path, table):
    """Keeps `table` at `path`; a cache that cannot be written costs the
    check at the next first call, nothing more."""
    text = " ".join("-" if dtype is None else str(dtype).rsplit(".", 1)[-1]
                    for dtype in table) + "\n"
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        write_atomically(path, text.encode("ascii"))
    except OSError:
        pass


def _versioned_reader(runtime, torch):
    """pointwise._torchtensors built for this torch's release from the same
    sources (git revision; any CUDA variant), and its path; None when the
    package has none, or one for another torch."""
    path = _beside_runtime(torch_tensors_name(torch.__version__),
                           runtime.path)
    if path is None:
        return None
    try:
        reader = _load_extension("pointwise._torchtensors", path)
    except ImportError:
        return None  # built against libraries this torch does not have
    version, git_version, table_version = reader.built_for()
    if torch_release(version) != torch_release(torch.__version__) or \
            table_version != _TENSOR_ACCESS_VERSION or \
            git_version != getattr(torch.version, "git_version", None):
        return None  # another torch, or a module left from an older build
    return reader, path


def _tensor_offset(torch):
    """Where a torch.Tensor object holds its at::Tensor (the address of its
    TensorImpl, which ``Tensor._cdata`` gives): the one offset past the
    object's header that holds it in each of a few CPU tensors, or None."""
    header = ctypes.sizeof(ctypes.c_void_p) * 2
    offsets = None
    for tensor in (torch.empty(0), torch.empty(3), torch.empty((2, 2))[1:]):
        address = getattr(tensor, "_cdata", None)
        words = type(tensor).__basicsize__ // ctypes.sizeof(ctypes.c_void_p)
        if not isinstance(address, int) or words <= 2:
            return None
        memory = (ctypes.c_void_p * words).from_address(id(tensor))
        found = {i * ctypes.sizeof(ctypes.c_void_p) for i in range(words)
                 if memory[i] == address and
                 i * ctypes.sizeof(ctypes.c_void_p) >= header}
        offsets = found if offsets is None else offsets & found
    return offsets.pop() if offsets and len(offsets) == 1 else None


def _shim_reader(runtime, torch):
    """pointwise._torchshim bound to this torch's C shim, and its path; None
    when the package has none or this torch lacks what it needs."""
    path = _beside_runtime(TORCH_SHIM_NAME, runtime.path)
    if path is None:
        return None
    offset = _tensor_offset(torch)
    if offset is None:
        return None
    try:
        reader = _load_extension("pointwise._torchshim", path)
    except ImportError:
        return None
    torch_lib = os.path.join(os.path.dirname(torch.__file__), "lib")
    problem = reader.bind(*(os.fsencode(os.path.join(torch_lib, name))
                            for name in ("libtorch_cpu.so", "libtorch_cuda.so",
                                         "libtorch_python.so")), offset,
                          _cuda_key_set(torch))
    return None if problem else (reader, path)


def _cuda_key_set(torch):
    """The bits of torch's DispatchKeySet(DispatchKey::CUDA), the key set
    ATen gives a new CUDA tensor before adding the autograd keys, which
    pointwise._torchshim allocates with; 0 where this torch does not say."""
    try:
        keys = torch._C.DispatchKeySet(torch._C.DispatchKey.CUDA).raw_repr()
    except Exception:
        return 0
    return keys if isinstance(keys, int) and 0 < keys < 1 << 64 else 0


def _dispatch_keys(torch, tensor):
    """What torch dispatches `tensor`'s operations on (its key set, as
    text), or None where this torch does not say."""
    try:
        return str(torch._C._dispatch_keys(tensor))
    except Exception:
        return None


def bind_torch_tensors(module, runtime, torch):
    """Lets the C calls of `module` (``pointwise._fastcall``) read torch
    tensors, allocate and find streams through a reader instead of Python
    attributes: pointwise._torchtensors
    (python_bindings/src/TorchTensors.cpp) when it was built for this
    torch's release, else pointwise._torchshim (TorchShim.cpp: torch's C
    shim, any release that exports it); either only once it passes
    _check_torch_tensors. ``POINTWISE_TORCH_TENSORS=0`` keeps attribute
    reads; ``POINTWISE_TORCH_TENSORS=shim`` skips the first reader. The
    check's verdict (its dtype table) is kept in the disk cache, so that
    later processes bind in a few microseconds instead of about a
    millisecond (docs/Performance.md, row `torch-tensor-reader`)."""
    global _torch_tensors, torch_tensors_table_origin
    if _torch_tensors is not None:
        return
    with _lock:
        if _torch_tensors is not None:
            return
        _torch_tensors = False
        choice = os.environ.get("POINTWISE_TORCH_TENSORS", "1")
        if _disabled("POINTWISE_TORCH_TENSORS") or \
                not torch.cuda.is_available():
            return
        # A reader that fails in any way leaves the calls reading
        # attributes: the shim serves torch releases nobody tested here.
        try:
            found = None if choice == "shim" else _versioned_reader(runtime,
                                                                    torch)
            found = found or _shim_reader(runtime, torch)
            if found is None:
                return
            reader, path = found
            verdict = _verdict_path(path, torch)
            table = _load_verdict(verdict, reader, torch) if verdict else None
            origin = "disk"
            if table is None:
                table = _check_torch_tensors(reader, runtime, torch)
                if table is None:
                    return
                origin = "checked"
                if verdict:
                    _save_verdict(verdict, table)
            address = reader.table()
        except Exception:
            return
        module.bind_tensors(address, table)
        _torch_tensors = reader
        torch_tensors_table_origin = origin


def torch_tensors_reader():
    """The module through which the C calls read torch tensors
    ("pointwise._torchtensors" or "pointwise._torchshim"), or None when
    they read attributes."""
    return _torch_tensors.__name__ if _torch_tensors else None


def torch_tensors_in_use():
    """Whether the C calls read torch tensors through a reader
    (:func:`torch_tensors_reader`) rather than attributes."""
    return bool(_torch_tensors)


_thread_state = threading.local()


def select(runtime, device, stream):
    """Makes `device` and `stream` (a raw CUstream address, 0 or None for
    the legacy default stream) current for this thread's launches, skipping
    pwSetStream when it already is, and returns the device that was current
    (-1: none) for :func:`restore` to make current again after the launch
    (pwExchangeDevice: a scoped device guard, as PyTorch's). The C calls
    keep their own record of the stream, so where they are in use it is
    theirs."""
    module = fastcall(runtime)
    if module is not None:
        status, previous = module.select(device, stream or None)
        if status:
            raise runtime.error(status)
        return previous
    previous = ctypes.c_int(-1)
    status = runtime.lib.pwExchangeDevice(device, ctypes.byref(previous))
    if status:
        raise runtime.error(status)
    state = _thread_state
    if getattr(state, "stream", -1) != stream:
        runtime.lib.pwSetStream(stream or None)
        state.stream = stream
    return previous.value


def restore(runtime, device, previous):
    """Ends the scope :func:`select` began for a launch on `device`: makes
    `previous`, the device it returned, current again where it is another
    one."""
    if previous < 0 or previous == device:
        return
    module = fastcall(runtime)
    status = module.restore(device, previous) if module is not None else \
        runtime.lib.pwExchangeDevice(previous, None)
    if status:
        raise runtime.error(status)


def make_launcher(runtime, family, arguments, name, raise_error):
    """The launch of the ``pwFamily`` at address `family`: call it with one
    value per argument, a memref as (pointer, offset, shape, strides) with at
    most its rank dims (leading dims of size 1 and stride 0 are added), a
    scalar as a number. `arguments` has per argument a memref's rank (an
    int) or a scalar's DType. Scalars that do not pack raise TypeError or
    OverflowError naming `name` and the argument; a failed launch calls
    `raise_error(status)`."""
    specs = tuple(a if isinstance(a, int) else (a.pack, a.mlir)
                  for a in arguments)
    module = fastcall(runtime)
    if module is not None:
        return module.Launcher(family=family, arguments=specs, name=name,
                               raise_error=raise_error)
    return PythonLauncher(runtime, family, specs, name, raise_error)


class PythonLauncher:
    """``_fastcall.Launcher`` in Python, where the extension is not built:
    the same descriptors and slots, packed with the struct module into a
    per-thread buffer whose addresses are the ``void **args`` of
    pwFamilyLaunch."""

    def __init__(self, runtime, family, specs, name, raise_error):
        self._launch = runtime._launch
        self._family = ctypes.c_void_p(family)
        self._specs = specs
        self._name = name
        self._raise_error = raise_error
        self._offsets = []
        offset = 0
        for spec in specs:
            self._offsets.append(offset)
            offset += 8 * (3 + 2 * spec) if isinstance(spec, int) else 8
        self._words = max(1, offset // 8)
        self._local = threading.local()

    def _buffers(self):
        try:
            return self._local.buffers
        except AttributeError:
            buffer = (ctypes.c_int64 * self._words)()
            base = ctypes.addressof(buffer)
            args = (ctypes.c_void_p * max(1, len(self._offsets)))(
                *[base + o for o in self._offsets])
            self._local.buffers = (buffer, args)
            return self._local.buffers

    def __call__(self, *values):
        if len(values) != len(self._specs):
            raise TypeError("%s: the launch takes %d arguments, got %d"
                            % (self._name, len(self._specs), len(values)))
        buffer, args = self._buffers()
        for i, (spec, value, offset) in enumerate(
                zip(self._specs, values, self._offsets)):
            try:
                if isinstance(spec, int):
                    self._pack_view(buffer, offset, spec, value)
                else:
                    self._pack_scalar(buffer, offset, spec[0], value)
            except (TypeError, ValueError, OverflowError, struct.error) as e:
                kind = type(e)
                if isinstance(e, struct.error):
                    # A number of the right kind out of range, or no such
                    # number.
                    integral = spec[0] in "bhiqBHIQ"
                    kind = OverflowError if isinstance(
                        value, numbers.Integral if integral else numbers.Real) \
                        else TypeError
                if isinstance(spec, int):
                    raise kind("%s: argument #%d: %s"
                               % (self._name, i, e)) from None
                raise kind("%s: argument #%d: cannot pass %r as a scalar %s "
                           "(%s)" % (self._name, i, value, spec[1], e)) from None
        status = self._launch(self._family, args)
        if status:
            self._raise_error(status)
            raise RuntimeError("pointwise: launch failed (status %d)" % status)

    @staticmethod
    def _pack_view(buffer, offset, rank, value):
        if type(value) is not tuple or len(value) != 4:
            raise TypeError("a memref is a (pointer, offset, shape, strides) "
                            "tuple")
        pointer, view_offset, shape, strides = value
        if len(shape) > rank:
            raise ValueError("%d dims for a memref of rank %d"
                             % (len(shape), rank))
        if len(shape) != len(strides):
            raise ValueError("%d sizes but %d strides"
                             % (len(shape), len(strides)))
        missing = rank - len(shape)
        struct.pack_into("<QQq%dq" % (2 * rank), buffer, offset, pointer,
                         pointer, view_offset, *((1,) * missing), *shape,
                         *((0,) * missing), *strides)

    @staticmethod
    def _pack_scalar(buffer, offset, code, value):
        ctypes.memset(ctypes.addressof(buffer) + offset, 0, 8)
        if code == "E":
            struct.pack_into("<H", buffer, offset, bfloat16_bits(value))
        else:
            struct.pack_into("<" + code, buffer, offset, value)


def bfloat16_bits(value):
    """The bfloat16 bit pattern of a real number: rounded to float32 (an
    OverflowError if it is beyond float32's range), then to the upper 16
    bits, to nearest even; NaNs stay quiet NaNs."""
    bits = struct.unpack("<I", struct.pack("<f", float(value)))[0]
    if (bits & 0x7F800000) == 0x7F800000 and (bits & 0x007FFFFF):
        return ((bits >> 16) & 0xFFFF) | 0x0040       # quiet NaN
    bits += 0x7FFF + ((bits >> 16) & 1)
    return (bits >> 16) & 0xFFFF
