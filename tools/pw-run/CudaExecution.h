//===- CudaExecution.h - pw-run's CUDA target -------------------*- C++ -*-===//
//
// Part of the pointwise project.
//
//===----------------------------------------------------------------------===//
//
// Runs an entry function on the GPU in one of two ways. The pipeline path
// lowers the whole module with pw-gpu-pipeline and calls the entry's host
// code in the JIT, which allocates, launches and frees through the runtime's
// mgpu ABI, as an embedding compiler's program would. The family path makes
// the entry a kernel family, as a pw-compile library would, and
// pwFamilyLaunch dispatches on the actual sizes and strides. Either way the
// arguments are copied to device buffers of the same layout first.
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

enum class GpuPath { Pipeline, Family };

class CudaExecution {
public:
  /// Compiles `entry` for device 0, its GPU code embedded as `gpuFormat`
  /// (fatbin, bin or isa), along `path`, and loads it. Fails with the
  /// runtime's message when there is no driver or device, before compiling
  /// anything.
  static llvm::Expected<std::unique_ptr<CudaExecution>>
  create(mlir::ModuleOp module, llvm::StringRef entry, BinaryFormat gpuFormat,
         GpuPath path);
  ~CudaExecution();

  /// Allocates a device buffer per memref argument and copies the host
  /// buffer into it.
  llvm::Error upload(std::vector<HostArgument> &arguments);
  /// One call on the current stream: pwFamilyLaunch, or the entry's host
  /// code. The buffers a previous call returned are freed first.
  llvm::Error launch();
  /// Waits for the device, then copies every device buffer back, and the
  /// memrefs the last call returned into `results` (freeing those the
  /// caller owns).
  llvm::Error download(std::vector<HostArgument> &arguments,
                       std::vector<HostArgument> &results);
  /// The median time of `iterations` launches, timed with events.
  llvm::Expected<double> timeMedianSeconds(unsigned iterations);
  /// Device-to-device copy bandwidth in bytes per second (256 MiB copies).
  llvm::Expected<double> measureCopyBandwidth();
  /// "rank 1, 32-bit indices, linear" for the family's last launch; what
  /// ran for the pipeline path.
  std::string describeLastVariant() const;
  std::string getDeviceName() const;

private:
  CudaExecution() = default;
  /// Frees the device buffers of the last call's results that no argument's
  /// buffer holds, in the current stream's order.
  void freeOwnedResults();

  GpuPath path = GpuPath::Family;
  std::string entry;
  /// Pipeline path: the entry's result types, the descriptors the last call
  /// returned, and the kernel launch sites of the lowered module.
  mlir::SmallVector<mlir::Type> resultTypes;
  std::vector<int64_t> resultWords;
  unsigned launchSites = 0;
  std::unique_ptr<mlir::ExecutionEngine> engine;
  const void *family = nullptr;
  std::vector<void *> deviceBuffers;
  std::vector<std::vector<int64_t>> descriptors;
  /// The family's arguments: a descriptor's or a scalar's address each.
  std::vector<void *> packed;
  /// The entry's C interface takes each descriptor's address by address.
  std::vector<void *> descriptorAddresses;
  std::vector<void *> entryArguments;
  std::vector<uint64_t> scalars;
};

} // namespace pointwise::run

#endif // POINTWISE_TOOLS_PWRUN_CUDAEXECUTION_H
