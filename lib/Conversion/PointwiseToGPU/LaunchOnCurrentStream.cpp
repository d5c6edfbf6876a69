//===- LaunchOnCurrentStream.cpp - Asynchronous host launches -------------===//
//
// Part of the pointwise project.
//
//===----------------------------------------------------------------------===//
//
// Gives every stream-less gpu.launch_func the runtime's current stream, so
// that the translation to LLVM IR emits one asynchronous launch instead of
// a stream created, synchronized and destroyed per call; the streams that
// host code creates for its asynchronous GPU operations (gpu.alloc,
// gpu.dealloc) become the current stream too.
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
/// What gpu-to-llvm makes of `gpu.wait async` and of `gpu.wait [%token]`.
constexpr llvm::StringLiteral kStreamCreateName = "mgpuStreamCreate";
constexpr llvm::StringLiteral kStreamSynchronizeName = "mgpuStreamSynchronize";
constexpr llvm::StringLiteral kStreamDestroyName = "mgpuStreamDestroy";
/// What gpu-to-llvm makes of `gpu.alloc async` and `gpu.dealloc async`, and
/// the runtime's functions that allocate and free in the order of a stream
/// even when it is the legacy default one (null), which mgpuMemAlloc and
/// mgpuMemFree take for "no stream": the current stream is null unless
/// pwSetStream set one (docs/Performance.md, row
/// `stream-ordered-temporaries`).
constexpr llvm::StringLiteral kMemAllocName = "mgpuMemAlloc";
constexpr llvm::StringLiteral kMemFreeName = "mgpuMemFree";
constexpr llvm::StringLiteral kMemAllocOnStreamName = "pwMemAllocOnStream";
constexpr llvm::StringLiteral kMemFreeOnStreamName = "pwMemFreeOnStream";

bool isCallOf(Operation *op, llvm::StringRef callee) {
  auto call = dyn_cast<LLVM::CallOp>(op);
  return call && call.getCallee() == callee;
}

/// Makes `call` call `callee`, a function of the same type, declared in
/// `module` next to the one `call` calls.
void retarget(ModuleOp module, LLVM::CallOp call, llvm::StringRef callee) {
  auto function = module.lookupSymbol<LLVM::LLVMFuncOp>(callee);
  if (!function) {
    auto original = module.lookupSymbol<LLVM::LLVMFuncOp>(*call.getCallee());
    OpBuilder builder(original);
    function = LLVM::LLVMFuncOp::create(builder, original.getLoc(), callee,
                                        original.getFunctionType());
  }
  call.setCallee(callee);
}

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
    SmallVector<LLVM::CallOp> streams;
    module.walk([&](LLVM::CallOp call) {
      if (isCallOf(call, kStreamCreateName))
        streams.push_back(call);
    });
    if (launches.empty() && streams.empty())
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
    // A stream host code creates for its own operations is the current
    // stream: its work is ordered with the launches, and the calls that
    // would wait for it and destroy it go, as the launches' do. Allocations
    // and releases on it stay in its order when it is the legacy default
    // stream too.
    for (LLVM::CallOp create : streams) {
      for (Operation *user : llvm::make_early_inc_range(create->getUsers())) {
        if (isCallOf(user, kStreamSynchronizeName) ||
            isCallOf(user, kStreamDestroyName)) {
          user->erase();
          continue;
        }
        for (auto [from, to] : {std::pair(kMemAllocName, kMemAllocOnStreamName),
                                std::pair(kMemFreeName, kMemFreeOnStreamName)})
          if (isCallOf(user, from))
            retarget(module, cast<LLVM::CallOp>(user), to);
      }
      builder.setInsertionPoint(create);
      Value stream = LLVM::CallOp::create(builder, create.getLoc(), getStream,
                                          ValueRange{})
                         .getResult();
      create.getResult().replaceAllUsesWith(stream);
      create.erase();
    }
    // Declarations nothing calls any more.
    for (llvm::StringRef name :
         {kStreamCreateName, kStreamSynchronizeName, kStreamDestroyName,
          kMemAllocName, kMemFreeName})
      if (auto function = module.lookupSymbol<LLVM::LLVMFuncOp>(name);
          function && function.isExternal() &&
          SymbolTable::symbolKnownUseEmpty(function, module))
        function.erase();
  }
};

} // namespace
