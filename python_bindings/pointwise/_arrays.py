"""Arrays of the host frameworks as strided views, and new outputs.

A :class:`View` is what a launch needs of an argument: where it lives
(``"cpu"`` or ``"cuda"`` and the device index), the address of its element
0, its shape, strides and offset in elements, its dtype and the object that
owns the memory. Accepted objects:

- PyTorch tensors (CPU and CUDA, every supported dtype including bfloat16),
- NumPy arrays (CPU; bfloat16 through ``ml_dtypes``),
- objects with ``__cuda_array_interface__`` (CuPy, Numba),
- objects with ``__dlpack__`` (CPU or CUDA; bfloat16 included),
- :class:`StridedBuffer` views of any of these.

Outputs the caller does not pass are allocated by the library of the first
tensor argument (torch, CuPy or NumPy), dense, with strides from the layout
library (``pwPlanOutputLayout``).
"""

import ctypes
import sys

from . import _dtypes
from ._runtime import Strided as _Strided
from ._runtime import row_major_strides as _row_major_strides

__all__ = ["View", "StridedBuffer", "as_view", "allocate"]

_CPU = "cpu"
_CUDA = "cuda"


class View:
    """A strided view of an argument (see the module docstring)."""

    __slots__ = ("device", "index", "ptr", "shape", "strides", "offset",
                 "dtype", "owner", "readonly", "framework")

    def __init__(self, device, index, ptr, shape, strides, offset, dtype,
                 owner, readonly, framework):
        self.device = device
        self.index = index
        self.ptr = ptr
        self.shape = shape
        self.strides = strides
        self.offset = offset
        self.dtype = dtype
        self.owner = owner
        self.readonly = readonly
        self.framework = framework

    @property
    def device_name(self):
        return self.device if self.device == _CPU else "cuda:%d" % self.index

    def extent(self):
        """(lowest, highest) element offsets the view touches, relative to
        ``ptr``; None when it is empty."""
        low = high = self.offset
        for size, stride in zip(self.shape, self.strides):
            if size == 0:
                return None
            if stride > 0:
                high += (size - 1) * stride
            else:
                low += (size - 1) * stride
        return low, high


# -- dtypes -------------------------------------------------------------------

_dtype_cache = {}


def _dtype_of(framework_dtype):
    """The pointwise DType of a torch/NumPy/CuPy dtype (TypeError if it has
    none)."""
    dtype = _dtype_cache.get(framework_dtype)
    if dtype is None:
        dtype = _dtypes.as_dtype(framework_dtype)
        _dtype_cache[framework_dtype] = dtype
    return dtype


# -- torch --------------------------------------------------------------------

def _torch_view(tensor):
    torch = sys.modules["torch"]
    if tensor.layout is not torch.strided:
        raise TypeError("%s tensors are not supported (strided ones are)"
                        % str(tensor.layout).replace("torch.", ""))
    if tensor.is_neg() or tensor.is_conj():
        raise TypeError("the tensor has its negative or conjugate bit set (a "
                        "view such as x.conj().imag or torch._neg_view(x)): "
                        "its memory does not hold its values; pass "
                        "x.resolve_neg() / x.resolve_conj() (the decorator "
                        "does that itself for inputs)")
    if tensor.is_cuda:
        kind, index = _CUDA, tensor.get_device()
    elif tensor.is_cpu:
        kind, index = _CPU, 0
    else:
        raise TypeError("tensors on device '%s' are not supported (CPU and "
                        "CUDA are)" % tensor.device)
    dtype = _dtype_cache.get(tensor.dtype) or _dtype_of(tensor.dtype)
    return View(kind, index, tensor.data_ptr(), tuple(tensor.shape),
                tensor.stride(), 0, dtype, tensor, False, "torch")


def _torch_allocate(like, shape, strides, dtype):
    import torch
    return torch.empty_strided(shape, strides, dtype=getattr(torch, dtype.name),
                               device=like.owner.device)


# -- NumPy --------------------------------------------------------------------

