"""Element types of the ``pointwise`` dialect and PyTorch's type promotion.

The dtypes a ``pointwise.map`` reads and writes as :class:`DType`
singletons named like their torch counterparts: :data:`bool_`,
:data:`int8` ... :data:`int64`, :data:`uint8` ... :data:`uint64`,
:data:`float16`, :data:`bfloat16`, :data:`float32`, :data:`float64`. MLIR
integers are signless: ``int8`` and ``uint8`` are both ``i8`` in memory and
in the region, and the operations the tracer emits for them (``divsi`` or
``divui``, ``cmpi slt`` or ``ult``, ``extsi`` or ``extui``, ...) give the
bits their meaning. The module also has the conversion :func:`as_dtype`
from the names, Python types, NumPy and torch dtypes that users write, and
the promotion rules of PyTorch:

* :func:`promote_types` is ``torch.promote_types`` restricted to these
  dtypes (complex types are not supported). As in PyTorch, ``uint8`` promotes
  with the signed types to a signed type that holds both (``uint8`` with
  ``int8`` is ``int16``), while ``uint16``, ``uint32`` and ``uint64`` promote
  only with themselves and with floating types: other pairs raise TypeError
  (``torch.promote_types`` raises for them too);
* :func:`result_type` is ``torch.result_type``: operands are
  :class:`Operand` s, each a dtype and a kind, ``"tensor"`` or ``"scalar"``
  (a Python number, PyTorch's *wrapped number*).

This module is pure Python (no torch, no NumPy needed); NumPy and torch
dtypes are recognized by their names.
"""

import dataclasses
import re

__all__ = [
    "DType",
    "Operand",
    "bool_",
    "int8",
    "int16",
    "int32",
    "int64",
    "uint8",
    "uint16",
    "uint32",
    "uint64",
    "float16",
    "bfloat16",
    "float32",
    "float64",
    "ALL_DTYPES",
    "DTYPES_OF_CODE",
    "from_typestr",
    "from_dlpack",
    "as_dtype",
    "python_scalar_dtype",
    "promote_types",
    "result_type",
]

CATEGORY_BOOL = 0
CATEGORY_INTEGER = 1
CATEGORY_FLOATING = 2


