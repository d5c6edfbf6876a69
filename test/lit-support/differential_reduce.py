"""Shrinks a failing differential case while it keeps failing the same way.

Greedy, in the spirit of delta debugging: list every one-step
simplification of the case (drop a map, an output, an input, a body op, a
dim; shrink a size; make a layout plain), keep the first one that is still
a valid case and still fails, and start over until none is left. The
candidates come from the model of differential_case.py, so every step
stays well typed and free of undefined behavior by construction, and
check_case rejects the rest before anything runs.
"""

from __future__ import annotations

from typing import Callable, Iterator, Sequence

from differential_case import (
    Case, Map, MemRefArg, Op, arg_sizes, canonical_strides, check_case,
    is_float, lowest_reach, refresh_identity_layouts)

Candidate = tuple[str, Case]
Predicate = Callable[[Case], bool]
BatchEvaluator = Callable[[Predicate, Sequence[Case]], list[bool]]


def evaluate_in_order(predicate: Predicate,
                      cases: Sequence[Case]) -> list[bool]:
    return [predicate(case) for case in cases]


def reduce_case(case: Case, still_fails: Predicate,
                evaluate_batch: BatchEvaluator = evaluate_in_order,
                batch_size: int = 1, max_tests: int = 400,
                log: Callable[[str], None] = lambda message: None) -> Case:
    """The case reached by applying, as long as one exists, the first
    one-step simplification that keeps `still_fails` true. Candidates are
    tried `batch_size` at a time through `evaluate_batch` (in parallel);
    the first success in candidate order wins, so the result does not
    depend on timing. At most `max_tests` predicate calls in all."""
    tests = 0
    current = case
    while tests < max_tests:
        accepted = None
        for batch in batches(valid_candidates(current), batch_size):
            batch = batch[:max_tests - tests]
            if not batch:
                break
            tests += len(batch)
            accepted = first_failing(batch, still_fails, evaluate_batch)
            if accepted:
                break
        if accepted is None:
            break
        description, current = accepted
        log(f"reduce: {description}")
    return current


def batches(items: Iterator[Candidate],
            size: int) -> Iterator[list[Candidate]]:
    batch: list[Candidate] = []
    for item in items:
        batch.append(item)
        if len(batch) == size:
            yield batch
            batch = []
    if batch:
        yield batch


def first_failing(batch: list[Candidate], still_fails: Predicate,
                  evaluate_batch: BatchEvaluator) -> Candidate | None:
    results = evaluate_batch(still_fails, [case for _, case in batch])
    for candidate, fails in zip(batch, results):
        if fails:
            return candidate
    return None


def valid_candidates(case: Case) -> Iterator[Candidate]:
    for description, candidate in candidates(case):
        tidy(candidate)
        if not check_case(candidate):
            yield description, candidate