def _numpy_dtype(dtype):
    import numpy
    if dtype.name == "bfloat16":
        try:
            import ml_dtypes
        except ImportError:
            raise TypeError("bfloat16 NumPy arrays need the ml_dtypes "
                            "package") from None
        return numpy.dtype(ml_dtypes.bfloat16)
    return numpy.dtype("bool" if dtype.is_bool else dtype.name)


def _numpy_view(array):
    if not array.dtype.isnative:
        raise TypeError("arrays in non-native byte order are not supported "
                        "(dtype %r); convert first, e.g. with "
                        "a.astype(a.dtype.newbyteorder('='))" % array.dtype.str)
    itemsize = array.itemsize
    strides = []
    for s in array.strides:
        if s % itemsize:
            raise ValueError("the array's byte strides %r are not multiples "
                             "of its element size %d" % (array.strides, itemsize))
        strides.append(s // itemsize)
    return View(_CPU, 0, array.ctypes.data, array.shape, tuple(strides), 0,
                _dtype_of(array.dtype), array, not array.flags.writeable,
                "numpy")


def _numpy_allocate(like, shape, strides, dtype):
    import numpy
    np_dtype = _numpy_dtype(dtype)
    count = 1
    for size in shape:
        count *= size
    base = numpy.empty(count, dtype=np_dtype)
    return numpy.ndarray(shape, dtype=np_dtype, buffer=base,
                         strides=[s * np_dtype.itemsize for s in strides])


# -- __cuda_array_interface__ -------------------------------------------------


def _interface_view(obj, interface):
    try:
        typestr = interface["typestr"]
        pointer, readonly = interface["data"]
        shape = tuple(_index(s) for s in interface["shape"])
        byte_strides = interface.get("strides")
        if byte_strides is not None:
            byte_strides = tuple(_index(s) for s in byte_strides)
        if not isinstance(typestr, str) or \
                not isinstance(pointer, (int, type(None))):
            raise TypeError("'typestr' must be a str and 'data' a (pointer, "
                            "read-only) pair")
    except (KeyError, TypeError, ValueError, AttributeError) as e:
        raise TypeError("invalid __cuda_array_interface__ %s: %s%s (expected "
                        "a dict with 'typestr', 'shape' and 'data')"
                        % (_short(interface), "missing " if
                           isinstance(e, KeyError) else "", e)) from None
    size = int(typestr[2:]) if typestr[2:].isdigit() else 0
    dtype = _dtypes.from_typestr(typestr[1:2], size)
    if dtype is None or (typestr[0] == ">" and size > 1):
        raise TypeError("unsupported array element type %r (supported: %s)"
                        % (typestr, ", ".join(d.name for d in _dtypes.ALL_DTYPES)))
    if interface.get("mask") is not None:
        raise TypeError("masked arrays are not supported")
    if byte_strides is None:
        strides = _row_major_strides(shape)
    else:
        if len(byte_strides) != len(shape):
            raise TypeError("invalid __cuda_array_interface__ %s: %d strides "
                            "for %d dims" % (_short(interface),
                                             len(byte_strides), len(shape)))
        if any(s % size for s in byte_strides):
            raise ValueError("byte strides %r are not multiples of the "
                             "element size %d" % (tuple(byte_strides), size))
        strides = tuple(s // size for s in byte_strides)
    framework = "cupy" if type(obj).__module__.startswith("cupy") else "cai"
    index = 0
    device = getattr(obj, "device", None)
    if device is not None and isinstance(getattr(device, "id", None), int):
        index = device.id
    return View(_CUDA, index, int(pointer or 0), shape, strides, 0,
                dtype, obj, bool(readonly), framework)


def _cupy_allocate(like, shape, strides, dtype):
    import cupy
    if dtype.name == "bfloat16":
        raise TypeError("CuPy has no bfloat16 arrays; pass a preallocated "
                        "output (out0=...) from a framework that has")
    count = 1
    for size in shape:
        count *= size
    np_dtype = cupy.dtype("bool" if dtype.is_bool else dtype.name)
    with cupy.cuda.Device(like.index):
        memory = cupy.cuda.alloc(max(count, 1) * np_dtype.itemsize)
        return cupy.ndarray(shape, dtype=np_dtype, memptr=memory,
                            strides=[s * np_dtype.itemsize for s in strides])


# -- DLPack -------------------------------------------------------------------

class _DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class _DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8),
                ("lanes", ctypes.c_uint16)]


