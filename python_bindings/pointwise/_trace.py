"""Tracing a scalar Python function into a ``pointwise.map``.

:func:`trace_function` calls a Python function once on symbolic
:class:`Value` s, one per parameter, records the operations it performs and
returns an MLIR module: one ``func.func`` whose arguments are the
parameters (memrefs for tensors, scalars for scalars) and then one output
memref per result, holding exactly one ``pointwise.map`` (the recorded
operations, in its body) and ``return``::

    def axpy(x, y, alpha):
        return x + y * alpha

    text = trace_function(
        axpy,
        [Param("tensor", float32, 2), Param("tensor", float32, 2),
         Param("scalar", float64)],
        [float32],
        "axpy",
    )

Semantics
=========

The traced function computes what PyTorch eager computes on tensors of
these dtypes, up to *opmath* rounding (below).

Values and dtypes
    A :class:`Value` has a logical :attr:`~Value.dtype` and a flag
    :attr:`~Value.wrapped`. Tensor parameters are not wrapped; scalar
    parameters and Python literals (``bool``, ``int``, ``float``) are
    PyTorch's *wrapped numbers*: in promotion they weigh only through their
    category (:func:`~pointwise._dtypes.result_type`), so ``int32 tensor +
    2.5`` is float32, ``float16 tensor + 2.5`` float16 and ``int8 tensor +
    1000`` int8 (the literal wraps around, as a C cast does).
    Scalar parameters arrive in their declared dtype (Python floats as
    float64, ints as int64, bools as bool).

Opmath
    Inside the region float16 and bfloat16 values are carried as f32 and
    never rounded between operations (as TorchInductor does); every other
    dtype is carried in its own type. Each result is converted to its
    output dtype once, at the ``pointwise.yield`` (f64 to f16/bf16 and
    i64 to f16/bf16 round through f32, as PyTorch's conversions do). An
    explicit ``.to(float16)`` does round to float16. When an arithmetic
    operation (``+ - * / // % **``, :func:`fma`) promotes a wrapped number
    to float16 or bfloat16, the number is kept in float32, as PyTorch's
    kernels keep CPU scalars in opmath precision; comparisons,
    :func:`where`, :func:`maximum` and :func:`minimum` round it to the
    16-bit type first (the comparison ``x == 0.1`` of a float16 ``x`` is
    made against ``float16(0.1)``, as in PyTorch).

Wrapped with wrapped
    An operation whose operands are all wrapped stays wrapped and follows
    Python: bools compute as int64 in arithmetic, ints as int64, floats as
    float64, ``/`` gives float64, transcendental functions give float64.
    (Integers wrap around at 64 bits and ``int ** negative`` stays an
    integer, unlike Python.) With plain Python numbers only, the operators
    are Python's own and the ``pw`` functions compute with :mod:`math`,
    returning Python numbers.

Operators
    ``+ - * / // % **`` and their reflected forms promote with
    ``result_type``. On bool ``+`` is ``or`` and ``*`` is ``and`` (the
    result stays bool), ``-``, ``//`` and ``%`` are errors (as in PyTorch),
    ``**`` computes in int64 (``BOOL_TO_LONG``). ``/`` is true division
    (bool and integers give float32, ``INT_TO_FLOAT``). ``//`` is
    ``arith.floordivsi`` on signed integers, ``divui`` on unsigned ones, and
    on floats PyTorch's ``div_floor_floating`` (NumPy's ``npy_divmod``,
    CPython's float ``//``): ``mod = fmod(a, b)``, ``div = (a - mod) / b``,
    one less where ``mod != 0`` and the signs of ``b`` and ``mod`` differ,
    then floored and raised by one where the fraction exceeds 0.5; a zero
    quotient has the sign of ``a / b``, and ``b == 0`` gives ``a / b``. So
    float32 ``1.0 // 0.1`` is 9 (``1.0 / 0.1`` rounds to 10). ``%`` is
    PyTorch's remainder: ``fmod`` (``remf``) or ``remsi``, plus the divisor
    where the signs differ, so it has the sign of the divisor; a zero
    result keeps ``fmod``'s sign (the dividend's), as PyTorch's does
    (NumPy and Python give it the divisor's). On unsigned integers ``%``
    is ``remui``. ``**`` is
    ``math.powf`` on floats (``x ** 2`` is ``x * x``) and square-and-multiply
    on integers with PyTorch's rules for negative exponents (``1``, ``-1``
    or ``0``; on unsigned integers ``1`` for a base of 1, else ``0``).
    Integer division or remainder by zero gives ``0`` and never
    traps (PyTorch raises on the CPU and gives unspecified values on the
    GPU); ``x // -1`` is ``-x`` with wraparound, ``x % -1`` is ``0``.

    ``< <= > >= == !=`` give bool: ordered predicates on floats except
    ``!=``, which is unordered (NaN != NaN), signed ones on signed
    integers, unsigned ones on bool and unsigned integers. ``& | ^ ~`` work
    on bool and integers (``~`` is logical not on bool), ``<< >>`` on
    integers, with PyTorch's rules for shift amounts out of range (``<<``
    gives 0; ``>>`` fills with the sign on signed integers, with zeros
    (``shrui``) on unsigned ones, where an amount of the width or more
    gives 0). ``-x`` (an error on bool tensors, as in PyTorch; modulo
    ``2**bits`` on unsigned integers), ``+x`` and ``abs(x)`` (the identity
    on unsigned integers). :func:`maximum` and :func:`minimum` are
    ``maxui``/``minui`` on unsigned integers.

Unsigned integers
    ``uint8``, ``uint16``, ``uint32`` and ``uint64`` are carried in the
    signless ``i8`` ... ``i64``; their operations are the unsigned ones
    (``divui, remui, cmpi ult/ule/ugt/uge, maxui, minui, shrui, extui,
    uitofp``). Arithmetic wraps around modulo ``2**bits``. Promotion is
    PyTorch's (:func:`~pointwise._dtypes.promote_types`): ``uint8`` with
    ``int8`` is ``int16``, with bool ``uint8``, and a Python int keeps the
    tensor's ``uint8`` (the literal wraps around: ``x + 300`` adds 44);
    ``uint16``, ``uint32`` and ``uint64`` combine only with themselves,
    floating types and wrapped numbers, and any other pair raises
    :class:`TracingError`.

Conversions
    ``x.to(dtype)`` (any dtype :func:`~pointwise._dtypes.as_dtype` accepts)
    converts with PyTorch's (C++ ``static_cast``, ``copy_``) semantics, and
    so does the store of each result into its output's dtype, whatever the
    two dtypes: float to signed integer truncates toward zero (``fptosi``,
    which saturates in a map body: NaN gives 0, values beyond the type its
    minimum or maximum; PyTorch leaves them undefined, and its CUDA
    kernels saturate too); float to ``uint16``, ``uint32`` and ``uint64``
    is ``fptoui``, saturating alike (negative values give 0); float to
    ``uint8`` converts through int64, as PyTorch defines it, so that
    negative and too large values wrap around (``-1.0`` is 255, ``300.7``
    is 44). Integer to float is
    ``sitofp`` (``uitofp`` from unsigned types), bool to a number is 0 or
    1, a number to bool is ``!= 0`` (NaN is True), floats widen and narrow
    with ``extf``/``truncf``, integers narrow with ``trunci`` (wrapping
    around) and widen with ``extsi`` (``extui`` from unsigned types). The
    result is not wrapped.

Functions
    :func:`exp`, :func:`exp2`, :func:`log`, :func:`log2`, :func:`log1p`,
    :func:`sqrt`, :func:`rsqrt`, :func:`sin`, :func:`cos`, :func:`tan`,
    :func:`tanh`, :func:`erf`, :func:`sigmoid` (``1 / (1 + exp(-x))``)
    compute bool and integers in float32. :func:`floor`, :func:`ceil`,
    :func:`round` (half to even) are the identity on bool and integers.
    :func:`maximum` and :func:`minimum` propagate NaN (on bool they are
    ``or`` and ``and``). :func:`where` converts
    its condition to bool and promotes its two values. :func:`isnan` and
    :func:`isinf` give bool (always False on integers). :func:`fma` is
    ``math.fma`` on floats (one rounding), multiply-add on integers.

Composition
    A ``@pw.pointwise`` function called on Values inside a traced body
    (:func:`inline_call`) traces its own body into the same map: its tensor
    arguments count as tensors and its scalar arguments as wrapped
    numbers in its promotion, and each of its results is converted to its
    output dtype with the rounding of a store, as if a kernel had written
    it.

Restrictions
    Python control flow on Values (``if x > 0:``, ``bool(x)``, ``int(x)``,
    ``float(x)``, ``math.exp(x)``, iteration, ``len``, indexing) raises
    :class:`TracingError`: select with :func:`where` instead. So do
    unsupported operand types, bitwise operations on floats and results
    that are not Values or numbers or whose count differs from the number
    of outputs. The function returns one value or a tuple/list with one
    value per output; a Python number or a scalar parameter broadcasts.

The text is deterministic (it serves as a cache key): SSA names are
numbered in order and identical operations, constants included, are emitted
once.

The body uses ``arith`` (``addf/addi, subf/subi, mulf/muli, divf,
floordivsi, divui, remf, remsi, remui, negf, maximumf, minimumf, maxsi,
minsi, maxui, minui, andi, ori, xori, shli, shrsi, shrui, cmpf, cmpi,
select, constant`` and the casts ``extf, truncf, extsi, extui, trunci,
sitofp, uitofp, fptosi, fptoui``) and ``math`` (``exp, exp2, log, log2,
log1p, sqrt, rsqrt, sin, cos, tan, tanh, erf, floor, ceil, roundeven, powf,
fma, absf, absi, copysign``).
"""

