//===- InitAllDialects.h - Dialects a pointwise tool registers ----*- C++
//-*-===//
//
// Part of the pointwise project.
//
//===----------------------------------------------------------------------===//
//
// One place that lists what the project's tools, plugin and tests register,
// so `pw-opt`, `pw-run` and the unit tests accept the same IR.
//
//===----------------------------------------------------------------------===//

#ifndef POINTWISE_INITALLDIALECTS_H
#define POINTWISE_INITALLDIALECTS_H

namespace mlir {
class DialectRegistry;
} // namespace mlir

namespace pointwise {

/// Registers the pointwise dialect and the implementations of the interfaces
/// it promises (bufferization of `pointwise.map`), nothing upstream.
void registerPointwiseDialect(mlir::DialectRegistry &registry);

/// Registers the pointwise dialect together with every upstream dialect,
/// dialect extension and translation to LLVM IR, as `mlir-opt` does.
void registerAllDialects(mlir::DialectRegistry &registry);

} // namespace pointwise

#endif // POINTWISE_INITALLDIALECTS_H
