"""Output dtypes of pointwise functions: FlagGems' ``promotion_methods``.

A pointwise function declares, per output, which arguments its dtype
depends on and how (FlagGems' ``pointwise_dynamic(promotion_methods=...)``)::

    [(0, 1, "DEFAULT")]                     # one output: result_type(a0, a1)
    [((0, 1), "DEFAULT"), (0, "ALWAYS_BOOL")]   # two outputs

:func:`parse_promotion_methods` checks and normalizes these entries into
:class:`PromotionRule` s; :func:`output_dtype` and :func:`compute_dtype`
apply a rule to the arguments' :class:`~pointwise._dtypes.Operand` s with
the semantics of PyTorch's ``torch._prims_common.elementwise_dtypes`` and
its ``ELEMENTWISE_TYPE_PROMOTION_KIND``.
"""

import dataclasses

from ._dtypes import Operand, as_dtype, bool_, float32, int64, result_type

__all__ = [
    "PROMOTION_KINDS",
    "PromotionRule",
    "parse_promotion_methods",
    "output_dtype",
    "compute_dtype",
]

#: The kinds of ``torch._prims_common.ELEMENTWISE_TYPE_PROMOTION_KIND``.
PROMOTION_KINDS = (
    "DEFAULT",
    "NO_OPMATH",
    "INT_TO_FLOAT",
    "ALWAYS_BOOL",
    "COMPLEX_TO_FLOAT",
    "BOOL_TO_LONG",
)


@dataclasses.dataclass(frozen=True)
class PromotionRule:
    """How one output's dtype follows from some arguments' dtypes.

    ``arg_indices``: the positions of the arguments that take part (in the
    order given); ``kind``: one of :data:`PROMOTION_KINDS`.
    """

    arg_indices: tuple
    kind: str


def _kind_name(kind):
    """The kind's name: a string, or an enum member's ``name``."""
    if isinstance(kind, str):
        return kind
    name = getattr(kind, "name", None)
    return name if isinstance(name, str) else None


def _parse_one(position, entry, num_args):
    where = f"promotion method #{position} {entry!r}"
    if not isinstance(entry, (tuple, list)) or len(entry) < 2:
        raise ValueError(f"{where}: expected (i, j, ..., KIND) or ((i, j, ...), KIND)")
    kind = _kind_name(entry[-1])
    if kind not in PROMOTION_KINDS:
        raise ValueError(
            f"{where}: unknown promotion kind {entry[-1]!r}; expected one of "
            + ", ".join(PROMOTION_KINDS)
        )
    indices = entry[:-1]
    if len(indices) == 1 and isinstance(indices[0], (tuple, list)):
        indices = indices[0]
    if len(indices) == 0:
        raise ValueError(f"{where}: names no argument")
    for index in indices:
        if isinstance(index, bool) or not isinstance(index, int):
            raise ValueError(f"{where}: argument index {index!r} is not an integer")
        if not 0 <= index < num_args:
            raise ValueError(
                f"{where}: argument index {index} is out of range for "
                f"{num_args} argument(s)"
            )
    return PromotionRule(tuple(indices), kind)


def parse_promotion_methods(methods, num_args, num_outputs):
    """Check FlagGems-style ``promotion_methods`` and normalize them.

    ``methods`` holds one entry per output, each ``(i, j, ..., KIND)`` or
    ``((i, j, ...), KIND)``: argument indices in ``range(num_args)`` and a
    kind of :data:`PROMOTION_KINDS` (a string, or an enum member whose
    ``name`` is one, such as FlagGems' ``ELEMENTWISE_TYPE_PROMOTION_KIND``).

    Returns a list of :class:`PromotionRule`. Raises ValueError, naming the
    bad entry, for a count other than ``num_outputs``, an unknown kind, an
    index out of range or an entry that names no argument.
    """
    if isinstance(methods, (str, bytes)) or not isinstance(methods, (tuple, list)):
        raise ValueError(
            f"promotion methods {methods!r}: expected a list with one "
            "(i, j, ..., KIND) entry per output"
        )
    if len(methods) != num_outputs:
        raise ValueError(
            f"{len(methods)} promotion method(s) {list(methods)!r} given for "
            f"{num_outputs} output(s); expected one per output"
        )
    return [_parse_one(i, entry, num_args) for i, entry in enumerate(methods)]


def _selected_result_type(rule, operands):
    if not isinstance(rule, PromotionRule):
        raise TypeError(f"expected a PromotionRule, got {rule!r}")
    selected = []
    for index in rule.arg_indices:
        if not 0 <= index < len(operands):
            raise ValueError(
                f"{rule!r} names argument {index}, but only {len(operands)} "
                "operand(s) were given"
            )
        operand = operands[index]
        if not isinstance(operand, Operand):
            operand = Operand(as_dtype(operand), "tensor")
        selected.append(operand)
    return result_type(*selected)


def _opmath(dtype):
    # torch._prims_common.get_computation_dtype: float16 and bfloat16
    # compute in float32 (complex32 in complex64, not supported here).
    return float32 if dtype.mlir in ("f16", "bf16") else dtype


def output_dtype(rule, operands):
    """The dtype of an output under ``rule``, as PyTorch computes it.

    ``operands`` are the :class:`~pointwise._dtypes.Operand` s of all the
    function's arguments; those that ``rule`` names are promoted with
    :func:`~pointwise._dtypes.result_type` (``torch.result_type``), then,
    as ``torch._prims_common.elementwise_dtypes`` does:

    * ``DEFAULT``, ``NO_OPMATH``, ``COMPLEX_TO_FLOAT``: that dtype (there
      are no complex dtypes here);
    * ``INT_TO_FLOAT``: float32 (the default dtype) if it is bool or an
      integer type;
    * ``ALWAYS_BOOL``: bool;
    * ``BOOL_TO_LONG``: int64 if it is bool.
    """
    result = _selected_result_type(rule, operands)
    kind = rule.kind
    if kind == "INT_TO_FLOAT" and not result.is_floating:
        return float32
    if kind == "ALWAYS_BOOL":
        return bool_
    if kind == "BOOL_TO_LONG" and result.is_bool:
        return int64
    return result


def compute_dtype(rule, operands):
    """The dtype computations run in under ``rule`` (PyTorch's *opmath*).

    The first dtype that ``torch._prims_common.elementwise_dtypes`` returns:
    float16 and bfloat16 compute in float32, except under ``NO_OPMATH``;
    ``ALWAYS_BOOL`` computes in the (opmath of the) promoted input dtype,
    not in bool; ``BOOL_TO_LONG`` computes bools in int64; ``INT_TO_FLOAT``
    computes integers in float32.
    """
    result = _selected_result_type(rule, operands)
    kind = rule.kind
    if kind == "NO_OPMATH":
        return result
    if kind == "INT_TO_FLOAT" and not result.is_floating:
        return float32
    if kind == "BOOL_TO_LONG" and result.is_bool:
        return int64
    return _opmath(result)
