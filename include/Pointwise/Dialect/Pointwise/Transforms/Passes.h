//===- Passes.h - Passes on pointwise.map -------------------------*- C++
//-*-===//
//
// Part of the pointwise project.
//
//===----------------------------------------------------------------------===//

#ifndef POINTWISE_DIALECT_POINTWISE_TRANSFORMS_PASSES_H
#define POINTWISE_DIALECT_POINTWISE_TRANSFORMS_PASSES_H

#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassOptions.h"

namespace mlir {
class OpPassManager;
} // namespace mlir

namespace pointwise {

#define GEN_PASS_DECL
#include "Pointwise/Dialect/Pointwise/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "Pointwise/Dialect/Pointwise/Transforms/Passes.h.inc"

/// Options of `pw-cpu-pipeline`.
struct CpuPipelineOptions
    : public mlir::PassPipelineOptions<CpuPipelineOptions> {
  Option<bool> reference{
      *this, "reference",
      llvm::cl::desc("Lower without any layout transformation: naive loops "
                     "over the original iteration space and strides, the "
                     "oracle optimized lowerings are checked against"),
      llvm::cl::init(false)};
};

/// Adds the whole CPU path, from `pointwise.map` to the LLVM dialect, to `pm`
/// (anchored on the module).
void buildCpuPipeline(mlir::OpPassManager &pm,
                      const CpuPipelineOptions &options);

/// Registers `pw-cpu-pipeline` (and, later, the GPU pipeline) with the pass
/// registry of `mlir-opt`-like tools.
void registerPointwisePipelines();

} // namespace pointwise

#endif // POINTWISE_DIALECT_POINTWISE_TRANSFORMS_PASSES_H
