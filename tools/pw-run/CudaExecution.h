//===- CudaExecution.h - pw-run's CUDA target -------------------*- C++ -*-===//
//
// Part of the pointwise project.
//
//===----------------------------------------------------------------------===//
//
// Runs an entry function on the GPU the way a pw-compile library would: the
// function becomes a kernel family in the JIT, its arguments are copied to
// device buffers of the same layout, and pwFamilyLaunch dispatches on the
// actual sizes and strides.
//
//===----------------------------------------------------------------------===//

#ifndef POINTWISE_TOOLS_PWRUN_CUDAEXECUTION_H
#define POINTWISE_TOOLS_PWRUN_CUDAEXECUTION_H

#include "HostArgument.h"

#include "Pointwise/Dialect/Pointwise/IR/PointwiseEnums.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/Error.h"

#include <memory>
#include <string>
#include <vector>

namespace mlir {
class ExecutionEngine;
} // namespace mlir

namespace pointwise::run {

class CudaExecution {
public:
  /// Compiles `entry` into a kernel family for device 0, its GPU code
  /// embedded as `gpuFormat` (pw-compile's --format: fatbin, bin or isa),
  /// and loads it. Fails with the runtime's message when there is no driver
  /// or device, before compiling anything.
  static llvm::Expected<std::unique_ptr<CudaExecution>>
  create(mlir::ModuleOp module, llvm::StringRef entry, BinaryFormat gpuFormat);
  ~CudaExecution();

  /// Allocates a device buffer per memref argument and copies the host
  /// buffer into it.
  llvm::Error upload(std::vector<HostArgument> &arguments);
  /// One pwFamilyLaunch on the current stream.
  llvm::Error launch();
  /// Waits for the device, then copies every device buffer back.
  llvm::Error download(std::vector<HostArgument> &arguments);
  /// The median time of `iterations` launches, timed with events.
  llvm::Expected<double> timeMedianSeconds(unsigned iterations);
  /// Device-to-device copy bandwidth in bytes per second (256 MiB copies).
  llvm::Expected<double> measureCopyBandwidth();
  /// "rank 1, 32-bit indices, linear" for the last launch.
  std::string describeLastVariant() const;
  std::string getDeviceName() const;

private:
  CudaExecution() = default;

  std::unique_ptr<mlir::ExecutionEngine> engine;
  const void *family = nullptr;
  std::vector<void *> deviceBuffers;
  std::vector<std::vector<int64_t>> descriptors;
  std::vector<void *> packed;
  std::vector<uint64_t> scalars;
};

} // namespace pointwise::run

#endif // POINTWISE_TOOLS_PWRUN_CUDAEXECUTION_H
