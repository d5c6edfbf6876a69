"""The model of one differential test case, and how it becomes MLIR.

A case is a `func.func @case` holding one or two `pointwise.map` ops plus
the `pw-run --arg` specs of its arguments. It is kept as data rather than
text so that the generator (differential_generate.py) and the reducer
(differential_reduce.py) can build and shrink it while this module decides,
in one place, what is well formed and free of undefined behavior.

Shapes follow one rule that keeps every transformation simple: the case
has a *universe* of dims (`Case.sizes`); every map iterates over a suffix of
it and every memref argument views a suffix of it. An argument dim is
either "full" (the universe size) or a broadcast dim of run-time size 1.
Dropping or shrinking a universe dim therefore stays consistent for every
map and argument at once.
"""

from __future__ import annotations

import copy
import math
from dataclasses import dataclass, field
from typing import Optional, Union

FLOAT_TYPES = ("f16", "bf16", "f32", "f64")
INTEGER_TYPES = ("i1", "i8", "i16", "i32", "i64")
ELEMENT_TYPES = INTEGER_TYPES + FLOAT_TYPES
SCALAR_TYPES = ELEMENT_TYPES + ("index",)

BIT_WIDTH = {"i1": 1, "i8": 8, "i16": 16, "i32": 32, "i64": 64,
             "index": 64, "f16": 16, "bf16": 16, "f32": 32, "f64": 64}
FLOAT_MAX = {"f16": 65504.0, "bf16": 3.3895e38, "f32": 3.4028e38,
             "f64": 1.7976e308}

# What pw-run fills memref buffers and '-' scalars with (HostArgument.cpp):
# floats in [-4, 4], integers in [-100, 100], i1 0 or 1.
RANDOM_FLOAT_BOUND = 4.0
RANDOM_INT_RANGE = (-100, 100)

# Ops by how they print.
BINARY_OPS = ("arith.addf", "arith.subf", "arith.mulf", "arith.divf",
              "arith.maximumf", "arith.minimumf", "arith.addi", "arith.subi",
              "arith.muli", "arith.andi", "arith.ori", "arith.xori",
              "arith.shli")
UNARY_OPS = ("arith.negf", "math.absf", "math.exp", "math.sin", "math.cos",
             "math.tanh", "math.sqrt")
CAST_OPS = ("arith.extf", "arith.truncf", "arith.sitofp", "arith.uitofp",
            "arith.fptosi", "arith.extsi", "arith.extui", "arith.trunci",
            "arith.index_cast")
COMPARE_OPS = ("arith.cmpf", "arith.cmpi")
FLOAT_BINARY_OPS = BINARY_OPS[:6]
INTEGER_BINARY_OPS = BINARY_OPS[6:]


def is_float(type_name: str) -> bool:
    return type_name in FLOAT_TYPES


def is_integer(type_name: str) -> bool:
    """Signless integers and index: what arith's integer ops accept."""
    return type_name in INTEGER_TYPES or type_name == "index"


# --------------------------------------------------------------------------
# The model
# --------------------------------------------------------------------------


@dataclass
class MemRefArg:
    """A memref argument: its element type, its run-time view and which
    parts of that view its MLIR type spells statically."""
    elem: str
    # Per dim of the argument (the last `rank` universe dims):
    broadcast: list[bool]          # run-time size 1 against the universe
    strides: list[int]
    static_sizes: list[bool]
    static_strides: list[bool]
    offset: int = 0
    static_offset: bool = True
    # No layout attribute: the view must be the canonical row-major one.
    identity: bool = False

    @property
    def rank(self) -> int:
        return len(self.broadcast)


@dataclass
class ScalarArg:
    """A scalar argument; `value` None means pw-run draws it from --seed."""
    type: str
    value: Optional[str] = None


Arg = Union[MemRefArg, ScalarArg]


@dataclass
class Op:
    """One op of a map body: `%result = name operands : type`."""
    result: str
    name: str
    operands: list[str]
    type: str                      # result type
    attr: Optional[str] = None     # compare predicate or constant literal


@dataclass
class Map:
    rank: int                      # iterates over the last `rank` dims
    inputs: list[int]              # argument indices
    outputs: list[int]
    ops: list[Op] = field(default_factory=list)
    yields: list[str] = field(default_factory=list)

    def input_names(self) -> list[str]:
        return [f"in{i}" for i in range(len(self.inputs))]