import builtins
import dataclasses
import fractions
import math
import numbers
import re
import struct

from ._dtypes import (
    DType,
    Operand,
    as_dtype,
    bfloat16,
    bool_,
    float16,
    float32,
    float64,
    int64,
    python_scalar_dtype,
    result_type,
)
from ._promotion import output_dtype

__all__ = [
    "TracingError",
    "Param",
    "Value",
    "trace_function",
    "inline_call",
    "exp",
    "exp2",
    "log",
    "log2",
    "log1p",
    "sqrt",
    "rsqrt",
    "sin",
    "cos",
    "tan",
    "tanh",
    "erf",
    "sigmoid",
    "floor",
    "ceil",
    "round",
    "maximum",
    "minimum",
    "where",
    "isnan",
    "isinf",
    "fma",
]


class TracingError(TypeError):
    """A traced function did something that cannot become a pointwise body."""


class _AttributeTracingError(TracingError, AttributeError):
    """An attribute a traced Value does not have (``x.real``): a TracingError
    that ``hasattr`` still reads as a missing attribute."""


_HALF = (float16, bfloat16)
_PARAM_KINDS = ("tensor", "scalar")


@dataclasses.dataclass(frozen=True)
class Param:
    """A parameter of a traced function.

    ``kind``: ``"tensor"`` (a memref argument of ``rank`` dims with dynamic
    sizes, strides and offset) or ``"scalar"`` (a scalar argument of the
    MLIR type of ``dtype``; its rank is 0). ``dtype``: anything
    :func:`~pointwise._dtypes.as_dtype` accepts.
    """

    kind: str
    dtype: DType
    rank: int = 0

    def __post_init__(self):
        if self.kind not in _PARAM_KINDS:
            raise ValueError(
                f"unknown parameter kind {self.kind!r}: expected 'tensor' or "
                "'scalar'"
            )
        object.__setattr__(self, "dtype", as_dtype(self.dtype))
        if isinstance(self.rank, bool) or not isinstance(self.rank, int):
            raise ValueError(f"parameter rank {self.rank!r} is not an integer")
        if self.rank < 0:
            raise ValueError(f"parameter rank {self.rank} is negative")
        if self.kind == "scalar" and self.rank != 0:
            raise ValueError(f"a scalar parameter has rank 0, not {self.rank}")


# ===------------------------------------------------------------------------===
# Types, literals and constants
# ===------------------------------------------------------------------------===


def _ir_type(dtype):
    """The type a value of ``dtype`` is carried in inside the region."""
    return "f32" if dtype in _HALF else dtype.mlir


def _bits(dtype):
    return int(dtype.mlir[1:])


def _round_f32(x):
    try:
        return struct.unpack("<f", struct.pack("<f", x))[0]
    except OverflowError:
        return math.copysign(math.inf, x)


def _round_f16(x):
    x = _round_f32(x)  # double rounding, as c10::Half(float(x))
    try:
        return struct.unpack("<e", struct.pack("<e", x))[0]
    except OverflowError:
        return math.copysign(math.inf, x)


def _round_bf16(x):
    x = _round_f32(x)  # double rounding, as c10::BFloat16(float(x))
    if math.isnan(x):
        return math.nan
    bits = struct.unpack("<I", struct.pack("<f", x))[0]
    bits = ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16) << 16
    return struct.unpack("<f", struct.pack("<I", bits & 0xFFFFFFFF))[0]


_ROUND = {float16: _round_f16, bfloat16: _round_bf16, float32: _round_f32}


def _literal_value(value, dtype):
    """The Python number ``value`` converted to ``dtype`` as C++ casts do."""
    if dtype.is_bool:
        return builtins.bool(value)
    if dtype.is_integer:
        if isinstance(value, float):
            if not math.isfinite(value):
                raise OverflowError(f"cannot convert {value} to {dtype.name}")
            value = math.trunc(value)
        bits = _bits(dtype)
        value = int(value) & ((1 << bits) - 1)
        if dtype.is_unsigned:
            return value
        return value - (1 << bits) if value >> (bits - 1) else value
    value = float(value)
    rounding = _ROUND.get(dtype)
    return rounding(value) if rounding else value


_NON_FINITE_BITS = {
    ("f32", "inf"): "0x7F800000",
    ("f32", "-inf"): "0xFF800000",
    ("f32", "nan"): "0x7FC00000",
    ("f64", "inf"): "0x7FF0000000000000",
    ("f64", "-inf"): "0xFFF0000000000000",
    ("f64", "nan"): "0x7FF8000000000000",
}


def _format_float(value, ir_type):
    if not math.isfinite(value):
        return _NON_FINITE_BITS[(ir_type, repr(value))]
    text = repr(value)  # shortest round trip; MLIR needs a '.'
    if "." not in text:
        mantissa, _, exponent = text.partition("e")
        text = mantissa + ".0" + ("e" + exponent if exponent else "")
    return text


def _as_literal(obj):
    """``obj`` as a Python bool, int or float, or None if it is no number."""
    if isinstance(obj, (bool, int, float)):
        return obj
    if type(obj).__name__ in ("bool_", "bool") and hasattr(obj, "item"):
        return builtins.bool(obj)  # numpy.bool_
    if isinstance(obj, numbers.Integral):
        return int(obj)
    if isinstance(obj, numbers.Real):
        return float(obj)
    return None


# ===------------------------------------------------------------------------===
# The tracer and Values
# ===------------------------------------------------------------------------===

_BARE_SYMBOL = re.compile(r"^[A-Za-z_][A-Za-z0-9_$.]*$")


def _symbol(name):
    if _BARE_SYMBOL.match(name):
        return "@" + name
    escaped = name.replace("\\", "\\5C").replace('"', "\\22").replace("\n", "\\0A")
    return f'@"{escaped}"'


class _Tracer:
    """Records the body of one ``pointwise.map`` while a function runs."""

    def __init__(self, fn_name):
        self.fn_name = fn_name
        self.lines = []
        self.names = {}  # operation text -> SSA name (CSE)
        self.finished = False

    def error(self, message):
        return TracingError(f"in traced function '{self.fn_name}': {message}")

    def op(self, text):
        """The SSA name of ``text`` (an operation without its result)."""
        name = self.names.get(text)
        if name is None:
            name = f"%{len(self.names)}"
            self.names[text] = name
            self.lines.append(f"{name} = {text}")
        return name

    def value(self, text, dtype, wrapped):
        return Value(self, self.op(text), dtype, wrapped)

    def constant(self, literal, dtype, wrapped=True):
        """A constant Value of ``dtype`` from the Python number ``literal``."""
        try:
            value = _literal_value(literal, dtype)
        except OverflowError as exc:
            raise self.error(str(exc)) from None
        ir_type = _ir_type(dtype)
        if dtype.is_bool:
            text = "arith.constant " + ("true" if value else "false")
        elif dtype.is_integer:
            # MLIR integers are signless: write the bits as a signed value.
            bits = _bits(dtype)
            if value >= 1 << (bits - 1):
                value -= 1 << bits
            text = f"arith.constant {value} : {ir_type}"
        else:
            text = f"arith.constant {_format_float(value, ir_type)} : {ir_type}"
        return self.value(text, dtype, wrapped)


