//===- Bufferize.cpp - Bufferization of tensor modules for the pipelines --===//
//
// Part of the pointwise project.
//
//===----------------------------------------------------------------------===//
//
// pw-bufferize: upstream's one-shot bufferization (and buffer deallocation)
// run as a dynamic pipeline, only on modules that hold tensors, so that the
// pipelines take tensor-level modules without touching memref-level ones.
//
//===----------------------------------------------------------------------===//

#include "Pointwise/Dialect/Pointwise/Transforms/Passes.h"

#include "mlir/Conversion/BufferizationToMemRef/BufferizationToMemRef.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Bufferization/Pipelines/Passes.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/SmallPtrSet.h"

namespace pointwise {
#define GEN_PASS_DEF_BUFFERIZEPASS
#include "Pointwise/Dialect/Pointwise/Transforms/Passes.h.inc"
} // namespace pointwise

using namespace mlir;
using namespace pointwise;

namespace {

bool isTensor(Type type) { return isa<TensorType>(type); }

/// Whether any function signature, operand, result or block argument in
/// `module` is a tensor.
bool holdsTensors(ModuleOp module) {
  WalkResult result = module.walk([](Operation *op) {
    if (auto function = dyn_cast<FunctionOpInterface>(op))
      if (llvm::any_of(function.getArgumentTypes(), isTensor) ||
          llvm::any_of(function.getResultTypes(), isTensor))
        return WalkResult::interrupt();
    if (llvm::any_of(op->getOperandTypes(), isTensor) ||
        llvm::any_of(op->getResultTypes(), isTensor))
      return WalkResult::interrupt();
    for (Region &region : op->getRegions())
      for (Block &block : region)
        if (llvm::any_of(block.getArgumentTypes(), isTensor))
          return WalkResult::interrupt();
    return WalkResult::advance();
  });
  return result.wasInterrupted();
}

void buildBufferization(OpPassManager &pm, bool deallocate,
                        bool identityLayout) {
  // A map whose result is then stored into a buffer
  // (materialize_in_destination, insert_slice) writes that buffer directly
  // instead of a new one that is copied.
  pm.addPass(bufferization::createEmptyTensorEliminationPass());
  bufferization::OneShotBufferizePassOptions options;
  options.bufferizeFunctionBoundaries = true;
  if (identityLayout)
    options.functionBoundaryTypeConversion =
        bufferization::LayoutMapOption::IdentityLayoutMap;
  pm.addPass(bufferization::createOneShotBufferizePass(options));
  if (!deallocate)
    return;
  bufferization::buildBufferDeallocationPipeline(pm);
  // The copies that give the caller its own buffers (bufferization.clone)
  // become memref.alloc and memref.copy.
  pm.addPass(createConvertBufferizationToMemRefPass());
}

struct BufferizePass : pointwise::impl::BufferizePassBase<BufferizePass> {
  using Base::Base;

  void getDependentDialects(DialectRegistry &registry) const override {
    Base::getDependentDialects(registry);
    OpPassManager pipeline(ModuleOp::getOperationName());
    buildBufferization(pipeline, /*deallocate=*/true,
                       /*identityLayout=*/false);
    pipeline.getDependentDialects(registry);
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (!holdsTensors(module))
      return;
    llvm::SmallPtrSet<Operation *, 8> existing;
    module.walk([&](memref::AllocOp alloc) { existing.insert(alloc); });

    OpPassManager pipeline(ModuleOp::getOperationName());
    buildBufferization(pipeline, deallocate, identityLayout);
    if (failed(runPipeline(pipeline, module)))
      return signalPassFailure();
    if (deallocate)
      return;

    WalkResult result =
        module.walk([&](memref::AllocOp alloc) {
          if (existing.contains(alloc))
            return WalkResult::advance();
          alloc.emitError()
              << "bufferization allocates a " << alloc.getType()
              << " here, and pw-bufferize runs with deallocate=false (as "
                 "pw-gpu-pipeline does, whose maps run on the GPU memory the "
                 "caller passes): write this value into a destination that the "
                 "caller passes as a function argument";
          return WalkResult::interrupt();
        });
    if (result.wasInterrupted())
      signalPassFailure();
  }
};

} // namespace
