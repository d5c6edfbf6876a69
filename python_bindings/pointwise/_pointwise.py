"""``@pointwise.pointwise``: FlagGems' ``pointwise_dynamic`` experience on the
pointwise compiler.

The decorated function's body is ordinary Python on scalars; it is traced
into one ``pointwise.map`` (``_trace.py``) the first time a combination of
*rank* (of the broadcast iteration space) and *dtypes* is called, compiled
into a kernel family (variants per coalesced rank and, on the GPU, per
transposed input) for the CPU or the GPU, and cached in memory and on disk
(``_compiler.py``). Shapes, strides and offsets never cause a compilation:
the runtime's ``pwFamilyLaunch`` coalesces and dispatches at every call.

A call: checks the arguments against ``is_tensor``; finds the inputs'
device; computes the output dtypes with ``promotion_methods`` (PyTorch's
rules, Python scalars as wrapped numbers); broadcasts the inputs' shapes;
allocates missing outputs with the inputs' library in the inputs' memory
order; launches (on the current PyTorch/CuPy stream) and returns the
outputs. Called inside another pointwise function's traced body (with
traced values as arguments), it traces its own body into that map instead
(``_trace.inline_call``).
"""

import ctypes
import inspect
import re
import struct
import sys
import threading

from . import _arrays, _compiler, _dtypes, _native, _promotion, _trace
from ._runtime import (PW_ERROR_LAYOUT, PointwiseError, load_runtime,
                       row_major_strides)

__all__ = ["pointwise", "PointwiseFunction", "LayoutError"]

_MAX_RANK = 16
_SYMBOL_PREFIX = "pw_fn_"
_LAYOUT_STATUS = PW_ERROR_LAYOUT


def _scalar_category(value):
    """The dtype category (0 bool, 1 integer, 2 floating) of a real number:
    a Python bool, int or float or a NumPy scalar of those kinds (bfloat16
    included); None for anything else (strings, complex numbers, arrays)."""
    if isinstance(value, bool):
        return _dtypes.CATEGORY_BOOL
    if isinstance(value, int):
        return _dtypes.CATEGORY_INTEGER
    if isinstance(value, float):
        return _dtypes.CATEGORY_FLOATING
    numpy = sys.modules.get("numpy")
    if numpy is not None and isinstance(value, numpy.generic):
        if isinstance(value, numpy.bool_):
            return _dtypes.CATEGORY_BOOL
        if isinstance(value, numpy.integer):
            return _dtypes.CATEGORY_INTEGER
        if isinstance(value, numpy.floating):
            return _dtypes.CATEGORY_FLOATING
        try:  # ml_dtypes.bfloat16
            return _dtypes.as_dtype(value.dtype).category
        except TypeError:
            return None
    return None


class _ScalarKind:
    """The dtype a scalar argument is traced and passed with."""

    @staticmethod
    def of_value(value, index, name):
        category = _scalar_category(value)
        if category is None:
            raise TypeError("%s: argument %d is declared a scalar (is_tensor="
                            "False) but got %s; pass a real number (a Python "
                            "or NumPy bool, int or float)"
                            % (name, index, type(value).__name__))
        return (_dtypes.bool_, _dtypes.int64, _dtypes.float64)[category]


_INFINITY = float("inf")


def _scalar_value(value, dtype):
    """`value` checked and converted for packing as a scalar of `dtype`:
    TypeError when it is no real number (see _scalar_category) or a float
    where an integer is declared, OverflowError when it is out of the
    dtype's range (floats: when it rounds to infinity; infinities and NaNs
    pass)."""
    category = _scalar_category(value)
    if category is None:
        raise TypeError("expected a real number (a Python or NumPy bool, int "
                        "or float), got %s" % type(value).__name__)
    if dtype.is_bool:
        return bool(value)
    if dtype.is_integer:
        if category == _dtypes.CATEGORY_FLOATING:
            raise TypeError("a float cannot be passed where an integer "
                            "scalar is declared")
        value = int(value)
        low, high = dtype.min, dtype.max
        if not low <= value <= high:
            raise OverflowError("%s is out of range for %s (%d to %d)"
                                % (_short_repr(value), dtype.name, low, high))
        return value
    try:
        converted = float(value)
        if abs(converted) == _INFINITY:
            overflow = value != converted  # a NumPy longdouble beyond float64
        elif dtype.name == "bfloat16":
            overflow = (_native.bfloat16_bits(converted) & 0x7FFF) == 0x7F80
        else:
            overflow = False
            if dtype.name != "float64":
                struct.pack("<" + dtype.pack, converted)
    except OverflowError:  # an int beyond float64, a value beyond the dtype
        overflow = True
    if overflow:
        raise OverflowError("%s is out of range for %s (it rounds to "
                            "infinity; the largest finite value is %r)"
                            % (_short_repr(value), dtype.name,
                               dtype.max))
    return converted