class Value:
    """A symbolic scalar inside a traced function.

    ``dtype`` is its logical dtype; ``wrapped`` is True for scalar
    parameters and the values computed from wrapped values only (PyTorch's
    wrapped numbers); ``name`` is its SSA name and ``ir_type`` the MLIR type
    it is carried in (f32 for float16 and bfloat16: *opmath*).

    Values support Python's arithmetic, comparison and bitwise operators,
    ``abs()``, ``round()``, ``math.floor()``/``math.ceil()`` and
    :meth:`to`; see the module documentation for their semantics.
    """

    __slots__ = ("_tracer", "name", "dtype", "wrapped")

    def __init__(self, tracer, name, dtype, wrapped):
        self._tracer = tracer
        self.name = name
        self.dtype = dtype
        self.wrapped = wrapped

    @property
    def ir_type(self):
        return _ir_type(self.dtype)

    def __repr__(self):
        kind = ", wrapped" if self.wrapped else ""
        return f"Value({self.name}: {self.dtype.name}{kind})"

    __hash__ = object.__hash__

    def to(self, dtype):
        """This value converted to ``dtype`` (not wrapped), as PyTorch does."""
        _tracer_of((self,), ".to()")
        return _cast(self, as_dtype(dtype), wrapped=False)

    # --- Python control flow is not traceable ---------------------------------

    def _control_flow(self, action):
        return self._tracer.error(
            f"cannot {action}: a Value has no concrete value while the function "
            "is traced, so Python control flow ('if', 'while', 'and', 'or', "
            "chained comparisons, min/max) and conversions to Python numbers "
            "cannot depend on it; use pw.where(cond, a, b) to select between "
            "values, pw.maximum/pw.minimum for max/min, the pw functions "
            "(pw.exp, ...) instead of math, and .to(dtype) to convert"
        )

    def __getattr__(self, name):
        # Only for attributes a Value lacks (x.real, x.exp(), x.shape).
        if name.startswith("__") or name in Value.__slots__:
            raise AttributeError(name)
        raise _AttributeTracingError(
            f"in traced function '{self._tracer.fn_name}': a traced Value (a "
            f"scalar) has no attribute '{name}'; the body computes with Python "
            f"operators, the pw functions ({_PW_FUNCTIONS}) and .to(dtype)"
        )

    # NumPy: a NumPy scalar or array on the left of an operator
    # (np.float32(2) * x) calls the ufunc, which comes here and acts as
    # Python's reflected operator; other ufuncs (np.exp(x)) are an error
    # naming the pw function to use instead.
    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        operators = _ufunc_operators()
        name = getattr(ufunc, "__name__", str(ufunc))
        entry = operators.get(ufunc) if method == "__call__" and not kwargs else None
        if entry is not None and len(inputs) == ufunc.nin:
            forward, reflected = entry
            # NumPy hands scalars over as 0-d arrays (np.int64(1) < x).
            inputs = [x[()] if getattr(x, "shape", None) == () and
                      not isinstance(x, Value) else x for x in inputs]
            if len(inputs) == 1:
                return getattr(inputs[0], forward)()
            a, b = inputs
            if isinstance(a, Value):
                return getattr(a, forward)(b)
            return getattr(b, reflected)(a)
        instead = (f"use pw.{_NUMPY_TO_PW.get(name, name)}"
                   if _NUMPY_TO_PW.get(name, name) in __all__
                   else f"use Python operators and the pw functions "
                        f"({_PW_FUNCTIONS})")
        if method != "__call__":
            name += "." + method
        raise self._tracer.error(
            f"NumPy's {name} cannot take a traced Value (the body is traced "
            f"on scalars, not run on arrays); {instead}"
        )

    def __bool__(self):
        raise self._control_flow("take the truth value of a traced Value")

    def __int__(self):
        raise self._control_flow("convert a traced Value to a Python int")

    def __float__(self):
        raise self._control_flow("convert a traced Value to a Python float")

    def __complex__(self):
        raise self._control_flow("convert a traced Value to a Python complex")

    def __index__(self):
        raise self._control_flow("use a traced Value as an index or a size")

    def __iter__(self):
        raise self._control_flow("iterate over a traced Value (a scalar)")

    def __len__(self):
        raise self._control_flow("take the length of a traced Value (a scalar)")

    def __getitem__(self, key):
        raise self._control_flow("index a traced Value (a scalar)")

    # --- Arithmetic ------------------------------------------------------------

    def __add__(self, other):
        return _arith("+", self, other)

    def __radd__(self, other):
        return _arith("+", other, self)

    def __sub__(self, other):
        return _arith("-", self, other)

    def __rsub__(self, other):
        return _arith("-", other, self)

    def __mul__(self, other):
        return _arith("*", self, other)

    def __rmul__(self, other):
        return _arith("*", other, self)

    def __truediv__(self, other):
        return _arith("/", self, other)

    def __rtruediv__(self, other):
        return _arith("/", other, self)

    def __floordiv__(self, other):
        return _arith("//", self, other)

    def __rfloordiv__(self, other):
        return _arith("//", other, self)

    def __mod__(self, other):
        return _arith("%", self, other)

    def __rmod__(self, other):
        return _arith("%", other, self)

    def __divmod__(self, other):
        return _arith("//", self, other), _arith("%", self, other)

    def __rdivmod__(self, other):
        return _arith("//", other, self), _arith("%", other, self)

    def __pow__(self, other, modulo=None):
        if modulo is not None:
            raise self._tracer.error("pow() with a modulus is not supported")
        return _arith("**", self, other)

    def __rpow__(self, other):
        return _arith("**", other, self)

    # --- Comparisons -----------------------------------------------------------

    def __lt__(self, other):
        return _compare("<", self, other)

    def __le__(self, other):
        return _compare("<=", self, other)

    def __gt__(self, other):
        return _compare(">", self, other)

    def __ge__(self, other):
        return _compare(">=", self, other)

    def __eq__(self, other):
        return _compare("==", self, other)

    def __ne__(self, other):
        return _compare("!=", self, other)

    # --- Bitwise ---------------------------------------------------------------

    def __and__(self, other):
        return _bitwise("&", self, other)

    def __rand__(self, other):
        return _bitwise("&", other, self)

    def __or__(self, other):
        return _bitwise("|", self, other)

    def __ror__(self, other):
        return _bitwise("|", other, self)

    def __xor__(self, other):
        return _bitwise("^", self, other)

    def __rxor__(self, other):
        return _bitwise("^", other, self)

    def __lshift__(self, other):
        return _shift("<<", self, other)

    def __rlshift__(self, other):
        return _shift("<<", other, self)

    def __rshift__(self, other):
        return _shift(">>", self, other)

    def __rrshift__(self, other):
        return _shift(">>", other, self)

    # --- Unary -----------------------------------------------------------------

    def __neg__(self):
        return _negate(self)

    def __pos__(self):
        _tracer_of((self,), "unary +")
        return self

    def __abs__(self):
        return _abs(self)

    def __invert__(self):
        return _invert(self)

    def __round__(self, ndigits=None):
        if ndigits is not None:
            raise self._tracer.error("round() with ndigits is not supported")
        return round(self)

    def __floor__(self):
        return floor(self)

    def __ceil__(self):
        return ceil(self)


_PW_FUNCTIONS = ("pw.exp, exp2, log, log2, log1p, sqrt, rsqrt, sin, cos, "
                 "tan, tanh, erf, sigmoid, floor, ceil, round, maximum, "
                 "minimum, where, isnan, isinf, fma")
# NumPy ufuncs named otherwise than their pw function.
_NUMPY_TO_PW = {"rint": "round", "fmax": "maximum", "fmin": "minimum"}
_UFUNC_OPERATORS = {
    "add": ("__add__", "__radd__"), "subtract": ("__sub__", "__rsub__"),
    "multiply": ("__mul__", "__rmul__"),
    "true_divide": ("__truediv__", "__rtruediv__"),
    "divide": ("__truediv__", "__rtruediv__"),
    "floor_divide": ("__floordiv__", "__rfloordiv__"),
    "remainder": ("__mod__", "__rmod__"), "divmod": ("__divmod__", "__rdivmod__"),
    "power": ("__pow__", "__rpow__"),
    "less": ("__lt__", "__gt__"), "less_equal": ("__le__", "__ge__"),
    "greater": ("__gt__", "__lt__"), "greater_equal": ("__ge__", "__le__"),
    "equal": ("__eq__", "__eq__"), "not_equal": ("__ne__", "__ne__"),
    "bitwise_and": ("__and__", "__rand__"), "bitwise_or": ("__or__", "__ror__"),
    "bitwise_xor": ("__xor__", "__rxor__"),
    "left_shift": ("__lshift__", "__rlshift__"),
    "right_shift": ("__rshift__", "__rrshift__"),
    "negative": ("__neg__", None), "positive": ("__pos__", None),
    "absolute": ("__abs__", None), "invert": ("__invert__", None),
}
_ufunc_table = None


def _ufunc_operators():
    """{NumPy ufunc: (its operator's method, the reflected one)}."""
    global _ufunc_table
    if _ufunc_table is None:
        import numpy

        _ufunc_table = {
            getattr(numpy, name): methods
            for name, methods in _UFUNC_OPERATORS.items()
            if isinstance(getattr(numpy, name, None), numpy.ufunc)
        }
    return _ufunc_table


# ===------------------------------------------------------------------------===
# Operands, promotion and conversions
# ===------------------------------------------------------------------------===


