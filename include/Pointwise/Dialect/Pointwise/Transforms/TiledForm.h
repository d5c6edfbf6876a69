//===- TiledForm.h - What pw-tile and pw-lower-to-gpu agree on -*- C++ -*-===//
//
// Part of the pointwise project.
//
//===----------------------------------------------------------------------===//
//
// pw-tile writes a map as a block-mapped scf.parallel holding thread-mapped
// scf.parallel loops; pw-lower-to-gpu reads that form back. These are the
// attributes both sides agree on.
//
//===----------------------------------------------------------------------===//

#ifndef POINTWISE_DIALECT_POINTWISE_TRANSFORMS_TILEDFORM_H
#define POINTWISE_DIALECT_POINTWISE_TRANSFORMS_TILEDFORM_H

#include "llvm/ADT/StringRef.h"

namespace pointwise {

/// On a block loop: the strategy pw-tile chose (linear, transpose, general).
constexpr llvm::StringLiteral kStrategyAttrName = "pointwise.strategy";

/// On a block loop, and on the GPU kernel pw-lower-to-gpu makes of it: an
/// integer, the bytes of memref inputs one block reads (each input element
/// counted once per element of the iteration space). With the grid size it
/// gives the kernel the bytes its launch reads, which pw-hint-global-loads
/// uses to choose the loads' cache policy at run time.
constexpr llvm::StringLiteral kInputBytesPerBlockAttrName =
    "pointwise.input_bytes_per_block";

/// On a block loop, and on the GPU kernel pw-lower-to-gpu makes of it: an
/// f64, the map's estimated instructions per byte moved
/// (estimateInstructionsPerByte), from which pw-hint-global-loads decides
/// whether the kernel is memory-bound enough for the L2 hint.
constexpr llvm::StringLiteral kInstructionsPerByteAttrName =
    "pointwise.instructions_per_byte";

/// On a memref.alloca before a block loop: every block has its own copy
/// (workgroup memory on the GPU).
constexpr llvm::StringLiteral kBlockLocalAttrName = "pointwise.block_local";

} // namespace pointwise

#endif // POINTWISE_DIALECT_POINTWISE_TRANSFORMS_TILEDFORM_H
