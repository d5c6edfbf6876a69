//===- InitAllPasses.h - Passes a pointwise tool registers ----*- C++ -*-===//
//
// Part of the pointwise project.
//
//===----------------------------------------------------------------------===//
//
// The pointwise passes alone are registered by `registerPointwisePasses()`
// (Pointwise/Dialect/Pointwise/Transforms/Passes.h),
// `registerPointwiseConversionPasses()` (Pointwise/Conversion/Passes.h) and
// `registerPointwisePipelines()` (Pointwise/Pipelines/Pipelines.h).
//
//===----------------------------------------------------------------------===//

#ifndef POINTWISE_INITALLPASSES_H
#define POINTWISE_INITALLPASSES_H

namespace pointwise {

/// Registers the pointwise passes together with every upstream pass, as
/// `mlir-opt` does.
void registerAllPasses();

} // namespace pointwise

#endif // POINTWISE_INITALLPASSES_H
