//===- PassAttributes.h - Per-function pass settings -----------*- C++ -*-===//
//
// Part of the pointwise project.
//
//===----------------------------------------------------------------------===//
//
// Discardable attributes on an op enclosing pointwise.map ops (usually the
// function) that change what the passes do for those maps. pw-compile sets
// them on the variants of a kernel family, which all go through one pass
// pipeline run.
//
//===----------------------------------------------------------------------===//

#ifndef POINTWISE_DIALECT_POINTWISE_TRANSFORMS_PASSATTRIBUTES_H
#define POINTWISE_DIALECT_POINTWISE_TRANSFORMS_PASSATTRIBUTES_H

#include "llvm/ADT/StringRef.h"

namespace pointwise {

/// A unit attribute: the caller guarantees that every memref operand already
/// has the iteration shape, broadcast dims carrying stride 0 (the runtime's
/// dispatch does this). pw-canonicalize-broadcast then keeps dynamic sizes
/// as they are, which keeps static strides static.
constexpr llvm::StringLiteral kBroadcastResolvedAttrName =
    "pointwise.broadcast_resolved";

/// A string: pw-tile's `strategy` option for the maps inside.
constexpr llvm::StringLiteral kTileStrategyAttrName = "pointwise.tile_strategy";

/// An integer: pw-tile's `vector-bytes` option for the maps inside (a power
/// of two up to 32; 0 decides per map).
constexpr llvm::StringLiteral kTileVectorBytesAttrName =
    "pointwise.tile_vector_bytes";

/// An integer: pw-tile's `index-bitwidth` option for the maps inside.
constexpr llvm::StringLiteral kTileIndexBitwidthAttrName =
    "pointwise.tile_index_bitwidth";

} // namespace pointwise

#endif // POINTWISE_DIALECT_POINTWISE_TRANSFORMS_PASSATTRIBUTES_H