class DType:
    """One element type: its torch-style ``name``, its MLIR type ``mlir``,
    its size in memory ``itemsize`` (``bool`` takes one byte), its runtime
    code ``code`` (``pwElementType``), its category, and how it is spelled
    where arrays and launches describe it: ``pack`` (the launch's scalar
    code), ``typestr`` (``__cuda_array_interface__``) and ``dlpack``
    (DLPack's type code and bits).

    Instances are the module-level singletons; they are immutable, hashable,
    compare by identity and survive pickling as the same singleton.
    """

    __slots__ = ("_name", "_mlir", "_itemsize", "_code", "_category",
                 "_unsigned", "_pack", "_typestr", "_dlpack")

    def __init__(self, name, mlir, itemsize, code, category, pack, typestr,
                 dlpack, unsigned=False):
        for key, value in (("_name", name), ("_mlir", mlir),
                           ("_itemsize", itemsize), ("_code", code),
                           ("_category", category), ("_unsigned", unsigned),
                           ("_pack", pack), ("_typestr", typestr),
                           ("_dlpack", dlpack)):
            object.__setattr__(self, key, value)

    def __setattr__(self, key, value):
        raise AttributeError(f"{self!r} is immutable")

    def __delattr__(self, key):
        raise AttributeError(f"{self!r} is immutable")

    @property
    def name(self):
        """The torch name: ``"bool"``, ``"int8"``, ... ``"float64"``."""
        return self._name

    @property
    def mlir(self):
        """The MLIR element type: ``"i1"``, ``"i8"``, ... ``"f64"`` (signless:
        ``uint8`` is ``"i8"``)."""
        return self._mlir

    @property
    def itemsize(self):
        """Bytes per element in memory (``bool`` is stored as one byte)."""
        return self._itemsize

    @property
    def code(self):
        """The runtime's ``pwElementType`` value (``i1`` = 0 ... ``f64`` = 8);
        an unsigned type has the code of the signed type of its width."""
        return self._code

    @property
    def pack(self):
        """How a launch packs a scalar of this dtype into its 8-byte slot:
        Python's struct code (``"?"``, ``"b"`` ... ``"Q"``, ``"e"``, ``"f"``,
        ``"d"``), and ``"E"`` for bfloat16 (rounded from float32 to its
        upper 16 bits)."""
        return self._pack

    @property
    def typestr(self):
        """The ``__cuda_array_interface__`` kind and size, ``("f", 4)``;
        None for bfloat16, which that interface cannot describe."""
        return self._typestr

    @property
    def dlpack(self):
        """DLPack's (type code, bits) of the dtype."""
        return self._dlpack

    @property
    def min(self):
        """The smallest value of an integer or bool dtype; of a floating
        one the most negative finite value."""
        return -self.max if self.is_floating else \
            -(1 << (self.bits - 1)) if self.is_signed else 0

    @property
    def max(self):
        """The largest value of an integer or bool dtype; of a floating one
        the largest finite value."""
        if self.is_floating:
            return _LARGEST_FINITE[self._mlir]
        return (1 << (self.bits - (0 if self._unsigned or self.is_bool
                                   else 1))) - 1

    @property
    def category(self):
        """0 for bool, 1 for integers, 2 for floating-point types."""
        return self._category

    @property
    def is_bool(self):
        return self._category == CATEGORY_BOOL

    @property
    def is_integer(self):
        """True for the integer types, signed and unsigned (not for bool)."""
        return self._category == CATEGORY_INTEGER

    @property
    def is_unsigned(self):
        """True for ``uint8``, ``uint16``, ``uint32`` and ``uint64``."""
        return self._unsigned

    @property
    def is_signed(self):
        """True for ``int8``, ``int16``, ``int32`` and ``int64``."""
        return self._category == CATEGORY_INTEGER and not self._unsigned

    @property
    def bits(self):
        """The width of the MLIR type (1 for bool)."""
        return int(self._mlir.lstrip("bfi"))

    @property
    def is_floating(self):
        return self._category == CATEGORY_FLOATING

    def __repr__(self):
        return f"pointwise.{self._name}"

    def __str__(self):
        return self._name

    def __reduce__(self):
        return (as_dtype, (self._name,))

    def __copy__(self):
        return self

    def __deepcopy__(self, memo):
        return self


# (2 - 2^-10) * 2^15, (2 - 2^-7) * 2^127, (2 - 2^-23) * 2^127, (2 - 2^-52) *
# 2^1023: the largest finite value of each floating type.
_LARGEST_FINITE = {"f16": 65504.0, "bf16": 3.3895313892515355e+38,
                   "f32": 3.4028234663852886e+38,
                   "f64": 1.7976931348623157e+308}

# name, MLIR type, bytes, runtime code, category, launch code, typestr, DLPack.
bool_ = DType("bool", "i1", 1, 0, CATEGORY_BOOL, "?", ("b", 1), (6, 8))
int8 = DType("int8", "i8", 1, 1, CATEGORY_INTEGER, "b", ("i", 1), (0, 8))
int16 = DType("int16", "i16", 2, 2, CATEGORY_INTEGER, "h", ("i", 2), (0, 16))
int32 = DType("int32", "i32", 4, 3, CATEGORY_INTEGER, "i", ("i", 4), (0, 32))
int64 = DType("int64", "i64", 8, 4, CATEGORY_INTEGER, "q", ("i", 8), (0, 64))
uint8 = DType("uint8", "i8", 1, 1, CATEGORY_INTEGER, "B", ("u", 1), (1, 8),
              unsigned=True)