def _tracer_of(args, what):
    """The tracer of the Values among ``args``; checks the other operands."""
    values = [arg for arg in args if isinstance(arg, Value)]
    if not values:
        raise TracingError(f"{what}: expected a traced Value among the operands")
    for value in values:
        if value._tracer.finished:
            raise value._tracer.error(
                f"{what}: a Value was used after its trace ended (keep Values "
                "inside the traced function)"
            )
    tracer = values[0]._tracer
    for value in values:
        if value._tracer is not tracer:
            raise tracer.error(
                f"{what}: mixes Values of two different traces "
                f"('{tracer.fn_name}' and '{value._tracer.fn_name}')"
            )
    for arg in args:
        if not isinstance(arg, Value) and _as_literal(arg) is None:
            raise tracer.error(
                f"unsupported operand {arg!r} of type {type(arg).__name__} for "
                f"{what}: expected a traced Value or a Python bool, int or float"
            )
    return tracer


def _is_wrapped(arg):
    return arg.wrapped if isinstance(arg, Value) else True


def _operand(arg):
    if isinstance(arg, Value):
        return Operand(arg.dtype, "scalar" if arg.wrapped else "tensor")
    return Operand(python_scalar_dtype(_as_literal(arg)), "scalar")


def _arg_dtype(arg):
    if isinstance(arg, Value):
        return arg.dtype
    return python_scalar_dtype(_as_literal(arg))


def _promote(args, arithmetic):
    """The common dtype of ``args`` and whether the result is wrapped.

    Wrapped with wrapped follows Python (bool, int64, float64; bools count as
    int64 in arithmetic); anything else ``torch.result_type``.
    """
    if all(_is_wrapped(arg) for arg in args):
        category = max(_arg_dtype(arg).category for arg in args)
        if category == 2:
            return float64, True
        if category == 1 or arithmetic:
            return int64, True
        return bool_, True
    try:
        return result_type(*(_operand(arg) for arg in args)), False
    except TypeError as exc:  # uint16/32/64 with another integer type
        raise _tracer_of(args, "promotion").error(str(exc)) from None


def _cast(value, dst, wrapped=None):
    """``value`` converted to the logical dtype ``dst`` (C++ cast semantics)."""
    if wrapped is None:
        wrapped = value.wrapped
    src = value.dtype
    tracer = value._tracer
    if src is dst:
        return Value(tracer, value.name, dst, wrapped)
    x = value.name
    src_type, dst_type = _ir_type(src), _ir_type(dst)
    if dst.is_bool:
        zero = tracer.constant(0, src)
        if src.is_floating:
            text = f"arith.cmpf une, {x}, {zero.name} : {src_type}"
        else:
            text = f"arith.cmpi ne, {x}, {zero.name} : {src_type}"
        return tracer.value(text, dst, wrapped)
    if src.is_bool:
        op = "arith.extui" if dst.is_integer else "arith.uitofp"
        return tracer.value(f"{op} {x} : i1 to {dst_type}", dst, wrapped)
    if src.is_integer and dst.is_integer:
        if _bits(dst) == _bits(src):
            return Value(tracer, x, dst, wrapped)
        if _bits(dst) < _bits(src):
            op = "arith.trunci"
        else:
            op = "arith.extui" if src.is_unsigned else "arith.extsi"
        return tracer.value(f"{op} {x} : {src_type} to {dst_type}", dst, wrapped)
    if src.is_integer:  # to a float
        op = "arith.uitofp" if src.is_unsigned else "arith.sitofp"
        result = tracer.value(f"{op} {x} : {src_type} to {dst_type}", dst, wrapped)
        if dst in _HALF and src.itemsize > 1:  # 8-bit values are exact
            result = _round_half(result, dst)
        return result
    if dst.is_unsigned:  # from a float
        return _float_to_unsigned(value, dst, wrapped)
    if dst.is_integer:  # from a float (fptosi saturates in a map body)
        return tracer.value(
            f"arith.fptosi {x} : {src_type} to {dst_type}", dst, wrapped
        )
    # float to float
    if src is float64 and dst is not float64:
        x = tracer.op(f"arith.truncf {x} : f64 to f32")
    elif dst is float64:
        x = tracer.op(f"arith.extf {x} : {src_type} to f64")
    result = Value(tracer, x, dst, wrapped)
    if dst in _HALF:
        result = _round_half(result, dst)
    return result


def _float_to_unsigned(value, dst, wrapped):
    """A float ``value`` converted to the unsigned ``dst``. uint8 converts
    as PyTorch defines it (c10's ``static_cast_with_inter_type``: through
    int64), so that negative values wrap around (-1.0 is 255); the others
    take ``fptoui``. Both saturate in a map body (NaN gives 0, a value
    beyond the type its limit), so every lowering gives the same bits."""
    tracer = value._tracer
    x, src_type = value.name, value.ir_type
    if dst.bits == 8:
        signed = tracer.op(f"arith.fptosi {x} : {src_type} to i64")
        return tracer.value(f"arith.trunci {signed} : i64 to i8", dst, wrapped)
    return tracer.value(
        f"arith.fptoui {x} : {src_type} to {dst.mlir}", dst, wrapped
    )


def _round_half(value, dtype):
    """Round an f32-carried ``value`` to ``dtype`` (float16 or bfloat16)."""
    tracer = value._tracer
    narrow = tracer.op(f"arith.truncf {value.name} : f32 to {dtype.mlir}")
    wide = tracer.op(f"arith.extf {narrow} : {dtype.mlir} to f32")
    return Value(tracer, wide, dtype, value.wrapped)


def _materialize(tracer, arg, dtype, wrapped, opmath_scalars=False):
    """``arg`` (a Value or a Python number) as a Value of ``dtype``.

    With ``opmath_scalars``, wrapped operands promoted to float16/bfloat16
    keep float32 precision (PyTorch's kernels use CPU scalars in opmath).
    """
    keep = opmath_scalars and dtype in _HALF and _is_wrapped(arg)
    if isinstance(arg, Value):
        if keep:
            converted = _cast(arg, float32)
            return Value(tracer, converted.name, dtype, wrapped)
        return _cast(arg, dtype, wrapped)
    literal = _as_literal(arg)
    if keep:
        converted = tracer.constant(literal, float32, wrapped)
        return Value(tracer, converted.name, dtype, wrapped)
    return tracer.constant(literal, dtype, wrapped)


def _store(value, dtype):
    """The SSA name of ``value`` converted to the storage type of ``dtype``."""
    if dtype in _HALF:
        wide = _cast(value, float32)
        return wide._tracer.op(f"arith.truncf {wide.name} : f32 to {dtype.mlir}")
    return _cast(value, dtype).name


# ===------------------------------------------------------------------------===
# Operators
# ===------------------------------------------------------------------------===

_NAMES = {"+": "addition", "-": "subtraction", "//": "floor division", "%": "remainder"}


def _arith(symbol, a, b):
    tracer = _tracer_of((a, b), f"'{symbol}'")
    dtype, wrapped = _promote((a, b), arithmetic=True)
    if symbol == "/" and not dtype.is_floating:
        dtype = float64 if wrapped else float32
    if symbol == "**" and dtype.is_bool:
        dtype = int64
    if dtype.is_bool and symbol in ("-", "//", "%"):
        raise tracer.error(
            f"{_NAMES[symbol]} ('{symbol}') of bool values is not supported, as in "
            "PyTorch; use '^' or '~' for masks, or convert with .to()"
        )
    exponent = _as_literal(b) if symbol == "**" else None
    x = _materialize(tracer, a, dtype, wrapped, opmath_scalars=True)
    if exponent is not None and dtype.is_integer:
        return _ipow_constant(tracer, x, int(exponent), wrapped)
    if exponent == 2 and dtype.is_floating:
        return _float_op(tracer, "mulf", x, x, wrapped)
    y = _materialize(tracer, b, dtype, wrapped, opmath_scalars=True)
    t = x.ir_type
    if symbol == "+":
        if dtype.is_bool:
            return tracer.value(f"arith.ori {x.name}, {y.name} : i1", dtype, wrapped)
        return _num_op(tracer, "add", x, y, wrapped)
    if symbol == "-":
        return _num_op(tracer, "sub", x, y, wrapped)
    if symbol == "*":
        if dtype.is_bool:
            return tracer.value(f"arith.andi {x.name}, {y.name} : i1", dtype, wrapped)
        return _num_op(tracer, "mul", x, y, wrapped)
    if symbol == "/":
        return _float_op(tracer, "divf", x, y, wrapped)
    if symbol == "//":
        if dtype.is_unsigned:
            safe, is_zero = _safe_unsigned_divisor(tracer, y)
            quotient = tracer.op(f"arith.divui {x.name}, {safe} : {t}")
            zero = tracer.constant(0, dtype).name
            return _select(tracer, is_zero, zero, quotient, dtype, wrapped)
        if dtype.is_integer:
            safe, zero_or_minus_one, minus_one = _safe_divisor(tracer, y)
            quotient = tracer.op(f"arith.floordivsi {x.name}, {safe} : {t}")
            zero = tracer.constant(0, dtype).name
            negated = tracer.op(f"arith.subi {zero}, {x.name} : {t}")
            by_minus_one = tracer.op(
                f"arith.select {minus_one}, {negated}, {zero} : {t}"
            )
            return _select(
                tracer, zero_or_minus_one, by_minus_one, quotient, dtype, wrapped
            )
        return _float_floor_divide(tracer, x, y, wrapped)
    if symbol == "%":
        return _remainder(tracer, x, y, wrapped)
    if dtype.is_integer:
        return _ipow(tracer, x, y, wrapped)
    return tracer.value(f"math.powf {x.name}, {y.name} : {t}", dtype, wrapped)


