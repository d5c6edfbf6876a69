//===- Passes.td - Passes on pointwise.map ------------------*- tablegen -*-===//
//
// Part of the pointwise project.
//
//===----------------------------------------------------------------------===//

#ifndef POINTWISE_DIALECT_POINTWISE_TRANSFORMS_PASSES_TD
#define POINTWISE_DIALECT_POINTWISE_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def CanonicalizeBroadcastPass : Pass<"pw-canonicalize-broadcast"> {
  let summary = "Gives every memref input the iteration shape, with explicit "
                "stride-0 broadcast dims";
  let description = [{
    Rewrites each memref input of every `pointwise.map` into the canonical
    form the later passes and lowerings expect: the rank of the iteration
    space, and the iteration space's size in every dim. Broadcasting becomes
    explicit in the strides, through a `memref.reinterpret_cast` of the
    input:

    - a missing leading dim gets stride 0;
    - a dim of static size 1 that broadcasts gets stride 0;
    - a dim of dynamic size gets the stride `size == 1 ? 0 : stride`, chosen
      at run time, so an input that turns out to be of size 1 broadcasts.

    Scalars, outputs and inputs already in canonical form are left alone;
    running the pass twice changes nothing.

    Example:

    ```mlir
    pointwise.map ins(%row : memref<8xf32>) outs(%c : memref<4x8xf32>) { ... }
    ```

    becomes

    ```mlir
    %b = memref.reinterpret_cast %row to offset: [0], sizes: [4, 8],
        strides: [0, 1] : memref<8xf32> to memref<4x8xf32, strided<[0, 1]>>
    pointwise.map ins(%b : memref<4x8xf32, strided<[0, 1]>>)
                  outs(%c : memref<4x8xf32>) { ... }
    ```

    A dynamic size that is neither 1 nor the iteration size is a user error
    the pass cannot see, and the lowered code does not check it: the
    runtime's layout check reports it before a kernel runs, and `pw-run`
    makes the same check on the CPU before it calls the function. Other
    callers of CPU-lowered code must pass layouts that broadcast.

    Under an op with the unit attribute `pointwise.broadcast_resolved`, the
    caller guarantees that dynamic sizes already equal the iteration sizes
    (the runtime's dispatch resolves broadcasting into stride-0 dims before
    it calls a kernel family's variant): those dims are kept, and static
    strides stay static.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::memref::MemRefDialect"];
}

def CoalesceDimsPass : Pass<"pw-coalesce-dims"> {
  let summary = "Reorders the iteration space into memory order and merges "
                "dims that are contiguous for every operand";
  let description = [{
    Applies the layout algebra (`docs/Layout.md`) to every `pointwise.map`
    whose sizes and strides are all static: the dims are permuted into the
    operands' common memory order (PyTorch's rule: outputs first, stride-0
    entries skipped), unit dims are dropped, and adjacent dims are merged
    when `size[inner] * stride[inner] == stride[outer]` holds for every
    operand. Every memref operand is then reinterpreted
    (`memref.reinterpret_cast`, offsets unchanged) with the coalesced sizes
    and its own coalesced strides, so the map addresses exactly the same
    elements in the same input/output correspondence with fewer dims.

    Two contiguous tensors become rank 1; a transposed operand (`a + b.T`)
    keeps rank 2; NCHW + NHWC becomes a rank-3 batched transpose; a fully
    flipped tensor becomes rank 1 with stride -1.

    Example:

    ```mlir
    pointwise.map ins(%a, %b : memref<4x8xf32>, memref<4x8xf32>)
                  outs(%c : memref<4x8xf32>) { ... }
    ```

    becomes a map over `memref<32xf32, strided<[1]>>` operands.

    Maps with dynamic sizes or strides are left unchanged: the runtime runs
    the same algebra on the actual layout and dispatches to a kernel compiled
    for the coalesced rank (see `docs/Layout.md`). Offsets may be dynamic.
    Inputs are broadcast to the iteration space as part of the analysis, so
    the pass also accepts maps that did not go through
    `pw-canonicalize-broadcast`.
  }];
  let dependentDialects = ["::mlir::memref::MemRefDialect"];
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

def TilePass : Pass<"pw-tile"> {
  let summary = "Chooses a GPU strategy per map and materializes it as tiled "
                "loops mapped to blocks and threads";
  let description = [{
    Replaces every `pointwise.map` (best after `pw-coalesce-dims`) by a
    block-mapped `scf.parallel` over the grid
    and a thread-mapped `scf.parallel` over a block, whose body computes the
    elements of one thread. The chosen strategy is recorded on the block
    loop as `pointwise.strategy`:

    - `linear`: every memref operand has stride 1 or 0 along the fastest
      (last) dim. Each thread moves `unroll` vectors of `vector-bytes`
      bytes per operand with `vector.load`/`vector.store` carrying an
      `alignment` attribute; all loads of a thread are issued before any
      compute. A uniform run-time test (first elements, row strides and the
      last size all multiples of the vector) selects the vector path; at
      rank 1 the operands need only be equally misaligned (`a[k:] + b[k:]`):
      the first threads peel the scalar head up to the vector boundary.
      With run-time strides, each operand decides on the host: whole
      aligned vectors when its last stride is 1 and it shares the alignment,
      otherwise its lanes one by one along its stride (`a[:, ::2]`, flips,
      misaligned rows), so the other operands keep their vectors.
      Otherwise, and for a partial last block, a scalar path with bounds
      checks computes the same elements; full blocks of it load every
      element's inputs before computing.
    - `transpose`: an input is contiguous along another dim than the
      outputs (`a + b.T`, transpose copy, NCHW + NHWC). The iteration space
      is cut into E x E tiles (E = `tile-edge`, 64 by default) of that dim
      (P) and the last one (L); other dims are a batch taken from the block
      index. A first thread loop of 256 threads stages each transposed
      input (statically contiguous along P) into an E x (E + 1) buffer
      (padded against shared-memory bank conflicts) with reads coalesced
      along P; a second one reads the other inputs directly and computes
      and writes coalesced along the outputs' last dim. The buffers are
      allocated before the block loop and marked `pointwise.block_local`:
      `pw-lower-to-gpu` gives each block its own copy in workgroup memory
      and separates the two thread loops by a barrier. Interior tiles move
      16-byte vectors in global memory (along P into the buffers, along L
      out of them) when a uniform run-time test finds every operand's
      first element and strides across vectors multiples of the vector,
      and the directly read inputs contiguous along L; otherwise, and for
      i1 operands, one element per access, with bounds checks at the edge
      tiles.
    - `general`: any layout. One element per step, `unroll` steps per
      thread, coalesced across threads along the iteration order.

    Operands are addressed through flat 1-D views of their buffers
    (`memref.reinterpret_cast` to `memref<?xT, strided<[1]>>` from the
    aligned pointer) at element offsets `offset + sum(index * stride)`,
    computed in `index-bitwidth` bits: 32 when every operand's reachable
    offsets fit in int32 (decided from static layouts, or forced by the
    option for dynamic ones), 64 otherwise. With 32 bits, divisions of the
    linear index by run-time sizes use a magic multiplier and shift the
    host computes once per size (multiply-high, add, shift per thread).

    The scalar body is cloned once per element; f16 and bf16 values are
    computed in f32 and rounded once when stored.

    An enclosing op (usually the function) can override three options for
    the maps inside it with the attributes `pointwise.tile_strategy` (a
    string), `pointwise.tile_index_bitwidth` and `pointwise.tile_vector_bytes`
    (integers); `pw-compile` uses them to build a family of variants of one
    function in a single pass run.

    Inputs are addressed with their own strides, so broadcasting must be
    spelled out as stride-0 dims at the iteration rank: the pass first
    applies `pw-canonicalize-broadcast`'s rewrite to each map, which changes
    nothing on a map that already went through it (as in the pipelines).
    Indices are compared unsigned: in a 32-bit kernel the last block's
    elements past the end may reach 2^31 and must still fail the bounds
    test.
  }];
  let options = [
    Option<"strategy", "strategy", "std::string", /*default=*/"\"auto\"",
           "Strategy to use: auto, linear, transpose or general">,
    Option<"blockSize", "block-size", "int64_t", /*default=*/"0",
           "Threads per block of the linear and general strategies (1 to "
           "1024), or 0 (auto) to decide per map: 256 for linear maps of "
           "rank 1 whose memref operands all have 4-byte elements, 128 "
           "otherwise">,
    Option<"vectorBytes", "vector-bytes", "int64_t", /*default=*/"0",
           "Bytes per vector access of the linear strategy (a power of two "
           "up to 32), or 0 (auto) to decide per map: 8 for linear maps of "
           "rank 1 whose memref operands all have 4-byte elements, 16 "
           "otherwise">,
    Option<"unroll", "unroll", "int64_t", /*default=*/"0",
           "Independent accesses per thread and operand (1 to 16), or 0 "
           "(auto) to "
           "decide per map: for the linear strategy 1 vector when the map "
           "has two or more memref inputs, 2 otherwise; for the general "
           "strategy 4 elements">,
    Option<"tileEdge", "tile-edge", "int64_t", /*default=*/"64",
           "Edge of the square tiles of the transpose strategy: 16, 32 or "
           "64 (256 threads cover a tile in passes of 256 / edge rows); "
           "halved while the tiles of the transposed inputs would exceed "
           "48 KiB of shared memory">,
    Option<"indexBitwidth", "index-bitwidth", "unsigned", /*default=*/"0",
           "Bits of the index arithmetic: 32, 64, or 0 to decide from the "
           "static layout (64 when dynamic)">,
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::gpu::GPUDialect",
                           "::mlir::math::MathDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::vector::VectorDialect"];
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
    calling convention, NVPTX loads them with `ld.global.nc`. (Exact
    aliasing of an input and an output, the in-place case, stays correct:
    each element is read before the same thread writes it.)

    With `transpose-blocks-per-sm` N > 0, a kernel with block-local buffers
    (the transpose strategy's tiles) is launched with dynamic shared memory
    it does not use, so that shared memory lets at most N of its blocks be
    resident per multiprocessor: the host code calls the runtime's
    `pwOccupancySharedMemory(static bytes, N)` (declared in the module),
    which sizes that padding from the current device's shared memory per
    multiprocessor (PTX can only ask for a minimum of resident blocks). It
    picks the least padding that keeps N + 1 blocks out, so that the driver
    configures as little shared memory, and as much L1, as N blocks allow.
    The pass itself defaults to no cap; `pw-gpu-pipeline` and `pw-compile`
    use 3. On an H100 the 64 x 64 f32 transposes otherwise run 8 blocks of
    256 threads per multiprocessor. Against that, 11 rounds paired
    (`benchmarks/NOTES.md`, eleventh session), in points of copy bandwidth
    for nchw_plus_nhwc / add_transposed / transpose_copy: 2 blocks -2.1 /
    -1.9 / -1.2; 3 blocks +1.4 / +1.1 / +0.4; 4 blocks +1.0 / +0.8 to +0.9
    / 0.0 to +0.3; 5 blocks +0.7 / +0.5 / +0.2; 6 blocks +0.5 / +0.4 /
    +0.1. The same 5-block cap with the most padding (L1 left 28 KiB
    instead of 60) gained nchw nothing. Linear kernels have no such
    buffers and are launched as before.
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

def HintGlobalLoadsPass
    : Pass<"pw-hint-global-loads", "::mlir::gpu::GPUModuleOp"> {
  let summary = "Gives the kernels' global loads an L2 cache policy";
  let description = [{
    Runs on a `gpu.module` whose kernels are in the LLVM dialect (after
    `convert-gpu-to-nvvm`). Every `llvm.load` of 2, 4, 8 or 16 bytes, aligned
    to its size, whose address derives (through `llvm.getelementptr` and
    `llvm.addrspacecast`) from a kernel argument becomes inline PTX:

    ```
    createpolicy.fractional.L2::evict_last.b64 policy, 1.0;
    ld.global.L1::evict_last.L2::cache_hint[.v4].b32 {...}, [address], policy;
    ```

    the loads PyTorch Inductor's Triton kernels issue for inputs it marks
    `evict_last`. They take the coherent path even for arguments marked
    `llvm.noalias` and `llvm.readonly`, for which NVPTX makes plain loads
    `ld.global.nc`: with the hint, `.nc` cost the transpose kernels 0.1 to
    0.4 points (library A/B, 11 rounds paired) and a hand-written 64 x 64
    tile 0.4 to 0.9 (`benchmarks/NOTES.md`, eleventh session). On an H100 under `triton.testing.do_bench` (a 256 MB
    `zero_()` before each timed call, which leaves L2 full of dirty lines),
    such loads moved 0.5 to 2 points more of copy bandwidth than plain ones
    on launches reading 128 MiB or more (dense, broadcast, flipped and
    transposed workloads; `benchmarks/NOTES.md`, sixth and seventh
    sessions); reading each call's inputs from fresh copies changed
    nothing, so the gain is not reuse between calls. The L2 policy carries
    the gain (`policy=l2-evict-last` matches `evict-last`; `l1-evict-last`
    matches `none`).

    The policy follows the launch's size: a kernel on which
    `pw-lower-to-gpu` recorded `pointwise.input_bytes_per_block` computes
    grid size x bytes per block at its entry and uses the evict_last policy
    when that reaches `evict-last-min-bytes` (64 MiB by default), an
    `evict_normal` one otherwise. Kernels without the record always use
    evict_last. Lines loaded with the evict_last policy stay marked after
    the kernel: they outlive later traffic of normal priority (such as
    `do_bench`'s flush) until other evict_last traffic displaces them or
    the program calls `cuCtxResetPersistingL2Cache`, so a kernel that
    reads the same memory next may find part of it in L2. Timed with the
    marks reset before each measurement, and each call reading the next of
    three copies of its inputs (tenth session), the hint gained 1.2 to 1.4
    points on 64 MiB launches (rank5_sliced, a dense copy); at 8 to
    32 MiB the results (-2.9 to +4.2, 15 rounds) were within what
    identical kernels differed by (up to 2.9 points), so smaller launches
    keep evict_normal.
    (An earlier finding that the hint lost 4 to 11 points at 16 to 64 MiB
    came from timing after kernels whose evict_last lines were still in
    L2.)

    Kernels that compute much per byte keep plain loads. pw-tile records
    on each kernel `pointwise.instructions_per_byte`, a static estimate of
    the instructions one element executes divided by the bytes of its
    operands (`WorkEstimate.h`); above `max-instructions-per-byte` (7.25)
    the kernel's loads stay as they are, and kernels without the record
    are hinted. On an H100 (`benchmarks/lab/hint_probe.mlir`,
    `benchmarks/NOTES.md`, eighth and ninth sessions) the hint cost 0.4 to
    4 points on f16 and bf16 kernels estimated at 7.5 or more (GELU with
    tanh or erf, sine, log, softplus, chains of 24 to 40 FMAs) and gained
    0.4 to 1.3 on kernels at 7 or less. The estimate misjudges f32 kernels
    of 7.5 to 8.5 (56 and 64 FMAs, mish: they gained 0.7 to 1.4 with the
    hint and now go without it) and f16 sigmoid at 7.0 (hinted, lost 0.4):
    what makes 16-bit storage lose at a lower estimate is not known (not
    the registers: one vector per thread, 32 registers instead of 48, made
    the f16 kernels slower with or without the hint).

    Kernels that address more than one workgroup buffer (pw-tile's
    transpose strategy staging two or more inputs through shared-memory
    tiles) keep plain loads: there the hint cost 0.5 to 11 points on the
    same machine, while it gained one on the transpose of a single input.
    Elsewhere, loads of 1 byte (`i8`, `i1`),
    misaligned ones, and loads whose address does not come from an argument
    stay as they are. The inline assembly is marked as having side effects,
    so LLVM keeps it in program order and never speculates it out of the
    branch that guards it (the vector path of pw-tile loads vectors only
    where the host checked alignment).

    `policy=none` leaves every load alone (for A/B comparisons).
  }];
  let options = [
    Option<"policy", "policy", "std::string", /*default=*/"\"evict-last\"",
           "Cache policy of global loads: evict-last (L1 evict_last and an "
           "L2 evict_last policy), l1-evict-last, l2-evict-last or none">,
    Option<"minBytes", "evict-last-min-bytes", "int64_t",
           /*default=*/"::pointwise::kDefaultHintMinBytes",
           "Bytes of input a launch must read for the L2 evict_last policy "
           "(kernels that record their bytes per block); smaller launches "
           "load with evict_normal (non-negative)">,
    Option<"maxInstructionsPerByte", "max-instructions-per-byte", "double",
           /*default=*/"::pointwise::kDefaultHintMaxInstructionsPerByte",
           "Kernels whose recorded estimate of instructions per byte moved "
           "is above this keep plain loads">,
  ];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect",
                           "::mlir::NVVM::NVVMDialect"];
}

def RuntimeOverlapChecksPass
    : Pass<"pw-runtime-overlap-checks", "::mlir::ModuleOp"> {
  let summary = "Checks at run time that a map's outputs do not overlap";
  let description = [{
    Puts before every `pointwise.map` with two or more memref operands, or
    with an output whose sizes or strides are dynamic, a call of the
    runtime's `pwCheckMapOverlap` and a `cf.assert` on its answer. The call
    receives the memref operands' descriptors (outputs first, then memref
    inputs: aligned base address, element size, rank, offset, sizes,
    strides) packed into a stack array of i64 (a `memref.alloca` in a
    `memref.alloca_scope`), declared as

    ```mlir
    func.func private @pwCheckMapOverlap(memref<?xi64>) -> i32
    ```

    and applies the layout library's `checkOutputOverlap`, the rule the
    kernel families' dispatch applies to every launch (docs/Layout.md): no
    output overlaps itself (its nonzero strides nest, or, up to 65536
    elements, no two elements coincide), no two outputs overlap, and no
    output partially overlaps an input (exact aliasing, the in-place case,
    is allowed). Overlap is decided on byte ranges and, where those
    intersect, exactly for views of the same sizes and strides (`a[::2]`
    and `a[1::2]`); other intersecting views are reported.

    A failed check prints the library's message (which operands, how) to
    stderr and stops at the assert. Views the program computes (subviews,
    casts, allocations) are known only then; the verifier decides the
    static part of a single output's layout, and an input that is the
    output's own value (in place) needs no check.

    Each `builtin.module` holding checked maps, nested ones included, gets
    its own declaration; maps under another symbol table (a `gpu.module`)
    are left alone. Another symbol of that name, or a `func.func` of it with
    a body or another type, is an error. The pass is not idempotent: run
    twice, it checks every map twice.

    `pw-cpu-pipeline` and `pw-gpu-pipeline` run this pass right after
    `generate-runtime-verification` unless `runtime-verification=false`.
    Code that contains the call must be linked with (or, in a JIT, resolve
    symbols from) `libPointwiseRuntime`, as GPU host code is anyway.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::cf::ControlFlowDialect",
                           "::mlir::func::FuncDialect",
                           "::mlir::memref::MemRefDialect"];
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
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}

def ExpandFloatClassesPass : Pass<"pw-expand-float-classes"> {
  let summary = "Expands math.isinf and math.isnormal into comparisons";
  let description = [{
    Neither upstream lowering to LLVM handles `math.isinf` or
    `math.isnormal` (`math.isnan` and `math.isfinite` have LLVM
    counterparts), so a map body using them would fail late in a pipeline.
    This pass rewrites them, on scalars and vectors of any float type, into
    `math.absf` and ordered `arith.cmpf` against constants of the operand's
    type:

    * `math.isinf %x` is `|x| == +inf`;
    * `math.isnormal %x` is `|x| >= smallest normal && |x| < +inf`, false for
      zero, subnormals, infinities and NaN.

    Both pipelines run it before lowering math; it works on any op, before
    or after the maps are lowered.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::math::MathDialect"];
}

#endif // POINTWISE_DIALECT_POINTWISE_TRANSFORMS_PASSES_TD
