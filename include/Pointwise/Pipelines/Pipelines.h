//===- Pipelines.h - The pointwise pass pipelines --------------*- C++ -*-===//
//
// Part of the pointwise project.
//
//===----------------------------------------------------------------------===//
//
// The CPU and GPU pipelines from `pointwise.map` to the LLVM dialect, their
// options, and their registration as `pw-cpu-pipeline` and
// `pw-gpu-pipeline`.
//
// GpuCodegenOptions is the one definition of the GPU code-generation
// options: `pw-gpu-pipeline` parses them, kernel families hold them too
// (FamilyOptions in Pointwise/Compiler/Family.h), and `pw-compile` and the
// C API's `pwcCompile` parse the families' options through them. An option
// of a pass reaches all of those by one declaration here, forwarded to the
// pass by the get*Options functions below; its default is the pass's own.
//
//===----------------------------------------------------------------------===//

#ifndef POINTWISE_PIPELINES_PIPELINES_H
#define POINTWISE_PIPELINES_PIPELINES_H

#include "Pointwise/Conversion/Passes.h"
#include "Pointwise/Dialect/Pointwise/IR/PointwiseEnums.h"
#include "Pointwise/Dialect/Pointwise/Transforms/Passes.h"

#include "mlir/Pass/PassOptions.h"

#include <string>

namespace mlir {
class OpPassManager;
} // namespace mlir

namespace pointwise {

/// The `runtime-verification` option of both pipelines.
inline constexpr const char *kRuntimeVerificationDescription =
    "First run upstream's generate-runtime-verification: cf.asserts on the "
    "host of what the verifier cannot decide for dynamic sizes and strides "
    "(a map's shapes broadcast, its outputs have no stride-0 dim of size > 1; "
    "other ops' bounds), then pw-runtime-overlap-checks (the layout "
    "library's overlap rule on the maps' operands, through the runtime's "
    "pwCheckMapOverlap); kernel families, whose run-time dispatch checks "
    "layouts, turn it off";

/// The `identity-layout` option of both pipelines (pw-bufferize's).
inline constexpr const char *kIdentityLayoutDescription =
    "Bufferize tensor function arguments and results to memrefs with the "
    "identity layout (contiguous, row-major) instead of fully dynamic "
    "strided layouts: static tensor shapes give kernels with static layouts; "
    "callers must pass contiguous buffers";

/// Options of `pw-cpu-pipeline`.
struct CpuPipelineOptions
    : public mlir::PassPipelineOptions<CpuPipelineOptions> {
  Option<bool> reference{
      *this, "reference",
      llvm::cl::desc("Lower without any layout transformation: naive loops "
                     "over the original iteration space and strides, the "
                     "oracle optimized lowerings are checked against "
                     "(with tiled=1, an error: one lowering or the other)"),
      llvm::cl::init(false)};
  Option<bool> tiled{
      *this, "tiled",
      llvm::cl::desc("Run the GPU kernels' tiled code (pw-tile) on the CPU, "
                     "block after block and thread after thread, instead "
                     "of plain loops: tests GPU code generation without a "
                     "GPU; strategy, index-bitwidth and tile-edge need it "
                     "(with reference=1, an error)"),
      llvm::cl::init(false)};
  Option<TileStrategy> strategy{
      *this, "strategy",
      llvm::cl::desc("pw-tile strategy with tiled=1: auto, linear, "
                     "transpose or general (without tiled=1, an error)"),
      llvm::cl::init(TilePassOptions().strategy), tileStrategyValues()};
  Option<unsigned> indexBitwidth{
      *this, "index-bitwidth",
      llvm::cl::desc("pw-tile index arithmetic with tiled=1: 32, 64, or 0 "
                     "to decide from the static layout (without tiled=1, "
                     "an error)"),
      llvm::cl::init(TilePassOptions().indexBitwidth)};
  Option<int64_t> tileEdge{
      *this, "tile-edge",
      llvm::cl::desc("pw-tile transpose tile edge with tiled=1 (without "
                     "tiled=1, an error)"),
      llvm::cl::init(TilePassOptions().tileEdge)};
  Option<bool> runtimeVerification{
      *this, "runtime-verification",
      llvm::cl::desc(kRuntimeVerificationDescription), llvm::cl::init(true)};
  Option<bool> identityLayout{*this, "identity-layout",
                              llvm::cl::desc(kIdentityLayoutDescription),
                              llvm::cl::init(false)};

  /// pw-tile's options for the tiled lowering.
  TilePassOptions getTileOptions() const {
    TilePassOptions tile;
    tile.strategy = strategy;
    tile.indexBitwidth = indexBitwidth;
    tile.tileEdge = tileEdge;
    return tile;
  }
};

/// What is wrong with `options` (reference=1 with tiled=1: two lowerings,
/// the oracle and one checked against it; strategy, index-bitwidth or
/// tile-edge given without tiled=1, where no pass reads them), or "" when
/// nothing is. An option counts as given when it was set, in the option
/// string or by assignment, even to its default value: code that builds
/// options sets pw-tile's only with tiled=1. buildCpuPipeline builds a
/// pipeline that fails with this message.
std::string checkCpuPipelineOptions(const CpuPipelineOptions &options);

/// Adds the whole CPU path, from `pointwise.map` to the LLVM dialect, to `pm`
/// (anchored on the module). A module with tensors is bufferized first
/// (pw-bufferize, deallocating temporaries; returned memrefs belong to the
/// caller).
void buildCpuPipeline(mlir::OpPassManager &pm,
                      const CpuPipelineOptions &options);

/// The GPU code-generation options: declared once here, registered with the
/// option parser of whichever options struct holds them (`parent`):
/// pw-gpu-pipeline's and kernel families' (FamilyOptions).
struct GpuCodegenOptions {
  template <typename T>
  using CodegenOption = mlir::detail::PassOptions::Option<T>;