@dataclass
class Case:
    sizes: list[int]               # the universe of dims
    args: list[Arg]
    maps: list[Map]
    seed: int = 0                  # pw-run --seed: the input values
    origin: str = ""               # "seed S case N", for messages
    lowering: str = "loops"        # the optimized path: see LOWERINGS

    def clone(self) -> "Case":
        return copy.deepcopy(self)


# The optimized lowerings pw-run can check against the reference, and the
# pw-run options that select them. (Forcing pw-tile's linear strategy is
# not one: it rejects layouts it cannot tile, and "auto" picks it wherever
# it applies.)
LOWERINGS = {
    "loops": [],
    "tiled": ["--lowering=tiled"],
    "tiled-general": ["--lowering=tiled", "--strategy=general"],
}


# --------------------------------------------------------------------------
# Layouts
# --------------------------------------------------------------------------


def arg_sizes(case: Case, arg: MemRefArg) -> list[int]:
    """The run-time sizes of a memref argument's view."""
    universe = case.sizes[len(case.sizes) - arg.rank:] if arg.rank else []
    return [1 if b else s for b, s in zip(arg.broadcast, universe)]


def canonical_strides(sizes: list[int]) -> list[int]:
    """Row-major strides as MLIR computes them for an identity layout
    (a suffix product, so a dim of size 0 makes the outer strides 0)."""
    strides, running = [], 1
    for size in reversed(sizes):
        strides.append(running)
        running *= size
    return strides[::-1]


def element_offsets(sizes: list[int], strides: list[int],
                    offset: int) -> list[int]:
    """Every element offset a view addresses, in iteration order."""
    offsets = [offset]
    for size, stride in zip(sizes, strides):
        offsets = [o + i * stride for o in offsets for i in range(size)]
    return offsets


def lowest_reach(sizes: list[int], strides: list[int], offset: int) -> int:
    if any(s == 0 for s in sizes):
        return offset
    return offset + sum((s - 1) * t for s, t in zip(sizes, strides) if t < 0)


def refresh_identity_layouts(case: Case) -> None:
    """Identity layouts follow the sizes; call after changing them."""
    for arg in case.args:
        if isinstance(arg, MemRefArg) and arg.identity:
            arg.strides = canonical_strides(arg_sizes(case, arg))
            arg.offset = 0
            arg.static_offset = True
            arg.static_strides = identity_static_strides(arg.static_sizes)


def identity_static_strides(static_sizes: list[bool]) -> list[bool]:
    """Which strides MLIR knows for an identity layout: those with only
    static sizes inside them."""
    known, result = True, []
    for static in reversed(static_sizes):
        result.append(known)
        known = known and static
    return result[::-1]


# --------------------------------------------------------------------------
# Value ranges: what keeps bodies free of undefined behavior
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class FloatRange:
    """|x| <= bound; bound inf means x may be inf or NaN."""
    bound: float
    nonneg: bool = False


@dataclass(frozen=True)
class IntRange:
    """lo <= x <= hi, reading x as signed (i1 true is -1)."""
    lo: int
    hi: int


Range = Union[FloatRange, IntRange]


def int_limits(type_name: str) -> tuple[int, int]:
    width = BIT_WIDTH[type_name]
    return -(1 << (width - 1)), (1 << (width - 1)) - 1


def int_range(type_name: str, lo: int, hi: int) -> IntRange:
    """The range [lo, hi] in `type_name`, or the full range where the
    arithmetic may have wrapped."""
    low, high = int_limits(type_name)
    if lo < low or hi > high:
        return IntRange(low, high)
    return IntRange(lo, hi)


def float_range(type_name: str, bound: float, nonneg: bool) -> FloatRange:
    """Widens to 'may be inf or NaN' where the bound exceeds the type."""
    if math.isnan(bound) or bound > FLOAT_MAX[type_name] * 0.99:
        return FloatRange(math.inf, False)
    return FloatRange(bound, nonneg)


def union(a: Range, b: Range) -> Range:
    if isinstance(a, FloatRange):
        return FloatRange(max(a.bound, b.bound), a.nonneg and b.nonneg)
    return IntRange(min(a.lo, b.lo), max(a.hi, b.hi))


