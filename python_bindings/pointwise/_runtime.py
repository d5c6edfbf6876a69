"""ctypes bindings of libPointwiseRuntime and of the kernel families that
``pw-compile`` emits.

No MLIR is needed: a ``.so`` from ``pw-compile kernels.mlir -o kernels.so``
exports, per function holding a ``pointwise.map``, a ``pw_family_<name>``
table (``pwFamily`` of include/Pointwise/Runtime/Runtime.h). This module reads
those tables and launches families through ``pwFamilyLaunch``::

    from pointwise import KernelLibrary
    lib = KernelLibrary("build/workloads.so")
    add = lib.family("add_f32")        # memref<?x?x?x?xf32> x 3
    add(a, b.T, out)                   # torch tensors on the GPU, any strides
    print(add.last_variant())          # the variant the runtime picked

Memref arguments are torch tensors on a CUDA device, objects with
``__cuda_array_interface__`` (CuPy, Numba) or :class:`Strided` views (raw
pointer, shape, strides and offset in elements: negative strides, which
torch cannot express). Views of lower rank than the declared one get leading
dims of size 1 (stride 0), as NumPy broadcasting does. Scalars are converted
to the scalar argument's C type. Launches are asynchronous, on the calling
thread's current stream (:func:`set_stream`; by default the legacy default
stream, which is PyTorch's default stream too).
"""

import ctypes
import enum
import inspect
import numbers
import os
import sys
import threading
import types

from . import _dtypes
from ._native import (bind_torch_tensors, fastcall, library_candidates,
                      make_launcher)

__all__ = [
    "PointwiseError", "Status", "ElementType", "Strided", "Runtime",
    "KernelLibrary", "Family", "ArgumentInfo", "VariantInfo",
    "load_runtime", "last_variant", "set_stream", "get_stream",
    "synchronize", "device_count", "device_name",
]

RUNTIME_NAME = "libPointwiseRuntime.so"


# ===------------------------------------------------------------------------===
# Statuses and errors
# ===------------------------------------------------------------------------===

def row_major_strides(shape):
    """The element strides of a C-contiguous array of `shape` (a size-0 or
    size-1 dim counts as 1, as PyTorch and NumPy do)."""
    strides, step = [], 1
    for size in reversed(shape):
        strides.append(step)
        step *= max(size, 1)
    return tuple(reversed(strides))


class Status(enum.IntEnum):
    """pwStatus."""
    SUCCESS = 0
    ERROR_INVALID_VALUE = 1
    ERROR_NO_DRIVER = 2
    ERROR_NO_DEVICE = 3
    ERROR_DRIVER = 4
    ERROR_LAYOUT = 5
    ERROR_NOT_FOUND = 6
    ERROR_OUT_OF_MEMORY = 7


PW_SUCCESS = Status.SUCCESS
PW_ERROR_INVALID_VALUE = Status.ERROR_INVALID_VALUE
PW_ERROR_NO_DRIVER = Status.ERROR_NO_DRIVER
PW_ERROR_NO_DEVICE = Status.ERROR_NO_DEVICE
PW_ERROR_DRIVER = Status.ERROR_DRIVER
PW_ERROR_LAYOUT = Status.ERROR_LAYOUT
PW_ERROR_NOT_FOUND = Status.ERROR_NOT_FOUND
PW_ERROR_OUT_OF_MEMORY = Status.ERROR_OUT_OF_MEMORY


def _status_name(status):
    try:
        return "PW_" + Status(status).name
    except ValueError:
        return "pwStatus(%d)" % status


class PointwiseError(RuntimeError):
    """A runtime call returned a non-zero pwStatus.

    ``status`` is the :class:`Status`, ``message`` the runtime's
    ``pwGetLastErrorMessage()`` at the time of the failure."""

    def __init__(self, status, message=""):
        try:
            status = Status(status)
        except ValueError:
            status = int(status)
        self.status = status
        self.status_name = _status_name(status)
        self.message = message
        super().__init__("%s: %s" % (self.status_name, message)
                         if message else self.status_name)


# ===------------------------------------------------------------------------===
# Element types
# ===------------------------------------------------------------------------===

class ElementType(enum.IntEnum):
    """pwElementType."""
    I1 = 0
    I8 = 1
    I16 = 2
    I32 = 3
    I64 = 4
    F16 = 5
    BF16 = 6
    F32 = 7
    F64 = 8


def _type_name(code):
    """The MLIR name of element type `code`: "i1", ... "f64"."""
    return _dtypes.ALL_DTYPES[code].mlir


# MLIR names and NumPy's "b1" beside the torch and NumPy names of _dtypes.
_MLIR_NAMES = {d.mlir: d.code for d in _dtypes.ALL_DTYPES}
_MLIR_NAMES["b1"] = 0


def _element_type_code(dtype):
    """The pwElementType code of a dtype given as a code, an MLIR name ('f32',
    'i1'), a NumPy-style name ('float32', 'bool'), a torch dtype or a NumPy
    dtype or scalar type."""
    if isinstance(dtype, (int, ElementType)) and not isinstance(dtype, bool):
        if 0 <= int(dtype) < len(_dtypes.DTYPES_OF_CODE):
            return int(dtype)
        raise ValueError("element type code %r out of range" % (dtype,))
    if isinstance(dtype, str) and dtype.lower() in _MLIR_NAMES:
        return _MLIR_NAMES[dtype.lower()]
    try:
        return _dtypes.as_dtype(dtype).code
    except TypeError:
        raise ValueError("unsupported element type %r" % (dtype,)) from None


