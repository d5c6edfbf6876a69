"""Differential testing of pw-fuse-maps on tensor programs.

A case is a function on tensors: a random DAG of tensor `pointwise.map` ops
in destination-passing style -- chains, maps whose results several maps
read, maps read through broadcasts (lower rank or size-1 dims), maps with
several outputs, destinations from `tensor.empty` (static or dynamic
sizes, from `tensor.dim` of one argument or another), arguments updated in
place and results used as destinations -- whose sinks and some
intermediate results are returned. Each case runs through `pw-run` twice on
the same inputs:

- unfused: the module as generated (the pipeline bufferizes it, every map
  writes its own tensor);
- fused: the module after `pw-opt --pw-fuse-maps --canonicalize`;

and every returned tensor must be bit for bit identical (`--dump-outputs`,
compared byte by byte). Bodies come from the map suite's generator
(`differential_generate.BodyBuilder`), with its value-range analysis that
keeps them free of undefined behavior; the range of a map result is what
its body yields.

    differential.py --mode tensor --pw-run build/bin/pw-run \\
        --pw-opt build/bin/pw-opt --cases 5000 --seed 1

See docs/Testing.md.
"""

from __future__ import annotations

import collections
import math
import dataclasses
import os
import random
import re
import shlex
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional, Sequence

import differential
from differential import CRASH, ERROR, INVALID, MISMATCH, PASS, TIMEOUT, Outcome
from differential_case import (BIT_WIDTH, ELEMENT_TYPES, Case, Map,
                               MemRefArg,
                               analyze_op, arg_ranges_before, arg_sizes,
                               arg_spec, block_values, canonical_strides,
                               element_offsets, initial_ranges, render_body,
                               union)
from differential_generate import (BodyBuilder, draw_element_type,
                                   draw_scalar, draw_strides)

MAX_ELEMENTS = 2048

# Open bugs whose patterns the generator avoids unless asked
# (--known-issues); delete an entry with its fix.
KNOWN_ISSUES: dict[str, str] = {
    "bf16-and-f16": "LLVM 22.1's InstCombine narrows f32 arithmetic on a "
                    "value extended from bf16 and truncated to f16 into f16 "
                    "arithmetic, converting the bf16 value to f16 first (out "
                    "of range: inf, and inf * 0 = NaN); a fused map holds "
                    "both conversions in one function. Cases use bf16 or "
                    "f16, not both.",
    "minmax-signed-zero": "arith.minimumf(-0.0, +0.0) is +0 on the CPU "
                          "path (and maximumf(+0.0, -0.0) -0), where "
                          "compile-time folding gives -0 (+0) as the op "
                          "defines; a fused map folds what the unfused "
                          "program computes when its inputs come from "
                          "constant results. Cases have no minimumf or "
                          "maximumf of constants only.",
}
FUSE_PASSES = ["--pw-fuse-maps", "--canonicalize"]
HALF_TYPES = ("f16", "bf16")


# --------------------------------------------------------------------------
# The model
# --------------------------------------------------------------------------


@dataclass
class TensorCase:
    """`case.args` holds every value of the function: tensors (arguments
    and map results, as MemRefArg: `broadcast` marks the dims of size 1,
    `static_sizes` what the type spells) and scalar arguments; `case.maps`
    the maps, whose `inputs` and `outputs` index those values (an output is
    the map's result)."""
    case: Case
    params: list[int]                   # values that are function arguments
    # Per map, per output: the value used as destination, None for a new
    # tensor.empty.
    destinations: list[list[Optional[int]]] = field(default_factory=list)
    # Per map, per dynamic dim of its results: which argument's tensor.dim
    # gives the size (value index, dim of that value), or None for a
    # constant.
    size_sources: list[dict[int, Optional[tuple[int, int]]]] = field(
        default_factory=list)
    returns: list[int] = field(default_factory=list)
    # "maps": the program is written in pointwise.map; "linalg": in
    # linalg.generic, which pw-convert-linalg-to-pointwise turns into maps.
    form: str = "maps"

    @property
    def origin(self) -> str:
        return self.case.origin

    @property
    def seed(self) -> int:
        return self.case.seed


def is_tensor(case: Case, index: int) -> bool:
    return isinstance(case.args[index], MemRefArg)


def producer_of(tc: TensorCase, value: int) -> Optional[int]:
    for map_index, m in enumerate(tc.case.maps):
        if value in m.outputs:
            return map_index
    return None


def tensor_type(case: Case, value: MemRefArg) -> str:
    sizes = arg_sizes(case, value)
    shape = "".join(f"{s if static else '?'}x"
                    for s, static in zip(sizes, value.static_sizes))
    return f"tensor<{shape}{value.elem}>"


def value_type(case: Case, index: int) -> str:
    arg = case.args[index]
    return tensor_type(case, arg) if isinstance(arg, MemRefArg) else arg.type


def same_tensor(case: Case, a: MemRefArg, b: MemRefArg) -> bool:
    """Same type and same run-time sizes."""
    return tensor_type(case, a) == tensor_type(case, b) and \
        a.broadcast == b.broadcast


