#!/usr/bin/env python3
"""Static-shape programs compiled by pw-gpu-pipeline, for the benchmarks.

Two sets of entry functions, each taking its inputs and outputs as memrefs
of static shape and layout (the layout of the torch tensors or views the
benchmark passes), every one with a C interface:

- the 13 workloads of ../shared/bench/peers.py, one map each, named after
  the workload (`add_contig_f32(a, b, out)`);
- fused chains: elementwise chains written as one tensor map per op, the
  way a framework lowers them, which pw-fuse-maps fuses into one map
  (`gelu9_f32_26(x, out)`: tanh-GELU as nine ops at 2^26 elements).

    pipeline_modules.py --emit DIR   writes DIR/workloads_static.mlir and
                                     DIR/chains.mlir (here, for the bundle)

test/gpu-bundle/gpu-bundle.sh compiles them (pw-opt --pw-fuse-maps
--canonicalize --pw-gpu-pipeline, mlir-translate, llc) into
pipeline_workloads.so and pipeline_chains.so; ModuleLibrary calls their
entries from Python with torch tensors, on the runtime's current stream.
"""

import argparse
import ctypes
import functools
import pathlib

M = N = 8192
L = 1 << 26

# --------------------------------------------------------------------------
# MLIR text
# --------------------------------------------------------------------------


def memref(shape, elem, strides=None, offset=0):
    dims = "x".join(str(d) for d in shape)
    text = f"memref<{dims}x{elem}" if shape else f"memref<{elem}"
    if strides is not None:
        text += f", strided<[{', '.join(str(s) for s in strides)}]"
        text += f", offset: {offset}>" if offset else ">"
    return text + ">"


def single_map(name, operands, outputs, body, yields):
    """One function holding one memref map. operands: (ssa name, type) of
    the inputs, scalars included; outputs: (ssa name, type); body: lines
    over the block arguments %x0, %x1, ...; yields: (value, type)."""
    params = ", ".join(f"%{n}: {t}" for n, t in operands + outputs)
    ins = ", ".join(f"%{n}" for n, _ in operands)
    in_types = ", ".join(t for _, t in operands)
    outs = ", ".join(f"%{n}" for n, _ in outputs)
    out_types = ", ".join(t for _, t in outputs)
    block = ", ".join(f"%x{i}: {scalar_of(t)}"
                      for i, (_, t) in enumerate(operands))
    lines = [f"func.func @{name}({params}) attributes {{llvm.emit_c_interface}} {{",
             f"  pointwise.map ins({ins} : {in_types}) outs({outs} : {out_types}) {{",
             f"  ^bb0({block}):"]
    lines += [f"    {line}" for line in body]
    lines.append(f"    pointwise.yield {', '.join(v for v, _ in yields)} : "
                 f"{', '.join(t for _, t in yields)}")
    lines += ["  }", "  return", "}", ""]
    return "\n".join(lines)


def scalar_of(type_text):
    if type_text.startswith("memref<"):
        inner = type_text[len("memref<"):].split(",")[0].rstrip(">")
        return inner.split("x")[-1]
    return type_text