def random_value_range(type_name: str) -> Range:
    if is_float(type_name):
        return FloatRange(RANDOM_FLOAT_BOUND)
    if type_name == "i1":
        return IntRange(-1, 0)
    return IntRange(*RANDOM_INT_RANGE)


def literal_range(type_name: str, literal: str) -> Range:
    if is_float(type_name):
        value = float(literal)
        return float_range(type_name, abs(value), not literal.startswith("-"))
    if type_name == "i1":
        value = -1 if literal in ("true", "1") else 0
        return IntRange(value, value)
    value = int(literal)
    return IntRange(value, value)


def scalar_range(arg: ScalarArg) -> Range:
    if arg.value is None:
        return random_value_range(arg.type)
    return literal_range(arg.type, arg.value)


def fptosi_is_safe(source: FloatRange, result_type: str) -> bool:
    """fptosi of a value outside the result type is poison: require a
    finite bound with room for rounding."""
    if result_type == "i1" or math.isinf(source.bound):
        return False
    return source.bound * 1.001 + 1 < 2 ** (BIT_WIDTH[result_type] - 1)


def transfer(op: Op, types: list[str],
             operands: list[Range]) -> tuple[Range, Optional[str]]:
    """The range of `op`'s result given its operands' types and ranges, and
    why the op is unsafe if it is."""
    t, name = op.type, op.name
    if name == "arith.constant":
        return literal_range(t, op.attr), None
    if name in ("arith.cmpf", "arith.cmpi"):
        return IntRange(-1, 0), None
    if name == "arith.select":
        return union(operands[1], operands[2]), None

    if is_float(t) and name in FLOAT_BINARY_OPS + UNARY_OPS + ("math.fma",):
        a = operands[0]
        if name in ("arith.addf", "arith.subf"):
            return float_range(t, a.bound + operands[1].bound,
                               name == "arith.addf" and a.nonneg
                               and operands[1].nonneg), None
        if name == "arith.mulf":
            b = operands[1]
            return float_range(t, a.bound * b.bound,
                               a.nonneg and b.nonneg), None
        if name == "arith.divf":
            return FloatRange(math.inf), None
        if name == "arith.maximumf":
            return FloatRange(max(a.bound, operands[1].bound),
                              a.nonneg or operands[1].nonneg), None
        if name == "arith.minimumf":
            return FloatRange(max(a.bound, operands[1].bound),
                              a.nonneg and operands[1].nonneg), None
        if name == "arith.negf":
            return FloatRange(a.bound), None
        if name == "math.absf":
            return FloatRange(a.bound, True), None
        finite = not math.isinf(a.bound)
        if name == "math.exp":
            bound = math.exp(a.bound) if a.bound < 700 else math.inf
            return float_range(t, bound, True), None
        if name in ("math.sin", "math.cos", "math.tanh"):
            return (FloatRange(1.0) if finite else FloatRange(math.inf)), None
        if name == "math.sqrt":
            if finite and a.nonneg:
                return FloatRange(math.sqrt(a.bound), True), None
            return FloatRange(math.inf), None
        if name == "math.fma":
            b, c = operands[1], operands[2]
            return float_range(t, a.bound * b.bound + c.bound, False), None

    if is_integer(t) and name in INTEGER_BINARY_OPS:
        a, b = operands
        if name == "arith.addi":
            return int_range(t, a.lo + b.lo, a.hi + b.hi), None
        if name == "arith.subi":
            return int_range(t, a.lo - b.hi, a.hi - b.lo), None
        if name == "arith.muli":
            products = [x * y for x in (a.lo, a.hi) for y in (b.lo, b.hi)]
            return int_range(t, min(products), max(products)), None
        if name == "arith.andi":
            if a.lo >= 0 or b.lo >= 0:
                his = [r.hi for r in (a, b) if r.lo >= 0]
                return int_range(t, 0, min(his)), None
            return int_range(t, *int_limits(t)), None
        if name in ("arith.ori", "arith.xori"):
            if a.lo >= 0 and b.lo >= 0:
                top = (1 << max(a.hi, b.hi).bit_length()) - 1
                return int_range(t, 0, top), None
            return int_range(t, *int_limits(t)), None
        if name == "arith.shli":
            width = BIT_WIDTH[t]
            if b.lo < 0 or b.hi >= width:
                return (int_range(t, *int_limits(t)),
                        f"shift amount in [{b.lo}, {b.hi}] may reach the "
                        f"width {width}")
            ends = [a.lo, a.hi, a.lo << b.hi, a.hi << b.hi]
            return int_range(t, min(ends), max(ends)), None

    if name in CAST_OPS:
        return transfer_cast(op, types[0], operands[0])
    return IntRange(0, 0), f"unknown op {name} : {t}"