def broadcasts_to(value: MemRefArg, rank: int, ones: list[bool]) -> bool:
    """Whether `value` (a suffix of the universe) broadcasts to a space of
    the last `rank` universe dims whose dims `ones` are 1."""
    if value.rank > rank:
        return False
    aligned = ones[rank - value.rank:]
    return all(v_one or not s_one
               for v_one, s_one in zip(value.broadcast, aligned))


# --------------------------------------------------------------------------
# Generation
# --------------------------------------------------------------------------


def case_rng(seed: int, index: int) -> random.Random:
    return random.Random(f"pointwise-differential-tensor:{seed}:{index}")


FORMS = ("maps", "linalg")


def generate_tensor_case(seed: int, index: int, known_issues: bool = False,
                         form: str = "maps") -> TensorCase:
    """Case `index` of run `seed`, valid by construction (a draw that
    breaks a rule is drawn again); with `known_issues`, also the patterns of
    KNOWN_ISSUES (and then other cases for the same seed)."""
    rng = case_rng(seed, index)
    for _ in range(100):
        tc = draw_tensor_case(rng, form)
        tc.case.origin = f"tensor seed {seed} case {index}"
        problems = check_tensor_case(tc)
        if not known_issues:
            problems += sorted(known_issue_patterns(tc))
        if not problems:
            return tc
    raise AssertionError(f"generator: tensor seed {seed} case {index}: "
                         f"{problems}")


def known_issue_patterns(tc: TensorCase) -> set[str]:
    """The KNOWN_ISSUES whose patterns the case has."""
    patterns = set()
    types = {arg.elem if isinstance(arg, MemRefArg) else arg.type
             for arg in tc.case.args}
    types |= {op.type for m in tc.case.maps for op in m.ops}
    if {"bf16", "f16"} <= types:
        patterns.add("bf16-and-f16")
    constant_minmax: list[str] = []
    constant_results(tc, [], constant_minmax)
    if constant_minmax:
        patterns.add("minmax-signed-zero")
    return patterns


