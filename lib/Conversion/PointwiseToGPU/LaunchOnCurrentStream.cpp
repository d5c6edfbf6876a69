//===- LaunchOnCurrentStream.cpp - Asynchronous host launches -------------===//
//
// Part of the pointwise project.
//
//===----------------------------------------------------------------------===//
//
// Gives every stream-less gpu.launch_func the runtime's current stream, so
// that the translation to LLVM IR emits one asynchronous launch instead of
// a stream created, synchronized and destroyed per call.
//
//===----------------------------------------------------------------------===//

#include "Pointwise/Conversion/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

namespace pointwise {
#define GEN_PASS_DEF_LAUNCHONCURRENTSTREAMPASS
#include "Pointwise/Conversion/Passes.h.inc"
} // namespace pointwise

using namespace mlir;

namespace {

/// The runtime function that returns the calling thread's current stream.
constexpr llvm::StringLiteral kGetStreamName = "pwGetStream";

struct LaunchOnCurrentStreamPass
    : public pointwise::impl::LaunchOnCurrentStreamPassBase<
          LaunchOnCurrentStreamPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<gpu::LaunchFuncOp> launches;
    module.walk([&](gpu::LaunchFuncOp launch) {
      if (!launch.getAsyncObject() && !launch.getAsyncToken() &&
          launch.getAsyncDependencies().empty())
        launches.push_back(launch);
    });
    if (launches.empty())
      return;
    for (gpu::LaunchFuncOp launch : launches) {
      if (llvm::any_of(launch.getKernelOperands(), [](Value operand) {
            return !LLVM::isCompatibleType(operand.getType());
          })) {
        launch.emitOpError("pw-launch-on-current-stream runs after "
                           "gpu-to-llvm; this launch still has non-LLVM "
                           "operands");
        return signalPassFailure();
      }
    }

    OpBuilder builder(module.getBodyRegion());
    auto pointer = LLVM::LLVMPointerType::get(&getContext());
    auto getStream = module.lookupSymbol<LLVM::LLVMFuncOp>(kGetStreamName);
    if (!getStream) {
      builder.setInsertionPointToStart(module.getBody());
      getStream =
          LLVM::LLVMFuncOp::create(builder, module.getLoc(), kGetStreamName,
                                   LLVM::LLVMFunctionType::get(pointer, {}));
    }
    for (gpu::LaunchFuncOp launch : launches) {
      builder.setInsertionPoint(launch);
      Value stream = LLVM::CallOp::create(builder, launch.getLoc(), getStream,
                                          ValueRange{})
                         .getResult();
      std::optional<gpu::KernelDim3> cluster;
      if (launch.hasClusterSize())
        cluster = launch.getClusterSizeOperandValues();
      auto async = gpu::LaunchFuncOp::create(
          builder, launch.getLoc(), launch.getKernelAttr(),
          launch.getGridSizeOperandValues(), launch.getBlockSizeOperandValues(),
          launch.getDynamicSharedMemorySize(), launch.getKernelOperands(),
          stream, cluster);
      // Keep discardable attributes (the strategy name) on the new launch.
      for (NamedAttribute attr : launch->getDiscardableAttrs())
        async->setAttr(attr.getName(), attr.getValue());
      launch.erase();
    }
  }
};

} // namespace
