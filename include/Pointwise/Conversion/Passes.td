//===- Passes.td - Conversions out of pointwise.map ---------*- tablegen -*-===//
//
// Part of the pointwise project.
//
//===----------------------------------------------------------------------===//

#ifndef POINTWISE_CONVERSION_PASSES_TD
#define POINTWISE_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

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

#endif // POINTWISE_CONVERSION_PASSES_TD