uint16 = DType("uint16", "i16", 2, 2, CATEGORY_INTEGER, "H", ("u", 2), (1, 16),
               unsigned=True)
uint32 = DType("uint32", "i32", 4, 3, CATEGORY_INTEGER, "I", ("u", 4), (1, 32),
               unsigned=True)
uint64 = DType("uint64", "i64", 8, 4, CATEGORY_INTEGER, "Q", ("u", 8), (1, 64),
               unsigned=True)
float16 = DType("float16", "f16", 2, 5, CATEGORY_FLOATING, "e", ("f", 2),
                (2, 16))
bfloat16 = DType("bfloat16", "bf16", 2, 6, CATEGORY_FLOATING, "E", None,
                 (4, 16))
float32 = DType("float32", "f32", 4, 7, CATEGORY_FLOATING, "f", ("f", 4),
                (2, 32))
float64 = DType("float64", "f64", 8, 8, CATEGORY_FLOATING, "d", ("f", 8),
                (2, 64))

#: All supported dtypes: first one per runtime code, in code order (so
#: ``ALL_DTYPES[code]`` is the signed or floating dtype of a code), then the
#: unsigned integers.
ALL_DTYPES = (bool_, int8, int16, int32, int64, float16, bfloat16, float32,
              float64, uint8, uint16, uint32, uint64)

#: ``DTYPES_OF_CODE[code]``: the dtypes stored as runtime code ``code``,
#: the signed or floating one first (MLIR integers are signless: a family's
#: ``i8`` argument takes ``int8`` and ``uint8`` data).
DTYPES_OF_CODE = tuple(
    tuple(d for d in ALL_DTYPES if d.code == code) for code in range(9))

_BY_TYPESTR = {d.typestr: d for d in ALL_DTYPES if d.typestr is not None}
_BY_DLPACK = {d.dlpack: d for d in ALL_DTYPES}


def from_typestr(kind, size):
    """The dtype of ``__cuda_array_interface__`` kind `kind` ("f", "i", "u",
    "b") and `size` bytes, or None."""
    return _BY_TYPESTR.get((kind, size))


def from_dlpack(code, bits):
    """The dtype of DLPack type code `code` and `bits`, or None."""
    return _BY_DLPACK.get((code, bits))


# Names and aliases, as torch and NumPy spell them (``torch.float`` is
# float32, ``torch.int`` int32, ``torch.long`` int64, ``torch.half``
# float16; NumPy's ``bool_``/``half``/``single``/``double``/...).
_ALIASES = {
    "bool": bool_,
    "bool_": bool_,
    "bool8": bool_,
    "int8": int8,
    "int16": int16,
    "short": int16,
    "int32": int32,
    "int": int32,
    "intc": int32,
    "int64": int64,
    "long": int64,
    "longlong": int64,
    "uint8": uint8,
    "ubyte": uint8,
    "uint16": uint16,
    "ushort": uint16,
    "uint32": uint32,
    "uintc": uint32,
    "uint64": uint64,
    "ulonglong": uint64,
    "float16": float16,
    "half": float16,
    "bfloat16": bfloat16,
    "float32": float32,
    "float": float32,
    "single": float32,
    "float64": float64,
    "double": float64,
}

# "<class 'numpy.float32'>", the str() of a NumPy scalar type.
_CLASS_NAME = re.compile(r"^<class '(?:numpy|torch)\.([A-Za-z0-9_]+)'>$")


def _supported_names():
    return ", ".join(d.name for d in ALL_DTYPES)


def _lookup_name(text):
    """The DType that a (possibly prefixed) name denotes, or None."""
    key = text.strip()
    match = _CLASS_NAME.match(key)
    if match:
        key = match.group(1)
    for prefix in ("torch.", "numpy.", "np.", "pointwise."):
        if key.startswith(prefix):
            key = key[len(prefix) :]
            break
    return _ALIASES.get(key)