def _num_op(tracer, stem, x, y, wrapped):
    suffix = "f" if x.dtype.is_floating else "i"
    text = f"arith.{stem}{suffix} {x.name}, {y.name} : {x.ir_type}"
    return tracer.value(text, x.dtype, wrapped)


def _float_op(tracer, op, x, y, wrapped):
    return tracer.value(
        f"arith.{op} {x.name}, {y.name} : {x.ir_type}", x.dtype, wrapped
    )


def _cmp(tracer, x, predicate, y):
    """The i1 SSA name of ``x <predicate> y`` (cmpf or cmpi by type)."""
    op = "arith.cmpf" if x.dtype.is_floating else "arith.cmpi"
    return tracer.op(f"{op} {predicate}, {x.name}, {y} : {x.ir_type}")


def _select(tracer, condition, x, y, dtype, wrapped):
    text = f"arith.select {condition}, {x}, {y} : {_ir_type(dtype)}"
    return tracer.value(text, dtype, wrapped)


def _safe_divisor(tracer, y):
    """For integer division: (divisor SSA name that is never 0 or -1, i1 name
    of ``y == 0 or y == -1``, i1 name of ``y == -1``). Dividing by 0, or the
    minimum by -1, traps on the CPU (SIGFPE would kill the process); the
    callers define x // 0 == x % 0 == 0 and handle -1 exactly."""
    t = y.ir_type
    zero = tracer.constant(0, y.dtype).name
    one = tracer.constant(1, y.dtype).name
    minus_one = tracer.constant(-1, y.dtype).name
    is_zero = tracer.op(f"arith.cmpi eq, {y.name}, {zero} : {t}")
    is_minus_one = tracer.op(f"arith.cmpi eq, {y.name}, {minus_one} : {t}")
    either = tracer.op(f"arith.ori {is_zero}, {is_minus_one} : i1")
    safe = tracer.op(f"arith.select {either}, {one}, {y.name} : {t}")
    return safe, either, is_minus_one


def _safe_unsigned_divisor(tracer, y):
    """For unsigned division: (divisor SSA name that is never 0, i1 name of
    ``y == 0``); the callers define x // 0 == x % 0 == 0."""
    t = y.ir_type
    zero = tracer.constant(0, y.dtype).name
    one = tracer.constant(1, y.dtype).name
    is_zero = tracer.op(f"arith.cmpi eq, {y.name}, {zero} : {t}")
    safe = tracer.op(f"arith.select {is_zero}, {one}, {y.name} : {t}")
    return safe, is_zero


def _float_floor_divide(tracer, x, y, wrapped):
    """PyTorch's ``div_floor_floating`` (c10/util/generic_math.h), which is
    NumPy's ``npy_floor_divide`` and CPython's float ``//``: the quotient is
    derived from ``fmod`` so that it is exact where ``floor(x / y)`` is off by
    one (``1.0 // 0.1`` is 9, while ``1.0 / 0.1`` rounds to 10).

    ``y == 0`` gives ``x / y`` (inf, -inf or NaN); a zero quotient has the
    sign of ``x / y``; infinite and NaN operands give what the formula
    gives (``inf // 2`` is NaN, ``1 // inf`` is 0, ``-1 // inf`` is -1).
    """
    dtype, t = x.dtype, x.ir_type
    zero = tracer.constant(0.0, dtype).name
    one = tracer.constant(1.0, dtype).name
    half = tracer.constant(0.5, dtype).name
    quotient = tracer.op(f"arith.divf {x.name}, {y.name} : {t}")
    mod = tracer.op(f"arith.remf {x.name}, {y.name} : {t}")
    difference = tracer.op(f"arith.subf {x.name}, {mod} : {t}")
    div = tracer.op(f"arith.divf {difference}, {y.name} : {t}")
    # mod != 0 and (y < 0) != (mod < 0): the truncated quotient is one high.
    mod_nonzero = tracer.op(f"arith.cmpf une, {mod}, {zero} : {t}")
    y_negative = tracer.op(f"arith.cmpf olt, {y.name}, {zero} : {t}")
    mod_negative = tracer.op(f"arith.cmpf olt, {mod}, {zero} : {t}")
    signs_differ = tracer.op(f"arith.xori {y_negative}, {mod_negative} : i1")
    adjust = tracer.op(f"arith.andi {mod_nonzero}, {signs_differ} : i1")
    lowered = tracer.op(f"arith.subf {div}, {one} : {t}")
    div = tracer.op(f"arith.select {adjust}, {lowered}, {div} : {t}")
    # Snap to the nearest integer: (x - mod) / y is an integer up to rounding.
    floored = tracer.op(f"math.floor {div} : {t}")
    fraction = tracer.op(f"arith.subf {div}, {floored} : {t}")
    round_up = tracer.op(f"arith.cmpf ogt, {fraction}, {half} : {t}")
    raised = tracer.op(f"arith.addf {floored}, {one} : {t}")
    snapped = tracer.op(f"arith.select {round_up}, {raised}, {floored} : {t}")
    signed_zero = tracer.op(f"math.copysign {zero}, {quotient} : {t}")
    div_nonzero = tracer.op(f"arith.cmpf une, {div}, {zero} : {t}")
    result = tracer.op(
        f"arith.select {div_nonzero}, {snapped}, {signed_zero} : {t}"
    )
    y_zero = tracer.op(f"arith.cmpf oeq, {y.name}, {zero} : {t}")
    return _select(tracer, y_zero, quotient, result, dtype, wrapped)


def _remainder(tracer, x, y, wrapped):
    # Python's and PyTorch's remainder: the sign of the divisor.
    dtype, t = x.dtype, x.ir_type
    if dtype.is_unsigned:
        safe, is_zero = _safe_unsigned_divisor(tracer, y)
        raw = tracer.op(f"arith.remui {x.name}, {safe} : {t}")
        zero = tracer.constant(0, dtype).name
        return _select(tracer, is_zero, zero, raw, dtype, wrapped)
    floating = dtype.is_floating
    if floating:
        remainder = tracer.op(f"arith.remf {x.name}, {y.name} : {t}")
    else:
        # x % 0 == 0 here (see _safe_divisor), x % -1 == 0 exactly.
        safe, zero_or_minus_one, _ = _safe_divisor(tracer, y)
        raw = tracer.op(f"arith.remsi {x.name}, {safe} : {t}")
        zero_value = tracer.constant(0, dtype).name
        remainder = tracer.op(
            f"arith.select {zero_or_minus_one}, {zero_value}, {raw} : {t}"
        )
    zero = tracer.constant(0, dtype).name
    r = Value(tracer, remainder, dtype, wrapped)
    nonzero = _cmp(tracer, r, "une" if floating else "ne", zero)
    r_negative = _cmp(tracer, r, "olt" if floating else "slt", zero)
    y_negative = _cmp(tracer, y, "olt" if floating else "slt", zero)
    signs_differ = tracer.op(f"arith.xori {r_negative}, {y_negative} : i1")
    adjust = tracer.op(f"arith.andi {nonzero}, {signs_differ} : i1")
    adjusted = _num_op(tracer, "add", r, y, wrapped)
    return _select(tracer, adjust, adjusted.name, remainder, dtype, wrapped)


def _ipow_negative(tracer, x, odd, wrapped):
    """PyTorch's integer power for a negative exponent: 1, -1 or 0.

    ``odd`` is the i1 SSA name (or a Python bool) of the exponent's parity.
    """
    dtype = x.dtype
    one = tracer.constant(1, dtype).name
    zero = tracer.constant(0, dtype).name
    if dtype.is_unsigned:  # no -1: 1 stays 1, anything else truncates to 0
        is_one = _cmp(tracer, x, "eq", one)
        return _select(tracer, is_one, one, zero, dtype, wrapped)
    minus_one = tracer.constant(-1, dtype).name
    if isinstance(odd, builtins.bool):
        sign = minus_one if odd else one
    else:
        sign = _select(tracer, odd, minus_one, one, dtype, wrapped).name
    is_minus_one = _cmp(tracer, x, "eq", minus_one)
    is_one = _cmp(tracer, x, "eq", one)
    inner = _select(tracer, is_minus_one, sign, zero, dtype, wrapped).name
    return _select(tracer, is_one, one, inner, dtype, wrapped)