def draw_universe(rng: random.Random) -> list[int]:
    rank = rng.choices(range(5), weights=[5, 25, 35, 25, 10])[0]
    sizes = [rng.choice([1, 2, 3, 4, 5, 7, 8, 16, 33]) for _ in range(rank)]
    while sizes and math.prod(sizes) > MAX_ELEMENTS:
        largest = sizes.index(max(sizes))
        sizes[largest] = max(2, sizes[largest] // 2)
    if sizes and rng.random() < 0.04:
        sizes[rng.randrange(rank)] = 0
    return sizes


class ProgramBuilder:
    def __init__(self, rng: random.Random, form: str):
        self.rng = rng
        self.case = Case(sizes=draw_universe(rng), args=[], maps=[],
                         seed=rng.randrange(1 << 31))
        self.tc = TensorCase(self.case, params=[], form=form)
        # linalg broadcasts by leaving loops out of an input's indexing map,
        # never through a dim of size 1: no size-1 dims where others are
        # bigger.
        self.size_one_dims = form == "maps"
        self.favorite = rng.choice(ELEMENT_TYPES)
        self.dynamic_bias = rng.random()

    @property
    def universe_rank(self) -> int:
        return len(self.case.sizes)

    def static_mask(self, rank: int) -> list[bool]:
        return [self.rng.random() > self.dynamic_bias for _ in range(rank)]

    def new_argument(self, elem: str, rank: int, ones: list[bool],
                     writable: bool) -> int:
        """A tensor argument: its view is any layout (writable ones, which
        maps may update in place, never overlap themselves)."""
        value = MemRefArg(elem=elem, broadcast=list(ones), strides=[0] * rank,
                          static_sizes=self.static_mask(rank),
                          static_strides=[False] * rank,
                          static_offset=False)
        sizes = arg_sizes(self.case, value)
        if self.rng.random() < 0.4:
            value.strides = canonical_strides(sizes)
        else:
            value.strides, value.offset = draw_strides(self.rng, sizes,
                                                       writable, set())
        self.case.args.append(value)
        index = len(self.case.args) - 1
        self.tc.params.append(index)
        return index

    def new_scalar(self) -> int:
        self.case.args.append(draw_scalar(self.rng))
        index = len(self.case.args) - 1
        self.tc.params.append(index)
        return index

    def tensors(self) -> list[int]:
        return [i for i in range(len(self.case.args))
                if is_tensor(self.case, i)]

    def draw_space(self) -> tuple[int, list[bool]]:
        """A map's iteration space: the last `rank` universe dims, some of
        them 1 (a small map, which bigger ones read through a broadcast)."""
        rank = self.universe_rank
        if rank and self.rng.random() < 0.25:
            rank = self.rng.randint(0, rank)
        ones = [False] * rank
        if rank and self.size_one_dims and self.rng.random() < 0.25:
            ones = [self.rng.random() < 0.4 for _ in range(rank)]
        return rank, ones

    def draw_map(self) -> None:
        rng, case = self.rng, self.case
        rank, ones = self.draw_space()
        m = Map(rank=rank, inputs=[], outputs=[])
        readable = [i for i in self.tensors()
                    if broadcasts_to(case.args[i], rank, ones)]
        results = [i for i in readable if producer_of(self.tc, i) is not None]
        # The latest results first: chains are what fusion is about.
        if results and rng.random() < 0.85:
            m.inputs.append(max(results))
        for _ in range(rng.choices(range(4), [15, 45, 28, 12])[0]):
            draw = rng.random()
            if results and draw < 0.45:
                m.inputs.append(rng.choice(results))
            elif readable and draw < 0.7:
                m.inputs.append(rng.choice(readable))
            else:
                arg_rank = rank if rng.random() < 0.6 else rng.randint(0,
                                                                        rank)
                arg_ones = [o or (self.size_one_dims and rng.random() < 0.2)
                            for o in ones[rank - arg_rank:]]
                m.inputs.append(self.new_argument(
                    draw_element_type(rng, self.favorite), arg_rank, arg_ones,
                    writable=False))
        for _ in range(rng.choices(range(3), [65, 28, 7])[0]):
            m.inputs.insert(rng.randint(0, len(m.inputs)), self.new_scalar())

        static = self.static_mask(rank)
        destinations: list[Optional[int]] = []
        for _ in range(rng.choices([1, 2, 3], [70, 22, 8])[0]):
            elem = draw_element_type(rng, self.favorite)
            result = MemRefArg(elem=elem, broadcast=list(ones),
                               strides=[0] * rank, static_sizes=list(static),
                               static_strides=[False] * rank)
            result.strides = canonical_strides(arg_sizes(case, result))
            destinations.append(self.draw_destination(result, destinations))
            case.args.append(result)
            m.outputs.append(len(case.args) - 1)
        self.tc.destinations.append(destinations)
        self.tc.size_sources.append(self.draw_size_sources(rank, ones,
                                                           static))
        builder = BodyBuilder(rng, case, m, set())
        # A result computed from constants only is a constant once fused:
        # the body sees it as one, so that it does not build an expression
        # that folds to inf or NaN at compile time.
        constant = constant_results(self.tc, [])
        for name, index in zip(m.input_names(), m.inputs):
            if index in constant:
                builder.values[name] = dataclasses.replace(
                    builder.values[name], constant=True)
        builder.build()
        case.maps.append(m)

    def draw_destination(self, result: MemRefArg,
                         taken: list[Optional[int]]) -> Optional[int]:
        """None (a tensor.empty), or a value of the result's exact type:
        an argument (updated in place) or an earlier map's result."""
        draw = self.rng.random()
        if draw > 0.2:
            return None
        same_type = [i for i in self.tensors() if i not in taken
                     and same_tensor(self.case, self.case.args[i], result)
                     and (producer_of(self.tc, i) is not None
                          or (i in self.tc.params and self.is_writable(i)))]
        if same_type and draw < 0.1:
            return self.rng.choice(same_type)
        if draw < 0.2 and not any(result.broadcast):
            index = self.new_argument(result.elem, result.rank,
                                      result.broadcast, writable=True)
            self.case.args[index].static_sizes = list(result.static_sizes)
            return index
        return None

    def is_writable(self, index: int) -> bool:
        """Whether an argument's view may be written: no two of its elements
        share an address."""
        arg = self.case.args[index]
        offsets = element_offsets(arg_sizes(self.case, arg), arg.strides,
                                  arg.offset)
        return len(set(offsets)) == len(offsets)

    def draw_size_sources(self, rank: int, ones: list[bool],
                          static: list[bool]
                          ) -> dict[int, Optional[tuple[int, int]]]:
        """Where each dynamic size of a map's tensor.empty comes from: the
        tensor.dim of an argument that has the size, or a constant. Several
        arguments may have it, so sizes of different maps are provably
        equal to pw-fuse-maps only sometimes."""
        sources: dict[int, Optional[tuple[int, int]]] = {}
        for dim in range(rank):
            if static[dim]:
                continue
            universe_dim = self.universe_rank - rank + dim
            candidates = []
            for index in self.tc.params:
                arg = self.case.args[index]
                if not isinstance(arg, MemRefArg):
                    continue
                arg_dim = arg.rank - (self.universe_rank - universe_dim)
                if arg_dim < 0:
                    continue
                if arg.broadcast[arg_dim] == ones[dim] or \
                        self.case.sizes[universe_dim] == 1:
                    candidates.append((index, arg_dim))
            # Prefer the first few arguments, so that sizes are often shared.
            candidates = candidates[:2]
            sources[dim] = self.rng.choice(candidates) if candidates and \
                self.rng.random() < 0.9 else None
        return sources

    def finish(self) -> TensorCase:
        """Returns every result no map reads, and some that maps read."""
        read = {i for m in self.case.maps for i in m.inputs}
        read |= {d for ds in self.tc.destinations for d in ds
                 if d is not None}
        for m in self.case.maps:
            for value in m.outputs:
                if value not in read or self.rng.random() < 0.15:
                    self.tc.returns.append(value)
        return self.tc


def draw_tensor_case(rng: random.Random, form: str = "maps") -> TensorCase:
    builder = ProgramBuilder(rng, form)
    for _ in range(rng.choices(range(1, 9), [4, 14, 18, 18, 16, 12, 10, 8])[0]):
        builder.draw_map()
    return builder.finish()


# --------------------------------------------------------------------------
# Validity
# --------------------------------------------------------------------------


def constant_results(tc: TensorCase, problems: list[str],
                     constant_minmax: Optional[list[str]] = None) -> set[int]:
    """The map results computed from constants only: fused into their
    consumers, they fold at compile time, and compile-time folders make
    other NaN bits than the CPU, so expressions over them must not be able
    to reach inf or NaN (as for constants in the map suite). Appends the
    expressions that could to `problems`, and the minimumf and maximumf ops
    over constants only to `constant_minmax` (KNOWN_ISSUES)."""
    case = tc.case
    constant: set[int] = set()
    ranges = initial_ranges(case)
    for map_index, m in enumerate(case.maps):
        values = block_values(case, m, ranges)
        for name, index in zip(m.input_names(), m.inputs):
            if index in constant:
                values[name] = dataclasses.replace(values[name],
                                                   constant=True)
        for op in m.ops:
            info, problem = analyze_op(op, values)
            if problem:
                problems.append(f"map #{map_index}: {problem}")
            if constant_minmax is not None and info.constant and \
                    op.name in ("arith.minimumf", "arith.maximumf"):
                constant_minmax.append(f"map #{map_index}: %{op.result}")
            values[op.result] = info
        for value, index in zip(m.yields, m.outputs):
            if value not in values:
                continue
            ranges[index] = union(ranges[index], values[value].range)
            if values[value].constant:
                constant.add(index)
    return constant


def check_tensor_case(tc: TensorCase) -> list[str]:
    """What makes a case ill-formed or its result undefined."""
    case = tc.case
    problems: list[str] = []
    constant_results(tc, problems)
    for map_index, m in enumerate(case.maps):
        where = f"map #{map_index}"
        shape = case.args[m.outputs[0]]
        for value in m.outputs:
            if not same_tensor(case, case.args[value], shape):
                problems.append(f"{where}: outputs of different shapes")
        for value in m.inputs:
            arg = case.args[value]
            if isinstance(arg, MemRefArg) and not broadcasts_to(
                    arg, m.rank, shape.broadcast):
                problems.append(f"{where}: input #{value} does not broadcast")
            producer = producer_of(tc, value)
            if producer is not None and producer >= map_index:
                problems.append(f"{where} reads a later result")
        for value, destination in zip(m.outputs, tc.destinations[map_index]):
            if destination is None:
                continue
            if not same_tensor(case, case.args[destination],
                               case.args[value]):
                problems.append(f"{where}: destination of another shape")
            producer = producer_of(tc, destination)
            if destination not in tc.params and (producer is None or
                                                 producer >= map_index):
                problems.append(f"{where}: destination defined later")
    arg_ranges_before(case, len(case.maps), problems)
    if not tc.returns:
        problems.append("nothing is returned")
    return problems


# --------------------------------------------------------------------------
# Rendering
# --------------------------------------------------------------------------


def ssa_name(tc: TensorCase, value: int) -> str:
    """The function-level name of a value: %t<N> for an argument or the
    result of a one-output map, %r<first>#<position> for the results of a
    map with several outputs."""
    producer = producer_of(tc, value)
    if producer is not None:
        outputs = tc.case.maps[producer].outputs
        if len(outputs) > 1:
            return f"%r{outputs[0]}#{outputs.index(value)}"
    return f"%t{value}"


def render_tensor_module(tc: TensorCase) -> str:
    case = tc.case
    params = ", ".join(f"%t{i}: {value_type(case, i)}" for i in tc.params)
    results = ", ".join(value_type(case, i) for i in tc.returns)
    lines = [f"func.func @case({params}) -> ({results}) {{"]
    constants: dict[int, str] = {}
    dims: dict[tuple[int, int], str] = {}

    def index_constant(value: int) -> str:
        if value not in constants:
            constants[value] = f"%c{value}"
            lines.append(f"  %c{value} = arith.constant {value} : index")
        return constants[value]

    def dim_of(value: int, dim: int) -> str:
        if (value, dim) not in dims:
            name = f"%dim{value}_{dim}"
            dims[(value, dim)] = name
            position = index_constant(dim)
            lines.append(f"  {name} = tensor.dim %t{value}, {position} : "
                         f"{value_type(case, value)}")
        return dims[(value, dim)]

    for map_index, m in enumerate(case.maps):
        shape = case.args[m.outputs[0]]
        sizes = arg_sizes(case, shape)
        destinations = []
        for value, destination in zip(m.outputs,
                                      tc.destinations[map_index]):
            if destination is not None:
                destinations.append(ssa_name(tc, destination))
                continue
            operands = []
            for dim, static in enumerate(shape.static_sizes):
                if static:
                    continue
                source = tc.size_sources[map_index].get(dim)
                operands.append(dim_of(*source) if source
                                else index_constant(sizes[dim]))
            name = f"%e{value}"
            lines.append(f"  {name} = tensor.empty({', '.join(operands)}) : "
                         f"{value_type(case, value)}")
            destinations.append(name)
        render = render_tensor_map if tc.form == "maps" else \
            render_linalg_generic
        lines.extend("  " + line for line in render(tc, m, destinations))
    returned = ", ".join(ssa_name(tc, i) for i in tc.returns)
    lines.append(f"  return {returned} : {results}")
    lines.append("}")
    return "\n".join(lines) + "\n"


def render_tensor_map(tc: TensorCase, m: Map,
                      destinations: list[str]) -> list[str]:
    case = tc.case
    result_types = ", ".join(value_type(case, i) for i in m.outputs)
    head = f"%t{m.outputs[0]} = pointwise.map" if len(m.outputs) == 1 else \
        f"%r{m.outputs[0]}:{len(m.outputs)} = pointwise.map"
    if m.inputs:
        names = ", ".join(ssa_name(tc, i) for i in m.inputs)
        types = ", ".join(value_type(case, i) for i in m.inputs)
        head += f" ins({names} : {types})"
    head += f" outs({', '.join(destinations)} : {result_types}) {{"
    return [head, *render_body(case, m, body_types(tc, m)),
            f"}} -> {result_types}"]


def body_types(tc: TensorCase, m: Map) -> dict[str, str]:
    """The types of the block arguments of map `m`'s inputs."""
    case = tc.case
    return {name: (case.args[i].elem if is_tensor(case, i)
                   else case.args[i].type)
            for name, i in zip(m.input_names(), m.inputs)}


def render_linalg_generic(tc: TensorCase, m: Map,
                          destinations: list[str]) -> list[str]:
    """The map as the linalg.generic it comes from: inputs of lower rank
    leave the leading loops out of their indexing maps, scalars have
    `-> ()`."""
    case = tc.case
    loops = [f"d{i}" for i in range(m.rank)]
    domain = f"({', '.join(loops)})"

    def indexing_map(index: int) -> str:
        arg = case.args[index]
        dims = loops[m.rank - arg.rank:] if isinstance(arg, MemRefArg) \
            else []
        return f"affine_map<{domain} -> ({', '.join(dims)})>"

    maps = [indexing_map(i) for i in m.inputs + m.outputs]
    iterators = ", ".join(['"parallel"'] * m.rank)
    result_types = ", ".join(value_type(case, i) for i in m.outputs)
    results = f"%t{m.outputs[0]}" if len(m.outputs) == 1 else \
        f"%r{m.outputs[0]}:{len(m.outputs)}"
    head = (f"{results} = linalg.generic {{indexing_maps = "
            f"[{', '.join(maps)}], iterator_types = [{iterators}]}}")
    if m.inputs:
        names = ", ".join(ssa_name(tc, i) for i in m.inputs)
        types = ", ".join(value_type(case, i) for i in m.inputs)
        head += f" ins({names} : {types})"
    head += f" outs({', '.join(destinations)} : {result_types}) {{"
    outs = [f"%out{position}: {case.args[i].elem}"
            for position, i in enumerate(m.outputs)]
    lines = [head, *render_body(case, m, body_types(tc, m), outs,
                                "linalg.yield")]
    lines.append(f"}} -> ({result_types})" if len(m.outputs) > 1
                 else f"}} -> {result_types}")
    return lines


def arg_specs(tc: TensorCase) -> list[str]:
    return [arg_spec(tc.case, tc.case.args[i]) for i in tc.params]


# --------------------------------------------------------------------------
# Features
# --------------------------------------------------------------------------


def tensor_features(tc: TensorCase) -> set[str]:
    case = tc.case
    features = {f"maps={min(len(case.maps), 6)}"
                f"{'+' if len(case.maps) > 6 else ''}",
                f"rank={len(case.sizes)}", f"form={tc.form}"}
    depth: dict[int, int] = {}
    for map_index, m in enumerate(case.maps):
        shape = case.args[m.outputs[0]]
        level = 1
        if len(m.outputs) > 1:
            features.add("multi-output")
        if any(shape.broadcast):
            features.add("small-map")
        for value in m.inputs:
            producer = producer_of(tc, value)
            if producer is None:
                if is_tensor(case, value):
                    arg = case.args[value]
                    if arg.rank < m.rank or any(
                            b and not s for b, s in
                            zip(arg.broadcast, shape.broadcast[m.rank -
                                                               arg.rank:])):
                        features.add("argument-broadcast")
                else:
                    features.add("scalar-input")
                continue
            level = max(level, depth[producer] + 1)
            read = case.args[value]
            if read.rank < m.rank or read.broadcast != \
                    shape.broadcast[m.rank - read.rank:]:
                features.add("result-read-through-broadcast")
            if read.elem in HALF_TYPES:
                features.add("half-intermediate")
            if sum(value in other.inputs for other in case.maps) > 1:
                features.add("result-read-by-several-maps")
            if value in tc.returns:
                features.add("result-read-and-returned")
        depth[map_index] = level
        for destination in tc.destinations[map_index]:
            if destination is None:
                continue
            features.add("destination-argument" if destination in tc.params
                         else "destination-result")
        if not all(shape.static_sizes):
            features.add("dynamic")
        for op in m.ops:
            features.add("op=" + op.name.split(".")[1])
    features.add(f"chain-depth={min(max(depth.values()), 5)}"
                 f"{'+' if max(depth.values()) > 5 else ''}")
    for value in case.args:
        if isinstance(value, MemRefArg):
            features.add(f"type={value.elem}")
    return features


# --------------------------------------------------------------------------
# Running
# --------------------------------------------------------------------------


def lit_test_text(tc: TensorCase, headline: str) -> str:
    """The case as a lit test that runs it unfused and fused and compares
    the dumped results byte for byte."""
    args = " ".join(f"--arg {shlex.quote(spec)}" for spec in arg_specs(tc))
    run = f"pw-run MODULE --entry case {args} --seed {tc.seed}"
    passes = reference_passes(tc)
    lines = [f"// {headline}", "// RUN: rm -rf %t && mkdir -p %t"]
    reference = "%s"
    if passes:
        reference = "%t/reference.mlir"
        lines.append(f"// RUN: pw-opt %s {' '.join(passes)} -o {reference}")
    lines += [f"// RUN: {run.replace('MODULE', reference)} "
              f"--dump-outputs=%t/unfused",
              f"// RUN: pw-opt %s {' '.join(passes + FUSE_PASSES)} "
              f"-o %t/fused.mlir",
              f"// RUN: {run.replace('MODULE', '%t/fused.mlir')} "
              f"--dump-outputs=%t/fused"]
    for position in range(len(tc.returns)):
        lines.append(f"// RUN: cmp %t/unfused/result{position}.bin "
                     f"%t/fused/result{position}.bin")
    return "\n".join(lines) + "\n\n" + render_tensor_module(tc)


def pw_run_command(pw_run: str, path: str, tc: TensorCase,
                   dump: str) -> list[str]:
    command = [pw_run, path, "--entry", "case"]
    for spec in arg_specs(tc):
        command += ["--arg", spec]
    return command + ["--seed", str(tc.seed), f"--dump-outputs={dump}"]


@dataclass
class TensorResult:
    index: int
    tc: Optional[TensorCase]
    outcome: object
    path: str
    fused_maps: int = -1

    @property
    def case(self):
        """What differential.Progress reports: the case's origin."""
        return self.tc.case if self.tc else Case([], [], [],
                                                 origin=str(self.index))


def count_maps(text: str) -> int:
    return len(re.findall(r"\bpointwise\.map\b", text))


CONVERT = "--pw-convert-linalg-to-pointwise"


def reference_passes(tc: TensorCase) -> list[str]:
    """The pw-opt passes that make the unfused program (none: the case as
    written) and, followed by FUSE_PASSES, the fused one."""
    return [CONVERT] if tc.form == "linalg" else []


def derived_path(path: str, kind: str) -> str:
    return path[:-len(".mlir")] + f".{kind}.mlir"


def reference_path(tc: TensorCase, path: str) -> str:
    return derived_path(path, "reference") if reference_passes(tc) else path


def transform_all(tools, paths: dict[int, str], passes: list[str],
                  kind: str) -> dict[int, Outcome]:
    """Runs pw-opt with `passes` over every case and writes each result to
    its derived path: one process for all (split input), then one per case
    if that fails, to name the culprits."""
    if not paths:
        return {}
    order = sorted(paths)
    bundle = derived_path(paths[order[0]], f"{kind}-bundle")
    Path(bundle).write_text("\n// -----\n".join(Path(paths[i]).read_text()
                                               for i in order))
    returncode, stdout, _ = differential.run(
        [tools.pw_opt, bundle, "--split-input-file", *passes],
        tools.timeout * 4)
    modules = [m for m in stdout.split("// -----") if m.strip()]
    if returncode == 0 and len(modules) == len(order):
        for index, text in zip(order, modules):
            Path(derived_path(paths[index], kind)).write_text(text)
        return {index: Outcome(PASS) for index in order}
    return {index: transform_one(tools, paths[index], passes, kind)
            for index in order}


def transform_one(tools, path: str, passes: list[str], kind: str) -> Outcome:
    returncode, _, stderr = differential.run(
        [tools.pw_opt, path, "-o", os.devnull], tools.timeout)
    verified = differential.classify_pw_opt(returncode, stderr)
    if verified.kind != PASS:
        return verified
    returncode, _, stderr = differential.run(
        [tools.pw_opt, path, *passes, "-o", derived_path(path, kind)],
        tools.timeout)
    if returncode == 0:
        return Outcome(PASS)
    what = f"pw-opt {' '.join(passes)}"
    if returncode < 0 or returncode > 1:
        return Outcome(CRASH, f"{what} died (code {returncode})\n{stderr}")
    return Outcome(ERROR, f"{what} failed\n{stderr}")


def prepare_all(tools, cases: dict[int, TensorCase],
                paths: dict[int, str]) -> dict[int, Outcome]:
    """Makes every case's reference and fused modules; the outcome per case
    is PASS when both exist and the reference holds no linalg op left
    unconverted."""
    outcomes: dict[int, Outcome] = {}
    for form in FORMS:
        group = {i: paths[i] for i in paths if cases[i].form == form}
        if not group:
            continue
        passes = reference_passes(cases[next(iter(group))])
        fused = transform_all(tools, group, passes + FUSE_PASSES, "fused")
        reference = transform_all(tools, group, passes, "reference") \
            if passes else {i: Outcome(PASS) for i in group}
        for index in group:
            outcome = reference[index]
            if outcome.kind == PASS:
                outcome = fused[index]
            if outcome.kind == PASS and passes and "linalg." in Path(
                    reference_path(cases[index], group[index])).read_text():
                outcome = Outcome(ERROR, f"{CONVERT} left linalg ops")
            outcomes[index] = outcome
    return outcomes


def run_and_dump(tools, path: str, tc: TensorCase,
                 dump: str):
    """Runs one module; an Outcome PASS means it ran and dumped results."""
    try:
        returncode, stdout, stderr = differential.run(
            pw_run_command(tools.pw_run, path, tc, dump), tools.timeout)
    except subprocess.TimeoutExpired:
        return Outcome(TIMEOUT,
                                    f"pw-run ran over {tools.timeout} s")
    detail = (stderr + stdout).strip()
    if returncode < 0 or returncode > 1:
        signal = -returncode if returncode < 0 else returncode - 128
        return Outcome(
            CRASH, f"pw-run died (signal {signal})\n{detail}")
    if returncode != 0:
        return Outcome(ERROR, detail)
    missing = [p for p in range(len(tc.returns))
               if not os.path.exists(os.path.join(dump, f"result{p}.bin"))]
    if missing:
        return Outcome(
            ERROR, f"pw-run dumped no result{missing[0]}.bin\n"
                                + detail)
    return Outcome(PASS)


# Float formats as (byte width, exponent bits, mantissa bits).
FLOAT_FORMATS = {"f16": (2, 5, 10), "bf16": (2, 8, 7), "f32": (4, 8, 23),
                 "f64": (8, 11, 52)}
NAN_BITS_DIFFER = "NaN bits differ"


def is_nan(bits: int, elem: str) -> bool:
    _, exponent, mantissa = FLOAT_FORMATS[elem]
    return (bits >> mantissa) & ((1 << exponent) - 1) == (1 << exponent) - 1 \
        and bits & ((1 << mantissa) - 1) != 0


def differing_elements(a: bytes, b: bytes, elem: str) -> tuple[list[int],
                                                               int]:
    """The elements whose bits differ, other than NaNs on both sides, and
    how many NaNs differ only in their bits (sign, payload)."""
    width = FLOAT_FORMATS[elem][0] if elem in FLOAT_FORMATS else \
        max(1, BIT_WIDTH[elem] // 8)
    differing, nan_bits = [], 0
    for start in range(0, len(a), width):
        x, y = a[start:start + width], b[start:start + width]
        if x == y:
            continue
        if elem in FLOAT_FORMATS and is_nan(int.from_bytes(x, "little"), elem) \
                and is_nan(int.from_bytes(y, "little"), elem):
            nan_bits += 1
            continue
        differing.append(start // width)
    return differing, nan_bits


def compare_dumps(tc: TensorCase, unfused: str, fused: str) -> Outcome:
    """Every returned tensor, bit for bit, except that a NaN matches any
    NaN: IEEE 754 leaves the sign and payload of a NaN that arithmetic
    makes unspecified, and compile-time folding, which fusion enables where
    an intermediate value becomes known, makes other NaN bits than the CPU
    (an x86 0/0 is negative). A pass whose NaNs differ says so in its
    detail."""
    differences = []
    nan_bits = 0
    for position, value in enumerate(tc.returns):
        name = f"result{position}.bin"
        a = Path(unfused, name).read_bytes()
        b = Path(fused, name).read_bytes()
        if a == b:
            continue
        elem = tc.case.args[value].elem
        if len(a) != len(b):
            differences.append(f"result #{position} has {len(a)} bytes "
                               f"unfused and {len(b)} fused")
            continue
        differing, nans = differing_elements(a, b, elem)
        nan_bits += nans
        if not differing:
            continue
        width = len(a) // max(1, math.prod(arg_sizes(tc.case,
                                                     tc.case.args[value])))
        first = differing[0]
        differences.append(
            f"result #{position} ({value_type(tc.case, value)}) differs in "
            f"{len(differing)} elements, first at element {first} (unfused "
            f"{a[first * width:(first + 1) * width][::-1].hex()}, fused "
            f"{b[first * width:(first + 1) * width][::-1].hex()})")
    if differences:
        return Outcome(MISMATCH, "fused and unfused results differ\n"
                       + "\n".join(differences))
    return Outcome(PASS, NAN_BITS_DIFFER if nan_bits else "")