_torch_codes = None


def _torch_dtype_codes():
    """{torch dtype: element type code}, built on first use."""
    global _torch_codes
    if _torch_codes is None:
        import torch
        codes = {}
        for dtype in _dtypes.ALL_DTYPES:
            torch_dtype = getattr(torch, dtype.name, None)  # uint16: >= 2.3
            if torch_dtype is not None:
                codes[torch_dtype] = dtype.code
        _torch_codes = codes
    return _torch_codes


def _torch_dtypes_of(code):
    """The torch dtypes matching element type `code` (a frozenset)."""
    return frozenset(d for d, c in _torch_dtype_codes().items() if c == code)


def _declared(strides):
    """Declared strides as MLIR prints them: [?, 1]."""
    return "[%s]" % ", ".join("?" if s is None else str(s) for s in strides)


def _is_real_number(value):
    """Whether `value` is a bool, int, float or real NumPy scalar (bool_
    included): what the families' scalar slots take."""
    if isinstance(value, numbers.Real):
        return True
    numpy = sys.modules.get("numpy")
    return numpy is not None and isinstance(value, numpy.bool_)


# ===------------------------------------------------------------------------===
# Strided views
# ===------------------------------------------------------------------------===

class Strided:
    """A view of device memory: element ``(i_0, ..., i_{r-1})`` is at element
    offset ``offset + sum_d i_d * strides[d]`` from ``ptr`` (an address, or an
    object with ``data_ptr()`` such as a torch tensor, which then also stays
    referenced). Strides and offset count elements and may be negative or 0.
    """

    __slots__ = ("ptr", "shape", "strides", "offset", "dtype", "code",
                 "owner", "readonly")

    def __init__(self, ptr, shape, strides, offset=0, dtype="f32",
                 owner=None, readonly=False):
        if not isinstance(ptr, int):
            if owner is None:
                owner = ptr
            ptr = ptr.data_ptr()
        shape = tuple(int(s) for s in shape)
        strides = tuple(int(s) for s in strides)
        if len(shape) != len(strides):
            raise ValueError("Strided: %d sizes but %d strides"
                             % (len(shape), len(strides)))
        if any(s < 0 for s in shape):
            raise ValueError("Strided: negative size in %r" % (shape,))
        self.ptr = int(ptr)
        self.shape = shape
        self.strides = strides
        self.offset = int(offset)
        self.dtype = dtype
        self.code = _element_type_code(dtype)
        self.owner = owner
        self.readonly = bool(readonly)

    @classmethod
    def from_tensor(cls, tensor):
        """The view of a torch tensor (or anything with ``data_ptr()``,
        ``shape``, ``stride()`` and ``dtype``)."""
        return cls(tensor.data_ptr(), tuple(tensor.shape), tuple(tensor.stride()),
                   0, tensor.dtype, owner=tensor)

    @classmethod
    def flip(cls, tensor, dims):
        """``torch.flip(tensor, dims)`` as a view (negative strides) of
        tensor's memory, without a copy."""
        shape = tuple(tensor.shape)
        strides = list(tensor.stride())
        offset = 0
        for d in dims:
            d = d % len(shape) if shape else d
            if shape[d] > 0:
                offset += (shape[d] - 1) * strides[d]
            strides[d] = -strides[d]
        return cls(tensor.data_ptr(), shape, strides, offset, tensor.dtype,
                   owner=tensor)

    @property
    def ndim(self):
        return len(self.shape)

    def numel(self):
        n = 1
        for s in self.shape:
            n *= s
        return n

    def __repr__(self):
        return "Strided(0x%x, shape=%r, strides=%r, offset=%d, dtype=%s)" % (
            self.ptr, self.shape, self.strides, self.offset,
            _type_name(self.code))


# ===------------------------------------------------------------------------===
# The runtime library
# ===------------------------------------------------------------------------===

# pwVariantLoader: (family, variant, context, message, capacity) -> status.
# ctypes takes the GIL for it, also on a thread that released it to launch.
VariantLoader = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_int32,
                                 ctypes.c_void_p, ctypes.c_void_p,
                                 ctypes.c_size_t)


