//===- Passes.td - Conversions to and from pointwise.map ---*- tablegen -*-===//
//
// Part of the pointwise project.
//
//===----------------------------------------------------------------------===//

#ifndef POINTWISE_CONVERSION_PASSES_TD
#define POINTWISE_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def ConvertLinalgToPointwisePass : Pass<"pw-convert-linalg-to-pointwise"> {
  let summary = "Converts elementwise linalg ops to pointwise.map";
  let description = [{
    Replaces every elementwise structured op by a `pointwise.map` of the
    same form, memrefs or tensors: `linalg.generic`, `linalg.map`,
    `linalg.elementwise`, `linalg.transpose`, `linalg.broadcast`,
    `linalg.copy` and `linalg.fill`, and any other op of the `LinalgOp`
    interface that satisfies the rules below. An op converts when

    - all its loops are parallel and it has at least one output;
    - every output's indexing map is a permutation of the loops, and every
      input's a projected permutation, whose results may also be the
      constant 0 (the broadcast form `tosa-to-linalg` emits);
    - its body uses no `linalg.index`, captures from above only scalars, and
      the resulting map verifies: side-effect-free scalar code on the types
      a map body takes, over memrefs or tensors of the element types the
      dialect takes (i1, i8, i16, i32, i64, f16, bf16, f32, f64). So a body
      with `tensor.extract`, or operands of `f8`, `i4` or `complex` elements,
      leave the op as it is.

    The map's iteration space is output #0 with its dims in order; the
    loops follow that order. Every other operand becomes a view whose dims
    line up with it under the map's NumPy broadcasting, so no data moves:

    - an input that omits loops gets unit dims where loops are missing
      after its first dim (`memref.expand_shape`, `tensor.expand_shape`),
      and none where they are missing in front (the map broadcasts leading
      dims); a dim that the map indexes with the constant 0 takes the place
      of a missing loop when its size is 1, and is sliced to size 1 first
      otherwise (`memref.subview`, `tensor.extract_slice`);
    - a memref operand whose dims are in another order than the loops,
      input or output, is permuted with `memref.transpose`, a strided view;
    - an input of rank 0 stays a rank-0 input, which broadcasts to every
      element; one whose dims are all such units becomes a rank-0 view of
      its element (`memref.subview`, `tensor.extract_slice`). A view, not a
      load: under `pw-gpu-pipeline` the element is in GPU memory, which the
      host code cannot read. Scalar operands such as `linalg.fill`'s value
      become scalar inputs; scalars that the body captures become scalar
      inputs too, and captured constants are cloned into the body.

    Tensors have no transposing view: `tensor.expand_shape` and
    `tensor.extract_slice` bufferize to views, but a permutation of a tensor
    is `linalg.transpose`, a copy, and a tensor-to-buffer round trip with
    `memref.transpose` would hide from one-shot bufferization that the
    view aliases its source, which may then be overwritten in place while
    the map reads it. A tensor op with an operand whose dims are not in the
    loops' order is therefore left as it is; bufferizing first, then
    converting the memref form, turns it into a map of strided views.

    A body that reads an output's block argument gets that output as an
    extra input: the same view of the buffer (exact aliasing, which the map
    allows), or the destination tensor. A memref op whose input partially
    overlaps an output (`ins(%a) outs(%a)` through a transpose) converts
    too, into a map that the run-time overlap checks reject: linalg runs
    such an op in the order of its loops, a map promises no order.

    ```mlir
    %r = linalg.generic {
        indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>,
                         affine_map<(d0, d1, d2) -> (d0, d1, d2)>],
        iterator_types = ["parallel", "parallel", "parallel"]}
        ins(%a : tensor<4x8xf32>) outs(%init : tensor<4x5x8xf32>) {
    ^bb0(%x: f32, %out: f32):
      %0 = arith.addf %x, %out : f32
      linalg.yield %0 : f32
    } -> tensor<4x5x8xf32>
    ```

    becomes

    ```mlir
    %e = tensor.expand_shape %a [[0, 1], [2]] output_shape [4, 1, 8]
        : tensor<4x8xf32> into tensor<4x1x8xf32>
    %r = pointwise.map ins(%e, %init : tensor<4x1x8xf32>, tensor<4x5x8xf32>)
                       outs(%init : tensor<4x5x8xf32>) {
    ^bb0(%x: f32, %out: f32):
      %0 = arith.addf %x, %out : f32
      pointwise.yield %0 : f32
    } -> tensor<4x5x8xf32>
    ```
  }];
  let dependentDialects = ["::pointwise::PointwiseDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::tensor::TensorDialect"];
}

