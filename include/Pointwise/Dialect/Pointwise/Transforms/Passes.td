//===- Passes.td - Passes on pointwise.map -----------------*- tablegen -*-===//
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
      This is the only case where a static stride becomes dynamic, and the
      only one where it must: whether the dim broadcasts is known only at
      run time.

    Scalars, outputs, inputs that are also outputs (in place) and inputs
    already in canonical form are left alone, static strides included;
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

def BufferizePass : Pass<"pw-bufferize", "::mlir::ModuleOp"> {
  let summary = "Bufferizes a module that holds tensors, for the pipelines";
  let description = [{
    The first step of `pw-cpu-pipeline` and `pw-gpu-pipeline`, which take
    tensor-level modules as well as memref-level ones. A module in which no
    function, operand, result or block argument has a tensor type is left
    exactly as it is, so memref modules keep their own memory management
    (their `memref.alloc`/`memref.dealloc`, their returned views).

    A module with tensors goes through upstream's `eliminate-empty-tensors`
    (a map whose result is stored into a buffer, with
    `bufferization.materialize_in_destination` or `tensor.insert_slice`,
    writes that buffer instead of a new one that is then copied), then
    `one-shot-bufferize` with
    `bufferize-function-boundaries` (tensor arguments become memrefs with
    fully dynamic strided layouts, so callers may pass any view; tensor maps
    become memref maps, in place where the analysis allows), then, with
    `deallocate` (the default), through upstream's
    `buffer-deallocation-pipeline` and `convert-bufferization-to-memref`:
    temporaries are freed, and every returned memref is a buffer the caller
    owns and frees (an argument that is returned comes back as a copy).

    Without `deallocate` the pass requires that bufferization allocate
    nothing: every map writes a destination that the caller passes, and a
    new buffer is an error at the op that needs it. That suits a compiler
    that manages all memory itself. Both pipelines run the pass with
    `deallocate`; `pw-gpu-pipeline` then makes the allocations GPU memory
    (`pw-place-buffers-on-device`).

    ```mlir
    func.func @scale(%a: tensor<?xf32>, %s: f32) -> tensor<?xf32> {
      %r = pointwise.map ins(%a, %s : tensor<?xf32>, f32) outs(%a : tensor<?xf32>) {
      ^bb0(%x: f32, %y: f32):
        %0 = arith.mulf %x, %y : f32
        pointwise.yield %0 : f32
      } -> tensor<?xf32>
      return %r : tensor<?xf32>
    }
    ```

    becomes a function over `memref<?xf32, strided<[?], offset: ?>>` whose
    map updates `%a`'s buffer in place and which returns a copy of it
    (`deallocate`) or `%a` itself (without).

    With `identity-layout`, function boundaries use the identity layout
    instead (upstream's `function-boundary-type-conversion=identity-layout-map`):
    `tensor<1024x1024xf32>` becomes `memref<1024x1024xf32>`, whose sizes,
    strides and offset are all static, so `pw-coalesce-dims` and `pw-tile`
    see a contiguous layout at compile time (constant strides, 16-byte
    vectors, no layout parameters). The caller then passes contiguous
    buffers only: a view with other strides is not a valid argument.
  }];
  let options = [
    Option<"deallocate", "deallocate", "bool", /*default=*/"true",
           "Free temporaries and return caller-owned buffers (upstream's "
           "buffer-deallocation-pipeline); without it, a bufferization that "
           "allocates is an error">,
    Option<"identityLayout", "identity-layout", "bool", /*default=*/"false",
           "Tensor arguments and results of functions become memrefs with "
           "the identity layout (contiguous, row-major, offset 0) instead of "
           "fully dynamic strided layouts: static shapes then give kernels "
           "with static layouts, and callers must pass contiguous buffers">,
  ];
  let dependentDialects = ["::mlir::bufferization::BufferizationDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::arith::ArithDialect"];
}

def PlaceBuffersOnDevicePass
    : Pass<"pw-place-buffers-on-device", "::mlir::ModuleOp"> {
  let summary = "Makes the buffers of host code GPU memory, for "
                "pw-gpu-pipeline";
  let description = [{
    Runs in `pw-gpu-pipeline` after `pw-bufferize`, before the maps are
    tiled. Under that pipeline a function's code runs on the host and its
    maps run on the GPU, so every buffer a map touches is GPU memory: the
    caller's arguments, and every buffer the function allocates. The pass
    rewrites the host functions (every function outside a `gpu.module`)
    accordingly:

    - `memref.alloc` becomes an asynchronous `gpu.alloc` and
      `memref.dealloc` a `gpu.dealloc`, each on a stream of its own that a
      `gpu.wait` then ends. With `pw-launch-on-current-stream` (the
      pipeline's default) those streams are the runtime's current stream:
      allocation and release are ordered with the launches that use the
      memory (stream-ordered, from the runtime's memory pool) and nothing
      waits. A
      buffer the function returns is the caller's to free (`pwFree`, or
      `mgpuMemFree`).
    - `memref.copy` becomes a `pointwise.map` that copies (one GPU kernel):
      the copies bufferization makes when a value cannot be updated in
      place, and the copies of a program.

    Code that reads or writes a buffer's elements on the host
    (`memref.load`, `memref.store`, `tensor.extract` once bufferized, any
    op with a read or write effect on a memref), a `memref.alloca` (host
    stack memory), and a `memref.get_global` (a host global, as constant
    tensors become) are rejected with a diagnostic at the op: the host
    cannot dereference GPU memory, and a kernel cannot read the host's.

    ```mlir
    %t = memref.alloc(%n) : memref<?xf32>
    ```

    becomes

    ```mlir
    %0 = gpu.wait async
    %t, %1 = gpu.alloc async [%0] (%n) : memref<?xf32>
    gpu.wait [%1]
    ```
  }];
  let dependentDialects = ["::mlir::gpu::GPUDialect",
                           "::pointwise::PointwiseDialect"];
}

def FuseMapsPass : Pass<"pw-fuse-maps"> {
  let summary = "Fuses tensor maps into the maps that read their results, "
                "and merges sibling maps into multi-output maps";
  let description = [{
    Works on the tensor form of `pointwise.map` (memref maps are left
    alone), so that a chain of elementwise steps becomes one map and, once
    bufferized and lowered, one kernel that reads each input once and
    writes only the results the program uses.

    **Producer into consumer.** A map (the producer) whose result another
    map (the consumer) reads as an input is computed inside the consumer:
    the consumer takes the producer's inputs instead of its result, and the
    producer's body runs inside the consumer's body, once per element of
    the consumer's iteration space. Broadcasting composes (NumPy rules,
    right-aligned): a producer input that broadcasts to the producer's
    iteration space also broadcasts to the consumer's, and reads the same
    element there, so the fused map computes exactly what the two did.
    (Where the types show that a producer input cannot broadcast to the
    consumer's shape, the program cannot run without error anyway, and the
    maps are left as they are.) Chains of any length collapse, consumers
    first.

    The value passing from producer to consumer is the value the producer
    would have stored: the producer's body is cloned with its f16/bf16
    arithmetic made explicit in f32, as the lowerings compute it (opmath),
    and rounded to the result's element type, so the fused map rounds where
    the intermediate tensor would have been stored and the results are bit
    for bit those of the unfused program. The rounding is written
    `-truncf(-v)` (the same bits: rounding to nearest even is symmetric),
    which `--canonicalize` keeps; it folds a plain `arith.truncf` of an
    `arith.sitofp` or `arith.uitofp` into a narrower conversion, which a
    body computes in f32 without rounding.

    Where the consumer reads the producer's result at the consumer's full
    shape, fusing only saves memory traffic. Where it reads the result
    through a broadcast (a smaller or lower-rank result, or dynamic sizes
    not provably equal), each producer element is computed again for every
    consumer element that reads it, so the producer is fused only if it is
    *cheap*: its body has at most `max-recompute-ops` ops (constants and
    the terminator do not count), no op with regions, no division or
    remainder, and no math op but `absf`, `absi`, `copysign`, `fma`,
    `ceil`, `floor`, `trunc`, `round`, `roundeven`, the float class tests
    (`isnan`, `isinf`, `isfinite`, `isnormal`), `ctlz`, `cttz` and `ctpop`.
    Sizes are provably equal when both are the same static size, or both
    come from the same SSA value (a `tensor.empty` size, or `tensor.dim` of
    one tensor), followed through the destinations of maps and other
    destination-style ops.

    A producer with several users:

    - if every use is an input of a map it can be fused into, it is fused
      into each and erased;
    - otherwise, if some consumer reads it at full shape and can take its
      place (every other use comes after that consumer), the consumer
      absorbs it: the fused map also writes the producer's results, which
      replace the producer's, and the producer is erased;
    - otherwise, if the producer is cheap, it is fused into every map it
      can be and kept for its other uses;
    - otherwise it is left as it is.

    A map in a loop (a repetitive region, a loop-like op) or in another
    block of the producer's region is not fused with a producer outside it:
    it would compute the producer again on every iteration. `tensor.dim` of
    a map result reads the dim of its destination instead, which is the
    same size and leaves the map's result to its maps.

    **Siblings.** Two maps of one block with the same iteration space
    (provably equal sizes, as above) that read at least one tensor input in
    common and do not depend on each other become one map with the inputs
    of both (each value once) and the outputs of both, placed where both
    operands are defined and both results are used. Where the two write
    the same destination, the second gets a new `tensor.empty` of the same
    sizes; other shared destinations prevent the merge.

    The fused map keeps the consumer's discardable attributes. Dead ops of
    a fused body are erased; `--canonicalize` afterwards removes results
    nothing uses and moves constant scalar inputs into the body.

    Example: `d = exp(a + b) * c`, with `b` a row broadcast over `a`, in two
    maps

    ```mlir
    %s = pointwise.map ins(%a, %b : tensor<4x8xf32>, tensor<8xf32>)
                       outs(%e : tensor<4x8xf32>) {
    ^bb0(%x: f32, %y: f32):
      %0 = arith.addf %x, %y : f32
      %1 = math.exp %0 : f32
      pointwise.yield %1 : f32
    } -> tensor<4x8xf32>
    %d = pointwise.map ins(%s, %c : tensor<4x8xf32>, tensor<4x8xf32>)
                       outs(%e : tensor<4x8xf32>) {
    ^bb0(%x: f32, %z: f32):
      %0 = arith.mulf %x, %z : f32
      pointwise.yield %0 : f32
    } -> tensor<4x8xf32>
    ```

    becomes one map:

    ```mlir
    %d = pointwise.map ins(%c, %a, %b : tensor<4x8xf32>, tensor<4x8xf32>,
                                        tensor<8xf32>)
                       outs(%e : tensor<4x8xf32>) {
    ^bb0(%z: f32, %x: f32, %y: f32):
      %0 = arith.addf %x, %y : f32
      %1 = math.exp %0 : f32
      %2 = arith.mulf %1, %z : f32
      pointwise.yield %2 : f32
    } -> tensor<4x8xf32>
    ```

    Had `%d` read `%s` through a broadcast, the `math.exp` would have kept
    the producer from being recomputed there.
  }];
  let options = [
    Option<"maxRecomputeOps", "max-recompute-ops", "unsigned",
           /*default=*/"16",
           "The most ops a producer's body may have to be fused where its "
           "result is read through a broadcast (recomputed per consumer "
           "element); 0 fuses such producers only if their body is empty">,
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::tensor::TensorDialect"];
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
      bytes per operand (fewer where that would put more than 16 elements
      in flight) with `vector.load`/`vector.store` carrying an
      `alignment` attribute; all loads of a thread are issued before any
      compute. A block covers one chunk of threads x elements per thread;
      the grid has one block per chunk. A uniform run-time test (first
      elements, row strides and the last size all multiples of the vector)
      selects the vector path; at
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
    The index arithmetic folds as it is built: static sizes, strides and
    offsets stay constants (which `pw-lower-to-gpu` turns into immediates
    of the kernel), checks the types decide are decided at compile time,
    and where a layout is static the linear strategy's vector is the
    widest its rows allow, so that the host checks only the pointers'
    alignment, once per launch.

    The scalar body is cloned once per element; f16 and bf16 values are
    computed in f32 and rounded once when stored.

    What the pass decides by itself (`strategy=auto`, options at 0) follows
    docs/Performance.md, whose rows give the measurement or reason behind
    each choice: the strategy (row `transpose-detection`); the linear
    strategy's threads per block and vector bytes (row `linear-shape`,
    narrowed on static layouts by row `static-vector-width`), its
    unroll (row `linear-unroll`), its cap of 16 elements in flight per
    thread (row `elements-in-flight`) and its grid (row `linear-grid`); the
    transpose strategy's 64 x 64 tiles of 256 threads (row
    `transpose-tile`), halved to fit (row `transpose-tile-fit`), their
    vectors and which inputs are staged (row `transpose-vectors`) and the
    order of the tiles in the grid (row `transpose-block-order`); the
    index bitwidth (row `index-bitwidth`) and the division by run-time
    sizes in 32-bit kernels (row `magic-division`).

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
    Option<"strategy", "strategy", "::pointwise::TileStrategy",
           /*default=*/"::pointwise::TileStrategy::Auto",
           "Strategy to use: auto, linear, transpose or general",
           "::pointwise::tileStrategyValues()">,
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
           "decide per map: for the linear strategy, when the map has two "
           "or more memref inputs, the vectors that make 16 bytes (1 of 16 "
           "bytes, 2 of 8), 2 otherwise; for the general strategy 4 "
           "elements">,
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