def execute(tools, tc: TensorCase, path: str):
    unfused = path[:-len(".mlir")] + ".unfused.out"
    fused = path[:-len(".mlir")] + ".fused.out"
    for directory in (unfused, fused):
        os.makedirs(directory, exist_ok=True)
    outcome = run_and_dump(tools, reference_path(tc, path), tc, unfused)
    if outcome.kind != PASS:
        outcome.detail = "unfused module: " + outcome.detail
        return outcome
    outcome = run_and_dump(tools, derived_path(path, "fused"), tc, fused)
    if outcome.kind != PASS:
        outcome.detail = "fused module: " + outcome.detail
        return outcome
    return compare_dumps(tc, unfused, fused)


def choose_form(mode: str, index: int) -> str:
    """The form case `index` is written in: `mode`, or with "all" each form
    in turn."""
    return FORMS[index % len(FORMS)] if mode == "all" else mode


def run_tensor_cases(tools, seed: int, indices: Sequence[int],
                     jobs: int, workdir: str, known_issues: bool,
                     form: str) -> list[TensorResult]:
    results: list[TensorResult] = []
    cases: dict[int, TensorCase] = {}
    paths: dict[int, str] = {}
    for index in indices:
        try:
            tc = generate_tensor_case(seed, index, known_issues,
                                      choose_form(form, index))
        except AssertionError as error:
            results.append(TensorResult(index, None, Outcome(
                INVALID, str(error)), ""))
            continue
        path = os.path.join(workdir, f"tensor-{index:05d}.mlir")
        Path(path).write_text(lit_test_text(tc, f"Differential {tc.origin}"))
        cases[index], paths[index] = tc, path

    progress = differential.Progress(len(indices))
    for result in results:
        progress.update(result)
    prepared = prepare_all(tools, cases, paths)

    def one(index: int) -> TensorResult:
        tc, path = cases[index], paths[index]
        outcome = prepared[index]
        maps = -1
        if outcome.kind == PASS:
            maps = count_maps(Path(derived_path(path, "fused")).read_text())
            outcome = execute(tools, tc, path)
        return TensorResult(index, tc, outcome, path, maps)

    return differential.run_in_parallel(one, cases, jobs, progress, results)