class _Launcher:
    """One compiled family of a function (a rank and dtypes): its launch
    (pointwise._native.make_launcher), the family's address and the DType of
    each scalar argument (None for memrefs)."""

    __slots__ = ("launch", "family", "kinds", "rank")

    def __init__(self, launch, family, kinds, rank):
        self.launch = launch
        self.family = family
        self.kinds = kinds
        self.rank = rank


def _raise_launch_error(runtime, status, name, symbol):
    """The error of a failed launch; the runtime names the family by its
    symbol (``pw_fn_<name>``), the message by the user's function name."""
    error = runtime.error(status)
    message = error.message
    if message.startswith(symbol + ":"):
        message = name + message[len(symbol):]
    if status == _LAYOUT_STATUS:
        raise LayoutError(status, message)
    if message == error.message:
        raise error
    raise PointwiseError(status, message)


class _Stream:
    """The current stream of the framework that owns the tensors."""

    @staticmethod
    def handle(view):
        framework = view.framework
        if framework == "torch":
            torch = sys.modules["torch"]
            raw = getattr(torch._C, "_cuda_getCurrentRawStream", None)
            if raw is not None:
                return raw(view.index)
            return torch.cuda.current_stream(view.index).cuda_stream
        if framework == "cupy":
            import cupy
            return cupy.cuda.get_current_stream().ptr
        return 0


