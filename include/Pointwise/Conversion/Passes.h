//===- Passes.h - Conversions to and from pointwise.map ---------*- C++ -*-===//
//
// Part of the pointwise project.
//
//===----------------------------------------------------------------------===//
//
// The conversion that makes `pointwise.map` ops of elementwise linalg ops
// (lib/Conversion/LinalgToPointwise), and those that replace maps: to `scf`
// loops for the CPU (lib/Conversion/PointwiseToSCF), and from pw-tile's
// tiled form to GPU kernels, with the passes that finish those kernels and
// their launches in the LLVM dialect (lib/Conversion/PointwiseToGPU).
//
//===----------------------------------------------------------------------===//

#ifndef POINTWISE_CONVERSION_PASSES_H
#define POINTWISE_CONVERSION_PASSES_H

#include "Pointwise/Dialect/Pointwise/IR/PointwiseEnums.h"

#include "mlir/Pass/Pass.h"

namespace mlir {
class RewritePatternSet;
} // namespace mlir

namespace pointwise {

/// Adds the pattern of `pw-convert-linalg-to-pointwise`: an elementwise op of
/// the `LinalgOp` interface becomes a `pointwise.map` over views of its
/// operands. The pattern builds and verifies the map before it changes the
/// IR, so an op that does not convert stays as it is.
void populateLinalgToPointwisePatterns(mlir::RewritePatternSet &patterns);

#define GEN_PASS_DECL
#include "Pointwise/Conversion/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "Pointwise/Conversion/Passes.h.inc"

} // namespace pointwise

#endif // POINTWISE_CONVERSION_PASSES_H