def _ipow_constant(tracer, x, exponent, wrapped):
    """``x ** exponent`` for a known integer exponent (square and multiply)."""
    if exponent < 0:
        return _ipow_negative(tracer, x, builtins.bool(exponent & 1), wrapped)
    result = None
    base = x
    while exponent:
        if exponent & 1 and result is None:
            result = base
        elif exponent & 1:
            result = _num_op(tracer, "mul", result, base, wrapped)
        exponent >>= 1
        if exponent:
            base = _num_op(tracer, "mul", base, base, wrapped)
    if result is None:
        return tracer.constant(1, x.dtype, wrapped)
    return Value(tracer, result.name, x.dtype, wrapped)


def _ipow(tracer, x, y, wrapped):
    """``x ** y`` on integers: square and multiply over the exponent's bits.

    ``math.ipowi`` would say the same for every base but 0, whose negative
    powers it leaves undefined (a division by zero in upstream's
    convert-math-to-funcs) where PyTorch gives 0; hence the explicit form.
    """
    dtype, t = x.dtype, x.ir_type
    zero = tracer.constant(0, dtype).name
    result = tracer.constant(1, dtype, wrapped)
    base = x
    # A non-negative signed exponent has bits - 1 bits, an unsigned one bits.
    bits = _bits(dtype) if dtype.is_unsigned else _bits(dtype) - 1
    for bit in range(bits):
        mask = tracer.constant(1 << bit, dtype).name
        masked = tracer.op(f"arith.andi {y.name}, {mask} : {t}")
        is_set = tracer.op(f"arith.cmpi ne, {masked}, {zero} : {t}")
        product = _num_op(tracer, "mul", result, base, wrapped)
        result = _select(tracer, is_set, product.name, result.name, dtype, wrapped)
        if bit < bits - 1:
            base = _num_op(tracer, "mul", base, base, wrapped)
    if dtype.is_unsigned:
        return result
    one = tracer.constant(1, dtype).name
    low_bit = tracer.op(f"arith.andi {y.name}, {one} : {t}")
    odd = tracer.op(f"arith.cmpi ne, {low_bit}, {zero} : {t}")
    negative_result = _ipow_negative(tracer, x, odd, wrapped)
    negative = tracer.op(f"arith.cmpi slt, {y.name}, {zero} : {t}")
    return _select(tracer, negative, negative_result.name, result.name, dtype, wrapped)


_PREDICATES = {
    # symbol: (float, signed integer, bool and unsigned integers)
    "<": ("olt", "slt", "ult"),
    "<=": ("ole", "sle", "ule"),
    ">": ("ogt", "sgt", "ugt"),
    ">=": ("oge", "sge", "uge"),
    "==": ("oeq", "eq", "eq"),
    "!=": ("une", "ne", "ne"),
}


def _compare(symbol, a, b):
    tracer = _tracer_of((a, b), f"'{symbol}'")
    dtype, wrapped = _promote((a, b), arithmetic=False)
    x = _materialize(tracer, a, dtype, wrapped)
    y = _materialize(tracer, b, dtype, wrapped)
    floating, signed, unsigned = _PREDICATES[symbol]
    if dtype.is_floating:
        predicate = floating
    elif dtype.is_bool or dtype.is_unsigned:
        predicate = unsigned
    else:
        predicate = signed
    return Value(tracer, _cmp(tracer, x, predicate, y.name), bool_, wrapped)


_BITWISE = {"&": "andi", "|": "ori", "^": "xori"}


def _bitwise(symbol, a, b):
    tracer = _tracer_of((a, b), f"'{symbol}'")
    dtype, wrapped = _promote((a, b), arithmetic=False)
    if dtype.is_floating:
        raise tracer.error(
            f"bitwise '{symbol}' is not supported on floating-point values "
            f"(operands of dtypes {_arg_dtype(a).name} and {_arg_dtype(b).name}); "
            "it takes bool and integer values"
        )
    x = _materialize(tracer, a, dtype, wrapped)
    y = _materialize(tracer, b, dtype, wrapped)
    text = f"arith.{_BITWISE[symbol]} {x.name}, {y.name} : {x.ir_type}"
    return tracer.value(text, dtype, wrapped)


def _shift(symbol, a, b):
    tracer = _tracer_of((a, b), f"'{symbol}'")
    dtype, wrapped = _promote((a, b), arithmetic=True)
    if not dtype.is_integer:
        raise tracer.error(
            f"shift '{symbol}' takes integer values, not {dtype.name} (operands "
            f"of dtypes {_arg_dtype(a).name} and {_arg_dtype(b).name})"
        )
    x = _materialize(tracer, a, dtype, wrapped)
    y = _materialize(tracer, b, dtype, wrapped)
    t = x.ir_type
    bits = _bits(dtype)
    zero = tracer.constant(0, dtype).name
    if dtype.is_unsigned:
        # PyTorch: an amount of bits or more shifts everything out.
        width = tracer.constant(bits, dtype).name
        out_of_range = tracer.op(f"arith.cmpi uge, {y.name}, {width} : {t}")
        amount = _select(tracer, out_of_range, zero, y.name, dtype, wrapped).name
        op = "arith.shli" if symbol == "<<" else "arith.shrui"
        shifted = tracer.op(f"{op} {x.name}, {amount} : {t}")
        return _select(tracer, out_of_range, zero, shifted, dtype, wrapped)
    negative = tracer.op(f"arith.cmpi slt, {y.name}, {zero} : {t}")
    if symbol == "<<":
        # PyTorch: a negative or too large amount shifts everything out.
        width = tracer.constant(bits, dtype).name
        too_large = tracer.op(f"arith.cmpi sge, {y.name}, {width} : {t}")
        out_of_range = tracer.op(f"arith.ori {negative}, {too_large} : i1")
        amount = _select(tracer, out_of_range, zero, y.name, dtype, wrapped).name
        shifted = tracer.op(f"arith.shli {x.name}, {amount} : {t}")
        return _select(tracer, out_of_range, zero, shifted, dtype, wrapped)
    # PyTorch: a negative or too large amount shifts by bits - 1 (sign fill).
    last = tracer.constant(bits - 1, dtype).name
    too_large = tracer.op(f"arith.cmpi sgt, {y.name}, {last} : {t}")
    out_of_range = tracer.op(f"arith.ori {negative}, {too_large} : i1")
    amount = _select(tracer, out_of_range, last, y.name, dtype, wrapped).name
    return tracer.value(f"arith.shrsi {x.name}, {amount} : {t}", dtype, wrapped)


def _negate(value):
    tracer = _tracer_of((value,), "unary '-'")
    if value.dtype.is_bool:
        if not value.wrapped:
            raise tracer.error(
                "negation ('-') of a bool value is not supported, as in PyTorch; "
                "use '~' to invert a mask"
            )
        value = _cast(value, int64)  # Python: -True == -1
    elif value.wrapped and value.dtype.is_unsigned:
        value = _cast(value, int64)  # Python numbers: -n is negative
    if value.dtype.is_floating:
        return tracer.value(
            f"arith.negf {value.name} : {value.ir_type}", value.dtype, value.wrapped
        )
    zero = tracer.constant(0, value.dtype).name
    text = f"arith.subi {zero}, {value.name} : {value.ir_type}"
    return tracer.value(text, value.dtype, value.wrapped)


def _abs(value):
    tracer = _tracer_of((value,), "abs()")
    if value.dtype.is_bool or value.dtype.is_unsigned:
        return value
    op = "math.absf" if value.dtype.is_floating else "math.absi"
    return tracer.value(
        f"{op} {value.name} : {value.ir_type}", value.dtype, value.wrapped
    )


def _invert(value):
    tracer = _tracer_of((value,), "'~'")
    if value.dtype.is_floating:
        raise tracer.error(
            f"bitwise '~' is not supported on floating-point values (dtype "
            f"{value.dtype.name}); it takes bool and integer values"
        )
    ones = tracer.constant(-1 if value.dtype.is_integer else True, value.dtype).name
    text = f"arith.xori {value.name}, {ones} : {value.ir_type}"
    return tracer.value(text, value.dtype, value.wrapped)


# ===------------------------------------------------------------------------===
# Functions (exported as pw.exp, pw.where, ...)
# ===------------------------------------------------------------------------===