def transfer_cast(op: Op, source: str,
                  a: Range) -> tuple[Range, Optional[str]]:
    t, name = op.type, op.name
    if name in ("arith.extf", "arith.truncf"):
        return float_range(t, a.bound, a.nonneg), None
    if name == "arith.sitofp":
        bound = max(abs(a.lo), abs(a.hi))
        return float_range(t, float(bound), a.lo >= 0), None
    if name == "arith.uitofp":
        hi = a.hi if a.lo >= 0 else (1 << BIT_WIDTH[source]) - 1
        return float_range(t, float(hi), True), None
    if name == "arith.fptosi":
        if not fptosi_is_safe(a, t):
            return (int_range(t, *int_limits(t)),
                    f"fptosi to {t} of a value bounded by {a.bound}")
        whole = math.floor(a.bound * 1.001 + 1)
        return int_range(t, -whole, whole), None
    if name == "arith.extsi" or name == "arith.index_cast":
        return int_range(t, a.lo, a.hi), None
    if name == "arith.extui":
        if a.lo >= 0:
            return int_range(t, a.lo, a.hi), None
        return int_range(t, 0, (1 << BIT_WIDTH[source]) - 1), None
    if name == "arith.trunci":
        return int_range(t, a.lo, a.hi), None
    return IntRange(0, 0), f"unknown cast {name}"


# --------------------------------------------------------------------------
# Well-formedness
# --------------------------------------------------------------------------


def cast_is_valid(name: str, source: str, result: str) -> bool:
    """The type pairs each arith cast accepts."""
    if name == "arith.extf":
        return (is_float(source) and is_float(result)
                and BIT_WIDTH[result] > BIT_WIDTH[source])
    if name == "arith.truncf":
        return (is_float(source) and is_float(result)
                and BIT_WIDTH[result] < BIT_WIDTH[source])
    if name in ("arith.sitofp", "arith.uitofp"):
        return source in INTEGER_TYPES and is_float(result)
    if name == "arith.fptosi":
        return is_float(source) and result in INTEGER_TYPES
    if name in ("arith.extsi", "arith.extui"):
        return (source in INTEGER_TYPES and result in INTEGER_TYPES
                and BIT_WIDTH[result] > BIT_WIDTH[source])
    if name == "arith.trunci":
        return (source in INTEGER_TYPES and result in INTEGER_TYPES
                and BIT_WIDTH[result] < BIT_WIDTH[source])
    if name == "arith.index_cast":
        return (source == "index") != (result == "index") and \
            is_integer(source) and is_integer(result)
    return False


def op_type_error(op: Op, types: list[str]) -> Optional[str]:
    """Why `op` with operands of `types` is ill-typed, or None."""
    t, name = op.type, op.name
    expected_operands = {"arith.constant": 0, "math.fma": 3,
                         "arith.select": 3}.get(name)
    if expected_operands is None:
        expected_operands = 1 if name in UNARY_OPS + CAST_OPS else 2
    if len(types) != expected_operands:
        return f"{name} takes {expected_operands} operands"
    if name == "arith.constant":
        return None if t in SCALAR_TYPES else f"constant of type {t}"
    if name in CAST_OPS:
        return None if cast_is_valid(name, types[0], t) else \
            f"{name} from {types[0]} to {t}"
    if name in COMPARE_OPS:
        ok = t == "i1" and types[0] == types[1] and (
            is_float(types[0]) if name == "arith.cmpf"
            else is_integer(types[0]))
        return None if ok else f"{name} on {types}"
    if name == "arith.select":
        ok = types[0] == "i1" and types[1] == types[2] == t
        return None if ok else f"select on {types}"
    if any(operand != t for operand in types):
        return f"{name} : {t} on {types}"
    if name in FLOAT_BINARY_OPS + UNARY_OPS + ("math.fma",):
        return None if is_float(t) else f"{name} on {t}"
    if name in INTEGER_BINARY_OPS:
        return None if is_integer(t) else f"{name} on {t}"
    return f"unknown op {name}"