  explicit GpuCodegenOptions(mlir::detail::PassOptions &parent)
      : chip{parent, "chip", llvm::cl::desc("GPU architecture, e.g. sm_90"),
             llvm::cl::init("sm_90")},
        features{parent, "features",
                 llvm::cl::desc("The PTX ISA version as +ptxNN, at least the "
                                "chip's; empty picks the chip's (+ptx80 for "
                                "sm_90)"),
                 llvm::cl::init("")},
        format{parent, "format",
               llvm::cl::desc("What the gpu.binary holds: isa (PTX), bin "
                              "(cubin) or fatbin (cubin and PTX)"),
               llvm::cl::init(BinaryFormat::Fatbin), binaryFormatValues()},
        cudaPath{parent, "cuda-path",
                 llvm::cl::desc("CUDA toolkit for libdevice and ptxas; empty "
                                "picks $CUDA_HOME, $CUDA_ROOT, $CUDA_PATH or "
                                "/usr/local/cuda"),
                 llvm::cl::init("")},
        optLevel{parent, "opt-level",
                 llvm::cl::desc("NVVM optimization level (0 to 3) of LLVM's "
                                "pipeline and of ptxas: 2 keeps the "
                                "transpose strategy's edge-tile loop a loop "
                                "(docs/Performance.md, row `nvvm-opt-level`)"),
                 llvm::cl::init(2)},
        blockSize{parent, "block-size",
                  llvm::cl::desc("Threads per block of the linear and general "
                                 "strategies (1 to 1024), or 0 to decide per "
                                 "map (pw-tile)"),
                  llvm::cl::init(TilePassOptions().blockSize)},
        vectorBytes{parent, "vector-bytes",
                    llvm::cl::desc("Bytes per vector access of the linear "
                                   "strategy (a power of two up to 32), or 0 "
                                   "to decide per map (pw-tile)"),
                    llvm::cl::init(TilePassOptions().vectorBytes)},
        unroll{parent, "unroll",
               llvm::cl::desc("Independent accesses per thread and operand (1 "
                              "to 16), or 0 to decide per map (pw-tile)"),
               llvm::cl::init(TilePassOptions().unroll)},
        tileEdge{parent, "tile-edge",
                 llvm::cl::desc("Edge of the transpose strategy's tiles (16, "
                                "32, 64)"),
                 llvm::cl::init(TilePassOptions().tileEdge)},
        loadPolicy{parent, "load-policy",
                   llvm::cl::desc("Cache policy of the kernels' global loads "
                                  "(pw-hint-global-loads): evict-last, "
                                  "l1-evict-last, l2-evict-last or none"),
                   llvm::cl::init(HintGlobalLoadsPassOptions().policy),
                   loadPolicyValues()},
        hintMinBytes{parent, "hint-min-bytes",
                     llvm::cl::desc("Bytes of input a launch must read for the "
                                    "L2 evict_last load policy "
                                    "(pw-hint-global-loads' "
                                    "evict-last-min-bytes; with "
                                    "load-policy=none or l1-evict-last, which "
                                    "use no L2 policy, an error)"),
                     llvm::cl::init(HintGlobalLoadsPassOptions().minBytes)},
        hintMaxInstructionsPerByte{
            parent, "hint-max-instructions-per-byte",
            llvm::cl::desc("Kernels estimated to compute more instructions "
                           "per byte moved keep plain loads "
                           "(pw-hint-global-loads' max-instructions-per-byte; "
                           "with load-policy=none, which hints no load, an "
                           "error)"),
            llvm::cl::init(
                HintGlobalLoadsPassOptions().maxInstructionsPerByte)},
        // The pass itself caps nothing; the pipelines' default is measured
        // (docs/Performance.md, row transpose-blocks-per-sm).
        transposeBlocksPerSM{
            parent, "transpose-blocks-per-sm",
            llvm::cl::desc("Resident blocks per multiprocessor of kernels "
                           "with shared-memory tiles (pw-lower-to-gpu's "
                           "transpose-blocks-per-sm; 0: no cap)"),
            llvm::cl::init(3)} {}