class PointwiseFunction:
    """A pointwise function (see :func:`pointwise`). Call it with the inputs
    by position and preallocated outputs as ``out0=``, ``out1=``…; it returns
    the output (or a tuple of them)."""

    def __init__(self, fn, is_tensor, dtypes, promotion_methods, num_inputs,
                 num_outputs, name):
        self.fn = fn
        self.__name__ = name or getattr(fn, "__name__", "pointwise_fn")
        self.__doc__ = getattr(fn, "__doc__", None)
        self.__wrapped__ = fn
        parameters = _positional_parameters(fn, self.__name__)
        is_tensor = _per_input_list(is_tensor, "is_tensor", "one bool",
                                    self.__name__)
        dtypes = _per_input_list(dtypes, "dtypes", "one dtype (or None)",
                                 self.__name__)
        if num_inputs is not None and not _is_count(num_inputs):
            raise TypeError("%s: num_inputs must be a non-negative integer, "
                            "got %r" % (self.__name__, num_inputs))
        counts = {len(x) for x in (is_tensor, dtypes) if x is not None}
        if num_inputs is not None:
            counts.add(num_inputs)
        if parameters is not None:
            counts.add(parameters)
        if len(counts) > 1:
            raise ValueError(
                "%s: inconsistent number of inputs: the function takes %s, "
                "is_tensor has %s, dtypes %s, num_inputs is %s"
                % (self.__name__, parameters,
                   None if is_tensor is None else len(is_tensor),
                   None if dtypes is None else len(dtypes), num_inputs))
        if not counts:
            raise ValueError("%s: cannot tell the number of inputs; pass "
                             "num_inputs=" % self.__name__)
        self.num_inputs = n = counts.pop()
        for i, flag in enumerate(is_tensor or ()):
            if _scalar_category(flag) not in (_dtypes.CATEGORY_BOOL,
                                              _dtypes.CATEGORY_INTEGER) or \
                    flag not in (0, 1):
                raise TypeError("%s: is_tensor[%d] is %r; expected True (a "
                                "tensor) or False (a scalar)"
                                % (self.__name__, i, flag))
        self.is_tensor = tuple(bool(t) for t in (is_tensor or [True] * n))
        declared = list(dtypes or [None] * n)
        self.scalar_dtypes = []
        for i, (tensor, dtype) in enumerate(zip(self.is_tensor, declared)):
            if tensor or dtype is None:
                self.scalar_dtypes.append(None)
            else:
                try:
                    self.scalar_dtypes.append(_dtypes.as_dtype(dtype))
                except TypeError as e:
                    raise TypeError("%s: dtypes[%d]: %s" % (self.__name__, i, e)) from None
        self.scalar_dtypes = tuple(self.scalar_dtypes)
        if promotion_methods is None:
            raise ValueError("%s: promotion_methods is required: one rule per "
                             "output, e.g. [(0, 1, \"DEFAULT\")]" % self.__name__)
        if num_outputs is None and isinstance(promotion_methods, (list, tuple)):
            num_outputs = len(promotion_methods)
        if num_outputs is not None and not _is_count(num_outputs):
            raise TypeError("%s: num_outputs must be a positive integer, got "
                            "%r" % (self.__name__, num_outputs))
        if num_outputs == 0:
            raise ValueError("%s: a pointwise function needs at least one "
                             "output: promotion_methods has one rule per "
                             "output, e.g. [(0, 1, \"DEFAULT\")]"
                             % self.__name__)
        self.num_outputs = num_outputs
        try:
            self.rules = _promotion.parse_promotion_methods(
                promotion_methods, n, num_outputs)
        except ValueError as e:
            raise ValueError("%s: %s" % (self.__name__, e)) from None
        self._output_names = tuple("out%d" % i for i in range(num_outputs))
        self._launchers = {}
        self._promotions = {}
        self._fast = None
        # (dtypes, scalar types, rank, device) -> (launcher, output dtypes)
        self._plans = {}
        self._lock = threading.Lock()
        # The kernel's symbol: prefixed, so that a function named like a C
        # library function (exp, pow, sinf...) does not take the place of
        # the libm calls of its own body in the CPU JIT.
        self._symbol = _SYMBOL_PREFIX + re.sub(r"\W", "_", self.__name__)
        # Every first call needs the compiler library, loading from the
        # disk cache included: load it while the caller does other work.
        _compiler.prefetch_compiler()

    def __repr__(self):
        return "<pointwise function %s: %d inputs, %d outputs>" % (
            self.__name__, self.num_inputs, self.num_outputs)

    def __call__(self, *args, **outputs):
        result = self._call(args, outputs, None)
        if self._fast is None and "torch" in sys.modules:
            self._fast = _build_fast_path(self) or False
            if self._fast:
                # The C call becomes this function's call: a class of its
                # own whose __call__ is the FastPath object, so that a call
                # reaches C without a Python frame (docs/Performance.md, row
                # `decorator-c-call`).
                self.__class__ = type(type(self).__name__, (type(self),), {
                    "__call__": self._fast, "__slots__": ()})
        return result

    def as_torch_op(self, qualname):
        """Registers this function as the ``torch.library`` custom operator
        `qualname` (``"namespace::name"``), with a fake implementation for
        ``torch.compile``, and returns the operator: call it with the inputs
        by position; it allocates its outputs."""
        from ._torch_op import as_torch_op
        return as_torch_op(self, qualname)

    def instantiate(self, rank):
        """The function at a fixed iteration rank: inputs of lower rank
        broadcast as usual, outputs must have exactly `rank` dims. Useful with
        :class:`StridedBuffer` views (e.g. a flip) and to compile ahead."""
        if _scalar_category(rank) != _dtypes.CATEGORY_INTEGER:
            raise TypeError("%s.instantiate: rank must be an integer 0..%d, "
                            "got %r" % (self.__name__, _MAX_RANK, rank))
        rank = int(rank)
        if not 0 <= rank <= _MAX_RANK:
            raise ValueError("%s.instantiate: rank must be 0..%d, got %d"
                             % (self.__name__, _MAX_RANK, rank))
        return _Instance(self, rank)

    def _scalar(self, i, value):
        """(dtype, value to pack) of scalar argument `i`, or the error."""
        name = self.__name__
        if _arrays.is_array(value):
            raise TypeError("%s: argument %d is declared a scalar "
                            "(is_tensor=False) but got a %s"
                            % (name, i, type(value).__name__))
        dtype = self.scalar_dtypes[i] or _ScalarKind.of_value(value, i, name)
        try:
            return dtype, _scalar_value(value, dtype)
        except TypeError as e:
            raise TypeError("%s: argument %d: cannot pass %s as a scalar %s: "
                            "%s" % (name, i, _short_repr(value), dtype.name,
                                    e)) from None
        except OverflowError as e:
            raise OverflowError("%s: argument %d: %s" % (name, i, e)) from None

    def _inline(self, args, outputs):
        """The call inside another pointwise function's body (an argument
        is a traced Value): this body is traced into the same map."""
        name = self.__name__
        if outputs:
            raise _trace.TracingError(
                "%s: called inside another pointwise function's body, it "
                "takes no outputs (%s): it returns its results, which the "
                "caller uses" % (name, ", ".join(sorted(outputs))))
        arguments = []
        for i, (value, tensor) in enumerate(zip(args, self.is_tensor)):
            traced = isinstance(value, _trace.Value)
            if tensor and not traced:
                raise _trace.TracingError(
                    "%s: argument %d is declared a tensor (is_tensor=True) "
                    "but got %s inside a traced body; pass a traced value"
                    % (name, i, _short_repr(value)))
            if tensor:
                arguments.append((value, "tensor", None))
            elif traced and not value.wrapped:
                raise _trace.TracingError(
                    "%s: argument %d is declared a scalar (is_tensor=False) "
                    "but got a value computed from tensors" % (name, i))
            elif traced:
                arguments.append((value, "scalar", self.scalar_dtypes[i]))
            else:
                dtype, literal = self._scalar(i, value)
                arguments.append((literal, "scalar", dtype))
        return _trace.inline_call(self.fn, name, arguments, self.rules)

    # -- the call --
    def _call(self, args, outputs, forced_rank):
        name = self.__name__
        if len(args) != self.num_inputs:
            raise TypeError("%s: expected %d positional inputs, got %d"
                            % (name, self.num_inputs, len(args)))
        if any(isinstance(a, _trace.Value) for a in args):
            return self._inline(args, outputs)
        out = [None] * self.num_outputs
        for key, value in outputs.items():
            try:
                out[self._output_names.index(key)] = value
            except ValueError:
                raise TypeError("%s: unexpected keyword argument '%s' (outputs "
                                "are %s)" % (name, key,
                                             ", ".join(self._output_names))) from None

        # Arguments: views of tensors, dtypes of scalars.
        views = []
        signature = []
        values = []
        zero_dim = []  # input positions of PyTorch tensors with no dims
        copies = []  # inputs with a negative bit, resolved into new tensors
        first = None
        as_view = _arrays.as_view
        torch = sys.modules.get("torch")
        for i, (value, tensor) in enumerate(zip(args, self.is_tensor)):
            if tensor:
                if torch is not None and isinstance(value, torch.Tensor) and \
                        value.is_neg():
                    # Its memory holds the values negated (x.conj().imag):
                    # read a copy that holds them, as eager ops do.
                    value = value.resolve_neg()
                    copies.append(value)
                if isinstance(value, complex) or \
                        _scalar_category(value) is not None:
                    raise TypeError("%s: argument %d is declared a tensor "
                                    "(is_tensor=True) but got a %s%s"
                                    % (name, i, "Python " if type(value)
                                       in (bool, int, float, complex) else "",
                                       type(value).__name__))
                try:
                    view = as_view(value)
                except TypeError as e:
                    raise TypeError("%s: argument %d: %s" % (name, i, e)) from None
                except ValueError as e:
                    raise ValueError("%s: argument %d: %s" % (name, i, e)) from None
                views.append(view)
                values.append(view)
                signature.append((view.dtype, "tensor"))
                if not view.shape and view.framework == "torch":
                    zero_dim.append(i)
                if first is None:
                    first = view
            else:
                dtype, value = self._scalar(i, value)
                values.append(value)
                signature.append((dtype, "scalar"))
        signature = tuple(signature)

        out_views = []
        for k, value in enumerate(out):
            if value is None:
                out_views.append(None)
                continue
            try:
                view = _arrays.as_view(value)
            except TypeError as e:
                raise TypeError("%s: out%d: %s" % (name, k, e)) from None
            except ValueError as e:
                raise ValueError("%s: out%d: %s" % (name, k, e)) from None
            if view.readonly:
                raise ValueError("%s: out%d is read-only" % (name, k))
            out_views.append(view)
            if first is None:
                first = view
        if first is None:
            raise ValueError("%s: no tensor among the inputs and no output "
                             "given: cannot tell the shape and device of the "
                             "result; pass out0=" % name)
        device = (first.device, first.index)
        for view in views + [v for v in out_views if v is not None]:
            if (view.device, view.index) != device:
                raise ValueError("%s: arguments on different devices: %s and %s"
                                 % (name, first.device_name, view.device_name))

        # Output dtypes: PyTorch's zero-dim tensors promote as their own
        # class, below tensors with dims (torch.result_type).
        zero_dim = tuple(zero_dim)
        promoted = self._promotions.get((signature, zero_dim))
        if promoted is None:
            operands = [_dtypes.Operand(d, "zerodim" if i in zero_dim else k)
                        for i, (d, k) in enumerate(signature)]
            try:
                promoted = tuple(_promotion.output_dtype(rule, operands)
                                 for rule in self.rules)
            except TypeError as e:  # uint16/32/64 with another integer type
                raise TypeError("%s: %s" % (name, e)) from None
            self._promotions[(signature, zero_dim)] = promoted
        # A given output of another dtype receives the result converted as
        # PyTorch's copy_ converts (the body's store, _trace._cast).
        out_dtypes = [promoted[k] if view is None else view.dtype
                      for k, view in enumerate(out_views)]

        # Shapes.
        shape, dense = _plan(views, name)
        if forced_rank is not None:
            if len(shape) > forced_rank:
                raise ValueError("%s: instantiated for rank %d, but the inputs "
                                 "broadcast to rank %d (shape %s)"
                                 % (name, forced_rank, len(shape), list(shape)))
            missing = forced_rank - len(shape)
            shape = (1,) * missing + shape
            dense = None if dense is None else (0,) * missing + dense
        given = None  # without tensor inputs, the first output given
        for k, view in enumerate(out_views):
            if view is None:
                continue
            if views:
                if tuple(view.shape) != shape:
                    raise ValueError("%s: out%d has shape %s, but the inputs "
                                     "broadcast to %s"
                                     % (name, k, list(view.shape), list(shape)))
            elif given is None:
                given = k
                shape = tuple(view.shape)
                if forced_rank is not None and len(shape) != forced_rank:
                    raise ValueError("%s: instantiated for rank %d, but out%d "
                                     "has rank %d (shape %s)"
                                     % (name, forced_rank, k, len(shape),
                                        list(shape)))
            elif tuple(view.shape) != shape:
                raise ValueError("%s: out%d has shape %s, but out%d has shape "
                                 "%s" % (name, k, list(view.shape), given,
                                         list(shape)))
        rank = len(shape)
        results = list(out)
        for k, view in enumerate(out_views):
            if view is not None:
                continue
            if dense is None or len(dense) != rank:
                dense = _dense_strides(shape)
            try:
                results[k] = _arrays.allocate(first, shape, dense, out_dtypes[k])
            except ValueError as e:  # NumPy: "array is too big"
                raise ValueError("%s: cannot allocate out%d (shape %s, %s): %s"
                                 % (name, k, list(shape), out_dtypes[k].name,
                                    e)) from None
            out_views[k] = _arrays.as_view(results[k])

        launcher = self._launcher(rank, signature, tuple(out_dtypes), device)
        values = [(v.ptr, v.offset, v.shape, v.strides) if kind is None else v
                  for v, kind in zip(values, launcher.kinds)]
        values += [(v.ptr, v.offset, v.shape, v.strides) for v in out_views]
        if device[0] == "cuda":
            stream = _Stream.handle(first)
            previous = _native.select(load_runtime(), device[1], stream)
            try:
                launcher.launch(*values)
            finally:
                _native.restore(load_runtime(), device[1], previous)
        else:
            launcher.launch(*values)
        if copies and device[0] == "cuda" and first.framework != "torch":
            # The copies were made on torch's current stream; the kernel
            # reads them on another framework's: keep their memory until it
            # is done.
            for copy in copies:
                copy.record_stream(torch.cuda.ExternalStream(stream))
        # The fast path's plan: only for outputs of the promoted dtypes (a
        # call with other preallocated outputs must not change what later
        # calls allocate), for inputs the fast paths take themselves (exact
        # torch tensors, keyed by their own dtypes, not a StridedBuffer's or
        # another view's), and not from a call that mixes zero-dim tensors
        # with others (the fast paths' tensors share one shape, so their
        # promotion would differ).
        if device[0] == "cuda" and first.framework == "torch" and views and \
                tuple(out_dtypes) == promoted and \
                len(zero_dim) in (0, len(views)) and \
                all(type(a) is sys.modules["torch"].Tensor
                    for a, t in zip(args, self.is_tensor) if t):
            torch = sys.modules["torch"]
            key = (tuple(a.dtype for a, t in zip(args, self.is_tensor) if t),
                   tuple(type(a) for a, t in zip(args, self.is_tensor) if not t),
                   rank, device[1])
            codes = "".join(" " if kind is None else kind.pack
                            for kind in launcher.kinds[:self.num_inputs])
            self._plans[key] = (launcher, tuple(
                getattr(torch, d.name) for d in out_dtypes),
                launcher.family, codes)
        return results[0] if self.num_outputs == 1 else tuple(results)

    def _launcher(self, rank, signature, out_dtypes, device):
        key = (rank, signature, out_dtypes, device)
        launcher = self._launchers.get(key)
        if launcher is not None:
            return launcher
        with self._lock:
            launcher = self._launchers.get(key)
            if launcher is None:
                launcher = self._compile(rank, signature, out_dtypes, device)
                self._launchers[key] = launcher
        return launcher

    def _compile(self, rank, signature, out_dtypes, device):
        runtime = load_runtime()
        operands = [_dtypes.Operand(d, k) for d, k in signature]
        params = [_trace.Param("tensor", o.dtype, rank) if o.kind == "tensor"
                  else _trace.Param("scalar", o.dtype, 0) for o in operands]
        source = _trace.trace_function(self.fn, params, list(out_dtypes),
                                       self._symbol, rank=rank)
        if device[0] == "cuda":
            options = "target=cuda chip=%s format=%s" % (
                runtime.device_arch(device[1]), _gpu_format())
            where = "for %s" % runtime.device_arch(device[1])
        else:
            options = "target=cpu"
            where = "for the CPU"
        label = "%s (rank %d: %s -> %s) %s" % (
            self.__name__, rank, ", ".join(o.dtype.name for o in operands),
            ", ".join(d.name for d in out_dtypes), where)
        library = _compiler.compile_families(source, options, label,
                                             (self._symbol,))
        family = library.family(self._symbol)
        kinds = [None if o.kind == "tensor" else o.dtype for o in operands]
        kinds += [None] * len(out_dtypes)
        name, symbol = self.__name__, self._symbol

        def raise_error(status):
            _raise_launch_error(runtime, status, name, symbol)

        launch = _native.make_launcher(
            runtime, family, [rank if k is None else k for k in kinds], name,
            raise_error)
        return _Launcher(launch, family, tuple(kinds), rank)