def input_type(case: Case, index: int) -> str:
    arg = case.args[index]
    return arg.elem if isinstance(arg, MemRefArg) else arg.type


@dataclass
class ValueInfo:
    type: str
    range: Range
    constant: bool     # computed from constants only: folded at compile time


def constant_may_be_nonfinite(info: ValueInfo) -> bool:
    """Compile-time folders make NaNs of another sign or payload than the
    CPU (IEEE leaves them unspecified), and only one of the two pipelines
    canonicalizes; so constants must fold to finite values."""
    return info.constant and is_float(info.type) and \
        math.isinf(info.range.bound)


def analyze_op(op: Op, values: dict[str, ValueInfo]) -> tuple[ValueInfo,
                                                              Optional[str]]:
    """The op's result, and why it is ill-typed or unsafe if it is."""
    missing = [o for o in op.operands if o not in values]
    if missing:
        return ValueInfo(op.type, IntRange(0, 0), False), \
            f"%{op.result} uses undefined {missing}"
    types = [values[o].type for o in op.operands]
    error = op_type_error(op, types)
    if error:
        return ValueInfo(op.type, IntRange(0, 0), False), error
    value_range, unsafe = transfer(op, types,
                                   [values[o].range for o in op.operands])
    info = ValueInfo(op.type, value_range,
                     all(values[o].constant for o in op.operands))
    if not unsafe and constant_may_be_nonfinite(info):
        unsafe = "a constant expression may fold to inf or NaN"
    return info, (f"%{op.result}: {unsafe}" if unsafe else None)


def block_values(case: Case, m: Map,
                 arg_ranges: list[Range]) -> dict[str, ValueInfo]:
    return {name: ValueInfo(input_type(case, index), arg_ranges[index], False)
            for name, index in zip(m.input_names(), m.inputs)}


def analyze_map(case: Case, m: Map, arg_ranges: list[Range],
                problems: list[str]) -> dict[str, ValueInfo]:
    """Every value of the body; appends what is wrong to `problems`."""
    values = block_values(case, m, arg_ranges)
    for op in m.ops:
        if op.result in values:
            problems.append(f"%{op.result} is defined twice")
        info, problem = analyze_op(op, values)
        if problem:
            problems.append(problem)
        values[op.result] = info
    return values


def initial_ranges(case: Case) -> list[Range]:
    """What the arguments hold before the first map runs."""
    return [scalar_range(arg) if isinstance(arg, ScalarArg)
            else random_value_range(arg.elem) for arg in case.args]


def arg_ranges_before(case: Case, map_count: int,
                      problems: list[str]) -> list[Range]:
    """What the arguments hold after the first `map_count` maps ran: their
    random contents, or anything a map wrote there."""
    ranges = initial_ranges(case)
    for map_index, m in enumerate(case.maps[:map_count]):
        values = analyze_map(case, m, ranges, problems)
        for value, index in zip(m.yields, m.outputs):
            if value not in values:
                problems.append(f"map #{map_index} yields undefined %{value}")
            elif values[value].type != case.args[index].elem:
                problems.append(f"map #{map_index} yields "
                                f"{values[value].type} into "
                                f"{case.args[index].elem}")
            else:
                ranges[index] = union(ranges[index], values[value].range)
    return ranges