class _DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device", _DLDevice),
                ("ndim", ctypes.c_int32), ("dtype", _DLDataType),
                ("shape", ctypes.POINTER(ctypes.c_int64)),
                ("strides", ctypes.POINTER(ctypes.c_int64)),
                ("byte_offset", ctypes.c_uint64)]


_DL_CPU, _DL_CUDA, _DL_CUDA_HOST, _DL_CUDA_MANAGED = 1, 2, 3, 13


def _dlpack_view(obj):
    try:
        capsule = obj.__dlpack__()
    except BufferError as e:  # e.g. read-only memory
        raise TypeError("cannot export the %s through __dlpack__: %s"
                        % (type(obj).__name__, e)) from None
    is_valid = ctypes.pythonapi.PyCapsule_IsValid
    is_valid.restype = ctypes.c_int
    is_valid.argtypes = [ctypes.py_object, ctypes.c_char_p]
    if not is_valid(capsule, b"dltensor"):
        raise TypeError("%s.__dlpack__() returned %s, not a DLPack capsule "
                        "named 'dltensor'"
                        % (type(obj).__name__, _short(capsule)))
    get_pointer = ctypes.pythonapi.PyCapsule_GetPointer
    get_pointer.restype = ctypes.c_void_p
    get_pointer.argtypes = [ctypes.py_object, ctypes.c_char_p]
    address = get_pointer(capsule, b"dltensor")
    # The capsule keeps the exporter's tensor alive until it is collected;
    # `obj` (held by the View) keeps the memory alive after that.
    tensor = _DLTensor.from_address(address)
    key = (tensor.dtype.code, tensor.dtype.bits)
    dtype = _dtypes.from_dlpack(*key)
    if dtype is None or tensor.dtype.lanes != 1:
        raise TypeError("unsupported DLPack element type (code %d, %d bits, "
                        "%d lanes)" % (key + (tensor.dtype.lanes,)))
    device_type = tensor.device.device_type
    if device_type in (_DL_CPU, _DL_CUDA_HOST):
        device = _CPU
    elif device_type in (_DL_CUDA, _DL_CUDA_MANAGED):
        device = _CUDA
    else:
        raise TypeError("DLPack device type %d is not supported (CPU and "
                        "CUDA are)" % device_type)
    ndim = tensor.ndim
    shape = tuple(tensor.shape[i] for i in range(ndim))
    if tensor.strides:
        strides = tuple(tensor.strides[i] for i in range(ndim))
    else:
        strides = _row_major_strides(shape)
    if tensor.byte_offset % dtype.itemsize:
        raise ValueError("the DLPack tensor's byte offset is not a multiple "
                         "of its element size")
    return View(device, tensor.device.device_id, tensor.data or 0, shape,
                strides, tensor.byte_offset // dtype.itemsize, dtype,
                (obj, capsule), False, "dlpack")


# -- dispatch -----------------------------------------------------------------

_torch_tensor = None