def _build_fast_path(function):
    """The common call in C (``pointwise._fastcall.FastPath``,
    python_bindings/src/FastCall.cpp), None where the extension is not built.
    It takes the common case: every tensor argument a contiguous CUDA torch.Tensor of one shape, outputs absent or contiguous
    torch tensors of that shape and of the planned dtypes. It checks exactly
    that (and a plan recorded by a general call for these dtypes, scalar
    types, rank and device) and otherwise hands over to the general call, so
    it never changes a result."""
    torch = sys.modules["torch"]
    raw_stream = getattr(torch._C, "_cuda_getCurrentRawStream", None)
    if raw_stream is None:
        return None
    n = function.num_inputs
    tensors = [i for i in range(n) if function.is_tensor[i]]
    scalars = [i for i in range(n) if not function.is_tensor[i]]
    if not tensors or any(d is not None and d.name in ("bfloat16", "float16")
                          for d in function.scalar_dtypes):
        return None  # half-precision scalars need their bits packed
    k = function.num_outputs
    runtime = load_runtime()
    fastcall = _native.fastcall(runtime)
    if fastcall is None:
        return None  # every call takes the general path
    _native.bind_torch_tensors(fastcall, runtime, torch)
    return fastcall.FastPath(
        num_inputs=n, num_outputs=k, tensor_positions=tuple(tensors),
        scalar_positions=tuple(scalars),
        output_names=function._output_names, plans=function._plans,
        slow=function._call, tensor_type=torch.Tensor,
        empty_like=torch.empty_like, raw_stream=raw_stream,
        raise_error=lambda status: _raise_launch_error(
            runtime, status, function.__name__, function._symbol))