def check_case(case: Case) -> list[str]:
    """Everything that makes a case invalid or its result undefined; empty
    when the case is a fair comparison of the two lowerings."""
    problems: list[str] = []
    rank = len(case.sizes)
    if any(s < 0 for s in case.sizes):
        problems.append("negative size")
    for index, arg in enumerate(case.args):
        if isinstance(arg, ScalarArg):
            continue
        lists = (arg.strides, arg.static_sizes, arg.static_strides)
        if arg.rank > rank or any(len(x) != arg.rank for x in lists):
            problems.append(f"argument #{index}: inconsistent rank")
            continue
        sizes = arg_sizes(case, arg)
        if lowest_reach(sizes, arg.strides, arg.offset) < 0:
            problems.append(f"argument #{index} reaches below its buffer")
        if arg.identity and (arg.strides != canonical_strides(sizes)
                             or arg.offset != 0):
            problems.append(f"argument #{index}: identity layout mismatch")
    if problems:
        return problems

    for map_index, m in enumerate(case.maps):
        where = f"map #{map_index}"
        if not m.outputs:
            problems.append(f"{where} has no output")
        if len(set(m.outputs)) != len(m.outputs):
            problems.append(f"{where} writes one argument twice")
        if len(m.yields) != len(m.outputs):
            problems.append(f"{where} yields {len(m.yields)} values")
        if m.rank > rank:
            problems.append(f"{where} has rank above the universe")
        for index in m.outputs:
            arg = case.args[index]
            if not isinstance(arg, MemRefArg) or arg.rank != m.rank \
                    or any(arg.broadcast):
                problems.append(f"{where}: output argument #{index} does not "
                                f"have the iteration shape")
                continue
            offsets = element_offsets(arg_sizes(case, arg), arg.strides,
                                      arg.offset)
            if len(set(offsets)) != len(offsets):
                problems.append(f"{where}: output argument #{index} "
                                f"overlaps itself")
        for index in m.inputs:
            arg = case.args[index]
            if isinstance(arg, MemRefArg) and arg.rank > m.rank:
                problems.append(f"{where}: input argument #{index} has rank "
                                f"above the map's")
    if problems:
        return problems
    arg_ranges_before(case, len(case.maps), problems)
    used = {i for m in case.maps for i in m.inputs + m.outputs}
    if used != set(range(len(case.args))):
        problems.append("an argument is unused")
    return problems


# --------------------------------------------------------------------------
# Rendering: the module and the pw-run command line
# --------------------------------------------------------------------------


def memref_type(case: Case, arg: MemRefArg) -> str:
    sizes = arg_sizes(case, arg)
    shape = "".join(f"{s if static else '?'}x"
                    for s, static in zip(sizes, arg.static_sizes))
    if arg.identity:
        return f"memref<{shape}{arg.elem}>"
    strides = ", ".join(str(s) if static else "?"
                        for s, static in zip(arg.strides, arg.static_strides))
    offset = str(arg.offset) if arg.static_offset else "?"
    return f"memref<{shape}{arg.elem}, strided<[{strides}], offset: {offset}>>"


def arg_type(case: Case, index: int) -> str:
    arg = case.args[index]
    return memref_type(case, arg) if isinstance(arg, MemRefArg) else arg.type


def arg_spec(case: Case, arg: Arg) -> str:
    """The pw-run --arg of an argument: always the whole view, so pw-run
    never has to guess a layout."""
    if isinstance(arg, ScalarArg):
        return "-" if arg.value is None else f"={arg.value}"
    sizes = arg_sizes(case, arg)
    if not sizes:
        return f"()+{arg.offset}"
    return ("x".join(map(str, sizes)) + "@" + ",".join(map(str, arg.strides))
            + f"+{arg.offset}")


def arg_specs(case: Case) -> list[str]:
    return [arg_spec(case, arg) for arg in case.args]


def render_op(op: Op, types: dict[str, str]) -> str:
    result, name, t = f"%{op.result}", op.name, op.type
    operands = ", ".join(f"%{o}" for o in op.operands)
    if name == "arith.constant":
        if t == "i1":                   # true and false carry their type
            return f"{result} = arith.constant {op.attr}"
        return f"{result} = arith.constant {op.attr} : {t}"
    if name in COMPARE_OPS:
        return (f"{result} = {name} {op.attr}, {operands} : "
                f"{types[op.operands[0]]}")
    if name in CAST_OPS:
        return f"{result} = {name} {operands} : {types[op.operands[0]]} to {t}"
    return f"{result} = {name} {operands} : {t}"


def render_map(case: Case, m: Map) -> list[str]:
    def operand_list(indices: list[int]) -> str:
        names = ", ".join(f"%arg{i}" for i in indices)
        return f"{names} : {', '.join(arg_type(case, i) for i in indices)}"

    head = "pointwise.map"
    if m.inputs:
        head += f" ins({operand_list(m.inputs)})"
    head += f" outs({operand_list(m.outputs)}) {{"
    types = {name: input_type(case, i)
             for name, i in zip(m.input_names(), m.inputs)}
    return [head, *render_body(case, m, types), "}"]