def print_tensor_summary(results: list[TensorResult],
                         seed: int, jobs: int, seconds: float) -> None:
    kinds = collections.Counter(r.outcome.kind for r in results)
    passed = kinds[PASS]
    breakdown = ", ".join(f"{kinds[k]} {k}" for k in differential.FAILURE_KINDS)
    print(f"differential tensor: seed {seed}: {len(results)} cases, {passed} "
          f"passed, {len(results) - passed} failed ({breakdown}); {jobs} "
          f"jobs, {seconds:.1f} s")
    ran = [r for r in results if r.tc and r.fused_maps >= 0]
    before = sum(len(r.tc.case.maps) for r in ran)
    after = sum(r.fused_maps for r in ran)
    one = sum(r.fused_maps == 1 for r in ran)
    several = sum(len(r.tc.case.maps) > 1 for r in ran)
    fewer = sum(r.fused_maps < len(r.tc.case.maps) for r in ran)
    print(f"fusion: {before} maps became {after}; {fewer} of {len(ran)} "
          f"cases lost maps; {one} ended with one map ({several} had "
          f"several)")
    nan_cases = sum(r.outcome.detail == NAN_BITS_DIFFER for r in results)
    if nan_cases:
        print(f"{nan_cases} passed cases return NaNs whose bits differ "
              f"(compile-time folding in the fused program)")
    differential.print_feature_table(
        (tensor_features(r.tc) if r.tc else (), r.outcome) for r in results)