class _Instance:
    """PointwiseFunction.instantiate(rank)."""

    __slots__ = ("function", "rank")

    def __init__(self, function, rank):
        self.function = function
        self.rank = rank

    def __call__(self, *args, **outputs):
        return self.function._call(args, outputs, self.rank)

    def __repr__(self):
        return "<pointwise function %s at rank %d>" % (self.function.__name__,
                                                       self.rank)


class LayoutError(PointwiseError, ValueError):
    """The runtime rejected the operands' layout: outputs that overlap each
    other or partially overlap an input, shapes that do not broadcast,
    misaligned or null data."""


def _is_count(value):
    """Whether `value` is a non-negative integer (not a bool)."""
    return (_scalar_category(value) == _dtypes.CATEGORY_INTEGER
            and value >= 0)


def _per_input_list(value, what, each, name):
    """`value` (is_tensor, dtypes): None or a list or tuple."""
    if value is None or isinstance(value, (list, tuple)):
        return value
    raise TypeError("%s: %s must be a list with %s per input, got %r"
                    % (name, what, each, value))


def _short_repr(value):
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _positional_parameters(fn, name):
    try:
        signature = inspect.signature(fn)
    except (TypeError, ValueError):
        return None
    count = 0
    for parameter in signature.parameters.values():
        if parameter.kind in (parameter.VAR_POSITIONAL, parameter.VAR_KEYWORD):
            return None
        if parameter.kind in (parameter.POSITIONAL_ONLY,
                              parameter.POSITIONAL_OR_KEYWORD):
            count += 1
    return count


