//===- PassPipelines.cpp - The pointwise pass pipelines -------------------===//
//
// Part of the pointwise project.
//
//===----------------------------------------------------------------------===//
//
// Every pipeline of the project in one place: what runs, in which order.
//
//===----------------------------------------------------------------------===//

#include "Pointwise/Dialect/Pointwise/Transforms/Passes.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;

void pointwise::buildCpuPipeline(OpPassManager &pm,
                                 const CpuPipelineOptions &options) {
  if (!options.reference) {
    pm.addPass(createCanonicalizeBroadcastPass());
    pm.addPass(createCoalesceDimsPass());
  }
  pm.addPass(createLowerToLoopsPass());
  if (!options.reference) {
    pm.addPass(createCanonicalizerPass());
    pm.addPass(createCSEPass());
  }
  // Upstream's standard CPU lowering; f16/bf16 math goes through f32 since
  // libm has no half-precision entry points.
  pm.addNestedPass<func::FuncOp>(math::createMathExtendToSupportedTypes());
  pm.addPass(createSCFToControlFlowPass());
  pm.addPass(memref::createExpandStridedMetadataPass());
  pm.addPass(createLowerAffinePass());
  pm.addPass(arith::createArithExpandOpsPass());
  pm.addPass(createConvertMathToLLVMPass());
  pm.addPass(createConvertMathToLibmPass());
  pm.addPass(createFinalizeMemRefToLLVMConversionPass());
  pm.addPass(createArithToLLVMConversionPass());
  pm.addPass(createConvertIndexToLLVMPass());
  pm.addPass(createConvertControlFlowToLLVMPass());
  pm.addPass(createConvertFuncToLLVMPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
}

void pointwise::registerPointwisePipelines() {
  PassPipelineRegistration<CpuPipelineOptions>(
      "pw-cpu-pipeline",
      "The whole CPU path of pointwise.map, down to the LLVM dialect: "
      "broadcast canonicalization, dimension coalescing, loops, then "
      "upstream's conversions to LLVM",
      buildCpuPipeline);
}