def LowerToLoopsPass : Pass<"pw-lower-to-loops"> {
  let summary = "Lowers pointwise.map to scf.for loops with memref loads and "
                "stores";
  let description = [{
    Replaces every `pointwise.map` by a nest of `scf.for` loops over its
    iteration space, outermost dim first. Each iteration loads one element of
    every memref input, evaluates a copy of the body with those values and
    the scalar inputs (f16/bf16 arithmetic in f32, as the op specifies), and
    stores the yielded values into the outputs.

    The lowering accepts maps in any form, canonical or not: an input with
    fewer dims reads with the trailing induction variables, and an input dim
    that broadcasts reads index 0 (a dim of dynamic size reads
    `size == 1 ? 0 : i`). Applied to a map that no other pass touched, it is
    the project's *reference lowering*: naive loops over the original
    iteration space with the original strides, the oracle that
    `pw-run --check` and the differential tests compare against.

    ```mlir
    pointwise.map ins(%a : memref<4xf32>) outs(%c : memref<4xf32>) {
    ^bb0(%x: f32):
      %0 = arith.negf %x : f32
      pointwise.yield %0 : f32
    }
    ```

    becomes

    ```mlir
    scf.for %i = %c0 to %c4 step %c1 {
      %x = memref.load %a[%i] : memref<4xf32>
      %0 = arith.negf %x : f32
      memref.store %0, %c[%i] : memref<4xf32>
    }
    ```
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::scf::SCFDialect"];
}

def LowerToGpuPass : Pass<"pw-lower-to-gpu", "::mlir::ModuleOp"> {
  let summary = "Moves the tiled loops of pw-tile into GPU kernels";
  let description = [{
    Turns every block-mapped `scf.parallel` produced by `pw-tile` into a
    `gpu.launch` whose grid is the block loop's trip count and whose block is
    the thread loops' (consecutive thread loops are separated by
    `gpu.barrier`; block-local buffers become workgroup attributions), then
    outlines the launches with upstream's
    `gpu-kernel-outlining` into `gpu.module`/`gpu.func` and
    `gpu.launch_func`. The strategy is kept on the kernel as
    `pointwise.strategy`.

    Kernel code that NVPTX cannot compile is rejected with a diagnostic
    before anything changes: conversions between floating point and
    integers wider than 64 bits (`arith.fptosi`, `arith.fptoui`,
    `arith.sitofp`, `arith.uitofp`), for which NVPTX has no library to call
    and LLVM would abort.

    Kernel arguments that are memrefs only read by the kernel get
    `llvm.noalias` and `llvm.readonly`, so that, with the bare-pointer
    calling convention, NVPTX loads them with `ld.global.nc` where
    `pw-hint-global-loads` leaves the loads plain (docs/Performance.md, row
    `readonly-nc`). Exact aliasing of an input and an output, the in-place
    case, stays correct: each element is read before the same thread
    writes it.

    Kernels carry no `.maxntid`: the block size that outlining records is
    removed, so that ptxas does not trade registers for full occupancy and
    spill (docs/Performance.md, row `no-maxntid`).

    With `transpose-blocks-per-sm` N > 0, a kernel with block-local buffers
    (the transpose strategy's tiles) is launched with dynamic shared memory
    it does not use, so that shared memory lets at most N of its blocks be
    resident per multiprocessor: the host code calls the runtime's
    `pwOccupancySharedMemory(static bytes, N)` (declared in the module),
    which sizes that padding from the current device's shared memory per
    multiprocessor (PTX can only ask for a minimum of resident blocks). It
    picks the least padding that keeps N + 1 blocks out, so that the driver
    configures as little shared memory, and as much L1, as N blocks allow
    (docs/Performance.md, row `occupancy-padding`). The pass itself
    defaults to no cap; `pw-gpu-pipeline`, kernel families and `pw-compile`
    cap at 3 (docs/Performance.md, row `transpose-blocks-per-sm`). Linear
    kernels have no such buffers and get no padding.
  }];
  let options = [
    Option<"transposeBlocksPerSM", "transpose-blocks-per-sm", "int64_t",
           /*default=*/"0",
           "Resident blocks per multiprocessor that kernels with "
           "shared-memory tiles are capped at, through dynamic shared memory "
           "sized at launch (0: no cap)">,
  ];
  let dependentDialects = ["::mlir::gpu::GPUDialect",
                           "::mlir::func::FuncDialect",
                           "::mlir::arith::ArithDialect"];
}

def StripRoundingGuardsPass
    : Pass<"pw-strip-rounding-guards", "::mlir::gpu::GPUModuleOp"> {
  let summary = "Removes the negations around the roundings that "
                "pw-fuse-maps guards";
  let description = [{
    `pw-fuse-maps` rounds a fused producer's f16/bf16 results as
    `-truncf(-v)` (the same bits: rounding to nearest even is symmetric), so
    that canonicalization cannot fold the rounding of an int-to-float
    conversion into a narrower conversion. In op math the consumer reads
    that value widened, `-extf(truncf(-v))`, which LLVM does not cancel:
    it moves the outer negation into the consumer (`x * -x` for the
    square of a guarded `x`) and can then no longer compute the consumer
    in bf16 or f16 (NVPTX's packed `mul.rn.bf16x2` and friends).

    This pass rewrites `-extf(truncf(-v))` into `extf(truncf(v))`, and
    `-truncf(-v)` into `truncf(v)`, for roundings to nearest even. It runs
    on a `gpu.module` after the pipeline's last canonicalization, right
    before `convert-gpu-to-nvvm`, where no fold can undo a rounding any
    more; a pipeline that canonicalizes after it loses what the guards
    protect.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
}

def MergeGpuModulesPass : Pass<"pw-merge-gpu-modules", "::mlir::ModuleOp"> {
  let summary = "Moves the kernels of a module's gpu.modules into one";
  let description = [{
    Kernel outlining gives every kernel a `gpu.module` of its own, and
    `gpu-module-to-binary` compiles each `gpu.module` on its own: one NVPTX
    run, one `ptxas` process and one `fatbinary` process per kernel, each
    with a start-up cost of its own (`ptxas` alone about 15 ms on the
    development machine; docs/Performance.md, row `merged-gpu-modules`),
    and libdevice linked into every module that calls it. This pass moves
    the contents of the top-level `gpu.module`s that have the same targets
    and attributes into the first of them, so that they compile as one
    binary that the host loads once, and points the `gpu.launch_func` ops
    at it. The kernels' code is unchanged: each is compiled as before, in
    a module with the others.

    Symbols that two modules both define (libdevice declarations, the
    helper functions outlining copies into each module) are kept once when
    they are the same operation; a symbol of the same name that differs is
    renamed, with its uses, before it moves. A module with one `gpu.module`,
    or none, is left as it is.
  }];
  let dependentDialects = ["::mlir::gpu::GPUDialect"];
}

def HintGlobalLoadsPass
    : Pass<"pw-hint-global-loads", "::mlir::gpu::GPUModuleOp"> {
  let summary = "Gives the kernels' global loads an L2 cache policy";
  let description = [{
    Runs on a `gpu.module` whose kernels are in the LLVM dialect (after
    `convert-gpu-to-nvvm`). Every `llvm.load` of 2, 4, 8 or 16 bytes, aligned
    to its size, whose address derives (through `llvm.getelementptr` and
    `llvm.addrspacecast`) from a kernel argument becomes inline PTX with
    the cache policy of the `policy` option. With the default,
    `evict-last`, each kernel makes one L2 policy register at its entry and
    its loads carry the L1 evict_last priority and that policy, as the loads
    PyTorch Inductor's Triton kernels issue for inputs they mark
    `evict_last`:

    ```mlir
    %v = llvm.load %p {alignment = 16 : i64} : !llvm.ptr -> vector<4xf32>
    ```

    becomes, in a kernel without a recorded launch size, two
    `llvm.inline_asm` ops, the policy at the kernel's entry and the load
    (marked `has_side_effects`), whose PTX is

    ```
    createpolicy.fractional.L2::evict_last.b64 policy, 1.0;
    ld.global.L1::evict_last.L2::cache_hint.v4.b32 {a, b, c, d}, [p], policy;
    ```

    and whose four registers are packed into a `vector<4xi32>` and bitcast
    to `vector<4xf32>`.

    The policies:

    - `evict-last` (default): L1 evict_last and the L2 policy, on the
      coherent path (`ld.global`, not `ld.global.nc`, also for arguments
      marked `llvm.noalias` and `llvm.readonly`) (docs/Performance.md, row
      `hint-policy`).
    - `l2-evict-last`: the L2 policy alone; `l1-evict-last`: the L1
      priority alone. Each is one half of `evict-last`.
    - `none`: every load stays as NVPTX emits it, plain `ld.global`, or
      `ld.global.nc` for arguments the kernel only reads.

    The rules:

    - The L2 policy follows the launch's size: a kernel on which
      `pw-lower-to-gpu` recorded `pointwise.input_bytes_per_block` computes
      grid size x bytes per block at its entry and takes the evict_last
      policy when that reaches `evict-last-min-bytes` (64 MiB by default),
      an `evict_normal` one below; kernels without the record always take
      evict_last (docs/Performance.md, row `hint-min-bytes`).
    - A kernel whose `pointwise.instructions_per_byte` (the estimate pw-tile
      records, see `WorkEstimate.h` and docs/Performance.md, row
      `work-estimate`) exceeds `max-instructions-per-byte` (7.25 by
      default) keeps plain loads; kernels without the record are hinted
      (docs/Performance.md, row `hint-max-instructions-per-byte`).
    - A kernel that addresses more than one workgroup buffer (pw-tile's
      transpose strategy staging two or more inputs through shared-memory
      tiles) keeps plain loads (docs/Performance.md, row
      `hint-multi-buffer`).
    - Loads of 1 byte (`i8`, `i1`), misaligned loads, volatile or atomic
      ones, and loads whose address does not come from an argument stay as
      they are.
    - Stores are never rewritten (docs/Performance.md, row `store-policy`).
    - The inline assembly is marked as having side effects, so LLVM keeps
      it in program order and never speculates it out of the branch that
      guards it: the vector path of pw-tile loads vectors only where the
      host checked alignment.

    Lines loaded with the evict_last policy stay marked after the kernel:
    they outlive later traffic of normal priority until other evict_last
    traffic displaces them or the program calls
    `cuCtxResetPersistingL2Cache`, so a kernel that reads the same memory
    next may find part of it in L2.
  }];
  let options = [
    Option<"policy", "policy", "::pointwise::LoadPolicy",
           /*default=*/"::pointwise::LoadPolicy::EvictLast",
           "Cache policy of global loads: evict-last (L1 evict_last and an "
           "L2 evict_last policy), l1-evict-last, l2-evict-last or none",
           "::pointwise::loadPolicyValues()">,
    Option<"minBytes", "evict-last-min-bytes", "int64_t",
           /*default=*/"int64_t(64) << 20",
           "Bytes of input a launch must read for the L2 evict_last policy "
           "(kernels that record their bytes per block); smaller launches "
           "load with evict_normal (non-negative)">,
    Option<"maxInstructionsPerByte", "max-instructions-per-byte", "double",
           /*default=*/"7.25",
           "Kernels whose recorded estimate of instructions per byte moved "
           "is above this keep plain loads">,
  ];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect",
                           "::mlir::NVVM::NVVMDialect"];
}

def Bf16MathToNVVMPass
    : Pass<"pw-bf16-math-to-nvvm", "::mlir::gpu::GPUModuleOp"> {
  let summary = "Computes tanh of bf16 values, and tanh inside f32 "
                "computations of one bf16 number, with the GPU's exp2 and "
                "reciprocal units, exactly rounded";
  let description = [{
    Runs on a `gpu.module` before `convert-gpu-to-nvvm`, which would call
    libdevice's `__nv_tanhf` for every `math.tanh` (about 17 instructions
    per element, the bulk of a bf16 tanh-GELU kernel). A `math.tanh` on
    f32 (or a vector of f32) qualifies when its operand holds a bf16 number
    (an `arith.extf` from bf16, possibly negated or made absolute) and
    every use rounds the result to bf16 (an `arith.truncf` to bf16 with the
    default rounding, possibly through `arith.negf` or `math.absf`, or an
    `arith.cmpf uno`/`ord`): the body of a map on bf16 operands in op math. It becomes

    ```
    tanh(x) = |x| < 1/16 ? x : 1 - 2 / (2^(x * 2/ln 2) + 1)
    ```

    with the PTX instructions `ex2.approx.ftz.f32` and
    `rcp.approx.ftz.f32` (vectors lane by lane), five instructions and a
    select. The f32 result is not tanh's to f32 precision, but its rounding
    to bf16 is the correctly rounded bf16 tanh of every bf16 input: that
    holds for every bf16 input when `ex2` and `rcp` err by up to 2^-21
    relative, about twice what PTX documents for them
    (`test/Conversion/PointwiseToGPU/bf16-tanh-rounding.py` proves it over
    all 65,536 inputs; `test/Integration/CPU/bf16-tanh-all-inputs.mlir`
    checks it on the GPU against libm; `docs/Performance.md`, row
    `bf16-tanh`). Below 1/16, tanh(x) rounds to x itself in
    bf16. libdevice's `tanhf` rounds to the same bf16 values.

    f16 has three more significant bits; this sequence misrounds some f16
    inputs between 0.03 and 0.1, so f16 keeps libdevice's `tanhf`.

    A `math.tanh` inside the f32 computation of one bf16 number, whose
    results are all rounded to bf16 (a tanh-GELU `0.5 x (1 + tanh(u(x)))`
    in op math: the tanh's operand is computed from one `arith.extf` from
    bf16 and constants by `arith.addf`, `subf`, `mulf`, `divf`, `negf`,
    `math.absf`, `math.fma` and `math.tanh`, and its result reaches only
    such ops and `arith.truncf` to bf16), becomes libdevice's
    large-argument branch alone:

    ```
    tanh(x) = |x| < 2^-12 ? x
            : copysign(|x| >= 9.0109 ? 1 : 1 - 2 / (2^(|x| * 2/ln 2) + 1), x)
    ```

    libdevice's `tanhf` computes |x| >= 0.6 by exactly these instructions
    and |x| < 0.6 by an odd polynomial, about eight instructions more. The
    pass replaces the tanh only where it proves that no rounded result
    changes: it tries all 65,536 inputs of the computation with bounds on
    every f32 value (each add, multiply and divide rounded to nearest, as
    NVPTX emits them without fast-math flags, or not rounded where a
    `contract` flag allows an fma, while any other fast-math flag keeps
    libdevice's `tanhf`; libdevice's `tanhf` within its
    documented 2 ulp; `ex2` and `rcp` within 2^-21), skipping inputs whose
    tanh operand is at least 0.6 in magnitude or NaN, where both compute
    the same bits. An input whose bounds round to more than one bf16
    value, or to another than the reference's, keeps libdevice's `tanhf`
    for the whole computation. The answer is remembered per process by the
    computation's form (a kernel repeats its body per lane and per path, a
    family per variant): about 20 ms per new form on the development
    machine. The tanh-GELU passes the check; `1 + tanh(x)` and
    `tanh(x) - x` do not (`test/Conversion/PointwiseToGPU/
    bf16-function-tanh.mlir`); on the GPU the GELU's results on all 65,536
    inputs are those of libdevice's `tanhf` bit for bit (`docs/
    Performance.md`, row `bf16-gelu-tanh`).

    In a `gpu.module` whose NVVM target flushes subnormals (`ftz`), where
    libdevice's polynomial flushes too, this second rewrite is not made.
    f32 tanh of f32 numbers, and a tanh whose f32 result is used
    unrounded, are left as they are.
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect",
                           "::mlir::NVVM::NVVMDialect",
                           "::mlir::vector::VectorDialect"];
}

def LaunchOnCurrentStreamPass
    : Pass<"pw-launch-on-current-stream", "::mlir::ModuleOp"> {
  let summary = "Makes host launches asynchronous on the runtime's current "
                "stream";
  let description = [{
    Runs after `gpu-to-llvm`. Every `gpu.launch_func` without a stream gets
    the stream returned by the runtime's `pwGetStream()` (the calling
    thread's current stream, see `docs/Runtime.md`) as its async object.
    The translation to LLVM IR then launches on that stream and returns at
    once, instead of creating a stream, synchronizing and destroying it at
    every launch. This is how `pw-compile` and `pw-run --target=cuda` build
    host code: a call costs one driver launch, like a PyTorch operator.

    The streams that host code creates for its own asynchronous GPU
    operations (`gpu.wait async` becomes `mgpuStreamCreate`, as for the
    allocations `pw-place-buffers-on-device` makes) become that current
    stream as well, and the calls that would synchronize and destroy them
    are removed: allocations, releases and launches are ordered on one
    stream, and the function returns without waiting, like the launches.
    Their allocations and releases call the runtime's `pwMemAllocOnStream`
    and `pwMemFreeOnStream` instead of `mgpuMemAlloc` and `mgpuMemFree`:
    those take a null stream for a synchronous call, while the current
    stream is null when it is the legacy default stream, on whose order the
    memory still belongs. The memory comes from the runtime's pool, which
    keeps freed memory for the next call (`docs/Runtime.md`).
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}

#endif // POINTWISE_CONVERSION_PASSES_TD
