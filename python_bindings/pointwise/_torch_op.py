"""A pointwise function as a ``torch.library`` custom operator.

``fn.as_torch_op("mylib::name")`` registers the function with PyTorch's
dispatcher: a schema from its inputs (tensors, and scalars of their declared
dtype), the function itself as the implementation, and a fake (meta)
implementation that gives each output the broadcast shape of the tensor
inputs and the dtype of its promotion rule, computed as a call computes it.
``torch.compile`` then traces calls of the operator into its graphs without
a graph break and without running the kernel while tracing.
"""

import sys

from . import _dtypes, _promotion

# Schema types of scalars by declared dtype category; an undeclared scalar
# takes any Python number (Scalar), as the call does.
_SCALAR_SCHEMA = {
    _dtypes.CATEGORY_BOOL: "bool",
    _dtypes.CATEGORY_INTEGER: "int",
    _dtypes.CATEGORY_FLOATING: "float",
}


def _schema(function):
    parameters = []
    for i, (tensor, dtype) in enumerate(zip(function.is_tensor,
                                            function.scalar_dtypes)):
        if tensor:
            kind = "Tensor"
        elif dtype is None:
            kind = "Scalar"
        else:
            kind = _SCALAR_SCHEMA[dtype.category]
        parameters.append("%s x%d" % (kind, i))
    results = ", ".join(["Tensor"] * function.num_outputs)
    if function.num_outputs > 1:
        results = "(%s)" % results
    return "(%s) -> %s" % (", ".join(parameters), results)


def _output_metas(function, args):
    """[(shape, torch dtype)] of the outputs of `function` on `args` (fake
    tensors and scalars), by the call's own promotion."""
    torch = sys.modules["torch"]
    operands, shapes = [], []
    for i, (value, tensor) in enumerate(zip(args, function.is_tensor)):
        if tensor:
            dtype = _dtypes.as_dtype(str(value.dtype))
            operands.append(_dtypes.Operand(
                dtype, "zerodim" if value.dim() == 0 else "tensor"))
            shapes.append(tuple(value.shape))
        else:
            dtype, _ = function._scalar(i, value)
            operands.append(_dtypes.Operand(dtype, "scalar"))
    shape = tuple(torch.broadcast_shapes(*shapes))
    try:
        dtypes = [_promotion.output_dtype(rule, operands)
                  for rule in function.rules]
    except TypeError as e:
        raise TypeError("%s: %s" % (function.__name__, e)) from None
    return [(shape, getattr(torch, dtype.name)) for dtype in dtypes]


def as_torch_op(function, qualname):
    """Registers `function` (a PointwiseFunction) as the custom operator
    `qualname` ("namespace::name") and returns it (callable like the
    function, with positional inputs; it allocates its outputs)."""
    try:
        import torch
    except ImportError:
        raise ImportError("%s.as_torch_op needs PyTorch" %
                          function.__name__) from None
    if not isinstance(qualname, str) or qualname.count("::") != 1 or \
            not all(qualname.split("::")):
        raise ValueError("%s.as_torch_op: the operator's name is "
                         "'namespace::name', got %r"
                         % (function.__name__, qualname))
    if not any(function.is_tensor):
        raise ValueError("%s.as_torch_op: an operator needs a tensor input "
                         "to tell its outputs' shape and device"
                         % function.__name__)

    def implementation(*args):
        return function(*args)

    operator = torch.library.custom_op(
        qualname, implementation, mutates_args=(), schema=_schema(function))

    @operator.register_fake
    def _fake(*args):
        device = next(a.device for a, tensor in zip(args, function.is_tensor)
                      if tensor)
        outputs = [torch.empty(shape, dtype=dtype, device=device)
                   for shape, dtype in _output_metas(function, args)]
        return outputs[0] if len(outputs) == 1 else tuple(outputs)

    return operator
