"""pointwise._promotion: FlagGems' promotion_methods with PyTorch's rules.

Expected dtypes are those of torch._prims_common.elementwise_dtypes (and of
the eager ops named in the comments), written out by hand.
"""

import enum

import pytest

from pointwise._dtypes import (
    Operand,
    bfloat16,
    bool_,
    float16,
    float32,
    float64,
    int8,
    int16,
    int32,
    int64,
)
from pointwise._promotion import (
    PROMOTION_KINDS,
    PromotionRule,
    compute_dtype,
    output_dtype,
    parse_promotion_methods,
)


def T(dtype):
    return Operand(dtype, "tensor")


def S(value):
    return Operand.scalar(value)


def rule(kind, *indices):
    return PromotionRule(indices or (0,), kind)


# --- parsing -----------------------------------------------------------------


def test_parse_flat_and_nested_forms():
    rules = parse_promotion_methods(
        [(0, 1, "DEFAULT"), ((0, 2), "ALWAYS_BOOL"), (2, "INT_TO_FLOAT")],
        num_args=3,
        num_outputs=3,
    )
    assert rules == [
        PromotionRule((0, 1), "DEFAULT"),
        PromotionRule((0, 2), "ALWAYS_BOOL"),
        PromotionRule((2,), "INT_TO_FLOAT"),
    ]


def test_parse_lists_and_every_kind():
    for kind in PROMOTION_KINDS:
        assert parse_promotion_methods([[0, kind]], 1, 1) == [PromotionRule((0,), kind)]
    assert parse_promotion_methods([([1, 0], "NO_OPMATH")], 2, 1) == [
        PromotionRule((1, 0), "NO_OPMATH")
    ]


def test_parse_enum_kinds():
    class Kind(enum.Enum):  # like FlagGems' ELEMENTWISE_TYPE_PROMOTION_KIND
        DEFAULT = (0,)
        BOOL_TO_LONG = (5,)

    assert parse_promotion_methods([(0, 1, Kind.BOOL_TO_LONG)], 2, 1) == [
        PromotionRule((0, 1), "BOOL_TO_LONG")
    ]


@pytest.mark.parametrize(
    "methods,num_args,num_outputs,pattern",
    [
        ([(0, "DEFAULT")], 1, 2, r"1 promotion method.*2 output"),
        ([(0, "DEFAULT"), (0, "DEFAULT")], 1, 1, r"2 promotion method.*1 output"),
        ([(0, "FANCY")], 1, 1, r"#0 .*unknown promotion kind 'FANCY'"),
        ([(0, "default")], 1, 1, r"unknown promotion kind 'default'"),
        ([(0, 1, "DEFAULT")], 1, 1, r"#0 .*index 1 is out of range for 1 arg"),
        ([(-1, "DEFAULT")], 2, 1, r"index -1 is out of range"),
        ([((), "DEFAULT")], 2, 1, r"#0 .*names no argument"),
        ([("DEFAULT",)], 2, 1, r"#0 .*expected \(i, j, \.\.\., KIND\)"),
        ([(0, "DEFAULT"), (True, "DEFAULT")], 2, 2, r"#1 .*not an integer"),
        ([(0.0, "DEFAULT")], 2, 1, r"not an integer"),
        ("DEFAULT", 1, 1, r"expected a list"),
        ([0], 1, 1, r"#0 0: expected"),
    ],
)
def test_parse_errors(methods, num_args, num_outputs, pattern):
    with pytest.raises(ValueError, match=pattern):
        parse_promotion_methods(methods, num_args, num_outputs)


# --- output dtypes ---------------------------------------------------------------