def _literal_args(args):
    """The arguments as Python numbers if none of them is a Value, else None."""
    if any(isinstance(arg, Value) for arg in args):
        return None
    literals = [_as_literal(arg) for arg in args]
    for arg, literal in zip(args, literals):
        if literal is None:
            raise TracingError(
                f"unsupported argument {arg!r} of type {type(arg).__name__}: "
                "expected a traced Value or a Python bool, int or float"
            )
    return literals


def _ieee(function, x):
    """``function(float(x))`` with IEEE results where :mod:`math` raises."""
    x = float(x)
    try:
        return function(x)
    except OverflowError:
        return math.inf
    except (ValueError, ZeroDivisionError):
        if x == 0:
            return -math.inf
        return math.nan


def _log1p(x):
    return -math.inf if x == -1 else math.log1p(x)


def _rsqrt(x):
    if x == 0:
        return math.copysign(math.inf, x)
    return 1.0 / math.sqrt(x)


def _sigmoid(x):
    if x >= 0:
        return 1.0 / (1.0 + math.exp(-x))
    e = _ieee(math.exp, x)
    return e / (1.0 + e)


def _sigmoid_body(tracer, x):
    t = x.ir_type
    negated = tracer.op(f"arith.negf {x.name} : {t}")
    exponential = tracer.op(f"math.exp {negated} : {t}")
    one = tracer.constant(1.0, x.dtype).name
    denominator = tracer.op(f"arith.addf {one}, {exponential} : {t}")
    return tracer.op(f"arith.divf {one}, {denominator} : {t}")


def _transcendental(name, x, math_op, python_function):
    literals = _literal_args((x,))
    if literals is not None:
        return _ieee(python_function, literals[0])
    tracer = _tracer_of((x,), f"pw.{name}")
    if x.wrapped:
        dtype = float64  # Python: math functions give floats
    else:
        dtype = x.dtype if x.dtype.is_floating else float32  # INT_TO_FLOAT
    x = _cast(x, dtype)
    if math_op is None:
        return Value(tracer, _sigmoid_body(tracer, x), dtype, x.wrapped)
    return tracer.value(f"{math_op} {x.name} : {x.ir_type}", dtype, x.wrapped)


def exp(x):
    """e ** x (``math.exp``); bool and integers compute in float32."""
    return _transcendental("exp", x, "math.exp", math.exp)


def exp2(x):
    """2 ** x (``math.exp2``); bool and integers compute in float32."""
    return _transcendental("exp2", x, "math.exp2", math.exp2)


def log(x):
    """The natural logarithm (``math.log``)."""
    return _transcendental("log", x, "math.log", math.log)


def log2(x):
    """The base-2 logarithm (``math.log2``)."""
    return _transcendental("log2", x, "math.log2", math.log2)


def log1p(x):
    """log(1 + x) (``math.log1p``)."""
    return _transcendental("log1p", x, "math.log1p", _log1p)


def sqrt(x):
    """The square root (``math.sqrt``)."""
    return _transcendental("sqrt", x, "math.sqrt", math.sqrt)


def rsqrt(x):
    """1 / sqrt(x) (``math.rsqrt``)."""
    return _transcendental("rsqrt", x, "math.rsqrt", _rsqrt)


def sin(x):
    """The sine (``math.sin``)."""
    return _transcendental("sin", x, "math.sin", math.sin)


def cos(x):
    """The cosine (``math.cos``)."""
    return _transcendental("cos", x, "math.cos", math.cos)


def tan(x):
    """The tangent (``math.tan``)."""
    return _transcendental("tan", x, "math.tan", math.tan)


def tanh(x):
    """The hyperbolic tangent (``math.tanh``)."""
    return _transcendental("tanh", x, "math.tanh", math.tanh)


def erf(x):
    """The error function (``math.erf``)."""
    return _transcendental("erf", x, "math.erf", math.erf)


def sigmoid(x):
    """1 / (1 + exp(-x)); bool and integers compute in float32."""
    return _transcendental("sigmoid", x, None, _sigmoid)


def _rounding(name, x, math_op, python_function):
    literals = _literal_args((x,))
    if literals is not None:
        value = literals[0]
        if not isinstance(value, float) or not math.isfinite(value):
            return value
        return float(python_function(value))
    tracer = _tracer_of((x,), f"pw.{name}")
    if not x.dtype.is_floating:
        return x
    return tracer.value(f"{math_op} {x.name} : {x.ir_type}", x.dtype, x.wrapped)


def floor(x):
    """Rounds toward -inf (``math.floor``); the identity on bool and integers."""
    return _rounding("floor", x, "math.floor", math.floor)


def ceil(x):
    """Rounds toward +inf (``math.ceil``); the identity on bool and integers."""
    return _rounding("ceil", x, "math.ceil", math.ceil)


def round(x):
    """Rounds half to even (``math.roundeven``), as ``torch.round``.

    The identity on bool and integers.
    """
    return _rounding("round", x, "math.roundeven", builtins.round)


def _python_extremum(a, b, pick):
    for value in (a, b):
        if isinstance(value, float) and math.isnan(value):
            return value
    return pick(a, b)


def _extremum(name, a, b, float_op, int_op, uint_op, bool_op, pick):
    literals = _literal_args((a, b))
    if literals is not None:
        return _python_extremum(literals[0], literals[1], pick)
    tracer = _tracer_of((a, b), f"pw.{name}")
    dtype, wrapped = _promote((a, b), arithmetic=False)
    x = _materialize(tracer, a, dtype, wrapped)
    y = _materialize(tracer, b, dtype, wrapped)
    if dtype.is_floating:
        op = float_op
    elif dtype.is_bool:
        op = bool_op
    else:
        op = uint_op if dtype.is_unsigned else int_op
    return tracer.value(f"arith.{op} {x.name}, {y.name} : {x.ir_type}", dtype, wrapped)


def maximum(a, b):
    """The larger of ``a`` and ``b``, promoted; NaN if either is NaN."""
    return _extremum("maximum", a, b, "maximumf", "maxsi", "maxui", "ori",
                     builtins.max)


def minimum(a, b):
    """The smaller of ``a`` and ``b``, promoted; NaN if either is NaN."""
    return _extremum("minimum", a, b, "minimumf", "minsi", "minui", "andi",
                     builtins.min)


def where(condition, a, b):
    """``a`` where ``condition`` is true, else ``b`` (``torch.where``).

    ``condition`` is converted to bool (``!= 0``); ``a`` and ``b`` are
    promoted with ``result_type``.
    """
    literals = _literal_args((condition, a, b))
    if literals is not None:
        return literals[1] if literals[0] else literals[2]
    tracer = _tracer_of((condition, a, b), "pw.where")
    wrapped = all(_is_wrapped(arg) for arg in (condition, a, b))
    if wrapped:
        dtype, _ = _promote((a, b), arithmetic=False)
    else:
        try:
            dtype = result_type(_operand(a), _operand(b))
        except TypeError as exc:  # uint16/32/64 with another integer type
            raise tracer.error(str(exc)) from None
    if isinstance(condition, Value):
        condition = _cast(condition, bool_)
    else:
        condition = tracer.constant(_as_literal(condition), bool_)
    x = _materialize(tracer, a, dtype, wrapped)
    y = _materialize(tracer, b, dtype, wrapped)
    return _select(tracer, condition.name, x.name, y.name, dtype, wrapped)


def isnan(x):
    """True where ``x`` is NaN (always False for bool and integers)."""
    literals = _literal_args((x,))
    if literals is not None:
        return isinstance(literals[0], float) and math.isnan(literals[0])
    tracer = _tracer_of((x,), "pw.isnan")
    if not x.dtype.is_floating:
        return tracer.constant(False, bool_, x.wrapped)
    text = f"arith.cmpf uno, {x.name}, {x.name} : {x.ir_type}"
    return tracer.value(text, bool_, x.wrapped)


def isinf(x):
    """True where ``x`` is +inf or -inf (always False for bool and integers)."""
    literals = _literal_args((x,))
    if literals is not None:
        return isinstance(literals[0], float) and math.isinf(literals[0])
    tracer = _tracer_of((x,), "pw.isinf")
    if not x.dtype.is_floating:
        return tracer.constant(False, bool_, x.wrapped)
    magnitude = tracer.op(f"math.absf {x.name} : {x.ir_type}")
    infinity = tracer.constant(math.inf, x.dtype).name
    text = f"arith.cmpf oeq, {magnitude}, {infinity} : {x.ir_type}"
    return tracer.value(text, bool_, x.wrapped)


def _python_fma(a, b, c):
    if all(isinstance(v, int) for v in (a, b, c)):
        return a * b + c
    a, b, c = float(a), float(b), float(c)
    if not all(math.isfinite(v) for v in (a, b, c)):
        return a * b + c
    exact = fractions.Fraction(a) * fractions.Fraction(b) + fractions.Fraction(c)
    try:
        return float(exact)  # rounded once
    except OverflowError:
        return math.copysign(math.inf, exact)