def _numpy_dtype_name(obj):
    """numpy.dtype(obj).name for NumPy dtypes and scalar types, else None."""
    try:
        import numpy
    except ImportError:  # pragma: no cover - numpy is optional
        return None
    is_numpy_type = isinstance(obj, type) and issubclass(obj, numpy.generic)
    if isinstance(obj, numpy.dtype) or is_numpy_type:
        dtype = numpy.dtype(obj)
        if not dtype.isnative:
            raise TypeError(
                f"unsupported dtype {dtype.str!r}: its byte order is not the "
                "machine's (use the native one, e.g. dtype.newbyteorder('='))"
            )
        return dtype.name
    return None


def as_dtype(obj):
    """The :class:`DType` that ``obj`` denotes.

    Accepts a DType; a name or alias (``"float32"``, ``"float"``, ``"half"``,
    ``"double"``, ``"long"``, ``"int"``, ``"short"``, ``"bool"``,
    ``"bfloat16"``, ``"torch.float16"``, ...: torch's meanings, so ``"float"``
    is float32 and ``"int"`` int32); the Python types ``bool``, ``int`` and
    ``float`` (bool, int64, float64: the dtypes of Python scalars); NumPy
    dtypes and scalar types; and torch dtypes, recognized by their ``str()``
    (``"torch.float32"``).

    Unsigned types are accepted by their names (``"uint8"``, ``"torch.uint8"``,
    ``numpy.uint8``, ...). Raises TypeError for anything else (complex types
    among them), naming the supported dtypes.
    """
    if isinstance(obj, DType):
        return obj
    if obj is bool:
        return bool_
    if obj is int:
        return int64
    if obj is float:
        return float64
    found = None
    if isinstance(obj, str):
        found = _lookup_name(obj)
    elif obj is not None and not isinstance(obj, (int, float, complex)):
        name = _numpy_dtype_name(obj)
        found = _lookup_name(name if name is not None else str(obj))
    if found is None:
        raise TypeError(
            f"unsupported dtype {obj!r}: expected one of {_supported_names()} "
            "(as a pointwise dtype, a name such as 'float32' or 'half', the "
            "Python types bool, int and float, or a torch or NumPy dtype)"
        )
    return found


def python_scalar_dtype(value):
    """The dtype of a Python scalar: bool, int64 for int, float64 for float.

    Raises TypeError for anything else (complex numbers among them).
    """
    if isinstance(value, bool):
        return bool_
    if isinstance(value, int):
        return int64
    if isinstance(value, float):
        return float64
    raise TypeError(
        f"unsupported Python scalar {value!r} of type {type(value).__name__}: "
        "expected a bool, an int or a float"
    )


def promote_types(a, b):
    """``torch.promote_types(a, b)`` for the supported dtypes.

    bool < integers < floating types; within a category the wider type wins,
    except that float16 and bfloat16 promote to float32. Integer and
    floating types promote to the floating type whatever the widths (int64
    with float16 is float16). ``uint8`` with a signed type gives the signed
    type that holds both (int16 with int8, else the signed one), with bool
    ``uint8``. ``uint16``, ``uint32`` and ``uint64`` promote only with
    themselves (to themselves) and floating types (to the floating type);
    any other pair with one of them raises TypeError, as
    ``torch.promote_types`` does (NumPy would give a wider signed type or
    float64).
    """
    a = as_dtype(a)
    b = as_dtype(b)
    if a is b:
        return a
    if a.category != b.category and (a.is_floating or b.is_floating):
        return a if a.is_floating else b
    if a in _BAREBONES_UNSIGNED or b in _BAREBONES_UNSIGNED:
        raise TypeError(
            f"promotion of {a.name} with {b.name} is not supported, as in "
            "PyTorch (uint16, uint32 and uint64 promote only with themselves "
            "and floating-point types); convert one operand with .to()"
        )
    if a.category != b.category:
        return a if a.category > b.category else b
    if a.is_floating and {a, b} == {float16, bfloat16}:
        return float32
    if a.is_unsigned != b.is_unsigned:  # uint8 with a signed type
        signed = b if a.is_unsigned else a
        return int16 if signed is int8 else signed
    return a if a.itemsize >= b.itemsize else b