def as_view(obj):
    """The View of an array-like `obj`; TypeError if it is not one."""
    global _torch_tensor
    kind = type(obj)
    if kind is _torch_tensor:
        return _torch_view(obj)
    if kind is StridedBuffer:
        return obj.view
    if kind is _Strided:
        # The lower layer's raw device view: no bounds are known, the caller
        # vouches for them (as with Family calls).
        index = 0
        owner = obj.owner
        if owner is not None and hasattr(owner, "get_device"):
            index = max(owner.get_device(), 0)
        framework = ("torch" if owner is not None and
                     type(owner).__module__.startswith("torch") else "cai")
        return View(_CUDA, index, obj.ptr, obj.shape, obj.strides, obj.offset,
                    _strided_dtype(obj), owner, obj.readonly, framework)
    module = kind.__module__
    if module.startswith("torch"):
        torch = sys.modules.get("torch")
        if torch is not None and isinstance(obj, torch.Tensor):
            _torch_tensor = torch.Tensor
            return _torch_view(obj)
    numpy = sys.modules.get("numpy")
    if numpy is not None and isinstance(obj, numpy.ndarray):  # subclasses too
        masked = sys.modules.get("numpy.ma")
        if masked is not None and isinstance(obj, masked.MaskedArray):
            raise TypeError("masked arrays are not supported (the mask "
                            "cannot be honored); pass a.filled(value) or "
                            "a.data")
        return _numpy_view(obj)
    interface = getattr(obj, "__cuda_array_interface__", None)
    if interface is not None:
        return _interface_view(obj, interface)
    if hasattr(obj, "__dlpack__") and hasattr(obj, "__dlpack_device__"):
        return _dlpack_view(obj)
    raise TypeError("expected a tensor (PyTorch, NumPy, CuPy, or an object "
                    "with __cuda_array_interface__ or __dlpack__) or a "
                    "pointwise.StridedBuffer, got %s" % type(obj).__name__)


def _strided_dtype(strided):
    """The DType of a ``pw.Strided``: its dtype's own (``torch.uint8`` is
    uint8), else the signed or floating dtype of its element type code."""
    try:
        return _dtypes.as_dtype(strided.dtype)
    except TypeError:
        return _dtypes.ALL_DTYPES[strided.code]


def is_array(obj):
    """Whether `obj` looks like an array this module accepts (NumPy scalars,
    which have the array interfaces, are not arrays)."""
    numpy = sys.modules.get("numpy")
    if numpy is not None and isinstance(obj, numpy.generic):
        return False
    return (type(obj) in (StridedBuffer, _Strided) or hasattr(obj, "__dlpack__")
            or hasattr(obj, "__cuda_array_interface__")
            or hasattr(obj, "__array_interface__"))


_ALLOCATORS = {"torch": _torch_allocate, "numpy": _numpy_allocate,
               "cupy": _cupy_allocate}


def allocate(like, shape, strides, dtype):
    """A new array of `shape`, `strides` (elements) and `dtype` from the
    library of View `like`, on its device."""
    allocator = _ALLOCATORS.get(like.framework)
    if allocator is None:
        raise TypeError("cannot allocate an output next to a %s array; pass "
                        "preallocated outputs (out0=...)" % like.framework)
    return allocator(like, shape, strides, dtype)


# -- StridedBuffer ------------------------------------------------------------

