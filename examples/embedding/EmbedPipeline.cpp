//===- EmbedPipeline.cpp - The embedding compiler's pipeline --------------===//
//
// Part of the pointwise project.
//
//===----------------------------------------------------------------------===//

#include "EmbedPipeline.h"

#include "Pointwise/Conversion/Passes.h"
#include "Pointwise/Dialect/Pointwise/Transforms/Passes.h"
#include "Pointwise/Pipelines/Pipelines.h"

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"

void embed::buildPipeline(mlir::OpPassManager &pm) {
  pm.addPass(pointwise::createConvertLinalgToPointwisePass());
  pm.addPass(pointwise::createFuseMapsPass());
  // Bufferizes the module (pw-bufferize), then lowers the maps to loops and
  // everything to the LLVM dialect.
  pointwise::buildCpuPipeline(pm, pointwise::CpuPipelineOptions());
}

void embed::registerPipeline() {
  mlir::PassPipelineRegistration<>(
      "embed-pipeline",
      "Converts elementwise linalg ops to pointwise.map and lowers the module "
      "to the LLVM dialect for the CPU",
      buildPipeline);
}