_BAREBONES_UNSIGNED = (uint16, uint32, uint64)


_KINDS = ("tensor", "zerodim", "scalar")


@dataclasses.dataclass(frozen=True)
class Operand:
    """An operand of type promotion: its dtype and its kind.

    ``kind`` is ``"tensor"`` (a tensor with one or more dims),
    ``"zerodim"`` (a PyTorch tensor with no dims) or ``"scalar"`` (a Python
    number: PyTorch's *wrapped number*). ``dtype`` is anything
    :func:`as_dtype` accepts.
    """

    dtype: DType
    kind: str = "tensor"

    def __post_init__(self):
        object.__setattr__(self, "dtype", as_dtype(self.dtype))
        if self.kind not in _KINDS:
            raise ValueError(
                f"unknown operand kind {self.kind!r}: expected 'tensor', "
                "'zerodim' or 'scalar'"
            )

    @classmethod
    def tensor(cls, dtype):
        """A tensor operand of ``dtype``."""
        return cls(dtype, "tensor")

    @classmethod
    def scalar(cls, value_or_dtype):
        """A wrapped-number operand: a Python number or a dtype."""
        if isinstance(value_or_dtype, (bool, int, float)):
            return cls(python_scalar_dtype(value_or_dtype), "scalar")
        return cls(value_or_dtype, "scalar")


def _promote_skip_undefined(a, b):
    if a is None:
        return b
    if b is None:
        return a
    return promote_types(a, b)


def _combine_categories(higher, lower):
    # ATen's combine_categories (aten/src/ATen/native/TypeProperties.cpp),
    # without the complex cases.
    if higher is not None and higher.is_floating:
        return higher
    if higher is bool_ or (lower is not None and lower.is_floating):
        return _promote_skip_undefined(higher, lower)
    if higher is not None:
        return higher
    return lower


def result_type(*operands):
    """``torch.result_type`` of :class:`Operand` s (PyTorch's ResultTypeState).

    Operands fall into priority classes, each promoted separately with
    :func:`promote_types`: tensors with dims (``"tensor"``), zero-dim
    tensors (``"zerodim"``), and wrapped numbers (``"scalar"``). A wrapped
    floating number counts as the default dtype, float32. The classes are
    then combined from the highest priority down; a lower class only changes
    the result when its category is higher (an integer tensor with a float
    scalar gives float32, a bool tensor with an int scalar int64, but an
    int8 tensor with an int scalar stays int8, a float16 tensor with a float
    scalar float16, and a float32 tensor with a zero-dim float64 tensor
    float32).

    Each operand may also be given as a bare dtype (a tensor) or a Python
    number (a scalar).
    """
    if not operands:
        raise TypeError("result_type() needs at least one operand")
    dim_result = None
    zero_dim_result = None
    wrapped_result = None
    for operand in operands:
        if isinstance(operand, (bool, int, float)):
            operand = Operand.scalar(operand)
        elif not isinstance(operand, Operand):
            operand = Operand(operand, "tensor")
        if operand.kind == "tensor":
            dim_result = _promote_skip_undefined(dim_result, operand.dtype)
        elif operand.kind == "zerodim":
            zero_dim_result = _promote_skip_undefined(zero_dim_result,
                                                      operand.dtype)
        else:
            current = float32 if operand.dtype.is_floating else operand.dtype
            wrapped_result = _promote_skip_undefined(wrapped_result, current)
    return _combine_categories(
        dim_result, _combine_categories(zero_dim_result, wrapped_result)
    )
