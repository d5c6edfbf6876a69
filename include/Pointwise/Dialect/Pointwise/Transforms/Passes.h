//===- Passes.h - Passes on pointwise.map ----------------------*- C++ -*-===//
//
// Part of the pointwise project.
//
//===----------------------------------------------------------------------===//
//
// The passes that rewrite `pointwise.map` ops in place. The conversions out
// of the dialect are in Pointwise/Conversion/Passes.h, the pipelines in
// Pointwise/Pipelines/Pipelines.h.
//
//===----------------------------------------------------------------------===//

#ifndef POINTWISE_DIALECT_POINTWISE_TRANSFORMS_PASSES_H
#define POINTWISE_DIALECT_POINTWISE_TRANSFORMS_PASSES_H

#include "Pointwise/Dialect/Pointwise/IR/PointwiseEnums.h"

#include "mlir/Pass/Pass.h"

namespace pointwise {

#define GEN_PASS_DECL
#include "Pointwise/Dialect/Pointwise/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "Pointwise/Dialect/Pointwise/Transforms/Passes.h.inc"

} // namespace pointwise

#endif // POINTWISE_DIALECT_POINTWISE_TRANSFORMS_PASSES_H
