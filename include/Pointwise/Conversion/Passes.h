//===- Passes.h - Conversions out of pointwise.map -------------*- C++ -*-===//
//
// Part of the pointwise project.
//
//===----------------------------------------------------------------------===//
//
// The conversions that replace `pointwise.map` ops: to `scf` loops for the
// CPU (lib/Conversion/PointwiseToSCF), and from pw-tile's tiled form to GPU
// kernels, with the passes that finish those kernels and their launches in
// the LLVM dialect (lib/Conversion/PointwiseToGPU).
//
//===----------------------------------------------------------------------===//

#ifndef POINTWISE_CONVERSION_PASSES_H
#define POINTWISE_CONVERSION_PASSES_H

#include "Pointwise/Dialect/Pointwise/IR/PointwiseEnums.h"

#include "mlir/Pass/Pass.h"

namespace pointwise {

#define GEN_PASS_DECL
#include "Pointwise/Conversion/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "Pointwise/Conversion/Passes.h.inc"

} // namespace pointwise

#endif // POINTWISE_CONVERSION_PASSES_H