def fma(a, b, c):
    """``a * b + c`` with one rounding (``math.fma``), after promotion."""
    literals = _literal_args((a, b, c))
    if literals is not None:
        return _python_fma(*literals)
    tracer = _tracer_of((a, b, c), "pw.fma")
    dtype, wrapped = _promote((a, b, c), arithmetic=True)
    x, y, z = (
        _materialize(tracer, arg, dtype, wrapped, opmath_scalars=True)
        for arg in (a, b, c)
    )
    t = x.ir_type
    if dtype.is_floating:
        text = f"math.fma {x.name}, {y.name}, {z.name} : {t}"
        return tracer.value(text, dtype, wrapped)
    product = _num_op(tracer, "mul", x, y, wrapped)
    return _num_op(tracer, "add", product, z, wrapped)


# ===------------------------------------------------------------------------===
# Tracing
# ===------------------------------------------------------------------------===


def _memref_type(dtype, rank):
    if rank == 0:
        return f"memref<{dtype.mlir}, strided<[], offset: ?>>"
    sizes = "?x" * rank
    strides = ", ".join("?" * rank)
    return f"memref<{sizes}{dtype.mlir}, strided<[{strides}], offset: ?>>"


def _function_name(fn):
    return (
        getattr(fn, "__qualname__", None) or getattr(fn, "__name__", None) or repr(fn)
    )


def trace_function(fn, params, output_dtypes, name, *, rank=None):
    """Trace ``fn`` into an MLIR module holding one ``pointwise.map``.

    ``params``: one :class:`Param` per argument of ``fn``, in order.
    ``output_dtypes``: one dtype per result of ``fn``. ``name``: the
    function's symbol (quoted in the text if it is no bare identifier).
    ``rank``: the rank of the outputs, by default the tensor parameters'
    rank (0 without tensor parameters); every tensor parameter must have
    it.

    The module's ``func.func @name`` takes the parameters (tensors as
    ``memref<?x...xT, strided<[?, ...], offset: ?>>``, scalars as their MLIR
    type), then one output memref of ``rank`` per output dtype; its map's
    ``ins`` are all parameters and its ``outs`` the outputs.

    Raises :class:`TracingError` when ``fn`` cannot be traced (see the
    module documentation) and ValueError/TypeError for bad arguments.
    """
    params = list(params)
    for index, param in enumerate(params):
        if not isinstance(param, Param):
            raise TypeError(f"parameter #{index} {param!r} is not a Param")
    if isinstance(output_dtypes, (str, DType)) or not isinstance(
        output_dtypes, (list, tuple)
    ):
        raise TypeError(
            f"output_dtypes {output_dtypes!r}: expected a list with one dtype per "
            "output"
        )
    outputs = [as_dtype(dtype) for dtype in output_dtypes]
    if not outputs:
        raise ValueError("a pointwise function needs at least one output")
    if not isinstance(name, str) or not name:
        raise ValueError(f"function name {name!r}: expected a non-empty string")
    tensor_ranks = {param.rank for param in params if param.kind == "tensor"}
    if rank is None:
        if len(tensor_ranks) > 1:
            raise ValueError(
                f"tensor parameters have different ranks {sorted(tensor_ranks)}; "
                "broadcast them to one rank"
            )
        rank = tensor_ranks.pop() if tensor_ranks else 0
    elif isinstance(rank, bool) or not isinstance(rank, int) or rank < 0:
        raise ValueError(f"rank {rank!r} is not a non-negative integer")
    elif tensor_ranks - {rank}:
        raise ValueError(
            f"tensor parameters have ranks {sorted(tensor_ranks)}, but the "
            f"outputs have rank {rank}"
        )

    fn_name = _function_name(fn)
    tracer = _Tracer(fn_name)
    block_args, arguments = [], []
    for index, param in enumerate(params):
        block_name = f"%in{index}"
        block_args.append(f"{block_name}: {param.dtype.mlir}")
        wrapped = param.kind == "scalar"
        if param.dtype in _HALF:
            wide = tracer.op(f"arith.extf {block_name} : {param.dtype.mlir} to f32")
            arguments.append(Value(tracer, wide, param.dtype, wrapped))
        else:
            arguments.append(Value(tracer, block_name, param.dtype, wrapped))

    try:
        results = fn(*arguments)
        results = _check_results(tracer, results, len(outputs))
        yielded = []
        for result, dtype in zip(results, outputs):
            if not isinstance(result, Value):
                literal = _as_literal(result)
                result = tracer.constant(literal, python_scalar_dtype(literal))
            yielded.append(_store(result, dtype))
    finally:
        tracer.finished = True

    param_types = [
        _memref_type(p.dtype, p.rank) if p.kind == "tensor" else p.dtype.mlir
        for p in params
    ]
    output_types = [_memref_type(dtype, rank) for dtype in outputs]
    in_names = [f"%arg{i}" for i in range(len(params))]
    out_names = [f"%out{i}" for i in range(len(outputs))]
    signature = ", ".join(
        f"{n}: {t}" for n, t in zip(in_names + out_names, param_types + output_types)
    )
    ins = ""
    if params:
        ins = f"ins({', '.join(in_names)} : {', '.join(param_types)}) "
    outs = f"outs({', '.join(out_names)} : {', '.join(output_types)})"
    lines = [
        "module {",
        f"  func.func {_symbol(name)}({signature}) {{",
        f"    pointwise.map {ins}{outs} {{",
    ]
    if params:
        lines.append(f"    ^bb0({', '.join(block_args)}):")
    lines.extend("      " + line for line in tracer.lines)
    yield_types = ", ".join(dtype.mlir for dtype in outputs)
    lines.append(f"      pointwise.yield {', '.join(yielded)} : {yield_types}")
    lines += ["    }", "    return", "  }", "}", ""]
    return "\n".join(lines)


def inline_call(fn, name, arguments, rules):
    """The results of the pointwise function ``fn`` (named ``name``) called
    inside another function's trace: its body is traced into the same map.

    ``arguments``: one ``(value, kind, dtype)`` per parameter: ``kind`` is
    ``"tensor"`` (``value`` a traced Value) or ``"scalar"`` (a wrapped
    Value, or a Python number already checked against ``dtype``); ``dtype``
    is the scalar's declared dtype (None: the Value's own). ``rules``: the
    function's :class:`~pointwise._promotion.PromotionRule` s, one per
    output.

    Each result is converted to its output's dtype under ``rules``, with
    the rounding of a store (float16/bfloat16 round), so that the composed
    body computes what two kernels, one writing the other's inputs, would.
    Returns one Value, or a tuple with one per output.
    """
    tracer = _tracer_of([a[0] for a in arguments if isinstance(a[0], Value)],
                        f"the call of '{name}'")
    values, operands = [], []
    for value, kind, dtype in arguments:
        if kind == "tensor":
            value = Value(tracer, value.name, value.dtype, False)
        elif isinstance(value, Value):
            value = _cast(value, dtype or value.dtype, wrapped=True)
        else:
            value = tracer.constant(value, dtype, wrapped=True)
        values.append(value)
        operands.append(Operand(value.dtype, kind))
    try:
        dtypes = [output_dtype(rule, operands) for rule in rules]
    except TypeError as exc:
        raise tracer.error(f"the call of '{name}': {exc}") from None
    try:
        results = fn(*values)
        results = _check_results(tracer, results, len(dtypes))
    except TracingError as exc:
        raise TracingError(f"{exc} (in '{name}', called from "
                           f"'{tracer.fn_name}')") from None
    converted = []
    for result, dtype in zip(results, dtypes):
        if not isinstance(result, Value):
            literal = _as_literal(result)
            result = tracer.constant(literal, python_scalar_dtype(literal))
        result = _cast(result, dtype, wrapped=False)
        if dtype in _HALF:  # as stored: rounded even where already half
            result = _round_half(result, dtype)
        converted.append(result)
    return converted[0] if len(converted) == 1 else tuple(converted)


def _check_results(tracer, results, count):
    if isinstance(results, (tuple, list)):
        results = list(results)
    else:
        results = [results]
    if len(results) != count:
        raise tracer.error(
            f"returned {len(results)} value(s), but {count} output(s) were "
            "declared (return one value per output, in a tuple if several)"
        )
    for index, result in enumerate(results):
        if isinstance(result, Value):
            if result._tracer is not tracer:
                raise tracer.error(
                    f"result #{index} is a Value of another trace "
                    f"('{result._tracer.fn_name}')"
                )
        elif _as_literal(result) is None:
            raise tracer.error(
                f"result #{index} is {result!r} of type {type(result).__name__}; "
                "expected a traced Value or a Python bool, int or float"
            )
    return results