_dense_cache = {}


def _dense_strides(shape):
    strides = _dense_cache.get(shape)
    if strides is not None:
        return strides
    strides = row_major_strides(shape)
    if len(_dense_cache) < 4096:
        _dense_cache[shape] = strides
    return strides


def _plan(views, name):
    """(iteration shape, strides for new outputs or None for row-major)."""
    if not views:
        return (), ()
    shape = tuple(views[0].shape)
    same = all(tuple(v.shape) == shape for v in views)
    if same and tuple(views[0].strides) == _dense_strides(shape):
        return shape, None
    runtime = load_runtime()
    count = len(views)
    ranks = (ctypes.c_int32 * count)(*[len(v.shape) for v in views])
    total = sum(len(v.shape) for v in views)
    sizes = (ctypes.c_int64 * max(total, 1))(*[s for v in views for s in v.shape])
    strides = (ctypes.c_int64 * max(total, 1))(
        *[s for v in views for s in v.strides])
    capacity = max([len(v.shape) for v in views] + [1])
    rank = ctypes.c_int32()
    out_shape = (ctypes.c_int64 * capacity)()
    out_strides = (ctypes.c_int64 * capacity)()
    status = runtime.lib.pwPlanOutputLayout(count, ranks, sizes, strides,
                                            capacity, ctypes.byref(rank),
                                            out_shape, out_strides)
    if status:
        error = runtime.error(status)
        raise ValueError("%s: %s" % (name, error.message)) from None
    r = rank.value
    return tuple(out_shape[:r]), tuple(out_strides[:r])