class Runtime:
    """libPointwiseRuntime.so, loaded with ctypes."""

    def __init__(self, path):
        # A bare name is looked up by the dynamic linker.
        self.path = os.path.abspath(path) if os.sep in path else path
        # RTLD_GLOBAL: kernel libraries loaded later resolve the runtime by
        # its soname to this very copy (one error state, one current stream).
        self.lib = lib = ctypes.CDLL(self.path, mode=ctypes.RTLD_GLOBAL)
        if os.sep not in self.path:
            self.path = _loaded_path(lib) or self.path
        c_int, c_void_p, c_char_p = ctypes.c_int, ctypes.c_void_p, ctypes.c_char_p
        signatures = {
            "pwGetStatusName": (c_char_p, [c_int]),
            "pwGetLastErrorMessage": (c_char_p, []),
            "pwTakePendingError": (c_int, []),
            "pwGetDeviceCount": (c_int, [ctypes.POINTER(c_int)]),
            "pwSetDevice": (c_int, [c_int]),
            "pwExchangeDevice": (c_int, [c_int, ctypes.POINTER(c_int)]),
            "pwGetDeviceName": (c_int, [c_int, c_char_p, ctypes.c_size_t]),
            "pwGetDeviceArch": (c_int, [c_int, c_char_p, ctypes.c_size_t]),
            "pwDeviceSynchronize": (c_int, []),
            "pwMalloc": (c_int, [ctypes.POINTER(c_void_p), ctypes.c_size_t]),
            "pwFree": (c_int, [c_void_p]),
            "pwMemcpyHostToDevice": (c_int, [c_void_p, c_void_p, ctypes.c_size_t]),
            "pwMemcpyDeviceToHost": (c_int, [c_void_p, c_void_p, ctypes.c_size_t]),
            "pwMemsetBytes": (c_int, [c_void_p, ctypes.c_ubyte, ctypes.c_size_t]),
            "pwStreamCreate": (c_int, [ctypes.POINTER(c_void_p)]),
            "pwStreamDestroy": (c_int, [c_void_p]),
            "pwStreamSynchronize": (c_int, [c_void_p]),
            "pwSetStream": (None, [c_void_p]),
            "pwGetStream": (c_void_p, []),
            "pwGetLastVariant": (c_int, []),
            "pwSetVariantLoader": (c_int, [c_void_p, VariantLoader, c_void_p]),
            "pwLibraryOpen": (c_int, [c_char_p, ctypes.POINTER(c_void_p)]),
            "pwLibraryGetSymbol": (c_void_p, [c_void_p, c_char_p]),
            "pwLibraryClose": (None, [c_void_p]),
            "pwFamilyTakeVariants": (c_int, [c_void_p, c_void_p]),
            "pwGetHostFingerprint": (c_char_p, []),
        }
        for name, (restype, argtypes) in signatures.items():
            function = getattr(lib, name)
            function.restype = restype
            function.argtypes = argtypes
        # Called per launch: no argtypes (the arguments are ready-made
        # c_void_p objects), an int result.
        self._launch = lib.pwFamilyLaunch
        self._launch.restype = c_int
        self._launch.argtypes = None

    # -- errors --
    def last_error_message(self):
        message = self.lib.pwGetLastErrorMessage()
        return message.decode("utf-8", "replace") if message else ""

    def error(self, status):
        """The PointwiseError of a failed call that returned `status`."""
        return PointwiseError(status, self.last_error_message())

    def check(self, status):
        if status:
            raise self.error(status)

    def status_name(self, status):
        name = self.lib.pwGetStatusName(int(status))
        return name.decode() if name else _status_name(status)

    def take_pending_error(self):
        """Raises the calling thread's pending error of compiled code, if any."""
        self.check(self.lib.pwTakePendingError())

    # -- devices --
    def device_count(self):
        count = ctypes.c_int(0)
        self.check(self.lib.pwGetDeviceCount(ctypes.byref(count)))
        return count.value

    def set_device(self, device):
        self.check(self.lib.pwSetDevice(int(device)))

    def device_name(self, device=0):
        buffer = ctypes.create_string_buffer(256)
        self.check(self.lib.pwGetDeviceName(int(device), buffer, 256))
        return buffer.value.decode("utf-8", "replace")

    def device_arch(self, device=0):
        buffer = ctypes.create_string_buffer(32)
        self.check(self.lib.pwGetDeviceArch(int(device), buffer, 32))
        return buffer.value.decode()

    def synchronize(self):
        self.check(self.lib.pwDeviceSynchronize())

    # -- streams --
    def set_stream(self, stream):
        """Makes `stream` the calling thread's current stream: None or 0 (the
        legacy default stream), a raw CUstream address, or an object with a
        ``cuda_stream`` (torch.cuda.Stream) or ``ptr`` (cupy.cuda.Stream)
        attribute."""
        self.lib.pwSetStream(_stream_handle(stream))

    def get_stream(self):
        return self.lib.pwGetStream() or 0

    # -- launches --
    def last_variant(self):
        """The variant index the calling thread's last pwFamilyLaunch chose
        (also when that variant is not compiled and the launch failed with
        PW_ERROR_NOT_FOUND), -1 when it chose none."""
        return self.lib.pwGetLastVariant()

    def set_variant_loader(self, family, loader):
        """Makes `loader` (a :data:`VariantLoader`, which the caller keeps
        alive) the variant loader of the ``pwFamily`` at address `family`,
        or removes the family's loader when None (pwSetVariantLoader)."""
        self.check(self.lib.pwSetVariantLoader(family, loader, None))


def _stream_handle(stream):
    if stream is None:
        return None
    if isinstance(stream, int):
        return stream or None
    for attribute in ("cuda_stream", "ptr", "handle"):
        handle = getattr(stream, attribute, None)
        if isinstance(handle, int):
            return handle or None
    raise TypeError("not a stream: %r" % (stream,))


_runtime = None
_runtime_lock = threading.Lock()


def _runtime_candidates(extra_dirs=()):
    return library_candidates(RUNTIME_NAME, "POINTWISE_RUNTIME", extra_dirs)


