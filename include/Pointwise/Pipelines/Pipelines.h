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
//===----------------------------------------------------------------------===//

#ifndef POINTWISE_PIPELINES_PIPELINES_H
#define POINTWISE_PIPELINES_PIPELINES_H

#include "Pointwise/Dialect/Pointwise/Transforms/WorkEstimate.h"

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
  Option<std::string> strategy{
      *this, "strategy",
      llvm::cl::desc("pw-tile strategy with tiled=1: auto, linear, "
                     "transpose or general (without tiled=1, an error)"),
      llvm::cl::init("auto")};
  Option<unsigned> indexBitwidth{
      *this, "index-bitwidth",
      llvm::cl::desc("pw-tile index arithmetic with tiled=1: 32, 64, or 0 "
                     "to decide from the static layout (without tiled=1, "
                     "an error)"),
      llvm::cl::init(0)};
  Option<int64_t> tileEdge{
      *this, "tile-edge",
      llvm::cl::desc("pw-tile transpose tile edge with tiled=1 (without "
                     "tiled=1, an error)"),
      llvm::cl::init(64)};
  Option<bool> runtimeVerification{
      *this, "runtime-verification",
      llvm::cl::desc(kRuntimeVerificationDescription), llvm::cl::init(true)};
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
/// (anchored on the module).
void buildCpuPipeline(mlir::OpPassManager &pm,
                      const CpuPipelineOptions &options);

/// Options of `pw-gpu-pipeline`.
struct GpuPipelineOptions
    : public mlir::PassPipelineOptions<GpuPipelineOptions> {
  Option<std::string> chip{*this, "chip",
                           llvm::cl::desc("GPU architecture, e.g. sm_90"),
                           llvm::cl::init("sm_90")};
  Option<std::string> features{
      *this, "features",
      llvm::cl::desc("The PTX ISA version as +ptxNN, at least the chip's; "
                     "empty picks the chip's (+ptx80 for sm_90)"),
      llvm::cl::init("")};
  Option<std::string> format{
      *this, "format",
      llvm::cl::desc("What the gpu.binary holds: isa (PTX), bin (cubin) or "
                     "fatbin"),
      llvm::cl::init("fatbin")};
  Option<std::string> cudaPath{
      *this, "cuda-path",
      llvm::cl::desc("CUDA toolkit for libdevice and ptxas; empty picks "
                     "$CUDA_HOME, $CUDA_ROOT, $CUDA_PATH or /usr/local/cuda"),
      llvm::cl::init("")};
  Option<int> optLevel{*this, "opt-level",
                       llvm::cl::desc("NVVM optimization level"),
                       llvm::cl::init(3)};
  Option<std::string> strategy{
      *this, "strategy",
      llvm::cl::desc("pw-tile strategy: auto, linear, transpose or general"),
      llvm::cl::init("auto")};
  Option<unsigned> indexBitwidth{
      *this, "index-bitwidth",
      llvm::cl::desc("Bits of kernel index arithmetic: 32, 64, or 0 to "
                     "decide from the static layout"),
      llvm::cl::init(0)};
  Option<int64_t> blockSize{
      *this, "block-size",
      llvm::cl::desc("Threads per block of the linear and general "
                     "strategies, or 0 to decide per map (pw-tile)"),
      llvm::cl::init(0)};
  Option<int64_t> vectorBytes{
      *this, "vector-bytes",
      llvm::cl::desc("Bytes per vector access of the linear strategy, or 0 "
                     "to decide per map (pw-tile)"),
      llvm::cl::init(0)};
  Option<int64_t> unroll{
      *this, "unroll",
      llvm::cl::desc("Independent accesses per thread and operand, or 0 to "
                     "decide per map (see pw-tile)"),
      llvm::cl::init(0)};
  Option<int64_t> tileEdge{
      *this, "tile-edge",
      llvm::cl::desc("Edge of the transpose strategy's tiles (16, 32, 64)"),
      llvm::cl::init(64)};
  Option<std::string> loadPolicy{
      *this, "load-policy",
      llvm::cl::desc("Cache policy of the kernels' global loads "
                     "(pw-hint-global-loads): evict-last, l1-evict-last, "
                     "l2-evict-last or none"),
      llvm::cl::init("evict-last")};
  Option<int64_t> hintMinBytes{
      *this, "hint-min-bytes",
      llvm::cl::desc("Bytes of input a launch must read for the L2 "
                     "evict_last load policy (pw-hint-global-loads' "
                     "evict-last-min-bytes; with load-policy=none or "
                     "l1-evict-last, which use no L2 policy, an error)"),
      llvm::cl::init(kDefaultHintMinBytes)};
  Option<int64_t> transposeBlocksPerSM{
      *this, "transpose-blocks-per-sm",
      llvm::cl::desc("Resident blocks per multiprocessor of kernels with "
                     "shared-memory tiles (pw-lower-to-gpu's "
                     "transpose-blocks-per-sm; 0: no cap)"),
      llvm::cl::init(kDefaultTransposeBlocksPerSM)};
  Option<double> hintMaxInstructionsPerByte{
      *this, "hint-max-instructions-per-byte",
      llvm::cl::desc("Kernels estimated to compute more instructions per "
                     "byte moved keep plain loads (pw-hint-global-loads' "
                     "max-instructions-per-byte; with load-policy=none, "
                     "which hints no load, an error)"),
      llvm::cl::init(kDefaultHintMaxInstructionsPerByte)};
  Option<bool> launchOnCurrentStream{
      *this, "launch-on-current-stream",
      llvm::cl::desc("Launch asynchronously on the runtime's current stream "
                     "(pwGetStream) instead of on a stream created, "
                     "synchronized and destroyed per launch"),
      llvm::cl::init(false)};
  Option<bool> runtimeVerification{
      *this, "runtime-verification",
      llvm::cl::desc(kRuntimeVerificationDescription), llvm::cl::init(true)};
};

/// What is wrong with `options` (an unsupported chip or format, a cuda-path
/// that is not a CUDA toolkit, an opt-level outside 0-3, a hint option given
/// with a load-policy that does not read it), or "" when nothing is. As for
/// the CPU pipeline, an option counts as given when it was set at all.
/// buildGpuPipeline builds a pipeline that fails with this message.
std::string checkGpuPipelineOptions(const GpuPipelineOptions &options);

/// Adds the whole GPU path, from `pointwise.map` to a `gpu.binary` and host
/// code in the LLVM dialect, to `pm` (anchored on the module).
void buildGpuPipeline(mlir::OpPassManager &pm,
                      const GpuPipelineOptions &options);

/// Registers `pw-cpu-pipeline` (and, later, the GPU pipeline) with the pass
/// registry of `mlir-opt`-like tools.
void registerPointwisePipelines();

} // namespace pointwise

#endif // POINTWISE_PIPELINES_PIPELINES_H