_format = None


def _gpu_format():
    """fatbin (cubin + PTX) when a CUDA toolkit's ptxas is found, else PTX
    for the driver's JIT."""
    global _format
    if _format is None:
        import os
        import shutil
        roots = [os.environ.get("CUDA_HOME"), os.environ.get("CUDA_PATH"),
                 "/usr/local/cuda"]
        found = any(r and os.path.isfile(os.path.join(r, "bin", "ptxas"))
                    for r in roots) or shutil.which("ptxas")
        _format = "fatbin" if found else "isa"
    return _format


def pointwise(fn=None, *, is_tensor=None, dtypes=None, promotion_methods=None,
              num_inputs=None, num_outputs=None, name=None):
    """Decorates a scalar Python function into a pointwise operator on
    tensors of any rank, shape, strides and broadcasting.

    - ``is_tensor``: per input, whether it is a tensor (default: all are);
      the others are Python scalars.
    - ``dtypes``: per input, the dtype of scalar inputs (``float``, ``int``,
      ``bool`` or a dtype name); None takes it from the value.
    - ``promotion_methods``: per output, ``(i, j, ..., "KIND")`` or
      ``((i, j, ...), "KIND")``: the output dtype from inputs i, j, ... with
      PyTorch's ``ELEMENTWISE_TYPE_PROMOTION_KIND`` (DEFAULT, NO_OPMATH,
      INT_TO_FLOAT, ALWAYS_BOOL, COMPLEX_TO_FLOAT, BOOL_TO_LONG).
    - ``num_outputs``: the number of outputs (default: one per promotion
      method).
    """
    def decorate(function):
        return PointwiseFunction(function, is_tensor, dtypes, promotion_methods,
                                 num_inputs, num_outputs, name)
    return decorate(fn) if fn is not None else decorate