def render_body(case: Case, m: Map, types: dict[str, str],
                extra_arguments: Optional[list[str]] = None,
                terminator: str = "pointwise.yield") -> list[str]:
    """The block of map `m`: its arguments (`types` names the inputs';
    `extra_arguments` follow them), its ops and its terminator. `types`
    gains the types of the ops' results."""
    block = [f"%{name}: {types[name]}" for name in m.input_names()]
    block += extra_arguments or []
    lines = [f"^bb0({', '.join(block)}):" if block else "^bb0:"]
    for op in m.ops:
        lines.append("  " + render_op(op, types))
        types[op.result] = op.type
    yielded = ", ".join(f"%{v}" for v in m.yields)
    yield_types = ", ".join(case.args[i].elem for i in m.outputs)
    lines.append(f"  {terminator} {yielded} : {yield_types}")
    return lines


def render_module(case: Case) -> str:
    params = ", ".join(f"%arg{i}: {arg_type(case, i)}"
                       for i in range(len(case.args)))
    lines = [f"func.func @case({params}) {{"]
    for m in case.maps:
        lines.extend("  " + line for line in render_map(case, m))
    lines += ["  return", "}"]
    return "\n".join(lines) + "\n"


# --------------------------------------------------------------------------
# Features: what a case exercises, for the summary
# --------------------------------------------------------------------------


def case_features(case: Case) -> set[str]:
    features = {f"rank={max(m.rank for m in case.maps)}",
                f"lowering={case.lowering}"}
    if 0 in case.sizes:
        features.add("size-0")
    if 1 in case.sizes:
        features.add("size-1")
    if any(s >= 16 for s in case.sizes):
        features.add("size>=16")
    if len(case.maps) > 1:
        features.add("two-maps")
        written = set(case.maps[0].outputs)
        if written & set(case.maps[1].inputs):
            features.add("chained-maps")
    for m in case.maps:
        if len(m.outputs) > 1:
            features.add("multi-output")
        if sum(isinstance(case.args[i], MemRefArg) for i in m.inputs) >= 3:
            features.add("3+-memref-inputs")
        if set(m.inputs) & set(m.outputs):
            features.add("in-place")
        if not m.inputs:
            features.add("no-inputs")
        for op in m.ops:
            features.add("op=" + op.name.split(".")[1])
        for i in m.inputs:
            arg = case.args[i]
            if isinstance(arg, ScalarArg):
                features.add("scalar-input")
                continue
            if arg.rank < m.rank:
                features.add("bcast-leading")
            for b, static in zip(arg.broadcast, arg.static_sizes):
                if b:
                    features.add("bcast-static-1" if static
                                 else "bcast-dynamic-1")
            sizes = arg_sizes(case, arg)
            if any(t == 0 and s > 1 for s, t in zip(sizes, arg.strides)):
                features.add("bcast-stride-0")
            offsets = element_offsets(sizes, arg.strides, arg.offset)
            if len(set(offsets)) != len(offsets) and not any(
                    t == 0 and s > 1 for s, t in zip(sizes, arg.strides)):
                features.add("input-overlaps-itself")
        for i in m.outputs:
            arg = case.args[i]
            if arg.strides != canonical_strides(arg_sizes(case, arg)):
                features.add("output-strided")
    for arg in case.args:
        if isinstance(arg, ScalarArg):
            continue
        features.add(f"type={arg.elem}")
        sizes = arg_sizes(case, arg)
        real = [(s, t) for s, t in zip(sizes, arg.strides) if s > 1]
        if any(t < 0 for _, t in real):
            features.add("negative-stride")
        magnitudes = [abs(t) for _, t in real if t != 0]
        if magnitudes != sorted(magnitudes, reverse=True):
            features.add("permuted")
        if magnitudes and min(magnitudes) > 1:
            features.add("stepped")
        if arg.offset:
            features.add("offset")
        if arg.identity:
            features.add("layout=identity")
        statics = arg.static_sizes + arg.static_strides + [arg.static_offset]
        features.add("layout=static" if all(statics) else
                     "layout=dynamic" if not any(statics) else "layout=mixed")
    return features
