"""Random differential test cases, deterministic per (seed, index).

The distributions favor what breaks layout transformations: odd ranks,
sizes 0 and 1, every kind of broadcast, permuted, stepped, padded and
negative strides, offsets, static and dynamic types side by side, several
outputs and in-place updates. Bodies mix every element type through
arith and math ops; the value ranges of differential_case.py keep them free
of undefined behavior, so any difference between the lowerings is a bug.
"""

from __future__ import annotations

import math
import random

from differential_case import (
    BIT_WIDTH, ELEMENT_TYPES, INTEGER_TYPES, SCALAR_TYPES, Case, Map,
    MemRefArg, Op, ScalarArg, ValueInfo, analyze_op, arg_ranges_before,
    arg_sizes, block_values, canonical_strides, cast_is_valid, check_case,
    identity_static_strides, int_limits, is_float, op_type_error)

MAX_ELEMENTS = 4096            # per universe: keeps a case well under 1 s
LARGE_ELEMENTS = 20000         # the occasional case with many tiles
MAX_OPS_PER_MAP = 14

# Open bugs the generator steers around unless asked (--known-issues), so
# that the suite stays green and keeps finding new bugs meanwhile. Delete
# an entry together with its fix.
KNOWN_ISSUES: dict[str, str] = {
    # Fixed, kept as names the generator understands, should one reopen:
    # "negative-strides" (upstream's memref-to-LLVM nuw/nsw flags; every
    # lowering now addresses through flat views, lib/.../FlatView.cpp) and
    # "truncf-f64-bf16" (pw-run's JIT now provides __truncdfbf2).
}


def case_rng(seed: int, index: int) -> random.Random:
    """One independent stream per case, stable across Python versions."""
    return random.Random(f"pointwise-differential:{seed}:{index}")


def generate_case(seed: int, index: int,
                  known_issues: bool = False) -> Case:
    """Case `index` of run `seed`; with `known_issues`, also the patterns
    of KNOWN_ISSUES (and then other cases for the same seed). Retries in
    the rare event that a draw violates a rule of check_case, so every
    case is valid."""
    rng = case_rng(seed, index)
    avoid = set() if known_issues else set(KNOWN_ISSUES)
    for attempt in range(100):
        case = draw_case(rng, avoid)
        case.origin = f"seed {seed} case {index}"
        problems = check_case(case)
        if not problems:
            return case
    raise AssertionError(f"generator: seed {seed} case {index}: {problems}")


# --------------------------------------------------------------------------
# Shapes and layouts
# --------------------------------------------------------------------------