def report_tensor_failure(result: TensorResult) -> None:
    print(f"\n==== {result.outcome.kind}: {result.tc.origin if result.tc else result.index}")
    detail = result.outcome.detail
    print(detail if len(detail) < 4000 else detail[:4000] + "\n[...]")
    if not result.tc:
        return
    print("---- reproducer: paste into test/Integration/CPU/"
          "differential-tensor-<what>.test")
    print(lit_test_text(result.tc, f"Differential {result.tc.origin} "
                                   f"({result.outcome.kind}): fused and "
                                   f"unfused results must agree."), end="")
    print("---- end of reproducer")


def run(tools, args, indices: Sequence[int]) -> int:
    with tempfile.TemporaryDirectory(prefix="pw-differential-tensor-") as \
            scratch:
        workdir = args.keep or scratch
        os.makedirs(workdir, exist_ok=True)
        start = time.monotonic()
        if KNOWN_ISSUES and not args.known_issues:
            print("avoiding known issues (--known-issues to include): "
                  + ", ".join(KNOWN_ISSUES))
        results = run_tensor_cases(tools, args.seed, indices, args.jobs,
                                   workdir, args.known_issues,
                                   args.tensor_form)
        print_tensor_summary(results, args.seed, args.jobs,
                             time.monotonic() - start)
        failures = [r for r in results
                    if r.outcome.kind != PASS]
        representatives = differential.group_failures(failures)
        for result in representatives:
            report_tensor_failure(result)
    if failures:
        print(f"\ndifferential tensor: FAILED: {len(failures)} of "
              f"{len(results)} cases (seed {args.seed}); rerun one with "
              f"--mode tensor --only INDEX --keep DIR")
        return 1
    return 0
