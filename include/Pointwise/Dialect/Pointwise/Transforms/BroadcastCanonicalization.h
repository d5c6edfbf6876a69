//===- BroadcastCanonicalization.h - Broadcasting as stride 0 ---*- C++ -*-===//
//
// Part of the pointwise project.
//
//===----------------------------------------------------------------------===//
//
// The rewrite of pw-canonicalize-broadcast, for passes that need its form
// (pw-tile) and run it on maps that did not go through the pass.
//
//===----------------------------------------------------------------------===//

#ifndef POINTWISE_DIALECT_POINTWISE_TRANSFORMS_BROADCASTCANONICALIZATION_H
#define POINTWISE_DIALECT_POINTWISE_TRANSFORMS_BROADCASTCANONICALIZATION_H

namespace mlir {
class RewriterBase;
} // namespace mlir

namespace pointwise {
class MapOp;

/// Gives every memref input of `map` the iteration shape, broadcasting
/// spelled out as stride-0 dims: missing leading dims, static size-1 dims
/// under a larger iteration size, and dynamic sizes not known to equal the
/// iteration size (stride 0 when they are 1 at run time, unless an enclosing
/// op carries `pointwise.broadcast_resolved`). Inputs already in that form are
/// left as they are, so a second run changes nothing. New ops go before
/// `map`.
void canonicalizeBroadcastInputs(mlir::RewriterBase &rewriter, MapOp map);

} // namespace pointwise

#endif // POINTWISE_DIALECT_POINTWISE_TRANSFORMS_BROADCASTCANONICALIZATION_H