def candidates(case: Case) -> Iterator[Candidate]:
    """One-step simplifications, biggest first."""
    for index in range(len(case.maps)):
        if len(case.maps) > 1:
            c = case.clone()
            del c.maps[index]
            yield f"drop map #{index}", c
    for map_index, m in enumerate(case.maps):
        for position in range(len(m.outputs)):
            if len(m.outputs) > 1:
                c = case.clone()
                del c.maps[map_index].outputs[position]
                del c.maps[map_index].yields[position]
                yield f"drop output #{position} of map #{map_index}", c
        for position in range(len(m.inputs)):
            yield from drop_input(case, map_index, position)
    for dim in range(len(case.sizes)):
        yield f"drop dim {dim}", drop_dim(case, dim)
    for map_index, m in enumerate(case.maps):
        for op_index in reversed(range(len(m.ops))):
            yield from drop_op(case, map_index, op_index)
    for dim, size in enumerate(case.sizes):
        for smaller in sorted({1, size // 2, size - 1}):
            if 0 <= smaller < size and (smaller or size == 1):
                c = case.clone()
                c.sizes[dim] = smaller
                refresh_identity_layouts(c)
                yield f"dim {dim}: size {size} -> {smaller}", c
    for index, arg in enumerate(case.args):
        if isinstance(arg, MemRefArg):
            yield from simplify_layout(case, index)
        elif arg.value is None or arg.value not in ("0", "0.0", "false"):
            c = case.clone()
            c.args[index].value = zero_literal(arg.type)
            yield f"argument #{index} = {c.args[index].value}", c
    for map_index, m in enumerate(case.maps):
        for op_index, op in enumerate(m.ops):
            zero = zero_literal(op.type)
            if op.name == "arith.constant" and op.attr != zero:
                c = case.clone()
                c.maps[map_index].ops[op_index].attr = zero
                yield f"%{op.result} = 0 in map #{map_index}", c


# --------------------------------------------------------------------------
# The simplifications
# --------------------------------------------------------------------------


def zero_literal(type_name: str) -> str:
    return "0.0" if is_float(type_name) else \
        "false" if type_name == "i1" else "0"


def drop_input(case: Case, map_index: int,
               position: int) -> Iterator[Candidate]:
    """The map without one input: its uses read another block argument of
    the same type, or a constant."""
    m = case.maps[map_index]
    names = m.input_names()
    gone = names[position]
    arg = case.args[m.inputs[position]]
    type_name = arg.elem if isinstance(arg, MemRefArg) else arg.type
    replacements = [n for n, i in zip(names, m.inputs)
                    if n != gone and type_of_arg(case, i) == type_name]
    for replacement in replacements[:1] + [None]:
        c = case.clone()
        cm = c.maps[map_index]
        if replacement is None:
            replacement = fresh_name(cm)
            cm.ops.insert(0, Op(replacement, "arith.constant", [], type_name,
                                zero_literal(type_name)))
        rename_uses(cm, gone, replacement)
        del cm.inputs[position]
        # Block arguments are named by position: rename the later ones.
        old_names, new_names = names, cm.input_names()
        for old, new in zip(old_names[position + 1:], new_names[position:]):
            rename_uses(cm, old, new)
        yield f"drop input #{position} of map #{map_index}", c


def drop_op(case: Case, map_index: int, op_index: int) -> Iterator[Candidate]:
    """The body without one op: its uses read one of its operands of the
    same type, or a zero constant."""
    op = case.maps[map_index].ops[op_index]
    if op.name == "arith.constant":
        return
    values = [o for o in dict.fromkeys(op.operands)
              if value_type(case.maps[map_index], case, o) == op.type]
    for replacement in values + [None]:
        c = case.clone()
        cm = c.maps[map_index]
        del cm.ops[op_index]
        if replacement is None:
            replacement = op.result
            cm.ops.insert(op_index, Op(op.result, "arith.constant", [],
                                       op.type, zero_literal(op.type)))
        else:
            rename_uses(cm, op.result, replacement)
        yield f"drop %{op.result} ({op.name}) of map #{map_index}", c


def drop_dim(case: Case, dim: int) -> Case:
    """The case without universe dim `dim`: every map and argument that
    spans it loses it (the remaining view is its slice at index 0)."""
    c = case.clone()
    rank = len(c.sizes)
    for arg in c.args:
        if isinstance(arg, MemRefArg) and dim >= rank - arg.rank:
            local = dim - (rank - arg.rank)
            for values in (arg.broadcast, arg.strides, arg.static_sizes,
                           arg.static_strides):
                del values[local]
    for m in c.maps:
        if dim >= rank - m.rank:
            m.rank -= 1
    del c.sizes[dim]
    refresh_identity_layouts(c)
    return c


def simplify_layout(case: Case, index: int) -> Iterator[Candidate]:
    arg = case.args[index]
    if not arg.identity:
        c = case.clone()
        a = c.args[index]
        a.identity = True
        refresh_identity_layouts(c)
        yield f"argument #{index}: identity layout", c
    statics = arg.static_sizes + arg.static_strides + [arg.static_offset]
    if not all(statics):
        c = case.clone()
        a = c.args[index]
        a.static_sizes = [True] * a.rank
        a.static_strides = [True] * a.rank
        a.static_offset = True
        yield f"argument #{index}: static type", c
    if any(arg.broadcast):
        c = case.clone()
        c.args[index].broadcast = [False] * arg.rank
        c.args[index].strides = canonical_strides(
            [s for s in c.sizes[len(c.sizes) - arg.rank:]])
        c.args[index].offset = 0
        yield f"argument #{index}: no size-1 broadcast", c
    lowest = lowest_reach(arg_sizes(case, arg), arg.strides, arg.offset)
    if not arg.identity and lowest > 0:
        c = case.clone()
        c.args[index].offset -= lowest
        yield (f"argument #{index}: offset {arg.offset} -> "
               f"{arg.offset - lowest}", c)
    if not arg.identity:
        c = case.clone()
        a = c.args[index]
        a.strides = [abs(s) for s in a.strides]
        a.offset = 0
        if a.strides != arg.strides or arg.offset:
            yield f"argument #{index}: positive strides, offset 0", c


def tidy(case: Case) -> None:
    """Removes what a simplification left dead: unused body ops, unused
    arguments; keeps identity layouts in step with the sizes."""
    for m in case.maps:
        remove_dead_ops(m)
    used = sorted({i for m in case.maps for i in m.inputs + m.outputs})
    if used != list(range(len(case.args))):
        renumber = {old: new for new, old in enumerate(used)}
        case.args = [case.args[i] for i in used]
        for m in case.maps:
            m.inputs = [renumber[i] for i in m.inputs]
            m.outputs = [renumber[i] for i in m.outputs]
    refresh_identity_layouts(case)
    for m in case.maps:
        renumber_ops(m)


def remove_dead_ops(m: Map) -> None:
    live = set(m.yields)
    kept = []
    for op in reversed(m.ops):
        if op.result in live:
            kept.append(op)
            live.update(op.operands)
    m.ops = kept[::-1]


def renumber_ops(m: Map) -> None:
    """Results named %v0, %v1, ... in order, as the generator names them."""
    mapping = {op.result: f"v{i}" for i, op in enumerate(m.ops)}
    temporary = {old: f"__{new}" for old, new in mapping.items()}
    for old, tmp in temporary.items():
        rename_uses(m, old, tmp, rename_results=True)
    for old, new in mapping.items():
        rename_uses(m, temporary[old], new, rename_results=True)


def rename_uses(m: Map, old: str, new: str,
                rename_results: bool = False) -> None:
    for op in m.ops:
        op.operands = [new if o == old else o for o in op.operands]
        if rename_results and op.result == old:
            op.result = new
    m.yields = [new if v == old else v for v in m.yields]


def fresh_name(m: Map) -> str:
    taken = {op.result for op in m.ops}
    n = 0
    while f"c{n}" in taken:
        n += 1
    return f"c{n}"


def type_of_arg(case: Case, index: int) -> str:
    arg = case.args[index]
    return arg.elem if isinstance(arg, MemRefArg) else arg.type


def value_type(m: Map, case: Case, value: str) -> str | None:
    for name, index in zip(m.input_names(), m.inputs):
        if name == value:
            return type_of_arg(case, index)
    for op in m.ops:
        if op.result == value:
            return op.type
    return None


def case_size(case: Case) -> tuple[int, int, int, int]:
    """How big a case is, for messages: maps, arguments, ops, rank."""
    return (len(case.maps), len(case.args),
            sum(len(m.ops) for m in case.maps), len(case.sizes))