def static_workloads():
    """The 13 workloads of peers.py as static-shape functions."""
    f32 = "f32"
    add = ["%r = arith.addf %x0, %x1 : f32"]
    out_l = [("out", memref([L], f32))]
    out_mn = [("out", memref([M, N], f32))]
    gelu_body = [
        "%xf = arith.extf %x0 : f16 to f32",
        "%c0 = arith.constant 0.044715 : f32",
        "%c1 = arith.constant 0.7978845608 : f32",
        "%half = arith.constant 0.5 : f32",
        "%one = arith.constant 1.0 : f32",
        "%x2 = arith.mulf %xf, %xf : f32",
        "%x3 = arith.mulf %x2, %xf : f32",
        "%a = arith.mulf %c0, %x3 : f32",
        "%b = arith.addf %xf, %a : f32",
        "%u = arith.mulf %c1, %b : f32",
        "%t = math.tanh %u : f32",
        "%d = arith.addf %one, %t : f32",
        "%e = arith.mulf %half, %xf : f32",
        "%y = arith.mulf %e, %d : f32",
        "%r = arith.truncf %y : f32 to f16",
    ]
    base5 = [16 * 33 * 64 * 65, 33 * 64 * 65, 64 * 65, 65, 1]
    functions = [
        single_map("add_contig_f32", [("a", memref([L], f32)), ("b", memref([L], f32))],
                   out_l, add, [("%r", f32)]),
        single_map("axpy_scalar_f32", [("x", memref([L], f32)), ("y", memref([L], f32))],
                   out_l, ["%s = arith.constant 0.2 : f32",
                           "%m = arith.mulf %x0, %s : f32",
                           "%r = arith.addf %m, %x1 : f32"], [("%r", f32)]),
        single_map("bcast_row_f32", [("a", memref([M, N], f32)), ("row", memref([N], f32))],
                   out_mn, add, [("%r", f32)]),
        single_map("bcast_col_f32", [("a", memref([M, N], f32)), ("c", memref([M, 1], f32))],
                   out_mn, add, [("%r", f32)]),
        single_map("add_transposed_f32",
                   [("a", memref([M, N], f32)), ("b", memref([M, N], f32, [1, M]))],
                   out_mn, add, [("%r", f32)]),
        single_map("transpose_copy_f32", [("b", memref([M, N], f32, [1, M]))],
                   out_mn, [], [("%x0", f32)]),
        single_map("nchw_plus_nhwc_f32",
                   [("x", memref([32, 256, 56, 56], f32)),
                    ("y", memref([32, 256, 56, 56], f32,
                                 [256 * 56 * 56, 1, 56 * 256, 256]))],
                   [("out", memref([32, 256, 56, 56], f32))], add, [("%r", f32)]),
        single_map("strided_slice_f32",
                   [("a", memref([M, N], f32, [2 * N, 2])), ("b", memref([M, N], f32))],
                   out_mn, add, [("%r", f32)]),
        single_map("flip_f32", [("x", memref([M, N], f32, [-N, -1], M * N - 1))],
                   out_mn, [], [("%x0", f32)]),
        single_map("gelu_tanh_f16", [("x", memref([2 * L], "f16"))],
                   [("out", memref([2 * L], "f16"))], gelu_body, [("%r", "f16")]),
        single_map("add_bf16_f32_promote",
                   [("a", memref([L], "bf16")), ("b", memref([L], f32))], out_l,
                   ["%af = arith.extf %x0 : bf16 to f32",
                    "%r = arith.addf %af, %x1 : f32"], [("%r", f32)]),
        single_map("rank5_sliced_scalar_f32",
                   [("x", memref([8, 16, 32, 64, 64], f32, base5, 64 * 65))],
                   [("out", memref([8, 16, 32, 64, 64], f32))],
                   ["%s = arith.constant 3.0 : f32", "%t = arith.constant 1.0 : f32",
                    "%m = arith.mulf %x0, %s : f32", "%r = arith.addf %m, %t : f32"],
                   [("%r", f32)]),
        single_map("polar_2out_f32", [("rad", memref([L], f32)), ("t", memref([L], f32))],
                   [("ox", memref([L], f32)), ("oy", memref([L], f32))],
                   ["%c = math.cos %x1 : f32", "%s = math.sin %x1 : f32",
                    "%u = arith.mulf %x0, %c : f32", "%v = arith.mulf %x0, %s : f32"],
                   [("%u", f32), ("%v", f32)]),
    ]
    return "\n".join(functions)


# ---- fused chains: one tensor map per elementwise op ----