  CodegenOption<std::string> chip;
  CodegenOption<std::string> features;
  CodegenOption<BinaryFormat> format;
  CodegenOption<std::string> cudaPath;
  CodegenOption<int> optLevel;
  CodegenOption<int64_t> blockSize;
  CodegenOption<int64_t> vectorBytes;
  CodegenOption<int64_t> unroll;
  CodegenOption<int64_t> tileEdge;
  CodegenOption<LoadPolicy> loadPolicy;
  CodegenOption<int64_t> hintMinBytes;
  CodegenOption<double> hintMaxInstructionsPerByte;
  CodegenOption<int64_t> transposeBlocksPerSM;

  /// pw-tile's options (strategy and index bitwidth at their defaults).
  TilePassOptions getTileOptions() const {
    TilePassOptions tile;
    tile.blockSize = blockSize;
    tile.vectorBytes = vectorBytes;
    tile.unroll = unroll;
    tile.tileEdge = tileEdge;
    return tile;
  }
  /// pw-lower-to-gpu's options.
  LowerToGpuPassOptions getLowerToGpuOptions() const {
    LowerToGpuPassOptions lower;
    lower.transposeBlocksPerSM = transposeBlocksPerSM;
    return lower;
  }
  /// pw-hint-global-loads' options.
  HintGlobalLoadsPassOptions getHintGlobalLoadsOptions() const {
    HintGlobalLoadsPassOptions hints;
    hints.policy = loadPolicy;
    hints.minBytes = hintMinBytes;
    hints.maxInstructionsPerByte = hintMaxInstructionsPerByte;
    return hints;
  }
};

/// Options of `pw-gpu-pipeline`: the code generation options and those of
/// a whole program's lowering.
struct GpuPipelineOptions
    : public mlir::PassPipelineOptions<GpuPipelineOptions>,
      public GpuCodegenOptions {
  GpuPipelineOptions()
      : GpuCodegenOptions(static_cast<mlir::detail::PassOptions &>(*this)) {}

  Option<TileStrategy> strategy{
      *this, "strategy",
      llvm::cl::desc("pw-tile strategy: auto, linear, transpose or general"),
      llvm::cl::init(TilePassOptions().strategy), tileStrategyValues()};
  Option<unsigned> indexBitwidth{
      *this, "index-bitwidth",
      llvm::cl::desc("Bits of kernel index arithmetic: 32, 64, or 0 to "
                     "decide from the static layout"),
      llvm::cl::init(TilePassOptions().indexBitwidth)};
  Option<bool> launchOnCurrentStream{
      *this, "launch-on-current-stream",
      llvm::cl::desc("Launch asynchronously on the runtime's current stream "
                     "(pwGetStream) instead of on a stream created, "
                     "synchronized and destroyed per launch"),
      llvm::cl::init(false)};
  Option<bool> runtimeVerification{
      *this, "runtime-verification",
      llvm::cl::desc(kRuntimeVerificationDescription), llvm::cl::init(true)};
  Option<bool> identityLayout{*this, "identity-layout",
                              llvm::cl::desc(kIdentityLayoutDescription),
                              llvm::cl::init(false)};

  /// pw-tile's options.
  TilePassOptions getTileOptions() const {
    TilePassOptions tile = GpuCodegenOptions::getTileOptions();
    tile.strategy = strategy;
    tile.indexBitwidth = indexBitwidth;
    return tile;
  }
};

/// What is wrong with the code generation options (an unsupported chip, a
/// cuda-path that is not a CUDA toolkit, an opt-level outside 0-3, a hint
/// option given with a load-policy that does not read it), or "" when
/// nothing is. An option counts as given when it was set at all.
std::string checkGpuCodegenOptions(const GpuCodegenOptions &options);

/// Adds the GPU path to `pm` as pw-gpu-pipeline does, with pw-tile's
/// options `tile`: from `pointwise.map` to a `gpu.binary` and host code in
/// the LLVM dialect, launching on the runtime's current stream if
/// `launchOnCurrentStream`, after upstream's runtime verification and
/// pw-runtime-overlap-checks if `runtimeVerification`. Kernel families
/// lower their variants with it.
void buildGpuCodegenPipeline(mlir::OpPassManager &pm,
                             const GpuCodegenOptions &options,
                             const TilePassOptions &tile,
                             bool launchOnCurrentStream,
                             bool runtimeVerification);

/// Adds the whole GPU path, from `pointwise.map` to a `gpu.binary` and host
/// code in the LLVM dialect, to `pm` (anchored on the module). A module with
/// tensors is bufferized first (pw-bufferize: temporaries are freed, returned
/// buffers belong to the caller), then every buffer of host code becomes GPU
/// memory and every copy a map (pw-place-buffers-on-device); with options
/// that checkGpuCodegenOptions rejects, a pipeline that fails with its
/// message.
void buildGpuPipeline(mlir::OpPassManager &pm,
                      const GpuPipelineOptions &options);

/// Registers `pw-cpu-pipeline` and `pw-gpu-pipeline` with the pass registry
/// of `mlir-opt`-like tools.
void registerPointwisePipelines();

} // namespace pointwise

#endif // POINTWISE_PIPELINES_PIPELINES_H