def draw_sizes(rng: random.Random) -> list[int]:
    if rng.random() < 0.03:
        # Many GPU blocks and whole vector rows for the tiled lowerings.
        if rng.random() < 0.5:
            return [rng.randint(4097, LARGE_ELEMENTS)]
        return [rng.randint(100, 600), rng.choice([8, 32, 33, 64])]
    rank = rng.choices(range(7), weights=[6, 16, 24, 20, 14, 11, 9])[0]
    sizes = []
    for _ in range(rank):
        kind = rng.random()
        if kind < 0.22:
            sizes.append(1)
        elif kind < 0.80:
            sizes.append(rng.randint(2, 5))
        elif kind < 0.92:
            sizes.append(rng.randint(6, 9))
        else:
            sizes.append(rng.choice([16, 17, 31, 33, 64, 100]))
    while sizes and math.prod(sizes) > MAX_ELEMENTS:
        largest = sizes.index(max(sizes))
        sizes[largest] = max(2, sizes[largest] // 2)
    if sizes and rng.random() < 0.06:
        sizes[rng.randrange(rank)] = 0
    return sizes


def draw_strides(rng: random.Random, sizes: list[int], is_output: bool,
                 avoid: set[str]) -> tuple[list[int], int]:
    """A view of a larger buffer: dims in some memory order, a step on the
    innermost, padding between dims, some dims flipped, and an offset that
    keeps the lowest element at or above 0. Outputs never get stride 0 on a
    dim of size > 1, so they never overlap themselves."""
    rank = len(sizes)
    if not is_output and rng.random() < 0.08:
        # An input may overlap itself (a sliding window, as_strided): small
        # strides that the coalescing rule must not merge by mistake.
        strides = [rng.randint(0, 4) for _ in sizes]
        return strides, rng.choice([0, 0, 3])
    order = list(range(rank))                 # outermost to innermost
    shape = rng.random()
    if shape < 0.25:
        rng.shuffle(order)
    elif shape < 0.38:
        order.reverse()
    stride = rng.choice([1, 1, 1, 1, 1, 2, 3])
    strides = [0] * rank
    for dim in reversed(order):
        strides[dim] = stride
        extent = stride * max(sizes[dim], 1)
        padding = 0 if rng.random() < 0.75 else rng.choice(
            [1, 2, stride, extent])
        stride = extent + padding
    flip = rng.random() < 0.25 and "negative-strides" not in avoid
    for dim in range(rank):
        if flip and rng.random() < 0.5:
            strides[dim] = -strides[dim]
        if sizes[dim] == 1 and rng.random() < 0.3:
            # Any stride is fine where the index is always 0.
            strides[dim] = rng.choice([0, 1, 7, -5, 1000])
        elif not is_output and sizes[dim] > 1 and rng.random() < 0.07:
            strides[dim] = 0                  # an expanded broadcast
    offset = 0
    if 0 not in sizes:
        offset = sum((s - 1) * -t for s, t in zip(sizes, strides) if t < 0)
    if rng.random() < 0.35:
        offset += rng.randint(1, 20)
    return strides, offset


def draw_memref(rng: random.Random, case: Case, elem: str, rank: int,
                is_output: bool, style: str, avoid: set[str]) -> MemRefArg:
    """A new memref argument viewing the last `rank` universe dims."""
    broadcast = [False] * rank
    if not is_output and rank and rng.random() < 0.4:
        for dim in range(rank):
            broadcast[dim] = rng.random() < 0.3
    if style == "static":
        static = lambda: True                                     # noqa: E731
    elif style == "dynamic":
        static = lambda: False                                    # noqa: E731
    else:
        static = lambda: rng.random() < 0.5                       # noqa: E731
    arg = MemRefArg(elem=elem, broadcast=broadcast, strides=[0] * rank,
                    static_sizes=[static() for _ in range(rank)],
                    static_strides=[static() for _ in range(rank)],
                    static_offset=static() or (style == "static"
                                               and rng.random() < 0.9))
    sizes = arg_sizes(case, arg)
    if rng.random() < 0.25:
        arg.identity = True
        arg.strides = canonical_strides(sizes)
        arg.static_strides = identity_static_strides(arg.static_sizes)
        arg.offset, arg.static_offset = 0, True
    else:
        arg.strides, arg.offset = draw_strides(rng, sizes, is_output, avoid)
    return arg


def draw_scalar(rng: random.Random) -> ScalarArg:
    type_name = rng.choice(SCALAR_TYPES)
    if rng.random() < 0.5:
        return ScalarArg(type_name)
    if is_float(type_name):
        value = rng.choice(["0.5", "-1.25", "3.0", "0.0", "-0.0", "2.75"])
    elif type_name == "i1":
        value = rng.choice(["true", "false", "1", "0"])
    else:
        value = str(rng.randint(-100, 100))
    return ScalarArg(type_name, value)


def draw_element_type(rng: random.Random, favorite: str) -> str:
    """Mostly the case's favorite type, so bodies need fewer casts."""
    return favorite if rng.random() < 0.6 else rng.choice(ELEMENT_TYPES)


# --------------------------------------------------------------------------
# The case
# --------------------------------------------------------------------------


def draw_case(rng: random.Random, avoid: set[str]) -> Case:
    sizes = draw_sizes(rng)
    case = Case(sizes=sizes, args=[], maps=[], seed=rng.randrange(1 << 31))
    rank = len(sizes)
    ranks = [rank]
    if rng.random() < 0.18:
        other = max(0, rank - rng.choice([0, 0, 1, 2]))
        ranks = [other, rank] if rng.random() < 0.5 else [rank, other]
    favorite = rng.choice(ELEMENT_TYPES)
    for map_rank in ranks:
        case.maps.append(draw_map(rng, case, map_rank, favorite, avoid))
    return case


def draw_map(rng: random.Random, case: Case, rank: int, favorite: str,
             avoid: set[str]) -> Map:
    style = rng.choices(["static", "dynamic", "mixed"], [4, 3, 3])[0]
    m = Map(rank=rank, inputs=[], outputs=[])
    existing = list(range(len(case.args)))

    def full_rank(index: int) -> bool:
        arg = case.args[index]
        return (isinstance(arg, MemRefArg) and arg.rank == rank
                and not any(arg.broadcast))

    # Outputs: new arguments, or an argument of the other map.
    for _ in range(rng.choices([1, 2, 3], [70, 20, 10])[0]):
        reusable = [i for i in existing if full_rank(i)
                    and i not in m.outputs]
        if reusable and rng.random() < 0.25:
            m.outputs.append(rng.choice(reusable))
            continue
        case.args.append(draw_memref(rng, case,
                                     draw_element_type(rng, favorite), rank,
                                     True, style, avoid))
        m.outputs.append(len(case.args) - 1)

    # Memref inputs: new, read from the other map, or in place.
    for _ in range(rng.choices(range(6), [5, 30, 30, 18, 10, 7])[0]):
        readable = [i for i in existing if isinstance(case.args[i], MemRefArg)
                    and case.args[i].rank <= rank]
        written = [i for i in readable if i in case.maps[0].outputs] \
            if case.maps else []
        draw = rng.random()
        if draw < 0.12:
            m.inputs.append(rng.choice(m.outputs))            # in place
        elif readable and draw < (0.55 if written else 0.35):
            m.inputs.append(rng.choice(written if written and
                                       rng.random() < 0.7 else readable))
        elif m.inputs and draw < 0.38:
            m.inputs.append(rng.choice(m.inputs))             # read twice
        else:
            arg_rank = rank if rng.random() < 0.6 else rng.randint(0, rank)
            case.args.append(draw_memref(rng, case,
                                         draw_element_type(rng, favorite),
                                         arg_rank, False, style, avoid))
            m.inputs.append(len(case.args) - 1)

    for _ in range(rng.choices(range(3), [60, 30, 10])[0]):
        case.args.append(draw_scalar(rng))
        m.inputs.insert(rng.randint(0, len(m.inputs)), len(case.args) - 1)

    BodyBuilder(rng, case, m, avoid).build()
    return m


# --------------------------------------------------------------------------
# Bodies
# --------------------------------------------------------------------------


FLOAT_CONSTANTS = ["0.0", "-0.0", "1.0", "-1.0", "0.5", "2.0", "-2.5",
                   "3.75", "0.1", "10.0"]
COMPARE_PREDICATES = {
    "arith.cmpf": ["oeq", "one", "olt", "ole", "ogt", "oge", "ueq", "une",
                   "ult", "ule", "ugt", "uge", "ord", "uno"],
    "arith.cmpi": ["eq", "ne", "slt", "sle", "sgt", "sge", "ult", "ule",
                   "ugt", "uge"],
}


class BodyBuilder:
    """Builds a map body top-down: one random expression per output, over
    the block arguments, constants and (for sharing) earlier values."""

    def __init__(self, rng: random.Random, case: Case, m: Map,
                 avoid: set[str]):
        self.rng, self.case, self.map, self.avoid = rng, case, m, avoid
        problems: list[str] = []
        ranges = arg_ranges_before(case, len(case.maps), problems)
        assert not problems, problems
        self.values: dict[str, ValueInfo] = block_values(case, m, ranges)
        self.unused: list[str] = m.input_names()
        self.computed: list[str] = []

    def type_of(self, value: str) -> str:
        return self.values[value].type

    def use(self, value: str) -> str:
        if value in self.unused:
            self.unused.remove(value)
        return value

    # -- emitting -----------------------------------------------------------

    def emit(self, name: str, operands: list[str], type_name: str,
             attr: str | None = None) -> str | None:
        """Appends the op and returns its value, or None if the op would be
        unsafe for the operands' ranges (the caller then falls back)."""
        op = Op(f"v{len(self.map.ops)}", name, operands, type_name, attr)
        ill_typed = op_type_error(op, [self.type_of(o) for o in operands])
        assert ill_typed is None, f"generator bug: {ill_typed}"
        info, unsafe = analyze_op(op, self.values)
        if unsafe:
            return None
        self.map.ops.append(op)
        self.values[op.result] = info
        self.computed.append(op.result)
        for o in operands:
            self.use(o)
        return op.result

    def constant(self, type_name: str) -> str:
        rng = self.rng
        if is_float(type_name):
            literal = rng.choice(FLOAT_CONSTANTS)
        elif type_name == "i1":
            literal = rng.choice(["true", "false"])
        else:
            low, high = int_limits(type_name)
            literal = str(rng.choice([0, 1, -1, 2, 3, 7, -8, 100, low, high,
                                      rng.randint(-50, 50)]))
            if not low <= int(literal) <= high:
                literal = "1"
        return self.emit("arith.constant", [], type_name, literal)

    @property
    def budget_left(self) -> bool:
        return len(self.map.ops) < MAX_OPS_PER_MAP

    # -- expressions --------------------------------------------------------

    def build(self) -> None:
        for index in self.map.outputs:
            target = self.case.args[index].elem
            value = self.expression(target, depth=self.rng.randint(1, 4))
            # Fold in inputs no expression read, so every load matters.
            for name in list(self.unused):
                if self.rng.random() < 0.85 and self.budget_left:
                    value = self.combine(value, self.convert(name, target))
            self.map.yields.append(value)

    def combine(self, a: str, b: str) -> str:
        type_name = self.type_of(a)
        if is_float(type_name):
            op = self.rng.choice(["arith.addf", "arith.maximumf",
                                  "arith.minimumf", "arith.subf"])
        else:
            op = self.rng.choice(["arith.xori", "arith.addi", "arith.ori"])
        return self.emit(op, [a, b], type_name) or a

    def leaf(self, type_name: str) -> str:
        rng = self.rng
        same = [n for n, info in self.values.items()
                if info.type == type_name and not info.constant]
        unused_same = [n for n in self.unused if self.type_of(n) == type_name]
        if unused_same and rng.random() < 0.8:
            return self.use(rng.choice(unused_same))
        if same and rng.random() < 0.75:
            return self.use(rng.choice(same))
        if self.unused and rng.random() < 0.6:
            return self.convert(rng.choice(self.unused), type_name)
        inputs = self.map.input_names()
        if inputs and rng.random() < 0.5:
            return self.convert(rng.choice(inputs), type_name)
        return self.constant(type_name)

    def expression(self, type_name: str, depth: int) -> str:
        rng = self.rng
        if depth <= 0 or not self.budget_left or rng.random() < 0.15:
            return self.leaf(type_name)
        if self.computed and rng.random() < 0.12:
            shared = [n for n in self.computed
                      if self.type_of(n) == type_name]
            if shared:
                return rng.choice(shared)
        if is_float(type_name):
            kind = rng.choices(["binary", "unary", "fma", "select", "cast"],
                               [40, 25, 6, 10, 19])[0]
        elif type_name == "i1":
            kind = rng.choices(["compare", "binary", "select", "cast"],
                               [50, 20, 10, 20])[0]
        else:
            kind = rng.choices(["binary", "shift", "select", "cast"],
                               [50, 12, 13, 25])[0]
        return getattr(self, f"build_{kind}")(type_name, depth - 1) \
            or self.leaf(type_name)

    def build_binary(self, type_name: str, depth: int) -> str | None:
        if is_float(type_name):
            ops = ["arith.addf", "arith.subf", "arith.mulf", "arith.divf",
                   "arith.maximumf", "arith.minimumf"]
        elif type_name == "i1":
            ops = ["arith.andi", "arith.ori", "arith.xori"]
        else:
            ops = ["arith.addi", "arith.subi", "arith.muli", "arith.andi",
                   "arith.ori", "arith.xori"]
        name = self.rng.choice(ops)
        a = self.expression(type_name, depth)
        b = self.expression(type_name, depth)
        return self.emit(name, [a, b], type_name)

    def build_unary(self, type_name: str, depth: int) -> str | None:
        name = self.rng.choice(["arith.negf", "math.absf", "math.exp",
                                "math.sin", "math.cos", "math.tanh",
                                "math.sqrt"])
        a = self.expression(type_name, depth)
        if name == "math.sqrt":               # sqrt of |x|: never NaN
            a = self.emit("math.absf", [a], type_name) or a
        return self.emit(name, [a], type_name)

    def build_fma(self, type_name: str, depth: int) -> str | None:
        operands = [self.expression(type_name, depth) for _ in range(3)]
        return self.emit("math.fma", operands, type_name)

    def build_select(self, type_name: str, depth: int) -> str | None:
        condition = self.expression("i1", depth)
        a = self.expression(type_name, depth)
        b = self.expression(type_name, depth)
        return self.emit("arith.select", [condition, a, b], type_name)

    def build_compare(self, type_name: str, depth: int) -> str | None:
        operand_type = self.rng.choice(SCALAR_TYPES)
        name = "arith.cmpf" if is_float(operand_type) else "arith.cmpi"
        a = self.expression(operand_type, depth)
        b = self.expression(operand_type, depth)
        return self.emit(name, [a, b], "i1",
                         self.rng.choice(COMPARE_PREDICATES[name]))

    def build_shift(self, type_name: str, depth: int) -> str | None:
        """shli by an amount masked below the width: never poison."""
        value = self.expression(type_name, depth)
        amount = self.expression(type_name, depth)
        width = BIT_WIDTH[type_name]
        mask = self.emit("arith.constant", [], type_name,
                         "false" if width == 1 else str(width - 1))
        masked = self.emit("arith.andi", [amount, mask], type_name)
        return self.emit("arith.shli", [value, masked], type_name)

    def build_cast(self, type_name: str, depth: int) -> str | None:
        source_type = self.rng.choice(
            [t for t in SCALAR_TYPES if t != type_name])
        return self.convert(self.expression(source_type, depth), type_name)

    # -- conversions --------------------------------------------------------

    def cast(self, name: str, value: str, target: str) -> str:
        """A cast that cannot fail: a constant where folding `value` would
        overflow (sitofp or truncf of a large constant)."""
        return self.emit(name, [value], target) or self.constant(target)

    def convert(self, value: str, target: str) -> str:
        """`value` as a `target`, through one or two casts; falls back to a
        comparison where fptosi could be out of range."""
        source = self.type_of(value)
        if source == target:
            return self.use(value)
        rng = self.rng
        if source == "index":
            return self.convert(self.cast("arith.index_cast", value, "i64"),
                                target)
        if target == "index":
            value = self.convert(value, rng.choice(INTEGER_TYPES[1:]))
            return self.cast("arith.index_cast", value, "index")
        if is_float(source) and is_float(target):
            if (source, target) == ("f64", "bf16") and \
                    "truncf-f64-bf16" in self.avoid:
                value = self.cast("arith.truncf", value, "f32")
                return self.cast("arith.truncf", value, target)
            for name in ("arith.extf", "arith.truncf"):
                if cast_is_valid(name, source, target):
                    return self.cast(name, value, target)
            return self.convert(self.cast("arith.extf", value, "f32"), target)
        if is_float(target):
            name = rng.choice(["arith.sitofp", "arith.uitofp"])
            return self.cast(name, value, target)
        if is_float(source):
            if target != "i1":
                converted = self.emit("arith.fptosi", [value], target)
                if converted:
                    return converted
            zero = self.constant(source)
            predicate = rng.choice(COMPARE_PREDICATES["arith.cmpf"])
            return self.convert(
                self.emit("arith.cmpf", [value, zero], "i1", predicate),
                target)
        if BIT_WIDTH[target] > BIT_WIDTH[source]:
            name = rng.choice(["arith.extsi", "arith.extui"])
            return self.cast(name, value, target)
        return self.cast("arith.trunci", value, target)