class Chain:
    """A function over memrefs whose body is tensor maps, one per op, that
    pw-fuse-maps fuses. Values are tensors of the iteration shape (or of a
    shape that broadcasts to it)."""

    def __init__(self, name, shape, elem):
        self.name, self.shape, self.elem = name, shape, elem
        self.params, self.lines, self.count = [], [], 0
        self.ops = 0

    def tensor(self, shape=None, elem=None):
        shape = self.shape if shape is None else shape
        elem = elem or self.elem
        dims = "x".join(str(d) for d in shape)
        return f"tensor<{dims}x{elem}>" if shape else f"tensor<{elem}>"

    def arg(self, name, shape=None, elem=None):
        shape = self.shape if shape is None else shape
        elem = elem or self.elem
        self.params.append((name, memref(shape, elem)))
        tensor = self.tensor(shape, elem)
        self.lines.append(f"  %{name}_t = bufferization.to_tensor %{name} "
                          f"restrict : {memref(shape, elem)} to {tensor}")
        return (f"%{name}_t", tensor, elem)

    def op(self, body, operands, result_elem=None):
        """A map over `operands` ((value, tensor type, elem) or
        (constant text, scalar type) for scalars) whose body computes
        `body` (lines over %a0, %a1, ... ending in %r)."""
        self.count += 1
        self.ops += 1
        elem = result_elem or self.elem
        out = self.tensor(elem=elem)
        empty = f"%e{self.count}"
        self.lines.append(f"  {empty} = tensor.empty() : {out}")
        ins, types, block = [], [], []
        for i, operand in enumerate(operands):
            if len(operand) == 2:            # a scalar constant
                text, scalar = operand
                cname = f"%k{self.count}_{i}"
                self.lines.append(f"  {cname} = arith.constant {text} : {scalar}")
                ins.append(cname)
                types.append(scalar)
                block.append(f"%a{i}: {scalar}")
            else:
                value, tensor, operand_elem = operand
                ins.append(value)
                types.append(tensor)
                block.append(f"%a{i}: {operand_elem}")
        result = f"%v{self.count}"
        self.lines.append(
            f"  {result} = pointwise.map ins({', '.join(ins)} : "
            f"{', '.join(types)}) outs({empty} : {out}) {{")
        self.lines.append(f"  ^bb0({', '.join(block)}):")
        self.lines += [f"    {line}" for line in body]
        self.lines.append(f"    pointwise.yield %r : {elem}")
        self.lines.append(f"  }} -> {out}")
        return (result, out, elem)

    def finish(self, value, out_name="out"):
        result, tensor, elem = value
        self.params.append((out_name, memref(self.shape, elem)))
        self.lines.append(
            f"  bufferization.materialize_in_destination {result} in restrict "
            f"writable %{out_name} : ({tensor}, {memref(self.shape, elem)}) -> ()")
        params = ", ".join(f"%{n}: {t}" for n, t in self.params)
        return "\n".join(
            [f"func.func @{self.name}({params}) attributes "
             f"{{llvm.emit_c_interface}} {{"] + self.lines
            + ["  return", "}", ""])


def binary(chain, op, a, b):
    return chain.op([f"%r = {op} %a0, %a1 : {chain.elem}"], [a, b])


def gelu9(chain, x):
    """tanh-GELU as nine elementwise ops (what a framework's decomposition
    gives): 0.5 x (1 + tanh(0.79788456 (x + 0.044715 x^3)))."""
    e = chain.elem
    x2 = binary(chain, "arith.mulf", x, x)
    x3 = binary(chain, "arith.mulf", x2, x)
    a = chain.op([f"%r = arith.mulf %a0, %a1 : {e}"], [x3, ("0.044715", e)])
    b = binary(chain, "arith.addf", x, a)
    u = chain.op([f"%r = arith.mulf %a0, %a1 : {e}"], [b, ("0.7978845608", e)])
    t = chain.op([f"%r = math.tanh %a0 : {e}"], [u])
    d = chain.op([f"%r = arith.addf %a0, %a1 : {e}"], [t, ("1.0", e)])
    h = chain.op([f"%r = arith.mulf %a0, %a1 : {e}"], [x, ("0.5", e)])
    return binary(chain, "arith.mulf", h, d)


def chain_gelu9(size_log2, elem):
    chain = Chain(f"gelu9_{elem}_{size_log2}", [1 << size_log2], elem)
    x = chain.arg("x")
    return chain.finish(gelu9(chain, x)), chain.ops


def chain_bias_gelu_dropout(size_log2, elem):
    """x[M, C] + bias[C], tanh-GELU (one op), times a keep mask (0 or 1 as
    i8, passed as a tensor) and 1 / (1 - p)."""
    cols = 1024
    rows = (1 << size_log2) // cols
    chain = Chain(f"bias_gelu_dropout_{elem}_{size_log2}", [rows, cols], elem)
    e = elem
    x = chain.arg("x")
    bias = chain.arg("bias", [cols])
    mask = chain.arg("mask", elem="i8")
    s = binary(chain, "arith.addf", x, bias)
    gelu = chain.op([
        f"%c0 = arith.constant 0.044715 : {e}",
        f"%c1 = arith.constant 0.7978845608 : {e}",
        f"%half = arith.constant 0.5 : {e}",
        f"%one = arith.constant 1.0 : {e}",
        f"%x2 = arith.mulf %a0, %a0 : {e}",
        f"%x3 = arith.mulf %x2, %a0 : {e}",
        f"%p = arith.mulf %c0, %x3 : {e}",
        f"%q = arith.addf %a0, %p : {e}",
        f"%u = arith.mulf %c1, %q : {e}",
        f"%t = math.tanh %u : {e}",
        f"%d = arith.addf %one, %t : {e}",
        f"%h = arith.mulf %half, %a0 : {e}",
        f"%r = arith.mulf %h, %d : {e}"], [s])
    keep = chain.op([f"%m = arith.sitofp %a1 : i8 to {e}",
                     f"%r = arith.mulf %a0, %m : {e}"], [gelu, mask])
    scaled = chain.op([f"%r = arith.mulf %a0, %a1 : {e}"],
                      [keep, ("1.1111111", e)])
    return chain.finish(scaled), chain.ops