def load_runtime(path=None, _extra_dirs=()):
    """Loads libPointwiseRuntime.so once per process and returns the
    :class:`Runtime`. Without `path`: ``$POINTWISE_RUNTIME`` (the library or
    its directory), next to this module, its parent directory (the GPU
    bundle's layout), ``build/lib`` of the source tree, then the dynamic
    linker's search path."""
    global _runtime
    with _runtime_lock:
        if _runtime is not None:
            if path is not None and not _same_file(path, _runtime.path):
                raise ValueError(
                    "libPointwiseRuntime is already loaded from %s; cannot "
                    "load a second copy from %s" % (_runtime.path, path))
            return _runtime
        if path is None:
            for candidate in _runtime_candidates(_extra_dirs):
                if os.path.isfile(candidate):
                    path = candidate
                    break
        if path is None:
            # The dynamic linker's search path (LD_LIBRARY_PATH, ldconfig).
            try:
                runtime = Runtime(RUNTIME_NAME)
            except OSError:
                raise OSError(
                    "cannot find %s: set POINTWISE_RUNTIME to it (or its "
                    "directory), or pass load_runtime(path); looked in %s"
                    % (RUNTIME_NAME, ", ".join(_runtime_candidates(_extra_dirs)))
                ) from None
        else:
            runtime = Runtime(path)
        _runtime = runtime
        return runtime


def _loaded_path(lib):
    """The file a CDLL was loaded from (dladdr of one of its functions)."""
    class DlInfo(ctypes.Structure):
        _fields_ = [("dli_fname", ctypes.c_char_p), ("dli_fbase", ctypes.c_void_p),
                    ("dli_sname", ctypes.c_char_p), ("dli_saddr", ctypes.c_void_p)]
    try:
        libc = ctypes.CDLL(None)
        dladdr = libc.dladdr
        dladdr.argtypes = [ctypes.c_void_p, ctypes.POINTER(DlInfo)]
        info = DlInfo()
        address = ctypes.cast(lib.pwGetLastVariant, ctypes.c_void_p).value
        if dladdr(address, ctypes.byref(info)) and info.dli_fname:
            return os.path.abspath(info.dli_fname.decode())
    except (OSError, AttributeError):
        pass
    return None


def _same_file(a, b):
    try:
        return os.path.samefile(a, b)
    except OSError:
        return os.path.abspath(a) == os.path.abspath(b)


def last_variant():
    """The variant index the calling thread's last family launch chose (-1 if
    it launched nothing)."""
    return load_runtime().last_variant()


def set_stream(stream):
    """Sets the calling thread's current stream (see Runtime.set_stream)."""
    load_runtime().set_stream(stream)


def get_stream():
    return load_runtime().get_stream()


def synchronize():
    load_runtime().synchronize()


def device_count():
    return load_runtime().device_count()


def device_name(device=0):
    return load_runtime().device_name(device)


# ===------------------------------------------------------------------------===
# Family tables (mirrors of include/Pointwise/Runtime/Runtime.h)
# ===------------------------------------------------------------------------===

class _PwFamilyArgument(ctypes.Structure):
    _fields_ = [("kind", ctypes.c_int32),
                ("elementType", ctypes.c_int32),
                ("rank", ctypes.c_int32),
                ("abiVersion", ctypes.c_int32),
                ("staticSizes", ctypes.POINTER(ctypes.c_int64)),
                ("staticStrides", ctypes.POINTER(ctypes.c_int64)),
                ("staticOffset", ctypes.c_int64)]


class _PwVariant(ctypes.Structure):
    _fields_ = [("rank", ctypes.c_int32),
                ("indexBitwidth", ctypes.c_int32),
                ("strategy", ctypes.c_int32),
                ("transposedArgument", ctypes.c_int32),
                ("entry", ctypes.c_void_p)]


class _PwFamily(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char_p),
                ("numArguments", ctypes.c_int32),
                ("numOutputs", ctypes.c_int32),
                ("numInputs", ctypes.c_int32),
                ("numVariants", ctypes.c_int32),
                ("arguments", ctypes.POINTER(_PwFamilyArgument)),
                ("outputs", ctypes.POINTER(ctypes.c_int32)),
                ("inputs", ctypes.POINTER(ctypes.c_int32)),
                ("variants", ctypes.POINTER(_PwVariant))]


PW_ARGUMENT_SCALAR = 0
PW_ARGUMENT_MEMREF = 1
PW_DYNAMIC = -(1 << 63)     # a dynamic stride or offset in a family table
PW_FAMILY_ABI_VERSION = 2   # the layout of _PwFamilyArgument above
PW_STRATEGY_LINEAR = 0
PW_STRATEGY_TRANSPOSE = 1
PW_STRATEGY_LINEAR_NARROW = 2   # 8-byte vectors, for rows off 16 bytes
_STRATEGY_NAMES = {PW_STRATEGY_LINEAR: "linear",
                   PW_STRATEGY_TRANSPOSE: "transpose",
                   PW_STRATEGY_LINEAR_NARROW: "linear-narrow"}