class StridedBuffer:
    """A view of another array's memory that its framework may not express:
    negative strides (a flip), overlapping strides for inputs, or another
    shape. ``offset`` and ``strides`` count elements, ``offset`` from the
    base's first element (its data pointer). The view must stay inside the
    base's memory (for torch tensors: its storage), which is checked, and it
    keeps the base alive. ``dtype`` may reinterpret the elements as another
    dtype of the same size.

    >>> flipped = pw.StridedBuffer(a, strides=(-1,), offset=a.numel() - 1)
    """

    __slots__ = ("base", "view")

    def __init__(self, base, shape=None, strides=None, offset=0, dtype=None):
        if type(base) is StridedBuffer:
            base_view = base.view
            base = base.base
        else:
            try:
                base_view = as_view(base)
            except TypeError as e:
                raise TypeError("StridedBuffer: base: %s" % e) from None
            except ValueError as e:
                raise ValueError("StridedBuffer: base: %s" % e) from None
        self.base = base
        shape = _integers("shape", base_view.shape if shape is None else shape,
                          0)
        if strides is None:
            if shape != tuple(base_view.shape):
                raise ValueError("StridedBuffer: a new shape needs strides")
            strides = base_view.strides
        strides = _integers("strides", strides, _INT64_MIN)
        if len(strides) != len(shape):
            raise ValueError("StridedBuffer: %d sizes but %d strides"
                             % (len(shape), len(strides)))
        if isinstance(offset, bool) or not hasattr(offset, "__index__"):
            raise TypeError("StridedBuffer: offset must be an integer (in "
                            "elements), got %r" % (offset,))
        offset = offset.__index__()
        if not _INT64_MIN <= base_view.offset + offset <= _INT64_MAX:
            raise ValueError("StridedBuffer: offset %d is out of the int64 "
                             "range" % offset)
        element = base_view.dtype
        if dtype is not None:
            dtype = _dtypes.as_dtype(dtype)
            if dtype.itemsize != element.itemsize:
                raise ValueError("StridedBuffer: dtype %s has %d-byte elements, "
                                 "the base %s has %d-byte ones"
                                 % (dtype.name, dtype.itemsize, element.name,
                                    element.itemsize))
        else:
            dtype = element
        view = View(base_view.device, base_view.index, base_view.ptr, shape,
                    strides, base_view.offset + offset, dtype,
                    base_view.owner, base_view.readonly, base_view.framework)
        extent = view.extent()
        if extent is not None:
            low, high = _allowed_range(base_view)
            if extent[0] < low or extent[1] > high:
                raise ValueError(
                    "StridedBuffer: the view (offset %d, shape %s, strides %s) "
                    "reaches elements %d..%d of the base, which has elements "
                    "%d..%d only" % (int(offset), list(shape), list(strides),
                                     extent[0] - base_view.offset,
                                     extent[1] - base_view.offset,
                                     low - base_view.offset,
                                     high - base_view.offset))
        self.view = view

    @property
    def shape(self):
        return self.view.shape

    @property
    def strides(self):
        return self.view.strides

    @property
    def offset(self):
        return self.view.offset

    @property
    def dtype(self):
        return self.view.dtype

    @property
    def ndim(self):
        return len(self.view.shape)

    def __repr__(self):
        return ("pointwise.StridedBuffer(shape=%s, strides=%s, offset=%d, "
                "dtype=%s, device=%s)" % (list(self.shape), list(self.strides),
                                          self.offset, self.dtype.name,
                                          self.view.device_name))


_INT64_MIN, _INT64_MAX = -(1 << 63), (1 << 63) - 1


def _index(value):
    """An integer argument as an int: Python and NumPy integers, not floats
    or bools."""
    if isinstance(value, bool) or not hasattr(value, "__index__"):
        raise TypeError("expected an integer, got %r" % (value,))
    return value.__index__()


def _integers(what, values, low):
    """StridedBuffer's `shape` or `strides`: a sequence of integers in
    low..2**63-1."""
    if isinstance(values, (str, bytes)) or not hasattr(values, "__iter__"):
        raise TypeError("StridedBuffer: %s must be a sequence of integers, "
                        "one per dim, got %r" % (what, values))
    result = []
    for d, value in enumerate(values):
        try:
            value = _index(value)
        except TypeError as e:
            raise TypeError("StridedBuffer: %s[%d]: %s" % (what, d, e)) from None
        if not low <= value <= _INT64_MAX:
            raise ValueError("StridedBuffer: %s[%d] is %d, out of the range "
                             "%d..%d" % (what, d, value, low, _INT64_MAX))
        result.append(value)
    return tuple(result)


def _short(value):
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _allowed_range(view):
    """(lowest, highest) element offsets relative to view.ptr that the base's
    memory holds: the torch storage, else what the view itself spans."""
    owner = view.owner
    if view.framework == "torch":
        try:
            storage = owner.untyped_storage()
            itemsize = view.dtype.itemsize
            start = (storage.data_ptr() - view.ptr) // itemsize
            return start, start + storage.nbytes() // itemsize - 1
        except (AttributeError, RuntimeError):
            pass
    extent = view.extent()
    return extent if extent is not None else (view.offset, view.offset - 1)