LONG_INPUTS = 12


def chain_long(size_log2, elem):
    """Twelve inputs combined by add, mul, sub, min, max, a comparison and
    a select: ((a+b)*c - d) ... in 15 ops."""
    chain = Chain(f"long12_{elem}_{size_log2}", [1 << size_log2], elem)
    x = [chain.arg(f"i{k}") for k in range(LONG_INPUTS)]
    e = elem
    v = binary(chain, "arith.addf", x[0], x[1])
    v = binary(chain, "arith.mulf", v, x[2])
    v = binary(chain, "arith.subf", v, x[3])
    w = binary(chain, "arith.maximumf", x[4], x[5])
    w = binary(chain, "arith.minimumf", w, x[6])
    v = binary(chain, "arith.addf", v, w)
    u = binary(chain, "arith.mulf", x[7], x[8])
    u = binary(chain, "arith.subf", u, x[9])
    c = chain.op([f"%r = arith.cmpf ogt, %a0, %a1 : {e}"], [v, u],
                 result_elem="i1")
    s = chain.op([f"%r = arith.select %a0, %a1, %a2 : {e}"], [c, v, u])
    s = binary(chain, "arith.addf", s, x[10])
    s = binary(chain, "arith.mulf", s, x[11])
    return chain.finish(s), chain.ops


CHAINS = {
    "gelu9": chain_gelu9,
    "bias_gelu_dropout": chain_bias_gelu_dropout,
    "long12": chain_long,
}
CHAIN_CASES = [(kind, size, elem) for size in (26, 16)
               for kind, elem in (("gelu9", "f32"), ("gelu9", "bf16"),
                                  ("bias_gelu_dropout", "f32"),
                                  ("bias_gelu_dropout", "bf16"),
                                  ("long12", "f32"))]


def chains_module():
    return "\n".join(CHAINS[kind](size, elem)[0]
                     for kind, size, elem in CHAIN_CASES)


def chain_ops(kind):
    return CHAINS[kind](16, "f32")[1]


# --------------------------------------------------------------------------
# Calling the compiled entries
# --------------------------------------------------------------------------


def descriptor(t, sizes=None, strides=None, offset=0, base=None):
    """The words of a ranked memref descriptor of torch tensor `t`'s view,
    as a ctypes array: its pointer `offset` elements before `t`'s first
    element (the static offset of the entry's type), or `base`'s data when
    given, with `offset` counted from there (views torch cannot make, such
    as negative strides)."""
    sizes = list(t.shape) if sizes is None else list(sizes)
    strides = list(t.stride()) if strides is None else list(strides)
    pointer = (base.data_ptr() if base is not None
               else t.data_ptr() - offset * t.element_size())
    words = [pointer, pointer, offset] + sizes + strides
    return (ctypes.c_int64 * len(words))(*words)


class ModuleLibrary:
    """A shared library of pipeline-compiled entries: entry(*descriptors)
    calls `_mlir_ciface_<entry>` with each descriptor's address."""

    def __init__(self, path, runtime):
        # The runtime first, globally: the library's host code calls its
        # mgpu* functions and pwGetStream.
        self.runtime = ctypes.CDLL(str(runtime), mode=ctypes.RTLD_GLOBAL)
        self.library = ctypes.CDLL(str(path))
        self.path = str(path)

    def entry(self, name):
        function = getattr(self.library, "_mlir_ciface_" + name)
        function.restype = None

        def call(*descriptors):
            function(*[ctypes.byref(d) for d in descriptors])
        return call

    def bind(self, name, *descriptors):
        """A call of `name` on `descriptors` with no argument: the
        descriptors' addresses are taken once, so that each call costs the
        entry and ctypes' own dispatch only (launch-bound sizes)."""
        function = getattr(self.library, "_mlir_ciface_" + name)
        function.restype = None
        return functools.partial(function,
                                 *[ctypes.byref(d) for d in descriptors])


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--emit", metavar="DIR", required=True)
    options = parser.parse_args()
    out = pathlib.Path(options.emit)
    out.mkdir(parents=True, exist_ok=True)
    (out / "workloads_static.mlir").write_text(static_workloads())
    (out / "chains.mlir").write_text(chains_module())


if __name__ == "__main__":
    main()