class ArgumentInfo:
    """One argument of a family's function."""
    __slots__ = ("index", "kind", "element_type", "rank", "static_sizes",
                 "static_strides", "static_offset", "role")

    def __init__(self, index, kind, element_type, rank, static_sizes, role,
                 static_strides=None, static_offset=None):
        self.index = index
        self.kind = kind                  # "memref" or "scalar"
        self.element_type = element_type  # "f32", ...
        self.rank = rank                  # memrefs: the declared rank
        self.static_sizes = static_sizes  # memrefs: sizes, -1 dynamic
        # memrefs: the declared strides (elements, None where dynamic) and
        # offset (None when dynamic), as in the memref type
        self.static_strides = static_strides if static_strides is not None \
            else (None,) * rank
        self.static_offset = static_offset
        self.role = role                  # "output", "input", "input+output", "unused"

    @property
    def is_memref(self):
        return self.kind == "memref"

    @property
    def has_static_layout(self):
        """Whether the declared type fixes a stride or the offset: calls
        must pass views with those (the strides of dims of more than one
        element, and the offset unless the view is empty)."""
        return self.static_offset is not None or \
            any(s is not None for s in self.static_strides)

    def as_dict(self):
        return {k: getattr(self, k) for k in self.__slots__}

    def __repr__(self):
        if self.is_memref:
            dims = "x".join("?" if s < 0 else str(s) for s in self.static_sizes)
            layout = ""
            if self.has_static_layout:
                layout = ", strided<%s, offset: %s>" % (
                    _declared(self.static_strides),
                    "?" if self.static_offset is None else self.static_offset)
            return "#%d memref<%s%s%s%s> (%s)" % (
                self.index, dims, "x" if dims else "", self.element_type,
                layout, self.role)
        return "#%d %s (%s)" % (self.index, self.element_type, self.role)


class VariantInfo:
    """One compiled variant of a family."""
    __slots__ = ("index", "rank", "index_bitwidth", "strategy",
                 "transposed_argument")

    def __init__(self, index, rank, index_bitwidth, strategy,
                 transposed_argument):
        self.index = index
        self.rank = rank
        self.index_bitwidth = index_bitwidth
        self.strategy = strategy  # "linear", "linear-narrow" or "transpose"
        self.transposed_argument = transposed_argument  # -1 for linear

    def as_dict(self):
        return {k: getattr(self, k) for k in self.__slots__}

    def __repr__(self):
        text = "variant %d: rank %d, i%d, %s" % (
            self.index, self.rank, self.index_bitwidth, self.strategy)
        if self.strategy == "transpose":
            text += " (argument #%d)" % self.transposed_argument
        return text


# ===------------------------------------------------------------------------===
# Families
# ===------------------------------------------------------------------------===

# The most dims of a memref argument FamilyCall handles (kMaxRank of
# python_bindings/src/CallSupport.h); families with more take the general
# call.
_C_CALL_MAX_RANK = 16


class _NoTensor:
    """Stands for torch.Tensor until torch is imported."""


def _torch_tensor_type():
    torch = sys.modules.get("torch")
    return torch.Tensor if torch is not None else _NoTensor