OUTPUT_DTYPES = [
    # add
    ("DEFAULT", [T(int8), S(1000)], int8),
    ("DEFAULT", [T(int16), S(2.5)], float32),
    ("DEFAULT", [T(float16), T(bfloat16)], float32),
    ("DEFAULT", [T(int64), T(float16)], float16),
    ("DEFAULT", [T(bool_), T(bool_)], bool_),
    ("DEFAULT", [T(bool_), S(3)], int64),
    ("DEFAULT", [T(float16), S(2.5)], float16),
    # where, copies
    ("NO_OPMATH", [T(float16), T(float16)], float16),
    ("NO_OPMATH", [T(int32), S(2.5)], float32),
    # sin, div (true division)
    ("INT_TO_FLOAT", [T(int32)], float32),
    ("INT_TO_FLOAT", [T(bool_)], float32),
    ("INT_TO_FLOAT", [T(int64), T(int64)], float32),
    ("INT_TO_FLOAT", [T(float16)], float16),
    ("INT_TO_FLOAT", [T(bfloat16)], bfloat16),
    ("INT_TO_FLOAT", [T(float64), S(2)], float64),
    ("INT_TO_FLOAT", [T(int8), S(2.5)], float32),
    # eq
    ("ALWAYS_BOOL", [T(float32), T(float64)], bool_),
    ("ALWAYS_BOOL", [T(int8), S(2.5)], bool_),
    # abs
    ("COMPLEX_TO_FLOAT", [T(float16)], float16),
    ("COMPLEX_TO_FLOAT", [T(int32)], int32),
    # pow
    ("BOOL_TO_LONG", [T(bool_), T(bool_)], int64),
    ("BOOL_TO_LONG", [T(bool_), S(True)], int64),
    ("BOOL_TO_LONG", [T(bool_), S(2)], int64),
    ("BOOL_TO_LONG", [T(int8), S(2)], int8),
    ("BOOL_TO_LONG", [T(float16), S(2)], float16),
    ("BOOL_TO_LONG", [T(bool_), S(0.5)], float32),
]


@pytest.mark.parametrize("kind,operands,expected", OUTPUT_DTYPES)
def test_output_dtype(kind, operands, expected):
    indices = tuple(range(len(operands)))
    assert output_dtype(PromotionRule(indices, kind), operands) is expected


COMPUTE_DTYPES = [
    ("DEFAULT", [T(float16)], float32),
    ("DEFAULT", [T(bfloat16), S(2.5)], float32),
    ("DEFAULT", [T(float16), T(bfloat16)], float32),
    ("DEFAULT", [T(int16)], int16),
    ("DEFAULT", [T(float64)], float64),
    ("NO_OPMATH", [T(float16)], float16),
    ("NO_OPMATH", [T(bfloat16)], bfloat16),
    ("INT_TO_FLOAT", [T(int32)], float32),
    ("INT_TO_FLOAT", [T(float16)], float32),
    ("ALWAYS_BOOL", [T(float16), T(float16)], float32),
    ("ALWAYS_BOOL", [T(int8), T(int8)], int8),
    ("ALWAYS_BOOL", [T(bool_)], bool_),
    ("COMPLEX_TO_FLOAT", [T(bfloat16)], float32),
    ("BOOL_TO_LONG", [T(bool_)], int64),
    ("BOOL_TO_LONG", [T(float16)], float32),
    ("BOOL_TO_LONG", [T(int32)], int32),
]


@pytest.mark.parametrize("kind,operands,expected", COMPUTE_DTYPES)
def test_compute_dtype(kind, operands, expected):
    indices = tuple(range(len(operands)))
    assert compute_dtype(PromotionRule(indices, kind), operands) is expected


def test_only_the_named_arguments_take_part():
    operands = [T(float16), T(float64), S(2.5), T(int8)]
    assert output_dtype(PromotionRule((0, 2), "DEFAULT"), operands) is float16
    assert output_dtype(PromotionRule((3, 2), "DEFAULT"), operands) is float32
    assert output_dtype(PromotionRule((3,), "DEFAULT"), operands) is int8
    assert output_dtype(PromotionRule((0, 1), "DEFAULT"), operands) is float64
    rules = parse_promotion_methods(
        [((0, 3), "DEFAULT"), (3, "ALWAYS_BOOL")], len(operands), 2
    )
    assert [output_dtype(r, operands) for r in rules] == [float16, bool_]
    assert [compute_dtype(r, operands) for r in rules] == [float32, int8]


def test_bare_dtypes_count_as_tensors():
    assert output_dtype(PromotionRule((0, 1), "DEFAULT"), [int64, "half"]) is float16


def test_rule_naming_a_missing_operand():
    with pytest.raises(ValueError, match="argument 2"):
        output_dtype(PromotionRule((2,), "DEFAULT"), [T(float32)])