class Family:
    """A kernel family of a :class:`KernelLibrary`. Call it with one value per
    argument of the compiled function: memrefs as CUDA tensors, objects with
    ``__cuda_array_interface__`` or :class:`Strided` views, scalars as
    Python numbers. Outputs are written in place; returns None."""

    def __init__(self, library, name, table):
        self.library = library
        self.runtime = library.runtime
        self.name = name
        self._table = table
        self.num_arguments = table.numArguments
        self.outputs = tuple(table.outputs[i] for i in range(table.numOutputs))
        self.inputs = tuple(table.inputs[i] for i in range(table.numInputs))
        if table.numArguments > 0 and \
                table.arguments[0].abiVersion != PW_FAMILY_ABI_VERSION:
            # The arguments after the first are only where this reader
            # expects them in a table of its version.
            raise ValueError(
                "%s: family table of ABI version %d, this package reads "
                "version %d: rebuild the library with this version's "
                "pw-compile" % (name, table.arguments[0].abiVersion,
                                PW_FAMILY_ABI_VERSION))
        arguments = []
        for i in range(table.numArguments):
            a = table.arguments[i]
            is_memref = a.kind == PW_ARGUMENT_MEMREF
            if not 0 <= a.elementType < len(_dtypes.DTYPES_OF_CODE):
                raise ValueError("%s: argument #%d has unknown element type "
                                 "code %d" % (name, i, a.elementType))
            sizes = ()
            if is_memref and a.staticSizes:
                sizes = tuple(a.staticSizes[d] for d in range(a.rank))
            elif is_memref:
                sizes = (-1,) * a.rank
            strides, offset = (None,) * (a.rank if is_memref else 0), None
            if is_memref and a.staticStrides:
                strides = tuple(None if a.staticStrides[d] == PW_DYNAMIC
                                else a.staticStrides[d] for d in range(a.rank))
                offset = None if a.staticOffset == PW_DYNAMIC else a.staticOffset
            role = ("input+output" if i in self.outputs and i in self.inputs
                    else "output" if i in self.outputs
                    else "input" if i in self.inputs else "unused")
            arguments.append(ArgumentInfo(
                i, "memref" if is_memref else "scalar",
                _type_name(a.elementType), a.rank if is_memref else 0,
                sizes, role, strides, offset))
        self.arguments = tuple(arguments)
        self._codes = tuple(table.arguments[i].elementType
                            for i in range(table.numArguments))
        self.variants = tuple(
            VariantInfo(i, v.rank, v.indexBitwidth,
                        _STRATEGY_NAMES.get(v.strategy, str(v.strategy)),
                        v.transposedArgument)
            for i, v in ((i, table.variants[i])
                         for i in range(table.numVariants)))
        self._family_pointer = ctypes.c_void_p(ctypes.addressof(table))
        self._build_call()

    # -- description --
    def describe(self):
        """The family's table as a dict (JSON-serializable)."""
        return {
            "name": self.name,
            "arguments": [a.as_dict() for a in self.arguments],
            "outputs": list(self.outputs),
            "inputs": list(self.inputs),
            "variants": [v.as_dict() for v in self.variants],
        }

    def __str__(self):
        lines = ["family %s: %d arguments, outputs %s, inputs %s, %d variants"
                 % (self.name, self.num_arguments, list(self.outputs),
                    list(self.inputs), len(self.variants))]
        lines += ["  " + repr(a) for a in self.arguments]
        lines += ["  " + repr(v) for v in self.variants]
        return "\n".join(lines)

    def __repr__(self):
        return "<pointwise.Family %s of %s>" % (self.name, self.library.path)

    def variant(self, index):
        """The VariantInfo of variant `index`, None for -1."""
        return None if index < 0 else self.variants[index]

    def last_variant(self):
        """The VariantInfo of the calling thread's last launch (meaningful
        right after a call of this family), None if it launched nothing."""
        return self.variant(self.runtime.last_variant())

    # -- calls --
    def _build_call(self):
        """Makes the family callable: the general call (_general_call) that
        takes every accepted argument and launches through the family's
        launcher (pointwise._native.make_launcher), and the common call in C
        (_c_call) in front of it once torch tensors can come."""
        runtime = self.runtime

        def raise_error(status):
            raise runtime.error(status)

        self._raise_error = raise_error
        self._launch = make_launcher(
            runtime, self._family_pointer.value,
            [a.rank if a.is_memref else _dtypes.DTYPES_OF_CODE[code][0]
             for a, code in zip(self.arguments, self._codes)],
            self.name, raise_error)
        self._tensor_type = _NoTensor
        self._accepted = (frozenset(),) * self.num_arguments
        tensor_type = _torch_tensor_type()
        if tensor_type is not _NoTensor:
            self._bind_torch(tensor_type)
        else:
            self._install_call(None)

    def _install_call(self, c_call):
        """Makes the C call `c_call` (or, when None, the general call) this
        family's __call__. A class per family, so that instances stay
        callable the normal way (special methods are looked up on the
        type)."""
        self.__class__ = type("Family_" + self.name, (Family,), {
            "__call__": c_call if c_call is not None else Family._general_call,
            "__slots__": ()})
        self.__signature__ = inspect.Signature([
            inspect.Parameter("a%d" % i,
                              inspect.Parameter.POSITIONAL_OR_KEYWORD)
            for i in range(self.num_arguments)])

    def _bind_torch(self, tensor_type):
        self._tensor_type = tensor_type
        self._accepted = tuple(
            _torch_dtypes_of(code) if a.is_memref else frozenset()
            for a, code in zip(self.arguments, self._codes))
        torch = sys.modules.get("torch")
        if torch is not None and tensor_type is torch.Tensor and \
                not torch.cuda.is_initialized():
            # Binding the tensor reader starts CUDA (its checks allocate):
            # not when the family is made, which may be before a fork, but
            # at its first call, which has CUDA tensors.
            self._install_call(self._c_call_at_first_call(tensor_type))
        else:
            self._install_call(self._c_call(tensor_type))

    def _c_call_at_first_call(self, tensor_type):
        def __call__(family, *args, **kwargs):
            family._install_call(family._c_call(tensor_type))
            return family._general_call(*args, **kwargs)
        return __call__

    def _c_call(self, tensor_type):
        """The common call of this family in C (``pointwise._fastcall.
        FamilyCall``, python_bindings/src/FamilyCall.cpp) for CUDA tensors
        and the common scalars, handing everything else to _general_call;
        None where there is none: the extension not built or
        ``POINTWISE_FASTCALL=0``, or a half-precision scalar argument, or a
        memref of rank above 16 (docs/Performance.md, row
        ``python-c-call``)."""
        if any(not a.is_memref and _dtypes.ALL_DTYPES[code].pack not in "?bhiqfd"
               for a, code in zip(self.arguments, self._codes)):
            return None
        if any(a.is_memref and a.rank > _C_CALL_MAX_RANK for a in self.arguments):
            return None
        module = fastcall(self.runtime)
        if module is None or module.bound_runtime_path != self.runtime.path:
            return None  # the C calls launch through another runtime
        torch = sys.modules.get("torch")
        if torch is not None and tensor_type is torch.Tensor:
            bind_torch_tensors(module, self.runtime, torch)
        specs = []
        for i, (a, code) in enumerate(zip(self.arguments, self._codes)):
            if a.is_memref:
                static = a.static_sizes if any(s >= 0 for s in a.static_sizes) \
                    else ()
                spec = (a.rank, tuple(static), tuple(self._accepted[i]))
                if a.has_static_layout:
                    spec += (tuple(PW_DYNAMIC if s is None else s
                                   for s in a.static_strides),
                             PW_DYNAMIC if a.static_offset is None
                             else a.static_offset,
                             _dtypes.ALL_DTYPES[code].itemsize)
                specs.append(spec)
            else:
                specs.append(_dtypes.ALL_DTYPES[code].pack)
        return module.FamilyCall(
            family=self._family_pointer.value, arguments=tuple(specs),
            slow=types.MethodType(Family._general_call, self),
            tensor_type=tensor_type, raise_error=self._raise_error)

    def _general_call(self, *args, **kwargs):
        """The call of any accepted arguments (by position, or by name: a0,
        a1, ...): reads each memref argument (torch tensors, Strided views,
        ``__cuda_array_interface__``), fits it to the declared type (rank,
        static sizes, strides and offset), checks the scalars' kinds, and
        launches; raises the error that names the argument otherwise."""
        if kwargs:
            try:
                args = self.__signature__.bind(*args, **kwargs).args
            except TypeError as e:
                raise TypeError("%s: %s" % (self.name, e)) from None
        if len(args) != self.num_arguments:
            raise TypeError("%s takes %d arguments (%d given)"
                            % (self.name, self.num_arguments, len(args)))
        tensor_type = self._tensor_type
        values = list(args)
        for i, (a, value) in enumerate(zip(self.arguments, args)):
            code = self._codes[i]
            if not a.is_memref:
                if code == ElementType.I1 and type(value) is not bool:
                    self._check_real(i, value, "i1", "a bool or a real number")
                elif code == ElementType.BF16:
                    self._check_real(i, value, "bf16", "a real number")
                continue
            if type(value) is tensor_type and value.dtype in self._accepted[i] \
                    and value.is_cuda and not value.is_neg():
                pointer, offset = value.data_ptr(), 0
                sizes, strides = value.shape, value.stride()
            elif type(value) is Strided and value.code == code and \
                    not (value.readonly and i in self.outputs):
                pointer, offset = value.ptr, value.offset
                sizes, strides = value.shape, value.strides
            else:
                pointer, offset, sizes, strides = self._generic_view(i, value)
            if a.has_static_layout:
                sizes, strides = self._pad(i, sizes, strides)
                pointer, offset = self._check_static(i, sizes, strides,
                                                     pointer, offset)
            elif any(s >= 0 for s in a.static_sizes):
                sizes, strides = self._pad(i, sizes, strides)
                self._check_static(i, sizes)
            elif len(sizes) > a.rank:
                sizes, strides = self._pad(i, sizes, strides)
            values[i] = (pointer, offset, tuple(sizes), tuple(strides))
        self._launch(*values)

    def _argument_error(self, index, message, kind=TypeError):
        return kind("%s: argument #%d: %s" % (self.name, index, message))

    def _expected(self, index):
        code = self._codes[index]
        names = " or ".join("torch." + d.name
                            for d in _dtypes.DTYPES_OF_CODE[code])
        return "%s (%s)" % (_type_name(code), names)

    def _generic_view(self, index, value):
        """(pointer, offset, shape, strides) of memref argument `index` from
        any accepted object; raises TypeError/ValueError otherwise."""
        code = self._codes[index]
        output = index in self.outputs
        torch = sys.modules.get("torch")
        if torch is not None and isinstance(value, torch.Tensor):
            if self._tensor_type is _NoTensor:
                self._bind_torch(torch.Tensor)
            got = _torch_dtype_codes().get(value.dtype)
            if got != code:
                raise self._argument_error(
                    index, "expected element type %s, got a tensor of %s"
                    % (self._expected(index), value.dtype))
            if not value.is_cuda:
                raise self._argument_error(
                    index, "the tensor is on %s; families take CUDA tensors"
                    % value.device)
            if value.layout is not torch.strided:
                raise self._argument_error(
                    index, "%s tensors are not supported (strided ones are)"
                    % str(value.layout).replace("torch.", ""))
            if value.is_neg() or value.is_conj():
                raise self._argument_error(
                    index, "the tensor has its negative or conjugate bit set "
                    "(a view such as x.conj().imag): its memory does not hold "
                    "its values; pass x.resolve_neg() / x.resolve_conj()")
            return value.data_ptr(), 0, tuple(value.shape), tuple(value.stride())
        if isinstance(value, Strided):
            if value.code != code:
                raise self._argument_error(
                    index, "expected element type %s, got a Strided view of %s"
                    % (self._expected(index), _type_name(value.code)))
            if output and value.readonly:
                raise self._argument_error(
                    index, "is an output but the Strided view is read-only",
                    ValueError)
            return value.ptr, value.offset, value.shape, value.strides
        interface = getattr(value, "__cuda_array_interface__", None)
        if interface is not None:
            return self._from_interface(index, interface, code, output)
        raise self._argument_error(
            index, "expected a CUDA tensor, an object with "
            "__cuda_array_interface__ or a pointwise.Strided view, got %s"
            % type(value).__name__)

    def _from_interface(self, index, interface, code, output):
        typestr = interface["typestr"]
        key = (typestr[1:2], int(typestr[2:]) if typestr[2:].isdigit() else 0)
        got = _dtypes.from_typestr(*key)
        if got is None or got.code != code or (typestr[0] == ">" and key[1] > 1):
            raise self._argument_error(
                index, "expected element type %s, got an array of typestr %r"
                % (self._expected(index), typestr))
        if interface.get("mask") is not None:
            raise self._argument_error(index, "masked arrays are not supported",
                                       ValueError)
        pointer, readonly = interface["data"]
        if output and readonly:
            raise self._argument_error(index, "is an output but the array is "
                                       "read-only", ValueError)
        shape = tuple(int(s) for s in interface["shape"])
        itemsize = key[1]
        byte_strides = interface.get("strides")
        if byte_strides is None:
            strides = row_major_strides(shape)
        else:
            strides = []
            for s in byte_strides:
                if s % itemsize:
                    raise self._argument_error(
                        index, "byte strides %r are not multiples of the "
                        "element size %d" % (tuple(byte_strides), itemsize),
                        ValueError)
                strides.append(s // itemsize)
            strides = tuple(strides)
            if len(strides) != len(shape):
                raise self._argument_error(
                    index, "%d sizes but %d strides" % (len(shape), len(strides)),
                    ValueError)
        return int(pointer or 0), 0, shape, strides

    def _pad(self, index, sizes, strides):
        rank = self.arguments[index].rank
        sizes, strides = tuple(sizes), tuple(strides)
        missing = rank - len(sizes)
        if missing > 0:
            return (1,) * missing + sizes, (0,) * missing + strides
        # Leading dims of size 1 can go.
        while len(sizes) > rank and sizes[0] == 1:
            sizes, strides = sizes[1:], strides[1:]
        if len(sizes) > rank:
            raise self._argument_error(
                index, "has rank %d (shape %s) but the family declares rank %d"
                % (len(sizes), list(sizes), rank), ValueError)
        return sizes, strides

    def _check_static(self, index, sizes, strides=None, pointer=None,
                      offset=None):
        """Checks a view (padded to the declared rank) against the declared
        sizes and, given its strides, pointer and offset, the declared
        strides and offset: the runtime's rule (strides of dims of more than
        one element; nothing of an empty view). Returns the pointer and
        offset to pack: a view's own offset is moved into the pointer so
        that the descriptor carries the declared one."""
        argument = self.arguments[index]
        for d, (size, static) in enumerate(zip(sizes, argument.static_sizes)):
            if static >= 0 and size != static:
                raise self._argument_error(
                    index, "has size %d in dim %d where the family declares %d"
                    % (size, d, static), ValueError)
        if strides is None or 0 in sizes:
            return pointer, offset
        for d, (size, stride, static) in enumerate(
                zip(sizes, strides, argument.static_strides)):
            if static is not None and size > 1 and stride != static:
                raise self._argument_error(
                    index, "has stride %d in dim %d where the family "
                    "declares %d (strides %s)" % (
                        stride, d, static, _declared(argument.static_strides)),
                    ValueError)
        declared = argument.static_offset
        if declared is None or declared == offset:
            return pointer, offset
        moved = pointer - (declared - offset) * \
            _dtypes.ALL_DTYPES[self._codes[index]].itemsize
        if moved < 0:
            raise self._argument_error(
                index, "starts at 0x%x, below the family's declared offset of "
                "%d elements" % (pointer, declared), ValueError)
        return moved, declared

    def _check_real(self, index, value, type_name, expected):
        if not _is_real_number(value):
            raise self._argument_error(
                index, "cannot pass %r as a scalar %s: expected %s"
                % (value, type_name, expected))

    def __call__(self, *args):  # replaced per family by _install_call
        raise NotImplementedError


# ===------------------------------------------------------------------------===
# Kernel libraries
# ===------------------------------------------------------------------------===

class KernelLibrary:
    """A shared library from ``pw-compile ... -o NAME.so``. Loads the runtime
    first (preferring the copy next to the library, which its $ORIGIN rpath
    names) unless one is loaded already."""

    def __init__(self, path, runtime=None):
        self.path = os.path.abspath(path)
        if not os.path.isfile(self.path):
            raise OSError("no such kernel library: %s" % self.path)
        if runtime is None:
            runtime = load_runtime(_extra_dirs=(os.path.dirname(self.path),))
        self.runtime = runtime
        self.lib = ctypes.CDLL(self.path)
        self._families = {}

    def family(self, name):
        """The Family compiled from function `name`."""
        family = self._families.get(name)
        if family is None:
            try:
                table = _PwFamily.in_dll(self.lib, "pw_family_" + name)
            except ValueError:
                try:
                    names = ", ".join(self.family_names()) or "none"
                except LookupError:
                    names = "unknown (no family index)"
                raise LookupError("%s has no family '%s' (no symbol "
                                  "pw_family_%s); it has: %s"
                                  % (self.path, name, name, names)) from None
            family = self._families[name] = Family(self, name, table)
        return family

    __getitem__ = family

    def family_names(self):
        """The names of the families the library holds, from its family
        index (``pw_library_families``, include/Pointwise/Runtime/Runtime.h),
        which pw-compile's outputs carry. LookupError for a library without
        one (not made by pw-compile, or by an older one): its families are
        still found by name."""
        try:
            index = self.lib.pw_library_families
        except AttributeError:
            raise LookupError(
                "%s has no family index (pw_library_families): it was not "
                "made by this version's pw-compile; look families up by name "
                "(KernelLibrary.family(name))" % self.path) from None
        index.restype = ctypes.POINTER(ctypes.POINTER(_PwFamily))
        index.argtypes = [ctypes.POINTER(ctypes.c_int64)]
        count = ctypes.c_int64(0)
        tables = index(ctypes.byref(count))
        return sorted(tables[i].contents.name.decode()
                      for i in range(count.value))

    def families(self):
        return [self.family(n) for n in self.family_names()]

    def __repr__(self):
        return "<pointwise.KernelLibrary %s>" % self.path


def _main(argv):
    """python -m pointwise._runtime LIB.so [FAMILY ...]: prints the tables."""
    import json
    if not argv or argv[0] in ("-h", "--help"):
        print("usage: python -m pointwise._runtime LIB.so [--json] [FAMILY ...]")
        return 0
    as_json = "--json" in argv
    argv = [a for a in argv if a != "--json"]
    library = KernelLibrary(argv[0])
    families = [library.family(n) for n in argv[1:]] or library.families()
    if as_json:
        print(json.dumps([f.describe() for f in families], indent=1))
    else:
        print("runtime:", library.runtime.path)
        for f in families:
            print(f)
    return 0


if __name__ == "__main__":
    sys.exit(_main(sys.argv[1:]))
